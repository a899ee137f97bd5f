//! The operator's signatures on a signed site (docs/anchoring.md), held by both verifiers:
//! `exhibit verify SITE` and the page in headless Chromium (its full check, over http) are given
//! a site built with `[checkpoint] key` and then tampered one way at a time, and must answer
//! alike: the same `checkpoint_signature` / `snapshot_signature` problems on the same files, or
//! both pass. Each tampering that changes a file the last snapshot records is resealed and the
//! last line signed again with the operator's key, so that only the signatures can fail it.

use std::path::{Path, PathBuf};

use crate::common::*;
use crate::light_page::{FULL, Server, verdict, visit};
use exhibit::operator_box::signing::OperatorKey;
use exhibit_protocol::Digest;
use exhibit_testkit::gen_box::{self, BoxOptions};
use serde_json::Value as J;

const ORIGIN: &str = "example.test/signed";

fn make_key(dir: &Path, file: &str) -> (PathBuf, String) {
    let path = dir.join(file);
    let o = exhibit(
        &["key", "--name", ORIGIN, "--out", path.to_str().unwrap()],
        0,
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let vkey = String::from_utf8(o.stdout).unwrap().trim().to_string();
    (path, vkey)
}

/// A generated box built twice (two snapshot lines) with the operator's key (made outside any
/// git repository): the site, the key's path and its verifier key, and a second key's.
struct Signed {
    _tmp: tempfile::TempDir,
    site: PathBuf,
    key: PathBuf,
    vkey: String,
    other: PathBuf,
    other_vkey: String,
}

fn signed_site() -> Signed {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("box");
    gen_box::generate(
        &BoxOptions {
            lines: 300,
            seed: 17,
            witness: false,
            ..BoxOptions::default()
        },
        &dir,
    )
    .unwrap();
    let (key, vkey) = make_key(tmp.path(), "key");
    let (other, other_vkey) = make_key(tmp.path(), "other-key");
    let toml: String = std::fs::read_to_string(dir.join("exhibit.toml"))
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with("witness"))
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(
        dir.join("exhibit.toml"),
        format!("{toml}\n[checkpoint]\nkey = \"{}\"\n", key.display()),
    )
    .unwrap();
    // The site in a git repository, committed after each build: the second build carries the
    // first's snapshot line from HEAD (docs/anchoring.md#trusting-head).
    let repo = git2::Repository::init(tmp.path().join("exhibit")).unwrap();
    let site = tmp.path().join("exhibit/site");
    let ledger = std::fs::read(dir.join("gate/ledger.jsonl")).unwrap();
    let cut: usize = ledger
        .split_inclusive(|&b| b == b'\n')
        .take(201)
        .map(<[u8]>::len)
        .sum();
    let config = dir.join("exhibit.toml").display().to_string();
    let out = site.display().to_string();
    for bytes in [&ledger[..cut], &ledger[..]] {
        std::fs::write(dir.join("gate/ledger.jsonl"), bytes).unwrap();
        let o = exhibit(
            &["build", "--config", &config, "--out", &out],
            1_800_000_000,
        );
        assert_eq!(o.status.code(), Some(0), "{}", text(&o));
        commit_site(&repo);
    }
    assert_eq!(snapshot_lines(&site).len(), 2, "two signed publications");
    Signed {
        _tmp: tmp,
        site,
        key,
        vkey,
        other,
        other_vkey,
    }
}

/// The page's copy of a file (its data block `id`), when the page carries one: a light page that
/// reads its records from the site carries none.
fn set_block(site: &Path, id: &str, bytes: &[u8]) {
    let html = std::fs::read_to_string(site.join("index.html")).unwrap();
    if [
        format!("id={id} "),
        format!("id={id}>"),
        format!("id=\"{id}\""),
    ]
    .iter()
    .any(|n| html.contains(n.as_str()))
    {
        crate::site_agreement::set_block(site, id, bytes);
    }
}

fn read(site: &Path, rel: &str) -> Vec<u8> {
    std::fs::read(site.join(rel)).unwrap()
}

