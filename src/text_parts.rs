//! `exhibit verify SITE` on a segmented exhibit's public-texts index (docs/public-texts.md#parts):
//! the parts `index.json` lists against the files under `public_texts/index/` — each listed
//! part present, its sha256 and entry count as listed, every entry's seq within the part's
//! block, the blocks those of one size, nothing in `index/` the list does not name. Read from
//! the published tree only: the build's word is what is checked, not trusted.

use std::collections::BTreeSet;

use anyhow::Result;
use exhibit_protocol::Digest;
use serde::Deserialize;
use serde_json::{Map, Value as J};

use crate::box_read::{BoxFolder, FileClass};
use crate::build::layers::public_texts::text_part_path;
use crate::layout::witness_part_number;
use crate::outcome::FileProblem;

const INDEX: &str = "ledger/public_texts/index.json";

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

/// A part file: the per-line lists of the seqs of one block.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PartFile {
    off_allow_list: Map<String, J>,
    published: Vec<J>,
    unreconstructable: Vec<J>,
    withheld: Vec<J>,
}

fn problem(file: impl Into<String>, code: &str, detail: impl Into<String>) -> FileProblem {
    FileProblem {
        file: file.into(),
        code: code.into(),
        detail: detail.into(),
    }
}

/// Checks `ledger/public_texts/` (given as `texts`): the index's parts, when it lists any.
pub fn check(texts: &BoxFolder, files: &mut Vec<FileProblem>) -> Result<()> {
    let folder = texts.sub("index")?;
    let index = match texts.read("index.json", FileClass::TextsIndex)? {
        Some(bytes) => serde_json::from_slice::<J>(&bytes).ok(),
        None => None,
    };
    let Some(listed) = index.as_ref().and_then(|i| i.get("parts")) else {
        if folder.is_some() {
            files.push(problem(
                "ledger/public_texts/index/",
                "text_part_stray",
                "ledger/public_texts/index.json lists no parts, yet ledger/public_texts/index/ exists: its files are nobody's",
            ));
        }
        return Ok(());
    };
    let parts: Vec<ListedPart> = match serde_json::from_value(listed.clone()) {
        Ok(p) => p,
        Err(e) => {
            files.push(problem(
                INDEX,
                "text_parts_invalid",
                format!("its parts list is not an array of {{entries, first_seq, last_seq, path, sha256}}: {e}"),
            ));
            return Ok(());
        }
    };
    if let Some(key) = ["published", "withheld", "unreconstructable"]
        .into_iter()
        .find(|k| index.as_ref().is_some_and(|i| i.get(*k).is_some()))
    {
        files.push(problem(
            INDEX,
            "text_parts_invalid",
            format!("holds both {key} and parts: a split index keeps its per-line lists in the parts only"),
        ));
    }
    let size = parts
        .first()
        // Saturating: a hostile list may claim seqs 0..=u64::MAX.
        .map(|p| p.last_seq.saturating_sub(p.first_seq).saturating_add(1));
    let mut named: BTreeSet<String> = BTreeSet::new();
    for part in &parts {
        let name = part.path.strip_prefix("ledger/public_texts/index/");
        let number = name.and_then(witness_part_number);
        let Some((name, number)) = name.zip(number) else {
            files.push(problem(
                INDEX,
                "text_parts_invalid",
                format!(
                    "lists {:?}, not a part's path (ledger/public_texts/index/NNNNNN.json)",
                    crate::terminal::escape(&part.path)
                ),
            ));
            continue;
        };
        if !named.insert(name.to_string()) {
            files.push(problem(
                part.path.as_str(),
                "text_parts_invalid",
                "listed twice in ledger/public_texts/index.json's parts: each part is listed once",
            ));
            continue;
        }
        if part.entries == 0 {
            files.push(problem(
                part.path.as_str(),
                "text_parts_invalid",
                "listed with no entries: a part exists only for a block that holds an entry",
            ));
        }
        let k = size.unwrap_or(1);
        if part.first_seq != (number - 1).saturating_mul(k).saturating_add(1)
            || part.last_seq != number.saturating_mul(k)
            || text_part_path(number) != part.path
        {
            files.push(problem(
                part.path.as_str(),
                "text_parts_invalid",
                format!(
                    "listed with seqs {}..={}, which are not part {number}'s in blocks of {k} seqs",
                    part.first_seq, part.last_seq
                ),
            ));
        }
        check_part(folder.as_ref(), name, part, files)?;
    }
    if let Some(folder) = &folder {
        for l in folder.list()? {
            if !named.contains(&l.name) {
                files.push(problem(
                    format!(
                        "ledger/public_texts/index/{}",
                        crate::terminal::escape(&l.name)
                    ),
                    "text_part_stray",
                    "not listed in ledger/public_texts/index.json's parts: the index a stranger reassembles from the list leaves it out",
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
    files: &mut Vec<FileProblem>,
) -> Result<()> {
    let bytes = match folder {
        Some(f) => f.read(name, FileClass::TextsIndex)?,
        None => None,
    };
    let Some(bytes) = bytes else {
        files.push(problem(
            part.path.as_str(),
            "text_part_missing",
            "listed in ledger/public_texts/index.json's parts but absent",
        ));
        return Ok(());
    };
    let actual = Digest::of(&bytes).to_string();
    if actual != part.sha256 {
        files.push(problem(
            part.path.as_str(),
            "text_part_mismatch",
            format!(
                "hashes to {actual}; ledger/public_texts/index.json lists {}",
                crate::terminal::escape(&part.sha256)
            ),
        ));
    }
    let Ok(file) = serde_json::from_slice::<PartFile>(&bytes) else {
        files.push(problem(
            part.path.as_str(),
            "text_part_invalid",
            "not {\"off_allow_list\": {class: [seq, …]}, \"published\": […], \"unreconstructable\": […], \"withheld\": […]}",
        ));
        return Ok(());
    };
    let mut seqs: Vec<Option<u64>> = Vec::new();
    for list in [&file.published, &file.unreconstructable, &file.withheld] {
        seqs.extend(list.iter().map(|e| e.get("seq").and_then(J::as_u64)));
    }
    for class in file.off_allow_list.values() {
        match class.as_array() {
            Some(list) => seqs.extend(list.iter().map(J::as_u64)),
            None => seqs.push(None),
        }
    }
    if seqs.len() as u64 != part.entries {
        files.push(problem(
            part.path.as_str(),
            "text_part_mismatch",
            format!(
                "holds {} entries; ledger/public_texts/index.json lists {}",
                seqs.len(),
                part.entries
            ),
        ));
    }
    if let Some(bad) = seqs
        .iter()
        .find(|s| s.is_none_or(|s| s < part.first_seq || s > part.last_seq))
    {
        files.push(problem(
            part.path.as_str(),
            "text_part_invalid",
            format!(
                "holds an entry with seq {}, outside this part's {}..={}",
                bad.map_or("none".into(), |s| s.to_string()),
                part.first_seq,
                part.last_seq
            ),
        ));
    }
    Ok(())
}
