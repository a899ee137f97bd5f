//! Issue 43, state carried between builds (docs/scale.md#carried-verdicts): the guard's
//! verdicts on the chain's lines, on the run log and on the released texts are remembered in
//! the git folder, so that a daily build judges what the day added. These tests hold the
//! promise that makes that safe: a build that carries them publishes byte for byte what a
//! build that judges everything again publishes, and nothing carried hides what the guard
//! would find today.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::common::*;

/// The demo box copied, its ledger cut to the first `lines` lines (and the anchor posts of the
/// days those lines close), and a repository for DIR.
struct Scene {
    _tmp: tempfile::TempDir,
    demo: PathBuf,
    boxdir: PathBuf,
    work: PathBuf,
    repo: git2::Repository,
}

const STATES: [&str; 3] = [
    "exhibit/line-verdicts",
    "exhibit/runs-guarded",
    "exhibit/texts-guarded",
];

fn scene() -> Scene {
    let tmp = tempfile::tempdir().unwrap();
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("site-fixtures/demo");
    let boxdir = tmp.path().join("box");
    copy_tree(&demo, &boxdir);
    let work = tmp.path().join("exhibit");
    let repo = git2::Repository::init(&work).unwrap();
    Scene {
        _tmp: tmp,
        demo,
        boxdir,
        work,
        repo,
    }
}

impl Scene {
    /// The box as a day sees it: the ledger's first `lines` lines and the posts of the days
    /// before the last line's.
    fn day(&self, lines: usize) {
        let all = std::fs::read_to_string(self.demo.join("gate/ledger.jsonl")).unwrap();
        let kept: Vec<&str> = all.lines().take(lines).collect();
        std::fs::write(
            self.boxdir.join("gate/ledger.jsonl"),
            format!("{}\n", kept.join("\n")),
        )
        .unwrap();
        let last = kept.last().unwrap();
        let day = &last[last.find("\"day\":\"").unwrap() + 7..][..10];
        let anchors = self.boxdir.join("gate/anchors");
        for e in std::fs::read_dir(self.demo.join("gate/anchors")).unwrap() {
            let name = e.unwrap().file_name().into_string().unwrap();
            let here = anchors.join(&name);
            if name[..10] < *day {
                std::fs::copy(self.demo.join("gate/anchors").join(&name), &here).unwrap();
            } else if here.exists() {
                std::fs::remove_file(&here).unwrap();
            }
        }
    }

    fn build_in(&self, site: &str) -> Output {
        Command::new(env!("CARGO_BIN_EXE_exhibit"))
            .args(["build", "--public-texts", "--config"])
            .arg(self.boxdir.join("exhibit.toml"))
            .arg("--out")
            .arg(self.work.join(site))
            .env("SOURCE_DATE_EPOCH", "1800000000")
            .env("EXHIBIT_STAGE_TIMES", "1")
            .env_remove("CI")
            .output()
            .unwrap()
    }

    fn build_ok(&self) -> String {
        let o = self.build_in("site");
        assert_eq!(o.status.code(), Some(0), "{}", text(&o));
        text(&o)
    }

    /// DIR as HEAD holds it, nothing else in it (the next build starts from the commit).
    fn restore_head_site(&self) {
        for remove in [false, true] {
            if remove {
                let _ = std::fs::remove_dir_all(self.work.join("site"));
            }
            let mut force = git2::build::CheckoutBuilder::new();
            self.repo.checkout_head(Some(force.force())).unwrap();
        }
    }

    fn forget_states(&self) {
        for f in STATES {
            let _ = std::fs::remove_file(self.work.join(".git").join(f));
        }
    }
}

