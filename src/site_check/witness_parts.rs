//! `exhibit verify SITE` on a segmented exhibit's witness layer (docs/witness.md#parts): the
//! index's parts against the list `index.json` gives (each listed part present, its sha256,
//! its entry count, every entry's seq within the part's seqs, no entry in two parts, nothing
//! in `index/` the list does not name), and the run log's files named and ended as the
//! ledger's segments are. Read from the published tree only; the build's word is what is
//! checked, not trusted.

use std::collections::BTreeSet;

use anyhow::Result;
use serde::Deserialize;
use serde_json::{Map, Value as J};

use crate::operator_box::read::{BoxFolder, FileClass};
use crate::publication::layers::witness::RUNS;
use crate::published::segments::segment_number;
use crate::site_check::index_parts::{ListedPart, PartsOf, problem};
use crate::site_check::outcome::FileProblem;

/// A part file: `{"entries": {entry_id: record, …}}`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PartFile {
    entries: Map<String, J>,
}

/// The witness index and its parts (the list's checks are shared: `src/site_check/index_parts.rs`).
const PARTS: PartsOf = PartsOf {
    folder: "ledger/witness",
    code: "witness",
    class: FileClass::WitnessIndex,
    lists: &["entries"],
};

/// Checks `ledger/witness/` (given as `witness`): the index's parts, each record's proof, and
/// the run log's files.
pub fn check(witness: &BoxFolder, files: &mut Vec<FileProblem>) -> Result<()> {
    let mut seen_ids: BTreeSet<String> = BTreeSet::new();
    let mut io = Ok(());
    PARTS.check(witness, files, |listed, bytes, files| {
        if let Err(e) = check_part(witness, listed, bytes, &mut seen_ids, files)
            && io.is_ok()
        {
            io = Err(e);
        }
    })?;
    io?;
    check_one_file_index(witness, files)?;
    check_runs_files(witness, files)
}

/// An index that is one file (no parts): each record's proof, at the path it names or at the
/// protocol's (docs/witness.md#proof-folders).
fn check_one_file_index(witness: &BoxFolder, files: &mut Vec<FileProblem>) -> Result<()> {
    let Some(bytes) = witness.read("index.json", FileClass::WitnessIndex)? else {
        return Ok(());
    };
    let Ok(index) = serde_json::from_slice::<J>(&bytes) else {
        return Ok(());
    };
    if index.get("parts").is_some() {
        return Ok(());
    }
    let Some(entries) = index.get("entries").and_then(J::as_object) else {
        return Ok(());
    };
    for (id, record) in entries {
        check_record_proof(
            witness,
            "ledger/witness/index.json",
            id,
            record,
            false,
            files,
        )?;
    }
    Ok(())
}

