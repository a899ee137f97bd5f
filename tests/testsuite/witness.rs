//! The per-line witness layer (docs/protocol.md#witness, issue 4), driven through the binary. Every count
//! is checked against a figure computed by hand from the table in `fixture()`.

use crate::common::{self, page_blocks};
use exhibit_protocol::Digest;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use exhibit_protocol::canonical::{self, Object, Value};
use exhibit_protocol::days::{self, DayDeriver};
use serde_json::{Value as J, json};

const TZ: &str = "America/New_York";
const MAGIC: &[u8; 31] = b"\x00OpenTimestamps\x00\x00Proof\x00\xbf\x89\xe2\xe8\x84\xe8\x92\x94";
const PENDING: &[u8] =
    b"\x00\x83\xdf\xe3\x0d\x2e\xf9\x0c\x8e\x2e\x2dhttps://alice.btc.calendar.opentimestamps.org";
const BITCOIN: &[u8] = b"\x00\x05\x88\x96\x0d\x73\xd7\x19\x01\x03\xfd\xc1\x3b";
const CAL2: [&str; 2] = [
    "https://alice.btc.calendar.opentimestamps.org",
    "https://bob.btc.calendar.opentimestamps.org",
];
const PREREG: &str =
    "# Witness kill gate\n\nThree bars, read at the close of day 9 of the window.\n";

// ---- the box -----------------------------------------------------------------------------------

/// The chain: 12 lines on 2026-11-01 (UTC); seq 7 is withheld (a space in `detail`).
const TIMES: [&str; 12] = [
    "2026-11-01T08:00:00Z",
    "2026-11-01T09:00:00Z",
    "2026-11-01T10:30:00Z",
    "2026-11-01T12:00:00Z",
    "2026-11-01T13:00:00Z",
    "2026-11-01T14:00:00Z",
    "2026-11-01T16:17:18Z", // seq 7, withheld
    "2026-11-01T17:00:00Z",
    "2026-11-01T18:00:00Z",
    "2026-11-01T19:00:00Z",
    "2026-11-01T20:00:00Z",
    "2026-11-01T21:00:00Z",
];
const WITHHELD_SEQ: i64 = 7;

/// One record of the store's index, as the tail writes it.
#[derive(Clone)]
struct Rec {
    id: String,
    seq: i64,
    status: &'static str,
    line_timestamp: String,
    seen_at: String,
    stamped_at: String,
    upgraded_at: Option<String>,
    block_height: Option<u64>,
    block_hash: Option<String>,
    block_time: Option<String>,
    calendars: usize,
}

struct Fixture {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    toml: PathBuf,
    store: PathBuf,
    ids: Vec<String>,
    recs: Vec<Rec>,
    runs: String,
    report: String,
}

fn dump(o: &Object<'_>, except: Option<&str>) -> Vec<u8> {
    let mut out = Vec::new();
    canonical::dump_object_except(o, except, &mut out).unwrap();
    out
}

/// Writes the gate's ledger; returns the entry_ids by seq.
fn write_ledger(path: &Path) -> Vec<String> {
    let mut h = Object::default();
    h.insert("anchor_tz", Value::str(TZ));
    h.insert(
        "certifies",
        Value::str("Each line records one gate event; no line holds message text or a chat id."),
    );
    h.insert("created", Value::str("2026-11-01T00:00:00Z"));
    h.insert("schema", Value::str("darkflobi.gate/log/v0"));
    let header = dump(&h, None);
    let mut domain = b"darkflobi.gate/log/v0\n".to_vec();
    domain.extend_from_slice(&header);
    let mut prev = Digest::of(&domain).to_string();
    let mut bytes = header;
    bytes.push(b'\n');
    let mut days = DayDeriver::new(days::zone(TZ).unwrap());
    let mut ids = Vec::new();
    for (i, ts) in TIMES.iter().enumerate() {
        let seq = i as i64 + 1;
        let mut o = Object::default();
        o.insert("schema", Value::str("darkflobi.gate/entry/v0"));
        o.insert("seq", Value::Int(seq));
        o.insert("prev", Value::str(prev.clone()));
        o.insert("timestamp", Value::str(*ts));
        o.insert(
            "day",
            Value::str(days.day_of(days::parse_timestamp(ts).unwrap())),
        );
        if seq == WITHHELD_SEQ {
            o.insert("kind", Value::str("gate_wired"));
            o.insert("detail", Value::str("bridge rewired"));
        } else {
            o.insert("kind", Value::str("exec_scan"));
            o.insert("scanned", Value::Int(seq * 10));
            o.insert("flagged", Value::Int(0));
        }
        let id = Digest::of(&dump(&o, Some("entry_id"))).to_string();
        o.insert("entry_id", Value::str(id.clone()));
        bytes.extend_from_slice(&dump(&o, None));
        bytes.push(b'\n');
        prev = id.clone();
        ids.push(id);
    }
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
    ids
}

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// A proof's bytes: the header committing to `digest`, then `tail` (never parsed).
fn proof(digest: &str, tail: &[u8]) -> Vec<u8> {
    let mut b = MAGIC.to_vec();
    b.extend_from_slice(&[0x01, 0x08]);
    b.extend_from_slice(&unhex(digest));
    b.extend_from_slice(tail);
    b
}

fn grown(digest: &str) -> Vec<u8> {
    // A fork: the calendar's pending branch, then the bitcoin attestation.
    let mut b = proof(digest, b"\xff");
    b.extend_from_slice(PENDING);
    b.extend_from_slice(BITCOIN);
    b
}

fn day(t: &str) -> String {
    format!("2026-11-01T{t}Z")
}

#[allow(clippy::too_many_arguments)]
fn rec(
    id: &str,
    seq: i64,
    status: &'static str,
    line: &str,
    seen: &str,
    stamped: &str,
    upgraded: Option<&str>,
    block_time: Option<&str>,
) -> Rec {
    let proofish = matches!(status, "proof" | "explorers_disagree" | "mismatch");
    Rec {
        id: id.to_string(),
        seq,
        status,
        line_timestamp: line.to_string(),
        seen_at: day(seen),
        stamped_at: day(stamped),
        upgraded_at: upgraded.map(day),
        block_height: proofish.then_some(975_200 + seq as u64),
        block_hash: matches!(status, "proof" | "mismatch")
            .then(|| Digest::of(format!("block {seq}").as_bytes()).to_string()),
        block_time: block_time.map(str::to_string),
        calendars: if status == "stamp_failed" { 1 } else { 2 },
    }
}

