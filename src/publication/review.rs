//! What `--dry-run` shows a reviewer (docs/operator.md#dry-run): first what this publication
//! adds — the new seqs, lines published and withheld with the reasons, texts released, anchors
//! and proofs added or replaced, every count that changed as old → new — then the files, with a
//! minimal line diff for text files and key-level changes for JSON files. The same review is
//! given as text, as Markdown for a pull request, or as data (`--json`).
//!
//! It compares two trees only (what DIR holds, what the build would write), so it says nothing
//! it did not read in them. Everything shown is escaped: published bytes (a released text) may
//! hold terminal control sequences, and a review must not run them.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use serde::Serialize;
use serde_json::Value as J;
use serde_json::value::RawValue;

use anyhow::Result;

use crate::published::output_tree::{Content, Tree};

/// Diff lines shown per file before "… N more".
const LINES_PER_FILE: usize = 24;
/// Key-level changes shown per JSON file before "… N more".
const CHANGES_PER_FILE: usize = 16;
/// A shown line is cut after this many characters (but never before its `"seq":N`).
const LINE_CHARS: usize = 120;
/// Files of one kind in one folder listed one by one, up to this many; more are counted.
const FILES_PER_FOLDER: usize = 8;
/// A changed region larger than this (old + new lines, after the common start and end are set
/// aside) is shown as a replacement rather than diffed, so the review's time stays linear.
const DIFF_REGION_LINES: usize = 4000;

/// The whole review, as data (`--dry-run --json`).
#[derive(Debug, Serialize)]
pub struct Review {
    pub dir: String,
    pub summary: Summary,
    pub files: FileChanges,
    /// One entry per added, changed or removed file, in path order.
    pub diffs: Vec<FileDiff>,
}

#[derive(Debug, Default, Serialize)]
pub struct Summary {
    /// DIR holds no publication yet: everything is published anew (docs/operator.md#first-publication).
    pub first_publication: bool,
    /// Texts the guard or the rules withheld that this publication newly lists, each with the
    /// flag that would release it: a decision a person may reverse, never cut.
    pub texts_withheld: Vec<WithheldText>,
    /// Published settings that changed (the witness window), old → new.
    pub settings: Vec<SettingChange>,
    /// Counts of STATS.json whose denominator alone changed (not listed in `counts`).
    pub denominators_only: usize,
    /// The seqs this publication adds (published or withheld), lowest and highest; null when none.
    pub new_seqs: Option<SeqRange>,
    /// New lines published in ledger.jsonl.
    pub published: usize,
    /// New entries of withheld.json, with their reasons.
    pub withheld: Vec<WithheldLine>,
    /// Public texts released by this publication.
    pub texts_released: Vec<ReleasedText>,
    /// `<date>` of each posted head newly published.
    pub anchors_added: Vec<String>,
    pub anchor_proofs: AddedReplaced,
    pub witness_proofs: AddedReplaced,
    /// The head of the published chain, before and after.
    pub head: Change<Option<String>>,
    /// SNAPSHOTS.jsonl gains a line.
    pub snapshot_appended: bool,
    /// Every count of STATS.json that changed (`{count, of}` and plain numbers), by key path.
    pub counts: Vec<CountChange>,
    /// Lists of seqs in STATS.json that changed (e.g. coverage.awaiting_head_seqs).
    pub seq_lists: Vec<SeqListChange>,
}

#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq)]
pub struct SeqRange {
    pub first: i64,
    pub last: i64,
}

#[derive(Debug, Serialize)]
pub struct WithheldLine {
    pub seq: i64,
    pub kind: String,
    pub fields_flagged: Vec<String>,
    pub reason: String,
    /// The flag that publishes it, once a person has read it.
    pub accept: String,
}

#[derive(Debug, Serialize)]
pub struct WithheldText {
    pub sent_sha256: String,
    pub seq: Option<i64>,
    pub reasons: Vec<String>,
    /// The flag that releases it, once a person has read it.
    pub accept: String,
}

#[derive(Debug, Serialize)]
pub struct SettingChange {
    /// The key of exhibit.toml that sets it.
    pub setting: String,
    pub old: J,
    pub new: J,
}

#[derive(Debug, Serialize)]
pub struct ReleasedText {
    pub sent_sha256: String,
    pub seq: Option<i64>,
    pub bytes: Option<u64>,
}

#[derive(Debug, Default, Serialize)]
pub struct AddedReplaced {
    pub added: usize,
    pub replaced: usize,
}

#[derive(Debug, Serialize)]
pub struct Change<T> {
    pub old: T,
    pub new: T,
}

impl<T: Default> Default for Change<T> {
    fn default() -> Self {
        Change {
            old: T::default(),
            new: T::default(),
        }
    }
}

#[derive(Debug, Serialize, PartialEq)]
pub struct CountChange {
    /// Dotted key path in STATS.json, e.g. `lines.published`.
    pub key: String,
    /// `{"count", "of"}`, a number, or null when the key is new or gone.
    pub old: J,
    pub new: J,
}

#[derive(Debug, Serialize)]
pub struct SeqListChange {
    pub key: String,
    pub added: Vec<i64>,
    pub removed: Vec<i64>,
}

#[derive(Debug, Default, Serialize)]
pub struct FileChanges {
    pub added: Vec<String>,
    pub changed: Vec<String>,
    pub removed: Vec<String>,
    /// How many files of each kind each folder has, the lists' and those not kept in them.
    #[serde(skip)]
    groups: BTreeMap<(ChangeKind, String), usize>,
}

/// How much of the comparison a review keeps: every file and every diff (the review as data,
/// which lists them all), or what the words show — per folder and kind up to
/// [`FILES_PER_FOLDER`] files with their diffs, and of a folder with more only its count, its
/// files neither kept nor read for a diff (a first build's review at a million lines adds a
/// million proofs: docs/scale.md#the-review-walks-dir).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kept {
    Every,
    Shown,
}

impl FileChanges {
    /// How many files were added, changed and removed, kept in the lists or not.
    pub fn counts(&self) -> (usize, usize, usize) {
        let of = |kind| {
            self.groups
                .iter()
                .filter(|((k, _), _)| *k == kind)
                .map(|(_, n)| n)
                .sum()
        };
        (
            of(ChangeKind::Added),
            of(ChangeKind::Changed),
            of(ChangeKind::Removed),
        )
    }

    fn list_mut(&mut self, kind: ChangeKind) -> &mut Vec<String> {
        match kind {
            ChangeKind::Added => &mut self.added,
            ChangeKind::Changed => &mut self.changed,
            ChangeKind::Removed => &mut self.removed,
        }
    }

    /// Counts `path`, and keeps it unless its folder holds more than the words show of its
    /// kind; `false` when it is not kept (nor is any other file of its folder and kind).
    fn push(&mut self, kind: ChangeKind, path: String, kept: Kept) -> bool {
        let folder = folder_of(&path).to_string();
        let n = self.groups.entry((kind, folder)).or_default();
        *n += 1;
        if kept == Kept::Shown && tree_part(&path).is_some() {
            return false;
        }
        match (kept, *n) {
            (Kept::Shown, n) if n == FILES_PER_FOLDER + 1 => {
                let folder = folder_of(&path);
                self.list_mut(kind).retain(|p| folder_of(p) != folder);
                false
            }
            (Kept::Shown, n) if n > FILES_PER_FOLDER => false,
            _ => {
                self.list_mut(kind).push(path);
                true
            }
        }
    }
}

/// A path's folder (`""` at the top). The tree view's files are grouped by their part
/// (`ledger/tree/tile`, `…/lines`, `…/index`): re-derived from the chain, they are counted,
/// never listed one by one nor diffed (docs/tree.md#layout); the checkpoint is shown.
fn folder_of(path: &str) -> &str {
    if let Some(part) = tree_part(path) {
        return part;
    }
    path.rsplit_once('/').map_or("", |(f, _)| f)
}

/// `ledger/tree/<part>` of a tree file other than the checkpoint.
fn tree_part(path: &str) -> Option<&str> {
    let rest = path.strip_prefix("ledger/tree/")?;
    let (part, _) = rest.split_once('/')?;
    Some(&path[.."ledger/tree/".len() + part.len()])
}

/// How a file or a key differs between what DIR holds and what the build would write;
/// written `added`, `changed` or `removed`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ChangeKind {
    Added,
    Changed,
    Removed,
}

impl std::fmt::Display for ChangeKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // `pad`, so that a width (`{status:<8}`) applies.
        f.pad(match self {
            ChangeKind::Added => "added",
            ChangeKind::Changed => "changed",
            ChangeKind::Removed => "removed",
        })
    }
}

#[derive(Debug, Serialize)]
pub struct FileDiff {
    pub path: String,
    pub status: ChangeKind,
    #[serde(flatten)]
    pub body: DiffBody,
}

#[derive(Debug, Serialize)]
#[serde(tag = "form", rename_all = "snake_case")]
pub enum DiffBody {
    /// A line diff: hunks of context (` `), removed (`-`) and added (`+`) lines, cut.
    Lines { hunks: Vec<Hunk>, not_shown: usize },
    /// Key-level changes of a JSON file.
    Keys {
        changes: Vec<KeyChange>,
        not_shown: usize,
    },
    /// Shown elsewhere (STATS.json: the counts of the summary).
    InSummary,
    /// A segment of the published ledger: its size and lines, before and after (0 when added).
    Segment {
        old_bytes: usize,
        new_bytes: usize,
        old_lines: usize,
        new_lines: usize,
    },
    /// Not diffed: the page, or bytes that are not text.
    Bytes { old: usize, new: usize, why: String },
}

#[derive(Debug)]
pub struct Hunk {
    /// 1-based first line in the old and the new file.
    pub old_start: usize,
    pub new_start: usize,
    /// Each line starts with ` `, `-` or `+`; escaped and cut.
    pub lines: Vec<String>,
}

impl Hunk {
    /// Unified diff's lengths: the hunk's lines in the old file (context and removed) and in
    /// the new (context and added).
    pub fn lengths(&self) -> (usize, usize) {
        let old = self.lines.iter().filter(|l| !l.starts_with('+')).count();
        let new = self.lines.iter().filter(|l| !l.starts_with('-')).count();
        (old, new)
    }
}

