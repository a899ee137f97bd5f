//! The published witness index (docs/protocol.md#witness): `index.json`, and in a segmented exhibit
//! its parts under `index/` (docs/witness.md#parts).

use super::*;

/// The published `index.json` (docs/protocol.md#witness). serde_json keeps no insertion order,
/// so the file has always been written with its keys sorted: the fields of these structs are
/// declared in alphabetical order to keep those bytes (a test checks it).
#[derive(Debug, Serialize)]
pub(super) struct PublishedIndex<'a> {
    /// Every record, in a one-file exhibit's index; a segmented exhibit's are in its parts.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) entries: Option<BTreeMap<Digest, PublishedRecord<'a>>>,
    /// A segmented exhibit's parts (docs/witness.md#parts).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) parts: Option<Vec<IndexPart>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) prereg: Option<Prereg>,
    pub(super) publisher: Publisher<'a>,
}

/// One part of a segmented exhibit's index, as `index.json` lists it (docs/witness.md#parts).
#[derive(Debug, Serialize)]
pub(super) struct IndexPart {
    pub(super) entries: usize,
    pub(super) first_seq: u64,
    pub(super) last_seq: u64,
    pub(super) path: String,
    pub(super) sha256: Digest,
}

/// A part's file: the records of its seqs.
#[derive(Serialize)]
pub(super) struct IndexPartFile<'s> {
    pub(super) entries: PartEntries<'s>,
}

/// A part's records as one JSON object keyed by id, written as they are read: the records are
/// in id order and each id is once (the store's index refuses an id written twice), so the
/// bytes are those of the map by id that was built before, without building it
/// (docs/scale.md#names-not-held).
pub(super) struct PartEntries<'s>(pub(super) &'s PartSource);

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
pub(super) struct Prereg {
    pub(super) sha256: Digest,
}

/// One record of the published index: the tail's latest state for an entry_id.
#[derive(Debug, Serialize)]
pub(super) struct PublishedRecord<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) block_hash: Option<Digest>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) block_height: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) block_time: Option<String>,
    pub(super) calendars: &'a [String],
    /// `null` for a withheld line's record.
    pub(super) line_timestamp: Option<String>,
    /// The path of the record's proof (docs/witness.md#proof-folders): every record of a
    /// segmented exhibit's parts; in a one-file exhibit's index only one not at the protocol's
    /// `ledger/witness/proofs/<entry_id>.ots`, so that such an index stays byte-identical.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) proof: Option<String>,
    pub(super) seen_at: String,
    pub(super) seq: i64,
    pub(super) stamped_at: String,
    pub(super) status: Status,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) upgraded_at: Option<String>,
}

/// The publisher's own words and lists beside the tail's records.
#[derive(Debug, Serialize)]
pub(super) struct Publisher<'a> {
    pub(super) carried_not_in_store: &'a [String],
    pub(super) clocks: &'static str,
    pub(super) line_timestamp_disagrees_seqs: &'a [i64],
    pub(super) multi_entry_seqs: &'a [MultiEntrySeq],
    pub(super) orphans: Vec<Orphan>,
    pub(super) page_carries: PageCarries,
    pub(super) seq_disagrees: &'a [SeqDisagrees],
    pub(super) stray_files: usize,
    pub(super) tail_read: Option<TailRead<'a>>,
    pub(super) withheld_clocks: &'static str,
    pub(super) withheld_seqs: &'a BTreeSet<i64>,
}

/// A store record whose entry_id is not in the chain.
#[derive(Debug, Serialize)]
pub(super) struct Orphan {
    pub(super) entry_id: Digest,
    pub(super) seq: i64,
}

/// A seq the store gives more than one entry_id.
#[derive(Debug, Clone, Serialize)]
pub(super) struct MultiEntrySeq {
    pub(super) entry_ids: Vec<Digest>,
    pub(super) seq: i64,
}

/// A store record naming a chain entry_id with another seq.
#[derive(Debug, Clone, Serialize)]
pub(super) struct SeqDisagrees {
    pub(super) chain_seq: i64,
    pub(super) entry_id: Digest,
    pub(super) store_seq: i64,
}

/// What the page carries of the chain, for the reader of the index alone.
#[derive(Debug, Serialize)]
pub(super) struct PageCarries {
    pub(super) head: Digest,
    pub(super) head_seq: Option<i64>,
    pub(super) lines: usize,
    pub(super) published: usize,
    pub(super) withheld: usize,
}

