//! `exhibit verify SITE_DIR`: a built or cloned exhibit checked as a stranger would — the same
//! answers the page gives, from the command line (issue: "A stranger's check of a published
//! tree"). Reads only the published tree; trusts nothing the build wrote about itself.

pub mod index_parts;
pub mod ledger_files;
pub mod outcome;
pub mod page;
pub mod page_days;
pub mod signatures;
pub mod snapshots;
pub mod stats_figures;
pub mod text_lines;
pub mod text_parts;
pub mod tree;
pub mod withheld;
pub mod witness_parts;

use exhibit_protocol::Digest;
use std::collections::BTreeSet;
use std::path::Path;

use anyhow::{Context, Result};

use crate::operator_box::posts::{self, ProofState};
use crate::operator_box::read::{BoxFolder, FileClass};
use exhibit_protocol::ots;
use outcome::{FileProblem, Outcome};

pub fn check_site(dir: &Path) -> Result<Outcome> {
    // A stranger's clone may hold anything: reads follow no symlink, take regular files only,
    // each within its ceiling (docs/build.md#safety) — `/dev/zero` as a proof is refused.
    let (site, ledger_dir) = open_site(dir)?;
    // The published ledger: ledger.jsonl, then segments/ in name order (docs/scale.md#layout).
    let mut files = Vec::new();
    let ledger_files = crate::site_check::ledger_files::find(&ledger_dir, &mut files)?;
    if ledger_files.is_empty() {
        return Err(not_an_exhibit(dir));
    }
    // Each file `verify SITE` holds others to is read once, so that one file is judged, not
    // two reads of it.
    let stats_bytes = ledger_dir.read("STATS.json", FileClass::OutputFile)?;
    let page = crate::site_check::page::read_page(&site)?;
    // withheld.json, then ledger/withheld/ in name order (docs/scale.md#withheld-files).
    let withheld =
        crate::site_check::withheld::check_site(&ledger_dir, stats_bytes.as_deref(), &mut files)?;

    // The posts first, so that only the entries their checks need are kept as the ledger
    // streams past, not a fact for every line (docs/scale.md#the-page-against-the-site).
    let posts = match ledger_dir.sub("anchors")? {
        Some(a) => Some(posts::read_posts(a.path())?),
        None => None,
    };
    let only_posts: Vec<exhibit_protocol::anchors::Post> =
        posts.iter().flatten().map(|(p, _)| p.clone()).collect();
    let mut kept = exhibit_protocol::anchors::KeptFacts::for_posts(&only_posts);
    drop(only_posts);
    // Each line's day as the page derives it, from the rules it carries
    // (docs/scale.md#the-pages-tz-rules).
    let mut page_days = page.as_deref().and_then(crate::site_check::page::page_days);
    // The released texts, each to be claimed by a published send line as the ledger streams
    // (docs/scale.md#texts-without-a-line).
    let texts_dir = ledger_dir.sub("public_texts")?;
    let mut text_lines = crate::site_check::text_lines::TextLines::of_folder(texts_dir.as_ref())?;
    // The seqs of the readable entry lines, for the figures STATS.json states
    // (docs/scale.md#stats-figures): 8 bytes a line.
    let mut published_seqs: Vec<i64> = Vec::new();
    let mut published_lines = 0u64;
    // The tree view, held to the chain as it streams (docs/tree.md#verifiers).
    let mut tree = crate::site_check::tree::TreeCheck::new(&ledger_dir)?;
    // Streamed: one file open at a time, one line in memory; each file tallied on the way.
    let mut chained = crate::site_check::ledger_files::Chained::new(ledger_files);
    let verified = exhibit_protocol::verify::verify_reader(
        std::io::BufReader::with_capacity(1 << 20, &mut chained),
        &withheld,
        exhibit_protocol::verify::Pass::Entries(&mut |entry, _| {
            kept.push(exhibit_protocol::anchors::EntryFacts::of_entry(entry));
            published_lines += 1;
            published_seqs.extend(entry.seq);
            text_lines.entry(entry);
            tree.entry(entry);
            if let Some(days) = page_days.as_mut() {
                days.entry(entry);
            }
        }),
    )
    .with_context(|| format!("{}: cannot read the published ledger", dir.display()))?;
    if let Some(days) = page_days {
        days.finish(verified.header.as_ref(), &mut files);
    }
    let header_digest = verified.header.and_then(|h| h.digest);
    let mut report = verified.report;
    let read = chained.finish(header_digest.map(|d| d.to_string()).as_deref());
    // A segmented exhibit, even one whose only file is a segment, names each file and holds
    // every one to its LF (docs/scale.md#verify-site).
    let segmented = read.files.len() > 1
        || read
            .files
            .iter()
            .any(|f| f.path.starts_with(crate::published::segments::SEGMENTS_DIR));
    if segmented {
        // A line of the whole ledger is also named by its file (docs/scale.md#verify-site).
        for p in report.problems.iter_mut().filter(|p| p.line > 0) {
            if let Some(place) = read.place(p.line) {
                p.detail.push_str(&format!(" ({place})"));
            }
        }
        read.check_files(&mut files);
    }
    let stats = read_stats(stats_bytes, &mut files);
    let tree = finish_tree(tree, &report, &withheld, &stats, &mut files)?;
    read.check_stats(stats.value.as_ref(), &mut files);
    // The page's copies against the files (docs/scale.md#the-page-against-the-site).
    let carried = match &page {
        Some(html) => {
            crate::site_check::page::check(html, &ledger_dir, &read.files, &stats, &mut files)?
        }
        None => None,
    };
    drop(page);
    let texts_carried = carried.is_some();

    let facts = kept.finish();
    anchor_lines_without_post(&facts, posts.as_deref(), &mut files);
    let anchors =
        posts.map(|p| posts::check_posts_with_proofs(&facts, &withheld, header_digest, p));

    // The days whose proof the publisher withheld as failing: their heads vouch for nothing,
    // as on the page (`proofFails`) and in the build (a failing proof's head is not counted).
    let proof_withheld = ledger_dir
        .sub("anchors")?
        .map_or(Ok(BTreeSet::new()), |a| {
            publisher_withheld_anchors(&a, anchors.as_deref().unwrap_or_default(), &mut files)
        })?;
    let mut excerpt_rows = crate::site_check::tree::ExcerptSource::default();
    let texts = match &texts_dir {
        Some(folder) => {
            check_public_texts(folder, &text_lines, carried, &mut excerpt_rows, &mut files)?
        }
        // No folder: every text the page carries is one the site does not hold.
        None => {
            texts_differ(Vec::new(), carried, &mut files);
            0
        }
    };
    text_lines.finish(&mut files);
    excerpts_against_texts(&tree, &stats, excerpt_rows, &mut files)?;
    if let Some(texts_dir) = &texts_dir {
        // A segmented exhibit's index parts (docs/public-texts.md#parts).
        crate::site_check::text_parts::check(texts_dir, &mut files)?;
    }
    if report.ok
        && let Some(value) = &stats.value
    {
        let vouching: Vec<posts::AnchorReport> = anchors
            .as_deref()
            .unwrap_or_default()
            .iter()
            .filter(|a| !proof_withheld.contains(&a.check.date))
            .cloned()
            .collect();
        let mut derived = derived_figures(
            &vouching,
            &withheld,
            &published_seqs,
            published_lines,
            report.head.map(|h| h.to_string()),
        );
        derived.texts = texts_carried.then_some(texts);
        crate::site_check::stats_figures::check(value, &derived, &mut files);
    }
    drop(published_seqs);
    check_beside_the_chain(dir, &ledger_dir, &mut files)?;
    build_leftovers(dir, &mut files);
    Ok(Outcome {
        tree: Some(tree),
        ..outcome::outcome(report, anchors, Some(files))
    })
}

