//! The gate's ledger, read where it lies: a build keeps an open handle, not the bytes
//! (docs/scale.md#the-gates-ledger-is-not-held). Every stage reads the lines it needs from the
//! file, and every read that counts is tied to the bytes the verify stage re-derived:
//!
//! - the verify pass streams the whole ledger once and records its sha256;
//! - the decide pass (every line judged by the guard) streams it again, hashing as it reads,
//!   and fails the build when the sha256 differs, so the guard judged the verified bytes;
//! - a published file's bytes are hashed the first time they are read (STATS.json needs the
//!   digest) and every later read (the self-check, the page, the write) must give that digest;
//!   the self-check re-derives those bytes to the gate's head, so what is written is what was
//!   verified and judged.
//!
//! The gate may append while a build runs (only the lines up to the last LF at open are read);
//! a ledger rewritten under a running build fails the build, and a failed build writes nothing.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use anyhow::{Context, Result, bail};
use exhibit_protocol::Digest;
use sha2::Digest as _;

use crate::operator_box::read::FileClass;

/// How much is read at once: large enough that a read costs nothing per line, small enough that
/// a build holds next to nothing of the ledger.
const CHUNK: usize = 1 << 20;

/// The gate's ledger, open.
#[derive(Debug)]
pub struct GateLedger {
    path: PathBuf,
    file: File,
    /// Bytes up to and including the last LF when the file was opened: the lines a build reads.
    complete: usize,
    /// Bytes after that LF: the gate may be writing that line (left out and said).
    unterminated_tail: usize,
    /// The sha256 of the complete lines, as the verify pass read them.
    verified: OnceLock<Digest>,
}

impl GateLedger {
    /// Opens the ledger the operator named: a regular file within its ceiling
    /// (docs/build.md#safety), and finds its last LF.
    pub fn open(path: &Path) -> Result<GateLedger> {
        let file = crate::operator_box::read::open_named(path, FileClass::Ledger)
            .with_context(|| format!("{}: cannot read the gate's ledger", path.display()))?;
        let len = file
            .metadata()
            .with_context(|| format!("{}: cannot stat", path.display()))?
            .len();
        let len = usize::try_from(len)
            .with_context(|| format!("{}: too large for this machine", path.display()))?;
        let mut ledger = GateLedger {
            path: path.to_path_buf(),
            file,
            complete: 0,
            unterminated_tail: 0,
            verified: OnceLock::new(),
        };
        // Backwards, a chunk at a time, to the last LF.
        let mut end = len;
        let mut buf = Vec::new();
        ledger.complete = loop {
            if end == 0 {
                break 0;
            }
            let start = end.saturating_sub(CHUNK);
            buf.resize(end - start, 0);
            ledger.read_exact(start, &mut buf)?;
            if let Some(i) = buf.iter().rposition(|&b| b == b'\n') {
                break start + i + 1;
            }
            end = start;
        };
        ledger.unterminated_tail = len - ledger.complete;
        Ok(ledger)
    }

    /// The length of the complete lines.
    pub fn len(&self) -> usize {
        self.complete
    }

    pub fn is_empty(&self) -> bool {
        self.complete == 0
    }

    pub fn unterminated_tail(&self) -> usize {
        self.unterminated_tail
    }

    fn read_exact(&self, at: usize, buf: &mut [u8]) -> Result<()> {
        self.file.read_exact_at(buf, at as u64).with_context(|| {
            format!(
                "{}: cannot read bytes {at}..{} (was the ledger shortened while the build ran?)",
                self.path.display(),
                at + buf.len()
            )
        })
    }

    fn check_range(&self, start: usize, end: usize) -> Result<()> {
        if start > end || end > self.complete {
            bail!(
                "{}: bytes {start}..{end} asked of a ledger of {} complete bytes; this is exhibit's fault: please report it",
                self.path.display(),
                self.complete
            );
        }
        Ok(())
    }

    /// The offset of the first LF (the end of the header line).
    pub fn first_lf(&self) -> Result<Option<usize>> {
        let (mut at, mut buf) = (0, Vec::new());
        while at < self.complete {
            let n = CHUNK.min(self.complete - at);
            buf.resize(n, 0);
            self.read_exact(at, &mut buf)?;
            if let Some(i) = buf.iter().position(|&b| b == b'\n') {
                return Ok(Some(at + i));
            }
            at += n;
        }
        Ok(None)
    }

