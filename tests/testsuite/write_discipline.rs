//! Issue 43, how a build writes DIR (docs/build.md#the-write): every file whole under a temporary
//! name in its own folder, renamed into place; an unchanged file untouched; new files, then
//! changed files, then the heads; a journal in the git folder that the next build finishes. A
//! segmented exhibit (`segment_bytes = 4096`) in a temporary repository, driven through the
//! binary; kills come from the test aid `EXHIBIT_TEST_STOP_AFTER_WRITES`, which aborts the
//! process after that many steps of the write stage.

use std::collections::BTreeMap;
use std::os::unix::fs::MetadataExt;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::common::*;

struct Scene {
    tmp: tempfile::TempDir,
    b: TestBox,
    repo: git2::Repository,
    site: PathBuf,
    w: LedgerWriter,
}

fn scene() -> Scene {
    let tmp = tempfile::tempdir().unwrap();
    let b = TestBox::new(tmp.path());
    let repo = git2::Repository::init(tmp.path().join("exhibit")).unwrap();
    let site = tmp.path().join("exhibit/site");
    std::fs::write(
        b.dir.join("exhibit.toml"),
        "[gate]\nledger = \"gate/ledger.jsonl\"\nanchors = \"gate/anchors\"\n\n[publish]\nsegment_bytes = 4096\n",
    )
    .unwrap();
    Scene {
        tmp,
        b,
        repo,
        site,
        w: LedgerWriter::new(),
    }
}

impl Scene {
    fn append(&mut self, n: u32) {
        append_scans(&self.b, &mut self.w, n);
    }

    /// `exhibit build`, with `EXHIBIT_TEST_STOP_AFTER_WRITES=stop` when given.
    fn build(&self, stop: Option<u64>) -> Output {
        let mut c = Command::new(env!("CARGO_BIN_EXE_exhibit"));
        c.args(["build", "--config", &self.b.config(), "--out"])
            .arg(&self.site)
            .env("SOURCE_DATE_EPOCH", "1800000000")
            .env_remove("CI");
        if let Some(n) = stop {
            c.env("EXHIBIT_TEST_STOP_AFTER_WRITES", n.to_string());
        }
        c.output().unwrap()
    }

    fn build_ok(&self) -> Output {
        let o = self.build(None);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o));
        o
    }

    /// The journals in the repository's git folder (none once a build is done).
    fn journals(&self) -> Vec<PathBuf> {
        let folder = self.tmp.path().join("exhibit/.git/exhibit");
        let Ok(entries) = std::fs::read_dir(folder) else {
            return Vec::new();
        };
        entries
            .map(|e| e.unwrap().path())
            .filter(|p| {
                let n = p.file_name().unwrap().to_string_lossy().into_owned();
                n.starts_with("journal-") && !n.contains(".new-")
            })
            .collect()
    }
}

/// Every regular file under `dir` (relative path → bytes); no symlink is followed.
fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    walkdir::WalkDir::new(dir)
        .follow_links(false)
        .into_iter()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            let rel = e.path().strip_prefix(dir).unwrap().display().to_string();
            (rel, std::fs::read(e.path()).unwrap())
        })
        .collect()
}

/// `rel`'s last name is a temporary name of the write stage.
fn is_temp(rel: &str) -> bool {
    let name = rel.rsplit('/').next().unwrap();
    name.starts_with('.') && name.contains(".exhibit-tmp-")
}

/// DIR emptied and filled with `want` (new inodes: DIR's record no longer describes a file).
fn restore(dir: &Path, want: &BTreeMap<String, Vec<u8>>) {
    std::fs::remove_dir_all(dir).unwrap();
    for (rel, bytes) in want {
        let path = dir.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
    }
}

/// What a kill left, as the test saw it.
#[derive(Debug, Default)]
struct Seen {
    with_journal: usize,
    temporaries_only: usize,
    heads_mixed: usize,
}

const HEADS: [&str; 3] = ["ledger/STATS.json", "ledger/SNAPSHOTS.jsonl", "index.html"];

