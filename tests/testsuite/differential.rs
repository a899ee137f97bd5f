//! Differential fuzzing of the two verifiers (issue 15; docs/verifier.md "Two verifiers, one
//! answer"). Seeds are the ledgers of `vectors/vectors.json` and ledgers written around local
//! midnights and offset changes in every zone of the tz database; each case applies a few of the
//! mutations that found disagreements before (byte flips, key reorders and duplicates, number
//! forms, escapes, lone surrogates, deep nesting, line edits, withheld runs and withheld-list
//! mutations), often re-chained so that each anomaly stands alone. Every case is answered by:
//!
//! - the Rust verifier's fast path (`verify_bytes`, what `exhibit verify` runs) and its full
//!   reader (`verify_bytes_full`), which must agree exactly;
//! - `assets/verify.js` under node, given the bytes and the anchor zone's rules as the page is
//!   (`tests/js/differential-runner.cjs`, one node process per batch).
//!
//! Any difference in ok, entries, head, bridged, the (line, code) list, or the refusal of the
//! withheld list fails the test; each disagreeing case is written to
//! `target/differential/<seed>-<case>.json` (ledger, list, rules, both answers) so that it can
//! become a vector. The seed is fixed; `FUZZ_CASES` (default 5000) and `FUZZ_SEED` change the run:
//!
//!     FUZZ_CASES=200000 cargo test --test testsuite differential:: -- --nocapture

use exhibit_protocol::Digest;
use std::collections::BTreeSet;
use std::io::Write;
use std::path::PathBuf;

use exhibit_protocol::anchors;
use exhibit_protocol::canonical::{self, Object, Value};
use exhibit_protocol::days::{self, DayDeriver};
use exhibit_protocol::verify::{self, Withheld};
use serde_json::{Value as J, json};

use crate::common;

const BATCH: usize = 2000;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// splitmix64: small, fixed, and the same on every machine.
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
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// One input to both verifiers.
#[derive(Clone)]
struct Input {
    lines: Vec<Vec<u8>>,
    /// The file ends in LF after the last line.
    final_lf: bool,
    withheld: Option<Vec<u8>>,
    /// Posted heads: (the date of the post's file name, the post's exact bytes).
    posts: Vec<(String, Vec<u8>)>,
    what: Vec<String>,
}

impl Input {
    fn bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        for (i, l) in self.lines.iter().enumerate() {
            out.extend_from_slice(l);
            if i + 1 < self.lines.len() || self.final_lf {
                out.push(b'\n');
            }
        }
        out
    }
}

fn split(bytes: &[u8]) -> (Vec<Vec<u8>>, bool) {
    let final_lf = bytes.last() == Some(&b'\n');
    let mut lines: Vec<Vec<u8>> = bytes.split(|&b| b == b'\n').map(<[u8]>::to_vec).collect();
    if final_lf || bytes.is_empty() {
        lines.pop();
    }
    (lines, final_lf || bytes.is_empty())
}

// ------------------------------------------------------------------------------------------
// Seeds

fn vector_seeds() -> Vec<Input> {
    let text = std::fs::read_to_string(root().join("vectors/vectors.json")).unwrap();
    let doc: J = serde_json::from_str(&text).unwrap();
    let mut seeds = Vec::new();
    for case in doc["cases"].as_array().unwrap() {
        let (lines, final_lf) = split(&common::unb64(case["ledger_b64"].as_str().unwrap()));
        let withheld = match (case.get("withheld_b64"), case.get("withheld")) {
            (Some(b), _) => Some(common::unb64(b.as_str().unwrap())),
            (None, Some(list)) => Some(serde_json::to_vec_pretty(list).unwrap()),
            _ => None,
        };
        let posts = case["anchors"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|a| {
                let text = a["text"].as_str().unwrap().as_bytes().to_vec();
                (a["date"].as_str().unwrap().to_owned(), text)
            })
            .collect();
        seeds.push(Input {
            lines,
            final_lf,
            withheld,
            posts,
            what: vec![format!("vector {}", case["name"].as_str().unwrap())],
        });
    }
    seeds
}

fn dump(o: &Object<'_>, except: Option<&str>) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    canonical::dump_object_except(o, except, &mut out).ok()?;
    Some(out)
}

/// A chained ledger in `zone` whose entries sit near local midnights and near the zone's offset
/// changes, anywhere from year 1 to 9999; each stated day is the one the tz database gives, or
/// (now and then) one off.
fn midnight_seed(rng: &mut Rng, zones: &[String]) -> Input {
    let zone_name = rng.pick(zones).clone();
    let zone = days::zone(&zone_name).expect("listed zones exist");
    let mut deriver = DayDeriver::new(zone.clone());
    let year = match rng.below(10) {
        0 => 1 + rng.below(1900) as i64,
        1 => 9990 + rng.below(10) as i64,
        2..=4 => 2025 + rng.below(4) as i64,
        _ => 1900 + rng.below(200) as i64,
    };
    let mut instants = Vec::new();
    let start_day = days::days_from_civil(year, 1 + rng.below(12) as i64, 1 + rng.below(28) as i64);
    for k in 0..4 {
        let midnight = (start_day + k) * 86_400;
        let local_midnight = midnight - deriver.offset_at(midnight);
        let delta = *rng.pick(&[-3601i64, -3600, -1, 0, 1, 59, 3599, 3600, 86_399]);
        instants.push(local_midnight + delta);
    }
    // The zone's next offset changes (from the rules the page would carry), to the second.
    let from = start_day * 86_400;
    if let Some(rules) = days::TzRules::for_span(&zone_name, from, from + 2 * 366 * 86_400) {
        for &(at, _) in rules.offsets.iter().skip(1).take(2) {
            for d in [-1i64, 0, 1, 3600] {
                instants.push(at + d);
            }
        }
    }
    let max = days::parse_timestamp("9999-12-31T23:59:59Z").unwrap();
    let min = days::parse_timestamp("0001-01-01T00:00:00Z").unwrap();
    instants.retain(|&t| (min..=max).contains(&t));
    instants.sort_unstable();
    let mut header = Object::default();
    header.insert("anchor_tz", Value::str(zone_name.clone()));
    header.insert("schema", Value::str(verify::HEADER_SCHEMA));
    let header_bytes = dump(&header, None).unwrap();
    let mut domain = b"darkflobi.gate/log/v0\n".to_vec();
    domain.extend_from_slice(&header_bytes);
    let mut prev = Digest::of(&domain).to_string();
    let mut lines = vec![header_bytes];
    for (i, &t) in instants.iter().enumerate() {
        let mut day = days::civil_from_days(deriver.day_number(t));
        if day.len() != 10 || rng.chance(15) {
            day = days::civil_from_days(deriver.day_number(t) + *rng.pick(&[-1i64, 1]));
        }
        let mut o = Object::default();
        o.insert("schema", Value::str(verify::ENTRY_SCHEMA));
        o.insert("seq", Value::Int(i as i64 + 1));
        o.insert("prev", Value::str(prev.clone()));
        o.insert("kind", Value::str("exec_scan"));
        o.insert("timestamp", Value::str(timestamp_of(t)));
        o.insert("day", Value::str(day));
        let id = Digest::of(&dump(&o, None).unwrap()).to_string();
        o.insert("entry_id", Value::str(id.clone()));
        lines.push(dump(&o, None).unwrap());
        prev = id;
    }
    Input {
        lines,
        final_lf: true,
        withheld: None,
        posts: Vec::new(),
        what: vec![format!("midnights in {zone_name} from {year}")],
    }
}

