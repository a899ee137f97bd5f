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
use crate::publication::five_bytes::{Clock, U40};
use crate::publication::layers::side_channels::{self, DayCut};
use crate::published::encode::{Count, of, pretty, timestamp_of};
use crate::published::layout::ProofPlace;
use crate::published::output_tree::Content;
use crate::published::segments::Series;
use crate::published::sorted_ids::SortedIds;
use crate::terminal::refusal::Refusal;
pub use exhibit_protocol::WitnessStatus as Status;
use exhibit_protocol::days;
use exhibit_protocol::ots;

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

/// One record of the store's index, compact (a million of them stay small): 72 bytes. The
/// four optional fields are plain values with a bit each in `present` (as `Option`s they took
/// 24 bytes more a record, 24 MB at a million: docs/scale.md#what-is-left), the five clocks
/// take five bytes each ([`Clock`]), the seq and the block height five bytes each and the
/// calendars' list two (docs/scale.md#narrower-lines), and its id is kept apart, at the
/// same position of [`StoreIndex::ids`], which the published proofs list shares
/// (docs/scale.md#ids-shared).
#[derive(Debug, Clone)]
struct Record {
    block_hash: Digest,
    /// The seq, 1 or more and below 2^40 (the index is refused otherwise): [`Record::seq`].
    seq40: U40,
    line_timestamp: Clock,
    seen_at: Clock,
    stamped_at: Clock,
    upgraded_at: Clock,
    /// Below 2^40 (the index is refused otherwise).
    block_height: U40,
    block_time: Clock,
    /// Index into `StoreIndex::calendars` (interned lists; the index is refused past 65,536).
    calendars: u16,
    status: Status,
    present: u8,
}

impl Record {
    const UPGRADED_AT: u8 = 1;
    const BLOCK_HEIGHT: u8 = 2;
    const BLOCK_HASH: u8 = 4;
    const BLOCK_TIME: u8 = 8;

    fn has(&self, bit: u8) -> bool {
        self.present & bit != 0
    }

    fn seq(&self) -> i64 {
        // Below 2^40: exact.
        self.seq40.get() as i64
    }

    fn line_timestamp(&self) -> i64 {
        self.line_timestamp.secs()
    }

    fn seen_at(&self) -> i64 {
        self.seen_at.secs()
    }

    fn stamped_at(&self) -> i64 {
        self.stamped_at.secs()
    }

    fn upgraded_at(&self) -> Option<i64> {
        self.has(Self::UPGRADED_AT).then(|| self.upgraded_at.secs())
    }

    fn block_height(&self) -> Option<u64> {
        self.has(Self::BLOCK_HEIGHT)
            .then(|| self.block_height.get())
    }

    fn block_hash(&self) -> Option<Digest> {
        self.has(Self::BLOCK_HASH).then_some(self.block_hash)
    }

    fn block_time(&self) -> Option<i64> {
        self.has(Self::BLOCK_TIME).then(|| self.block_time.secs())
    }
}

/// The value of an optional field and its bit in `Record::present` (the value's default when
/// absent, never read).
fn packed<T: Default>(value: Option<T>, bit: u8, present: &mut u8) -> T {
    match value {
        Some(v) => {
            *present |= bit;
            v
        }
        None => T::default(),
    }
}

/// The store's `index.json`, parsed.
#[derive(Debug, Default)]
struct StoreIndex {
    /// The records' ids, sorted, each once: record `k`'s id is `ids[k]`. Shared with the
    /// published proofs list, which names its proofs by position here, and with the index
    /// parts made again when written (docs/scale.md#ids-shared).
    /// Once the chain's lines are known, a digest that is a line's entry_id is read from the
    /// line, not held again (docs/scale.md#ids-by-line).
    ids: std::sync::Arc<SortedIds>,
    /// In the ids' order. Shared with the index parts that are made again when written, which
    /// name their records by position instead of copying them (160 MB at a million lines:
    /// docs/scale.md#memory).
    records: std::sync::Arc<Vec<Record>>,
    calendars: Vec<Vec<String>>,
    calendar_ids: BTreeMap<Vec<String>, u16>,
    prereg_sha256: Option<Digest>,
}

impl StoreIndex {
    /// From here on, an id that is the entry_id of the line its record's seq names is read
    /// from that line, not held again: 28 bytes a record, 28 MB at a million, from the witness
    /// layer to the end of the build, where the published proofs list is named by these ids
    /// (docs/scale.md#ids-by-line). A record whose id is not its seq's line's (an orphan, a
    /// seq that disagrees) keeps its id.
    fn share_line_ids(&mut self, lines: &std::sync::Arc<Vec<LineRecord>>) {
        let ids = std::sync::Arc::unwrap_or_clone(std::mem::take(&mut self.ids));
        let records = &self.records;
        // A chain that verified numbers its lines 1, 2, 3…: a seq's line is found at once, and
        // by search otherwise.
        let line_of_seq = |seq: i64| -> Option<usize> {
            let guess = usize::try_from(seq.checked_sub(1)?).ok()?;
            if lines.get(guess).is_some_and(|l| l.seq == seq) {
                return Some(guess);
            }
            lines.binary_search_by_key(&seq, |l| l.seq).ok()
        };
        let shared: std::sync::Arc<dyn crate::published::sorted_ids::LineIds> = lines.clone();
        self.ids = std::sync::Arc::new(ids.by_line(shared, |k| {
            records.get(k).and_then(|r| line_of_seq(r.seq()))
        }));
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRecord<'a> {
    seq: i64,
    status: Status,
    #[serde(borrow)]
    calendars: Vec<Cow<'a, str>>,
    #[serde(borrow)]
    line_timestamp: Cow<'a, str>,
    #[serde(borrow)]
    seen_at: Cow<'a, str>,
    #[serde(borrow)]
    stamped_at: Cow<'a, str>,
    #[serde(borrow, default)]
    upgraded_at: Option<Cow<'a, str>>,
    #[serde(default)]
    block_height: Option<u64>,
    #[serde(borrow, default)]
    block_hash: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    block_time: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPrereg<'a> {
    #[serde(borrow)]
    sha256: Cow<'a, str>,
}

fn clock<E: de::Error>(id: &str, field: &str, s: &str) -> Result<Clock, E> {
    days::parse_timestamp(s)
        .and_then(Clock::new)
        .ok_or_else(|| {
            E::custom(format!(
                "entry {id}: {field} {s:?} is not a YYYY-MM-DDTHH:MM:SSZ timestamp"
            ))
        })
}

/// The index being read, and its ids as read (sorted once all are read).
struct EntriesSeed<'s>(&'s mut StoreIndex, &'s mut Vec<Digest>);

impl<'de> DeserializeSeed<'de> for EntriesSeed<'_> {
    type Value = ();
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for EntriesSeed<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an object of entry_id → record")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let (index, ids) = (self.0, self.1);
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            let id = key.parse::<Digest>().ok().ok_or_else(|| {
                de::Error::custom(format!(
                    "entry key {key:?} is not an entry_id (64 lowercase hex)"
                ))
            })?;
            let raw: RawRecord<'de> = map.next_value()?;
            if raw.seq < 1 {
                return Err(de::Error::custom(format!(
                    "entry {key}: seq {} is not a seq (1 or more)",
                    raw.seq
                )));
            }
            // Held in five bytes (docs/scale.md#narrower-lines): past 2^40 no chain reaches.
            let seq40 = U40::new(raw.seq as u64).ok_or_else(|| {
                de::Error::custom(format!(
                    "entry {key}: seq {} is past 1,099,511,627,775, further than exhibit publishes a chain",
                    raw.seq
                ))
            })?;
            if let Some(h) = raw.block_height
                && U40::new(h).is_none()
            {
                return Err(de::Error::custom(format!(
                    "entry {key}: block_height {h} is past 1,099,511,627,775, no Bitcoin block's"
                )));
            }
            let cals: Vec<String> = raw.calendars.iter().map(|c| c.to_string()).collect();
            let calendars = match index.calendar_ids.get(&cals) {
                Some(&k) => k,
                None => {
                    let k = u16::try_from(index.calendars.len()).map_err(|_| {
                        de::Error::custom(format!(
                            "entry {key}: a 65,537th distinct list of calendars, more than exhibit publishes (a tail stamps with a handful)"
                        ))
                    })?;
                    index.calendar_ids.insert(cals.clone(), k);
                    index.calendars.push(cals);
                    k
                }
            };
            let opt = |field: &str, v: &Option<Cow<'de, str>>| -> Result<Option<Clock>, A::Error> {
                v.as_deref().map(|s| clock(&key, field, s)).transpose()
            };
            let block_hash = match raw.block_hash.as_deref() {
                None => None,
                Some(h) => Some(h.parse::<Digest>().ok().ok_or_else(|| {
                    de::Error::custom(format!(
                        "entry {key}: block_hash {h:?} is not 64 lowercase hex"
                    ))
                })?),
            };
            // Read in the order the fields were always read, so a record with two bad clocks
            // is refused naming the same one as before.
            let line_timestamp = clock(&key, "line_timestamp", &raw.line_timestamp)?;
            let seen_at = clock(&key, "seen_at", &raw.seen_at)?;
            let stamped_at = clock(&key, "stamped_at", &raw.stamped_at)?;
            let mut present = 0;
            let upgraded_at = packed(
                opt("upgraded_at", &raw.upgraded_at)?,
                Record::UPGRADED_AT,
                &mut present,
            );
            let block_height = packed(
                raw.block_height.and_then(U40::new),
                Record::BLOCK_HEIGHT,
                &mut present,
            );
            let block_hash = Digest(packed(
                block_hash.map(|d| d.0),
                Record::BLOCK_HASH,
                &mut present,
            ));
            let block_time = packed(
                opt("block_time", &raw.block_time)?,
                Record::BLOCK_TIME,
                &mut present,
            );
            ids.push(id);
            // Not shared yet while the index is read: no copy is made.
            std::sync::Arc::make_mut(&mut index.records).push(Record {
                block_hash,
                seq40,
                line_timestamp,
                seen_at,
                stamped_at,
                upgraded_at,
                block_height,
                block_time,
                calendars,
                status: raw.status,
                present,
            });
        }
        Ok(())
    }
}

struct IndexVisitor<'s>(&'s mut StoreIndex, &'s mut Vec<Digest>);

impl<'de> Visitor<'de> for IndexVisitor<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("the tail's index: {\"entries\": {...}, \"prereg\": {\"sha256\": ...}}")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let (index, ids) = (self.0, self.1);
        let mut saw_entries = false;
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            match &*key {
                "entries" if !saw_entries => {
                    map.next_value_seed(EntriesSeed(&mut *index, &mut *ids))?;
                    saw_entries = true;
                }
                "prereg" if index.prereg_sha256.is_none() => {
                    let sha256 = map.next_value::<RawPrereg<'de>>()?.sha256;
                    index.prereg_sha256 = Some(sha256.parse::<Digest>().ok().ok_or_else(|| {
                        de::Error::custom(format!(
                            "prereg.sha256 {sha256:?} is not 64 lowercase hex"
                        ))
                    })?);
                }
                "entries" | "prereg" => return Err(de::Error::duplicate_field("entries/prereg")),
                other => return Err(de::Error::unknown_field(other, &["entries", "prereg"])),
            }
        }
        if !saw_entries {
            return Err(de::Error::missing_field("entries"));
        }
        Ok(())
    }
}

