//! DIR's files walked in path order, one folder's names held at a time: what the dry run's
//! review and `--json`'s list of changes compare the new tree with. At a million lines DIR holds
//! a million proofs in one folder; walked by path with each entry's full path kept (`walkdir`
//! sorting a folder holds every entry of it at once) and every file listed into a tree before
//! the comparison began, the review held 250 MB on top of the build's state. Here a folder's
//! names are held in their compact form (a proof's or a released text's name as its digest's 32
//! bytes) and each file is stat'ed, by its folder's handle, only when the walk reaches it
//! (docs/scale.md#the-review-walks-dir).

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::sync::Arc;

use anyhow::{Context, Result, bail};
use rustix::fd::{AsFd, OwnedFd};
use rustix::fs::{FileType, Mode};

use crate::box_read::FileClass;
use crate::dir_stat::DirRecords;
use crate::open_folders::{FOLDER, is_regular, stat_in};
use crate::output::{DiskFile, FileName};

/// One name of a folder: a file (its name kept compact), or a folder to walk into.
#[derive(Debug)]
enum Entry {
    File(FileName),
    Folder(Box<str>),
}

impl Entry {
    /// Siblings compare by their names' bytes, a folder's as if it ended in `/`: the order of the
    /// full paths (a file `index.json` before the folder `index/`), the order of a tree and of
    /// DIR's records.
    fn path_order(a: &Entry, b: &Entry) -> std::cmp::Ordering {
        match (a, b) {
            // A million proofs: compared as digests, without making their names (hex keeps
            // the digests' order, and the suffix is the same).
            (Entry::File(FileName::Proof(x)), Entry::File(FileName::Proof(y)))
            | (Entry::File(FileName::PublicText(x)), Entry::File(FileName::PublicText(y))) => {
                x.cmp(y)
            }
            _ => {
                let (a_name, a_slash) = a.key();
                let (b_name, b_slash) = b.key();
                a_name
                    .as_bytes()
                    .iter()
                    .chain(a_slash)
                    .cmp(b_name.as_bytes().iter().chain(b_slash))
            }
        }
    }

    fn key(&self) -> (std::borrow::Cow<'_, str>, &'static [u8]) {
        match self {
            Entry::File(name) => (name.text(), b""),
            Entry::Folder(name) => (std::borrow::Cow::Borrowed(name), b"/"),
        }
    }
}

/// A folder being walked: its handle, its path in DIR and on disk, and its names not yet reached.
struct Frame {
    fd: OwnedFd,
    /// The folder's path under DIR with a trailing `/` (`""` for DIR itself).
    rel: String,
    on_disk: Arc<Path>,
    entries: std::vec::IntoIter<Entry>,
}

/// DIR's regular files in path order, each with its size and, when DIR's record still describes
/// it, its sha256 (docs/scale.md#comparing-without-reading). Symlinks and other non-files are
/// not listed (they are not the exhibit's: the build's new tree replaces DIR whole), nor is a
/// `.git` at DIR's top. An error ends the walk: the review fails, naming the path.
pub struct DirWalk {
    root: std::path::PathBuf,
    records: DirRecords,
    stack: Vec<Frame>,
}

impl DirWalk {
    /// The walk of `dir` (nothing when it does not exist), with the record of the last build in
    /// `git_dir`, if any.
    pub fn new(dir: &Path, git_dir: Option<&Path>) -> Result<DirWalk> {
        let mut walk = DirWalk {
            root: dir.to_path_buf(),
            records: DirRecords::open(git_dir, dir),
            stack: Vec::new(),
        };
        if dir.exists() {
            let fd = rustix::fs::open(dir, FOLDER, Mode::empty())
                .with_context(|| format!("{}: cannot open as a folder", dir.display()))?;
            walk.enter(fd, String::new(), dir.into())?;
        }
        Ok(walk)
    }

