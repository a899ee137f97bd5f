//! `vectors/cosign.json`: checkpoints with cosignature lines, and the witnesses a site lists,
//! with what the Rust checker (src/published/cosignature.rs) answers — held to the file here, and
//! assets/verify.js's `ExhibitVerify.cosign.check` held to it by tests/js/cosign-vectors.test.cjs
//! (docs/anchoring.md#cosignatures). Written again with
//! `EXHIBIT_BLESS=1 cargo test --test testsuite -- cosign_vectors::`.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as B64;
use ed25519_dalek::Signer as _;
use exhibit::published::cosignature::{
    COSIGNATURE_V1, ListedWitness, check_note, key_id, signed_message,
};
use serde_json::{Value as J, json};

const BODY: &[u8] = b"example.test/exhibit\n300\nqUf+SgnS2sBmlmRbuzKTThNeSVSuRmdAHYgQLKbJsjg=\nexhibit-head 300 2a7d67e7a1af8b6c1cb0f0b2fa2d1f4b1b2b5d0d13e4e0c1f75bd0b5c1e9a0c3\n";
const LOG_LINE: &str = "\u{2014} example.test/exhibit 7Z3n2Q5fPGvPBQ6mTq1a2sMEpkt6C4rKdzV0rq1bxWqtJ5oMv0ILeyn8GtZ0p7xqPkKa9dE9b1Yy2tzl+7K5Ww8D0wE=";

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn key(name: &str, seed: u8) -> (ed25519_dalek::SigningKey, String) {
    let sk = ed25519_dalek::SigningKey::from_bytes(&[seed; 32]);
    let pk = sk.verifying_key().to_bytes();
    let mut k = vec![COSIGNATURE_V1];
    k.extend_from_slice(&pk);
    let id = key_id(name, COSIGNATURE_V1, &pk);
    (sk, format!("{name}+{}+{}", hex(&id), B64.encode(k)))
}

/// A cosignature line's blob, with a hook to change it after signing.
fn line_with(
    sk: &ed25519_dalek::SigningKey,
    name: &str,
    body: &[u8],
    time: u64,
    edit: impl FnOnce(&mut Vec<u8>),
) -> String {
    let mut blob = key_id(name, COSIGNATURE_V1, &sk.verifying_key().to_bytes()).to_vec();
    blob.extend_from_slice(&time.to_be_bytes());
    blob.extend_from_slice(&sk.sign(&signed_message(body, time)).to_bytes());
    edit(&mut blob);
    format!("\u{2014} {name} {}", B64.encode(blob))
}

fn line(sk: &ed25519_dalek::SigningKey, name: &str, body: &[u8], time: u64) -> String {
    line_with(sk, name, body, time, |_| {})
}

fn note(lines: &[String]) -> Vec<u8> {
    let mut n = BODY.to_vec();
    n.push(b'\n');
    for l in lines {
        n.extend_from_slice(l.as_bytes());
        n.push(b'\n');
    }
    n
}

fn listed(entries: &[(&str, &str)]) -> Vec<ListedWitness> {
    entries
        .iter()
        .map(|(n, k)| ListedWitness {
            name: n.to_string(),
            key: k.to_string(),
        })
        .collect()
}

fn case(name: &str, catches: &str, note: Vec<u8>, witnesses: Vec<ListedWitness>) -> J {
    let c = check_note(&note, &witnesses);
    let mut codes: Vec<&str> = c.problems.iter().map(|(c, _)| c.as_str()).collect();
    codes.sort_unstable();
    json!({
        "name": name,
        "catches": catches,
        "note": B64.encode(&note),
        "witnesses": witnesses,
        "expect": {
            "k": c.k, "n": c.n, "latest": c.latest, "latest_utc": c.latest_utc, "by": c.by,
            "codes": codes, "words": exhibit::published::cosignature::words(&c),
        }
    })
}

