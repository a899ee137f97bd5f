//! DIR, the folder a build publishes into: checked before anything is written (it must be
//! exhibit's, with no mount inside and no box file under it), listed to compare with the output
//! tree, cleared of what an interrupted build left, and written as a static log is
//! (crate::site_write, docs/build.md#the-write).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use walkdir::WalkDir;

use crate::operator_box::read::{BoxFolder, FileClass};
use crate::published::layout::folder_and_name;
use crate::published::output_tree::*;
use crate::site_write::dir_folders::{is_regular, stat_in};
use crate::site_write::dir_record::{DirRecords, KeptByRecord};
use rustix::fd::BorrowedFd;
use rustix::fs::{AtFlags, Mode, OFlags};

/// Lists every file under `dir` (a missing DIR is an empty tree), without reading them: each
/// is read when a comparison needs its bytes. DIR has passed [`check_out_dir`]: it is exhibit's;
/// symlinks and special files in it are not listed. A file whose stat data is the one the last
/// build recorded (`crate::site_write::dir_record`, in `git_dir`) carries the sha256 recorded with it, so the
/// review compares it without reading it (docs/scale.md#comparing-without-reading). The review
/// itself walks DIR without listing it into a tree ([`joined_with_listing`]).
pub fn read_tree(dir: &Path, git_dir: Option<&Path>) -> Result<Tree> {
    let mut tree = Tree::default();
    // DIR's per-line proofs (flat, in buckets, in `other/`) and released texts whose sha256 the
    // record knows are listed, a list per folder, as the build's are
    // (docs/scale.md#the-proofs-folder-as-a-list, #texts-listed).
    let mut lists: BTreeMap<ListedFolder, ListedFiles> = BTreeMap::new();
    for file in crate::site_write::dir_walk::DirWalk::new(dir, git_dir, &[])? {
        // A name that is not a file is not listed: it holds no bytes to compare.
        let (rel, Content::File(file)) = file? else {
            continue;
        };
        let Some(folder) = ListedFolder::of_folder(folder_and_name(&rel).0) else {
            tree.put_file(rel, file);
            continue;
        };
        let list = lists
            .entry(folder)
            .or_insert_with(|| ListedFiles::new(folder, &file.folder, FileClass::OutputFile));
        if let Err(file) = list.push(file) {
            tree.put_file(rel, file);
        }
    }
    for mut list in lists.into_values() {
        list.finish();
        if !list.is_empty() {
            tree.put_listed(list);
        }
    }
    Ok(tree)
}

/// The name of the file a folder of made files holds while exhibit owns it (never in DIR).
const TEMP_MARKER: &str = ".exhibit-temporary";

/// Where a build's made files wait for the write stage (crate::site_write::staged_files): beside DIR,
/// `.<DIR name>.exhibit-made-<pid>`.
pub(crate) fn made_files_path(dir: &Path, pid: u32) -> Result<PathBuf> {
    let (parent, name) = parent_and_name(dir)?;
    Ok(parent.join(format!(".{name}.exhibit-made-{pid}")))
}

/// Makes a temporary folder of this build's, its marker first; one this process's number
/// already names (left by a killed process that had it) is cleared first.
pub(crate) fn make_temp_folder(path: &Path) -> Result<()> {
    if let Ok(meta) = std::fs::symlink_metadata(path) {
        // A symlink under this name is not followed (clearing it would clear its target), nor
        // is a file removed: neither is a folder exhibit made.
        if !meta.is_dir() {
            bail!(
                "{}: exists and is not a folder (a symlink or a file), so it is not exhibit's temporary folder; left as it is — remove it and build again",
                path.display()
            );
        }
        // As for a leftover (clean_leftovers): only a folder that is plainly exhibit's.
        if !plainly_exhibits(path) {
            bail!(
                "{}: named like exhibit's temporary folder but holds files exhibit did not write; left as it is — move it away and build again",
                path.display()
            );
        }
        remove_temp_tree(path).with_context(|| format!("{}: cannot clear", path.display()))?;
    }
    std::fs::create_dir(path).with_context(|| format!("{}: cannot create", path.display()))?;
    std::fs::write(
        path.join(TEMP_MARKER),
        format!(
            "a folder of files exhibit build made (process {}); the next build removes it\n",
            std::process::id()
        ),
    )
    .with_context(|| format!("{}: cannot create", path.display()))
}

/// `.<dir_name>.exhibit-made-<pid>` → the pid.
fn leftover_pid(dir_name: &str, entry: &str) -> Option<u32> {
    let pid = entry.strip_prefix(&format!(".{dir_name}.exhibit-made-"))?;
    (!pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit()))
        .then(|| pid.parse().ok())
        .flatten()
}

/// A folder that is an exhibit's tree: its `ledger/SNAPSHOTS.jsonl` is a regular file of JSON
/// lines, each a snapshot (an object with `built_at` and `digests`).
pub fn holds_exhibit(dir: &Path) -> bool {
    let Ok(Some(ledger)) = BoxFolder::named(dir).and_then(|d| match d {
        Some(d) => d.sub("ledger"),
        None => Ok(None),
    }) else {
        return false;
    };
    let Ok(Some(bytes)) = ledger.read("SNAPSHOTS.jsonl", FileClass::OutputFile) else {
        return false;
    };
    let mut lines = bytes
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .peekable();
    lines.peek().is_some()
        && lines.all(|l| {
            serde_json::from_slice::<serde_json::Value>(l).is_ok_and(|v| {
                v.get("built_at").is_some_and(serde_json::Value::is_string)
                    && v.get("digests").is_some_and(serde_json::Value::is_object)
            })
        })
}

/// A folder whose files are all temporary files of exhibit's write stage (a first build killed
/// before its journal was in place: docs/build.md#the-write), and folders.
fn only_temporaries(dir: &Path) -> bool {
    WalkDir::new(dir).follow_links(false).into_iter().all(|e| {
        e.is_ok_and(|e| {
            e.file_type().is_dir()
                || (e.file_type().is_file()
                    && crate::site_write::temp_of(e.file_name().as_encoded_bytes()).is_some())
        })
    })
}

/// An absolute, lexically normalised form of `path`, resolved through its nearest existing
/// ancestor (so symlinked ancestors compare as what they are).
fn resolved(path: &Path) -> Result<PathBuf> {
    let absolute = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir()
            .context("cannot read the current directory")?
            .join(path)
    };
    let mut normal = PathBuf::new();
    for c in absolute.components() {
        match c {
            std::path::Component::ParentDir => {
                normal.pop();
            }
            std::path::Component::CurDir => {}
            other => normal.push(other.as_os_str()),
        }
    }
    let mut existing = normal.as_path();
    let mut rest = Vec::new();
    while std::fs::symlink_metadata(existing).is_err() {
        let Some(parent) = existing.parent() else {
            break;
        };
        if let Some(name) = existing.file_name() {
            rest.push(name.to_owned());
        }
        existing = parent;
    }
    let mut out = existing
        .canonicalize()
        .unwrap_or_else(|_| existing.to_path_buf());
    for name in rest.into_iter().rev() {
        out.push(name);
    }
    Ok(out)
}

/// A sample of what a folder holds, for a refusal: up to five names, and the count.
fn sample(dir: &Path) -> String {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return "(cannot list it)".into();
    };
    let mut names: Vec<String> = entries
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let shown: Vec<String> = names
        .iter()
        .take(5)
        .map(|n| crate::terminal::escape(n).into_owned())
        .collect();
    format!(
        "{}{} ({} entr{})",
        shown.join(", "),
        if names.len() > 5 { ", …" } else { "" },
        names.len(),
        if names.len() == 1 { "y" } else { "ies" }
    )
}

const OUT_RULE: &str = "--out must name a folder that is absent, empty, or an exhibit this tool wrote, outside the box and any .git (docs/build.md#safety)";

/// DIR is exhibit's only when exhibit made it (docs/build.md#safety): absent, empty, holding an
/// exhibit (a valid `ledger/SNAPSHOTS.jsonl`), being written by a build that was interrupted
/// (`journaled`: its journal is there, docs/build.md#the-journal) or holding nothing but
/// temporary files of one, and neither a symlink, nor a `.git`, nor inside
/// one, nor holding one, nor the box or any part of it (`box_paths`: what exhibit.toml names),
/// nor inside a box folder. Checked before anything is read from or written to DIR.
pub fn check_out_dir(dir: &Path, box_paths: &[(&str, &Path)], journaled: bool) -> Result<()> {
    let shown = crate::terminal::escape(&dir.display().to_string()).into_owned();
    let meta = std::fs::symlink_metadata(dir);
    if let Ok(m) = &meta {
        if m.file_type().is_symlink() {
            bail!(
                "{shown}: is a symlink (to {}); exhibit writes only into a real folder; {OUT_RULE}",
                std::fs::read_link(dir)
                    .map(|t| crate::terminal::escape(&t.display().to_string()).into_owned())
                    .unwrap_or_default()
            );
        }
        if !m.is_dir() {
            bail!("{shown}: exists and is not a folder; {OUT_RULE}");
        }
    }
    let full = resolved(dir)?;
    if full.components().any(|c| c.as_os_str() == ".git") {
        bail!("{shown}: is or lies inside a .git folder (a repository's own store); {OUT_RULE}");
    }
    if full.parent().is_none() {
        bail!("{shown}: is the root folder; {OUT_RULE}");
    }
    for (what, path) in box_paths {
        let p = resolved(path)?;
        if p.starts_with(&full) {
            bail!(
                "{shown}: is or contains the box's {what} ({}); exhibit never writes over its own inputs; {OUT_RULE}",
                crate::terminal::escape(&path.display().to_string())
            );
        }
        if p.is_dir() && full.starts_with(&p) {
            bail!(
                "{shown}: lies inside the box's {what} ({}); {OUT_RULE}",
                crate::terminal::escape(&path.display().to_string())
            );
        }
    }
    if meta.is_err() {
        // DIR is made, its parents are not: a mistyped path is said, not created
        // (docs/operator.md#first-publication).
        let parent = match dir.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        if !parent.is_dir() {
            bail!(
                "{shown}: its parent folder {} does not exist; exhibit creates DIR but never the folders above it (is the path mistyped? create the parent first); {OUT_RULE}",
                crate::terminal::escape(&parent.display().to_string())
            );
        }
        return Ok(());
    }
    let mut entries = std::fs::read_dir(dir).with_context(|| format!("{shown}: cannot list"))?;
    if entries.next().is_none() {
        return Ok(());
    }
    if std::fs::symlink_metadata(dir.join(".git")).is_ok() {
        bail!(
            "{shown}: holds a .git (a repository: {}); --out must be a folder inside the checkout, not the checkout itself; {OUT_RULE}",
            sample(dir)
        );
    }
    if !holds_exhibit(dir) && !journaled && !only_temporaries(dir) {
        bail!(
            "{shown}: holds files exhibit did not write (no valid ledger/SNAPSHOTS.jsonl): {}; {OUT_RULE}",
            sample(dir)
        );
    }
    // An exhibit's tree is exhibit's size: walk it for a repository hidden inside.
    for entry in WalkDir::new(dir).follow_links(false) {
        let entry = entry.with_context(|| format!("{shown}: cannot list"))?;
        if entry.file_name() == ".git" {
            bail!(
                "{shown}: holds a repository ({}); exhibit never removes a .git; {OUT_RULE}",
                crate::terminal::escape(&entry.path().display().to_string())
            );
        }
    }
    Ok(())
}

