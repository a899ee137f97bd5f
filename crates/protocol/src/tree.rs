//! The chain as a Merkle tree, published as C2SP tlog-tiles (docs/tree.md): leaf hashes, the
//! names of the tree's files at a size, the bytes of each, and the checkpoint. Pure: the build,
//! `exhibit verify SITE` and `exhibit prove` feed it leaves and bytes and compare what it makes.
//!
//! The Merkle arithmetic of proofs (which stored hashes a proof needs, and checking one) is the
//! `tlog_tiles` crate's, a port of Go's `tlog` that Certificate Transparency logs run on; what is
//! exhibit's own is the layout (C2SP paths, `lines/`, the digest index) and the streaming maker,
//! which holds one tile of leaves, not the tree.

use crate::Digest;
use sha2::{Digest as _, Sha256};

/// A tile holds 2^8 hashes (tlog-tiles fixes the height at 8).
pub const TILE_WIDTH: u64 = 256;
/// Seqs in one block of the digest index (docs/tree.md#index).
pub const INDEX_BLOCK: u64 = 1024;
/// The fields whose digests the index lists (docs/tree.md#index).
pub const INDEX_FIELDS: [&str; 4] = [
    "sent_sha256",
    "checked_sha256",
    "stripped_sha256",
    "draft_sha256",
];

pub type Hash = [u8; 32];

/// RFC 6962's leaf hash of an entry: SHA-256(0x00 ‖ entry).
pub fn leaf_hash(entry: &[u8; 32]) -> Hash {
    let mut h = Sha256::new();
    h.update([0u8]);
    h.update(entry);
    h.finalize().into()
}

/// RFC 6962's interior node: SHA-256(0x01 ‖ left ‖ right).
pub fn node_hash(left: &Hash, right: &Hash) -> Hash {
    let mut h = Sha256::new();
    h.update([1u8]);
    h.update(left);
    h.update(right);
    h.finalize().into()
}

/// The root of the empty tree: SHA-256 of nothing.
pub fn empty_root() -> Hash {
    Sha256::digest([]).into()
}

/// RFC 6962's Merkle tree hash of a list of leaf (or subtree) hashes, of any length ≥ 1; the
/// empty list gives the empty root.
pub fn root_of(hashes: &[Hash]) -> Hash {
    match hashes.len() {
        0 => empty_root(),
        1 => hashes[0],
        n => {
            let k = largest_power_of_two_below(n as u64) as usize;
            node_hash(&root_of(&hashes[..k]), &root_of(&hashes[k..]))
        }
    }
}

/// The largest power of two strictly below `n` (n ≥ 2).
fn largest_power_of_two_below(n: u64) -> u64 {
    1u64 << (63 - (n - 1).leading_zeros())
}

/// A tile number as tlog-tiles writes it: groups of three digits, all but the last prefixed
/// with `x` (1234067 → `x001/x234/067`).
pub fn tile_number(n: u64) -> String {
    let mut s = format!("{:03}", n % 1000);
    let mut rest = n / 1000;
    while rest > 0 {
        s = format!("x{:03}/{s}", rest % 1000);
        rest /= 1000;
    }
    s
}

/// `<N>` or `<N>.p/<W>`: a full tile's number has no width.
fn numbered(n: u64, width: u64) -> String {
    if width == TILE_WIDTH {
        tile_number(n)
    } else {
        format!("{}.p/{width}", tile_number(n))
    }
}

/// A file of the tree, by its place (docs/tree.md#layout).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum TreeFile {
    Checkpoint,
    /// Hash tile `tile/<level>/<n>[.p/<width>]`.
    Tile {
        level: u8,
        n: u64,
        width: u64,
    },
    /// Entry bundle `tile/entries/<n>[.p/<width>]`.
    Entries {
        n: u64,
        width: u64,
    },
    /// The published lines of level-0 tile `n`: `lines/<n>[.p/<width>]`.
    Lines {
        n: u64,
        width: u64,
    },
    /// Index run bucket `index/<level>/<run>/<prefix>`; `prefix` holds level+1 hex digits.
    IndexBucket {
        level: u8,
        run: u64,
        prefix: u64,
    },
    /// The index's last, partial block: `index/tail/<block>.p/<width>`.
    IndexTail {
        block: u64,
        width: u64,
    },
    /// Excerpt index run bucket `excerpts/<level>/<run>/<prefix>` (docs/tree.md#excerpts).
    ExcerptBucket {
        level: u8,
        run: u64,
        prefix: u64,
    },
    /// The excerpt index's last, partial block: `excerpts/tail/<block>.p/<width>`.
    ExcerptTail {
        block: u64,
        width: u64,
    },
    /// The excerpt index's text map of block `block` (docs/tree.md#text-map):
    /// `excerpts/texts/<block>`, or `excerpts/texts/<block>.p/<width>` for the last, partial one.
    ExcerptTexts {
        block: u64,
        width: u64,
    },
}

