//! The excerpt index (docs/tree.md#excerpts): which released text holds a run of words, found by
//! fetching a few small files. Its rows are made from the released texts alone (never from a
//! text that is not released), laid out as the digest index is (docs/tree.md#index) under
//! `ledger/tree/excerpts/`.
//!
//! A text's words are the tokens of docs/protocol.md#proving-one-message (NFC; the gate trailer
//! removed; `` * ` # > [ ] ( ) `` deleted and `_` at a token's edge; split on whitespace); a
//! shingle is [`SHINGLE`] consecutive words joined by one space, keyed by the first 8 bytes of
//! its sha256. Not every shingle is a row: winnowing keeps the least key of every window of
//! [`WINDOW`] consecutive shingles, so any run of [`MIN_WORDS`] words of the text holds a
//! whole window, and the least key of the run's shingles is one the text's rows have.

use crate::Digest;
use crate::tree::{self, IndexRow, TreeFile};

/// Words in a shingle.
pub const SHINGLE: usize = 8;
/// Shingles in a winnowing window.
pub const WINDOW: usize = 5;
/// The fewest words an excerpt needs to be found for sure: one whole window of shingles.
pub const MIN_WORDS: usize = SHINGLE + WINDOW - 1;

/// JavaScript's `\s` (the page splits on it): Unicode's White_Space but U+0085, and U+FEFF.
fn is_space(c: char) -> bool {
    (c.is_whitespace() && c != '\u{85}') || c == '\u{feff}'
}

