//! Public texts (docs/protocol.md#public-texts, docs/protocol.md#proving-one-message; issue 5): the released bytes of the
//! allow-listed public sends, re-derived from the gate's own copies, guarded, append-only.
//!
//! The stages, in order: read the gate's `config.json`; classify every `send` line (allow-listed,
//! or one class of `off_allow_list`); group the allow-listed lines by `sent_sha256` and re-derive
//! each text from `sources/` (as written, or with the gate's single trailer); fall back to HEAD's
//! copy for a text published before; run the text guard, honouring operator readings from HEAD's
//! committed index and `--allow-text`; refuse what would rewrite history (a published text that
//! newly trips the guard or left the allow-list, a file under `public_texts/` no index lists)
//! unless `--allow-rewrite`; then emit the files, the index, the stats and the page data.
//!
//! Every decision where docs/protocol.md#public-texts is silent is written in `docs/public-texts.md`.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use serde::Serialize;
use serde_json::{Value as J, json};

use super::{Layer, LayerContext, LayerOutput, LayerStats};
use crate::publication::decide::SharedText;
use crate::published::encode::{Count, base64, of, pretty};
use crate::published::output_tree::Content;
use crate::site_write::staged_files::MadeFiles;
use crate::terminal::refusal::Refusal;
use exhibit_protocol::Digest;
use exhibit_protocol::canonical::{Object, Value};
use exhibit_protocol::guard::{self, Finding};

/// Where the layer's files live inside DIR.
pub const FOLDER: &str = "ledger/public_texts";
pub const INDEX: &str = "ledger/public_texts/index.json";
pub const SCHEMA: &str = "exhibit/public_texts/v1";
pub const NOTE: &str = "These texts are the agent's bytes as they left the gate (each file is named by the sha256 of its own bytes), released because their lines are allow-listed public sends. They are not statements of the lab: the publisher changes none of them, and a word inside one is the agent's, not a claim of the protocol or of this page.";

/// Why a `send` line's text is off the allow-list (docs/protocol.md#public-texts), written as
/// its snake_case word. Ordered by that word, as the index and the counts list the classes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OffList {
    Canary,
    OperatorDm,
    NotInConfig,
    DestClassNotPublic,
    NoSentBytes,
}

/// Off-list classes, in the order a line is tested against them.
pub const OFF_CLASSES: [OffList; 5] = [
    OffList::Canary,
    OffList::OperatorDm,
    OffList::NotInConfig,
    OffList::DestClassNotPublic,
    OffList::NoSentBytes,
];

impl OffList {
    /// The word the index, the counts and the refusals write.
    pub fn as_str(self) -> &'static str {
        match self {
            OffList::Canary => "canary",
            OffList::OperatorDm => "operator_dm",
            OffList::NotInConfig => "not_in_config",
            OffList::DestClassNotPublic => "dest_class_not_public",
            OffList::NoSentBytes => "no_sent_bytes",
        }
    }
}

impl Ord for OffList {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.as_str().cmp(other.as_str())
    }
}

impl PartialOrd for OffList {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl std::fmt::Display for OffList {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for OffList {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// The gate's `config.json`, as far as the allow-list needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GateConfig {
    pub anchor_channel_hash: Digest,
    pub canary_hash: Digest,
    pub group_hashes: BTreeSet<Digest>,
    pub operator_dm_hash: Digest,
}

impl GateConfig {
    /// Parses `config.json`. Keys other than the four are the gate's own and are ignored.
    pub fn parse(bytes: &[u8]) -> std::result::Result<GateConfig, String> {
        let v: J = serde_json::from_slice(bytes).map_err(|e| format!("not JSON ({e})"))?;
        let o = v.as_object().ok_or("not a JSON object")?;
        let digest = |key: &str| -> std::result::Result<Digest, String> {
            let not_a_digest = || format!("{key:?} is not a 64-lowercase-hex digest");
            match o.get(key) {
                None => Err(format!("no {key:?}")),
                Some(J::String(s)) => s.parse().map_err(|_| not_a_digest()),
                Some(_) => Err(not_a_digest()),
            }
        };
        let anchor_channel_hash = digest("anchor_channel_hash")?;
        let canary_hash = digest("canary_hash")?;
        let operator_dm_hash = digest("operator_dm_hash")?;
        let groups = match o.get("group_hashes") {
            None => return Err("no \"group_hashes\"".into()),
            Some(J::Array(a)) => a,
            Some(_) => return Err("\"group_hashes\" is not a list".into()),
        };
        let mut group_hashes = BTreeSet::new();
        for g in groups {
            match g.as_str().map(str::parse::<Digest>) {
                Some(Ok(d)) => {
                    group_hashes.insert(d);
                }
                _ => {
                    return Err(
                        "\"group_hashes\" holds a value that is not a 64-lowercase-hex digest"
                            .into(),
                    );
                }
            }
        }
        let listed = |h: &Digest| group_hashes.contains(h) || *h == anchor_channel_hash;
        if listed(&canary_hash) {
            return Err("the canary chat is listed as a public destination (group_hashes or anchor_channel_hash); it may never be".into());
        }
        if listed(&operator_dm_hash) {
            return Err("the operator's dm is listed as a public destination (group_hashes or anchor_channel_hash); it may never be".into());
        }
        Ok(GateConfig {
            anchor_channel_hash,
            canary_hash,
            group_hashes,
            operator_dm_hash,
        })
    }

    pub fn load(path: &Path) -> Result<GateConfig> {
        let bytes = crate::operator_box::read::read_named(
            path,
            crate::operator_box::read::FileClass::GateConfig,
        )
        .and_then(|b| b.with_context(|| format!("{}: no such file", path.display())))
        .with_context(|| {
            format!(
                "{}: cannot read the gate's config.json (needed by --public-texts)",
                path.display()
            )
        })?;
        GateConfig::parse(&bytes).map_err(|e| {
            anyhow::anyhow!(
                "{}: not a usable gate config.json for --public-texts: {e}",
                path.display()
            )
        })
    }

    /// A destination a text may be released to: a listed group or the anchor channel.
    pub fn allows(&self, dest_hash: &Digest) -> bool {
        *dest_hash != self.canary_hash
            && *dest_hash != self.operator_dm_hash
            && (self.group_hashes.contains(dest_hash) || *dest_hash == self.anchor_channel_hash)
    }
}

/// The gate's trailer (docs/protocol.md#public-texts, docs/protocol.md#proving-one-message): `[gate: b of n numerals bound · ledger NNNN]`.
pub fn trailer(bound: i64, total: i64, seq: i64) -> String {
    format!("[gate: {bound} of {total} numerals bound \u{b7} ledger {seq:04}]")
}

/// The bytes with trailing `\n` removed, two newlines, then the trailer (docs/protocol.md#public-texts).
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

/// Where a send line stands with respect to the allow-list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    AllowListed,
    Off(OffList),
}

/// The allow-list rule (docs/protocol.md#public-texts), then the off-list class of a line that fails it. Every `send` line
/// falls in exactly one class; `public` says whether its `dest_class` is `public`.
pub fn classify(o: &Object<'_>, cfg: &GateConfig) -> (Class, bool) {
    let dest_class = o.get_str("dest_class");
    let public = dest_class == Some("public");
    // A dest_hash that is not a digest names no configured chat.
    let dest = digest_field(o, "dest_hash");
    let class = if dest == Some(cfg.canary_hash) || dest_class == Some("canary") {
        Class::Off(OffList::Canary)
    } else if dest == Some(cfg.operator_dm_hash) {
        Class::Off(OffList::OperatorDm)
    } else if !dest.is_some_and(|d| cfg.allows(&d)) {
        Class::Off(OffList::NotInConfig)
    } else if !public {
        Class::Off(OffList::DestClassNotPublic)
    } else if o.get_str("action") != Some("send")
        || !o.get_str("sent_sha256").is_some_and(Digest::is_hex)
    {
        Class::Off(OffList::NoSentBytes)
    } else {
        Class::AllowListed
    };
    (class, public)
}

/// A `send` line, as this layer needs it.
#[derive(Debug, Clone)]
struct SendLine {
    /// Its `sent_sha256`: the text it carries.
    sent: Digest,
    seq: i64,
    /// Shared with the line records (a few thousand days for a million lines).
    day: SharedText,
    checked: Option<Digest>,
    draft: Option<Digest>,
    /// `numerals.bound`, `numerals.total`.
    numerals: Option<(i64, i64)>,
}

/// What is held by a text's sha256 names it.
trait OfText {
    fn sha(&self) -> Digest;
}

impl OfText for SendLine {
    fn sha(&self) -> Digest {
        self.sent
    }
}

/// An off-list line's seq, by the text it carries.
#[derive(Debug, Clone, Copy)]
struct OffListSeq {
    sent: Digest,
    seq: i64,
}

impl OfText for OffListSeq {
    fn sha(&self) -> Digest {
        self.sent
    }
}

/// Values by their text's sha256, held as one list sorted by sha256 (each text's values in the
/// order they were pushed), not as a map of lists: a list per text takes room for four values
/// at its first push, and most texts have one line — at a million lines the map of the
/// allow-listed lines' groups was about 90 MB, this list 25 (docs/scale.md#giving-memory-back).
#[derive(Debug)]
struct BySha<T>(Vec<T>);

impl<T> Default for BySha<T> {
    fn default() -> Self {
        BySha(Vec::new())
    }
}

impl<T: OfText> BySha<T> {
    fn push(&mut self, value: T) {
        self.0.push(value);
    }