fn parse_index(reader: impl std::io::Read) -> Result<StoreIndex, String> {
    let mut index = StoreIndex::default();
    let mut ids = Vec::new();
    let mut d = serde_json::Deserializer::from_reader(reader);
    de::Deserializer::deserialize_map(&mut d, IndexVisitor(&mut index, &mut ids))
        .map_err(|e| e.to_string())?;
    d.end().map_err(|e| e.to_string())?;
    // Both lists put in id order in place, by one list of positions (4 bytes a record; a
    // stable sort would take half a list again as scratch), and their spare room given back:
    // they are held for the whole layer.
    let records = std::sync::Arc::make_mut(&mut index.records);
    let mut order: Vec<u32> = (0..ids.len() as u32).collect();
    order.sort_unstable_by_key(|&k| ids[k as usize]);
    permute(&mut order, |a, b| {
        ids.swap(a, b);
        records.swap(a, b);
    });
    drop(order);
    ids.shrink_to_fit();
    records.shrink_to_fit();
    if let Some(w) = ids.windows(2).find(|w| w[0] == w[1]) {
        return Err(format!("entry {} is written twice", w[0]));
    }
    index.ids = std::sync::Arc::new(SortedIds::own(ids));
    Ok(index)
}

/// Puts lists in the order `order` gives (position `j` takes what was at `order[j]`) by swaps,
/// `swap(a, b)` exchanging positions `a` and `b` of each list: one cycle at a time, each
/// position marked done in `order` as it is filled. The store's index is read within a 4 GiB
/// ceiling, so its positions fit in u32.
fn permute(order: &mut [u32], mut swap: impl FnMut(usize, usize)) {
    for start in 0..order.len() {
        let mut j = start;
        loop {
            let k = order[j] as usize;
            order[j] = j as u32;
            if k == start || k == j {
                break;
            }
            swap(j, k);
            j = k;
        }
    }
}

/// A store file's name as messages print it.
fn shown(store: &Path, rel: &str) -> String {
    store.join(rel).display().to_string()
}

/// What a stats/page reader needs to know about a store read at build.
struct Store {
    /// `STORE/proofs/`, when it is a folder (never through a symlink).
    proofs: Option<BoxFolder>,
    index: Option<StoreIndex>,
    report: Option<String>,
    prereg: Option<Vec<u8>>,
    seal: Option<Vec<u8>>,
    /// File names in `proofs/`, sorted (non-UTF-8 names counted as stray).
    proof_names: ProofNames,
    unreadable_names: usize,
}

fn read_required(
    folder: &BoxFolder,
    rel: &str,
    class: FileClass,
    refusals: &mut Vec<Refusal>,
) -> Result<Option<Vec<u8>>> {
    // No symlink followed, regular files only, within the class's ceiling (docs/build.md#safety).
    match folder.read(rel, class)? {
        Some(b) => Ok(Some(b)),
        None => {
            refusals.push(missing_store_file(folder, rel));
            Ok(None)
        }
    }
}

pub(super) fn missing_store_file(folder: &BoxFolder, rel: &str) -> Refusal {
    Refusal::new(
        "witness_file_missing",
        folder.path().join(rel).display().to_string(),
        "",
        format!(
            "the witness store has no {rel} (docs/protocol.md#witness: it is published with the proofs)"
        ),
        "let the tail write it, or build without --witness",
    )
}

fn load_store(store: &Path, refusals: &mut Vec<Refusal>) -> Result<Store> {
    let folder = match BoxFolder::published_from(store) {
        Ok(Some(f)) => f,
        _ => anyhow::bail!(
            "{}: the witness store is not a folder (--witness STORE)",
            store.display()
        ),
    };
    // Parsed as it is read, never held whole: at a million lines the index is 670 MB
    // (docs/scale.md#memory).
    let index_file = match folder.open("index.json", FileClass::WitnessIndex)? {
        Some(file) => Some(file),
        None => {
            refusals.push(missing_store_file(&folder, "index.json"));
            None
        }
    };
    let index = match index_file {
        None => None,
        Some(file) => match parse_index(std::io::BufReader::with_capacity(1 << 16, file)) {
            Ok(i) => Some(i),
            Err(e) => {
                refusals.push(Refusal::new(
"witness_index_invalid",
                    shown(store, "index.json"),
                    "",
                    format!("not the tail's index as docs/protocol.md#box describes it: {e}"),
                    "repair the tail's index.json (every field known, every clock YYYY-MM-DDTHH:MM:SSZ, every key an entry_id)",
                ));
                None
            }
        },
    };
    let report =
        read_required(&folder, "REPORT.md", FileClass::WitnessText, refusals)?.and_then(|b| {
            match String::from_utf8(b) {
                Ok(s) => Some(s),
                Err(_) => {
                    refusals.push(Refusal::new(
                        "witness_report_not_utf8",
                        shown(store, "REPORT.md"),
                        "",
                        "the tail's report is not UTF-8; the page renders it as text",
                        "fix the tail's report",
                    ));
                    None
                }
            }
        });
    let prereg = read_required(
        &folder,
        "WITNESS_PREREG.md",
        FileClass::WitnessText,
        refusals,
    )?;
    let seal = read_required(&folder, "seal.jsonl", FileClass::Seal, refusals)?;
    // runs.jsonl is read as it is published, not held (run_log.rs).
    let no_ids = SortedIds::default();
    let ids: &SortedIds = index.as_ref().map_or(&no_ids, |i| &i.ids);
    let mut proof_names = ProofNames::for_records(ids.len());
    let mut unreadable_names = 0;
    let proofs = folder.sub("proofs")?;
    match &proofs {
        Some(proofs) => {
            proofs.visit(|listed| {
                if listed.utf8 {
                    proof_names.push(listed.name, ids);
                } else {
                    unreadable_names += 1;
                }
            })?;
            proof_names.finish();
        }
        None => refusals.push(Refusal::new(
            "witness_proofs_missing",
            store.join("proofs").display().to_string(),
            "",
            "the witness store has no proofs/ folder (docs/protocol.md#witness)",
            "let the tail write its proofs, or build without --witness",
        )),
    }
    Ok(Store {
        proofs,
        index,
        report,
        prereg,
        seal,
        proof_names,
        unreadable_names,
    })
}

/// The seal (docs/protocol.md#witness): line 1 of seal.jsonl names WITNESS_PREREG.md's sha256; the file must hash to
/// it and the index must agree. Returns the sealed digest when it could be read.
fn check_seal(store: &Path, s: &Store, refusals: &mut Vec<Refusal>) -> Option<Digest> {
    let seal = s.seal.as_ref()?;
    let line1 = seal.split(|&b| b == b'\n').next().unwrap_or_default();
    let sealed = serde_json::from_slice::<J>(line1).ok().and_then(|v| {
        let file = v.get("file")?.as_str()?.to_owned();
        let sha = v.get("sha256")?.as_str()?.parse::<Digest>().ok()?;
        Some((file, sha))
    });
    let sha = match sealed {
        Some((file, sha)) if file == "WITNESS_PREREG.md" => sha,
        _ => {
            refusals.push(Refusal::new(
"witness_seal_invalid",
                shown(store, "seal.jsonl"),
                "line 1",
                "line 1 of seal.jsonl must be {\"file\":\"WITNESS_PREREG.md\",\"sha256\":\"<64 hex>\",...} (the seal rule of docs/protocol.md#witness)",
                "restore the seal the tail wrote when it opened the store",
            ));
            return None;
        }
    };
    if let Some(prereg) = &s.prereg {
        let actual = Digest::of(prereg);
        if actual != sha {
            refusals.push(Refusal::new(
"witness_prereg_not_sealed",
                shown(store, "WITNESS_PREREG.md"),
                "",
                format!(
                    "the seal rule of docs/protocol.md#witness: the file hashes to {actual}, the seal (seal.jsonl line 1) names {sha}; the preregistration is not the one sealed"
                ),
                "restore the sealed WITNESS_PREREG.md (no flag publishes an edited kill gate)",
            ));
        }
    }
    if let Some(index) = &s.index {
        match &index.prereg_sha256 {
            Some(p) if *p == sha => {}
            other => refusals.push(Refusal::new(
                "witness_prereg_mismatch",
                shown(store, "index.json"),
                "prereg.sha256",
                format!(
                    "the seal rule of docs/protocol.md#witness: index.json's prereg.sha256 is {}, the seal names {sha}",
                    other
                        .map_or("absent".to_string(), |p| format!("\"{p}\""))
                ),
                "repair the tail's index so it names the sealed digest",
            )),
        }
    }
    Some(sha)
}

/// A store proof that passed its header check, with its name in the store and its path under
/// the published `proofs/` (docs/witness.md#proof-folders).
struct StoreProof {
    name: String,
    rel: String,
    bytes: Vec<u8>,
}

impl StoreProof {
    /// What the tree keeps of it once every check has read its bytes: where it is, its size,
    /// sha256 and header (docs/scale.md#memory).
    fn kept(self, folder: &std::sync::Arc<Path>) -> crate::published::output_tree::DiskFile {
        crate::published::output_tree::DiskFile::checked(
            folder,
            &self.name,
            FileClass::Proof,
            &self.bytes,
        )
    }
}

/// What the store's `proofs/` holds, taken as its names pass and never held as a list (a
/// million names are 32 MB even as digests, and were held beside the store's records at the
/// witness layer's peak: docs/scale.md#names-not-held): a flag for each record of the index
/// whose `<id>.ots` the folder holds, and the folder's other names.
#[derive(Debug, Default)]
struct ProofNames {
    /// By the record's position in the index's records (sorted by id).
    at_record: Vec<bool>,
    /// Names that are no record's `<id>.ots`: the sealed proof's, a digest no record names, any
    /// other file; sorted.
    other: Vec<String>,
    /// Every UTF-8 name the folder holds.
    names: usize,
}

impl ProofNames {
    /// An empty tally for a store index of `records`.
    fn for_records(records: usize) -> ProofNames {
        ProofNames {
            at_record: vec![false; records],
            ..ProofNames::default()
        }
    }

    /// Takes one name of the folder; `ids` are the index's, sorted.
    fn push(&mut self, name: String, ids: &SortedIds) {
        self.names += 1;
        if let crate::published::output_tree::FileName::Proof(d) =
            crate::published::output_tree::FileName::new(&name)
            && let Ok(k) = ids.binary_search_by(|id| id.0.cmp(&d))
        {
            self.at_record[k] = true;
            return;
        }
        self.other.push(name);
    }

    /// Sorted once every name is in.
    fn finish(&mut self) {
        self.other.sort_unstable();
    }

    fn len(&self) -> usize {
        self.names
    }

    /// Whether `name`, no record's `<id>.ots`, is among the names.
    fn has_other(&self, name: &str) -> bool {
        self.other
            .binary_search_by(|n| n.as_str().cmp(name))
            .is_ok()
    }
}

