//! Two implementations, one answer, over a whole site: `exhibit verify SITE` and the light page
//! in headless Chromium (served over http by the test's own server on 127.0.0.1) are given the
//! same tampered segmented exhibit, one named mutation at a time, and must agree — both fail,
//! or both re-derive with the same head (docs/verifier.md#the-page-against-the-site). Each case
//! is a disagreement the two had before they were held to it, found by tampering a built site
//! by hand: the page took its list of files' facts, the numbering of the segments, STATS.json
//! and a missing file on trust where the CLI did not, and the CLI took the page's list on trust.

use std::path::{Path, PathBuf};

use crate::common::*;
use crate::light_page::{Box, FULL, Server, block, verdict, visit};
use serde_json::Value as J;

fn seg(n: u32) -> String {
    format!("ledger/segments/{n:06}.jsonl")
}

/// Replaces the base64 text of the page's data block `id`.
pub(crate) fn set_block(site: &Path, id: &str, bytes: &[u8]) {
    let path = site.join("index.html");
    let html = std::fs::read_to_string(&path).unwrap();
    let old = block(&html, id);
    let at = html.find(old).unwrap();
    let new = format!(
        "{}{}{}",
        &html[..at],
        exhibit::published::encode::base64(bytes),
        &html[at + old.len()..]
    );
    std::fs::write(path, new).unwrap();
}

pub(crate) fn page_json(site: &Path, id: &str) -> J {
    let html = std::fs::read_to_string(site.join("index.html")).unwrap();
    serde_json::from_slice(&unb64(block(&html, id))).unwrap()
}

/// What a file's bytes say of it, as STATS.json lists it (the build's own rule).
fn facts_of(site: &Path, path: &str, old: &J) -> J {
    let bytes = std::fs::read(site.join(path)).unwrap();
    let lines: Vec<&[u8]> = bytes.split(|b| *b == b'\n').collect();
    let lines = &lines[..lines.len() - usize::from(bytes.ends_with(b"\n"))];
    let parse = |l: &[u8]| serde_json::from_slice::<J>(l).unwrap_or(J::Null);
    // The header is the ledger's line 1, not an entry.
    let entries = if path == "ledger/ledger.jsonl" {
        &lines[1..]
    } else {
        lines
    };
    let first = entries.first().map(|l| parse(l)).unwrap_or(J::Null);
    let last = lines.last().map(|l| parse(l)).unwrap_or(J::Null);
    let mut f = old.clone();
    f["path"] = J::from(path);
    f["bytes"] = J::from(bytes.len());
    f["sha256"] = J::from(exhibit_protocol::Digest::of(&bytes).to_string());
    f["lines"] = J::from(lines.len());
    f["first_seq"] = first["seq"].clone();
    f["last_seq"] = last["seq"].clone();
    f["head"] = last["entry_id"].clone();
    f
}

/// Rewrites the list of the ledger's files — STATS.json, the page's copy of it and its
/// `layout-json` — from the files on disk (`paths`, in order), as a tamperer covering their
/// tracks would.
fn relist(site: &Path, paths: &[String], edit: impl Fn(&mut Vec<J>)) {
    let stats_path = site.join("ledger/STATS.json");
    let stats: J = serde_json::from_slice(&std::fs::read(&stats_path).unwrap()).unwrap();
    let old = stats["ledger"]["files"].as_array().unwrap().clone();
    let mut files: Vec<J> = paths
        .iter()
        .map(|p| {
            let was = old.iter().find(|f| f["path"] == p.as_str()).cloned();
            facts_of(site, p, &was.unwrap_or_else(|| serde_json::json!({})))
        })
        .collect();
    edit(&mut files);
    put_list(site, stats, |v| &mut v["ledger"]["files"], "files", files);
}

/// `files` as the list STATS.json holds at `at` and the page's `layout-json` at `key`: written to
/// STATS.json, the page's copy of it and the page's list.
fn put_list(site: &Path, mut stats: J, at: fn(&mut J) -> &mut J, key: &str, files: Vec<J>) {
    *at(&mut stats) = J::Array(files.clone());
    let text = serde_json::to_vec_pretty(&stats).unwrap();
    std::fs::write(site.join("ledger/STATS.json"), &text).unwrap();
    set_block(site, "stats-json", &text);
    let mut layout = page_json(site, "layout-json");
    layout[key] = J::Array(files);
    set_block(site, "layout-json", &serde_json::to_vec(&layout).unwrap());
}

fn listed(site: &Path) -> Vec<String> {
    paths_in(site, "files")
}

/// The paths of the page's list `key` (`files` or `withheld_files`), in order.
fn paths_in(site: &Path, key: &str) -> Vec<String> {
    page_json(site, "layout-json")[key]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap().to_string())
        .collect()
}

fn write(site: &Path, path: &str, bytes: &[u8]) {
    std::fs::write(site.join(path), bytes).unwrap();
}

fn read(site: &Path, path: &str) -> Vec<u8> {
    std::fs::read(site.join(path)).unwrap()
}

type Mutation = fn(&Path);

