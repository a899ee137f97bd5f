//! exhibit: turns an agent's append-only send ledger into a public exhibit a stranger can
//! re-derive (protocol-v0). The stages of `exhibit build` are modules of their own; the
//! verifier and the checks it shares with the page touch no file, clock or git.

pub mod anchors;
pub mod canonical;
pub mod cli;
pub mod days;
pub mod ots;
pub mod shapes;
pub mod site_check;
pub mod text_guard;
pub mod verify;
pub mod verify_cmd;
pub mod config;
pub mod output;
pub mod previous;
pub mod publish;
pub mod refusal;
pub mod registry;
pub mod gen_box;
pub mod build;
pub mod progress;
pub mod public_texts;
pub mod render;
pub mod witness;
