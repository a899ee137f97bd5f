//! The public-text guard (protocol §6, `public_texts`).
//!
//! > "The text guard: a text holding a run of nine or more digits outside a hex digest (a
//! > digest here is exactly 64, 40 or 32 hex characters with at least one letter among them;
//! > an all-digit run is not one, and digits glued to a digest are seen), nine or more digits
//! > written with spaces, dashes or dots between groups (dates and clock times are set aside
//! > before that rule; zero-width characters are removed before both digit rules), a drive or
//! > home path (a drive letter, `~/`, `%VAR%\`, a `\\server\` path, `/users/` or `/home/` in
//! > any case), an email-shaped token (a letter in the domain: `name@7.49.0` is a version, not
//! > an address), a phone-shaped token (`+` then a digit then seven or more digits, spaces,
//! > dashes, dots or parentheses) or a telegram invite link (`t.me/+…`, `t.me/joinchat/…`) is
//! > withheld and listed [...]; whitespace and a bare `@` (a public handle) are not reasons
//! > here."
//!
//! [`guard`] returns every reason a text trips; an empty list means it may be published.
//!
//! # Steps past the protocol, on purpose
//!
//! The protocol is the floor; each of these makes the guard stricter and closes a cheap
//! evasion. A text they withhold is published after a person reads it.
//!
//! * Invisible characters are removed before the digit rules: the protocol's "zero-width
//!   characters" and their kin (U+00AD, U+034F, U+061C, U+180E, U+200B–U+200F, U+202A–U+202E,
//!   U+2060–U+2064, U+2066–U+2069, U+FEFF). Then, also before the digit rules, characters are
//!   folded: full-width ASCII forms U+FF01–U+FF5E to ASCII, and every Unicode decimal digit
//!   (general category Nd, `shapes::ND_ZEROS`) to its ASCII digit. `char::is_numeric` is not
//!   used: superscripts, fractions and Roman numerals are not digits.
//! * The other rules read the text twice, folded both times: with invisible characters
//!   removed, and with each read as a space. A hit in either counts, so an invisible character
//!   can neither split a token (`t<ZWSP>.me/+x`) nor glue one to a boundary (`x<ZWSP>C:\`).
//! * A digest must be a digest both before and after folding, so a full-width character
//!   glued to a hex run is seen, never absorbed into a digest.
//! * Grouped digits also accept Unicode dashes and parentheses between groups, so
//!   `(555) 010-9999` trips.
//! * Paths: `%VAR%/` as well as `%VAR%\`; `\users\` and `\home\` as well as the slashed forms.
//! * Telegram: `telegram.me/` and `telegram.dog/` hosts, `%2B` for `+`, and `tg://join?invite=`.
//!
//! # Decisions where §6 is silent
//!
//! * **Digest.** A maximal run of ASCII hex characters `[0-9a-fA-F]` whose length is exactly
//!   64, 40 or 32 and which holds at least one letter. The run is bounded by any non-hex
//!   character, so `0x` + 40 hex is a digest. Anything glued on (hex digits or hex letters)
//!   makes the run longer, so it is no longer a digest and every digit run inside it counts:
//!   `<64hex>123456789` and `123456789<40hex>` both trip.
//! * **Digit run.** Nine or more consecutive ASCII digits (after folding) not inside a digest.
//! * **Grouped digits.** A chain of digit groups joined by separators of one to three
//!   characters each (horizontal whitespace, dashes, dots, parentheses; line breaks do not
//!   join), with at least two groups and nine or more digits in all. Digits of a digest are
//!   not groups. Set aside first (they neither count nor join): ISO dates `YYYY-MM-DD` (also
//!   with `.` or `/`), day-first or month-first dates `DD.MM.YYYY` (also `-` or `/`), and clock
//!   times `H:MM`, `HH:MM:SS` with an optional fraction; years 19xx or 20xx, months 01–12,
//!   days 01–31, hours 0–23, minutes 00–59, seconds 00–60; no digit directly before or after.
//!   A date glued to more groups is set aside alone, and the remaining groups trip if they
//!   reach nine digits on their own (`2026-11-08-123-456-789` trips, `2026-11-08 123 456`
//!   does not).
//! * **Path.** A drive letter is an ASCII letter, `:`, then `\` or `/`, not preceded by an
//!   ASCII letter or digit (so `https://` is not a drive). `%VAR%` names are ASCII letters,
//!   digits, `_`, `(`, `)`. A `\\server\` name is alphanumerics and `-._$`. `/home/` matches
//!   anywhere, URLs included (`https://x.example/home/` trips, as worded).
//! * **Email.** A local-part character directly before `@` (an alphanumeric or one of
//!   ``.!#$%&'*+/=?^_`{|}~-``), then a domain: the longest run of alphanumerics, `-` and `.`,
//!   trimmed of `.` and `-` at both ends, holding a `.` and at least one letter. Any letter
//!   counts, so `pkg@1.2.3-beta` trips (a person reads it).
//! * **Phone.** `+` then an ASCII digit then the longest run of digits, horizontal
//!   whitespace, dashes, dots and parentheses; trailing non-digits are not counted, so the
//!   run must reach seven characters after the first digit ending on a digit (`+1234567.`
//!   does not trip, `+1 2 3 4 5` does).
//! * **Telegram.** The host (`t.me`, `telegram.me`, `telegram.dog`, any case) must not be
//!   glued to a preceding ASCII alphanumeric or `-` (`at.me/+x` is another host); then `+` or
//!   `joinchat/` (any case) followed by at least one of `[A-Za-z0-9_-]` (`t.me/+` alone is no
//!   invite).
//!
//! # Not implemented
//!
//! Look-alike letters (Cyrillic `С:\`, `/υsers/`) and other Unicode slash, colon or `@`
//! variants outside the full-width block are not folded; digits written as words or as
//! superscripts are not digits; separators other than the ones listed (commas, slashes,
//! underscores, line breaks) do not join digit groups.