impl TreeFile {
    /// The path relative to `ledger/tree/`.
    pub fn path(&self) -> String {
        match *self {
            TreeFile::Checkpoint => "checkpoint".to_string(),
            TreeFile::Tile { level, n, width } => format!("tile/{level}/{}", numbered(n, width)),
            TreeFile::Entries { n, width } => format!("tile/entries/{}", numbered(n, width)),
            TreeFile::Lines { n, width } => format!("lines/{}", numbered(n, width)),
            TreeFile::IndexBucket { level, run, prefix } => {
                format!(
                    "index/{level}/{run}/{prefix:0w$x}",
                    w = usize::from(level) + 1
                )
            }
            TreeFile::IndexTail { block, width } => format!("index/tail/{block}.p/{width}"),
            TreeFile::ExcerptBucket { level, run, prefix } => {
                format!(
                    "excerpts/{level}/{run}/{prefix:0w$x}",
                    w = usize::from(level) + 1
                )
            }
            TreeFile::ExcerptTail { block, width } => {
                format!("excerpts/tail/{block}.p/{width}")
            }
            TreeFile::ExcerptTexts { block, width } if width == INDEX_BLOCK => {
                format!("excerpts/texts/{block}")
            }
            TreeFile::ExcerptTexts { block, width } => {
                format!("excerpts/texts/{block}.p/{width}")
            }
        }
    }

    /// The file a path names, when the layout has such a name: one name per file (`5` is not
    /// `005`; a `.p/256` or `.p/0` is no tile's).
    pub fn parse(rel: &str) -> Option<TreeFile> {
        if rel == "checkpoint" {
            return Some(TreeFile::Checkpoint);
        }
        if let Some(rest) = rel.strip_prefix("tile/entries/") {
            let (n, width) = parse_numbered(rest)?;
            return Some(TreeFile::Entries { n, width });
        }
        if let Some(rest) = rel.strip_prefix("tile/") {
            let (level, rest) = rest.split_once('/')?;
            let level = parse_decimal(level).filter(|&l| l < 8)?;
            let (n, width) = parse_numbered(rest)?;
            return Some(TreeFile::Tile {
                level: level as u8,
                n,
                width,
            });
        }
        if let Some(rest) = rel.strip_prefix("lines/") {
            let (n, width) = parse_numbered(rest)?;
            return Some(TreeFile::Lines { n, width });
        }
        if let Some(rest) = rel.strip_prefix("excerpts/texts/") {
            let (block, width) = match rest.split_once(".p/") {
                Some((b, w)) => (
                    b,
                    parse_decimal(w).filter(|w| (1..INDEX_BLOCK).contains(w))?,
                ),
                None => (rest, INDEX_BLOCK),
            };
            let block = parse_decimal(block)?;
            return Some(TreeFile::ExcerptTexts { block, width });
        }
        if let Some(rest) = rel.strip_prefix("excerpts/") {
            return match TreeFile::parse(&format!("index/{rest}"))? {
                TreeFile::IndexBucket { level, run, prefix } => {
                    Some(TreeFile::ExcerptBucket { level, run, prefix })
                }
                TreeFile::IndexTail { block, width } => {
                    Some(TreeFile::ExcerptTail { block, width })
                }
                _ => None,
            };
        }
        if let Some(rest) = rel.strip_prefix("index/tail/") {
            let (block, width) = rest.split_once(".p/")?;
            let block = parse_decimal(block)?;
            let width = parse_decimal(width).filter(|w| (1..INDEX_BLOCK).contains(w))?;
            return Some(TreeFile::IndexTail { block, width });
        }
        if let Some(rest) = rel.strip_prefix("index/") {
            let mut parts = rest.split('/');
            let level = parse_decimal(parts.next()?).filter(|&l| l < 15)? as u8;
            let run = parse_decimal(parts.next()?)?;
            let prefix = parts.next()?;
            if parts.next().is_some()
                || prefix.len() != usize::from(level) + 1
                || !prefix
                    .bytes()
                    .all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
            {
                return None;
            }
            let prefix = u64::from_str_radix(prefix, 16).ok()?;
            return Some(TreeFile::IndexBucket { level, run, prefix });
        }
        None
    }
}

/// A decimal number without a leading zero (but `0` itself).
fn parse_decimal(s: &str) -> Option<u64> {
    if s.is_empty() || s.len() > 19 || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    if s.len() > 1 && s.starts_with('0') {
        return None;
    }
    s.parse().ok()
}

