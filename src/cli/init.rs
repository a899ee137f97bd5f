//! `exhibit init`: the first step of a new operator. Writes a commented `exhibit.toml` (every key,
//! what it means, its default) into the current folder and, with `--pages`, the GitHub Actions
//! workflow that deploys the committed exhibit folder to GitHub Pages. It never overwrites: when
//! a file it would write exists, it writes nothing and says which (docs/operator.md#init).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};

/// What `exhibit init` was asked to do, checked.
#[derive(Debug, Clone)]
pub struct InitPlan {
    /// The folder to write into (the current folder from the command line).
    pub dir: PathBuf,
    /// Also write `.github/workflows/exhibit-pages.yml`.
    pub pages: bool,
    /// The exhibit folder the workflow deploys (`--out` of `exhibit build`), relative.
    pub out: String,
    /// The branch whose pushes deploy.
    pub branch: String,
    pub quiet: bool,
}

/// Where the workflow goes, relative to the repository's root (GitHub reads workflows there only).
pub const WORKFLOW_PATH: &str = ".github/workflows/exhibit-pages.yml";

/// The commented configuration `init` writes. Every key the loader accepts is here, set to its
/// default or commented out with an example; `tests` below check that uncommenting every example
/// still gives a configuration the loader accepts (a misspelt key would be refused).
pub const CONFIG_TEMPLATE: &str = r#"# exhibit.toml: the box that `exhibit build` reads (written by `exhibit init`).
#
# Paths are relative to this file; absolute paths work too. Nothing in this file is published:
# the build reads the files named here and writes into --out DIR only what passes its rules.
# The paths may name your home folder: commit the exhibit folder, not necessarily this file.

[gate]
# The gate's append-only ledger: JSON lines, header first. Required; there is no default.
# Only complete (LF-terminated) lines are read; a line the gate is still writing waits.
ledger = "gate/ledger.jsonl"

# The gate's config.json (group_hashes, anchor_channel_hash, canary_hash, operator_dm_hash).
# Read only for public texts ([publish] public_texts). Default: none.
# config = "gate/config.json"

# The gate's sources folder (<checked_sha256>.md, <draft_sha256>.md, <draft_sha256>.draft.md).
# Read only for public texts. Default: none.
# sources = "gate/sources"

# The posted heads: <date>.txt (the text posted at each midnight, no trailing newline) and
# <date>.txt.ots (its OpenTimestamps proof). Default: none; the exhibit then has no anchors
# and every published line is counted as awaiting a posted head.
# anchors = "gate/anchors"

[publish]
# The exhibit folder `exhibit build` writes, relative to this file (so the build writes the same
# folder from wherever it runs). `--out DIR` overrides it for one build, relative to the current
# folder. Default: none (then --out is required).
# out = "docs"

# The witness store (index.json, proofs/): publishes the per-line witness layer.
# `--witness STORE` overrides it for one build. Default: none (no witness layer).
# Once published, the layer stays on: leaving it off later refuses the build.
# witness = "wt/store"

# Publish the released bytes of allow-listed public sends (needs [gate] config and sources).
# `--public-texts` turns it on for one build. Default: false.
# Once published, the layer stays on: leaving it off later refuses the build.
public_texts = false

# The most bytes one published ledger file holds. Past it, the published ledger continues in
# ledger/segments/000001.jsonl, 000002.jsonl, ...: files that never change once full, so the
# branch stays within GitHub's file limits and a day's rebuild touches only the last file.
# Accepted: 4096 to 33554432 (32 MiB). Default: 16777216 (16 MiB).
# segment_bytes = 16777216

# The most bytes one file of the withheld list holds; past it the list continues in files of
# its own (docs/scale.md#withheld-files). Accepted: 4096 to 33554432. Default: 4194304 (4 MiB).
# withheld_bytes = 4194304

# Day 1 of the witness kill-gate window you registered, YYYY-MM-DD: published in STATS.json
# (`--witness-window-since` overrides it for one build). A change of it is named in the review.
# Default: none (no window registered).
# witness_window_since = "2026-11-08"

[checkpoint]
# The operator's key (`exhibit key --name ORIGIN --out PATH` writes one, mode 0600): it signs
# the checkpoint and every snapshot line, and a build then refuses a HEAD that is neither signed
# by it nor built on this machine (docs/anchoring.md). Keep it outside this folder and outside
# any repository. Default: none (nothing is signed).
# key = "/home/operator/.config/exhibit/key"

