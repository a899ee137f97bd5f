//! `vectors/ots.json`: the cases both OpenTimestamps evaluators must answer alike
//! (docs/anchoring.md) — every real example proof, each cut short, bytes changed or added, bytes
//! that are no proof at all, and proofs made here to sit on each side of every bound.
//!
//! The answers are the Rust evaluator's (`exhibit_protocol::ots::evaluate`);
//! `tests/js/ots-vectors.test.cjs` holds `assets/verify.js` to them and
//! `tests/testsuite/vectors.rs` holds the Rust code to the file (a change in either is a
//! disagreement to explain, never to re-bless blindly). [`answer`] is also what the
//! differential fuzzing compares (`tests/testsuite/differential.rs`).

use std::path::{Path, PathBuf};

use exhibit_protocol::ots::{
    self, BITCOIN_TAG, HEADER_LEN, LITECOIN_TAG, MAGIC, MAX_ATTESTATIONS, MAX_DEPTH, MAX_MSG_LEN,
    MAX_OPS, MAX_PAYLOAD_LEN, MAX_URI_LEN, OP_SHA256, PENDING_TAG, VERSION,
};
use serde_json::{Value as J, json};

use crate::vectors::b64;

/// The real proofs (`tests/data/ots-examples`, copied from the OpenTimestamps client's
/// examples): `(path under that folder, bytes)`, the valid ones first, each list by name.
pub fn examples() -> Vec<(String, Vec<u8>)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/ots-examples");
    let mut out = Vec::new();
    for sub in ["", "invalid"] {
        let mut names: Vec<String> = std::fs::read_dir(dir.join(sub))
            .map(|d| {
                d.flatten()
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .filter(|n| n.ends_with(".ots"))
                    .collect()
            })
            .unwrap_or_default();
        names.sort();
        for n in names {
            let rel = Path::new(sub).join(&n).display().to_string();
            let bytes = std::fs::read(dir.join(&rel)).unwrap_or_default();
            out.push((rel, bytes));
        }
    }
    out
}

/// What an evaluator must answer for `bytes`: `{"digest", "attestations"}` (each attestation as
/// `exhibit verify --json` writes it, a height as decimal text so that a 63-bit one reads
/// exactly in JavaScript) or `{"problem": code}`.
pub fn answer(bytes: &[u8]) -> J {
    match ots::evaluate(bytes) {
        Ok(e) => {
            let attestations: Vec<J> = e
                .attestations
                .iter()
                .map(|a| {
                    let mut v = serde_json::to_value(a).unwrap_or(J::Null);
                    if let Some(h) = v.get_mut("height") {
                        *h = J::String(h.to_string());
                    }
                    v
                })
                .collect();
            json!({"digest": e.digest.to_string(), "attestations": attestations})
        }
        Err(p) => json!({"problem": p.code()}),
    }
}

/// A proof given as pieces: each bytes, repeated `times`.
struct Case {
    name: String,
    catches: String,
    pieces: Vec<(Vec<u8>, usize)>,
}

impl Case {
    fn bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        for (b, n) in &self.pieces {
            for _ in 0..*n {
                out.extend_from_slice(b);
            }
        }
        out
    }

    fn to_json(&self) -> J {
        json!({
            "name": self.name,
            "catches": self.catches,
            "pieces": self.pieces.iter().map(|(b, n)| json!([b64(b), n])).collect::<Vec<_>>(),
            "expect": answer(&self.bytes()),
        })
    }
}

fn case(name: impl Into<String>, catches: impl Into<String>, bytes: Vec<u8>) -> Case {
    Case {
        name: name.into(),
        catches: catches.into(),
        pieces: vec![(bytes, 1)],
    }
}

/// splitmix64: the same mutations on every machine.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// A header committing to `digest`.
pub fn header(digest: [u8; 32]) -> Vec<u8> {
    let mut b = MAGIC.to_vec();
    b.extend([VERSION, OP_SHA256]);
    b.extend(digest);
    b
}

/// An unsigned LEB128 number.
pub fn varuint(mut n: u64) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let low = (n & 0x7f) as u8;
        n >>= 7;
        if n == 0 {
            out.push(low);
            return out;
        }
        out.push(low | 0x80);
    }
}

