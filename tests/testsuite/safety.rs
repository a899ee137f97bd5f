//! Issue 9: `exhibit build` never harms its operator, and nothing reaches the site through a side
//! door. A corpus of hostile boxes, folders and repositories, built by code in temporary folders
//! (nothing binary is checked in), each driven through the binary: the attack fails, the refusal
//! names the file and the rule, and the temporary root — DIR and everything beside it, symlinks
//! included — is byte-identical afterwards. Every run's exit status is 0, 1 or 2.

use exhibit_protocol::Digest;
use std::collections::BTreeMap;
use std::io::Read;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::common::*;
use serde_json::{Value as J, json};

const EPOCH: u64 = 1_800_000_000;
const MAGIC: &[u8; 31] = b"\x00OpenTimestamps\x00\x00Proof\x00\xbf\x89\xe2\xe8\x84\xe8\x92\x94";
const PENDING: &[u8] =
    b"\x00\x83\xdf\xe3\x0d\x2e\xf9\x0c\x8e\x2e\x2dhttps://alice.btc.calendar.opentimestamps.org";
const PREREG: &str = "# Witness kill gate\n\nThree bars, read at the close of day 9.\n";
const SECRET: &str = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n";
/// The withheld line's moment: 23:04:05 on 2026-10-24 in the anchor zone (New York), already
/// 2026-10-25 in UTC — the two day cuts disagree.
const WITHHELD_TS: &str = "2026-10-25T03:04:05Z";

// ---- the corpus ---------------------------------------------------------------------------------

/// A temporary root holding `box/` (exhibit.toml, gate/ledger.jsonl, gate/anchors/, store/) and
/// `exhibit/` (a git repository whose `site/` is DIR).
struct Hostile {
    tmp: tempfile::TempDir,
    b: TestBox,
    ids: Vec<String>,
    timestamps: Vec<String>,
    repo: git2::Repository,
}

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

fn proof(digest: &str) -> Vec<u8> {
    let mut b = MAGIC.to_vec();
    b.extend_from_slice(&[0x01, 0x08]);
    b.extend_from_slice(&unhex(digest));
    b.extend_from_slice(PENDING);
    b
}

fn plus(ts: &str, secs: i64) -> String {
    exhibit::published::encode::timestamp_of(
        exhibit_protocol::days::parse_timestamp(ts).unwrap() + secs,
    )
}

impl Hostile {
    /// Seqs 1–3 published scans, seq 4 withheld (a home path) at `WITHHELD_TS`, seq 5 a scan.
    fn new() -> Hostile {
        let tmp = tempfile::tempdir().unwrap();
        let b = TestBox::new(tmp.path());
        let mut w = LedgerWriter::new();
        let mut timestamps = Vec::new();
        for n in 1..=3 {
            w.push_scan(n);
            timestamps.push(exhibit::published::encode::timestamp_of(
                1_792_846_800 + i64::from(n) * 60,
            ));
        }
        w.push(
            "gate_not_wired",
            WITHHELD_TS,
            r#"{"detail":"lock held by /home/agent"}"#,
        );
        timestamps.push(WITHHELD_TS.to_string());
        w.push(
            "exec_scan",
            "2026-10-25T05:00:00Z",
            r#"{"scanned":5,"flagged":0}"#,
        );
        timestamps.push("2026-10-25T05:00:00Z".to_string());
        b.write_ledger(&w.bytes());
        let repo = git2::Repository::init(tmp.path().join("exhibit")).unwrap();
        let h = Hostile {
            tmp,
            b,
            ids: w.ids.clone(),
            timestamps,
            repo,
        };
        h.write_store();
        h
    }

    fn root(&self) -> &Path {
        self.tmp.path()
    }
    fn site(&self) -> PathBuf {
        self.root().join("exhibit/site")
    }
    fn store(&self) -> PathBuf {
        self.b.dir.join("store")
    }

    /// A witness store the build accepts: every chain line pending, a sealed preregistration.
    fn write_store(&self) {
        let store = self.store();
        std::fs::create_dir_all(store.join("proofs")).unwrap();
        let prereg_sha = Digest::of(PREREG.as_bytes()).to_string();
        let mut entries = serde_json::Map::new();
        for (i, id) in self.ids.iter().enumerate() {
            let ts = &self.timestamps[i];
            entries.insert(
                id.clone(),
                json!({
                    "seq": i + 1,
                    "status": "pending",
                    "calendars": ["https://alice.btc.calendar.opentimestamps.org"],
                    "line_timestamp": ts,
                    "seen_at": plus(ts, 60),
                    "stamped_at": plus(ts, 65),
                }),
            );
            std::fs::write(store.join(format!("proofs/{id}.ots")), proof(id)).unwrap();
        }
        let index = json!({"entries": entries, "prereg": {"sha256": prereg_sha}});
        std::fs::write(
            store.join("index.json"),
            serde_json::to_vec_pretty(&index).unwrap(),
        )
        .unwrap();
        std::fs::write(
            store.join(format!("proofs/prereg_{prereg_sha}.ots")),
            proof(&prereg_sha),
        )
        .unwrap();
        std::fs::write(store.join("WITNESS_PREREG.md"), PREREG).unwrap();
        std::fs::write(
            store.join("seal.jsonl"),
            format!(
                "{{\"file\":\"WITNESS_PREREG.md\",\"sha256\":\"{prereg_sha}\",\"sealed_at\":\"2026-10-24T12:00:00Z\"}}\n"
            ),
        )
        .unwrap();
        std::fs::write(
            store.join("runs.jsonl"),
            "{\"run_at\":\"2026-10-25T06:00:00Z\",\"lines_seen\":5}\n",
        )
        .unwrap();
        std::fs::write(
            store.join("REPORT.md"),
            "# Witness report\n\nFive lines seen; all pending.\n",
        )
        .unwrap();
    }

    fn patch_index(&self, f: impl FnOnce(&mut J)) {
        let path = self.store().join("index.json");
        let mut v: J = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        f(&mut v);
        std::fs::write(&path, serde_json::to_vec_pretty(&v).unwrap()).unwrap();
    }

    fn build(&self, extra: &[&str]) -> Output {
        let config = self.b.config();
        let site = self.site().display().to_string();
        let mut args = vec!["build", "--config", &config, "--out", &site];
        args.extend_from_slice(extra);
        run(&args)
    }

    fn build_witness(&self, extra: &[&str]) -> Output {
        let store = self.store().display().to_string();
        let mut args = vec!["--witness", store.as_str()];
        args.extend_from_slice(extra);
        self.build(&args)
    }

    /// A first publication, committed.
    fn publish(&self, extra: &[&str]) {
        let o = self.build(extra);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o));
        commit_site(&self.repo);
    }
}

fn run(args: &[&str]) -> Output {
    let o = exhibit(args, EPOCH);
    assert_exit_in_range(&o);
    o
}

