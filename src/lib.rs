//! exhibit: turns an agent's append-only send ledger into a public exhibit a stranger can
//! re-derive (protocol-v0). The stages of `exhibit build` are modules of their own; the
//! verifier and the checks it shares with the page touch no file, clock or git.

pub mod build;
pub mod cli;
pub mod config;
pub mod encode;
pub mod outcome;
pub mod output;
pub mod posts;
pub mod previous;
pub mod progress;
pub mod refusal;
pub mod site_check;
pub mod verify_cmd;
