//! Reading a line as JSON, keeping what the canonical form needs (docs/protocol.md#canonical-form).

use std::borrow::Cow;

use super::writer::find_special;
use super::{MAX_DEPTH, MAX_SAFE, NotAdmitted, Object, ParseError, Parsed, Value};

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
        loop {
            self.skip_ws();
            if self.bytes.get(self.pos) != Some(&b'"') {
                return Err(self.syntax("a string key"));
            }
            let key = match self.string()? {
                Value::Str(s) => s,
                Value::LoneSurrogateStr(s) => Cow::Owned(s),
                _ => unreachable!("string() returns strings"),
            };
            if !key.is_ascii() {
                self.note(NotAdmitted::NonAsciiKey);
            }
            self.skip_ws();
            self.eat(b':', "':'")?;
            self.skip_ws();
            let value = self.value(depth)?;
            // Keys arriving in strictly increasing order cannot repeat one already seen (every
            // canonical line): only an out-of-order key needs the scan.
            let ascending = object
                .members
                .last()
                .is_none_or(|(last, _)| last.as_bytes() < key.as_bytes());
            if ascending {
                object.members.push((key, value));
            } else {
                match object.members.iter_mut().find(|(k, _)| *k == key) {
                    Some((_, old)) => {
                        if self.duplicate_key.is_none() {
                            self.duplicate_key = Some(key.into_owned());
                        }
                        *old = value;
                    }
                    None => object.members.push((key, value)),
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
            Ok(Value::LoneSurrogateStr(out))
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
