//! A published exhibit's ledger as `exhibit verify SITE` reads it (docs/scale.md#verify-site):
//! `ledger/ledger.jsonl` (when present), then `ledger/segments/*` in name order, streamed to the
//! verifier as one ledger — one file open at a time, one line in memory — while each file is
//! tallied on the way (bytes, sha256, lines, its first entry and its last line), so that the
//! folder's names, the LF that ends each file and `STATS.json`'s list of files are checked
//! against the bytes that were read, not against what the build says of itself.

use std::io::{Read, Take};

use sha2::{Digest as _, Sha256};

use crate::operator_box::read::{BoxFolder, FileClass};
use crate::published::segments::{
    LEDGER_FILE, PublishedFile, SEGMENTS_DIR, segment_number, segment_path,
};
use crate::site_check::outcome::FileProblem;
use exhibit_protocol::canonical;

/// One file of the published ledger, found in the exhibit.
#[derive(Debug, Clone)]
pub struct LedgerFile {
    /// Relative to the exhibit: `ledger/ledger.jsonl`, `ledger/segments/000001.jsonl`, …
    pub path: String,
    folder: BoxFolder,
    name: String,
}

pub(crate) fn problem(
    file: impl Into<String>,
    code: &str,
    detail: impl Into<String>,
) -> FileProblem {
    FileProblem {
        file: file.into(),
        code: code.into(),
        detail: detail.into(),
    }
}

/// The published ledger's files in chain order. Anything in `ledger/segments/` that is not a
/// segment (a stray file, a folder, a symlink, a name not `NNNNNN.jsonl`) and every number
/// missing from the run 1, 2, … up to the last is a problem named by file
/// (docs/scale.md#names); the segments that are there are still read.
pub fn find(
    ledger_dir: &BoxFolder,
    problems: &mut Vec<FileProblem>,
) -> anyhow::Result<Vec<LedgerFile>> {
    let mut files = Vec::new();
    if ledger_dir.list()?.iter().any(|l| l.name == "ledger.jsonl") {
        files.push(LedgerFile {
            path: LEDGER_FILE.to_string(),
            folder: ledger_dir.clone(),
            name: "ledger.jsonl".into(),
        });
    }
    let Some(segments) = ledger_dir.sub("segments")? else {
        return Ok(files);
    };
    let mut expected = 1u32;
    for listed in segments.list()? {
        let shown = format!("{SEGMENTS_DIR}/{}", listed.name);
        let number = listed
            .utf8
            .then(|| segment_number(&listed.name))
            .flatten()
            .filter(|_| listed.file);
        let Some(number) = number else {
            problems.push(problem(
                shown,
                "segment_stray",
                "not a segment: ledger/segments/ holds only regular files named NNNNNN.jsonl (six digits, from 000001); a stranger reassembling the ledger with cat would take this in",
            ));
            continue;
        };
        while expected < number {
            problems.push(problem(
                segment_path(expected),
                "segment_missing",
                format!(
                    "missing: the segments run to {} but this one is absent, so the published ledger has a gap here",
                    segment_path(number)
                ),
            ));
            expected += 1;
        }
        expected = number + 1;
        files.push(LedgerFile {
            path: shown,
            folder: segments.clone(),
            name: listed.name,
        });
    }
    Ok(files)
}

/// What was read of one file.
#[derive(Debug)]
struct Tally {
    path: String,
    bytes: u64,
    lines: u64,
    sha: Sha256,
    ends_with_lf: bool,
    /// The file holds line 1 of the ledger (the header).
    holds_header: bool,
    /// Its first line after the header.
    first_entry: Option<Vec<u8>>,
    last_line: Option<Vec<u8>>,
}

/// The files read one after another as one stream (what `std::io::Read::chain` does, but
/// opening each file only when the one before it is done, so a ledger of many segments holds
/// one file descriptor), tallying each file.
pub struct Chained {
    files: Vec<LedgerFile>,
    next: usize,
    current: Option<Take<std::fs::File>>,
    tallies: Vec<Tally>,
    /// The line being read (its bytes since the last LF).
    line: Vec<u8>,
    /// Lines of the whole ledger completed so far.
    ledger_lines: u64,
}

impl Chained {
    pub fn new(files: Vec<LedgerFile>) -> Chained {
        Chained {
            files,
            next: 0,
            current: None,
            tallies: Vec::new(),
            line: Vec::new(),
            ledger_lines: 0,
        }
    }