use crate::shapes::{
    fold_full_width, fold_nd_digit, is_drive_at, is_home_dir_at, is_invisible, is_slash,
    is_tilde_home_at, scan, starts_with_ignore_ascii_case,
};

/// One reason a text is withheld.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum GuardReason {
    /// "a run of nine or more digits outside a hex digest"
    DigitRun,
    /// "nine or more digits written with spaces, dashes or dots between groups"
    GroupedDigits,
    /// "a drive or home path"
    DriveOrHomePath,
    /// "an email-shaped token"
    Email,
    /// "a phone-shaped token"
    Phone,
    /// "a telegram invite link"
    TelegramInvite,
}

impl GuardReason {
    /// The stable code written into `public_texts/index.json`.
    pub fn code(self) -> &'static str {
        match self {
            GuardReason::DigitRun => "digit_run",
            GuardReason::GroupedDigits => "grouped_digits",
            GuardReason::DriveOrHomePath => "drive_or_home_path",
            GuardReason::Email => "email",
            GuardReason::Phone => "phone",
            GuardReason::TelegramInvite => "telegram_invite",
        }
    }
}

/// Every reason the text trips, sorted, each once. Empty = the text may be published.
pub fn guard(text: &str) -> Vec<GuardReason> {
    let views = Views::of(text);
    let t = &views.folded;
    let digest = digest_mask(&views.plain, t);
    let either = |rule: fn(&[char]) -> bool| rule(t) || rule(&views.spaced);
    let checks: [(GuardReason, bool); 6] = [
        (GuardReason::DigitRun, has_digit_run(t, &digest)),
        (GuardReason::GroupedDigits, has_grouped_digits(t, &digest)),
        (GuardReason::DriveOrHomePath, either(has_drive_or_home_path)),
        (GuardReason::Email, either(has_email)),
        (GuardReason::Phone, either(has_phone)),
        (GuardReason::TelegramInvite, either(has_telegram_invite)),
    ];
    // The array is in `GuardReason` order, so the result is sorted and unique.
    checks
        .into_iter()
        .filter_map(|(reason, hit)| hit.then_some(reason))
        .collect()
}

// ---------------------------------------------------------------------------------------
// Normalisation: "zero-width characters are removed before both digit rules" (and more,
// see the module doc).
// ---------------------------------------------------------------------------------------

/// A full-width form or a decimal digit folded to ASCII; any other character unchanged.
fn fold(c: char) -> char {
    fold_full_width(c).or_else(|| fold_nd_digit(c)).unwrap_or(c)
}

/// The three ways the guard reads one text.
struct Views {
    /// Invisible characters removed, nothing folded: the protocol's own view for the digit
    /// rules ("zero-width characters are removed before both digit rules").
    plain: Vec<char>,
    /// `plain` with every character folded; the same length and positions as `plain`.
    folded: Vec<char>,
    /// Folded, with each invisible character read as a space, so that one can never glue
    /// two tokens together (`x<ZWSP>C:\` is still a drive).
    spaced: Vec<char>,
}

impl Views {
    fn of(text: &str) -> Views {
        let plain: Vec<char> = text.chars().filter(|&c| !is_invisible(c)).collect();
        let folded = plain.iter().map(|&c| fold(c)).collect();
        let spaced = text
            .chars()
            .map(|c| if is_invisible(c) { ' ' } else { fold(c) })
            .collect();
        Views {
            plain,
            folded,
            spaced,
        }
    }
}

// ---------------------------------------------------------------------------------------
// Digests: "a digest here is exactly 64, 40 or 32 hex characters with at least one letter
// among them; an all-digit run is not one, and digits glued to a digest are seen"
// ---------------------------------------------------------------------------------------

/// `true` at every position inside a digest in both views: folding can lengthen a hex run
/// (a full-width digit glued on) but can never make one a digest.
fn digest_mask(plain: &[char], folded: &[char]) -> Vec<bool> {
    let in_plain = digest_mask_of(plain);
    let in_folded = digest_mask_of(folded);
    in_plain
        .iter()
        .zip(in_folded)
        .map(|(&a, b)| a && b)
        .collect()
}