const ORPHAN_DUP: &str = "00000000000000000000000000000000000000000000000000000000000000aa";
const ORPHAN_LATE: &str = "00000000000000000000000000000000000000000000000000000000000000bb";
const STRAY: &str = "00000000000000000000000000000000000000000000000000000000000000cc";

/// The store, by hand (latency = block_time − the line's timestamp):
///
/// | seq | status | seen_at | stamped_at | block_time | latency | retro |
/// |---|---|---|---|---|---|---|
/// | 1 | proof | 11:00:00 | 11:00:05 (A) | 11-02 14:00:00 | +30 h (over 24 h) | yes (3 h) |
/// | 2 | proof | 11:00:00 | 11:00:05 (A) | 20:00:00 | +11 h (24 h) | yes (2 h) |
/// | 3 | proof | 11:00:00 | 11:00:05 (A) | 11:40:00 | +1 h 10 min (6 h) | no (30 min) |
/// | 4 | proof | 12:01:00 | 12:02:00 (B) | 12:40:00 | +40 min (1 h) | no |
/// | 5 | proof | 13:01:00 | 13:02:00 (C) | 12:50:00 | −600 s (1 h, negative) | no |
/// | 6 | pending | 14:01:00 | 14:02:00 (D) | — | none yet | no |
/// | 7 | proof, withheld | 16:18:19 | 16:19:20 (E) | 16:07:18 | −600 s (1 h, negative) | no |
/// | 8 | explorers_disagree | 17:01:00 | 17:02:00 (F) | — | none yet | no |
/// | 9 | no record | | | | none yet | |
/// | 10 | mismatch | 19:01:00 | 19:02:00 (G) | — | none yet | no |
/// | 11 | stamp_failed | 20:01:00 | 20:02:00 (H) | — | none yet | no |
/// | 12 | no record (tail lag) | | | | none yet | |
/// | orphan aa, seq 3 | proof | 11:00:00 | 11:00:05 (A) | 11:40:00 | | |
/// | orphan bb, seq 13 | pending | 22:01:00 | 22:02:00 (I) | | | |
///
/// Plus a stray proof (cc) the index does not name.
fn fixture() -> Fixture {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().to_path_buf();
    let ids = write_ledger(&root.join("box/gate/ledger.jsonl"));
    let toml = root.join("box/exhibit.toml");
    std::fs::write(&toml, "[gate]\nledger = \"gate/ledger.jsonl\"\n").unwrap();
    let store = root.join("box/wt/store");
    let t = |s: i64| TIMES[s as usize - 1];
    let recs = vec![
        rec(
            &ids[0],
            1,
            "proof",
            t(1),
            "11:00:00",
            "11:00:05",
            Some("14:00:00"),
            Some("2026-11-02T14:00:00Z"),
        ),
        rec(
            &ids[1],
            2,
            "proof",
            t(2),
            "11:00:00",
            "11:00:05",
            Some("14:00:00"),
            Some("2026-11-01T20:00:00Z"),
        ),
        rec(
            &ids[2],
            3,
            "proof",
            t(3),
            "11:00:00",
            "11:00:05",
            Some("14:00:00"),
            Some("2026-11-01T11:40:00Z"),
        ),
        rec(
            &ids[3],
            4,
            "proof",
            t(4),
            "12:01:00",
            "12:02:00",
            Some("15:00:00"),
            Some("2026-11-01T12:40:00Z"),
        ),
        rec(
            &ids[4],
            5,
            "proof",
            t(5),
            "13:01:00",
            "13:02:00",
            Some("16:00:00"),
            Some("2026-11-01T12:50:00Z"),
        ),
        rec(
            &ids[5],
            6,
            "pending",
            t(6),
            "14:01:00",
            "14:02:00",
            None,
            None,
        ),
        rec(
            &ids[6],
            7,
            "proof",
            t(7),
            "16:18:19",
            "16:19:20",
            Some("19:20:21"),
            Some("2026-11-01T16:07:18Z"),
        ),
        rec(
            &ids[7],
            8,
            "explorers_disagree",
            t(8),
            "17:01:00",
            "17:02:00",
            Some("20:00:00"),
            None,
        ),
        rec(
            &ids[9],
            10,
            "mismatch",
            t(10),
            "19:01:00",
            "19:02:00",
            Some("22:00:00"),
            None,
        ),
        rec(
            &ids[10],
            11,
            "stamp_failed",
            t(11),
            "20:01:00",
            "20:02:00",
            None,
            None,
        ),
        rec(
            ORPHAN_DUP,
            3,
            "proof",
            t(3),
            "11:00:00",
            "11:00:05",
            Some("14:00:00"),
            Some("2026-11-01T11:40:00Z"),
        ),
        rec(
            ORPHAN_LATE,
            13,
            "pending",
            "2026-11-01T22:00:00Z",
            "22:01:00",
            "22:02:00",
            None,
            None,
        ),
    ];
    let runs = [
        r#"{"batch":1,"calendars_ok":2,"lines_seen":3,"run_at":"2026-11-01T11:00:00Z","stamped":3}"#,
        r#"{"batch":5,"calendars_ok":2,"lines_seen":7,"run_at":"2026-11-01T16:19:00Z","stamped":1}"#,
        r#"{"batch":null,"calendars_ok":0,"lines_seen":11,"run_at":"2026-11-01T22:30:00Z","stamped":0}"#,
    ]
    .map(|l| format!("{l}\n"))
    .concat();
    let report = "# Witness tail report\n\nAs the tail last read the chain (run at 2026-11-01T22:30:00Z, the tail's clock): 11 lines.\n\n| state | entries |\n|---|---|\n| proof | 7 |\n".to_string();
    let fx = Fixture {
        _tmp: tmp,
        root,
        toml,
        store,
        ids,
        recs,
        runs,
        report,
    };
    write_store(&fx);
    fx
}