    /// Lists a folder's names, sorted, and makes it the folder being walked.
    fn enter(&mut self, fd: OwnedFd, rel: String, on_disk: Arc<Path>) -> Result<()> {
        let cannot = || format!("{}: cannot list", on_disk.display());
        let mut entries = Vec::new();
        for entry in rustix::fs::Dir::read_from(&fd).with_context(cannot)? {
            let entry = entry.with_context(cannot)?;
            let name = OsStr::from_bytes(entry.file_name().to_bytes());
            if name == "." || name == ".." || (rel.is_empty() && name == ".git") {
                continue;
            }
            // No exhibit names a file otherwise; said plainly, where the lossy name would be
            // "not found" (the build's new tree replaces DIR whole: docs/build.md#the-swap).
            let Some(name) = name.to_str() else {
                bail!(
                    "{}: a name that is not UTF-8, which exhibit never writes; a build replaces DIR whole and would not keep it: move it out of {} to keep it",
                    crate::terminal::escape(&on_disk.join(name).display().to_string()),
                    crate::terminal::escape(&self.root.display().to_string()),
                );
            };
            let file_type = match entry.file_type() {
                FileType::Unknown => {
                    let stat = stat_in(fd.as_fd(), name).with_context(|| {
                        format!("{}: cannot read", on_disk.join(name).display())
                    })?;
                    FileType::from_raw_mode(stat.st_mode as _)
                }
                known => known,
            };
            match file_type {
                FileType::RegularFile => entries.push(Entry::File(FileName::new(name))),
                FileType::Directory => entries.push(Entry::Folder(name.into())),
                _ => {}
            }
        }
        entries.sort_by(Entry::path_order);
        self.stack.push(Frame {
            fd,
            rel,
            on_disk,
            entries: entries.into_iter(),
        });
        Ok(())
    }

    /// The next file, or `None` at the end of the walk.
    fn step(&mut self) -> Result<Option<(String, DiskFile)>> {
        loop {
            let Some(frame) = self.stack.last_mut() else {
                return Ok(None);
            };
            let Some(entry) = frame.entries.next() else {
                self.stack.pop();
                continue;
            };
            match entry {
                Entry::Folder(name) => {
                    let on_disk: Arc<Path> = frame.on_disk.join(&*name).into();
                    let fd = rustix::fs::openat(frame.fd.as_fd(), &*name, FOLDER, Mode::empty())
                        .with_context(|| {
                            format!("{}: cannot open as a folder", on_disk.display())
                        })?;
                    let rel = format!("{}{name}/", frame.rel);
                    self.enter(fd, rel, on_disk)?;
                }
                Entry::File(name) => {
                    let rel = format!("{}{}", frame.rel, name.text());
                    let own_name = &rel[frame.rel.len()..];
                    let stat = stat_in(frame.fd.as_fd(), own_name).with_context(|| {
                        format!("{}: cannot read", self.root.join(&rel).display())
                    })?;
                    let len = stat.st_size as u64;
                    if len > FileClass::OutputFile.ceiling() {
                        bail!(
                            "{}: {} bytes, over the {} exhibit reads of {}",
                            self.root.join(&rel).display(),
                            len,
                            crate::box_read::size(FileClass::OutputFile.ceiling()),
                            FileClass::OutputFile.what()
                        );
                    }
                    let sha256 = self
                        .records
                        .get(&rel)
                        .filter(|r| is_regular(&stat) && r.describes(&stat))
                        .map(|r| r.sha256);
                    let file = DiskFile::of_dir_named(frame.on_disk.clone(), name, len, sha256);
                    return Ok(Some((rel, file)));
                }
            }
        }
    }
}

impl Iterator for DirWalk {
    type Item = Result<(String, DiskFile)>;