    /// Bytes `start..end` of the complete lines.
    pub fn read(&self, start: usize, end: usize) -> Result<Vec<u8>> {
        self.check_range(start, end)?;
        let mut buf = vec![0; end - start];
        self.read_exact(start, &mut buf)?;
        Ok(buf)
    }

    /// The spans `(start, end)` read in order, a chunk at a time, each piece handed to `each`.
    pub fn read_spans(
        &self,
        spans: &[(usize, usize)],
        mut each: impl FnMut(&[u8]) -> Result<()>,
    ) -> Result<()> {
        let mut buf = Vec::new();
        for &(start, end) in spans {
            self.check_range(start, end)?;
            let mut at = start;
            while at < end {
                let n = CHUNK.min(end - at);
                buf.resize(n, 0);
                self.read_exact(at, &mut buf)?;
                each(&buf)?;
                at += n;
            }
        }
        Ok(())
    }

    /// The complete lines as one stream from the start; [`Stream::digest`] gives their sha256.
    pub fn stream(&self) -> Stream<'_> {
        Stream {
            ledger: self,
            buf: Vec::new(),
            pos: 0,
            at: 0,
            hasher: sha2::Sha256::new(),
        }
    }

    /// Records the sha256 of the lines the verify pass re-derived (once).
    pub fn set_verified(&self, digest: Digest) {
        let _ = self.verified.set(digest);
    }

    /// The lines read one after another in the order of their offsets. `check` hashes every
    /// byte so that [`Lines::finish`] can hold them to the verified sha256.
    pub fn lines(&self, check: bool) -> Lines<'_> {
        Lines {
            ledger: self,
            held: Vec::new(),
            held_from: 0,
            read_to: 0,
            last_start: 0,
            lfs_before: 0,
            counted_to: 0,
            hasher: check.then(sha2::Sha256::new),
        }
    }

    /// Lines read from byte `from` on, not checked: for a stage that needs the lines of a range
    /// (an index run: docs/tree.md#carried) without reading what lies before it. Its line
    /// numbers count from `from`, not from the start.
    pub fn lines_from(&self, from: usize) -> Lines<'_> {
        Lines {
            ledger: self,
            held: Vec::new(),
            held_from: from,
            read_to: from,
            last_start: from,
            lfs_before: 0,
            counted_to: from,
            hasher: None,
        }
    }

    fn changed(&self) -> anyhow::Error {
        anyhow::anyhow!(
            "{}: changed while the build ran (the lines read again are not the lines verified; the gate may append, never rewrite); nothing was written — run the build again",
            self.path.display()
        )
    }
}

/// [`GateLedger::stream`]: a reader of the complete lines, hashing as it goes.
pub struct Stream<'a> {
    ledger: &'a GateLedger,
    buf: Vec<u8>,
    pos: usize,
    /// The file offset just past `buf`.
    at: usize,
    hasher: sha2::Sha256,
}

impl Stream<'_> {
    /// The sha256 of every byte read (the whole ledger once the stream is at its end).
    pub fn digest(self) -> Digest {
        Digest(self.hasher.finalize().into())
    }
}

impl std::io::Read for Stream<'_> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        crate::operator_box::read::read_buffered(self, out)
    }
}

impl std::io::BufRead for Stream<'_> {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        if self.pos == self.buf.len() && self.at < self.ledger.complete {
            let n = CHUNK.min(self.ledger.complete - self.at);
            self.buf.resize(n, 0);
            self.ledger
                .file
                .read_exact_at(&mut self.buf, self.at as u64)?;
            self.hasher.update(&self.buf);
            self.at += n;
            self.pos = 0;
        }
        Ok(&self.buf[self.pos..])
    }

    fn consume(&mut self, n: usize) {
        self.pos = (self.pos + n).min(self.buf.len());
    }
}

