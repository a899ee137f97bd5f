//! The one normalisation every string goes through before any rule reads it
//! (docs/guard.md#normalisation).
//!
//! A string is read as up to four *views*, and every rule runs on each view it needs; a hit in
//! any view counts. The views differ in two choices:
//!
//! * **invisible characters** (default-ignorable code points, fillers, controls) are either
//!   removed, so that they cannot split a token (`1234<ZWSP>56789`), or read as a space, so that
//!   they cannot glue a token to a boundary (`x<ZWSP>C:\`);
//! * **spellings of `@` and `.`** (`%40`, `&#64;`, `&commat;`, `(at)`, `[dot]`, …) are either left
//!   as written or decoded, so that decoding can neither hide nor invent a token without the
//!   other view seeing it.
//!
//! Each character of each view is folded the same way: invisible characters as above;
//! decimal digits of every script and style to ASCII digits by value (`digit_table.rs`);
//! everything else by its Unicode compatibility decomposition (NFKD, the decomposition step of
//! NFKC: full-width forms, superscripts, circled and mathematical digits, `﹫`, `︰`) with
//! combining marks dropped, then, for a character still outside ASCII, by the confusable data
//! of Unicode's UTS #39 (`unicode-security`'s skeleton) when that gives one ASCII character
//! (Cyrillic `С`, Greek `ο`, `∕`, `⧵`, `∶`), then by a short list of the punctuation UTS #39 does
//! not fold (`。`, `｡`, `۔`: see [`fold_punctuation`]). ASCII is never folded: `m` is not `rn`,
//! `0` is not `O`. Two further views: characters spelled out one by one joined
//! ([`spelled_out_joined`]: `o w n e r @ …`, before decoding and after), and the letters people
//! write for digits read as digits inside a token that also holds a digit
//! ([`letters_as_digits`]: `555-O1O-9999`), and digits written as words read as digits
//! ([`words_as_digits`]: `five five five, one two three, …`).

use super::digit_table::DIGIT_LIKE;

/// One way of reading a string: its characters after folding, and for each whether it is the
/// original ASCII character unchanged (a hex digest is set aside only when every character of it
/// is: folding must never turn a run into a digest).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct View {
    pub chars: Vec<char>,
    pub pristine: Vec<bool>,
}

impl View {
    fn push(&mut self, c: char, pristine: bool) {
        self.chars.push(c);
        self.pristine.push(pristine);
    }
}

/// Every distinct view of one string, and what the folding saw on the way.
#[derive(Debug)]
pub(crate) struct Views {
    pub views: Vec<View>,
    /// How many of `views` read what is written: the rest read words into it
    /// (`owner_at_example` as `owner at example`), so a space in them was never written.
    pub written: usize,
    /// The string held an invisible character (a reason in ledger strings).
    pub had_invisible: bool,
}

/// How an invisible character is read in a view.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Invisible {
    Removed,
    Space,
}

/// The views of `s` (see the module doc). Plain ASCII without `%`, `&` or a bracket, the common
/// case, has exactly one view and costs one pass.
pub(crate) fn views(s: &str) -> Views {
    let mut had_invisible = false;
    let joined = fold_str(s, Invisible::Removed, &mut had_invisible);
    let mut views = vec![];
    let spaced = had_invisible.then(|| fold_str(s, Invisible::Space, &mut false));
    for literal in std::iter::once(joined).chain(spaced) {
        // Characters spelled out one by one joined (`o w n e r @ …`), before decoding too, so
        // that a spelling between them is decoded once they are joined
        // (`o w n e r (at) e x a m p l e …`).
        let joined_up = spelled_out_joined(&literal);
        for view in std::iter::once(literal).chain(joined_up) {
            let decoded = decode(&view);
            let decoded_joined = decoded.as_ref().and_then(spelled_out_joined);
            views.push(view);
            views.extend(decoded);
            views.extend(decoded_joined);
        }
    }
    // Each view again with letters written for digits inside a number (`555-O1O-9999`), and
    // with digits written as words read as digits (`five five five, one two three, …`).
    let lettered: Vec<View> = views
        .iter()
        .filter_map(letters_as_digits)
        .chain(views.iter().filter_map(words_as_digits))
        .collect();
    views.extend(lettered);
    views.dedup();
    // Last, each view with `_at_` and `_dot_` read as words: their spaces are none written, so
    // they come after the views the whitespace rule reads (docs/guard.md#underscored-words).
    let written = views.len();
    let underscored: Vec<View> = views.iter().filter_map(underscores_as_words).collect();
    views.extend(underscored);
    Views {
        views,
        written,
        had_invisible,
    }
}

/// How many characters spelled out one by one make a word to join (`a b c` stays prose).
const SPELLED_OUT_MIN: usize = 4;

