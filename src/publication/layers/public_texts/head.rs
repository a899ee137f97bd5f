//! What HEAD published of the texts: its index, its readings, and the texts no allow-listed line
//! carries any more (docs/protocol.md#sticky-history).

use super::*;

/// What HEAD's committed publication says (never the disk: docs/protocol.md#operator-readings).
#[derive(Debug, Default)]
pub(super) struct HeadState<'a> {
    /// Where HEAD's bytes are read from, only when a text must be carried or compared: a
    /// daily build reads none of the texts it re-derives from the sources
    /// (docs/scale.md#the-daily-rebuilds-cost).
    pub(super) previous: Option<&'a crate::previous::Previous>,
    /// sent_sha256 → (seq in HEAD's index, HEAD's blob when the file is present at HEAD).
    pub(super) published: BTreeMap<Digest, (i64, Option<git2::Oid>)>,
    /// sent_sha256 → the reading entry as committed.
    pub(super) readings: BTreeMap<Digest, J>,
    /// File names under public_texts/ at HEAD.
    pub(super) files: FolderNames,
}

impl HeadState<'_> {
    /// HEAD's bytes of a published text, when its file is present at HEAD.
    pub(super) fn bytes_of(&self, sha: &Digest) -> Result<Option<Vec<u8>>> {
        match (self.previous, self.published.get(sha)) {
            (Some(previous), Some((_, Some(oid)))) => previous
                .read_blob(*oid, &format!("ledger/public_texts/{sha}.txt"))
                .map(Some),
            _ => Ok(None),
        }
    }
}

/// HEAD's index and names, then HEAD's folder listings let go: the reads by path that filled
/// them (the index and its parts, through the `public_texts/` folder's listing, 25 MB at a
/// million lines) are done, and the layer reads HEAD's texts by blob id after it; held to the
/// layer's end they sat on its peak (docs/scale.md#ids-shared).
pub(super) fn read_head<'a>(ctx: &LayerContext<'a>) -> Result<HeadState<'a>> {
    let head = read_head_index(ctx);
    ctx.previous.let_go_of_listings();
    head
}

pub(super) fn read_head_index<'a>(ctx: &LayerContext<'a>) -> Result<HeadState<'a>> {
    // One read of the folder's listing; each text is then found by name (no read by path).
    let blobs: BTreeMap<String, git2::Oid> = ctx
        .previous
        .list_blobs_beside(FOLDER, &["index"])?
        .into_iter()
        .collect();
    // The index's parts, as `index/<name>` (docs/public-texts.md#parts).
    let part_names = ctx
        .previous
        .list_blobs(&format!("{FOLDER}/index"))?
        .into_iter()
        .map(|(name, _)| format!("index/{name}"));
    let mut head = HeadState {
        previous: Some(ctx.previous),
        files: blobs.keys().cloned().chain(part_names).collect(),
        ..HeadState::default()
    };
    let Some(bytes) = ctx.previous.read(INDEX)? else {
        return Ok(head);
    };
    let bad = |what: &str| {
        anyhow::anyhow!(
            "HEAD:{INDEX} (under the output folder) is not a public-texts index: {what}"
        )
    };
    let index: J = serde_json::from_slice(&bytes).map_err(|e| bad(&e.to_string()))?;
    let list = |key: &str| -> Result<Vec<J>> {
        match index.get(key) {
            None => Ok(Vec::new()),
            Some(J::Array(a)) => Ok(a.clone()),
            Some(_) => Err(bad(&format!("{key} is not a list"))),
        }
    };
    // Each entry's sha256 and seq are taken as its list is read, and the list let go: HEAD's
    // whole published list as JSON values was 200 MB at a million lines (docs/scale.md#memory).
    // An entry without a sent_sha256 is named after every part is read, as when the lists were
    // read first and their entries after.
    let mut bad_entry = None;
    let mut take = |published: Vec<J>, head: &mut HeadState<'a>| {
        for p in published {
            let sha = p
                .get("sent_sha256")
                .and_then(J::as_str)
                .and_then(|s| s.parse::<Digest>().ok());
            let Some(sha) = sha else {
                bad_entry.get_or_insert_with(|| bad("a published entry without a sent_sha256"));
                continue;
            };
            let seq = p.get("seq").and_then(J::as_i64).unwrap_or_default();
            let file = blobs.get(&format!("{sha}.txt")).copied();
            head.published.insert(sha, (seq, file));
        }
    };
    take(list("published")?, &mut head);
    // A segmented exhibit's index keeps its published list in its parts (docs/public-texts.md#parts);
    // HEAD's snapshot vouched for every one of them (the HEAD check).
    match index.get("parts") {
        None => {}
        Some(J::Array(parts)) => {
            for part in parts {
                let path = part.get("path").and_then(J::as_str).unwrap_or_default();
                let numbered = path
                    .strip_prefix(FOLDER)
                    .and_then(|n| n.strip_prefix("/index/"))
                    .and_then(crate::published::layout::witness_part_number)
                    .is_some();
                if !numbered {
                    return Err(bad(&format!(
                        "its parts list names {:?}, not ledger/public_texts/index/NNNNNN.json",
                        crate::terminal::escape(path)
                    )));
                }
                let bytes = ctx
                    .previous
                    .read(path)?
                    .ok_or_else(|| bad(&format!("it lists {path}, which HEAD does not hold")))?;
                let part: J = serde_json::from_slice(&bytes)
                    .map_err(|e| bad(&format!("{path} is not JSON: {e}")))?;
                let mut part = part;
                match part.get_mut("published").map(J::take) {
                    None => {}
                    // Moved out of the part, not copied.
                    Some(J::Array(a)) => take(a, &mut head),
                    Some(_) => return Err(bad(&format!("{path}: published is not a list"))),
                }
            }
        }
        Some(_) => return Err(bad("parts is not a list")),
    }
    if let Some(e) = bad_entry {
        return Err(e);
    }
    for r in list("allowed_by_operator")? {
        let sha = r
            .get("sent_sha256")
            .and_then(J::as_str)
            .and_then(|s| s.parse::<Digest>().ok());
        let Some(sha) = sha else {
            return Err(bad("an allowed_by_operator entry without a sent_sha256"));
        };
        head.readings.insert(sha, r.clone());
    }
    Ok(head)
}

/// Step 3: texts published at HEAD that no allow-listed line carries now.
pub(super) fn no_longer_allow_listed(
    head: &HeadState,
    classes: &Classes,
    still_listed: &[bool],
    dir: &str,
    rewrite: Option<&str>,
    texts: &mut Texts,
    out: &mut LayerOutput,
) {
    // `still_listed` has a flag for each of HEAD's texts, in this order.
    for ((sha, (head_seq, file)), listed) in head.published.iter().zip(still_listed) {
        if *listed || file.is_none() {
            continue;
        }
        let why = classes
            .class_of_sha
            .get(sha)
            .cloned()
            .unwrap_or_else(|| "no line of the ledger carries it now".to_string());
        if let Some(reason) = rewrite {
            texts.dropped.push(json!({"sent_sha256": sha, "seq": head_seq, "reason": "no_longer_allow_listed", "detail": why, "rewrite_reason": reason}));
        } else {
            out.refusals.push(Refusal::new(
"text_off_allow_list",
                file_of(dir, sha),
                format!("seq {head_seq}"),
                format!("a text published at HEAD is no longer allow-listed ({why}); a published text is not removed silently (docs/protocol.md#public-texts)"),
                "put its destination back in the gate's config.json, or --allow-rewrite REASON to drop it",
            ));
        }
    }
}
