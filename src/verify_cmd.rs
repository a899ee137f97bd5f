//! `exhibit verify`: a ledger file, streamed (CONTRACT §1), or a whole exhibit directory.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use serde::Serialize;

use crate::anchors::{self, AnchorCheck, EntryFacts, Post};
use crate::box_read::{BoxFolder, FileClass};
use crate::canonical;
use crate::ots;
use crate::verify::{Problem, Report, Verifier, Withheld};

#[derive(Debug)]
pub struct VerifyPlan {
    pub json: bool,
    pub withheld: Option<PathBuf>,
    pub anchors: Option<PathBuf>,
    pub path: PathBuf,
}

/// The anchor checks plus the proof's header, for one post.
#[derive(Debug, Clone, Serialize)]
pub struct AnchorReport {
    #[serde(flatten)]
    pub check: AnchorCheck,
    /// `ok`, `missing`, or the header problem's code (`bad_magic`, `digest_mismatch`, ...).
    pub proof: String,
}

impl AnchorReport {
    /// A missing proof is shown, not failed (the post may not be stamped yet); a proof whose
    /// header or digest is wrong fails.
    pub fn ok(&self) -> bool {
        self.check.ok && matches!(self.proof.as_str(), "ok" | "missing")
    }
}

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
    pub head: Option<String>,
    pub problems: Vec<Problem>,
    pub bridged: Vec<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub anchors: Option<Vec<AnchorReport>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub files: Option<Vec<FileProblem>>,
}

pub fn run(plan: &VerifyPlan) -> Result<ExitCode> {
    let outcome = if plan.path.is_dir() {
        if plan.withheld.is_some() || plan.anchors.is_some() {
            bail!(
                "{}: is an exhibit directory; --withheld and --anchors go with a bare ledger file (the directory's own ledger/withheld.json and ledger/anchors/ are used)",
                plan.path.display()
            );
        }
        crate::site_check::check_site(&plan.path)?
    } else {
        let withheld = match &plan.withheld {
            Some(path) => read_withheld(path)?,
            None => Withheld::default(),
        };
        verify_ledger_file(&plan.path, &withheld, plan.anchors.as_deref())?
    };
    let mut report = Vec::new();
    if plan.json {
        serde_json::to_writer(&mut report, &outcome)?;
        writeln!(report)?;
    } else {
        write_words(&mut report, &plan.path, &outcome)?;
    }
    // Words quote inputs (a file name, a field): printed with control characters escaped.
    crate::terminal::to_stdout(&String::from_utf8_lossy(&report))
        .context("stdout: cannot write the report")?;
    Ok(if outcome.ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

pub fn read_withheld(path: &Path) -> Result<Withheld> {
    let bytes = crate::box_read::read_named(path, FileClass::Withheld)?
        .with_context(|| format!("{}: no such file", path.display()))?;
    Withheld::from_json(&bytes).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))
}

/// Streams a ledger file through the verifier: one line in memory at a time.
pub fn verify_ledger_file(
    path: &Path,
    withheld: &Withheld,
    anchors_dir: Option<&Path>,
) -> Result<Outcome> {
    let file = crate::box_read::open_named(path, FileClass::Ledger)?;
    let mut reader = BufReader::with_capacity(1 << 20, file);
    let mut verifier = Verifier::new(withheld);
    let mut facts = Vec::new();
    let mut buf = Vec::with_capacity(4096);
    let mut line = 0u64;
    loop {
        buf.clear();
        let n = reader
            .read_until(b'\n', &mut buf)
            .with_context(|| format!("{}: cannot read line {}", path.display(), line + 1))?;
        if n == 0 {
            break;
        }
        line += 1;
        if buf.last() == Some(&b'\n') {
            buf.pop();
            if anchors_dir.is_none() {
                verifier.push_line_lean(line, &buf);
            } else if let Some(entry) = verifier.push_line(line, &buf)
                && let Some(id) = entry.stated_id()
                && let Some(f) = EntryFacts::from_object(&entry.object, id.to_owned())
            {
                facts.push(f);
            }
        } else {
            verifier.push_truncated_tail(line, &buf);
        }
    }
    let header_digest = verifier.header().and_then(|h| h.digest.clone());
    let report = verifier.finish();
    let anchors = match anchors_dir {
        Some(dir) => Some(check_anchor_dir(
            dir,
            &facts,
            withheld,
            header_digest.as_deref(),
        )?),
        None => None,
    };
    Ok(outcome(report, anchors, None))
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
    }
}

/// Reads `<date>.txt` posts (and their `.txt.ots` proofs) from a folder, in date order — through
/// [`BoxFolder`]: no symlink followed, regular files only, each within its ceiling
/// (docs/build.md#safety).
pub fn read_posts(dir: &Path) -> Result<Vec<(Post, Option<Vec<u8>>)>> {
    let Some(folder) = BoxFolder::named(dir)? else {
        bail!("{}: no such folder", dir.display());
    };
    let mut posts = Vec::new();
    for listed in folder.list()? {
        let Some(date) = listed.name.strip_suffix(".txt") else {
            continue;
        };
        if !listed.utf8 || !crate::days::is_day(date) {
            continue;
        }
        let Some(bytes) = folder.read(&listed.name, FileClass::AnchorPost)? else {
            continue;
        };
        let proof = folder.read(&format!("{date}.txt.ots"), FileClass::Proof)?;
        posts.push((
            Post {
                date: date.to_owned(),
                bytes,
            },
            proof,
        ));
    }
    Ok(posts)
}

/// The anchor checks of §5 plus each proof's header against the post's bytes.
pub fn check_anchor_dir(
    dir: &Path,
    facts: &[EntryFacts],
    withheld: &Withheld,
    header_digest: Option<&str>,
) -> Result<Vec<AnchorReport>> {
    let posts = read_posts(dir)?;
    Ok(check_posts_with_proofs(
        facts,
        withheld,
        header_digest,
        posts,
    ))
}

pub fn check_posts_with_proofs(
    facts: &[EntryFacts],
    withheld: &Withheld,
    header_digest: Option<&str>,
    posts: Vec<(Post, Option<Vec<u8>>)>,
) -> Vec<AnchorReport> {
    let (posts, proofs): (Vec<Post>, Vec<Option<Vec<u8>>>) = posts.into_iter().unzip();
    let checks = anchors::check_posts(facts, withheld, header_digest, &posts);
    checks
        .into_iter()
        .zip(posts.iter().zip(proofs))
        .map(|(check, (post, proof))| AnchorReport {
            check,
            proof: proof_state(proof.as_deref(), &post.bytes),
        })
        .collect()
}

pub fn proof_state(proof: Option<&[u8]>, post: &[u8]) -> String {
    match proof {
        None => "missing".into(),
        Some(bytes) => match ots::check(bytes, &canonical::sha256_hex(post)) {
            Ok(()) => "ok".into(),
            Err(p) => p.code().into(),
        },
    }
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
            a.proof
        )?;
    }
    Ok(())
}
