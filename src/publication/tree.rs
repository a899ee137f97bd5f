//! The tree view of the chain under `ledger/tree/` (docs/tree.md): hash tiles, entry bundles,
//! the published lines by tile, the digest index and the checkpoint, made from the verified
//! chain. Part of assembling the output tree.
//!
//! Memory (docs/scale.md#memory): a level-0 tile and its bundle are made again from the chain's
//! records when written, not held (66 bytes a seq); a lines file is spans of the gate's ledger;
//! what is held is the tiles above level 0 (one hash in 256) and the index's files.

use std::collections::BTreeMap;
use std::sync::Arc;

use anyhow::{Result, bail};
use exhibit_protocol::Digest;
use exhibit_protocol::tree::{self, Checkpoint, IndexRow, Made, TILE_WIDTH, TreeFile, TreeMaker};

use super::decide::LineRecord;
use super::load::LoadedBox;
use super::tree_carried::{Bound, Known, Runs, TreeFiles};
use crate::previous::Previous;
use crate::published::output_tree::{Content, Remade, Tree};

/// Where the tree's files live in DIR.
pub const TREE_DIR: &str = "ledger/tree/";

/// What STATS.json says of the tree (docs/tree.md#verifiers).
#[derive(Debug, Clone, serde::Serialize)]
pub struct TreeStats {
    /// The verifier key that signs the checkpoint and the snapshot lines.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    pub root: String,
    pub size: u64,
    /// The witnesses whose cosignatures the verifiers count (docs/anchoring.md#cosignatures),
    /// from `[[checkpoint.witness]]`: absent when none is configured.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub witnesses: Vec<crate::published::cosignature::ListedWitness>,
    /// `true` when `excerpts/` is published (docs/tree.md#excerpts): the verifiers then require it.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub excerpts: bool,
}

/// Puts every file of the tree at the chain's size into `out`; returns the checkpoint and what
/// to carry to the next build. The files `carry` names are named by what they were, not made
/// (docs/tree.md#carried).
pub fn put(
    out: &mut Tree,
    chain: &Chain,
    loaded: &LoadedBox,
    origin: &str,
    key: Option<&crate::operator_box::signing::OperatorKey>,
    carry: Option<&Bound>,
) -> Result<(Checkpoint, TreeFiles)> {
    let mut files = TreeFiles {
        size: chain.len() as u64,
        head: chain.head_id(),
        withheld: chain.withheld_seqs(chain.len() as u64),
        ..TreeFiles::default()
    };
    let mut maker = match carry {
        Some(c) => {
            for (n, &(tile, bundle)) in c.files.tiles.iter().enumerate() {
                put_level0(out, chain, loaded, n as u64, (tile, bundle));
                files.tiles.push((tile, bundle));
            }
            TreeMaker::resume(c.files.upper.clone())
        }
        None => TreeMaker::new(),
    };
    for k in maker.size() as usize..chain.len() {
        if let Some(Made::Full(n, tile, bundle)) = maker.push(&chain.ids.entry_id(k)) {
            let made = (Digest::of(&tile), Digest::of(&bundle));
            put_level0(out, chain, loaded, n, made);
            files.tiles.push(made);
        }
    }
    let size = maker.size();
    files.upper = maker.upper().to_vec();
    let finished = maker.finish();
    for (file, bytes) in finished.files {
        out.put(format!("{TREE_DIR}{}", file.path()), bytes);
    }
    let (groups, named_groups) = put_lines(out, chain, loaded, carry)?;
    files.lines = groups;
    let source = line_rows(chain, loaded);
    let (runs, named_runs) = put_index(out, size, source, false, |level, run| {
        let (first, last) = tree::run_seqs(level, run);
        carry
            .filter(|c| c.same_lines(first, last))
            .and_then(|c| c.files.index.get(&(level, run)).cloned())
    })?;
    files.index = runs;
    if carry.is_some() {
        crate::terminal::progress::stage_times::carried(&format!(
            "{} full tiles, {named_groups} lines groups, {named_runs} index runs of the tree",
            carry.map_or(0, Bound::full_tiles)
        ));
    }
    let head_seq = chain.len() as u64;
    let checkpoint = Checkpoint {
        origin: origin.to_string(),
        size,
        root: finished.root,
        head_seq,
        head: chain.head,
        signatures: Vec::new(),
    };
    // Signed by the operator's key when there is one: a C2SP signed note (docs/anchoring.md).
    let bytes = match key {
        Some(k) => k.sign_note(checkpoint.text().as_bytes())?,
        None => checkpoint.text().into_bytes(),
    };
    out.put(format!("{TREE_DIR}checkpoint"), bytes);
    crate::terminal::progress::stage_done("assemble: the tree");
    Ok((checkpoint, files))
}

