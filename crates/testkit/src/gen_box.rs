//! The deterministic "gate box" generator: writes what `exhibit build` reads (docs/protocol.md#box) — the
//! gate's ledger, config, sources and anchor posts, and the witness tail's store — from a line
//! count and a seed, so the publisher, the page and their tests have a box that looks like the
//! deployed one, with every kind of line and every hard case the protocol names.
//!
//! Same options, byte-identical tree: the only randomness is our own splitmix64 streams seeded
//! from `seed`; no clock, no hash-map iteration reaches the output. The conventions the build
//! relies on are listed in the module's report (`BoxSummary`) and in `site-fixtures/README.md`.
//!
//! `write_store_as_of` writes a box's witness store as it stood when its ledger held fewer lines
//! (the same tail, cut in time): what benches/scale.sh gives each day's build.

use exhibit_protocol::Digest;
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fs::{self, File};
use std::io::{BufWriter, Write};
use std::path::Path;

use anyhow::{Context, Result, bail};
use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};
use sha2::{Digest as _, Sha256};

use exhibit_protocol::WitnessStatus as Status;
use exhibit_protocol::canonical::{self, Object, Value};
use exhibit_protocol::days::{self, DayDeriver};
use exhibit_protocol::ots;

pub const DEFAULT_START: &str = "2026-10-24T13:00:00Z";
pub const DEFAULT_TZ: &str = "America/New_York";
/// The tail opens this long after the header's `created`: 2026-10-24T13:00:00Z + this =
/// 2026-11-08T21:01:34Z, the deployed tail's opening moment (docs/protocol.md#witness).
pub const TAIL_OFFSET_SECONDS: i64 = 15 * 86_400 + 8 * 3600 + 60 + 34;
/// The opening batch's block (docs/protocol.md#witness) and its header time after the stamp (39 min 52 s).
pub const OPENING_BLOCK_HEIGHT: u64 = 975_101;
pub const OPENING_BLOCK_DELAY: i64 = 39 * 60 + 52;
/// A stamp becomes a proof at the first tail run this long (± 10 min) after it was stamped.
pub const UPGRADE_AFTER: i64 = 3 * 3600;
pub const HEADER_CERTIFIES: &str = "Each line records one outbound attempt of the agent darkflobi as hashes, verdicts and counts; no line holds the words of a message or a chat id.";
pub const CALENDARS: [&str; 4] = [
    "https://alice.btc.calendar.opentimestamps.org",
    "https://bob.btc.calendar.opentimestamps.org",
    "https://finney.calendar.eternitywall.com",
    "https://btc.calendar.catallaxy.com",
];
pub const PENDING_TAG: [u8; 8] = [0x83, 0xdf, 0xe3, 0x0d, 0x2e, 0xf9, 0x0c, 0x8e];
pub const BITCOIN_TAG: [u8; 8] = [0x05, 0x88, 0x96, 0x0d, 0x73, 0xd7, 0x19, 0x01];

/// What to generate.
#[derive(Debug, Clone)]
pub struct BoxOptions {
    /// Entries in the ledger (the header not counted; anchor lines counted).
    pub lines: u64,
    pub seed: u64,
    /// UTC timestamp of the header (`created`).
    pub start: String,
    pub anchor_tz: String,
    /// Write the witness store `wt/store/`.
    pub witness: bool,
    /// When the tail opens. `None`: `start` + 15 d 8 h 1 min 34 s when the ledger runs at least a
    /// day past that moment, else the timestamp of the entry at 80 % of the ledger (a box of a
    /// week would otherwise end before its tail opens; see `tail_start_rule` in the summary).
    pub tail_start: Option<String>,
    /// Per mille of ordinary lines that carry an identifier's shape (so the build withholds
    /// them). `None`: the usual mix, about 2 % of non-send lines and 1 % of sends. The same
    /// draws are made either way, so a box generated without it is unchanged.
    pub ident_per_mille: Option<u64>,
}

impl Default for BoxOptions {
    fn default() -> Self {
        BoxOptions {
            lines: 400,
            seed: 7,
            start: DEFAULT_START.to_string(),
            anchor_tz: DEFAULT_TZ.to_string(),
            witness: true,
            tail_start: None,
            ident_per_mille: None,
        }
    }
}

/// The seqs of the deterministic hard cases (None when the box was too short to hold one).
#[derive(Debug, Clone, Default, Serialize)]
pub struct HardCases {
    /// Public, allow-listed, sent as written (no trailer): `sources/<checked>.md` == sent bytes.
    pub as_written: Option<u64>,
    /// A dm send (off the allow-list) carrying the same four digests as `as_written`.
    pub dup_off_list: Option<u64>,
    /// Sent bytes carry two gate marks; re-derives from nothing.
    pub two_marks: Option<u64>,
    /// Public allow-listed send whose source is in no file.
    pub missing_source: Option<u64>,
    /// Re-derives, but the text holds `+1 (555) 010-9999` (text guard).
    pub guard_phone: Option<u64>,
    /// Re-derives, but the text holds a nine-digit run (text guard).
    pub guard_digits: Option<u64>,
    /// Re-derives, but the source holds ED A0 80 (a lone surrogate): not UTF-8.
    pub invalid_utf8: Option<u64>,
    /// Text only in `sources/<draft_sha256>.md`; `checked_sha256` names bytes not on disk.
    pub draft_only_md: Option<u64>,
    /// Text only in `sources/<draft_sha256>.draft.md`.
    pub draft_only_draft_md: Option<u64>,
    /// Allow-listed public send with action `blocked` and a source on disk (no_sent_bytes).
    pub blocked_with_source: Option<u64>,
    /// Canary send (action send) with a re-derivable source: must stay hash-only.
    pub canary_with_source: Option<u64>,
    /// Public send to a destination absent from config.json, with a re-derivable source.
    pub unlisted_public_with_source: Option<u64>,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct WitnessSummary {
    pub tail_start: String,
    /// "nominal" (start + 15 d 8 h 1 min 34 s), "inside_ledger" (80 % entry) or "given".
    pub tail_start_rule: String,
    pub last_run: String,
    pub runs: u64,
    pub batches: u64,
    /// Entries of index.json (chain lines recorded + the orphan).
    pub store_entries: u64,
    /// Chain lines stamped in the opening batch (retroactively).
    pub retroactive: u64,
    pub proof: u64,
    pub pending: u64,
    pub explorers_disagree: Vec<u64>,
    pub stamp_failed: Option<u64>,
    pub mismatch: Option<u64>,
    /// Seqs with no record (tail lag).
    pub unseen: Vec<u64>,
    pub orphan: Option<String>,
    /// The seq carrying two entry_ids (the orphan's seq).
    pub duplicate_seq: Option<u64>,
    /// `proofs/<stray>.ots`, named by no index entry.
    pub stray: String,
    pub prereg_sha256: String,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct BoxSummary {
    pub entries: u64,
    pub head: String,
    pub header_digest: String,
    pub first_day: Option<String>,
    pub last_day: Option<String>,
    /// Distinct `day` values among the entries.
    pub days: u64,
    pub anchors: usize,
    pub anchor_dates: Vec<String>,
    pub late_anchors: Vec<String>,
    pub kinds: BTreeMap<String, u64>,
    /// `send` lines with `dest_class: public`.
    pub public_sends: u64,
    /// Those lines by what the recipe of docs/protocol.md#public-texts makes of them: `published`, `guard_withheld`,
    /// `invalid_utf8`, `unreconstructable`, `no_sent_bytes`, `off_allow_list`.
    pub public_send_classes: BTreeMap<String, u64>,
    /// Seqs of lines carrying an identifier's shape in a text field (the publisher withholds them).
    pub identifier_lines: Vec<u64>,
    pub source_files: u64,
    pub hard_cases: HardCases,
    pub witness: Option<WitnessSummary>,
}

// ---------------------------------------------------------------------------------------------
// randomness

/// splitmix64: small, fast, and the same on every platform.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64, stream: u64) -> Rng {
        let mut r = Rng(seed ^ stream.wrapping_mul(0xD1B5_4A32_D192_ED03));
        r.next_u64();
        r
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (n > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
    }

    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + self.below((hi - lo + 1) as u64) as i64
    }

    /// True with probability `per_mille / 1000`.
    pub fn chance(&mut self, per_mille: u64) -> bool {
        self.below(1000) < per_mille
    }

    /// Uniform in [0, 1), 53 bits.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    pub fn fill(&mut self, out: &mut [u8]) {
        for chunk in out.chunks_mut(8) {
            let v = self.next_u64().to_le_bytes();
            chunk.copy_from_slice(&v[..chunk.len()]);
        }
    }

    pub fn bytes32(&mut self) -> [u8; 32] {
        let mut b = [0u8; 32];
        self.fill(&mut b);
        b
    }

    pub fn digest(&mut self) -> String {
        Digest(self.bytes32()).to_string()
    }

    pub fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len() as u64) as usize]
    }

    /// Index by weight.
    pub fn weighted(&mut self, weights: &[u64]) -> usize {
        let total: u64 = weights.iter().sum();
        let mut x = self.below(total);
        for (i, &w) in weights.iter().enumerate() {
            if x < w {
                return i;
            }
            x -= w;
        }
        weights.len() - 1
    }
}

// ---------------------------------------------------------------------------------------------
// small helpers