/// `x001/x234/067[.p/W]` → (1234067, W or 256).
fn parse_numbered(s: &str) -> Option<(u64, u64)> {
    let (num, width) = match s.split_once(".p/") {
        Some((num, w)) => (
            num,
            parse_decimal(w).filter(|w| (1..TILE_WIDTH).contains(w))?,
        ),
        None => (s, TILE_WIDTH),
    };
    let groups: Vec<&str> = num.split('/').collect();
    let (last, upper) = groups.split_last()?;
    if groups.len() > 7 {
        return None;
    }
    let mut n: u64 = 0;
    for (i, g) in upper.iter().enumerate() {
        let digits = g.strip_prefix('x')?;
        if digits.len() != 3 || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        // The first group is never x000: one name per number.
        if i == 0 && digits == "000" {
            return None;
        }
        n = n
            .checked_mul(1000)?
            .checked_add(digits.parse::<u64>().ok()?)?;
    }
    if last.len() != 3 || !last.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    n = n
        .checked_mul(1000)?
        .checked_add(last.parse::<u64>().ok()?)?;
    Some((n, width))
}

/// Every file of the tree at `size` leaves, in no particular order (docs/tree.md#layout).
pub fn files_at(size: u64) -> Vec<TreeFile> {
    let mut out = vec![TreeFile::Checkpoint];
    let mut level = 0u8;
    loop {
        let m = size >> (8 * u32::from(level));
        if m == 0 {
            break;
        }
        for n in 0..m / TILE_WIDTH {
            out.push(TreeFile::Tile {
                level,
                n,
                width: TILE_WIDTH,
            });
        }
        if !m.is_multiple_of(TILE_WIDTH) {
            out.push(TreeFile::Tile {
                level,
                n: m / TILE_WIDTH,
                width: m % TILE_WIDTH,
            });
        }
        level += 1;
    }
    for n in 0..size.div_ceil(TILE_WIDTH) {
        let width = (size - n * TILE_WIDTH).min(TILE_WIDTH);
        out.push(TreeFile::Entries { n, width });
        out.push(TreeFile::Lines { n, width });
    }
    for (level, run) in index_runs(size) {
        for prefix in 0..16u64.pow(u32::from(level) + 1) {
            out.push(TreeFile::IndexBucket { level, run, prefix });
        }
    }
    if !size.is_multiple_of(INDEX_BLOCK) {
        out.push(TreeFile::IndexTail {
            block: size / INDEX_BLOCK,
            width: size % INDEX_BLOCK,
        });
    }
    out
}

/// Blocks a run of `level` covers.
fn run_blocks(level: u8) -> u64 {
    16u64.pow(u32::from(level))
}

/// The first and last seq a run `(level, run)` covers.
pub fn run_seqs(level: u8, run: u64) -> (u64, u64) {
    let span = run_blocks(level) * INDEX_BLOCK;
    (run * span + 1, (run + 1) * span)
}

/// Every index run `(level, run)` complete at `size`.
pub fn index_runs(size: u64) -> Vec<(u8, u64)> {
    let blocks = size / INDEX_BLOCK;
    let mut out = Vec::new();
    let mut level = 0u8;
    while run_blocks(level) <= blocks {
        for run in 0..blocks / run_blocks(level) {
            out.push((level, run));
        }
        level += 1;
    }
    out
}

/// The files a lookup of a digest at `size` reads: the largest runs that cover the whole
/// blocks, from the highest level down, one bucket each, then the tail (docs/tree.md#index).
pub fn index_lookup(size: u64, digest: &Digest) -> Vec<TreeFile> {
    let blocks = size / INDEX_BLOCK;
    let mut level = 0u8;
    while run_blocks(level + 1) <= blocks {
        level += 1;
    }
    let mut out = Vec::new();
    let mut start = 0u64;
    loop {
        let span = run_blocks(level);
        while start + span <= blocks {
            out.push(TreeFile::IndexBucket {
                level,
                run: start / span,
                prefix: prefix_of(digest, level),
            });
            start += span;
        }
        if level == 0 {
            break;
        }
        level -= 1;
    }
    if !size.is_multiple_of(INDEX_BLOCK) {
        out.push(TreeFile::IndexTail {
            block: blocks,
            width: size % INDEX_BLOCK,
        });
    }
    out
}

/// The first `level + 1` hex digits of a digest, as a number.
fn prefix_of(digest: &Digest, level: u8) -> u64 {
    let top = u64::from_be_bytes(first8(&digest.0));
    top >> (64 - 4 * (u32::from(level) + 1))
}

fn first8(b: &[u8; 32]) -> [u8; 8] {
    [b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]
}

/// One row of an index: the digest's first 8 bytes, then 8 bytes big-endian of `ctx << 32 |
/// seq` (docs/tree.md#index). The digest index's `ctx` is 0, so its row is the prefix and the
/// seq; the excerpt index's is a shingle's 2-word contexts and its seq is under 2^32
/// (docs/tree.md#excerpts). Field order is byte order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct IndexRow {
    pub prefix: u64,
    pub ctx: u32,
    pub seq: u64,
}

