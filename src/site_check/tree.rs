//! `exhibit verify SITE` holds `ledger/tree/` to the chain it re-derives (docs/tree.md#verifiers):
//! every leaf from the chain and the withheld list, every file the tree at that size has made
//! again and compared byte for byte, every other name under `ledger/tree/` a stray.
//!
//! Fed the published entries as the ledger streams past: the lines files are compared as their
//! groups close, so only the leaves (32 bytes a seq) and the index's rows are kept.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Read;

use anyhow::{Context, Result};
use exhibit_protocol::tree::{self, Checkpoint, IndexRow, LinesMaker, Made, TreeFile, TreeMaker};
use exhibit_protocol::{Digest, Report, Withheld};

use crate::operator_box::read::{BoxFolder, FileClass};
use crate::site_check::outcome::FileProblem;

/// What the check says of the tree, beside its problems.
#[derive(Debug, Clone, serde::Serialize)]
pub struct TreeReport {
    /// Whether the site publishes a tree (an exhibit built before the tree view does not).
    pub published: bool,
    /// Whether every file was re-derived and compared (only when the chain re-derives).
    pub checked: bool,
    pub size: Option<u64>,
    pub root: Option<String>,
    pub origin: Option<String>,
    /// The operator's signatures (docs/anchoring.md#what-verify-says).
    pub signatures: Option<crate::site_check::signatures::Signatures>,
    /// The witnesses' cosignatures, when STATS.json lists witnesses (docs/anchoring.md#cosignatures).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cosigned: Option<crate::published::cosignature::Cosigned>,
    #[serde(skip)]
    pub ledger_dir: BoxFolder,
}

pub struct TreeCheck {
    ledger_dir: BoxFolder,
    folder: Option<BoxFolder>,
    /// The published entries' seqs and derived ids, in order.
    ids: Vec<(u64, Digest)>,
    lines: LinesMaker,
    rows: Vec<IndexRow>,
    /// Problems found as the ledger streamed; kept only when the chain re-derives.
    found: Vec<FileProblem>,
}

impl TreeCheck {
    pub fn new(ledger_dir: &BoxFolder) -> Result<TreeCheck> {
        Ok(TreeCheck {
            ledger_dir: ledger_dir.clone(),
            folder: ledger_dir.sub("tree")?,
            ids: Vec::new(),
            lines: LinesMaker::default(),
            rows: Vec::new(),
            found: Vec::new(),
        })
    }

    /// One published entry as the verifier read it.
    pub fn entry(&mut self, entry: &exhibit_protocol::verify::Entry<'_>) {
        let (Some(seq), Some(id)) = (entry.seq, entry.derived_id) else {
            return;
        };
        let Ok(seq) = u64::try_from(seq) else {
            return;
        };
        self.ids.push((seq, id));
        if self.folder.is_none() {
            return;
        }
        let mut line = Vec::with_capacity(entry.bytes.len() + 1);
        line.extend_from_slice(entry.bytes);
        line.push(b'\n');
        for (file, bytes) in self.lines.push(seq, &line) {
            self.compare(&file, &bytes);
        }
        self.rows.extend(tree::rows_of_line(seq, entry.bytes));
    }

    /// A file made again, compared with the site's.
    fn compare(&mut self, file: &TreeFile, expected: &[u8]) {
        let Some(folder) = &self.folder else { return };
        self.found
            .extend(compare_file(folder, file, expected, "tree", "the chain"));
    }

    /// The rest of the tree, once the chain is read: `report` says whether it re-derives and
    /// where its head is; `stats_tree` whether STATS.json states a tree.
    pub fn finish(
        mut self,
        report: &Report,
        withheld: &Withheld,
        stats_tree: bool,
        files: &mut Vec<FileProblem>,
    ) -> Result<TreeReport> {
        let mut out = TreeReport {
            published: self.folder.is_some(),
            checked: false,
            size: None,
            root: None,
            origin: None,
            signatures: None,
            cosigned: None,
            ledger_dir: self.ledger_dir.clone(),
        };
        if self.folder.is_none() {
            if stats_tree {
                files.push(FileProblem {
                    file: "ledger/tree/".into(),
                    code: "tree_file_missing".into(),
                    detail: "STATS.json states a tree, and the folder is absent (docs/tree.md#verifiers)".into(),
                });
            }
            return Ok(out);
        }
        if !report.ok {
            // No leaves to hold the tree to: said, not guessed (docs/tree.md#verifiers).
            return Ok(out);
        }
        let leaves = self.leaves(withheld);
        let size = leaves.len() as u64;
        for (file, bytes) in std::mem::take(&mut self.lines).finish(size) {
            self.compare(&file, &bytes);
        }
        let mut maker = TreeMaker::new();
        for id in &leaves {
            if let Some(Made::Full(n, tile, bundle)) = maker.push(id) {
                let width = tree::TILE_WIDTH;
                self.compare(&TreeFile::Tile { level: 0, n, width }, &tile);
                self.compare(&TreeFile::Entries { n, width }, &bundle);
            }
        }
        let finished = maker.finish();
        for (file, bytes) in &finished.files {
            self.compare(file, bytes);
        }
        let rows = std::mem::take(&mut self.rows);
        let mut index = Vec::new();
        tree::index_files(size, &rows, |f, b| index.push((f, b)));
        drop(rows);
        for (file, bytes) in index {
            self.compare(&file, &bytes);
        }
        let head = report.head.unwrap_or(Digest([0; 32]));
        let origin = self.check_checkpoint(size, &finished.root, &head);
        self.strays(size)?;
        self.found.sort_by(|a, b| a.file.cmp(&b.file));
        files.append(&mut self.found);
        out.checked = true;
        out.size = Some(size);
        out.root = Some(Digest(finished.root).to_string());
        out.origin = origin;
        Ok(out)
    }

