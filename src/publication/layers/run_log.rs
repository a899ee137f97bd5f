//! The tail's run log (`runs.jsonl`), published from the witness store without being held
//! (docs/scale.md#the-run-log-is-not-held). At a million lines the log is a quarter of a
//! gigabyte; the build keeps of it one length per line and reads it three times:
//!
//! 1. [`read`]: each line is cut (a withheld seq's moments to their day), guarded, counted as a
//!    run and measured; HEAD's run-log files are compared with the cut lines as they pass; the
//!    whole file's sha256 is taken.
//! 2. [`lay_out`]: the cut lines are laid into files (the ledger's cut, docs/witness.md#parts),
//!    then the log is read again to give each file its size and sha256; the whole file must hash
//!    as in pass 1, so those digests are of the lines the guard passed.
//! 3. The write stage makes each file again from its span of the store's log, and it must hash
//!    as in pass 2 ([`Remade`]), or the build fails and DIR stays as it was.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};
use std::io::BufRead;
use std::path::Path;
use std::sync::Arc;

use anyhow::{Context, Result};
use serde_json::Value as J;
use sha2::Digest as _;

use super::LayerContext;
use crate::operator_box::read::{BoxFolder, FileClass};
use crate::publication::layers::side_channels::{self, DayCut};
use crate::published::output_tree::{Content, Remade};
use crate::published::segments::Series;
use crate::terminal::refusal::Refusal;
use exhibit_protocol::Digest;

const NAME: &str = "runs.jsonl";

/// What the cut of one line does, in every pass alike: a line that is UTF-8 has each withheld
/// seq's moment that no published line shares printed as its day; a line that is not is left
/// as it is (and the build is refused).
fn cut_line<'a>(line: &'a [u8], to_cut: &BTreeSet<i64>, daycut: &mut DayCut) -> Cow<'a, [u8]> {
    match std::str::from_utf8(line) {
        Ok(text) => match side_channels::cut_moments(text, to_cut, daycut) {
            Cow::Borrowed(_) => Cow::Borrowed(line),
            Cow::Owned(o) => Cow::Owned(o.into_bytes()),
        },
        Err(_) => Cow::Borrowed(line),
    }
}

/// Pass 1 over the store's run log.
pub struct RunLog {
    store: Arc<Path>,
    to_cut: Arc<BTreeSet<i64>>,
    anchor_tz: String,
    /// How many runs it holds, and the last one (the moment REPORT.md speaks of).
    pub count: usize,
    pub last_run: Option<J>,
    /// Each line's length as published (its LF included).
    /// Four bytes a line: a line is within the log's 4 GiB ceiling, and the list of a run log's
    /// millions of lines, grown by doubling, held twice its size for a moment at 8
    /// (docs/scale.md#sized-to-what-is-asked).
    cut_lens: Vec<u32>,
    /// Lines whose cut changed their length: line index → length in the store's file.
    store_lens: BTreeMap<usize, u64>,
    store_sha256: Digest,
    /// How many bytes of the store's log pass 1 read: what the tail appends after is left for
    /// the next build.
    store_bytes: u64,
    /// The published log extends HEAD's files (compared by git blob id as the lines passed).
    extends_head: bool,
    /// The published log's sha256 and length: every line of it passed the guard, carried to
    /// the next build (docs/scale.md#carried-verdicts).
    pub published_sha256: Digest,
    pub published_bytes: u64,
    /// The lines not scanned, as the previous build carried them, are the lines it scanned.
    guarded_prefix_held: bool,
}

/// The carried state's file, magic and what it says: the published run log's first
/// `published_bytes` bytes, of sha256 `published_sha256`, passed the guard.
pub const GUARDED_FILE: &str = "exhibit/runs-guarded";
const GUARDED_MAGIC: &[u8] = b"exhibit-runs-guarded\n";

/// What the previous build carried for the run log, or `None`.
pub fn guarded(git_dir: Option<&Path>) -> Option<(u64, Digest)> {
    let body = crate::previous::carried::read_for_binary(git_dir, GUARDED_FILE, GUARDED_MAGIC)?;
    let len = u64::from_le_bytes(body.get(..8)?.try_into().ok()?);
    let sum = Digest(body.get(8..40)?.try_into().ok()?);
    (body.len() == 40).then_some((len, sum))
}

