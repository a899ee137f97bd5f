//! The ledger verifier (docs/protocol.md#chain, docs/protocol.md#verifier-report, docs/protocol.md#verify-json; docs/verifier.md).
//!
//! A pure function over bytes: no file, clock or git. It streams — the caller feeds one line at
//! a time and the verifier keeps only the previous entry's seq and digest (plus the withheld
//! list), so memory does not grow with the ledger. Every problem is returned with a stable code.

use crate::Digest;
use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;
use sha2::{Digest as _, Sha256};

use crate::canonical::{self, EntryScan, NotAdmitted, Object, Value};
use crate::days::{self, DayDeriver};
use std::borrow::Cow;

pub const HEADER_SCHEMA: &str = "darkflobi.gate/log/v0";
pub const ENTRY_SCHEMA: &str = "darkflobi.gate/entry/v0";

/// The stable problem codes of docs/protocol.md#problem-codes, in the order problems on one line are reported.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Code {
    CrByte,
    Unparsable,
    NotObject,
    DuplicateKey,
    NotCanonicalisable,
    NotCanonical,
    TruncatedTail,
    MissingHeader,
    BadHeader,
    BadSchema,
    EntryIdMismatch,
    PrevMismatch,
    SeqMismatch,
    BadTimestamp,
    DayMismatch,
    WithheldConflict,
    WithheldUnreachable,
}

impl Code {
    pub fn as_str(self) -> &'static str {
        match self {
            Code::CrByte => "cr_byte",
            Code::Unparsable => "unparsable",
            Code::NotObject => "not_object",
            Code::DuplicateKey => "duplicate_key",
            Code::NotCanonicalisable => "not_canonicalisable",
            Code::NotCanonical => "not_canonical",
            Code::TruncatedTail => "truncated_tail",
            Code::MissingHeader => "missing_header",
            Code::BadHeader => "bad_header",
            Code::BadSchema => "bad_schema",
            Code::EntryIdMismatch => "entry_id_mismatch",
            Code::PrevMismatch => "prev_mismatch",
            Code::SeqMismatch => "seq_mismatch",
            Code::BadTimestamp => "bad_timestamp",
            Code::DayMismatch => "day_mismatch",
            Code::WithheldConflict => "withheld_conflict",
            Code::WithheldUnreachable => "withheld_unreachable",
        }
    }
}

impl std::fmt::Display for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One problem: where, which rule, and words a person can act on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Problem {
    /// 1-based line of the ledger; 0 for a problem of the withheld list itself.
    pub line: u64,
    pub seq: Option<i64>,
    pub code: Code,
    pub detail: String,
}

/// One entry of `withheld.json` (docs/protocol.md#withholding): the verifier needs `seq` and `entry_id`; the
/// anchor checks use `day`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct WithheldEntry {
    pub seq: i64,
    pub entry_id: Digest,
    #[serde(default)]
    pub kind: Option<String>,
    #[serde(default)]
    pub dest_class: Option<String>,
    #[serde(default)]
    pub day: Option<String>,
    #[serde(default)]
    pub fields_flagged: Vec<String>,
    #[serde(default)]
    pub reason: Option<String>,
}

/// The withheld list by seq.
#[derive(Debug, Clone, Default)]
pub struct Withheld {
    pub by_seq: BTreeMap<i64, WithheldEntry>,
}

