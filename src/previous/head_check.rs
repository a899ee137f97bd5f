//! HEAD is checked before it is trusted (docs/build.md#safety). What HEAD published binds the
//! next build — its ledger is what the new one must extend, its `withheld.json` what stays
//! withheld, its `readings.json` what a person has read — so a hand edit there (a truncated
//! ledger, an emptied withheld list, a forged reading) could publish a withheld line with
//! `extends: true`. Before any of it is read:
//!
//! - every name under HEAD's `DIR/ledger/` must be one of the output's own (crate::published::layout), a
//!   regular file; anything else refuses, naming it — no flag accepts it;
//! - HEAD's published files must re-derive to the digests of HEAD's own last
//!   `SNAPSHOTS.jsonl` line, exactly as the build computes them; a mismatch refuses naming the
//!   file, until `--allow-rewrite REASON` (recorded: that publication does not extend HEAD's,
//!   and HEAD's readings are not taken on trust).

use exhibit_protocol::Digest;
use std::collections::BTreeMap;

use anyhow::Result;
use serde_json::{Map, Value as J};

use crate::previous::Previous;
use crate::previous::blob_digests::BlobDigests;
use crate::published::segments::{SEGMENTS_DIR, segment_number, segment_path};
use crate::terminal::refusal::Refusal;

/// The folders under `ledger/` whose digest is one line of their `sha256sum` listing.
/// `segments/` holds the published ledger's later files (docs/scale.md#snapshots); it has a
/// listing digest only when it exists, so a one-file exhibit's snapshot is as before.
/// `withheld/` holds the withheld list's later files (docs/scale.md#withheld-files), likewise.
/// `tree/` holds the tree view of the chain (docs/tree.md).
pub const DIGESTED_FOLDERS: [&str; 6] = [
    "anchors/",
    "witness/",
    "public_texts/",
    "segments/",
    "withheld/",
    "tree/",
];

/// The `digests` object of a snapshot line, from `(path relative to DIR, sha256 hex)` pairs
/// sorted by path: each file directly under `ledger/` but `SNAPSHOTS.jsonl`, and for each of
/// [`DIGESTED_FOLDERS`] the sha256 of its listing — a stranger re-derives one with
/// `(cd ledger/X && find . -type f | sort | xargs sha256sum) | sha256sum`.
pub fn snapshot_digests<'a>(files: impl IntoIterator<Item = (&'a str, String)>) -> Map<String, J> {
    let mut digests = SnapshotDigests::default();
    for (path, sha) in files {
        digests.add(path, &sha);
    }
    digests.finish()
}

/// [`snapshot_digests`] fed one file at a time: each folder's listing is hashed as it grows,
/// never held (at a million files the proofs folder's listing alone is 165 MB:
/// docs/scale.md#memory).
#[derive(Default)]
pub struct SnapshotDigests {
    direct: Map<String, J>,
    listings: BTreeMap<&'static str, sha2::Sha256>,
}

impl SnapshotDigests {
    /// One file, `path` relative to DIR, in path order.
    pub fn add(&mut self, path: &str, sha: &str) {
        use sha2::Digest as _;
        let Some(rel) = path.strip_prefix("ledger/") else {
            return;
        };
        if !rel.contains('/') {
            if rel != "SNAPSHOTS.jsonl" {
                self.direct
                    .insert(rel.to_string(), J::String(sha.to_string()));
            }
            return;
        }
        for folder in DIGESTED_FOLDERS {
            if let Some(inner) = rel.strip_prefix(folder) {
                let h = self.listings.entry(folder).or_default();
                h.update(sha.as_bytes());
                h.update(b"  ./");
                h.update(inner.as_bytes());
                h.update(b"\n");
            }
        }
    }

    pub fn finish(self) -> Map<String, J> {
        use sha2::Digest as _;
        let mut direct = self.direct;
        for (folder, listing) in self.listings {
            direct.insert(
                folder.to_string(),
                J::String(Digest(listing.finalize().into()).to_string()),
            );
        }
        direct
    }
}

/// What the check found.
#[derive(Debug, Default)]
pub struct HeadCheck {
    /// Refusals a flag cannot accept (names outside the output's grammar).
    pub hard: Vec<Refusal>,
    /// HEAD's files do not re-derive to its last snapshot: refusals `--allow-rewrite` accepts.
    pub edited: Vec<Refusal>,
    /// The sha256 of HEAD's blobs: remembered from an earlier build or read and hashed now;
    /// saved for the next build once this one has written DIR.
    pub digests: BlobDigests,
}

impl HeadCheck {
    pub fn trusted(&self) -> bool {
        self.hard.is_empty() && self.edited.is_empty()
    }
}

/// The first file of `dir` (in HEAD's order) that does not carry the next number from 1, with
/// the path that must stand there: a folder of numbered files with a gap or a stranger in it.
fn out_of_order<'e>(
    entries: &'e [crate::previous::HeadEntry],
    dir: &str,
    number_of: fn(&str) -> Option<u32>,
    path_of: fn(u32) -> String,
) -> Option<(&'e str, String)> {
    let prefix = format!("{dir}/");
    entries
        .iter()
        .filter_map(|e| Some((e.path.as_str(), e.path.strip_prefix(&prefix)?)))
        .zip(1u32..)
        .find(|((_, name), n)| number_of(name) != Some(*n))
        .map(|((path, _), n)| (path, path_of(n)))
}

