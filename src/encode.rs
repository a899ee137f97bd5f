//! The one copy of each encoding the outputs share: pretty JSON files, UTC timestamps, base64,
//! and a count with its denominator (docs/protocol.md#determinism).

use serde::Serialize;

/// A count with its denominator, written `{"count": n, "of": d}`: every published count says
/// what it is a count of (docs/protocol.md#publication).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Count {
    pub count: usize,
    pub of: usize,
}

/// `count` of `of`.
pub fn of(count: usize, of: usize) -> Count {
    Count { count, of }
}

/// A JSON file as the exhibit writes it: pretty, with a final LF.
pub fn pretty<T: serde::Serialize + ?Sized>(value: &T) -> Vec<u8> {
    // Values and derive(Serialize) structs with string keys: serialising cannot fail.
    let mut bytes = serde_json::to_vec_pretty(value).unwrap_or_else(|_| b"null".to_vec());
    bytes.push(b'\n');
    bytes
}

/// `secs` since the epoch as `YYYY-MM-DDTHH:MM:SSZ`.
pub fn timestamp_of(secs: i64) -> String {
    let day = exhibit_protocol::days::civil_from_days(secs.div_euclid(86_400));
    let s = secs.rem_euclid(86_400);
    format!("{day}T{:02}:{:02}:{:02}Z", s / 3600, s % 3600 / 60, s % 60)
}

/// Standard base64 of `bytes`.
pub fn base64(bytes: &[u8]) -> String {
    let mut out = Vec::with_capacity(bytes.len().div_ceil(3) * 4);
    base64_into(bytes, &mut out);
    // The alphabet is ASCII, so every byte is a char.
    out.into_iter().map(char::from).collect()
}

/// Standard base64 of `bytes`, appended to `out`.
pub fn base64_into(bytes: &[u8], out: &mut Vec<u8>) {
    const T: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    out.reserve(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = (u32::from(chunk[0]) << 16)
            | (u32::from(*chunk.get(1).unwrap_or(&0)) << 8)
            | u32::from(*chunk.get(2).unwrap_or(&0));
        for i in 0..4 {
            out.push(if i <= chunk.len() {
                T[(n >> (18 - 6 * i)) as usize & 63]
            } else {
                b'='
            });
        }
    }
}

/// True when `value` is written with its keys in the order serde_json writes a `Value`'s
/// (sorted): a `derive(Serialize)` struct whose fields are not declared alphabetically would
/// change the bytes of a file that has always been written sorted.
#[cfg(test)]
pub fn keys_sorted<T: Serialize>(value: &T) -> bool {
    let direct = serde_json::to_string(value).ok();
    let via_value = serde_json::to_value(value)
        .ok()
        .and_then(|v| serde_json::to_string(&v).ok());
    direct.is_some() && direct == via_value
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_sorted_tells_declaration_order() {
        #[derive(Serialize)]
        struct Sorted {
            a: u8,
            b_c: u8,
            bc: u8,
        }
        #[derive(Serialize)]
        struct Unsorted {
            b: u8,
            a: u8,
        }
        assert!(keys_sorted(&Sorted {
            a: 1,
            b_c: 2,
            bc: 3
        }));
        assert!(!keys_sorted(&Unsorted { b: 1, a: 2 }));
    }
}
