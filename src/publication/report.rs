//! What `exhibit build` says when it is done (docs/operator.md#build-json): a line of words, one
//! JSON object (`--json`) for scripts, or, under `--dry-run`, the review of what would change.
//! Notes a person should know go to stderr in every form, and `--quiet` drops them and the
//! success line; a refusal is always said. Exit codes do not depend on the form.

use std::io::Write;
use std::process::ExitCode;

use anyhow::{Context, Result};
use serde::Serialize;
use serde_json::{Value as J, json};

use super::BuildPlan;
use super::review;
use crate::published::output_tree::Tree;
use crate::site_write::dir_record::KeptByRecord;
use crate::terminal::refusal::Refusal;

/// How `--dry-run` prints its review in words.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum ReviewFormat {
    /// For a terminal.
    #[default]
    Text,
    /// For a pull request's description or a comment.
    Markdown,
}

/// How the build speaks, from the command line.
#[derive(Debug, Clone, Copy, Default)]
pub struct Voice {
    pub json: bool,
    pub quiet: bool,
    pub format: ReviewFormat,
}

/// What a successful build publishes, for the summary line and `--json`.
#[derive(Debug, Serialize)]
pub struct Built {
    /// Lines of the gate's ledger in this build (header excluded), published and withheld.
    pub lines: u64,
    pub published: u64,
    pub withheld: u64,
    pub head: exhibit_protocol::Digest,
    pub head_seq: Option<i64>,
    pub snapshot: Snapshot,
    /// HEAD held no publication in DIR: every line is published anew.
    pub first_publication: bool,
    /// DIR lies in a git checkout (outside one nothing earlier is read).
    pub in_git: bool,
}

#[derive(Debug, Serialize)]
pub struct Snapshot {
    /// SNAPSHOTS.jsonl gained a line (false when the published content did not change).
    pub appended: bool,
    /// The publication byte-extends the last one.
    pub extends: bool,
    pub rewrite_reason: Option<String>,
}

/// One JSON object and a line break on stdout, with its `schema` (docs/json.md), terminal-steering
/// characters written as JSON escapes (`terminal::json_escaped`): valid JSON that cannot steer a
/// terminal.
fn print_json(schema: &'static str, value: J) -> Result<()> {
    let value = crate::terminal::json_schema::tag(schema, value);
    let text = serde_json::to_string(&value).context("stdout")? + "\n";
    let mut out = std::io::stdout().lock();
    out.write_all(crate::terminal::json_escaped(&text).as_bytes())
        .context("stdout")?;
    out.flush().context("stdout")
}

/// A refused build: every refusal on stderr, and with `--json` also as data on stdout. Exit 1.
pub fn refused(voice: Voice, refusals: &[Refusal]) -> ExitCode {
    crate::say!(
        "exhibit: build refused ({} reason(s)); the output folder was not touched:",
        refusals.len()
    );
    for r in refusals {
        crate::say!("  {r}");
    }
    if voice.json {
        let _ = print_json(
            crate::terminal::json_schema::BUILD,
            json!({"ok": false, "refused": true, "refusals": refusals}),
        );
    }
    ExitCode::from(1)
}

/// An error that stops a `--json` build (exit 2): said on stderr by the caller, and as data here
/// so a script reading stdout is not left with nothing. `verify` and `prove` print the same
/// object under their own `schema`.
pub fn error_json(schema: &'static str, error: &anyhow::Error) {
    let _ = print_json(
        schema,
        json!({"ok": false, "refused": false, "error": format!("{error:#}")}),
    );
}

