//! The canonical form of a ledger line (protocol-v0 §2).
//!
//! A line's bytes must be the compact, key-sorted dump of its object. We read lines with our own
//! JSON reader rather than `serde_json::Value` because the protocol needs three things `Value`
//! throws away: a key written twice (`duplicate_key`), the difference between `2` and `2.0` or
//! `1e2`, and integers past 2^53 (a JCS crate casting through f64 turns 2^53+1 into 2^53 and the
//! line would wrongly re-derive). Strings borrow from the line when they hold no escape, so the
//! verifier allocates little per line.

use std::borrow::Cow;
use std::collections::HashMap;

use sha2::{Digest, Sha256};

/// Objects and arrays nested deeper than this are refused as `unparsable` (docs/verifier.md);
/// the limit keeps a hostile 100k-deep line from exhausting the stack.
pub const MAX_DEPTH: usize = 1000;

/// The largest admitted integer magnitude, 2^53 (§2: "integers with |n| ≤ 2^53").
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

/// A parsed line: its value and what the reader noticed on the way.
#[derive(Debug, Clone)]
pub struct Parsed<'a> {
    pub value: Value<'a>,
    /// The first key written twice, if any (at any depth).
    pub duplicate_key: Option<String>,
    /// The first reason the value cannot be canonicalised, if any.
    pub not_admitted: Option<NotAdmitted>,
}

/// Reads one JSON value spanning all of `bytes` (JSON whitespace around it allowed).
pub fn parse(bytes: &[u8]) -> Result<Parsed<'_>, ParseError> {
    let text = std::str::from_utf8(bytes).map_err(|e| ParseError::NotUtf8 {
        byte: e.valid_up_to(),
    })?;
    let mut reader = Reader {
        text,
        bytes,
        pos: 0,
        duplicate_key: None,
        not_admitted: None,
    };
    reader.skip_ws();
    let value = reader.value(0)?;
    reader.skip_ws();
    if reader.pos != bytes.len() {
        return Err(reader.syntax("end of line"));
    }
    Ok(Parsed {
        value,
        duplicate_key: reader.duplicate_key,
        not_admitted: reader.not_admitted,
    })
}

struct Reader<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
    duplicate_key: Option<String>,
    not_admitted: Option<NotAdmitted>,
}

impl<'a> Reader<'a> {
    fn syntax(&self, expected: &'static str) -> ParseError {
        ParseError::Syntax {
            byte: self.pos,
            expected,
        }
    }

    fn note(&mut self, why: NotAdmitted) {
        self.not_admitted.get_or_insert(why);
    }