fn varbytes(b: &[u8]) -> Vec<u8> {
    let mut out = varuint(b.len() as u64);
    out.extend_from_slice(b);
    out
}

/// An attestation (`00`, tag, payload).
fn leaf(tag: [u8; 8], payload: &[u8]) -> Vec<u8> {
    let mut out = vec![0x00];
    out.extend(tag);
    out.extend(varbytes(payload));
    out
}

fn bitcoin(height: u64) -> Vec<u8> {
    leaf(BITCOIN_TAG, &varuint(height))
}

fn pending(uri: &[u8]) -> Vec<u8> {
    leaf(PENDING_TAG, &varbytes(uri))
}

fn append(arg: &[u8]) -> Vec<u8> {
    let mut out = vec![0xf0];
    out.extend(varbytes(arg));
    out
}

fn cat(parts: &[&[u8]]) -> Vec<u8> {
    parts.concat()
}

const D: [u8; 32] = [0x5a; 32];

fn example_cases(examples: &[(String, Vec<u8>)], rng: &mut Rng) -> Vec<Case> {
    let mut out = Vec::new();
    for (name, bytes) in examples {
        out.push(case(
            format!("example/{name}"),
            "an evaluator that misreads a real proof: its digest, an operation, an attestation's kind, height, calendar or root, or the order of the attestations",
            bytes.clone(),
        ));
    }
    for (name, bytes) in examples.iter().filter(|(n, _)| !n.starts_with("invalid")) {
        let body = bytes.len() - HEADER_LEN;
        let mut cuts: Vec<usize> = vec![0, 1, 30, 31, 64, 65, 66, bytes.len() - 1];
        cuts.extend((1..6).map(|k| HEADER_LEN + k * body / 6));
        cuts.sort();
        cuts.dedup();
        for cut in cuts {
            out.push(case(
                format!("cut/{name}/{cut}"),
                "an evaluator that answers for a proof cut short instead of naming it (too_short, truncated), or crashes",
                bytes[..cut].to_vec(),
            ));
        }
        for extra in [0x00u8, 0x08, 0xff] {
            out.push(case(
                format!("trailing/{name}/{extra:02x}"),
                "an evaluator that stops at the last attestation and ignores what follows",
                cat(&[bytes, &[extra]]),
            ));
        }
        for i in 0..8 {
            let mut b = bytes.clone();
            let at = HEADER_LEN + rng.below(body);
            let to = rng.next() as u8;
            b[at] ^= to.max(1);
            out.push(case(
                format!("changed/{name}/{i}"),
                "an evaluator that reads an operation, a length or a payload otherwise than the other: a changed byte gives another root or a named problem, the same in both",
                b,
            ));
        }
        // A fork marker and an operation put in the middle: more branches, other messages.
        let at = HEADER_LEN + rng.below(body);
        out.push(case(
            format!("inserted/{name}/{at}"),
            "an evaluator that keeps or drops a fork's message otherwise than the other",
            cat(&[&bytes[..at], &[0xff, 0x08], &bytes[at..]]),
        ));
    }
    out
}

fn garbage_cases(rng: &mut Rng) -> Vec<Case> {
    let mut out = vec![
        case(
            "garbage/empty",
            "an evaluator that crashes on nothing",
            Vec::new(),
        ),
        case(
            "garbage/pdf",
            "an evaluator that reads any file as a proof",
            b"%PDF-1.4 not a proof at all, long enough to pass a header".to_vec(),
        ),
        case(
            "garbage/magic-only",
            "an evaluator that reads past the bytes it has",
            MAGIC.to_vec(),
        ),
        case(
            "garbage/header-only",
            "an evaluator that takes a header with no timestamp as a proof of nothing",
            header(D),
        ),
    ];
    for i in 0..6 {
        let n = 1 + rng.below(120);
        let tail: Vec<u8> = (0..n).map(|_| rng.next() as u8).collect();
        out.push(case(
            format!("garbage/random-body/{i}"),
            "an evaluator that answers for random bytes after a header otherwise than the other",
            cat(&[&header(D), &tail]),
        ));
    }
    let raw: Vec<u8> = (0..80).map(|_| rng.next() as u8).collect();
    out.push(case(
        "garbage/random",
        "an evaluator that finds a header in random bytes",
        raw,
    ));
    out
}

