//! How a build writes DIR (docs/build.md#the-write), as a static log does: every file is written
//! whole under a temporary name in its own folder, then renamed into place; a file whose bytes
//! do not change is not touched; new files first, changed files next, the head files
//! (`ledger/STATS.json`, `ledger/SNAPSHOTS.jsonl`, the page) last — the last rename is the
//! publication's commit point — and the names the build does not produce are removed after the
//! heads. A journal (crate::site_write::journal) names the renames and removals before the first and
//! is removed after the last; a build that finds one finishes it first. A killed or failed build
//! leaves DIR as the old publication plus files nothing refers to yet, or as the new one; never a
//! half-written file.

pub mod dir_folders;
pub mod dir_record;
pub mod dir_walk;
pub mod journal;
pub mod out_dir;
pub mod staged_files;

use std::ffi::OsStr;
use std::io::Write;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use anyhow::{Context, Result, bail};
use exhibit_protocol::Digest;
use rustix::fd::{AsFd, BorrowedFd, OwnedFd};
use rustix::fs::{AtFlags, FileType, Mode, OFlags};

use crate::published::output_tree::{Content, Tree};
use crate::site_write::dir_folders::{FOLDER, OpenFolders, folder_and_name, is_regular, stat_in};
use crate::site_write::dir_record::{DirRecords, KeptByRecord};
use crate::site_write::journal::{CannotFinish, Entry, Journal, Pending, Phase};

/// The head files, renamed last and in this order: the page's rename is the commit point.
pub const HEADS: [&str; 3] = ["ledger/STATS.json", "ledger/SNAPSHOTS.jsonl", "index.html"];

const TEMP_INFIX: &str = ".exhibit-tmp-";

/// The temporary name of `name` while process `pid` writes it: `.<name>.exhibit-tmp-<pid>`, in
/// the same folder. No path of the output grammar has this shape (crate::published::layout), so it is
/// never a published name.
pub fn temp_name(name: &str, pid: u32) -> String {
    format!(".{name}{TEMP_INFIX}{pid}")
}

/// The name and process number a temporary name carries; `None` for any other name.
pub fn temp_of(name: &[u8]) -> Option<(&[u8], u32)> {
    let rest = name.strip_prefix(b".")?;
    let infix = TEMP_INFIX.as_bytes();
    let at = rest.windows(infix.len()).rposition(|w| w == infix)?;
    let (final_name, pid) = (&rest[..at], &rest[at + infix.len()..]);
    if final_name.is_empty() || pid.is_empty() || !pid.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let pid = std::str::from_utf8(pid).ok()?.parse().ok()?;
    Some((final_name, pid))
}

/// Test aid (docs/build.md#the-write): with `EXHIBIT_TEST_STOP_AFTER_WRITES=N` in the
/// environment the process aborts, as a kill would stop it, right after the write stage's
/// `N`th step — a temporary file written, the journal put in place, a rename, a removal.
fn step() {
    use std::sync::OnceLock;
    use std::sync::atomic::{AtomicU64, Ordering};
    static LIMIT: OnceLock<Option<u64>> = OnceLock::new();
    static DONE: AtomicU64 = AtomicU64::new(0);
    let limit = LIMIT.get_or_init(|| {
        std::env::var("EXHIBIT_TEST_STOP_AFTER_WRITES")
            .ok()
            .and_then(|v| v.trim().parse().ok())
    });
    if let Some(limit) = *limit
        && DONE.fetch_add(1, Ordering::SeqCst) + 1 >= limit
    {
        std::process::abort();
    }
}

/// DIR's filesystem synced: what was written is on disk before the journal names it, and the
/// renames before the journal goes.
fn sync_filesystem(dir: &Path) -> Result<()> {
    let fd = rustix::fs::open(dir, FOLDER, Mode::empty())
        .with_context(|| format!("{}: cannot open as a folder", dir.display()))?;
    #[cfg(target_os = "linux")]
    let synced = rustix::fs::syncfs(&fd);
    #[cfg(not(target_os = "linux"))]
    let synced = rustix::fs::fsync(&fd);
    synced.with_context(|| format!("{}: cannot sync its filesystem", dir.display()))
}

