//! What HEAD's published ledger files hold, remembered by git blob id between builds: each
//! file's length, sha256 and the seqs it publishes (as runs of consecutive seqs), so that the
//! history stage (crate::publication::history) reads from git only the ledger files no earlier build
//! read — the day's new segment and the one that grew — instead of the whole published ledger
//! every day (docs/scale.md#comparing-without-reading).
//!
//! Sound for the reason the blob digests are (crate::previous::blob_digests): a git blob id names its
//! bytes, and an entry is only ever written by exhibit from the bytes it read under that id.
//! Which seqs a file publishes is read by this binary's parser, so the file is scoped to the
//! exhibit binary that wrote it (crate::previous::file_records::binary_identity): another build of exhibit
//! reads every file once again. A cache, never a source of truth: missing, for another binary,
//! truncated or failing its own checksum, it is ignored. Written only after a build has written
//! DIR, holding exactly the files of the HEAD that build read.
//!
//! Format: the 16 bytes `exhibit-seqruns\n`; the scope (u32 little-endian length, bytes); records
//! sorted by id: the 20-byte blob id, one byte (1 when the file's first line, the ledger's
//! header, was skipped), the length (u64), the sha256, the number of runs (u32) and each run's
//! first and last seq (i64 each), all little-endian; then the sha256 of everything before it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::Result;
use exhibit_protocol::Digest;

const MAGIC: &[u8; 16] = b"exhibit-seqruns\n";
const ID: usize = 20;

/// The file's name inside the git folder.
pub const FILE: &str = "exhibit/ledger-seqs";

/// What one of HEAD's ledger files holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileSeqs {
    /// The file's first line (the ledger's header) holds no published line.
    pub header_skipped: bool,
    pub len: u64,
    pub sha256: Digest,
    /// The seqs the file publishes, as runs `first..=last` in file order.
    pub runs: Vec<(i64, i64)>,
}

impl FileSeqs {
    /// Reads a ledger file's bytes: its length, sha256, and the seq of each line that parses
    /// (the first line skipped when it is the ledger's header).
    pub fn read(bytes: &[u8], header_skipped: bool) -> FileSeqs {
        let seqs = exhibit_protocol::verify::lines(bytes)
            .skip(usize::from(header_skipped))
            .filter_map(|(_, piece, _)| {
                exhibit_protocol::canonical::parse(piece)
                    .ok()
                    .and_then(|p| p.value.as_object().and_then(|o| o.get_int("seq")))
            });
        FileSeqs {
            header_skipped,
            len: bytes.len() as u64,
            sha256: Digest::of(bytes),
            runs: runs_of(seqs),
        }
    }

    /// Every seq of the file.
    pub fn seqs(&self) -> impl Iterator<Item = i64> + '_ {
        self.runs.iter().flat_map(|&(a, b)| a..=b)
    }
}

/// Seqs in order as runs of consecutive seqs (a seq out of order starts a new run).
fn runs_of(seqs: impl Iterator<Item = i64>) -> Vec<(i64, i64)> {
    let mut runs: Vec<(i64, i64)> = Vec::new();
    for seq in seqs {
        match runs.last_mut() {
            Some((_, last)) if last.checked_add(1) == Some(seq) => *last = seq,
            _ => runs.push((seq, seq)),
        }
    }
    runs
}

/// HEAD's ledger files: what an earlier build remembered, and what this one read.
#[derive(Debug, Default)]
pub struct LedgerSeqs {
    path: Option<PathBuf>,
    scope: Vec<u8>,
    known: BTreeMap<[u8; ID], FileSeqs>,
    seen: BTreeMap<[u8; ID], FileSeqs>,
    /// Files read from git (the rest came from `known`).
    pub read: usize,
}

impl LedgerSeqs {
    /// What `<git_dir>/exhibit/ledger-seqs` remembers, or nothing.
    pub fn open(git_dir: Option<&Path>) -> LedgerSeqs {
        let (Some(git_dir), Some(scope)) =
            (git_dir, crate::previous::file_records::binary_identity())
        else {
            return LedgerSeqs::default();
        };
        let path = git_dir.join(FILE);
        let known = std::fs::read(&path)
            .ok()
            .and_then(|bytes| parse(&bytes, &scope))
            .unwrap_or_default();
        LedgerSeqs {
            path: Some(path),
            scope,
            known,
            ..LedgerSeqs::default()
        }
    }

    /// What blob `id` holds: remembered, or `read` (its bytes) and read.
    pub fn of(
        &mut self,
        id: git2::Oid,
        header_skipped: bool,
        read: impl FnOnce() -> Result<Vec<u8>>,
    ) -> Result<FileSeqs> {
        let key = <[u8; ID]>::try_from(id.as_bytes()).ok();
        if let Some(known) = key
            .and_then(|k| self.known.get(&k))
            .filter(|k| k.header_skipped == header_skipped)
        {
            let known = known.clone();
            if let Some(k) = key {
                self.seen.insert(k, known.clone());
            }
            return Ok(known);
        }
        self.read += 1;
        let file = FileSeqs::read(&read()?, header_skipped);
        if let Some(k) = key {
            self.seen.insert(k, file.clone());
        }
        Ok(file)
    }

