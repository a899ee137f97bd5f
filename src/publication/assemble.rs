//! Stage 6, assemble: the output tree — the published ledger, withheld list, readings, anchors,
//! the layers' files, `STATS.json` and `SNAPSHOTS.jsonl` (docs/protocol.md#output-tree).

use exhibit_protocol::Digest;
use std::collections::BTreeMap;

use anyhow::{Context, Result};
use serde::Serialize;
use serde_json::Value as J;

use super::BuildPlan;
use super::anchors::anchors_index;
use super::decide::{self, Decided, Decision};
use super::layers::{LayerOutput, LayerStats, Layers};
use super::load::LoadedBox;
use super::verify::VerifiedLedger;
use crate::operator_box::posts::{AnchorReport, ProofState};
use crate::previous::Previous;
use crate::published::encode::{Count, of, pretty};
use crate::published::output_tree::Tree;
use crate::published::segments::{PublishedFile, SegmentsRecord};
use exhibit_protocol::anchors::{FormatState, HeadState};

/// The assembled tree, before the page is rendered into it.
pub struct Assembled {
    pub tree: Tree,
    pub snapshots: Snapshots,
    /// The publication extends HEAD's (no rewrite by the ledger or a layer).
    pub extends: bool,
    /// What the assembly carries to the next build (the tree's files: docs/tree.md#carried),
    /// saved once DIR is written.
    pub carried: Vec<crate::previous::carried::Carried>,
}

/// What STATS.json, the snapshot line and the build's summary say of the lines, counted
/// before the per-line records are let go (docs/scale.md#the-chain-read-by-the-tree).
#[derive(Debug, Clone, Default)]
pub struct LineCounts {
    pub total: usize,
    pub published: usize,
    /// The last line's seq; none when the ledger has no line after its header.
    pub head_seq: Option<i64>,
    /// Of the withheld lines, how many flag each field.
    withheld_by_field: BTreeMap<String, usize>,
}

impl LineCounts {
    pub fn of(verified: &VerifiedLedger) -> LineCounts {
        let mut by_field: BTreeMap<String, usize> = BTreeMap::new();
        for w in verified.lines.iter().filter_map(|r| r.withheld.as_ref()) {
            for f in &w.fields_flagged {
                *by_field.entry(f.clone()).or_default() += 1;
            }
        }
        LineCounts {
            total: verified.lines.len(),
            published: verified.lines.iter().filter(|r| r.published()).count(),
            head_seq: verified.lines.last().map(|r| r.seq),
            withheld_by_field: by_field,
        }
    }

    pub fn withheld(&self) -> usize {
        self.total - self.published
    }
}

/// The per-line records are let go once the files that read them are made (the published
/// ledger, the withheld list, the anchors) and the layers' lists are in the tree: the tree
/// and the excerpt index read the chain as its ids and spans ([`super::tree::Chain`]), and
/// the witness lists' names rest on the same ids (docs/scale.md#the-chain-read-by-the-tree).
fn let_go_of_lines(
    decided: &mut Decided,
    tree: &mut Tree,
    ledger_name: &str,
) -> Result<super::tree::Chain> {
    let spans = super::tree::Chain::spans_of(&decided.verified.lines, ledger_name)?;
    let lines = std::mem::take(&mut decided.verified.lines);
    let (ids, let_go) = tree.let_go_of_lines(lines, |line: &decide::LineRecord| line.entry_id);
    crate::terminal::memory::give_back();
    // Said, so that a holder that keeps them is seen (a test holds the build to it).
    crate::terminal::progress::stage_times::mark(if let_go {
        "the lines let go"
    } else {
        "the lines kept (something else holds them)"
    });
    super::tree::Chain::new(ids, spans, decided.verified.head)
}

