//! Stage 8, write: the notes a person should read, then the tree written into the output folder
//! as a static log is (docs/build.md#the-write; or, under --dry-run, the review of what would
//! change), said in words or as JSON (docs/protocol.md#output-tree, docs/operator.md#build-json).

use std::process::ExitCode;

use anyhow::Result;

use super::BuildPlan;
use super::anchors::anchor_notes;
use super::assemble::{Assembled, LineCounts};
use super::decide::Decided;
use super::layers::Layers;
use super::load::LoadedBox;
use super::report::{self, Built, Snapshot};

/// What the write stage says of the build: its notes and counts (the lines' counted before
/// the per-line records were let go: docs/scale.md#the-chain-read-by-the-tree).
pub struct Summary {
    notes: Vec<String>,
    built: Built,
}

impl Summary {
    pub fn of(
        plan: &BuildPlan,
        loaded: &LoadedBox,
        decided: &Decided,
        counts: &LineCounts,
        layers: &Layers,
        assembled: &Assembled,
    ) -> Summary {
        let extends = assembled.extends;
        let appended = assembled.snapshots.appended;
        Summary {
            notes: notes(loaded, decided, layers),
            built: Built {
                lines: counts.total as u64,
                published: counts.published as u64,
                withheld: counts.withheld() as u64,
                head: decided.verified.head,
                head_seq: counts.head_seq,
                first_publication: false,
                in_git: true,
                snapshot: Snapshot {
                    appended,
                    extends,
                    rewrite_reason: if appended && !extends {
                        plan.allow_rewrite.clone()
                    } else {
                        None
                    },
                },
            },
        }
    }
}

impl Summary {
    /// Whether this is a first publication in DIR and whether DIR lies in a git checkout: the
    /// summary claims no history where there is none (docs/operator.md#first-publication).
    pub fn set_history(&mut self, first: bool, in_git: bool) {
        self.built.first_publication = first;
        self.built.in_git = in_git;
    }
}

pub fn run(
    plan: &BuildPlan,
    summary: Summary,
    assembled: &Assembled,
    (git_dir, journal): (Option<&std::path::Path>, &std::path::Path),
) -> Result<(ExitCode, crate::site_write::dir_record::KeptByRecord)> {
    let Summary { mut notes, built } = summary;
    // Folders of made files a killed build left beside DIR (docs/build.md#safety).
    notes.extend(crate::site_write::out_dir::clean_leftovers(
        &plan.out,
        plan.dry_run,
    )?);
    report::finish(plan, &assembled.tree, &built, &notes, (git_dir, journal))
}

/// What a person should know and nothing refuses: layers' notes, anchors that do not check
/// out, seqs kept withheld, a line the gate is still writing.
fn notes(loaded: &LoadedBox, decided: &Decided, layers: &Layers) -> Vec<String> {
    let mut notes: Vec<String> = layers
        .iter()
        .flat_map(|l| l.notes.iter().cloned())
        .chain(anchor_notes(&decided.anchor_reports))
        .collect();
    if !decided.decision.sticky.is_empty() {
        notes.push(format!(
            "{} seq(s) stay withheld because an earlier publication withheld them",
            decided.decision.sticky.len()
        ));
    }
    if loaded.ledger.unterminated_tail() > 0 {
        notes.push(format!(
            "{}: the last {} byte(s) have no LF (the gate may be writing that line); left out of this build",
            loaded.name,
            loaded.ledger.unterminated_tail()
        ));
    }
    notes
}
