//! The previous publication, read from the git repository that holds DIR, at `HEAD` — never
//! from the files on disk (docs/protocol.md#snapshots), so a hand-edited working tree cannot stand in for what
//! was committed. No repository, an unborn HEAD, or a path absent at HEAD means "first
//! publication"; any other git error fails the build.

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};
use std::rc::Rc;

use anyhow::{Context, Result, bail};
use git2::{ErrorCode, ObjectType, Oid, Repository};

/// One folder of HEAD's tree: entry name → (id, git file mode).
type Listing = HashMap<Vec<u8>, (Oid, i32)>;

pub struct Previous {
    repo: Option<Repository>,
    /// HEAD's root tree, when there is a HEAD.
    root: Option<Oid>,
    /// Folder listings already read, by tree id: a read by path costs one look-up per folder
    /// instead of re-reading (inflating, re-hashing) every tree from the root on each call —
    /// libgit2 keeps no tree over 4 KiB in its object cache (docs/scale.md#the-daily-rebuilds-cost).
    listings: RefCell<HashMap<Oid, Rc<Listing>>>,
    /// DIR relative to the work tree, with `/` separators ("" when DIR is the work tree).
    prefix: String,
    /// The HEAD commit, when there is one.
    pub commit: Option<String>,
    /// DIR lies inside a git checkout: operator readings recorded at HEAD persist.
    pub in_checkout: bool,
    pub repo_root: Option<PathBuf>,
}

impl std::fmt::Debug for Previous {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Previous")
            .field("prefix", &self.prefix)
            .field("commit", &self.commit)
            .field("in_checkout", &self.in_checkout)
            .finish()
    }
}

impl Previous {
    /// Nothing published before, no repository (tests, first builds outside git).
    pub fn none() -> Previous {
        Previous {
            repo: None,
            root: None,
            listings: RefCell::new(HashMap::new()),
            prefix: String::new(),
            commit: None,
            in_checkout: false,
            repo_root: None,
        }
    }

    pub fn open(out_dir: &Path) -> Result<Previous> {
        let absolute = absolute(out_dir)?;
        // DIR may not exist yet: look from its nearest existing ancestor.
        let mut start = absolute.as_path();
        while !start.exists() {
            start = start.parent().unwrap_or(Path::new("/"));
        }
        let repo = match Repository::discover(start) {
            Ok(repo) => repo,
            Err(e) if e.code() == ErrorCode::NotFound => return Ok(Previous::none()),
            Err(e) => {
                return Err(e).with_context(|| {
                    format!(
                        "{}: cannot open the git repository holding it",
                        out_dir.display()
                    )
                });
            }
        };
        let Some(workdir) = repo.workdir() else {
            bail!(
                "{}: lies in a bare git repository; build in a checkout of the exhibit branch",
                out_dir.display()
            );
        };
        let workdir = workdir
            .canonicalize()
            .with_context(|| format!("{}: cannot resolve", workdir.display()))?;
        let existing = start
            .canonicalize()
            .with_context(|| format!("{}: cannot resolve", start.display()))?;
        let rest = absolute.strip_prefix(start).unwrap_or(Path::new(""));
        let full = existing.join(rest);
        let Ok(relative) = full.strip_prefix(&workdir) else {
            bail!(
                "{}: is not inside the work tree {} of the repository that holds it",
                out_dir.display(),
                workdir.display()
            );
        };
        let prefix = relative
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join("/");
        let (commit, root) = match repo.head() {
            Ok(head) => {
                let commit = head
                    .peel_to_commit()
                    .context("git HEAD does not name a commit")?;
                let root = commit.tree().context("cannot read HEAD's tree")?.id();
                (Some(commit.id().to_string()), Some(root))
            }
            Err(e) if matches!(e.code(), ErrorCode::UnbornBranch | ErrorCode::NotFound) => {
                (None, None)
            }
            Err(e) => return Err(e).context("cannot read git HEAD"),
        };
        Ok(Previous {
            repo: Some(repo),
            root,
            listings: RefCell::new(HashMap::new()),
            prefix,
            commit,
            in_checkout: true,
            repo_root: Some(workdir),
        })
    }

