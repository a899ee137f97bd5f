//! exhibit-testkit: the tools the tests, benches and examples use to make inputs — never part
//! of the product.
//!
//! - [`gen_box`]: a deterministic gate box (ledger, anchors, witness store, public sends).
//! - [`vectors`]: the conformance vectors both verifiers run (`vectors/`).
//! - [`tree_vectors`]: the tree's cases both implementations answer (`vectors/tree.json`).
//! - [`excerpt_vectors`]: the excerpt index's cases both implementations answer (`vectors/excerpt.json`).
//! - [`ots_vectors`]: the OpenTimestamps evaluators' cases (`vectors/ots.json`).

pub mod excerpt_vectors;
pub mod gen_box;
pub mod ots_vectors;
pub mod tree_vectors;
pub mod vectors;
