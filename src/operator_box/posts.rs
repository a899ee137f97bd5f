//! The operator's posted heads on disk (`<date>.txt`, `<date>.txt.ots`), read and checked
//! against a ledger's facts: shared by `exhibit build` and `exhibit verify`
//! (docs/protocol.md#anchors).

use exhibit_protocol::Digest;
use std::path::Path;

use anyhow::Result;
use serde::Serialize;

use crate::operator_box::read::{BoxFolder, FileClass};
use exhibit_protocol::anchors::{self, AnchorCheck, EntryFacts, Post};
use exhibit_protocol::ots;
use exhibit_protocol::verify::Withheld;

/// The anchor checks plus the proof's header, for one post, and what the proof evaluates to.
#[derive(Debug, Clone, Serialize)]
pub struct AnchorReport {
    #[serde(flatten)]
    pub check: AnchorCheck,
    /// `ok`, `missing`, or the header problem's code (`bad_magic`, `digest_mismatch`, ...).
    pub proof: ProofState,
    /// When the proof's header commits to the post and the rest evaluates: every attestation,
    /// in the order of the file (docs/anchoring.md) — for a Bitcoin one, the block, the merkle
    /// root it must carry and the explorers' pages to compare it on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub attestations: Option<Vec<ots::Attestation>>,
    /// When the proof's header commits to the post but the rest does not evaluate: why. The post
    /// then fails (docs/anchoring.md#a-proof-that-does-not-evaluate).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub proof_problem: Option<ProofProblem>,
}

/// Why a proof whose header passed does not evaluate: a code of `ots::BodyProblem` and words.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ProofProblem {
    pub code: &'static str,
    pub detail: String,
}

impl AnchorReport {
    /// Whether this post's head vouches for the lines before it: its four checks pass and its
    /// proof's header does not fail. The build's STATS.json, `exhibit verify SITE` and the page
    /// (`heads` in assets/page.js) count coverage by this one rule (docs/build.md#coverage): the
    /// build counted a head whose day was not closed or whose proof failed, and its own site
    /// then failed its figures.
    pub fn vouches(&self) -> bool {
        self.check.ok && !matches!(self.proof, ProofState::Header(_))
    }
}

/// The seqs of the posted heads that vouch ([`AnchorReport::vouches`]).
pub fn vouching_heads(reports: &[AnchorReport]) -> std::collections::BTreeSet<i64> {
    reports
        .iter()
        .filter(|a| a.vouches())
        .filter_map(|a| a.check.posted.as_ref().map(|p| p.seq))
        .collect()
}

/// The state of a post's `.txt.ots` proof: absent, or its header checked against the post's
/// bytes (docs/protocol.md#anchors). Written as `ok`, `missing` or the problem's code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProofState {
    Ok,
    Missing,
    Header(ots::OtsProblem),
}

impl ProofState {
    /// The word written to `anchors/index.json` and to the notes.
    pub fn as_str(self) -> &'static str {
        match self {
            ProofState::Ok => "ok",
            ProofState::Missing => "missing",
            ProofState::Header(problem) => problem.code(),
        }
    }
}

impl std::fmt::Display for ProofState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for ProofState {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl AnchorReport {
    /// A missing proof is shown, not failed (the post may not be stamped yet); a proof whose
    /// header or digest is wrong fails, and so does one whose header passes but whose operations
    /// do not evaluate (the build publishes no such proof: docs/build.md#proof-body).
    pub fn ok(&self) -> bool {
        self.check.ok
            && matches!(self.proof, ProofState::Ok | ProofState::Missing)
            && self.proof_problem.is_none()
    }

    /// The proof's word for the notes: the header's state, or the code of why a proof whose
    /// header passed does not evaluate.
    pub fn proof_word(&self) -> &str {
        match &self.proof_problem {
            Some(p) => p.code,
            None => self.proof.as_str(),
        }
    }
}

/// Reads `<date>.txt` posts (and their `.txt.ots` proofs) from a folder, in date order — through
/// [`BoxFolder`]: no symlink followed, regular files only, each within its ceiling
/// (docs/build.md#safety).
/// A post and its proof's bytes, when it has one.
pub type PostWithProof = (Post, Option<Vec<u8>>);

pub fn read_posts(dir: &Path) -> Result<Vec<PostWithProof>> {
    read_posts_in(BoxFolder::named(dir)?, dir)
}

/// [`read_posts`] from the box's anchors folder, whose files the build publishes: a file there
/// with more than one link is refused too ([`BoxFolder::published_from`]).
pub fn read_box_posts(dir: &Path) -> Result<Vec<(Post, Option<Vec<u8>>)>> {
    read_posts_in(BoxFolder::published_from(dir)?, dir)
}

fn read_posts_in(folder: Option<BoxFolder>, dir: &Path) -> Result<Vec<(Post, Option<Vec<u8>>)>> {
    let Some(folder) = folder else {
        anyhow::bail!("{}: no such folder", dir.display());
    };
    let mut posts = Vec::new();
    for listed in folder.list()? {
        let Some(date) = listed.name.strip_suffix(".txt") else {
            continue;
        };
        if !listed.utf8 || !exhibit_protocol::days::is_day(date) {
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

/// The anchor checks of docs/protocol.md#anchors plus each proof's header against the post's bytes.
pub fn check_posts_with_proofs(
    facts: &[EntryFacts],
    withheld: &Withheld,
    header_digest: Option<Digest>,
    posts: Vec<(Post, Option<Vec<u8>>)>,
) -> Vec<AnchorReport> {
    let (posts, proofs): (Vec<Post>, Vec<Option<Vec<u8>>>) = posts.into_iter().unzip();
    let checks = anchors::check_posts(facts, withheld, header_digest, &posts);
    checks
        .into_iter()
        .zip(posts.iter().zip(proofs))
        .map(|(check, (post, proof))| {
            let proof_bytes = proof.as_deref();
            let state = proof_state(proof_bytes, &post.bytes);
            let (attestations, proof_problem) = match (state, proof_bytes) {
                (ProofState::Ok, Some(bytes)) => evaluated(bytes),
                _ => (None, None),
            };
            AnchorReport {
                check,
                proof: state,
                attestations,
                proof_problem,
            }
        })
        .collect()
}

/// A proof whose header passed, evaluated (docs/anchoring.md): its attestations, or why not.
fn evaluated(bytes: &[u8]) -> (Option<Vec<ots::Attestation>>, Option<ProofProblem>) {
    match ots::evaluate(bytes) {
        Ok(e) => (Some(e.attestations), None),
        Err(p) => (
            None,
            Some(ProofProblem {
                code: p.code(),
                detail: format!(
                    "the proof's header commits to the post, but its operations do not evaluate: it {p}"
                ),
            }),
        ),
    }
}

pub fn proof_state(proof: Option<&[u8]>, post: &[u8]) -> ProofState {
    match proof {
        None => ProofState::Missing,
        Some(bytes) => match ots::check(bytes, &Digest::of(post)) {
            Ok(()) => ProofState::Ok,
            Err(p) => ProofState::Header(p),
        },
    }
}