    /// Sorted by sha256, stably (a text's values stay in the order they were pushed: seq
    /// order), and the spare room given back. Called once every value is pushed.
    fn sort(&mut self) {
        self.0.sort_by_key(T::sha);
        self.0.shrink_to_fit();
    }

    fn retain(&mut self, keep: impl Fn(&Digest) -> bool) {
        self.0.retain(|v| keep(&v.sha()));
    }

    /// Every value, of every text.
    fn len(&self) -> usize {
        self.0.len()
    }

    /// The values of `sha`, in the order they were pushed (after `sort`).
    fn get(&self, sha: &Digest) -> &[T] {
        let from = self.0.partition_point(|v| v.sha() < *sha);
        let to = from + self.0[from..].partition_point(|v| v.sha() == *sha);
        &self.0[from..to]
    }

    fn contains(&self, sha: &Digest) -> bool {
        !self.get(sha).is_empty()
    }

    /// Each text with its values, in sha256 order (after `sort`).
    fn groups(&self) -> impl Iterator<Item = (Digest, &[T])> {
        self.0
            .chunk_by(|a, b| a.sha() == b.sha())
            .map(|group| (group[0].sha(), group))
    }
}

/// A field that holds a digest; `None` when it is absent or is not one.
fn digest_field(o: &Object<'_>, key: &str) -> Option<Digest> {
    o.get_str(key).and_then(|s| s.parse().ok())
}

fn numerals(o: &Object<'_>) -> Option<(i64, i64)> {
    match o.get("numerals") {
        Some(Value::Object(n)) => Some((n.get_int("bound")?, n.get_int("total")?)),
        _ => None,
    }
}

/// Which of the gate's copies a text re-derives from (docs/public-texts.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum GateCopy {
    /// `sources/<checked_sha256>.md`.
    Checked,
    /// `sources/<draft_sha256>.md`.
    Draft,
    /// `sources/<draft_sha256>.draft.md`.
    DraftFile,
}

/// The form a published text took, written `checked`, `checked+trailer`, `draft`,
/// `draft+trailer`, `draft_file`, `draft_file+trailer` or `carried_from_previous_build`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Form {
    /// A gate copy, as written or with the gate's single trailer.
    Derived { copy: GateCopy, trailer: bool },
    /// HEAD's bytes, carried forward when the sources no longer re-derive them.
    CarriedFromPreviousBuild,
}

impl std::fmt::Display for Form {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (copy, trailer) = match self {
            Form::CarriedFromPreviousBuild => return f.write_str("carried_from_previous_build"),
            Form::Derived { copy, trailer } => (copy, *trailer),
        };
        f.write_str(match copy {
            GateCopy::Checked => "checked",
            GateCopy::Draft => "draft",
            GateCopy::DraftFile => "draft_file",
        })?;
        if trailer {
            f.write_str("+trailer")?;
        }
        Ok(())
    }
}

impl Serialize for Form {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// A text re-derived from the gate's copies.
#[derive(Debug, Clone)]
struct Derived {
    bytes: Vec<u8>,
    role: Form,
    source: TextSource,
    seq: i64,
}

/// Where a released text was taken from, as the index names it: `sources/<sha256>.md`,
/// `sources/<sha256>.draft.md` (the gate's copy a line's digest names), or `HEAD` (carried
/// forward). A digest and a tag, written out when the index is: a string per text was 11 MB
/// at a million lines, on the layer's peak (docs/scale.md#ids-shared).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TextSource {
    /// `sources/<sha256>.md`.
    Md(Digest),
    /// `sources/<sha256>.draft.md`.
    DraftMd(Digest),
    Head,
}

impl TextSource {
    /// The gate's file name, under its sources folder.
    fn file_name(self) -> Option<String> {
        match self {
            TextSource::Md(d) => Some(format!("{d}.md")),
            TextSource::DraftMd(d) => Some(format!("{d}.draft.md")),
            TextSource::Head => None,
        }
    }
}

impl fmt::Display for TextSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.file_name() {
            Some(name) => write!(f, "sources/{name}"),
            None => f.write_str("HEAD"),
        }
    }
}

impl Serialize for TextSource {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// Why a line's text does not re-derive.
#[derive(Debug, Clone)]
struct Failure {
    reason: &'static str,
    detail: String,
}

/// A gate source: no symlink followed, a regular file with one link, within its ceiling
/// (docs/build.md#safety).
fn read_source(dir: &Path, name: &str) -> Result<Option<Vec<u8>>> {
    let Some(folder) = crate::operator_box::read::BoxFolder::published_from(dir)? else {
        return Ok(None);
    };
    folder
        .read(name, crate::operator_box::read::FileClass::Source)
        .with_context(|| {
            format!(
                "{}: cannot read the gate's source",
                dir.join(name).display()
            )
        })
}

/// The recipe (docs/protocol.md#public-texts): each candidate file, as written, then with the single trailer.
fn rederive(
    sources: &Path,
    line: &SendLine,
    sent: &Digest,
) -> Result<std::result::Result<Derived, Failure>> {
    let mut files: Vec<(GateCopy, TextSource)> = Vec::new();
    if let Some(c) = line.checked {
        files.push((GateCopy::Checked, TextSource::Md(c)));
    }
    if let Some(d) = line.draft {
        if line.checked != Some(d) {
            files.push((GateCopy::Draft, TextSource::Md(d)));
        }
        files.push((GateCopy::DraftFile, TextSource::DraftMd(d)));
    }
    let trailer = line.numerals.map(|(b, n)| trailer(b, n, line.seq));
    let mut found = Vec::new();
    for &(role, source) in &files {
        let name = source.file_name().unwrap_or_default();
        let Some(bytes) = read_source(sources, &name)? else {
            continue;
        };
        found.push(name);
        if Digest::of(&bytes) == *sent {
            return Ok(Ok(Derived {
                bytes,
                role: Form::Derived {
                    copy: role,
                    trailer: false,
                },
                source,
                seq: line.seq,
            }));
        }
        if let Some(t) = &trailer {
            let form = with_trailer(&bytes, t);
            if Digest::of(&form) == *sent {
                return Ok(Ok(Derived {
                    bytes: form,
                    role: Form::Derived {
                        copy: role,
                        trailer: true,
                    },
                    source,
                    seq: line.seq,
                }));
            }
        }
    }
    Ok(Err(if found.is_empty() {
        Failure {
            reason: "no_source_file",
            detail: format!(
                "none of {} is in the gate's sources",
                if files.is_empty() {
                    "the candidates (the line carries no checked_sha256 or draft_sha256)"
                        .to_string()
                } else {
                    files
                        .iter()
                        .filter_map(|(_, n)| n.file_name())
                        .collect::<Vec<_>>()
                        .join(", ")
                }
            ),
        }
    } else {
        Failure {
            reason: "no_form_matches",
            detail: format!(
                "no form of {} hashes to sent_sha256 ({}; only the single-trailer form is re-derived: a send with more than one gate mark re-derives from nothing)",
                found.join(", "),
                if trailer.is_some() {
                    "tried as written and with the trailer"
                } else {
                    "tried as written only: the line carries no numerals bound/total for the trailer"
                }
            ),
        }
    }))
}

/// What HEAD's committed publication says (never the disk: docs/protocol.md#operator-readings).
#[derive(Debug, Default)]
struct HeadState<'a> {
    /// Where HEAD's bytes are read from, only when a text must be carried or compared: a
    /// daily build reads none of the texts it re-derives from the sources
    /// (docs/scale.md#the-daily-rebuilds-cost).
    previous: Option<&'a crate::previous::Previous>,
    /// sent_sha256 → (seq in HEAD's index, HEAD's blob when the file is present at HEAD).
    published: BTreeMap<Digest, (i64, Option<git2::Oid>)>,
    /// sent_sha256 → the reading entry as committed.
    readings: BTreeMap<Digest, J>,
    /// File names under public_texts/ at HEAD.
    files: FolderNames,
}

impl HeadState<'_> {
    /// HEAD's bytes of a published text, when its file is present at HEAD.
    fn bytes_of(&self, sha: &Digest) -> Result<Option<Vec<u8>>> {
        match (self.previous, self.published.get(sha)) {
            (Some(previous), Some((_, Some(oid)))) => previous
                .read_blob(*oid, &format!("ledger/public_texts/{sha}.txt"))
                .map(Some),
            _ => Ok(None),
        }
    }
}

/// HEAD's index and names, then HEAD's folder listings let go: the reads by path that filled
/// them (the index and its parts, through the `public_texts/` folder's listing, 25 MB at a
/// million lines) are done, and the layer reads HEAD's texts by blob id after it; held to the
/// layer's end they sat on its peak (docs/scale.md#ids-shared).
fn read_head<'a>(ctx: &LayerContext<'a>) -> Result<HeadState<'a>> {
    let head = read_head_index(ctx);
    ctx.previous.let_go_of_listings();
    head
}

