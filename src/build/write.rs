//! Stage 8, write: the notes a person should read, then the tree swapped into the output folder
//! (or, under --dry-run, the diff of what would change) (docs/protocol.md#output-tree).

use std::process::ExitCode;

use anyhow::{Context, Result};

use super::BuildPlan;
use super::anchors::anchor_notes;
use super::assemble::Assembled;
use super::decide::Decided;
use super::layers::Layers;
use super::load::LoadedBox;
use crate::output;
use crate::progress::Progress;

pub fn run(
    plan: &BuildPlan,
    loaded: &LoadedBox,
    decided: &Decided,
    layers: &Layers,
    assembled: &Assembled,
    progress: &mut Progress,
) -> Result<ExitCode> {
    for note in layers
        .iter()
        .flat_map(|l| l.notes.iter())
        .chain(anchor_notes(&decided.anchor_reports).iter())
    {
        crate::say!("exhibit: note: {note}");
    }
    if !decided.decision.sticky.is_empty() {
        crate::say!(
            "exhibit: note: {} seq(s) stay withheld because an earlier publication withheld them",
            decided.decision.sticky.len()
        );
    }
    if loaded.unterminated_tail > 0 {
        crate::say!(
            "exhibit: note: {}: the last {} byte(s) have no LF (the gate may be writing that line); left out of this build",
            loaded.name,
            loaded.unterminated_tail
        );
    }
    progress.done();
    let dir_name = plan.out.display().to_string();
    for line in output::clean_leftovers(&plan.out, plan.dry_run)? {
        crate::say!("exhibit: note: {line}");
    }
    if plan.dry_run {
        let on_disk = output::read_tree(&plan.out)?;
        crate::terminal::to_stdout(&output::describe_changes(
            &dir_name,
            &on_disk,
            &assembled.tree,
        ))
        .context("stdout: cannot write the dry run's report")?;
    } else {
        output::write_tree(&plan.out, &assembled.tree)?;
        crate::terminal::to_stdout(&format!(
            "built {}/: {} of {} lines published, {} withheld; head {}; {}\n",
            crate::terminal::escape(&dir_name),
            decided
                .verified
                .lines
                .iter()
                .filter(|r| r.published())
                .count(),
            decided.verified.lines.len(),
            decided.withheld.len(),
            decided.verified.head,
            if assembled.snapshots.appended {
                if assembled.extends {
                    "snapshot appended (extends the last)".to_string()
                } else {
                    format!(
                        "snapshot appended (extends: false, reason: {})",
                        plan.allow_rewrite.as_deref().unwrap_or("")
                    )
                }
            } else {
                "published content unchanged: no snapshot appended".to_string()
            }
        ))
        .context("stdout: cannot write the build's summary (the tree was written)")?;
    }
    Ok(ExitCode::SUCCESS)
}
