//! `exhibit verify SITE` on a segmented exhibit's witness layer (docs/witness.md#parts): the
//! index's parts against the list `index.json` gives (each listed part present, its sha256,
//! its entry count, every entry's seq within the part's seqs, no entry in two parts, nothing
//! in `index/` the list does not name), and the run log's files named and ended as the
//! ledger's segments are. Read from the published tree only; the build's word is what is
//! checked, not trusted.

use std::collections::BTreeSet;

use anyhow::Result;
use exhibit_protocol::Digest;
use serde::Deserialize;
use serde_json::{Map, Value as J};

use crate::box_read::{BoxFolder, FileClass};
use crate::build::layers::witness::{RUNS, index_part_path};
use crate::layout::witness_part_number;
use crate::outcome::FileProblem;
use crate::segments::segment_number;

/// One part as `index.json` lists it.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ListedPart {
    entries: u64,
    first_seq: u64,
    last_seq: u64,
    path: String,
    sha256: String,
}

/// A part file: `{"entries": {entry_id: record, …}}`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PartFile {
    entries: Map<String, J>,
}

fn problem(file: impl Into<String>, code: &str, detail: impl Into<String>) -> FileProblem {
    FileProblem {
        file: file.into(),
        code: code.into(),
        detail: detail.into(),
    }
}

/// Checks `ledger/witness/` (given as `witness`): the index's parts and the run log's files.
pub fn check(witness: &BoxFolder, files: &mut Vec<FileProblem>) -> Result<()> {
    check_index_parts(witness, files)?;
    check_runs_files(witness, files)
}

fn check_index_parts(witness: &BoxFolder, files: &mut Vec<FileProblem>) -> Result<()> {
    let folder = witness.sub("index")?;
    let index = match witness.read("index.json", FileClass::WitnessIndex)? {
        Some(bytes) => serde_json::from_slice::<J>(&bytes).ok(),
        None => None,
    };
    let listed = index.as_ref().and_then(|i| i.get("parts"));
    let Some(listed) = listed else {
        if folder.is_some() {
            files.push(problem(
                "ledger/witness/index/",
                "witness_part_stray",
                "ledger/witness/index.json lists no parts, yet ledger/witness/index/ exists: its files are nobody's",
            ));
        }
        return Ok(());
    };
    let parts: Vec<ListedPart> = match serde_json::from_value(listed.clone()) {
        Ok(p) => p,
        Err(e) => {
            files.push(problem(
                "ledger/witness/index.json",
                "witness_parts_invalid",
                format!("its parts list is not an array of {{entries, first_seq, last_seq, path, sha256}}: {e}"),
            ));
            return Ok(());
        }
    };
    if index.as_ref().is_some_and(|i| i.get("entries").is_some()) {
        files.push(problem(
            "ledger/witness/index.json",
            "witness_parts_invalid",
            "holds both entries and parts: a split index keeps its entries in the parts only",
        ));
    }
    let mut seen_ids: BTreeSet<String> = BTreeSet::new();
    let mut named: BTreeSet<String> = BTreeSet::new();
    let size = parts
        .first()
        // Saturating: a hostile list may claim seqs 0..=u64::MAX (docs/witness.md#parts).
        .map(|p| p.last_seq.saturating_sub(p.first_seq).saturating_add(1));
    for part in &parts {
        let name = part.path.strip_prefix("ledger/witness/index/");
        let number = name.and_then(witness_part_number);
        let Some((name, number)) = name.zip(number) else {
            files.push(problem(
                "ledger/witness/index.json",
                "witness_parts_invalid",
                format!(
                    "lists {:?}, not a part's path (ledger/witness/index/NNNNNN.json)",
                    crate::terminal::escape(&part.path)
                ),
            ));
            continue;
        };
        if !named.insert(name.to_string()) {
            files.push(problem(
                part.path.as_str(),
                "witness_parts_invalid",
                "listed twice in ledger/witness/index.json's parts: each part is listed once",
            ));
            continue;
        }
        if part.entries == 0 {
            // Only a block with at least one entry is a part (docs/witness.md#parts).
            files.push(problem(
                part.path.as_str(),
                "witness_parts_invalid",
                "listed with no entries: a part exists only for a block that holds an entry",
            ));
        }
        let k = size.unwrap_or(1);
        if part.first_seq != (number - 1).saturating_mul(k).saturating_add(1)
            || part.last_seq != number.saturating_mul(k)
            || index_part_path(number) != part.path
        {
            files.push(problem(
                part.path.as_str(),
                "witness_parts_invalid",
                format!(
                    "listed with seqs {}..={}, which are not part {number}'s in blocks of {k} seqs",
                    part.first_seq, part.last_seq
                ),
            ));
        }
        check_part(folder.as_ref(), name, part, &mut seen_ids, files)?;
    }
    if let Some(folder) = &folder {
        for l in folder.list()? {
            if !named.contains(&l.name) {
                files.push(problem(
                    format!("ledger/witness/index/{}", crate::terminal::escape(&l.name)),
                    "witness_part_stray",
                    "not listed in ledger/witness/index.json's parts: the index a stranger reassembles from the list leaves it out",
                ));
            }
        }
    }
    Ok(())
}

/// One listed part: present, the listed sha256, the listed count, every seq within its block.
fn check_part(
    folder: Option<&BoxFolder>,
    name: &str,
    part: &ListedPart,
    seen_ids: &mut BTreeSet<String>,
    files: &mut Vec<FileProblem>,
) -> Result<()> {
    let bytes = match folder {
        Some(f) => f.read(name, FileClass::WitnessIndex)?,
        None => None,
    };
    let Some(bytes) = bytes else {
        files.push(problem(
            part.path.as_str(),
            "witness_part_missing",
            "listed in ledger/witness/index.json's parts but absent",
        ));
        return Ok(());
    };
    let actual = Digest::of(&bytes).to_string();
    if actual != part.sha256 {
        files.push(problem(
            part.path.as_str(),
            "witness_part_mismatch",
            format!(
                "hashes to {actual}; ledger/witness/index.json lists {}",
                crate::terminal::escape(&part.sha256)
            ),
        ));
    }
    let Ok(file) = serde_json::from_slice::<PartFile>(&bytes) else {
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
