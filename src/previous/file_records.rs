//! Files' stat data remembered between builds, so that a file unchanged since an earlier build
//! is known from its stat data alone instead of being read again — the way git trusts its index
//! (docs/scale.md#comparing-without-reading). Two caches use it: DIR's files as the last build
//! wrote them (crate::site_write::dir_record) and the witness store's proofs as the last build checked them
//! (crate::publication::layers::proof_records).
//!
//! A file's change time (ctime) is set by the kernel on every change to its bytes, its links
//! or its mode, and no program can set it back; with the same device and inode, a file whose
//! ctime, mtime and size are what was recorded has not been written since. The one ambiguity is
//! a change within the same clock tick as the look: as in git ("racy git"), a file whose ctime
//! or mtime is not strictly before the moment the record was opened (taken from the
//! filesystem's own clock, as the temporary file's mtime) is not recorded, and is read again.
//!
//! The files live in the repository's own git folder (`<git dir>/exhibit/`), beside the blob
//! digests (crate::previous::blob_digests), which a clone or a pull request cannot write. Each is a cache,
//! never a source of truth: missing, unreadable, written for another scope (another DIR, store
//! or exhibit binary), truncated or failing its own checksum, it is ignored and every file is
//! read as before. A new one is written to a temporary file and renamed over the old only after
//! a build has written DIR (never by a refused or failed build, nor by `--dry-run`).
//!
//! Format: the 16 bytes `exhibit-statrec\n`; the scope (u32 little-endian length, bytes);
//! records sorted by name, each a u16 length and the name, then device, inode, size, mtime
//! seconds and nanoseconds, ctime seconds and nanoseconds (eight bytes each, little-endian) and
//! the cache's fixed-size payload; then the sha256 of everything before it. Read and written as
//! a stream: a million records are a hundred megabytes (docs/scale.md#memory).

use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use sha2::Digest as _;

const MAGIC: &[u8; 16] = b"exhibit-statrec\n";

/// The stat data that changes whenever a file's bytes do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stat {
    dev: u64,
    ino: u64,
    pub size: u64,
    mtime: (i64, i64),
    ctime: (i64, i64),
}

impl Stat {
    pub fn of(meta: &std::fs::Metadata) -> Stat {
        Stat {
            dev: meta.dev(),
            ino: meta.ino(),
            size: meta.size(),
            mtime: (meta.mtime(), meta.mtime_nsec()),
            ctime: (meta.ctime(), meta.ctime_nsec()),
        }
    }

    /// The same data from a `stat` call made by a folder's handle (crate::site_write::dir_folders). One
    /// record file is always written and compared from the same kind of call.
    // The fields' types differ between architectures: on some the conversions are identities.
    #[allow(clippy::useless_conversion, clippy::unnecessary_cast)]
    pub fn of_raw(raw: &rustix::fs::Stat) -> Stat {
        Stat {
            dev: u64::from(raw.st_dev),
            ino: u64::from(raw.st_ino),
            size: raw.st_size as u64,
            mtime: (i64::from(raw.st_mtime), raw.st_mtime_nsec as i64),
            ctime: (i64::from(raw.st_ctime), raw.st_ctime_nsec as i64),
        }
    }

    /// `meta` describes the file recorded, unchanged since (same device, inode, size, mtime and
    /// ctime).
    pub fn describes(&self, meta: &std::fs::Metadata) -> bool {
        *self == Stat::of(meta)
    }
}

/// The exhibit binary that is running: its path and stat data. What a cache learned by this
/// binary's checks (a proof passed, the seqs a ledger file holds) is believed only by the same
/// binary: an upgraded exhibit checks again once.
pub fn binary_identity() -> Option<Vec<u8>> {
    let exe = std::env::current_exe().ok()?;
    let m = std::fs::metadata(&exe).ok()?;
    let mut scope = exe.as_os_str().as_encoded_bytes().to_vec();
    scope.extend_from_slice(
        format!(
            "\0{}:{}:{}:{}.{}:{}.{}",
            m.dev(),
            m.ino(),
            m.size(),
            m.mtime(),
            m.mtime_nsec(),
            m.ctime(),
            m.ctime_nsec()
        )
        .as_bytes(),
    );
    Some(scope)
}

