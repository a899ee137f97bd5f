//! A hostile stranger's (or operator's) attacks on the segmented layout (issue 12,
//! docs/scale.md): tampered `STATS.json` lists, segments that are not plain files, lines cut
//! across files, witness parts with absurd seqs, and a hand-edited HEAD behind the blob-digest
//! cache. Each attack must end in a problem or a refusal that names the file — never a panic,
//! never a read outside the exhibit, never a pass.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::common::*;
use serde_json::{Value, json};

struct Scene {
    tmp: tempfile::TempDir,
    b: TestBox,
    _repo: git2::Repository,
    site: PathBuf,
    w: LedgerWriter,
}

/// A gate box with `segment_bytes = 4096` and `n` lines, built once into a git work tree.
fn built(n: u32) -> Scene {
    let tmp = tempfile::tempdir().unwrap();
    let b = TestBox::new(tmp.path());
    let work = tmp.path().join("exhibit");
    let repo = git2::Repository::init(&work).unwrap();
    std::fs::write(
        b.dir.join("exhibit.toml"),
        "[gate]\nledger = \"gate/ledger.jsonl\"\nanchors = \"gate/anchors\"\n\n[publish]\nsegment_bytes = 4096\n",
    )
    .unwrap();
    let mut s = Scene {
        site: work.join("site"),
        tmp,
        b,
        _repo: repo,
        w: LedgerWriter::new(),
    };
    s.append(n);
    let o = s.build(1_790_000_000);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(s.site.join("ledger/segments/000003.jsonl").exists());
    s
}

impl Scene {
    fn append(&mut self, n: u32) {
        append_scans(&self.b, &mut self.w, n);
    }

    fn build(&self, epoch: u64) -> Output {
        let site = self.site.display().to_string();
        let config = self.b.config();
        exhibit(&["build", "--config", &config, "--out", &site], epoch)
    }

    /// `exhibit verify --json` on a fresh copy of the site after `damage`.
    fn damaged(&self, damage: impl FnOnce(&Path)) -> (Option<i32>, Value, String) {
        let copy = self.tmp.path().join("copy");
        let _ = std::fs::remove_dir_all(&copy);
        copy_site(&self.site, &copy);
        damage(&copy);
        let o = exhibit(&["verify", "--json", &copy.display().to_string()], 0);
        let all = text(&o);
        assert!(!all.contains("panicked"), "a panic: {all}");
        let v = serde_json::from_slice(&o.stdout).unwrap_or(Value::Null);
        (o.status.code(), v, all)
    }
}

fn edit_stats(d: &Path, edit: impl FnOnce(&mut Vec<Value>)) {
    let p = d.join("ledger/STATS.json");
    let mut stats: Value = serde_json::from_slice(&std::fs::read(&p).unwrap()).unwrap();
    edit(stats["ledger"]["files"].as_array_mut().unwrap());
    std::fs::write(&p, serde_json::to_vec_pretty(&stats).unwrap()).unwrap();
}

/// STATS.json's entry for one file, re-derived from its bytes as the build writes it.
fn restat(d: &Path, files: &mut [Value], i: usize) {
    let path = files[i]["path"].as_str().unwrap().to_string();
    let bytes = std::fs::read(d.join(&path)).unwrap();
    files[i]["bytes"] = json!(bytes.len());
    files[i]["sha256"] = json!(exhibit_protocol::Digest::of(&bytes).to_string());
    files[i]["lines"] = json!(bytes.iter().filter(|&&b| b == b'\n').count());
}

#[test]
fn stats_paths_outside_the_ledger_are_named_problems_and_never_read() {
    let s = built(60);
    // A file outside the site the attacker would like read and matched.
    let outside = s.tmp.path().join("x");
    std::fs::write(&outside, "{}\n").unwrap();
    for evil in [
        "../x".to_string(),
        "../../x".to_string(),
        outside.display().to_string(),
        "ledger/segments/../../x".to_string(),
        "ledger/segments/../ledger.jsonl".to_string(),
        "//host/x".to_string(),
        "javascript:alert(1)".to_string(),
        "https://example.invalid/ledger/segments/000001.jsonl".to_string(),
    ] {
        let (code, v, all) = s.damaged(|d| {
            edit_stats(d, |files| files[1]["path"] = json!(evil));
        });
        assert_eq!(code, Some(1), "{evil}: {all}");
        let p = file_problems(&v);
        // The unlisted real file, and the listed path shown as STATS.json (never the path).
        assert!(
            p.contains(&(
                "ledger/segments/000001.jsonl".into(),
                "stats_file_unlisted".into()
            )),
            "{evil}: {v}"
        );
        assert!(
            p.contains(&("ledger/STATS.json".into(), "stats_file_absent".into())),
            "{evil}: {v}"
        );
        assert!(
            !all.contains(&evil) || evil.starts_with("ledger/"),
            "{evil} echoed: {all}"
        );
    }
}

