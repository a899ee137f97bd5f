//! The tree view of the chain (docs/tree.md): built from the chain, appended a day at a time
//! without touching full files, held to the chain by `verify SITE`, and answering `prove` from
//! a few files.

use std::collections::{BTreeMap, BTreeSet};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use crate::common::*;
use exhibit_protocol::Digest;
use exhibit_protocol::tree::{self, TreeFile};
use exhibit_testkit::gen_box::{self, BoxOptions};
use serde_json::Value;

struct Scene {
    _tmp: tempfile::TempDir,
    dir: PathBuf,
    full_ledger: Vec<u8>,
    repo: git2::Repository,
    site: PathBuf,
}

/// A generated box of `lines` lines (no witness store), its ledger cut to the
/// first `first_day` entries, built into a repository's `site/` and committed.
fn scene(lines: u64, first_day: usize) -> Scene {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("box");
    gen_box::generate(
        &BoxOptions {
            lines,
            seed: 11,
            witness: false,
            ..BoxOptions::default()
        },
        &dir,
    )
    .unwrap();
    let toml = std::fs::read_to_string(dir.join("exhibit.toml")).unwrap();
    let toml: String = toml
        .lines()
        .filter(|l| !l.starts_with("witness"))
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(dir.join("exhibit.toml"), toml).unwrap();
    let full_ledger = std::fs::read(dir.join("gate/ledger.jsonl")).unwrap();
    let cut: usize = full_ledger
        .split_inclusive(|&b| b == b'\n')
        .take(first_day + 1)
        .map(<[u8]>::len)
        .sum();
    std::fs::write(dir.join("gate/ledger.jsonl"), &full_ledger[..cut]).unwrap();
    let repo = git2::Repository::init(tmp.path().join("exhibit")).unwrap();
    let site = tmp.path().join("exhibit/site");
    let s = Scene {
        _tmp: tmp,
        dir,
        full_ledger,
        repo,
        site,
    };
    s.build(&[]);
    commit_site(&s.repo);
    s
}

impl Scene {
    fn build(&self, extra: &[&str]) -> std::process::Output {
        let config = self.dir.join("exhibit.toml").display().to_string();
        let site = self.site.display().to_string();
        let mut args = vec!["build", "--config", &config, "--out", &site];
        args.extend_from_slice(extra);
        let o = exhibit(&args, 1_800_000_000);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o));
        o
    }

    fn next_day(&self) {
        std::fs::write(self.dir.join("gate/ledger.jsonl"), &self.full_ledger).unwrap();
        self.build(&[]);
    }

    fn tree_dir(&self) -> PathBuf {
        self.site.join("ledger/tree")
    }

    fn prove(&self, args: &[&str]) -> (Option<i32>, Value) {
        let site = self.site.display().to_string();
        let mut all = vec!["prove", "--site", &site, "--json"];
        all.extend_from_slice(args);
        let o = exhibit(&all, 0);
        let v = serde_json::from_slice(&o.stdout).unwrap_or_else(|_| panic!("{}", text(&o)));
        (o.status.code(), v)
    }
}

/// Every file under `dir`, relative, with its bytes, inode and mtime.
fn files_under(dir: &Path) -> BTreeMap<String, (Vec<u8>, u64, i64)> {
    let mut out = BTreeMap::new();
    for e in walkdir::WalkDir::new(dir) {
        let e = e.unwrap();
        if e.file_type().is_file() {
            let rel = e.path().strip_prefix(dir).unwrap().display().to_string();
            let m = e.metadata().unwrap();
            out.insert(
                rel,
                (
                    std::fs::read(e.path()).unwrap(),
                    m.ino(),
                    m.mtime_nsec() + m.mtime() * 1_000_000_000,
                ),
            );
        }
    }
    out
}

fn names_at(size: u64) -> BTreeSet<String> {
    tree::files_at(size).iter().map(TreeFile::path).collect()
}

/// The published lines of a site, by seq.
fn published_lines(site: &Path) -> BTreeMap<u64, Value> {
    let mut out = BTreeMap::new();
    let mut files = vec![site.join("ledger/ledger.jsonl")];
    if let Ok(rd) = std::fs::read_dir(site.join("ledger/segments")) {
        let mut segs: Vec<PathBuf> = rd.map(|e| e.unwrap().path()).collect();
        segs.sort();
        files.extend(segs);
    }
    for f in files {
        for line in std::fs::read_to_string(f).unwrap().lines() {
            let v: Value = serde_json::from_str(line).unwrap();
            if let Some(seq) = v["seq"].as_u64() {
                out.insert(seq, v);
            }
        }
    }
    out
}

