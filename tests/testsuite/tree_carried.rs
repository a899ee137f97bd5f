//! The tree's files carried between builds (docs/tree.md#carried): a daily build names the full
//! tiles, `lines/` groups and index runs the last build made instead of making them again. The
//! promise that makes it safe: what a build that carries them publishes is byte for byte what a
//! build that makes every file again publishes — also when a line the last build withheld is
//! published now, or a state that lies is found in the git folder.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::common::*;

const STATE: &str = "exhibit/tree-files";

struct Scene {
    _tmp: tempfile::TempDir,
    boxdir: PathBuf,
    work: PathBuf,
    repo: git2::Repository,
}

/// A generated box of `lines` lines with public texts, and a repository for DIR.
fn scene(lines: u64) -> Scene {
    use exhibit_testkit::gen_box::{self, BoxOptions};
    let tmp = tempfile::tempdir().unwrap();
    let boxdir = tmp.path().join("box");
    gen_box::generate(
        &BoxOptions {
            lines,
            seed: 11,
            witness: false,
            ..BoxOptions::default()
        },
        &boxdir,
    )
    .unwrap();
    let work = tmp.path().join("exhibit");
    let repo = git2::Repository::init(&work).unwrap();
    Scene {
        _tmp: tmp,
        boxdir,
        work,
        repo,
    }
}

impl Scene {
    /// The box as day `lines` sees it: the ledger's header and first `lines` lines, and the
    /// posts of the days before the last line's, under `day-<lines>/`; returns its config.
    fn day(&self, lines: usize) -> PathBuf {
        let all = std::fs::read_to_string(self.boxdir.join("gate/ledger.jsonl")).unwrap();
        let kept: Vec<&str> = all.lines().take(lines + 1).collect();
        let folder = self.boxdir.join(format!("day-{lines}"));
        std::fs::create_dir_all(folder.join("anchors")).unwrap();
        std::fs::write(
            folder.join("ledger.jsonl"),
            format!("{}\n", kept.join("\n")),
        )
        .unwrap();
        let last = kept.last().unwrap();
        let day = &last[last.find("\"day\":\"").unwrap() + 7..][..10];
        for e in std::fs::read_dir(self.boxdir.join("gate/anchors")).unwrap() {
            let name = e.unwrap().file_name().into_string().unwrap();
            if name[..10] < *day {
                std::fs::copy(
                    self.boxdir.join("gate/anchors").join(&name),
                    folder.join("anchors").join(&name),
                )
                .unwrap();
            }
        }
        let toml = format!(
            "[gate]\nledger = \"day-{lines}/ledger.jsonl\"\nconfig = \"gate/config.json\"\nsources = \"gate/sources\"\nanchors = \"day-{lines}/anchors\"\n\n[publish]\npublic_texts = true\n"
        );
        let config = self.boxdir.join(format!("day-{lines}.toml"));
        std::fs::write(&config, toml).unwrap();
        config
    }

    fn build(&self, config: &Path, extra: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_exhibit"))
            .arg("build")
            .args(extra)
            .arg("--config")
            .arg(config)
            .arg("--out")
            .arg(self.work.join("site"))
            .env("SOURCE_DATE_EPOCH", "1800000000")
            .env("EXHIBIT_STAGE_TIMES", "1")
            .env_remove("CI")
            .output()
            .unwrap()
    }

    fn build_ok(&self, config: &Path, extra: &[&str]) -> String {
        let o = self.build(config, extra);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o));
        text(&o)
    }

    fn state(&self) -> PathBuf {
        self.work.join(".git").join(STATE)
    }

    /// DIR as HEAD has it, and nothing the last build carried.
    fn back_to_head(&self) {
        let _ = std::fs::remove_dir_all(self.work.join("site"));
        self.repo
            .checkout_head(Some(git2::build::CheckoutBuilder::new().force()))
            .unwrap();
        let _ = std::fs::remove_file(self.state());
    }

    fn site(&self) -> BTreeMap<String, Vec<u8>> {
        snapshot_dir(&self.work.join("site"))
    }
}

/// The figures of the stage-times line that says what the tree carried.
fn tree_carried(out: &str) -> Vec<u64> {
    let line = out
        .lines()
        .find(|l| l.starts_with("exhibit: carried: ") && l.contains("index runs of the tree"))
        .unwrap_or_else(|| panic!("no carried line for the tree in:\n{out}"));
    line.split(' ').filter_map(|w| w.parse().ok()).collect()
}

/// The withheld seqs a build's published withheld list names.
fn withheld_seqs(site: &Path) -> Vec<u64> {
    let list: serde_json::Value =
        serde_json::from_slice(&std::fs::read(site.join("ledger/withheld.json")).unwrap()).unwrap();
    list.as_array()
        .unwrap()
        .iter()
        .filter_map(|v| v["seq"].as_u64())
        .collect()
}

