//! What the last build wrote in DIR: each file's stat data and the sha256 of its bytes, so
//! that the next build tells an unchanged file from its stat data instead of reading it to
//! compare (docs/scale.md#comparing-without-reading). The records' format, the racy rule and
//! why they may be trusted are crate::previous::file_records'; this file holds DIR's: the scope is DIR's
//! resolved path, the payload a file's sha256.

use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use anyhow::{Context, Result};
use exhibit_protocol::Digest;

use crate::previous::file_records::{Pending, Records, Stat};
use crate::published::output_tree::{DiskFile, Tree};
use crate::site_write::dir_folders::{OpenFolders, folder_and_name, is_regular, stat_in};

/// The file's name inside the git folder.
pub const FILE: &str = "exhibit/dir-stat";

/// What exhibit recorded of one file of DIR right after writing it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Recorded {
    stat: Stat,
    pub sha256: Digest,
}

impl Recorded {
    /// The file `stat` describes (read by its folder's handle: crate::site_write::dir_folders) is the one
    /// recorded, unchanged since.
    pub fn describes(&self, stat: &rustix::fs::Stat) -> bool {
        self.stat == Stat::of_raw(stat)
    }
}

/// The records of the last build, read in path order as the write stage walks the new tree.
pub struct DirRecords {
    records: Records,
}

impl DirRecords {
    /// Nothing remembered: every file is read and compared.
    pub fn none() -> DirRecords {
        DirRecords {
            records: Records::none(),
        }
    }

    /// What `<git_dir>/exhibit/dir-stat` remembers of `dir`, or nothing.
    pub fn open(git_dir: Option<&Path>, dir: &Path) -> DirRecords {
        let (Some(git_dir), Ok(dir)) = (git_dir, dir.canonicalize()) else {
            return DirRecords::none();
        };
        DirRecords {
            records: Records::open(&git_dir.join(FILE), dir.as_os_str().as_bytes(), 32),
        }
    }

    /// The record of `rel`, when there is one (asked in the tree's order).
    pub fn get(&mut self, rel: &str) -> Option<Recorded> {
        let (stat, payload) = self.records.get(rel)?;
        let sha256 = Digest(<[u8; 32]>::try_from(payload.as_slice()).ok()?);
        Some(Recorded { stat, sha256 })
    }
}

/// Which of a tree's files, by their place in its order, the write stage found unchanged by
/// DIR's record (its stat data what was recorded, its sha256 the tree's) and did not touch: the
/// next record carries their record as it was, without looking at them again. At a million
/// lines that is a million `stat` calls saved, each 4 µs on a virtual machine
/// (docs/scale.md#comparing-without-reading). One bit a file.
#[derive(Debug, Default, Clone)]
pub struct KeptByRecord {
    bits: Vec<u64>,
}

impl KeptByRecord {
    /// File `n` of the tree's order is unchanged by its record.
    pub fn keep(&mut self, n: usize) {
        let (word, bit) = (n / 64, n % 64);
        if self.bits.len() <= word {
            self.bits.resize(word + 1, 0);
        }
        self.bits[word] |= 1 << bit;
    }

    pub fn kept(&self, n: usize) -> bool {
        self.bits
            .get(n / 64)
            .is_some_and(|w| w & (1 << (n % 64)) != 0)
    }
}

/// DIR's files that its record says hold given bytes, unchanged since the last build wrote
/// them. A file this build makes again with the same bytes need not be held in memory until DIR
/// is written: it is named as DIR's file, which the write stage then leaves untouched (the same
/// check as [`crate::published::output_tree`]'s `unchanged`: docs/build.md#the-write) or, where DIR's copy has
/// changed since, reads again, when it must still hash to the recorded sha256 or the build fails
/// and DIR's files stay as they were (docs/scale.md#memory).
pub struct DirHolds {
    records: DirRecords,
    folders: OpenFolders,
    dir: std::path::PathBuf,
    /// The last folder asked about, shared by the files named in it.
    folder: Option<(String, std::sync::Arc<Path>)>,
}

impl DirHolds {
    pub fn open(git_dir: Option<&Path>, dir: &Path) -> DirHolds {
        DirHolds {
            records: DirRecords::open(git_dir, dir),
            folders: OpenFolders::existing(dir),
            dir: dir.to_path_buf(),
            folder: None,
        }
    }

    /// `DIR/<rel>` as a file to read again, when DIR's record says it holds `len` bytes of
    /// sha256 `sha256` and its stat data is unchanged since (a regular file, reached through
    /// real folders of DIR). Ask in increasing order of `rel`: the record is read forward.
    pub fn holding(&mut self, rel: &str, sha256: Digest, len: u64) -> Option<DiskFile> {
        let recorded = self.recorded(rel)?;
        self.holding_recorded(rel, recorded, sha256, len)
    }

