//! What the last build wrote in DIR: each file's stat data (device, inode, size, modification
//! and change time) and the sha256 of its bytes, remembered so that the next build can tell an
//! unchanged file from its stat data alone instead of reading it — the way git trusts its index
//! (docs/scale.md#comparing-without-reading).
//!
//! A file's change time (ctime) is set by the kernel on every change to its bytes, its links
//! or its mode, and no program can set it back; with the same device and inode, a file whose
//! ctime, mtime and size are what exhibit recorded has not been written since. The one
//! ambiguity is a change within the same clock tick as the record: as in git ("racy git"), a
//! file whose ctime or mtime is not strictly before the moment the record was sealed is not
//! recorded, and is read and compared by the next build.
//!
//! A cache, never a source of truth, beside the blob digests (`<git dir>/exhibit/dir-stat`,
//! crate::blob_digests): missing, unreadable, for another DIR, truncated or failing its own
//! checksum, it is ignored and every file of DIR is read and compared, as before. It is written
//! only after a build has written DIR (never by a refused or failed build, nor by `--dry-run`).
//!
//! Format: the 16 bytes `exhibit-dirstat\n`; DIR's resolved path (u32 little-endian length,
//! bytes); records sorted by path, each a u16 length and the path relative to DIR, then device,
//! inode, size, mtime seconds and nanoseconds, ctime seconds and nanoseconds (eight bytes each,
//! little-endian) and the 32-byte sha256; then the sha256 of everything before it. Read as a
//! stream (a million files are a hundred megabytes of records: docs/scale.md#memory).

use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

use anyhow::{Context, Result};
use exhibit_protocol::Digest;
use sha2::Digest as _;

use crate::output::Tree;

const MAGIC: &[u8; 16] = b"exhibit-dirstat\n";

/// The file's name inside the git folder.
pub const FILE: &str = "exhibit/dir-stat";

/// What exhibit recorded of one file of DIR right after writing it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Recorded {
    stat: Stat,
    pub sha256: Digest,
}

/// The stat data that changes whenever a file's bytes do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stat {
    dev: u64,
    ino: u64,
    size: u64,
    mtime: (i64, i64),
    ctime: (i64, i64),
}

impl Stat {
    fn of(meta: &std::fs::Metadata) -> Stat {
        Stat {
            dev: meta.dev(),
            ino: meta.ino(),
            size: meta.size(),
            mtime: (meta.mtime(), meta.mtime_nsec()),
            ctime: (meta.ctime(), meta.ctime_nsec()),
        }
    }
}

impl Recorded {
    /// The file `meta` describes is the one recorded, unchanged since (same device, inode, size,
    /// mtime and ctime).
    pub fn describes(&self, meta: &std::fs::Metadata) -> bool {
        self.stat == Stat::of(meta)
    }
}

/// The records of the last build, read in path order as the write stage walks the new tree.
pub struct DirRecords {
    reader: Option<BufReader<std::io::Take<File>>>,
    /// The next record not yet asked about.
    next: Option<(Vec<u8>, Recorded)>,
    /// Files whose stat data matched their record (not read).
    pub trusted: usize,
}

impl DirRecords {
    /// Nothing remembered: every file is read and compared.
    pub fn none() -> DirRecords {
        DirRecords {
            reader: None,
            next: None,
            trusted: 0,
        }
    }

    /// What `<git_dir>/exhibit/dir-stat` remembers of `dir`, or nothing (no repository, no file,
    /// a file for another DIR, or one that fails its checksum).
    pub fn open(git_dir: Option<&Path>, dir: &Path) -> DirRecords {
        git_dir
            .and_then(|g| open_file(&g.join(FILE), dir).ok().flatten())
            .unwrap_or_else(DirRecords::none)
    }

    /// The record of `rel`, when there is one. Paths must be asked in increasing order (the
    /// tree's order, which is the file's).
    pub fn get(&mut self, rel: &str) -> Option<Recorded> {
        loop {
            if self.next.is_none() {
                let reader = self.reader.as_mut()?;
                match read_record(reader) {
                    Ok(Some(r)) => self.next = Some(r),
                    // The end, or a record cut short (the checksum passed: not expected).
                    Ok(None) | Err(_) => {
                        self.reader = None;
                        return None;
                    }
                }
            }
            let (path, recorded) = self.next.as_ref()?;
            match path.as_slice().cmp(rel.as_bytes()) {
                std::cmp::Ordering::Less => self.next = None,
                std::cmp::Ordering::Equal => {
                    let recorded = *recorded;
                    self.next = None;
                    return Some(recorded);
                }
                std::cmp::Ordering::Greater => return None,
            }
        }
    }
}