/// `YYYY-MM-DDTHH:MM:SSZ` of a unix second.
pub fn fmt_ts(secs: i64) -> String {
    let rem = secs.rem_euclid(86_400);
    format!(
        "{}T{:02}:{:02}:{:02}Z",
        days::civil_from_days(secs.div_euclid(86_400)),
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

fn local_day(deriver: &mut DayDeriver, secs: i64) -> i64 {
    (secs + deriver.offset_at(secs)).div_euclid(86_400)
}

fn sha256(bytes: &[u8]) -> [u8; 32] {
    Sha256::digest(bytes).into()
}

fn s(x: impl Into<Cow<'static, str>>) -> Value<'static> {
    Value::Str(x.into())
}

fn int(n: u64) -> Value<'static> {
    Value::Int(n as i64)
}

/// The gate's trailer (docs/protocol.md#public-texts). Written again here on purpose, not called from `public_texts`: the
/// generated boxes are the publisher's test oracle, and one shared function would let a wrong
/// trailer pass on both sides.
pub fn trailer(bound: u64, total: u64, seq: u64) -> String {
    format!("[gate: {bound} of {total} numerals bound \u{b7} ledger {seq:04}]")
}

/// The bytes with trailing newlines removed, two newlines, then the trailer (docs/protocol.md#public-texts).
pub fn with_trailer(text: &[u8], trailer: &str) -> Vec<u8> {
    let mut end = text.len();
    while end > 0 && text[end - 1] == b'\n' {
        end -= 1;
    }
    let mut out = Vec::with_capacity(end + 2 + trailer.len());
    out.extend_from_slice(&text[..end]);
    out.extend_from_slice(b"\n\n");
    out.extend_from_slice(trailer.as_bytes());
    out
}

// OpenTimestamps serialisation (just enough to be structurally plausible) -----------------------

fn varuint(mut n: u64, out: &mut Vec<u8>) {
    loop {
        let b = (n & 0x7f) as u8;
        n >>= 7;
        if n == 0 {
            out.push(b);
            return;
        }
        out.push(b | 0x80);
    }
}

fn ots_header(digest: &[u8; 32], out: &mut Vec<u8>) {
    out.extend_from_slice(ots::MAGIC);
    out.push(ots::VERSION);
    out.push(ots::OP_SHA256);
    out.extend_from_slice(digest);
}

/// `00`, the pending tag, then the payload as varbytes holding the url as varbytes.
fn pending_attestation(url: &str, out: &mut Vec<u8>) {
    out.push(0x00);
    out.extend_from_slice(&PENDING_TAG);
    let mut payload = Vec::with_capacity(url.len() + 2);
    varuint(url.len() as u64, &mut payload);
    payload.extend_from_slice(url.as_bytes());
    varuint(payload.len() as u64, out);
    out.extend_from_slice(&payload);
}

/// `00`, the bitcoin tag, then the payload as varbytes holding the block height as varuint.
fn bitcoin_attestation(height: u64, out: &mut Vec<u8>) {
    out.push(0x00);
    out.extend_from_slice(&BITCOIN_TAG);
    let mut payload = Vec::with_capacity(4);
    varuint(height, &mut payload);
    varuint(payload.len() as u64, out);
    out.extend_from_slice(&payload);
}

/// `f0 10 <16 bytes>` (append a nonce) then `08` (sha256).
fn nonce_op(rng: &mut Rng, out: &mut Vec<u8>) {
    out.extend_from_slice(&[0xf0, 0x10]);
    let mut nonce = [0u8; 16];
    rng.fill(&mut nonce);
    out.extend_from_slice(&nonce);
    out.push(0x08);
}

/// An anchor post's proof: header, nonce, one pending attestation (alice).
pub fn anchor_ots(post: &[u8], rng: &mut Rng) -> Vec<u8> {
    let mut out = Vec::with_capacity(160);
    ots_header(&sha256(post), &mut out);
    nonce_op(rng, &mut out);
    pending_attestation(CALENDARS[0], &mut out);
    out
}

/// A witness proof: header, nonce, two merkle steps, then one branch per calendar (forks marked
/// `ff`), and for an upgraded stamp a last branch ending in a bitcoin attestation.
fn witness_ots(
    digest: &[u8; 32],
    calendars: &[&str],
    bitcoin: Option<u64>,
    rng: &mut Rng,
    out: &mut Vec<u8>,
) {
    out.clear();
    ots_header(digest, out);
    nonce_op(rng, out);
    for op in [0xf0u8, 0xf1] {
        out.extend_from_slice(&[op, 0x20]);
        out.extend_from_slice(&rng.bytes32());
        out.push(0x08);
    }
    let branches = calendars.len() + usize::from(bitcoin.is_some());
    for (i, url) in calendars.iter().enumerate() {
        if i + 1 < branches {
            out.push(0xff);
        }
        pending_attestation(url, out);
    }
    if let Some(height) = bitcoin {
        out.extend_from_slice(&[0xf1, 0x20]);
        out.extend_from_slice(&rng.bytes32());
        out.push(0x08);
        out.extend_from_slice(&[0xf0, 0x20]);
        out.extend_from_slice(&rng.bytes32());
        out.push(0x08);
        bitcoin_attestation(height, out);
    }
}

// ---------------------------------------------------------------------------------------------
// message texts

const SUBJECTS: &[&str] = &[
    "The gate",
    "Our agent",
    "The canary run",
    "Today's digest",
    "The weekly build",
    "This thread",
    "The ledger",
    "The public channel",
    "The receipts bot",
    "Our summary",
    "The night shift",
    "The review queue",
];
const VERBS: &[&str] = &[
    "checked",
    "counted",
    "bound",
    "held back",
    "released",
    "flagged",
    "matched",
    "reviewed",
    "posted",
    "logged",
    "compared",
    "collected",
];
const COUNTED: &[&str] = &[
    "receipts",
    "figures",
    "numbers in the draft",
    "links",
    "claims",
    "sources",
    "replies",
    "open questions",
];
const PLAIN_OBJECTS: &[&str] = &[
    "every receipt",
    "the draft",
    "the weekly figures",
    "each claim",
    "the open questions",
    "the canary message",
    "the pinned note",
    "the summary",
];
const TAILS: &[&str] = &[
    "before posting.",
    "after review.",
    "for the record.",
    "as promised.",
    "without changes.",
    "this morning.",
    "tonight.",
    "once more.",
    "on the first pass.",
];
const UNICODE_TAILS: &[&str] = &[
    "\u{2014} as noted at the café.",
    "with a naïve first guess.",
    "per the résumé of the week.",
    "\u{2014} no more, no less.",
    "and said so in the fiancé's thread.",
];
const TITLES: &[&str] = &[
    "Weekly notes",
    "Status",
    "What the gate saw",
    "Receipts",
    "Changelog",
];

/// A few sentences of English holding exactly `numerals` small numbers, each inside words.
fn message_text(rng: &mut Rng, numerals: u64) -> String {
    let sentences = (numerals as usize).max(2 + rng.below(4) as usize);
    let unicode = rng.chance(200);
    let mut numeral_slots: Vec<bool> = (0..sentences).map(|i| i < numerals as usize).collect();
    // shuffle the slots
    for i in (1..numeral_slots.len()).rev() {
        let j = rng.below(i as u64 + 1) as usize;
        numeral_slots.swap(i, j);
    }
    let mut parts: Vec<String> = Vec::with_capacity(sentences);
    for &with_numeral in &numeral_slots {
        let subject = rng.pick(SUBJECTS);
        let verb = rng.pick(VERBS);
        let object = if with_numeral {
            format!("{} {}", rng.range(1, 999), rng.pick(COUNTED))
        } else {
            rng.pick(PLAIN_OBJECTS).to_string()
        };
        let tail = if unicode && rng.chance(500) {
            rng.pick(UNICODE_TAILS)
        } else {
            rng.pick(TAILS)
        };
        parts.push(format!("{subject} {verb} {object} {tail}"));
    }
    if unicode && !parts.iter().any(|p| !p.is_ascii()) {
        let last = parts.last_mut().expect("two or more sentences");
        last.pop();
        last.push_str(" \u{2014} as noted at the café.");
    }
    let mut text = match rng.weighted(&[62, 13, 13, 12]) {
        0 => parts.join(" "),
        1 => {
            // heading, body, quote
            let quote = parts.pop().expect("sentences");
            format!(
                "# {}\n\n{}\n\n> {}",
                rng.pick(TITLES),
                parts.join(" "),
                quote
            )
        }
        2 => {
            // bold a word of the first sentence
            let first = parts[0].clone();
            let mut words: Vec<&str> = first.split(' ').collect();
            let k = 1 + rng.below(words.len() as u64 - 2) as usize;
            let bold = format!("*{}*", words[k]);
            words[k] = &bold;
            parts[0] = words.join(" ");
            parts.join(" ")
        }
        _ => parts.join("\n\n"),
    };
    match rng.weighted(&[40, 50, 10]) {
        0 => {}
        1 => text.push('\n'),
        _ => text.push_str("\n\n"),
    }
    text
}

// ---------------------------------------------------------------------------------------------
// parallel file writing

/// Writes small files on a worker thread: a big box is a million small files, and creating them
/// is most of its time. Files go over in batches, so the two threads rarely wake each other.
/// What is written never depends on the order of writing.
/// Files waiting to be written: path and bytes.
type FileBatch = Vec<(std::path::PathBuf, Vec<u8>)>;

struct FileSink {
    batch: std::cell::RefCell<FileBatch>,
    tx: Option<std::sync::mpsc::SyncSender<FileBatch>>,
    worker: Option<std::thread::JoinHandle<std::io::Result<()>>>,
}

const SINK_BATCH: usize = 1024;

impl FileSink {
    fn new() -> FileSink {
        // One writer: creating files in one directory serialises on its lock in the kernel, so
        // more writers only spin; one thread still overlaps the writes with the generating.
        let (tx, rx) = std::sync::mpsc::sync_channel::<FileBatch>(16);
        let worker = std::thread::spawn(move || -> std::io::Result<()> {
            for batch in rx {
                for (path, bytes) in batch {
                    fs::write(&path, &bytes).map_err(|e| {
                        std::io::Error::new(e.kind(), format!("writing {}: {e}", path.display()))
                    })?;
                }
            }
            Ok(())
        });
        FileSink {
            batch: std::cell::RefCell::new(Vec::with_capacity(SINK_BATCH)),
            tx: Some(tx),
            worker: Some(worker),
        }
    }

    fn write(&self, path: std::path::PathBuf, bytes: Vec<u8>) -> Result<()> {
        let mut batch = self.batch.borrow_mut();
        batch.push((path, bytes));
        if batch.len() >= SINK_BATCH {
            let full = std::mem::replace(&mut *batch, Vec::with_capacity(SINK_BATCH));
            self.send(full)?;
        }
        Ok(())
    }

    fn send(&self, batch: FileBatch) -> Result<()> {
        self.tx
            .as_ref()
            .expect("open sink")
            .send(batch)
            .map_err(|_| anyhow::anyhow!("the file writer stopped (an earlier write failed)"))
    }

    /// Waits for every write; the first failure is the result.
    fn finish(mut self) -> Result<()> {
        let rest = std::mem::take(&mut *self.batch.borrow_mut());
        let sent = if rest.is_empty() {
            Ok(())
        } else {
            self.send(rest)
        };
        self.tx.take();
        let joined = match self.worker.take() {
            Some(worker) => worker
                .join()
                .map_err(|_| anyhow::anyhow!("the file writer panicked"))
                .and_then(|r| r.map_err(anyhow::Error::from)),
            None => Ok(()),
        };
        // A failed write explains a failed send: report it first.
        joined.and(sent)
    }
}

impl Drop for FileSink {
    fn drop(&mut self) {
        self.tx.take();
        if let Some(worker) = self.worker.take() {
            let _ = worker.join();
        }
    }
}

// ---------------------------------------------------------------------------------------------
// the ledger writer

struct Ledger {
    out: BufWriter<File>,
    core: Vec<u8>,
    line: Vec<u8>,
    deriver: DayDeriver,
    prev: String,
    seq: u64,
    last_ts: i64,
    last_day: i64,
    ids: Vec<[u8; 32]>,
    timestamps: Vec<i64>,
    kinds: BTreeMap<&'static str, u64>,
    first_day: Option<i64>,
    distinct_days: u64,
}

impl Ledger {
    /// Writes one entry: the chain's fields are added here. Returns its entry_id.
    fn emit(
        &mut self,
        ts: i64,
        kind: &'static str,
        fields: Vec<(&'static str, Value<'static>)>,
    ) -> Result<String> {
        self.seq += 1;
        let day = local_day(&mut self.deriver, ts);
        if self.first_day.is_none() || day != self.last_day {
            self.distinct_days += 1;
        }
        self.first_day.get_or_insert(day);
        let mut object = Object {
            members: Vec::with_capacity(fields.len() + 8),
        };
        object.members.push((
            Cow::Borrowed("schema"),
            s(exhibit_protocol::verify::ENTRY_SCHEMA),
        ));
        object.members.push((Cow::Borrowed("seq"), int(self.seq)));
        object
            .members
            .push((Cow::Borrowed("prev"), s(std::mem::take(&mut self.prev))));
        object.members.push((Cow::Borrowed("kind"), s(kind)));
        object
            .members
            .push((Cow::Borrowed("timestamp"), s(fmt_ts(ts))));
        object
            .members
            .push((Cow::Borrowed("day"), s(days::civil_from_days(day))));
        for (k, v) in fields {
            object.members.push((Cow::Borrowed(k), v));
        }
        self.core.clear();
        canonical::dump_object_except(&object, None, &mut self.core).map_err(|e| {
            anyhow::anyhow!("entry {} cannot be canonicalised: {}", self.seq, e.words())
        })?;
        let id_bytes = sha256(&self.core);
        let id = Digest(id_bytes).to_string();
        object
            .members
            .push((Cow::Borrowed("entry_id"), s(id.clone())));
        self.line.clear();
        canonical::dump_object_except(&object, None, &mut self.line).expect("core dumped");
        self.line.push(b'\n');
        self.out.write_all(&self.line)?;
        self.prev = id.clone();
        self.last_ts = ts;
        self.last_day = day;
        self.ids.push(id_bytes);
        self.timestamps.push(ts);
        *self.kinds.entry(kind).or_default() += 1;
        Ok(id)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Forced {
    ExecScan,
    AsWritten,
    DupOffList,
    TwoMarks,
    MissingSource,
    GuardPhone,
    GuardDigits,
    InvalidUtf8,
    DraftOnlyMd,
    DraftOnlyDraftMd,
    PinMoved,
    Restart,
    Deleted,
    GateNotWired,
    GateWired,
    LockRecovered,
    HeadRepaired,
    AnchorAnomaly,
    BlockedWithSource,
    CanaryWithSource,
    UnlistedPublicWithSource,
    IdentSend,
    IdentNonSend,
}

/// Where each forced case falls, as a fraction (per mille) of the ledger.
const SCHEDULE: &[(u64, Forced)] = &[
    (20, Forced::ExecScan),
    (60, Forced::AsWritten),
    (80, Forced::DupOffList),
    (100, Forced::TwoMarks),
    (140, Forced::MissingSource),
    (180, Forced::GuardPhone),
    (220, Forced::GuardDigits),
    (260, Forced::InvalidUtf8),
    (300, Forced::DraftOnlyMd),
    (320, Forced::DraftOnlyDraftMd),
    (340, Forced::PinMoved),
    (345, Forced::Restart),
    (400, Forced::Deleted),
    (440, Forced::GateNotWired),
    (460, Forced::GateWired),
    (500, Forced::LockRecovered),
    (550, Forced::HeadRepaired),
    (600, Forced::AnchorAnomaly),
    (640, Forced::BlockedWithSource),
    (680, Forced::CanaryWithSource),
    (720, Forced::UnlistedPublicWithSource),
    (760, Forced::IdentSend),
    (800, Forced::IdentNonSend),
];

/// How a send's message exists on disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SourceMode {
    /// No text behind the digests (random digests, nothing written).
    None,
    /// `<checked>.md`; sent = text + trailer.
    Trailer,
    /// `<checked>.md`; sent = text as written.
    AsWritten,
    /// `<draft>.md` only (draft = text + "\n"); sent = text + trailer.
    DraftMd,
    /// `<draft>.draft.md` only.
    DraftDraftMd,
    /// `<checked>.md`; sent carries two marks.
    TwoMarks,
    /// Nothing on disk although the digests are real.
    Missing,
    /// `<checked>.md` for a send that was not sent (no sent bytes).
    CheckedOnly,
}

struct Config {
    anchor_channel: String,
    canary: String,
    groups: [String; 2],
    operator_dm: String,
    /// Destinations absent from config.json.
    private_groups: [String; 3],
    other_dms: [String; 2],
}

struct Gen<'a> {
    rng: Rng,
    text_rng: Rng,
    ledger: Ledger,
    root: &'a Path,
    sink: &'a FileSink,
    written_sources: std::collections::BTreeSet<String>,
    config: Config,
    summary: BoxSummary,
    version: (u64, u64, u64),
    pin: String,
    wired: bool,
    /// (date, head) of the last anchor line.
    last_anchor: Option<(String, String)>,
    /// (seq, sent_sha256) of recent allow-listed public sends.
    recent_public: Vec<(u64, String)>,
    /// (seq, sent_sha256) of a send awaiting its `delivered` line.
    pending_delivery: Option<(u64, String)>,
    /// The four digests of the as-written public send, for the off-list duplicate.
    as_written_digests: Option<[String; 4]>,
    /// `BoxOptions::ident_per_mille`.
    ident_per_mille: Option<u64>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Dest {
    AllowListed,
    Unlisted,
    Dm,
    Canary,
    Group,
}

impl Gen<'_> {
    fn version_str(&self) -> String {
        format!("{}.{}.{}", self.version.0, self.version.1, self.version.2)
    }

    fn process(&self) -> Value<'static> {
        s(format!("gate/{}", self.version_str()))
    }

    fn nine_digits(&mut self) -> u64 {
        100_000_000 + self.rng.below(900_000_000)
    }

    fn mark_identifier(&mut self) {
        let seq = self.ledger.seq + 1;
        self.summary.identifier_lines.push(seq);
    }

    /// A text value with an identifier's shape (whitespace, `@`, a home path, nine digits).
    fn identifier_text(&mut self) -> String {
        let n = self.nine_digits();
        match self.rng.below(6) {
            0 => format!("chat {n} not found"),
            1 => "lock held by pid 4127 since boot".to_string(),
            2 => "/home/agent/gate/ledger.lock".to_string(),
            3 => "ops@darkflobi.example".to_string(),
            4 => format!("chat_{n}"),
            _ => format!("failed for @darkflobi_ops in chat {n}"),
        }
    }

    fn write_source(&mut self, name: &str, bytes: &[u8]) -> Result<()> {
        if self.written_sources.insert(name.to_string()) {
            self.sink
                .write(self.root.join("gate/sources").join(name), bytes.to_vec())?;
            self.summary.source_files += 1;
        }
        Ok(())
    }

    fn dest_hash(&mut self, dest: Dest) -> (&'static str, String) {
        match dest {
            Dest::AllowListed => {
                let hash = if self.rng.chance(650) {
                    self.config.anchor_channel.clone()
                } else {
                    self.rng.pick(&self.config.groups).clone()
                };
                ("public", hash)
            }
            Dest::Unlisted => ("public", self.rng.pick(&self.config.private_groups).clone()),
            Dest::Group => {
                let hash = if self.rng.chance(300) {
                    self.rng.pick(&self.config.groups).clone()
                } else {
                    self.rng.pick(&self.config.private_groups).clone()
                };
                ("group", hash)
            }
            Dest::Dm => {
                let hash = if self.rng.chance(700) {
                    self.config.operator_dm.clone()
                } else {
                    self.rng.pick(&self.config.other_dms).clone()
                };
                ("dm", hash)
            }
            Dest::Canary => ("canary", self.config.canary.clone()),
        }
    }

    /// Builds and writes one `send` line. `text` overrides the generated message (hard cases).
    #[allow(clippy::too_many_arguments)]
    fn send(
        &mut self,
        ts: i64,
        dest: Dest,
        decision: &'static str,
        mode: SourceMode,
        text: Option<Vec<u8>>,
        identifier: bool,
    ) -> Result<u64> {
        let seq = self.ledger.seq + 1;
        let action = match decision {
            "pass" => "send",
            "hold" => "draft_only",
            _ => "blocked",
        };
        let (dest_class, dest_hash) = self.dest_hash(dest);
        let total = match self.rng.weighted(&[20, 25, 20, 15, 10, 10]) {
            k @ 0..=4 => k as u64,
            _ => 5 + self.rng.below(4),
        };
        let total = if decision == "hold" {
            total.max(1)
        } else {
            total
        };
        let bound = match decision {
            "pass" => total,
            "hold" => self.rng.below(total),
            _ => self.rng.below(total + 1),
        };
        let mut reasons: Vec<Value<'static>> = match decision {
            "pass" => vec![],
            "hold" => match self.rng.below(3) {
                0 => vec![s("numeral_unbound")],
                1 => vec![s("receipt_missing")],
                _ => vec![s("numeral_unbound"), s("receipt_missing")],
            },
            _ => match self.rng.below(3) {
                0 => vec![s("word_list")],
                1 => vec![s("receipt_missing"), s("word_list")],
                _ => vec![s("dest_not_allowed")],
            },
        };
        if identifier {
            let n = self.nine_digits();
            let shape = match self.rng.below(3) {
                0 => format!("chat {n}"),
                1 => "dest @darkflobi_ops".to_string(),
                _ => "path /home/agent/drafts/next.md".to_string(),
            };
            reasons.push(s(shape));
            self.mark_identifier();
        }

        // The message and its digests.
        let tr = trailer(bound, total, seq);
        let sent_bytes_needed = action == "send";
        let (draft, checked, stripped, sent);
        if mode == SourceMode::None {
            checked = self.rng.digest();
            draft = if self.rng.chance(600) {
                checked.clone()
            } else {
                self.rng.digest()
            };
            stripped = checked.clone();
            sent = sent_bytes_needed.then(|| self.rng.digest());
        } else {
            let text = match text {
                Some(t) => t,
                None => message_text(&mut self.text_rng, total).into_bytes(),
            };
            let checked_bytes = &text;
            checked = Digest::of(checked_bytes).to_string();
            stripped = checked.clone();
            let sent_bytes: Option<Vec<u8>> = match mode {
                SourceMode::AsWritten => Some(text.clone()),
                SourceMode::TwoMarks => {
                    let mut b = with_trailer(&text, &tr);
                    b.push(b'\n');
                    b.extend_from_slice(
                        format!("[gate: sworn source footer \u{b7} ledger {seq:04}]").as_bytes(),
                    );
                    Some(b)
                }
                SourceMode::CheckedOnly => None,
                _ => Some(with_trailer(&text, &tr)),
            };
            sent = if sent_bytes_needed {
                sent_bytes.as_deref().map(|b| Digest::of(b).to_string())
            } else {
                None
            };
            match mode {
                SourceMode::DraftMd | SourceMode::DraftDraftMd => {
                    let mut draft_bytes = text.clone();
                    draft_bytes.push(b'\n');
                    draft = Digest::of(&draft_bytes).to_string();
                    let name = if mode == SourceMode::DraftMd {
                        format!("{draft}.md")
                    } else {
                        format!("{draft}.draft.md")
                    };
                    self.write_source(&name, &draft_bytes)?;
                }
                SourceMode::Missing => {
                    draft = checked.clone();
                }
                _ => {
                    // The draft is the checked text most of the time, else a text the gate
                    // normalised (one trailing newline more) and did not keep.
                    draft = if self.text_rng.chance(700) {
                        checked.clone()
                    } else {
                        let mut d = text.clone();
                        d.push(b'\n');
                        Digest::of(&d).to_string()
                    };
                    self.write_source(&format!("{checked}.md"), &text)?;
                }
            }
        }

        let mut fields = vec![
            ("action", s(action)),
            ("decision", s(decision)),
            ("dest_class", s(dest_class)),
            ("dest_hash", s(dest_hash)),
            ("draft_sha256", s(draft.clone())),
            ("checked_sha256", s(checked.clone())),
            ("stripped_sha256", s(stripped.clone())),
        ];
        if let Some(sent) = &sent {
            fields.push(("sent_sha256", s(sent.clone())));
        }
        let mut numerals = Object::default();
        numerals.insert("bound", int(bound));
        numerals.insert("total", int(total));
        fields.push(("numerals", Value::Object(numerals)));
        fields.push(("reasons", Value::Array(reasons)));
        if self.rng.chance(250) {
            fields.push(("process", self.process()));
        }
        self.ledger.emit(ts, "send", fields)?;

        // What the recipe of docs/protocol.md#public-texts makes of it.
        if dest_class == "public" {
            self.summary.public_sends += 1;
            let class = if dest == Dest::Unlisted {
                "off_allow_list"
            } else if sent.is_none() {
                "no_sent_bytes"
            } else {
                match mode {
                    SourceMode::TwoMarks | SourceMode::Missing | SourceMode::None => {
                        "unreconstructable"
                    }
                    _ if self.summary.hard_cases.invalid_utf8 == Some(seq) => "invalid_utf8",
                    _ if self.summary.hard_cases.guard_phone == Some(seq)
                        || self.summary.hard_cases.guard_digits == Some(seq) =>
                    {
                        "guard_withheld"
                    }
                    _ => "published",
                }
            };
            *self
                .summary
                .public_send_classes
                .entry(class.to_string())
                .or_default() += 1;
            if dest == Dest::AllowListed
                && let Some(sent) = &sent
            {
                self.recent_public.push((seq, sent.clone()));
                if self.recent_public.len() > 16 {
                    self.recent_public.remove(0);
                }
            }
        }
        if self.summary.hard_cases.as_written == Some(seq) {
            self.as_written_digests =
                Some([draft, checked, stripped, sent.clone().unwrap_or_default()]);
        }
        if let Some(sent) = sent
            && self.rng.chance(920)
        {
            self.pending_delivery = Some((seq, sent));
        }
        Ok(seq)
    }

    fn random_send(&mut self, ts: i64, identifier: bool) -> Result<u64> {
        let decision = ["pass", "hold", "block"][self.rng.weighted(&[75, 15, 10])];
        let dest = match self.rng.weighted(&[40, 5, 25, 18, 12]) {
            0 => Dest::AllowListed,
            1 => Dest::Unlisted,
            2 => Dest::Group,
            3 => Dest::Dm,
            _ => Dest::Canary,
        };
        let mode = if dest == Dest::AllowListed && decision == "pass" {
            match self.rng.weighted(&[80, 10, 5, 5]) {
                0 => SourceMode::Trailer,
                1 => SourceMode::AsWritten,
                2 => SourceMode::DraftMd,
                _ => SourceMode::DraftDraftMd,
            }
        } else if decision == "pass" && self.rng.chance(350) {
            SourceMode::Trailer
        } else if dest == Dest::AllowListed && self.rng.chance(200) {
            SourceMode::CheckedOnly
        } else {
            SourceMode::None
        };
        self.send(ts, dest, decision, mode, None, identifier)
    }

    /// A text field's value: a snake_case token, or (rarely) an identifier's shape.
    fn text_field(&mut self, tokens: &[&'static str], identifier: bool) -> Value<'static> {
        if identifier {
            self.mark_identifier();
            s(self.identifier_text())
        } else {
            s(*self.rng.pick(tokens))
        }
    }

    fn delivered(&mut self, ts: i64, ref_seq: u64, sent: String, identifier: bool) -> Result<()> {
        let status = if identifier {
            self.mark_identifier();
            let n = self.nine_digits();
            s(if self.rng.chance(500) {
                format!("failed: chat {n} not found")
            } else {
                "ok (sent to @darkflobi_ops)".to_string()
            })
        } else {
            s(if self.rng.chance(950) { "ok" } else { "failed" })
        };
        let mut fields = vec![
            ("ref_seq", int(ref_seq)),
            ("status", status),
            ("sent_sha256", s(sent)),
        ];
        if self.rng.chance(250) {
            fields.push(("process", self.process()));
        }
        self.ledger.emit(ts, "delivered", fields)?;
        Ok(())
    }

    fn started(&mut self, ts: i64, identifier: bool) -> Result<()> {
        let version = if identifier {
            self.mark_identifier();
            format!("{} (hotfix on /home/agent/gate)", self.version_str())
        } else {
            self.version_str()
        };
        let fields = vec![("version", s(version)), ("process", self.process())];
        self.ledger.emit(ts, "started", fields)?;
        Ok(())
    }

    fn pin_moved(&mut self, ts: i64) -> Result<()> {
        let to = self.rng.digest();
        let from = std::mem::replace(&mut self.pin, to.clone());
        let fields = vec![
            ("pin_from", s(from)),
            ("pin_to", s(to)),
            ("process", self.process()),
        ];
        self.ledger.emit(ts, "pin_moved", fields)?;
        // The next start runs the new pin.
        self.version.2 += 1;
        if self.version.2 > 9 {
            self.version = (self.version.0, self.version.1 + 1, 0);
        }
        Ok(())
    }

    fn exec_scan(&mut self, ts: i64) -> Result<()> {
        let scanned = self.rng.range(40, 5000) as u64;
        let flagged = if self.rng.chance(800) {
            0
        } else {
            self.rng.range(1, 3) as u64
        };
        let fields = vec![
            ("scanned", int(scanned)),
            ("flagged", int(flagged)),
            ("process", self.process()),
        ];
        self.ledger.emit(ts, "exec_scan", fields)?;
        Ok(())
    }

    fn detail_line(&mut self, ts: i64, kind: &'static str, identifier: bool) -> Result<()> {
        let tokens: &[&'static str] = match kind {
            "gate_not_wired" => &["send_hook_absent", "bridge_bypassed", "hook_not_loaded"],
            "gate_wired" => &["send_hook_restored", "wired_at_boot", "bridge_rewired"],
            _ => &[
                "stale_lock_removed",
                "lock_owner_exited",
                "lock_timeout_recovered",
            ],
        };
        let detail = self.text_field(tokens, identifier);
        let fields = vec![("detail", detail), ("process", self.process())];
        self.ledger.emit(ts, kind, fields)?;
        match kind {
            "gate_not_wired" => self.wired = false,
            "gate_wired" => self.wired = true,
            _ => {}
        }
        Ok(())
    }

    fn head_repaired(&mut self, ts: i64, identifier: bool) -> Result<()> {
        let from = self.rng.digest();
        let to = self.ledger.prev.clone();
        let detail = self.text_field(&["torn_tail_truncated", "partial_line_removed"], identifier);
        let fields = vec![
            ("from_head", s(from)),
            ("to_head", s(to)),
            ("detail", detail),
            ("process", self.process()),
        ];
        self.ledger.emit(ts, "head_repaired", fields)?;
        Ok(())
    }

    fn anchor_anomaly(&mut self, ts: i64, identifier: bool) -> Result<()> {
        let (date, expected) = self.last_anchor.clone().expect("checked by the caller");
        let found = self.rng.digest();
        let detail = self.text_field(
            &["channel_post_differs", "post_not_found", "post_edited"],
            identifier,
        );
        let fields = vec![
            ("anchor_date", s(date)),
            ("expected_head", s(expected)),
            ("found_head", s(found)),
            ("detail", detail),
            ("process", self.process()),
        ];
        self.ledger.emit(ts, "anchor_anomaly", fields)?;
        Ok(())
    }

    fn deleted(&mut self, ts: i64, identifier: bool) -> Result<()> {
        let (ref_seq, sent) = self.rng.pick(&self.recent_public).clone();
        let reason = self.text_field(
            &["operator_request", "typo_in_figure", "superseded"],
            identifier,
        );
        let fields = vec![
            ("ref_seq", int(ref_seq)),
            ("sent_sha256", s(sent)),
            ("reason", reason),
        ];
        self.ledger.emit(ts, "deleted", fields)?;
        Ok(())
    }

    fn anchor(
        &mut self,
        ts: i64,
        date: String,
        head: String,
        head_seq: u64,
        late: bool,
    ) -> Result<()> {
        let post = format!("gate anchor {date} head {head} seq {head_seq}");
        let dir = self.root.join("gate/anchors");
        self.sink
            .write(dir.join(format!("{date}.txt")), post.clone().into_bytes())?;
        let proof = anchor_ots(post.as_bytes(), &mut self.rng);
        self.sink
            .write(dir.join(format!("{date}.txt.ots")), proof)?;
        let fields = vec![
            ("anchor_date", s(date.clone())),
            ("anchor_head", s(head.clone())),
            ("anchor_head_seq", int(head_seq)),
            (
                "anchor_text_sha256",
                s(Digest::of(post.as_bytes()).to_string()),
            ),
            ("late", Value::Bool(late)),
            ("process", self.process()),
        ];
        self.ledger.emit(ts, "anchor", fields)?;
        self.summary.anchor_dates.push(date.clone());
        if late {
            self.summary.late_anchors.push(date.clone());
        }
        self.last_anchor = Some((date, head));
        Ok(())
    }

    fn forced(&mut self, ts: i64, what: Forced) -> Result<()> {
        let hc_seq = self.ledger.seq + 1;
        match what {
            Forced::ExecScan => self.exec_scan(ts)?,
            Forced::AsWritten => {
                self.summary.hard_cases.as_written = Some(hc_seq);
                self.send(
                    ts,
                    Dest::AllowListed,
                    "pass",
                    SourceMode::AsWritten,
                    None,
                    false,
                )?;
            }
            Forced::DupOffList => {
                let Some([draft, checked, stripped, sent]) = self.as_written_digests.clone() else {
                    return self.random_send(ts, false).map(|_| ());
                };
                self.summary.hard_cases.dup_off_list = Some(hc_seq);
                let mut numerals = Object::default();
                numerals.insert("bound", int(0));
                numerals.insert("total", int(0));
                let fields = vec![
                    ("action", s("send")),
                    ("decision", s("pass")),
                    ("dest_class", s("dm")),
                    ("dest_hash", s(self.config.operator_dm.clone())),
                    ("draft_sha256", s(draft)),
                    ("checked_sha256", s(checked)),
                    ("stripped_sha256", s(stripped)),
                    ("sent_sha256", s(sent.clone())),
                    ("numerals", Value::Object(numerals)),
                    ("reasons", Value::Array(vec![])),
                ];
                self.ledger.emit(ts, "send", fields)?;
                self.pending_delivery = Some((hc_seq, sent));
            }
            Forced::TwoMarks => {
                self.summary.hard_cases.two_marks = Some(hc_seq);
                self.send(
                    ts,
                    Dest::AllowListed,
                    "pass",
                    SourceMode::TwoMarks,
                    None,
                    false,
                )?;
            }
            Forced::MissingSource => {
                self.summary.hard_cases.missing_source = Some(hc_seq);
                self.send(
                    ts,
                    Dest::AllowListed,
                    "pass",
                    SourceMode::Missing,
                    None,
                    false,
                )?;
            }
            Forced::GuardPhone => {
                self.summary.hard_cases.guard_phone = Some(hc_seq);
                let text = "The desk asked us to post the hotline. Call +1 (555) 010-9999 before noon for the 2 open questions.\n";
                self.send(
                    ts,
                    Dest::AllowListed,
                    "pass",
                    SourceMode::Trailer,
                    Some(text.as_bytes().to_vec()),
                    false,
                )?;
            }
            Forced::GuardDigits => {
                self.summary.hard_cases.guard_digits = Some(hc_seq);
                let n = self.nine_digits();
                let text = format!(
                    "Moved the thread to chat {n} as asked. The gate checked 1 receipt there.\n"
                );
                self.send(
                    ts,
                    Dest::AllowListed,
                    "pass",
                    SourceMode::Trailer,
                    Some(text.into_bytes()),
                    false,
                )?;
            }
            Forced::InvalidUtf8 => {
                self.summary.hard_cases.invalid_utf8 = Some(hc_seq);
                let mut text = b"The gate kept this draft byte for byte: ".to_vec();
                text.extend_from_slice(&[0xED, 0xA0, 0x80]);
                text.extend_from_slice(b" is a lone surrogate, and 1 figure was bound.\n");
                self.send(
                    ts,
                    Dest::AllowListed,
                    "pass",
                    SourceMode::Trailer,
                    Some(text),
                    false,
                )?;
            }
            Forced::DraftOnlyMd => {
                self.summary.hard_cases.draft_only_md = Some(hc_seq);
                self.send(
                    ts,
                    Dest::AllowListed,
                    "pass",
                    SourceMode::DraftMd,
                    None,
                    false,
                )?;
            }
            Forced::DraftOnlyDraftMd => {
                self.summary.hard_cases.draft_only_draft_md = Some(hc_seq);
                self.send(
                    ts,
                    Dest::AllowListed,
                    "pass",
                    SourceMode::DraftDraftMd,
                    None,
                    false,
                )?;
            }
            Forced::PinMoved => self.pin_moved(ts)?,
            Forced::Restart => self.started(ts, false)?,
            Forced::Deleted => {
                if self.recent_public.is_empty() {
                    self.random_send(ts, false)?;
                } else {
                    self.deleted(ts, false)?;
                }
            }
            Forced::GateNotWired => self.detail_line(ts, "gate_not_wired", false)?,
            Forced::GateWired => self.detail_line(ts, "gate_wired", false)?,
            Forced::LockRecovered => self.detail_line(ts, "lock_recovered", false)?,
            Forced::HeadRepaired => self.head_repaired(ts, false)?,
            Forced::AnchorAnomaly => self.anchor_anomaly(ts, false)?,
            Forced::BlockedWithSource => {
                self.summary.hard_cases.blocked_with_source = Some(hc_seq);
                self.send(
                    ts,
                    Dest::AllowListed,
                    "block",
                    SourceMode::CheckedOnly,
                    None,
                    false,
                )?;
            }
            Forced::CanaryWithSource => {
                self.summary.hard_cases.canary_with_source = Some(hc_seq);
                self.send(ts, Dest::Canary, "pass", SourceMode::Trailer, None, false)?;
            }
            Forced::UnlistedPublicWithSource => {
                self.summary.hard_cases.unlisted_public_with_source = Some(hc_seq);
                self.send(ts, Dest::Unlisted, "pass", SourceMode::Trailer, None, false)?;
            }
            Forced::IdentSend => {
                self.random_send(ts, true)?;
            }
            Forced::IdentNonSend => {
                let kind = ["lock_recovered", "gate_wired"][self.rng.below(2) as usize];
                self.detail_line(ts, kind, true)?;
            }
        }
        Ok(())
    }

    /// One line of the ordinary traffic.
    fn random_line(&mut self, ts: i64) -> Result<()> {
        // ~2 % of non-send lines, ~1 % of sends carry an identifier's shape.
        let ident = self.rng.chance(self.ident_per_mille.unwrap_or(20));
        if let Some((ref_seq, sent)) = self.pending_delivery.take() {
            return self.delivered(ts, ref_seq, sent, ident);
        }
        let weights = [950, 14, 4, 3, 4, 4, 6, 3, 8, 4];
        match self.rng.weighted(&weights) {
            1 => self.exec_scan(ts),
            2 => self.started(ts, ident),
            3 => self.pin_moved(ts),
            4 if self.wired => self.detail_line(ts, "gate_not_wired", ident),
            5 if !self.wired => self.detail_line(ts, "gate_wired", ident),
            6 => self.detail_line(ts, "lock_recovered", ident),
            7 => self.head_repaired(ts, ident),
            8 if !self.recent_public.is_empty() => self.deleted(ts, ident),
            9 if self.last_anchor.is_some() => self.anchor_anomaly(ts, ident),
            _ => {
                let ident = self.rng.chance(self.ident_per_mille.unwrap_or(10));
                self.random_send(ts, ident).map(|_| ())
            }
        }
    }
}

/// The gap between two ordinary lines: 30 s to 40 min, skewed long (mean about 27 min), so a few
/// hundred lines span about a week.
fn gap(rng: &mut Rng) -> i64 {
    30 + (2370.0 * rng.unit().sqrt()) as i64
}

/// Writes the box into `out` (created when absent; refused when not empty).
pub fn generate(opts: &BoxOptions, out: &Path) -> Result<BoxSummary> {
    let start = days::parse_timestamp(&opts.start)
        .with_context(|| format!("start {:?} is not YYYY-MM-DDTHH:MM:SSZ", opts.start))?;
    let zone = days::zone(&opts.anchor_tz).with_context(|| {
        format!(
            "anchor_tz {:?} is not a zone in the tz database",
            opts.anchor_tz
        )
    })?;
    let given_tail = match &opts.tail_start {
        Some(t) => Some(
            days::parse_timestamp(t)
                .with_context(|| format!("tail start {t:?} is not a timestamp"))?,
        ),
        None => None,
    };
    if out.exists() {
        if !out.is_dir() {
            bail!("{} exists and is not a directory", out.display());
        }
        if fs::read_dir(out)?.next().is_some() {
            bail!("{} is not empty; refusing to write into it", out.display());
        }
    }
    for dir in ["gate/sources", "gate/anchors"] {
        fs::create_dir_all(out.join(dir))?;
    }
    let sink = FileSink::new();

    // exhibit.toml
    let mut toml = String::from(
        "[gate]\nledger = \"gate/ledger.jsonl\"\nconfig = \"gate/config.json\"\nsources = \"gate/sources\"\nanchors = \"gate/anchors\"\n\n[publish]\n",
    );
    if opts.witness {
        toml.push_str("witness = \"wt/store\"\n");
    }
    toml.push_str("public_texts = false\n");
    fs::write(out.join("exhibit.toml"), toml)?;

    let mut rng = Rng::new(opts.seed, 1);
    let config = Config {
        anchor_channel: rng.digest(),
        canary: rng.digest(),
        groups: [rng.digest(), rng.digest()],
        operator_dm: rng.digest(),
        private_groups: [rng.digest(), rng.digest(), rng.digest()],
        other_dms: [rng.digest(), rng.digest()],
    };
    let config_json = serde_json::json!({
        "anchor_channel_hash": config.anchor_channel,
        "canary_hash": config.canary,
        "group_hashes": config.groups,
        "operator_dm_hash": config.operator_dm,
    });
    let mut config_text = serde_json::to_string_pretty(&config_json)?;
    config_text.push('\n');
    fs::write(out.join("gate/config.json"), config_text)?;

    // The header.
    let mut header = Object::default();
    header.insert("anchor_tz", s(opts.anchor_tz.clone()));
    header.insert("certifies", s(HEADER_CERTIFIES));
    header.insert("created", s(fmt_ts(start)));
    header.insert("schema", s(exhibit_protocol::verify::HEADER_SCHEMA));
    let mut header_bytes = Vec::new();
    canonical::dump_object_except(&header, None, &mut header_bytes).expect("header dumps");
    let mut hasher = Sha256::new();
    hasher.update(exhibit_protocol::verify::HEADER_SCHEMA.as_bytes());
    hasher.update(b"\n");
    hasher.update(&header_bytes);
    let header_digest = Digest(hasher.finalize().into()).to_string();
    let mut ledger_out =
        BufWriter::with_capacity(1 << 20, File::create(out.join("gate/ledger.jsonl"))?);
    ledger_out.write_all(&header_bytes)?;
    ledger_out.write_all(b"\n")?;

    let ledger = Ledger {
        out: ledger_out,
        core: Vec::with_capacity(1024),
        line: Vec::with_capacity(1024),
        deriver: DayDeriver::new(zone),
        prev: header_digest.clone(),
        seq: 0,
        last_ts: start,
        last_day: 0,
        ids: Vec::with_capacity(opts.lines as usize),
        timestamps: Vec::with_capacity(opts.lines as usize),
        kinds: BTreeMap::new(),
        first_day: None,
        distinct_days: 0,
    };
    let pin = rng.digest();
    let mut g = Gen {
        rng: Rng::new(opts.seed, 2),
        text_rng: Rng::new(opts.seed, 3),
        ledger,
        root: out,
        sink: &sink,
        written_sources: std::collections::BTreeSet::new(),
        config,
        summary: BoxSummary {
            header_digest: header_digest.clone(),
            ..BoxSummary::default()
        },
        version: (0, 9, 4),
        pin,
        wired: true,
        last_anchor: None,
        recent_public: Vec::new(),
        pending_delivery: None,
        as_written_digests: None,
        ident_per_mille: opts.ident_per_mille,
    };

    let n = opts.lines;
    let mut schedule: Vec<(u64, Forced)> = SCHEDULE
        .iter()
        .map(|&(per_mille, what)| ((n * per_mille / 1000).max(2), what))
        .filter(|&(at, _)| at <= n)
        .collect();

    // (at, date, head, head_seq, late)
    let mut pending_anchor: Option<(i64, String, String, u64, bool)> = None;
    let mut anchor_count: u64 = 0;
    let mut next_ts = start + g.rng.range(3, 40);
    while g.ledger.seq < n {
        if let Some((at, ..)) = &pending_anchor {
            if *at <= next_ts {
                let (at, date, head, head_seq, late) = pending_anchor.take().expect("some");
                g.anchor(at, date, head, head_seq, late)?;
                continue;
            }
        } else if g.ledger.seq > 0 && local_day(&mut g.ledger.deriver, next_ts) != g.ledger.last_day
        {
            // The day of the last line closed: find local midnight, schedule the post.
            let closed = g.ledger.last_day;
            let (mut lo, mut hi) = (g.ledger.last_ts, next_ts);
            while hi - lo > 1 {
                let mid = lo + (hi - lo) / 2;
                if local_day(&mut g.ledger.deriver, mid) == closed {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
            let midnight = hi;
            let late = anchor_count % 9 == 2;
            anchor_count += 1;
            let at = if late {
                midnight + 3600 + g.rng.range(0, 5400)
            } else {
                midnight + g.rng.range(2, 40).min(next_ts - midnight)
            };
            pending_anchor = Some((
                at,
                days::civil_from_days(closed),
                g.ledger.prev.clone(),
                g.ledger.seq,
                late,
            ));
            continue;
        }

        let ts = next_ts;
        let seq = g.ledger.seq + 1;
        if seq == 1 {
            g.started(ts, false)?;
        } else if g.pending_delivery.is_some() {
            g.random_line(ts)?;
        } else if let Some(pos) = schedule.iter().position(|&(at, what)| {
            at <= seq && (what != Forced::AnchorAnomaly || g.last_anchor.is_some())
        }) {
            let (_, what) = schedule.remove(pos);
            g.forced(ts, what)?;
        } else {
            g.random_line(ts)?;
        }
        next_ts = ts + gap(&mut g.rng);
    }

    let Gen {
        ledger,
        mut summary,
        ..
    } = g;
    let Ledger {
        out: mut ledger_out,
        ids,
        timestamps,
        kinds,
        first_day,
        last_day,
        distinct_days,
        seq,
        prev,
        ..
    } = ledger;
    ledger_out.flush()?;
    drop(ledger_out);

    summary.entries = seq;
    summary.head = prev;
    summary.first_day = first_day.map(days::civil_from_days);
    summary.last_day = first_day.map(|_| days::civil_from_days(last_day));
    summary.days = distinct_days;
    summary.anchors = summary.anchor_dates.len();
    summary.kinds = kinds.into_iter().map(|(k, v)| (k.to_string(), v)).collect();

    if opts.witness {
        summary.witness = Some(write_witness(
            opts,
            start,
            given_tail,
            out,
            &ids,
            &timestamps,
            &sink,
        )?);
    }
    sink.finish()?;
    Ok(summary)
}

// ---------------------------------------------------------------------------------------------
// the witness store

struct Batch {
    /// Line indexes `first..end` (0-based; seq = index + 1).
    first: usize,
    end: usize,
    stamped_at: i64,
    /// Bit i: CALENDARS[i] accepted.
    calendars: u8,
    block: Option<(u64, i64)>,
    upgraded_at: Option<i64>,
}

struct Run {
    at: i64,
    lines_seen: u64,
    stamped: u64,
    batch: Option<u32>,
}

/// One record of index.json, as the box's own store holds it.
#[derive(Clone, Copy)]
struct Record {
    seq: u64,
    status: Status,
    calendars: u8,
    line_timestamp: i64,
    seen_at: i64,
    stamped_at: i64,
    upgraded_at: Option<i64>,
    block: Option<(u64, i64)>,
}

impl Record {
    /// The record as the store held it at `moment`: none before its batch was stamped, and
    /// pending before its upgrade, since the status an upgrade finds (proof, explorers_disagree,
    /// mismatch) and the block it names are that upgrade's news.
    fn at(&self, moment: i64) -> Option<Record> {
        if self.stamped_at > moment {
            return None;
        }
        Some(match self.upgraded_at {
            Some(upgraded) if upgraded > moment => Record {
                status: Status::Pending,
                upgraded_at: None,
                block: None,
                ..*self
            },
            _ => *self,
        })
    }

    /// The block its proof's bitcoin attestation names, when its proof carries one.
    fn bitcoin(&self) -> Option<u64> {
        match self.status {
            Status::Proof | Status::ExplorersDisagree | Status::Mismatch => {
                self.block.map(|(h, _)| h)
            }
            _ => None,
        }
    }
}

fn block_hash(seed: u64, height: u64) -> String {
    let digest = Digest::of(format!("block {height} of box {seed}").as_bytes()).to_string();
    format!("0000000000000000000{}", &digest[19..])
}

fn calendar_list(mask: u8) -> Vec<&'static str> {
    CALENDARS
        .iter()
        .enumerate()
        .filter(|(i, _)| mask & (1 << i) != 0)
        .map(|(_, c)| *c)
        .collect()
}

/// A record's proof. Its nonces come from a stream of its own, keyed by its digest: a proof's
/// bytes are its record's alone, so a store as of an earlier moment holds the very bytes of the
/// box's store for every proof not upgraded since.
fn record_proof(seed: u64, id: &[u8; 32], rec: &Record) -> Vec<u8> {
    let mut proof_rng = Rng::new(seed ^ u64::from_le_bytes(id[..8].try_into().expect("8")), 5);
    let mut buf = Vec::with_capacity(512);
    witness_ots(
        id,
        &calendar_list(rec.calendars),
        rec.bitcoin(),
        &mut proof_rng,
        &mut buf,
    );
    buf
}

#[derive(Serialize)]
struct IndexRecord<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    block_hash: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    block_height: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    block_time: Option<String>,
    calendars: Vec<&'a str>,
    line_timestamp: String,
    seen_at: String,
    seq: u64,
    stamped_at: String,
    status: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    upgraded_at: Option<String>,
}

struct Entries<'a> {
    /// Sorted by entry_id.
    entries: &'a [([u8; 32], Record)],
    seed: u64,
}

impl Serialize for Entries<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.entries.len()))?;
        for (id, r) in self.entries {
            let with_hash = matches!(r.status, Status::Proof | Status::Mismatch);
            let with_time = r.status == Status::Proof;
            let record = IndexRecord {
                block_hash: r
                    .block
                    .filter(|_| with_hash)
                    .map(|(h, _)| block_hash(self.seed, h)),
                block_height: r.block.map(|(h, _)| h),
                block_time: r.block.filter(|_| with_time).map(|(_, t)| fmt_ts(t)),
                calendars: calendar_list(r.calendars),
                line_timestamp: fmt_ts(r.line_timestamp),
                seen_at: fmt_ts(r.seen_at),
                seq: r.seq,
                stamped_at: fmt_ts(r.stamped_at),
                status: r.status.as_str(),
                upgraded_at: r.upgraded_at.map(fmt_ts),
            };
            map.serialize_entry(&Digest(*id).to_string(), &record)?;
        }
        map.end()
    }
}