/// What a write did, for the notes.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Done {
    pub renamed: u64,
    pub removed: u64,
}

/// Writes `tree` as DIR (which has passed `check_out_dir`; made when absent), its plan journaled
/// at `journal`. Returns what a person should be told (leftovers removed), and which files DIR's
/// record showed unchanged, for the next record.
pub fn write(
    dir: &Path,
    tree: &Tree,
    known: DirRecords,
    journal: &Path,
    made: &Path,
) -> Result<(Vec<String>, KeptByRecord)> {
    let mut said = Vec::new();
    check_shape(tree)?;
    let mut pending = Pending::create(journal)?;
    let mut kept = KeptByRecord::default();
    let planned = sweep(dir, tree, &mut pending, &mut said)
        .and_then(|()| write_temps(dir, tree, (known, &mut kept), &mut pending, made));
    // Nothing to rename or remove: DIR already is the publication, and nothing is touched.
    if planned.is_ok() && pending.is_empty() {
        pending.discard();
        return Ok((said, kept));
    }
    let planned = planned.and_then(|()| sync_filesystem(dir));
    if let Err(e) = planned {
        if let Ok(so_far) = pending.read_back() {
            take_back(dir, &so_far);
        }
        pending.discard();
        return Err(e);
    }
    crate::terminal::progress::stage_done("write: the new files written");
    let so_far = pending.so_far();
    let journal = match pending.commit() {
        Ok(j) => j,
        Err(e) => {
            take_back(dir, &so_far);
            let _ = std::fs::remove_file(&so_far.path);
            return Err(e);
        }
    };
    step();
    let shown = journal.path.display().to_string();
    let stopped = |e: anyhow::Error| {
        e.context(format!(
            "{}: the write stopped part way; the journal {shown} names what is left: run the build again, which finishes it",
            dir.display()
        ))
    };
    carry_out(dir, &journal, false).map_err(stopped)?;
    sync_filesystem(dir).map_err(stopped)?;
    journal.remove()?;
    Ok((said, kept))
}

/// No path of the tree is also a folder of another (written past the output's grammar, which
/// admits no such pair): checked before anything is written.
fn check_shape(tree: &Tree) -> Result<()> {
    let mut last = String::new();
    for (rel, _) in tree.iter() {
        let (folder, _) = folder_and_name(&rel);
        if folder == last || folder.is_empty() {
            continue;
        }
        let mut at = 0;
        loop {
            let k = folder[at..].find('/').map_or(folder.len(), |k| k + at);
            if tree.contains(&folder[..k]) {
                bail!(
                    "{:?}: both a file and a folder of the tree; nothing was written",
                    crate::terminal::escape(&folder[..k])
                );
            }
            if k == folder.len() {
                break;
            }
            at = k + 1;
        }
        last = folder.to_string();
    }
    Ok(())
}

/// Takes back a plan that failed before its journal was in place: each temporary file it names
/// is removed (DIR is then the old publication, plus any folder made for them).
fn take_back(dir: &Path, journal: &Journal) {
    let mut folders = OpenFolders::existing(dir);
    for phase in [Phase::New, Phase::Changed, Phase::Head] {
        let _ = journal.each(phase, |e| {
            let rel = String::from_utf8_lossy(&e.rel).into_owned();
            let (folder, name) = folder_and_name(&rel);
            if let Ok(Some(fd)) = folders.get(folder) {
                let _ = rustix::fs::unlinkat(fd, temp_name(name, journal.pid), AtFlags::empty());
            }
            Ok(())
        });
    }
}

pub use crate::previous::file_records::alive;

/// What the sweep of DIR's names does with one.
enum Sweep {
    Keep,
    Enter,
    RemoveNow,
    Plan,
}

