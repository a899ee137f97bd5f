//! Successive builds in a temporary git repository (issue 3, "Tests that show it"): first
//! publication, lines appended, a line withheld, an attempted rewrite refused, the same rewrite
//! accepted with --allow-rewrite — and `git log -p ledger/ledger.jsonl` shows additions only
//! except where a snapshot line says why.

use crate::common;

use common::*;

fn setup() -> (tempfile::TempDir, TestBox, git2::Repository, String) {
    let tmp = tempfile::tempdir().unwrap();
    let b = TestBox::new(tmp.path());
    let repo = git2::Repository::init(tmp.path().join("exhibit")).unwrap();
    let site = tmp.path().join("exhibit/site").display().to_string();
    (tmp, b, repo, site)
}

fn snapshots(site: &str) -> Vec<serde_json::Value> {
    std::fs::read_to_string(format!("{site}/ledger/SNAPSHOTS.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn successive_builds_are_append_only_unless_a_reason_is_recorded() {
    let (_tmp, b, repo, site) = setup();
    let mut w = LedgerWriter::new();
    for n in 1..=10 {
        w.push_scan(n);
    }
    b.write_ledger(&w.bytes());

    // 1. First publication.
    let o = exhibit(
        &["build", "--config", &b.config(), "--out", &site],
        1_790_000_000,
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let snaps = snapshots(&site);
    assert_eq!(snaps.len(), 1);
    assert_eq!(snaps[0]["extends"], true);
    assert_eq!(snaps[0]["extends_commit"], serde_json::Value::Null);
    assert_eq!(snaps[0]["built_at"], "2026-09-21T14:13:20Z"); // date -u -d @1790000000
    let c1 = commit_all(&repo, "first publication");

    // 2. The same inputs again, later: byte-identical tree, no snapshot appended.
    let before = snapshot_dir(std::path::Path::new(&site));
    let o = exhibit(
        &["build", "--config", &b.config(), "--out", &site],
        1_790_009_999,
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("no snapshot appended"));
    assert_eq!(
        snapshot_dir(std::path::Path::new(&site)),
        before,
        "rebuild is byte-identical"
    );

    // 3. Lines appended.
    for n in 11..=14 {
        w.push_scan(n);
    }
    b.write_ledger(&w.bytes());
    let o = exhibit(
        &["build", "--config", &b.config(), "--out", &site],
        1_790_100_000,
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let snaps = snapshots(&site);
    assert_eq!(snaps.len(), 2);
    assert_eq!(snaps[1]["extends"], true);
    assert_eq!(snaps[1]["extends_commit"], c1.to_string());
    commit_all(&repo, "lines appended");

    // 4. A line withheld: an identifier's shape in a text field.
    let withheld_id = w.push(
        "gate_not_wired",
        "2026-10-24T13:15:00Z",
        r#"{"detail":"lock held by /home/agent"}"#,
    );
    w.push_scan(16);
    b.write_ledger(&w.bytes());
    let o = exhibit(
        &["build", "--config", &b.config(), "--out", &site],
        1_790_200_000,
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let withheld: serde_json::Value =
        serde_json::from_slice(&std::fs::read(format!("{site}/ledger/withheld.json")).unwrap())
            .unwrap();
    assert_eq!(withheld[0]["seq"], 15);
    assert_eq!(withheld[0]["entry_id"], withheld_id);
    assert_eq!(withheld[0]["fields_flagged"], serde_json::json!(["detail"]));
    let published = std::fs::read_to_string(format!("{site}/ledger/ledger.jsonl")).unwrap();
    assert!(
        !published.contains("/home/agent"),
        "the withheld words never leave the box"
    );
    let check = exhibit(&["verify", "--json", &site], 0);
    assert_eq!(check.status.code(), Some(0), "{}", text(&check));
    let v: serde_json::Value = serde_json::from_slice(&check.stdout).unwrap();
    assert_eq!(v["head"], w.ids.last().unwrap().as_str());
    assert_eq!(v["bridged"], serde_json::json!([15]));
    commit_all(&repo, "a line withheld");

    // 5. An attempted rewrite: the gate's history re-chained from seq 3. Refused; DIR untouched.
    let mut rewritten = LedgerWriter::new();
    rewritten.push_scan(1);
    rewritten.push_scan(2);
    for n in 3..=17 {
        rewritten.push_scan(n + 100);
    }
    b.write_ledger(&rewritten.bytes());
    let before = snapshot_dir(std::path::Path::new(&site));
    let o = exhibit(
        &["build", "--config", &b.config(), "--out", &site],
        1_790_300_000,
    );
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("ledger/ledger.jsonl line 4"), "{err}");
    assert!(err.contains("does not byte-extend"), "{err}");
    assert!(err.contains("--allow-rewrite REASON"), "{err}");
    assert!(err.contains("was not touched"), "{err}");
    assert_eq!(
        snapshot_dir(std::path::Path::new(&site)),
        before,
        "a refused build leaves DIR as it was"
    );

    // 6. The same rewrite accepted with a recorded reason.
    let reason = "gate history re-chained after disk loss (head_repaired)";
    let o = exhibit(
        &[
            "build",
            "--config",
            &b.config(),
            "--out",
            &site,
            "--allow-rewrite",
            reason,
        ],
        1_790_400_000,
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let snaps = snapshots(&site);
    let last = snaps.last().unwrap();
    assert_eq!(last["extends"], false);
    assert_eq!(last["rewrite_reason"], reason);
    commit_all(&repo, "rewrite with reason");

    // `git log -p ledger/ledger.jsonl`: removals only in the commit whose snapshot says why.
    let mut walk = repo.revwalk().unwrap();
    walk.push_head().unwrap();
    let mut commits_with_removals = Vec::new();
    for oid in walk {
        let commit = repo.find_commit(oid.unwrap()).unwrap();
        let tree = commit.tree().unwrap();
        let parent_tree = commit.parent(0).ok().map(|p| p.tree().unwrap());
        let mut opts = git2::DiffOptions::new();
        opts.pathspec("site/ledger/ledger.jsonl");
        let diff = repo
            .diff_tree_to_tree(parent_tree.as_ref(), Some(&tree), Some(&mut opts))
            .unwrap();
        let mut removed = 0;
        diff.print(git2::DiffFormat::Patch, |_, _, line| {
            if line.origin() == '-' {
                removed += 1;
            }
            true
        })
        .unwrap();
        if removed > 0 {
            commits_with_removals.push(commit.summary().unwrap().unwrap().to_string());
        }
    }
    assert_eq!(commits_with_removals, ["rewrite with reason"]);
}

#[test]
fn a_seq_withheld_before_stays_withheld_and_allow_line_cannot_undo_it() {
    let (_tmp, b, repo, site) = setup();
    let mut w = LedgerWriter::new();
    w.push_scan(1);
    w.push(
        "lock_recovered",
        "2026-10-24T13:02:00Z",
        r#"{"detail":"pid 4242 at ~/gate"}"#,
    );
    w.push_scan(3);
    b.write_ledger(&w.bytes());
    let o = exhibit(
        &["build", "--config", &b.config(), "--out", &site],
        1_790_000_000,
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    commit_all(&repo, "first");
    let o = exhibit(
        &[
            "build",
            "--config",
            &b.config(),
            "--out",
            &site,
            "--allow-line",
            "2",
        ],
        1_790_000_500,
    );
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("seq 2") && err.contains("withheld in an earlier publication"),
        "{err}"
    );
    // The place names the gate's line (the header is line 1), counted as the lines are read
    // (docs/scale.md#line-numbers-counted): catches a number off by one or taken from the
    // record's position.
    assert!(err.contains("line 3 (seq 2)"), "{err}");
}

#[test]
fn an_operator_reading_publishes_a_line_and_is_read_back_from_head_only() {
    let (_tmp, b, repo, site) = setup();
    let mut w = LedgerWriter::new();
    w.push_scan(1);
    w.push(
        "gate_wired",
        "2026-10-24T13:02:00Z",
        r#"{"detail":"wired at 13:02 by operator"}"#,
    );
    b.write_ledger(&w.bytes());
    let o = exhibit(
        &[
            "build",
            "--config",
            &b.config(),
            "--out",
            &site,
            "--allow-line",
            "2",
        ],
        1_790_000_000,
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let published = std::fs::read_to_string(format!("{site}/ledger/ledger.jsonl")).unwrap();
    assert!(published.contains("wired at 13:02"));
    let readings = std::fs::read_to_string(format!("{site}/ledger/readings.json")).unwrap();
    assert!(readings.contains("\"seq\": 2"), "{readings}");
    commit_all(&repo, "published on a reading");

    // Without the flag the committed reading still stands.
    w.push_scan(3);
    b.write_ledger(&w.bytes());
    let o = exhibit(
        &["build", "--config", &b.config(), "--out", &site],
        1_790_000_100,
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));

    // A reading removed from HEAD by hand is an edit of what exhibit built: HEAD no longer
    // re-derives to its last snapshot, and the build refuses naming the file (issue 9).
    std::fs::remove_file(format!("{site}/ledger/readings.json")).unwrap();
    commit_all(&repo, "reading dropped");
    let o = exhibit(
        &["build", "--config", &b.config(), "--out", &site],
        1_790_000_200,
    );
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("readings.json") && err.contains("edited since exhibit built it"),
        "{err}"
    );
    assert!(err.contains("--allow-rewrite"), "{err}");
}

#[test]
fn bad_input_gets_a_clear_answer() {
    let tmp = tempfile::tempdir().unwrap();
    let b = TestBox::new(tmp.path());
    let site = tmp.path().join("site").display().to_string();

    // The ledger named in exhibit.toml is missing: exit 2, the path named.
    let o = exhibit(&["build", "--config", &b.config(), "--out", &site], 1);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("gate/ledger.jsonl"), "{}", text(&o));

    // exhibit.toml unreadable or not TOML.
    let o = exhibit(
        &[
            "build",
            "--config",
            "/nonexistent/exhibit.toml",
            "--out",
            &site,
        ],
        1,
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).contains("/nonexistent/exhibit.toml"));
    let bad = tmp.path().join("bad.toml");
    std::fs::write(&bad, "[gate\nledger=").unwrap();
    let o = exhibit(
        &["build", "--config", bad.to_str().unwrap(), "--out", &site],
        1,
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).contains("bad.toml"), "{}", text(&o));

    // A ledger with a CR byte: refused, naming the line and the rule; nothing written.
    let mut w = LedgerWriter::new();
    w.push_scan(1);
    w.push_scan(2);
    let mut bytes = w.bytes();
    let at = bytes.iter().rposition(|&c| c == b'\n').unwrap();
    bytes.insert(at, b'\r');
    b.write_ledger(&bytes);
    let o = exhibit(&["build", "--config", &b.config(), "--out", &site], 1);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(
        text(&o).contains("line 3") && text(&o).contains("cr_byte"),
        "{}",
        text(&o)
    );
    assert!(!std::path::Path::new(&site).exists(), "nothing written");

    // DIR inside no repository: a first publication (tmp is not in git).
    b.write_ledger(&w.bytes());
    let o = exhibit(&["build", "--config", &b.config(), "--out", &site], 1);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
}

#[test]
fn unborn_and_detached_heads() {
    let (_tmp, b, repo, site) = setup();
    let mut w = LedgerWriter::new();
    w.push_scan(1);
    b.write_ledger(&w.bytes());
    // Unborn HEAD: a first publication.
    let o = exhibit(
        &["build", "--config", &b.config(), "--out", &site],
        1_790_000_000,
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let c1 = commit_all(&repo, "first");
    // Detached HEAD: HEAD's commit is still what was published.
    repo.set_head_detached(c1).unwrap();
    w.push_scan(2);
    b.write_ledger(&w.bytes());
    let o = exhibit(
        &["build", "--config", &b.config(), "--out", &site],
        1_790_000_100,
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let snaps = snapshots(&site);
    assert_eq!(snaps.len(), 2);
    assert_eq!(snaps[1]["extends_commit"], c1.to_string());
}

#[test]
fn dry_run_writes_nothing_and_shows_the_diff() {
    let (_tmp, b, repo, site) = setup();
    let mut w = LedgerWriter::new();
    w.push_scan(1);
    b.write_ledger(&w.bytes());
    let o = exhibit(
        &["build", "--config", &b.config(), "--out", &site],
        1_790_000_000,
    );
    assert_eq!(o.status.code(), Some(0));
    commit_all(&repo, "first");
    let before = snapshot_dir(std::path::Path::new(&site));
    let added = w.push_scan(2);
    b.write_ledger(&w.bytes());
    let o = exhibit(
        &[
            "build",
            "--config",
            &b.config(),
            "--out",
            &site,
            "--dry-run",
        ],
        1_790_000_100,
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("changed ") && out.contains("ledger/ledger.jsonl"),
        "{out}"
    );
    assert!(
        out.contains(&format!(
            "+{}",
            String::from_utf8_lossy(w.lines.last().unwrap())
        )) || out.contains(&added[..16]),
        "{out}"
    );
    assert_eq!(
        snapshot_dir(std::path::Path::new(&site)),
        before,
        "dry run writes nothing"
    );
}

#[test]
fn heads_trees_are_read_alike_loose_and_packed() {
    // The HEAD check and the layers read HEAD's tree objects as git stores them: a loose one
    // as a stream, a packed one whole (docs/scale.md#witness-transients). Catches a reader that
    // works on one and not the other: HEAD's files would look edited, or absent, and the build
    // would refuse, append a snapshot for nothing, or stop extending the last publication.
    let (tmp, b, repo, site) = setup();
    let mut w = LedgerWriter::new();
    for n in 1..=12 {
        w.push_scan(n);
    }
    b.write_ledger(&w.bytes());
    let build = |epoch: u64| {
        let o = exhibit(&["build", "--config", &b.config(), "--out", &site], epoch);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o));
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    build(1_790_000_000);
    commit_all(&repo, "first publication");
    let ledger_tree = |repo: &git2::Repository| {
        let head = repo.head().unwrap().peel_to_tree().unwrap();
        head.get_path(std::path::Path::new("site/ledger"))
            .unwrap()
            .id()
    };
    let tree = ledger_tree(&repo);
    assert!(repo.odb().unwrap().reader(tree).is_ok(), "loose at first");
    let before = snapshot_dir(std::path::Path::new(&site));
    assert!(build(1_790_000_100).contains("no snapshot appended"));
    assert_eq!(snapshot_dir(std::path::Path::new(&site)), before);

    let git_dir = tmp.path().join("exhibit");
    let pack = || {
        for args in [&["repack", "-a", "-d", "-q"][..], &["prune-packed"][..]] {
            let ok = std::process::Command::new("git")
                .args(args)
                .current_dir(&git_dir)
                .status()
                .unwrap()
                .success();
            assert!(ok, "git {args:?}");
        }
    };
    pack();
    let repo = git2::Repository::open(&git_dir).unwrap();
    assert!(repo.odb().unwrap().reader(tree).is_err(), "packed now");
    assert!(build(1_790_000_200).contains("no snapshot appended"));
    assert_eq!(snapshot_dir(std::path::Path::new(&site)), before);

    // New lines over the packed HEAD: the publication extends it.
    for n in 13..=15 {
        w.push_scan(n);
    }
    b.write_ledger(&w.bytes());
    build(1_790_000_300);
    let snaps = snapshots(&site);
    assert_eq!(snaps.len(), 2);
    assert_eq!(snaps[1]["extends"], true, "{}", snaps[1]);

    // HEAD's files are still checked when packed: an edit committed and packed is seen (a
    // reader that found a packed folder empty would take HEAD for no exhibit at all).
    commit_all(&repo, "second publication");
    let stats = std::path::Path::new(&site).join("ledger/STATS.json");
    let mut edited = std::fs::read(&stats).unwrap();
    edited.push(b' ');
    std::fs::write(&stats, edited).unwrap();
    commit_all(&repo, "an edit by hand");
    pack();
    assert!(repo.odb().unwrap().reader(ledger_tree(&repo)).is_err());
    let o = exhibit(
        &["build", "--config", &b.config(), "--out", &site],
        1_790_000_400,
    );
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).contains("head_edited"), "{}", text(&o));
    // And loose: one more edit, committed and not packed.
    let mut edited = std::fs::read(&stats).unwrap();
    edited.push(b' ');
    std::fs::write(&stats, edited).unwrap();
    commit_all(&repo, "another edit by hand");
    assert!(repo.odb().unwrap().reader(ledger_tree(&repo)).is_ok());
    let o = exhibit(
        &["build", "--config", &b.config(), "--out", &site],
        1_790_000_500,
    );
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).contains("head_edited"), "{}", text(&o));
}