    fn path_at_head(&self, rel: &str) -> String {
        if self.prefix.is_empty() {
            rel.to_string()
        } else {
            format!("{}/{rel}", self.prefix)
        }
    }

    /// The listing of one of HEAD's folders, read once per build.
    fn listing(&self, repo: &Repository, tree: Oid, path: &str) -> Result<Rc<Listing>> {
        if let Some(l) = self.listings.borrow().get(&tree) {
            return Ok(Rc::clone(l));
        }
        let t = repo
            .find_tree(tree)
            .with_context(|| format!("git ls-tree HEAD:{path}"))?;
        let listing: Listing = t
            .iter()
            .map(|e| (e.name_bytes().to_vec(), (e.id(), e.filemode())))
            .collect();
        let listing = Rc::new(listing);
        self.listings.borrow_mut().insert(tree, Rc::clone(&listing));
        Ok(listing)
    }

    /// Forgets the folder listings read so far (at a million proofs, tens of MB), once
    /// nothing will read HEAD by path again in this build (docs/scale.md#memory). A later read
    /// lists its folders again.
    pub fn let_go_of_listings(&self) {
        self.listings.borrow_mut().clear();
        self.listings.borrow_mut().shrink_to_fit();
    }

    /// The entry at `path` (relative to the work tree) in HEAD's tree, found folder by folder
    /// through the listings already read: `None` when absent, or when a folder on the way is
    /// not a folder (as `git show HEAD:path` finds nothing there).
    fn entry_at(&self, repo: &Repository, path: &str) -> Result<Option<(Oid, i32)>> {
        let Some(root) = self.root else {
            return Ok(None);
        };
        let mut current = (root, TREE_MODE);
        let mut walked = String::new();
        for part in path.split('/').filter(|p| !p.is_empty()) {
            if current.1 != TREE_MODE {
                return Ok(None);
            }
            let listing = self.listing(repo, current.0, &walked)?;
            let Some(found) = listing.get(part.as_bytes()) else {
                return Ok(None);
            };
            current = *found;
            if !walked.is_empty() {
                walked.push('/');
            }
            walked.push_str(part);
        }
        Ok(Some(current))
    }

    /// The bytes of `DIR/<rel>` at HEAD, or `None` when absent there (or no HEAD).
    pub fn read(&self, rel: &str) -> Result<Option<Vec<u8>>> {
        let Some(repo) = &self.repo else {
            return Ok(None);
        };
        let path = self.path_at_head(rel);
        let Some((id, mode)) = self.entry_at(repo, &path)? else {
            return Ok(None);
        };
        if !is_blob_mode(mode) {
            bail!("HEAD:{path} is not a file");
        }
        let blob = repo
            .find_blob(id)
            .with_context(|| format!("git show HEAD:{path}"))?;
        Ok(Some(blob.content().to_vec()))
    }

    /// The file names directly under `DIR/<rel_dir>` at HEAD, sorted.
    pub fn list(&self, rel_dir: &str) -> Result<Vec<String>> {
        Ok(self
            .list_blobs(rel_dir)?
            .into_iter()
            .map(|(name, _)| name)
            .collect())
    }

    /// The files directly under `DIR/<rel_dir>` at HEAD with their blob ids, sorted by name: one
    /// tree read, so a folder of a million files costs one pass; each blob is then read by its
    /// id (`read_blob`), never by path.
    pub fn list_blobs(&self, rel_dir: &str) -> Result<Vec<(String, git2::Oid)>> {
        self.list_blobs_beside(rel_dir, &[])
    }

    /// [`Previous::list_blobs`], where the folders named in `folders` may sit beside the files
    /// (`public_texts/index/`: docs/public-texts.md#parts); they are not listed.
    pub fn list_blobs_beside(
        &self,
        rel_dir: &str,
        folders: &[&str],
    ) -> Result<Vec<(String, git2::Oid)>> {
        let mut blobs: Vec<(String, git2::Oid)> = Vec::new();
        self.visit_blobs_beside(rel_dir, folders, |name, id| blobs.push((name, id)))?;
        blobs.sort();
        Ok(blobs)
    }