fn timestamp_of(t: i64) -> String {
    let day = days::civil_from_days(t.div_euclid(86_400));
    let s = t.rem_euclid(86_400);
    format!("{day}T{:02}:{:02}:{:02}Z", s / 3600, s / 60 % 60, s % 60)
}

// ------------------------------------------------------------------------------------------
// Mutations

/// A member-order-preserving writer: the canonical form of each value, members as given.
fn write_members(members: &[(String, Vec<u8>)]) -> Vec<u8> {
    let mut out = vec![b'{'];
    for (i, (k, v)) in members.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(&canonical::to_canonical(&Value::str(k.clone())).unwrap());
        out.push(b':');
        out.extend_from_slice(v);
    }
    out.push(b'}');
    out
}

/// The members of an admitted object line, each value dumped.
fn members_of(line: &[u8]) -> Option<Vec<(String, Vec<u8>)>> {
    let parsed = canonical::parse(line).ok()?;
    let o = parsed.value.as_object()?;
    o.members
        .iter()
        .map(|(k, v)| Some((k.to_string(), canonical::to_canonical(v).ok()?)))
        .collect()
}

/// Byte offsets inside JSON strings of a line (between the quotes, not on an escape).
fn string_positions(line: &[u8]) -> Vec<usize> {
    let mut out = Vec::new();
    let (mut inside, mut i) = (false, 0);
    while i < line.len() {
        match (inside, line[i]) {
            (false, b'"') => inside = true,
            (true, b'"') => inside = false,
            (true, b'\\') => {
                i += 2;
                continue;
            }
            (true, _) => out.push(i),
            _ => {}
        }
        i += 1;
    }
    out
}

/// Byte ranges of the integers of a line (outside strings).
fn integer_ranges(line: &[u8]) -> Vec<(usize, usize)> {
    let inside: BTreeSet<usize> = string_positions(line).into_iter().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < line.len() {
        if !inside.contains(&i)
            && (line[i].is_ascii_digit() || line[i] == b'-')
            && i > 0
            && matches!(line[i - 1], b':' | b'[' | b',')
        {
            let start = i;
            i += 1;
            while i < line.len() && line[i].is_ascii_digit() {
                i += 1;
            }
            out.push((start, i));
        } else {
            i += 1;
        }
    }
    out
}

fn entry_index(rng: &mut Rng, input: &Input) -> Option<usize> {
    (input.lines.len() > 1).then(|| 1 + rng.below(input.lines.len() - 1))
}

/// Applies one mutation; returns the index of the line it touched (for re-chaining).
fn mutate(rng: &mut Rng, input: &mut Input, zones: &[String]) -> Option<usize> {
    let kind = rng.below(17);
    let n = input.lines.len();
    if n == 0 {
        input.lines.push(b"{}".to_vec());
        return None;
    }
    let li = if rng.chance(10) {
        0
    } else {
        entry_index(rng, input).unwrap_or(0)
    };
    let line = input.lines[li].clone();
    let mut note = |s: String| input.what.push(s);
    let new_line: Option<Vec<u8>> = match kind {
        0 | 1 => {
            // byte flip
            if line.is_empty() {
                None
            } else {
                let mut l = line.clone();
                let at = rng.below(l.len());
                let mask = if rng.chance(50) {
                    1u8 << rng.below(8)
                } else {
                    (rng.next() as u8).max(1)
                };
                l[at] ^= mask;
                note(format!("line {}: byte {at} ^ {mask:#04x}", li + 1));
                Some(l)
            }
        }
        2 => members_of(&line).filter(|m| m.len() > 1).map(|mut m| {
            // key reorder
            let (a, b) = (rng.below(m.len()), rng.below(m.len()));
            m.swap(a, b);
            note(format!("line {}: members {a} and {b} swapped", li + 1));
            write_members(&m)
        }),
        3 | 4 => members_of(&line).filter(|m| !m.is_empty()).map(|mut m| {
            // duplicate key, same or another value, anywhere
            let src = rng.below(m.len());
            let key = m[src].0.clone();
            let value = match rng.below(4) {
                0 => m[rng.below(m.len())].1.clone(),
                1 => b"1.5".to_vec(),
                2 => b"\"\\ud800\"".to_vec(),
                _ => m[src].1.clone(),
            };
            let at = rng.below(m.len() + 1);
            m.insert(at, (key.clone(), value));
            if rng.chance(50) && m.len() > 2 {
                // an out-of-order key before the copy
                let (a, b) = (rng.below(at.max(1)), rng.below(m.len()));
                m.swap(a, b);
            }
            note(format!("line {}: key {key:?} written twice", li + 1));
            write_members(&m)
        }),
        5 => {
            // number forms
            let ranges = integer_ranges(&line);
            (!ranges.is_empty()).then(|| {
                let (s, e) = *rng.pick(&ranges);
                let digits = String::from_utf8_lossy(&line[s..e]).into_owned();
                let form = match rng.below(10) {
                    0 => format!("{digits}.0"),
                    1 => format!("{digits}e0"),
                    2 => "-0".to_string(),
                    3 => "9007199254740993".to_string(),
                    4 => "9007199254740992".to_string(),
                    5 => "-9007199254740992".to_string(),
                    6 => format!("0{digits}"),
                    7 => "1E400".to_string(),
                    8 => format!("{digits}.5"),
                    _ => "-9007199254740993".to_string(),
                };
                note(format!(
                    "line {}: the number {digits} written {form}",
                    li + 1
                ));
                [&line[..s], form.as_bytes(), &line[e..]].concat()
            })
        }
        6 | 7 => {
            // escapes and lone surrogates inside a string (keys, entry_id and prev included)
            let spots = string_positions(&line);
            (!spots.is_empty()).then(|| {
                let at = *rng.pick(&spots);
                let c = line[at];
                let with: Vec<u8> = match rng.below(9) {
                    0 => format!("\\u{:04x}", c).into_bytes(),
                    1 => format!("\\u{:04X}", c).into_bytes(),
                    2 => b"\\/".to_vec(),
                    3 => b"\\ud800".to_vec(),
                    4 => b"\\udc00".to_vec(),
                    5 => b"\\uDBFF".to_vec(),
                    6 => b"\\ud83d\\ude00".to_vec(),
                    7 => b"\\u001f".to_vec(),
                    _ => b"\\t".to_vec(),
                };
                note(format!(
                    "line {}: byte {at} written {}",
                    li + 1,
                    String::from_utf8_lossy(&with)
                ));
                let keep = if rng.chance(50) { at } else { at + 1 };
                [&line[..keep], &with, &line[at + 1..]].concat()
            })
        }
        8 => {
            // deep nesting: a last member nested around the limit (the root object is depth 1)
            (line.last() == Some(&b'}') && line.len() > 2).then(|| {
                let depth = *rng.pick(&[998usize, 999, 1000, 1001, 1002, 3000]);
                let (open, close) = if rng.chance(50) {
                    ("[", "]")
                } else {
                    ("{\"a\":", "}")
                };
                let deep = format!(
                    ",\"zz\":{}1{}}}",
                    open.repeat(depth - 1),
                    close.repeat(depth - 1)
                );
                note(format!("line {}: a member nested {depth} deep", li + 1));
                [&line[..line.len() - 1], deep.as_bytes()].concat()
            })
        }
        9 => {
            // remove, duplicate or swap lines
            let j = rng.below(n);
            match rng.below(3) {
                0 => {
                    input.lines.remove(j);
                    input.what.push(format!("line {} removed", j + 1));
                }
                1 => {
                    let copy = input.lines[j].clone();
                    let at = rng.below(n + 1);
                    input.lines.insert(at, copy);
                    input
                        .what
                        .push(format!("line {} copied before line {}", j + 1, at + 1));
                }
                _ => {
                    let k = rng.below(n);
                    input.lines.swap(j, k);
                    input
                        .what
                        .push(format!("lines {} and {} swapped", j + 1, k + 1));
                }
            }
            return Some(j.min(input.lines.len().saturating_sub(1)));
        }
        10 => {
            // blank line, CR, BOM, a non-object, a cut tail
            match rng.below(6) {
                0 => {
                    let at = rng.below(n + 1);
                    input.lines.insert(at, vec![]);
                    note(format!("a blank line before line {}", at + 1));
                    return None;
                }
                1 => {
                    let mut l = line.clone();
                    l.insert(rng.below(l.len() + 1), b'\r');
                    note(format!("line {}: a CR", li + 1));
                    Some(l)
                }
                2 => Some([b"\xef\xbb\xbf".as_slice(), &line].concat()),
                3 => Some(b"[1,2]".to_vec()),
                4 => {
                    input.final_lf = false;
                    note("no final LF".into());
                    return None;
                }
                _ => {
                    let mut l = line.clone();
                    l.truncate(rng.below(l.len() + 1));
                    input.final_lf = false;
                    let at = input.lines.len() - 1;
                    input.lines[at] = l;
                    note("the last line cut".into());
                    return None;
                }
            }
        }
        11 => {
            // the header's zone
            let zone: String = match rng.below(4) {
                0 => rng.pick(zones).clone(),
                1 => "America/Nowhere".into(),
                2 => "america/new_york".into(),
                _ => "Factory".into(),
            };
            if let Some(mut m) = members_of(&input.lines[0]) {
                let v = canonical::to_canonical(&Value::str(zone.clone())).unwrap();
                match m.iter_mut().find(|(k, _)| k == "anchor_tz") {
                    Some(member) => member.1 = v,
                    None => m.push(("anchor_tz".into(), v)),
                }
                m.sort();
                input.what.push(format!("header zone {zone}"));
                input.lines[0] = write_members(&m);
            }
            return Some(0);
        }
        12 => {
            // a field's value replaced: seq, prev, entry_id, timestamp or day
            members_of(&line).map(|mut m| {
                let key = rng
                    .pick(&["seq", "prev", "entry_id", "timestamp", "day", "schema"])
                    .to_string();
                let value: Vec<u8> = match rng.below(7) {
                    0 => b"null".to_vec(),
                    1 => b"7".to_vec(),
                    2 => b"\"2026-10-25\"".to_vec(),
                    3 => b"\"9999-12-31T23:59:59Z\"".to_vec(),
                    4 => b"\"0001-01-01T00:00:00Z\"".to_vec(),
                    5 => b"9007199254740992".to_vec(),
                    _ => b"[]".to_vec(),
                };
                match m.iter_mut().find(|(k, _)| *k == key) {
                    Some(member) => member.1 = value,
                    None => m.push((key.clone(), value)),
                }
                m.sort_by(|a, b| a.0.cmp(&b.0));
                input.what.push(format!("line {}: {key} replaced", li + 1));
                write_members(&m)
            })
        }
        _ => {
            // withheld-list mutations happen after re-chaining
            return None;
        }
    };
    if let Some(l) = new_line {
        input.lines[li] = l;
        Some(li)
    } else {
        None
    }
}