impl IndexRow {
    pub fn new(digest: &Digest, seq: u64) -> IndexRow {
        IndexRow {
            prefix: u64::from_be_bytes(first8(&digest.0)),
            ctx: 0,
            seq,
        }
    }
}

/// The rows of one line: each distinct digest of [`INDEX_FIELDS`] it holds as 64 lowercase hex.
pub fn line_rows(seq: u64, mut field: impl FnMut(&str) -> Option<Digest>) -> Vec<IndexRow> {
    let mut digests: Vec<Digest> = INDEX_FIELDS.iter().filter_map(|f| field(f)).collect();
    digests.sort();
    digests.dedup();
    digests.iter().map(|d| IndexRow::new(d, seq)).collect()
}

/// The rows of a published line's bytes (without its LF): the top-level [`INDEX_FIELDS`] whose
/// value is a string of 64 lowercase hex. A line that does not read as JSON has none (the
/// verifier has already said why).
pub fn rows_of_line(seq: u64, bytes: &[u8]) -> Vec<IndexRow> {
    let Ok(parsed) = crate::canonical::parse(bytes) else {
        return Vec::new();
    };
    let Some(object) = parsed.value.as_object() else {
        return Vec::new();
    };
    line_rows(seq, |field| {
        let s = object.get_str(field)?;
        (s.len() == 64 && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')))
            .then(|| s.parse().ok())
            .flatten()
    })
}

/// A published line's `seq`, when it reads as an object with an integer seq ≥ 1.
pub fn line_seq(bytes: &[u8]) -> Option<u64> {
    let parsed = crate::canonical::parse(bytes).ok()?;
    let seq = parsed.value.as_object()?.get_int("seq")?;
    u64::try_from(seq).ok().filter(|&s| s >= 1)
}

/// A line's `entry_id` re-derived (docs/protocol.md#chain): the line must be the canonical
/// dump of an admitted object with no key written twice, and state the `entry_id` its core
/// hashes to. The error says which rule it breaks.
pub fn line_entry_id(bytes: &[u8]) -> Result<Digest, String> {
    let parsed =
        crate::canonical::parse(bytes).map_err(|e| format!("the line is not JSON: {e}"))?;
    if let Some(k) = parsed.duplicate_key {
        return Err(format!("the line writes the key {k:?} twice"));
    }
    if let Some(why) = parsed.not_admitted {
        return Err(format!(
            "the line holds a value the canonical form does not admit ({why})"
        ));
    }
    let object = parsed
        .value
        .as_object()
        .ok_or_else(|| "the line is not a JSON object".to_string())?;
    let mut dump = Vec::with_capacity(bytes.len());
    let range = crate::canonical::dump_entry(object, &mut dump)
        .map_err(|e| format!("the line cannot be canonicalised ({e})"))?
        .ok_or_else(|| "the line has no entry_id".to_string())?;
    if dump != bytes {
        return Err(
            "the line is not written in the canonical form (docs/protocol.md#canonical-form)"
                .into(),
        );
    }
    let mut core = dump[..range.start].to_vec();
    core.extend_from_slice(&dump[range.end..]);
    let id = Digest::of(&core);
    match object.get_str("entry_id").map(str::parse::<Digest>) {
        Some(Ok(stated)) if stated == id => Ok(id),
        _ => Err(format!(
            "the line's entry_id is not the sha256 of its core ({id})"
        )),
    }
}

/// The [`INDEX_FIELDS`] of a line whose value is this digest, as 64 lowercase hex.
pub fn matching_fields(bytes: &[u8], digest: &Digest) -> Vec<&'static str> {
    let Ok(parsed) = crate::canonical::parse(bytes) else {
        return Vec::new();
    };
    let Some(object) = parsed.value.as_object() else {
        return Vec::new();
    };
    let hex = digest.to_string();
    INDEX_FIELDS
        .iter()
        .copied()
        .filter(|f| object.get_str(f) == Some(hex.as_str()))
        .collect()
}

/// The rows whose seq lies in `first..=last` (rows sorted by seq), sorted by bytes.
fn rows_between(rows: &[IndexRow], first: u64, last: u64) -> Vec<IndexRow> {
    let lo = rows.partition_point(|r| r.seq < first);
    let hi = rows.partition_point(|r| r.seq <= last);
    let mut out = rows[lo..hi].to_vec();
    out.sort();
    out
}

fn row_bytes(rows: &[IndexRow]) -> Vec<u8> {
    let mut out = Vec::with_capacity(rows.len() * 16);
    for r in rows {
        out.extend_from_slice(&r.prefix.to_be_bytes());
        out.extend_from_slice(&((u64::from(r.ctx) << 32) | r.seq).to_be_bytes());
    }
    out
}