fn read_proof(
    store: &Path,
    proofs: Option<&BoxFolder>,
    name: &str,
    expected: &Digest,
    listed: bool,
    refusals: &mut Vec<Refusal>,
) -> Result<Option<(Vec<u8>, std::fs::Metadata)>> {
    let rel = format!("proofs/{name}");
    if !listed {
        refusals.push(Refusal::new(
            "witness_proof_missing",
            shown(store, &rel),
            "",
            format!("{RULE_PROOF}: the index names this proof and the store has no such file"),
            "replace the proof in the store (or let the tail write it)",
        ));
        return Ok(None);
    }
    let path = store.join(&rel);
    let Some((bytes, meta)) = proofs
        .map(|p| p.read_with_stat(name, FileClass::Proof))
        .transpose()?
        .flatten()
    else {
        return Ok(None);
    };
    if let Err(problem) = ots::check(&bytes, expected) {
        let what = match problem {
            ots::OtsProblem::DigestMismatch => format!(
                "commits to {}, not to {expected} (its name)",
                ots::committed_digest(&bytes)
                    .map(|d| d.to_string())
                    .unwrap_or_default()
            ),
            other => other.to_string(),
        };
        refusals.push(Refusal::new(
            "witness_proof_invalid",
            path.display().to_string(),
            "",
            format!("{RULE_PROOF}: {what} ({})", problem.code()),
            "replace the proof in the store with the one that commits to its name",
        ));
        return Ok(None);
    }
    if let Err(body) = crate::publication::layers::proof_body::check(&bytes) {
        refusals.push(Refusal::new(
            "witness_proof_body",
            path.display().to_string(),
            "",
            format!("{} [{}]; every byte of a published proof passes the guard (docs/build.md#safety)", body.words, body.code),
            "replace the proof in the store with the calendar's own, as an OpenTimestamps client writes it",
        ));
        return Ok(None);
    }
    Ok(Some((bytes, meta)))
}

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
    let from_records = FromRecords::of(ctx, index, &chain, &proofs.places, part_seqs)?;
    if part_seqs.is_some()
        && let Some(index) = s.index.as_mut()
    {
        index.records = std::sync::Arc::default();
    }
    let index = s.index.as_ref().unwrap_or(&empty);
    crate::terminal::progress::stage_done("witness: the index parts");
    // The run log is read as it is published, never held: at a million lines it is 250 MB
    // (docs/scale.md#the-run-log-is-not-held).
    let (run_log, head_runs, carried) = read_run_log(ctx, store, &tail, &mut refusals)?;
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
    })
}

/// One of HEAD's files: its path, git blob id and length.
type HeadFileId = (String, git2::Oid, u64);

/// The run log, read as it is published, never held: at a million lines it is 250 MB
/// (docs/scale.md#the-run-log-is-not-held); with what it carries to the next build
/// (docs/scale.md#carried-verdicts).
fn read_run_log(
    ctx: &LayerContext<'_>,
    store: &Path,
    tail: &TailLogs,
    refusals: &mut Vec<Refusal>,
) -> Result<(
    Option<super::run_log::RunLog>,
    Vec<HeadFileId>,
    Vec<crate::previous::carried::Carried>,
)> {
    let head_runs = head_runs_files(ctx)?;
    let run_log = super::run_log::read(
        store,
        tail.to_cut.clone(),
        &ctx.verified.anchor_tz,
        &head_runs,
        super::run_log::guarded(ctx.previous.git_dir()),
        refusals,
    )?;
    let carried = run_log
        .as_ref()
        .and_then(|l| l.carried(ctx.previous.git_dir()))
        .into_iter()
        .collect();
    Ok((run_log, head_runs, carried))
}

/// The store's proofs, checked, held to the replacement rule against HEAD's, and HEAD's proofs
/// the store no longer names, carried forward.
struct Proofs {
    /// `ledger/witness/proofs/*` to publish from the store (proofs that passed), kept on disk.
    store_files_kept: Vec<(String, crate::published::output_tree::DiskFile)>,
    /// The same, for a segmented exhibit: a sorted list per folder, not a path and a map entry
    /// per proof (docs/scale.md#the-proofs-folder-as-a-list); a proof it cannot list stays above.
    listed: Option<ProofLists>,
    /// `ledger/witness/proofs/*` carried from HEAD (the store no longer names them).
    files: Vec<(String, Vec<u8>)>,
    replaced: Vec<String>,
    rewritten: Vec<String>,
    carried: Vec<String>,
    /// A proof HEAD published failed its header check and was dropped (--allow-rewrite).
    dropped_from_head: bool,
    stray_files: usize,
    store_files: usize,
    /// This build's records of the store's proofs, committed once DIR is written.
    records: Option<crate::previous::stat_records::Pending>,
    /// Where each record's proof is published, by the record's position ([`ProofPlace::pack`];
    /// docs/witness.md#proof-folders).
    places: std::sync::Arc<Vec<u32>>,
}

impl Proofs {
    /// A store proof that passed, kept for the tree at its place: listed in its folder's list
    /// when the exhibit lists its proofs (flat, in a bucket or in `other/`:
    /// docs/scale.md#the-proofs-folder-as-a-list).
    fn keep(
        &mut self,
        place: ProofPlace,
        name: &str,
        file: crate::published::output_tree::DiskFile,
    ) {
        let file = match &mut self.listed {
            Some(lists) => match lists.push(place, file) {
                Ok(()) => return,
                Err(file) => file,
            },
            None => file,
        };
        self.store_files_kept
            .push((format!("ledger/witness/proofs/{}", place.rel(name)), file));
    }

    /// Room for every record's proof, made once: a segmented exhibit's lists, named by the
    /// store's ids, which they share rather than copy (docs/scale.md#ids-shared).
    fn room_for(&mut self, segmented: bool, index: &StoreIndex, folder: &std::sync::Arc<Path>) {
        if segmented {
            let flat = crate::published::output_tree::ListedFiles::naming_from(
                crate::published::output_tree::ListedFolder::WitnessProofs,
                folder,
                crate::operator_box::read::FileClass::Proof,
                index.ids.clone(),
            );
            self.listed = Some(ProofLists {
                lists: BTreeMap::from([(flat.folder(), flat)]),
            });
        } else {
            self.store_files_kept.reserve(index.records.len() + 1);
        }
    }

    /// How many of the store's proofs are kept for the tree.
    fn kept(&self) -> usize {
        self.store_files_kept.len() + self.listed.as_ref().map_or(0, ProofLists::len)
    }
}

/// A segmented exhibit's store proofs as lists, one per folder they are published in (the flat
/// folder, each seq bucket, `other/`), all naming from the store's ids: the flat list's 40 bytes
/// or so a proof, where a bucket's proof in the tree's map was 215 to 330
/// (docs/scale.md#the-proofs-folder-as-a-list). Pushed in the index's order, which is each
/// list's name order. A bucket's list grows to hold its 4096 proofs without room to spare.
struct ProofLists {
    /// By folder; the flat folder's list is always there (the others are made from it).
    lists: BTreeMap<
        crate::published::output_tree::ListedFolder,
        crate::published::output_tree::ListedFiles,
    >,
}

impl ProofLists {
    /// Lists `file` in its place's list; a file no list takes is handed back.
    fn push(
        &mut self,
        place: ProofPlace,
        file: crate::published::output_tree::DiskFile,
    ) -> std::result::Result<(), crate::published::output_tree::DiskFile> {
        let folder = crate::published::output_tree::ListedFolder::of_proof_place(place);
        if !self.lists.contains_key(&folder) {
            let flat = self
                .lists
                .get(&crate::published::output_tree::ListedFolder::WitnessProofs);
            let Some(flat) = flat else {
                return Err(file);
            };
            let list = flat.of_folder(folder);
            self.lists.insert(folder, list);
        }
        match self.lists.get_mut(&folder) {
            Some(list) => list.push(file),
            None => Err(file),
        }
    }

    fn len(&self) -> usize {
        self.lists
            .values()
            .map(crate::published::output_tree::ListedFiles::len)
            .sum()
    }

    /// The lists that hold a proof, each in name order.
    fn finish(self) -> Vec<crate::published::output_tree::ListedFiles> {
        let mut lists: Vec<_> = self.lists.into_values().filter(|l| !l.is_empty()).collect();
        for list in &mut lists {
            list.finish();
        }
        lists
    }
}

#[allow(clippy::too_many_arguments)]
fn proofs(
    ctx: &LayerContext<'_>,
    store: &Path,
    s: &Store,
    mut names: ProofNames,
    index: &StoreIndex,
    sealed: Option<&Digest>,
    mut head: HeadAtRecords,
    refusals: &mut Vec<Refusal>,
    notes: &mut Vec<String>,
) -> Result<Proofs> {
    let at_record = std::mem::take(&mut head.at_record);
    let mut proofs = Proofs {
        store_files_kept: Vec::new(),
        listed: None,
        files: Vec::new(),
        replaced: Vec::new(),
        rewritten: Vec::new(),
        carried: Vec::new(),
        dropped_from_head: false,
        stray_files: 0,
        store_files: names.len() + s.unreadable_names,
        records: None,
        places: std::sync::Arc::default(),
    };
    // One proof at a time: read, checked, held to the replacement rule, then only its size,
    // sha256 and header kept — the bytes are read again when DIR is written
    // (docs/scale.md#memory).
    // Which of the names the index or the seal gives the store's folder holds, found first, a
    // flag per name given; the folder's other names are stray, counted. The names are then let
    // go, before the proofs list is filled beside them (docs/scale.md#sized-to-what-is-asked).
    let prereg_name = sealed.map(|sha| format!("prereg_{sha}.ots"));
    let mut listed: Vec<bool> = std::mem::take(&mut names.at_record);
    listed.extend(prereg_name.iter().map(|n| names.has_other(n)));
    // The names given are distinct (the index's entry_ids are, and the seal's is no digest's
    // name), so each flag set stands for one name of the folder.
    let found = listed.iter().filter(|l| **l).count();
    proofs.stray_files = names.len().saturating_sub(found) + s.unreadable_names;
    drop(names);
    let proofs_folder: std::sync::Arc<Path> = store.join("proofs").into();
    proofs.room_for(ctx.segmented, index, &proofs_folder);
    // Where each record's proof goes when HEAD does not publish it yet
    // (docs/witness.md#proof-folders): its line's bucket in a segmented exhibit, `other/` for a
    // record no line names; the protocol's flat path in a one-file exhibit. A proof HEAD
    // publishes stays where it is.
    let new_places = new_places(ctx, index);
    let wanted = index
        .ids
        .iter()
        .zip(at_record.into_iter())
        .zip(new_places)
        .map(|((id, at_head), new)| {
            let place = at_head.map_or(new, AtHead::place);
            (format!("{id}.ots"), id, at_head, place)
        })
        .chain(
            prereg_name
                .clone()
                .zip(sealed.copied())
                .map(|(name, digest)| {
                    let at_head = head.other.get(&name).copied();
                    (name, digest, at_head, ProofPlace::Flat)
                }),
        );
    // A proof unchanged since the last build checked it is taken from its record, unread
    // (docs/scale.md#comparing-without-reading); the others are read and checked, and recorded.
    let mut records = super::proof_records::ProofRecords::open(
        ctx.previous.git_dir(),
        &proofs_folder,
        ctx.plan.dry_run,
    );
    let mut places = Vec::with_capacity(index.records.len());
    // A person at a terminal sees how far the check has come (docs/operator.md#progress).
    let mut bar = crate::terminal::progress::Progress::new();
    let total = index.ids.len() as u64;
    for (n, ((name, digest, at_head, place), listed)) in wanted.zip(listed).enumerate() {
        bar.tick("witness: the store's proofs", n as u64, total, || {
            format!("{n} of {total} proofs")
        });
        if places.len() < index.records.len() {
            places.push(place.pack());
        }
        if listed
            && let Some(k) = records.known(&name, &proofs_folder)
            && at_head.is_none_or(|h| h.oid == k.oid)
        {
            records.record(&name, &k.meta, &k.file, k.oid);
            let mut file = k.file;
            if ctx.segmented {
                file.forget_head();
            }
            proofs.keep(place, &name, file);
            continue;
        }
        let Some((bytes, meta)) =
            read_proof(store, s.proofs.as_ref(), &name, &digest, listed, refusals)?
        else {
            continue;
        };
        let p = StoreProof {
            rel: place.rel(&name),
            name,
            bytes,
        };
        let oid = (at_head.is_some() || records.recording())
            .then(|| git2::Oid::hash_object(git2::ObjectType::Blob, &p.bytes))
            .transpose()?;
        if let (Some(at_head), Some(oid)) = (at_head, oid) {
            replacement_rule(
                ctx,
                store,
                &p,
                at_head.oid,
                oid,
                &mut proofs,
                refusals,
                notes,
            )?;
        }
        let name = p.name.clone();
        let mut kept = p.kept(&proofs_folder);
        if let Some(oid) = oid {
            records.record(&name, &meta, &kept, oid);
        }
        // A segmented exhibit gets the light page, which carries no per-line proof's header
        // (docs/page.md "Proof headers"): the header's bytes are let go once recorded.
        if ctx.segmented {
            kept.forget_head();
        }
        proofs.keep(place, &name, kept);
    }
    proofs.places = std::sync::Arc::new(places);
    proofs.records = records.into_pending();
    carry_head(
        ctx,
        index,
        prereg_name.as_deref(),
        &head,
        &mut proofs,
        refusals,
        notes,
    )?;
    Ok(proofs)
}

