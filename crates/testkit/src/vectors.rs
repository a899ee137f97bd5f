//! Writes `vectors/base.jsonl` and `vectors/vectors.json` (docs/protocol.md#conformance), deterministically.
//!
//! ```text
//! cargo run --example gen-vectors -- vectors          # write
//! cargo run --example gen-vectors -- vectors --check  # exit 1 if the files would change
//! ```
//!
//! Every case states its expected answer here, by hand, from the rules in docs/verifier.md; the
//! generator never runs the verifier, so the vectors cannot merely agree with the code they test.
//! Lines are built with the crate's canonical writer; `tests/testsuite/vectors.rs` re-derives the base's
//! digests from hand-written bytes with nothing but sha2, so that writer is checked too.

use exhibit_protocol::Digest;
use std::path::PathBuf;

use exhibit_protocol::canonical::{self, Object, Value};
use exhibit_protocol::days::{self, DayDeriver};
use serde_json::{Value as J, json};

const NY: &str = "America/New_York";
const CERTIFIES: &str =
    "Each line records one gate event; no line holds message text or a chat id.";

/// A ledger under construction: canonical lines and their digests.
#[derive(Clone)]
struct Ledger {
    lines: Vec<Vec<u8>>, // line 0 is the header
    ids: Vec<String>,    // ids[k] is the entry_id of seq k+1
    days: Vec<String>,
    header_digest: String,
    tz: String,
}

fn header_value(tz: &str, created: &str) -> Object<'static> {
    let mut o = Object::default();
    o.insert("anchor_tz", Value::str(tz.to_owned()));
    o.insert("certifies", Value::str(CERTIFIES));
    o.insert("created", Value::str(created.to_owned()));
    o.insert("schema", Value::str("darkflobi.gate/log/v0"));
    o
}

fn dump_obj(o: &Object<'_>) -> Vec<u8> {
    let mut out = Vec::new();
    canonical::dump_object_except(o, None, &mut out).expect("admitted");
    out
}

fn core_id(o: &Object<'_>) -> String {
    let mut out = Vec::new();
    canonical::dump_object_except(o, Some("entry_id"), &mut out).expect("admitted");
    Digest::of(&out).to_string()
}

impl Ledger {
    fn new(tz: &str, created: &str) -> Ledger {
        let header = header_value(tz, created);
        let bytes = dump_obj(&header);
        let mut domain = b"darkflobi.gate/log/v0\n".to_vec();
        domain.extend_from_slice(&bytes);
        Ledger {
            lines: vec![bytes],
            ids: vec![],
            days: vec![],
            header_digest: Digest::of(&domain).to_string(),
            tz: tz.to_owned(),
        }
    }

    fn day_of(&self, ts: &str) -> String {
        let zone = days::zone(&self.tz).expect("zone");
        DayDeriver::new(zone).day_of(days::parse_timestamp(ts).expect("timestamp"))
    }

    /// Appends an entry; `fields` are the kind's own fields.
    fn push(&mut self, kind: &str, ts: &str, fields: Vec<(&str, Value<'static>)>) -> String {
        let day = self.day_of(ts);
        self.push_with_day(kind, ts, &day, fields)
    }

    fn push_with_day(
        &mut self,
        kind: &str,
        ts: &str,
        day: &str,
        fields: Vec<(&str, Value<'static>)>,
    ) -> String {
        let seq = self.ids.len() as i64 + 1;
        let prev = self
            .ids
            .last()
            .cloned()
            .unwrap_or(self.header_digest.clone());
        let mut o = Object::default();
        o.insert("schema", Value::str("darkflobi.gate/entry/v0"));
        o.insert("seq", Value::Int(seq));
        o.insert("prev", Value::str(prev));
        o.insert("kind", Value::str(kind.to_owned()));
        o.insert("timestamp", Value::str(ts.to_owned()));
        o.insert("day", Value::str(day.to_owned()));
        for (k, v) in fields {
            o.insert(k.to_owned(), v);
        }
        let id = core_id(&o);
        o.insert("entry_id", Value::str(id.clone()));
        self.lines.push(dump_obj(&o));
        self.ids.push(id.clone());
        self.days.push(day.to_owned());
        id
    }

    fn bytes(&self) -> Vec<u8> {
        join(&self.lines)
    }

    fn head(&self) -> String {
        self.ids
            .last()
            .cloned()
            .unwrap_or(self.header_digest.clone())
    }

    /// The line number (1-based) of seq `s` in the untouched ledger.
    fn line_of(s: i64) -> u64 {
        s as u64 + 1
    }

    fn withheld(&self, seq: i64) -> J {
        json!({"seq": seq, "entry_id": self.ids[seq as usize - 1], "kind": "send",
               "dest_class": "dm", "day": self.days[seq as usize - 1],
               "fields_flagged": ["reasons"], "reason": "identifier shape: nine_digits"})
    }
}

fn join(lines: &[Vec<u8>]) -> Vec<u8> {
    let mut out = Vec::new();
    for l in lines {
        out.extend_from_slice(l);
        out.push(b'\n');
    }
    out
}

fn d(n: u8) -> String {
    // A fixed, recognisable digest for destination and message hashes.
    Digest::of(&[n]).to_string()
}

fn s(v: &str) -> Value<'static> {
    Value::str(v.to_owned())
}

fn numerals(b: i64, n: i64) -> Value<'static> {
    let mut o = Object::default();
    o.insert("bound", Value::Int(b));
    o.insert("total", Value::Int(n));
    Value::Object(o)
}

fn send(l: &mut Ledger, ts: &str, msg: u8, decision: &str) -> String {
    l.push(
        "send",
        ts,
        vec![
            ("action", s("send")),
            ("decision", s(decision)),
            ("dest_class", s("public")),
            ("dest_hash", s(&d(1))),
            ("draft_sha256", s(&d(100 + msg))),
            ("checked_sha256", s(&d(150 + msg))),
            ("stripped_sha256", s(&d(200 + msg))),
            ("sent_sha256", s(&d(msg))),
            ("numerals", numerals(2, 3)),
            ("reasons", Value::Array(vec![s("numeral_unbound")])),
        ],
    )
}

/// The base ledger: 18 entries over three New York days, every common kind, two anchors.
fn base() -> Ledger {
    let mut l = Ledger::new(NY, "2026-10-24T13:00:00Z");
    l.push(
        "started",
        "2026-10-24T13:00:05Z",
        vec![("version", s("0.9.4")), ("process", s("gate/0.9.4"))],
    );
    send(&mut l, "2026-10-24T14:10:00Z", 10, "pass"); // 2
    l.push(
        "delivered",
        "2026-10-24T14:10:02Z",
        vec![
            ("ref_seq", Value::Int(2)),
            ("status", s("ok")),
            ("sent_sha256", s(&d(10))),
        ],
    );
    send(&mut l, "2026-10-24T20:45:10Z", 11, "hold"); // 4
    l.push(
        "exec_scan",
        "2026-10-24T23:00:00Z",
        vec![("scanned", Value::Int(41)), ("flagged", Value::Int(0))],
    );
    // 6: 02:30Z on the 25th is still the 24th in New York (EDT, UTC-4).
    send(&mut l, "2026-10-25T02:30:00Z", 12, "pass");
    let day1_head = l.ids[5].clone();
    let post1 = format!("gate anchor 2026-10-24 head {day1_head} seq 6");
    l.push(
        "anchor",
        "2026-10-25T04:00:03Z",
        vec![
            ("anchor_date", s("2026-10-24")),
            ("anchor_head", s(&day1_head)),
            ("anchor_head_seq", Value::Int(6)),
            (
                "anchor_text_sha256",
                s(&Digest::of(post1.as_bytes()).to_string()),
            ),
            ("late", Value::Bool(false)),
        ],
    ); // 7
    send(&mut l, "2026-10-25T12:00:00Z", 13, "pass"); // 8
    l.push(
        "delivered",
        "2026-10-25T12:00:01Z",
        vec![
            ("ref_seq", Value::Int(8)),
            ("status", s("ok")),
            ("sent_sha256", s(&d(13))),
        ],
    );
    l.push(
        "pin_moved",
        "2026-10-25T15:20:00Z",
        vec![("pin_from", s(&d(60))), ("pin_to", s(&d(61)))],
    );
    send(&mut l, "2026-10-25T18:05:44Z", 14, "block"); // 11
    l.push(
        "gate_wired",
        "2026-10-25T22:00:00Z",
        vec![("detail", s("hook_reinstalled"))],
    );
    send(&mut l, "2026-10-26T01:15:00Z", 15, "pass"); // 13 (25th in New York)
    let day2_head = l.ids[12].clone();
    let post2 = format!("gate anchor 2026-10-25 head {day2_head} seq 13");
    l.push(
        "anchor",
        "2026-10-26T04:00:02Z",
        vec![
            ("anchor_date", s("2026-10-25")),
            ("anchor_head", s(&day2_head)),
            ("anchor_head_seq", Value::Int(13)),
            (
                "anchor_text_sha256",
                s(&Digest::of(post2.as_bytes()).to_string()),
            ),
            ("late", Value::Bool(false)),
        ],
    ); // 14
    l.push(
        "lock_recovered",
        "2026-10-26T09:00:00Z",
        vec![("detail", s("stale_lock_removed"))],
    );
    send(&mut l, "2026-10-26T11:11:11Z", 16, "pass"); // 16
    l.push(
        "deleted",
        "2026-10-26T11:30:00Z",
        vec![
            ("ref_seq", Value::Int(16)),
            ("sent_sha256", s(&d(16))),
            ("reason", s("operator_request")),
        ],
    );
    send(&mut l, "2026-10-26T16:00:00Z", 17, "hold"); // 18
    l
}

