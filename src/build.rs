//! `exhibit build`: a flat sequence of stages — load the box, verify, read what HEAD published,
//! decide, check anchors and coverage, add the witness and public-text layers, assemble, render,
//! self-check, write (protocol-v0 §5, §6; CONTRACT §1–§4). Each stage returns a typed result;
//! refusals from every stage are gathered so one run names them all.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};
use serde_json::{Value as J, json};

use crate::anchors::{self, EntryFacts};
use crate::canonical;
use crate::config::BoxConfig;
use crate::output::{self, Tree};
use crate::previous::Previous;
use crate::progress::Progress;
use crate::publish::{self, Decision, History, LineRecord, Readings};
use crate::refusal::Refusal;
use crate::registry::{Registry, Verdict};
use crate::verify::{Verifier, Withheld, WithheldEntry};
use crate::verify_cmd::{self, AnchorReport};

/// Everything `build` needs, validated before any work starts.
#[derive(Debug, Clone)]
pub struct BuildPlan {
    pub config: BoxConfig,
    pub out: PathBuf,
    pub witness: Option<PathBuf>,
    pub public_texts: bool,
    pub allow_text: BTreeSet<String>,
    pub allow_line: BTreeSet<i64>,
    pub allow_rewrite: Option<String>,
    pub witness_window_since: Option<String>,
    pub dry_run: bool,
    /// `YYYY-MM-DDTHH:MM:SSZ`, from SOURCE_DATE_EPOCH when set (CONTRACT §4 "Determinism").
    pub built_at: String,
}

/// The box as read from disk.
pub struct LoadedBox {
    pub ledger: Vec<u8>,
    /// Bytes after the last LF: the gate may be writing that line (left out and said).
    pub unterminated_tail: usize,
    pub posts: Vec<(anchors::Post, Option<Vec<u8>>)>,
}

/// The gate's ledger, verified.
pub struct VerifiedLedger {
    pub header: (usize, usize),
    pub header_digest: String,
    pub anchor_tz: String,
    pub lines: Vec<LineRecord>,
    pub head: String,
}

/// What a layer (witness, public texts) adds to the tree.
#[derive(Debug, Default)]
pub struct LayerOutput {
    pub files: Vec<(String, Vec<u8>)>,
    /// Counts with denominators, for STATS.json and SNAPSHOTS.jsonl.
    pub stats: J,
    /// Data the page embeds (already privacy-cut).
    pub page_data: J,
    pub refusals: Vec<Refusal>,
    /// Lines for stderr (a person should know, nothing to refuse).
    pub notes: Vec<String>,
    /// The layer changed or removed something published before (under --allow-rewrite): the
    /// publication then does not extend the last one.
    pub rewrote: bool,
}

/// What the layers may read of the build.
pub struct LayerContext<'a> {
    pub plan: &'a BuildPlan,
    pub ledger: &'a [u8],
    pub verified: &'a VerifiedLedger,
    pub previous: &'a Previous,
    pub ledger_name: &'a str,
}

