//! Identifier shapes in ledger strings (CONTRACT §4 "Line withholding"; protocol §6).
//!
//! > "Every string value of an entry, at any depth, except in fields the registry types as
//! > digests, timestamps or days, is tested for an identifier's shape: any whitespace, `@`, a
//! > drive path (`C:\`, `C:/`), a home path (`~/`, `/home/`, `/users/` in any case, `%VAR%\`,
//! > `\\server\`), or a run of nine digits. Integers of nine or more digits in fields not typed
//! > as counts are treated the same." (CONTRACT §4)
//!
//! This module only answers "which shapes does this string carry"; choosing which fields to
//! test (skipping digests, timestamps and days) is the caller's job. Ledger strings are never
//! message text, so every rule here leans strict: a false hit withholds a line until a person
//! reads it, a false miss publishes an identifier.
//!
//! Before the rules run the string is normalised (the same steps as `text_guard`):
//!
//! * invisible characters are removed: U+00AD soft hyphen, U+034F, U+061C, U+180E,
//!   U+200B–U+200F (zero-width space/non-joiner/joiner, LRM, RLM), U+202A–U+202E,
//!   U+2060–U+2064, U+2066–U+2069 and U+FEFF;
//! * full-width ASCII forms U+FF01–U+FF5E fold to their ASCII twins (`＠` is `@`, `Ｃ：＼` is
//!   `C:\`);
//! * every Unicode decimal digit (general category Nd, see `ND_ZEROS` below) folds to its ASCII
//!   digit. `char::is_numeric` is not used: it also admits superscripts, fractions and Roman
//!   numerals, which are not digits of a run.
//!
//! Decisions the CONTRACT leaves open (all strict unless said otherwise):
//!
//! * an invisible character from the list above is itself reported as [`Shape::Whitespace`]
//!   (it is a separator a reader cannot see); it is also removed before the other rules;
//! * a drive path is an ASCII letter, `:`, then `\` or `/`, where the letter is not preceded
//!   by an ASCII letter or digit, so a URL scheme (`https://`) is not a drive;
//! * `%VAR%` may be followed by `\` or `/`; its name is ASCII letters, digits, `_`, `(`, `)`;
//! * `/home/` and `/users/` are matched with `/` or `\` on either side (`\Users\x` too);
//! * a `\\server\` name is one or more alphanumerics or `-._$`;
//! * digits separated by dashes, dots or spaces are not joined here (the CONTRACT says "a run
//!   of nine digits"; a spaced run is caught by the whitespace rule anyway).

/// One identifier shape a ledger string can carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Shape {
    /// "any whitespace"
    Whitespace,
    /// "`@`"
    At,
    /// "a drive path (`C:\`, `C:/`)"
    DrivePath,
    /// "a home path (`~/`, `/home/`, `/users/` in any case, `%VAR%\`, `\\server\`)"
    HomePath,
    /// "a run of nine digits"
    NineDigits,
}

impl Shape {
    /// The stable code written into `fields_flagged` reasons.
    pub fn code(self) -> &'static str {
        match self {
            Shape::Whitespace => "whitespace",
            Shape::At => "at_sign",
            Shape::DrivePath => "drive_path",
            Shape::HomePath => "home_path",
            Shape::NineDigits => "nine_digits",
        }
    }
}

/// Every shape the string carries, sorted, each once.
pub fn shapes_in(s: &str) -> Vec<Shape> {
    let text = normalize(s);
    let checks: [(Shape, bool); 5] = [
        (Shape::Whitespace, has_whitespace(s)),
        (Shape::At, text.contains(&'@')),
        (Shape::DrivePath, has_drive_path(&text)),
        (Shape::HomePath, has_home_path(&text)),
        (Shape::NineDigits, has_nine_digit_run(&text)),
    ];
    // The array is in `Shape` order, so the result is sorted and unique.
    checks
        .into_iter()
        .filter_map(|(shape, hit)| hit.then_some(shape))
        .collect()
}

/// An integer of nine or more digits (ignoring sign) in a field not typed as a count.
///
/// "Integers of nine or more digits in fields not typed as counts are treated the same."
pub fn integer_has_nine_digits(n: i64) -> bool {
    n.unsigned_abs() >= 100_000_000
}

// ---------------------------------------------------------------------------------------
// Normalisation
// ---------------------------------------------------------------------------------------

