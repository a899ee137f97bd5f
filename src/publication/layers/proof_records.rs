//! The witness store's proofs as the last build checked them: each proof's stat data, with what
//! the build keeps of a proof (its sha256, its git blob id, its first bytes), so that a proof
//! unchanged since is neither read, hashed (sha256 and SHA-1) nor parsed again
//! (docs/scale.md#comparing-without-reading). The records' format, the racy rule and why they
//! may be trusted are crate::previous::file_records'.
//!
//! A record is written only for a proof that passed every check a proof must pass to be
//! published from the store: read without following a symlink, within the ceiling, its header
//! committing to the digest its name gives. Its name fixes the digest it is checked against, so
//! the same bytes under the same name pass again; and the checks themselves are the binary's,
//! so the scope is the store's resolved path *and* the exhibit binary that checked (its path
//! and stat data): another build of exhibit checks every proof again.
//!
//! The replacement rule still holds: a trusted proof's recorded blob id is compared with the one
//! HEAD publishes under its name; when they differ the proof is read and held to the rule as
//! before. When DIR is written, a trusted proof whose bytes DIR does not already hold is read
//! from the store and must still give the recorded sha256 (crate::published::output_tree::DiskFile::read).

use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::sync::Arc;

use exhibit_protocol::Digest;

use crate::operator_box::read::FileClass;
use crate::previous::file_records::{Pending, Records, Stat};
use crate::published::output_tree::DiskFile;

/// The file's name inside the git folder.
pub const FILE: &str = "exhibit/store-proofs";

/// sha256, git blob id, the head's length, the head.
const PAYLOAD: usize = 32 + 20 + 1 + DiskFile::HEAD;

/// A proof unchanged since the last build checked it.
pub struct KnownProof {
    pub file: DiskFile,
    pub oid: git2::Oid,
    pub stat: Stat,
}

/// The last build's records of the store's proofs, and this build's (none on `--dry-run`).
pub struct ProofRecords {
    known: Records,
    pending: Option<Pending>,
    /// The proofs folder, opened once: each proof is looked at by name in it, not by a path
    /// walked again from the root a million times (docs/scale.md#comparing-without-reading).
    folder: Option<std::os::fd::OwnedFd>,
    /// Proofs taken on their record's word (not read).
    pub trusted: usize,
}

impl ProofRecords {
    pub fn open(git_dir: Option<&Path>, proofs: &Path, dry_run: bool) -> ProofRecords {
        let scope = git_dir.and_then(|_| scope(proofs));
        let (Some(git_dir), Some(scope)) = (git_dir, scope) else {
            return ProofRecords {
                known: Records::none(),
                pending: None,
                folder: None,
                trusted: 0,
            };
        };
        let path = git_dir.join(FILE);
        let flags = rustix::fs::OFlags::RDONLY
            | rustix::fs::OFlags::DIRECTORY
            | rustix::fs::OFlags::CLOEXEC;
        ProofRecords {
            known: Records::open(&path, &scope, PAYLOAD),
            folder: rustix::fs::open(proofs, flags, rustix::fs::Mode::empty()).ok(),
            // Unable to start new records (no `<git dir>/exhibit/` yet: a build that may still be
            // refused creates no folder): nothing is recorded, nothing fails.
            pending: (!dry_run)
                .then(|| Pending::create(&path, &scope).ok())
                .flatten(),
            trusted: 0,
        }
    }

    /// What the last build kept of the proof `name` of `folder`, when its stat data shows it
    /// unchanged since (asked in name order). The file is looked at without following a
    /// symlink; anything else — no record, another file, a symlink, a file another name shares
    /// (a hard link, refused when read) — is `None`: read it.
    pub fn known(&mut self, name: &str, folder: &Arc<Path>) -> Option<KnownProof> {
        let (stat, payload) = self.known.get(name)?;
        let raw = rustix::fs::statat(
            self.folder.as_ref()?,
            name,
            rustix::fs::AtFlags::SYMLINK_NOFOLLOW,
        )
        .ok()?;
        let len = raw.st_size as u64;
        if !crate::site_write::dir_folders::is_regular(&raw)
            || raw.st_nlink > 1
            || len > FileClass::Proof.ceiling()
            || stat != Stat::of_raw(&raw)
            || payload.len() != PAYLOAD
        {
            return None;
        }
        let sha256 = Digest(payload[..32].try_into().ok()?);
        let oid = git2::Oid::from_bytes(&payload[32..52]).ok()?;
        let head_len = payload[52];
        let mut head = Box::new([0u8; DiskFile::HEAD]);
        head.copy_from_slice(&payload[53..]);
        if usize::from(head_len) != DiskFile::HEAD.min(len as usize) {
            return None;
        }
        self.trusted += 1;
        Some(KnownProof {
            file: DiskFile {
                folder: folder.clone(),
                name: crate::published::output_tree::FileName::new(name),
                class: FileClass::Proof,
                len,
                sha256: Some(sha256),
                head: Some(head),
                head_len,
            },
            oid,
            stat,
        })
    }

    /// Whether this build records the proofs it checked (not on `--dry-run`).
    pub fn recording(&self) -> bool {
        self.pending.is_some()
    }