    /// Each file of [`Previous::list_blobs_beside`] handed to `visit` as it is read, in git's
    /// order, none kept: a folder of a million proofs need not be held as a million strings
    /// (docs/scale.md#what-is-left).
    pub fn visit_blobs_beside(
        &self,
        rel_dir: &str,
        folders: &[&str],
        mut visit: impl FnMut(String, git2::Oid),
    ) -> Result<()> {
        let Some(repo) = &self.repo else {
            return Ok(());
        };
        let path = self.path_at_head(rel_dir);
        let Some((id, _)) = self.entry_at(repo, &path)? else {
            return Ok(());
        };
        // The folder's tree object read as it is stored, not parsed into libgit2's list of
        // entries: at a million proofs that list is tens of MB more beside the object itself
        // (docs/scale.md#memory).
        let odb = repo
            .odb()
            .with_context(|| format!("HEAD:{path}: cannot open git's objects"))?;
        let object = odb
            .read(id)
            .with_context(|| format!("HEAD:{path}: cannot read the folder"))?;
        if object.kind() != ObjectType::Tree {
            bail!("HEAD:{path} is not a folder");
        }
        for e in TreeEntries(object.data()) {
            let (mode, name, oid) =
                e.with_context(|| format!("HEAD:{path}: not a git tree as git writes it"))?;
            // Names are data until checked: the build checked HEAD's whole tree against the
            // output's grammar before trusting it (crate::head_check); this is the second lock.
            let name = String::from_utf8_lossy(name).into_owned();
            if mode == TREE_MODE && folders.contains(&name.as_str()) {
                continue;
            }
            let plain = matches!(mode, 0o100644 | 0o100755)
                && !name.is_empty()
                && name != "."
                && name != ".."
                && !name.contains(['/', '\\', '\0']);
            if !plain {
                bail!(
                    "HEAD:{path}/{}: not a plain file name (docs/build.md#safety)",
                    crate::terminal::escape(&name)
                );
            }
            visit(name, oid);
        }
        Ok(())
    }

    /// Every entry under `DIR/<rel_dir>` at HEAD, recursively (one tree walk), as paths relative
    /// to DIR, sorted. Names are returned as git holds them — data, not yet paths: the caller
    /// checks them against the output's grammar (crate::layout) before any is used.
    pub fn walk(&self, rel_dir: &str) -> Result<Vec<HeadEntry>> {
        let mut out = Vec::new();
        self.visit_walk(rel_dir, |e| {
            out.push(e);
            Ok(true)
        })?;
        out.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(out)
    }

    /// [`Previous::walk`]'s entries handed over one at a time in the walk's order, not kept (a
    /// million proofs' entries are 150 MB: docs/scale.md#memory). Git keeps a tree's entries in
    /// name order, with a folder's name compared as if it ended in `/`, so a walk of a tree git
    /// wrote gives the paths in sorted order; a tree written otherwise by hand does not, and the
    /// caller that needs the order checks it. `visit` returns false to stop the walk; the
    /// result is false when it did.
    pub fn visit_walk(
        &self,
        rel_dir: &str,
        mut visit: impl FnMut(HeadEntry) -> Result<bool>,
    ) -> Result<bool> {
        let Some(repo) = &self.repo else {
            return Ok(true);
        };
        let path = self.path_at_head(rel_dir);
        let Some((id, mode)) = self.entry_at(repo, &path)? else {
            return Ok(true);
        };
        if mode != TREE_MODE {
            bail!("HEAD:{path} is not a folder");
        }
        let tree = repo
            .find_tree(id)
            .with_context(|| format!("git ls-tree HEAD:{path}"))?;
        let base = if rel_dir.is_empty() {
            String::new()
        } else {
            format!("{rel_dir}/")
        };
        let mut failed: Option<anyhow::Error> = None;
        let mut stopped = false;
        let mut hand_over = |e: HeadEntry| match visit(e) {
            Ok(true) => true,
            Ok(false) => {
                stopped = true;
                false
            }
            Err(e) => {
                failed = Some(e);
                false
            }
        };
        let walked = tree.walk(git2::TreeWalkMode::PreOrder, |root, entry| {
            let kind = entry.kind();
            let path = || {
                format!(
                    "{base}{root}{}",
                    String::from_utf8_lossy(entry.name_bytes())
                )
            };
            if kind == Some(ObjectType::Tree) {
                // A folder's name is checked through the paths of the files under it.
                if entry.name().is_err() || entry.name_bytes().contains(&b'/') {
                    let go_on = hand_over(HeadEntry {
                        path: path(),
                        id: entry.id(),
                        regular_file: false,
                    });
                    return match go_on {
                        true => git2::TreeWalkResult::Skip,
                        false => git2::TreeWalkResult::Abort,
                    };
                }
                return git2::TreeWalkResult::Ok;
            }
            let go_on = hand_over(HeadEntry {
                path: path(),
                id: entry.id(),
                regular_file: kind == Some(ObjectType::Blob)
                    && matches!(entry.filemode(), 0o100644 | 0o100755),
            });
            match go_on {
                true => git2::TreeWalkResult::Ok,
                false => git2::TreeWalkResult::Abort,
            }
        });
        if let Some(e) = failed {
            return Err(e);
        }
        if stopped {
            return Ok(false);
        }
        walked.with_context(|| format!("git ls-tree -r HEAD:{path}"))?;
        Ok(true)
    }

