//! The write stage's journal (docs/build.md#the-journal): the renames and removals a build
//! plans in DIR, written whole before the first of them and removed after the last, so that a
//! build killed in between is finished by the next one, and `exhibit verify SITE` says that a
//! build was interrupted. It lives in the repository's git folder (never in DIR: it is never
//! published), or beside DIR when DIR lies in no repository.
//!
//! Format, one entry a line, every path as the hex of its bytes (a stray name in DIR may be any
//! bytes): `exhibit-write-journal 1`, `pid <the building process>`, then entries — `N`, `C` or
//! `H` (a new file, a changed file, a head file) with the file's size, its sha256 and its path,
//! renamed into place from its temporary name; `R` and a path, removed — and `end <count>`.

use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use exhibit_protocol::Digest;

const MAGIC: &str = "exhibit-write-journal 1";

/// A journal that cannot be finished: damaged, or naming a temporary file that is missing or
/// holds other bytes than it planned. Every file of DIR is then the old one or the new one, and
/// the build plans afresh (docs/build.md#the-journal).
#[derive(Debug)]
pub struct CannotFinish(pub String);

impl std::fmt::Display for CannotFinish {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for CannotFinish {}

/// What one planned step does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Phase {
    /// A file DIR does not hold yet: renamed into place first.
    New,
    /// A file DIR holds with other bytes (or a name there that is not a file).
    Changed,
    /// `ledger/STATS.json`, `ledger/SNAPSHOTS.jsonl`, `index.html`: renamed last, in that order.
    Head,
    /// A name the build does not produce: removed after the heads.
    Remove,
}

impl Phase {
    fn tag(self) -> &'static str {
        match self {
            Phase::New => "N",
            Phase::Changed => "C",
            Phase::Head => "H",
            Phase::Remove => "R",
        }
    }
}

/// One planned step: a rename of `rel`'s temporary name over `rel` (its size and sha256 as
/// written), or the removal of `rel`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub phase: Phase,
    /// Relative to DIR, `/`-separated; checked on reading to stay inside DIR.
    pub rel: Vec<u8>,
    pub len: u64,
    pub sha256: Digest,
}

/// Where DIR's journal lives: `<git dir>/exhibit/journal-<key>` (the git folder of DIR's own
/// work tree; the key the first 16 hex digits of the sha256 of DIR's path in that work tree),
/// or, outside a repository, `.<DIR name>.exhibit-journal` beside DIR.
pub fn locate(dir: &Path) -> Result<PathBuf> {
    let previous = crate::previous::Previous::open(dir)?;
    if let Some(git_dir) = previous.own_git_dir() {
        let key = Digest::of(previous.shown_prefix().as_bytes()).to_string();
        return Ok(git_dir
            .join("exhibit")
            .join(format!("journal-{}", &key[..16])));
    }
    let parent = match dir.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let name = dir
        .file_name()
        .with_context(|| format!("{}: not a folder name", dir.display()))?;
    Ok(parent.join(format!(".{}.exhibit-journal", name.to_string_lossy())))
}

/// A journal being written: `<journal>.new-<pid>`, put in place by [`Pending::commit`].
pub struct Pending {
    path: PathBuf,
    temporary: PathBuf,
    out: BufWriter<std::fs::File>,
    count: u64,
}

/// `<journal>.new-<pid>`: where process `pid` writes the journal before it is whole.
fn temporary_of(path: &Path, pid: u32) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".new-{pid}"));
    path.with_file_name(name)
}

impl Pending {
    /// Starts the journal at `path` (its folder made as needed); the temporaries of journals a
    /// stopped build left beside it go when it is put in place.
    pub fn create(path: &Path) -> Result<Pending> {
        let folder = path.parent().unwrap_or(Path::new("."));
        std::fs::create_dir_all(folder)
            .with_context(|| format!("{}: cannot create", folder.display()))?;
        let temporary = temporary_of(path, std::process::id());
        let file = std::fs::File::create(&temporary)
            .with_context(|| format!("{}: cannot create", temporary.display()))?;
        let mut pending = Pending {
            path: path.to_path_buf(),
            temporary,
            out: BufWriter::new(file),
            count: 0,
        };
        let header = format!("{MAGIC}\npid {}\n", std::process::id());
        pending.write(header.as_bytes())?;
        Ok(pending)
    }

    fn write(&mut self, bytes: &[u8]) -> Result<()> {
        self.out
            .write_all(bytes)
            .with_context(|| format!("{}: cannot write", self.temporary.display()))
    }