/// A full level-0 tile and its bundle, of the sha256 `made` (tile, bundle), made again when
/// written from the gate's ledger (the tile's 256 lines are one span of it): nothing of them is
/// held but where they lie, so the per-line records can be let go before the page is made
/// (docs/scale.md#memory).
fn put_level0(out: &mut Tree, chain: &Chain, loaded: &LoadedBox, n: u64, made: (Digest, Digest)) {
    let width = TILE_WIDTH;
    let span = (
        chain.spans.span((n * TILE_WIDTH) as usize).0,
        chain
            .spans
            .span((n * TILE_WIDTH + TILE_WIDTH - 1) as usize)
            .1,
    );
    let make = |as_bundle: bool| {
        let ledger = loaded.ledger.clone();
        move || -> Result<Vec<u8>> {
            let ids = ids_in(&ledger.read(span.0, span.1)?)?;
            Ok(ids
                .iter()
                .flat_map(|id| {
                    if as_bundle {
                        let mut e = vec![0u8, 32];
                        e.extend_from_slice(&id.0);
                        e
                    } else {
                        tree::leaf_hash(&id.0).to_vec()
                    }
                })
                .collect())
        }
    };
    out.put_content(
        format!("{TREE_DIR}{}", TreeFile::Tile { level: 0, n, width }.path()),
        Content::Remade(Remade::known(TILE_WIDTH * 32, made.0, make(false))),
    );
    out.put_content(
        format!("{TREE_DIR}{}", TreeFile::Entries { n, width }.path()),
        Content::Remade(Remade::known(TILE_WIDTH * 34, made.1, make(true))),
    );
}

/// The `entry_id`s the verified lines of a span state, in order.
fn ids_in(bytes: &[u8]) -> Result<Vec<Digest>> {
    // A blank line is no entry (docs/protocol.md#file-format): skipped, as the verifier does.
    bytes
        .split(|&b| b == b'\n')
        .filter(|line| !line.is_empty())
        .map(|line| {
            let parsed = exhibit_protocol::canonical::parse(line)
                .map_err(|e| anyhow::anyhow!("a verified line no longer reads: {e}"))?;
            parsed
                .value
                .as_object()
                .and_then(|o| o.get_str("entry_id"))
                .and_then(|s| s.parse().ok())
                .ok_or_else(|| anyhow::anyhow!("a verified line has no entry_id"))
        })
        .collect()
}