    fn skip_ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.bytes.get(self.pos) {
            self.pos += 1;
        }
    }

    fn eat(&mut self, byte: u8, expected: &'static str) -> Result<(), ParseError> {
        if self.bytes.get(self.pos) == Some(&byte) {
            self.pos += 1;
            Ok(())
        } else {
            Err(self.syntax(expected))
        }
    }

    fn literal(&mut self, word: &'static str, value: Value<'a>) -> Result<Value<'a>, ParseError> {
        if self.bytes[self.pos..].starts_with(word.as_bytes()) {
            self.pos += word.len();
            Ok(value)
        } else {
            Err(self.syntax("a JSON value"))
        }
    }

    fn value(&mut self, depth: usize) -> Result<Value<'a>, ParseError> {
        match self.bytes.get(self.pos) {
            Some(b'{') => self.object(depth + 1),
            Some(b'[') => self.array(depth + 1),
            Some(b'"') => self.string(),
            Some(b't') => self.literal("true", Value::Bool(true)),
            Some(b'f') => self.literal("false", Value::Bool(false)),
            Some(b'n') => self.literal("null", Value::Null),
            Some(b'-' | b'0'..=b'9') => self.number(),
            _ => Err(self.syntax("a JSON value")),
        }
    }

    fn object(&mut self, depth: usize) -> Result<Value<'a>, ParseError> {
        if depth > MAX_DEPTH {
            return Err(ParseError::TooDeep);
        }
        self.pos += 1; // '{'
        let mut object = Object::default();
        self.skip_ws();
        if self.bytes.get(self.pos) == Some(&b'}') {
            self.pos += 1;
            return Ok(Value::Object(object));
        }
        // A key's identity is its UTF-8 bytes, or for a key holding a lone surrogate its UTF-16
        // units (never equal to a well-formed key): `"\ud800"` and `"\udc00"` are two keys, as
        // they are to `JSON.parse`. While keys arrive in strictly ascending order (every
        // canonical line) none can repeat one seen before; from the first key out of order on,
        // an index of every key seen finds a repeat in constant time. So an object of n keys is
        // read in O(n) whatever their order (docs/verifier.md "Reading a line").
        // Members whose key held a lone surrogate, with its units (rare: such a line is refused).
        let mut lone: Vec<(usize, Vec<u16>)> = Vec::new();
        let mut index: Option<HashMap<KeyId, usize>> = None;
        loop {
            self.skip_ws();
            if self.bytes.get(self.pos) != Some(&b'"') {
                return Err(self.syntax("a string key"));
            }
            let (key, units) = match self.string()? {
                Value::Str(s) => (s, None),
                Value::LoneSurrogateStr(s) => (Cow::Owned(s.lossy), Some(s.units)),
                _ => unreachable!("string() returns strings"),
            };
            if !key.is_ascii() {
                self.note(NotAdmitted::NonAsciiKey);
            }
            self.skip_ws();
            self.eat(b':', "':'")?;
            self.skip_ws();
            let value = self.value(depth)?;
            let new = KeyRef::of(&key, units.as_deref());
            let n = object.members.len();
            let ascending = index.is_none() && (n == 0 || key_ref(&object, &lone, n - 1) < new);
            if ascending {
                if let Some(units) = units {
                    lone.push((n, units));
                }
                object.members.push((key, value));
            } else {
                let index = index.get_or_insert_with(|| {
                    let mut map = HashMap::with_capacity(2 * n + 2);
                    for i in 0..n {
                        map.insert(key_ref(&object, &lone, i).to_owned(), i);
                    }
                    map
                });
                let id = KeyRef::of(&key, units.as_deref()).to_owned();
                match index.get(&id) {
                    Some(&at) => {
                        if self.duplicate_key.is_none() {
                            self.duplicate_key = Some(key.into_owned());
                        }
                        object.members[at].1 = value;
                    }
                    None => {
                        index.insert(id, n);
                        if let Some(units) = units {
                            lone.push((n, units));
                        }
                        object.members.push((key, value));
                    }
                }
            }
            self.skip_ws();
            match self.bytes.get(self.pos) {
                Some(b',') => self.pos += 1,
                Some(b'}') => {
                    self.pos += 1;
                    return Ok(Value::Object(object));
                }
                _ => return Err(self.syntax("',' or '}'")),
            }
        }
    }

    fn array(&mut self, depth: usize) -> Result<Value<'a>, ParseError> {
        if depth > MAX_DEPTH {
            return Err(ParseError::TooDeep);
        }
        self.pos += 1; // '['
        let mut items = Vec::new();
        self.skip_ws();
        if self.bytes.get(self.pos) == Some(&b']') {
            self.pos += 1;
            return Ok(Value::Array(items));
        }
        loop {
            self.skip_ws();
            items.push(self.value(depth)?);
            self.skip_ws();
            match self.bytes.get(self.pos) {
                Some(b',') => self.pos += 1,
                Some(b']') => {
                    self.pos += 1;
                    return Ok(Value::Array(items));
                }
                _ => return Err(self.syntax("',' or ']'")),
            }
        }
    }

    fn number(&mut self) -> Result<Value<'a>, ParseError> {
        let start = self.pos;
        if self.bytes[self.pos] == b'-' {
            self.pos += 1;
        }
        match self.bytes.get(self.pos) {
            Some(b'0') => self.pos += 1,
            Some(b'1'..=b'9') => {
                while let Some(b'0'..=b'9') = self.bytes.get(self.pos) {
                    self.pos += 1;
                }
            }
            _ => return Err(self.syntax("a digit")),
        }
        let int_end = self.pos;
        if self.bytes.get(self.pos) == Some(&b'.') {
            self.pos += 1;
            self.digits()?;
        }
        if let Some(b'e' | b'E') = self.bytes.get(self.pos) {
            self.pos += 1;
            if let Some(b'+' | b'-') = self.bytes.get(self.pos) {
                self.pos += 1;
            }
            self.digits()?;
        }
        let raw = &self.text[start..self.pos];
        if int_end == self.pos && raw != "-0" {
            // At most 17 characters fit ±2^53 (16 digits and a sign); longer is never admitted.
            if raw.len() <= 17
                && let Ok(n) = raw.parse::<i64>()
                && n.abs() <= MAX_SAFE
            {
                return Ok(Value::Int(n));
            }
        }
        self.note(NotAdmitted::Number);
        Ok(Value::OtherNumber(Cow::Borrowed(raw)))
    }

    fn digits(&mut self) -> Result<(), ParseError> {
        let start = self.pos;
        while let Some(b'0'..=b'9') = self.bytes.get(self.pos) {
            self.pos += 1;
        }
        if self.pos == start {
            Err(self.syntax("a digit"))
        } else {
            Ok(())
        }
    }

    fn string(&mut self) -> Result<Value<'a>, ParseError> {
        self.pos += 1; // opening quote
        let start = self.pos;
        // Fast path: no escape in the string, borrow it from the line.
        match find_special(&self.bytes[start..]) {
            None => {
                self.pos = self.bytes.len();
                return Err(self.syntax("'\"'"));
            }
            Some(at) => {
                self.pos = start + at;
                match self.bytes[self.pos] {
                    b'"' => {
                        let s = &self.text[start..self.pos];
                        self.pos += 1;
                        return Ok(Value::Str(Cow::Borrowed(s)));
                    }
                    b'\\' => {}
                    _ => return Err(self.syntax("no raw control character")),
                }
            }
        }
        let mut out = String::from(&self.text[start..self.pos]);
        let mut lone = false;
        loop {
            match self.bytes.get(self.pos) {
                None => return Err(self.syntax("'\"'")),
                Some(b'"') => {
                    self.pos += 1;
                    break;
                }
                Some(b'\\') => {
                    self.pos += 1;
                    let Some(&esc) = self.bytes.get(self.pos) else {
                        return Err(self.syntax("an escape"));
                    };
                    self.pos += 1;
                    match esc {
                        b'"' => out.push('"'),
                        b'\\' => out.push('\\'),
                        b'/' => out.push('/'),
                        b'b' => out.push('\u{8}'),
                        b'f' => out.push('\u{c}'),
                        b'n' => out.push('\n'),
                        b'r' => out.push('\r'),
                        b't' => out.push('\t'),
                        b'u' => {
                            let unit = self.hex4()?;
                            match unit {
                                0xD800..=0xDBFF => {
                                    // A high surrogate pairs only with an escaped low one.
                                    let rest = &self.bytes[self.pos..];
                                    if rest.len() >= 6 && rest[0] == b'\\' && rest[1] == b'u' {
                                        let save = self.pos;
                                        self.pos += 2;
                                        let low = self.hex4()?;
                                        if (0xDC00..=0xDFFF).contains(&low) {
                                            let c = 0x10000
                                                + ((u32::from(unit) - 0xD800) << 10)
                                                + (u32::from(low) - 0xDC00);
                                            out.push(char::from_u32(c).expect("valid pair"));
                                            continue;
                                        }
                                        self.pos = save;
                                    }
                                    lone = true;
                                    out.push('\u{FFFD}');
                                }
                                0xDC00..=0xDFFF => {
                                    lone = true;
                                    out.push('\u{FFFD}');
                                }
                                _ => out.push(char::from_u32(u32::from(unit)).expect("BMP")),
                            }
                        }
                        _ => {
                            self.pos -= 1;
                            return Err(self.syntax("a valid escape"));
                        }
                    }
                }
                Some(&b) if b < 0x20 => return Err(self.syntax("no raw control character")),
                Some(_) => {
                    // Copy one whole UTF-8 character (the line is valid UTF-8).
                    let c = self.text[self.pos..].chars().next().expect("in bounds");
                    out.push(c);
                    self.pos += c.len_utf8();
                }
            }
        }
        if lone {
            self.note(NotAdmitted::LoneSurrogate);
            let units = utf16_units(&self.text[start..self.pos - 1]);
            Ok(Value::LoneSurrogateStr(LoneStr { lossy: out, units }))
        } else {
            Ok(Value::Str(Cow::Owned(out)))
        }
    }

    fn hex4(&mut self) -> Result<u16, ParseError> {
        let Some(hex) = self.bytes.get(self.pos..self.pos + 4) else {
            return Err(self.syntax("four hex digits"));
        };
        let mut unit = 0u16;
        for &h in hex {
            let d = (h as char)
                .to_digit(16)
                .ok_or_else(|| self.syntax("four hex digits"))?;
            unit = unit * 16 + d as u16;
        }
        self.pos += 4;
        Ok(unit)
    }
}