/// The view with every run of single characters spelled out between single spaces joined:
/// `o w n e r @ e x a m p l e . c o m` is `owner@example.com`, `/ h o m e / a l i c e` is
/// `/home/alice` (docs/guard.md#spelled-out). A run is at least [`SPELLED_OUT_MIN`] characters,
/// each standing alone between whitespace, one whitespace character between each two. `None`
/// when no run is joined. The characters kept are as they were (the spaces are what goes).
fn spelled_out_joined(view: &View) -> Option<View> {
    let t = &view.chars;
    let alone = |k: usize| {
        !t[k].is_whitespace()
            && (k == 0 || t[k - 1].is_whitespace())
            && t.get(k + 1).is_none_or(|c| c.is_whitespace())
    };
    // Made only when a run is found: most strings have none, and every string of every line
    // passes here.
    let mut drop: Option<Vec<bool>> = None;
    let mut i = 0;
    while i < t.len() {
        if !alone(i) {
            i += 1;
            continue;
        }
        // A run: a lone character, one whitespace character, a lone character, …
        let mut end = i;
        while end + 2 < t.len() && t[end + 1].is_whitespace() && alone(end + 2) {
            end += 2;
        }
        if (end - i) / 2 + 1 >= SPELLED_OUT_MIN {
            let drop = drop.get_or_insert_with(|| vec![false; t.len()]);
            for k in (i + 1..end).step_by(2) {
                drop[k] = true;
            }
        }
        i = end + 1;
    }
    drop.map(|drop| {
        let mut out = View::default();
        for (k, (&c, &p)) in t.iter().zip(&view.pristine).enumerate() {
            if !drop[k] {
                out.push(c, p);
            }
        }
        out
    })
}

/// The view with the letters people write for digits read as those digits — `O` and `o` as
/// `0`, `I` and `l` as `1` — inside a token (a run of ASCII letters and digits) that holds a
/// digit and no other letter: `O1O` is `010`, `2O26` is `2026`; `GOOD`, `lol`, `v1O` and `IO`
/// stay words (docs/guard.md#normalisation). `None` when no such token changes. The changed
/// characters are not pristine: they never make a digest.
fn letters_as_digits(view: &View) -> Option<View> {
    let t = &view.chars;
    let mut out: Option<View> = None;
    for (i, end) in runs_of(t, |c| c.is_ascii_alphanumeric()) {
        let token = &t[i..end];
        let lettered = token.iter().any(|c| c.is_ascii_digit())
            && token.iter().any(|c| !c.is_ascii_digit())
            && token
                .iter()
                .all(|c| c.is_ascii_digit() || matches!(c, 'O' | 'o' | 'I' | 'l'));
        if lettered {
            let o = out.get_or_insert_with(|| view.clone());
            for (k, &c) in token.iter().enumerate() {
                let digit = match c {
                    'O' | 'o' => '0',
                    'I' | 'l' => '1',
                    _ => continue,
                };
                o.chars[i + k] = digit;
                o.pristine[i + k] = false;
            }
        }
    }
    out
}

/// The maximal runs of the characters `keep` takes in `t`, as (start, end), in order.
fn runs_of(t: &[char], keep: fn(char) -> bool) -> impl Iterator<Item = (usize, usize)> + '_ {
    let mut i = 0;
    std::iter::from_fn(move || {
        while i < t.len() && !keep(t[i]) {
            i += 1;
        }
        let start = i;
        while i < t.len() && keep(t[i]) {
            i += 1;
        }
        (start < i).then_some((start, i))
    })
}

/// The words read as digits, each by its digit ([`words_as_digits`]).
const DIGIT_WORDS: [(&str, char); 11] = [
    ("zero", '0'),
    ("oh", '0'),
    ("one", '1'),
    ("two", '2'),
    ("three", '3'),
    ("four", '4'),
    ("five", '5'),
    ("six", '6'),
    ("seven", '7'),
    ("eight", '8'),
    ("nine", '9'),
];

/// The most characters between two digit words of one run (`five, five` has two), the same
/// bound the digit rules put between two groups.
const DIGIT_WORD_GAP: usize = 3;

/// The digit `token` (a run of ASCII letters) is written for, in any case.
fn digit_word(token: &[char]) -> Option<char> {
    DIGIT_WORDS.iter().find_map(|(word, digit)| {
        (token.len() == word.len()
            && token
                .iter()
                .zip(word.chars())
                .all(|(c, w)| c.to_ascii_lowercase() == w))
        .then_some(*digit)
    })
}

/// Characters that may stand between two digit words of one run: whitespace, dashes, dots,
/// commas, slashes and parentheses (`five-five-five`, `(five five five) one …`).
fn joins_digit_words(c: char) -> bool {
    c.is_whitespace() || matches!(c, '-' | '.' | ',' | '/' | '(' | ')')
}

