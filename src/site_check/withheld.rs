//! `exhibit verify SITE` on the withheld list in files (docs/scale.md#withheld-files): the
//! files read in name order and held to the grammar and to STATS.json's `withheld_files`.

use crate::operator_box::read::{BoxFolder, FileClass};
use crate::published::withheld_files::*;
use crate::site_check::ledger_files::problem;
use crate::site_check::outcome::FileProblem;
use exhibit_protocol::verify::Withheld;

/// `exhibit verify SITE` (docs/scale.md#withheld-files): the list read from `withheld.json` and
/// `ledger/withheld/` in name order. A name outside the grammar, a gap in the numbers and a file
/// unlike STATS.json's `withheld_files` are problems; a file that breaks a rule of the list is
/// the caller's usage error, as a bad `withheld.json` always was.
pub fn check_site(
    ledger_dir: &BoxFolder,
    stats: Option<&[u8]>,
    problems: &mut Vec<FileProblem>,
) -> anyhow::Result<Withheld> {
    let mut files: Vec<(String, Vec<u8>)> = Vec::new();
    if let Some(b) = ledger_dir.read("withheld.json", FileClass::Withheld)? {
        files.push((WITHHELD_FILE.to_string(), b));
    }
    if let Some(folder) = ledger_dir.sub("withheld")? {
        let mut numbered = Vec::new();
        for listed in folder.list()? {
            match withheld_part_number(&listed.name).filter(|_| listed.utf8 && listed.file) {
                Some(n) => numbered.push((n, listed.name)),
                None => problems.push(problem(
                    // Only a name of the grammar is printed as it is.
                    if listed.utf8 && !listed.name.contains(['\n', '\r']) {
                        format!("{WITHHELD_DIR}/{}", listed.name)
                    } else {
                        format!("{WITHHELD_DIR}/")
                    },
                    "withheld_file_stray",
                    "is not a file of the withheld list: its files are ledger/withheld/NNNNNN.json, six digits from 000001",
                )),
            }
        }
        numbered.sort();
        for (i, (n, name)) in numbered.into_iter().enumerate() {
            let path = format!("{WITHHELD_DIR}/{name}");
            if n != i as u32 + 1 {
                problems.push(problem(
                    &path,
                    "withheld_files_gap",
                    format!(
                        "stands where {} must: the withheld list's files are numbered from 1 without a gap",
                        part_path(i as u32 + 1)
                    ),
                ));
            }
            if let Some(b) = folder.read(&name, FileClass::Withheld)? {
                files.push((path, b));
            }
        }
    }
    let (list, seqs) =
        read_list(files.iter().map(|(p, b)| (p.as_str(), b.as_slice()))).map_err(|e| {
            let dir = ledger_dir.path().parent().unwrap_or(ledger_dir.path());
            anyhow::anyhow!("{}: {}", dir.join(&e.path).display(), e.why)
        })?;
    let read: Vec<WithheldFile> = files
        .iter()
        .zip(seqs)
        .map(|((path, bytes), s)| WithheldFile {
            bytes: bytes.len() as u64,
            entries: s.entries,
            first_seq: s.first,
            last_seq: s.last,
            path: path.clone(),
            sha256: exhibit_protocol::Digest::of(bytes).to_string(),
        })
        .collect();
    check_stats(stats, &read, problems);
    Ok(list)
}

/// The files read against STATS.json's `withheld_files`: listed exactly when the list is in more
/// than one file, each with its size, sha256, entries and seqs.
fn check_stats(stats: Option<&[u8]>, read: &[WithheldFile], problems: &mut Vec<FileProblem>) {
    let stats_path = "ledger/STATS.json";
    // Parsed here and let go: the value is not held while the ledger streams.
    let stats: Option<serde_json::Value> = stats.and_then(|b| serde_json::from_slice(b).ok());
    let listed = stats.as_ref().and_then(|s| s.get("withheld_files"));
    let Some(listed) = listed else {
        if read.len() > 1 {
            problems.push(problem(
                stats_path,
                "stats_withheld_files_missing",
                "the withheld list continues in ledger/withheld/, but STATS.json lists no withheld_files to check them against",
            ));
        }
        return;
    };
    let Ok(listed) = serde_json::from_value::<Vec<WithheldFile>>(listed.clone()) else {
        problems.push(problem(
            stats_path,
            "stats_withheld_files_unreadable",
            "withheld_files is not a list of {path, bytes, entries, first_seq, last_seq, sha256}",
        ));
        return;
    };
    for want in &listed {
        let shown = if crate::published::layout::is_output_path(&want.path) {
            want.path.clone()
        } else {
            stats_path.to_string()
        };
        let Some(got) = read.iter().find(|f| f.path == want.path) else {
            problems.push(problem(
                shown,
                "stats_file_absent",
                "STATS.json lists this file of the withheld list, but the exhibit does not hold it",
            ));
            continue;
        };
        if want != got {
            let opt = |s: Option<i64>| s.map_or("null".to_string(), |s| s.to_string());
            problems.push(problem(
                &got.path,
                "stats_file_mismatch",
                format!(
                    "STATS.json lists bytes {}, entries {}, seqs {}..{}, sha256 {} (read: bytes {}, entries {}, seqs {}..{}, sha256 {})",
                    want.bytes, want.entries, opt(want.first_seq), opt(want.last_seq), want.sha256,
                    got.bytes, got.entries, opt(got.first_seq), opt(got.last_seq), got.sha256
                ),
            ));
        }
    }
    for got in read {
        if !listed.iter().any(|w| w.path == got.path) && (read.len() > 1 || !listed.is_empty()) {
            problems.push(problem(
                &got.path,
                "stats_file_unlisted",
                "is a file of the withheld list, but STATS.json's withheld_files does not list it",
            ));
        }
    }
}