/// The tail's last run, as runs.jsonl wrote it (its words, passed on).
#[derive(Debug, Serialize)]
pub(super) struct TailRead<'a> {
    pub(super) lines_seen: Option<&'a J>,
    pub(super) run_at: Option<&'a J>,
    pub(super) source: &'static str,
}

pub(super) const WITHHELD_CLOCKS: &str = "for a record whose entry_id or seq is a withheld line's, line_timestamp is null and seen_at, stamped_at, upgraded_at are cut to the day in the header's anchor_tz, the day withheld.json gives (docs/protocol.md#witness); runs.jsonl and seal.jsonl print such a moment as that day; block_time, block_height, block_hash and status are copied";
pub(super) const CLOCKS: &str = "seen_at, stamped_at, upgraded_at are the tail's clock (the lab's word); line_timestamp is the gate's statement; block_time is the block header's (the miner's clock)";
pub(super) const TAIL_READ_SOURCE: &str =
    "runs.jsonl, last line (the tail's clock); REPORT.md's figures are of this moment";
pub(super) const BUCKETS: &str = "cumulative: within_1h ⊆ within_6h ⊆ within_24h; within_24h + over_24h + none_yet = n; a negative latency is in within_1h and counted in negative";

/// `index.json`: the tail's latest state per entry_id (a withheld line's clocks cut to the
/// anchor-zone day), the prereg digest, and the `publisher` object. With `part_seqs` (a
/// segmented exhibit) the entries go to parts of that many seqs each, returned as files, and
/// `index.json` lists them under `parts` instead (docs/witness.md#parts); each record is the
/// same, cut the same, wherever it is written.
pub(super) fn published_index<'a>(
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
pub(super) type IndexParts = (Vec<IndexPart>, Vec<(String, Content)>);

/// What the published index and STATS take from the store's records, taken before the run log
/// is read (docs/scale.md#records-let-go).
pub(super) struct FromRecords {
    /// A segmented exhibit's index parts, and their files; `None` for a one-file exhibit,
    /// whose index lists its records itself (split only when the ledger is: a one-file
    /// exhibit stays byte-identical, docs/witness.md#parts).
    pub(super) parts: Option<IndexParts>,
    /// The records no chain line names, in the records' order.
    pub(super) orphans: Vec<Orphan>,
    pub(super) store_entries: usize,
    /// What each part was made from and came to, for the next build ([`KnownParts`]).
    pub(super) carried: Option<crate::previous::carried::Carried>,
}

/// What the last build made each index part from (a fingerprint of its inputs:
/// [`PartSource::fingerprint`]) and what the part came to (size, sha256), so that a part made
/// from the same inputs is not serialised again to learn its sha256: at a million lines that is
/// 640 MB of JSON, a daily build changing the last part or two (docs/scale.md#parts-carried).
/// Scoped to the binary, whose code makes the bytes; a cache, never a source of truth: the part
/// DIR holds must still have the sha256, or the part is made and written.
#[derive(Debug, Default)]
pub(super) struct KnownParts {
    old: BTreeMap<String, (Digest, u64, Digest)>,
    new: Vec<(String, Digest, u64, Digest)>,
    /// Parts whose size and sha256 were known.
    carried: usize,
}

const PARTS_FILE: &str = "exhibit/index-parts";
const PARTS_MAGIC: &[u8] = b"exhibit-index-parts-1\n";

impl KnownParts {
    /// What `<git dir>/exhibit/index-parts` remembers, or nothing.
    pub(super) fn open(git_dir: Option<&Path>) -> KnownParts {
        let body = crate::previous::carried::read_for_binary(git_dir, PARTS_FILE, PARTS_MAGIC);
        let mut old = BTreeMap::new();
        let mut rest = body.as_deref().unwrap_or_default();
        // Each: the path's length (u16 LE) and bytes, the fingerprint, the size (u64 LE), the
        // sha256. A body that does not parse whole is none.
        while !rest.is_empty() {
            let Some(entry) = (|| {
                let n = u16::from_le_bytes(rest.get(..2)?.try_into().ok()?) as usize;
                let path = std::str::from_utf8(rest.get(2..2 + n)?).ok()?.to_string();
                let at = 2 + n;
                let fingerprint = Digest(rest.get(at..at + 32)?.try_into().ok()?);
                let len = u64::from_le_bytes(rest.get(at + 32..at + 40)?.try_into().ok()?);
                let sha256 = Digest(rest.get(at + 40..at + 72)?.try_into().ok()?);
                Some((path, fingerprint, len, sha256, at + 72))
            })() else {
                return KnownParts::default();
            };
            let (path, fingerprint, len, sha256, used) = entry;
            old.insert(path, (fingerprint, len, sha256));
            rest = &rest[used..];
        }
        KnownParts {
            old,
            ..KnownParts::default()
        }
    }