/// Removes the folders of made files an interrupted build of this DIR left beside it — only
/// folders named `.<DIR>.exhibit-made-<pid>` whose process is gone and that are exhibit's (its
/// marker, an exhibit tree, or empty) — and says so. Returns the lines said.
pub fn clean_leftovers(dir: &Path, dry_run: bool) -> Result<Vec<String>> {
    let (parent, name) = parent_and_name(dir)?;
    let mut said = Vec::new();
    let Ok(entries) = std::fs::read_dir(&parent) else {
        return Ok(said);
    };
    let mut found: Vec<(String, u32)> = entries
        .filter_map(|e| e.ok())
        .filter_map(|e| e.file_name().into_string().ok())
        .filter_map(|n| leftover_pid(&name, &n).map(|pid| (n, pid)))
        .collect();
    found.sort();
    for (entry, pid) in found {
        if pid == std::process::id() || crate::site_write::alive(pid) {
            continue;
        }
        let path = parent.join(&entry);
        let shown = crate::terminal::escape(&path.display().to_string()).into_owned();
        let is_dir = std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_dir());
        let ours = is_dir && plainly_exhibits(&path);
        if !ours {
            said.push(format!(
                "{shown}: named like exhibit's folder of made files but holds files exhibit did not write; left as it is"
            ));
        } else if dry_run {
            said.push(format!(
                "{shown}: a folder of made files an interrupted build left (process {pid} is gone); a build would remove it"
            ));
        } else {
            remove_temp_tree(&path).with_context(|| {
                format!("{shown}: cannot remove a leftover folder of made files")
            })?;
            said.push(format!(
                "{shown}: removed a folder of made files an interrupted build left (process {pid} is gone)"
            ));
        }
    }
    Ok(said)
}

/// A folder (not a symlink: the caller checked) under a temporary name is exhibit's to remove
/// only when it is plainly so: it holds the marker, or an exhibit tree, or nothing.
fn plainly_exhibits(path: &Path) -> bool {
    path.join(TEMP_MARKER).is_file()
        || holds_exhibit(path)
        || std::fs::read_dir(path).is_ok_and(|mut d| d.next().is_none())
}

/// Removes a folder of made files with its marker last, so a removal cut short is still
/// recognised.
pub(crate) fn remove_temp_tree(path: &Path) -> Result<()> {
    std::fs::write(
        path.join(TEMP_MARKER),
        b"a folder of files exhibit build made\n",
    )
    .with_context(|| format!("{}: cannot mark", path.display()))?;
    for entry in
        std::fs::read_dir(path).with_context(|| format!("{}: cannot list", path.display()))?
    {
        let entry = entry.with_context(|| format!("{}: cannot list", path.display()))?;
        if entry.file_name() == TEMP_MARKER {
            continue;
        }
        let p = entry.path();
        let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
        if is_dir {
            std::fs::remove_dir_all(&p)
        } else {
            std::fs::remove_file(&p)
        }
        .with_context(|| format!("{}: cannot remove", p.display()))?;
    }
    std::fs::remove_file(path.join(TEMP_MARKER))
        .with_context(|| format!("{}: cannot remove", path.display()))?;
    std::fs::remove_dir(path).with_context(|| format!("{}: cannot remove", path.display()))
}

fn parent_and_name(dir: &Path) -> Result<(PathBuf, String)> {
    let parent = match dir.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = dir
        .file_name()
        .with_context(|| format!("{}: not a folder name", dir.display()))?
        .to_string_lossy()
        .into_owned();
    Ok((parent, name))
}

/// A path of the tree must be one of the output's own forms (crate::published::layout): checked again here,
/// the last step before a name becomes a file, so no name can lead outside DIR.
fn check_paths(tree: &Tree) -> Result<()> {
    for (rel, _) in tree.iter() {
        if !crate::published::layout::is_output_path(&rel) {
            bail!(
                "{:?}: not a path of the output tree (docs/build.md#safety); nothing was written",
                crate::terminal::escape(&rel)
            );
        }
    }
    Ok(())
}

/// Writes `tree` as DIR (docs/build.md#the-write: crate::site_write), its plan journaled at
/// `journal`. DIR must have passed [`check_out_dir`]. Returns what a person should be told.
///
/// What an earlier build recorded of DIR's files (`crate::site_write::dir_record`, kept in `git_dir`) tells an
/// unchanged file without reading it.
pub fn write_tree(
    dir: &Path,
    tree: &Tree,
    git_dir: Option<&Path>,
    journal: &Path,
) -> Result<(Vec<String>, KeptByRecord)> {
    check_paths(tree)?;
    write_journaled(dir, tree, DirRecords::open(git_dir, dir), journal)
}

fn write_journaled(
    dir: &Path,
    tree: &Tree,
    known: DirRecords,
    journal: &Path,
) -> Result<(Vec<String>, KeptByRecord)> {
    if let Ok(m) = std::fs::symlink_metadata(dir)
        && (m.file_type().is_symlink() || !m.is_dir())
    {
        bail!("{}: exists and is not a folder", dir.display());
    }
    refuse_mounts_inside(dir)?;
    let made = made_files_path(dir, std::process::id())?;
    crate::site_write::write(dir, tree, known, journal, &made)
}

/// A filesystem mounted inside DIR (a bind mount of a home folder, a tmpfs) is refused before
/// anything is written: the build removes the names of DIR it does not produce, and removing a
/// mount point's would empty whatever is mounted there (docs/build.md#safety). Read from the kernel's list of mounts, which
/// names bind mounts of the same filesystem too (a device number would not tell them).
fn refuse_mounts_inside(dir: &Path) -> Result<()> {
    let Ok(real) = std::fs::canonicalize(dir) else {
        return Ok(()); // no DIR yet: nothing can be mounted inside it
    };
    let Ok(table) = std::fs::read_to_string("/proc/self/mountinfo") else {
        return Ok(());
    };
    if let Some(inside) = mounts_below(&table, &real).first() {
        bail!(
            "{}: another filesystem is mounted inside the output folder; exhibit never crosses into one (removing what the build does not produce would empty it: docs/build.md#safety); unmount it or move the mount out of the folder, then build again",
            crate::terminal::escape(&inside.display().to_string())
        );
    }
    Ok(())
}

/// The mount points of a `/proc/self/mountinfo` table strictly below `dir` (the fifth field,
/// its space, tab, newline and backslash written as octal escapes).
fn mounts_below(table: &str, dir: &Path) -> Vec<PathBuf> {
    let unescape = |field: &str| -> Vec<u8> {
        let b = field.as_bytes();
        let mut out = Vec::with_capacity(b.len());
        let mut i = 0;
        while i < b.len() {
            let octal = b
                .get(i + 1..i + 4)
                .filter(|d| d.iter().all(|c| (b'0'..=b'7').contains(c)));
            match (b[i], octal) {
                (b'\\', Some(d)) => {
                    out.push((d[0] - b'0') * 64 + (d[1] - b'0') * 8 + (d[2] - b'0'));
                    i += 4;
                }
                (c, _) => {
                    out.push(c);
                    i += 1;
                }
            }
        }
        out
    };
    table
        .lines()
        .filter_map(|line| line.split(' ').nth(4))
        .map(|field| {
            use std::os::unix::ffi::OsStringExt;
            PathBuf::from(std::ffi::OsString::from_vec(unescape(field)))
        })
        .filter(|m| m != dir && m.starts_with(dir))
        .collect()
}

/// Links a file this build made (crate::site_write::staged_files) into DIR's folder `to` as `name` (its
/// temporary name): true when the link names a regular file of the size the build wrote (else
/// the caller copies it, reading it back held to its sha256). The made folder is the build's own
/// and its files were written from the bytes whose sha256 the tree records
/// (docs/scale.md#made-as-written).
pub(crate) fn link_made(file: &DiskFile, to: BorrowedFd<'_>, name: &str) -> bool {
    let from = file.path();
    if rustix::fs::linkat(rustix::fs::CWD, &from, to, name, AtFlags::empty()).is_err() {
        return false;
    }
    let linked = stat_in(to, name)
        .is_ok_and(|s| is_regular(&s) && s.st_size as u64 == file.len && s.st_mode & 0o111 == 0);
    if !linked {
        let _ = rustix::fs::unlinkat(to, name, AtFlags::empty());
    }
    linked
}

