//! The witness store as of fewer lines (`gen_box::write_store_as_of`), what benches/scale.sh
//! gives each day's build: the box's own store cut in time — nothing a later line or a later
//! run made, everything made up to then as the box's store holds it — and its deltas, which
//! laid over the store they were made against give the store they were made for.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use exhibit_protocol::ots;
use exhibit_testkit::gen_box::{self, BoxOptions, BoxSummary, StoreAsOf};
use serde_json::Value;

const LINES: u64 = 1500;

/// A box long enough for its tail to open as deployed (day 15) with days of lines after it.
fn make_box() -> (tempfile::TempDir, PathBuf, BoxOptions, BoxSummary) {
    let opts = BoxOptions {
        lines: LINES,
        seed: 9,
        ..BoxOptions::default()
    };
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("box");
    let summary = gen_box::generate(&opts, &dir).unwrap();
    assert_eq!(summary.witness.as_ref().unwrap().tail_start_rule, "nominal");
    (tmp, dir, opts, summary)
}

/// Every file under `dir`, by path relative to it.
fn tree(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(root, &path, out);
            } else {
                let rel = path
                    .strip_prefix(root)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned();
                out.insert(rel, std::fs::read(&path).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

fn store_as_of(
    tmp: &Path,
    opts: &BoxOptions,
    dir: &Path,
    lines: u64,
    over: Option<u64>,
) -> (PathBuf, StoreAsOf) {
    let out = tmp.join(format!("as-of-{lines}-over-{over:?}"));
    let done = gen_box::write_store_as_of(opts, dir, lines, over, &out).unwrap();
    (out, done)
}

/// The ledger's entry_ids and timestamps, by seq - 1.
fn ledger(dir: &Path) -> Vec<(String, String)> {
    std::fs::read_to_string(dir.join("gate/ledger.jsonl"))
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            (
                v["entry_id"].as_str().unwrap().to_string(),
                v["timestamp"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn entries(store: &Path) -> serde_json::Map<String, Value> {
    let index: Value =
        serde_json::from_slice(&std::fs::read(store.join("index.json")).unwrap()).unwrap();
    index["entries"].as_object().unwrap().clone()
}

#[test]
fn the_store_as_of_every_line_is_the_boxs_byte_for_byte() {
    let (tmp, dir, opts, summary) = make_box();
    let (out, done) = store_as_of(tmp.path(), &opts, &dir, LINES, None);
    let (mine, boxs) = (tree(&out), tree(&dir.join("wt/store")));
    assert_eq!(
        mine.keys().collect::<Vec<_>>(),
        boxs.keys().collect::<Vec<_>>()
    );
    for (path, bytes) in &mine {
        assert!(boxs[path] == *bytes, "{path} differs");
    }
    assert_eq!(
        serde_json::to_value(&done.witness).unwrap(),
        serde_json::to_value(summary.witness.as_ref().unwrap()).unwrap()
    );
    assert!(done.removed.is_empty());
}

#[test]
fn an_earlier_store_is_the_boxs_up_to_its_moment_and_nothing_after() {
    let (tmp, dir, opts, summary) = make_box();
    let w = summary.witness.as_ref().unwrap();
    let chain = ledger(&dir);
    let full_dir = dir.join("wt/store");
    let full = entries(&full_dir);
    let full_runs = std::fs::read_to_string(full_dir.join("runs.jsonl")).unwrap();
    let mut upgraded_since = 0;
    let mut names_before: Vec<String> = Vec::new();
    for k in [1000u64, 1200, LINES - 1] {
        let (store, done) = store_as_of(tmp.path(), &opts, &dir, k, None);
        // Read just before line k-1's own time: the tail has seen neither of the last two.
        assert_eq!(done.read_at, chain[k as usize - 2].1);
        let read_at = done.read_at.as_str();
        let mine = entries(&store);
        let mut orphans = Vec::new();
        for (id, rec) in &mine {
            let seq = rec["seq"].as_u64().unwrap();
            assert!(
                seq <= k - 2,
                "{id} names seq {seq}, past {k} lines' tail lag"
            );
            if chain[seq as usize - 1].0 != *id {
                orphans.push((id.clone(), seq));
            }
            let theirs = &full[id];
            if rec == theirs {
                continue;
            }
            // Not upgraded yet: pending, without the upgrade's fields; all else the box's.
            upgraded_since += 1;
            assert_eq!(rec["status"], "pending", "{id}");
            assert!(theirs["upgraded_at"].as_str().unwrap() > read_at, "{id}");
            for field in ["upgraded_at", "block_height", "block_hash", "block_time"] {
                assert!(rec.get(field).is_none(), "{id}: {field}");
            }
            for field in [
                "seq",
                "calendars",
                "line_timestamp",
                "seen_at",
                "stamped_at",
            ] {
                assert_eq!(rec[field], theirs[field], "{id}: {field}");
            }
        }
        // The box's one orphan (a re-chain's leftover), and no line past the k lines.
        assert_eq!(
            orphans,
            vec![(w.orphan.clone().unwrap(), w.duplicate_seq.unwrap())]
        );
        // Every record the box's store holds from a stamp by then is here.
        let stamped = full
            .values()
            .filter(|r| r["stamped_at"].as_str().unwrap() <= read_at)
            .count();
        assert_eq!(mine.len(), stamped);
        // The run log: the box's, up to the last run by then.
        let runs = std::fs::read_to_string(store.join("runs.jsonl")).unwrap();
        assert!(full_runs.starts_with(&runs) && runs.ends_with('\n'));
        let run_at = |line: &str| -> String {
            let v: Value = serde_json::from_str(line).unwrap();
            v["run_at"].as_str().unwrap().to_string()
        };
        assert!(run_at(runs.lines().last().unwrap()).as_str() <= read_at);
        let next = full_runs[runs.len()..].lines().next().unwrap();
        assert!(run_at(next).as_str() > read_at);
        assert_eq!(done.witness.runs, runs.lines().count() as u64);
        let report = std::fs::read_to_string(store.join("REPORT.md")).unwrap();
        assert!(report.contains(&format!("Runs: {}.", done.witness.runs)));
        // Sealed once, at the opening: the box's.
        let files = tree(&store);
        let box_files = tree(&full_dir);
        for name in ["seal.jsonl", "WITNESS_PREREG.md"] {
            assert_eq!(files[name], box_files[name]);
        }
        let prereg = format!("proofs/prereg_{}.ots", w.prereg_sha256);
        let stray = format!("proofs/{}.ots", w.stray);
        assert_eq!(files[&prereg], box_files[&prereg]);
        assert_eq!(files[&stray], box_files[&stray]);
        // Proofs: the index's, the prereg's and the stray file; each the box's, or a form the
        // box's replaces as a build holds it to (the same commitment, strictly longer).
        let names: Vec<String> = files
            .keys()
            .filter(|p| p.starts_with("proofs/"))
            .cloned()
            .collect();
        let mut expected: Vec<String> = mine.keys().map(|id| format!("proofs/{id}.ots")).collect();
        expected.extend([prereg.clone(), stray.clone()]);
        expected.sort();
        assert_eq!(names, expected);
        for (id, rec) in &mine {
            let path = format!("proofs/{id}.ots");
            let (bytes, theirs) = (&files[&path], &box_files[&path]);
            assert_eq!(ots::check_named(bytes, id), Ok(()));
            if rec == &full[id] {
                assert!(bytes == theirs, "{id}");
            } else {
                assert_eq!(bytes[..ots::HEADER_LEN], theirs[..ots::HEADER_LEN], "{id}");
                assert!(theirs.len() > bytes.len(), "{id}");
            }
        }
        // A store only grows.
        assert!(names_before.iter().all(|n| files.contains_key(n)));
        names_before = names;
    }
    assert!(
        upgraded_since > 0,
        "no record was pending at an earlier moment"
    );
}

/// `base` with `removed` taken away and `delta` laid over it.
fn laid(base: &Path, removed: &[String], delta: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut files = tree(base);
    for path in removed {
        assert!(
            files.remove(path).is_some(),
            "{path} is not in {}",
            base.display()
        );
    }
    files.extend(tree(delta));
    files
}

#[test]
fn a_delta_laid_over_the_store_it_was_made_against_gives_its_own() {
    let (tmp, dir, opts, _) = make_box();
    let t = tmp.path();
    let full = dir.join("wt/store");
    let (s1000, _) = store_as_of(t, &opts, &dir, 1000, None);
    let (s1200, _) = store_as_of(t, &opts, &dir, 1200, None);
    // Back from the box's store (day 0 of the bench) ...
    let (d0, back) = store_as_of(t, &opts, &dir, 1000, Some(LINES));
    assert!(!back.removed.is_empty());
    assert!(laid(&full, &back.removed, &d0) == tree(&s1000));
    // ... and from any later store (the bench winds its store back from the last day's).
    let later: Vec<String> = back
        .removed
        .iter()
        .filter(|p| s1200.join(p).exists())
        .cloned()
        .collect();
    assert!(laid(&s1200, &later, &d0) == tree(&s1000));
    // Forward: a store only grows, and a delta holds only what changed.
    let (d1, fwd) = store_as_of(t, &opts, &dir, 1200, Some(1000));
    assert!(fwd.removed.is_empty());
    assert!(laid(&s1000, &[], &d1) == tree(&s1200));
    let before = tree(&s1000);
    for (path, bytes) in tree(&d1) {
        if path.starts_with("proofs/") {
            assert!(before.get(&path) != Some(&bytes), "{path} is unchanged");
        }
    }
    let (d2, _) = store_as_of(t, &opts, &dir, LINES, Some(1200));
    assert!(laid(&s1200, &[], &d2) == tree(&full));
}

#[test]
fn refuses_another_box_and_a_moment_before_the_tail_opened() {
    let (tmp, dir, opts, _) = make_box();
    let out = tmp.path().join("refused");
    let asked = |o: &BoxOptions, lines: u64| gen_box::write_store_as_of(o, &dir, lines, None, &out);
    let other_seed = BoxOptions {
        seed: 10,
        ..opts.clone()
    };
    assert!(format!("{:#}", asked(&other_seed, 1000).unwrap_err()).contains("REPORT.md"));
    let other_lines = BoxOptions {
        lines: LINES + 1,
        ..opts.clone()
    };
    assert!(asked(&other_lines, 1000).is_err());
    // The tail opens on day 15; the first hundred lines are long before it.
    assert!(format!("{:#}", asked(&opts, 100).unwrap_err()).contains("opened"));
    assert!(asked(&opts, LINES + 1).is_err());
    assert!(!out.exists());
    std::fs::create_dir_all(out.join("x")).unwrap();
    assert!(asked(&opts, 1000).is_err());
}