pub(crate) fn b64(bytes: &[u8]) -> String {
    const T: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = (u32::from(chunk[0]) << 16)
            | (u32::from(*chunk.get(1).unwrap_or(&0)) << 8)
            | u32::from(*chunk.get(2).unwrap_or(&0));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(T[(n >> (18 - 6 * i)) as usize & 63] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

struct Case {
    name: &'static str,
    catches: &'static str,
    transform: String,
    ledger: Vec<u8>,
    withheld: Option<Vec<J>>,
    /// The withheld list's exact bytes, when its form is the point of the case.
    withheld_raw: Option<Vec<u8>>,
    /// The list breaks a rule of docs/verifier.md "The withheld list": a usage error.
    withheld_refused: bool,
    anchors: Option<Vec<(String, String)>>,
    ok: bool,
    head: Option<String>,
    bridged: Vec<i64>,
    problems: Vec<(u64, &'static str)>,
    anchor_expect: Vec<J>,
}

fn case(
    name: &'static str,
    catches: &'static str,
    transform: impl Into<String>,
    ledger: Vec<u8>,
) -> Case {
    Case {
        name,
        catches,
        transform: transform.into(),
        ledger,
        withheld: None,
        withheld_raw: None,
        withheld_refused: false,
        anchors: None,
        ok: true,
        head: None,
        bridged: vec![],
        problems: vec![],
        anchor_expect: vec![],
    }
}

impl Case {
    fn ok_head(mut self, head: String) -> Case {
        self.ok = true;
        self.head = Some(head);
        self
    }
    fn problems(mut self, p: Vec<(u64, &'static str)>) -> Case {
        self.ok = false;
        self.head = None;
        self.problems = p;
        self
    }
    fn withheld(mut self, w: Vec<J>) -> Case {
        self.withheld = Some(w);
        self
    }
    fn withheld_bytes(mut self, raw: &str) -> Case {
        self.withheld_raw = Some(raw.as_bytes().to_vec());
        self
    }
    fn withheld_refused(mut self) -> Case {
        self.withheld_refused = true;
        self.ok = false;
        self.head = None;
        self
    }
    fn bridged(mut self, b: Vec<i64>) -> Case {
        self.bridged = b;
        self
    }
    fn anchors(mut self, posts: Vec<(String, String)>, expect: Vec<J>) -> Case {
        self.anchors = Some(posts);
        self.anchor_expect = expect;
        self
    }

    fn entries(&self) -> u64 {
        // Non-blank, LF-terminated lines after line 1 (docs/verifier.md "The answer").
        let mut pieces: Vec<&[u8]> = self.ledger.split(|&b| b == b'\n').collect();
        pieces.pop(); // the piece after the last LF is never a terminated line
        pieces.iter().skip(1).filter(|p| !p.is_empty()).count() as u64
    }

    fn to_json(&self) -> J {
        let mut c = json!({
            "name": self.name,
            "catches": self.catches,
            "transform": self.transform,
            "ledger_b64": b64(&self.ledger),
        });
        if let Some(w) = &self.withheld {
            c["withheld"] = J::Array(w.clone());
        }
        if let Some(raw) = &self.withheld_raw {
            c["withheld_b64"] = J::String(b64(raw));
        }
        // The anchor zone's rules from this binary's tz database over the ledger's span: what a
        // page carries, and what the JavaScript runner derives days from (vectors/README.md).
        if let Some(rules) = exhibit_protocol::verify::tz_rules_for_ledger(&self.ledger) {
            c["tz_rules"] = serde_json::to_value(&rules).expect("json");
        }
        let mut expect = json!({
            "ok": self.ok,
            "entries": self.entries(),
            "head": self.head,
            "bridged": self.bridged,
            "problems": self.problems.iter().map(|(l, c)| json!({"line": l, "code": c})).collect::<Vec<_>>(),
        });
        if self.withheld_refused {
            // Nothing of the ledger is compared: the list is refused before any line is read.
            expect = json!({"withheld_refused": true});
        }
        if let Some(posts) = &self.anchors {
            c["anchors"] = J::Array(
                posts
                    .iter()
                    .map(|(date, text)| json!({"date": date, "text": text}))
                    .collect(),
            );
            expect["anchors"] = J::Array(self.anchor_expect.clone());
        }
        c["expect"] = expect;
        c
    }
}

/// Re-dumps line `line` (0-based index into lines) after `edit`, keeping its stated entry_id.
fn rewrite(
    lines: &mut [Vec<u8>],
    idx: usize,
    rechain: bool,
    edit: impl FnOnce(&mut Object<'static>),
) {
    let parsed = canonical::parse(&lines[idx]).expect("base line parses");
    let Value::Object(mut o) = parsed.value.into_owned() else {
        unreachable!()
    };
    edit(&mut o);
    if rechain {
        let id = core_id(&o);
        o.insert("entry_id", Value::str(id));
    }
    lines[idx] = dump_obj(&o);
}

fn replace_bytes(line: &[u8], from: &str, to: &str) -> Vec<u8> {
    let s = String::from_utf8(line.to_vec()).expect("utf8");
    assert!(s.contains(from), "{from:?} not in line");
    s.replacen(from, to, 1).into_bytes()
}

/// A tiny ledger with one `exec_scan`-like entry holding a `detail` string, for canonical traps.
fn mini_with_detail(detail: &str) -> Ledger {
    let mut l = Ledger::new(NY, "2026-10-24T13:00:00Z");
    l.push(
        "started",
        "2026-10-24T13:00:05Z",
        vec![("version", s("0.9.4"))],
    );
    l.push(
        "gate_not_wired",
        "2026-10-24T13:05:00Z",
        vec![("detail", s(detail))],
    );
    l.push(
        "gate_wired",
        "2026-10-24T13:06:00Z",
        vec![("detail", s("ok"))],
    );
    l
}

/// A mini ledger whose entry 2 carries `raw` (a JSON number or key text) spliced into its bytes,
/// with `entry_id` set to `id_over` (what a float-casting implementation would derive).
fn mini_with_raw_value(raw_field: &str, naive_value: Value<'static>) -> Vec<u8> {
    let mut l = Ledger::new(NY, "2026-10-24T13:00:00Z");
    l.push(
        "started",
        "2026-10-24T13:00:05Z",
        vec![("version", s("0.9.4"))],
    );
    // Built with the value a naive reader would see, so its stated entry_id is the naive digest.
    l.push(
        "exec_scan",
        "2026-10-24T13:05:00Z",
        vec![("scanned", naive_value.clone()), ("flagged", Value::Int(0))],
    );
    l.push(
        "gate_wired",
        "2026-10-24T13:06:00Z",
        vec![("detail", s("ok"))],
    );
    let naive = match &naive_value {
        Value::Int(n) => n.to_string(),
        _ => unreachable!(),
    };
    let mut lines = l.lines.clone();
    lines[2] = replace_bytes(
        &lines[2],
        &format!("\"scanned\":{naive}"),
        &format!("\"scanned\":{raw_field}"),
    );
    join(&lines)
}

fn anchor_ok(date: &str) -> J {
    json!({"date": date, "ok": true, "format": "ok", "head": "ok", "day_closed": "ok", "ledger_line": "agrees"})
}

fn cases(base: &Ledger) -> Vec<Case> {
    let mut v = Vec::new();
    let bl = &base.lines;
    let n = base.ids.len() as i64; // 18
    let line = Ledger::line_of;

    v.push(
        case(
            "identity",
            "a verifier that rejects a valid ledger, or states the wrong head",
            "the base, unchanged",
            base.bytes(),
        )
        .ok_head(base.head()),
    );

    // --- transforms (docs/protocol.md#conformance) -----------------------------------------------------------------
    let mut l = bl.clone();
    rewrite(&mut l, 8, false, |o| o.insert("decision", s("block")));
    v.push(
        case(
            "field-rewritten-redumped",
            "a verifier that checks prev links but never re-derives entry_id from the core",
            "seq 8: decision pass→block, re-dumped canonically, entry_id left as it was",
            join(&l),
        )
        .problems(vec![(line(8), "entry_id_mismatch")]),
    );

    let mut l = bl.clone();
    rewrite(&mut l, 8, true, |o| o.insert("decision", s("block")));
    v.push(
        case(
            "field-rewritten-rechained",
            "a verifier that re-derives each entry_id but never checks that the next prev names it",
            "seq 8: decision rewritten and its entry_id re-derived; seq 9 still names the old one",
            join(&l),
        )
        .problems(vec![(line(9), "prev_mismatch")]),
    );

    let mut l = bl.clone();
    rewrite(&mut l, 3, false, |o| {
        o.insert("timestamp", s("2026-10-24T14:11:02Z"))
    });
    v.push(case("timestamp-rewritten", "a verifier that leaves timestamp out of the core (docs/protocol.md#chain: a rewritten clock breaks the digest)",
        "seq 3: timestamp moved by a minute, entry_id left", join(&l))
        .problems(vec![(line(3), "entry_id_mismatch")]));

    let mut l = bl.clone();
    l.remove(7);
    v.push(
        case(
            "dropped-line",
            "a verifier that only checks each line on its own",
            "seq 7 removed",
            join(&l),
        )
        .problems(vec![(8, "prev_mismatch"), (8, "seq_mismatch")]),
    );

    let mut l = bl.clone();
    l.remove(7);
    v.push(
        case(
            "dropped-line-withheld",
            "a verifier that cannot bridge a withheld seq on its published digest",
            "seq 7 removed; its digest supplied as withheld",
            join(&l),
        )
        .withheld(vec![base.withheld(7)])
        .bridged(vec![7])
        .ok_head(base.head()),
    );

    let mut l = bl.clone();
    l.remove(7);
    let mut wrong = base.withheld(7);
    wrong["entry_id"] = json!(d(99));
    v.push(case("dropped-line-withheld-wrong-digest", "a verifier that bridges any listed gap without checking the listed digest against the next prev",
        "seq 7 removed; a different digest listed for it", join(&l))
        .withheld(vec![wrong]).bridged(vec![7]).problems(vec![(8, "prev_mismatch")]));

    let mut l = bl.clone();
    l.drain(1..3);
    v.push(case("withheld-run-start", "a verifier that can only bridge after a published line (the first entry's prev is then the listed digest of seq 2, not the header digest)",
        "seqs 1 and 2 removed and listed", join(&l))
        .withheld(vec![base.withheld(1), base.withheld(2)]).bridged(vec![1, 2]).ok_head(base.head()));

    let mut l = bl.clone();
    l.drain(8..11);
    v.push(
        case(
            "withheld-run-middle",
            "a verifier that bridges one withheld seq but not a run",
            "seqs 8, 9 and 10 removed and listed",
            join(&l),
        )
        .withheld(vec![base.withheld(8), base.withheld(9), base.withheld(10)])
        .bridged(vec![8, 9, 10])
        .ok_head(base.head()),
    );

    let mut l = bl.clone();
    l.truncate(l.len() - 2);
    v.push(
        case(
            "withheld-run-tail",
            "a verifier whose head ignores listed seqs after the last line",
            "seqs 17 and 18 removed and listed; the head is seq 18's listed digest",
            join(&l),
        )
        .withheld(vec![base.withheld(17), base.withheld(18)])
        .bridged(vec![17, 18])
        .ok_head(base.ids[17].clone()),
    );

    let mut l = bl.clone();
    l.drain(7..9);
    v.push(
        case(
            "withheld-gap-partly-listed",
            "a verifier that bridges a gap when only some of its seqs are listed",
            "seqs 7 and 8 removed; only 8 listed",
            join(&l),
        )
        .withheld(vec![base.withheld(8)])
        .problems(vec![
            (8, "prev_mismatch"),
            (8, "seq_mismatch"),
            (0, "withheld_unreachable"),
        ]),
    );

    v.push(
        case(
            "withheld-conflict",
            "a verifier that lets a seq be both published and withheld",
            "the base; seq 5 also listed as withheld",
            base.bytes(),
        )
        .withheld(vec![base.withheld(5)])
        .problems(vec![(line(5), "withheld_conflict")]),
    );

    let mut far = base.withheld(5);
    far["seq"] = json!(25);
    v.push(
        case(
            "withheld-unreachable",
            "a verifier that accepts a listed seq no line or tail run reaches",
            "the base; seq 25 listed (19 to 24 are not)",
            base.bytes(),
        )
        .withheld(vec![far])
        .problems(vec![(0, "withheld_unreachable")]),
    );

    let mut l = bl.clone();
    l[4].push(b'\r');
    v.push(
        case(
            "cr-byte",
            "a verifier that strips CR (a checkout's CRLF conversion) instead of reporting it",
            "line 5 (seq 4) ends in CR LF",
            join(&l),
        )
        .problems(vec![
            (5, "cr_byte"),
            (6, "prev_mismatch"),
            (6, "seq_mismatch"),
        ]),
    );

    let crlf: Vec<Vec<u8>> = bl
        .iter()
        .map(|x| {
            let mut y = x.clone();
            y.push(b'\r');
            y
        })
        .collect();
    v.push(
        case(
            "crlf-everywhere",
            "a verifier that reads CRLF files as if they were LF",
            "every line ends in CR LF",
            join(&crlf),
        )
        .problems(
            std::iter::once((1, "cr_byte"))
                .chain([(1, "missing_header")])
                .chain((2..=bl.len() as u64).map(|i| (i, "cr_byte")))
                .collect(),
        ),
    );

    let mut l = bl.clone();
    l[5] = replace_bytes(&l[5], "\"flagged\":0,", "\"flagged\":0,\"flagged\":0,");
    v.push(
        case(
            "duplicate-key-same-value",
            "a reader that silently keeps one of two equal keys (serde_json::Value, a dict)",
            "seq 5: \"flagged\":0 written twice",
            join(&l),
        )
        .problems(vec![(line(5), "duplicate_key")]),
    );

    let mut l = bl.clone();
    l[5] = replace_bytes(&l[5], "\"flagged\":0,", "\"flagged\":9,\"flagged\":0,");
    v.push(case("duplicate-key-last-wins", "a reader whose first value wins (JSON.parse keeps the last: here the signed 0, so the digest re-derives)",
        "seq 5: \"flagged\":9 then the signed \"flagged\":0", join(&l))
        .problems(vec![(line(5), "duplicate_key")]));

    let mut l = bl.clone();
    l[5] = replace_bytes(&l[5], "\"flagged\":0,", "\"flagged\":0,\"flagged\":7,");
    v.push(case("duplicate-key-last-differs", "a reader whose first value wins (it would re-derive the signed 0 and miss the rewrite)",
        "seq 5: the signed \"flagged\":0 then \"flagged\":7", join(&l))
        .problems(vec![(line(5), "duplicate_key"), (line(5), "entry_id_mismatch")]));

    let mut bytes = base.bytes();
    bytes.pop();
    v.push(
        case(
            "truncated-tail-no-lf",
            "a verifier that chains a last line with no LF (the gate may still be writing it)",
            "the final LF removed",
            bytes,
        )
        .problems(vec![(line(n), "truncated_tail")]),
    );

    let mut bytes = base.bytes();
    bytes.truncate(bytes.len() - 40);
    v.push(
        case(
            "truncated-tail-mid-line",
            "a verifier that reports a half-written last line as unparsable instead of truncated",
            "the last 40 bytes cut",
            bytes,
        )
        .problems(vec![(line(n), "truncated_tail")]),
    );

    // --- every code ------------------------------------------------------------------------
    v.push(
        case(
            "empty-file",
            "a verifier that calls an empty file a valid empty ledger",
            "zero bytes",
            vec![],
        )
        .problems(vec![(1, "missing_header")]),
    );

    v.push(
        case(
            "header-only",
            "a verifier that needs an entry (the head of an empty ledger is the header digest)",
            "the header alone",
            join(&bl[..1]),
        )
        .ok_head(base.header_digest.clone()),
    );

    v.push(
        case(
            "header-dropped",
            "a verifier that takes the first entry as the header",
            "line 1 removed",
            join(&bl[1..]),
        )
        .problems(vec![(1, "missing_header"), (2, "seq_mismatch")]),
    );

    let mut l = bl.clone();
    l.insert(0, vec![]);
    // Line 2 is then an entry slot: the header there is an entry with no entry_id, seq or
    // timestamp, and seq 1 after it is measured against it.
    v.push(
        case(
            "blank-line-1",
            "a verifier that skips a blank first line and finds the header on line 2",
            "a blank line before the header",
            join(&l),
        )
        .problems(vec![
            (1, "missing_header"),
            (2, "bad_schema"),
            (2, "entry_id_mismatch"),
            (2, "seq_mismatch"),
            (2, "bad_timestamp"),
            (3, "prev_mismatch"),
            (3, "seq_mismatch"),
        ]),
    );

    let mut l = bl.clone();
    l[0] = replace_bytes(&l[0], "darkflobi.gate/log/v0", "darkflobi.gate/log/v1");
    v.push(
        case(
            "header-wrong-schema",
            "a verifier that accepts any object on line 1 as the header",
            "the header's schema is v1",
            join(&l),
        )
        .problems(vec![(1, "missing_header")]),
    );

    let mut nowhere = Ledger::new("America/Nowhere", "2026-10-24T13:00:00Z");
    nowhere.push_with_day(
        "started",
        "2026-10-24T13:00:05Z",
        "2026-10-24",
        vec![("version", s("0.9.4"))],
    );
    v.push(
        case(
            "bad-header-zone",
            "a verifier that falls back to UTC or the host's zone for an unknown anchor_tz",
            "a ledger whose header names America/Nowhere",
            nowhere.bytes(),
        )
        .problems(vec![(1, "bad_header")]),
    );

    let mut l = bl.clone();
    rewrite(&mut l, 12, true, |o| {
        o.insert("schema", s("darkflobi.gate/entry/v1"))
    });
    // The rechained line 13 has a new entry_id, so line 14's prev no longer names it.
    v.push(
        case(
            "bad-schema",
            "a verifier that never reads an entry's schema",
            "seq 12: schema entry/v1, entry_id re-derived",
            join(&l),
        )
        .problems(vec![(line(12), "bad_schema"), (line(13), "prev_mismatch")]),
    );

    let mut l = bl.clone();
    let last = l.len() - 1;
    rewrite(&mut l, last, true, |o| o.insert("seq", Value::Int(20)));
    v.push(
        case(
            "seq-skips",
            "a verifier that trusts prev links and never counts seqs",
            "the last entry's seq 18→20, entry_id re-derived",
            join(&l),
        )
        .problems(vec![(line(n), "seq_mismatch")]),
    );

    let mut l = bl.clone();
    rewrite(&mut l, last, true, |o| {
        o.insert("timestamp", s("2026-10-26 16:00:00Z"))
    });
    v.push(
        case(
            "bad-timestamp-form",
            "a verifier that accepts any date-like timestamp",
            "the last entry's timestamp written with a space for T",
            join(&l),
        )
        .problems(vec![(line(n), "bad_timestamp")]),
    );

    let mut l = bl.clone();
    rewrite(&mut l, last, true, |o| {
        o.insert("timestamp", s("2026-02-29T16:00:00Z"))
    });
    v.push(
        case(
            "bad-timestamp-no-such-day",
            "a verifier that checks the timestamp's shape but not that the date exists",
            "the last entry's timestamp on 2026-02-29",
            join(&l),
        )
        .problems(vec![(line(n), "bad_timestamp")]),
    );

    let mut l = bl.clone();
    rewrite(&mut l, 6, true, |o| o.insert("day", s("2026-10-25")));
    v.push(
        case(
            "day-in-utc",
            "a verifier that derives day in UTC instead of anchor_tz",
            "seq 6 (02:30Z, the 24th in New York): day set to the UTC date, entry_id re-derived",
            join(&l),
        )
        .problems(vec![(line(6), "day_mismatch"), (line(7), "prev_mismatch")]),
    );

    let mut l = bl.clone();
    l.insert(
        5,
        b"{\"schema\":\"darkflobi.gate/entry/v0\",\"seq\":5".to_vec(),
    );
    v.push(
        case(
            "unparsable-line",
            "a verifier that stops at the first bad line, or lets it break the chain",
            "a cut-off line inserted before seq 5",
            join(&l),
        )
        .problems(vec![(6, "unparsable")]),
    );

    let mut l = bl.clone();
    l.insert(5, b"{\"k\":\"\xff\"}".to_vec());
    v.push(
        case(
            "not-utf8",
            "a verifier that decodes lossily (U+FFFD) instead of refusing invalid UTF-8",
            "a line holding the byte FF inserted before seq 5",
            join(&l),
        )
        .problems(vec![(6, "unparsable")]),
    );

    let mut l = bl.clone();
    l.insert(5, b"[1,2]".to_vec());
    v.push(
        case(
            "not-object",
            "a verifier that takes any JSON value as an entry",
            "the line [1,2] inserted before seq 5",
            join(&l),
        )
        .problems(vec![(6, "not_object")]),
    );

    let mut l = bl.clone();
    let nest = "{\"a\":".repeat(1001) + "1" + &"}".repeat(1001);
    l.insert(5, nest.into_bytes());
    v.push(
        case(
            "nested-1001-deep",
            "a reader with no nesting limit (a 100k-deep line then exhausts its stack)",
            "an object nested 1001 deep inserted before seq 5",
            join(&l),
        )
        .problems(vec![(6, "unparsable")]),
    );

    let mut l = bl.clone();
    l.insert(5, vec![]);
    l.insert(9, vec![]);
    rewrite(&mut l, 12, false, |o| o.insert("decision", s("pass")));
    v.push(
        case(
            "blank-lines-counted",
            "a verifier that flags blank lines, or numbers lines without counting them",
            "blank lines before seqs 5 and 8; seq 10's decision rewritten (it is line 13)",
            join(&l),
        )
        .problems(vec![(13, "entry_id_mismatch")]),
    );

    let mut lower = Ledger::new("america/new_york", "2026-10-24T13:00:00Z");
    lower.push_with_day(
        "started",
        "2026-10-24T13:00:05Z",
        "2026-10-24",
        vec![("version", s("0.9.4"))],
    );
    v.push(case("bad-header-zone-case", "a verifier whose zone lookup is case-insensitive (the browser's Intl and the Rust tz database must agree on one spelling)",
        "a ledger whose header names america/new_york", lower.bytes())
        .problems(vec![(1, "bad_header")]));

    let mut link = Ledger::new("US/Eastern", "2026-10-24T13:00:00Z");
    link.push(
        "exec_scan",
        "2026-10-25T02:30:00Z",
        vec![("scanned", Value::Int(1)), ("flagged", Value::Int(0))],
    );
    v.push(
        case(
            "header-zone-link",
            "a verifier that knows only canonical zone names, not the tz database's links",
            "a ledger whose header names US/Eastern (a link to America/New_York)",
            link.bytes(),
        )
        .ok_head(link.head()),
    );

    let header_no_lf = bl[0].clone();
    v.push(
        case(
            "header-without-lf",
            "a verifier that reads an unterminated only line as the header",
            "the header alone, with no LF",
            header_no_lf,
        )
        .problems(vec![(1, "truncated_tail"), (1, "missing_header")]),
    );

    let mut l = bl.clone();
    l[0] = [b"\xef\xbb\xbf".as_slice(), &l[0]].concat();
    v.push(
        case(
            "byte-order-mark",
            "a reader that silently drops a UTF-8 BOM",
            "the header preceded by EF BB BF",
            join(&l),
        )
        .problems(vec![(1, "unparsable"), (1, "missing_header")]),
    );

    let mut l = bl.clone();
    l.drain(8..11);
    v.push(
        case(
            "withheld-list-out-of-order",
            "a verifier that needs the withheld list sorted by seq",
            "seqs 8, 9 and 10 removed and listed as 10, 8, 9",
            join(&l),
        )
        .withheld(vec![base.withheld(10), base.withheld(8), base.withheld(9)])
        .bridged(vec![8, 9, 10])
        .ok_head(base.head()),
    );

    // --- canonical-form traps -----------------------------------------------------------------
    let mut l = bl.clone();
    l[2] = replace_bytes(
        &l[2],
        "\"action\":\"send\",\"checked_sha256\"",
        "\"checked_sha256\"",
    );
    l[2] = replace_bytes(&l[2], "\"day\"", "\"action\":\"send\",\"day\"");
    v.push(case("key-order", "a verifier that re-derives digests but never compares the line's bytes to the canonical dump",
        "seq 2: key action moved after checked_sha256", join(&l))
        .problems(vec![(line(2), "not_canonical")]));

    let mut l = bl.clone();
    l[2] = replace_bytes(&l[2], "\"action\":\"send\"", "\"action\": \"send\"");
    v.push(
        case(
            "space-after-colon",
            "a verifier that parses and re-dumps without comparing bytes",
            "seq 2: a space after one colon",
            join(&l),
        )
        .problems(vec![(line(2), "not_canonical")]),
    );

    let slash = mini_with_detail("a/b");
    let mut l = slash.lines.clone();
    l[2] = replace_bytes(&l[2], "a/b", "a\\/b");
    v.push(
        case(
            "escaped-slash",
            "a dump that escapes / (as some JSON writers do)",
            "entry 2's detail written a\\/b",
            join(&l),
        )
        .problems(vec![(3, "not_canonical")]),
    );

    let ctl = mini_with_detail("x\u{1f}y");
    v.push(
        case(
            "control-char-lowercase-escape",
            "a dump that writes \\u001F in upper case or leaves U+001F raw",
            "entry 2's detail holds U+001F, written \\u001f",
            ctl.bytes(),
        )
        .ok_head(ctl.head()),
    );
    let mut l = ctl.lines.clone();
    l[2] = replace_bytes(&l[2], "\\u001f", "\\u001F");
    v.push(
        case(
            "control-char-uppercase-escape",
            "a reader that compares escapes case-insensitively",
            "the same line with \\u001F",
            join(&l),
        )
        .problems(vec![(3, "not_canonical")]),
    );

    let tab = mini_with_detail("a\tb");
    let mut l = tab.lines.clone();
    l[2] = replace_bytes(&l[2], "a\\tb", "a\\u0009b");
    v.push(
        case(
            "tab-long-escape",
            "a dump that writes \\u0009 where JSON's short form \\t is canonical",
            "entry 2's tab written \\u0009",
            join(&l),
        )
        .problems(vec![(3, "not_canonical")]),
    );

    let e = mini_with_detail("caf\u{e9}");
    let mut l = e.lines.clone();
    l[2] = replace_bytes(&l[2], "caf\u{e9}", "caf\\u00e9");
    v.push(
        case(
            "needless-u00e9",
            "an ASCII-only dump (\\u-escaping non-ASCII)",
            "entry 2's é written \\u00e9",
            join(&l),
        )
        .problems(vec![(3, "not_canonical")]),
    );

    let ls = mini_with_detail("a\u{2028}b");
    v.push(
        case(
            "raw-u2028-canonical",
            "a dump that escapes U+2028 (JavaScript-safe JSON writers do)",
            "entry 2's detail holds a raw U+2028",
            ls.bytes(),
        )
        .ok_head(ls.head()),
    );
    let mut l = ls.lines.clone();
    l[2] = replace_bytes(&l[2], "a\u{2028}b", "a\\u2028b");
    v.push(
        case(
            "escaped-u2028",
            "a reader that accepts the escaped form as canonical",
            "the same detail written \\u2028",
            join(&l),
        )
        .problems(vec![(3, "not_canonical")]),
    );

    let del = mini_with_detail("a\u{7f}b");
    v.push(
        case(
            "raw-del-canonical",
            "a dump that escapes DEL (U+007F), which JSON does not require",
            "entry 2's detail holds a raw DEL",
            del.bytes(),
        )
        .ok_head(del.head()),
    );

    let astral = mini_with_detail("\u{1F600}");
    let mut l = astral.lines.clone();
    l[2] = replace_bytes(&l[2], "\u{1F600}", "\\ud83d\\ude00");
    v.push(
        case(
            "escaped-surrogate-pair",
            "a reader that cannot join a surrogate pair, or calls the escaped pair canonical",
            "entry 2's U+1F600 written as an escaped surrogate pair",
            join(&l),
        )
        .problems(vec![(3, "not_canonical")]),
    );

    // --- values outside the admitted types ---------------------------------------------------
    for (name, raw, naive, catches) in [
        (
            "float-1.5",
            "1.5",
            1i64,
            "a reader that truncates fractions",
        ),
        (
            "float-2.0",
            "2.0",
            2,
            "a JCS dump that writes 2.0 as 2 and calls the line merely not canonical",
        ),
        (
            "exponent-1e2",
            "1e2",
            100,
            "a reader that reads 1e2 as the integer 100",
        ),
        (
            "int-2^53+1",
            "9007199254740993",
            9_007_199_254_740_992,
            "a reader that goes through f64 (2^53+1 becomes 2^53 and re-derives)",
        ),
        ("negative-zero", "-0", 0, "a reader that takes -0 as 0"),
    ] {
        v.push(case(name, catches, format!("entry 2's scanned written {raw}; entry_id is the digest a float-casting reader derives"),
            mini_with_raw_value(raw, Value::Int(naive)))
            .problems(vec![(3, "not_canonicalisable")]));
    }
    let mut big = Ledger::new(NY, "2026-10-24T13:00:00Z");
    big.push(
        "started",
        "2026-10-24T13:00:05Z",
        vec![("version", s("0.9.4"))],
    );
    big.push(
        "exec_scan",
        "2026-10-24T13:05:00Z",
        vec![
            ("scanned", Value::Int(1 << 53)),
            ("flagged", Value::Int(-(1 << 53))),
        ],
    );
    v.push(
        case(
            "int-2^53-admitted",
            "a reader that refuses the admitted bound ±2^53 itself",
            "entry 2 holds 2^53 and -2^53",
            big.bytes(),
        )
        .ok_head(big.head()),
    );

    let key = mini_with_detail("x");
    let mut l = key.lines.clone();
    l[2] = replace_bytes(&l[2], "\"detail\":\"x\"", "\"d\u{e9}tail\":\"x\"");
    v.push(
        case(
            "non-ascii-key",
            "a dump that sorts keys by UTF-16 or accepts non-ASCII keys",
            "entry 2's key detail spelled détail",
            join(&l),
        )
        .problems(vec![(3, "not_canonicalisable")]),
    );

    let sur = mini_with_detail("x");
    let mut l = sur.lines.clone();
    l[2] = replace_bytes(&l[2], "\"detail\":\"x\"", "\"detail\":\"\\ud800\"");
    v.push(
        case(
            "lone-surrogate",
            "a reader that replaces a lone surrogate with U+FFFD and hashes that",
            "entry 2's detail is \"\\ud800\"",
            join(&l),
        )
        .problems(vec![(3, "not_canonicalisable")]),
    );

    // --- days ---------------------------------------------------------------------------------
    let mut dst = Ledger::new(NY, "2026-03-07T12:00:00Z");
    for ts in [
        "2026-03-08T04:59:59Z",
        "2026-03-08T05:00:00Z",
        "2026-03-08T06:59:59Z",
        "2026-03-08T07:00:00Z",
        "2026-03-09T03:59:59Z",
        "2026-03-09T04:00:00Z",
        "2026-07-01T03:59:59Z",
        "2026-07-01T04:00:00Z",
    ] {
        dst.push(
            "exec_scan",
            ts,
            vec![("scanned", Value::Int(1)), ("flagged", Value::Int(0))],
        );
    }
    v.push(case("dst-spring-forward", "a verifier with a fixed -05:00 offset (it puts 2026-07-01T04:00:00Z on 30 June), or one that gets the 2026-03-08 change wrong",
        format!("entries across 2026-03-08 in New York; days {}", dst.days.join(",")), dst.bytes()).ok_head(dst.head()));
    let mut fall = Ledger::new(NY, "2026-10-31T12:00:00Z");
    for ts in [
        "2026-11-01T03:59:59Z",
        "2026-11-01T04:00:00Z",
        "2026-11-01T05:59:59Z",
        "2026-11-01T06:00:00Z",
        "2026-11-02T04:59:59Z",
        "2026-11-02T05:00:00Z",
    ] {
        fall.push(
            "exec_scan",
            ts,
            vec![("scanned", Value::Int(1)), ("flagged", Value::Int(0))],
        );
    }
    v.push(
        case(
            "dst-fall-back",
            "a verifier with a fixed -04:00 offset, or one that gets the 2026-11-01 change wrong",
            format!(
                "entries across 2026-11-01 in New York; days {}",
                fall.days.join(",")
            ),
            fall.bytes(),
        )
        .ok_head(fall.head()),
    );

    let mut leap = Ledger::new(NY, "2028-02-28T12:00:00Z");
    for ts in [
        "2028-02-29T12:00:00Z",
        "2028-03-01T04:59:59Z",
        "2028-03-01T05:00:00Z",
    ] {
        leap.push(
            "exec_scan",
            ts,
            vec![("scanned", Value::Int(1)), ("flagged", Value::Int(0))],
        );
    }
    v.push(
        case(
            "leap-day",
            "a calendar without 29 February 2028",
            format!("days {}", leap.days.join(",")),
            leap.bytes(),
        )
        .ok_head(leap.head()),
    );

    let mut kolkata = Ledger::new("Asia/Kolkata", "2026-11-08T12:00:00Z");
    for ts in ["2026-11-08T18:29:59Z", "2026-11-08T18:30:00Z"] {
        kolkata.push(
            "exec_scan",
            ts,
            vec![("scanned", Value::Int(1)), ("flagged", Value::Int(0))],
        );
    }
    v.push(
        case(
            "other-zone-kolkata",
            "a verifier that ignores anchor_tz (assumes New York) or whole-hour offsets",
            format!(
                "header zone Asia/Kolkata (+05:30); days {}",
                kolkata.days.join(",")
            ),
            kolkata.bytes(),
        )
        .ok_head(kolkata.head()),
    );
    let mut wrongk = Ledger::new("Asia/Kolkata", "2026-11-08T12:00:00Z");
    wrongk.push_with_day(
        "exec_scan",
        "2026-11-08T18:30:00Z",
        "2026-11-08",
        vec![("scanned", Value::Int(1)), ("flagged", Value::Int(0))],
    );
    v.push(
        case(
            "other-zone-day-wrong",
            "a verifier deriving days in New York (or UTC) whatever the header says",
            "header zone Asia/Kolkata; 18:30Z written as the UTC/New York date",
            wrongk.bytes(),
        )
        .problems(vec![(2, "day_mismatch")]),
    );

    // --- anchors ----------------------------------------------------------------------------------
    let post1 = (
        String::from("2026-10-24"),
        format!("gate anchor 2026-10-24 head {} seq 6", base.ids[5]),
    );
    let post2 = (
        String::from("2026-10-25"),
        format!("gate anchor 2026-10-25 head {} seq 13", base.ids[12]),
    );
    v.push(
        case(
            "anchors-agree",
            "an anchor check that rejects a correct post",
            "the base with both days' posts",
            base.bytes(),
        )
        .ok_head(base.head())
        .anchors(
            vec![post1.clone(), post2.clone()],
            vec![anchor_ok("2026-10-24"), anchor_ok("2026-10-25")],
        ),
    );

    let early = (
        String::from("2026-10-25"),
        format!("gate anchor 2026-10-25 head {} seq 11", base.ids[10]),
    );
    v.push(case("anchor-day-not-closed", "an anchor check that only looks up the entry at <n> (lines of that day after <n> are the docs/protocol.md#anchors check)",
        "a post for 2026-10-25 naming seq 11, though seqs 12 and 13 are of that day", base.bytes())
        .ok_head(base.head())
        .anchors(vec![early], vec![json!({"date": "2026-10-25", "ok": false, "format": "ok", "head": "ok", "day_closed": "fail", "ledger_line": "disagrees"})]));

    let wrong_head = (
        String::from("2026-10-24"),
        format!("gate anchor 2026-10-24 head {} seq 6", base.ids[4]),
    );
    v.push(case("anchor-wrong-head", "an anchor check that trusts the post's seq without comparing the digest",
        "a post for 2026-10-24 with seq 5's digest at seq 6", base.bytes())
        .ok_head(base.head())
        .anchors(vec![wrong_head], vec![json!({"date": "2026-10-24", "ok": false, "format": "ok", "head": "fail", "day_closed": "ok", "ledger_line": "disagrees"})]));

    let newline = (String::from("2026-10-24"), format!("{}\n", post1.1));
    let wrong_date = (String::from("2026-10-25"), post1.1.clone());
    v.push(case("anchor-format", "an anchor check that trims whitespace or ignores the file's date",
        "the 24th's post with a trailing newline; the same text filed as the 25th", base.bytes())
        .ok_head(base.head())
        .anchors(vec![newline, wrong_date], vec![
            json!({"date": "2026-10-24", "ok": false, "format": "fail", "head": "skipped", "day_closed": "skipped", "ledger_line": "skipped"}),
            json!({"date": "2026-10-25", "ok": false, "format": "fail", "head": "skipped", "day_closed": "skipped", "ledger_line": "skipped"}),
        ]));

    let mut l = bl.clone();
    l.remove(6);
    v.push(case("anchor-head-withheld", "an anchor check that calls a withheld head verified (it is the lab's word) or cannot check it at all",
        "seq 6 withheld; the 24th's post names it", join(&l))
        .withheld(vec![base.withheld(6)]).bridged(vec![6]).ok_head(base.head())
        .anchors(vec![post1.clone()], vec![json!({"date": "2026-10-24", "ok": true, "format": "ok", "head": "lab_word", "day_closed": "ok", "ledger_line": "agrees"})]));

    let zero = (
        String::from("2026-10-23"),
        format!("gate anchor 2026-10-23 head {} seq 0", base.header_digest),
    );
    v.push(case("anchor-seq-0-header-digest", "an anchor check that cannot post the head of a ledger with no line yet (seq 0 names the header digest)",
        "a post for 2026-10-23 naming seq 0 and the header digest", base.bytes())
        .ok_head(base.head())
        .anchors(vec![zero], vec![json!({"date": "2026-10-23", "ok": true, "format": "ok", "head": "ok", "day_closed": "ok", "ledger_line": "absent"})]));

    let future = (
        String::from("2026-10-26"),
        format!("gate anchor 2026-10-26 head {} seq 30", d(42)),
    );
    v.push(case("anchor-absent-seq-and-line", "an anchor check that passes a post naming a seq the ledger does not carry",
        "a post for 2026-10-26 naming seq 30; no anchor line for that date", base.bytes())
        .ok_head(base.head())
        .anchors(vec![future], vec![json!({"date": "2026-10-26", "ok": false, "format": "ok", "head": "absent", "day_closed": "ok", "ledger_line": "absent"})]));

    let mut l = bl.clone();
    rewrite(&mut l, 7, true, |o| {
        o.insert("anchor_text_sha256", s(&d(77)))
    });
    let new7 = core_id_of_line(&l[7]);
    rewrite(&mut l, 8, true, |o| o.insert("prev", s(&new7)));
    // Rechaining seq 8 changes its id; seq 9's prev then breaks. The anchor check is what we test.
    v.push(case("anchor-ledger-line-disagrees", "an anchor check that compares head and seq but not anchor_text_sha256",
        "seq 7 (the 24th's anchor line) carries another text digest, rechained through seq 8", join(&l))
        .problems(vec![(line(9), "prev_mismatch")])
        .anchors(vec![post1.clone()], vec![json!({"date": "2026-10-24", "ok": false, "format": "ok", "head": "ok", "day_closed": "ok", "ledger_line": "disagrees"})]));

    // --- posted heads: where the two verifiers disagreed (docs/verifier.md "The anchor checks") ----
    // Found by the differential fuzzing of the posts' checks (tests/testsuite/differential.rs).
    let huge = (
        String::from("2026-10-26"),
        format!(
            "gate anchor 2026-10-26 head {} seq 12345678901234567",
            d(42)
        ),
    );
    v.push(case("anchor-seq-beyond-16-digits", "a format check with no bound on the seq's digits (no ledger seq has more than 16)",
        "a post naming a 17-digit seq", base.bytes())
        .ok_head(base.head())
        .anchors(vec![huge], vec![json!({"date": "2026-10-26", "ok": false, "format": "fail", "head": "skipped", "day_closed": "skipped", "ledger_line": "skipped"})]));

    let no_id = |o: &mut Object<'static>| o.members.retain(|(k, _)| k != "entry_id");
    let mut l = bl.clone();
    rewrite(&mut l, 13, false, no_id);
    let closing_unstated = join(&l);
    v.push(case("anchor-head-line-states-no-entry-id", "an anchor check that skips a line stating no entry_id and so calls the posted seq absent",
        "seq 13 (the 25th's last line) states no entry_id; the 25th's post names it", closing_unstated.clone())
        .problems(vec![(line(13), "entry_id_mismatch")])
        .anchors(vec![post2.clone()], vec![json!({"date": "2026-10-25", "ok": false, "format": "ok", "head": "fail", "day_closed": "ok", "ledger_line": "agrees"})]));
    let before_last = (
        String::from("2026-10-25"),
        format!("gate anchor 2026-10-25 head {} seq 12", base.ids[11]),
    );
    v.push(case("anchor-day-closed-by-line-stating-no-entry-id", "an anchor check whose day-closed check skips a line stating no entry_id",
        "seq 13 (of the 25th) states no entry_id; a post for the 25th names seq 12", closing_unstated)
        .problems(vec![(line(13), "entry_id_mismatch")])
        .anchors(vec![before_last], vec![json!({"date": "2026-10-25", "ok": false, "format": "ok", "head": "ok", "day_closed": "fail", "ledger_line": "disagrees"})]));

    let mut l = bl.clone();
    rewrite(&mut l, 7, false, |o| {
        no_id(o);
        o.insert("anchor_head_seq", Value::Int(5));
    });
    v.push(case("anchor-line-stating-no-entry-id-is-read", "an anchor check that skips an anchor line stating no entry_id, so its disagreement is never seen",
        "seq 7 (the 24th's anchor line) states no entry_id and names seq 5", join(&l))
        .problems(vec![(line(7), "entry_id_mismatch"), (line(8), "prev_mismatch")])
        .anchors(vec![post1.clone()], vec![json!({"date": "2026-10-24", "ok": false, "format": "ok", "head": "ok", "day_closed": "ok", "ledger_line": "disagrees"})]));

    let mut l = bl.clone();
    rewrite(&mut l, 6, true, |o| {
        o.insert("timestamp", s("2026-10-24T22:00:01Z"))
    });
    v.push(case("anchor-head-published-and-withheld", "an anchor check that takes the withheld list's word for a seq the ledger publishes with another digest",
        "seq 6 published with another digest and also listed as withheld with the original; the 24th's post names the original", join(&l))
        .withheld(vec![base.withheld(6)])
        .problems(vec![(line(6), "withheld_conflict"), (line(7), "prev_mismatch")])
        .anchors(vec![post1.clone()], vec![json!({"date": "2026-10-24", "ok": false, "format": "ok", "head": "fail", "day_closed": "ok", "ledger_line": "agrees"})]));

    let mut l = bl.clone();
    let mut twin = vec![l[6].clone()];
    rewrite(&mut twin, 0, true, |o| {
        o.insert("timestamp", s("2026-10-24T22:00:01Z"))
    });
    l.insert(7, twin.remove(0));
    v.push(case("anchor-head-seq-stated-twice", "an anchor check that reads only the first (or any) of two lines stating the posted seq",
        "seq 6 stated by two lines with different digests; the 24th's post names the first", join(&l))
        .problems(vec![(line(7), "prev_mismatch"), (line(7), "seq_mismatch"), (line(8), "prev_mismatch")])
        .anchors(vec![post1], vec![json!({"date": "2026-10-24", "ok": false, "format": "ok", "head": "fail", "day_closed": "ok", "ledger_line": "agrees"})]));

    // --- issue 15: where the two verifiers disagreed (docs/verifier.md) --------------------------
    // Class 1: the fast path's depth. A chained, canonical line whose value nests exactly as deep
    // as the limit (the root object is depth 1) re-derives; one level more is unparsable even
    // when every chain field is right.
    for (name, depth, catches) in [
        (
            "nested-1000-deep-chained",
            1000usize,
            "a reader (or fast path) that refuses the admitted depth 1000",
        ),
        (
            "nested-1001-deep-chained",
            1001,
            "a fast path that counts the root object as depth 0 and lets a chained 1001-deep line re-derive",
        ),
    ] {
        let mut deep = Value::Int(1);
        for _ in 0..depth - 1 {
            deep = Value::Array(vec![deep]);
        }
        let mut l = Ledger::new(NY, "2026-10-24T13:00:00Z");
        l.push(
            "started",
            "2026-10-24T13:00:05Z",
            vec![("version", s("0.9.4"))],
        );
        l.push(
            "gate_not_wired",
            "2026-10-24T13:05:00Z",
            vec![("detail", deep)],
        );
        l.push(
            "gate_wired",
            "2026-10-24T13:06:00Z",
            vec![("detail", s("ok"))],
        );
        let c = case(
            name,
            catches,
            format!(
                "entry 2's detail nests {depth} deep counting the line's object; every digest chained"
            ),
            l.bytes(),
        );
        v.push(if depth == 1000 {
            c.ok_head(l.head())
        } else {
            c.problems(vec![
                (3, "unparsable"),
                (4, "prev_mismatch"),
                (4, "seq_mismatch"),
            ])
        });
    }

    // Class 2: a duplicate key with an out-of-order key between the copies.
    let mut l = bl.clone();
    l[5] = replace_bytes(&l[5], "{\"day\"", "{\"seq\":99,\"day\"");
    v.push(case("duplicate-key-out-of-order-between", "a reader that compares each key only with the one before it (it misses the second seq, keeps the first value 99, and breaks the chain)",
        "seq 5: \"seq\":99 written first, \"day\" (out of order) after it, the signed \"seq\":5 in its place", join(&l))
        .problems(vec![(line(5), "duplicate_key")]));
    let mut l = bl.clone();
    l.remove(7);
    l[7] = replace_bytes(&l[7], ",\"day\"", ",\"seq\":99,\"day\"");
    v.push(case("duplicate-key-seq-across-withheld", "a reader whose first value wins or that misses the duplicate: seq 99 is not bridged and seq 7 is called unreachable",
        "seq 7 withheld; the next line (seq 8) also carries \"seq\":99 before an out-of-order key", join(&l))
        .withheld(vec![base.withheld(7)]).bridged(vec![7])
        .problems(vec![(8, "duplicate_key")]));
    let mut keys = mini_with_detail("x");
    let many: String = (0..3000)
        .rev()
        .map(|k| format!("\"k{k:05}\":{k},"))
        .collect();
    keys.lines[2] = replace_bytes(
        &keys.lines[2],
        "{\"day\"",
        &format!("{{{many}\"k02999\":0,\"day\""),
    );
    v.push(case("duplicate-key-among-3000-descending", "a reader that only looks back one key (or a quadratic one that gives up): the first key is written again 3000 keys later",
        "entry 2 starts with 3000 keys in descending order, then the first of them again", join(&keys.lines))
        .problems(vec![(3, "duplicate_key"), (3, "entry_id_mismatch")]));

    // Class 3: two different lone surrogates are two keys.
    let sur = mini_with_detail("x");
    let mut l = sur.lines.clone();
    l[2] = replace_bytes(
        &l[2],
        "\"detail\":\"x\"",
        "\"\\ud800\":1,\"\\udc00\":2,\"detail\":\"x\"",
    );
    v.push(case("lone-surrogate-keys-differ", "a reader that turns every lone surrogate into U+FFFD before comparing keys (it calls two different keys a duplicate)",
        "entry 2 holds the keys \"\\ud800\" and \"\\udc00\"", join(&l))
        .problems(vec![(3, "not_canonicalisable")]));
    let mut l = sur.lines.clone();
    l[2] = replace_bytes(
        &l[2],
        "\"detail\":\"x\"",
        "\"\\ud800\":1,\"\\uD800\":2,\"detail\":\"x\"",
    );
    v.push(
        case(
            "lone-surrogate-key-twice",
            "a reader that compares escaped keys as written (\\ud800 and \\uD800 are one key)",
            "entry 2 holds the key \"\\ud800\" twice, spelled in two cases",
            join(&l),
        )
        .problems(vec![(3, "duplicate_key")]),
    );

    // Class 4: a dropped duplicate value outside the admitted types disables nothing.
    let mut l = bl.clone();
    l[5] = replace_bytes(&l[5], "\"flagged\":0,", "\"flagged\":1.5,\"flagged\":7,");
    v.push(case("duplicate-key-drops-a-float", "a verifier that skips the entry_id check because a dropped duplicate value was a float",
        "seq 5: \"flagged\":1.5 then \"flagged\":7 (the kept object is admitted; its digest is not the signed one)", join(&l))
        .problems(vec![(line(5), "duplicate_key"), (line(5), "entry_id_mismatch")]));
    let mut l = bl.clone();
    l[0] = replace_bytes(
        &l[0],
        "\"created\":\"2026-10-24T13:00:00Z\"",
        "\"created\":1.5,\"created\":\"2026-10-24T13:00:01Z\"",
    );
    v.push(case("header-duplicate-drops-a-float", "a verifier that derives no header digest (and so checks no first prev) because a dropped duplicate value was a float",
        "the header's created written 1.5 then a second later than signed", join(&l))
        .problems(vec![(1, "duplicate_key"), (2, "prev_mismatch")]));

    // Class 5: a stated entry_id holding a lone surrogate is still the string the next prev must be.
    let lone = mini_with_detail("x");
    let mut l = lone.lines.clone();
    l[2] = replace_bytes(&l[2], &lone.ids[1], "\\ud800");
    v.push(case("lone-surrogate-entry-id", "a verifier that treats a stated entry_id with a lone surrogate as absent, so the next prev goes unchecked",
        "entry 2's entry_id is \"\\ud800\"; entry 3 names the signed digest", join(&l))
        .problems(vec![(3, "not_canonicalisable"), (4, "prev_mismatch")]));
    let mut same = l.clone();
    same[3] = replace_bytes(&same[3], &lone.ids[1], "\\ud800");
    v.push(
        case(
            "lone-surrogate-prev-same",
            "a verifier that compares lone-surrogate strings after replacing them (or never)",
            "entry 2's entry_id and entry 3's prev are both \"\\ud800\"",
            join(&same),
        )
        .problems(vec![(3, "not_canonicalisable"), (4, "not_canonicalisable")]),
    );
    let mut other = l.clone();
    other[3] = replace_bytes(&other[3], &lone.ids[1], "\\udc00");
    v.push(case("lone-surrogate-prev-other", "a verifier that turns lone surrogates into U+FFFD before comparing (\\ud800 and \\udc00 would match)",
        "entry 2's entry_id is \"\\ud800\", entry 3's prev \"\\udc00\"", join(&other))
        .problems(vec![(3, "not_canonicalisable"), (4, "not_canonicalisable"), (4, "prev_mismatch")]));

    // Class 6: the last hours of year 9999 are in the zone, not at UTC.
    let mut end = Ledger::new(NY, "9999-12-30T12:00:00Z");
    for ts in [
        "9999-12-30T21:59:59Z",
        "9999-12-31T03:00:00Z",
        "9999-12-31T04:59:59Z",
        "9999-12-31T05:00:00Z",
        "9999-12-31T23:59:59Z",
    ] {
        end.push(
            "exec_scan",
            ts,
            vec![("scanned", Value::Int(1)), ("flagged", Value::Int(0))],
        );
    }
    v.push(case("days-at-the-end-of-year-9999", "a verifier that takes instants after 9999-12-30T22:00Z at UTC (the end of a tz library's range)",
        format!("New York entries on the last UTC day of 9999; days {}", end.days.join(",")), end.bytes())
        .ok_head(end.head()));
    let mut tokyo = Ledger::new("Asia/Tokyo", "9999-12-30T12:00:00Z");
    tokyo.push(
        "exec_scan",
        "9999-12-30T23:00:00Z",
        vec![("scanned", Value::Int(1)), ("flagged", Value::Int(0))],
    );
    tokyo.push_with_day(
        "exec_scan",
        "9999-12-31T15:00:00Z",
        "10000-01-01",
        vec![("scanned", Value::Int(1)), ("flagged", Value::Int(0))],
    );
    v.push(case("day-in-year-10000", "a calendar that writes a local date past 9999-12-31 as a day (a day is YYYY-MM-DD), or takes the last hours at UTC",
        format!("Tokyo: 9999-12-30T23:00Z is {}; 9999-12-31T15:00Z is 10000-01-01 there, stated so", tokyo.days[0]), tokyo.bytes())
        .problems(vec![(3, "day_mismatch")]));

    // Class 8: the withheld list, read as written (docs/verifier.md "The withheld list").
    let mut l = bl.clone();
    l.remove(7);
    let dropped7 = join(&l);
    let w7 = base.withheld(7);
    let id7 = w7["entry_id"].as_str().expect("id").to_owned();
    let day7 = w7["day"].as_str().expect("day").to_owned();
    let item = |seq: &str, day: &str, fields: &str| {
        format!(
            "[\n  {{\n    \"seq\": {seq},\n    \"entry_id\": \"{id7}\",\n    \"kind\": \"send\",\n    \"dest_class\": null,\n    \"day\": {day},\n    \"fields_flagged\": {fields},\n    \"reason\": \"identifier shape: nine_digits\"\n  }}\n]\n"
        )
    };
    let good_day = format!("\"{day7}\"");
    v.push(
        case(
            "withheld-list-pretty-null-dest",
            "a list reader that needs compact JSON or a dest_class string",
            "seq 7 withheld; the list pretty-printed as the build writes it, dest_class null",
            dropped7.clone(),
        )
        .withheld_bytes(&item("7", &good_day, "[\"reasons\"]"))
        .bridged(vec![7])
        .ok_head(base.head()),
    );
    for (name, seq, day, fields, catches) in [
        (
            "withheld-seq-2.0",
            "7.0",
            good_day.as_str(),
            "[]",
            "a list reader that takes 7.0 for the seq 7 (JSON.parse does)",
        ),
        (
            "withheld-seq-exponent",
            "7e0",
            good_day.as_str(),
            "[]",
            "a list reader that takes 7e0 for the seq 7",
        ),
        (
            "withheld-seq-past-2^53",
            "9007199254740993",
            good_day.as_str(),
            "[]",
            "a list reader that rounds a seq past 2^53 to 2^53 (JSON.parse does)",
        ),
        (
            "withheld-seq-string",
            "\"7\"",
            good_day.as_str(),
            "[]",
            "a list reader that coerces the string \"7\" to a seq",
        ),
        (
            "withheld-day-number",
            "7",
            "20261025",
            "[]",
            "a list reader that accepts a day that is not a string",
        ),
        (
            "withheld-day-no-such-date",
            "7",
            "\"2026-02-30\"",
            "[]",
            "a list reader that accepts any YYYY-MM-DD-shaped day",
        ),
        (
            "withheld-fields-null",
            "7",
            good_day.as_str(),
            "null",
            "a list reader that takes fields_flagged null as none",
        ),
        (
            "withheld-fields-not-strings",
            "7",
            good_day.as_str(),
            "[1]",
            "a list reader that accepts fields_flagged holding a number",
        ),
    ] {
        v.push(
            case(
                name,
                catches,
                format!(
                    "seq 7 withheld; the list writes seq {seq}, day {day}, fields_flagged {fields}"
                ),
                dropped7.clone(),
            )
            .withheld_bytes(&item(seq, day, fields))
            .withheld_refused(),
        );
    }
    let twice =
        item("7", &good_day, "[]").replacen("\"seq\": 7,", "\"seq\": 7,\n    \"seq\": 7,", 1);
    v.push(
        case(
            "withheld-field-twice",
            "a list reader that lets a field be written twice (JSON.parse keeps the last)",
            "seq 7 withheld; its item writes \"seq\": 7 twice",
            dropped7.clone(),
        )
        .withheld_bytes(&twice)
        .withheld_refused(),
    );
    let surrogate = item("7", &good_day, "[]").replacen("nine_digits", "\\ud800", 1);
    v.push(case("withheld-reason-lone-surrogate", "a list reader that accepts a lone surrogate (a ledger line holding one is refused; so is the list)",
        "seq 7 withheld; its reason is \"\\ud800\"", dropped7.clone())
        .withheld_bytes(&surrogate).withheld_refused());
    let max = item("9007199254740992", &good_day, "[]");
    v.push(case("withheld-seq-2^53", "a list reader that refuses the admitted bound 2^53 (it is unreachable here, not malformed)",
        "the base; seq 2^53 listed", base.bytes())
        .withheld_bytes(&max).problems(vec![(0, "withheld_unreachable")]));

    // Class 9: a gap crossed twice is bridged once.
    let mut l = bl.clone();
    l.remove(4); // seq 4
    let again3 = bl[3].clone();
    let again5 = bl[5].clone();
    l.insert(5, again5); // after seq 5 (now index 4): seq 3 again, then seq 5 again
    l.insert(5, again3);
    v.push(case("bridged-once", "a verifier that lists a seq in bridged each time a gap is crossed",
        "seq 4 withheld; after seq 5, seq 3 and seq 5 are written again (the gap at 4 is crossed twice)", join(&l))
        .withheld(vec![base.withheld(4)]).bridged(vec![4])
        .problems(vec![(6, "prev_mismatch"), (6, "seq_mismatch")]));

    // Class 10: days by the rules the binary carries. With tzdb 2026f, British Columbia keeps UTC-7
    // after 2026-11-01; ICU 2025c (Chromium's, Node's) goes back to UTC-8 and would put these
    // instants on the day before.
    let mut van = Ledger::new("America/Vancouver", "2026-10-31T12:00:00Z");
    for ts in [
        "2026-10-31T12:00:00Z",
        "2026-11-03T07:30:00Z",
        "2027-01-15T07:30:00Z",
        "2027-01-15T06:59:59Z",
    ] {
        van.push(
            "exec_scan",
            ts,
            vec![("scanned", Value::Int(1)), ("flagged", Value::Int(0))],
        );
    }
    v.push(case("tz-rules-vancouver-after-2026-11-01", "a verifier that derives days from the browser's own tz data (ICU 2025c puts 2026-11-03T07:30Z on 2026-11-02 in Vancouver) instead of the rules carried with the page",
        format!("Vancouver entries after 2026-11-01; days by tz database {}: {}", days::tzdb_version(), van.days.join(",")), van.bytes())
        .ok_head(van.head()));

    // Killed by mutation testing (cargo-mutants on the reader): an exponent with its sign, and
    // the escape of the backslash itself.
    v.push(case("exponent-signed", "a reader that mis-steps over the sign of an exponent (1E+2 is a number outside the admitted types, not a syntax error)",
        "entry 2's scanned written 1E+2; entry_id is the digest a float-casting reader derives",
        mini_with_raw_value("1E+2", Value::Int(100)))
        .problems(vec![(3, "not_canonicalisable")]));
    let backslash = mini_with_detail("C:\\gate\\log \"quoted\"");
    v.push(case("escaped-backslash-and-quote-canonical", "a reader that refuses or drops the escapes \\\\ and \\\" (they are the canonical form of a backslash and a quote)",
        "entry 2's detail holds backslashes and quotes, written \\\\ and \\\"", backslash.bytes())
        .ok_head(backslash.head()));

    let sur = mini_with_detail("x");
    let mut l = sur.lines.clone();
    l[2] = replace_bytes(
        &l[2],
        "\"detail\":\"x\"",
        "\"detail\":\"\\/\\\"\\\\\\b\\f\\n\\r\\t\\u0041\\ud800\"",
    );
    v.push(case("lone-surrogate-among-every-escape", "a reader that stumbles (or panics) on the other escapes of a string holding a lone surrogate",
        "entry 2's detail is \"\\/\\\"\\\\\\b\\f\\n\\r\\t\\u0041\\ud800\"", join(&l))
        .problems(vec![(3, "not_canonicalisable")]));

    v
}

fn core_id_of_line(line: &[u8]) -> String {
    let parsed = canonical::parse(line).expect("parses");
    core_id(parsed.value.as_object().expect("object"))
}

/// The generator's command line (`cargo run --example gen-vectors -- DIR [--check]`); `args`
/// without the program name.
pub fn main(mut args: impl Iterator<Item = String>) {
    let dir = PathBuf::from(args.next().unwrap_or_else(|| "vectors".into()));
    let check = args.next().as_deref() == Some("--check");

    let base = base();
    let base_bytes = base.bytes();
    let cases = cases(&base);
    let mut names = std::collections::BTreeSet::new();
    for c in &cases {
        assert!(names.insert(c.name), "duplicate case name {}", c.name);
    }
    let doc = json!({
        "format": "exhibit-vectors/v1",
        "base": "base.jsonl",
        "base_sha256": Digest::of(&base_bytes).to_string(),
        "cases": cases.iter().map(Case::to_json).collect::<Vec<_>>(),
    });
    let mut vectors = serde_json::to_vec_pretty(&doc).expect("json");
    vectors.push(b'\n');

    let files = [
        ("base.jsonl", base_bytes),
        ("vectors.json", vectors),
        ("tree.json", crate::tree_vectors::document()),
        ("excerpt.json", crate::excerpt_vectors::document()),
        ("ots.json", crate::ots_vectors::document()),
    ];
    let mut stale = false;
    for (name, bytes) in &files {
        let path = dir.join(name);
        if check {
            if std::fs::read(&path).ok().as_deref() != Some(bytes.as_slice()) {
                eprintln!(
                    "{}: differs from what gen-vectors writes; run `cargo run --example gen-vectors -- {}`",
                    path.display(),
                    dir.display()
                );
                stale = true;
            }
        } else {
            std::fs::create_dir_all(&dir).expect("create vectors dir");
            std::fs::write(&path, bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        }
    }
    if stale {
        std::process::exit(1);
    }
    eprintln!("{} cases over a {}-entry base", cases.len(), base.ids.len());
}
