//! The guard's verdict on each text and the release that follows: released, withheld with its
//! reason, or refused as a rewrite; the guard's verdicts carried between builds (docs/public-
//! texts.md, docs/scale.md#carried-verdicts).

use super::*;

pub(super) fn reason_codes(findings: &[Finding]) -> Vec<String> {
    findings.iter().map(|f| f.code().to_string()).collect()
}

/// The reasons in words a stranger understands (docs/guard.md#reasons), for the index and the
/// page; like the codes, they never echo what the guard matched.
pub(super) fn reason_words(findings: &[Finding]) -> String {
    let words: Vec<&str> = findings.iter().map(|f| f.words()).collect();
    format!("the text holds {}", words.join("; and "))
}

/// One text this build publishes.
pub(super) struct Release {
    pub(super) bytes: Vec<u8>,
    /// DIR already holds these bytes, unchanged since the last build wrote them (a segmented
    /// exhibit, whose page carries no text): the bytes are let go and the text is named as
    /// DIR's file, [`Texts::dir_folder`] (docs/scale.md#memory).
    pub(super) in_dir: bool,
    /// The bytes were written into the build's folder of made files as the text was released
    /// (a segmented exhibit): let go, and the text named as that folder's file
    /// (docs/scale.md#made-as-written).
    pub(super) made: bool,
    pub(super) entry: PublishedText,
}

impl Release {
    /// The text's sha256, which names its file.
    pub(super) fn sha(&self) -> Digest {
        self.entry.sent_sha256
    }
}

/// What steps 2 to 5 decide of the allow-listed texts.
#[derive(Default)]
pub(super) struct Texts {
    pub(super) releases: Vec<Release>,
    /// What DIR already holds, asked as each text is released (in sha256 order) in a segmented
    /// exhibit: a text DIR holds is let go at once, not held until DIR's copies are compared
    /// (docs/scale.md#memory).
    pub(super) dir_holds: Option<crate::site_write::dir_record::DirHolds>,
    /// `DIR/ledger/public_texts`, where the texts DIR already holds are read again.
    pub(super) dir_folder: Option<std::sync::Arc<Path>>,
    pub(super) withheld: Vec<WithheldText>,
    pub(super) unreconstructable: Vec<Unreconstructable>,
    pub(super) allowed: Vec<J>,
    pub(super) dropped: Vec<J>,
    pub(super) lines_published: usize,
    pub(super) lines_withheld: usize,
    pub(super) lines_unrec: usize,
    pub(super) allow_text_used: BTreeSet<Digest>,
    /// The texts an earlier build's guard found nothing in (sorted), and this build's
    /// (docs/scale.md#carried-verdicts).
    pub(super) guarded_before: Vec<Digest>,
    pub(super) guarded_now: Vec<Digest>,
}

/// The carried state of the text guard: the sha256s of the texts it found nothing in, under
/// this binary (the guard is a function of a text's bytes, and a text here is the bytes that
/// hash to its name). 32 bytes a text, sorted.
pub(super) const GUARDED_FILE: &str = "exhibit/texts-guarded";
pub(super) const GUARDED_MAGIC: &[u8] = b"exhibit-texts-guarded\n";

pub(super) fn guarded_before(git_dir: Option<&Path>) -> Vec<Digest> {
    let Some(body) =
        crate::previous::carried::read_for_binary(git_dir, GUARDED_FILE, GUARDED_MAGIC)
    else {
        return Vec::new();
    };
    let list: Vec<Digest> = body
        .chunks_exact(32)
        .filter_map(|c| c.try_into().ok().map(Digest))
        .collect();
    // Whole and in order, or not ours.
    if body.len() % 32 != 0 || !list.windows(2).all(|w| w[0] < w[1]) {
        return Vec::new();
    }
    list
}

pub(super) fn guarded_carried(
    git_dir: Option<&Path>,
    mut now: Vec<Digest>,
) -> Option<crate::previous::carried::Carried> {
    now.sort_unstable();
    now.dedup();
    let body: Vec<u8> = now.iter().flat_map(|d| d.0).collect();
    crate::previous::carried::for_binary(git_dir, GUARDED_FILE, GUARDED_MAGIC, &body)
}

