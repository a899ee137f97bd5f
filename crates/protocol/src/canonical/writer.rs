//! Writing the canonical dump of a value (docs/protocol.md#canonical-form).

use super::{MAX_SAFE, NotAdmitted, Object, Value};

/// Appends the canonical dump of `value` (docs/protocol.md#canonical-form) to `out`.
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
/// entry is the entry minus `entry_id` (docs/protocol.md#chain).
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
/// adjacent comma (docs/protocol.md#chain: `core` is every key except `entry_id`). `None` when there is no entry_id.
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
pub(super) fn find_special(bytes: &[u8]) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let has_zero = |v: u64| v.wrapping_sub(ONES) & !v & HIGHS;
    let mut i = 0;
    while i + 8 <= bytes.len() {
        let mut word = [0u8; 8];
        word.copy_from_slice(&bytes[i..i + 8]);
        let x = u64::from_le_bytes(word);
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

/// Escapes exactly `"`, `\` and U+0000–U+001F (docs/protocol.md#canonical-form); everything else stays raw UTF-8.
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
