//! The segmented published ledger (issue 12, docs/scale.md), in temporary git repositories with
//! `segment_bytes = 4096` so a few dozen lines cross the threshold: the first build's cut, full
//! segments untouched by later builds (bytes and `git status`), the switch from one file
//! extending the last snapshot, reassembly with `cat` equal to a one-file build, `verify SITE`
//! on both layouts and on damaged ones, and an old oversized `ledger.jsonl` left as it is.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::common::*;
use exhibit_protocol::Digest;
use serde_json::{Value, json};

const SEGMENT_BYTES: usize = 4096;

struct Scene {
    _tmp: tempfile::TempDir,
    b: TestBox,
    repo: git2::Repository,
    work: PathBuf,
    site: PathBuf,
    w: LedgerWriter,
}

fn scene(segment_bytes: Option<usize>) -> Scene {
    let tmp = tempfile::tempdir().unwrap();
    let b = TestBox::new(tmp.path());
    let work = tmp.path().join("exhibit");
    let repo = git2::Repository::init(&work).unwrap();
    let site = work.join("site");
    let s = Scene {
        _tmp: tmp,
        b,
        repo,
        work,
        site,
        w: LedgerWriter::new(),
    };
    s.set_segment_bytes(segment_bytes);
    s
}

impl Scene {
    fn set_segment_bytes(&self, n: Option<usize>) {
        let mut config =
            "[gate]\nledger = \"gate/ledger.jsonl\"\nanchors = \"gate/anchors\"\n".to_string();
        if let Some(n) = n {
            config.push_str(&format!("\n[publish]\nsegment_bytes = {n}\n"));
        }
        std::fs::write(self.b.dir.join("exhibit.toml"), config).unwrap();
    }

    /// Appends `n` publishable lines to the gate's ledger.
    fn append(&mut self, n: u32) {
        let from = self.w.ids.len() as u32 + 1;
        for k in from..from + n {
            self.w.push_scan(k);
        }
        self.b.write_ledger(&self.w.bytes());
    }

    fn build(&self, epoch: u64, extra: &[&str]) -> Output {
        let site = self.site.display().to_string();
        let config = self.b.config();
        let mut args = vec!["build", "--config", &config, "--out", &site];
        args.extend_from_slice(extra);
        exhibit(&args, epoch)
    }

    fn build_ok(&self, epoch: u64) {
        let o = self.build(epoch, &[]);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    }

    fn commit(&self, message: &str) -> git2::Oid {
        commit_all(&self.repo, message)
    }

    /// The published ledger's files on disk, in chain order (`ledger.jsonl`, then
    /// `segments/` in name order), as (path relative to the site, bytes).
    fn files(&self) -> Vec<(String, Vec<u8>)> {
        let mut out = vec![(
            "ledger/ledger.jsonl".to_string(),
            std::fs::read(self.site.join("ledger/ledger.jsonl")).unwrap(),
        )];
        let dir = self.site.join("ledger/segments");
        if let Ok(entries) = std::fs::read_dir(&dir) {
            let mut names: Vec<String> = entries
                .map(|e| e.unwrap().file_name().into_string().unwrap())
                .collect();
            names.sort();
            for n in names {
                out.push((
                    format!("ledger/segments/{n}"),
                    std::fs::read(dir.join(&n)).unwrap(),
                ));
            }
        }
        out
    }

    fn json(&self, rel: &str) -> Value {
        serde_json::from_slice(&std::fs::read(self.site.join(rel)).unwrap()).unwrap()
    }

