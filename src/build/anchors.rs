//! The posted heads in a build: checked over the published lines and the withheld list (what a
//! stranger can re-do), indexed for `ledger/anchors/index.json`, and worded for stderr
//! (docs/protocol.md#anchors).

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use super::decide::line_object;
use super::verify::VerifiedLedger;
use crate::gate_ledger::GateLedger;
use crate::posts::{self, AnchorReport, ProofState};
use exhibit_protocol::Digest;
use exhibit_protocol::anchors::{
    self, DayClosedState, EntryFacts, FormatState, HeadState, LedgerLineState,
};
use exhibit_protocol::canonical;
use exhibit_protocol::verify::Withheld;

pub fn check_anchors(
    ledger: &GateLedger,
    verified: &VerifiedLedger,
    withheld: &Withheld,
    posts: Vec<(anchors::Post, Option<Vec<u8>>)>,
) -> anyhow::Result<Vec<AnchorReport>> {
    // The checks a stranger can do: over the published lines and the withheld list only.
    let mut facts: Vec<EntryFacts> = Vec::new();
    for r in verified.lines.iter().filter(|r| r.published()) {
        if &*r.kind == "anchor" {
            // An anchor line's own fields, read again from the gate's ledger.
            let bytes = ledger.read(r.start, r.end)?;
            facts.extend(EntryFacts::from_object(
                &line_object(&bytes),
                Some(r.entry_id),
            ));
        } else {
            facts.push(EntryFacts {
                seq: r.seq,
                entry_id: Some(r.entry_id),
                day: Some(r.day.to_string()),
                anchor: None,
            });
        }
    }
    Ok(posts::check_posts_with_proofs(
        &facts,
        withheld,
        Some(verified.header_digest),
        posts,
    ))
}

/// `ledger/anchors/index.json` (docs/protocol.md#anchors). serde_json keeps no insertion order,
/// so the file has always been written with its keys sorted: the fields of these structs are
/// declared in alphabetical order to keep those bytes (a test checks it).
#[derive(Debug, Serialize)]
pub struct AnchorsIndex {
    pub anchor_lines_without_post: Vec<UnpostedAnchorLines>,
    pub note: &'static str,
    pub posts: Vec<IndexedPost>,
}

/// One post of `anchors/index.json`, with its checks.
#[derive(Debug, Serialize)]
pub struct IndexedPost {
    /// The ledger's `anchor` lines whose `anchor_date` is the post's date.
    pub anchor_line_seqs: Vec<i64>,
    pub checks: PostChecks,
    pub date: String,
    pub head: Option<Digest>,
    /// The first `late` an anchor line of the date states.
    pub late: Option<bool>,
    pub ok: bool,
    pub proof_file: Option<String>,
    /// The post's text is the exact posted form, so it is published.
    pub published: bool,
    pub seq: Option<i64>,
    pub text_file: Option<String>,
}

/// The five checks of one post, as `anchors/index.json` words them.
#[derive(Debug, Serialize)]
pub struct PostChecks {
    pub day_closed: DayClosedState,
    pub format: FormatState,
    pub head: HeadState,
    pub ledger_line: LedgerLineState,
    pub proof_header: ProofState,
}

/// The `anchor` lines of a date no post names.
#[derive(Debug, Serialize)]
pub struct UnpostedAnchorLines {
    pub anchor_date: String,
    pub anchor_line_seqs: Vec<i64>,
}

const INDEX_NOTE: &str = "checks re-done by the publisher over the published lines and withheld.json; the page and `exhibit verify SITE` re-do them; a proof is checked only for its header and the digest it commits to — verify it with an OpenTimestamps client";

pub fn anchors_index(
    reports: &[AnchorReport],
    verified: &VerifiedLedger,
    ledger: &GateLedger,
) -> anyhow::Result<AnchorsIndex> {
    let mut lines_by_date: BTreeMap<String, Vec<(i64, Option<bool>)>> = BTreeMap::new();
    for r in verified
        .lines
        .iter()
        .filter(|r| &*r.kind == "anchor" && r.published())
    {
        let bytes = ledger.read(r.start, r.end)?;
        let o = line_object(&bytes);
        if let Some(date) = o.get_str("anchor_date") {
            let late = match o.get("late") {
                Some(canonical::Value::Bool(b)) => Some(*b),
                _ => None,
            };
            lines_by_date
                .entry(date.to_owned())
                .or_default()
                .push((r.seq, late));
        }
    }
    let posted: BTreeSet<&str> = reports.iter().map(|r| r.check.date.as_str()).collect();
    let posts = reports
        .iter()
        .map(|r| {
            let c = &r.check;
            let lines = lines_by_date.get(&c.date).cloned().unwrap_or_default();
            let published = c.format == FormatState::Ok;
            IndexedPost {
                anchor_line_seqs: lines.iter().map(|l| l.0).collect(),
                checks: PostChecks {
                    day_closed: c.day_closed,
                    format: c.format,
                    head: c.head,
                    ledger_line: c.ledger_line,
                    proof_header: r.proof,
                },
                date: c.date.clone(),
                head: c.posted.as_ref().map(|p| p.head),
                late: lines.iter().find_map(|l| l.1),
                ok: r.ok(),
                proof_file: (published && r.proof == ProofState::Ok)
                    .then(|| format!("{}.txt.ots", c.date)),
                published,
                seq: c.posted.as_ref().map(|p| p.seq),
                text_file: published.then(|| format!("{}.txt", c.date)),
            }
        })
        .collect();
    let anchor_lines_without_post = lines_by_date
        .into_iter()
        .filter(|(d, _)| !posted.contains(d.as_str()))
        .map(|(anchor_date, l)| UnpostedAnchorLines {
            anchor_date,
            anchor_line_seqs: l.iter().map(|x| x.0).collect(),
        })
        .collect();
    Ok(AnchorsIndex {
        anchor_lines_without_post,
        note: INDEX_NOTE,
        posts,
    })
}

pub fn anchor_notes(reports: &[AnchorReport]) -> Vec<String> {
    reports
        .iter()
        .filter(|r| !r.ok())
        .map(|r| {
            let c = &r.check;
            format!(
                "anchor {} does not check out (format {}, head {}, day closed {}, ledger line {}, proof {}); it is published and shown, not hidden",
                c.date, c.format, c.head, c.day_closed, c.ledger_line, r.proof
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encode::keys_sorted;

    #[test]
    fn index_is_written_with_sorted_keys() {
        let index = AnchorsIndex {
            anchor_lines_without_post: vec![UnpostedAnchorLines {
                anchor_date: "2026-11-08".into(),
                anchor_line_seqs: vec![3],
            }],
            note: INDEX_NOTE,
            posts: vec![IndexedPost {
                anchor_line_seqs: vec![4],
                checks: PostChecks {
                    day_closed: DayClosedState::Ok,
                    format: FormatState::Ok,
                    head: HeadState::Ok,
                    ledger_line: LedgerLineState::Agrees,
                    proof_header: ProofState::Missing,
                },
                date: "2026-11-09".into(),
                head: Some(Digest::of(b"x")),
                late: Some(false),
                ok: true,
                proof_file: Some("2026-11-09.txt.ots".into()),
                published: true,
                seq: Some(4),
                text_file: Some("2026-11-09.txt".into()),
            }],
        };
        assert!(keys_sorted(&index));
    }
}