/// `true` at every position inside a digest: a maximal hex run of exactly 64, 40 or 32
/// characters with a letter among them. Glued characters lengthen the run, so it stops
/// being a digest and its digits are seen.
fn digest_mask_of(t: &[char]) -> Vec<bool> {
    let mut mask = vec![false; t.len()];
    let mut i = 0;
    while i < t.len() {
        let end = scan(t, i, |c| c.is_ascii_hexdigit());
        if is_digest(&t[i..end]) {
            mask[i..end].fill(true);
        }
        i = end.max(i + 1);
    }
    mask
}

fn is_digest(run: &[char]) -> bool {
    matches!(run.len(), 64 | 40 | 32) && run.iter().any(|c| c.is_ascii_alphabetic())
}

// ---------------------------------------------------------------------------------------
// Rule: "a run of nine or more digits outside a hex digest"
// ---------------------------------------------------------------------------------------

fn has_digit_run(t: &[char], digest: &[bool]) -> bool {
    let mut i = 0;
    while i < t.len() {
        let end = scan(t, i, |c| c.is_ascii_digit());
        // A digit run lies wholly inside or wholly outside a digest (both are maximal).
        if end - i >= 9 && !digest[i] {
            return true;
        }
        i = end.max(i + 1);
    }
    false
}

// ---------------------------------------------------------------------------------------
// Rule: "nine or more digits written with spaces, dashes or dots between groups (dates and
// clock times are set aside before that rule)"
// ---------------------------------------------------------------------------------------

/// The most separator characters allowed between two groups (`123 - 456` has three).
const MAX_SEPARATOR: usize = 3;

fn has_grouped_digits(t: &[char], digest: &[bool]) -> bool {
    let aside = set_aside_dates_and_times(t);
    let counts = |i: usize| t[i].is_ascii_digit() && !digest[i] && !aside[i];
    let joins = |i: usize| is_group_separator(t[i]) && !aside[i];
    let mut i = 0;
    while i < t.len() {
        if !counts(i) {
            i += 1;
            continue;
        }
        let (digits, groups, end) = walk_chain(t.len(), i, &counts, &joins);
        if groups >= 2 && digits >= 9 {
            return true;
        }
        i = end;
    }
    false
}

/// Follows groups joined by short separator runs from `start` (a counted digit); returns
/// (digits, groups, index after the last group).
fn walk_chain(
    n: usize,
    start: usize,
    counts: &impl Fn(usize) -> bool,
    joins: &impl Fn(usize) -> bool,
) -> (usize, usize, usize) {
    let (mut digits, mut groups, mut i) = (0, 0, start);
    loop {
        let group_end = (i..n).find(|&k| !counts(k)).unwrap_or(n);
        digits += group_end - i;
        groups += 1;
        let sep_end = (group_end..n)
            .take(MAX_SEPARATOR)
            .find(|&k| !joins(k))
            .unwrap_or((group_end + MAX_SEPARATOR).min(n));
        if sep_end == group_end || sep_end >= n || !counts(sep_end) {
            return (digits, groups, group_end);
        }
        i = sep_end;
    }
}

/// "spaces, dashes or dots" — plus parentheses (module doc). Line breaks do not join.
fn is_group_separator(c: char) -> bool {
    is_horizontal_space(c) || is_dash(c) || c == '.' || c == '\u{2024}' || c == '(' || c == ')'
}

fn is_horizontal_space(c: char) -> bool {
    c.is_whitespace()
        && !matches!(
            c,
            '\n' | '\r' | '\u{0B}' | '\u{0C}' | '\u{85}' | '\u{2028}' | '\u{2029}'
        )
}

/// ASCII hyphen-minus and the Unicode hyphens, dashes and minus signs.
fn is_dash(c: char) -> bool {
    matches!(
        c,
        '-' | '\u{2010}'..='\u{2015}' | '\u{2212}' | '\u{FE58}' | '\u{FE63}'
    )
}

/// "dates and clock times are set aside": `true` over every date or time (module doc).
fn set_aside_dates_and_times(t: &[char]) -> Vec<bool> {
    let mut aside = vec![false; t.len()];
    for i in 0..t.len() {
        if i > 0 && t[i - 1].is_ascii_digit() {
            continue; // a date or time starts a digit group
        }
        let len = [iso_date_at(t, i), dmy_date_at(t, i), time_at(t, i)]
            .into_iter()
            .flatten()
            .max();
        if let Some(len) = len {
            aside[i..i + len].fill(true);
        }
    }
    aside
}

/// The digits at `i` as (value, count), at most `max` of them.
fn number_at(t: &[char], i: usize, max: usize) -> (u32, usize) {
    if i >= t.len() {
        return (0, 0);
    }
    let end = scan(t, i, |c| c.is_ascii_digit()).min(i + max);
    let value = t[i..end]
        .iter()
        .fold(0, |v, c| v * 10 + c.to_digit(10).unwrap_or(0));
    (value, end - i)
}

fn is_date_separator(c: char) -> bool {
    matches!(c, '-' | '.' | '/')
}

fn not_followed_by_digit(t: &[char], end: usize) -> bool {
    !t.get(end).is_some_and(|c| c.is_ascii_digit())
}

fn is_year(value: u32, count: usize) -> bool {
    count == 4 && (1900..=2099).contains(&value)
}

