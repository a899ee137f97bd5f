//! `exhibit build`: the box becomes an exhibit through eight stages, one module each —
//! [`load`] → [`verify`] → [`history`] → [`decide`] → [`layers`] → [`assemble`] → [`render`] →
//! [`write`] (docs/protocol.md#publication, docs/build.md). Each stage takes what the ones before
//! it produced and returns a typed value; refusals from every stage are gathered so one run
//! names them all, and a refused build writes nothing.

pub mod config;
pub mod hosting;
pub mod record_fields;

pub mod anchors;
pub mod assemble;
pub mod decide;
pub mod history;
pub mod layers;
pub mod load;
pub mod render;
pub mod report;
pub mod review;
pub mod tree;
pub mod tree_carried;
pub mod verify;
pub mod write;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};

use crate::previous::Previous;
use crate::publication::config::BoxConfig;
use crate::published::encode::timestamp_of;
use crate::terminal::progress::Progress;
use crate::terminal::refusal::Refusal;
use layers::LayerContext;

/// Everything `build` needs, validated before any work starts.
#[derive(Debug, Clone)]
pub struct BuildPlan {
    pub config: BoxConfig,
    /// The operator's key, read when the plan was made (docs/anchoring.md#the-key).
    pub key: Option<std::sync::Arc<crate::operator_box::signing::OperatorKey>>,
    pub out: PathBuf,
    /// `--first-publication`: publish anew where this repository's record names a publication
    /// but HEAD holds none in DIR (docs/operator.md#first-publication).
    pub first_publication: bool,
    pub witness: Option<PathBuf>,
    pub public_texts: bool,
    pub allow_text: BTreeSet<exhibit_protocol::Digest>,
    pub allow_line: BTreeSet<i64>,
    pub allow_rewrite: Option<String>,
    pub witness_window_since: Option<String>,
    pub dry_run: bool,
    /// Words, JSON or Markdown; quiet or not (docs/operator.md#build-json).
    pub voice: report::Voice,
    /// `YYYY-MM-DDTHH:MM:SSZ`, from SOURCE_DATE_EPOCH when set (docs/protocol.md#determinism).
    pub built_at: String,
}