/// The zero of every Unicode decimal-digit (Nd) run except ASCII: each run is the ten code
/// points `zero..=zero + 9` with values 0–9 (Unicode guarantees Nd digits come in such runs).
/// Unicode 14.0, generated from the UCD and checked, plus U+11F50 (Kawi) and U+1E4F0
/// (Nag Mundari) from 15.0. It includes, among others, Arabic-Indic U+0660, extended
/// Arabic-Indic U+06F0, Devanagari U+0966, Bengali U+09E6, Thai U+0E50, full-width U+FF10 and
/// the five mathematical digit sets U+1D7CE–U+1D7FF.
pub(crate) const ND_ZEROS: [u32; 67] = [
    0x660, 0x6F0, 0x7C0, 0x966, 0x9E6, 0xA66, 0xAE6, 0xB66, 0xBE6, 0xC66, 0xCE6, 0xD66, 0xDE6,
    0xE50, 0xED0, 0xF20, 0x1040, 0x1090, 0x17E0, 0x1810, 0x1946, 0x19D0, 0x1A80, 0x1A90, 0x1B50,
    0x1BB0, 0x1C40, 0x1C50, 0xA620, 0xA8D0, 0xA900, 0xA9D0, 0xA9F0, 0xAA50, 0xABF0, 0xFF10,
    0x104A0, 0x10D30, 0x11066, 0x110F0, 0x11136, 0x111D0, 0x112F0, 0x11450, 0x114D0, 0x11650,
    0x116C0, 0x11730, 0x118E0, 0x11950, 0x11C50, 0x11D50, 0x11DA0, 0x11F50, 0x16A60, 0x16AC0,
    0x16B50, 0x1D7CE, 0x1D7D8, 0x1D7E2, 0x1D7EC, 0x1D7F6, 0x1E140, 0x1E2F0, 0x1E4F0, 0x1E950,
    0x1FBF0,
];

/// Characters that render as nothing and could hide inside a run (see the module doc).
pub(crate) fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{00AD}'
            | '\u{034F}'
            | '\u{061C}'
            | '\u{180E}'
            | '\u{200B}'..='\u{200F}'
            | '\u{202A}'..='\u{202E}'
            | '\u{2060}'..='\u{2064}'
            | '\u{2066}'..='\u{2069}'
            | '\u{FEFF}'
    )
}

/// A non-ASCII Unicode decimal digit folded to its ASCII twin, if `c` is one.
pub(crate) fn fold_nd_digit(c: char) -> Option<char> {
    let cp = c as u32;
    ND_ZEROS
        .iter()
        .find(|&&zero| (zero..zero + 10).contains(&cp))
        .and_then(|&zero| char::from_digit(cp - zero, 10))
}

/// A full-width ASCII form (U+FF01–U+FF5E) folded to ASCII, if `c` is one.
pub(crate) fn fold_full_width(c: char) -> Option<char> {
    let cp = c as u32;
    if (0xFF01..=0xFF5E).contains(&cp) {
        char::from_u32(cp - 0xFEE0)
    } else {
        None
    }
}

/// Invisible characters removed, full-width forms and decimal digits folded to ASCII.
fn normalize(s: &str) -> Vec<char> {
    s.chars()
        .filter(|&c| !is_invisible(c))
        .map(|c| fold_full_width(c).or_else(|| fold_nd_digit(c)).unwrap_or(c))
        .collect()
}

// ---------------------------------------------------------------------------------------
// The rules
// ---------------------------------------------------------------------------------------

/// "any whitespace" — every `char::is_whitespace`, plus the invisible characters.
fn has_whitespace(s: &str) -> bool {
    s.chars().any(|c| c.is_whitespace() || is_invisible(c))
}

/// "a drive path (`C:\`, `C:/`)" — a letter not glued to a preceding letter or digit.
fn has_drive_path(t: &[char]) -> bool {
    (0..t.len()).any(|i| is_drive_at(t, i))
}

pub(crate) fn is_drive_at(t: &[char], i: usize) -> bool {
    let letter_ok = t[i].is_ascii_alphabetic() && (i == 0 || !t[i - 1].is_ascii_alphanumeric());
    letter_ok && t.get(i + 1) == Some(&':') && t.get(i + 2).is_some_and(|&c| is_slash(c))
}

/// "a home path (`~/`, `/home/`, `/users/` in any case, `%VAR%\`, `\\server\`)".
fn has_home_path(t: &[char]) -> bool {
    (0..t.len()).any(|i| {
        is_tilde_home_at(t, i)
            || is_home_dir_at(t, i, "home")
            || is_home_dir_at(t, i, "users")
            || is_env_var_path_at(t, i)
            || is_unc_path_at(t, i)
    })
}

