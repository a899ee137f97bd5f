//! The decide stage: which lines are published, which are withheld and why, what the previous
//! publication binds us to, and what is pinned by a posted head (docs/protocol.md#publication, docs/protocol.md#withholding).

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use anyhow::Result;

use super::BuildPlan;
use super::anchors::check_anchors;
use super::load::LoadedBox;
use super::verify::VerifiedLedger;
use crate::posts::AnchorReport;
use crate::refusal::Refusal;
use exhibit_protocol::Digest;
use exhibit_protocol::anchors::{FormatState, HeadState};
use exhibit_protocol::canonical::{self, Object, Value};
use exhibit_protocol::registry::{Registry, Verdict};
use exhibit_protocol::verify::{Withheld, WithheldEntry};

/// One entry of the gate's ledger, as the later stages need it. The object itself is re-read
/// from `bytes[start..end]` when a stage needs more (keeps 1M-line builds lean).
#[derive(Debug, Clone)]
pub struct LineRecord {
    pub line: u64,
    pub seq: i64,
    pub entry_id: Digest,
    pub kind: String,
    pub day: String,
    pub timestamp: String,
    pub start: usize,
    pub end: usize,
    /// Set when the line is withheld.
    pub withheld: Option<WithheldEntry>,
    /// Set when the line is published on an operator's reading (`--allow-line`).
    pub read_by_operator: bool,
}

impl LineRecord {
    pub fn object<'a>(&self, ledger: &'a [u8]) -> Object<'a> {
        match canonical::parse(&ledger[self.start..self.end]).map(|p| p.value) {
            Ok(Value::Object(o)) => o,
            // A verified line re-read is always an object; an empty one judges as nothing.
            _ => Object::default(),
        }
    }

    pub fn published(&self) -> bool {
        self.withheld.is_none()
    }
}

/// What HEAD's publication binds this build to.
#[derive(Debug, Default)]
pub struct History {
    /// HEAD's published ledger: its files concatenated in chain order.
    pub ledger: Option<Vec<u8>>,
    /// HEAD's published ledger files in chain order, `(path, bytes)` (docs/scale.md#the-cut).
    pub files: Vec<(String, u64)>,
    pub withheld: Withheld,
    pub published_seqs: BTreeSet<i64>,
    /// Line readings recorded at HEAD: seq → entry_id.
    pub readings: BTreeMap<i64, Digest>,
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
    pub ledger: &'a [u8],
    pub ledger_name: &'a str,
    pub registry: &'a Registry,
    pub history: &'a History,
    pub allow_line: &'a BTreeSet<i64>,
    pub allow_rewrite: bool,
}

pub struct Decision {
    pub readings: Readings,
    pub refusals: Vec<Refusal>,
    /// Seqs kept withheld only because an earlier publication withheld them.
    pub sticky: Vec<i64>,
}

/// Decides every line's fate in place (docs/protocol.md#withholding, docs/protocol.md#sticky-history).
pub fn decide(input: &DecideInput<'_>, lines: &mut [LineRecord]) -> Decision {
    let mut refusals = Vec::new();
    let mut readings = Readings::default();
    let mut sticky = Vec::new();
    for record in lines.iter_mut() {
        let object = record.object(input.ledger);
        let dest_class =
            exhibit_protocol::registry::published_dest_class(object.get_str("dest_class"));
        let place = format!("line {} (seq {})", record.line, record.seq);
        // A seq withheld before stays withheld (docs/protocol.md#sticky-history: a seq withheld before is never published).
        if !input.allow_rewrite
            && let Some(earlier) = input.history.withheld.by_seq.get(&record.seq)
            && earlier.entry_id == record.entry_id
        {
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
            record.withheld = Some(earlier.clone());
            sticky.push(record.seq);
            continue;
        }
        match input.registry.judge(&object) {
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
                    record.withheld = Some(WithheldEntry {
                        seq: record.seq,
                        entry_id: record.entry_id,
                        kind: Some(record.kind.clone()),
                        dest_class,
                        day: Some(record.day.clone()),
                        fields_flagged,
                        reason: Some(reason),
                    });
                }
            }
        }
    }
    Decision {
        readings,
        refusals,
        sticky,
    }
}