fn read_head_index<'a>(ctx: &LayerContext<'a>) -> Result<HeadState<'a>> {
    // One read of the folder's listing; each text is then found by name (no read by path).
    let blobs: BTreeMap<String, git2::Oid> = ctx
        .previous
        .list_blobs_beside(FOLDER, &["index"])?
        .into_iter()
        .collect();
    // The index's parts, as `index/<name>` (docs/public-texts.md#parts).
    let part_names = ctx
        .previous
        .list_blobs(&format!("{FOLDER}/index"))?
        .into_iter()
        .map(|(name, _)| format!("index/{name}"));
    let mut head = HeadState {
        previous: Some(ctx.previous),
        files: blobs.keys().cloned().chain(part_names).collect(),
        ..HeadState::default()
    };
    let Some(bytes) = ctx.previous.read(INDEX)? else {
        return Ok(head);
    };
    let bad = |what: &str| {
        anyhow::anyhow!(
            "HEAD:{INDEX} (under the output folder) is not a public-texts index: {what}"
        )
    };
    let index: J = serde_json::from_slice(&bytes).map_err(|e| bad(&e.to_string()))?;
    let list = |key: &str| -> Result<Vec<J>> {
        match index.get(key) {
            None => Ok(Vec::new()),
            Some(J::Array(a)) => Ok(a.clone()),
            Some(_) => Err(bad(&format!("{key} is not a list"))),
        }
    };
    // Each entry's sha256 and seq are taken as its list is read, and the list let go: HEAD's
    // whole published list as JSON values was 200 MB at a million lines (docs/scale.md#memory).
    // An entry without a sent_sha256 is named after every part is read, as when the lists were
    // read first and their entries after.
    let mut bad_entry = None;
    let mut take = |published: Vec<J>, head: &mut HeadState<'a>| {
        for p in published {
            let sha = p
                .get("sent_sha256")
                .and_then(J::as_str)
                .and_then(|s| s.parse::<Digest>().ok());
            let Some(sha) = sha else {
                bad_entry.get_or_insert_with(|| bad("a published entry without a sent_sha256"));
                continue;
            };
            let seq = p.get("seq").and_then(J::as_i64).unwrap_or_default();
            let file = blobs.get(&format!("{sha}.txt")).copied();
            head.published.insert(sha, (seq, file));
        }
    };
    take(list("published")?, &mut head);
    // A segmented exhibit's index keeps its published list in its parts (docs/public-texts.md#parts);
    // HEAD's snapshot vouched for every one of them (the HEAD check).
    match index.get("parts") {
        None => {}
        Some(J::Array(parts)) => {
            for part in parts {
                let path = part.get("path").and_then(J::as_str).unwrap_or_default();
                let numbered = path
                    .strip_prefix(FOLDER)
                    .and_then(|n| n.strip_prefix("/index/"))
                    .and_then(crate::published::layout::witness_part_number)
                    .is_some();
                if !numbered {
                    return Err(bad(&format!(
                        "its parts list names {:?}, not ledger/public_texts/index/NNNNNN.json",
                        crate::terminal::escape(path)
                    )));
                }
                let bytes = ctx
                    .previous
                    .read(path)?
                    .ok_or_else(|| bad(&format!("it lists {path}, which HEAD does not hold")))?;
                let part: J = serde_json::from_slice(&bytes)
                    .map_err(|e| bad(&format!("{path} is not JSON: {e}")))?;
                let mut part = part;
                match part.get_mut("published").map(J::take) {
                    None => {}
                    // Moved out of the part, not copied.
                    Some(J::Array(a)) => take(a, &mut head),
                    Some(_) => return Err(bad(&format!("{path}: published is not a list"))),
                }
            }
        }
        Some(_) => return Err(bad("parts is not a list")),
    }
    if let Some(e) = bad_entry {
        return Err(e);
    }
    for r in list("allowed_by_operator")? {
        let sha = r
            .get("sent_sha256")
            .and_then(J::as_str)
            .and_then(|s| s.parse::<Digest>().ok());
        let Some(sha) = sha else {
            return Err(bad("an allowed_by_operator entry without a sent_sha256"));
        };
        head.readings.insert(sha, r.clone());
    }
    Ok(head)
}

fn reason_codes(findings: &[Finding]) -> Vec<String> {
    findings.iter().map(|f| f.code().to_string()).collect()
}

/// The reasons in words a stranger understands (docs/guard.md#reasons), for the index and the
/// page; like the codes, they never echo what the guard matched.
fn reason_words(findings: &[Finding]) -> String {
    let words: Vec<&str> = findings.iter().map(|f| f.words()).collect();
    format!("the text holds {}", words.join("; and "))
}

/// One text this build publishes.
struct Release {
    bytes: Vec<u8>,
    /// DIR already holds these bytes, unchanged since the last build wrote them (a segmented
    /// exhibit, whose page carries no text): the bytes are let go and the text is named as
    /// DIR's file, [`Texts::dir_folder`] (docs/scale.md#memory).
    in_dir: bool,
    /// The bytes were written into the build's folder of made files as the text was released
    /// (a segmented exhibit): let go, and the text named as that folder's file
    /// (docs/scale.md#made-as-written).
    made: bool,
    entry: PublishedText,
}

impl Release {
    /// The text's sha256, which names its file.
    fn sha(&self) -> Digest {
        self.entry.sent_sha256
    }
}

/// One text of the index's `published` list. Fields alphabetical: the index has always been
/// written with its keys sorted (serde_json keeps no insertion order).
#[derive(Debug, Clone, Serialize)]
struct PublishedText {
    bytes: usize,
    day: SharedText,
    file: TextFileName,
    form: Form,
    off_list_seqs: Vec<i64>,
    other_seqs: Vec<i64>,
    sent_sha256: Digest,
    seq: i64,
    source: TextSource,
}

/// A released text's file name, `<sha256>.txt`: written from the digest when the index is, not
/// held as a string per text (docs/scale.md#memory).
#[derive(Debug, Clone, Copy)]
struct TextFileName(Digest);

impl Serialize for TextFileName {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(&format_args!("{}.txt", self.0))
    }
}

/// The public-texts layer: `--public-texts`.
pub struct PublicTexts;

impl Layer for PublicTexts {
    fn folder(&self) -> &'static str {
        "public_texts"
    }

    fn flag(&self) -> &'static str {
        "--public-texts"
    }

    fn build(&self, ctx: &LayerContext<'_>) -> Result<LayerOutput> {
        build(ctx)
    }
}

pub fn build(ctx: &LayerContext<'_>) -> Result<LayerOutput> {
    let plan = ctx.plan;
    let (cfg, sources) = gate_inputs(plan)?;
    let head = read_head(ctx)?;
    crate::terminal::progress::stage_done("public texts: HEAD's index");
    let dir = plan.out.display().to_string();
    let rewrite = plan.allow_rewrite.as_deref();

    let mut classes = classify_lines(ctx, &cfg, &head.published)?;
    crate::terminal::progress::stage_done("public texts: classified");
    let mut out = LayerOutput::default();
    let mut texts = Texts {
        guarded_before: guarded_before(ctx.previous.git_dir()),
        ..Texts::default()
    };
    if part_seqs(ctx).is_some() {
        texts.dir_holds = Some(crate::site_write::dir_record::DirHolds::open(
            ctx.previous.git_dir(),
            &plan.out,
        ));
    }
    // The allow-listed lines are let go as their texts are settled, and the lists by sha once
    // step 3 has read them: at a million lines they are 120 MB, held for nothing while the
    // index is made (docs/scale.md#memory).
    let allow_listed: usize = classes.groups.len();
    let still_listed: BTreeSet<Digest> = head
        .published
        .keys()
        .filter(|sha| classes.groups.contains(sha))
        .copied()
        .collect();
    let groups = std::mem::take(&mut classes.groups);
    // At most one release per text, made once: a list grown by doubling holds up to half as
    // much again for nothing (docs/scale.md#memory).
    texts.releases.reserve_exact(groups.groups().count());
    // The clean texts' list too: 32 bytes a text, a list grown by doubling held up to twice that
    // on the layer's peak (docs/scale.md#carried-verdicts).
    texts.guarded_now.reserve_exact(groups.groups().count());
    for (sha, lines) in groups.groups() {
        if let Some(found) = text_of(
            sources, &head, &sha, lines, &dir, rewrite, &mut texts, &mut out,
        )? {
            guard_and_release(
                ctx, &head, &classes, &sha, lines, found, &dir, &mut texts, &mut out,
            )?;
        }
    }
    // The releases' walk through DIR's record is done: DIR's copies are compared below. The
    // allow-listed lines by sha were read by that walk alone: let go now, not when the layer
    // returns (25 MB at a million lines, on the layer's peak: docs/scale.md#texts-listed).
    texts.dir_holds = None;
    drop(groups);
    no_longer_allow_listed(
        &head,
        &classes,
        &still_listed,
        &dir,
        rewrite,
        &mut texts,
        &mut out,
    );
    crate::terminal::progress::stage_done("public texts: sources read and guarded");
    classes.off_by_sha = BySha::default();
    classes.class_of_sha = BTreeMap::new();
    let disk = unlisted_files(
        plan,
        &classes.off,
        part_seqs(ctx),
        &head,
        &dir,
        rewrite,
        &mut texts,
        &mut out,
    )?;
    crate::terminal::progress::stage_done("public texts: unlisted files");
    disk_copies(ctx, &disk, &head, &dir, &mut texts, &mut out)?;
    // HEAD's index and DIR's names are not needed to finish: let go before the index is made.
    drop(disk);
    drop(head);
    // Nor HEAD's folder listings, which the reads of HEAD's texts by path filled (the
    // `public_texts/` folder's is 25 MB at a million lines); a later read lists again.
    ctx.previous.let_go_of_listings();
    crate::terminal::progress::stage_done("public texts: DIR's copies");
    for sha in &plan.allow_text {
        if !texts.allow_text_used.contains(sha) {
            out.notes.push(format!(
                "public texts: --allow-text {sha} names no text this build withholds; nothing to release on it"
            ));
        }
    }
    texts.guarded_before = Vec::new();
    out.carried.extend(guarded_carried(
        ctx.previous.git_dir(),
        std::mem::take(&mut texts.guarded_now),
    ));
    // A segmented exhibit's index parts that DIR already holds are named as DIR's files.
    let holds = part_seqs(ctx)
        .map(|_| crate::site_write::dir_record::DirHolds::open(ctx.previous.git_dir(), &plan.out));
    finish(
        ctx.verified.lines.len(),
        &classes,
        allow_listed,
        texts,
        rewrite,
        part_seqs(ctx).zip(holds),
        ctx.made.filter(|_| ctx.segmented),
        out,
    )
}