    /// DIR's record of `rel`, if it has one: what [`DirHolds::holding_recorded`] then checks,
    /// for a caller that makes the file's bytes only when DIR does not hold them. Asked in
    /// increasing order of `rel`, each once.
    pub fn recorded(&mut self, rel: &str) -> Option<Recorded> {
        self.records.get(rel)
    }

    /// `DIR/<rel>` as a file to read again when it holds `len` bytes of sha256 `sha256`, read
    /// to be sure (a regular file of that size, opened by its folder's handle, never through a
    /// symlink, hashed as it streams): for a file DIR's record does not describe (DIR checked
    /// out again, a clone) where the caller would otherwise hold what it needs to make the file
    /// again (docs/scale.md#without-dirs-record-dry-run). An error reading is no file.
    pub fn holding_read(&mut self, rel: &str, sha256: Digest, len: u64) -> Option<DiskFile> {
        use sha2::Digest as _;
        use std::io::Read as _;
        let (folder, name) = folder_and_name(rel);
        let fd = self.folders.get(folder).ok()??;
        let stat = stat_in(fd, name).ok()?;
        if !is_regular(&stat) || stat.st_size as u64 != len {
            return None;
        }
        let file = rustix::fs::openat(
            fd,
            name,
            rustix::fs::OFlags::RDONLY | rustix::fs::OFlags::NOFOLLOW | rustix::fs::OFlags::CLOEXEC,
            rustix::fs::Mode::empty(),
        )
        .ok()?;
        let mut file = std::fs::File::from(file).take(len.saturating_add(1));
        let (mut hasher, mut read) = (sha2::Sha256::new(), 0u64);
        let mut buf = vec![0u8; 1 << 16];
        loop {
            let n = file.read(&mut buf).ok()?;
            if n == 0 {
                break;
            }
            hasher.update(&buf[..n]);
            read += n as u64;
        }
        if read != len || Digest(hasher.finalize().into()) != sha256 {
            return None;
        }
        Some(self.dir_file(folder, name, len, sha256))
    }

    /// DIR's file `name` in `folder`, of known size and sha256; the folder's path is shared by
    /// the files named in it.
    fn dir_file(&mut self, folder: &str, name: &str, len: u64, sha256: Digest) -> DiskFile {
        let shared = match &self.folder {
            Some((f, shared)) if f == folder => shared.clone(),
            _ => {
                let shared: std::sync::Arc<Path> = self.dir.join(folder).into();
                self.folder = Some((folder.to_string(), shared.clone()));
                shared
            }
        };
        DiskFile::of_dir(shared, name, len, Some(sha256))
    }

    /// [`DirHolds::holding`], or, where `read` (a dry run, which cannot write the file as made),
    /// [`DirHolds::holding_read`] when the record does not show DIR holding it.
    pub fn holding_or_read(
        &mut self,
        rel: &str,
        sha256: Digest,
        len: u64,
        read: bool,
    ) -> Option<DiskFile> {
        self.holding(rel, sha256, len)
            .or_else(|| read.then(|| self.holding_read(rel, sha256, len))?)
    }

    /// [`DirHolds::holding`], given DIR's record of `rel`.
    pub fn holding_recorded(
        &mut self,
        rel: &str,
        recorded: Recorded,
        sha256: Digest,
        len: u64,
    ) -> Option<DiskFile> {
        if recorded.sha256 != sha256 {
            return None;
        }
        let (folder, name) = folder_and_name(rel);
        let fd = self.folders.get(folder).ok()??;
        let stat = stat_in(fd, name).ok()?;
        if !is_regular(&stat) || stat.st_size as u64 != len || !recorded.describes(&stat) {
            return None;
        }
        Some(self.dir_file(folder, name, len, sha256))
    }
}

/// Records every file of `tree` as it now stands in `dir` (just written), for the next build:
/// a file the write stage found unchanged by the last record (`kept`) keeps that record, read
/// forward from the old file; every other is looked at. Returns how many were recorded.
pub fn save(git_dir: Option<&Path>, dir: &Path, tree: &Tree, kept: &KeptByRecord) -> Result<usize> {
    let Some(git_dir) = git_dir else {
        return Ok(0);
    };
    let resolved = dir
        .canonicalize()
        .with_context(|| format!("{}: cannot resolve", dir.display()))?;
    let path = git_dir.join(FILE);
    let folder = path.parent().unwrap_or(git_dir);
    std::fs::create_dir_all(folder)
        .with_context(|| format!("{}: cannot create", folder.display()))?;
    // Every file this build wrote or renamed into DIR was, moments ago: their change times
    // are this instant's. A file changed in the clock tick of the seal
    // is not recorded (the racy rule), so the seal waits out a tick; without the wait a small
    // exhibit would record nothing.
    std::thread::sleep(std::time::Duration::from_millis(20));
    // The last record, read before the new one replaces it: what `kept` names is carried.
    let old = DirRecords::open(Some(git_dir), dir);
    let pending = Pending::create(&path, resolved.as_os_str().as_bytes())?;
    record(pending, &resolved, tree, (old, kept))?.commit()
}