#[derive(Serialize)]
struct Index<'a> {
    entries: Entries<'a>,
    prereg: BTreeMap<&'static str, String>,
}

fn prereg_text(tail_start: &str) -> String {
    format!(
        "# Witness layer: preregistered kill gate\n\
\n\
Sealed when the tail opened the store ({tail_start}, the tail's clock). The window opens on the\n\
standing task's opening run; the three bars are read once, at the close of day 9 of that window,\n\
from this store and the ledger as they stand then. If any bar fails, the per-line witness is taken\n\
off the page and the failure is published beside it.\n\
\n\
1. **Coverage.** At least 99% of the ledger lines written in the window have a commitment accepted\n\
   by at least two calendars.\n\
2. **Outside latency.** At least 95% of the lines written in the window hold a Bitcoin attestation\n\
   whose block header time is within 24 hours of the line's own timestamp.\n\
3. **Integrity.** No store entry has status `mismatch`, and no proof commits to a digest other than\n\
   its file name.\n\
\n\
Not a bar: the tail's own stamp latency (`stamped_at - seen_at`), which is one request's round trip.\n"
    )
}

/// When the store is read beside a ledger of these lines: just before the second-to-last line's
/// own time, so the last two lines have no record (tail lag). A tail opened after that sees
/// everything.
fn read_moment(t0: i64, ts: &[i64]) -> i64 {
    let n = ts.len();
    if n >= 3 && t0 < ts[n - 2] {
        ts[n - 2]
    } else {
        t0.max(ts.last().copied().unwrap_or(t0)) + 4 * 3600
    }
}

