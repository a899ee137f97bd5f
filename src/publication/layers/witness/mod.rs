//! The per-line witness layer (docs/protocol.md#witness; issue 4): `exhibit build --witness STORE`.
//!
//! Reads the tail's store (docs/protocol.md#box) and adds to the tree, under `ledger/witness/`:
//! `proofs/<entry_id>.ots` for every entry of the store's index — in a segmented exhibit, a new
//! proof in its line's bucket `proofs/NNNNNN/` or in `proofs/other/`, and every proof where it
//! was first published (docs/witness.md#proof-folders) — (bytes copied, each checked for
//! its OpenTimestamps header and the digest it commits to against its name), the sealed
//! `proofs/prereg_<sha256>.ots`, the proofs HEAD published that the store no longer names
//! (carried forward, never deleted), `index.json` (the tail's latest state per entry_id, a
//! withheld seq's clocks cut to the UTC day, plus a `publisher` object), and `REPORT.md`,
//! `runs.jsonl`, `seal.jsonl`, `WITNESS_PREREG.md` as the tail wrote them. Counts with
//! denominators go to `STATS.json` / `SNAPSHOTS.jsonl` under `witness`.
//!
//! Every decision where docs/protocol.md#witness is silent is written down in `docs/witness.md`. Iteration is over
//! sorted vectors and BTreeMaps only; no clock is read.

use exhibit_protocol::Digest;
use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::Path;

use anyhow::Result;
use serde::de::{self, DeserializeSeed, MapAccess, Visitor};
use serde::{Deserialize, Serialize};
use serde_json::{Value as J, json};

use super::{Layer, LayerContext, LayerOutput, LayerStats};
use crate::operator_box::read::{BoxFolder, FileClass};
use crate::publication::decide::LineRecord;
use crate::publication::layers::side_channels::{self, DayCut};
use crate::publication::record_fields::{Clock, U40};
use crate::published::encode::{Count, of, pretty, timestamp_of};
use crate::published::entry_ids::SortedIds;
use crate::published::layout::ProofPlace;
use crate::published::output_tree::Content;
use crate::published::segments::Series;
use crate::terminal::refusal::Refusal;
pub use exhibit_protocol::WitnessStatus as Status;
use exhibit_protocol::days;
use exhibit_protocol::ots;

mod chain;
mod head_proofs;
mod proofs;
mod published_index;
pub(crate) mod store;
mod tail;

use chain::*;
use head_proofs::*;
use proofs::*;
use published_index::*;
use store::*;
use tail::*;

/// The rule a proof refusal names.
pub const RULE_PROOF: &str = "proof header/digest (docs/protocol.md#ots-header)";
/// "Lines the tail saw more than an hour after their own timestamp were stamped retroactively."
pub const RETROACTIVE_AFTER: i64 = 3600;
/// Outside-latency limits (cumulative buckets: within 1 h ⊆ within 6 h ⊆ within 24 h).
pub const HOUR: i64 = 3600;

/// The seqs one part of a segmented exhibit's witness index holds (docs/witness.md#parts);
/// the config knob that lowers it for tests is checked where exhibit.toml is read.
pub use crate::publication::config::PART_SEQS;

/// The run log of a segmented exhibit: `runs.jsonl`, then `runs/NNNNNN.jsonl`, cut by the
/// ledger's own rule (docs/witness.md#parts).
pub const RUNS: Series = Series {
    first: "ledger/witness/runs.jsonl",
    folder: "ledger/witness/runs",
};

/// `ledger/witness/index/NNNNNN.json`: part `n` of a segmented exhibit's witness index.
pub fn index_part_path(n: u64) -> String {
    format!("ledger/witness/index/{n:06}.json")
}

/// What the page prints on how to pin one line without it (docs/protocol.md#witness).
pub const HOW_TO_PIN: &str = "To pin one line without this page: take its entry_id from its line in the published ledger (ledger/ledger.jsonl, then ledger/segments/ in name order; or a withheld line's digest from ledger/withheld.json), fetch its proof — ledger/witness/proofs/<entry_id>.ots in an exhibit without ledger/segments/; in a segmented one, the path its record names under \"proof\" in the witness index (the part of ledger/witness/index/ that ledger/witness/index.json lists for the line's seq), a folder of 4,096 seqs — save it as <entry_id>.ots, and run `ots verify -d <entry_id> <entry_id>.ots` (the python OpenTimestamps client) or `node ots-cli.js verify -i -d <entry_id> <entry_id>.ots` (javascript-opentimestamps 0.4.9). A PENDING file prints \"Pending confirmation in Bitcoin blockchain\": it is a calendar's receipt and pins nothing. A PROOF prints the Bitcoin block; that block's header time is at https://mempool.space/api/block/<hash> and https://blockstream.info/api/block/<hash> (/block-height/<H> gives the hash). The proof shows that the line's digest existed before that block, no more: not that every send got a line, not the words of any message, not who wrote the line, not that the line is true. The header time is the miner's clock, within about two hours of consensus time, so a latency under six hours carries that slop and a negative latency can appear for an honest line. The store was written by the lab's tail; the proofs are what you check.";

/// The witness layer: `--witness STORE`.
pub struct Witness<'s> {
    pub store: &'s Path,
}

impl Layer for Witness<'_> {
    fn folder(&self) -> &'static str {
        "witness"
    }

    fn flag(&self) -> &'static str {
        "--witness STORE"
    }

    fn build(&self, ctx: &LayerContext<'_>) -> Result<LayerOutput> {
        build(ctx, self.store)
    }
}