/// A key's identity, borrowed: its UTF-8 bytes, or the UTF-16 units of a key holding a lone
/// surrogate. The order is only used to see that keys are strictly ascending (so none repeats).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum KeyRef<'k> {
    Utf8(&'k [u8]),
    Utf16(&'k [u16]),
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum KeyId {
    Utf8(Vec<u8>),
    Utf16(Vec<u16>),
}

impl<'k> KeyRef<'k> {
    fn of(key: &'k str, units: Option<&'k [u16]>) -> Self {
        match units {
            Some(u) => KeyRef::Utf16(u),
            None => KeyRef::Utf8(key.as_bytes()),
        }
    }

    fn to_owned(self) -> KeyId {
        match self {
            KeyRef::Utf8(b) => KeyId::Utf8(b.to_vec()),
            KeyRef::Utf16(u) => KeyId::Utf16(u.to_vec()),
        }
    }
}

/// The identity of member `i`; `lone` lists the members whose key held a lone surrogate, in
/// member order.
fn key_ref<'k>(object: &'k Object<'_>, lone: &'k [(usize, Vec<u16>)], i: usize) -> KeyRef<'k> {
    match lone.binary_search_by_key(&i, |(at, _)| *at) {
        Ok(j) => KeyRef::Utf16(&lone[j].1),
        Err(_) => KeyRef::Utf8(object.members[i].0.as_bytes()),
    }
}

