//! The Rust verifier against `vectors/` (docs/protocol.md#conformance), and the base's digests re-derived from
//! hand-written bytes with nothing but sha2 — so the vectors do not merely agree with the code
//! that wrote them.

use crate::common;

use exhibit_protocol::anchors::{self, Post};
use exhibit_protocol::verify::Withheld;
use serde_json::Value as J;
use sha2::{Digest, Sha256};

fn root() -> std::path::PathBuf {
    std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[test]
fn every_vector_answers_as_the_file_says() {
    let text = std::fs::read_to_string(root().join("vectors/vectors.json")).unwrap();
    let doc: J = serde_json::from_str(&text).unwrap();
    assert_eq!(doc["format"], "exhibit-vectors/v1");
    let base = std::fs::read(root().join("vectors/base.jsonl")).unwrap();
    assert_eq!(doc["base_sha256"], hex(&Sha256::digest(&base)));
    let cases = doc["cases"].as_array().unwrap();
    assert!(cases.len() >= 60, "only {} cases", cases.len());
    let mut failures = Vec::new();
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let ledger = common::unb64(case["ledger_b64"].as_str().unwrap());
        // The page's rules must be what this binary's tz database gives (a stale vectors file,
        // or a tzdb update, shows here and in `gen-vectors --check`).
        let rules = exhibit_protocol::verify::tz_rules_for_ledger(&ledger);
        if case.get("tz_rules") != rules.map(|r| serde_json::to_value(r).unwrap()).as_ref() {
            failures.push(format!("{name}: tz_rules are not this binary's"));
        }
        // The list is read from its bytes, as `exhibit verify --withheld` reads the file.
        let list_bytes = match (case.get("withheld_b64"), case.get("withheld")) {
            (Some(b64), _) => Some(common::unb64(b64.as_str().unwrap())),
            (None, Some(list)) => Some(serde_json::to_vec_pretty(list).unwrap()),
            (None, None) => None,
        };
        let withheld = match list_bytes.map(|b| Withheld::from_json(&b)) {
            None => Withheld::default(),
            Some(Ok(w)) => w,
            Some(Err(e)) => {
                if case["expect"]["withheld_refused"] != J::Bool(true) {
                    failures.push(format!("{name}: the withheld list is refused: {e}"));
                }
                continue;
            }
        };
        if case["expect"]["withheld_refused"] == J::Bool(true) {
            failures.push(format!("{name}: the withheld list should be refused"));
            continue;
        }
        let checked = anchors::verify_and_collect(&ledger, &withheld);
        let report = &checked.report;
        // The streaming fast path (what `exhibit verify` runs) must answer exactly the same.
        let lean = exhibit_protocol::verify::verify_bytes(&ledger, &withheld);
        if format!("{lean:?}") != format!("{report:?}") {
            failures.push(format!("{name}: the fast path answers {lean:?}"));
        }
        let expect = &case["expect"];
        let problems: Vec<(u64, String)> = report
            .problems
            .iter()
            .map(|p| (p.line, p.code.as_str().to_string()))
            .collect();
        let expected_problems: Vec<(u64, String)> = expect["problems"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| {
                (
                    p["line"].as_u64().unwrap(),
                    p["code"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        let bridged: Vec<i64> = serde_json::from_value(expect["bridged"].clone()).unwrap();
        let mut wrong = Vec::new();
        if report.ok != expect["ok"].as_bool().unwrap() {
            wrong.push(format!("ok {} ", report.ok));
        }
        if report.entries != expect["entries"].as_u64().unwrap() {
            wrong.push(format!("entries {}", report.entries));
        }
        if report.head.map(|d| d.to_string()).as_deref() != expect["head"].as_str() {
            wrong.push(format!("head {:?}", report.head));
        }
        if report.bridged != bridged {
            wrong.push(format!("bridged {:?}", report.bridged));
        }
        if problems != expected_problems {
            wrong.push(format!(
                "problems {problems:?}, expected {expected_problems:?}"
            ));
        }
        if let Some(posts) = case.get("anchors") {
            let posts: Vec<Post> = posts
                .as_array()
                .unwrap()
                .iter()
                .map(|p| Post {
                    date: p["date"].as_str().unwrap().to_string(),
                    bytes: p["text"].as_str().unwrap().as_bytes().to_vec(),
                })
                .collect();
            let got =
                anchors::check_posts(&checked.facts, &withheld, checked.header_digest, &posts);
            let got = serde_json::to_value(&got).unwrap();
            if got != expect["anchors"] {
                wrong.push(format!("anchors {got}, expected {}", expect["anchors"]));
            }
        }
        if !wrong.is_empty() {
            failures.push(format!("{name}: {}", wrong.join("; ")));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The header and the first entry of `base.jsonl`, written out by hand. If the crate's canonical
/// writer or chain rules drifted from docs/protocol.md#canonical-form or docs/protocol.md#chain, these bytes would not match the file.
#[test]
fn base_digests_rederive_from_hand_written_bytes() {
    let header = r#"{"anchor_tz":"America/New_York","certifies":"Each line records one gate event; no line holds message text or a chat id.","created":"2026-10-24T13:00:00Z","schema":"darkflobi.gate/log/v0"}"#;
    let mut h = Sha256::new();
    h.update(b"darkflobi.gate/log/v0\n");
    h.update(header.as_bytes());
    let header_digest = hex(&h.finalize());

    let core1 = format!(
        r#"{{"day":"2026-10-24","kind":"started","prev":"{header_digest}","process":"gate/0.9.4","schema":"darkflobi.gate/entry/v0","seq":1,"timestamp":"2026-10-24T13:00:05Z","version":"0.9.4"}}"#
    );
    let id1 = hex(&Sha256::digest(core1.as_bytes()));
    // entry_id sorts between "day" and "kind": the published line puts it there.
    let line1 = core1.replacen(r#""kind""#, &format!(r#""entry_id":"{id1}","kind""#), 1);

    let base = std::fs::read_to_string(root().join("vectors/base.jsonl")).unwrap();
    let lines: Vec<&str> = base.lines().collect();
    assert_eq!(lines[0], header);
    assert_eq!(lines[1], line1);
    // The second entry names the first by the digest computed here.
    assert!(lines[2].contains(&format!(r#""prev":"{id1}""#)));
    // And the base as a whole re-derives to its last line's entry_id.
    let report = exhibit_protocol::verify::verify_bytes(base.as_bytes(), &Withheld::default());
    assert!(report.ok, "{:?}", report.problems);
    let last: J = serde_json::from_str(lines.last().unwrap()).unwrap();
    assert_eq!(
        report.head.map(|d| d.to_string()).as_deref(),
        last["entry_id"].as_str()
    );
}

/// `vectors/tree.json` is what the Rust tree makes today (the page's tree is held to the same
/// file by tests/js/tree-vectors.test.cjs): a change in crates/protocol/src/tree.rs that moves
/// an answer shows here first.
#[test]
fn the_tree_vectors_are_what_the_rust_tree_makes() {
    let file = std::fs::read(root().join("vectors/tree.json")).unwrap();
    assert!(
        file == exhibit_testkit::tree_vectors::document(),
        "vectors/tree.json is not what the Rust tree makes: review the change, then `cargo run --example gen-vectors -- vectors`"
    );
}

/// `vectors/excerpt.json` is what the Rust excerpt index makes today (verify.js's
/// `excerpt` is held to the same file by tests/js/excerpt-vectors.test.cjs): a change in
/// crates/protocol/src/excerpt.rs that moves an answer shows here first.
#[test]
fn the_excerpt_vectors_are_what_the_rust_excerpt_index_makes() {
    let file = std::fs::read(root().join("vectors/excerpt.json")).unwrap();
    assert!(
        file == exhibit_testkit::excerpt_vectors::document(),
        "vectors/excerpt.json is not what the Rust excerpt index makes: review the change, then `cargo run --example gen-vectors -- vectors`"
    );
}

/// `vectors/ots.json` is what the Rust evaluator answers today (verify.js is held to the same
/// file by tests/js/ots-vectors.test.cjs), and its hello-world case says what the real proof
/// says, written out here by hand: Bitcoin block 358391, whose header carries the merkle root
/// `007ee445…661b8a` (shown by explorers reversed, `8a1b66ec…45e47e00`).
#[test]
fn the_ots_vectors_are_what_the_rust_evaluator_makes() {
    let file = std::fs::read(root().join("vectors/ots.json")).unwrap();
    assert!(
        file == exhibit_testkit::ots_vectors::document(),
        "vectors/ots.json is not what the Rust evaluator answers: review the change, then `cargo run --example gen-vectors -- vectors`"
    );
    let doc: J = serde_json::from_slice(&file).unwrap();
    assert_eq!(doc["format"], "exhibit-ots-vectors/v1");
    let cases = doc["cases"].as_array().unwrap();
    let hello = cases
        .iter()
        .find(|c| c["name"] == "example/hello-world.txt.ots")
        .unwrap();
    assert_eq!(
        hello["expect"],
        serde_json::json!({
            "digest": "03ba204e50d126e4674c005e04d82e84c21366780af1f43bd54a37816b6ab340",
            "attestations": [{
                "kind": "bitcoin",
                "height": "358391",
                "merkle_root": "8a1b66ecb7cbd07d8139a7e7d7f2c41aab1f5009b8364aaf61d03ad245e47e00",
                "explorers": [
                    "https://mempool.space/block/358391",
                    "https://blockstream.info/block-height/358391"
                ]
            }]
        })
    );
    // Every code a proof can be refused with is some case's answer, and so is each kind.
    let answers: std::collections::BTreeSet<String> = cases
        .iter()
        .flat_map(|c| {
            let e = &c["expect"];
            match e.get("problem") {
                Some(p) => vec![p.as_str().unwrap().to_string()],
                None => e["attestations"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|a| a["kind"].as_str().unwrap().to_string())
                    .collect(),
            }
        })
        .collect();
    for code in [
        "too_short",
        "bad_magic",
        "bad_version",
        "not_sha256",
        "truncated",
        "unknown_tag",
        "bad_varint",
        "message_too_long",
        "too_deep",
        "too_many_ops",
        "too_many_attestations",
        "bad_payload",
        "bad_calendar",
        "bitcoin_not_digest",
        "trailing_bytes",
        "bitcoin",
        "pending",
        "litecoin",
        "unknown",
    ] {
        assert!(answers.contains(code), "no case answers {code}");
    }
}