/// Re-derives the entry_id of line `from` (in place, keeping its written form) and of every
/// later canonical line, each naming the one before: so the anomaly at `from` stands alone.
fn rechain(input: &mut Input, from: usize) {
    let stated = |line: &[u8]| -> Option<String> {
        let p = canonical::parse(line).ok()?;
        p.value.as_object()?.get_str("entry_id").map(str::to_owned)
    };
    let mut prev: Option<String> = None;
    for i in from..input.lines.len() {
        let line = input.lines[i].clone();
        if i == 0 {
            continue;
        }
        let Ok(parsed) = canonical::parse(&line) else {
            continue;
        };
        let Some(o) = parsed.value.as_object() else {
            continue;
        };
        if i == from {
            if parsed.duplicate_key.is_none()
                && parsed.not_admitted.is_none()
                && let (Some(old), Some(core)) = (o.get_str("entry_id"), dump(o, Some("entry_id")))
            {
                let new = Digest::of(&core).to_string();
                let s = String::from_utf8_lossy(&line).into_owned();
                if s.contains(old) && !old.is_empty() {
                    input.lines[i] = s.replacen(old, &new, 1).into_bytes();
                }
            }
            prev = stated(&input.lines[i]);
            continue;
        }
        if canonical::scan_entry(&line).is_none() || prev.is_none() {
            prev = stated(&line);
            continue;
        }
        let mut o = o.clone();
        o.insert("prev", Value::str(prev.clone().unwrap()));
        let core = dump(&o, Some("entry_id")).expect("canonical lines dump");
        let id = Digest::of(&core).to_string();
        o.insert("entry_id", Value::str(id.clone()));
        input.lines[i] = dump(&o, None).unwrap().to_vec();
        prev = Some(id);
    }
}

/// Withholds a run of readable entry lines (listing their seq, entry_id and day) and, now and
/// then, mutates the list's text.
fn withhold(rng: &mut Rng, input: &mut Input) {
    let n = input.lines.len();
    if n < 3 {
        return;
    }
    let start = 1 + rng.below(n - 1);
    let len = 1 + rng.below(3.min(n - start));
    let mut items = Vec::new();
    let mut kept = Vec::new();
    for (i, line) in input.lines.iter().enumerate() {
        let listed = (start..start + len).contains(&i)
            && canonical::parse(line)
                .ok()
                .and_then(|p| {
                    let o = p.value.as_object()?;
                    let seq = o.get_int("seq")?;
                    let id = o.get_str("entry_id")?.to_owned();
                    let day = o.get_str("day").map(str::to_owned);
                    items.push(
                        json!({"seq": seq, "entry_id": id, "kind": "send", "dest_class": "dm",
                    "day": day, "fields_flagged": ["reasons"], "reason": "identifier shape"}),
                    );
                    Some(())
                })
                .is_some();
        if !listed || rng.chance(5) {
            kept.push(line.clone());
        }
    }
    if items.is_empty() {
        return;
    }
    input
        .what
        .push(format!("lines {}..{} withheld", start + 1, start + len));
    input.lines = kept;
    let mut text = serde_json::to_string_pretty(&J::Array(items)).unwrap();
    if rng.chance(40) {
        let (from, to): (&str, String) = match rng.below(12) {
            0 => ("\"seq\": ", "\"seq\": 1.0e0+".into()),
            1 => ("\"day\": \"", "\"day\": 2\"".into()),
            2 => (
                "\"fields_flagged\": [",
                "\"fields_flagged\": null, \"x\": [".into(),
            ),
            3 => ("\"seq\": ", "\"seq\": 9007199254740993, \"seq\": ".into()),
            4 => ("\"kind\": ", "\"kind\": 5, \"k\": ".into()),
            5 => ("\"reason\": \"", "\"reason\": \"\\ud800".into()),
            6 => ("\"entry_id\": \"", "\"entry_id\": \"0".into()),
            7 => ("\"seq\": ", "\"seq\": 9007199254740992, \"q\": ".into()),
            8 => ("\"dest_class\": \"dm\"", "\"dest_class\": null".into()),
            9 => ("\"day\": \"", "\"day\": \"x".into()),
            10 => ("{", "{\"seq\": 1, \"entry_id\": \"ff\", \"z\": ".into()),
            _ => ("[", "[{\"seq\":2.0,\"entry_id\":\"00\"},".into()),
        };
        if let Some(at) = text.find(from) {
            text.replace_range(at..at + from.len(), &to);
            input.what.push(format!("the list: {from:?} -> {to:?}"));
        }
        // "1.0e0+" is not JSON: fix the shape into a number form the readers must judge.
        text = text.replace("1.0e0+", "1.0e0, \"w\": ");
    }
    input.withheld = Some(text.into_bytes());
}

