//! The proofs HEAD published, read from git as a stream and merged with the store's: what is
//! carried, and when a proof may be replaced (docs/witness.md).

use super::*;

/// HEAD's proofs folder as the witness layer first meets it. When git keeps it loose it is read
/// as a stream after the store's index and merged with its ids as it passes: no list of HEAD's
/// proofs is held (53 MB at a million, docs/scale.md#head-proofs-merged). A packed one is read
/// whole (its object is 97 MB at a million), so it is read first, beside the decide stage's
/// leftovers rather than the store's records, and kept as a 52-byte-a-proof list
/// (docs/scale.md#memory).
pub(super) enum HeadProofsRead {
    Listed(HeadProofs),
    ToMerge,
}

impl HeadProofsRead {
    pub(super) fn before_index(previous: &crate::previous::Previous) -> Result<HeadProofsRead> {
        // A packed folder is read whole when walked: beside the store's index only when it is
        // small, as a segmented exhibit's is (it names its bucket folders, each read in turn);
        // a one-file exhibit's names every proof (100 MB at a million), and is read before the
        // index. Read before, a packed segmented folder's list was 57 MB on the index's peak
        // at 1,020,000 lines (docs/scale.md#head-proofs-merged).
        let small = previous
            .folder_bytes(PROOFS_FOLDER)?
            .is_some_and(|bytes| bytes <= SMALL_FOLDER);
        Ok(if small || previous.streams_folder(PROOFS_FOLDER)? {
            HeadProofsRead::ToMerge
        } else {
            HeadProofsRead::Listed(HeadProofs::read(previous)?)
        })
    }

    /// HEAD's proofs beside the store's records, by their `ids`.
    pub(super) fn at_records(
        self,
        previous: &crate::previous::Previous,
        ids: &SortedIds,
    ) -> Result<HeadAtRecords> {
        Ok(match self {
            HeadProofsRead::Listed(head) => head.at_records(ids),
            HeadProofsRead::ToMerge => match HeadAtRecords::merged(previous, ids)? {
                Some(head) => head,
                // Proofs in bucket folders (a segmented exhibit), or a digest out of git's
                // order (a tree written by hand): each found among the ids as it is read.
                None => HeadAtRecords::searched(previous, ids)?,
            },
        })
    }
}

/// A packed proofs folder whose tree object is at most this is walked beside the store's
/// index ([`HeadProofsRead::before_index`]): about 10,000 names.
const SMALL_FOLDER: usize = 1 << 20;

/// The per-line proofs' folder, under DIR.
pub(super) const PROOFS_FOLDER: &str = "ledger/witness/proofs";

/// A proof HEAD publishes: its blob id, and where under `proofs/` it lies
/// ([`ProofPlace::pack`]; docs/witness.md#proof-folders).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct AtHead {
    pub(super) oid: git2::Oid,
    pub(super) place: u32,
}

impl AtHead {
    pub(super) fn place(self) -> ProofPlace {
        ProofPlace::unpack(self.place)
    }
}

/// A file of HEAD's proofs folder as both of its readers take it ([`HeadProofs::read`],
/// [`HeadAtRecords::searched`]): a proof named by its digest, or any other name, by its path
/// under `proofs/`; with its blob id and place.
enum HeadProof {
    Named([u8; 32], AtHead),
    Other(String, AtHead),
}

impl HeadProof {
    fn of(place: ProofPlace, name: &str, oid: git2::Oid) -> HeadProof {
        let at = AtHead {
            oid,
            place: place.pack(),
        };
        match crate::published::output_tree::FileName::new(name) {
            crate::published::output_tree::FileName::Proof(d) => HeadProof::Named(d, at),
            crate::published::output_tree::FileName::PublicText(_)
            | crate::published::output_tree::FileName::Other(_) => {
                HeadProof::Other(place.rel(name), at)
            }
        }
    }
}

