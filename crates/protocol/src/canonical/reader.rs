//! Reading a line as JSON, keeping what the canonical form needs (docs/protocol.md#canonical-form).

use std::borrow::Cow;
use std::collections::HashMap;

use super::writer::find_special;
use super::{LoneStr, MAX_DEPTH, MAX_SAFE, NotAdmitted, Object, ParseError, Parsed, Value};

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
                                            // A high and a low surrogate always make a scalar value.
                                            out.push(char::from_u32(c).unwrap_or('\u{FFFD}'));
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
                                // Outside the surrogates, every BMP unit is a scalar value.
                                _ => {
                                    out.push(char::from_u32(u32::from(unit)).unwrap_or('\u{FFFD}'))
                                }
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
                    let Some(c) = self.text[self.pos..].chars().next() else {
                        return Err(self.syntax("a complete string"));
                    };
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
                // The reader has checked every escape; U+FFFD keeps this total regardless.
                u16::from_str_radix(&hex, 16).unwrap_or(0xFFFD)
            }
            _ => 0xFFFD,
        };
        units.push(unit);
    }
    units
}