    /// The size and sha256 of the part at `path` made from `fingerprint`'s inputs, when the
    /// last build made it from the same.
    fn known(&self, path: &str, fingerprint: Digest) -> Option<(u64, Digest)> {
        self.old
            .get(path)
            .filter(|(f, _, _)| *f == fingerprint)
            .map(|&(_, len, sha256)| (len, sha256))
    }

    /// Remembering these parts (tests).
    #[cfg(test)]
    pub(super) fn remembering(parts: Vec<(String, Digest, u64, Digest)>) -> KnownParts {
        KnownParts {
            old: parts
                .into_iter()
                .map(|(p, f, l, s)| (p, (f, l, s)))
                .collect(),
            ..KnownParts::default()
        }
    }

    /// What this build made (tests).
    #[cfg(test)]
    pub(super) fn into_made(self) -> Vec<(String, Digest, u64, Digest)> {
        self.new
    }

    fn made(&mut self, path: &str, fingerprint: Digest, len: u64, sha256: Digest) {
        if self.known(path, fingerprint).is_some() {
            self.carried += 1;
        }
        self.new.push((path.to_string(), fingerprint, len, sha256));
    }

    /// This build's parts, for the next.
    pub(super) fn carried(
        self,
        git_dir: Option<&Path>,
    ) -> Option<crate::previous::carried::Carried> {
        crate::terminal::progress::stage_times::carried(&format!(
            "{} of {} witness index parts from the previous build",
            self.carried,
            self.new.len()
        ));
        let mut body = Vec::with_capacity(self.new.len() * 96);
        for (path, fingerprint, len, sha256) in &self.new {
            body.extend_from_slice(&u16::try_from(path.len()).ok()?.to_le_bytes());
            body.extend_from_slice(path.as_bytes());
            body.extend_from_slice(&fingerprint.0);
            body.extend_from_slice(&len.to_le_bytes());
            body.extend_from_slice(&sha256.0);
        }
        crate::previous::carried::for_binary(git_dir, PARTS_FILE, PARTS_MAGIC, &body)
    }
}

impl FromRecords {
    pub(super) fn of(
        ctx: &LayerContext<'_>,
        index: &StoreIndex,
        chain: &Chain,
        places: &std::sync::Arc<Vec<u32>>,
        part_seqs: Option<u64>,
    ) -> Result<FromRecords> {
        let parts = part_seqs
            .map(|k| {
                let holds = crate::site_write::dir_record::DirHolds::open(
                    ctx.previous.git_dir(),
                    &ctx.plan.out,
                );
                let source = (index, chain, places);
                let mut known = KnownParts::open(ctx.previous.git_dir());
                let parts = index_parts(
                    source,
                    &ctx.verified.anchor_tz,
                    k,
                    (holds, &mut known),
                    ctx.made,
                )?;
                Ok::<_, anyhow::Error>((parts, known.carried(ctx.previous.git_dir())))
            })
            .transpose()?;
        let (parts, carried) = match parts {
            Some((parts, carried)) => (Some(parts), carried),
            None => (None, None),
        };
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
            carried,
        })
    }
}