fn make_case(rng: &mut Rng, seeds: &[Input], zones: &[String]) -> Input {
    let mut input = if rng.chance(25) {
        midnight_seed(rng, zones)
    } else {
        rng.pick(seeds).clone()
    };
    let rounds = 1 + rng.below(3);
    let mut first = None;
    for _ in 0..rounds {
        if rng.chance(15) {
            continue; // sometimes a seed alone (or a midnight ledger) is the case
        }
        if let Some(i) = mutate(rng, &mut input, zones) {
            first = Some(first.map_or(i, |f: usize| f.min(i)));
        }
    }
    if rng.chance(15)
        && let Some(i) = mutate_anchor_line(rng, &mut input)
    {
        first = Some(first.map_or(i, |f: usize| f.min(i)));
    }
    if let Some(i) = first
        && rng.chance(60)
    {
        rechain(&mut input, i);
        input.what.push("re-chained".into());
    }
    if rng.chance(25) {
        withhold(rng, &mut input);
    }
    if rng.chance(6) {
        unstate_entry_id(rng, &mut input);
    }
    input.posts = posts_for(rng, &input);
    input
}

// ------------------------------------------------------------------------------------------
// Posted heads (docs/verifier.md "The anchor checks")

/// What posts are made of: each readable entry's (seq, stated entry_id, day) in ledger order,
/// the dates of days and anchor lines, the header's digest, and the withheld list's items.
struct PostFacts {
    entries: Vec<(i64, Option<String>, Option<String>)>,
    dates: Vec<String>,
    header_digest: Option<String>,
    withheld: Vec<(i64, String)>,
}

fn post_facts(input: &Input) -> PostFacts {
    let mut facts = PostFacts {
        entries: Vec::new(),
        dates: Vec::new(),
        header_digest: None,
        withheld: Vec::new(),
    };
    for (i, line) in input.lines.iter().enumerate() {
        let Ok(parsed) = canonical::parse(line) else {
            continue;
        };
        let Some(o) = parsed.value.as_object() else {
            continue;
        };
        if i == 0 {
            let mut domain = b"darkflobi.gate/log/v0\n".to_vec();
            domain.extend_from_slice(line);
            facts.header_digest = Some(Digest::of(&domain).to_string());
            continue;
        }
        let day = o.get_str("day").map(str::to_owned);
        for date in [day.clone(), o.get_str("anchor_date").map(str::to_owned)]
            .into_iter()
            .flatten()
        {
            if !facts.dates.contains(&date) {
                facts.dates.push(date);
            }
        }
        if let Some(seq) = o.get_int("seq") {
            facts
                .entries
                .push((seq, o.get_str("entry_id").map(str::to_owned), day));
        }
    }
    let list: Option<J> = input
        .withheld
        .as_deref()
        .and_then(|w| serde_json::from_slice(w).ok());
    for item in list.as_ref().and_then(J::as_array).into_iter().flatten() {
        if let (Some(seq), Some(id)) = (item["seq"].as_i64(), item["entry_id"].as_str()) {
            facts.withheld.push((seq, id.to_owned()));
        }
    }
    facts
}

/// The post a gate would write for `date`: the greatest seq of that day and its first stated
/// entry_id, as `check_posts` reads them.
fn closing_post(facts: &PostFacts, date: &str) -> Option<(i64, String)> {
    let last = facts
        .entries
        .iter()
        .filter(|e| e.2.as_deref() == Some(date))
        .map(|e| e.0)
        .max()?;
    let id = facts.entries.iter().find(|e| e.0 == last)?.1.clone()?;
    Some((last, id))
}

fn random_hex(rng: &mut Rng) -> String {
    (0..4).map(|_| format!("{:016x}", rng.next())).collect()
}

/// Posts for a case: the seed's own (now and then), and up to three of: the post a gate would
/// write for a day, the header's digest at seq 0, an entry or a withheld item by its seq, a
/// day's seq before its last, anything; each now and then written wrong in one of the ways a
/// post can be (the format check is exact: docs/verifier.md "The anchor checks").
fn posts_for(rng: &mut Rng, input: &Input) -> Vec<(String, Vec<u8>)> {
    let facts = post_facts(input);
    let mut posts = if rng.chance(60) {
        input.posts.clone()
    } else {
        Vec::new()
    };
    for _ in 0..rng.below(4) {
        let date = if facts.dates.is_empty() || rng.chance(5) {
            "2026-10-24".to_owned()
        } else {
            rng.pick(&facts.dates).clone()
        };
        if posts.iter().any(|(d, _)| *d == date) {
            continue;
        }
        let some_entry = |rng: &mut Rng| {
            let e = rng.pick(&facts.entries);
            (e.0, e.1.clone().unwrap_or_default())
        };
        let (seq, head) = match rng.below(10) {
            _ if facts.entries.is_empty() => (rng.below(20) as i64, random_hex(rng)),
            0..=4 => closing_post(&facts, &date).unwrap_or_else(|| some_entry(rng)),
            5 => (0, facts.header_digest.clone().unwrap_or_default()),
            6 => some_entry(rng),
            7 if !facts.withheld.is_empty() => rng.pick(&facts.withheld).clone(),
            8 => closing_post(&facts, &date).map_or_else(
                || some_entry(rng),
                |(seq, _)| {
                    let before = facts.entries.iter().find(|e| e.0 == seq - 1);
                    (
                        seq - 1,
                        before.and_then(|e| e.1.clone()).unwrap_or_default(),
                    )
                },
            ),
            _ => (rng.below(40) as i64, random_hex(rng)),
        };
        let mut text = format!("gate anchor {date} head {head} seq {seq}");
        if rng.chance(25) {
            text = misformat_post(rng, text, &date);
        }
        posts.push((date, text.into_bytes()));
    }
    posts
}

/// One of the ways a posted text is almost right.
fn misformat_post(rng: &mut Rng, text: String, date: &str) -> String {
    let seq_at = text.rfind(" seq ").map_or(text.len(), |at| at + 5);
    let (front, seq) = text.split_at(seq_at);
    match rng.below(14) {
        0 => format!("{text}\n"),
        1 => format!("{text}\r\n"),
        2 => format!("{front}0{seq}"),
        3 => text
            .to_uppercase()
            .replace("GATE ANCHOR", "gate anchor")
            .replace(" HEAD ", " head ")
            .replace(" SEQ ", " seq "),
        4 => format!("{front}12345678901234567"),
        5 => format!("{front}9007199254740993"),
        6 => format!("{front}-{seq}"),
        7 => format!("{front}+{seq}"),
        8 => format!("{text}\u{e9}"),
        9 => text.replace(" head ", "  head "),
        10 => text.replacen(date, "2026-10-25", 1),
        11 => String::new(),
        12 => format!("{front}1e1"),
        _ => text.replacen(" head ", " head 0", 1),
    }
}

