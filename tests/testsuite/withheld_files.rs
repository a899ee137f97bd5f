//! The withheld list in files (docs/scale.md#withheld-files), in temporary git repositories with
//! `withheld_bytes = 4096` so a few dozen withheld lines cross the threshold: the cut (greedy,
//! each file within the threshold), STATS.json and SNAPSHOTS.jsonl recording it, full files
//! untouched by later builds, the files' entries equal to a one-file build's list, `verify SITE`
//! on the layout and on damaged ones, a HEAD whose files skip a number, and the light page
//! reading the files over http and from a picked folder in Chromium.

use std::path::PathBuf;

use crate::common::*;
use crate::light_page::{Server, visit};
use serde_json::Value;

const WITHHELD_BYTES: u64 = 4096;

struct Scene {
    _tmp: tempfile::TempDir,
    b: TestBox,
    repo: git2::Repository,
    work: PathBuf,
    site: PathBuf,
    w: LedgerWriter,
    n: u32,
}

/// A box that withholds one line in three (a path in a text field), with a posted head at the
/// end of every day that is over, and `[publish] withheld_bytes = threshold` when given.
fn scene(threshold: Option<u64>) -> Scene {
    let tmp = tempfile::tempdir().unwrap();
    let b = TestBox::new(tmp.path());
    let toml = std::fs::read_to_string(b.dir.join("exhibit.toml")).unwrap();
    let publish = threshold.map_or(String::new(), |n| {
        format!("\n[publish]\nwithheld_bytes = {n}\n")
    });
    std::fs::write(b.dir.join("exhibit.toml"), format!("{toml}{publish}")).unwrap();
    let work = tmp.path().join("exhibit");
    let repo = git2::Repository::init(&work).unwrap();
    let site = work.join("site");
    Scene {
        _tmp: tmp,
        b,
        repo,
        work,
        site,
        w: LedgerWriter::new(),
        n: 0,
    }
}

