//! exhibit: turns an agent's append-only send ledger into a public exhibit a stranger can
//! re-derive (docs/protocol.md#verifier-report). The stages of `exhibit build` are modules of their own; the
//! verifier and the checks it shares with the page touch no file, clock or git.
//!
//! No input may make exhibit panic (docs/build.md#safety): outside tests, `unwrap`, `expect` and
//! `panic!` are denied, so every failure is an error with a path, or a refusal.
#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]

// The rooms, in the order they may use one another: a room uses only the rooms declared
// before it (tests/testsuite/module_graph.rs; ARCHITECTURE.md "Rooms"). Each is its own
// group, so that rustfmt keeps the order.

/// What exhibit says: escaped terminal output, progress and stage marks, refusals, JSON schemas.
pub mod terminal;

/// Reading the operator's box: files within their ceilings, the gate's ledger, the posted heads, the key.
pub mod operator_box;

/// The published exhibit's forms, shared by the build and the checks: paths, the output tree, segments.
pub mod published;

/// The previous publication at git HEAD, checked and trusted, and what earlier builds remembered.
pub mod previous;

/// Writing DIR as a static log: new files, changed files, the heads last, under a journal.
pub mod site_write;

/// `exhibit build`'s pipeline: load → verify → history → decide → layers → assemble → render → write.
pub mod publication;

/// `exhibit verify SITE`: a built or cloned exhibit checked as a stranger would.
pub mod site_check;

/// The command line: flags become one plan; `build`, `verify`, `prove`, `cosign`, `init`, `serve`.
pub mod cli;
