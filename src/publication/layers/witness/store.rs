//! The tail's store as the layer reads it (docs/protocol.md#box): its index, record by record, into
//! compact records; the seal; each proof read once and checked for its header and the digest its
//! name commits to.

use super::*;

/// One record of the store's index, compact (a million of them stay small): 72 bytes. The
/// four optional fields are plain values with a bit each in `present` (as `Option`s they took
/// 24 bytes more a record, 24 MB at a million: docs/scale.md#what-is-left), the five clocks
/// take five bytes each ([`Clock`]), the seq and the block height five bytes each and the
/// calendars' list two (docs/scale.md#narrower-lines), and its id is kept apart, at the
/// same position of [`StoreIndex::ids`], which the published proofs list shares
/// (docs/scale.md#ids-shared).
#[derive(Debug, Clone)]
pub(super) struct Record {
    pub(super) block_hash: Digest,
    /// The seq, 1 or more and below 2^40 (the index is refused otherwise): [`Record::seq`].
    pub(super) seq40: U40,
    pub(super) line_timestamp: Clock,
    pub(super) seen_at: Clock,
    pub(super) stamped_at: Clock,
    pub(super) upgraded_at: Clock,
    /// Below 2^40 (the index is refused otherwise).
    pub(super) block_height: U40,
    pub(super) block_time: Clock,
    /// Index into `StoreIndex::calendars` (interned lists; the index is refused past 65,536).
    pub(super) calendars: u16,
    pub(super) status: Status,
    pub(super) present: u8,
}

impl Record {
    /// Every field, in fixed bytes, for a part's fingerprint (published_index::KnownParts);
    /// the calendars as their list's digest in `lists`. Destructured whole, so that a field
    /// added to the record cannot be left out of it unnoticed (the compiler names it).
    pub(super) fn fingerprint_bytes(&self, lists: &[Digest]) -> [u8; 101] {
        let Record {
            block_hash,
            seq40,
            line_timestamp,
            seen_at,
            stamped_at,
            upgraded_at,
            block_height,
            block_time,
            calendars,
            status,
            present,
        } = *self;
        let mut out = [0u8; 101];
        out[..32].copy_from_slice(&block_hash.0);
        out[32..37].copy_from_slice(&seq40.get().to_le_bytes()[..5]);
        for (i, clock) in [line_timestamp, seen_at, stamped_at, upgraded_at, block_time]
            .into_iter()
            .enumerate()
        {
            out[37 + 5 * i..42 + 5 * i].copy_from_slice(&clock.secs().to_le_bytes()[..5]);
        }
        out[62..67].copy_from_slice(&block_height.get().to_le_bytes()[..5]);
        let list = lists.get(usize::from(calendars)).map_or([0u8; 32], |d| d.0);
        out[67..99].copy_from_slice(&list);
        out[99] = status as u8;
        out[100] = present;
        out
    }

    const UPGRADED_AT: u8 = 1;
    const BLOCK_HEIGHT: u8 = 2;
    const BLOCK_HASH: u8 = 4;
    const BLOCK_TIME: u8 = 8;

    pub(super) fn has(&self, bit: u8) -> bool {
        self.present & bit != 0
    }

    pub(super) fn seq(&self) -> i64 {
        // Below 2^40: exact.
        self.seq40.get() as i64
    }

    pub(super) fn line_timestamp(&self) -> i64 {
        self.line_timestamp.secs()
    }

    pub(super) fn seen_at(&self) -> i64 {
        self.seen_at.secs()
    }

    pub(super) fn stamped_at(&self) -> i64 {
        self.stamped_at.secs()
    }

    pub(super) fn upgraded_at(&self) -> Option<i64> {
        self.has(Self::UPGRADED_AT).then(|| self.upgraded_at.secs())
    }

    pub(super) fn block_height(&self) -> Option<u64> {
        self.has(Self::BLOCK_HEIGHT)
            .then(|| self.block_height.get())
    }

    pub(super) fn block_hash(&self) -> Option<Digest> {
        self.has(Self::BLOCK_HASH).then_some(self.block_hash)
    }

    pub(super) fn block_time(&self) -> Option<i64> {
        self.has(Self::BLOCK_TIME).then(|| self.block_time.secs())
    }
}

