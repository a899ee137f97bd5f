//! What `exhibit verify` concludes, of a ledger file or of a whole exhibit
//! (docs/protocol.md#verify-json).

use std::path::Path;

use anyhow::{Context, Result};
use serde::Serialize;

use crate::operator_box::posts::AnchorReport;
use exhibit_protocol::Digest;
use exhibit_protocol::verify::{Problem, Report, Withheld};

/// Problems a site check finds beyond the ledger's own (a proof or text whose bytes do not
/// match its name, a missing file).
#[derive(Debug, Clone, Serialize)]
pub struct FileProblem {
    pub file: String,
    pub code: String,
    pub detail: String,
}

/// Everything `verify` found.
#[derive(Debug, Serialize)]
pub struct Outcome {
    pub ok: bool,
    pub entries: u64,
    pub head: Option<Digest>,
    pub problems: Vec<Problem>,
    pub bridged: Vec<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub anchors: Option<Vec<AnchorReport>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub files: Option<Vec<FileProblem>>,
    /// What `verify SITE` found of the tree view (docs/tree.md#verifiers).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tree: Option<crate::site_check::tree::TreeReport>,
}

pub fn read_withheld(path: &Path) -> Result<Withheld> {
    let bytes = crate::operator_box::read::read_named(
        path,
        crate::operator_box::read::FileClass::Withheld,
    )?
    .with_context(|| format!("{}: no such file", path.display()))?;
    Withheld::from_json(&bytes).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))
}

/// Joins a ledger report with the anchor and file checks; `ok` only when all are.
pub fn outcome(
    report: Report,
    anchors: Option<Vec<AnchorReport>>,
    files: Option<Vec<FileProblem>>,
) -> Outcome {
    let ok = report.ok
        && anchors.iter().flatten().all(AnchorReport::ok)
        && files.iter().flatten().next().is_none();
    Outcome {
        ok,
        entries: report.entries,
        head: if ok { report.head } else { None },
        problems: report.problems,
        bridged: report.bridged,
        anchors,
        files,
        tree: None,
    }
}