/// [`GateLedger::lines`]: lines asked in the order of their offsets, read a chunk at a time.
pub struct Lines<'a> {
    ledger: &'a GateLedger,
    held: Vec<u8>,
    /// The file offset of `held[0]`.
    held_from: usize,
    /// The file offset just past `held`: everything before it has been read (and hashed).
    read_to: usize,
    /// The start of the last line asked: lines are asked in order.
    last_start: usize,
    /// The LFs before `counted_to`: the line asked last is line `lfs_before + 1` of the file,
    /// counted as the bytes pass, so that a line's record need not keep its number
    /// (docs/scale.md#line-numbers-counted).
    lfs_before: u64,
    counted_to: usize,
    hasher: Option<sha2::Sha256>,
}

impl Lines<'_> {
    /// Bytes `start..end`; `start` may not be before the start of the previous call's.
    pub fn get(&mut self, start: usize, end: usize) -> Result<&[u8]> {
        self.ledger.check_range(start, end)?;
        if start < self.last_start {
            bail!(
                "{}: bytes {start}.. asked after bytes {}..; this is exhibit's fault: please report it",
                self.ledger.path.display(),
                self.last_start
            );
        }
        self.last_start = start;
        while self.read_to < end {
            // What lies before `start` is not needed again (once its LFs are counted).
            let keep_from = start.min(self.read_to);
            self.count_lfs_to(keep_from);
            self.held.drain(..keep_from - self.held_from);
            self.held_from = keep_from;
            let n = CHUNK.min(self.ledger.complete - self.read_to);
            let old = self.held.len();
            self.held.resize(old + n, 0);
            self.ledger
                .read_exact(self.read_to, &mut self.held[old..])?;
            if let Some(h) = &mut self.hasher {
                h.update(&self.held[old..]);
            }
            self.read_to += n;
        }
        self.count_lfs_to(start);
        Ok(&self.held[start - self.held_from..end - self.held_from])
    }

    /// [`Lines::get`], with the line's number in the file (from 1, the header's).
    pub fn get_numbered(&mut self, start: usize, end: usize) -> Result<(u64, &[u8])> {
        self.get(start, end)?;
        let bytes = &self.held[start - self.held_from..end - self.held_from];
        Ok((self.lfs_before + 1, bytes))
    }

    /// Counts the LFs of the held bytes from `counted_to` to `to` (`to` never goes back: lines
    /// are asked in order).
    fn count_lfs_to(&mut self, to: usize) {
        if to > self.counted_to {
            let held = &self.held[self.counted_to - self.held_from..to - self.held_from];
            self.lfs_before += held.iter().filter(|&&b| b == b'\n').count() as u64;
            self.counted_to = to;
        }
    }

    /// Reads the rest and, for a checking pass, holds every byte read to the sha256 the verify
    /// pass recorded: an error when the ledger changed in between.
    pub fn finish(mut self) -> Result<()> {
        if self.hasher.is_none() {
            return Ok(());
        }
        // Asking for the empty span at the end reads (and hashes) everything not read yet.
        let end = self.ledger.complete;
        self.get(end, end)?;
        let read = Digest(self.hasher.take().unwrap_or_default().finalize().into());
        match self.ledger.verified.get() {
            Some(v) if *v == read => Ok(()),
            Some(_) => Err(self.ledger.changed()),
            None => bail!(
                "{}: read for the guard before it was verified; this is exhibit's fault: please report it",
                self.ledger.path.display()
            ),
        }
    }
}

/// A published file of the cut: spans of the gate's ledger, read when needed. Its sha256 is
/// taken at the first read; every later read must give the same bytes.
#[derive(Debug)]
pub struct LedgerSpans {
    pub ledger: std::sync::Arc<GateLedger>,
    pub spans: Vec<(usize, usize)>,
    digest: OnceLock<Digest>,
}

impl LedgerSpans {
    pub fn new(ledger: std::sync::Arc<GateLedger>, spans: Vec<(usize, usize)>) -> LedgerSpans {
        LedgerSpans {
            ledger,
            spans,
            digest: OnceLock::new(),
        }
    }

    /// The same spans whose sha256 a build before this one found (docs/tree.md#carried): not
    /// hashed to compare; the bytes read to write them must still hash to it.
    pub fn with_digest(self, digest: Digest) -> LedgerSpans {
        let _ = self.digest.set(digest);
        self
    }