/// HEAD's proofs that neither the index nor the seal names, carried forward where they lie, in
/// name order (docs/witness.md#proof-folders).
fn carry_head(
    ctx: &LayerContext<'_>,
    index: &StoreIndex,
    prereg_name: Option<&str>,
    head: &HeadAtRecords,
    proofs: &mut Proofs,
    refusals: &mut Vec<Refusal>,
    notes: &mut Vec<String>,
) -> Result<()> {
    // A name the index or the seal gives (records are sorted by id; names are lowercase hex).
    let expected = |name: &str| {
        prereg_name == Some(name)
            || name
                .strip_suffix(".ots")
                .and_then(|stem| {
                    stem.parse::<Digest>()
                        .ok()
                        .filter(|d| d.to_string() == stem)
                })
                .is_some_and(|d| index.ids.binary_search(&d).is_ok())
    };
    // A digest-named proof the index names is expected without spelling its name, and one it
    // does not name is not (no other expected name is a digest's); the rest are carried in name
    // order, as before.
    let mut to_carry: Vec<(String, git2::Oid)> = head
        .not_in_index
        .iter()
        .map(|(d, at)| (at.place().rel(&format!("{}.ots", Digest(*d))), at.oid))
        .chain(
            head.other
                .iter()
                .filter(|(name, _)| !expected(name))
                .map(|(name, at)| (name.clone(), at.oid)),
        )
        .collect();
    to_carry.sort();
    for (name, oid) in &to_carry {
        carry(ctx, name, *oid, proofs, refusals, notes)?;
    }
    Ok(())
}

/// Where each record's proof is published when HEAD does not publish it yet, by the record's
/// position (docs/witness.md#proof-folders): in a segmented exhibit, the bucket of the chain
/// line whose entry_id it is; for a record no line names, the bucket of its own seq when that
/// seq is past the chain's head (the tail stamped a line this build does not read yet: when
/// the line comes, its proof is already in its folder), else `other/` (a rewrite's leftover,
/// whose seq a line of the chain holds); in a one-file exhibit, the protocol's flat path. 4
/// bytes a record.
fn new_places(ctx: &LayerContext<'_>, index: &StoreIndex) -> impl Iterator<Item = ProofPlace> {
    let head_seq = ctx.verified.lines.last().map_or(0, |l| l.seq);
    let mut places: Vec<u32> = index
        .records
        .iter()
        .map(|r| match ctx.segmented {
            true if r.seq() > head_seq => ProofPlace::of_line(r.seq()).pack(),
            true => ProofPlace::Other.pack(),
            false => ProofPlace::Flat.pack(),
        })
        .collect();
    if ctx.segmented {
        for l in ctx.verified.lines.iter() {
            if let Ok(k) = index.ids.binary_search(&l.entry_id) {
                places[k] = ProofPlace::of_line(l.seq).pack();
            }
        }
    }
    places.into_iter().map(ProofPlace::unpack)
}

/// The path a record's proof is published under, as the published index names it
/// (docs/witness.md#proof-folders).
fn proof_path(id: &Digest, place: ProofPlace) -> String {
    format!("{PROOFS_FOLDER}/{}", place.rel(&format!("{id}.ots")))
}

/// The report's clocks checked against the tail's moments, and the moments let go, before the
/// run log is read; the refusals are named after the run log's and the tail texts', as before
/// (docs/scale.md#memory).
fn report_clocks(
    ctx: &LayerContext<'_>,
    store: &Path,
    s: &Store,
    tail: &mut TailLogs,
) -> Vec<Refusal> {
    let mut clock_refusals = Vec::new();
    let (private, public) = (std::mem::take(&mut tail.private), tail.public.take());
    if let Some(report) = &s.report {
        check_report_clocks(
            store,
            report,
            ctx,
            &private,
            public.as_ref(),
            &mut clock_refusals,
        );
    }
    clock_refusals
}

/// HEAD's proofs folder as the witness layer first meets it. When git keeps it loose it is read
/// as a stream after the store's index and merged with its ids as it passes: no list of HEAD's
/// proofs is held (53 MB at a million, docs/scale.md#head-proofs-merged). A packed one is read
/// whole (its object is 97 MB at a million), so it is read first, beside the decide stage's
/// leftovers rather than the store's records, and kept as a 52-byte-a-proof list
/// (docs/scale.md#memory).
enum HeadProofsRead {
    Listed(HeadProofs),
    ToMerge,
}

impl HeadProofsRead {
    fn before_index(previous: &crate::previous::Previous) -> Result<HeadProofsRead> {
        Ok(if previous.streams_folder(PROOFS_FOLDER)? {
            HeadProofsRead::ToMerge
        } else {
            HeadProofsRead::Listed(HeadProofs::read(previous)?)
        })
    }

    /// HEAD's proofs beside the store's records, by their `ids`.
    fn at_records(
        self,
        previous: &crate::previous::Previous,
        ids: &SortedIds,
    ) -> Result<HeadAtRecords> {
        Ok(match self {
            HeadProofsRead::Listed(head) => head.at_records(ids),
            HeadProofsRead::ToMerge => match HeadAtRecords::merged(previous, ids)? {
                Some(head) => head,
                // A digest out of git's order (a tree written by hand): read as a list, sorted.
                None => HeadProofs::read(previous)?.at_records(ids),
            },
        })
    }
}

/// The per-line proofs' folder, under DIR.
const PROOFS_FOLDER: &str = "ledger/witness/proofs";

/// A proof HEAD publishes: its blob id, and where under `proofs/` it lies
/// ([`ProofPlace::pack`]; docs/witness.md#proof-folders).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct AtHead {
    oid: git2::Oid,
    place: u32,
}

impl AtHead {
    fn place(self) -> ProofPlace {
        ProofPlace::unpack(self.place)
    }
}

/// Each file of HEAD's proofs folder, its own and its buckets' and `other/`'s
/// (docs/witness.md#proof-folders), handed to `visit` in git's order as its place, its name
/// and its blob id; `visit` returns false to stop. HEAD's tree passed the output's grammar
/// before it is trusted (crate::previous::head_check): anything else here is refused again, the second
/// lock. Returns false when `visit` stopped the walk.
fn visit_head_proofs(
    previous: &crate::previous::Previous,
    mut visit: impl FnMut(ProofPlace, String, git2::Oid) -> bool,
) -> Result<bool> {
    let prefix = format!("{PROOFS_FOLDER}/");
    previous.visit_walk(PROOFS_FOLDER, |e| {
        let rel = e.path.strip_prefix(&prefix).unwrap_or(&e.path);
        let Some((place, name)) = ProofPlace::split(rel)
            .filter(|(_, name)| e.regular_file && !name.is_empty() && !name.contains('/'))
        else {
            anyhow::bail!(
                "HEAD:{}: not a proof's path of the output's grammar (docs/witness.md#proof-folders)",
                crate::terminal::escape(&e.path)
            );
        };
        Ok(visit(place, name.to_string(), e.id))
    })
}

/// HEAD's `ledger/witness/proofs/`: the proofs named `<64 hex>.ots` (in it, its buckets or
/// `other/`) as one sorted list of digests, blob ids and places (56 bytes each; as a map of
/// names, about 200 bytes each: a million of them held through a daily rebuild,
/// docs/scale.md#what-is-left), any other name in a map by its path under `proofs/`. Of a
/// digest HEAD holds twice (a tree written by hand), the first in path order meets its record
/// and the other is carried where it lies.
struct HeadProofs {
    by_digest: Vec<([u8; 32], AtHead)>,
    other: BTreeMap<String, AtHead>,
}

impl HeadProofs {
    fn read(previous: &crate::previous::Previous) -> Result<HeadProofs> {
        let mut head = HeadProofs {
            by_digest: Vec::new(),
            other: BTreeMap::new(),
        };
        visit_head_proofs(previous, |place, name, oid| {
            let at = AtHead {
                oid,
                place: place.pack(),
            };
            match crate::published::output_tree::FileName::new(&name) {
                crate::published::output_tree::FileName::Proof(d) => head.by_digest.push((d, at)),
                crate::published::output_tree::FileName::PublicText(_)
                | crate::published::output_tree::FileName::Other(_) => {
                    head.other.insert(place.rel(&name), at);
                }
            }
            true
        })?;
        // Stable: of one digest twice, the first in git's (path) order stays first.
        head.by_digest.sort_by_key(|(d, _)| *d);
        head.by_digest.shrink_to_fit();
        Ok(head)
    }