/// The text with every gate trailer `[gate: … · ledger N]` made one space (the page's
/// `ANY_TRAILER`: no `]` or newline inside, `· ledger ` then digits just before the `]`).
fn without_trailers(s: &str) -> String {
    const OPEN: &str = "[gate: ";
    const MARK: &str = "\u{b7} ledger ";
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(at) = rest.find(OPEN) {
        let after = &rest[at + OPEN.len()..];
        let end = after.find([']', '\n']);
        let matched = end.filter(|&e| after.as_bytes()[e] == b']').and_then(|e| {
            let inner = &after[..e];
            let digits = inner.len() - inner.trim_end_matches(|c: char| c.is_ascii_digit()).len();
            (digits > 0 && inner[..inner.len() - digits].ends_with(MARK)).then_some(e)
        });
        match matched {
            Some(e) => {
                out.push_str(&rest[..at]);
                out.push(' ');
                rest = &after[e + 1..];
            }
            None => {
                out.push_str(&rest[..at + 1]);
                rest = &rest[at + 1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// The words of a text as the page's `tokens` makes them (docs/protocol.md#proving-one-message).
pub fn words(text: &str) -> Vec<String> {
    use unicode_normalization::UnicodeNormalization as _;
    let lf = text.replace("\r\n", "\n");
    let nfc: String = lf.nfc().collect();
    let bare: String = without_trailers(&nfc)
        .chars()
        .filter(|c| !matches!(c, '*' | '`' | '#' | '>' | '[' | ']' | '(' | ')'))
        .collect();
    bare.split(is_space)
        .map(|w| w.trim_matches('_'))
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

/// The key of each shingle of `words`, in order: none when there are fewer than [`SHINGLE`].
pub fn shingle_keys(words: &[String]) -> Vec<u64> {
    words
        .windows(SHINGLE)
        .map(|w| {
            let d = Digest::of(w.join(" ").as_bytes());
            u64::from_be_bytes(d.0[..8].try_into().unwrap_or([0; 8]))
        })
        .collect()
}

/// The keys a text's rows hold: the least key of every window of [`WINDOW`] shingles (of all of
/// them when there are fewer), sorted, each once.
pub fn winnowed(keys: &[u64]) -> Vec<u64> {
    let mut out: Vec<u64> = if keys.len() <= WINDOW {
        keys.iter().min().copied().into_iter().collect()
    } else {
        keys.windows(WINDOW)
            .filter_map(|w| w.iter().min().copied())
            .collect()
    };
    out.sort_unstable();
    out.dedup();
    out
}

/// The places of the shingles winnowing keeps: every place of the least key of each window of
/// [`WINDOW`] shingles (of all of them when there are fewer), ties included, sorted.
pub fn kept_places(keys: &[u64]) -> Vec<usize> {
    let mut out = Vec::new();
    let width = keys.len().min(WINDOW);
    if width == 0 {
        return out;
    }
    for start in 0..=keys.len() - width {
        let w = &keys[start..start + width];
        let least = w.iter().min().copied().unwrap_or_default();
        out.extend((start..start + width).filter(|&i| keys[i] == least));
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// Two words' context hash: the first 2 bytes of the sha256 of `a b`.
fn pair_hash(a: &str, b: &str) -> u16 {
    let d = Digest::of(format!("{a} {b}").as_bytes());
    u16::from_be_bytes([d.0[0], d.0[1]])
}

/// The contexts of the shingle at word `p`: the hash of the 2 words before it and of the 2 words
/// after it, each `None` where `words` has fewer.
fn context_pair(words: &[String], p: usize) -> (Option<u16>, Option<u16>) {
    (
        (p >= 2).then(|| pair_hash(&words[p - 2], &words[p - 1])),
        (p + SHINGLE + 2 <= words.len())
            .then(|| pair_hash(&words[p + SHINGLE], &words[p + SHINGLE + 1])),
    )
}

/// [`context_pair`] as a row holds it: before in the high 16 bits, after in the low, 0 for none.
fn contexts(words: &[String], p: usize) -> u32 {
    let (before, after) = context_pair(words, p);
    (u32::from(before.unwrap_or(0)) << 16) | u32::from(after.unwrap_or(0))
}

/// The rows of a released text filed at `seq` (docs/tree.md#excerpts): one for each distinct
/// (key, contexts) of a kept place. None for a seq of 2^32 or more (a row has 4 bytes for it).
pub fn rows_of_text(seq: u64, text: &str) -> Vec<IndexRow> {
    if seq > u64::from(u32::MAX) {
        return Vec::new();
    }
    let words = words(text);
    let keys = shingle_keys(&words);
    let mut out: Vec<IndexRow> = kept_places(&keys)
        .into_iter()
        .map(|p| IndexRow {
            prefix: keys[p],
            ctx: contexts(&words, p),
            seq,
        })
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// What an excerpt is looked up by: its least key, and the contexts of its first place that
/// the excerpt holds (the 2 words before it when it has them, the 2 after when it has them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lookup {
    pub key: u64,
    pub before: Option<u16>,
    pub after: Option<u16>,
}

/// The lookup of an excerpt of [`MIN_WORDS`] words or more; `None` when it has fewer. Any text
/// holding the excerpt keeps that key at the place the excerpt's first place falls on (a window
/// of the excerpt's shingles is one of the text's), with these contexts (docs/tree.md#excerpts).
pub fn lookup(excerpt: &str) -> Option<Lookup> {
    let w = words(excerpt);
    if w.len() < MIN_WORDS {
        return None;
    }
    let keys = shingle_keys(&w);
    let key = keys.iter().min().copied()?;
    let j = keys.iter().position(|&k| k == key)?;
    let (before, after) = context_pair(&w, j);
    Some(Lookup { key, before, after })
}

/// The key to look an excerpt up by: the least key of its shingles, which every released text
/// holding the excerpt has among its rows when the excerpt has [`MIN_WORDS`] words or more.
/// `None` when it has fewer.
pub fn lookup_key(excerpt: &str) -> Option<u64> {
    lookup(excerpt).map(|l| l.key)
}

/// The seqs of an excerpt index file's rows that match a lookup: its key, and each context the
/// lookup has. With `None` for the contexts, every row of the key. `None` for bytes that are
/// not whole rows.
pub fn lookup_seqs(
    bytes: &[u8],
    key: u64,
    before: Option<u16>,
    after: Option<u16>,
) -> Option<Vec<u64>> {
    if !bytes.len().is_multiple_of(16) {
        return None;
    }
    Some(
        bytes
            .chunks_exact(16)
            .filter_map(|row| {
                let p = u64::from_be_bytes(row[..8].try_into().ok()?);
                let b = u16::from_be_bytes(row[8..10].try_into().ok()?);
                let a = u16::from_be_bytes(row[10..12].try_into().ok()?);
                let s = u32::from_be_bytes(row[12..16].try_into().ok()?);
                (p == key && before.is_none_or(|x| x == b) && after.is_none_or(|x| x == a))
                    .then_some(u64::from(s))
            })
            .collect(),
    )
}

/// Where the excerpt's words stand in the text's, as a run: the first word's place (from 0) at
/// the first place they do; `None` when they do not, or the excerpt has no word.
pub fn place_in(text: &str, excerpt: &str) -> Option<usize> {
    let t = words(text);
    let e = words(excerpt);
    if e.is_empty() {
        return None;
    }
    t.windows(e.len()).position(|w| w == e.as_slice())
}

/// A key as the index's lookup takes a digest: its 8 bytes first (the rest is never read).
pub fn key_digest(key: u64) -> Digest {
    let mut d = [0u8; 32];
    d[..8].copy_from_slice(&key.to_be_bytes());
    Digest(d)
}

/// The excerpt index's file for a digest index file of the same place.
fn as_excerpt(file: TreeFile) -> TreeFile {
    match file {
        TreeFile::IndexBucket { level, run, prefix } => {
            TreeFile::ExcerptBucket { level, run, prefix }
        }
        TreeFile::IndexTail { block, width } => TreeFile::ExcerptTail { block, width },
        other => other,
    }
}

/// Every file of the excerpt index at `size` with its bytes: from the rows sorted by seq, the
/// digest index's runs, buckets and tail (docs/tree.md#index) under `excerpts/`; from the
/// (seq, text digest) pairs the rows were made of, sorted by seq, the text map
/// (docs/tree.md#text-map).
pub fn excerpt_files(
    size: u64,
    rows: &[IndexRow],
    pairs: &[(u64, Digest)],
    mut each: impl FnMut(TreeFile, Vec<u8>),
) {
    tree::index_files(size, rows, |f, b| each(as_excerpt(f), b));
    text_map_files(size, pairs, each);
}

/// The names of the excerpt index's files at `size`.
pub fn excerpt_names(size: u64) -> Vec<TreeFile> {
    let mut out = Vec::new();
    excerpt_files(size, &[], &[], |f, _| out.push(f));
    out
}

/// Bytes of one entry of the text map: the seq, 8 bytes big-endian, then the text's sha256.
pub const TEXT_ENTRY: usize = 40;

/// The text map's files at `size` with their bytes (docs/tree.md#text-map), from the
/// (seq, text digest) pairs the excerpt rows are made of, sorted by seq: one file a block of
/// [`tree::INDEX_BLOCK`] seqs, the last one partial unless `size` is a whole number of blocks;
/// an empty file for a block with no released text.
pub fn text_map_files(size: u64, pairs: &[(u64, Digest)], mut each: impl FnMut(TreeFile, Vec<u8>)) {
    for block in 0..size.div_ceil(tree::INDEX_BLOCK) {
        let first = block * tree::INDEX_BLOCK + 1;
        let last = ((block + 1) * tree::INDEX_BLOCK).min(size);
        let lo = pairs.partition_point(|p| p.0 < first);
        let hi = pairs.partition_point(|p| p.0 <= last);
        let mut bytes = Vec::with_capacity((hi - lo) * TEXT_ENTRY);
        for (seq, digest) in &pairs[lo..hi] {
            bytes.extend_from_slice(&seq.to_be_bytes());
            bytes.extend_from_slice(&digest.0);
        }
        each(
            TreeFile::ExcerptTexts {
                block,
                width: last + 1 - first,
            },
            bytes,
        );
    }
}

/// The text map's file that names the text filed at `seq`, at `size`; `None` for a seq
/// outside `1..=size`.
pub fn text_map_file(size: u64, seq: u64) -> Option<TreeFile> {
    if seq == 0 || seq > size {
        return None;
    }
    let block = (seq - 1) / tree::INDEX_BLOCK;
    let width = (size - block * tree::INDEX_BLOCK).min(tree::INDEX_BLOCK);
    Some(TreeFile::ExcerptTexts { block, width })
}

/// The text a text map file names for `seq`: `Ok(None)` when it names none; an error for bytes
/// that are not whole entries in rising seq order.
pub fn text_map_digest(bytes: &[u8], seq: u64) -> Result<Option<Digest>, String> {
    if !bytes.len().is_multiple_of(TEXT_ENTRY) {
        return Err(format!(
            "{} bytes: not whole {TEXT_ENTRY}-byte entries",
            bytes.len()
        ));
    }
    let mut found = None;
    let mut before = 0u64;
    for entry in bytes.chunks_exact(TEXT_ENTRY) {
        let (s, d) = entry.split_at(8);
        let s = u64::from_be_bytes(s.try_into().map_err(|_| "cut entry")?);
        if s <= before {
            return Err(format!("seq {s} after seq {before}: not in rising order"));
        }
        before = s;
        if s == seq {
            found = Some(Digest(d.try_into().map_err(|_| "cut entry")?));
        }
    }
    Ok(found)
}

/// The files a lookup of `key` at `size` reads.
pub fn excerpt_lookup(size: u64, key: u64) -> Vec<TreeFile> {
    tree::index_lookup(size, &key_digest(key))
        .into_iter()
        .map(as_excerpt)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(s: &str) -> Vec<String> {
        words(s)
    }

    #[test]
    fn words_follow_the_pages_tokens() {
        assert_eq!(
            w(
                "**Bold** _sent_sha256_ `code` (x) [y]\r\n\n[gate: 1 of 2 numerals bound \u{b7} ledger 0042]"
            ),
            ["Bold", "sent_sha256", "code", "x", "y"]
        );
        // NFC: a decomposed é is the composed one.
        assert_eq!(w("cafe\u{301}"), ["caf\u{e9}"]);
        // U+0085 is not a space to the page's \s; U+FEFF is.
        assert_eq!(w("a\u{85}b c\u{feff}d"), ["a\u{85}b", "c", "d"]);
        // Not a trailer: a newline inside, or no digits before the bracket.
        assert_eq!(
            w("[gate: x\n\u{b7} ledger 1]"),
            ["gate:", "x", "\u{b7}", "ledger", "1"]
        );
        assert_eq!(
            w("[gate: x \u{b7} ledger ]"),
            ["gate:", "x", "\u{b7}", "ledger"]
        );
        assert_eq!(w("a[gate: [gate: q \u{b7} ledger 7]b"), ["a", "b"]);
    }

    #[test]
    fn every_run_of_min_words_holds_a_row() {
        let text: String = (0..60).map(|i| format!("w{} ", i * 7 % 13 + i)).collect();
        let rows: Vec<u64> = rows_of_text(3, &text).iter().map(|r| r.prefix).collect();
        let all = words(&text);
        assert!(rows.len() < shingle_keys(&all).len());
        for start in 0..=all.len() - MIN_WORDS {
            let excerpt = all[start..start + MIN_WORDS].join(" ");
            let key = lookup_key(&excerpt).expect("long enough");
            assert!(rows.contains(&key), "run at {start}");
            assert_eq!(place_in(&text, &excerpt), Some(start));
        }
        assert_eq!(lookup_key(&all[..MIN_WORDS - 1].join(" ")), None);
    }

    #[test]
    fn every_run_is_found_by_its_key_and_contexts() {
        // A text that repeats phrases (one shingle at several places, with other neighbours),
        // as templated messages do: each run of 12 to 20 words is named by a row of its lookup
        // key whose contexts are the run's (a context taken from another place of the key, or a
        // tie dropped by winnowing, misses some run).
        let phrase = "no more and no less than the night shift said";
        let text: String = (0..12)
            .map(|i| format!("w{} x{} {phrase} ", i * 5 % 7, i % 3))
            .collect();
        let rows = rows_of_text(5, &text);
        let all = words(&text);
        for len in MIN_WORDS..=20 {
            for start in 0..=all.len() - len {
                let run = all[start..start + len].join(" ");
                let l = lookup(&run).expect("long enough");
                let found = rows.iter().any(|r| {
                    r.prefix == l.key
                        && l.before.is_none_or(|b| (r.ctx >> 16) as u16 == b)
                        && l.after.is_none_or(|a| (r.ctx & 0xffff) as u16 == a)
                });
                assert!(found, "run of {len} at {start}");
                assert!(
                    l.before.is_some() || l.after.is_some(),
                    "a context is always held"
                );
            }
        }
        // Row bytes: the lookup reads them back.
        let mut bytes = Vec::new();
        for r in &rows {
            bytes.extend_from_slice(&r.prefix.to_be_bytes());
            bytes.extend_from_slice(&((u64::from(r.ctx) << 32) | r.seq).to_be_bytes());
        }
        let l = lookup(&all[3..15].join(" ")).unwrap();
        assert_eq!(lookup_seqs(&bytes, l.key, l.before, l.after), Some(vec![5]));
        assert_eq!(lookup_seqs(&bytes[..15], l.key, None, None), None);
    }

    #[test]
    fn a_short_text_keeps_its_least_shingle() {
        let keys = vec![9, 4, 7];
        assert_eq!(winnowed(&keys), vec![4]);
        assert_eq!(winnowed(&[5, 1, 6, 6, 2, 8, 9, 3, 7, 4]), vec![1, 2, 3]);
        assert!(rows_of_text(1, "seven words are not a shingle here").is_empty());
    }

    #[test]
    fn the_text_map_names_each_text_by_its_seq() {
        let d = |b: u8| Digest([b; 32]);
        let pairs = [(3, d(1)), (1024, d(2)), (1025, d(3)), (2049, d(4))];
        let mut files = Vec::new();
        text_map_files(2050, &pairs, |f, b| files.push((f, b)));
        assert_eq!(files.len(), 3);
        assert_eq!(files[0].1.len(), 2 * TEXT_ENTRY);
        assert_eq!(files[1].1.len(), TEXT_ENTRY);
        for (seq, digest) in pairs {
            let file = text_map_file(2050, seq).unwrap();
            let (_, bytes) = files.iter().find(|(f, _)| *f == file).unwrap();
            assert_eq!(text_map_digest(bytes, seq), Ok(Some(digest)));
            assert_eq!(text_map_digest(bytes, seq + 1), Ok(None));
        }
        assert_eq!(text_map_file(2050, 2051), None);
        assert_eq!(text_map_file(2050, 0), None);
        assert_eq!(
            text_map_file(2048, 2048).map(|f| f.path()).as_deref(),
            Some("excerpts/texts/1")
        );
        // A cut entry, or entries out of order, are no map.
        assert!(text_map_digest(&files[0].1[..39], 3).is_err());
        let mut swapped = files[0].1[TEXT_ENTRY..].to_vec();
        swapped.extend_from_slice(&files[0].1[..TEXT_ENTRY]);
        assert!(text_map_digest(&swapped, 3).is_err());
        for name in ["excerpts/texts/0", "excerpts/texts/2.p/2"] {
            assert_eq!(
                TreeFile::parse(name).map(|f| f.path()).as_deref(),
                Some(name)
            );
        }
        for bad in [
            "excerpts/texts/00",
            "excerpts/texts/2.p/1024",
            "excerpts/texts/2.p/0",
            "excerpts/texts/x",
        ] {
            assert_eq!(TreeFile::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn the_files_are_the_digest_indexs_under_excerpts() {
        let names: Vec<String> = excerpt_names(2050).iter().map(TreeFile::path).collect();
        assert_eq!(names.len(), 36);
        assert_eq!(names[0], "excerpts/0/0/0");
        assert_eq!(names[32], "excerpts/tail/2.p/2");
        assert_eq!(
            names[33..],
            [
                "excerpts/texts/0",
                "excerpts/texts/1",
                "excerpts/texts/2.p/2"
            ]
        );
        for n in &names {
            assert_eq!(
                TreeFile::parse(n).map(|f| f.path()).as_deref(),
                Some(n.as_str())
            );
        }
        assert_eq!(
            excerpt_lookup(2050, 0xab00_0000_0000_0000)
                .iter()
                .map(TreeFile::path)
                .collect::<Vec<_>>(),
            ["excerpts/0/0/a", "excerpts/0/1/a", "excerpts/tail/2.p/2"]
        );
    }
}