/// The excerpt index against the released texts' rows; required when STATS.json states it
/// (docs/tree.md#excerpts).
fn excerpts_against_texts(
    tree: &crate::site_check::tree::TreeReport,
    stats: &crate::site_check::page::StatsFile,
    source: crate::site_check::tree::ExcerptSource,
    files: &mut Vec<FileProblem>,
) -> Result<()> {
    let stated = stats
        .value
        .as_ref()
        .and_then(|v| v.pointer("/tree/excerpts"))
        .is_some_and(|v| v == true);
    crate::site_check::tree::check_excerpts(tree, stated, source, files)
}

/// The site's folder and its `ledger/`.
fn open_site(dir: &Path) -> Result<(BoxFolder, BoxFolder)> {
    let site =
        BoxFolder::named(dir)?.with_context(|| format!("{}: no such folder", dir.display()))?;
    let ledger_dir = site.sub("ledger")?.ok_or_else(|| not_an_exhibit(dir))?;
    Ok((site, ledger_dir))
}

fn not_an_exhibit(dir: &Path) -> anyhow::Error {
    anyhow::anyhow!(
        "{}: not an exhibit: {} is missing (give a ledger file, or the directory `exhibit build --out` wrote)",
        dir.display(),
        dir.join("ledger").join("ledger.jsonl").display()
    )
}