/// The view with digits written as words read as digits: each run of two or more of
/// [`DIGIT_WORDS`] (whole words, any case), each two at most [`DIGIT_WORD_GAP`] joining
/// characters apart, becomes its digits with the characters between kept, so that the digit
/// rules read `five five five, one two three, four five six seven` as the grouped digits
/// `5 5 5, 1 2 3, 4 5 6 7` and `555 one two three 4567` as `555 1 2 3 4567`
/// (docs/guard.md#digits-in-words). A digit word alone stays a word (`one of 123 456 789`
/// reads as written). `None` when no run is found; the digits are not pristine.
fn words_as_digits(view: &View) -> Option<View> {
    let t = &view.chars;
    // The digit words, as (start, end, digit): an empty list allocates nothing.
    let words: Vec<(usize, usize, char)> = runs_of(t, |c| c.is_ascii_alphabetic())
        .filter_map(|(i, end)| Some((i, end, digit_word(&t[i..end])?)))
        .collect();
    let joined = |a: &(usize, usize, char), b: &(usize, usize, char)| {
        let between = &t[a.1..b.0];
        !between.is_empty()
            && between.len() <= DIGIT_WORD_GAP
            && between.iter().all(|&c| joins_digit_words(c))
    };
    let in_run: Vec<bool> = (0..words.len())
        .map(|k| {
            (k > 0 && joined(&words[k - 1], &words[k]))
                || (k + 1 < words.len() && joined(&words[k], &words[k + 1]))
        })
        .collect();
    if !in_run.contains(&true) {
        return None;
    }
    let mut out = View::default();
    let keep = |out: &mut View, from: usize, to: usize| {
        out.chars.extend_from_slice(&t[from..to]);
        out.pristine.extend_from_slice(&view.pristine[from..to]);
    };
    let mut at = 0;
    for (&(start, end, digit), _) in words.iter().zip(&in_run).filter(|(_, r)| **r) {
        keep(&mut out, at, start);
        out.push(digit, false);
        at = end;
    }
    keep(&mut out, at, t.len());
    Some(out)
}

fn fold_str(s: &str, invisible: Invisible, had_invisible: &mut bool) -> View {
    let mut out = View::default();
    out.chars.reserve(s.len());
    out.pristine.reserve(s.len());
    for c in s.chars() {
        fold_char(c, invisible, had_invisible, &mut out);
    }
    out
}

/// Folds one character into `out` (see the module doc).
fn fold_char(c: char, invisible: Invisible, had_invisible: &mut bool, out: &mut View) {
    if c.is_ascii() && !is_invisible(c) {
        out.push(c, true);
        return;
    }
    if is_invisible(c) {
        *had_invisible = true;
        if invisible == Invisible::Space {
            out.push(' ', false);
        }
        return;
    }
    if let Some(value) = digit_value(c) {
        for d in value.to_string().chars() {
            out.push(d, false);
        }
        return;
    }
    unicode_normalization::char::decompose_compatible(c, |d| {
        if unicode_normalization::char::is_combining_mark(d) {
            return;
        }
        if is_invisible(d) {
            *had_invisible = true;
            if invisible == Invisible::Space {
                out.push(' ', false);
            }
            return;
        }
        let folded = if d.is_ascii() {
            d
        } else if let Some(v) = digit_value(d) {
            // A decomposition may end in a digit of another script (none do in Unicode 16,
            // but the table is the one place that knows).
            char::from_digit(u32::from(v % 10), 10).unwrap_or(d)
        } else {
            fold_confusable(d)
        };
        out.push(folded, false);
    });
}

/// The value of a character that is, or is drawn as, a decimal digit of another script or style.
pub(crate) fn digit_value(c: char) -> Option<u8> {
    let cp = c as u32;
    let i = DIGIT_LIKE.partition_point(|&(_, last, _)| last < cp);
    let &(first, last, value) = DIGIT_LIKE.get(i)?;
    (first..=last)
        .contains(&cp)
        .then(|| value + (cp - first) as u8)
}

/// A non-ASCII character folded to the ASCII character it is confusable with, if there is one.
fn fold_confusable(c: char) -> char {
    if let Some(p) = fold_punctuation(c) {
        return p;
    }
    let mut buf = [0u8; 4];
    let mut skeleton = unicode_security::confusable_detection::skeleton(c.encode_utf8(&mut buf));
    match (skeleton.next(), skeleton.next()) {
        (Some(a), None) if a.is_ascii() && !a.is_ascii_control() => a,
        _ => c,
    }
}

/// Punctuation that separates the parts of an address or path and that UTS #39 leaves unfolded
/// (checked in `tests::uts39_gaps_are_ours`): the ideographic and half-width full stops, the
/// Arabic and Ethiopic full stops and the stenographic full stop; and the dots drawn at mid
/// height that a person writes for the dot of an address (`owner@example·com`): the middle dot
/// and Greek ano teleia, bullets, the hyphenation point, the bullet and dot operators, the
/// katakana and half-width katakana middle dots, the word-separator and raised dots, the runic
/// and Canadian syllabics dots, the sinological dot, the Z notation spot and the white bullet
/// (docs/guard.md#normalisation). All are read as `.`.
fn fold_punctuation(c: char) -> Option<char> {
    match c {
        '\u{3002}' | '\u{FF61}' | '\u{06D4}' | '\u{1362}' | '\u{2E3C}' => Some('.'),
        '\u{00B7}' | '\u{0387}' | '\u{2022}' | '\u{2027}' | '\u{2219}' | '\u{22C5}'
        | '\u{30FB}' | '\u{FF65}' | '\u{2E31}' | '\u{2E33}' | '\u{16EB}' | '\u{1427}'
        | '\u{A78F}' | '\u{2981}' | '\u{25E6}' | '\u{2E30}' | '\u{2024}' | '\u{FE52}'
        | '\u{FF0E}' => Some('.'),
        _ => None,
    }
}