    /// Every seq's entry: the published lines' derived ids and the withheld list's digests.
    fn leaves(&mut self, withheld: &Withheld) -> Vec<Digest> {
        let ids = std::mem::take(&mut self.ids);
        let last = ids
            .last()
            .map(|(s, _)| *s)
            .max(withheld.by_seq.keys().next_back().map(|&s| s as u64))
            .unwrap_or(0);
        let mut out = Vec::with_capacity(last as usize);
        let mut published = ids.into_iter().peekable();
        for seq in 1..=last {
            match published.peek() {
                Some((s, id)) if *s == seq => {
                    out.push(*id);
                    published.next();
                }
                _ => match withheld.by_seq.get(&(seq as i64)) {
                    Some(w) => out.push(w.entry_id),
                    // The chain re-derived, so every seq is published or withheld.
                    None => break,
                },
            }
        }
        out
    }

    /// The checkpoint against the chain: size, root and head re-derived; the origin is read.
    fn check_checkpoint(&mut self, size: u64, root: &tree::Hash, head: &Digest) -> Option<String> {
        let file = TreeFile::Checkpoint;
        let folder = self.folder.as_ref()?;
        let bad = |detail: String| problem(&file, "tree_checkpoint", detail);
        let bytes = match read_tree_file(folder, &file, 65_537) {
            Ok(Some(b)) => b,
            Ok(None) => {
                self.found
                    .push(bad("absent (docs/tree.md#checkpoint)".into()));
                return None;
            }
            Err(e) => {
                self.found.push(bad(format!("{e:#}")));
                return None;
            }
        };
        let c = match Checkpoint::parse(&bytes) {
            Ok(c) => c,
            Err(e) => {
                self.found.push(bad(format!(
                    "not a checkpoint: {e} (docs/tree.md#checkpoint)"
                )));
                return None;
            }
        };
        let mut differs = Vec::new();
        if c.size != size {
            differs.push(format!("size {} where the chain has {size} seqs", c.size));
        }
        if &c.root != root {
            differs.push(format!(
                "root {} where the chain's is {}",
                Digest(c.root),
                Digest(*root)
            ));
        }
        if c.head_seq != size || &c.head != head {
            differs.push(format!(
                "exhibit-head {} {} where the chain's head is {size} {head}",
                c.head_seq, c.head
            ));
        }
        if !differs.is_empty() {
            self.found.push(bad(format!(
                "{} (docs/tree.md#checkpoint)",
                differs.join("; ")
            )));
        }
        Some(c.origin)
    }

    /// Names under `ledger/tree/` that the tree at `size` does not have.
    fn strays(&mut self, size: u64) -> Result<()> {
        let Some(folder) = &self.folder else {
            return Ok(());
        };
        let expected: BTreeSet<String> = tree::files_at(size).iter().map(TreeFile::path).collect();
        let mut present = BTreeMap::new();
        walk(folder, "", &mut present)?;
        for (name, regular) in present {
            // The excerpt index is held to the released texts (check_excerpts).
            if name.starts_with("excerpts/") && regular {
                continue;
            }
            if !regular || !expected.contains(&name) {
                self.found.push(FileProblem {
                    file: format!("ledger/tree/{name}"),
                    code: "tree_stray".into(),
                    detail: if regular {
                        format!("the tree at {size} seqs has no such file (docs/tree.md#layout)")
                    } else {
                        "not a regular file (a symlink or a special file); the tree has only files (docs/tree.md#layout)".into()
                    },
                });
            }
        }
        Ok(())
    }
}

