//! `vectors/tree.json`: the cases both tree implementations must answer alike (docs/tree.md) —
//! the files of a tree from given leaves, lines and digests; checkpoints read or refused; tree
//! paths read or refused; inclusion and consistency proofs held or not; index lookups.
//!
//! The answers are the Rust implementation's; `tests/js/tree-vectors.test.cjs` holds
//! `assets/verify.js` to them and `tests/testsuite/vectors.rs` holds the Rust code to the file
//! (a change in either is a disagreement to explain, never to re-bless blindly).

use std::collections::BTreeMap;

use exhibit_protocol::Digest;
use exhibit_protocol::tree::{self, Checkpoint, IndexRow, LinesMaker, Made, TreeFile, TreeMaker};
use serde_json::{Value as J, json};

/// The entry of seq `s` in the vectors' trees: a digest anyone can make again.
fn entry(s: u64) -> Digest {
    Digest::of(format!("exhibit tree vector entry {s}").as_bytes())
}

/// The published line of seq `s` (none when withheld), any bytes with an LF.
fn line(s: u64) -> Option<String> {
    (s % 7 != 3).then(|| format!("{{\"seq\":{s},\"v\":\"line {s}\"}}\n"))
}

/// The digests a published line carries: some lines none, some one, some two the same.
fn digests(s: u64) -> Vec<Digest> {
    if line(s).is_none() {
        return Vec::new();
    }
    match s % 4 {
        0 => Vec::new(),
        1 => vec![Digest::of(format!("message {s}").as_bytes())],
        2 => vec![
            Digest::of(format!("message {s}").as_bytes()),
            Digest::of(format!("message {s}").as_bytes()),
            Digest::of(format!("draft {s}").as_bytes()),
        ],
        // Shared with another line: a digest two lines carry.
        _ => vec![Digest::of(format!("message {}", s / 2).as_bytes())],
    }
}

/// Every file of the tree at `size` over the vectors' leaves, by path, and its root.
pub fn tree_files(size: u64, origin: &str) -> (BTreeMap<String, Vec<u8>>, tree::Hash) {
    let head = if size == 0 {
        Digest::of(b"header")
    } else {
        entry(size)
    };
    tree_files_of(size, origin, &head, &entry, &line, &digests)
}

