//! `exhibit cosign --out DIR` (docs/anchoring.md#cosignatures): DIR's signed checkpoint is sent to
//! every witness `exhibit.toml` lists, as C2SP tlog-witness's `add-checkpoint` asks — the size
//! the witness last cosigned, the consistency proof from it, a blank line, the note — and each
//! cosignature that holds under the witness's key is added under the checkpoint, in the file and
//! in the page's copy. The checkpoint's body is never changed: a witness signs the body.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use exhibit_protocol::Digest;
use exhibit_protocol::tree::{self, Checkpoint, TreeFile, TreeSource};

use crate::operator_box::read::BoxFolder;
use crate::publication::config::Witness;
use crate::published::cosignature::{self, LineState, WitnessKey};

#[derive(Debug, Clone)]
pub struct CosignPlan {
    pub config: PathBuf,
    pub out: PathBuf,
}

/// How long one witness may take to answer: a witness answers at once or not at all.
const TIMEOUT_SECS: u64 = 30;
/// The most bytes of a witness's answer read: a few signature lines, or a size.
const ANSWER_BYTES: u64 = 64 * 1024;

/// The size each witness last cosigned, by origin and witness key: this machine's record,
/// `<git dir>/exhibit/cosigned-<16 hex of DIR>.json` (never in DIR).
struct SizeRecord {
    path: Option<PathBuf>,
    sizes: BTreeMap<String, BTreeMap<String, u64>>,
}

impl SizeRecord {
    fn load(out: &Path) -> Result<SizeRecord> {
        let previous = crate::previous::Previous::open(out)?;
        let Some(git_dir) = previous.own_git_dir() else {
            return Ok(SizeRecord {
                path: None,
                sizes: BTreeMap::new(),
            });
        };
        let key = Digest::of(previous.shown_prefix().as_bytes()).to_string();
        let path = git_dir
            .join("exhibit")
            .join(format!("cosigned-{}.json", &key[..16]));
        let sizes = match std::fs::read(&path) {
            // A record that does not read is no record: the witnesses' 409 answers restore it.
            Ok(bytes) => serde_json::from_slice(&bytes).unwrap_or_default(),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => BTreeMap::new(),
            Err(e) => return Err(e).with_context(|| format!("{}: cannot read", path.display())),
        };
        Ok(SizeRecord {
            path: Some(path),
            sizes,
        })
    }

    fn get(&self, origin: &str, witness: &str) -> Option<u64> {
        self.sizes.get(origin)?.get(witness).copied()
    }

    fn set(&mut self, origin: &str, witness: &str, size: u64) {
        self.sizes
            .entry(origin.to_string())
            .or_default()
            .insert(witness.to_string(), size);
    }

    fn save(&self) -> Result<()> {
        let Some(path) = &self.path else {
            return Ok(());
        };
        let bytes = serde_json::to_vec_pretty(&self.sizes)?;
        write_atomically(path, &bytes)
    }
}

/// `bytes` written under a temporary name in the same folder, then renamed over `path`.
fn write_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).with_context(|| format!("{}: cannot create", dir.display()))?;
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("file");
    let temporary = dir.join(format!(".{name}.cosign-{}", std::process::id()));
    std::fs::write(&temporary, bytes)
        .with_context(|| format!("{}: cannot write", temporary.display()))?;
    std::fs::rename(&temporary, path).with_context(|| {
        let _ = std::fs::remove_file(&temporary);
        format!("{}: cannot rename into place", path.display())
    })
}

/// DIR's tree files, for the consistency proofs.
struct DirTree(BoxFolder);

impl TreeSource for DirTree {
    fn read(&self, file: &TreeFile) -> Result<Vec<u8>, String> {
        match crate::site_check::tree::read_tree_file(&self.0, file, 8_193) {
            Ok(Some(b)) => Ok(b),
            Ok(None) => Err(format!("ledger/tree/{}: absent", file.path())),
            Err(e) => Err(format!("{e:#}")),
        }
    }
}

