//! `exhibit prove`: one message proved against a published exhibit's checkpoint, reading only
//! the files a stranger would fetch — the checkpoint, the index buckets a digest needs, one
//! lines file and the tiles of one inclusion proof — never the whole ledger (docs/tree.md).
//!
//! What it proves and what it does not is docs/tree.md#what-it-proves; every answer names the
//! checkpoint it was proved against, and the bytes it read.

use std::cell::Cell;
use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use exhibit_protocol::Digest;
use exhibit_protocol::tree::{self, Checkpoint, TreeFile, TreeSource};

use crate::operator_box::read::{BoxFolder, FileClass};

/// What to find.
#[derive(Debug, Clone)]
pub enum Wanted {
    Seq(u64),
    Digest(Digest),
    /// A message's text (its bytes as given): its sha256, and the seq its trailer names.
    Text(PathBuf),
    /// An excerpt of a released text: the excerpt index's candidates, each held to its text.
    Excerpt(PathBuf),
}

#[derive(Debug, Clone)]
pub struct ProvePlan {
    pub site: PathBuf,
    /// None: only the consistency of `since` is asked.
    pub wanted: Option<Wanted>,
    /// An older checkpoint to hold today's to (consistency).
    pub since: Option<PathBuf>,
    pub json: bool,
}

/// A site's tree files, read with a ceiling each, counted.
struct SiteTree {
    folder: BoxFolder,
    files: Cell<u64>,
    bytes: Cell<u64>,
}

impl SiteTree {
    fn read_file(&self, file: &TreeFile) -> Result<Option<Vec<u8>>> {
        let limit = match file {
            TreeFile::Checkpoint => 65_536,
            TreeFile::Tile { .. } => 8_192,
            TreeFile::Entries { .. } => 256 * 34,
            // A lines file holds 256 lines; the ledger's own ceiling on a file bounds it.
            TreeFile::Lines { .. } => 1 << 30,
            TreeFile::IndexBucket { .. }
            | TreeFile::IndexTail { .. }
            | TreeFile::ExcerptBucket { .. }
            | TreeFile::ExcerptTail { .. } => 256 << 20,
            // 1,024 entries of 40 bytes at most.
            TreeFile::ExcerptTexts { .. } => 40 * 1024,
        };
        // Read as `verify SITE` reads a tree file: no symlink followed, one byte past the ceiling.
        let Some(bytes) = crate::site_check::tree::read_tree_file(&self.folder, file, limit + 1)?
        else {
            return Ok(None);
        };
        if bytes.len() as u64 > limit {
            bail!(
                "{}: over {limit} bytes, more than such a file can hold (docs/tree.md#layout)",
                self.folder.path().join(file.path()).display()
            );
        }
        self.files.set(self.files.get() + 1);
        self.bytes.set(self.bytes.get() + bytes.len() as u64);
        Ok(Some(bytes))
    }
}

impl TreeSource for SiteTree {
    fn read(&self, file: &TreeFile) -> Result<Vec<u8>, String> {
        match self.read_file(file) {
            Ok(Some(b)) => Ok(b),
            Ok(None) => Err(format!("ledger/tree/{}: absent", file.path())),
            Err(e) => Err(format!("{e:#}")),
        }
    }
}

/// One line found and proved.
#[derive(Debug, serde::Serialize)]
struct Found {
    seq: u64,
    entry_id: Digest,
    /// The line as published.
    line: String,
    /// The fields that carry the digest asked for (none when asked by seq).
    matched: Vec<&'static str>,
    /// The inclusion proof held to the checkpoint's root.
    included: bool,
    proof_hashes: usize,
    why_not: Option<String>,
    /// Asked by excerpt: where the line's released text holds it.
    #[serde(skip_serializing_if = "Option::is_none")]
    excerpt: Option<ExcerptPlace>,
}

/// An excerpt seen in a line's released text (docs/tree.md#excerpts).
#[derive(Debug, serde::Serialize)]
struct ExcerptPlace {
    /// The released text's file, which hashes to the line's `sent_sha256`.
    text: String,
    /// The excerpt's first word's place among the text's words (from 1), and its words.
    word: usize,
    words: usize,
    /// Whether the excerpt's words are all of the text's (the paste is then the whole text's words).
    whole: bool,
}