fn prereg_sha() -> String {
    Digest::of(PREREG.as_bytes()).to_string()
}

fn write_index(fx: &Fixture, recs: &[Rec], extra: Option<(&str, J)>) {
    let mut entries = BTreeMap::new();
    for r in recs {
        let mut o = json!({
            "seq": r.seq, "status": r.status, "calendars": CAL2[..r.calendars].to_vec(),
            "line_timestamp": r.line_timestamp, "seen_at": r.seen_at, "stamped_at": r.stamped_at,
        });
        if let Some(v) = &r.upgraded_at {
            o["upgraded_at"] = json!(v);
        }
        if let Some(v) = r.block_height {
            o["block_height"] = json!(v);
        }
        if let Some(v) = &r.block_hash {
            o["block_hash"] = json!(v);
        }
        if let Some(v) = &r.block_time {
            o["block_time"] = json!(v);
        }
        if let Some((k, v)) = &extra {
            o[*k] = v.clone();
        }
        entries.insert(r.id.clone(), o);
    }
    let index = json!({"entries": entries, "prereg": {"sha256": prereg_sha()}});
    std::fs::write(
        fx.store.join("index.json"),
        serde_json::to_vec_pretty(&index).unwrap(),
    )
    .unwrap();
}

fn write_store(fx: &Fixture) {
    let proofs = fx.store.join("proofs");
    std::fs::create_dir_all(&proofs).unwrap();
    write_index(fx, &fx.recs, None);
    for r in &fx.recs {
        std::fs::write(proofs.join(format!("{}.ots", r.id)), proof(&r.id, PENDING)).unwrap();
    }
    let sha = prereg_sha();
    std::fs::write(proofs.join(format!("prereg_{sha}.ots")), grown(&sha)).unwrap();
    std::fs::write(proofs.join(format!("{STRAY}.ots")), proof(STRAY, PENDING)).unwrap();
    std::fs::write(fx.store.join("WITNESS_PREREG.md"), PREREG).unwrap();
    std::fs::write(
        fx.store.join("seal.jsonl"),
        format!("{{\"file\":\"WITNESS_PREREG.md\",\"sealed_at\":\"2026-11-01T11:00:00Z\",\"sha256\":\"{sha}\"}}\n"),
    )
    .unwrap();
    std::fs::write(fx.store.join("runs.jsonl"), &fx.runs).unwrap();
    std::fs::write(fx.store.join("REPORT.md"), &fx.report).unwrap();
}

fn proof_path(fx: &Fixture, id: &str) -> PathBuf {
    fx.store.join("proofs").join(format!("{id}.ots"))
}

// ---- running the binary ------------------------------------------------------------------------

fn build_into(fx: &Fixture, out: &Path, extra: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_exhibit"))
        .args(["build", "--config"])
        .arg(&fx.toml)
        .arg("--out")
        .arg(out)
        .arg("--witness")
        .arg(&fx.store)
        .args(extra)
        .env("SOURCE_DATE_EPOCH", "1800000000")
        .output()
        .expect("run exhibit")
}

fn site(fx: &Fixture) -> PathBuf {
    fx.root.join("site")
}

