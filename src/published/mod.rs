//! The published exhibit's forms, shared by the build that writes them and the checks that
//! read them back (docs/protocol.md#output-tree): the grammar of every published path, the
//! output tree of files, the ledger cut into segments, the withheld list in files, the shared
//! encodings, the digest table and the witnesses' cosignature lines. Pure forms: nothing here
//! reads the box, git or DIR.

pub mod cosignature;
pub mod encode;
pub mod entry_ids;
pub mod layout;
pub mod output_tree;
pub mod segments;
pub mod withheld_files;