/// When the tail saw each line: at its opening for every earlier line, else 5-120 s after the
/// line's timestamp (never before the line before it was seen).
fn seen_moments(rng: &mut Rng, ts: &[i64], t0: i64) -> Vec<i64> {
    let mut seen = Vec::with_capacity(ts.len());
    let mut last_seen = i64::MIN;
    for &t in ts {
        let s = if t <= t0 {
            t0
        } else {
            (t + rng.range(5, 120)).max(last_seen)
        };
        last_seen = s;
        seen.push(s);
    }
    seen
}

/// Runs every ~10 min from t0 while <= `until`; each stamps what it has seen as one batch.
fn runs_and_batches(rng: &mut Rng, seen: &[i64], t0: i64, until: i64) -> (Vec<Run>, Vec<Batch>) {
    let n = seen.len();
    let mut runs: Vec<Run> = Vec::new();
    let mut batches: Vec<Batch> = Vec::new();
    let mut next = 0usize;
    let mut run_at = t0;
    loop {
        let first = next;
        while next < n && seen[next] <= run_at {
            next += 1;
        }
        let stamped = (next - first) as u64;
        let batch = if stamped > 0 {
            let mut mask = 0b0011u8;
            if batches.is_empty() {
                mask = 0b1111;
            } else {
                if rng.chance(700) {
                    mask |= 0b0100;
                }
                if rng.chance(500) {
                    mask |= 0b1000;
                }
            }
            batches.push(Batch {
                first,
                end: next,
                stamped_at: run_at,
                calendars: mask,
                block: None,
                upgraded_at: None,
            });
            Some(batches.len() as u32)
        } else {
            None
        };
        runs.push(Run {
            at: run_at,
            lines_seen: next as u64,
            stamped,
            batch,
        });
        let following = run_at + 600 + rng.range(-40, 40);
        if following > until {
            break;
        }
        run_at = following;
    }
    (runs, batches)
}