fn build(fx: &Fixture, extra: &[&str]) -> Output {
    build_into(fx, &site(fx), extra)
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn ok(o: &Output) {
    assert_eq!(
        o.status.code(),
        Some(0),
        "stdout: {}\nstderr: {}",
        String::from_utf8_lossy(&o.stdout),
        stderr(o)
    );
}

fn refused(o: &Output, needles: &[&str]) {
    assert_eq!(
        o.status.code(),
        Some(1),
        "expected a refusal; stderr: {}",
        stderr(o)
    );
    let e = stderr(o);
    assert!(e.contains("build refused"), "{e}");
    for n in needles {
        assert!(e.contains(n), "refusal lacks {n:?}: {e}");
    }
    assert!(!e.contains("panicked"), "{e}");
}

fn read_json(path: &Path) -> J {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

fn stats(fx: &Fixture) -> J {
    read_json(&site(fx).join("ledger/STATS.json"))["witness"].clone()
}

fn tree(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    if !dir.exists() {
        return out;
    }
    for e in walkdir(dir) {
        let rel = e
            .strip_prefix(dir)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        out.insert(rel, std::fs::read(&e).unwrap());
    }
    out
}

fn walkdir(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.file_name().is_some_and(|n| n == ".git") {
            continue;
        }
        if p.is_dir() {
            out.extend(walkdir(&p));
        } else {
            out.push(p);
        }
    }
    out.sort();
    out
}

fn witness_page_data(fx: &Fixture) -> J {
    let html = String::from_utf8(std::fs::read(site(fx).join("index.html")).unwrap()).unwrap();
    let blocks = page_blocks(&html);
    serde_json::from_slice(
        blocks
            .get("witness-json")
            .expect("the page embeds witness-json"),
    )
    .unwrap()
}

fn of(count: usize, of: usize) -> J {
    json!({"count": count, "of": of})
}

// ---- git ---------------------------------------------------------------------------------------

// ---- the tests ---------------------------------------------------------------------------------

#[test]
fn every_count_matches_the_hand_made_store() {
    let fx = fixture();
    let o = build(&fx, &[]);
    ok(&o);
    let s = stats(&fx);
    let n = 12;
    assert_eq!(s["lines"], n);
    // Seqs 1-8 and 10 have a record whose status is not stamp_failed.
    assert_eq!(s["with_commitment"], of(9, n));
    assert_eq!(s["pending"], of(1, n)); // 6
    assert_eq!(s["proof"], of(6, n)); // 1 2 3 4 5 7 (the orphans are not chain lines)
    assert_eq!(s["explorers_disagree"], of(1, n)); // 8
    assert_eq!(s["mismatch"], of(1, n)); // 10
    assert_eq!(s["stamp_failed"], of(1, n)); // 11
    assert_eq!(s["no_record"], of(2, n)); // 9 12
    assert_eq!(s["tail_lag"], of(1, n)); // 12: after 11, the last line seen
    assert_eq!(s["retroactive"], of(2, n)); // 1 (3 h) 2 (2 h); 3 was seen 30 min after
    let lat = &s["outside_latency"];
    assert_eq!(lat["within_1h"], of(3, n)); // 4 (+40 min) 5 (−600 s) 7 (−600 s)
    assert_eq!(lat["within_6h"], of(4, n)); // + 3 (+70 min)
    assert_eq!(lat["within_24h"], of(5, n)); // + 2 (+11 h)
    assert_eq!(lat["over_24h"], of(1, n)); // 1 (+30 h)
    assert_eq!(lat["none_yet"], of(6, n)); // 6 8 9 10 11 12
    assert_eq!(lat["negative"], of(2, n));
    // No list of seqs: it grew with the ledger in every STATS.json and snapshot line, and a
    // withheld line's negative latency said its moment was after the block's.
    assert_eq!(lat.get("negative_seqs"), None);
    // 10 chain records + 2 orphans; seqs 1-8, 10, 11, 13 = 11 distinct, seq 3 twice.
    assert_eq!(s["store_entries"], 12);
    assert_eq!(s["orphans"], of(2, 12));
    assert_eq!(s["multi_entry_seqs"], of(1, 11));
    // stamped_at moments A..I.
    assert_eq!(s["stamp_batches"], of(9, 12));
    // Of the proofs published (12 entries' and the prereg's), not of HEAD's (none).
    assert_eq!(s["replaced"], of(0, 13));
    assert_eq!(s["carried_not_in_store"], of(0, 13));
    // 12 named + prereg + stray = 14 files in the store's proofs/.
    assert_eq!(s["stray_files"], of(1, 14));
    assert_eq!(s["proofs_published"], 13);
    assert_eq!(s["runs"], 3);
    assert_eq!(
        s["window"],
        json!({"registered": false, "since": null, "day_9_closes": null})
    );
    assert!(
        stderr(&o).contains("the kill-gate window is not registered"),
        "{}",
        stderr(&o)
    );

    // The files: every named proof copied as it is, the stray not, the tail's files as written.
    let out = site(&fx).join("ledger/witness");
    let mut published: Vec<String> = std::fs::read_dir(out.join("proofs"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    published.sort();
    let mut expected: Vec<String> = fx.recs.iter().map(|r| format!("{}.ots", r.id)).collect();
    expected.push(format!("prereg_{}.ots", prereg_sha()));
    expected.sort();
    assert_eq!(published, expected);
    for name in &expected {
        assert_eq!(
            std::fs::read(out.join("proofs").join(name)).unwrap(),
            std::fs::read(fx.store.join("proofs").join(name)).unwrap()
        );
    }
    for f in ["REPORT.md", "runs.jsonl", "seal.jsonl", "WITNESS_PREREG.md"] {
        assert_eq!(
            std::fs::read(out.join(f)).unwrap(),
            std::fs::read(fx.store.join(f)).unwrap(),
            "{f}"
        );
    }

    // index.json: the tail's state, the withheld seq cut to the day, the publisher's lists.
    let ix = read_json(&out.join("index.json"));
    let entries = ix["entries"].as_object().unwrap();
    assert_eq!(entries.len(), 12);
    let e1 = &entries[&fx.ids[0]];
    assert_eq!(e1["line_timestamp"], TIMES[0]);
    assert_eq!(e1["seen_at"], "2026-11-01T11:00:00Z");
    assert_eq!(e1["block_time"], "2026-11-02T14:00:00Z");
    assert_eq!(e1["status"], "proof");
    assert_eq!(e1["calendars"], json!(CAL2));
    let e7 = &entries[&fx.ids[6]];
    assert_eq!(e7["line_timestamp"], J::Null);
    assert_eq!(e7["seen_at"], "2026-11-01");
    assert_eq!(e7["stamped_at"], "2026-11-01");
    assert_eq!(e7["upgraded_at"], "2026-11-01");
    assert_eq!(e7["block_time"], "2026-11-01T16:07:18Z"); // the miner's clock, copied
    assert_eq!(e7["status"], "proof");
    assert_eq!(e7["seq"], 7);
    let p = &ix["publisher"];
    assert_eq!(p["withheld_seqs"], json!([7]));
    assert_eq!(
        p["orphans"],
        json!([{"entry_id": ORPHAN_DUP, "seq": 3}, {"entry_id": ORPHAN_LATE, "seq": 13}])
    );
    let mut dup = vec![fx.ids[2].clone(), ORPHAN_DUP.to_string()];
    dup.sort();
    assert_eq!(p["multi_entry_seqs"], json!([{"seq": 3, "entry_ids": dup}]));
    assert_eq!(p["stray_files"], 1);
    assert_eq!(p["tail_read"]["run_at"], "2026-11-01T22:30:00Z");
    assert_eq!(p["tail_read"]["lines_seen"], 11);
    assert_eq!(p["page_carries"]["lines"], 12);
    assert_eq!(p["page_carries"]["withheld"], 1);
    assert_eq!(ix["prereg"]["sha256"], prereg_sha());

    // The page's embedded document.
    let page = witness_page_data(&fx);
    assert_eq!(page["index"], ix);
    assert_eq!(page["stats"], s);
    assert_eq!(page["report_md"], fx.report);
    assert_eq!(page["prereg_md"], PREREG);
    assert_eq!(page["runs"], 3);
    assert_eq!(page["tail_last_run"]["lines_seen"], 11);
    assert_eq!(page["window"]["registered"], false);
    let how = page["how_to_pin"].as_str().unwrap();
    for needle in [
        "ots verify -d <entry_id> <entry_id>.ots",
        "node ots-cli.js verify -i -d <entry_id> <entry_id>.ots",
        "Pending confirmation in Bitcoin blockchain",
        "mempool.space",
        "blockstream.info",
        "withheld.json",
    ] {
        assert!(how.contains(needle), "how_to_pin lacks {needle:?}");
    }
    // SNAPSHOTS.jsonl carries the same figures.
    let snaps = std::fs::read_to_string(site(&fx).join("ledger/SNAPSHOTS.jsonl")).unwrap();
    let last: J = serde_json::from_str(snaps.lines().last().unwrap()).unwrap();
    assert_eq!(last["witness"], s);
}

#[test]
fn a_withheld_seq_carries_no_clock_finer_than_the_day_anywhere() {
    let fx = fixture();
    ok(&build(&fx, &[]));
    // The line's timestamp and the tail's seen_at, stamped_at, upgraded_at for seq 7.
    let secret = [
        "2026-11-01T16:17:18Z",
        "16:17:18",
        "16:18:19",
        "16:19:20",
        "19:20:21",
    ];
    let files = tree(&site(&fx));
    assert!(files.contains_key("index.html") && files.contains_key("ledger/witness/index.json"));
    let mut scanned = 0;
    for (path, bytes) in &files {
        let mut texts = vec![String::from_utf8_lossy(bytes).into_owned()];
        if path == "index.html" {
            let blocks = page_blocks(&texts[0]);
            assert!(blocks.contains_key("witness-json"), "{:?}", blocks.keys());
            texts.extend(
                blocks
                    .values()
                    .map(|b| String::from_utf8_lossy(b).into_owned()),
            );
        }
        for t in &texts {
            for s in secret {
                assert!(!t.contains(s), "{path} carries {s}");
            }
            scanned += 1;
        }
    }
    assert!(scanned > 20, "{scanned}");
    // The published lines' clocks are there (the scan can see them).
    let ix = String::from_utf8(files["ledger/witness/index.json"].clone()).unwrap();
    assert!(ix.contains("2026-11-01T13:01:00Z"));
}

#[test]
fn a_proof_grows_between_builds_and_is_replaced_one_dropped_is_carried_one_shrunk_refuses() {
    let fx = fixture();
    let repo = git2::Repository::init(&fx.root).unwrap();
    ok(&build(&fx, &[]));
    common::commit_site(&repo);
    let pending_id = fx.ids[5].clone(); // seq 6
    let published = |id: &str| {
        std::fs::read(site(&fx).join(format!("ledger/witness/proofs/{id}.ots"))).unwrap()
    };
    let head_orphan = published(ORPHAN_LATE);

    // Second build: seq 6's proof gained a Bitcoin attestation; orphan bb left the store.
    std::fs::write(proof_path(&fx, &pending_id), grown(&pending_id)).unwrap();
    let recs: Vec<Rec> = fx
        .recs
        .iter()
        .filter(|r| r.id != ORPHAN_LATE)
        .cloned()
        .collect();
    write_index(&fx, &recs, None);
    std::fs::remove_file(proof_path(&fx, ORPHAN_LATE)).unwrap();
    let o = build(&fx, &[]);
    ok(&o);
    assert!(
        stderr(&o).contains(&format!(
            "1 published proof(s) replaced by the store's longer form: {pending_id}.ots"
        )),
        "the build says what it replaced: {}",
        stderr(&o)
    );
    let s = stats(&fx);
    // HEAD published 12 entries' proofs + the prereg's = 13.
    assert_eq!(s["replaced"], of(1, 13));
    assert_eq!(s["carried_not_in_store"], of(1, 13));
    assert_eq!(s["rewritten"], of(0, 13));
    assert_eq!(s["orphans"], of(1, 11));
    assert_eq!(s["proofs_published"], 13);
    assert_eq!(published(&pending_id), grown(&pending_id));
    assert_eq!(
        published(ORPHAN_LATE),
        head_orphan,
        "carried from HEAD byte for byte"
    );
    let ix = read_json(&site(&fx).join("ledger/witness/index.json"));
    // What one build replaced is the build's news, not the publication's state: it is in the
    // build's notes and review, never in a file a rebuild would write otherwise.
    assert_eq!(ix["publisher"].get("replaced"), None);
    assert_eq!(ix["publisher"].get("rewritten"), None);
    assert_eq!(
        ix["publisher"]["carried_not_in_store"],
        json!([format!("{ORPHAN_LATE}.ots")])
    );
    common::commit_site(&repo);
    // Right after the commit, the same inputs: nothing to do. Counts taken against HEAD's proofs
    // (`replaced` 1 → 0, the denominators 13 → 0 on a first build) made this append a snapshot.
    let before = tree(&site(&fx));
    let o = build(&fx, &[]);
    ok(&o);
    let said = String::from_utf8_lossy(&o.stdout);
    assert!(said.contains("no snapshot appended"), "{said}");
    assert_eq!(
        tree(&site(&fx)),
        before,
        "a rebuild after a commit is a no-op"
    );
    assert_eq!(stats(&fx)["replaced"], of(1, 13), "counted once, kept");

    // Third: seq 6's proof shrinks back to its pending form: refused, DIR untouched.
    std::fs::write(proof_path(&fx, &pending_id), proof(&pending_id, PENDING)).unwrap();
    let before = tree(&site(&fx));
    let o = build(&fx, &[]);
    refused(
        &o,
        &[
            "the replacement rule of docs/protocol.md#witness",
            &format!("{pending_id}.ots"),
            "--allow-rewrite",
        ],
    );
    assert_eq!(tree(&site(&fx)), before);
    // Same length, other bytes: not growth either.
    let mut same_len = grown(&pending_id);
    *same_len.last_mut().unwrap() ^= 1;
    std::fs::write(proof_path(&fx, &pending_id), &same_len).unwrap();
    refused(
        &build(&fx, &[]),
        &["the replacement rule of docs/protocol.md#witness"],
    );
    assert_eq!(tree(&site(&fx)), before);
    // With --allow-rewrite it is published and counted apart from `replaced`.
    let o = build(&fx, &["--allow-rewrite", "a calendar re-issued the proof"]);
    ok(&o);
    let s = stats(&fx);
    assert_eq!(s["rewritten"], of(1, 13));
    // The exhibit's history: the replacement the second build made is still counted.
    assert_eq!(s["replaced"], of(1, 13));
    assert_eq!(published(&pending_id), same_len);
    assert!(published(ORPHAN_LATE) == head_orphan, "still carried");
}

#[test]
fn a_proof_committing_to_another_digest_is_refused_and_dir_untouched() {
    let fx = fixture();
    ok(&build(&fx, &[]));
    let before = tree(&site(&fx));
    // seq 4's proof commits to seq 5's digest.
    std::fs::write(proof_path(&fx, &fx.ids[3]), grown(&fx.ids[4])).unwrap();
    let o = build(&fx, &[]);
    refused(
        &o,
        &[
            &format!("proofs/{}.ots", fx.ids[3]),
            "proof header/digest (docs/protocol.md#ots-header)",
            "digest_mismatch",
            "replace the proof in the store",
        ],
    );
    assert_eq!(tree(&site(&fx)), before);
    // A bad header: not an OpenTimestamps file at all.
    std::fs::write(
        proof_path(&fx, &fx.ids[3]),
        b"%PDF-1.4 this is not a proof, not at all",
    )
    .unwrap();
    refused(
        &build(&fx, &[]),
        &["bad_magic", "replace the proof in the store"],
    );
    assert_eq!(tree(&site(&fx)), before);
}

#[test]
fn a_real_proof_is_refused_under_a_lines_name_and_accepted_under_its_own_digest() {
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/ots-examples");
    let real = std::fs::read(examples.join("hello-world.txt.ots")).unwrap();
    let digest = Digest::of(&std::fs::read(examples.join("hello-world.txt")).unwrap()).to_string();

    let fx = fixture();
    std::fs::write(proof_path(&fx, &fx.ids[0]), &real).unwrap();
    let o = build(&fx, &[]);
    refused(
        &o,
        &[
            &format!("proofs/{}.ots", fx.ids[0]),
            "digest_mismatch",
            &format!("commits to {digest}"),
        ],
    );
    assert!(!site(&fx).exists(), "a refused first build writes nothing");

    // The same bytes under their own digest (an orphan the tail stamped): accepted, copied.
    write_store(&fx);
    let mut recs = fx.recs.clone();
    recs.push(rec(
        &digest,
        40,
        "proof",
        "2026-11-01T23:00:00Z",
        "23:00:00",
        "23:00:05",
        Some("23:30:00"),
        Some("2026-11-02T00:10:00Z"),
    ));
    write_index(&fx, &recs, None);
    std::fs::write(proof_path(&fx, &digest), &real).unwrap();
    ok(&build(&fx, &[]));
    assert_eq!(
        std::fs::read(site(&fx).join(format!("ledger/witness/proofs/{digest}.ots"))).unwrap(),
        real
    );
    assert_eq!(stats(&fx)["orphans"], of(3, 13));
}

#[test]
fn the_seal_refuses_a_tampered_prereg_a_disagreeing_index_and_a_bad_prereg_proof() {
    let fx = fixture();
    ok(&build(&fx, &[]));
    let before = tree(&site(&fx));
    std::fs::write(
        fx.store.join("WITNESS_PREREG.md"),
        format!("{PREREG}4. A fourth bar, added later.\n"),
    )
    .unwrap();
    refused(
        &build(&fx, &[]),
        &[
            "WITNESS_PREREG.md",
            "the seal rule of docs/protocol.md#witness",
            "not the one sealed",
        ],
    );
    assert_eq!(tree(&site(&fx)), before);
    std::fs::write(fx.store.join("WITNESS_PREREG.md"), PREREG).unwrap();

    // index.json names another prereg digest.
    let ix_path = fx.store.join("index.json");
    let mut ix = read_json(&ix_path);
    ix["prereg"]["sha256"] = json!(STRAY);
    std::fs::write(&ix_path, serde_json::to_vec(&ix).unwrap()).unwrap();
    refused(
        &build(&fx, &[]),
        &[
            "index.json",
            "prereg.sha256",
            "the seal rule of docs/protocol.md#witness",
        ],
    );
    write_store(&fx);

    // The prereg's proof commits elsewhere, then is missing.
    let prereg_proof = fx.store.join(format!("proofs/prereg_{}.ots", prereg_sha()));
    std::fs::write(&prereg_proof, grown(STRAY)).unwrap();
    refused(
        &build(&fx, &[]),
        &[&format!("prereg_{}.ots", prereg_sha()), "digest_mismatch"],
    );
    std::fs::remove_file(&prereg_proof).unwrap();
    refused(
        &build(&fx, &[]),
        &[&format!("prereg_{}.ots", prereg_sha()), "no such file"],
    );
    // seal.jsonl line 1 unreadable.
    write_store(&fx);
    std::fs::write(fx.store.join("seal.jsonl"), "not json\n").unwrap();
    refused(&build(&fx, &[]), &["seal.jsonl", "line 1"]);
    assert_eq!(tree(&site(&fx)), before);
}

/// The tail's report is guarded as a reader sees it rendered, not only as written: markdown
/// syntax inside an address or a number hides it from a guard of the raw text (issue 48,
/// class 3). Each of these passed the build before.
#[test]
fn the_tails_report_is_guarded_as_it_renders() {
    let fx = fixture();
    for (added, rule) in [
        ("Contact: ops@lab\\.example\\.org", "email"),
        ("Contact: ops@lab.exa**mple.org**", "email"),
        (
            "Reach [the ops desk](https://t.me/ops_desk_private).",
            "profile_link",
        ),
    ] {
        std::fs::write(
            fx.store.join("REPORT.md"),
            format!("{}\n{added}\n", fx.report),
        )
        .unwrap();
        refused(
            &build(&fx, &[]),
            &["REPORT.md", rule, "fix the tail's report"],
        );
        assert!(!site(&fx).exists(), "{added}");
    }
}

/// No text reaches the page's template but as escaped data (issue 48, class 7): a report that
/// writes the template's placeholders, old and new, neither takes the security policy's place
/// (the page ran with none) nor breaks the build.
#[test]
fn the_tails_report_cannot_reach_the_pages_placeholders() {
    let fx = fixture();
    std::fs::write(
        fx.store.join("REPORT.md"),
        format!(
            "{}\n<meta content=\"EXHIBITCSPTOKEN\"> content=EXHIBITCSPTOKEN EXHIBITDATA0TOKEN\n\n`EXHIBITCSP` EXHIBITDATA1X TOKEN content=\"{{{{ csp_token }}}}\"\n",
            fx.report
        ),
    )
    .unwrap();
    ok(&build(&fx, &[]));
    let page = std::fs::read_to_string(site(&fx).join("index.html")).unwrap();
    let metas: Vec<&str> = page
        .split("<meta ")
        .skip(1)
        .filter_map(|m| m.split('>').next())
        .filter(|m| m.contains("Content-Security-Policy"))
        .collect();
    assert_eq!(metas.len(), 1, "one policy: {metas:?}");
    assert!(
        metas[0].contains("content=\"default-src 'none'; script-src 'sha256-"),
        "{}",
        metas[0]
    );
    assert!(
        page.contains("EXHIBITCSPTOKEN"),
        "the report's text is shown as written"
    );
}

#[test]
fn a_missing_proof_for_an_index_entry_refuses() {
    let fx = fixture();
    std::fs::remove_file(proof_path(&fx, &fx.ids[5])).unwrap();
    refused(
        &build(&fx, &[]),
        &[
            &format!("proofs/{}.ots", fx.ids[5]),
            "no such file",
            "replace the proof in the store",
        ],
    );
    assert!(!site(&fx).exists());
}

#[test]
fn the_tails_report_may_carry_no_identifier_and_no_withheld_clock() {
    let fx = fixture();
    std::fs::write(
        fx.store.join("REPORT.md"),
        format!("{}\nContact: ops@lab.example.org\n", fx.report),
    )
    .unwrap();
    refused(
        &build(&fx, &[]),
        &["REPORT.md", "email", "fix the tail's report"],
    );
    std::fs::write(
        fx.store.join("REPORT.md"),
        format!("{}\nLast stamp 2026-11-01T16:19:20Z.\n", fx.report),
    )
    .unwrap();
    refused(&build(&fx, &[]), &["REPORT.md", "withheld seq 7"]);
    std::fs::write(
        fx.store.join("REPORT.md"),
        format!("{}\nLine written at 16:17:18.\n", fx.report),
    )
    .unwrap();
    refused(
        &build(&fx, &[]),
        &["REPORT.md", "withheld seq 7", "time of day"],
    );
    // A moment a published line's record also carries is not the withheld seq's alone.
    std::fs::write(
        fx.store.join("REPORT.md"),
        format!(
            "{}\nOpening batch stamped at 2026-11-01T11:00:05Z.\n",
            fx.report
        ),
    )
    .unwrap();
    ok(&build(&fx, &[]));
}

/// Issue 48, 6b: a withheld seq's minute is the pair hour + minute however the report spells it
/// — no leading zero, a 12-hour clock (in UTC or the anchor zone), `16h17`, `16.17` beside a time
/// word, with seconds. Seq 7's clocks: written 16:17:18Z (11:17:18 in New York, EST that day),
/// seen 16:18:19Z, stamped 16:19:20Z. The refusal names the file and the seq, never the clock.
#[test]
fn the_tails_report_may_print_a_withheld_minute_in_no_spelling() {
    let fx = fixture();
    for (line, what) in [
        ("Line written at 4:17 PM UTC.", "minute"),
        ("Line written at 4:17pm.", "minute"),
        ("Line seen at 4:18p.m. UTC.", "minute"),
        ("Line seen at 4:18 P. M.", "minute"),
        ("Line written at 11:17 AM (New York).", "minute"),
        ("Line written at 11:17 a.m. local.", "minute"),
        ("Line written at 16h17.", "minute"),
        ("Line written at 4h17.", "minute"),
        ("Line written at 16.17 UTC.", "minute"),
        ("Line written at 11.17 EST.", "minute"),
        ("Line written at 4:17 UTC.", "minute"),
        ("Line written at 16:17:05.", "minute"),
        ("Line seen at 4:18:19 PM.", "time of day"),
        ("Line seen at 16h18m19s.", "time of day"),
    ] {
        std::fs::write(
            fx.store.join("REPORT.md"),
            format!("{}\n{line}\n", fx.report),
        )
        .unwrap();
        let o = build(&fx, &[]);
        refused(&o, &["REPORT.md", "withheld seq 7", what]);
        for clock in ["16:17", "16:18", "11:17", "4:17", "4:18"] {
            assert!(
                !stderr(&o).contains(clock),
                "{line}: never the clock: {}",
                stderr(&o)
            );
        }
    }
    // Numbers that are not clocks, and clocks no withheld seq owns, are ordinary.
    std::fs::write(
        fx.store.join("REPORT.md"),
        format!(
            "{}\n4.17% of proofs pending; 16.17 s median; tail 1.16.17; opening batch at 11:00 AM UTC, 6:00 am in New York; next run 10.30 UTC.\n",
            fx.report
        ),
    )
    .unwrap();
    ok(&build(&fx, &[]));
}

#[test]
fn a_store_index_the_contract_does_not_describe_refuses() {
    let fx = fixture();
    write_index(&fx, &fx.recs, Some(("chat_title", json!("ops room"))));
    refused(
        &build(&fx, &[]),
        &["index.json", "unknown field `chat_title`"],
    );
    let mut recs = fx.recs.clone();
    recs[0].seen_at = "2026-11-01 11:00".into();
    write_index(&fx, &recs, None);
    refused(
        &build(&fx, &[]),
        &["index.json", "seen_at", "YYYY-MM-DDTHH:MM:SSZ"],
    );
    let mut recs = fx.recs.clone();
    recs[0].status = "lost";
    write_index(&fx, &recs, None);
    refused(&build(&fx, &[]), &["index.json", "unknown variant `lost`"]);
    let mut recs = fx.recs.clone();
    recs[0].id = "../../escape".into();
    write_index(&fx, &recs, None);
    refused(&build(&fx, &[]), &["index.json", "not an entry_id"]);
    // An unterminated run log line: the tail may be writing it.
    write_store(&fx);
    std::fs::write(fx.store.join("runs.jsonl"), fx.runs.trim_end()).unwrap();
    refused(&build(&fx, &[]), &["runs.jsonl", "without LF"]);
    assert!(!site(&fx).exists());
}

#[test]
fn a_registered_window_names_day_nine() {
    let fx = fixture();
    let o = build(&fx, &["--witness-window-since", "2026-11-08"]);
    ok(&o);
    assert_eq!(
        stats(&fx)["window"],
        json!({"registered": true, "since": "2026-11-08", "day_9_closes": "2026-11-16"})
    );
    assert!(!stderr(&o).contains("not registered"));
    assert_eq!(
        witness_page_data(&fx)["window"]["day_9_closes"],
        "2026-11-16"
    );
}

#[test]
fn the_same_inputs_give_the_same_tree() {
    let fx = fixture();
    ok(&build_into(&fx, &fx.root.join("a"), &[]));
    ok(&build_into(&fx, &fx.root.join("b"), &[]));
    let (a, b) = (tree(&fx.root.join("a")), tree(&fx.root.join("b")));
    assert!(a.keys().any(|k| k.starts_with("ledger/witness/proofs/")));
    assert_eq!(a, b);
}

#[test]
fn a_generated_box_agrees_with_its_summary() {
    let tmp = tempfile::tempdir().unwrap();
    let boxdir = tmp.path().join("box");
    let opts = exhibit_testkit::gen_box::BoxOptions {
        lines: 300,
        seed: 5,
        ..Default::default()
    };
    let summary = exhibit_testkit::gen_box::generate(&opts, &boxdir).unwrap();
    let w = summary.witness.expect("a store");
    let out = tmp.path().join("site");
    let o = Command::new(env!("CARGO_BIN_EXE_exhibit"))
        .args(["build", "--config"])
        .arg(boxdir.join("exhibit.toml"))
        .arg("--out")
        .arg(&out)
        .arg("--witness")
        .arg(boxdir.join("wt/store"))
        .env("SOURCE_DATE_EPOCH", "1800000000")
        .output()
        .unwrap();
    ok(&o);
    let s = read_json(&out.join("ledger/STATS.json"))["witness"].clone();
    let n = 300;
    let chain_records = w.store_entries as usize - usize::from(w.orphan.is_some());
    assert_eq!(s["store_entries"], w.store_entries);
    assert_eq!(s["no_record"], of(n - chain_records, n));
    assert_eq!(s["tail_lag"], of(w.unseen.len(), n));
    assert_eq!(s["orphans"]["count"], usize::from(w.orphan.is_some()));
    assert_eq!(
        s["multi_entry_seqs"]["count"],
        usize::from(w.duplicate_seq.is_some())
    );
    assert_eq!(s["stray_files"], of(1, w.store_entries as usize + 2));
    assert_eq!(s["explorers_disagree"], of(w.explorers_disagree.len(), n));
    assert_eq!(s["mismatch"], of(usize::from(w.mismatch.is_some()), n));
    assert_eq!(
        s["stamp_failed"],
        of(usize::from(w.stamp_failed.is_some()), n)
    );
    assert_eq!(s["stamp_batches"]["count"], w.batches);
    assert_eq!(s["runs"], w.runs);
    // The summary counts the orphan (a copy of a chain line's record) among its states.
    let proof = s["proof"]["count"].as_u64().unwrap() + s["pending"]["count"].as_u64().unwrap();
    assert_eq!(proof + 1, w.proof + w.pending);
    let ix = read_json(&out.join("ledger/witness/index.json"));
    assert_eq!(ix["publisher"]["orphans"][0]["entry_id"], json!(w.orphan));
    assert!(
        !out.join(format!("ledger/witness/proofs/{}.ots", w.stray))
            .exists()
    );
}

/// Every `SNAPSHOTS.jsonl` line stays under 4 KiB at any size (docs/build.md#bounded-records):
/// it holds counts, never a list that grows with the ledger. Catches a list put back into a
/// layer's counts (the negative latencies' seqs were one: 310 KB a line at 20,000 lines).
#[test]
fn a_snapshot_line_holds_counts_and_no_list() {
    fn no_array(v: &J, at: &str) {
        match v {
            J::Array(_) => panic!("a list in a snapshot line at {at}"),
            J::Object(m) => m
                .iter()
                .for_each(|(k, v)| no_array(v, &format!("{at}.{k}"))),
            _ => {}
        }
    }
    let fx = fixture();
    ok(&build(&fx, &[]));
    let snaps = std::fs::read_to_string(site(&fx).join("ledger/SNAPSHOTS.jsonl")).unwrap();
    let line = snaps.lines().last().unwrap();
    assert!(line.len() < 4096, "{} bytes", line.len());
    let v: J = serde_json::from_str(line).unwrap();
    // The fixture has negative latencies, a withheld seq, orphans and a seq twice: each a list
    // somewhere else, none here.
    assert_eq!(v["witness"]["outside_latency"]["negative"], of(2, 12));
    no_array(&v, "");
}

/// The one free text of a snapshot line, the rewrite's reason, is one short line.
#[test]
fn a_rewrite_reason_longer_than_a_line_is_refused() {
    let fx = fixture();
    for reason in ["x".repeat(281), "two\nlines".to_string()] {
        let o = build(&fx, &["--allow-rewrite", &reason]);
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert!(stderr(&o).contains("at most 280 bytes"), "{}", stderr(&o));
        assert!(!site(&fx).exists(), "nothing written");
    }
    ok(&build(&fx, &["--allow-rewrite", &"x".repeat(280)]));
}

/// The window lives in exhibit.toml (`[publish] witness_window_since`), and leaving it out after
/// it was published is named in the review as a changed setting. Catches a window only a flag
/// sets, and a window silently unregistered.
#[test]
fn the_window_is_a_setting_of_exhibit_toml_and_its_change_is_named() {
    let fx = fixture();
    ok(&build(&fx, &["--witness-window-since", "2026-11-08"]));
    let o = build(&fx, &["--dry-run"]);
    ok(&o);
    let review = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(
        review.contains(
            "setting changed: [publish] witness_window_since: 2026-11-08 → (not registered)"
        ),
        "{review}"
    );
    let mut toml = std::fs::read_to_string(&fx.toml).unwrap();
    toml.push_str("\n[publish]\nwitness_window_since = \"2026-11-08\"\n");
    std::fs::write(&fx.toml, toml).unwrap();
    let o = build(&fx, &["--dry-run"]);
    ok(&o);
    let review = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(!review.contains("setting changed"), "{review}");
    assert!(!stderr(&o).contains("not registered"), "{}", stderr(&o));
}