# The log's name, on the checkpoint's first line: the exhibit's address. With a key, the key's
# name. Default: HEAD's, else the Pages address of the `origin` remote (docs/tree.md#checkpoint).
# origin = "example.github.io/exhibit"

# Fields a person has read and admitted, beyond the built-in registry, one table per kind
# ([fields.header] for the ledger's header line). A field nobody admitted refuses the build,
# naming the line and the field: read the line, then admit the field here with its type.
# Types: digest | text | texts | count | counts | bool | day | timestamp.
# Strings in every type but digest, day and timestamp are still tested for an identifier's
# shape, and a hit withholds the line. Default: no table (the built-in registry only).
# [fields.send]
# note = "text"
"#;

/// The workflow `init --pages` writes (and `examples/exhibit-pages.yml` ships): deploy only.
/// The build stays on the operator's box, where the private inputs are; the workflow uploads
/// the folder exactly as committed and deploys it (docs/operator.md#github-pages).
pub fn workflow(out: &str, branch: &str) -> String {
    format!(
        r#"# Deploys the committed exhibit folder to GitHub Pages (written by `exhibit init --pages`).
#
# Deploy only: `exhibit build` runs on the operator's box, where the private inputs are, and the
# folder is committed as it was built. This workflow builds nothing and changes no byte of it.
#
# Set up once: Settings -> Pages -> Build and deployment -> Source: "GitHub Actions". If the
# branch below is not the repository's default branch, also allow it to deploy: Settings ->
# Environments -> github-pages -> Deployment branches and tags -> add "{branch}".
name: exhibit-pages

on:
  push:
    branches: ["{branch}"]
    paths: ["{out}/**"]
  workflow_dispatch:

permissions:
  contents: read
  pages: write
  id-token: write

# One deployment at a time; a newer push waits instead of cancelling a deployment under way.
concurrency:
  group: exhibit-pages
  cancel-in-progress: false

jobs:
  deploy:
    runs-on: ubuntu-latest
    environment:
      name: github-pages
      url: ${{{{ steps.deployment.outputs.page_url }}}}
    steps:
      - name: Check out the exhibit folder as committed
        uses: actions/checkout@v6
        with:
          persist-credentials: false
          sparse-checkout: "{out}"
      - name: Upload the exhibit folder
        uses: actions/upload-pages-artifact@v5
        with:
          path: "{out}"
      - name: Deploy to GitHub Pages
        id: deployment
        uses: actions/deploy-pages@v5
"#
    )
}