/// Blocks: 975101 at t0 + 39 min 52 s, then one every ~10 min; a batch lands in the first block
/// at least 10-40 min after its stamp (the opening batch in 975101), and is upgraded at the first
/// run about three hours after its stamp (none yet when no run came that late).
fn land_batches(rng: &mut Rng, batches: &mut [Batch], runs: &[Run], t0: i64) {
    let mut block = (OPENING_BLOCK_HEIGHT, t0 + OPENING_BLOCK_DELAY);
    for (i, b) in batches.iter_mut().enumerate() {
        if i > 0 || b.stamped_at != t0 {
            let target = b.stamped_at + rng.range(600, 2400);
            while block.1 < target {
                block = (block.0 + 1, block.1 + rng.range(60, 1140));
            }
        }
        b.block = Some(block);
        let threshold = b.stamped_at + UPGRADE_AFTER + rng.range(-600, 600);
        let k = runs.partition_point(|r| r.at < threshold);
        b.upgraded_at = runs.get(k).map(|r| r.at);
    }
}

/// Records per chain line, in batch order; and each line's record, if it has one.
fn line_records(batches: &[Batch], ts: &[i64], seen: &[i64]) -> (Vec<Record>, Vec<Option<usize>>) {
    let n = ts.len();
    let mut records: Vec<Record> = Vec::with_capacity(n + 1);
    let mut line_record: Vec<Option<usize>> = vec![None; n];
    for b in batches {
        for i in b.first..b.end {
            line_record[i] = Some(records.len());
            records.push(Record {
                seq: i as u64 + 1,
                status: if b.upgraded_at.is_some() {
                    Status::Proof
                } else {
                    Status::Pending
                },
                calendars: b.calendars,
                line_timestamp: ts[i],
                seen_at: seen[i],
                stamped_at: b.stamped_at,
                upgraded_at: b.upgraded_at,
                block: b.upgraded_at.and(b.block),
            });
        }
    }
    (records, line_record)
}