fn assert_exit_in_range(o: &Output) {
    assert!(
        matches!(o.status.code(), Some(0..=2)),
        "exit status must be 0, 1 or 2: {:?}\n{}",
        o.status,
        text(o)
    );
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// One entry of a folder as `ls -l` would tell it, without following any symlink.
#[derive(Debug, PartialEq, Eq)]
enum Node {
    Dir,
    File(Vec<u8>),
    Link(PathBuf),
    Other,
}

/// Every entry under `root` (the root itself included), symlinks as their targets.
fn state(root: &Path) -> BTreeMap<PathBuf, Node> {
    let mut out = BTreeMap::new();
    for entry in walkdir::WalkDir::new(root).follow_links(false) {
        let entry = entry.unwrap();
        let meta = std::fs::symlink_metadata(entry.path()).unwrap();
        let node = if meta.file_type().is_symlink() {
            Node::Link(std::fs::read_link(entry.path()).unwrap())
        } else if meta.is_dir() {
            Node::Dir
        } else if meta.is_file() {
            Node::File(std::fs::read(entry.path()).unwrap())
        } else {
            Node::Other
        };
        out.insert(entry.path().to_path_buf(), node);
    }
    out
}

fn assert_same(before: &BTreeMap<PathBuf, Node>, after: &BTreeMap<PathBuf, Node>, o: &Output) {
    if before != after {
        let changed: Vec<_> = before
            .keys()
            .chain(after.keys())
            .filter(|k| before.get(*k) != after.get(*k))
            .take(10)
            .collect();
        panic!(
            "the refused build changed the folder (first differences: {changed:?})\n{}",
            text(o)
        );
    }
}

fn refused_untouched(h: &Hostile, o: &Output, before: &BTreeMap<PathBuf, Node>, code: i32) {
    assert_eq!(o.status.code(), Some(code), "{}", text(o));
    assert_same(before, &state(h.root()), o);
}

// ---- 1. DIR is exhibit's only when exhibit made it -----------------------------------------------

fn refuses_out(h: &Hostile, out: &Path, extra: &[&str], names: &[&str]) {
    let before = state(h.root());
    for dry in [true, false] {
        let config = h.b.config();
        let out_s = out.display().to_string();
        let mut args = vec!["build", "--config", &config, "--out", &out_s];
        args.extend_from_slice(extra);
        if dry {
            args.push("--dry-run");
        }
        let o = run(&args);
        assert_eq!(o.status.code(), Some(2), "--out {out_s}: {}", text(&o));
        let err = stderr(&o);
        assert!(err.contains(&out_s), "names DIR: {err}");
        for n in names {
            assert!(err.contains(n), "names {n:?}: {err}");
        }
        assert_same(&before, &state(h.root()), &o);
    }
}

#[test]
fn dir_that_exhibit_did_not_make_is_refused() {
    let h = Hostile::new();
    let store = h.store().display().to_string();

    // A folder of the user's own files: named with a sample of what is in it.
    let mine = h.root().join("documents");
    std::fs::create_dir_all(mine.join("taxes")).unwrap();
    std::fs::write(mine.join("thesis.tex"), "my thesis").unwrap();
    std::fs::write(mine.join("taxes/2025.pdf"), "pdf").unwrap();
    refuses_out(&h, &mine, &[], &["thesis.tex"]);

    // The box itself, and the pieces of it.
    refuses_out(&h, &h.b.dir, &[], &["box"]);
    refuses_out(&h, &h.b.dir.join("gate"), &[], &[]);
    refuses_out(&h, &h.b.dir.join("gate/anchors"), &[], &[]);
    refuses_out(&h, &h.b.dir.join("gate/anchors/site"), &[], &[]);
    refuses_out(&h, &h.store(), &["--witness", &store], &[]);
    refuses_out(&h, &h.store().join("site"), &["--witness", &store], &[]);
    refuses_out(&h, h.root(), &[], &[]);

    // A repository's root, its .git, a folder inside .git, a folder holding repositories.
    refuses_out(&h, &h.root().join("exhibit"), &[], &[".git"]);
    refuses_out(&h, &h.root().join("exhibit/.git"), &[], &[".git"]);
    refuses_out(&h, &h.root().join("exhibit/.git/site"), &[], &[".git"]);
    let projects = h.root().join("projects");
    git2::Repository::init(projects.join("one")).unwrap();
    git2::Repository::init(projects.join("two")).unwrap();
    refuses_out(&h, &projects, &[], &[]);

    // A symlink, even to an empty folder.
    let empty = h.root().join("empty");
    std::fs::create_dir(&empty).unwrap();
    symlink(&empty, h.root().join("exhibit/site")).unwrap();
    refuses_out(&h, &h.site(), &[], &["symlink"]);
    std::fs::remove_file(h.site()).unwrap();

    // A regular file.
    std::fs::write(h.root().join("exhibit/site"), "notes").unwrap();
    refuses_out(&h, &h.site(), &[], &[]);
    std::fs::remove_file(h.site()).unwrap();

    // An exhibit DIR holding a repository of its own.
    h.publish(&[]);
    git2::Repository::init(h.site().join("ledger/nested")).unwrap();
    refuses_out(&h, &h.site(), &[], &[".git"]);
}

#[test]
fn dir_that_is_absent_empty_or_exhibits_own_is_written() {
    let h = Hostile::new();
    // Absent.
    h.publish(&[]);
    // Exhibit's own (a valid ledger/SNAPSHOTS.jsonl): rebuilt in place.
    let o = h.build(&[]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    // Empty.
    let empty = h.root().join("exhibit/fresh");
    std::fs::create_dir(&empty).unwrap();
    let config = h.b.config();
    let out = empty.display().to_string();
    // A second folder of a repository that holds a publication: meant, so said (issue 47).
    let o = run(&[
        "build",
        "--config",
        &config,
        "--out",
        &out,
        "--first-publication",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(empty.join("ledger/SNAPSHOTS.jsonl").is_file());
    // A SNAPSHOTS.jsonl that is not exhibit's (not JSON lines of snapshots) does not make a folder
    // exhibit's.
    let fake = h.root().join("exhibit/fake");
    std::fs::create_dir_all(fake.join("ledger")).unwrap();
    std::fs::write(fake.join("ledger/SNAPSHOTS.jsonl"), "hello\n").unwrap();
    std::fs::write(fake.join("diary.txt"), "dear diary").unwrap();
    let before = state(h.root());
    let out = fake.display().to_string();
    let o = run(&["build", "--config", &config, "--out", &out]);
    refused_untouched(&h, &o, &before, 2);
}

// ---- 9. The write: every file renamed into place from a temporary name; leftovers are exhibit's to remove

#[test]
fn leftovers_of_a_killed_build_are_removed_and_only_those() {
    let h = Hostile::new();
    h.publish(&[]);
    let parent = h.root().join("exhibit");
    // A killed build's temporary file in DIR (pid 999999999 runs nowhere): exhibit's own.
    let dead_temp = h.site().join("ledger/.STATS.json.exhibit-tmp-999999999");
    std::fs::write(&dead_temp, "{\"half\": ").unwrap();
    // A killed build's folder of made files (docs/scale.md#made-as-written), its marker inside.
    let dead_made = parent.join(".site.exhibit-made-999999996");
    std::fs::create_dir_all(dead_made.join("ledger/public_texts")).unwrap();
    std::fs::write(dead_made.join(".exhibit-temporary"), "exhibit's\n").unwrap();
    std::fs::write(dead_made.join("ledger/public_texts/a.txt"), "a text").unwrap();
    // One named so whose process is gone but that holds no marker: the user's. Left, and said.
    let made_lookalike = parent.join(".site.exhibit-made-999999995");
    std::fs::create_dir_all(&made_lookalike).unwrap();
    std::fs::write(made_lookalike.join("mine.txt"), "mine").unwrap();
    // The staging trees of the swap exhibit no longer makes are not exhibit's to remove now.
    let old_staging = parent.join(".site.exhibit-new-999999999");
    std::fs::create_dir_all(old_staging.join("ledger")).unwrap();
    // A live build's folder of made files (this test's own pid is alive): left alone.
    let live = parent.join(format!(".site.exhibit-made-{}", std::process::id()));
    std::fs::create_dir_all(live.join("ledger")).unwrap();

    let o = h.build(&[]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let err = stderr(&o);
    assert!(!dead_temp.exists() && !dead_made.exists(), "{err}");
    assert!(
        err.contains(".STATS.json.exhibit-tmp-999999999"),
        "said: {err}"
    );
    assert!(err.contains(".site.exhibit-made-999999996"), "said: {err}");
    assert!(made_lookalike.join("mine.txt").is_file(), "{err}");
    assert!(err.contains(".site.exhibit-made-999999995"), "said: {err}");
    assert!(old_staging.is_dir() && live.is_dir(), "{err}");
    // The build itself leaves nothing beside DIR but what was there, and no temporary in DIR.
    let names: Vec<String> = std::fs::read_dir(&parent)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("exhibit-"))
        .collect();
    assert_eq!(names.len(), 3, "{names:?}");
    let temps: Vec<_> = walkdir::WalkDir::new(h.site())
        .into_iter()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".exhibit-tmp-"))
        .collect();
    assert!(temps.is_empty(), "{temps:?}");
}

#[test]
fn every_file_is_renamed_into_place_from_its_temporary_name_new_first_heads_last() {
    // The build's renames, as the kernel saw them (strace -y names each folder handle's path):
    // each file of DIR is renamed from `.<name>.exhibit-tmp-<pid>` in its own folder onto its
    // name; DIR itself is never renamed (nor exchanged); files new to DIR come before changed
    // ones, and the heads last, STATS.json, SNAPSHOTS.jsonl, then the page. Catches a file
    // written in place, a rename across folders, and heads put in place before what they
    // describe.
    let h = Hostile::new();
    h.publish(&[]);
    // A file of DIR edited since: the build puts its bytes back (a changed file).
    let edited = h.site().join("ledger/withheld.json");
    let mut bytes = std::fs::read(&edited).unwrap();
    bytes.extend_from_slice(b" ");
    std::fs::write(&edited, bytes).unwrap();
    let before: std::collections::BTreeSet<String> = walkdir::WalkDir::new(h.site())
        .into_iter()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            e.path()
                .strip_prefix(h.site())
                .unwrap()
                .display()
                .to_string()
        })
        .collect();
    let trace = h.root().join("trace.txt");
    let store = h.store().display().to_string();
    let o = Command::new("strace")
        .args(["-f", "-y", "-e", "trace=rename,renameat,renameat2", "-o"])
        .arg(&trace)
        .arg(env!("CARGO_BIN_EXE_exhibit"))
        .args(["build", "--config", &h.b.config(), "--out"])
        .arg(h.site())
        .args(["--witness", &store])
        .env("SOURCE_DATE_EPOCH", (EPOCH + 1).to_string())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let calls = std::fs::read_to_string(&trace).unwrap();
    let site = std::fs::canonicalize(h.site())
        .unwrap()
        .display()
        .to_string();
    let mut into_dir = Vec::new();
    for l in calls.lines().filter(|l| l.contains("rename")) {
        assert!(!l.contains(&format!("\"{site}\"")), "DIR renamed: {l}");
        assert!(!l.contains("RENAME_EXCHANGE"), "{l}");
        // renameat(5</…/site/ledger>, ".STATS.json.exhibit-tmp-77", 5</…/site/ledger>, "STATS.json") = 0
        let Some(args) = l.split_once("renameat(").map(|(_, a)| a) else {
            continue;
        };
        let parts: Vec<&str> = args.split(", ").collect();
        let folder = |p: &str| {
            p.split_once('<')
                .map(|(_, f)| f.trim_end_matches('>').to_string())
        };
        let (Some(from_dir), Some(to_dir)) = (folder(parts[0]), folder(parts[2])) else {
            continue;
        };
        if !from_dir.starts_with(&site) {
            continue;
        }
        let (from, to) = (
            parts[1].trim_matches('"'),
            parts[3].split('"').nth(1).unwrap(),
        );
        assert_eq!(from_dir, to_dir, "a rename within one folder: {l}");
        assert!(
            from.starts_with(&format!(".{to}.exhibit-tmp-")),
            "from its temporary name: {l}"
        );
        assert!(l.trim_end().ends_with("= 0"), "{l}");
        let rel = format!(
            "{}{to}",
            from_dir[site.len()..].trim_start_matches('/').to_string() + "/"
        )
        .trim_start_matches('/')
        .to_string();
        into_dir.push(rel);
    }
    assert!(into_dir.len() >= 5, "{into_dir:?}");
    let heads = ["ledger/STATS.json", "ledger/SNAPSHOTS.jsonl", "index.html"];
    let rank = |rel: &String| match heads.iter().position(|h| h == rel) {
        Some(k) => 2 + k,
        None if before.contains(rel) => 1,
        None => 0,
    };
    let ranks: Vec<usize> = into_dir.iter().map(rank).collect();
    assert!(ranks.windows(2).all(|w| w[0] <= w[1]), "{into_dir:?}");
    assert!(ranks.contains(&0) && ranks.contains(&1), "{into_dir:?}");
    assert_eq!(into_dir.last().map(String::as_str), Some("index.html"));
    let o = exhibit(&["verify", &h.site().display().to_string()], 0);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
}

