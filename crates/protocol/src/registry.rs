//! The field registry and line withholding (docs/protocol.md#field-registry,
//! docs/protocol.md#withholding).
//!
//! Every field of every entry must be known — built in, or admitted by a person in
//! `exhibit.toml` `[fields.<kind>]` — before anything is published: a field nobody has read
//! might hold anything. Known fields are typed; every string outside digest, day and timestamp
//! fields is tested for an identifier's shape, and a hit withholds the line.

use crate::Digest;
use std::collections::BTreeMap;

use crate::canonical::{Object, Value};
use crate::days;
use crate::guard::{self, Context, Finding, IntegerField};

/// The destination classes the registry knows (the gate's `send` lines: a public group, a
/// group, a direct message, the canary chat). A withheld line's `dest_class` is published only
/// as one of these; any other value is published as `other` (docs/build.md#safety): a
/// free-text class could name the person written to.
pub const DEST_CLASSES: [&str; 4] = ["public", "group", "dm", "canary"];

/// A withheld line's `dest_class` as `withheld.json` carries it.
pub fn published_dest_class(value: Option<&str>) -> Option<String> {
    value.map(|c| {
        if DEST_CLASSES.contains(&c) {
            c.to_string()
        } else {
            "other".to_string()
        }
    })
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum FieldType {
    Digest,
    Text,
    Texts,
    Count,
    Counts,
    Bool,
    Day,
    Timestamp,
}

impl FieldType {
    pub fn parse(name: &str) -> Option<FieldType> {
        Some(match name {
            "digest" => FieldType::Digest,
            "text" => FieldType::Text,
            "texts" => FieldType::Texts,
            "count" => FieldType::Count,
            "counts" => FieldType::Counts,
            "bool" => FieldType::Bool,
            "day" => FieldType::Day,
            "timestamp" => FieldType::Timestamp,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            FieldType::Digest => "digest",
            FieldType::Text => "text",
            FieldType::Texts => "texts",
            FieldType::Count => "count",
            FieldType::Counts => "counts",
            FieldType::Bool => "bool",
            FieldType::Day => "day",
            FieldType::Timestamp => "timestamp",
        }
    }
}

/// The fields every entry carries beside its kind's own (docs/protocol.md#file-format, docs/protocol.md#chain), and their types.
const CHAIN_FIELDS: &[(&str, FieldType)] = &[
    ("schema", FieldType::Text),
    ("seq", FieldType::Count),
    ("prev", FieldType::Digest),
    ("kind", FieldType::Text),
    ("timestamp", FieldType::Timestamp),
    ("day", FieldType::Day),
    ("entry_id", FieldType::Digest),
    ("process", FieldType::Text),
];

/// docs/protocol.md#field-registry, kind by kind.
const BUILT_IN: &[(&str, &[(&str, FieldType)])] = {
    use FieldType::*;
    &[
        (
            "send",
            &[
                ("action", Text),
                ("decision", Text),
                ("dest_class", Text),
                ("dest_hash", Digest),
                ("draft_sha256", Digest),
                ("checked_sha256", Digest),
                ("stripped_sha256", Digest),
                ("sent_sha256", Digest),
                ("numerals", Counts),
                ("reasons", Texts),
            ],
        ),
        (
            "delivered",
            &[
                ("ref_seq", Count),
                ("status", Text),
                ("sent_sha256", Digest),
            ],
        ),
        ("started", &[("version", Text)]),
        (
            "anchor",
            &[
                ("anchor_date", Day),
                ("anchor_head", Digest),
                ("anchor_text_sha256", Digest),
                ("anchor_head_seq", Count),
                ("late", Bool),
            ],
        ),
        (
            "anchor_anomaly",
            &[
                ("anchor_date", Day),
                ("expected_head", Digest),
                ("found_head", Digest),
                ("detail", Text),
            ],
        ),
        ("pin_moved", &[("pin_from", Digest), ("pin_to", Digest)]),
        (
            "deleted",
            &[
                ("ref_seq", Count),
                ("sent_sha256", Digest),
                ("reason", Text),
            ],
        ),
        ("exec_scan", &[("scanned", Count), ("flagged", Count)]),
        ("gate_not_wired", &[("detail", Text)]),
        ("gate_wired", &[("detail", Text)]),
        ("lock_recovered", &[("detail", Text)]),
        (
            "head_repaired",
            &[("from_head", Digest), ("to_head", Digest), ("detail", Text)],
        ),
    ]
};

/// The header's fields (docs/protocol.md#file-format). `certifies` is the promise itself, a
/// sentence: it is exempt from the ledger's shape test (whitespace, a bare `@`) but goes through
/// the guard's public-text rules like any published prose (docs/protocol.md#withholding).
const HEADER_FIELDS: &[(&str, FieldType)] = &[
    ("anchor_tz", FieldType::Text),
    ("certifies", FieldType::Text),
    ("created", FieldType::Timestamp),
    ("schema", FieldType::Text),
];

/// The registry in force for one build: built in plus what `[fields]` admits.
#[derive(Debug, Clone)]
pub struct Registry {
    kinds: BTreeMap<String, BTreeMap<String, FieldType>>,
    header: BTreeMap<String, FieldType>,
}

/// What the registry says of one line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    Publish,
    /// Withheld, with the fields that tripped and why (names only, never the values).
    Withhold {
        fields_flagged: Vec<String>,
        reason: String,
    },
    /// A kind or field nobody has admitted: the whole build is refused until a person reads it.
    Unknown {
        kind: String,
        fields: Vec<String>,
    },
}

/// Why the fields an operator admitted (`[fields.<kind>]` in exhibit.toml) make no registry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RegistryError {
    /// The type name is not one of the registry's types.
    NotAType {
        kind: String,
        field: String,
        type_name: String,
    },
    /// A built-in field given another type.
    BuiltInRetyped {
        kind: String,
        field: String,
        built_in: &'static str,
    },
}