pub fn build(ctx: &LayerContext<'_>, store: &Path) -> Result<LayerOutput> {
    let mut refusals = Vec::new();
    let mut notes = Vec::new();
    let head = HeadProofsRead::before_index(ctx.previous)?;
    crate::terminal::progress::stage_done("witness: HEAD's proofs");
    let mut s = load_store(store, &mut refusals)?;
    if let Some(index) = s.index.as_mut() {
        index.share_line_ids(&ctx.verified.lines);
    }
    crate::terminal::progress::stage_done("witness: the store's index");
    let sealed = check_seal(store, &s, &mut refusals);
    let empty = StoreIndex::default();
    let index = s.index.as_ref().unwrap_or(&empty);
    let lines = &ctx.verified.lines;

    // What the store's proofs folder holds, a flag per record (docs/scale.md#names-not-held),
    // is read for the proofs' check only, and let go inside it.
    let proof_names = std::mem::take(&mut s.proof_names);
    let head = head.at_records(ctx.previous, &index.ids)?;
    let mut proofs = proofs(
        ctx,
        store,
        &s,
        proof_names,
        index,
        sealed.as_ref(),
        head,
        &mut refusals,
        &mut notes,
    )?;
    crate::terminal::progress::stage_done("witness: the store's proofs");
    let chain = Chain::of(lines, index);
    let counts = Counts::of(lines, index, &chain);
    let mut tail = tail_logs(ctx, store, &s, index, &chain, &mut refusals);
    let clock_refusals = report_clocks(ctx, store, &s, &mut tail);
    crate::terminal::progress::stage_done("witness: the tail's logs");
    // What the published index and STATS take from the store's records is taken now, before
    // the run log is read, and a segmented exhibit's records are then let go: its parts are
    // written as they are made (docs/scale.md#made-as-written), or, on a dry run, made again
    // when read, keeping their own records (or sharing them, on a first build), and nothing
    // after reads them (docs/scale.md#records-let-go).
    let part_seqs = ctx.segmented.then_some(ctx.plan.config.witness_part_seqs);
    let mut from_records = FromRecords::of(ctx, index, &chain, &proofs.places, part_seqs)?;
    let parts_carried = from_records.carried.take();
    if part_seqs.is_some()
        && let Some(index) = s.index.as_mut()
    {
        index.records = std::sync::Arc::default();
    }
    let index = s.index.as_ref().unwrap_or(&empty);
    crate::terminal::progress::stage_done("witness: the index parts");
    // The run log is read as it is published, never held: at a million lines it is 250 MB
    // (docs/scale.md#the-run-log-is-not-held).
    let (run_log, head_runs, mut carried) = read_run_log(ctx, store, &tail, &mut refusals)?;
    carried.extend(parts_carried);
    let (runs_count, tail_last_run) = run_log
        .as_ref()
        .map_or((0, None), |l| (l.count, l.last_run.clone()));
    crate::terminal::progress::stage_done("witness: the run log");
    guard_tail_texts(store, &s, &mut refusals);
    refusals.extend(clock_refusals);

    crate::terminal::progress::stage_done("witness: tail texts and clocks");
    let window = window(ctx, &mut notes);
    let store_entries = from_records.store_entries;
    let (published_index, index_parts) = published_index(
        ctx,
        index,
        &chain,
        &counts,
        &proofs,
        tail_last_run.as_ref(),
        from_records,
    );
    let earlier = Replacements::at_head(ctx.previous)?;
    let stats = stats(
        lines.len(),
        store_entries,
        &chain,
        &counts,
        &proofs,
        runs_count,
        (window, earlier),
    );
    add_notes(store, &chain, &proofs, &mut notes);
    let index_bytes = pretty(&published_index);
    let page_data = json!({
        "index": published_index,
        "stats": stats,
        "report_md": s.report.clone().unwrap_or_default(),
        "prereg_md": s.prereg.as_ref().map(|b| String::from_utf8_lossy(b).into_owned()).unwrap_or_default(),
        "runs": runs_count,
        "tail_last_run": tail_last_run,
        "window": stats.window,
        "how_to_pin": HOW_TO_PIN,
    });

    let mut contents: Vec<(String, Content)> = std::mem::take(&mut proofs.store_files_kept)
        .into_iter()
        .map(|(path, file)| (path, Content::File(file)))
        .collect();
    let listed = proofs.listed.take().map(ProofLists::finish);
    let mut files = std::mem::take(&mut proofs.files);
    // The tail's files, as written (a withheld seq's moments in the logs cut to its day).
    for (rel, bytes) in [
        (
            "REPORT.md",
            s.report.as_ref().map(|r| r.as_bytes().to_vec()),
        ),
        ("seal.jsonl", tail.seal),
        ("WITNESS_PREREG.md", s.prereg.clone()),
    ] {
        if let Some(bytes) = bytes {
            files.push((format!("ledger/witness/{rel}"), bytes));
        }
    }
    if let Some(log) = &run_log {
        contents.extend(super::run_log::files(
            ctx, &RUNS, log, &head_runs, &mut notes,
        )?);
    }
    let ceiling = *crate::published::segments::SEGMENT_BYTES_RANGE.end();
    for (path, bytes) in index_parts.iter().filter(|(_, b)| b.len() > ceiling) {
        notes.push(format!(
            "witness: {path} holds {} bytes, over the 32 MiB every published file keeps to: the store files that many records under its seqs (orphans or multi-entry seqs; docs/witness.md#parts)",
            bytes.len()
        ));
    }
    files.push(("ledger/witness/index.json".into(), index_bytes));
    contents.extend(index_parts);
    files.sort_by(|a, b| a.0.cmp(&b.0));
    crate::terminal::progress::stage_done("witness: the published index");
    Ok(LayerOutput {
        files,
        contents,
        listed: listed.unwrap_or_default(),
        stats: Some(LayerStats::Witness(Box::new(stats))),
        page_data,
        refusals,
        notes,
        rewrote: !proofs.rewritten.is_empty() || proofs.dropped_from_head,
        records: proofs.records.take().into_iter().collect(),
        carried,
        first_seqs: Vec::new(),
    })
}

/// The kill-gate window (docs/witness.md), when the operator has registered it.
#[derive(Debug, Clone, Serialize)]
pub struct Window {
    day_9_closes: Option<String>,
    registered: bool,
    since: Option<String>,
}

/// `STATS.json`'s `witness` (and each `SNAPSHOTS.jsonl` line's): every count with its
/// denominator. Fields alphabetical, as the file has always been written.
#[derive(Debug, Clone, Serialize)]
pub struct WitnessStats {
    carried_not_in_store: Count,
    explorers_disagree: Count,
    lines: usize,
    mismatch: Count,
    multi_entry_seqs: Count,
    no_record: Count,
    orphans: Count,
    outside_latency: OutsideLatency,
    pending: Count,
    proof: Count,
    proofs_published: usize,
    replaced: Count,
    retroactive: Count,
    rewritten: Count,
    runs: usize,
    stamp_batches: Count,
    stamp_failed: Count,
    store_entries: usize,
    stray_files: Count,
    tail_lag: Count,
    window: Window,
    with_commitment: Count,
}

/// The latency from a line's timestamp to its proof's block time, in cumulative buckets.
#[derive(Debug, Clone, Serialize)]
struct OutsideLatency {
    buckets: &'static str,
    negative: Count,
    none_yet: Count,
    over_24h: Count,
    proof_without_block_time: Count,
    within_1h: Count,
    within_24h: Count,
    within_6h: Count,
}

/// The kill-gate window, when the operator has registered it.
fn window(ctx: &LayerContext<'_>, notes: &mut Vec<String>) -> Window {
    match &ctx.plan.witness_window_since {
        Some(since) => {
            let day1 =
                days::parse_timestamp(&format!("{since}T00:00:00Z")).unwrap_or_default() / 86_400;
            Window {
                day_9_closes: Some(days::civil_from_days(day1 + 8).to_string()),
                registered: true,
                since: Some(since.to_string()),
            }
        }
        None => {
            notes.push("witness: the kill-gate window is not registered (set [publish] witness_window_since = \"YYYY-MM-DD\" in exhibit.toml, day 1, once the operator has registered it)".into());
            Window {
                day_9_closes: None,
                registered: false,
                since: None,
            }
        }
    }
}

/// The layer's counts, each with its denominator (`STATS.json` under `witness`).
fn stats(
    n: usize,
    store_entries: usize,
    chain: &Chain,
    counts: &Counts,
    proofs: &Proofs,
    runs: usize,
    (window, earlier): (Window, Replacements),
) -> WitnessStats {
    let st = |x: Status| counts.status(x);
    let with_commitment = n - counts.no_record - st(Status::StampFailed);
    // Of the proofs this publication holds, not of HEAD's: a rebuild after a commit must give
    // the same counts (docs/witness.md#counts-of-the-publication).
    let published = proofs.files.len() + proofs.kept();
    WitnessStats {
        carried_not_in_store: of(proofs.carried.len(), published),
        explorers_disagree: of(st(Status::ExplorersDisagree), n),
        lines: n,
        mismatch: of(st(Status::Mismatch), n),
        multi_entry_seqs: of(chain.multi.len(), chain.store_seqs),
        no_record: of(counts.no_record, n),
        orphans: of(chain.orphans.len(), store_entries),
        outside_latency: OutsideLatency {
            buckets: BUCKETS,
            negative: of(counts.negative, n),
            none_yet: of(n - counts.w24 - counts.over24, n),
            over_24h: of(counts.over24, n),
            proof_without_block_time: of(counts.proof_no_time, n),
            within_1h: of(counts.w1, n),
            within_24h: of(counts.w24, n),
            within_6h: of(counts.w6, n),
        },
        pending: of(st(Status::Pending), n),
        proof: of(st(Status::Proof), n),
        proofs_published: published,
        replaced: of(earlier.replaced + proofs.replaced.len(), published),
        retroactive: of(counts.retroactive, n),
        rewritten: of(earlier.rewritten + proofs.rewritten.len(), published),
        runs,
        stamp_batches: of(counts.stamp_batches, store_entries),
        stamp_failed: of(st(Status::StampFailed), n),
        store_entries,
        stray_files: of(proofs.stray_files, proofs.store_files),
        tail_lag: of(counts.tail_lag, n),
        window,
        with_commitment: of(with_commitment, n),
    }
}