/// The rows of index run `(level, run)`, sorted by bytes, from all rows sorted by seq.
pub fn run_rows(rows: &[IndexRow], level: u8, run: u64) -> Vec<IndexRow> {
    let span = run_blocks(level) * INDEX_BLOCK;
    rows_between(rows, run * span + 1, (run + 1) * span)
}

/// The bytes of bucket `prefix` of a run of `level`, from the run's sorted rows.
pub fn bucket_bytes(sorted: &[IndexRow], level: u8, prefix: u64) -> Vec<u8> {
    let shift = 64 - 4 * (u32::from(level) + 1);
    let lo = sorted.partition_point(|r| r.prefix >> shift < prefix);
    let hi = sorted.partition_point(|r| r.prefix >> shift <= prefix);
    row_bytes(&sorted[lo..hi])
}

/// The buckets of a run of `level`.
pub fn run_buckets(level: u8) -> u64 {
    16u64.pow(u32::from(level) + 1)
}

/// The index's tail at `size` with its bytes, when `size` is not a whole number of blocks.
pub fn index_tail(size: u64, rows: &[IndexRow]) -> Option<(TreeFile, Vec<u8>)> {
    if size.is_multiple_of(INDEX_BLOCK) {
        return None;
    }
    let block = size / INDEX_BLOCK;
    let sorted = rows_between(rows, block * INDEX_BLOCK + 1, size);
    Some((
        TreeFile::IndexTail {
            block,
            width: size % INDEX_BLOCK,
        },
        row_bytes(&sorted),
    ))
}

/// Every index file at `size` with its bytes, from all rows of the published lines sorted by
/// seq (docs/tree.md#index). `each` receives the files in path order of their runs.
pub fn index_files(size: u64, rows: &[IndexRow], mut each: impl FnMut(TreeFile, Vec<u8>)) {
    for (level, run) in index_runs(size) {
        let sorted = run_rows(rows, level, run);
        for prefix in 0..run_buckets(level) {
            each(
                TreeFile::IndexBucket { level, run, prefix },
                bucket_bytes(&sorted, level, prefix),
            );
        }
    }
    if let Some((file, bytes)) = index_tail(size, rows) {
        each(file, bytes);
    }
}

/// The seqs of an index file's rows whose prefix is the digest's; `None` for bytes that are not
/// whole rows.
pub fn index_seqs(bytes: &[u8], digest: &Digest) -> Option<Vec<u64>> {
    if !bytes.len().is_multiple_of(16) {
        return None;
    }
    let want = u64::from_be_bytes(first8(&digest.0));
    Some(
        bytes
            .chunks_exact(16)
            .filter_map(|row| {
                let (p, s) = row.split_at(8);
                let p = u64::from_be_bytes(p.try_into().ok()?);
                let s = u64::from_be_bytes(s.try_into().ok()?);
                (p == want).then_some(s)
            })
            .collect(),
    )
}

/// The stored hashes of a tree made leaf by leaf: each completed level-0 tile's bytes are handed
/// out as it fills; the hashes above level 0 are kept (one in 256 leaves), so that the upper
/// tiles, the partial tiles and the root come at the end (docs/tree.md#layout).
#[derive(Default)]
pub struct TreeMaker {
    size: u64,
    /// The leaf hashes of the level-0 tile being filled.
    leaves: Vec<Hash>,
    /// The entries of that tile, as its bundle holds them.
    bundle: Vec<u8>,
    /// The full subtree hashes of height 8: level 1's stored hashes.
    upper: Vec<Hash>,
}

/// What the maker hands out as tiles fill.
pub enum Made {
    /// A full level-0 tile and its entry bundle: tile number, tile bytes, bundle bytes.
    Full(u64, Vec<u8>, Vec<u8>),
}

impl TreeMaker {
    pub fn new() -> TreeMaker {
        TreeMaker::default()
    }

    pub fn size(&self) -> u64 {
        self.size
    }

    /// A maker at the end of the full level-0 tiles whose roots are `upper` (level 1's stored
    /// hashes, as [`TreeMaker::upper`] gave them): the tree of `upper.len() * 256` leaves, to go
    /// on from there without the leaves (docs/tree.md#carried).
    pub fn resume(upper: Vec<Hash>) -> TreeMaker {
        TreeMaker {
            size: upper.len() as u64 * TILE_WIDTH,
            leaves: Vec::new(),
            bundle: Vec::new(),
            upper,
        }
    }

    /// Level 1's stored hashes so far: one for each full level-0 tile.
    pub fn upper(&self) -> &[Hash] {
        &self.upper
    }