/// `YYYY-MM-DD` (or `.`/`/`, the same both times); its length.
fn iso_date_at(t: &[char], i: usize) -> Option<usize> {
    let (year, year_len) = number_at(t, i, 4);
    let sep = *t.get(i + 4)?;
    let (month, month_len) = number_at(t, i + 5, 2);
    let second = *t.get(i + 7)?;
    let (day, day_len) = number_at(t, i + 8, 2);
    let ok = is_year(year, year_len)
        && is_date_separator(sep)
        && month_len == 2
        && (1..=12).contains(&month)
        && second == sep
        && day_len == 2
        && (1..=31).contains(&day)
        && not_followed_by_digit(t, i + 10);
    ok.then_some(10)
}

/// `DD.MM.YYYY` or `MM-DD-YYYY` (one or two digits each; `.`, `-` or `/`); its length.
fn dmy_date_at(t: &[char], i: usize) -> Option<usize> {
    let (a, a_len) = number_at(t, i, 2);
    let sep = *t.get(i + a_len)?;
    let j = i + a_len + 1;
    let (b, b_len) = number_at(t, j, 2);
    let second = *t.get(j + b_len)?;
    let k = j + b_len + 1;
    let (year, year_len) = number_at(t, k, 4);
    let ok = a_len > 0
        && b_len > 0
        && is_date_separator(sep)
        && second == sep
        && (1..=31).contains(&a)
        && (1..=31).contains(&b)
        && a.min(b) <= 12
        && is_year(year, year_len)
        && not_followed_by_digit(t, k + 4);
    ok.then_some(k + 4 - i)
}

/// `H:MM`, `HH:MM`, optionally `:SS`, optionally a fraction `.d…` or `,d…`; its length.
fn time_at(t: &[char], i: usize) -> Option<usize> {
    let (hour, hour_len) = number_at(t, i, 2);
    let mut end = clock_pair_at(t, i + hour_len, 59)?;
    if hour_len == 0 || hour > 23 {
        return None;
    }
    if let Some(after_seconds) = clock_pair_at(t, end, 60) {
        end = after_seconds;
        end = fraction_at(t, end).unwrap_or(end);
    }
    not_followed_by_digit(t, end).then_some(end - i)
}

/// `:NN` with NN at most `max`; the index after it.
fn clock_pair_at(t: &[char], i: usize, max: u32) -> Option<usize> {
    let (value, len) = number_at(t, i + 1, 2);
    (t.get(i) == Some(&':') && len == 2 && value <= max && not_followed_by_digit(t, i + 3))
        .then_some(i + 3)
}

/// `.ddd` or `,ddd` after seconds; the index after it.
fn fraction_at(t: &[char], i: usize) -> Option<usize> {
    let mark = *t.get(i)?;
    let end = scan(t, i + 1, |c| c.is_ascii_digit());
    (matches!(mark, '.' | ',') && end > i + 1).then_some(end)
}

// ---------------------------------------------------------------------------------------
// Rule: "a drive or home path (a drive letter, `~/`, `%VAR%\`, a `\\server\` path,
// `/users/` or `/home/` in any case)"
// ---------------------------------------------------------------------------------------

fn has_drive_or_home_path(t: &[char]) -> bool {
    (0..t.len()).any(|i| {
        is_drive_at(t, i)
            || is_tilde_home_at(t, i)
            || is_home_dir_at(t, i, "home")
            || is_home_dir_at(t, i, "users")
            || is_env_var_path_at(t, i)
            || is_unc_path_at(t, i)
    })
}

/// "`%VAR%\`" — `%`, a name of one or more characters, `%`, a slash.
fn is_env_var_path_at(t: &[char], i: usize) -> bool {
    if t[i] != '%' {
        return false;
    }
    let end = scan(t, i + 1, |c| c.is_ascii_alphanumeric() || "_()".contains(c));
    end > i + 1 && t.get(end) == Some(&'%') && t.get(end + 1).is_some_and(|&c| is_slash(c))
}

/// "a `\\server\` path" — two backslashes, a name, a backslash.
fn is_unc_path_at(t: &[char], i: usize) -> bool {
    if t[i] != '\\' || t.get(i + 1) != Some(&'\\') {
        return false;
    }
    let end = scan(t, i + 2, |c| c.is_alphanumeric() || "-._$".contains(c));
    end > i + 2 && t.get(end) == Some(&'\\')
}

// ---------------------------------------------------------------------------------------
// Rule: "an email-shaped token (a letter in the domain: `name@7.49.0` is a version, not an
// address)"; "a bare `@` (a public handle)" is not a reason.
// ---------------------------------------------------------------------------------------

fn has_email(t: &[char]) -> bool {
    (0..t.len()).any(|i| t[i] == '@' && has_local_part(t, i) && has_letter_domain(t, i + 1))
}

/// A local-part character directly before the `@` (a bare `@handle` has none).
fn has_local_part(t: &[char], at: usize) -> bool {
    at > 0 && {
        let c = t[at - 1];
        c.is_alphanumeric() || ".!#$%&'*+/=?^_`{|}~-".contains(c)
    }
}