#[test]
fn a_day_adds_tree_files_and_replaces_only_the_partial_ones_never_a_full_one() {
    let s = scene(3000, 1300);
    let day1 = files_under(&s.tree_dir());
    let size1 = 1300;
    assert_eq!(
        day1.keys().cloned().collect::<BTreeSet<_>>(),
        names_at(size1),
        "the tree at 1300 seqs has exactly its files"
    );
    s.next_day();
    let day2 = files_under(&s.tree_dir());
    assert_eq!(
        day2.keys().cloned().collect::<BTreeSet<_>>(),
        names_at(3000)
    );
    for (name, (bytes, ino, mtime)) in &day1 {
        let full = !name.contains(".p/") && name != "checkpoint";
        match day2.get(name) {
            // A full file: the same bytes, never rewritten (same inode, same mtime).
            Some((b2, ino2, mtime2)) if full => {
                assert_eq!(b2, bytes, "{name} changed");
                assert_eq!((ino2, mtime2), (ino, mtime), "{name} was rewritten");
            }
            None if full => panic!("the full file {name} was removed"),
            Some(_) => assert_eq!(name, "checkpoint", "a partial file kept its name: {name}"),
            // A partial file is replaced by a wider one, or the full one.
            None => {}
        }
    }
    // Index runs: block 0 (seqs 1–1024) was complete on day 1 and is kept as it was.
    assert!(day1.contains_key("index/0/0/a"));
    assert!(day2.contains_key("index/0/1/f"));
    let (code, v) = verify_json(&s.site);
    assert_eq!(code, Some(0), "{v}");
    assert_eq!(v["tree"]["checked"], true);
    assert_eq!(v["tree"]["size"], 3000);
}

#[test]
fn verify_site_fails_every_kind_of_tampered_tree_file_by_its_own_code() {
    let s = scene(2100, 2100);
    let (code, v) = verify_json(&s.site);
    assert_eq!(code, Some(0), "{v}");
    type Damage = fn(&Path);
    let cases: Vec<(&str, &str, Damage)> = vec![
        ("tile/0/000", "tree_file_differs", |d| {
            flip(&d.join("tile/0/000"), 100)
        }),
        ("tile/1/000.p/8", "tree_file_differs", |d| {
            flip(&d.join("tile/1/000.p/8"), 0)
        }),
        ("tile/entries/003", "tree_file_differs", |d| {
            flip(&d.join("tile/entries/003"), 40)
        }),
        ("lines/002", "tree_file_differs", |d| {
            flip(&d.join("lines/002"), 7)
        }),
        ("index/0/1/c", "tree_file_differs", |d| {
            std::fs::write(d.join("index/0/1/c"), [0u8; 16]).unwrap()
        }),
        ("index/tail/2.p/52", "tree_file_missing", |d| {
            std::fs::remove_file(d.join("index/tail/2.p/52")).unwrap()
        }),
        ("tile/0/008.p/52", "tree_file_missing", |d| {
            std::fs::remove_file(d.join("tile/0/008.p/52")).unwrap()
        }),
        // A stale partial tile left beside its successor.
        ("tile/0/008.p/51", "tree_stray", |d| {
            std::fs::write(d.join("tile/0/008.p/51"), vec![0u8; 51 * 32]).unwrap()
        }),
        ("checkpoint", "tree_checkpoint", |d| {
            let c = std::fs::read_to_string(d.join("checkpoint")).unwrap();
            std::fs::write(d.join("checkpoint"), c.replacen("\n2100\n", "\n2099\n", 1)).unwrap()
        }),
        ("checkpoint", "tree_checkpoint", |d| {
            std::fs::write(d.join("checkpoint"), "not a checkpoint\n").unwrap()
        }),
    ];
    for (file, want, damage) in cases {
        let copy = s._tmp.path().join("copy");
        let _ = std::fs::remove_dir_all(&copy);
        copy_site(&s.site, &copy);
        damage(&copy.join("ledger/tree"));
        // The snapshot sealed over the damage: only the tree's own check can see it.
        reseal_snapshot(&copy);
        let (code, v) = verify_json(&copy);
        assert_eq!(code, Some(1), "{file}: {v}");
        let problems = file_problems(&v);
        assert!(
            problems.contains(&(format!("ledger/tree/{file}"), want.to_string())),
            "{file}: {problems:?}"
        );
    }
}

fn msg_path(s: &Scene) -> PathBuf {
    s._tmp.path().join("message.txt")
}

fn flip(path: &Path, at: usize) {
    let mut b = std::fs::read(path).unwrap();
    b[at] ^= 1;
    std::fs::write(path, b).unwrap();
}

