//! The witness layer of a segmented exhibit (docs/witness.md#parts, issue 12): `index.json`
//! without `entries` but with `parts`, the entries in `witness/index/NNNNNN.json` by fixed
//! blocks of seqs, and `runs.jsonl` continued in `witness/runs/NNNNNN.jsonl` by the ledger's
//! greedy cut. Boxes use `segment_bytes = 4096` and the test knob `witness_part_seqs = 10`, so
//! 35 lines make four parts (10,000-seq parts would need 10,000+ lines per test).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::common::*;
use exhibit_protocol::Digest;
use serde_json::{Map, Value, json};

const SEGMENT_BYTES: usize = 4096;
const PART_SEQS: u64 = 10;
const MAGIC: &[u8; 31] = b"\x00OpenTimestamps\x00\x00Proof\x00\xbf\x89\xe2\xe8\x84\xe8\x92\x94";
const PENDING: &[u8] =
    b"\x00\x83\xdf\xe3\x0d\x2e\xf9\x0c\x8e\x2e\x2dhttps://alice.btc.calendar.opentimestamps.org";
const BITCOIN: &[u8] = b"\x00\x05\x88\x96\x0d\x73\xd7\x19\x01\x03\xfd\xc1\x3b";
const PREREG: &str = "# Witness kill gate\n\nThree bars, read at the close of day 9.\n";
/// 2026-10-24T13:00:00Z, the minute `push_scan(0)` stamps.
const START: i64 = 1_792_846_800;
/// The withheld line: seq 13, at 13:13:17 (its `detail` has a space, so it is withheld).
const WITHHELD_SEQ: usize = 13;
/// Every clock of the withheld seq finer than the day: its timestamp, the tail's seen_at
/// (+62 s) and stamped_at (+183 s). No published line's clock shares any of them.
const SECRETS: [&str; 6] = [
    "2026-10-24T13:13:17Z",
    "13:13:17",
    "2026-10-24T13:14:19Z",
    "13:14:19",
    "2026-10-24T13:16:20Z",
    "13:16:20",
];

struct Scene {
    _tmp: tempfile::TempDir,
    b: TestBox,
    repo: git2::Repository,
    work: PathBuf,
    site: PathBuf,
    store: PathBuf,
    w: LedgerWriter,
    /// The store's records, by entry_id.
    entries: Map<String, Value>,
    runs: String,
}

fn ts(secs: i64) -> String {
    exhibit::published::encode::timestamp_of(secs)
}

fn proof(digest: &str, tail: &[u8]) -> Vec<u8> {
    let mut b = MAGIC.to_vec();
    b.extend_from_slice(&[0x01, 0x08]);
    b.extend_from_slice(&digest.parse::<Digest>().unwrap().0);
    b.extend_from_slice(tail);
    b
}

fn scene() -> Scene {
    let tmp = tempfile::tempdir().unwrap();
    let b = TestBox::new(tmp.path());
    let work = tmp.path().join("exhibit");
    let repo = git2::Repository::init(&work).unwrap();
    let store = b.dir.join("store");
    std::fs::create_dir_all(store.join("proofs")).unwrap();
    let sha = Digest::of(PREREG.as_bytes()).to_string();
    std::fs::write(store.join("WITNESS_PREREG.md"), PREREG).unwrap();
    std::fs::write(
        store.join("seal.jsonl"),
        format!("{{\"file\":\"WITNESS_PREREG.md\",\"sealed_at\":\"2026-10-24T12:00:00Z\",\"sha256\":\"{sha}\"}}\n"),
    )
    .unwrap();
    let mut grown = proof(&sha, b"\xff");
    grown.extend_from_slice(PENDING);
    grown.extend_from_slice(BITCOIN);
    std::fs::write(store.join(format!("proofs/prereg_{sha}.ots")), grown).unwrap();
    std::fs::write(
        store.join("REPORT.md"),
        "# Witness tail report\n\nThe tail stamps every line it reads.\n",
    )
    .unwrap();
    let s = Scene {
        _tmp: tmp,
        b,
        repo,
        site: work.join("site"),
        work,
        store,
        w: LedgerWriter::new(),
        entries: Map::new(),
        runs: String::new(),
    };
    s.config("exhibit.toml", Some(SEGMENT_BYTES));
    s.config("whole.toml", None);
    s
}

impl Scene {
    /// A config: the box with its witness store; segmented when `segment_bytes` is given.
    fn config(&self, name: &str, segment_bytes: Option<usize>) {
        let mut c = "[gate]\nledger = \"gate/ledger.jsonl\"\nanchors = \"gate/anchors\"\n\n[publish]\nwitness = \"store\"\n".to_string();
        if let Some(n) = segment_bytes {
            c.push_str(&format!(
                "segment_bytes = {n}\nwitness_part_seqs = {PART_SEQS}\n"
            ));
        }
        std::fs::write(self.b.dir.join(name), c).unwrap();
    }