/// The lines given a sprinkled state, by seq; `taken` holds their line indexes.
struct Sprinkled {
    explorers_disagree: Vec<u64>,
    mismatch: Option<u64>,
    stamp_failed: Option<u64>,
    taken: Vec<usize>,
}

/// The sprinkled states: prefer lines alone in a live, upgraded batch.
fn sprinkle(
    rng: &mut Rng,
    batches: &mut [Batch],
    records: &mut [Record],
    line_record: &[Option<usize>],
) -> Sprinkled {
    let mut single_upgraded: Vec<usize> = Vec::new();
    let mut single_live: Vec<usize> = Vec::new();
    for (k, b) in batches.iter().enumerate() {
        if k > 0 && b.end - b.first == 1 {
            single_live.push(k);
            if b.upgraded_at.is_some() {
                single_upgraded.push(k);
            }
        }
    }
    let upgraded_lines: Vec<usize> = (0..line_record.len())
        .filter(|&i| line_record[i].is_some_and(|r| records[r].status == Status::Proof))
        .collect();
    let mut taken: Vec<usize> = Vec::new();
    let take = |rng: &mut Rng,
                batches_pref: &[usize],
                batches: &[Batch],
                taken: &mut Vec<usize>|
     -> Option<usize> {
        let free_batches: Vec<usize> = batches_pref
            .iter()
            .copied()
            .filter(|&k| !taken.contains(&batches[k].first))
            .collect();
        let line = if !free_batches.is_empty() {
            Some(batches[*rng.pick(&free_batches)].first)
        } else {
            let free: Vec<usize> = upgraded_lines
                .iter()
                .copied()
                .filter(|i| !taken.contains(i))
                .collect();
            (!free.is_empty()).then(|| *rng.pick(&free))
        };
        if let Some(l) = line {
            taken.push(l);
        }
        line
    };
    let disagree_count = 3 + line_record.len() / 100_000;
    let mut explorers_disagree = Vec::new();
    for _ in 0..disagree_count {
        if let Some(i) = take(rng, &single_upgraded, batches, &mut taken) {
            let r = line_record[i].expect("recorded");
            records[r].status = Status::ExplorersDisagree;
            explorers_disagree.push(i as u64 + 1);
        }
    }
    explorers_disagree.sort_unstable();
    let mismatch = take(rng, &single_upgraded, batches, &mut taken).map(|i| {
        let r = line_record[i].expect("recorded");
        records[r].status = Status::Mismatch;
        i as u64 + 1
    });
    let stamp_failed = take(rng, &single_live, batches, &mut taken).map(|i| {
        let r = line_record[i].expect("recorded");
        let rec = &mut records[r];
        rec.status = Status::StampFailed;
        rec.calendars = 0b0001;
        rec.upgraded_at = None;
        rec.block = None;
        if let Some(b) = batches.iter_mut().find(|b| b.first == i && b.end == i + 1) {
            b.calendars = 0b0001;
        }
        i as u64 + 1
    });
    Sprinkled {
        explorers_disagree,
        mismatch,
        stamp_failed,
        taken,
    }
}

