//! exhibit: turns an agent's append-only send ledger into a public exhibit a stranger can
//! re-derive (protocol-v0). The stages of `exhibit build` are modules of their own; the
//! verifier and the checks it shares with the page touch no file, clock or git.

pub mod anchors;
pub mod build;
pub mod canonical;
pub mod cli;
pub mod config;
pub mod days;
pub mod gen_box;
pub mod guard;
pub mod ots;
pub mod output;
pub mod previous;
pub mod progress;
pub mod public_texts;
pub mod publish;
pub mod refusal;
pub mod registry;
pub mod render;
pub mod site_check;
pub mod verify;
pub mod verify_cmd;
pub mod witness;
