//! Every integration test in one binary (mdBook's `tests/testsuite` pattern): the product and
//! libgit2 are linked once instead of once per file. Run one module with
//! `cargo test --test testsuite MODULE::` (e.g. `cargo test --test testsuite fixtures::`).

mod common;

mod anchoring;
mod attack_segments;
mod build_scenario;
mod carried_state;
mod cosign;
mod cosign_vectors;
mod differential;
mod excerpt_after_full;
mod excerpt_crowded;
mod excerpt_page;
mod fixtures;
mod fn_length;
mod gen_box;
mod guard;
mod json_outputs;
mod light_page;
mod module_graph;
mod operator;
mod operator_day;
mod page_e2e;
mod page_shell;
mod properties;
mod public_texts;
mod safety;
mod segments;
mod signed_site;
mod site_agreement;
mod tree;
mod tree_carried;
mod vectors;
mod verify_cli;
mod withheld_files;
mod witness;
mod witness_parts;
mod write_discipline;