impl Scene {
    /// `count` lines, an hour apart; every third is withheld.
    fn add(&mut self, count: u32) {
        for _ in 0..count {
            self.n += 1;
            let ts = exhibit::encode::timestamp_of(1_792_846_800 + i64::from(self.n) * 3600);
            if self.n.is_multiple_of(3) {
                self.w.push(
                    "gate_not_wired",
                    &ts,
                    &format!(r#"{{"detail":"lock {} held by /home/agent"}}"#, self.n),
                );
            } else {
                self.w.push_scan(self.n * 60);
            }
        }
        self.b.write_ledger(&self.w.bytes());
    }

    /// A posted head for every day that is over, each naming the day's last line.
    fn post_days(&self) {
        let day_of = |line: &[u8]| -> String {
            let v: Value = serde_json::from_slice(line).unwrap();
            v["day"].as_str().unwrap().to_string()
        };
        let lines = &self.w.lines[1..];
        for i in 0..lines.len() - 1 {
            let (d, next) = (day_of(&lines[i]), day_of(&lines[i + 1]));
            if d != next {
                self.b.post_anchor(&d, &self.w.ids[i], i + 1);
            }
        }
    }

    fn build(&self, epoch: u64) {
        let o = exhibit(
            &[
                "build",
                "--config",
                &self.b.config(),
                "--out",
                self.site.to_str().unwrap(),
            ],
            epoch,
        );
        assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    }

    /// The list's files on disk in order, as (path relative to the site, bytes).
    fn files(&self) -> Vec<(String, Vec<u8>)> {
        let mut out = vec![(
            "ledger/withheld.json".to_string(),
            std::fs::read(self.site.join("ledger/withheld.json")).unwrap(),
        )];
        if let Ok(entries) = std::fs::read_dir(self.site.join("ledger/withheld")) {
            let mut names: Vec<String> = entries
                .map(|e| e.unwrap().file_name().into_string().unwrap())
                .collect();
            names.sort();
            for n in names {
                let rel = format!("ledger/withheld/{n}");
                out.push((rel.clone(), std::fs::read(self.site.join(&rel)).unwrap()));
            }
        }
        out
    }

    /// Every entry of the list, from all its files in order.
    fn entries(&self) -> Vec<Value> {
        let mut all = Vec::new();
        for (_, bytes) in self.files() {
            let v: Value = serde_json::from_slice(&bytes).unwrap();
            all.extend(v.as_array().unwrap().iter().cloned());
        }
        all
    }

    fn json(&self, rel: &str) -> Value {
        serde_json::from_slice(&std::fs::read(self.site.join(rel)).unwrap()).unwrap()
    }

    fn last_snapshot(&self) -> Value {
        let text = std::fs::read_to_string(self.site.join("ledger/SNAPSHOTS.jsonl")).unwrap();
        serde_json::from_str(text.lines().last().unwrap()).unwrap()
    }
}

/// What a stranger can check of the cut from the files alone: each a JSON array, within the
/// threshold unless it holds one entry, greedy (the next file's first entry would not have
/// fitted), seqs ascending across files; and STATS.json lists exactly these files.
fn assert_cut(s: &Scene) {
    let files = s.files();
    assert!(
        files.len() >= 3,
        "the list is in several files: {}",
        files.len()
    );
    let mut last_seq = 0;
    for (i, (path, bytes)) in files.iter().enumerate() {
        if i > 0 {
            assert_eq!(path, &format!("ledger/withheld/{i:06}.json"));
        }
        let entries = serde_json::from_slice::<Value>(bytes).unwrap();
        let entries = entries.as_array().unwrap();
        assert!(!entries.is_empty(), "{path} holds entries");
        assert!(
            bytes.len() as u64 <= WITHHELD_BYTES || entries.len() == 1,
            "{path}: {} bytes",
            bytes.len()
        );
        for e in entries {
            let seq = e["seq"].as_i64().unwrap();
            assert!(seq > last_seq, "{path}: seq {seq} after {last_seq}");
            last_seq = seq;
        }
        if let Some((_, next)) = files.get(i + 1) {
            let first: Value = serde_json::from_slice::<Value>(next).unwrap()[0].clone();
            let mut grown = entries.clone();
            grown.push(first);
            let mut bytes = serde_json::to_vec_pretty(&grown).unwrap();
            bytes.push(b'\n');
            assert!(
                bytes.len() as u64 > WITHHELD_BYTES,
                "{path}: the next file's first entry would have fitted"
            );
        }
    }
    let listed = s.json("ledger/STATS.json")["withheld_files"].clone();
    let listed = listed.as_array().expect("STATS.json lists withheld_files");
    assert_eq!(listed.len(), files.len());
    for (want, (path, bytes)) in listed.iter().zip(&files) {
        assert_eq!(want["path"], path.as_str());
        assert_eq!(want["bytes"], bytes.len());
        assert_eq!(
            want["sha256"],
            exhibit_protocol::Digest::of(bytes).to_string()
        );
        let entries = serde_json::from_slice::<Value>(bytes).unwrap();
        let entries = entries.as_array().unwrap();
        assert_eq!(want["entries"], entries.len());
        assert_eq!(want["first_seq"], entries[0]["seq"]);
        assert_eq!(want["last_seq"], entries[entries.len() - 1]["seq"]);
    }
}

#[test]
fn the_withheld_list_continues_in_files_that_never_change_once_full() {
    let mut s = scene(Some(WITHHELD_BYTES));
    s.add(90);
    s.build(1_800_000_000);
    assert_cut(&s);
    let first = s.files();
    let snap = s.last_snapshot();
    assert_eq!(
        snap["withheld_files"],
        serde_json::json!({"files": first.len() - 1, "withheld_bytes": WITHHELD_BYTES})
    );
    assert!(snap["digests"]["withheld/"].is_string(), "{snap}");
    let (code, v) = verify_json(&s.site);
    assert_eq!(code, Some(0), "{v}");
    assert_eq!(v["bridged"].as_array().unwrap().len(), 30);

    // The same box with the default threshold: one withheld.json, the same entries.
    let mut one = scene(None);
    one.add(90);
    one.build(1_800_000_000);
    assert!(!one.site.join("ledger/withheld").exists());
    assert!(
        one.json("ledger/STATS.json")
            .get("withheld_files")
            .is_none(),
        "a list in one file adds no key to STATS.json"
    );
    assert!(one.last_snapshot().get("withheld_files").is_none());
    assert_eq!(s.entries(), one.entries());
    assert_eq!(s.entries().len(), 30);
    commit_all(&s.repo, "day 1");

    // Day 2: more withheld lines. Every file but day 1's last keeps its bytes; git sees no change
    // to them; the snapshot extends the last.
    s.add(60);
    s.build(1_800_086_400);
    assert_cut(&s);
    let second = s.files();
    assert!(second.len() > first.len());
    for (path, bytes) in &first[..first.len() - 1] {
        let now = second.iter().find(|(p, _)| p == path).unwrap();
        assert_eq!(&now.1, bytes, "{path} is full and keeps its bytes");
    }
    let status = git_status(&s.work);
    for (path, _) in &first[..first.len() - 1] {
        assert!(!status.contains(path.as_str()), "{path} changed: {status}");
    }
    assert_eq!(s.last_snapshot()["extends"], true);
    let (code, v) = verify_json(&s.site);
    assert_eq!(code, Some(0), "{v}");
    assert_eq!(v["bridged"].as_array().unwrap().len(), 50);
    commit_all(&s.repo, "day 2");

    // Nothing new: no byte changes.
    s.build(1_800_172_800);
    assert_eq!(
        git_status(&s.work),
        "",
        "a rebuild of the same inputs changes nothing"
    );
}

#[test]
fn verify_site_names_a_changed_missing_stray_or_misordered_withheld_file() {
    let mut s = scene(Some(WITHHELD_BYTES));
    s.add(90);
    s.build(1_800_000_000);
    let copy = tempfile::tempdir().unwrap();
    let fresh = |name: &str| -> PathBuf {
        let dir = copy.path().join(name);
        copy_site(&s.site, &dir);
        dir
    };

    // A reason reworded in a full file: its bytes are not the ones STATS.json lists.
    let changed = fresh("changed");
    let path = changed.join("ledger/withheld/000001.json");
    let body = std::fs::read_to_string(&path).unwrap();
    std::fs::write(
        &path,
        body.replacen("withheld because", "WITHHELD because", 1),
    )
    .unwrap();
    let (code, v) = verify_json(&changed);
    assert_eq!(code, Some(1), "{v}");
    assert_file_problem(&v, "ledger/withheld/000001.json", "stats_file_mismatch");

    // A file removed: STATS.json lists it, the next one stands in its place, and its seqs are no
    // longer bridged.
    let missing = fresh("missing");
    std::fs::remove_file(missing.join("ledger/withheld/000001.json")).unwrap();
    let (code, v) = verify_json(&missing);
    assert_eq!(code, Some(1), "{v}");
    assert_file_problem(&v, "ledger/withheld/000001.json", "stats_file_absent");
    assert_file_problem(&v, "ledger/withheld/000002.json", "withheld_files_gap");
    assert!(!v["problems"].as_array().unwrap().is_empty(), "{v}");

    // A stray beside the files.
    let stray = fresh("stray");
    std::fs::write(stray.join("ledger/withheld/notes.txt"), "hello").unwrap();
    let (code, v) = verify_json(&stray);
    assert_eq!(code, Some(1), "{v}");
    assert_file_problem(&v, "ledger/withheld/notes.txt", "withheld_file_stray");

    // A file replaced by a symlink out of the exhibit: not followed, not read; named.
    let linked = fresh("linked");
    let target = linked.join("ledger/withheld/000001.json");
    std::fs::remove_file(&target).unwrap();
    std::os::unix::fs::symlink("/etc/passwd", &target).unwrap();
    let (code, v) = verify_json(&linked);
    assert_eq!(code, Some(1), "{v}");
    assert_file_problem(&v, "ledger/withheld/000001.json", "withheld_file_stray");
    assert!(
        !v.to_string().contains("root:"),
        "nothing of the link's target is read"
    );

    // Two files swapped: the list is not in seq order, a usage error naming the file.
    let swapped = fresh("swapped");
    let (a, b) = (
        swapped.join("ledger/withheld/000001.json"),
        swapped.join("ledger/withheld/000002.json"),
    );
    let (ab, bb) = (std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    std::fs::write(&a, bb).unwrap();
    std::fs::write(&b, ab).unwrap();
    let o = exhibit(&["verify", swapped.to_str().unwrap()], 1_800_000_000);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        text(&o).contains("ledger/withheld/000002.json") && text(&o).contains("seq order"),
        "{}",
        text(&o)
    );
}

#[test]
fn a_head_whose_withheld_files_skip_a_number_refuses() {
    let mut s = scene(Some(WITHHELD_BYTES));
    s.add(90);
    s.build(1_800_000_000);
    let dir = s.site.join("ledger/withheld");
    let count = std::fs::read_dir(&dir).unwrap().count() as u32;
    std::fs::rename(
        dir.join(format!("{count:06}.json")),
        dir.join(format!("{:06}.json", count + 1)),
    )
    .unwrap();
    commit_all(&s.repo, "a gap");
    let before = snapshot_dir(&s.site);
    let o = exhibit(
        &[
            "build",
            "--config",
            &s.b.config(),
            "--out",
            s.site.to_str().unwrap(),
        ],
        1_800_000_000,
    );
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(
        text(&o).contains("head_withheld_files_out_of_order"),
        "{}",
        text(&o)
    );
    assert_eq!(
        snapshot_dir(&s.site),
        before,
        "a refused build leaves DIR as it was"
    );
}

fn verdict_of(facts: &Value) -> (String, String) {
    let v = &facts["verdict"];
    let s = |k: &str| v[k].as_str().unwrap_or_default().to_string();
    (s("data-verdict"), s("data-vouched"))
}

/// The page of a list in files reads them, over http and from a picked folder, and gives the
/// answer of the same box's page with the list embedded; a file changed on the server fails it.
#[test]
fn the_light_page_reads_the_withheld_lists_files() {
    let mut s = scene(Some(WITHHELD_BYTES));
    s.add(90);
    s.post_days();
    s.build(1_800_000_000);
    let html = std::fs::read_to_string(s.site.join("index.html")).unwrap();
    let layout: Value =
        serde_json::from_slice(&unb64(crate::light_page::block(&html, "layout-json"))).unwrap();
    assert_eq!(
        layout["mode"], "light",
        "a list in files gets the light page"
    );
    assert_eq!(
        layout["withheld_files"],
        s.json("ledger/STATS.json")["withheld_files"]
    );
    assert!(
        crate::light_page::block(&html, "withheld-json").is_empty(),
        "the list in files is not embedded"
    );

    let mut one = scene(None);
    one.add(90);
    one.post_days();
    one.build(1_800_000_000);
    let want = verdict_of(&visit(
        one.site.join("index.html").to_str().unwrap(),
        None,
        &[],
    ));
    assert!(want.0 == "gaps" || want.0 == "intact", "{want:?}");

    let server = Server::start(&s.site);
    let facts = visit(&server.url("/index.html"), None, &[]);
    assert_eq!(verdict_of(&facts), want, "over http, the files read");
    let said = facts["dom"].as_str().unwrap();
    let count = s.files().len();
    assert!(
        said.contains(&format!("data-files=\"{count}\" data-entries=\"30\"")),
        "the page says what it read of the withheld list"
    );
    let hits = server.take();
    for (path, _) in s.files() {
        assert_eq!(hits.get(&path), Some(&1), "{path} fetched once: {hits:?}");
    }

    // From file://: no verdict until the folder is picked; then the same answer.
    let page = s.site.join("index.html");
    let facts = visit(page.to_str().unwrap(), None, &[]);
    assert_eq!(verdict_of(&facts).0, "needs-data");
    let ledger = s.site.join("ledger");
    let facts = visit(
        page.to_str().unwrap(),
        None,
        &["--pick", ledger.to_str().unwrap()],
    );
    assert_eq!(verdict_of(&facts), want, "from the picked folder");

    // A file changed on the server, its size kept (so only its sha256 tells): failed, naming
    // it; never the embedded page's answer (a reason is not part of the chain).
    let path = s.site.join("ledger/withheld/000001.json");
    let body = std::fs::read_to_string(&path).unwrap();
    std::fs::write(
        &path,
        body.replacen("withheld because", "WITHHELD because", 1),
    )
    .unwrap();
    let facts = visit(&server.url("/index.html"), None, &[]);
    assert_eq!(verdict_of(&facts).0, "failed");
    assert!(
        facts["status"]
            .as_str()
            .unwrap()
            .contains("ledger/withheld/000001.json"),
        "{}",
        facts["status"]
    );
}