/// Every operation once, on a path to a Bitcoin attestation, with branches beside it.
fn operation_cases() -> Vec<Case> {
    let h = header(D);
    let mut out = vec![
        case(
            "ops/every-operation",
            "a wrong sha1, ripemd160, keccak256, reverse, hexlify, prepend or append (the real proofs hold only ripemd160, sha256, append and prepend)",
            cat(&[
                &h,
                &[0x02, 0x03, 0xf2, 0xf3, 0x67, 0xf1, 0x02, 0xaa, 0xbb],
                &append(b"\x01"),
                &[0x08],
                &bitcoin(1),
            ]),
        ),
        case(
            "ops/branches",
            "an evaluator that applies a branch's operation to the wrong message, or loses a branch's attestations",
            cat(&[
                &h,
                &[0xff, 0x02],
                &pending(b"https://a.example.org"),
                &[0xff, 0x67],
                &bitcoin(7),
                &[0xff, 0x00],
                &bitcoin(8),
                &[0xf2],
                &bitcoin(9),
            ]),
        ),
        case(
            "ops/bitcoin-on-the-digest",
            "an evaluator that gives the root in the header's byte order instead of the explorers'",
            cat(&[&h, &bitcoin(800_000)]),
        ),
        case(
            "ops/hexlify-is-lowercase",
            "an evaluator whose hexlify writes uppercase",
            cat(&[&h, &[0xf3, 0x08], &bitcoin(2)]),
        ),
        case(
            "ops/sha1-across-a-block",
            "a sha1 or ripemd160 wrong past one 64-byte block",
            cat(&[
                &h,
                &append(&[0x11; 40]),
                &[0x02],
                &append(&[0x22; 100]),
                &[0x03, 0x08],
                &bitcoin(3),
            ]),
        ),
        case(
            "ops/keccak-across-its-rate",
            "a keccak256 wrong past one 136-byte block",
            cat(&[&h, &append(&[0x33; 200]), &[0x67], &bitcoin(4)]),
        ),
        case(
            "ops/unknown-op",
            "an evaluator that skips an operation it does not know",
            cat(&[&h, &[0x04], &bitcoin(1)]),
        ),
        case(
            "ops/fork-of-a-fork-marker",
            "an evaluator that reads ff ff as an empty branch",
            cat(&[&h, &[0xff, 0xff], &bitcoin(1)]),
        ),
        case(
            "ops/fork-without-a-last-branch",
            "an evaluator that takes a fork's branch as the timestamp's end",
            cat(&[&h, &[0xff], &bitcoin(1)]),
        ),
        case(
            "ops/empty-argument",
            "an evaluator that appends nothing (the reference client refuses an empty argument)",
            cat(&[&h, &[0xf0, 0x00, 0x08], &bitcoin(1)]),
        ),
    ];
    out.push(case(
        "ops/ethereum-is-unknown",
        "an evaluator that treats the reference client's dubious Ethereum attestation as a known one",
        cat(&[
            &h,
            &leaf([0x30, 0xfe, 0x80, 0x87, 0xb5, 0xc7, 0xea, 0xd7], &[0xff, 0xff]),
        ]),
    ));
    out
}

