//! The canonical form of a ledger line (docs/protocol.md#canonical-form).
//!
//! A line's bytes must be the compact, key-sorted dump of its object. We read lines with our own
//! JSON reader rather than `serde_json::Value` because the protocol needs three things `Value`
//! throws away: a key written twice (`duplicate_key`), the difference between `2` and `2.0` or
//! `1e2`, and integers past 2^53 (a JCS crate casting through f64 turns 2^53+1 into 2^53 and the
//! line would wrongly re-derive). Strings borrow from the line when they hold no escape, so the
//! verifier allocates little per line.

use std::borrow::Cow;

/// Objects and arrays nested deeper than this are refused as `unparsable` (docs/verifier.md);
/// the limit keeps a hostile 100k-deep line from exhausting the stack.
pub const MAX_DEPTH: usize = 1000;

/// The largest admitted integer magnitude, 2^53 (docs/protocol.md#canonical-form: integers up to 2^53 in magnitude).
pub const MAX_SAFE: i64 = 1 << 53;

/// A JSON value as read from a line. Object members keep their input order; a key written twice
/// keeps its first position and its last value, as `JSON.parse` does.
#[derive(Debug, Clone, PartialEq)]
pub enum Value<'a> {
    Null,
    Bool(bool),
    /// An integer within ±2^53.
    Int(i64),
    /// A number outside the admitted types (a fraction, an exponent, `-0`, or beyond ±2^53),
    /// kept as written.
    OtherNumber(Cow<'a, str>),
    Str(Cow<'a, str>),
    /// A string that held a lone surrogate escape; the value cannot be canonicalised.
    LoneSurrogateStr(LoneStr),
    Array(Vec<Value<'a>>),
    Object(Object<'a>),
}

/// A string holding a lone surrogate (`"\ud800"`). It reads as `lossy` (each lone surrogate
/// replaced by U+FFFD, for words and scans) but *is* its UTF-16 code units: `"\ud800"` and
/// `"\udc00"` are two different strings (and two different keys), as they are to `JSON.parse`
/// (docs/verifier.md "Reading a line").
#[derive(Debug, Clone)]
pub struct LoneStr {
    pub lossy: String,
    pub units: Vec<u16>,
}

impl PartialEq for LoneStr {
    fn eq(&self, other: &Self) -> bool {
        self.units == other.units
    }
}

impl std::ops::Deref for LoneStr {
    type Target = str;
    fn deref(&self) -> &str {
        &self.lossy
    }
}

/// An object's members in input order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Object<'a> {
    pub members: Vec<(Cow<'a, str>, Value<'a>)>,
}

impl<'a> Object<'a> {
    pub fn get(&self, key: &str) -> Option<&Value<'a>> {
        self.members
            .iter()
            .find(|(k, _)| k.as_ref() == key)
            .map(|(_, v)| v)
    }

    pub fn get_str(&self, key: &str) -> Option<&str> {
        match self.get(key) {
            Some(Value::Str(s)) => Some(s.as_ref()),
            _ => None,
        }
    }

    pub fn get_int(&self, key: &str) -> Option<i64> {
        match self.get(key) {
            Some(Value::Int(n)) => Some(*n),
            _ => None,
        }
    }

    /// Sets a member (replacing an existing one in place) — for writers such as the box generator.
    pub fn insert(&mut self, key: impl Into<Cow<'a, str>>, value: Value<'a>) {
        let key = key.into();
        match self.members.iter_mut().find(|(k, _)| *k == key) {
            Some((_, v)) => *v = value,
            None => self.members.push((key, value)),
        }
    }

    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.members.iter().map(|(k, _)| k.as_ref())
    }
}