// ---- 2. Names are data until checked -------------------------------------------------------------

/// Rewrites HEAD so that `ledger/witness/proofs/` under site/ also holds `name` (a raw tree
/// entry: no validation of the name on the way in) with `bytes`.
fn commit_hostile_proof_name(repo: &git2::Repository, name: &[u8], bytes: &[u8]) {
    let head = repo.head().unwrap().peel_to_commit().unwrap();
    let odb = repo.odb().unwrap();
    let blob = repo.blob(bytes).unwrap();
    let at = |tree: &git2::Tree, p: &str| {
        repo.find_tree(tree.get_path(Path::new(p)).unwrap().id())
            .unwrap()
    };
    let root = head.tree().unwrap();
    let proofs = at(&root, "site/ledger/witness/proofs");
    // A tree object's bytes: "<mode> <name>\0<20-byte id>" per entry, sorted by name.
    let mut entries: Vec<(Vec<u8>, Vec<u8>, git2::Oid)> = proofs
        .iter()
        .map(|e| (b"100644".to_vec(), e.name_bytes().to_vec(), e.id()))
        .collect();
    entries.push((b"100644".to_vec(), name.to_vec(), blob));
    entries.sort_by(|a, b| a.1.cmp(&b.1));
    let mut raw = Vec::new();
    for (mode, n, id) in entries {
        raw.extend_from_slice(&mode);
        raw.push(b' ');
        raw.extend_from_slice(&n);
        raw.push(0);
        raw.extend_from_slice(id.as_bytes());
    }
    let mut id = odb.write(git2::ObjectType::Tree, &raw).unwrap();
    // Rebuild the path up to the root with the hostile folder in place.
    for (parent, child) in [
        ("site/ledger/witness", "proofs"),
        ("site/ledger", "witness"),
        ("site", "ledger"),
    ] {
        let t = at(&root, parent);
        let mut b = repo.treebuilder(Some(&t)).unwrap();
        b.insert(child, id, 0o040000).unwrap();
        id = b.write().unwrap();
    }
    let mut b = repo.treebuilder(Some(&root)).unwrap();
    b.insert("site", id, 0o040000).unwrap();
    let tree = repo.find_tree(b.write().unwrap()).unwrap();
    let sig =
        git2::Signature::new("m", "m@example.invalid", &git2::Time::new(1_800_000_001, 0)).unwrap();
    repo.commit(Some("HEAD"), &sig, &sig, "hostile", &tree, &[&head])
        .unwrap();
}

#[test]
fn names_from_heads_tree_are_checked_before_use() {
    for (name, shown) in [
        (&b"../../../pwned.ots"[..], "pwned.ots"),
        (&b"evil.html"[..], "evil.html"),
        (
            &b"0000000000000000000000000000000000000000000000000000000000000000.ots.html"[..],
            ".ots.html",
        ),
    ] {
        let h = Hostile::new();
        let store = h.store().display().to_string();
        h.publish(&["--witness", &store]);
        commit_hostile_proof_name(&h.repo, name, b"<script>alert(1)</script>");
        for extra in [&[][..], &["--allow-rewrite", "test"][..]] {
            let before = state(h.root());
            let o = h.build_witness(extra);
            assert!(
                matches!(o.status.code(), Some(1 | 2)),
                "{name:?} {extra:?}: {}",
                text(&o)
            );
            assert!(stderr(&o).contains(shown), "names it: {}", text(&o));
            assert_same(&before, &state(h.root()), &o);
            assert!(!h.root().join("pwned.ots").exists());
            assert!(!h.root().join("exhibit/pwned.ots").exists());
        }
    }
}

// ---- 8. HEAD is checked before it is trusted -----------------------------------------------------

