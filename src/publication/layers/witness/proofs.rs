//! The per-line proofs the layer publishes: the store's, HEAD's carried forward, each at the path
//! it was first published under (docs/witness.md#proof-folders).

use super::*;

/// The store's proofs, checked, held to the replacement rule against HEAD's, and HEAD's proofs
/// the store no longer names, carried forward.
pub(super) struct Proofs {
    /// `ledger/witness/proofs/*` to publish from the store (proofs that passed), kept on disk.
    pub(super) store_files_kept: Vec<(String, crate::published::output_tree::DiskFile)>,
    /// The same, for a segmented exhibit: a sorted list per folder, not a path and a map entry
    /// per proof (docs/scale.md#the-proofs-folder-as-a-list); a proof it cannot list stays above.
    pub(super) listed: Option<ProofLists>,
    /// `ledger/witness/proofs/*` carried from HEAD (the store no longer names them).
    pub(super) files: Vec<(String, Vec<u8>)>,
    pub(super) replaced: Vec<String>,
    pub(super) rewritten: Vec<String>,
    pub(super) carried: Vec<String>,
    /// A proof HEAD published failed its header check and was dropped (--allow-rewrite).
    pub(super) dropped_from_head: bool,
    pub(super) stray_files: usize,
    pub(super) store_files: usize,
    /// This build's records of the store's proofs, committed once DIR is written.
    pub(super) records: Option<crate::previous::file_records::Pending>,
    /// Where each record's proof is published, by the record's position ([`ProofPlace::pack`];
    /// docs/witness.md#proof-folders).
    pub(super) places: std::sync::Arc<Vec<u32>>,
}

impl Proofs {
    /// A store proof that passed, kept for the tree at its place: listed in its folder's list
    /// when the exhibit lists its proofs (flat, in a bucket or in `other/`:
    /// docs/scale.md#the-proofs-folder-as-a-list).
    pub(super) fn keep(
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
    pub(super) fn room_for(
        &mut self,
        segmented: bool,
        index: &StoreIndex,
        folder: &std::sync::Arc<Path>,
    ) {
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
    pub(super) fn kept(&self) -> usize {
        self.store_files_kept.len() + self.listed.as_ref().map_or(0, ProofLists::len)
    }
}

/// A segmented exhibit's store proofs as lists, one per folder they are published in (the flat
/// folder, each seq bucket, `other/`), all naming from the store's ids: the flat list's 40 bytes
/// or so a proof, where a bucket's proof in the tree's map was 215 to 330
/// (docs/scale.md#the-proofs-folder-as-a-list). Pushed in the index's order, which is each
/// list's name order. A bucket's list grows to hold its 4096 proofs without room to spare.
pub(super) struct ProofLists {
    /// By folder; the flat folder's list is always there (the others are made from it).
    pub(super) lists: BTreeMap<
        crate::published::output_tree::ListedFolder,
        crate::published::output_tree::ListedFiles,
    >,
}

impl ProofLists {
    /// Lists `file` in its place's list; a file no list takes is handed back.
    pub(super) fn push(
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

    pub(super) fn len(&self) -> usize {
        self.lists
            .values()
            .map(crate::published::output_tree::ListedFiles::len)
            .sum()
    }

    /// The lists that hold a proof, each in name order.
    pub(super) fn finish(self) -> Vec<crate::published::output_tree::ListedFiles> {
        let mut lists: Vec<_> = self.lists.into_values().filter(|l| !l.is_empty()).collect();
        for list in &mut lists {
            list.finish();
        }
        lists
    }
}

#[allow(clippy::too_many_arguments)]
pub(super) fn proofs(
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
    let mut records = crate::publication::layers::proof_records::ProofRecords::open(
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
            records.record(&name, k.stat, &k.file, k.oid);
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
            records.record(
                &name,
                crate::previous::file_records::Stat::of(&meta),
                &kept,
                oid,
            );
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
pub(super) fn carry_head(
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
pub(super) fn new_places(
    ctx: &LayerContext<'_>,
    index: &StoreIndex,
) -> impl Iterator<Item = ProofPlace> {
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
pub(super) fn proof_path(id: &Digest, place: ProofPlace) -> String {
    format!("{PROOFS_FOLDER}/{}", place.rel(&format!("{id}.ots")))
}