    pub fn len(&self) -> u64 {
        self.spans.iter().map(|(a, b)| (b - a) as u64).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The sha256 when it has been taken.
    pub fn known_sha256(&self) -> Option<Digest> {
        self.digest.get().copied()
    }

    /// The bytes' sha256, read and hashed the first time.
    pub fn sha256(&self) -> Result<Digest> {
        if let Some(d) = self.digest.get() {
            return Ok(*d);
        }
        let mut h = sha2::Sha256::new();
        self.ledger.read_spans(&self.spans, |piece| {
            h.update(piece);
            Ok(())
        })?;
        Ok(*self.digest.get_or_init(|| Digest(h.finalize().into())))
    }

    /// The bytes, read; they must hash to the digest of the first read.
    pub fn bytes(&self) -> Result<Vec<u8>> {
        let mut out = Vec::with_capacity(usize::try_from(self.len()).unwrap_or(0));
        self.write_into(&mut out)?;
        Ok(out)
    }

    /// The bytes written into `out` as they are read, never held whole (a ledger segment is up
    /// to 32 MiB, made on a first build's peak: docs/scale.md#nothing-made-to-be-dropped). They must hash to the
    /// digest of the first read: when they do not, an error, and what `out` received is not
    /// the file (the caller removes it: DIR's file stays the old one).
    pub fn write_into(&self, out: &mut dyn std::io::Write) -> Result<()> {
        let mut h = sha2::Sha256::new();
        self.ledger.read_spans(&self.spans, |piece| {
            h.update(piece);
            out.write_all(piece)?;
            Ok(())
        })?;
        let read = Digest(h.finalize().into());
        if *self.digest.get_or_init(|| read) != read {
            return Err(self.ledger.changed());
        }
        Ok(())
    }

    /// The bytes as a reader, a chunk held at a time (a ledger file is up to 32 MiB, and the
    /// self-check read one whole on a first build's peak: docs/scale.md#the-self-check-streamed).
    /// At the end they must hash to the digest of the first read: when they do not, the last
    /// read is an error, so a reader that reads to the end never takes changed bytes as the file.
    pub fn reader(&self) -> SpansReader<'_> {
        SpansReader {
            file: self,
            span: 0,
            at: self.spans.first().map_or(0, |s| s.0),
            buf: Vec::new(),
            pos: 0,
            hasher: Some(sha2::Sha256::new()),
        }
    }

    /// The first `n` bytes (not held to the digest: only a look at the start).
    pub fn head(&self, n: usize) -> Result<Vec<u8>> {
        let mut out = Vec::with_capacity(n);
        let mut spans = Vec::new();
        let mut left = n;
        for &(a, b) in &self.spans {
            if left == 0 {
                break;
            }
            let take = left.min(b - a);
            spans.push((a, a + take));
            left -= take;
        }
        self.ledger.read_spans(&spans, |piece| {
            out.extend_from_slice(piece);
            Ok(())
        })?;
        Ok(out)
    }
}

impl PartialEq for LedgerSpans {
    fn eq(&self, other: &LedgerSpans) -> bool {
        std::sync::Arc::ptr_eq(&self.ledger, &other.ledger) && self.spans == other.spans
    }
}

impl Eq for LedgerSpans {}

impl Clone for LedgerSpans {
    fn clone(&self) -> LedgerSpans {
        LedgerSpans {
            ledger: self.ledger.clone(),
            spans: self.spans.clone(),
            digest: self.digest.clone(),
        }
    }
}

/// A gate's ledger of `bytes` in a folder of its own, for tests elsewhere in the crate that
/// need files of spans of it.
#[cfg(test)]
pub(crate) fn ledger_for_test(bytes: &[u8]) -> (tempfile::TempDir, std::sync::Arc<GateLedger>) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ledger.jsonl");
    std::fs::write(&path, bytes).unwrap();
    let ledger = std::sync::Arc::new(GateLedger::open(&path).unwrap());
    (dir, ledger)
}

/// [`LedgerSpans::reader`]: the spans read in order, a chunk at a time, held at the end to the
/// digest of the first read.
pub struct SpansReader<'s> {
    file: &'s LedgerSpans,
    /// The span being read, and where in the ledger the next chunk starts.
    span: usize,
    at: usize,
    buf: Vec<u8>,
    pos: usize,
    /// `None` once the end was reached and checked.
    hasher: Option<sha2::Sha256>,
}