#[test]
fn the_index_finds_every_published_digest_at_its_seq() {
    let s = scene(2600, 2600);
    let lines = published_lines(&s.site);
    let read = |f: &TreeFile| std::fs::read(s.tree_dir().join(f.path())).unwrap();
    let mut checked = 0;
    for (seq, v) in &lines {
        for field in tree::INDEX_FIELDS {
            let Some(hex) = v[field].as_str() else {
                continue;
            };
            let d: Digest = hex.parse().unwrap();
            let found: Vec<u64> = tree::index_lookup(2600, &d)
                .iter()
                .flat_map(|f| tree::index_seqs(&read(f), &d).unwrap())
                .collect();
            assert!(found.contains(seq), "seq {seq} {field}: {found:?}");
            checked += 1;
        }
    }
    assert!(checked > 1000, "{checked} digests looked up");
}

#[test]
fn prove_answers_by_seq_digest_and_text_from_a_few_files_and_fails_a_tampered_tile() {
    let s = scene(3000, 1300);
    let old_checkpoint = s._tmp.path().join("checkpoint-day1");
    std::fs::copy(s.tree_dir().join("checkpoint"), &old_checkpoint).unwrap();
    s.next_day();
    let lines = published_lines(&s.site);
    let ledger_bytes: u64 = std::fs::metadata(s.site.join("ledger/ledger.jsonl"))
        .unwrap()
        .len();

    // By seq.
    let (code, v) = s.prove(&["--seq", "2002"]);
    assert_eq!(code, Some(0), "{v}");
    assert_eq!(v["found"][0]["seq"], 2002);
    assert_eq!(v["found"][0]["included"], true);
    assert_eq!(v["checkpoint"]["size"], 3000);
    assert!(
        v["bytes_read"].as_u64().unwrap() < ledger_bytes / 4,
        "read {} of a ledger of {ledger_bytes}",
        v["bytes_read"]
    );

    // By digest: a send line's sent_sha256, found through the index.
    let (seq, line) = lines
        .iter()
        .rev()
        .find(|(_, v)| v["sent_sha256"].is_string())
        .unwrap();
    let sent = line["sent_sha256"].as_str().unwrap();
    let (code, v) = s.prove(&["--sha256", sent]);
    assert_eq!(code, Some(0), "{v}");
    let seqs: Vec<u64> = v["found"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["seq"].as_u64().unwrap())
        .collect();
    assert!(seqs.contains(seq), "{v}");
    assert!(
        v["found"]
            .as_array()
            .unwrap()
            .iter()
            .all(|f| f["included"] == true)
    );

    // By text: a message as sent (the gate's source of it is the sent bytes), found through
    // the index by its digest.
    let (seq, text) = lines
        .iter()
        .find_map(|(seq, v)| {
            let checked = v["checked_sha256"].as_str()?;
            let bytes = std::fs::read(s.dir.join(format!("gate/sources/{checked}.md"))).ok()?;
            (Digest::of(&bytes).to_string() == v["sent_sha256"].as_str()?).then_some((*seq, bytes))
        })
        .expect("a send line whose source is its sent bytes");
    std::fs::write(msg_path(&s), &text).unwrap();
    let (code, v) = s.prove(&["--text", &msg_path(&s).display().to_string()]);
    assert_eq!(code, Some(0), "{v}");
    let found = v["found"].as_array().unwrap();
    let f = found.iter().find(|f| f["seq"] == seq).unwrap();
    assert!(
        f["matched"]
            .as_array()
            .unwrap()
            .contains(&"sent_sha256".into()),
        "{v}"
    );

    // By text: bytes that hash to nothing published, with a trailer naming a seq: the seq is
    // proved, and the text's own digest matches no field.
    let msg = msg_path(&s);
    std::fs::write(&msg, "hello\n\n[gate: 2/2 numerals bound · ledger 1500]").unwrap();
    let (code, v) = s.prove(&["--text", &msg.display().to_string()]);
    assert_eq!(code, Some(1), "the text is carried by no line: {v}");
    // Found at its seq, but it carries no digest of this text: not a proof of the text.
    assert!(v["asked"].as_str().unwrap().contains("seq 1500"), "{v}");

    // A digest no line carries.
    let (code, v) = s.prove(&["--sha256", &Digest::of(b"never sent").to_string()]);
    assert_eq!(code, Some(1), "{v}");
    assert_eq!(v["found"], serde_json::json!([]));

    // Consistency with the checkpoint of day 1: today's tree extends it.
    let since = old_checkpoint.display().to_string();
    let (code, v) = s.prove(&["--seq", "5", "--since", &since]);
    assert_eq!(code, Some(0), "{v}");
    assert_eq!(v["consistency"]["holds"], true);
    assert_eq!(v["consistency"]["old_size"], 1300);
    // A day-1 checkpoint of another history (its root altered): the proof fails.
    let forged = std::fs::read_to_string(&old_checkpoint).unwrap();
    let root_line = forged.lines().nth(2).unwrap().to_string();
    let other_root = exhibit_protocol::tree::base64_encode(&Digest::of(b"x").0);
    std::fs::write(&old_checkpoint, forged.replacen(&root_line, &other_root, 1)).unwrap();
    let (code, v) = s.prove(&["--seq", "5", "--since", &since]);
    assert_eq!(code, Some(1), "{v}");
    assert_eq!(v["consistency"]["holds"], false);

    // A tile of the proof's path altered: the line is not included.
    flip(&s.tree_dir().join("tile/0/007"), 3);
    let (code, v) = s.prove(&["--seq", "2002"]);
    assert_eq!(code, Some(1), "{v}");
    assert_eq!(v["found"][0]["included"], false);
}