/// The named mutations; each leaves a site both verifiers must judge alike.
const MUTATIONS: [(&str, Mutation); 33] = [
    // Every byte of the ledger as published, but one line moved to the end of the file before:
    // the published ledger is the files' concatenation, but STATS.json and segments/ are not the
    // ones the last snapshot records (docs/verifier.md#the-snapshots-digests).
    ("a line moved across a cut, lists redone", |s| {
        let (a, b) = (read(s, &seg(2)), read(s, &seg(3)));
        let cut = b.iter().position(|c| *c == b'\n').unwrap() + 1;
        write(s, &seg(2), &[&a[..], &b[..cut]].concat());
        write(s, &seg(3), &b[cut..]);
        relist(s, &listed(s), |_| {});
    }),
    (
        "a listed file's last seq and head false in every list",
        |s| {
            relist(s, &listed(s), |f| {
                f[2]["last_seq"] = J::from(999);
                f[2]["head"] = J::from("ab".repeat(32));
            });
        },
    ),
    ("a blank line opening a segment, lists redone", |s| {
        write(s, &seg(2), &[&b"\n"[..], &read(s, &seg(2))].concat());
        relist(s, &listed(s), |_| {});
    }),
    (
        "two segments joined and the next number left out, lists redone",
        |s| {
            let mut paths = listed(s);
            write(s, &seg(2), &[read(s, &seg(2)), read(s, &seg(3))].concat());
            std::fs::remove_file(s.join(seg(3))).unwrap();
            paths.retain(|p| *p != seg(3));
            relist(s, &paths, |_| {});
        },
    ),
    ("a listed segment deleted (the server answers 404)", |s| {
        std::fs::remove_file(s.join(seg(2))).unwrap();
    }),
    ("STATS.json's list changed, the page not", |s| {
        let p = s.join("ledger/STATS.json");
        let mut stats: J = serde_json::from_slice(&std::fs::read(&p).unwrap()).unwrap();
        stats["ledger"]["files"][1]["sha256"] = J::from("0".repeat(64));
        std::fs::write(p, serde_json::to_vec_pretty(&stats).unwrap()).unwrap();
    }),
    ("the page's list changed, STATS.json not", |s| {
        let mut layout = page_json(s, "layout-json");
        layout["files"][1]["sha256"] = J::from("0".repeat(64));
        set_block(s, "layout-json", &serde_json::to_vec(&layout).unwrap());
    }),
    ("the page's list and its copy of STATS.json disagree", |s| {
        let mut stats = page_json(s, "stats-json");
        stats["ledger"]["files"][1]["lines"] = J::from(1);
        set_block(s, "stats-json", &serde_json::to_vec(&stats).unwrap());
    }),
    ("one byte of a full segment changed, lists redone", |s| {
        let mut b = read(s, &seg(2));
        let at = b.windows(6).position(|w| w == b"\"seq\":").unwrap_or(4) + 6;
        b[at] ^= 1;
        write(s, &seg(2), &b);
        relist(s, &listed(s), |_| {});
    }),
    // The first screen's certifies sentence comes from it; the page took it on trust.
    ("the page's copy of the header line changed", |s| {
        let html = std::fs::read_to_string(s.join("index.html")).unwrap();
        let header = String::from_utf8(unb64(block(&html, "ledger-header"))).unwrap();
        assert!(header.contains("\"schema\""), "{header}");
        set_block(
            s,
            "ledger-header",
            header.replacen("\"schema\"", "\"Schema\"", 1).as_bytes(),
        );
    }),
    // The files the page carries copies of: the page read only its copies.
    ("SNAPSHOTS.jsonl changed, the page not", |s| {
        let mut b = read(s, "ledger/SNAPSHOTS.jsonl");
        b.extend_from_slice(b"{}\n");
        write(s, "ledger/SNAPSHOTS.jsonl", &b);
    }),
    (
        "the page's copy of SNAPSHOTS.jsonl changed, the file not",
        |s| {
            let html = std::fs::read_to_string(s.join("index.html")).unwrap();
            let text = String::from_utf8(unb64(block(&html, "snapshots-jsonl"))).unwrap();
            set_block(
                s,
                "snapshots-jsonl",
                text.replacen("\"extends\"", "\"Extends\"", 1).as_bytes(),
            );
        },
    ),
    ("withheld.json changed (no entry), the page not", |s| {
        let b = read(s, "ledger/withheld.json");
        write(s, "ledger/withheld.json", &[&b[..], b" "].concat());
    }),
    ("anchors/index.json changed, the page not", |s| {
        let b = read(s, "ledger/anchors/index.json");
        write(s, "ledger/anchors/index.json", &[&b[..], b" "].concat());
    }),
    (
        "the page's copy of anchors/index.json changed, the file not",
        |s| {
            let mut index = page_json(s, "anchors-json");
            index["note"] = J::from("changed");
            set_block(s, "anchors-json", &serde_json::to_vec(&index).unwrap());
        },
    ),
    // The page holds STATS.json's figures to its own counts; the CLI held only its list of files.
    (
        "a figure of STATS.json false, in the file and in the page's copy",
        |s| {
            stats_everywhere(s, |st| {
                let n = st["coverage"]["pinned"]["count"].as_u64().unwrap();
                st["coverage"]["pinned"]["count"] = J::from(n + 1);
            })
        },
    ),
    (
        "STATS.json's head false, in the file and in the page's copy",
        |s| stats_everywhere(s, |st| st["ledger"]["head"] = J::from("ab".repeat(32))),
    ),
    // The page derives days from the tz rules it carries, and from nothing else
    // (docs/scale.md#the-pages-tz-rules): the CLI took them on trust.
    ("the page's tz rules for another zone", |s| {
        tz_rules(s, |r| r["zone"] = J::from("Europe/Paris"))
    }),
    ("the page's tz rules half a day off", |s| {
        tz_rules(s, |r| {
            for pair in r["offsets"].as_array_mut().unwrap() {
                pair[1] = J::from(pair[1].as_i64().unwrap() + 43_200);
            }
        })
    }),
    ("the page's tz rules ending before the last line", |s| {
        tz_rules(s, |r| {
            r["until"] = J::from(r["from"].as_i64().unwrap() + 60)
        })
    }),
    (
        "the page's tz rules malformed (an offset not after the one before)",
        |s| {
            tz_rules(s, |r| {
                let first = r["offsets"][0].clone();
                r["offsets"].as_array_mut().unwrap().push(first);
            })
        },
    ),
    // Read by neither: the rules' days are the same.
    ("the page's tz rules renamed to another tz database", |s| {
        tz_rules(s, |r| r["tzdb"] = J::from("1999z"))
    }),
    // Every page carries its days' rules; without them the browser's data decided the days,
    // and both verifiers passed (issue 48, class 17).
    ("the page's tz rules removed", |s| {
        remove_block(s, "tz-rules-json")
    }),
    (
        "the page's tz rules not UTF-8 (found by random tampering: read as null)",
        |s| set_block(s, "tz-rules-json", b"{\"from\"\xba1}"),
    ),
    // A STATS.json neither reader can read compared no figure, and both passed it (issue 48,
    // class 14): the file and the page's copy alike, the snapshot's digests redone.
    ("STATS.json behind a byte order mark, everywhere", |s| {
        unreadable_stats(s, |b| [&b"\xef\xbb\xbf"[..], b].concat())
    }),
    (
        "STATS.json with a byte that is not UTF-8, everywhere",
        |s| unreadable_stats(s, |b| [b, &b"\xff"[..]].concat()),
    ),
    ("STATS.json with trailing bytes, everywhere", |s| {
        unreadable_stats(s, |b| [b, &b"{}"[..]].concat())
    }),
    ("STATS.json as null, everywhere", |s| {
        unreadable_stats(s, |_| b"null\n".to_vec())
    }),
    // Files the chain does not re-derive, held to the last snapshot's digests by both; the page
    // fetches those it did not read.
    // (A box whose operator made no reading has none: then it is added.)
    ("ledger/readings.json edited, or added", |s| {
        let b = std::fs::read(s.join("ledger/readings.json")).unwrap_or_default();
        write(s, "ledger/readings.json", &[&b[..], b"[]\n"].concat());
    }),
    ("ledger/.gitattributes edited", |s| {
        let b = read(s, "ledger/.gitattributes");
        write(s, "ledger/.gitattributes", &[&b[..], b"# x\n"].concat());
    }),
    (
        "a file added beside STATS.json and named in the last snapshot",
        |s| {
            let bytes = b"a note\n";
            write(s, "ledger/NOTE.txt", bytes);
            last_snapshot(s, |d| {
                d.insert(
                    "NOTE.txt".into(),
                    J::from(exhibit_protocol::Digest::of(bytes).to_string()),
                );
            });
        },
    ),
    ("the last snapshot's digest of STATS.json changed", |s| {
        last_snapshot(s, |d| {
            d.insert("STATS.json".into(), J::from("0".repeat(64)));
        })
    }),
    ("the last snapshot's digests left out", |s| {
        last_snapshot(s, |d| d.clear())
    }),
];

/// STATS.json and the page's copy made `edit(bytes)`, and the last snapshot's digests redone in
/// the file and the page's copy, so that only the reading of STATS.json can fail the site.
fn unreadable_stats(site: &Path, edit: fn(&[u8]) -> Vec<u8>) {
    let p = site.join("ledger/STATS.json");
    let bytes = edit(&std::fs::read(&p).unwrap());
    std::fs::write(&p, &bytes).unwrap();
    set_block(site, "stats-json", &bytes);
    reseal_snapshot(site);
    let snapshots = std::fs::read(site.join("ledger/SNAPSHOTS.jsonl")).unwrap();
    set_block(site, "snapshots-jsonl", &snapshots);
}

/// The last line of SNAPSHOTS.jsonl made to record the site's files as they now are, in the
/// file and the page's copy alike, as a rebuild would (`head_check::snapshot_digests`).
pub(crate) fn snapshot_the_files(site: &Path) {
    let mut files: Vec<(String, String)> = walkdir::WalkDir::new(site.join("ledger"))
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            let rel = e.path().strip_prefix(site).unwrap().display().to_string();
            let sha = exhibit_protocol::Digest::of(&std::fs::read(e.path()).unwrap());
            (rel, sha.to_string())
        })
        .collect();
    files.sort();
    let now = exhibit::previous::head_check::snapshot_digests(
        files.iter().map(|(p, d)| (p.as_str(), d.clone())),
    );
    last_snapshot(site, |d| *d = now.clone());
}

/// Edits the `digests` of the last line of SNAPSHOTS.jsonl, in the file and the page's copy
/// alike; an empty result drops the key.
fn last_snapshot(site: &Path, edit: impl Fn(&mut serde_json::Map<String, J>)) {
    let text = String::from_utf8(read(site, "ledger/SNAPSHOTS.jsonl")).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    let mut last: J = serde_json::from_str(lines.pop().unwrap()).unwrap();
    edit(last["digests"].as_object_mut().unwrap());
    if last["digests"].as_object().unwrap().is_empty() {
        last.as_object_mut().unwrap().remove("digests");
    }
    let line = serde_json::to_string(&last).unwrap();
    lines.push(&line);
    let bytes = format!("{}\n", lines.join("\n"));
    write(site, "ledger/SNAPSHOTS.jsonl", bytes.as_bytes());
    set_block(site, "snapshots-jsonl", bytes.as_bytes());
}

/// Rewrites STATS.json and the page's copy of it alike.
fn stats_everywhere(site: &Path, edit: impl Fn(&mut J)) {
    let p = site.join("ledger/STATS.json");
    let mut stats: J = serde_json::from_slice(&std::fs::read(&p).unwrap()).unwrap();
    edit(&mut stats);
    let bytes = serde_json::to_vec_pretty(&stats).unwrap();
    std::fs::write(p, &bytes).unwrap();
    set_block(site, "stats-json", &bytes);
}

/// Rewrites the page's `tz-rules-json` block.
fn tz_rules(site: &Path, edit: impl Fn(&mut J)) {
    let mut rules = page_json(site, "tz-rules-json");
    edit(&mut rules);
    set_block(site, "tz-rules-json", &serde_json::to_vec(&rules).unwrap());
}

fn wpart(n: u32) -> String {
    format!("ledger/withheld/{n:06}.json")
}

/// A file of the withheld list, as the build writes it (two-space indentation, a final LF).
fn write_entries(site: &Path, path: &str, entries: &[J]) {
    let mut text = serde_json::to_vec_pretty(&entries).unwrap();
    text.push(b'\n');
    write(site, path, &text);
}