/// The value of an optional field and its bit in `Record::present` (the value's default when
/// absent, never read).
pub(super) fn packed<T: Default>(value: Option<T>, bit: u8, present: &mut u8) -> T {
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
pub(super) struct StoreIndex {
    /// The records' ids, sorted, each once: record `k`'s id is `ids[k]`. Shared with the
    /// published proofs list, which names its proofs by position here, and with the index
    /// parts made again when written (docs/scale.md#ids-shared).
    /// Once the chain's lines are known, a digest that is a line's entry_id is read from the
    /// line, not held again (docs/scale.md#ids-by-line).
    pub(super) ids: std::sync::Arc<SortedIds>,
    /// In the ids' order. Shared with the index parts that are made again when written, which
    /// name their records by position instead of copying them (160 MB at a million lines:
    /// docs/scale.md#memory).
    pub(super) records: std::sync::Arc<Vec<Record>>,
    pub(super) calendars: Vec<Vec<String>>,
    pub(super) calendar_ids: BTreeMap<Vec<String>, u16>,
    pub(super) prereg_sha256: Option<Digest>,
}

impl StoreIndex {
    /// From here on, an id that is the entry_id of the line its record's seq names is read
    /// from that line, not held again: 28 bytes a record, 28 MB at a million, from the witness
    /// layer to the end of the build, where the published proofs list is named by these ids
    /// (docs/scale.md#ids-by-line). A record whose id is not its seq's line's (an orphan, a
    /// seq that disagrees) keeps its id.
    pub(super) fn share_line_ids(&mut self, lines: &std::sync::Arc<Vec<LineRecord>>) {
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
        let shared: std::sync::Arc<dyn crate::published::entry_ids::LineIds> = lines.clone();
        self.ids = std::sync::Arc::new(ids.by_line(shared, |k| {
            records.get(k).and_then(|r| line_of_seq(r.seq()))
        }));
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawRecord<'a> {
    pub(super) seq: i64,
    pub(super) status: Status,
    #[serde(borrow)]
    pub(super) calendars: Vec<Cow<'a, str>>,
    #[serde(borrow)]
    pub(super) line_timestamp: Cow<'a, str>,
    #[serde(borrow)]
    pub(super) seen_at: Cow<'a, str>,
    #[serde(borrow)]
    pub(super) stamped_at: Cow<'a, str>,
    #[serde(borrow, default)]
    pub(super) upgraded_at: Option<Cow<'a, str>>,
    #[serde(default)]
    pub(super) block_height: Option<u64>,
    #[serde(borrow, default)]
    pub(super) block_hash: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub(super) block_time: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawPrereg<'a> {
    #[serde(borrow)]
    pub(super) sha256: Cow<'a, str>,
}

pub(super) fn clock<E: de::Error>(id: &str, field: &str, s: &str) -> Result<Clock, E> {
    days::parse_timestamp(s)
        .and_then(Clock::new)
        .ok_or_else(|| {
            E::custom(format!(
                "entry {id}: {field} {s:?} is not a YYYY-MM-DDTHH:MM:SSZ timestamp"
            ))
        })
}

/// The index being read, and its ids as read (sorted once all are read).
pub(super) struct EntriesSeed<'s>(pub(super) &'s mut StoreIndex, &'s mut Vec<Digest>);

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

pub(super) struct IndexVisitor<'s>(pub(super) &'s mut StoreIndex, &'s mut Vec<Digest>);

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

pub(super) fn parse_index(reader: impl std::io::Read) -> Result<StoreIndex, String> {
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
pub(super) fn permute(order: &mut [u32], mut swap: impl FnMut(usize, usize)) {
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
pub(super) fn shown(store: &Path, rel: &str) -> String {
    store.join(rel).display().to_string()
}

/// What a stats/page reader needs to know about a store read at build.
pub(super) struct Store {
    /// `STORE/proofs/`, when it is a folder (never through a symlink).
    pub(super) proofs: Option<BoxFolder>,
    pub(super) index: Option<StoreIndex>,
    pub(super) report: Option<String>,
    pub(super) prereg: Option<Vec<u8>>,
    pub(super) seal: Option<Vec<u8>>,
    /// File names in `proofs/`, sorted (non-UTF-8 names counted as stray).
    pub(super) proof_names: ProofNames,
    pub(super) unreadable_names: usize,
}

pub(super) fn read_required(
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

pub(crate) fn missing_store_file(folder: &BoxFolder, rel: &str) -> Refusal {
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

pub(super) fn load_store(store: &Path, refusals: &mut Vec<Refusal>) -> Result<Store> {
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
pub(super) fn check_seal(store: &Path, s: &Store, refusals: &mut Vec<Refusal>) -> Option<Digest> {
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
pub(super) struct StoreProof {
    pub(super) name: String,
    pub(super) rel: String,
    pub(super) bytes: Vec<u8>,
}

impl StoreProof {
    /// What the tree keeps of it once every check has read its bytes: where it is, its size,
    /// sha256 and header (docs/scale.md#memory).
    pub(super) fn kept(
        self,
        folder: &std::sync::Arc<Path>,
    ) -> crate::published::output_tree::DiskFile {
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
pub(super) struct ProofNames {
    /// By the record's position in the index's records (sorted by id).
    pub(super) at_record: Vec<bool>,
    /// Names that are no record's `<id>.ots`: the sealed proof's, a digest no record names, any
    /// other file; sorted.
    pub(super) other: Vec<String>,
    /// Every UTF-8 name the folder holds.
    pub(super) names: usize,
}

impl ProofNames {
    /// An empty tally for a store index of `records`.
    pub(super) fn for_records(records: usize) -> ProofNames {
        ProofNames {
            at_record: vec![false; records],
            ..ProofNames::default()
        }
    }

    /// Takes one name of the folder; `ids` are the index's, sorted.
    pub(super) fn push(&mut self, name: String, ids: &SortedIds) {
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
    pub(super) fn finish(&mut self) {
        self.other.sort_unstable();
    }

    pub(super) fn len(&self) -> usize {
        self.names
    }

    /// Whether `name`, no record's `<id>.ots`, is among the names.
    pub(super) fn has_other(&self, name: &str) -> bool {
        self.other
            .binary_search_by(|n| n.as_str().cmp(name))
            .is_ok()
    }
}

pub(super) fn read_proof(
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