    /// HEAD's proofs beside the store's records, by their `ids` (sorted, each once, as HEAD's
    /// digests are): one merge of the two lists.
    fn at_records(self, ids: &SortedIds) -> HeadAtRecords {
        let head_proofs = self.len();
        let mut at_record = OidsByRecord::default();
        let mut not_in_index = Vec::new();
        let mut head = self.by_digest.into_iter().peekable();
        for id in ids.iter() {
            while let Some(entry) = head.next_if(|(d, _)| *d < id.0) {
                not_in_index.push(entry);
            }
            at_record.push(head.next_if(|(d, _)| *d == id.0).map(|(_, oid)| oid));
        }
        not_in_index.extend(head);
        HeadAtRecords {
            at_record,
            not_in_index,
            other: self.other,
            head_proofs,
        }
    }

    fn len(&self) -> usize {
        self.by_digest.len() + self.other.len()
    }
}

/// HEAD's proofs beside the store's records (docs/scale.md#narrower-records): the blob id and
/// place HEAD publishes each record's proof under, by the record's position (25 bytes a record
/// where the list by digest took 56), HEAD's digest-named proofs no record names (to be
/// carried), and its other names.
struct HeadAtRecords {
    at_record: OidsByRecord,
    not_in_index: Vec<([u8; 32], AtHead)>,
    other: BTreeMap<String, AtHead>,
    /// How many proofs HEAD's folder holds.
    head_proofs: usize,
}

impl HeadAtRecords {
    /// HEAD's proofs folder merged with the store's `ids` (sorted, each once) as it is read,
    /// in git's order, which names the digest-named proofs in digest order (every name
    /// `<64 hex>.ots`, of one length and lowercase hex): [`HeadProofs::at_records`] without
    /// the list by digest (docs/scale.md#head-proofs-merged). `None` when a digest does not
    /// come after the one before (a tree written by hand, or a name twice): the caller reads
    /// the list and sorts it, as before.
    fn merged(previous: &crate::previous::Previous, ids: &SortedIds) -> Result<Option<Self>> {
        let mut head = HeadAtRecords {
            at_record: OidsByRecord::default(),
            not_in_index: Vec::new(),
            other: BTreeMap::new(),
            head_proofs: 0,
        };
        let (mut next, mut last, mut in_order) = (0, None, true);
        visit_head_proofs(previous, |place, name, oid| {
            // A folder's proofs come in its own order, not the digests': read as a list.
            if place != ProofPlace::Flat {
                in_order = false;
                return false;
            }
            let oid = AtHead {
                oid,
                place: place.pack(),
            };
            head.head_proofs += 1;
            let crate::published::output_tree::FileName::Proof(d) =
                crate::published::output_tree::FileName::new(&name)
            else {
                head.other.insert(name, oid);
                return true;
            };
            in_order &= last.is_none_or(|l| l < d);
            last = Some(d);
            if !in_order {
                return false;
            }
            while ids.get(next).is_some_and(|id| id.0 < d) {
                head.at_record.push(None);
                next += 1;
            }
            if ids.get(next).is_some_and(|id| id.0 == d) {
                head.at_record.push(Some(oid));
                next += 1;
            } else {
                head.not_in_index.push((d, oid));
            }
            true
        })?;
        if !in_order {
            return Ok(None);
        }
        for _ in next..ids.len() {
            head.at_record.push(None);
        }
        Ok(Some(head))
    }
}

/// HEAD's blob id under each record's name, by the record's position, in chunks of 65,536 that
/// are let go as the proofs' walk passes them: held whole until the walk ended, they sat beside
/// the full proofs list on the store's proofs' peak (21 MB at a million:
/// docs/scale.md#witness-transients).
#[derive(Debug, Default)]
struct OidsByRecord(Vec<Vec<Option<AtHead>>>);

impl OidsByRecord {
    const CHUNK: usize = 1 << 16;

    fn push(&mut self, oid: Option<AtHead>) {
        match self.0.last_mut() {
            Some(chunk) if chunk.len() < Self::CHUNK => chunk.push(oid),
            _ => {
                let mut chunk = Vec::with_capacity(Self::CHUNK);
                chunk.push(oid);
                self.0.push(chunk);
            }
        }
    }

    /// The ids in the records' order, each chunk let go once passed.
    fn into_iter(self) -> impl Iterator<Item = Option<AtHead>> {
        self.0.into_iter().flatten()
    }
}

/// A proof HEAD published that the store no longer names is carried forward — only when its
/// name is one of the layout's and its header commits to the digest the name gives: names are
/// data until checked, and a carried proof is header-checked like a new one
/// (docs/build.md#safety). One that fails refuses, or is dropped on --allow-rewrite.
fn carry(
    ctx: &LayerContext<'_>,
    name: &str,
    oid: git2::Oid,
    proofs: &mut Proofs,
    refusals: &mut Vec<Refusal>,
    notes: &mut Vec<String>,
) -> Result<()> {
    // `name` is the path under `proofs/`: `<name>`, `NNNNNN/<name>` or `other/<name>`.
    let file = name.rsplit('/').next().unwrap_or(name);
    let digest = file
        .strip_suffix(".ots")
        .map(|n| n.strip_prefix("prereg_").unwrap_or(n))
        .filter(|_| crate::published::layout::is_witness_proof_path(name));
    let bytes = ctx
        .previous
        .read_blob(oid, &format!("{PROOFS_FOLDER}/{name}"))?;
    let problem = match digest {
        None => Some(
            "its path is not <entry_id>.ots or prereg_<sha256>.ots, nor <entry_id>.ots in a bucket NNNNNN/ or in other/"
                .to_string(),
        ),
        Some(d) => match ots::check_named(&bytes, d) {
            Err(p) => Some(format!("{p} ({})", p.code())),
            Ok(()) => crate::publication::layers::proof_body::check(&bytes)
                .err()
                .map(|b| format!("{} ({})", b.words, b.code)),
        },
    };
    let Some(problem) = problem else {
        proofs
            .files
            .push((format!("ledger/witness/proofs/{name}"), bytes));
        proofs.carried.push(name.to_string());
        return Ok(());
    };
    if ctx.plan.allow_rewrite.is_some() && digest.is_some() {
        notes.push(format!(
            "witness/proofs/{}: published at HEAD but fails its header check ({problem}); dropped on --allow-rewrite",
            crate::terminal::escape(name)
        ));
        proofs.dropped_from_head = true;
    } else {
        refusals.push(Refusal::new(
"witness_head_proof_invalid",
            format!("HEAD:ledger/witness/proofs/{name}"),
            "",
            format!(
                "{RULE_PROOF}: a proof HEAD published, carried forward, fails its header check: {problem}"
            ),
            "replace it in the store with a proof that commits to its name, or --allow-rewrite REASON to drop it",
        ));
    }
    Ok(())
}

/// A proof HEAD published may only grow (same header, more bytes), unless --allow-rewrite.
#[allow(clippy::too_many_arguments)]
fn replacement_rule(
    ctx: &LayerContext<'_>,
    store: &Path,
    p: &StoreProof,
    oid: git2::Oid,
    store_oid: git2::Oid,
    proofs: &mut Proofs,
    refusals: &mut Vec<Refusal>,
    notes: &mut Vec<String>,
) -> Result<()> {
    if store_oid == oid {
        return Ok(());
    }
    let old = ctx
        .previous
        .read_blob(oid, &format!("{PROOFS_FOLDER}/{}", p.rel))?;
    let grows = old.len() >= ots::HEADER_LEN
        && p.bytes.len() > old.len()
        && p.bytes[..ots::HEADER_LEN] == old[..ots::HEADER_LEN];
    if grows {
        proofs.replaced.push(p.rel.clone());
    } else if ctx.plan.allow_rewrite.is_some() {
        notes.push(format!(
            "witness/proofs/{}: replaced by a form that does not extend HEAD's ({} → {} bytes), on --allow-rewrite",
            p.rel,
            old.len(),
            p.bytes.len()
        ));
        proofs.rewritten.push(p.rel.clone());
    } else {
        let why = if old.len() >= ots::HEADER_LEN
            && p.bytes[..ots::HEADER_LEN] != old[..ots::HEADER_LEN]
        {
            "commits elsewhere than the proof HEAD published".to_string()
        } else {
            format!(
                "is not longer than the proof HEAD published ({} bytes at HEAD, {} in the store); a proof only grows",
                old.len(),
                p.bytes.len()
            )
        };
        refusals.push(Refusal::new(
"witness_proof_replacement",
            shown(store, &format!("proofs/{}", p.name)),
            "",
            format!(
                "the replacement rule of docs/protocol.md#witness: the store's proof {why}; a published proof's commitment never changes and its bytes never shrink"
            ),
            "restore the store's proof to the grown form of the published one, or --allow-rewrite REASON",
        ));
    }
    Ok(())
}

/// The chain against the store: which record is which line's, and what does not fit.
struct Chain {
    withheld_ids: BTreeSet<Digest>,
    withheld_seqs: BTreeSet<i64>,
    /// For each line, the position of its store record.
    record_of: RecordOf,
    orphans: Vec<usize>,
    seq_disagrees: Vec<SeqDisagrees>,
    multi: Vec<MultiEntrySeq>,
    store_seqs: usize,
}