/// Walks DIR by its folders' handles (never through a symlink), before anything is written:
/// the temporary files of builds that were stopped are removed, and said; a name where the
/// tree needs a folder, or a folder where it puts a file (neither is ever part of a
/// publication), is removed now so the new files can be written; every other name the tree
/// does not hold is planned for removal after the heads.
fn sweep(dir: &Path, tree: &Tree, pending: &mut Pending, said: &mut Vec<String>) -> Result<()> {
    match std::fs::symlink_metadata(dir) {
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            if let Some(parent) = dir.parent().filter(|p| !p.as_os_str().is_empty()) {
                std::fs::create_dir_all(parent)
                    .with_context(|| format!("{}: cannot create", parent.display()))?;
            }
            return std::fs::create_dir(dir)
                .with_context(|| format!("{}: cannot create", dir.display()));
        }
        Err(e) => return Err(e).with_context(|| format!("{}: cannot stat", dir.display())),
    }
    let fd = rustix::fs::open(dir, FOLDER, Mode::empty())
        .with_context(|| format!("{}: cannot open as a folder", dir.display()))?;
    let dev = rustix::fs::fstat(&fd)
        .with_context(|| format!("{}: cannot stat", dir.display()))?
        .st_dev;
    sweep_folder(&fd, "", &Ctx { dir, tree, dev }, pending, said)
}

/// What the sweep of every folder shares.
struct Ctx<'a> {
    dir: &'a Path,
    tree: &'a Tree,
    dev: u64,
}

fn sweep_folder(
    fd: &OwnedFd,
    rel: &str,
    ctx: &Ctx<'_>,
    pending: &mut Pending,
    said: &mut Vec<String>,
) -> Result<()> {
    let here = ctx.dir.join(rel);
    let cannot = || format!("{}: cannot list", here.display());
    for entry in rustix::fs::Dir::read_from(fd).with_context(cannot)? {
        let entry = entry.with_context(cannot)?;
        let bytes = entry.file_name().to_bytes();
        if bytes == b"." || bytes == b".." {
            continue;
        }
        let name = OsStr::from_bytes(bytes);
        let kind = match entry.file_type() {
            FileType::Unknown => stat_in(fd.as_fd(), &name.to_string_lossy())
                .map(|s| FileType::from_raw_mode(s.st_mode as _))
                .with_context(|| format!("{}: cannot stat", here.join(name).display()))?,
            known => known,
        };
        if kind == FileType::RegularFile
            && let Some((_, pid)) = temp_of(bytes)
        {
            left_temporary(fd.as_fd(), &here.join(name), name, pid, said)?;
            continue;
        }
        let path_bytes = [rel.as_bytes(), bytes].concat();
        let what = match std::str::from_utf8(&path_bytes) {
            Err(_) => Sweep::Plan,
            Ok(path) => {
                let is_folder = kind == FileType::Directory;
                let wants_file = ctx.tree.contains(path);
                let wants_folder =
                    !wants_file && ctx.tree.iter_under(&format!("{path}/")).next().is_some();
                match (is_folder, wants_file, wants_folder) {
                    (true, true, _) | (false, _, true) => Sweep::RemoveNow,
                    (true, false, true) => Sweep::Enter,
                    (false, true, _) => Sweep::Keep,
                    (_, false, false) => Sweep::Plan,
                }
            }
        };
        match what {
            Sweep::Keep => {}
            Sweep::Plan => pending.push(&Entry {
                phase: Phase::Remove,
                rel: path_bytes,
                len: 0,
                sha256: Digest([0; 32]),
            })?,
            Sweep::RemoveNow => remove_name(fd.as_fd(), name, &here.join(name), ctx.dev, 0)?,
            Sweep::Enter => {
                let sub =
                    rustix::fs::openat(fd, name, FOLDER, Mode::empty()).with_context(|| {
                        format!("{}: cannot open as a folder", here.join(name).display())
                    })?;
                let sub_rel = format!("{}{}/", rel, name.to_string_lossy());
                sweep_folder(&sub, &sub_rel, ctx, pending, said)?;
            }
        }
    }
    Ok(())
}

