//! `exhibit verify SITE` on a segmented exhibit's public-texts index (docs/public-texts.md#parts):
//! the parts `index.json` lists against the files under `public_texts/index/` — each listed
//! part present, its sha256 and entry count as listed, every entry's seq within the part's
//! block, the blocks those of one size, nothing in `index/` the list does not name. Read from
//! the published tree only: the build's word is what is checked, not trusted.

use anyhow::Result;
use serde::Deserialize;
use serde_json::{Map, Value as J};

use crate::operator_box::read::{BoxFolder, FileClass};
use crate::site_check::index_parts::{ListedPart, PartsOf, problem};
use crate::site_check::outcome::FileProblem;

/// A part file: the per-line lists of the seqs of one block.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PartFile {
    off_allow_list: Map<String, J>,
    published: Vec<J>,
    unreconstructable: Vec<J>,
    withheld: Vec<J>,
}

/// The public-texts index and its parts (the list's checks are shared: `src/site_check/index_parts.rs`).
const PARTS: PartsOf = PartsOf {
    folder: "ledger/public_texts",
    code: "text",
    class: FileClass::TextsIndex,
    lists: &["published", "withheld", "unreconstructable"],
};

/// Checks `ledger/public_texts/` (given as `texts`): the index's parts, when it lists any.
pub fn check(texts: &BoxFolder, files: &mut Vec<FileProblem>) -> Result<()> {
    PARTS.check(texts, files, check_part)
}

/// What one present part holds: the listed count, every seq within its block.
fn check_part(part: &ListedPart, bytes: &[u8], files: &mut Vec<FileProblem>) {
    let Ok(file) = serde_json::from_slice::<PartFile>(bytes) else {
        files.push(problem(
            part.path.as_str(),
            "text_part_invalid",
            "not {\"off_allow_list\": {class: [seq, …]}, \"published\": […], \"unreconstructable\": […], \"withheld\": […]}",
        ));
        return;
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
}