impl SpansReader<'_> {
    /// The next chunk into `buf`; at the end, the digest check (once).
    fn refill(&mut self) -> Result<()> {
        self.buf.clear();
        self.pos = 0;
        let spans = &self.file.spans;
        while let Some(&(start, end)) = spans.get(self.span) {
            if self.at < end {
                self.file.ledger.check_range(start, end)?;
                let n = CHUNK.min(end - self.at);
                self.buf.resize(n, 0);
                self.file.ledger.read_exact(self.at, &mut self.buf)?;
                self.at += n;
                if let Some(h) = &mut self.hasher {
                    h.update(&self.buf);
                }
                return Ok(());
            }
            self.span += 1;
            self.at = spans.get(self.span).map_or(0, |s| s.0);
        }
        if let Some(h) = self.hasher.take() {
            let read = Digest(h.finalize().into());
            if *self.file.digest.get_or_init(|| read) != read {
                return Err(self.file.ledger.changed());
            }
        }
        Ok(())
    }
}

impl std::io::Read for SpansReader<'_> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        crate::operator_box::read::read_buffered(self, out)
    }
}

impl std::io::BufRead for SpansReader<'_> {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        if self.pos == self.buf.len() {
            self.refill()
                .map_err(|e| std::io::Error::other(format!("{e:#}")))?;
        }
        Ok(&self.buf[self.pos..])
    }

    fn consume(&mut self, n: usize) {
        self.pos = (self.pos + n).min(self.buf.len());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn ledger_file(bytes: &[u8]) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ledger.jsonl");
        std::fs::write(&path, bytes).unwrap();
        (dir, path)
    }

    #[test]
    fn the_complete_lines_end_at_the_last_lf_even_past_a_chunk() {
        // A tail longer than a chunk: the last LF is found a chunk further back.
        let mut bytes = b"one\ntwo\n".to_vec();
        bytes.extend(std::iter::repeat_n(b'x', CHUNK + 10));
        let (_d, path) = ledger_file(&bytes);
        let l = GateLedger::open(&path).unwrap();
        assert_eq!((l.len(), l.unterminated_tail()), (8, CHUNK + 10));
        let (_d, path) = ledger_file(b"no lf at all");
        let l = GateLedger::open(&path).unwrap();
        assert_eq!((l.len(), l.unterminated_tail()), (0, 12));
        let (_d, path) = ledger_file(b"");
        assert_eq!(GateLedger::open(&path).unwrap().len(), 0);
    }

    #[test]
    fn lines_read_across_chunks_give_the_file_s_bytes() {
        // Lines of varied lengths straddling chunk boundaries, one longer than a chunk.
        let mut bytes = Vec::new();
        let mut spans = Vec::new();
        for i in 0..600usize {
            let len = if i == 300 {
                CHUNK + 7
            } else {
                (i * 7919) % 9000
            };
            let start = bytes.len();
            bytes.extend(std::iter::repeat_n(b'a' + (i % 26) as u8, len));
            spans.push((start, bytes.len()));
            bytes.push(b'\n');
        }
        let (_d, path) = ledger_file(&bytes);
        let l = GateLedger::open(&path).unwrap();
        let mut s = l.stream();
        let mut all = Vec::new();
        std::io::Read::read_to_end(&mut s, &mut all).unwrap();
        assert_eq!(all, bytes);
        l.set_verified(s.digest());
        let mut lines = l.lines(true);
        for (i, &(a, b)) in spans.iter().enumerate().filter(|(i, _)| i % 3 != 1) {
            assert_eq!(lines.get(a, b).unwrap(), &bytes[a..b], "line {i}");
        }
        lines.finish().unwrap();
        // Each line's number, counted as the bytes pass (docs/scale.md#line-numbers-counted):
        // lines skipped, empty ones (i = 0), one longer than a chunk and the ones after it.
        // Catches LFs counted twice when a chunk is read in the middle of a line, or lost
        // when the bytes before a line are let go.
        let mut lines = l.lines(false);
        for (i, &(a, b)) in spans.iter().enumerate().filter(|(i, _)| i % 3 != 1) {
            let (number, got) = lines.get_numbered(a, b).unwrap();
            assert_eq!((number, got), (i as u64 + 1, &bytes[a..b]), "line {i}");
        }
        // Asked out of order: an error, not wrong bytes.
        let mut lines = l.lines(false);
        lines.get(spans[5].0, spans[5].1).unwrap();
        assert!(lines.get(spans[2].0, spans[2].1).is_err());
        assert!(l.read(0, bytes.len() + 1).is_err());
    }

    #[test]
    fn a_ledger_rewritten_after_it_was_verified_fails_the_checking_pass_and_the_files() {
        let (_d, path) = ledger_file(b"header\nline one\nline two\n");
        let l = Arc::new(GateLedger::open(&path).unwrap());
        let mut s = l.stream();
        std::io::Read::read_to_end(&mut s, &mut Vec::new()).unwrap();
        l.set_verified(s.digest());
        let file = LedgerSpans::new(l.clone(), vec![(0, 7), (16, 25)]);
        assert_eq!(file.bytes().unwrap(), b"header\nline two\n");
        let digest = file.sha256().unwrap();
        // Rewritten in place, same length (an append would change nothing read).
        std::fs::write(&path, b"header\nline one\nline TWO\n").unwrap();
        let mut lines = l.lines(true);
        assert_eq!(lines.get(7, 15).unwrap(), b"line one");
        let e = lines.finish().unwrap_err().to_string();
        assert!(e.contains("changed while the build ran"), "{e}");
        // The file's digest stays the first read's; a read of other bytes is refused.
        assert_eq!(file.sha256().unwrap(), digest);
        assert!(file.bytes().is_err());
        // An append leaves every complete line as it was.
        std::fs::write(&path, b"header\nline one\nline two\nmore\n").unwrap();
        assert_eq!(file.bytes().unwrap(), b"header\nline two\n");
        let mut lines = l.lines(true);
        lines.get(0, 6).unwrap();
        lines.finish().unwrap();
    }

    #[test]
    fn a_file_read_a_chunk_at_a_time_gives_its_bytes_and_is_held_to_its_digest() {
        // Spans that straddle a chunk's edge, one longer than a chunk, an empty one first and
        // in the middle: catches a span skipped or read twice, a chunk cut at the span's end,
        // and bytes handed over past the last span.
        let mut bytes = Vec::new();
        for i in 0..(3 * CHUNK + 500) {
            bytes.push(b'a' + (i % 26) as u8);
        }
        bytes.push(b'\n');
        let (_d, path) = ledger_file(&bytes);
        let l = Arc::new(GateLedger::open(&path).unwrap());
        let spans = vec![
            (5, 5),
            (10, CHUNK + 20),
            (CHUNK + 20, CHUNK + 20),
            (CHUNK + 30, 3 * CHUNK + 400),
            (3 * CHUNK + 450, 3 * CHUNK + 501),
        ];
        let file = LedgerSpans::new(l.clone(), spans);
        let want = file.bytes().unwrap();
        let mut got = Vec::new();
        // Read in small pieces, so a piece never lines up with a chunk.
        let mut reader = file.reader();
        let mut piece = [0u8; 4093];
        loop {
            let n = std::io::Read::read(&mut reader, &mut piece).unwrap();
            if n == 0 {
                break;
            }
            got.extend_from_slice(&piece[..n]);
        }
        assert_eq!(got.len() as u64, file.len());
        assert!(got == want, "the reader's bytes are not the file's");
        // No span: nothing, and no error.
        let empty = LedgerSpans::new(l.clone(), Vec::new());
        let mut none = Vec::new();
        std::io::Read::read_to_end(&mut empty.reader(), &mut none).unwrap();
        assert!(none.is_empty());
        // The ledger rewritten in place after the first read: every byte may be read, but the
        // end is an error, so the file is never taken whole from other bytes.
        let mut changed = bytes.clone();
        changed[3 * CHUNK] ^= 1;
        std::fs::write(&path, &changed).unwrap();
        let mut reader = file.reader();
        let e = std::io::Read::read_to_end(&mut reader, &mut Vec::new()).unwrap_err();
        assert!(e.to_string().contains("changed while the build ran"), "{e}");
        // A file whose digest was not taken yet takes it from its first read, as `bytes` does.
        let fresh = LedgerSpans::new(l, vec![(0, 100)]);
        std::io::Read::read_to_end(&mut fresh.reader(), &mut Vec::new()).unwrap();
        assert_eq!(fresh.known_sha256(), Some(Digest::of(&changed[..100])));
    }
}
