//! The sha256 of git blobs, remembered between builds, so that checking HEAD
//! (crate::previous::head_check) reads only the blobs it has not hashed before — a day's new files —
//! instead of every blob HEAD publishes (docs/scale.md#the-daily-rebuilds-cost).
//!
//! Sound because a git blob id names its bytes: the id is the SHA-1 of the blob's content (with
//! git's `blob <len>\0` header), the same naming HEAD's tree and commit already rest on when the
//! check trusts that HEAD's tree holds those blobs. An entry is only ever written by exhibit,
//! from a sha256 it computed over the bytes it read under that id. The file lives in the
//! repository's own git folder (`<git dir>/exhibit/blob-sha256`), beside what it describes:
//! whoever can write there can rewrite HEAD itself. It is a cache, never a source of truth:
//! missing, unreadable, truncated or failing its own checksum, it is ignored and every blob is
//! read, as before. It is written only after a build has written DIR (never by a refused or
//! failed build, nor by `--dry-run`), and holds exactly the blobs of the HEAD that build checked.
//!
//! Format: the 16 bytes `exhibit-blob256\n`, then records of a 20-byte git blob id and the
//! 32-byte sha256 of that blob, sorted by id, then the sha256 of everything before it.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::previous::file_records::StagedFile;
use exhibit_protocol::Digest;

const MAGIC: &[u8; 16] = b"exhibit-blob256\n";
const ID: usize = 20;
const RECORD: usize = ID + 32;

/// The file's name inside the git folder.
pub const FILE: &str = "exhibit/blob-sha256";

/// The sha256 of git blobs: what an earlier build remembered, and what this one found.
#[derive(Debug, Default)]
pub struct BlobDigests {
    /// Where the file is (`None` outside a repository: nothing is remembered).
    path: Option<PathBuf>,
    /// Records sorted by id: those read from the file until HEAD is checked, then, compacted
    /// where they lie, those this build asked about, with the new ones merged in
    /// ([`BlobDigests::checked`]).
    known: Vec<u8>,
    /// A flag per record of `known`: asked about by this build. With `new`, what this build
    /// found, without a second list of a million records beside `known` while HEAD is walked
    /// (docs/scale.md#narrower-records).
    asked: Vec<bool>,
    /// Blobs asked about that `known` did not hold, with their sha256.
    new: Vec<([u8; ID], Digest)>,
    /// Blobs whose bytes were read and hashed (the rest came from `known`).
    pub hashed: usize,
}

impl BlobDigests {
    /// What the file at `<git_dir>/exhibit/blob-sha256` remembers, or nothing (no repository, no
    /// file, or a file that fails its checksum).
    pub fn open(git_dir: Option<&Path>) -> BlobDigests {
        let path = git_dir.map(|d| d.join(FILE));
        let known = path
            .as_deref()
            .and_then(|p| std::fs::read(p).ok())
            .and_then(valid_records)
            .unwrap_or_default();
        BlobDigests {
            path,
            asked: vec![false; known.len() / RECORD],
            known,
            ..BlobDigests::default()
        }
    }

    /// HEAD is checked: what the file remembered but this build did not ask about is let go,
    /// and `known` holds just the blobs asked, sorted, each once — compacted where it lies and
    /// the new ones merged in from its end, so that no second list is made beside it.
    pub fn checked(&mut self) {
        // Already so (called again when the records are staged, after the HEAD check called
        // it): nothing is moved, nothing made again.
        if self.new.is_empty() && self.asked.iter().all(|a| *a) {
            return;
        }
        let asked = std::mem::take(&mut self.asked);
        let mut kept = 0;
        for (i, _) in asked.iter().enumerate().filter(|(_, a)| **a) {
            // Records before the first one let go stay where they are.
            if i != kept {
                self.known
                    .copy_within(i * RECORD..(i + 1) * RECORD, kept * RECORD);
            }
            kept += 1;
        }
        let mut new = std::mem::take(&mut self.new);
        new.sort_unstable_by_key(|n| n.0);
        new.dedup_by(|a, b| a.0 == b.0);
        // From the end: the larger of the last kept record and the last new one goes last.
        // `new` holds no id `known` held (each was looked for there first).
        self.known.resize((kept + new.len()) * RECORD, 0);
        let (mut k, mut n) = (kept, new.len());
        while n > 0 {
            let at = (k + n - 1) * RECORD;
            let kept_last = k.checked_sub(1).map(|b| b * RECORD);
            if let Some(before) = kept_last
                && self.known[before..before + ID] > new[n - 1].0[..]
            {
                self.known.copy_within(before..before + RECORD, at);
                k -= 1;
            } else {
                self.known[at..at + ID].copy_from_slice(&new[n - 1].0);
                self.known[at + ID..at + RECORD].copy_from_slice(&new[n - 1].1.0);
                n -= 1;
            }
        }
        self.known.shrink_to_fit();
        // Asked again after this (none is, in a build), a blob is looked for among these.
        self.asked = vec![true; self.known.len() / RECORD];
    }