/// `lines/<n>`: the published lines of each group of 256 seqs, as spans of the gate's ledger.
/// A full group that `carry` names, of the same published lines, is named by its sha256; a new
/// full group is hashed (once, here) to be carried. Returns the full groups' sizes and sha256.
fn put_lines(
    out: &mut Tree,
    chain: &Chain,
    loaded: &LoadedBox,
    carry: Option<&Bound>,
) -> Result<(Vec<Known>, usize)> {
    let mut full = Vec::new();
    let mut named = 0;
    let width = TILE_WIDTH as usize;
    for n in 0..chain.len().div_ceil(width) {
        let group = n * width..((n + 1) * width).min(chain.len());
        let mut spans: Vec<(usize, usize)> = Vec::new();
        for k in group.clone().filter(|&k| chain.spans.published(k)) {
            let (start, end) = chain.spans.span(k);
            let end = end + 1;
            match spans.last_mut() {
                Some(last) if last.1 == start => last.1 = end,
                _ => spans.push((start, end)),
            }
        }
        let file = TreeFile::Lines {
            n: n as u64,
            width: group.len() as u64,
        };
        let mut body =
            crate::operator_box::gate_ledger::LedgerSpans::new(loaded.ledger.clone(), spans);
        if group.len() as u64 == TILE_WIDTH {
            let (first, last) = (n as u64 * TILE_WIDTH + 1, (n as u64 + 1) * TILE_WIDTH);
            let was = carry
                .filter(|c| c.same_lines(first, last))
                .and_then(|c| c.files.lines.get(n).copied())
                .filter(|k| k.len == body.len());
            let sha256 = match was {
                Some(k) => {
                    named += 1;
                    k.sha256
                }
                None => body.sha256()?,
            };
            body = body.with_digest(sha256);
            full.push(Known {
                len: body.len(),
                sha256,
            });
        }
        out.put_content(format!("{TREE_DIR}{}", file.path()), Content::Ledger(body));
    }
    Ok((full, named))
}

/// The rows of the seqs `first..=last`, in seq order: made where a run or the tail needs them.
type RowSource = Arc<dyn Fn(u64, u64) -> Result<Vec<IndexRow>> + Send + Sync>;

/// The digest index's rows of the published lines between two seqs (docs/tree.md#index).
/// The source keeps of each line only where it lies in the gate's ledger and whether it is
/// published (9 bytes and a bit, [`LineSpans`]), not the per-line records: the index's files
/// are made again from it when written, after the records are let go, and at a million lines
/// the records are 73 MB that would otherwise stay until DIR is written (docs/scale.md#memory).
fn line_rows(chain: &Chain, loaded: &LoadedBox) -> RowSource {
    let ledger = loaded.ledger.clone();
    let spans = chain.spans.clone();
    Arc::new(move |first, last| {
        let mut rows = Vec::new();
        let (a, b) = (
            (first.max(1) - 1) as usize,
            (last as usize).min(spans.len()),
        );
        let a = a.min(b);
        // Read from the range's first line, not from the ledger's start for every run.
        let mut read = ledger.lines_from(spans.start(a).unwrap_or(0));
        for k in (a..b).filter(|&k| spans.published(k)) {
            let (start, end) = spans.span(k);
            let bytes = read.get(start, end)?;
            rows.extend(tree::rows_of_line(k as u64 + 1, bytes));
        }
        Ok(rows)
    })
}

/// What the tree and the excerpt index read of the verified chain: each line's entry_id (the
/// table of ids the witness layer's lists are named by, once the lines are let go) and where
/// it lies in the gate's ledger, published or not. Taken before the per-line records are let
/// go, ahead of the tree (41 bytes a line where a record is 72: at a million lines the records
/// were on the tree's and the excerpt index's peaks, docs/scale.md#the-chain-read-by-the-tree).
/// Line `k` (0-based) is seq `k + 1` ([`Chain::spans_of`] checks it).
pub struct Chain {
    ids: Arc<dyn crate::published::entry_ids::LineIds>,
    spans: Arc<LineSpans>,
    /// The gate's head (the last line's entry_id, or the header's digest).
    head: Digest,
}

impl Chain {
    /// Where each verified line lies, once the seqs are checked to be the lines' places.
    pub fn spans_of(lines: &[LineRecord], ledger_name: &str) -> Result<LineSpans> {
        for (i, r) in lines.iter().enumerate() {
            if r.seq != i as i64 + 1 {
                bail!(
                    "{ledger_name}: the verified chain's line {} has seq {} where {} was expected; this is exhibit's fault: please report it",
                    i + 1,
                    r.seq,
                    i + 1
                );
            }
        }
        Ok(LineSpans::of(lines))
    }