fn entries(site: &Path, path: &str) -> Vec<J> {
    serde_json::from_slice(&read(site, path)).unwrap()
}

/// Rewrites the list of the withheld list's files — STATS.json, the page's copy of it and its
/// `layout-json` — from the files on disk, as `relist` does for the ledger's.
fn relist_withheld(site: &Path, paths: &[String], edit: impl Fn(&mut Vec<J>)) {
    let stats_path = site.join("ledger/STATS.json");
    let stats: J = serde_json::from_slice(&std::fs::read(&stats_path).unwrap()).unwrap();
    let mut files: Vec<J> = paths
        .iter()
        .map(|p| {
            let bytes = read(site, p);
            let e = entries(site, p);
            let seqs: Vec<i64> = e.iter().map(|x| x["seq"].as_i64().unwrap()).collect();
            serde_json::json!({
                "bytes": bytes.len(), "entries": e.len(),
                "first_seq": seqs.iter().min(), "last_seq": seqs.iter().max(),
                "path": p, "sha256": exhibit_protocol::Digest::of(&bytes).to_string(),
            })
        })
        .collect();
    edit(&mut files);
    put_list(
        site,
        stats,
        |v| &mut v["withheld_files"],
        "withheld_files",
        files,
    );
}

fn withheld_listed(site: &Path) -> Vec<String> {
    paths_in(site, "withheld_files")
}

/// The withheld list's files tampered with; the first changes no entry.
const WITHHELD_MUTATIONS: [(&str, Mutation); 6] = [
    ("an entry moved to the file before, lists redone", |s| {
        let (mut a, mut b) = (entries(s, &wpart(1)), entries(s, &wpart(2)));
        a.push(b.remove(0));
        write_entries(s, &wpart(1), &a);
        write_entries(s, &wpart(2), &b);
        relist_withheld(s, &withheld_listed(s), |_| {});
    }),
    ("a file's entries and seqs false in every list", |s| {
        relist_withheld(s, &withheld_listed(s), |f| {
            f[1]["entries"] = J::from(99);
            f[1]["last_seq"] = J::from(7);
        });
    }),
    ("a listed file deleted (the server answers 404)", |s| {
        std::fs::remove_file(s.join(wpart(2))).unwrap();
    }),
    ("STATS.json's withheld_files changed, the page not", |s| {
        let p = s.join("ledger/STATS.json");
        let mut stats: J = serde_json::from_slice(&std::fs::read(&p).unwrap()).unwrap();
        stats["withheld_files"][1]["sha256"] = J::from("0".repeat(64));
        std::fs::write(p, serde_json::to_vec_pretty(&stats).unwrap()).unwrap();
    }),
    ("the page's withheld list changed, STATS.json not", |s| {
        let mut layout = page_json(s, "layout-json");
        layout["withheld_files"][1]["entries"] = J::from(1);
        set_block(s, "layout-json", &serde_json::to_vec(&layout).unwrap());
    }),
    ("an entry dropped, lists redone", |s| {
        let mut a = entries(s, &wpart(1));
        a.pop();
        write_entries(s, &wpart(1), &a);
        relist_withheld(s, &withheld_listed(s), |_| {});
    }),
];

/// Each mutation of a copy of `site`: the CLI and the page in Chromium agree, and re-derive
/// exactly where `re_derives(name)`.
fn agree(site: &Path, mutations: &[(&str, Mutation)], re_derives: impl Fn(&str) -> bool) {
    let server = Server::start(site);
    let original = verdict(&visit(&server.url(FULL), None, &[]));
    let (rc, words) = cli(site);
    assert_eq!(rc, 0, "{words}");
    assert_ne!(original.0, "failed", "{original:?}");
    for (name, mutate) in mutations {
        let tmp = tempfile::tempdir().unwrap();
        let copy = tmp.path().join("site");
        copy_tree(site, &copy);
        mutate(&copy);
        let (rc, words) = cli(&copy);
        let server = Server::start(&copy);
        let facts = visit(&server.url(FULL), None, &[]);
        let page = verdict(&facts);
        if rc == 0 {
            assert_eq!(
                page, original,
                "{name}: the CLI re-derives, so must the page\n{words}"
            );
        } else {
            assert_eq!(rc, 1, "{name}: {words}");
            assert_eq!(
                page.0, "failed",
                "{name}: the CLI fails the site, the page says {page:?}\n{words}"
            );
            // (A failed page names the chain's head only where the chain itself re-derives: a
            // mutation of the chain or its files leaves none.)
            if !name.contains("STATS.json") && !name.contains("tz rules") {
                assert_eq!(page.2, "", "{name}: no head on a failed page");
            }
        }
        assert_eq!(rc == 0, re_derives(name), "{name}: {words}");
    }
}

#[test]
fn the_cli_and_the_light_page_agree_on_every_tampered_withheld_list() {
    let mut s = crate::withheld_files::scene(Some(crate::withheld_files::WITHHELD_BYTES));
    s.add(90);
    s.post_days();
    s.build(1_800_000_000);
    assert!(
        withheld_listed(&s.site).len() >= 3,
        "{:?}",
        withheld_listed(&s.site)
    );
    // An entry moved to the file before changes no entry, but STATS.json and withheld/ are not
    // the ones the last snapshot records: both fail it.
    agree(&s.site, &WITHHELD_MUTATIONS, |_| false);
}

fn cli(site: &Path) -> (i32, String) {
    let o = exhibit(&["verify", site.to_str().unwrap()], 0);
    (o.status.code().unwrap_or(-1), text(&o))
}

#[test]
fn the_cli_and_the_light_page_agree_on_every_tampered_site() {
    let mut b = Box::new(4096);
    b.add(60);
    b.build(1_800_000_000);
    assert!(listed(&b.site).len() >= 5, "{:?}", listed(&b.site));
    // A line moved across a cut, or a blank line (no line to either verifier), leaves the
    // published ledger's bytes as they were, but its files are not those the last snapshot
    // records: both fail them. A file added and named in the last snapshot is one it records.
    agree(&b.site, &MUTATIONS, |name| {
        name.ends_with("another tz database") || name.ends_with("named in the last snapshot")
    });
}

/// A file directly under `ledger/` that the last snapshot does not name: `exhibit verify SITE`
/// fails the site naming it; the light page over http cannot list a folder, so it stays green
/// and its verdict's detail says it did not look (docs/page.md "The snapshot's digests"); from
/// the picked folder, which it can list, it fails naming it as the CLI does. The one difference
/// by design between the two, with the folders whose files it does not read.
#[test]
fn a_file_the_snapshot_does_not_name_is_seen_where_the_folder_can_be_listed() {
    let mut b = Box::new(4096);
    b.add(60);
    b.build(1_800_000_000);
    let server = Server::start(&b.site);
    let facts = visit(&server.url(FULL), None, &[]);
    let original = verdict(&facts);
    assert_ne!(original.0, "failed", "{original:?}");
    let said = crate::light_page::text_of(facts["dom"].as_str().unwrap(), "snapshot-check");
    for words in [
        "held here, and they match",
        "Not checked here: ledger/anchors/",
        "cannot list a folder over http",
    ] {
        assert!(said.contains(words), "{said}");
    }
    assert!(
        said.contains("STATS.json")
            && said.contains(".gitattributes")
            && said.contains("segments/"),
        "{said}"
    );

    write(&b.site, "ledger/NOTE.txt", b"a note\n");
    let (rc, words) = cli(&b.site);
    assert!(
        rc == 1 && words.contains("ledger/NOTE.txt") && words.contains("snapshot_digest_mismatch"),
        "{words}"
    );
    assert_eq!(verdict(&visit(&server.url(FULL), None, &[])), original);
    let ledger = b.site.join("ledger");
    let f = visit(
        b.site.join("index.html").to_str().unwrap(),
        None,
        &["--pick", ledger.to_str().unwrap()],
    );
    assert_eq!(verdict(&f).0, "failed");
    assert!(
        f["dom"].as_str().unwrap().contains(
            "The picked folder's ledger/NOTE.txt (snapshot_digest_mismatch): its sha256 is"
        ),
        "{}",
        f["dom"]
    );
    // Without it, the picked folder re-derives as the site does.
    std::fs::remove_file(ledger.join("NOTE.txt")).unwrap();
    let f = visit(
        b.site.join("index.html").to_str().unwrap(),
        None,
        &["--pick", ledger.to_str().unwrap()],
    );
    assert_eq!(verdict(&f), original);
}