/// Characters that render as nothing: Unicode's default-ignorable code points (zero-width
/// spaces and joiners, bidi controls, variation selectors, the combining grapheme joiner, the
/// Hangul fillers U+115F, U+1160, U+3164, U+FFA0, tags), the braille blank U+2800 (not
/// default-ignorable, but drawn as a blank), and controls other than the whitespace ones.
pub(crate) fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{00}'..='\u{08}'
            | '\u{0E}'..='\u{1F}'
            | '\u{7F}'..='\u{84}'
            | '\u{86}'..='\u{9F}'
            | '\u{00AD}'
            | '\u{034F}'
            | '\u{061C}'
            | '\u{115F}'..='\u{1160}'
            | '\u{17B4}'..='\u{17B5}'
            | '\u{180B}'..='\u{180F}'
            | '\u{200B}'..='\u{200F}'
            | '\u{202A}'..='\u{202E}'
            | '\u{2060}'..='\u{206F}'
            | '\u{2800}'
            | '\u{3164}'
            | '\u{FE00}'..='\u{FE0F}'
            | '\u{FEFF}'
            | '\u{FFA0}'
            | '\u{FFF0}'..='\u{FFF8}'
            | '\u{1BCA0}'..='\u{1BCA3}'
            | '\u{1D173}'..='\u{1D17A}'
            | '\u{E0000}'..='\u{E0FFF}'
    )
}

// ---------------------------------------------------------------------------------------
// Decoding the spellings of `@` and `.` (and of any character, for `%XX` and `&#NN;`)
// ---------------------------------------------------------------------------------------

/// How many times percent-encoding is undone (`%2540` is `%40` is `@`).
const DECODE_ROUNDS: usize = 3;

/// The view with every spelling decoded, or `None` when nothing was decoded.
fn decode(view: &View) -> Option<View> {
    if !view.chars.iter().any(|&c| may_start_spelling(c)) {
        return None;
    }
    let mut current = view.clone();
    let mut changed = false;
    for _ in 0..DECODE_ROUNDS {
        match decode_once(&current) {
            Some(next) => {
                current = next;
                changed = true;
            }
            None => break,
        }
    }
    changed.then_some(current)
}

fn may_start_spelling(c: char) -> bool {
    matches!(
        c,
        '%' | '&' | '(' | '[' | '{' | '<' | ' ' | 'A' | 'D' | '\\'
    )
}

/// One pass of decoding; `None` when nothing matched.
fn decode_once(view: &View) -> Option<View> {
    let read_at = |t: &[char], i: usize| {
        percent_at(t, i)
            .or_else(|| source_escape_at(t, i))
            .or_else(|| entity_at(t, i))
            .or_else(|| bracket_word_at(t, i))
            .or_else(|| shouted_word_at(t, i))
    };
    rewritten(view, read_at, |out, chars| {
        let mut ignored = false;
        for c in chars {
            fold_char(c, Invisible::Removed, &mut ignored, out);
        }
    })
}

/// The view with what `read_at` reads at a character put in its place by `put`, each put
/// character marked as not written (a decoded character makes no digest, and a decoded dot is
/// a disguised one: docs/guard.md#worded-emails); `None` when `read_at` reads nothing.
fn rewritten(
    view: &View,
    read_at: impl Fn(&[char], usize) -> Option<(Vec<char>, usize)>,
    mut put: impl FnMut(&mut View, Vec<char>),
) -> Option<View> {
    let t = &view.chars;
    let mut out = View::default();
    let mut changed = false;
    let mut i = 0;
    while i < t.len() {
        match read_at(t, i) {
            Some((chars, len)) => {
                let from = out.chars.len();
                put(&mut out, chars);
                out.pristine[from..].fill(false);
                i += len;
                changed = true;
            }
            None => {
                out.push(t[i], view.pristine[i]);
                i += 1;
            }
        }
    }
    changed.then_some(out)
}

fn hex_value(c: char) -> Option<u8> {
    c.to_digit(16).map(|v| v as u8)
}

/// `%XX` (one or more in a row, read as UTF-8): the characters and the length consumed.
fn percent_at(t: &[char], i: usize) -> Option<(Vec<char>, usize)> {
    let mut bytes = Vec::new();
    let mut j = i;
    while t.get(j) == Some(&'%') {
        let (Some(hi), Some(lo)) = (
            t.get(j + 1).copied().and_then(hex_value),
            t.get(j + 2).copied().and_then(hex_value),
        ) else {
            break;
        };
        bytes.push(hi * 16 + lo);
        j += 3;
    }
    if bytes.is_empty() {
        return None;
    }
    // The longest prefix of the bytes that is valid UTF-8 (a lone `%E2` stays as written).
    let valid = match std::str::from_utf8(&bytes) {
        Ok(s) => s,
        Err(e) => std::str::from_utf8(&bytes[..e.valid_up_to()]).ok()?,
    };
    if valid.is_empty() {
        return None;
    }
    Some((valid.chars().collect(), 3 * valid.len()))
}