/// The replacements of proofs counted by the publications before this one: the counts are of
/// the exhibit's history, so that a build changes them only by what it replaces itself, and a
/// rebuild after a commit, which replaces nothing, writes them again unchanged
/// (docs/witness.md#counts-of-the-publication).
#[derive(Debug, Default, Clone, Copy)]
struct Replacements {
    replaced: usize,
    rewritten: usize,
}

impl Replacements {
    /// From HEAD's `STATS.json` (checked against its snapshot before anything is read of HEAD);
    /// none when HEAD has no witness counts.
    fn at_head(previous: &crate::previous::Previous) -> Result<Replacements> {
        let Some(bytes) = previous.read("ledger/STATS.json")? else {
            return Ok(Replacements::default());
        };
        let stats: J = serde_json::from_slice(&bytes).unwrap_or(J::Null);
        let count = |key: &str| {
            stats["witness"][key]["count"]
                .as_u64()
                .and_then(|c| usize::try_from(c).ok())
                .unwrap_or(0)
        };
        Ok(Replacements {
            replaced: count("replaced"),
            rewritten: count("rewritten"),
        })
    }
}

/// What a person should know and nothing refuses.
fn add_notes(store: &Path, chain: &Chain, proofs: &Proofs, notes: &mut Vec<String>) {
    if !chain.orphans.is_empty() {
        notes.push(format!(
            "witness: {} orphan(s) in the store (digest not in the chain); published with their list, never hidden",
            chain.orphans.len()
        ));
    }
    if proofs.stray_files > 0 {
        notes.push(format!(
            "witness: {} file(s) in {} that the index does not name; counted, not copied",
            proofs.stray_files,
            store.join("proofs").display()
        ));
    }
    if !chain.seq_disagrees.is_empty() {
        notes.push(format!(
            "witness: {} store record(s) name a chain entry_id with another seq (listed under publisher.seq_disagrees)",
            chain.seq_disagrees.len()
        ));
    }
    if !proofs.carried.is_empty() {
        notes.push(format!(
            "witness: {} proof(s) published at HEAD are no longer in the store; carried forward unchanged",
            proofs.carried.len()
        ));
    }
    // What this build replaced is said here, not in a published file (docs/witness.md#counts-of-the-publication).
    if !proofs.replaced.is_empty() {
        notes.push(format!(
            "witness: {} published proof(s) replaced by the store's longer form: {}",
            proofs.replaced.len(),
            first_names(&proofs.replaced)
        ));
    }
}

