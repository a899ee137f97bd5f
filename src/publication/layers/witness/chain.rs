//! The chain as the witness layer sees it: which entry_id is which seq, which are withheld, and the
//! counts with their denominators for STATS.json.

use super::*;

/// The chain against the store: which record is which line's, and what does not fit.
pub(super) struct Chain {
    pub(super) withheld_ids: BTreeSet<Digest>,
    pub(super) withheld_seqs: BTreeSet<i64>,
    /// For each line, the position of its store record.
    pub(super) record_of: RecordOf,
    pub(super) orphans: Vec<usize>,
    pub(super) seq_disagrees: Vec<SeqDisagrees>,
    pub(super) multi: Vec<MultiEntrySeq>,
    pub(super) store_seqs: usize,
}

impl Chain {
    pub(super) fn of(lines: &[LineRecord], index: &StoreIndex) -> Chain {
        let withheld_ids: BTreeSet<Digest> = lines
            .iter()
            .filter(|l| l.withheld.is_some())
            .map(|l| l.entry_id)
            .collect();
        let withheld_seqs: BTreeSet<i64> = lines
            .iter()
            .filter(|l| l.withheld.is_some())
            .map(|l| l.seq)
            .collect();
        let mut record_of = RecordOf::none(lines.len());
        let mut claimed = vec![false; index.records.len()];
        let mut seq_disagrees: Vec<SeqDisagrees> = Vec::new();
        // A record whose id the table holds as a line's entry_id (docs/scale.md#ids-by-line) is
        // that line's, found without a search: at a million lines the searches, twenty steps of
        // two cache misses each, took seconds. A chain that verified has no two lines of one
        // entry_id (each commits to its seq), so the line is the only one the search would find.
        for (k, claim) in claimed.iter_mut().enumerate() {
            if let Some(i) = index
                .ids
                .line_at(k)
                .filter(|&i| lines.get(i).is_some_and(|l| l.entry_id == index.ids.at(k)))
            {
                *claim = true;
                record_of.set(i, k);
                let (seq, r) = (lines[i].seq, &index.records[k]);
                if seq != r.seq() {
                    seq_disagrees.push(SeqDisagrees {
                        chain_seq: seq,
                        entry_id: index.ids.at(k),
                        store_seq: r.seq(),
                    });
                }
            }
        }
        // Every other line finds its record by searching the records, which are sorted by id:
        // no list of the chain's ids is made and sorted beside them (36 MB at a million, at the
        // witness layer's peak: docs/scale.md#names-not-held). The lines are taken last first,
        // so that of equal ids (none in a chain that verified) the last line wins, as before.
        for (i, l) in lines.iter().enumerate().rev() {
            if record_of.get(i).is_some() {
                continue;
            }
            let Ok(k) = index.ids.binary_search(&l.entry_id) else {
                continue;
            };
            if std::mem::replace(&mut claimed[k], true) {
                continue;
            }
            record_of.set(i, k);
            let r = &index.records[k];
            if l.seq != r.seq() {
                seq_disagrees.push(SeqDisagrees {
                    chain_seq: l.seq,
                    entry_id: index.ids.at(k),
                    store_seq: r.seq(),
                });
            }
        }
        // In the records' order, as they were found when the records were walked.
        seq_disagrees.sort_unstable_by_key(|d| d.entry_id);
        let orphans: Vec<usize> = claimed
            .iter()
            .enumerate()
            .filter(|(_, c)| !**c)
            .map(|(k, _)| k)
            .collect();
        drop(claimed);
        // The store's seqs sorted (8 bytes a record, where seq and position took 16:
        // docs/scale.md#counted-not-listed): each run of equal seqs is one seq the store names.
        let mut seqs: Vec<i64> = index.records.iter().map(|r| r.seq()).collect();
        seqs.sort_unstable();
        let mut store_seqs = 0;
        let mut multi: Vec<MultiEntrySeq> = Vec::new();
        for group in seqs.chunk_by(|a, b| a == b) {
            store_seqs += 1;
            if group.len() > 1 {
                multi.push(MultiEntrySeq {
                    entry_ids: Vec::new(),
                    seq: group[0],
                });
            }
        }
        drop(seqs);
        // A seq more than one record names lists them in id order: the records' own order.
        if !multi.is_empty() {
            for (id, r) in index.ids.iter().zip(index.records.iter()) {
                if let Ok(m) = multi.binary_search_by_key(&r.seq(), |m| m.seq) {
                    multi[m].entry_ids.push(id);
                }
            }
        }
        Chain {
            withheld_ids,
            withheld_seqs,
            record_of,
            orphans,
            seq_disagrees,
            multi,
            store_seqs,
        }
    }

