//! The rules, run on one normalised view (docs/guard.md#rules). Every function here reads
//! folded characters: ASCII digits, `@`, `.`, `/`, `\`, `:` and Latin letters stand for every
//! character that looks or counts like them.

use std::collections::BTreeSet;

use super::normalize::View;
use super::{Policy, Rule};

/// Runs every rule of `policy` on `view`, adding what fires to `hits`.
pub(crate) fn scan_view(view: &View, policy: Policy, hits: &mut BTreeSet<Rule>) {
    let t = &view.chars;
    if t.iter().any(char::is_ascii_digit) {
        let digest = if policy.digests_set_aside {
            digest_mask(view)
        } else {
            vec![false; t.len()]
        };
        if has_digit_run(t, &digest) {
            hits.insert(Rule::DigitRun);
        }
        digit_chains(t, &digest, hits);
        if has_plus_phone(t) {
            hits.insert(Rule::Phone);
        }
        if has_iban(t) {
            hits.insert(Rule::Iban);
        }
    }
    if has_email(t, &view.pristine) {
        hits.insert(Rule::Email);
    }
    if has_drive_or_home_path(t) {
        hits.insert(Rule::DriveOrHomePath);
    }
    if has_telegram_invite(t) {
        hits.insert(Rule::TelegramInvite);
    }
    if has_profile_link(t) {
        hits.insert(Rule::ProfileLink);
    }
    if t.iter().any(char::is_ascii_digit) && has_network_address(t) {
        hits.insert(Rule::NetworkAddress);
    }
    if has_crypto_address(t) {
        hits.insert(Rule::CryptoAddress);
    }
}

// ---------------------------------------------------------------------------------------
// Digests: exactly 64, 40 or 32 hex characters with a letter, bounded by non-hex, every one
// the original ASCII character (folding never makes a digest).
// ---------------------------------------------------------------------------------------

fn digest_mask(view: &View) -> Vec<bool> {
    let t = &view.chars;
    let mut mask = vec![false; t.len()];
    let mut i = 0;
    while i < t.len() {
        let end = scan(t, i, |c| c.is_ascii_hexdigit());
        let run = &t[i..end];
        if matches!(run.len(), 64 | 40 | 32)
            && run.iter().any(|c| c.is_ascii_alphabetic())
            && view.pristine[i..end].iter().all(|&p| p)
        {
            mask[i..end].fill(true);
        }
        i = end.max(i + 1);
    }
    mask
}

// ---------------------------------------------------------------------------------------
// Digit runs
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
// Digit chains: grouped digits, cards, phones without `+`
// ---------------------------------------------------------------------------------------

/// The most separator characters allowed between two groups (`123 - 456` has three), in any
/// mix of separators.
const MAX_SEPARATOR: usize = 3;

/// The most characters of a longer separator: one on a single line made of whitespace and at
/// most two other characters, however often repeated (`555 -- 010 -- 9999`, `555 - - 010`,
/// `555 ~~~~ 010`): a run of one mark is still one separator (docs/guard.md#rules).
const MAX_REPEATED_SEPARATOR: usize = 8;

/// Characters that join digit groups: every character that is neither a letter nor a digit of
/// any script — whitespace (line breaks too), dashes, dots, slashes, commas, brackets and every
/// other mark or symbol (`|` `;` `*` `+` `~` `=` `#` `!` `&` `·` `•` …). A list of separators
/// was an invitation to use the next one (docs/guard.md#rules).
fn is_group_separator(c: char) -> bool {
    !c.is_alphanumeric()
}

/// Whether the characters between two digit groups join them: at most [`MAX_SEPARATOR`] of
/// any separators, or at most [`MAX_REPEATED_SEPARATOR`] on one line of whitespace and at most
/// two other characters.
fn separator_joins(run: &[char]) -> bool {
    if run.len() <= MAX_SEPARATOR {
        return true;
    }
    let mut marks: Vec<char> = run.iter().copied().filter(|c| !c.is_whitespace()).collect();
    marks.sort_unstable();
    marks.dedup();
    run.len() <= MAX_REPEATED_SEPARATOR
        && run
            .iter()
            .all(|&c| !c.is_whitespace() || is_horizontal_space(c))
        && marks.len() <= 2
}

/// Separators a phone number is written with (no commas, underscores or line breaks).
fn is_phone_separator(c: char) -> bool {
    is_horizontal_space(c) || is_dash(c) || matches!(c, '.' | '/' | '(' | ')')
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
        '-' | '\u{2010}'..='\u{2015}' | '\u{2212}' | '\u{FE58}' | '\u{FE63}' | '\u{30FC}'
    )
}

/// One chain: its groups as (start, end) index ranges of digits.
struct Chain {
    groups: Vec<(usize, usize)>,
}

impl Chain {
    fn digits(&self) -> usize {
        self.groups.iter().map(|(a, b)| b - a).sum()
    }
}

/// Walks every chain of digit groups (dates and clock times set aside first, digests where the
/// policy sets them aside) and reports grouped digits, card numbers and phones.
fn digit_chains(t: &[char], digest: &[bool], hits: &mut BTreeSet<Rule>) {
    let aside = set_aside_dates_and_times(t);
    let counts = |i: usize| t[i].is_ascii_digit() && !digest[i] && !aside[i];
    let joins = |i: usize| is_group_separator(t[i]) && !aside[i];
    let mut i = 0;
    while i < t.len() {
        if !counts(i) {
            i += 1;
            continue;
        }
        let chain = walk_chain(t, i, &counts, &joins);
        let end = chain.groups.last().map_or(i + 1, |g| g.1);
        if chain.groups.len() >= 2 && chain.digits() >= 9 {
            hits.insert(Rule::GroupedDigits);
        }
        if has_card(t, &chain) {
            hits.insert(Rule::CardNumber);
        }
        if is_phone_shaped(t, &chain) {
            hits.insert(Rule::Phone);
        }
        i = end;
    }
}