#[test]
fn stats_duplicates_and_absurd_numbers_are_problems() {
    let s = built(60);
    let (code, v, all) = s.damaged(|d| {
        edit_stats(d, |files| {
            let again = files[1].clone();
            files.insert(2, again);
        })
    });
    assert_eq!(code, Some(1), "{all}");
    assert_file_problem(&v, "ledger/STATS.json", "stats_files_order");
    assert!(
        v["files"]
            .to_string()
            .contains("ledger/segments/000001.jsonl twice"),
        "names the file listed twice: {v}"
    );
    for huge in [json!(u64::MAX), json!(1e300), json!(-1), json!("12")] {
        let (code, v, all) = s.damaged(|d| edit_stats(d, |files| files[1]["bytes"] = huge.clone()));
        assert_eq!(code, Some(1), "{huge}: {all}");
        assert!(!file_problems(&v).is_empty(), "{huge}: {v}");
    }
}

#[test]
fn segments_that_are_not_plain_files_are_named_and_never_opened() {
    let s = built(60);
    // A symlink to /dev/zero in place of a segment: named, not read (a read would never end).
    let (code, v, all) = s.damaged(|d| {
        let p = d.join("ledger/segments/000002.jsonl");
        std::fs::remove_file(&p).unwrap();
        std::os::unix::fs::symlink("/dev/zero", &p).unwrap();
    });
    assert_eq!(code, Some(1), "{all}");
    assert_file_problem(&v, "ledger/segments/000002.jsonl", "segment_stray");
    // A symlink to a real segment elsewhere: a stranger's `cat` would follow it; we do not.
    let (code, v, all) = s.damaged(|d| {
        let p = d.join("ledger/segments/000002.jsonl");
        let keep = d.join("../kept.jsonl");
        std::fs::rename(&p, &keep).unwrap();
        std::os::unix::fs::symlink(&keep, &p).unwrap();
    });
    assert_eq!(code, Some(1), "{all}");
    assert_file_problem(&v, "ledger/segments/000002.jsonl", "segment_stray");
    // A FIFO: must not block.
    let (code, v, all) = s.damaged(|d| {
        let p = d.join("ledger/segments/000004.jsonl");
        let _ = std::fs::remove_file(&p);
        let o = Command::new("mkfifo").arg(&p).output().unwrap();
        assert!(o.status.success());
    });
    assert_eq!(code, Some(1), "{all}");
    assert_file_problem(&v, "ledger/segments/000004.jsonl", "segment_stray");
    // A folder named like a segment.
    let (code, v, all) = s.damaged(|d| {
        std::fs::create_dir(d.join("ledger/segments/999999.jsonl")).unwrap();
    });
    assert_eq!(code, Some(1), "{all}");
    assert_file_problem(&v, "ledger/segments/999999.jsonl", "segment_stray");
    // segments/ itself a symlink to a folder outside: refused naming it, nothing read there.
    let (code, _, all) = s.damaged(|d| {
        let seg = d.join("ledger/segments");
        let away = d.join("../away");
        let _ = std::fs::remove_dir_all(&away);
        std::fs::rename(&seg, &away).unwrap();
        std::os::unix::fs::symlink(&away, &seg).unwrap();
    });
    assert_ne!(code, Some(0), "{all}");
    assert!(all.contains("segments") && all.contains("symlink"), "{all}");
}

#[test]
fn a_line_cut_across_two_segments_is_an_error_even_when_stats_agrees() {
    let s = built(60);
    // Move the first 10 bytes of segment 2 to the end of segment 1: `cat` still gives the same
    // ledger, every digest re-derives, and STATS is rewritten to match the new files. Only the
    // rule "every file is cut at a line boundary" catches it.
    let (code, v, all) = s.damaged(|d| {
        let a = d.join("ledger/segments/000001.jsonl");
        let b = d.join("ledger/segments/000002.jsonl");
        let mut ab = std::fs::read(&a).unwrap();
        let bb = std::fs::read(&b).unwrap();
        ab.extend_from_slice(&bb[..10]);
        std::fs::write(&a, &ab).unwrap();
        std::fs::write(&b, &bb[10..]).unwrap();
        edit_stats(d, |files| {
            restat(d, files, 1);
            restat(d, files, 2);
            files[1]["lines"] = json!(files[1]["lines"].as_u64().unwrap() + 1);
        });
    });
    assert_eq!(code, Some(1), "{all}");
    assert_file_problem(
        &v,
        "ledger/segments/000001.jsonl",
        "ledger_file_unterminated",
    );
}