impl Withheld {
    /// Reads `withheld.json` with the ledger's own JSON reader, so that `2.0`, an integer past
    /// 2^53 and a key written twice are seen as written (docs/verifier.md "The withheld list");
    /// a list that breaks a rule is the caller's usage error, not a ledger problem. Every item is
    /// read before any is checked against the others, so the first error named is the same
    /// whichever way the list is wrong.
    pub fn from_json(bytes: &[u8]) -> Result<Withheld, WithheldError> {
        let parsed = canonical::parse(bytes).map_err(WithheldError::NotJson)?;
        if let Some(key) = parsed.duplicate_key {
            return Err(WithheldError::DuplicateKey(key.to_string()));
        }
        if let Some(why) = parsed.not_admitted {
            return Err(WithheldError::NotAdmitted(why));
        }
        let Value::Array(items) = parsed.value else {
            return Err(WithheldError::NotArray);
        };
        let items = items
            .iter()
            .enumerate()
            .map(|(i, item)| {
                read_item(item).map_err(|problem| WithheldError::Item { index: i, problem })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let mut list = Withheld::default();
        for (entry_id, entry) in items {
            if entry.seq < 1 {
                return Err(WithheldError::SeqNotPositive(entry.seq));
            }
            let entry_id = entry_id
                .parse::<Digest>()
                .map_err(|_| WithheldError::NotADigest(entry.seq))?;
            list.insert(WithheldEntry { entry_id, ..entry })?;
        }
        Ok(list)
    }

    /// The list from entries already read; refuses a seq below 1 or listed twice.
    pub fn from_entries(entries: Vec<WithheldEntry>) -> Result<Withheld, WithheldError> {
        let mut list = Withheld::default();
        for e in entries {
            list.insert(e)?;
        }
        Ok(list)
    }

    fn insert(&mut self, e: WithheldEntry) -> Result<(), WithheldError> {
        if e.seq < 1 {
            return Err(WithheldError::SeqNotPositive(e.seq));
        }
        let seq = e.seq;
        if self.by_seq.insert(seq, e).is_some() {
            return Err(WithheldError::SeqTwice(seq));
        }
        Ok(())
    }

    pub fn contains(&self, seq: i64) -> bool {
        self.by_seq.contains_key(&seq)
    }

    /// The digest the list gives for `seq` (the lab's word, docs/protocol.md#withholding).
    pub fn digest(&self, seq: i64) -> Option<Digest> {
        self.by_seq.get(&seq).map(|e| e.entry_id)
    }

    pub fn len(&self) -> usize {
        self.by_seq.len()
    }

    pub fn is_empty(&self) -> bool {
        self.by_seq.is_empty()
    }
}

/// The withheld list's seqs in runs of consecutive seqs, and which of them a gap has bridged
/// (docs/verifier.md "Linear in the input"). Whether a gap is wholly listed is one look-up (its
/// first seq's run reaches its last seq), not a walk over the gap; each listed seq is marked
/// bridged once however often its gap is crossed (`next_open` skips the marked ones, union-find
/// style); and the memory is three numbers per listed seq, whatever the ledger states. Before,
/// a ledger stating a seq past a nearly wholly listed gap on every other line made the verifier
/// walk the gap per line, and one crossing it again and again kept a copy of it per crossing.
#[derive(Debug)]
struct Gaps {
    /// The listed seqs, ascending.
    seqs: Vec<i64>,
    /// For each index, the index of the last seq of its run.
    run_last: Vec<usize>,
    /// For each index, an index at or after it such that every index between is bridged; an
    /// index is bridged when this is not itself. One more slot than `seqs`, for the end.
    next_open: Vec<usize>,
    /// Withheld seqs looked up or marked (the tests' work count, `mod linear`).
    steps: u64,
}

impl Gaps {
    fn new(withheld: &Withheld) -> Gaps {
        let seqs: Vec<i64> = withheld.by_seq.keys().copied().collect();
        let mut run_last = vec![0; seqs.len()];
        for i in (0..seqs.len()).rev() {
            run_last[i] = match seqs.get(i + 1) {
                Some(&n) if n == seqs[i] + 1 => run_last[i + 1],
                _ => i,
            };
        }
        Gaps {
            next_open: (0..=seqs.len()).collect(),
            seqs,
            run_last,
            steps: 0,
        }
    }

    fn index(&mut self, seq: i64) -> Option<usize> {
        self.steps += 1;
        self.seqs.binary_search(&seq).ok()
    }

    /// The last seq of the run of listed seqs that holds `seq`; `None` when `seq` is not listed.
    fn run_last(&mut self, seq: i64) -> Option<i64> {
        let i = self.index(seq)?;
        Some(self.seqs[self.run_last[i]])
    }

    /// True when every seq in `from..to` is listed (false for an empty range).
    fn lists_all(&mut self, from: i64, to: i64) -> bool {
        to > from && self.run_last(from).is_some_and(|last| last >= to - 1)
    }

    /// Marks `from..to` bridged; the caller has seen [`Gaps::lists_all`] hold.
    fn bridge(&mut self, from: i64, to: i64) {
        let Some(first) = self.index(from) else {
            return;
        };
        let last = first + (to - 1 - from) as usize;
        let mut i = self.open(first);
        while i <= last {
            self.steps += 1;
            self.next_open[i] = i + 1;
            i = self.open(i + 1);
        }
    }

    /// The first index at or after `i` not yet bridged (path halving on the way).
    fn open(&mut self, mut i: usize) -> usize {
        while self.next_open[i] != i {
            self.steps += 1;
            let n = self.next_open[i];
            self.next_open[i] = self.next_open[n];
            i = n;
        }
        i
    }

    /// The bridged seqs, ascending, each once (docs/verifier.md "The answer").
    fn bridged(&self) -> Vec<i64> {
        self.seqs
            .iter()
            .enumerate()
            .filter(|&(i, _)| self.next_open[i] != i)
            .map(|(_, &s)| s)
            .collect()
    }

    /// The listed seqs not bridged, ascending.
    fn unbridged(&self) -> impl Iterator<Item = i64> + '_ {
        self.seqs
            .iter()
            .enumerate()
            .filter(|&(i, _)| self.next_open[i] == i)
            .map(|(_, &s)| s)
    }
}

/// One item of `withheld.json`, read; its entry_id is still text, checked once every item is
/// read (so the errors come in the order they always have).
fn read_item(item: &Value<'_>) -> Result<(String, WithheldEntry), ItemProblem> {
    let Value::Object(o) = item else {
        return Err(ItemProblem::NotObject);
    };
    let seq = match o.get("seq") {
        Some(Value::Int(n)) => *n,
        _ => return Err(ItemProblem::Seq),
    };
    let entry_id = match o.get("entry_id") {
        Some(Value::Str(s)) => s.to_string(),
        _ => return Err(ItemProblem::EntryIdNotString),
    };
    // Optional words: absent, null or a string.
    let words = |key: &'static str| match o.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Str(s)) => Ok(Some(s.to_string())),
        Some(_) => Err(ItemProblem::NotWords(key)),
    };
    let day = words("day")?;
    if let Some(d) = &day
        && !days::is_day(d)
    {
        return Err(ItemProblem::NotADay(d.clone()));
    }
    let fields_flagged = match o.get("fields_flagged") {
        None => Vec::new(),
        Some(Value::Array(fields)) => fields
            .iter()
            .map(|f| f.as_str().map(str::to_owned))
            .collect::<Option<Vec<String>>>()
            .ok_or(ItemProblem::FieldNotString)?,
        Some(_) => return Err(ItemProblem::FieldsNotArray),
    };
    let entry = WithheldEntry {
        seq,
        // Replaced by the parsed entry_id once every item is read.
        entry_id: Digest([0; 32]),
        kind: words("kind")?,
        dest_class: words("dest_class")?,
        day,
        fields_flagged,
        reason: words("reason")?,
    };
    Ok((entry_id, entry))
}

/// Why a withheld list is refused (docs/protocol.md#withholding): the caller's usage error, worded
/// for the person who wrote the list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WithheldError {
    /// The bytes are not one JSON value.
    NotJson(canonical::ParseError),
    /// A key is written twice in one object.
    DuplicateKey(String),
    /// A value the ledger's JSON does not admit (a fraction, an integer past 2^53, ...).
    NotAdmitted(NotAdmitted),
    /// The value is not an array.
    NotArray,
    /// Item `index` (0-based) is wrong.
    Item { index: usize, problem: ItemProblem },
    /// A seq below 1.
    SeqNotPositive(i64),
    /// The entry_id of this seq is not a digest.
    NotADigest(i64),
    /// This seq is listed twice.
    SeqTwice(i64),
}

/// What is wrong with one item of a withheld list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ItemProblem {
    NotObject,
    /// `seq` is not an integer within 1..2^53 written without fraction or exponent.
    Seq,
    EntryIdNotString,
    /// An optional field that is neither a string nor null.
    NotWords(&'static str),
    /// `day` is not a date that exists.
    NotADay(String),
    FieldNotString,
    FieldsNotArray,
}

impl std::fmt::Display for WithheldError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            // A syntax error already says "not one JSON value".
            WithheldError::NotJson(e @ canonical::ParseError::Syntax { .. }) => write!(f, "{e}"),
            WithheldError::NotJson(e) => write!(f, "not one JSON value: {e}"),
            WithheldError::DuplicateKey(key) => {
                write!(f, "key {key:?} is written twice in one object")
            }
            WithheldError::NotAdmitted(why) => write!(f, "the list {}", why.words()),
            WithheldError::NotArray => {
                f.write_str("not a JSON array of {seq, entry_id, ...} objects")
            }
            WithheldError::Item { index: i, problem } => match problem {
                ItemProblem::NotObject => write!(f, "item {i} is not an object"),
                ItemProblem::Seq => write!(
                    f,
                    "item {i}: seq is not an integer within 1..2^53 written without fraction or exponent"
                ),
                ItemProblem::EntryIdNotString => write!(f, "item {i}: entry_id is not a string"),
                ItemProblem::NotWords(key) => write!(f, "item {i}: {key} is not a string or null"),
                ItemProblem::NotADay(d) => write!(
                    f,
                    "item {i}: day {d:?} is not a YYYY-MM-DD date that exists"
                ),
                ItemProblem::FieldNotString => {
                    write!(f, "item {i}: fields_flagged holds a non-string")
                }
                ItemProblem::FieldsNotArray => {
                    write!(f, "item {i}: fields_flagged is not an array")
                }
            },
            WithheldError::SeqNotPositive(seq) => write!(f, "seq {seq} is not a positive integer"),
            WithheldError::NotADigest(seq) => {
                write!(f, "seq {seq}: entry_id is not 64 lowercase hex characters")
            }
            WithheldError::SeqTwice(seq) => write!(f, "seq {seq} is listed twice"),
        }
    }
}

