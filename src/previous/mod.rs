//! The previous publication, read from the git repository that holds DIR, at `HEAD` — never
//! from the files on disk (docs/protocol.md#snapshots), so a hand-edited working tree cannot stand in for what
//! was committed. No repository, an unborn HEAD, or a path absent at HEAD means "first
//! publication"; any other git error fails the build.

pub mod blob_digests;
pub mod carried;
pub mod file_records;
pub mod head_check;
pub mod ledger_seqs;
pub mod line_verdicts;
pub mod trust;

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};
use std::rc::Rc;

use anyhow::{Context, Result, bail};
use git2::{ErrorCode, ObjectType, Oid, Repository};

/// How much of a repository's pack files libgit2 keeps mapped at once: windows of 1 MiB, 4
/// MiB in all (its defaults are 1 GiB and 8 GiB). A page of a mapped pack that was read counts
/// as the process's memory until the window is unmapped, and a build that reads HEAD's blobs
/// (the first after an upgrade, a clone) reads a packed million-line exhibit's 1 GB pack
/// through: at 1,020,000 lines the mapped pages took such a build's peak from the heap's
/// 229 MiB to 431 MiB (docs/scale.md#packs-mapped). A small window costs a remap every MiB
/// read, which the HEAD check's time does not show.
pub const PACK_WINDOW: usize = 1 << 20;
pub const PACK_WINDOWS_MAPPED: usize = 4 << 20;