/// The README's check by hand (scripts/prove-by-hand.py: Python's standard library, no exhibit
/// code) proves a line of a built exhibit, and refuses when a tile on its path is altered or the
/// line's bytes are.
#[test]
fn the_proof_by_hand_holds_and_fails_a_tampered_tile_or_line() {
    let s = scene(700, 700);
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/prove-by-hand.py");
    let run = |seq: &str| {
        std::process::Command::new("python3")
            .arg(&script)
            .arg(&s.site)
            .arg(seq)
            .output()
            .expect("python3 (the README's check by hand needs it)")
    };
    for seq in ["1", "256", "257", "512", "700"] {
        let o = run(seq);
        assert_eq!(o.status.code(), Some(0), "seq {seq}: {}", text(&o));
        assert!(String::from_utf8_lossy(&o.stdout).contains("INCLUDED"));
    }
    // A hash of tile 1 (seqs 257–512) altered: the root no longer comes out for seq 300.
    flip(&s.tree_dir().join("tile/0/001"), 64);
    let o = run("300");
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("NOT INCLUDED"));
    // A line rewritten in lines/: its entry_id no longer re-derives (the script stops).
    let lines = s.tree_dir().join("tile/../lines/000");
    let t = std::fs::read_to_string(&lines).unwrap();
    let first = t.lines().next().unwrap().to_string();
    let v: Value = serde_json::from_str(&first).unwrap();
    let day = v["day"].as_str().unwrap();
    std::fs::write(
        &lines,
        t.replacen(&format!("\"day\":\"{day}\""), "\"day\":\"2000-01-01\"", 1),
    )
    .unwrap();
    let seq = v["seq"].as_u64().unwrap().to_string();
    let o = run(&seq);
    assert_ne!(o.status.code(), Some(0), "{}", text(&o));
}

/// The checkpoint's origin: `[publish] origin` when set (and guarded: it is published), else
/// HEAD's, so that a log keeps its name when the setting goes (docs/tree.md#checkpoint).
#[test]
fn the_origin_is_the_configured_one_then_heads_and_an_identifier_is_refused() {
    let s = scene(300, 300);
    let first_line = |s: &Scene| {
        std::fs::read_to_string(s.tree_dir().join("checkpoint"))
            .unwrap()
            .lines()
            .next()
            .unwrap()
            .to_string()
    };
    let derived = first_line(&s);
    assert!(derived.starts_with("exhibit/"), "{derived}");
    let toml_path = s.dir.join("exhibit.toml");
    let toml = std::fs::read_to_string(&toml_path).unwrap();
    let with = |origin: &str| {
        toml.replacen(
            "[publish]",
            &format!("[checkpoint]\norigin = \"{origin}\"\n[publish]"),
            1,
        )
    };
    std::fs::write(&toml_path, with("example.github.io/exhibit")).unwrap();
    // HEAD's log had another origin: naming it anew is a rewrite, said as such.
    let config = toml_path.display().to_string();
    let site = s.site.display().to_string();
    let o = exhibit(
        &["build", "--config", &config, "--out", &site],
        1_800_000_000,
    );
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).contains("origin_changed"), "{}", text(&o));
    s.build(&["--allow-rewrite", "the log takes its address as its name"]);
    assert_eq!(first_line(&s), "example.github.io/exhibit");
    commit_site(&s.repo);
    // The setting gone: HEAD's origin stays.
    std::fs::write(&toml_path, &toml).unwrap();
    s.build(&[]);
    assert_eq!(first_line(&s), "example.github.io/exhibit");
    // An origin that names a person is published nowhere: the configuration is refused.
    std::fs::write(&toml_path, with("jane.doe@example.com")).unwrap();
    let o = exhibit(
        &["build", "--config", &config, "--out", &site],
        1_800_000_000,
    );
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("[checkpoint] origin") && err.contains("guard"),
        "{err}"
    );
}
