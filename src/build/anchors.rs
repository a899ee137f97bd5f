//! The posted heads in a build: checked over the published lines and the withheld list (what a
//! stranger can re-do), indexed for `ledger/anchors/index.json`, and worded for stderr
//! (docs/protocol.md#anchors).

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Value as J, json};

use super::verify::VerifiedLedger;
use crate::posts::{self, AnchorReport, ProofState};
use exhibit_protocol::anchors::{self, EntryFacts, FormatState};
use exhibit_protocol::canonical;
use exhibit_protocol::verify::Withheld;

pub fn check_anchors(
    ledger: &[u8],
    verified: &VerifiedLedger,
    withheld: &Withheld,
    posts: Vec<(anchors::Post, Option<Vec<u8>>)>,
) -> Vec<AnchorReport> {
    // The checks a stranger can do: over the published lines and the withheld list only.
    let facts: Vec<EntryFacts> = verified
        .lines
        .iter()
        .filter(|r| r.published())
        .filter_map(|r| {
            if r.kind == "anchor" {
                EntryFacts::from_object(&r.object(ledger), Some(r.entry_id))
            } else {
                Some(EntryFacts {
                    seq: r.seq,
                    entry_id: Some(r.entry_id),
                    day: Some(r.day.clone()),
                    anchor: None,
                })
            }
        })
        .collect();
    posts::check_posts_with_proofs(&facts, withheld, Some(verified.header_digest), posts)
}

pub fn anchors_index(reports: &[AnchorReport], verified: &VerifiedLedger, ledger: &[u8]) -> J {
    let mut lines_by_date: BTreeMap<String, Vec<(i64, Option<bool>)>> = BTreeMap::new();
    for r in verified
        .lines
        .iter()
        .filter(|r| r.kind == "anchor" && r.published())
    {
        let o = r.object(ledger);
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
    let posts: Vec<J> = reports
        .iter()
        .map(|r| {
            let c = &r.check;
            let lines = lines_by_date.get(&c.date).cloned().unwrap_or_default();
            json!({
                "date": c.date,
                "published": c.format == FormatState::Ok,
                "text_file": (c.format == FormatState::Ok).then(|| format!("{}.txt", c.date)),
                "proof_file": (c.format == FormatState::Ok && r.proof == ProofState::Ok).then(|| format!("{}.txt.ots", c.date)),
                "head": c.posted.as_ref().map(|p| p.head),
                "seq": c.posted.as_ref().map(|p| p.seq),
                "ok": r.ok(),
                "checks": {"format": c.format, "head": c.head, "day_closed": c.day_closed,
                           "ledger_line": c.ledger_line, "proof_header": r.proof},
                "anchor_line_seqs": lines.iter().map(|l| l.0).collect::<Vec<_>>(),
                "late": lines.iter().find_map(|l| l.1),
            })
        })
        .collect();
    let unposted: Vec<J> = lines_by_date
        .iter()
        .filter(|(d, _)| !posted.contains(d.as_str()))
        .map(|(d, l)| json!({"anchor_date": d, "anchor_line_seqs": l.iter().map(|x| x.0).collect::<Vec<_>>()}))
        .collect();
    json!({
        "posts": posts,
        "anchor_lines_without_post": unposted,
        "note": "checks re-done by the publisher over the published lines and withheld.json; the page and `exhibit verify SITE` re-do them; a proof is checked only for its header and the digest it commits to — verify it with an OpenTimestamps client",
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