    /// The sha256 of blob `id`: remembered, or `read` and hashed.
    pub fn digest_of(
        &mut self,
        id: git2::Oid,
        read: impl FnOnce() -> Result<Vec<u8>>,
    ) -> Result<Digest> {
        let Ok(key) = <[u8; ID]>::try_from(id.as_bytes()) else {
            // Not a SHA-1 id (a repository in another object format): nothing is remembered.
            self.hashed += 1;
            return Ok(Digest::of(&read()?));
        };
        if let Some((at, digest)) = self.remembered(&key) {
            self.asked[at] = true;
            return Ok(digest);
        }
        self.hashed += 1;
        let digest = Digest::of(&read()?);
        self.new.push((key, digest));
        Ok(digest)
    }

    /// The position and sha256 of `key`'s record in `known`.
    fn remembered(&self, key: &[u8; ID]) -> Option<(usize, Digest)> {
        let records = self.known.len() / RECORD;
        let at = |i: usize| &self.known[i * RECORD..(i + 1) * RECORD];
        let (mut lo, mut hi) = (0, records);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            let record = at(mid);
            match record[..ID].cmp(key.as_slice()) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => {
                    return <[u8; 32]>::try_from(&record[ID..])
                        .ok()
                        .map(|d| (mid, Digest(d)));
                }
            }
        }
        None
    }

    /// Writes the blobs this build asked about (and only those) for the next build, to a
    /// temporary file beside the cache that [`Staged::commit`] puts in place once DIR is
    /// written. The records, sorted where they lie ([`BlobDigests::checked`]), are written and
    /// let go: at a million files they are 52 MB, and holding them, or the file's bytes
    /// besides, while DIR is written put both on the build's peak (docs/scale.md#memory). Where the cache's folder
    /// does not exist yet (a repository's first builds) nothing is written before DIR is: the
    /// list is held, and written when committed.
    pub fn stage(self) -> Result<Staged> {
        let Some(path) = self.path.clone() else {
            return Ok(Staged::Nothing);
        };
        if !path.parent().is_some_and(Path::is_dir) {
            return Ok(Staged::Held(self));
        }
        let known = self.asked_sorted();
        let mut file = StagedFile::create(&path)?;
        file.write(MAGIC)?;
        file.write(&known)?;
        Ok(Staged::File(file))
    }

    /// The records of the blobs asked about, sorted by id, each once (where they lie, not
    /// copied).
    fn asked_sorted(mut self) -> Vec<u8> {
        self.checked();
        self.known
    }

    /// Writes the cache now: the folder is made, then the file is staged and put in place.
    fn save_now(self) -> Result<()> {
        if let Some(folder) = self.path.as_deref().and_then(Path::parent) {
            std::fs::create_dir_all(folder)
                .with_context(|| format!("{}: cannot create", folder.display()))?;
        }
        match self.stage()? {
            Staged::File(file) => file.commit(),
            // The folder exists now; nothing else is left to write.
            Staged::Nothing | Staged::Held(_) => Ok(()),
        }
    }

    /// [`BlobDigests::stage`], then put in place at once (tests).
    #[cfg(test)]
    pub fn save(self) -> Result<()> {
        self.stage()?.commit()
    }
}

/// What a build found of HEAD's blobs, waiting for DIR to be written.
pub enum Staged {
    /// Outside a repository: nothing is remembered.
    Nothing,
    /// Written beside the cache, put in place by [`Staged::commit`].
    File(StagedFile),
    /// The cache's folder does not exist yet: held, and written by [`Staged::commit`] (a build
    /// refused before then makes no folder in the repository's git folder).
    Held(BlobDigests),
}

impl Staged {
    /// DIR is written: the cache takes what this build found.
    pub fn commit(self) -> Result<()> {
        match self {
            Staged::Nothing => Ok(()),
            Staged::File(file) => file.commit(),
            Staged::Held(digests) => digests.save_now(),
        }
    }
}