fn record(
    mut pending: Pending,
    dir: &Path,
    tree: &Tree,
    (mut old, kept): (DirRecords, &KeptByRecord),
) -> Result<Pending> {
    // Each file is looked at by its folder's handle, as the next build looks (`describes`).
    let mut folders = OpenFolders::existing(dir);
    for (n, (rel, content)) in tree.iter().enumerate() {
        // Unchanged by its record when the write stage looked, and not written since: the
        // record stands (a record that is not there, or not the same size, is looked at).
        if kept.kept(n)
            && let Some(r) = old.get(&rel).filter(|r| r.stat.size == content.len())
        {
            pending.record(&rel, r.stat, &r.sha256.0)?;
            continue;
        }
        let (folder, name) = folder_and_name(&rel);
        let Ok(Some(folder)) = folders.get(folder) else {
            continue;
        };
        let Ok(stat) = stat_in(folder, name) else {
            continue;
        };
        if !is_regular(&stat) || stat.st_size as u64 != content.len() {
            continue;
        }
        pending.record(&rel, Stat::of_raw(&stat), &content.sha256()?.0)?;
    }
    Ok(pending)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tree written to `dir`, then a pause longer than a clock tick so the files' change times
    /// are strictly before the record's seal (else the racy rule leaves them out), then saved.
    fn written_and_recorded(git: &Path, dir: &Path, tree: &Tree) -> usize {
        write(dir, tree);
        std::thread::sleep(std::time::Duration::from_millis(30));
        save(Some(git), dir, tree, &KeptByRecord::default()).unwrap()
    }

    fn raw_stat(path: &Path) -> rustix::fs::Stat {
        rustix::fs::lstat(path).unwrap()
    }

    fn write(dir: &Path, tree: &Tree) {
        for (path, content) in tree.iter() {
            let path = dir.join(&*path);
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
        assert!(page.describes(&raw_stat(&dir.join("index.html"))));
        // Edited in place, same size, even with its mtime put back: the kernel moved its ctime.
        let a = dir.join("ledger/a.txt");
        crate::previous::file_records::rewrite_keeping_mtime(&a, b"bbb").unwrap();
        let recorded = known.get("ledger/a.txt").expect("recorded");
        assert!(!recorded.describes(&raw_stat(&a)));
        // Asked in order, a path past the last record has none.
        assert!(known.get("zzz").is_none());
    }

    #[test]
    fn dir_holds_a_recorded_unchanged_file_with_the_same_bytes_and_nothing_else() {
        // Catches a file named as DIR's though its bytes differ from the build's (the sha256 or
        // the size not compared), though it was edited since it was recorded, or though a
        // symlink now stands in its place; and a named file whose later read does not hold the
        // build to the recorded bytes.
        let tmp = tempfile::tempdir().unwrap();
        let (git, dir) = (tmp.path().join("git"), tmp.path().join("site"));
        let t = tree(&[
            ("a/edited.txt", b"edited"),
            ("a/kept.txt", b"kept"),
            ("a/link.txt", b"link"),
            ("b/other.txt", b"other"),
            ("b/racy.txt", b"racy"),
        ]);
        assert_eq!(written_and_recorded(&git, &dir, &t), 5);
        crate::previous::file_records::rewrite_keeping_mtime(&dir.join("a/edited.txt"), b"EDITED")
            .unwrap();
        std::fs::remove_file(dir.join("a/link.txt")).unwrap();
        std::os::unix::fs::symlink(dir.join("a/kept.txt"), dir.join("a/link.txt")).unwrap();

        let mut holds = DirHolds::open(Some(&git), &dir);
        let d = |b: &[u8]| Digest::of(b);
        assert!(holds.holding("a/edited.txt", d(b"edited"), 6).is_none());
        let kept = holds.holding("a/kept.txt", d(b"kept"), 4).expect("held");
        assert_eq!(kept.read().unwrap(), b"kept");
        assert!(holds.holding("a/link.txt", d(b"link"), 4).is_none());
        assert!(
            holds.holding("b/other.txt", d(b"OTHER"), 5).is_none(),
            "other bytes"
        );
        assert!(
            holds.holding("b/racy.txt", d(b"racy"), 5).is_none(),
            "another size"
        );
        // Asked out of order, the forward record finds nothing (a miss, never a wrong file).
        assert!(holds.holding("a/kept.txt", d(b"kept"), 4).is_none());
        assert!(
            DirHolds::open(None, &dir)
                .holding("a/kept.txt", d(b"kept"), 4)
                .is_none()
        );

        // Changed after it was named: its read fails rather than giving other bytes.
        std::fs::write(dir.join("a/kept.txt"), b"KEPT").unwrap();
        let err = kept.read().unwrap_err().to_string();
        assert!(err.contains("changed while the build ran"), "{err}");
    }

    /// A build's write stage (the real one, journaled beside DIR) then its record, as a build
    /// does them: the files the write stage found unchanged by the last record keep it, unseen.
    fn built(git: &Path, dir: &Path, tree: &Tree) -> KeptByRecord {
        let journal = dir.with_file_name(".site.exhibit-journal");
        let made = dir.with_file_name(".site.made");
        let (_, kept) =
            crate::site_write::write(dir, tree, DirRecords::open(Some(git), dir), &journal, &made)
                .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(30));
        save(Some(git), dir, tree, &kept).unwrap();
        kept
    }

    #[test]
    fn the_write_stages_unchanged_files_keep_their_record_and_the_rest_are_looked_at() {
        // Catches a record that drops the files it carried (the next build would read every
        // file), one that carries a file the write stage wrote or found only by reading (its
        // stat data is then the old file's: the next build would trust a stale record or read
        // it again forever), and a carried record for a file edited after the write stage looked.
        let tmp = tempfile::tempdir().unwrap();
        let (git, dir) = (tmp.path().join("git"), tmp.path().join("site"));
        std::fs::create_dir_all(git.join("exhibit")).unwrap();
        let day1 = tree(&[
            ("a/kept.txt", b"kept"),
            ("a/next.txt", b"one"),
            ("b/z.txt", b"z"),
        ]);
        let kept = built(&git, &dir, &day1);
        assert!((0..3).all(|n| !kept.kept(n)), "nothing was recorded before");
        let day2 = tree(&[
            ("a/kept.txt", b"kept"),
            ("a/next.txt", b"two"),
            ("b/z.txt", b"z"),
        ]);
        let kept = built(&git, &dir, &day2);
        assert!(kept.kept(0) && !kept.kept(1) && kept.kept(2), "{kept:?}");
        // Every file of the second build is described by the new record: carried or looked at.
        let mut known = DirRecords::open(Some(&git), &dir);
        for (rel, bytes) in [
            ("a/kept.txt", &b"kept"[..]),
            ("a/next.txt", b"two"),
            ("b/z.txt", b"z"),
        ] {
            let r = known
                .get(rel)
                .unwrap_or_else(|| panic!("{rel} not recorded"));
            assert_eq!(r.sha256, Digest::of(bytes), "{rel}");
            assert!(r.describes(&raw_stat(&dir.join(rel))), "{rel}");
        }
        // A third build finds all three unchanged by the record, and writes nothing.
        let kept = built(&git, &dir, &day2);
        assert!((0..3).all(|n| kept.kept(n)), "{kept:?}");
        // A file edited in place (same size, mtime put back) is not unchanged by its record:
        // the write stage writes it again and the record looks at it afresh.
        crate::previous::file_records::rewrite_keeping_mtime(&dir.join("b/z.txt"), b"Z").unwrap();
        let kept = built(&git, &dir, &day2);
        assert!(kept.kept(0) && kept.kept(1) && !kept.kept(2), "{kept:?}");
        assert_eq!(std::fs::read(dir.join("b/z.txt")).unwrap(), b"z");
        let mut known = DirRecords::open(Some(&git), &dir);
        let _ = known.get("a/next.txt");
        assert!(
            known
                .get("b/z.txt")
                .unwrap()
                .describes(&raw_stat(&dir.join("b/z.txt")))
        );
    }

    #[test]
    fn a_file_changed_at_or_after_the_seal_is_not_recorded() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("site");
        let t = tree(&[("a.txt", b"a")]);
        write(&dir, &t);
        // Sealed before the file's change time: the file may have changed within the tick.
        let git = tmp.path().join("git");
        std::fs::create_dir_all(git.join("exhibit")).unwrap();
        let mut pending = Pending::create(&git.join(FILE), b"scope").unwrap();
        pending.sealed_at((0, 0));
        let none = (DirRecords::none(), &KeptByRecord::default());
        assert_eq!(
            record(pending, &dir, &t, none).unwrap().commit().unwrap(),
            0
        );
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