fn attestation_cases() -> Vec<Case> {
    let h = header(D);
    let over = |n: usize| -> Vec<u8> { vec![b'a'; n] };
    let mut uri = b"https://".to_vec();
    uri.extend(over(MAX_URI_LEN - 8));
    let mut long_uri = uri.clone();
    long_uri.push(b'a');
    vec![
        case(
            "leaf/uri-at-its-bound",
            "an evaluator that refuses a 1000-byte calendar address",
            cat(&[&h, &pending(&uri)]),
        ),
        case(
            "leaf/uri-past-its-bound",
            "an evaluator that reads a calendar address longer than the reference client does",
            cat(&[&h, &pending(&long_uri)]),
        ),
        case(
            "leaf/uri-empty",
            "an evaluator that refuses an empty calendar address (the reference client reads it)",
            cat(&[&h, &pending(b"")]),
        ),
        case(
            "leaf/uri-query",
            "an evaluator that reads a calendar address with a character the reference client refuses",
            cat(&[&h, &pending(b"https://a.example.org/?x=1")]),
        ),
        case(
            "leaf/uri-percent",
            "the same, of %",
            cat(&[&h, &pending(b"https://a.example.org/%41")]),
        ),
        case(
            "leaf/uri-utf8",
            "the same, of a non-ASCII byte",
            cat(&[&h, &pending("https://é.example.org".as_bytes())]),
        ),
        case(
            "leaf/pending-extra-byte",
            "an evaluator that ignores bytes after a calendar address in its payload",
            cat(&[
                &h,
                &leaf(
                    PENDING_TAG,
                    &cat(&[&varbytes(b"https://a.example.org"), b"!"]),
                ),
            ]),
        ),
        case(
            "leaf/height-zero-long-form",
            "an evaluator that refuses a height written in more bytes than it needs",
            cat(&[&h, &leaf(BITCOIN_TAG, &[0x80, 0x80, 0x00])]),
        ),
        case(
            "leaf/height-63-bits",
            "an evaluator that rounds a height past 2^53",
            cat(&[&h, &bitcoin(u64::MAX >> 1)]),
        ),
        case(
            "leaf/height-ten-bytes",
            "an evaluator that reads a height of more than nine bytes",
            cat(&[
                &h,
                &leaf(
                    BITCOIN_TAG,
                    &[0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01],
                ),
            ]),
        ),
        case(
            "leaf/height-extra-byte",
            "an evaluator that ignores bytes after a height",
            cat(&[&h, &leaf(BITCOIN_TAG, &[0x05, 0x05])]),
        ),
        case(
            "leaf/height-cut",
            "an evaluator that reads a height past its payload",
            cat(&[&h, &leaf(BITCOIN_TAG, &[0x85])]),
        ),
        case(
            "leaf/bitcoin-on-20-bytes",
            "an evaluator that gives a Bitcoin attestation on a message no merkle root can equal",
            cat(&[&h, &[0x03], &bitcoin(1)]),
        ),
        case(
            "leaf/bitcoin-on-33-bytes",
            "the same, on 33 bytes",
            cat(&[&h, &append(b"x"), &bitcoin(1)]),
        ),
        case(
            "leaf/litecoin",
            "an evaluator that drops or misnames a Litecoin attestation",
            cat(&[&h, &[0x02], &leaf(LITECOIN_TAG, &varuint(1_000_000))]),
        ),
        case(
            "leaf/litecoin-garbage",
            "an evaluator that reads a Litecoin payload that is not a height",
            cat(&[&h, &leaf(LITECOIN_TAG, b"\xff\xff")]),
        ),
        case(
            "leaf/unknown-empty",
            "an evaluator that refuses an unknown attestation with no payload",
            cat(&[&h, &leaf([1, 2, 3, 4, 5, 6, 7, 8], b"")]),
        ),
        case(
            "leaf/payload-at-its-bound",
            "an evaluator that refuses an 8192-byte payload",
            cat(&[&h, &leaf([9; 8], &over(MAX_PAYLOAD_LEN))]),
        ),
        case(
            "leaf/payload-past-its-bound",
            "an evaluator that reads a payload longer than the reference client does",
            cat(&[&h, &leaf([9; 8], &over(MAX_PAYLOAD_LEN + 1))]),
        ),
        case(
            "leaf/tag-cut",
            "an evaluator that reads a tag past the end",
            cat(&[&h, &[0x00, 0x05, 0x88]]),
        ),
    ]
}