/// A record's proof (docs/witness.md#proof-folders): the path it names under `proof` — which
/// a part's record must give, and a one-file index's may (else the protocol's
/// `ledger/witness/proofs/<entry_id>.ots`) — is a proof's path of the output's grammar named for
/// the record's own entry_id, and the site holds a regular file there.
fn check_record_proof(
    witness: &BoxFolder,
    shown: &str,
    id: &str,
    record: &J,
    required: bool,
    files: &mut Vec<FileProblem>,
) -> Result<()> {
    const PREFIX: &str = "ledger/witness/proofs/";
    let own = format!("{id}.ots");
    let named = match record.get("proof") {
        None if !required => Some(format!("{PREFIX}{own}")),
        None => None,
        Some(p) => p.as_str().map(str::to_string),
    };
    let rel = named
        .as_deref()
        .and_then(|p| p.strip_prefix(PREFIX))
        .filter(|rel| {
            crate::published::layout::is_witness_proof_path(rel)
                && rel.rsplit('/').next() == Some(own.as_str())
        });
    let Some(rel) = rel else {
        files.push(problem(
            shown,
            "witness_proof_path_invalid",
            format!(
                "entry {} names {} as its proof: a record names its own proof, ledger/witness/proofs/<entry_id>.ots, or <entry_id>.ots in a bucket NNNNNN/ or in other/",
                crate::terminal::escape(id),
                record.get("proof").map_or("no path".to_string(), |p| crate::terminal::escape(&p.to_string()).into_owned())
            ),
        ));
        return Ok(());
    };
    // Every component was checked against the grammar just above: no `..`, no absolute path.
    let path = witness.path().join("proofs").join(rel);
    let regular = match std::fs::symlink_metadata(&path) {
        Ok(m) => m.is_file(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => false,
        Err(e) => {
            return Err(anyhow::Error::new(e).context(format!("{}: cannot stat", path.display())));
        }
    };
    if !regular {
        files.push(problem(
            format!("{PREFIX}{rel}"),
            "witness_proof_missing",
            format!(
                "{shown} names it as entry {}'s proof, and the site holds no such file",
                crate::terminal::escape(id)
            ),
        ));
    }
    Ok(())
}

/// What one present part holds: the listed count, every seq within its block, no entry that
/// an earlier part holds.
fn check_part(
    witness: &BoxFolder,
    part: &ListedPart,
    bytes: &[u8],
    seen_ids: &mut BTreeSet<String>,
    files: &mut Vec<FileProblem>,
) -> Result<()> {
    let Ok(file) = serde_json::from_slice::<PartFile>(bytes) else {
        files.push(problem(
            part.path.as_str(),
            "witness_part_invalid",
            "not {\"entries\": {entry_id: record, …}}",
        ));
        return Ok(());
    };
    if file.entries.len() as u64 != part.entries {
        files.push(problem(
            part.path.as_str(),
            "witness_part_mismatch",
            format!(
                "holds {} entries; ledger/witness/index.json lists {}",
                file.entries.len(),
                part.entries
            ),
        ));
    }
    for (id, record) in &file.entries {
        let seq = record.get("seq").and_then(J::as_u64);
        if seq.is_none_or(|s| s < part.first_seq || s > part.last_seq) {
            files.push(problem(
                part.path.as_str(),
                "witness_part_invalid",
                format!(
                    "entry {} has seq {}, outside this part's {}..={}",
                    crate::terminal::escape(id),
                    record.get("seq").map_or("none".into(), J::to_string),
                    part.first_seq,
                    part.last_seq
                ),
            ));
        }
        if !seen_ids.insert(id.clone()) {
            files.push(problem(
                part.path.as_str(),
                "witness_part_invalid",
                format!(
                    "entry {} is in an earlier part too",
                    crate::terminal::escape(id)
                ),
            ));
        }
        check_record_proof(witness, part.path.as_str(), id, record, true, files)?;
    }
    Ok(())
}

/// `runs/`: regular files `000001.jsonl`, … from 1 without a gap, each ending in LF, after a
/// `runs.jsonl`.
fn check_runs_files(witness: &BoxFolder, files: &mut Vec<FileProblem>) -> Result<()> {
    let Some(folder) = witness.sub("runs")? else {
        return Ok(());
    };
    if !witness.list()?.iter().any(|l| l.name == "runs.jsonl") {
        files.push(problem(
            RUNS.first,
            "witness_runs_missing",
            "ledger/witness/runs/ continues a run log whose first file is absent",
        ));
    }
    let mut expected = 1u32;
    for l in folder.list()? {
        let shown = format!("{}/{}", RUNS.folder, crate::terminal::escape(&l.name));
        let number = l
            .utf8
            .then(|| segment_number(&l.name))
            .flatten()
            .filter(|_| l.file);
        let Some(number) = number else {
            files.push(problem(
                shown,
                "witness_runs_stray",
                "not a run-log file: ledger/witness/runs/ holds only regular files named NNNNNN.jsonl (from 000001)",
            ));
            continue;
        };
        while expected < number {
            files.push(problem(
                RUNS.path(expected),
                "witness_runs_missing",
                "missing: the run log's files run past it, so the log has a gap here",
            ));
            expected += 1;
        }
        expected = number + 1;
        let Some(bytes) = folder.read(&l.name, FileClass::RunLog)? else {
            continue;
        };
        if bytes.is_empty() || !bytes.ends_with(b"\n") {
            files.push(problem(
                shown,
                "witness_runs_unterminated",
                "a run-log file holds whole lines, at least one, each ending in LF",
            ));
        }
    }
    Ok(())
}