impl RunLog {
    /// The state this log leaves for the next build, when every line passed the guard (a
    /// refused build saves nothing anyway).
    pub fn carried(&self, git_dir: Option<&Path>) -> Option<crate::previous::carried::Carried> {
        let mut body = self.published_bytes.to_le_bytes().to_vec();
        body.extend_from_slice(&self.published_sha256.0);
        crate::previous::carried::for_binary(git_dir, GUARDED_FILE, GUARDED_MAGIC, &body)
    }
}

/// Pass 1: reads `STORE/runs.jsonl` (no symlink, a regular file within its ceiling), a chunk at
/// a time. `None` (and a refusal) when it is missing. `head` is HEAD's run-log files `(path,
/// blob id, bytes)` in order, compared with the published bytes as they pass.
///
/// `guarded` is what the previous build carried (docs/scale.md#carried-verdicts): the length
/// and sha256 of the published log's first bytes, every line of which passed the guard then.
/// Lines within that length are not scanned again; once they have passed, their sha256 must be
/// the carried one, or the log is read again with every line scanned.
pub fn read(
    store: &Path,
    to_cut: BTreeSet<i64>,
    anchor_tz: &str,
    head: &[(String, git2::Oid, u64)],
    guarded: Option<(u64, Digest)>,
    refusals: &mut Vec<Refusal>,
) -> Result<Option<RunLog>> {
    let mut found = Vec::new();
    let log = read_once(store, to_cut.clone(), anchor_tz, head, guarded, &mut found)?;
    if let (Some(l), Some(_)) = (&log, guarded)
        && !l.guarded_prefix_held
    {
        // Not the log the previous build guarded (the tail rewrote it, or a withheld line now
        // cuts a moment in it): every line is scanned.
        return read(store, to_cut, anchor_tz, head, None, refusals);
    }
    refusals.extend(found);
    crate::terminal::progress::stage_times::carried(&format!(
        "{} bytes of the run log guarded by the previous build",
        guarded.map_or(0, |(len, _)| len)
    ));
    Ok(log)
}

