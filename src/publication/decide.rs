//! The decide stage: which lines are published, which are withheld and why, what the previous
//! publication binds us to, and what is pinned by a posted head (docs/protocol.md#publication, docs/protocol.md#withholding).

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use anyhow::Result;

use super::BuildPlan;
use super::anchors::check_anchors;
use super::load::LoadedBox;
use super::verify::VerifiedLedger;
use crate::operator_box::gate_ledger::GateLedger;
use crate::operator_box::posts::{AnchorReport, ProofState};
use crate::terminal::refusal::Refusal;
use exhibit_protocol::Digest;
use exhibit_protocol::anchors::FormatState;
use exhibit_protocol::canonical::{self, Object, Value};
use exhibit_protocol::registry::{Registry, Verdict};
use exhibit_protocol::verify::{Withheld, WithheldEntry};

/// One entry of the gate's ledger, as the later stages need it, in at most 72 bytes. The object itself is
/// re-read from the gate's ledger (`offset`, `len`) when a stage needs more (keeps 1M-line builds
/// lean: docs/scale.md#memory).
#[derive(Debug, Clone)]
pub struct LineRecord {
    pub seq: i64,
    pub entry_id: Digest,
    /// The line's kind and day, shared with every line of the same kind and day (a million
    /// lines hold a few kinds and days: docs/scale.md#memory).
    pub kind_day: KindDay,
    /// The `timestamp`, when `has_timestamp` ([`LineRecord::timestamp`]): not an `Option`,
    /// which takes 8 bytes more a line, and in five bytes, not eight (with the offset's, 72
    /// bytes a line where they took 80: docs/scale.md#narrower-lines).
    pub timestamp: crate::publication::record_fields::Clock,
    pub has_timestamp: bool,
    /// Where the line starts in the gate's ledger (a ledger is under 1 TiB and a line at most
    /// 4 GiB: `verify` refuses a longer one), and its length without the LF.
    pub offset: crate::publication::record_fields::Offset,
    pub len: u32,
    /// Set when the line is withheld (boxed: most lines are published, and at a million lines
    /// an inline entry costs 150 MB: docs/scale.md#memory).
    pub withheld: Option<Box<WithheldEntry>>,
    /// Set when the line is published on an operator's reading (`--allow-line`).
    pub read_by_operator: bool,
}

/// The chain's lines, read by the witness layer's table of the store's ids for a line's
/// entry_id (docs/scale.md#ids-by-line).
impl crate::published::entry_ids::LineIds for Vec<LineRecord> {
    fn count(&self) -> usize {
        self.len()
    }

    fn entry_id(&self, line: usize) -> Digest {
        self[line].entry_id
    }
}

/// A line's kind and day, behind one thin pointer shared by every line of that kind and day:
/// 8 bytes a line where the two texts took 16 (docs/scale.md#narrower-records).
#[derive(Debug, Clone)]
pub struct KindDay(std::sync::Arc<(SharedText, SharedText)>);

impl KindDay {
    pub fn new(kind: SharedText, day: SharedText) -> KindDay {
        KindDay(std::sync::Arc::new((kind, day)))
    }

    /// Whether this is `kind` and `day` themselves (the same shared texts, not equal ones).
    pub fn is(&self, kind: &SharedText, day: &SharedText) -> bool {
        std::sync::Arc::ptr_eq(&self.0.0.0, &kind.0) && std::sync::Arc::ptr_eq(&self.0.1.0, &day.0)
    }
}

/// A line's object, from the line's bytes as read again from the gate's ledger.
pub fn line_object(line: &[u8]) -> Object<'_> {
    match canonical::parse(line).map(|p| p.value) {
        Ok(Value::Object(o)) => o,
        // A verified line re-read is always an object; an empty one judges as nothing.
        _ => Object::default(),
    }
}

/// A text many lines share (a kind, a day), behind one thin pointer: 8 bytes a line where an
/// `Arc<str>` takes 16 (docs/scale.md#what-is-left).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SharedText(std::sync::Arc<Box<str>>);

impl std::ops::Deref for SharedText {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl std::borrow::Borrow<str> for SharedText {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for SharedText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Written as the text it holds (the public-texts index lists a text's day).
impl serde::Serialize for SharedText {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.0)
    }
}

impl From<&str> for SharedText {
    fn from(text: &str) -> SharedText {
        SharedText(std::sync::Arc::new(text.into()))
    }
}

impl LineRecord {
    /// The line's `timestamp`, as seconds; `None` when it does not read as one.
    pub fn timestamp(&self) -> Option<i64> {
        self.has_timestamp.then(|| self.timestamp.secs())
    }