/// A temporary file a build left: removed when its process is gone (or is this one's number,
/// left by a killed process that had it), and said; a running build's is left.
fn left_temporary(
    folder: BorrowedFd<'_>,
    path: &Path,
    name: &OsStr,
    pid: u32,
    said: &mut Vec<String>,
) -> Result<()> {
    let shown = crate::terminal::escape(&path.display().to_string()).into_owned();
    if pid != std::process::id() && alive(pid) {
        said.push(format!(
            "{shown}: a temporary file of a build that is running (process {pid}); left as it is"
        ));
        return Ok(());
    }
    rustix::fs::unlinkat(folder, name, AtFlags::empty())
        .with_context(|| format!("{}: cannot remove", path.display()))?;
    said.push(format!(
        "{shown}: removed a temporary file a build that was stopped left (process {pid} is gone)"
    ));
    Ok(())
}

/// Removes `name` in `folder`, never following it: a folder with everything in it (not
/// entered when it lies on another filesystem), anything else unlinked. A missing name is
/// nothing to do.
fn remove_name(
    folder: BorrowedFd<'_>,
    name: &OsStr,
    path: &Path,
    dev: u64,
    depth: usize,
) -> Result<()> {
    let stat = match rustix::fs::statat(folder, name, AtFlags::SYMLINK_NOFOLLOW) {
        Ok(s) => s,
        Err(rustix::io::Errno::NOENT) => return Ok(()),
        Err(e) => return Err(e).with_context(|| format!("{}: cannot stat", path.display())),
    };
    if FileType::from_raw_mode(stat.st_mode as _) != FileType::Directory {
        return rustix::fs::unlinkat(folder, name, AtFlags::empty())
            .with_context(|| format!("{}: cannot remove", path.display()));
    }
    if depth > 64 {
        bail!(
            "{}: folders nested more than 64 deep; exhibit removes no deeper — remove it yourself and build again",
            path.display()
        );
    }
    let fd = rustix::fs::openat(folder, name, FOLDER, Mode::empty())
        .with_context(|| format!("{}: cannot open as a folder", path.display()))?;
    let stat =
        rustix::fs::fstat(&fd).with_context(|| format!("{}: cannot stat", path.display()))?;
    if stat.st_dev != dev {
        bail!(
            "{}: another filesystem is mounted here; exhibit never crosses into one (docs/build.md#safety)",
            path.display()
        );
    }
    let mut names = Vec::new();
    for entry in rustix::fs::Dir::read_from(&fd)
        .with_context(|| format!("{}: cannot list", path.display()))?
    {
        let entry = entry.with_context(|| format!("{}: cannot list", path.display()))?;
        let bytes = entry.file_name().to_bytes();
        if bytes != b"." && bytes != b".." {
            names.push(bytes.to_vec());
        }
    }
    for n in names {
        let n = OsStr::from_bytes(&n);
        remove_name(fd.as_fd(), n, &path.join(n), dev, depth + 1)?;
    }
    rustix::fs::unlinkat(folder, name, AtFlags::REMOVEDIR)
        .with_context(|| format!("{}: cannot remove", path.display()))
}