impl Chain {
    fn of(lines: &[LineRecord], index: &StoreIndex) -> Chain {
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
        // Each line finds its record by searching the records, which are sorted by id: no list
        // of the chain's ids is made and sorted beside them (36 MB at a million, at the witness
        // layer's peak: docs/scale.md#names-not-held). The lines are taken last first, so that
        // of equal ids (none in a chain that verified) the last line wins, as before.
        for (i, l) in lines.iter().enumerate().rev() {
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
    fn cut(&self, id: &Digest, r: &Record) -> bool {
        self.withheld_ids.contains(id) || self.withheld_seqs.contains(&r.seq())
    }
}

/// For each line, the position of its store record, or none: 4 bytes a line, where an
/// `Option<u32>` takes 8 and a `usize` 16 (docs/scale.md#witness-transients).
#[derive(Debug)]
struct RecordOf(Vec<u32>);

impl RecordOf {
    /// No record is at this position: the store's index is read within a 4 GiB ceiling, and a
    /// record takes at least 64 bytes of it, so positions stay far under 2^32 - 1.
    const NONE: u32 = u32::MAX;

    fn none(lines: usize) -> RecordOf {
        RecordOf(vec![Self::NONE; lines])
    }

    fn set(&mut self, line: usize, record: usize) {
        // A position at or past NONE cannot occur (see NONE); were it to, the line is left
        // without a record rather than given another's.
        self.0[line] = u32::try_from(record)
            .ok()
            .filter(|&k| k != Self::NONE)
            .unwrap_or(Self::NONE);
    }

    fn get(&self, line: usize) -> Option<usize> {
        self.0
            .get(line)
            .filter(|&&k| k != Self::NONE)
            .map(|&k| k as usize)
    }
}

/// The per-line counts: statuses, latency buckets, lag.
#[derive(Default)]
struct Counts {
    status_count: BTreeMap<Status, usize>,
    no_record: usize,
    retroactive: usize,
    ts_disagree: Vec<i64>,
    w1: usize,
    w6: usize,
    w24: usize,
    over24: usize,
    proof_no_time: usize,
    negative: usize,
    tail_lag: usize,
    stamp_batches: usize,
}

impl Counts {
    fn of(lines: &[LineRecord], index: &StoreIndex, chain: &Chain) -> Counts {
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

    fn line(&mut self, line: &LineRecord, r: &Record) {
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

    fn status(&self, x: Status) -> usize {
        self.status_count.get(&x).copied().unwrap_or(0)
    }
}

/// The tail's logs as published, and the moments of withheld seqs (docs/build.md#safety).
struct TailLogs {
    /// seal.jsonl with every withheld seq's moment that no published line shares cut to its
    /// anchor-zone day (runs.jsonl is cut as it is read: run_log.rs).
    seal: Option<Vec<u8>>,
    /// Those moments.
    to_cut: BTreeSet<i64>,
    /// A withheld seq's moments, each with its seqs.
    private: PrivateMoments,
    /// What the moments a published line or its records print tell of the private ones.
    public: Option<side_channels::PublicClocks>,
}

/// The side channels (docs/build.md#safety): runs.jsonl and every line of seal.jsonl are
/// published with a withheld seq's moments cut to the anchor-zone day, then every line and each
/// calendar string must pass the identifier guard.
fn tail_logs(
    ctx: &LayerContext<'_>,
    store: &Path,
    s: &Store,
    index: &StoreIndex,
    chain: &Chain,
    refusals: &mut Vec<Refusal>,
) -> TailLogs {
    let cut = |id: &Digest, r: &Record| chain.cut(id, r);
    let private = private_moments(ctx, index, &cut);
    let mut daycut = DayCut::new(&ctx.verified.anchor_tz);
    // With no withheld moment nothing is asked of the published ones.
    let public = (!private.is_empty()).then(|| {
        side_channels::PublicClocks::of(
            |t| private.contains(t),
            public_moments(ctx, index, &cut),
            &mut daycut,
        )
    });
    // A moment a published line's record also prints (an opening batch shared by thousands of
    // lines) names nothing the published index does not: it is left as it is.
    let to_cut: BTreeSet<i64> = private
        .moments()
        .filter(|&t| !public.as_ref().is_some_and(|p| p.prints(t)))
        .collect();
    let mut cut_file = |bytes: Option<Vec<u8>>| -> Option<Vec<u8>> {
        bytes.map(|b| {
            let cut = match std::str::from_utf8(&b) {
                Ok(text) => match side_channels::cut_moments(text, &to_cut, &mut daycut) {
                    Cow::Borrowed(_) => None,
                    Cow::Owned(o) => Some(o.into_bytes()),
                },
                Err(_) => None,
            };
            cut.unwrap_or(b)
        })
    };
    let seal = cut_file(s.seal.clone());
    for (rel, bytes) in [("seal.jsonl", &seal)] {
        let Some(bytes) = bytes else { continue };
        let Ok(text) = std::str::from_utf8(bytes) else {
            refusals.push(Refusal::new(
                "witness_log_not_utf8",
                shown(store, rel),
                "",
                "not UTF-8 text; the tail's logs are JSON lines",
                "repair the tail's file",
            ));
            continue;
        };
        for (line, codes) in side_channels::guard_lines(text) {
            refusals.push(Refusal::new(
"witness_log_identifier",
                shown(store, rel),
                format!("line {line}"),
                format!(
                    "the tail's {rel} carries an identifier's shape ({}); every published byte passes the guard (docs/build.md#safety)",
                    codes.join(", ")
                ),
                "repair the tail's file (no flag publishes an identifier from the store)",
            ));
        }
    }
    guard_calendars(store, index, refusals);
    TailLogs {
        seal,
        to_cut,
        private,
        public,
    }
}

/// Each entry's `calendars` strings are published: each must pass the identifier guard.
fn guard_calendars(store: &Path, index: &StoreIndex, refusals: &mut Vec<Refusal>) {
    for (k, list) in index.calendars.iter().enumerate() {
        for cal in list {
            let codes = side_channels::guard_codes(cal);
            if codes.is_empty() {
                continue;
            }
            let entry = index
                .records
                .iter()
                .position(|r| r.calendars as usize == k)
                .map(|at| index.ids.at(at).to_string())
                .unwrap_or_default();
            refusals.push(Refusal::new(
"witness_calendar_identifier",
                shown(store, "index.json"),
                format!("entry {entry} calendars"),
                format!(
                    "a calendar string carries an identifier's shape ({}); every published byte passes the guard (docs/build.md#safety)",
                    codes.join(", ")
                ),
                "repair the tail's index (a calendar is a public calendar server's URL)",
            ));
        }
    }
}

/// REPORT.md and WITNESS_PREREG.md are published as written and rendered: the guard reads them.
fn guard_tail_texts(store: &Path, s: &Store, refusals: &mut Vec<Refusal>) {
    for (rel, text) in [
        ("REPORT.md", s.report.clone()),
        (
            "WITNESS_PREREG.md",
            s.prereg
                .as_ref()
                .map(|b| String::from_utf8_lossy(b).into_owned()),
        ),
    ] {
        let Some(text) = text else { continue };
        // Both what is written and what a reader sees once it is rendered (markdown syntax
        // inside an address or a number hides it from the first): docs/build.md#safety.
        let mut reasons =
            exhibit_protocol::guard::scan(&text, exhibit_protocol::guard::Context::PublicText);
        reasons.extend(exhibit_protocol::guard::scan(
            &crate::publication::render::markdown_reader_text(&text),
            exhibit_protocol::guard::Context::PublicText,
        ));
        reasons.sort();
        reasons.dedup();
        if !reasons.is_empty() {
            refusals.push(Refusal::new(
"witness_text_identifier",
                shown(store, rel),
                "",
                format!(
                    "the tail's text carries an identifier's shape ({}); it is published as written and the page renders it (docs/witness.md)",
                    reasons.iter().map(|r| r.code()).collect::<Vec<_>>().join(", ")
                ),
                if rel == "REPORT.md" {
                    "fix the tail's report"
                } else {
                    "a person reads the preregistration; a sealed file cannot be edited, so the witness layer stays off until it is re-sealed"
                },
            ));
        }
    }
}

/// The published `index.json` (docs/protocol.md#witness). serde_json keeps no insertion order,
/// so the file has always been written with its keys sorted: the fields of these structs are
/// declared in alphabetical order to keep those bytes (a test checks it).
#[derive(Debug, Serialize)]
struct PublishedIndex<'a> {
    /// Every record, in a one-file exhibit's index; a segmented exhibit's are in its parts.
    #[serde(skip_serializing_if = "Option::is_none")]
    entries: Option<BTreeMap<Digest, PublishedRecord<'a>>>,
    /// A segmented exhibit's parts (docs/witness.md#parts).
    #[serde(skip_serializing_if = "Option::is_none")]
    parts: Option<Vec<IndexPart>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    prereg: Option<Prereg>,
    publisher: Publisher<'a>,
}

/// One part of a segmented exhibit's index, as `index.json` lists it (docs/witness.md#parts).
#[derive(Debug, Serialize)]
struct IndexPart {
    entries: usize,
    first_seq: u64,
    last_seq: u64,
    path: String,
    sha256: Digest,
}

/// A part's file: the records of its seqs.
#[derive(Serialize)]
struct IndexPartFile<'s> {
    entries: PartEntries<'s>,
}

/// A part's records as one JSON object keyed by id, written as they are read: the records are
/// in id order and each id is once (the store's index refuses an id written twice), so the
/// bytes are those of the map by id that was built before, without building it
/// (docs/scale.md#names-not-held).
struct PartEntries<'s>(&'s PartSource);

impl Serialize for PartEntries<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let source = self.0;
        let mut daycut = DayCut::new(&source.anchor_tz);
        serializer.collect_map(source.each().map(|(id, r, cut, place)| {
            let proof = Some(proof_path(&id, place));
            (
                id,
                published_record(&source.calendars, r, cut, proof, &mut daycut),
            )
        }))
    }
}

/// The sealed preregistration's digest.
#[derive(Debug, Serialize)]
struct Prereg {
    sha256: Digest,
}

/// One record of the published index: the tail's latest state for an entry_id.
#[derive(Debug, Serialize)]
struct PublishedRecord<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    block_hash: Option<Digest>,
    #[serde(skip_serializing_if = "Option::is_none")]
    block_height: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    block_time: Option<String>,
    calendars: &'a [String],
    /// `null` for a withheld line's record.
    line_timestamp: Option<String>,
    /// The path of the record's proof (docs/witness.md#proof-folders): every record of a
    /// segmented exhibit's parts; in a one-file exhibit's index only one not at the protocol's
    /// `ledger/witness/proofs/<entry_id>.ots`, so that such an index stays byte-identical.
    #[serde(skip_serializing_if = "Option::is_none")]
    proof: Option<String>,
    seen_at: String,
    seq: i64,
    stamped_at: String,
    status: Status,
    #[serde(skip_serializing_if = "Option::is_none")]
    upgraded_at: Option<String>,
}

/// The publisher's own words and lists beside the tail's records.
#[derive(Debug, Serialize)]
struct Publisher<'a> {
    carried_not_in_store: &'a [String],
    clocks: &'static str,
    line_timestamp_disagrees_seqs: &'a [i64],
    multi_entry_seqs: &'a [MultiEntrySeq],
    orphans: Vec<Orphan>,
    page_carries: PageCarries,
    seq_disagrees: &'a [SeqDisagrees],
    stray_files: usize,
    tail_read: Option<TailRead<'a>>,
    withheld_clocks: &'static str,
    withheld_seqs: &'a BTreeSet<i64>,
}

/// A store record whose entry_id is not in the chain.
#[derive(Debug, Serialize)]
struct Orphan {
    entry_id: Digest,
    seq: i64,
}

/// A seq the store gives more than one entry_id.
#[derive(Debug, Clone, Serialize)]
struct MultiEntrySeq {
    entry_ids: Vec<Digest>,
    seq: i64,
}

/// A store record naming a chain entry_id with another seq.
#[derive(Debug, Clone, Serialize)]
struct SeqDisagrees {
    chain_seq: i64,
    entry_id: Digest,
    store_seq: i64,
}

/// What the page carries of the chain, for the reader of the index alone.
#[derive(Debug, Serialize)]
struct PageCarries {
    head: Digest,
    head_seq: Option<i64>,
    lines: usize,
    published: usize,
    withheld: usize,
}

/// The tail's last run, as runs.jsonl wrote it (its words, passed on).
#[derive(Debug, Serialize)]
struct TailRead<'a> {
    lines_seen: Option<&'a J>,
    run_at: Option<&'a J>,
    source: &'static str,
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

const WITHHELD_CLOCKS: &str = "for a record whose entry_id or seq is a withheld line's, line_timestamp is null and seen_at, stamped_at, upgraded_at are cut to the day in the header's anchor_tz, the day withheld.json gives (docs/protocol.md#witness); runs.jsonl and seal.jsonl print such a moment as that day; block_time, block_height, block_hash and status are copied";
const CLOCKS: &str = "seen_at, stamped_at, upgraded_at are the tail's clock (the lab's word); line_timestamp is the gate's statement; block_time is the block header's (the miner's clock)";
const TAIL_READ_SOURCE: &str =
    "runs.jsonl, last line (the tail's clock); REPORT.md's figures are of this moment";