    fn snapshots(&self) -> Vec<Value> {
        std::fs::read_to_string(self.site.join("ledger/SNAPSHOTS.jsonl"))
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    /// `git status --porcelain` of the exhibit's work tree.
    fn git_status(&self) -> String {
        git_status(&self.work)
    }
}

fn lines_of(bytes: &[u8]) -> Vec<&[u8]> {
    bytes
        .split_inclusive(|&b| b == b'\n')
        .collect::<Vec<&[u8]>>()
}

/// The checks a stranger can make of the cut from the files alone: names in order, whole
/// lines, LF at the end, at most `segment_bytes` unless one line, and greedy (the next file's
/// first line would not have fitted), and that STATS.json lists exactly these files.
fn assert_cut(s: &Scene, segment_bytes: usize) {
    let files = s.files();
    for (i, (path, bytes)) in files.iter().enumerate() {
        if i > 0 {
            assert_eq!(path, &format!("ledger/segments/{i:06}.jsonl"));
        }
        assert!(bytes.ends_with(b"\n"), "{path} ends with LF");
        let lines = lines_of(bytes);
        assert!(!lines.is_empty(), "{path} holds a line");
        assert!(
            bytes.len() <= segment_bytes || lines.len() == 1,
            "{path}: {} bytes over {segment_bytes}",
            bytes.len()
        );
        if let Some((_, next)) = files.get(i + 1) {
            let first = lines_of(next)[0];
            assert!(
                bytes.len() + first.len() > segment_bytes,
                "{path} ({} bytes) had room for the next file's first line ({} bytes)",
                bytes.len(),
                first.len()
            );
        }
    }
    let stats = s.json("ledger/STATS.json");
    let listed = stats["ledger"]["files"].as_array().unwrap();
    assert_eq!(listed.len(), files.len());
    assert_eq!(stats["ledger"]["segment_bytes"], segment_bytes);
    for ((path, bytes), l) in files.iter().zip(listed) {
        let lines = lines_of(bytes);
        let entry = |line: &[u8]| -> Value { serde_json::from_slice(line).unwrap() };
        let entries: Vec<Value> = lines
            .iter()
            .map(|l| entry(l))
            .filter(|v| v.get("seq").is_some())
            .collect();
        let want = json!({
            "path": path,
            "bytes": bytes.len(),
            "lines": lines.len(),
            "sha256": Digest::of(bytes).to_string(),
            "first_seq": entries.first().map(|e| e["seq"].clone()),
            "last_seq": entries.last().map(|e| e["seq"].clone()),
            // A file holding the header alone: the header digest, the head of an empty chain.
            "head": entries
                .last()
                .map_or(Value::from(s.w.header_digest.as_str()), |e| e["entry_id"].clone()),
        });
        assert_eq!(l, &want, "STATS.json's entry for {path}");
    }
}

/// The listing digest a stranger re-derives, run as docs/scale.md gives it.
fn listing_digest(site: &Path) -> String {
    let o = Command::new("bash")
        .arg("-c")
        .arg("(cd ledger/segments && find . -type f | sort | xargs sha256sum) | sha256sum")
        .current_dir(site)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    String::from_utf8(o.stdout).unwrap()[..64].to_string()
}

#[test]
fn a_first_build_past_the_threshold_cuts_the_ledger_into_segments_and_records_them() {
    let mut s = scene(Some(SEGMENT_BYTES));
    s.append(60);
    s.build_ok(1_790_000_000);
    let files = s.files();
    assert!(
        files.len() >= 4,
        "60 lines of ~300 bytes: {} files",
        files.len()
    );
    assert_cut(&s, SEGMENT_BYTES);
    let snap = s.snapshots();
    let last = snap.last().unwrap();
    assert_eq!(
        last["segments"],
        json!({"files": files.len() - 1, "segment_bytes": SEGMENT_BYTES})
    );
    assert_eq!(last["digests"]["segments/"], listing_digest(&s.site));
    assert_eq!(last["extends"], true);
    let (code, v) = verify_json(&s.site);
    assert_eq!(code, Some(0), "{v}");
    assert_eq!(v["head"], s.w.ids.last().unwrap().as_str());
    assert_eq!(v["entries"], 60);
}

#[test]
fn small_exhibits_record_no_segments() {
    let mut s = scene(Some(SEGMENT_BYTES));
    s.append(5);
    s.build_ok(1_790_000_000);
    assert_eq!(s.files().len(), 1);
    assert!(!s.site.join("ledger/segments").exists());
    let stats = s.json("ledger/STATS.json");
    assert!(stats["ledger"].get("files").is_none(), "{stats}");
    assert!(stats["ledger"].get("segment_bytes").is_none(), "{stats}");
    let last = s.snapshots().pop().unwrap();
    assert!(last.get("segments").is_none(), "{last}");
    assert!(last["digests"].get("segments/").is_none(), "{last}");
}

#[test]
fn later_builds_leave_every_full_segment_byte_identical() {
    let mut s = scene(Some(SEGMENT_BYTES));
    s.append(50);
    s.build_ok(1_790_000_000);
    s.commit("first publication");
    let mut before = s.files();
    for (day, epoch) in [(1, 1_790_100_000u64), (2, 1_790_200_000)] {
        s.append(25);
        s.build_ok(epoch);
        let after = s.files();
        assert!(after.len() > before.len(), "day {day}: new segments");
        // Every file but HEAD's last is byte-identical; HEAD's last only grew.
        let (last_before, full) = before.split_last().unwrap();
        for ((p, b), (q, c)) in full.iter().zip(&after) {
            assert_eq!((p, b), (q, c), "day {day}: {p} changed");
        }
        let grown = &after[before.len() - 1];
        assert_eq!(grown.0, last_before.0);
        assert!(
            grown.1.starts_with(&last_before.1),
            "day {day}: the last file only grows"
        );
        assert_cut(&s, SEGMENT_BYTES);
        // git sees no change to a full segment: only HEAD's last file, new files, STATS,
        // SNAPSHOTS and the page.
        let status = s.git_status();
        for (p, _) in full {
            assert!(
                !status.contains(p.as_str()),
                "day {day}: git status names {p}:\n{status}"
            );
        }
        assert!(status.contains("site/ledger/STATS.json"), "{status}");
        assert!(
            status.contains(&format!("?? site/{}", after.last().unwrap().0)),
            "{status}"
        );
        assert_eq!(s.snapshots().last().unwrap()["extends"], true);
        s.commit(&format!("day {day}"));
        // The same inputs again: nothing changes at all.
        s.build_ok(epoch + 1000);
        assert_eq!(s.git_status(), "", "day {day}: an unchanged rebuild");
        assert_eq!(s.files(), after);
        let (code, v) = verify_json(&s.site);
        assert_eq!(code, Some(0), "{v}");
        before = after;
    }
}

#[test]
fn the_switch_from_one_file_to_segments_extends_the_last_snapshot() {
    let mut s = scene(Some(SEGMENT_BYTES));
    s.append(6);
    s.build_ok(1_790_000_000);
    let one = s.files();
    assert_eq!(one.len(), 1);
    let c1 = s.commit("one file");
    s.append(40);
    s.build_ok(1_790_100_000);
    let files = s.files();
    assert!(files.len() > 2, "{} files", files.len());
    // Nothing published is removed or rewritten by the switch: the old file is a prefix of
    // the new ledger.jsonl, which filled up to the threshold first.
    assert!(files[0].1.starts_with(&one[0].1));
    assert_cut(&s, SEGMENT_BYTES);
    let snaps = s.snapshots();
    assert_eq!(snaps.len(), 2);
    assert!(snaps[0].get("segments").is_none());
    assert_eq!(snaps[1]["extends"], true);
    assert_eq!(snaps[1]["extends_commit"], c1.to_string());
    assert_eq!(snaps[1]["rewrite_reason"], Value::Null);
    assert_eq!(snaps[1]["segments"]["files"], files.len() - 1);
    s.commit("segmented");
    let (code, v) = verify_json(&s.site);
    assert_eq!(code, Some(0), "{v}");
}

#[test]
fn reassembled_with_cat_the_files_are_the_published_ledger_of_a_one_file_build() {
    let mut s = scene(Some(SEGMENT_BYTES));
    s.append(20);
    // A withheld line, so the published ledger is not the gate's ledger.
    s.w.push(
        "gate_not_wired",
        "2026-10-24T18:00:00Z",
        r#"{"detail":"lock held by /home/agent"}"#,
    );
    s.append(30);
    s.build_ok(1_790_000_000);
    assert!(s.files().len() > 2);
    // The README's commands, verbatim.
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let steps = [
        "cat ledger/ledger.jsonl ledger/segments/*.jsonl > published.jsonl",
        "sha256sum ledger/ledger.jsonl ledger/segments/*.jsonl",
        "jq -r '.ledger.files[] | \"\\(.sha256)  \\(.path)\"' ledger/STATS.json | sha256sum -c",
    ];
    for step in steps {
        assert!(readme.contains(step), "README.md no longer says `{step}`");
    }
    let run = |line: &str| {
        let o = Command::new("bash")
            .arg("-c")
            .arg(line)
            .current_dir(&s.site)
            .output()
            .unwrap();
        assert!(o.status.success(), "`{line}`: {}", text(&o));
        o
    };
    run(steps[0]);
    let listed = String::from_utf8(run(steps[1]).stdout).unwrap();
    for (path, bytes) in s.files() {
        assert!(
            listed.contains(&format!("{}  {path}", Digest::of(&bytes))),
            "{listed}"
        );
    }
    if Command::new("jq").arg("--version").output().is_ok() {
        run(steps[2]);
    }
    // What README says of it: a stranger's verify re-derives it with the withheld list.
    assert!(readme.contains("exhibit verify --withheld ledger/withheld.json published.jsonl"));
    let published = s.site.join("published.jsonl").display().to_string();
    let withheld = s.site.join("ledger/withheld.json").display().to_string();
    let o = exhibit(&["verify", "--withheld", &withheld, &published], 0);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let cat = std::fs::read(s.site.join("published.jsonl")).unwrap();
    std::fs::remove_file(s.site.join("published.jsonl")).unwrap();

    // The same box built as one file (the default threshold).
    let one = tempfile::tempdir().unwrap();
    s.set_segment_bytes(None);
    let out = one.path().join("site");
    let o = exhibit(
        &[
            "build",
            "--config",
            &s.b.config(),
            "--out",
            &out.display().to_string(),
        ],
        1_790_000_000,
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(!out.join("ledger/segments").exists());
    let single = std::fs::read(out.join("ledger/ledger.jsonl")).unwrap();
    assert_eq!(
        cat, single,
        "cat of the segmented files = the one-file publication"
    );
    // And the gate's own lines, the withheld one (seq 21) left out, as the test wrote them.
    let mut expected = Vec::new();
    for (i, line) in s.w.lines.iter().enumerate() {
        if i != 21 {
            expected.extend_from_slice(line);
            expected.push(b'\n');
        }
    }
    assert!(
        cat == expected,
        "cat = the gate's ledger less its withheld line"
    );
    assert!(!String::from_utf8_lossy(&cat).contains("/home/agent"));
    assert_eq!(
        lines_of(&cat).len(),
        1 + 50,
        "header and the 50 published lines"
    );
    // Both layouts verify to the same head.
    let (c1, v1) = verify_json(&s.site);
    let (c2, v2) = verify_json(&out);
    assert_eq!((c1, c2), (Some(0), Some(0)), "{v1}\n{v2}");
    assert_eq!(v1["head"], v2["head"]);
    assert_eq!(v1["bridged"], json!([21]));
}

/// A segmented exhibit, built, and a fresh copy of it for each damage.
fn damaged(s: &Scene, damage: impl FnOnce(&Path)) -> (Option<i32>, Value) {
    let copy = s._tmp.path().join("copy");
    let _ = std::fs::remove_dir_all(&copy);
    copy_site(&s.site, &copy);
    damage(&copy);
    verify_json(&copy)
}

#[test]
fn verify_site_reads_the_segments_and_names_the_file_that_is_wrong() {
    let mut s = scene(Some(SEGMENT_BYTES));
    s.append(60);
    s.build_ok(1_790_000_000);
    let n = s.files().len() - 1;
    assert!(n >= 4);
    let (code, v) = verify_json(&s.site);
    assert_eq!(code, Some(0), "{v}");
    assert_eq!(v["files"], json!([]));

    // One segment edited (a digit of a count): the chain breaks there, and its bytes no
    // longer match STATS.json; both name the file.
    let (code, v) = damaged(&s, |d| {
        let p = d.join("ledger/segments/000002.jsonl");
        let t = std::fs::read_to_string(&p).unwrap();
        std::fs::write(&p, t.replacen("\"flagged\":0", "\"flagged\":1", 1)).unwrap();
    });
    assert_eq!(code, Some(1), "{v}");
    assert_file_problem(&v, "ledger/segments/000002.jsonl", "stats_file_mismatch");
    let chain = v["problems"][0]["detail"].as_str().unwrap();
    assert!(chain.contains("ledger/segments/000002.jsonl line"), "{v}");

    // A segment in the middle missing: a gap.
    let (code, v) = damaged(&s, |d| {
        std::fs::remove_file(d.join("ledger/segments/000002.jsonl")).unwrap();
    });
    assert_eq!(code, Some(1), "{v}");
    let problems = file_problems(&v);
    assert!(
        problems.contains(&(
            "ledger/segments/000002.jsonl".into(),
            "segment_missing".into()
        )),
        "{v}"
    );

    // The last segment missing: the chain that is left is whole, only the list can tell.
    let last = format!("ledger/segments/{n:06}.jsonl");
    let (code, v) = damaged(&s, |d| std::fs::remove_file(d.join(&last)).unwrap());
    assert_eq!(code, Some(1), "{v}");
    assert_eq!(
        v["problems"],
        json!([]),
        "the shorter chain itself re-derives"
    );
    // The page still lists it, and carries it as its last file (docs/scale.md#the-page-against-the-site).
    // The tree, re-derived from the shorter chain, is not the one published: its checkpoint
    // and partial files differ, and STATS.json's tree is not the shorter chain's.
    let n_all = 60;
    let n_left = v["entries"].as_u64().unwrap();
    let tree = |part: &str, w: u64| format!("ledger/tree/{part}.p/{w}");
    let mut expected: Vec<(String, String)> =
        vec![("ledger/tree/checkpoint".into(), "tree_checkpoint".into())];
    for part in [
        "index/tail/0",
        "lines/000",
        "tile/0/000",
        "tile/entries/000",
    ] {
        expected.push((tree(part, n_left), "tree_file_missing".into()));
        expected.push((tree(part, n_all), "tree_stray".into()));
    }
    expected.push(("ledger/STATS.json".into(), "stats_figure_mismatch".into()));
    let all = file_problems(&v);
    let (got_tree, rest) = all.split_at(expected.len());
    assert_eq!(got_tree.to_vec(), expected);
    assert_eq!(
        rest.to_vec(),
        [
            (last.clone(), "stats_file_absent".into()),
            ("index.html".into(), "page_layout_mismatch".into()),
            ("index.html".into(), "page_copy_mismatch".into()),
            // And STATS.json's figures are not the shorter chain's: its published lines, the
            // coverage, its head (docs/scale.md#stats-figures).
            ("ledger/STATS.json".into(), "stats_figure_mismatch".into()),
            ("ledger/STATS.json".into(), "stats_figure_mismatch".into()),
            ("ledger/STATS.json".into(), "stats_figure_mismatch".into()),
            // And the segments' listing is not the one the last snapshot recorded.
            ("ledger/segments/".into(), "snapshot_digest_mismatch".into())
        ]
    );
    let figures: Vec<&str> = v["files"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["code"] == "stats_figure_mismatch")
        .map(|f| f["detail"].as_str().unwrap())
        .collect();
    assert!(
        figures[0].starts_with("tree: STATS.json states")
            && figures[1].starts_with("lines.published.count")
            && figures[3].starts_with("ledger.head is"),
        "{figures:?}"
    );

    // A stray file in segments/.
    let (code, v) = damaged(&s, |d| {
        std::fs::write(d.join("ledger/segments/notes.txt"), "hello\n").unwrap();
    });
    assert_eq!(code, Some(1), "{v}");
    assert_eq!(
        file_problems(&v),
        [
            ("ledger/segments/notes.txt".into(), "segment_stray".into()),
            ("ledger/segments/".into(), "snapshot_digest_mismatch".into())
        ]
    );
    let (code, v) = damaged(&s, |d| {
        std::fs::write(d.join("ledger/segments/0000001.jsonl"), "").unwrap();
    });
    assert_eq!(code, Some(1), "{v}");
    assert_eq!(
        file_problems(&v),
        [
            (
                "ledger/segments/0000001.jsonl".into(),
                "segment_stray".into()
            ),
            ("ledger/segments/".into(), "snapshot_digest_mismatch".into())
        ]
    );

    // STATS' list disagrees: one byte count, then a file left off the list.
    let (code, v) = damaged(&s, |d| {
        let p = d.join("ledger/STATS.json");
        let mut stats: Value = serde_json::from_slice(&std::fs::read(&p).unwrap()).unwrap();
        stats["ledger"]["files"][1]["bytes"] = json!(1);
        std::fs::write(&p, serde_json::to_vec_pretty(&stats).unwrap()).unwrap();
    });
    assert_eq!(code, Some(1), "{v}");
    assert_eq!(
        file_problems(&v),
        [
            (
                "ledger/segments/000001.jsonl".into(),
                "stats_file_mismatch".into()
            ),
            // The page carries STATS.json as it was (docs/scale.md#the-page-against-the-site).
            ("index.html".into(), "page_copy_mismatch".into()),
            // And STATS.json is not the one the last snapshot recorded.
            (
                "ledger/STATS.json".into(),
                "snapshot_digest_mismatch".into()
            )
        ]
    );
    let (code, v) = damaged(&s, |d| {
        let p = d.join("ledger/STATS.json");
        let mut stats: Value = serde_json::from_slice(&std::fs::read(&p).unwrap()).unwrap();
        stats["ledger"]["files"].as_array_mut().unwrap().pop();
        std::fs::write(&p, serde_json::to_vec_pretty(&stats).unwrap()).unwrap();
    });
    assert_eq!(code, Some(1), "{v}");
    assert_eq!(
        file_problems(&v),
        [
            (last.clone(), "stats_file_unlisted".into()),
            ("index.html".into(), "page_copy_mismatch".into()),
            // And STATS.json is not the one the last snapshot recorded.
            (
                "ledger/STATS.json".into(),
                "snapshot_digest_mismatch".into()
            )
        ]
    );

    let (code, v) = damaged(&s, |d| {
        let p = d.join("ledger/STATS.json");
        let mut stats: Value = serde_json::from_slice(&std::fs::read(&p).unwrap()).unwrap();
        stats["ledger"]["files"].as_array_mut().unwrap().swap(1, 2);
        std::fs::write(&p, serde_json::to_vec_pretty(&stats).unwrap()).unwrap();
    });
    assert_eq!(code, Some(1), "{v}");
    assert_eq!(
        file_problems(&v),
        [
            ("ledger/STATS.json".into(), "stats_files_order".into()),
            ("index.html".into(), "page_copy_mismatch".into()),
            // And STATS.json is not the one the last snapshot recorded.
            (
                "ledger/STATS.json".into(),
                "snapshot_digest_mismatch".into()
            )
        ]
    );
    let (code, v) = damaged(&s, |d| {
        std::fs::remove_file(d.join("ledger/STATS.json")).unwrap();
    });
    assert_eq!(code, Some(1), "{v}");
    assert_eq!(
        file_problems(&v),
        [
            ("ledger/STATS.json".into(), "stats_files_missing".into()),
            ("index.html".into(), "page_copy_mismatch".into()),
            // And STATS.json is not the one the last snapshot recorded.
            (
                "ledger/STATS.json".into(),
                "snapshot_digest_mismatch".into()
            )
        ]
    );

    // A file that does not end with LF: its last line joins the next file's first.
    let (code, v) = damaged(&s, |d| {
        let p = d.join("ledger/segments/000001.jsonl");
        let b = std::fs::read(&p).unwrap();
        std::fs::write(&p, &b[..b.len() - 1]).unwrap();
    });
    assert_eq!(code, Some(1), "{v}");
    assert_file_problem(
        &v,
        "ledger/segments/000001.jsonl",
        "ledger_file_unterminated",
    );
}

#[test]
fn an_old_oversized_ledger_jsonl_stays_as_it_is_and_new_lines_go_to_segments() {
    // Built before the rule (here: under the default 16 MiB threshold), 30 lines ≈ 9 KB.
    let mut s = scene(None);
    s.append(30);
    s.build_ok(1_790_000_000);
    let old = s.files();
    assert_eq!(old.len(), 1);
    assert!(old[0].1.len() > SEGMENT_BYTES);
    s.commit("one large file");
    s.set_segment_bytes(Some(SEGMENT_BYTES));
    s.append(20);
    s.build_ok(1_790_100_000);
    let files = s.files();
    assert_eq!(files[0], old[0], "ledger.jsonl is left byte for byte");
    assert_eq!(files[1].0, "ledger/segments/000001.jsonl");
    assert_eq!(s.snapshots().last().unwrap()["extends"], true);
    assert!(!s.git_status().contains("ledger.jsonl"));
    // Greedy from there on: each segment but the last is full.
    for w in files[1..].windows(2) {
        assert!(w[0].1.len() + lines_of(&w[1].1)[0].len() > SEGMENT_BYTES);
    }
    let (code, v) = verify_json(&s.site);
    assert_eq!(code, Some(0), "{v}");
}

#[test]
fn segment_bytes_outside_its_range_refuses_naming_the_file_the_key_and_the_range() {
    for bad in ["4095", "33554433", "0", "-1"] {
        let s = scene(None);
        std::fs::write(
            s.b.dir.join("exhibit.toml"),
            format!("[gate]\nledger = \"gate/ledger.jsonl\"\n\n[publish]\nsegment_bytes = {bad}\n"),
        )
        .unwrap();
        s.b.write_ledger(&LedgerWriter::new().bytes());
        let o = s.build(1_790_000_000, &[]);
        assert_eq!(o.status.code(), Some(2), "{bad}: {}", text(&o));
        let err = String::from_utf8_lossy(&o.stderr);
        for part in ["exhibit.toml", "[publish] segment_bytes", "4096..=33554432"] {
            assert!(err.contains(part), "{bad}: {err}");
        }
        assert!(!s.site.exists(), "nothing written");
    }
    // The ends of the range are accepted.
    for good in ["4096", "33554432"] {
        let mut s = scene(None);
        std::fs::write(
            s.b.dir.join("exhibit.toml"),
            format!(
                "[gate]\nledger = \"gate/ledger.jsonl\"\n\n[publish]\nsegment_bytes = {good}\n"
            ),
        )
        .unwrap();
        s.append(3);
        let o = s.build(1_790_000_000, &[]);
        assert_eq!(o.status.code(), Some(0), "{good}: {}", text(&o));
    }
}

/// A configuration the TOML reader refuses is said on one line naming the line and column
/// (its own message draws a caret under the line, over several, which came out as `\n`s).
#[test]
fn an_unreadable_exhibit_toml_is_named_with_its_line_and_column_on_one_line() {
    let s = scene(None);
    std::fs::write(
        s.b.dir.join("exhibit.toml"),
        "[gate]\nledger = \"gate/ledger.jsonl\"\n\n[publish]\nsegment_bytes = 4096\n\n[publish]\nwitness = false\n",
    )
    .unwrap();
    s.b.write_ledger(&LedgerWriter::new().bytes());
    let o = s.build(1_790_000_000, &[]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("exhibit.toml: not a valid exhibit.toml: line 7, column 2: duplicate key")
            && !err.contains("\\n"),
        "{err}"
    );
    assert!(!s.site.exists(), "nothing written");
}

#[test]
fn the_dry_run_summarises_a_segment_and_never_prints_its_lines() {
    let mut s = scene(Some(SEGMENT_BYTES));
    s.append(40);
    s.build_ok(1_790_000_000);
    s.commit("first");
    s.append(30);
    let o = s.build(1_790_100_000, &["--dry-run"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("a segment of the published ledger"), "{out}");
    // No new line is printed: none of their entry_ids appears as a line states it (the
    // checkpoint's diff names the new head's digest, on its `exhibit-head` line, and no other).
    for id in &s.w.ids[40..] {
        assert!(
            !out.contains(&format!("\"entry_id\":\"{id}")),
            "the dry run printed the line of {id}:\n{out}"
        );
    }
    let head = s.w.ids.last().unwrap();
    assert_eq!(out.matches(head.as_str()).count(), 1, "{out}");
    assert!(out.contains(&format!("+exhibit-head 70 {head}")), "{out}");
    // The tree's files are counted by part, never listed one by one nor diffed.
    assert!(out.contains("ledger/tree/tile/ (2 files)"), "{out}");
    assert!(!out.contains("ledger/tree/lines/000"), "{out}");
    // The summary reads the new seqs across the files.
    assert!(
        out.contains("new seqs 41–70: 30 line(s) published, 0 withheld"),
        "{out}"
    );
}

#[test]
fn an_edited_segment_at_head_refuses_the_next_build() {
    let mut s = scene(Some(SEGMENT_BYTES));
    s.append(40);
    s.build_ok(1_790_000_000);
    let p = s.site.join("ledger/segments/000001.jsonl");
    let b = std::fs::read(&p).unwrap();
    let lines = lines_of(&b);
    // Drop the segment's last line and commit that: HEAD no longer re-derives.
    std::fs::write(&p, &b[..b.len() - lines.last().unwrap().len()]).unwrap();
    s.commit("a hand edit");
    s.append(5);
    let before = snapshot_dir(&s.site);
    let o = s.build(1_790_100_000, &[]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(
        text(&o).contains("HEAD:site/ledger/segments/"),
        "names the folder: {}",
        text(&o)
    );
    assert_eq!(
        snapshot_dir(&s.site),
        before,
        "a refused build writes nothing"
    );
}

#[test]
fn a_rewrite_is_refused_naming_the_segment_and_on_a_reason_the_cut_runs_afresh() {
    let mut s = scene(Some(SEGMENT_BYTES));
    s.append(45);
    s.build_ok(1_790_000_000);
    s.commit("first");
    let before = s.files();
    // The gate's history re-chained from seq 30: seq 30 lies in a segment, not in ledger.jsonl.
    let mut rewritten = LedgerWriter::new();
    for n in 1..=29 {
        rewritten.push_scan(n);
    }
    for n in 30..=50 {
        rewritten.push_scan(n + 1000);
    }
    s.b.write_ledger(&rewritten.bytes());
    let o = s.build(1_790_100_000, &[]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    // The file HEAD published that holds seq 30, and the line within it.
    let (path, bytes) = before
        .iter()
        .find(|(_, b)| {
            lines_of(b)
                .iter()
                .any(|l| serde_json::from_slice::<Value>(l).unwrap()["seq"] == 30)
        })
        .unwrap();
    assert!(path.starts_with("ledger/segments/"), "{path}");
    let line = lines_of(bytes)
        .iter()
        .position(|l| serde_json::from_slice::<Value>(l).unwrap()["seq"] == 30)
        .unwrap()
        + 1;
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains(&format!("{path} line {line}")), "{err}");
    assert_eq!(s.files(), before, "a refused build writes nothing");

    let o = s.build(
        1_790_100_000,
        &["--allow-rewrite", "the gate re-chained from seq 30"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let last = s.snapshots().pop().unwrap();
    assert_eq!(last["extends"], false);
    assert_eq!(last["rewrite_reason"], "the gate re-chained from seq 30");
    assert_cut(&s, SEGMENT_BYTES);
    let (code, v) = verify_json(&s.site);
    assert_eq!(code, Some(0), "{v}");
    assert_eq!(v["head"], rewritten.ids.last().unwrap().as_str());
}

#[test]
fn a_line_longer_than_the_threshold_is_a_file_by_itself_and_the_header_may_stand_alone() {
    let mut s = scene(Some(SEGMENT_BYTES));
    // The first entry does not fit beside the header: ledger.jsonl holds the header alone.
    let long = "a".repeat(SEGMENT_BYTES);
    s.w.push(
        "gate_not_wired",
        "2026-10-24T13:01:00Z",
        &format!(r#"{{"detail":"{long}"}}"#),
    );
    s.append(20);
    s.build_ok(1_790_000_000);
    let files = s.files();
    assert_eq!(lines_of(&files[0].1).len(), 1, "the header alone");
    assert_eq!(lines_of(&files[1].1).len(), 1, "the long line alone");
    assert!(files[1].1.len() > SEGMENT_BYTES);
    assert_cut(&s, SEGMENT_BYTES);
    let stats = s.json("ledger/STATS.json");
    let first = &stats["ledger"]["files"][0];
    assert_eq!(first["first_seq"], Value::Null);
    assert_eq!(first["last_seq"], Value::Null);
    assert_eq!(first["head"], s.w.header_digest.as_str());
    assert_eq!(stats["ledger"]["files"][1]["first_seq"], 1);
    // verify SITE derives the same facts from the bytes.
    let (code, v) = verify_json(&s.site);
    assert_eq!(code, Some(0), "{v}");
}

#[test]
fn a_changed_threshold_keeps_every_file_head_published() {
    let mut s = scene(Some(SEGMENT_BYTES));
    s.append(40);
    s.build_ok(1_790_000_000);
    s.commit("at 4096");
    let at_4096 = s.files();
    // Raised: HEAD's files stay as they are; only the last grows, now up to 8192.
    s.set_segment_bytes(Some(2 * SEGMENT_BYTES));
    s.append(30);
    s.build_ok(1_790_100_000);
    let raised = s.files();
    let (last, full) = at_4096.split_last().unwrap();
    assert_eq!(&raised[..full.len()], full);
    assert!(raised[full.len()].1.starts_with(&last.1));
    assert!(
        raised[full.len()].1.len() > SEGMENT_BYTES,
        "the last file grew past 4096"
    );
    s.commit("at 8192");
    // Lowered again: nothing published is cut anew; HEAD's last file may still take lines
    // while it stays within the new threshold.
    s.set_segment_bytes(Some(SEGMENT_BYTES));
    s.append(10);
    s.build_ok(1_790_200_000);
    let lowered = s.files();
    let shape = |f: &[(String, Vec<u8>)]| -> Vec<(String, usize)> {
        f.iter().map(|(p, b)| (p.clone(), b.len())).collect()
    };
    let (last, full) = raised.split_last().unwrap();
    assert!(
        lowered[..full.len()] == *full && lowered[full.len()].1.starts_with(&last.1),
        "{:?}\n{:?}",
        shape(&raised),
        shape(&lowered)
    );
    // HEAD's last file grew, but only to the threshold now in force.
    assert!(lowered[full.len()].1.len() <= SEGMENT_BYTES);
    assert_eq!(s.snapshots().last().unwrap()["extends"], true);
    let (code, v) = verify_json(&s.site);
    assert_eq!(code, Some(0), "{v}");
}
