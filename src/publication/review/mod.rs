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

mod diff;
mod printed;
mod summary;

use diff::*;
use summary::*;

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

/// The files added, changed and removed, in path order (bytes compared, nothing diffed), as a
/// status a file of the new tree ([`FileStatuses`]): named again from the tree when written.
pub fn file_changes(old: impl OldFiles, new: &Tree) -> Result<FileStatuses> {
    let mut statuses = FileStatuses::default();
    compare(
        old,
        new,
        &mut Found::Streamed {
            statuses: &mut statuses,
            diffs: None,
        },
    )?;
    Ok(statuses)
}

/// Compares what DIR holds (`old`) with what the build would write (`new`).
pub fn review(dir: &str, old: impl OldFiles, new: &Tree, kept: Kept) -> Result<Review> {
    let mut files = FileChanges::default();
    let mut diffs = Vec::new();
    let compared = compare(
        old,
        new,
        &mut Found::Kept {
            kept,
            files: &mut files,
            diffs: &mut diffs,
        },
    )?;
    let mut summary = summary(&compared.old_held, new)?;
    compared.tally.fill(&mut summary);
    Ok(Review {
        dir: dir.trim_end_matches('/').to_string(),
        summary,
        files,
        diffs,
    })
}

/// Where the pass puts each file it finds added, changed or removed: kept in lists and diffed
/// as much as `kept` keeps (the words), or, for the review as data, which lists every file and
/// diff (a first publication's at a million lines was 537 MB, 3.6 GB held as values), a status
/// a file and each diff handed on as made (docs/scale.md#review-as-data).
enum Found<'a> {
    Kept {
        kept: Kept,
        files: &'a mut FileChanges,
        diffs: &'a mut Vec<FileDiff>,
    },
    Streamed {
        statuses: &'a mut FileStatuses,
        diffs: Option<&'a mut dyn FnMut(FileDiff) -> Result<()>>,
    },
}

/// What one pass over both sides gives besides the files found.
struct Compared {
    tally: Tally,
    /// DIR's files the summary reads (the ledger's files, the withheld list's, the public
    /// texts' index, STATS.json, SNAPSHOTS.jsonl); every other file — the proofs and released
    /// texts, a million at a million lines, the tree's files and the posted heads — is compared
    /// as walked and not kept.
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
/// listed and diffed, as `found` says.
fn compare(old: impl OldFiles, new: &Tree, found: &mut Found<'_>) -> Result<Compared> {
    let mut tally = Tally::default();
    let mut old_held = Tree::default();
    for joined in crate::published::output_tree::joined_with_listing(old, new) {
        let (path, a, b) = joined?;
        // The summary reads what DIR held of its files; a name that is not a file held nothing.
        if let Some(a) = &a
            && summary::summary_reads(&path)
            && !crate::published::output_tree::ListedFolder::holds_path(&path)
            && !matches!(**a, Content::NotAFile(_))
        {
            old_held.put_content(path.to_string(), a.clone().into_owned());
        }
        let status = match (&a, &b) {
            (None, Some(_)) => ChangeKind::Added,
            (Some(_), None) => ChangeKind::Removed,
            (Some(x), Some(y)) if !x.same(y)? => ChangeKind::Changed,
            _ => {
                if let Found::Streamed { statuses, .. } = found {
                    statuses.of_new.push(UNCHANGED);
                }
                continue;
            }
        };
        tally.count(&path, status);
        let diff = || -> Result<FileDiff> {
            Ok(FileDiff {
                path: path.to_string(),
                status,
                body: diff_of(&path, a.as_deref(), b.as_deref())?,
            })
        };
        match found {
            Found::Kept { kept, files, diffs } => {
                if files.push(status, path.to_string(), *kept) {
                    diffs.push(diff()?);
                } else {
                    // Its folder's files of this kind are counted, not shown: their diffs go too.
                    let folder = folder_of(&path);
                    diffs.retain(|d| d.status != status || folder_of(&d.path) != folder);
                }
            }
            Found::Streamed { statuses, diffs } => {
                statuses.push(status, &path);
                if let Some(hand_on) = diffs {
                    hand_on(diff()?)?;
                }
            }
        }
    }
    Ok(Compared { tally, old_held })
}

/// A new tree's file that DIR holds with the same bytes ([`FileStatuses::of_new`]).
const UNCHANGED: u8 = 0;

/// The files added, changed and removed, held as a byte a file of the new tree (its status,
/// in the tree's path order) and the paths of the files removed: the paths added are named
/// again from the tree when written ([`FileStatuses::lists`]). A first publication adds every
/// file, 80 MB of paths at a million lines (docs/scale.md#review-as-data).
#[derive(Debug, Default)]
pub struct FileStatuses {
    of_new: Vec<u8>,
    removed: Vec<String>,
}

impl FileStatuses {
    fn push(&mut self, status: ChangeKind, path: &str) {
        match status {
            ChangeKind::Removed => self.removed.push(path.to_string()),
            kind => self.of_new.push(kind as u8 + 1),
        }
    }

