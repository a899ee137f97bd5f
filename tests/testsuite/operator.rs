//! The operator's day from the outside (issue 14): `exhibit init`, the GitHub Pages workflow and
//! the README's Pages steps run end to end against a local bare remote, shell completions, the
//! man page, and `--help` that stands on its own.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::*;

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_exhibit")
}

/// Runs exhibit in `dir`.
fn exhibit_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(bin())
        .args(args)
        .current_dir(dir)
        .env("SOURCE_DATE_EPOCH", "1790000000")
        .env_remove("CI")
        .output()
        .expect("run exhibit")
}

fn repo_file(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

// ---------------------------------------------------------------------------------------------
// init

#[test]
fn init_writes_a_commented_config_and_never_overwrites() {
    let tmp = tempfile::tempdir().unwrap();
    let o = exhibit_in(tmp.path(), &["init"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let config = std::fs::read_to_string(tmp.path().join("exhibit.toml")).unwrap();
    // Every key, commented with what it means and its default.
    for key in [
        "ledger =",
        "# config =",
        "# sources =",
        "# anchors =",
        "# witness =",
        "public_texts = false",
        "# [fields.send]",
    ] {
        assert!(config.contains(key), "{key} missing from:\n{config}");
    }
    assert!(config.matches("Default:").count() >= 6, "{config}");
    assert!(
        !tmp.path().join(".github").exists(),
        "no workflow without --pages"
    );
    assert!(String::from_utf8_lossy(&o.stdout).contains("exhibit.toml"));

    // The second time: refused, exit 2, the operator's edits kept byte for byte.
    let edited = config.replace("gate/ledger.jsonl", "/home/op/gate/ledger.jsonl");
    std::fs::write(tmp.path().join("exhibit.toml"), &edited).unwrap();
    let o = exhibit_in(tmp.path(), &["init"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("exhibit.toml exists"),
        "{}",
        text(&o)
    );
    assert_eq!(
        std::fs::read_to_string(tmp.path().join("exhibit.toml")).unwrap(),
        edited
    );

    // --pages where exhibit.toml exists (issue 47): the file is kept as it is, and only the
    // workflow is added; `docs/` is the folder `docs`, and a command to paste is quoted.
    let o = exhibit_in(tmp.path(), &["init", "--pages", "--out", "my docs/"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert_eq!(
        std::fs::read_to_string(tmp.path().join("exhibit.toml")).unwrap(),
        edited
    );
    let wf =
        std::fs::read_to_string(tmp.path().join(".github/workflows/exhibit-pages.yml")).unwrap();
    assert!(
        wf.contains(r#"paths: ["my docs/**"]"#) && !wf.contains("//"),
        "{wf}"
    );
    let said = String::from_utf8_lossy(&o.stdout);
    assert!(
        said.contains("exhibit build --out 'my docs' --dry-run"),
        "{said}"
    );
    // Again: the workflow exists now, so nothing is written.
    let o = exhibit_in(tmp.path(), &["init", "--pages"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));

    // A workflow already there is not overwritten either, and no exhibit.toml is written.
    let other = tempfile::tempdir().unwrap();
    let wf = other.path().join(".github/workflows/exhibit-pages.yml");
    std::fs::create_dir_all(wf.parent().unwrap()).unwrap();
    std::fs::write(&wf, "mine\n").unwrap();
    let o = exhibit_in(other.path(), &["init", "--pages"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert_eq!(std::fs::read_to_string(&wf).unwrap(), "mine\n");
    assert!(!other.path().join("exhibit.toml").exists());
}

/// `init --pages` never writes through a link on the way to the workflow (issue 48, class 13):
/// `.github` or `.github/workflows` pointing elsewhere, or a file where a folder should be, is
/// refused and nothing is written, neither the workflow nor `exhibit.toml`.
#[test]
fn init_never_writes_through_a_linked_folder() {
    for case in ["github", "workflows", "file"] {
        let tmp = tempfile::tempdir().unwrap();
        let elsewhere = tempfile::tempdir().unwrap();
        match case {
            "github" => {
                std::os::unix::fs::symlink(elsewhere.path(), tmp.path().join(".github")).unwrap()
            }
            "workflows" => {
                std::fs::create_dir(tmp.path().join(".github")).unwrap();
                std::os::unix::fs::symlink(elsewhere.path(), tmp.path().join(".github/workflows"))
                    .unwrap();
            }
            _ => std::fs::write(tmp.path().join(".github"), "x").unwrap(),
        }
        let o = exhibit_in(tmp.path(), &["init", "--pages"]);
        assert_eq!(o.status.code(), Some(2), "{case}: {}", text(&o));
        assert!(
            String::from_utf8_lossy(&o.stderr).contains("is a link or not a folder"),
            "{case}: {}",
            text(&o)
        );
        assert_eq!(
            std::fs::read_dir(elsewhere.path()).unwrap().count(),
            0,
            "{case}: nothing written elsewhere"
        );
        assert!(!tmp.path().join("exhibit.toml").exists(), "{case}");
    }
}

#[test]
fn init_quiet_prints_nothing_and_bad_folders_are_usage_errors() {
    let tmp = tempfile::tempdir().unwrap();
    let o = exhibit_in(tmp.path(), &["init", "--quiet", "--pages"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(o.stdout.is_empty() && o.stderr.is_empty(), "{}", text(&o));
    assert!(
        tmp.path()
            .join(".github/workflows/exhibit-pages.yml")
            .is_file()
    );
    for bad in ["/srv/site", "../site", "", "a\"b"] {
        let fresh = tempfile::tempdir().unwrap();
        let o = exhibit_in(fresh.path(), &["init", "--pages", "--out", bad]);
        assert_eq!(o.status.code(), Some(2), "--out {bad:?}: {}", text(&o));
        assert!(std::fs::read_dir(fresh.path()).unwrap().next().is_none());
    }
}

// ---------------------------------------------------------------------------------------------
// the workflow

fn workflow_of(dir: &Path) -> serde_json::Value {
    let text =
        std::fs::read_to_string(dir.join(".github/workflows/exhibit-pages.yml")).expect("workflow");
    serde_yaml_ng::from_str(&text).expect("the workflow is YAML")
}

/// The workflow as GitHub would read it: triggers, the Pages permissions, the github-pages
/// environment, and exactly the three deploy steps, none of which runs a command.
#[test]
fn the_pages_workflow_is_yaml_that_deploys_the_committed_folder_only() {
    let tmp = tempfile::tempdir().unwrap();
    let o = exhibit_in(
        tmp.path(),
        &[
            "init",
            "--pages",
            "--out",
            "public/exhibit",
            "--branch",
            "pub",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let w = workflow_of(tmp.path());
    // `on` is a string key (a YAML 1.1 reader would make it `true`; GitHub reads it as "on").
    let on = &w["on"];
    assert_eq!(on["push"]["branches"], serde_json::json!(["pub"]));
    assert_eq!(
        on["push"]["paths"],
        serde_json::json!(["public/exhibit/**"])
    );
    assert!(on.get("workflow_dispatch").is_some(), "{on}");
    assert_eq!(
        w["permissions"],
        serde_json::json!({"contents": "read", "pages": "write", "id-token": "write"})
    );
    let jobs = w["jobs"].as_object().unwrap();
    assert_eq!(jobs.len(), 1, "one job: deploy");
    let job = &jobs["deploy"];
    assert_eq!(job["environment"]["name"], "github-pages");
    assert_eq!(
        job["environment"]["url"],
        "${{ steps.deployment.outputs.page_url }}"
    );
    let steps = job["steps"].as_array().unwrap();
    let uses: Vec<&str> = steps
        .iter()
        .map(|s| s["uses"].as_str().expect("every step uses an action"))
        .collect();
    let actions: Vec<&str> = uses.iter().map(|u| u.split('@').next().unwrap()).collect();
    assert_eq!(
        actions,
        [
            "actions/checkout",
            "actions/upload-pages-artifact",
            "actions/deploy-pages"
        ]
    );
    for u in &uses {
        let version = u.split('@').nth(1).expect("a pinned version");
        assert!(version.starts_with('v'), "{u}");
    }
    assert!(
        steps.iter().all(|s| s.get("run").is_none()),
        "deploy only: no step runs a command (the build stays on the operator's box)"
    );
    assert_eq!(steps[0]["with"]["persist-credentials"], false);
    assert_eq!(steps[1]["with"]["path"], "public/exhibit");
    assert_eq!(steps[2]["id"], "deployment");
}

/// The workflow the README points readers to is the one `init --pages` writes.
#[test]
fn the_shipped_workflow_is_what_init_writes() {
    let tmp = tempfile::tempdir().unwrap();
    let o = exhibit_in(tmp.path(), &["init", "--pages"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let written =
        std::fs::read_to_string(tmp.path().join(".github/workflows/exhibit-pages.yml")).unwrap();
    let shipped = repo_file("examples/exhibit-pages.yml");
    if std::env::var_os("EXHIBIT_BLESS").is_some() {
        std::fs::write(&shipped, &written).unwrap();
    }
    assert_eq!(
        std::fs::read_to_string(&shipped).unwrap(),
        written,
        "examples/exhibit-pages.yml differs from `exhibit init --pages` (EXHIBIT_BLESS=1 rewrites it)"
    );
    let w = workflow_of(tmp.path());
    assert_eq!(w["on"]["push"]["branches"], serde_json::json!(["exhibit"]));
    // The default folder is the README's and --help's: docs (issue 47).
    assert_eq!(w["jobs"]["deploy"]["steps"][1]["with"]["path"], "docs");
    assert!(String::from_utf8_lossy(&o.stdout).contains("exhibit build --out docs --dry-run"));
}

// ---------------------------------------------------------------------------------------------
// the README's GitHub Pages steps, end to end against a local bare remote

fn sh(dir: &Path, line: &str, env: &[(&str, String)]) -> Output {
    let path = format!(
        "{}:{}",
        Path::new(bin()).parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut c = Command::new("bash");
    c.arg("-c")
        .arg(line)
        .current_dir(dir)
        .env("PATH", path)
        .env("SOURCE_DATE_EPOCH", "1790000000")
        .env("GIT_AUTHOR_NAME", "Operator")
        .env("GIT_AUTHOR_EMAIL", "op@example.org")
        .env("GIT_COMMITTER_NAME", "Operator")
        .env("GIT_COMMITTER_EMAIL", "op@example.org")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env_remove("CI");
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().expect("run bash")
}

/// Runs the README's steps, each of which must appear in README.md verbatim (so the guide and
/// this test cannot drift apart); `OWNER/REPO` on GitHub becomes a local bare repository.
fn run_readme_steps(steps: &[&str], remote: &Path, work: &Path, ledger: &Path) {
    let readme = std::fs::read_to_string(repo_file("README.md")).unwrap();
    let url = "https://github.com/OWNER/REPO.git";
    for step in steps {
        assert!(
            readme.contains(step),
            "README.md no longer says `{step}`: update the guide and this test together"
        );
        let line = step.replace(url, &remote.display().to_string());
        let dir = if line.starts_with("git clone") {
            work.to_path_buf()
        } else {
            work.join("exhibit")
        };
        let o = sh(&dir, &line, &[]);
        assert_eq!(o.status.code(), Some(0), "`{line}`:\n{}", text(&o));
        if line.starts_with("exhibit init") {
            // The README's "Edit exhibit.toml: set ledger ... to the files in your box".
            let config = dir.join("exhibit.toml");
            let t = std::fs::read_to_string(&config).unwrap();
            assert!(t.contains("ledger = \"gate/ledger.jsonl\""));
            let t = t.replace(
                "ledger = \"gate/ledger.jsonl\"",
                &format!("ledger = {:?}", ledger.display().to_string()),
            );
            std::fs::write(&config, t).unwrap();
        }
    }
}

fn pushed_files(remote: &Path, branch: &str) -> Vec<String> {
    let o = Command::new("git")
        .args(["ls-tree", "-r", "--name-only", branch])
        .env("GIT_DIR", remote)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    String::from_utf8(o.stdout)
        .unwrap()
        .lines()
        .map(String::from)
        .collect()
}

fn gate_box(root: &Path) -> PathBuf {
    let b = TestBox::new(root);
    let mut w = LedgerWriter::new();
    for n in 1..=6 {
        w.push_scan(n);
    }
    b.write_ledger(&w.bytes());
    b.dir.join("gate/ledger.jsonl")
}

fn bare_remote(root: &Path) -> PathBuf {
    let remote = root.join("remote.git");
    let o = Command::new("git")
        .args(["init", "--bare", "-q"])
        .arg(&remote)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    remote
}

#[test]
fn the_readme_branch_based_pages_steps_publish_docs_with_nojekyll() {
    let tmp = tempfile::tempdir().unwrap();
    let ledger = gate_box(tmp.path());
    let remote = bare_remote(tmp.path());
    let work = tmp.path().join("work");
    std::fs::create_dir(&work).unwrap();
    run_readme_steps(
        &[
            "git clone https://github.com/OWNER/REPO.git exhibit",
            "git switch --orphan exhibit",
            "exhibit init",
            "exhibit build --out docs --dry-run",
            "exhibit build --out docs",
            "git add docs",
            "git commit -m \"exhibit: first publication\"",
            "git push -u origin exhibit",
        ],
        &remote,
        &work,
        &ledger,
    );
    let files = pushed_files(&remote, "exhibit");
    for f in [
        "docs/index.html",
        "docs/.nojekyll",
        "docs/ledger/ledger.jsonl",
        "docs/ledger/withheld.json",
        "docs/ledger/SNAPSHOTS.jsonl",
    ] {
        assert!(files.iter().any(|x| x == f), "{f} not pushed: {files:?}");
    }
    assert!(
        files.iter().all(|f| f.starts_with("docs/")),
        "only the exhibit is committed (exhibit.toml stays on the box): {files:?}"
    );
    // The stranger's step: a fresh clone of what was pushed re-derives.
    let stranger = tmp.path().join("stranger");
    std::fs::create_dir(&stranger).unwrap();
    let o = sh(
        &stranger,
        &format!(
            "git clone -q --branch exhibit {} REPO && exhibit verify REPO/docs",
            remote.display()
        ),
        &[],
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("re-derives"));
}

#[test]
fn the_readme_workflow_pages_steps_push_the_folder_and_the_workflow() {
    let tmp = tempfile::tempdir().unwrap();
    let ledger = gate_box(tmp.path());
    let remote = bare_remote(tmp.path());
    let work = tmp.path().join("work");
    std::fs::create_dir(&work).unwrap();
    run_readme_steps(
        &[
            "git clone https://github.com/OWNER/REPO.git exhibit",
            "git switch --orphan exhibit",
            "exhibit init --pages --out site",
            "exhibit build --out site",
            "git add site .github",
            "git commit -m \"exhibit: first publication\"",
            "git push -u origin exhibit",
        ],
        &remote,
        &work,
        &ledger,
    );
    let files = pushed_files(&remote, "exhibit");
    for f in [
        ".github/workflows/exhibit-pages.yml",
        "site/index.html",
        "site/ledger/ledger.jsonl",
    ] {
        assert!(files.iter().any(|x| x == f), "{f} not pushed: {files:?}");
    }
    // The pushed workflow deploys the pushed folder, on pushes to the pushed branch.
    let w = workflow_of(&work.join("exhibit"));
    assert_eq!(w["on"]["push"]["branches"], serde_json::json!(["exhibit"]));
    assert_eq!(w["jobs"]["deploy"]["steps"][1]["with"]["path"], "site");
}

// ---------------------------------------------------------------------------------------------
// completions and the man page

#[test]
fn bash_sources_the_completions_and_they_complete_commands_and_flags() {
    let o = exhibit_in(Path::new("."), &["completions", "bash"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let tmp = tempfile::tempdir().unwrap();
    let script = tmp.path().join("exhibit.bash");
    std::fs::write(&script, &o.stdout).unwrap();
    // Source it, then call the completion function bash would call, as bash would call it.
    let probe = format!(
        r#"set -u
source {script:?}
spec=$(complete -p exhibit) || exit 3
fn=$(sed -E 's/.*-F ([^ ]+).*/\1/' <<<"$spec")
complete_words() {{
  COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); COMP_LINE="$*"; COMP_POINT=${{#COMP_LINE}}
  COMPREPLY=()
  "$fn" exhibit "${{COMP_WORDS[COMP_CWORD]}}" "${{COMP_WORDS[COMP_CWORD-1]}}"
  echo "${{COMPREPLY[*]}}"
}}
complete_words exhibit ""
complete_words exhibit build --dr
complete_words exhibit completions ""
"#,
        script = script.display().to_string()
    );
    let o = sh(tmp.path(), &probe, &[]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(o.stderr.is_empty(), "{}", text(&o));
    let out = String::from_utf8(o.stdout).unwrap();
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3, "{out}");
    for cmd in ["init", "build", "verify", "completions", "man"] {
        assert!(
            lines[0].split(' ').any(|w| w == cmd),
            "{cmd} not offered: {out}"
        );
    }
    assert_eq!(lines[1], "--dry-run");
    for shell in ["bash", "zsh", "fish", "powershell"] {
        assert!(lines[2].split(' ').any(|w| w == shell), "{out}");
    }
}

#[test]
fn every_listed_shell_gets_a_script_naming_every_command() {
    for shell in ["zsh", "fish", "powershell"] {
        let o = exhibit_in(Path::new("."), &["completions", shell]);
        assert_eq!(o.status.code(), Some(0), "{shell}: {}", text(&o));
        let s = String::from_utf8(o.stdout).unwrap();
        for word in ["init", "build", "verify", "dry-run", "allow-rewrite"] {
            assert!(s.contains(word), "{shell} script lacks {word}");
        }
    }
    let o = exhibit_in(Path::new("."), &["completions", "tcsh"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
}

#[test]
fn the_man_pages_come_from_the_same_definitions_and_render_cleanly() {
    let o = exhibit_in(Path::new("."), &["man"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let page = String::from_utf8(o.stdout).unwrap();
    assert!(
        page.starts_with(".ie") || page.contains(".TH exhibit 1"),
        "{page}"
    );
    for word in ["init", "build", "verify", "completions", "EXIT STATUS"] {
        assert!(page.contains(word), "man page lacks {word}");
    }
    let o = exhibit_in(Path::new("."), &["man", "build"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let build = String::from_utf8(o.stdout).unwrap();
    assert!(build.contains(".TH exhibit-build 1"), "{build}");
    assert!(build.contains("allow\\-rewrite"), "{build}");
    let o = exhibit_in(Path::new("."), &["man", "nope"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(String::from_utf8_lossy(&o.stderr).contains("not a command"));
    // groff with every warning on finds nothing to say about either page.
    let Ok(groff) = Command::new("groff").arg("--version").output() else {
        eprintln!("groff not installed: the pages' roff is not rendered here");
        return;
    };
    assert!(groff.status.success());
    for roff in [&page, &build] {
        let tmp = tempfile::tempdir().unwrap();
        let f = tmp.path().join("exhibit.1");
        std::fs::write(&f, roff).unwrap();
        let o = Command::new("groff")
            .args(["-man", "-Tutf8", "-ww", "-z"])
            .arg(&f)
            .output()
            .unwrap();
        assert!(o.status.success() && o.stderr.is_empty(), "{}", text(&o));
    }
}

// ---------------------------------------------------------------------------------------------
// --help

/// `--help` of every command, compared with the expected text under tests/snapshots/help/
/// (EXHIBIT_BLESS=1 rewrites them); and each stands on its own: examples, the exit-code table,
/// no document outside the repository.
#[test]
fn help_texts_match_their_snapshots_and_stand_on_their_own() {
    let bless = std::env::var_os("EXHIBIT_BLESS").is_some();
    let mut stale = Vec::new();
    for (name, args) in [
        ("exhibit", vec!["--help"]),
        ("init", vec!["init", "--help"]),
        ("build", vec!["build", "--help"]),
        ("verify", vec!["verify", "--help"]),
        ("prove", vec!["prove", "--help"]),
        ("completions", vec!["completions", "--help"]),
        ("man", vec!["man", "--help"]),
    ] {
        let o = exhibit_in(Path::new("."), &args);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o));
        let help = String::from_utf8(o.stdout).unwrap();
        assert!(!help.contains("CONTRACT") && !help.contains('§'), "{help}");
        assert!(!help.contains("protocol-v0"), "{help}");
        assert!(help.contains("Examples"), "{name}: no examples:\n{help}");
        if matches!(name, "exhibit" | "init" | "build" | "verify" | "prove") {
            assert!(help.contains("Exit status"), "{name}: no exit codes");
            for code in ["  0  ", "  1  ", "  2  "] {
                assert!(help.contains(code), "{name}: no {code:?} row");
            }
        }
        let file = repo_file(&format!("tests/snapshots/help/{name}.txt"));
        if bless {
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            std::fs::write(&file, &help).unwrap();
        }
        if std::fs::read_to_string(&file).ok().as_deref() != Some(help.as_str()) {
            stale.push(name);
        }
    }
    assert!(
        stale.is_empty(),
        "--help changed for {stale:?}: review, then EXHIBIT_BLESS=1 cargo test --test operator"
    );
    // No arguments: the help, on stderr, as a usage error.
    let o = exhibit_in(Path::new("."), &[]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
}

// ---------------------------------------------------------------------------------------------
// build --json, --quiet, and the dry run a reviewer reads

struct Day {
    _tmp: tempfile::TempDir,
    b: TestBox,
    repo: git2::Repository,
    site: String,
    w: LedgerWriter,
}

/// A first publication of ten lines, committed.
fn first_publication() -> Day {
    let tmp = tempfile::tempdir().unwrap();
    let b = TestBox::new(tmp.path());
    let repo = git2::Repository::init(tmp.path().join("exhibit")).unwrap();
    let site = tmp.path().join("exhibit/site").display().to_string();
    let mut w = LedgerWriter::new();
    for n in 1..=10 {
        w.push_scan(n);
    }
    b.write_ledger(&w.bytes());
    let o = exhibit(
        &["build", "--config", &b.config(), "--out", &site],
        1_790_000_000,
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    commit_all(&repo, "first publication");
    Day {
        _tmp: tmp,
        b,
        repo,
        site,
        w,
    }
}

fn json_out(o: &Output) -> serde_json::Value {
    let s = String::from_utf8(o.stdout.clone()).unwrap();
    assert_eq!(s.lines().count(), 1, "one JSON object on one line: {s}");
    serde_json::from_str(&s).unwrap_or_else(|e| panic!("{e}: {s}"))
}

#[test]
fn build_json_summarises_a_good_build_and_then_an_unchanged_one() {
    let tmp = tempfile::tempdir().unwrap();
    let b = TestBox::new(tmp.path());
    let repo = git2::Repository::init(tmp.path().join("exhibit")).unwrap();
    let site = tmp.path().join("exhibit/site").display().to_string();
    let mut w = LedgerWriter::new();
    for n in 1..=6 {
        w.push_scan(n);
    }
    w.push(
        "gate_not_wired",
        "2026-10-24T13:15:00Z",
        r#"{"detail":"lock held by /home/agent"}"#,
    );
    b.write_ledger(&w.bytes());
    let args = ["build", "--json", "--config", &b.config(), "--out", &site];
    let o = exhibit(&args, 1_790_000_000);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let v = json_out(&o);
    assert_eq!(v["ok"], true);
    assert_eq!(v["dry_run"], false);
    assert_eq!(
        (&v["lines"], &v["published"], &v["withheld"]),
        (&7.into(), &6.into(), &1.into())
    );
    assert_eq!(v["head"], w.ids.last().unwrap().as_str());
    assert_eq!(v["head_seq"], 7);
    assert_eq!(v["snapshot"]["appended"], true);
    assert_eq!(v["snapshot"]["extends"], true);
    let added: Vec<&str> = v["files"]["added"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().unwrap())
        .collect();
    assert!(added.contains(&"index.html") && added.contains(&"ledger/ledger.jsonl"));
    assert_eq!(
        added.len(),
        snapshot_dir(Path::new(&site)).len(),
        "every file written"
    );
    assert_eq!(v["files"]["changed"], serde_json::json!([]));
    commit_all(&repo, "first");

    // The same again: nothing appended, no file touched.
    let o = exhibit(&args, 1_790_100_000);
    let v = json_out(&o);
    assert_eq!(v["snapshot"]["appended"], false);
    assert_eq!(
        v["files"],
        serde_json::json!({"added": [], "changed": [], "removed": []})
    );
}

#[test]
fn quiet_prints_nothing_on_success_and_notes_go_to_stderr_otherwise() {
    let day = first_publication();
    // A line the gate is still writing: left out, and said in a note.
    let mut bytes = day.w.bytes();
    bytes.extend_from_slice(b"{\"partial\":");
    day.b.write_ledger(&bytes);
    let o = exhibit(
        &["build", "--config", &day.b.config(), "--out", &day.site],
        1_790_100_000,
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("note:"),
        "{}",
        text(&o)
    );
    assert!(String::from_utf8_lossy(&o.stdout).starts_with("built "));
    let o = exhibit(
        &[
            "build",
            "--quiet",
            "--config",
            &day.b.config(),
            "--out",
            &day.site,
        ],
        1_790_100_000,
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(o.stdout.is_empty() && o.stderr.is_empty(), "{}", text(&o));
    // With --json the note is in the object and on stderr; stdout stays pure JSON.
    let o = exhibit(
        &[
            "build",
            "--json",
            "--config",
            &day.b.config(),
            "--out",
            &day.site,
        ],
        1_790_100_000,
    );
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("note:"),
        "{}",
        text(&o)
    );
    let v = json_out(&o);
    assert!(v["notes"][0].as_str().unwrap().contains("no LF"), "{v}");
    // --quiet --json: the object only.
    let o = exhibit(
        &[
            "build",
            "-q",
            "--json",
            "--config",
            &day.b.config(),
            "--out",
            &day.site,
        ],
        1_790_100_000,
    );
    assert!(o.stderr.is_empty(), "{}", text(&o));
    assert_eq!(json_out(&o)["ok"], true);
}

#[test]
fn build_json_lists_refusals_with_codes_and_exit_codes_are_unchanged() {
    let day = first_publication();
    // A kind nobody admitted, and a rewrite of what HEAD published.
    let mut rewritten = LedgerWriter::new();
    for n in 1..=3 {
        rewritten.push_scan(n + 100);
    }
    rewritten.push("mystery", "2026-10-24T14:00:00Z", r#"{"n":1}"#);
    day.b.write_ledger(&rewritten.bytes());
    let before = snapshot_dir(Path::new(&day.site));
    let o = exhibit(
        &[
            "build",
            "--json",
            "--config",
            &day.b.config(),
            "--out",
            &day.site,
        ],
        1_790_100_000,
    );
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let v = json_out(&o);
    assert_eq!(v["ok"], false);
    let refusals = v["refusals"].as_array().unwrap();
    assert!(refusals.len() >= 2, "{v}");
    for r in refusals {
        for key in ["code", "file", "rule", "accept"] {
            let s = r[key].as_str().unwrap_or_default();
            assert!(!s.is_empty(), "{key} missing in {r}");
        }
    }
    let codes: Vec<&str> = refusals
        .iter()
        .map(|r| r["code"].as_str().unwrap())
        .collect();
    assert!(codes.contains(&"unknown_kind"), "{codes:?}");
    assert!(codes.contains(&"not_an_extension"), "{codes:?}");
    let unknown = refusals
        .iter()
        .find(|r| r["code"] == "unknown_kind")
        .unwrap();
    assert_eq!(
        (&unknown["line"], &unknown["seq"]),
        (&5.into(), &4.into()),
        "{unknown}"
    );
    assert_eq!(snapshot_dir(Path::new(&day.site)), before, "DIR untouched");
    // The words still say it on stderr.
    assert!(String::from_utf8_lossy(&o.stderr).contains("build refused"));
    // An I/O error: exit 2, and the object says so.
    let o = exhibit(
        &[
            "build",
            "--json",
            "--config",
            "/nonexistent/exhibit.toml",
            "--out",
            &day.site,
        ],
        0,
    );
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let v = json_out(&o);
    assert_eq!(v["ok"], false);
    assert!(
        v["error"]
            .as_str()
            .unwrap()
            .contains("/nonexistent/exhibit.toml")
    );
    let _ = &day.repo;
}

/// Counts of STATS.json as `key: old → new` (the same words the review uses).
fn changed_counts(
    old: &serde_json::Value,
    new: &serde_json::Value,
    path: &str,
    out: &mut Vec<String>,
) {
    let show = |v: &serde_json::Value| match (v.get("count"), v.get("of")) {
        (Some(c), Some(o)) => format!("{c} of {o}"),
        _ if v.is_null() => "(none)".into(),
        _ => v.to_string(),
    };
    match (old, new) {
        (a, b) if a == b => {}
        (serde_json::Value::Object(a), serde_json::Value::Object(b))
            if !(b.contains_key("count") && b.len() == 2) =>
        {
            for (k, v) in b {
                let key = if path.is_empty() {
                    k.clone()
                } else {
                    format!("{path}.{k}")
                };
                changed_counts(a.get(k).unwrap_or(&serde_json::Value::Null), v, &key, out);
            }
        }
        (a, b) if b.is_number() || b.get("count").is_some() => {
            out.push(format!("{path}: {} → {}", show(a), show(b)));
        }
        _ => {}
    }
}

#[test]
fn a_dry_run_after_a_small_day_names_the_new_seqs_and_every_changed_count_and_stays_short() {
    let day = first_publication();
    let mut w = day.w;
    for n in 11..=14 {
        w.push_scan(n);
    }
    w.push(
        "gate_not_wired",
        "2026-10-24T13:15:00Z",
        r#"{"detail":"lock held by /home/agent"}"#,
    );
    day.b.write_ledger(&w.bytes());
    let args = ["build", "--config", &day.b.config(), "--out", &day.site];
    let dry: Vec<&str> = args.iter().copied().chain(["--dry-run"]).collect();
    let o = exhibit(&dry, 1_790_100_000);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let review = String::from_utf8(o.stdout).unwrap();
    let md_args: Vec<&str> = dry
        .iter()
        .copied()
        .chain(["--format", "markdown"])
        .collect();
    let md = String::from_utf8(exhibit(&md_args, 1_790_100_000).stdout).unwrap();
    let json_args: Vec<&str> = dry.iter().copied().chain(["--json"]).collect();
    let data = json_out(&exhibit(&json_args, 1_790_100_000));

    // Now build for real, and hold the review to what actually changed.
    let old_stats: serde_json::Value =
        serde_json::from_slice(&std::fs::read(format!("{}/ledger/STATS.json", day.site)).unwrap())
            .unwrap();
    let o = exhibit(&args, 1_790_100_000);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let new_stats: serde_json::Value =
        serde_json::from_slice(&std::fs::read(format!("{}/ledger/STATS.json", day.site)).unwrap())
            .unwrap();
    let mut counts = Vec::new();
    changed_counts(&old_stats, &new_stats, "", &mut counts);
    assert!(counts.len() >= 4, "{counts:?}");
    assert!(
        counts.contains(&"lines.published: 10 of 10 → 14 of 15".to_string()),
        "{counts:?}"
    );
    // Counts whose denominator alone moved are not listed (issue 47); the others all are.
    let denominator_only = |c: &str| {
        let (a, b) = c.split_once(": ").unwrap().1.split_once(" → ").unwrap();
        a.contains(" of ") && a.split(" of ").next() == b.split(" of ").next()
    };
    assert!(counts.iter().any(|c| denominator_only(c)), "{counts:?}");
    for c in &counts {
        let shown = !denominator_only(c);
        assert_eq!(review.contains(c.as_str()), shown, "`{c}`:\n{review}");
        assert_eq!(md.contains(c.as_str()), shown, "`{c}`:\n{md}");
    }
    assert!(
        review.contains("changed only their denominator"),
        "{review}"
    );
    // Real unified-diff hunk headers.
    assert!(
        review.lines().any(|l| {
            let l = l.trim();
            l.starts_with("@@ -") && l.ends_with(" @@") && l.matches(',').count() == 2
        }),
        "{review}"
    );
    assert!(md.contains("<details>"), "{md}");
    assert!(
        review.contains("new seqs 11–15: 4 line(s) published, 1 withheld"),
        "{review}"
    );
    assert!(
        review.contains("line withheld: seq 15 (gate_not_wired)")
            && review.contains("--allow-line 15"),
        "{review}"
    );
    assert!(review.contains("a snapshot line is appended"), "{review}");
    // Each new ledger line is shown, cut after its seq, and the old lines are not re-shown.
    for seq in 11..=14 {
        let seq_shown = format!("\"seq\":{seq}…");
        assert!(
            review
                .lines()
                .any(|l| l.trim_start().starts_with("+{") && l.contains(&seq_shown)),
            "seq {seq}:\n{review}"
        );
    }
    assert!(
        !review.contains("\"seq\":5,"),
        "unchanged lines are not shown:\n{review}"
    );
    assert!(!review.contains("more diff line"), "{review}");
    if std::env::var_os("SHOW_REVIEW").is_some() {
        eprintln!("{review}\n{md}");
    }
    let lines = review.lines().count();
    assert!(
        lines <= 80,
        "the review of a small day is {lines} lines:\n{review}"
    );
    // Shown lines are cut; only a withheld line's reason is given whole (it is what the
    // reviewer must read).
    assert!(
        review
            .lines()
            .filter(|l| !l.contains("withheld"))
            .all(|l| l.chars().count() <= 200),
        "{review}"
    );
    // The same as data, and as Markdown for a pull request.
    let s = &data["review"]["summary"];
    assert_eq!(s["new_seqs"], serde_json::json!({"first": 11, "last": 15}));
    assert_eq!(s["published"], 4);
    assert_eq!(s["withheld"][0]["seq"], 15);
    assert_eq!(data["dry_run"], true);
    assert!(md.starts_with("### exhibit"), "{md}");
    assert!(md.contains("```diff\n"), "{md}");
}

#[test]
fn stage_times_go_to_stderr_and_change_no_byte_written() {
    // `EXHIBIT_STAGE_TIMES=1` is a measuring aid (docs/scale.md#stage-times). Catches a mark
    // printed on stdout (it would break `--json`), a stage left unmarked, and a build that
    // writes anything differently when measured.
    let tmp = tempfile::tempdir().unwrap();
    let config = repo_file("site-fixtures/demo/exhibit.toml");
    let build = |out: &Path, times: bool| {
        let mut cmd = Command::new(bin());
        cmd.args(["build", "--json", "--public-texts", "--config"])
            .arg(&config)
            .arg("--out")
            .arg(out)
            .env("SOURCE_DATE_EPOCH", "1800000000")
            .env_remove("CI")
            .env_remove("EXHIBIT_STAGE_TIMES");
        if times {
            cmd.env("EXHIBIT_STAGE_TIMES", "1");
        }
        cmd.output().unwrap()
    };
    let (plain, timed) = (tmp.path().join("plain"), tmp.path().join("timed"));
    let (a, b) = (build(&plain, false), build(&timed, true));
    assert_eq!(a.status.code(), Some(0), "{}", text(&a));
    assert_eq!(b.status.code(), Some(0), "{}", text(&b));
    let json: serde_json::Value = serde_json::from_slice(&b.stdout).expect("stdout stays JSON");
    assert_eq!(json["ok"], true, "{json}");
    assert!(!String::from_utf8_lossy(&a.stderr).contains("exhibit: stage "));
    let stderr = String::from_utf8_lossy(&b.stderr);
    for stage in [
        "load",
        "verify",
        "decide",
        "assemble",
        "render",
        "write",
        "caches saved",
    ] {
        assert!(
            stderr.contains(&format!("exhibit: stage {stage}: ")),
            "{stage}: {stderr}"
        );
    }
    assert_eq!(snapshot_dir(&plain), snapshot_dir(&timed));
}