/// As data the hunk carries what its header says in words, `@@ -old_start,old_lines
/// +new_start,new_lines @@` (docs/operator.md#dry-run).
impl Serialize for Hunk {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let (old_lines, new_lines) = self.lengths();
        let mut h = s.serialize_struct("Hunk", 5)?;
        h.serialize_field("old_start", &self.old_start)?;
        h.serialize_field("old_lines", &old_lines)?;
        h.serialize_field("new_start", &self.new_start)?;
        h.serialize_field("new_lines", &new_lines)?;
        h.serialize_field("lines", &self.lines)?;
        h.end()
    }
}

#[derive(Debug, Serialize)]
pub struct KeyChange {
    pub key: String,
    pub change: ChangeKind,
    /// Compact JSON, escaped and cut; absent for an added key.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub old: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub new: Option<String>,
}

/// DIR's files in path order, each with what it holds: walked from disk by the build
/// ([`crate::site_write::dir_walk::DirWalk`], never all held: docs/scale.md#the-review-walks-dir).
pub trait OldFiles: Iterator<Item = Result<(String, Content)>> {}
impl<T: Iterator<Item = Result<(String, Content)>>> OldFiles for T {}

/// The files added, changed and removed, in path order (bytes compared, nothing diffed).
pub fn file_changes(old: impl OldFiles, new: &Tree) -> Result<FileChanges> {
    Ok(compare(old, new, Kept::Every, false)?.files)
}

/// Compares what DIR holds (`old`) with what the build would write (`new`).
pub fn review(dir: &str, old: impl OldFiles, new: &Tree, kept: Kept) -> Result<Review> {
    let compared = compare(old, new, kept, true)?;
    let mut summary = summary(&compared.old_held, new)?;
    compared.tally.fill(&mut summary);
    Ok(Review {
        dir: dir.trim_end_matches('/').to_string(),
        summary,
        files: compared.files,
        diffs: compared.diffs,
    })
}

/// What one pass over both sides gives.
struct Compared {
    files: FileChanges,
    diffs: Vec<FileDiff>,
    tally: Tally,
    /// DIR's files outside the listed folders (the ledger's files, the indexes, STATS.json:
    /// what the summary reads); the proofs and released texts, a million at a million lines,
    /// are compared as walked and not kept.
    old_held: Tree,
}

/// The summary's counts of posted heads and proofs, taken as the pass goes (the lists may not
/// keep every file: [`Kept::Shown`]).
#[derive(Default)]
struct Tally {
    anchors_added: Vec<String>,
    anchor_proofs: AddedReplaced,
    witness_proofs: AddedReplaced,
}

impl Tally {
    /// A file added, or replaced by other bytes.
    fn count(&mut self, path: &str, status: ChangeKind) {
        let bump = |c: &mut AddedReplaced| match status {
            ChangeKind::Added => c.added += 1,
            ChangeKind::Changed => c.replaced += 1,
            ChangeKind::Removed => {}
        };
        if let Some(date) = path
            .strip_prefix("ledger/anchors/")
            .and_then(|f| f.strip_suffix(".txt"))
        {
            if status == ChangeKind::Added {
                self.anchors_added.push(escape(date));
            }
        } else if path.starts_with("ledger/anchors/") && path.ends_with(".ots") {
            bump(&mut self.anchor_proofs);
        } else if path.starts_with("ledger/witness/") && path.ends_with(".ots") {
            bump(&mut self.witness_proofs);
        }
    }

    fn fill(self, s: &mut Summary) {
        s.anchors_added = self.anchors_added;
        s.anchor_proofs = self.anchor_proofs;
        s.witness_proofs = self.witness_proofs;
    }
}

/// One pass over both sides in path order: each file added, changed or removed is counted,
/// listed and (`with_diffs`) diffed, as much as `kept` keeps.
fn compare(old: impl OldFiles, new: &Tree, kept: Kept, with_diffs: bool) -> Result<Compared> {
    let mut files = FileChanges::default();
    let mut diffs: Vec<FileDiff> = Vec::new();
    let mut tally = Tally::default();
    let mut old_held = Tree::default();
    for joined in crate::published::output_tree::joined_with_listing(old, new) {
        let (path, a, b) = joined?;
        // The summary reads what DIR held; a name that is not a file held nothing.
        if let Some(a) = &a
            && !crate::published::output_tree::ListedFolder::holds_path(&path)
            && !matches!(**a, Content::NotAFile(_))
        {
            old_held.put_content(path.to_string(), a.clone().into_owned());
        }
        let status = match (&a, &b) {
            (None, Some(_)) => ChangeKind::Added,
            (Some(_), None) => ChangeKind::Removed,
            (Some(x), Some(y)) if !x.same(y)? => ChangeKind::Changed,
            _ => continue,
        };
        tally.count(&path, status);
        if !files.push(status, path.to_string(), kept) {
            // Its folder's files of this kind are counted, not shown: their diffs go too.
            let folder = folder_of(&path);
            diffs.retain(|d| d.status != status || folder_of(&d.path) != folder);
            continue;
        }
        if with_diffs {
            diffs.push(FileDiff {
                path: path.to_string(),
                status,
                body: diff_of(&path, a.as_deref(), b.as_deref())?,
            });
        }
    }
    Ok(Compared {
        files,
        diffs,
        tally,
        old_held,
    })
}

/// A file's diff, each side read only as far as its kind needs: the page by its sizes alone
/// (31 MB a side at a million lines, read only to be measured before), a segment one side at a
/// time for its lines (32 MiB a side), STATS.json not at all (docs/scale.md#the-review-walks-dir).
fn diff_of(path: &str, old: Option<&Content>, new: Option<&Content>) -> Result<DiffBody> {
    let len = |c: Option<&Content>| c.map_or(0, |c| c.len() as usize);
    if let Some(Content::NotAFile(crate::published::output_tree::NotAFile(kind))) = old {
        return Ok(DiffBody::Bytes {
            old: 0,
            new: len(new),
            why: format!(
                "a {kind} in DIR, never followed nor read: a build removes it (or renames a file over it)"
            ),
        });
    }
    if path == "ledger/STATS.json" {
        return Ok(DiffBody::InSummary);
    }
    // A segment holds up to 32 MiB of lines: summarised, never printed whole; its new seqs are
    // in the summary (docs/scale.md#review).
    if path.starts_with("ledger/segments/") {
        let lines = |c: Option<&Content>| -> Result<usize> {
            Ok(match c {
                Some(c) => c.bytes()?.iter().filter(|&&b| b == b'\n').count(),
                None => 0,
            })
        };
        return Ok(DiffBody::Segment {
            old_bytes: len(old),
            new_bytes: len(new),
            old_lines: lines(old)?,
            new_lines: lines(new)?,
        });
    }
    if path.ends_with(".html") {
        return Ok(DiffBody::Bytes {
            old: len(old),
            new: len(new),
            why: "the page: not diffed".into(),
        });
    }
    // Borrowed where the build holds the bytes: an 18 MB index is not copied to be diffed.
    fn read(c: Option<&Content>) -> Result<std::borrow::Cow<'_, [u8]>> {
        Ok(c.map(Content::bytes).transpose()?.unwrap_or_default())
    }
    Ok(diff_body(path, &read(old)?, &read(new)?))
}

/// A text or JSON file's diff from both sides' bytes (any other file's: its sizes).
fn diff_body(path: &str, old: &[u8], new: &[u8]) -> DiffBody {
    let (Ok(x), Ok(y)) = (std::str::from_utf8(old), std::str::from_utf8(new)) else {
        return DiffBody::Bytes {
            old: old.len(),
            new: new.len(),
            why: "not text".into(),
        };
    };
    if path.ends_with(".json")
        && let Some(mut changes) = json_key_changes(x, y)
    {
        let not_shown = changes.len().saturating_sub(CHANGES_PER_FILE);
        changes.truncate(CHANGES_PER_FILE);
        return DiffBody::Keys { changes, not_shown };
    }
    line_diff(x, y)
}

/// The key-level changes of two JSON texts (an empty text is `null`: the file is new or gone),
/// or None when either is not JSON. Both are checked whole as JSON first, then compared by their
/// raw text level by level: only a subtree whose text differs is opened, so a file that grew at
/// its end (the anchors index, 18 MB at a million lines) costs its bytes and a pointer per
/// element, never a parsed tree of each side (docs/scale.md#the-review-walks-dir). The changes
/// are those `key_changes` finds on the parsed trees.
fn json_key_changes(old: &str, new: &str) -> Option<Vec<KeyChange>> {
    fn raw(s: &str) -> Option<Option<&RawValue>> {
        if s.is_empty() {
            return Some(None);
        }
        serde_json::from_str::<StrictJson>(s).ok()?;
        serde_json::from_str::<&RawValue>(s).ok().map(Some)
    }
    let (a, b) = (raw(old)?, raw(new)?);
    let mut changes = Vec::new();
    match (a, b) {
        (Some(a), Some(b)) => raw_key_changes("", a, b, &mut changes).ok()?,
        (a, b) => {
            let parse = |v: Option<&RawValue>| -> Option<J> {
                v.map_or(Some(J::Null), |v| serde_json::from_str(v.get()).ok())
            };
            key_changes("", &parse(a)?, &parse(b)?, &mut changes);
        }
    }
    Some(changes)
}