    /// The next leaf's entry (the line's `entry_id`). Returns the full tile it completed.
    pub fn push(&mut self, entry: &Digest) -> Option<Made> {
        self.leaves.push(leaf_hash(&entry.0));
        self.bundle.extend_from_slice(&[0, 32]);
        self.bundle.extend_from_slice(&entry.0);
        self.size += 1;
        if self.leaves.len() as u64 == TILE_WIDTH {
            self.upper.push(root_of(&self.leaves));
            let tile = self.leaves.concat();
            self.leaves.clear();
            let bundle = std::mem::take(&mut self.bundle);
            return Some(Made::Full(self.size / TILE_WIDTH - 1, tile, bundle));
        }
        None
    }

    /// The rest: the partial level-0 tile and bundle, every tile above level 0, and the root.
    pub fn finish(self) -> Finished {
        let mut files = Vec::new();
        let base = self.size / TILE_WIDTH;
        if !self.leaves.is_empty() {
            let width = self.leaves.len() as u64;
            files.push((
                TreeFile::Tile {
                    level: 0,
                    n: base,
                    width,
                },
                self.leaves.concat(),
            ));
            files.push((TreeFile::Entries { n: base, width }, self.bundle));
        }
        // levels[L] for L ≥ 1: every stored hash of level L (full subtrees of 256^L leaves).
        let mut levels: Vec<Vec<Hash>> = vec![Vec::new(), self.upper];
        while levels.last().is_some_and(|l| l.len() as u64 >= TILE_WIDTH) {
            let next = levels
                .last()
                .map(|l| l.chunks_exact(TILE_WIDTH as usize).map(root_of).collect())
                .unwrap_or_default();
            levels.push(next);
        }
        for (level, stored) in levels.iter().enumerate().skip(1) {
            for (n, chunk) in stored.chunks(TILE_WIDTH as usize).enumerate() {
                files.push((
                    TreeFile::Tile {
                        level: level as u8,
                        n: n as u64,
                        width: chunk.len() as u64,
                    },
                    chunk.concat(),
                ));
            }
        }
        // The root: n splits into full subtrees of the powers of two of its binary digits,
        // largest first; one of height h, 8L ≤ h < 8L+8, is the hash of 2^(h−8L) stored hashes
        // of level L. Below height 8 they lie in the last, partial level-0 tile.
        let mut parts: Vec<Hash> = Vec::new();
        let mut start = 0u64;
        for h in (0..64u32).rev() {
            if self.size & (1u64 << h) == 0 {
                continue;
            }
            let level = (h / 8) as usize;
            let count = 1usize << (h - 8 * level as u32);
            let part = if level == 0 {
                let from = (start - base * TILE_WIDTH) as usize;
                root_of(&self.leaves[from..from + count])
            } else {
                let from = (start >> (8 * level)) as usize;
                root_of(&levels[level][from..from + count])
            };
            parts.push(part);
            start += 1u64 << h;
        }
        let mut root = parts.pop().unwrap_or_else(empty_root);
        while let Some(left) = parts.pop() {
            root = node_hash(&left, &root);
        }
        Finished { files, root }
    }
}

/// The maker's last files and the root.
pub struct Finished {
    pub files: Vec<(TreeFile, Vec<u8>)>,
    pub root: Hash,
}

/// The tree head (docs/tree.md#checkpoint).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checkpoint {
    pub origin: String,
    pub size: u64,
    pub root: Hash,
    pub head_seq: u64,
    pub head: Digest,
    /// Lines after the body's blank line (signatures), kept as read.
    pub signatures: Vec<String>,
}

/// Why a checkpoint does not read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckpointError(pub String);

impl std::fmt::Display for CheckpointError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for CheckpointError {}

impl Checkpoint {
    /// The note body, each line LF-ended.
    pub fn text(&self) -> String {
        format!(
            "{}\n{}\n{}\nexhibit-head {} {}\n",
            self.origin,
            self.size,
            base64_encode(&self.root),
            self.head_seq,
            self.head
        )
    }