    pub fn push(&mut self, entry: &Entry) -> Result<()> {
        let line = match entry.phase {
            Phase::Remove => format!("R {}\n", hex::encode(&entry.rel)),
            phase => format!(
                "{} {} {} {}\n",
                phase.tag(),
                entry.len,
                entry.sha256,
                hex::encode(&entry.rel)
            ),
        };
        self.count += 1;
        self.write(line.as_bytes())
    }

    /// How many entries were pushed.
    pub fn len(&self) -> u64 {
        self.count
    }

    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// The entries pushed so far, read back (to take back a plan that failed).
    pub fn read_back(&mut self) -> Result<Journal> {
        self.out
            .flush()
            .with_context(|| format!("{}: cannot write", self.temporary.display()))?;
        Ok(Journal {
            path: self.temporary.clone(),
            pid: std::process::id(),
            ended: false,
        })
    }

    /// Ends the journal and puts it in place, synced: from here on it names the plan.
    pub fn commit(mut self) -> Result<Journal> {
        let end = format!("end {}\n", self.count);
        self.write(end.as_bytes())?;
        let file = self
            .out
            .into_inner()
            .map_err(|e| e.into_error())
            .with_context(|| format!("{}: cannot write", self.temporary.display()))?;
        file.sync_all()
            .with_context(|| format!("{}: cannot sync", self.temporary.display()))?;
        std::fs::rename(&self.temporary, &self.path)
            .with_context(|| format!("{}: cannot put in place", self.path.display()))?;
        sync_folder_of(&self.path);
        if let (Some(folder), Some(name)) = (self.path.parent(), self.path.file_name()) {
            let prefix = format!("{}.new-", name.to_string_lossy());
            crate::previous::file_records::remove_left_temporaries_named(folder, &prefix);
        }
        Ok(Journal {
            path: self.path,
            pid: std::process::id(),
            ended: true,
        })
    }

    /// The plan as written so far, where it is written (read once [`Pending::read_back`] or a
    /// failed [`Pending::commit`] flushed it).
    pub fn so_far(&self) -> Journal {
        Journal {
            path: self.temporary.clone(),
            pid: std::process::id(),
            ended: false,
        }
    }

    /// Drops the journal being written.
    pub fn discard(self) {
        let _ = std::fs::remove_file(&self.temporary);
    }
}

/// The folder holding `path` synced, so that a rename or a removal in it is on disk.
fn sync_folder_of(path: &Path) {
    if let Some(folder) = path.parent()
        && let Ok(f) = std::fs::File::open(folder)
    {
        let _ = f.sync_all();
    }
}

/// A journal on disk: read as a stream of entries (a first build at a million lines plans a
/// million renames: never held whole).
#[derive(Debug)]
pub struct Journal {
    pub path: PathBuf,
    /// The process that planned it: its temporary files carry its number.
    pub pid: u32,
    /// Read from its place (its `end` line is required), not a plan being written.
    ended: bool,
}

impl Journal {
    /// The journal at `path`, when there is one; an error when it cannot be read as one.
    pub fn open(path: &Path) -> Result<Option<Journal>> {
        let file = match std::fs::File::open(path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e).with_context(|| format!("{}: cannot read", path.display())),
        };
        let mut lines = BufReader::new(file).lines();
        let mut next = || -> Option<String> { lines.next()?.ok() };
        let pid = match (next(), next()) {
            (Some(magic), Some(pid)) if magic == MAGIC => {
                pid.strip_prefix("pid ").and_then(|p| p.parse::<u32>().ok())
            }
            _ => None,
        };
        let Some(pid) = pid else {
            bail!(
                "{}: not a write journal exhibit wrote (its first lines are not one's)",
                path.display()
            );
        };
        Ok(Some(Journal {
            path: path.to_path_buf(),
            pid,
            ended: true,
        }))
    }

    /// Removes the journal: the plan is carried out.
    pub fn remove(self) -> Result<()> {
        std::fs::remove_file(&self.path)
            .with_context(|| format!("{}: cannot remove", self.path.display()))?;
        sync_folder_of(&self.path);
        Ok(())
    }

    /// Calls `each` with every entry of `phase`, in the journal's order; an error for a line
    /// that is not an entry, a path that could leave DIR, or (for a journal read from its
    /// place) a missing or wrong `end` line.
    pub fn each(&self, phase: Phase, mut each: impl FnMut(Entry) -> Result<()>) -> Result<()> {
        let file = std::fs::File::open(&self.path)
            .with_context(|| format!("{}: cannot read", self.path.display()))?;
        let mut count = 0u64;
        let mut ended = false;
        for (n, line) in BufReader::new(file).lines().enumerate().skip(2) {
            let line = line.with_context(|| format!("{}: cannot read", self.path.display()))?;
            let bad = || {
                anyhow::Error::new(CannotFinish(format!(
                    "{}: line {}: not a journal entry",
                    self.path.display(),
                    n + 1
                )))
            };
            if ended {
                return Err(bad());
            }
            if let Some(total) = line.strip_prefix("end ") {
                if total.parse::<u64>().ok() != Some(count) {
                    return Err(bad());
                }
                ended = true;
                continue;
            }
            let entry = parse(&line).ok_or_else(bad)?;
            count += 1;
            if entry.phase == phase {
                each(entry)?;
            }
        }
        if self.ended && !ended {
            return Err(anyhow::Error::new(CannotFinish(format!(
                "{}: ends before its last line (cut short): not a whole plan",
                self.path.display()
            ))));
        }
        Ok(())
    }
}