fn at_head(previous: &Previous, rel: &str) -> String {
    let prefix = previous.shown_prefix();
    if prefix.is_empty() {
        format!("HEAD:{rel}")
    } else {
        format!("HEAD:{prefix}/{rel}")
    }
}

const ACCEPT_EDIT: &str = "restore the file as exhibit built it (git checkout <the commit exhibit built> -- <file>, then commit), or --allow-rewrite REASON to publish over it (recorded: extends false, the reason, and HEAD's readings not trusted)";

pub fn check(previous: &Previous) -> Result<HeadCheck> {
    let mut out = check_head(previous)?;
    // What the cache remembered is not asked again (docs/scale.md#what-is-left).
    out.digests.checked();
    Ok(out)
}

/// What the HEAD check takes from HEAD's files as they pass, one at a time.
#[derive(Default)]
struct Walked {
    files: usize,
    /// The path before, while the walk's order is checked (not when HEAD is read again as a
    /// sorted list, where a name written twice into a tree by hand is taken twice, as before).
    last: Option<String>,
    sorted: bool,
    /// The snapshot's digests, fed one file at a time; only the segments' are kept, to name the
    /// one that differs (a million proofs' paths and digests are not held: docs/scale.md#memory).
    digests: SnapshotDigests,
    hashed: Vec<(String, String)>,
    snapshots: Option<Vec<u8>>,
    /// The entries the checks after the walk read: the segments, the withheld list's files and
    /// `STATS.json`.
    kept: Vec<crate::previous::HeadEntry>,
}

impl Walked {
    /// Takes one of HEAD's files; false when it does not come after the one before (a tree
    /// not in git's order: the caller reads HEAD again as a sorted list).
    fn take(
        &mut self,
        previous: &Previous,
        out: &mut HeadCheck,
        e: crate::previous::HeadEntry,
    ) -> Result<bool> {
        if !self.sorted {
            match &mut self.last {
                Some(last) if e.path <= *last => return Ok(false),
                // The one buffer is reused: no allocation per file of HEAD.
                Some(last) => {
                    last.clear();
                    last.push_str(&e.path);
                }
                None => self.last = Some(e.path.clone()),
            }
        }
        self.files += 1;
        if !e.regular_file || !crate::published::layout::is_output_path(&e.path) {
            out.hard.push(Refusal::new(
"head_not_output_file",
                at_head(previous, &e.path),
                "",
                "not a file of the output tree (docs/build.md#safety: every name HEAD holds under ledger/ is checked against the layout before use); exhibit never wrote it",
                "remove it from the exhibit branch (git rm) and commit; no flag accepts it",
            ));
            return Ok(true);
        }
        if e.path == "ledger/SNAPSHOTS.jsonl" {
            self.snapshots = Some(previous.read_blob(e.id, &e.path)?);
            return Ok(true);
        }
        // A blob an earlier build hashed is not read again (crate::previous::blob_digests).
        let digest = out
            .digests
            .digest_of(e.id, || previous.read_blob(e.id, &e.path))?;
        let digest = digest.to_string();
        self.digests.add(&e.path, &digest);
        if e.path.starts_with(SEGMENTS_DIR) {
            self.hashed.push((e.path.clone(), digest));
        }
        if e.path.starts_with(SEGMENTS_DIR)
            || e.path
                .starts_with(crate::published::withheld_files::WITHHELD_DIR)
            || e.path == "ledger/STATS.json"
        {
            self.kept.push(e);
        }
        Ok(true)
    }
}