/// A character written as a programming language's escape, which a reader of source decodes
/// at a glance (docs/guard.md#normalisation): `\u0040`, `\u{40}`, `\U00000040`, `\x40`,
/// `%u0040` and three octal digits `\100`. The character and the length consumed; a code point
/// that is no character (a lone surrogate) or an octal escape outside printable ASCII reads as
/// written.
fn source_escape_at(t: &[char], i: usize) -> Option<(Vec<char>, usize)> {
    let hex_digits = |from: usize, n: usize| -> Option<u32> {
        let digits = t.get(from..from + n)?;
        digits
            .iter()
            .try_fold(0u32, |acc, &c| Some(acc * 16 + u32::from(hex_value(c)?)))
    };
    let (value, len) = match (t[i], t.get(i + 1).copied()) {
        ('\\', Some('u')) if t.get(i + 2) == Some(&'{') => {
            let start = i + 3;
            let limit = t.len().min(start + 7);
            let close = (start..limit).find(|&k| t[k] == '}')?;
            if close == start || close - start > 6 {
                return None;
            }
            (hex_digits(start, close - start)?, close + 1 - i)
        }
        ('\\', Some('u')) => (hex_digits(i + 2, 4)?, 6),
        ('%', Some('u' | 'U')) => (hex_digits(i + 2, 4)?, 6),
        ('\\', Some('U')) => (hex_digits(i + 2, 8)?, 10),
        ('\\', Some('x' | 'X')) => (hex_digits(i + 2, 2)?, 4),
        ('\\', Some('0'..='3')) => {
            let digits = t.get(i + 1..i + 4)?;
            let value = digits
                .iter()
                .try_fold(0u32, |acc, &c| Some(acc * 8 + c.to_digit(8)?))?;
            if !(0x20..0x7F).contains(&value) {
                return None;
            }
            (value, 4)
        }
        _ => return None,
    };
    Some((vec![char::from_u32(value)?], len))
}

/// The named character references decoded (the ones that spell the characters identifiers are
/// made of; any character at all can be written numerically).
const NAMED_ENTITIES: &[(&str, char)] = &[
    ("commat", '@'),
    ("period", '.'),
    ("sol", '/'),
    ("bsol", '\\'),
    ("colon", ':'),
    ("plus", '+'),
    ("lowbar", '_'),
    ("hyphen", '-'),
    ("dash", '-'),
    ("num", '#'),
    ("percnt", '%'),
    ("tilde", '~'),
    ("nbsp", ' '),
    ("amp", '&'),
];

/// `&#64;`, `&#x40;`, `&commat;` (the final `;` may be left out, as browsers allow).
fn entity_at(t: &[char], i: usize) -> Option<(Vec<char>, usize)> {
    if t[i] != '&' {
        return None;
    }
    let semicolon = |end: usize| usize::from(t.get(end) == Some(&';'));
    if t.get(i + 1) == Some(&'#') {
        let hex = matches!(t.get(i + 2), Some('x' | 'X'));
        let start = i + 2 + usize::from(hex);
        let radix = if hex { 16 } else { 10 };
        let limit = t.len().min(start + 8);
        let end = (start..limit)
            .find(|&k| !t[k].is_digit(radix))
            .unwrap_or(limit);
        if end <= start {
            return None; // no digits, or `&#` / `&#x` at the very end
        }
        let digits: String = t[start..end].iter().collect();
        let c = char::from_u32(u32::from_str_radix(&digits, radix).ok()?)?;
        return Some((vec![c], end + semicolon(end) - i));
    }
    NAMED_ENTITIES.iter().find_map(|&(name, c)| {
        let end = i + 1 + name.len();
        let matches = name
            .chars()
            .enumerate()
            .all(|(k, n)| t.get(i + 1 + k).is_some_and(|x| x.eq_ignore_ascii_case(&n)));
        (matches && !t.get(end).is_some_and(|c| c.is_ascii_alphanumeric()))
            .then(|| (vec![c], end + semicolon(end) - i))
    })
}

fn closer(open: char) -> Option<char> {
    match open {
        '(' => Some(')'),
        '[' => Some(']'),
        '{' => Some('}'),
        '<' => Some('>'),
        _ => None,
    }
}

/// `(at)`, `[at]`, `{at}`, `<at>`, `(dot)`, `[dot]`, `(@)`, `[.]`, any case, with spaces inside
/// the brackets and around them absorbed (`owner [at] example [dot] com`).
fn bracket_word_at(t: &[char], i: usize) -> Option<(Vec<char>, usize)> {
    let mut j = skip_spaces(t, i);
    let close = closer(*t.get(j)?)?;
    j = skip_spaces(t, j + 1);
    let (c, word_len) = word_at(t, j)?;
    j = skip_spaces(t, j + word_len);
    if t.get(j) != Some(&close) {
        return None;
    }
    let end = skip_spaces(t, j + 1);
    Some((vec![c], end - i))
}

/// `at`, `dot`, `@` or `.` at `j`: the character it spells and its length.
fn word_at(t: &[char], j: usize) -> Option<(char, usize)> {
    let word = |w: &str| {
        w.chars()
            .enumerate()
            .all(|(k, n)| t.get(j + k).is_some_and(|x| x.eq_ignore_ascii_case(&n)))
    };
    if word("at") {
        Some(('@', 2))
    } else if word("dot") {
        Some(('.', 3))
    } else {
        match t.get(j) {
            Some('@') => Some(('@', 1)),
            Some('.') => Some(('.', 1)),
            _ => None,
        }
    }
}