/// `key_changes` over raw JSON texts: equal texts are equal values, and an object or array
/// whose text differs is opened one level, its members kept as raw text.
fn raw_key_changes(
    path: &str,
    a: &RawValue,
    b: &RawValue,
    out: &mut Vec<KeyChange>,
) -> serde_json::Result<()> {
    if a.get() == b.get() {
        return Ok(());
    }
    let opens = |v: &RawValue| v.get().trim_start().as_bytes().first().copied();
    let parsed = |v: &RawValue| serde_json::from_str::<J>(v.get());
    let one_side = |key: String, change: ChangeKind, v: &RawValue| -> serde_json::Result<_> {
        let shown = Some(compact(&parsed(v)?));
        let (old, new) = match change {
            ChangeKind::Removed => (shown, None),
            _ => (None, shown),
        };
        Ok(KeyChange {
            key,
            change,
            old,
            new,
        })
    };
    match (opens(a), opens(b)) {
        (Some(b'{'), Some(b'{')) => {
            let x: BTreeMap<String, &RawValue> = serde_json::from_str(a.get())?;
            let y: BTreeMap<String, &RawValue> = serde_json::from_str(b.get())?;
            let keys: BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            for k in keys {
                let key = if path.is_empty() {
                    k.to_string()
                } else {
                    format!("{path}.{k}")
                };
                match (x.get(k), y.get(k)) {
                    (Some(u), Some(v)) => raw_key_changes(&key, u, v, out)?,
                    (None, Some(v)) => out.push(one_side(key, ChangeKind::Added, v)?),
                    (Some(u), None) => out.push(one_side(key, ChangeKind::Removed, u)?),
                    (None, None) => {}
                }
            }
        }
        (Some(b'['), Some(b'[')) => {
            let x: Vec<&RawValue> = serde_json::from_str(a.get())?;
            let y: Vec<&RawValue> = serde_json::from_str(b.get())?;
            for i in 0..x.len().max(y.len()) {
                let key = format!("{path}[{i}]");
                match (x.get(i), y.get(i)) {
                    (Some(u), Some(v)) => raw_key_changes(&key, u, v, out)?,
                    (None, Some(v)) => out.push(one_side(key, ChangeKind::Added, v)?),
                    (Some(u), None) => out.push(one_side(key, ChangeKind::Removed, u)?),
                    (None, None) => {}
                }
            }
        }
        _ => key_changes(path, &parsed(a)?, &parsed(b)?, out),
    }
    Ok(())
}

/// Any JSON value, parsed as `serde_json::Value` would parse it (numbers in range, strings
/// decoded) and kept as nothing: a text is JSON for the review exactly when it is for
/// `key_changes`, though `RawValue` alone would pass a number out of range.
struct StrictJson;

impl<'de> serde::Deserialize<'de> for StrictJson {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        d.deserialize_any(StrictJsonVisitor)
    }
}

struct StrictJsonVisitor;

