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

/// The size and sha256 of [`pretty`]`(value)`, its bytes hashed as they are written and never
/// held: a witness index part is up to 32 MiB, made once for these two and again only when
/// written (docs/scale.md#names-not-held).
pub fn pretty_len_and_sha256<T: serde::Serialize + ?Sized>(
    value: &T,
) -> (u64, exhibit_protocol::Digest) {
    use sha2::Digest as _;
    use std::io::Write;
    /// Hashes and counts what is written into it.
    struct Sink {
        len: u64,
        hasher: sha2::Sha256,
    }
    impl Write for Sink {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.hasher.update(buf);
            self.len += buf.len() as u64;
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut sink = std::io::BufWriter::with_capacity(
        1 << 16,
        Sink {
            len: 0,
            hasher: sha2::Sha256::new(),
        },
    );
    let written = serde_json::to_writer_pretty(&mut sink, value)
        .map_err(std::io::Error::from)
        .and_then(|()| sink.write_all(b"\n"))
        .and_then(|()| sink.into_inner().map_err(|e| e.into_error()));
    match written {
        Ok(sink) => (
            sink.len,
            exhibit_protocol::Digest(sink.hasher.finalize().into()),
        ),
        // Serialising cannot fail (see `pretty`); were it to, the bytes `pretty` gives.
        Err(_) => {
            let bytes = pretty(value);
            (bytes.len() as u64, exhibit_protocol::Digest::of(&bytes))
        }
    }
}

/// `secs` since the epoch as `YYYY-MM-DDTHH:MM:SSZ`.
pub fn timestamp_of(secs: i64) -> String {
    let day = exhibit_protocol::days::civil_from_days(secs.div_euclid(86_400));
    let s = secs.rem_euclid(86_400);
    format!("{day}T{:02}:{:02}:{:02}Z", s / 3600, s % 3600 / 60, s % 60)
}

/// Standard base64 of `bytes` (the `base64` crate's engine, padded).
pub fn base64(bytes: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// Standard base64 of `bytes`, appended to `out` without a second copy: the page's data blocks
/// are written straight into the page's bytes.
pub fn base64_into(bytes: &[u8], out: &mut Vec<u8>) {
    use base64::Engine as _;
    let at = out.len();
    out.resize(at + base64::encoded_len(bytes.len(), true).unwrap_or(0), 0);
    let written = base64::engine::general_purpose::STANDARD
        .encode_slice(bytes, &mut out[at..])
        .unwrap_or(0);
    out.truncate(at + written);
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

    #[test]
    fn pretty_s_size_and_sha256_are_taken_without_its_bytes() {
        // Catches a hashing writer that drops the trailing LF, writes compact JSON where the
        // file is pretty, or loses what is written past its buffer (the value is larger).
        let big: Vec<serde_json::Value> = (0..20_000)
            .map(|i| serde_json::json!({"seq": i, "cut": i % 3 == 0, "at": "2026-12-03T18:00:00Z"}))
            .collect();
        assert!(
            pretty(&big).len() > 1 << 16,
            "larger than the writer's buffer"
        );
        for value in [
            serde_json::json!({}),
            serde_json::json!({"a": [1, 2]}),
            serde_json::json!(big),
        ] {
            let bytes = pretty(&value);
            assert_eq!(
                pretty_len_and_sha256(&value),
                (bytes.len() as u64, exhibit_protocol::Digest::of(&bytes))
            );
        }
    }
}