/// The tree held to the chain once it is read, and STATS.json's figures of it.
fn finish_tree(
    tree: crate::site_check::tree::TreeCheck,
    report: &exhibit_protocol::Report,
    withheld: &exhibit_protocol::Withheld,
    stats: &crate::site_check::page::StatsFile,
    files: &mut Vec<FileProblem>,
) -> Result<crate::site_check::tree::TreeReport> {
    let stats_tree = stats
        .value
        .as_ref()
        .is_some_and(|v| v.get("tree").is_some());
    let mut tree = tree.finish(report, withheld, stats_tree, files)?;
    check_stats_tree(stats.value.as_ref(), &tree, files);
    // The operator's signatures (docs/anchoring.md#what-verify-says).
    let key = stats
        .value
        .as_ref()
        .and_then(|v| v.pointer("/tree/key"))
        .and_then(|k| k.as_str());
    let ledger = tree.ledger_dir.clone();
    let checkpoint = match ledger.sub("tree")? {
        Some(t) => t.read("checkpoint", FileClass::AnchorPost)?,
        None => None,
    };
    let snapshots = ledger.read("SNAPSHOTS.jsonl", FileClass::OutputFile)?;
    tree.signatures = Some(crate::site_check::signatures::check(
        key,
        checkpoint.as_deref(),
        snapshots.as_deref(),
        files,
    ));
    tree.cosigned = cosignatures(stats.value.as_ref(), checkpoint.as_deref(), files);
    Ok(tree)
}

/// The checkpoint's cosignatures against the witnesses STATS.json lists
/// (docs/anchoring.md#cosignatures); `None` when it lists none.
fn cosignatures(
    stats: Option<&serde_json::Value>,
    checkpoint: Option<&[u8]>,
    files: &mut Vec<FileProblem>,
) -> Option<crate::published::cosignature::Cosigned> {
    let listed = match crate::published::cosignature::listed_in_stats(stats?)? {
        Ok(l) => l,
        Err(why) => {
            files.push(FileProblem {
                file: "ledger/STATS.json".into(),
                code: "witness_key".into(),
                detail: format!("{why} (docs/anchoring.md#cosignatures)"),
            });
            return None;
        }
    };
    let c = crate::published::cosignature::check_note(checkpoint.unwrap_or_default(), &listed);
    for (code, detail) in &c.problems {
        files.push(FileProblem {
            file: if code == "witness_key" {
                "ledger/STATS.json".into()
            } else {
                "ledger/tree/checkpoint".into()
            },
            code: code.clone(),
            detail: detail.clone(),
        });
    }
    Some(c)
}

/// STATS.json's `tree` against the tree re-derived (docs/tree.md#verifiers).
fn check_stats_tree(
    stats: Option<&serde_json::Value>,
    tree: &crate::site_check::tree::TreeReport,
    files: &mut Vec<FileProblem>,
) {
    let (Some(stated), true) = (stats.and_then(|v| v.get("tree")), tree.checked) else {
        return;
    };
    let size = stated.get("size").and_then(serde_json::Value::as_u64);
    let root = stated.get("root").and_then(serde_json::Value::as_str);
    if size != tree.size || root != tree.root.as_deref() {
        files.push(FileProblem {
            file: "ledger/STATS.json".into(),
            code: "stats_figure_mismatch".into(),
            detail: format!(
                "tree: STATS.json states {stated} where the chain re-derives size {} and root {} (docs/tree.md#verifiers)",
                tree.size.unwrap_or(0),
                tree.root.as_deref().unwrap_or("")
            ),
        });
    }
}

