//! The withheld list in files (docs/scale.md#withheld-files): `ledger/withheld.json` followed by
//! `ledger/withheld/000001.json`, `000002.json`, … in name order. Each file is a JSON array of
//! whole entries, written as `withheld.json` always was, and holds at most `withheld_bytes`
//! bytes (a single larger entry is a file by itself); every file but the last is full and is
//! never rewritten. The list is the files' entries in that order, ascending by seq. A list under
//! the threshold is one `withheld.json`, byte-identical to what exhibit published before.
//!
//! The rule is the list's own size, not the ledger's: an exhibit that withholds most of its
//! lines publishes a short ledger and a long list, and no published file may pass 32 MiB.

use std::ops::{Range, RangeInclusive};

use serde::{Deserialize, Serialize};

use crate::published::encode::pretty;
use crate::published::output_tree::Tree;
use exhibit_protocol::verify::{Withheld, WithheldEntry};

/// The first file of the list (the only one of a small exhibit).
pub const WITHHELD_FILE: &str = "ledger/withheld.json";

/// The folder the list continues in, relative to DIR.
pub const WITHHELD_DIR: &str = "ledger/withheld";

/// The default of `[publish] withheld_bytes`: 4 MiB, about 9,500 entries. Smaller than the
/// ledger's 16 MiB because a light page embeds `withheld.json` (a third larger as base64) beside
/// its other blocks, and the page must stay under 32 MiB; a list past it is fetched in files.
pub const DEFAULT_WITHHELD_BYTES: u64 = 4 * 1024 * 1024;

/// What `[publish] withheld_bytes` accepts: 4 KiB (tests cross it with a few entries) to
/// 32 MiB (the most any published file may hold).
pub const WITHHELD_BYTES_RANGE: RangeInclusive<u64> = 4096..=32 * 1024 * 1024;

/// The highest number a 6-digit name can hold.
const LAST_NUMBER: u32 = 999_999;

pub use crate::published::layout::withheld_part_number;

/// `ledger/withheld/NNNNNN.json` for file `n` (from 1).
pub fn part_path(n: u32) -> String {
    format!("{WITHHELD_DIR}/{n:06}.json")
}

/// One file of the list as `STATS.json` lists it (`withheld_files`, docs/scale.md#withheld-files);
/// fields in alphabetical order, as the rest of STATS.json is written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WithheldFile {
    pub bytes: u64,
    pub entries: usize,
    /// Null only for an empty `withheld.json`.
    pub first_seq: Option<i64>,
    pub last_seq: Option<i64>,
    /// Relative to DIR: `ledger/withheld.json` or `ledger/withheld/NNNNNN.json`.
    pub path: String,
    /// sha256 of the file's bytes, 64 lowercase hex.
    pub sha256: String,
}

/// What a snapshot line records of a list in several files.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct WithheldRecord {
    /// The files in `ledger/withheld/`.
    pub files: usize,
    pub withheld_bytes: u64,
}

/// One file of a cut: its path and the entries it holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CutFile {
    pub path: String,
    pub entries: Range<usize>,
}

/// The bytes one entry adds to a file: its pretty form inside the array and the `,\n` before
/// the next. A file of k ≥ 1 entries weighs the sum of these plus [`FRAME`] (`[\n` … `\n]\n`
/// less the last separator): `pretty` writes an array as `[\n  {…},\n  {…}\n]` and a final LF.
fn entry_cost(entry: &WithheldEntry) -> u64 {
    pretty(&[entry]).len() as u64 - 5 + 2
}

/// `[\n` + `\n]\n`, less the `,\n` the last entry does not carry.
const FRAME: u64 = 5 - 2;

/// The cut: the list's entries (ascending by seq) laid into files. `kept` are HEAD's files as
/// `(path, entries)` in order when this list begins with HEAD's entries, else empty: each keeps
/// its entries, only the last may take more. New entries go to the last file while it stays
/// within `withheld_bytes`, else to a new file; an entry larger than that is a file by itself.
/// An empty list is one empty `withheld.json`.
pub fn cut(
    entries: &[WithheldEntry],
    kept: &[(String, usize)],
    withheld_bytes: u64,
) -> Result<Vec<CutFile>, String> {
    let mut files: Vec<(CutFile, u64)> = Vec::with_capacity(kept.len() + 1);
    let mut at = 0usize;
    for (path, n) in kept.iter().filter(|(_, n)| *n > 0) {
        let end = at + n;
        if end > entries.len() {
            return Err(format!(
                "HEAD's {path} ({n} entries) reaches past the end of this withheld list"
            ));
        }
        let bytes = FRAME + entries[at..end].iter().map(entry_cost).sum::<u64>();
        files.push((
            CutFile {
                path: path.clone(),
                entries: at..end,
            },
            bytes,
        ));
        at = end;
    }
    let mut next = kept
        .iter()
        .filter_map(|(p, _)| part_number_of(p))
        .max()
        .map_or(1, |n| n + 1);
    for (i, entry) in entries.iter().enumerate().skip(at) {
        let cost = entry_cost(entry);
        let start_new = files
            .last()
            .is_none_or(|(_, bytes)| bytes + cost > withheld_bytes);
        if start_new {
            let path = if files.is_empty() {
                WITHHELD_FILE.to_string()
            } else if next > LAST_NUMBER {
                return Err(format!(
                    "the withheld list would need more than {LAST_NUMBER} files in {WITHHELD_DIR}/; raise [publish] withheld_bytes"
                ));
            } else {
                next += 1;
                part_path(next - 1)
            };
            files.push((
                CutFile {
                    path,
                    entries: i..i,
                },
                FRAME,
            ));
        }
        if let Some((last, bytes)) = files.last_mut() {
            last.entries.end = i + 1;
            *bytes += cost;
        }
    }
    if files.is_empty() {
        files.push((
            CutFile {
                path: WITHHELD_FILE.to_string(),
                entries: 0..0,
            },
            0,
        ));
    }
    Ok(files.into_iter().map(|(f, _)| f).collect())
}