    /// The repository's git folder (shared by its worktrees), when DIR lies in one.
    pub fn git_dir(&self) -> Option<&Path> {
        self.repo.as_ref().map(Repository::commondir)
    }

    /// DIR as HEAD names it, for messages (`site` for a DIR at the work tree's `site/`).
    pub fn shown_prefix(&self) -> &str {
        &self.prefix
    }

    /// The blob id of `DIR/<rel>` at HEAD, or `None` when absent there (or no HEAD): the file
    /// is not read.
    pub fn blob_id(&self, rel: &str) -> Result<Option<git2::Oid>> {
        let (Some(repo), Some(commit)) = (&self.repo, &self.commit) else {
            return Ok(None);
        };
        let path = self.path_at_head(rel);
        let tree = repo
            .find_commit(git2::Oid::from_str(commit)?)?
            .tree()
            .context("cannot read HEAD's tree")?;
        let entry = match tree.get_path(Path::new(&path)) {
            Ok(e) => e,
            Err(e) if e.code() == ErrorCode::NotFound => return Ok(None),
            Err(e) => return Err(e).with_context(|| format!("git rev-parse HEAD:{path}")),
        };
        if entry.kind() != Some(ObjectType::Blob) {
            bail!("HEAD:{path} is not a file");
        }
        Ok(Some(entry.id()))
    }

    /// The size of a blob named by `list_blobs`, from the object's header: the file is not
    /// inflated (the witness layer's full run-log files are compared by id, not re-read).
    pub fn blob_size(&self, id: git2::Oid) -> Result<u64> {
        let Some(repo) = &self.repo else {
            bail!("no repository to read blob {id} from");
        };
        let (size, _) = repo
            .odb()?
            .read_header(id)
            .with_context(|| format!("git cat-file -s {id}"))?;
        Ok(size as u64)
    }

    /// The bytes of a blob named by `list_blobs`.
    pub fn read_blob(&self, id: git2::Oid) -> Result<Vec<u8>> {
        let Some(repo) = &self.repo else {
            bail!("no repository to read blob {id} from");
        };
        Ok(repo
            .find_blob(id)
            .with_context(|| format!("git cat-file blob {id}"))?
            .content()
            .to_vec())
    }
}

/// A folder's git file mode.
const TREE_MODE: i32 = 0o040000;

/// A blob's git file modes: a file (executable or not) or a symlink — what `git show` prints.
fn is_blob_mode(mode: i32) -> bool {
    matches!(mode & 0o170000, 0o100000 | 0o120000)
}

/// One entry of HEAD's tree under DIR (see [`Previous::walk`]).
#[derive(Debug, Clone)]
pub struct HeadEntry {
    /// Relative to DIR, `/`-separated, as git holds the names (non-UTF-8 bytes replaced).
    pub path: String,
    pub id: git2::Oid,
    /// A blob with a regular file's mode (not a symlink, a submodule or a folder).
    pub regular_file: bool,
}

