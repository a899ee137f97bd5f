//! `exhibit verify SITE` and the operator's signatures (docs/anchoring.md#what-verify-says): the
//! checkpoint is a signed note by the key STATS.json names, and every signed snapshot line holds
//! under the key it names. What a signature proves is only that the key's holder published
//! this: a stranger compares the key with the one the operator posts elsewhere.

use crate::operator_box::signing::{SignatureState, snapshot_signature};
use crate::site_check::outcome::FileProblem;

/// What the site's signatures say.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct Signatures {
    /// The verifier key STATS.json names for the tree, when the exhibit is signed.
    pub key: Option<String>,
    /// The checkpoint's signature by that key holds.
    pub checkpoint: bool,
    /// Snapshot lines signed, and the keys they were signed by, in order (a key is listed again
    /// when the lines go back to it: A, B, A).
    pub signed_lines: usize,
    pub keys: Vec<String>,
}

/// The checkpoint against `key` and every snapshot line against the key it names.
pub fn check(
    key: Option<&str>,
    checkpoint: Option<&[u8]>,
    snapshots: Option<&[u8]>,
    files: &mut Vec<FileProblem>,
) -> Signatures {
    let mut out = Signatures {
        key: key.map(str::to_string),
        ..Signatures::default()
    };
    // The key of the last line whose signature holds: the one STATS.json must name.
    let mut last_key: Option<String> = None;
    if let (Some(key), Some(cp)) = (key, checkpoint) {
        match crate::operator_box::signing::checkpoint_signature(cp, key) {
            SignatureState::Holds => out.checkpoint = true,
            other => files.push(FileProblem {
                file: "ledger/tree/checkpoint".into(),
                code: "checkpoint_signature".into(),
                detail: format!(
                    "STATS.json names the key {key}, and the checkpoint {} (docs/anchoring.md#signed-checkpoints)",
                    words(&other)
                ),
            }),
        }
    }
    for (i, line) in snapshots
        .unwrap_or_default()
        .split(|&b| b == b'\n')
        .enumerate()
        .filter(|(_, l)| {
            l.starts_with(crate::operator_box::signing::SNAPSHOT_SIGNATURE_PREFIX.as_bytes())
        })
    {
        let named = serde_json::from_slice::<serde_json::Value>(line)
            .ok()
            .and_then(|v| v.get("key").and_then(|k| k.as_str()).map(str::to_string));
        let state = match &named {
            Some(k) => snapshot_signature(line, k),
            None => SignatureState::Broken,
        };
        if state == SignatureState::Holds {
            out.signed_lines += 1;
            if let Some(k) = named {
                if out.keys.last() != Some(&k) {
                    out.keys.push(k.clone());
                }
                last_key = Some(k);
            }
        } else {
            files.push(FileProblem {
                file: "ledger/SNAPSHOTS.jsonl".into(),
                code: "snapshot_signature".into(),
                detail: format!(
                    "line {}: signed, and {} (docs/anchoring.md#signed-snapshots)",
                    i + 1,
                    match named {
                        None => "names no key".to_string(),
                        Some(_) => format!("the signature {}", words(&state)),
                    }
                ),
            });
        }
    }
    if let (Some(key), Some(last)) = (key, &last_key)
        && last != key
    {
        files.push(FileProblem {
            file: "ledger/STATS.json".into(),
            code: "snapshot_signature".into(),
            detail: format!(
                "tree.key is {key}, and the last signed snapshot line is signed by {last} (docs/anchoring.md#signed-snapshots)"
            ),
        });
    }
    out
}

fn words(state: &SignatureState) -> String {
    match state {
        SignatureState::Holds => "holds".into(),
        SignatureState::Unsigned => "is not signed".into(),
        SignatureState::OtherKey(k) => format!("is signed by {k}, another key"),
        SignatureState::Broken => {
            "does not hold: the bytes were altered after they were signed".into()
        }
    }
}