/// The site's SNAPSHOTS.jsonl rewritten, in the file and the page's copy alike.
fn put_snapshots(site: &Path, lines: &[Vec<u8>]) {
    let mut bytes = lines.join(&b'\n');
    bytes.push(b'\n');
    std::fs::write(site.join("ledger/SNAPSHOTS.jsonl"), &bytes).unwrap();
    set_block(site, "snapshots-jsonl", &bytes);
}

fn snapshot_lines(site: &Path) -> Vec<Vec<u8>> {
    read(site, "ledger/SNAPSHOTS.jsonl")
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(<[u8]>::to_vec)
        .collect()
}

/// The last snapshot line made to record the site's files as they now are, with `key` as its
/// `key`, and signed by it (as a rebuild by that key's holder would).
fn resign_last(site: &Path, key: &Path) {
    let key = OperatorKey::read(key).unwrap();
    let files = exhibit::site_write::out_dir::read_tree(site, None)
        .unwrap()
        .into_bytes()
        .unwrap();
    let digests = exhibit::previous::head_check::snapshot_digests(
        files
            .iter()
            .map(|(p, b)| (p.as_str(), Digest::of(b).to_string())),
    );
    let mut lines = snapshot_lines(site);
    let mut last: J = serde_json::from_slice(lines.last().unwrap()).unwrap();
    let o = last.as_object_mut().unwrap();
    o.remove("signature");
    o.insert("digests".into(), J::Object(digests));
    o.insert("key".into(), J::String(key.vkey.clone()));
    let unsigned = serde_json::to_vec(&last).unwrap();
    *lines.last_mut().unwrap() = key.sign_snapshot_line(&unsigned).unwrap();
    put_snapshots(site, &lines);
}

/// ledger/tree/checkpoint, in the file and the page's copy alike.
fn put_checkpoint(site: &Path, bytes: &[u8]) {
    std::fs::write(site.join("ledger/tree/checkpoint"), bytes).unwrap();
    set_block(site, "tree-checkpoint", bytes);
}

/// STATS.json's tree.key, in the file and the page's copy alike.
fn stats_key(site: &Path, vkey: &str) {
    let mut stats: J = serde_json::from_slice(&read(site, "ledger/STATS.json")).unwrap();
    stats["tree"]["key"] = J::String(vkey.into());
    let bytes = serde_json::to_vec_pretty(&stats).unwrap();
    std::fs::write(site.join("ledger/STATS.json"), &bytes).unwrap();
    set_block(site, "stats-json", &bytes);
}

/// `(file, code)` pairs of `exhibit verify --json SITE`'s problems.
type FileCodes = Vec<(String, String)>;

/// The signature problems `exhibit verify --json SITE` names, and its exit code and words.
fn cli_says(site: &Path) -> (i32, FileCodes, FileCodes, String) {
    let (rc, v) = verify_json(site);
    let all = file_problems(&v);
    let sig = all
        .iter()
        .filter(|(_, c)| c.ends_with("_signature"))
        .cloned()
        .collect();
    let o = exhibit(&["verify", site.to_str().unwrap()], 0);
    (rc.unwrap_or(-1), sig, all, text(&o))
}