/// Writes each file of the tree that DIR does not hold with the same bytes under its temporary
/// name in its own folder (folders made as needed, each opened from its parent's handle), and
/// journals it as new, changed or a head. A file DIR already holds is not touched.
fn write_temps(
    dir: &Path,
    tree: &Tree,
    (mut known, kept): (DirRecords, &mut KeptByRecord),
    pending: &mut Pending,
    made: &Path,
) -> Result<()> {
    use crate::site_write::out_dir::{Unchanged, unchanged};
    let mut folders = OpenFolders::creating(dir)
        .with_context(|| format!("{}: cannot open as a folder", dir.display()))?;
    let pid = std::process::id();
    // A person at a terminal sees how far the write has come (docs/operator.md#progress).
    let mut bar = crate::terminal::progress::Progress::new();
    let total = tree.len() as u64;
    for (n, (rel, content)) in tree.iter().enumerate() {
        bar.tick("write", n as u64, total, || format!("{n} of {total} files"));
        let (rel, content) = (&*rel, &*content);
        let (folder, name) = folder_and_name(rel);
        let cannot = || format!("{}: cannot create", dir.join(folder).display());
        let fd = folders
            .get(folder)
            .with_context(cannot)?
            .with_context(cannot)?;
        let phase = match stat_in(fd, name) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Phase::New,
            Err(e) => {
                return Err(e).with_context(|| format!("{}: cannot stat", dir.join(rel).display()));
            }
            // Looked at once: the record compares the same stat data (docs/scale.md#comparing-without-reading).
            Ok(stat) => match unchanged(&mut known, rel, (fd, name, &stat), content) {
                Unchanged::ByRecord => {
                    kept.keep(n);
                    continue;
                }
                Unchanged::ByReading => continue,
                Unchanged::No => Phase::Changed,
            },
        };
        let phase = if HEADS.contains(&rel) {
            Phase::Head
        } else {
            phase
        };
        let temp = temp_name(name, pid);
        let (len, sha256) = write_temp(fd, &temp, content, made)
            .with_context(|| format!("{}: cannot write", dir.join(folder).join(&temp).display()))?;
        pending.push(&Entry {
            phase,
            rel: rel.as_bytes().to_vec(),
            len,
            sha256,
        })?;
        step();
    }
    Ok(())
}

/// Writes `content` as `temp` in `folder` (a file this build made beside DIR is linked there
/// instead, crate::site_write::staged_files): its size and sha256 as written. A file that cannot be written
/// whole is removed.
fn write_temp(
    folder: BorrowedFd<'_>,
    temp: &str,
    content: &Content,
    made: &Path,
) -> Result<(u64, Digest)> {
    if let Content::File(file) = content
        && let Some(sha256) = file.sha256
        && file.folder.starts_with(made)
        && crate::site_write::out_dir::link_made(file, folder, temp)
    {
        return Ok((file.len, sha256));
    }
    let created = rustix::fs::openat(
        folder,
        temp,
        OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::from_raw_mode(0o666),
    )?;
    let mut file = std::fs::File::from(created);
    let mut hashing = crate::published::output_tree::Hashing::new(&mut file);
    // A file on disk (a store's proof) is read again here and must hold the bytes that were
    // checked; a ledger file is copied from the gate's ledger as it is read, held to the digest
    // verified; a remade file must come out the same (docs/scale.md#nothing-made-to-be-dropped).
    let written = match content {
        Content::Ledger(spans) => spans.write_into(&mut hashing),
        Content::Remade(remade) => remade.write_into(&mut hashing),
        other => other
            .bytes()
            .and_then(|bytes| Ok(hashing.write_all(&bytes)?)),
    };
    let (len, hasher) = (hashing.len, hashing.hasher);
    if let Err(e) = written {
        drop(file);
        let _ = rustix::fs::unlinkat(folder, temp, AtFlags::empty());
        return Err(e);
    }
    Ok((len, Digest(sha2::Digest::finalize(hasher).into())))
}