const BUCKETS: &str = "cumulative: within_1h ⊆ within_6h ⊆ within_24h; within_24h + over_24h + none_yet = n; a negative latency is in within_1h and counted in negative";

/// `index.json`: the tail's latest state per entry_id (a withheld line's clocks cut to the
/// anchor-zone day), the prereg digest, and the `publisher` object. With `part_seqs` (a
/// segmented exhibit) the entries go to parts of that many seqs each, returned as files, and
/// `index.json` lists them under `parts` instead (docs/witness.md#parts); each record is the
/// same, cut the same, wherever it is written.
fn published_index<'a>(
    ctx: &LayerContext<'_>,
    index: &'a StoreIndex,
    chain: &'a Chain,
    counts: &'a Counts,
    proofs: &'a Proofs,
    tail_last_run: Option<&'a J>,
    from_records: FromRecords,
) -> (PublishedIndex<'a>, Vec<(String, Content)>) {
    let lines = &ctx.verified.lines;
    let n = lines.len();
    let mut daycut = DayCut::new(&ctx.verified.anchor_tz);
    let (entries, parts, part_files) = match from_records.parts {
        // A one-file exhibit's records are held to here: its index lists them.
        None => {
            let places = proofs.places.iter().map(|&p| ProofPlace::unpack(p));
            let entries: BTreeMap<Digest, PublishedRecord<'a>> = index
                .ids
                .iter()
                .zip(index.records.iter())
                .zip(places.chain(std::iter::repeat(ProofPlace::Flat)))
                .map(|((id, r), place)| {
                    let cut = chain.cut(&id, r);
                    let proof = (place != ProofPlace::Flat).then(|| proof_path(&id, place));
                    let record = published_record(&index.calendars, r, cut, proof, &mut daycut);
                    (id, record)
                })
                .collect();
            (Some(entries), None, Vec::new())
        }
        Some((parts, files)) => (None, Some(parts), files),
    };
    let published = lines.iter().filter(|l| l.published()).count();
    let publisher = Publisher {
        carried_not_in_store: &proofs.carried,
        clocks: CLOCKS,
        line_timestamp_disagrees_seqs: &counts.ts_disagree,
        multi_entry_seqs: &chain.multi,
        orphans: from_records.orphans,
        page_carries: PageCarries {
            head: ctx.verified.head,
            head_seq: lines.last().map(|l| l.seq),
            lines: n,
            published,
            withheld: n - published,
        },
        seq_disagrees: &chain.seq_disagrees,
        stray_files: proofs.stray_files,
        tail_read: tail_last_run.map(|run| TailRead {
            lines_seen: run.get("lines_seen"),
            run_at: run.get("run_at"),
            source: TAIL_READ_SOURCE,
        }),
        withheld_clocks: WITHHELD_CLOCKS,
        withheld_seqs: &chain.withheld_seqs,
    };
    let published_index = PublishedIndex {
        entries,
        parts,
        prereg: index.prereg_sha256.map(|sha256| Prereg { sha256 }),
        publisher,
    };
    (published_index, part_files)
}

/// A segmented exhibit's index parts as `index.json` lists them, and their files.
type IndexParts = (Vec<IndexPart>, Vec<(String, Content)>);

/// What the published index and STATS take from the store's records, taken before the run log
/// is read (docs/scale.md#records-let-go).
struct FromRecords {
    /// A segmented exhibit's index parts, and their files; `None` for a one-file exhibit,
    /// whose index lists its records itself (split only when the ledger is: a one-file
    /// exhibit stays byte-identical, docs/witness.md#parts).
    parts: Option<IndexParts>,
    /// The records no chain line names, in the records' order.
    orphans: Vec<Orphan>,
    store_entries: usize,
}

impl FromRecords {
    fn of(
        ctx: &LayerContext<'_>,
        index: &StoreIndex,
        chain: &Chain,
        places: &std::sync::Arc<Vec<u32>>,
        part_seqs: Option<u64>,
    ) -> Result<FromRecords> {
        let parts = part_seqs
            .map(|k| {
                let holds = crate::site_write::dir_stat::DirHolds::open(
                    ctx.previous.git_dir(),
                    &ctx.plan.out,
                );
                let source = (index, chain, places);
                index_parts(source, &ctx.verified.anchor_tz, k, holds, ctx.made)
            })
            .transpose()?;
        let orphans = chain
            .orphans
            .iter()
            .map(|&k| Orphan {
                entry_id: index.ids.at(k),
                seq: index.records[k].seq(),
            })
            .collect();
        Ok(FromRecords {
            parts,
            orphans,
            store_entries: index.records.len(),
        })
    }
}

/// The records laid into parts of `k` seqs: part N holds seqs `(N-1)*k+1 ..= N*k`; only parts
/// with a record exist. Returns the list `index.json` gives and the parts' files.
fn index_parts(
    (index, chain, places): (&StoreIndex, &Chain, &std::sync::Arc<Vec<u32>>),
    anchor_tz: &str,
    k: u64,
    mut holds: crate::site_write::dir_stat::DirHolds,
    made: Option<&crate::site_write::made_files::MadeFiles>,
) -> Result<IndexParts> {
    // Each part is made from its own records: once, and written at once into the build's folder
    // of made files (docs/scale.md#made-as-written); or, on a dry run, once for its size and
    // sha256 and again when the tree is read. The parts are not held in between (at a million
    // lines they are 640 MB), and no map of every published record is built
    // (docs/scale.md#memory).
    // seq ≥ 1 was checked when the store's index was read.
    let number_of = |r: &Record| (r.seq().max(1) as u64 - 1) / k + 1;
    // The records' positions in part order, and in id order within a part (the records are
    // sorted by id, so by position), as the parts list them: 4 bytes a record, where
    // a list per part of positions with their cut flags, grown by doubling, held every part's
    // at once (13 MB at a million: docs/scale.md#witness-transients). Positions fit in u32:
    // the store's index is read within a 4 GiB ceiling, far under 2^32 records of at least
    // 64 bytes each.
    let mut order: Vec<u32> = (0..index.records.len() as u32).collect();
    order.sort_unstable_by_key(|&at| (number_of(&index.records[at as usize]), at));
    let blocks = order.chunk_by(|&a, &b| {
        number_of(&index.records[a as usize]) == number_of(&index.records[b as usize])
    });
    let calendars = std::sync::Arc::new(index.calendars.clone());
    let mut parts = Vec::new();
    let mut files = Vec::new();
    // Made once each for its size and sha256; a part DIR already holds is named as DIR's file
    // (docs/scale.md#memory), the others are made again when written.
    let mut remade = Vec::new();
    for block in blocks {
        let number = number_of(&index.records[block[0] as usize]);
        let at: Vec<(u32, bool)> = block
            .iter()
            .map(|&at| {
                let at_ = at as usize;
                (at, chain.cut(&index.ids.at(at_), &index.records[at_]))
            })
            .collect();
        let source = PartSource {
            records: PartRecords::Shared {
                ids: index.ids.clone(),
                records: index.records.clone(),
                places: places.clone(),
                at,
            },
            calendars: calendars.clone(),
            anchor_tz: anchor_tz.to_string(),
        };
        // A part DIR's record names is most likely unchanged (a daily rebuild: all but the
        // last one or two): its size and sha256 are taken as it streams, and its bytes made
        // only if DIR does not hold them after all. Where parts are written as made, a part
        // DIR does not name (a first build: every one) is made once, here, and written
        // (docs/scale.md#nothing-made-to-be-dropped). Either way no part's bytes are made and let go for
        // nothing: at 6.7 MB a part, that was the witness layer's peak.
        let path = index_part_path(number);
        let recorded = holds.recorded(&path);
        let bytes = made.filter(|_| recorded.is_none()).map(|_| source.bytes());
        let (len, sha256) = match &bytes {
            Some(bytes) => (bytes.len() as u64, Digest::of(bytes)),
            None => source.len_and_sha256(),
        };
        parts.push(IndexPart {
            entries: source.len(),
            first_seq: (number - 1) * k + 1,
            last_seq: number * k,
            path: path.clone(),
            sha256,
        });
        let held = match recorded {
            Some(r) => holds.holding_recorded(&path, r, sha256, len),
            // A dry run without DIR's record of the part (DIR checked out again, a clone): DIR's
            // copy is read to be sure, or the part would keep the store's records until the
            // review (77 MB at a million: docs/scale.md#without-dirs-record-dry-run). A build
            // writes the part as made instead and reads DIR's copy when it writes DIR.
            None if made.is_none() => holds.holding_read(&path, sha256, len),
            None => None,
        };
        match (held, made) {
            (Some(file), _) => files.push((path, Content::File(file))),
            // Written now into the build's folder of made files, so that no part shares the
            // store's records past the witness layer (docs/scale.md#made-as-written).
            (None, Some(made)) => {
                let bytes = bytes.unwrap_or_else(|| source.bytes());
                let file = made.put(&path, &bytes)?;
                files.push((path, Content::File(file)));
            }
            (None, None) => remade.push((path, len, sha256, source)),
        }
    }
    // When few parts are made again (a daily rebuild: the last one or two), each keeps a copy
    // of its own records, so that the store's records (128 bytes each, 131 MB at a million)
    // are let go when the witness layer ends; when most are (a first build), they share them.
    let to_make: usize = remade.iter().map(|(_, _, _, s)| s.len()).sum();
    let own = to_make <= index.records.len() / 2;
    for (path, len, sha256, mut source) in remade {
        if own {
            source.records = source.records.owned();
        }
        let made =
            crate::published::output_tree::Remade::known(len, sha256, move || Ok(source.bytes()));
        files.push((path, Content::Remade(made)));
    }
    files.sort_by(|a, b| a.0.cmp(&b.0));
    Ok((parts, files))
}

/// A part's records: positions in the store's (shared) records with whether each record's
/// clocks are cut, or a copy of its own; with each one's proof's place.
enum PartRecords {
    /// Positions in the store's ids, records and places, with each one's cut flag.
    Shared {
        ids: std::sync::Arc<SortedIds>,
        records: std::sync::Arc<Vec<Record>>,
        places: std::sync::Arc<Vec<u32>>,
        at: Vec<(u32, bool)>,
    },
    Own(Vec<(Digest, Record, bool, ProofPlace)>),
}

/// Record `k`'s proof's place in `places` (the flat path for a position past it: none is).
fn place_at(places: &[u32], k: usize) -> ProofPlace {
    places
        .get(k)
        .map_or(ProofPlace::Flat, |&p| ProofPlace::unpack(p))
}

impl PartRecords {
    /// A copy of its own records, not the shared list's.
    fn owned(self) -> PartRecords {
        match self {
            PartRecords::Shared {
                ids,
                records,
                places,
                at,
            } => PartRecords::Own(
                at.iter()
                    .map(|&(i, cut)| {
                        let i = i as usize;
                        (ids.at(i), records[i].clone(), cut, place_at(&places, i))
                    })
                    .collect(),
            ),
            own => own,
        }
    }
}