impl std::error::Error for WithheldError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            WithheldError::NotJson(e) => Some(e),
            WithheldError::NotAdmitted(e) => Some(e),
            _ => None,
        }
    }
}

/// What the verifier concluded (docs/protocol.md#verify-json).
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub ok: bool,
    pub entries: u64,
    pub head: Option<Digest>,
    pub problems: Vec<Problem>,
    pub bridged: Vec<i64>,
}

/// The header as read from line 1.
#[derive(Debug, Clone)]
pub struct Header {
    pub object: Object<'static>,
    /// `sha256("darkflobi.gate/log/v0\n" + JCS(header))`, when the header can be canonicalised.
    pub digest: Option<Digest>,
    pub anchor_tz: Option<String>,
}

/// A readable entry line, handed back to the caller (the build reads its fields).
#[derive(Debug)]
pub struct Entry<'a> {
    pub line: u64,
    pub bytes: &'a [u8],
    pub object: Object<'a>,
    pub seq: Option<i64>,
    /// `sha256(JCS(core))`, when the line can be canonicalised.
    pub derived_id: Option<Digest>,
    /// True when any problem was reported at this line.
    pub has_problem: bool,
}

impl Entry<'_> {
    pub fn stated_id(&self) -> Option<&str> {
        self.object.get_str("entry_id")
    }
}

/// What the next entry is measured against.
struct Previous {
    /// The previous entry's stated seq, or its expected seq when it stated none.
    seq: i64,
    /// The previous entry's stated entry_id, else its derived one; `None`: nothing to expect.
    id: Option<PrevId>,
}

/// The `prev` the next entry must state.
#[derive(Debug, Clone)]
enum PrevId {
    /// A stated entry_id that is a digest (the common case, compared as 32 bytes).
    Digest(Digest),
    /// A stated string that is not a digest: only the same string matches it.
    Text(String),
    /// A stated entry_id holding a lone surrogate is still a string (docs/verifier.md "Chaining
    /// entries": the stated entry_id when it is a string): only the same string, unit for unit,
    /// matches it.
    Lone(Vec<u16>),
}

impl PrevId {
    fn digest(&self) -> Option<Digest> {
        match self {
            PrevId::Digest(d) => Some(*d),
            PrevId::Text(_) | PrevId::Lone(_) => None,
        }
    }

    /// A digest has one spelling (64 lowercase hex), so a stated `prev` matches it exactly
    /// when it parses to the same 32 bytes.
    fn matches_text(&self, prev: &str) -> bool {
        match self {
            PrevId::Digest(d) => prev.parse::<Digest>() == Ok(*d),
            PrevId::Text(t) => prev == t,
            PrevId::Lone(_) => false,
        }
    }

    fn matches(&self, prev: Option<&Value<'_>>) -> bool {
        match (self, prev) {
            (PrevId::Digest(_) | PrevId::Text(_), Some(Value::Str(s))) => self.matches_text(s),
            (PrevId::Lone(u), Some(Value::LoneSurrogateStr(l))) => &l.units == u,
            _ => false,
        }
    }

    /// What the entry after `object` must name: its stated entry_id when that is a string (one
    /// holding a lone surrogate included), else its derived one.
    fn after(object: &Object<'_>, derived_id: Option<Digest>) -> Option<PrevId> {
        match object.get("entry_id") {
            Some(Value::Str(s)) => Some(match s.parse::<Digest>() {
                Ok(d) => PrevId::Digest(d),
                Err(_) => PrevId::Text(s.to_string()),
            }),
            Some(Value::LoneSurrogateStr(l)) => Some(PrevId::Lone(l.units.clone())),
            _ => derived_id.map(PrevId::Digest),
        }
    }

    fn words(&self) -> String {
        match self {
            PrevId::Digest(d) => d.to_string(),
            PrevId::Text(t) => t.clone(),
            PrevId::Lone(_) => "a string holding a lone surrogate".to_string(),
        }
    }
}

/// The streaming verifier. Feed every line with [`Verifier::push_line`] (and an unterminated
/// last piece with [`Verifier::push_truncated_tail`]), then call [`Verifier::finish`].
pub(crate) struct Verifier<'w> {
    withheld: &'w Withheld,
    header_seen: bool,
    header: Option<Header>,
    deriver: Option<DayDeriver>,
    previous: Option<Previous>,
    entries: u64,
    problems: Vec<Problem>,
    /// The withheld list's runs and the seqs bridged so far.
    gaps: Gaps,
    /// Listed seqs that the file publishes (conflicts) — so they are not called unreachable.
    listed_published: BTreeSet<i64>,
    dump: Vec<u8>,
    /// Where `entry_id` sits in `dump` (see `canonical::dump_entry`).
    entry_id_range: Option<std::ops::Range<usize>>,
}

impl<'w> Verifier<'w> {
    pub fn new(withheld: &'w Withheld) -> Self {
        Verifier {
            withheld,
            header_seen: false,
            header: None,
            deriver: None,
            previous: None,
            entries: 0,
            problems: Vec::new(),
            gaps: Gaps::new(withheld),
            listed_published: BTreeSet::new(),
            dump: Vec::with_capacity(1024),
            entry_id_range: None,
        }
    }

    pub fn header(&self) -> Option<&Header> {
        self.header.as_ref()
    }

    fn problem(&mut self, line: u64, seq: Option<i64>, code: Code, detail: impl Into<String>) {
        self.problems.push(Problem {
            line,
            seq,
            code,
            detail: detail.into(),
        });
    }

    /// An unterminated last piece (no LF after it): reported and otherwise ignored (docs/protocol.md#problem-codes:
    /// `truncated_tail`).
    pub fn push_truncated_tail(&mut self, line: u64, bytes: &[u8]) {
        self.problem(
            line,
            None,
            Code::TruncatedTail,
            format!(
                "the last line ({} bytes) has no LF: it may still be being written, and is not chained",
                bytes.len()
            ),
        );
    }