#[test]
fn an_empty_segment_and_a_header_in_a_later_segment_are_errors() {
    let s = built(60);
    let (code, v, all) = s.damaged(|d| {
        let last = std::fs::read_dir(d.join("ledger/segments"))
            .unwrap()
            .count();
        std::fs::write(d.join(format!("ledger/segments/{:06}.jsonl", last + 1)), "").unwrap();
    });
    assert_eq!(code, Some(1), "{all}");
    assert!(
        file_problems(&v)
            .iter()
            .any(|(_, c)| c == "ledger_file_empty"),
        "{v}"
    );
    // The header line copied to the start of segment 2.
    let (code, v, all) = s.damaged(|d| {
        let ledger = std::fs::read(d.join("ledger/ledger.jsonl")).unwrap();
        let header = &ledger[..=ledger.iter().position(|&b| b == b'\n').unwrap()];
        let b = d.join("ledger/segments/000002.jsonl");
        let mut bytes = header.to_vec();
        bytes.extend_from_slice(&std::fs::read(&b).unwrap());
        std::fs::write(&b, bytes).unwrap();
    });
    assert_eq!(code, Some(1), "{all}");
    let chain = v["problems"][0]["detail"].as_str().unwrap_or("");
    assert!(chain.contains("ledger/segments/000002.jsonl line 1"), "{v}");
}

#[test]
fn a_lone_segment_without_its_final_lf_is_named() {
    // Everything moved into one segment (no ledger.jsonl), its last LF cut, STATS made to agree:
    // one file is still a segmented exhibit, and a segment still ends with LF.
    let s = built(60);
    let (code, v, all) = s.damaged(|d| {
        let mut all = std::fs::read(d.join("ledger/ledger.jsonl")).unwrap();
        for k in 1.. {
            let p = d.join(format!("ledger/segments/{k:06}.jsonl"));
            let Ok(b) = std::fs::read(&p) else { break };
            all.extend_from_slice(&b);
            std::fs::remove_file(&p).unwrap();
        }
        all.pop();
        std::fs::remove_file(d.join("ledger/ledger.jsonl")).unwrap();
        std::fs::write(d.join("ledger/segments/000001.jsonl"), &all).unwrap();
        edit_stats(d, |files| {
            files.truncate(2);
            files.remove(0);
            restat(d, files, 0);
            files[0]["lines"] = json!(files[0]["lines"].as_u64().unwrap() + 1);
        });
    });
    assert_eq!(code, Some(1), "{all}");
    assert_file_problem(
        &v,
        "ledger/segments/000001.jsonl",
        "ledger_file_unterminated",
    );
}