#[derive(Debug, serde::Serialize)]
struct Answer {
    ok: bool,
    checkpoint: CheckpointJson,
    asked: String,
    found: Vec<Found>,
    /// Seqs the index named whose line does not carry the digest (an 8-byte prefix collision).
    index_false_hits: Vec<u64>,
    consistency: Option<Consistency>,
    /// What was read to answer.
    files_read: u64,
    bytes_read: u64,
    notes: Vec<String>,
}

#[derive(Debug, serde::Serialize)]
struct CheckpointJson {
    origin: String,
    size: u64,
    root: String,
    head_seq: u64,
    head: Digest,
}

#[derive(Debug, serde::Serialize)]
struct Consistency {
    old_size: u64,
    old_root: String,
    holds: bool,
    why_not: Option<String>,
}

pub fn run(plan: &ProvePlan) -> Result<ExitCode> {
    let ledger = BoxFolder::named(&plan.site)?
        .with_context(|| format!("{}: no such folder", plan.site.display()))?
        .sub("ledger")?
        .with_context(|| {
            format!(
                "{}: not an exhibit (no ledger/ folder)",
                plan.site.display()
            )
        })?;
    let folder = ledger.sub("tree")?.with_context(|| {
        format!(
            "{}: publishes no tree (ledger/tree/ is absent: an exhibit built before the tree view); `exhibit verify {}` re-derives the whole chain instead",
            plan.site.display(),
            plan.site.display()
        )
    })?;
    let site = SiteTree {
        folder,
        files: Cell::new(0),
        bytes: Cell::new(0),
    };
    let cp_bytes = site
        .read_file(&TreeFile::Checkpoint)?
        .with_context(|| format!("{}: ledger/tree/checkpoint is absent", plan.site.display()))?;
    let cp = Checkpoint::parse(&cp_bytes).map_err(|e| {
        anyhow::anyhow!(
            "{}: ledger/tree/checkpoint is not a checkpoint: {e} (docs/tree.md#checkpoint)",
            plan.site.display()
        )
    })?;
    let mut notes = Vec::new();
    let mut found = Vec::new();
    let mut false_hits = Vec::new();
    let asked = match &plan.wanted {
        Some(Wanted::Excerpt(path)) => {
            let texts = ledger.sub("public_texts")?;
            let excerpt = read_message(path)?;
            let excerpt = String::from_utf8_lossy(&excerpt).into_owned();
            let held = by_excerpt(&site, texts.as_ref(), &cp, &excerpt)?;
            found = held.0;
            false_hits = held.1;
            notes.extend(held.2);
            format!(
                "the excerpt in {} ({} words)",
                path.display(),
                exhibit_protocol::excerpt::words(&excerpt).len()
            )
        }
        _ => prove_by_lookup(
            plan,
            &site,
            &cp,
            &mut (&mut found, &mut false_hits, &mut notes),
        )?,
    };
    let consistency = match &plan.since {
        Some(path) => Some(consistency(&site, &cp, path)?),
        None => None,
    };
    let ok = (plan.wanted.is_none() || (!found.is_empty() && found.iter().all(|f| f.included)))
        && consistency.as_ref().is_none_or(|c| c.holds);
    let answer = Answer {
        ok,
        checkpoint: CheckpointJson {
            origin: cp.origin.clone(),
            size: cp.size,
            root: Digest(cp.root).to_string(),
            head_seq: cp.head_seq,
            head: cp.head,
        },
        asked,
        found,
        index_false_hits: false_hits,
        consistency,
        files_read: site.files.get(),
        bytes_read: site.bytes.get(),
        notes,
    };
    let mut out = std::io::stdout().lock();
    if plan.json {
        let tagged = crate::terminal::json_schema::Tagged {
            schema: crate::terminal::json_schema::PROVE,
            body: &answer,
        };
        serde_json::to_writer(&mut out, &tagged)?;
        writeln!(out)?;
    } else {
        words(&mut out, &answer)?;
    }
    Ok(if answer.ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// What was found: the lines, the index's false hits, notes.
type Founds<'a> = (&'a mut Vec<Found>, &'a mut Vec<u64>, &'a mut Vec<String>);

/// A seq, a digest or a text: the digest index's candidates and the trailer's seq, each proved.
fn prove_by_lookup(
    plan: &ProvePlan,
    site: &SiteTree,
    cp: &Checkpoint,
    out: &mut Founds<'_>,
) -> Result<String> {
    let (asked, digest, seqs) = what_to_look_for(plan, cp)?;
    let mut candidates: Vec<u64> = seqs;
    if let Some(d) = &digest {
        for file in tree::index_lookup(cp.size, d) {
            let bytes = site.read(&file).map_err(|e| anyhow::anyhow!("{e}"))?;
            let hits = tree::index_seqs(&bytes, d)
                .with_context(|| format!("ledger/tree/{}: not whole 16-byte rows", file.path()))?;
            candidates.extend(hits);
        }
    }
    candidates.sort_unstable();
    candidates.dedup();
    for seq in candidates {
        match prove_seq(site, cp, seq, digest.as_ref())? {
            Some(f) if digest.is_none() || !f.matched.is_empty() => out.0.push(f),
            Some(_) => out.1.push(seq),
            None => out.2.push(format!(
                "seq {seq}: no published line (withheld, or past the checkpoint's {} seqs)",
                cp.size
            )),
        }
    }
    Ok(asked)
}

/// An excerpt (docs/tree.md#excerpts): the excerpt index's buckets for its least shingle key
/// name candidate seqs; each is proved as a seq, and counts only when its line's released text
/// hashes to the line's `sent_sha256` and holds the excerpt's words as a run. Returns the lines
/// found, the candidates that did not hold, and notes.
fn by_excerpt(
    site: &SiteTree,
    texts: Option<&BoxFolder>,
    cp: &Checkpoint,
    excerpt: &str,
) -> Result<(Vec<Found>, Vec<u64>, Vec<String>)> {
    use exhibit_protocol::excerpt;
    let (mut found, mut misses, mut notes) = (Vec::new(), Vec::new(), Vec::new());
    let Some(first) = excerpt::lookup(excerpt) else {
        notes.push(format!(
            "an excerpt needs {} words or more to be looked up (docs/tree.md#excerpts)",
            excerpt::MIN_WORDS
        ));
        return Ok((found, misses, notes));
    };
    // Every key winnowing keeps of the excerpt's own shingles is a row of any text that holds
    // it (docs/tree.md#excerpts): a candidate must be named under each.
    // The least key's rows are held to its contexts too (docs/tree.md#excerpts).
    let mut keys = vec![(first.key, first.before, first.after)];
    keys.extend(
        excerpt::winnowed(&excerpt::shingle_keys(&excerpt::words(excerpt)))
            .into_iter()
            .filter(|&k| k != first.key)
            .map(|k| (k, None, None)),
    );
    let mut candidates: Option<Vec<u64>> = None;
    for (key, before, after) in keys {
        let mut named = Vec::new();
        for file in excerpt::excerpt_lookup(cp.size, key) {
            let Some(bytes) = site.read_file(&file)? else {
                notes.push(format!(
                    "ledger/tree/{} is absent: this exhibit publishes no excerpt index (built without --public-texts, or before it)",
                    file.path()
                ));
                return Ok((found, misses, notes));
            };
            let hits = excerpt::lookup_seqs(&bytes, key, before, after)
                .with_context(|| format!("ledger/tree/{}: not whole 16-byte rows", file.path()))?;
            named.extend(hits);
        }
        named.sort_unstable();
        named.dedup();
        candidates = Some(match candidates {
            None => named,
            Some(before) => before
                .into_iter()
                .filter(|q| named.binary_search(q).is_ok())
                .collect(),
        });
        if candidates.as_ref().is_some_and(|c| c.len() <= 1) {
            break;
        }
    }
    let candidates = candidates.unwrap_or_default();
    let want = excerpt::words(excerpt).len();
    // Each text map file is read once, and a text the map named is not read again for its line.
    let mut maps = std::collections::BTreeMap::new();
    for seq in candidates {
        // The text map names the candidate's text: one that re-hashes and does not hold the
        // words needs no line read (docs/tree.md#text-map). Any other is proved through its line.
        let mapped = match texts {
            Some(texts) => map_text(site, texts, &mut maps, cp.size, seq)?,
            None => None,
        };
        if mapped
            .as_ref()
            .is_some_and(|(_, text)| excerpt::place_in(text, excerpt).is_none())
        {
            misses.push(seq);
            continue;
        }
        let Some(mut f) = prove_seq(site, cp, seq, None)? else {
            misses.push(seq);
            continue;
        };
        let place = match (sent_of(&f.line), texts) {
            (Some(sent), Some(texts)) => match mapped {
                Some((named, text)) if named == sent => Some(text),
                _ => read_text(site, texts, &sent)?,
            }
            .and_then(|text| {
                let t = excerpt::words(&text).len();
                excerpt::place_in(&text, excerpt).map(|at| ExcerptPlace {
                    text: format!("ledger/public_texts/{sent}.txt"),
                    word: at + 1,
                    words: want,
                    whole: t == want,
                })
            }),
            _ => None,
        };
        match place {
            Some(p) => {
                f.excerpt = Some(p);
                found.push(f);
            }
            None => misses.push(seq),
        }
    }
    Ok((found, misses, notes))
}

/// A published line's `sent_sha256`.
fn sent_of(line: &str) -> Option<Digest> {
    let parsed = exhibit_protocol::canonical::parse(line.as_bytes()).ok()?;
    parsed
        .value
        .as_object()?
        .get_str("sent_sha256")?
        .parse()
        .ok()
}

/// A released text, counted as read, when it is there, hashes to its name and is UTF-8.
/// The released text the text map names for `seq`, with its digest, when the map names one and
/// it re-hashes to the map's digest; `None` otherwise (no map, a map that does not parse, no
/// such text). `maps` keeps each map file read, by its place.
fn map_text(
    site: &SiteTree,
    texts: &BoxFolder,
    maps: &mut std::collections::BTreeMap<TreeFile, Option<Vec<u8>>>,
    size: u64,
    seq: u64,
) -> Result<Option<(Digest, String)>> {
    let Some(file) = exhibit_protocol::excerpt::text_map_file(size, seq) else {
        return Ok(None);
    };
    if !maps.contains_key(&file) {
        let bytes = site.read_file(&file)?;
        maps.insert(file.clone(), bytes);
    }
    let named = maps.get(&file).and_then(Option::as_ref).and_then(|b| {
        exhibit_protocol::excerpt::text_map_digest(b, seq)
            .ok()
            .flatten()
    });
    match named {
        Some(digest) => Ok(read_text(site, texts, &digest)?.map(|text| (digest, text))),
        None => Ok(None),
    }
}

fn read_text(site: &SiteTree, texts: &BoxFolder, sent: &Digest) -> Result<Option<String>> {
    let Some(bytes) = texts.read(&format!("{sent}.txt"), FileClass::PublicText)? else {
        return Ok(None);
    };
    site.files.set(site.files.get() + 1);
    site.bytes.set(site.bytes.get() + bytes.len() as u64);
    if Digest::of(&bytes) != *sent {
        return Ok(None);
    }
    Ok(String::from_utf8(bytes).ok())
}

/// A message's bytes from a file, or stdin for `-` (at most 4 MiB).
fn read_message(path: &std::path::Path) -> Result<Vec<u8>> {
    if path.as_os_str() == "-" {
        let mut b = Vec::new();
        std::io::stdin()
            .take(4 << 20)
            .read_to_end(&mut b)
            .context("stdin: cannot read the message")?;
        return Ok(b);
    }
    crate::operator_box::read::read_named(path, FileClass::Source)?
        .with_context(|| format!("{}: no such file", path.display()))
}

/// What the plan asks for: words for it, the digest to look up, and seqs named directly.
fn what_to_look_for(
    plan: &ProvePlan,
    cp: &Checkpoint,
) -> Result<(String, Option<Digest>, Vec<u64>)> {
    Ok(match plan.wanted.as_ref() {
        None => ("nothing but the older checkpoint".into(), None, Vec::new()),
        Some(Wanted::Seq(s)) => {
            if *s == 0 || *s > cp.size {
                bail!(
                    "--seq {s}: the checkpoint's tree holds seqs 1..={} (docs/tree.md#leaves)",
                    cp.size
                );
            }
            (format!("seq {s}"), None, vec![*s])
        }
        Some(Wanted::Digest(d)) => (format!("sha256 {d}"), Some(*d), Vec::new()),
        Some(Wanted::Excerpt(_)) => ("an excerpt".into(), None, Vec::new()),
        Some(Wanted::Text(path)) => {
            let bytes = read_message(path)?;
            let d = Digest::of(&bytes);
            let seqs: Vec<u64> = trailer_seq(&bytes)
                .into_iter()
                .filter(|&s| s >= 1 && s <= cp.size)
                .collect();
            let named = seqs
                .first()
                .map(|s| format!(", whose trailer names seq {s}"))
                .unwrap_or_default();
            (
                format!("the text in {} (sha256 {d}){named}", path.display()),
                Some(d),
                seqs,
            )
        }
    })
}

/// The seq a gate trailer `[gate: … · ledger NNNN]` names, the last one in the text.
fn trailer_seq(bytes: &[u8]) -> Option<u64> {
    let text = std::str::from_utf8(bytes).ok()?;
    let at = text.rfind("[gate: ")?;
    let rest = &text[at..];
    let end = rest.find(']')?;
    let inner = &rest[..end];
    if inner.contains('\n') {
        return None;
    }
    let digits = inner.rsplit_once("\u{b7} ledger ")?.1;
    (!digits.is_empty() && digits.len() <= 16 && digits.bytes().all(|b| b.is_ascii_digit()))
        .then(|| digits.parse().ok())
        .flatten()
}

/// The published line at `seq`, its entry_id re-derived, its inclusion proof checked against
/// the checkpoint's root. `None` when no published line has that seq.
fn prove_seq(
    site: &SiteTree,
    cp: &Checkpoint,
    seq: u64,
    digest: Option<&Digest>,
) -> Result<Option<Found>> {
    if seq == 0 || seq > cp.size {
        return Ok(None);
    }
    let n = (seq - 1) / tree::TILE_WIDTH;
    let width = (cp.size - n * tree::TILE_WIDTH).min(tree::TILE_WIDTH);
    let file = TreeFile::Lines { n, width };
    let bytes = site
        .read_file(&file)?
        .with_context(|| format!("ledger/tree/{}: absent", file.path()))?;
    let Some(line) = bytes
        .split(|&b| b == b'\n')
        .find(|l| tree::line_seq(l) == Some(seq))
    else {
        return Ok(None);
    };
    let (entry_id, why_bad) = match tree::line_entry_id(line) {
        Ok(id) => (id, None),
        Err(why) => (Digest([0; 32]), Some(why)),
    };
    let matched: Vec<&'static str> = match digest {
        None => Vec::new(),
        Some(d) => tree::matching_fields(line, d),
    };
    let (included, proof_hashes, why_not) = match why_bad {
        Some(why) => (false, 0, Some(why)),
        None => {
            let leaf = tree::leaf_hash(&entry_id.0);
            match tree::prove_inclusion(site, cp.size, &cp.root, seq - 1) {
                Ok(p) if tree::check_inclusion(&p, cp.size, &cp.root, seq - 1, &leaf) => {
                    (true, p.len(), None)
                }
                Ok(p) => (
                    false,
                    p.len(),
                    Some("the inclusion proof does not lead to the checkpoint's root: this line is not the tree's line at its seq".into()),
                ),
                Err(e) => (false, 0, Some(e.0)),
            }
        }
    };
    Ok(Some(Found {
        seq,
        entry_id,
        line: String::from_utf8_lossy(line).into_owned(),
        matched,
        included,
        proof_hashes,
        why_not,
        excerpt: None,
    }))
}