/// What DIR holds to be cosigned.
struct Subject {
    checkpoint: Checkpoint,
    /// The note's body, every byte up to and with the LF before the blank line.
    body: Vec<u8>,
    /// The signature lines that are no listed witness's (the log's own), as they are.
    log_lines: Vec<Vec<u8>>,
    /// The listed witnesses' lines already there, by witness name.
    old_lines: BTreeMap<String, Vec<Vec<u8>>>,
    tree: DirTree,
}

/// DIR's checkpoint: signed by the key STATS.json names, which lists the same witnesses as
/// exhibit.toml (else the verifiers would count other ones).
fn subject(out: &Path, witnesses: &[Witness]) -> Result<Subject> {
    let ledger = out.join("ledger");
    let path = ledger.join("tree").join("checkpoint");
    let note = std::fs::read(&path).with_context(|| {
        format!(
            "{}: cannot read DIR's checkpoint (run `exhibit build --out {}` first)",
            path.display(),
            out.display()
        )
    })?;
    let checkpoint = Checkpoint::parse(&note).map_err(|e| {
        anyhow::anyhow!(
            "{}: not a checkpoint: {e} (docs/tree.md#checkpoint)",
            path.display()
        )
    })?;
    let stats_path = ledger.join("STATS.json");
    let stats: serde_json::Value = std::fs::read(&stats_path)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .with_context(|| format!("{}: cannot read it as JSON", stats_path.display()))?;
    let Some(key) = stats.pointer("/tree/key").and_then(|k| k.as_str()) else {
        bail!(
            "{}: the checkpoint is not signed (STATS.json names no tree.key): a witness cosigns only a checkpoint the log signed; set [checkpoint] key in exhibit.toml and build again (docs/anchoring.md#the-key)",
            path.display()
        );
    };
    if crate::operator_box::signing::checkpoint_signature(&note, key)
        != crate::operator_box::signing::SignatureState::Holds
    {
        bail!(
            "{}: its signature by {key} (STATS.json's tree.key) does not hold: build again before cosigning (docs/anchoring.md#signed-checkpoints)",
            path.display()
        );
    }
    let listed: Vec<cosignature::ListedWitness> = match cosignature::listed_in_stats(&stats) {
        Some(Ok(l)) => l,
        _ => Vec::new(),
    };
    let configured: Vec<cosignature::ListedWitness> = witnesses
        .iter()
        .map(|w| cosignature::ListedWitness {
            name: w.name.clone(),
            key: w.key.clone(),
        })
        .collect();
    if listed != configured {
        bail!(
            "{}: STATS.json's tree.witnesses ({} listed) are not exhibit.toml's [[checkpoint.witness]] ({}): the verifiers count the witnesses the site lists; build again, then cosign",
            stats_path.display(),
            listed.len(),
            configured.len()
        );
    }
    let Some((body, lines)) = cosignature::split_note(&note) else {
        bail!("{}: not a signed note", path.display());
    };
    let mut log_lines = Vec::new();
    let mut old_lines: BTreeMap<String, Vec<Vec<u8>>> = BTreeMap::new();
    for line in lines {
        match cosignature::read_line(line) {
            Some((name, _)) if witnesses.iter().any(|w| w.name == name) => {
                old_lines.entry(name).or_default().push(line.to_vec());
            }
            _ => log_lines.push(line.to_vec()),
        }
    }
    let folder = BoxFolder::named(&ledger.join("tree"))?
        .with_context(|| format!("{}: no such folder", ledger.join("tree").display()))?;
    Ok(Subject {
        checkpoint,
        body: body.to_vec(),
        log_lines,
        old_lines,
        tree: DirTree(folder),
    })
}

impl Subject {
    /// The note as witnesses are sent it: the body and the log's signature lines.
    fn submitted(&self) -> Vec<u8> {
        self.note_with(&[])
    }