    pub fn published(&self) -> bool {
        self.withheld.is_none()
    }

    pub fn kind(&self) -> &SharedText {
        &self.kind_day.0.0
    }

    pub fn day(&self) -> &SharedText {
        &self.kind_day.0.1
    }

    /// Where the line starts in the gate's ledger.
    pub fn start(&self) -> usize {
        // Below 1 TiB: exact wherever a usize holds 40 bits (gate_ledger reads the ledger
        // whole into memory on other targets, far below that).
        self.offset.get() as usize
    }

    /// Where the line ends in the gate's ledger (its LF not included).
    pub fn end(&self) -> usize {
        self.start() + self.len as usize
    }
}

/// One of HEAD's published ledger files: what the append-only check compares, without the
/// bytes (docs/scale.md#memory).
#[derive(Debug, Clone)]
pub struct HeadFile {
    pub path: String,
    pub bytes: u64,
    pub sha256: Digest,
    /// Read again only to name the first differing byte when the check fails.
    pub id: git2::Oid,
}

/// What HEAD's publication binds this build to.
#[derive(Debug, Default)]
pub struct History {
    /// HEAD's published ledger files in chain order (docs/scale.md#the-cut); none when HEAD
    /// publishes no ledger.
    pub files: Vec<HeadFile>,
    pub withheld: Withheld,
    /// HEAD's withheld list's files `(path, entries)` in order (docs/scale.md#withheld-files).
    pub withheld_files: Vec<(String, usize)>,
    pub published_seqs: BTreeSet<i64>,
    /// Line readings recorded at HEAD: seq → entry_id.
    pub readings: BTreeMap<i64, Digest>,
    /// What HEAD's ledger files hold, by blob id, remembered for the next build.
    pub ledger_seqs: crate::previous::ledger_seqs::LedgerSeqs,
}

/// A line published on an operator's reading, as `ledger/readings.json` records it.
#[derive(Debug, Clone, Serialize, serde::Deserialize, PartialEq, Eq)]
pub struct LineReading {
    pub seq: i64,
    pub entry_id: Digest,
    pub fields_flagged: Vec<String>,
}

#[derive(Debug, Clone, Serialize, serde::Deserialize, Default)]
pub struct Readings {
    pub lines: Vec<LineReading>,
}

pub struct DecideInput<'a> {
    pub ledger: &'a GateLedger,
    pub ledger_name: &'a str,
    pub registry: &'a Registry,
    pub history: &'a History,
    pub allow_line: &'a BTreeSet<i64>,
    pub allow_rewrite: bool,
}

/// The guard's verdicts carried from the previous build, and this build's, to be saved
/// (docs/scale.md#carried-verdicts).
pub type Verdicts = crate::previous::line_verdicts::LineVerdicts;

pub struct Decision {
    pub readings: Readings,
    pub refusals: Vec<Refusal>,
    /// Seqs kept withheld only because an earlier publication withheld them.
    pub sticky: Vec<i64>,
}