/// An older checkpoint held to today's: the consistency proof from its size.
fn consistency(site: &SiteTree, cp: &Checkpoint, path: &std::path::Path) -> Result<Consistency> {
    let bytes = crate::operator_box::read::read_named(path, FileClass::AnchorsIndex)?
        .with_context(|| format!("{}: no such file", path.display()))?;
    let old = Checkpoint::parse(&bytes).map_err(|e| {
        anyhow::anyhow!(
            "{}: not a checkpoint: {e} (docs/tree.md#checkpoint)",
            path.display()
        )
    })?;
    let mut c = Consistency {
        old_size: old.size,
        old_root: Digest(old.root).to_string(),
        holds: false,
        why_not: None,
    };
    if old.origin != cp.origin {
        c.why_not = Some(format!(
            "the older checkpoint is of origin {:?}, today's of {:?}: another log",
            old.origin, cp.origin
        ));
    } else if old.size > cp.size {
        c.why_not = Some(format!(
            "the older checkpoint has {} seqs, today's only {}: the history was cut",
            old.size, cp.size
        ));
    } else if old.size == 0 {
        c.holds = true;
    } else {
        match tree::prove_consistency(site, cp.size, &cp.root, old.size) {
            Ok(p) if tree::check_consistency(&p, cp.size, &cp.root, old.size, &old.root) => {
                c.holds = true;
            }
            Ok(_) => {
                c.why_not = Some("the consistency proof does not hold: today's tree does not extend the older one — the history was rewritten since".into());
            }
            Err(e) => c.why_not = Some(e.0),
        }
    }
    Ok(c)
}