/// Adds an `anchor` line that agrees with the post a gate would write for one of the ledger's
/// days, and that post; or changes one field of an `anchor` line the ledger has. Returns the line
/// touched, for re-chaining.
fn mutate_anchor_line(rng: &mut Rng, input: &mut Input) -> Option<usize> {
    let anchors: Vec<usize> = (1..input.lines.len())
        .filter(|&i| {
            members_of(&input.lines[i])
                .is_some_and(|m| m.iter().any(|(k, v)| k == "kind" && v == b"\"anchor\""))
        })
        .collect();
    if anchors.is_empty() || rng.chance(40) {
        return add_anchor_line(rng, input);
    }
    let at = *rng.pick(&anchors);
    let mut members = members_of(&input.lines[at])?;
    let (key, value): (&str, Option<&[u8]>) = match rng.below(9) {
        0 => ("anchor_head_seq", Some(b"\"7\"")),
        1 => ("anchor_head_seq", Some(b"7.0")),
        2 => ("anchor_head_seq", Some(b"9007199254740993")),
        3 => ("anchor_head_seq", None),
        4 => ("anchor_head", None),
        5 => ("anchor_text_sha256", Some(b"5")),
        6 => ("anchor_date", Some(b"\"2026-10-25\"")),
        7 => ("anchor_date", Some(b"null")),
        _ => ("late", Some(b"\"no\"")),
    };
    let upper;
    let value = match (key, rng.chance(30)) {
        ("anchor_head", true) => {
            let old = members.iter().find(|(k, _)| k == "anchor_head")?;
            upper = old.1.to_ascii_uppercase();
            Some(upper.as_slice())
        }
        _ => value,
    };
    members.retain(|(k, _)| k != key);
    if let Some(v) = value {
        members.push((key.to_owned(), v.to_vec()));
        members.sort();
    }
    input.lines[at] = write_members(&members);
    input.what.push(format!(
        "anchor line {}: {key} -> {:?}",
        at + 1,
        value.map(String::from_utf8_lossy)
    ));
    Some(at)
}

fn add_anchor_line(rng: &mut Rng, input: &mut Input) -> Option<usize> {
    let facts = post_facts(input);
    if facts.dates.is_empty() {
        return None;
    }
    let date = rng.pick(&facts.dates).clone();
    let (seq, head) = closing_post(&facts, &date)?;
    let text = format!("gate anchor {date} head {head} seq {seq}");
    let last = input.lines.last()?;
    let o = canonical::parse(last).ok()?;
    let o = o.value.as_object()?;
    let mut a = Object::default();
    a.insert("schema", Value::str(verify::ENTRY_SCHEMA));
    a.insert("seq", Value::Int(o.get_int("seq")? + 1));
    a.insert("prev", Value::str(o.get_str("entry_id")?));
    a.insert("kind", Value::str("anchor"));
    a.insert("timestamp", Value::str(o.get_str("timestamp")?));
    a.insert("day", Value::str(o.get_str("day")?));
    a.insert("late", Value::Bool(false));
    a.insert("anchor_date", Value::str(date.clone()));
    a.insert("anchor_head", Value::str(head));
    a.insert("anchor_head_seq", Value::Int(seq));
    a.insert(
        "anchor_text_sha256",
        Value::str(Digest::of(text.as_bytes()).to_string()),
    );
    let id = Digest::of(&dump(&a, None)?).to_string();
    a.insert("entry_id", Value::str(id));
    input.lines.push(dump(&a, None)?);
    input.posts.retain(|(d, _)| *d != date);
    input.posts.push((date.clone(), text.into_bytes()));
    input.what.push(format!("an anchor line for {date} added"));
    Some(input.lines.len() - 1)
}

/// Takes the stated entry_id away from an entry line, or makes it a number: the line then names
/// no head, yet still has a seq and a day.
fn unstate_entry_id(rng: &mut Rng, input: &mut Input) {
    let Some(at) = entry_index(rng, input) else {
        return;
    };
    let Some(mut members) = members_of(&input.lines[at]) else {
        return;
    };
    let number = rng.chance(50);
    let before = members.len();
    members.retain(|(k, _)| k != "entry_id");
    if before == members.len() {
        return;
    }
    if number {
        members.push(("entry_id".into(), b"7".to_vec()));
        members.sort();
    }
    input.lines[at] = write_members(&members);
    input.what.push(format!(
        "line {}: entry_id {}",
        at + 1,
        if number { "a number" } else { "taken away" }
    ));
}

// ------------------------------------------------------------------------------------------
// Both verifiers

/// An answer in the terms both verifiers share.
#[derive(Debug, PartialEq)]
enum Answer {
    Refused,
    Report {
        ok: bool,
        entries: u64,
        head: Option<String>,
        bridged: Vec<i64>,
        problems: Vec<(u64, String)>,
        /// Each post's checks: "date ok format head day_closed ledger_line".
        anchors: Vec<String>,
    },
}

fn anchor_words(checks: &[anchors::AnchorCheck]) -> Vec<String> {
    checks
        .iter()
        .map(|c| {
            let (d, f, h) = (&c.date, c.format, c.head);
            format!("{d} {} {f} {h} {} {}", c.ok, c.day_closed, c.ledger_line)
        })
        .collect()
}

/// The posts' checks as `exhibit verify --anchors` makes them (the facts kept as the ledger
/// streams past) and over every entry's facts; the two must agree.
fn rust_anchor_checks(
    ledger: &[u8],
    list: &Withheld,
    posts: &[anchors::Post],
    kept_vs_all: &mut Vec<String>,
) -> Vec<String> {
    if posts.is_empty() {
        return Vec::new();
    }
    let mut kept = anchors::KeptFacts::for_posts(posts);
    let mut collect =
        |entry: &verify::Entry<'_>, _| kept.push(anchors::EntryFacts::of_entry(entry));
    let header = verify::verify_reader(ledger, list, verify::Pass::Entries(&mut collect))
        .ok()
        .and_then(|v| v.header)
        .and_then(|h| h.digest);
    let kept = kept.finish();
    let mut streamed = anchor_words(&anchors::check_posts(&kept, list, header, posts));
    streamed.extend(
        anchors::dates_without_post(&kept, posts)
            .into_iter()
            .map(|d| format!("unposted {d}")),
    );
    let all = anchors::verify_and_collect(ledger, list);
    let mut every = anchor_words(&anchors::check_posts(
        &all.facts,
        list,
        all.header_digest,
        posts,
    ));
    every.extend(
        anchors::dates_without_post(&all.facts, posts)
            .into_iter()
            .map(|d| format!("unposted {d}")),
    );
    if streamed != every {
        kept_vs_all.push(format!(
            "posts checked over the kept facts {streamed:?}\nover every entry's facts {every:?}"
        ));
    }
    streamed
}

