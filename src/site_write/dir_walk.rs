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

use crate::operator_box::read::FileClass;
use crate::published::output_tree::{Content, DiskFile, FileName, ListedFiles, NotAFile};
use crate::site_write::dir_folders::{FOLDER, is_regular, stat_in};
use crate::site_write::dir_record::DirRecords;

/// One name of a folder: a file (its name kept compact), a folder to walk into, or a name
/// that is neither (given as such, never followed nor read).
#[derive(Debug)]
enum Entry {
    File(FileName),
    Folder(Box<str>),
    NotAFile(Box<str>, NotAFile),
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
            Entry::NotAFile(name, _) => (std::borrow::Cow::Borrowed(name), b""),
        }
    }
}

/// A folder being walked: its handle, its path in DIR and on disk, and its names not yet reached.
struct Frame<'t> {
    fd: OwnedFd,
    /// The folder's path under DIR with a trailing `/` (`""` for DIR itself).
    rel: String,
    on_disk: Arc<Path>,
    entries: std::iter::Peekable<std::vec::IntoIter<Entry>>,
    /// In a listed folder, the new tree's list of it and the next of its names: the names it
    /// holds are not kept from DIR's listing but looked for in DIR one by one, in order.
    known: Option<(&'t ListedFiles, usize)>,
}

/// DIR's regular files in path order, each with its size and, when DIR's record still describes
/// it, its sha256 (docs/scale.md#comparing-without-reading); a symlink or another name that is
/// neither a file nor a folder is given as [`Content::NotAFile`], never followed, entered nor
/// read (it is not the exhibit's: a build removes it, which the review says). A `.git` at DIR's top is not walked. An error ends the walk: the review
/// fails, naming the path.
///
/// Walked beside the new tree's lists (the proofs folder's, the released texts'), a listed
/// folder's files whose names the list holds are not kept as the folder is listed: they are
/// taken in the list's order and stat'ed by name, a name DIR lacks passed over. What the walk
/// gives is the same; what it holds is only DIR's other names, where a million proofs were a
/// million entries beside the list's own (docs/scale.md#the-review-walks-beside-the-lists).
pub struct DirWalk<'t> {
    root: std::path::PathBuf,
    records: DirRecords,
    stack: Vec<Frame<'t>>,
    known: &'t [ListedFiles],
}