/// The records laid into parts of `k` seqs: part N holds seqs `(N-1)*k+1 ..= N*k`; only parts
/// with a record exist. Returns the list `index.json` gives and the parts' files.
pub(super) fn index_parts(
    (index, chain, places): (&StoreIndex, &Chain, &std::sync::Arc<Vec<u32>>),
    anchor_tz: &str,
    k: u64,
    (mut holds, known): (crate::site_write::dir_record::DirHolds, &mut KnownParts),
    made: Option<&crate::site_write::staged_files::MadeFiles>,
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
        // A part made from the inputs the last build made it from is the same part: its size
        // and sha256 are known without serialising it (docs/scale.md#parts-carried).
        let fingerprint = source.fingerprint();
        let (len, sha256) = match (&bytes, known.known(&path, fingerprint)) {
            (Some(bytes), _) => (bytes.len() as u64, Digest::of(bytes)),
            (None, Some(known)) => known,
            (None, None) => source.len_and_sha256(),
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
            (Some(file), _) => {
                known.made(&path, fingerprint, len, sha256);
                files.push((path, Content::File(file)));
            }
            // Written now into the build's folder of made files, so that no part shares the
            // store's records past the witness layer (docs/scale.md#made-as-written).
            (None, Some(made)) => {
                let bytes = bytes.unwrap_or_else(|| source.bytes());
                let file = made.put(&path, &bytes)?;
                // Made now: its own size and sha256 are listed and remembered, whatever a
                // state said (a stale one costs this part's making, never a wrong listing).
                if let (Some(part), Some(made)) = (parts.last_mut(), file.sha256) {
                    part.sha256 = made;
                }
                known.made(&path, fingerprint, file.len, file.sha256.unwrap_or(sha256));
                files.push((path, Content::File(file)));
            }
            // A dry run's part is made again when read, and must then give this size and
            // sha256 (`Remade::known`), or the review fails naming it.
            (None, None) => {
                known.made(&path, fingerprint, len, sha256);
                remade.push((path, len, sha256, source));
            }
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
pub(super) enum PartRecords {
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
pub(super) fn place_at(places: &[u32], k: usize) -> ProofPlace {
    places
        .get(k)
        .map_or(ProofPlace::Flat, |&p| ProofPlace::unpack(p))
}

impl PartRecords {
    /// A copy of its own records, not the shared list's.
    pub(super) fn owned(self) -> PartRecords {
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
pub(super) struct PartSource {
    pub(super) records: PartRecords,
    pub(super) calendars: std::sync::Arc<Vec<Vec<String>>>,
    pub(super) anchor_tz: String,
}

impl PartSource {
    pub(super) fn len(&self) -> usize {
        match &self.records {
            PartRecords::Shared { at, .. } => at.len(),
            PartRecords::Own(records) => records.len(),
        }
    }

    /// Its records in id order, each with its id, whether its clocks are cut and its proof's
    /// place.
    pub(super) fn each(
        &self,
    ) -> Box<dyn Iterator<Item = (Digest, &Record, bool, ProofPlace)> + '_> {
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

    /// What the part's bytes are made from, hashed: the anchor zone, and each record's id, every
    /// field (`Record::fingerprint_bytes`), its calendars' names, whether its clocks are cut and
    /// its proof's place. One binary makes the same bytes from the same fingerprint
    /// ([`KnownParts`]).
    pub(super) fn fingerprint(&self) -> Digest {
        use sha2::Digest as _;
        let mut h = sha2::Sha256::new();
        h.update((self.anchor_tz.len() as u64).to_le_bytes());
        h.update(self.anchor_tz.as_bytes());
        // Each calendars list once, by the digest of its names, each name's length first.
        let lists: Vec<Digest> = self
            .calendars
            .iter()
            .map(|list| {
                let mut l = sha2::Sha256::new();
                for name in list {
                    l.update((name.len() as u64).to_le_bytes());
                    l.update(name.as_bytes());
                }
                Digest(l.finalize().into())
            })
            .collect();
        for (id, r, cut, place) in self.each() {
            h.update(id.0);
            h.update(r.fingerprint_bytes(&lists));
            h.update([u8::from(cut)]);
            h.update(place.pack().to_le_bytes());
        }
        Digest(h.finalize().into())
    }

    pub(super) fn file(&self) -> IndexPartFile<'_> {
        IndexPartFile {
            entries: PartEntries(self),
        }
    }

    pub(super) fn bytes(&self) -> Vec<u8> {
        pretty(&self.file())
    }

    /// The size and sha256 of [`PartSource::bytes`], the bytes not held.
    pub(super) fn len_and_sha256(&self) -> (u64, Digest) {
        crate::published::encode::pretty_len_and_sha256(&self.file())
    }
}

/// One record of the published index.
pub(super) fn published_record<'a>(
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
