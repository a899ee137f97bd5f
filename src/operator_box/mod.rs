//! Reading the operator's box (docs/protocol.md#box): every file of the box read so that it
//! stays in the box and within its class's size ceiling, the gate's ledger read where it lies,
//! the heads the operator posted with their proofs, and the operator's signing key. Nothing here
//! writes; nothing here knows what the publication will be.

pub mod gate_ledger;
pub mod posts;
pub mod read;
pub mod signing;
