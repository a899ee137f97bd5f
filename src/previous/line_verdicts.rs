//! The guard's verdicts on the chain's lines, carried from one build to the next, so that a
//! daily build judges the day's lines and not the years' (docs/scale.md#carried-verdicts).
//!
//! What is remembered: the seq and `entry_id` of the last line the previous build judged, and
//! the seqs up to it whose verdict was anything but "publish" (withheld by the field registry,
//! or kept withheld by history and so not judged). A chain's `entry_id` commits to every line
//! before it (each line's `prev` is the one before's `entry_id`, from the header on), so when
//! this build's verified chain holds the same `entry_id` at that seq, every line up to it is
//! byte for byte the line judged then, and a line not listed was judged "publish" by the same
//! rules. The listed seqs are judged again (they are few, and what follows from a withhold
//! verdict depends on today's readings and flags).
//!
//! Scope: the exhibit binary that wrote it (crate::previous::file_records::binary_identity: the guard's
//! code) and the sha256 of the field registry exhibit.toml admits (its rules). Another binary or
//! another registry judges every line again. A cache, never a source of truth: missing, for
//! another scope, truncated or failing its own checksum, it is ignored and costs time only.
//! Written only after a build has written DIR.
//!
//! Format (crate::previous::carried): the 17 bytes `exhibit-verdicts\n`, the scope, then the last judged
//! seq (i64) and its `entry_id` (32 bytes), the number of listed seqs (u64) and each (i64),
//! ascending, all little-endian; then the sha256 of everything before it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::Result;
use exhibit_protocol::Digest;

const MAGIC: &[u8; 17] = b"exhibit-verdicts\n";

/// The file's name inside the git folder.
pub const FILE: &str = "exhibit/line-verdicts";

/// The verdicts an earlier build left, and what this one judges.
#[derive(Debug, Default)]
pub struct LineVerdicts {
    /// The git folder the state is read from and saved to.
    git_dir: Option<PathBuf>,
    scope: Vec<u8>,
    /// The last judged line, and the seqs up to it not judged "publish".
    known: Option<((i64, Digest), Vec<i64>)>,
    /// What this build judged, to be saved for the next.
    judged: Option<(i64, Digest)>,
    not_published: Vec<i64>,
    /// Lines whose verdict was taken from `known` (for the stage's figures and the tests).
    pub carried: usize,
}

/// The scope of a registry: the binary, then the sha256 of the fields exhibit.toml admits as
/// JSON (a `BTreeMap`, so in one order).
fn scope_of(fields: &BTreeMap<String, BTreeMap<String, String>>) -> Option<Vec<u8>> {
    let mut scope = crate::previous::file_records::binary_identity()?;
    let rules = serde_json::to_vec(fields).ok()?;
    scope.push(0);
    scope.extend_from_slice(&Digest::of(&rules).0);
    Some(scope)
}

impl LineVerdicts {
    /// What `<git_dir>/exhibit/line-verdicts` remembers for this binary and registry, or
    /// nothing.
    pub fn open(
        git_dir: Option<&Path>,
        fields: &BTreeMap<String, BTreeMap<String, String>>,
    ) -> LineVerdicts {
        let (Some(git_dir), Some(scope)) = (git_dir, scope_of(fields)) else {
            return LineVerdicts::default();
        };
        let known =
            crate::previous::carried::read(git_dir, FILE, MAGIC, &scope).and_then(|b| parse(&b));
        LineVerdicts {
            git_dir: Some(git_dir.to_path_buf()),
            scope,
            known,
            ..LineVerdicts::default()
        }
    }

    /// The remembered verdicts, when they hold for this chain: `lines` gives each line's seq
    /// and `entry_id` in chain order. Returns the last seq whose verdict is known and the seqs
    /// up to it that must be judged again, or `None` (judge every line).
    pub fn usable(&self, mut lines: impl Iterator<Item = (i64, Digest)>) -> Option<(i64, &[i64])> {
        let ((seq, id), listed) = self.known.as_ref()?;
        lines
            .find(|(s, _)| s == seq)
            .filter(|(_, e)| e == id)
            .map(|_| (*seq, listed.as_slice()))
    }