/// Decides every line's fate in place (docs/protocol.md#withholding, docs/protocol.md#sticky-history).
///
/// The lines are read again from the gate's ledger, the whole file hashed on the way: the guard
/// judges the bytes the verify stage re-derived, or the build fails
/// (docs/scale.md#the-gates-ledger-is-not-held).
pub fn decide(
    input: &DecideInput<'_>,
    lines: &mut [LineRecord],
    verdicts: &mut Verdicts,
) -> Result<Decision> {
    let mut refusals = Vec::new();
    let mut readings = Readings::default();
    let mut sticky = Vec::new();
    // A line the previous build judged "publish", in the same chain under the same rules, is
    // not parsed and judged again; its bytes are still read and hashed below, with the rest
    // (docs/scale.md#carried-verdicts).
    let carried = verdicts
        .usable(lines.iter().map(|r| (r.seq, r.entry_id)))
        .map(|(through, listed)| (through, listed.to_vec()));
    let mut reader = input.ledger.lines(true);
    for record in lines.iter_mut() {
        let withheld_before = (!input.allow_rewrite)
            .then(|| input.history.withheld.by_seq.get(&record.seq))
            .flatten()
            .filter(|earlier| earlier.entry_id == record.entry_id);
        if withheld_before.is_none()
            && carried.as_ref().is_some_and(|(through, listed)| {
                record.seq <= *through && listed.binary_search(&record.seq).is_err()
            })
        {
            verdicts.carried += 1;
            verdicts.judged(record.seq, record.entry_id, true);
            continue;
        }
        let (line_number, bytes) = reader.get_numbered(record.start(), record.end())?;
        let object = line_object(bytes);
        let dest_class =
            exhibit_protocol::registry::published_dest_class(object.get_str("dest_class"));
        let place = format!("line {line_number} (seq {})", record.seq);
        // A seq withheld before stays withheld (docs/protocol.md#sticky-history: a seq withheld before is never published).
        if let Some(earlier) = withheld_before {
            verdicts.judged(record.seq, record.entry_id, false);
            if input.allow_line.contains(&record.seq) {
                refusals.push(Refusal::new(
"seq_withheld_before",
                    input.ledger_name,
                    &place,
                    format!(
                        "--allow-line {}: seq {} was withheld in an earlier publication and stays withheld (docs/protocol.md#sticky-history: a seq withheld before stays withheld)",
                        record.seq, record.seq
                    ),
                    "drop --allow-line for it, or publish it with --allow-rewrite REASON",
                ));
            }
            record.withheld = Some(Box::new(earlier.clone()));
            sticky.push(record.seq);
            continue;
        }
        let verdict = input.registry.judge(&object);
        verdicts.judged(
            record.seq,
            record.entry_id,
            matches!(verdict, Verdict::Publish),
        );
        match verdict {
            Verdict::Publish => {}
            Verdict::Unknown { kind, fields } => {
                for field in fields {
                    let (code, rule, flag) = if field == "kind" {
                        (
                            "unknown_kind",
                            format!(
                                "kind {kind:?} is not in the field registry (docs/protocol.md#field-registry)"
                            ),
                            format!(
                                "read the line, then admit the kind and each of its fields under [fields.{kind}] in exhibit.toml"
                            ),
                        )
                    } else {
                        (
                            "unknown_field",
                            format!(
                                "field {field:?} of kind {kind:?} is not in the field registry (docs/protocol.md#field-registry)"
                            ),
                            format!(
                                "read the line, then add {field} = \"<type>\" under [fields.{kind}] in exhibit.toml"
                            ),
                        )
                    };
                    refusals.push(Refusal::new(code, input.ledger_name, &place, rule, flag));
                }
            }
            Verdict::Withhold {
                fields_flagged,
                reason,
            } => {
                let read = input.allow_line.contains(&record.seq)
                    || input.history.readings.get(&record.seq) == Some(&record.entry_id);
                let was_published = input.history.published_seqs.contains(&record.seq);
                if read {
                    record.read_by_operator = true;
                    readings.lines.push(LineReading {
                        seq: record.seq,
                        entry_id: record.entry_id,
                        fields_flagged,
                    });
                } else if was_published && !input.allow_rewrite {
                    refusals.push(Refusal::new(
"published_line_now_withheld",
                        input.ledger_name,
                        &place,
                        format!(
                            "a published line newly trips the withholding rules ({reason}); published lines stay published (docs/protocol.md#sticky-history)"
                        ),
                        format!(
                            "--allow-line {} after a person has read it, or --allow-rewrite REASON to withdraw it",
                            record.seq
                        ),
                    ));
                } else {
                    record.withheld = Some(Box::new(WithheldEntry {
                        seq: record.seq,
                        entry_id: record.entry_id,
                        kind: Some(record.kind().to_string()),
                        dest_class,
                        day: Some(record.day().to_string()),
                        fields_flagged,
                        reason: Some(reason),
                    }));
                }
            }
        }
    }
    reader.finish()?;
    Ok(Decision {
        readings,
        refusals,
        sticky,
    })
}

/// Coverage (docs/protocol.md#coverage): a published line is pinned when every line from it to the first posted head at
/// or after it is published.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Coverage {
    /// How many published lines are pinned: only the count is published, so the seqs are not
    /// held (at a million lines a list of them is 8 MB: docs/scale.md#counted-not-listed).
    pub pinned: usize,
    pub severed: SeqRuns,
    pub awaiting_head: SeqRuns,
}