/// Carries out a journal's plan: its new files, then its changed files, then its heads in
/// [`HEADS`]' order renamed into place, then its removals (a folder emptied by one is removed
/// too). `resuming`: the plan is another process's, so each temporary file is first held to
/// the size and sha256 the journal names (a step done before the stop is recognised by the
/// file in place holding them); a [`CannotFinish`] error when it cannot be.
pub fn carry_out(dir: &Path, journal: &Journal, resuming: bool) -> Result<Done> {
    let mut done = Done::default();
    let mut folders = OpenFolders::existing(dir);
    for phase in [Phase::New, Phase::Changed] {
        journal.each(phase, |e| {
            rename_in(dir, &mut folders, &e, journal.pid, resuming)?;
            done.renamed += 1;
            Ok(())
        })?;
    }
    let mut heads = Vec::new();
    journal.each(Phase::Head, |e| {
        heads.push(e);
        Ok(())
    })?;
    heads.sort_by_key(|e| HEADS.iter().position(|h| h.as_bytes() == e.rel.as_slice()));
    for e in heads {
        rename_in(dir, &mut folders, &e, journal.pid, resuming)?;
        done.renamed += 1;
    }
    journal.each(Phase::Remove, |e| {
        remove_planned(dir, &mut folders, &e.rel)?;
        done.removed += 1;
        Ok(())
    })?;
    Ok(done)
}

fn rename_in(
    dir: &Path,
    folders: &mut OpenFolders,
    e: &Entry,
    pid: u32,
    resuming: bool,
) -> Result<()> {
    let rel = String::from_utf8_lossy(&e.rel).into_owned();
    let (folder, name) = folder_and_name(&rel);
    let path = dir.join(&rel);
    let cannot = |why: &str| anyhow::Error::new(CannotFinish(format!("{}: {why}", path.display())));
    let fd = match folders.get(folder) {
        Ok(Some(fd)) => fd,
        _ => return Err(cannot("its folder is gone or not a real folder")),
    };
    let temp = temp_name(name, pid);
    if resuming {
        match stat_in(fd, &temp) {
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
                if holds(fd, name, e.len, e.sha256) {
                    return Ok(()); // renamed before the stop
                }
                return Err(cannot(
                    "neither its temporary file nor the file in place holds the planned bytes",
                ));
            }
            _ if !holds(fd, &temp, e.len, e.sha256) => {
                return Err(cannot("its temporary file does not hold the planned bytes"));
            }
            _ => {}
        }
    }
    rustix::fs::renameat(fd, &temp, fd, name)
        .with_context(|| format!("{}: cannot rename {temp} into place", path.display()))?;
    step();
    Ok(())
}

/// `name` in `folder` is a regular file (not followed) of `len` bytes whose sha256 is `sha256`.
fn holds(folder: BorrowedFd<'_>, name: &str, len: u64, sha256: Digest) -> bool {
    use std::io::Read;
    let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC;
    let Ok(fd) = rustix::fs::openat(folder, name, flags, Mode::empty()) else {
        return false;
    };
    if !rustix::fs::fstat(&fd).is_ok_and(|s| is_regular(&s) && s.st_size as u64 == len) {
        return false;
    }
    let mut file = std::fs::File::from(fd).take(len.saturating_add(1));
    let mut hasher = <sha2::Sha256 as sha2::Digest>::new();
    let (mut buf, mut read) = (vec![0u8; 1 << 16], 0u64);
    loop {
        match file.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                sha2::Digest::update(&mut hasher, &buf[..n]);
                read += n as u64;
            }
            Err(_) => return false,
        }
    }
    read == len && Digest(sha2::Digest::finalize(hasher).into()) == sha256
}

/// Removes a planned name (gone already: nothing to do), then each folder above it that the
/// removal left empty, up to DIR.
fn remove_planned(dir: &Path, folders: &mut OpenFolders, rel: &[u8]) -> Result<()> {
    let at = rel.iter().rposition(|&b| b == b'/');
    let (folder, name) = match at {
        Some(k) => (&rel[..k], &rel[k + 1..]),
        None => (&b""[..], rel),
    };
    let Ok(folder) = std::str::from_utf8(folder) else {
        return Ok(());
    };
    let name = OsStr::from_bytes(name);
    let path = dir.join(OsStr::from_bytes(rel));
    let dev = match rustix::fs::stat(dir) {
        Ok(s) => s.st_dev,
        Err(e) => return Err(e).with_context(|| format!("{}: cannot stat", dir.display())),
    };
    if let Ok(Some(fd)) = folders.get(folder) {
        remove_name(fd, name, &path, dev, 0)?;
    }
    step();
    let mut folder = folder.to_string();
    while !folder.is_empty() {
        let (parent, last) = folder_and_name(&folder);
        let (parent, last) = (parent.to_string(), last.to_string());
        let emptied = match folders.get(&parent) {
            Ok(Some(fd)) => rustix::fs::unlinkat(fd, last.as_str(), AtFlags::REMOVEDIR).is_ok(),
            _ => false,
        };
        if !emptied {
            break;
        }
        // A handle of the removed folder is not used again.
        *folders = OpenFolders::existing(dir);
        folder = parent;
    }
    Ok(())
}

