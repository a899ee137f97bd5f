//! The published `public_texts/index.json`, and on a segmented exhibit its parts under `index/`
//! (docs/public-texts.md#parts).

use super::*;

/// The seqs one part of the index holds, when the index is split: only on a segmented exhibit
/// (a one-file exhibit's index stays byte-identical), in the witness index's blocks
/// (docs/public-texts.md#parts).
pub(super) fn part_seqs(ctx: &LayerContext<'_>) -> Option<u64> {
    ctx.segmented.then_some(ctx.plan.config.witness_part_seqs)
}

/// The counts of texts (not of lines).
#[derive(Debug, Clone, Serialize)]
pub(super) struct TextCounts {
    pub(super) allowed_by_operator: Count,
    pub(super) carried_from_previous_build: Count,
    pub(super) dropped: Count,
    pub(super) published: usize,
}

/// `ledger/public_texts/index.json` (docs/protocol.md#public-texts). The entries of the allowed
/// and dropped lists keep their JSON shape: an allowed entry read at HEAD is carried as HEAD
/// committed it, and a dropped entry takes one of three shapes.
#[derive(Debug, Serialize)]
pub(super) struct TextsIndex<'a> {
    pub(super) allowed_by_operator: &'a [J],
    pub(super) counts: &'a TextsStats,
    pub(super) dropped: &'a [J],
    pub(super) note: &'static str,
    pub(super) off_allow_list: BTreeMap<OffList, OffClass<'a>>,
    pub(super) published: Vec<&'a PublishedText>,
    pub(super) schema: &'static str,
    pub(super) unreconstructable: &'a [Unreconstructable],
    pub(super) withheld: &'a [WithheldText],
}

/// The seqs of one off-list class.
#[derive(Debug, Serialize)]
pub(super) struct OffClass<'a> {
    pub(super) count: usize,
    pub(super) seqs: &'a [i64],
}

/// A segmented exhibit's `ledger/public_texts/index.json` (docs/public-texts.md#parts): the
/// index without its per-line lists, which are in the parts it lists.
#[derive(Debug, Serialize)]
pub(super) struct TextsIndexTop<'a> {
    pub(super) allowed_by_operator: &'a [J],
    pub(super) counts: &'a TextsStats,
    pub(super) dropped: &'a [J],
    pub(super) note: &'static str,
    pub(super) off_allow_list: BTreeMap<OffList, OffCount>,
    pub(super) parts: Vec<TextPart>,
    pub(super) schema: &'static str,
}

/// How many seqs one off-list class holds (its seqs are in the parts).
#[derive(Debug, Serialize)]
pub(super) struct OffCount {
    pub(super) count: usize,
}

/// One part as the split index lists it.
#[derive(Debug, Serialize)]
pub struct TextPart {
    pub entries: usize,
    pub first_seq: u64,
    pub last_seq: u64,
    pub path: String,
    pub sha256: Digest,
}

/// `ledger/public_texts/index/NNNNNN.json`: the entries of the per-line lists whose seq lies in
/// one fixed block of seqs.
#[derive(Debug, Default, Serialize)]
pub(super) struct TextsIndexPart<'a> {
    pub(super) off_allow_list: BTreeMap<OffList, Vec<i64>>,
    pub(super) published: Vec<&'a PublishedText>,
    pub(super) unreconstructable: Vec<&'a Unreconstructable>,
    pub(super) withheld: Vec<&'a WithheldText>,
}

impl TextsIndexPart<'_> {
    pub(super) fn entries(&self) -> usize {
        self.published.len()
            + self.unreconstructable.len()
            + self.withheld.len()
            + self.off_allow_list.values().map(Vec::len).sum::<usize>()
    }
}

/// The path of part `n` of a segmented exhibit's public-texts index (docs/public-texts.md#parts).
pub fn text_part_path(n: u64) -> String {
    format!("{FOLDER}/index/{n:06}.json")
}

/// The part number a seq falls in, in blocks of `k` seqs (seq 1 is part 1's first).
pub(super) fn part_of(seq: i64, k: u64) -> u64 {
    (seq.max(1) as u64 - 1) / k.max(1) + 1
}