impl<'t> DirWalk<'t> {
    /// The walk of `dir` (nothing when it does not exist), with the record of the last build in
    /// `git_dir`, if any, beside the new tree's lists `known` (none to list every name).
    pub fn new(
        dir: &Path,
        git_dir: Option<&Path>,
        known: &'t [ListedFiles],
    ) -> Result<DirWalk<'t>> {
        let mut walk = DirWalk {
            root: dir.to_path_buf(),
            records: DirRecords::open(git_dir, dir),
            stack: Vec::new(),
            known,
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
        let known = self.known.iter().find(|l| {
            rel.strip_suffix('/')
                .is_some_and(|folder| folder == l.folder_path())
        });
        let mut entries = Vec::new();
        for entry in rustix::fs::Dir::read_from(&fd).with_context(cannot)? {
            let entry = entry.with_context(cannot)?;
            let name = OsStr::from_bytes(entry.file_name().to_bytes());
            if name == "." || name == ".." || (rel.is_empty() && name == ".git") {
                continue;
            }
            // No exhibit names a file otherwise; said plainly, where the lossy name would be
            // "not found" (a build removes every name it does not produce: docs/build.md#the-write).
            let Some(name) = name.to_str() else {
                bail!(
                    "{}: a name that is not UTF-8, which exhibit never writes; a build removes every name it does not produce and would not keep it: move it out of {} to keep it",
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
                FileType::RegularFile => {
                    let name = FileName::new(name);
                    // Reached by the list's names instead (a non-file of such a name is
                    // passed over there as here).
                    if !known.is_some_and(|list| list.holds(&name)) {
                        entries.push(Entry::File(name));
                    }
                }
                FileType::Directory => entries.push(Entry::Folder(name.into())),
                other => {
                    if let Some(kind) = NotAFile::of(other) {
                        entries.push(Entry::NotAFile(name.into(), kind));
                    }
                }
            }
        }
        entries.sort_by(Entry::path_order);
        self.stack.push(Frame {
            fd,
            rel,
            on_disk,
            entries: entries.into_iter().peekable(),
            known: known.map(|list| (list, 0)),
        });
        Ok(())
    }

    /// The next file, or `None` at the end of the walk.
    fn step(&mut self) -> Result<Option<(String, Content)>> {
        loop {
            let Some(frame) = self.stack.last_mut() else {
                return Ok(None);
            };
            // The next of the folder's names kept and the list's, in path order (they are
            // never the same name: the list's were not kept).
            let listed = frame.known.and_then(|(list, i)| list.name_at(i));
            let from_list = match (frame.entries.peek(), &listed) {
                (None, None) => {
                    self.stack.pop();
                    continue;
                }
                (Some(_), None) => false,
                (None, Some(_)) => true,
                (Some(kept), Some(name)) => {
                    Entry::path_order(&Entry::File(name.clone()), kept).is_lt()
                }
            };
            let entry = if from_list {
                if let Some((_, i)) = &mut frame.known {
                    *i += 1;
                }
                listed.map(Entry::File)
            } else {
                frame.entries.next()
            };
            match entry {
                None => {}
                Some(Entry::Folder(name)) => {
                    let on_disk: Arc<Path> = frame.on_disk.join(&*name).into();
                    let fd = rustix::fs::openat(frame.fd.as_fd(), &*name, FOLDER, Mode::empty())
                        .with_context(|| {
                            format!("{}: cannot open as a folder", on_disk.display())
                        })?;
                    let rel = format!("{}{name}/", frame.rel);
                    self.enter(fd, rel, on_disk)?;
                }
                Some(Entry::File(name)) => {
                    if let Some((rel, file)) = self.file(name, from_list)? {
                        return Ok(Some((rel, Content::File(file))));
                    }
                }
                Some(Entry::NotAFile(name, kind)) => {
                    return Ok(Some((
                        format!("{}{name}", frame.rel),
                        Content::NotAFile(kind),
                    )));
                }
            }
        }
    }

    /// The file `name` of the folder being walked. One of the list's names that DIR does not
    /// hold as a regular file is passed over (`None`); one DIR listed must be there.
    fn file(&mut self, name: FileName, from_list: bool) -> Result<Option<(String, DiskFile)>> {
        let Some(frame) = self.stack.last() else {
            return Ok(None);
        };
        let rel = format!("{}{}", frame.rel, name.text());
        let own_name = &rel[frame.rel.len()..];
        let stat = match stat_in(frame.fd.as_fd(), own_name) {
            Ok(stat) if from_list && !is_regular(&stat) => return Ok(None),
            Err(e) if from_list && e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            stat => {
                stat.with_context(|| format!("{}: cannot read", self.root.join(&rel).display()))?
            }
        };
        let len = stat.st_size as u64;
        if len > FileClass::OutputFile.ceiling() {
            bail!(
                "{}: {} bytes, over the {} exhibit reads of {}",
                self.root.join(&rel).display(),
                len,
                crate::operator_box::read::size(FileClass::OutputFile.ceiling()),
                FileClass::OutputFile.what()
            );
        }
        let sha256 = self
            .records
            .get(&rel)
            .filter(|r| is_regular(&stat) && r.describes(&stat))
            .map(|r| r.sha256);
        let file = DiskFile::of_dir_named(frame.on_disk.clone(), name, len, sha256);
        Ok(Some((rel, file)))
    }
}

impl Iterator for DirWalk<'_> {
    type Item = Result<(String, Content)>;

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

    fn walked(dir: &Path) -> Vec<(String, Content)> {
        DirWalk::new(dir, None, &[])
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
        for (path, content) in walked(tmp.path()) {
            let Content::File(file) = content else {
                panic!("{path}: {content:?}");
            };
            let on_disk = std::fs::read(tmp.path().join(&path)).unwrap();
            assert_eq!(file.len, on_disk.len() as u64);
            // No record: nothing is taken as known.
            assert_eq!(file.sha256, None);
            let content = crate::published::output_tree::Content::File(file);
            assert_eq!(
                content.bytes().unwrap().as_ref(),
                on_disk.as_slice(),
                "{path}"
            );
        }
    }

    #[test]
    fn symlinks_and_special_files_are_given_as_not_files_never_entered_and_the_top_git_not_walked()
    {
        // Caught: a symlinked folder entered (the walk would leave DIR), a symlink or FIFO
        // dropped unsaid (a build removes it, and the review would not say so), one given as a
        // file (the review would read through it), the top `.git` walked, a nested one not.
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
        let walked: Vec<(String, Option<&str>)> = walked(tmp.path())
            .into_iter()
            .map(|(p, c)| match c {
                Content::NotAFile(NotAFile(kind)) => (p, Some(kind)),
                _ => (p, None),
            })
            .collect();
        assert_eq!(
            walked,
            [
                ("fifo".to_string(), Some("FIFO")),
                ("kept".to_string(), None),
                ("link".to_string(), Some("symlink")),
                ("linked-folder".to_string(), Some("symlink")),
                ("sub/.git/kept".to_string(), None),
            ]
        );
    }