fn read_once(
    store: &Path,
    to_cut: BTreeSet<i64>,
    anchor_tz: &str,
    head: &[(String, git2::Oid, u64)],
    guarded: Option<(u64, Digest)>,
    refusals: &mut Vec<Refusal>,
) -> Result<Option<RunLog>> {
    let shown = store.join(NAME).display().to_string();
    let Some(folder) = BoxFolder::published_from(store)? else {
        return Ok(None);
    };
    let Some(file) = folder.open(NAME, FileClass::RunLog)? else {
        refusals.push(super::witness::store::missing_store_file(&folder, NAME));
        return Ok(None);
    };
    let mut reader = std::io::BufReader::with_capacity(1 << 20, file);
    let mut daycut = DayCut::new(anchor_tz);
    let mut log = RunLog {
        store: Arc::from(store),
        to_cut: Arc::new(to_cut),
        anchor_tz: anchor_tz.to_string(),
        count: 0,
        last_run: None,
        cut_lens: Vec::new(),
        store_lens: BTreeMap::new(),
        store_sha256: Digest([0; 32]),
        store_bytes: 0,
        extends_head: true,
        published_sha256: Digest([0; 32]),
        published_bytes: 0,
        guarded_prefix_held: guarded.is_none(),
    };
    let mut hasher = sha2::Sha256::new();
    let mut published = sha2::Sha256::new();
    let mut head_cmp = HeadCompare::new(head);
    let mut last: Vec<u8> = Vec::new();
    let mut line = Vec::new();
    let mut no = 0usize;
    let mut not_utf8 = false;
    loop {
        line.clear();
        let n = reader
            .read_until(b'\n', &mut line)
            .with_context(|| format!("{shown}: cannot read"))?;
        if n == 0 {
            break;
        }
        no += 1;
        log.store_bytes += n as u64;
        hasher.update(&line);
        not_utf8 |= std::str::from_utf8(&line).is_err();
        let cut = cut_line(&line, &log.to_cut, &mut daycut);
        head_cmp.push(&cut)?;
        let Ok(cut_len) = u32::try_from(cut.len()) else {
            anyhow::bail!("{shown}: line {no} is 4 GiB or longer; a run log's line is one run");
        };
        log.cut_lens.push(cut_len);
        let carried = guarded.is_some_and(|(len, _)| log.published_bytes + cut.len() as u64 <= len);
        published.update(&cut);
        log.published_bytes += cut.len() as u64;
        if let Some((len, sum)) = guarded
            && log.published_bytes == len
        {
            log.guarded_prefix_held = Digest(published.clone().finalize().into()) == sum;
        }
        if cut.len() != line.len() {
            log.store_lens.insert(no - 1, line.len() as u64);
        }
        let terminated = cut.last() == Some(&b'\n');
        let body = if terminated {
            &cut[..cut.len() - 1]
        } else {
            &cut[..]
        };
        if !terminated {
            refusals.push(Refusal::new(
                "witness_runs_unterminated",
                &shown,
                format!("line {no}"),
                "the tail's run log ends in a line without LF (the tail may be writing it); it is copied whole (docs/protocol.md#witness)",
                "rebuild once the tail's run has finished",
            ));
        }
        if !carried && let Ok(text) = std::str::from_utf8(body) {
            for (_, codes) in side_channels::guard_lines(text) {
                refusals.push(Refusal::new(
                    "witness_log_identifier",
                    &shown,
                    format!("line {no}"),
                    format!(
                        "the tail's {NAME} carries an identifier's shape ({}); every published byte passes the guard (docs/build.md#safety)",
                        codes.join(", ")
                    ),
                    "repair the tail's file (no flag publishes an identifier from the store)",
                ));
            }
        }
        if body.is_empty() {
            continue;
        }
        // An object: it opens with `{` and parses (IgnoredAny builds nothing).
        if body.trim_ascii_start().starts_with(b"{")
            && serde_json::from_slice::<serde::de::IgnoredAny>(body).is_ok()
        {
            log.count += 1;
            last.clear();
            last.extend_from_slice(body);
        } else {
            refusals.push(Refusal::new(
                "witness_runs_invalid",
                &shown,
                format!("line {no}"),
                "not a JSON object; runs.jsonl holds one object per tail run",
                "repair the tail's run log",
            ));
        }
    }
    if not_utf8 {
        refusals.push(Refusal::new(
            "witness_log_not_utf8",
            &shown,
            "",
            "not UTF-8 text; the tail's logs are JSON lines",
            "repair the tail's file",
        ));
    }
    log.last_run = (log.count > 0)
        .then(|| serde_json::from_slice::<J>(&last).ok())
        .flatten();
    // Held through the write stage: no room kept past the log's lines.
    log.cut_lens.shrink_to_fit();
    log.store_sha256 = Digest(hasher.finalize().into());
    log.published_sha256 = Digest(published.finalize().into());
    log.extends_head = head_cmp.finish();
    Ok(Some(log))
}

/// HEAD's run-log files compared, as the published bytes pass, with the same bytes of the new
/// log: each file's git blob id is hashed as its bytes pass, none held (a file is up to 32 MiB,
/// and was held at the witness layer's peak: docs/scale.md#names-not-held).
struct HeadCompare<'h> {
    head: &'h [(String, git2::Oid, u64)],
    at: usize,
    /// The blob id of HEAD's file `at` being hashed, and how many of its bytes are still to come.
    hashing: Option<(sha1::Sha1, u64)>,
    same: bool,
}