/// A fresh build's STATS.json coverage is what `exhibit verify SITE` (and the page) re-derive
/// from the site (issue 48, classes 8 and 20): a head vouches only when its four checks pass and
/// its proof does not fail. The build counted a head whose day a late line reopened, and one
/// whose proof failed, as vouching; its own site then failed `stats_figure_mismatch`.
#[test]
fn a_fresh_build_agrees_with_its_own_check_on_coverage() {
    for case in ["late line on a posted day", "failing proof"] {
        let (_tmp, b, _repo, site) = setup();
        let mut w = LedgerWriter::new();
        for n in 1..=3 {
            w.push_scan(n);
        }
        // seq 4: the next day, then the post for the first day naming seq 3.
        w.push(
            "exec_scan",
            "2026-10-25T14:00:00Z",
            r#"{"scanned":4,"flagged":0}"#,
        );
        if case == "late line on a posted day" {
            // seq 5 dated on 2026-10-24, written after that day's head was posted.
            w.push(
                "exec_scan",
                "2026-10-24T20:00:00Z",
                r#"{"scanned":5,"flagged":0}"#,
            );
        }
        w.push(
            "exec_scan",
            "2026-10-26T14:00:00Z",
            r#"{"scanned":6,"flagged":0}"#,
        );
        b.write_ledger(&w.bytes());
        b.post_anchor("2026-10-24", &w.ids[2], 3);
        if case == "failing proof" {
            std::fs::write(
                b.dir.join("gate/anchors/2026-10-24.txt.ots"),
                b"\x00OpenTimestamps\x00\x00Proof\x00\xbf\x89\xe2\xe8\x84\xe8\x92\x94\x01\x08not the post's digest, a proof of another file",
            )
            .unwrap();
        }
        let o = exhibit(
            &["build", "--config", &b.config(), "--out", &site],
            1_793_000_000,
        );
        assert_eq!(o.status.code(), Some(0), "{case}: {}", text(&o));
        let (_, v) = verify_json(std::path::Path::new(&site));
        let mismatches: Vec<_> = file_problems(&v)
            .into_iter()
            .filter(|(_, code)| code == "stats_figure_mismatch")
            .collect();
        assert!(mismatches.is_empty(), "{case}: {mismatches:?}\n{v}");
        let stats: serde_json::Value =
            serde_json::from_slice(&std::fs::read(format!("{site}/ledger/STATS.json")).unwrap())
                .unwrap();
        assert_eq!(stats["coverage"]["pinned"]["count"], 0, "{case}: {stats}");
    }
}