fn open_file(path: &Path, dir: &Path) -> std::io::Result<Option<DirRecords>> {
    let Ok(dir) = dir.canonicalize() else {
        return Ok(None);
    };
    // First the checksum, over the whole file, streamed; then the records, streamed again.
    let mut file = File::open(path)?;
    let Some(body_len) = file.metadata()?.len().checked_sub(32) else {
        return Ok(None);
    };
    let mut hasher = sha2::Sha256::new();
    std::io::copy(&mut (&mut file).take(body_len), &mut HashInto(&mut hasher))?;
    let mut sum = [0u8; 32];
    file.read_exact(&mut sum)?;
    if <[u8; 32]>::from(hasher.finalize()) != sum {
        return Ok(None);
    }
    let mut reader = BufReader::with_capacity(1 << 16, File::open(path)?.take(body_len));
    let mut magic = [0u8; 16];
    reader.read_exact(&mut magic)?;
    let mut len = [0u8; 4];
    reader.read_exact(&mut len)?;
    let mut for_dir = vec![0u8; u32::from_le_bytes(len) as usize];
    reader.read_exact(&mut for_dir)?;
    if &magic != MAGIC || for_dir != dir.as_os_str().as_bytes() {
        return Ok(None);
    }
    Ok(Some(DirRecords {
        reader: Some(reader),
        next: None,
        trusted: 0,
    }))
}

fn read_record(reader: &mut impl Read) -> std::io::Result<Option<(Vec<u8>, Recorded)>> {
    let mut len = [0u8; 2];
    match reader.read_exact(&mut len) {
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(None),
        other => other?,
    }
    let mut path = vec![0u8; u16::from_le_bytes(len) as usize];
    reader.read_exact(&mut path)?;
    let mut n = [0u64; 7];
    for v in &mut n {
        let mut b = [0u8; 8];
        reader.read_exact(&mut b)?;
        *v = u64::from_le_bytes(b);
    }
    let stat = Stat {
        dev: n[0],
        ino: n[1],
        size: n[2],
        mtime: (n[3] as i64, n[4] as i64),
        ctime: (n[5] as i64, n[6] as i64),
    };
    let mut sha256 = [0u8; 32];
    reader.read_exact(&mut sha256)?;
    let sha256 = Digest(sha256);
    Ok(Some((path, Recorded { stat, sha256 })))
}

/// Records every file of `tree` as it now stands in `dir` (just written), for the next build:
/// to a temporary file beside the cache, then renamed over it. Returns how many were recorded.
pub fn save(git_dir: Option<&Path>, dir: &Path, tree: &Tree) -> Result<usize> {
    let Some(git_dir) = git_dir else {
        return Ok(0);
    };
    let path = git_dir.join(FILE);
    let folder = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(folder)
        .with_context(|| format!("{}: cannot create", folder.display()))?;
    let temporary = path.with_extension(format!("new-{}", std::process::id()));
    let result = write_records(&temporary, dir, tree, None).and_then(|recorded| {
        std::fs::rename(&temporary, &path)
            .with_context(|| format!("{}: cannot replace", path.display()))?;
        Ok(recorded)
    });
    if result.is_err() {
        let _ = std::fs::remove_file(&temporary);
    }
    result
}

/// `sealed_at` replaces the seal's moment (tests: a seal before every file's change time).
fn write_records(
    temporary: &Path,
    dir: &Path,
    tree: &Tree,
    sealed_at: Option<(i64, i64)>,
) -> Result<usize> {
    let dir = dir
        .canonicalize()
        .with_context(|| format!("{}: cannot resolve", dir.display()))?;
    let file = File::create(temporary)
        .with_context(|| format!("{}: cannot create", temporary.display()))?;
    // The moment of sealing, on the filesystem's own clock: a file changed at or after it may
    // have changed after it was looked at within one clock tick, and is left out.
    let sealed = file
        .metadata()
        .with_context(|| format!("{}: cannot read", temporary.display()))?;
    let sealed = sealed_at.unwrap_or((sealed.mtime(), sealed.mtime_nsec()));
    let mut out = BufWriter::with_capacity(1 << 16, Hashing::new(file));
    let failed = |e: std::io::Error| {
        anyhow::Error::from(e).context(format!("{}: cannot write", temporary.display()))
    };
    let dir_bytes = dir.as_os_str().as_bytes();
    out.write_all(MAGIC).map_err(failed)?;
    out.write_all(&(dir_bytes.len() as u32).to_le_bytes())
        .map_err(failed)?;
    out.write_all(dir_bytes).map_err(failed)?;
    let mut recorded = 0;
    for (rel, content) in &tree.files {
        let Ok(meta) = std::fs::symlink_metadata(dir.join(rel)) else {
            continue;
        };
        let stat = Stat::of(&meta);
        if !meta.is_file()
            || stat.size != content.len()
            || stat.ctime >= sealed
            || stat.mtime >= sealed
        {
            continue;
        }
        let Ok(path_len) = u16::try_from(rel.len()) else {
            continue;
        };
        let sha256 = content.sha256()?;
        out.write_all(&path_len.to_le_bytes()).map_err(failed)?;
        out.write_all(rel.as_bytes()).map_err(failed)?;
        for n in [
            stat.dev,
            stat.ino,
            stat.size,
            stat.mtime.0 as u64,
            stat.mtime.1 as u64,
            stat.ctime.0 as u64,
            stat.ctime.1 as u64,
        ] {
            out.write_all(&n.to_le_bytes()).map_err(failed)?;
        }
        out.write_all(&sha256.0).map_err(failed)?;
        recorded += 1;
    }
    let mut hashing = out.into_inner().map_err(|e| failed(e.into_error()))?;
    let sum: [u8; 32] = hashing.hasher.clone().finalize().into();
    hashing.file.write_all(&sum).map_err(failed)?;
    Ok(recorded)
}