    /// The chain read by `ids` (as many lines as `spans`), whose head is `head`.
    pub fn new(
        ids: Arc<dyn crate::published::entry_ids::LineIds>,
        spans: LineSpans,
        head: Digest,
    ) -> Result<Chain> {
        if ids.count() != spans.len() {
            bail!(
                "the chain's ids name {} lines and its spans {}; this is exhibit's fault: please report it",
                ids.count(),
                spans.len()
            );
        }
        Ok(Chain {
            ids,
            spans: Arc::new(spans),
            head,
        })
    }

    pub fn len(&self) -> usize {
        self.spans.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Line `k`'s entry_id.
    pub fn entry_id(&self, k: usize) -> Digest {
        self.ids.entry_id(k)
    }

    /// The last line's entry_id (zero when there is none), as the tree's state records it.
    fn head_id(&self) -> Digest {
        match self.len() {
            0 => Digest([0; 32]),
            n => self.ids.entry_id(n - 1),
        }
    }

    pub fn published(&self, k: usize) -> bool {
        self.spans.published(k)
    }

    /// The seqs up to `size` whose lines are not published, ascending.
    pub fn withheld_seqs(&self, size: u64) -> Vec<u64> {
        (0..(size as usize).min(self.len()))
            .filter(|&k| !self.published(k))
            .map(|k| k as u64 + 1)
            .collect()
    }
}

/// Where each line of the chain lies in the gate's ledger, and which are published: what the
/// digest index's rows are read by ([`line_rows`]), line `k` (0-based) being seq `k + 1`
/// (checked by [`Chain::spans_of`]).
pub struct LineSpans {
    /// Each line's start and length without its LF (9 bytes a line, unaligned).
    spans: Vec<(crate::publication::record_fields::Offset, [u8; 4])>,
    /// Bit `k` set: line `k` is withheld.
    withheld: Vec<u64>,
}

impl LineSpans {
    fn of(lines: &[LineRecord]) -> LineSpans {
        let mut withheld = vec![0u64; lines.len().div_ceil(64)];
        for (k, r) in lines.iter().enumerate() {
            if !r.published() {
                withheld[k / 64] |= 1 << (k % 64);
            }
        }
        LineSpans {
            spans: lines
                .iter()
                .map(|r| (r.offset, r.len.to_le_bytes()))
                .collect(),
            withheld,
        }
    }

    fn len(&self) -> usize {
        self.spans.len()
    }

    fn start(&self, k: usize) -> Option<usize> {
        self.spans.get(k).map(|(at, _)| at.get() as usize)
    }

    fn span(&self, k: usize) -> (usize, usize) {
        let (at, len) = self.spans[k];
        (
            at.get() as usize,
            at.get() as usize + u32::from_le_bytes(len) as usize,
        )
    }