impl<'a> Value<'a> {
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Str(s) => Some(s.as_ref()),
            _ => None,
        }
    }

    pub fn as_object(&self) -> Option<&Object<'a>> {
        match self {
            Value::Object(o) => Some(o),
            _ => None,
        }
    }

    pub fn str(s: impl Into<Cow<'a, str>>) -> Self {
        Value::Str(s.into())
    }

    /// A copy that owns all its text, so it may outlive the line it was read from.
    pub fn into_owned(self) -> Value<'static> {
        match self {
            Value::Null => Value::Null,
            Value::Bool(b) => Value::Bool(b),
            Value::Int(n) => Value::Int(n),
            Value::OtherNumber(s) => Value::OtherNumber(Cow::Owned(s.into_owned())),
            Value::Str(s) => Value::Str(Cow::Owned(s.into_owned())),
            Value::LoneSurrogateStr(s) => Value::LoneSurrogateStr(s),
            Value::Array(a) => Value::Array(a.into_iter().map(Value::into_owned).collect()),
            Value::Object(o) => Value::Object(Object {
                members: o
                    .members
                    .into_iter()
                    .map(|(k, v)| (Cow::Owned(k.into_owned()), v.into_owned()))
                    .collect(),
            }),
        }
    }
}

/// Why a line could not be read as JSON at all (`unparsable`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParseError {
    NotUtf8 { byte: usize },
    Syntax { byte: usize, expected: &'static str },
    TooDeep,
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ParseError::NotUtf8 { byte } => write!(f, "not UTF-8 (byte {byte})"),
            ParseError::Syntax { byte, expected } => {
                write!(f, "not one JSON value: expected {expected} at byte {byte}")
            }
            ParseError::TooDeep => write!(f, "nested deeper than {MAX_DEPTH} levels"),
        }
    }
}

impl std::error::Error for ParseError {}

/// Why a value has no canonical form (`not_canonicalisable`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotAdmitted {
    Number,
    NonAsciiKey,
    LoneSurrogate,
}

impl NotAdmitted {
    pub fn words(self) -> &'static str {
        match self {
            NotAdmitted::Number => {
                "holds a number that is not an integer within ±2^53 (a fraction, an exponent, -0, or too large)"
            }
            NotAdmitted::NonAsciiKey => "holds an object key that is not ASCII",
            NotAdmitted::LoneSurrogate => "holds a string with a lone surrogate",
        }
    }
}

impl std::fmt::Display for NotAdmitted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.words())
    }
}

impl std::error::Error for NotAdmitted {}

/// A parsed line: its value and what the reader noticed on the way.
#[derive(Debug, Clone)]
pub struct Parsed<'a> {
    pub value: Value<'a>,
    /// The first key written twice, if any (at any depth).
    pub duplicate_key: Option<String>,
    /// The first reason the value cannot be canonicalised, if any.
    pub not_admitted: Option<NotAdmitted>,
}

mod reader;
mod scanner;
mod writer;

pub use reader::parse;
pub use scanner::{EntryScan, scan_entry};
pub(crate) use writer::dump_entry;
pub use writer::{dump, dump_object_except, to_canonical};

#[cfg(test)]
mod tests {
    use super::writer::find_special;
    use super::*;

    fn canon(line: &str) -> Result<String, String> {
        let parsed = parse(line.as_bytes()).map_err(|e| e.to_string())?;
        to_canonical(&parsed.value)
            .map(|b| String::from_utf8(b).unwrap())
            .map_err(|e| format!("{e:?}"))
    }

    #[test]
    fn special_bytes_are_found_at_every_offset() {
        for len in 0..40 {
            for at in 0..len {
                for special in [b'"', b'\\', 0x00, 0x1f, b'\n'] {
                    let mut bytes = vec![b'a'; len];
                    bytes[at] = special;
                    assert_eq!(
                        find_special(&bytes),
                        Some(at),
                        "len {len} at {at} byte {special}"
                    );
                }
            }
            assert_eq!(find_special(&vec![0x20; len]), None);
            assert_eq!(find_special(&vec![0xff; len]), None);
            assert_eq!(find_special(&vec![0x7f; len]), None);
        }
    }

