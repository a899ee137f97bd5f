//! Stage 3, history: what the publication at git HEAD binds this build to
//! (docs/protocol.md#sticky-history).

use anyhow::{Context, Result};

use super::decide::{HeadFile, History, Readings};
use crate::previous::Previous;
use crate::published::segments::{LEDGER_FILE, SEGMENTS_DIR, segment_number, segment_path};
use crate::published::withheld_files::{
    WITHHELD_DIR, WITHHELD_FILE, part_path, withheld_part_number,
};

/// What HEAD's publication binds this build to.
/// `head_trusted`: HEAD re-derives to its last snapshot (crate::previous::head_check); when it does not
/// (passed on --allow-rewrite), its readings are not taken on trust.
pub fn read_history(previous: &Previous, head_trusted: bool) -> Result<History> {
    let mut history = History {
        ledger_seqs: crate::previous::ledger_seqs::LedgerSeqs::open(previous.git_dir()),
        ..History::default()
    };
    // HEAD's withheld list: `withheld.json`, then its later files in order
    // (docs/scale.md#withheld-files); each file's entry count is kept for the cut.
    let mut withheld_bytes: Vec<(String, Vec<u8>)> = Vec::new();
    if let Some(bytes) = previous.read(WITHHELD_FILE)? {
        withheld_bytes.push((WITHHELD_FILE.to_string(), bytes));
    }
    for (i, (name, id)) in previous.list_blobs(WITHHELD_DIR)?.into_iter().enumerate() {
        let expected = part_path(i as u32 + 1);
        let path = format!("{WITHHELD_DIR}/{name}");
        if withheld_part_number(&name).is_none() || path != expected {
            anyhow::bail!(
                "HEAD:{path}: the withheld list's later files must be named {expected} and on, one after another (docs/scale.md#withheld-files); restore the exhibit branch as exhibit built it"
            );
        }
        let bytes = previous.read_blob(id, &path)?;
        withheld_bytes.push((path, bytes));
    }
    let (withheld, counts) = crate::published::withheld_files::read_list(
        withheld_bytes
            .iter()
            .map(|(p, b)| (p.as_str(), b.as_slice())),
    )
    .map_err(|e| anyhow::anyhow!("HEAD:{e}"))?;
    history.withheld = withheld;
    history.withheld_files = withheld_bytes
        .iter()
        .zip(counts)
        .map(|((p, _), c)| (p.clone(), c.entries))
        .collect();
    // HEAD's published ledger is its files in chain order, concatenated (docs/scale.md#layout):
    // read one file at a time, its seqs noted and its size and sha256 kept, never held whole
    // (docs/scale.md#memory). A line never spans two files (the cut is at line boundaries).
    // A file an earlier build read (by its blob id) is not read again
    // (docs/scale.md#comparing-without-reading): only the day's new and grown files are.
    let mut first = true;
    for file in head_ledger_files(previous)? {
        let seqs = history
            .ledger_seqs
            .of(file.id, first, || previous.read_blob(file.id, &file.path))?;
        first = false;
        history.published_seqs.extend(seqs.seqs());
        history.files.push(HeadFile {
            path: file.path,
            bytes: seqs.len,
            sha256: seqs.sha256,
            id: file.id,
        });
    }
    // Readings count only as committed (docs/protocol.md#operator-readings): from HEAD, never disk;
    // and only from a HEAD exhibit built (docs/build.md#safety): a forged reading publishes.
    if head_trusted && let Some(bytes) = previous.read("ledger/readings.json")? {
        let readings: Readings = serde_json::from_slice(&bytes)
            .context("HEAD:ledger/readings.json is not a readings file")?;
        history.readings = readings
            .lines
            .into_iter()
            .map(|r| (r.seq, r.entry_id))
            .collect();
    }
    Ok(history)
}

/// One of HEAD's published ledger files, as found in HEAD's tree.
struct HeadBlob {
    path: String,
    id: git2::Oid,
}

/// HEAD's published ledger files in chain order: `ledger/ledger.jsonl` when present, then
/// `ledger/segments/000001.jsonl`, … — numbered from 1 without a gap (HEAD's names passed the
/// layout's grammar in crate::previous::head_check already). Empty when HEAD publishes no ledger file.
fn head_ledger_files(previous: &Previous) -> Result<Vec<HeadBlob>> {
    let mut files = Vec::new();
    if let Some(id) = previous.blob_id(LEDGER_FILE)? {
        files.push(HeadBlob {
            path: LEDGER_FILE.to_string(),
            id,
        });
    }
    for (i, (name, id)) in previous.list_blobs(SEGMENTS_DIR)?.into_iter().enumerate() {
        let expected = segment_path(i as u32 + 1);
        let path = format!("{SEGMENTS_DIR}/{name}");
        if segment_number(&name).is_none() || path != expected {
            anyhow::bail!(
                "HEAD:{path}: the published ledger's segments must be named {expected} and on, one after another (docs/scale.md#names); restore the exhibit branch as exhibit built it"
            );
        }
        files.push(HeadBlob { path, id });
    }
    Ok(files)
}