/// DIR's `name` in its folder `from` (`rel` in DIR) holds exactly `content`'s bytes, so the
/// build does not touch it (docs/build.md#the-write): told by the last build's record when it
/// still describes the file (docs/scale.md#comparing-without-reading), else read and compared.
/// Only a regular, non-executable file qualifies (git would record an executable's mode).
pub(crate) fn unchanged(
    known: &mut DirRecords,
    rel: &str,
    (from, name, stat): (BorrowedFd<'_>, &str, &rustix::fs::Stat),
    content: &Content,
) -> Unchanged {
    match recorded(known, rel, stat, content) {
        Some(true) => Unchanged::ByRecord,
        Some(false) => Unchanged::No,
        None if same_bytes(from, name, content).is_some() => Unchanged::ByReading,
        None => Unchanged::No,
    }
}

/// What [`unchanged`] found of a file of DIR.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Unchanged {
    /// Not the tree's bytes (or not a plain file): written.
    No,
    /// Its stat data what the last record says, its sha256 the tree's: not read.
    ByRecord,
    /// Read and compared.
    ByReading,
}

/// What the last build's record tells of DIR's file `rel`, whose stat data (read by its
/// folder's handle without following a symlink, once) is `stat`, without reading it: `None`
/// when there is no record or the file changed since (it is read and compared); else whether it
/// holds `content`'s bytes (its recorded sha256 is `content`'s). Like [`same_bytes`], only a
/// regular, non-executable file of the same size qualifies.
fn recorded(
    known: &mut DirRecords,
    rel: &str,
    stat: &rustix::fs::Stat,
    content: &Content,
) -> Option<bool> {
    let recorded = known.get(rel)?;
    if !is_regular(stat)
        || stat.st_size as u64 != content.len()
        || stat.st_mode & 0o111 != 0
        || !recorded.describes(stat)
    {
        return None;
    }
    Some(content.sha256().is_ok_and(|d| d == recorded.sha256))
}