/// The page's copies held to the site's files by `exhibit verify SITE` (an embedded page: the
/// demo exhibit, built here): each edit of a copy, or of the file beside it, is named as the
/// page's problem; a decoy block the browser would not read does not fool it, one it would read
/// does.
#[test]
fn verify_site_holds_the_pages_copies_to_the_files() {
    let tmp = tempfile::tempdir().unwrap();
    let site = tmp.path().join("site");
    let config = Path::new(env!("CARGO_MANIFEST_DIR")).join("site-fixtures/demo/exhibit.toml");
    let o = exhibit(
        &[
            "build",
            "--config",
            config.to_str().unwrap(),
            "--out",
            site.to_str().unwrap(),
            "--public-texts",
        ],
        1_800_000_000,
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let (rc, words) = cli(&site);
    assert_eq!(rc, 0, "{words}");
    let html = std::fs::read_to_string(site.join("index.html")).unwrap();
    type Edit<'a> = (&'a str, std::boxed::Box<dyn Fn(&Path)>, &'a str);
    let day = page_json(&site, "anchor-posts-json")
        .as_object()
        .unwrap()
        .keys()
        .next()
        .unwrap()
        .clone();
    let cases: Vec<Edit> = vec![
        (
            "a post left out of the page",
            std::boxed::Box::new(|s: &Path| {
                let mut posts = page_json(s, "anchor-posts-json");
                let d = posts.as_object().unwrap().keys().next().unwrap().clone();
                posts.as_object_mut().unwrap().remove(&d);
                set_block(s, "anchor-posts-json", &serde_json::to_vec(&posts).unwrap());
            }),
            "carries no post for",
        ),
        (
            "a byte of the embedded ledger",
            std::boxed::Box::new(|s: &Path| {
                let html = std::fs::read_to_string(s.join("index.html")).unwrap();
                let mut ledger = unb64(block(&html, "ledger-bytes"));
                let at = ledger.len() / 2;
                ledger[at] ^= 1;
                set_block(s, "ledger-bytes", &ledger);
            }),
            "ledger-bytes is not the published ledger",
        ),
        (
            "the withheld list left out of the page",
            std::boxed::Box::new(|s: &Path| set_block(s, "withheld-json", b"")),
            "withheld-json is not ledger/withheld.json",
        ),
        (
            "SNAPSHOTS.jsonl beside the page",
            std::boxed::Box::new(|s: &Path| {
                let mut b = read(s, "ledger/SNAPSHOTS.jsonl");
                b.extend_from_slice(b"{}\n");
                write(s, "ledger/SNAPSHOTS.jsonl", &b);
            }),
            "snapshots-jsonl is not ledger/SNAPSHOTS.jsonl",
        ),
        (
            "an anchor's proof file beside the page",
            std::boxed::Box::new(move |s: &Path| {
                let p = format!("ledger/anchors/{day}.txt.ots");
                let mut b = read(s, &p);
                b[40] ^= 1;
                write(s, &p, &b);
            }),
            "the proof header it carries for ledger/anchors/",
        ),
        (
            "the page's copy of WITNESS_PREREG.md (which it hashes against its proof's name)",
            std::boxed::Box::new(|s: &Path| {
                let mut witness = page_json(s, "witness-json");
                let text = witness["prereg_md"].as_str().unwrap().replacen('e', "E", 1);
                witness["prereg_md"] = J::from(text);
                set_block(s, "witness-json", &serde_json::to_vec(&witness).unwrap());
            }),
            "carries a WITNESS_PREREG.md",
        ),
        (
            "a second stats-json before the page's own, which a browser would read",
            std::boxed::Box::new(|s: &Path| {
                let p = s.join("index.html");
                let html = std::fs::read_to_string(&p).unwrap();
                let decoy = "<script id=stats-json type=application/octet-stream>e30=</script>";
                std::fs::write(
                    &p,
                    html.replacen("<script ", &format!("{decoy}<script "), 1),
                )
                .unwrap();
            }),
            "stats-json is not ledger/STATS.json",
        ),
        (
            "a released text the page carries replaced by another filed under its own digest (the page re-hashes it and stays green)",
            std::boxed::Box::new(|s: &Path| {
                page_texts(s, |texts| {
                    let name = texts.keys().next().unwrap().clone();
                    texts.remove(&name);
                    let other = b"Nothing was sent with these words.";
                    texts.insert(
                        exhibit_protocol::Digest::of(other).to_string(),
                        J::from(exhibit::published::encode::base64(other)),
                    );
                })
            }),
            "the texts that differ (2): ",
        ),
        (
            "the page's copy of the released texts' index",
            std::boxed::Box::new(|s: &Path| {
                let mut v = page_json(s, "public-texts-json");
                v["index"]["counts"] = serde_json::json!({});
                set_block(s, "public-texts-json", &serde_json::to_vec(&v).unwrap());
            }),
            "public-texts-json does not carry ledger/public_texts/index.json as its index",
        ),
    ];
    // A decoy the browser does not read (in a comment) changes nothing.
    let copy = tmp.path().join("decoy");
    copy_tree(&site, &copy);
    let decoy = "<!-- <script id=stats-json type=application/octet-stream>e30=</script> -->";
    std::fs::write(
        copy.join("index.html"),
        html.replacen("<script ", &format!("{decoy}<script "), 1),
    )
    .unwrap();
    let (rc, words) = cli(&copy);
    assert_eq!(rc, 0, "{words}");

    // Edits both must fail, the page in Chromium too (from file://: an embedded page reads no
    // file beside it).
    let both: Vec<Edit> = vec![
        (
            "a layout block of neither page (the page took itself for an embedded one, green)",
            std::boxed::Box::new(|s: &Path| set_block(s, "layout-json", br#"{"mode":"embeddex"}"#)),
            "index.html: page_layout_mismatch",
        ),
        (
            "the released texts' count false in STATS.json and the page's copy alike (the page counts the texts it carries)",
            std::boxed::Box::new(|s: &Path| {
                stats_everywhere(s, |st| {
                    let n = st["public_texts"]["texts"]["published"].as_u64().unwrap();
                    st["public_texts"]["texts"]["published"] = J::from(n + 1);
                })
            }),
            "stats_figure_mismatch: the released texts' count",
        ),
        (
            "a released text the page carries made bytes that are not UTF-8 (the page was stuck on 'Checking…'; the CLI compared no text of the page)",
            std::boxed::Box::new(|s: &Path| {
                page_texts(s, |texts| {
                    let name = texts.keys().next().unwrap().clone();
                    texts[&name] = J::from(exhibit::published::encode::base64(b"\xff\xfe"));
                })
            }),
            " (other bytes)",
        ),
        (
            "a released text no published send line carries, filed under its own digest in the folder, the page and the count alike (both were green)",
            std::boxed::Box::new(|s: &Path| {
                let words = b"Nothing was sent with these words.";
                let name = exhibit_protocol::Digest::of(words).to_string();
                write(s, &format!("ledger/public_texts/{name}.txt"), words);
                page_texts(s, |texts| {
                    texts.insert(
                        name.clone(),
                        J::from(exhibit::published::encode::base64(words)),
                    );
                });
                stats_everywhere(s, |st| {
                    let n = st["public_texts"]["texts"]["published"].as_u64().unwrap();
                    st["public_texts"]["texts"]["published"] = J::from(n + 1);
                });
            }),
            ".txt: text_without_line: no published send line carries this sent_sha256",
        ),
    ];
    // The first, the CLI alone fails, by the page's copy; the second, both.
    let edits = cases
        .into_iter()
        .map(|e| (e, false))
        .chain(both.into_iter().map(|e| (e, true)));
    for ((name, edit, said), page_fails) in edits {
        let copy = tmp.path().join("copy");
        let _ = std::fs::remove_dir_all(&copy);
        copy_tree(&site, &copy);
        edit(&copy);
        let (rc, words) = cli(&copy);
        assert!(rc == 1 && words.contains(said), "{name}: {words}");
        if page_fails {
            let seen = visit(copy.join("index.html").to_str().unwrap(), None, &[]);
            let page = verdict(&seen);
            assert_eq!(page.0, "failed", "{name}: {page:?}");
            // Every link of the verdict to a released text lands on an item of the texts' list,
            // one the publisher's index does not list included.
            let dom = seen["dom"].as_str().unwrap();
            for target in dom.split("href=\"#text-").skip(1) {
                let id = &target[..target.find('"').unwrap()];
                assert!(
                    dom.contains(&format!("id=\"text-{id}\"")),
                    "{name}: #text-{id}"
                );
            }
        } else {
            assert!(
                words.contains("index.html: page_copy_mismatch"),
                "{name}: {words}"
            );
        }
    }
}

/// Edits the released texts an embedded page carries, by name.
fn page_texts(site: &Path, edit: impl Fn(&mut serde_json::Map<String, J>)) {
    let mut v = page_json(site, "public-texts-json");
    edit(v["texts"].as_object_mut().unwrap());
    set_block(site, "public-texts-json", &serde_json::to_vec(&v).unwrap());
}

/// Random tamperings of built exhibits (a fixed seed; `TAMPER_CASES`, default 16 a site, changes
/// the count): one byte of a file or of one of the page's data blocks changed, a file cut short,
/// or a file removed. Two sites: a segmented exhibit, and a generated box with every layer — the
/// ledger in segments, the withheld list in files, the witness layer with its parts, the
/// released texts. Found by running this by hand over four kinds of site: the light page took
/// on trust its header line, its tz rules were taken on trust by the CLI, and it read only its
/// own copies of SNAPSHOTS.jsonl and anchors/index.json. The CLI and the page must agree on
/// each, except where the page by design reads no file — an anchor's post or proof, the witness
/// layer's files, a released text, and the ledger's last file, of which it checks the copy it
/// carries (docs/scale.md#the-page-against-the-site): there the page may stay green while the
/// CLI fails the site, never the reverse. A tampered file under `ledger/` that both pass is a
/// failure (issue 48): every such file is re-derived or held to the last snapshot's digests.
#[test]
fn random_tamperings_give_one_answer() {
    let mut b = Box::new(4096);
    b.add(60);
    b.build(1_800_000_000);
    tamper_randomly(&b.site, 0x5eed_0042);
    let (_tmp, site) = every_layer_site("");
    tamper_randomly(&site, 0x5eed_0043);
    // The same past the least page ceiling: a page that reads its records from the site
    // (docs/page.md#fetched-records).
    let (_tmp, site) = every_layer_site("page_bytes = 65536\n");
    let html = std::fs::read_to_string(site.join("index.html")).unwrap();
    assert_eq!(page_json(&site, "layout-json")["fetch"], true);
    assert!(!crate::common::page_blocks(&html).contains_key("stats-json"));
    tamper_randomly(&site, 0x5eed_0044);
}

/// A generated box of 900 lines built with every layer, its ledger and withheld list in files;
/// `more`: lines added to `[publish]`.
fn every_layer_site(more: &str) -> (tempfile::TempDir, PathBuf) {
    use exhibit_testkit::gen_box::{self, BoxOptions};
    let tmp = tempfile::tempdir().unwrap();
    let box_dir = tmp.path().join("box");
    let opts = BoxOptions {
        lines: 900,
        seed: 48,
        witness: true,
        ..BoxOptions::default()
    };
    gen_box::generate(&opts, &box_dir).expect("generate a box");
    let toml = std::fs::read_to_string(box_dir.join("exhibit.toml")).unwrap();
    std::fs::write(
        box_dir.join("exhibit.toml"),
        toml.replace("public_texts = false", "public_texts = true")
            + "segment_bytes = 65536\nwithheld_bytes = 4096\n"
            + more,
    )
    .unwrap();
    let site = box_dir.join("site");
    let o = exhibit(
        &[
            "build",
            "--config",
            box_dir.join("exhibit.toml").to_str().unwrap(),
            "--out",
            site.to_str().unwrap(),
        ],
        1_800_000_000,
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(site.join("ledger/segments").is_dir() && site.join("ledger/withheld").is_dir());
    assert!(site.join("ledger/witness").is_dir() && site.join("ledger/public_texts").is_dir());
    (tmp, site)
}

fn tamper_randomly(site: &Path, seed: u64) {
    let server = Server::start(site);
    let original = verdict(&visit(&server.url(FULL), None, &[]));
    let mut files: Vec<String> = walkdir::WalkDir::new(site)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .map(|e| e.path().strip_prefix(site).unwrap().display().to_string())
        .filter(|p| p != "index.html")
        .collect();
    files.sort();
    let html = std::fs::read_to_string(site.join("index.html")).unwrap();
    let ids: Vec<String> = crate::common::page_blocks(&html).into_keys().collect();
    assert!(ids.len() >= 8 && files.len() >= 10, "{ids:?} {files:?}");
    let mut x: u64 = seed;
    let mut next = move |n: usize| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x % n as u64) as usize
    };
    // The page reads the last file from its own copy (`ledger-latest`), not from the site.
    let last = listed(site).pop().unwrap();
    let cases: usize = env_number("TAMPER_CASES", 16);
    let (mut failed_both, mut failed_cli) = (0, 0);
    for case in 0..cases {
        let tmp = tempfile::tempdir().unwrap();
        let copy = tmp.path().join("site");
        copy_tree(site, &copy);
        let path = files[next(files.len())].clone();
        let what = match next(4) {
            0 => {
                let id = ids[next(ids.len())].clone();
                let html = std::fs::read_to_string(copy.join("index.html")).unwrap();
                let mut bytes = unb64(block(&html, &id));
                let Some(at) = flip_bit(&mut bytes, &mut next) else {
                    continue;
                };
                set_block(&copy, &id, &bytes);
                format!("block {id} byte {at}")
            }
            1 => {
                std::fs::remove_file(copy.join(&path)).unwrap();
                format!("{path} removed")
            }
            2 => {
                let b = read(&copy, &path);
                let cut = next(b.len().max(1));
                write(&copy, &path, &b[..cut]);
                format!("{path} cut at {cut}")
            }
            _ => {
                let mut b = read(&copy, &path);
                let Some(at) = flip_bit(&mut b, &mut next) else {
                    continue;
                };
                write(&copy, &path, &b);
                format!("{path} byte {at}")
            }
        };
        let (rc, words) = cli(&copy);
        let server = Server::start(&copy);
        let page = verdict(&visit(&server.url(FULL), None, &[]));
        let by_design = ["ledger/witness/", "ledger/public_texts/"]
            .iter()
            .any(|f| what.starts_with(f))
            || (what.starts_with("ledger/anchors/") && !what.contains("index.json"))
            || what.starts_with(&format!("{last} "));
        assert!(
            rc != 0 || !what.starts_with("ledger/"),
            "case {case}, {what}: both verifiers pass a tampered file\n{words}"
        );
        if rc == 0 {
            assert_eq!(
                page, original,
                "case {case}, {what}: the CLI re-derives\n{words}"
            );
        } else if page.0 == "failed" {
            // (A failed page still names the chain's head when the chain itself re-derives.)
            failed_both += 1;
        } else {
            assert!(
                by_design && page == original,
                "case {case}, {what}: the CLI fails the site, the page says {page:?}\n{words}"
            );
            failed_cli += 1;
        }
    }
    // The tamperings are seen: most fail a verifier (a page block's byte may change nothing
    // either reads). Most of a site with every layer is proofs and texts, which only the CLI
    // reads, so the share both fail is not the measure.
    assert!(
        (failed_both + failed_cli) * 3 >= cases * 2,
        "{failed_both} of {cases} cases failed both, {failed_cli} the CLI alone"
    );
}

/// One bit of `bytes` flipped, at the byte returned; `None` when there is no byte.
fn flip_bit(bytes: &mut [u8], next: &mut impl FnMut(usize) -> usize) -> Option<usize> {
    if bytes.is_empty() {
        return None;
    }
    let at = next(bytes.len());
    bytes[at] ^= 1 << next(8);
    Some(at)
}

/// Removes the page's data block `id`, the whole `<script>` element.
fn remove_block(site: &Path, id: &str) {
    let path = site.join("index.html");
    let html = std::fs::read_to_string(&path).unwrap();
    let open = format!("<script type=\"application/octet-stream\" id=\"{id}\">");
    let at = html.find(&open).unwrap_or_else(|| panic!("no block {id}"));
    let end = at + html[at..].find("</script>").unwrap() + "</script>".len();
    std::fs::write(path, format!("{}{}", &html[..at], &html[end..])).unwrap();
}

/// Sets the page's data block `id` (one the page carries empty too: `set_block` finds no text to
/// replace in it), in place of the first block.
fn put_block(site: &Path, id: &str, bytes: &[u8]) {
    let path = site.join("index.html");
    if std::fs::read_to_string(&path).unwrap().contains(&format!(
        "<script type=\"application/octet-stream\" id=\"{id}\">"
    )) {
        remove_block(site, id);
    }
    let html = std::fs::read_to_string(&path).unwrap();
    let new = format!(
        "<script id={id} type=application/octet-stream>{}</script>",
        exhibit::published::encode::base64(bytes)
    );
    let at = html
        .find("<script type=\"application/octet-stream\"")
        .unwrap();
    std::fs::write(path, format!("{}{new}{}", &html[..at], &html[at..])).unwrap();
}

/// The path after the last of `paths` in its folder: `ledger/segments/NNNNNN.jsonl` (from
/// 000001 after `ledger/ledger.jsonl` alone) or `ledger/withheld/NNNNNN.json`.
fn next_name(paths: &[String], folder: &str, ext: &str) -> String {
    let prefix = format!("ledger/{folder}/");
    let n = paths
        .iter()
        .filter_map(|p| {
            p.strip_prefix(&prefix)?
                .strip_suffix(ext)?
                .parse::<u32>()
                .ok()
        })
        .max()
        .unwrap_or(0);
    format!("{prefix}{:06}{ext}", n + 1)
}

/// A mutation, and words both verifiers' failures must hold (the CLI's report and the page's
/// list of failures): the file or the block each names.
type Named = (&'static str, Mutation, &'static str);

/// Files beyond the page's list (issue 48, class 16) and the page's blocks removed, cut short or
/// carried where the site implies none (class 17), on a light page with proofs beside its posts.
const BEYOND_MUTATIONS: [Named; 11] = [
    (
        "a next segment the list does not name (a cat of the segments takes it in)",
        |s| {
            let paths = listed(s);
            let last = read(s, paths.last().unwrap());
            let line = last[..last.len() - 1]
                .rsplit(|b| *b == b'\n')
                .next()
                .unwrap();
            let next = next_name(&paths, "segments", ".jsonl");
            write(s, &next, &[line, b"\n"].concat());
        },
        "ledger/segments/",
    ),
    (
        "a withheld list's part beside a withheld list in one file",
        |s| {
            std::fs::create_dir_all(s.join("ledger/withheld")).unwrap();
            write(s, &wpart(1), b"[]\n");
        },
        "ledger/withheld",
    ),
    (
        "the page's proof headers emptied",
        |s| set_block(s, "proof-headers", b""),
        ".txt.ots",
    ),
    (
        "the page's proof headers removed",
        |s| remove_block(s, "proof-headers"),
        ".txt.ots",
    ),
    (
        "the page's proof headers cut short",
        |s| {
            let html = std::fs::read_to_string(s.join("index.html")).unwrap();
            let b = unb64(block(&html, "proof-headers"));
            set_block(s, "proof-headers", &b[..b.len() / 2]);
        },
        "proof-headers",
    ),
    (
        "the page's header line removed",
        |s| remove_block(s, "ledger-header"),
        "ledger-header",
    ),
    (
        "the page's posts removed",
        |s| remove_block(s, "anchor-posts-json"),
        "post",
    ),
    (
        "the page's posts emptied",
        |s| set_block(s, "anchor-posts-json", b""),
        "post",
    ),
    (
        "the page's copy of the last file cut short",
        |s| {
            let html = std::fs::read_to_string(s.join("index.html")).unwrap();
            let b = unb64(block(&html, "ledger-latest"));
            set_block(s, "ledger-latest", &b[..b.len() / 2]);
        },
        "ledger-latest",
    ),
    (
        "the page's copy of the last file emptied",
        |s| set_block(s, "ledger-latest", b""),
        "",
    ),
    (
        "the page's list of files removed",
        |s| remove_block(s, "layout-json"),
        "",
    ),
];

/// The withheld list in files: a part beyond the list, and a withheld list carried beside it.
const WITHHELD_BEYOND: [Named; 2] = [
    (
        "a withheld part after the last the list names",
        |s| {
            let next = next_name(&withheld_listed(s), "withheld", ".json");
            write(s, &next, b"[]\n");
        },
        "ledger/withheld/",
    ),
    (
        "a withheld list carried beside the withheld files the page lists",
        |s| put_block(s, "withheld-json", &read(s, "ledger/withheld.json")),
        "withheld-json",
    ),
];

/// Each mutation of a copy of `site` is failed by the CLI and by the page in Chromium (over
/// http, or from file:// with the folder `pick`ed), each naming what the mutation names; a
/// mutation the page re-derives must be one the CLI re-derives too (the last file's copy emptied:
/// the page fetches the file, as it does when it carries none).
fn both_fail(site: &Path, mutations: &[Named], pick: bool) {
    for (name, mutate, names) in mutations {
        let tmp = tempfile::tempdir().unwrap();
        let copy = tmp.path().join("site");
        copy_tree(site, &copy);
        mutate(&copy);
        let (rc, words) = cli(&copy);
        let facts = if pick {
            let ledger = copy.join("ledger");
            let page = copy.join("index.html");
            visit(
                page.to_str().unwrap(),
                None,
                &["--pick", ledger.to_str().unwrap()],
            )
        } else {
            let server = Server::start(&copy);
            visit(&server.url(FULL), None, &[])
        };
        let page = verdict(&facts);
        if names.is_empty() && rc == 0 {
            assert_ne!(page.0, "failed", "{name}: the CLI re-derives\n{words}");
            continue;
        }
        assert_eq!(rc, 1, "{name}: the CLI must fail it\n{words}");
        assert!(words.contains(names), "{name}: {names} in\n{words}");
        assert_eq!(page.0, "failed", "{name}: the page says {page:?}\n{words}");
        let dom = facts["dom"].as_str().unwrap();
        let failures = &dom[dom.find("id=\"failures\"").unwrap_or(0)..];
        assert!(
            failures.contains(names),
            "{name}: {names} in the page's failures"
        );
    }
}

/// Valid OpenTimestamps headers for every post of the light box (the build publishes them
/// beside the posts, and the page carries their headers).
fn stamp_posts(b: &Box) {
    let anchors = b
        .site
        .parent()
        .unwrap()
        .parent()
        .unwrap()
        .join("box/gate/anchors");
    for e in std::fs::read_dir(&anchors).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "txt") {
            let post = std::fs::read(&p).unwrap();
            let mut ots =
                b"\x00OpenTimestamps\x00\x00Proof\x00\xbf\x89\xe2\xe8\x84\xe8\x92\x94\x01\x08"
                    .to_vec();
            ots.extend_from_slice(&exhibit_protocol::Digest::of(&post).0);
            // A nonce appended, sha256, then one pending attestation (as an OpenTimestamps
            // client writes a fresh stamp).
            ots.extend_from_slice(b"\xf0\x10sixteen byte non\x08\x00");
            ots.extend_from_slice(&exhibit_protocol::ots::PENDING_TAG);
            let url = b"https://alice.btc.calendar.opentimestamps.org";
            ots.extend_from_slice(&[url.len() as u8 + 1, url.len() as u8]);
            ots.extend_from_slice(url);
            std::fs::write(p.with_extension("txt.ots"), ots).unwrap();
        }
    }
}