pub fn run(
    plan: &BuildPlan,
    loaded: &LoadedBox,
    decided: &mut Decided,
    layers: &mut Layers,
    previous: &Previous,
    counts: &LineCounts,
) -> Result<Assembled> {
    let verified = &decided.verified;
    let extends = decided.extends && !layers.rewrote();
    let mut tree = Tree::default();
    tree.put(".nojekyll", Vec::new());
    tree.put("ledger/.gitattributes", b"* -text\n".to_vec());
    let ledger_files = put_ledger_files(&mut tree, plan, decided, loaded)?;
    // Recorded only when the ledger is segmented: a one-file exhibit's STATS.json and
    // SNAPSHOTS.jsonl stay byte-identical to before (docs/scale.md#stats).
    let segmented = ledger_files
        .iter()
        .any(|f| f.path.starts_with(crate::published::segments::SEGMENTS_DIR));
    let ledger_files = segmented.then_some(ledger_files);
    let withheld_files = put_withheld_files(&mut tree, plan, decided)?;
    if !decided.decision.readings.lines.is_empty() {
        tree.put("ledger/readings.json", pretty(&decided.decision.readings));
    }
    put_anchors(&mut tree, decided, loaded)?;
    // A key's name is the log's origin (docs/anchoring.md#the-key).
    let configured = plan
        .config
        .origin
        .as_deref()
        .or(plan.key.as_deref().map(|k| k.name.as_str()));
    let origin = super::tree::origin(configured, previous, &verified.header_digest)?;
    crate::terminal::progress::stage_done("assemble: the ledger, withheld list and anchors");
    // Moved, not copied: at a million lines the witness proofs alone are large. Before the
    // lines go: the lists' names read them until then.
    for layer in layers.iter_mut() {
        for (path, bytes) in std::mem::take(&mut layer.files) {
            tree.put(path, bytes);
        }
        tree.put_many(std::mem::take(&mut layer.contents));
        for list in std::mem::take(&mut layer.listed) {
            tree.put_listed(list);
        }
    }
    let chain = let_go_of_lines(decided, &mut tree, &loaded.name)?;
    let verified = &decided.verified;
    // What the last build made of the tree, when it binds to this chain (docs/tree.md#carried).
    let carry = super::tree_carried::open(previous.git_dir(), &chain);
    let (checkpoint, mut tree_files) = super::tree::put(
        &mut tree,
        &chain,
        loaded,
        &origin,
        plan.key.as_deref(),
        carry.as_ref(),
    )?;
    if let Some(texts) = layers.public_texts.as_mut() {
        // Taken, not borrowed: the excerpt index is their only reader, and at a million lines
        // they are 10 MB held to the end of the build otherwise (docs/scale.md#memory).
        let first_seqs = std::mem::take(&mut texts.first_seqs);
        super::tree::put_excerpts(
            &mut tree,
            &chain,
            loaded,
            first_seqs,
            carry.as_ref(),
            &mut tree_files,
        )?;
    }
    drop(carry);
    drop(chain);
    let carried: Vec<_> = super::tree_carried::carried(previous.git_dir(), &tree_files)
        .into_iter()
        .collect();
    drop(tree_files);
    crate::terminal::progress::stage_done("assemble: the layers' files");
    let stats = stats(
        verified,
        counts,
        &decided.decision,
        &decided.coverage,
        &decided.anchor_reports,
        loaded,
        layers.witness.as_ref(),
        layers.public_texts.as_ref(),
        ledger_files.as_deref(),
        plan.config.segment_bytes,
        // Every file but the three heads, which are not made yet.
        crate::publication::hosting::HostingStats::of(crate::publication::hosting::size(&tree)),
        super::tree::TreeStats {
            excerpts: layers.public_texts.is_some(),
            ..super::tree::stats(&checkpoint, plan.key.as_deref(), &plan.config.witnesses)
        },
    );
    // Listed only when the list is in more than one file: a small exhibit's STATS.json stays
    // byte-identical (docs/scale.md#withheld-files).
    let stats = Stats {
        withheld_files: withheld_files.as_deref(),
        ..stats
    };
    tree.put("ledger/STATS.json", pretty(&stats));

    crate::terminal::progress::stage_done("assemble: the tree and STATS.json");
    let snapshots = snapshots(previous, &tree, (verified, counts), plan, extends, &stats)?;
    tree.put("ledger/SNAPSHOTS.jsonl", snapshots.bytes.clone());
    Ok(Assembled {
        tree,
        snapshots,
        extends,
        carried,
    })
}

