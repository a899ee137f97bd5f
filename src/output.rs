//! The write stage: the whole output tree is built in memory, written to a temporary tree beside
//! DIR, and swapped in only when everything succeeded (CONTRACT §1: "A refused or failed build
//! leaves DIR exactly as it was"). `--dry-run` compares the tree with DIR instead and writes
//! nothing.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use walkdir::WalkDir;

/// Relative path (with `/`) → bytes. A BTreeMap, so every listing is in sorted order.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Tree {
    pub files: BTreeMap<String, Vec<u8>>,
}

impl Tree {
    pub fn put(&mut self, path: impl Into<String>, bytes: impl Into<Vec<u8>>) {
        self.files.insert(path.into(), bytes.into());
    }

    pub fn get(&self, path: &str) -> Option<&[u8]> {
        self.files.get(path).map(Vec::as_slice)
    }
}

/// Reads every file under `dir` (a missing DIR is an empty tree).
pub fn read_tree(dir: &Path) -> Result<Tree> {
    let mut tree = Tree::default();
    if !dir.exists() {
        return Ok(tree);
    }
    for entry in WalkDir::new(dir).sort_by_file_name() {
        let entry = entry.with_context(|| format!("{}: cannot list", dir.display()))?;
        if !entry.file_type().is_file() {
            continue;
        }
        let rel = entry
            .path()
            .strip_prefix(dir)
            .expect("under dir")
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join("/");
        if rel.starts_with(".git/") || rel == ".git" {
            continue;
        }
        let bytes = std::fs::read(entry.path())
            .with_context(|| format!("{}: cannot read", entry.path().display()))?;
        tree.put(rel, bytes);
    }
    Ok(tree)
}

/// Writes `tree` as DIR: a temporary sibling is filled, then renamed over DIR.
pub fn write_tree(dir: &Path, tree: &Tree) -> Result<()> {
    let parent = match dir.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    std::fs::create_dir_all(&parent)
        .with_context(|| format!("{}: cannot create", parent.display()))?;
    let name = dir
        .file_name()
        .with_context(|| format!("{}: not a folder name", dir.display()))?
        .to_string_lossy()
        .into_owned();
    if dir.exists() && !dir.is_dir() {
        bail!("{}: exists and is not a folder", dir.display());
    }
    if dir.join(".git").exists() {
        bail!(
            "{}: holds a .git folder; --out must be a folder inside the checkout, not the checkout itself",
            dir.display()
        );
    }
    let pid = std::process::id();
    let staging = parent.join(format!(".{name}.exhibit-new-{pid}"));
    let retired = parent.join(format!(".{name}.exhibit-old-{pid}"));
    let _ = std::fs::remove_dir_all(&staging);
    let result = fill(&staging, tree).and_then(|()| swap(dir, &staging, &retired));
    if result.is_err() {
        let _ = std::fs::remove_dir_all(&staging);
    }
    result
}

fn fill(staging: &Path, tree: &Tree) -> Result<()> {
    std::fs::create_dir_all(staging)
        .with_context(|| format!("{}: cannot create", staging.display()))?;
    let mut made: BTreeSet<PathBuf> = BTreeSet::new();
    for (rel, bytes) in &tree.files {
        let path = staging.join(rel);
        if let Some(p) = path.parent()
            && !made.contains(p)
        {
            std::fs::create_dir_all(p)
                .with_context(|| format!("{}: cannot create", p.display()))?;
            made.insert(p.to_path_buf());
        }
        // No fsync per file (at a million proofs that is most of a build's time): what DIR
        // promises is that a refused or failed build leaves it as it was, which the rename gives.
        // Durability across a power cut is the commit's job, not the build's.
        let mut f = std::fs::File::create(&path)
            .with_context(|| format!("{}: cannot create", path.display()))?;
        f.write_all(bytes)
            .with_context(|| format!("{}: cannot write", path.display()))?;
    }
    Ok(())
}

fn swap(dir: &Path, staging: &Path, retired: &Path) -> Result<()> {
    if dir.exists() {
        std::fs::rename(dir, retired).with_context(|| {
            format!(
                "{}: cannot move aside to {}",
                dir.display(),
                retired.display()
            )
        })?;
        if let Err(e) = std::fs::rename(staging, dir) {
            // Put the old tree back: DIR must end as it began.
            let _ = std::fs::rename(retired, dir);
            return Err(e)
                .with_context(|| format!("{}: cannot move the new tree in", dir.display()));
        }
        std::fs::remove_dir_all(retired)
            .with_context(|| format!("{}: cannot remove the old tree", retired.display()))?;
    } else {
        std::fs::rename(staging, dir)
            .with_context(|| format!("{}: cannot move the new tree in", dir.display()))?;
    }
    Ok(())
}