/// A domain holding a dot and a letter, after trimming `.` and `-` at both ends.
fn has_letter_domain(t: &[char], from: usize) -> bool {
    let end = scan(t, from, |c| c.is_alphanumeric() || c == '-' || c == '.');
    let trim = |c: &char| *c == '.' || *c == '-';
    let domain = &t[from..end];
    let start = domain.iter().position(|c| !trim(c)).unwrap_or(domain.len());
    let stop = domain
        .iter()
        .rposition(|c| !trim(c))
        .map_or(start, |p| p + 1);
    let domain = &domain[start..stop];
    domain.contains(&'.') && domain.iter().any(|c| c.is_alphabetic())
}

// ---------------------------------------------------------------------------------------
// Rule: "a phone-shaped token (`+` then a digit then seven or more digits, spaces, dashes,
// dots or parentheses)"
// ---------------------------------------------------------------------------------------

fn has_phone(t: &[char]) -> bool {
    (0..t.len()).any(|i| {
        t[i] == '+'
            && t.get(i + 1).is_some_and(|c| c.is_ascii_digit())
            && phone_tail_len(t, i + 2) >= 7
    })
}

/// Characters after the first digit up to the last digit of the phone-character run
/// (trailing punctuation does not count).
fn phone_tail_len(t: &[char], from: usize) -> usize {
    let end = scan(t, from, |c| {
        c.is_ascii_digit() || is_horizontal_space(c) || is_dash(c) || ".()\u{2024}".contains(c)
    });
    t[from..end]
        .iter()
        .rposition(|c| c.is_ascii_digit())
        .map_or(0, |p| p + 1)
}

// ---------------------------------------------------------------------------------------
// Rule: "a telegram invite link (`t.me/+…`, `t.me/joinchat/…`)"
// ---------------------------------------------------------------------------------------

const TELEGRAM_HOSTS: [&str; 3] = ["t.me/", "telegram.me/", "telegram.dog/"];
const INVITE_MARKS: [&str; 3] = ["+", "%2b", "joinchat/"];

fn has_telegram_invite(t: &[char]) -> bool {
    (0..t.len()).any(|i| is_telegram_invite_at(t, i) || is_tg_join_at(t, i))
}

/// A host at `i` not glued to a preceding alphanumeric or `-`, then an invite mark and at
/// least one invite character.
fn is_telegram_invite_at(t: &[char], i: usize) -> bool {
    if i > 0 && (t[i - 1].is_ascii_alphanumeric() || t[i - 1] == '-') {
        return false;
    }
    TELEGRAM_HOSTS.iter().any(|host| {
        starts_with_ignore_ascii_case(t, i, host)
            && invite_follows(t, i + host.chars().count(), &INVITE_MARKS)
    })
}

/// `tg://join?invite=…`, the app's own form of the same link.
fn is_tg_join_at(t: &[char], i: usize) -> bool {
    invite_follows(t, i, &["tg://join?invite="])
}