/// The number a stage-times line `exhibit: carried: <n> …<what>…` says.
fn carried(out: &str, what: &str) -> u64 {
    out.lines()
        .find(|l| l.starts_with("exhibit: carried: ") && l.contains(what))
        .and_then(|l| l["exhibit: carried: ".len()..].split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no carried line for {what:?} in:\n{out}"))
}

/// Two builds' DIRs hold the same files, byte for byte.
fn assert_same_site(a: &BTreeMap<String, Vec<u8>>, b: &BTreeMap<String, Vec<u8>>) {
    assert_eq!(a.keys().collect::<Vec<_>>(), b.keys().collect::<Vec<_>>());
    for (path, bytes) in b {
        assert!(a[path] == *bytes, "{path} differs");
    }
}

fn tree(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    snapshot_dir(dir)
}

/// A daily build that carries the guard's verdicts publishes exactly what one that judges
/// every line, run log line and text again publishes. Catches a carried state that changes a
/// published byte (a verdict taken for the wrong seq, a text taken as clean that is not).
#[test]
fn a_build_that_carries_the_guards_verdicts_publishes_what_judging_everything_publishes() {
    let s = scene();
    s.day(300);
    let first = s.build_ok();
    assert_eq!(carried(&first, "line verdicts"), 0, "{first}");
    commit_site(&s.repo);
    for f in STATES {
        assert!(s.work.join(".git").join(f).is_file(), "{f} not saved");
    }
    s.day(401);
    let daily = s.build_ok();
    // Every line the first build judged "publish" is carried: 299 lines less the withheld.
    let lines = carried(&daily, "line verdicts");
    assert!(lines > 250 && lines < 300, "{daily}");
    // (The run log's carried part is taken only when the day's withheld lines cut no moment
    // in it: here they do, and the whole log is scanned; a nothing-new rebuild carries it,
    // below.)
    let with_carried = tree(&s.work.join("site"));

    // The same day, judged from nothing: the states forgotten, HEAD's publication restored.
    s.restore_head_site();
    s.forget_states();
    let again = s.build_ok();
    assert_eq!(carried(&again, "line verdicts"), 0, "{again}");
    assert_eq!(carried(&again, "run log"), 0, "{again}");
    assert_same_site(&with_carried, &tree(&s.work.join("site")));
}

/// The per-line records are let go before the tree is made, with both layers, on a first
/// build and on a daily one: at a million lines they are 73 MB that stood on the tree's and the
/// excerpt index's peaks (docs/scale.md#the-chain-read-by-the-tree). Caught: a layer, a list
/// or a carried state that keeps the lines (the build then says they were kept), and the
/// lines let go only after the tree.
#[test]
fn the_per_line_records_are_let_go_before_the_tree_is_made() {
    let s = scene();
    s.day(300);
    for day in [300, 401] {
        s.day(day);
        let out = s.build_ok();
        let at = |mark: &str| out.find(mark).unwrap_or_else(|| panic!("{mark}: {out}"));
        assert!(out.contains("stage witness:"), "both layers: {out}");
        assert!(
            at("stage the lines let go") < at("stage assemble: the tree:"),
            "{out}"
        );
        assert!(!out.contains("the lines kept"), "{out}");
        commit_site(&s.repo);
    }
}

/// The run log's carried verdict covers the bytes it guarded, not a length: a line inside the
/// guarded part rewritten to carry an e-mail address is found and refused. Catches a state
/// keyed by length alone.
#[test]
fn a_run_log_line_rewritten_inside_what_was_guarded_is_guarded_again() {
    let s = scene();
    s.day(401);
    s.build_ok();
    commit_site(&s.repo);
    let runs = s.boxdir.join("wt/store/runs.jsonl");
    let log = std::fs::read_to_string(&runs).unwrap();
    // A line the previous build guarded now carries an address in place of its run's moment,
    // of the same length: the log's length, and every line's, is what it was.
    let second = log.lines().nth(1).unwrap();
    let at = second.find("\"run_at\":\"").unwrap() + 10;
    let moment = &second[at..at + 20];
    let edited = second.replacen(moment, "aaaaaaaaa@bbbbbb.com", 1);
    assert_eq!(edited.len(), second.len());
    std::fs::write(&runs, log.replacen(second, &edited, 1)).unwrap();
    let o = s.build_in("site");
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).contains("witness_log_identifier"), "{}", text(&o));
}

/// The line verdicts are the registry's: another `[fields]` table in exhibit.toml judges every
/// line again. Catches a state whose scope leaves out the rules it was judged by.
#[test]
fn another_field_registry_judges_every_line_again() {
    let s = scene();
    s.day(401);
    s.build_ok();
    commit_site(&s.repo);
    let again = s.build_ok();
    assert!(carried(&again, "line verdicts") > 300, "{again}");
    assert!(carried(&again, "run log") > 1000, "{again}");
    let toml = s.boxdir.join("exhibit.toml");
    let config = std::fs::read_to_string(&toml).unwrap();
    std::fs::write(
        &toml,
        format!("{config}\n[fields.carried_test_kind]\nnote = \"text\"\n"),
    )
    .unwrap();
    let other = s.build_ok();
    assert_eq!(carried(&other, "line verdicts"), 0, "{other}");
}

/// A segmented exhibit's witness index parts are known from what they were made of
/// (docs/scale.md#parts-carried): a daily build that takes the last build's size and sha256 of
/// the parts whose inputs did not change publishes exactly what a build that makes every part
/// again publishes. Catches a carried part that stands for other bytes (an input the
/// fingerprint leaves out, a part taken for another path) and one never carried.
#[test]
fn a_build_that_carries_the_witness_parts_publishes_what_making_every_part_publishes() {
    let s = scene();
    let config = s.boxdir.join("exhibit.toml");
    let toml = std::fs::read_to_string(&config).unwrap();
    std::fs::write(
        &config,
        toml.replace(
            "[publish]\n",
            "[publish]\nsegment_bytes = 8192\nwitness_part_seqs = 40\n",
        ),
    )
    .unwrap();
    s.day(300);
    s.build_ok();
    commit_site(&s.repo);
    let parts_state = s.work.join(".git/exhibit/index-parts");
    assert!(parts_state.is_file(), "the parts' state was not saved");
    s.day(401);
    let daily = s.build_ok();
    // The parts of the first 300 lines' seqs, but the last one the day fills, are known.
    assert!(carried(&daily, "witness index parts") >= 5, "{daily}");
    let with_carried = tree(&s.work.join("site"));
    let parts: Vec<&String> = with_carried
        .keys()
        .filter(|p| p.starts_with("ledger/witness/index/"))
        .collect();
    assert!(parts.len() > 3, "{parts:?}");

    s.restore_head_site();
    std::fs::remove_file(&parts_state).unwrap();
    let again = s.build_ok();
    assert_eq!(carried(&again, "witness index parts"), 0, "{again}");
    assert_same_site(&with_carried, &tree(&s.work.join("site")));
}