    fn published(&self, k: usize) -> bool {
        self.withheld[k / 64] & (1 << (k % 64)) == 0
    }
}

/// The digest index (docs/tree.md#index), or with `excerpts` the excerpt index
/// (docs/tree.md#excerpts), at `size`: each run's buckets named by what `was` gives for the run
/// (its buckets' sizes and sha256, from the state carried), else made from `source`'s rows and
/// hashed; either way made again from `source` when written, one run's sorted rows at a time,
/// not held (at a million lines they are 72 MB over three levels: docs/scale.md#memory).
/// Returns every run's buckets, to be carried, and how many runs were named by `was`.
fn put_index(
    out: &mut Tree,
    size: u64,
    source: RowSource,
    excerpts: bool,
    was: impl Fn(u8, u64) -> Option<Vec<Known>>,
) -> Result<(Runs, usize)> {
    let place = move |file: TreeFile| match file {
        TreeFile::IndexBucket { level, run, prefix } if excerpts => {
            TreeFile::ExcerptBucket { level, run, prefix }
        }
        TreeFile::IndexTail { block, width } if excerpts => TreeFile::ExcerptTail { block, width },
        other => other,
    };
    let memo = Arc::new(RunMemo {
        source: source.clone(),
        run: std::sync::Mutex::new(None),
    });
    let mut runs = Runs::new();
    let mut named = 0;
    for (level, run) in tree::index_runs(size) {
        let buckets = match was(level, run).filter(|b| b.len() as u64 == tree::run_buckets(level)) {
            Some(b) => {
                named += 1;
                b
            }
            None => {
                let sorted = memo.sorted(level, run)?;
                (0..tree::run_buckets(level))
                    .map(|prefix| {
                        let bytes = tree::bucket_bytes(&sorted, level, prefix);
                        Known {
                            len: bytes.len() as u64,
                            sha256: Digest::of(&bytes),
                        }
                    })
                    .collect()
            }
        };
        for (prefix, k) in (0..).zip(&buckets) {
            let memo = memo.clone();
            let made = Remade::known(k.len, k.sha256, move || {
                Ok(tree::bucket_bytes(&memo.sorted(level, run)?, level, prefix))
            });
            let file = place(TreeFile::IndexBucket { level, run, prefix });
            out.put_content(format!("{TREE_DIR}{}", file.path()), Content::Remade(made));
        }
        runs.insert((level, run), buckets);
    }
    let tail_first = size / tree::INDEX_BLOCK * tree::INDEX_BLOCK + 1;
    if tail_first <= size {
        let rows = source(tail_first, size)?;
        if let Some((file, bytes)) = tree::index_tail(size, &rows) {
            out.put(format!("{TREE_DIR}{}", place(file).path()), bytes);
        }
    }
    Ok((runs, named))
}

/// Where the released texts are in DIR.
const TEXTS_DIR: &str = "ledger/public_texts/";

/// The excerpt index (docs/tree.md#excerpts), from the released texts `out` holds, never from
/// another text: each text's rows are filed at the first published send line that carries its
/// digest as `sent_sha256` (the line `exhibit verify SITE` finds for it). `first_seqs` gives
/// that seq for the texts the public texts layer released (from the lines it classified); a
/// text it does not name sends the build through every published line to find it. A run
/// whose pairs (seq, text) are those `carry` names for it is named by what it was.
pub fn put_excerpts(
    out: &mut Tree,
    chain: &Chain,
    loaded: &LoadedBox,
    first_seqs: Vec<(u64, Digest)>,
    carry: Option<&Bound>,
    files: &mut TreeFiles,
) -> Result<()> {
    // The lists below are made from each other in the room of the one before (collected in
    // place) and let go as soon as read: at a million lines each is 5 to 7 MB, on the
    // assemble stage's peak (docs/scale.md#memory).
    let mut texts: Vec<Digest> = out
        .iter_under(TEXTS_DIR)
        .filter_map(|(p, _)| {
            p.strip_prefix(TEXTS_DIR)?
                .strip_suffix(".txt")?
                .parse()
                .ok()
        })
        .collect();
    texts.sort_unstable();
    texts.dedup();
    let mut named: Vec<(Digest, u64)> = first_seqs.into_iter().map(|(s, d)| (d, s)).collect();
    named.sort_unstable();
    let every_text_named = texts
        .iter()
        .all(|d| named.binary_search_by(|(n, _)| n.cmp(d)).is_ok());
    let mut pairs: Vec<(u64, Digest)> = if every_text_named {
        named
            .into_iter()
            .filter(|(d, _)| texts.binary_search(d).is_ok())
            .map(|(d, s)| (s, d))
            .collect()
    } else {
        drop(named);
        first_lines(&texts, chain, loaded)?
    };
    drop(texts);
    pairs.sort_unstable();
    let mut held = HeldTexts {
        texts: Vec::with_capacity(pairs.len()),
        folder: None,
    };
    for (seq, digest) in pairs {
        let path = format!("{TEXTS_DIR}{digest}.txt");
        if let Some(c) = out.entry(&path) {
            held.push(seq, digest, c.into_owned());
        }
    }
    held.texts.shrink_to_fit();
    let held = Arc::new(held);
    let size = chain.len() as u64;
    // Each run's pairs (seq, text digest), hashed once: what a carried run must have been made of.
    let signatures: BTreeMap<(u8, u64), Digest> = tree::index_runs(size)
        .into_iter()
        .map(|(level, run)| {
            let (first, last) = tree::run_seqs(level, run);
            let mut h = Vec::new();
            for (seq, d, _) in held.between(first, last) {
                h.extend_from_slice(&seq.to_be_bytes());
                h.extend_from_slice(&d.0);
            }
            ((level, run), Digest::of(&h))
        })
        .collect();
    let (runs, named) = put_index(out, size, text_rows(held.clone()), true, |level, run| {
        carry
            .and_then(|c| c.files.excerpts.get(&(level, run)))
            .filter(|(s, _)| Some(s) == signatures.get(&(level, run)))
            .map(|(_, b)| b.clone())
    })?;
    if carry.is_some() {
        crate::terminal::progress::stage_times::carried(&format!(
            "{named} excerpt runs of the tree"
        ));
    }
    files.excerpts = runs
        .into_iter()
        .filter_map(|(k, b)| Some((k, (*signatures.get(&k)?, b))))
        .collect();
    // The text map names each candidate's text before its line is read (docs/tree.md#text-map):
    // 40 bytes a released text, made every build from the pairs alone (no text is read).
    let pairs: Vec<(u64, Digest)> = held.texts.iter().map(|(s, d, _)| (*s, *d)).collect();
    exhibit_protocol::excerpt::text_map_files(size, &pairs, |file, bytes| {
        out.put(format!("{TREE_DIR}{}", file.path()), bytes);
    });
    crate::terminal::progress::stage_done("assemble: the excerpt index");
    Ok(())
}

/// The released texts (seq, digest, file) with their seq: the excerpt rows of those between two
/// seqs, each text read when its run is made.
fn text_rows(held: Arc<HeldTexts>) -> RowSource {
    Arc::new(move |first, last| {
        let mut rows = Vec::new();
        for (seq, digest, at) in held.between(first, last) {
            // A released text is UTF-8 (docs/public-texts.md); one that is not has no words.
            if let Ok(text) = std::str::from_utf8(&held.content(*digest, at)?.bytes()?) {
                rows.extend(exhibit_protocol::excerpt::rows_of_text(*seq, text));
            }
        }
        rows.sort_by_key(|r| r.seq);
        Ok(rows)
    })
}

/// The released texts the excerpt index is made from, sorted by seq: each with its seq, its
/// digest and where its bytes are read again. Held until DIR is written (the index's files are
/// made again then), so a text of DIR's folder, named by its digest and of that sha256 (every
/// text a daily build already published), is kept as its size alone, its folder once for all:
/// 56 bytes a text, where a whole file entry was 160 (at a million lines 27 MB:
/// docs/scale.md#memory).
struct HeldTexts {
    texts: Vec<(u64, Digest, TextAt)>,
    /// The folder and class of the texts kept by size.
    folder: Option<(Arc<std::path::Path>, crate::operator_box::read::FileClass)>,
}

/// Where a released text's bytes are: a file of [`HeldTexts`]' folder of this size, or anything
/// else, as the tree held it.
enum TextAt {
    Folder(u64),
    Other(Box<Content>),
}

impl HeldTexts {
    fn push(&mut self, seq: u64, digest: Digest, content: Content) {
        use crate::published::output_tree::FileName;
        let at = match content {
            Content::File(f)
                if f.name == FileName::PublicText(digest.0)
                    && f.sha256 == Some(digest)
                    && f.head.is_none()
                    && {
                        let (folder, class) = self
                            .folder
                            .get_or_insert_with(|| (f.folder.clone(), f.class));
                        *folder == f.folder && *class == f.class
                    } =>
            {
                TextAt::Folder(f.len)
            }
            other => TextAt::Other(Box::new(other)),
        };
        self.texts.push((seq, digest, at));
    }