    /// A checkpoint's bytes read strictly: origin, decimal size, base64 root of 32 bytes, the
    /// `exhibit-head` line; then, optionally, a blank line and signature lines.
    pub fn parse(bytes: &[u8]) -> Result<Checkpoint, CheckpointError> {
        let bad = |why: &str| Err(CheckpointError(why.to_string()));
        if bytes.len() > 65_536 {
            return bad("over 64 KiB");
        }
        let Ok(text) = std::str::from_utf8(bytes) else {
            return bad("not UTF-8");
        };
        if !text.ends_with('\n') {
            return bad("its last line has no LF");
        }
        let (body, sigs) = match text.split_once("\n\n") {
            Some((b, s)) => (b, Some(s)),
            None => (text.trim_end_matches('\n'), None),
        };
        let lines: Vec<&str> = body.split('\n').collect();
        if lines.len() < 4 {
            return bad("fewer than four lines (origin, size, root, exhibit-head)");
        }
        let origin = lines[0];
        if origin.is_empty() || origin.contains('\r') {
            return bad("an empty origin line");
        }
        let Some(size) = parse_decimal(lines[1]) else {
            return bad("its size is not a decimal number without leading zeros");
        };
        let Some(root) = base64_decode(lines[2]).and_then(|r| <[u8; 32]>::try_from(r).ok()) else {
            return bad("its root is not 32 bytes in standard base64");
        };
        if base64_encode(&root) != lines[2] {
            return bad("its root is not 32 bytes in standard base64");
        }
        let heads: Vec<&&str> = lines[3..]
            .iter()
            .filter(|l| l.starts_with("exhibit-head "))
            .collect();
        let [head_line] = heads.as_slice() else {
            return bad("not exactly one exhibit-head line");
        };
        if lines[3..].iter().any(|l| l.is_empty()) {
            return bad("an empty extension line");
        }
        let mut parts = head_line["exhibit-head ".len()..].split(' ');
        let (Some(seq), Some(head), None) = (parts.next(), parts.next(), parts.next()) else {
            return bad("its exhibit-head line is not `exhibit-head <seq> <64 hex>`");
        };
        let (Some(head_seq), Ok(head)) = (parse_decimal(seq), head.parse::<Digest>()) else {
            return bad("its exhibit-head line is not `exhibit-head <seq> <64 hex>`");
        };
        let signatures = match sigs {
            None => Vec::new(),
            Some(s) => {
                let s = s.strip_suffix('\n').unwrap_or(s);
                if s.is_empty() || s.split('\n').any(str::is_empty) {
                    return bad("a blank line where signatures follow the body");
                }
                s.split('\n').map(str::to_string).collect()
            }
        };
        Ok(Checkpoint {
            origin: origin.to_string(),
            size,
            root,
            head_seq,
            head,
            signatures,
        })
    }
}

/// Standard base64 with padding (the `base64` crate's engine).
pub fn base64_encode(bytes: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// Standard base64 with padding, strictly (the encoder's output only).
pub fn base64_decode(s: &str) -> Option<Vec<u8>> {
    use base64::Engine as _;
    // Only the encoder's own output: whatever decodes must encode back to the same text, so a
    // second spelling of the same bytes (other padding bits) is refused as the page refuses it.
    let out = base64::engine::general_purpose::STANDARD.decode(s).ok()?;
    (base64_encode(&out) == s).then_some(out)
}

/// The bytes of the lines of level-0 tile `n` gathered as the ledger streams: lines are handed
/// in seq order; a completed group of 256 seqs is handed out (docs/tree.md#layout).
#[derive(Default)]
pub struct LinesMaker {
    /// The next seq the current group will see; groups are of seqs 256n+1 … 256n+256.
    group: u64,
    bytes: Vec<u8>,
}

impl LinesMaker {
    /// A published line (with its LF) at `seq`; returns the groups it closed, each with its
    /// bytes (a group with no published line is empty).
    pub fn push(&mut self, seq: u64, line: &[u8]) -> Vec<(TreeFile, Vec<u8>)> {
        let out = self.close_before(seq);
        self.bytes.extend_from_slice(line);
        out
    }

    /// Groups wholly before `seq` closed.
    fn close_before(&mut self, seq: u64) -> Vec<(TreeFile, Vec<u8>)> {
        let mut out = Vec::new();
        // Group g holds seqs 256g+1 … 256g+256; it is closed once a seq past it comes.
        while seq > (self.group + 1) * TILE_WIDTH {
            out.push((
                TreeFile::Lines {
                    n: self.group,
                    width: TILE_WIDTH,
                },
                std::mem::take(&mut self.bytes),
            ));
            self.group += 1;
        }
        out
    }

    /// The groups up to `size`: the full ones left, then the partial one.
    pub fn finish(mut self, size: u64) -> Vec<(TreeFile, Vec<u8>)> {
        let mut out = self.close_before(size + 1);
        if !size.is_multiple_of(TILE_WIDTH) {
            out.push((
                TreeFile::Lines {
                    n: self.group,
                    width: size % TILE_WIDTH,
                },
                std::mem::take(&mut self.bytes),
            ));
        }
        out
    }
}

/// Reads one file of a published tree (from a folder, or over the network).
pub trait TreeSource {
    fn read(&self, file: &TreeFile) -> Result<Vec<u8>, String>;
}

/// Why a proof could not be made or does not hold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProofError(pub String);

impl std::fmt::Display for ProofError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ProofError {}

/// tlog's tile reader over a [`TreeSource`]: its tiles are C2SP's, under their C2SP names; a
/// file of the wrong length is an error, never handed on.
struct Tiles<'s> {
    source: &'s dyn TreeSource,
    failed: std::cell::RefCell<Option<String>>,
}

