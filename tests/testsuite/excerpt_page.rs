//! Proving a passage of a released text on a light page (docs/tree.md#excerpts, docs/page.md
//! "Prove one message on a light page"): a generated box built with `public_texts = true`, served
//! over http by light_page's counting server, visited in headless Chromium on the log-size path.
//! The page must find the line by the excerpt index, prove it in the tree, re-hash the released
//! text, and find the words as a run in it; and read only the lookup's buckets, one lines/ file,
//! the text and the tiles of the proof. Needs `node` and `chromium`, like light_page.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use exhibit_protocol::excerpt;
use exhibit_protocol::tree::TreeFile;
use serde_json::Value as J;

use crate::common;
use crate::light_page::{Server, visit};

/// The box, built: the site, and its generated gate folder.
pub(crate) struct Site {
    _tmp: tempfile::TempDir,
    pub(crate) site: PathBuf,
    gate: PathBuf,
}

/// A generated box of 2,600 lines (seed `seed`, no witness store) with `public_texts = true` and
/// segments of 256 KiB, built into a repository's `site/`: a light page with released texts.
pub(crate) fn light_box_with_texts(seed: u64) -> Site {
    use exhibit_testkit::gen_box::{self, BoxOptions};
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("box");
    gen_box::generate(
        &BoxOptions {
            lines: 2600,
            seed,
            witness: false,
            ..BoxOptions::default()
        },
        &dir,
    )
    .unwrap();
    let toml = std::fs::read_to_string(dir.join("exhibit.toml")).unwrap();
    let toml = toml.replace(
        "public_texts = false",
        "public_texts = true\nsegment_bytes = 262144",
    );
    std::fs::write(dir.join("exhibit.toml"), toml).unwrap();
    git2::Repository::init(tmp.path().join("exhibit")).unwrap();
    let site = tmp.path().join("exhibit/site");
    let o = common::exhibit(
        &[
            "build",
            "--config",
            &dir.join("exhibit.toml").display().to_string(),
            "--out",
            &site.display().to_string(),
        ],
        1_800_000_000,
    );
    assert_eq!(o.status.code(), Some(0), "{}", common::text(&o));
    Site {
        _tmp: tmp,
        site,
        gate: dir.join("gate"),
    }
}

pub(crate) fn build() -> Site {
    let built = light_box_with_texts(11);
    let site = &built.site;
    let stats: J =
        serde_json::from_slice(&std::fs::read(site.join("ledger/STATS.json")).unwrap()).unwrap();
    assert_eq!(
        stats["tree"]["excerpts"], true,
        "the build made the excerpt index"
    );
    built
}

/// The released texts: (sent_sha256, text).
pub(crate) fn released(site: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(site.join("ledger/public_texts")).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        if let Some(sha) = name.strip_suffix(".txt") {
            out.push((sha.to_string(), std::fs::read_to_string(&p).unwrap()));
        }
    }
    out.sort();
    out
}

/// `exhibit prove --site --excerpt FILE --json`: the Rust side's seq for an excerpt (none when
/// it finds none). The page is held to it.
pub(crate) fn cli_seq(site: &Path, excerpt: &str) -> Option<u64> {
    let file = site.parent().unwrap().join("excerpt.txt");
    std::fs::write(&file, excerpt).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_exhibit"))
        .args(["prove", "--json", "--site"])
        .arg(site)
        .arg("--excerpt")
        .arg(&file)
        .output()
        .unwrap();
    let v: J = serde_json::from_slice(&o.stdout).unwrap_or(J::Null);
    v["found"][0]["seq"].as_u64()
}

pub(crate) fn size(site: &Path) -> u64 {
    let cp = std::fs::read_to_string(site.join("ledger/tree/checkpoint")).unwrap();
    cp.lines().nth(1).unwrap().parse().unwrap()
}

