//! The published ledger in files (docs/scale.md): `ledger/ledger.jsonl` followed by
//! `ledger/segments/000001.jsonl`, `000002.jsonl`, … in name order. Each file holds whole lines
//! and at most `segment_bytes` bytes (a single longer line is a file by itself); every file but
//! the last is full and is never rewritten, so a day's publication appends to the last file or
//! starts a new one, and the branch stays within GitHub's limits at any ledger size.

use std::ops::RangeInclusive;

use serde::{Deserialize, Serialize};

use crate::published::output_tree::{Content, Tree};

/// The default of `[publish] segment_bytes`: 16 MiB (docs/scale.md#the-threshold).
pub const DEFAULT_SEGMENT_BYTES: u64 = 16 * 1024 * 1024;

/// What `[publish] segment_bytes` accepts: 4 KiB (small enough for tests to cross the
/// threshold with a few dozen lines) to 32 MiB (the most any published file may hold).
pub const SEGMENT_BYTES_RANGE: RangeInclusive<u64> = 4096..=32 * 1024 * 1024;

/// The first published ledger file: the one that holds the header line.
pub const LEDGER_FILE: &str = "ledger/ledger.jsonl";

/// The folder the published ledger continues in, relative to DIR.
pub const SEGMENTS_DIR: &str = "ledger/segments";

/// The highest segment number a 6-digit name can hold.
const LAST_NUMBER: u32 = 999_999;

/// `ledger/segments/NNNNNN.jsonl` for segment `n` (from 1).
pub fn segment_path(n: u32) -> String {
    format!("{SEGMENTS_DIR}/{n:06}.jsonl")
}

/// Segment names are part of the output's grammar, so [`crate::published::layout`] owns the rule.
pub use crate::published::layout::segment_number;

/// One published ledger file as `STATS.json` lists it (`ledger.files`, docs/scale.md#stats);
/// fields in alphabetical order, as the rest of STATS.json is written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PublishedFile {
    pub bytes: u64,
    /// The seq of its first entry; null when the file holds the header line alone.
    pub first_seq: Option<i64>,
    /// The `entry_id` of its last line (the header digest when it holds the header alone).
    pub head: String,
    /// The seq of its last entry; null when the file holds the header line alone.
    pub last_seq: Option<i64>,
    pub lines: u64,
    /// Relative to DIR: `ledger/ledger.jsonl` or `ledger/segments/NNNNNN.jsonl`.
    pub path: String,
    /// sha256 of the file's bytes, 64 lowercase hex.
    pub sha256: String,
}

/// What a snapshot line records of a segmented publication (docs/scale.md#snapshots).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SegmentsRecord {
    /// The files in `ledger/segments/`.
    pub files: usize,
    pub segment_bytes: u64,
}

/// One file of a cut: its path and how many of the publication's lines it holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CutFile {
    pub path: String,
    pub lines: usize,
    pub bytes: u64,
}

/// A file that grows by appending, published as its first file and then numbered files in a
/// folder beside it (`NNNNNN.jsonl`, from 000001): the published ledger, and the witness layer's
/// `runs.jsonl` (docs/witness.md#parts). One cut serves both.
#[derive(Debug, Clone, Copy)]
pub struct Series {
    /// The first file, relative to DIR (`ledger/ledger.jsonl`).
    pub first: &'static str,
    /// The folder the later files go to, relative to DIR (`ledger/segments`).
    pub folder: &'static str,
}

/// The published ledger: `ledger/ledger.jsonl`, then `ledger/segments/NNNNNN.jsonl`.
pub const LEDGER_SERIES: Series = Series {
    first: LEDGER_FILE,
    folder: SEGMENTS_DIR,
};

impl Series {
    /// `<folder>/NNNNNN.jsonl` for file `n` (from 1) of the folder.
    pub fn path(&self, n: u32) -> String {
        format!("{}/{n:06}.jsonl", self.folder)
    }

    /// The number of a path in the folder, when its name is a segment's name.
    pub fn number(&self, path: &str) -> Option<u32> {
        segment_number(path.strip_prefix(self.folder)?.strip_prefix('/')?)
    }
}

/// The cut (docs/scale.md#the-cut): the published lines, given by their lengths with LF (the
/// header first), laid into files. `kept` are HEAD's files as `(path, bytes)` in chain order
/// when this publication byte-extends HEAD's, else empty: each keeps its exact bytes, and only
/// the last may grow. New lines go to the last file while it stays within `segment_bytes`,
/// else to a new segment; a line longer than `segment_bytes` is a file by itself.
pub fn cut(
    line_lens: &[u64],
    kept: &[(String, u64)],
    segment_bytes: u64,
) -> Result<Vec<CutFile>, String> {
    cut_series(&LEDGER_SERIES, line_lens, kept, segment_bytes)
}