    /// After an error, the walk ends.
    fn next(&mut self) -> Option<Self::Item> {
        match self.step() {
            Ok(file) => file.map(Ok),
            Err(e) => {
                self.stack.clear();
                Some(Err(e))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn walked(dir: &Path) -> Vec<(String, DiskFile)> {
        DirWalk::new(dir, None)
            .unwrap()
            .collect::<Result<Vec<_>>>()
            .unwrap()
    }

    fn hex(byte: u8) -> String {
        format!("{}", exhibit_protocol::Digest([byte; 32]))
    }

    #[test]
    fn files_come_in_the_order_of_their_full_paths_whatever_their_names() {
        // Caught: siblings sorted by name alone (the folder `index/` before `index.json`), the
        // digest-named files compared apart from the others, a nested file left out.
        let tmp = tempfile::tempdir().unwrap();
        let proofs = tmp.path().join("ledger/witness/proofs");
        std::fs::create_dir_all(&proofs).unwrap();
        std::fs::create_dir_all(tmp.path().join("ledger/witness/index")).unwrap();
        std::fs::create_dir_all(tmp.path().join("ledger/witness/proofs.d")).unwrap();
        for name in [
            format!("{}.ots", hex(0xaa)),
            format!("{}.ots", hex(0x0f)),
            format!("{}.ots", hex(0xff)),
            // Not a proof's name: upper-case hex, another suffix, a short name.
            format!("{}.ots", hex(0x0f).to_uppercase()),
            format!("{}.ots.bak", hex(0xaa)),
            "README".to_string(),
            "b.ots".to_string(),
        ] {
            std::fs::write(proofs.join(name), b"x").unwrap();
        }
        for rel in [
            "ledger/witness/index.json",
            "ledger/witness/index/000001.json",
            "ledger/witness/proofs.d/a",
            "ledger/witness.json",
            "index.html",
        ] {
            std::fs::write(tmp.path().join(rel), b"y").unwrap();
        }
        let paths: Vec<String> = walked(tmp.path()).into_iter().map(|(p, _)| p).collect();
        let mut sorted = paths.clone();
        sorted.sort();
        assert_eq!(paths, sorted, "the walk is in path order");
        assert_eq!(paths.len(), 12, "{paths:?}");
        assert_eq!(paths.first().map(String::as_str), Some("index.html"));
        assert!(paths.contains(&"ledger/witness/index/000001.json".to_string()));
    }

    #[test]
    fn each_file_is_found_again_by_what_the_walk_gives() {
        // Caught: a name made again wrongly from its compact form (the path would not be read).
        let tmp = tempfile::tempdir().unwrap();
        let proofs = tmp.path().join("ledger/witness/proofs");
        std::fs::create_dir_all(&proofs).unwrap();
        std::fs::write(proofs.join(format!("{}.ots", hex(0x12))), b"proof").unwrap();
        std::fs::write(tmp.path().join("ledger/a b.txt"), b"text").unwrap();
        for (path, file) in walked(tmp.path()) {
            let on_disk = std::fs::read(tmp.path().join(&path)).unwrap();
            assert_eq!(file.len, on_disk.len() as u64);
            // No record: nothing is taken as known.
            assert_eq!(file.sha256, None);
            let content = crate::output::Content::File(file);
            assert_eq!(
                content.bytes().unwrap().as_ref(),
                on_disk.as_slice(),
                "{path}"
            );
        }
    }

    #[test]
    fn symlinks_special_files_and_the_top_git_folder_are_not_listed_nor_entered() {
        let tmp = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret"), b"s").unwrap();
        std::fs::create_dir_all(tmp.path().join(".git/objects")).unwrap();
        std::fs::write(tmp.path().join(".git/objects/x"), b"g").unwrap();
        std::fs::create_dir_all(tmp.path().join("sub/.git")).unwrap();
        std::fs::write(tmp.path().join("sub/.git/kept"), b"k").unwrap();
        std::os::unix::fs::symlink(outside.path(), tmp.path().join("linked-folder")).unwrap();
        std::os::unix::fs::symlink(outside.path().join("secret"), tmp.path().join("link")).unwrap();
        rustix::fs::mknodat(
            rustix::fs::CWD,
            tmp.path().join("fifo"),
            FileType::Fifo,
            Mode::from_raw_mode(0o600),
            0,
        )
        .unwrap();
        std::fs::write(tmp.path().join("kept"), b"k").unwrap();
        let paths: Vec<String> = walked(tmp.path()).into_iter().map(|(p, _)| p).collect();
        assert_eq!(paths, ["kept", "sub/.git/kept"]);
    }

    #[test]
    fn a_missing_dir_is_walked_as_empty_and_a_file_over_the_ceiling_is_refused_by_path() {
        let tmp = tempfile::tempdir().unwrap();
        assert!(walked(&tmp.path().join("missing")).is_empty());
        let big = tmp.path().join("big.bin");
        let file = std::fs::File::create(&big).unwrap();
        file.set_len(FileClass::OutputFile.ceiling() + 1).unwrap();
        let err = DirWalk::new(tmp.path(), None)
            .unwrap()
            .find_map(Result::err)
            .unwrap();
        assert!(
            format!("{err:#}").contains(&*big.to_string_lossy()),
            "{err:#}"
        );
    }

    #[test]
    fn a_name_that_is_not_utf8_is_refused_by_its_path_and_what_to_do() {
        // Caught: the name made lossy and then "not found" (the old words), or skipped, so that
        // the review does not say the build would drop it.
        let tmp = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(tmp.path().join("ledger")).unwrap();
        let name = OsStr::from_bytes(b"bad\xff.txt");
        std::fs::write(tmp.path().join("ledger").join(name), b"x").unwrap();
        let err = DirWalk::new(tmp.path(), None)
            .unwrap()
            .find_map(Result::err)
            .unwrap();
        let words = format!("{err:#}");
        assert!(words.contains("ledger/bad"), "{words}");
        assert!(words.contains("not UTF-8"), "{words}");
        assert!(words.contains("move it out of"), "{words}");
    }

    #[test]
    fn a_proofs_folder_name_is_held_in_its_compact_form() {
        // The walk's memory at a million proofs is its names: a proof's is its digest, not a
        // string (docs/scale.md#the-review-walks-dir).
        assert!(std::mem::size_of::<Entry>() <= 40);
        let e = Entry::File(FileName::new(&format!("{}.ots", hex(1))));
        assert!(matches!(e, Entry::File(FileName::Proof(_))));
    }
}