    fn note_with(&self, cosignatures: &[Vec<u8>]) -> Vec<u8> {
        let mut note = self.body.clone();
        note.push(b'\n');
        for line in self.log_lines.iter().chain(cosignatures) {
            note.extend_from_slice(line);
            note.push(b'\n');
        }
        note
    }

    /// The `add-checkpoint` request body from `old` (C2SP tlog-witness): `old <size>`, the
    /// consistency proof's hashes in base64, a blank line, the note.
    fn request(&self, old: u64) -> Result<Vec<u8>, String> {
        let cp = &self.checkpoint;
        let proof = if old == 0 || old == cp.size {
            Vec::new()
        } else {
            tree::prove_consistency(&self.tree, cp.size, &cp.root, old).map_err(|e| e.0)?
        };
        let mut out = format!("old {old}\n").into_bytes();
        for h in &proof {
            out.extend_from_slice(tree::base64_encode(h).as_bytes());
            out.push(b'\n');
        }
        out.push(b'\n');
        out.extend_from_slice(&self.submitted());
        Ok(out)
    }
}

/// One witness's cosignature line and its time, from the size it last cosigned (`known`, or 0,
/// learned again from a 409 answer and tried once more).
fn ask(
    agent: &ureq::Agent,
    subject: &Subject,
    w: &Witness,
    known: Option<u64>,
) -> Result<(Vec<u8>, u64), String> {
    let url = format!("{}/add-checkpoint", w.url);
    let at = format!("witness {:?} ({url})", w.name);
    let key = WitnessKey::parse(&w.key).map_err(|e| format!("{at}: {e}"))?;
    let size = subject.checkpoint.size;
    let mut old = known.unwrap_or(0);
    for attempt in 0..2 {
        if old > size {
            return Err(format!(
                "{at}: it has cosigned a tree of {old} seqs, larger than DIR's {size}: DIR is behind what was published, or the history was cut (docs/anchoring.md#cosignatures)"
            ));
        }
        let request = subject
            .request(old)
            .map_err(|e| format!("{at}: the consistency proof from {old} seqs: {e}"))?;
        let (status, answer) = post(agent, &url, &request).map_err(|e| format!("{at}: {e}"))?;
        match status {
            200 => {
                return cosignature_in(&answer, &subject.body, &key)
                    .map_err(|e| format!("{at}: {e}"));
            }
            409 if attempt == 0 => {
                old = conflict_size(&answer).ok_or_else(|| {
                    format!(
                        "{at}: HTTP 409 Conflict without a size in its body ({})",
                        excerpt(&answer)
                    )
                })?;
            }
            409 => {
                return Err(format!(
                    "{at}: HTTP 409 Conflict again from {old} seqs ({}): {}",
                    excerpt(&answer),
                    if old == size {
                        "it holds a checkpoint of this size with another root — a split view or a rewritten history, which no witness cosigns"
                    } else {
                        "its record moved while it was asked; run cosign again"
                    }
                ));
            }
            other => {
                return Err(format!(
                    "{at}: HTTP {other}{} ({})",
                    status_words(other, old),
                    excerpt(&answer)
                ));
            }
        }
    }
    Err(format!("{at}: no answer"))
}

/// What tlog-witness says a refusal means.
fn status_words(status: u16, old: u64) -> String {
    let why = match status {
        400 => {
            "Bad Request: the request is malformed or the old size is larger than the checkpoint's"
        }
        403 => {
            "Forbidden: no signature on the checkpoint holds under a key the witness trusts for this origin — give its operator the log's verifier key (STATS.json's tree.key)"
        }
        404 => {
            "Not Found: the witness does not know this log's origin — ask its operator to list the log (docs/anchoring.md#witness-network)"
        }
        422 => {
            return format!(
                " Unprocessable Entity: the consistency proof from {old} seqs does not verify — the tree does not extend the one the witness cosigned (a rewritten history), or its record is of another log"
            );
        }
        _ => "an answer tlog-witness does not give: is the url the witness's submission prefix?",
    };
    format!(" {why}")
}