#[test]
fn both_verifiers_fail_files_beyond_the_list_and_blocks_not_held_to_the_site() {
    let mut b = Box::new(4096);
    b.add(60);
    stamp_posts(&b);
    b.build(1_800_000_000);
    let (rc, words) = cli(&b.site);
    assert_eq!(rc, 0, "{words}");
    assert!(words.is_empty() || !words.contains("problem"), "{words}");
    let index = page_json(&b.site, "anchors-json");
    assert!(
        index["posts"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["proof_file"].is_string()),
        "{index}"
    );
    both_fail(&b.site, &BEYOND_MUTATIONS, false);
    // From the picked folder the page lists segments/ and withheld/: any name the list does
    // not name, as the CLI fails it.
    let picked: [Named; 3] = [
        BEYOND_MUTATIONS[0],
        BEYOND_MUTATIONS[1],
        (
            "a stray name in segments/",
            |s| write(s, "ledger/segments/notes.txt", b"a note\n"),
            "ledger/segments/notes.txt",
        ),
    ];
    both_fail(&b.site, &picked, true);
    // Over http the page cannot list a folder: it says so, and passes a stray name the CLI
    // fails (by design, docs/page.md "What the page cannot list").
    let tmp = tempfile::tempdir().unwrap();
    let copy = tmp.path().join("site");
    copy_tree(&b.site, &copy);
    write(&copy, "ledger/segments/notes.txt", b"a note\n");
    assert_eq!(cli(&copy).0, 1);
    let server = Server::start(&copy);
    let facts = visit(&server.url(FULL), None, &[]);
    assert_ne!(verdict(&facts).0, "failed");
    let dom = facts["dom"].as_str().unwrap();
    assert!(
        dom.contains("Over http this page cannot list a folder"),
        "{dom}"
    );
}