/// What one index part is made from.
struct PartSource {
    records: PartRecords,
    calendars: std::sync::Arc<Vec<Vec<String>>>,
    anchor_tz: String,
}

impl PartSource {
    fn len(&self) -> usize {
        match &self.records {
            PartRecords::Shared { at, .. } => at.len(),
            PartRecords::Own(records) => records.len(),
        }
    }

    /// Its records in id order, each with its id, whether its clocks are cut and its proof's
    /// place.
    fn each(&self) -> Box<dyn Iterator<Item = (Digest, &Record, bool, ProofPlace)> + '_> {
        match &self.records {
            PartRecords::Shared {
                ids,
                records,
                places,
                at,
            } => Box::new(at.iter().map(|&(i, cut)| {
                let i = i as usize;
                (ids.at(i), &records[i], cut, place_at(places, i))
            })),
            PartRecords::Own(records) => Box::new(
                records
                    .iter()
                    .map(|(id, r, cut, place)| (*id, r, *cut, *place)),
            ),
        }
    }

    fn file(&self) -> IndexPartFile<'_> {
        IndexPartFile {
            entries: PartEntries(self),
        }
    }

    fn bytes(&self) -> Vec<u8> {
        pretty(&self.file())
    }

    /// The size and sha256 of [`PartSource::bytes`], the bytes not held.
    fn len_and_sha256(&self) -> (u64, Digest) {
        crate::published::encode::pretty_len_and_sha256(&self.file())
    }
}

/// HEAD's run-log files `(path, blob id, bytes)` in chain order: `runs.jsonl`, then
/// `runs/000001.jsonl`, … numbered from 1 without a gap.
fn head_runs_files(ctx: &LayerContext<'_>) -> Result<Vec<(String, git2::Oid, u64)>> {
    let previous = ctx.previous;
    let mut files = Vec::new();
    if let Some(id) = previous.blob_id(RUNS.first)? {
        files.push((RUNS.first.to_string(), id, previous.blob_size(id)?));
    }
    for (i, (name, id)) in previous.list_blobs(RUNS.folder)?.into_iter().enumerate() {
        let expected = RUNS.path(i as u32 + 1);
        let path = format!("{}/{name}", RUNS.folder);
        if path != expected {
            anyhow::bail!(
                "HEAD:{path}: the witness run log's files must be named {expected} and on, one after another (docs/witness.md#parts); restore the exhibit branch as exhibit built it"
            );
        }
        files.push((path, id, previous.blob_size(id)?));
    }
    Ok(files)
}

/// One record of the published index.
fn published_record<'a>(
    calendars: &'a [Vec<String>],
    r: &Record,
    private: bool,
    proof: Option<String>,
    daycut: &mut DayCut,
) -> PublishedRecord<'a> {
    // Cut to the day in the header's anchor_tz, as withheld.json gives it (docs/build.md#safety).
    let mut clock = |t: i64| {
        if private {
            daycut.day(t)
        } else {
            timestamp_of(t)
        }
    };
    PublishedRecord {
        block_hash: r.block_hash(),
        block_height: r.block_height(),
        block_time: r.block_time().map(timestamp_of),
        calendars: &calendars[r.calendars as usize],
        line_timestamp: (!private).then(|| timestamp_of(r.line_timestamp())),
        proof,
        seen_at: clock(r.seen_at()),
        seq: r.seq(),
        stamped_at: clock(r.stamped_at()),
        status: r.status,
        upgraded_at: r.upgraded_at().map(&mut clock),
    }
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

/// A withheld seq's moments: the line's timestamp, and the tail's clocks of its records (by
/// entry_id or seq), each with the seqs it belongs to.
fn private_moments(
    ctx: &LayerContext<'_>,
    index: &StoreIndex,
    cut: &dyn Fn(&Digest, &Record) -> bool,
) -> PrivateMoments {
    let lines = ctx
        .verified
        .lines
        .iter()
        .filter(|l| l.withheld.is_some())
        .filter_map(|l| l.timestamp().map(|t| (t, l.seq)));
    let records = index
        .ids
        .iter()
        .zip(index.records.iter())
        .filter(|(id, r)| cut(id, r))
        .flat_map(|(_, r)| record_clocks(r).map(move |t| (t, r.seq())));
    PrivateMoments::of(lines.chain(records).collect())
}

/// The moments a withheld seq's line or records print, each with the seqs it belongs to: one
/// sorted list of `(moment, seq)` pairs, 16 bytes each, where a map of sets took about ten
/// times that (docs/scale.md#counted-not-listed).
#[derive(Debug, Default)]
struct PrivateMoments(Vec<(i64, i64)>);

impl PrivateMoments {
    /// Each `(moment, seq)` once, in order, without spare room.
    fn of(mut pairs: Vec<(i64, i64)>) -> PrivateMoments {
        pairs.sort_unstable();
        pairs.dedup();
        pairs.shrink_to_fit();
        PrivateMoments(pairs)
    }

    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    fn contains(&self, t: i64) -> bool {
        self.seqs_of(t).next().is_some()
    }

    /// Each moment once, in order.
    fn moments(&self) -> impl Iterator<Item = i64> + '_ {
        self.0.chunk_by(|a, b| a.0 == b.0).map(|run| run[0].0)
    }

    /// The seqs of the moment `t`, in order.
    fn seqs_of(&self, t: i64) -> impl Iterator<Item = i64> + '_ {
        let from = self.0.partition_point(|&(m, _)| m < t);
        self.0[from..]
            .iter()
            .take_while(move |&&(m, _)| m == t)
            .map(|&(_, seq)| seq)
    }
}

/// The moments a published line or its records print: its timestamp, the tail's clocks; in
/// the ledger's and the index's order, a moment as often as it is printed.
fn public_moments<'a>(
    ctx: &'a LayerContext<'_>,
    index: &'a StoreIndex,
    cut: &'a dyn Fn(&Digest, &Record) -> bool,
) -> impl Iterator<Item = i64> + 'a {
    let lines = ctx
        .verified
        .lines
        .iter()
        .filter(|l| l.published())
        .filter_map(|l| l.timestamp());
    let records = index
        .ids
        .iter()
        .zip(index.records.iter())
        .filter(move |(id, r)| !cut(id, r))
        .flat_map(|(_, r)| record_clocks(r));
    lines.chain(records)
}

fn record_clocks(r: &Record) -> impl Iterator<Item = i64> {
    [
        Some(r.line_timestamp()),
        Some(r.seen_at()),
        Some(r.stamped_at()),
        r.upgraded_at(),
    ]
    .into_iter()
    .flatten()
}

/// Beyond docs/protocol.md#witness: REPORT.md is the tail's words, copied as written; it must not print a withheld
/// seq's clocks (the line's timestamp, or the tail's seen_at, stamped_at, upgraded_at for it),
/// in full, as a time of day, or as a minute (`HH:MM`, in UTC or the anchor zone), unless the
/// same moment (time, minute) is also a clock of a published line's record (then it names
/// nothing the published index does not). See docs/witness.md.
fn check_report_clocks(
    store: &Path,
    report: &str,
    ctx: &LayerContext<'_>,
    private: &PrivateMoments,
    public: Option<&side_channels::PublicClocks>,
    refusals: &mut Vec<Refusal>,
) {
    let Some(public) = public else {
        // Made whenever a withheld moment exists: none here, nothing to check.
        return;
    };
    let seqs_of = |t: &i64| -> String {
        private
            .seqs_of(*t)
            .map(|seq| seq.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    // Every clock the report prints, in any of the usual spellings (src/publication/layers/report_clocks.rs).
    let printed = crate::publication::layers::report_clocks::PrintedClocks::of(report);
    let mut named: BTreeSet<i64> = BTreeSet::new();
    for t in private.moments() {
        let what = if report.contains(&timestamp_of(t)) && !public.prints(t) {
            "a withheld seq's moment in full"
        } else if printed.second_of(t) && !public.prints_time_of_day(t) {
            "a withheld seq's time of day"
        } else {
            continue;
        };
        named.insert(t);
        refusals.push(Refusal::new(
"witness_report_withheld_clock",
            shown(store, "REPORT.md"),
            format!("withheld seq {}", seqs_of(&t)),
            format!(
                "the tail's report prints {what} — a clock of a withheld seq finer than the day, which the publisher keeps off the page (docs/protocol.md#witness)"
            ),
            "fix the tail's report so it prints no withheld seq's clock finer than the day",
        ));
    }
    let private_set: BTreeSet<i64> = private.moments().collect();
    let mut daycut = DayCut::new(&ctx.verified.anchor_tz);
    for (minute, moments) in side_channels::private_minutes(&private_set, public, &mut daycut) {
        if moments.iter().all(|t| named.contains(t)) || !printed.minute_of(minute) {
            continue;
        }
        named.extend(moments.iter().copied());
        let seqs: BTreeSet<String> = moments.iter().map(seqs_of).collect();
        refusals.push(Refusal::new(
"witness_report_withheld_minute",
            shown(store, "REPORT.md"),
            format!("withheld seq {}", seqs.into_iter().collect::<Vec<_>>().join(", ")),
            "the tail's report prints the minute of a withheld seq's clock (in UTC or the anchor zone; as HH:MM or H:MM, with seconds or a 12-hour AM/PM, 07h13, or 07.13 beside a time word) that no published line shares — finer than the day, which the publisher keeps off the page (docs/witness.md#privacy)",
            "fix the tail's report so it prints no withheld seq's clock finer than the day",
        ));
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
        holds: crate::site_write::dir_stat::DirHolds,
    ) -> Vec<(String, Content)> {
        let places = std::sync::Arc::default();
        let source = (index, &Chain::of(&[], index), &places);
        index_parts(source, "UTC", 10, holds, None).unwrap().1
    }

    #[test]
    fn a_builds_parts_written_as_made_are_the_parts_made_again_and_share_no_records() {
        // Catches a part written as made that is not the part a build would make again (its
        // bytes or its sha256), one written from another part's records, and parts that still
        // share (so keep) the store's records when they are written (docs/scale.md#made-as-written).
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("site");
        let none = || crate::site_write::dir_stat::DirHolds::open(None, &dir);
        let index = index_of(25);
        let made_files = crate::site_write::made_files::MadeFiles::beside(&dir).unwrap();
        let places = std::sync::Arc::default();
        let (listed, written) = index_parts(
            (&index, &Chain::of(&[], &index), &places),
            "UTC",
            10,
            none(),
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
        let none = || crate::site_write::dir_stat::DirHolds::open(None, &dir);
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
        let none = || crate::site_write::dir_stat::DirHolds::open(None, &dir);
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
            crate::site_write::dir_stat::save(Some(&git), &dir, &tree).unwrap(),
            3
        );

        // A day later: seq 26 joins part 3.
        let next = index_of(26);
        let parts = parts_of(
            &next,
            crate::site_write::dir_stat::DirHolds::open(Some(&git), &dir),
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
