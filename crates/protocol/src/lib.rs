//! exhibit-protocol: the protocol as exhibit implements it (docs/protocol.md), pure — no file,
//! clock or git, so another crate (or a WebAssembly build) can reuse the verifier without the
//! build's dependencies.
//!
//! The crate's vocabulary is re-exported here, at the root: a caller verifies a ledger with
//! [`verify_reader`] (or [`verify_bytes`]) against a [`Withheld`] list and reads the [`Report`];
//! checks posted heads with [`check_posts`]; holds every digest as a [`Digest`]. The modules
//! are the protocol's areas, for what goes beyond that:
//!
//! - [`canonical`]: the canonical form of a line (reader, writer, fast scanner).
//! - [`verify`]: the chain verifier and its report (docs/protocol.md#chain).
//! - [`days`]: timestamps and the anchor day of an entry.
//! - [`anchors`]: posted heads checked against the ledger (docs/protocol.md#anchors).
//! - [`ots`]: the OpenTimestamps header check of a proof, its body read, and its operations
//!   evaluated to each attestation (docs/anchoring.md).
//! - [`registry`]: the field registry (which fields publish, which are withheld).
//! - [`guard`]: the one identifier guard every published string passes (docs/guard.md).
//!
//! Every fallible function returns a typed error ([`WithheldError`], [`RegistryError`],
//! [`ReadError`], [`OtsProblem`], [`NotADigest`], [`canonical::ParseError`]) whose `Display`
//! is the words a person reads.
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
// Private: their types are the crate's own vocabulary, re-exported below.
mod digest;
pub mod excerpt;
pub mod guard;
pub mod ots;
pub mod registry;
pub mod tree;
pub mod verify;
mod witness;

/// A sha256 digest, read and written as 64 lowercase hex; [`NotADigest`] is why a text is not one.
pub use digest::{Digest, NotADigest};

/// The chain verifier's one streaming entry point: reads a ledger line by line, keeping one
/// line in memory; its result is a [`Verified`] (docs/protocol.md#chain). [`Pass`] says
/// whether the caller sees each entry.
pub use verify::{Pass, Verified, verify_reader};

/// The whole-buffer verifier, for a ledger already in memory.
pub use verify::verify_bytes;

/// What the verifier concludes (docs/protocol.md#verify-json): `ok`, the head, and every
/// [`Problem`] with its stable [`Code`] (docs/protocol.md#problem-codes).
pub use verify::{Code, Problem, Report};

/// A readable entry line as the verifier hands it to the caller, and the header of line 1.
pub use verify::{Entry, Header};

/// Why a ledger could not be read at all (an I/O error of the reader, with its line).
pub use verify::ReadError;

/// The withheld list (`withheld.json`) the verifier reads beside the ledger
/// (docs/protocol.md#withholding), one [`WithheldEntry`] per seq; [`WithheldError`] is why a
/// list is refused.
pub use verify::{ItemProblem, Withheld, WithheldEntry, WithheldError};

/// The anchor checks of every posted head against the ledger (docs/protocol.md#anchors).
pub use anchors::{AnchorCheck, EntryFacts, Post, PostedHead, check_posts};

/// How each of a post's checks came out, as `anchors/index.json` words it.
pub use anchors::{DayClosedState, FormatState, HeadState, LedgerLineState};

/// Why a proof's OpenTimestamps header does not commit to what its name says.
pub use ots::OtsProblem;

/// The field registry and why an operator's admitted fields make none.
pub use registry::{Registry, RegistryError, Verdict};

/// A witness store entry's status (docs/protocol.md#witness).
pub use witness::Status as WitnessStatus;