fn walk_chain(
    t: &[char],
    start: usize,
    counts: &impl Fn(usize) -> bool,
    joins: &impl Fn(usize) -> bool,
) -> Chain {
    let n = t.len();
    let mut groups = Vec::new();
    let mut i = start;
    loop {
        let group_end = (i..n).find(|&k| !counts(k)).unwrap_or(n);
        groups.push((i, group_end));
        // Looking one past the longest separator is enough to know it ends there: the walk
        // stays linear in the string.
        let limit = (group_end + MAX_REPEATED_SEPARATOR + 1).min(n);
        let sep_end = (group_end..limit).find(|&k| !joins(k)).unwrap_or(limit);
        if sep_end == group_end
            || sep_end >= n
            || !counts(sep_end)
            || !separator_joins(&t[group_end..sep_end])
        {
            return Chain { groups };
        }
        i = sep_end;
    }
}

/// 13 to 19 digits passing the Luhn check, starting at a group's start and ending at a group's
/// end (a card is written in whole groups, whatever their sizes).
fn has_card(t: &[char], chain: &Chain) -> bool {
    let digits_of = |(a, b): (usize, usize)| t[a..b].iter().map(|c| c.to_digit(10).unwrap_or(0));
    for first in 0..chain.groups.len() {
        let mut digits: Vec<u32> = Vec::new();
        for &group in &chain.groups[first..] {
            digits.extend(digits_of(group));
            if digits.len() > 19 {
                break;
            }
            if digits.len() >= 13 && luhn(&digits) {
                return true;
            }
        }
    }
    false
}

fn luhn(digits: &[u32]) -> bool {
    let sum: u32 = digits
        .iter()
        .rev()
        .enumerate()
        .map(|(k, &d)| {
            if k % 2 == 1 {
                if d * 2 > 9 { d * 2 - 9 } else { d * 2 }
            } else {
                d
            }
        })
        .sum();
    sum.is_multiple_of(10)
}

/// Grouped like a phone number without a `+`: three to five groups of two to four digits (the
/// first may be parenthesised, `(555) 010-9999`), nine to thirteen digits in all, joined only by
/// the separators a phone is written with.
fn is_phone_shaped(t: &[char], chain: &Chain) -> bool {
    let g = &chain.groups;
    let digits = chain.digits();
    (3..=5).contains(&g.len())
        && (9..=13).contains(&digits)
        && g.iter().all(|(a, b)| (2..=4).contains(&(b - a)))
        && g.windows(2)
            .all(|w| t[w[0].1..w[1].0].iter().all(|&c| is_phone_separator(c)))
}

/// `+`, a digit, then seven or more characters of digits and phone separators ending on a digit
/// (`+1 (555) 010-9999`, `+15550109999`, `+44 20 7946`).
fn has_plus_phone(t: &[char]) -> bool {
    (0..t.len()).any(|i| {
        t[i] == '+' && t.get(i + 1).is_some_and(|c| c.is_ascii_digit()) && {
            let from = i + 2;
            let end = scan(t, from, |c| c.is_ascii_digit() || is_phone_separator(c));
            t[from..end]
                .iter()
                .rposition(|c| c.is_ascii_digit())
                .map_or(0, |p| p + 1)
                >= 7
        }
    })
}

// ---------------------------------------------------------------------------------------
// Dates and clock times, set aside before the chains
// ---------------------------------------------------------------------------------------

/// `true` over every date or clock time: ISO dates `YYYY-MM-DD` (or `.` `/`), day- or
/// month-first dates `DD.MM.YYYY` (or `-` `/`), and clock times `H:MM[:SS[.fff]]`, each with no
/// digit directly before or after and not glued to another digit group ([`glued_to_digits`]).
fn set_aside_dates_and_times(t: &[char]) -> Vec<bool> {
    let mut spans = Vec::new();
    let mut candidate = vec![false; t.len()];
    for i in 0..t.len() {
        if !t[i].is_ascii_digit() || (i > 0 && t[i - 1].is_ascii_digit()) {
            continue;
        }
        let len = [iso_date_at(t, i), dmy_date_at(t, i), time_at(t, i)]
            .into_iter()
            .flatten()
            .max();
        if let Some(len) = len {
            candidate[i..i + len].fill(true);
            spans.push((i, i + len));
        }
    }
    let mut aside = vec![false; t.len()];
    for (start, end) in spans {
        if !glued_to_digits(t, start, end, &candidate) {
            aside[start..end].fill(true);
        }
    }
    aside
}