    /// Appends lines up to seq `to` (seq 13 withheld) and their store records and proofs.
    fn lines_to(&mut self, to: usize) {
        for seq in self.w.ids.len() + 1..=to {
            let minute = START + seq as i64 * 60;
            let (id, t, seen, stamped) = if seq == WITHHELD_SEQ {
                let t = minute + 17;
                let id = self
                    .w
                    .push("gate_wired", &ts(t), r#"{"detail":"bridge rewired"}"#);
                (id, t, t + 62, t + 183)
            } else {
                let id = self.w.push_scan(seq as u32);
                (id, minute, minute + 30, minute + 45)
            };
            self.entries.insert(
                id.clone(),
                json!({
                    "seq": seq, "status": "pending",
                    "calendars": ["https://alice.btc.calendar.opentimestamps.org"],
                    "line_timestamp": ts(t), "seen_at": ts(seen), "stamped_at": ts(stamped),
                }),
            );
            std::fs::write(
                self.store.join(format!("proofs/{id}.ots")),
                proof(&id, PENDING),
            )
            .unwrap();
        }
        self.b.write_ledger(&self.w.bytes());
        let sha = Digest::of(PREREG.as_bytes()).to_string();
        let index = json!({"entries": self.entries, "prereg": {"sha256": sha}});
        std::fs::write(
            self.store.join("index.json"),
            serde_json::to_vec_pretty(&index).unwrap(),
        )
        .unwrap();
    }

    /// Appends `n` tail runs to `runs.jsonl` (each about 100 bytes, at :50 past a minute).
    fn runs(&mut self, n: usize) {
        let from = self.runs.lines().count();
        for k in from..from + n {
            self.runs.push_str(&format!(
                "{{\"batch\":{k},\"calendars_ok\":1,\"lines_seen\":{k},\"run_at\":\"{}\",\"stamped\":1}}\n",
                ts(START + 7200 + k as i64 * 60 + 50)
            ));
        }
        std::fs::write(self.store.join("runs.jsonl"), &self.runs).unwrap();
    }

    /// The build's words (stdout and stderr).
    fn build_into(&self, config: &str, out: &Path, epoch: u64) -> String {
        let config = self.b.dir.join(config).display().to_string();
        let out = out.display().to_string();
        // Several folders of one repository from one box, on purpose (docs/operator.md#first-publication).
        let o = exhibit(
            &[
                "build",
                "--config",
                &config,
                "--out",
                &out,
                "--first-publication",
            ],
            epoch,
        );
        assert_eq!(o.status.code(), Some(0), "{}", text(&o));
        text(&o)
    }

    fn build(&self, epoch: u64) -> String {
        self.build_into("exhibit.toml", &self.site, epoch)
    }

    fn json(&self, rel: &str) -> Value {
        read_json(&self.site.join(rel))
    }

    fn git_status(&self) -> String {
        git_status(&self.work)
    }
}

fn read_json(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The run log's files on disk in chain order: `runs.jsonl`, then `runs/` in name order.
fn runs_files(site: &Path) -> Vec<(String, Vec<u8>)> {
    let w = site.join("ledger/witness");
    let mut out = vec![(
        "ledger/witness/runs.jsonl".to_string(),
        std::fs::read(w.join("runs.jsonl")).unwrap(),
    )];
    if let Ok(dir) = std::fs::read_dir(w.join("runs")) {
        let mut names: Vec<String> = dir
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        for n in names {
            out.push((
                format!("ledger/witness/runs/{n}"),
                std::fs::read(w.join("runs").join(&n)).unwrap(),
            ));
        }
    }
    out
}

/// The parts' entries, merged, after checking each part against its listing.
fn reassembled(site: &Path, index: &Value) -> Map<String, Value> {
    let mut all = Map::new();
    for part in index["parts"].as_array().unwrap() {
        let path = part["path"].as_str().unwrap();
        let bytes = std::fs::read(site.join(path)).unwrap();
        assert_eq!(
            part["sha256"],
            json!(Digest::of(&bytes).to_string()),
            "{path}"
        );
        let v: Value = serde_json::from_slice(&bytes).unwrap();
        let keys: Vec<&String> = v.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["entries"], "{path} holds its entries only");
        let entries = v["entries"].as_object().unwrap();
        assert_eq!(part["entries"], json!(entries.len()), "{path}");
        let (lo, hi) = (
            part["first_seq"].as_u64().unwrap(),
            part["last_seq"].as_u64().unwrap(),
        );
        for (id, rec) in entries {
            let seq = rec["seq"].as_u64().unwrap();
            assert!((lo..=hi).contains(&seq), "{path}: seq {seq}");
            assert!(all.insert(id.clone(), rec.clone()).is_none(), "{id} twice");
        }
    }
    all
}

/// The entries without their `proof` paths, after checking each names its own proof under
/// `folder(seq)` (`""`, `000000/`, `other/`) of `ledger/witness/proofs/`.
fn without_proofs(
    mut all: Map<String, Value>,
    folder: impl Fn(u64) -> String,
) -> Map<String, Value> {
    for (id, rec) in all.iter_mut() {
        let seq = rec["seq"].as_u64().unwrap();
        let proof = rec.as_object_mut().unwrap().remove("proof");
        assert_eq!(
            proof,
            Some(json!(format!(
                "ledger/witness/proofs/{}{id}.ots",
                folder(seq)
            ))),
            "seq {seq}"
        );
    }
    all
}

/// The names in a folder of the site, sorted.
fn names_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    names
}

