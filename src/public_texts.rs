//! Public texts (protocol-v0 §6 `public_texts/`). Being built: see issue 5.

use anyhow::Result;

use crate::build::{LayerContext, LayerOutput};

pub fn build(_ctx: &LayerContext<'_>) -> Result<LayerOutput> {
    anyhow::bail!("--public-texts is not available in this version of exhibit yet")
}