fn rust_answer(
    ledger: &[u8],
    withheld: Option<&[u8]>,
    posts: &[(String, Vec<u8>)],
    fast_vs_full: &mut Vec<String>,
) -> Answer {
    let list = match withheld.map(Withheld::from_json) {
        None => Withheld::default(),
        Some(Ok(w)) => w,
        Some(Err(_)) => return Answer::Refused,
    };
    let fast = verify::verify_bytes(ledger, &list);
    let full = verify::verify_bytes_full(ledger, &list);
    if format!("{fast:?}") != format!("{full:?}") {
        fast_vs_full.push(format!("fast path {fast:?}\nfull reader {full:?}"));
    }
    let posts: Vec<anchors::Post> = posts
        .iter()
        .map(|(date, bytes)| anchors::Post {
            date: date.clone(),
            bytes: bytes.clone(),
        })
        .collect();
    let anchors = rust_anchor_checks(ledger, &list, &posts, fast_vs_full);
    Answer::Report {
        anchors,
        ok: full.ok,
        entries: full.entries,
        head: full.head.map(|d| d.to_string()),
        bridged: full.bridged,
        problems: full
            .problems
            .iter()
            .map(|p| (p.line, p.code.as_str().to_owned()))
            .collect(),
    }
}

/// verify.js's answer; the posts' checks as the light page makes them (a streaming reader that
/// kept only the watched seqs) must equal those over every line's record.
fn js_answer(j: &J) -> Result<Answer, String> {
    if j.get("refused").is_some() {
        return Ok(Answer::Refused);
    }
    if let Some(t) = j.get("threw") {
        return Err(format!("verify.js threw: {t}"));
    }
    let words = |key: &str| -> Vec<String> {
        j[key]
            .as_array()
            .into_iter()
            .flatten()
            .map(|a| {
                let a: Vec<String> = a
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|w| w.as_str().map_or_else(|| w.to_string(), str::to_owned))
                    .collect();
                a.join(" ")
            })
            .collect()
    };
    let (anchors, streamed) = (words("anchors"), words("anchors_stream"));
    if anchors != streamed {
        return Err(format!(
            "verify.js: the posts over every line {anchors:?}\nas the light page streams {streamed:?}"
        ));
    }
    Ok(Answer::Report {
        anchors,
        ok: j["ok"].as_bool().unwrap(),
        entries: j["entries"].as_u64().unwrap(),
        head: j["head"].as_str().map(str::to_owned),
        bridged: serde_json::from_value(j["bridged"].clone()).unwrap(),
        problems: j["problems"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| (p[0].as_u64().unwrap(), p[1].as_str().unwrap().to_owned()))
            .collect(),
    })
}

fn run_node(cases: &[J], dir: &std::path::Path, batch: usize) -> Vec<J> {
    let path = dir.join(format!("batch-{batch}.jsonl"));
    let mut f = std::fs::File::create(&path).unwrap();
    for c in cases {
        writeln!(f, "{c}").unwrap();
    }
    drop(f);
    let answers = common::node_json_lines("differential-runner.cjs", &path);
    assert_eq!(answers.len(), cases.len(), "node answered every case");
    std::fs::remove_file(&path).ok();
    answers
}

