//! The per-line witness layer (protocol-v0 §5b). Being built: see issue 4.

use std::path::Path;

use anyhow::Result;

use crate::build::{LayerContext, LayerOutput};

pub fn build(_ctx: &LayerContext<'_>, store: &Path) -> Result<LayerOutput> {
    anyhow::bail!(
        "{}: --witness is not available in this version of exhibit yet",
        store.display()
    )
}