    /// The three lists, named from `tree`: the tree these statuses were found for.
    pub fn lists<'a>(&'a self, tree: &'a Tree) -> FileLists<'a> {
        FileLists {
            statuses: self,
            tree,
        }
    }
}

/// `{"added": [paths], "changed": [paths], "removed": [paths]}`, written as the tree is walked.
pub struct FileLists<'a> {
    statuses: &'a FileStatuses,
    tree: &'a Tree,
}

impl Serialize for FileLists<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{Error, SerializeStruct};
        // A tree that is not the one compared would name other files: never written.
        if self.tree.len() != self.statuses.of_new.len() {
            return Err(S::Error::custom(format!(
                "the tree holds {} files, and {} were compared",
                self.tree.len(),
                self.statuses.of_new.len()
            )));
        }
        let of = |kind: ChangeKind| OfStatus {
            lists: self,
            status: kind as u8 + 1,
        };
        let mut m = s.serialize_struct("FileChanges", 3)?;
        m.serialize_field("added", &of(ChangeKind::Added))?;
        m.serialize_field("changed", &of(ChangeKind::Changed))?;
        m.serialize_field("removed", &self.statuses.removed)?;
        m.end()
    }
}

/// The new tree's paths of one status, in path order.
struct OfStatus<'a> {
    lists: &'a FileLists<'a>,
    status: u8,
}

impl Serialize for OfStatus<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let FileLists { statuses, tree } = self.lists;
        s.collect_seq(
            tree.iter()
                .zip(&statuses.of_new)
                .filter(|(_, status)| **status == self.status)
                .map(|((path, _), _)| path),
        )
    }
}

/// `{` and the members of `head` (an object with members), to be followed by more.
fn members_of(head: &J) -> Result<String> {
    let mut head = serde_json::to_string(head)?;
    if !head.starts_with('{') || head.len() < 3 || head.pop() != Some('}') {
        anyhow::bail!("a JSON head that is not an object with members: {head}");
    }
    Ok(head)
}

/// A build's object (`--json`, not a dry run): the members of `head`, then `"files"`, named
/// from the tree as written (docs/scale.md#review-as-data).
pub fn write_with_files(
    out: &mut dyn std::io::Write,
    head: &J,
    files: &FileLists<'_>,
) -> Result<()> {
    write!(out, "{},\"files\":", members_of(head)?)?;
    serde_json::to_writer(&mut *out, files)?;
    out.write_all(b"}\n")?;
    Ok(())
}

