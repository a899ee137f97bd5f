//! `exhibit verify`: a ledger file, streamed (docs/protocol.md#verifier-report), or a whole exhibit directory.

use std::io::{BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, bail};

use crate::operator_box::posts::{check_posts_with_proofs, read_posts};
use crate::site_check::outcome::{Outcome, outcome, read_withheld};
use exhibit_protocol::anchors::{EntryFacts, KeptFacts, Post};
use exhibit_protocol::verify::{Entry, Pass, Withheld, verify_reader};

#[derive(Debug)]
pub struct VerifyPlan {
    pub json: bool,
    pub withheld: Option<PathBuf>,
    pub anchors: Option<PathBuf>,
    pub path: PathBuf,
}

pub fn run(plan: &VerifyPlan) -> Result<ExitCode> {
    let outcome = if plan.path.is_dir() {
        if plan.withheld.is_some() || plan.anchors.is_some() {
            bail!(
                "{}: is an exhibit directory; --withheld and --anchors go with a bare ledger file (the directory's own ledger/withheld.json and ledger/anchors/ are used)",
                plan.path.display()
            );
        }
        let mut outcome = crate::site_check::check_site(&plan.path)?;
        interrupted(&plan.path, &mut outcome);
        outcome
    } else {
        let withheld = match &plan.withheld {
            Some(path) => read_withheld(path)?,
            None => Withheld::default(),
        };
        verify_ledger_file(&plan.path, &withheld, plan.anchors.as_deref())?
    };
    let mut report = Vec::new();
    if plan.json {
        let tagged = crate::terminal::json_schema::Tagged {
            schema: crate::terminal::json_schema::VERIFY,
            body: &outcome,
        };
        serde_json::to_writer(&mut report, &tagged)?;
        writeln!(report)?;
    } else {
        write_words(&mut report, &plan.path, &outcome)?;
    }
    // Words quote inputs (a file name, a field): printed with control characters escaped. A
    // reader that closed the pipe early (`exhibit verify SITE | head -1`) took what it wanted:
    // the exit status is still the verdict's, with no message.
    let report = String::from_utf8_lossy(&report);
    let report = if plan.json {
        crate::terminal::json_escaped(&report)
    } else {
        report
    };
    match crate::terminal::to_stdout(&report) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        written => written.context("stdout: cannot write the report")?,
    }
    Ok(if outcome.ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// A build of SITE that was interrupted while it wrote it leaves its journal in the repository's
/// git folder (docs/build.md#the-journal): found from SITE's path (the verifier itself reads
/// only SITE), it is a problem named by the journal — the files may be part old, part new.
/// SITE in no repository, or one git cannot open, has no journal to find but beside it.
fn interrupted(site: &Path, outcome: &mut Outcome) {
    let Ok(journal) = crate::site_write::journal::locate(site) else {
        return;
    };
    if std::fs::symlink_metadata(&journal).is_err() {
        return;
    }
    let problem = crate::site_check::outcome::FileProblem {
        file: journal.display().to_string(),
        code: "build_interrupted".into(),
        detail: "a build of this folder was interrupted while it wrote it (its journal is still there): its files may be part the old publication, part the new; run the build again, which finishes it".into(),
    };
    outcome.files.get_or_insert_with(Vec::new).push(problem);
    outcome.ok = false;
    outcome.head = None;
}

/// Streams a ledger file through the verifier: one line in memory at a time.
pub fn verify_ledger_file(
    path: &Path,
    withheld: &Withheld,
    anchors_dir: Option<&Path>,
) -> Result<Outcome> {
    // A regular file within its ceiling: a FIFO or a device is refused (docs/build.md#safety).
    let file =
        crate::operator_box::read::open_named(path, crate::operator_box::read::FileClass::Ledger)?;
    let reader = BufReader::with_capacity(1 << 20, file);
    // The posts first: only the entries their checks need are kept as the ledger streams past
    // (docs/scale.md#verify-site-memory).
    let posts = anchors_dir.map(read_posts).transpose()?;
    let only_posts: Vec<Post> = posts.iter().flatten().map(|(p, _)| p.clone()).collect();
    let mut kept = KeptFacts::for_posts(&only_posts);
    let mut collect = |entry: &Entry<'_>, _| kept.push(EntryFacts::of_entry(entry));
    // Without anchors to check, the lean pass proves canonical lines without building objects.
    let pass = match anchors_dir {
        None => Pass::Lean,
        Some(_) => Pass::Entries(&mut collect),
    };
    let verified = verify_reader(reader, withheld, pass)
        .with_context(|| format!("{}: cannot read", path.display()))?;
    let header_digest = verified.header.and_then(|h| h.digest);
    let report = verified.report;
    let facts = kept.finish();
    let anchors = posts.map(|p| check_posts_with_proofs(&facts, withheld, header_digest, p));
    Ok(outcome(report, anchors, None))
}

fn write_words(out: &mut impl Write, path: &Path, outcome: &Outcome) -> Result<()> {
    let name = path.display();
    if outcome.ok {
        writeln!(out, "{name}: re-derives.")?;
        writeln!(out, "  entries: {}", outcome.entries)?;
        if !outcome.bridged.is_empty() {
            writeln!(
                out,
                "  bridged on withheld digests (the lab's word): {} seq(s)",
                outcome.bridged.len()
            )?;
        }
        if let Some(head) = &outcome.head {
            writeln!(out, "  head: {head}")?;
        }
        match &outcome.tree {
            Some(t) if t.checked => writeln!(
                out,
                "  tree: {} leaves, root {}, origin {}: checkpoint, tiles, bundles, lines and index re-derived from the chain",
                t.size.unwrap_or(0),
                t.root.as_deref().unwrap_or(""),
                t.origin.as_deref().unwrap_or("(unread)")
            )?,
            Some(t) if !t.published => writeln!(
                out,
                "  tree: none published (an exhibit built before the tree view): not checked"
            )?,
            _ => {}
        }
        if let Some(s) = outcome.tree.as_ref().and_then(|t| t.signatures.as_ref()) {
            match &s.key {
                Some(k) => writeln!(
                    out,
                    "  signed by {k}: the checkpoint and {} snapshot line(s); compare this key with the one the operator posts elsewhere (docs/anchoring.md)",
                    s.signed_lines
                )?,
                None => writeln!(
                    out,
                    "  not signed: no operator's key (docs/anchoring.md#the-key)"
                )?,
            }
            if s.keys.len() > 1 {
                writeln!(
                    out,
                    "  the key changed: snapshot lines are signed by {}",
                    s.keys.join(", then ")
                )?;
            }
        }
        if let Some(c) = outcome.tree.as_ref().and_then(|t| t.cosigned.as_ref()) {
            writeln!(
                out,
                "  {}{}: each witness's cosignature holds over this checkpoint under the key STATS.json lists (docs/anchoring.md#cosignatures)",
                crate::published::cosignature::words(c),
                if c.by.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", c.by.join(", "))
                }
            )?;
        }
    } else {
        let count = outcome.problems.len()
            + outcome.files.as_ref().map_or(0, Vec::len)
            + outcome.anchors.iter().flatten().filter(|a| !a.ok()).count();
        writeln!(out, "{name}: does not re-derive ({count} problem(s)).")?;
        for p in &outcome.problems {
            let place = if p.line == 0 {
                "withheld list".to_string()
            } else {
                format!("line {}", p.line)
            };
            let seq = p.seq.map(|s| format!(" (seq {s})")).unwrap_or_default();
            writeln!(out, "  {place}{seq}: {}: {}", p.code, p.detail)?;
        }
        for f in outcome.files.iter().flatten() {
            writeln!(out, "  {}: {}: {}", f.file, f.code, f.detail)?;
        }
    }
    for a in outcome.anchors.iter().flatten() {
        write_anchor(out, a)?;
    }
    let bitcoin = outcome
        .anchors
        .iter()
        .flatten()
        .flat_map(|a| a.attestations.iter().flatten())
        .any(|x| matches!(x, exhibit_protocol::ots::Attestation::Bitcoin { .. }));
    if bitcoin {
        writeln!(
            out,
            "  Each merkle root above is what its proof says that block carries; whether the block does is the one fact this check cannot know: open either page and compare (docs/anchoring.md)."
        )?;
    }
    Ok(())
}

/// One post's line, then what its proof evaluates to (docs/anchoring.md): each attestation on a
/// line of its own — a Bitcoin one with its block, the merkle root the block must carry and the
/// explorers' pages to compare it on — or why the proof does not evaluate.
fn write_anchor(out: &mut impl Write, a: &crate::operator_box::posts::AnchorReport) -> Result<()> {
    let c = &a.check;
    writeln!(
        out,
        "  anchor {}: {} (format {}, head {}, day closed {}, ledger line {}, proof {})",
        c.date,
        if a.ok() { "ok" } else { "PROBLEM" },
        c.format,
        c.head,
        c.day_closed,
        c.ledger_line,
        a.proof_word()
    )?;
    for attestation in a.attestations.iter().flatten() {
        writeln!(out, "    {attestation}")?;
    }
    if let Some(p) = &a.proof_problem {
        writeln!(out, "    {}: {}", p.code, p.detail)?;
    }
    Ok(())
}
