//! `exhibit verify SITE_DIR`: a built or cloned exhibit checked as a stranger would — the same
//! answers the page gives, from the command line (issue: "A stranger's check of a published
//! tree"). Reads only the published tree; trusts nothing the build wrote about itself.

use std::path::Path;

use anyhow::{Context, Result, bail};

use crate::outcome::{self, FileProblem, Outcome};
use crate::posts;
use exhibit_protocol::canonical;
use exhibit_protocol::ots;
use exhibit_protocol::verify::Withheld;

pub fn check_site(dir: &Path) -> Result<Outcome> {
    let ledger_dir = dir.join("ledger");
    let ledger_path = ledger_dir.join("ledger.jsonl");
    if !ledger_path.is_file() {
        bail!(
            "{}: not an exhibit: {} is missing (give a ledger file, or the directory `exhibit build --out` wrote)",
            dir.display(),
            ledger_path.display()
        );
    }
    let withheld_path = ledger_dir.join("withheld.json");
    let withheld = if withheld_path.exists() {
        outcome::read_withheld(&withheld_path)?
    } else {
        Withheld::default()
    };
    let bytes = std::fs::read(&ledger_path)
        .with_context(|| format!("{}: cannot read", ledger_path.display()))?;

    let exhibit_protocol::anchors::Checked {
        report,
        facts,
        header_digest,
    } = exhibit_protocol::anchors::verify_and_collect(&bytes, &withheld);

    let anchors_dir = ledger_dir.join("anchors");
    let anchors = if anchors_dir.is_dir() {
        Some(posts::check_anchor_dir(
            &anchors_dir,
            &facts,
            &withheld,
            header_digest.as_deref(),
        )?)
    } else {
        None
    };

    let mut files = Vec::new();
    check_witness_proofs(&ledger_dir.join("witness"), &mut files)?;
    check_public_texts(&ledger_dir.join("public_texts"), &mut files)?;
    Ok(outcome::outcome(report, anchors, Some(files)))
}

/// Every published proof must commit to the digest its name gives (§5b).
fn check_witness_proofs(witness: &Path, files: &mut Vec<FileProblem>) -> Result<()> {
    let proofs = witness.join("proofs");
    if !proofs.is_dir() {
        return Ok(());
    }
    for (name, path) in sorted_files(&proofs)? {
        let Some(stem) = name.strip_suffix(".ots") else {
            continue;
        };
        let digest = stem.strip_prefix("prereg_").unwrap_or(stem);
        let rel = format!("ledger/witness/proofs/{name}");
        if !canonical::is_digest(digest) {
            files.push(FileProblem {
                file: rel,
                code: "bad_name".into(),
                detail: "a proof's name must be <entry_id>.ots or prereg_<sha256>.ots".into(),
            });
            continue;
        }
        let bytes =
            std::fs::read(&path).with_context(|| format!("{}: cannot read", path.display()))?;
        if let Err(p) = ots::check(&bytes, digest) {
            files.push(FileProblem {
                file: rel,
                code: format!("proof_{}", p.code()),
                detail: format!("the proof {p} than its name says"),
            });
        }
    }
    Ok(())
}

/// Every released text must hash to its own name (§6: "sha256sum public_texts/<sent_sha256>.txt
/// against the file's own name").
fn check_public_texts(texts: &Path, files: &mut Vec<FileProblem>) -> Result<()> {
    if !texts.is_dir() {
        return Ok(());
    }
    for (name, path) in sorted_files(texts)? {
        let Some(stem) = name.strip_suffix(".txt") else {
            continue;
        };
        let bytes =
            std::fs::read(&path).with_context(|| format!("{}: cannot read", path.display()))?;
        let actual = canonical::sha256_hex(&bytes);
        if actual != stem {
            files.push(FileProblem {
                file: format!("ledger/public_texts/{name}"),
                code: "text_digest_mismatch".into(),
                detail: format!("the bytes hash to {actual}, not to the name"),
            });
        }
    }
    Ok(())
}

fn sorted_files(dir: &Path) -> Result<Vec<(String, std::path::PathBuf)>> {
    let mut out = Vec::new();
    for entry in
        std::fs::read_dir(dir).with_context(|| format!("{}: cannot list", dir.display()))?
    {
        let entry = entry.with_context(|| format!("{}: cannot list", dir.display()))?;
        if entry.file_type()?.is_file() {
            out.push((
                entry.file_name().to_string_lossy().into_owned(),
                entry.path(),
            ));
        }
    }
    out.sort();
    Ok(out)
}