impl tlog_tiles::TileReader for Tiles<'_> {
    fn height(&self) -> u8 {
        8
    }

    fn read_tiles(&self, tiles: &[tlog_tiles::Tile]) -> Result<Vec<Vec<u8>>, tlog_tiles::Error> {
        let mut out = Vec::with_capacity(tiles.len());
        for t in tiles {
            let file = TreeFile::Tile {
                level: t.level(),
                n: t.level_index(),
                width: u64::from(t.width()),
            };
            match self.source.read(&file) {
                Ok(bytes) if bytes.len() as u64 == u64::from(t.width()) * 32 => out.push(bytes),
                Ok(bytes) => {
                    *self.failed.borrow_mut() = Some(format!(
                        "ledger/tree/{}: {} bytes, not {} hashes of 32",
                        file.path(),
                        bytes.len(),
                        t.width()
                    ));
                    return Err(tlog_tiles::Error::InvalidTile);
                }
                Err(e) => {
                    *self.failed.borrow_mut() = Some(e);
                    return Err(tlog_tiles::Error::InvalidTile);
                }
            }
        }
        Ok(out)
    }

    fn save_tiles(&self, _: &[tlog_tiles::Tile], _: &[Vec<u8>]) {}
}

fn proof_error(tiles: &Tiles<'_>, e: tlog_tiles::Error) -> ProofError {
    match tiles.failed.borrow_mut().take() {
        Some(why) => ProofError(why),
        None => ProofError(format!(
            "the tiles do not hash to the checkpoint's root ({e}): a tile was altered, or the checkpoint is not this tree's"
        )),
    }
}

/// The inclusion proof of leaf `index` in the tree of `size` leaves whose root is `root`,
/// computed from the source's tiles. The tiles the root's subtrees lie in are held to `root`;
/// the others are not always (tlog_tiles 0.2.0 skips some when two of the root's subtrees share
/// a tile), so a proof made here proves nothing until [`check_inclusion`] holds it to the root.
pub fn prove_inclusion(
    source: &dyn TreeSource,
    size: u64,
    root: &Hash,
    index: u64,
) -> Result<Vec<Hash>, ProofError> {
    if index >= size {
        return Err(ProofError(format!(
            "leaf {index} is not in a tree of {size} leaves"
        )));
    }
    let tiles = Tiles {
        source,
        failed: Default::default(),
    };
    let reader = tlog_tiles::TileHashReader::new(size, tlog_tiles::Hash(*root), &tiles);
    tlog_tiles::prove_record(size, index, &reader)
        .map(|p| p.into_iter().map(|h| h.0).collect())
        .map_err(|e| proof_error(&tiles, e))
}

/// Whether `proof` shows leaf `index`, hashing to `leaf`, in the tree of `size` with `root`.
pub fn check_inclusion(proof: &[Hash], size: u64, root: &Hash, index: u64, leaf: &Hash) -> bool {
    if index >= size || proof.len() > 64 {
        return false;
    }
    let p: Vec<tlog_tiles::Hash> = proof.iter().map(|h| tlog_tiles::Hash(*h)).collect();
    tlog_tiles::check_record(
        &p,
        size,
        tlog_tiles::Hash(*root),
        index,
        tlog_tiles::Hash(*leaf),
    )
    .is_ok()
}

/// The consistency proof from the tree of `old_size` leaves to the tree of `size` leaves with
/// `root`, from the source's tiles; like [`prove_inclusion`]'s, it proves nothing until
/// [`check_consistency`] holds it to both roots.
pub fn prove_consistency(
    source: &dyn TreeSource,
    size: u64,
    root: &Hash,
    old_size: u64,
) -> Result<Vec<Hash>, ProofError> {
    if old_size == 0 || old_size > size {
        return Err(ProofError(format!(
            "no consistency proof from {old_size} leaves to {size}"
        )));
    }
    let tiles = Tiles {
        source,
        failed: Default::default(),
    };
    let reader = tlog_tiles::TileHashReader::new(size, tlog_tiles::Hash(*root), &tiles);
    tlog_tiles::prove_tree(size, old_size, &reader)
        .map(|p| p.into_iter().map(|h| h.0).collect())
        .map_err(|e| proof_error(&tiles, e))
}

/// Whether `proof` shows the tree of `old_size` with `old_root` is a prefix of the tree of
/// `size` with `root`.
pub fn check_consistency(
    proof: &[Hash],
    size: u64,
    root: &Hash,
    old_size: u64,
    old_root: &Hash,
) -> bool {
    if old_size == 0 || old_size > size || proof.len() > 128 {
        return false;
    }
    let p: Vec<tlog_tiles::Hash> = proof.iter().map(|h| tlog_tiles::Hash(*h)).collect();
    tlog_tiles::check_tree(
        &p,
        size,
        tlog_tiles::Hash(*root),
        old_size,
        tlog_tiles::Hash(*old_root),
    )
    .is_ok()
}

#[cfg(test)]
mod tests;