/// The numbers of the parts [`index_parts`] makes, from the seqs alone (no entry is gathered).
pub(super) fn part_numbers<'a>(
    off: &'a BTreeMap<OffList, Vec<i64>>,
    texts: &'a Texts,
    k: u64,
) -> impl Iterator<Item = u64> + 'a {
    let seqs = texts
        .releases
        .iter()
        .map(|r| r.entry.seq)
        .chain(texts.withheld.iter().map(|w| w.seq))
        .chain(texts.unreconstructable.iter().map(|u| u.seq))
        .chain(off.values().flatten().copied());
    seqs.map(move |seq| part_of(seq, k))
        .collect::<BTreeSet<u64>>()
        .into_iter()
}

/// The per-line lists cut into their parts, in part order; only blocks holding an entry.
pub(super) fn index_parts<'a>(
    off: &BTreeMap<OffList, Vec<i64>>,
    texts: &'a Texts,
    k: u64,
) -> BTreeMap<u64, TextsIndexPart<'a>> {
    let mut parts: BTreeMap<u64, TextsIndexPart<'a>> = BTreeMap::new();
    for r in &texts.releases {
        parts
            .entry(part_of(r.entry.seq, k))
            .or_default()
            .published
            .push(&r.entry);
    }
    for w in &texts.withheld {
        parts.entry(part_of(w.seq, k)).or_default().withheld.push(w);
    }
    for u in &texts.unreconstructable {
        parts
            .entry(part_of(u.seq, k))
            .or_default()
            .unreconstructable
            .push(u);
    }
    for (class, seqs) in off {
        for &seq in seqs {
            parts
                .entry(part_of(seq, k))
                .or_default()
                .off_allow_list
                .entry(*class)
                .or_default()
                .push(seq);
        }
    }
    // Every class is named in every part, even when empty, as the whole index names them.
    for part in parts.values_mut() {
        for class in OFF_CLASSES {
            part.off_allow_list.entry(class).or_default();
        }
    }
    parts
}