/// ` AT ` and ` DOT `, upper case only and with whitespace on both sides (`OWNER AT EXAMPLE DOT
/// COM`); lower-case `at` and `dot` are ordinary words and are never decoded.
fn shouted_word_at(t: &[char], i: usize) -> Option<(Vec<char>, usize)> {
    if !t[i].is_whitespace() {
        return None;
    }
    let j = skip_spaces(t, i);
    for (word, c) in [("AT", '@'), ("DOT", '.')] {
        let n = word.len();
        let matches = word
            .chars()
            .enumerate()
            .all(|(k, w)| t.get(j + k) == Some(&w));
        if matches && t.get(j + n).is_some_and(|c| c.is_whitespace()) {
            return Some((vec![c], skip_spaces(t, j + n) - i));
        }
    }
    None
}

/// The view with `_at_` and `_dot_`, in any case, between a letter or digit and another
/// (`owner_at_example_dot_com`) read as the words with spaces around them, not as `@` and `.`:
/// the words are then held to an address's shape like any written word, so
/// `created_at_utc.isoformat()` stays code (docs/guard.md#underscored-words). `None` when
/// there is none.
fn underscores_as_words(view: &View) -> Option<View> {
    if !view.chars.contains(&'_') {
        return None;
    }
    rewritten(view, underscored_word_at, |out, chars| {
        for c in chars {
            out.push(c, false);
        }
    })
}

/// `_at_` or `_dot_` at `i`, between a letter or digit and another: the word with a space on
/// either side, and the length read.
fn underscored_word_at(t: &[char], i: usize) -> Option<(Vec<char>, usize)> {
    if t[i] != '_' || i == 0 || !t[i - 1].is_alphanumeric() {
        return None;
    }
    for word in ["at", "dot"] {
        let n = word.len();
        let matches = word
            .chars()
            .enumerate()
            .all(|(k, w)| t.get(i + 1 + k).is_some_and(|x| x.eq_ignore_ascii_case(&w)));
        if matches
            && t.get(i + 1 + n) == Some(&'_')
            && t.get(i + 2 + n).is_some_and(|c| c.is_alphanumeric())
        {
            let mut chars = vec![' '];
            chars.extend(word.chars());
            chars.push(' ');
            return Some((chars, n + 2));
        }
    }
    None
}

