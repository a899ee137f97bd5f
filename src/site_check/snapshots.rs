//! `exhibit verify SITE` holds every file under `ledger/` to the digests its last
//! `SNAPSHOTS.jsonl` line names (docs/verifier.md#the-snapshots-digests): the same computation
//! the build makes when it appends a snapshot and when it checks HEAD before trusting it
//! (`head_check::SnapshotDigests`). A file the chain does not re-derive — the witness index, the
//! tail's report, a proof, a released text's index — was otherwise checked by no one once the
//! build was done; edited after the build, it "re-derived" still. Now each differs from the
//! publisher's own record of what it published, named by its file or its folder.

use std::path::Path;

use anyhow::Result;
use serde_json::Value as J;

use crate::previous::head_check::SnapshotDigests;
use crate::published::output_tree::Content;
use crate::site_check::outcome::FileProblem;
use crate::site_write::dir_walk::DirWalk;

/// Compares the site's files under `ledger/` with the last snapshot's `digests`. `snapshots`:
/// the bytes of `ledger/SNAPSHOTS.jsonl`, or `None` when the site has none.
pub fn check(site: &Path, snapshots: Option<&[u8]>, files: &mut Vec<FileProblem>) -> Result<()> {
    let problem = |code: &str, file: &str, detail: String| FileProblem {
        file: file.to_string(),
        code: code.to_string(),
        detail,
    };
    let Some(bytes) = snapshots else {
        files.push(problem(
            "snapshot_missing",
            "ledger/SNAPSHOTS.jsonl",
            "is missing: every build appends it, so what the site's files should hold is unknown and none of the files the chain does not re-derive is checked".into(),
        ));
        return Ok(());
    };
    let last = bytes
        .split(|&b| b == b'\n')
        .rfind(|l| !l.is_empty())
        .and_then(|l| serde_json::from_slice::<J>(l).ok());
    let Some(recorded) = last
        .as_ref()
        .and_then(|l| l.get("digests"))
        .and_then(J::as_object)
    else {
        files.push(problem(
            "snapshot_missing",
            "ledger/SNAPSHOTS.jsonl",
            "its last line is not a snapshot with a digests object: none of the files the chain does not re-derive is checked".into(),
        ));
        return Ok(());
    };
    let mut digests = SnapshotDigests::default();
    for item in DirWalk::new(&site.join("ledger"), None, &[])? {
        let (rel, content) = item?;
        // An interrupted build's temporary file is named as such (site_check), not as a
        // digest that differs.
        let name = rel.rsplit('/').next().unwrap_or(&rel);
        if crate::site_write::temp_of(name.as_bytes()).is_some() {
            continue;
        }
        let sha = match &content {
            Content::NotAFile(_) => continue, // never read; the layout's checks name it
            other => other.sha256()?,
        };
        digests.add(&format!("ledger/{rel}"), &sha.to_string());
    }
    let derived = digests.finish();
    let mut keys: Vec<&String> = recorded.keys().chain(derived.keys()).collect();
    keys.sort();
    keys.dedup();
    for key in keys {
        let (want, got) = (recorded.get(key), derived.get(key));
        if want == got {
            continue;
        }
        let what = if key.ends_with('/') {
            "its files' listing digest"
        } else {
            "its sha256"
        };
        let shown = |v: Option<&J>| match v {
            Some(J::String(s)) => s.clone(),
            Some(other) => other.to_string(),
            None => "nothing".into(),
        };
        files.push(problem(
            "snapshot_digest_mismatch",
            &format!("ledger/{key}"),
            format!(
                "{what} is {}; the last snapshot names {}: changed after the build that recorded it (or the record was)",
                shown(got),
                shown(want)
            ),
        ));
    }
    Ok(())
}