/// STATS.json's bytes and value. One that no reader can read as one object compares no figure:
/// a failure, never a silent pass (docs/verifier.md "Reading a site's JSON"; the page fails it
/// too).
fn read_stats(
    bytes: Option<Vec<u8>>,
    files: &mut Vec<FileProblem>,
) -> crate::site_check::page::StatsFile {
    let value: Option<serde_json::Value> = bytes
        .as_deref()
        .and_then(|b| serde_json::from_slice(b).ok());
    if bytes.is_some() && !value.as_ref().is_some_and(|v| v.is_object()) {
        files.push(FileProblem {
            file: "ledger/STATS.json".into(),
            code: "stats_unreadable".into(),
            detail: "is not one JSON object as the site's JSON files are read (a byte order mark, a byte that is not UTF-8, trailing bytes, a lone surrogate, a number past a double, null): none of the publisher's figures can be compared".into(),
        });
    }
    crate::site_check::page::StatsFile { value, bytes }
}

/// The files the chain does not re-derive: the witness layer's proofs and parts, then every file
/// under `ledger/` against the last snapshot's digests (docs/verifier.md#the-snapshots-digests).
fn check_beside_the_chain(
    dir: &Path,
    ledger_dir: &BoxFolder,
    files: &mut Vec<FileProblem>,
) -> Result<()> {
    if let Some(witness) = ledger_dir.sub("witness")? {
        if let Some(proofs) = witness.sub("proofs")? {
            check_witness_proofs(&proofs, files)?;
        }
        // A segmented exhibit's index parts and run-log files (docs/witness.md#parts).
        crate::site_check::witness_parts::check(&witness, files)?;
    }
    let snapshots = ledger_dir.read("SNAPSHOTS.jsonl", FileClass::OutputFile)?;
    crate::site_check::snapshots::check(dir, snapshots.as_deref(), files)
}

/// Each temporary file of exhibit's write stage in the site (`.<name>.exhibit-tmp-<pid>`,
/// docs/build.md#the-write): a build was stopped before it renamed it into place or removed it.
/// Never part of a publication (`git add` would publish it): named as what it is, with the fix.
fn build_leftovers(dir: &Path, files: &mut Vec<FileProblem>) {
    let walk = walkdir::WalkDir::new(dir)
        .follow_links(false)
        .into_iter()
        .filter_entry(|e| e.file_name() != ".git");
    for entry in walk.flatten() {
        let Some((_, pid)) = crate::site_write::temp_of(entry.file_name().as_encoded_bytes())
        else {
            continue;
        };
        let rel = entry.path().strip_prefix(dir).unwrap_or(entry.path());
        files.push(FileProblem {
            file: rel.display().to_string(),
            code: "build_leftover".into(),
            detail: format!(
                "a temporary file of a build that was interrupted (process {pid}), never part of a publication: run the build again, which removes it"
            ),
        });
    }
}

/// Each date a published `anchor` line names that no post of the site is for: a head dropped
/// from the site, which no one can check (docs/verifier.md "Anchor lines without a post"; the
/// page fails it too).
fn anchor_lines_without_post(
    facts: &[exhibit_protocol::anchors::EntryFacts],
    posts: Option<&[posts::PostWithProof]>,
    files: &mut Vec<FileProblem>,
) {
    let posts: Vec<exhibit_protocol::anchors::Post> = posts
        .unwrap_or_default()
        .iter()
        .map(|(p, _)| p.clone())
        .collect();
    for date in exhibit_protocol::anchors::dates_without_post(facts, &posts) {
        files.push(FileProblem {
            file: format!("ledger/anchors/{date}.txt"),
            code: "anchor_post_missing".into(),
            detail: format!(
                "the ledger's anchor line says a head was posted for {date}; the site holds no post for that date, so the head cannot be checked"
            ),
        });
    }
}

/// The figures the page counts beside STATS.json's (docs/scale.md#stats-figures): a posted head
/// vouches only when its checks pass and its proof's header does not fail.
fn derived_figures(
    anchors: &[posts::AnchorReport],
    withheld: &exhibit_protocol::verify::Withheld,
    published_seqs: &[i64],
    published_lines: u64,
    head: Option<String>,
) -> crate::site_check::stats_figures::Derived {
    let heads = crate::operator_box::posts::vouching_heads(anchors);
    let withheld_seqs: Vec<i64> = withheld.by_seq.keys().copied().collect();
    crate::site_check::stats_figures::Derived {
        published: published_lines,
        withheld: withheld.by_seq.len() as u64,
        coverage: crate::site_check::stats_figures::coverage(
            published_seqs,
            &withheld_seqs,
            &heads,
        ),
        heads_ok: anchors.iter().filter(|a| a.vouches()).count() as u64,
        head,
        texts: None,
    }
}