impl std::fmt::Display for RegistryError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RegistryError::NotAType {
                kind,
                field,
                type_name,
            } => write!(
                f,
                "[fields.{kind}] {field} = {type_name:?}: not a type (digest, text, count, bool, day, timestamp, texts, counts)"
            ),
            RegistryError::BuiltInRetyped {
                kind,
                field,
                built_in,
            } => write!(
                f,
                "[fields.{kind}] {field}: a built-in field of type {built_in}; it cannot be retyped"
            ),
        }
    }
}

impl std::error::Error for RegistryError {}

impl Registry {
    /// The built-in registry plus `admitted`: kind → field → type name (from `[fields.<kind>]`;
    /// `[fields.header]` admits header fields).
    pub fn new(
        admitted: &BTreeMap<String, BTreeMap<String, String>>,
    ) -> Result<Registry, RegistryError> {
        let mut kinds: BTreeMap<String, BTreeMap<String, FieldType>> = BUILT_IN
            .iter()
            .map(|(kind, fields)| {
                let mut map: BTreeMap<String, FieldType> = CHAIN_FIELDS
                    .iter()
                    .map(|(f, t)| (f.to_string(), *t))
                    .collect();
                map.extend(fields.iter().map(|(f, t)| (f.to_string(), *t)));
                (kind.to_string(), map)
            })
            .collect();
        let mut header: BTreeMap<String, FieldType> = HEADER_FIELDS
            .iter()
            .map(|(f, t)| (f.to_string(), *t))
            .collect();
        for (kind, fields) in admitted {
            for (field, type_name) in fields {
                let t = FieldType::parse(type_name).ok_or_else(|| RegistryError::NotAType {
                    kind: kind.clone(),
                    field: field.clone(),
                    type_name: type_name.clone(),
                })?;
                let target = if kind == "header" {
                    &mut header
                } else {
                    kinds.entry(kind.clone()).or_insert_with(|| {
                        CHAIN_FIELDS
                            .iter()
                            .map(|(f, t)| (f.to_string(), *t))
                            .collect()
                    })
                };
                if let Some(existing) = target.get(field)
                    && *existing != t
                    && is_built_in(kind, field)
                {
                    return Err(RegistryError::BuiltInRetyped {
                        kind: kind.clone(),
                        field: field.clone(),
                        built_in: existing.name(),
                    });
                }
                target.insert(field.clone(), t);
            }
        }
        Ok(Registry { kinds, header })
    }

