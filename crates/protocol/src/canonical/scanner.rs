//! The fast path: proving a line is already canonical in one pass (docs/protocol.md#canonical-form).

use super::writer::find_special;
use super::{MAX_DEPTH, MAX_SAFE};

/// What [`scan_entry`] reads of a line it has found canonical.
#[derive(Debug, Default)]
pub struct EntryScan<'a> {
    pub seq: Option<i64>,
    pub schema: Option<&'a str>,
    pub prev: Option<&'a str>,
    pub entry_id: Option<&'a str>,
    pub timestamp: Option<&'a str>,
    pub day: Option<&'a str>,
    /// Not a chain field: read so that the build keeps a line's kind without its object.
    pub kind: Option<&'a str>,
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
                    // The line was checked as UTF-8; a failure here reads as "not canonical".
                    return if plain {
                        std::str::from_utf8(raw).ok().map(Some)
                    } else {
                        Some(None)
                    };
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
                        b"schema" | b"prev" | b"entry_id" | b"timestamp" | b"day" | b"kind"
                            if self.peek() == Some(b'"') =>
                        {
                            let text = self.string()?;
                            let slot = match key {
                                b"schema" => &mut scan.schema,
                                b"prev" => &mut scan.prev,
                                b"entry_id" => &mut scan.entry_id,
                                b"timestamp" => &mut scan.timestamp,
                                b"kind" => &mut scan.kind,
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
    use crate::canonical::{parse, to_canonical};

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
