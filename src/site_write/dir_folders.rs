//! Folders opened once each along a walk of paths in sorted order, every one from its parent's
//! handle and none through a symlink. The write stage links, stats and creates each of DIR's
//! files by its folder's handle and its own name instead of by a path from the working folder:
//! the kernel then looks up one name per call instead of every folder on the way, and a folder
//! of DIR replaced by a symlink is never entered (docs/scale.md#comparing-without-reading).

use std::io;
use std::path::Path;

use rustix::fd::{AsFd, BorrowedFd, OwnedFd};
use rustix::fs::{AtFlags, Mode, OFlags};

/// A folder is opened for reading, as a folder, never through a symlink (the last name is not
/// followed: `O_NOFOLLOW`; the earlier ones are handles already opened the same way).
pub(crate) const FOLDER: OFlags = OFlags::RDONLY
    .union(OFlags::DIRECTORY)
    .union(OFlags::NOFOLLOW)
    .union(OFlags::CLOEXEC);

/// The handles of the folders on the way to the folder last asked for.
pub struct OpenFolders {
    root: Option<OwnedFd>,
    /// Below the root, outermost first: each folder's name and handle (`None` when it is
    /// missing, not a folder, or a symlink, and so is everything below it).
    chain: Vec<(String, Option<OwnedFd>)>,
    /// Missing folders are made (the temporary tree); else they are `None` (DIR).
    create: bool,
}

impl OpenFolders {
    /// Folders of an existing tree, looked into, never changed. A root that cannot be opened
    /// as a folder (missing, a symlink, a file) gives `None` for every folder.
    pub fn existing(root: &Path) -> OpenFolders {
        OpenFolders {
            root: rustix::fs::open(root, FOLDER, Mode::empty()).ok(),
            chain: Vec::new(),
            create: false,
        }
    }

    /// Folders of a tree being made in `root` (which must exist): a missing one is created.
    pub fn creating(root: &Path) -> io::Result<OpenFolders> {
        Ok(OpenFolders {
            root: Some(rustix::fs::open(root, FOLDER, Mode::empty())?),
            chain: Vec::new(),
            create: true,
        })
    }

    /// The handle of `folder` (relative, `/`-separated; `""` is the root), or `None` when an
    /// existing tree has no real folder there. Folders shared with the last one asked for are
    /// not opened again.
    pub fn get(&mut self, folder: &str) -> io::Result<Option<BorrowedFd<'_>>> {
        // Called once per file: walk the names without collecting them. The folders shared
        // with the chain are kept; from the first that differs, the chain is cut and the rest
        // opened.
        let mut depth = 0;
        for part in folder.split('/').filter(|p| !p.is_empty()) {
            if self.chain.get(depth).is_some_and(|(name, _)| name == part) {
                depth += 1;
                continue;
            }
            self.chain.truncate(depth);
            let parent = match self.chain.last() {
                Some((_, fd)) => fd.as_ref(),
                None => self.root.as_ref(),
            };
            let opened = match parent {
                None => None,
                Some(parent) => self.open_in(parent.as_fd(), part)?,
            };
            self.chain.push((part.to_string(), opened));
            depth += 1;
        }
        self.chain.truncate(depth);
        Ok(match self.chain.last() {
            Some((_, fd)) => fd.as_ref().map(|fd| fd.as_fd()),
            None => self.root.as_ref().map(|fd| fd.as_fd()),
        })
    }

    fn open_in(&self, parent: BorrowedFd<'_>, name: &str) -> io::Result<Option<OwnedFd>> {
        if self.create {
            match rustix::fs::mkdirat(parent, name, Mode::from_raw_mode(0o777)) {
                Ok(()) | Err(rustix::io::Errno::EXIST) => {}
                Err(e) => return Err(e.into()),
            }
            return Ok(Some(rustix::fs::openat(
                parent,
                name,
                FOLDER,
                Mode::empty(),
            )?));
        }
        Ok(rustix::fs::openat(parent, name, FOLDER, Mode::empty()).ok())
    }
}

pub use crate::published::layout::folder_and_name;

/// The stat data of `name` in `folder`, not following a symlink.
pub fn stat_in(folder: BorrowedFd<'_>, name: &str) -> io::Result<rustix::fs::Stat> {
    Ok(rustix::fs::statat(folder, name, AtFlags::SYMLINK_NOFOLLOW)?)
}

/// The stat data describes a regular file (not a symlink, folder, FIFO or device).
pub fn is_regular(stat: &rustix::fs::Stat) -> bool {
    rustix::fs::FileType::from_raw_mode(stat.st_mode as _) == rustix::fs::FileType::RegularFile
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_symlinked_folder_or_a_file_is_not_a_folder_and_neither_is_anything_below_it() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("site");
        std::fs::create_dir_all(root.join("ledger/witness")).unwrap();
        std::fs::write(root.join("ledger/witness/a.txt"), b"a").unwrap();
        let elsewhere = tmp.path().join("elsewhere");
        std::fs::create_dir_all(elsewhere.join("inner")).unwrap();
        std::os::unix::fs::symlink(&elsewhere, root.join("linked")).unwrap();
        std::fs::write(root.join("plain"), b"x").unwrap();

        let mut folders = OpenFolders::existing(&root);
        let fd = folders
            .get("ledger/witness")
            .unwrap()
            .expect("a real folder");
        assert!(is_regular(&stat_in(fd, "a.txt").unwrap()));
        assert!(
            folders.get("linked").unwrap().is_none(),
            "a symlink is not entered"
        );
        assert!(folders.get("linked/inner").unwrap().is_none());
        assert!(folders.get("plain").unwrap().is_none());
        assert!(folders.get("missing/deeper").unwrap().is_none());
        // Back to a folder asked for before: found again after the chain moved elsewhere.
        assert!(folders.get("ledger").unwrap().is_some());
        assert!(folders.get("").unwrap().is_some());
        let link_stat = stat_in(folders.get("").unwrap().unwrap(), "linked").unwrap();
        assert!(!is_regular(&link_stat), "the symlink itself, not followed");

        // A root that is a symlink is not entered either.
        std::os::unix::fs::symlink(&root, tmp.path().join("alias")).unwrap();
        assert!(
            OpenFolders::existing(&tmp.path().join("alias"))
                .get("ledger")
                .unwrap()
                .is_none()
        );
    }

    #[test]
    fn a_tree_being_made_gets_its_folders_and_refuses_a_file_in_the_way() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("new");
        std::fs::create_dir(&root).unwrap();
        let mut folders = OpenFolders::creating(&root).unwrap();
        assert!(folders.get("a/b/c").unwrap().is_some());
        assert!(root.join("a/b/c").is_dir());
        assert!(folders.get("a/d").unwrap().is_some());
        std::fs::write(root.join("a/file"), b"x").unwrap();
        assert!(folders.get("a/file").is_err(), "a file where a folder goes");
        let elsewhere = tmp.path().join("elsewhere");
        std::fs::create_dir(&elsewhere).unwrap();
        std::os::unix::fs::symlink(&elsewhere, root.join("a/link")).unwrap();
        assert!(
            folders.get("a/link/x").is_err(),
            "a symlink is not followed"
        );
        assert!(!elsewhere.join("x").exists());
        assert_eq!(folder_and_name("a/b/c.txt"), ("a/b", "c.txt"));
        assert_eq!(folder_and_name("index.html"), ("", "index.html"));
    }
}