/// A file that hashes what is written to it.
struct Hashing {
    file: File,
    hasher: sha2::Sha256,
}

impl Hashing {
    fn new(file: File) -> Hashing {
        Hashing {
            file,
            hasher: sha2::Sha256::new(),
        }
    }
}

impl Write for Hashing {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.file.write(buf)?;
        self.hasher.update(&buf[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.file.flush()
    }
}

/// A sink that hashes what is copied into it.
struct HashInto<'a>(&'a mut sha2::Sha256);

impl Write for HashInto<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.update(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tree written to `dir`, then a pause longer than a clock tick so the files' change times
    /// are strictly before the record's seal (else the racy rule leaves them out), then saved.
    fn written_and_recorded(git: &Path, dir: &Path, tree: &Tree) -> usize {
        write(dir, tree);
        std::thread::sleep(std::time::Duration::from_millis(30));
        save(Some(git), dir, tree).unwrap()
    }

    fn write(dir: &Path, tree: &Tree) {
        for (path, content) in &tree.files {
            let path = dir.join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, content.bytes().unwrap()).unwrap();
        }
    }

    fn tree(files: &[(&str, &[u8])]) -> Tree {
        let mut tree = Tree::default();
        for (path, bytes) in files {
            tree.put(*path, bytes.to_vec());
        }
        tree
    }

    #[test]
    fn an_unchanged_file_is_described_by_its_record_and_an_edited_one_is_not() {
        let tmp = tempfile::tempdir().unwrap();
        let (git, dir) = (tmp.path().join("git"), tmp.path().join("site"));
        let t = tree(&[("index.html", b"page"), ("ledger/a.txt", b"aaa")]);
        assert_eq!(written_and_recorded(&git, &dir, &t), 2);

        let mut known = DirRecords::open(Some(&git), &dir);
        let page = known.get("index.html").expect("recorded");
        assert_eq!(page.sha256, Digest::of(b"page"));
        assert!(page.describes(&std::fs::symlink_metadata(dir.join("index.html")).unwrap()));
        // Edited in place, same size, even with its mtime put back: the kernel moved its ctime.
        let a = dir.join("ledger/a.txt");
        let before = std::fs::metadata(&a).unwrap().modified().unwrap();
        std::fs::write(&a, b"bbb").unwrap();
        std::fs::File::options()
            .write(true)
            .open(&a)
            .unwrap()
            .set_modified(before)
            .unwrap();
        let recorded = known.get("ledger/a.txt").expect("recorded");
        assert!(!recorded.describes(&std::fs::symlink_metadata(&a).unwrap()));
        // Asked in order, a path past the last record has none.
        assert!(known.get("zzz").is_none());
    }

    #[test]
    fn a_file_changed_at_or_after_the_seal_is_not_recorded() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("site");
        let t = tree(&[("a.txt", b"a")]);
        write(&dir, &t);
        // Sealed before the file's change time: the file may have changed within the tick.
        let temporary = tmp.path().join("records");
        let recorded = write_records(&temporary, &dir, &t, Some((0, 0))).unwrap();
        assert_eq!(recorded, 0);
    }

    #[test]
    fn records_for_another_dir_or_damaged_are_ignored() {
        let tmp = tempfile::tempdir().unwrap();
        let (git, dir) = (tmp.path().join("git"), tmp.path().join("site"));
        let t = tree(&[("a.txt", b"a")]);
        assert_eq!(written_and_recorded(&git, &dir, &t), 1);
        assert!(DirRecords::open(Some(&git), &dir).get("a.txt").is_some());
        let other = tmp.path().join("other");
        write(&other, &t);
        assert!(DirRecords::open(Some(&git), &other).get("a.txt").is_none());
        assert!(DirRecords::open(None, &dir).get("a.txt").is_none());
        let file = git.join(FILE);
        let bytes = std::fs::read(&file).unwrap();
        for at in [0, bytes.len() / 2, bytes.len() - 1] {
            let mut flipped = bytes.clone();
            flipped[at] ^= 1;
            std::fs::write(&file, &flipped).unwrap();
            assert!(
                DirRecords::open(Some(&git), &dir).get("a.txt").is_none(),
                "bit {at} flipped"
            );
        }
        for cut in [&bytes[..bytes.len() - 1], &bytes[..10], b"".as_slice()] {
            std::fs::write(&file, cut).unwrap();
            assert!(DirRecords::open(Some(&git), &dir).get("a.txt").is_none());
        }
    }
}