/// [`cut`] for any [`Series`]: the same greedy rule, the series' own names.
pub fn cut_series<L: Copy + Into<u64>>(
    series: &Series,
    line_lens: &[L],
    kept: &[(String, u64)],
    segment_bytes: u64,
) -> Result<Vec<CutFile>, String> {
    let mut files: Vec<CutFile> = Vec::with_capacity(kept.len() + 1);
    let mut lens = line_lens.iter().map(|&len| len.into());
    for (path, size) in kept {
        let mut file = CutFile {
            path: path.clone(),
            lines: 0,
            bytes: 0,
        };
        while file.bytes < *size {
            let Some(len) = lens.next() else {
                return Err(format!(
                    "HEAD's {path} ({size} bytes) reaches past the end of this publication"
                ));
            };
            file.bytes += len;
            file.lines += 1;
        }
        if file.bytes != *size || file.lines == 0 {
            return Err(format!(
                "HEAD's {path} ({size} bytes) does not end at a line boundary of this publication"
            ));
        }
        files.push(file);
    }
    let mut next = kept
        .iter()
        .filter_map(|(p, _)| series.number(p))
        .max()
        .map_or(1, |n| n + 1);
    for len in lens {
        let start_new = files
            .last()
            .is_none_or(|last| last.lines > 0 && last.bytes + len > segment_bytes);
        if start_new {
            let path = if files.is_empty() {
                series.first.to_string()
            } else if next > LAST_NUMBER {
                return Err(format!(
                    "{} would need more than {LAST_NUMBER} files in {}/; raise [publish] segment_bytes",
                    series.first, series.folder
                ));
            } else {
                next += 1;
                series.path(next - 1)
            };
            files.push(CutFile {
                path,
                lines: 0,
                bytes: 0,
            });
        }
        if let Some(last) = files.last_mut() {
            last.lines += 1;
            last.bytes += len;
        }
    }
    Ok(files)
}

/// The published ledger files a tree holds, in chain order: `ledger/ledger.jsonl` (when
/// present), then `ledger/segments/*` in name order (a BTreeMap's order is name order).
pub fn published_paths(tree: &Tree) -> Vec<&str> {
    first_then_folder(tree, LEDGER_FILE, SEGMENTS_DIR)
}

/// The paths of a file that continues in a folder beside it, in order: `first` (when present),
/// then the folder's files in name order — the published ledger, and the withheld list
/// (docs/scale.md#withheld-files).
pub fn first_then_folder<'t>(tree: &'t Tree, first: &str, folder: &str) -> Vec<&'t str> {
    let prefix = format!("{folder}/");
    let mut paths: Vec<&str> = tree.held(first).map(|(p, _)| p).into_iter().collect();
    paths.extend(tree.held_under(&prefix).map(|(p, _)| p));
    paths
}

/// The tree holds `ledger/segments/` (the segmented layout).
pub fn is_segmented(tree: &Tree) -> bool {
    published_paths(tree)
        .iter()
        .any(|p| p.starts_with(SEGMENTS_DIR))
}

/// The published ledger this build made, in chain order, as one stream: each file is read when
/// the stream reaches it and let go after (a file of the gate's ledger is read from it and held
/// to the digest of its first read), so no more than one file is held.
pub struct PublishedStream<'a> {
    files: std::vec::IntoIter<&'a Content>,
    /// The file being read, a chunk at a time when it is spans of the gate's ledger
    /// ([`Content::reader`]).
    current: Box<dyn std::io::BufRead + 'a>,
}

impl<'a> PublishedStream<'a> {
    pub fn new(tree: &'a Tree) -> PublishedStream<'a> {
        let files: Vec<&Content> = published_paths(tree)
            .into_iter()
            .filter_map(|p| tree.held(p).map(|(_, c)| c))
            .collect();
        PublishedStream {
            files: files.into_iter(),
            current: Box::new(std::io::empty()),
        }
    }
}

impl std::io::Read for PublishedStream<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        crate::operator_box::read::read_buffered(self, buf)
    }
}