fn invite_follows(t: &[char], at: usize, marks: &[&str]) -> bool {
    marks.iter().any(|mark| {
        starts_with_ignore_ascii_case(t, at, mark)
            && t.get(at + mark.chars().count())
                .is_some_and(|&c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    })
}

// ---------------------------------------------------------------------------------------
// Small helpers
// ---------------------------------------------------------------------------------------

#[cfg(test)]
mod tests {
    use super::GuardReason::{
        DigitRun, DriveOrHomePath, Email, GroupedDigits, Phone, TelegramInvite,
    };
    use super::*;

    // Hex digests whose first twelve characters are `ab123456789c`: a nine-digit run inside.
    macro_rules! h64 {
        () => {
            "ab123456789c2cc7e7e9e251522b627ad31967ed5823d3a235fbd8f7020c65de"
        };
    }
    macro_rules! h40 {
        () => {
            "ab123456789c2cc7e7e9e251522b627ad31967ed"
        };
    }
    macro_rules! h32 {
        () => {
            "ab123456789c2cc7e7e9e251522b627a"
        };
    }

    /// (text, expected reasons, which wrong implementation the row catches)
    #[rustfmt::skip]
    const ROWS: &[(&str, &[GuardReason], &str)] = &[
        // --- digit_run --------------------------------------------------------------------
        ("12345678", &[], "8 digits: catches a >= 8 off-by-one"),
        ("123456789", &[DigitRun], "9 digits: catches a > 9 off-by-one"),
        ("call 5550109999 now", &[DigitRun], "a run inside prose"),
        ("abc123456789def", &[DigitRun], "15-hex run is no digest: catches 'any hex with a letter'"),
        (h64!(), &[], "64-hex digest with a 9-digit run inside: catches no digest exemption"),
        (concat!("sha256:", h64!()), &[], "digest after a colon label"),
        (h40!(), &[], "40-hex digest: catches a 64-only digest test"),
        (h32!(), &[], "32-hex digest: catches a 64/40-only digest test"),
        (concat!("0x", h40!()), &[], "x bounds the hex run: 0x-prefixed digest (decision)"),
        (concat!("g", h64!(), "g"), &[], "non-hex letters bound a digest (decision)"),
        ("12345678901234567890123456789012", &[DigitRun], "all-digit 32 run is no digest"),
        ("1234567890123456789012345678901234567890", &[DigitRun], "all-digit 40 run is no digest"),
        (concat!(h64!(), "123456789"), &[DigitRun], "digits glued after a digest: 73-hex run"),
        (concat!("123456789", h40!()), &[DigitRun], "digits glued before a digest: 49-hex run"),
        (concat!(h64!(), "a"), &[DigitRun], "65 hex: catches 'length >= 32 is a digest'"),
        (concat!(h32!(), "d"), &[DigitRun], "33 hex: catches a length range instead of exact"),
        (concat!(h64!(), h64!()), &[DigitRun], "two glued digests are one 128-hex run"),
        (concat!(h64!(), " 123456789"), &[DigitRun], "a separate run beside a digest is seen"),
        ("1234\u{200D}56789", &[DigitRun], "ZWJ inside: catches no zero-width removal"),
        ("1234\u{200B}5678\u{FEFF}9", &[DigitRun], "ZWSP and BOM inside"),
        ("12\u{00AD}3456\u{2060}789", &[DigitRun], "soft hyphen and word joiner inside"),
        ("\u{FF11}\u{FF12}\u{FF13}\u{FF14}\u{FF15}\u{FF16}\u{FF17}\u{FF18}\u{FF19}", &[DigitRun], "full-width: catches no folding"),
        ("\u{0661}\u{0662}\u{0663}\u{0664}\u{0665}\u{0666}\u{0667}\u{0668}\u{0669}", &[DigitRun], "Arabic-Indic digits"),
        ("\u{0967}\u{0968}\u{0969}\u{096A}\u{096B}\u{096C}\u{096D}\u{096E}\u{096F}", &[DigitRun], "Devanagari digits"),
        ("\u{1D7CF}\u{1D7D0}\u{1D7D1}\u{1D7D2}\u{1D7D3}\u{1D7D4}\u{1D7D5}\u{1D7D6}\u{1D7D7}", &[DigitRun], "mathematical bold digits"),
        ("12345\u{FF16}\u{FF17}\u{FF18}\u{FF19}", &[DigitRun], "mixed ASCII and full-width"),
        (concat!(h64!(), "\u{FF11}\u{FF12}\u{FF13}\u{FF14}\u{FF15}\u{FF16}\u{FF17}\u{FF18}\u{FF19}"), &[DigitRun], "full-width digits glued to a digest are seen"),
        (concat!("ab123456789c2cc7e7e9e251522b627ad31967ed5823d3a235fbd8f7020c65d", "\u{FF11}"), &[DigitRun], "63 hex + a full-width digit: catches folding that makes a digest"),
        ("\u{0E51}\u{0E52}\u{0E53}\u{0E54}\u{0E55}\u{0E56}\u{0E57}\u{0E58}\u{0E59}", &[DigitRun], "Thai digits: catches a table limited to the six named blocks"),
        ("\u{00B9}\u{00B2}\u{00B3}\u{2074}\u{2075}\u{2076}\u{2077}\u{2078}\u{2079}", &[], "superscripts are not Nd: catches is_numeric"),
        ("\u{2160}\u{2161}\u{2162}\u{2163}\u{2164}\u{2165}\u{2166}\u{2167}\u{2168}", &[], "Roman numerals are Nl, not digits"),
        // --- grouped_digits ---------------------------------------------------------------
        ("123 456 789", &[GroupedDigits], "space-grouped"),
        ("12-34-56-78-9", &[GroupedDigits], "dash-grouped, last group one digit"),
        ("555.010.9999", &[GroupedDigits], "dot-grouped, ten digits"),
        ("123 456 78", &[], "eight grouped digits: catches an off-by-one"),
        ("1 2 3 4 5 6 7 8 9", &[GroupedDigits], "nine one-digit groups"),
        ("1 2 3 4 5 6 7 8", &[], "eight one-digit groups"),
        ("123 - 456 - 789", &[GroupedDigits], "three-character separators join"),
        ("123    456    789", &[], "four spaces break a chain (decision: at most 3)"),
        ("123\n456\n789", &[], "line breaks do not join (decision: spaces are horizontal)"),
        ("123\u{2013}456\u{2013}789", &[GroupedDigits], "en dash: catches an ASCII-only dash"),
        ("123\u{00A0}456\u{00A0}789", &[GroupedDigits], "NBSP is a space"),
        ("(555) 010-9999", &[GroupedDigits], "parentheses join (step past §6)"),
        ("1234\u{200B} 5678 9", &[GroupedDigits], "zero-width removed before grouping"),
        ("192.168.100.200", &[GroupedDigits], "an IPv4 address with twelve digits"),
        ("version 7.49.0", &[], "a version is short"),
        ("2026-11-08", &[], "a date alone"),
        ("21:41:26", &[], "a time alone"),
        ("2026-11-08 21:41:26", &[], "date + time: 2026,11,08,21 would be 10 digits unless set aside"),
        ("2026-11-08T21:41:26Z", &[], "ISO timestamp"),
        ("2026-11-08 21:41:26 EST; seq 12345678", &[], "a ledger-like sentence"),
        ("08.11.2026 21:41", &[], "day-first date with a time"),
        ("11/08/2026 21:41", &[], "month-first slash date with a time"),
        ("2026-11-08-123-456-789", &[GroupedDigits], "date glued to groups: the rest reach 9"),
        ("2026-11-08 123 456", &[], "date glued to groups: the rest reach only 6"),
        ("2026-13-08 12", &[GroupedDigits], "month 13 is no date: catches a matcher without ranges"),
        ("12026-11-08", &[GroupedDigits], "a digit before the year: catches no start boundary"),
        ("at 10:30 123 456 789", &[GroupedDigits], "a time set aside, the rest still reach 9"),
        ("1234 5678 21:41", &[], "the time is set aside: 1234,5678 is 8"),
        ("21:41:26.123 456 789", &[], "fraction of seconds set aside with the time"),
        ("25:41 1234 5678", &[GroupedDigits], "hour 25 is no time, 41,1234,5678 is 10: catches no ranges"),
        (concat!("ccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc12345", " ", "6789dddddddddddddddddddddddddddddddddddddddddddddddddddddddddddd"), &[], "digest digits are not groups: catches grouping across digests"),
        ("[gate: 3 of 3 numerals bound \u{00B7} ledger 0042]", &[], "the gate's own trailer"),
        // --- drive_or_home_path -----------------------------------------------------------
        ("C:\\Users", &[DriveOrHomePath], "backslash drive"),
        ("c:/temp", &[DriveOrHomePath], "lower-case, forward slash drive"),
        ("see D:\\", &[DriveOrHomePath], "drive after a space"),
        ("https://example.com", &[], "URL scheme is no drive: catches no letter boundary"),
        ("ratio 3:/4", &[], "a digit is no drive letter"),
        ("C: drive", &[], "no slash after the colon"),
        ("x\u{200B}C:\\x", &[DriveOrHomePath], "an invisible char is a boundary: catches reading only the removed view"),
        ("~/notes.txt", &[DriveOrHomePath], "tilde home"),
        ("~ /x and ~x", &[], "tilde not directly before a slash"),
        ("%APPDATA%\\x", &[DriveOrHomePath], "env var path"),
        ("%ProgramFiles(x86)%\\x", &[DriveOrHomePath], "env var with parentheses"),
        ("50% of 100%", &[], "percent signs in prose"),
        ("%%\\x", &[], "empty variable name"),
        ("\\\\server\\share", &[DriveOrHomePath], "UNC path"),
        ("\\\\\\x", &[], "UNC with an empty server name"),
        ("/Users/x", &[DriveOrHomePath], "mixed case: catches a case-sensitive match"),
        ("/USERS/x", &[DriveOrHomePath], "upper case"),
        ("/home/x", &[DriveOrHomePath], "home"),
        ("\\home\\x", &[DriveOrHomePath], "backslash home (step past §6)"),
        ("/homeless/x", &[], "a longer word: catches a missing trailing slash"),
        ("/users", &[], "no trailing slash"),
        ("https://site.example/home/about", &[DriveOrHomePath], "URL path /home/ trips, as worded"),
        ("\u{FF23}\u{FF1A}\u{FF3C}x", &[DriveOrHomePath], "full-width C:\\ folds"),
        // --- email ------------------------------------------------------------------------
        ("name@7.49.0", &[], "a version, not an address: catches 'any domain'"),
        ("a@b.co", &[Email], "shortest address"),
        ("@handle", &[], "a bare handle: catches '@ is a reason'"),
        ("hi @handle, see you", &[], "a handle in prose"),
        ("me@localhost", &[], "no dot in the domain"),
        ("Write to Jane.Doe+tag@Example.ORG.", &[Email], "trailing dot trimmed, plus in local part"),
        ("a@b.", &[], "a trailing dot is no dot between labels"),
        ("pkg@1.2.3-beta", &[Email], "any letter in the domain trips (decision)"),
        ("a@\u{200B}b.co", &[Email], "zero-width after @ removed"),
        ("\u{FF41}\u{FF20}\u{FF42}\u{FF0E}\u{FF43}\u{FF4F}", &[Email], "full-width address folds"),
        ("user@\u{4F8B}\u{3048}.jp", &[Email], "a Unicode domain"),
        // --- phone ------------------------------------------------------------------------
        ("+1 (555) 010-9999", &[GroupedDigits, Phone], "the protocol's example"),
        ("+12345678", &[Phone], "exactly seven after the first digit"),
        ("+1234567", &[], "six after the first digit: catches counting the first digit"),
        ("+1234567.", &[], "trailing dot not counted (decision)"),
        ("+1 2 3 4 5", &[Phone], "eight chars after the first digit: catches counting digits only"),
        ("+1 2 3 4", &[], "six chars after the first digit"),
        ("+1234567 8", &[Phone], "phone without a grouped or run hit"),
        ("+ 15550109999", &[DigitRun], "a space after + is no phone: catches a loose '+' match"),
        ("score +1 today", &[], "a +1 in prose"),
        ("+1-555-010-9999", &[GroupedDigits, Phone], "dashed phone"),
        ("\u{FF0B}\u{FF11} \u{FF15}\u{FF15}\u{FF15} \u{FF10}\u{FF11}\u{FF10} \u{FF19}\u{FF19}\u{FF19}\u{FF19}", &[GroupedDigits, Phone], "full-width phone"),
        // --- telegram_invite --------------------------------------------------------------
        ("t.me/+abc", &[TelegramInvite], "private invite"),
        ("https://t.me/joinchat/AbCdEf", &[TelegramInvite], "joinchat invite"),
        ("T.ME/+abc", &[TelegramInvite], "upper-case host: catches a case-sensitive host"),
        ("telegram.me/joinchat/x", &[TelegramInvite], "the long host"),
        ("t\u{200B}.me/+abc", &[TelegramInvite], "an invisible char inside the host: catches reading only the spaced view"),
        ("t.me/durov", &[], "a public channel is not an invite"),
        ("t.me/+", &[], "nothing after the mark (decision)"),
        ("at.me/+abc", &[], "another host ending in t.me (decision)"),
        ("t.me/%2Babc", &[TelegramInvite], "URL-encoded plus (step past §6)"),
        ("tg://join?invite=abc", &[TelegramInvite], "the app link (step past §6)"),
        ("t.me/+15550109999", &[DigitRun, Phone, TelegramInvite], "a phone-number invite trips three"),
        // --- not reasons ------------------------------------------------------------------
        ("", &[], "empty"),
        ("hello world", &[], "whitespace is no reason here"),
        ("@", &[], "a lone @"),
        ("a\tb\nc\u{3000}d", &[], "any whitespace"),
        ("mail a@b.co or call +1 555 010 9999 from C:\\x", &[GroupedDigits, DriveOrHomePath, Email, Phone], "several, sorted"),
    ];

    #[test]
    fn table() {
        let failures: Vec<String> = ROWS
            .iter()
            .filter(|(text, want, _)| guard(text) != *want)
            .map(|(text, want, why)| {
                format!("{text:?}: got {:?}, want {want:?} ({why})", guard(text))
            })
            .collect();
        assert!(
            failures.is_empty(),
            "{} rows failed:\n{}",
            failures.len(),
            failures.join("\n")
        );
    }

    #[test]
    fn codes() {
        let all = [
            DigitRun,
            GroupedDigits,
            DriveOrHomePath,
            Email,
            Phone,
            TelegramInvite,
        ];
        let codes: Vec<_> = all.iter().map(|r| r.code()).collect();
        let want = [
            "digit_run",
            "grouped_digits",
            "drive_or_home_path",
            "email",
            "phone",
            "telegram_invite",
        ];
        assert_eq!(codes, want);
    }

    /// On 200 generated texts: `guard` never panics and returns sorted unique reasons;
    /// zero-width spaces between all characters change no digit reason and hide nothing the
    /// stripped text trips; full-width digits hide nothing.
    #[test]
    fn generated_texts() {
        for text in generated(200) {
            let got = guard(&text);
            assert!(got.windows(2).all(|w| w[0] < w[1]), "{text:?}: {got:?}");
            let interleaved: String = text.chars().flat_map(|c| [c, '\u{200B}']).collect();
            let with_zw = guard(&interleaved);
            assert_eq!(digit_reasons(&with_zw), digit_reasons(&got), "{text:?}");
            let stripped: String = text.chars().filter(|&c| !is_invisible(c)).collect();
            assert!(is_subset(&guard(&stripped), &with_zw), "{text:?}");
            let wide: String = text.chars().map(widen_digit).collect();
            assert!(
                is_subset(&got, &guard(&wide)),
                "{text:?} with full-width digits"
            );
        }
    }

    fn digit_reasons(reasons: &[GuardReason]) -> Vec<GuardReason> {
        let digit = |r: &&GuardReason| matches!(r, DigitRun | GroupedDigits);
        reasons.iter().filter(digit).copied().collect()
    }

    fn is_subset(small: &[GuardReason], big: &[GuardReason]) -> bool {
        small.iter().all(|r| big.contains(r))
    }

    fn widen_digit(c: char) -> char {
        c.to_digit(10)
            .and_then(|d| char::from_u32(0xFF10 + d))
            .unwrap_or(c)
    }

    fn generated(count: usize) -> Vec<String> {
        #[rustfmt::skip]
        const PIECES: &[&str] = &[
            "0", "1", "5", "9", "12345", "a", "f", "g", "Z", " ", "  ", "\n", "-", ".", "(", ")",
            ":", "/", "\\", "\\\\", "~", "%", "@", "+", "t.me/", "t.me/+", "joinchat/", "home",
            "Users", "C:", "co", "@b.co", "2026-11-08", "21:41:26", "\u{200D}", "\u{FF19}",
            "\u{0669}", "\u{1D7FF}", "\u{2013}", "\u{00E9}", "\u{1F600}", h32!(), h40!(), h64!(),
        ];
        let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = move || {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (state >> 33) as usize
        };
        (0..count)
            .map(|_| {
                let len = next() % 24;
                (0..len).map(|_| PIECES[next() % PIECES.len()]).collect()
            })
            .collect()
    }
}