pub fn run(plan: &BuildPlan) -> Result<ExitCode> {
    let mut progress = Progress::new();
    let loaded = load(plan)?;
    let ledger_name = plan.config.ledger.display().to_string();
    let complete = &loaded.ledger[..loaded.ledger.len() - loaded.unterminated_tail];

    let verified = match verify(complete, &ledger_name, &mut progress) {
        Ok(v) => v,
        Err(refusals) => return Ok(refuse(&refusals)),
    };
    let previous = Previous::open(&plan.out)?;
    let history = read_history(&previous)?;
    let registry = Registry::new(&plan.config.fields)
        .map_err(|e| anyhow::anyhow!("{}: {e}", plan.config.file.display()))?;

    let mut lines = verified.lines.clone();
    let mut refusals = check_header(complete, &verified, &registry, plan, &ledger_name);
    let decision = publish::decide(
        &publish::DecideInput {
            ledger: complete,
            ledger_name: &ledger_name,
            registry: &registry,
            history: &history,
            allow_line: &plan.allow_line,
            allow_rewrite: plan.allow_rewrite.is_some(),
        },
        &mut lines,
    );
    refusals.extend(decision.refusals.iter().cloned());
    let verified = VerifiedLedger { lines, ..verified };

    let published_ledger = published_ledger_bytes(complete, &verified);
    let withheld: Vec<WithheldEntry> = verified
        .lines
        .iter()
        .filter_map(|r| r.withheld.clone())
        .collect();
    let withheld_list = Withheld::from_entries(withheld.clone()).map_err(anyhow::Error::msg)?;
    let extends = check_extends(
        &history,
        &published_ledger,
        plan,
        &ledger_name,
        &mut refusals,
    );

    let anchor_reports = check_anchors(complete, &verified, &withheld_list, loaded.posts.clone());
    let posted_heads: BTreeSet<i64> = anchor_reports
        .iter()
        .filter(|a| matches!(a.check.head, "ok" | "lab_word") && a.check.format == "ok")
        .filter_map(|a| a.check.posted.as_ref().map(|p| p.seq))
        .collect();
    let coverage = publish::coverage(&verified.lines, &posted_heads);

    let ctx = LayerContext {
        plan,
        ledger: complete,
        verified: &verified,
        previous: &previous,
        ledger_name: &ledger_name,
    };
    let mut witness = match &plan.witness {
        Some(store) => Some(crate::witness::build(&ctx, store)?),
        None => None,
    };
    let mut texts = if plan.public_texts {
        Some(crate::public_texts::build(&ctx)?)
    } else {
        None
    };
    for layer in witness.iter().chain(texts.iter()) {
        refusals.extend(layer.refusals.iter().cloned());
    }
    // A layer published before may not vanish because its flag was left off (append-only, §6).
    for (on, folder, flag) in [
        (plan.witness.is_some(), "witness", "--witness STORE"),
        (plan.public_texts, "public_texts", "--public-texts"),
    ] {
        if !on
            && plan.allow_rewrite.is_none()
            && !previous.list(&format!("ledger/{folder}"))?.is_empty()
        {
            refusals.push(Refusal::new(
                format!("ledger/{folder}/"),
                "",
                format!("HEAD publishes ledger/{folder}/ but this build would not: published files stay published (§6)"),
                format!("{flag} (or [publish] in exhibit.toml), or --allow-rewrite REASON to withdraw the layer"),
            ));
        }
    }
    let extends = extends && !witness.iter().chain(texts.iter()).any(|l| l.rewrote);
    if !refusals.is_empty() {
        return Ok(refuse(&refusals));
    }

    let mut tree = Tree::default();
    tree.put(".nojekyll", Vec::new());
    tree.put("ledger/.gitattributes", b"* -text\n".to_vec());
    tree.put("ledger/ledger.jsonl", published_ledger);
    tree.put("ledger/withheld.json", pretty(&withheld));
    if !decision.readings.lines.is_empty() {
        tree.put("ledger/readings.json", pretty(&decision.readings));
    }
    let anchors_index = anchors_index(&anchor_reports, &verified, complete);
    for (report, (post, proof)) in anchor_reports.iter().zip(&loaded.posts) {
        // A post whose text is not the exact §5 form may hold anything: withheld, listed.
        if report.check.format == "ok" {
            tree.put(
                format!("ledger/anchors/{}.txt", post.date),
                post.bytes.clone(),
            );
            if let Some(proof) = proof {
                tree.put(
                    format!("ledger/anchors/{}.txt.ots", post.date),
                    proof.clone(),
                );
            }
        }
    }
    tree.put("ledger/anchors/index.json", pretty(&anchors_index));
    // Moved, not copied: at a million lines the witness proofs alone are large.
    for layer in witness.iter_mut().chain(texts.iter_mut()) {
        for (path, bytes) in std::mem::take(&mut layer.files) {
            tree.put(path, bytes);
        }
    }
    let stats = stats(
        &verified,
        &decision,
        &coverage,
        &anchor_reports,
        &loaded,
        witness.as_ref(),
        texts.as_ref(),
    );
    tree.put("ledger/STATS.json", pretty(&stats));

    let snapshots = snapshots(&previous, &tree, &verified, plan, extends, &stats)?;
    tree.put("ledger/SNAPSHOTS.jsonl", snapshots.bytes.clone());

    self_check(&tree, &verified)?;
    let page = crate::render::page(&crate::render::PageInput {
        tree: &tree,
        built_at: &snapshots.last_built_at,
        witness: witness.as_ref().map(|w| &w.page_data),
        public_texts: texts.as_ref().map(|t| &t.page_data),
        witness_on: plan.witness.is_some(),
        window_since: plan.witness_window_since.as_deref(),
    })?;
    tree.put("index.html", page);

    for note in witness
        .iter()
        .chain(texts.iter())
        .flat_map(|l| l.notes.iter())
        .chain(anchor_notes(&anchor_reports).iter())
    {
        eprintln!("exhibit: note: {note}");
    }
    if !decision.sticky.is_empty() {
        eprintln!(
            "exhibit: note: {} seq(s) stay withheld because an earlier publication withheld them",
            decision.sticky.len()
        );
    }
    if loaded.unterminated_tail > 0 {
        eprintln!(
            "exhibit: note: {}: the last {} byte(s) have no LF (the gate may be writing that line); left out of this build",
            ledger_name, loaded.unterminated_tail
        );
    }
    progress.done();
    let dir_name = plan.out.display().to_string();
    if plan.dry_run {
        let on_disk = output::read_tree(&plan.out)?;
        print!("{}", output::describe_changes(&dir_name, &on_disk, &tree));
    } else {
        output::write_tree(&plan.out, &tree)?;
        println!(
            "built {dir_name}/: {} of {} lines published, {} withheld; head {}; {}",
            verified.lines.iter().filter(|r| r.published()).count(),
            verified.lines.len(),
            withheld.len(),
            verified.head,
            if snapshots.appended {
                if extends {
                    "snapshot appended (extends the last)".to_string()
                } else {
                    format!(
                        "snapshot appended (extends: false, reason: {})",
                        plan.allow_rewrite.as_deref().unwrap_or("")
                    )
                }
            } else {
                "published content unchanged: no snapshot appended".to_string()
            }
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn refuse(refusals: &[Refusal]) -> ExitCode {
    eprintln!(
        "exhibit: build refused ({} reason(s)); the output folder was not touched:",
        refusals.len()
    );
    for r in refusals {
        eprintln!("  {r}");
    }
    ExitCode::from(1)
}

/// Stage 1: read the box. I/O errors name their path (exit 2).
fn load(plan: &BuildPlan) -> Result<LoadedBox> {
    let path = &plan.config.ledger;
    let ledger = std::fs::read(path)
        .with_context(|| format!("{}: cannot read the gate's ledger", path.display()))?;
    let unterminated_tail = match ledger.iter().rposition(|&b| b == b'\n') {
        Some(i) => ledger.len() - i - 1,
        None => ledger.len(),
    };
    let posts = match &plan.config.anchors {
        Some(dir) if dir.is_dir() => verify_cmd::read_posts(dir)?,
        Some(dir) => anyhow::bail!(
            "{}: the anchors folder named in {} does not exist",
            dir.display(),
            plan.config.file.display()
        ),
        None => Vec::new(),
    };
    Ok(LoadedBox {
        ledger,
        unterminated_tail,
        posts,
    })
}

/// Stage 2: the gate's ledger must re-derive before anything is published (§4).
fn verify(
    complete: &[u8],
    ledger_name: &str,
    progress: &mut Progress,
) -> Result<VerifiedLedger, Vec<Refusal>> {
    let none = Withheld::default();
    let mut verifier = Verifier::new(&none);
    let mut lines = Vec::new();
    let mut header = (0, 0);
    let mut start = 0usize;
    let mut line_no = 0u64;
    while start < complete.len() {
        let end = start
            + complete[start..]
                .iter()
                .position(|&b| b == b'\n')
                .expect("complete lines end in LF");
        line_no += 1;
        if line_no == 1 {
            header = (start, end);
        }
        if let Some(entry) = verifier.push_line(line_no, &complete[start..end])
            && !entry.has_problem
        {
            let o = &entry.object;
            lines.push(LineRecord {
                line: line_no,
                seq: entry.seq.unwrap_or_default(),
                entry_id: entry.stated_id().unwrap_or_default().to_owned(),
                kind: o.get_str("kind").unwrap_or_default().to_owned(),
                day: o.get_str("day").unwrap_or_default().to_owned(),
                timestamp: o.get_str("timestamp").unwrap_or_default().to_owned(),
                start,
                end,
                withheld: None,
                read_by_operator: false,
            });
        }
        progress.tick("verifying", line_no, start as u64, complete.len() as u64);
        start = end + 1;
    }
    let header_info = verifier.header().cloned();
    let report = verifier.finish();
    if !report.ok {
        return Err(report
            .problems
            .iter()
            .map(|p| {
                let place = match p.seq {
                    Some(s) => format!("line {} (seq {s})", p.line),
                    None => format!("line {}", p.line),
                };
                Refusal::new(
                    ledger_name,
                    place,
                    format!("{}: {} (protocol §4)", p.code, p.detail),
                    "no flag publishes a ledger that does not re-derive; `exhibit verify` shows the same problems — repair the gate's ledger first",
                )
            })
            .collect());
    }
    let header_info = header_info.expect("ok ledgers have a header");
    Ok(VerifiedLedger {
        header,
        header_digest: header_info
            .digest
            .clone()
            .expect("ok headers have a digest"),
        anchor_tz: header_info.anchor_tz.clone().unwrap_or_default(),
        head: report.head.expect("ok ledgers have a head"),
        lines,
    })
}

/// The header cannot be withheld: an unknown field or an identifier in it refuses the build.
fn check_header(
    ledger: &[u8],
    verified: &VerifiedLedger,
    registry: &Registry,
    plan: &BuildPlan,
    ledger_name: &str,
) -> Vec<Refusal> {
    let parsed = canonical::parse(&ledger[verified.header.0..verified.header.1]).expect("verified");
    let header = parsed.value.as_object().expect("verified header");
    match registry.judge_header(header) {
        Verdict::Publish => vec![],
        Verdict::Unknown { fields, .. } => fields
            .into_iter()
            .map(|f| {
                Refusal::new(
                    ledger_name,
                    "line 1 (header)",
                    format!("header field {f:?} is not in the registry (CONTRACT §4)"),
                    format!(
                        "read it, then add {f} = \"<type>\" under [fields.header] in exhibit.toml"
                    ),
                )
            })
            .collect(),
        Verdict::Withhold { reason, .. } if !plan.allow_line.contains(&0) => vec![Refusal::new(
            ledger_name,
            "line 1 (header)",
            format!("the header carries {reason}; a header cannot be withheld (§6)"),
            "--allow-line 0 after a person has read the header",
        )],
        Verdict::Withhold { .. } => vec![],
    }
}

/// What HEAD's publication binds this build to.
fn read_history(previous: &Previous) -> Result<History> {
    let mut history = History::default();
    if let Some(bytes) = previous.read("ledger/withheld.json")? {
        history.withheld = Withheld::from_json(&bytes)
            .map_err(|e| anyhow::anyhow!("HEAD:ledger/withheld.json: {e}"))?;
    }
    if let Some(bytes) = previous.read("ledger/ledger.jsonl")? {
        for (_, piece, _) in crate::verify::lines(&bytes).skip(1) {
            if let Ok(parsed) = canonical::parse(piece)
                && let Some(seq) = parsed.value.as_object().and_then(|o| o.get_int("seq"))
            {
                history.published_seqs.insert(seq);
            }
        }
        history.ledger = Some(bytes);
    }
    // Readings count only as committed (CONTRACT §4 "Operator readings"): from HEAD, never disk.
    if let Some(bytes) = previous.read("ledger/readings.json")? {
        let readings: Readings = serde_json::from_slice(&bytes)
            .context("HEAD:ledger/readings.json is not a readings file")?;
        history.readings = readings
            .lines
            .into_iter()
            .map(|r| (r.seq, r.entry_id))
            .collect();
    }
    Ok(history)
}

fn published_ledger_bytes(ledger: &[u8], verified: &VerifiedLedger) -> Vec<u8> {
    let mut out = Vec::with_capacity(ledger.len());
    out.extend_from_slice(&ledger[verified.header.0..=verified.header.1]);
    for r in verified.lines.iter().filter(|r| r.published()) {
        out.extend_from_slice(&ledger[r.start..=r.end]);
    }
    out
}

/// Append-only (§6): the new ledger.jsonl must byte-extend the one published at HEAD.
fn check_extends(
    history: &History,
    new: &[u8],
    plan: &BuildPlan,
    ledger_name: &str,
    refusals: &mut Vec<Refusal>,
) -> bool {
    let Some(old) = &history.ledger else {
        return true;
    };
    if new.starts_with(old) {
        return true;
    }
    if plan.allow_rewrite.is_none() {
        let at = old
            .iter()
            .zip(new)
            .position(|(a, b)| a != b)
            .unwrap_or(new.len().min(old.len()));
        let line = old[..at].iter().filter(|&&b| b == b'\n').count() + 1;
        refusals.push(Refusal::new(
            "ledger/ledger.jsonl",
            format!("line {line}"),
            format!(
                "the new publication does not byte-extend the one at HEAD (first difference at byte {}; {} would publish {} bytes, HEAD has {}); publications are append-only (§6)",
                at + 1,
                ledger_name,
                new.len(),
                old.len()
            ),
            "--allow-rewrite REASON (recorded as rewrite_reason with extends: false)",
        ));
    }
    false
}

fn check_anchors(
    ledger: &[u8],
    verified: &VerifiedLedger,
    withheld: &Withheld,
    posts: Vec<(anchors::Post, Option<Vec<u8>>)>,
) -> Vec<AnchorReport> {
    // The checks a stranger can do: over the published lines and the withheld list only.
    let facts: Vec<EntryFacts> = verified
        .lines
        .iter()
        .filter(|r| r.published())
        .filter_map(|r| {
            if r.kind == "anchor" {
                EntryFacts::from_object(&r.object(ledger), r.entry_id.clone())
            } else {
                Some(EntryFacts {
                    seq: r.seq,
                    entry_id: r.entry_id.clone(),
                    day: Some(r.day.clone()),
                    anchor: None,
                })
            }
        })
        .collect();
    verify_cmd::check_posts_with_proofs(&facts, withheld, Some(&verified.header_digest), posts)
}

fn anchors_index(reports: &[AnchorReport], verified: &VerifiedLedger, ledger: &[u8]) -> J {
    let mut lines_by_date: BTreeMap<String, Vec<(i64, Option<bool>)>> = BTreeMap::new();
    for r in verified
        .lines
        .iter()
        .filter(|r| r.kind == "anchor" && r.published())
    {
        let o = r.object(ledger);
        if let Some(date) = o.get_str("anchor_date") {
            let late = match o.get("late") {
                Some(canonical::Value::Bool(b)) => Some(*b),
                _ => None,
            };
            lines_by_date
                .entry(date.to_owned())
                .or_default()
                .push((r.seq, late));
        }
    }
    let posted: BTreeSet<&str> = reports.iter().map(|r| r.check.date.as_str()).collect();
    let posts: Vec<J> = reports
        .iter()
        .map(|r| {
            let c = &r.check;
            let lines = lines_by_date.get(&c.date).cloned().unwrap_or_default();
            json!({
                "date": c.date,
                "published": c.format == "ok",
                "text_file": (c.format == "ok").then(|| format!("{}.txt", c.date)),
                "proof_file": (c.format == "ok" && r.proof != "missing").then(|| format!("{}.txt.ots", c.date)),
                "head": c.posted.as_ref().map(|p| p.head.clone()),
                "seq": c.posted.as_ref().map(|p| p.seq),
                "ok": r.ok(),
                "checks": {"format": c.format, "head": c.head, "day_closed": c.day_closed,
                           "ledger_line": c.ledger_line, "proof_header": r.proof},
                "anchor_line_seqs": lines.iter().map(|l| l.0).collect::<Vec<_>>(),
                "late": lines.iter().find_map(|l| l.1),
            })
        })
        .collect();
    let unposted: Vec<J> = lines_by_date
        .iter()
        .filter(|(d, _)| !posted.contains(d.as_str()))
        .map(|(d, l)| json!({"anchor_date": d, "anchor_line_seqs": l.iter().map(|x| x.0).collect::<Vec<_>>()}))
        .collect();
    json!({
        "posts": posts,
        "anchor_lines_without_post": unposted,
        "note": "checks re-done by the publisher over the published lines and withheld.json; the page and `exhibit verify SITE` re-do them; a proof is checked only for its header and the digest it commits to — verify it with an OpenTimestamps client",
    })
}

fn anchor_notes(reports: &[AnchorReport]) -> Vec<String> {
    reports
        .iter()
        .filter(|r| !r.ok())
        .map(|r| {
            let c = &r.check;
            format!(
                "anchor {} does not check out (format {}, head {}, day closed {}, ledger line {}, proof {}); it is published and shown, not hidden",
                c.date, c.format, c.head, c.day_closed, c.ledger_line, r.proof
            )
        })
        .collect()
}

fn of(count: usize, denominator: usize) -> J {
    json!({"count": count, "of": denominator})
}

#[allow(clippy::too_many_arguments)]
fn stats(
    verified: &VerifiedLedger,
    decision: &Decision,
    coverage: &publish::Coverage,
    anchors: &[AnchorReport],
    loaded: &LoadedBox,
    witness: Option<&LayerOutput>,
    texts: Option<&LayerOutput>,
) -> J {
    let total = verified.lines.len();
    let published = verified.lines.iter().filter(|r| r.published()).count();
    let withheld = total - published;
    let mut by_field: BTreeMap<String, usize> = BTreeMap::new();
    for w in verified.lines.iter().filter_map(|r| r.withheld.as_ref()) {
        for f in &w.fields_flagged {
            *by_field.entry(f.clone()).or_default() += 1;
        }
    }
    let posts = anchors.len();
    let mut s = json!({
        "schema": "exhibit/stats/v1",
        "ledger": {
            "entries": total,
            "head": verified.head,
            "head_seq": verified.lines.last().map(|r| r.seq),
            "header_digest": verified.header_digest,
            "anchor_tz": verified.anchor_tz,
            // The tz database the days were checked with; the page carries its rules for this
            // zone (docs/verifier.md "Days and the tz database").
            "tzdb": crate::days::tzdb_version(),
            "unterminated_tail_bytes_left_out": loaded.unterminated_tail,
        },
        "lines": {
            "published": of(published, total),
            "withheld": of(withheld, total),
            "withheld_by_field": by_field.into_iter().map(|(f, n)| (f, of(n, withheld))).collect::<serde_json::Map<_, _>>(),
            "published_on_operator_reading": of(decision.readings.lines.len(), published),
        },
        "coverage": {
            "pinned": of(coverage.pinned.len(), published),
            "severed": of(coverage.severed.len(), published),
            "awaiting_head": of(coverage.awaiting_head.len(), published),
            "severed_seqs": coverage.severed,
            "awaiting_head_seqs": coverage.awaiting_head,
            "posted_heads": posts,
        },
        "anchors": {
            "posts": posts,
            "ok": of(anchors.iter().filter(|a| a.ok()).count(), posts),
            "not_ok": of(anchors.iter().filter(|a| !a.ok()).count(), posts),
            "proof_header_ok": of(anchors.iter().filter(|a| a.proof == "ok").count(), posts),
            "head_on_withheld_digest": of(anchors.iter().filter(|a| a.check.head == "lab_word").count(), posts),
        },
    });
    if let Some(w) = witness {
        s["witness"] = w.stats.clone();
    }
    if let Some(t) = texts {
        s["public_texts"] = t.stats.clone();
    }
    s
}

struct Snapshots {
    bytes: Vec<u8>,
    appended: bool,
    last_built_at: String,
}

/// sha256 of a folder's files as `sha256sum` lists them, sorted by path: a stranger re-derives
/// it with `(cd ledger/X && find . -type f | sort | xargs sha256sum) | sha256sum`.
fn folder_digest(tree: &Tree, prefix: &str) -> Option<String> {
    let mut listing = String::new();
    for (path, bytes) in tree.files.range(prefix.to_string()..) {
        let Some(rel) = path.strip_prefix(prefix) else {
            break;
        };
        listing.push_str(&format!("{}  ./{rel}\n", canonical::sha256_hex(bytes)));
    }
    (!listing.is_empty()).then(|| canonical::sha256_hex(listing.as_bytes()))
}

/// SNAPSHOTS.jsonl (§6): HEAD's lines, plus one for this publication when its content changed.
fn snapshots(
    previous: &Previous,
    tree: &Tree,
    verified: &VerifiedLedger,
    plan: &BuildPlan,
    extends: bool,
    stats: &J,
) -> Result<Snapshots> {
    let old = previous.read("ledger/SNAPSHOTS.jsonl")?.unwrap_or_default();
    let mut digests = serde_json::Map::new();
    for (path, bytes) in &tree.files {
        if let Some(rel) = path.strip_prefix("ledger/")
            && !rel.contains('/')
            && rel != "SNAPSHOTS.jsonl"
        {
            digests.insert(rel.to_string(), J::String(canonical::sha256_hex(bytes)));
        }
    }
    for folder in ["anchors/", "witness/", "public_texts/"] {
        if let Some(d) = folder_digest(tree, &format!("ledger/{folder}")) {
            digests.insert(folder.to_string(), J::String(d));
        }
    }
    let digests = J::Object(digests);
    let last: Option<J> = old
        .split(|&b| b == b'\n')
        .rfind(|l| !l.is_empty())
        .map(|l| {
            serde_json::from_slice(l)
                .context("HEAD:ledger/SNAPSHOTS.jsonl: its last line is not JSON")
        })
        .transpose()?;
    if let Some(last) = &last
        && last.get("digests") == Some(&digests)
        && plan.allow_rewrite.is_none()
    {
        return Ok(Snapshots {
            bytes: old,
            appended: false,
            last_built_at: last["built_at"].as_str().unwrap_or_default().to_string(),
        });
    }
    let published = verified.lines.iter().filter(|r| r.published()).count();
    let line = json!({
        "built_at": plan.built_at,
        "lines": published,
        "withheld": verified.lines.len() - published,
        "head": verified.head,
        "head_seq": verified.lines.last().map(|r| r.seq),
        "digests": digests,
        "extends_commit": previous.commit,
        "extends": extends,
        "rewrite_reason": if extends { None } else { plan.allow_rewrite.clone() },
        "witness": stats.get("witness").cloned(),
        "public_texts": stats.get("public_texts").cloned(),
    });
    let mut bytes = old;
    bytes.extend_from_slice(&serde_json::to_vec(&line)?);
    bytes.push(b'\n');
    Ok(Snapshots {
        bytes,
        appended: true,
        last_built_at: plan.built_at.clone(),
    })
}

/// The published ledger with its withheld list must re-derive to the gate's head: checked here,
/// before anything is written, by the same verifier a stranger runs.
fn self_check(tree: &Tree, verified: &VerifiedLedger) -> Result<()> {
    let withheld = Withheld::from_json(tree.get("ledger/withheld.json").unwrap_or(b"[]"))
        .map_err(anyhow::Error::msg)?;
    let report = crate::verify::verify_bytes(
        tree.get("ledger/ledger.jsonl").unwrap_or_default(),
        &withheld,
    );
    if !report.ok || report.head.as_deref() != Some(verified.head.as_str()) {
        anyhow::bail!(
            "self-check failed: the published ledger with withheld.json does not re-derive to the gate's head {} ({} problem(s), head {:?}); nothing was written",
            verified.head,
            report.problems.len(),
            report.head
        );
    }
    Ok(())
}

pub fn pretty<T: serde::Serialize>(value: &T) -> Vec<u8> {
    let mut bytes = serde_json::to_vec_pretty(value).expect("serialisable");
    bytes.push(b'\n');
    bytes
}

/// `SOURCE_DATE_EPOCH` as a UTC timestamp, or the clock when unset (read once, in the plan).
pub fn built_at_from_env() -> Result<String> {
    let secs = match std::env::var("SOURCE_DATE_EPOCH") {
        Ok(v) => v
            .trim()
            .parse::<i64>()
            .with_context(|| format!("SOURCE_DATE_EPOCH={v:?} is not a whole number of seconds"))?,
        Err(_) => std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .context("the clock is before 1970")?
            .as_secs() as i64,
    };
    Ok(timestamp_of(secs))
}

pub fn timestamp_of(secs: i64) -> String {
    let day = crate::days::civil_from_days(secs.div_euclid(86_400));
    let s = secs.rem_euclid(86_400);
    format!("{day}T{:02}:{:02}:{:02}Z", s / 3600, s % 3600 / 60, s % 60)
}

/// The folder a path names, for messages.
pub fn shown(path: &Path) -> String {
    path.display().to_string()
}
