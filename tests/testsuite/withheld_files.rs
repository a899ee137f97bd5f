//! The withheld list in files (docs/scale.md#withheld-files), in temporary git repositories with
//! `withheld_bytes = 4096` so a few dozen withheld lines cross the threshold: the cut (greedy,
//! each file within the threshold), STATS.json and SNAPSHOTS.jsonl recording it, full files
//! untouched by later builds, the files' entries equal to a one-file build's list, `verify SITE`
//! on the layout and on damaged ones, a HEAD whose files skip a number, and the light page
//! reading the files over http and from a picked folder in Chromium.

use std::path::{Path, PathBuf};

use crate::common::*;
use crate::light_page::{Server, visit};
use serde_json::Value;

pub(crate) const WITHHELD_BYTES: u64 = 4096;

pub(crate) struct Scene {
    _tmp: tempfile::TempDir,
    b: TestBox,
    repo: git2::Repository,
    work: PathBuf,
    pub(crate) site: PathBuf,
    w: LedgerWriter,
    n: u32,
}

/// A box that withholds one line in three (a path in a text field), with a posted head at the
/// end of every day that is over, and `[publish] withheld_bytes = threshold` when given.
pub(crate) fn scene(threshold: Option<u64>) -> Scene {
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
    pub(crate) fn add(&mut self, count: u32) {
        for _ in 0..count {
            self.n += 1;
            let ts =
                exhibit::published::encode::timestamp_of(1_792_846_800 + i64::from(self.n) * 3600);
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
    pub(crate) fn post_days(&self) {
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

    pub(crate) fn build(&self, epoch: u64) {
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
    let facts = visit(&server.url(crate::light_page::FULL), None, &[]);
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
    let facts = visit(&server.url(crate::light_page::FULL), None, &[]);
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

/// One random list in files, as text: each file a JSON array written as the build writes it,
/// then one or two of the mutations that could make the two readers part ways.
fn withheld_case(rng: &mut exhibit_testkit::gen_box::Rng) -> Vec<(String, Vec<u8>)> {
    let count = rng.below(12) as usize;
    let mut seq = 0u64;
    let mut entries: Vec<Value> = (0..count)
        .map(|_| {
            seq += 1 + rng.below(50);
            serde_json::json!({
                "seq": seq,
                "entry_id": rng.digest(),
                "kind": if rng.chance(500) { Value::from("send") } else { Value::Null },
                "dest_class": Value::Null,
                "day": format!("2026-10-{:02}", 1 + rng.below(28)),
                "fields_flagged": ["detail"],
                "reason": "withheld because detail: [path]"
            })
        })
        .collect();
    // Cut into 1 to 4 files (a file may be empty).
    let nfiles = 1 + rng.below(4) as usize;
    let mut cuts: Vec<usize> = (1..nfiles)
        .map(|_| rng.below(entries.len() as u64 + 1) as usize)
        .collect();
    cuts.sort();
    let mut files: Vec<Vec<Value>> = Vec::new();
    let mut at = 0;
    for c in cuts.into_iter().chain(std::iter::once(entries.len())) {
        files.push(entries[at..c].to_vec());
        at = c;
    }
    let pick = |rng: &mut exhibit_testkit::gen_box::Rng, n: usize| rng.below(n as u64) as usize;
    let mut raw: Vec<Option<Vec<u8>>> = vec![None; files.len()];
    for _ in 0..1 + rng.below(2) {
        let f = pick(rng, files.len());
        match rng.below(11) {
            0 => {}
            1 if files.len() > 1 => {
                let g = pick(rng, files.len());
                files.swap(f, g);
            }
            2 if f + 1 < files.len() && !files[f].is_empty() => {
                // The last entry of a file moved to the front of the next: still in order.
                let e = files[f].pop().unwrap();
                files[f + 1].insert(0, e);
            }
            3 if !entries.is_empty() => {
                let e = entries[pick(rng, entries.len())].clone();
                files[f].push(e);
            }
            4 if !files[f].is_empty() => {
                let e = files[f][pick(rng, files[f].len())].clone();
                files[f].push(e);
            }
            5 if !files[f].is_empty() => {
                let k = pick(rng, files[f].len());
                let bad = [
                    serde_json::json!(0),
                    serde_json::json!(-3),
                    serde_json::json!(9_007_199_254_740_993u64),
                    serde_json::json!("7"),
                ];
                files[f][k]["seq"] = bad[pick(rng, bad.len())].clone();
            }
            6 if !files[f].is_empty() => {
                let k = pick(rng, files[f].len());
                let id = files[f][k]["entry_id"].as_str().unwrap().to_uppercase();
                files[f][k]["entry_id"] = Value::from(id);
            }
            7 => {
                let bad: [&[u8]; 5] = [
                    b"{}",
                    b"not json",
                    b"",
                    b"[1]",
                    b"[{\"seq\":2.0,\"entry_id\":\"x\"}]",
                ];
                raw[f] = Some(bad[pick(rng, bad.len())].to_vec());
            }
            8 if !files[f].is_empty() => {
                let mut text = serde_json::to_string(&files[f]).unwrap();
                text = text.replacen("\"seq\":", "\"seq\":1,\"seq\":", 1);
                raw[f] = Some(text.into_bytes());
            }
            9 if files[f].len() > 1 => files[f].swap(0, 1),
            10 if !files[f].is_empty() => {
                let k = pick(rng, files[f].len());
                files[f][k]["day"] = Value::from("2026-02-30");
            }
            _ => {}
        }
    }
    entries.clear();
    files
        .iter()
        .zip(raw)
        .enumerate()
        .map(|(i, (list, raw))| {
            let path = if i == 0 {
                "ledger/withheld.json".to_string()
            } else {
                format!("ledger/withheld/{i:06}.json")
            };
            let bytes = raw.unwrap_or_else(|| {
                let mut b = serde_json::to_vec_pretty(list).unwrap();
                b.push(b'\n');
                b
            });
            (path, bytes)
        })
        .collect()
}

/// Two implementations, one answer: the build and `verify SITE` (`read_list`) and the light
/// page (`joinWithheld` in assets/verify.js) join the same files into the same list, or both
/// refuse them. A disagreement is written to target/differential/withheld-<n>.json.
#[test]
fn both_readers_join_a_withheld_list_in_files_alike() {
    let cases: usize = env_number("FUZZ_CASES", 3000);
    let mut rng = exhibit_testkit::gen_box::Rng::new(23, 9);
    let all: Vec<Vec<(String, Vec<u8>)>> = (0..cases).map(|_| withheld_case(&mut rng)).collect();
    let rust: Vec<Value> = all
        .iter()
        .map(|files| {
            match exhibit::published::withheld_files::read_list(
                files.iter().map(|(p, b)| (p.as_str(), b.as_slice())),
            ) {
                Ok((list, _)) => serde_json::json!({"list": list
                    .by_seq
                    .values()
                    .map(|e| serde_json::json!([e.seq, e.entry_id.to_string()]))
                    .collect::<Vec<_>>()}),
                Err(_) => serde_json::json!({"refused": true}),
            }
        })
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("cases.jsonl");
    let mut text = String::new();
    for files in &all {
        let files: Vec<Value> = files
            .iter()
            .map(|(p, b)| serde_json::json!({"path": p, "b64": exhibit::published::encode::base64(b)}))
            .collect();
        text.push_str(&serde_json::json!({ "files": files }).to_string());
        text.push('\n');
    }
    std::fs::write(&input, text).unwrap();
    let js: Vec<Value> = node_json_lines("withheld-join-runner.cjs", &input);
    assert_eq!(js.len(), all.len());
    let (mut refused, mut joined, mut differ) = (0, 0, 0);
    for (i, (r, j)) in rust.iter().zip(&js).enumerate() {
        if r == j {
            if r.get("refused").is_some() {
                refused += 1;
            } else {
                joined += 1;
            }
            continue;
        }
        differ += 1;
        let keep = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/differential");
        std::fs::create_dir_all(&keep).unwrap();
        let files: Vec<Value> = all[i]
            .iter()
            .map(|(p, b)| serde_json::json!({"path": p, "text": String::from_utf8_lossy(b)}))
            .collect();
        std::fs::write(
            keep.join(format!("withheld-{i}.json")),
            serde_json::json!({"files": files, "rust": r, "js": j}).to_string(),
        )
        .unwrap();
    }
    assert_eq!(
        differ, 0,
        "{differ} case(s) differ: target/differential/withheld-*.json"
    );
    // Both kinds of answer are exercised, not one of them only.
    assert!(
        refused > cases / 10 && joined > cases / 10,
        "{refused} refused, {joined} joined"
    );
}
