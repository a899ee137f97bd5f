//! The posted heads in a build: checked over the published lines and the withheld list (what a
//! stranger can re-do), indexed for `ledger/anchors/index.json`, and worded for stderr
//! (docs/protocol.md#anchors).

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use super::decide::line_object;
use super::verify::VerifiedLedger;
use crate::operator_box::gate_ledger::GateLedger;
use crate::operator_box::posts::{self, AnchorReport, ProofState};
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
    let posted: BTreeSet<i64> = posts
        .iter()
        .filter_map(|(post, _)| anchors::parse_post(&post.date, &post.bytes))
        .map(|p| p.seq)
        .collect();
    let published = verified.lines.iter().filter(|r| r.published());
    let facts = facts_posts_read(
        published.map(|r| {
            if &**r.kind() != "anchor" {
                return Ok(EntryFacts {
                    seq: Some(r.seq),
                    entry_id: Some(r.entry_id),
                    day: Some(r.day().to_string()),
                    anchor: None,
                });
            }
            // An anchor line's own fields, read again from the gate's ledger.
            let bytes = ledger.read(r.start(), r.end())?;
            Ok(EntryFacts::from_object(
                &line_object(&bytes),
                Some(r.entry_id),
            ))
        }),
        &posted,
    )?;
    Ok(posts::check_posts_with_proofs(
        &facts,
        withheld,
        Some(verified.header_digest),
        posts,
    ))
}

/// Of the published lines' facts, in seq order, those a post's checks read
/// (`exhibit_protocol::anchors::check_posts`): the line a post names by its seq (the head
/// check), every anchor line (the ledger-line check), and the line with the greatest seq of
/// each day (the day-closed check reads only that seq). The checks give the same answers over
/// these as over every line's facts; at a million lines every line's facts were 200 MB for a
/// moment (docs/scale.md#memory).
fn facts_posts_read(
    facts: impl Iterator<Item = anyhow::Result<EntryFacts>>,
    posted: &BTreeSet<i64>,
) -> anyhow::Result<Vec<EntryFacts>> {
    let mut kept = Vec::new();
    let mut last_of_day: BTreeMap<String, EntryFacts> = BTreeMap::new();
    for fact in facts {
        let fact = fact?;
        if fact.anchor.is_some() || fact.seq.is_some_and(|s| posted.contains(&s)) {
            kept.push(fact);
            continue;
        }
        // A line without a day (or a seq) closes no day; one that is not posted is read by
        // nothing else.
        let (Some(day), Some(_)) = (&fact.day, fact.seq) else {
            continue;
        };
        match last_of_day.get_mut(day.as_str()) {
            Some(last) if last.seq >= fact.seq => {}
            Some(last) => *last = fact,
            None => {
                last_of_day.insert(day.clone(), fact);
            }
        }
    }
    kept.extend(last_of_day.into_values());
    Ok(kept)
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
        .filter(|r| &**r.kind() == "anchor" && r.published())
    {
        let bytes = ledger.read(r.start(), r.end())?;
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
    use crate::published::encode::keys_sorted;

    #[test]
    fn the_posts_checks_give_the_same_answers_over_the_facts_they_read_as_over_every_line() {
        // Catches a reduction that drops the line a post names, an anchor line, or keeps a
        // day's first line instead of its last (the day-closed check would then pass a post
        // that a later line of its day fails), or loses a line without a day.
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move |n: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % n
        };
        let days = ["2026-11-01", "2026-11-02", "2026-11-03", "2026-11-04"];
        let mut compared = 0;
        for _ in 0..300 {
            let mut all = Vec::new();
            let mut posts = Vec::new();
            let lines = 1 + next(40) as i64;
            let mut day = 0;
            for seq in 1..=lines {
                if next(4) == 0 && day + 1 < days.len() {
                    day += 1;
                }
                let entry_id = Digest::of(&seq.to_le_bytes());
                let date = days[next(days.len() as u64) as usize];
                let post = format!(
                    "gate anchor {date} head {} seq {}",
                    if next(3) == 0 {
                        Digest::of(b"other")
                    } else {
                        entry_id
                    },
                    if next(5) == 0 {
                        0
                    } else {
                        1 + next(lines as u64 + 3) as i64
                    }
                );
                let anchor = (next(5) == 0).then(|| anchors::AnchorLine {
                    date: Some(date.to_string()),
                    head: Some(entry_id),
                    head_seq: Some(seq),
                    text_sha256: Some(Digest::of(post.as_bytes())),
                    late: None,
                });
                if next(3) == 0 {
                    posts.push(anchors::Post {
                        date: date.to_string(),
                        bytes: post.into_bytes(),
                    });
                }
                all.push(EntryFacts {
                    seq: Some(seq),
                    entry_id: Some(entry_id),
                    day: (next(10) != 0).then(|| days[day].to_string()),
                    anchor,
                });
            }
            let posted: BTreeSet<i64> = posts
                .iter()
                .filter_map(|p| anchors::parse_post(&p.date, &p.bytes))
                .map(|p| p.seq)
                .collect();
            let read = facts_posts_read(all.iter().cloned().map(Ok), &posted).unwrap();
            let withheld = Withheld::default();
            let header = Some(Digest::of(b"header"));
            assert_eq!(
                anchors::check_posts(&read, &withheld, header, &posts),
                anchors::check_posts(&all, &withheld, header, &posts),
                "{all:?} {posts:?}"
            );
            compared += posts.len();
        }
        assert!(compared > 1000, "{compared} posts compared");
    }

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