/// The seqs one part of the index holds, when the index is split: only on a segmented exhibit
/// (a one-file exhibit's index stays byte-identical), in the witness index's blocks
/// (docs/public-texts.md#parts).
fn part_seqs(ctx: &LayerContext<'_>) -> Option<u64> {
    ctx.segmented.then_some(ctx.plan.config.witness_part_seqs)
}

/// The gate's config.json and sources folder, which --public-texts needs.
fn gate_inputs(plan: &crate::publication::BuildPlan) -> Result<(GateConfig, &Path)> {
    let toml = plan.config.file.display().to_string();
    let Some(config_path) = &plan.config.gate_config else {
        bail!(
            "{toml}: --public-texts needs the gate's config.json: add `config = \"...\"` under [gate]"
        );
    };
    let cfg = GateConfig::load(config_path)?;
    let Some(sources) = &plan.config.sources else {
        bail!(
            "{toml}: --public-texts needs the gate's sources folder: add `sources = \"...\"` under [gate]"
        );
    };
    if !sources.is_dir() {
        bail!(
            "{}: the sources folder named in {toml} does not exist (needed by --public-texts)",
            sources.display()
        );
    }
    Ok((cfg, sources))
}

fn file_of(dir: &str, sha: &Digest) -> String {
    format!("{dir}/{FOLDER}/{sha}.txt")
}

/// Every seq of the group but `seq`.
fn other_seqs(lines: &[SendLine], seq: i64) -> Vec<i64> {
    lines.iter().map(|l| l.seq).filter(|s| *s != seq).collect()
}

/// Step 1: every send line classified.
#[derive(Default)]
struct Classes {
    send_lines: usize,
    line_withheld: usize,
    public_lines: usize,
    off: BTreeMap<OffList, Vec<i64>>,
    /// sent_sha256 → off-list seqs carrying it (published lines only).
    off_by_sha: BySha<OffListSeq>,
    /// sent_sha256 → allow-listed lines carrying it, in seq order.
    groups: BySha<SendLine>,
    /// sent_sha256 → the class of the first non-allow-listed line carrying it, for the refusal
    /// of a text HEAD published that is no longer allow-listed: kept only for HEAD's texts
    /// (a string for every off-list text was 34 MB at a million lines: docs/scale.md#memory).
    class_of_sha: BTreeMap<Digest, String>,
}

/// The lines are read again from the gate's ledger and held, like the guard's, to the bytes the
/// verify stage re-derived: which text may be released follows from them
/// (docs/scale.md#the-gates-ledger-is-not-held).
fn classify_lines(
    ctx: &LayerContext<'_>,
    cfg: &GateConfig,
    head_published: &BTreeMap<Digest, (i64, Option<git2::Oid>)>,
) -> Result<Classes> {
    let mut c = Classes {
        off: OFF_CLASSES.iter().map(|c| (*c, Vec::new())).collect(),
        ..Classes::default()
    };
    let mut reader = ctx.ledger.lines(true);
    for record in ctx.verified.lines.iter() {
        if &**record.kind() != "send" {
            continue;
        }
        c.send_lines += 1;
        let o = crate::publication::decide::line_object(reader.get(record.start(), record.end())?);
        let sent = digest_field(&o, "sent_sha256");
        if record.withheld.is_some() {
            // Never a candidate; its fields are not published, so it is counted, not named.
            c.line_withheld += 1;
            if let Some(s) = sent.filter(|s| head_published.contains_key(s)) {
                c.class_of_sha
                    .entry(s)
                    .or_insert_with(|| "its line is withheld by the line rules".into());
            }
            continue;
        }
        let (class, public) = classify(&o, cfg);
        if public {
            c.public_lines += 1;
        }
        match class {
            // classify() allow-lists only lines that carry a sent_sha256.
            Class::AllowListed => {
                if let Some(sent) = sent {
                    c.groups.push(SendLine {
                        sent,
                        seq: record.seq,
                        day: record.day().clone(),
                        checked: digest_field(&o, "checked_sha256"),
                        draft: digest_field(&o, "draft_sha256"),
                        numerals: numerals(&o),
                    });
                }
            }
            Class::Off(class) => {
                c.off.entry(class).or_default().push(record.seq);
                if let Some(s) = sent {
                    c.off_by_sha.push(OffListSeq {
                        sent: s,
                        seq: record.seq,
                    });
                    if head_published.contains_key(&s) {
                        c.class_of_sha.entry(s).or_insert_with(|| {
                            format!("seq {} is off the allow-list ({class})", record.seq)
                        });
                    }
                }
            }
        }
    }
    reader.finish()?;
    c.groups.sort();
    // The off-list seqs are printed only for a text that is released, one with an allow-listed
    // line: the others are let go now (docs/scale.md#memory).
    let groups = &c.groups;
    c.off_by_sha.retain(|sha| groups.contains(sha));
    c.off_by_sha.sort();
    Ok(c)
}

/// What steps 2 to 5 decide of the allow-listed texts.
#[derive(Default)]
struct Texts {
    releases: Vec<Release>,
    /// What DIR already holds, asked as each text is released (in sha256 order) in a segmented
    /// exhibit: a text DIR holds is let go at once, not held until DIR's copies are compared
    /// (docs/scale.md#memory).
    dir_holds: Option<crate::site_write::dir_record::DirHolds>,
    /// `DIR/ledger/public_texts`, where the texts DIR already holds are read again.
    dir_folder: Option<std::sync::Arc<Path>>,
    withheld: Vec<WithheldText>,
    unreconstructable: Vec<Unreconstructable>,
    allowed: Vec<J>,
    dropped: Vec<J>,
    lines_published: usize,
    lines_withheld: usize,
    lines_unrec: usize,
    allow_text_used: BTreeSet<Digest>,
    /// The texts an earlier build's guard found nothing in (sorted), and this build's
    /// (docs/scale.md#carried-verdicts).
    guarded_before: Vec<Digest>,
    guarded_now: Vec<Digest>,
}

/// The carried state of the text guard: the sha256s of the texts it found nothing in, under
/// this binary (the guard is a function of a text's bytes, and a text here is the bytes that
/// hash to its name). 32 bytes a text, sorted.
const GUARDED_FILE: &str = "exhibit/texts-guarded";
const GUARDED_MAGIC: &[u8] = b"exhibit-texts-guarded\n";

fn guarded_before(git_dir: Option<&Path>) -> Vec<Digest> {
    let Some(body) =
        crate::previous::carried::read_for_binary(git_dir, GUARDED_FILE, GUARDED_MAGIC)
    else {
        return Vec::new();
    };
    let list: Vec<Digest> = body
        .chunks_exact(32)
        .filter_map(|c| c.try_into().ok().map(Digest))
        .collect();
    // Whole and in order, or not ours.
    if body.len() % 32 != 0 || !list.windows(2).all(|w| w[0] < w[1]) {
        return Vec::new();
    }
    list
}

fn guarded_carried(
    git_dir: Option<&Path>,
    mut now: Vec<Digest>,
) -> Option<crate::previous::carried::Carried> {
    now.sort_unstable();
    now.dedup();
    let body: Vec<u8> = now.iter().flat_map(|d| d.0).collect();
    crate::previous::carried::for_binary(git_dir, GUARDED_FILE, GUARDED_MAGIC, &body)
}

/// A group's text: re-derived from the sources, or carried forward from HEAD.
struct Found {
    bytes: Vec<u8>,
    form: Form,
    source: TextSource,
    seq: i64,
}