/// Step 6: the index, counts, files and page data.
#[allow(clippy::too_many_arguments)]
pub(super) fn finish(
    entries: usize,
    classes: &Classes,
    allow_listed: usize,
    mut texts: Texts,
    rewrite: Option<&str>,
    parts: Option<(u64, crate::site_write::dir_record::DirHolds)>,
    made: Option<&MadeFiles>,
    mut out: LayerOutput,
) -> Result<LayerOutput> {
    let considered = classes.send_lines - classes.line_withheld;
    texts.releases.sort_by_key(|r| (r.entry.seq, r.sha()));
    let by_seq_sha = |a: &J, b: &J| {
        (
            a["seq"].as_i64(),
            a["sent_sha256"].as_str(),
            a["file"].as_str(),
        )
            .cmp(&(
                b["seq"].as_i64(),
                b["sent_sha256"].as_str(),
                b["file"].as_str(),
            ))
    };
    texts.withheld.sort_by_key(|w| (w.seq, w.sent_sha256));
    texts
        .unreconstructable
        .sort_by_key(|u| (u.seq, u.sent_sha256));
    texts.allowed.sort_by(by_seq_sha);
    texts.dropped.sort_by(by_seq_sha);
    let text_count = texts.releases.len();
    let carried = texts
        .releases
        .iter()
        .filter(|r| r.entry.form == Form::CarriedFromPreviousBuild)
        .count();
    let dropped_texts = texts
        .dropped
        .iter()
        .filter(|d| d.get("sent_sha256").is_some())
        .count();
    let rewrite_reason = rewrite
        .filter(|_| !texts.dropped.is_empty())
        .map(str::to_owned);
    if rewrite_reason.is_some() {
        out.rewrote = true;
    }
    let counts = TextsStats {
        allow_listed: of(allow_listed, classes.public_lines),
        off_allow_list: classes
            .off
            .iter()
            .map(|(c, s)| (*c, of(s.len(), considered)))
            .collect(),
        public_send_lines: of(classes.public_lines, considered),
        published: of(texts.lines_published, allow_listed),
        rewrite_reason,
        send_lines: of(classes.send_lines, entries),
        send_lines_withheld_by_line_rules: of(classes.line_withheld, classes.send_lines),
        texts: TextCounts {
            allowed_by_operator: of(texts.allowed.len(), text_count),
            carried_from_previous_build: of(carried, text_count),
            // Of the texts this build would have published without --allow-rewrite; not of
            // HEAD's count, which would change the stats (and append a snapshot) after a commit.
            dropped: of(dropped_texts, text_count + dropped_texts),
            published: text_count,
        },
        unreconstructable: of(texts.lines_unrec, allow_listed),
        withheld: of(texts.lines_withheld, allow_listed),
    };
    let index = TextsIndex {
        allowed_by_operator: &texts.allowed,
        counts: &counts,
        dropped: &texts.dropped,
        note: NOTE,
        off_allow_list: classes
            .off
            .iter()
            .map(|(c, s)| {
                (
                    *c,
                    OffClass {
                        count: s.len(),
                        seqs: s,
                    },
                )
            })
            .collect(),
        published: texts.releases.iter().map(|r| &r.entry).collect(),
        schema: SCHEMA,
        unreconstructable: &texts.unreconstructable,
        withheld: &texts.withheld,
    };
    match parts {
        None => {
            out.files.push((INDEX.to_string(), pretty(&index)));
            let mut page_texts = serde_json::Map::new();
            for r in &texts.releases {
                debug_assert_eq!(Digest::of(&r.bytes), r.sha());
                page_texts.insert(r.sha().to_string(), J::String(base64(&r.bytes)));
            }
            out.page_data = json!({"index": index, "texts": J::Object(page_texts)});
        }
        Some((k, mut holds)) => {
            // A segmented exhibit: the per-line lists go to fixed parts, and the page (always
            // the light one) carries the index's summary, not the texts: at a million lines they
            // are 170 MB as base64 (docs/public-texts.md#parts).
            let mut listed = Vec::new();
            for (number, part) in index_parts(&classes.off, &texts, k) {
                let bytes = pretty(&part);
                let path = text_part_path(number);
                let sha256 = Digest::of(&bytes);
                listed.push(TextPart {
                    entries: part.entries(),
                    first_seq: (number - 1) * k + 1,
                    last_seq: number * k,
                    path: path.clone(),
                    sha256,
                });
                put_part(&mut out, &mut holds, made, path, bytes, sha256)?;
            }
            let top = TextsIndexTop {
                allowed_by_operator: index.allowed_by_operator,
                counts: index.counts,
                dropped: index.dropped,
                note: NOTE,
                off_allow_list: classes
                    .off
                    .iter()
                    .map(|(c, s)| (*c, OffCount { count: s.len() }))
                    .collect(),
                parts: listed,
                schema: SCHEMA,
            };
            out.files.push((INDEX.to_string(), pretty(&top)));
            out.page_data = json!({"index": top});
        }
    }
    let releases = std::mem::take(&mut texts.releases);
    out.first_seqs = first_seqs(&releases);
    release_files(releases, texts.dir_folder.as_ref(), made, &mut out)?;
    out.stats = Some(LayerStats::PublicTexts(Box::new(counts)));
    Ok(out)
}

/// The first published send line of each released text: its allow-listed lines and the off-list
/// ones that carry it are every published send line that does (docs/tree.md#excerpts).
fn first_seqs(releases: &[Release]) -> Vec<(u64, Digest)> {
    releases
        .iter()
        .filter_map(|r| {
            let e = &r.entry;
            let first = e
                .seqs
                .other()
                .iter()
                .chain(e.seqs.off_list())
                .fold(e.seq, |a, &b| a.min(b));
            Some((u64::try_from(first).ok()?, e.sent_sha256))
        })
        .collect()
}

/// One index part as a file: a part DIR already holds is named as DIR's file, not held
/// (docs/scale.md#memory); one this build makes is written now into the build's folder of made
/// files (docs/scale.md#made-as-written), or, on a dry run, held.
pub(super) fn put_part(
    out: &mut LayerOutput,
    holds: &mut crate::site_write::dir_record::DirHolds,
    made: Option<&MadeFiles>,
    path: String,
    bytes: Vec<u8>,
    sha256: Digest,
) -> Result<()> {
    let len = bytes.len() as u64;
    // A dry run, which cannot write the part as made, reads DIR's copy to be sure where DIR's
    // record does not describe it (a checkout, a clone): held, the parts were 73 MB at a
    // million lines (docs/scale.md#without-dirs-record-dry-run).
    let held = holds.holding_or_read(&path, sha256, len, made.is_none());
    match (held, made) {
        (Some(file), _) => out.contents.push((path, Content::File(file))),
        (None, Some(made)) => {
            let file = made.put(&path, &bytes)?;
            out.contents.push((path, Content::File(file)));
        }
        (None, None) => out.files.push((path, bytes)),
    }
    Ok(())
}