/// A 409 answer's body: the size the witness last cosigned, in decimal, then LF.
fn conflict_size(answer: &[u8]) -> Option<u64> {
    let text = std::str::from_utf8(answer).ok()?;
    let digits = text.strip_suffix('\n').unwrap_or(text).trim();
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// The latest cosignature in a 200 answer that holds under `key` over `body`.
fn cosignature_in(answer: &[u8], body: &[u8], key: &WitnessKey) -> Result<(Vec<u8>, u64), String> {
    let mut best: Option<(Vec<u8>, u64)> = None;
    let mut broken = 0;
    for line in answer.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        match cosignature::check_line(line, body, key) {
            LineState::Holds(t) if best.as_ref().is_none_or(|(_, b)| t > *b) => {
                best = Some((line.to_vec(), t));
            }
            LineState::Broken | LineState::OtherKey => broken += 1,
            _ => {}
        }
    }
    best.ok_or_else(|| {
        format!(
            "HTTP 200, and no line of its answer is a cosignature by {} that holds over this checkpoint ({} line(s) in its name that do not hold; the answer: {}): nothing written for it",
            key.vkey,
            broken,
            excerpt(answer)
        )
    })
}

/// At most 200 characters of an answer, control characters escaped, for a message.
fn excerpt(answer: &[u8]) -> String {
    let text = String::from_utf8_lossy(answer);
    let cut: String = text.chars().take(200).collect();
    let shown = crate::terminal::escape(cut.trim_end()).into_owned();
    if shown.is_empty() {
        "an empty body".into()
    } else {
        format!("body {shown:?}")
    }
}

/// One POST: its status and at most [`ANSWER_BYTES`] of its body. Redirects are not followed:
/// a witness's submission prefix is where it answers.
fn post(agent: &ureq::Agent, url: &str, body: &[u8]) -> Result<(u16, Vec<u8>), String> {
    let mut response = agent
        .post(url)
        .header("Content-Type", "text/plain; charset=utf-8")
        .send(body)
        .map_err(|e| format!("no answer: {e}"))?;
    let status = response.status().as_u16();
    let bytes = response
        .body_mut()
        .with_config()
        .limit(ANSWER_BYTES)
        .read_to_vec()
        .map_err(|e| format!("HTTP {status}, and its body could not be read: {e}"))?;
    Ok((status, bytes))
}

fn agent() -> ureq::Agent {
    let config = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .max_redirects(0)
        .timeout_global(Some(std::time::Duration::from_secs(TIMEOUT_SECS)))
        .user_agent(concat!("exhibit/", env!("CARGO_PKG_VERSION")))
        .build();
    ureq::Agent::new_with_config(config)
}

