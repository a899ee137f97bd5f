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

pub mod blob_digests;
pub mod box_read;
pub mod build;
pub mod carried;
pub mod cli;
pub mod config;
pub mod cosign_cmd;
pub mod cosignature;
pub mod dir_stat;
pub mod dir_walk;
pub mod dir_write;
pub mod encode;
pub mod five_bytes;
pub mod gate_ledger;
pub mod head_check;
pub mod hosting;
pub mod init;
pub mod json_schema;
pub mod layout;
pub mod ledger_files;
pub mod ledger_seqs;
pub mod line_verdicts;
pub mod listed_parts;
pub mod made_files;
pub mod memory;
pub mod open_folders;
pub mod outcome;
pub mod output;
pub mod page_check;
pub mod page_days;
pub mod posts;
pub mod previous;
pub mod progress;
pub mod proof_body;
pub mod prove_cmd;
pub mod publication_trust;
pub mod refusal;
pub mod report_clocks;
pub mod segments;
pub mod serve;
pub mod side_channels;
pub mod signature_check;
pub mod signing;
pub mod site_check;
pub mod snapshot_check;
pub mod sorted_ids;
pub mod stat_records;
pub mod stats_figures;
pub mod terminal;
pub mod text_lines;
pub mod text_parts;
pub mod tree_check;
pub mod verify_cmd;
pub mod withheld_files;
pub mod witness_parts;
pub mod write_journal;
