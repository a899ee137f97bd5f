//! `exhibit verify SITE` on an index cut into parts, the same way for both layers that cut one
//! (docs/witness.md#parts, docs/public-texts.md#parts): the `parts` list `index.json` gives,
//! checked against the files under `index/` — each listed part once, with an entry, in blocks
//! of one size, present, of the listed sha256; nothing in `index/` the list does not name. What
//! a part holds is checked by the layer (`src/site_check/witness_parts.rs`, `src/site_check/text_parts.rs`). Read from
//! the published tree only: the build's word is what is checked, not trusted.

use std::collections::BTreeSet;

use anyhow::Result;
use exhibit_protocol::Digest;
use serde::Deserialize;
use serde_json::Value as J;

use crate::operator_box::read::{BoxFolder, FileClass};
use crate::published::layout::witness_part_number;
use crate::site_check::outcome::FileProblem;

/// One part as `index.json` lists it.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ListedPart {
    pub entries: u64,
    pub first_seq: u64,
    pub last_seq: u64,
    pub path: String,
    pub sha256: String,
}

/// Where one layer's index and parts are, and the prefix of its problem codes.
pub struct PartsOf {
    /// `ledger/witness`, `ledger/public_texts`.
    pub folder: &'static str,
    /// `witness`, `text`: codes are `<code>_part_missing`, `<code>_parts_invalid`, ….
    pub code: &'static str,
    /// The class each part and the index are read as (its ceiling).
    pub class: FileClass,
    /// The keys of the per-line lists a split index keeps in its parts only.
    pub lists: &'static [&'static str],
}

pub fn problem(file: impl Into<String>, code: &str, detail: impl Into<String>) -> FileProblem {
    FileProblem {
        file: file.into(),
        code: code.into(),
        detail: detail.into(),
    }
}

impl PartsOf {
    fn index(&self) -> String {
        format!("{}/index.json", self.folder)
    }

    fn part_path(&self, n: u64) -> String {
        format!("{}/index/{n:06}.json", self.folder)
    }

    /// Checks the layer's folder (given as `layer`); `part(listed, bytes, files)` checks what
    /// each present part holds.
    pub fn check(
        &self,
        layer: &BoxFolder,
        files: &mut Vec<FileProblem>,
        mut part: impl FnMut(&ListedPart, &[u8], &mut Vec<FileProblem>),
    ) -> Result<()> {
        let (code, index_path) = (self.code, self.index());
        let folder = layer.sub("index")?;
        let index = match layer.read("index.json", self.class)? {
            Some(bytes) => serde_json::from_slice::<J>(&bytes).ok(),
            None => None,
        };
        let Some(listed) = index.as_ref().and_then(|i| i.get("parts")) else {
            if folder.is_some() {
                files.push(problem(
                    format!("{}/index/", self.folder),
                    &format!("{code}_part_stray"),
                    format!(
                        "{index_path} lists no parts, yet {}/index/ exists: its files are nobody's",
                        self.folder
                    ),
                ));
            }
            return Ok(());
        };
        let invalid = format!("{code}_parts_invalid");
        let parts: Vec<ListedPart> = match serde_json::from_value(listed.clone()) {
            Ok(p) => p,
            Err(e) => {
                files.push(problem(
                    &index_path,
                    &invalid,
                    format!("its parts list is not an array of {{entries, first_seq, last_seq, path, sha256}}: {e}"),
                ));
                return Ok(());
            }
        };
        if let Some(key) = self
            .lists
            .iter()
            .find(|k| index.as_ref().is_some_and(|i| i.get(**k).is_some()))
        {
            files.push(problem(
                &index_path,
                &invalid,
                format!(
                    "holds both {key} and parts: a split index keeps its {key} in the parts only"
                ),
            ));
        }
        let size = parts
            .first()
            // Saturating: a hostile list may claim seqs 0..=u64::MAX.
            .map(|p| p.last_seq.saturating_sub(p.first_seq).saturating_add(1));
        let prefix = format!("{}/index/", self.folder);
        let mut named: BTreeSet<String> = BTreeSet::new();
        for listed in &parts {
            let name = listed.path.strip_prefix(prefix.as_str());
            let number = name.and_then(witness_part_number);
            let Some((name, number)) = name.zip(number) else {
                files.push(problem(
                    &index_path,
                    &invalid,
                    format!(
                        "lists {:?}, not a part's path ({prefix}NNNNNN.json)",
                        crate::terminal::escape(&listed.path)
                    ),
                ));
                continue;
            };
            if !named.insert(name.to_string()) {
                files.push(problem(
                    listed.path.as_str(),
                    &invalid,
                    format!("listed twice in {index_path}'s parts: each part is listed once"),
                ));
                continue;
            }
            if listed.entries == 0 {
                // Only a block with at least one entry is a part.
                files.push(problem(
                    listed.path.as_str(),
                    &invalid,
                    "listed with no entries: a part exists only for a block that holds an entry",
                ));
            }
            let k = size.unwrap_or(1);
            if listed.first_seq != (number - 1).saturating_mul(k).saturating_add(1)
                || listed.last_seq != number.saturating_mul(k)
                || self.part_path(number) != listed.path
            {
                files.push(problem(
                    listed.path.as_str(),
                    &invalid,
                    format!(
                        "listed with seqs {}..={}, which are not part {number}'s in blocks of {k} seqs",
                        listed.first_seq, listed.last_seq
                    ),
                ));
            }
            let bytes = match &folder {
                Some(f) => f.read(name, self.class)?,
                None => None,
            };
            let Some(bytes) = bytes else {
                files.push(problem(
                    listed.path.as_str(),
                    &format!("{code}_part_missing"),
                    format!("listed in {index_path}'s parts but absent"),
                ));
                continue;
            };
            let actual = Digest::of(&bytes).to_string();
            if actual != listed.sha256 {
                files.push(problem(
                    listed.path.as_str(),
                    &format!("{code}_part_mismatch"),
                    format!(
                        "hashes to {actual}; {index_path} lists {}",
                        crate::terminal::escape(&listed.sha256)
                    ),
                ));
            }
            part(listed, &bytes, files);
        }
        if let Some(folder) = &folder {
            for l in folder.list()? {
                if !named.contains(&l.name) {
                    files.push(problem(
                        format!("{prefix}{}", crate::terminal::escape(&l.name)),
                        &format!("{code}_part_stray"),
                        format!("not listed in {index_path}'s parts: the index a stranger reassembles from the list leaves it out"),
                    ));
                }
            }
        }
        Ok(())
    }
}
