//! The operator's key (docs/anchoring.md#the-key): an Ed25519 key in C2SP signed-note form, read
//! from a path outside DIR and the repository, never published. It signs the checkpoint (a
//! signed note) and each snapshot line, so that HEAD's history is trusted only when it carries
//! the operator's signature (or is what this machine built), never because it is internally
//! consistent.

use std::io::Write;
use std::path::Path;

use anyhow::{Context, Result, bail};
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as B64;
use signed_note::{Note, Signer as _, StandardSigner, StandardVerifier, VerifierList};

/// Where a signed snapshot line's signature is: its first member (docs/anchoring.md#signed-snapshots).
pub const SNAPSHOT_SIGNATURE_PREFIX: &str = "{\"signature\":\"";
/// What a snapshot signature signs before the line's bytes: a signature over a snapshot can never
/// be taken for one over a note.
const SNAPSHOT_DOMAIN: &[u8] = b"exhibit snapshot line v1\n";

/// The operator's signing key, and its verifier key (`<name>+<id>+<base64>`).
pub struct OperatorKey {
    signer: StandardSigner,
    pub vkey: String,
    pub name: String,
}

impl std::fmt::Debug for OperatorKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the private key, in any output.
        f.debug_struct("OperatorKey")
            .field("vkey", &self.vkey)
            .finish()
    }
}

impl OperatorKey {
    /// Reads the private key line at `path`: a regular file, not readable by group or others.
    pub fn read(path: &Path) -> Result<OperatorKey> {
        use std::os::unix::fs::PermissionsExt;
        let meta = std::fs::symlink_metadata(path).with_context(|| {
            format!(
                "{}: cannot read the operator's key ([checkpoint] key)",
                path.display()
            )
        })?;
        if !meta.is_file() {
            bail!(
                "{}: the operator's key must be a regular file ([checkpoint] key; `exhibit key --out PATH` writes one)",
                path.display()
            );
        }
        if meta.permissions().mode() & 0o077 != 0 {
            bail!(
                "{}: the operator's key is readable by others (mode {:o}); `chmod 600 {}` and build again",
                path.display(),
                meta.permissions().mode() & 0o777,
                path.display()
            );
        }
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("{}: cannot read the operator's key", path.display()))?;
        let skey = text.trim_end_matches('\n');
        Self::from_skey(skey).with_context(|| {
            format!(
                "{}: not a signed-note private key (`PRIVATE+KEY+<name>+<id>+<base64>`, as `exhibit key` writes)",
                path.display()
            )
        })
    }

    fn from_skey(skey: &str) -> Result<OperatorKey> {
        let signer = StandardSigner::new(skey).map_err(|e| anyhow::anyhow!("{e}"))?;
        // PRIVATE+KEY+<name>+<id>+<base64>: the base64 may hold `+` itself.
        let key64 = skey.splitn(5, '+').nth(4).unwrap_or_default();
        let bytes = B64.decode(key64)?;
        let seed: [u8; 32] = bytes
            .get(1..)
            .and_then(|b| b.try_into().ok())
            .context("an Ed25519 key is 32 bytes")?;
        let signing = ed25519_dalek::SigningKey::from_bytes(&seed);
        let name = signer.name().to_string();
        let vkey = signed_note::new_ed25519_verifier_key(&name, &signing.verifying_key());
        Ok(OperatorKey { signer, vkey, name })
    }

    /// `text` (a note body, LF-ended) as a signed note: the body, a blank line, the signature.
    pub fn sign_note(&self, text: &[u8]) -> Result<Vec<u8>> {
        let mut note = Note::new(text, &[]).map_err(|e| anyhow::anyhow!("{e}"))?;
        note.add_sigs(&[&self.signer])
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        Ok(note.to_bytes())
    }

    /// A snapshot line, signed: the same line with the signature as its first member.
    pub fn sign_snapshot_line(&self, line: &[u8]) -> Result<Vec<u8>> {
        let Some(rest) = line.strip_prefix(b"{") else {
            bail!("a snapshot line is a JSON object; this is exhibit's fault: please report it");
        };
        let mut msg = SNAPSHOT_DOMAIN.to_vec();
        msg.extend_from_slice(line);
        let sig = self
            .signer
            .sign(&msg)
            .map_err(|e| anyhow::anyhow!("signing the snapshot line: {e}"))?;
        let mut blob = self.signer.key_id().to_be_bytes().to_vec();
        blob.extend_from_slice(&sig);
        let mut out = format!(
            "{SNAPSHOT_SIGNATURE_PREFIX}{} {}\"",
            self.name,
            B64.encode(blob)
        )
        .into_bytes();
        if rest != b"}" {
            out.push(b',');
        }
        out.extend_from_slice(rest);
        Ok(out)
    }
}

/// Why a signature does not hold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SignatureState {
    /// Signed by this key, and the signature holds.
    Holds,
    /// Not signed at all.
    Unsigned,
    /// Signed by a key of another name or id.
    OtherKey(String),
    /// Signed by the key, and the signature does not hold (altered bytes).
    Broken,
}

/// A snapshot line's signature against a verifier key.
pub fn snapshot_signature(line: &[u8], vkey: &str) -> SignatureState {
    let Some((name, blob, unsigned)) = split_snapshot_signature(line) else {
        return SignatureState::Unsigned;
    };
    let Ok(verifier) = StandardVerifier::new(vkey) else {
        return SignatureState::Broken;
    };
    use signed_note::Verifier as _;
    if name != verifier.name() || blob.len() != 68 || blob[..4] != verifier.key_id().to_be_bytes() {
        let id = blob
            .get(..4)
            .map(|b| b.iter().map(|x| format!("{x:02x}")).collect::<String>())
            .unwrap_or_default();
        return SignatureState::OtherKey(format!("{name}+{id}"));
    }
    let mut msg = SNAPSHOT_DOMAIN.to_vec();
    msg.extend_from_slice(&unsigned);
    if verifier.verify(&msg, &blob[4..]) {
        SignatureState::Holds
    } else {
        SignatureState::Broken
    }
}