/// The stat data of `name` in `folder` when it is a regular, non-executable file (opened
/// without following a symlink or blocking on a FIFO) holding exactly `content`'s bytes (for a
/// file on disk whose sha256 is known, the sha256 of DIR's copy is compared, and the source is
/// not read).
fn same_bytes(folder: BorrowedFd<'_>, name: &str, content: &Content) -> Option<rustix::fs::Stat> {
    use std::io::Read;
    let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC;
    let file = rustix::fs::openat(folder, name, flags, Mode::empty()).ok()?;
    let stat = rustix::fs::fstat(&file).ok()?;
    // Not an executable file either: git would record its mode (100755) where a fresh copy is
    // a plain file (100644).
    if !is_regular(&stat) || stat.st_size as u64 != content.len() || stat.st_mode & 0o111 != 0 {
        return None;
    }
    let mut held = Vec::with_capacity(content.len() as usize);
    std::fs::File::from(file)
        .take(content.len() + 1)
        .read_to_end(&mut held)
        .ok()?;
    let same = match (content, content.known_sha256()) {
        (Content::Bytes(bytes), _) => held == *bytes,
        // A proof checked from the store, a part made again: compared by digest, not re-read.
        (_, Some(d)) => {
            held.len() as u64 == content.len() && exhibit_protocol::Digest::of(&held) == d
        }
        (_, None) => content.bytes().is_ok_and(|b| *b == *held),
    };
    same.then_some(stat)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::borrow::Cow;

    /// `tree` written as DIR, its journal beside DIR (as for a DIR in no repository).
    fn write_checked(dir: &Path, tree: &Tree, known: DirRecords) -> Result<()> {
        let name = dir.file_name().unwrap().to_string_lossy();
        let journal = dir.with_file_name(format!(".{name}.exhibit-journal"));
        write_journaled(dir, tree, known, &journal).map(|_| ())
    }

    #[test]
    fn mounts_below_dir_are_found_escapes_read_and_dir_itself_is_not_one() {
        let table = "22 1 0:21 / /proc rw - proc proc rw\n\
45 27 0:40 / /srv/site rw - tmpfs none rw\n\
46 27 0:41 / /srv/site/ledger/x rw - tmpfs none rw\n\
47 27 8:1 /home/op /srv/site/my\\040home rw - ext4 /dev/sda1 rw\n\
48 27 0:42 / /srv/site2/y rw - tmpfs none rw\n";
        assert_eq!(
            mounts_below(table, Path::new("/srv/site")),
            [
                PathBuf::from("/srv/site/ledger/x"),
                PathBuf::from("/srv/site/my home")
            ]
        );
        assert!(mounts_below(table, Path::new("/srv/other")).is_empty());
    }
    use std::sync::Arc;

    #[test]
    fn a_failed_write_leaves_dir_as_it_was() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("site");
        std::fs::create_dir(&dir).unwrap();
        std::fs::write(dir.join("keep.txt"), b"old").unwrap();
        let mut tree = Tree::default();
        tree.put("ok.txt", b"x".to_vec());
        // A path that cannot be created (a file where a folder must go).
        tree.put("ok.txt/inner", b"y".to_vec());
        // An unchanged file (the paths are not the output's: written past that check, so that
        // the write itself refuses the shape before a byte is written).
        tree.put("keep.txt", b"old".to_vec());
        assert!(write_checked(&dir, &tree, DirRecords::none()).is_err());
        assert_eq!(read_tree(&dir, None).unwrap().len(), 1);
        assert_eq!(std::fs::read(dir.join("keep.txt")).unwrap(), b"old");
        use std::os::unix::fs::MetadataExt;
        let meta = std::fs::metadata(dir.join("keep.txt")).unwrap();
        assert_eq!(meta.nlink(), 1);
        let leftovers: Vec<_> = std::fs::read_dir(tmp.path()).unwrap().collect();
        assert_eq!(leftovers.len(), 1, "no journal left beside DIR");
        assert_eq!(
            std::fs::read_dir(&dir).unwrap().count(),
            1,
            "no temporary file"
        );
    }

    /// A store's proof kept on disk: checked once, read again when DIR is written.
    fn kept_proof(folder: &Path, name: &str, bytes: &[u8]) -> DiskFile {
        std::fs::write(folder.join(name), bytes).unwrap();
        DiskFile::checked(&Arc::from(folder), name, FileClass::Proof, bytes)
    }

    #[test]
    fn a_kept_file_is_copied_and_one_that_changed_since_its_check_fails_the_build() {
        let tmp = tempfile::tempdir().unwrap();
        let (store, dir) = (tmp.path().join("store"), tmp.path().join("site"));
        std::fs::create_dir(&store).unwrap();
        let mut tree = Tree::default();
        tree.put_file("p/a.ots", kept_proof(&store, "a.ots", b"checked bytes"));
        write_checked(&dir, &tree, DirRecords::none()).unwrap();
        assert_eq!(
            std::fs::read(dir.join("p/a.ots")).unwrap(),
            b"checked bytes"
        );
        // A copy, not a link: the store's file may be rewritten by the tail later.
        assert_ne!(inode(&dir.join("p/a.ots")), inode(&store.join("a.ots")));

        // Same size, other bytes, after the check: a build that wrote them would publish bytes
        // nobody checked. It fails and DIR keeps what it held.
        let mut tree = Tree::default();
        tree.put_file("p/a.ots", kept_proof(&store, "a.ots", b"checked bytes"));
        // New to DIR, written under its temporary name before b.ots fails.
        tree.put("p/a1.ots", b"new".to_vec());
        tree.put_file("p/b.ots", kept_proof(&store, "b.ots", b"other"));
        std::fs::write(store.join("b.ots"), b"OTHER").unwrap();
        let err = write_checked(&dir, &tree, DirRecords::none()).unwrap_err();
        assert!(
            format!("{err:#}").contains("changed while the build ran"),
            "{err:#}"
        );
        assert!(!dir.join("p/b.ots").exists());
        assert_eq!(
            std::fs::read(dir.join("p/a.ots")).unwrap(),
            b"checked bytes"
        );
        // Gone since its check: the same.
        std::fs::remove_file(store.join("b.ots")).unwrap();
        assert!(write_checked(&dir, &tree, DirRecords::none()).is_err());
        let leftovers = std::fs::read_dir(tmp.path()).unwrap().count();
        assert_eq!(leftovers, 2, "store and site only: no journal left");
        // The failed build's temporary files are gone: a1.ots's was written before b.ots failed.
        let names: Vec<String> = std::fs::read_dir(dir.join("p"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["a.ots"], "no temporary file left");
    }

    #[test]
    fn a_kept_file_equal_to_dirs_copy_is_linked_without_reading_the_store() {
        let tmp = tempfile::tempdir().unwrap();
        let (store, dir) = (tmp.path().join("store"), tmp.path().join("site"));
        std::fs::create_dir(&store).unwrap();
        let mut tree = Tree::default();
        tree.put_file("p/a.ots", kept_proof(&store, "a.ots", b"proof"));
        write_checked(&dir, &tree, DirRecords::none()).unwrap();
        let before = inode(&dir.join("p/a.ots"));
        // DIR's copy is compared by its sha256 with the checked bytes': the store's file is
        // not needed (removing it shows it is not read).
        std::fs::remove_file(store.join("a.ots")).unwrap();
        write_checked(&dir, &tree, DirRecords::none()).unwrap();
        assert_eq!(inode(&dir.join("p/a.ots")), before);
    }

    /// An empty list of the per-line proofs of the store folder `store`, as the witness layer
    /// makes it.
    fn proof_list(store: &Arc<Path>) -> ListedFiles {
        ListedFiles::new(ListedFolder::WitnessProofs, store, FileClass::Proof)
    }

    /// The published path of the proof named by the digest `[d; 32]`.
    fn proof_path(d: u8) -> String {
        format!(
            "{}/{}.ots",
            ListedFolder::WitnessProofs.path(),
            exhibit_protocol::Digest([d; 32])
        )
    }

    /// `n` proofs named by digests written into `store`, kept as the witness layer keeps them
    /// for a segmented exhibit (header let go), in the order given.
    fn proofs_in(store: &Path, digests: &[u8]) -> Vec<(String, DiskFile)> {
        digests
            .iter()
            .map(|&d| {
                let name = format!("{}.ots", exhibit_protocol::Digest([d; 32]));
                let mut file = kept_proof(store, &name, &[d; 3]);
                file.forget_head();
                (
                    format!("{}/{name}", ListedFolder::WitnessProofs.path()),
                    file,
                )
            })
            .collect()
    }

    /// Released texts named by their sha256 written into `folder`, kept as the public-texts
    /// layer keeps the texts DIR holds (a file of DIR's, its sha256 known), in the order given.
    fn texts_in(folder: &Path, texts: &[&str]) -> Vec<(String, DiskFile)> {
        texts
            .iter()
            .map(|text| {
                let sha256 = exhibit_protocol::Digest::of(text.as_bytes());
                let name = format!("{sha256}.txt");
                std::fs::write(folder.join(&name), text).unwrap();
                let file =
                    DiskFile::of_dir(Arc::from(folder), &name, text.len() as u64, Some(sha256));
                (format!("{}/{name}", ListedFolder::PublicTexts.path()), file)
            })
            .collect()
    }

    /// The same files, held in the map one by one and listed, with neighbours on both sides of
    /// the proofs folder and of the texts folder (a name sorting just before and just after
    /// each, and a name not a digest's inside each).
    fn held_and_listed(store: &Path) -> (Tree, Tree) {
        let proofs = proofs_in(store, &[0x00, 0x7f, 0xab, 0xff]);
        let texts = texts_in(store, &["Hello", "See you at nine", "ok"]);
        let mut held = Tree::default();
        let mut listed = Tree::default();
        for t in [&mut held, &mut listed] {
            t.put("ledger/witness/index.json", b"{}".to_vec());
            t.put("ledger/witness/proofs-not.txt", b"x".to_vec());
            t.put("ledger/witness/proofs/prereg_x.ots", b"p".to_vec());
            t.put("ledger/witness/proofs/0zz.ots", b"q".to_vec());
            t.put("ledger/witness/runs.jsonl", b"r".to_vec());
            t.put("ledger/segments/000001.jsonl", b"s".to_vec());
            t.put("ledger/public_texts.txt", b"t".to_vec());
            t.put("ledger/public_texts/index.json", b"{}".to_vec());
            t.put("ledger/public_texts/index/000001.json", b"{}".to_vec());
            t.put("ledger/public_texts/zz.txt", b"u".to_vec());
            t.put("ledger/public_textsz/a.txt", b"v".to_vec());
        }
        let mut list = proof_list(&Arc::from(store));
        for (path, file) in proofs {
            held.put_file(path, file.clone());
            list.push(file).unwrap();
        }
        list.finish();
        listed.put_listed(list);
        let mut list = ListedFiles::new(
            ListedFolder::PublicTexts,
            &Arc::from(store),
            FileClass::OutputFile,
        );
        for (path, file) in texts {
            held.put_file(path, file.clone());
            list.push(file).unwrap();
        }
        list.finish();
        listed.put_listed(list);
        assert_eq!(listed.listed.len(), 2);
        (held, listed)
    }

    #[test]
    fn proof_buckets_listed_beside_the_flat_list_and_the_map_iterate_in_path_order() {
        // The flat proofs folder's files interleave with its buckets' (`proofs/000000/…` sorts
        // between `proofs/<hex>.ots` names): the lists taken one after the other, in the
        // folders' order, were out of path order (docs/scale.md#the-proofs-folder-as-a-list).
        // Caught: lists concatenated, a prefix that drops or keeps a bucket wrongly, a lookup
        // by path that misses a bucket's proof.
        let tmp = tempfile::tempdir().unwrap();
        let store: Arc<Path> = Arc::from(tmp.path());
        let placed = |d: u8, folder: ListedFolder| {
            let name = format!("{}.ots", exhibit_protocol::Digest([d; 32]));
            let mut file = kept_proof(tmp.path(), &name, &[d; 3]);
            file.forget_head();
            (format!("{}/{name}", folder.path()), file)
        };
        let lists = [
            (
                ListedFolder::WitnessProofs,
                &[0x00, 0x01, 0x0f, 0x7f, 0xff][..],
            ),
            (ListedFolder::WitnessProofBucket(0), &[0x02, 0xaa][..]),
            (ListedFolder::WitnessProofBucket(1), &[0x03, 0x04, 0xfe][..]),
            (ListedFolder::WitnessProofOther, &[0x05][..]),
        ];
        let mut held = Tree::default();
        let mut listed = Tree::default();
        for t in [&mut held, &mut listed] {
            for path in [
                "ledger/witness/index.json",
                "ledger/witness/proofs.json",
                "ledger/witness/proofs/000000.json",
                "ledger/witness/proofs/000000/zz.ots",
                "ledger/witness/proofs/0000001/a.ots",
                "ledger/witness/proofs/000001/README",
                "ledger/witness/proofs/0f0f.ots",
                "ledger/witness/proofs/other/README",
                "ledger/witness/proofs/prereg_x.ots",
                "ledger/witness/runs.jsonl",
            ] {
                t.put(path, b"m".to_vec());
            }
        }
        let flat = proof_list(&store);
        for (folder, digests) in lists {
            let mut list = flat.of_folder(folder);
            for &d in digests {
                let (path, file) = placed(d, folder);
                held.put_file(path, file.clone());
                list.push(file).unwrap();
            }
            list.finish();
            listed.put_listed(list);
        }
        assert_eq!(listed.listed.len(), 4);
        assert_eq!(listed.held.len(), 10, "every proof listed");
        let paths = |t: &Tree, prefix: &str| -> Vec<String> {
            t.iter_under(prefix).map(|(p, _)| p.into_owned()).collect()
        };
        let all = paths(&listed, "");
        let in_order: BTreeMap<String, ()> = all.iter().map(|p| (p.clone(), ())).collect();
        assert_eq!(all, in_order.into_keys().collect::<Vec<_>>(), "path order");
        assert_eq!(all.len(), 21);
        assert_eq!(listed, held);
        for prefix in [
            "",
            "ledger/witness/proofs",
            "ledger/witness/proofs/",
            "ledger/witness/proofs/0",
            "ledger/witness/proofs/000000",
            "ledger/witness/proofs/000000/",
            "ledger/witness/proofs/000001/0",
            "ledger/witness/proofs/0000001",
            "ledger/witness/proofs/other/",
            "ledger/witness/proofs/f",
            "ledger/witness/proofs/000000/aaaa",
            "ledger/witness/q",
        ] {
            assert_eq!(paths(&listed, prefix), paths(&held, prefix), "{prefix}");
        }
        for (path, content) in held.iter() {
            assert_eq!(listed.entry(&path).as_deref(), Some(&*content), "{path}");
            assert!(listed.contains(&path));
        }
        let bucketed = placed(0xaa, ListedFolder::WitnessProofBucket(0)).0;
        assert!(ListedFolder::holds_path(&bucketed));
        assert!(!ListedFolder::holds_path(
            "ledger/witness/proofs/000000/zz.ots"
        ));
        // Put over: the listed proof is replaced, never held twice.
        listed.put(bucketed.clone(), b"new".to_vec());
        assert_eq!(listed.len(), 21);
        assert_eq!(listed.get(&bucketed), Some(&b"new"[..]));
    }

    #[test]
    fn a_listed_proofs_folder_reads_as_the_same_files_held_one_by_one() {
        // Catches a merge that puts the list before or after the folder's neighbours, a
        // prefix filter that drops the list (or keeps it outside the prefix), and a lookup
        // that misses a listed name.
        let tmp = tempfile::tempdir().unwrap();
        // A folder is found again by its path (a tree finds a path's list so).
        for f in [
            ListedFolder::PublicTexts,
            ListedFolder::WitnessProofs,
            ListedFolder::WitnessProofBucket(0),
            ListedFolder::WitnessProofBucket(244),
            ListedFolder::WitnessProofOther,
        ] {
            assert_eq!(ListedFolder::of_folder(&f.path()), Some(f), "{f:?}");
        }
        assert_eq!(ListedFolder::of_folder("ledger/witness/proofs/00001"), None);
        assert_eq!(ListedFolder::of_folder("ledger/witness"), None);
        let (held, listed) = held_and_listed(tmp.path());
        assert_eq!(held.len(), 18);
        assert_eq!(listed.len(), held.len());
        let all = |t: &Tree| -> Vec<(String, Content)> {
            t.iter()
                .map(|(p, c)| (p.into_owned(), c.into_owned()))
                .collect()
        };
        assert_eq!(all(&listed), all(&held));
        assert!(all(&held).windows(2).all(|w| w[0].0 < w[1].0), "path order");
        for prefix in [
            "",
            "ledger/",
            "ledger/witness/",
            "ledger/witness/proofs",
            "ledger/witness/proofs/",
            "ledger/witness/proofs/7",
            "ledger/witness/proofs/ff",
            "ledger/witness/r",
            "ledger/segments/",
            "ledger/p",
            "ledger/public_texts",
            "ledger/public_texts/",
            "ledger/public_texts/i",
            "ledger/public_texts/index",
            "nothing/",
        ] {
            let under = |t: &Tree| -> Vec<String> {
                t.iter_under(prefix).map(|(p, _)| p.into_owned()).collect()
            };
            assert_eq!(under(&listed), under(&held), "under {prefix:?}");
        }
        for (path, content) in all(&held) {
            assert!(listed.contains(&path), "{path}");
            assert_eq!(listed.entry(&path).unwrap().into_owned(), content, "{path}");
            assert_eq!(
                listed.read(&path).unwrap().unwrap().into_owned(),
                content.bytes().unwrap().into_owned()
            );
        }
        let missing = proof_path(1);
        assert!(!listed.contains(&missing) && listed.entry(&missing).is_none());
        // The uppercase spelling of a listed name is another file.
        let upper = format!(
            "{}/{}.ots",
            ListedFolder::WitnessProofs.path(),
            "AB".repeat(32)
        );
        assert!(!listed.contains(&upper));
        // A listed name in the other listed folder, or with the other folder's suffix, is
        // another file.
        for (path, _) in all(&held) {
            for (from, to) in [
                ("ledger/public_texts/", "ledger/witness/proofs/"),
                ("ledger/witness/proofs/", "ledger/public_texts/"),
                (".txt", ".ots"),
                (".ots", ".txt"),
            ] {
                let moved = path.replace(from, to);
                assert_eq!(listed.contains(&moved), held.contains(&moved), "{moved}");
            }
        }
        assert_eq!(listed, held);
    }

    #[test]
    fn many_files_put_at_once_are_the_files_put_one_by_one() {
        // Catches a put of many that loses the files of all but one slice (more files than a
        // slice), keeps the earlier of two files at one path, leaves the tree's own file where
        // the list has one, drops what the tree held before, or leaves a listed proof beside a
        // file put at its path (the tree would write the path twice).
        let tmp = tempfile::tempdir().unwrap();
        let (mut one_by_one, mut at_once) = held_and_listed(tmp.path());
        let mut files: Vec<(String, Content)> = (0..20_000u32)
            .rev()
            .map(|k| {
                let path = format!(
                    "ledger/public_texts/{:08x}.txt",
                    k.wrapping_mul(2_654_435_761)
                );
                (path, Content::Bytes(k.to_le_bytes().to_vec()))
            })
            .collect();
        files.push((
            "ledger/public_texts/0000000a.txt".into(),
            Content::Bytes(b"first".to_vec()),
        ));
        files.push((
            "ledger/witness/index.json".into(),
            Content::Bytes(b"theirs".to_vec()),
        ));
        files.push((proof_path(0xab), Content::Bytes(b"over a proof".to_vec())));
        files.push((
            "ledger/public_texts/0000000a.txt".into(),
            Content::Bytes(b"second".to_vec()),
        ));
        for (path, content) in files.clone() {
            one_by_one.put_content(path, content);
        }
        at_once.put_many(files);
        assert_eq!(at_once.len(), one_by_one.len());
        assert_eq!(at_once, one_by_one);
        assert_eq!(
            at_once.get("ledger/public_texts/0000000a.txt"),
            Some(&b"second"[..])
        );
        assert_eq!(
            at_once.get("ledger/witness/index.json"),
            Some(&b"theirs"[..])
        );
        assert_eq!(at_once.get(&proof_path(0xab)), Some(&b"over a proof"[..]));
        // Already sorted, each path once: the same again.
        let mut sorted = Tree::default();
        let mut by_one = Tree::default();
        let files: Vec<(String, Content)> = (0..9_000u32)
            .map(|k| (format!("t/{k:06}"), Content::Bytes(vec![k as u8])))
            .collect();
        for (path, content) in files.clone() {
            by_one.put_content(path, content);
        }
        sorted.put("t/000005", b"mine".to_vec());
        sorted.put_many(files);
        assert_eq!(sorted, by_one);
    }

    #[test]
    fn a_path_put_over_a_listed_proof_replaces_it_and_a_list_put_over_held_files_replaces_them() {
        // Catches a tree that would hold (and write) one path twice.
        let tmp = tempfile::tempdir().unwrap();
        let (mut held, mut listed) = held_and_listed(tmp.path());
        let path = proof_path(0x7f);
        held.put(path.clone(), b"carried".to_vec());
        listed.put(path.clone(), b"carried".to_vec());
        assert_eq!(listed.len(), 18);
        assert_eq!(listed.get(&path), Some(&b"carried"[..]));
        assert_eq!(listed, held);
        // Likewise a path put over a listed text, in the other list.
        let (text, _) = texts_in(tmp.path(), &["ok"]).remove(0);
        held.put(text.clone(), b"made again".to_vec());
        listed.put(text.clone(), b"made again".to_vec());
        assert_eq!(listed.len(), 18);
        assert_eq!(listed.get(&text), Some(&b"made again"[..]));
        assert_eq!(listed, held);

        let mut tree = Tree::default();
        tree.put(path.clone(), b"old".to_vec());
        let mut list = proof_list(&Arc::from(tmp.path()));
        for (_, file) in proofs_in(tmp.path(), &[0x7f]) {
            list.push(file).unwrap();
        }
        tree.put_listed(list);
        assert_eq!(tree.len(), 1);
        assert_eq!(
            tree.read(&path).unwrap().unwrap().into_owned(),
            vec![0x7f; 3]
        );
        assert_eq!(
            tree.get(&path),
            None,
            "a listed proof is a file on disk, not bytes"
        );

        // A second list: of the same store, it replaces the first's proofs of the same name and
        // adds the rest; of another store, its proofs are held in the map. No path twice.
        let other = tmp.path().join("other");
        std::fs::create_dir(&other).unwrap();
        let mut same = proof_list(&Arc::from(tmp.path()));
        for (_, mut file) in proofs_in(tmp.path(), &[0x7f, 0x01]) {
            file.len = 9;
            same.push(file).unwrap();
        }
        same.finish();
        tree.put_listed(same);
        let mut elsewhere = proof_list(&Arc::from(other.as_path()));
        for (_, file) in proofs_in(&other, &[0x01, 0x02]) {
            elsewhere.push(file).unwrap();
        }
        elsewhere.finish();
        tree.put_listed(elsewhere);
        let got: Vec<(String, u64)> = tree
            .iter()
            .map(|(p, c)| (p.into_owned(), c.len()))
            .collect();
        let name = proof_path;
        assert_eq!(got, vec![(name(1), 3), (name(2), 3), (name(0x7f), 9)]);
        assert_eq!(tree.len(), 3);
        assert_eq!(
            tree.entry(&name(1)).unwrap().bytes().unwrap().into_owned(),
            vec![1; 3]
        );
    }

    #[test]
    fn only_a_checked_digest_named_proof_of_the_lists_folder_is_listed() {
        // Catches a list that would take a file it cannot say again exactly: another folder's,
        // one whose header is still needed, one not named by a digest, one never checked, one
        // whose length a listed entry cannot hold.
        let tmp = tempfile::tempdir().unwrap();
        let other = tmp.path().join("other");
        std::fs::create_dir(&other).unwrap();
        let mut list = proof_list(&Arc::from(tmp.path()));
        let (_, good) = proofs_in(tmp.path(), &[1]).remove(0);
        let (_, foreign) = proofs_in(&other, &[2]).remove(0);
        let with_head = kept_proof(
            tmp.path(),
            &format!("{}.ots", exhibit_protocol::Digest([3; 32])),
            b"h",
        );
        let mut text = kept_proof(tmp.path(), "prereg_x.ots", b"t");
        text.forget_head();
        let mut unchecked = good.clone();
        unchecked.sha256 = None;
        // A file of 4 GiB or more (a DIR's, listed for the review) is not cut to 4 bytes.
        let mut huge = good.clone();
        huge.len = 1 << 32;
        for file in [foreign, with_head, text, unchecked, huge] {
            assert!(list.push(file).is_err());
        }
        assert!(list.push(good).is_ok());
        assert_eq!(list.len(), 1);
    }

    #[test]
    fn random_trees_read_the_same_held_or_listed() {
        // A differential check of the merge: many random trees, each held one path at a time
        // and with its digest-named proofs listed, must list, filter, find and compare alike.
        // Paths crowd the folder's edges (names sorting just before and after `proofs/`, text
        // names inside it, digests of extreme bytes); prefixes cut anywhere in those paths.
        // Half the lists name their files from a shared table (the witness layer's store ids,
        // with ids no file has between them): one that gives a file its neighbour's name, or
        // sorts by position where the table is not the order, fails.
        let tmp = tempfile::tempdir().unwrap();
        let store: Arc<Path> = Arc::from(tmp.path());
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = move |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        let outside = [
            "index.html",
            "ledger/STATS.json",
            "ledger/witness/index.json",
            "ledger/witness/proofs-x",
            "ledger/witness/proofs.json",
            "ledger/witness/proofsz/a.ots",
            "ledger/witness/runs/000001.jsonl",
            "ledger/witness/proofs/prereg_1.ots",
            "ledger/witness/proofs/0.ots",
            "ledger/witness/proofs/zz.ots",
            "ledger/witness/proofs/sub/x.ots",
        ];
        let byte = |n: u64| [0x00u8, 0x01, 0x0f, 0x10, 0x7f, 0x80, 0xf0, 0xfe, 0xff][n as usize];
        for round in 0..200u32 {
            let mut held = Tree::default();
            let mut listed = Tree::default();
            for path in outside.iter().filter(|_| next(2) == 0) {
                held.put(*path, path.as_bytes().to_vec());
                listed.put(*path, path.as_bytes().to_vec());
            }
            let mut digests = Vec::new();
            for _ in 0..next(6) {
                let mut d = [byte(next(9)); 32];
                d[31] = byte(next(9));
                digests.push(d);
            }
            let mut list = if next(2) == 0 {
                proof_list(&store)
            } else {
                let mut table: Vec<exhibit_protocol::Digest> = digests
                    .iter()
                    .copied()
                    .chain((0..next(4)).map(|_| [byte(next(9)); 32]))
                    .map(exhibit_protocol::Digest)
                    .collect();
                table.sort_unstable();
                table.dedup();
                // Every other round the table reads its digests from lines that hold them
                // in reverse, as the witness layer's does (docs/scale.md#ids-by-line).
                let ids = crate::published::entry_ids::SortedIds::own(table.clone());
                let ids = if round.is_multiple_of(2) {
                    ids
                } else {
                    let lines: Vec<exhibit_protocol::Digest> =
                        table.iter().rev().copied().collect();
                    let n = lines.len();
                    ids.by_line(Arc::new(TestLines(lines)), move |k| Some(n - 1 - k))
                };
                ListedFiles::naming_from(
                    ListedFolder::WitnessProofs,
                    &store,
                    FileClass::Proof,
                    Arc::new(ids),
                )
            };
            for d in &digests {
                let file = DiskFile {
                    folder: store.clone(),
                    name: FileName::Proof(*d),
                    class: FileClass::Proof,
                    len: next(1000),
                    sha256: Some(exhibit_protocol::Digest([d[0]; 32])),
                    head: None,
                    head_len: 0,
                };
                let path = format!(
                    "{}/{}.ots",
                    ListedFolder::WitnessProofs.path(),
                    exhibit_protocol::Digest(*d)
                );
                held.put_file(path, file.clone());
                list.push(file).unwrap();
            }
            list.finish();
            listed.put_listed(list);
            let all = |t: &Tree| -> Vec<(String, Content)> {
                t.iter()
                    .map(|(p, c)| (p.into_owned(), c.into_owned()))
                    .collect()
            };
            let want = all(&held);
            assert_eq!(all(&listed), want);
            assert_eq!(listed.len(), held.len());
            assert!(want.windows(2).all(|w| w[0].0 < w[1].0));
            for (path, _) in want.iter().take(4) {
                let cut = &path[..next(path.len() as u64 + 1) as usize];
                let under = |t: &Tree| -> Vec<String> {
                    t.iter_under(cut).map(|(p, _)| p.into_owned()).collect()
                };
                assert_eq!(under(&listed), under(&held), "under {cut:?}");
            }
            let probe = format!(
                "{}/{}.ots",
                ListedFolder::WitnessProofs.path(),
                exhibit_protocol::Digest([byte(next(9)); 32])
            );
            assert_eq!(listed.contains(&probe), held.contains(&probe), "{probe}");
            assert_eq!(
                listed.entry(&probe).map(Cow::into_owned),
                held.entry(&probe).map(Cow::into_owned)
            );
            let side: Vec<_> = joined(&held, &listed)
                .map(|(p, a, b)| {
                    (
                        p.into_owned(),
                        a.map(Cow::into_owned),
                        b.map(Cow::into_owned),
                    )
                })
                .collect();
            assert!(
                side.iter().all(|(_, a, b)| a.is_some() && a == b),
                "{side:?}"
            );
        }
    }

    /// Lines holding digests, for a table that reads its digests from them.
    #[derive(Debug)]
    struct TestLines(Vec<exhibit_protocol::Digest>);

    impl crate::published::entry_ids::LineIds for TestLines {
        fn count(&self) -> usize {
            self.0.len()
        }
        fn entry_id(&self, line: usize) -> exhibit_protocol::Digest {
            self.0[line]
        }
    }

    #[test]
    fn a_list_naming_from_a_shared_table_hands_back_a_name_it_lacks_and_lists_as_its_own() {
        // Catches a shared table that takes a name it does not hold (given a neighbour's
        // position), a list that trusts a table out of order (its lookups would miss), and
        // lists that hold the same files but compare unequal for how they keep names.
        let tmp = tempfile::tempdir().unwrap();
        let store: Arc<Path> = Arc::from(tmp.path());
        let proofs = proofs_in(tmp.path(), &[1, 3, 9]);
        let table = |ds: &[u8]| {
            Arc::new(crate::published::entry_ids::SortedIds::own(
                ds.iter()
                    .map(|&d| exhibit_protocol::Digest([d; 32]))
                    .collect(),
            ))
        };
        let mut shared = ListedFiles::naming_from(
            ListedFolder::WitnessProofs,
            &store,
            FileClass::Proof,
            table(&[1, 2, 3, 4]),
        );
        assert!(matches!(shared.names, ListedNames::Shared(_)));
        let mut own = proof_list(&store);
        for (k, (_, file)) in proofs.iter().enumerate() {
            own.push(file.clone()).unwrap();
            assert_eq!(shared.push(file.clone()).is_ok(), k < 2, "{k}");
        }
        shared.finish();
        own.remove(&proof_path(9));
        assert_eq!(shared, own);
        assert!(shared.find(&proof_path(3)).is_some());
        assert!(shared.find(&proof_path(2)).is_none());
        // A table out of order (or with a name twice) is not shared: the list keeps its own.
        for bad in [table(&[3, 1]), table(&[1, 1, 3])] {
            let mut list = ListedFiles::naming_from(
                ListedFolder::WitnessProofs,
                &store,
                FileClass::Proof,
                bad,
            );
            assert!(matches!(list.names, ListedNames::Own(_)));
            for (_, file) in &proofs {
                list.push(file.clone()).unwrap();
            }
            list.finish();
            assert_eq!(list.len(), 3);
            assert!(list.find(&proof_path(9)).is_some());
        }
    }

    /// A line's record as far as a table reads it: its entry_id.
    #[derive(Debug)]
    struct TestLine(exhibit_protocol::Digest);

    impl crate::published::entry_ids::LineIds for Vec<TestLine> {
        fn count(&self) -> usize {
            self.len()
        }
        fn entry_id(&self, line: usize) -> exhibit_protocol::Digest {
            self[line].0
        }
    }

    #[test]
    fn a_tree_s_lists_name_their_files_as_before_once_the_lines_are_let_go() {
        // Catches a list given back another list's table (or none) when the tables are taken
        // out to be made again, a list with names of its own disturbed, and lines said to be
        // let go while a list still reads them.
        let tmp = tempfile::tempdir().unwrap();
        let store: Arc<Path> = Arc::from(tmp.path());
        let proofs = proofs_in(tmp.path(), &[1, 3, 9, 4]);
        let lines = Arc::new(
            [9u8, 1, 5, 3]
                .map(|d| TestLine(exhibit_protocol::Digest([d; 32])))
                .into_iter()
                .collect::<Vec<_>>(),
        );
        let table = |ds: &[u8]| {
            let ids: Vec<exhibit_protocol::Digest> = ds
                .iter()
                .map(|&d| exhibit_protocol::Digest([d; 32]))
                .collect();
            Arc::new(
                crate::published::entry_ids::SortedIds::own(ids.clone())
                    .by_line(lines.clone(), |k| lines.iter().position(|l| l.0 == ids[k])),
            )
        };
        // Two lists share one table; a third reads another.
        let (shared, other) = (table(&[1, 3, 5, 9]), table(&[3, 9]));
        let mut tree = Tree::default();
        for (folder, names, table) in [
            (ListedFolder::WitnessProofs, [1u8].as_slice(), &shared),
            (
                ListedFolder::WitnessProofBucket(0),
                [3u8].as_slice(),
                &shared,
            ),
            (
                ListedFolder::WitnessProofBucket(1),
                [9u8].as_slice(),
                &other,
            ),
        ] {
            let mut list =
                ListedFiles::naming_from(folder, &store, FileClass::Proof, table.clone());
            let named = |f: &DiskFile| matches!(f.name, crate::published::output_tree::FileName::Proof(n) if names.contains(&n[0]));
            for (_, file) in proofs.iter().filter(|(_, f)| named(f)) {
                list.push(file.clone()).unwrap();
            }
            list.finish();
            tree.put_listed(list);
        }
        let mut own = ListedFiles::new(ListedFolder::WitnessProofOther, &store, FileClass::Proof);
        own.push(proofs[3].1.clone()).unwrap();
        own.finish();
        tree.put_listed(own);
        drop((shared, other));
        let before: Vec<(String, Content)> = tree
            .iter()
            .map(|(p, c)| (p.into_owned(), c.into_owned()))
            .collect();
        assert_eq!(before.len(), 4);
        let gone = Arc::downgrade(&lines);
        assert!(tree.let_go_of_lines(lines, |l: &TestLine| l.0).1);
        assert!(gone.upgrade().is_none(), "the lines are let go");
        let after: Vec<(String, Content)> = tree
            .iter()
            .map(|(p, c)| (p.into_owned(), c.into_owned()))
            .collect();
        assert_eq!(after, before);
    }

    #[test]
    fn a_list_pushed_out_of_order_is_sorted_and_keeps_the_last_of_a_name() {
        let tmp = tempfile::tempdir().unwrap();
        let proofs = proofs_in(tmp.path(), &[9, 3, 9, 1]);
        let mut list = proof_list(&Arc::from(tmp.path()));
        for (_, file) in &proofs {
            list.push(file.clone()).unwrap();
        }
        // The second 9 (pushed last of its name) holds other bytes than the first.
        let mut last = proofs[2].1.clone();
        last.len = 7;
        list.push(last).unwrap();
        list.finish();
        let got: Vec<(String, u64)> = list.iter().map(|(p, c)| (p, c.len())).collect();
        let name = proof_path;
        assert_eq!(got, vec![(name(1), 3), (name(3), 3), (name(9), 7)]);
    }

    #[test]
    fn a_tree_with_listed_proofs_is_written_and_compared_file_by_file() {
        // Catches a write stage or a review that walks the map alone.
        let tmp = tempfile::tempdir().unwrap();
        let store = tmp.path().join("store");
        std::fs::create_dir(&store).unwrap();
        let dir = tmp.path().join("site");
        let (held, listed) = held_and_listed(&store);
        write_checked(&dir, &listed, DirRecords::none()).unwrap();
        let on_disk = read_tree(&dir, None).unwrap();
        assert_eq!(on_disk.len(), held.len());
        for (path, content) in held.iter() {
            assert_eq!(
                std::fs::read(dir.join(&*path)).unwrap(),
                content.bytes().unwrap().into_owned(),
                "{path}"
            );
        }
        let side_by_side: Vec<_> = joined(&on_disk, &listed)
            .map(|(p, a, b)| (p.into_owned(), a.is_some(), b.is_some()))
            .collect();
        assert_eq!(side_by_side.len(), held.len());
        assert!(
            side_by_side.iter().all(|(_, a, b)| *a && *b),
            "{side_by_side:?}"
        );
        // One listed proof missing from DIR, one file only DIR has.
        let gone = proof_path(0xab);
        std::fs::remove_file(dir.join(&gone)).unwrap();
        std::fs::write(dir.join("ledger/extra.txt"), b"e").unwrap();
        let on_disk = read_tree(&dir, None).unwrap();
        let differ: Vec<_> = joined(&on_disk, &listed)
            .filter(|(_, a, b)| a.is_none() || b.is_none())
            .map(|(p, a, _)| (p.into_owned(), a.is_some()))
            .collect();
        assert_eq!(
            differ,
            vec![("ledger/extra.txt".to_string(), true), (gone, false)]
        );
    }

    #[test]
    fn a_tree_entry_stays_small() {
        // A million proofs are a million entries of the tree's map: each byte here is a
        // megabyte there (docs/scale.md#memory). Catches a header held inline again; the name,
        // kept as a digest, adds 16 bytes here and saves an 80-byte allocation per proof.
        let size = std::mem::size_of::<Content>();
        assert!(
            size <= 112,
            "Content is {size} bytes (152 when the header was inline and the name a String)"
        );
        // A proof whose header was let go reads it again from its file, by its name kept as a
        // digest.
        let tmp = tempfile::tempdir().unwrap();
        let hex = "0a".repeat(32);
        let mut file = kept_proof(tmp.path(), &format!("{hex}.ots"), b"0123456789");
        assert!(matches!(file.name, FileName::Proof(_)));
        assert_eq!(file.path(), tmp.path().join(format!("{hex}.ots")));
        file.forget_head();
        assert_eq!(&*Content::File(file).head(4), b"0123");
        // Only the exact shape is kept as a digest; every other name as it is, byte for byte.
        for name in [
            format!("{}.ots", "0A".repeat(32)),
            format!("prereg_{hex}.ots"),
            format!("{hex}.ots.ots"),
            format!("{}.ots", &hex[1..]),
            "p.ots".to_string(),
        ] {
            let n = FileName::new(&name);
            assert!(matches!(n, FileName::Other(_)), "{name}");
            assert_eq!(n.text(), name);
        }
        assert_eq!(
            FileName::new(&format!("{hex}.ots")).text(),
            format!("{hex}.ots")
        );
    }

    #[test]
    fn contents_compare_by_their_bytes_whatever_holds_them() {
        let tmp = tempfile::tempdir().unwrap();
        // Two spans of the gate's ledger, the withheld line between them left out.
        let gate = tmp.path().join("ledger.jsonl");
        std::fs::write(&gate, b"head\nline one\nwithheld\nline two\n").unwrap();
        let ledger = Arc::new(crate::operator_box::gate_ledger::GateLedger::open(&gate).unwrap());
        let shared = Content::Ledger(crate::operator_box::gate_ledger::LedgerSpans::new(
            ledger,
            vec![(0, 14), (23, 32)],
        ));
        let bytes = Content::Bytes(b"head\nline one\nline two\n".to_vec());
        let file = Content::File(kept_proof(tmp.path(), "f", b"head\nline one\nline two\n"));
        assert_eq!(shared.len(), bytes.len());
        assert_eq!(&*shared.bytes().unwrap(), b"head\nline one\nline two\n");
        assert_eq!(shared.sha256().unwrap(), bytes.sha256().unwrap());
        assert_eq!(&*shared.head(7), b"head\nli");
        for (a, b) in [(&shared, &bytes), (&bytes, &file), (&shared, &file)] {
            assert!(a.same(b).unwrap() && b.same(a).unwrap());
        }
        // One byte off, same size: not the same, however it is held.
        let off = Content::Bytes(b"head\nline one\nline twO\n".to_vec());
        for other in [&shared, &bytes, &file] {
            assert!(!off.same(other).unwrap() && !other.same(&off).unwrap());
        }
        // DIR's file listed by read_tree (no digest): read and compared.
        let listed = read_tree(tmp.path(), None).unwrap();
        assert!(listed.entry("f").unwrap().same(&shared).unwrap());
        assert!(!listed.entry("f").unwrap().same(&off).unwrap());
    }

    #[test]
    fn a_remade_file_is_made_again_to_be_written_and_must_come_out_the_same() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("site");
        let made = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let counter = made.clone();
        let remade = Remade::new(move || {
            counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            b"part bytes".to_vec()
        });
        assert_eq!(made.load(std::sync::atomic::Ordering::SeqCst), 1);
        let mut tree = Tree::default();
        tree.put_content("part.json", Content::Remade(remade.clone()));
        assert!(
            tree.entry("part.json")
                .unwrap()
                .same(&Content::Bytes(b"part bytes".to_vec()))
                .unwrap()
        );
        write_checked(&dir, &tree, DirRecords::none()).unwrap();
        assert_eq!(std::fs::read(dir.join("part.json")).unwrap(), b"part bytes");
        let after_write = made.load(std::sync::atomic::Ordering::SeqCst);
        // DIR holds it already: compared by digest and linked, not made a third time.
        write_checked(&dir, &tree, DirRecords::none()).unwrap();
        assert_eq!(made.load(std::sync::atomic::Ordering::SeqCst), after_write);

        // A maker that is not deterministic is caught before a byte is written.
        let flip = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let unstable = Remade::new(move || {
            let n = flip.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            format!("made {n}").into_bytes()
        });
        let mut tree = Tree::default();
        tree.put_content("part.json", Content::Remade(unstable));
        let err = write_checked(&dir, &tree, DirRecords::none()).unwrap_err();
        assert!(format!("{err:#}").contains("came out different"), "{err:#}");
        assert_eq!(std::fs::read(dir.join("part.json")).unwrap(), b"part bytes");

        // Written as it is made (docs/scale.md#nothing-made-to-be-dropped): what the making
        // writes is the file, and it is held to the first making's size and sha256 all the
        // same. Catches a streamed file written without the check, or a check against the
        // wrong bytes.
        let streamed = |writes: &'static [u8]| {
            Remade::streamed(
                14,
                exhibit_protocol::Digest::of(b"streamed bytes"),
                move |out| Ok(out.write_all(writes)?),
            )
        };
        let mut tree = Tree::default();
        tree.put("part.json", b"part bytes".to_vec());
        tree.put_content(
            "streamed.json",
            Content::Remade(streamed(b"streamed bytes")),
        );
        write_checked(&dir, &tree, DirRecords::none()).unwrap();
        assert_eq!(
            std::fs::read(dir.join("streamed.json")).unwrap(),
            b"streamed bytes"
        );
        let mut tree = Tree::default();
        tree.put("part.json", b"part bytes".to_vec());
        tree.put_content("other.json", Content::Remade(streamed(b"streamed bytez")));
        let err = write_checked(&dir, &tree, DirRecords::none()).unwrap_err();
        assert!(format!("{err:#}").contains("came out different"), "{err:#}");
        assert!(!dir.join("other.json").exists());
        assert_eq!(
            std::fs::read(dir.join("streamed.json")).unwrap(),
            b"streamed bytes"
        );
    }

    fn inode(path: &Path) -> u64 {
        use std::os::unix::fs::MetadataExt;
        std::fs::symlink_metadata(path).unwrap().ino()
    }

    #[test]
    fn an_unchanged_file_is_not_touched_and_a_changed_one_written_anew() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("site");
        let mut tree = Tree::default();
        tree.put("same.txt", b"same bytes".to_vec());
        tree.put("changed.txt", b"old".to_vec());
        tree.put("ledger/inner.txt", b"inner".to_vec());
        write_checked(&dir, &tree, DirRecords::none()).unwrap();
        let (same, changed) = (
            inode(&dir.join("same.txt")),
            inode(&dir.join("changed.txt")),
        );

        // Same size, other bytes: a size-only comparison would keep "old".
        tree.put("changed.txt", b"new".to_vec());
        write_checked(&dir, &tree, DirRecords::none()).unwrap();
        let on_disk = read_tree(&dir, None).unwrap();
        assert_eq!(on_disk.len(), tree.len());
        for (path, content) in tree.iter() {
            assert!(
                on_disk.entry(&path).unwrap().same(&content).unwrap(),
                "{path}"
            );
        }
        assert_eq!(inode(&dir.join("same.txt")), same, "not touched");
        assert_ne!(inode(&dir.join("changed.txt")), changed, "written anew");
        use std::os::unix::fs::MetadataExt;
        let meta = std::fs::metadata(dir.join("same.txt")).unwrap();
        assert_eq!(meta.nlink(), 1, "no second name");

        // An executable file (git would keep its mode) is written anew, as a plain file.
        use std::os::unix::fs::PermissionsExt;
        let same = dir.join("same.txt");
        std::fs::set_permissions(&same, std::fs::Permissions::from_mode(0o755)).unwrap();
        let before = inode(&same);
        write_checked(&dir, &tree, DirRecords::none()).unwrap();
        assert_ne!(inode(&same), before);
        assert_eq!(
            std::fs::metadata(&same).unwrap().permissions().mode() & 0o111,
            0
        );
    }

    #[test]
    fn a_file_reached_through_a_symlinked_folder_is_not_taken_for_dirs() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("site");
        let mut tree = Tree::default();
        tree.put("ledger/inner.txt", b"inner".to_vec());
        write_checked(&dir, &tree, DirRecords::none()).unwrap();
        // Someone's own folder, holding a file with the very bytes, put in place of ledger/.
        let theirs = tmp.path().join("theirs");
        std::fs::create_dir(&theirs).unwrap();
        std::fs::write(theirs.join("inner.txt"), b"inner").unwrap();
        std::fs::remove_dir_all(dir.join("ledger")).unwrap();
        std::os::unix::fs::symlink(&theirs, dir.join("ledger")).unwrap();
        write_checked(&dir, &tree, DirRecords::none()).unwrap();
        assert_ne!(
            inode(&dir.join("ledger/inner.txt")),
            inode(&theirs.join("inner.txt")),
            "their file is not linked into the exhibit"
        );
        assert_eq!(std::fs::read(theirs.join("inner.txt")).unwrap(), b"inner");
        use std::os::unix::fs::MetadataExt;
        assert_eq!(
            std::fs::metadata(theirs.join("inner.txt")).unwrap().nlink(),
            1
        );
    }

    /// `tree` recorded as DIR's content after a pause longer than a clock tick (so that the
    /// racy rule keeps the records), then the records as the next build opens them.
    fn recorded_as(git: &Path, dir: &Path, tree: &Tree) -> DirRecords {
        std::thread::sleep(std::time::Duration::from_millis(30));
        crate::site_write::dir_record::save(Some(git), dir, tree, &KeptByRecord::default())
            .unwrap();
        DirRecords::open(Some(git), dir)
    }

    #[test]
    fn dirs_recorded_proofs_are_listed_and_read_as_the_same_files() {
        // DIR's listing for the review: a per-line proof the record knows is listed (72 bytes,
        // not a map entry), one it does not know stays in the map, and either way the listing
        // says the same files, sizes and digests as a listing without the list would. Catches
        // a listing that loses DIR's proofs, lists an unrecorded one (its sha256 unknown: the
        // review would trust nothing), or reads them as the store's class.
        let tmp = tempfile::tempdir().unwrap();
        let store = tmp.path().join("store");
        std::fs::create_dir(&store).unwrap();
        let (git, dir) = (tmp.path().join("git"), tmp.path().join("site"));
        std::fs::create_dir(&git).unwrap();
        let (held, listed) = held_and_listed(&store);
        write_checked(&dir, &listed, DirRecords::none()).unwrap();
        recorded_as(&git, &dir, &held);
        // Written after the record: not known, so kept in the map.
        let late = proof_path(0x42);
        std::fs::write(dir.join(&late), b"late").unwrap();
        let on_disk = read_tree(&dir, Some(&git)).unwrap();
        let list = on_disk
            .listed
            .iter()
            .find(|l| l.folder == ListedFolder::WitnessProofs)
            .expect("DIR's proofs listed");
        assert_eq!(list.len(), 4);
        assert_eq!(list.class, FileClass::OutputFile);
        // DIR's released texts likewise, read from DIR's folder, not the store's.
        let texts = on_disk
            .listed
            .iter()
            .find(|l| l.folder == ListedFolder::PublicTexts)
            .expect("DIR's texts listed");
        assert_eq!(texts.len(), 3);
        assert_eq!(*texts.store, *dir.join(&*ListedFolder::PublicTexts.path()));
        assert!(matches!(on_disk.held.get(&late), Some(Content::File(f)) if f.sha256.is_none()));
        let plain = read_tree(&dir, None).unwrap();
        assert!(plain.listed.is_empty());
        assert_eq!(on_disk.len(), plain.len());
        for ((p, a), (q, b)) in on_disk.iter().zip(plain.iter()) {
            assert_eq!((&p, a.len()), (&q, b.len()));
            assert_eq!(a.bytes().unwrap(), b.bytes().unwrap(), "{p}");
        }
        // The review compares DIR's listed proofs with the build's by digest: nothing differs
        // but the late file.
        let changes = joined(&on_disk, &listed)
            .filter_map(|(p, a, b)| match (a, b) {
                (Some(a), Some(b)) if a.same(&b).unwrap() => None,
                _ => Some(p.into_owned()),
            })
            .collect::<Vec<_>>();
        assert_eq!(changes, vec![late]);
    }

    #[test]
    fn a_recorded_file_is_compared_by_its_record_not_read() {
        let tmp = tempfile::tempdir().unwrap();
        let (git, dir) = (tmp.path().join("git"), tmp.path().join("site"));
        let mut tree = Tree::default();
        tree.put("a.txt", b"yyy".to_vec());
        write_checked(&dir, &tree, DirRecords::none()).unwrap();
        // A record claiming DIR's a.txt holds "xxx" (as no build would write it): believed, as
        // git believes its index, so DIR's file is linked without being read.
        let mut claimed = Tree::default();
        claimed.put("a.txt", b"xxx".to_vec());
        let known = recorded_as(&git, &dir, &claimed);
        let before = inode(&dir.join("a.txt"));
        write_checked(&dir, &claimed, known).unwrap();
        assert_eq!(
            inode(&dir.join("a.txt")),
            before,
            "linked on the record's word"
        );
        assert_eq!(std::fs::read(dir.join("a.txt")).unwrap(), b"yyy");
    }

    #[test]
    fn a_listed_file_carries_its_recorded_sha256_only_while_its_stat_data_is_the_recorded() {
        // The dry run's listing of DIR: a file the record still describes is compared by the
        // recorded sha256 (a record claiming other bytes is believed, which shows it is not
        // read); one edited since, even with its mtime put back, carries none and is read.
        let tmp = tempfile::tempdir().unwrap();
        let (git, dir) = (tmp.path().join("git"), tmp.path().join("site"));
        let mut tree = Tree::default();
        tree.put("a.txt", b"aaa".to_vec());
        tree.put("ledger/witness/index.json", b"index".to_vec());
        tree.put("ledger/witness/index/000001.json", b"part".to_vec());
        tree.put("z.txt", b"zzz".to_vec());
        write_checked(&dir, &tree, DirRecords::none()).unwrap();
        let mut claimed = tree.clone();
        claimed.put("z.txt", b"xxx".to_vec());
        recorded_as(&git, &dir, &claimed);
        crate::previous::file_records::rewrite_keeping_mtime(&dir.join("a.txt"), b"AAA").unwrap();
        let listed = read_tree(&dir, Some(&git)).unwrap();
        let sha = |rel: &str| listed_sha256(&listed, rel);
        assert_eq!(sha("z.txt"), Some(exhibit_protocol::Digest::of(b"xxx")));
        // The walk follows the records' order: `index.json` comes before the folder `index/`
        // (walked in name order, the folder would come first and `index.json`'s record be
        // passed by).
        assert_eq!(
            sha("ledger/witness/index.json"),
            Some(exhibit_protocol::Digest::of(b"index"))
        );
        assert_eq!(
            sha("ledger/witness/index/000001.json"),
            Some(exhibit_protocol::Digest::of(b"part"))
        );
        assert_eq!(sha("a.txt"), None, "edited since: read");
        assert!(
            !listed
                .entry("a.txt")
                .unwrap()
                .same(&tree.entry("a.txt").unwrap())
                .unwrap()
        );
        // Without records nothing carries a digest.
        assert_eq!(
            listed_sha256(&read_tree(&dir, None).unwrap(), "z.txt"),
            None
        );
    }

    /// The sha256 a listed file of DIR carries (none when it must be read to be compared).
    fn listed_sha256(listed: &Tree, rel: &str) -> Option<exhibit_protocol::Digest> {
        match &*listed.entry(rel).unwrap() {
            Content::File(f) => f.sha256,
            other => panic!("{rel}: {other:?}"),
        }
    }

    #[test]
    fn a_recorded_file_holding_other_bytes_or_edited_since_is_written_anew() {
        let tmp = tempfile::tempdir().unwrap();
        let (git, dir) = (tmp.path().join("git"), tmp.path().join("site"));
        let mut tree = Tree::default();
        tree.put("kept.txt", b"kept".to_vec());
        tree.put("next.txt", b"old".to_vec());
        write_checked(&dir, &tree, DirRecords::none()).unwrap();
        let known = recorded_as(&git, &dir, &tree);
        // The build now makes other bytes of the same size: the record's sha256 is not theirs.
        tree.put("next.txt", b"new".to_vec());
        // Someone edited DIR's kept.txt in place (same size) after the record, mtime put back.
        let kept = dir.join("kept.txt");
        crate::previous::file_records::rewrite_keeping_mtime(&kept, b"evil").unwrap();
        write_checked(&dir, &tree, known).unwrap();
        assert_eq!(std::fs::read(dir.join("next.txt")).unwrap(), b"new");
        assert_eq!(
            std::fs::read(&kept).unwrap(),
            b"kept",
            "read, compared, rewritten"
        );
    }
}