/// Writes a cache file of `<git dir>/exhibit/` whole: to a temporary file beside it, then renamed
/// over it, so that a reader finds the old file or the new one, never a part. Not
/// `tempfile::NamedTempFile::persist`: its random name cannot say whose it is, and the name
/// `<name>.new-<pid>` is what lets a later build remove a stopped build's leftover while leaving
/// a running one's ([`remove_left_temporaries`]).
pub fn replace_cache_file(path: &Path, bytes: &[u8]) -> Result<()> {
    let folder = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(folder)
        .with_context(|| format!("{}: cannot create", folder.display()))?;
    let temporary = path.with_extension(format!("new-{}", std::process::id()));
    std::fs::write(&temporary, bytes)
        .with_context(|| format!("{}: cannot write", temporary.display()))?;
    std::fs::rename(&temporary, path).with_context(|| {
        let _ = std::fs::remove_file(&temporary);
        format!("{}: cannot replace", path.display())
    })?;
    remove_left_temporaries(path);
    Ok(())
}

/// Removes the temporary files of `path` that stopped builds left beside it
/// (`<name>.new-<pid>` whose process is gone: killed before it put its cache in place), and
/// says so. At a million lines each is up to 250 MB of the repository's git folder, and every
/// stopped build left one more (docs/build.md#safety). Only regular files of exactly that name
/// are removed; a concurrent build's (its process running) is left, as is anything else.
pub(crate) fn remove_left_temporaries(path: &Path) {
    let (Some(folder), Some(prefix)) = (
        path.parent(),
        path.with_extension("new-")
            .file_name()
            .and_then(|n| n.to_str().map(str::to_string)),
    ) else {
        return;
    };
    remove_left_temporaries_named(folder, &prefix);
}

/// The files of `folder` named `<prefix><pid>` whose process is gone, removed and said (as
/// [`remove_left_temporaries`]).
pub(crate) fn remove_left_temporaries_named(folder: &Path, prefix: &str) {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.strip_prefix(prefix))
            .filter(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
            .and_then(|p| p.parse::<u32>().ok())
        else {
            continue;
        };
        let is_file =
            std::fs::symlink_metadata(entry.path()).is_ok_and(|m| m.file_type().is_file());
        if pid == std::process::id() || alive(pid) || !is_file {
            continue;
        }
        if std::fs::remove_file(entry.path()).is_ok() {
            crate::say!(
                "exhibit: note: removed {}, left by a build that was stopped (process {pid} is gone)",
                crate::terminal::escape(&entry.path().display().to_string())
            );
        }
    }
}

/// Whether a process with this number runs: a running build's temporary files are its own.
/// Here, in the lower room, so that DIR's writer (crate::site_write) and this file's caches ask
/// the same question.
pub fn alive(pid: u32) -> bool {
    std::path::Path::new(&format!("/proc/{pid}")).exists()
}

/// Writes `bytes` over the file at `path` in place and puts its mtime back, as someone hiding
/// an edit would: only the change time (which no program sets) still tells (tests).
#[cfg(test)]
pub fn rewrite_keeping_mtime(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mtime = std::fs::metadata(path)?.modified()?;
    std::fs::write(path, bytes)?;
    File::options().write(true).open(path)?.set_modified(mtime)
}

/// One record as read: the name, its stat data, the payload.
type RawRecord = (Vec<u8>, Stat, Vec<u8>);

/// The records an earlier build wrote, read in name order.
pub struct Records {
    reader: Option<BufReader<std::io::Take<File>>>,
    payload: usize,
    /// The next record not yet asked about.
    next: Option<RawRecord>,
}

impl Records {
    /// Nothing remembered.
    pub fn none() -> Records {
        Records {
            reader: None,
            payload: 0,
            next: None,
        }
    }

    /// What `file` remembers for `scope`, each record carrying `payload` bytes; nothing when
    /// the file is absent, for another scope, or fails its checksum.
    pub fn open(file: &Path, scope: &[u8], payload: usize) -> Records {
        open_records(file, scope, payload)
            .ok()
            .flatten()
            .unwrap_or_else(Records::none)
    }

    /// The record of `name` (its stat data and payload), when there is one. Names must be asked
    /// in increasing byte order (the file's); one asked out of order is not found.
    pub fn get(&mut self, name: &str) -> Option<(Stat, Vec<u8>)> {
        loop {
            if self.next.is_none() {
                let reader = self.reader.as_mut()?;
                match read_record(reader, self.payload) {
                    Ok(Some(r)) => self.next = Some(r),
                    // The end, or a record cut short (the checksum passed: not expected).
                    Ok(None) | Err(_) => {
                        self.reader = None;
                        return None;
                    }
                }
            }
            let (recorded, _, _) = self.next.as_ref()?;
            match recorded.as_slice().cmp(name.as_bytes()) {
                std::cmp::Ordering::Less => self.next = None,
                std::cmp::Ordering::Equal => {
                    let (_, stat, payload) = self.next.take()?;
                    return Some((stat, payload));
                }
                std::cmp::Ordering::Greater => return None,
            }
        }
    }
}