    fn take_in(&mut self, bytes: &[u8]) {
        let Some(t) = self.tallies.last_mut() else {
            return;
        };
        t.sha.update(bytes);
        t.bytes += bytes.len() as u64;
        let mut rest = bytes;
        while let Some(at) = rest.iter().position(|&b| b == b'\n') {
            self.line.extend_from_slice(&rest[..at]);
            rest = &rest[at + 1..];
            self.ledger_lines += 1;
            t.lines += 1;
            let line = std::mem::take(&mut self.line);
            if self.ledger_lines == 1 {
                t.holds_header = true;
            } else if t.first_entry.is_none() {
                t.first_entry = Some(line.clone());
            }
            t.last_line = Some(line);
        }
        self.line.extend_from_slice(rest);
        t.ends_with_lf = bytes.last() == Some(&b'\n');
    }

    /// The end of a file: a piece after its last LF counts as a line of this file (the verifier
    /// sees it joined to the next file's first line, and says so).
    fn close_file(&mut self) {
        self.current = None;
        if let Some(t) = self.tallies.last_mut()
            && !self.line.is_empty()
        {
            t.lines += 1;
            t.last_line = Some(std::mem::take(&mut self.line));
        }
    }

    /// Where line `line` (1-based) of the whole ledger lies: the file and the line within it.
    fn place(&self, line: u64) -> Option<(&str, u64)> {
        let mut before = 0;
        for t in &self.tallies {
            if line <= before + t.lines {
                return Some((&t.path, line - before));
            }
            before += t.lines;
        }
        None
    }
}

impl Read for Chained {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        loop {
            if self.current.is_none() {
                let Some(file) = self.files.get(self.next) else {
                    return Ok(0);
                };
                let opened = file
                    .folder
                    .open(&file.name, FileClass::Ledger)
                    .map_err(|e| std::io::Error::other(format!("{e:#}")))?
                    .ok_or_else(|| {
                        std::io::Error::other(format!("{}: vanished while read", file.path))
                    })?;
                self.tallies.push(Tally {
                    path: file.path.clone(),
                    bytes: 0,
                    lines: 0,
                    sha: Sha256::new(),
                    ends_with_lf: false,
                    holds_header: false,
                    first_entry: None,
                    last_line: None,
                });
                self.current = Some(opened);
                self.next += 1;
            }
            let Some(current) = self.current.as_mut() else {
                continue;
            };
            let n = current.read(buf).map_err(|e| {
                let path = self
                    .files
                    .get(self.next - 1)
                    .map_or("", |f| f.path.as_str());
                std::io::Error::new(e.kind(), format!("{path}: {e}"))
            })?;
            if n == 0 {
                self.close_file();
                continue;
            }
            self.take_in(&buf[..n]);
            return Ok(n);
        }
    }
}

/// `seq` and `entry_id` of a line, read as the verifier reads it (fast path, then full reader).
fn seq_and_id(line: &[u8]) -> (Option<i64>, Option<String>) {
    if let Some(scan) = canonical::scan_entry(line) {
        return (scan.seq, scan.entry_id.map(str::to_owned));
    }
    match canonical::parse(line) {
        Ok(parsed) => match parsed.value.as_object() {
            Some(o) => (o.get_int("seq"), o.get_str("entry_id").map(str::to_owned)),
            None => (None, None),
        },
        Err(_) => (None, None),
    }
}

/// What a stream of the published ledger found of its files, once the verifier has read it.
pub struct LedgerRead {
    pub files: Vec<PublishedFile>,
    ends_with_lf: Vec<bool>,
    places: Chained,
}

impl Chained {
    /// Each file's facts as `STATS.json` lists them, re-derived from the bytes read.
    /// `header_digest`: the verifier's, the head of a file that holds the header alone.
    pub fn finish(mut self, header_digest: Option<&str>) -> LedgerRead {
        self.close_file();
        let mut files = Vec::with_capacity(self.tallies.len());
        let mut ends = Vec::with_capacity(self.tallies.len());
        for t in &self.tallies {
            let header_alone = t.holds_header && t.lines == 1;
            let (last_seq, last_id) = match (&t.last_line, header_alone) {
                (Some(line), false) => seq_and_id(line),
                _ => (None, header_digest.map(str::to_owned)),
            };
            files.push(PublishedFile {
                bytes: t.bytes,
                first_seq: t.first_entry.as_deref().and_then(|l| seq_and_id(l).0),
                head: last_id.unwrap_or_default(),
                last_seq,
                lines: t.lines,
                path: t.path.clone(),
                sha256: exhibit_protocol::Digest(t.sha.clone().finalize().into()).to_string(),
            });
            ends.push(t.ends_with_lf);
        }
        LedgerRead {
            files,
            ends_with_lf: ends,
            places: self,
        }
    }
}

impl LedgerRead {
    /// `ledger/segments/000003.jsonl line 4` for line 40 of the whole ledger.
    pub fn place(&self, line: u64) -> Option<String> {
        self.places
            .place(line)
            .map(|(path, n)| format!("{path} line {n}"))
    }