#[test]
fn a_hand_edited_head_is_refused_until_a_reason_is_recorded() {
    let h = Hostile::new();
    h.publish(&[]);
    // A rebuild checks HEAD and remembers the sha256 of each of its blobs in the git folder
    // (docs/scale.md#the-daily-rebuilds-cost): the edit below must be found all the same.
    let o = h.build(&[]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(h.root().join("exhibit/.git/exhibit/blob-sha256").is_file());
    let withheld: J =
        serde_json::from_slice(&std::fs::read(h.site().join("ledger/withheld.json")).unwrap())
            .unwrap();
    assert_eq!(withheld[0]["seq"], 4);
    // The edit: truncate the ledger to the header and seqs 1–3, empty withheld.json, and record a
    // reading of the withheld seq 4 — so the next build would publish it with extends: true.
    let ledger = std::fs::read(h.site().join("ledger/ledger.jsonl")).unwrap();
    let keep: Vec<&[u8]> = ledger.split_inclusive(|&b| b == b'\n').take(4).collect();
    std::fs::write(h.site().join("ledger/ledger.jsonl"), keep.concat()).unwrap();
    std::fs::write(h.site().join("ledger/withheld.json"), "[]\n").unwrap();
    std::fs::write(
        h.site().join("ledger/readings.json"),
        format!(
            "{{\"lines\":[{{\"seq\":4,\"entry_id\":\"{}\",\"fields_flagged\":[\"detail\"]}}]}}\n",
            h.ids[3]
        ),
    )
    .unwrap();
    commit_site(&h.repo);

    let before = state(h.root());
    let o = h.build(&[]);
    refused_untouched(&h, &o, &before, 1);
    let err = stderr(&o);
    assert!(err.contains("edited since exhibit built it"), "{err}");
    assert!(err.contains("ledger.jsonl"), "names the file: {err}");
    assert!(err.contains("--allow-rewrite"), "names the flag: {err}");

    // With a reason it passes, recorded; the withheld line is still not published.
    let o = h.build(&[
        "--allow-rewrite",
        "restoring the ledger after a bad hand edit",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let snaps = std::fs::read_to_string(h.site().join("ledger/SNAPSHOTS.jsonl")).unwrap();
    let last: J = serde_json::from_str(snaps.lines().last().unwrap()).unwrap();
    assert_eq!(last["extends"], false);
    assert_eq!(
        last["rewrite_reason"],
        "restoring the ledger after a bad hand edit"
    );
    let published = std::fs::read_to_string(h.site().join("ledger/ledger.jsonl")).unwrap();
    assert!(!published.contains("/home/agent"));
}

// ---- 3. Reads stay in the box ----------------------------------------------------------------

#[test]
fn symlinks_in_the_box_are_not_followed() {
    for victim in ["REPORT.md", "runs.jsonl", "ANCHOR_OTS", "ANCHOR_TXT"] {
        let h = Hostile::new();
        let secret = h.root().join("id_ed25519");
        std::fs::write(&secret, SECRET).unwrap();
        let link = match victim {
            "ANCHOR_OTS" => {
                h.b.post_anchor("2026-10-24", &h.ids[2], 3);
                h.b.dir.join("gate/anchors/2026-10-24.txt.ots")
            }
            "ANCHOR_TXT" => h.b.dir.join("gate/anchors/2026-10-24.txt"),
            other => {
                let p = h.store().join(other);
                std::fs::remove_file(&p).unwrap();
                p
            }
        };
        symlink(&secret, &link).unwrap();
        let before = state(h.root());
        let o = h.build_witness(&[]);
        assert!(
            matches!(o.status.code(), Some(1 | 2)),
            "{victim}: {}",
            text(&o)
        );
        assert!(stderr(&o).contains("symlink"), "{victim}: {}", text(&o));
        assert_same(&before, &state(h.root()), &o);
        assert!(!h.site().exists());
    }
    // A folder of the store that is a symlink out of the box.
    let h = Hostile::new();
    let elsewhere = h.root().join("elsewhere");
    std::fs::rename(h.store().join("proofs"), &elsewhere).unwrap();
    symlink(&elsewhere, h.store().join("proofs")).unwrap();
    let before = state(h.root());
    let o = h.build_witness(&[]);
    assert!(matches!(o.status.code(), Some(1 | 2)), "{}", text(&o));
    assert_same(&before, &state(h.root()), &o);
}

/// Moves `path` to `private` (outside the box) and links it back under its own name: the box's
/// file is now the private file itself, its bytes unchanged.
fn hard_link_from(private: &Path, path: &Path) {
    std::fs::rename(path, private).unwrap();
    std::fs::hard_link(private, path).unwrap();
}

fn assert_refused_as_hard_link(
    h: &Hostile,
    o: &Output,
    before: &BTreeMap<PathBuf, Node>,
    file: &str,
) {
    assert!(
        matches!(o.status.code(), Some(1 | 2)),
        "{file}: {}",
        text(o)
    );
    let err = stderr(o);
    for needle in [file, "[hard_link]", "copy the file so it has one link"] {
        assert!(err.contains(needle), "{file}: names {needle:?}: {err}");
    }
    assert_same(before, &state(h.root()), o);
    assert!(!h.site().exists(), "{file}: nothing published");
}

/// Issue 48, 5d: a file of a box folder the build publishes from (the witness store and its
/// proofs, the anchors folder) that another name shares — a hard link, perhaps to a private
/// file — is refused as a symlink is, naming the file, the rule and the fix.
#[test]
fn hard_links_in_the_box_are_refused() {
    for victim in [
        "REPORT.md",
        "runs.jsonl",
        "seal.jsonl",
        "WITNESS_PREREG.md",
        "index.json",
        "PROOF",
        "ANCHOR_TXT",
        "ANCHOR_OTS",
    ] {
        let h = Hostile::new();
        h.b.post_anchor("2026-10-24", &h.ids[2], 3);
        let post = h.b.dir.join("gate/anchors/2026-10-24.txt");
        let post_digest = Digest::of(&std::fs::read(&post).unwrap()).to_string();
        std::fs::write(
            h.b.dir.join("gate/anchors/2026-10-24.txt.ots"),
            proof(&post_digest),
        )
        .unwrap();
        let path = match victim {
            "PROOF" => h.store().join(format!("proofs/{}.ots", h.ids[1])),
            "ANCHOR_TXT" => post.clone(),
            "ANCHOR_OTS" => h.b.dir.join("gate/anchors/2026-10-24.txt.ots"),
            other => h.store().join(other),
        };
        // The box as it is builds: only the link is refused.
        if victim == "REPORT.md" {
            let o = h.build_witness(&["--dry-run"]);
            assert_eq!(o.status.code(), Some(0), "{}", text(&o));
        }
        std::fs::create_dir(h.root().join("private")).unwrap();
        hard_link_from(&h.root().join("private/notes"), &path);
        let before = state(h.root());
        let o = h.build_witness(&[]);
        let name = path.file_name().unwrap().to_str().unwrap();
        assert_refused_as_hard_link(&h, &o, &before, name);
    }
}

/// A proof recorded by an earlier build (so not read again while its stat data holds) that
/// gains a second name is read again, and refused.
#[test]
fn a_recorded_store_proof_that_gains_a_second_link_is_refused() {
    let h = recorded_witness_exhibit();
    let path = h.store().join(format!("proofs/{}.ots", h.ids[1]));
    std::fs::hard_link(&path, h.root().join("elsewhere.ots")).unwrap();
    let before = state(h.root());
    let o = h.build_witness(&[]);
    assert!(matches!(o.status.code(), Some(1 | 2)), "{}", text(&o));
    let err = stderr(&o);
    for needle in [
        &format!("{}.ots", h.ids[1])[..],
        "[hard_link]",
        "copy the file so it has one link",
    ] {
        assert!(err.contains(needle), "names {needle:?}: {err}");
    }
    assert_same(&before, &state(h.root()), &o);
}

/// Runs the binary with a deadline; a run past it is killed and fails the test.
fn run_bounded(args: &[&str], secs: u64) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_exhibit"))
        .args(args)
        .env("SOURCE_DATE_EPOCH", EPOCH.to_string())
        .env_remove("CI")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            let mut out = Vec::new();
            let mut err = Vec::new();
            child.stdout.take().unwrap().read_to_end(&mut out).unwrap();
            child.stderr.take().unwrap().read_to_end(&mut err).unwrap();
            let o = Output {
                status,
                stdout: out,
                stderr: err,
            };
            assert_exit_in_range(&o);
            return o;
        }
        if start.elapsed() > Duration::from_secs(secs) {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("exhibit {args:?} still running after {secs} s");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn mkfifo(path: &Path) {
    let ok = Command::new("mkfifo").arg(path).status().unwrap().success();
    assert!(ok, "mkfifo {}", path.display());
}

#[test]
fn fifos_devices_and_oversized_files_are_refused_not_read() {
    // In the box: a FIFO as an anchor's proof, an oversized proof.
    let h = Hostile::new();
    h.b.post_anchor("2026-10-24", &h.ids[2], 3);
    mkfifo(&h.b.dir.join("gate/anchors/2026-10-24.txt.ots"));
    let before = state(h.root());
    let config = h.b.config();
    let site = h.site().display().to_string();
    let o = run_bounded(&["build", "--config", &config, "--out", &site], 20);
    assert!(matches!(o.status.code(), Some(1 | 2)), "{}", text(&o));
    assert!(stderr(&o).contains("2026-10-24.txt.ots"), "{}", text(&o));
    assert_same(&before, &state(h.root()), &o);

    let h = Hostile::new();
    h.b.post_anchor("2026-10-24", &h.ids[2], 3);
    let big = std::fs::File::create(h.b.dir.join("gate/anchors/2026-10-24.txt.ots")).unwrap();
    big.set_len(64 << 20).unwrap();
    let before = state(h.root());
    let config = h.b.config();
    let site = h.site().display().to_string();
    let o = run_bounded(&["build", "--config", &config, "--out", &site], 20);
    assert!(matches!(o.status.code(), Some(1 | 2)), "{}", text(&o));
    assert!(stderr(&o).contains("ceiling"), "{}", text(&o));
    assert_same(&before, &state(h.root()), &o);

    // verify SITE on a clone whose anchor proof is /dev/zero, or a FIFO, or whose ledger is one.
    let h = Hostile::new();
    h.b.post_anchor("2026-10-24", &h.ids[2], 3);
    let post = std::fs::read(h.b.dir.join("gate/anchors/2026-10-24.txt")).unwrap();
    std::fs::write(
        h.b.dir.join("gate/anchors/2026-10-24.txt.ots"),
        proof(&Digest::of(&post).to_string()),
    )
    .unwrap();
    h.publish(&[]);
    let site = h.site().display().to_string();
    let ots = h.site().join("ledger/anchors/2026-10-24.txt.ots");
    std::fs::remove_file(&ots).unwrap();
    symlink("/dev/zero", &ots).unwrap();
    let o = run_bounded(&["verify", &site], 10);
    assert_ne!(o.status.code(), Some(0), "{}", text(&o));
    std::fs::remove_file(&ots).unwrap();
    mkfifo(&ots);
    let o = run_bounded(&["verify", &site], 10);
    assert_ne!(o.status.code(), Some(0), "{}", text(&o));
    std::fs::remove_file(&ots).unwrap();
    let ledger = h.site().join("ledger/ledger.jsonl");
    std::fs::remove_file(&ledger).unwrap();
    symlink("/dev/zero", &ledger).unwrap();
    let o = run_bounded(&["verify", &site], 10);
    assert_ne!(o.status.code(), Some(0), "{}", text(&o));
}

// ---- 4. Every published byte is accounted for

/// The tail's run log and seal name a withheld line's moment (the tail saw it during that run):
/// published with that moment cut to the anchor zone's day, on disk and on the page.
#[test]
fn a_withheld_seqs_moment_in_the_tails_logs_is_cut_to_the_day() {
    let h = Hostile::new();
    let seen = plus(WITHHELD_TS, 60);
    let (runs, seal, page) = logs_published(&h, &seen, WITHHELD_TS);
    for (what, s) in [
        ("runs.jsonl", &runs),
        ("seal.jsonl", &seal),
        ("the page's witness block", &page),
    ] {
        for moment in [WITHHELD_TS, seen.as_str(), "03:04:05", "03:05:05"] {
            assert!(!s.contains(moment), "{what} names {moment}:\n{s}");
        }
    }
    assert!(runs.contains("\"run_at\":\"2026-10-24\""), "{runs}");
    assert!(seal.contains("\"resealed_at\":\"2026-10-24\""), "{seal}");
}

/// The tail's side channels: each of these reaches the site today.
#[test]
fn side_channels_go_through_the_guard() {
    type Make = Box<dyn Fn(&Hostile)>;
    let cases: Vec<(&str, Make)> = vec![
        (
            "runs.jsonl",
            Box::new(|h: &Hostile| {
                std::fs::write(
                    h.store().join("runs.jsonl"),
                    "{\"run_at\":\"2026-10-25T06:00:00Z\",\"lines_seen\":5,\"operator\":\"ops@example.com\"}\n",
                )
                .unwrap()
            }),
        ),
        (
            "seal.jsonl",
            Box::new(|h: &Hostile| {
                let mut s = std::fs::read_to_string(h.store().join("seal.jsonl")).unwrap();
                s.push_str("{\"note\":\"call +1 415 555 0100\"}\n");
                std::fs::write(h.store().join("seal.jsonl"), s).unwrap();
            }),
        ),
        (
            "seal.jsonl",
            Box::new(|h: &Hostile| {
                let mut s = std::fs::read_to_string(h.store().join("seal.jsonl")).unwrap();
                s.push_str("{\"chat\":\"-1001234567890\"}\n");
                std::fs::write(h.store().join("seal.jsonl"), s).unwrap();
            }),
        ),
        (
            "calendars",
            Box::new(|h: &Hostile| {
                let id = h.ids[0].clone();
                h.patch_index(|v| {
                    v["entries"][&id]["calendars"] =
                        json!(["https://alice.example/ops@example.com"])
                });
            }),
        ),
    ];
    for (what, make) in cases {
        let h = Hostile::new();
        make(&h);
        let before = state(h.root());
        let o = h.build_witness(&[]);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{what}: {}", text(&o));
        assert!(err.contains(what), "{what}: names it: {err}");
        assert_same(&before, &state(h.root()), &o);
    }
}

/// Issue 48, 5c: the header's `certifies` sentence is prose, not exempt from the guard. An
/// identifier in it refuses the build like one anywhere in the header (a header cannot be
/// withheld): the refusal names the ledger, line 1, the rule codes and the flag, never the text.
#[test]
fn an_identifier_in_the_certifies_sentence_refuses_the_build() {
    for (sentence, secret, code) in [
        (
            "No line holds a chat id. Call +1 555 010 9999",
            "555 010 9999",
            "[phone]",
        ),
        (
            "No line holds a chat id; write to ops@lab.example.org",
            "ops@lab.example.org",
            "[email]",
        ),
        (
            "No line holds a chat id, as /home/agent/gate shows.",
            "/home/agent",
            "[drive_or_home_path]",
        ),
    ] {
        let tmp = tempfile::tempdir().unwrap();
        let b = TestBox::new(tmp.path());
        let mut w = LedgerWriter::certifying(sentence);
        w.push_scan(1);
        b.write_ledger(&w.bytes());
        let config = b.config();
        let site = tmp.path().join("site").display().to_string();
        let o = run(&["build", "--config", &config, "--out", &site]);
        assert_eq!(o.status.code(), Some(1), "{sentence}: {}", text(&o));
        let err = stderr(&o);
        for needle in [
            "ledger.jsonl",
            "line 1",
            "header_identifier",
            code,
            "--allow-line 0",
        ] {
            assert!(err.contains(needle), "{sentence}: names {needle}: {err}");
        }
        assert!(!err.contains(secret), "never the text: {err}");
        assert!(!tmp.path().join("site").exists());
        // A person who has read the header publishes it as it is.
        let o = run(&[
            "build",
            "--config",
            &config,
            "--out",
            &site,
            "--allow-line",
            "0",
        ]);
        assert_eq!(o.status.code(), Some(0), "{sentence}: {}", text(&o));
    }
    // An ordinary promise, spaces, a handle and a date in it, builds.
    let tmp = tempfile::tempdir().unwrap();
    let b = TestBox::new(tmp.path());
    let mut w = LedgerWriter::certifying(
        "Every send by @darkflobi since 2026-10-24 is recorded by hash, never by text.",
    );
    w.push_scan(1);
    b.write_ledger(&w.bytes());
    let site = tmp.path().join("site").display().to_string();
    let o = run(&["build", "--config", &b.config(), "--out", &site]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
}

#[test]
fn an_anchor_proof_whose_header_fails_is_not_published() {
    let h = Hostile::new();
    h.b.post_anchor("2026-10-24", &h.ids[2], 3);
    std::fs::write(
        h.b.dir.join("gate/anchors/2026-10-24.txt.ots"),
        b"\x1b]52;c;aGVsbG8=\x07 not a proof",
    )
    .unwrap();
    let o = h.build(&[]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(h.site().join("ledger/anchors/2026-10-24.txt").is_file());
    assert!(
        !h.site().join("ledger/anchors/2026-10-24.txt.ots").exists(),
        "a proof that fails its header check is not published"
    );
}

#[test]
fn withheld_lines_publish_only_what_the_protocol_lists() {
    let h = Hostile::new();
    // A withheld send whose dest_class is free text naming a person.
    let mut w = LedgerWriter::new();
    w.push_scan(1);
    let h0 = "0".repeat(64);
    w.push(
        "send",
        "2026-10-24T14:00:00Z",
        &format!(
            r#"{{"action":"send","decision":"pass","dest_class":"Bob Smith's chat","dest_hash":"{h0}","numerals":{{"bound":0,"total":0}},"reasons":["to bob@example.com"]}}"#
        ),
    );
    w.push(
        "send",
        "2026-10-24T14:01:00Z",
        &format!(
            r#"{{"action":"send","decision":"pass","dest_class":"sidechannel","dest_hash":"{h0}","numerals":{{"bound":0,"total":0}},"reasons":["to bob@example.com"]}}"#
        ),
    );
    w.push(
        "send",
        "2026-10-24T14:02:00Z",
        &format!(
            r#"{{"action":"send","decision":"pass","dest_class":"dm","dest_hash":"{h0}","numerals":{{"bound":0,"total":0}},"reasons":["to bob@example.com"]}}"#
        ),
    );
    h.b.write_ledger(&w.bytes());
    let o = h.build(&[]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let withheld: J =
        serde_json::from_slice(&std::fs::read(h.site().join("ledger/withheld.json")).unwrap())
            .unwrap();
    let classes: Vec<&J> = withheld
        .as_array()
        .unwrap()
        .iter()
        .map(|e| &e["dest_class"])
        .collect();
    assert_eq!(classes, [&json!("other"), &json!("other"), &json!("dm")]);
    for e in withheld.as_array().unwrap() {
        let keys: Vec<&str> = e.as_object().unwrap().keys().map(String::as_str).collect();
        for k in &keys {
            assert!(
                [
                    "seq",
                    "entry_id",
                    "kind",
                    "dest_class",
                    "day",
                    "fields_flagged",
                    "reason"
                ]
                .contains(k),
                "{k}"
            );
        }
    }
}

#[test]
fn a_withheld_seqs_clocks_are_cut_to_the_anchor_zones_day_everywhere() {
    let h = Hostile::new();
    let o = h.build_witness(&[]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let withheld: J =
        serde_json::from_slice(&std::fs::read(h.site().join("ledger/withheld.json")).unwrap())
            .unwrap();
    assert_eq!(withheld[0]["seq"], 4);
    assert_eq!(withheld[0]["day"], "2026-10-24", "New York's day");
    let index: J =
        serde_json::from_slice(&std::fs::read(h.site().join("ledger/witness/index.json")).unwrap())
            .unwrap();
    let e = &index["entries"][&h.ids[3]];
    assert_eq!(e["line_timestamp"], J::Null);
    for k in ["seen_at", "stamped_at"] {
        assert_eq!(e[k], "2026-10-24", "{k} cut to the anchor zone's day: {e}");
    }
}

#[test]
fn report_may_not_name_a_withheld_lines_minute() {
    let h = Hostile::new();
    std::fs::write(
        h.store().join("REPORT.md"),
        "# Witness report\n\nA line came in at 03:04 and was stamped a minute later.\n",
    )
    .unwrap();
    let before = state(h.root());
    let o = h.build_witness(&[]);
    refused_untouched(&h, &o, &before, 1);
    assert!(stderr(&o).contains("REPORT.md"), "{}", text(&o));
}

// ---- 5. Markdown renders to a safe subset -----------------------------------------------------

/// The decoded bytes of one of the page's data blocks (base64 inside a script element).
fn data_block(page: &str, id: &str) -> String {
    let at = page.find(id).unwrap_or_else(|| panic!("no block {id}"));
    let start = at + page[at..].find('>').unwrap() + 1;
    let end = start + page[start..].find('<').unwrap();
    String::from_utf8(unb64(page[start..end].trim())).unwrap()
}

fn page_of(h: &Hostile) -> String {
    String::from_utf8(std::fs::read(h.site().join("index.html")).unwrap()).unwrap()
}

#[test]
fn markdown_links_and_images_are_made_safe() {
    let h = Hostile::new();
    std::fs::write(
        h.store().join("REPORT.md"),
        "# Report\n\n[click](javascript:alert(1)) [data](data:text/html,hi) [vb](VBScript:x) \
         [ok](https://example.org/a) [rel](notes/a.md) <javascript:alert(2)>\n\n\
         ![pixel](https://tracker.example/p.png) ![local](x.png)\n",
    )
    .unwrap();
    let o = h.build_witness(&[]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let page = page_of(&h);
    let lower = page.to_ascii_lowercase();
    // The minifier may drop attribute quotes: compare without them.
    let bare = lower.replace(['"', '\''], "");
    assert!(!bare.contains("href=javascript:"), "no javascript: link");
    assert!(!bare.contains("href=data:"), "no data: link");
    assert!(!bare.contains("href=vbscript:"), "no vbscript: link");
    assert!(!bare.contains("<img"), "no image is loaded");
    assert!(
        bare.contains("href=https://example.org/a"),
        "http(s) links stay"
    );
    assert!(bare.contains("href=notes/a.md"), "relative links stay");
    assert!(
        page.contains("tracker.example/p.png"),
        "an image is shown as text"
    );
}

#[test]
fn deeply_nested_markdown_does_not_crash_the_build() {
    for (what, md) in [
        ("blockquotes", ">".repeat(10_000)),
        ("lists", "- ".repeat(5_000)),
        (
            "list lines",
            (0..600)
                .map(|i| format!("{}- x\n", "  ".repeat(i)))
                .collect(),
        ),
        ("brackets", "[".repeat(10_000)),
        ("emphasis", "*_".repeat(5_000)),
    ] {
        let h = Hostile::new();
        std::fs::write(h.store().join("REPORT.md"), &md).unwrap();
        let o = h.build_witness(&[]);
        assert_eq!(o.status.code(), Some(0), "{what}: {}", text(&o));
    }
}

// ---- 6. No panic, no abort ------------------------------------------------------------------------

#[test]
fn a_failed_write_to_stderr_or_stdout_is_exit_2() {
    let h = Hostile::new();
    let full = || {
        std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap()
    };
    let missing = h.root().join("nothing.jsonl").display().to_string();
    for (args, to_stdout) in [
        (vec!["verify", missing.as_str()], false),
        (vec!["verify", "--json", missing.as_str()], false),
        (
            vec![
                "build",
                "--config",
                "/nonexistent/exhibit.toml",
                "--out",
                "x",
            ],
            false,
        ),
    ] {
        let o = Command::new(env!("CARGO_BIN_EXE_exhibit"))
            .args(&args)
            .stdout(Stdio::piped())
            .stderr(full())
            .output()
            .unwrap();
        assert_eq!(
            o.status.code(),
            Some(2),
            "{args:?} stderr full: {:?}",
            o.status
        );
        let _ = to_stdout;
    }
    // A build whose success line cannot be written, and a verify whose report cannot.
    let config = h.b.config();
    let site = h.site().display().to_string();
    let o = Command::new(env!("CARGO_BIN_EXE_exhibit"))
        .args(["build", "--config", &config, "--out", &site])
        .env("SOURCE_DATE_EPOCH", EPOCH.to_string())
        .stdout(full())
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert_eq!(stderr(&o).lines().count(), 1, "one line: {}", text(&o));
    let o = Command::new(env!("CARGO_BIN_EXE_exhibit"))
        .args(["verify", &site])
        .stdout(full())
        .stderr(full())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    // The dry run's report, too.
    let o = Command::new(env!("CARGO_BIN_EXE_exhibit"))
        .args(["build", "--config", &config, "--out", &site, "--dry-run"])
        .env("SOURCE_DATE_EPOCH", EPOCH.to_string())
        .stdout(full())
        .stderr(full())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
}

// ---- 7. Control characters from inputs are escaped ------------------------------------------------

fn assert_no_controls(what: &str, bytes: &[u8]) {
    let s = String::from_utf8_lossy(bytes);
    let bad: Vec<char> = s
        .chars()
        .filter(|c| (c.is_control() && *c != '\n') || *c == '\u{9b}')
        .collect();
    assert!(
        bad.is_empty(),
        "{what} prints raw control characters {bad:?}:\n{s}"
    );
}

#[test]
fn control_characters_are_escaped_wherever_they_are_printed() {
    let h = Hostile::new();
    let store = h.store().display().to_string();
    h.publish(&["--witness", &store]);
    // A changed REPORT.md full of terminal escapes (cursor up, clear line, OSC 52), and a file in
    // DIR named with them, so the dry run prints both.
    std::fs::write(
        h.store().join("REPORT.md"),
        "# Report\n\nall fine\x1b[1A\x1b[2K\x1b]52;c;cm0gLXJmIH4=\x07\u{9b}2J\r\n",
    )
    .unwrap();
    std::fs::write(h.site().join("ledger/old\x1b[2K\rname.txt"), "x").unwrap();
    let o = h.build_witness(&["--dry-run"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("removed "),
        "{}",
        text(&o)
    );
    assert_no_controls("--dry-run stdout", &o.stdout);
    assert_no_controls("--dry-run stderr", &o.stderr);
    // A refusal naming a file whose name carries them.
    let weird = h.root().join("box\x1b[2Jweird");
    std::fs::create_dir(&weird).unwrap();
    let o = run(&[
        "build",
        "--config",
        &weird.join("exhibit.toml").display().to_string(),
        "--out",
        &h.site().display().to_string(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert_no_controls("error", &o.stderr);
}

// ---- exit status: only 0, 1 or 2, on every input constructed here ----------------------------

/// Deterministic junk: every byte value, runs of controls, invalid UTF-8.
fn junk(n: usize, seed: u64) -> Vec<u8> {
    let mut x = seed | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect()
}

#[test]
fn build_and_verify_exit_only_0_1_or_2_on_hostile_inputs() {
    let h = Hostile::new();
    let store = h.store().display().to_string();
    h.publish(&["--witness", &store]);
    let dir = h.root().join("inputs");
    std::fs::create_dir(&dir).unwrap();
    // verify FILE on malformed ledgers.
    let deep = format!("{}{}\n", "[".repeat(100_000), "]".repeat(100_000));
    let long = format!("{{\"a\":\"{}\"}}", "x".repeat(3 << 20));
    let files: Vec<(&str, Vec<u8>)> = vec![
        ("empty", vec![]),
        ("newline", b"\n".to_vec()),
        ("junk", junk(4096, 1)),
        (
            "junk-lines",
            junk(4096, 2)
                .iter()
                .map(|b| if b % 7 == 0 { b'\n' } else { *b })
                .collect(),
        ),
        ("deep", deep.into_bytes()),
        ("long-no-lf", long.into_bytes()),
        ("bad-utf8", b"{\"schema\":\"\xff\xfe\"}\n".to_vec()),
        (
            "header-only",
            std::fs::read(h.b.dir.join("gate/ledger.jsonl"))
                .unwrap()
                .split(|&b| b == b'\n')
                .next()
                .unwrap()
                .to_vec(),
        ),
    ];
    for (name, bytes) in &files {
        let p = dir.join(name);
        std::fs::write(&p, bytes).unwrap();
        let p = p.display().to_string();
        run(&["verify", &p]);
        run(&["verify", "--json", &p]);
        run(&[
            "verify",
            "--withheld",
            &p,
            &h.b.dir.join("gate/ledger.jsonl").display().to_string(),
        ]);
        run(&["verify", "--anchors", &dir.display().to_string(), &p]);
    }
    run(&["verify", &dir.display().to_string()]);
    run(&["verify", "/nonexistent"]);
    // verify SITE on damaged clones.
    type Hurt = Box<dyn Fn(&Path)>;
    let damage: Vec<(&str, Hurt)> = vec![
        (
            "withheld junk",
            Box::new(|s: &Path| {
                std::fs::write(s.join("ledger/withheld.json"), junk(300, 3)).unwrap()
            }),
        ),
        (
            "withheld a folder",
            Box::new(|s: &Path| {
                std::fs::remove_file(s.join("ledger/withheld.json")).unwrap();
                std::fs::create_dir(s.join("ledger/withheld.json")).unwrap();
            }),
        ),
        (
            "ledger a folder",
            Box::new(|s: &Path| {
                std::fs::remove_file(s.join("ledger/ledger.jsonl")).unwrap();
                std::fs::create_dir(s.join("ledger/ledger.jsonl")).unwrap();
            }),
        ),
        (
            "a post that is a folder",
            Box::new(|s: &Path| {
                std::fs::create_dir_all(s.join("ledger/anchors/2026-10-23.txt")).unwrap()
            }),
        ),
        (
            "a proof that is a folder",
            Box::new(|s: &Path| {
                std::fs::create_dir_all(
                    s.join(format!("ledger/witness/proofs/{}.ots", "a".repeat(64))),
                )
                .unwrap()
            }),
        ),
        (
            "a junk proof",
            Box::new(|s: &Path| {
                std::fs::write(
                    s.join(format!("ledger/witness/proofs/{}.ots", "b".repeat(64))),
                    junk(10, 4),
                )
                .unwrap()
            }),
        ),
        (
            "ledger junk",
            Box::new(|s: &Path| {
                std::fs::write(s.join("ledger/ledger.jsonl"), junk(5000, 5)).unwrap()
            }),
        ),
    ];
    for (what, hurt) in damage {
        let copy = h.root().join(format!("clone-{}", what.replace(' ', "-")));
        copy_tree(&h.site(), &copy);
        hurt(&copy);
        let o = run(&["verify", &copy.display().to_string()]);
        assert_ne!(o.status.code(), Some(0), "{what}: {}", text(&o));
        run(&["verify", "--json", &copy.display().to_string()]);
    }
    // build on damaged boxes.
    type Spoil = Box<dyn Fn(&Hostile)>;
    let boxes: Vec<(&str, Spoil)> = vec![
        (
            "ledger junk",
            Box::new(|h: &Hostile| h.b.write_ledger(&junk(5000, 6))),
        ),
        (
            "ledger empty",
            Box::new(|h: &Hostile| h.b.write_ledger(b"")),
        ),
        (
            "config junk",
            Box::new(|h: &Hostile| {
                std::fs::write(h.b.dir.join("exhibit.toml"), junk(200, 7)).unwrap()
            }),
        ),
        (
            "index junk",
            Box::new(|h: &Hostile| {
                std::fs::write(h.store().join("index.json"), junk(900, 8)).unwrap()
            }),
        ),
        (
            "index deep",
            Box::new(|h: &Hostile| {
                std::fs::write(h.store().join("index.json"), "[".repeat(100_000)).unwrap()
            }),
        ),
        (
            "seal empty",
            Box::new(|h: &Hostile| std::fs::write(h.store().join("seal.jsonl"), "").unwrap()),
        ),
        (
            "runs junk",
            Box::new(|h: &Hostile| {
                std::fs::write(h.store().join("runs.jsonl"), junk(700, 9)).unwrap()
            }),
        ),
        (
            "report not utf-8",
            Box::new(|h: &Hostile| {
                std::fs::write(h.store().join("REPORT.md"), junk(700, 10)).unwrap()
            }),
        ),
        (
            "a proof that is a folder",
            Box::new(|h: &Hostile| {
                let p = h.store().join(format!("proofs/{}.ots", h.ids[0]));
                std::fs::remove_file(&p).unwrap();
                std::fs::create_dir(&p).unwrap();
            }),
        ),
        (
            "a post that is a folder",
            Box::new(|h: &Hostile| {
                std::fs::create_dir(h.b.dir.join("gate/anchors/2026-10-24.txt")).unwrap()
            }),
        ),
        (
            "a post of junk",
            Box::new(|h: &Hostile| {
                std::fs::write(h.b.dir.join("gate/anchors/2026-10-24.txt"), junk(100, 11)).unwrap()
            }),
        ),
    ];
    for (what, hurt) in boxes {
        let h = Hostile::new();
        hurt(&h);
        for extra in [&[][..], &["--dry-run"][..]] {
            let o = h.build_witness(extra);
            assert!(
                matches!(o.status.code(), Some(0..=2)),
                "{what}: {}",
                text(&o)
            );
        }
    }
}

/// A proof HEAD published under a valid name, whose bytes do not commit to that name (a hostile
/// commit): refused as an edit of HEAD; on --allow-rewrite it is dropped, never carried forward.
#[test]
fn a_carried_proof_is_header_checked_like_a_new_one() {
    let h = Hostile::new();
    let store = h.store().display().to_string();
    h.publish(&["--witness", &store]);
    let name = format!("{}.ots", "c".repeat(64));
    commit_hostile_proof_name(&h.repo, name.as_bytes(), b"<script>alert(1)</script>");
    let before = state(h.root());
    let o = h.build_witness(&[]);
    refused_untouched(&h, &o, &before, 1);
    assert!(
        stderr(&o).contains("edited since exhibit built it"),
        "{}",
        text(&o)
    );
    let o = h.build_witness(&["--allow-rewrite", "a hostile proof was pushed"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(
        stderr(&o).contains(&name),
        "says it dropped it: {}",
        text(&o)
    );
    assert!(
        !h.site()
            .join(format!("ledger/witness/proofs/{name}"))
            .exists()
    );
    let snaps = std::fs::read_to_string(h.site().join("ledger/SNAPSHOTS.jsonl")).unwrap();
    let last: J = serde_json::from_str(snaps.lines().last().unwrap()).unwrap();
    assert_eq!(last["extends"], false);
}

// ---- 9. Records that spare reading are never trusted past a change ---------------------------

/// A witness build in a repository whose records exist: published, then built again so that the
/// store's proofs and DIR's files are recorded (docs/scale.md#comparing-without-reading).
fn recorded_witness_exhibit() -> Hostile {
    let h = Hostile::new();
    let store = h.store().display().to_string();
    h.publish(&["--witness", &store]);
    let o = h.build_witness(&[]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let git = h.root().join("exhibit/.git/exhibit");
    for name in ["dir-stat", "store-proofs", "ledger-seqs"] {
        let len = std::fs::metadata(git.join(name)).unwrap().len();
        assert!(len > 200, "{name} holds records ({len} bytes)");
    }
    let mut dir = exhibit::site_write::dir_record::DirRecords::open(git.parent(), &h.site());
    let proof = format!("ledger/witness/proofs/{}.ots", h.ids[0]);
    assert!(dir.get(&proof).is_some(), "DIR's {proof} is recorded");
    h
}

/// Flips one byte of the digest a proof commits to, in place, same size, mtime put back (as
/// someone hiding the edit would); returns the bytes before.
fn flip_committed_digest_keeping_mtime(path: &Path) -> Vec<u8> {
    let before = std::fs::read(path).unwrap();
    let mtime = std::fs::metadata(path).unwrap().modified().unwrap();
    let mut bytes = before.clone();
    bytes[MAGIC.len() + 2] ^= 0xff;
    std::fs::write(path, &bytes).unwrap();
    let f = std::fs::File::options().write(true).open(path).unwrap();
    f.set_modified(mtime).unwrap();
    before
}

#[test]
fn a_recorded_store_proof_swapped_for_a_symlink_is_not_followed() {
    let h = recorded_witness_exhibit();
    // The same bytes, elsewhere, linked in place of the recorded proof.
    let path = h.store().join(format!("proofs/{}.ots", h.ids[1]));
    let elsewhere = h.root().join("copy.ots");
    std::fs::rename(&path, &elsewhere).unwrap();
    symlink(&elsewhere, &path).unwrap();
    let before = state(h.root());
    let o = h.build_witness(&[]);
    assert!(matches!(o.status.code(), Some(1 | 2)), "{}", text(&o));
    assert!(stderr(&o).contains("symlink"), "{}", text(&o));
    assert_same(&before, &state(h.root()), &o);
}

#[test]
fn a_store_proof_edited_in_place_after_it_was_recorded_is_checked_again() {
    let h = recorded_witness_exhibit();
    // The same size and mtime, one byte of the committed digest changed: a record trusted by
    // name, size or mtime would publish a proof that commits elsewhere.
    let path = h.store().join(format!("proofs/{}.ots", h.ids[1]));
    flip_committed_digest_keeping_mtime(&path);
    let before = state(h.root());
    let o = h.build_witness(&[]);
    refused_untouched(&h, &o, &before, 1);
    assert!(stderr(&o).contains("witness_proof_invalid"), "{}", text(&o));
    assert!(
        stderr(&o).contains(&h.ids[1]),
        "names the proof: {}",
        text(&o)
    );
}

#[test]
fn a_file_of_dir_edited_in_place_after_it_was_recorded_is_written_again() {
    let h = recorded_witness_exhibit();
    let proof = h
        .site()
        .join(format!("ledger/witness/proofs/{}.ots", h.ids[0]));
    let good = flip_committed_digest_keeping_mtime(&proof);
    let o = h.build_witness(&[]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert_eq!(
        std::fs::read(&proof).unwrap(),
        good,
        "DIR's copy compared, rewritten"
    );
}

#[test]
fn the_dry_run_reports_a_file_of_dir_edited_in_place_after_it_was_recorded() {
    // The review compares DIR's files by their records; a record believed past an edit (same
    // size, mtime put back) would report nothing to change where the build rewrites a file.
    let h = recorded_witness_exhibit();
    let o = h.build_witness(&["--dry-run"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let calm = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(calm.contains("0 added, 0 changed, 0 removed"), "{calm}");
    let rel = format!("ledger/witness/proofs/{}.ots", h.ids[0]);
    flip_committed_digest_keeping_mtime(&h.site().join(&rel));
    let o = h.build_witness(&["--dry-run"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(
        out.contains("0 added, 1 changed, 0 removed") && out.contains(&rel),
        "{out}"
    );
}

#[test]
fn a_dry_run_and_a_refused_build_leave_the_records_as_they_were() {
    let h = recorded_witness_exhibit();
    let before = state(h.root());
    let o = h.build_witness(&["--dry-run"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert_same(&before, &state(h.root()), &o);
    // Refused (a proof the index names is gone): no record file changes, none is left behind.
    std::fs::remove_file(h.store().join(format!("proofs/{}.ots", h.ids[2]))).unwrap();
    let before = state(h.root());
    let o = h.build_witness(&[]);
    refused_untouched(&h, &o, &before, 1);
}

// ---- 10. Side doors of issue 48: a proof's body ------------------------------------------------

/// The tails after a proof's header that must not be published, each with what it hides: bytes
/// after the proof ends, a calendar that is not a plain https host (or trips the guard), text in
/// an operation's argument or an unknown attestation's payload, a tree that does not parse.
fn hostile_proof_tails() -> Vec<(&'static str, Vec<u8>, &'static str)> {
    let pending = |uri: &[u8]| {
        let mut b = vec![0x00, 0x83, 0xdf, 0xe3, 0x0d, 0x2e, 0xf9, 0x0c, 0x8e];
        b.push(u8::try_from(uri.len() + 1).unwrap());
        b.push(u8::try_from(uri.len()).unwrap());
        b.extend_from_slice(uri);
        b
    };
    let with_arg = |op: u8, arg: &[u8]| {
        let mut b = vec![op, u8::try_from(arg.len()).unwrap()];
        b.extend_from_slice(arg);
        b.push(0x08);
        b.extend_from_slice(PENDING);
        b
    };
    let trailing = [PENDING, b"call +15550109999".as_slice()].concat();
    let unknown = {
        let mut b = vec![0xff, 0x00, 1, 2, 3, 4, 5, 6, 7, 8, 17];
        b.extend_from_slice(b"/home/agent/notes");
        b.extend_from_slice(PENDING);
        b
    };
    vec![
        ("trailing bytes", trailing, "15550109999"),
        (
            "calendar path",
            pending(b"https://alice.example.org/chat/-1001234567890"),
            "1001234567890",
        ),
        (
            "calendar scheme",
            pending(b"http://alice.example.org"),
            "http://",
        ),
        (
            "append argument",
            with_arg(0xf0, b"+1 555 010 9999"),
            "010 9999",
        ),
        (
            "prepend argument",
            with_arg(0xf1, b"\x01ops.lead@example.com\x02"),
            "ops.lead",
        ),
        ("unknown attestation", unknown, "/home/agent"),
        ("unknown op", [&[0x42u8][..], PENDING].concat(), "\u{0}"),
    ]
}

fn proof_with_tail(digest: &str, tail: &[u8]) -> Vec<u8> {
    let mut b = MAGIC.to_vec();
    b.extend_from_slice(&[0x01, 0x08]);
    b.extend_from_slice(&unhex(digest));
    b.extend_from_slice(tail);
    b
}

#[test]
fn a_witness_proofs_body_passes_the_guard_or_refuses() {
    for (what, tail, private) in hostile_proof_tails() {
        let h = Hostile::new();
        let id = &h.ids[0];
        let path = h.store().join(format!("proofs/{id}.ots"));
        std::fs::write(&path, proof_with_tail(id, &tail)).unwrap();
        let before = state(h.root());
        let o = h.build_witness(&[]);
        refused_untouched(&h, &o, &before, 1);
        let err = stderr(&o);
        assert!(err.contains("[witness_proof_body]"), "{what}: {err}");
        assert!(
            err.contains(&format!("{id}.ots")),
            "{what}: names the file: {err}"
        );
        assert!(err.contains("to accept:"), "{what}: {err}");
        assert!(!err.contains(private), "{what}: never echoes it: {err}");
    }
}

#[test]
fn an_anchor_proofs_body_passes_the_guard_or_refuses() {
    for (what, tail, private) in hostile_proof_tails() {
        let h = Hostile::new();
        h.b.post_anchor("2026-10-24", &h.ids[2], 3);
        let post = std::fs::read(h.b.dir.join("gate/anchors/2026-10-24.txt")).unwrap();
        std::fs::write(
            h.b.dir.join("gate/anchors/2026-10-24.txt.ots"),
            proof_with_tail(&Digest::of(&post).to_string(), &tail),
        )
        .unwrap();
        let before = state(h.root());
        let o = h.build(&[]);
        refused_untouched(&h, &o, &before, 1);
        let err = stderr(&o);
        assert!(err.contains("[anchor_proof_body]"), "{what}: {err}");
        assert!(err.contains("2026-10-24.txt.ots"), "{what}: {err}");
        assert!(!err.contains(private), "{what}: never echoes it: {err}");
    }
    // A real proof's shape passes, and is published.
    let h = Hostile::new();
    h.b.post_anchor("2026-10-24", &h.ids[2], 3);
    let post = std::fs::read(h.b.dir.join("gate/anchors/2026-10-24.txt")).unwrap();
    std::fs::write(
        h.b.dir.join("gate/anchors/2026-10-24.txt.ots"),
        proof(&Digest::of(&post).to_string()),
    )
    .unwrap();
    h.publish(&[]);
    assert!(h.site().join("ledger/anchors/2026-10-24.txt.ots").exists());
}

/// A proof HEAD published is carried forward only when its body passes too.
#[test]
fn a_carried_proofs_body_is_checked_like_a_new_ones() {
    let h = Hostile::new();
    let store = h.store().display().to_string();
    h.publish(&["--witness", &store]);
    // The store forgets seq 1's record; HEAD's proof of it is carried — with a hostile body.
    let id = h.ids[0].clone();
    let published = h.site().join(format!("ledger/witness/proofs/{id}.ots"));
    std::fs::write(
        &published,
        proof_with_tail(&id, &[PENDING, b"+15550109999"].concat()),
    )
    .unwrap();
    commit_site(&h.repo);
    std::fs::remove_file(h.store().join(format!("proofs/{id}.ots"))).unwrap();
    h.patch_index(|v| {
        v["entries"].as_object_mut().unwrap().remove(&id);
    });
    let o = h.build_witness(&["--allow-rewrite", "HEAD was edited by hand"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(
        !h.site()
            .join(format!("ledger/witness/proofs/{id}.ots"))
            .exists(),
        "dropped, not carried: {}",
        text(&o)
    );
    assert!(!stderr(&o).contains("15550109999"));
}

// ---- 11. Side doors of issue 48: the rewrite's reason ------------------------------------------

/// The `--allow-rewrite` reason is published in SNAPSHOTS.jsonl and on the page: one that trips
/// the guard is a usage error (exit 2) naming the rule, never the text, and nothing is written.
#[test]
fn a_rewrite_reason_that_names_an_identifier_is_a_usage_error() {
    let h = Hostile::new();
    h.publish(&[]);
    for (reason, private, code) in [
        ("asked by +1 555 010 9999", "010 9999", "phone"),
        ("ops.lead@example.com asked", "ops.lead", "email"),
        (
            "chat -1001234567890 went private",
            "1001234567890",
            "digit_run",
        ),
        (
            "log moved to /home/agent/old",
            "/home/agent",
            "drive_or_home_path",
        ),
    ] {
        let before = state(h.root());
        let o = h.build(&["--allow-rewrite", reason]);
        refused_untouched(&h, &o, &before, 2);
        let err = stderr(&o);
        assert!(err.contains("--allow-rewrite"), "{err}");
        assert!(err.contains(code), "names the rule {code}: {err}");
        assert!(!err.contains(private), "never echoes it: {err}");
    }
    let o = h.build(&["--allow-rewrite", "gate history re-chained after disk loss"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
}

// ---- 12. Withheld moments of issue 48: every RFC 3339 form -------------------------------------

/// The tail's logs name a withheld seq's moment with a fraction of a second, an offset, a
/// lowercase `t`/`z` or a space: each is cut to the anchor zone's day as the plain form is.
#[test]
fn a_withheld_moment_in_any_rfc3339_form_is_cut_to_the_day() {
    // WITHHELD_TS is 2026-10-25T03:04:05Z.
    for form in [
        "2026-10-25T03:04:05.123Z",
        "2026-10-25T05:04:05+02:00",
        "2026-10-24T23:04:05.250-04:00",
        "2026-10-25t03:04:05z",
        "2026-10-25 03:04:05Z",
    ] {
        let h = Hostile::new();
        let (runs, seal, page) = logs_published(&h, form, form);
        for (what, s) in [
            ("runs.jsonl", &runs),
            ("seal.jsonl", &seal),
            ("page", &page),
        ] {
            assert!(!s.contains(&form[11..19]), "{what} names {form}:\n{s}");
        }
        assert!(runs.contains("\"run_at\":\"2026-10-24\""), "{form}: {runs}");
        assert!(
            seal.contains("\"resealed_at\":\"2026-10-24\""),
            "{form}: {seal}"
        );
    }
}

/// What cannot be hidden is said on the page: a withheld line's time is bounded by its
/// published neighbours' timestamps.
#[test]
fn the_page_says_a_withheld_lines_time_is_bounded_by_its_neighbours() {
    let h = Hostile::new();
    h.publish(&[]);
    let page = page_of(&h);
    assert!(
        page.contains("The time of a withheld line cannot be hidden beyond its neighbours"),
        "the page states the bound"
    );
}

/// A blob bomb at HEAD (issue 48, class 11): a file of the exhibit replaced at HEAD by a blob that
/// packs small and inflates past what such a file can be is refused from its header, unread,
/// naming the file: never an allocation failure, an abort or an OOM kill. The blob is written
/// by `git hash-object` from a stream, so the test itself holds none of it.
#[test]
fn a_blob_bomb_at_head_is_refused_unread() {
    let h = Hostile::new();
    let o = h.build_witness(&[]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    commit_site(&h.repo);
    let proof = std::fs::read_dir(h.site().join("ledger/witness/proofs"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .find(|n| n.ends_with(".ots") && !n.starts_with("prereg_"))
        .unwrap();
    let work = h.root().join("exhibit");
    let git = |args: &[&str], stdin: Option<std::process::Stdio>| {
        let mut c = std::process::Command::new("git");
        c.current_dir(&work).args(args);
        if let Some(s) = stdin {
            c.stdin(s);
        }
        let o = c.output().unwrap();
        assert!(o.status.success(), "git {args:?}: {}", text(&o));
        String::from_utf8(o.stdout).unwrap().trim().to_string()
    };
    for (victim, mib) in [
        ("ledger/STATS.json".to_string(), 160),
        ("ledger/SNAPSHOTS.jsonl".to_string(), 160),
        ("ledger/ledger.jsonl".to_string(), 160),
        (format!("ledger/witness/proofs/{proof}"), 2),
    ] {
        let mut zeros = std::process::Command::new("head")
            .args(["-c", &format!("{mib}M"), "/dev/zero"])
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let id = git(
            &["hash-object", "-w", "--stdin"],
            Some(zeros.stdout.take().unwrap().into()),
        );
        assert!(zeros.wait().unwrap().success());
        let head = git(&["rev-parse", "HEAD"], None);
        git(
            &[
                "update-index",
                "--cacheinfo",
                &format!("100644,{id},site/{victim}"),
            ],
            None,
        );
        git(
            &[
                "-c",
                "user.name=t",
                "-c",
                "user.email=t@t",
                "commit",
                "-qm",
                "bomb",
            ],
            None,
        );
        let o = h.build_witness(&[]);
        assert_eq!(o.status.code(), Some(2), "{victim}: {}", text(&o));
        let err = stderr(&o);
        assert!(err.contains("over the ceiling"), "{victim}: {err}");
        assert!(err.contains(&victim), "{victim}: names the file: {err}");
        git(&["reset", "-q", "--hard", &head], None);
    }
}

/// A filesystem mounted inside DIR is refused before anything is written (issue 48, class 12):
/// the old tree's removal emptied it, and the build exited 2 after DIR was replaced. A tmpfs and
/// a bind mount (the same filesystem, so no device number tells it) are both refused, their
/// files untouched. Needs root to mount, as CI is; elsewhere the test says so and checks nothing.
#[test]
fn a_mount_inside_dir_is_refused_and_left_untouched() {
    let h = Hostile::new();
    h.publish(&[]);
    let outside = h.root().join("precious");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("keep.txt"), "mine").unwrap();
    for how in [
        vec!["-t", "tmpfs", "none"],
        vec!["--bind", outside.to_str().unwrap()],
    ] {
        let point = h.site().join("ledger/mounted");
        std::fs::create_dir_all(&point).unwrap();
        let mut args = how.clone();
        args.push(point.to_str().unwrap());
        let mounted = std::process::Command::new("mount").args(&args).output();
        if !mounted.as_ref().is_ok_and(|o| o.status.success()) {
            eprintln!("a_mount_inside_dir: cannot mount here (not root?): skipped {how:?}");
            std::fs::remove_dir(&point).unwrap();
            continue;
        }
        std::fs::write(point.join("inside.txt"), "theirs").unwrap();
        let o = h.build(&[]);
        let inside = std::fs::read_to_string(point.join("inside.txt"));
        let _ = std::process::Command::new("umount").arg(&point).status();
        assert_eq!(o.status.code(), Some(2), "{how:?}: {}", text(&o));
        assert!(
            stderr(&o).contains("mounted inside the output folder"),
            "{}",
            text(&o)
        );
        assert!(
            stderr(&o).contains("ledger/mounted"),
            "names it: {}",
            text(&o)
        );
        assert_eq!(
            inside.unwrap(),
            "theirs",
            "{how:?}: the mount's files are untouched"
        );
        std::fs::remove_dir(&point).unwrap();
    }
    assert_eq!(
        std::fs::read_to_string(outside.join("keep.txt")).unwrap(),
        "mine"
    );
    // Unmounted, the same folder builds.
    let o = h.build(&[]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
}

/// Withdrawing a layer HEAD publishes is refused without --allow-rewrite, and with it is a
/// rewrite recorded as one (issue 48, class 9): the snapshot says `extends: false` and carries
/// the reason. It recorded `extends: true` and no reason while the layer's files went.
#[test]
fn withdrawing_a_layer_is_recorded_as_a_rewrite_with_its_reason() {
    let h = Hostile::new();
    let o = h.build_witness(&[]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    commit_site(&h.repo);
    let o = h.build(&[]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(stderr(&o).contains("layer_withdrawn"), "{}", text(&o));
    assert!(h.site().join("ledger/witness").exists());
    let reason = "the witness tail was retired";
    let o = h.build(&["--allow-rewrite", reason]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(!h.site().join("ledger/witness").exists());
    let snaps = std::fs::read_to_string(h.site().join("ledger/SNAPSHOTS.jsonl")).unwrap();
    let last: J = serde_json::from_str(snaps.lines().last().unwrap()).unwrap();
    assert_eq!(last["extends"], false, "{last}");
    assert_eq!(last["rewrite_reason"], reason, "{last}");
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("extends: false"),
        "{}",
        text(&o)
    );
}

/// The tail's run log given a run at `run_at` and its seal a line resealed at `resealed_at`,
/// built: the published runs.jsonl, seal.jsonl and the page's witness block.
fn logs_published(h: &Hostile, run_at: &str, resealed_at: &str) -> (String, String, String) {
    std::fs::write(
        h.store().join("runs.jsonl"),
        format!("{{\"run_at\":\"{run_at}\",\"lines_seen\":4}}\n"),
    )
    .unwrap();
    let mut seal = std::fs::read_to_string(h.store().join("seal.jsonl")).unwrap();
    seal.push_str(&format!("{{\"resealed_at\":\"{resealed_at}\"}}\n"));
    std::fs::write(h.store().join("seal.jsonl"), seal).unwrap();
    let o = h.build_witness(&[]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let runs = std::fs::read_to_string(h.site().join("ledger/witness/runs.jsonl")).unwrap();
    let seal = std::fs::read_to_string(h.site().join("ledger/witness/seal.jsonl")).unwrap();
    let page = data_block(&page_of(h), "witness-json");
    (runs, seal, page)
}
