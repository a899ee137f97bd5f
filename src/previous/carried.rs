//! State a build carries to the next, so that the daily work is the day's and not the years'
//! (docs/scale.md#carried-verdicts): small files in `<git dir>/exhibit/`, each keyed by what
//! it describes and checked before use, saved only once DIR is written. A file that is
//! missing, for another binary or another key, cut short or failing its own checksum is
//! ignored: it costs time, never a wrong publication.
//!
//! Format of each: its magic; the scope (u32 little-endian length, bytes: the exhibit binary,
//! crate::previous::file_records::binary_identity, then whatever else the state depends on); the body;
//! the sha256 of everything before it.

use std::path::{Path, PathBuf};

use anyhow::Result;
use exhibit_protocol::Digest;

/// The most a carried file may hold: anything larger is no file of ours.
const CEILING: u64 = 1 << 30;

/// A state made by this build, saved for the next once DIR is written.
#[derive(Debug)]
pub struct Carried {
    path: PathBuf,
    bytes: Vec<u8>,
}

impl Carried {
    /// The state `body` under `magic` and `scope`, to be saved as `<git_dir>/<file>`.
    pub fn new(git_dir: &Path, file: &str, magic: &[u8], scope: &[u8], body: &[u8]) -> Carried {
        let mut bytes = magic.to_vec();
        bytes.extend_from_slice(&(scope.len() as u32).to_le_bytes());
        bytes.extend_from_slice(scope);
        bytes.extend_from_slice(body);
        let sum = Digest::of(&bytes);
        bytes.extend_from_slice(&sum.0);
        Carried {
            path: git_dir.join(file),
            bytes,
        }
    }

    /// Writes it whole: to a temporary file beside it, then renamed over it.
    pub fn save(&self) -> Result<()> {
        crate::previous::file_records::replace_cache_file(&self.path, &self.bytes)
    }
}

/// The body of `<git_dir>/<file>` when it is whole, of `magic` and for `scope`; else `None`.
pub fn read(git_dir: &Path, file: &str, magic: &[u8], scope: &[u8]) -> Option<Vec<u8>> {
    let path = git_dir.join(file);
    let meta = std::fs::symlink_metadata(&path).ok()?;
    if !meta.is_file() || meta.len() > CEILING {
        return None;
    }
    let bytes = std::fs::read(&path).ok()?;
    let body_len = bytes.len().checked_sub(32)?;
    let (body, sum) = bytes.split_at(body_len);
    if Digest::of(body).0 != sum {
        return None;
    }
    let rest = body.strip_prefix(magic)?;
    let scope_len = u32::from_le_bytes(rest.get(..4)?.try_into().ok()?) as usize;
    let rest = &rest[4..];
    (rest.get(..scope_len)? == scope).then(|| rest[scope_len..].to_vec())
}

/// [`read`] of a state scoped to this binary alone (crate::previous::file_records::binary_identity).
pub fn read_for_binary(git_dir: Option<&Path>, file: &str, magic: &[u8]) -> Option<Vec<u8>> {
    read(
        git_dir?,
        file,
        magic,
        &crate::previous::file_records::binary_identity()?,
    )
}

/// [`Carried::new`] of a state scoped to this binary alone; `None` outside a repository.
pub fn for_binary(
    git_dir: Option<&Path>,
    file: &str,
    magic: &[u8],
    body: &[u8],
) -> Option<Carried> {
    let scope = crate::previous::file_records::binary_identity()?;
    Some(Carried::new(git_dir?, file, magic, &scope, body))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_carried_state_is_read_back_only_whole_and_for_its_scope() {
        let dir = std::env::temp_dir().join(format!("exhibit-carried-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        Carried::new(&dir, "x", b"magic\n", b"scope", b"body")
            .save()
            .unwrap();
        assert_eq!(
            read(&dir, "x", b"magic\n", b"scope").as_deref(),
            Some(&b"body"[..])
        );
        assert_eq!(read(&dir, "x", b"magic\n", b"scope2"), None);
        assert_eq!(read(&dir, "x", b"other\n", b"scope"), None);
        let mut bytes = std::fs::read(dir.join("x")).unwrap();
        let at = bytes.len() - 33;
        bytes[at] ^= 1;
        std::fs::write(dir.join("x"), &bytes).unwrap();
        assert_eq!(read(&dir, "x", b"magic\n", b"scope"), None);
        std::fs::write(dir.join("x"), b"short").unwrap();
        assert_eq!(read(&dir, "x", b"magic\n", b"scope"), None);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