/// The orphan: a digest not in the chain, on the seq of a line of the opening batch (what a
/// re-chain leaves behind), so that seq carries two entry_ids. Its record, a copy of that line's,
/// is pushed last; returns its digest and the seq.
fn add_orphan(
    rng: &mut Rng,
    batches: &[Batch],
    records: &mut Vec<Record>,
    line_record: &[Option<usize>],
    taken: &[usize],
    t0: i64,
) -> Option<([u8; 32], u64)> {
    let pool: Vec<usize> = match batches.first() {
        Some(b) if b.stamped_at == t0 && b.end - b.first > 1 => (b.first..b.end).collect(),
        _ => (0..line_record.len())
            .filter(|&i| line_record[i].is_some())
            .collect(),
    };
    let recorded: Vec<usize> = pool.into_iter().filter(|i| !taken.contains(i)).collect();
    if recorded.is_empty() {
        return None;
    }
    let i = recorded[recorded.len() / 2];
    records.push(records[line_record[i].expect("recorded")]);
    Some((rng.bytes32(), i as u64 + 1))
}

/// The witness tail's whole history over a box's ledger, up to the moment the box's store is
/// read: every run, batch and record, each with its own moment. So the store can be written as
/// it stood then (the box's `wt/store`) or at any earlier moment after the tail opened
/// (`write_store_as_of`: the store a build of the ledger's first lines would have read).
struct Tail {
    t0: i64,
    rule: &'static str,
    /// When the box's own store is read.
    read_at: i64,
    runs: Vec<Run>,
    batches: Vec<Batch>,
    /// The chain lines' records in batch order, then the orphan's.
    records: Vec<Record>,
    line_record: Vec<Option<usize>>,
    /// The orphan's digest and seq (its record is the last).
    orphan: Option<([u8; 32], u64)>,
    sprinkled: Sprinkled,
    prereg: String,
    prereg_sha: String,
    prereg_proof: Vec<u8>,
    stray: [u8; 32],
    stray_proof: Vec<u8>,
}

/// What the store holds at one moment, besides the files written once at the opening.
struct StoreState<'a> {
    moment: i64,
    runs: &'a [Run],
    /// Sorted by entry_id.
    entries: Vec<([u8; 32], Record)>,
    /// Whether the orphan is among the entries.
    orphan: bool,
}

impl Tail {
    /// Draws (stream 4) in the order the box's store has always been made with, so it keeps its
    /// bytes: when each line was seen, the runs and batches, blocks and upgrades, the sprinkled
    /// states, the orphan, then the prereg's and the stray file's proofs.
    fn new(seed: u64, start: i64, given_tail: Option<i64>, ts: &[i64]) -> Tail {
        let mut rng = Rng::new(seed, 4);
        let n = ts.len();
        let nominal = start + TAIL_OFFSET_SECONDS;
        let (t0, rule) = match given_tail {
            Some(t) => (t, "given"),
            None if n == 0 || ts[n - 1] >= nominal + 86_400 => (nominal, "nominal"),
            None => (ts[n * 4 / 5] + 97, "inside_ledger"),
        };
        let read_at = read_moment(t0, ts);
        let seen = seen_moments(&mut rng, ts, t0);
        let (runs, mut batches) = runs_and_batches(&mut rng, &seen, t0, read_at);
        land_batches(&mut rng, &mut batches, &runs, t0);
        let (mut records, line_record) = line_records(&batches, ts, &seen);
        let sprinkled = sprinkle(&mut rng, &mut batches, &mut records, &line_record);
        let orphan = add_orphan(
            &mut rng,
            &batches,
            &mut records,
            &line_record,
            &sprinkled.taken,
            t0,
        );
        let prereg = prereg_text(&fmt_ts(t0));
        let prereg_sha = Digest::of(prereg.as_bytes()).to_string();
        let mut prereg_proof = Vec::new();
        witness_ots(
            &prereg_sha.parse::<Digest>().expect("a digest").0,
            &CALENDARS[..2],
            Some(OPENING_BLOCK_HEIGHT),
            &mut rng,
            &mut prereg_proof,
        );
        let stray = rng.bytes32();
        let mut stray_proof = Vec::new();
        witness_ots(&stray, &CALENDARS[..2], None, &mut rng, &mut stray_proof);
        Tail {
            t0,
            rule,
            read_at,
            runs,
            batches,
            records,
            line_record,
            orphan,
            sprinkled,
            prereg,
            prereg_sha,
            prereg_proof,
            stray,
            stray_proof,
        }
    }

    /// The store at `moment`, beside the chain lines `ids` (the ledger's first lines: a line
    /// past them has no record then, seen after the read).
    fn state(&self, ids: &[[u8; 32]], moment: i64) -> StoreState<'_> {
        let mut entries: Vec<([u8; 32], Record)> = self
            .line_record
            .iter()
            .zip(ids)
            .filter_map(|(r, id)| r.and_then(|r| self.records[r].at(moment)).map(|r| (*id, r)))
            .collect();
        let orphan = self
            .orphan
            .and_then(|(id, _)| Some((id, self.records.last()?.at(moment)?)));
        if let Some(entry) = orphan {
            entries.push(entry);
        }
        entries.sort_unstable_by_key(|e| e.0);
        StoreState {
            moment,
            runs: &self.runs[..self.runs.partition_point(|r| r.at <= moment)],
            entries,
            orphan: orphan.is_some(),
        }
    }

    /// The status of line `seq`'s record in `state`.
    fn status(&self, state: &StoreState<'_>, seq: u64) -> Option<Status> {
        let r = self.line_record.get(seq as usize - 1).copied().flatten()?;
        Some(self.records[r].at(state.moment)?.status)
    }
}

/// What a store's files were made from: its tail, the box's seed and the chain lines it is read
/// beside.
struct StoreWriter<'a> {
    tail: &'a Tail,
    seed: u64,
    ids: &'a [[u8; 32]],
    sink: &'a FileSink,
    /// Files written (or queued on the sink).
    written: u64,
}

impl StoreWriter<'_> {
    /// Writes `state` into `store` (which exists). With `over`, only what the tail wrote between
    /// the two states, for laying over a copy of the store at `over`: the files it rewrites on
    /// every run (index.json, runs.jsonl, REPORT.md), and each proof `over` lacks or holds in
    /// another form (a later `over` holds upgraded proofs, and more of them). Returns the
    /// proofs `over` holds that `state` does not (paths relative to the store): that copy's to
    /// lose.
    fn write(
        &mut self,
        state: &StoreState<'_>,
        over: Option<&StoreState<'_>>,
        store: &Path,
    ) -> Result<Vec<String>> {
        let tail = self.tail;
        let proofs = store.join("proofs");
        fs::create_dir_all(&proofs)?;
        // Written once, when the tail opened the store; both states are after that.
        if over.is_none_or(|o| o.moment < tail.t0) {
            fs::write(store.join("WITNESS_PREREG.md"), &tail.prereg)?;
            let mut seal = Object::default();
            seal.insert("file", s("WITNESS_PREREG.md"));
            seal.insert("sealed_at", s(fmt_ts(tail.t0)));
            seal.insert("sha256", s(tail.prereg_sha.clone()));
            let mut seal_line = canonical::to_canonical(&Value::Object(seal)).expect("seal dumps");
            seal_line.push(b'\n');
            fs::write(store.join("seal.jsonl"), seal_line)?;
            fs::write(
                proofs.join(format!("prereg_{}.ots", tail.prereg_sha)),
                &tail.prereg_proof,
            )?;
            fs::write(
                proofs.join(format!("{}.ots", Digest(tail.stray))),
                &tail.stray_proof,
            )?;
            self.written += 4;
        }
        self.write_index(state, store)?;
        self.write_runs(state, store)?;
        let held = |id: &[u8; 32]| -> Option<&Record> {
            let o = over?;
            let k = o.entries.binary_search_by(|e| e.0.cmp(id)).ok()?;
            Some(&o.entries[k].1)
        };
        for (id, rec) in &state.entries {
            if let Some(old) = held(id)
                && (old.calendars, old.bitcoin()) == (rec.calendars, rec.bitcoin())
            {
                continue;
            }
            self.sink.write(
                proofs.join(format!("{}.ots", Digest(*id))),
                record_proof(self.seed, id, rec),
            )?;
            self.written += 1;
        }
        let removed = over.map_or_else(Vec::new, |o| {
            o.entries
                .iter()
                .filter(|(id, _)| state.entries.binary_search_by(|e| e.0.cmp(id)).is_err())
                .map(|(id, _)| format!("proofs/{}.ots", Digest(*id)))
                .collect()
        });
        fs::write(store.join("REPORT.md"), tail.report(self.ids, state))?;
        self.written += 1;
        Ok(removed)
    }

    /// index.json, sorted by entry_id.
    fn write_index(&mut self, state: &StoreState<'_>, store: &Path) -> Result<()> {
        let mut w = BufWriter::with_capacity(1 << 20, File::create(store.join("index.json"))?);
        let mut prereg = BTreeMap::new();
        prereg.insert("sha256", self.tail.prereg_sha.clone());
        let index = Index {
            entries: Entries {
                entries: &state.entries,
                seed: self.seed,
            },
            prereg,
        };
        serde_json::to_writer_pretty(&mut w, &index)?;
        w.write_all(b"\n")?;
        w.flush()?;
        self.written += 1;
        Ok(())
    }

    /// runs.jsonl: the runs up to the state's moment.
    fn write_runs(&mut self, state: &StoreState<'_>, store: &Path) -> Result<()> {
        let mut w = BufWriter::with_capacity(1 << 20, File::create(store.join("runs.jsonl"))?);
        for run in state.runs {
            let (batch, ok) = match run.batch {
                Some(k) => (
                    k.to_string(),
                    self.tail.batches[k as usize - 1].calendars.count_ones(),
                ),
                None => ("null".to_string(), 0),
            };
            writeln!(
                w,
                "{{\"batch\":{batch},\"calendars_ok\":{ok},\"lines_seen\":{},\"run_at\":\"{}\",\"stamped\":{}}}",
                run.lines_seen,
                fmt_ts(run.at),
                run.stamped
            )?;
        }
        w.flush()?;
        self.written += 1;
        Ok(())
    }
}