fn open_records(path: &Path, scope: &[u8], payload: usize) -> std::io::Result<Option<Records>> {
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
    // A scope longer than the file is not this file (and no allocation follows a length read
    // from it unchecked).
    let scope_len = u64::from(u32::from_le_bytes(len));
    if scope_len != scope.len() as u64 || scope_len > body_len {
        return Ok(None);
    }
    let mut for_scope = vec![0u8; scope.len()];
    reader.read_exact(&mut for_scope)?;
    if &magic != MAGIC || for_scope != scope {
        return Ok(None);
    }
    Ok(Some(Records {
        reader: Some(reader),
        payload,
        next: None,
    }))
}

fn read_record(reader: &mut impl Read, payload: usize) -> std::io::Result<Option<RawRecord>> {
    let mut len = [0u8; 2];
    match reader.read_exact(&mut len) {
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(None),
        other => other?,
    }
    let mut name = vec![0u8; u16::from_le_bytes(len) as usize];
    reader.read_exact(&mut name)?;
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
    let mut bytes = vec![0u8; payload];
    reader.read_exact(&mut bytes)?;
    Ok(Some((name, stat, bytes)))
}

/// A cache file being written: a temporary file beside it (`<name>.new-<pid>`), ended by the
/// sha256 of everything written and renamed over it by [`StagedFile::commit`]; dropped
/// uncommitted (a refused or failed build, a dry run), it is removed. Written before DIR is
/// and put in place only after, so a cache the build no longer needs in memory is let go before
/// the write stage (docs/scale.md#memory), and a failed build still leaves the old cache.
pub struct StagedFile {
    path: PathBuf,
    temporary: PathBuf,
    out: Option<BufWriter<Hashing>>,
}

impl StagedFile {
    /// Starts the file that will replace `path`. The folder must exist.
    pub fn create(path: &Path) -> Result<StagedFile> {
        let temporary = path.with_extension(format!("new-{}", std::process::id()));
        let file = File::create(&temporary)
            .with_context(|| format!("{}: cannot create", temporary.display()))?;
        Ok(StagedFile {
            path: path.to_path_buf(),
            temporary,
            out: Some(BufWriter::with_capacity(1 << 16, Hashing::new(file))),
        })
    }

    /// The temporary file's metadata (its change time seals stat records).
    fn metadata(&self) -> Result<std::fs::Metadata> {
        let out = self.out.as_ref().context("already committed")?;
        out.get_ref()
            .file
            .metadata()
            .with_context(|| format!("{}: cannot read", self.temporary.display()))
    }

    pub fn write(&mut self, bytes: &[u8]) -> Result<()> {
        let out = self.out.as_mut().context("already committed")?;
        out.write_all(bytes)
            .with_context(|| format!("{}: cannot write", self.temporary.display()))
    }

    /// Ends the file with its checksum and puts it in place of the old one.
    pub fn commit(mut self) -> Result<()> {
        let out = self.out.take().context("already committed")?;
        let result = self.seal(out);
        if result.is_err() {
            let _ = std::fs::remove_file(&self.temporary);
        }
        result
    }

    fn seal(&self, out: BufWriter<Hashing>) -> Result<()> {
        let failed = |e: std::io::Error| {
            anyhow::Error::from(e).context(format!("{}: cannot write", self.temporary.display()))
        };
        let mut hashing = out.into_inner().map_err(|e| failed(e.into_error()))?;
        let sum: [u8; 32] = hashing.hasher.clone().finalize().into();
        hashing.file.write_all(&sum).map_err(failed)?;
        std::fs::rename(&self.temporary, &self.path)
            .with_context(|| format!("{}: cannot replace", self.path.display()))?;
        remove_left_temporaries(&self.path);
        Ok(())
    }
}

impl Drop for StagedFile {
    /// An uncommitted file leaves nothing behind.
    fn drop(&mut self) {
        if self.out.take().is_some() {
            let _ = std::fs::remove_file(&self.temporary);
        }
    }
}

/// Records being written to a [`StagedFile`]: committed once DIR is written, dropped
/// uncommitted (a refused or failed build), removed.
pub struct Pending {
    file: StagedFile,
    /// The filesystem's time when the file was opened: a file changed at or after it is not
    /// recorded.
    sealed: (i64, i64),
    last: Option<Vec<u8>>,
    pub recorded: usize,
}

