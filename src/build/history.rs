//! Stage 3, history: what the publication at git HEAD binds this build to
//! (docs/protocol.md#sticky-history).

use anyhow::{Context, Result};

use super::decide::{History, Readings};
use crate::previous::Previous;
use exhibit_protocol::canonical;
use exhibit_protocol::verify::Withheld;

/// What HEAD's publication binds this build to.
/// `head_trusted`: HEAD re-derives to its last snapshot (crate::head_check); when it does not
/// (passed on --allow-rewrite), its readings are not taken on trust.
pub fn read_history(previous: &Previous, head_trusted: bool) -> Result<History> {
    let mut history = History::default();
    if let Some(bytes) = previous.read("ledger/withheld.json")? {
        history.withheld = Withheld::from_json(&bytes)
            .map_err(|e| anyhow::anyhow!("HEAD:ledger/withheld.json: {e}"))?;
    }
    if let Some(bytes) = previous.read("ledger/ledger.jsonl")? {
        for (_, piece, _) in exhibit_protocol::verify::lines(&bytes).skip(1) {
            if let Ok(parsed) = canonical::parse(piece)
                && let Some(seq) = parsed.value.as_object().and_then(|o| o.get_int("seq"))
            {
                history.published_seqs.insert(seq);
            }
        }
        history.ledger = Some(bytes);
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