fn cases() -> Vec<J> {
    let (a, ak) = key("witness.example/a", 1);
    let (b, bk) = key("witness.example/b", 2);
    let (other, _) = key("witness.example/a", 3);
    let (wa, wb) = ("witness.example/a", "witness.example/b");
    let t = 1_800_000_000;
    let log_key = signed_note::new_ed25519_verifier_key(
        wa,
        &ed25519_dalek::SigningKey::from_bytes(&[4; 32]).verifying_key(),
    );
    let one = || listed(&[(wa, &ak)]);
    let two = || listed(&[(wa, &ak), (wb, &bk)]);
    vec![
        case(
            "one-of-one",
            "a verifier that does not count a good cosignature, or reads the time wrong",
            note(&[LOG_LINE.into(), line(&a, wa, BODY, t)]),
            one(),
        ),
        case(
            "two-of-two-latest",
            "a verifier whose latest time is not the largest",
            note(&[
                LOG_LINE.into(),
                line(&a, wa, BODY, t + 7),
                line(&b, wb, BODY, t),
            ]),
            two(),
        ),
        case(
            "one-of-two",
            "a verifier that counts a listed witness that did not cosign",
            note(&[LOG_LINE.into(), line(&b, wb, BODY, t)]),
            two(),
        ),
        case(
            "none-yet",
            "a verifier that takes the operator's signature for a witness's",
            note(&[LOG_LINE.into()]),
            one(),
        ),
        case(
            "unsigned-note",
            "a verifier that fails on a checkpoint with no signature block",
            BODY.to_vec(),
            one(),
        ),
        case(
            "no-witness-listed",
            "a verifier that invents a witness",
            note(&[LOG_LINE.into(), line(&a, wa, BODY, t)]),
            Vec::new(),
        ),
        case(
            "time-changed",
            "a verifier that does not sign-check the time line (cosignature/v1 covers it)",
            note(&[LOG_LINE.into(), line_with(&a, wa, BODY, t, |b| b[11] ^= 1)]),
            one(),
        ),
        case(
            "signature-changed",
            "a verifier that trusts a line by its name and key id",
            note(&[LOG_LINE.into(), line_with(&a, wa, BODY, t, |b| b[40] ^= 1)]),
            one(),
        ),
        case(
            "other-body",
            "a verifier that checks the signature over something other than this checkpoint's body",
            note(&[
                LOG_LINE.into(),
                line(&a, wa, b"example.test/exhibit\n299\n", t),
            ]),
            one(),
        ),
        case(
            "without-domain-line",
            "a verifier that checks a plain note signature (no cosignature/v1 and time lines)",
            note(&[LOG_LINE.into(), {
                let mut blob = key_id(wa, COSIGNATURE_V1, &a.verifying_key().to_bytes()).to_vec();
                blob.extend_from_slice(&t.to_be_bytes());
                blob.extend_from_slice(&a.sign(BODY).to_bytes());
                format!("\u{2014} {wa} {}", B64.encode(blob))
            }]),
            one(),
        ),
        case(
            "other-key-same-name",
            "a verifier that trusts a line by its name alone",
            note(&[LOG_LINE.into(), line(&other, wa, BODY, t)]),
            one(),
        ),
        case(
            "short-blob",
            "a verifier that reads a blob that is no cosignature/v1's (4 + 8 + 64 bytes)",
            note(&[
                LOG_LINE.into(),
                line_with(&a, wa, BODY, t, |b| {
                    b.pop();
                }),
            ]),
            one(),
        ),
        case(
            "time-past-2^63",
            "a verifier that takes a time past 2^63 - 1",
            note(&[LOG_LINE.into(), line(&a, wa, BODY, 1 << 63)]),
            one(),
        ),
        case(
            "forged-and-good",
            "a verifier that stops at the first line of a witness, or lets a good line hide a forged one",
            note(&[
                LOG_LINE.into(),
                line_with(&a, wa, BODY, t, |b| b[50] ^= 1),
                line(&a, wa, BODY, t + 1),
            ]),
            one(),
        ),
        case(
            "unlisted-witness",
            "a verifier that counts a witness the site does not list",
            note(&[LOG_LINE.into(), line(&b, wb, BODY, t)]),
            one(),
        ),
        case(
            "not-base64",
            "a verifier that fails on a line it cannot read in a listed name (it is no cosignature)",
            note(&[LOG_LINE.into(), format!("\u{2014} {wa} not*base64")]),
            one(),
        ),
        case(
            "cosignature-before-log-line",
            "a verifier that expects the log's line first",
            note(&[line(&a, wa, BODY, t), LOG_LINE.into()]),
            one(),
        ),
        case(
            "listed-log-key",
            "a verifier that takes a type 0x01 key (a log's) for a witness's",
            note(&[LOG_LINE.into()]),
            listed(&[(wa, &log_key)]),
        ),
        case(
            "listed-key-named-otherwise",
            "a verifier that does not hold the listed name to the key's",
            note(&[LOG_LINE.into(), line(&a, wa, BODY, t)]),
            listed(&[(wb, &ak)]),
        ),
        case(
            "listed-key-wrong-id",
            "a verifier that does not hold the key id to the key",
            note(&[LOG_LINE.into()]),
            listed(&[(
                wa,
                &ak.replacen(&ak[wa.len() + 1..wa.len() + 9], "00000000", 1),
            )]),
        ),
        case(
            "listed-key-not-base64",
            "a verifier that fails on a listed key it cannot read",
            note(&[LOG_LINE.into()]),
            listed(&[(wa, "witness.example/a+01234567+AAAA*")]),
        ),
    ]
}