/// The box's pieces as exhibit.toml names them: DIR may be none of them, contain none, and lie
/// inside none of the folders (docs/build.md#safety).
fn box_paths(plan: &BuildPlan) -> Vec<(&'static str, &Path)> {
    let c = &plan.config;
    let mut paths: Vec<(&'static str, &Path)> =
        vec![("config", c.file.as_path()), ("ledger", c.ledger.as_path())];
    for (what, p) in [
        ("gate config", &c.gate_config),
        ("sources folder", &c.sources),
        ("anchors folder", &c.anchors),
        ("witness store", &plan.witness),
    ] {
        if let Some(p) = p {
            paths.push((what, p.as_path()));
        }
    }
    paths
}

/// Before anything is read or written: DIR checked, and what an interrupted build planned
/// finished. Returns where DIR's write journal lives.
fn ready_out(plan: &BuildPlan) -> Result<PathBuf> {
    // Where DIR's write journal lives; one there names a build that was interrupted
    // (docs/build.md#the-journal).
    let journal = crate::site_write::journal::locate(&plan.out)?;
    let journaled = std::fs::symlink_metadata(&journal).is_ok();
    // Is DIR exhibit's to write? (exit 2 when not)
    crate::site_write::out_dir::check_out_dir(&plan.out, &box_paths(plan), journaled)?;
    // What an interrupted build planned is finished first, and said.
    if journaled
        && let Some(said) =
            crate::site_write::finish_interrupted(&plan.out, &journal, plan.dry_run)?
    {
        crate::say!("exhibit: note: {said}");
    }
    Ok(journal)
}

pub fn run(plan: &BuildPlan) -> Result<ExitCode> {
    let journal = ready_out(plan)?;
    crate::terminal::progress::stage_times::start();
    crate::terminal::memory::large_blocks_mapped();
    // A person at a terminal is told each stage (docs/operator.md#progress).
    crate::terminal::progress::show(crate::terminal::progress::for_a_person(
        plan.voice.json,
        plan.voice.quiet,
    ));
    crate::terminal::progress::stage_start("load");
    let loaded = load::load(plan)?;
    crate::terminal::progress::stage_done("load");
    crate::terminal::progress::stage_start("verify");
    let verified = match verify::verify(&loaded.ledger, &loaded.name, &mut Progress::new()) {
        Ok(v) => v,
        Err(refusals) => return Ok(report::refused(plan.voice, &refusals)),
    };
    crate::terminal::progress::stage_done("verify");
    crate::terminal::progress::stage_start("HEAD check");
    let mut previous = Previous::open(&plan.out)?;
    let head = crate::previous::head_check::check(&previous)?;
    crate::terminal::progress::stage_done("HEAD check");
    let (refusals, trusted, record) = check_head(plan, &previous, &head)?;
    if !refusals.is_empty() {
        return Ok(report::refused(plan.voice, &refusals));
    }
    let first = first_publication(plan, &previous, &record)?;
    if let Err(refusal) = first {
        return Ok(report::refused(plan.voice, &[*refusal]));
    }
    // What the HEAD check hashed is written beside its cache now and put in place once DIR is
    // written; from here on the build does not hold it (docs/scale.md#memory).
    let digests = head.digests;
    let blob_digests = if plan.dry_run {
        drop(digests);
        crate::previous::blob_digests::Staged::Nothing
    } else {
        digests.stage().unwrap_or_else(|e| {
            crate::say!("exhibit: note: {e:#}; the next build re-reads HEAD's blobs");
            crate::previous::blob_digests::Staged::Nothing
        })
    };
    // git's inflated trees and the walk's lists are let go: given back before the later stages
    // make theirs (docs/scale.md#giving-memory-back).
    crate::terminal::memory::give_back();
    crate::terminal::progress::stage_start("history");
    let history = history::read_history(&previous, trusted)?;
    // The HEAD check and the history read HEAD's blobs through: what libgit2 mapped of the
    // packs for them is let go (docs/scale.md#packs-mapped).
    previous.let_go_of_mapped_packs()?;
    crate::terminal::progress::stage_done("history");
    crate::terminal::progress::stage_start("decide");
    let mut decided = decide::run(plan, &loaded, verified, &history, &previous)?;
    crate::terminal::progress::stage_times::carried(&format!(
        "{} of {} line verdicts from the previous build",
        decided.verdicts.carried,
        decided.verified.lines.len()
    ));
    crate::terminal::progress::stage_done("decide");
    // Of HEAD's history only what is remembered for the next build is kept: moved out of the
    // whole value (`{ history }`), so that the rest is dropped here, not at the end of the build.
    let ledger_seqs = { history }.ledger_seqs;
    crate::terminal::memory::give_back();
    // A publication over an edited HEAD does not extend it (docs/build.md#safety).
    decided.extends &= trusted;
    let segmented = assemble::ledger_cut(plan, &decided)?
        .iter()
        .any(|f| f.path.starts_with(crate::published::segments::SEGMENTS_DIR));
    // Files the layers make are written as they are made, beside DIR; the folder goes when
    // this function returns, whatever it returns (docs/scale.md#made-as-written). A dry run
    // does the same where it can, and holds them where it cannot (docs/scale.md#dry-run-made).
    let made = made_files(plan)?;
    crate::terminal::progress::stage_start("layers");
    let mut layers = layers::run(&LayerContext {
        plan,
        ledger: &loaded.ledger,
        verified: &decided.verified,
        previous: &previous,
        ledger_name: &loaded.name,
        segmented,
        made: made.as_ref(),
    })?;
    let refusals: Vec<Refusal> = decided
        .refusals
        .iter()
        .chain(&layers.refusals)
        .cloned()
        .collect();
    if !refusals.is_empty() {
        return Ok(report::refused(plan.voice, &refusals));
    }
    crate::terminal::progress::stage_done("layers");
    // The layers were the last to read HEAD's big folders; a later read lists its folder again.
    previous.let_go_of_listings();
    crate::terminal::memory::give_back();
    crate::terminal::progress::stage_start("assemble");
    // What the assembly, the write stage's summary and the page need of the lines is taken
    // now: the assembly lets the per-line records go before the tree is made (at a million
    // lines 73 MB: docs/scale.md#the-chain-read-by-the-tree).
    let counts = assemble::LineCounts::of(&decided.verified);
    let facts = render::LedgerFacts::of(&decided.verified);
    let mut assembled =
        assemble::run(plan, &loaded, &mut decided, &mut layers, &previous, &counts)?;
    crate::terminal::progress::stage_done("assemble");
    let mut summary = write::Summary::of(plan, &loaded, &decided, &counts, &layers, &assembled);
    summary.set_history(first.unwrap_or_default(), previous.in_checkout);
    // What was decided is let go, but for the verdicts the next build carries.
    let verdicts = std::mem::take(&mut decided.verdicts);
    drop(decided);
    crate::terminal::memory::give_back();
    crate::terminal::progress::stage_start("render");
    render::run(&mut assembled, &facts, &layers, plan)?;
    crate::terminal::progress::stage_done("render");
    let records: Vec<crate::previous::file_records::Pending> = layers
        .iter_mut()
        .flat_map(|l| std::mem::take(&mut l.records))
        .collect();
    let carried: Vec<crate::previous::carried::Carried> = layers
        .iter_mut()
        .flat_map(|l| std::mem::take(&mut l.carried))
        .chain(std::mem::take(&mut assembled.carried))
        .collect();
    drop(layers);
    crate::terminal::memory::give_back();
    let git_dir = previous.git_dir();
    crate::terminal::progress::stage_start("write");
    let (code, kept) = write::run(plan, summary, &assembled, (git_dir, &journal))?;
    // The made files' second names go before DIR's files are recorded: removing a name changes
    // the file's link count and ctime, which the record holds (docs/scale.md#made-as-written).
    drop(made);
    crate::terminal::progress::stage_done("write");
    if !plan.dry_run {
        remember(
            Remembered {
                blob_digests,
                verdicts,
                ledger_seqs,
                record,
                carried,
                records,
                kept,
            },
            git_dir,
            plan,
            &assembled,
        );
    }
    Ok(code)
}

/// The build's folder of made files beside DIR. A dry run's is made at once; where it cannot
/// be, the dry run says why and holds what it makes (docs/scale.md#dry-run-made).
fn made_files(plan: &BuildPlan) -> Result<Option<crate::site_write::staged_files::MadeFiles>> {
    use crate::site_write::staged_files::MadeFiles;
    if !plan.dry_run {
        return MadeFiles::beside(&plan.out).map(Some);
    }
    Ok(match MadeFiles::made_now(&plan.out) {
        Ok(made) => Some(made),
        Err(e) => {
            crate::say!(
                "exhibit: note: {e:#}; the dry run holds the files it makes in memory instead (docs/scale.md#dry-run-made)"
            );
            None
        }
    })
}

/// What a build leaves for the next, once DIR is written.
struct Remembered {
    blob_digests: crate::previous::blob_digests::Staged,
    verdicts: decide::Verdicts,
    ledger_seqs: crate::previous::ledger_seqs::LedgerSeqs,
    record: crate::previous::trust::Record,
    carried: Vec<crate::previous::carried::Carried>,
    records: Vec<crate::previous::file_records::Pending>,
    /// DIR's files the write stage found unchanged by DIR's record: their record stands.
    kept: crate::site_write::dir_record::KeptByRecord,
}

/// DIR is written; what the HEAD check hashed, what HEAD's ledger files hold, DIR's files as
/// they now stand, the store's proofs as checked and the guard's verdicts are remembered for
/// the next build (docs/scale.md#comparing-without-reading, docs/scale.md#carried-verdicts).
/// Caches: failing to save them fails nothing.
fn remember(
    r: Remembered,
    git_dir: Option<&Path>,
    plan: &BuildPlan,
    assembled: &assemble::Assembled,
) {
    let Remembered {
        blob_digests,
        verdicts,
        ledger_seqs,
        mut record,
        carried,
        records,
        kept,
    } = r;
    if let Err(e) = blob_digests.commit() {
        crate::say!("exhibit: note: {e:#}; the next build re-reads HEAD's blobs");
    }
    if let Err(e) = verdicts.save() {
        crate::say!("exhibit: note: {e:#}; the next build judges every line again");
    }
    if let Err(e) = ledger_seqs.save() {
        crate::say!("exhibit: note: {e:#}; the next build re-reads HEAD's ledger files");
    }
    if let Err(e) = crate::site_write::dir_record::save(git_dir, &plan.out, &assembled.tree, &kept)
    {
        crate::say!("exhibit: note: {e:#}; the next build reads DIR's files to compare them");
    }
    if let Err(e) = record.add(&assembled.snapshots.bytes) {
        crate::say!(
            "exhibit: note: {e:#}; the next build cannot recognise this publication as this machine's"
        );
    }
    for state in &carried {
        if let Err(e) = state.save() {
            crate::say!("exhibit: note: {e:#}; the next build does that work again");
        }
    }
    for records in records {
        if let Err(e) = records.commit() {
            crate::say!("exhibit: note: {e:#}; the next build reads the store's proofs");
        }
    }
    crate::terminal::progress::stage_done("caches saved");
}

/// HEAD checked before anything of it is trusted (docs/build.md#safety,
/// docs/anchoring.md#trusting-head): its files against its last snapshot, that snapshot against
/// the operator's key and this machine's record, and its log's origin. Returns the refusals
/// (none: the build goes on), whether HEAD's history is taken on trust, and the record.
fn check_head(
    plan: &BuildPlan,
    previous: &Previous,
    head: &crate::previous::head_check::HeadCheck,
) -> Result<(Vec<Refusal>, bool, crate::previous::trust::Record)> {
    let record = crate::previous::trust::Record::load(previous)?;
    if !head.hard.is_empty() || (!head.edited.is_empty() && plan.allow_rewrite.is_none()) {
        let mut all = head.hard.clone();
        all.extend(head.edited.iter().cloned());
        return Ok((all, false, record));
    }
    let owned = match head_is_owned(plan, previous, &record)? {
        Ok(owned) => owned,
        Err(refusal) => return Ok((vec![refusal], false, record)),
    };
    if let Some(refusal) = tree::origin_changed(plan, previous)?
        && plan.allow_rewrite.is_none()
    {
        return Ok((vec![refusal], false, record));
    }
    if !head.trusted() {
        crate::say!(
            "exhibit: note: HEAD's published files do not re-derive to its last snapshot ({} file(s)); published over them on --allow-rewrite, and HEAD's readings.json is not taken on trust",
            head.edited.len()
        );
    }
    Ok((Vec::new(), head.trusted() && owned, record))
}

/// Whether this build is a first publication in DIR (HEAD holds no `ledger/SNAPSHOTS.jsonl`
/// there), refused when this repository's record says a publication exists — in another folder,
/// or in DIR with DIR now empty (a wrong `--out`, a lost branch) — unless `--first-publication`
/// (docs/operator.md#first-publication).
fn first_publication(
    plan: &BuildPlan,
    previous: &Previous,
    record: &crate::previous::trust::Record,
) -> Result<std::result::Result<bool, Box<Refusal>>> {
    if previous.read("ledger/SNAPSHOTS.jsonl")?.is_some() {
        return Ok(Ok(false));
    }
    if plan.first_publication {
        return Ok(Ok(true));
    }
    let own = record.path();
    let dir_holds_exhibit = crate::site_write::out_dir::holds_exhibit(&plan.out);
    let named: Vec<std::path::PathBuf> =
        crate::previous::trust::records_naming_a_publication(previous)?
            .into_iter()
            .filter(|p| Some(p.as_path()) != own || !dir_holds_exhibit)
            .collect();
    // DIR's own record first: it says the most.
    let Some(path) = named
        .iter()
        .find(|p| Some(p.as_path()) == own)
        .or(named.first())
    else {
        return Ok(Ok(true));
    };
    let which = if Some(path.as_path()) == own {
        "this folder had a publication built on this machine, and HEAD holds none in it now (was the branch switched, or the commit lost?)".to_string()
    } else {
        "this repository holds a publication this machine built in another folder (is --out or [publish] out the folder you publish?)".to_string()
    };
    Ok(Err(Box::new(Refusal::new(
        "first_publication_over_record",
        plan.out.display().to_string(),
        "",
        format!(
            "a first publication: HEAD holds no ledger/SNAPSHOTS.jsonl in this folder, so every line would be published anew and nothing earlier kept withheld; but {which} (record: {})",
            path.display()
        ),
        "--first-publication, when a first publication in this folder is what you mean",
    ))))
}

/// Whether HEAD's last publication is the operator's: `true` when signed by the key or built
/// here, `false` when not but `--allow-rewrite` publishes over it, the refusal when the build must
/// refuse (docs/anchoring.md#trusting-head). Notes say the cases a person should know.
fn head_is_owned(
    plan: &BuildPlan,
    previous: &Previous,
    record: &crate::previous::trust::Record,
) -> Result<std::result::Result<bool, Refusal>> {
    use crate::previous::trust::Trust;
    Ok(
        match crate::previous::trust::check(previous, plan.key.as_deref(), record)? {
            Ok(Trust::Unrecorded) => {
                crate::say!(
                    "exhibit: note: this machine has no record of HEAD's last publication and no [checkpoint] key signs it: HEAD is trusted because its files re-derive to its last snapshot (a key makes a forged HEAD refusable: docs/anchoring.md#the-key)"
                );
                Ok(true)
            }
            Ok(Trust::FirstUnderKey) => {
                crate::say!(
                    "exhibit: note: HEAD's history carries no signature: this is the first publication signed by {}",
                    plan.key.as_deref().map_or("", |k| k.vkey.as_str())
                );
                Ok(true)
            }
            Ok(_) => Ok(true),
            Err(refusal) if plan.allow_rewrite.is_some() => {
                crate::say!(
                    "exhibit: note: {}: published over it on --allow-rewrite; HEAD's history is not taken on trust",
                    refusal.rule
                );
                Ok(false)
            }
            Err(refusal) => Err(refusal),
        },
    )
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
