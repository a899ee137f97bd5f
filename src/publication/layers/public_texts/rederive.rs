//! Each allow-listed text re-derived from the gate's own copy under `sources/`, as written or with
//! the gate's single trailer, so that its bytes hash to the line's `sent_sha256`
//! (docs/protocol.md#public-texts).

use super::*;

/// Which of the gate's copies a text re-derives from (docs/public-texts.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum GateCopy {
    /// `sources/<checked_sha256>.md`.
    Checked,
    /// `sources/<draft_sha256>.md`.
    Draft,
    /// `sources/<draft_sha256>.draft.md`.
    DraftFile,
}

/// The form a published text took, written `checked`, `checked+trailer`, `draft`,
/// `draft+trailer`, `draft_file`, `draft_file+trailer` or `carried_from_previous_build`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Form {
    /// A gate copy, as written or with the gate's single trailer.
    Derived { copy: GateCopy, trailer: bool },
    /// HEAD's bytes, carried forward when the sources no longer re-derive them.
    CarriedFromPreviousBuild,
}

impl std::fmt::Display for Form {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (copy, trailer) = match self {
            Form::CarriedFromPreviousBuild => return f.write_str("carried_from_previous_build"),
            Form::Derived { copy, trailer } => (copy, *trailer),
        };
        f.write_str(match copy {
            GateCopy::Checked => "checked",
            GateCopy::Draft => "draft",
            GateCopy::DraftFile => "draft_file",
        })?;
        if trailer {
            f.write_str("+trailer")?;
        }
        Ok(())
    }
}

impl Serialize for Form {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// A text re-derived from the gate's copies.
#[derive(Debug, Clone)]
pub(super) struct Derived {
    pub(super) bytes: Vec<u8>,
    pub(super) role: Form,
    pub(super) source: TextSource,
    pub(super) seq: i64,
}

/// Where a released text was taken from, as the index names it: `sources/<sha256>.md`,
/// `sources/<sha256>.draft.md` (the gate's copy a line's digest names), or `HEAD` (carried
/// forward). A digest and a tag, written out when the index is: a string per text was 11 MB
/// at a million lines, on the layer's peak (docs/scale.md#ids-shared).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum TextSource {
    /// `sources/<sha256>.md`.
    Md(Digest),
    /// `sources/<sha256>.draft.md`.
    DraftMd(Digest),
    Head,
}

impl TextSource {
    /// The gate's file name, under its sources folder.
    pub(super) fn file_name(self) -> Option<String> {
        match self {
            TextSource::Md(d) => Some(format!("{d}.md")),
            TextSource::DraftMd(d) => Some(format!("{d}.draft.md")),
            TextSource::Head => None,
        }
    }
}

impl fmt::Display for TextSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.file_name() {
            Some(name) => write!(f, "sources/{name}"),
            None => f.write_str("HEAD"),
        }
    }
}