/// What the publisher says it withheld for failing, in `anchors/index.json`: a proof whose header
/// check failed (`proof_file` null, `checks.proof_header` a problem code — the build publishes no
/// failing proof, docs/build.md#safety) and a post it lists as failing whose text it withheld.
/// Each is a problem, as on the page (docs/page.md#a-withheld-proof): a stranger cannot check
/// what is not there, and the publisher's own word is that it failed.
fn publisher_withheld_anchors(
    anchors_dir: &BoxFolder,
    checked: &[posts::AnchorReport],
    files: &mut Vec<FileProblem>,
) -> Result<BTreeSet<String>> {
    let mut withheld_proofs = BTreeSet::new();
    let Some(bytes) = anchors_dir.read("index.json", FileClass::AnchorsIndex)? else {
        return Ok(withheld_proofs);
    };
    let Ok(index) = serde_json::from_slice::<serde_json::Value>(&bytes) else {
        files.push(FileProblem {
            file: "ledger/anchors/index.json".into(),
            code: "anchors_index_invalid".into(),
            detail: "is not JSON: what the publisher says of its posts and proofs cannot be read"
                .into(),
        });
        return Ok(withheld_proofs);
    };
    let posts = index.get("posts").and_then(|p| p.as_array());
    for p in posts.into_iter().flatten() {
        // Only a name of the layout's grammar becomes a path or a printed word.
        let Some(date) = p
            .get("date")
            .and_then(|d| d.as_str())
            .filter(|d| exhibit_protocol::days::is_day(d))
        else {
            continue;
        };
        let here = checked.iter().find(|r| r.check.date == date);
        let header = p
            .get("checks")
            .and_then(|c| c.get("proof_header"))
            .and_then(|h| h.as_str());
        let proof_withheld = p.get("proof_file").is_some_and(|f| f.is_null())
            && header.is_some_and(|h| h != "ok" && h != "missing");
        // A proof the clone does carry is checked on its bytes instead.
        if proof_withheld && here.is_none_or(|r| r.proof == ProofState::Missing) {
            withheld_proofs.insert(date.to_string());
            let code = header
                .filter(|h| h.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'))
                .unwrap_or("unknown");
            files.push(FileProblem {
                file: format!("ledger/anchors/{date}.txt.ots"),
                code: "anchor_proof_withheld".into(),
                detail: format!(
                    "the publisher withheld this day's proof: its header did not commit to the post (anchors/index.json: proof_header {code})"
                ),
            });
        }
        if here.is_none() && p.get("ok").and_then(|o| o.as_bool()) == Some(false) {
            files.push(FileProblem {
                file: format!("ledger/anchors/{date}.txt"),
                code: "anchor_post_withheld".into(),
                detail: "the publisher lists this day's post as failing (not in the exact posted form) and withheld its text (anchors/index.json)".into(),
            });
        }
    }
    Ok(withheld_proofs)
}

/// Every published proof must commit to the digest its name gives (docs/protocol.md#ots-header),
/// in `proofs/` and in its folders — the seq buckets `NNNNNN/` and `other/`, which hold regular
/// files named `<entry_id>.ots` and nothing else (docs/witness.md#proof-folders).
fn check_witness_proofs(proofs: &BoxFolder, files: &mut Vec<FileProblem>) -> Result<()> {
    for listed in proofs.list()? {
        let name = &listed.name;
        let rel = format!("ledger/witness/proofs/{name}");
        if listed.utf8
            && listed.dir
            && crate::published::layout::ProofPlace::of_folder(name).is_some()
            && let Some(folder) = proofs.sub(name)?
        {
            check_proofs_folder(&folder, name, files)?;
            continue;
        }
        if !listed.utf8 || !crate::published::layout::is_witness_proof(name) {
            files.push(FileProblem {
                file: rel,
                code: "bad_name".into(),
                detail: "a proof's name must be <entry_id>.ots or prereg_<sha256>.ots".into(),
            });
            continue;
        }
        let Some(stem) = name.strip_suffix(".ots") else {
            continue;
        };
        let digest = stem.strip_prefix("prereg_").unwrap_or(stem);
        check_proof(proofs, name, digest, rel, files)?;
    }
    Ok(())
}

/// A proof against the digest its name says it commits to.
fn check_proof(
    folder: &BoxFolder,
    name: &str,
    digest: &str,
    rel: String,
    files: &mut Vec<FileProblem>,
) -> Result<()> {
    if let Some(bytes) = folder.read(name, FileClass::Proof)?
        && let Err(p) = ots::check_named(&bytes, digest)
    {
        files.push(FileProblem {
            file: rel,
            code: format!("proof_{}", p.code()),
            detail: format!("the proof {p} than its name says"),
        });
    }
    Ok(())
}

/// One of `proofs/`'s folders (`folder`, named `name`): each of its names a regular file
/// `<entry_id>.ots` whose proof commits to that entry_id (docs/witness.md#proof-folders).
fn check_proofs_folder(folder: &BoxFolder, name: &str, files: &mut Vec<FileProblem>) -> Result<()> {
    for listed in folder.list()? {
        let file = &listed.name;
        let rel = format!("ledger/witness/proofs/{name}/{file}");
        let digest = file
            .strip_suffix(".ots")
            .filter(|d| listed.utf8 && listed.file && Digest::is_hex(d));
        let Some(digest) = digest else {
            files.push(FileProblem {
                file: rel,
                code: "bad_name".into(),
                detail: format!(
                    "ledger/witness/proofs/{name}/ holds only regular files named <entry_id>.ots (docs/witness.md#proof-folders)"
                ),
            });
            continue;
        };
        check_proof(folder, file, digest, rel, files)?;
    }
    Ok(())
}

/// Every released text must hash to its own name (docs/protocol.md#proving-one-message: `sha256sum public_texts/<sent_sha256>.txt`
/// must print the file's own name), and, where the page carries the texts, be the page's copy
/// byte for byte (docs/scale.md#the-pages-texts): each is read once, for both.
/// Returns how many texts the folder holds; takes each matched text out of `carried`.
/// Each text that hashes to its name and has a send line gives `excerpt_rows` its pair (seq,
/// digest) and its rows (docs/tree.md#excerpts).
fn check_public_texts(
    folder: &BoxFolder,
    lines: &crate::site_check::text_lines::TextLines,
    mut carried: Option<crate::site_check::page::CarriedTexts>,
    excerpt_rows: &mut crate::site_check::tree::ExcerptSource,
    files: &mut Vec<FileProblem>,
) -> Result<u64> {
    let mut count = 0;
    let mut differ = Vec::new();
    for name in lines.file_names() {
        let Some(stem) = name.strip_suffix(".txt") else {
            continue;
        };
        let Some(bytes) = folder.read(&name, FileClass::PublicText)? else {
            continue;
        };
        count += 1;
        let actual = Digest::of(&bytes).to_string();
        if actual != stem {
            files.push(FileProblem {
                file: format!("ledger/public_texts/{name}"),
                code: "text_digest_mismatch".into(),
                detail: format!("the bytes hash to {actual}, not to the name"),
            });
        } else if let Some((seq, digest)) = stem
            .parse()
            .ok()
            .and_then(|d| Some((lines.first_seq(&d)?, d)))
        {
            excerpt_rows.pairs.push((seq, digest));
            if let Ok(text) = std::str::from_utf8(&bytes) {
                let rows = exhibit_protocol::excerpt::rows_of_text(seq, text);
                excerpt_rows.rows.extend(rows);
            }
        }
        if let Some(carried) = carried.as_mut() {
            match carried.remove(stem) {
                Some(Some(copy)) if copy == bytes => {}
                Some(_) => differ.push(format!("{name} (other bytes)")),
                None => differ.push(format!("{name} (not carried)")),
            }
        }
    }
    texts_differ(differ, carried, files);
    Ok(count)
}

/// One problem on the page for every text its copy gets wrong, naming the first few: `differ`,
/// then what the page carries that the folder does not hold (`left`).
fn texts_differ(
    mut differ: Vec<String>,
    left: Option<crate::site_check::page::CarriedTexts>,
    files: &mut Vec<FileProblem>,
) {
    const NAMED: usize = 5;
    differ.extend(
        left.into_iter()
            .flat_map(|c| c.into_keys())
            .map(|name| format!("{name}.txt (no such file)")),
    );
    if differ.is_empty() {
        return;
    }
    let more = differ.len().saturating_sub(NAMED);
    files.push(FileProblem {
        file: "index.html".into(),
        code: "page_copy_mismatch".into(),
        detail: format!(
            "its data block public-texts-json does not carry ledger/public_texts/ as it is; the texts that differ ({}): {}{}",
            differ.len(),
            differ[..differ.len().min(NAMED)].join(", "),
            if more > 0 { format!(" and {more} more") } else { String::new() }
        ),
    });
}