impl<'h> HeadCompare<'h> {
    fn new(head: &'h [(String, git2::Oid, u64)]) -> HeadCompare<'h> {
        HeadCompare {
            head,
            at: 0,
            hashing: None,
            same: true,
        }
    }

    fn push(&mut self, mut bytes: &[u8]) -> Result<()> {
        use sha1::Digest as _;
        while self.same && self.at < self.head.len() {
            let (hasher, left) = self.hashing.get_or_insert_with(|| {
                // A blob's id is the SHA-1 of `blob <size>\0` and its bytes.
                let size = self.head[self.at].2;
                let mut hasher = sha1::Sha1::new();
                hasher.update(format!("blob {size}\0").as_bytes());
                (hasher, size)
            });
            if *left > 0 {
                if bytes.is_empty() {
                    break;
                }
                let take = usize::try_from(*left)
                    .unwrap_or(usize::MAX)
                    .min(bytes.len());
                hasher.update(&bytes[..take]);
                *left -= take as u64;
                bytes = &bytes[take..];
                if *left > 0 {
                    break;
                }
            }
            let Some((hasher, _)) = self.hashing.take() else {
                break;
            };
            let id = git2::Oid::from_bytes(&hasher.finalize())?;
            self.same = id == self.head[self.at].1;
            self.at += 1;
        }
        Ok(())
    }

    /// Every HEAD file was met, each the same.
    fn finish(self) -> bool {
        self.same && self.at == self.head.len()
    }
}

impl RunLog {
    /// The published log's length.
    pub fn len(&self) -> u64 {
        self.cut_lens.iter().map(|&len| u64::from(len)).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn extends_head(&self) -> bool {
        self.extends_head
    }

    /// A line's length in the store's file (`None` past the lines pass 1 read).
    fn store_len(&self, line: usize) -> Option<u64> {
        self.store_lens
            .get(&line)
            .copied()
            .or(self.cut_lens.get(line).map(|&len| u64::from(len)))
    }

    /// Pass 2: the published log laid into `files` (path, lines) in order, each made from its
    /// span of the store's log; the store's log must still hash as in pass 1.
    pub fn lay_out(&self, files: &[(String, usize)]) -> Result<Vec<(String, Content)>> {
        let shown = self.store.join(NAME);
        let file = open(&self.store)?;
        let mut reader =
            std::io::BufReader::with_capacity(1 << 20, std::io::Read::take(file, self.store_bytes));
        let mut hasher = sha2::Sha256::new();
        let mut daycut = DayCut::new(&self.anchor_tz);
        let mut out = Vec::with_capacity(files.len());
        let (mut line, mut offset) = (0usize, 0u64);
        let mut buf = Vec::new();
        for (path, lines) in files {
            let start = offset;
            let (mut len, mut sha) = (0u64, sha2::Sha256::new());
            for _ in 0..*lines {
                buf.clear();
                reader
                    .read_until(b'\n', &mut buf)
                    .with_context(|| format!("{}: cannot read", shown.display()))?;
                if Some(buf.len() as u64) != self.store_len(line) {
                    return Err(changed(&shown));
                }
                hasher.update(&buf);
                let cut = cut_line(&buf, &self.to_cut, &mut daycut);
                len += cut.len() as u64;
                sha.update(&cut);
                offset += buf.len() as u64;
                line += 1;
            }
            let (store, to_cut, tz) = (
                self.store.clone(),
                self.to_cut.clone(),
                self.anchor_tz.clone(),
            );
            let end = offset;
            let made = Remade::streamed(len, Digest(sha.finalize().into()), move |out| {
                make_into(&store, (start, end), &to_cut, &tz, out)
            });
            out.push((path.clone(), Content::Remade(made)));
        }
        // The rest of the file (none, when `files` hold every line) is hashed too.
        let mut rest = Vec::new();
        std::io::Read::read_to_end(&mut reader, &mut rest)
            .with_context(|| format!("{}: cannot read", shown.display()))?;
        hasher.update(&rest);
        if Digest(hasher.finalize().into()) != self.store_sha256 {
            return Err(changed(&shown));
        }
        Ok(out)
    }

    /// The published lines' lengths, for the cut.
    pub fn line_lens(&self) -> &[u32] {
        &self.cut_lens
    }
}

fn changed(path: &Path) -> anyhow::Error {
    anyhow::anyhow!(
        "{}: changed while the build ran (read again, it is not the run log that was guarded); nothing was written — run the build again",
        path.display()
    )
}

fn open(store: &Path) -> Result<std::fs::File> {
    BoxFolder::published_from(store)?
        .map(|f| f.open(NAME, FileClass::RunLog))
        .transpose()?
        .flatten()
        .map(std::io::Take::into_inner)
        .with_context(|| {
            format!(
                "{}: vanished while the build ran",
                store.join(NAME).display()
            )
        })
}

/// One published file of the log, made again from bytes `start..end` of the store's log.
fn make_into(
    store: &Path,
    (start, end): (u64, u64),
    to_cut: &BTreeSet<i64>,
    anchor_tz: &str,
    out: &mut dyn std::io::Write,
) -> Result<()> {
    let shown = store.join(NAME);
    let mut file = open(store)?;
    std::io::Seek::seek(&mut file, std::io::SeekFrom::Start(start))
        .with_context(|| format!("{}: cannot read bytes {start}..{end}", shown.display()))?;
    // Read and written a line at a time: a run-log file is 16 MiB, read whole and cut whole it
    // was held twice on a first build's peak (docs/scale.md#nothing-made-to-be-dropped).
    let mut reader =
        std::io::BufReader::with_capacity(1 << 16, std::io::Read::take(file, end - start));
    let mut daycut = DayCut::new(anchor_tz);
    let (mut line, mut read) = (Vec::new(), 0u64);
    loop {
        line.clear();
        let n = reader
            .read_until(b'\n', &mut line)
            .with_context(|| format!("{}: cannot read bytes {start}..{end}", shown.display()))?;
        if n == 0 {
            break;
        }
        read += n as u64;
        out.write_all(&cut_line(&line, to_cut, &mut daycut))
            .context("cannot write")?;
    }
    anyhow::ensure!(
        read == end - start,
        "{}: cannot read bytes {start}..{end} (the file was shortened while the build ran)",
        shown.display()
    );
    Ok(())
}

/// The run log's files: one `runs.jsonl` while the ledger is one file and the log fits in
/// `segment_bytes`; else laid by the ledger's cut (docs/witness.md#parts): HEAD's run-log files
/// keep their bytes when these bytes extend them, new lines fill the last file up to
/// `segment_bytes`, then `runs/NNNNNN.jsonl`. When they do not extend HEAD's (the tail rewrote
/// its log, or a moment's cut changed), the cut runs afresh from the first line and a note says
/// so. The log grows with the tail's runs, not the ledger's lines: a small ledger with years of
/// runs behind it passes `segment_bytes` too (docs/scale.md#the-run-log-is-not-held).
pub fn files(
    ctx: &LayerContext<'_>,
    series: &Series,
    log: &RunLog,
    head: &[(String, git2::Oid, u64)],
    notes: &mut Vec<String>,
) -> Result<Vec<(String, Content)>> {
    let split = ctx.segmented
        || log.len() > ctx.plan.config.segment_bytes
        || head.iter().any(|(p, _, _)| p.as_str() != series.first);
    if !split || log.is_empty() {
        return log.lay_out(&[(series.first.to_string(), log.line_lens().len())]);
    }
    if !log.extends_head() {
        notes.push(format!(
            "witness: the run log as published does not extend HEAD's ({}); it is laid into files afresh from its first line",
            head.iter()
                .map(|(p, _, _)| p.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    let kept: Vec<(String, u64)> = if log.extends_head() {
        // An empty runs.jsonl at HEAD holds no line to keep; the cut starts it afresh.
        head.iter()
            .filter(|(_, _, size)| *size > 0)
            .map(|(p, _, size)| (p.clone(), *size))
            .collect()
    } else {
        Vec::new()
    };
    let cut = crate::published::segments::cut_series(
        series,
        log.line_lens(),
        &kept,
        ctx.plan.config.segment_bytes,
    )
    .map_err(|e| anyhow::anyhow!("the witness run log cannot be laid into files: {e}"))?;
    let laid: Vec<(String, usize)> = cut.into_iter().map(|f| (f.path, f.lines)).collect();
    log.lay_out(&laid)
}

#[cfg(test)]
mod tests {
    use super::*;

    const T1: &str = "2026-11-08T21:01:34Z";
    const T2: &str = "2026-11-08T21:11:02Z";

    fn secs(t: &str) -> i64 {
        exhibit_protocol::days::parse_timestamp(t).unwrap()
    }

    /// A store holding `runs`, and the run log read from it with `T1` cut.
    fn store_with(runs: &str, head: &[(String, git2::Oid, u64)]) -> (tempfile::TempDir, RunLog) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(NAME), runs).unwrap();
        let mut refusals = Vec::new();
        let log = read(
            dir.path(),
            BTreeSet::from([secs(T1)]),
            "UTC",
            head,
            None,
            &mut refusals,
        )
        .unwrap()
        .unwrap();
        assert!(refusals.is_empty(), "{refusals:?}");
        (dir, log)
    }

    #[test]
    fn a_run_log_past_256_mib_is_opened_and_one_past_4_gib_is_refused() {
        // Read as it is published, the log needs no ceiling sized for memory: the generated
        // million-line box's is 259 MB (docs/scale.md#the-run-log-is-not-held). Catches the old
        // 256 MiB ceiling back, and no ceiling at all. Sparse files: nothing is written.
        let dir = tempfile::tempdir().unwrap();
        let folder = BoxFolder::named(dir.path()).unwrap().unwrap();
        let file = std::fs::File::create(dir.path().join(NAME)).unwrap();
        file.set_len(300 << 20).unwrap();
        assert!(folder.open(NAME, FileClass::RunLog).unwrap().is_some());
        file.set_len((4 << 30) + 1).unwrap();
        let err = folder.open(NAME, FileClass::RunLog).unwrap_err();
        assert!(format!("{err:#}").contains("4 GiB"), "{err:#}");
    }

    fn runs(n: usize) -> String {
        (0..n)
            .map(|i| {
                let at = if i % 3 == 0 { T1 } else { T2 };
                format!(
                    "{{\"batch\":{i},\"run_at\":\"{at}\",\"pad\":\"{}\"}}\n",
                    "x".repeat(i % 17)
                )
            })
            .collect()
    }

    #[test]
    fn the_files_laid_out_are_the_whole_log_cut_then_split_at_their_lines() {
        let text = runs(40);
        let (_d, log) = store_with(&text, &[]);
        assert_eq!(log.count, 40);
        assert_eq!(log.last_run.as_ref().unwrap()["batch"], 39);
        // What the whole-text cut gives, the way the log was always published.
        let whole =
            side_channels::cut_moments(&text, &BTreeSet::from([secs(T1)]), &mut DayCut::new("UTC"))
                .into_owned();
        assert!(whole.contains("\"run_at\":\"2026-11-08\"") && !whole.contains(T1));
        assert_eq!(log.len(), whole.len() as u64);
        let files = log
            .lay_out(&[("a".into(), 7), ("b".into(), 0), ("c".into(), 33)])
            .unwrap();
        let mut joined = Vec::new();
        for (_, content) in &files {
            let bytes = content.bytes().unwrap();
            assert_eq!(content.len(), bytes.len() as u64);
            assert_eq!(content.sha256().unwrap(), Digest::of(&bytes));
            joined.extend_from_slice(&bytes);
        }
        assert_eq!(joined, whole.as_bytes());
        assert_eq!(files[1].1.len(), 0);
        assert_eq!(
            &*files[0].1.bytes().unwrap(),
            whole
                .split_inclusive('\n')
                .take(7)
                .collect::<String>()
                .as_bytes()
        );
    }

    #[test]
    fn an_append_is_left_for_the_next_build_but_a_rewrite_fails_it() {
        let text = runs(10);
        let (dir, log) = store_with(&text, &[]);
        let path = dir.path().join(NAME);
        // The tail appends a run between the passes: the build lays out what it guarded.
        std::fs::write(&path, format!("{text}{{\"batch\":99}}\n")).unwrap();
        let files = log.lay_out(&[("a".into(), 10)]).unwrap();
        let made = files[0].1.bytes().unwrap();
        // Asked for more lines than pass 1 read: an error, never a line it did not guard.
        assert!(log.lay_out(&[("a".into(), 11)]).is_err());
        assert!(!String::from_utf8_lossy(&made).contains("99"));
        // Rewritten in place (same length) between pass 1 and pass 2: refused.
        std::fs::write(&path, text.replacen("batch", "BATCH", 1)).unwrap();
        let e = log.lay_out(&[("a".into(), 10)]).unwrap_err().to_string();
        assert!(e.contains("changed while the build ran"), "{e}");
        // Rewritten after pass 2: the write's making differs from the digest, and fails.
        std::fs::write(&path, &text).unwrap();
        let files = log.lay_out(&[("a".into(), 10)]).unwrap();
        std::fs::write(&path, text.replacen("batch", "BATCH", 1)).unwrap();
        assert!(files[0].1.bytes().is_err());
        // A store's log replaced by a symlink is not followed.
        std::fs::remove_file(&path).unwrap();
        std::os::unix::fs::symlink("/etc/passwd", &path).unwrap();
        assert!(files[0].1.bytes().is_err());
    }

    #[test]
    fn head_s_files_are_compared_with_the_cut_bytes_as_they_pass() {
        let text = runs(12);
        let whole =
            side_channels::cut_moments(&text, &BTreeSet::from([secs(T1)]), &mut DayCut::new("UTC"))
                .into_owned();
        let cut: Vec<&str> = whole.split_inclusive('\n').collect();
        let blob = |s: &str| git2::Oid::hash_object(git2::ObjectType::Blob, s.as_bytes()).unwrap();
        let file = |lines: &[&str]| lines.concat();
        let (a, b) = (file(&cut[..5]), file(&cut[5..9]));
        let head = |files: &[&String]| -> Vec<(String, git2::Oid, u64)> {
            files
                .iter()
                .enumerate()
                .map(|(i, f)| (format!("f{i}"), blob(f), f.len() as u64))
                .collect()
        };
        assert!(store_with(&text, &head(&[&a, &b])).1.extends_head());
        // HEAD held the log uncut: those bytes are not the ones published now.
        let uncut: String = text.split_inclusive('\n').take(5).collect();
        assert!(!store_with(&text, &head(&[&uncut])).1.extends_head());
        // HEAD's files hold more than the log now does.
        let all = file(&cut);
        let more = format!("{all}{{\"batch\":12}}\n");
        assert!(!store_with(&text, &head(&[&more])).1.extends_head());
        // A file boundary that is not a line boundary of HEAD's (split mid-line) still compares
        // bytes, as git does.
        let (x, y) = (all[..10].to_string(), all[10..].to_string());
        assert!(store_with(&text, &head(&[&x, &y])).1.extends_head());
    }

    #[test]
    fn head_s_blob_ids_are_hashed_across_any_pushes() {
        // Catches an incremental blob id that differs from git's (the `blob <size>\0` prefix),
        // loses bytes where a push spans two files, or never meets an empty file of HEAD's.
        let blob = |s: &[u8]| git2::Oid::hash_object(git2::ObjectType::Blob, s).unwrap();
        let all: Vec<u8> = (0..5000u32).flat_map(|i| i.to_le_bytes()).collect();
        let (a, b) = all.split_at(12_345);
        let head = [
            ("a".to_string(), blob(a), a.len() as u64),
            ("empty".to_string(), blob(b""), 0),
            ("b".to_string(), blob(b), b.len() as u64),
        ];
        for step in [1, 7, 4096, all.len()] {
            let mut cmp = HeadCompare::new(&head);
            for chunk in all.chunks(step) {
                cmp.push(chunk).unwrap();
            }
            assert!(cmp.finish(), "pushed {step} bytes at a time");
        }
        let mut changed = all.clone();
        changed[12_345 + 10] ^= 1;
        let mut cmp = HeadCompare::new(&head);
        cmp.push(&changed).unwrap();
        assert!(!cmp.finish(), "a changed byte in the last file");
        let mut cmp = HeadCompare::new(&head);
        cmp.push(&all[..all.len() - 1]).unwrap();
        assert!(!cmp.finish(), "the last file one byte short");
    }

    #[test]
    fn a_line_that_is_not_an_object_or_not_terminated_or_carries_an_identifier_is_refused_by_line()
    {
        let dir = tempfile::tempdir().unwrap();
        let text = "{\"batch\":1}\n[1]\n\n{\"note\":\"mail alice@example.com\"}\n{\"batch\":2}";
        std::fs::write(dir.path().join(NAME), text).unwrap();
        let mut refusals = Vec::new();
        let log = read(dir.path(), BTreeSet::new(), "UTC", &[], None, &mut refusals)
            .unwrap()
            .unwrap();
        let seen: Vec<(&str, &str)> = refusals
            .iter()
            .map(|r| (r.code, r.place.as_str()))
            .collect();
        assert!(
            seen.contains(&("witness_runs_invalid", "line 2")),
            "{seen:?}"
        );
        assert!(
            seen.contains(&("witness_log_identifier", "line 4")),
            "{seen:?}"
        );
        assert!(
            seen.contains(&("witness_runs_unterminated", "line 5")),
            "{seen:?}"
        );
        assert_eq!(log.count, 3);
        assert_eq!(log.last_run.as_ref().unwrap()["batch"], 2);
        // Copied whole, the unterminated line too.
        assert_eq!(log.len(), text.len() as u64);
    }
}