/// Bounds libgit2's mapped pack windows ([`PACK_WINDOW`], [`PACK_WINDOWS_MAPPED`]). Called by
/// `main` first, before any thread or repository exists.
pub fn bound_mapped_packs() {
    // SAFETY: libgit2's options are process globals set without a lock; `main` calls this
    // before it starts a thread or opens a repository, so nothing reads them meanwhile.
    let set = unsafe {
        git2::opts::set_mwindow_size(PACK_WINDOW)
            .and_then(|()| git2::opts::set_mwindow_mapped_limit(PACK_WINDOWS_MAPPED))
    };
    if let Err(e) = set {
        // Only memory rides on it: the build reads the same bytes either way.
        crate::say!("exhibit: note: libgit2's pack windows keep their defaults: {e}");
    }
}

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

    /// Lets go of what libgit2 mapped of the repository's pack files while HEAD was read (its
    /// windows and pack indexes: a page of a pack that was read counts as the process's memory
    /// until unmapped) by opening the repository again; HEAD stays the tree it was, read by id
    /// (docs/scale.md#packs-mapped).
    pub fn let_go_of_mapped_packs(&mut self) -> Result<()> {
        let Some(repo) = self.repo.take() else {
            return Ok(());
        };
        let at = repo.path().to_path_buf();
        drop(repo);
        self.repo =
            Some(Repository::open(&at).with_context(|| {
                format!("{}: cannot open the git repository again", at.display())
            })?);
        Ok(())
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
        self.check_size(repo, id, rel)?;
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

    /// Whether HEAD's folder `rel_dir` is a tree git keeps loose, which
    /// [`Previous::visit_blobs_beside`] reads as a stream; `false` for a packed one (read
    /// whole), for none, and without a HEAD. A caller that reads a big folder beside large
    /// lists of its own asks first (docs/scale.md#head-proofs-merged).
    pub fn streams_folder(&self, rel_dir: &str) -> Result<bool> {
        let Some(repo) = &self.repo else {
            return Ok(false);
        };
        let path = self.path_at_head(rel_dir);
        let Some((id, mode)) = self.entry_at(repo, &path)? else {
            return Ok(false);
        };
        Ok(mode == TREE_MODE && Objects::of(repo).loose_file(id).is_file())
    }

    /// The size of HEAD's folder `rel_dir` as git stores it (its tree object's bytes, inflated:
    /// about 100 a name), read from the object's header without inflating it; `None` for no
    /// such folder, or without a HEAD. A packed tree is read whole when walked: a caller that
    /// walks it beside large lists of its own asks first (docs/scale.md#head-proofs-merged).
    pub fn folder_bytes(&self, rel_dir: &str) -> Result<Option<usize>> {
        let Some(repo) = &self.repo else {
            return Ok(None);
        };
        let path = self.path_at_head(rel_dir);
        let Some((id, mode)) = self.entry_at(repo, &path)? else {
            return Ok(None);
        };
        if mode != TREE_MODE {
            return Ok(None);
        }
        let (bytes, _) = Objects::of(repo)
            .odb()?
            .read_header(id)
            .with_context(|| format!("HEAD:{rel_dir}: cannot read its tree's header"))?;
        Ok(Some(bytes))
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
        let objects = Objects::of(repo);
        let mut end = WalkEnd::default();
        read_stored_tree(&objects, id, &mut |mode, name, oid| {
            // Names are data until checked: the build checked HEAD's whole tree against the
            // output's grammar before trusting it (crate::previous::head_check); this is the second lock.
            let name = String::from_utf8_lossy(name).into_owned();
            if mode == TREE_MODE && folders.contains(&name.as_str()) {
                return true;
            }
            let plain = matches!(mode, 0o100644 | 0o100755)
                && !name.is_empty()
                && name != "."
                && name != ".."
                && !name.contains(['/', '\\', '\0']);
            if !plain {
                return end.go_on(Err(anyhow::anyhow!(
                    "HEAD:{path}/{}: not a plain file name (docs/build.md#safety)",
                    crate::terminal::escape(&name)
                )));
            }
            visit(name, oid);
            true
        })
        .with_context(|| format!("HEAD:{path}"))?;
        end.result().map(drop)
    }

    /// Every entry under `DIR/<rel_dir>` at HEAD, recursively (one tree walk), as paths relative
    /// to DIR, sorted. Names are returned as git holds them — data, not yet paths: the caller
    /// checks them against the output's grammar (crate::published::layout) before any is used.
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
        let objects = Objects::of(repo);
        let base = if rel_dir.is_empty() {
            String::new()
        } else {
            format!("{rel_dir}/")
        };
        let mut end = WalkEnd::default();
        let mut hand_over = |e: HeadEntry| end.go_on(visit(e));
        // Each folder's tree object is read as git stores it and its entries taken in place
        // (`walk_stored`), not parsed by libgit2 into a list of entries beside the object: at a
        // million proofs that list was 67 MB on the HEAD check's peak
        // (docs/scale.md#witness-transients). The entries come in the same order and are
        // judged alike (`StoredMode` is libgit2's reading of a mode).
        let walked = walk_stored(&objects, id, "", &mut |root, mode, name, oid| {
            let path = || format!("{base}{root}{}", String::from_utf8_lossy(name));
            if mode.is_tree() {
                // A folder's name is checked through the paths of the files under it.
                if std::str::from_utf8(name).is_err() || name.contains(&b'/') {
                    return match hand_over(HeadEntry {
                        path: path(),
                        id: oid,
                        regular_file: false,
                    }) {
                        true => WalkStep::Skip,
                        false => WalkStep::Stop,
                    };
                }
                return WalkStep::Go;
            }
            match hand_over(HeadEntry {
                path: path(),
                id: oid,
                regular_file: mode.is_regular_file(),
            }) {
                true => WalkStep::Go,
                false => WalkStep::Stop,
            }
        });
        if !end.result()? {
            return Ok(false);
        }
        walked.with_context(|| format!("git ls-tree -r HEAD:{path}"))?;
        Ok(true)
    }

    /// The repository's git folder (shared by its worktrees), when DIR lies in one.
    pub fn git_dir(&self) -> Option<&Path> {
        self.repo.as_ref().map(Repository::commondir)
    }

    /// The git folder of the work tree DIR lies in (a linked worktree's own, not the shared
    /// one), when DIR lies in a repository: where its write journal lives
    /// (docs/build.md#the-journal).
    pub fn own_git_dir(&self) -> Option<&Path> {
        self.repo.as_ref().map(Repository::path)
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

    /// The bytes of a blob named by `list_blobs`, at `rel` (its path under DIR, or its name):
    /// refused, unread, when its header says it is larger than a file at that path can be
    /// ([`head_ceiling`]).
    pub fn read_blob(&self, id: git2::Oid, rel: &str) -> Result<Vec<u8>> {
        let Some(repo) = &self.repo else {
            bail!("no repository to read blob {id} from");
        };
        self.check_size(repo, id, rel)?;
        Ok(repo
            .find_blob(id)
            .with_context(|| format!("git cat-file blob {id}"))?
            .content()
            .to_vec())
    }

    /// A blob whose size (from the object's header: nothing is inflated) is past what a file
    /// at `rel` can legitimately be is refused before it is read: half a megabyte packed can
    /// inflate to gigabytes (docs/build.md#safety).
    fn check_size(&self, repo: &Repository, id: git2::Oid, rel: &str) -> Result<()> {
        let (size, _) = repo
            .odb()?
            .read_header(id)
            .with_context(|| format!("git cat-file -s {id}"))?;
        let ceiling = head_ceiling(rel);
        if size as u64 > ceiling {
            bail!(
                "HEAD:{}: is {size} bytes, over the ceiling of {ceiling} bytes for such a file of the exhibit (docs/build.md#safety: a file is read from git only within what it can legitimately be); restore the exhibit branch as exhibit built it (git log -- the file), no flag accepts it",
                crate::terminal::escape(&self.path_at_head(rel.trim_start_matches('/')))
            );
        }
        Ok(())
    }
}

