//! exhibit-protocol: the protocol as exhibit implements it (docs/protocol.md), pure — no file,
//! clock or git, so another crate (or a WebAssembly build) can reuse the verifier without the
//! build's dependencies.
//!
//! - [`canonical`]: the canonical form of a line (reader, writer, fast scanner).
//! - [`verify`]: the chain verifier; [`verify::verify_reader`] is its one streaming entry point.
//! - [`Digest`]: a sha256 digest, read and written as 64 lowercase hex.
//! - [`days`]: timestamps and the anchor day of an entry.
//! - [`anchors`]: posted heads checked against the ledger.
//! - [`ots`]: the OpenTimestamps header check of a proof.
//! - [`registry`]: the field registry (which fields publish, which are withheld).
//! - [`guard`]: the one identifier guard every published string passes (docs/guard.md).
//! - [`witness`]: the states of a witness proof.
//!
//! No input may make the verifier panic (docs/build.md#safety): outside tests, `unwrap`,
//! `expect` and `panic!` are denied.
#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]

pub mod anchors;
pub mod canonical;
pub mod days;
// Private: its types are the crate's own vocabulary, re-exported below.
mod digest;
pub mod guard;
pub mod ots;
pub mod registry;
pub mod verify;
pub mod witness;

/// A sha256 digest, read and written as 64 lowercase hex; [`NotADigest`] is why a text is not one.
pub use digest::{Digest, NotADigest};

/// The chain verifier's one streaming entry point: reads a ledger line by line, keeping one
/// line in memory; its result is a [`verify::Verified`] (docs/protocol.md#chain).
pub use verify::verify_reader;

/// The whole-buffer verifier, for a ledger already in memory.
pub use verify::verify_bytes;

/// The withheld list (`withheld.json`) the verifier reads beside the ledger
/// (docs/protocol.md#withholding).
pub use verify::Withheld;

/// The anchor checks of every posted head against the ledger (docs/protocol.md#anchors).
pub use anchors::check_posts;