/// Up to five names, and how many more.
fn first_names(names: &[String]) -> String {
    let shown: Vec<&str> = names.iter().take(5).map(String::as_str).collect();
    match names.len().saturating_sub(5) {
        0 => shown.join(", "),
        more => format!("{} and {more} more", shown.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::published::encode::keys_sorted;

    /// A store's index of records for seqs `1..=n`, pending, one calendar.
    fn index_of(n: i64) -> StoreIndex {
        let t = "2026-10-24T13:00:00Z";
        let entries: Vec<String> = (1..=n)
            .map(|seq| {
                format!(
                    r#""{}": {{"seq": {seq}, "status": "pending", "calendars": ["https://a.example"],
                    "line_timestamp": "{t}", "seen_at": "{t}", "stamped_at": "{t}"}}"#,
                    Digest::of(&seq.to_le_bytes())
                )
            })
            .collect();
        parse_index(format!(r#"{{"entries": {{{}}}}}"#, entries.join(",")).as_bytes()).unwrap()
    }

    /// A published line of the chain, `seq`, of entry_id `entry_id`.
    fn line_of(seq: i64, entry_id: Digest) -> LineRecord {
        LineRecord {
            seq,
            entry_id,
            kind_day: crate::publication::decide::KindDay::new("send".into(), "".into()),
            timestamp: Default::default(),
            has_timestamp: false,
            offset: Default::default(),
            len: 0,
            withheld: None,
            read_by_operator: false,
        }
    }

    fn parts_of(
        index: &StoreIndex,
        holds: crate::site_write::dir_record::DirHolds,
    ) -> Vec<(String, Content)> {
        let places = std::sync::Arc::default();
        let source = (index, &Chain::of(&[], index), &places);
        index_parts(source, "UTC", 10, (holds, &mut Default::default()), None)
            .unwrap()
            .1
    }

    /// Each index part's path and fingerprint, as `index_parts` records them for the next build,
    /// with the parts it lists.
    fn fingerprints(
        index: &StoreIndex,
        (tz, places): (&str, &std::sync::Arc<Vec<u32>>),
        known: &mut published_index::KnownParts,
    ) -> (BTreeMap<String, Digest>, Vec<published_index::IndexPart>) {
        let dir = tempfile::tempdir().unwrap();
        let holds = crate::site_write::dir_record::DirHolds::open(None, dir.path());
        let source = (index, &Chain::of(&[], index), places);
        let (listed, _) = index_parts(source, tz, 10, (holds, &mut *known), None).unwrap();
        let made = std::mem::take(known).into_made();
        (
            made.into_iter().map(|(p, f, _, _)| (p, f)).collect(),
            listed,
        )
    }

    #[test]
    fn a_part_made_from_the_same_inputs_is_known_and_any_other_input_makes_it_again() {
        // Catches a fingerprint that leaves out an input the part's bytes depend on (a record's
        // clock or calendars, the anchor zone, a proof's place) — the last build's size and
        // sha256 would then stand for other bytes — one that changes with nothing changed (no
        // part would ever be known), and a known part whose sha256 is not the one listed.
        let none = std::sync::Arc::default();
        let index = index_of(25);
        let (base, listed) = fingerprints(&index, ("UTC", &none), &mut Default::default());
        assert_eq!(base.len(), 3);
        let (again, listed_again) = fingerprints(&index, ("UTC", &none), &mut Default::default());
        assert_eq!(again, base);
        let shas = |l: &[published_index::IndexPart]| -> Vec<Digest> {
            l.iter().map(|p| p.sha256).collect()
        };
        assert_eq!(shas(&listed_again), shas(&listed));
        let differs = |other: &BTreeMap<String, Digest>| -> Vec<String> {
            base.iter()
                .filter(|(p, f)| other.get(*p) != Some(*f))
                .map(|(p, _)| p.clone())
                .collect()
        };
        let part = |n: u64| index_part_path(n);
        // One record's clock, then its calendars' names: its part only.
        let edited = |from: &str, to: &str, seq: i64| {
            let t = "2026-10-24T13:00:00Z";
            let entries: Vec<String> = (1..=25i64)
                .map(|s| {
                    let e = format!(
                        r#""{}": {{"seq": {s}, "status": "pending", "calendars": ["https://a.example"],
                        "line_timestamp": "{t}", "seen_at": "{t}", "stamped_at": "{t}"}}"#,
                        Digest::of(&s.to_le_bytes())
                    );
                    if s == seq { e.replace(from, to) } else { e }
                })
                .collect();
            parse_index(format!(r#"{{"entries": {{{}}}}}"#, entries.join(",")).as_bytes()).unwrap()
        };
        let stamped = edited(
            r#""stamped_at": "2026-10-24T13:00:00Z""#,
            r#""stamped_at": "2026-10-24T13:00:01Z""#,
            3,
        );
        let (fp, _) = fingerprints(&stamped, ("UTC", &none), &mut Default::default());
        assert_eq!(differs(&fp), [part(1)]);
        let calendars = edited("https://a.example", "https://b.example", 13);
        let (fp, _) = fingerprints(&calendars, ("UTC", &none), &mut Default::default());
        assert_eq!(differs(&fp), [part(2)]);
        let (fp, _) = fingerprints(&index, ("Europe/Paris", &none), &mut Default::default());
        assert_eq!(differs(&fp).len(), 3);
        let bucketed = std::sync::Arc::new(vec![
            crate::published::layout::ProofPlace::Bucket(0)
                .pack();
            25
        ]);
        let (fp, _) = fingerprints(&index, ("UTC", &bucketed), &mut Default::default());
        assert_eq!(differs(&fp).len(), 3);
        // Known from the last build: its size and sha256 are taken, not made again (a sham
        // sha256 shows which), for a part of the same inputs only.
        let sham = Digest::of(b"the last build's");
        let mut known = published_index::KnownParts::remembering(
            base.iter().map(|(p, f)| (p.clone(), *f, 7, sham)).collect(),
        );
        let (_, carried) = fingerprints(&stamped, ("UTC", &none), &mut known);
        let taken: Vec<(String, bool)> = carried
            .iter()
            .map(|p| (p.path.clone(), p.sha256 == sham))
            .collect();
        assert_eq!(taken, [(part(1), false), (part(2), true), (part(3), true)]);
        // A build that writes the parts (DIR holds none of them) lists each part's own sha256
        // and remembers it, even from a state that says otherwise: a stale state costs the
        // making, never a listing of bytes no part has.
        let dir = tempfile::tempdir().unwrap();
        let made_files =
            crate::site_write::staged_files::MadeFiles::beside(&dir.path().join("site")).unwrap();
        let mut known = published_index::KnownParts::remembering(
            base.iter().map(|(p, f)| (p.clone(), *f, 7, sham)).collect(),
        );
        let holds = crate::site_write::dir_record::DirHolds::open(None, &dir.path().join("site"));
        let (listed_made, _) = index_parts(
            (&index, &Chain::of(&[], &index), &none),
            "UTC",
            10,
            (holds, &mut known),
            Some(&made_files),
        )
        .unwrap();
        assert_eq!(shas(&listed_made), shas(&listed));
        let remembered: Vec<Digest> = known.into_made().iter().map(|p| p.3).collect();
        assert_eq!(remembered, shas(&listed));
    }

    #[test]
    fn a_builds_parts_written_as_made_are_the_parts_made_again_and_share_no_records() {
        // Catches a part written as made that is not the part a build would make again (its
        // bytes or its sha256), one written from another part's records, and parts that still
        // share (so keep) the store's records when they are written (docs/scale.md#made-as-written).
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("site");
        let none = || crate::site_write::dir_record::DirHolds::open(None, &dir);
        let index = index_of(25);
        let made_files = crate::site_write::staged_files::MadeFiles::beside(&dir).unwrap();
        let places = std::sync::Arc::default();
        let (listed, written) = index_parts(
            (&index, &Chain::of(&[], &index), &places),
            "UTC",
            10,
            (none(), &mut Default::default()),
            Some(&made_files),
        )
        .unwrap();
        assert_eq!(std::sync::Arc::strong_count(&index.records), 1);
        let remade = parts_of(&index, none());
        assert_eq!((written.len(), remade.len()), (3, 3));
        for (((path, made), (path_again, again)), part) in written.iter().zip(&remade).zip(&listed)
        {
            assert_eq!((path, path), (path_again, &part.path));
            let Content::File(file) = made else {
                panic!("{path}: not written as made: {made:?}");
            };
            assert!(file.folder.starts_with(made_files.root()), "{path}");
            let bytes = std::fs::read(file.path()).unwrap();
            assert_eq!(bytes, again.bytes().unwrap().into_owned(), "{path}");
            assert_eq!(Digest::of(&bytes), part.sha256, "{path}");
        }
    }

    #[test]
    fn a_dry_runs_parts_without_dirs_record_are_dirs_files_where_dir_holds_their_bytes() {
        // A dry run after a checkout: DIR's record describes nothing, so DIR's copies are read.
        // Catches a copy taken on its size alone (one part's bytes changed, size kept), one
        // reached through a symlink, and parts kept to be made again (sharing the store's
        // records to the review) when DIR holds them (docs/scale.md#without-dirs-record-dry-run).
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("site");
        let none = || crate::site_write::dir_record::DirHolds::open(None, &dir);
        let index = index_of(45);
        let parts = parts_of(&index, none());
        assert_eq!(parts.len(), 5);
        for (path, content) in &parts {
            let on_disk = dir.join(path);
            std::fs::create_dir_all(on_disk.parent().unwrap()).unwrap();
            std::fs::write(on_disk, content.bytes().unwrap()).unwrap();
        }
        // Part 2 changed in place, part 3 a symlink to its right bytes, part 5 gone.
        let at = |i: usize| dir.join(&parts[i].0);
        let mut changed = std::fs::read(at(1)).unwrap();
        let last = changed.len() - 3;
        changed[last] ^= 1;
        std::fs::write(at(1), changed).unwrap();
        let elsewhere = tmp.path().join("elsewhere");
        std::fs::rename(at(2), &elsewhere).unwrap();
        std::os::unix::fs::symlink(&elsewhere, at(2)).unwrap();
        std::fs::remove_file(at(4)).unwrap();
        let again = parts_of(&index, none());
        let kinds: Vec<&str> = again
            .iter()
            .map(|(_, c)| match c {
                Content::File(_) => "DIR's",
                Content::Remade(_) => "made again",
                _ => "other",
            })
            .collect();
        assert_eq!(
            kinds,
            ["DIR's", "made again", "made again", "DIR's", "made again"]
        );
        for ((path, a), (_, b)) in again.iter().zip(&parts) {
            assert_eq!(a.bytes().unwrap(), b.bytes().unwrap(), "{path}");
        }
    }

    #[test]
    fn permute_puts_each_position_where_the_order_says() {
        // Catches the inverse permutation (position j given to order[j], not taken from it), a
        // cycle walked past its start or stopped short, and a done position moved again: many
        // random orders, short and long cycles, fixed points, against a copy made the plain way.
        let mut rng = exhibit_testkit::gen_box::Rng::new(20261204, 1);
        for n in (0..40).chain([257, 1000]) {
            let mut order: Vec<u32> = (0..n).collect();
            for i in (1..order.len()).rev() {
                order.swap(i, rng.below(i as u64 + 1) as usize);
            }
            let before: Vec<u64> = (0..u64::from(n)).map(|k| k * 7 + 1).collect();
            let want: Vec<u64> = order.iter().map(|&k| before[k as usize]).collect();
            let mut got = before.clone();
            let mut shadow = before.clone();
            permute(&mut order, |a, b| {
                got.swap(a, b);
                shadow.swap(a, b);
            });
            assert_eq!(got, want, "n {n}");
            assert_eq!(shadow, want, "n {n}");
        }
    }

    #[test]
    fn the_index_s_ids_stay_with_their_records_when_sorted() {
        // Catches ids sorted apart from their records (each record would print another's
        // clocks and seq under its id), and ids left unsorted (every lookup by id would miss).
        // The records are written in seq order; their ids, digests of the seq, are not.
        let index = index_of(300);
        assert_eq!((index.ids.len(), index.records.len()), (300, 300));
        assert!(index.ids.is_strictly_sorted());
        for (id, r) in index.ids.iter().zip(index.records.iter()) {
            assert_eq!(id, Digest::of(&r.seq().to_le_bytes()), "seq {}", r.seq());
        }
        let twice = format!(
            r#"{{"entries": {{"{id}": {r}, "{id}": {r}}}}}"#,
            id = Digest::of(b"x"),
            r = r#"{"seq": 1, "status": "pending", "calendars": [], "line_timestamp": "2026-10-24T13:00:00Z", "seen_at": "2026-10-24T13:00:00Z", "stamped_at": "2026-10-24T13:00:00Z"}"#
        );
        let err = parse_index(twice.as_bytes()).unwrap_err();
        assert!(err.contains("written twice"), "{err}");
    }

    #[test]
    fn the_store_s_proof_names_are_tallied_against_the_records_as_they_pass() {
        // Catches a tally that flags a record whose proof the folder does not hold, flags the
        // wrong record (the flags are read by position), takes a name that only looks like a
        // record's (upper case, a prefix, another suffix) for the record's, or loses a name:
        // the stray count is the names less the flags set.
        let index = index_of(5);
        let ids = &index.ids;
        let name = |k: usize| format!("{}.ots", ids.at(k));
        let names = [
            name(3),
            name(0),
            name(1).to_uppercase(),
            format!("prereg_{}", name(2)),
            format!("{}.txt", ids.at(4)),
            format!("{}.ots", Digest::of(b"no record's")),
            "notes.md".to_string(),
        ];
        let mut listed = ProofNames::for_records(ids.len());
        for name in &names {
            listed.push(name.clone(), ids);
        }
        listed.finish();
        assert_eq!(listed.len(), names.len());
        assert_eq!(listed.at_record, [true, false, false, true, false]);
        let mut other: Vec<&String> = names[2..].iter().collect();
        other.sort_unstable();
        assert_eq!(listed.other.iter().collect::<Vec<_>>(), other);
        assert!(listed.has_other(&format!("prereg_{}", name(2))));
        for absent in [name(0), name(2), "notes".to_string(), String::new()] {
            assert!(!listed.has_other(&absent), "{absent}");
        }
    }

    #[test]
    fn parts_dir_holds_are_named_as_its_files_and_the_rest_keep_their_own_records() {
        // Catches parts DIR already holds made again from records held for them (a daily
        // rebuild holding the store's records through the write stage: 131 MB at a million),
        // a part taken from DIR though its bytes changed, and the few parts made again still
        // sharing (so keeping) the whole list of the store's records.
        let tmp = tempfile::tempdir().unwrap();
        let (git, dir) = (tmp.path().join("git"), tmp.path().join("site"));
        std::fs::create_dir_all(git.join("exhibit")).unwrap();
        let none = || crate::site_write::dir_record::DirHolds::open(None, &dir);
        let first = index_of(25);
        let made = parts_of(&first, none());
        assert_eq!(made.len(), 3);
        assert!(made.iter().all(|(_, c)| matches!(c, Content::Remade(_))));
        assert!(
            std::sync::Arc::strong_count(&first.records) > 1,
            "a first build's parts share the records"
        );
        let mut tree = crate::published::output_tree::Tree::default();
        for (path, content) in &made {
            let path = dir.join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, content.bytes().unwrap()).unwrap();
        }
        for (path, content) in made {
            tree.put_content(path, content);
        }
        std::thread::sleep(std::time::Duration::from_millis(30));
        assert_eq!(
            crate::site_write::dir_record::save(Some(&git), &dir, &tree, &Default::default())
                .unwrap(),
            3
        );

        // A day later: seq 26 joins part 3.
        let next = index_of(26);
        let parts = parts_of(
            &next,
            crate::site_write::dir_record::DirHolds::open(Some(&git), &dir),
        );
        assert_eq!(std::sync::Arc::strong_count(&next.records), 1);
        let fresh = parts_of(&next, none());
        let kinds: Vec<(&str, bool)> = parts
            .iter()
            .map(|(p, c)| (p.as_str(), matches!(c, Content::File(_))))
            .collect();
        assert_eq!(
            kinds,
            [
                ("ledger/witness/index/000001.json", true),
                ("ledger/witness/index/000002.json", true),
                ("ledger/witness/index/000003.json", false),
            ]
        );
        for ((path, content), (_, expected)) in parts.iter().zip(&fresh) {
            assert_eq!(
                content.bytes().unwrap(),
                expected.bytes().unwrap(),
                "{path}"
            );
        }
    }

    #[test]
    fn each_line_finds_its_record_and_the_rest_are_orphans_in_the_records_order() {
        // Catches a search that misses a record or gives a line another's (the records are
        // sorted by id, the lines by seq), orphans or seq disagreements listed in the lines'
        // order rather than the records' (the published index lists them), and two lines with
        // one id both given the record (the last line keeps it, as before).
        let index = index_of(6);
        let line = |k: usize, seq: i64| line_of(seq, index.ids.at(k));
        let seq = |k: usize| index.records[k].seq();
        // Lines for records 0, 4, 1, 5 (in that chain order) and 5 again; records 2 and 3
        // are orphans. Records 0 and 5 are named with seqs of their own.
        let lines = [
            line(0, 102),
            line(4, seq(4)),
            line(1, seq(1)),
            line(5, 100),
            line(5, 101),
        ];
        let chain = Chain::of(&lines, &index);
        let record_of: Vec<Option<usize>> = (0..5).map(|i| chain.record_of.get(i)).collect();
        assert_eq!(record_of, [Some(0), Some(4), Some(1), None, Some(5)]);
        assert_eq!(chain.orphans, [2, 3]);
        let disagrees: Vec<(i64, i64, Digest)> = chain
            .seq_disagrees
            .iter()
            .map(|d| (d.chain_seq, d.store_seq, d.entry_id))
            .collect();
        assert_eq!(
            disagrees,
            [
                (102, seq(0), index.ids.at(0)),
                (101, seq(5), index.ids.at(5))
            ]
        );
    }

    #[test]
    fn the_index_s_ids_read_from_the_lines_are_the_ids_and_find_the_same_records() {
        // Catches an id read from the wrong line (a neighbour's position, a seq off by one), a
        // record whose seq names a line of another id given that line's id, and a chain that
        // finds other records, orphans or disagreements once the ids are read from the lines
        // (docs/scale.md#ids-by-line).
        let index = index_of(8);
        let line = line_of;
        let of_seq = |seq: i64| (0..8).find(|&k| index.records[k].seq() == seq).unwrap();
        // Seqs 1 to 6, each line holding its record's id, but seq 3's, which holds another:
        // the record of seq 3 and those of seqs 7 and 8 have no line of their id.
        let lines: Vec<_> = (1..=6)
            .map(|seq| match seq {
                3 => line(seq, Digest::of(b"another")),
                _ => line(seq, index.ids.at(of_seq(seq))),
            })
            .collect();
        let before = Chain::of(&lines, &index);
        let lines = std::sync::Arc::new(lines);
        let mut shared = index_of(8);
        shared.share_line_ids(&lines);
        assert!(shared.ids.iter().eq(index.ids.iter()));
        assert_eq!(shared.ids.held_as_digests(), 3);
        let after = Chain::of(&lines, &shared);
        let found = |c: &Chain| (0..6).map(|i| c.record_of.get(i)).collect::<Vec<_>>();
        assert_eq!(found(&after), found(&before));
        assert_eq!(after.orphans, before.orphans);
        assert_eq!(after.orphans.len(), 3);
        let disagrees = |c: &Chain| {
            c.seq_disagrees
                .iter()
                .map(|d| (d.chain_seq, d.store_seq, d.entry_id))
                .collect::<Vec<_>>()
        };
        assert_eq!(disagrees(&after), disagrees(&before));
    }

    #[test]
    fn seqs_named_by_more_than_one_record_list_them_in_id_order() {
        // Catches a count of the store's seqs that counts records, a shared seq listed twice or
        // its ids in another order than the records' (the published index lists them), and a
        // seq missed when the records naming it are not next to each other by id.
        let mut index = index_of(6);
        let records = std::sync::Arc::make_mut(&mut index.records);
        // Records 1, 3 and 5 (by id) name seq 7; 0 and 4 name seq 9; record 2 its own.
        for (k, seq) in [(1, 7), (3, 7), (5, 7), (0, 9), (4, 9), (2, 2)] {
            records[k].seq40 = U40::new(seq as u64).unwrap();
        }
        let ids = index.ids.clone();
        let chain = Chain::of(&[], &index);
        assert_eq!(chain.store_seqs, 3);
        let multi: Vec<(i64, Vec<Digest>)> = chain
            .multi
            .iter()
            .map(|m| (m.seq, m.entry_ids.clone()))
            .collect();
        assert_eq!(
            multi,
            [
                (7, vec![ids.at(1), ids.at(3), ids.at(5)]),
                (9, vec![ids.at(0), ids.at(4)])
            ]
        );
    }

    #[test]
    fn a_private_moment_gives_its_seqs_once_each_in_order() {
        // Catches a list of moments that loses a seq sharing a moment with another, gives a
        // seq twice (a line and its record print the same moment), finds a moment it does
        // not hold, or gives a moment twice (docs/scale.md#counted-not-listed).
        let private =
            PrivateMoments::of(vec![(50, 3), (10, 2), (50, 1), (10, 2), (-5, 9), (50, 3)]);
        assert_eq!(private.moments().collect::<Vec<_>>(), [-5, 10, 50]);
        assert_eq!(private.seqs_of(50).collect::<Vec<_>>(), [1, 3]);
        assert_eq!(private.seqs_of(10).collect::<Vec<_>>(), [2]);
        assert!(private.contains(-5) && private.contains(50));
        assert!(!private.contains(11) && !private.contains(0) && !private.contains(51));
        assert!(PrivateMoments::default().is_empty());
    }

    #[test]
    fn a_record_s_optional_fields_survive_packing_absent_or_zero() {
        // Catches a packing that reads a zero (block height 0, the epoch as a clock, the zero
        // digest) as absent, or an absent field as zero; and a record grown past 72 bytes
        // (a million of them are held: docs/scale.md#narrower-lines).
        assert!(std::mem::size_of::<Record>() <= 72);
        let zero = "1970-01-01T00:00:00Z";
        let hash0 = "0".repeat(64);
        let index = format!(
            r#"{{"entries": {{
            "{a}": {{"seq": 1, "status": "proof", "calendars": ["https://a.example"],
                "line_timestamp": "{zero}", "seen_at": "{zero}", "stamped_at": "{zero}",
                "upgraded_at": "{zero}", "block_height": 0, "block_hash": "{hash0}",
                "block_time": "{zero}"}},
            "{b}": {{"seq": 2, "status": "pending", "calendars": ["https://a.example"],
                "line_timestamp": "{zero}", "seen_at": "{zero}", "stamped_at": "{zero}"}}
            }}}}"#,
            a = "a".repeat(64),
            b = "b".repeat(64),
        );
        let parsed = parse_index(index.as_bytes()).unwrap();
        let mut daycut = DayCut::new("UTC");
        let published: Vec<serde_json::Value> = parsed
            .records
            .iter()
            .map(|r| {
                serde_json::to_value(published_record(
                    &parsed.calendars,
                    r,
                    false,
                    None,
                    &mut daycut,
                ))
                .unwrap()
            })
            .collect();
        let (all, none) = (&published[0], &published[1]);
        assert_eq!(all["block_height"], 0);
        assert_eq!(all["block_hash"], hash0.as_str());
        assert_eq!(all["block_time"], zero);
        assert_eq!(all["upgraded_at"], zero);
        for field in ["block_height", "block_hash", "block_time", "upgraded_at"] {
            assert!(
                none.get(field).is_none_or(serde_json::Value::is_null),
                "{field}: {none}"
            );
        }
    }

    #[test]
    fn a_seq_or_block_height_past_five_bytes_is_refused_and_the_largest_kept() {
        // Catches a seq or block height cut to its low five bytes (another seq, another block,
        // published as if the store wrote it) instead of refused, and a limit off by one.
        let record = |seq: u64, height: u64| {
            format!(
                r#"{{"entries": {{"{a}": {{"seq": {seq}, "status": "proof", "calendars": [],
                "line_timestamp": "2026-10-24T13:00:00Z", "seen_at": "2026-10-24T13:00:00Z",
                "stamped_at": "2026-10-24T13:00:00Z", "block_height": {height}}}}}}}"#,
                a = "a".repeat(64)
            )
        };
        let top = U40::LIMIT - 1;
        let parsed = parse_index(record(top, top).as_bytes()).unwrap();
        let r = &parsed.records[0];
        assert_eq!((r.seq(), r.block_height()), (top as i64, Some(top)));
        let seq = parse_index(record(U40::LIMIT, 1).as_bytes()).unwrap_err();
        assert!(seq.contains("seq 1099511627776 is past"), "{seq}");
        let height = parse_index(record(1, U40::LIMIT).as_bytes()).unwrap_err();
        assert!(
            height.contains("block_height 1099511627776 is past"),
            "{height}"
        );
    }

    #[test]
    fn a_65537th_distinct_list_of_calendars_is_refused_and_the_65536th_kept() {
        // A store record names its list of calendars by a two-byte number
        // (docs/scale.md#narrower-lines). Catches a number that wraps (a record published with
        // another record's calendars) instead of a refusal, and a limit off by one.
        let index = |lists: usize| {
            let entries: Vec<String> = (0..lists)
                .map(|k| {
                    format!(
                        r#""{k:064x}": {{"seq": {seq}, "status": "proof", "calendars": ["https://c{k}.example"],
                        "line_timestamp": "2026-10-24T13:00:00Z", "seen_at": "2026-10-24T13:00:00Z",
                        "stamped_at": "2026-10-24T13:00:00Z"}}"#,
                        seq = k + 1
                    )
                })
                .collect();
            format!(r#"{{"entries": {{{}}}}}"#, entries.join(","))
        };
        let kept = parse_index(index(65_536).as_bytes()).unwrap();
        let last = kept
            .records
            .iter()
            .find(|r| r.seq() == 65_536)
            .map(|r| kept.calendars[usize::from(r.calendars)].clone());
        assert_eq!(last, Some(vec!["https://c65535.example".to_string()]));
        let refused = parse_index(index(65_537).as_bytes()).unwrap_err();
        assert!(
            refused.contains(&format!("entry {:064x}: a 65,537th distinct list", 65_536)),
            "{refused}"
        );
    }

    /// A repository in `dir` whose HEAD holds `proofs` (a tree's id) as
    /// `ledger/witness/proofs`, opened as DIR's previous publication.
    fn head_with_proofs(
        dir: &Path,
        repo: &git2::Repository,
        proofs: git2::Oid,
    ) -> crate::previous::Previous {
        let mut witness = repo.treebuilder(None).unwrap();
        witness.insert("proofs", proofs, 0o040000).unwrap();
        let witness = witness.write().unwrap();
        let mut ledger = repo.treebuilder(None).unwrap();
        ledger.insert("witness", witness, 0o040000).unwrap();
        let ledger = ledger.write().unwrap();
        let mut root = repo.treebuilder(None).unwrap();
        root.insert("ledger", ledger, 0o040000).unwrap();
        let root = repo.find_tree(root.write().unwrap()).unwrap();
        let sig = git2::Signature::new("t", "t@example.com", &git2::Time::new(0, 0)).unwrap();
        // Each call's commit stands alone; HEAD is set to it.
        let commit = repo.commit(None, &sig, &sig, "m", &root, &[]).unwrap();
        repo.set_head_detached(commit).unwrap();
        crate::previous::Previous::open(dir).unwrap()
    }

    #[test]
    fn head_s_proofs_merged_as_read_are_what_the_sorted_list_gives() {
        // Catches a merge as HEAD's folder is read that differs from the list's: a proof given
        // its neighbour's record, HEAD's proofs before the first id, between ids or after the
        // last lost or not carried, other names lost, the count wrong; and one that trusts a
        // folder whose digests come out of order (written by hand), which must be read as a
        // list instead.
        let tmp = tempfile::tempdir().unwrap();
        let repo = git2::Repository::init(tmp.path()).unwrap();
        let d = |b: u8| [b; 32];
        let name = |b: u8| format!("{}.ots", Digest(d(b)));
        let blob = |b: u8| repo.blob(&[b]).unwrap();
        // The last id is after HEAD's last proof: its record has none.
        let ids = SortedIds::own([2, 3, 5, 6, 7, 0xee].map(|b| Digest(d(b))).to_vec());
        let mut tree = repo.treebuilder(None).unwrap();
        for b in [1, 3, 4, 6, 8, 9] {
            tree.insert(name(b), blob(b), 0o100644).unwrap();
        }
        tree.insert("prereg_x.ots", blob(0), 0o100644).unwrap();
        tree.insert("notes.md", blob(10), 0o100644).unwrap();
        let sorted = tree.write().unwrap();
        let previous = head_with_proofs(tmp.path(), &repo, sorted);
        assert!(previous.streams_folder(PROOFS_FOLDER).unwrap());
        let seen = |h: HeadAtRecords| {
            let other: Vec<(String, git2::Oid)> =
                h.other.into_iter().map(|(n, a)| (n, a.oid)).collect();
            assert!(
                h.not_in_index
                    .iter()
                    .all(|(_, a)| a.place() == ProofPlace::Flat)
            );
            (
                h.at_record
                    .into_iter()
                    .map(|a| a.map(|a| a.oid))
                    .collect::<Vec<_>>(),
                h.not_in_index
                    .into_iter()
                    .map(|(d, a)| (d, a.oid))
                    .collect::<Vec<_>>(),
                other,
                h.head_proofs,
            )
        };
        let listed = seen(HeadProofs::read(&previous).unwrap().at_records(&ids));
        let merged = seen(HeadAtRecords::merged(&previous, &ids).unwrap().unwrap());
        assert_eq!(merged, listed);
        let searched = seen(HeadAtRecords::searched(&previous, &ids).unwrap());
        assert_eq!(searched, listed);
        assert_eq!(
            merged.0,
            [None, Some(blob(3)), None, Some(blob(6)), None, None]
        );
        assert_eq!(merged.1, [1, 4, 8, 9].map(|b| (d(b), blob(b))));
        assert_eq!((merged.2.len(), merged.3), (2, 8));
        // No ids: every digest-named proof is carried.
        let none = seen(
            HeadAtRecords::merged(&previous, &SortedIds::default())
                .unwrap()
                .unwrap(),
        );
        assert_eq!((none.0.len(), none.1.len()), (0, 6));

        // The same entries with two digests swapped, as no git command writes a tree.
        let mut raw = Vec::new();
        for b in [1, 4, 3, 6, 8, 9] {
            raw.extend_from_slice(format!("100644 {}\0", name(b)).as_bytes());
            raw.extend_from_slice(blob(b).as_bytes());
        }
        let odb = repo.odb().unwrap();
        let unsorted = odb.write(git2::ObjectType::Tree, &raw).unwrap();
        let previous = head_with_proofs(tmp.path(), &repo, unsorted);
        assert!(HeadAtRecords::merged(&previous, &ids).unwrap().is_none());
        let listed = seen(HeadProofs::read(&previous).unwrap().at_records(&ids));
        assert_eq!(
            listed.0,
            [None, Some(blob(3)), None, Some(blob(6)), None, None]
        );
        assert_eq!(
            seen(HeadAtRecords::searched(&previous, &ids).unwrap()),
            listed
        );
    }

    #[test]
    fn head_s_proofs_in_bucket_folders_are_found_as_the_sorted_list_finds_them() {
        // Catches a search that differs from the sorted list's merge when HEAD's proofs lie in
        // bucket folders (git's order is then not the digests'): a proof given its
        // neighbour's record or none, a digest HEAD holds twice matched twice or by its later
        // copy (the first in path order meets its record, the other is carried), the carried
        // ones out of digest order or with the wrong place, other names or the count wrong.
        let tmp = tempfile::tempdir().unwrap();
        let repo = git2::Repository::init(tmp.path()).unwrap();
        let d = |b: u8| [b; 32];
        let name = |b: u8| format!("{}.ots", Digest(d(b)));
        let blob = |b: u8, copy: u8| repo.blob(&[b, copy]).unwrap();
        let folder = |entries: &[(u8, u8)]| {
            let mut tree = repo.treebuilder(None).unwrap();
            for &(b, copy) in entries {
                tree.insert(name(b), blob(b, copy), 0o100644).unwrap();
            }
            tree.write().unwrap()
        };
        // Bucket 0 holds high digests, bucket 1 low ones; 7 is in bucket 1 and again in the flat
        // folder (the bucket's copy comes first in path order: "000001/" sorts before
        // "0707…"), 9 in both buckets.
        let mut proofs = repo.treebuilder(None).unwrap();
        proofs
            .insert("000000", folder(&[(8, 0), (9, 0), (0xf0, 0)]), 0o040000)
            .unwrap();
        proofs
            .insert(
                "000001",
                folder(&[(1, 1), (3, 1), (7, 1), (9, 1)]),
                0o040000,
            )
            .unwrap();
        proofs.insert(name(7), blob(7, 2), 0o100644).unwrap();
        proofs.insert("prereg_x.ots", blob(0, 0), 0o100644).unwrap();
        let previous = head_with_proofs(tmp.path(), &repo, proofs.write().unwrap());
        assert!(previous.streams_folder(PROOFS_FOLDER).unwrap());
        assert!(
            HeadAtRecords::merged(&previous, &ids_of(&[3, 5, 7, 9, 0xf0]))
                .unwrap()
                .is_none()
        );
        let seen = |h: HeadAtRecords| {
            let at_record: Vec<Option<AtHead>> = h.at_record.into_iter().collect();
            (at_record, h.not_in_index, h.other, h.head_proofs)
        };
        for ids in [
            ids_of(&[3, 5, 7, 9, 0xf0]),
            ids_of(&[]),
            ids_of(&[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0xf0, 0xff]),
        ] {
            let listed = seen(HeadProofs::read(&previous).unwrap().at_records(&ids));
            let searched = seen(HeadAtRecords::searched(&previous, &ids).unwrap());
            assert_eq!(searched, listed);
        }
        let (at_record, carried, other, count) =
            seen(HeadAtRecords::searched(&previous, &ids_of(&[3, 5, 7, 9, 0xf0])).unwrap());
        let oid = |a: &Option<AtHead>| a.map(|a| (a.oid, a.place()));
        assert_eq!(
            at_record.iter().map(oid).collect::<Vec<_>>(),
            [
                Some((blob(3, 1), ProofPlace::Bucket(1))),
                None,
                Some((blob(7, 1), ProofPlace::Bucket(1))),
                Some((blob(9, 0), ProofPlace::Bucket(0))),
                Some((blob(0xf0, 0), ProofPlace::Bucket(0))),
            ]
        );
        assert_eq!(
            carried
                .iter()
                .map(|(dg, a)| (dg[0], a.oid, a.place()))
                .collect::<Vec<_>>(),
            [
                (1, blob(1, 1), ProofPlace::Bucket(1)),
                (7, blob(7, 2), ProofPlace::Flat),
                (8, blob(8, 0), ProofPlace::Bucket(0)),
                (9, blob(9, 1), ProofPlace::Bucket(1)),
            ]
        );
        assert_eq!((other.len(), count), (1, 9));
    }

    fn ids_of(bytes: &[u8]) -> SortedIds {
        SortedIds::own(bytes.iter().map(|&b| Digest([b; 32])).collect())
    }

    #[test]
    fn head_s_proofs_meet_the_records_that_name_them_and_the_rest_are_carried() {
        // Catches a merge that loses HEAD's proofs after the last record (not carried), counts
        // a matched one as unnamed (carried twice), or gives a record its neighbour's blob id.
        let d = |b: u8| [b; 32];
        let oid = |b: u8| AtHead {
            oid: git2::Oid::from_bytes(&[b; 20]).unwrap(),
            place: ProofPlace::Bucket(u32::from(b)).pack(),
        };
        let head = HeadProofs {
            by_digest: [1, 3, 4, 6, 8, 9].map(|b| (d(b), oid(b))).to_vec(),
            other: BTreeMap::from([("prereg_x.ots".to_string(), oid(0))]),
        };
        let ids = SortedIds::own([2, 3, 5, 6, 7].map(|b| Digest(d(b))).to_vec());
        let at = head.at_records(&ids);
        let at_record: Vec<Option<AtHead>> = at.at_record.into_iter().collect();
        assert_eq!(at_record, [None, Some(oid(3)), None, Some(oid(6)), None]);
        assert_eq!(at.not_in_index, [1, 4, 8, 9].map(|b| (d(b), oid(b))));
        assert_eq!(at.other.len(), 1);
        let none = HeadProofs {
            by_digest: vec![(d(1), oid(1))],
            other: BTreeMap::new(),
        }
        .at_records(&SortedIds::default());
        assert_eq!(
            (none.at_record.into_iter().count(), none.not_in_index.len()),
            (0, 1)
        );
        // Across chunks: every id, in order, none lost where a chunk starts.
        let mut many = OidsByRecord::default();
        let n = 2 * OidsByRecord::CHUNK + 3;
        for k in 0..n {
            many.push((k % 3 != 0).then(|| oid((k % 251) as u8)));
        }
        assert_eq!(many.0.len(), 3);
        let back: Vec<Option<AtHead>> = many.into_iter().collect();
        assert_eq!(back.len(), n);
        assert!(
            back.iter()
                .enumerate()
                .all(|(k, o)| { *o == (k % 3 != 0).then(|| oid((k % 251) as u8)) })
        );
    }

    #[test]
    fn index_and_stats_are_written_with_sorted_keys() {
        let calendars = vec!["https://a.example".to_string()];
        let record = PublishedRecord {
            block_hash: Some(Digest::of(b"block")),
            block_height: Some(1),
            block_time: Some(timestamp_of(0)),
            calendars: &calendars,
            line_timestamp: Some(timestamp_of(0)),
            proof: Some(format!(
                "ledger/witness/proofs/000000/{}.ots",
                Digest::of(b"x")
            )),
            seen_at: timestamp_of(0),
            seq: 1,
            stamped_at: timestamp_of(0),
            status: Status::Proof,
            upgraded_at: Some(timestamp_of(0)),
        };
        let multi = [MultiEntrySeq {
            entry_ids: vec![Digest::of(b"a"), Digest::of(b"b")],
            seq: 2,
        }];
        let disagrees = [SeqDisagrees {
            chain_seq: 3,
            entry_id: Digest::of(b"c"),
            store_seq: 4,
        }];
        let run = serde_json::json!({"run_at": "x", "lines_seen": 1});
        let withheld_seqs = BTreeSet::from([5]);
        let names = ["n.ots".to_string()];
        let index = PublishedIndex {
            entries: Some(BTreeMap::from([(Digest::of(b"d"), record)])),
            parts: Some(vec![IndexPart {
                entries: 1,
                first_seq: 1,
                last_seq: 10_000,
                path: index_part_path(1),
                sha256: Digest::of(b"part"),
            }]),
            prereg: Some(Prereg {
                sha256: Digest::of(b"prereg"),
            }),
            publisher: Publisher {
                carried_not_in_store: &names,
                clocks: CLOCKS,
                line_timestamp_disagrees_seqs: &[6],
                multi_entry_seqs: &multi,
                orphans: vec![Orphan {
                    entry_id: Digest::of(b"e"),
                    seq: 7,
                }],
                page_carries: PageCarries {
                    head: Digest::of(b"f"),
                    head_seq: Some(8),
                    lines: 8,
                    published: 7,
                    withheld: 1,
                },
                seq_disagrees: &disagrees,
                stray_files: 0,
                tail_read: Some(TailRead {
                    lines_seen: run.get("lines_seen"),
                    run_at: run.get("run_at"),
                    source: TAIL_READ_SOURCE,
                }),
                withheld_clocks: WITHHELD_CLOCKS,
                withheld_seqs: &withheld_seqs,
            },
        };
        assert!(keys_sorted(&index));
        let n = of(1, 2);
        let stats = WitnessStats {
            carried_not_in_store: n,
            explorers_disagree: n,
            lines: 2,
            mismatch: n,
            multi_entry_seqs: n,
            no_record: n,
            orphans: n,
            outside_latency: OutsideLatency {
                buckets: BUCKETS,
                negative: n,
                none_yet: n,
                over_24h: n,
                proof_without_block_time: n,
                within_1h: n,
                within_24h: n,
                within_6h: n,
            },
            pending: n,
            proof: n,
            proofs_published: 1,
            replaced: n,
            retroactive: n,
            rewritten: n,
            runs: 1,
            stamp_batches: n,
            stamp_failed: n,
            store_entries: 1,
            stray_files: n,
            tail_lag: n,
            window: Window {
                day_9_closes: Some("2026-11-09".into()),
                registered: true,
                since: Some("2026-11-01".into()),
            },
            with_commitment: n,
        };
        assert!(keys_sorted(&stats));
    }
}