#[test]
fn witness_parts_with_hostile_paths_and_absurd_seqs_are_named_never_a_panic() {
    let s = built(60);
    let write_index = |d: &Path, parts: Value| {
        let w = d.join("ledger/witness");
        std::fs::create_dir_all(w.join("index")).unwrap();
        std::fs::write(w.join("index/000001.json"), "{\"entries\":{}}").unwrap();
        std::fs::write(
            w.join("index.json"),
            serde_json::to_vec(&json!({ "parts": parts })).unwrap(),
        )
        .unwrap();
    };
    let zero = "0".repeat(64);
    // A first part claiming every seq there is: its block size overflows u64.
    let (code, v, all) = s.damaged(|d| {
        write_index(
            d,
            json!([{"path": "ledger/witness/index/000001.json", "first_seq": 0,
                    "last_seq": u64::MAX, "entries": 0, "sha256": zero}]),
        )
    });
    assert_eq!(code, Some(1), "{all}");
    assert_file_problem(
        &v,
        "ledger/witness/index/000001.json",
        "witness_parts_invalid",
    );
    for evil in [
        "ledger/witness/index/../../STATS.json",
        "ledger/witness/index/../index.json",
        "/etc/passwd",
        "ledger/witness/index/18446744073709551616.json",
        "ledger/witness/index//000001.json",
    ] {
        let (code, v, all) = s.damaged(|d| {
            write_index(
                d,
                json!([{"path": evil, "first_seq": 1, "last_seq": 10000,
                        "entries": 0, "sha256": zero}]),
            )
        });
        assert_eq!(code, Some(1), "{evil}: {all}");
        assert!(
            file_problems(&v).contains(&(
                "ledger/witness/index.json".into(),
                "witness_parts_invalid".into()
            )),
            "{evil}: {v}"
        );
    }
    // A part that is a FIFO or a symlink to /dev/zero: refused, never blocking or endless.
    for make in ["fifo", "zero"] {
        let (code, _, all) = s.damaged(|d| {
            write_index(
                d,
                json!([{"path": "ledger/witness/index/000001.json", "first_seq": 1,
                        "last_seq": 10000, "entries": 0, "sha256": zero}]),
            );
            let p = d.join("ledger/witness/index/000001.json");
            std::fs::remove_file(&p).unwrap();
            if make == "fifo" {
                assert!(Command::new("mkfifo").arg(&p).status().unwrap().success());
            } else {
                std::os::unix::fs::symlink("/dev/zero", &p).unwrap();
            }
        });
        assert_ne!(code, Some(0), "{make}: {all}");
        assert!(
            all.contains("ledger/witness/index/000001.json"),
            "{make}: {all}"
        );
    }
    // A run-log file that is a FIFO.
    let (code, v, all) = s.damaged(|d| {
        let w = d.join("ledger/witness");
        std::fs::create_dir_all(w.join("runs")).unwrap();
        std::fs::write(w.join("runs.jsonl"), "{}\n").unwrap();
        let p = w.join("runs/000001.jsonl");
        assert!(Command::new("mkfifo").arg(&p).status().unwrap().success());
    });
    assert_eq!(code, Some(1), "{all}");
    assert_file_problem(&v, "ledger/witness/runs/000001.jsonl", "witness_runs_stray");
}

impl Scene {
    fn cache(&self) -> Option<Vec<u8>> {
        std::fs::read(self.repo().path().join("exhibit/blob-sha256")).ok()
    }

    fn repo(&self) -> &git2::Repository {
        &self._repo
    }

    /// The site's files and the blob-digest cache, to compare before and after a refusal.
    fn state(&self) -> (std::collections::BTreeMap<String, Vec<u8>>, Option<Vec<u8>>) {
        (snapshot_dir(&self.site), self.cache())
    }
}

/// Built and committed twice, so that the second build remembered HEAD's blob digests.
fn published_with_cache() -> Scene {
    let mut s = built(60);
    commit_all(s.repo(), "publish 1");
    s.append(5);
    let o = s.build(1_790_100_000);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    commit_all(s.repo(), "publish 2");
    assert!(
        s.cache().is_some(),
        "the second build remembers HEAD's blobs"
    );
    s
}

#[test]
fn a_hand_edited_segment_at_head_is_refused_despite_the_blob_digest_cache() {
    // Edited in place (one digit of a count), committed: the snapshot no longer agrees.
    let mut s = published_with_cache();
    let p = s.site.join("ledger/segments/000001.jsonl");
    let t = std::fs::read_to_string(&p).unwrap();
    assert!(t.contains("\"flagged\":0"));
    std::fs::write(&p, t.replacen("\"flagged\":0", "\"flagged\":1", 1)).unwrap();
    commit_all(s.repo(), "a hand edit");
    s.append(3);
    let before = s.state();
    let o = s.build(1_790_200_000);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).contains("segments/000001.jsonl"), "{}", text(&o));
    assert_eq!(
        s.state(),
        before,
        "a refused build writes nothing, cache included"
    );
    // The dry run refuses alike, and leaves the site and the cache as they were.
    let (site, config) = (s.site.display().to_string(), s.b.config());
    let o = exhibit(
        &["build", "--config", &config, "--out", &site, "--dry-run"],
        1_790_200_000,
    );
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).contains("segments/000001.jsonl"), "{}", text(&o));
    assert_eq!(s.state(), before);

    // The same edit with SNAPSHOTS.jsonl resealed to match: HEAD's ledger is no longer what
    // the box's ledger extends, so it is a rewrite, refused naming the segment.
    reseal_snapshot(&s.site);
    commit_all(s.repo(), "a hand edit, resealed");
    let before = s.state();
    let o = s.build(1_790_200_000);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).contains("segments/000001.jsonl"), "{}", text(&o));
    assert_eq!(s.state(), before);
}