#[test]
fn both_verifiers_fail_withheld_files_beyond_the_list() {
    let mut s = crate::withheld_files::scene(Some(crate::withheld_files::WITHHELD_BYTES));
    s.add(90);
    s.post_days();
    s.build(1_800_000_000);
    both_fail(&s.site, &WITHHELD_BEYOND, false);
    both_fail(&s.site, &WITHHELD_BEYOND[..1], true);
}

/// A layer's data block taken out of a light page whose site publishes the layer (issue 48,
/// class 17): the page showed no layer and was green beside the layer's files. Both verifiers
/// fail it: the CLI from the folder, the page from the last snapshot's record of the folder.
#[test]
fn both_verifiers_fail_a_page_that_drops_a_layers_block() {
    let (_tmp, site) = every_layer_site("");
    let mutations: [(&str, Mutation); 2] = [
        ("the page's witness-json removed", |s| {
            remove_block(s, "witness-json")
        }),
        ("the page's public-texts-json removed", |s| {
            remove_block(s, "public-texts-json")
        }),
    ];
    agree(&site, &mutations, |_| false);
}

/// A segmented exhibit's per-line proofs lie in folders of 4,096 seqs
/// (docs/witness.md#proof-folders). The page, from the picked folder, holds `ledger/witness/` —
/// buckets included — to the last snapshot, as `exhibit verify SITE` does: a bucketed proof
/// tampered, removed or moved to another bucket, or a stray file in a bucket, fails both. Over
/// http the light page points a line's proof at the part of the witness index that names its
/// path.
#[test]
fn both_verifiers_fail_a_tampered_removed_or_misplaced_proof_in_a_bucket() {
    let (_tmp, site) = every_layer_site("");
    let bucket = site.join("ledger/witness/proofs/000000");
    assert!(bucket.is_dir());
    let facts = visit(&Server::start(&site).url(FULL), None, &[]);
    assert_ne!(verdict(&facts).0, "failed");
    let dom = facts["dom"].as_str().unwrap();
    assert!(
        dom.contains("its path is named in")
            && dom.contains("href=\"ledger/witness/index/000001.json\""),
        "the light page points at the part that names the proof's path"
    );
    fn first(s: &Path) -> PathBuf {
        let d = s.join("ledger/witness/proofs/000000");
        let mut names: Vec<PathBuf> = std::fs::read_dir(&d)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        names.sort();
        names.remove(0)
    }
    let mutations: [Named; 4] = [
        (
            "a bucketed proof tampered",
            |s| {
                let p = first(s);
                let mut b = std::fs::read(&p).unwrap();
                let at = b.len() - 1;
                b[at] ^= 1;
                std::fs::write(p, b).unwrap();
            },
            "ledger/witness/",
        ),
        (
            "a bucketed proof removed",
            |s| std::fs::remove_file(first(s)).unwrap(),
            "ledger/witness/",
        ),
        (
            "a bucketed proof moved to another bucket",
            |s| {
                let p = first(s);
                let to = s.join("ledger/witness/proofs/000001");
                std::fs::create_dir(&to).unwrap();
                std::fs::rename(&p, to.join(p.file_name().unwrap())).unwrap();
            },
            "ledger/witness/",
        ),
        (
            "a stray file in a bucket",
            |s| write(s, "ledger/witness/proofs/000000/notes.txt", b"a note\n"),
            "ledger/witness/",
        ),
    ];
    both_fail(&site, &mutations, true);
}

