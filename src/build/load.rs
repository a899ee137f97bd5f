//! Stage 1, load: read the box that exhibit.toml describes. I/O errors name their path (exit 2).

use anyhow::{Context, Result};

use super::BuildPlan;
use crate::posts;
use exhibit_protocol::anchors;

/// The box as read from disk.
pub struct LoadedBox {
    /// The ledger's path, as messages name it.
    pub name: String,
    /// Shared with the output tree's ledger files, which are spans of it (docs/scale.md#memory).
    pub ledger: std::sync::Arc<Vec<u8>>,
    /// Bytes after the last LF: the gate may be writing that line (left out and said).
    pub unterminated_tail: usize,
    pub posts: Vec<(anchors::Post, Option<Vec<u8>>)>,
}

impl LoadedBox {
    /// The ledger up to its last LF: the lines the build reads.
    pub fn complete(&self) -> &[u8] {
        &self.ledger[..self.ledger.len() - self.unterminated_tail]
    }
}

/// Stage 1: read the box. I/O errors name their path (exit 2).
pub fn load(plan: &BuildPlan) -> Result<LoadedBox> {
    let path = &plan.config.ledger;
    // A regular file within its ceiling (docs/build.md#safety).
    let ledger = crate::box_read::read_named(path, crate::box_read::FileClass::Ledger)
        .with_context(|| format!("{}: cannot read the gate's ledger", path.display()))?
        .with_context(|| format!("{}: the gate's ledger does not exist", path.display()))?;
    let unterminated_tail = match ledger.iter().rposition(|&b| b == b'\n') {
        Some(i) => ledger.len() - i - 1,
        None => ledger.len(),
    };
    let posts = match &plan.config.anchors {
        Some(dir) if dir.is_dir() => posts::read_posts(dir)?,
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
        unterminated_tail,
        posts,
    })
}