impl<'de> serde::de::Visitor<'de> for StrictJsonVisitor {
    type Value = StrictJson;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, _: bool) -> std::result::Result<StrictJson, E> {
        Ok(StrictJson)
    }
    fn visit_i64<E>(self, _: i64) -> std::result::Result<StrictJson, E> {
        Ok(StrictJson)
    }
    fn visit_u64<E>(self, _: u64) -> std::result::Result<StrictJson, E> {
        Ok(StrictJson)
    }
    fn visit_f64<E>(self, _: f64) -> std::result::Result<StrictJson, E> {
        Ok(StrictJson)
    }
    fn visit_str<E>(self, _: &str) -> std::result::Result<StrictJson, E> {
        Ok(StrictJson)
    }
    fn visit_unit<E>(self) -> std::result::Result<StrictJson, E> {
        Ok(StrictJson)
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(
        self,
        mut seq: A,
    ) -> std::result::Result<StrictJson, A::Error> {
        while seq.next_element::<StrictJson>()?.is_some() {}
        Ok(StrictJson)
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(
        self,
        mut map: A,
    ) -> std::result::Result<StrictJson, A::Error> {
        while map.next_entry::<StrictJson, StrictJson>()?.is_some() {}
        Ok(StrictJson)
    }
}

/// A minimal line diff (Myers, from `similar`) of the changed region, with one line of context.
fn line_diff(old: &str, new: &str) -> DiffBody {
    // A file added or removed whole: its first lines, and a count of the rest.
    if old.is_empty() && new.is_empty() {
        return DiffBody::Bytes {
            old: 0,
            new: 0,
            why: "empty".into(),
        };
    }
    if old.is_empty() || new.is_empty() {
        let (tag, text) = if old.is_empty() {
            ('+', new)
        } else {
            ('-', old)
        };
        let total = text.split_inclusive('\n').count();
        let lines = text
            .split_inclusive('\n')
            .take(LINES_PER_FILE)
            .map(|l| format!("{tag}{}", shown_line(l.trim_end_matches('\n'))))
            .collect();
        return DiffBody::Lines {
            hunks: vec![Hunk {
                old_start: 1,
                new_start: 1,
                lines,
            }],
            not_shown: total.saturating_sub(LINES_PER_FILE),
        };
    }
    let a: Vec<&str> = old.split_inclusive('\n').collect();
    let b: Vec<&str> = new.split_inclusive('\n').collect();
    // The common start and end are set aside first: exhibit's files grow at the end, so what
    // is left is small, and its diff is exact. The hunks are cut here rather than by
    // `similar`'s `unified_diff`, which diffs the whole file and knows no cap: a ledger file of
    // 32 MiB would be diffed whole, and the review caps the lines it shows per file and the
    // region it diffs (docs/operator.md#dry-run). `similar` still makes the minimal diff.
    let prefix = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let suffix = a[prefix..]
        .iter()
        .rev()
        .zip(b[prefix..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let (ma, mb) = (&a[prefix..a.len() - suffix], &b[prefix..b.len() - suffix]);
    let context_before = prefix.min(1);
    let context_after = suffix.min(1);
    let mut tagged: Vec<(char, &str, usize, usize)> = Vec::new(); // (tag, line, old_no, new_no)
    let first = prefix - context_before;
    for (i, line) in a[first..prefix].iter().enumerate() {
        tagged.push((' ', line, first + i, first + i));
    }
    if ma.len() + mb.len() <= DIFF_REGION_LINES {
        let diff = similar::TextDiff::from_slices(ma, mb);
        for change in diff.iter_all_changes() {
            let (oi, ni) = (
                change.old_index().map_or(usize::MAX, |i| i + prefix),
                change.new_index().map_or(usize::MAX, |i| i + prefix),
            );
            let tag = match change.tag() {
                similar::ChangeTag::Equal => ' ',
                similar::ChangeTag::Delete => '-',
                similar::ChangeTag::Insert => '+',
            };
            tagged.push((tag, change.value(), oi, ni));
        }
    } else {
        for (i, l) in ma.iter().enumerate() {
            tagged.push(('-', l, i + prefix, usize::MAX));
        }
        for (i, l) in mb.iter().enumerate() {
            tagged.push(('+', l, usize::MAX, i + prefix));
        }
    }
    for k in 0..context_after {
        let (oi, ni) = (a.len() - suffix + k, b.len() - suffix + k);
        tagged.push((' ', a[oi], oi, ni));
    }
    // Hunks: runs of changes with at most one unchanged line of context on each side.
    let mut hunks: Vec<Hunk> = Vec::new();
    let mut shown = 0usize;
    let mut not_shown = 0usize;
    let keep: Vec<bool> = (0..tagged.len())
        .map(|i| {
            tagged[i].0 != ' '
                || (i > 0 && tagged[i - 1].0 != ' ')
                || (i + 1 < tagged.len() && tagged[i + 1].0 != ' ')
        })
        .collect();
    let mut open = false;
    for (i, (tag, line, _, _)) in tagged.iter().enumerate() {
        if !keep[i] {
            open = false;
            continue;
        }
        if shown >= LINES_PER_FILE {
            if *tag != ' ' {
                not_shown += 1;
            }
            continue;
        }
        if !open {
            // First line numbers of the hunk: the next line on each side.
            let old_start = tagged[i..]
                .iter()
                .map(|t| t.2)
                .find(|&n| n != usize::MAX)
                .unwrap_or(a.len())
                + 1;
            let new_start = tagged[i..]
                .iter()
                .map(|t| t.3)
                .find(|&n| n != usize::MAX)
                .unwrap_or(b.len())
                + 1;
            hunks.push(Hunk {
                old_start,
                new_start,
                lines: Vec::new(),
            });
            open = true;
        }
        if let Some(hunk) = hunks.last_mut() {
            hunk.lines
                .push(format!("{tag}{}", shown_line(line.trim_end_matches('\n'))));
        }
        shown += 1;
    }
    DiffBody::Lines { hunks, not_shown }
}

/// Key-level differences of two JSON values: objects key by key, arrays index by index (an
/// element only on one side is one change), anything else compared whole.
fn key_changes(path: &str, a: &J, b: &J, out: &mut Vec<KeyChange>) {
    if a == b {
        return;
    }
    let child = |k: &str| {
        if path.is_empty() {
            k.to_string()
        } else {
            format!("{path}.{k}")
        }
    };
    match (a, b) {
        (J::Object(x), J::Object(y)) => {
            let keys: BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            for k in keys {
                match (x.get(k), y.get(k)) {
                    (Some(u), Some(v)) => key_changes(&child(k), u, v, out),
                    (None, Some(v)) => out.push(KeyChange {
                        key: child(k),
                        change: ChangeKind::Added,
                        old: None,
                        new: Some(compact(v)),
                    }),
                    (Some(u), None) => out.push(KeyChange {
                        key: child(k),
                        change: ChangeKind::Removed,
                        old: Some(compact(u)),
                        new: None,
                    }),
                    (None, None) => {}
                }
            }
        }
        (J::Array(x), J::Array(y)) => {
            for i in 0..x.len().max(y.len()) {
                let key = format!("{path}[{i}]");
                match (x.get(i), y.get(i)) {
                    (Some(u), Some(v)) => key_changes(&key, u, v, out),
                    (None, Some(v)) => out.push(KeyChange {
                        key,
                        change: ChangeKind::Added,
                        old: None,
                        new: Some(compact(v)),
                    }),
                    (Some(u), None) => out.push(KeyChange {
                        key,
                        change: ChangeKind::Removed,
                        old: Some(compact(u)),
                        new: None,
                    }),
                    (None, None) => {}
                }
            }
        }
        (J::Null, _) if path.is_empty() => out.push(KeyChange {
            key: "(file)".into(),
            change: ChangeKind::Added,
            old: None,
            new: Some(compact(b)),
        }),
        _ => out.push(KeyChange {
            key: if path.is_empty() {
                "(file)".into()
            } else {
                path.into()
            },
            change: ChangeKind::Changed,
            old: Some(compact(a)),
            new: Some(compact(b)),
        }),
    }
}

/// A value as one line of compact JSON, cut. Serialising stops after `COMPACT_BYTES`, so a large
/// subtree (a first publication's witness index) costs no more than a small one.
fn compact(v: &J) -> String {
    const COMPACT_BYTES: usize = 1024;
    struct Capped(Vec<u8>);
    impl std::io::Write for Capped {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            if self.0.len() >= COMPACT_BYTES {
                return Err(std::io::Error::other("enough"));
            }
            self.0.extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut out = Capped(Vec::new());
    let whole = serde_json::to_writer(&mut out, v).is_ok();
    let text = String::from_utf8_lossy(&out.0).into_owned();
    if whole {
        shown_line(&text)
    } else {
        let mut cut = shown_line(&text);
        if !cut.ends_with('…') && !cut.ends_with(')') {
            cut.push('…');
        }
        cut
    }
}

/// A line as a reviewer sees it: control characters (and the bidi controls that reorder what a
/// terminal shows) escaped, cut after `LINE_CHARS` characters — but a line holding `"seq":N`
/// keeps its seq, so the reviewer always knows which line it is.
pub fn shown_line(line: &str) -> String {
    let escaped = escape(line);
    if escaped.chars().count() <= LINE_CHARS + 8 {
        return escaped;
    }
    let cut: String = escaped.chars().take(LINE_CHARS).collect();
    let mut out = cut.clone();
    if let Some(at) = escaped.find("\"seq\":")
        && at + 6 > cut.len()
    {
        let digits: String = escaped[at + 6..]
            .chars()
            .take_while(|c| c.is_ascii_digit() || *c == '-')
            .collect();
        let _ = write!(out, "…\"seq\":{digits}");
    }
    let _ = write!(out, "… ({} chars)", escaped.chars().count());
    out
}

/// Escapes what a terminal would act on rather than show.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        let bidi = matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}');
        if c.is_control() || bidi {
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        } else {
            out.push(c);
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------
// The summary: read from the files the publication changes.

fn json_of(tree: &Tree, path: &str) -> Result<J> {
    Ok(tree
        .read(path)?
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or(J::Null))
}

/// Of `paths`, those both trees hold with the same bytes (compared without reading where the
/// tree can: docs/scale.md#comparing-without-reading).
fn same_in_both<'p>(old: &Tree, new: &Tree, paths: &[&'p str]) -> Result<BTreeSet<&'p str>> {
    let mut common = BTreeSet::new();
    for p in paths {
        if let (Some(a), Some(b)) = (old.entry(p), new.entry(p))
            && a.same(&b)?
        {
            common.insert(*p);
        }
    }
    Ok(common)
}

/// The withheld list's entries from its files but those in `skip` (docs/scale.md#withheld-files).
fn withheld_entries(tree: &Tree, skip: &BTreeSet<&str>) -> Result<Vec<J>> {
    let mut entries = Vec::new();
    for p in crate::published::withheld_files::published_paths(tree) {
        if skip.contains(p) {
            continue;
        }
        if let J::Array(a) = json_of(tree, p)? {
            entries.extend(a);
        }
    }
    Ok(entries)
}

/// The public texts withheld in `new` and not in `old`, by sent_sha256, with their entries:
/// read from `index.json` and its parts (docs/public-texts.md#parts), but only from the files
/// the two trees do not hold with the same bytes (a file both hold alike withholds the same
/// texts on both sides), and one file at a time: at a million lines the parts are hundreds of
/// MB of JSON, and all of them parsed at once made the dry run's peak (docs/scale.md#memory).
fn newly_withheld_texts(old: &Tree, new: &Tree) -> Result<BTreeMap<String, J>> {
    const TOP: &str = "ledger/public_texts/index.json";
    const PARTS: &str = "ledger/public_texts/index/";
    let paths = |t: &Tree| -> BTreeSet<String> {
        std::iter::once(TOP.to_string())
            .chain(t.iter_under(PARTS).map(|(p, _)| p.into_owned()))
            .collect()
    };
    let (old_paths, new_paths) = (paths(old), paths(new));
    let both: Vec<&str> = old_paths
        .intersection(&new_paths)
        .map(String::as_str)
        .collect();
    let alike = same_in_both(old, new, &both)?;
    let withheld_of = |t: &Tree, p: &str| -> Result<Vec<(String, J)>> {
        Ok(match json_of(t, p)? {
            J::Object(mut o) => match o.remove("withheld") {
                Some(J::Array(a)) => a
                    .into_iter()
                    .filter_map(|e| Some((e["sent_sha256"].as_str()?.to_string(), e)))
                    .collect(),
                _ => Vec::new(),
            },
            _ => Vec::new(),
        })
    };
    let mut before = BTreeSet::new();
    for p in old_paths.iter().filter(|p| !alike.contains(p.as_str())) {
        before.extend(withheld_of(old, p)?.into_iter().map(|(sha, _)| sha));
    }
    let mut out = BTreeMap::new();
    for p in new_paths.iter().filter(|p| !alike.contains(p.as_str())) {
        for (sha, e) in withheld_of(new, p)? {
            if !before.contains(&sha) {
                out.insert(sha, e);
            }
        }
    }
    Ok(out)
}

/// The seq of each line of a ledger.jsonl (the header has none). Lines are canonical JSON.
fn seqs_of(ledger: &[u8]) -> BTreeSet<i64> {
    ledger
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .filter_map(|l| serde_json::from_slice::<J>(l).ok())
        .filter_map(|v| v.get("seq").and_then(J::as_i64))
        .collect()
}

fn summary(old: &Tree, new: &Tree) -> Result<Summary> {
    let mut s = Summary::default();
    // The published ledger is its files in chain order, concatenated (docs/scale.md#layout). A
    // file both trees hold with the same bytes holds the same seqs on both sides: only the
    // others are read, one at a time, never the whole ledger (docs/scale.md#memory). A ledger's
    // seqs are distinct, so the seqs new beside the old are those of the new files that the old
    // files do not hold.
    let (mut old_seqs, mut new_seqs) = (BTreeSet::new(), BTreeSet::new());
    let old_paths = crate::published::segments::published_paths(old);
    let new_paths = crate::published::segments::published_paths(new);
    let common = same_in_both(old, new, &new_paths)?;
    for p in old_paths.iter().filter(|p| !common.contains(*p)) {
        old_seqs.extend(seqs_of(&old.read(p)?.unwrap_or_default()));
    }
    for p in new_paths.iter().filter(|p| !common.contains(*p)) {
        new_seqs.extend(seqs_of(&new.read(p)?.unwrap_or_default()));
    }
    let new_seqs: BTreeSet<i64> = new_seqs.difference(&old_seqs).copied().collect();
    s.published = new_seqs.len();

    // The withheld list likewise: a file both trees hold with the same bytes adds no entry.
    let common = same_in_both(
        old,
        new,
        &crate::published::withheld_files::published_paths(new),
    )?;
    let old_withheld: BTreeSet<i64> = withheld_entries(old, &common)?
        .iter()
        .filter_map(|e| e["seq"].as_i64())
        .collect();
    for e in &withheld_entries(new, &common)? {
        let Some(seq) = e["seq"].as_i64() else {
            continue;
        };
        if old_withheld.contains(&seq) {
            continue;
        }
        s.withheld.push(WithheldLine {
            seq,
            kind: e["kind"].as_str().unwrap_or_default().to_string(),
            fields_flagged: e["fields_flagged"]
                .as_array()
                .map(|f| f.iter().filter_map(|x| x.as_str().map(escape)).collect())
                .unwrap_or_default(),
            reason: escape(e["reason"].as_str().unwrap_or_default()),
            accept: format!("--allow-line {seq}"),
        });
    }
    let all_new: BTreeSet<i64> = new_seqs
        .iter()
        .copied()
        .chain(s.withheld.iter().map(|w| w.seq))
        .collect();
    s.new_seqs = match (all_new.first(), all_new.last()) {
        (Some(&first), Some(&last)) => Some(SeqRange { first, last }),
        _ => None,
    };

    let published_texts = |t: &Tree| -> Result<BTreeMap<String, J>> {
        Ok(json_of(t, "ledger/public_texts/index.json")?["published"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|e| Some((e["sent_sha256"].as_str()?.to_string(), e.clone())))
                    .collect()
            })
            .unwrap_or_default())
    };
    let before = published_texts(old)?;
    for (sha, e) in published_texts(new)? {
        if !before.contains_key(&sha) {
            s.texts_released.push(ReleasedText {
                sent_sha256: escape(&sha),
                seq: e["seq"].as_i64(),
                bytes: e["bytes"].as_u64(),
            });
        }
    }

    for (sha, e) in newly_withheld_texts(old, new)? {
        s.texts_withheld.push(WithheldText {
            accept: format!("--allow-text {}", escape(&sha)),
            sent_sha256: escape(&sha),
            seq: e["seq"].as_i64(),
            reasons: e["reasons"]
                .as_array()
                .map(|r| r.iter().filter_map(|x| x.as_str().map(escape)).collect())
                .unwrap_or_default(),
        });
    }
    let (old_stats, new_stats) = (
        json_of(old, "ledger/STATS.json")?,
        json_of(new, "ledger/STATS.json")?,
    );
    // The witness window is set in exhibit.toml; a change of it changes what is published, so it
    // is named (docs/operator.md#settings).
    let window = |v: &J| v["witness"]["window"]["since"].clone();
    if !old_stats.is_null() && window(&old_stats) != window(&new_stats) {
        s.settings.push(SettingChange {
            setting: "[publish] witness_window_since".into(),
            old: window(&old_stats),
            new: window(&new_stats),
        });
    }
    s.first_publication = old.read("ledger/SNAPSHOTS.jsonl")?.is_none();
    let head = |v: &J| v["ledger"]["head"].as_str().map(escape);
    s.head = Change {
        old: head(&old_stats),
        new: head(&new_stats),
    };
    count_changes("", &old_stats, &new_stats, &mut s.counts, &mut s.seq_lists);
    // A count whose denominator alone moved says nothing new (docs/operator.md#dry-run).
    let before = s.counts.len();
    s.counts
        .retain(|c| !(is_count(&c.old) && is_count(&c.new) && c.old["count"] == c.new["count"]));
    s.denominators_only = before - s.counts.len();
    let snapshots = "ledger/SNAPSHOTS.jsonl";
    let lines = |t: &Tree| -> Result<usize> {
        Ok(t.read(snapshots)?.map_or(0, |b| {
            b.split(|&c| c == b'\n').filter(|l| !l.is_empty()).count()
        }))
    };
    s.snapshot_appended = lines(new)? > lines(old)?;
    Ok(s)
}