/// One entry line, its path checked: relative, no empty, `.` or `..` part (it stays inside DIR);
/// a file renamed into place is named in UTF-8, as every path of the tree is.
fn parse(line: &str) -> Option<Entry> {
    let mut parts = line.split(' ');
    let tag = parts.next()?;
    let phase = [Phase::New, Phase::Changed, Phase::Head, Phase::Remove]
        .into_iter()
        .find(|p| p.tag() == tag)?;
    let (len, sha256) = if phase == Phase::Remove {
        (0, Digest([0; 32]))
    } else {
        let len = parts.next()?.parse().ok()?;
        let sha256 = parts.next()?.parse().ok()?;
        (len, sha256)
    };
    let rel = hex::decode(parts.next()?).ok()?;
    if parts.next().is_some()
        || rel
            .split(|&b| b == b'/')
            .any(|p| p.is_empty() || p == b"." || p == b"..")
    {
        return None;
    }
    if phase != Phase::Remove && std::str::from_utf8(&rel).is_err() {
        return None;
    }
    Some(Entry {
        phase,
        rel,
        len,
        sha256,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_journal_reads_back_what_was_pushed_phase_by_phase_and_refuses_what_is_not_one() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("git/exhibit/journal-x");
        let mut pending = Pending::create(&path).unwrap();
        let entries = [
            Entry {
                phase: Phase::New,
                rel: b"ledger/segments/000002.jsonl".to_vec(),
                len: 5,
                sha256: Digest::of(b"12345"),
            },
            Entry {
                phase: Phase::Remove,
                rel: b"stray\n\xff".to_vec(),
                len: 0,
                sha256: Digest([0; 32]),
            },
            Entry {
                phase: Phase::Head,
                rel: b"index.html".to_vec(),
                len: 1,
                sha256: Digest::of(b"x"),
            },
        ];
        for e in &entries {
            pending.push(e).unwrap();
        }
        assert!(!path.exists(), "not in place before it is whole");
        let journal = pending.commit().unwrap();
        let reopened = Journal::open(&path).unwrap().unwrap();
        assert_eq!(reopened.pid, std::process::id());
        for phase in [Phase::New, Phase::Head, Phase::Remove] {
            let mut got = Vec::new();
            reopened
                .each(phase, |e| {
                    got.push(e);
                    Ok(())
                })
                .unwrap();
            let want: Vec<Entry> = entries
                .iter()
                .filter(|e| e.phase == phase)
                .cloned()
                .collect();
            assert_eq!(got, want, "{phase:?}");
        }
        journal.remove().unwrap();
        assert!(Journal::open(&path).unwrap().is_none());

        // Cut short, a path out of DIR, a renamed file not named in UTF-8: refused.
        let whole = |body: &str| format!("{MAGIC}\npid 7\n{body}");
        for body in [
            format!("N 1 {} {}\n", Digest::of(b"x"), hex::encode(b"index.html")),
            format!("R {}\nend 1\n", hex::encode(b"../outside")),
            format!("R {}\nend 1\n", hex::encode(b"/etc")),
            format!(
                "N 1 {} {}\nend 1\n",
                Digest::of(b"x"),
                hex::encode(b"a/\xff")
            ),
            "R zz\nend 1\n".to_string(),
            "end 3\n".to_string(),
        ] {
            std::fs::write(&path, whole(&body)).unwrap();
            let j = Journal::open(&path).unwrap().unwrap();
            let all = [Phase::New, Phase::Changed, Phase::Head, Phase::Remove];
            assert!(
                all.iter().any(|p| j.each(*p, |_| Ok(())).is_err()),
                "{body}"
            );
        }
        std::fs::write(&path, "hello\n").unwrap();
        assert!(Journal::open(&path).is_err());
    }
}