/// Writes the files, or none of them when one exists. Exit 0 when written, 2 when refused.
pub fn run(plan: &InitPlan) -> Result<ExitCode> {
    let config = plan.dir.join("exhibit.toml");
    let workflow_file = plan.dir.join(WORKFLOW_PATH);
    // With --pages, an exhibit.toml already there is kept and only the workflow is added: the
    // workflow can be had later without moving the configuration aside (docs/operator.md#init).
    let keep_config = plan.pages && config.symlink_metadata().is_ok();
    let mut files: Vec<(PathBuf, String)> = Vec::new();
    if !keep_config {
        files.push((config.clone(), CONFIG_TEMPLATE.to_string()));
    }
    if plan.pages {
        files.push((workflow_file, workflow(&plan.out, &plan.branch)));
    }
    let existing: Vec<&PathBuf> = files
        .iter()
        .map(|(p, _)| p)
        .filter(|p| p.symlink_metadata().is_ok())
        .collect();
    // A folder on the way that is a link (`.github` pointing elsewhere) would have the file
    // written outside the folder `init` was asked to write into: refused, nothing written.
    let linked: Vec<PathBuf> = files
        .iter()
        .filter_map(|(p, _)| linked_folder(&plan.dir, p))
        .collect();
    if !linked.is_empty() {
        for folder in linked {
            crate::say!(
                "exhibit: init: {} is a link or not a folder; init writes only into real folders below {} (replace it with a folder)",
                crate::terminal::escape(&folder.display().to_string()),
                crate::terminal::escape(&plan.dir.display().to_string())
            );
        }
        crate::say!("exhibit: init wrote nothing");
        return Ok(ExitCode::from(2));
    }
    if !existing.is_empty() {
        for path in existing {
            crate::say!(
                "exhibit: init: {} exists; it is left as it is (move it aside to start anew)",
                crate::terminal::escape(&path.display().to_string())
            );
        }
        crate::say!("exhibit: init wrote nothing");
        return Ok(ExitCode::from(2));
    }
    let mut written = Vec::new();
    for (path, text) in &files {
        if let Err(e) = write_new(path, text) {
            // Leave the folder as it was: remove what this run created before the failure.
            for done in &written {
                let _ = std::fs::remove_file(done);
            }
            return Err(e);
        }
        written.push(path.clone());
    }
    if !plan.quiet {
        if keep_config {
            println!("kept {} as it is", config.display());
        }
        for path in &written {
            println!("wrote {}", path.display());
        }
        println!("next: set [gate] ledger (and the other paths) in exhibit.toml, then");
        let out = shell_word(&plan.out);
        println!("  exhibit build --out {out} --dry-run   # review what the publication adds");
        println!("  exhibit build --out {out}             # write it, then commit the folder");
        if plan.pages {
            println!(
                "and in the repository's settings: Pages -> Source: GitHub Actions (README.md, \"GitHub Pages\")"
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `word` as one word for a POSIX shell: as it is when it holds only safe characters, else in
/// single quotes (a folder with a space stays one argument when the line is pasted).
pub fn shell_word(word: &str) -> String {
    if !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-./+,:@%=".contains(c))
    {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// The first folder between `dir` and `path` (`dir` itself excluded: it is the one the person
/// chose) that exists and is a symbolic link or no folder at all.
fn linked_folder(dir: &Path, path: &Path) -> Option<PathBuf> {
    let rel = path.strip_prefix(dir).ok()?;
    let mut at = dir.to_path_buf();
    let parts: Vec<_> = rel.components().collect();
    for part in &parts[..parts.len().saturating_sub(1)] {
        at.push(part);
        match at.symlink_metadata() {
            Ok(m) if m.file_type().is_symlink() || !m.is_dir() => return Some(at),
            Ok(_) => {}
            Err(_) => return None,
        }
    }
    None
}

/// Creates `path` (and its folders); fails, writing nothing, if it exists by then.
fn write_new(path: &Path, text: &str) -> Result<()> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("{}: cannot create", parent.display()))?;
    }
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .with_context(|| format!("{}: cannot create", path.display()))?;
    file.write_all(text.as_bytes())
        .with_context(|| format!("{}: cannot write", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every commented example, uncommented, is a key the loader knows (it denies unknown keys):
    /// a misspelt key in the template would fail here, not in an operator's first build.
    #[test]
    fn every_commented_key_is_one_the_loader_accepts() {
        let uncommented: String = CONFIG_TEMPLATE
            .lines()
            .map(|l| {
                let body = l.strip_prefix("# ").unwrap_or(l);
                let is_key = body.starts_with('[')
                    || body.split_once(" = ").is_some_and(|(k, _)| {
                        k.chars().all(|c| c.is_ascii_lowercase() || c == '_')
                    });
                if is_key { body } else { l }
            })
            .collect::<Vec<_>>()
            .join("\n");
        for key in [
            "ledger =",
            "config =",
            "sources =",
            "anchors =",
            "witness =",
            "public_texts =",
            "out =",
            "withheld_bytes =",
            "witness_window_since =",
            "key =",
            "origin =",
            "[fields.send]",
        ] {
            assert!(
                uncommented.lines().any(|l| l.starts_with(key)),
                "{key} missing"
            );
        }
        let tmp = tempfile::tempdir().unwrap();
        let file = tmp.path().join("exhibit.toml");
        std::fs::write(&file, &uncommented).unwrap();
        let c = crate::publication::config::load(&file).unwrap();
        assert_eq!(c.ledger, tmp.path().join("gate/ledger.jsonl"));
        assert_eq!(c.anchors, Some(tmp.path().join("gate/anchors")));
        assert_eq!(c.witness, Some(tmp.path().join("wt/store")));
        assert_eq!(c.fields["send"]["note"], "text");
        assert_eq!(c.origin.as_deref(), Some("example.github.io/exhibit"));
        assert_eq!(c.out, Some(tmp.path().join("docs")));
        assert_eq!(c.withheld_bytes, 4_194_304);
        assert_eq!(c.witness_window_since.as_deref(), Some("2026-11-08"));
        assert_eq!(
            c.key,
            Some(std::path::PathBuf::from(
                "/home/operator/.config/exhibit/key"
            ))
        );
        // As written (examples commented out), the defaults hold.
        std::fs::write(&file, CONFIG_TEMPLATE).unwrap();
        let c = crate::publication::config::load(&file).unwrap();
        assert_eq!((c.anchors, c.witness, c.public_texts), (None, None, false));
        assert_eq!((c.out, c.witness_window_since), (None, None));
        assert!(c.fields.is_empty());
    }
}