    /// Records this build's verdict on the line `seq`: `published` when the registry let it
    /// through. Lines come in chain order.
    pub fn judged(&mut self, seq: i64, entry_id: Digest, published: bool) {
        if !published {
            self.not_published.push(seq);
        }
        self.judged = Some((seq, entry_id));
    }

    /// Writes what this build judged for the next build: to a temporary file beside it, then
    /// renamed over it. Nothing judged (no line), nothing written.
    pub fn save(&self) -> Result<()> {
        let (Some(git_dir), Some((seq, id))) = (&self.git_dir, &self.judged) else {
            return Ok(());
        };
        let mut body = seq.to_le_bytes().to_vec();
        body.extend_from_slice(&id.0);
        body.extend_from_slice(&(self.not_published.len() as u64).to_le_bytes());
        for s in &self.not_published {
            body.extend_from_slice(&s.to_le_bytes());
        }
        crate::previous::carried::Carried::new(git_dir, FILE, MAGIC, &self.scope, &body).save()
    }
}

/// The verdicts a carried body holds (crate::previous::carried checked its magic, scope and checksum);
/// `None` when it is not one.
fn parse(body: &[u8]) -> Option<((i64, Digest), Vec<i64>)> {
    let mut at = 0usize;
    let mut take = |n: usize| -> Option<&[u8]> {
        let piece = body.get(at..at.checked_add(n)?)?;
        at += n;
        Some(piece)
    };
    let i64_at = |b: &[u8]| b.try_into().ok().map(i64::from_le_bytes);
    let seq = i64_at(take(8)?)?;
    let id = Digest(take(32)?.try_into().ok()?);
    let count = usize::try_from(u64::from_le_bytes(take(8)?.try_into().ok()?)).ok()?;
    let mut listed = Vec::with_capacity(count.min(1 << 16));
    for _ in 0..count {
        listed.push(i64_at(take(8)?)?);
    }
    // Ascending, and nothing after the list: anything else is no file of ours.
    (take(1).is_none() && listed.windows(2).all(|w| w[0] < w[1]) && listed.last() <= Some(&seq))
        .then_some(((seq, id), listed))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(extra: &str) -> BTreeMap<String, BTreeMap<String, String>> {
        let mut f = BTreeMap::new();
        if !extra.is_empty() {
            f.insert(
                extra.to_string(),
                BTreeMap::from([("x".to_string(), "text".to_string())]),
            );
        }
        f
    }

    fn id(n: u8) -> Digest {
        Digest([n; 32])
    }

    #[test]
    fn what_one_build_judged_the_next_reads_for_the_same_chain_only() {
        let dir = std::env::temp_dir().join(format!("exhibit-verdicts-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut v = LineVerdicts::open(Some(&dir), &fields(""));
        assert!(v.usable([(1, id(1))].into_iter()).is_none());
        v.judged(1, id(1), true);
        v.judged(2, id(2), false);
        v.judged(3, id(3), true);
        v.save().unwrap();
        let v = LineVerdicts::open(Some(&dir), &fields(""));
        let chain = [(1, id(1)), (2, id(2)), (3, id(3)), (4, id(4))];
        assert_eq!(v.usable(chain.into_iter()), Some((3, &[2i64][..])));
        // Another line at the remembered seq (a rewritten chain): nothing is carried.
        let rewritten = [(1, id(1)), (2, id(2)), (3, id(9))];
        assert!(v.usable(rewritten.into_iter()).is_none());
        // A chain that does not reach the remembered seq (cut back): nothing is carried.
        assert!(v.usable([(1, id(1)), (2, id(2))].into_iter()).is_none());
        // Another registry: another scope, nothing is carried.
        let other = LineVerdicts::open(Some(&dir), &fields("note"));
        assert!(other.usable(chain.into_iter()).is_none());
        // A byte changed: the checksum fails, nothing is carried.
        let path = dir.join(FILE);
        let mut bytes = std::fs::read(&path).unwrap();
        let last = bytes.len() - 40;
        bytes[last] ^= 1;
        std::fs::write(&path, &bytes).unwrap();
        let v = LineVerdicts::open(Some(&dir), &fields(""));
        assert!(v.usable(chain.into_iter()).is_none());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