/// A segmented exhibit's new proofs fill folders of 4,096 seqs named in seq order
/// (docs/witness.md#proof-folders): 4,100 lines put seqs 1-4096 in `000000/` and 4097-4100 in
/// `000001/`, an orphan in `other/`, the prereg's proof where the protocol puts it; each record
/// names its proof's path, and `exhibit verify SITE` finds every one there. Catches a bucket off
/// by one at the edge, a folder of more than 4,096 files, names out of seq order, an orphan in a
/// line's bucket, and a record that names no path or another.
#[test]
fn a_segmented_exhibits_proofs_fill_folders_of_4096_seqs_named_in_seq_order() {
    let mut s = scene();
    s.config("big.toml", Some(65_536));
    let orphan = Digest::of(b"a line the chain no longer has").to_string();
    s.entries.insert(
        orphan.clone(),
        json!({
            "seq": 3, "status": "pending",
            "calendars": ["https://alice.btc.calendar.opentimestamps.org"],
            "line_timestamp": ts(START), "seen_at": ts(START), "stamped_at": ts(START),
        }),
    );
    std::fs::write(
        s.store.join(format!("proofs/{orphan}.ots")),
        proof(&orphan, PENDING),
    )
    .unwrap();
    // A record the tail made of a line past the chain's head (the ledger this build reads ends
    // before it): its seq's folder, where its line's proof belongs when the line comes.
    let ahead = Digest::of(b"a line the gate has not written yet").to_string();
    s.entries.insert(
        ahead.clone(),
        json!({
            "seq": 4101, "status": "pending",
            "calendars": ["https://alice.btc.calendar.opentimestamps.org"],
            "line_timestamp": ts(START), "seen_at": ts(START), "stamped_at": ts(START),
        }),
    );
    std::fs::write(
        s.store.join(format!("proofs/{ahead}.ots")),
        proof(&ahead, PENDING),
    )
    .unwrap();
    s.lines_to(4100);
    s.runs(3);
    s.build_into("big.toml", &s.site, 1_800_000_000);
    assert!(s.site.join("ledger/segments").is_dir());
    let proofs = s.site.join("ledger/witness/proofs");
    let sha = Digest::of(PREREG.as_bytes()).to_string();
    assert_eq!(
        names_in(&proofs),
        [
            "000000".to_string(),
            "000001".into(),
            "other".into(),
            format!("prereg_{sha}.ots")
        ]
    );
    let own = |seqs: std::ops::RangeInclusive<usize>| {
        let mut v: Vec<String> = seqs.map(|q| format!("{}.ots", s.w.ids[q - 1])).collect();
        v.sort();
        v
    };
    assert_eq!(names_in(&proofs.join("000000")), own(1..=4096));
    let mut second = own(4097..=4100);
    second.push(format!("{ahead}.ots"));
    second.sort();
    assert_eq!(names_in(&proofs.join("000001")), second);
    assert_eq!(names_in(&proofs.join("other")), [format!("{orphan}.ots")]);
    let index = s.json("ledger/witness/index.json");
    let all = reassembled(&s.site, &index);
    assert_eq!(all.len(), 4102);
    for (id, rec) in &all {
        let seq = rec["seq"].as_u64().unwrap();
        let folder = match id == &orphan {
            true => "other".to_string(),
            false => format!("{:06}", (seq - 1) / 4096),
        };
        let path = format!("ledger/witness/proofs/{folder}/{id}.ots");
        assert_eq!(rec["proof"], json!(path), "seq {seq}");
        assert!(s.site.join(&path).is_file(), "{path}");
    }
    let (code, v) = verify_json(&s.site);
    assert_eq!((code, v["files"].clone()), (Some(0), json!([])), "{v}");
}