    /// A record, `id`'s, of a withheld line (by digest or by seq): its clocks are cut.
    pub(super) fn cut(&self, id: &Digest, r: &Record) -> bool {
        self.withheld_ids.contains(id) || self.withheld_seqs.contains(&r.seq())
    }
}

/// For each line, the position of its store record, or none: 4 bytes a line, where an
/// `Option<u32>` takes 8 and a `usize` 16 (docs/scale.md#witness-transients).
#[derive(Debug)]
pub(super) struct RecordOf(pub(super) Vec<u32>);

impl RecordOf {
    /// No record is at this position: the store's index is read within a 4 GiB ceiling, and a
    /// record takes at least 64 bytes of it, so positions stay far under 2^32 - 1.
    const NONE: u32 = u32::MAX;

    pub(super) fn none(lines: usize) -> RecordOf {
        RecordOf(vec![Self::NONE; lines])
    }

    pub(super) fn set(&mut self, line: usize, record: usize) {
        // A position at or past NONE cannot occur (see NONE); were it to, the line is left
        // without a record rather than given another's.
        self.0[line] = u32::try_from(record)
            .ok()
            .filter(|&k| k != Self::NONE)
            .unwrap_or(Self::NONE);
    }

    pub(super) fn get(&self, line: usize) -> Option<usize> {
        self.0
            .get(line)
            .filter(|&&k| k != Self::NONE)
            .map(|&k| k as usize)
    }
}

/// The per-line counts: statuses, latency buckets, lag.
#[derive(Default)]
pub(super) struct Counts {
    pub(super) status_count: BTreeMap<Status, usize>,
    pub(super) no_record: usize,
    pub(super) retroactive: usize,
    pub(super) ts_disagree: Vec<i64>,
    pub(super) w1: usize,
    pub(super) w6: usize,
    pub(super) w24: usize,
    pub(super) over24: usize,
    pub(super) proof_no_time: usize,
    pub(super) negative: usize,
    pub(super) tail_lag: usize,
    pub(super) stamp_batches: usize,
}

impl Counts {
    pub(super) fn of(lines: &[LineRecord], index: &StoreIndex, chain: &Chain) -> Counts {
        let n = lines.len();
        let mut c = Counts::default();
        let mut last_seen: Option<usize> = None;
        for (i, line) in lines.iter().enumerate() {
            let Some(k) = chain.record_of.get(i) else {
                c.no_record += 1;
                continue;
            };
            last_seen = Some(i);
            c.line(line, &index.records[k]);
        }
        c.tail_lag = match last_seen {
            Some(i) => n - 1 - i,
            None => n,
        };
        let mut stamped_moments: Vec<i64> = index.records.iter().map(|r| r.stamped_at()).collect();
        stamped_moments.sort_unstable();
        stamped_moments.dedup();
        c.stamp_batches = stamped_moments.len();
        c
    }

    pub(super) fn line(&mut self, line: &LineRecord, r: &Record) {
        *self.status_count.entry(r.status).or_default() += 1;
        let Some(ts) = line.timestamp() else {
            return;
        };
        if r.line_timestamp() != ts {
            self.ts_disagree.push(line.seq);
        }
        if r.seen_at() - ts > RETROACTIVE_AFTER {
            self.retroactive += 1;
        }
        if r.status != Status::Proof {
            return;
        }
        let Some(bt) = r.block_time() else {
            self.proof_no_time += 1;
            return;
        };
        let lat = bt - ts;
        if lat <= HOUR {
            self.w1 += 1;
        }
        if lat <= 6 * HOUR {
            self.w6 += 1;
        }
        if lat <= 24 * HOUR {
            self.w24 += 1;
        } else {
            self.over24 += 1;
        }
        if lat < 0 {
            self.negative += 1;
        }
    }

    pub(super) fn status(&self, x: Status) -> usize {
        self.status_count.get(&x).copied().unwrap_or(0)
    }
}