    /// Judges one entry (docs/protocol.md#withholding).
    pub fn judge(&self, entry: &Object<'_>) -> Verdict {
        let kind = entry.get_str("kind").unwrap_or("");
        let Some(fields) = self.kinds.get(kind) else {
            return Verdict::Unknown {
                kind: kind.to_string(),
                fields: vec!["kind".to_string()],
            };
        };
        let unknown: Vec<String> = entry
            .keys()
            .filter(|k| !fields.contains_key(*k))
            .map(str::to_owned)
            .collect();
        if !unknown.is_empty() {
            return Verdict::Unknown {
                kind: kind.to_string(),
                fields: unknown,
            };
        }
        judge_fields(entry, fields, None)
    }

    /// Judges the header: it cannot be withheld, so any hit refuses the build.
    pub fn judge_header(&self, header: &Object<'_>) -> Verdict {
        let unknown: Vec<String> = header
            .keys()
            .filter(|k| !self.header.contains_key(*k))
            .map(str::to_owned)
            .collect();
        if !unknown.is_empty() {
            return Verdict::Unknown {
                kind: "header".into(),
                fields: unknown,
            };
        }
        judge_fields(header, &self.header, Some("certifies"))
    }
}

fn is_built_in(kind: &str, field: &str) -> bool {
    CHAIN_FIELDS.iter().any(|(f, _)| *f == field)
        || BUILT_IN
            .iter()
            .any(|(k, fs)| *k == kind && fs.iter().any(|(f, _)| *f == field))
        || (kind == "header" && HEADER_FIELDS.iter().any(|(f, _)| *f == field))
}

/// `prose` names the one field read as a sentence (the header's `certifies`): the guard tests it
/// in its public-text context rather than its ledger one.
fn judge_fields(
    object: &Object<'_>,
    fields: &BTreeMap<String, FieldType>,
    prose: Option<&str>,
) -> Verdict {
    let mut flagged: BTreeMap<String, Vec<Why>> = BTreeMap::new();
    for (key, value) in &object.members {
        let key = key.as_ref();
        let t = fields[key];
        let mut why = Vec::new();
        if !type_fits(t, value) {
            why.push(Why::NotA(t));
        }
        let mut found = Vec::new();
        match value {
            // The sentence is prose: read with the guard's rules for public text (spaces and a
            // bare handle are no reason there; a phone, an email, a path, nine digits are).
            Value::Str(s) if Some(key) == prose => {
                found.extend(guard::scan(s, Context::PublicText))
            }
            _ => collect_findings(t, value, &mut found),
        }
        found.sort();
        found.dedup();
        why.extend(found.into_iter().map(Why::Guard));
        if key == "ref_seq" && !names_an_earlier_seq(object, value) {
            why.push(Why::NotAnEarlierSeq);
        }
        if !why.is_empty() {
            flagged.insert(key.to_string(), why);
        }
    }
    if flagged.is_empty() {
        return Verdict::Publish;
    }
    let reason = flagged
        .iter()
        .map(|(f, why)| {
            let words: Vec<String> = why.iter().map(Why::describe).collect();
            format!("{f}: {}", words.join("; "))
        })
        .collect::<Vec<_>>()
        .join(" | ");
    Verdict::Withhold {
        fields_flagged: flagged.into_keys().collect(),
        reason: format!("withheld because {reason}"),
    }
}

/// One reason a field withholds its line.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Why {
    /// The value is not of the field's type.
    NotA(FieldType),
    /// The identifier guard fired (docs/guard.md).
    Guard(Finding),
    /// `ref_seq` does not name a line before this one (docs/guard.md#counts).
    NotAnEarlierSeq,
}

impl Why {
    /// Words a stranger understands, then the stable code in brackets; never the value.
    fn describe(&self) -> String {
        match self {
            Why::NotA(t) => format!("it is not a {} [not_a_{}]", t.name(), t.name()),
            Why::Guard(f) => format!("it holds {} [{}]", f.words(), f.code()),
            Why::NotAnEarlierSeq => {
                "it does not name an earlier line, as a reference must [ref_seq_not_earlier]"
                    .to_string()
            }
        }
    }
}