/// Catches a carried file taken for the wrong size (a run or tile of the day named by the last
/// build's digest), a run or `lines/` group named though a line in it is published now that was
/// withheld then, and a state saved before DIR is written or not at all.
#[test]
fn a_build_that_carries_the_trees_files_publishes_what_making_them_again_publishes() {
    let s = scene(4600);
    let first = s.day(3000);
    s.build_ok(&first, &[]);
    assert!(s.state().is_file(), "{STATE} not saved");
    commit_site(&s.repo);
    let withheld = withheld_seqs(&s.work.join("site"));
    let old = *withheld
        .iter()
        .find(|&&q| q > 1100 && q < 2000)
        .unwrap_or_else(|| panic!("no withheld seq in 1100..2000: {withheld:?}"));

    // A day across two index blocks and several tiles.
    let next = s.day(4300);
    let daily = s.build_ok(&next, &[]);
    let figures = tree_carried(&daily);
    // 11 full tiles of 3000 lines, 11 groups, 2 index runs of level 0.
    assert_eq!(figures, [11, 11, 2], "{daily}");
    let with_carried = s.site();
    // And it verifies: `exhibit verify SITE` files each text's excerpt rows under the first
    // published send line it finds itself, not the one the build took from the public texts
    // layer.
    let (code, v) = verify_json(&s.work.join("site"));
    assert_eq!(code, Some(0), "{v}");
    s.back_to_head();
    s.build_ok(&next, &[]);
    assert_eq!(
        s.site(),
        with_carried,
        "the carried build differs from a clean one"
    );

    // The same day, publishing a line the last build withheld: its group and its index run are
    // made again, the others named.
    let seq = old.to_string();
    let rewrite = [
        "--allow-rewrite",
        "a person read it",
        "--allow-line",
        seq.as_str(),
    ];
    s.back_to_head();
    s.build_ok(&first, &[]);
    let o = s.build(&next, &rewrite);
    let released = text(&o);
    if o.status.code() == Some(0) {
        let figures = tree_carried(&released);
        assert_eq!(figures, [11, 10, 1], "{released}");
        let with_carried = s.site();
        assert!(!withheld_seqs(&s.work.join("site")).contains(&old));
        s.back_to_head();
        s.build_ok(&next, &rewrite);
        assert_eq!(
            s.site(),
            with_carried,
            "a line published now: the carried build differs from a clean one"
        );
    } else {
        panic!("--allow-line {old} was refused: {released}");
    }
}

/// A state whose checksum holds but whose digests are not the files' (a state written by a
/// fault, or by hand): the build fails when it must write the file, naming it; it never
/// publishes the file's old bytes under the new chain, nor wrong bytes.
#[test]
fn a_state_that_names_a_wrong_digest_fails_the_build_and_publishes_nothing_wrong() {
    let s = scene(1400);
    let first = s.day(1100);
    s.build_ok(&first, &[]);
    commit_site(&s.repo);
    let before = s.site();
    // The first tile's sha256 in the state (after the size, head, withheld and upper lists),
    // changed, and the state's checksum made again.
    let mut bytes = std::fs::read(s.state()).unwrap();
    let body_end = bytes.len() - 32;
    let magic = b"exhibit-treefiles\n".len();
    let scope = u32::from_le_bytes(bytes[magic..magic + 4].try_into().unwrap()) as usize;
    let body = magic + 4 + scope;
    let u = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap()) as usize;
    let withheld = u(body + 40);
    let upper_at = body + 48 + 8 * withheld;
    let tiles_at = upper_at + 8 + 32 * u(upper_at) + 8;
    bytes[tiles_at] ^= 1;
    let sum = exhibit_protocol::Digest::of(&bytes[..body_end]);
    bytes[body_end..].copy_from_slice(&sum.0);
    std::fs::write(s.state(), &bytes).unwrap();
    // DIR's first tile is gone, so the build must write it: the state's digest is not the
    // bytes made again.
    std::fs::remove_file(s.work.join("site/ledger/tree/tile/0/000")).unwrap();
    let next = s.day(1300);
    let o = s.build(&next, &[]);
    assert_ne!(o.status.code(), Some(0), "{}", text(&o));
    // DIR is the old publication, plus at most files nothing refers to yet (docs/build.md).
    let after = s.site();
    for (path, bytes) in &before {
        if path != "ledger/tree/tile/0/000" {
            assert!(
                after.get(path) == Some(bytes),
                "a failed build changed {path}"
            );
        }
    }
    // The refusal names the file and what to do about the state.
    let said = text(&o);
    assert!(said.contains("ledger/tree/tile/0/.000"), "{said}");
    assert!(said.contains("docs/tree.md#carried"), "{said}");
}