/// Nothing published moves (docs/witness.md#proof-folders): the proofs a one-file exhibit
/// published at `proofs/<entry_id>.ots` stay there once the ledger is segmented, the index
/// naming them there; only new proofs go to the bucket. A proof upgraded in either place is
/// replaced where it lies, and one the store drops is carried where it lies. `exhibit verify
/// SITE` then fails a stray name in a bucket, a tampered, removed or misplaced bucketed proof,
/// and a record that names another's proof.
#[test]
fn a_proof_published_before_segmentation_stays_where_it_was_and_new_ones_fill_the_bucket() {
    let mut s = scene();
    s.lines_to(5);
    s.runs(3);
    s.build(1_800_000_000);
    assert!(!s.site.join("ledger/segments").exists());
    let proofs = s.site.join("ledger/witness/proofs");
    assert_eq!(names_in(&proofs).len(), 6, "{:?}", names_in(&proofs));
    let whole = s.json("ledger/witness/index.json");
    assert!(
        whole["entries"]
            .as_object()
            .unwrap()
            .values()
            .all(|r| r.get("proof").is_none()),
        "a one-file exhibit's index stays as it was: {whole}"
    );
    commit_site(&s.repo);

    s.lines_to(30);
    s.build(1_800_086_400);
    assert!(s.site.join("ledger/segments").is_dir());
    let early = |seq: u64| seq <= 5;
    let folder = |seq: u64| {
        if early(seq) {
            String::new()
        } else {
            "000000/".into()
        }
    };
    let index = s.json("ledger/witness/index.json");
    let all = without_proofs(reassembled(&s.site, &index), folder);
    assert_eq!(all.len(), 30);
    for (seq, id) in s.w.ids.iter().enumerate().map(|(k, id)| (k as u64 + 1, id)) {
        let at = proofs.join(format!("{}{id}.ots", folder(seq)));
        assert!(at.is_file(), "seq {seq}: {}", at.display());
    }
    assert_eq!(names_in(&proofs.join("000000")).len(), 25);
    let (code, v) = verify_json(&s.site);
    assert_eq!((code, v["files"].clone()), (Some(0), json!([])), "{v}");
    commit_site(&s.repo);

    // The tail upgrades seq 2's proof (flat) and seq 7's (bucketed), and drops seq 9's.
    let (two, seven, nine) = (s.w.ids[1].clone(), s.w.ids[6].clone(), s.w.ids[8].clone());
    for id in [&two, &seven] {
        // A fork: the pending attestation kept, a Bitcoin one beside it.
        let mut grown = proof(id, b"\xff");
        grown.extend_from_slice(PENDING);
        grown.extend_from_slice(BITCOIN);
        std::fs::write(s.store.join(format!("proofs/{id}.ots")), grown).unwrap();
    }
    s.entries.remove(&nine);
    std::fs::remove_file(s.store.join(format!("proofs/{nine}.ots"))).unwrap();
    s.lines_to(30);
    let said = s.build(1_800_172_800);
    let index = s.json("ledger/witness/index.json");
    // What the build replaced is in its note, by the path each proof lies at.
    let note = said
        .lines()
        .find(|l| l.contains("replaced by the store's longer form"))
        .unwrap_or_else(|| panic!("no note of the replaced proofs: {said}"));
    assert!(
        note.contains(&format!(" {two}.ots")) && note.contains(&format!("000000/{seven}.ots")),
        "{note}"
    );
    assert_eq!(
        index["publisher"]["carried_not_in_store"],
        json!([format!("000000/{nine}.ots")])
    );
    assert!(
        std::fs::read(proofs.join(format!("{two}.ots")))
            .unwrap()
            .ends_with(BITCOIN)
    );
    assert!(
        std::fs::read(proofs.join(format!("000000/{seven}.ots")))
            .unwrap()
            .ends_with(BITCOIN)
    );
    assert!(proofs.join(format!("000000/{nine}.ots")).is_file());
    assert!(!proofs.join(format!("{seven}.ots")).exists());
    let (code, v) = verify_json(&s.site);
    assert_eq!((code, v["files"].clone()), (Some(0), json!([])), "{v}");

    // What verify SITE fails in the buckets, each on a copy of the site.
    type Mutate = fn(&Path, &str);
    let ten = s.w.ids[9].clone();
    let bucketed = format!("ledger/witness/proofs/000000/{ten}.ots");
    let cases: [(&str, Mutate, String, &str); 6] = [
        (
            "a stray name in a bucket",
            |site, _| {
                std::fs::write(site.join("ledger/witness/proofs/000000/notes.txt"), "n").unwrap()
            },
            "ledger/witness/proofs/000000/notes.txt".into(),
            "bad_name",
        ),
        (
            "a folder of proofs/ that is no bucket",
            |site, _| {
                let d = site.join("ledger/witness/proofs/00000");
                std::fs::create_dir(&d).unwrap();
                std::fs::write(d.join(format!("{}.ots", "a".repeat(64))), "x").unwrap();
            },
            "ledger/witness/proofs/00000".into(),
            "bad_name",
        ),
        (
            "a bucketed proof tampered",
            |site, id| {
                let p = site.join(format!("ledger/witness/proofs/000000/{id}.ots"));
                let mut b = std::fs::read(&p).unwrap();
                b[40] ^= 1;
                std::fs::write(p, b).unwrap();
            },
            bucketed.clone(),
            "proof_digest_mismatch",
        ),
        (
            "a bucketed proof removed",
            |site, id| {
                std::fs::remove_file(site.join(format!("ledger/witness/proofs/000000/{id}.ots")))
                    .unwrap()
            },
            bucketed.clone(),
            "witness_proof_missing",
        ),
        (
            "a bucketed proof moved to the next bucket",
            |site, id| {
                let to = site.join("ledger/witness/proofs/000001");
                std::fs::create_dir(&to).unwrap();
                std::fs::rename(
                    site.join(format!("ledger/witness/proofs/000000/{id}.ots")),
                    to.join(format!("{id}.ots")),
                )
                .unwrap();
            },
            bucketed.clone(),
            "witness_proof_missing",
        ),
        (
            "a bucketed proof moved to the flat path",
            |site, id| {
                std::fs::rename(
                    site.join(format!("ledger/witness/proofs/000000/{id}.ots")),
                    site.join(format!("ledger/witness/proofs/{id}.ots")),
                )
                .unwrap();
            },
            bucketed.clone(),
            "witness_proof_missing",
        ),
    ];
    for (name, mutate, file, code) in &cases {
        let tmp = tempfile::tempdir().unwrap();
        let copy = tmp.path().join("site");
        copy_tree(&s.site, &copy);
        mutate(&copy, &ten);
        let (rc, v) = verify_json(&copy);
        assert_eq!(rc, Some(1), "{name}: {v}");
        assert_file_problem(&v, file, code);
    }
    // A record that names another line's proof.
    let part = s.site.join("ledger/witness/index/000001.json");
    let bytes = std::fs::read_to_string(&part).unwrap();
    let eight = &s.w.ids[7];
    std::fs::write(
        &part,
        bytes.replace(&format!("000000/{eight}.ots"), &format!("000000/{ten}.ots")),
    )
    .unwrap();
    let (rc, v) = verify_json(&s.site);
    assert_eq!(rc, Some(1), "{v}");
    assert_file_problem(
        &v,
        "ledger/witness/index/000001.json",
        "witness_proof_path_invalid",
    );
}