/// A generated box of 1,100 lines (sends with their digests, a released text layer), its ledger
/// in segments: a tree with full and partial tiles, a level-0 run of the digest index and its
/// tail (docs/tree.md#layout).
fn tree_site() -> (tempfile::TempDir, PathBuf) {
    use exhibit_testkit::gen_box::{self, BoxOptions};
    let tmp = tempfile::tempdir().unwrap();
    let box_dir = tmp.path().join("box");
    let opts = BoxOptions {
        lines: 1100,
        seed: 61,
        witness: false,
        ..BoxOptions::default()
    };
    gen_box::generate(&opts, &box_dir).expect("generate a box");
    let toml = std::fs::read_to_string(box_dir.join("exhibit.toml")).unwrap();
    std::fs::write(
        box_dir.join("exhibit.toml"),
        toml.replace("public_texts = false", "public_texts = true") + "segment_bytes = 65536\n",
    )
    .unwrap();
    let site = box_dir.join("site");
    let o = exhibit(
        &[
            "build",
            "--config",
            box_dir.join("exhibit.toml").to_str().unwrap(),
            "--out",
            site.to_str().unwrap(),
        ],
        1_800_000_000,
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    (tmp, site)
}

/// The tree file of `site` under `ledger/tree/<folder>` that holds the most bytes (a bucket
/// with rows, say), as a path under the site.
fn fullest(site: &Path, folder: &str) -> String {
    let mut files: Vec<(u64, String)> =
        walkdir::WalkDir::new(site.join("ledger/tree").join(folder))
            .into_iter()
            .filter_map(Result::ok)
            .filter(|e| e.file_type().is_file())
            .map(|e| {
                let rel = e.path().strip_prefix(site).unwrap().display().to_string();
                (e.metadata().unwrap().len(), rel)
            })
            .collect();
    files.sort();
    files.pop().expect("a file").1
}

/// One byte of a file of the site flipped.
fn flip(site: &Path, path: &str, at: usize) {
    let mut b = read(site, path);
    let at = at.min(b.len() - 1);
    b[at] ^= 0x01;
    write(site, path, &b);
}

/// The checkpoint's root line replaced by another root (a valid one: the sha256 of nothing),
/// in `ledger/tree/checkpoint` and, when `page`, in the page's copy.
fn other_root(site: &Path, page: bool) {
    let text = String::from_utf8(read(site, "ledger/tree/checkpoint")).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    assert_ne!(lines[2], "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=");
    lines[2] = "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=";
    let bytes = format!("{}\n", lines.join("\n"));
    write(site, "ledger/tree/checkpoint", bytes.as_bytes());
    if page {
        set_block(site, "tree-checkpoint", bytes.as_bytes());
    }
}

/// A tampered tree: (what, the tampering, what the CLI names `file: code`, what the light page
/// names over http `file (code)`, what it names from the picked folder).
type TreeCase = (
    &'static str,
    Mutation,
    &'static str,
    &'static str,
    &'static str,
);

/// Each file kind of the tree tampered, the last snapshot made to record the tampered files
/// (so that only the tree's own check can fail it): `exhibit verify SITE` and the light page's
/// full check fail every one, naming the file and the code (docs/tree.md#verifiers). A stray
/// name under `ledger/tree/` is seen by the CLI and from a picked folder (tree_stray); over http
/// the page cannot list the folder, and fails it by the snapshot's tree/ digest, which it makes
/// from the files the tree has. Catches a page that skips a kind of file, compares a lines file
/// with anything but the chain's lines, takes the site's checkpoint on trust, or reads the
/// snapshot's tree/ digest as "not checked" after reading every file.
#[test]
fn both_verifiers_fail_every_kind_of_tampered_tree_file() {
    let (_tmp, site) = tree_site();
    let (rc, words) = cli(&site);
    assert_eq!(rc, 0, "{words}");
    let cp = String::from_utf8(read(&site, "ledger/tree/checkpoint")).unwrap();
    assert_eq!(cp.lines().nth(1), Some("1100"), "{cp}");
    for f in [
        "ledger/tree/tile/0/003",
        "ledger/tree/tile/0/004.p/76",
        "ledger/tree/tile/1/000.p/4",
        "ledger/tree/tile/entries/001",
        "ledger/tree/lines/002",
        "ledger/tree/index/0/0/f",
        "ledger/tree/index/tail/1.p/76",
    ] {
        assert!(site.join(f).is_file(), "{f}");
    }
    let server = Server::start(&site);
    let facts = visit(&server.url(FULL), None, &[]);
    let original = verdict(&facts);
    assert!(
        original.0 == "gaps" || original.0 == "intact",
        "{original:?}"
    );
    let dom = facts["dom"].as_str().unwrap();
    assert!(tag_holds(dom), "the checkpoint holds");
    let cases: [TreeCase; 10] = [
        (
            "a byte of a full hash tile",
            |s| flip(s, "ledger/tree/tile/0/003", 4000),
            "ledger/tree/tile/0/003: tree_file_differs",
            "ledger/tree/tile/0/003 (tree_file_differs)",
            "ledger/tree/tile/0/003 (tree_file_differs)",
        ),
        (
            "a byte of a level-1 tile",
            |s| flip(s, "ledger/tree/tile/1/000.p/4", 40),
            "ledger/tree/tile/1/000.p/4: tree_file_differs",
            "ledger/tree/tile/1/000.p/4 (tree_file_differs)",
            "ledger/tree/tile/1/000.p/4 (tree_file_differs)",
        ),
        (
            "a byte of an entry bundle",
            |s| flip(s, "ledger/tree/tile/entries/001", 35),
            "ledger/tree/tile/entries/001: tree_file_differs",
            "ledger/tree/tile/entries/001 (tree_file_differs)",
            "ledger/tree/tile/entries/001 (tree_file_differs)",
        ),
        (
            "a byte of a lines file",
            |s| flip(s, "ledger/tree/lines/002", 1000),
            "ledger/tree/lines/002: tree_file_differs",
            "ledger/tree/lines/002 (tree_file_differs)",
            "ledger/tree/lines/002 (tree_file_differs)",
        ),
        (
            "a byte of an index bucket",
            |s| {
                let p = fullest(s, "index/0");
                flip(s, &p, 9);
            },
            "ledger/tree/index/0/0/",
            "ledger/tree/index/0/0/",
            "ledger/tree/index/0/0/",
        ),
        (
            "a byte of the index's tail",
            |s| flip(s, "ledger/tree/index/tail/1.p/76", 12),
            "ledger/tree/index/tail/1.p/76: tree_file_differs",
            "ledger/tree/index/tail/1.p/76 (tree_file_differs)",
            "ledger/tree/index/tail/1.p/76 (tree_file_differs)",
        ),
        (
            "the partial tile removed",
            |s| std::fs::remove_file(s.join("ledger/tree/tile/0/004.p/76")).unwrap(),
            "ledger/tree/tile/0/004.p/76: tree_file_missing",
            "ledger/tree/tile/0/004.p/76 (tree_file_missing)",
            "ledger/tree/tile/0/004.p/76 (tree_file_missing)",
        ),
        (
            "the checkpoint's root changed, in the page's copy too",
            |s| other_root(s, true),
            "ledger/tree/checkpoint: tree_checkpoint",
            "ledger/tree/checkpoint (tree_checkpoint)",
            "ledger/tree/checkpoint (tree_checkpoint)",
        ),
        (
            "the checkpoint's root changed, not the page's copy",
            |s| other_root(s, false),
            "ledger/tree/checkpoint: tree_checkpoint",
            "ledger/tree/checkpoint is not the one this page carries",
            "ledger/tree/checkpoint is not the one this page carries",
        ),
        (
            "a stray name under ledger/tree/",
            |s| {
                std::fs::create_dir_all(s.join("ledger/tree/tile/0/005.p")).unwrap();
                write(s, "ledger/tree/tile/0/005.p/1", &[7; 32]);
            },
            "ledger/tree/tile/0/005.p/1: tree_stray",
            "ledger/tree/ (snapshot_digest_mismatch)",
            "ledger/tree/tile/0/005.p/1 (tree_stray)",
        ),
    ];
    for (name, mutate, cli_says, http_says, pick_says) in cases {
        let tmp = tempfile::tempdir().unwrap();
        let copy = tmp.path().join("site");
        copy_tree(&site, &copy);
        mutate(&copy);
        snapshot_the_files(&copy);
        let (rc, words) = cli(&copy);
        assert_eq!(rc, 1, "{name}: the CLI must fail it\n{words}");
        assert!(words.contains(cli_says), "{name}: {cli_says} in\n{words}");
        let server = Server::start(&copy);
        let over_http = visit(&server.url(FULL), None, &[]);
        let ledger = copy.join("ledger");
        let picked = visit(
            copy.join("index.html").to_str().unwrap(),
            None,
            &["--pick", ledger.to_str().unwrap()],
        );
        for (how, facts, says) in [
            ("over http", &over_http, http_says),
            ("picked", &picked, pick_says),
        ] {
            let page = verdict(facts);
            assert_eq!(
                page.0, "failed",
                "{name} ({how}): the page says {page:?}\n{words}"
            );
            let dom = facts["dom"].as_str().unwrap();
            let at = dom.find("id=\"failures\"").expect("a list of failures");
            let failures = &dom[at..at + dom[at..].find("</ul>").unwrap()];
            assert!(
                failures.contains(says),
                "{name} ({how}): {says} in the page's failures: {failures}"
            );
        }
        // Only the tree failed (the snapshot records these files): a page that did not hold
        // them to the chain would be green.
        assert_eq!(
            words.lines().filter(|l| l.contains(": snapshot_")).count(),
            0,
            "{name}: {words}"
        );
    }
}

fn tag_holds(dom: &str) -> bool {
    let at = dom.find("id=\"checkpoint\"").unwrap();
    let start = dom[..at].rfind('<').unwrap();
    dom[start..at + dom[at..].find('>').unwrap()].contains("data-state=\"holds\"")
}

/// The checkpoint's text with its line `n` (0-based) replaced, in `ledger/tree/checkpoint` and
/// in the page's copy.
fn checkpoint_line(site: &Path, n: usize, line: &str) {
    let text = String::from_utf8(read(site, "ledger/tree/checkpoint")).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    lines[n] = line.to_string();
    let bytes = format!("{}\n", lines.join("\n"));
    write(site, "ledger/tree/checkpoint", bytes.as_bytes());
    set_block(site, "tree-checkpoint", bytes.as_bytes());
}

/// An embedded page holds the checkpoint it carries to the chain it re-derives
/// (docs/tree.md#checkpoint): its size, root or head changed in the page's copy and in
/// `ledger/tree/checkpoint` alike, the last snapshot recording them, fails the page and
/// `exhibit verify SITE` with tree_checkpoint; a page that carries none where STATS.json states
/// a tree fails both. A site without a tree (built before it: no `ledger/tree/`, no block, no
/// `tree` in STATS.json) passes both, the page saying "no tree: not checked". Catches a page
/// that shows the checkpoint without holding it to the chain, one that compares only the size,
/// and one that fails a site built before the tree.
#[test]
fn both_verifiers_hold_an_embedded_pages_checkpoint_to_the_chain() {
    let mut b = Box::new(33_554_432);
    b.add(60);
    b.build(1_800_000_000);
    assert_eq!(page_json(&b.site, "layout-json")["mode"], "embedded");
    let page = |s: &Path| visit(s.join("index.html").to_str().unwrap(), None, &[]);
    let facts = page(&b.site);
    let original = verdict(&facts);
    assert!(
        original.0 == "gaps" || original.0 == "intact",
        "{original:?}"
    );
    assert!(
        tag_holds(facts["dom"].as_str().unwrap()),
        "the checkpoint holds"
    );
    let cp = String::from_utf8(read(&b.site, "ledger/tree/checkpoint")).unwrap();
    let head = cp
        .lines()
        .nth(3)
        .unwrap()
        .rsplit(' ')
        .next()
        .unwrap()
        .to_string();
    let cases: [(&str, Mutation, &str); 4] = [
        (
            "its size one less",
            |s| checkpoint_line(s, 1, "59"),
            "size is 59",
        ),
        (
            "another root",
            |s| checkpoint_line(s, 2, "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU="),
            "root is",
        ),
        (
            "another head",
            |s| checkpoint_line(s, 3, &format!("exhibit-head 60 {}", "ab".repeat(32))),
            "exhibit-head is",
        ),
        (
            "none carried, STATS.json stating a tree",
            |s| set_block(s, "tree-checkpoint", b""),
            "carries no checkpoint",
        ),
    ];
    for (name, mutate, why) in cases {
        let tmp = tempfile::tempdir().unwrap();
        let copy = tmp.path().join("site");
        copy_tree(&b.site, &copy);
        mutate(&copy);
        snapshot_the_files(&copy);
        let (rc, words) = cli(&copy);
        assert_eq!(rc, 1, "{name}: the CLI must fail it\n{words}");
        assert!(
            words.contains("ledger/tree/checkpoint: tree_checkpoint")
                || words.contains("tree-checkpoint"),
            "{name}: {words}"
        );
        let facts = page(&copy);
        assert_eq!(verdict(&facts).0, "failed", "{name}: {:?}", verdict(&facts));
        let dom = facts["dom"].as_str().unwrap();
        let at = dom.find("id=\"failures\"").expect("a list of failures");
        let failures = &dom[at..at + dom[at..].find("</ul>").unwrap()];
        assert!(
            failures.contains("ledger/tree/checkpoint (tree_checkpoint)") && failures.contains(why),
            "{name}: {failures}"
        );
    }
    assert!(!head.is_empty());

    // An exhibit built before the tree: both pass it, and the page says it checked no tree.
    let tmp = tempfile::tempdir().unwrap();
    let copy = tmp.path().join("site");
    copy_tree(&b.site, &copy);
    std::fs::remove_dir_all(copy.join("ledger/tree")).unwrap();
    stats_everywhere(&copy, |s| {
        s.as_object_mut().unwrap().remove("tree");
    });
    set_block(&copy, "tree-checkpoint", b"");
    snapshot_the_files(&copy);
    let (rc, words) = cli(&copy);
    assert_eq!(rc, 0, "{words}");
    let facts = page(&copy);
    assert_eq!(verdict(&facts), original);
    let dom = facts["dom"].as_str().unwrap();
    let at = dom.find("id=\"checkpoint\"").unwrap();
    let shown = &dom[dom[..at].rfind('<').unwrap()..at + dom[at..].find("</p>").unwrap()];
    assert!(
        shown.contains("data-state=\"none\"")
            && shown.contains("No tree")
            && shown.contains("not checked"),
        "{shown}"
    );
}