/// The number of `ledger/withheld/NNNNNN.json`.
fn part_number_of(path: &str) -> Option<u32> {
    withheld_part_number(path.strip_prefix(WITHHELD_DIR)?.strip_prefix('/')?)
}

/// HEAD's files to keep: all of them, with their entry counts, when this list begins with
/// exactly HEAD's entries (sticky withholding carries them as they were,
/// docs/protocol.md#sticky-history); none when it does not (a rewrite), and the cut starts over.
pub fn kept(
    entries: &[WithheldEntry],
    head: &Withheld,
    head_files: &[(String, usize)],
) -> Vec<(String, usize)> {
    let n = head.len();
    // HEAD's files as exhibit writes them: withheld.json first (a HEAD without it is laid out
    // afresh, so this publication's list starts where a stranger looks for it).
    let first_is_list = head_files.first().is_none_or(|(p, _)| p == WITHHELD_FILE);
    let begins_with_head = first_is_list
        && n <= entries.len()
        && head_files.iter().map(|(_, k)| k).sum::<usize>() == n
        && head.by_seq.values().zip(entries).all(|(h, e)| h == e);
    if begins_with_head {
        head_files.to_vec()
    } else {
        Vec::new()
    }
}

/// The paths of a tree's withheld list, in order: `withheld.json`, then the folder's files in
/// name order (a BTreeMap's order is name order).
pub fn published_paths(tree: &Tree) -> Vec<&str> {
    crate::published::segments::first_then_folder(tree, WITHHELD_FILE, WITHHELD_DIR)
}

/// The tree's list is in more than one file.
pub fn is_split(tree: &Tree) -> bool {
    published_paths(tree).len() > 1
}

/// Why a list in files is refused: the file, and what is wrong with it.
#[derive(Debug)]
pub struct ListError {
    pub path: String,
    pub why: String,
}

impl std::fmt::Display for ListError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path, self.why)
    }
}

/// The list from its files' bytes, in order: each file read by the verifier's own reader (every
/// rule of one list holds for each file), a seq in two files refused, and each file's seqs above
/// every seq of the files before it (the files are in seq order; docs/scale.md#withheld-files).
/// Returns the list and each file's entry count with its lowest and highest seq.
pub fn read_list<'a>(
    files: impl IntoIterator<Item = (&'a str, &'a [u8])>,
) -> Result<(Withheld, Vec<FileSeqs>), ListError> {
    let mut list = Withheld::default();
    let mut seqs = Vec::new();
    let mut highest: Option<i64> = None;
    for (path, bytes) in files {
        let err = |why: String| ListError {
            path: path.to_string(),
            why,
        };
        let part = Withheld::from_json(bytes).map_err(|e| err(e.to_string()))?;
        let (lo, hi) = (part.by_seq.keys().next(), part.by_seq.keys().next_back());
        if let (Some(&lo), Some(top)) = (lo, highest)
            && lo <= top
        {
            return Err(err(format!(
                "its seq {lo} is not after seq {top} of the file before: the list's files are in seq order"
            )));
        }
        seqs.push(FileSeqs {
            entries: part.len(),
            first: lo.copied(),
            last: hi.copied(),
        });
        highest = hi.copied().or(highest);
        for (_, e) in part.by_seq {
            list.by_seq.insert(e.seq, e);
        }
    }
    Ok((list, seqs))
}

/// What one file of the list holds, as read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileSeqs {
    pub entries: usize,
    pub first: Option<i64>,
    pub last: Option<i64>,
}

