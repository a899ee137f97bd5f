//! Whether HEAD's last publication is the operator's (docs/anchoring.md#trusting-head). HEAD's
//! files are held to its last snapshot line (crate::previous::head_check), but a person with push access
//! alone can rewrite the files and the line together. So before the build trusts HEAD's history,
//! HEAD's last snapshot line must be signed by the operator's key, or be one this machine wrote
//! (its record, in the repository's git directory, never in DIR).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use exhibit_protocol::Digest;

use crate::operator_box::signing::{OperatorKey, SignatureState};
use crate::previous::Previous;
use crate::terminal::refusal::Refusal;

/// The sha256 of every snapshot line this machine wrote into DIR.
pub struct Record {
    path: Option<PathBuf>,
    lines: BTreeSet<String>,
}

impl Record {
    /// `<git dir>/exhibit/published-<16 hex of DIR>`; none outside a repository.
    pub fn load(previous: &Previous) -> Result<Record> {
        let Some(git_dir) = previous.own_git_dir() else {
            return Ok(Record {
                path: None,
                lines: BTreeSet::new(),
            });
        };
        let key = Digest::of(previous.shown_prefix().as_bytes()).to_string();
        let path = git_dir
            .join("exhibit")
            .join(format!("published-{}", &key[..16]));
        let lines = match std::fs::read_to_string(&path) {
            Ok(text) => text
                .lines()
                .filter(|l| l.len() == 64)
                .map(str::to_string)
                .collect(),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => BTreeSet::new(),
            Err(e) => {
                return Err(e).with_context(|| format!("{}: cannot read", path.display()));
            }
        };
        Ok(Record {
            path: Some(path),
            lines,
        })
    }

    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    fn holds(&self, line: &[u8]) -> bool {
        self.lines.contains(&Digest::of(line).to_string())
    }

    /// Adds the publication's last snapshot line, written whole under a temporary name and
    /// renamed into place.
    pub fn add(&mut self, snapshots: &[u8]) -> Result<()> {
        let Some(path) = &self.path else {
            return Ok(());
        };
        let Some(last) = last_line(snapshots) else {
            return Ok(());
        };
        if !self.lines.insert(Digest::of(last).to_string()) {
            return Ok(());
        }
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("{}: cannot create", dir.display()))?;
        }
        let text: String = self.lines.iter().map(|l| format!("{l}\n")).collect();
        let temporary = path.with_extension(format!("new-{}", std::process::id()));
        std::fs::write(&temporary, text)
            .and_then(|()| std::fs::rename(&temporary, path))
            .with_context(|| format!("{}: cannot write", path.display()))
    }
}

/// The records this repository's git folder holds that name a publication (docs/operator.md#first-publication):
/// every `published-*` file with a line in it, `own` (DIR's) included, in name order. Empty
/// outside a repository.
pub fn records_naming_a_publication(previous: &Previous) -> Result<Vec<PathBuf>> {
    let Some(git_dir) = previous.own_git_dir() else {
        return Ok(Vec::new());
    };
    let folder = git_dir.join("exhibit");
    let entries = match std::fs::read_dir(&folder) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e).with_context(|| format!("{}: cannot list", folder.display())),
    };
    let mut found = Vec::new();
    for entry in entries {
        let entry = entry.with_context(|| format!("{}: cannot list", folder.display()))?;
        let name = entry.file_name();
        let is_record = name
            .to_str()
            .and_then(|n| n.strip_prefix("published-"))
            .is_some_and(|hex| hex.len() == 16 && hex.bytes().all(|b| b.is_ascii_hexdigit()));
        if is_record && entry.metadata().is_ok_and(|m| m.is_file() && m.len() > 0) {
            found.push(entry.path());
        }
    }
    found.sort();
    Ok(found)
}

impl Record {
    /// Where this DIR's record lives (none outside a repository).
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }
}

/// The last non-empty line of SNAPSHOTS.jsonl's bytes.
pub fn last_line(bytes: &[u8]) -> Option<&[u8]> {
    bytes.split(|&b| b == b'\n').rfind(|l| !l.is_empty())
}

/// What the check concluded, for the build's note.
#[derive(Debug, PartialEq, Eq)]
pub enum Trust {
    /// Nothing published yet.
    Nothing,
    /// Signed by the operator's key.
    Signed,
    /// A line this machine wrote.
    Recorded,
    /// A first signed publication: HEAD was never signed.
    FirstUnderKey,
    /// No key and no record (a new machine): trusted as its files re-derive to it, and said.
    Unrecorded,
}

/// HEAD's last publication against the key and the record; a refusal when it is neither.
pub fn check(
    previous: &Previous,
    key: Option<&OperatorKey>,
    record: &Record,
) -> Result<std::result::Result<Trust, Refusal>> {
    let Some(snapshots) = previous.read("ledger/SNAPSHOTS.jsonl")? else {
        return Ok(Ok(Trust::Nothing));
    };
    let Some(last) = last_line(&snapshots) else {
        return Ok(Ok(Trust::Nothing));
    };
    let recorded = record.holds(last);
    let file = format!("HEAD:{}ledger/SNAPSHOTS.jsonl", previous.shown_prefix());
    let refuse = |rule: &'static str, why: String| {
        Ok(Err(Refusal::new(
            rule,
            &file,
            "its last line",
            why,
            "if a person rewrote the published history on purpose, `--allow-rewrite REASON` publishes over it (recorded); otherwise restore the branch from a copy you trust (docs/anchoring.md#trusting-head)",
        )))
    };
    let Some(key) = key else {
        if recorded {
            return Ok(Ok(Trust::Recorded));
        }
        if record.is_empty() {
            return Ok(Ok(Trust::Unrecorded));
        }
        return refuse(
            "head_not_recorded",
            "HEAD's last publication is not one this machine built, and no [checkpoint] key signs the history: its files may have been rewritten by whoever can push to the branch".into(),
        );
    };
    match crate::operator_box::signing::snapshot_signature(last, &key.vkey) {
        SignatureState::Holds => Ok(Ok(Trust::Signed)),
        _ if recorded => Ok(Ok(Trust::Recorded)),
        SignatureState::Unsigned
            if record.is_empty()
                && !snapshots
                    .split(|&b| b == b'\n')
                    .any(|l| l.starts_with(crate::operator_box::signing::SNAPSHOT_SIGNATURE_PREFIX.as_bytes())) =>
        {
            Ok(Ok(Trust::FirstUnderKey))
        }
        SignatureState::Unsigned => refuse(
            "head_unsigned",
            "HEAD's last publication carries no signature, though earlier ones were signed: whoever pushed it does not hold the operator's key".into(),
        ),
        SignatureState::OtherKey(other) => refuse(
            "head_other_key",
            format!(
                "HEAD's last publication is signed by {other}, not by the configured key {}: a key change, or a forgery",
                key.vkey
            ),
        ),
        SignatureState::Broken => refuse(
            "head_signature_broken",
            format!(
                "HEAD's last publication names the key {} and its signature does not hold: the line was altered after it was signed",
                key.vkey
            ),
        ),
    }
}

/// Where the record lives for `dir` (tests).
pub fn record_path(dir: &Path) -> Result<Option<PathBuf>> {
    let previous = Previous::open(dir)?;
    Ok(Record::load(&previous)?.path)
}