pub(crate) fn is_slash(c: char) -> bool {
    c == '/' || c == '\\'
}

/// "`~/`"
pub(crate) fn is_tilde_home_at(t: &[char], i: usize) -> bool {
    t[i] == '~' && t.get(i + 1) == Some(&'/')
}

/// "`/home/`, `/users/` in any case" — either slash on either side.
pub(crate) fn is_home_dir_at(t: &[char], i: usize, word: &str) -> bool {
    let n = word.chars().count();
    is_slash(t[i])
        && starts_with_ignore_ascii_case(t, i + 1, word)
        && t.get(i + 1 + n).is_some_and(|&c| is_slash(c))
}

/// "`%VAR%\`" — `%`, a name of one or more characters, `%`, a slash.
fn is_env_var_path_at(t: &[char], i: usize) -> bool {
    if t[i] != '%' {
        return false;
    }
    let end = scan(t, i + 1, is_env_name_char);
    end > i + 1 && t.get(end) == Some(&'%') && t.get(end + 1).is_some_and(|&c| is_slash(c))
}

fn is_env_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '(' | ')')
}

/// "`\\server\`" — two backslashes, a name, a backslash.
fn is_unc_path_at(t: &[char], i: usize) -> bool {
    if t[i] != '\\' || t.get(i + 1) != Some(&'\\') {
        return false;
    }
    let end = scan(t, i + 2, is_server_name_char);
    end > i + 2 && t.get(end) == Some(&'\\')
}

fn is_server_name_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '-' | '.' | '_' | '$')
}

/// "a run of nine digits" — after normalisation, so folded digits count.
fn has_nine_digit_run(t: &[char]) -> bool {
    let mut i = 0;
    while i < t.len() {
        let end = scan(t, i, |c| c.is_ascii_digit());
        if end - i >= 9 {
            return true;
        }
        i = end.max(i + 1);
    }
    false
}

// ---------------------------------------------------------------------------------------
// Small helpers
// ---------------------------------------------------------------------------------------

/// The index of the first character at or after `from` that fails `keep`.
pub(crate) fn scan(t: &[char], from: usize, keep: impl Fn(char) -> bool) -> usize {
    let mut i = from;
    while i < t.len() && keep(t[i]) {
        i += 1;
    }
    i
}

pub(crate) fn starts_with_ignore_ascii_case(t: &[char], at: usize, word: &str) -> bool {
    word.chars()
        .enumerate()
        .all(|(k, w)| t.get(at + k).is_some_and(|c| c.eq_ignore_ascii_case(&w)))
}

#[cfg(test)]
mod tests {
    use super::Shape::{At, DrivePath, HomePath, NineDigits, Whitespace};
    use super::*;