/// Step 2a: re-derive a group's text, or carry HEAD's copy forward (docs/public-texts.md);
/// `None` when there is nothing to publish (listed, refused or dropped on the way).
#[allow(clippy::too_many_arguments)]
fn text_of(
    sources: &Path,
    head: &HeadState,
    sha: &Digest,
    lines: &[SendLine],
    dir: &str,
    rewrite: Option<&str>,
    texts: &mut Texts,
    out: &mut LayerOutput,
) -> Result<Option<Found>> {
    let first = &lines[0];
    let mut derived = None;
    let mut failures: Vec<(i64, Failure)> = Vec::new();
    for line in lines {
        match rederive(sources, line, sha)? {
            Ok(d) => {
                derived = Some(d);
                break;
            }
            Err(f) => failures.push((line.seq, f)),
        }
    }
    let at_head = head.published.get(sha);
    // A re-derived text that is not UTF-8 is never written.
    let mut not_utf8 = None;
    if let Some(d) = &derived
        && std::str::from_utf8(&d.bytes).is_err()
    {
        not_utf8 = derived.take().map(|d| d.seq);
    }
    // HEAD's copy is read only when the sources no longer re-derive the text.
    let head_copy = match (&derived, at_head) {
        (None, Some((_, Some(_)))) => head.bytes_of(sha)?,
        _ => None,
    };
    let found = match (derived, at_head) {
        (Some(d), _) => Found {
            bytes: d.bytes,
            form: d.role,
            source: d.source,
            seq: d.seq,
        },
        (None, Some((head_seq, Some(_)))) => {
            let head_bytes = head_copy.unwrap_or_default();
            // Carried forward (docs/protocol.md#public-texts): HEAD's bytes, re-checked against the digest.
            let seq = lines
                .iter()
                .map(|l| l.seq)
                .find(|s| s == head_seq)
                .unwrap_or(first.seq);
            let ok = Digest::of(&head_bytes) == *sha && std::str::from_utf8(&head_bytes).is_ok();
            if !ok {
                if let Some(reason) = rewrite {
                    texts.dropped.push(json!({"sent_sha256": sha, "seq": seq, "reason": "head_copy_mismatch", "rewrite_reason": reason}));
                    for l in lines {
                        texts.unreconstructable.push(Unreconstructable::new(l.seq, sha, "head_copy_mismatch",
                            "the copy at HEAD does not hash to sent_sha256 (or is not UTF-8), and the sources do not re-derive it; dropped with --allow-rewrite"));
                    }
                    texts.lines_unrec += lines.len();
                } else {
                    out.refusals.push(Refusal::new(
"text_not_rederivable",
                        file_of(dir, sha),
                        format!("seq {seq}"),
                        "the text published at HEAD does not hash to its sent_sha256 (or is not UTF-8) and the gate's sources no longer re-derive it; it cannot be carried forward (docs/protocol.md#public-texts: append-only)",
                        "restore its source under the gate's sources folder, or --allow-rewrite REASON to drop it",
                    ));
                }
                return Ok(None);
            }
            Found {
                bytes: head_bytes,
                form: Form::CarriedFromPreviousBuild,
                source: TextSource::Head,
                seq,
            }
        }
        (None, _) => {
            for l in lines {
                let entry = if Some(l.seq) == not_utf8 {
                    Unreconstructable::new(
                        l.seq,
                        sha,
                        "not_utf8",
                        "the bytes re-derive but are not valid UTF-8 (a lone surrogate the gate keeps and hashes); never written",
                    )
                } else if not_utf8.is_some() {
                    Unreconstructable::new(
                        l.seq,
                        sha,
                        "not_utf8",
                        format!(
                            "the same bytes as seq {}: they re-derive but are not valid UTF-8; never written",
                            not_utf8.unwrap_or_default()
                        ),
                    )
                } else {
                    // Every line of a group that did not re-derive was tried.
                    let Some((_, f)) = failures.iter().find(|(s, _)| *s == l.seq) else {
                        continue;
                    };
                    Unreconstructable::new(l.seq, sha, f.reason, f.detail.clone())
                };
                texts.unreconstructable.push(entry);
            }
            texts.lines_unrec += lines.len();
            if let Some((head_seq, None)) = at_head {
                out.notes.push(format!(
                    "public texts: HEAD's index lists {sha} (seq {head_seq}) but its file is absent at HEAD; nothing to carry forward, listed as unreconstructable"
                ));
            }
            return Ok(None);
        }
    };
    Ok(Some(found))
}

/// Step 2b: the guard reads the text; it is released, allowed on a reading, or withheld.
#[allow(clippy::too_many_arguments)]
fn guard_and_release(
    ctx: &LayerContext<'_>,
    head: &HeadState,
    classes: &Classes,
    sha: &Digest,
    lines: &[SendLine],
    found: Found,
    dir: &str,
    texts: &mut Texts,
    out: &mut LayerOutput,
) -> Result<()> {
    let rewrite = ctx.plan.allow_rewrite.as_deref();
    let at_head = head.published.get(sha);
    let Found {
        bytes,
        form,
        source,
        seq,
    } = found;
    let day = lines
        .iter()
        .find(|l| l.seq == seq)
        .map(|l| l.day.clone())
        .unwrap_or_else(|| SharedText::from(""));
    // Bytes that are not UTF-8 were listed before and never reach here.
    let text = String::from_utf8_lossy(&bytes);
    // A text this binary's guard found nothing in before is not scanned again
    // (docs/scale.md#carried-verdicts).
    let findings = if texts.guarded_before.binary_search(sha).is_ok() {
        Vec::new()
    } else {
        guard::scan(&text, guard::Context::PublicText)
    };
    if findings.is_empty() {
        texts.guarded_now.push(*sha);
    }
    let reasons = reason_codes(&findings);
    if !reasons.is_empty() {
        let read_at_head = head.readings.get(sha).filter(|r| {
            let read: BTreeSet<&str> = r
                .get("reasons")
                .and_then(J::as_array)
                .map(|a| a.iter().filter_map(J::as_str).collect())
                .unwrap_or_default();
            reasons.iter().all(|x| read.contains(x.as_str()))
        });
        if let Some(r) = read_at_head {
            let mut r = r.clone();
            r["read_in"] = J::String("HEAD".into());
            texts.allowed.push(r);
        } else if ctx.plan.allow_text.contains(sha) {
            texts.allow_text_used.insert(*sha);
            texts.allowed.push(json!({"sent_sha256": sha, "seq": seq, "reasons": reasons, "read_in": "this build"}));
        } else {
            let w = WithheldText {
                day,
                other_seqs: other_seqs(lines, seq),
                reasons: reasons.clone(),
                role: form,
                sent_sha256: *sha,
                seq,
                why: reason_words(&findings),
            };
            if at_head.is_some_and(|(_, b)| b.is_some()) {
                // Published before, trips now: the rules grew (docs/protocol.md#public-texts).
                if let Some(reason) = rewrite {
                    texts.dropped.push(json!({"sent_sha256": sha, "seq": seq, "reason": "newly_trips_text_guard", "rewrite_reason": reason}));
                } else {
                    out.refusals.push(Refusal::new(
"text_now_guarded",
                        file_of(dir, sha),
                        format!("seq {seq}"),
                        format!(
                            "a text published at HEAD now trips the text guard ({}); the rules grew, and a published text is not removed silently (docs/protocol.md#public-texts)",
                            reasons.join(", ")
                        ),
                        format!("--allow-text {sha} after a person has read it, or --allow-rewrite REASON to drop it"),
                    ));
                    return Ok(());
                }
            }
            texts.withheld.push(w);
            texts.lines_withheld += lines.len();
            return Ok(());
        }
    }
    texts.lines_published += lines.len();
    let len = bytes.len();
    // The text's name is its sha256: DIR's record is compared with it. A dry run, which has no
    // folder of made files to let the text go into, reads DIR's copy to be sure where the record
    // does not describe it (DIR checked out again, a clone), or every text would be held until
    // DIR's copies are compared (53 MB at a million: docs/scale.md#without-dirs-record-dry-run).
    let rel = format!("{FOLDER}/{sha}.txt");
    let in_dir = texts.dir_holds.as_mut().is_some_and(|holds| {
        holds
            .holding_or_read(&rel, *sha, len as u64, ctx.made.is_none())
            .is_some()
    });
    // A segmented exhibit's new text is written as it is released, into the build's folder of
    // made files, and named from there when the tree is made: at a million lines the texts
    // are 120 MB (docs/scale.md#made-as-written). A one-file exhibit's page carries them.
    let made = match ctx.made.filter(|_| ctx.segmented && !in_dir) {
        Some(made) => {
            made.put(&rel, &bytes)?;
            true
        }
        None => false,
    };
    let bytes = if in_dir || made { Vec::new() } else { bytes };
    texts.releases.push(Release {
        entry: PublishedText {
            bytes: len,
            day,
            file: TextFileName(*sha),
            form,
            off_list_seqs: classes.off_by_sha.get(sha).iter().map(|o| o.seq).collect(),
            other_seqs: other_seqs(lines, seq),
            sent_sha256: *sha,
            seq,
            source,
        },
        bytes,
        in_dir,
        made,
    });
    Ok(())
}