/// The UTF-16 code units of a JSON string's contents as written (escapes decoded, a surrogate
/// escape kept as its unit): the identity `JSON.parse` gives the string.
fn utf16_units(raw: &str) -> Vec<u16> {
    let mut units = Vec::with_capacity(raw.len());
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            let mut buf = [0u16; 2];
            units.extend_from_slice(c.encode_utf16(&mut buf));
            continue;
        }
        let unit = match chars.next() {
            Some('"') => b'"' as u16,
            Some('\\') => b'\\' as u16,
            Some('/') => b'/' as u16,
            Some('b') => 8,
            Some('f') => 12,
            Some('n') => 10,
            Some('r') => 13,
            Some('t') => 9,
            Some('u') => {
                let hex: String = chars.by_ref().take(4).collect();
                u16::from_str_radix(&hex, 16).expect("the reader checked the escape")
            }
            _ => unreachable!("the reader checked the escape"),
        };
        units.push(unit);
    }
    units
}

/// Appends the canonical dump of `value` (§2) to `out`.
pub fn dump(value: &Value<'_>, out: &mut Vec<u8>) -> Result<(), NotAdmitted> {
    match value {
        Value::Null => out.extend_from_slice(b"null"),
        Value::Bool(true) => out.extend_from_slice(b"true"),
        Value::Bool(false) => out.extend_from_slice(b"false"),
        Value::Int(n) => {
            if n.abs() > MAX_SAFE {
                return Err(NotAdmitted::Number);
            }
            let mut buf = itoa_buf(*n);
            out.append(&mut buf);
        }
        Value::OtherNumber(_) => return Err(NotAdmitted::Number),
        Value::Str(s) => dump_str(s, out),
        Value::LoneSurrogateStr(_) => return Err(NotAdmitted::LoneSurrogate),
        Value::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                dump(item, out)?;
            }
            out.push(b']');
        }
        Value::Object(object) => dump_object_except(object, None, out)?,
    }
    Ok(())
}

