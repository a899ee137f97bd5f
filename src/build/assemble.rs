//! Stage 6, assemble: the output tree — the published ledger, withheld list, readings, anchors,
//! the layers' files, `STATS.json` and `SNAPSHOTS.jsonl` (docs/protocol.md#output-tree).

use exhibit_protocol::Digest;
use std::collections::BTreeMap;

use anyhow::{Context, Result};
use serde_json::{Value as J, json};

use super::BuildPlan;
use super::anchors::anchors_index;
use super::decide::{self, Decided, Decision};
use super::layers::{LayerOutput, Layers};
use super::load::LoadedBox;
use super::verify::VerifiedLedger;
use crate::encode::{of, pretty};
use crate::output::Tree;
use crate::posts::{AnchorReport, ProofState};
use crate::previous::Previous;
use exhibit_protocol::anchors::{FormatState, HeadState};

/// The assembled tree, before the page is rendered into it.
pub struct Assembled {
    pub tree: Tree,
    pub snapshots: Snapshots,
    /// The publication extends HEAD's (no rewrite by the ledger or a layer).
    pub extends: bool,
}

pub fn run(
    plan: &BuildPlan,
    loaded: &LoadedBox,
    decided: &Decided,
    layers: &mut Layers,
    previous: &Previous,
) -> Result<Assembled> {
    let verified = &decided.verified;
    let extends = decided.extends && !layers.rewrote();
    let mut tree = Tree::default();
    tree.put(".nojekyll", Vec::new());
    tree.put("ledger/.gitattributes", b"* -text\n".to_vec());
    tree.put("ledger/ledger.jsonl", decided.published_ledger.clone());
    tree.put("ledger/withheld.json", pretty(&decided.withheld));
    if !decided.decision.readings.lines.is_empty() {
        tree.put("ledger/readings.json", pretty(&decided.decision.readings));
    }
    put_anchors(&mut tree, decided, loaded);
    // Moved, not copied: at a million lines the witness proofs alone are large.
    for layer in layers.iter_mut() {
        for (path, bytes) in std::mem::take(&mut layer.files) {
            tree.put(path, bytes);
        }
    }
    let stats = stats(
        verified,
        &decided.decision,
        &decided.coverage,
        &decided.anchor_reports,
        loaded,
        layers.witness.as_ref(),
        layers.public_texts.as_ref(),
    );
    tree.put("ledger/STATS.json", pretty(&stats));

    let snapshots = snapshots(previous, &tree, verified, plan, extends, &stats)?;
    tree.put("ledger/SNAPSHOTS.jsonl", snapshots.bytes.clone());
    Ok(Assembled {
        tree,
        snapshots,
        extends,
    })
}

/// The posts whose text is the exact posted form, their proofs, and `anchors/index.json`.
fn put_anchors(tree: &mut Tree, decided: &Decided, loaded: &LoadedBox) {
    let anchors_index = anchors_index(
        &decided.anchor_reports,
        &decided.verified,
        loaded.complete(),
    );
    for (report, (post, proof)) in decided.anchor_reports.iter().zip(&loaded.posts) {
        // A post whose text is not the exact posted form may hold anything: withheld, listed.
        if report.check.format == FormatState::Ok {
            tree.put(
                format!("ledger/anchors/{}.txt", post.date),
                post.bytes.clone(),
            );
            // A proof is published only when its header check passes (docs/build.md#safety).
            if let Some(proof) = proof
                && report.proof == ProofState::Ok
            {
                tree.put(
                    format!("ledger/anchors/{}.txt.ots", post.date),
                    proof.clone(),
                );
            }
        }
    }
    tree.put("ledger/anchors/index.json", pretty(&anchors_index));
}

