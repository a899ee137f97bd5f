//! Stage 5, layers: what `--witness STORE` and `--public-texts` add to the tree. Each layer
//! implements [`Layer`] and reads the build only through [`LayerContext`], defined here, so a
//! layer never imports the orchestrator (docs/protocol.md#witness, #public-texts).

pub mod proof_body;
pub mod report_clocks;
pub mod side_channels;

pub mod proof_records;
pub mod public_texts;
pub mod run_log;
pub mod witness;

use std::path::Path;

use anyhow::Result;
use serde::Serialize;
use serde_json::Value as J;

use super::BuildPlan;
use super::verify::VerifiedLedger;
use crate::previous::Previous;
use crate::terminal::refusal::Refusal;

/// What a layer (witness, public texts) adds to the tree.
#[derive(Debug, Default)]
pub struct LayerOutput {
    pub files: Vec<(String, Vec<u8>)>,
    /// Files not held as bytes of their own (docs/scale.md#memory): the witness store's proofs,
    /// checked and left on disk until DIR is written; the run log's files, made
    /// again from the store's log when written (docs/scale.md#the-run-log-is-not-held).
    pub contents: Vec<(String, crate::published::output_tree::Content)>,
    /// Files named by their digest held as sorted lists, one per folder: a segmented
    /// exhibit's per-line witness proofs, flat and in their buckets
    /// (docs/scale.md#the-proofs-folder-as-a-list), the released texts DIR already holds
    /// (docs/scale.md#texts-listed).
    pub listed: Vec<crate::published::output_tree::ListedFiles>,
    /// Counts with denominators, for STATS.json and SNAPSHOTS.jsonl (set by every layer).
    pub stats: Option<LayerStats>,
    /// Data the page embeds (already privacy-cut).
    pub page_data: J,
    pub refusals: Vec<Refusal>,
    /// Lines for stderr (a person should know, nothing to refuse).
    pub notes: Vec<String>,
    /// The layer changed or removed something published before (under --allow-rewrite): the
    /// publication then does not extend the last one.
    pub rewrote: bool,
    /// What the layer recorded for the next build (crate::previous::file_records), committed only once
    /// DIR is written; dropped otherwise, leaving nothing behind.
    pub records: Vec<crate::previous::file_records::Pending>,
    /// What the layer carries to the next build (crate::previous::carried), saved once DIR is written.
    pub carried: Vec<crate::previous::carried::Carried>,
    /// The public texts layer's released texts, each with the seq of the first published send
    /// line that carries it: where the excerpt index files its rows (docs/tree.md#excerpts).
    pub first_seqs: Vec<(u64, exhibit_protocol::Digest)>,
}

/// A layer's counts, written under the layer's name in `STATS.json` and each `SNAPSHOTS.jsonl`
/// line: each layer's own schema, written as the layer's struct is.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum LayerStats {
    Witness(Box<witness::WitnessStats>),
    PublicTexts(Box<public_texts::TextsStats>),
}

/// What the layers may read of the build.
pub struct LayerContext<'a> {
    pub plan: &'a BuildPlan,
    pub ledger: &'a crate::operator_box::gate_ledger::GateLedger,
    pub verified: &'a VerifiedLedger,
    pub previous: &'a Previous,
    pub ledger_name: &'a str,
    /// The published ledger continues in `ledger/segments/` (docs/scale.md#the-cut): the
    /// witness layer then splits its growing files too (docs/witness.md#parts).
    pub segmented: bool,
    /// Where the files a segmented exhibit's layers make are written as they are made, to be
    /// named as files on disk rather than held (docs/scale.md#made-as-written); `None` on a
    /// dry run, which writes nothing.
    pub made: Option<&'a crate::site_write::staged_files::MadeFiles>,
}

/// One optional layer of the exhibit, published under `ledger/<folder>/`.
pub trait Layer {
    /// The folder under `ledger/` the layer publishes.
    fn folder(&self) -> &'static str;
    /// The flag that turns the layer on, as a refusal names it.
    fn flag(&self) -> &'static str;
    /// The layer's files, counts, page data, refusals and notes.
    fn build(&self, ctx: &LayerContext<'_>) -> Result<LayerOutput>;
}

/// The layers a build ran, in the order they run.
#[derive(Debug, Default)]
pub struct Layers {
    pub witness: Option<LayerOutput>,
    pub public_texts: Option<LayerOutput>,
    /// Every layer's refusals, then the refusals of layers that would vanish.
    pub refusals: Vec<Refusal>,
    /// A layer HEAD publishes that this build leaves off (only under --allow-rewrite): its
    /// files go, so the publication does not extend HEAD's and records the reason.
    pub withdrawn: bool,
}

impl Layers {
    pub fn iter(&self) -> impl Iterator<Item = &LayerOutput> {
        self.witness.iter().chain(self.public_texts.iter())
    }

    pub fn iter_mut(&mut self) -> impl Iterator<Item = &mut LayerOutput> {
        self.witness.iter_mut().chain(self.public_texts.iter_mut())
    }

    /// A layer changed or removed something published before (under --allow-rewrite).
    pub fn rewrote(&self) -> bool {
        self.withdrawn || self.iter().any(|l| l.rewrote)
    }
}

/// Runs the layers the plan turns on, and refuses a layer published before that this build
/// would leave off (published files stay published: docs/protocol.md#publication).
pub fn run(ctx: &LayerContext<'_>) -> Result<Layers> {
    let plan = ctx.plan;
    let witness = plan
        .witness
        .as_deref()
        .map(|store| witness::Witness { store });
    let witness = witness.as_ref().map(|w| w.build(ctx)).transpose()?;
    // What the witness layer let go (the store's records, its proofs' names) is given back
    // before the next layer's lists are made (docs/scale.md#giving-memory-back).
    crate::terminal::memory::give_back();
    let mut layers = Layers {
        witness,
        public_texts: plan
            .public_texts
            .then(|| public_texts::PublicTexts.build(ctx))
            .transpose()?,
        refusals: Vec::new(),
        withdrawn: false,
    };
    let refusals: Vec<Refusal> = layers
        .iter()
        .flat_map(|l| l.refusals.iter().cloned())
        .collect();
    layers.refusals = refusals;
    let off: [(bool, &dyn Layer); 2] = [
        (
            plan.witness.is_some(),
            &witness::Witness {
                store: Path::new(""),
            },
        ),
        (plan.public_texts, &public_texts::PublicTexts),
    ];
    for (on, layer) in off {
        let folder = layer.folder();
        // Any file at any depth (a walk stopped at the first entry): the witness layer's
        // folder holds folders, which a listing of files refuses.
        let published_before = !on
            && !ctx
                .previous
                .visit_walk(&format!("ledger/{folder}"), |_| Ok(false))?;
        // Withdrawn under --allow-rewrite: recorded as a rewrite, with its reason.
        layers.withdrawn |= published_before && plan.allow_rewrite.is_some();
        if published_before && plan.allow_rewrite.is_none() {
            layers.refusals.push(Refusal::new(
"layer_withdrawn",
                format!("ledger/{folder}/"),
                "",
                format!("HEAD publishes ledger/{folder}/ but this build would not: published files stay published (docs/protocol.md#snapshots)"),
                format!("{} (or [publish] in exhibit.toml), or --allow-rewrite REASON to withdraw the layer", layer.flag()),
            ));
        }
    }
    Ok(layers)
}