#[test]
fn a_segment_added_by_hand_or_a_gap_at_head_is_refused_naming_the_file() {
    let mut s = published_with_cache();
    let last = std::fs::read_dir(s.site.join("ledger/segments"))
        .unwrap()
        .count();
    let extra = format!("ledger/segments/{:06}.jsonl", last + 1);
    let copy = std::fs::read(s.site.join("ledger/segments/000001.jsonl")).unwrap();
    std::fs::write(s.site.join(&extra), &copy).unwrap();
    commit_all(s.repo(), "a segment by hand");
    s.append(2);
    let before = s.state();
    let o = s.build(1_790_200_000);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(
        text(&o).contains(&format!("{:06}.jsonl", last + 1)),
        "{}",
        text(&o)
    );
    assert_eq!(s.state(), before);

    // Put back, then a gap: segment 2 removed (and the snapshot resealed over the gap).
    std::fs::remove_file(s.site.join(&extra)).unwrap();
    std::fs::remove_file(s.site.join("ledger/segments/000002.jsonl")).unwrap();
    reseal_snapshot(&s.site);
    commit_all(s.repo(), "a gap, resealed");
    let before = s.state();
    let o = s.build(1_790_200_000);
    // The HEAD check refuses the gap before anything reads HEAD's ledger: a refusal naming the
    // file that stands where segment 2 must, the rule, and what to do (exit 1, not an error).
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let t = text(&o);
    assert!(t.contains("head_segments_out_of_order"), "{t}");
    assert!(t.contains("ledger/segments/000003.jsonl"), "{t}");
    assert!(t.contains("where ledger/segments/000002.jsonl must"), "{t}");
    assert_eq!(s.state(), before);
    // No flag accepts it: --allow-rewrite refuses alike and writes nothing.
    let o = exhibit(
        &[
            "build",
            "--config",
            &s.b.config(),
            "--out",
            s.site.to_str().unwrap(),
            "--allow-rewrite",
            "a gap",
        ],
        1_790_200_000,
    );
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(
        text(&o).contains("head_segments_out_of_order"),
        "{}",
        text(&o)
    );
    assert_eq!(s.state(), before);
}

/// `tree` with its entry `name` pointing at `id` (a folder).
fn with_folder(repo: &git2::Repository, tree: &git2::Tree, name: &str, id: git2::Oid) -> git2::Oid {
    let mut b = repo.treebuilder(Some(tree)).unwrap();
    b.insert(name, id, 0o040000).unwrap();
    b.write().unwrap()
}

#[test]
fn a_head_tree_written_out_of_gits_order_is_read_as_a_sorted_list() {
    // The HEAD check takes HEAD's files as git's walk gives them (docs/scale.md#memory), which
    // is their sorted order only for trees git wrote. Catches a walk fed to the snapshot's
    // running digests in a hand-written tree's order: HEAD would read as edited.
    let mut s = built(60);
    commit_all(s.repo(), "publish 1");
    commit_reversed_segments(s.repo());
    s.append(5);
    let o = s.build(1_790_100_000);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(!text(&o).contains("do not re-derive"), "{}", text(&o));
}

/// Commits HEAD again with `site/ledger/segments/` written by hand, its entries reversed.
fn commit_reversed_segments(repo: &git2::Repository) {
    let head = repo.head().unwrap().peel_to_commit().unwrap();
    let root = head.tree().unwrap();
    let folder = |path: &str| {
        root.get_path(Path::new(path))
            .unwrap()
            .to_object(repo)
            .unwrap()
            .peel_to_tree()
            .unwrap()
    };
    let (site, ledger, segments) = (
        folder("site"),
        folder("site/ledger"),
        folder("site/ledger/segments"),
    );
    assert!(segments.len() >= 2, "two segments at least");
    let mut raw = Vec::new();
    for e in segments.iter().collect::<Vec<_>>().into_iter().rev() {
        raw.extend_from_slice(format!("{:o} ", e.filemode()).as_bytes());
        raw.extend_from_slice(e.name_bytes());
        raw.push(0);
        raw.extend_from_slice(e.id().as_bytes());
    }
    let reversed = repo
        .odb()
        .unwrap()
        .write(git2::ObjectType::Tree, &raw)
        .unwrap();
    let ledger = with_folder(repo, &ledger, "segments", reversed);
    let site = with_folder(repo, &site, "ledger", ledger);
    let root = repo
        .find_tree(with_folder(repo, &root, "site", site))
        .unwrap();
    let sig =
        git2::Signature::new("t", "t@example.invalid", &git2::Time::new(1_790_000_100, 0)).unwrap();
    repo.commit(Some("HEAD"), &sig, &sig, "by hand", &root, &[&head])
        .unwrap();
}