/// Coverage (docs/protocol.md#coverage): a published line is pinned when every line from it to the first posted head at
/// or after it is published.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Coverage {
    pub pinned: Vec<i64>,
    pub severed: Vec<i64>,
    pub awaiting_head: Vec<i64>,
    /// For each severed line, the withheld seq that severs it (the first one after it).
    pub severed_by: BTreeMap<i64, i64>,
}

pub fn coverage(lines: &[LineRecord], posted_head_seqs: &BTreeSet<i64>) -> Coverage {
    let mut cov = Coverage {
        pinned: Vec::new(),
        severed: Vec::new(),
        awaiting_head: Vec::new(),
        severed_by: BTreeMap::new(),
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
            (None, _) => cov.awaiting_head.push(record.seq),
            (Some(_), None) => cov.pinned.push(record.seq),
            (Some(_), Some(w)) => {
                cov.severed.push(record.seq);
                cov.severed_by.insert(record.seq, w);
            }
        }
    }
    cov.pinned.reverse();
    cov.severed.reverse();
    cov.awaiting_head.reverse();
    cov
}

/// What the decide stage concluded: each line's fate, the bytes to publish, and what they prove.
pub struct Decided {
    /// The verified ledger, each line now carrying its decision.
    pub verified: VerifiedLedger,
    pub decision: Decision,
    /// The withheld lines' entries, as `withheld.json` lists them.
    pub withheld: Vec<WithheldEntry>,
    pub published_ledger: Vec<u8>,
    /// The publication byte-extends HEAD's (before the layers say whether they rewrote).
    pub extends: bool,
    /// HEAD's published ledger files `(path, bytes)` in chain order: kept as they are when the
    /// publication extends HEAD's (docs/scale.md#the-cut).
    pub head_files: Vec<(String, u64)>,
    pub anchor_reports: Vec<AnchorReport>,
    pub coverage: Coverage,
    pub refusals: Vec<Refusal>,
}

/// Stage 4, decide: the header judged, every line published or withheld, the publication
/// held to HEAD's, the posted heads checked and the coverage they give.
pub fn run(
    plan: &BuildPlan,
    loaded: &LoadedBox,
    verified: VerifiedLedger,
    history: &History,
) -> Result<Decided> {
    let complete = loaded.complete();
    let ledger_name = loaded.name.as_str();
    let registry = Registry::new(&plan.config.fields)
        .map_err(|e| anyhow::anyhow!("{}: {e}", plan.config.file.display()))?;

    let mut lines = verified.lines.clone();
    let mut refusals = check_header(complete, &verified, &registry, plan, ledger_name);
    let decision = decide(
        &DecideInput {
            ledger: complete,
            ledger_name,
            registry: &registry,
            history,
            allow_line: &plan.allow_line,
            allow_rewrite: plan.allow_rewrite.is_some(),
        },
        &mut lines,
    );
    refusals.extend(decision.refusals.iter().cloned());
    let verified = VerifiedLedger { lines, ..verified };

    let published_ledger = published_ledger_bytes(complete, &verified);
    let withheld: Vec<WithheldEntry> = verified
        .lines
        .iter()
        .filter_map(|r| r.withheld.clone())
        .collect();
    let withheld_list = Withheld::from_entries(withheld.clone()).map_err(anyhow::Error::msg)?;
    let extends = check_extends(history, &published_ledger, plan, ledger_name, &mut refusals);

    let anchor_reports = check_anchors(complete, &verified, &withheld_list, loaded.posts.clone());
    let posted_heads: BTreeSet<i64> = anchor_reports
        .iter()
        .filter(|a| {
            matches!(a.check.head, HeadState::Ok | HeadState::LabWord)
                && a.check.format == FormatState::Ok
        })
        .filter_map(|a| a.check.posted.as_ref().map(|p| p.seq))
        .collect();
    let coverage = coverage(&verified.lines, &posted_heads);
    Ok(Decided {
        verified,
        decision,
        withheld,
        published_ledger,
        extends,
        head_files: history.files.clone(),
        anchor_reports,
        coverage,
        refusals,
    })
}