/// Appends the canonical dump of `object` without the member named `except` — the core of an
/// entry is the entry minus `entry_id` (§3).
pub fn dump_object_except(
    object: &Object<'_>,
    except: Option<&str>,
    out: &mut Vec<u8>,
) -> Result<(), NotAdmitted> {
    // Keys sort by code point; keys are ASCII (checked below), so bytewise order is that order.
    let mut order: Vec<usize> = (0..object.members.len())
        .filter(|&i| Some(object.members[i].0.as_ref()) != except)
        .collect();
    order.sort_unstable_by(|&a, &b| {
        object.members[a]
            .0
            .as_bytes()
            .cmp(object.members[b].0.as_bytes())
    });
    out.push(b'{');
    for (n, &i) in order.iter().enumerate() {
        let (key, value) = &object.members[i];
        if !key.is_ascii() {
            return Err(NotAdmitted::NonAsciiKey);
        }
        if n > 0 {
            out.push(b',');
        }
        dump_str(key, out);
        out.push(b':');
        dump(value, out)?;
    }
    out.push(b'}');
    Ok(())
}

/// Appends the canonical dump of an entry and returns the byte range (relative to where the
/// dump began) that removing yields the dump of its core — the `entry_id` member with one
/// adjacent comma (§3: `core` is every key except `entry_id`). `None` when there is no entry_id.
/// One dump serves both the canonical-bytes check and the digest.
pub fn dump_entry(
    object: &Object<'_>,
    out: &mut Vec<u8>,
) -> Result<Option<std::ops::Range<usize>>, NotAdmitted> {
    let base = out.len();
    let mut order: Vec<usize> = (0..object.members.len()).collect();
    order.sort_unstable_by(|&a, &b| {
        object.members[a]
            .0
            .as_bytes()
            .cmp(object.members[b].0.as_bytes())
    });
    let mut range = None;
    out.push(b'{');
    for (n, &i) in order.iter().enumerate() {
        let (key, value) = &object.members[i];
        if !key.is_ascii() {
            return Err(NotAdmitted::NonAsciiKey);
        }
        let member_start = out.len();
        if n > 0 {
            out.push(b',');
        }
        dump_str(key, out);
        out.push(b':');
        dump(value, out)?;
        if key == "entry_id" {
            range = Some(if n > 0 {
                member_start - base..out.len() - base
            } else if order.len() > 1 {
                // First member: take the comma that follows it instead.
                member_start - base..out.len() - base + 1
            } else {
                member_start - base..out.len() - base
            });
        }
    }
    out.push(b'}');
    Ok(range)
}

/// The canonical dump as a fresh byte vector.
pub fn to_canonical(value: &Value<'_>) -> Result<Vec<u8>, NotAdmitted> {
    let mut out = Vec::with_capacity(256);
    dump(value, &mut out)?;
    Ok(out)
}

fn itoa_buf(n: i64) -> Vec<u8> {
    n.to_string().into_bytes()
}

/// The index of the first byte that is `"`, `\\` or below 0x20 — the bytes a JSON string
/// cannot hold raw. Eight bytes at a time (SWAR): this scan is the verifier's hottest loop.
fn find_special(bytes: &[u8]) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let has_zero = |v: u64| v.wrapping_sub(ONES) & !v & HIGHS;
    let mut i = 0;
    while i + 8 <= bytes.len() {
        let x = u64::from_le_bytes(bytes[i..i + 8].try_into().expect("8 bytes"));
        let below_0x20 = x.wrapping_sub(ONES * 0x20) & !x & HIGHS;
        let quote = has_zero(x ^ (ONES * u64::from(b'"')));
        let backslash = has_zero(x ^ (ONES * u64::from(b'\\')));
        if below_0x20 | quote | backslash != 0 {
            break; // the exact byte is found by the plain loop below
        }
        i += 8;
    }
    bytes[i..]
        .iter()
        .position(|&b| b < 0x20 || b == b'"' || b == b'\\')
        .map(|p| p + i)
}

/// Escapes exactly `"`, `\` and U+0000–U+001F (§2); everything else stays raw UTF-8.
fn dump_str(s: &str, out: &mut Vec<u8>) {
    out.push(b'"');
    let bytes = s.as_bytes();
    // Most strings need no escape: one scan, one copy.
    if find_special(bytes).is_none() {
        out.extend_from_slice(bytes);
        out.push(b'"');
        return;
    }
    let mut run_start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let short: &[u8] = match b {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            0x08 => b"\\b",
            0x0c => b"\\f",
            b'\n' => b"\\n",
            b'\r' => b"\\r",
            b'\t' => b"\\t",
            0x00..=0x1f => b"",
            _ => continue,
        };
        out.extend_from_slice(&bytes[run_start..i]);
        if short.is_empty() {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            out.extend_from_slice(b"\\u00");
            out.push(HEX[(b >> 4) as usize]);
            out.push(HEX[(b & 0xf) as usize]);
        } else {
            out.extend_from_slice(short);
        }
        run_start = i + 1;
    }
    out.extend_from_slice(&bytes[run_start..]);
    out.push(b'"');
}