/// The largest a file of the output tree can legitimately be at HEAD: a proof 1 MiB, a released
/// text 4 MiB, an anchor post 4 KiB, as the box's own files are bounded; anything else 100 MiB,
/// the most GitHub accepts in one file (a file over it cannot have been pushed, and no file
/// exhibit writes passes 32 MiB: docs/scale.md).
pub fn head_ceiling(rel: &str) -> u64 {
    use crate::operator_box::read::FileClass;
    let name = rel.rsplit('/').next().unwrap_or(rel);
    if name.ends_with(".ots") {
        FileClass::Proof.ceiling()
    } else if rel.contains("public_texts/") && name.len() == 68 && name.ends_with(".txt") {
        FileClass::PublicText.ceiling()
    } else if rel.contains("anchors/") && name.ends_with(".txt") {
        FileClass::AnchorPost.ceiling()
    } else {
        100 << 20
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

/// What [`walk_stored`] hands each entry to: the path of its folder below the walk's root, its
/// mode, its name and its id.
type WalkVisit<'a> = dyn FnMut(&str, StoredMode, &[u8], Oid) -> WalkStep + 'a;

/// What a walk of stored trees does after an entry.
enum WalkStep {
    /// Go on (into the entry, when it is a folder).
    Go,
    /// Go on, but not into this folder.
    Skip,
    Stop,
}

/// A tree entry's mode as libgit2 reads it (`git_tree_entry_type`, `git_tree_entry_filemode`):
/// its type bits name a folder, a submodule's commit, a link or a file, and a file with any
/// execute bit is an executable one.
#[derive(Debug, Clone, Copy)]
struct StoredMode(i32);

impl StoredMode {
    const TYPE: i32 = 0o170000;

    fn is_tree(self) -> bool {
        self.0 & Self::TYPE == TREE_MODE
    }

    /// A blob libgit2 reads as `100644` or `100755`: what the HEAD check takes for a file. Its
    /// type is no folder's or submodule's; any execute bit makes it executable, even on a
    /// link's type; a link's type without one is a link.
    fn is_regular_file(self) -> bool {
        let kind = self.0 & Self::TYPE;
        let blob = kind != TREE_MODE && kind != 0o160000;
        blob && (self.0 & 0o111 != 0 || kind != 0o120000)
    }
}

/// Walks the tree `id` as git stores it, folders before what they hold and entries in the
/// order stored (libgit2's pre-order walk), handing each entry to `at` with the path of its
/// folder below the walk's root (`""`, then `a/`, `a/b/`). Returns false when `at` stopped it.
fn walk_stored(objects: &Objects<'_>, id: Oid, root: &str, at: &mut WalkVisit<'_>) -> Result<bool> {
    let mut end = WalkEnd::default();
    read_stored_tree(objects, id, &mut |mode, name, oid| {
        let mode = StoredMode(mode);
        match at(root, mode, name, oid) {
            WalkStep::Stop => end.go_on(Ok(false)),
            WalkStep::Go if mode.is_tree() => {
                let folder = format!("{root}{}/", String::from_utf8_lossy(name));
                end.go_on(walk_stored(objects, oid, &folder, at))
            }
            WalkStep::Go | WalkStep::Skip => true,
        }
    })
    .with_context(|| format!("{root}: not a git tree as git writes it"))?;
    end.result()
}

/// How a walk that hands its entries on ended: stopped by what it hands them to, or failed in
/// it (an error there ends the walk, and is the walk's).
#[derive(Default)]
struct WalkEnd {
    stopped: bool,
    failed: Option<anyhow::Error>,
}

impl WalkEnd {
    /// Whether the walk goes on after a visit that said `visited` (true: go on).
    fn go_on(&mut self, visited: Result<bool>) -> bool {
        match visited {
            Ok(true) => true,
            Ok(false) => {
                self.stopped = true;
                false
            }
            Err(e) => {
                self.failed = Some(e);
                false
            }
        }
    }

    /// The visits' error first; then whether the walk ran to its end.
    fn result(self) -> Result<bool> {
        match self.failed {
            Some(e) => Err(e),
            None => Ok(!self.stopped),
        }
    }
}

/// Hands each entry of the tree object `id` to `entry` (its mode, name and id), in the order
/// stored, until `entry` returns false. A loose object is read as a stream through its
/// inflation ([`read_loose_tree`]), so that neither its compressed file nor its inflated bytes
/// are held or mapped whole (a folder of a million proofs is a tree of about 98 MB, read from a
/// 67 MB file: both were on the HEAD check's peak, docs/scale.md#witness-transients,
/// #head-proofs-merged); a packed one, or one git keeps elsewhere, is read whole by libgit2.
fn read_stored_tree(
    objects: &Objects<'_>,
    id: Oid,
    entry: &mut dyn FnMut(i32, &[u8], Oid) -> bool,
) -> Result<()> {
    if let Ok(file) = std::fs::File::open(objects.loose_file(id)) {
        return read_loose_tree(file, id, entry);
    }
    let odb = objects.odb()?;
    let object = odb.read(id).context("cannot read the folder")?;
    if object.kind() != ObjectType::Tree {
        bail!("{id} is not a folder");
    }
    each_tree_entry(object.data(), entry)
}

/// git's objects of one repository: the loose ones, each a file, read here as a stream, and
/// libgit2's database for the packed ones.
struct Objects<'r> {
    repo: &'r Repository,
    /// `objects/` in the repository's common folder (a linked worktree's objects are its main
    /// repository's).
    loose: PathBuf,
}

impl<'r> Objects<'r> {
    fn of(repo: &'r Repository) -> Objects<'r> {
        Objects {
            repo,
            loose: repo.commondir().join("objects"),
        }
    }

    /// Where git keeps `id` when it keeps it loose: `objects/<2 hex>/<38 hex>`.
    fn loose_file(&self, id: Oid) -> PathBuf {
        let hex = id.to_string();
        self.loose.join(&hex[..2]).join(&hex[2..])
    }

    fn odb(&self) -> Result<git2::Odb<'r>> {
        self.repo.odb().context("cannot open git's objects")
    }
}

/// A reader that hashes every byte that passes through it (a git object's id is the SHA-1 of
/// its inflated bytes, header included).
struct Hashing<R> {
    inner: R,
    sha1: sha1::Sha1,
}

impl<R: std::io::Read> std::io::Read for Hashing<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        use sha1::Digest as _;
        let n = self.inner.read(buf)?;
        self.sha1.update(&buf[..n]);
        Ok(n)
    }
}