/// The published ledger laid into its files by the cut (docs/scale.md#the-cut): HEAD's files
/// keep their bytes when this publication extends HEAD's; new lines fill the last file up to
/// `segment_bytes`, then new segments. Returns each file as `STATS.json` lists it.
fn put_ledger_files(
    tree: &mut Tree,
    plan: &BuildPlan,
    decided: &Decided,
    loaded: &LoadedBox,
) -> Result<Vec<PublishedFile>> {
    let verified = &decided.verified;
    let records: Vec<&decide::LineRecord> =
        verified.lines.iter().filter(|r| r.published()).collect();
    let cut = ledger_cut(plan, decided)?;
    let mut files = Vec::with_capacity(cut.len());
    let (mut offset, mut line) = (0usize, 0usize);
    for file in cut {
        // Spans of the gate's ledger, shared, not copied (docs/scale.md#memory).
        let body = crate::published::output_tree::Content::Ledger(
            crate::operator_box::gate_ledger::LedgerSpans::new(
                loaded.ledger.clone(),
                decided
                    .published
                    .between(offset, offset + file.bytes as usize),
            ),
        );
        // Records of this file: lines `line..line + file.lines`, the header being line 0.
        let first = line.max(1);
        let last = line + file.lines - 1;
        let entries = (last >= first).then(|| (records[first - 1], records[last - 1]));
        files.push(PublishedFile {
            bytes: file.bytes,
            first_seq: entries.map(|(f, _)| f.seq),
            head: entries
                .map_or(verified.header_digest, |(_, l)| l.entry_id)
                .to_string(),
            last_seq: entries.map(|(_, l)| l.seq),
            lines: file.lines as u64,
            path: file.path.clone(),
            // Computed once and kept with the file: the snapshot reads it again.
            sha256: body.sha256()?.to_string(),
        });
        tree.put_content(file.path, body);
        offset += file.bytes as usize;
        line += file.lines;
    }
    Ok(files)
}

/// The published ledger's cut into files (docs/scale.md#the-cut). Known before the layers run:
/// the witness layer splits its growing files only when the ledger is segmented
/// (docs/witness.md#parts).
pub fn ledger_cut(
    plan: &BuildPlan,
    decided: &Decided,
) -> Result<Vec<crate::published::segments::CutFile>> {
    let verified = &decided.verified;
    // Line 0 is the header; line k > 0 is the k-th published record.
    let line_lens: Vec<u64> = std::iter::once((verified.header.1 - verified.header.0 + 1) as u64)
        .chain(
            verified
                .lines
                .iter()
                .filter(|r| r.published())
                .map(|r| u64::from(r.len) + 1),
        )
        .collect();
    let kept: Vec<(String, u64)> = if decided.extends {
        decided
            .head_files
            .iter()
            .map(|f| (f.path.clone(), f.bytes))
            .collect()
    } else {
        Vec::new()
    };
    crate::published::segments::cut(&line_lens, &kept, plan.config.segment_bytes)
        .map_err(|e| anyhow::anyhow!("the published ledger cannot be laid into files: {e}"))
}

/// The withheld list laid into its files by the cut (docs/scale.md#withheld-files): HEAD's files
/// keep their entries when this list begins with HEAD's; new entries fill the last file up to
/// `withheld_bytes`, then new files. Returns each file as `STATS.json` lists it, when there is
/// more than one.
fn put_withheld_files(
    tree: &mut Tree,
    plan: &BuildPlan,
    decided: &Decided,
) -> Result<Option<Vec<crate::published::withheld_files::WithheldFile>>> {
    let entries = &decided.withheld();
    let cut = crate::published::withheld_files::cut(
        entries,
        &decided.head_withheld_files,
        plan.config.withheld_bytes,
    )
    .map_err(|e| anyhow::anyhow!("the withheld list cannot be laid into files: {e}"))?;
    let split = cut.len() > 1;
    let mut files = Vec::with_capacity(cut.len());
    for file in cut {
        let slice = &entries[file.entries.clone()];
        let bytes = pretty(&slice);
        files.push(crate::published::withheld_files::WithheldFile {
            bytes: bytes.len() as u64,
            entries: slice.len(),
            first_seq: slice.first().map(|e| e.seq),
            last_seq: slice.last().map(|e| e.seq),
            path: file.path.clone(),
            sha256: Digest::of(&bytes).to_string(),
        });
        tree.put(file.path, bytes);
    }
    Ok(split.then_some(files))
}

/// The posts whose text is the exact posted form, their proofs, and `anchors/index.json`.
fn put_anchors(tree: &mut Tree, decided: &Decided, loaded: &LoadedBox) -> Result<()> {
    let anchors_index = anchors_index(&decided.anchor_reports, &decided.verified, &loaded.ledger)?;
    for (report, (post, proof)) in decided.anchor_reports.iter().zip(&loaded.posts) {
        // A post whose text is not the exact posted form may hold anything: withheld, listed.
        if report.check.format == FormatState::Ok {
            tree.put(
                format!("ledger/anchors/{}.txt", post.date),
                post.bytes.clone(),
            );
            // A proof is published only when its header check passes (docs/build.md#safety).
            if let Some(proof) = proof
                && report.proof == ProofState::Ok
            {
                tree.put(
                    format!("ledger/anchors/{}.txt.ots", post.date),
                    proof.clone(),
                );
            }
        }
    }
    tree.put("ledger/anchors/index.json", pretty(&anchors_index));
    Ok(())
}