    /// Reads one line (docs/protocol.md#canonical-form). Returns the object when the line is readable.
    fn read<'a>(&mut self, line: u64, bytes: &'a [u8]) -> Option<(Object<'a>, bool)> {
        if let Some(at) = bytes.iter().position(|&b| b == b'\r') {
            let count = bytes.iter().filter(|&&b| b == b'\r').count();
            self.problem(
                line,
                None,
                Code::CrByte,
                format!(
                    "{count} CR byte(s), the first at byte {}; the file must be LF only",
                    at + 1
                ),
            );
            return None;
        }
        let parsed = match canonical::parse(bytes) {
            Ok(p) => p,
            Err(e) => {
                self.problem(line, None, Code::Unparsable, e.to_string());
                return None;
            }
        };
        let Value::Object(object) = parsed.value else {
            self.problem(
                line,
                None,
                Code::NotObject,
                "a JSON value that is not an object",
            );
            return None;
        };
        let seq = object.get_int("seq");
        // One dump per line: compared with the bytes here, cut to the core in `chain`. With a
        // key written twice, the object kept (last value wins) decides whether a digest can be
        // derived: a dropped value outside the admitted types does not disable the entry_id
        // check (docs/verifier.md "Reading a line", rule 4).
        self.dump.clear();
        let dumped = if parsed.not_admitted.is_none() || parsed.duplicate_key.is_some() {
            canonical::dump_entry(&object, &mut self.dump).ok()
        } else {
            None
        };
        let admitted = dumped.is_some();
        self.entry_id_range = dumped.flatten();
        if let Some(key) = parsed.duplicate_key {
            self.problem(
                line,
                seq,
                Code::DuplicateKey,
                format!("key {key:?} is written twice; the last value is kept, as JSON.parse does"),
            );
        } else if let Some(why) = parsed.not_admitted {
            self.problem(line, seq, Code::NotCanonicalisable, why.words());
        } else if self.dump != bytes {
            {
                let at = self
                    .dump
                    .iter()
                    .zip(bytes)
                    .position(|(a, b)| a != b)
                    .unwrap_or(self.dump.len().min(bytes.len()));
                self.problem(
                    line,
                    seq,
                    Code::NotCanonical,
                    format!(
                        "the bytes are not the canonical dump of the object (first difference at byte {})",
                        at + 1
                    ),
                );
            }
        }
        Some((object, admitted))
    }

    /// Feeds one complete line (without its LF). `line` is 1-based and counts blank lines.
    pub fn push_line<'a>(&mut self, line: u64, bytes: &'a [u8]) -> Option<Entry<'a>> {
        if line == 1 {
            self.header_line(bytes);
            return None;
        }
        if bytes.is_empty() {
            return None; // blank lines are skipped (docs/protocol.md#verifier-report)
        }
        self.entries += 1;
        let problems_before = self.problems.len();
        let (object, admitted) = self.read(line, bytes)?;
        let entry = self.chain(line, bytes, object, admitted);
        Some(Entry {
            has_problem: self.problems.len() > problems_before,
            ..entry
        })
    }

    /// Like [`Verifier::push_line`], without handing back the object: a line the canonical
    /// scanner proves canonical, and whose chain checks all pass, is taken in one pass; any other
    /// line goes through the full reader, which finds and words its problems. Same answers —
    /// `tests/testsuite/properties.rs` holds the two paths to it.
    pub fn push_line_lean(&mut self, line: u64, bytes: &[u8]) {
        if line == 1 || bytes.is_empty() || self.fast_entry(line, bytes).is_none() {
            self.push_line(line, bytes);
        }
    }

    /// Like [`Verifier::push_line_lean`], handing back what a reader of the line keeps of it
    /// ([`EntryFields`]): from the scan when the fast path took the line, else from the full
    /// reader's object. The build's verify stage reads a million lines this way, never building
    /// an object for a canonical one (docs/scale.md#the-gates-ledger-is-not-held).
    pub fn push_line_fields<'a>(&mut self, line: u64, bytes: &'a [u8]) -> Option<EntryFields<'a>> {
        if line != 1
            && !bytes.is_empty()
            && let Some((scan, derived)) = self.fast_entry(line, bytes)
        {
            return Some(EntryFields {
                line,
                bytes,
                seq: scan.seq,
                derived_id: Some(derived),
                has_problem: false,
                kind: scan.kind.map(Cow::Borrowed),
                day: scan.day.map(Cow::Borrowed),
                timestamp: scan.timestamp.map(Cow::Borrowed),
            });
        }
        let entry = self.push_line(line, bytes)?;
        let text = |key: &str| entry.object.get_str(key).map(|s| Cow::Owned(s.to_owned()));
        Some(EntryFields {
            line,
            bytes,
            seq: entry.seq,
            derived_id: entry.derived_id,
            has_problem: entry.has_problem,
            kind: text("kind"),
            day: text("day"),
            timestamp: text("timestamp"),
        })
    }

    /// The fast path: the scan and the derived entry_id when the line was canonical and chained
    /// with no problem (state updated); `None` with no state touched otherwise.
    fn fast_entry<'a>(&mut self, _line: u64, bytes: &'a [u8]) -> Option<(EntryScan<'a>, Digest)> {
        let scan = canonical::scan_entry(bytes)?;
        let (Some(seq), Some(stated_id), Some(prev), Some(ts), Some(day)) =
            (scan.seq, scan.entry_id, scan.prev, scan.timestamp, scan.day)
        else {
            return None;
        };
        if scan.schema != Some(ENTRY_SCHEMA) || self.withheld.contains(seq) {
            return None;
        }
        let (mut expected_seq, mut expected_prev) = match &self.previous {
            Some(Previous {
                id: Some(PrevId::Lone(_) | PrevId::Text(_)),
                ..
            }) => return None, // not a digest: the full reader words it
            Some(p) => (p.seq + 1, p.id.as_ref().and_then(PrevId::digest)),
            None => (1, self.header.as_ref().and_then(|h| h.digest)),
        };
        let bridge = self.gaps.lists_all(expected_seq, seq);
        let bridge_from = expected_seq;
        if bridge {
            expected_seq = seq;
            expected_prev = self.withheld.digest(seq - 1);
        }
        // A digest has one spelling: the stated text matches when it is that spelling.
        if seq != expected_seq || expected_prev.is_some_and(|e| e.hex() != prev.as_bytes()) {
            return None;
        }
        let secs = days::parse_timestamp(ts)?;
        if let Some(deriver) = &mut self.deriver {
            let derived = days::day_bytes(deriver.day_number(secs));
            if derived.is_none_or(|d| d.as_slice() != day.as_bytes()) {
                return None;
            }
        }
        let mut hasher = Sha256::new();
        match &scan.entry_id_range {
            Some(r) => {
                hasher.update(&bytes[..r.start]);
                hasher.update(&bytes[r.end..]);
            }
            None => hasher.update(bytes),
        }
        let derived = Digest(hasher.finalize().into());
        if derived.hex() != stated_id.as_bytes() {
            return None;
        }
        // Every check passed: commit.
        self.entries += 1;
        if bridge {
            self.gaps.bridge(bridge_from, seq);
        }
        self.previous = Some(Previous {
            seq,
            id: Some(PrevId::Digest(derived)),
        });
        Some((scan, derived))
    }

    fn header_line(&mut self, bytes: &[u8]) {
        self.header_seen = true;
        let read = if bytes.is_empty() {
            None
        } else {
            self.read(1, bytes)
        };
        let Some((object, admitted)) = read else {
            self.problem(
                1,
                None,
                Code::MissingHeader,
                "line 1 is blank or unreadable; it must be the header",
            );
            return;
        };
        if object.get_str("schema") != Some(HEADER_SCHEMA) {
            self.problem(
                1,
                None,
                Code::MissingHeader,
                format!("line 1 is not a header: its schema is not {HEADER_SCHEMA:?}"),
            );
            return;
        }
        let digest = admitted.then(|| {
            let mut hasher = Sha256::new();
            hasher.update(HEADER_SCHEMA.as_bytes());
            hasher.update(b"\n");
            self.dump.clear();
            // Admitted values always dump; a failure hashes what was dumped (the chain fails).
            let _ = canonical::dump_object_except(&object, None, &mut self.dump);
            hasher.update(&self.dump);
            Digest(hasher.finalize().into())
        });
        let anchor_tz = object.get_str("anchor_tz").map(str::to_owned);
        match anchor_tz.as_deref().map(|name| (name, days::zone(name))) {
            Some((_, Some(zone))) => self.deriver = Some(DayDeriver::new(zone)),
            Some((name, None)) => self.problem(
                1,
                None,
                Code::BadHeader,
                format!(
                    "anchor_tz {name:?} is not a zone in the tz database; no day can be checked"
                ),
            ),
            None => self.problem(
                1,
                None,
                Code::BadHeader,
                "the header has no anchor_tz string; no day can be checked",
            ),
        }
        self.header = Some(Header {
            object: match Value::Object(object).into_owned() {
                Value::Object(o) => o,
                _ => unreachable!(),
            },
            digest,
            anchor_tz,
        });
    }

    fn chain<'a>(
        &mut self,
        line: u64,
        bytes: &'a [u8],
        object: Object<'a>,
        admitted: bool,
    ) -> Entry<'a> {
        let seq = object.get_int("seq");
        let (mut expected_seq, mut expected_prev, prev_named) = match &self.previous {
            Some(p) => (
                p.seq + 1,
                p.id.clone(),
                format!("the entry_id of seq {}", p.seq),
            ),
            None => (
                1,
                self.header
                    .as_ref()
                    .and_then(|h| h.digest)
                    .map(PrevId::Digest),
                "the header digest".to_string(),
            ),
        };
        let mut prev_named = prev_named;
        // Withheld bridging (docs/protocol.md#verifier-report): a gap whose every seq is listed is crossed on the listed digest.
        if let Some(s) = seq
            && self.gaps.lists_all(expected_seq, s)
        {
            self.gaps.bridge(expected_seq, s);
            expected_seq = s;
            expected_prev = self.withheld.digest(s - 1).map(PrevId::Digest);
            prev_named = format!("the withheld digest of seq {}", s - 1);
        }

        if object.get_str("schema") != Some(ENTRY_SCHEMA) {
            self.problem(
                line,
                seq,
                Code::BadSchema,
                format!("schema is not {ENTRY_SCHEMA:?}"),
            );
        }

        let derived_id = admitted.then(|| {
            // `self.dump` still holds this line's dump from `read`.
            let mut hasher = Sha256::new();
            match &self.entry_id_range {
                Some(r) => {
                    hasher.update(&self.dump[..r.start]);
                    hasher.update(&self.dump[r.end..]);
                }
                None => hasher.update(&self.dump),
            }
            Digest(hasher.finalize().into())
        });
        let stated_id = object.get_str("entry_id");
        if let Some(derived) = &derived_id
            && stated_id.map(str::parse::<Digest>) != Some(Ok(*derived))
        {
            let detail = match stated_id {
                Some(s) => format!("entry_id is {s}, but the core re-derives to {derived}"),
                None => format!("no entry_id string; the core re-derives to {derived}"),
            };
            self.problem(line, seq, Code::EntryIdMismatch, detail);
        }

        if let Some(expected) = &expected_prev
            && !expected.matches(object.get("prev"))
        {
            let detail = format!(
                "prev is {}, expected {} ({prev_named})",
                describe(object.get("prev")),
                expected.words()
            );
            self.problem(line, seq, Code::PrevMismatch, detail);
        }

        if seq != Some(expected_seq) {
            let detail = format!(
                "seq is {}, expected {expected_seq}",
                describe(object.get("seq"))
            );
            self.problem(line, seq, Code::SeqMismatch, detail);
        }

        match object.get_str("timestamp").and_then(days::parse_timestamp) {
            None => {
                let detail = format!(
                    "timestamp is {}, not YYYY-MM-DDTHH:MM:SSZ naming a real instant",
                    describe(object.get("timestamp"))
                );
                self.problem(line, seq, Code::BadTimestamp, detail);
            }
            Some(secs) => {
                if let Some(deriver) = &mut self.deriver {
                    let day_number = deriver.day_number(secs);
                    let stated = object.get_str("day").map(str::as_bytes);
                    let matches =
                        days::day_bytes(day_number).is_some_and(|d| stated == Some(d.as_slice()));
                    if !matches {
                        let derived_day = days::civil_from_days(day_number);
                        let tz = self
                            .header
                            .as_ref()
                            .and_then(|h| h.anchor_tz.clone())
                            .unwrap_or_default();
                        // The version is named so that an operator whose gate runs older (or
                        // newer) tz data can see why the days differ.
                        let detail = format!(
                            "day is {}, but the timestamp falls on {derived_day} in {tz} by tz database {} (compiled into this exhibit binary)",
                            describe(object.get("day")),
                            days::tzdb_version()
                        );
                        self.problem(line, seq, Code::DayMismatch, detail);
                    }
                }
            }
        }

        if let Some(s) = seq
            && self.withheld.contains(s)
        {
            self.listed_published.insert(s);
            self.problem(
                line,
                seq,
                Code::WithheldConflict,
                format!("seq {s} is published here and also listed as withheld"),
            );
        }

        self.previous = Some(Previous {
            seq: seq.unwrap_or(expected_seq),
            id: PrevId::after(&object, derived_id),
        });
        Entry {
            line,
            bytes,
            object,
            seq,
            derived_id,
            has_problem: false,
        }
    }

    /// Closes the pass: missing header, tail bridging, unreachable listed seqs, and the head.
    pub fn finish(mut self) -> Report {
        if !self.header_seen {
            self.problem(1, None, Code::MissingHeader, "the file has no line 1");
        }
        // Listed seqs after the last line extend the head (docs/protocol.md#verifier-report).
        let next = self.previous.as_ref().map_or(1, |p| p.seq + 1);
        let mut tail_head = None;
        if let Some(last) = self.gaps.run_last(next) {
            self.gaps.bridge(next, last + 1);
            tail_head = self.withheld.digest(last);
        }
        let bridged = self.gaps.bridged();
        let unreachable: Vec<i64> = self
            .gaps
            .unbridged()
            .filter(|s| !self.listed_published.contains(s))
            .collect();
        for s in unreachable {
            self.problem(
                0,
                Some(s),
                Code::WithheldUnreachable,
                format!(
                    "withheld list: seq {s} is listed but no published line bridges to it and it does not extend the tail"
                ),
            );
        }
        // Line 0 (the withheld list's own problems) goes last; then by line and code rank.
        self.problems.sort_by_key(|p| (p.line == 0, p.line, p.code));
        let ok = self.problems.is_empty();
        let head = ok.then(|| {
            tail_head
                .or_else(|| self.previous.and_then(|p| p.id?.digest()))
                .or_else(|| self.header.and_then(|h| h.digest))
        });
        Report {
            ok,
            entries: self.entries,
            head: head.flatten(),
            problems: self.problems,
            bridged,
        }
    }
}