/// What `--dry-run` prints: the files added, changed and removed, and a unified diff of text
/// files, cut to a readable length.
pub fn describe_changes(dir_name: &str, old: &Tree, new: &Tree) -> String {
    const LINES_PER_FILE: usize = 40;
    let mut out = String::new();
    let paths: BTreeSet<&String> = old.files.keys().chain(new.files.keys()).collect();
    let (mut added, mut changed, mut removed) = (0, 0, 0);
    let mut body = String::new();
    for path in paths {
        let (a, b) = (old.files.get(path), new.files.get(path));
        let label = match (a, b) {
            (None, Some(_)) => {
                added += 1;
                "added"
            }
            (Some(_), None) => {
                removed += 1;
                "removed"
            }
            (Some(x), Some(y)) if x != y => {
                changed += 1;
                "changed"
            }
            _ => continue,
        };
        body.push_str(&format!("{label}: {dir_name}/{path}\n"));
        let empty = Vec::new();
        let (x, y) = (a.unwrap_or(&empty), b.unwrap_or(&empty));
        match (std::str::from_utf8(x), std::str::from_utf8(y)) {
            (Ok(x), Ok(y)) if !path.ends_with(".html") => {
                body.push_str(&unified_diff(dir_name, path, x, y, LINES_PER_FILE));
            }
            _ => body.push_str(&format!(
                "  ({} bytes -> {} bytes{})\n",
                x.len(),
                y.len(),
                if path.ends_with(".html") {
                    ", the page: not diffed"
                } else {
                    ", binary"
                }
            )),
        }
    }
    out.push_str(&format!(
        "dry run: {added} added, {changed} changed, {removed} removed in {dir_name}/ (nothing written)\n"
    ));
    out.push_str(&body);
    out
}

/// A unified diff of one changed region (common leading and trailing lines trimmed): exact for
/// the append-mostly files exhibit writes, and never wrong, if not always minimal.
pub fn unified_diff(dir: &str, path: &str, old: &str, new: &str, max_lines: usize) -> String {
    let a: Vec<&str> = old.split_inclusive('\n').collect();
    let b: Vec<&str> = new.split_inclusive('\n').collect();
    let prefix = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let suffix = a[prefix..]
        .iter()
        .rev()
        .zip(b[prefix..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let removed = &a[prefix..a.len() - suffix];
    let added = &b[prefix..b.len() - suffix];
    let context_before = prefix.min(3);
    let mut out = format!(
        "--- a/{dir}/{path}\n+++ b/{dir}/{path}\n@@ -{},{} +{},{} @@\n",
        prefix - context_before + 1,
        removed.len() + context_before,
        prefix - context_before + 1,
        added.len() + context_before
    );
    let mut lines: Vec<String> = a[prefix - context_before..prefix]
        .iter()
        .map(|l| format!(" {}", l.trim_end_matches('\n')))
        .collect();
    lines.extend(
        removed
            .iter()
            .map(|l| format!("-{}", l.trim_end_matches('\n'))),
    );
    lines.extend(
        added
            .iter()
            .map(|l| format!("+{}", l.trim_end_matches('\n'))),
    );
    let total = lines.len();
    for line in lines.iter().take(max_lines) {
        let shown: String = line.chars().take(200).collect();
        out.push_str(&shown);
        if shown.len() < line.len() {
            out.push('…');
        }
        out.push('\n');
    }
    if total > max_lines {
        out.push_str(&format!(
            "  … {} more diff line(s) not shown\n",
            total - max_lines
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn appended_lines_diff_as_additions_only() {
        let d = unified_diff("site", "f", "a\nb\nc\n", "a\nb\nc\nd\ne\n", 40);
        assert!(d.contains("+d\n+e\n"), "{d}");
        assert!(
            !d.lines()
                .any(|l| l.starts_with('-') && !l.starts_with("---")),
            "{d}"
        );
    }

    #[test]
    fn long_diffs_are_cut() {
        let new: String = (0..500).map(|i| format!("{i}\n")).collect();
        let d = unified_diff("site", "f", "", &new, 40);
        assert!(d.contains("460 more diff line(s) not shown"), "{d}");
    }

    #[test]
    fn a_failed_write_leaves_dir_as_it_was() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("site");
        std::fs::create_dir(&dir).unwrap();
        std::fs::write(dir.join("keep.txt"), b"old").unwrap();
        let mut tree = Tree::default();
        tree.put("ok.txt", b"x".to_vec());
        // A path that cannot be created (a file where a folder must go).
        tree.put("ok.txt/inner", b"y".to_vec());
        assert!(write_tree(&dir, &tree).is_err());
        assert_eq!(read_tree(&dir).unwrap().files.len(), 1);
        assert_eq!(std::fs::read(dir.join("keep.txt")).unwrap(), b"old");
        let leftovers: Vec<_> = std::fs::read_dir(tmp.path()).unwrap().collect();
        assert_eq!(leftovers.len(), 1, "no staging folder left behind");
    }
}