impl std::io::BufRead for PublishedStream<'_> {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        while self.current.fill_buf()?.is_empty() {
            let Some(next) = self.files.next() else {
                break;
            };
            // The file read is let go before the next is read, so one is held, not two; a
            // file of the gate's ledger is read a chunk at a time, never whole: at a million
            // lines each is 16 MiB, and this was the self-check's peak (docs/scale.md#memory).
            self.current = Box::new(std::io::empty());
            self.current = next
                .reader()
                .map_err(|e| std::io::Error::other(format!("{e:#}")))?;
        }
        self.current.fill_buf()
    }

    fn consume(&mut self, n: usize) {
        self.current.consume(n);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(files: &[CutFile]) -> Vec<(&str, usize, u64)> {
        files
            .iter()
            .map(|f| (f.path.as_str(), f.lines, f.bytes))
            .collect()
    }

    #[test]
    fn the_published_files_read_as_their_concatenation_in_chain_order() {
        use std::io::BufRead;
        let mut tree = Tree::default();
        // Put out of order, with a file of no bytes and a file that is not the ledger's.
        tree.put("ledger/segments/000002.jsonl", b"d\n".to_vec());
        tree.put("ledger/segments/000001.jsonl", b"".to_vec());
        tree.put("ledger/ledger.jsonl", b"ab\nc".to_vec());
        tree.put("ledger/segments/000003.jsonl", b"ef\n".to_vec());
        tree.put("ledger/withheld.json", b"[]".to_vec());
        let lines: Vec<String> = PublishedStream::new(&tree)
            .lines()
            .map(Result::unwrap)
            .collect();
        // A line split across two files reads whole (the reader does not cut at a file's end).
        assert_eq!(lines, ["ab", "cd", "ef"]);
    }

    #[test]
    fn files_of_the_gate_s_ledger_read_in_the_stream_as_their_bytes() {
        use std::io::BufRead;
        // A file of spans between held files, a line split across the two kinds, and an
        // empty file of spans: catches a spans file skipped once its first chunk is read, or
        // the stream stopping at an empty file.
        let (_dir, gate) = crate::operator_box::gate_ledger::ledger_for_test(b"xxab\ncd\nyyef\n");
        let spans = |s: Vec<(usize, usize)>| {
            Content::Ledger(crate::operator_box::gate_ledger::LedgerSpans::new(
                gate.clone(),
                s,
            ))
        };
        let mut tree = Tree::default();
        tree.put_content("ledger/ledger.jsonl", spans(vec![(2, 8), (10, 12)]));
        tree.put_content("ledger/segments/000001.jsonl", spans(Vec::new()));
        tree.put("ledger/segments/000002.jsonl", b"gh\n".to_vec());
        tree.put_content("ledger/segments/000003.jsonl", spans(vec![(12, 13)]));
        let lines: Vec<String> = PublishedStream::new(&tree)
            .lines()
            .map(Result::unwrap)
            .collect();
        assert_eq!(lines, ["ab", "cd", "efgh", ""]);
    }

    #[test]
    fn names_are_six_digits_from_one() {
        assert_eq!(segment_number("000001.jsonl"), Some(1));
        assert_eq!(segment_number("123456.jsonl"), Some(123_456));
        for bad in [
            "000000.jsonl",
            "00001.jsonl",
            "0000001.jsonl",
            "00000a.jsonl",
            "000001.json",
            "+00001.jsonl",
            "000001.jsonl.bak",
            "",
        ] {
            assert_eq!(segment_number(bad), None, "{bad}");
        }
        assert_eq!(segment_path(7), "ledger/segments/000007.jsonl");
    }

    #[test]
    fn a_small_ledger_is_one_file() {
        let files = cut(&[100, 50, 50], &[], 4096).unwrap();
        assert_eq!(shape(&files), [("ledger/ledger.jsonl", 3, 200)]);
    }

    #[test]
    fn the_greedy_cut_fills_each_file_to_the_threshold_and_no_further() {
        // 100 + 40*... : ledger.jsonl takes 100+40+40 = 180 ≤ 200; the next 40 would make 220.
        let files = cut(&[100, 40, 40, 40, 40, 40, 40, 200], &[], 200).unwrap();
        assert_eq!(
            shape(&files),
            [
                ("ledger/ledger.jsonl", 3, 180),
                ("ledger/segments/000001.jsonl", 4, 160),
                ("ledger/segments/000002.jsonl", 1, 200),
            ]
        );
    }

    #[test]
    fn a_line_longer_than_the_threshold_is_a_file_by_itself() {
        let files = cut(&[10, 500, 10], &[], 100).unwrap();
        assert_eq!(
            shape(&files),
            [
                ("ledger/ledger.jsonl", 1, 10),
                ("ledger/segments/000001.jsonl", 1, 500),
                ("ledger/segments/000002.jsonl", 1, 10),
            ]
        );
    }

    #[test]
    fn heads_files_keep_their_bytes_and_only_the_last_grows() {
        let kept = vec![
            ("ledger/ledger.jsonl".to_string(), 90),
            ("ledger/segments/000001.jsonl".to_string(), 60),
        ];
        // HEAD: [50, 40] [30, 30]; new lines 30, 30, 30 with a threshold of 100.
        let files = cut(&[50, 40, 30, 30, 30, 30, 30], &kept, 100).unwrap();
        assert_eq!(
            shape(&files),
            [
                ("ledger/ledger.jsonl", 2, 90),
                ("ledger/segments/000001.jsonl", 3, 90),
                ("ledger/segments/000002.jsonl", 2, 60),
            ]
        );
    }

    #[test]
    fn an_oversized_ledger_jsonl_stays_and_new_lines_go_to_segments() {
        let kept = vec![("ledger/ledger.jsonl".to_string(), 300)];
        let files = cut(&[100, 100, 100, 20, 20], &kept, 100).unwrap();
        assert_eq!(
            shape(&files),
            [
                ("ledger/ledger.jsonl", 3, 300),
                ("ledger/segments/000001.jsonl", 2, 40),
            ]
        );
    }

    #[test]
    fn a_head_file_that_splits_a_line_is_refused() {
        let kept = vec![("ledger/ledger.jsonl".to_string(), 120)];
        assert!(
            cut(&[100, 40], &kept, 4096)
                .unwrap_err()
                .contains("line boundary")
        );
        assert!(
            cut(&[100], &kept, 4096)
                .unwrap_err()
                .contains("past the end")
        );
    }
}