fn is_count(v: &J) -> bool {
    v.as_object().is_some_and(|o| {
        o.len() == 2
            && o.get("count").is_some_and(J::is_number)
            && o.get("of").is_some_and(J::is_number)
    })
}

/// Every count in STATS.json that differs: `{count, of}` objects and numbers, by key path;
/// lists of numbers as seqs added and removed.
fn count_changes(
    path: &str,
    a: &J,
    b: &J,
    counts: &mut Vec<CountChange>,
    lists: &mut Vec<SeqListChange>,
) {
    if a == b {
        return;
    }
    let key = |k: &str| {
        if path.is_empty() {
            k.to_string()
        } else {
            format!("{path}.{k}")
        }
    };
    let leaf = |v: &J| v.is_number() || is_count(v);
    match (a, b) {
        (x, y) if (leaf(x) || x.is_null()) && (leaf(y) || y.is_null()) => {
            counts.push(CountChange {
                key: escape(path),
                old: x.clone(),
                new: y.clone(),
            });
        }
        (J::Object(x), J::Object(y)) => {
            let keys: BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            for k in keys {
                count_changes(
                    &key(k),
                    x.get(k).unwrap_or(&J::Null),
                    y.get(k).unwrap_or(&J::Null),
                    counts,
                    lists,
                );
            }
        }
        (J::Null, J::Object(y)) => {
            for (k, v) in y {
                count_changes(&key(k), &J::Null, v, counts, lists);
            }
        }
        (J::Object(x), J::Null) => {
            for (k, v) in x {
                count_changes(&key(k), v, &J::Null, counts, lists);
            }
        }
        (x, y) if is_number_list(x) && is_number_list(y) => {
            let set = |v: &J| -> BTreeSet<i64> {
                v.as_array()
                    .map(|a| a.iter().filter_map(J::as_i64).collect())
                    .unwrap_or_default()
            };
            let (x, y) = (set(x), set(y));
            if x == y {
                return; // null → [] says nothing
            }
            lists.push(SeqListChange {
                key: escape(path),
                added: y.difference(&x).copied().collect(),
                removed: x.difference(&y).copied().collect(),
            });
        }
        _ => {}
    }
}

fn is_number_list(v: &J) -> bool {
    v.is_null() || v.as_array().is_some_and(|a| a.iter().all(J::is_number))
}

// ---------------------------------------------------------------------------------------------
// Rendering

fn count_text(v: &J) -> String {
    if is_count(v) {
        format!("{} of {}", v["count"], v["of"])
    } else if v.is_null() {
        "(none)".into()
    } else {
        v.to_string()
    }
}

fn short(digest: &Option<String>) -> String {
    match digest {
        Some(d) if d.len() > 16 => format!("{}…", &d[..12]),
        Some(d) => d.clone(),
        None => "(none)".into(),
    }
}

fn seq_list_text(seqs: &[i64]) -> String {
    const SHOWN: usize = 8;
    let mut parts: Vec<String> = seqs.iter().take(SHOWN).map(i64::to_string).collect();
    if seqs.len() > SHOWN {
        parts.push(format!("… {} more", seqs.len() - SHOWN));
    }
    parts.join(", ")
}

/// The decisions a person may reverse, each with its flag: shown first and never cut, in every
/// form (docs/operator.md#dry-run).
fn decision_lines(s: &Summary) -> Vec<String> {
    let mut l = Vec::new();
    for w in &s.withheld {
        l.push(format!(
            "line withheld: seq {} ({}): {} — to publish it: {}",
            w.seq, w.kind, w.reason, w.accept
        ));
    }
    for t in &s.texts_withheld {
        let seq = t.seq.map_or(String::new(), |q| format!(" (seq {q})"));
        l.push(format!(
            "text withheld: {}{seq}: {} — to release it: {}",
            t.sent_sha256,
            t.reasons.join(", "),
            t.accept
        ));
    }
    for c in &s.settings {
        let shown = |v: &J| match v {
            J::Null => "(not registered)".to_string(),
            J::String(x) => x.clone(),
            v => v.to_string(),
        };
        l.push(format!(
            "setting changed: {}: {} → {} (what is published changes; set it in exhibit.toml)",
            c.setting,
            shown(&c.old),
            shown(&c.new)
        ));
    }
    l
}

/// The summary's lines, shared by the text and Markdown forms (Markdown adds list markers).
fn summary_lines(s: &Summary) -> Vec<(usize, String)> {
    let mut l: Vec<(usize, String)> = Vec::new();
    if s.first_publication {
        l.push((
            0,
            "FIRST PUBLICATION: DIR holds none yet; every line below is published anew".into(),
        ));
    }
    match s.new_seqs {
        Some(r) => l.push((
            0,
            format!(
                "new seqs {}–{}: {} line(s) published, {} withheld",
                r.first,
                r.last,
                s.published,
                s.withheld.len()
            ),
        )),
        None => l.push((0, "no new lines".into())),
    }
    for w in &s.withheld {
        l.push((1, format!("withheld seq {} ({})", w.seq, w.kind)));
    }
    if s.head.old != s.head.new {
        l.push((
            0,
            format!("head {} → {}", short(&s.head.old), short(&s.head.new)),
        ));
    }
    if !s.texts_released.is_empty() {
        l.push((0, format!("texts released: {}", s.texts_released.len())));
        for t in &s.texts_released {
            let seq = t.seq.map_or(String::new(), |q| format!(" (seq {q})"));
            let bytes = t.bytes.map_or(String::new(), |b| format!(", {b} bytes"));
            l.push((1, format!("{}{seq}{bytes}", t.sent_sha256)));
        }
    }
    if !s.anchors_added.is_empty() {
        l.push((
            0,
            format!("posted heads added: {}", s.anchors_added.join(", ")),
        ));
    }
    for (what, p) in [
        ("anchor proofs", &s.anchor_proofs),
        ("witness proofs", &s.witness_proofs),
    ] {
        if p.added + p.replaced > 0 {
            l.push((
                0,
                format!("{what}: {} added, {} replaced", p.added, p.replaced),
            ));
        }
    }
    l.push((
        0,
        if s.snapshot_appended {
            "a snapshot line is appended to ledger/SNAPSHOTS.jsonl".into()
        } else {
            "no snapshot line appended".into()
        },
    ));
    if !s.counts.is_empty() || !s.seq_lists.is_empty() {
        l.push((0, "counts (STATS.json), old → new:".into()));
        for c in &s.counts {
            l.push((
                1,
                format!("{}: {} → {}", c.key, count_text(&c.old), count_text(&c.new)),
            ));
        }
        for c in &s.seq_lists {
            let mut parts = Vec::new();
            if !c.added.is_empty() {
                parts.push(format!("+ {}", seq_list_text(&c.added)));
            }
            if !c.removed.is_empty() {
                parts.push(format!("− {}", seq_list_text(&c.removed)));
            }
            l.push((1, format!("{}: {}", c.key, parts.join("; "))));
        }
    }
    if s.denominators_only > 0 {
        l.push((
            0,
            format!(
                "{} other count(s) changed only their denominator (STATS.json; --json lists none of them)",
                s.denominators_only
            ),
        ));
    }
    l
}

/// Files, grouped: a folder with many files of one status is counted, not listed.
fn file_lines(r: &Review) -> Vec<String> {
    let mut out = Vec::new();
    for (status, list) in [
        (ChangeKind::Added, &r.files.added),
        (ChangeKind::Changed, &r.files.changed),
        (ChangeKind::Removed, &r.files.removed),
    ] {
        let mut by_folder: BTreeMap<&str, Vec<&String>> = BTreeMap::new();
        for p in list {
            by_folder.entry(folder_of(p)).or_default().push(p);
        }
        // A folder whose files were counted and not kept is listed by its count alone.
        let counted = r.files.groups.iter().filter(|((k, _), _)| *k == status);
        for ((_, folder), _) in counted {
            by_folder.entry(folder.as_str()).or_default();
        }
        for (folder, paths) in by_folder {
            let n = r
                .files
                .groups
                .get(&(status, folder.to_string()))
                .copied()
                .unwrap_or(paths.len());
            if n > FILES_PER_FOLDER || tree_part(&format!("{folder}/x")).is_some() {
                out.push(format!(
                    "{status:<8}{}/{}/ ({} files)",
                    r.dir,
                    escape(folder),
                    n
                ));
            } else {
                for p in paths {
                    out.push(format!("{status:<8}{}/{}", r.dir, escape(p)));
                }
            }
        }
    }
    out
}

fn body_lines(d: &FileDiff) -> Vec<String> {
    let mut out = Vec::new();
    match &d.body {
        DiffBody::Lines { hunks, not_shown } => {
            for h in hunks {
                // Unified diff's header: start and length on each side.
                let (old_len, new_len) = h.lengths();
                out.push(format!(
                    "@@ -{},{old_len} +{},{new_len} @@",
                    h.old_start, h.new_start
                ));
                out.extend(h.lines.iter().cloned());
            }
            if *not_shown > 0 {
                out.push(format!("… {not_shown} more changed line(s) not shown"));
            }
        }
        DiffBody::Keys { changes, not_shown } => {
            for c in changes {
                out.push(match (c.change, &c.old, &c.new) {
                    (ChangeKind::Added, _, Some(n)) => format!("+ {}: {n}", c.key),
                    (ChangeKind::Removed, Some(o), _) => format!("- {}: {o}", c.key),
                    (_, o, n) => format!(
                        "~ {}: {} → {}",
                        c.key,
                        o.as_deref().unwrap_or(""),
                        n.as_deref().unwrap_or("")
                    ),
                });
            }
            if *not_shown > 0 {
                out.push(format!("… {not_shown} more key change(s) not shown"));
            }
        }
        DiffBody::InSummary => out.push("(its counts are in the summary above)".into()),
        DiffBody::Segment {
            old_bytes,
            new_bytes,
            old_lines,
            new_lines,
        } => out.push(if *old_bytes == 0 {
            format!(
                "(a segment of the published ledger: {new_lines} line(s), {new_bytes} bytes; not printed, its seqs are in the summary above)"
            )
        } else {
            format!(
                "(a segment of the published ledger: {old_lines} → {new_lines} line(s), {old_bytes} → {new_bytes} bytes; not printed, its seqs are in the summary above)"
            )
        }),
        DiffBody::Bytes { old, new, why } => out.push(format!("({old} → {new} bytes; {why})")),
    }
    out
}