/// `STATS.json` (docs/protocol.md#publication). serde_json keeps no insertion order, so the
/// file has always been written with its keys sorted: the fields of these structs are declared
/// in alphabetical order to keep those bytes.
#[derive(Serialize)]
struct Stats<'a> {
    anchors: AnchorStats,
    coverage: CoverageStats<'a>,
    /// The site's size against the host's limits (docs/hosting.md#limits).
    hosting: crate::publication::hosting::HostingStats,
    ledger: LedgerStats<'a>,
    lines: LineStats,
    #[serde(skip_serializing_if = "Option::is_none")]
    public_texts: Option<LayerStats>,
    schema: &'static str,
    /// The tree view's size and root (docs/tree.md#verifiers).
    tree: super::tree::TreeStats,
    /// The withheld list's files, when it is in more than one (docs/scale.md#withheld-files).
    #[serde(skip_serializing_if = "Option::is_none")]
    withheld_files: Option<&'a [crate::published::withheld_files::WithheldFile]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    witness: Option<LayerStats>,
}

/// `STATS.json`'s `anchors`: the posted heads and how their checks came out.
#[derive(Serialize)]
struct AnchorStats {
    head_on_withheld_digest: Count,
    not_ok: Count,
    ok: Count,
    posts: usize,
    proof_header_ok: Count,
}

/// `STATS.json`'s `coverage` (docs/protocol.md#coverage).
#[derive(Serialize)]
struct CoverageStats<'a> {
    awaiting_head: Count,
    awaiting_head_seqs: &'a crate::publication::decide::SeqRuns,
    pinned: Count,
    posted_heads: usize,
    severed: Count,
    severed_seqs: &'a crate::publication::decide::SeqRuns,
}

/// `STATS.json`'s `ledger`: the chain as verified.
#[derive(Serialize)]
struct LedgerStats<'a> {
    anchor_tz: &'a str,
    entries: usize,
    /// The published ledger's files in chain order, when it is segmented (docs/scale.md#stats).
    #[serde(skip_serializing_if = "Option::is_none")]
    files: Option<&'a [PublishedFile]>,
    head: Digest,
    head_seq: Option<i64>,
    header_digest: Digest,
    /// The threshold the files were cut at, when the ledger is segmented.
    #[serde(skip_serializing_if = "Option::is_none")]
    segment_bytes: Option<u64>,
    /// The tz database the days were checked with; the page carries its rules for this zone
    /// (docs/verifier.md "Days and the tz database").
    tzdb: &'static str,
    unterminated_tail_bytes_left_out: usize,
}

/// `STATS.json`'s `lines`: published and withheld, each of the lines.
#[derive(Serialize)]
struct LineStats {
    published: Count,
    published_on_operator_reading: Count,
    withheld: Count,
    withheld_by_field: BTreeMap<String, Count>,
}

#[allow(clippy::too_many_arguments)]
fn stats<'a>(
    verified: &'a VerifiedLedger,
    counts: &LineCounts,
    decision: &Decision,
    coverage: &'a decide::Coverage,
    anchors: &[AnchorReport],
    loaded: &LoadedBox,
    witness: Option<&LayerOutput>,
    texts: Option<&LayerOutput>,
    ledger_files: Option<&'a [PublishedFile]>,
    segment_bytes: u64,
    hosting: crate::publication::hosting::HostingStats,
    tree: super::tree::TreeStats,
) -> Stats<'a> {
    let (total, published) = (counts.total, counts.published);
    let withheld = counts.withheld();
    let posts = anchors.len();
    let counted = |keep: &dyn Fn(&AnchorReport) -> bool| {
        of(anchors.iter().filter(|a| keep(a)).count(), posts)
    };
    Stats {
        schema: "exhibit/stats/v1",
        ledger: LedgerStats {
            entries: total,
            files: ledger_files,
            segment_bytes: ledger_files.map(|_| segment_bytes),
            head: verified.head,
            head_seq: counts.head_seq,
            header_digest: verified.header_digest,
            anchor_tz: &verified.anchor_tz,
            tzdb: exhibit_protocol::days::tzdb_version(),
            unterminated_tail_bytes_left_out: loaded.ledger.unterminated_tail(),
        },
        lines: LineStats {
            published: of(published, total),
            withheld: of(withheld, total),
            withheld_by_field: counts
                .withheld_by_field
                .iter()
                .map(|(f, &n)| (f.clone(), of(n, withheld)))
                .collect(),
            published_on_operator_reading: of(decision.readings.lines.len(), published),
        },
        coverage: CoverageStats {
            pinned: of(coverage.pinned, published),
            severed: of(coverage.severed.len(), published),
            awaiting_head: of(coverage.awaiting_head.len(), published),
            severed_seqs: &coverage.severed,
            awaiting_head_seqs: &coverage.awaiting_head,
            posted_heads: posts,
        },
        anchors: AnchorStats {
            posts,
            ok: counted(&|a| a.ok()),
            not_ok: counted(&|a| !a.ok()),
            proof_header_ok: counted(&|a| a.proof == ProofState::Ok),
            head_on_withheld_digest: counted(&|a| a.check.head == HeadState::LabWord),
        },
        witness: witness.and_then(|w| w.stats.clone()),
        public_texts: texts.and_then(|t| t.stats.clone()),
        withheld_files: None,
        hosting,
        tree,
    }
}