/// A value named in a problem's words, kept short.
fn describe(value: Option<&Value<'_>>) -> String {
    match value {
        None => "missing".to_string(),
        Some(v) => match canonical::to_canonical(v) {
            Ok(bytes) => {
                let s = String::from_utf8_lossy(&bytes);
                if s.chars().count() > 80 {
                    format!("{}…", s.chars().take(80).collect::<String>())
                } else {
                    s.into_owned()
                }
            }
            Err(NotAdmitted::Number) => "a number outside the admitted types".to_string(),
            Err(_) => "a value outside the admitted types".to_string(),
        },
    }
}

/// Splits ledger bytes into `(line number, bytes, terminated)`; the piece after the last LF is
/// returned (unterminated) only when it is non-empty.
pub fn lines(bytes: &[u8]) -> impl Iterator<Item = (u64, &[u8], bool)> {
    let ends_with_lf = bytes.last() == Some(&b'\n');
    let mut pieces: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
    if ends_with_lf || bytes.is_empty() {
        pieces.pop();
    }
    let last = pieces.len();
    pieces
        .into_iter()
        .enumerate()
        .map(move |(i, piece)| (i as u64 + 1, piece, ends_with_lf || i + 1 < last))
}

impl Report {
    /// A ledger that could not be read at all: not ok, the reason as one problem. (Reading from
    /// memory does not fail; this keeps that path free of a panic — docs/build.md#safety.)
    pub fn unreadable(e: &ReadError) -> Report {
        Report {
            ok: false,
            entries: 0,
            head: None,
            problems: vec![Problem {
                line: e.line,
                seq: None,
                code: Code::Unparsable,
                detail: format!("the ledger could not be read: {e}"),
            }],
            bridged: Vec::new(),
        }
    }
}