/// A date or time joined to another digit group by a separator other than whitespace
/// (`2026-11-08-4567`, `12-2026-11-08`) is part of a longer number, not a date: an id written
/// to look like one is not set aside. Glued to another date or time (`2026-11-08/2026-11-09`,
/// `09:00-17:30`) it is a range, and both are.
fn glued_to_digits(t: &[char], start: usize, end: usize, candidate: &[bool]) -> bool {
    let glue = |c: char| is_group_separator(c) && !c.is_whitespace();
    let digit_outside = |k: usize| t[k].is_ascii_digit() && !candidate[k];
    let after = t.get(end).is_some_and(|&c| glue(c)) && end + 1 < t.len() && digit_outside(end + 1);
    let before = start >= 2 && glue(t[start - 1]) && digit_outside(start - 2);
    after || before
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
// IBAN: a country code, two check digits, the country's length in alphanumerics (separators
// between them allowed), more digits than letters after the check digits, mod 97 = 1.
// ---------------------------------------------------------------------------------------

/// ISO 13616 countries and their IBAN lengths (the SWIFT registry, release 2024).
#[rustfmt::skip]
const IBAN_LENGTHS: &[(&str, usize)] = &[
    ("AD", 24), ("AE", 23), ("AL", 28), ("AT", 20), ("AZ", 28), ("BA", 20), ("BE", 16),
    ("BG", 22), ("BH", 22), ("BI", 27), ("BR", 29), ("BY", 28), ("CH", 21), ("CR", 22),
    ("CY", 28), ("CZ", 24), ("DE", 22), ("DJ", 27), ("DK", 18), ("DO", 28), ("EE", 20),
    ("EG", 29), ("ES", 24), ("FI", 18), ("FK", 18), ("FO", 18), ("FR", 27), ("GB", 22),
    ("GE", 22), ("GI", 23), ("GL", 18), ("GR", 27), ("GT", 28), ("HN", 28), ("HR", 21),
    ("HU", 28), ("IE", 22), ("IL", 23), ("IQ", 23), ("IS", 26), ("IT", 27), ("JO", 30),
    ("KW", 30), ("KZ", 20), ("LB", 28), ("LC", 32), ("LI", 21), ("LT", 20), ("LU", 20),
    ("LV", 21), ("LY", 25), ("MC", 27), ("MD", 24), ("ME", 22), ("MK", 19), ("MN", 20),
    ("MR", 27), ("MT", 31), ("MU", 30), ("NI", 28), ("NL", 18), ("NO", 15), ("OM", 23),
    ("PK", 24), ("PL", 28), ("PS", 29), ("PT", 25), ("QA", 29), ("RO", 24), ("RS", 22),
    ("RU", 33), ("SA", 24), ("SC", 31), ("SD", 18), ("SE", 24), ("SI", 19), ("SK", 24),
    ("SM", 27), ("SO", 23), ("ST", 25), ("SV", 28), ("TL", 23), ("TN", 24), ("TR", 26),
    ("UA", 29), ("VA", 22), ("VG", 24), ("XK", 20), ("YE", 30),
];

/// Separators between the characters of an IBAN (printed in groups of four).
fn is_iban_separator(c: char) -> bool {
    is_horizontal_space(c) || is_dash(c) || matches!(c, '.' | '/' | '_')
}

fn has_iban(t: &[char]) -> bool {
    (0..t.len()).any(|i| iban_at(t, i))
}

fn iban_at(t: &[char], i: usize) -> bool {
    let letter = |k: usize| t.get(k).is_some_and(|c| c.is_ascii_alphabetic());
    if !letter(i) || !letter(i + 1) || (i > 0 && t[i - 1].is_ascii_alphanumeric()) {
        return false;
    }
    let country: String = t[i..i + 2].iter().map(|c| c.to_ascii_uppercase()).collect();
    let Some(&(_, length)) = IBAN_LENGTHS.iter().find(|(c, _)| *c == country) else {
        return false;
    };
    // Collect `length` alphanumerics, at most two separators between two of them.
    let mut chars = Vec::with_capacity(length);
    let mut k = i;
    while chars.len() < length {
        let mut gap = 0;
        while k < t.len() && is_iban_separator(t[k]) && !chars.is_empty() && gap < 2 {
            k += 1;
            gap += 1;
        }
        match t.get(k) {
            Some(c) if c.is_ascii_alphanumeric() => chars.push(c.to_ascii_uppercase()),
            _ => return false,
        }
        k += 1;
    }
    if t.get(k).is_some_and(|c| c.is_ascii_alphanumeric()) {
        return false; // longer than the country's IBAN
    }
    let check_digits = chars[2].is_ascii_digit() && chars[3].is_ascii_digit();
    let bban = &chars[4..];
    let digits = bban.iter().filter(|c| c.is_ascii_digit()).count();
    check_digits && digits * 2 > bban.len() && iban_mod97(&chars) == 1
}

fn iban_mod97(chars: &[char]) -> u32 {
    let rearranged = chars[4..].iter().chain(&chars[..4]);
    rearranged.fold(0u32, |acc, &c| {
        let v = c.to_digit(36).unwrap_or(0);
        if v >= 10 {
            (acc * 100 + v) % 97
        } else {
            (acc * 10 + v) % 97
        }
    })
}

// ---------------------------------------------------------------------------------------
// Email: a local-part character directly before `@`, then a domain holding a dot and a letter;
// or the same written loosely (spaces, `at` and `dot` as words, spellings)
// ---------------------------------------------------------------------------------------

/// `pristine` says which characters are the ones written (a decoded dot is a disguised one).
fn has_email(t: &[char], pristine: &[bool]) -> bool {
    (0..t.len()).any(|i| {
        (t[i] == '@' && has_local_part(t, first_of_run(t, i)) && has_letter_domain(t, i + 1))
            || is_loose_email_at(t, pristine, i)
    })
}

/// Where the run of `@` that ends at `i` starts: a doubled `@` is one (`owner@@example.com`).
fn first_of_run(t: &[char], i: usize) -> usize {
    i - t[..i].iter().rev().take_while(|&&c| c == '@').count()
}

/// How many whitespace characters may stand between the parts of a loose address.
const EMAIL_GAP: usize = 8;

/// The top-level domains that end an address with `at` or `dot` written as a word
/// (`owner at example dot com`); the first six are [`COMMON_TLDS`].
const WORDED_TLDS: [&str; 26] = [
    "com", "org", "net", "edu", "gov", "info", "biz", "io", "co", "uk", "de", "fr", "es", "it",
    "nl", "ch", "ru", "jp", "me", "us", "eu", "ca", "au", "dev", "app", "ai",
];

/// The top-level domains that are never a sentence's next word, so that a dot glued on its left
/// and spaced on its right still joins them (`owner @ example. com`).
const COMMON_TLDS: &[&str] = WORDED_TLDS.split_at(6).0;

/// Words after `at` that make it prose, not an address (`look at the dot com bubble`).
const NOT_A_DOMAIN: [&str; 18] = [
    "the", "a", "an", "this", "that", "these", "those", "my", "your", "our", "their", "his", "her",
    "its", "some", "any", "every", "no",
];

/// How a loose address's `@` or dots were written.
#[derive(Default)]
struct Looseness {
    /// `at` written as a word.
    worded_at: bool,
    /// `dot` written as a word.
    worded_dot: bool,
    /// Whitespace around a dot (`example . com`), a dot decoded from a spelling
    /// (`example [dot] com`), or a comma for a dot (`example,com`).
    spaced_dot: bool,
}

/// An address written loosely, beginning at `i` with its `@` (docs/guard.md#spaced-emails,
/// docs/guard.md#worded-emails): a local-part character, then `@` or the word `at` with up to
/// [`EMAIL_GAP`] whitespace characters on either side, then two or more labels of letters,
/// digits and `-` joined by `.` (with up to as much whitespace on either side) or by the word
/// `dot` between whitespace. A glued `owner@example.com` is the strict rule's; here:
///
/// * whitespace before an `@` and none after is a handle named in prose
///   (`follow @alice.bsky.social`);
/// * a dot glued on its left and spaced on its right ends a sentence (`see you @ noon. Thanks`)
///   unless one of [`COMMON_TLDS`] follows (`owner @ example. com`);
/// * with `at` or `dot` as a word, the last label is one of [`WORDED_TLDS`], the first is none
///   of [`NOT_A_DOMAIN`], and `at` as a word needs a dot that is a word, has whitespace around
///   it or was decoded from a spelling (`look at example.com` is a site named in prose;
///   `owner at example [dot] com` is not); otherwise the last label is two or more letters.
fn is_loose_email_at(t: &[char], pristine: &[bool], i: usize) -> bool {
    let mut how = Looseness::default();
    let after_at = if t[i] == '@' {
        i + 1
    } else if is_word_at(t, i, "at") {
        how.worded_at = true;
        i + 2
    } else {
        return false;
    };
    let before = i - t[..i]
        .iter()
        .rev()
        .take_while(|c| c.is_whitespace())
        .count();
    let gap_before = i - before;
    let domain = skip_whitespace(t, after_at);
    let gap_after = domain - after_at;
    if gap_before > EMAIL_GAP || gap_after > EMAIL_GAP || !has_local_part(t, before) {
        return false;
    }
    let is_label_char = |c: char| c.is_alphanumeric() || c == '-';
    let first_end = scan(t, domain, is_label_char);
    if first_end == domain {
        return false;
    }
    let first = &t[domain..first_end];
    let (mut label, mut labels) = (domain..first_end, 1);
    while let Some(next) = next_label(t, pristine, label.end, &mut how) {
        let end = scan(t, next, is_label_char);
        if end == next {
            break;
        }
        (label, labels) = (next..end, labels + 1);
    }
    let last = &t[label];
    if labels < 2 {
        return false;
    }
    // Two shapes prose writes too: a handle named in a sentence (`follow @alice.bsky.social`)
    // and a site (`look at example.com`). Either is an address only when the word before it
    // is no word of prose (docs/guard.md#named-in-prose).
    let handle_shape = t[i] == '@' && gap_before > 0 && gap_after == 0;
    let site_shape = how.worded_at && !how.worded_dot && !how.spaced_dot;
    if handle_shape || how.worded_at || how.worded_dot {
        (!(handle_shape || site_shape) || !is_prose_word(local_word(t, before)))
            && WORDED_TLDS
                .iter()
                .any(|w| is_word_ignore_ascii_case(last, w))
            && !NOT_A_DOMAIN
                .iter()
                .any(|w| is_word_ignore_ascii_case(first, w))
    } else {
        let spaced = gap_before > 0 || gap_after > 0 || how.spaced_dot;
        spaced && last.len() >= 2 && last.iter().all(|c| c.is_alphabetic())
    }
}

/// Where the next label of a loose address starts after a label ending at `end`: past a `.`
/// (whitespace around it allowed, a sentence's full stop not), the word `dot`, or a comma
/// glued before a common top-level domain.
fn next_label(t: &[char], pristine: &[bool], end: usize, how: &mut Looseness) -> Option<usize> {
    let white = skip_whitespace(t, end);
    if white - end > EMAIL_GAP {
        return None;
    }
    if t.get(white) == Some(&'.') {
        let next = skip_whitespace(t, white + 1);
        let (spaced_before, spaced_after) = (white > end, next > white + 1);
        if next - (white + 1) > EMAIL_GAP
            || (!spaced_before && spaced_after && !is_common_tld_at(t, next))
        {
            return None;
        }
        how.spaced_dot |= spaced_before || spaced_after || !pristine[white];
        return Some(next);
    }
    if white > end && is_word_at(t, white, "dot") {
        let next = skip_whitespace(t, white + 3);
        if next - (white + 3) > EMAIL_GAP {
            return None;
        }
        how.worded_dot = true;
        return Some(next);
    }
    // A comma glued between a label and a common top-level domain stands for a dot
    // (`owner@example,com`); a comma anywhere else is punctuation.
    if white == end && t.get(end) == Some(&',') && is_common_tld_at(t, end + 1) {
        how.spaced_dot = true;
        return Some(end + 1);
    }
    None
}

/// `word` in any case at `i`, with whitespace before and after it.
fn is_word_at(t: &[char], i: usize, word: &str) -> bool {
    i > 0
        && t[i - 1].is_whitespace()
        && starts_with_ignore_ascii_case(t, i, word)
        && t.get(i + word.len()).is_some_and(|c| c.is_whitespace())
}

/// One of [`COMMON_TLDS`] at `i`, in any case, as a whole label.
fn is_common_tld_at(t: &[char], i: usize) -> bool {
    COMMON_TLDS.iter().any(|tld| {
        starts_with_ignore_ascii_case(t, i, tld)
            && !t
                .get(i + tld.len())
                .is_some_and(|c| c.is_alphanumeric() || *c == '-')
    })
}

fn skip_whitespace(t: &[char], i: usize) -> usize {
    scan(t, i, char::is_whitespace)
}

/// `chars` is `word` in any case.
fn is_word_ignore_ascii_case(chars: &[char], word: &str) -> bool {
    chars.len() == word.len() && starts_with_ignore_ascii_case(chars, 0, word)
}

/// The word a loose address's `@` or `at` follows (`before` is where the whitespace before it
/// starts): the local-part characters back to the one before them, with a typographic
/// apostrophe taken as one (`it’s`), and without the dots and dashes at its ends.
fn local_word(t: &[char], before: usize) -> &[char] {
    let is_local = |c: char| is_local_part_char(c) || c == '’';
    let start = before
        - t[..before]
            .iter()
            .rev()
            .take_while(|&&c| is_local(c))
            .count();
    let word = &t[start..before];
    let trim = |c: &char| matches!(c, '.' | '-' | '\'' | '’');
    let from = word.iter().position(|c| !trim(c)).unwrap_or(word.len());
    let to = word.iter().rposition(|c| !trim(c)).map_or(from, |p| p + 1);
    &word[from..to]
}

/// A word of prose before `at` or ` @` (docs/guard.md#named-in-prose): one of
/// [`PROSE_BEFORE_AT`] in any case, or a contraction (`it's`, `we’re`). A name, a word with a
/// digit, a dot or an underscore, or any other word is a local part.
fn is_prose_word(word: &[char]) -> bool {
    let apostrophe = word.iter().rposition(|c| matches!(c, '\'' | '’'));
    if let Some(a) = apostrophe {
        let ending: String = word[a + 1..]
            .iter()
            .collect::<String>()
            .to_ascii_lowercase();
        return a > 0
            && word[..a].iter().all(|c| c.is_alphabetic())
            && ["s", "re", "m", "ll", "ve", "d", "t"].contains(&ending.as_str());
    }
    PROSE_BEFORE_AT
        .iter()
        .any(|w| is_word_ignore_ascii_case(word, w))
}

/// The words a sentence puts before `at` and a site, or before a handle it names: pronouns,
/// verbs and nouns of where a thing is found (docs/guard.md#named-in-prose). Any other word
/// before `at example.com` or ` @example.com` reads as an address's local part.
#[rustfmt::skip]
const PROSE_BEFORE_AT: [&str; 167] = [
    // pronouns, determiners, conjunctions, adverbs
    "i", "you", "we", "they", "it", "us", "me", "him", "her", "them", "this", "that", "these",
    "those", "here", "there", "and", "or", "but", "also", "only", "just", "still", "now", "today",
    "tonight", "tomorrow", "soon", "again", "all", "both", "everything", "anything", "something",
    "everyone", "anyone", "someone", "more", "is", "are", "was", "were", "be", "been", "being",
    "am",
    // where a thing is found, and how one gets to it
    "look", "looks", "looking", "looked", "live", "lives", "living", "available", "find", "found",
    "see", "seen", "read", "visit", "visited", "hosted", "posted", "published", "listed", "online",
    "up", "in", "out", "on", "off", "info", "details", "docs", "documentation", "site", "website",
    "page", "blog", "news", "updates", "slides", "video", "videos", "photos", "code", "source",
    "demo", "results", "report", "paper", "post", "article", "story", "tickets", "register",
    "signup", "join", "subscribe", "donate", "download", "downloads", "install", "try", "check",
    "get", "got", "buy", "bought", "order", "ordered", "shop", "sold", "selling", "apply",
    "deployed", "running", "served", "mirrored", "archived", "launched", "launch", "started",
    "based", "located", "stay", "stayed", "arrive", "arrived", "aimed", "pointed", "work", "works",
    "worked", "working", "job", "engineer", "developer", "intern", "team", "people", "folks",
    "free", "cheaper", "deals", "sale",
    // what names a handle in a sentence
    "follow", "following", "by", "from", "to", "via", "cc", "thanks", "thank", "hi", "hey",
    "hello", "ping", "ask", "with", "for", "dm", "message", "tag", "tagged", "mention",
];

/// A local-part character directly before the `@` (a bare `@handle` has none).
fn has_local_part(t: &[char], at: usize) -> bool {
    at > 0 && is_local_part_char(t[at - 1])
}

/// A character an address's local part may hold.
fn is_local_part_char(c: char) -> bool {
    c.is_alphanumeric() || ".!#$%&'*+/=?^_`{|}~-".contains(c)
}

/// A domain holding a dot and a letter, after trimming `.` and `-` at both ends
/// (`name@7.49.0` is a version, not an address).
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
// Drive and home paths: a drive letter, `~/`, `%VAR%\`, a `\\server\` path, `/users/` or
// `/home/` in any case, either slash
// ---------------------------------------------------------------------------------------

fn has_drive_or_home_path(t: &[char]) -> bool {
    if !t.iter().any(|&c| is_slash(c)) {
        return false;
    }
    (0..t.len()).any(|i| {
        is_drive_at(t, i)
            || is_tilde_home_at(t, i)
            || is_home_dir_at(t, i, "home")
            || is_home_dir_at(t, i, "users")
            || is_env_var_path_at(t, i)
            || is_unc_path_at(t, i)
    })
}

fn is_slash(c: char) -> bool {
    c == '/' || c == '\\'
}

/// An ASCII letter, `:`, a slash. Before `:/` the letter must not be glued to a preceding letter
/// or digit (so `https://` is not a drive); before `:\` it may (no scheme is written so, and
/// `xC:\` is a drive with a letter glued on).
fn is_drive_at(t: &[char], i: usize) -> bool {
    let glued = i > 0 && t[i - 1].is_alphanumeric();
    t[i].is_ascii_alphabetic()
        && t.get(i + 1) == Some(&':')
        && match t.get(i + 2) {
            Some('\\') => true,
            Some('/') => !glued,
            _ => false,
        }
}

/// `~/`, or `~user/` (a user's home named by the user's login: `~alice/notes`, a personal page's
/// `example.org/~alice/`). The login starts with a letter or `_` (so `~5/10`, an approximate
/// fraction, is no path) and is at most 32 characters of letters, digits, `_`, `.` and `-`.
fn is_tilde_home_at(t: &[char], i: usize) -> bool {
    if t[i] != '~' {
        return false;
    }
    let login = t[i + 1..]
        .iter()
        .take_while(|&&c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'))
        .count();
    let starts_well = login == 0 || t[i + 1].is_ascii_alphabetic() || t[i + 1] == '_';
    starts_well && login <= 32 && t.get(i + 1 + login).is_some_and(|&c| is_slash(c))
}

fn is_home_dir_at(t: &[char], i: usize, word: &str) -> bool {
    let n = word.len();
    is_slash(t[i])
        && starts_with_ignore_ascii_case(t, i + 1, word)
        && t.get(i + 1 + n).is_some_and(|&c| is_slash(c))
}

/// `%`, a name of ASCII letters, digits, `_`, `(`, `)`, `%`, a slash.
fn is_env_var_path_at(t: &[char], i: usize) -> bool {
    if t[i] != '%' {
        return false;
    }
    let end = scan(t, i + 1, |c| c.is_ascii_alphanumeric() || "_()".contains(c));
    end > i + 1 && t.get(end) == Some(&'%') && t.get(end + 1).is_some_and(|&c| is_slash(c))
}

/// Two backslashes, a name of alphanumerics and `-._$`, a backslash.
fn is_unc_path_at(t: &[char], i: usize) -> bool {
    if t[i] != '\\' || t.get(i + 1) != Some(&'\\') {
        return false;
    }
    let end = scan(t, i + 2, |c| c.is_alphanumeric() || "-._$".contains(c));
    end > i + 2 && t.get(end) == Some(&'\\')
}

// ---------------------------------------------------------------------------------------
// Telegram invites: `t.me/+…`, `t.me/joinchat/…` (also `telegram.me`, `telegram.dog`, `%2B`),
// `tg://join?invite=…`
// ---------------------------------------------------------------------------------------

const TELEGRAM_HOSTS: [&str; 3] = ["t.me/", "telegram.me/", "telegram.dog/"];
const INVITE_MARKS: [&str; 3] = ["+", "%2b", "joinchat/"];

fn has_telegram_invite(t: &[char]) -> bool {
    (0..t.len()).any(|i| is_telegram_invite_at(t, i) || is_tg_join_at(t, i))
}

fn is_telegram_invite_at(t: &[char], i: usize) -> bool {
    if i > 0 && (t[i - 1].is_ascii_alphanumeric() || t[i - 1] == '-') {
        return false;
    }
    TELEGRAM_HOSTS.iter().any(|host| {
        starts_with_ignore_ascii_case(t, i, host)
            && invite_follows(t, i + host.len(), &INVITE_MARKS)
    })
}

fn is_tg_join_at(t: &[char], i: usize) -> bool {
    invite_follows(t, i, &["tg://join?invite="])
}

fn invite_follows(t: &[char], at: usize, marks: &[&str]) -> bool {
    marks.iter().any(|mark| {
        starts_with_ignore_ascii_case(t, at, mark)
            && t.get(at + mark.len())
                .is_some_and(|&c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    })
}

// ---------------------------------------------------------------------------------------
// Profile links: an account named by its address (docs/guard.md#profile-links)
// ---------------------------------------------------------------------------------------

/// Hosts and paths whose next path segment names one person's account. A host matches at a
/// host's start (`www.x.com/alice`, never `box.com/alice`).
const PROFILE_PREFIXES: [&str; 40] = [
    "t.me/",
    "telegram.me/",
    "telegram.dog/",
    "twitter.com/",
    "x.com/",
    "instagram.com/",
    "facebook.com/",
    "fb.com/",
    "fb.me/",
    "m.me/",
    "wa.me/",
    "signal.me/",
    "linkedin.com/in/",
    "linkedin.com/pub/",
    "tiktok.com/",
    "youtube.com/c/",
    "youtube.com/user/",
    "youtube.com/channel/",
    "threads.net/",
    "bsky.app/profile/",
    "reddit.com/u/",
    "reddit.com/user/",
    "vk.com/",
    "ok.ru/profile/",
    "snapchat.com/add/",
    "discord.com/users/",
    "keybase.io/",
    "onlyfans.com/",
    "pinterest.com/",
    "tumblr.com/",
    "twitch.tv/",
    "soundcloud.com/",
    "patreon.com/",
    "linktr.ee/",
    "venmo.com/",
    "cash.app/",
    "paypal.me/",
    "flickr.com/people/",
    "vimeo.com/user",
    "skype.com/",
];

/// App links that open a chat with, or the profile of, one account.
const PROFILE_APP_LINKS: [&str; 10] = [
    "tg://resolve?",
    "tg://user?",
    "tg://openmessage?",
    "tg://msg?",
    "whatsapp://send?",
    "viber://chat?",
    "viber://contact?",
    "sgnl://signal.me/",
    "skype:",
    "fb-messenger://user",
];

fn has_profile_link(t: &[char]) -> bool {
    if !t.contains(&'/') && !t.contains(&':') {
        return false;
    }
    (0..t.len()).any(|i| is_profile_link_at(t, i) || is_fediverse_profile_at(t, i))
}

/// A listed profile host or app link (`t.me/name`, `tg://resolve?…`), not the fediverse shape
/// `host.tld/@name`: what a short run of a proof's random bytes can be read as only by a
/// chance that a million proofs meet (docs/build.md#safety).
pub fn has_listed_profile_link(s: &str) -> bool {
    let t: Vec<char> = s.chars().collect();
    (0..t.len()).any(|i| is_profile_link_at(&t, i))
}

fn is_profile_link_at(t: &[char], i: usize) -> bool {
    // Every listed link starts with an ASCII letter, and a link matches only where its first
    // letter does (ignoring ASCII case): so only the links of `t[i]`'s letter are tried. The
    // same answer as trying all 50 at every character (`tests::the_first_letter_index_answers_as_trying_every_link`),
    // a tenth of the work: this check ran at every character of every proof and text.
    let Some(first) = t[i]
        .is_ascii_alphabetic()
        .then(|| t[i].to_ascii_lowercase())
    else {
        return false;
    };
    let links = &PROFILE_LINKS_BY_LETTER[(first as u8 - b'a') as usize];
    if links
        .app
        .iter()
        .any(|link| starts_with_ignore_ascii_case(t, i, link) && has_name_at(t, i + link.len()))
    {
        return true;
    }
    if i > 0 && (t[i - 1].is_ascii_alphanumeric() || t[i - 1] == '-') {
        return false;
    }
    links
        .hosts
        .iter()
        .any(|prefix| profile_prefix_at(t, i, prefix))
}

/// `prefix` at `i`, then a name (or `@` and a name), and not a Telegram group's `joinchat/`.
fn profile_prefix_at(t: &[char], i: usize, prefix: &str) -> bool {
    let at = i + prefix.len();
    starts_with_ignore_ascii_case(t, i, prefix)
        && !starts_with_ignore_ascii_case(t, at, "joinchat/")
        && (has_name_at(t, at) || (t.get(at) == Some(&'@') && has_name_at(t, at + 1)))
}

/// The listed links of one first letter, in the lists' order.
struct LinksOfLetter {
    app: &'static [&'static str],
    hosts: &'static [&'static str],
}

/// [`PROFILE_APP_LINKS`] and [`PROFILE_PREFIXES`] by their first letter, `a` to `z`: made at
/// compile time from the two lists, so a link added to a list is in its letter's.
static PROFILE_LINKS_BY_LETTER: [LinksOfLetter; 26] = {
    const fn of_letter<const N: usize, const M: usize>(
        list: &[&'static str; N],
        letter: u8,
    ) -> ([&'static str; M], usize) {
        let mut out = [""; M];
        let (mut k, mut n) = (0, 0);
        while k < N {
            if list[k].as_bytes()[0].to_ascii_lowercase() == letter {
                out[n] = list[k];
                n += 1;
            }
            k += 1;
        }
        (out, n)
    }
    static APP: [([&str; 10], usize); 26] = {
        let mut all = [([""; 10], 0); 26];
        let mut l = 0;
        while l < 26 {
            all[l] = of_letter::<10, 10>(&PROFILE_APP_LINKS, b'a' + l as u8);
            l += 1;
        }
        all
    };
    static HOSTS: [([&str; 40], usize); 26] = {
        let mut all = [([""; 40], 0); 26];
        let mut l = 0;
        while l < 26 {
            all[l] = of_letter::<40, 40>(&PROFILE_PREFIXES, b'a' + l as u8);
            l += 1;
        }
        all
    };
    let mut out = [const {
        LinksOfLetter {
            app: &[],
            hosts: &[],
        }
    }; 26];
    let (mut l, mut apps, mut hostss) = (0, 0, 0);
    while l < 26 {
        let (app, hosts) = (&APP[l], &HOSTS[l]);
        out[l] = LinksOfLetter {
            app: app.0.split_at(app.1).0,
            hosts: hosts.0.split_at(hosts.1).0,
        };
        (apps, hostss) = (apps + app.1, hostss + hosts.1);
        l += 1;
    }
    // A link that did not start with a letter would be in no letter's list: the build fails.
    assert!(apps == PROFILE_APP_LINKS.len() && hostss == PROFILE_PREFIXES.len());
    out
};

/// `host.tld/@name`: a handle as the first segment of a site's path (Mastodon and every other
/// fediverse server, Medium, TikTok, YouTube, Threads).
fn is_fediverse_profile_at(t: &[char], i: usize) -> bool {
    if t[i] != '/' || t.get(i + 1) != Some(&'@') || !has_name_at(t, i + 2) {
        return false;
    }
    let host_start = (0..i)
        .rev()
        .find(|&k| !(t[k].is_ascii_alphanumeric() || matches!(t[k], '.' | '-')))
        .map_or(0, |k| k + 1);
    let host = &t[host_start..i];
    let before = host_start.checked_sub(1).map(|k| t[k]);
    // The host is the URL's first part: nothing before it, a space, or the `//` of a scheme.
    let first_part = before.is_none_or(|c| c.is_whitespace() || c == '/' || c == '(' || c == '<');
    let dot = host.iter().rposition(|&c| c == '.');
    first_part
        && dot.is_some_and(|d| {
            host.len() - d > 2 && host[d + 1..].iter().all(char::is_ascii_alphabetic)
        })
}

/// A name's first character: a letter, a digit or `_`.
fn has_name_at(t: &[char], at: usize) -> bool {
    t.get(at)
        .is_some_and(|&c| c.is_ascii_alphanumeric() || c == '_')
}

// ---------------------------------------------------------------------------------------
// Network addresses: IPv4, IPv6, MAC (docs/guard.md#network-addresses)
// ---------------------------------------------------------------------------------------

fn has_network_address(t: &[char]) -> bool {
    (0..t.len()).any(|i| ipv4_at(t, i)) || has_ipv6_or_mac(t)
}

/// Four dotted numbers of 0–255, not glued to a letter, digit or dot before or a digit or
/// `.digit` after (`10.0.0.1`, but not `v1.2.3.4` or `1.2.3.4.5`).
fn ipv4_at(t: &[char], i: usize) -> bool {
    if !t[i].is_ascii_digit() || i > 0 && (t[i - 1].is_alphanumeric() || t[i - 1] == '.') {
        return false;
    }
    let mut j = i;
    for part in 0..4 {
        if part > 0 {
            if t.get(j) != Some(&'.') {
                return false;
            }
            j += 1;
        }
        let end = scan(t, j, |c| c.is_ascii_digit());
        if end == j || end - j > 3 {
            return false;
        }
        let value: u32 = t[j..end]
            .iter()
            .fold(0, |a, c| a * 10 + c.to_digit(10).unwrap_or(0));
        if value > 255 {
            return false;
        }
        j = end;
    }
    let glued_after = t.get(j).is_some_and(|c| c.is_alphanumeric())
        || (t.get(j) == Some(&'.') && t.get(j + 1).is_some_and(char::is_ascii_digit));
    !glued_after
}

/// Every maximal run of hex digits and colons (or hex digits and dashes, for a MAC address)
/// not glued to another letter or digit, read as an IPv6 or a MAC address.
fn has_ipv6_or_mac(t: &[char]) -> bool {
    [':', '-'].into_iter().any(|sep| {
        let mut i = 0;
        while i < t.len() {
            let end = scan(t, i, |c| c.is_ascii_hexdigit() || c == sep);
            if end > i {
                let glued = i > 0 && t[i - 1].is_alphanumeric()
                    || t.get(end).is_some_and(|c| c.is_alphanumeric());
                let run: String = t[i..end].iter().collect();
                if !glued && (is_mac(&run, sep) || sep == ':' && is_ipv6(&run)) {
                    return true;
                }
                i = end;
            } else {
                i += 1;
            }
        }
        false
    })
}

/// Six pairs of hex digits, at least one of them a digit (`00:1a:2b:3c:4d:5e`).
fn is_mac(run: &str, sep: char) -> bool {
    let parts: Vec<&str> = run.split(sep).collect();
    parts.len() == 6
        && parts.iter().all(|p| p.len() == 2)
        && run.chars().any(|c| c.is_ascii_digit())
}

/// Eight groups of one to four hex digits, or two to seven around one `::`, with a digit
/// (`2001:db8::1`, `fe80::1ff:fe23:4567:890a`); `::1` alone names no one's machine.
fn is_ipv6(run: &str) -> bool {
    let run = run.trim_end_matches(':');
    let group_ok = |g: &&str| (1..=4).contains(&g.len());
    if !run.chars().any(|c| c.is_ascii_digit()) || run.contains(":::") {
        return false;
    }
    match run.split_once("::") {
        Some((a, b)) => {
            let groups: Vec<&str> = a
                .split(':')
                .chain(b.split(':'))
                .filter(|g| !g.is_empty())
                .collect();
            !b.contains("::") && (2..=7).contains(&groups.len()) && groups.iter().all(group_ok)
        }
        None => {
            let groups: Vec<&str> = run.split(':').collect();
            groups.len() == 8 && groups.iter().all(group_ok)
        }
    }
}

// ---------------------------------------------------------------------------------------
// Cryptocurrency addresses: Bitcoin (base58, bech32) and Ethereum (docs/guard.md#crypto)
// ---------------------------------------------------------------------------------------

const BASE58: &str = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
const BECH32: &str = "qpzry9x8gf2tvdw0s3jn54khce6mua7l";

fn has_crypto_address(t: &[char]) -> bool {
    let mut i = 0;
    while i < t.len() {
        let end = scan(t, i, |c| c.is_ascii_alphanumeric());
        if end > i {
            if is_crypto_token(&t[i..end]) {
                return true;
            }
            i = end;
        } else {
            i += 1;
        }
    }
    false
}

/// One maximal run of ASCII letters and digits: `0x` and exactly 40 hex digits (Ethereum);
/// `bc1`/`tb1` and bech32 characters in one case, 14 to 90 in all (Bitcoin SegWit); or `1`/`3`
/// and base58 characters, 26 to 35 in all, with an upper- and a lower-case letter and a digit
/// after the first (Bitcoin legacy: a hex digest, lower-case, is not one).
fn is_crypto_token(tok: &[char]) -> bool {
    let s: String = tok.iter().collect();
    let lower = s.to_ascii_lowercase();
    if lower.starts_with("0x") {
        return s.len() == 42 && s[2..].chars().all(|c| c.is_ascii_hexdigit());
    }
    if (lower.starts_with("bc1") || lower.starts_with("tb1"))
        && (s == lower || s == s.to_ascii_uppercase())
    {
        return (14..=90).contains(&s.len()) && lower[3..].chars().all(|c| BECH32.contains(c));
    }
    (s.starts_with('1') || s.starts_with('3'))
        && (26..=35).contains(&s.len())
        && s.chars().all(|c| BASE58.contains(c))
        && s.chars().any(|c| c.is_ascii_uppercase())
        && s.chars().any(|c| c.is_ascii_lowercase())
        && s[1..].chars().any(|c| c.is_ascii_digit())
}

// ---------------------------------------------------------------------------------------
// Small helpers
// ---------------------------------------------------------------------------------------

/// The index of the first character at or after `from` that fails `keep`.
fn scan(t: &[char], from: usize, keep: impl Fn(char) -> bool) -> usize {
    let mut i = from;
    while i < t.len() && keep(t[i]) {
        i += 1;
    }
    i
}

fn starts_with_ignore_ascii_case(t: &[char], at: usize, word: &str) -> bool {
    word.chars()
        .enumerate()
        .all(|(k, w)| t.get(at + k).is_some_and(|c| c.eq_ignore_ascii_case(&w)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The guard's rule before the first-letter index: every listed link tried at `i`.
    fn profile_link_at_trying_every_link(t: &[char], i: usize) -> bool {
        if PROFILE_APP_LINKS
            .iter()
            .any(|link| starts_with_ignore_ascii_case(t, i, link) && has_name_at(t, i + link.len()))
        {
            return true;
        }
        if i > 0 && (t[i - 1].is_ascii_alphanumeric() || t[i - 1] == '-') {
            return false;
        }
        PROFILE_PREFIXES
            .iter()
            .any(|prefix| profile_prefix_at(t, i, prefix))
    }

    #[test]
    fn the_first_letter_index_answers_as_trying_every_link() {
        // Every link, in three cases, after each kind of character, before each kind of end;
        // then strings drawn from the links' own pieces and look-alikes (`ſ`, `K` the Kelvin
        // sign, a fullwidth `ｔ`, which ASCII case folding must not take for a letter).
        let befores = ["", " ", "a", "-", "/", "(", "é", "1", "_", "ſ"];
        let afters = ["alice", "@bob", "_x", "joinchat/abc", "", "-", "é", " x"];
        let mut inputs: Vec<String> = Vec::new();
        for link in PROFILE_APP_LINKS.iter().chain(&PROFILE_PREFIXES) {
            for case in [link.to_string(), link.to_uppercase(), {
                let mut c = link.chars();
                c.next()
                    .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
                    .unwrap_or_default()
            }] {
                for b in befores {
                    for a in afters {
                        inputs.push(format!("{b}{case}{a}"));
                    }
                }
            }
        }
        let pieces = [
            "t.me/",
            "x.com/",
            "tg://",
            "resolve?",
            "skype:",
            "wa.me",
            "/",
            "@",
            "a",
            "T",
            ".",
            "-",
            "me/",
            "ſkype:",
            "\u{212a}eybase.io/",
            "ｔ.me/",
            "joinchat/",
            "linkedin.com/in/",
            " ",
            "é",
        ];
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        for _ in 0..20_000 {
            let mut s = String::new();
            for _ in 0..(x % 7 + 1) {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                s.push_str(pieces[(x % pieces.len() as u64) as usize]);
            }
            inputs.push(s);
        }
        let mut found = 0;
        for s in &inputs {
            let t: Vec<char> = s.chars().collect();
            for i in 0..t.len() {
                let want = profile_link_at_trying_every_link(&t, i);
                assert_eq!(is_profile_link_at(&t, i), want, "{s:?} at {i}");
                found += usize::from(want);
            }
        }
        // The inputs reach both answers, many times over (a test of `false` alone proves nothing).
        assert!(found > 1000, "{found}");
    }

    fn chars(s: &str) -> Vec<char> {
        s.chars().collect()
    }

    #[test]
    fn luhn_and_mod97() {
        let d = |s: &str| {
            s.chars()
                .map(|c| c.to_digit(10).unwrap())
                .collect::<Vec<_>>()
        };
        assert!(luhn(&d("4111111111111111")));
        assert!(
            !luhn(&d("4111111111111112")),
            "catches a check that ignores the last digit"
        );
        assert!(luhn(&d("5500000000000004")));
        assert!(luhn(&d("378282246310005")), "15-digit Amex");
        assert_eq!(iban_mod97(&chars("DE89370400440532013000")), 1);
        assert_eq!(iban_mod97(&chars("GB82WEST12345698765432")), 1);
        assert_ne!(iban_mod97(&chars("DE89370400440532013001")), 1);
    }

    #[test]
    fn iban_shapes() {
        for (s, want) in [
            ("DE89 3704 0044 0532 0130 00", true),
            ("de89-3704-0044-0532-0130-00", true),
            ("GB82 WEST 1234 5698 7654 32", true),
            ("NO93 8601 1117 947", true),
            ("DE89 3704 0044 0532 0130 01", false),
            ("DE89 3704 0044 0532 0130 000", false),
            ("XDE89370400440532013000", false),
            ("at 10 we met our friends", false),
        ] {
            assert_eq!(has_iban(&chars(s)), want, "{s}");
        }
    }
}