/// One line of `SNAPSHOTS.jsonl` (docs/protocol.md#snapshots); fields in alphabetical order, as
/// the line has always been written.
#[derive(Serialize)]
struct SnapshotLine<'a> {
    built_at: &'a str,
    digests: J,
    extends: bool,
    extends_commit: Option<&'a str>,
    head: Digest,
    head_seq: Option<i64>,
    /// The verifier key that signs the line, when the operator has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    key: Option<&'a str>,
    lines: usize,
    public_texts: Option<&'a LayerStats>,
    rewrite_reason: Option<&'a str>,
    /// Only when the ledger is segmented (docs/scale.md#snapshots).
    #[serde(skip_serializing_if = "Option::is_none")]
    segments: Option<SegmentsRecord>,
    withheld: usize,
    /// Only when the withheld list is in more than one file (docs/scale.md#withheld-files).
    #[serde(skip_serializing_if = "Option::is_none")]
    withheld_files: Option<crate::published::withheld_files::WithheldRecord>,
    witness: Option<&'a LayerStats>,
}

pub struct Snapshots {
    pub bytes: Vec<u8>,
    pub appended: bool,
    pub last_built_at: String,
}

/// SNAPSHOTS.jsonl (docs/protocol.md#snapshots): HEAD's lines, plus one for this publication when its content changed.
fn snapshots(
    previous: &Previous,
    tree: &Tree,
    (verified, counts): (&VerifiedLedger, &LineCounts),
    plan: &BuildPlan,
    extends: bool,
    stats: &Stats<'_>,
) -> Result<Snapshots> {
    let old = previous.read("ledger/SNAPSHOTS.jsonl")?.unwrap_or_default();
    // The same computation checks HEAD before it is trusted (crate::previous::head_check).
    // One file at a time: neither the digests nor the folders' listings are held.
    let mut hashed = crate::previous::head_check::SnapshotDigests::default();
    for (path, content) in tree.iter_under("ledger/") {
        hashed.add(&path, &content.sha256()?.to_string());
    }
    let digests = J::Object(hashed.finish());
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
    let line = SnapshotLine {
        built_at: &plan.built_at,
        lines: counts.published,
        withheld: counts.withheld(),
        head: verified.head,
        head_seq: counts.head_seq,
        key: plan.key.as_deref().map(|k| k.vkey.as_str()),
        digests,
        extends_commit: previous.commit.as_deref(),
        extends,
        rewrite_reason: if extends {
            None
        } else {
            plan.allow_rewrite.as_deref()
        },
        segments: stats.ledger.files.map(|files| SegmentsRecord {
            files: files
                .iter()
                .filter(|f| f.path.starts_with(crate::published::segments::SEGMENTS_DIR))
                .count(),
            segment_bytes: stats.ledger.segment_bytes.unwrap_or_default(),
        }),
        withheld_files: stats.withheld_files.map(|files| {
            crate::published::withheld_files::WithheldRecord {
                files: files.len() - 1,
                withheld_bytes: plan.config.withheld_bytes,
            }
        }),
        witness: stats.witness.as_ref(),
        public_texts: stats.public_texts.as_ref(),
    };
    let mut bytes = old;
    let line = serde_json::to_vec(&line)?;
    // Signed by the operator's key, its signature the line's first member
    // (docs/anchoring.md#signed-snapshots).
    match plan.key.as_deref() {
        Some(key) => bytes.extend_from_slice(&key.sign_snapshot_line(&line)?),
        None => bytes.extend_from_slice(&line),
    }
    bytes.push(b'\n');
    Ok(Snapshots {
        bytes,
        appended: true,
        last_built_at: plan.built_at.clone(),
    })
}