impl Serialize for TextSource {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// Why a line's text does not re-derive.
#[derive(Debug, Clone)]
pub(super) struct Failure {
    pub(super) reason: &'static str,
    pub(super) detail: String,
}

/// A gate source: no symlink followed, a regular file with one link, within its ceiling
/// (docs/build.md#safety).
pub(super) fn read_source(dir: &Path, name: &str) -> Result<Option<Vec<u8>>> {
    let Some(folder) = crate::operator_box::read::BoxFolder::published_from(dir)? else {
        return Ok(None);
    };
    folder
        .read(name, crate::operator_box::read::FileClass::Source)
        .with_context(|| {
            format!(
                "{}: cannot read the gate's source",
                dir.join(name).display()
            )
        })
}

/// The recipe (docs/protocol.md#public-texts): each candidate file, as written, then with the single trailer.
pub(super) fn rederive(
    sources: &Path,
    line: &SendLine,
    sent: &Digest,
) -> Result<std::result::Result<Derived, Failure>> {
    let mut files: Vec<(GateCopy, TextSource)> = Vec::new();
    if let Some(c) = line.checked {
        files.push((GateCopy::Checked, TextSource::Md(c)));
    }
    if let Some(d) = line.draft {
        if line.checked != Some(d) {
            files.push((GateCopy::Draft, TextSource::Md(d)));
        }
        files.push((GateCopy::DraftFile, TextSource::DraftMd(d)));
    }
    let trailer = line.numerals.map(|(b, n)| trailer(b, n, line.seq));
    let mut found = Vec::new();
    for &(role, source) in &files {
        let name = source.file_name().unwrap_or_default();
        let Some(bytes) = read_source(sources, &name)? else {
            continue;
        };
        found.push(name);
        if Digest::of(&bytes) == *sent {
            return Ok(Ok(Derived {
                bytes,
                role: Form::Derived {
                    copy: role,
                    trailer: false,
                },
                source,
                seq: line.seq,
            }));
        }
        if let Some(t) = &trailer {
            let form = with_trailer(&bytes, t);
            if Digest::of(&form) == *sent {
                return Ok(Ok(Derived {
                    bytes: form,
                    role: Form::Derived {
                        copy: role,
                        trailer: true,
                    },
                    source,
                    seq: line.seq,
                }));
            }
        }
    }
    Ok(Err(if found.is_empty() {
        Failure {
            reason: "no_source_file",
            detail: format!(
                "none of {} is in the gate's sources",
                if files.is_empty() {
                    "the candidates (the line carries no checked_sha256 or draft_sha256)"
                        .to_string()
                } else {
                    files
                        .iter()
                        .filter_map(|(_, n)| n.file_name())
                        .collect::<Vec<_>>()
                        .join(", ")
                }
            ),
        }
    } else {
        Failure {
            reason: "no_form_matches",
            detail: format!(
                "no form of {} hashes to sent_sha256 ({}; only the single-trailer form is re-derived: a send with more than one gate mark re-derives from nothing)",
                found.join(", "),
                if trailer.is_some() {
                    "tried as written and with the trailer"
                } else {
                    "tried as written only: the line carries no numerals bound/total for the trailer"
                }
            ),
        }
    }))
}

/// A group's text: re-derived from the sources, or carried forward from HEAD.
pub(super) struct Found {
    pub(super) bytes: Vec<u8>,
    pub(super) form: Form,
    pub(super) source: TextSource,
    pub(super) seq: i64,
}

/// Step 2a: re-derive a group's text, or carry HEAD's copy forward (docs/public-texts.md);
/// `None` when there is nothing to publish (listed, refused or dropped on the way).
#[allow(clippy::too_many_arguments)]
pub(super) fn text_of(
    sources: &Path,
    head: &HeadState,
    sha: &Digest,
    lines: &[SendLine],
    dir: &str,
    rewrite: Option<&str>,
    texts: &mut Texts,
    out: &mut LayerOutput,
) -> Result<Option<Found>> {
    let first = &lines[0];
    let mut derived = None;
    let mut failures: Vec<(i64, Failure)> = Vec::new();
    for line in lines {
        match rederive(sources, line, sha)? {
            Ok(d) => {
                derived = Some(d);
                break;
            }
            Err(f) => failures.push((line.seq, f)),
        }
    }
    let at_head = head.published.get(sha);
    // A re-derived text that is not UTF-8 is never written.
    let mut not_utf8 = None;
    if let Some(d) = &derived
        && std::str::from_utf8(&d.bytes).is_err()
    {
        not_utf8 = derived.take().map(|d| d.seq);
    }
    // HEAD's copy is read only when the sources no longer re-derive the text.
    let head_copy = match (&derived, at_head) {
        (None, Some((_, Some(_)))) => head.bytes_of(sha)?,
        _ => None,
    };
    let found = match (derived, at_head) {
        (Some(d), _) => Found {
            bytes: d.bytes,
            form: d.role,
            source: d.source,
            seq: d.seq,
        },
        (None, Some((head_seq, Some(_)))) => {
            let head_bytes = head_copy.unwrap_or_default();
            // Carried forward (docs/protocol.md#public-texts): HEAD's bytes, re-checked against the digest.
            let seq = lines
                .iter()
                .map(|l| l.seq)
                .find(|s| s == head_seq)
                .unwrap_or(first.seq);
            let ok = Digest::of(&head_bytes) == *sha && std::str::from_utf8(&head_bytes).is_ok();
            if !ok {
                if let Some(reason) = rewrite {
                    texts.dropped.push(json!({"sent_sha256": sha, "seq": seq, "reason": "head_copy_mismatch", "rewrite_reason": reason}));
                    for l in lines {
                        texts.unreconstructable.push(Unreconstructable::new(l.seq, sha, "head_copy_mismatch",
                            "the copy at HEAD does not hash to sent_sha256 (or is not UTF-8), and the sources do not re-derive it; dropped with --allow-rewrite"));
                    }
                    texts.lines_unrec += lines.len();
                } else {
                    out.refusals.push(Refusal::new(
"text_not_rederivable",
                        file_of(dir, sha),
                        format!("seq {seq}"),
                        "the text published at HEAD does not hash to its sent_sha256 (or is not UTF-8) and the gate's sources no longer re-derive it; it cannot be carried forward (docs/protocol.md#public-texts: append-only)",
                        "restore its source under the gate's sources folder, or --allow-rewrite REASON to drop it",
                    ));
                }
                return Ok(None);
            }
            Found {
                bytes: head_bytes,
                form: Form::CarriedFromPreviousBuild,
                source: TextSource::Head,
                seq,
            }
        }
        (None, _) => {
            for l in lines {
                let entry = if Some(l.seq) == not_utf8 {
                    Unreconstructable::new(
                        l.seq,
                        sha,
                        "not_utf8",
                        "the bytes re-derive but are not valid UTF-8 (a lone surrogate the gate keeps and hashes); never written",
                    )
                } else if not_utf8.is_some() {
                    Unreconstructable::new(
                        l.seq,
                        sha,
                        "not_utf8",
                        format!(
                            "the same bytes as seq {}: they re-derive but are not valid UTF-8; never written",
                            not_utf8.unwrap_or_default()
                        ),
                    )
                } else {
                    // Every line of a group that did not re-derive was tried.
                    let Some((_, f)) = failures.iter().find(|(s, _)| *s == l.seq) else {
                        continue;
                    };
                    Unreconstructable::new(l.seq, sha, f.reason, f.detail.clone())
                };
                texts.unreconstructable.push(entry);
            }
            texts.lines_unrec += lines.len();
            if let Some((head_seq, None)) = at_head {
                out.notes.push(format!(
                    "public texts: HEAD's index lists {sha} (seq {head_seq}) but its file is absent at HEAD; nothing to carry forward, listed as unreconstructable"
                ));
            }
            return Ok(None);
        }
    };
    Ok(Some(found))
}

pub(super) fn crlf_to_lf(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'\r' && bytes.get(i + 1) == Some(&b'\n') {
            i += 1;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    out
}