    /// (string, expected shapes, which wrong implementation the row catches)
    #[rustfmt::skip]
    const ROWS: &[(&str, &[Shape], &str)] = &[
        ("", &[], "empty input must not panic or hit"),
        ("send", &[], "an ordinary kind value is clean"),
        ("a b", &[Whitespace], "plain space"),
        ("a\tb", &[Whitespace], "a tab, not only ' '"),
        ("a\u{00A0}b", &[Whitespace], "NBSP: catches an ASCII-only whitespace test"),
        ("a\u{3000}b", &[Whitespace], "ideographic space"),
        ("a\u{200B}b", &[Whitespace], "zero-width space counted as whitespace (decision)"),
        ("@", &[At], "a bare @ is a shape here (unlike the text guard)"),
        ("x\u{FF20}y", &[At], "full-width @ folds: catches no folding"),
        ("C:\\x", &[DrivePath], "backslash drive"),
        ("z:/x", &[DrivePath], "forward slash, lower case drive"),
        ("https://x.example", &[], "URL scheme is not a drive: catches no letter boundary"),
        ("1:/x", &[], "a digit is not a drive letter"),
        ("C:", &[], "no slash after the colon: catches a `X:` only test"),
        ("~/x", &[HomePath], "tilde home"),
        ("~x/", &[], "tilde not followed by slash"),
        ("/home/x", &[HomePath], "/home/"),
        ("/Users/x", &[HomePath], "mixed case: catches a case-sensitive match"),
        ("/USERS/x", &[HomePath], "upper case"),
        ("/homeless/x", &[], "prefix of a longer word: catches a missing trailing slash"),
        ("/users", &[], "no trailing slash at the end"),
        ("%USERPROFILE%\\x", &[HomePath], "env var path"),
        ("%%\\x", &[], "empty variable name"),
        ("\\\\srv\\share", &[HomePath], "UNC server path"),
        ("\\\\\\x", &[], "UNC with empty server name"),
        ("C:\\Users\\x", &[DrivePath, HomePath], "both; also the \\Users\\ variant"),
        ("123456789", &[NineDigits], "nine digits"),
        ("12345678", &[], "eight digits: catches an off-by-one"),
        ("-123456789", &[NineDigits], "sign ignored"),
        ("1234\u{200D}56789", &[Whitespace, NineDigits], "ZWJ removed before digits"),
        ("\u{FF11}\u{FF12}\u{FF13}\u{FF14}\u{FF15}\u{FF16}\u{FF17}\u{FF18}\u{FF19}", &[NineDigits], "full-width digits fold"),
        ("\u{0661}\u{0662}\u{0663}\u{0664}\u{0665}\u{0666}\u{0667}\u{0668}\u{0669}", &[NineDigits], "Arabic-Indic digits fold"),
        ("\u{1D7D7}\u{1D7D7}\u{1D7D7}\u{1D7D7}\u{1D7D7}\u{1D7D7}\u{1D7D7}\u{1D7D7}\u{1D7D7}", &[NineDigits], "mathematical digits fold"),
        ("\u{00B9}\u{00B2}\u{00B3}\u{2074}\u{2075}\u{2076}\u{2077}\u{2078}\u{2079}", &[], "superscripts: catches is_numeric"),
        ("ab123456789c2cc7e7e9e251522b627a", &[NineDigits], "no digest exemption here (typed fields skipped by caller)"),
        ("123-456-789", &[], "grouped digits are not a ledger shape (CONTRACT: a run)"),
        ("a@b c:\\ ~/ 1234567890", &[Whitespace, At, DrivePath, HomePath, NineDigits], "all five, sorted"),
        ("1234567890 1234567890 @ @", &[Whitespace, At, NineDigits], "each shape once"),
    ];

    #[test]
    fn table() {
        for (s, want, why) in ROWS {
            assert_eq!(shapes_in(s), *want, "{s:?}: {why}");
        }
    }

    #[test]
    fn codes() {
        let all = [Whitespace, At, DrivePath, HomePath, NineDigits];
        let codes: Vec<_> = all.iter().map(|s| s.code()).collect();
        assert_eq!(
            codes,
            [
                "whitespace",
                "at_sign",
                "drive_path",
                "home_path",
                "nine_digits"
            ]
        );
    }

    #[test]
    fn integers() {
        let rows: &[(i64, bool)] = &[
            (0, false),
            (99_999_999, false),
            (-99_999_999, false),
            (100_000_000, true),
            (-100_000_000, true),
            (i64::MAX, true),
            (i64::MIN, true),
        ];
        for &(n, want) in rows {
            assert_eq!(integer_has_nine_digits(n), want, "{n}");
        }
    }

    #[test]
    fn nd_table_is_digits() {
        for &zero in &ND_ZEROS {
            for k in 0..10 {
                let c = char::from_u32(zero + k).unwrap();
                assert!(c.is_numeric(), "{:X}", zero + k);
                assert_eq!(fold_nd_digit(c), char::from_digit(k, 10));
            }
        }
    }

    #[test]
    fn generated_strings_are_sorted_unique() {
        for s in generated(200) {
            let got = shapes_in(&s);
            assert!(got.windows(2).all(|w| w[0] < w[1]), "{s:?}: {got:?}");
        }
    }

    fn generated(count: usize) -> Vec<String> {
        #[rustfmt::skip]
        const ALPHABET: &[char] = &[
            '0', '1', '9', 'a', 'C', ':', '\\', '/', '~', '%', '@', ' ', '\n', 'h', 'o', 'm', 'e',
            'u', 's', 'r', '\u{200B}', '\u{FF19}', '\u{0669}', '\u{FF20}', '\u{1D7FF}', '-',
        ];
        let mut state: u64 = 0x2545_F491_4F6C_DD1D;
        let mut next = move || {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (state >> 33) as usize
        };
        (0..count)
            .map(|_| {
                let len = next() % 40;
                (0..len)
                    .map(|_| ALPHABET[next() % ALPHABET.len()])
                    .collect()
            })
            .collect()
    }
}