/// The names in the git folder's `exhibit/` (the caches and anything left beside them).
fn cache_folder(s: &Scene) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(s.repo().path().join("exhibit"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn a_build_refused_after_the_head_check_leaves_the_blob_digest_cache_as_it_was() {
    // HEAD (publish 2) holds blobs the cache does not: the refused build's HEAD check hashes
    // them, and writes what it found beside the cache before the later stages run. Catches
    // that file put in place by a build that then refuses (the next build would trust digests
    // of a HEAD no build wrote over), or left behind in the git folder.
    let mut s = published_with_cache();
    s.append(5);
    let ts = exhibit::published::encode::timestamp_of(1_792_846_800 + 70 * 60);
    s.w.push("not_a_kind_the_gate_writes", &ts, "{}");
    s.b.write_ledger(&s.w.bytes());
    let (before, names) = (s.state(), cache_folder(&s));
    let o = s.build(1_790_200_000);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).contains("unknown_kind"), "{}", text(&o));
    assert_eq!(s.state(), before);
    assert_eq!(cache_folder(&s), names);
    // Built once the line is gone, the cache takes HEAD's new blobs and nothing is left over.
    s.w.lines.pop();
    s.w.ids.pop();
    s.b.write_ledger(&s.w.bytes());
    let o = s.build(1_790_200_000);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert_ne!(s.cache(), before.1);
    assert_eq!(cache_folder(&s), names);
}

#[test]
fn a_dry_run_over_segments_leaves_the_site_and_the_cache_byte_identical() {
    let mut s = published_with_cache();
    s.append(40);
    let before = s.state();
    let site = s.site.display().to_string();
    let config = s.b.config();
    let o = exhibit(
        &["build", "--config", &config, "--out", &site, "--dry-run"],
        1_790_200_000,
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert_eq!(s.state(), before);
}

#[test]
fn a_witness_part_listed_twice_or_empty_is_a_problem() {
    let s = built(60);
    let part = |d: &Path, parts: Value, body: &str| {
        let w = d.join("ledger/witness");
        std::fs::create_dir_all(w.join("index")).unwrap();
        std::fs::write(w.join("index/000001.json"), body).unwrap();
        std::fs::write(
            w.join("index.json"),
            serde_json::to_vec(&json!({ "parts": parts })).unwrap(),
        )
        .unwrap();
    };
    let body = "{\"entries\":{}}";
    let sha = exhibit_protocol::Digest::of(body.as_bytes()).to_string();
    let one = json!({"path": "ledger/witness/index/000001.json", "first_seq": 1,
                     "last_seq": 10000, "entries": 0, "sha256": sha});
    let (code, v, all) = s.damaged(|d| part(d, json!([one, one]), body));
    assert_eq!(code, Some(1), "{all}");
    assert!(
        file_problems(&v)
            .iter()
            .any(|(f, c)| f.starts_with("ledger/witness/index") && c == "witness_parts_invalid"),
        "a part listed twice: {v}"
    );
    // Listed once, with no entries: only a block that holds an entry is a part.
    let (code, v, all) = s.damaged(|d| part(d, json!([one]), body));
    assert_eq!(code, Some(1), "{all}");
    assert_file_problem(
        &v,
        "ledger/witness/index/000001.json",
        "witness_parts_invalid",
    );
}

/// Held already (verify escapes what it prints); kept so a later printer cannot regress it.
#[test]
fn a_stray_name_with_terminal_control_bytes_is_shown_escaped() {
    let s = built(60);
    let copy = s.tmp.path().join("copy-esc");
    copy_site(&s.site, &copy);
    std::fs::write(
        copy.join("ledger/segments/\u{1b}]0;pwned\u{7}\u{1b}[2J.jsonl"),
        "x\n",
    )
    .unwrap();
    let o = exhibit(&["verify", &copy.display().to_string()], 0);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("segment_stray"), "{out}");
    assert!(
        !out.contains('\u{1b}') && !out.contains('\u{7}'),
        "raw control bytes reach the terminal: {out:?}"
    );
}