impl std::fmt::Debug for Pending {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Pending({}, {} recorded)",
            self.file.path.display(),
            self.recorded
        )
    }
}

impl Pending {
    /// Starts new records for `scope`, to replace `path` when committed. The folder must
    /// exist (it is not created here: records may be started by a build that is then refused).
    pub fn create(path: &Path, scope: &[u8]) -> Result<Pending> {
        let file = StagedFile::create(path)?;
        let meta = file.metadata()?;
        let mut pending = Pending {
            file,
            sealed: (meta.mtime(), meta.mtime_nsec()),
            last: None,
            recorded: 0,
        };
        pending.write(MAGIC)?;
        pending.write(&(scope.len() as u32).to_le_bytes())?;
        pending.write(scope)?;
        Ok(pending)
    }

    /// Replaces the moment of sealing (tests: a seal before every file's change time).
    #[cfg(test)]
    pub fn sealed_at(&mut self, sealed: (i64, i64)) {
        self.sealed = sealed;
    }

    fn write(&mut self, bytes: &[u8]) -> Result<()> {
        self.file.write(bytes)
    }

    /// Records `name` (in increasing order) as `meta` describes it, with `payload`. A file
    /// changed at or after the seal, or a name out of order or too long, is left out
    /// (false): it is read again next time.
    pub fn record(&mut self, name: &str, stat: Stat, payload: &[u8]) -> Result<bool> {
        let in_order = self.last.as_deref().is_none_or(|l| l < name.as_bytes());
        let Ok(len) = u16::try_from(name.len()) else {
            return Ok(false);
        };
        if !in_order || stat.ctime >= self.sealed || stat.mtime >= self.sealed {
            return Ok(false);
        }
        self.write(&len.to_le_bytes())?;
        self.write(name.as_bytes())?;
        for n in [
            stat.dev,
            stat.ino,
            stat.size,
            stat.mtime.0 as u64,
            stat.mtime.1 as u64,
            stat.ctime.0 as u64,
            stat.ctime.1 as u64,
        ] {
            self.write(&n.to_le_bytes())?;
        }
        self.write(payload)?;
        self.last = Some(name.as_bytes().to_vec());
        self.recorded += 1;
        Ok(true)
    }

    /// Seals the records and puts them in place of the old ones. Returns how many there are.
    pub fn commit(self) -> Result<usize> {
        self.file.commit()?;
        Ok(self.recorded)
    }
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

    /// A pid no process has (above the kernel's limit, 2^22).
    const GONE: u32 = 4_000_000_000;

    #[test]
    fn a_stopped_builds_temporary_is_removed_when_a_cache_is_put_in_place_and_nothing_else() {
        // Caught: temporaries left to pile up (every stopped build added up to 250 MB at a
        // million lines to the git folder), a running build's removed, a symlink followed, a
        // look-alike name removed.
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("blob-sha256");
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("kept"), b"k").unwrap();
        let left = tmp.path().join(format!("blob-sha256.new-{GONE}"));
        let running = tmp.path().join("blob-sha256.new-1");
        let link = tmp.path().join(format!("blob-sha256.new-{}", GONE - 1));
        let other_cache = tmp.path().join(format!("dir-stat.new-{GONE}"));
        let look_alike = tmp.path().join(format!("blob-sha256.new-{GONE}x"));
        for p in [&left, &running, &other_cache, &look_alike] {
            std::fs::write(p, b"t").unwrap();
        }
        std::os::unix::fs::symlink(outside.path().join("kept"), &link).unwrap();
        let mut staged = StagedFile::create(&path).unwrap();
        staged.write(b"cache").unwrap();
        staged.commit().unwrap();
        assert!(!left.exists());
        for p in [&running, &link, &other_cache, &look_alike] {
            assert!(std::fs::symlink_metadata(p).is_ok(), "{}", p.display());
        }
        assert!(outside.path().join("kept").exists());
        // The same when a whole cache file is replaced.
        std::fs::write(&left, b"t").unwrap();
        replace_cache_file(&path, b"cache").unwrap();
        assert!(!left.exists());
        assert!(running.exists());
    }

    #[test]
    fn an_uncommitted_cache_leaves_the_stopped_builds_temporaries_as_they_are() {
        // A dry run, a refused or failed build: it puts nothing in place and removes nothing.
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("store-proofs");
        let left = tmp.path().join(format!("store-proofs.new-{GONE}"));
        std::fs::write(&left, b"t").unwrap();
        drop(StagedFile::create(&path).unwrap());
        assert!(left.exists());
        assert!(!path.exists());
    }
}