    /// Every file ends with LF and holds at least one line (docs/scale.md#layout).
    pub fn check_files(&self, problems: &mut Vec<FileProblem>) {
        for (f, &lf) in self.files.iter().zip(&self.ends_with_lf) {
            if f.bytes == 0 {
                problems.push(problem(
                    &f.path,
                    "ledger_file_empty",
                    "is empty: every published ledger file holds at least one line",
                ));
            } else if !lf {
                problems.push(problem(
                    &f.path,
                    "ledger_file_unterminated",
                    "does not end with LF: every published ledger file ends at a line boundary, so cat joins whole lines",
                ));
            }
        }
    }

    /// `STATS.json`'s `ledger.files` against the files read: the same paths in the same order,
    /// and for each the same bytes, sha256, lines, first and last seq and head. A segmented
    /// exhibit must list its files (the page fetches by that list).
    pub fn check_stats(&self, stats: Option<&serde_json::Value>, problems: &mut Vec<FileProblem>) {
        let stats_path = "ledger/STATS.json";
        let segmented = self.files.iter().any(|f| f.path.starts_with(SEGMENTS_DIR));
        let listed = stats
            .and_then(|s| s.get("ledger"))
            .and_then(|l| l.get("files"));
        let Some(listed) = listed else {
            if segmented {
                problems.push(problem(
                    stats_path,
                    "stats_files_missing",
                    "the ledger continues in ledger/segments/, but STATS.json lists no ledger.files to check them against",
                ));
            }
            return;
        };
        let Ok(listed) = serde_json::from_value::<Vec<PublishedFile>>(listed.clone()) else {
            problems.push(problem(
                stats_path,
                "stats_files_unreadable",
                "ledger.files is not a list of {path, bytes, lines, first_seq, last_seq, head, sha256}",
            ));
            return;
        };
        for want in &listed {
            // Only a name of the layout's grammar is printed as a file.
            let shown = if crate::published::layout::is_output_path(&want.path) {
                want.path.clone()
            } else {
                stats_path.to_string()
            };
            let Some(got) = self.files.iter().find(|f| f.path == want.path) else {
                problems.push(problem(
                    shown,
                    "stats_file_absent",
                    "STATS.json lists this file of the published ledger, but the exhibit does not hold it",
                ));
                continue;
            };
            let mut differs = Vec::new();
            let mut field = |name: &str, w: String, g: String| {
                if w != g {
                    differs.push(format!("{name} {w} (read: {g})"));
                }
            };
            let opt = |s: Option<i64>| s.map_or("null".to_string(), |s| s.to_string());
            field("bytes", want.bytes.to_string(), got.bytes.to_string());
            field("lines", want.lines.to_string(), got.lines.to_string());
            field("sha256", want.sha256.clone(), got.sha256.clone());
            field("first_seq", opt(want.first_seq), opt(got.first_seq));
            field("last_seq", opt(want.last_seq), opt(got.last_seq));
            field("head", want.head.clone(), got.head.clone());
            if !differs.is_empty() {
                problems.push(problem(
                    &got.path,
                    "stats_file_mismatch",
                    format!("STATS.json lists {}", differs.join(", ")),
                ));
            }
        }
        for got in &self.files {
            if !listed.iter().any(|w| w.path == got.path) {
                problems.push(problem(
                    &got.path,
                    "stats_file_unlisted",
                    "is a file of the published ledger, but STATS.json's ledger.files does not list it",
                ));
            }
        }
        let a: Vec<&str> = listed.iter().map(|f| f.path.as_str()).collect();
        // A path listed twice is no chain order at all; say which (docs/scale.md#verify-site).
        if let Some(twice) = a
            .iter()
            .enumerate()
            .find_map(|(i, p)| a[..i].contains(p).then_some(p))
        {
            let twice = if crate::published::layout::is_output_path(twice) {
                (*twice).to_string()
            } else {
                "a path outside the layout".to_string()
            };
            problems.push(problem(
                stats_path,
                "stats_files_order",
                format!("ledger.files lists {twice} twice: each file of the published ledger is listed once, in chain order"),
            ));
            return;
        }
        let b: Vec<&str> = self.files.iter().map(|f| f.path.as_str()).collect();
        let common_a: Vec<&str> = a.iter().copied().filter(|p| b.contains(p)).collect();
        let common_b: Vec<&str> = b.iter().copied().filter(|p| a.contains(p)).collect();
        if common_a != common_b {
            problems.push(problem(
                stats_path,
                "stats_files_order",
                "ledger.files lists the published ledger's files in another order than the chain's (ledger.jsonl, then segments/ in name order)",
            ));
        }
    }
}