/// A file made again against the site's: a `<codes>_file_missing` or `<codes>_file_differs`
/// problem, or none; `from` says what re-derives it.
fn compare_file(
    folder: &BoxFolder,
    file: &TreeFile,
    expected: &[u8],
    codes: &str,
    from: &str,
) -> Option<FileProblem> {
    match read_tree_file(folder, file, expected.len() as u64 + 1) {
        Ok(None) => Some(problem(
            file,
            &format!("{codes}_file_missing"),
            format!(
                "absent: the tree at the chain's size has this file, by {from} (docs/tree.md#layout)"
            ),
        )),
        Ok(Some(actual)) if actual != expected => Some(problem(
            file,
            &format!("{codes}_file_differs"),
            format!(
                "{} bytes where {from} re-derives {} bytes{} (docs/tree.md#verifiers)",
                actual.len(),
                expected.len(),
                first_difference(&actual, expected)
            ),
        )),
        Ok(Some(_)) => None,
        Err(e) => Some(problem(
            file,
            &format!("{codes}_file_differs"),
            format!("{e:#}"),
        )),
    }
}

/// What the excerpt index is made of (docs/tree.md#excerpts): every released text that hashes
/// to its name, filed at the first published send line that carries it, as its pair (seq,
/// digest) for the text map and its rows.
#[derive(Default)]
pub struct ExcerptSource {
    pub rows: Vec<IndexRow>,
    pub pairs: Vec<(u64, Digest)>,
}

/// The excerpt index held to the released texts (docs/tree.md#excerpts). Checked when the tree
/// is (the chain re-derives) and the site has the index or STATS.json states it (`stated`);
/// every file made again and compared, every other name under `ledger/tree/excerpts/` a stray.
pub fn check_excerpts(
    tree: &TreeReport,
    stated: bool,
    source: ExcerptSource,
    files: &mut Vec<FileProblem>,
) -> Result<()> {
    let ExcerptSource {
        mut rows,
        mut pairs,
    } = source;
    let (Some(size), Some(folder)) = (
        tree.size.filter(|_| tree.checked),
        tree.ledger_dir.sub("tree")?,
    ) else {
        return Ok(());
    };
    let present = folder.sub("excerpts")?;
    if present.is_none() && !stated {
        return Ok(());
    }
    rows.sort_by_key(|r| r.seq);
    pairs.sort_unstable();
    let mut found = Vec::new();
    let mut expected = BTreeSet::new();
    exhibit_protocol::excerpt::excerpt_files(size, &rows, &pairs, |file, bytes| {
        found.extend(compare_file(
            &folder,
            &file,
            &bytes,
            "excerpt",
            "the released texts",
        ));
        expected.insert(file.path());
    });
    if let Some(sub) = present {
        let mut names = BTreeMap::new();
        walk(&sub, "excerpts/", &mut names)?;
        for (name, regular) in names {
            if !regular || !expected.contains(&name) {
                found.push(FileProblem {
                    file: format!("ledger/tree/{name}"),
                    code: "excerpt_stray".into(),
                    detail: format!(
                        "the excerpt index at {size} seqs has no such file (docs/tree.md#excerpts)"
                    ),
                });
            }
        }
    }
    found.sort_by(|a, b| a.file.cmp(&b.file));
    files.append(&mut found);
    Ok(())
}

fn problem(file: &TreeFile, code: &str, detail: String) -> FileProblem {
    FileProblem {
        file: format!("ledger/tree/{}", file.path()),
        code: code.into(),
        detail,
    }
}

/// ` (first differing byte N)` when both have bytes there.
fn first_difference(a: &[u8], b: &[u8]) -> String {
    match a.iter().zip(b).position(|(x, y)| x != y) {
        Some(i) => format!(", first differing at byte {i}"),
        None => String::new(),
    }
}

/// A tree file's bytes, at most `limit` of them (a file longer than expected is read no
/// further than one byte past: enough to know it differs). `None` when absent.
pub(crate) fn read_tree_file(
    folder: &BoxFolder,
    file: &TreeFile,
    limit: u64,
) -> Result<Option<Vec<u8>>> {
    let path = file.path();
    let mut parts: Vec<&str> = path.split('/').collect();
    let Some(name) = parts.pop() else {
        return Ok(None);
    };
    let mut dir = folder.clone();
    for p in parts {
        match dir.sub(p)? {
            Some(d) => dir = d,
            None => return Ok(None),
        }
    }
    let Some(f) = dir.open(name, FileClass::OutputFile)? else {
        return Ok(None);
    };
    let mut bytes = Vec::new();
    f.take(limit)
        .read_to_end(&mut bytes)
        .with_context(|| format!("{}: cannot read", dir.path().join(name).display()))?;
    Ok(Some(bytes))
}

/// Every name under `folder`, relative, with whether it is a regular file.
fn walk(folder: &BoxFolder, prefix: &str, out: &mut BTreeMap<String, bool>) -> Result<()> {
    for l in folder.list()? {
        let rel = format!("{prefix}{}", l.name);
        if l.dir {
            match folder.sub(&l.name)? {
                Some(sub) => walk(&sub, &format!("{rel}/"), out)?,
                None => {
                    out.insert(rel, false);
                }
            }
        } else {
            out.insert(rel, l.file && l.utf8);
        }
    }
    Ok(())
}
