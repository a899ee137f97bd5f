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
pub mod digest;
pub mod guard;
pub mod ots;
pub mod registry;
pub mod verify;
pub mod witness;

pub use digest::Digest;
