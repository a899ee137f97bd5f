//! The files a build makes, written as they are made into a folder of the build's own beside
//! DIR, `.<DIR name>.exhibit-made-<pid>`, and named by the tree as files on disk rather than held
//! as bytes until DIR is written: a first build at a million lines made its released texts, its
//! texts' index parts and its witness index parts before the write stage and held them all, or
//! held the records they are made from (docs/scale.md#made-as-written).
//!
//! The folder is exhibit's plainly: it carries the marker `.exhibit-temporary` from the moment it
//! is made, it is created only when the first file is put (a build that makes none leaves no
//! trace), and it is removed when the build ends, written, refused or failed alike, as the
//! value that owns it is dropped. One that a killed build left is removed by the next build
//! (docs/build.md#safety). Kept beside DIR rather than in it, a refused build writes nothing in
//! DIR; the write stage links each file it needs to its temporary name in DIR
//! (docs/build.md#the-write). A dry run makes the same folder, at once, and nothing else: it
//! writes nothing in DIR, the box or the git folder, and its folder goes before it ends
//! (docs/scale.md#dry-run-made); held instead, a first publication's dry run at a million
//! lines held 380 MB of texts and index parts.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use anyhow::{Context, Result};
use rustix::fs::{Mode, OFlags};

use crate::published::output_tree::DiskFile;

/// The build's folder of made files, and the folders made in it so far.
pub struct MadeFiles {
    root: PathBuf,
    made: Mutex<Made>,
}

/// What a [`MadeFiles`] has made: the root (only then is it removed on drop), and each folder
/// under it by its path relative to the root, shared by every file put in it (a million-line
/// exhibit puts 170,000 texts in one folder).
#[derive(Default)]
struct Made {
    root: bool,
    folders: Vec<(String, Arc<Path>)>,
}

impl MadeFiles {
    /// The folder this process would use beside `dir` (DIR, which has passed
    /// [`crate::site_write::out_dir::check_out_dir`]); nothing is made yet.
    pub fn beside(dir: &Path) -> Result<MadeFiles> {
        let root = crate::site_write::out_dir::made_files_path(dir, std::process::id())?;
        Ok(MadeFiles {
            root,
            made: Mutex::new(Made::default()),
        })
    }

    /// The dry run's folder beside `dir`, made now: a folder that cannot be made (a parent
    /// the operator may not write) is known before anything is made, and the dry run holds
    /// what it makes instead, as it says (docs/scale.md#dry-run-made).
    pub fn made_now(dir: &Path) -> Result<MadeFiles> {
        let made = MadeFiles::beside(dir)?;
        crate::site_write::out_dir::make_temp_folder(&made.root)?;
        made.made
            .lock()
            .map_err(|_| anyhow::anyhow!("{}: poisoned", made.root.display()))?
            .root = true;
        Ok(made)
    }

    /// Writes `bytes` as the file `rel` (a path of the output tree, `/`-separated) and returns
    /// it as a file on disk holding exactly those bytes: its size and sha256 are taken from
    /// them, so a later read is held to them (`DiskFile::read`). A file already there (the
    /// same path put twice) is an error, never overwritten.
    pub fn put(&self, rel: &str, bytes: &[u8]) -> Result<DiskFile> {
        let (folder_rel, name) = crate::site_write::dir_folders::folder_and_name(rel);
        let folder = self.folder(folder_rel)?;
        let path = folder.join(name);
        let file = rustix::fs::open(
            &path,
            OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::from_raw_mode(0o666),
        )
        .with_context(|| format!("{}: cannot create", path.display()))?;
        std::fs::File::from(file)
            .write_all(bytes)
            .with_context(|| format!("{}: cannot write", path.display()))?;
        Ok(DiskFile::of_dir(
            folder,
            name,
            bytes.len() as u64,
            Some(exhibit_protocol::Digest::of(bytes)),
        ))
    }

    /// The folder `rel` under the root (made, with the root, when it is first asked for),
    /// shared by every file put in it.
    pub fn folder(&self, rel: &str) -> Result<Arc<Path>> {
        let mut made = self.made.lock().map_err(|_| {
            anyhow::anyhow!(
                "{}: the list of made folders is poisoned",
                self.root.display()
            )
        })?;
        if let Some((_, folder)) = made.folders.iter().find(|(r, _)| r == rel) {
            return Ok(folder.clone());
        }
        if !made.root {
            crate::site_write::out_dir::make_temp_folder(&self.root)?;
            made.root = true;
        }
        let path = self.root.join(rel);
        std::fs::create_dir_all(&path)
            .with_context(|| format!("{}: cannot create", path.display()))?;
        let folder: Arc<Path> = Arc::from(path.as_path());
        made.folders.push((rel.to_string(), folder.clone()));
        Ok(folder)
    }

    /// Where the folder is (made or not); the write stage finds it by the same name
    /// (`crate::site_write::out_dir::made_files_path`) to link the files in it.
    pub fn root(&self) -> &Path {
        &self.root
    }
}