pub fn run(plan: &CosignPlan) -> Result<ExitCode> {
    let config = crate::publication::config::load(&plan.config)?;
    if config.witnesses.is_empty() {
        bail!(
            "{}: no [[checkpoint.witness]] is listed: there is no witness to ask (docs/anchoring.md#cosignatures)",
            config.file.display()
        );
    }
    let subject = subject(&plan.out, &config.witnesses)?;
    let mut record = SizeRecord::load(&plan.out)?;
    let agent = agent();
    let origin = subject.checkpoint.origin.clone();
    let mut lines: Vec<Vec<u8>> = Vec::new();
    let mut failed = 0;
    for w in &config.witnesses {
        match ask(&agent, &subject, w, record.get(&origin, &w.key)) {
            Ok((line, time)) => {
                crate::say!(
                    "exhibit: witness {:?} cosigned the checkpoint of {} seqs at {}",
                    w.name,
                    subject.checkpoint.size,
                    cosignature::utc(time)
                );
                record.set(&origin, &w.key, subject.checkpoint.size);
                lines.push(line);
            }
            Err(e) => {
                failed += 1;
                crate::say!("exhibit: error: {}", crate::terminal::escape(&e));
                // A cosignature it gave this same body before still holds: kept.
                lines.extend(
                    subject
                        .old_lines
                        .get(&w.name)
                        .into_iter()
                        .flatten()
                        .cloned(),
                );
            }
        }
    }
    let note = subject.note_with(&lines);
    let key = operator_key(&config, &subject)?;
    write_note(&plan.out, &subject.body, &note)?;
    reseal(&plan.out, &key)?;
    record.save()?;
    let listed: Vec<cosignature::ListedWitness> = config
        .witnesses
        .iter()
        .map(|w| cosignature::ListedWitness {
            name: w.name.clone(),
            key: w.key.clone(),
        })
        .collect();
    let c = cosignature::check_note(&note, &listed);
    println!(
        "{}: {}; then commit DIR (docs/anchoring.md#run-order)",
        plan.out.join("ledger/tree/checkpoint").display(),
        cosignature::words(&c)
    );
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// The cosigned note into DIR's checkpoint and the page's copy of it, each written whole and
/// renamed into place; its body must be the one read.
fn write_note(out: &Path, body: &[u8], note: &[u8]) -> Result<()> {
    anyhow::ensure!(
        cosignature::split_note(note).is_some_and(|(b, _)| b == body),
        "the cosigned checkpoint's body differs from DIR's: this is exhibit's fault, nothing was written; please report it"
    );
    let page = out.join("index.html");
    match std::fs::read(&page) {
        Ok(html) => {
            if let Some(span) = crate::site_check::page::data_block_span(&html, "tree-checkpoint")
                .filter(|s| !s.is_empty())
            {
                let mut new = html[..span.start].to_vec();
                new.extend_from_slice(crate::published::encode::base64(note).as_bytes());
                new.extend_from_slice(&html[span.end..]);
                write_atomically(&page, &new)?;
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(e).with_context(|| format!("{}: cannot read", page.display())),
    }
    write_atomically(&out.join("ledger").join("tree").join("checkpoint"), note)
}

/// The operator's key, which signs the last snapshot line again once the checkpoint it covers
/// holds the cosignatures: it must be the key the checkpoint is signed by.
fn operator_key(
    config: &crate::publication::config::BoxConfig,
    subject: &Subject,
) -> Result<crate::operator_box::signing::OperatorKey> {
    let Some(path) = &config.key else {
        bail!(
            "{}: no [checkpoint] key: cosign signs the last snapshot line again, as it covers the checkpoint the cosignatures are added to (docs/anchoring.md#cosignatures)",
            config.file.display()
        );
    };
    let key = crate::operator_box::signing::OperatorKey::read(path)?;
    let note = subject.submitted();
    if crate::operator_box::signing::checkpoint_signature(&note, &key.vkey)
        != crate::operator_box::signing::SignatureState::Holds
    {
        bail!(
            "{}: the key {} did not sign DIR's checkpoint: build with it, then cosign",
            path.display(),
            key.vkey
        );
    }
    Ok(key)
}

/// The last snapshot line records the digest of `ledger/tree/`'s listing, which the cosignatures
/// change: its `tree/` digest is made again from DIR's files and the line signed again, in
/// SNAPSHOTS.jsonl, the page's copy and this machine's record of what it published
/// (docs/anchoring.md#cosignatures). Nothing else of the line changes.
pub fn reseal(out: &Path, key: &crate::operator_box::signing::OperatorKey) -> Result<()> {
    let path = out.join("ledger").join("SNAPSHOTS.jsonl");
    let bytes = std::fs::read(&path).with_context(|| format!("{}: cannot read", path.display()))?;
    let last = crate::previous::trust::last_line(&bytes)
        .with_context(|| format!("{}: no snapshot line", path.display()))?;
    let start = last.as_ptr() as usize - bytes.as_ptr() as usize;
    let end = start + last.len();
    if crate::operator_box::signing::snapshot_signature(last, &key.vkey)
        != crate::operator_box::signing::SignatureState::Holds
    {
        bail!(
            "{}: the last snapshot line is not signed by {}: build again, then cosign",
            path.display(),
            key.vkey
        );
    }
    let (_, _, unsigned) = crate::operator_box::signing::split_snapshot_signature(last)
        .with_context(|| {
            format!(
                "{}: the last line's signature does not read",
                path.display()
            )
        })?;
    let text = String::from_utf8(unsigned)
        .map_err(|_| anyhow::anyhow!("{}: the last line is not UTF-8", path.display()))?;
    let value: serde_json::Value = serde_json::from_str(&text)
        .with_context(|| format!("{}: the last line is not JSON", path.display()))?;
    let Some(old) = value.pointer("/digests/tree~1").and_then(|v| v.as_str()) else {
        bail!(
            "{}: the last snapshot line records no digest of ledger/tree/: build again, then cosign",
            path.display()
        );
    };
    let new = tree_listing_digest(&out.join("ledger").join("tree"))?;
    let member = |d: &str| format!("\"tree/\":\"{d}\"");
    anyhow::ensure!(
        text.matches(&member(old)).count() == 1,
        "{}: the last line's tree/ digest is not written once; this is exhibit's fault: please report it",
        path.display()
    );
    let line = key.sign_snapshot_line(text.replace(&member(old), &member(&new)).as_bytes())?;
    let mut all = bytes[..start].to_vec();
    all.extend_from_slice(&line);
    all.extend_from_slice(&bytes[end..]);
    let page = out.join("index.html");
    if let Ok(html) = std::fs::read(&page)
        && let Some(span) = crate::site_check::page::data_block_span(&html, "snapshots-jsonl")
            .filter(|s| !s.is_empty())
    {
        let mut new_page = html[..span.start].to_vec();
        new_page.extend_from_slice(crate::published::encode::base64(&all).as_bytes());
        new_page.extend_from_slice(&html[span.end..]);
        write_atomically(&page, &new_page)?;
    }
    write_atomically(&path, &all)?;
    let previous = crate::previous::Previous::open(out)?;
    crate::previous::trust::Record::load(&previous)?.add(&all)
}

/// The sha256 of `ledger/tree/`'s `sha256sum` listing, as a snapshot records it
/// (docs/protocol.md#snapshots): every regular file, sorted by path.
fn tree_listing_digest(folder: &Path) -> Result<String> {
    use sha2::Digest as _;
    let mut files = Vec::new();
    for entry in walkdir::WalkDir::new(folder).follow_links(false) {
        let entry = entry.with_context(|| format!("{}: cannot list", folder.display()))?;
        if entry.file_type().is_file() {
            let rel = entry
                .path()
                .strip_prefix(folder)
                .ok()
                .and_then(|p| p.to_str())
                .with_context(|| format!("{}: not a UTF-8 name", entry.path().display()))?
                .to_string();
            files.push(rel);
        }
    }
    files.sort();
    let mut digests = crate::previous::head_check::SnapshotDigests::default();
    for rel in files {
        let file = folder.join(&rel);
        let mut h = sha2::Sha256::new();
        let mut f = std::fs::File::open(&file)
            .with_context(|| format!("{}: cannot read", file.display()))?;
        let mut buf = vec![0u8; 1 << 16];
        loop {
            use std::io::Read as _;
            let n = f
                .read(&mut buf)
                .with_context(|| format!("{}: cannot read", file.display()))?;
            if n == 0 {
                break;
            }
            h.update(&buf[..n]);
        }
        digests.add(
            &format!("ledger/tree/{rel}"),
            &Digest(h.finalize().into()).to_string(),
        );
    }
    digests
        .finish()
        .get("tree/")
        .and_then(|v| v.as_str())
        .map(str::to_string)
        .context("ledger/tree/ holds no file")
}