pub fn document() -> Vec<u8> {
    let doc = json!({
        "format": "exhibit-cosign-vectors/v1",
        "about": "checkpoints with cosignature lines (C2SP tlog-cosignature, cosignature/v1) and the witnesses a site lists (STATS.json tree.witnesses); expect is what src/published/cosignature.rs answers (docs/anchoring.md#cosignatures)",
        "cases": cases(),
    });
    let mut out = serde_json::to_vec_pretty(&doc).unwrap();
    out.push(b'\n');
    out
}

#[test]
fn the_cosign_vectors_are_what_the_rust_checker_answers() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("vectors/cosign.json");
    let made = document();
    if std::env::var_os("EXHIBIT_BLESS").is_some() {
        std::fs::write(&path, &made).unwrap();
    }
    let file = std::fs::read(&path).unwrap();
    assert!(
        file == made,
        "vectors/cosign.json is not what src/published/cosignature.rs answers: review, then EXHIBIT_BLESS=1 cargo test --test testsuite -- cosign_vectors::"
    );
    let doc: J = serde_json::from_slice(&file).unwrap();
    let by_name = |n: &str| {
        doc["cases"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == n)
            .unwrap()["expect"]
            .clone()
    };
    // What the cases are for, said by hand so that a checker that answers wrongly cannot bless
    // itself into the file.
    assert_eq!(
        by_name("one-of-one")["words"],
        "cosigned by 1 of 1 witness, the latest at 2027-01-15T08:00:00Z"
    );
    assert_eq!(by_name("two-of-two-latest")["latest"], 1_800_000_007);
    assert_eq!(
        by_name("one-of-two")["words"],
        "cosigned by 1 of 2 witnesses, the latest at 2027-01-15T08:00:00Z"
    );
    for (n, code) in [
        ("time-changed", "cosignature_broken"),
        ("signature-changed", "cosignature_broken"),
        ("other-body", "cosignature_broken"),
        ("without-domain-line", "cosignature_broken"),
        ("time-past-2^63", "cosignature_broken"),
        ("other-key-same-name", "cosignature_other_key"),
        ("short-blob", "cosignature_other_key"),
        ("listed-log-key", "witness_key"),
        ("listed-key-named-otherwise", "witness_key"),
        ("listed-key-wrong-id", "witness_key"),
    ] {
        let e = by_name(n);
        assert_eq!(
            (e["k"].as_u64(), e["codes"][0].as_str()),
            (Some(0), Some(code)),
            "{n}"
        );
    }
    assert_eq!(by_name("forged-and-good")["k"], 1);
    assert_eq!(
        by_name("forged-and-good")["codes"],
        json!(["cosignature_broken"])
    );
    for n in [
        "unlisted-witness",
        "not-base64",
        "none-yet",
        "unsigned-note",
    ] {
        assert_eq!(
            (
                by_name(n)["k"].as_u64(),
                by_name(n)["codes"].as_array().unwrap().len()
            ),
            (Some(0), 0),
            "{n}"
        );
    }
}