/// The review as data (`--dry-run --json`), written to `out` as it is made: the members of
/// `head` (an object), then `"review"` — its diffs as the pass makes them, then its files and
/// summary — and `"files"`, the same lists (docs/operator.md#build-json). Nothing of it is
/// held but a status a file and the summary's inputs (docs/scale.md#review-as-data).
pub fn write_as_data(
    out: &mut dyn std::io::Write,
    head: &J,
    dir: &str,
    old: impl OldFiles,
    new: &Tree,
) -> Result<()> {
    let members = members_of(head)?;
    let dir = dir.trim_end_matches('/');
    write!(
        out,
        "{members},\"review\":{{\"dir\":{},\"diffs\":[",
        serde_json::to_string(dir)?
    )?;
    let mut statuses = FileStatuses::default();
    let mut first = true;
    let mut hand_on = |diff: FileDiff| -> Result<()> {
        if !std::mem::take(&mut first) {
            out.write_all(b",")?;
        }
        serde_json::to_writer(&mut *out, &diff)?;
        Ok(())
    };
    let compared = compare(
        old,
        new,
        &mut Found::Streamed {
            statuses: &mut statuses,
            diffs: Some(&mut hand_on),
        },
    )?;
    let mut summary = summary(&compared.old_held, new)?;
    compared.tally.fill(&mut summary);
    let lists = statuses.lists(new);
    out.write_all(b"],\"files\":")?;
    serde_json::to_writer(&mut *out, &lists)?;
    out.write_all(b",\"summary\":")?;
    serde_json::to_writer(&mut *out, &summary)?;
    out.write_all(b"},\"files\":")?;
    serde_json::to_writer(&mut *out, &lists)?;
    out.write_all(b"}\n")?;
    Ok(())
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

#[cfg(test)]
mod tests {
    use super::printed::MARKDOWN_CHARS;
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

    #[test]
    fn the_withheld_list_is_read_an_entry_at_a_time_as_it_was_read_whole() {
        // The files in order; a file skipped; one that is not an array, one cut short after
        // whole entries, one whose top is an object: each gives nothing, as one value read
        // whole gave nothing. Caught: entries of a broken file taken, a skipped file read, an
        // entry without an integer seq kept, the files' order lost.
        let t = tree(&[
            (
                "ledger/withheld.json",
                r#"[{"seq":3,"kind":"send"},{"seq":"4"},{"seq":5},7]"#,
            ),
            ("ledger/withheld/000001.json", r#"[{"seq":9}]"#),
            ("ledger/withheld/000002.json", r#"[{"seq":11},{"seq":12"#),
            ("ledger/withheld/000003.json", r#"{"seq":13}"#),
            ("ledger/withheld/000004.json", r#"[{"seq":14}] x"#),
            ("ledger/withheld/000005.json", r#"[{"seq":15}]"#),
        ]);
        let skip = BTreeSet::from(["ledger/withheld/000001.json"]);
        let seqs = summary::withheld_each(&t, &skip, |e| e["seq"].as_i64()).unwrap();
        assert_eq!(seqs, [3, 5, 15]);
        let kinds = summary::withheld_each(&t, &BTreeSet::new(), |e| {
            Some(e["kind"].as_str().unwrap_or("-").to_string())
        })
        .unwrap();
        assert_eq!(kinds, ["send", "-", "-", "-", "-", "-"]);
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
            ("ledger/public_texts/index/000001.json", "{}"),
            ("ledger/ledger.jsonl", "{}\n"),
            ("ledger/segments/000001.jsonl", "{}\n"),
            ("ledger/withheld.json", "[]"),
            ("ledger/withheld/000001.json", "[]"),
            ("ledger/SNAPSHOTS.jsonl", "{}\n"),
            ("ledger/tree/tile/0/000", "tile"),
            ("ledger/anchors/2026-01-01.txt", "post"),
            ("ledger/anchors/index.json", "{}"),
            ("ledger/segments.jsonl", "not the folder"),
        ]);
        let new = tree(&[("ledger/STATS.json", "{}")]);
        let mut statuses = FileStatuses::default();
        let mut streamed = Found::Streamed {
            statuses: &mut statuses,
            diffs: None,
        };
        let old_held = compare(listed(&old), &new, &mut streamed).unwrap().old_held;
        assert_eq!(statuses.removed.len(), 13, "{:?}", statuses.removed);
        // Caught too: the tree's files and the posted heads kept (140,000 at a million lines),
        // and a file named like a folder the summary reads taken for it.
        let held: Vec<String> = old_held.iter().map(|(p, _)| p.into_owned()).collect();
        assert_eq!(
            held,
            [
                "ledger/SNAPSHOTS.jsonl",
                "ledger/STATS.json",
                "ledger/ledger.jsonl",
                "ledger/public_texts/index.json",
                "ledger/public_texts/index/000001.json",
                "ledger/segments/000001.jsonl",
                "ledger/withheld.json",
                "ledger/withheld/000001.json",
            ]
        );
        // An error of DIR's walk fails the comparison, where an error would have listed
        // nothing and the review called every file added.
        let failing = listed(&old)
            .take(1)
            .chain(std::iter::once(Err(anyhow::anyhow!(
                "site/ledger: cannot list"
            ))));
        let mut statuses = FileStatuses::default();
        let mut streamed = Found::Streamed {
            statuses: &mut statuses,
            diffs: None,
        };
        let Err(err) = compare(failing, &new, &mut streamed) else {
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

    /// The review as data, written as it is made, is the held review's data, and the lists a
    /// build prints are its files. Caught: a status taken for the wrong file of the tree (a
    /// path listed under another kind, or the lists cut at the first unchanged file), a
    /// removed file named from the tree, diffs out of order or lost, the summary or the head's
    /// members dropped, a tree other than the one compared named, and a character split
    /// between two writes escaped as two.
    #[test]
    fn the_review_as_data_written_as_made_is_the_review_held() {
        let tmp = tempfile::tempdir().unwrap();
        let old = with_proofs(
            tree(&[
                ("CNAME", "old.example"),
                (
                    "ledger/STATS.json",
                    r#"{"lines":{"published":{"count":1,"of":1}}}"#,
                ),
                ("ledger/a.json", "[1]"),
                ("ledger/same.json", "[0]"),
                ("zz", "kept"),
            ]),
            tmp.path(),
            6,
            0,
        );
        let mut new = tree(&[
            (
                "ledger/STATS.json",
                r#"{"lines":{"published":{"count":2,"of":2}}}"#,
            ),
            ("ledger/a.json", "[2]"),
            ("ledger/b.txt", "x\u{85}y\u{202e}z\n"),
            ("ledger/same.json", "[0]"),
            ("zz", "kept"),
        ]);
        new = with_proofs(new, tmp.path(), 9, 9);
        let held = review("site", listed(&old), &new, Kept::Every).unwrap();
        let head = serde_json::json!({"schema": "s", "ok": true});
        let mut out = crate::terminal::EscapedJson::new(Vec::new());
        write_as_data(&mut out, &head, "site/", listed(&old), &new).unwrap();
        let written = String::from_utf8(out.finish().unwrap()).unwrap();
        assert!(
            written.ends_with("}\n") && !written.contains('\u{85}'),
            "{written}"
        );
        let v: J = serde_json::from_str(&written).unwrap();
        assert_eq!(v["review"], serde_json::to_value(&held).unwrap());
        assert_eq!(v["files"], serde_json::to_value(&held.files).unwrap());
        assert_eq!(
            (v["schema"].as_str(), v["ok"].as_bool()),
            (Some("s"), Some(true))
        );
        assert_eq!(held.file_counts(), (4, 2, 1), "{written}");
        // A build's lists: the same files, named from the tree; not from another tree.
        let statuses = file_changes(listed(&old), &new).unwrap();
        let mut out = Vec::new();
        write_with_files(&mut out, &head, &statuses.lists(&new)).unwrap();
        let v: J = serde_json::from_slice(&out).unwrap();
        assert_eq!(v["files"], serde_json::to_value(&held.files).unwrap());
        assert!(serde_json::to_string(&statuses.lists(&old)).is_err());
        // A character cut between two writes is written whole, and escaped once.
        let mut out = crate::terminal::EscapedJson::new(Vec::new());
        let text = "\"a\u{202e}b\"".as_bytes();
        for byte in text {
            std::io::Write::write_all(&mut out, std::slice::from_ref(byte)).unwrap();
        }
        assert_eq!(out.finish().unwrap(), br#""a\u202eb""#);
        let mut cut = crate::terminal::EscapedJson::new(Vec::new());
        std::io::Write::write_all(&mut cut, &text[..3]).unwrap();
        assert!(cut.finish().is_err(), "a text ending inside a character");
    }

    /// A file new or gone is shown from its raw text as from its parsed value. Caught: keys
    /// shown in the file's order (a value's are sorted), a duplicate key's first value shown,
    /// numbers or escapes written as the file wrote them, a cut in another place, and a
    /// removed file shown other than against `null`.
    #[test]
    fn compact_raw_is_compact_of_the_parsed_value() {
        let big: String = format!(
            "{{\"z\": 1, \"entries\": [{}], \"a\": {{\"y\": [1, 2], \"b\": \"x\"}}}}",
            (0..5000)
                .map(|k| format!("{{\"seq\": {k}, \"id\": \"{k:064}\", \"n\": 1.50}}"))
                .collect::<Vec<_>>()
                .join(",\n  ")
        );
        let long = format!("\"{}\"", "é".repeat(900));
        let texts = [
            r#"{"b": 1, "a": 2, "b": 3}"#,
            r#"{ "k" : [ 1.0, 1e2, -0, 12345678901234567890, 1.5e300, -7 ] }"#,
            r#"{"s": "caf\u00e9 \n \" \\ \u0001 \ud83d\ude00 \u202e"}"#,
            r#"[{}, [], null, true, false, "", {"x": {"y": {"z": []}}}]"#,
            "  {\n  \"pretty\": {\n    \"nested\": [\n      1\n    ]\n  }\n}\n",
            "42",
            "\"just a string\"",
            long.as_str(),
            big.as_str(),
        ];
        for t in texts {
            let raw: &serde_json::value::RawValue = serde_json::from_str(t).unwrap();
            let parsed: J = serde_json::from_str(t).unwrap();
            assert_eq!(compact_raw(raw), compact(&parsed), "{t:.80}");
            // A new file and a gone one, as key_changes finds them against null.
            for (old, new) in [("", t), (t, "")] {
                let mut want = Vec::new();
                let side = |x: &str| {
                    if x.is_empty() {
                        J::Null
                    } else {
                        parsed.clone()
                    }
                };
                key_changes("", &side(old), &side(new), &mut want);
                let got = json_key_changes(old, new).unwrap();
                assert_eq!(
                    serde_json::to_value(&got).unwrap(),
                    serde_json::to_value(&want).unwrap(),
                    "{t:.80}"
                );
            }
        }
        // Cut: the 5,000 entries are not all shown.
        assert!(compact_raw(serde_json::from_str(big.as_str()).unwrap()).len() < 2048);
        assert_eq!(json_key_changes("", "null").unwrap().len(), 0);
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
