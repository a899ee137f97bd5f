//! exhibit-testkit: the tools the tests, benches and examples use to make inputs — never part
//! of the product.
//!
//! - [`gen_box`]: a deterministic gate box (ledger, anchors, witness store, public sends).
//! - [`vectors`]: the conformance vectors both verifiers run (`vectors/`).

pub mod gen_box;
pub mod vectors;