/// sha256 of `bytes` as 64 lowercase hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// Lowercase hex of `bytes`.
pub fn hex(bytes: &[u8]) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut out = Vec::with_capacity(bytes.len() * 2);
    for &b in bytes {
        out.push(HEX[(b >> 4) as usize]);
        out.push(HEX[(b & 0xf) as usize]);
    }
    String::from_utf8(out).expect("hex is ASCII")
}

/// True when `s` is exactly 64 lowercase hex characters (a digest as the ledger writes it).
pub fn is_digest(s: &str) -> bool {
    s.len() == 64 && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

#[cfg(test)]
mod tests {
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

/// What [`scan_entry`] reads of a line it has found canonical.
#[derive(Debug, Default)]
pub struct EntryScan<'a> {
    pub seq: Option<i64>,
    pub schema: Option<&'a str>,
    pub prev: Option<&'a str>,
    pub entry_id: Option<&'a str>,
    pub timestamp: Option<&'a str>,
    pub day: Option<&'a str>,
    /// The `entry_id` member with one adjacent comma: removing it leaves the core's dump.
    pub entry_id_range: Option<std::ops::Range<usize>>,
}

/// The verifier's fast path: one pass over a line that proves it is *already* the canonical
/// dump of an admitted object (so parsing, re-dumping and comparing would change nothing), and
/// reads the chain fields on the way. `None` means "not proven": the caller takes the full
/// reader, which finds and words whatever is wrong. Conservative on purpose: a key with an
/// escape or a non-ASCII byte, or a chain field that is not a plain string, is left to the full
/// reader.
pub fn scan_entry(bytes: &[u8]) -> Option<EntryScan<'_>> {
    std::str::from_utf8(bytes).ok()?;
    let mut scan = EntryScan::default();
    let mut s = Scanner { b: bytes, pos: 0 };
    // The root object is depth 1, as in the full reader: 1000 levels pass, 1001 do not.
    s.object(1, Some(&mut scan))?;
    (s.pos == bytes.len()).then_some(scan)
}

struct Scanner<'a> {
    b: &'a [u8],
    pos: usize,
}

impl<'a> Scanner<'a> {
    fn peek(&self) -> Option<u8> {
        self.b.get(self.pos).copied()
    }

    fn eat(&mut self, c: u8) -> Option<()> {
        (self.peek()? == c).then(|| self.pos += 1)
    }

    fn value(&mut self, depth: usize) -> Option<()> {
        match self.peek()? {
            b'{' => self.object(depth + 1, None),
            b'[' => self.array(depth + 1),
            b'"' => self.string().map(|_| ()),
            b't' => self.word(b"true"),
            b'f' => self.word(b"false"),
            b'n' => self.word(b"null"),
            _ => self.integer().map(|_| ()),
        }
    }

    fn word(&mut self, w: &[u8]) -> Option<()> {
        self.b[self.pos..]
            .starts_with(w)
            .then(|| self.pos += w.len())
    }

    /// An integer in canonical form within ±2^53 (no `-0`, no leading zero, no fraction).
    fn integer(&mut self) -> Option<i64> {
        let start = self.pos;
        let negative = self.eat(b'-').is_some();
        let digits_start = self.pos;
        while let Some(b'0'..=b'9') = self.peek() {
            self.pos += 1;
        }
        let digits = &self.b[digits_start..self.pos];
        if digits.is_empty()
            || (digits[0] == b'0' && (digits.len() > 1 || negative))
            || digits.len() > 16
            || matches!(self.peek(), Some(b'.' | b'e' | b'E'))
        {
            return None;
        }
        let n: i64 = std::str::from_utf8(&self.b[start..self.pos])
            .ok()?
            .parse()
            .ok()?;
        (n.abs() <= MAX_SAFE).then_some(n)
    }