/// The site's size against GitHub Pages' limits (docs/hosting.md#limits): `STATS.json` counts
/// every file but the three heads, the summary counts them all. Catches figures taken from
/// another tree (HEAD's, or the tree before the layers), a head counted in STATS.json, and a
/// summary that leaves the heads out.
#[test]
fn the_site_is_measured_against_the_hosts_limits() {
    let (_tmp, b, _repo, site) = setup();
    let mut w = LedgerWriter::new();
    (1..=12).for_each(|n| drop(w.push_scan(n)));
    b.write_ledger(&w.bytes());
    let o = exhibit(
        &["build", "--config", &b.config(), "--out", &site],
        1_790_000_000,
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let files = snapshot_dir(std::path::Path::new(&site));
    let heads = ["ledger/STATS.json", "ledger/SNAPSHOTS.jsonl", "index.html"];
    let (mut bytes, mut count, mut all) = (0u64, 0u64, 0u64);
    for (path, content) in &files {
        all += content.len() as u64;
        if !heads.contains(&path.as_str()) {
            bytes += content.len() as u64;
            count += 1;
        }
    }
    let stats: serde_json::Value = serde_json::from_slice(&files["ledger/STATS.json"]).unwrap();
    let h = &stats["hosting"];
    assert_eq!(h["bytes"], bytes);
    assert_eq!(h["files"], count);
    assert_eq!(h["site_bytes_limit"], 1_000_000_000u64);
    assert_eq!(h["file_bytes_limit"], 100_000_000u64);
    assert_eq!(h["largest_file"]["path"], "ledger/ledger.jsonl");
    let said = String::from_utf8_lossy(&o.stdout);
    assert!(
        said.contains(&format!("in {} file(s), largest index.html", files.len())),
        "{said}"
    );
    assert!(all > bytes && !text(&o).contains("warning"), "{}", text(&o));
}