/// At the start of a build: finishes what an interrupted build's journal for DIR names, and
/// says what was done (docs/build.md#the-journal). A journal that cannot be finished (a
/// temporary file it names is missing or holds other bytes, the journal is damaged) is dropped
/// and said: every file of DIR is the old one or the new one, and this build plans afresh. A
/// dry run finishes nothing and says there is a journal.
pub fn finish_interrupted(dir: &Path, path: &Path, dry_run: bool) -> Result<Option<String>> {
    let shown = crate::terminal::escape(&path.display().to_string()).into_owned();
    let journal = match Journal::open(path) {
        Ok(Some(j)) => j,
        Ok(None) => return Ok(None),
        Err(e) if dry_run => {
            return Ok(Some(format!(
                "{e:#}: a build of this folder was interrupted and its plan cannot be read; a build would drop it and write every file that differs"
            )));
        }
        Err(e) => {
            std::fs::remove_file(path)
                .with_context(|| format!("{}: cannot remove", path.display()))?;
            return Ok(Some(format!(
                "{e:#}; removed it: a build of this folder was interrupted and its plan cannot be read, so this build writes every file that differs"
            )));
        }
    };
    if journal.pid != std::process::id() && alive(journal.pid) {
        bail!(
            "{shown}: a build (process {}) is writing {} now; wait for it to end, then build again",
            journal.pid,
            dir.display()
        );
    }
    if dry_run {
        return Ok(Some(format!(
            "{shown}: a build of this folder was interrupted (process {} is gone); a build would finish what its journal names first",
            journal.pid
        )));
    }
    let pid = journal.pid;
    match carry_out(dir, &journal, true) {
        Ok(done) => {
            sync_filesystem(dir)?;
            journal.remove()?;
            Ok(Some(format!(
                "{shown}: finished a build of this folder that was interrupted (process {} is gone): {} file(s) renamed into place, {} removed",
                pid, done.renamed, done.removed
            )))
        }
        Err(e) if e.downcast_ref::<CannotFinish>().is_some() => {
            journal.remove()?;
            Ok(Some(format!(
                "{shown}: a build of this folder was interrupted and cannot be finished ({e:#}); dropped its journal: this build writes every file that differs"
            )))
        }
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_temporary_name_is_read_back_and_is_never_an_output_path() {
        for name in [
            "STATS.json",
            "index.html",
            "000001.jsonl",
            ".nojekyll",
            "a.b",
        ] {
            let temp = temp_name(name, 4242);
            assert_eq!(temp_of(temp.as_bytes()), Some((name.as_bytes(), 4242)));
            for folder in ["", "ledger/", "ledger/segments/", "ledger/witness/proofs/"] {
                assert!(!crate::published::layout::is_output_path(&format!(
                    "{folder}{temp}"
                )));
            }
        }
        for not in [
            "STATS.json",
            ".exhibit-tmp-1",
            ".a.exhibit-tmp-",
            ".a.exhibit-tmp-1x",
            "a.exhibit-tmp-1",
            ".a.exhibit-tmp-99999999999",
        ] {
            assert_eq!(temp_of(not.as_bytes()), None, "{not}");
        }
    }
}