    #[test]
    fn a_missing_dir_is_walked_as_empty_and_a_file_over_the_ceiling_is_refused_by_path() {
        let tmp = tempfile::tempdir().unwrap();
        assert!(walked(&tmp.path().join("missing")).is_empty());
        let big = tmp.path().join("big.bin");
        let file = std::fs::File::create(&big).unwrap();
        file.set_len(FileClass::OutputFile.ceiling() + 1).unwrap();
        let err = DirWalk::new(tmp.path(), None, &[])
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
        let err = DirWalk::new(tmp.path(), None, &[])
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

    /// The new tree's list of a folder: each name at `store`, with a made-up sha256.
    fn list_of(
        folder: crate::published::output_tree::ListedFolder,
        names: &[String],
    ) -> ListedFiles {
        let store: Arc<Path> = Path::new("/nonexistent-store").into();
        let mut list = ListedFiles::new(folder, &store, FileClass::OutputFile);
        for name in names {
            let file = DiskFile::of_dir_named(
                store.clone(),
                FileName::new(name),
                1,
                Some(exhibit_protocol::Digest([7; 32])),
            );
            assert!(list.push(file).is_ok(), "{name}");
        }
        list.finish();
        list
    }

    #[test]
    fn walked_beside_the_new_lists_the_walk_gives_what_it_gives_alone() {
        // Caught: a listed name DIR lacks given as DIR's file (the review would miss an added
        // proof), a symlink or a folder under a listed name given as a file, a name merged out
        // of order with the kept ones (a file against the folder `x.ots/`, the prereg proofs, a
        // name sorting between two listed ones), a DIR name the list lacks dropped (a removed
        // file unseen), and the list of one folder used for another.
        let tmp = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret"), b"s").unwrap();
        let proofs = tmp.path().join("ledger/witness/proofs");
        let texts = tmp.path().join("ledger/public_texts");
        std::fs::create_dir_all(&proofs).unwrap();
        std::fs::create_dir_all(&texts).unwrap();
        let proof = |b: u8| format!("{}.ots", hex(b));
        let text = |b: u8| format!("{}.txt", hex(b));
        // In DIR and the list; in DIR only; a prereg proof and other names.
        for b in [0x01, 0x10, 0x20, 0x80, 0xfe] {
            std::fs::write(proofs.join(proof(b)), [b]).unwrap();
        }
        for b in [0x05, 0x30, 0xff] {
            std::fs::write(proofs.join(proof(b)), b"only in DIR").unwrap();
        }
        std::fs::write(proofs.join(format!("prereg_{}.ots", hex(0x11))), b"p").unwrap();
        std::fs::write(proofs.join("README"), b"r").unwrap();
        std::fs::write(proofs.join(format!("{}.ots.bak", hex(0x10))), b"b").unwrap();
        // Listed names DIR holds as a symlink and as a folder (with a file in it).
        std::os::unix::fs::symlink(outside.path().join("secret"), proofs.join(proof(0x40)))
            .unwrap();
        std::fs::create_dir_all(proofs.join(proof(0x50))).unwrap();
        std::fs::write(proofs.join(proof(0x50)).join("inner"), b"i").unwrap();
        // A text of the same digest as a listed proof: the proofs' list is not the texts'.
        std::fs::write(texts.join(text(0x01)), b"t").unwrap();
        std::fs::write(texts.join(text(0x02)), b"t2").unwrap();
        std::fs::write(tmp.path().join("ledger/witness/index.json"), b"{}").unwrap();
        std::fs::write(tmp.path().join("index.html"), b"h").unwrap();

        let alone: Vec<(String, u64, bool)> = walked(tmp.path())
            .into_iter()
            .map(|(p, c)| (p, c.len(), matches!(c, Content::NotAFile(_))))
            .collect();
        // The new lists: some of DIR's names, some it lacks, one between every two of DIR's.
        let proof_list = list_of(
            crate::published::output_tree::ListedFolder::WitnessProofs,
            &[0x00, 0x01, 0x10, 0x15, 0x20, 0x40, 0x50, 0x80, 0xfe, 0xfd].map(proof),
        );
        let text_list = list_of(
            crate::published::output_tree::ListedFolder::PublicTexts,
            &[0x02, 0x03].map(text),
        );
        let lists = [text_list, proof_list];
        let beside: Vec<(String, u64, bool)> = DirWalk::new(tmp.path(), None, &lists)
            .unwrap()
            .map(|f| f.map(|(p, c)| (p, c.len(), matches!(c, Content::NotAFile(_)))))
            .collect::<Result<_>>()
            .unwrap();
        assert_eq!(beside, alone);
        assert!(
            alone
                .iter()
                .any(|(p, ..)| p.ends_with(&format!("{}/inner", proof(0x50)))),
            "{alone:?}"
        );
        // The symlink under a listed name is given once, as what it is.
        let linked: Vec<_> = alone
            .iter()
            .filter(|(p, ..)| p.ends_with(&proof(0x40)))
            .collect();
        assert!(matches!(linked[..], [(_, 0, true)]), "{linked:?}");
        assert!(!alone.iter().any(|(p, ..)| p.ends_with(&proof(0x00))));
    }

    #[test]
    fn walked_beside_bucket_lists_each_bucket_is_taken_from_its_own_list() {
        // A segmented exhibit's proofs lie in seq buckets and `other/` beside the flat folder's
        // (docs/witness.md#proof-folders), a list per folder: each folder's names the list
        // holds are not kept, and the walk gives what it gives alone. Caught: a bucket's list
        // used for another folder, or a bucket's names kept beside its list.
        use crate::published::output_tree::ListedFolder;
        let tmp = tempfile::tempdir().unwrap();
        let proofs = tmp.path().join("ledger/witness/proofs");
        let proof = |b: u8| format!("{}.ots", hex(b));
        let folders = [
            (ListedFolder::WitnessProofs, "", [0x00, 0x10, 0xf0]),
            (
                ListedFolder::WitnessProofBucket(0),
                "000000/",
                [0x01, 0x11, 0xf1],
            ),
            (
                ListedFolder::WitnessProofBucket(1),
                "000001/",
                [0x02, 0x12, 0xf2],
            ),
            (
                ListedFolder::WitnessProofOther,
                "other/",
                [0x03, 0x13, 0xf3],
            ),
        ];
        for (_, sub, bytes) in &folders {
            std::fs::create_dir_all(proofs.join(sub)).unwrap();
            for b in bytes {
                std::fs::write(proofs.join(sub).join(proof(*b)), [*b]).unwrap();
            }
        }
        std::fs::write(proofs.join("000001/README"), b"r").unwrap();
        let alone: Vec<(String, u64)> = walked(tmp.path())
            .into_iter()
            .map(|(p, c)| (p, c.len()))
            .collect();
        assert_eq!(alone.len(), 13);
        // Each list holds its folder's first two names and one DIR lacks.
        let lists: Vec<ListedFiles> = folders
            .iter()
            .map(|(folder, _, bytes)| list_of(*folder, &[bytes[0], bytes[1], 0x99].map(proof)))
            .collect();
        let mut walk = DirWalk::new(tmp.path(), None, &lists).unwrap();
        let mut beside = Vec::new();
        let mut most_kept = 0;
        while let Some(file) = walk.next() {
            let (p, c) = file.unwrap();
            let kept = walk.stack.last().map_or(0, |f| f.entries.len());
            // In a bucket's or `other/`'s frame: its one name the list lacks, and README.
            if ["/000000/", "/000001/", "/other/"]
                .iter()
                .any(|sub| p.contains(sub))
            {
                most_kept = most_kept.max(kept);
            }
            beside.push((p, c.len()));
        }
        assert_eq!(beside, alone);
        assert!(
            most_kept <= 2,
            "only the names the lists lack are kept: {most_kept}"
        );
    }

    #[test]
    fn walked_beside_the_new_lists_the_names_they_hold_are_not_kept() {
        // The point of walking beside the lists: a proofs folder whose names the new list
        // holds keeps none of them, only the others (docs/scale.md#the-review-walks-beside-the-lists).
        let tmp = tempfile::tempdir().unwrap();
        let proofs = tmp.path().join("ledger/witness/proofs");
        std::fs::create_dir_all(&proofs).unwrap();
        let names: Vec<String> = (0..=255u8).map(|b| format!("{}.ots", hex(b))).collect();
        for name in &names {
            std::fs::write(proofs.join(name), b"x").unwrap();
        }
        std::fs::write(proofs.join("other"), b"o").unwrap();
        let lists = [list_of(
            crate::published::output_tree::ListedFolder::WitnessProofs,
            &names[..200],
        )];
        let mut walk = DirWalk::new(tmp.path(), None, &lists).unwrap();
        let first = walk.next().unwrap().unwrap();
        assert!(first.0.ends_with(&names[0]), "{}", first.0);
        let kept = walk.stack.last().map(|f| f.entries.len()).unwrap();
        assert_eq!(kept, 56 + 1, "only the names the list lacks are kept");
        assert_eq!(walk.count(), 256);
    }
}