    /// A string in canonical form; returns its raw contents when it holds no escape.
    fn string(&mut self) -> Option<Option<&'a str>> {
        self.eat(b'"')?;
        let start = self.pos;
        let mut plain = true;
        loop {
            let at = find_special(&self.b[self.pos..])?;
            self.pos += at;
            match self.b[self.pos] {
                b'"' => {
                    let raw = &self.b[start..self.pos];
                    self.pos += 1;
                    return Some(plain.then(|| std::str::from_utf8(raw).expect("checked")));
                }
                b'\\' => {
                    plain = false;
                    let esc = *self.b.get(self.pos + 1)?;
                    match esc {
                        b'"' | b'\\' | b'b' | b'f' | b'n' | b'r' | b't' => self.pos += 2,
                        b'u' => {
                            // Canonical only for the control characters without a short form,
                            // in lower case.
                            let hex = self.b.get(self.pos + 2..self.pos + 6)?;
                            if &hex[..2] != b"00" {
                                return None;
                            }
                            let v = u8::from_str_radix(std::str::from_utf8(&hex[2..]).ok()?, 16)
                                .ok()?;
                            let lower = hex[2..].iter().all(|c| !c.is_ascii_uppercase());
                            if v >= 0x20 || matches!(v, 0x08 | 0x09 | 0x0a | 0x0c | 0x0d) || !lower
                            {
                                return None;
                            }
                            self.pos += 6;
                        }
                        _ => return None,
                    }
                }
                _ => return None, // a raw control character
            }
        }
    }

    fn array(&mut self, depth: usize) -> Option<()> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.eat(b'[')?;
        if self.eat(b']').is_some() {
            return Some(());
        }
        loop {
            self.value(depth)?;
            match self.peek()? {
                b',' => self.pos += 1,
                b']' => {
                    self.pos += 1;
                    return Some(());
                }
                _ => return None,
            }
        }
    }

    fn object(&mut self, depth: usize, mut top: Option<&mut EntryScan<'a>>) -> Option<()> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.eat(b'{')?;
        if self.eat(b'}').is_some() {
            return Some(());
        }
        let mut last_key: Option<&[u8]> = None;
        loop {
            let member_start = self.pos;
            let key = self.string()?.filter(|k| k.is_ascii())?.as_bytes();
            // Strictly ascending keys: sorted, and none written twice.
            if last_key.is_some_and(|last| last >= key) {
                return None;
            }
            last_key = Some(key);
            self.eat(b':')?;
            match top.as_deref_mut() {
                Some(scan) => {
                    let value_start = self.pos;
                    match key {
                        b"seq" => scan.seq = Some(self.integer()?),
                        b"schema" | b"prev" | b"entry_id" | b"timestamp" | b"day"
                            if self.peek() == Some(b'"') =>
                        {
                            let text = self.string()?;
                            let slot = match key {
                                b"schema" => &mut scan.schema,
                                b"prev" => &mut scan.prev,
                                b"entry_id" => &mut scan.entry_id,
                                b"timestamp" => &mut scan.timestamp,
                                _ => &mut scan.day,
                            };
                            *slot = Some(text?);
                        }
                        _ => self.value(depth)?,
                    }
                    if key == b"entry_id" {
                        let _ = value_start;
                        // With the comma before it, or (as the first member) the one after.
                        scan.entry_id_range = Some(if member_start > 1 {
                            member_start - 1..self.pos
                        } else {
                            member_start..self.pos + usize::from(self.peek() == Some(b','))
                        });
                    }
                }
                None => self.value(depth)?,
            }
            match self.peek()? {
                b',' => self.pos += 1,
                b'}' => {
                    self.pos += 1;
                    return Some(());
                }
                _ => return None,
            }
        }
    }
}

#[cfg(test)]
mod scan_tests {
    use super::*;

    /// The scanner may say "not proven" where the full reader finds the line canonical, but never
    /// the reverse: every line it accepts re-dumps to itself.
    fn agrees(line: &str) {
        let full = parse(line.as_bytes()).ok().and_then(|p| {
            (p.duplicate_key.is_none() && p.not_admitted.is_none())
                .then(|| to_canonical(&p.value).ok())
                .flatten()
                .map(|d| d == line.as_bytes())
        });
        if scan_entry(line.as_bytes()).is_some() {
            assert_eq!(
                full,
                Some(true),
                "scanner accepted a non-canonical line: {line}"
            );
        }
    }