/// The records of a file that is whole: the magic, whole records sorted by id, and a checksum
/// that matches. Cut out of the file's bytes where they lie (a copy would briefly hold the file
/// twice).
fn valid_records(mut bytes: Vec<u8>) -> Option<Vec<u8>> {
    let body_len = bytes.len().checked_sub(32)?;
    let (body, sum) = bytes.split_at(body_len);
    if !body.starts_with(MAGIC) || Digest::of(body).0 != sum {
        return None;
    }
    let records = &body[MAGIC.len()..];
    if !records.len().is_multiple_of(RECORD) {
        return None;
    }
    let sorted = records
        .chunks_exact(RECORD)
        .zip(records.chunks_exact(RECORD).skip(1))
        .all(|(a, b)| a[..ID] < b[..ID]);
    if !sorted {
        return None;
    }
    bytes.truncate(body_len);
    bytes.drain(..MAGIC.len());
    Some(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(n: u8) -> git2::Oid {
        git2::Oid::from_bytes(&[n; 20]).unwrap()
    }

    /// A cache in `git_dir` that remembers blob 1; its path.
    fn saved_with_blob_one(git_dir: &Path) -> PathBuf {
        let mut first = BlobDigests::open(Some(git_dir));
        first.digest_of(id(1), || Ok(b"one".to_vec())).unwrap();
        first.save().unwrap();
        git_dir.join(FILE)
    }

    #[test]
    fn a_remembered_digest_is_not_read_again_and_a_new_blob_is() {
        let tmp = tempfile::tempdir().unwrap();
        let mut first = BlobDigests::open(Some(tmp.path()));
        for n in [3u8, 1, 2] {
            let d = first.digest_of(id(n), || Ok(vec![n; 5])).unwrap();
            assert_eq!(d, Digest::of(&[n; 5]));
        }
        assert_eq!(first.hashed, 3);
        first.save().unwrap();

        let mut second = BlobDigests::open(Some(tmp.path()));
        for n in [1u8, 2, 3] {
            let d = second
                .digest_of(id(n), || panic!("blob {n} is remembered; not read"))
                .unwrap();
            assert_eq!(d, Digest::of(&[n; 5]));
        }
        let d = second.digest_of(id(4), || Ok(b"new".to_vec())).unwrap();
        assert_eq!(d, Digest::of(b"new"));
        assert_eq!(second.hashed, 1);
    }

    #[test]
    fn a_staged_cache_replaces_the_old_only_when_committed_and_leaves_nothing_when_dropped() {
        // Catches a stage that writes over the cache at once (a build refused after its HEAD
        // check would leave digests of a HEAD no build wrote over), and a dropped stage that
        // leaves its temporary file in the git folder.
        let tmp = tempfile::tempdir().unwrap();
        let cache = saved_with_blob_one(tmp.path());
        let old = std::fs::read(&cache).unwrap();
        let folder = || {
            let mut names: Vec<_> = std::fs::read_dir(cache.parent().unwrap())
                .unwrap()
                .map(|e| e.unwrap().file_name())
                .collect();
            names.sort();
            names
        };
        let names = folder();

        let staged = |n: u8| {
            let mut d = BlobDigests::open(Some(tmp.path()));
            d.digest_of(id(n), || Ok(vec![n; 3])).unwrap();
            d.checked();
            let staged = d.stage().unwrap();
            assert!(matches!(staged, Staged::File(_)), "the folder exists");
            staged
        };
        drop(staged(2));
        assert_eq!(std::fs::read(&cache).unwrap(), old);
        assert_eq!(folder(), names);

        let file = staged(3);
        assert_eq!(
            std::fs::read(&cache).unwrap(),
            old,
            "not in place before commit"
        );
        file.commit().unwrap();
        assert_eq!(folder(), names);
        let mut next = BlobDigests::open(Some(tmp.path()));
        let d = next
            .digest_of(id(3), || panic!("remembered once committed"))
            .unwrap();
        assert_eq!(d, Digest::of(&[3; 3]));
        assert!(matches!(
            BlobDigests::open(None).stage().unwrap(),
            Staged::Nothing
        ));
    }

    #[test]
    fn a_cache_whose_folder_is_missing_is_held_and_nothing_is_made_until_committed() {
        // Catches a stage that makes the cache's folder in the repository's git folder before
        // DIR is written: a build refused after its HEAD check would leave it there.
        let tmp = tempfile::tempdir().unwrap();
        let mut d = BlobDigests::open(Some(tmp.path()));
        d.digest_of(id(7), || Ok(b"seven".to_vec())).unwrap();
        let staged = d.stage().unwrap();
        assert!(matches!(staged, Staged::Held(_)));
        assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0);
        drop(staged);
        assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0);

        let mut d = BlobDigests::open(Some(tmp.path()));
        d.digest_of(id(7), || Ok(b"seven".to_vec())).unwrap();
        d.stage().unwrap().commit().unwrap();
        let mut next = BlobDigests::open(Some(tmp.path()));
        next.digest_of(id(7), || panic!("remembered once committed"))
            .unwrap();
    }

    #[test]
    fn once_head_is_checked_the_file_is_let_go_and_the_blobs_asked_are_saved() {
        // Catches a save that writes what the file remembered (gone once HEAD is checked: the
        // next build would read every blob again) instead of what this build asked, or both (a
        // blob HEAD no longer holds would stay remembered for ever).
        let tmp = tempfile::tempdir().unwrap();
        let mut first = BlobDigests::open(Some(tmp.path()));
        for n in [1u8, 2, 3] {
            first.digest_of(id(n), || Ok(vec![n; 5])).unwrap();
        }
        first.save().unwrap();
        let mut second = BlobDigests::open(Some(tmp.path()));
        for n in [2u8, 1] {
            second.digest_of(id(n), || panic!("remembered")).unwrap();
        }
        second.checked();
        assert_eq!(second.known.len(), 2 * RECORD, "blob 3 let go");
        second.save().unwrap();
        let mut third = BlobDigests::open(Some(tmp.path()));
        for n in [1u8, 2] {
            third.digest_of(id(n), || panic!("remembered")).unwrap();
        }
        third.digest_of(id(3), || Ok(vec![3; 5])).unwrap();
        assert_eq!(third.hashed, 1, "blob 3 was not asked by the second build");
    }

    #[test]
    fn the_blobs_asked_are_kept_in_order_remembered_and_new_interleaved() {
        // Catches a merge of the new blobs into the remembered ones that leaves them out of
        // order (the next build would find the file invalid and read every blob again), loses
        // the first or last of either, keeps a new blob twice, or keeps a remembered blob the
        // build did not ask about.
        let tmp = tempfile::tempdir().unwrap();
        let mut first = BlobDigests::open(Some(tmp.path()));
        for n in [2u8, 4, 6, 8] {
            first.digest_of(id(n), || Ok(vec![n; 2])).unwrap();
        }
        first.save().unwrap();
        let mut second = BlobDigests::open(Some(tmp.path()));
        for n in [8u8, 4] {
            second.digest_of(id(n), || panic!("remembered")).unwrap();
        }
        for n in [9u8, 1, 5, 5, 7] {
            second.digest_of(id(n), || Ok(vec![n; 2])).unwrap();
        }
        assert_eq!(second.hashed, 5);
        second.checked();
        let ids: Vec<u8> = second.known.chunks(RECORD).map(|r| r[0]).collect();
        assert_eq!(ids, [1, 4, 5, 7, 8, 9]);
        second.save().unwrap();
        let mut third = BlobDigests::open(Some(tmp.path()));
        for n in [1u8, 4, 5, 7, 8, 9] {
            let d = third
                .digest_of(id(n), || panic!("blob {n} remembered"))
                .unwrap();
            assert_eq!(d, Digest::of(&[n; 2]));
        }
        for n in [2u8, 6] {
            third.digest_of(id(n), || Ok(vec![n; 2])).unwrap();
        }
        assert_eq!(
            third.hashed, 2,
            "blobs 2 and 6 were not asked by the second build"
        );
        // Only new blobs, and only remembered ones.
        let mut only_new = BlobDigests::open(None);
        only_new.digest_of(id(3), || Ok(vec![3])).unwrap();
        only_new.checked();
        assert_eq!(only_new.known.len(), RECORD);
    }

    #[test]
    fn a_damaged_file_is_ignored_and_every_blob_read() {
        let tmp = tempfile::tempdir().unwrap();
        let file = saved_with_blob_one(tmp.path());
        let mut bytes = std::fs::read(&file).unwrap();
        // A flipped bit in the remembered sha256: the checksum no longer matches.
        bytes[MAGIC.len() + ID] ^= 1;
        std::fs::write(&file, &bytes).unwrap();
        let mut second = BlobDigests::open(Some(tmp.path()));
        let d = second.digest_of(id(1), || Ok(b"one".to_vec())).unwrap();
        assert_eq!(d, Digest::of(b"one"));
        assert_eq!(second.hashed, 1);
        // Truncated, or not this file at all.
        for damaged in [&bytes[..10], b"hello".as_slice(), &[]] {
            std::fs::write(&file, damaged).unwrap();
            let mut again = BlobDigests::open(Some(tmp.path()));
            again.digest_of(id(1), || Ok(b"one".to_vec())).unwrap();
            assert_eq!(again.hashed, 1);
        }
    }

    #[test]
    fn only_the_blobs_asked_about_are_kept() {
        let tmp = tempfile::tempdir().unwrap();
        let mut first = BlobDigests::open(Some(tmp.path()));
        first.digest_of(id(1), || Ok(b"one".to_vec())).unwrap();
        first.digest_of(id(2), || Ok(b"two".to_vec())).unwrap();
        first.save().unwrap();
        let mut second = BlobDigests::open(Some(tmp.path()));
        second.digest_of(id(2), || Ok(b"two".to_vec())).unwrap();
        second.save().unwrap();
        let mut third = BlobDigests::open(Some(tmp.path()));
        third.digest_of(id(1), || Ok(b"one".to_vec())).unwrap();
        assert_eq!(
            third.hashed, 1,
            "blob 1 was dropped: HEAD no longer held it"
        );
    }
}