/// Counts by status, as the tail saw them.
fn status_counts(state: &StoreState<'_>) -> BTreeMap<&'static str, u64> {
    let mut counts: BTreeMap<&'static str, u64> = BTreeMap::new();
    for (_, r) in &state.entries {
        *counts.entry(r.status.as_str()).or_default() += 1;
    }
    counts
}

/// Stamp batches up to the state's moment.
fn batches_by(state: &StoreState<'_>) -> usize {
    state.runs.iter().filter(|r| r.batch.is_some()).count()
}

impl Tail {
    /// Chain lines stamped in the opening batch (retroactively).
    fn retroactive(&self) -> u64 {
        self.batches
            .first()
            .filter(|b| b.stamped_at == self.t0)
            .map_or(0, |b| (b.end - b.first) as u64)
    }

    /// REPORT.md of the store at `state`, beside the chain lines `ids`.
    fn report(&self, ids: &[[u8; 32]], state: &StoreState<'_>) -> String {
        let counts = status_counts(state);
        let get = |k: &str| counts.get(k).copied().unwrap_or(0);
        let last_run = state.runs.last().map_or(self.t0, |r| r.at);
        let recorded_lines = state.entries.len() as u64 - u64::from(state.orphan);
        let seen_lines = state.runs.last().map_or(0, |r| r.lines_seen);
        let head_line = if seen_lines > 0 {
            format!(
                "head {} at seq {seen_lines}",
                Digest(ids[seen_lines as usize - 1])
            )
        } else {
            "no line".to_string()
        };
        format!(
            "# Witness tail report\n\
\n\
As the tail last read the chain (run at {last}, the tail's clock): {seen_lines} lines, {head_line}.\n\
The store opened at {open}; its opening batch stamped {retroactive} earlier lines retroactively.\n\
\n\
| state | entries |\n\
|---|---|\n\
| proof (Bitcoin attestation, explorers agree) | {proof} |\n\
| pending | {pending} |\n\
| explorers_disagree | {disagree} |\n\
| mismatch | {mismatch} |\n\
| stamp_failed | {failed} |\n\
| all store entries | {total} |\n\
\n\
Chain lines with a record: {recorded_lines} of {seen_lines}. Orphans (digest not in the chain): {orphans}.\n\
Seqs with more than one entry_id: {dups}. Stamp batches: {nbatches}. Runs: {nruns}.\n",
            last = fmt_ts(last_run),
            open = fmt_ts(self.t0),
            retroactive = self.retroactive(),
            proof = get("proof"),
            pending = get("pending"),
            disagree = get("explorers_disagree"),
            mismatch = get("mismatch"),
            failed = get("stamp_failed"),
            total = state.entries.len(),
            orphans = u64::from(state.orphan),
            dups = u64::from(state.orphan),
            nbatches = batches_by(state),
            nruns = state.runs.len(),
        )
    }

    /// The summary of the store at `state`, beside the chain lines `ids`.
    fn summary(&self, ids: &[[u8; 32]], state: &StoreState<'_>) -> WitnessSummary {
        let counts = status_counts(state);
        let get = |k: &str| counts.get(k).copied().unwrap_or(0);
        let has = |seq: &u64, status: Status| self.status(state, *seq) == Some(status);
        let sprinkled = &self.sprinkled;
        let orphan = self.orphan.filter(|_| state.orphan);
        WitnessSummary {
            tail_start: fmt_ts(self.t0),
            tail_start_rule: self.rule.to_string(),
            last_run: fmt_ts(state.runs.last().map_or(self.t0, |r| r.at)),
            runs: state.runs.len() as u64,
            batches: batches_by(state) as u64,
            store_entries: state.entries.len() as u64,
            retroactive: self.retroactive(),
            proof: get("proof"),
            pending: get("pending"),
            explorers_disagree: (sprinkled.explorers_disagree.iter())
                .copied()
                .filter(|seq| has(seq, Status::ExplorersDisagree))
                .collect(),
            stamp_failed: (sprinkled.stamp_failed).filter(|seq| has(seq, Status::StampFailed)),
            mismatch: sprinkled.mismatch.filter(|seq| has(seq, Status::Mismatch)),
            unseen: (1..=ids.len() as u64)
                .filter(|&seq| self.status(state, seq).is_none())
                .collect(),
            orphan: orphan.map(|(id, _)| Digest(id).to_string()),
            duplicate_seq: orphan.map(|(_, seq)| seq),
            stray: Digest(self.stray).to_string(),
            prereg_sha256: self.prereg_sha.clone(),
        }
    }
}

fn write_witness(
    opts: &BoxOptions,
    start: i64,
    given_tail: Option<i64>,
    out: &Path,
    ids: &[[u8; 32]],
    ts: &[i64],
    sink: &FileSink,
) -> Result<WitnessSummary> {
    let tail = Tail::new(opts.seed, start, given_tail, ts);
    let state = tail.state(ids, tail.read_at);
    let mut writer = StoreWriter {
        tail: &tail,
        seed: opts.seed,
        ids,
        sink,
        written: 0,
    };
    writer.write(&state, None, &out.join("wt/store"))?;
    Ok(tail.summary(ids, &state))
}

// ---------------------------------------------------------------------------------------------
// the store as of fewer lines

/// What `write_store_as_of` wrote.
#[derive(Debug, Clone, Default, Serialize)]
pub struct StoreAsOf {
    /// The ledger's first lines the store is read beside.
    pub lines: u64,
    /// When it is read (the tail's clock): just before line `lines - 1`'s own time, as the box's
    /// store is read beside the whole ledger.
    pub read_at: String,
    /// The store at that moment (every count as the store then holds it).
    pub witness: WitnessSummary,
    /// Files written.
    pub written: u64,
    /// With `over`: the files of the store as of `over` lines that this one does not hold
    /// (relative to the store), for a copy of that store to lose.
    pub removed: Vec<String>,
}

/// One ledger line's facts the tail reads.
#[derive(serde::Deserialize)]
struct LineFacts<'a> {
    seq: u64,
    timestamp: &'a str,
    entry_id: &'a str,
}

#[derive(serde::Deserialize)]
struct HeaderFacts {
    created: String,
}

/// The box's ledger: its header's `created`, and each line's entry_id and timestamp, as
/// `generate` wrote them. Read a line at a time: a million-line ledger is 860 MB.
fn read_box_ledger(path: &Path) -> Result<(i64, Vec<[u8; 32]>, Vec<i64>)> {
    use std::io::BufRead;
    let file = File::open(path).with_context(|| format!("reading {}", path.display()))?;
    let mut reader = std::io::BufReader::with_capacity(1 << 20, file);
    let mut line = String::new();
    reader.read_line(&mut line)?;
    let header: HeaderFacts = serde_json::from_str(&line)
        .with_context(|| format!("{}: line 1 is no header", path.display()))?;
    let created = days::parse_timestamp(&header.created)
        .with_context(|| format!("{}: created {:?}", path.display(), header.created))?;
    let (mut ids, mut ts) = (Vec::new(), Vec::new());
    loop {
        line.clear();
        if reader.read_line(&mut line)? == 0 {
            break;
        }
        let at = ids.len() + 2;
        let facts: LineFacts<'_> = serde_json::from_str(&line)
            .with_context(|| format!("{}: line {at} is no entry", path.display()))?;
        let (id, t) = (
            facts.entry_id.parse::<Digest>().ok(),
            days::parse_timestamp(facts.timestamp),
        );
        let (Some(id), Some(t), true) = (id, t, facts.seq == at as u64 - 1) else {
            bail!("{}: line {at} is not the box's", path.display());
        };
        ids.push(id.0);
        ts.push(t);
    }
    Ok((created, ids, ts))
}

/// Writes into `out` (created when absent; refused when not empty) the witness store of the box
/// in `box_dir` — made by `generate` with these same options — as it stood when its ledger held
/// its first `lines` lines: read at the moment the box's own store is read beside a ledger that
/// long (before line `lines - 1`'s time: the last two lines not seen yet), so every run,
/// record and proof is the box's store's up to that moment and none after. The same tail,
/// cut in time: runs.jsonl is a prefix of the box's, a record not upgraded by then is pending
/// (its proof without the bitcoin attestation), seal.jsonl, the prereg and the stray file are
/// the box's, and at the box's full length it is the box's store byte for byte.
///
/// With `over`: only the files by which the store as of `lines` differs from the store as of
/// `over` lines (fewer or more), to be laid over a copy of that one once the files named in
/// `removed` are taken from it (a store only grows: none when `over` is fewer).
pub fn write_store_as_of(
    opts: &BoxOptions,
    box_dir: &Path,
    lines: u64,
    over: Option<u64>,
    out: &Path,
) -> Result<StoreAsOf> {
    let (created, ids, ts) = read_box_ledger(&box_dir.join("gate/ledger.jsonl"))?;
    let start = days::parse_timestamp(&opts.start)
        .with_context(|| format!("start {:?} is not YYYY-MM-DDTHH:MM:SSZ", opts.start))?;
    if ids.len() as u64 != opts.lines || created != start {
        bail!(
            "{} holds {} lines created {}: not the box of {} lines from {} these options make",
            box_dir.display(),
            ids.len(),
            fmt_ts(created),
            opts.lines,
            opts.start
        );
    }
    let given_tail = match &opts.tail_start {
        Some(t) => Some(
            days::parse_timestamp(t)
                .with_context(|| format!("tail start {t:?} is not a timestamp"))?,
        ),
        None => None,
    };
    let tail = Tail::new(opts.seed, start, given_tail, &ts);
    // The seed (and the tail's opening) are not in the ledger: the box's own report, which
    // counts its runs, batches and states, must be the one this tail writes.
    let report = box_dir.join("wt/store/REPORT.md");
    let full = tail.state(&ids, tail.read_at);
    if fs::read_to_string(&report).ok() != Some(tail.report(&ids, &full)) {
        bail!(
            "{} is not the report of the store these options make (another seed or tail start?)",
            report.display()
        );
    }
    drop(full);
    let moment = |k: u64| -> Result<i64> {
        let k = k as usize;
        if k == ids.len() {
            return Ok(tail.read_at);
        }
        if k > ids.len() {
            bail!("no store as of {k} lines: the box has {}", ids.len());
        }
        if k < 3 || tail.t0 >= ts[k - 2] {
            bail!(
                "no store as of {k} lines: the tail opened at {}, not before line {} (a store is read just before the second-to-last line's time)",
                fmt_ts(tail.t0),
                k.saturating_sub(1)
            );
        }
        Ok(read_moment(tail.t0, &ts[..k]))
    };
    let at = moment(lines)?;
    let over_state = match over {
        Some(j) => {
            let at = moment(j)?;
            Some(tail.state(&ids[..j as usize], at))
        }
        None => None,
    };
    let ids = &ids[..lines as usize];
    let state = tail.state(ids, at);
    if out.exists() && (!out.is_dir() || fs::read_dir(out)?.next().is_some()) {
        bail!(
            "{} is not an empty folder; refusing to write into it",
            out.display()
        );
    }
    fs::create_dir_all(out)?;
    let sink = FileSink::new();
    let mut writer = StoreWriter {
        tail: &tail,
        seed: opts.seed,
        ids,
        sink: &sink,
        written: 0,
    };
    let removed = writer.write(&state, over_state.as_ref(), out)?;
    let (witness, written) = (tail.summary(ids, &state), writer.written);
    sink.finish()?;
    Ok(StoreAsOf {
        lines,
        read_at: fmt_ts(at),
        witness,
        written,
        removed,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varuint_is_leb128() {
        let mut v = Vec::new();
        varuint(975_101, &mut v);
        assert_eq!(v, vec![0xfd, 0xc1, 0x3b]);
        v.clear();
        varuint(45, &mut v);
        assert_eq!(v, vec![45]);
    }

    #[test]
    fn trailer_form() {
        assert_eq!(
            with_trailer(b"hi\n\n", &trailer(1, 2, 7)),
            "hi\n\n[gate: 1 of 2 numerals bound \u{b7} ledger 0007]".as_bytes()
        );
    }

    #[test]
    fn anchor_proof_matches_the_shape_of_a_real_pending_file() {
        let mut rng = Rng::new(1, 1);
        let proof = anchor_ots(b"x", &mut rng);
        assert!(ots::check(&proof, &Digest::of(b"x")).is_ok());
        let tail = &proof[ots::HEADER_LEN..];
        assert_eq!(&tail[..2], &[0xf0, 0x10]);
        assert_eq!(tail[18], 0x08);
        assert_eq!(tail[19], 0x00);
        assert_eq!(&tail[20..28], &PENDING_TAG);
        assert_eq!(&tail[28..30], &[0x2e, 0x2d]);
        assert_eq!(&tail[30..], CALENDARS[0].as_bytes());
    }
}