/// Step 2b: the guard reads the text; it is released, allowed on a reading, or withheld.
#[allow(clippy::too_many_arguments)]
pub(super) fn guard_and_release(
    ctx: &LayerContext<'_>,
    head: &HeadState,
    classes: &Classes,
    sha: &Digest,
    lines: &[SendLine],
    found: Found,
    dir: &str,
    texts: &mut Texts,
    out: &mut LayerOutput,
) -> Result<()> {
    let rewrite = ctx.plan.allow_rewrite.as_deref();
    let at_head = head.published.get(sha);
    let Found {
        bytes,
        form,
        source,
        seq,
    } = found;
    let day = lines
        .iter()
        .find(|l| l.seq == seq)
        .map(|l| l.day.clone())
        .unwrap_or_else(|| SharedText::from(""));
    // Bytes that are not UTF-8 were listed before and never reach here.
    let text = String::from_utf8_lossy(&bytes);
    // A text this binary's guard found nothing in before is not scanned again
    // (docs/scale.md#carried-verdicts).
    let findings = if texts.guarded_before.binary_search(sha).is_ok() {
        Vec::new()
    } else {
        guard::scan(&text, guard::Context::PublicText)
    };
    if findings.is_empty() {
        texts.guarded_now.push(*sha);
    }
    let reasons = reason_codes(&findings);
    if !reasons.is_empty() {
        let read_at_head = head.readings.get(sha).filter(|r| {
            let read: BTreeSet<&str> = r
                .get("reasons")
                .and_then(J::as_array)
                .map(|a| a.iter().filter_map(J::as_str).collect())
                .unwrap_or_default();
            reasons.iter().all(|x| read.contains(x.as_str()))
        });
        if let Some(r) = read_at_head {
            let mut r = r.clone();
            r["read_in"] = J::String("HEAD".into());
            texts.allowed.push(r);
        } else if ctx.plan.allow_text.contains(sha) {
            texts.allow_text_used.insert(*sha);
            texts.allowed.push(json!({"sent_sha256": sha, "seq": seq, "reasons": reasons, "read_in": "this build"}));
        } else {
            let w = WithheldText {
                day,
                other_seqs: other_seqs(lines, seq),
                reasons: reasons.clone(),
                role: form,
                sent_sha256: *sha,
                seq,
                why: reason_words(&findings),
            };
            if at_head.is_some_and(|(_, b)| b.is_some()) {
                // Published before, trips now: the rules grew (docs/protocol.md#public-texts).
                if let Some(reason) = rewrite {
                    texts.dropped.push(json!({"sent_sha256": sha, "seq": seq, "reason": "newly_trips_text_guard", "rewrite_reason": reason}));
                } else {
                    out.refusals.push(Refusal::new(
"text_now_guarded",
                        file_of(dir, sha),
                        format!("seq {seq}"),
                        format!(
                            "a text published at HEAD now trips the text guard ({}); the rules grew, and a published text is not removed silently (docs/protocol.md#public-texts)",
                            reasons.join(", ")
                        ),
                        format!("--allow-text {sha} after a person has read it, or --allow-rewrite REASON to drop it"),
                    ));
                    return Ok(());
                }
            }
            texts.withheld.push(w);
            texts.lines_withheld += lines.len();
            return Ok(());
        }
    }
    texts.lines_published += lines.len();
    let len = bytes.len();
    // The text's name is its sha256: DIR's record is compared with it. A dry run, which has no
    // folder of made files to let the text go into, reads DIR's copy to be sure where the record
    // does not describe it (DIR checked out again, a clone), or every text would be held until
    // DIR's copies are compared (53 MB at a million: docs/scale.md#without-dirs-record-dry-run).
    let rel = format!("{FOLDER}/{sha}.txt");
    let in_dir = texts.dir_holds.as_mut().is_some_and(|holds| {
        holds
            .holding_or_read(&rel, *sha, len as u64, ctx.made.is_none())
            .is_some()
    });
    // A segmented exhibit's new text is written as it is released, into the build's folder of
    // made files, and named from there when the tree is made: at a million lines the texts
    // are 120 MB (docs/scale.md#made-as-written). A one-file exhibit's page carries them.
    let made = match ctx.made.filter(|_| ctx.segmented && !in_dir) {
        Some(made) => {
            made.put(&rel, &bytes)?;
            true
        }
        None => false,
    };
    let bytes = if in_dir || made { Vec::new() } else { bytes };
    texts.releases.push(Release {
        entry: PublishedText {
            bytes: len,
            day,
            form,
            seqs: OtherSeqs::new(
                classes.off_by_sha.get(sha).iter().map(|o| o.seq).collect(),
                other_seqs(lines, seq),
            ),
            sent_sha256: *sha,
            seq,
            source,
        },
        bytes,
        in_dir,
        made,
    });
    Ok(())
}

/// A text the guard withholds, with the reasons in codes and in words (never what matched).
#[derive(Debug, Clone, Serialize)]
pub(super) struct WithheldText {
    pub(super) day: SharedText,
    pub(super) other_seqs: Vec<i64>,
    pub(super) reasons: Vec<String>,
    pub(super) role: Form,
    pub(super) sent_sha256: Digest,
    pub(super) seq: i64,
    pub(super) why: String,
}

/// An allow-listed line whose text cannot be published: why, in a code and in words.
#[derive(Debug, Clone, Serialize)]
pub(super) struct Unreconstructable {
    pub(super) detail: String,
    pub(super) reason: &'static str,
    pub(super) sent_sha256: Digest,
    pub(super) seq: i64,
}

impl Unreconstructable {
    pub(super) fn new(
        seq: i64,
        sha: &Digest,
        reason: &'static str,
        detail: impl Into<String>,
    ) -> Self {
        Unreconstructable {
            detail: detail.into(),
            reason,
            sent_sha256: *sha,
            seq,
        }
    }
}
