//! A sha256 digest as the ledger writes it: 32 bytes, shown and read as 64 lowercase hex
//! (docs/protocol.md#canonical-form).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use sha2::{Digest as _, Sha256};

/// A sha256 digest. Parsed from exactly 64 lowercase hex characters (uppercase is refused: the
/// ledger writes one spelling, and a second would make two texts of one digest); displayed and
/// serialized as the same 64 lowercase hex.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Digest(pub [u8; 32]);

impl Digest {
    /// The sha256 of `bytes`.
    pub fn of(bytes: &[u8]) -> Digest {
        Digest(Sha256::digest(bytes).into())
    }

    /// The 64 lowercase hex characters, on the stack: the verifier's fast path compares a
    /// line's stated text with them without parsing it.
    pub fn hex(&self) -> [u8; 64] {
        let mut out = [0u8; 64];
        // 32 bytes fill 64 characters exactly: the only error `hex` names is a wrong length.
        let _ = hex::encode_to_slice(self.0, &mut out);
        out
    }

    /// True when `s` is a digest as the ledger writes it (64 lowercase hex characters).
    pub fn is_hex(s: &str) -> bool {
        s.len() == 64 && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
    }
}

/// Why a text is not a digest.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NotADigest;

impl fmt::Display for NotADigest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("not a digest (64 lowercase hex characters)")
    }
}

impl std::error::Error for NotADigest {}

impl FromStr for Digest {
    type Err = NotADigest;

    fn from_str(s: &str) -> Result<Digest, NotADigest> {
        if !Digest::is_hex(s) {
            return Err(NotADigest);
        }
        let nibble = |c: u8| match c {
            b'0'..=b'9' => c - b'0',
            _ => c - b'a' + 10,
        };
        let mut out = [0u8; 32];
        for (byte, pair) in out.iter_mut().zip(s.as_bytes().chunks_exact(2)) {
            *byte = nibble(pair[0]) << 4 | nibble(pair[1]);
        }
        Ok(Digest(out))
    }
}

impl fmt::Display for Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The alphabet is ASCII.
        f.write_str(std::str::from_utf8(&self.hex()).map_err(|_| fmt::Error)?)
    }
}

impl fmt::Debug for Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Digest({self})")
    }
}

impl Serialize for Digest {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Digest {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Digest, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn of_is_sha256_and_round_trips() {
        let d = Digest::of(b"abc");
        let hex = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
        assert_eq!(d.to_string(), hex);
        assert_eq!(hex.parse::<Digest>(), Ok(d));
        assert_eq!(serde_json::to_string(&d).unwrap(), format!("\"{hex}\""));
        assert_eq!(
            serde_json::from_str::<Digest>(&format!("\"{hex}\"")).unwrap(),
            d
        );
    }

    #[test]
    fn only_64_lowercase_hex_parses() {
        let hex = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
        for bad in [
            hex.to_uppercase(),
            hex[..63].to_owned(),
            format!("{hex}0"),
            format!(" {}", &hex[1..]),
            hex.replace('b', "g"),
            String::new(),
        ] {
            assert_eq!(bad.parse::<Digest>(), Err(NotADigest), "{bad}");
            assert!(serde_json::from_str::<Digest>(&format!("\"{bad}\"")).is_err());
        }
    }
}