/// The list of a tree (for the self-check): its files read in order.
pub fn read_tree(tree: &Tree) -> Result<Withheld, ListError> {
    let paths = published_paths(tree);
    if paths.is_empty() {
        return Ok(Withheld::default());
    }
    let mut bytes = Vec::with_capacity(paths.len());
    for p in &paths {
        bytes.push((
            *p,
            tree.get(p).ok_or_else(|| ListError {
                path: p.to_string(),
                why: "cannot be read".into(),
            })?,
        ));
    }
    read_list(bytes).map(|(list, _)| list)
}

#[cfg(test)]
mod tests {
    use super::*;
    use exhibit_protocol::Digest;

    fn entry(seq: i64, reason_len: usize) -> WithheldEntry {
        WithheldEntry {
            seq,
            entry_id: Digest([seq as u8; 32]),
            kind: Some("send".into()),
            dest_class: None,
            day: Some("2026-10-25".into()),
            fields_flagged: vec!["reasons".into()],
            reason: Some("x".repeat(reason_len)),
        }
    }

    #[test]
    fn a_files_size_is_its_entries_costs_and_the_frame() {
        for n in 1..5 {
            let es: Vec<_> = (1..=n).map(|s| entry(s, 10 * s as usize)).collect();
            let predicted = FRAME + es.iter().map(entry_cost).sum::<u64>();
            assert_eq!(pretty(&es).len() as u64, predicted, "{n} entries");
        }
    }

    #[test]
    fn the_cut_fills_each_file_to_the_threshold_and_keeps_heads_files() {
        let es: Vec<_> = (10..30).map(|s| entry(s, 50)).collect();
        let per = entry_cost(&es[0]);
        // Room for exactly three entries a file.
        let max = FRAME + 3 * per;
        let files = cut(&es, &[], max).unwrap();
        assert_eq!(files.len(), 7);
        assert_eq!(files[0].path, WITHHELD_FILE);
        assert_eq!(files[0].entries, 0..3);
        assert_eq!(files[1].path, "ledger/withheld/000001.json");
        assert_eq!(files[6].entries, 18..20);
        for f in &files {
            assert!(pretty(&es[f.entries.clone()]).len() as u64 <= max);
        }
        // HEAD held 4 entries in withheld.json (an older, larger threshold) and 2 in a part:
        // both keep them; the part takes one more, then new files follow.
        let kept = vec![
            (WITHHELD_FILE.to_string(), 4),
            ("ledger/withheld/000001.json".to_string(), 2),
        ];
        let files = cut(&es, &kept, max).unwrap();
        assert_eq!(files[0].entries, 0..4);
        assert_eq!(files[1].entries, 4..7);
        assert_eq!(files[2].path, "ledger/withheld/000002.json");
        assert_eq!(files[2].entries, 7..10);
        // An entry larger than the threshold is a file by itself.
        let big = vec![entry(1, 10), entry(2, 10_000), entry(3, 10)];
        let files = cut(&big, &[], 4096).unwrap();
        let ranges: Vec<_> = files.iter().map(|f| f.entries.clone()).collect();
        assert_eq!(ranges, vec![0..1, 1..2, 2..3]);
        // No entry: one empty withheld.json, as a small exhibit always published.
        let files = cut(&[], &[], 4096).unwrap();
        assert_eq!(files.len(), 1);
        assert_eq!(files[0].entries, 0..0);
    }

    #[test]
    fn heads_files_are_kept_only_when_the_list_begins_with_heads_entries() {
        let es: Vec<_> = (1..=5).map(|s| entry(s, 5)).collect();
        let head = Withheld::from_entries(es[..3].to_vec()).unwrap();
        let head_files = vec![(WITHHELD_FILE.to_string(), 3)];
        assert_eq!(kept(&es, &head, &head_files), head_files);
        let mut changed = es.clone();
        changed[1].reason = Some("other words".into());
        assert!(kept(&changed, &head, &head_files).is_empty());
        // A HEAD whose list lacks withheld.json is not kept: the cut starts it afresh.
        let no_first = vec![("ledger/withheld/000001.json".to_string(), 3)];
        assert!(kept(&es, &head, &no_first).is_empty());
        assert_eq!(
            cut(&es, &kept(&es, &head, &no_first), 4096).unwrap()[0].path,
            WITHHELD_FILE
        );
    }

    #[test]
    fn a_list_in_files_must_run_in_seq_order() {
        let a = pretty(&[entry(1, 5), entry(5, 5)]);
        let b = pretty(&[entry(4, 5)]);
        let err = read_list([
            ("ledger/withheld.json", &a[..]),
            ("ledger/withheld/000001.json", &b[..]),
        ])
        .unwrap_err();
        assert_eq!(err.path, "ledger/withheld/000001.json");
        let c = pretty(&[entry(6, 5)]);
        let (list, seqs) = read_list([
            ("ledger/withheld.json", &a[..]),
            ("ledger/withheld/000001.json", &c[..]),
        ])
        .unwrap();
        assert_eq!(list.len(), 3);
        assert_eq!(
            seqs[1],
            FileSeqs {
                entries: 1,
                first: Some(6),
                last: Some(6)
            }
        );
    }
}