/// A loose tree object's entries, its file inflated as it is read (64 KiB buffers) and its
/// SHA-1 held to `id` once read to its end. libgit2's stream of a loose object maps the whole
/// compressed file, which then counts in the process's memory as it is read (67 MB for a
/// folder of a million proofs) and checks no id (docs/scale.md#head-proofs-merged).
fn read_loose_tree(
    file: std::fs::File,
    id: Oid,
    entry: &mut dyn FnMut(i32, &[u8], Oid) -> bool,
) -> Result<()> {
    use std::io::{BufRead, Read};
    let inflate =
        flate2::bufread::ZlibDecoder::new(std::io::BufReader::with_capacity(1 << 16, file));
    let mut reader = std::io::BufReader::with_capacity(
        1 << 16,
        Hashing {
            inner: inflate,
            sha1: <sha1::Sha1 as sha1::Digest>::new(),
        },
    );
    let mut header = Vec::new();
    (&mut reader).take(32).read_until(0, &mut header)?;
    let size = header
        .strip_prefix(b"tree ")
        .and_then(|h| h.strip_suffix(b"\0"))
        .and_then(|n| std::str::from_utf8(n).ok())
        .and_then(|n| n.parse::<u64>().ok());
    let Some(size) = size else {
        bail!("{id} is not a folder");
    };
    let mut body = (&mut reader).take(size);
    each_tree_entry(&mut body, entry)?;
    // Read to the end (a visit may have stopped the entries early), for the id's check.
    std::io::copy(&mut body, &mut std::io::sink())?;
    let short = body.limit() != 0;
    let longer = reader.read(&mut [0u8; 1])? != 0;
    let sha1 = <sha1::Sha1 as sha1::Digest>::finalize(reader.into_inner().sha1);
    if short || longer || sha1.as_slice() != id.as_bytes() {
        bail!("git's loose object {id} does not hash to its id");
    }
    Ok(())
}