/// A run of 12 words from the middle of a released text of 30 words or more, and the same
/// words with two swapped such that their lookup key stays the run's (so the index names the
/// run's seq for both): (the text's sha, where the run starts, the run, the swapped words).
fn middle_run(texts: &[(String, String)]) -> (String, usize, Vec<String>, String) {
    for (sha, text) in texts {
        let words = excerpt::words(text);
        if words.len() < 30 {
            continue;
        }
        for at in (words.len() / 2 - 6)..words.len() - 12 {
            let run = words[at..at + 12].to_vec();
            if let Some(swapped) = swapped_same_key(&run) {
                return (sha.clone(), at, run, swapped);
            }
        }
    }
    panic!("no released text of 30 words or more with a run whose swap keeps its key");
}

/// What the visit with the paste read that a cold visit did not: (path, bytes).
pub(crate) fn paste_reads(server: &Server, paste: &str) -> (J, Vec<(String, u64)>) {
    let cold: BTreeSet<String> = {
        server.take_log();
        visit(&server.url("index.html"), None, &[]);
        server.take_log().into_iter().map(|(p, _)| p).collect()
    };
    let fragment = format!("#paste={}", encode(paste));
    let f = visit(&server.url("index.html"), None, &["--fragment", &fragment]);
    // The posts' proofs the log-size path reads beside its verdict, which the cold visit may
    // close before it has read: not the paste's.
    let more = server
        .take_log()
        .into_iter()
        .filter(|(p, _)| !cold.contains(p) && !p.starts_with("ledger/anchors/"))
        .collect();
    (f, more)
}