fn check_head(previous: &Previous) -> Result<HeadCheck> {
    let fresh = || HeadCheck {
        digests: BlobDigests::open(previous.git_dir()),
        ..HeadCheck::default()
    };
    let mut out = fresh();
    // HEAD's files are taken as git's walk gives them, not listed first (at a million files
    // the list is 150 MB: docs/scale.md#memory). A tree not in git's order (written by hand)
    // is read again as a sorted list, from the start.
    let mut walked = Walked::default();
    let in_order = previous.visit_walk("ledger", |e| walked.take(previous, &mut out, e))?;
    if !in_order {
        out = fresh();
        walked = Walked {
            sorted: true,
            ..Walked::default()
        };
        for e in previous.walk("ledger")? {
            walked.take(previous, &mut out, e)?;
        }
    }
    if walked.files == 0 {
        return Ok(out);
    }
    let Walked {
        digests,
        hashed,
        snapshots,
        kept: entries,
        ..
    } = walked;
    // The published ledger is ledger.jsonl then segments 1, 2, … in order: a missing number
    // would make HEAD's ledger a different one than it reads as (docs/scale.md#names).
    if let Some((path, expected)) =
        out_of_order(&entries, SEGMENTS_DIR, segment_number, segment_path)
    {
        out.hard.push(Refusal::new(
            "head_segments_out_of_order",
            at_head(previous, path),
            "",
            format!(
                "the published ledger's segments must be numbered from 1 without a gap; in HEAD's order this file stands where {expected} must (docs/scale.md#names)"
            ),
            "restore the exhibit branch as exhibit built it (git checkout <the commit exhibit built> -- ledger/segments, then commit); no flag accepts a gap",
        ));
    }
    // The withheld list is withheld.json then its files 1, 2, … in order, likewise
    // (docs/scale.md#withheld-files).
    if let Some((path, expected)) = out_of_order(
        &entries,
        crate::published::withheld_files::WITHHELD_DIR,
        crate::published::withheld_files::withheld_part_number,
        crate::published::withheld_files::part_path,
    ) {
        out.hard.push(Refusal::new(
            "head_withheld_files_out_of_order",
            at_head(previous, path),
            "",
            format!(
                "the withheld list's later files must be numbered from 1 without a gap; in HEAD's order this file stands where {expected} must (docs/scale.md#withheld-files)"
            ),
            "restore the exhibit branch as exhibit built it (git checkout <the commit exhibit built> -- ledger/withheld, then commit); no flag accepts a gap",
        ));
    }
    if !out.hard.is_empty() {
        return Ok(out);
    }
    let last: Option<J> = snapshots.as_ref().and_then(|b| {
        b.split(|&c| c == b'\n')
            .rfind(|l| !l.is_empty())
            .and_then(|l| serde_json::from_slice(l).ok())
    });
    let Some(recorded) = last
        .as_ref()
        .and_then(|l| l.get("digests"))
        .and_then(J::as_object)
    else {
        out.edited.push(Refusal::new(
"head_edited",
            at_head(previous, "ledger/SNAPSHOTS.jsonl"),
            "",
            "HEAD's site/ was edited since exhibit built it: HEAD publishes ledger/ files but no SNAPSHOTS.jsonl whose last line records their digests",
            ACCEPT_EDIT,
        ));
        return Ok(out);
    };
    let actual = digests.finish();
    let keys: std::collections::BTreeSet<&String> = actual.keys().chain(recorded.keys()).collect();
    for key in keys {
        let (a, r) = (actual.get(key), recorded.get(key));
        if a == r {
            continue;
        }
        let what = match (a, r) {
            (Some(_), None) => "is published at HEAD, but HEAD's last snapshot does not record it",
            (None, Some(_)) => "is recorded in HEAD's last snapshot, but HEAD does not publish it",
            _ => "does not re-derive to the digest HEAD's last snapshot records",
        };
        // The snapshot holds one digest for all of segments/: name the files themselves.
        let which = match key.as_str() {
            "segments/" if actual.get("STATS.json") == recorded.get("STATS.json") => {
                segments_unlike_stats(previous, &entries, &hashed)?
            }
            _ => String::new(),
        };
        out.edited.push(Refusal::new(
            "head_edited",
            at_head(previous, &format!("ledger/{key}")),
            "",
            format!("HEAD's site/ was edited since exhibit built it: {what}{which}"),
            ACCEPT_EDIT,
        ));
    }
    Ok(out)
}

/// Which of HEAD's segments differ from HEAD's `STATS.json` list of files — trusted here only
/// because that `STATS.json` re-derived to its snapshot digest (docs/scale.md#snapshots) — as
/// `" (ledger/segments/000001.jsonl: …; …)"`, or nothing when the list cannot tell.
fn segments_unlike_stats(
    previous: &Previous,
    entries: &[crate::previous::HeadEntry],
    hashed: &[(String, String)],
) -> Result<String> {
    let Some(stats) = entries.iter().find(|e| e.path == "ledger/STATS.json") else {
        return Ok(String::new());
    };
    let stats: Option<J> = serde_json::from_slice(&previous.read_blob(stats.id, &stats.path)?).ok();
    let listed: BTreeMap<&str, &str> = stats
        .as_ref()
        .and_then(|s| s.pointer("/ledger/files"))
        .and_then(J::as_array)
        .map(|files| {
            files
                .iter()
                .filter_map(|f| Some((f.get("path")?.as_str()?, f.get("sha256")?.as_str()?)))
                .collect()
        })
        .unwrap_or_default();
    let mut named = Vec::new();
    for (path, sha) in hashed
        .iter()
        .filter(|(p, _)| p.starts_with("ledger/segments/"))
    {
        match listed.get(path.as_str()) {
            None => named.push(format!("{path}: not in HEAD's STATS.json list of files")),
            Some(&want) if want != sha => named.push(format!(
                "{path}: its sha256 is {sha}, HEAD's STATS.json lists {want}"
            )),
            Some(_) => {}
        }
    }
    for path in listed.keys().filter(|p| p.starts_with("ledger/segments/")) {
        if !hashed.iter().any(|(p, _)| p == path) {
            named.push(format!("{path}: listed in HEAD's STATS.json, but absent"));
        }
    }
    Ok(if named.is_empty() {
        String::new()
    } else {
        format!(" ({})", named.join("; "))
    })
}