/// An absolute, lexically normalised path (DIR need not exist).
fn absolute(path: &Path) -> Result<PathBuf> {
    let joined = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir()
            .context("cannot read the current directory")?
            .join(path)
    };
    let mut out = PathBuf::new();
    for c in joined.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    Ok(out)
}

/// The entries of a git tree object's bytes, in the order stored: each is the mode in octal
/// digits, a space, the name, a NUL and the 20-byte object id (git's `tree` format). A
/// malformed entry ends the walk with an error, never a panic.
struct TreeEntries<'a>(&'a [u8]);

impl<'a> Iterator for TreeEntries<'a> {
    type Item = Result<(i32, &'a [u8], Oid)>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.0.is_empty() {
            return None;
        }
        let entry = (|| {
            let space = self.0.iter().position(|&b| b == b' ')?;
            let nul = space + 1 + self.0[space + 1..].iter().position(|&b| b == 0)?;
            let digits = &self.0[..space];
            if digits.is_empty()
                || digits.len() > 7
                || !digits.iter().all(|b| (b'0'..=b'7').contains(b))
            {
                return None;
            }
            let mode = digits.iter().fold(0i32, |m, d| m * 8 + i32::from(d - b'0'));
            let id = self.0.get(nul + 1..nul + 21)?;
            let oid = Oid::from_bytes(id).ok()?;
            let name = &self.0[space + 1..nul];
            self.0 = &self.0[nul + 21..];
            Some((mode, name, oid))
        })();
        match entry {
            Some(e) => Some(Ok(e)),
            None => {
                self.0 = &[];
                Some(Err(anyhow::anyhow!(
                    "a tree entry that is not <mode> <name>NUL<20-byte id>"
                )))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tree_object_read_as_stored_gives_what_libgit2_gives_and_a_malformed_one_an_error() {
        // Catches a parse that misreads the mode (octal), a name with a space in it, a folder
        // entry, or the id's 20 bytes; and one that panics or loops on a cut or bad entry.
        let tmp = tempfile::tempdir().unwrap();
        let repo = Repository::init(tmp.path()).unwrap();
        let blob = repo.blob(b"one").unwrap();
        let mut sub = repo.treebuilder(None).unwrap();
        sub.insert("inner.txt", blob, 0o100644).unwrap();
        let sub = sub.write().unwrap();
        let mut tree = repo.treebuilder(None).unwrap();
        tree.insert("a name with spaces.ots", blob, 0o100644)
            .unwrap();
        tree.insert("run.sh", blob, 0o100755).unwrap();
        tree.insert("link", blob, 0o120000).unwrap();
        tree.insert("folder", sub, 0o040000).unwrap();
        let tree = tree.write().unwrap();
        let odb = repo.odb().unwrap();
        let object = odb.read(tree).unwrap();
        let ours: Vec<(i32, Vec<u8>, Oid)> = TreeEntries(object.data())
            .map(|e| e.map(|(mode, name, oid)| (mode, name.to_vec(), oid)))
            .collect::<Result<_>>()
            .unwrap();
        let theirs: Vec<(i32, Vec<u8>, Oid)> = repo
            .find_tree(tree)
            .unwrap()
            .iter()
            .map(|e| (e.filemode(), e.name_bytes().to_vec(), e.id()))
            .collect();
        assert_eq!(ours, theirs);
        assert_eq!(ours.len(), 4);

        let data = object.data();
        let cut_id = &data[..data.len() - 1];
        let no_nul: Vec<u8> = b"100644 name-without-end".to_vec();
        let bad_mode: Vec<u8> = [b"10064x name\0".as_slice(), &[7u8; 20]].concat();
        let no_mode: Vec<u8> = [b" name\0".as_slice(), &[7u8; 20]].concat();
        for malformed in [cut_id, &no_nul, &bad_mode, &no_mode] {
            let entries: Vec<_> = TreeEntries(malformed).collect();
            assert!(
                entries.last().is_some_and(|e| e.is_err()),
                "{malformed:?} must end in an error"
            );
            assert!(entries.len() <= 4, "the walk stops at the error");
        }
        assert_eq!(TreeEntries(b"").count(), 0);
    }
}