fn encode(s: &str) -> String {
    s.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

pub(crate) fn answer(f: &J) -> String {
    let dom = f["dom"].as_str().unwrap();
    let at = dom.find("id=\"paste-answer\"").expect("an answer lead");
    let start = at + dom[at..].find('>').unwrap() + 1;
    dom[start..start + dom[start..].find("</p>").unwrap()].to_string()
}

#[test]
fn a_passage_of_a_released_text_is_found_proved_and_read_in_log_n() {
    // Catches: a page that answers an excerpt as a digest miss (no excerpt lookup: data-match
    // none); a lookup that reads another run's buckets or the whole index (the files read are
    // exactly the lookup's); a hit taken from the index without the text (the shuffled run and
    // the run with a word never sent after it share the lookup key, so the index names the
    // seq: only the text says no); a text shown without its re-hash (the tampered bytes); a
    // miss said as "not sent" (the unreleased text); a short paste looked up at all.
    let s = build();
    let server = Server::start(&s.site);
    let n = size(&s.site);
    let texts = released(&s.site);
    let (sha, at, run, shuffled) = middle_run(&texts);
    assert!(at > 0, "from the middle, not the start");
    let paste = run.join(" ");
    let seq = cli_seq(&s.site, &paste).expect("the CLI finds the run");
    let key = excerpt::lookup_key(&paste).unwrap();
    let lookup: BTreeSet<String> = excerpt::excerpt_lookup(n, key)
        .iter()
        .map(|f| format!("ledger/tree/{}", f.path()))
        .collect();

    let (f, read) = paste_reads(&server, &paste);
    let r = &f["pasteResult"];
    assert_eq!(r["data-match"], "excerpt", "{r}\n{}", answer(&f));
    assert_eq!(r["data-proof"], "included", "{r}");
    assert_eq!(r["data-seq"], seq.to_string(), "the CLI's seq: {r}");
    let lead = answer(&f);
    assert!(lead.contains("A PASSAGE OF THE MESSAGE SENT"), "{lead}");
    assert!(lead.contains(&format!("(line {seq})")), "{lead}");
    let dom = f["dom"].as_str().unwrap();
    assert!(
        dom.contains(&format!("<mark>{}</mark>", run.join(" "))),
        "the passage marked"
    );
    assert!(
        dom.contains("not show that your excerpt is the whole message"),
        "what it proves"
    );
    // The files: the lookup's buckets (all of them), the digest index's buckets (the text was
    // looked up by digest first), the text map's files of the candidates, their texts, one
    // lines/ file, and hash tiles. Nothing else: no ledger file, no index part, no other bucket.
    let named = candidates(&s.site, n, key, (None, None));
    let paths: BTreeSet<&str> = read.iter().map(|(p, _)| p.as_str()).collect();
    for p in &lookup {
        assert!(paths.contains(p.as_str()), "{p} not read: {paths:?}");
    }
    let lines: Vec<&&str> = paths
        .iter()
        .filter(|p| p.starts_with("ledger/tree/lines/"))
        .collect();
    assert_eq!(lines.len(), 1, "{paths:?}");
    for p in &paths {
        let tree = p.strip_prefix("ledger/tree/").and_then(TreeFile::parse);
        let ok = lookup.contains(*p)
            || *p == format!("ledger/public_texts/{sha}.txt")
            || named.iter().any(|(q, text)| {
                *p == format!(
                    "ledger/tree/{}",
                    excerpt::text_map_file(n, *q).unwrap().path()
                ) || text
                    .as_ref()
                    .is_some_and(|t| *p == format!("ledger/public_texts/{t}.txt"))
            })
            || matches!(
                tree,
                Some(
                    TreeFile::Tile { .. }
                        | TreeFile::IndexBucket { .. }
                        | TreeFile::IndexTail { .. }
                        | TreeFile::Lines { .. }
                )
            );
        assert!(ok, "{p} read for an excerpt: {paths:?}");
    }
    let bytes: u64 = read.iter().map(|(_, b)| b).sum();
    assert!(bytes < 512 * 1024, "{bytes} bytes: {read:?}");

    // The same words, two of them swapped where the key's shingle is not: the same lookup key,
    // so the index names the seq; the text holds no such run.
    assert_eq!(excerpt::lookup_key(&shuffled), Some(key));
    let (f, read) = paste_reads(&server, &shuffled);
    let r = &f["pasteResult"];
    assert_eq!(r["data-match"], "none", "{r}");
    assert_eq!(r["data-excerpt"], "missed", "{r}");
    assert!(
        read.iter()
            .any(|(p, _)| p == &format!("ledger/public_texts/{sha}.txt")),
        "the text was read and searched: {read:?}"
    );
    // Held to its text by the text map, the candidate's line is never read.
    assert!(
        read.iter()
            .all(|(p, _)| !p.starts_with("ledger/tree/lines/")),
        "a lines/ file read for a candidate whose text does not hold the words: {read:?}"
    );
    let lead = answer(&f);
    assert!(lead.starts_with("<strong>NOT FOUND"), "{lead}");

    // Too short: not looked up, and said so.
    let (f, read) = paste_reads(&server, &run[..11].join(" "));
    assert_eq!(
        f["pasteResult"]["data-excerpt"], "short",
        "{}",
        f["pasteResult"]
    );
    assert!(f["dom"].as_str().unwrap().contains("only from 12 words on"));
    assert!(
        read.iter().all(|(p, _)| !p.contains("/excerpts/")),
        "{read:?}"
    );

    // The text on the server changed (a byte outside the run): not proved, and said so.
    let file = s.site.join(format!("ledger/public_texts/{sha}.txt"));
    let good = std::fs::read(&file).unwrap();
    let mut bad = good.clone();
    let last = bad.len() - 1;
    bad[last] = if bad[last] == b'.' { b'!' } else { b'.' };
    std::fs::write(&file, &bad).unwrap();
    let (f, _) = paste_reads(&server, &paste);
    std::fs::write(&file, &good).unwrap();
    let r = &f["pasteResult"];
    assert_eq!(r["data-excerpt"], "text-differs", "{r}");
    assert_ne!(r["data-match"], "excerpt", "{r}");
    assert!(answer(&f).contains("NOT PROVED"), "{}", answer(&f));

    // An excerpt of a text the gate checked but the build did not release: not found, and a
    // miss that proves nothing (never "not sent").
    let unreleased = unreleased_run(&s.gate, &texts);
    assert_eq!(cli_seq(&s.site, &unreleased), None);
    let (f, _) = paste_reads(&server, &unreleased);
    let r = &f["pasteResult"];
    assert_eq!(r["data-match"], "none", "{r}");
    let dom = f["dom"].as_str().unwrap();
    assert!(dom.contains("A miss proves nothing"), "honest miss");
    assert!(dom.contains("unreleased"), "says a text may be unreleased");
    assert!(!answer(&f).contains("NOT SENT"), "{}", answer(&f));
}

/// The seqs a lookup of `key` names on the site (held to the contexts when given), each with the
/// text the text map names for it.
pub(crate) fn candidates(
    site: &Path,
    n: u64,
    key: u64,
    ctx: (Option<u16>, Option<u16>),
) -> Vec<(u64, Option<String>)> {
    let read = |f: &TreeFile| std::fs::read(site.join("ledger/tree").join(f.path())).unwrap();
    let mut seqs: Vec<u64> = excerpt::excerpt_lookup(n, key)
        .iter()
        .flat_map(|f| excerpt::lookup_seqs(&read(f), key, ctx.0, ctx.1).unwrap())
        .collect();
    seqs.sort_unstable();
    seqs.dedup();
    seqs.into_iter()
        .map(|q| {
            let map = read(&excerpt::text_map_file(n, q).unwrap());
            (
                q,
                excerpt::text_map_digest(&map, q)
                    .unwrap()
                    .map(|d| d.to_string()),
            )
        })
        .collect()
}

#[test]
fn a_passage_whose_key_other_texts_share_reads_one_lines_file() {
    // Catches: a page that reads every candidate's line before its text (the generator's texts
    // share phrases, so this run's lookup key alone names seqs in several lines/ files, the
    // true one not first); a page that ignores the rows' contexts (it would fetch the other
    // candidates' texts); a page that trusts the text map's text without its line, or a map
    // that lies (a lie about the true seq's text is a miss, said to prove nothing, and
    // `verify SITE` fails it).
    let s = build();
    let server = Server::start(&s.site);
    let n = size(&s.site);
    let texts = released(&s.site);
    let (paste, seq, sha, groups) = shared_key_run(&s.site, n, &texts);
    assert!(
        groups >= 2,
        "candidates by key alone in {groups} lines/ files"
    );
    assert_eq!(cli_seq(&s.site, &paste), Some(seq));
    let (f, read) = paste_reads(&server, &paste);
    let r = &f["pasteResult"];
    assert_eq!(r["data-match"], "excerpt", "{r}\n{}", answer(&f));
    assert_eq!(r["data-proof"], "included", "{r}");
    assert_eq!(r["data-seq"], seq.to_string(), "{r}");
    let lines: Vec<&str> = read
        .iter()
        .map(|(p, _)| p.as_str())
        .filter(|p| p.starts_with("ledger/tree/lines/"))
        .collect();
    let width = (n - (seq - 1) / 256 * 256).min(256);
    let own = TreeFile::Lines {
        n: (seq - 1) / 256,
        width,
    };
    assert_eq!(
        lines,
        [format!("ledger/tree/{}", own.path())],
        "only the true candidate's lines/ file: {read:?}"
    );
    let texts_read: Vec<&str> = read
        .iter()
        .map(|(p, _)| p.as_str())
        .filter(|p| p.starts_with("ledger/public_texts/"))
        .collect();
    assert_eq!(
        texts_read,
        [format!("ledger/public_texts/{sha}.txt")],
        "the contexts leave the true text alone: {read:?}"
    );
    a_lying_map_is_a_miss(&s.site, &server, n, &paste, seq, &texts);
}

/// The true seq's entry in the text map names another released text, which does not hold the
/// words: the page reads that text, not the line, and answers a miss that proves nothing (a
/// page that took the index's hit without a text would say found); `verify SITE` fails the map.
fn a_lying_map_is_a_miss(
    site: &Path,
    server: &Server,
    n: u64,
    paste: &str,
    seq: u64,
    texts: &[(String, String)],
) {
    let path = site
        .join("ledger/tree")
        .join(excerpt::text_map_file(n, seq).unwrap().path());
    let good = std::fs::read(&path).unwrap();
    let other: exhibit_protocol::Digest = texts
        .iter()
        .find(|(_, t)| excerpt::place_in(t, paste).is_none())
        .unwrap()
        .0
        .parse()
        .unwrap();
    let mut lie = good.clone();
    let at = lie
        .chunks_exact(excerpt::TEXT_ENTRY)
        .position(|e| e[..8] == seq.to_be_bytes())
        .expect("the true seq's entry")
        * excerpt::TEXT_ENTRY;
    lie[at + 8..at + 40].copy_from_slice(&other.0);
    std::fs::write(&path, &lie).unwrap();
    let (code, v) = common::verify_json(site);
    let (f, read) = paste_reads(server, paste);
    std::fs::write(&path, &good).unwrap();
    assert_eq!(code, Some(1), "verify SITE fails a lying map: {v}");
    let r = &f["pasteResult"];
    assert_eq!(r["data-match"], "none", "{r}");
    assert_eq!(r["data-excerpt"], "missed", "{r}");
    assert!(
        read.iter()
            .any(|(p, _)| *p == format!("ledger/public_texts/{other}.txt")),
        "the map's text read: {read:?}"
    );
    assert!(
        read.iter()
            .all(|(p, _)| !p.starts_with("ledger/tree/lines/")),
        "{read:?}"
    );
    assert!(!answer(&f).contains("NOT SENT"), "{}", answer(&f));
}

/// 12 words of a released text whose lookup key alone the index also names for other seqs in
/// other lines/ files, the first of them before the text's own: (the words, the text's seq, its
/// sha, how many lines/ files the key's seqs lie in).
fn shared_key_run(site: &Path, n: u64, texts: &[(String, String)]) -> (String, u64, String, usize) {
    for (sha, text) in texts {
        let words = excerpt::words(text);
        for at in 0..words.len().saturating_sub(11) {
            let run = words[at..at + 12].join(" ");
            let l = excerpt::lookup(&run).unwrap();
            let named = candidates(site, n, l.key, (None, None));
            let Some(&(seq, _)) = named
                .iter()
                .find(|(_, t)| t.as_deref() == Some(sha.as_str()))
            else {
                continue;
            };
            let groups: BTreeSet<u64> = named.iter().map(|(q, _)| (q - 1) / 256).collect();
            let held = candidates(site, n, l.key, (l.before, l.after));
            if groups.len() >= 2 && held.len() == 1 && (seq - 1) / 256 != (named[0].0 - 1) / 256 {
                return (run, seq, sha.clone(), groups.len());
            }
        }
    }
    panic!("no run of a released text whose key other texts in other lines/ files share");
}

/// The run with two neighbouring words swapped outside the shingle its lookup key comes from,
/// when that keeps the lookup key: the index names the same seq, but the words are not a run.
fn swapped_same_key(run: &[String]) -> Option<String> {
    let whole = excerpt::lookup(&run.join(" "));
    let keys = excerpt::shingle_keys(run);
    let least = keys.iter().min()?;
    let j = keys.iter().position(|k| k == least)?;
    (0..run.len() - 1)
        .filter(|&a| a + 1 < j || a > j + excerpt::SHINGLE - 1)
        .map(|a| {
            let mut w = run.to_vec();
            w.swap(a, a + 1);
            w
        })
        .filter(|w| w != run)
        .map(|w| w.join(" "))
        .find(|t| excerpt::lookup(t) == whole)
}

/// 12 words of a text the gate checked that no released text holds as a run: a source the
/// build did not release (the generator keeps the sources of sends of every class).
fn unreleased_run(gate: &Path, texts: &[(String, String)]) -> String {
    let released: Vec<Vec<String>> = texts.iter().map(|(_, t)| excerpt::words(t)).collect();
    let mut sources: Vec<PathBuf> = std::fs::read_dir(gate.join("sources"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    sources.sort();
    for p in sources {
        let Ok(text) = std::fs::read_to_string(&p) else {
            continue;
        };
        let words = excerpt::words(&text);
        if words.len() < 20 {
            continue;
        }
        let run = &words[4..16];
        let anywhere = released
            .iter()
            .any(|t| t.windows(run.len()).any(|w| w == run));
        if !anywhere {
            return run.join(" ");
        }
    }
    panic!("no unreleased source of 20 words or more");
}