/// A signed line's key name, its signature blob, and the line as it was signed.
pub fn split_snapshot_signature(line: &[u8]) -> Option<(String, Vec<u8>, Vec<u8>)> {
    let rest = line.strip_prefix(SNAPSHOT_SIGNATURE_PREFIX.as_bytes())?;
    let end = rest.iter().position(|&b| b == b'"')?;
    let value = std::str::from_utf8(&rest[..end]).ok()?;
    let (name, b64) = value.split_once(' ')?;
    let blob = B64.decode(b64).ok()?;
    let after = &rest[end + 1..];
    let mut unsigned = b"{".to_vec();
    match after.strip_prefix(b",") {
        Some(members) => unsigned.extend_from_slice(members),
        None => unsigned.extend_from_slice(after),
    }
    Some((name.to_string(), blob, unsigned))
}

/// A checkpoint's signature by a verifier key: holds, another key's, or broken.
pub fn checkpoint_signature(note: &[u8], vkey: &str) -> SignatureState {
    if !note.windows(2).any(|w| w == b"\n\n") {
        return SignatureState::Unsigned;
    }
    let Ok(verifier) = StandardVerifier::new(vkey) else {
        return SignatureState::Broken;
    };
    let Ok(parsed) = Note::from_bytes(note) else {
        return SignatureState::Broken;
    };
    let list = VerifierList::new(vec![Box::new(verifier)]);
    match parsed.verify(&list) {
        Ok(_) => SignatureState::Holds,
        Err(signed_note::NoteError::UnverifiedNote) => {
            SignatureState::OtherKey("another key".into())
        }
        Err(_) => SignatureState::Broken,
    }
}

/// Writes a new key for `name` at `path` (mode 0600, never over a file) and returns its verifier
/// key. `path` may not lie inside a git work tree: a key in a repository is one `git add` away
/// from being published (docs/anchoring.md#the-key).
pub fn new_key(path: &Path, name: &str) -> Result<String> {
    use std::os::unix::fs::OpenOptionsExt;
    if !signed_note::is_key_name_valid(name) || name.contains(char::is_whitespace) {
        bail!(
            "--name {name:?}: a key's name is the log's origin, printable, without spaces or `+` (e.g. example.github.io/exhibit)"
        );
    }
    let absolute =
        std::path::absolute(path).with_context(|| format!("{}: cannot resolve", path.display()))?;
    for dir in absolute.ancestors().skip(1) {
        if dir.join(".git").exists() {
            bail!(
                "{}: inside the git work tree {}; a key there is one `git add` away from being published — write it outside any repository (e.g. ~/.config/exhibit/key)",
                path.display(),
                dir.display()
            );
        }
    }
    let (skey, vkey) = signed_note::generate_key(&mut rand_core::OsRng, name);
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&absolute)
        .with_context(|| {
            format!(
                "{}: cannot create (exhibit never writes over a file; remove it or choose another path)",
                path.display()
            )
        })?;
    f.write_all(format!("{skey}\n").as_bytes())
        .and_then(|()| f.sync_all())
        .with_context(|| format!("{}: cannot write", path.display()))?;
    Ok(vkey)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(name: &str) -> OperatorKey {
        let (skey, _) = signed_note::generate_key(&mut rand_core::OsRng, name);
        OperatorKey::from_skey(&skey).unwrap()
    }

    #[test]
    fn a_signed_snapshot_line_holds_and_any_change_breaks_it() {
        let k = key("example.test/log");
        let line = br#"{"built_at":"2026-12-05T00:00:00Z","head":"ab","lines":3}"#;
        let signed = k.sign_snapshot_line(line).unwrap();
        assert!(signed.starts_with(SNAPSHOT_SIGNATURE_PREFIX.as_bytes()));
        let v: serde_json::Value = serde_json::from_slice(&signed).unwrap();
        assert_eq!(v["lines"], 3);
        assert_eq!(snapshot_signature(&signed, &k.vkey), SignatureState::Holds);
        let altered = String::from_utf8(signed.clone())
            .unwrap()
            .replace("\"lines\":3", "\"lines\":4");
        assert_eq!(
            snapshot_signature(altered.as_bytes(), &k.vkey),
            SignatureState::Broken
        );
        assert_eq!(snapshot_signature(line, &k.vkey), SignatureState::Unsigned);
        let other = key("example.test/log");
        assert!(matches!(
            snapshot_signature(&signed, &other.vkey),
            SignatureState::OtherKey(_)
        ));
    }

    #[test]
    fn a_signed_checkpoint_is_a_note_go_and_witnesses_read() {
        let k = key("example.test/log");
        let body = b"example.test/log\n3\nAAAA\nexhibit-head 3 ab\n";
        let note = k.sign_note(body).unwrap();
        assert!(note.starts_with(body));
        let text = String::from_utf8(note.clone()).unwrap();
        assert!(text.contains("\n\n\u{2014} example.test/log "), "{text}");
        assert_eq!(checkpoint_signature(&note, &k.vkey), SignatureState::Holds);
        let mut bad = note.clone();
        bad[20] ^= 1;
        assert_ne!(checkpoint_signature(&bad, &k.vkey), SignatureState::Holds);
        assert_eq!(
            checkpoint_signature(body, &k.vkey),
            SignatureState::Unsigned
        );
        assert!(format!("{k:?}").contains(&k.vkey) && !format!("{k:?}").contains("PRIVATE"));
    }
}