/// Step 3: texts published at HEAD that no allow-listed line carries now.
fn no_longer_allow_listed(
    head: &HeadState,
    classes: &Classes,
    still_listed: &BTreeSet<Digest>,
    dir: &str,
    rewrite: Option<&str>,
    texts: &mut Texts,
    out: &mut LayerOutput,
) {
    for (sha, (head_seq, file)) in &head.published {
        if still_listed.contains(sha) || file.is_none() {
            continue;
        }
        let why = classes
            .class_of_sha
            .get(sha)
            .cloned()
            .unwrap_or_else(|| "no line of the ledger carries it now".to_string());
        if let Some(reason) = rewrite {
            texts.dropped.push(json!({"sent_sha256": sha, "seq": head_seq, "reason": "no_longer_allow_listed", "detail": why, "rewrite_reason": reason}));
        } else {
            out.refusals.push(Refusal::new(
"text_off_allow_list",
                file_of(dir, sha),
                format!("seq {head_seq}"),
                format!("a text published at HEAD is no longer allow-listed ({why}); a published text is not removed silently (docs/protocol.md#public-texts)"),
                "put its destination back in the gate's config.json, or --allow-rewrite REASON to drop it",
            ));
        }
    }
}

/// Step 4: files under public_texts/ that no index lists (on disk, or at HEAD). Returns the
/// files on disk.
#[allow(clippy::too_many_arguments)]
fn unlisted_files(
    plan: &crate::publication::BuildPlan,
    off: &BTreeMap<OffList, Vec<i64>>,
    part_seqs: Option<u64>,
    head: &HeadState,
    dir: &str,
    rewrite: Option<&str>,
    texts: &mut Texts,
    out: &mut LayerOutput,
) -> Result<FolderNames> {
    // The texts' names are compared by their digests (docs/scale.md#giving-memory-back).
    let mut released: Vec<Digest> = texts.releases.iter().map(Release::sha).collect();
    released.sort_unstable();
    // The index's parts this build writes (docs/public-texts.md#parts); a part HEAD or DIR
    // holds that this build does not write is a stray like any other file.
    let part_names: BTreeSet<String> = match part_seqs {
        Some(k) => part_numbers(off, texts, k)
            .map(|n| format!("index/{n:06}.json"))
            .collect(),
        None => BTreeSet::new(),
    };
    let listed = |name: &str| match text_name(name) {
        Some(sha) => released.binary_search(&sha).is_ok() || head.published.contains_key(&sha),
        None => name == "index.json" || part_names.contains(name),
    };
    let disk_dir = plan.out.join(FOLDER);
    let disk = disk_names(&disk_dir)?;
    let mut strays: BTreeSet<(String, &'static str)> = BTreeSet::new();
    for name in disk.names().filter(|n| !listed(n)) {
        strays.insert((name, "on disk"));
    }
    for name in head.files.names().filter(|n| !listed(n)) {
        strays.insert((name, "at HEAD"));
    }
    for (name, place) in &strays {
        if let Some(reason) = rewrite {
            if *place == "at HEAD" {
                texts.dropped.push(json!({"file": name, "reason": "not_listed_by_any_index", "rewrite_reason": reason}));
            }
            out.notes.push(format!(
                "public texts: {dir}/{FOLDER}/{name} ({place}) is listed by no index; removed (--allow-rewrite)"
            ));
        } else {
            out.refusals.push(Refusal::new(
"text_stray_file",
                format!("{dir}/{FOLDER}/{name}"),
                "",
                format!("a file under public_texts/ ({place}) that neither HEAD's index nor this build's lists (docs/protocol.md#public-texts)"),
                "remove the file, or --allow-rewrite REASON",
            ));
        }
    }
    Ok(disk)
}

/// Step 5: disk copies that differ from the released bytes are rewritten from memory, said.
/// A copy is compared by DIR's record when its stat data is unchanged since the last build
/// wrote it, else read, one at a time (docs/scale.md#comparing-without-reading): the texts on
/// disk are never all held at once. On a segmented exhibit (its page carries no text) a text
/// DIR holds is named as DIR's file and its bytes let go (docs/scale.md#memory).
fn disk_copies(
    ctx: &LayerContext<'_>,
    disk: &FolderNames,
    head: &HeadState,
    dir: &str,
    texts: &mut Texts,
    out: &mut LayerOutput,
) -> Result<()> {
    let mut holds =
        crate::site_write::dir_record::DirHolds::open(ctx.previous.git_dir(), &ctx.plan.out);
    let mut folders = crate::site_write::dir_folders::OpenFolders::existing(&ctx.plan.out);
    let folder = crate::operator_box::read::BoxFolder::named(&ctx.plan.out.join(FOLDER))?;
    let let_go = part_seqs(ctx).is_some();
    if let_go {
        texts.dir_folder = Some(ctx.plan.out.join(FOLDER).into());
    }
    // DIR's copy is named, not the one written into the build's folder of made files (which
    // goes with that folder): a text is one or the other, never both.
    let held_by_dir = |r: &mut Release| {
        if let_go {
            r.in_dir = true;
            r.made = false;
            r.bytes = Vec::new();
        }
    };
    for r in &mut texts.releases {
        let name = format!("{}.txt", r.sha());
        // Already named as DIR's file when it was released.
        if r.in_dir || !disk.contains(&name) {
            continue;
        }
        // The text's name is its sha256: DIR's record is compared with it, not with a second
        // hash of the bytes.
        let rel = format!("{FOLDER}/{name}");
        if holds.holding(&rel, r.sha(), r.bytes.len() as u64).is_some() {
            held_by_dir(r);
            continue;
        }
        let regular = match folders.get(FOLDER) {
            Ok(Some(fd)) => crate::site_write::dir_folders::stat_in(fd, &name)
                .is_ok_and(|stat| crate::site_write::dir_folders::is_regular(&stat)),
            _ => false,
        };
        // Only a regular file is read (no symlink followed, within the ceiling); anything else
        // in its place holds no bytes (docs/build.md#safety).
        let on_disk = match &folder {
            Some(folder) if regular => folder
                .read(&name, crate::operator_box::read::FileClass::OutputFile)?
                .unwrap_or_default(),
            _ => Vec::new(),
        };
        // Compared by digest: the text's name is the sha256 of its bytes, which a text written
        // into the build's folder of made files no longer holds (`made`: let go as released).
        // Compared with those empty bytes, every copy DIR held read as changed, and a build
        // without DIR's record (a checkout, a clone) said so of 170,000 texts at a million lines.
        if Digest::of(&on_disk) == r.sha() {
            held_by_dir(r);
            continue;
        }
        let head_blob = head.bytes_of(&r.sha())?;
        let head_is_released = head_blob.is_some_and(|b| Digest::of(&b) == r.sha());
        if head_is_released && Digest::of(&crlf_to_lf(&on_disk)) == r.sha() {
            out.notes.push(format!(
                "public texts: {dir}/{FOLDER}/{name} had CRLF line endings on disk (a checkout converted it); restored from HEAD's bytes, not a rewrite"
            ));
        } else {
            out.notes.push(format!(
                "public texts: {dir}/{FOLDER}/{name} on disk differed from the released bytes; rewritten from the released bytes"
            ));
        }
    }
    Ok(())
}

/// `STATS.json`'s `public_texts` (and each `SNAPSHOTS.jsonl` line's), also the index's
/// `counts`: every count with its denominator. Fields alphabetical, as the files have always
/// been written (serde_json keeps no insertion order; a test checks the order).
#[derive(Debug, Clone, Serialize)]
pub struct TextsStats {
    allow_listed: Count,
    off_allow_list: BTreeMap<OffList, Count>,
    public_send_lines: Count,
    published: Count,
    #[serde(skip_serializing_if = "Option::is_none")]
    rewrite_reason: Option<String>,
    send_lines: Count,
    send_lines_withheld_by_line_rules: Count,
    texts: TextCounts,
    unreconstructable: Count,
    withheld: Count,
}

/// The counts of texts (not of lines).
#[derive(Debug, Clone, Serialize)]
struct TextCounts {
    allowed_by_operator: Count,
    carried_from_previous_build: Count,
    dropped: Count,
    published: usize,
}

/// A text the guard withholds, with the reasons in codes and in words (never what matched).
#[derive(Debug, Clone, Serialize)]
struct WithheldText {
    day: SharedText,
    other_seqs: Vec<i64>,
    reasons: Vec<String>,
    role: Form,
    sent_sha256: Digest,
    seq: i64,
    why: String,
}

/// An allow-listed line whose text cannot be published: why, in a code and in words.
#[derive(Debug, Clone, Serialize)]
struct Unreconstructable {
    detail: String,
    reason: &'static str,
    sent_sha256: Digest,
    seq: i64,
}

impl Unreconstructable {
    fn new(seq: i64, sha: &Digest, reason: &'static str, detail: impl Into<String>) -> Self {
        Unreconstructable {
            detail: detail.into(),
            reason,
            sent_sha256: *sha,
            seq,
        }
    }
}

/// `ledger/public_texts/index.json` (docs/protocol.md#public-texts). The entries of the allowed
/// and dropped lists keep their JSON shape: an allowed entry read at HEAD is carried as HEAD
/// committed it, and a dropped entry takes one of three shapes.
#[derive(Debug, Serialize)]
struct TextsIndex<'a> {
    allowed_by_operator: &'a [J],
    counts: &'a TextsStats,
    dropped: &'a [J],
    note: &'static str,
    off_allow_list: BTreeMap<OffList, OffClass<'a>>,
    published: Vec<&'a PublishedText>,
    schema: &'static str,
    unreconstructable: &'a [Unreconstructable],
    withheld: &'a [WithheldText],
}

