//! The one thing the publisher reads of an OpenTimestamps proof: its header and the digest it
//! commits to (docs/protocol.md#ots-header: it checks the magic, version and hash-op bytes and
//! the 32-byte digest after them against the proof's name, and parses nothing further
//! of a proof). Verifying the attestation itself is the stranger's job, with an
//! OpenTimestamps client; we never pretend to.

use crate::Digest;

/// `00 'OpenTimestamps' 00 00 'Proof' 00 bf 89 e2 e8 84 e8 92 94` (31 bytes).
pub const MAGIC: &[u8; 31] = b"\x00OpenTimestamps\x00\x00Proof\x00\xbf\x89\xe2\xe8\x84\xe8\x92\x94";
/// The only major version the header check accepts.
pub const VERSION: u8 = 0x01;
/// The hash op of a file digest: sha256.
pub const OP_SHA256: u8 = 0x08;
/// Magic, version, op, 32-byte digest.
pub const HEADER_LEN: usize = 31 + 1 + 1 + 32;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OtsProblem {
    TooShort,
    BadMagic,
    BadVersion(u8),
    NotSha256(u8),
    DigestMismatch,
}

impl OtsProblem {
    pub fn code(self) -> &'static str {
        match self {
            OtsProblem::TooShort => "too_short",
            OtsProblem::BadMagic => "bad_magic",
            OtsProblem::BadVersion(_) => "bad_version",
            OtsProblem::NotSha256(_) => "not_sha256",
            OtsProblem::DigestMismatch => "digest_mismatch",
        }
    }
}

impl std::fmt::Display for OtsProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OtsProblem::TooShort => write!(
                f,
                "shorter than an OpenTimestamps header ({HEADER_LEN} bytes)"
            ),
            OtsProblem::BadMagic => write!(f, "does not start with the OpenTimestamps magic"),
            OtsProblem::BadVersion(v) => write!(f, "version byte is {v:#04x}, expected 0x01"),
            OtsProblem::NotSha256(op) => {
                write!(f, "file hash op is {op:#04x}, expected 0x08 (sha256)")
            }
            OtsProblem::DigestMismatch => write!(f, "commits to another digest"),
        }
    }
}

impl std::error::Error for OtsProblem {}

/// The digest a proof commits to, after checking magic, version and op.
pub fn committed_digest(bytes: &[u8]) -> Result<Digest, OtsProblem> {
    if bytes.len() < 31 || &bytes[..31] != MAGIC {
        return Err(if bytes.len() < 31 && MAGIC.starts_with(bytes) {
            OtsProblem::TooShort
        } else {
            OtsProblem::BadMagic
        });
    }
    if bytes.len() < HEADER_LEN {
        return Err(OtsProblem::TooShort);
    }
    if bytes[31] != VERSION {
        return Err(OtsProblem::BadVersion(bytes[31]));
    }
    if bytes[32] != OP_SHA256 {
        return Err(OtsProblem::NotSha256(bytes[32]));
    }
    let mut digest = [0u8; 32];
    digest.copy_from_slice(&bytes[33..65]);
    Ok(Digest(digest))
}

/// Checks that a proof's header is right and that it commits to `expected`.
pub fn check(bytes: &[u8], expected: &Digest) -> Result<(), OtsProblem> {
    if committed_digest(bytes)? == *expected {
        Ok(())
    } else {
        Err(OtsProblem::DigestMismatch)
    }
}

/// [`check`] against the digest a file's name states (`<digest>.ots`): the header is checked
/// first, and a name that is not a digest is a mismatch, as any other wrong digest is.
pub fn check_named(bytes: &[u8], named: &str) -> Result<(), OtsProblem> {
    let committed = committed_digest(bytes)?;
    match named.parse::<Digest>() {
        Ok(digest) if digest == committed => Ok(()),
        _ => Err(OtsProblem::DigestMismatch),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn examples() -> &'static Path {
        Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/data/ots-examples"
        ))
    }

    #[test]
    fn real_proofs_commit_to_their_files() {
        let mut checked = 0;
        for entry in std::fs::read_dir(examples()).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "ots") {
                let target = path.with_extension("");
                let proof = std::fs::read(&path).unwrap();
                let digest = Digest::of(&std::fs::read(&target).unwrap());
                assert_eq!(check(&proof, &digest), Ok(()), "{}", path.display());
                // The same proof against another file's digest must fail.
                assert_eq!(
                    check(&proof, &Digest::of(b"other")),
                    Err(OtsProblem::DigestMismatch)
                );
                checked += 1;
            }
        }
        assert!(
            checked >= 8,
            "expected the shared examples, found {checked}"
        );
    }

    #[test]
    fn invalid_examples_are_refused_for_the_right_reason() {
        let dir = examples().join("invalid");
        let read = |name: &str| std::fs::read(dir.join(name)).unwrap();
        assert!(matches!(
            committed_digest(&read("bad-major-version.ots")),
            Err(OtsProblem::BadVersion(_))
        ));
        assert!(matches!(
            committed_digest(&read("invalid-file-digest-type.ots")),
            Err(OtsProblem::NotSha256(_))
        ));
        // Its header is well formed; what is wrong lies past the header, which we do not parse
        // (docs/protocol.md#witness) — so it passes the header check by design.
        assert!(committed_digest(&read("exceeds-max-msg-length.ots")).is_ok());
    }

    #[test]
    fn truncated_and_foreign_bytes() {
        assert_eq!(committed_digest(b""), Err(OtsProblem::TooShort));
        assert_eq!(committed_digest(&MAGIC[..10]), Err(OtsProblem::TooShort));
        assert_eq!(
            committed_digest(b"%PDF-1.4 not a proof at all, long enough"),
            Err(OtsProblem::BadMagic)
        );
        let mut short = MAGIC.to_vec();
        short.extend_from_slice(&[1, 8, 0, 0]);
        assert_eq!(committed_digest(&short), Err(OtsProblem::TooShort));
    }
}