/// Verifies a whole ledger held in memory (tests, the build, vectors).
pub fn verify_bytes(bytes: &[u8], withheld: &Withheld) -> Report {
    verify_reader(bytes, withheld, Pass::Lean)
        .map(|v| v.report)
        .unwrap_or_else(|e| Report::unreadable(&e))
}

/// The same, through the full reader only (no fast path): the yardstick the fast path is held
/// to in the property tests.
pub fn verify_bytes_full(bytes: &[u8], withheld: &Withheld) -> Report {
    verify_reader(bytes, withheld, Pass::Entries(&mut |_, _| {}))
        .map(|v| v.report)
        .unwrap_or_else(|e| Report::unreadable(&e))
}

/// How [`verify_reader`] reads each line.
pub enum Pass<'f> {
    /// Only the report: lines the fast scanner proves canonical are never built into objects.
    Lean,
    /// Every readable entry is handed to the callback, with the byte offset its line starts at.
    Entries(&'f mut dyn FnMut(&Entry<'_>, u64)),
    /// Every readable entry's [`EntryFields`], with its offset: as lean as [`Pass::Lean`].
    Fields(&'f mut dyn FnMut(&EntryFields<'_>, u64)),
}

/// What [`Pass::Fields`] hands on of an entry: its bytes, seq and derived id as
/// [`Entry`] has them, whether a problem was reported at it, and its `kind`, `day` and
/// `timestamp` when each is a string (borrowed from the line when the fast path read it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntryFields<'a> {
    pub line: u64,
    pub bytes: &'a [u8],
    pub seq: Option<i64>,
    pub derived_id: Option<Digest>,
    pub has_problem: bool,
    pub kind: Option<Cow<'a, str>>,
    pub day: Option<Cow<'a, str>>,
    pub timestamp: Option<Cow<'a, str>>,
}

/// What one pass over a ledger concluded.
#[derive(Debug, Clone)]
pub struct Verified {
    pub report: Report,
    /// The header as read from line 1, when there was one.
    pub header: Option<Header>,
}

/// A line that could not be read from the source (the ledger itself was not judged).
#[derive(Debug)]
pub struct ReadError {
    /// The 1-based line being read.
    pub line: u64,
    pub source: std::io::Error,
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "cannot read line {}: {}", self.line, self.source)
    }
}

impl std::error::Error for ReadError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.source)
    }
}

/// The verifier's one streaming entry point (docs/protocol.md#chain): reads `reader` line by
/// line, keeping one line in memory, and verifies the chain against `withheld`. A last piece
/// without LF is reported as `truncated_tail` and not chained.
pub fn verify_reader<R: std::io::BufRead>(
    mut reader: R,
    withheld: &Withheld,
    mut pass: Pass<'_>,
) -> Result<Verified, ReadError> {
    let mut verifier = Verifier::new(withheld);
    let mut buf = Vec::with_capacity(4096);
    let mut line = 0u64;
    let mut offset = 0u64;
    loop {
        buf.clear();
        let n = reader
            .read_until(b'\n', &mut buf)
            .map_err(|source| ReadError {
                line: line + 1,
                source,
            })?;
        if n == 0 {
            break;
        }
        line += 1;
        if buf.last() == Some(&b'\n') {
            buf.pop();
            match &mut pass {
                Pass::Lean => verifier.push_line_lean(line, &buf),
                Pass::Entries(on_entry) => {
                    if let Some(entry) = verifier.push_line(line, &buf) {
                        on_entry(&entry, offset);
                    }
                }
                Pass::Fields(on_fields) => {
                    if let Some(fields) = verifier.push_line_fields(line, &buf) {
                        on_fields(&fields, offset);
                    }
                }
            }
        } else {
            verifier.push_truncated_tail(line, &buf);
        }
        offset += n as u64;
    }
    let header = verifier.header().cloned();
    Ok(Verified {
        report: verifier.finish(),
        header,
    })
}