/// `ref_seq` names a line before this one: an integer from 1 to `seq - 1`. (A value of the
/// wrong type is already withheld as such.)
fn names_an_earlier_seq(object: &Object<'_>, value: &Value<'_>) -> bool {
    match (value, object.get_int("seq")) {
        (Value::Int(r), Some(seq)) => *r >= 1 && *r < seq,
        (Value::Int(_), None) => false,
        _ => true,
    }
}

fn type_fits(t: FieldType, value: &Value<'_>) -> bool {
    match (t, value) {
        (FieldType::Digest, Value::Str(s)) => Digest::is_hex(s),
        (FieldType::Text, Value::Str(_)) => true,
        (FieldType::Texts, Value::Array(items)) => items.iter().all(|i| matches!(i, Value::Str(_))),
        (FieldType::Count, Value::Int(n)) => *n >= 0,
        (FieldType::Counts, Value::Object(o)) => o
            .members
            .iter()
            .all(|(k, v)| k.is_ascii() && matches!(v, Value::Int(n) if *n >= 0)),
        (FieldType::Bool, Value::Bool(_)) => true,
        (FieldType::Day, Value::Str(s)) => days::is_day(s),
        (FieldType::Timestamp, Value::Str(s)) => days::parse_timestamp(s).is_some(),
        _ => false,
    }
}

/// Every string at any depth (object keys included), except in fields typed as digests,
/// timestamps or days — unless the value is not of that type, when it is tested like any
/// other. Integers: nine or more digits outside count fields, ten or more in them
/// (docs/guard.md#counts).
fn collect_findings(t: FieldType, value: &Value<'_>, found: &mut Vec<Finding>) {
    let exempt_strings = matches!(t, FieldType::Digest | FieldType::Timestamp | FieldType::Day)
        && type_fits(t, value);
    let integers = if matches!(t, FieldType::Count | FieldType::Counts) {
        IntegerField::Count
    } else {
        IntegerField::Other
    };
    walk(value, exempt_strings, integers, found);
}

