//! Property tests (issue: "Property tests"): any object of admitted values dumps to bytes that
//! parse back and dump identically; flipping any byte of a valid ledger is always reported.

use std::borrow::Cow;

use exhibit_protocol::canonical::{self, Object, Value};
use exhibit_protocol::verify::{Pass, Withheld, verify_bytes, verify_bytes_full, verify_reader};
use proptest::prelude::*;

fn admitted_value() -> impl Strategy<Value = Value<'static>> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (-(1i64 << 53)..=(1i64 << 53)).prop_map(Value::Int),
        // Any Unicode scalar values: control characters, quotes, backslashes, U+2028, astral.
        any::<String>().prop_map(|s| Value::Str(Cow::Owned(s))),
    ];
    leaf.prop_recursive(4, 64, 8, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map("[ -~]{0,8}", inner, 0..6).prop_map(|m| {
                Value::Object(Object {
                    members: m.into_iter().map(|(k, v)| (Cow::Owned(k), v)).collect(),
                })
            }),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn admitted_values_round_trip(value in admitted_value()) {
        let bytes = canonical::to_canonical(&value).expect("admitted values dump");
        let parsed = canonical::parse(&bytes).expect("the dump parses");
        prop_assert!(parsed.duplicate_key.is_none());
        prop_assert!(parsed.not_admitted.is_none());
        let again = canonical::to_canonical(&parsed.value).unwrap();
        prop_assert_eq!(&again, &bytes);
        // serde_json reads the same bytes as the same JSON (an independent reader).
        let ours: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
        let theirs = serde_json::to_vec(&ours).unwrap();
        let reread: serde_json::Value = serde_json::from_slice(&theirs).unwrap();
        prop_assert_eq!(ours, reread);
    }

    #[test]
    fn any_flipped_byte_is_reported(pos in 0usize..1_000_000, mask in 1u8..=255) {
        let base = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/vectors/base.jsonl")).unwrap();
        let mut bytes = base.clone();
        let i = pos % bytes.len();
        bytes[i] ^= mask;
        let report = verify_bytes(&bytes, &Withheld::default());
        prop_assert!(!report.ok, "flipping byte {} with {:#04x} went unnoticed", i, mask);
        // The fast path and the full reader give the same answer, problem for problem.
        let full = verify_bytes_full(&bytes, &Withheld::default());
        prop_assert_eq!(format!("{:?}", report), format!("{:?}", full));
        // And the build's lean pass hands on what the full reader's objects say, line for line.
        let (lean, objects) = fields_both_ways(&bytes);
        prop_assert_eq!(lean, objects);
    }
}

/// One entry's fields in one line, as both passes spell them.
fn spelt(
    line: u64,
    offset: u64,
    (seq, id, problem): (Option<i64>, Option<exhibit_protocol::Digest>, bool),
    texts: [Option<&str>; 3],
    bytes: &[u8],
) -> String {
    format!(
        "{line} {offset} {seq:?} {id:?} {problem} {texts:?} {}",
        bytes.len()
    )
}

/// Each entry's fields as the build's lean pass (`Pass::Fields`) hands them on, and as read
/// from the full reader's objects (`Pass::Entries`), with the reports: a fast path that read a
/// field otherwise than the object says (another key's value, an escaped string taken raw, a
/// line skipped) makes the two differ.
fn fields_both_ways(bytes: &[u8]) -> (Vec<String>, Vec<String>) {
    let none = Withheld::default();
    let (mut lean, mut objects) = (Vec::new(), Vec::new());
    let by_fields = verify_reader(
        bytes,
        &none,
        Pass::Fields(&mut |f, at| {
            let texts = [f.kind.as_deref(), f.day.as_deref(), f.timestamp.as_deref()];
            let facts = (f.seq, f.derived_id, f.has_problem);
            lean.push(spelt(f.line, at, facts, texts, f.bytes))
        }),
    );
    let by_objects = verify_reader(
        bytes,
        &none,
        Pass::Entries(&mut |e, at| {
            let texts = ["kind", "day", "timestamp"].map(|k| e.object.get_str(k));
            let facts = (e.seq, e.derived_id, e.has_problem);
            objects.push(spelt(e.line, at, facts, texts, e.bytes))
        }),
    );
    for (list, report) in [(&mut lean, by_fields), (&mut objects, by_objects)] {
        list.push(format!("{:?}", report.map(|v| format!("{:?}", v.report))));
    }
    (lean, objects)
}

/// The base ledger, and one whose kinds and days are spelt with escapes (the fast scanner
/// leaves those lines to the full reader), give the same fields both ways.
#[test]
fn the_builds_lean_pass_reads_what_the_objects_say() {
    let base = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/vectors/base.jsonl")).unwrap();
    let (lean, objects) = fields_both_ways(&base);
    assert!(lean.len() > 3, "{lean:?}");
    assert!(
        lean.iter().any(|l| l.contains("Some(\"send\")")),
        "{lean:?}"
    );
    assert_eq!(lean, objects);
    let escaped = String::from_utf8(base)
        .unwrap()
        .replace("\"kind\":\"send\"", "\"kind\":\"s\\u0065nd\"");
    let (lean, objects) = fields_both_ways(escaped.as_bytes());
    assert!(
        lean.iter().any(|l| l.contains("Some(\"send\")")),
        "{lean:?}"
    );
    assert_eq!(lean, objects);
}

/// Every position, one mask: no byte of the base is unguarded.
#[test]
fn every_single_byte_of_the_base_is_guarded() {
    let base = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/vectors/base.jsonl")).unwrap();
    for i in 0..base.len() {
        for mask in [0x01u8, 0x20, 0x80] {
            let mut bytes = base.clone();
            bytes[i] ^= mask;
            let lean = verify_bytes(&bytes, &Withheld::default());
            assert!(!lean.ok, "byte {i} ^ {mask:#04x} went unnoticed");
            let full = verify_bytes_full(&bytes, &Withheld::default());
            assert_eq!(
                format!("{lean:?}"),
                format!("{full:?}"),
                "byte {i} ^ {mask:#04x}: the fast path disagrees"
            );
        }
    }
}