/// Diffs worth showing: per-file proof and text bodies in a crowded folder are counted in the
/// file list already.
fn shown_diffs(r: &Review) -> Vec<&FileDiff> {
    let mut per_folder: BTreeMap<(&str, ChangeKind), usize> = BTreeMap::new();
    for d in &r.diffs {
        let folder = d.path.rsplit_once('/').map_or("", |(f, _)| f);
        *per_folder.entry((folder, d.status)).or_default() += 1;
    }
    r.diffs
        .iter()
        .filter(|d| {
            let folder = d.path.rsplit_once('/').map_or("", |(f, _)| f);
            per_folder[&(folder, d.status)] <= FILES_PER_FOLDER && tree_part(&d.path).is_none()
        })
        .collect()
}

impl Review {
    pub fn file_counts(&self) -> (usize, usize, usize) {
        self.files.counts()
    }

    /// For a terminal.
    pub fn to_text(&self) -> String {
        let (a, c, r) = self.file_counts();
        let mut out = format!(
            "dry run: {a} added, {c} changed, {r} removed in {}/ (nothing written)\n\n",
            self.dir
        );
        let decisions = decision_lines(&self.summary);
        if !decisions.is_empty() {
            out.push_str("decisions a person may reverse (each with its flag):\n");
            for line in decisions {
                let _ = writeln!(out, "  {line}");
            }
            out.push('\n');
        }
        out.push_str("what this publication adds:\n");
        for (depth, line) in summary_lines(&self.summary) {
            let _ = writeln!(out, "{}{line}", "  ".repeat(depth + 1));
        }
        out.push_str("\nfiles:\n");
        for line in file_lines(self) {
            let _ = writeln!(out, "  {line}");
        }
        for d in shown_diffs(self) {
            let _ = writeln!(out, "\n{} {}/{}", d.status, self.dir, escape(&d.path));
            for line in body_lines(d) {
                let _ = writeln!(out, "  {line}");
            }
        }
        out
    }

    /// For a pull request: headings, lists, and each diff in a fenced block. The decisions and
    /// the summary come first and are never cut; the files and changes are folded in a
    /// `<details>` and cut to keep the whole within one GitHub comment
    /// (docs/operator.md#dry-run).
    pub fn to_markdown(&self) -> String {
        let (a, c, r) = self.file_counts();
        let mut out = format!(
            "### exhibit: what building `{}/` changes\n\n{a} added, {c} changed, {r} removed.\n\n",
            self.dir
        );
        let decisions = decision_lines(&self.summary);
        if !decisions.is_empty() {
            out.push_str("#### Decisions a person may reverse\n\n");
            for line in decisions {
                let _ = writeln!(out, "- {}", md_inline(&line));
            }
            out.push('\n');
        }
        for (depth, line) in summary_lines(&self.summary) {
            let _ = writeln!(out, "{}- {}", "  ".repeat(depth), md_inline(&line));
        }
        let mut folded = String::from("\n#### Files\n\n");
        for line in file_lines(self) {
            let _ = writeln!(folded, "- {}", md_inline(&line));
        }
        let diffs = shown_diffs(self);
        if !diffs.is_empty() {
            folded.push_str("\n#### Changes\n");
        }
        for d in diffs {
            let body = body_lines(d).join("\n");
            let fence = "`".repeat(3.max(longest_backtick_run(&body) + 1));
            let lang = if matches!(d.body, DiffBody::Lines { .. }) {
                "diff"
            } else {
                ""
            };
            let _ = write!(
                folded,
                "\n{} `{}/{}`\n\n{fence}{lang}\n{body}\n{fence}\n",
                d.status,
                self.dir,
                escape(&d.path).replace('`', "'")
            );
        }
        let open = "\n<details><summary>Files and changes</summary>\n";
        let close = "\n</details>\n";
        let cut_note =
            "\n… cut here to fit one comment; `exhibit build --dry-run` prints the rest.\n";
        let room = MARKDOWN_CHARS
            .saturating_sub(out.chars().count() + open.len() + close.len() + cut_note.len());
        out.push_str(open);
        if folded.chars().count() <= room {
            out.push_str(&folded);
        } else {
            // Whole lines, and a fence cut open is closed: an open fence would swallow the rest.
            let mut used = 0;
            let mut fence: Option<String> = None;
            for line in folded.split_inclusive('\n') {
                let n = line.chars().count();
                if used + n + fence.as_ref().map_or(0, |f| f.len() + 1) > room {
                    break;
                }
                let ticks: String = line.chars().take_while(|&c| c == '`').collect();
                if ticks.len() >= 3 {
                    fence = match fence {
                        Some(f) if line.trim_end() == f => None,
                        None => Some(ticks),
                        open => open,
                    };
                }
                out.push_str(line);
                used += n;
            }
            if let Some(f) = fence {
                let _ = writeln!(out, "{f}");
            }
            out.push_str(cut_note);
        }
        out.push_str(close);
        out
    }
}

/// One GitHub comment holds at most this many characters.
pub const MARKDOWN_CHARS: usize = 65_536;