/// The two cosignature checkers on random changes of the vectors' notes: bytes flipped, cut,
/// added, base64 letters swapped, mostly in the signature block. Rust's answer (k, n, latest,
/// by, the codes) and verify.js's under node (`tests/js/cosign-differential-runner.cjs`) must be
/// equal. `COSIGN_FUZZ_CASES` (default 3000) and `FUZZ_SEED` change the run.
#[test]
fn the_two_cosignature_checkers_agree_on_changed_notes() {
    use std::io::Write as _;
    let n_cases = crate::common::env_number("COSIGN_FUZZ_CASES", 3000usize);
    let mut seed = crate::common::env_number("FUZZ_SEED", 0xc051_u64) | 1;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let base: Vec<(Vec<u8>, J)> = cases()
        .into_iter()
        .map(|c| {
            (
                B64.decode(c["note"].as_str().unwrap()).unwrap(),
                c["witnesses"].clone(),
            )
        })
        .collect();
    const LETTERS: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/= \n";
    let mut inputs = Vec::new();
    let mut expected = Vec::new();
    for _ in 0..n_cases {
        let (mut note, witnesses) = base[next() as usize % base.len()].clone();
        for _ in 0..1 + next() % 3 {
            let body = BODY.len() + 1;
            let at = if next() % 5 == 0 || note.len() <= body {
                next() as usize % note.len().max(1)
            } else {
                body + next() as usize % (note.len() - body)
            };
            match next() % 4 {
                0 if at < note.len() => note[at] ^= 1 << (next() % 8),
                1 if at < note.len() => {
                    note.remove(at);
                }
                2 => note.insert(at.min(note.len()), LETTERS[next() as usize % LETTERS.len()]),
                _ if at < note.len() => note[at] = LETTERS[next() as usize % 64],
                _ => {}
            }
        }
        let listed: Vec<ListedWitness> = serde_json::from_value(witnesses.clone()).unwrap();
        let c = check_note(&note, &listed);
        let mut codes: Vec<&str> = c.problems.iter().map(|(c, _)| c.as_str()).collect();
        codes.sort_unstable();
        expected.push(json!({"k": c.k, "n": c.n, "latest": c.latest, "by": c.by, "codes": codes}));
        inputs.push(json!({"note": B64.encode(&note), "witnesses": witnesses}));
    }
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/differential");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("cosign-cases.jsonl");
    let mut f = std::fs::File::create(&path).unwrap();
    for i in &inputs {
        writeln!(f, "{i}").unwrap();
    }
    drop(f);
    let answers = crate::common::node_json_lines("cosign-differential-runner.cjs", &path);
    assert_eq!(answers.len(), inputs.len());
    let disagree: Vec<String> = expected
        .iter()
        .zip(&answers)
        .enumerate()
        .filter(|(_, (w, g))| w != g)
        .map(|(i, (w, g))| format!("case {i}: {} rust {w} js {g}", inputs[i]["note"]))
        .take(5)
        .collect();
    assert!(disagree.is_empty(), "{}", disagree.join("\n"));
    // The fuzzing reaches past "nothing counts": some changed notes still count a witness, some
    // fail with each code.
    let holds = expected
        .iter()
        .filter(|a| a["k"].as_u64() > Some(0))
        .count();
    let broken = expected
        .iter()
        .filter(|a| a["codes"].to_string().contains("cosignature_broken"))
        .count();
    assert!(
        holds * 20 >= n_cases && broken * 10 >= n_cases,
        "{holds} hold, {broken} broken of {n_cases}"
    );
}