/// The anchor zone's rules covering every instant at which a verifier of `bytes` derives a day:
/// the header's `anchor_tz` over the span from the earliest to the latest `timestamp` of the
/// lines after line 1 that read as objects. The page carries this table so that it derives the
/// days `exhibit verify` derives (docs/verifier.md "Days and the tz database"). `None` when line
/// 1 names no zone this binary's tz database knows.
pub fn tz_rules_for_ledger(bytes: &[u8]) -> Option<days::TzRules> {
    let mut zone = None;
    let (mut from, mut until) = (i64::MAX, i64::MIN);
    for (line, piece, terminated) in lines(bytes) {
        if !terminated {
            continue;
        }
        if line > 1
            && let Some(scan) = canonical::scan_entry(piece)
        {
            // The common case, a canonical line, without building its object.
            if let Some(t) = scan.timestamp.and_then(days::parse_timestamp) {
                from = from.min(t);
                until = until.max(t + 1);
            }
            continue;
        }
        let Ok(parsed) = canonical::parse(piece) else {
            continue;
        };
        let Some(object) = parsed.value.as_object() else {
            continue;
        };
        if line == 1 {
            zone = Some(object.get_str("anchor_tz")?.to_owned());
        } else if let Some(t) = object.get_str("timestamp").and_then(days::parse_timestamp) {
            from = from.min(t);
            until = until.max(t + 1);
        }
    }
    span_rules(&zone?, from, until)
}

/// [`tz_rules_for_ledger`] from what a reader of the ledger already holds: line 1's `anchor_tz`
/// and the `timestamp`s (as seconds) of the lines after it that read as one.
pub fn tz_rules_for_timestamps(
    zone: &str,
    timestamps: impl IntoIterator<Item = i64>,
) -> Option<days::TzRules> {
    let (mut from, mut until) = (i64::MAX, i64::MIN);
    for t in timestamps {
        from = from.min(t);
        until = until.max(t + 1);
    }
    span_rules(zone, from, until)
}

