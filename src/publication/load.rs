//! Stage 1, load: read the box that exhibit.toml describes. I/O errors name their path (exit 2).

use anyhow::Result;

use super::BuildPlan;
use crate::operator_box::gate_ledger::GateLedger;
use crate::operator_box::posts;
use exhibit_protocol::anchors;

/// The box as read from disk.
pub struct LoadedBox {
    /// The ledger's path, as messages name it.
    pub name: String,
    /// Open, not held: each stage reads the lines it needs (docs/scale.md#the-gates-ledger-is-not-held).
    /// Shared with the output tree's ledger files, which are spans of it.
    pub ledger: std::sync::Arc<GateLedger>,
    pub posts: Vec<(anchors::Post, Option<Vec<u8>>)>,
}

/// Stage 1: read the box. I/O errors name their path (exit 2).
pub fn load(plan: &BuildPlan) -> Result<LoadedBox> {
    let path = &plan.config.ledger;
    if let Err(e) = std::fs::symlink_metadata(path)
        && e.kind() == std::io::ErrorKind::NotFound
    {
        anyhow::bail!("{}: the gate's ledger does not exist", path.display());
    }
    // A regular file within its ceiling (docs/build.md#safety); only its complete lines are
    // read: the gate may be writing the last one.
    let ledger = GateLedger::open(path)?;
    let posts = match &plan.config.anchors {
        Some(dir) if dir.is_dir() => posts::read_box_posts(dir)?,
        Some(dir) => anyhow::bail!(
            "{}: the anchors folder named in {} does not exist",
            dir.display(),
            plan.config.file.display()
        ),
        None => Vec::new(),
    };
    Ok(LoadedBox {
        name: plan.config.ledger.display().to_string(),
        ledger: std::sync::Arc::new(ledger),
        posts,
    })
}