/// Text in a Markdown list item: characters Markdown would act on are escaped.
fn md_inline(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    // `_` is left alone: within a word (every key here) it is no emphasis.
    for c in s.chars() {
        if matches!(c, '\\' | '`' | '*' | '[' | ']' | '<' | '>' | '#' | '|') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

fn longest_backtick_run(s: &str) -> usize {
    let (mut best, mut run) = (0, 0);
    for c in s.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        best = best.max(run);
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tree's files as DIR's walk gives them.
    fn listed(tree: &Tree) -> impl OldFiles + '_ {
        tree.iter()
            .map(|(p, c)| Ok((p.into_owned(), c.into_owned())))
    }

    fn tree(files: &[(&str, &str)]) -> Tree {
        let mut t = Tree::default();
        for (p, b) in files {
            t.put(*p, b.as_bytes().to_vec());
        }
        t
    }

    /// A review too large for one GitHub comment keeps every decision and the summary, folds
    /// the rest, and stays within 65,536 characters with its fences closed. Catches a Markdown
    /// review cut without bound, a cut that drops decisions, and a fence left open.
    #[test]
    fn markdown_fits_one_comment_and_never_cuts_a_decision() {
        let summary = Summary {
            withheld: (1..=300)
                .map(|seq| WithheldLine {
                    seq,
                    kind: "send".into(),
                    fields_flagged: vec![],
                    reason: "identifier_shape".into(),
                    accept: format!("--allow-line {seq}"),
                })
                .collect(),
            texts_withheld: vec![WithheldText {
                sent_sha256: "ab".repeat(32),
                seq: Some(7),
                reasons: vec!["phone".into()],
                accept: format!("--allow-text {}", "ab".repeat(32)),
            }],
            ..Summary::default()
        };
        let diffs = (0..400)
            .map(|i| FileDiff {
                path: format!("f{i}/a.txt"),
                status: ChangeKind::Changed,
                body: DiffBody::Lines {
                    hunks: vec![Hunk {
                        old_start: 1,
                        new_start: 1,
                        lines: (0..24)
                            .map(|j| format!("+{}{j}", "x".repeat(110)))
                            .collect(),
                    }],
                    not_shown: 0,
                },
            })
            .collect();
        let r = Review {
            dir: "docs".into(),
            summary,
            files: FileChanges::default(),
            diffs,
        };
        let md = r.to_markdown();
        assert!(
            md.chars().count() <= MARKDOWN_CHARS,
            "{}",
            md.chars().count()
        );
        for seq in 1..=300 {
            assert!(
                md.contains(&format!("--allow-line {seq} "))
                    || md.contains(&format!("--allow-line {seq}\n")),
                "seq {seq}"
            );
        }
        assert!(md.contains(&format!("--allow-text {}", "ab".repeat(32))));
        assert!(md.contains("<details>") && md.trim_end().ends_with("</details>"));
        assert!(md.contains("cut here to fit one comment"));
        let fences = md.lines().filter(|l| l.starts_with("```")).count();
        assert_eq!(fences % 2, 0, "every fence closed");
        // Hunk headers are unified diff's, with lengths.
        assert!(md.contains("@@ -1,0 +1,24 @@"), "{}", &md[..2000]);
        // In words, every decision too.
        let text = r.to_text();
        assert!(text.starts_with("dry run:"));
        assert!(
            text.find("--allow-line 300").unwrap()
                < text.find("what this publication adds").unwrap()
        );
    }

    #[test]
    fn a_change_in_the_middle_is_one_line_not_a_region() {
        let old: String = (0..100).map(|i| format!("line {i}\n")).collect();
        let new = old
            .replace("line 50\n", "line fifty\n")
            .replace("line 10\n", "line ten\n");
        let DiffBody::Lines { hunks, not_shown } = line_diff(&old, &new) else {
            panic!()
        };
        assert_eq!(not_shown, 0);
        let changed: Vec<&String> = hunks
            .iter()
            .flat_map(|h| &h.lines)
            .filter(|l| !l.starts_with(' '))
            .collect();
        assert_eq!(
            changed,
            ["-line 10", "+line ten", "-line 50", "+line fifty"]
        );
        assert_eq!(
            (hunks.len(), hunks[0].old_start, hunks[1].new_start),
            (2, 10, 50)
        );
        // As data, each hunk carries its header's lengths: one line of context on each side
        // and the changed line, three lines on each side. Catches a JSON hunk without them.
        let json = serde_json::to_value(&hunks).unwrap();
        assert_eq!(
            json[0],
            serde_json::json!({
                "old_start": 10, "old_lines": 3, "new_start": 10, "new_lines": 3,
                "lines": [" line 9", "-line 10", "+line ten", " line 11"],
            })
        );
        // A hunk of lines added only: nothing of the old file.
        let DiffBody::Lines { hunks, .. } = line_diff(&old, &format!("{old}tail\n")) else {
            panic!()
        };
        let json = serde_json::to_value(&hunks).unwrap();
        assert_eq!(
            (&json[0]["old_lines"], &json[0]["new_lines"]),
            (&1.into(), &2.into())
        );
    }

    #[test]
    fn long_lines_keep_their_seq_and_controls_are_escaped() {
        let line = format!(
            "{{\"entry_id\":\"{}\",\"prev\":\"{}\",\"seq\":1234,\"x\":1}}",
            "a".repeat(64),
            "b".repeat(64)
        );
        let s = shown_line(&line);
        assert!(s.contains("\"seq\":1234"), "{s}");
        assert!(s.chars().count() < line.len(), "{s}");
        assert_eq!(escape("a\u{1b}[2Jb\u{202e}"), "a\\u{1b}[2Jb\\u{202e}");
    }

    #[test]
    fn new_seqs_are_read_from_the_ledger_files_that_changed_however_the_ledger_is_cut() {
        let line = |seq: i64| format!("{{\"seq\":{seq}}}\n");
        let lines = |r: std::ops::RangeInclusive<i64>| r.map(line).collect::<String>();
        let header = "{\"header\":1}\n".to_string();
        // A day's growth: the last segment grows and a new one follows; the first file is the
        // same on both sides and holds seqs that must not count as new.
        let old = tree(&[
            ("ledger/ledger.jsonl", &(header.clone() + &lines(1..=3))),
            ("ledger/segments/000001.jsonl", &lines(4..=5)),
        ]);
        let new = tree(&[
            ("ledger/ledger.jsonl", &(header.clone() + &lines(1..=3))),
            ("ledger/segments/000001.jsonl", &lines(4..=7)),
            ("ledger/segments/000002.jsonl", &lines(8..=9)),
        ]);
        let s = review("site", listed(&old), &new, Kept::Every)
            .unwrap()
            .summary;
        assert_eq!(s.published, 4);
        assert_eq!(s.new_seqs.map(|r| (r.first, r.last)), Some((6, 9)));
        // A rewrite that moves lines across files: still the seqs the old ledger lacks.
        let moved = tree(&[
            ("ledger/ledger.jsonl", &(header + &lines(1..=2))),
            ("ledger/segments/000001.jsonl", &lines(3..=6)),
        ]);
        let s = review("site", listed(&old), &moved, Kept::Every)
            .unwrap()
            .summary;
        assert_eq!(s.published, 1);
        assert_eq!(s.new_seqs.map(|r| (r.first, r.last)), Some((6, 6)));
        // Nothing new.
        assert_eq!(
            review("site", listed(&new), &new, Kept::Every)
                .unwrap()
                .summary
                .published,
            0
        );
    }

    #[test]
    fn of_dir_the_review_keeps_what_the_summary_reads_and_not_the_listed_folders() {
        // At a million lines DIR's proofs are a million files: compared as walked, never held
        // (docs/scale.md#the-review-walks-dir). Caught: every file of DIR kept for the summary.
        let old = tree(&[
            ("ledger/STATS.json", "{}"),
            (
                &format!("ledger/witness/proofs/{}.ots", "a".repeat(64)),
                "pending",
            ),
            (
                &format!("ledger/public_texts/{}.txt", "b".repeat(64)),
                "text",
            ),
            ("ledger/public_texts/index.json", "{}"),
        ]);
        let new = tree(&[("ledger/STATS.json", "{}")]);
        let compared = compare(listed(&old), &new, Kept::Every, false).unwrap();
        let (files, old_held) = (compared.files, compared.old_held);
        assert_eq!(files.removed.len(), 3, "{:?}", files.removed);
        let held: Vec<String> = old_held.iter().map(|(p, _)| p.into_owned()).collect();
        assert_eq!(
            held,
            ["ledger/STATS.json", "ledger/public_texts/index.json"]
        );
        // An error of DIR's walk fails the comparison, where an error would have listed
        // nothing and the review called every file added.
        let failing = listed(&old)
            .take(1)
            .chain(std::iter::once(Err(anyhow::anyhow!(
                "site/ledger: cannot list"
            ))));
        let Err(err) = compare(failing, &new, Kept::Every, false) else {
            panic!("a failed walk compared")
        };
        assert!(format!("{err:#}").contains("site/ledger: cannot list"));
    }

    /// A tree whose `proofs` files 00..n are files in `folder`; those from `missing` on are
    /// not on disk.
    fn with_proofs(mut t: Tree, folder: &std::path::Path, n: usize, missing: usize) -> Tree {
        let on_disk: std::sync::Arc<std::path::Path> = folder.into();
        for k in 0..n {
            let name = format!("{k:02}.ots");
            if k < missing {
                std::fs::write(folder.join(&name), [k as u8]).unwrap();
            }
            let file =
                crate::published::output_tree::DiskFile::of_dir(on_disk.clone(), &name, 1, None);
            t.put_file(format!("ledger/witness/proofs/{name}"), file);
        }
        t
    }

    #[test]
    fn in_words_a_crowded_folder_is_counted_and_its_files_neither_kept_nor_read() {
        // A first build's review at a million lines adds a million proofs: in words they are a
        // count (docs/scale.md#the-review-walks-dir). Caught: every file kept and diffed, then
        // dropped when shown (the 9th proof, not on disk, would fail the review).
        let tmp = tempfile::tempdir().unwrap();
        let old = tree(&[("ledger/STATS.json", "{}")]);
        let new = with_proofs(tree(&[("ledger/STATS.json", "{}")]), tmp.path(), 20, 8);
        let shown = review("site", listed(&old), &new, Kept::Shown).unwrap();
        assert!(shown.files.added.is_empty(), "{:?}", shown.files.added);
        assert!(shown.diffs.is_empty());
        assert_eq!(shown.file_counts(), (20, 0, 0));
        assert_eq!(shown.summary.witness_proofs.added, 20);
        let text = shown.to_text();
        assert!(
            text.contains("dry run: 20 added, 0 changed, 0 removed"),
            "{text}"
        );
        assert!(
            text.contains("added   site/ledger/witness/proofs/ (20 files)"),
            "{text}"
        );
        assert!(review("site", listed(&old), &new, Kept::Every).is_err());
    }

    #[test]
    fn the_page_is_diffed_by_its_sizes_without_being_read() {
        // At a million lines the page is 31 MB a side, and it changes every day. Caught: both
        // sides read whole only to be measured (DIR's page here is not on disk to be read).
        let tmp = tempfile::tempdir().unwrap();
        let mut old = tree(&[]);
        let gone: std::sync::Arc<std::path::Path> = tmp.path().join("gone").into();
        old.put_file(
            "index.html",
            crate::published::output_tree::DiskFile::of_dir(gone, "index.html", 7, None),
        );
        let new = tree(&[("index.html", "<html>new</html>")]);
        let r = review("site", listed(&old), &new, Kept::Shown).unwrap();
        assert_eq!(r.file_counts(), (0, 1, 0));
        assert!(
            matches!(
                &r.diffs[0].body,
                DiffBody::Bytes {
                    old: 7,
                    new: 16,
                    ..
                }
            ),
            "{:?}",
            r.diffs[0].body
        );
    }

    #[test]
    fn in_words_the_review_is_the_same_whether_every_file_is_kept_or_only_those_shown() {
        // Caught: a folder counted in words under one and listed under the other, a count
        // taken from the kept list alone, a diff kept for a counted folder.
        let tmp = tempfile::tempdir().unwrap();
        let old = with_proofs(
            tree(&[("ledger/STATS.json", "{}"), ("ledger/a.json", "[1]")]),
            tmp.path(),
            12,
            12,
        );
        let mut new = tree(&[
            ("ledger/STATS.json", "{}"),
            ("ledger/a.json", "[2]"),
            ("ledger/b.json", "[]"),
        ]);
        for k in 0..9 {
            new.put(format!("ledger/segments/{k:06}.jsonl"), "{\"seq\":1}\n");
        }
        // Four proofs of twelve kept (one group of removed files, under the count shown).
        let new = with_proofs(new, tmp.path(), 4, 4);
        let every = review("site", listed(&old), &new, Kept::Every).unwrap();
        let shown = review("site", listed(&old), &new, Kept::Shown).unwrap();
        assert_eq!(every.file_counts(), (10, 1, 8));
        assert_eq!(shown.file_counts(), every.file_counts());
        assert_eq!(shown.to_text(), every.to_text());
        assert_eq!(shown.to_markdown(), every.to_markdown());
        assert!(shown.to_text().contains("site/ledger/segments/ (9 files)"));
        assert!(shown.diffs.len() < every.diffs.len());
    }

    #[test]
    fn json_files_show_key_changes_and_stats_counts_old_to_new() {
        let old = tree(&[
            (
                "ledger/STATS.json",
                r#"{"lines":{"published":{"count":10,"of":10},"withheld":{"count":0,"of":10}},"anchors":{"posts":1},"coverage":{"severed_seqs":[]}}"#,
            ),
            ("ledger/withheld.json", "[]"),
        ]);
        let new = tree(&[
            (
                "ledger/STATS.json",
                r#"{"lines":{"published":{"count":14,"of":15},"withheld":{"count":1,"of":15}},"anchors":{"posts":1},"coverage":{"severed_seqs":[12]}}"#,
            ),
            (
                "ledger/withheld.json",
                r#"[{"seq":15,"kind":"send","fields_flagged":["note"],"reason":"shape"}]"#,
            ),
        ]);
        let r = review("site", listed(&old), &new, Kept::Every).unwrap();
        let keys: Vec<&str> = r.summary.counts.iter().map(|c| c.key.as_str()).collect();
        assert_eq!(keys, ["lines.published", "lines.withheld"]);
        assert_eq!(r.summary.seq_lists[0].added, [12]);
        assert_eq!(r.summary.withheld[0].seq, 15);
        let text = r.to_text();
        assert!(
            text.contains("lines.published: 10 of 10 → 14 of 15"),
            "{text}"
        );
        assert!(text.contains("+ [0]: {"), "{text}");
        assert!(
            !text.contains("anchors.posts"),
            "unchanged counts are not listed: {text}"
        );
    }

    #[test]
    fn an_added_file_shows_its_first_lines_and_counts_the_rest() {
        let new: String = (0..1000).map(|i| format!("{i}\n")).collect();
        let DiffBody::Lines { hunks, not_shown } = line_diff("", &new) else {
            panic!()
        };
        assert_eq!(
            (hunks[0].lines.len(), not_shown),
            (LINES_PER_FILE, 1000 - LINES_PER_FILE)
        );
        assert_eq!(hunks[0].lines[0], "+0");
        let big = J::Array((0..100_000).map(J::from).collect());
        let shown = compact(&big);
        assert!(
            shown.chars().count() < 200 && shown.starts_with("[0,1,2"),
            "{shown}"
        );
    }

    #[test]
    fn texts_released_posted_heads_and_proofs_are_named() {
        let a = "a".repeat(64);
        let b = "b".repeat(64);
        let index = |shas: &[(&str, i64)]| {
            let published: Vec<J> = shas
                .iter()
                .map(|(s, q)| serde_json::json!({"sent_sha256": s, "seq": q, "bytes": 5}))
                .collect();
            serde_json::json!({ "published": published }).to_string()
        };
        let old = tree(&[
            ("ledger/public_texts/index.json", &index(&[(&a, 3)])),
            ("ledger/anchors/2026-10-24.txt", "post"),
            ("ledger/anchors/2026-10-24.txt.ots", "proof v1"),
            ("ledger/witness/proofs/x.ots", "pending"),
        ]);
        let new = tree(&[
            (
                "ledger/public_texts/index.json",
                &index(&[(&a, 3), (&b, 12)]),
            ),
            ("ledger/anchors/2026-10-24.txt", "post"),
            ("ledger/anchors/2026-10-24.txt.ots", "proof v2"),
            ("ledger/anchors/2026-10-25.txt", "post"),
            ("ledger/anchors/2026-10-25.txt.ots", "proof"),
            ("ledger/witness/proofs/x.ots", "upgraded"),
            ("ledger/witness/proofs/y.ots", "new"),
        ]);
        let s = review("site", listed(&old), &new, Kept::Every)
            .unwrap()
            .summary;
        assert_eq!(s.texts_released.len(), 1);
        assert_eq!(
            (
                s.texts_released[0].sent_sha256.as_str(),
                s.texts_released[0].seq
            ),
            (b.as_str(), Some(12))
        );
        assert_eq!(s.anchors_added, ["2026-10-25"]);
        assert_eq!((s.anchor_proofs.added, s.anchor_proofs.replaced), (1, 1));
        assert_eq!((s.witness_proofs.added, s.witness_proofs.replaced), (1, 1));
        let text = review("site", listed(&old), &new, Kept::Every)
            .unwrap()
            .to_text();
        assert!(text.contains(&format!("{b} (seq 12), 5 bytes")), "{text}");
        assert!(text.contains("posted heads added: 2026-10-25"), "{text}");
    }

    #[test]
    fn markdown_fences_outlast_backticks_in_the_content() {
        let old = tree(&[("a.txt", "x\n")]);
        let new = tree(&[("a.txt", "x\n````\n")]);
        let md = review("site", listed(&old), &new, Kept::Every)
            .unwrap()
            .to_markdown();
        assert!(md.contains("\n`````diff\n"), "{md}");
    }

    #[test]
    fn a_name_in_dir_that_is_not_a_file_is_listed_as_the_build_would_drop_it_never_read() {
        // Caught: a symlink left out of the review (a build drops it unsaid), read through (the
        // review fails, or shows the bytes of what it points to), taken as an empty file (a
        // symlink where the build writes an empty file would look unchanged), or read by the
        // summary (a symlinked STATS.json failed the review).
        use crate::published::output_tree::NotAFile;
        let old: Vec<Result<(String, Content)>> = [
            ("CNAME", NotAFile("symlink")),
            ("empty.txt", NotAFile("symlink")),
            ("index.html", NotAFile("symlink")),
            ("ledger/STATS.json", NotAFile("FIFO")),
        ]
        .into_iter()
        .map(|(p, kind)| Ok((p.to_string(), Content::NotAFile(kind))))
        .collect();
        let new = tree(&[
            ("empty.txt", ""),
            ("index.html", "<p>page</p>"),
            (
                "ledger/STATS.json",
                r#"{"lines":{"published":{"count":1,"of":1}}}"#,
            ),
        ]);
        let r = review("site", old.into_iter(), &new, Kept::Every).unwrap();
        assert_eq!(r.files.removed, ["CNAME"]);
        assert_eq!(
            r.files.changed,
            ["empty.txt", "index.html", "ledger/STATS.json"]
        );
        let text = r.to_text();
        assert!(
            text.contains(
                "a symlink in DIR, never followed nor read: a build removes it (or renames a file over it)"
            ),
            "{text}"
        );
        let cname = r.diffs.iter().find(|d| d.path == "CNAME").unwrap();
        assert!(
            matches!(&cname.body, DiffBody::Bytes { old: 0, new: 0, why } if why.contains("symlink")),
            "{:?}",
            cname.body
        );
    }

    /// What the review showed before it compared raw texts: both sides parsed whole.
    fn parsed_key_changes(old: &str, new: &str) -> Option<Vec<KeyChange>> {
        let parse = |s: &str| -> Option<J> {
            if s.is_empty() {
                Some(J::Null)
            } else {
                serde_json::from_str(s).ok()
            }
        };
        let mut out = Vec::new();
        key_changes("", &parse(old)?, &parse(new)?, &mut out);
        Some(out)
    }

    fn same_changes(old: &str, new: &str) {
        let shown = |c: Option<Vec<KeyChange>>| {
            c.map(|c| {
                c.iter()
                    .map(|k| format!("{} {:?} {:?} {:?}", k.key, k.change, k.old, k.new))
                    .collect::<Vec<_>>()
            })
        };
        assert_eq!(
            shown(json_key_changes(old, new)),
            shown(parsed_key_changes(old, new)),
            "{old:?} -> {new:?}"
        );
    }

    #[test]
    fn raw_key_changes_agree_with_the_parsed_trees_on_the_texts_that_part_them() {
        // Each pair would part a raw comparison done carelessly: texts that differ but are
        // equal values (whitespace, number spellings, escapes, key order, a duplicated key whose
        // last value counts), a number out of range or a lone surrogate in a part that did not
        // change (not JSON for the parsed trees, so a line diff), the file new, gone or `null`,
        // a kind that changes, and leading whitespace.
        let pairs = [
            (r#"{"a":1,"b":[1,2]}"#, "{ \"b\" : [1, 2], \"a\": 1 }"),
            (r#"{"a":1.0}"#, r#"{"a":1.00}"#),
            (r#"{"a":1.0}"#, r#"{"a":1}"#),
            (r#"{"a":1e2}"#, r#"{"a":100.0}"#),
            (r#"{"a":"\u0041"}"#, r#"{"a":"A"}"#),
            (r#"{"a":1,"a":2}"#, r#"{"a":2}"#),
            (r#"{"a":1,"a":2}"#, r#"{"a":1}"#),
            (r#"{"big":1e400,"n":1}"#, r#"{"big":1e400,"n":2}"#),
            (r#"{"s":"\ud800","n":1}"#, r#"{"s":"\ud800","n":2}"#),
            (
                r#"{"n":18446744073709551616,"m":1}"#,
                r#"{"n":18446744073709551616,"m":2}"#,
            ),
            ("", r#"{"a":[1]}"#),
            (r#"{"a":[1]}"#, ""),
            ("", ""),
            ("null", r#"[1]"#),
            (r#"[1]"#, "null"),
            (r#"{"a":{"b":1}}"#, r#"{"a":[{"b":1}]}"#),
            (r#"{"a":[1,2,3]}"#, r#"{"a":[1,2]}"#),
            (r#"[[1],[2]]"#, r#"[[1],[2,3],[4]]"#),
            ("  \n {\"a\":1}\n", "\t{\"a\":2}  "),
            (r#"{"a":1}"#, "not json"),
            ("1", "2"),
            (r#""x""#, r#""x""#),
        ];
        for (old, new) in pairs {
            same_changes(old, new);
            same_changes(new, old);
        }
    }

    fn any_json() -> impl proptest::strategy::Strategy<Value = J> {
        use proptest::prelude::*;
        let leaf = prop_oneof![
            Just(J::Null),
            any::<bool>().prop_map(J::from),
            (-3i64..1000).prop_map(J::from),
            any::<u64>().prop_map(J::from),
            (-1.0e3f64..1.0e3).prop_map(J::from),
            "[ab\"\\\n\u{e9}\u{202e}]{0,4}".prop_map(J::from),
        ];
        leaf.prop_recursive(4, 40, 5, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..5).prop_map(J::Array),
                proptest::collection::btree_map("[abc]{1,2}", inner, 0..5)
                    .prop_map(|m| J::Object(m.into_iter().collect())),
            ]
        })
    }

    /// `v` with the part that `path` picks out of it (at each level, an index taken modulo its
    /// members) replaced by `with`.
    fn grafted(v: &J, path: &[usize], with: &J) -> J {
        let Some((&at, rest)) = path.split_first() else {
            return with.clone();
        };
        match v {
            J::Array(x) if !x.is_empty() => {
                let mut x = x.clone();
                let i = at % x.len();
                x[i] = grafted(&x[i], rest, with);
                J::Array(x)
            }
            J::Object(m) if !m.is_empty() => {
                let mut m = m.clone();
                if let Some(k) = m.keys().nth(at % m.len()).cloned()
                    && let Some(slot) = m.get_mut(&k)
                {
                    *slot = grafted(slot, rest, with);
                }
                J::Object(m)
            }
            _ => with.clone(),
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config::with_cases(600))]
        /// Fuzzed: a value and the same value with one part changed, each side written compact
        /// or pretty, get the same key changes from the raw texts as from the parsed trees.
        #[test]
        fn raw_key_changes_agree_with_the_parsed_trees_fuzzed(
            a in any_json(),
            with in any_json(),
            path in proptest::collection::vec(0usize..8, 0..4),
            pretty in (proptest::prelude::any::<bool>(), proptest::prelude::any::<bool>()),
        ) {
            let b = grafted(&a, &path, &with);
            let text = |v: &J, pretty: bool| if pretty {
                serde_json::to_string_pretty(v).unwrap()
            } else {
                serde_json::to_string(v).unwrap()
            };
            same_changes(&text(&a, pretty.0), &text(&b, pretty.1));
        }
    }
}