/// Seqs in increasing order, held as runs of consecutive seqs and written as the list of
/// seqs: 16 bytes a run, where a list took 8 bytes a seq. The lines awaiting a posted head
/// are every published line after the last one, nearly all of a chain whose heads are not
/// posted yet: 4 MB held through the build at a million (docs/scale.md#seq-runs).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SeqRuns {
    /// `(first, last)` of each run, in order.
    runs: Vec<(i64, i64)>,
    len: usize,
}

impl SeqRuns {
    /// Adds `seq`, lower than every seq added before (the coverage walks the chain from its
    /// end); [`SeqRuns::finish`] puts the runs in order once all are in.
    fn push_lower(&mut self, seq: i64) {
        match self.runs.last_mut() {
            Some((first, _)) if first.checked_sub(1) == Some(seq) => *first = seq,
            _ => self.runs.push((seq, seq)),
        }
        self.len += 1;
    }

    fn finish(&mut self) {
        self.runs.reverse();
        self.runs.shrink_to_fit();
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Each seq, in order.
    pub fn iter(&self) -> impl Iterator<Item = i64> + '_ {
        self.runs.iter().flat_map(|&(first, last)| first..=last)
    }
}

/// Written as the list of its seqs, as a list of numbers was.
impl Serialize for SeqRuns {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter())
    }
}

pub fn coverage(lines: &[LineRecord], posted_head_seqs: &BTreeSet<i64>) -> Coverage {
    let mut cov = Coverage {
        pinned: 0,
        severed: SeqRuns::default(),
        awaiting_head: SeqRuns::default(),
    };
    // Walk backwards, remembering the nearest posted head at or after each seq and the first
    // withheld seq between.
    let mut head_ahead: Option<i64> = None;
    let mut withheld_before_head: Option<i64> = None;
    for record in lines.iter().rev() {
        if posted_head_seqs.contains(&record.seq) {
            head_ahead = Some(record.seq);
            withheld_before_head = None;
        }
        if !record.published() {
            withheld_before_head = Some(record.seq);
            continue;
        }
        match (head_ahead, withheld_before_head) {
            (None, _) => cov.awaiting_head.push_lower(record.seq),
            (Some(_), None) => cov.pinned += 1,
            (Some(_), Some(_)) => cov.severed.push_lower(record.seq),
        }
    }
    cov.severed.finish();
    cov.awaiting_head.finish();
    cov
}

/// The published ledger — the header, then each published line — as spans of the gate's
/// ledger, never copied whole (at a million lines the copy is 600 MB: docs/scale.md#memory).
/// Offsets into the published ledger map onto the gate's through the spans.
#[derive(Debug, Default, Clone)]
pub struct PublishedSpans {
    /// `(start, end)` in the gate's ledger, end exclusive; adjacent spans are merged.
    spans: Vec<(usize, usize)>,
    len: usize,
}