impl Drop for MadeFiles {
    /// The folder goes when the build ends, whatever the end: DIR was written (its files are
    /// links to the made files), or nothing was.
    fn drop(&mut self) {
        // Only the folder this value made; a symlink put there since is not entered.
        let made = self.made.get_mut().is_ok_and(|m| m.root)
            && std::fs::symlink_metadata(&self.root).is_ok_and(|m| m.is_dir());
        if made && let Err(e) = crate::site_write::out_dir::remove_temp_tree(&self.root) {
            crate::say!("exhibit: note: {e:#}; the next build removes it");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn made_in(tmp: &Path) -> MadeFiles {
        MadeFiles::beside(&tmp.join("site")).unwrap()
    }

    #[test]
    fn a_file_put_is_read_back_held_to_its_bytes_and_the_folder_goes_with_the_value() {
        let tmp = tempfile::tempdir().unwrap();
        let made = made_in(tmp.path());
        let root = made.root().to_path_buf();
        assert_eq!(
            root.file_name().unwrap().to_string_lossy(),
            format!(".site.exhibit-made-{}", std::process::id())
        );
        assert!(!root.exists(), "nothing is made before a file is put");
        let a = made.put("ledger/public_texts/a.txt", b"alpha").unwrap();
        let b = made.put("ledger/public_texts/b.txt", b"beta").unwrap();
        let part = made.put("ledger/witness/index/000001.json", b"{}").unwrap();
        assert!(
            root.join(".exhibit-temporary").is_file(),
            "marked as exhibit's"
        );
        assert_eq!(a.read().unwrap(), b"alpha");
        assert_eq!(a.sha256, Some(exhibit_protocol::Digest::of(b"alpha")));
        assert_eq!((a.len, b.len, part.len), (5, 4, 2));
        // One folder shared by the files put in it; another folder for another path.
        assert!(std::sync::Arc::ptr_eq(&a.folder, &b.folder));
        assert!(!std::sync::Arc::ptr_eq(&a.folder, &part.folder));
        assert!(a.folder.starts_with(made.root()) && part.folder.starts_with(made.root()));
        // A file changed after it was put is not read as the bytes that were put.
        std::fs::write(a.path(), b"omega").unwrap();
        assert!(a.read().is_err());
        // Put twice: an error, and the first bytes stay.
        assert!(made.put("ledger/public_texts/b.txt", b"other").is_err());
        assert_eq!(b.read().unwrap(), b"beta");
        drop(made);
        assert!(!root.exists(), "removed when the build's value goes");
        assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0);
    }

    #[test]
    fn the_dry_run_s_folder_is_made_at_once_goes_with_the_value_and_fails_where_it_cannot_be() {
        // Caught: a dry run's folder made only at the first file (a parent that cannot take it
        // found halfway), one that outlives the dry run, and one made over what is not ours.
        let tmp = tempfile::tempdir().unwrap();
        let made = MadeFiles::made_now(&tmp.path().join("site")).unwrap();
        let root = made.root().to_path_buf();
        assert!(root.join(".exhibit-temporary").is_file());
        drop(made);
        assert!(!root.exists(), "removed though nothing was put");
        std::fs::write(&root, b"someone's file").unwrap();
        let err = MadeFiles::made_now(&tmp.path().join("site")).err().unwrap();
        assert!(format!("{err:#}").contains("not a folder"), "{err:#}");
        assert_eq!(std::fs::read(&root).unwrap(), b"someone's file");
    }

    #[test]
    fn a_folder_this_process_number_names_already_is_cleared_before_use() {
        // A killed process that had this number left its folder: what it held is not taken
        // for this build's (a stale file under a name this build puts would be linked into DIR).
        let tmp = tempfile::tempdir().unwrap();
        let made = made_in(tmp.path());
        std::fs::create_dir_all(made.root().join("ledger/public_texts")).unwrap();
        std::fs::write(made.root().join(".exhibit-temporary"), b"exhibit's\n").unwrap();
        std::fs::write(made.root().join("ledger/public_texts/stale.txt"), b"old").unwrap();
        made.put("ledger/public_texts/new.txt", b"new").unwrap();
        assert!(!made.root().join("ledger/public_texts/stale.txt").exists());
        assert!(made.root().join("ledger/public_texts/new.txt").is_file());
    }

    #[test]
    fn a_folder_under_the_name_that_is_not_exhibits_is_left_and_named() {
        // No marker, not empty, no exhibit inside: someone's files under a name like ours.
        let tmp = tempfile::tempdir().unwrap();
        let made = made_in(tmp.path());
        std::fs::create_dir_all(made.root()).unwrap();
        std::fs::write(made.root().join("mine.txt"), b"mine").unwrap();
        let err = made.put("ledger/public_texts/a.txt", b"a").unwrap_err();
        assert!(format!("{err:#}").contains("did not write"), "{err:#}");
        let root = made.root().to_path_buf();
        drop(made);
        assert_eq!(std::fs::read(root.join("mine.txt")).unwrap(), b"mine");
        assert_eq!(std::fs::read_dir(&root).unwrap().count(), 1);
    }

    #[test]
    fn a_symlink_under_the_folders_name_is_neither_followed_nor_removed() {
        // Someone put a symlink where the folder goes, to a folder of theirs: clearing "the
        // leftover" would empty their folder. The put fails, naming the path; both stay.
        let tmp = tempfile::tempdir().unwrap();
        let theirs = tmp.path().join("theirs");
        std::fs::create_dir(&theirs).unwrap();
        std::fs::write(theirs.join("keep.txt"), b"theirs").unwrap();
        let made = made_in(tmp.path());
        std::os::unix::fs::symlink(&theirs, made.root()).unwrap();
        let err = made.put("ledger/public_texts/a.txt", b"a").unwrap_err();
        assert!(format!("{err:#}").contains("not a folder"), "{err:#}");
        let root = made.root().to_path_buf();
        drop(made);
        assert_eq!(std::fs::read(theirs.join("keep.txt")).unwrap(), b"theirs");
        assert_eq!(std::fs::read_dir(&theirs).unwrap().count(), 1);
        assert!(std::fs::symlink_metadata(&root).unwrap().is_symlink());
    }
}