/// Every file of the tree at `size` over any leaves, lines and digests (the differential
/// fuzzing's), by path, and its root.
pub fn tree_files_of(
    size: u64,
    origin: &str,
    head: &Digest,
    entry: &dyn Fn(u64) -> Digest,
    line: &dyn Fn(u64) -> Option<String>,
    digests: &dyn Fn(u64) -> Vec<Digest>,
) -> (BTreeMap<String, Vec<u8>>, tree::Hash) {
    let mut files = BTreeMap::new();
    let mut maker = TreeMaker::new();
    let mut lines = LinesMaker::default();
    let mut rows: Vec<IndexRow> = Vec::new();
    for s in 1..=size {
        if let Some(Made::Full(n, tile, bundle)) = maker.push(&entry(s)) {
            files.insert(
                TreeFile::Tile {
                    level: 0,
                    n,
                    width: 256,
                }
                .path(),
                tile,
            );
            files.insert(TreeFile::Entries { n, width: 256 }.path(), bundle);
        }
        if let Some(l) = line(s) {
            for (f, b) in lines.push(s, l.as_bytes()) {
                files.insert(f.path(), b);
            }
        }
        let mut ds = digests(s);
        ds.sort();
        ds.dedup();
        rows.extend(ds.iter().map(|d| IndexRow::new(d, s)));
    }
    for (f, b) in lines.finish(size) {
        files.insert(f.path(), b);
    }
    let finished = maker.finish();
    for (f, b) in finished.files {
        files.insert(f.path(), b);
    }
    tree::index_files(size, &rows, |f, b| {
        files.insert(f.path(), b);
    });
    let cp = Checkpoint {
        origin: origin.into(),
        size,
        root: finished.root,
        head_seq: size,
        head: *head,
        signatures: Vec::new(),
    };
    files.insert("checkpoint".into(), cp.text().into_bytes());
    (files, finished.root)
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn file_cases() -> Vec<J> {
    [0u64, 1, 2, 7, 255, 256, 257, 1023, 1024, 1030, 2100, 16 * 1024 + 3]
        .iter()
        .map(|&size| {
            let origin = "example.test/tree-vectors";
            let (files, root) = tree_files(size, origin);
            json!({
                "name": format!("files-{size}"),
                "size": size,
                "origin": origin,
                "head": if size == 0 { Digest::of(b"header").to_string() } else { entry(size).to_string() },
                "expect": {
                    "root": hex(&root),
                    "checkpoint": String::from_utf8_lossy(&files["checkpoint"]),
                    "files": files.iter().map(|(p, b)| (p.clone(), json!({"len": b.len(), "sha256": Digest::of(b).to_string()}))).collect::<BTreeMap<_, _>>(),
                }
            })
        })
        .collect()
}

fn checkpoint_cases() -> Vec<J> {
    let good = Checkpoint {
        origin: "example.test/log".into(),
        size: 42,
        root: Digest::of(b"root").0,
        head_seq: 42,
        head: Digest::of(b"head"),
        signatures: Vec::new(),
    }
    .text();
    let root_line = good.lines().nth(2).unwrap_or_default().to_string();
    let cases: Vec<(&str, String)> = vec![
        ("plain", good.clone()),
        (
            "signed",
            format!("{good}\n\u{2014} example.test/log AAAAAQ==\n"),
        ),
        (
            "extension-before-head",
            good.replacen("exhibit-head", "other-ext x\nexhibit-head", 1),
        ),
        ("no-final-lf", good.trim_end().to_string()),
        ("size-leading-zero", good.replacen("\n42\n", "\n042\n", 1)),
        ("size-not-decimal", good.replacen("\n42\n", "\n4a\n", 1)),
        ("root-short", good.replacen(&root_line, &root_line[4..], 1)),
        (
            "root-unpadded",
            good.replacen(&root_line, root_line.trim_end_matches('='), 1),
        ),
        (
            "root-31-bytes",
            good.replacen(&root_line, &tree::base64_encode(&[7u8; 31]), 1),
        ),
        ("empty-origin", good.replacen("example.test/log", "", 1)),
        (
            "no-head-line",
            good.replacen("exhibit-head", "exhibit-heed", 1),
        ),
        (
            "two-head-lines",
            good.replacen("exhibit-head 42", "exhibit-head 42 x\nexhibit-head 42", 1),
        ),
        (
            "head-hex-upper",
            good.replace(
                &Digest::of(b"head").to_string(),
                &Digest::of(b"head").to_string().to_uppercase(),
            ),
        ),
        ("blank-after-body-only", format!("{good}\n")),
        (
            "cr-in-origin",
            good.replacen("example.test/log", "example.test/log\r", 1),
        ),
        ("replacement-character-in-origin", {
            let mut s = good.clone();
            s.insert(0, '\u{fffd}');
            s
        }),
    ];
    cases
        .into_iter()
        .map(|(name, text)| {
            let expect = match Checkpoint::parse(text.as_bytes()) {
                Ok(c) => json!({
                    "ok": true, "origin": c.origin, "size": c.size, "root": hex(&c.root),
                    "head_seq": c.head_seq, "head": c.head.to_string(), "signatures": c.signatures.len(),
                }),
                Err(_) => json!({"ok": false}),
            };
            json!({"name": name, "text": text, "expect": expect})
        })
        .collect()
}

fn path_cases() -> Vec<J> {
    [
        "checkpoint",
        "tile/0/000",
        "tile/0/x001/x234/067",
        "tile/2/000.p/7",
        "tile/entries/999.p/1",
        "lines/x001/000.p/255",
        "index/1/12/a7",
        "index/0/3/f",
        "index/tail/976.p/576",
        "tile/0/5",
        "tile/0/0005",
        "tile/0/x000/005",
        "tile/0/005.p/256",
        "tile/0/005.p/0",
        "tile/0/005.p/07",
        "tile/08/005",
        "tile/8/005",
        "lines/005.p/",
        "index/1/3/a",
        "index/1/3/0A",
        "index/0/03/a",
        "index/tail/3.p/1024",
        "index/tail/3",
        "checkpoint.bak",
        "tile/0/005/",
        "tile/entries/x1/005",
        "index/tail/03.p/5",
        "stray",
    ]
    .iter()
    .map(|p| {
        let expect = TreeFile::parse(p).map(|f| match f {
            TreeFile::Checkpoint => json!({"kind": "checkpoint"}),
            TreeFile::Tile { level, n, width } => {
                json!({"kind": "tile", "level": level, "n": n, "width": width})
            }
            TreeFile::Entries { n, width } => json!({"kind": "entries", "n": n, "width": width}),
            TreeFile::Lines { n, width } => json!({"kind": "lines", "n": n, "width": width}),
            TreeFile::IndexBucket { level, run, prefix } => {
                json!({"kind": "index", "level": level, "run": run, "prefix": prefix})
            }
            TreeFile::IndexTail { block, width } => {
                json!({"kind": "tail", "block": block, "width": width})
            }
            TreeFile::ExcerptBucket { level, run, prefix } => {
                json!({"kind": "excerpt", "level": level, "run": run, "prefix": prefix})
            }
            TreeFile::ExcerptTail { block, width } => {
                json!({"kind": "excerpt_tail", "block": block, "width": width})
            }
            TreeFile::ExcerptTexts { block, width } => {
                json!({"kind": "excerpt_texts", "block": block, "width": width})
            }
        });
        json!({"path": p, "expect": expect})
    })
    .collect()
}

struct Files(BTreeMap<String, Vec<u8>>);

impl tree::TreeSource for Files {
    fn read(&self, file: &TreeFile) -> Result<Vec<u8>, String> {
        self.0.get(&file.path()).cloned().ok_or_else(|| file.path())
    }
}

fn hexes(p: &[tree::Hash]) -> Vec<String> {
    p.iter().map(|h| hex(h)).collect()
}

fn proof_cases() -> (Vec<J>, Vec<J>) {
    let mut inclusion = Vec::new();
    let mut consistency = Vec::new();
    for size in [1u64, 2, 5, 256, 300, 70_000] {
        let (files, root) = tree_files(size, "v");
        let src = Files(files);
        for index in [0, size / 2, size - 1] {
            let Ok(proof) = tree::prove_inclusion(&src, size, &root, index) else {
                continue;
            };
            let leaf = tree::leaf_hash(&entry(index + 1).0);
            let mut case = |name: &str, proof: Vec<tree::Hash>, index: u64, size: u64| {
                inclusion.push(json!({
                    "name": format!("inclusion-{size}-{index}-{name}"),
                    "size": size, "index": index, "leaf": hex(&leaf), "root": hex(&root),
                    "proof": hexes(&proof),
                    "expect": tree::check_inclusion(&proof, size, &root, index, &leaf),
                }));
            };
            case("good", proof.clone(), index, size);
            if !proof.is_empty() {
                let mut flipped = proof.clone();
                flipped[0][31] ^= 1;
                case("flipped", flipped, index, size);
                case("short", proof[1..].to_vec(), index, size);
            }
            let mut long = proof.clone();
            long.push(root);
            case("long", long, index, size);
            case("wrong-index", proof.clone(), index ^ 1, size);
            case("index-past-size", proof.clone(), size, size);
        }
        for old in [1, size / 3 + 1, size] {
            let (_, old_root) = tree_files(old, "v");
            let Ok(proof) = tree::prove_consistency(&src, size, &root, old) else {
                continue;
            };
            let mut case = |name: &str, proof: Vec<tree::Hash>, old_root: tree::Hash| {
                consistency.push(json!({
                    "name": format!("consistency-{old}-{size}-{name}"),
                    "old_size": old, "old_root": hex(&old_root), "size": size, "root": hex(&root),
                    "proof": hexes(&proof),
                    "expect": tree::check_consistency(&proof, size, &root, old, &old_root),
                }));
            };
            case("good", proof.clone(), old_root);
            let mut other = old_root;
            other[0] ^= 1;
            case("other-old-root", proof.clone(), other);
            if !proof.is_empty() {
                let mut flipped = proof.clone();
                let last = flipped.len() - 1;
                flipped[last][0] ^= 1;
                case("flipped", flipped, old_root);
                case("short", proof[..proof.len() - 1].to_vec(), old_root);
            }
        }
    }
    (inclusion, consistency)
}

fn lookup_cases() -> Vec<J> {
    let mut out = Vec::new();
    for size in [
        0u64,
        5,
        1024,
        1025,
        16 * 1024,
        16 * 1024 + 1,
        300_000,
        1_000_000,
        17_000_000,
    ] {
        let d = Digest::of(format!("lookup {size}").as_bytes());
        out.push(json!({
            "size": size,
            "digest": d.to_string(),
            "expect": tree::index_lookup(size, &d).iter().map(TreeFile::path).collect::<Vec<_>>(),
        }));
    }
    out
}

/// The whole file, pretty JSON with a final LF.
pub fn document() -> Vec<u8> {
    let (inclusion, consistency) = proof_cases();
    let doc = json!({
        "format": "exhibit-tree-vectors/v1",
        "about": "docs/tree.md. A files case's inputs follow `rules`, for seqs 1..=size; its expect lists every file of the tree with its length and sha256, and the checkpoint's text.",
        "rules": {
            "entry": "sha256 of the UTF-8 text `exhibit tree vector entry <s>`",
            "line": "none (withheld) when s % 7 == 3; else the text `{\"seq\":<s>,\"v\":\"line <s>\"}` and an LF",
            "digests": "none for a withheld seq; by s % 4: 0 none; 1 [sha256(`message <s>`)]; 2 [sha256(`message <s>`), sha256(`message <s>`), sha256(`draft <s>`)]; 3 [sha256(`message <floor(s/2)>`)]",
            "head": "the entry of seq size; sha256(`header`) when size is 0",
        },
        "files": file_cases(),
        "checkpoints": checkpoint_cases(),
        "paths": path_cases(),
        "inclusion": inclusion,
        "consistency": consistency,
        "lookups": lookup_cases(),
    });
    let mut bytes = serde_json::to_vec_pretty(&doc).unwrap_or_default();
    bytes.push(b'\n');
    bytes
}