/// One kill after `stop` steps: no half-written file, `verify SITE` says the old or the new
/// publication or names the journal (or the leftover), and the next build finishes the
/// publication byte for byte. `false` when the build ran to its end (no step `stop`).
fn kill_and_finish(
    s: &Scene,
    stop: u64,
    old: &BTreeMap<String, Vec<u8>>,
    new: &BTreeMap<String, Vec<u8>>,
    seen: &mut Seen,
) -> bool {
    restore(&s.site, old);
    let o = s.build(Some(stop));
    if o.status.code() == Some(0) {
        return false;
    }
    assert_eq!(o.status.signal(), Some(6), "step {stop}: {}", text(&o));
    let left = files(&s.site);
    let mut temporaries = Vec::new();
    for (rel, bytes) in &left {
        if is_temp(rel) {
            temporaries.push(rel.clone());
            continue;
        }
        assert!(
            old.get(rel) == Some(bytes) || new.get(rel) == Some(bytes),
            "step {stop}: {rel} is neither the old file nor the new one"
        );
    }
    let journal = !s.journals().is_empty();
    let (code, v) = verify_json(&s.site);
    let problems = file_problems(&v);
    if journal {
        seen.with_journal += 1;
        assert_eq!(code, Some(1), "step {stop}: {v}");
        assert!(
            problems.iter().any(|(_, c)| c == "build_interrupted"),
            "step {stop}: the journal is named: {v}"
        );
        let heads_new = HEADS
            .iter()
            .filter(|h| left.get(**h) == new.get(**h) && old.get(**h) != new.get(**h))
            .count();
        if heads_new > 0 {
            seen.heads_mixed += 1;
        }
    } else {
        // No journal: DIR is the old publication or the new one, plus temporary files that
        // verify names as an interrupted build's.
        let published: BTreeMap<String, Vec<u8>> = left
            .iter()
            .filter(|(rel, _)| !is_temp(rel))
            .map(|(r, b)| (r.clone(), b.clone()))
            .collect();
        assert!(&published == old || &published == new, "step {stop}");
        if temporaries.is_empty() {
            assert_eq!(code, Some(0), "step {stop}: {v}");
        } else {
            seen.temporaries_only += 1;
            assert!(
                problems.iter().all(|(f, _)| is_temp(f)),
                "step {stop}: only the leftovers are named: {v}"
            );
            assert!(
                problems.iter().any(|(_, c)| c == "build_leftover"),
                "step {stop}: {v}"
            );
        }
    }
    let o = s.build_ok();
    let err = String::from_utf8_lossy(&o.stderr);
    if journal {
        assert!(
            err.contains("finished a build of this folder that was interrupted"),
            "step {stop}: {err}"
        );
    }
    if !temporaries.is_empty() && !journal {
        assert!(
            err.contains("removed a temporary file"),
            "step {stop}: {err}"
        );
    }
    assert!(s.journals().is_empty(), "step {stop}");
    assert!(
        files(&s.site) == *new,
        "step {stop}: finished as a clean build"
    );
    true
}

#[test]
fn a_build_killed_at_any_step_leaves_old_or_new_files_and_the_next_build_finishes_it() {
    // Catches a file written in place (a kill leaves it half-written, neither old nor new), a
    // rename before the journal is whole (a kill leaves a mix no one names), heads renamed
    // before the files they describe, a journal the next build does not finish, and temporary
    // files that outlive the next build.
    let mut s = scene();
    s.append(50);
    s.build_ok();
    commit_all(&s.repo, "first publication");
    // A name the build does not produce: removed after the heads.
    std::fs::write(s.site.join("notes.txt"), b"mine").unwrap();
    let old = files(&s.site);
    s.append(25);
    s.build_ok();
    let new = files(&s.site);
    assert!(!new.contains_key("notes.txt"));
    let mut seen = Seen::default();
    let mut stop = 1;
    while kill_and_finish(&s, stop, &old, &new, &mut seen) {
        stop += 1;
        assert!(stop < 200, "the build never ran to its end");
    }
    assert!(stop > 8, "too few steps: {stop}");
    assert!(seen.with_journal >= 3, "{seen:?}");
    assert!(seen.temporaries_only >= 3, "{seen:?}");
    assert!(seen.heads_mixed >= 1, "a kill between the heads: {seen:?}");
}

/// Each name under `dir` (folders too) with its inode, mtime and ctime: any write, new name,
/// removal or rename in a folder moves the folder's times.
fn stamps(dir: &Path) -> BTreeMap<String, (u64, i64, i64, i64, i64)> {
    walkdir::WalkDir::new(dir)
        .follow_links(false)
        .into_iter()
        .map(|e| e.unwrap())
        .map(|e| {
            let m = std::fs::symlink_metadata(e.path()).unwrap();
            let rel = e.path().strip_prefix(dir).unwrap().display().to_string();
            (
                rel,
                (
                    m.ino(),
                    m.mtime(),
                    m.mtime_nsec(),
                    m.ctime(),
                    m.ctime_nsec(),
                ),
            )
        })
        .collect()
}