    /// The text's file, as the tree held it.
    fn content(&self, digest: Digest, at: &TextAt) -> Result<Content> {
        match (at, &self.folder) {
            (TextAt::Folder(len), Some((folder, class))) => {
                Ok(Content::File(crate::published::output_tree::DiskFile {
                    folder: folder.clone(),
                    name: crate::published::output_tree::FileName::PublicText(digest.0),
                    class: *class,
                    len: *len,
                    sha256: Some(digest),
                    head: None,
                    head_len: 0,
                }))
            }
            (TextAt::Other(content), _) => Ok((**content).clone()),
            // Kept by size only once the folder is set ([`HeldTexts::push`]).
            (TextAt::Folder(_), None) => bail!(
                "the released text {digest} was kept without its folder; this is exhibit's fault: please report it"
            ),
        }
    }

    /// The texts whose seq lies in `first..=last`.
    fn between(&self, first: u64, last: u64) -> &[(u64, Digest, TextAt)] {
        let lo = self.texts.partition_point(|t| t.0 < first);
        let hi = self.texts.partition_point(|t| t.0 <= last);
        &self.texts[lo..hi]
    }
}

/// Each text's first published send line, found by reading every published line.
fn first_lines(texts: &[Digest], chain: &Chain, loaded: &LoadedBox) -> Result<Vec<(u64, Digest)>> {
    let mut first: Vec<Option<u64>> = vec![None; texts.len()];
    if !texts.is_empty() {
        let mut read = loaded.ledger.lines(false);
        for k in (0..chain.len()).filter(|&k| chain.published(k)) {
            let (start, end) = chain.spans.span(k);
            let bytes = read.get(start, end)?;
            if let Some(at) = sent_text(bytes).and_then(|d| texts.binary_search(&d).ok()) {
                first[at].get_or_insert(k as u64 + 1);
            }
        }
    }
    Ok(texts
        .iter()
        .zip(first)
        .filter_map(|(d, s)| Some((s?, *d)))
        .collect())
}

/// The `sent_sha256` of a `kind: send` line.
fn sent_text(bytes: &[u8]) -> Option<Digest> {
    let parsed = exhibit_protocol::canonical::parse(bytes).ok()?;
    let o = parsed.value.as_object()?;
    if o.get_str("kind") != Some("send") {
        return None;
    }
    o.get_str("sent_sha256")?.parse().ok()
}

/// The rows of one run at a time, sorted by bytes: a run's buckets are written one after
/// another.
struct RunMemo {
    source: RowSource,
    run: std::sync::Mutex<Option<SortedRun>>,
}

/// A run `(level, number)` and its rows sorted by bytes.
type SortedRun = ((u8, u64), Arc<Vec<IndexRow>>);

impl RunMemo {
    fn sorted(&self, level: u8, run: u64) -> Result<Arc<Vec<IndexRow>>> {
        let mut held = self
            .run
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some((key, rows)) = held.as_ref()
            && *key == (level, run)
        {
            return Ok(rows.clone());
        }
        let (first, last) = tree::run_seqs(level, run);
        let rows = Arc::new(tree::run_rows(&(self.source)(first, last)?, level, run));
        *held = Some(((level, run), rows.clone()));
        Ok(rows)
    }
}

/// The log's origin (docs/tree.md#checkpoint): `[publish] origin`, else HEAD's checkpoint's,
/// else the GitHub Pages address of the repository's `origin` remote, else one derived from the
/// header digest.
pub fn origin(configured: Option<&str>, previous: &Previous, header: &Digest) -> Result<String> {
    if let Some(o) = configured {
        return Ok(o.to_string());
    }
    if let Some(bytes) = previous.read(&format!("{TREE_DIR}checkpoint"))?
        && let Ok(c) = Checkpoint::parse(&bytes)
    {
        return Ok(c.origin);
    }
    if let Some(o) = previous.git_dir().and_then(github_pages_address) {
        return Ok(o);
    }
    Ok(format!("exhibit/{}", &header.to_string()[..16]))
}

/// A refusal when the configured origin (or the key's name) is not HEAD's checkpoint's: a log
/// is known by its origin, so a new one is a rewrite (docs/tree.md#checkpoint).
pub fn origin_changed(
    plan: &super::BuildPlan,
    previous: &Previous,
) -> Result<Option<crate::terminal::refusal::Refusal>> {
    let configured = plan
        .config
        .origin
        .as_deref()
        .or(plan.key.as_deref().map(|k| k.name.as_str()));
    let Some(configured) = configured else {
        return Ok(None);
    };
    let Some(bytes) = previous.read(&format!("{TREE_DIR}checkpoint"))? else {
        return Ok(None);
    };
    let Ok(head) = Checkpoint::parse(&bytes) else {
        return Ok(None);
    };
    Ok((head.origin != configured).then(|| {
        crate::terminal::refusal::Refusal::new(
            "origin_changed",
            plan.config.file.display().to_string(),
            "[checkpoint]",
            format!(
                "the log's origin would change from {:?} (HEAD's checkpoint) to {configured:?}: visitors and witnesses know a log by its origin",
                head.origin
            ),
            "keep the origin (and the key's name); or `--allow-rewrite REASON` to start a new log (recorded)",
        )
    }))
}

/// `<owner>.github.io/<repo>` for a repository whose remote `origin` is on github.com.
fn github_pages_address(git_dir: &std::path::Path) -> Option<String> {
    let repo = git2::Repository::open(git_dir).ok()?;
    let remote = repo.find_remote("origin").ok()?;
    let url = remote.url().ok()?;
    let rest = url
        .strip_prefix("https://github.com/")
        .or_else(|| url.strip_prefix("git@github.com:"))
        .or_else(|| url.strip_prefix("ssh://git@github.com/"))?;
    let rest = rest.trim_end_matches('/');
    let rest = rest.strip_suffix(".git").unwrap_or(rest);
    let (owner, name) = rest.split_once('/')?;
    let plain = |s: &str| {
        !s.is_empty()
            && s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
    };
    if !plain(owner) || !plain(name) {
        return None;
    }
    let owner = owner.to_ascii_lowercase();
    if name.eq_ignore_ascii_case(&format!("{owner}.github.io")) {
        return Some(format!("{owner}.github.io"));
    }
    Some(format!("{owner}.github.io/{name}"))
}

/// An origin a build may publish: one line of printable text, at most 255 bytes, that passes
/// the identifier guard (it is published; docs/guard.md).
pub fn check_origin(origin: &str) -> Result<(), String> {
    if origin.is_empty() || origin.len() > 255 || origin.chars().any(char::is_control) {
        return Err("an origin is one line of printable text, 1 to 255 bytes".into());
    }
    if origin.contains('\u{2014}') {
        return Err(
            "an origin may not hold an em dash (signed notes start their signature lines with one)"
                .into(),
        );
    }
    let codes: Vec<&str> =
        exhibit_protocol::guard::scan(origin, exhibit_protocol::guard::Context::PublicText)
            .into_iter()
            .map(exhibit_protocol::guard::Finding::code)
            .collect();
    if !codes.is_empty() {
        return Err(format!(
            "it trips the identifier guard ({}; docs/guard.md)",
            codes.join(", ")
        ));
    }
    Ok(())
}

/// The checkpoint's figures for STATS.json.
pub fn stats(
    c: &Checkpoint,
    key: Option<&crate::operator_box::signing::OperatorKey>,
    witnesses: &[crate::publication::config::Witness],
) -> TreeStats {
    TreeStats {
        key: key.map(|k| k.vkey.clone()),
        root: Digest(c.root).to_string(),
        size: c.size,
        witnesses: witnesses
            .iter()
            .map(|w| crate::published::cosignature::ListedWitness {
                name: w.name.clone(),
                key: w.key.clone(),
            })
            .collect(),
        excerpts: false,
    }
}