fn span_rules(zone: &str, mut from: i64, mut until: i64) -> Option<days::TzRules> {
    if from > until {
        (from, until) = (0, 0);
    }
    days::TzRules::for_span(zone, from, until)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_withheld_list_is_refused_in_the_words_it_always_was() {
        let d = Digest::of(b"x");
        let cases: [(String, &str); 7] = [
            ("{".into(), "not one JSON value: "),
            (
                "{}".into(),
                "not a JSON array of {seq, entry_id, ...} objects",
            ),
            (
                format!(r#"[{{"seq":1,"entry_id":"{d}","day":"2026-02-30"}}]"#),
                "item 0: day \"2026-02-30\" is not a YYYY-MM-DD date that exists",
            ),
            (
                r#"[{"seq":0,"entry_id":"nope"},{"seq":1,"kind":3}]"#.into(),
                // Every item is read before any is checked against the rules of seq and digest.
                "item 1: entry_id is not a string",
            ),
            (
                r#"[{"seq":4,"entry_id":"ABC"}]"#.into(),
                "seq 4: entry_id is not 64 lowercase hex characters",
            ),
            (
                format!(
                    r#"[{{"seq":2,"entry_id":"{d}"}},{{"seq":2,"entry_id":"{d}"}},{{"seq":3,"entry_id":"x"}}]"#
                ),
                // In list order: the repeated seq comes before the later bad digest.
                "seq 2 is listed twice",
            ),
            (
                format!(r#"[{{"seq":0,"entry_id":"{d}"}}]"#),
                "seq 0 is not a positive integer",
            ),
        ];
        for (list, words) in cases {
            let e = Withheld::from_json(list.as_bytes()).unwrap_err();
            assert!(e.to_string().starts_with(words), "{list}: {e}");
            assert_eq!(
                e.to_string().matches("not one JSON value").count(),
                usize::from(words.starts_with("not one")),
                "{e}"
            );
        }
        // Bytes that are not UTF-8 are named as such, once.
        let e = Withheld::from_json(b"[\xff]").unwrap_err().to_string();
        assert!(e.starts_with("not one JSON value: not UTF-8"), "{e}");
        let ok = format!(r#"[{{"seq":2,"entry_id":"{d}","day":null}}]"#);
        let list = Withheld::from_json(ok.as_bytes()).unwrap();
        assert_eq!(list.digest(2), Some(d));
    }

    #[test]
    fn the_tz_rules_from_timestamps_are_the_rules_read_from_the_ledger_s_bytes() {
        // Across New York's change from summer time (2026-11-01T06:00:00Z), out of order.
        let stamps = [
            "2026-11-02T10:00:00Z",
            "2026-10-30T23:59:59Z",
            "2026-11-01T05:59:59Z",
        ];
        for zone in ["America/New_York", "UTC", "Not/AZone"] {
            for n in 0..=stamps.len() {
                let mut bytes = format!("{{\"anchor_tz\":\"{zone}\"}}\n");
                for t in &stamps[..n] {
                    bytes.push_str(&format!("{{\"timestamp\":\"{t}\"}}\n"));
                }
                let secs = stamps[..n]
                    .iter()
                    .map(|t| days::parse_timestamp(t).unwrap());
                let from_bytes = tz_rules_for_ledger(bytes.as_bytes());
                assert_eq!(
                    tz_rules_for_timestamps(zone, secs),
                    from_bytes,
                    "{zone} {n}"
                );
                assert_eq!(from_bytes.is_some(), zone != "Not/AZone");
            }
        }
        let rules = tz_rules_for_timestamps(
            "America/New_York",
            stamps.iter().map(|t| days::parse_timestamp(t).unwrap()),
        )
        .unwrap();
        assert_eq!(rules.offsets.len(), 2, "the change is in the span");
    }

    /// A chained ledger of `n` canonical entries (New York, a minute apart).
    fn ledger(n: i64) -> Vec<Vec<u8>> {
        let mut header = Object::default();
        header.insert("anchor_tz", Value::str("America/New_York"));
        header.insert("schema", Value::str(HEADER_SCHEMA));
        let mut line = Vec::new();
        canonical::dump_object_except(&header, None, &mut line).unwrap();
        let mut prev =
            Digest::of(&[b"darkflobi.gate/log/v0\n".as_slice(), &line].concat()).to_string();
        let mut lines = vec![line];
        for seq in 1..=n {
            let ts = format!("2026-10-25T14:{:02}:00Z", seq);
            let mut o = Object::default();
            o.insert("schema", Value::str(ENTRY_SCHEMA));
            o.insert("seq", Value::Int(seq));
            o.insert("prev", Value::str(prev.clone()));
            o.insert("timestamp", Value::str(ts));
            o.insert("day", Value::str("2026-10-25"));
            let mut core = Vec::new();
            canonical::dump_object_except(&o, None, &mut core).unwrap();
            prev = Digest::of(&core).to_string();
            o.insert("entry_id", Value::str(prev.clone()));
            let mut out = Vec::new();
            canonical::dump_object_except(&o, None, &mut out).unwrap();
            lines.push(out);
        }
        lines
    }

    /// The fast path takes every line of a good ledger itself: a fast path that always falls back
    /// to the full reader gives the same answers, slowly, and only this test sees it.
    #[test]
    fn the_fast_path_takes_good_lines() {
        let lines = ledger(5);
        let withheld = Withheld::default();
        let mut v = Verifier::new(&withheld);
        v.push_line(1, &lines[0]);
        for (i, line) in lines.iter().enumerate().skip(1) {
            assert!(
                v.fast_entry(i as u64 + 1, line).is_some(),
                "line {} fell back",
                i + 1
            );
        }
        let report = v.finish();
        assert!(report.ok, "{:?}", report.problems);
        assert_eq!(report.entries, 5);
    }

    /// The reading problems say where: how many CR bytes and where the first is, and the first
    /// byte that differs from the canonical dump.
    #[test]
    fn reading_problems_say_where() {
        let lines = ledger(2);
        let mut cr = lines[1].clone();
        cr.insert(10, b'\r');
        cr.insert(20, b'\r');
        let mut spaced = lines[2].clone();
        spaced.insert(1, b' ');
        let mut bytes = [lines[0].clone(), cr, spaced].join(&b'\n');
        bytes.push(b'\n');
        let report = verify_bytes(&bytes, &Withheld::default());
        let cr = report
            .problems
            .iter()
            .find(|p| p.code == Code::CrByte)
            .unwrap();
        assert!(
            cr.detail.starts_with("2 CR byte(s), the first at byte 11;"),
            "{}",
            cr.detail
        );
        let nc = report
            .problems
            .iter()
            .find(|p| p.code == Code::NotCanonical)
            .unwrap();
        assert!(
            nc.detail.contains("first difference at byte 2"),
            "{}",
            nc.detail
        );
    }

    /// A prev_mismatch says what was expected, so a person can find the line it should name.
    #[test]
    fn a_prev_mismatch_names_the_expected_digest() {
        let mut lines = ledger(2);
        let expected = String::from_utf8(lines[1].clone()).unwrap();
        let id1 = expected.split("\"entry_id\":\"").nth(1).unwrap()[..64].to_owned();
        lines[2] = String::from_utf8(lines[2].clone())
            .unwrap()
            .replace(&id1, &"0".repeat(64))
            .into_bytes();
        let mut bytes = lines.join(&b'\n');
        bytes.push(b'\n');
        let report = verify_bytes(&bytes, &Withheld::default());
        let p = report
            .problems
            .iter()
            .find(|p| p.code == Code::PrevMismatch)
            .unwrap();
        assert!(p.detail.contains(&id1), "{}", p.detail);
    }
}

/// Issue 48, class 21: verification is linear in the input and its memory bounded by the
/// withheld list (docs/verifier.md "Linear in the input"). Counted, never timed.
#[cfg(test)]
mod linear {
    use super::*;

    /// A withheld list of `listed` seqs from 2 on (with `hole`, the gap's last seq but one left
    /// out and a far seq listed instead, so the list is as long as the gap and the gap is worth
    /// walking), and a ledger whose lines alternate seq 1 and the seq just past the gap: a
    /// verifier that walks the gap per line walks it `lines / 2` times.
    fn hostile(listed: i64, lines: usize, hole: bool) -> (Withheld, Vec<Vec<u8>>) {
        let digest = "ab".repeat(32).parse::<Digest>().unwrap();
        let mut seqs: Vec<i64> = (2..listed + 2).collect();
        if hole {
            seqs.retain(|&s| s != listed);
            seqs.push(10 * listed + 7);
        }
        let entries = seqs
            .into_iter()
            .map(|seq| WithheldEntry {
                seq,
                entry_id: digest,
                kind: None,
                dest_class: None,
                day: None,
                fields_flagged: Vec::new(),
                reason: None,
            })
            .collect();
        let withheld = Withheld::from_entries(entries).unwrap();
        let beyond = listed + 2;
        let mut out = vec![br#"{"schema":"darkflobi.gate/log/v0"}"#.to_vec()];
        for i in 0..lines {
            let seq = if i % 2 == 0 { 1 } else { beyond };
            out.push(format!(r#"{{"schema":"darkflobi.gate/entry/v0","seq":{seq}}}"#).into_bytes());
        }
        (withheld, out)
    }

    /// The withheld seqs visited (looked up or marked bridged) by one pass, and its report.
    fn steps(withheld: &Withheld, lines: &[Vec<u8>]) -> (u64, Report) {
        let mut v = Verifier::new(withheld);
        for (i, line) in lines.iter().enumerate() {
            v.push_line_lean(i as u64 + 1, line);
        }
        let steps = v.gaps.steps;
        (steps, v.finish())
    }

    #[test]
    fn a_gap_stated_past_on_every_line_is_walked_a_bounded_number_of_times() {
        // Once with the gap almost fully listed (the last seq missing: every line walks it and
        // fails at its end), once wholly listed (every other line bridges it again).
        for hole in [true, false] {
            let mut counts = Vec::new();
            for scale in [1i64, 2] {
                let (listed, lines) = (50_000 * scale, 1_000 * scale as usize);
                let (withheld, ledger) = hostile(listed, lines, hole);
                let (n, report) = steps(&withheld, &ledger);
                let input = withheld.len() as u64 + ledger.len() as u64;
                assert!(
                    n <= 4 * input,
                    "{n} steps over the withheld gap for an input of {input} (hole {hole:?})"
                );
                // The answer is the one it always was: the wholly listed gap is bridged once.
                let expect = if hole { 0 } else { listed as usize };
                assert_eq!(report.bridged.len(), expect);
                counts.push(n);
            }
            // Twice the input (twice the list, twice the lines): at most a little over twice the work.
            assert!(
                counts[1] <= counts[0] * 5 / 2,
                "{counts:?}: the work grows faster than the input"
            );
        }
    }
}