/// The seqs of one off-list class.
#[derive(Debug, Serialize)]
struct OffClass<'a> {
    count: usize,
    seqs: &'a [i64],
}

/// A segmented exhibit's `ledger/public_texts/index.json` (docs/public-texts.md#parts): the
/// index without its per-line lists, which are in the parts it lists.
#[derive(Debug, Serialize)]
struct TextsIndexTop<'a> {
    allowed_by_operator: &'a [J],
    counts: &'a TextsStats,
    dropped: &'a [J],
    note: &'static str,
    off_allow_list: BTreeMap<OffList, OffCount>,
    parts: Vec<TextPart>,
    schema: &'static str,
}

/// How many seqs one off-list class holds (its seqs are in the parts).
#[derive(Debug, Serialize)]
struct OffCount {
    count: usize,
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
struct TextsIndexPart<'a> {
    off_allow_list: BTreeMap<OffList, Vec<i64>>,
    published: Vec<&'a PublishedText>,
    unreconstructable: Vec<&'a Unreconstructable>,
    withheld: Vec<&'a WithheldText>,
}

impl TextsIndexPart<'_> {
    fn entries(&self) -> usize {
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
fn part_of(seq: i64, k: u64) -> u64 {
    (seq.max(1) as u64 - 1) / k.max(1) + 1
}

/// The numbers of the parts [`index_parts`] makes, from the seqs alone (no entry is gathered).
fn part_numbers<'a>(
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
fn index_parts<'a>(
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
fn finish(
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
    release_files(releases, texts.dir_folder.as_ref(), made, &mut out)?;
    out.stats = Some(LayerStats::PublicTexts(Box::new(counts)));
    Ok(out)
}

/// One index part as a file: a part DIR already holds is named as DIR's file, not held
/// (docs/scale.md#memory); one this build makes is written now into the build's folder of made
/// files (docs/scale.md#made-as-written), or, on a dry run, held.
fn put_part(
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

/// The released texts as files: moved, not copied (at a million lines, 120 MB), or, when DIR
/// already holds them, listed by digest as DIR's files (68 bytes a text, where a path and a map
/// entry each were about 300: docs/scale.md#texts-listed). The releases are taken from the
/// list's end and its room given back as it shortens, so that they and the files they become
/// are not both held whole.
fn release_files(
    mut releases: Vec<Release>,
    dir_folder: Option<&std::sync::Arc<Path>>,
    made: Option<&MadeFiles>,
    out: &mut LayerOutput,
) -> Result<()> {
    const SLICE: usize = 8192;
    let in_dir = releases
        .iter()
        .filter(|r| r.in_dir && dir_folder.is_some())
        .count();
    let in_made = releases
        .iter()
        .filter(|r| r.made && !(r.in_dir && dir_folder.is_some()))
        .count();
    let made_folder = match made {
        Some(made) if in_made > 0 => Some(made.folder(FOLDER)?),
        _ => None,
    };
    // The tree holds one list a folder: DIR's texts when it names any (a daily rebuild, whose
    // few new texts go to the tree's map as the made folder's files), else the made folder's
    // (a first build: docs/scale.md#made-as-written).
    let list_is_dir = in_dir > 0;
    let list_folder = if list_is_dir {
        dir_folder
    } else {
        made_folder.as_ref()
    };
    let mut listed = list_folder.map(|folder| {
        crate::published::output_tree::ListedFiles::new(
            crate::published::output_tree::ListedFolder::PublicTexts,
            folder,
            crate::operator_box::read::FileClass::OutputFile,
        )
    });
    if let Some(list) = &mut listed {
        list.reserve(if list_is_dir { in_dir } else { in_made });
    }
    out.files
        .reserve_exact(releases.len().saturating_sub(in_dir + in_made));
    while let Some(mut r) = releases.pop() {
        if releases.len().is_multiple_of(SLICE) {
            releases.shrink_to_fit();
        }
        let name = format!("{}.txt", r.sha());
        let on_disk = match (r.in_dir, r.made) {
            (true, _) => dir_folder.map(|f| (f, list_is_dir)),
            (false, true) => made_folder.as_ref().map(|f| (f, !list_is_dir)),
            (false, false) => None,
        };
        match on_disk {
            Some((folder, in_list)) => {
                let file = crate::published::output_tree::DiskFile::of_dir(
                    folder.clone(),
                    &name,
                    r.entry.bytes as u64,
                    Some(r.sha()),
                );
                // A text over 4 GiB is no list's: it goes to the tree's map.
                let unlisted = match listed.as_mut().filter(|_| in_list) {
                    Some(list) => list.push(file).err(),
                    None => Some(file),
                };
                if let Some(file) = unlisted {
                    out.contents
                        .push((format!("{FOLDER}/{name}"), Content::File(file)));
                }
            }
            None => out
                .files
                .push((format!("{FOLDER}/{name}"), std::mem::take(&mut r.bytes))),
        }
    }
    if let Some(mut list) = listed.filter(|l| !l.is_empty()) {
        list.finish();
        out.listed = vec![list];
    }
    Ok(())
}

fn crlf_to_lf(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'\r' && bytes.get(i + 1) == Some(&b'\n') {
            i += 1;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    out
}

/// Every file under `dir` on disk (relative names with `/`), symlinks and special files
/// included, none read.
fn disk_names(dir: &Path) -> Result<FolderNames> {
    let mut names = Vec::new();
    if !dir.is_dir() {
        return Ok(FolderNames::default());
    }
    // Unsorted: a sorted walk holds every entry of a folder at once (170,000 paths at a million
    // lines); the names are sorted as they are kept (docs/scale.md#giving-memory-back).
    for entry in walkdir::WalkDir::new(dir) {
        let entry = entry.with_context(|| format!("{}: cannot list", dir.display()))?;
        if entry.file_type().is_dir() {
            continue;
        }
        let rel: PathBuf = entry
            .path()
            .strip_prefix(dir)
            .unwrap_or(entry.path())
            .to_path_buf();
        names.push(
            rel.components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join("/"),
        );
    }
    Ok(names.into_iter().collect())
}

/// A text's file name, `<sha256>.txt` (lowercase hex, as the build names it), as its digest.
fn text_name(name: &str) -> Option<Digest> {
    name.strip_suffix(".txt")?.parse().ok()
}

/// A folder's file names (relative, joined with `/`), each text's `<sha256>.txt` held as its
/// digest: 32 bytes a text, not a string in a set's node. At a million lines the sets of
/// names step 4 compared (this build's, HEAD's index's, HEAD's folder's and DIR's) were about
/// 90 MB for a moment (docs/scale.md#giving-memory-back).
#[derive(Debug, Default)]
struct FolderNames {
    /// Sorted, each once.
    texts: Vec<Digest>,
    /// Every other name.
    other: BTreeSet<String>,
}

impl FromIterator<String> for FolderNames {
    fn from_iter<I: IntoIterator<Item = String>>(names: I) -> Self {
        let mut folder = FolderNames::default();
        for name in names {
            match text_name(&name) {
                Some(sha) => folder.texts.push(sha),
                None => {
                    folder.other.insert(name);
                }
            }
        }
        folder.texts.sort_unstable();
        folder.texts.dedup();
        folder.texts.shrink_to_fit();
        folder
    }
}

impl FolderNames {
    fn contains(&self, name: &str) -> bool {
        match text_name(name) {
            Some(sha) => self.texts.binary_search(&sha).is_ok(),
            None => self.other.contains(name),
        }
    }

    /// Every name, each made as it is read (the texts', then the others).
    fn names(&self) -> impl Iterator<Item = String> + '_ {
        self.texts
            .iter()
            .map(|sha| format!("{sha}.txt"))
            .chain(self.other.iter().cloned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_text_s_source_is_written_as_the_index_always_named_it() {
        // Catches a source written in another shape than the string it replaced (the index's
        // bytes would change for every released text): the gate's two file names and HEAD.
        let d = Digest::of(b"x");
        let written = |s: TextSource| serde_json::to_string(&s).unwrap();
        assert_eq!(written(TextSource::Md(d)), format!("\"sources/{d}.md\""));
        assert_eq!(
            written(TextSource::DraftMd(d)),
            format!("\"sources/{d}.draft.md\"")
        );
        assert_eq!(written(TextSource::Head), "\"HEAD\"");
        assert_eq!(TextSource::Head.file_name(), None);
    }

    #[test]
    fn a_dry_run_names_an_index_part_dir_holds_without_its_record_and_holds_any_other() {
        // A dry run after a checkout (no record, no folder of made files): a part DIR holds with
        // the same bytes is DIR's file, not bytes held (73 MB of parts at a million lines:
        // docs/scale.md#without-dirs-record-dry-run). Caught: a copy taken on its size alone, one
        // through a symlink, and the part held as bytes although DIR holds it.
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("site");
        let folder = dir.join("ledger/public_texts/index");
        std::fs::create_dir_all(&folder).unwrap();
        let part = |n: u8| {
            (
                format!("ledger/public_texts/index/00000{n}.json"),
                vec![b'a' + n; 40],
            )
        };
        let (same, changed, linked, absent) = (part(1), part(2), part(3), part(4));
        std::fs::write(dir.join(&same.0), &same.1).unwrap();
        std::fs::write(dir.join(&changed.0), vec![b'z'; 40]).unwrap();
        std::fs::write(tmp.path().join("elsewhere"), &linked.1).unwrap();
        std::os::unix::fs::symlink(tmp.path().join("elsewhere"), dir.join(&linked.0)).unwrap();
        let mut out = LayerOutput::default();
        let mut holds = crate::site_write::dir_record::DirHolds::open(None, &dir);
        for (path, bytes) in [same.clone(), changed, linked, absent] {
            let sha256 = Digest::of(&bytes);
            put_part(&mut out, &mut holds, None, path, bytes, sha256).unwrap();
        }
        let named: Vec<&str> = out.contents.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(named, [same.0.as_str()]);
        let Content::File(file) = &out.contents[0].1 else {
            panic!("{:?}", out.contents[0].1)
        };
        assert_eq!(file.read().unwrap(), same.1);
        let held: Vec<u8> = out
            .files
            .iter()
            .map(|(p, _)| p.as_bytes()[p.len() - 6])
            .collect();
        assert_eq!(held, b"234");
    }

    fn h(c: char) -> String {
        std::iter::repeat_n(c, 64).collect()
    }

    /// Catches a folder's names held by digest that takes a name the build never writes for a
    /// text's (upper-case hex, a sub-folder's, a second suffix) as that text's: such a file
    /// must stay a stray, refused, not pass as listed.
    #[test]
    fn folder_names_hold_a_texts_name_by_its_digest_and_nothing_else_as_it() {
        let a = h('a');
        let names: FolderNames = [
            format!("{a}.txt"),
            format!("{}.txt", h('A')),
            format!("sub/{a}.txt"),
            format!("{a}.txt.txt"),
            "index.json".to_string(),
            format!("{a}.txt"),
        ]
        .into_iter()
        .collect();
        assert_eq!(names.texts.len(), 1);
        assert!(names.contains(&format!("{a}.txt")));
        assert!(names.contains(&format!("{}.txt", h('A'))));
        assert!(!names.contains(&format!("{}.txt", h('b'))));
        assert!(!names.contains(&format!("{}.TXT", a)));
        let mut listed: Vec<String> = names.names().collect();
        listed.sort();
        let mut want = vec![
            format!("{a}.txt"),
            format!("{}.txt", h('A')),
            format!("sub/{a}.txt"),
            format!("{a}.txt.txt"),
            "index.json".to_string(),
        ];
        want.sort();
        assert_eq!(listed, want);
        assert_eq!(text_name(&format!("{}.txt", h('A'))), None);
    }

    /// Catches an unstable sort (a text's lines out of seq order: its first line, the one the
    /// index names, would change), a lookup that runs over into the next text or misses the
    /// first or last, and groups split or merged.
    #[test]
    fn values_by_sha_keep_each_texts_push_order_and_its_bounds() {
        let sha = |c: char| h(c).parse::<Digest>().unwrap();
        let mut by = BySha::default();
        // Interleaved, with many equal keys so a sort that is not stable shows it.
        for seq in 0..200_i64 {
            let text = ['7', '2', 'c', '2', 'f', '7'][(seq % 6) as usize];
            by.push(OffListSeq {
                sent: sha(text),
                seq,
            });
        }
        by.sort();
        assert_eq!(by.len(), 200);
        for (text, first) in [('7', 0), ('2', 1), ('c', 2), ('f', 4)] {
            let seqs: Vec<i64> = by.get(&sha(text)).iter().map(|o| o.seq).collect();
            let want: Vec<i64> = (0..200)
                .filter(|s| ['7', '2', 'c', '2', 'f', '7'][(s % 6) as usize] == text)
                .collect();
            assert_eq!(seqs, want, "{text}");
            assert_eq!(seqs[0], first);
            assert!(by.contains(&sha(text)));
        }
        for absent in ['0', '5', 'd', 'e'] {
            assert!(by.get(&sha(absent)).is_empty());
            assert!(!by.contains(&sha(absent)));
        }
        let groups: Vec<(Digest, usize)> = by.groups().map(|(s, g)| (s, g.len())).collect();
        assert_eq!(
            groups,
            [('2', 67), ('7', 67), ('c', 33), ('f', 33)].map(|(c, n)| (sha(c), n))
        );
        by.retain(|s| *s != sha('7'));
        assert!(!by.contains(&sha('7')));
        assert_eq!(by.get(&sha('c')).len(), 33);
    }

    #[test]
    fn trailer_form_is_the_gates() {
        assert_eq!(
            with_trailer(b"hi\n\n", &trailer(1, 2, 7)),
            "hi\n\n[gate: 1 of 2 numerals bound \u{b7} ledger 0007]".as_bytes()
        );
        assert_eq!(
            trailer(0, 0, 12345),
            "[gate: 0 of 0 numerals bound \u{b7} ledger 12345]"
        );
    }

    #[test]
    fn config_rejects_the_canary_or_dm_as_a_group() {
        let ok = format!(
            r#"{{"anchor_channel_hash":"{}","canary_hash":"{}","group_hashes":["{}"],"operator_dm_hash":"{}","words":[1]}}"#,
            h('a'),
            h('c'),
            h('b'),
            h('d')
        );
        let cfg = GateConfig::parse(ok.as_bytes()).unwrap();
        assert!(
            cfg.allows(&h('a').parse().unwrap())
                && cfg.allows(&h('b').parse().unwrap())
                && !cfg.allows(&h('c').parse().unwrap())
                && !cfg.allows(&h('e').parse().unwrap())
        );
        let bad = ok.replace(&format!("[\"{}\"]", h('b')), &format!("[\"{}\"]", h('c')));
        assert!(
            GateConfig::parse(bad.as_bytes())
                .unwrap_err()
                .contains("canary")
        );
        assert!(
            GateConfig::parse(b"{}")
                .unwrap_err()
                .contains("anchor_channel_hash")
        );
        assert!(GateConfig::parse(b"[").is_err());
    }

    #[test]
    fn index_and_counts_are_written_with_sorted_keys() {
        use crate::published::encode::keys_sorted;
        let counts = TextsStats {
            allow_listed: of(1, 2),
            off_allow_list: OFF_CLASSES.iter().map(|c| (*c, of(0, 2))).collect(),
            public_send_lines: of(2, 2),
            published: of(1, 1),
            rewrite_reason: Some("why".into()),
            send_lines: of(2, 3),
            send_lines_withheld_by_line_rules: of(0, 2),
            texts: TextCounts {
                allowed_by_operator: of(0, 1),
                carried_from_previous_build: of(0, 1),
                dropped: of(0, 1),
                published: 1,
            },
            unreconstructable: of(0, 1),
            withheld: of(0, 1),
        };
        let text = PublishedText {
            bytes: 2,
            day: "2026-11-08".into(),
            file: TextFileName(Digest::of(b"hi")),
            form: Form::Derived {
                copy: GateCopy::Checked,
                trailer: true,
            },
            off_list_seqs: vec![],
            other_seqs: vec![3],
            sent_sha256: Digest::of(b"hi"),
            seq: 2,
            source: TextSource::Md(Digest::of(b"x")),
        };
        let seqs = [4];
        let withheld = [WithheldText {
            day: "2026-11-08".into(),
            other_seqs: vec![],
            reasons: vec!["email".into()],
            role: Form::Derived {
                copy: GateCopy::Draft,
                trailer: false,
            },
            sent_sha256: Digest::of(b"w"),
            seq: 5,
            why: "the text holds an email address".into(),
        }];
        let unreconstructable = [Unreconstructable::new(
            6,
            &Digest::of(b"u"),
            "no_source_file",
            "none of x.md is in the gate's sources",
        )];
        assert!(keys_sorted(&withheld) && keys_sorted(&unreconstructable));
        let index = TextsIndex {
            allowed_by_operator: &[],
            counts: &counts,
            dropped: &[],
            note: NOTE,
            off_allow_list: OFF_CLASSES
                .iter()
                .map(|c| {
                    (
                        *c,
                        OffClass {
                            count: 1,
                            seqs: &seqs,
                        },
                    )
                })
                .collect(),
            published: vec![&text],
            schema: SCHEMA,
            unreconstructable: &unreconstructable,
            withheld: &withheld,
        };
        assert!(keys_sorted(&counts) && keys_sorted(&text) && keys_sorted(&index));
        // The form and the off-list classes are written as the words they always were.
        let written = serde_json::to_string(&index).unwrap();
        assert!(written.contains(r#""form":"checked+trailer""#), "{written}");
        assert!(
            written.contains(
                r#""off_allow_list":{"canary":{"count":1,"seqs":[4]},"dest_class_not_public":"#
            ),
            "{written}"
        );
    }

    #[test]
    fn crlf_is_folded() {
        assert_eq!(crlf_to_lf(b"a\r\nb\rc\r\n"), b"a\nb\rc\n");
    }
}