#[test]
fn a_daily_build_touches_only_what_changed_and_a_rebuild_with_nothing_new_touches_nothing() {
    // Catches a build that rewrites or relinks an unchanged file (its inode or ctime moves),
    // writes and removes a temporary file it did not need (its folder's times move), or leaves
    // a temporary file behind.
    let mut s = scene();
    s.append(50);
    s.build_ok();
    commit_all(&s.repo, "first publication");
    std::thread::sleep(std::time::Duration::from_millis(30));
    let before = stamps(&s.site);
    s.build_ok();
    assert_eq!(stamps(&s.site), before, "a rebuild with nothing new");

    let old = files(&s.site);
    s.append(25);
    s.build_ok();
    let new = files(&s.site);
    let after = stamps(&s.site);
    let mut kept = 0;
    for (rel, bytes) in &new {
        assert!(!is_temp(rel), "{rel}");
        match old.get(rel) {
            Some(b) if b == bytes => {
                assert_eq!(after[rel], before[rel], "{rel}: unchanged, untouched");
                kept += 1;
            }
            Some(_) => assert_ne!(after[rel].0, before[rel].0, "{rel}: renamed in"),
            None => {}
        }
    }
    assert!(
        before.contains_key("ledger/segments/000001.jsonl")
            && after["ledger/segments/000001.jsonl"] == before["ledger/segments/000001.jsonl"],
        "a full segment is not touched"
    );
    assert!(kept >= 3, "{kept}");
    let (code, v) = verify_json(&s.site);
    assert_eq!(code, Some(0), "{v}");
}

#[test]
fn temporary_files_a_stopped_build_left_are_named_by_verify_and_removed_by_the_next_build() {
    // Catches leftovers verify calls something else (or passes), a build that leaves them
    // (git add would publish them), one that follows a symlink named like one, one that
    // removes a running build's, and a damaged journal that stops every later build.
    let mut s = scene();
    s.append(30);
    s.build_ok();
    commit_all(&s.repo, "first publication");
    let dead = [
        s.site.join("ledger/.STATS.json.exhibit-tmp-999999999"),
        s.site.join(".index.html.exhibit-tmp-999999998"),
    ];
    for p in &dead {
        std::fs::write(p, b"half a fi").unwrap();
    }
    let theirs = s.tmp.path().join("theirs.txt");
    std::fs::write(&theirs, b"theirs").unwrap();
    let link = s.site.join("ledger/.x.exhibit-tmp-999999997");
    std::os::unix::fs::symlink(&theirs, &link).unwrap();
    let running = s
        .site
        .join(format!(".index.html.exhibit-tmp-{}", std::process::id()));
    std::fs::write(&running, b"being written").unwrap();

    let (code, v) = verify_json(&s.site);
    assert_eq!(code, Some(1), "{v}");
    let named: Vec<String> = file_problems(&v)
        .into_iter()
        .filter(|(_, c)| c == "build_leftover")
        .map(|(f, _)| f)
        .collect();
    for p in dead.iter().chain([&running]) {
        let rel = p.strip_prefix(&s.site).unwrap().display().to_string();
        assert!(named.contains(&rel), "{rel}: {v}");
    }

    let o = s.build_ok();
    let err = String::from_utf8_lossy(&o.stderr);
    for p in &dead {
        assert!(!p.exists(), "{}", p.display());
        assert!(err.contains(&p.display().to_string()), "said: {err}");
    }
    assert!(err.contains("removed a temporary file"), "{err}");
    assert!(
        std::fs::symlink_metadata(&link).is_err(),
        "the symlink is removed"
    );
    assert_eq!(std::fs::read(&theirs).unwrap(), b"theirs", "not followed");
    assert!(running.exists(), "a running build's is left");
    assert!(err.contains("a build that is running"), "{err}");
    std::fs::remove_file(&running).unwrap();
    let (code, v) = verify_json(&s.site);
    assert_eq!(code, Some(0), "{v}");

    // A journal that is not one: said, dropped, and the build writes what differs.
    s.append(10);
    let journal = exhibit::site_write::journal::locate(&s.site).unwrap();
    std::fs::create_dir_all(journal.parent().unwrap()).unwrap();
    std::fs::write(&journal, b"exhibit-write-journal 1\npid 999999999\nN zz\n").unwrap();
    let (code, v) = verify_json(&s.site);
    assert_eq!(code, Some(1), "{v}");
    assert!(
        file_problems(&v)
            .iter()
            .any(|(f, c)| c == "build_interrupted" && *f == journal.display().to_string()),
        "{v}"
    );
    let o = s.build_ok();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("cannot be finished"), "{err}");
    assert!(!journal.exists());
    let (code, v) = verify_json(&s.site);
    assert_eq!(code, Some(0), "{v}");
}