#[test]
fn parts_reassemble_to_the_whole_index_and_a_withheld_line_keeps_only_its_day() {
    let mut s = scene();
    s.lines_to(35);
    s.runs(60);
    s.build(1_800_000_000);
    let whole = s.work.join("whole");
    s.build_into("whole.toml", &whole, 1_800_000_000);
    assert!(s.site.join("ledger/segments/000001.jsonl").is_file());
    assert!(!whole.join("ledger/segments").exists());

    let index = s.json("ledger/witness/index.json");
    let one = read_json(&whole.join("ledger/witness/index.json"));
    assert!(index.get("entries").is_none(), "{index}");
    // Fixed blocks of 10 seqs: 1-10, 11-20, 21-30, 31-35 (store seqs 1..=35).
    let listed: Vec<(String, u64, u64, u64)> = index["parts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["path"].as_str().unwrap().to_string(),
                p["first_seq"].as_u64().unwrap(),
                p["last_seq"].as_u64().unwrap(),
                p["entries"].as_u64().unwrap(),
            )
        })
        .collect();
    let want: Vec<(String, u64, u64, u64)> = (1..=4u64)
        .map(|n| {
            (
                format!("ledger/witness/index/{n:06}.json"),
                (n - 1) * PART_SEQS + 1,
                n * PART_SEQS,
                if n == 4 { 5 } else { 10 },
            )
        })
        .collect();
    assert_eq!(listed, want);
    let names: Vec<String> = std::fs::read_dir(s.site.join("ledger/witness/index"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(names.len(), 4, "{names:?}");

    // The parts hold exactly the one-file index's entries; the rest of index.json is the same.
    let all = without_proofs(reassembled(&s.site, &index), |_| "000000/".into());
    assert_eq!(Value::Object(all.clone()), one["entries"]);
    assert_eq!(all.len(), 35);
    let (mut a, mut b) = (index.clone(), one.clone());
    a.as_object_mut().unwrap().remove("parts");
    b.as_object_mut().unwrap().remove("entries");
    assert_eq!(a, b);

    // The withheld line's record, in its part (000002: seqs 11-20), carries only its day.
    let id = &s.w.ids[WITHHELD_SEQ - 1];
    let part: Value = read_json(&s.site.join("ledger/witness/index/000002.json"));
    let rec = &part["entries"][id];
    assert_eq!(rec["seq"], json!(WITHHELD_SEQ), "{part}");
    assert_eq!(rec["line_timestamp"], Value::Null);
    for clock in ["seen_at", "stamped_at"] {
        assert_eq!(rec[clock], json!("2026-10-24"), "{clock}: {rec}");
    }
    // ... and a published line's record keeps its clocks to the second.
    let pub_rec = &part["entries"][&s.w.ids[11]];
    assert_eq!(pub_rec["seen_at"], json!(ts(START + 12 * 60 + 30)));
    // No file of the exhibit, nor any data block of its page, carries a clock of the withheld
    // seq finer than the day.
    let html = String::from_utf8(std::fs::read(s.site.join("index.html")).unwrap()).unwrap();
    let blocks = page_blocks(&html);
    let page_witness: Value = serde_json::from_slice(&blocks["witness-json"]).unwrap();
    assert!(page_witness["index"].get("entries").is_none());
    assert_eq!(page_witness["index"]["parts"], index["parts"]);
    let mut texts: Vec<(String, Vec<u8>)> = snapshot_dir(&s.site).into_iter().collect();
    texts.extend(
        blocks
            .into_iter()
            .map(|(id, b)| (format!("index.html#{id}"), b)),
    );
    for (path, bytes) in texts {
        let t = String::from_utf8_lossy(&bytes);
        for secret in SECRETS {
            assert!(!t.contains(secret), "{path} carries {secret}");
        }
    }

    // The run log: the one-file build's runs.jsonl, cut greedily at 4096 bytes.
    let files = runs_files(&s.site);
    assert!(
        files.len() >= 2,
        "{:?}",
        files.iter().map(|f| &f.0).collect::<Vec<_>>()
    );
    let joined: Vec<u8> = files.iter().flat_map(|(_, b)| b.clone()).collect();
    assert_eq!(
        joined,
        std::fs::read(whole.join("ledger/witness/runs.jsonl")).unwrap()
    );
    assert_eq!(joined, s.runs.as_bytes());
    for (i, (path, bytes)) in files.iter().enumerate() {
        if i > 0 {
            assert_eq!(path, &format!("ledger/witness/runs/{i:06}.jsonl"));
        }
        assert!(
            bytes.ends_with(b"\n") && bytes.len() <= SEGMENT_BYTES,
            "{path}"
        );
        if let Some((_, next)) = files.get(i + 1) {
            let first = next.split_inclusive(|&b| b == b'\n').next().unwrap();
            assert!(bytes.len() + first.len() > SEGMENT_BYTES, "{path} is full");
        }
    }

    // A stranger's check reads the parts: clean as built ...
    let (code, v) = verify_json(&s.site);
    assert_eq!((code, v["files"].clone()), (Some(0), json!([])), "{v}");
    // ... and names the part, the stray and the gap when they are wrong.
    let part2 = s.site.join("ledger/witness/index/000002.json");
    let original = std::fs::read(&part2).unwrap();
    std::fs::write(
        &part2,
        String::from_utf8_lossy(&original).replace("pending", "proof"),
    )
    .unwrap();
    std::fs::write(s.site.join("ledger/witness/index/000009.json"), "{}").unwrap();
    std::fs::remove_file(s.site.join("ledger/witness/index/000003.json")).unwrap();
    std::fs::write(s.site.join("ledger/witness/runs/000003.jsonl"), "{}\n").unwrap();
    let (code, v) = verify_json(&s.site);
    assert_eq!(code, Some(1), "{v}");
    let got = file_problems(&v);
    for want in [
        ("ledger/witness/index/000002.json", "witness_part_mismatch"),
        ("ledger/witness/index/000009.json", "witness_part_stray"),
        ("ledger/witness/index/000003.json", "witness_part_missing"),
        ("ledger/witness/runs/000002.jsonl", "witness_runs_missing"),
    ] {
        assert!(
            got.contains(&(want.0.to_string(), want.1.to_string())),
            "{want:?} not in {got:?}"
        );
    }
    // A listing that names a path outside the parts' folder is a problem, never a read.
    let mut listed = s.json("ledger/witness/index.json");
    listed["parts"][0]["path"] = json!("ledger/witness/index/../../STATS.json");
    std::fs::write(
        s.site.join("ledger/witness/index.json"),
        serde_json::to_vec_pretty(&listed).unwrap(),
    )
    .unwrap();
    let (code, v) = verify_json(&s.site);
    assert_eq!(code, Some(1), "{v}");
    assert_file_problem(&v, "ledger/witness/index.json", "witness_parts_invalid");
}

#[test]
fn a_rebuild_after_new_lines_leaves_full_runs_files_and_unchanged_parts_as_they_were() {
    let mut s = scene();
    s.lines_to(25);
    s.runs(60);
    s.build(1_800_000_000);
    commit_site(&s.repo);
    let before = snapshot_dir(&s.site);
    let runs_before = runs_files(&s.site);
    assert_eq!(
        runs_before.len(),
        2,
        "runs.jsonl full, runs/000001.jsonl growing"
    );

    // A day later: ten new lines (seqs 26-35: part 3 grows, part 4 is new) and 40 new runs.
    s.lines_to(35);
    s.runs(40);
    s.build(1_800_086_400);
    let after = snapshot_dir(&s.site);
    let runs_after = runs_files(&s.site);
    assert_eq!(
        runs_after.len(),
        3,
        "{:?}",
        runs_after.iter().map(|f| &f.0).collect::<Vec<_>>()
    );
    assert_eq!(
        runs_after[0], runs_before[0],
        "the full runs.jsonl is left byte for byte"
    );
    assert!(
        runs_after[1].1.starts_with(&runs_before[1].1),
        "HEAD's last file only grows"
    );
    for unchanged in [
        "ledger/witness/runs.jsonl",
        "ledger/witness/index/000001.json",
        "ledger/witness/index/000002.json",
    ] {
        assert_eq!(after[unchanged], before[unchanged], "{unchanged}");
    }
    assert_ne!(
        after["ledger/witness/index/000003.json"],
        before["ledger/witness/index/000003.json"]
    );
    assert!(!before.contains_key("ledger/witness/index/000004.json"));
    assert!(after.contains_key("ledger/witness/index/000004.json"));
    let status = s.git_status();
    for untouched in [
        "ledger/witness/runs.jsonl",
        "ledger/witness/index/000001.json",
        "ledger/witness/index/000002.json",
    ] {
        assert!(!status.contains(untouched), "{untouched}: {status}");
    }
    assert!(
        status.contains("ledger/witness/runs/000002.jsonl"),
        "{status}"
    );

    // Once more, with a threshold twice as high: the cut is relative to HEAD, so the full
    // files stay as they are (a cut from the first line would refill runs.jsonl to 8192
    // bytes) and only the last one grows; the parts reassemble.
    commit_site(&s.repo);
    std::fs::write(
        s.b.dir.join("exhibit.toml"),
        std::fs::read_to_string(s.b.dir.join("exhibit.toml"))
            .unwrap()
            .replace("segment_bytes = 4096", "segment_bytes = 8192"),
    )
    .unwrap();
    s.runs(5);
    s.build(1_800_172_800);
    let again = runs_files(&s.site);
    assert_eq!(again.len(), 3);
    assert_eq!(again[..2], runs_after[..2]);
    assert!(again[2].1.starts_with(&runs_after[2].1));
    assert!(again[2].1.len() > runs_after[2].1.len());
    let index = s.json("ledger/witness/index.json");
    assert_eq!(reassembled(&s.site, &index).len(), 35);
    let (code, v) = verify_json(&s.site);
    assert_eq!((code, v["files"].clone()), (Some(0), json!([])), "{v}");
}

#[test]
fn a_run_log_that_no_longer_extends_heads_is_cut_afresh_with_a_note() {
    let mut s = scene();
    s.lines_to(25);
    s.runs(60);
    s.build(1_800_000_000);
    commit_site(&s.repo);
    // The tail rewrote its log's first line: nothing of HEAD's files can be kept.
    s.runs = s.runs.replacen("\"batch\":0,", "\"batch\":100,", 1);
    s.runs(1);
    let config = s.b.dir.join("exhibit.toml").display().to_string();
    let site = s.site.display().to_string();
    let o = exhibit(
        &["build", "--config", &config, "--out", &site],
        1_800_086_400,
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(text(&o).contains("does not extend HEAD's"), "{}", text(&o));
    let files = runs_files(&s.site);
    let joined: Vec<u8> = files.iter().flat_map(|(_, b)| b.clone()).collect();
    assert_eq!(joined, s.runs.as_bytes());
}

#[test]
fn an_unsegmented_box_keeps_one_index_and_one_run_log() {
    let mut s = scene();
    s.lines_to(35);
    s.runs(60);
    let whole = s.work.join("whole");
    s.build_into("whole.toml", &whole, 1_800_000_000);
    let files: BTreeMap<String, Vec<u8>> = snapshot_dir(&whole);
    let witness: Vec<&String> = files
        .keys()
        .filter(|p| p.starts_with("ledger/witness/") && !p.starts_with("ledger/witness/proofs/"))
        .collect();
    assert_eq!(
        witness,
        [
            "ledger/witness/REPORT.md",
            "ledger/witness/WITNESS_PREREG.md",
            "ledger/witness/index.json",
            "ledger/witness/runs.jsonl",
            "ledger/witness/seal.jsonl",
        ]
    );
    let index = read_json(&whole.join("ledger/witness/index.json"));
    assert!(index.get("parts").is_none());
    assert_eq!(index["entries"].as_object().unwrap().len(), 35);
    assert_eq!(files["ledger/witness/runs.jsonl"], s.runs.as_bytes());
}

/// The run log grows with the tail's runs, not the ledger's lines: a ledger in one file with a
/// long run behind its tail still publishes no run-log file past `segment_bytes`
/// (docs/scale.md#the-run-log-is-not-held). Catches a cut gated on the ledger's layout alone.
#[test]
fn a_run_log_past_the_threshold_is_cut_even_when_the_ledger_is_one_file() {
    let mut s = scene();
    s.lines_to(3);
    s.runs(120);
    s.build(1_800_000_000);
    let files = snapshot_dir(&s.site);
    assert!(
        !files.keys().any(|p| p.starts_with("ledger/segments/")),
        "the ledger is one file"
    );
    assert!(s.json("ledger/witness/index.json").get("parts").is_none());
    let runs = runs_files(&s.site);
    assert!(
        runs.len() >= 3,
        "{:?}",
        runs.iter().map(|f| &f.0).collect::<Vec<_>>()
    );
    for (i, (path, _)) in runs.iter().enumerate().skip(1) {
        assert_eq!(path, &format!("ledger/witness/runs/{i:06}.jsonl"));
    }
    for (path, bytes) in &runs {
        assert!(
            bytes.ends_with(b"\n") && bytes.len() <= SEGMENT_BYTES,
            "{path}: {} bytes",
            bytes.len()
        );
    }
    let joined: Vec<u8> = runs.iter().flat_map(|(_, b)| b.clone()).collect();
    assert_eq!(joined, s.runs.as_bytes());
    let (code, v) = verify_json(&s.site);
    assert_eq!((code, v["files"].clone()), (Some(0), json!([])), "{v}");

    // The next day, more runs: the full files stay byte for byte, git sees no change to them.
    commit_site(&s.repo);
    s.runs(30);
    s.build(1_800_086_400);
    let again = runs_files(&s.site);
    assert_eq!(again[..runs.len() - 1], runs[..runs.len() - 1]);
    let status = s.git_status();
    for (path, _) in &runs[..runs.len() - 1] {
        assert!(!status.contains(path.as_str()), "{path}: {status}");
    }
    let joined: Vec<u8> = again.iter().flat_map(|(_, b)| b.clone()).collect();
    assert_eq!(joined, s.runs.as_bytes());
    // A small log beside a small ledger stays one runs.jsonl (as the test above shows for a
    // box without segment_bytes).
}

#[test]
fn the_part_size_knob_refuses_values_outside_its_range() {
    let s = scene();
    for bad in ["0", "10001", "-1"] {
        std::fs::write(
            s.b.dir.join("bad.toml"),
            format!(
                "[gate]\nledger = \"gate/ledger.jsonl\"\n\n[publish]\nwitness_part_seqs = {bad}\n"
            ),
        )
        .unwrap();
        let config = s.b.dir.join("bad.toml").display().to_string();
        let out = s.site.display().to_string();
        let o = exhibit(
            &["build", "--config", &config, "--out", &out],
            1_800_000_000,
        );
        assert_eq!(o.status.code(), Some(2), "{bad}: {}", text(&o));
        assert!(text(&o).contains("witness_part_seqs"), "{}", text(&o));
        assert!(!s.site.exists());
    }
}