fn skip_spaces(t: &[char], mut i: usize) -> usize {
    while i < t.len() && t[i] == ' ' {
        i += 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    fn joined(s: &str) -> String {
        views(s).views[0].chars.iter().collect()
    }

    fn all(s: &str) -> Vec<String> {
        views(s)
            .views
            .iter()
            .map(|v| v.chars.iter().collect())
            .collect()
    }

    /// `s` as a view of characters all as written.
    fn written(s: &str) -> View {
        View {
            chars: s.chars().collect(),
            pristine: vec![true; s.chars().count()],
        }
    }

    /// Runs of four or more lone characters are joined, shorter ones and words are not.
    #[test]
    fn characters_spelled_out_are_joined_only_in_runs() {
        let rows: &[(&str, Option<&str>, &str)] = &[
            (
                "o w n e r @ e x a m p l e . c o m",
                Some("owner@example.com"),
                "an address spelled out",
            ),
            (
                "mail: / h o m e / x",
                Some("mail: /home/x"),
                "a run after a word",
            ),
            ("a b c", None, "three lone characters stay prose"),
            ("a b c d", Some("abcd"), "four join"),
            (
                "I am a b c d e",
                Some("I am abcde"),
                "a word ends no run: I and a stand apart",
            ),
            ("x  y  z  w", None, "two spaces between: not spelled out"),
            ("plan A and B", None, "lone characters between words"),
        ];
        for (input, want, why) in rows {
            let got =
                spelled_out_joined(&written(input)).map(|v| v.chars.iter().collect::<String>());
            assert_eq!(got.as_deref(), *want, "{input:?}: {why}");
        }
    }

    /// Letters read as digits only inside a token that holds a digit and no other letter; the
    /// changed characters are never pristine (they make no digest).
    #[test]
    fn letters_are_digits_only_inside_a_number() {
        let rows: &[(&str, Option<&str>, &str)] = &[
            ("555-O1O-9999", Some("555-010-9999"), "O and O beside a 1"),
            ("chat_l00l234567", Some("chat_1001234567"), "l in a run"),
            (
                "2O26 lol IO GOOD",
                Some("2026 lol IO GOOD"),
                "only the token with a digit",
            ),
            (
                "GPT-4o v1O",
                Some("GPT-40 v1O"),
                "4o is a token of a digit and o; v1O holds a v",
            ),
            ("lol IOI", None, "no digit: words"),
            ("1234 ab", None, "nothing to read"),
            ("x9I", None, "another letter in the token"),
        ];
        for (input, want, why) in rows {
            let got = letters_as_digits(&written(input));
            let got_s = got.as_ref().map(|v| v.chars.iter().collect::<String>());
            assert_eq!(got_s.as_deref(), *want, "{input:?}: {why}");
            if let Some(v) = got {
                for (k, c) in input.chars().enumerate() {
                    assert_eq!(v.pristine[k], v.chars[k] == c, "{input:?} at {k}");
                }
            }
        }
    }

    /// Digit words read as digits only in a run of two or more, whole words in any case, the
    /// characters between kept; the digits are never pristine.
    #[test]
    fn digit_words_are_digits_only_in_a_run() {
        let rows: &[(&str, Option<&str>, &str)] = &[
            (
                "five five five, one two three, four five six seven",
                Some("5 5 5, 1 2 3, 4 5 6 7"),
                "a phone in words",
            ),
            (
                "555 one two three 4567",
                Some("555 1 2 3 4567"),
                "words between digit groups",
            ),
            (
                "Five-Five-FIVE (oh one) nine",
                Some("5-5-5 (0 1) 9"),
                "any case, dashes and parentheses; oh is zero",
            ),
            (
                "one of 123 456 789",
                None,
                "a digit word alone stays a word",
            ),
            ("one or two", None, "a word between: no run"),
            (
                "someone tone nineteen",
                None,
                "digit words inside other words",
            ),
            ("one    two", None, "four spaces between: too far apart"),
            ("one:two", None, "a colon does not join digit words"),
        ];
        for (input, want, why) in rows {
            let got = words_as_digits(&written(input));
            let got_s = got.as_ref().map(|v| v.chars.iter().collect::<String>());
            assert_eq!(got_s.as_deref(), *want, "{input:?}: {why}");
            // The digits read from words, and only they, are not pristine.
            if let Some(v) = got {
                let digits =
                    |s: &mut dyn Iterator<Item = char>| s.filter(char::is_ascii_digit).count();
                let read = digits(&mut v.chars.iter().copied()) - digits(&mut input.chars());
                let unmarked: Vec<char> = (0..v.chars.len())
                    .filter(|&k| !v.pristine[k])
                    .map(|k| v.chars[k])
                    .collect();
                assert_eq!(unmarked.len(), read, "{input:?}");
                assert!(unmarked.iter().all(char::is_ascii_digit), "{input:?}");
            }
        }
    }

    #[test]
    fn digit_table_is_numeric_and_sorted() {
        for w in DIGIT_LIKE.windows(2) {
            assert!(w[0].1 < w[1].0, "{:X} overlaps {:X}", w[0].1, w[1].0);
        }
        for &(first, last, value) in DIGIT_LIKE {
            for cp in first..=last {
                let c = char::from_u32(cp).unwrap();
                assert!(c.is_numeric(), "U+{cp:X} is not numeric");
                assert_eq!(digit_value(c), Some(value + (cp - first) as u8));
            }
        }
    }

    #[test]
    fn folding() {
        #[rustfmt::skip]
        let rows: &[(&str, &str, &str)] = &[
            ("owner\u{FE6B}example.com", "owner@example.com", "small commercial at, by NFKC"),
            ("\u{FF20}", "@", "full-width at"),
            ("a\u{3002}b\u{FF61}c", "a.b.c", "ideographic and half-width full stops (our list)"),
            ("\u{2460}\u{2461}\u{2462}", "123", "circled digits, by NFKC"),
            ("\u{2776}\u{277F}", "110", "dingbat negative circled one and ten (our table)"),
            ("\u{00B9}\u{00B2}\u{00B3}", "123", "superscripts, by NFKC"),
            ("\u{0661}\u{06F2}\u{0967}", "121", "Arabic-Indic, extended, Devanagari (our table)"),
            ("\u{1D7D9}", "1", "mathematical double-struck one, by NFKC"),
            ("1\u{FE0F}2\u{20E3}3", "123", "variation selector removed, keycap mark dropped"),
            ("a\u{3164}b\u{2800}c\u{034F}d", "abcd", "Hangul filler, braille blank, CGJ removed"),
            ("\u{0421}:\\", "C:\\", "Cyrillic capital es, by UTS #39"),
            ("/h\u{03BF}me/", "/home/", "Greek omicron, by UTS #39"),
            ("a\u{2215}b\u{29F5}c\u{2236}", "a/b\\c:", "division slash, reverse solidus operator, ratio"),
            ("h\u{00E9}", "he", "a combining mark is dropped after decomposition"),
            ("m0", "m0", "ASCII is never folded (m is not rn, 0 is not O)"),
        ];
        for (input, want, why) in rows {
            assert_eq!(joined(input), *want, "{input:?}: {why}");
        }
    }

    /// The 42 look-alikes of `benches/guard-fold` (docs/guard.md#why-these-crates): each reads as
    /// its ASCII character.
    #[test]
    fn the_measured_look_alikes_all_fold() {
        #[rustfmt::skip]
        let must: &[(char, &str)] = &[
            ('\u{0421}', "C"), ('\u{03BF}', "o"), ('\u{043E}', "o"), ('\u{0435}', "e"), ('\u{04BB}', "h"),
            ('\u{0455}', "s"), ('\u{0430}', "a"), ('\u{0440}', "p"), ('\u{03C5}', "u"), ('\u{216D}', "C"),
            ('\u{2215}', "/"), ('\u{2044}', "/"), ('\u{FF0F}', "/"), ('\u{29F5}', "\\"), ('\u{2216}', "\\"),
            ('\u{FE68}', "\\"), ('\u{FF3C}', "\\"), ('\u{2236}', ":"), ('\u{A789}', ":"), ('\u{FF1A}', ":"),
            ('\u{FE55}', ":"), ('\u{3002}', "."), ('\u{FF61}', "."), ('\u{FF0E}', "."), ('\u{FE52}', "."),
            ('\u{FE6B}', "@"), ('\u{FF20}', "@"), ('\u{2460}', "1"), ('\u{2776}', "1"), ('\u{0665}', "5"),
            ('\u{06F5}', "5"), ('\u{096B}', "5"), ('\u{0E55}', "5"), ('\u{1D7D7}', "9"), ('\u{2075}', "5"),
            ('\u{FF15}', "5"), ('\u{2010}', "-"), ('\u{2013}', "-"), ('\u{2212}', "-"), ('\u{FF0B}', "+"),
            ('\u{1369}', "1"), ('\u{24FF}', "0"),
        ];
        assert_eq!(must.len(), 42);
        let wrong: Vec<String> = must
            .iter()
            .filter(|(c, want)| !joined(&c.to_string()).eq_ignore_ascii_case(want))
            .map(|(c, want)| {
                format!(
                    "U+{:04X} -> {:?}, want {want:?}",
                    *c as u32,
                    joined(&c.to_string())
                )
            })
            .collect();
        assert!(wrong.is_empty(), "{wrong:?}");
    }

    #[test]
    fn uts39_gaps_are_ours() {
        // If UTS #39 ever folds these itself, `fold_punctuation` can shrink.
        for c in ['\u{3002}', '\u{FF61}', '\u{06D4}'] {
            let mut buf = [0u8; 4];
            let s: String =
                unicode_security::confusable_detection::skeleton(c.encode_utf8(&mut buf)).collect();
            assert_ne!(s, ".", "U+{:X}", c as u32);
        }
    }

    #[test]
    fn decoding() {
        #[rustfmt::skip]
        let rows: &[(&str, &str, &str)] = &[
            ("owner%40example.com", "owner@example.com", "percent"),
            ("owner%2540example.com", "owner@example.com", "percent twice"),
            ("owner&#64;example.com", "owner@example.com", "decimal reference"),
            ("owner&#x40;example.com", "owner@example.com", "hex reference"),
            ("owner&#64example.com", "owner@example.com", "decimal reference without ;"),
            ("owner&commat;example&period;com", "owner@example.com", "named references"),
            ("owner(at)example(dot)com", "owner@example.com", "parentheses"),
            ("owner [at] example [dot] com", "owner@example.com", "spaced brackets"),
            ("owner{ AT }example[.]com", "owner@example.com", "braces, spaces inside, [.]"),
            ("OWNER AT EXAMPLE DOT COM", "OWNER@EXAMPLE.COM", "shouted words"),
            ("%E2%80%8B", "", "an encoded invisible character is removed"),
            ("%E2", "%E2", "a lone byte stays as written"),
        ];
        for (input, want, why) in rows {
            assert!(
                all(input).contains(&want.to_string()),
                "{input:?}: {why}: {:?}",
                all(input)
            );
        }
        assert_eq!(
            all("meet at noon, dot the i"),
            ["meet at noon, dot the i"],
            "prose is not decoded"
        );
        assert_eq!(all("50% of (a) [b]"), ["50% of (a) [b]"]);
        for tail in [
            "&#",
            "&#x",
            "&",
            "%",
            "%4",
            "(",
            "[ at",
            " AT",
            "&#1114112;",
        ] {
            // Cut-off spellings at the very end: no panic, nothing decoded.
            assert_eq!(all(&format!("x{tail}")), [format!("x{tail}")], "{tail:?}");
        }
    }

    #[test]
    fn underscored_at_and_dot_are_words_only_between_letters_or_digits() {
        let v = all("owner_at_example_DOT_com");
        assert!(v.contains(&"owner at example dot com".to_string()), "{v:?}");
        // An underscore at either end, or another word, decodes nothing.
        for s in [
            "_at_example",
            "owner_at_",
            "owner_at__x",
            "owner_attic_x",
            "owner-at-x",
        ] {
            assert_eq!(all(s), vec![s.to_string()], "{s}");
        }
        // What is decoded is the word with spaces, never `@`: a decoded space is no written one.
        let d = views("a_at_b");
        assert_eq!(d.written, 1);
        assert_eq!(d.views[1].chars.iter().collect::<String>(), "a at b");
        assert_eq!(
            d.views[1].pristine,
            vec![true, false, false, false, false, true]
        );
        // Read in every view: here the one where the spelled dot is decoded.
        let v = all("owner_at_example[dot]com");
        assert!(v.contains(&"owner at example.com".to_string()), "{v:?}");
    }

    #[test]
    fn views_keep_both_readings() {
        let v = all("x\u{200B}C:\\ 1%32");
        assert!(v.contains(&"xC:\\ 1%32".to_string()), "{v:?}");
        assert!(v.contains(&"x C:\\ 12".to_string()), "{v:?}");
        assert_eq!(views("plain ascii").views.len(), 1);
        assert!(views("a\u{200B}").had_invisible);
        assert!(!views("a b").had_invisible);
    }
}