/// The end of a build that passed: notes, then the tree written (or reviewed), then the words
/// or the JSON object.
pub fn finish(
    plan: &BuildPlan,
    tree: &Tree,
    built: &Built,
    notes: &[String],
    (git_dir, journal): (Option<&std::path::Path>, &std::path::Path),
) -> Result<(ExitCode, KeptByRecord)> {
    let voice = plan.voice;
    if plan.dry_run {
        // Nothing is written: the review is what the person reads next.
        crate::terminal::progress::end(None);
    }
    if !voice.quiet {
        for note in notes {
            crate::say!("exhibit: note: {note}");
        }
    }
    // The whole folder against the host's limits, heads included (docs/hosting.md#limits).
    let size = crate::publication::hosting::size(tree);
    for warning in crate::publication::hosting::warnings(&size) {
        crate::say!("exhibit: warning: {warning}");
    }
    let dir = plan.out.display().to_string();
    let dir = dir.trim_end_matches('/');
    // DIR is walked only when it is shown, and never held whole: at a million proofs DIR is
    // large (docs/scale.md#the-review-walks-dir).
    let walk_dir = || -> Result<_> {
        let walk = crate::site_write::dir_walk::DirWalk::new(&plan.out, git_dir, tree.lists())?;
        Ok(walk)
    };
    if plan.dry_run {
        // The review as data lists every file; in words, a large folder is counted.
        if voice.json {
            // Written as it is made: at a million lines it lists every file and diff
            // (docs/scale.md#review-as-data).
            let mut v = summary_json(dir, built, notes, true);
            v["hosting"] = serde_json::to_value(&size)?;
            let head = crate::terminal::json_schema::tag(crate::terminal::json_schema::BUILD, v);
            let walk = walk_dir()?;
            stream_json(|out| review::write_as_data(out, &head, dir, walk, tree))?;
        } else {
            let review = review::review(dir, walk_dir()?, tree, review::Kept::Shown)?;
            let text = match voice.format {
                ReviewFormat::Text => review.to_text(),
                ReviewFormat::Markdown => review.to_markdown(),
            };
            crate::terminal::to_stdout(&text)
                .context("stdout: cannot write the dry run's review")?;
        }
        return Ok((ExitCode::SUCCESS, KeptByRecord::default()));
    }
    // Listed before DIR is written: what this build changes in it.
    let files = voice
        .json
        .then(|| review::file_changes(walk_dir()?, tree))
        .transpose()?;
    // Temporary files a stopped build left in DIR are removed as DIR is written, and said.
    let (said, kept) = crate::site_write::out_dir::write_tree(&plan.out, tree, git_dir, journal)?;
    crate::terminal::progress::end(Some("write"));
    for said in said {
        if !voice.quiet {
            crate::say!("exhibit: note: {said}");
        }
    }
    if let Some(files) = files {
        let mut v = summary_json(dir, built, notes, false);
        v["hosting"] = serde_json::to_value(&size)?;
        // Named from the tree as written: every file of a first publication, written as it
        // is named (docs/scale.md#review-as-data).
        let head = crate::terminal::json_schema::tag(crate::terminal::json_schema::BUILD, v);
        stream_json(|out| review::write_with_files(out, &head, &files.lists(tree)))?;
    } else if !voice.quiet {
        let line = format!(
            "built {}/: {} of {} lines published, {} withheld; head {}; {}\n",
            crate::terminal::escape(dir),
            built.published,
            built.lines,
            built.withheld,
            built.head,
            match (&built.snapshot, &plan.allow_rewrite) {
                _ if !built.in_git => "FIRST PUBLICATION, outside any git repository: nothing earlier was read, so nothing is extended, kept withheld or taken from earlier readings".to_string(),
                _ if built.first_publication => "FIRST PUBLICATION: HEAD held none in this folder; snapshot line 1 written".to_string(),
                (s, _) if !s.appended =>
                    "published content unchanged: no snapshot appended".to_string(),
                (s, _) if s.extends => "snapshot appended (extends the last)".to_string(),
                (_, reason) => format!(
                    "snapshot appended (extends: false, reason: {})",
                    reason.as_deref().unwrap_or("")
                ),
            }
        );
        let line = format!("{line}{}\n", crate::publication::hosting::said(&size));
        crate::terminal::to_stdout(&line)
            .context("stdout: cannot write the build's summary (the tree was written)")?;
    }
    Ok((ExitCode::SUCCESS, kept))
}

/// A JSON object written to stdout as it is made. An error once it has begun (DIR's walk
/// failing halfway, stdout closed) cannot take back what was written: the unfinished line is
/// ended, and the error object the caller prints follows on a line of its own
/// (docs/json.md#exhibit-build1).
fn stream_json(write: impl FnOnce(&mut dyn std::io::Write) -> Result<()>) -> Result<()> {
    stream_json_into(crate::terminal::EscapedJson::to_stdout(), write).map(drop)
}

fn stream_json_into<W: std::io::Write>(
    mut out: crate::terminal::EscapedJson<W>,
    write: impl FnOnce(&mut dyn std::io::Write) -> Result<()>,
) -> Result<W> {
    match write(&mut out) {
        Ok(()) => out.finish().context("stdout"),
        Err(e) => {
            let _ = out.write_all(b"\n");
            let _ = out.finish();
            Err(e)
        }
    }
}

/// The object's members but `files` (and, on a dry run, `review`), which are written after.
fn summary_json(dir: &str, built: &Built, notes: &[String], dry_run: bool) -> J {
    json!({
        "ok": true,
        "dry_run": dry_run,
        "out": dir,
        "lines": built.lines,
        "published": built.published,
        "withheld": built.withheld,
        "head": built.head,
        "head_seq": built.head_seq,
        "snapshot": built.snapshot,
        "first_publication": built.first_publication,
        "in_git": built.in_git,
        "notes": notes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Caught: an error halfway that leaves the next object on the unfinished line, and one
    /// that is swallowed.
    #[test]
    fn an_object_stopped_halfway_ends_its_line_and_the_error_is_passed_on() {
        let shared = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
        struct Shared(std::rc::Rc<std::cell::RefCell<Vec<u8>>>);
        impl std::io::Write for Shared {
            fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
                self.0.borrow_mut().extend_from_slice(b);
                Ok(b.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let out = crate::terminal::EscapedJson::new(Shared(shared.clone()));
        let err = stream_json_into(out, |w| {
            w.write_all(b"{\"review\":{\"diffs\":[")?;
            anyhow::bail!("site/ledger: cannot list")
        })
        .err()
        .unwrap();
        assert!(format!("{err:#}").contains("cannot list"));
        assert_eq!(&*shared.borrow(), b"{\"review\":{\"diffs\":[\n");
        let whole = stream_json_into(crate::terminal::EscapedJson::new(Vec::new()), |w| {
            Ok(w.write_all(b"{}\n")?)
        })
        .unwrap();
        assert_eq!(whole, b"{}\n");
    }
}