fn walk(value: &Value<'_>, exempt_strings: bool, integers: IntegerField, found: &mut Vec<Finding>) {
    let scan =
        |s: &str, found: &mut Vec<Finding>| found.extend(guard::scan(s, Context::LedgerString));
    match value {
        Value::Str(s) if !exempt_strings => scan(s, found),
        Value::LoneSurrogateStr(s) => scan(s, found),
        Value::Int(n) => found.extend(guard::scan_integer(*n, integers)),
        Value::OtherNumber(raw) => {
            let digits = raw.bytes().filter(u8::is_ascii_digit).count();
            if digits >= 9 {
                found.push(Finding {
                    rule: guard::Rule::DigitRun,
                });
            }
        }
        Value::Array(items) => {
            for item in items {
                walk(item, exempt_strings, integers, found);
            }
        }
        Value::Object(o) => {
            for (k, v) in &o.members {
                scan(k, found);
                walk(v, exempt_strings, integers, found);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn obj(json: &str) -> Object<'static> {
        match crate::canonical::parse(json.as_bytes())
            .unwrap()
            .value
            .into_owned()
        {
            Value::Object(o) => o,
            _ => panic!(),
        }
    }

    fn registry() -> Registry {
        Registry::new(&BTreeMap::new()).unwrap()
    }

    const H: &str = "a3f1c2d4e5b60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90";

    fn send(extra: &str) -> String {
        format!(
            r#"{{"schema":"darkflobi.gate/entry/v0","seq":5,"prev":"{H}","kind":"send","timestamp":"2026-10-24T14:00:00Z","day":"2026-10-24","entry_id":"{H}","action":"send","decision":"pass","dest_class":"public","dest_hash":"{H}","numerals":{{"bound":2,"total":3}},"reasons":[]{extra}}}"#
        )
    }

    #[test]
    fn a_clean_send_is_published() {
        assert_eq!(registry().judge(&obj(&send(""))), Verdict::Publish);
    }

    #[test]
    fn identifier_shapes_withhold_and_name_the_field() {
        for (extra, field) in [
            (r#","process":"gate 0.9""#, "process"),
            (r#","process":"me@box""#, "process"),
            (r#","process":"/home/agent/gate""#, "process"),
            (r#","process":"C:\\gate""#, "process"),
            (r#","process":"chat123456789""#, "process"),
        ] {
            match registry().judge(&obj(&send(extra))) {
                Verdict::Withhold { fields_flagged, .. } => assert_eq!(fields_flagged, [field]),
                other => panic!("{extra}: {other:?}"),
            }
        }
        let reasons = send("").replace(r#""reasons":[]"#, r#""reasons":["chat 123456789"]"#);
        assert!(
            matches!(registry().judge(&obj(&reasons)), Verdict::Withhold { fields_flagged, .. } if fields_flagged == ["reasons"])
        );
    }

    #[test]
    fn counts_are_exempt_from_nine_digits_but_other_integers_are_not() {
        let big_count = send("").replace(r#""total":3"#, r#""total":123456789"#);
        assert_eq!(registry().judge(&obj(&big_count)), Verdict::Publish);
        let mut admitted = BTreeMap::new();
        admitted.insert(
            "send".to_string(),
            BTreeMap::from([("chat".to_string(), "text".to_string())]),
        );
        let r = Registry::new(&admitted).unwrap();
        // A number in a text field: wrong type, and nine digits.
        let chat = obj(&send(r#","chat":123456789"#));
        match r.judge(&chat) {
            Verdict::Withhold { reason, .. } => {
                assert!(
                    reason.contains("[not_a_text]") && reason.contains("[digit_run]"),
                    "{reason}"
                )
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_digest_field_holding_a_non_digest_is_tested() {
        let bad = send("").replace(
            &format!(r#""dest_hash":"{H}""#),
            r#""dest_hash":"@someone""#,
        );
        match registry().judge(&obj(&bad)) {
            Verdict::Withhold {
                fields_flagged,
                reason,
            } => {
                assert_eq!(fields_flagged, ["dest_hash"]);
                assert!(
                    reason.contains("[not_a_digest]") && reason.contains("[at_sign]"),
                    "{reason}"
                );
                // Words a stranger understands, never the value.
                assert!(reason.contains("an @ sign"), "{reason}");
                assert!(!reason.contains("someone"), "{reason}");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn unknown_kinds_and_fields_refuse() {
        let unknown_field = obj(&send(r#","note":"x""#));
        assert_eq!(
            registry().judge(&unknown_field),
            Verdict::Unknown {
                kind: "send".into(),
                fields: vec!["note".into()]
            }
        );
        let unknown_kind = obj(&send("").replace(r#""kind":"send""#, r#""kind":"sms""#));
        assert!(
            matches!(registry().judge(&unknown_kind), Verdict::Unknown { kind, .. } if kind == "sms")
        );
        let admitted = BTreeMap::from([(
            "send".to_string(),
            BTreeMap::from([("note".to_string(), "text".to_string())]),
        )]);
        assert_eq!(
            Registry::new(&admitted).unwrap().judge(&unknown_field),
            Verdict::Publish
        );
        let retype = BTreeMap::from([(
            "send".to_string(),
            BTreeMap::from([("dest_hash".to_string(), "text".to_string())]),
        )]);
        assert!(Registry::new(&retype).is_err());
    }

    #[test]
    fn ten_digit_counts_and_later_ref_seqs_withhold() {
        let ten = send("").replace(r#""total":3"#, r#""total":1000000000"#);
        match registry().judge(&obj(&ten)) {
            Verdict::Withhold {
                fields_flagged,
                reason,
            } => {
                assert_eq!(fields_flagged, ["numerals"]);
                assert!(reason.contains("[count_too_large]"), "{reason}");
            }
            other => panic!("{other:?}"),
        }
        let delivered = |ref_seq: i64| {
            obj(&format!(
                r#"{{"schema":"darkflobi.gate/entry/v0","seq":7,"prev":"{H}","kind":"delivered","timestamp":"2026-10-24T14:00:00Z","day":"2026-10-24","entry_id":"{H}","ref_seq":{ref_seq},"status":"ok","sent_sha256":"{H}"}}"#
            ))
        };
        assert_eq!(registry().judge(&delivered(6)), Verdict::Publish);
        assert_eq!(registry().judge(&delivered(1)), Verdict::Publish);
        for bad in [7, 8, 0] {
            match registry().judge(&delivered(bad)) {
                Verdict::Withhold {
                    fields_flagged,
                    reason,
                } => {
                    assert_eq!(fields_flagged, ["ref_seq"], "{bad}");
                    assert!(reason.contains("[ref_seq_not_earlier]"), "{reason}");
                }
                other => panic!("ref_seq {bad}: {other:?}"),
            }
        }
    }

    #[test]
    fn counts_object_keys_are_tested() {
        for key in ["123456789", "4111-1111-1111-1111", "owner%40example.com"] {
            let keyed = send("").replace(r#""bound":2"#, &format!(r#""bound":2,"{key}":1"#));
            assert!(
                matches!(registry().judge(&obj(&keyed)), Verdict::Withhold { .. }),
                "{key}"
            );
        }
    }

    fn header_certifying(sentence: &str) -> Object<'static> {
        let mut o = Object::default();
        o.insert("anchor_tz", Value::str("America/New_York"));
        o.insert("certifies", Value::str(sentence.to_owned()));
        o.insert("created", Value::str("2026-10-24T13:00:00Z"));
        o.insert("schema", Value::str("darkflobi.gate/log/v0"));
        o
    }

    #[test]
    fn the_certifies_sentence_is_read_as_public_text() {
        // Prose is what a sentence is: spaces, a bare handle, a digest, a date pass.
        for sentence in [
            "No line holds a chat id or message text.",
            "Each line records one gate event; no line holds message text or a chat id.",
            "Every outbound attempt by @darkflobi is recorded by hash, never by text (since 2026-10-24, 13:00).",
        ] {
            assert_eq!(
                registry().judge_header(&header_certifying(sentence)),
                Verdict::Publish,
                "{sentence}"
            );
        }
        // An identifier in it is one in the header: the header is refused, naming the field
        // and the rule, never the value.
        for (sentence, code) in [
            ("No line holds a chat id. Call +1 555 010 9999", "[phone]"),
            (
                "No line holds a chat id; write to ops@lab.example.org",
                "[email]",
            ),
            (
                "No line holds a chat id; ask ops (at) lab [dot] example [dot] org",
                "[email]",
            ),
            ("Chat 123456789 is the only one written to.", "[digit_run]"),
            (
                "Logs live in /home/agent/gate, never here.",
                "[drive_or_home_path]",
            ),
            ("Join us at t.me/+AbCdEfGhIjK first.", "[telegram_invite]"),
            ("Paid from card 4111 1111 1111 1111.", "[card_number]"),
        ] {
            match registry().judge_header(&header_certifying(sentence)) {
                Verdict::Withhold {
                    fields_flagged,
                    reason,
                } => {
                    assert_eq!(fields_flagged, ["certifies"], "{sentence}");
                    assert!(reason.contains(code), "{sentence}: {reason}");
                    assert!(!reason.contains(sentence), "{reason}");
                    // Prose rules, not the ledger's: the spaces are no reason.
                    assert!(!reason.contains("[whitespace]"), "{reason}");
                }
                other => panic!("{sentence}: {other:?}"),
            }
        }
    }

    #[test]
    fn the_header_certifies_sentence_is_exempt_from_the_shape_test() {
        let header = obj(
            r#"{"anchor_tz":"America/New_York","certifies":"No line holds a chat id or message text.","created":"2026-10-24T13:00:00Z","schema":"darkflobi.gate/log/v0"}"#,
        );
        assert_eq!(registry().judge_header(&header), Verdict::Publish);
        let leaky = obj(
            r#"{"anchor_tz":"America/New_York","certifies":"x","created":"2026-10-24T13:00:00Z","schema":"darkflobi.gate/log/v0","owner":"me@x.org"}"#,
        );
        assert!(matches!(
            registry().judge_header(&leaky),
            Verdict::Unknown { .. }
        ));
    }
}