#[allow(clippy::too_many_arguments)]
fn stats(
    verified: &VerifiedLedger,
    decision: &Decision,
    coverage: &decide::Coverage,
    anchors: &[AnchorReport],
    loaded: &LoadedBox,
    witness: Option<&LayerOutput>,
    texts: Option<&LayerOutput>,
) -> J {
    let total = verified.lines.len();
    let published = verified.lines.iter().filter(|r| r.published()).count();
    let withheld = total - published;
    let mut by_field: BTreeMap<String, usize> = BTreeMap::new();
    for w in verified.lines.iter().filter_map(|r| r.withheld.as_ref()) {
        for f in &w.fields_flagged {
            *by_field.entry(f.clone()).or_default() += 1;
        }
    }
    let posts = anchors.len();
    let mut s = json!({
        "schema": "exhibit/stats/v1",
        "ledger": {
            "entries": total,
            "head": verified.head,
            "head_seq": verified.lines.last().map(|r| r.seq),
            "header_digest": verified.header_digest,
            "anchor_tz": verified.anchor_tz,
            // The tz database the days were checked with; the page carries its rules for this
            // zone (docs/verifier.md "Days and the tz database").
            "tzdb": exhibit_protocol::days::tzdb_version(),
            "unterminated_tail_bytes_left_out": loaded.unterminated_tail,
        },
        "lines": {
            "published": of(published, total),
            "withheld": of(withheld, total),
            "withheld_by_field": by_field.into_iter().map(|(f, n)| (f, json!(of(n, withheld)))).collect::<serde_json::Map<_, _>>(),
            "published_on_operator_reading": of(decision.readings.lines.len(), published),
        },
        "coverage": {
            "pinned": of(coverage.pinned.len(), published),
            "severed": of(coverage.severed.len(), published),
            "awaiting_head": of(coverage.awaiting_head.len(), published),
            "severed_seqs": coverage.severed,
            "awaiting_head_seqs": coverage.awaiting_head,
            "posted_heads": posts,
        },
        "anchors": {
            "posts": posts,
            "ok": of(anchors.iter().filter(|a| a.ok()).count(), posts),
            "not_ok": of(anchors.iter().filter(|a| !a.ok()).count(), posts),
            "proof_header_ok": of(anchors.iter().filter(|a| a.proof == ProofState::Ok).count(), posts),
            "head_on_withheld_digest": of(anchors.iter().filter(|a| a.check.head == HeadState::LabWord).count(), posts),
        },
    });
    if let Some(w) = witness {
        s["witness"] = w.stats.clone();
    }
    if let Some(t) = texts {
        s["public_texts"] = t.stats.clone();
    }
    s
}

pub struct Snapshots {
    pub bytes: Vec<u8>,
    pub appended: bool,
    pub last_built_at: String,
}

/// SNAPSHOTS.jsonl (docs/protocol.md#snapshots): HEAD's lines, plus one for this publication when its content changed.
fn snapshots(
    previous: &Previous,
    tree: &Tree,
    verified: &VerifiedLedger,
    plan: &BuildPlan,
    extends: bool,
    stats: &J,
) -> Result<Snapshots> {
    let old = previous.read("ledger/SNAPSHOTS.jsonl")?.unwrap_or_default();
    // The same computation checks HEAD before it is trusted (crate::head_check).
    let digests = J::Object(crate::head_check::snapshot_digests(
        tree.files
            .range("ledger/".to_string()..)
            .take_while(|(p, _)| p.starts_with("ledger/"))
            .map(|(p, b)| (p.as_str(), Digest::of(b).to_string())),
    ));
    let last: Option<J> = old
        .split(|&b| b == b'\n')
        .rfind(|l| !l.is_empty())
        .map(|l| {
            serde_json::from_slice(l)
                .context("HEAD:ledger/SNAPSHOTS.jsonl: its last line is not JSON")
        })
        .transpose()?;
    if let Some(last) = &last
        && last.get("digests") == Some(&digests)
        && plan.allow_rewrite.is_none()
    {
        return Ok(Snapshots {
            bytes: old,
            appended: false,
            last_built_at: last["built_at"].as_str().unwrap_or_default().to_string(),
        });
    }
    let published = verified.lines.iter().filter(|r| r.published()).count();
    let line = json!({
        "built_at": plan.built_at,
        "lines": published,
        "withheld": verified.lines.len() - published,
        "head": verified.head,
        "head_seq": verified.lines.last().map(|r| r.seq),
        "digests": digests,
        "extends_commit": previous.commit,
        "extends": extends,
        "rewrite_reason": if extends { None } else { plan.allow_rewrite.clone() },
        "witness": stats.get("witness").cloned(),
        "public_texts": stats.get("public_texts").cloned(),
    });
    let mut bytes = old;
    bytes.extend_from_slice(&serde_json::to_vec(&line)?);
    bytes.push(b'\n');
    Ok(Snapshots {
        bytes,
        appended: true,
        last_built_at: plan.built_at.clone(),
    })
}