    #[test]
    fn accepts_only_canonical_lines() {
        for line in [
            r#"{"a":1,"b":[true,false,null,"x",{"c":-5}],"entry_id":"e","seq":3}"#,
            r#"{"b":1,"a":2}"#,
            r#"{"a":1,"a":1}"#,
            r#"{"a": 1}"#,
            r#"{"a":1.5}"#,
            r#"{"a":2.0}"#,
            r#"{"a":1e2}"#,
            r#"{"a":-0}"#,
            r#"{"a":01}"#,
            r#"{"a":9007199254740993}"#,
            r#"{"a":9007199254740992}"#,
            r#"{"a":"\/"}"#,
            r#"{"a":"\u001F"}"#,
            r#"{"a":"\u001f"}"#,
            r#"{"a":"\u0009"}"#,
            r#"{"a":"\u00e9"}"#,
            r#"{"a":"\ud800"}"#,
            "{\"a\":\"\u{2028}\"}",
            r#"{"é":1}"#,
            r#"{"a":{"y":1,"x":2}}"#,
            r#"{"a":[1,]}"#,
            r#"{}"#,
            r#"{"a":1}x"#,
        ] {
            agrees(line);
        }
        assert!(
            scan_entry(br#"{"a":1,"b":[true,false,null,"x",{"c":-5}],"entry_id":"e","seq":3}"#)
                .is_some()
        );
        assert!(scan_entry(br#"{"a":"\u001f"}"#).is_some());
        assert!(scan_entry(br#"{"a":"\u001F"}"#).is_none());
        assert!(scan_entry(br#"{"a":9007199254740993}"#).is_none());
    }

    /// The fast path must take every canonical shape it claims, or `exhibit verify` silently
    /// falls back to the full reader (same answers, lost speed): zero, 16-digit integers, a chain
    /// field that is not a string, `entry_id` as the last member.
    #[test]
    fn takes_the_canonical_shapes_it_claims() {
        for line in [
            br#"{"a":0,"b":-1}"#.as_slice(),
            br#"{"a":1234567890123456,"b":-9007199254740992}"#,
            br#"{"day":5,"prev":null,"seq":1}"#,
        ] {
            agrees(std::str::from_utf8(line).unwrap());
            assert!(
                scan_entry(line).is_some(),
                "{}",
                String::from_utf8_lossy(line)
            );
        }
        let scan = scan_entry(br#"{"day":5,"prev":null,"seq":1}"#).unwrap();
        assert_eq!((scan.day, scan.prev, scan.seq), (None, None, Some(1)));
        let last = r#"{"a":1,"entry_id":"abc"}"#;
        let r = scan_entry(last.as_bytes()).unwrap().entry_id_range.unwrap();
        let mut cut = last.as_bytes().to_vec();
        cut.drain(r);
        assert_eq!(cut, br#"{"a":1}"#);
    }

    #[test]
    fn reads_the_chain_fields_and_the_entry_id_member() {
        let line = r#"{"day":"2026-10-24","entry_id":"abc","kind":"x","prev":"p","schema":"s","seq":7,"timestamp":"t"}"#;
        let scan = scan_entry(line.as_bytes()).unwrap();
        assert_eq!(scan.seq, Some(7));
        assert_eq!(
            (
                scan.day,
                scan.entry_id,
                scan.prev,
                scan.schema,
                scan.timestamp
            ),
            (
                Some("2026-10-24"),
                Some("abc"),
                Some("p"),
                Some("s"),
                Some("t")
            )
        );
        let r = scan.entry_id_range.unwrap();
        let mut cut = line.as_bytes().to_vec();
        cut.drain(r);
        assert_eq!(
            String::from_utf8(cut).unwrap(),
            r#"{"day":"2026-10-24","kind":"x","prev":"p","schema":"s","seq":7,"timestamp":"t"}"#
        );
        let first = r#"{"entry_id":"abc","kind":"x"}"#;
        let r = scan_entry(first.as_bytes())
            .unwrap()
            .entry_id_range
            .unwrap();
        let mut cut = first.as_bytes().to_vec();
        cut.drain(r);
        assert_eq!(cut, br#"{"kind":"x"}"#);
    }
}