impl PublishedSpans {
    fn push(&mut self, start: usize, end: usize) {
        match self.spans.last_mut() {
            Some(last) if last.1 == start => last.1 = end,
            _ => self.spans.push((start, end)),
        }
        self.len += end - start;
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The spans of the gate's ledger that hold the published bytes from offset `from` to `to`
    /// (end exclusive).
    pub fn between(&self, from: usize, to: usize) -> Vec<(usize, usize)> {
        let mut at = 0usize;
        self.spans
            .iter()
            .filter_map(|&(start, end)| {
                let (lo, hi) = (at, at + (end - start));
                at = hi;
                let (a, b) = (lo.max(from), hi.min(to));
                (a < b).then(|| (start + (a - lo), start + (b - lo)))
            })
            .collect()
    }

    /// The published bytes from `from` to `to`, read (where one of HEAD's files differs).
    pub fn copy(&self, ledger: &GateLedger, from: usize, to: usize) -> Result<Vec<u8>> {
        let mut out = Vec::with_capacity(to.saturating_sub(from));
        ledger.read_spans(&self.between(from, to), |piece| {
            out.extend_from_slice(piece);
            Ok(())
        })?;
        Ok(out)
    }

    /// The sha256 of the published bytes from `from` to `to`.
    pub fn sha256(&self, ledger: &GateLedger, from: usize, to: usize) -> Result<Digest> {
        use sha2::Digest as _;
        let mut h = sha2::Sha256::new();
        ledger.read_spans(&self.between(from, to), |piece| {
            h.update(piece);
            Ok(())
        })?;
        Ok(Digest(h.finalize().into()))
    }
}

/// What the decide stage concluded: each line's fate, the bytes to publish, and what they prove.
pub struct Decided {
    /// The verified ledger, each line now carrying its decision.
    pub verified: VerifiedLedger,
    pub decision: Decision,
    /// The published ledger, as spans of the gate's.
    pub published: PublishedSpans,
    /// The publication byte-extends HEAD's (before the layers say whether they rewrote).
    pub extends: bool,
    /// HEAD's published ledger files `(path, bytes)` in chain order: kept as they are when the
    /// publication extends HEAD's (docs/scale.md#the-cut).
    pub head_files: Vec<HeadFile>,
    /// HEAD's withheld list's files `(path, entries)` kept as they are: all of them when this
    /// list begins with HEAD's entries, else none (docs/scale.md#withheld-files).
    pub head_withheld_files: Vec<(String, usize)>,
    pub anchor_reports: Vec<AnchorReport>,
    pub coverage: Coverage,
    pub refusals: Vec<Refusal>,
    /// The guard's verdicts, saved for the next build once DIR is written
    /// (docs/scale.md#carried-verdicts).
    pub verdicts: Verdicts,
}

impl Decided {
    /// The withheld lines' entries, as `withheld.json` lists them: made again from the lines
    /// when written, not held beside them through the layers (docs/scale.md#seq-runs).
    pub fn withheld(&self) -> Vec<WithheldEntry> {
        self.verified
            .lines
            .iter()
            .filter_map(|r| r.withheld.as_deref().cloned())
            .collect()
    }
}

/// Stage 4, decide: the header judged, every line published or withheld, the publication
/// held to HEAD's, the posted heads checked and the coverage they give.
pub fn run(
    plan: &BuildPlan,
    loaded: &LoadedBox,
    verified: VerifiedLedger,
    history: &History,
    previous: &crate::previous::Previous,
) -> Result<Decided> {
    let ledger = &*loaded.ledger;
    let ledger_name = loaded.name.as_str();
    let registry = Registry::new(&plan.config.fields)
        .map_err(|e| anyhow::anyhow!("{}: {e}", plan.config.file.display()))?;

    let mut verified = verified;
    let mut refusals = check_header(ledger, &verified, &registry, plan, ledger_name)?;
    let mut verdicts = Verdicts::open(previous.git_dir(), &plan.config.fields);
    let decision = decide(
        &DecideInput {
            ledger,
            ledger_name,
            registry: &registry,
            history,
            allow_line: &plan.allow_line,
            allow_rewrite: plan.allow_rewrite.is_some(),
        },
        std::sync::Arc::make_mut(&mut verified.lines).as_mut_slice(),
        &mut verdicts,
    )?;
    refusals.extend(decision.refusals.iter().cloned());

    let published = published_spans(&verified);
    let withheld: Vec<WithheldEntry> = verified
        .lines
        .iter()
        .filter_map(|r| r.withheld.as_deref().cloned())
        .collect();
    let withheld_list = Withheld::from_entries(withheld.clone()).map_err(anyhow::Error::msg)?;
    let extends = check_extends(
        history,
        (ledger, &published),
        previous,
        plan,
        ledger_name,
        &mut refusals,
    )?;

    let anchor_reports = check_anchors(ledger, &verified, &withheld_list, loaded.posts.clone())?;
    refusals.extend(anchor_proof_bodies(plan, loaded, &anchor_reports));
    // The verifiers' rule, the same function (a head whose day is not closed, whose ledger
    // line disagrees or whose proof fails vouches for nothing).
    let posted_heads = crate::operator_box::posts::vouching_heads(&anchor_reports);
    let coverage = coverage(&verified.lines, &posted_heads);
    let head_withheld_files = crate::published::withheld_files::kept(
        &withheld,
        &history.withheld,
        &history.withheld_files,
    );
    Ok(Decided {
        verified,
        decision,
        published,
        extends,
        head_files: history.files.clone(),
        head_withheld_files,
        anchor_reports,
        coverage,
        refusals,
        verdicts,
    })
}

/// An anchor proof the build would publish (its post in the posted form, its header committing
/// to the post) is published whole, so the rest of it passes the guard too (docs/build.md#safety):
/// one that does not refuses the build, naming the file.
fn anchor_proof_bodies(
    plan: &BuildPlan,
    loaded: &LoadedBox,
    reports: &[AnchorReport],
) -> Vec<Refusal> {
    let folder = plan
        .config
        .anchors
        .as_deref()
        .unwrap_or(std::path::Path::new("anchors"));
    reports
        .iter()
        .zip(&loaded.posts)
        .filter(|(r, _)| r.check.format == FormatState::Ok && r.proof == ProofState::Ok)
        .filter_map(|(_, (post, proof))| {
            let body = crate::publication::layers::proof_body::check(proof.as_deref()?).err()?;
            Some(Refusal::new(
                "anchor_proof_body",
                folder.join(format!("{}.txt.ots", post.date)).display().to_string(),
                "",
                format!("{} [{}]; every byte of a published proof passes the guard (docs/build.md#safety)", body.words, body.code),
                "replace the proof with the calendar's own, as an OpenTimestamps client writes it (ots stamp / ots upgrade), or remove it to publish the post without a proof",
            ))
        })
        .collect()
}

/// The header cannot be withheld: an unknown field or an identifier in it refuses the build.
fn check_header(
    ledger: &GateLedger,
    verified: &VerifiedLedger,
    registry: &Registry,
    plan: &BuildPlan,
    ledger_name: &str,
) -> Result<Vec<Refusal>> {
    let bytes = ledger.read(verified.header.0, verified.header.1)?;
    let parsed = canonical::parse(&bytes);
    let Some(header) = parsed.as_ref().ok().and_then(|p| p.value.as_object()) else {
        return Ok(vec![Refusal::new(
            "header_not_canonical",
            ledger_name,
            "line 1 (header)",
            "the header is not a canonical JSON object (docs/protocol.md#verifier-report)",
            "repair the gate's ledger first",
        )]);
    };
    Ok(match registry.judge_header(header) {
        Verdict::Publish => vec![],
        Verdict::Unknown { fields, .. } => fields
            .into_iter()
            .map(|f| {
                Refusal::new(
                    "unknown_header_field",
                    ledger_name,
                    "line 1 (header)",
                    format!("header field {f:?} is not in the registry (docs/protocol.md#field-registry)"),
                    format!(
                        "read it, then add {f} = \"<type>\" under [fields.header] in exhibit.toml"
                    ),
                )
            })
            .collect(),
        Verdict::Withhold { reason, .. } if !plan.allow_line.contains(&0) => vec![Refusal::new(
            "header_identifier",
            ledger_name,
            "line 1 (header)",
            format!(
                "in the header, {}; a header cannot be withheld, and its certifies sentence is read as published prose (docs/protocol.md#withholding)",
                reason.strip_prefix("withheld because ").unwrap_or(&reason)
            ),
            "--allow-line 0 after a person has read the header",
        )],
        Verdict::Withhold { .. } => vec![],
    })
}

fn published_spans(verified: &VerifiedLedger) -> PublishedSpans {
    let mut spans = PublishedSpans::default();
    spans.push(verified.header.0, verified.header.1 + 1);
    for r in verified.lines.iter().filter(|r| r.published()) {
        spans.push(r.start(), r.end() + 1);
    }
    spans
}

/// Append-only (docs/protocol.md#snapshots): the new published ledger must byte-extend the one
/// published at HEAD. Each of HEAD's files is compared by size and sha256 with the same span
/// of the new ledger; HEAD's bytes are read again only to name the first difference.
fn check_extends(
    history: &History,
    (ledger, new): (&GateLedger, &PublishedSpans),
    previous: &crate::previous::Previous,
    plan: &BuildPlan,
    ledger_name: &str,
    refusals: &mut Vec<Refusal>,
) -> Result<bool> {
    let mut begin = 0usize;
    let mut differs = None;
    for file in &history.files {
        let end = begin + file.bytes as usize;
        if end > new.len() || new.sha256(ledger, begin, end)? != file.sha256 {
            differs = Some((file, begin));
            break;
        }
        begin = end;
    }
    let Some((file, file_start)) = differs else {
        return Ok(true);
    };
    if plan.allow_rewrite.is_none() {
        let old = previous.read_blob(file.id, &file.path)?;
        let theirs = new.copy(ledger, file_start, (file_start + old.len()).min(new.len()))?;
        let within = old
            .iter()
            .zip(&theirs)
            .position(|(a, b)| a != b)
            .unwrap_or(theirs.len().min(old.len()));
        let at = file_start + within;
        let line = old[..within].iter().filter(|&&b| b == b'\n').count() + 1;
        let old_len: u64 = history.files.iter().map(|f| f.bytes).sum();
        refusals.push(Refusal::new(
"not_an_extension",
            file.path.as_str(),
            format!("line {line}"),
            format!(
                "the new publication does not byte-extend the one at HEAD (first difference at byte {} of the published ledger; {} would publish {} bytes, HEAD has {}); publications are append-only (docs/protocol.md#snapshots)",
                at + 1,
                ledger_name,
                new.len(),
                old_len
            ),
            "--allow-rewrite REASON (recorded as rewrite_reason with extends: false)",
        ));
    }
    Ok(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_record_stays_small() {
        // A million lines are a million records, held for the whole build: each byte here is a
        // megabyte there (docs/scale.md#what-is-left). Catches the kind and day back as two
        // pointers or wide ones, the end as a second offset (96 bytes), the timestamp as an
        // `Option`, or the line's number kept again (88: it is counted as decide reads the
        // lines, docs/scale.md#line-numbers-counted), or the timestamp and the offset back in
        // eight bytes each (80: docs/scale.md#narrower-lines).
        assert!(std::mem::size_of::<LineRecord>() <= 72);
        let mut r = rec(1, false);
        assert_eq!(r.timestamp(), None);
        (r.timestamp, r.has_timestamp) = (
            crate::publication::record_fields::Clock::new(0).unwrap(),
            true,
        );
        assert_eq!(r.timestamp(), Some(0), "the epoch is a timestamp, not none");
        r.offset = crate::publication::record_fields::Offset::new(1 << 39).unwrap();
        r.len = 7;
        assert_eq!((r.start(), r.end()), (1 << 39, (1 << 39) + 7));
        let kind = SharedText::from("send");
        assert_eq!(&*kind, "send");
        assert_eq!(kind.to_string(), "send");
    }

    fn rec(seq: i64, withheld: bool) -> LineRecord {
        LineRecord {
            seq,
            entry_id: Digest([0; 32]),
            kind_day: KindDay::new("send".into(), "".into()),
            timestamp: Default::default(),
            has_timestamp: false,
            offset: Default::default(),
            len: 0,
            withheld: withheld.then(|| {
                Box::new(WithheldEntry {
                    seq,
                    entry_id: Digest([0; 32]),
                    kind: None,
                    dest_class: None,
                    day: None,
                    fields_flagged: vec![],
                    reason: None,
                })
            }),
            read_by_operator: false,
        }
    }

    #[test]
    fn coverage_by_hand() {
        // seqs 1..=10; heads posted at 4 and 8; 6 withheld; 10 after the last head.
        let lines: Vec<LineRecord> = (1..=10).map(|s| rec(s, s == 6)).collect();
        let cov = coverage(&lines, &BTreeSet::from([4, 8]));
        // 1, 2, 3, 4, 7 and 8: the nine published lines less the severed and the awaiting.
        assert_eq!(cov.pinned, 6);
        assert_eq!(cov.severed.iter().collect::<Vec<_>>(), [5]);
        assert_eq!(cov.awaiting_head.iter().collect::<Vec<_>>(), [9, 10]);
    }

    #[test]
    fn seq_runs_give_back_every_seq_in_order_and_write_as_the_list() {
        // Catches a run extended across a gap, a seq lost at a run's edge, runs left in the
        // walk's order, and a written form that differs from the list of numbers it replaced.
        let seqs: Vec<i64> = vec![1, 2, 3, 5, 9, 10, 11, 12, 14, i64::MAX - 1, i64::MAX];
        let mut runs = SeqRuns::default();
        for &seq in seqs.iter().rev() {
            runs.push_lower(seq);
        }
        runs.finish();
        assert_eq!(runs.iter().collect::<Vec<_>>(), seqs);
        assert_eq!((runs.len(), runs.runs.len()), (seqs.len(), 5));
        assert_eq!(
            serde_json::to_string_pretty(&runs).unwrap(),
            serde_json::to_string_pretty(&seqs).unwrap()
        );
        assert_eq!(serde_json::to_string(&SeqRuns::default()).unwrap(), "[]");
    }

    #[test]
    fn a_withheld_head_severs_the_lines_it_would_pin() {
        let lines: Vec<LineRecord> = (1..=5).map(|s| rec(s, s == 3)).collect();
        let cov = coverage(&lines, &BTreeSet::from([3, 5]));
        assert_eq!(cov.severed.iter().collect::<Vec<_>>(), [1, 2]);
        assert_eq!(cov.pinned, 2);
        assert!(cov.awaiting_head.is_empty());
    }
}
