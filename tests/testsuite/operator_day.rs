//! The operator's day, second pass (issue 47): a build that cannot be pointed at the wrong
//! folder, sticky settings in exhibit.toml, a review a person can approve, a local preview
//! (docs/operator.md).

use crate::common;

use std::path::Path;
use std::process::{Command, Output};

use common::*;

/// Runs exhibit in `dir`.
fn exhibit_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_exhibit"))
        .args(args)
        .current_dir(dir)
        .env("SOURCE_DATE_EPOCH", "1790000000")
        .env_remove("CI")
        .output()
        .expect("run exhibit")
}

fn ten_lines(b: &TestBox) -> LedgerWriter {
    let mut w = LedgerWriter::new();
    for n in 1..=10 {
        w.push_scan(n);
    }
    b.write_ledger(&w.bytes());
    w
}

fn json_of(o: &Output) -> serde_json::Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(o)))
}

// ---------------------------------------------------------------------------------------------
// 2. a build that cannot be pointed wrong

/// `[publish] out` is relative to exhibit.toml, wherever the build runs from. Catches an `out`
/// read relative to the current folder, or no `out` key at all (refused as unknown today).
#[test]
fn the_out_key_is_relative_to_the_file_not_the_current_folder() {
    let tmp = tempfile::tempdir().unwrap();
    let b = TestBox::new(tmp.path());
    ten_lines(&b);
    let config = b.dir.join("exhibit.toml");
    let mut toml = std::fs::read_to_string(&config).unwrap();
    toml.push_str("\n[publish]\nout = \"../exhibit/docs\"\n");
    std::fs::write(&config, toml).unwrap();
    std::fs::create_dir_all(tmp.path().join("exhibit")).unwrap();
    let elsewhere = tmp.path().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let o = exhibit_in(&elsewhere, &["build", "--config", &b.config()]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(tmp.path().join("exhibit/docs/index.html").is_file());
    assert!(!elsewhere.join("exhibit").exists() && !elsewhere.join("docs").exists());
    // Neither --out nor the key: a usage error naming both.
    std::fs::write(
        &config,
        "[gate]\nledger = \"gate/ledger.jsonl\"\nanchors = \"gate/anchors\"\n",
    )
    .unwrap();
    let o = exhibit_in(&elsewhere, &["build", "--config", &b.config()]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("--out") && err.contains("[publish] out"), "{err}");
}

/// A mistyped `--out` whose parent is missing is refused and nothing is created. Catches a
/// `create_dir_all` of DIR's parents.
#[test]
fn a_missing_parent_folder_of_out_is_refused_and_nothing_created() {
    let tmp = tempfile::tempdir().unwrap();
    let b = TestBox::new(tmp.path());
    ten_lines(&b);
    let out = tmp.path().join("nonexistent/x/docs");
    let o = exhibit(
        &["build", "--config", &b.config(), "--out", out.to_str().unwrap()],
        1_790_000_000,
    );
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("parent folder"),
        "{}",
        text(&o)
    );
    assert!(!tmp.path().join("nonexistent").exists());
}

/// Outside any git repository a build claims no history: a second build over the same folder
/// says it is a first publication, never "extends the last". Catches the claim made from the
/// snapshot's `extends` alone.
#[test]
fn outside_git_a_build_claims_no_history() {
    let tmp = tempfile::tempdir().unwrap();
    let b = TestBox::new(tmp.path());
    ten_lines(&b);
    let out = tmp.path().join("site").display().to_string();
    for round in 0..2 {
        let o = exhibit(
            &["build", "--config", &b.config(), "--out", &out],
            1_790_000_000 + round,
        );
        assert_eq!(o.status.code(), Some(0), "{}", text(&o));
        let said = String::from_utf8_lossy(&o.stdout);
        assert!(!said.contains("extends the last"), "{said}");
        assert!(
            said.contains("FIRST PUBLICATION, outside any git repository"),
            "{said}"
        );
    }
    let o = exhibit(
        &["build", "--json", "--config", &b.config(), "--out", &out],
        1_790_000_002,
    );
    let v = json_of(&o);
    assert_eq!((&v["first_publication"], &v["in_git"]), (&true.into(), &false.into()));
}

/// A box published into `exhibit/site` and committed, then built into another folder of the same
/// repository (run from the wrong folder) is refused, dry run included, until
/// `--first-publication`; and the same folder emptied (a lost branch) is refused too. Catches a
/// first publication planned without a word.
#[test]
fn a_first_publication_where_this_repository_has_one_is_refused_without_the_flag() {
    let tmp = tempfile::tempdir().unwrap();
    let b = TestBox::new(tmp.path());
    ten_lines(&b);
    let repo = git2::Repository::init(tmp.path().join("exhibit")).unwrap();
    let site = tmp.path().join("exhibit/site").display().to_string();
    let o = exhibit(&["build", "--config", &b.config(), "--out", &site], 1_790_000_000);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("FIRST PUBLICATION"));
    commit_all(&repo, "first publication");
    let wrong = tmp.path().join("exhibit/site/site").display().to_string();
    let wrong2 = tmp.path().join("exhibit/docs").display().to_string();
    let config = b.config();
    for out in [&wrong, &wrong2] {
        for extra in [&[][..], &["--dry-run"][..], &["--json"][..]] {
            let mut args = vec!["build", "--config", &config, "--out", out];
            args.extend(extra);
            let o = exhibit(&args, 1_790_100_000);
            assert_eq!(o.status.code(), Some(1), "{extra:?} {}", text(&o));
            let err = String::from_utf8_lossy(&o.stderr);
            assert!(
                err.contains("first_publication_over_record") && err.contains("--first-publication"),
                "{err}"
            );
            if extra == ["--json"] {
                assert_eq!(json_of(&o)["refusals"][0]["code"], "first_publication_over_record");
            }
        }
    }
    assert!(!Path::new(&wrong2).exists(), "a refused build writes nothing");
    let o = exhibit(
        &["build", "--config", &b.config(), "--out", &wrong2, "--first-publication"],
        1_790_100_000,
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    // The published folder itself, emptied while HEAD no longer holds it.
    std::fs::remove_dir_all(&site).unwrap();
    commit_all(&repo, "the exhibit removed");
    let o = exhibit(&["build", "--config", &b.config(), "--out", &site], 1_790_200_000);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(String::from_utf8_lossy(&o.stderr).contains("HEAD holds none in it now"));
    // Building the same folder again before committing stays allowed (DIR holds the exhibit).
    let fresh = tmp.path().join("exhibit2");
    let repo2 = git2::Repository::init(&fresh).unwrap();
    let site2 = fresh.join("site").display().to_string();
    for round in 0..2 {
        let o = exhibit(&["build", "--config", &b.config(), "--out", &site2], 1_790_000_000 + round);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    }
    let _ = repo2;
}