fn words(out: &mut dyn Write, a: &Answer) -> Result<()> {
    writeln!(
        out,
        "checkpoint: {} — {} seqs, root {}, head {} at seq {}",
        a.checkpoint.origin,
        a.checkpoint.size,
        a.checkpoint.root,
        a.checkpoint.head,
        a.checkpoint.head_seq
    )?;
    writeln!(out, "asked: {}", a.asked)?;
    if a.found.is_empty() && a.asked != "nothing but the older checkpoint" {
        writeln!(
            out,
            "not found: no published line in this exhibit carries it. That proves nothing by itself: the line may be withheld, the text re-rendered, or written after this checkpoint (docs/tree.md#what-it-proves)."
        )?;
    }
    for f in &a.found {
        writeln!(out, "seq {}: entry_id {}", f.seq, f.entry_id)?;
        if !f.matched.is_empty() {
            writeln!(out, "  carries the digest as {}", f.matched.join(", "))?;
        }
        if let Some(p) = &f.excerpt {
            writeln!(
                out,
                "  {}: its released text {} (sha256 = the line's sent_sha256) holds the excerpt's {} words, word for word, from its word {}",
                if p.whole {
                    "the whole words of the message sent"
                } else {
                    "a passage of the message sent"
                },
                p.text,
                p.words,
                p.word
            )?;
        }
        writeln!(out, "  line: {}", f.line)?;
        if f.included {
            writeln!(
                out,
                "  included: the line re-hashes to its entry_id, and its inclusion proof ({} hashes from the tiles) leads to the checkpoint's root",
                f.proof_hashes
            )?;
        } else {
            writeln!(
                out,
                "  NOT included: {}",
                f.why_not.as_deref().unwrap_or("the proof does not hold")
            )?;
        }
    }
    for s in &a.index_false_hits {
        writeln!(
            out,
            "  (the index named seq {s}, whose line does not carry it: a key shared by chance)"
        )?;
    }
    for n in &a.notes {
        writeln!(out, "  note: {n}")?;
    }
    if let Some(c) = &a.consistency {
        if c.holds {
            writeln!(
                out,
                "consistency: today's tree extends the older checkpoint's ({} seqs, root {})",
                c.old_size, c.old_root
            )?;
        } else {
            writeln!(
                out,
                "consistency: FAILS — {}",
                c.why_not.as_deref().unwrap_or("")
            )?;
        }
    }
    writeln!(
        out,
        "read {} bytes in {} files. This proves the line is in the tree this checkpoint states; not that the chain before it re-derives (`exhibit verify` does), nor that this checkpoint is the one the operator shows everyone (docs/tree.md#what-it-proves).",
        a.bytes_read, a.files_read
    )?;
    Ok(())
}