/// The signature problems in the page's list of failures (`the file F (CODE): …`).
fn page_problems(dom: &str) -> Vec<(String, String)> {
    let Some(at) = dom.find("id=\"failures\"") else {
        return vec![];
    };
    let list = &dom[at..at + dom[at..].find("</ul>").unwrap()];
    let mut out: Vec<(String, String)> = list
        .split("he file ") // "The file …", first letter up
        .skip(1)
        .filter_map(|s| {
            let (file, rest) = s.split_once(" (")?;
            let (code, _) = rest.split_once(')')?;
            code.ends_with("_signature")
                .then(|| (file.to_string(), code.to_string()))
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

/// The page's paragraph on the signatures (`#signatures`), as HTML.
fn signatures_shown(dom: &str) -> &str {
    let at = dom
        .find("id=\"signatures\"")
        .expect("a #signatures paragraph");
    let start = dom[..at].rfind('<').unwrap();
    &dom[start..at + dom[at..].find("</p>").unwrap()]
}

type Case = (
    &'static str,
    fn(&Signed, &Path),
    &'static [(&'static str, &'static str)],
);

#[test]
fn both_verifiers_check_the_operators_signatures_alike() {
    let s = signed_site();
    let cases: [Case; 6] = [
        ("untampered", |_, _| {}, &[]),
        (
            "a byte of the checkpoint's signature flipped",
            |s, c| {
                let text = String::from_utf8(read(c, "ledger/tree/checkpoint")).unwrap();
                let (body, sig) = text.split_once("\n\n").unwrap();
                let (name, b64) = sig.trim_end().rsplit_once(' ').unwrap();
                let mut blob = unb64(b64);
                blob[20] ^= 1;
                let t = format!(
                    "{body}\n\n{name} {}\n",
                    exhibit::published::encode::base64(&blob)
                );
                put_checkpoint(c, t.as_bytes());
                resign_last(c, &s.key);
            },
            &[("ledger/tree/checkpoint", "checkpoint_signature")],
        ),
        (
            "the first snapshot line altered after it was signed",
            |_, c| {
                let mut lines = snapshot_lines(c);
                let t = String::from_utf8(lines[0].clone()).unwrap();
                let at = t.find("\"STATS.json\":\"").unwrap() + 14;
                let flipped = if &t[at..=at] == "0" { "1" } else { "0" };
                lines[0] = format!("{}{flipped}{}", &t[..at], &t[at + 1..]).into_bytes();
                put_snapshots(c, &lines);
            },
            &[("ledger/SNAPSHOTS.jsonl", "snapshot_signature")],
        ),
        (
            "the last snapshot line's signature emptied",
            |_, c| {
                let mut lines = snapshot_lines(c);
                let t = String::from_utf8(lines[1].clone()).unwrap();
                let end = t[14..].find('"').unwrap() + 14;
                lines[1] = format!("{{\"signature\":\"{}", &t[end..]).into_bytes();
                put_snapshots(c, &lines);
            },
            &[("ledger/SNAPSHOTS.jsonl", "snapshot_signature")],
        ),
        (
            "STATS.json names another key",
            |s, c| {
                stats_key(c, &s.other_vkey);
                resign_last(c, &s.key);
            },
            &[
                ("ledger/STATS.json", "snapshot_signature"),
                ("ledger/tree/checkpoint", "checkpoint_signature"),
            ],
        ),
        (
            "the key changed: the checkpoint and the last line signed by another key, STATS.json naming it",
            |s, c| {
                let text = read(c, "ledger/tree/checkpoint");
                let at = text.windows(2).position(|w| w == b"\n\n").unwrap();
                let note = OperatorKey::read(&s.other)
                    .unwrap()
                    .sign_note(&text[..=at])
                    .unwrap();
                put_checkpoint(c, &note);
                stats_key(c, &s.other_vkey);
                resign_last(c, &s.other);
            },
            &[],
        ),
    ];
    for (name, mutate, want) in cases {
        let tmp = tempfile::tempdir().unwrap();
        let copy = tmp.path().join("site");
        copy_tree(&s.site, &copy);
        mutate(&s, &copy);
        let (rc, sig, all, words) = cli_says(&copy);
        let mut want: Vec<(String, String)> = want
            .iter()
            .map(|(f, c)| (f.to_string(), c.to_string()))
            .collect();
        want.sort();
        let mut sig_sorted = sig.clone();
        sig_sorted.sort();
        sig_sorted.dedup();
        assert_eq!(sig_sorted, want, "{name}: the CLI\n{words}");
        assert_eq!(
            all.len(),
            sig.len(),
            "{name}: only the signatures fail\n{words}"
        );
        let server = Server::start(&copy);
        // axe-core on the page with its signatures shown, holding and failing.
        let axe = crate::page_e2e::axe_core();
        let facts = visit(&server.url(FULL), None, &["--axe", axe.to_str().unwrap()]);
        assert_eq!(facts["axe"], serde_json::json!([]), "{name}: axe-core");
        let page = verdict(&facts);
        let dom = facts["dom"].as_str().unwrap();
        let shown = signatures_shown(dom);
        if want.is_empty() {
            assert_eq!(rc, 0, "{name}: the CLI passes it\n{words}");
            assert_ne!(page.0, "failed", "{name}: the page passes it: {page:?}");
            let key = if name == "untampered" {
                &s.vkey
            } else {
                &s.other_vkey
            };
            assert!(
                words.contains(&format!(
                    "signed by {key}: the checkpoint and 2 snapshot line(s)"
                )),
                "{name}: {words}"
            );
            assert!(
                shown.contains("Signed by")
                    && shown.contains(key.as_str())
                    && shown.contains("data-state=\"signed\""),
                "{name}: {shown}"
            );
            assert!(!dom.to_lowercase().contains("anchored by"), "{name}");
            if name != "untampered" {
                assert!(words.contains("the key changed"), "{name}: {words}");
                assert!(
                    shown.contains("The key changed") && shown.contains(s.vkey.as_str()),
                    "{name}: {shown}"
                );
            }
        } else {
            assert_eq!(rc, 1, "{name}: the CLI fails it\n{words}");
            assert_eq!(page.0, "failed", "{name}: the page says {page:?}");
            let at = dom.find("id=\"failures\"").unwrap_or(0);
            assert_eq!(
                page_problems(dom),
                want,
                "{name}: the page's failures {}",
                &dom[at..(at + 3000).min(dom.len())]
            );
            assert!(shown.contains("data-state=\"fails\""), "{name}: {shown}");
        }
    }
}

/// A snapshot line whose signature member is removed is an unsigned line: `exhibit verify SITE`
/// checks the lines that are signed (an unsigned last line after signed ones is refused by the
/// next build, docs/anchoring.md#trusting-head, not by verify), and the page answers alike: both
/// pass, counting one signed line where there were two.
#[test]
fn a_removed_snapshot_signature_is_an_unsigned_line_to_both() {
    let s = signed_site();
    let tmp = tempfile::tempdir().unwrap();
    let copy = tmp.path().join("site");
    copy_tree(&s.site, &copy);
    let mut lines = snapshot_lines(&copy);
    let t = String::from_utf8(lines[1].clone()).unwrap();
    let end = t[14..].find("\",").unwrap() + 16;
    lines[1] = format!("{{{}", &t[end..]).into_bytes();
    put_snapshots(&copy, &lines);
    let (rc, sig, _, words) = cli_says(&copy);
    assert_eq!((rc, sig.len()), (0, 0), "{words}");
    assert!(
        words.contains(&format!(
            "signed by {}: the checkpoint and 1 snapshot line(s)",
            s.vkey
        )),
        "{words}"
    );
    let server = Server::start(&copy);
    let facts = visit(&server.url(FULL), None, &[]);
    assert_ne!(verdict(&facts).0, "failed");
    let shown = signatures_shown(facts["dom"].as_str().unwrap());
    assert!(shown.contains("1 snapshot line of"), "{shown}");
}

/// A site built without a key: both say it is not signed.
#[test]
fn an_unsigned_site_is_said_not_signed_by_both() {
    let mut b = crate::light_page::Box::new(33_554_432);
    b.add(40);
    b.build(1_800_000_000);
    let (rc, _, _, words) = cli_says(&b.site);
    assert_eq!(rc, 0, "{words}");
    assert!(words.contains("not signed"), "{words}");
    let facts = visit(b.site.join("index.html").to_str().unwrap(), None, &[]);
    let shown = signatures_shown(facts["dom"].as_str().unwrap());
    assert!(
        shown.contains("data-state=\"unsigned\"") && shown.contains("not signed"),
        "{shown}"
    );
}