    #[test]
    fn sorts_keys_and_drops_whitespace() {
        assert_eq!(
            canon(r#"{ "b" : 1, "a" : [true, null] }"#).unwrap(),
            r#"{"a":[true,null],"b":1}"#
        );
    }

    #[test]
    fn escapes_exactly_the_required_characters() {
        assert_eq!(
            canon(r#"["\/","\u00e9","\u001F","\u0001","\b\f\n\r\t","\u2028"]"#).unwrap(),
            "[\"/\",\"é\",\"\\u001f\",\"\\u0001\",\"\\b\\f\\n\\r\\t\",\"\u{2028}\"]"
        );
    }

    #[test]
    fn refuses_values_outside_the_admitted_types() {
        for bad in [
            "1.5",
            "2.0",
            "1e2",
            "-0",
            "9007199254740993",
            "-9007199254740993",
            r#"{"é":1}"#,
            r#""\ud800""#,
            r#""\udc00x""#,
        ] {
            let parsed = parse(bad.as_bytes()).unwrap();
            assert!(
                parsed.not_admitted.is_some(),
                "{bad} should not be admitted"
            );
            assert!(to_canonical(&parsed.value).is_err(), "{bad} must not dump");
        }
        for good in [
            "9007199254740992",
            "-9007199254740992",
            "0",
            r#""\ud83d\ude00""#,
        ] {
            let parsed = parse(good.as_bytes()).unwrap();
            assert!(parsed.not_admitted.is_none(), "{good} is admitted");
        }
    }

    #[test]
    fn duplicate_key_keeps_last_value_at_first_position() {
        let parsed = parse(br#"{"a":1,"b":2,"a":3}"#).unwrap();
        assert_eq!(parsed.duplicate_key.as_deref(), Some("a"));
        assert_eq!(
            to_canonical(&parsed.value).unwrap(),
            br#"{"a":3,"b":2}"#.to_vec()
        );
        let nested = parse(br#"{"x":{"k":1,"k":1}}"#).unwrap();
        assert_eq!(nested.duplicate_key.as_deref(), Some("k"));
    }

    #[test]
    fn rejects_what_json_rejects() {
        for bad in [
            "",
            " ",
            "{",
            "{\"a\":1,}",
            "[1,]",
            "01",
            "1.",
            "\"\t\"",
            "\"\\x\"",
            "{} {}",
            "tru",
            "\"\\u12\"",
        ] {
            assert!(parse(bad.as_bytes()).is_err(), "{bad:?} should not parse");
        }
        assert!(matches!(
            parse(b"\"\xff\""),
            Err(ParseError::NotUtf8 { .. })
        ));
        // The words name the byte a person must look at: the letter after the backslash.
        assert_eq!(
            parse(br#""a\x""#).unwrap_err(),
            ParseError::Syntax {
                byte: 3,
                expected: "a valid escape"
            }
        );
    }

    #[test]
    fn deep_nesting_is_refused_not_a_stack_overflow() {
        let deep = "[".repeat(100_000) + &"]".repeat(100_000);
        assert_eq!(parse(deep.as_bytes()).unwrap_err(), ParseError::TooDeep);
        let ok = "[".repeat(MAX_DEPTH) + &"]".repeat(MAX_DEPTH);
        assert!(parse(ok.as_bytes()).is_ok());
    }

    #[test]
    fn a_duplicate_after_an_out_of_order_key_is_found() {
        // `b` sits out of order between the two copies of `c` (issue 15, class 2).
        let parsed = parse(br#"{"a":1,"c":2,"b":3,"c":4}"#).unwrap();
        assert_eq!(parsed.duplicate_key.as_deref(), Some("c"));
        assert_eq!(
            to_canonical(&parsed.value).unwrap(),
            br#"{"a":1,"b":3,"c":4}"#.to_vec()
        );
        // Out of order from the start, the repeat far away.
        let parsed = parse(br#"{"z":1,"a":2,"m":3,"y":4,"a":5}"#).unwrap();
        assert_eq!(parsed.duplicate_key.as_deref(), Some("a"));
        let parsed = parse(br#"{"z":1,"a":2,"m":3,"y":4}"#).unwrap();
        assert_eq!(parsed.duplicate_key, None);
    }

    #[test]
    fn lone_surrogate_keys_are_their_units() {
        // Two different lone surrogates are two keys (class 3): not a duplicate, not admitted.
        let parsed = parse(br#"{"\ud800":1,"\udc00":2}"#).unwrap();
        assert_eq!(parsed.duplicate_key, None);
        assert_eq!(parsed.not_admitted, Some(NotAdmitted::LoneSurrogate));
        let parsed = parse(br#"{"\udc00":1,"\ud800":2}"#).unwrap();
        assert_eq!(parsed.duplicate_key, None);
        // The same one twice (any spelling of the escape) is a duplicate, in either order.
        for line in [
            br#"{"\ud800":1,"\uD800":2}"#.as_slice(),
            br#"{"\ud800":1,"b":0,"\ud800":2}"#,
            br#"{"b":0,"\ud800":1,"a":0,"\ud800":2}"#,
        ] {
            let parsed = parse(line).unwrap();
            assert!(
                parsed.duplicate_key.is_some(),
                "{}",
                String::from_utf8_lossy(line)
            );
        }
        // Every escape is decoded into the key's units: the same units are one key, others two.
        let parsed =
            parse(br#"{"\ud800\/\"\\\b\f\n\r\t":1,"\ud800/\"\\\u0008\u000c\u000a\u000d\u0009":2}"#)
                .unwrap();
        assert!(parsed.duplicate_key.is_some());
        for (a, b) in [
            ("\\n", "\\t"),
            ("\\b", "\\f"),
            ("\\r", "\\n"),
            ("\\/", "\\\\"),
            ("\\\"", "\\/"),
        ] {
            let line = format!(r#"{{"\ud800{a}":1,"\ud800{b}":2}}"#);
            assert_eq!(
                parse(line.as_bytes()).unwrap().duplicate_key,
                None,
                "{line}"
            );
        }
        // A lone surrogate key is never the U+FFFD key.
        let parsed = parse("{\"\\ud800\":1,\"\u{fffd}\":2}".as_bytes()).unwrap();
        assert_eq!(parsed.duplicate_key, None);
        // Strings compare by units too.
        let a = parse(br#""\ud800""#).unwrap().value;
        let b = parse(br#""\udc00""#).unwrap().value;
        assert_ne!(a, b);
        assert_eq!(a, parse(br#""\uD800""#).unwrap().value);
    }

    #[test]
    fn the_scanner_and_the_reader_share_one_depth_limit() {
        let nest = |n: usize| "{\"a\":".repeat(n) + "1" + &"}".repeat(n);
        assert!(scan_entry(nest(MAX_DEPTH).as_bytes()).is_some());
        assert!(parse(nest(MAX_DEPTH).as_bytes()).is_ok());
        assert!(scan_entry(nest(MAX_DEPTH + 1).as_bytes()).is_none());
        assert_eq!(
            parse(nest(MAX_DEPTH + 1).as_bytes()).unwrap_err(),
            ParseError::TooDeep
        );
        let arrays = |n: usize| format!("{{\"a\":{}{}}}", "[".repeat(n - 1), "]".repeat(n - 1));
        assert!(scan_entry(arrays(MAX_DEPTH).as_bytes()).is_some());
        assert!(scan_entry(arrays(MAX_DEPTH + 1).as_bytes()).is_none());
        assert_eq!(
            parse(arrays(MAX_DEPTH + 1).as_bytes()).unwrap_err(),
            ParseError::TooDeep
        );
    }

    #[test]
    fn entry_dump_marks_the_entry_id_member() {
        for line in [
            r#"{"a":"b","entry_id":"x","seq":1}"#,
            r#"{"entry_id":"x","seq":1}"#,
            r#"{"a":1,"entry_id":"x"}"#,
            r#"{"entry_id":"x"}"#,
            r#"{"a":1}"#,
        ] {
            let parsed = parse(line.as_bytes()).unwrap();
            let object = parsed.value.as_object().unwrap();
            let mut full = Vec::new();
            let range = dump_entry(object, &mut full).unwrap();
            assert_eq!(full, line.as_bytes());
            let mut core = Vec::new();
            dump_object_except(object, Some("entry_id"), &mut core).unwrap();
            let mut cut = full.clone();
            if let Some(r) = range {
                cut.drain(r);
            }
            assert_eq!(cut, core, "{line}");
        }
    }

    #[test]
    fn core_dump_leaves_out_one_key() {
        let parsed = parse(br#"{"seq":1,"entry_id":"x","a":"b"}"#).unwrap();
        let mut out = Vec::new();
        dump_object_except(
            parsed.value.as_object().unwrap(),
            Some("entry_id"),
            &mut out,
        )
        .unwrap();
        assert_eq!(out, br#"{"a":"b","seq":1}"#.to_vec());
    }
}