    /// Writes the files this build asked about (and only those) for the next build: to a
    /// temporary file beside it, then renamed over it.
    pub fn save(&self) -> Result<()> {
        let Some(path) = &self.path else {
            return Ok(());
        };
        let mut bytes = MAGIC.to_vec();
        bytes.extend_from_slice(&(self.scope.len() as u32).to_le_bytes());
        bytes.extend_from_slice(&self.scope);
        for (id, f) in &self.seen {
            bytes.extend_from_slice(id);
            bytes.push(u8::from(f.header_skipped));
            bytes.extend_from_slice(&f.len.to_le_bytes());
            bytes.extend_from_slice(&f.sha256.0);
            bytes.extend_from_slice(&(f.runs.len() as u32).to_le_bytes());
            for (a, b) in &f.runs {
                bytes.extend_from_slice(&a.to_le_bytes());
                bytes.extend_from_slice(&b.to_le_bytes());
            }
        }
        let sum = Digest::of(&bytes);
        bytes.extend_from_slice(&sum.0);
        crate::previous::file_records::replace_cache_file(path, &bytes)
    }
}

/// The records of a file that is whole and for this scope; `None` otherwise.
fn parse(bytes: &[u8], scope: &[u8]) -> Option<BTreeMap<[u8; ID], FileSeqs>> {
    let body_len = bytes.len().checked_sub(32)?;
    let (body, sum) = bytes.split_at(body_len);
    if Digest::of(body).0 != sum {
        return None;
    }
    let r = body.strip_prefix(MAGIC.as_slice())?;
    let mut at = 0usize;
    let mut take = |n: usize| -> Option<&[u8]> {
        let piece = r.get(at..at.checked_add(n)?)?;
        at += n;
        Some(piece)
    };
    let u32_at = |b: &[u8]| b.try_into().ok().map(u32::from_le_bytes);
    let u64_at = |b: &[u8]| b.try_into().ok().map(u64::from_le_bytes);
    let scope_len = u32_at(take(4)?)? as usize;
    if take(scope_len)? != scope {
        return None;
    }
    let mut out = BTreeMap::new();
    // Whole records to the end: a record cut short fails the read (None), it is not skipped.
    while let Some(id) = take(ID) {
        let id: [u8; ID] = id.try_into().ok()?;
        let header_skipped = take(1)?[0] == 1;
        let len = u64_at(take(8)?)?;
        let sha256 = Digest(take(32)?.try_into().ok()?);
        let count = u32_at(take(4)?)? as usize;
        let mut runs = Vec::with_capacity(count.min(1 << 16));
        for _ in 0..count {
            let a = u64_at(take(8)?)? as i64;
            let b = u64_at(take(8)?)? as i64;
            runs.push((a, b));
        }
        out.insert(
            id,
            FileSeqs {
                header_skipped,
                len,
                sha256,
                runs,
            },
        );
    }
    // Bytes left that are not a whole id: not this file.
    (at == r.len()).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(n: u8) -> git2::Oid {
        git2::Oid::from_bytes(&[n; 20]).unwrap()
    }

    const FILE_BYTES: &[u8] = b"{\"seq\":1}\n{\"seq\":2}\n{\"seq\":4}\n";

    #[test]
    fn a_remembered_file_is_not_read_again_and_gives_the_same_answer() {
        let tmp = tempfile::tempdir().unwrap();
        let mut first = LedgerSeqs::open(Some(tmp.path()));
        let read = first.of(id(1), false, || Ok(FILE_BYTES.to_vec())).unwrap();
        assert_eq!(read.runs, vec![(1, 2), (4, 4)]);
        assert_eq!(read.seqs().collect::<Vec<_>>(), vec![1, 2, 4]);
        assert_eq!(read.sha256, Digest::of(FILE_BYTES));
        assert_eq!(first.read, 1);
        first.save().unwrap();

        let mut second = LedgerSeqs::open(Some(tmp.path()));
        let known = second
            .of(id(1), false, || panic!("remembered; not read"))
            .unwrap();
        assert_eq!(known, read);
        // The same blob where its first line is the header: read again, not mistaken.
        let as_first = second.of(id(1), true, || Ok(FILE_BYTES.to_vec())).unwrap();
        assert_eq!(as_first.runs, vec![(2, 2), (4, 4)]);
        assert_eq!(second.read, 1);
    }

    #[test]
    fn a_damaged_file_or_another_binarys_is_ignored() {
        let tmp = tempfile::tempdir().unwrap();
        let mut first = LedgerSeqs::open(Some(tmp.path()));
        first.of(id(1), false, || Ok(FILE_BYTES.to_vec())).unwrap();
        first.save().unwrap();
        let file = tmp.path().join(FILE);
        let bytes = std::fs::read(&file).unwrap();
        let scope = crate::previous::file_records::binary_identity().unwrap();
        assert!(parse(&bytes, &scope).is_some());
        assert!(parse(&bytes, b"another exhibit").is_none());
        for at in [0, bytes.len() / 2, bytes.len() - 1] {
            let mut flipped = bytes.clone();
            flipped[at] ^= 1;
            assert!(parse(&flipped, &scope).is_none(), "bit {at}");
        }
        assert!(parse(&bytes[..bytes.len() - 1], &scope).is_none());
        assert!(parse(b"", &scope).is_none());
    }
}