/// The entries of a tree object's bytes as git stores them, `<octal mode> <name>NUL<20-byte
/// id>` one after another, each handed to `entry` until it returns false. The mode is at most
/// seven octal digits; anything else is an error, which ends the entries.
fn each_tree_entry(
    mut bytes: impl std::io::BufRead,
    entry: &mut dyn FnMut(i32, &[u8], Oid) -> bool,
) -> Result<()> {
    const SHAPE: &str = "a tree entry that is not <mode> <name>NUL<20-byte id>";
    let (mut digits, mut name, mut id) = (Vec::new(), Vec::new(), [0u8; 20]);
    loop {
        digits.clear();
        if bytes.read_until(b' ', &mut digits)? == 0 {
            return Ok(());
        }
        let mode = match digits.split_last() {
            Some((b' ', d))
                if !d.is_empty() && d.len() <= 7 && d.iter().all(|b| (b'0'..=b'7').contains(b)) =>
            {
                d.iter().fold(0i32, |m, d| m * 8 + i32::from(d - b'0'))
            }
            _ => bail!(SHAPE),
        };
        name.clear();
        bytes.read_until(0, &mut name)?;
        if name.pop() != Some(0) {
            bail!(SHAPE);
        }
        bytes
            .read_exact(&mut id)
            .map_err(|_| anyhow::anyhow!(SHAPE))?;
        if !entry(mode, &name, Oid::from_bytes(&id)?) {
            return Ok(());
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
        type Entries = Vec<(i32, Vec<u8>, Oid)>;
        let entries_of = |bytes: &[u8]| -> (Entries, Result<()>) {
            let mut got = Vec::new();
            let done = each_tree_entry(bytes, &mut |mode, name, oid| {
                got.push((mode, name.to_vec(), oid));
                true
            });
            (got, done)
        };
        let (ours, done) = entries_of(object.data());
        done.unwrap();
        let theirs: Vec<(i32, Vec<u8>, Oid)> = repo
            .find_tree(tree)
            .unwrap()
            .iter()
            .map(|e| (e.filemode(), e.name_bytes().to_vec(), e.id()))
            .collect();
        assert_eq!(ours, theirs);
        assert_eq!(ours.len(), 4);
        // Read as a stream (the object is loose), the same entries.
        let mut streamed = Vec::new();
        read_stored_tree(&Objects::of(&repo), tree, &mut |mode, name, oid| {
            streamed.push((mode, name.to_vec(), oid));
            true
        })
        .unwrap();
        assert_eq!(streamed, theirs);

        let data = object.data();
        let cut_id = &data[..data.len() - 1];
        let no_nul: Vec<u8> = b"100644 name-without-end".to_vec();
        let bad_mode: Vec<u8> = [b"10064x name\0".as_slice(), &[7u8; 20]].concat();
        let no_mode: Vec<u8> = [b" name\0".as_slice(), &[7u8; 20]].concat();
        let long_mode: Vec<u8> = [b"10000644 name\0".as_slice(), &[7u8; 20]].concat();
        let no_space: Vec<u8> = b"100644".to_vec();
        for malformed in [cut_id, &no_nul, &bad_mode, &no_mode, &long_mode, &no_space] {
            let (entries, done) = entries_of(malformed);
            assert!(done.is_err(), "{malformed:?} must end in an error");
            assert!(entries.len() <= 3, "the walk stops at the error");
        }
        let (entries, done) = entries_of(b"");
        assert!(entries.is_empty() && done.is_ok());
        // A blob is not a folder, read either way.
        assert!(read_stored_tree(&Objects::of(&repo), blob, &mut |_, _, _| true).is_err());
    }

    #[test]
    fn a_loose_tree_is_read_as_a_stream_and_held_to_its_id() {
        // Catches a reader that trusts whatever file lies under an id's name (another tree's
        // bytes there), one that takes a cut file's entries without an error, one that reports
        // a visit stopped early as a bad object, and one that takes a blob for a folder.
        let tmp = tempfile::tempdir().unwrap();
        let repo = Repository::init(tmp.path()).unwrap();
        let blob = repo.blob(b"one").unwrap();
        let tree_of = |names: &[&str]| {
            let mut t = repo.treebuilder(None).unwrap();
            for n in names {
                t.insert(n, blob, 0o100644).unwrap();
            }
            t.write().unwrap()
        };
        let names: Vec<String> = (0..500).map(|k| format!("{k:064x}.ots")).collect();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        let big = tree_of(&names);
        let other = tree_of(&["a.ots", "b.ots"]);
        let objects = Objects::of(&repo);
        let read = |id: Oid, stop_after: usize| {
            let mut got = Vec::new();
            let done = read_stored_tree(&objects, id, &mut |_, name, _| {
                got.push(name.to_vec());
                got.len() < stop_after
            });
            (got, done)
        };
        let (got, done) = read(big, usize::MAX);
        done.unwrap();
        let theirs: Vec<Vec<u8>> = repo
            .find_tree(big)
            .unwrap()
            .iter()
            .map(|e| e.name_bytes().to_vec())
            .collect();
        assert_eq!(got, theirs);
        let (got, done) = read(big, 3);
        assert!(
            done.is_ok() && got.len() == 3,
            "a visit stopped early is no error"
        );
        let file = objects.loose_file(big);
        let own = std::fs::read(&file).unwrap();
        let mut perms = std::fs::metadata(&file).unwrap().permissions();
        #[allow(clippy::permissions_set_readonly_false)]
        perms.set_readonly(false);
        std::fs::set_permissions(&file, perms).unwrap();
        let foreign = std::fs::read(objects.loose_file(other)).unwrap();
        for wrong in [&foreign[..], &own[..own.len() - 8], &own[..40]] {
            std::fs::write(&file, wrong).unwrap();
            let (_, done) = read(big, usize::MAX);
            assert!(done.is_err(), "{} bytes taken for the tree", wrong.len());
        }
        std::fs::write(&file, &own).unwrap();
        assert!(read(big, usize::MAX).1.is_ok());
        assert!(read(blob, usize::MAX).1.is_err(), "a blob is not a folder");
    }

    #[test]
    fn a_walk_of_stored_trees_visits_and_judges_entries_as_libgit2s_walk() {
        // Catches a walk that leaves a folder out or visits it after its files, goes into a
        // submodule or a skipped folder, reads a mode as a string (100664 is a file to
        // libgit2, 120755 an executable one, 160000 a submodule), or gives a wrong folder path.
        let tmp = tempfile::tempdir().unwrap();
        let repo = Repository::init(tmp.path()).unwrap();
        let odb = repo.odb().unwrap();
        let blob = repo.blob(b"one").unwrap();
        let tree_of = |entries: &[(&str, &[u8], Oid)]| -> Oid {
            let mut raw = Vec::new();
            for (mode, name, id) in entries {
                raw.extend_from_slice(mode.as_bytes());
                raw.push(b' ');
                raw.extend_from_slice(name);
                raw.push(0);
                raw.extend_from_slice(id.as_bytes());
            }
            odb.write(ObjectType::Tree, &raw).unwrap()
        };
        let inner = tree_of(&[("100644", b"inner.txt", blob), ("100664", b"x", blob)]);
        let middle = tree_of(&[("40000", b"deeper", inner), ("100755", b"run", blob)]);
        let root = tree_of(&[
            ("100644", b"a.txt", blob),
            ("40000", b"b", middle),
            ("100755", b"c.sh", blob),
            ("100664", b"d", blob),
            ("120000", b"e", blob),
            ("160000", b"f", blob),
            ("120755", b"g", blob),
            ("40000", b"h\xff", inner),
            ("40000", b"skip", inner),
            ("40000", b"z", inner),
        ]);
        type Seen = (String, Oid, bool, bool);
        let mut theirs: Vec<Seen> = Vec::new();
        repo.find_tree(root)
            .unwrap()
            .walk(git2::TreeWalkMode::PreOrder, |at, e| {
                let tree = e.kind() == Some(ObjectType::Tree);
                let path = format!("{at}{}", String::from_utf8_lossy(e.name_bytes()));
                let file = e.kind() == Some(ObjectType::Blob)
                    && matches!(e.filemode(), 0o100644 | 0o100755);
                theirs.push((path, e.id(), tree, file));
                match e.name_bytes() {
                    b"skip" | b"h\xff" => git2::TreeWalkResult::Skip,
                    _ => git2::TreeWalkResult::Ok,
                }
            })
            .unwrap();
        // Our walk, skipping the folders libgit2's skipped: what it saw, and whether it ran on.
        let walk_ours = |objects: &Objects<'_>| -> (Vec<Seen>, bool) {
            let mut seen: Vec<Seen> = Vec::new();
            let done = walk_stored(objects, root, "", &mut |at, mode, name, id| {
                let path = format!("{at}{}", String::from_utf8_lossy(name));
                seen.push((path, id, mode.is_tree(), mode.is_regular_file()));
                match name {
                    b"skip" | b"h\xff" => WalkStep::Skip,
                    _ => WalkStep::Go,
                }
            })
            .unwrap();
            (seen, done)
        };
        let (ours, done) = walk_ours(&Objects::of(&repo));
        assert!(done);
        assert_eq!(ours, theirs);
        assert_eq!(ours.len(), 16);
        let files: Vec<&str> = ours.iter().filter(|s| s.3).map(|s| &*s.0).collect();
        assert_eq!(
            files,
            [
                "a.txt",
                "b/deeper/inner.txt",
                "b/deeper/x",
                "b/run",
                "c.sh",
                "d",
                "g",
                "z/inner.txt",
                "z/x"
            ]
        );
        // Stopped at an entry: nothing after it is visited.
        let mut seen = 0;
        let done = walk_stored(&Objects::of(&repo), root, "", &mut |_, _, name, _| {
            seen += 1;
            match name {
                b"run" => WalkStep::Stop,
                _ => WalkStep::Go,
            }
        })
        .unwrap();
        assert!(!done);
        assert_eq!(seen, 6);
        // A blob where a folder should be is an error, not a panic or an empty folder.
        assert!(
            walk_stored(&Objects::of(&repo), blob, "", &mut |_, _, _, _| {
                WalkStep::Go
            })
            .is_err()
        );

        // Packed (libgit2 streams only loose objects): read whole, the same walk.
        let sig = git2::Signature::new("t", "t@example.invalid", &git2::Time::new(0, 0)).unwrap();
        let commit = repo
            .commit(None, &sig, &sig, "m", &repo.find_tree(root).unwrap(), &[])
            .unwrap();
        repo.reference("refs/heads/main", commit, true, "m")
            .unwrap();
        repack(tmp.path());
        let repo = Repository::open(tmp.path()).unwrap();
        let odb = repo.odb().unwrap();
        assert!(odb.reader(root).is_err(), "the tree is packed now");
        let objects = Objects::of(&repo);
        assert!(!objects.loose_file(root).exists());
        let (packed, _) = walk_ours(&objects);
        assert_eq!(packed, theirs);
    }

    /// Every object of the repository at `dir` packed, none left loose.
    fn repack(dir: &Path) {
        for args in [&["repack", "-a", "-d", "-q"][..], &["prune-packed"][..]] {
            let ok = std::process::Command::new("git")
                .args(args)
                .current_dir(dir)
                .status()
                .unwrap()
                .success();
            assert!(ok, "git {args:?}");
        }
    }

    /// A folder's stored size is read from its header, packed or loose, and only of a folder,
    /// also once the repository is opened again. Caught: the size of another object, a blob's
    /// taken for a folder's, an absent path that errs, and HEAD lost on opening again.
    #[test]
    fn a_folder_s_stored_size_is_its_tree_object_s() {
        let tmp = tempfile::tempdir().unwrap();
        let repo = Repository::init(tmp.path()).unwrap();
        let blob = repo.blob(b"x").unwrap();
        let mut small = repo.treebuilder(None).unwrap();
        small.insert("a.ots", blob, 0o100644).unwrap();
        let small = small.write().unwrap();
        let mut big = repo.treebuilder(None).unwrap();
        for k in 0..300 {
            big.insert(format!("{k:064}.ots"), blob, 0o100644).unwrap();
        }
        let big = big.write().unwrap();
        let mut site = repo.treebuilder(None).unwrap();
        site.insert("small", small, 0o040000).unwrap();
        site.insert("big", big, 0o040000).unwrap();
        site.insert("file", blob, 0o100644).unwrap();
        let site = site.write().unwrap();
        let mut root = repo.treebuilder(None).unwrap();
        root.insert("site", site, 0o040000).unwrap();
        let root = root.write().unwrap();
        let sig = git2::Signature::new("t", "t@example.invalid", &git2::Time::new(0, 0)).unwrap();
        repo.commit(
            Some("HEAD"),
            &sig,
            &sig,
            "m",
            &repo.find_tree(root).unwrap(),
            &[],
        )
        .unwrap();
        let size = |id| repo.find_tree(id).unwrap().len();
        assert_eq!((size(small), size(big)), (1, 300));
        for packed in [false, true] {
            if packed {
                repack(tmp.path());
            }
            let mut previous = Previous::open(&tmp.path().join("site")).unwrap();
            // Opened again, the same HEAD reads the same.
            if packed {
                previous.let_go_of_mapped_packs().unwrap();
            }
            let read = |rel| previous.folder_bytes(rel).unwrap();
            // `<mode> <name>\0<20-byte id>` a name.
            assert_eq!(read("small"), Some(7 + 5 + 1 + 20), "packed: {packed}");
            assert_eq!(
                read("big"),
                Some(300 * (7 + 68 + 1 + 20)),
                "packed: {packed}"
            );
            assert_eq!((read("file"), read("absent")), (None, None));
        }
    }
}