#[test]
fn both_verifiers_give_one_answer_on_mutated_ledgers() {
    let cases: usize = common::env_number("FUZZ_CASES", 5000);
    let seed: u64 = common::env_number("FUZZ_SEED", 15);
    let mut rng = Rng(seed);
    let seeds = vector_seeds();
    let zones: Vec<String> = {
        let mut z: Vec<String> = days::zone_names()
            .into_iter()
            .filter(|n| days::zone(n).is_some())
            .collect();
        z.sort();
        z
    };
    assert!(
        zones.len() > 500,
        "the tz database lists {} zones",
        zones.len()
    );
    let out_dir = root().join("target/differential");
    std::fs::create_dir_all(&out_dir).unwrap();
    let started = std::time::Instant::now();
    let mut failures = Vec::new();
    // What the cases came to, so a run that only ever says "unparsable" shows itself.
    let mut tally: std::collections::BTreeMap<String, usize> = Default::default();
    let mut done = 0;
    let mut batch_no = 0;
    while done < cases {
        let n = BATCH.min(cases - done);
        let inputs: Vec<Input> = (0..n)
            .map(|_| make_case(&mut rng, &seeds, &zones))
            .collect();
        let mut js_cases = Vec::with_capacity(n);
        let mut rust = Vec::with_capacity(n);
        for input in &inputs {
            let ledger = input.bytes();
            let rules = verify::tz_rules_for_ledger(&ledger);
            js_cases.push(json!({
                "ledger_b64": exhibit::published::encode::base64(&ledger),
                "withheld_b64": input.withheld.as_deref().map(exhibit::published::encode::base64),
                // What the page carries: the rules, or rules for no zone.
                "tz_rules": rules.map(|r| serde_json::to_value(r).unwrap()).unwrap_or(json!({
                    "tzdb": days::tzdb_version(), "zone": null, "from": 0, "until": 0, "offsets": [[0, 0]]})),
                "posts": input.posts.iter().map(|(date, text)| json!({
                    "date": date, "text_b64": exhibit::published::encode::base64(text)})).collect::<Vec<_>>(),
                // Where the light page's reader is handed its second piece.
                "cut": rng.below(ledger.len() + 1),
            }));
            let mut fast_vs_full = Vec::new();
            rust.push((
                rust_answer(
                    &ledger,
                    input.withheld.as_deref(),
                    &input.posts,
                    &mut fast_vs_full,
                ),
                fast_vs_full,
            ));
        }
        let js = run_node(&js_cases, &out_dir, batch_no);
        for (k, ((input, (r, fast_vs_full)), j)) in inputs.iter().zip(rust).zip(js).enumerate() {
            let id = done + k;
            if let Answer::Report { anchors, .. } = &r {
                for a in anchors {
                    let words: Vec<&str> = a.split(' ').skip(2).collect();
                    *tally
                        .entry(format!("post {}", words.join("/")))
                        .or_default() += 1;
                }
            }
            match &r {
                Answer::Refused => *tally.entry("withheld list refused".into()).or_default() += 1,
                Answer::Report { ok: true, .. } => *tally.entry("ok".into()).or_default() += 1,
                Answer::Report { problems, .. } => {
                    for code in problems.iter().map(|p| &p.1).collect::<BTreeSet<_>>() {
                        *tally.entry(code.clone()).or_default() += 1;
                    }
                }
            }
            let js = js_answer(&j);
            let mut why = fast_vs_full;
            match &js {
                Ok(a) if *a == r => {}
                Ok(a) => why.push(format!("Rust {r:?}\nJS   {a:?}")),
                Err(e) => why.push(e.clone()),
            }
            if !why.is_empty() {
                let file = out_dir.join(format!("{seed}-{id}.json"));
                let record = json!({
                    "what": input.what,
                    "ledger_b64": js_cases[k]["ledger_b64"],
                    "withheld_b64": js_cases[k]["withheld_b64"],
                    "tz_rules": js_cases[k]["tz_rules"],
                    "posts": js_cases[k]["posts"],
                    "rust": format!("{r:?}"),
                    "js": j,
                    "why": why,
                });
                std::fs::write(&file, serde_json::to_vec_pretty(&record).unwrap()).unwrap();
                failures.push(format!(
                    "case {id} ({}): {}\n  {}",
                    input.what.join("; "),
                    why.join("\n  "),
                    file.display()
                ));
            }
        }
        done += n;
        batch_no += 1;
        if cases > BATCH {
            eprintln!(
                "differential: {done} of {cases} cases, {} disagreement(s), {:.0} s",
                failures.len(),
                started.elapsed().as_secs_f64()
            );
        }
    }
    eprintln!(
        "differential: {cases} cases (seed {seed}) in {:.1} s, {} disagreement(s)",
        started.elapsed().as_secs_f64(),
        failures.len()
    );
    eprintln!("differential: cases by answer (a case counts once per code it has): {tally:?}");
    assert!(
        failures.is_empty(),
        "{} of {cases} cases disagree:\n{}",
        failures.len(),
        failures
            .iter()
            .take(20)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// The tree's two implementations on random chains (docs/tree.md): sizes across tile and index
/// block edges, random withheld seqs, lines of random lengths, and random digests, some shared
/// between lines and some repeated on one line. Every file of the tree must hash alike, and the
/// set of names must be the same. `TREE_FUZZ_CASES` (default 60) changes the run.
#[test]
fn the_two_trees_agree_on_random_chains() {
    use exhibit_testkit::tree_vectors::tree_files_of;
    let cases = common::env_number("TREE_FUZZ_CASES", 60usize);
    let mut rng = Rng(common::env_number("FUZZ_SEED", 0x7ee5_u64));
    let edges = [0u64, 1, 255, 256, 257, 1023, 1024, 1025, 2048, 4095, 16_384];
    let mut inputs = Vec::new();
    let mut expected = Vec::new();
    for i in 0..cases {
        let size = if i % 3 == 0 {
            *rng.pick(&edges) + rng.below(3) as u64
        } else {
            rng.below(5000) as u64
        };
        let withheld_pc = rng.below(40) as u64;
        let entries: Vec<Digest> = (0..size)
            .map(|_| Digest(random_hex(&mut rng).parse::<Digest>().unwrap().0))
            .collect();
        let mut lines = std::collections::BTreeMap::new();
        let mut digests = std::collections::BTreeMap::new();
        let pool: Vec<Digest> = (0..8)
            .map(|_| random_hex(&mut rng).parse().unwrap())
            .collect();
        for s in 1..=size {
            if rng.chance(withheld_pc) {
                continue;
            }
            let pad = "x".repeat(rng.below(40));
            lines.insert(s, format!("{{\"seq\":{s},\"p\":\"{pad}\"}}\n"));
            let mut ds = Vec::new();
            for _ in 0..rng.below(4) {
                ds.push(if rng.chance(30) {
                    *rng.pick(&pool)
                } else {
                    random_hex(&mut rng).parse().unwrap()
                });
            }
            if !ds.is_empty() && rng.chance(20) {
                ds.push(ds[0]);
            }
            digests.insert(s, ds);
        }
        let head = entries.last().copied().unwrap_or(Digest::of(b"header"));
        let (files, _) = tree_files_of(
            size,
            "fuzz.example/tree",
            &head,
            &|s| entries[(s - 1) as usize],
            &|s| lines.get(&s).cloned(),
            &|s| digests.get(&s).cloned().unwrap_or_default(),
        );
        expected.push(
            files
                .iter()
                .map(|(p, b)| (p.clone(), Digest::of(b).to_string()))
                .collect::<std::collections::BTreeMap<_, _>>(),
        );
        inputs.push(json!({
            "size": size,
            "origin": "fuzz.example/tree",
            "head": head.to_string(),
            "entries": entries.iter().map(Digest::to_string).collect::<Vec<_>>(),
            "lines": lines,
            "digests": digests.iter().map(|(s, d)| (s.to_string(), d.iter().map(Digest::to_string).collect::<Vec<_>>())).collect::<std::collections::BTreeMap<_, _>>(),
        }));
    }
    let dir = root().join("target/differential");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("tree-cases.jsonl");
    let mut f = std::fs::File::create(&path).unwrap();
    for i in &inputs {
        writeln!(f, "{i}").unwrap();
    }
    drop(f);
    let answers = common::node_json_lines("tree-differential-runner.cjs", &path);
    assert_eq!(answers.len(), inputs.len());
    let mut disagree = Vec::new();
    for (i, (want, got)) in expected.iter().zip(&answers).enumerate() {
        let got: std::collections::BTreeMap<String, String> = match got.get("files") {
            Some(J::Object(m)) => m
                .iter()
                .map(|(k, v)| (k.clone(), v.as_str().unwrap_or("").to_string()))
                .collect(),
            _ => {
                disagree.push(format!(
                    "case {i} (size {}): the page threw {got}",
                    inputs[i]["size"]
                ));
                continue;
            }
        };
        if &got != want {
            let differ: Vec<&String> = want
                .keys()
                .chain(got.keys())
                .filter(|k| want.get(*k) != got.get(*k))
                .take(5)
                .collect();
            disagree.push(format!("case {i} (size {}): {differ:?}", inputs[i]["size"]));
        }
    }
    assert!(
        disagree.is_empty(),
        "the two trees disagree ({} of {cases}); cases in {}:\n{}",
        disagree.len(),
        path.display(),
        disagree.join("\n")
    );
}

/// Pieces of the texts the excerpt fuzzing strings together: plain words, words that differ only
/// in case, trailers and near-trailers, markdown marks, `_`, decomposed and composed letters,
/// astral characters, and every kind of space JavaScript's `\s` has and some it has not.
const EXCERPT_PIECES: &[&str] = &[
    "gate",
    "Gate",
    "the",
    "message",
    "sent",
    "sent.",
    "12",
    "0042",
    "\u{b7}",
    "ledger",
    "café",
    "cafe\u{301}",
    "\u{212b}",
    "\u{fb01}",
    "\u{1f600}",
    "a_b",
    "_x_",
    "__",
    "_",
    "*",
    "**bold**",
    "`c`",
    "#",
    "> q",
    "[l](u)",
    "(",
    ")",
    "[",
    "]",
    "[gate: ",
    "[gate: 1 of 2 numerals bound \u{b7} ledger 7]",
    " \u{b7} ledger 9]",
    "[gate: x\n\u{b7} ledger 3]",
    "[gate: y \u{b7} ledger ]",
    "\u{b7} ledger 12a]",
    " ",
    "  ",
    "\t",
    "\n",
    "\r\n",
    "\r",
    "\u{a0}",
    "\u{85}",
    "\u{feff}",
    "\u{2028}",
    "\u{3000}",
    "\u{200b}",
    "\u{180e}",
    "\u{1680}",
    "\u{202f}",
    "\u{b}",
    "\u{c}",
];

/// The excerpt index's two implementations on random texts (docs/tree.md#excerpts): the words,
/// the keys winnowing keeps, the lookup key of an excerpt (a run of the text's words, or random
/// pieces) and its place must be the same. `EXCERPT_FUZZ_CASES` (default 400) changes the run.
#[test]
fn the_two_excerpt_indexes_agree_on_random_texts() {
    use exhibit_protocol::excerpt;
    let cases = common::env_number("EXCERPT_FUZZ_CASES", 400usize);
    let mut rng = Rng(common::env_number("FUZZ_SEED", 0xe7ce_u64));
    let mut inputs = Vec::new();
    let mut expected = Vec::new();
    for _ in 0..cases {
        let n = rng.below(60);
        let mut text = String::new();
        for _ in 0..n {
            let piece: &&str = rng.pick(EXCERPT_PIECES);
            text.push_str(piece);
            if rng.chance(60) {
                text.push(' ');
            }
        }
        let words = excerpt::words(&text);
        let ex = if !words.is_empty() && rng.chance(70) {
            let from = rng.below(words.len());
            let len = 1 + rng.below(words.len() - from);
            let sep = *rng.pick(&[" ", "\n", "  ", "\u{a0}", " ** "]);
            words[from..from + len].join(sep)
        } else {
            (0..rng.below(16))
                .map(|_| *rng.pick(EXCERPT_PIECES))
                .collect::<Vec<_>>()
                .join(" ")
        };
        expected.push(json!({
            "words": words,
            "kept": excerpt::winnowed(&excerpt::shingle_keys(&words)).iter().map(|k| format!("{k:016x}")).collect::<Vec<_>>(),
            "lookup": excerpt::lookup_key(&ex).map(|k| format!("{k:016x}")),
            "place": excerpt::place_in(&text, &ex),
            "rows": excerpt::rows_of_text(7, &text).iter().map(|r| format!("{:016x}:{:08x}", r.prefix, r.ctx)).collect::<Vec<_>>(),
            "ctx": excerpt::lookup(&ex).map(|l| [l.before.map(|b| format!("{b:04x}")), l.after.map(|a| format!("{a:04x}"))]),
        }));
        inputs.push(json!({"text": text, "excerpt": ex}));
    }
    let dir = root().join("target/differential");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("excerpt-cases.jsonl");
    let mut f = std::fs::File::create(&path).unwrap();
    for i in &inputs {
        writeln!(f, "{i}").unwrap();
    }
    drop(f);
    let answers = common::node_json_lines("excerpt-differential-runner.cjs", &path);
    assert_eq!(answers.len(), inputs.len());
    let disagree: Vec<String> = expected
        .iter()
        .zip(&answers)
        .enumerate()
        .filter(|(_, (want, got))| want != got)
        .take(5)
        .map(|(i, (want, got))| format!("case {i}: {}\n  rust {want}\n  page {got}", inputs[i]))
        .collect();
    assert!(
        disagree.is_empty(),
        "the two excerpt indexes disagree; cases in {}:\n{}",
        path.display(),
        disagree.join("\n")
    );
}

/// One random change of a proof for the OpenTimestamps fuzzing: a byte changed or set to a
/// tag, a run cut out, random bytes put in, a run copied elsewhere, another proof's tail
/// spliced on, the end cut, a header byte changed, or a fork of the whole tree put in.
fn mutate_proof(b: &mut Vec<u8>, other: &[u8], rng: &mut Rng) -> &'static str {
    const TAGS: [u8; 14] = [
        0x00, 0x08, 0xf0, 0xf1, 0xf2, 0xf3, 0x02, 0x03, 0x67, 0xff, 0x80, 0x7f, 0x20, 0x01,
    ];
    let h = exhibit_protocol::ots::HEADER_LEN.min(b.len());
    let at = h + rng.below(b.len() - h + 1);
    match rng.below(9) {
        0 if at < b.len() => {
            b[at] ^= 1 << rng.below(8);
            "bit flipped"
        }
        1 if at < b.len() => {
            b[at] = *rng.pick(&TAGS);
            "byte set to a tag"
        }
        2 => {
            let end = (at + 1 + rng.below(40)).min(b.len());
            b.drain(at..end);
            "run cut out"
        }
        3 => {
            let n = 1 + rng.below(12);
            let bytes: Vec<u8> = (0..n).map(|_| rng.next() as u8).collect();
            b.splice(at..at, bytes);
            "random bytes put in"
        }
        4 if b.len() > h + 2 => {
            let from = h + rng.below(b.len() - h - 1);
            let end = (from + 1 + rng.below(60)).min(b.len());
            let run = b[from..end].to_vec();
            b.splice(at..at, run);
            "run copied"
        }
        5 => {
            let from = exhibit_protocol::ots::HEADER_LEN.min(other.len());
            let from = from + rng.below(other.len() - from + 1);
            b.truncate(at);
            b.extend_from_slice(&other[from..]);
            "another proof's tail spliced on"
        }
        6 => {
            b.truncate(at);
            "end cut"
        }
        7 if !b.is_empty() => {
            let i = rng.below(h.max(1));
            b[i] = rng.next() as u8;
            "header byte changed"
        }
        _ => {
            // A fork of the whole body beside itself: `ff` + an op, then the tree again.
            let body = b[h..].to_vec();
            b.truncate(h);
            b.extend([0xff, *rng.pick(&[0x08, 0x02, 0x03, 0x67, 0xf2, 0xf3])]);
            b.extend_from_slice(&body);
            b.extend_from_slice(&body);
            "tree forked"
        }
    }
}

/// The two OpenTimestamps evaluators (docs/anchoring.md) on random changes of the real proofs
/// (tests/data/ots-examples): the Rust evaluator's answer (`exhibit_testkit::ots_vectors::answer`:
/// the digest and every attestation, or the problem's code) and verify.js's under node
/// (`tests/js/ots-differential-runner.cjs`) must be equal. Many changes leave a proof that still
/// evaluates, to other messages: the count of those is held above a floor, so the fuzzing reaches
/// past the first byte. `OTS_FUZZ_CASES` (default 4000) and `FUZZ_SEED` change the run.
#[test]
fn the_two_ots_evaluators_agree_on_changed_proofs() {
    use exhibit_testkit::ots_vectors::{answer, examples};
    let cases = common::env_number("OTS_FUZZ_CASES", 4000usize);
    let mut rng = Rng(common::env_number("FUZZ_SEED", 0x0757_u64));
    let proofs: Vec<Vec<u8>> = examples().into_iter().map(|(_, b)| b).collect();
    let mut inputs = Vec::new();
    let mut expected = Vec::new();
    for _ in 0..cases {
        let mut b = rng.pick(&proofs).clone();
        let other = rng.pick(&proofs).clone();
        let mut what = Vec::new();
        for _ in 0..1 + rng.below(3) {
            what.push(mutate_proof(&mut b, &other, &mut rng));
        }
        expected.push(answer(&b));
        inputs.push((b, what));
    }
    let dir = root().join("target/differential");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("ots-cases.jsonl");
    let mut f = std::fs::File::create(&path).unwrap();
    for (b, _) in &inputs {
        let hex: String = b.iter().map(|x| format!("{x:02x}")).collect();
        writeln!(f, "{}", json!({ "hex": hex })).unwrap();
    }
    drop(f);
    let answers = common::node_json_lines("ots-differential-runner.cjs", &path);
    assert_eq!(answers.len(), inputs.len());
    let mut disagree = Vec::new();
    for (i, (want, got)) in expected.iter().zip(&answers).enumerate() {
        if want != got {
            let file = dir.join(format!("ots-{i}.json"));
            let case = json!({"what": inputs[i].1, "rust": want, "js": got});
            std::fs::write(&file, serde_json::to_vec_pretty(&case).unwrap()).unwrap();
            disagree.push(format!(
                "case {i} ({}): {}",
                inputs[i].1.join(", "),
                file.display()
            ));
        }
    }
    assert!(
        disagree.is_empty(),
        "{} of {cases} disagree:\n{}",
        disagree.len(),
        disagree.join("\n")
    );
    let evaluated = expected
        .iter()
        .filter(|a| a.get("digest").is_some())
        .count();
    let bitcoin = expected
        .iter()
        .filter(|a| {
            a["attestations"]
                .as_array()
                .is_some_and(|v| v.iter().any(|x| x["kind"] == "bitcoin"))
        })
        .count();
    assert!(
        evaluated * 10 >= cases && bitcoin * 50 >= cases,
        "only {evaluated} changed proofs evaluated ({bitcoin} to a Bitcoin attestation) of {cases}"
    );
}