/// Each file of HEAD's proofs folder, its own and its buckets' and `other/`'s
/// (docs/witness.md#proof-folders), handed to `visit` in git's order as its place, its name
/// and its blob id; `visit` returns false to stop. HEAD's tree passed the output's grammar
/// before it is trusted (crate::previous::head_check): anything else here is refused again, the second
/// lock. Returns false when `visit` stopped the walk.
pub(super) fn visit_head_proofs(
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
pub(super) struct HeadProofs {
    pub(super) by_digest: Vec<([u8; 32], AtHead)>,
    pub(super) other: BTreeMap<String, AtHead>,
}

impl HeadProofs {
    pub(super) fn read(previous: &crate::previous::Previous) -> Result<HeadProofs> {
        let mut head = HeadProofs {
            by_digest: Vec::new(),
            other: BTreeMap::new(),
        };
        visit_head_proofs(previous, |place, name, oid| {
            match HeadProof::of(place, &name, oid) {
                HeadProof::Named(d, at) => head.by_digest.push((d, at)),
                HeadProof::Other(rel, at) => {
                    head.other.insert(rel, at);
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
    pub(super) fn at_records(self, ids: &SortedIds) -> HeadAtRecords {
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

    pub(super) fn len(&self) -> usize {
        self.by_digest.len() + self.other.len()
    }
}

/// HEAD's proofs beside the store's records (docs/scale.md#narrower-records): the blob id and
/// place HEAD publishes each record's proof under, by the record's position (25 bytes a record
/// where the list by digest took 56), HEAD's digest-named proofs no record names (to be
/// carried), and its other names.
pub(super) struct HeadAtRecords {
    pub(super) at_record: OidsByRecord,
    pub(super) not_in_index: Vec<([u8; 32], AtHead)>,
    pub(super) other: BTreeMap<String, AtHead>,
    /// How many proofs HEAD's folder holds.
    pub(super) head_proofs: usize,
}

impl HeadAtRecords {
    /// HEAD's proofs folder merged with the store's `ids` (sorted, each once) as it is read,
    /// in git's order, which names the digest-named proofs in digest order (every name
    /// `<64 hex>.ots`, of one length and lowercase hex): [`HeadProofs::at_records`] without
    /// the list by digest (docs/scale.md#head-proofs-merged). `None` when a digest does not
    /// come after the one before (a tree written by hand, or a name twice): the caller reads
    /// the list and sorts it, as before.
    pub(super) fn merged(
        previous: &crate::previous::Previous,
        ids: &SortedIds,
    ) -> Result<Option<Self>> {
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

    /// HEAD's proofs folder beside the store's `ids` (sorted, each once), read in any order (a
    /// segmented exhibit's bucket folders, or a tree written by hand): each digest-named proof
    /// found among the ids as it is read, into a table of every record's place made whole
    /// first. What [`HeadProofs::at_records`] gives, without the list of every HEAD proof
    /// sorted by digest beside it: at a million proofs that list was 56 MB on the witness
    /// layer's peak (docs/scale.md#head-proofs-searched). Of a digest HEAD holds twice, the
    /// first in git's (path) order meets its record and the other is carried, as the list's
    /// stable sort had it.
    pub(super) fn searched(
        previous: &crate::previous::Previous,
        ids: &SortedIds,
    ) -> Result<HeadAtRecords> {
        let mut at_record = OidsByRecord::nones(ids.len());
        let mut not_in_index = Vec::new();
        let mut other = BTreeMap::new();
        let mut digest_named = 0;
        visit_head_proofs(previous, |place, name, oid| {
            match HeadProof::of(place, &name, oid) {
                HeadProof::Named(d, at) => {
                    digest_named += 1;
                    let met = ids
                        .binary_search(&Digest(d))
                        .is_ok_and(|k| at_record.set_once(k, at));
                    if !met {
                        not_in_index.push((d, at));
                    }
                }
                HeadProof::Other(rel, at) => {
                    other.insert(rel, at);
                }
            }
            true
        })?;
        // In digest order, and of one digest in git's order, as the merge of the sorted list
        // carried them.
        not_in_index.sort_by_key(|(d, _)| *d);
        Ok(HeadAtRecords {
            at_record,
            not_in_index,
            head_proofs: digest_named + other.len(),
            other,
        })
    }
}

/// HEAD's blob id under each record's name, by the record's position, in chunks of 65,536 that
/// are let go as the proofs' walk passes them: held whole until the walk ended, they sat beside
/// the full proofs list on the store's proofs' peak (21 MB at a million:
/// docs/scale.md#witness-transients).
#[derive(Debug, Default)]
pub(super) struct OidsByRecord(pub(super) Vec<Vec<Option<AtHead>>>);

impl OidsByRecord {
    pub(super) const CHUNK: usize = 1 << 16;

    pub(super) fn push(&mut self, oid: Option<AtHead>) {
        match self.0.last_mut() {
            Some(chunk) if chunk.len() < Self::CHUNK => chunk.push(oid),
            _ => {
                let mut chunk = Vec::with_capacity(Self::CHUNK);
                chunk.push(oid);
                self.0.push(chunk);
            }
        }
    }

    /// `n` records, none with a blob id yet.
    pub(super) fn nones(n: usize) -> OidsByRecord {
        let mut chunks = Vec::with_capacity(n.div_ceil(Self::CHUNK));
        let mut left = n;
        while left > 0 {
            let len = left.min(Self::CHUNK);
            chunks.push(vec![None; len]);
            left -= len;
        }
        OidsByRecord(chunks)
    }

    /// Gives record `k` the blob id `at` unless it has one already (or there is no record
    /// `k`); whether it was given.
    pub(super) fn set_once(&mut self, k: usize, at: AtHead) -> bool {
        match self
            .0
            .get_mut(k / Self::CHUNK)
            .and_then(|chunk| chunk.get_mut(k % Self::CHUNK))
        {
            Some(slot @ None) => {
                *slot = Some(at);
                true
            }
            _ => false,
        }
    }

    /// The ids in the records' order, each chunk let go once passed.
    pub(super) fn into_iter(self) -> impl Iterator<Item = Option<AtHead>> {
        self.0.into_iter().flatten()
    }
}

/// A proof HEAD published that the store no longer names is carried forward — only when its
/// name is one of the layout's and its header commits to the digest the name gives: names are
/// data until checked, and a carried proof is header-checked like a new one
/// (docs/build.md#safety). One that fails refuses, or is dropped on --allow-rewrite.
pub(super) fn carry(
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
pub(super) fn replacement_rule(
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