fn bound_cases() -> Vec<Case> {
    let h = header(D);
    let mut out = Vec::new();
    for (n, name) in [(MAX_DEPTH, "at"), (MAX_DEPTH + 1, "past")] {
        out.push(Case {
            name: format!("bound/depth-{name}"),
            catches: "an evaluator that follows more or fewer operations on a path than the reference client (255)".into(),
            pieces: vec![(h.clone(), 1), (vec![0x08], n), (bitcoin(1), 1)],
        });
    }
    for (len, name) in [(MAX_MSG_LEN, "at"), (MAX_MSG_LEN + 1, "past")] {
        out.push(case(
            format!("bound/message-{name}"),
            "an evaluator that makes a message longer than 4096 bytes, or refuses one of 4096",
            cat(&[&h, &append(&vec![1; len - 32]), &[0x08], &bitcoin(1)]),
        ));
    }
    for (len, name) in [(MAX_MSG_LEN / 2, "at"), (MAX_MSG_LEN / 2 + 1, "past")] {
        out.push(case(
            format!("bound/hexlify-{name}"),
            "an evaluator that hexlifies a message of more than 2048 bytes, or refuses one of 2048",
            cat(&[&h, &append(&vec![2; len - 32]), &[0xf3, 0x08], &bitcoin(1)]),
        ));
    }
    out.push(case(
        "bound/argument-past",
        "an evaluator that reads an argument longer than 4096 bytes (refused on its length, before its bytes)",
        cat(&[&h, &[0xf1], &varuint(MAX_MSG_LEN as u64 + 1)]),
    ));
    out.push(case(
        "bound/length-ten-bytes",
        "an evaluator that reads a length of more than nine bytes",
        cat(&[&h, &[0xf0], &[0x80; 9], &[0x01]]),
    ));
    out.push(case(
        "bound/first-problem-wins",
        "an evaluator that checks a step's bounds in another order (a result too long at the depth bound is message_too_long)",
        cat(&[&h, &[0x08; MAX_DEPTH], &append(&vec![3; MAX_MSG_LEN])]),
    ));
    // 1,000 attestations, then 1,001 (of an unknown kind: the shortest to write down).
    let unknown = leaf([1, 2, 3, 4, 5, 6, 7, 8], b"");
    for (n, name) in [(MAX_ATTESTATIONS, "at"), (MAX_ATTESTATIONS + 1, "past")] {
        out.push(Case {
            name: format!("bound/attestations-{name}"),
            catches: "an evaluator without exhibit's bound of 1000 attestations, or with another"
                .into(),
            pieces: vec![
                (h.clone(), 1),
                (cat(&[&[0xff], &unknown]), n - 1),
                (unknown.clone(), 1),
            ],
        });
    }
    // 10,000 operations in branches of 200 (50 attestations), then one more.
    for (extra, name) in [(0usize, "at"), (1, "past")] {
        let branch = cat(&[&[0xff], &[0x08; 200], &bitcoin(1)]);
        out.push(Case {
            name: format!("bound/operations-{name}"),
            catches: "an evaluator without exhibit's bound of 10000 operations, or with another"
                .into(),
            pieces: vec![
                (h.clone(), 1),
                (branch, MAX_OPS / 200 - 1),
                (vec![0x08], 200 + extra),
                (bitcoin(1), 1),
            ],
        });
    }
    out
}

/// The whole file, pretty JSON with a final LF.
pub fn document() -> Vec<u8> {
    let mut rng = Rng(0x07_5eed);
    let examples = examples();
    let mut cases = example_cases(&examples, &mut rng);
    cases.extend(garbage_cases(&mut rng));
    cases.extend(operation_cases());
    cases.extend(attestation_cases());
    cases.extend(bound_cases());
    let doc = json!({
        "format": "exhibit-ots-vectors/v1",
        "about": "docs/anchoring.md. A case's proof is its pieces, each base64 bytes repeated `times`, concatenated. expect is {digest, attestations} (each attestation as `exhibit verify --json` writes it, its height as decimal text) or {problem: code}; detail words are not compared.",
        "examples": "tests/data/ots-examples (the OpenTimestamps client's examples)",
        "limits": {
            "max_msg_len": MAX_MSG_LEN,
            "max_payload_len": MAX_PAYLOAD_LEN,
            "max_uri_len": MAX_URI_LEN,
            "max_depth": MAX_DEPTH,
            "max_ops": MAX_OPS,
            "max_attestations": MAX_ATTESTATIONS,
        },
        "cases": cases.iter().map(Case::to_json).collect::<Vec<_>>(),
    });
    let mut bytes = serde_json::to_vec_pretty(&doc).unwrap_or_default();
    bytes.push(b'\n');
    bytes
}