    /// Records a proof that passed every check, as `stat` (read when it was opened) describes
    /// it. A failure to write stops the recording; it fails nothing.
    pub fn record(&mut self, name: &str, stat: Stat, file: &DiskFile, oid: git2::Oid) {
        // A file whose header was let go is not recorded: the next build reads it.
        let (Some(pending), Some(sha256), Some(head)) =
            (self.pending.as_mut(), file.sha256, file.head.as_deref())
        else {
            return;
        };
        let mut payload = Vec::with_capacity(PAYLOAD);
        payload.extend_from_slice(&sha256.0);
        payload.extend_from_slice(oid.as_bytes());
        payload.push(file.head_len);
        payload.extend_from_slice(head);
        if payload.len() != PAYLOAD || pending.record(name, stat, &payload).is_err() {
            self.pending = None;
        }
    }

    /// The new records, to be committed once DIR is written.
    pub fn into_pending(self) -> Option<Pending> {
        self.pending
    }
}

/// The exhibit binary (crate::previous::file_records::binary_identity) and the store's resolved proofs
/// folder.
fn scope(proofs: &Path) -> Option<Vec<u8>> {
    let mut scope = crate::previous::file_records::binary_identity()?;
    scope.push(0);
    scope.extend_from_slice(proofs.canonicalize().ok()?.as_os_str().as_bytes());
    Some(scope)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folder_with(name: &str, bytes: &[u8]) -> (tempfile::TempDir, Arc<Path>) {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(tmp.path().join("git/exhibit")).unwrap();
        std::fs::create_dir_all(tmp.path().join("proofs")).unwrap();
        std::fs::write(tmp.path().join("proofs").join(name), bytes).unwrap();
        let folder: Arc<Path> = tmp.path().join("proofs").into();
        (tmp, folder)
    }

    #[test]
    fn a_recorded_proof_is_known_unread_until_it_changes() {
        let (tmp, folder) = folder_with("a.ots", b"proof bytes");
        let git = tmp.path().join("git");
        let meta = std::fs::symlink_metadata(folder.join("a.ots")).unwrap();
        let file = DiskFile::checked(&folder, "a.ots", FileClass::Proof, b"proof bytes");
        let oid = git2::Oid::hash_object(git2::ObjectType::Blob, b"proof bytes").unwrap();
        std::thread::sleep(std::time::Duration::from_millis(30));
        let mut first = ProofRecords::open(Some(&git), &folder, false);
        assert!(first.recording());
        first.record("a.ots", Stat::of(&meta), &file, oid);
        first.into_pending().unwrap().commit().unwrap();

        let mut second = ProofRecords::open(Some(&git), &folder, true);
        assert!(!second.recording(), "a dry run records nothing");
        let known = second
            .known("a.ots", &folder)
            .expect("unchanged since recorded");
        assert_eq!(known.file, file);
        assert_eq!(known.oid, oid);
        assert_eq!(second.trusted, 1);

        // Rewritten with other bytes of the same size: no longer known.
        std::fs::write(folder.join("a.ots"), b"proof BYTES").unwrap();
        let mut third = ProofRecords::open(Some(&git), &folder, true);
        assert!(third.known("a.ots", &folder).is_none());
        // Another store: nothing known.
        let other: Arc<Path> = tmp.path().join("git").into();
        std::fs::write(other.join("a.ots"), b"proof bytes").unwrap();
        let mut fourth = ProofRecords::open(Some(&git), &other, true);
        assert!(fourth.known("a.ots", &other).is_none());
    }

    #[test]
    fn a_proof_looked_at_by_its_folders_handle_is_described_as_when_it_was_read() {
        // A proof is recorded from the stat data of the file read (std's metadata) and known
        // from a look by the folder's handle (rustix): were the two spelt otherwise (a device
        // number encoded another way), no proof would ever be known again and every build
        // would read the whole store. Also: a hard link or a symlink in its place is not known.
        let (tmp, folder) = folder_with("a.ots", b"proof bytes");
        let git = tmp.path().join("git");
        let meta = std::fs::File::open(folder.join("a.ots"))
            .unwrap()
            .metadata()
            .unwrap();
        let file = DiskFile::checked(&folder, "a.ots", FileClass::Proof, b"proof bytes");
        let oid = git2::Oid::hash_object(git2::ObjectType::Blob, b"proof bytes").unwrap();
        std::thread::sleep(std::time::Duration::from_millis(30));
        let mut first = ProofRecords::open(Some(&git), &folder, false);
        first.record("a.ots", Stat::of(&meta), &file, oid);
        first.into_pending().unwrap().commit().unwrap();
        let mut second = ProofRecords::open(Some(&git), &folder, false);
        assert_eq!(
            second.known("a.ots", &folder).map(|k| k.stat),
            Some(Stat::of(&meta))
        );
        std::fs::hard_link(folder.join("a.ots"), tmp.path().join("b.ots")).unwrap();
        let mut third = ProofRecords::open(Some(&git), &folder, false);
        assert!(third.known("a.ots", &folder).is_none(), "a second name");
    }
}