/// The header cannot be withheld: an unknown field or an identifier in it refuses the build.
fn check_header(
    ledger: &[u8],
    verified: &VerifiedLedger,
    registry: &Registry,
    plan: &BuildPlan,
    ledger_name: &str,
) -> Vec<Refusal> {
    let parsed = canonical::parse(&ledger[verified.header.0..verified.header.1]);
    let Some(header) = parsed.as_ref().ok().and_then(|p| p.value.as_object()) else {
        return vec![Refusal::new(
            "header_not_canonical",
            ledger_name,
            "line 1 (header)",
            "the header is not a canonical JSON object (docs/protocol.md#verifier-report)",
            "repair the gate's ledger first",
        )];
    };
    match registry.judge_header(header) {
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
            format!("the header carries {reason}; a header cannot be withheld (docs/protocol.md#withholding)"),
            "--allow-line 0 after a person has read the header",
        )],
        Verdict::Withhold { .. } => vec![],
    }
}

fn published_ledger_bytes(ledger: &[u8], verified: &VerifiedLedger) -> Vec<u8> {
    let mut out = Vec::with_capacity(ledger.len());
    out.extend_from_slice(&ledger[verified.header.0..=verified.header.1]);
    for r in verified.lines.iter().filter(|r| r.published()) {
        out.extend_from_slice(&ledger[r.start..=r.end]);
    }
    out
}

/// Append-only (docs/protocol.md#snapshots): the new ledger.jsonl must byte-extend the one published at HEAD.
fn check_extends(
    history: &History,
    new: &[u8],
    plan: &BuildPlan,
    ledger_name: &str,
    refusals: &mut Vec<Refusal>,
) -> bool {
    let Some(old) = &history.ledger else {
        return true;
    };
    if new.starts_with(old) {
        return true;
    }
    if plan.allow_rewrite.is_none() {
        let at = old
            .iter()
            .zip(new)
            .position(|(a, b)| a != b)
            .unwrap_or(new.len().min(old.len()));
        // Name HEAD's file that holds the first difference, and the line within it.
        let (mut file, mut file_start) = (crate::segments::LEDGER_FILE, 0usize);
        let mut begin = 0usize;
        for (path, bytes) in &history.files {
            (file, file_start) = (path.as_str(), begin);
            begin += *bytes as usize;
            if at < begin {
                break;
            }
        }
        let line = old[file_start..at].iter().filter(|&&b| b == b'\n').count() + 1;
        refusals.push(Refusal::new(
"not_an_extension",
            file,
            format!("line {line}"),
            format!(
                "the new publication does not byte-extend the one at HEAD (first difference at byte {} of the published ledger; {} would publish {} bytes, HEAD has {}); publications are append-only (docs/protocol.md#snapshots)",
                at + 1,
                ledger_name,
                new.len(),
                old.len()
            ),
            "--allow-rewrite REASON (recorded as rewrite_reason with extends: false)",
        ));
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(seq: i64, withheld: bool) -> LineRecord {
        LineRecord {
            line: seq as u64 + 1,
            seq,
            entry_id: Digest([0; 32]),
            kind: "send".into(),
            day: String::new(),
            timestamp: String::new(),
            start: 0,
            end: 0,
            withheld: withheld.then(|| WithheldEntry {
                seq,
                entry_id: Digest([0; 32]),
                kind: None,
                dest_class: None,
                day: None,
                fields_flagged: vec![],
                reason: None,
            }),
            read_by_operator: false,
        }
    }

    #[test]
    fn coverage_by_hand() {
        // seqs 1..=10; heads posted at 4 and 8; 6 withheld; 10 after the last head.
        let lines: Vec<LineRecord> = (1..=10).map(|s| rec(s, s == 6)).collect();
        let cov = coverage(&lines, &BTreeSet::from([4, 8]));
        assert_eq!(cov.pinned, [1, 2, 3, 4, 7, 8]);
        assert_eq!(cov.severed, [5]);
        assert_eq!(cov.severed_by[&5], 6);
        assert_eq!(cov.awaiting_head, [9, 10]);
    }

    #[test]
    fn a_withheld_head_severs_the_lines_it_would_pin() {
        let lines: Vec<LineRecord> = (1..=5).map(|s| rec(s, s == 3)).collect();
        let cov = coverage(&lines, &BTreeSet::from([3, 5]));
        assert_eq!(cov.severed, [1, 2]);
        assert_eq!(cov.pinned, [4, 5]);
        assert!(cov.awaiting_head.is_empty());
    }
}
