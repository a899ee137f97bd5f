//! Every JSON object a command prints carries its `schema`, and every member it carries is
//! documented in docs/json.md (issue 47 item 7): the demo box is built, reviewed, refused,
//! verified and proved with `--json`, each command also on a failure, and each object's members
//! are held to the page's tables of its schema.

use crate::common;

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use serde_json::Value as J;

/// One run: the schema its object must name, its exit code and the object.
struct Run {
    what: String,
    schema: &'static str,
    code: Option<i32>,
    value: J,
}

fn run(dir: &Path, schema: &'static str, args: &[&str]) -> Run {
    let o = Command::new(env!("CARGO_BIN_EXE_exhibit"))
        .current_dir(dir)
        .args(args)
        .env("SOURCE_DATE_EPOCH", "1795000000")
        .env_remove("CI")
        .output()
        .unwrap();
    let stdout = String::from_utf8(o.stdout.clone()).unwrap();
    assert_eq!(
        stdout.lines().count(),
        1,
        "{args:?}: one JSON object, one line:\n{}",
        common::text(&o)
    );
    let value: J = serde_json::from_str(&stdout).unwrap();
    Run {
        what: args.join(" "),
        schema,
        code: o.status.code(),
        value,
    }
}

/// The demo box, committed in a git repository with its exhibit built once in `docs/` (without
/// public texts, so that a dry run with them has files, diffs and a changed setting to show),
/// then every command with `--json`, on success and on failure.
fn runs(tmp: &Path) -> Vec<Run> {
    let root = &tmp.join("repo");
    let repo = git2::Repository::init(root).unwrap();
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("site-fixtures/demo");
    let boxed = root.join("box");
    common::copy_tree(&demo, &boxed);
    std::fs::remove_file(boxed.join("BUILD_FLAGS")).unwrap();
    // Signed, so that `verify SITE` reports the signatures (docs/anchoring.md#the-key); the key
    // outside the repository, as `exhibit key` demands.
    let key = tmp.join("exhibit.key");
    let made = common::exhibit(
        &[
            "key",
            "--name",
            "example.org/demo",
            "--out",
            key.to_str().unwrap(),
        ],
        0,
    );
    assert!(made.status.success(), "{}", common::text(&made));
    let toml = std::fs::read_to_string(boxed.join("exhibit.toml")).unwrap();
    let toml = format!("{toml}\n[checkpoint]\nkey = \"{}\"\n", key.display());
    std::fs::write(boxed.join("exhibit.toml"), toml).unwrap();
    let (b, v, p) = (
        exhibit::terminal::json_schema::BUILD,
        exhibit::terminal::json_schema::VERIFY,
        exhibit::terminal::json_schema::PROVE,
    );
    let mut out = vec![run(&boxed, b, &["build", "--json", "--out", "../docs"])];
    common::commit_all(&repo, "first publication");
    let dry = ["build", "--json", "--dry-run", "--public-texts"];
    out.push(run(&boxed, b, &[&dry[..], &["--out", "../docs"]].concat()));
    // A seq the first publication withheld cannot be allowed now: refused.
    let withheld: J =
        serde_json::from_slice(&std::fs::read(root.join("docs/ledger/withheld.json")).unwrap())
            .unwrap();
    let seq = withheld[0]["seq"].to_string();
    let allow = ["build", "--json", "--out", "../docs", "--allow-line", &seq];
    out.push(run(&boxed, b, &allow));
    out.push(run(root, b, &["build", "--json", "--config", "none.toml"]));
    out.push(run(root, v, &["verify", "--json", "docs"]));
    let ledger = "docs/ledger/ledger.jsonl";
    let (w, a) = ("docs/ledger/withheld.json", "box/gate/anchors");
    out.push(run(
        root,
        v,
        &["verify", "--json", "--withheld", w, "--anchors", a, ledger],
    ));
    // A ledger with a line changed: problems, and the anchors no longer hold.
    let mut bytes = std::fs::read(root.join(ledger)).unwrap();
    let at = bytes.iter().position(|&c| c == b'\n').unwrap() + 12;
    bytes[at] ^= 1;
    std::fs::write(root.join("broken.jsonl"), bytes).unwrap();
    let broken = ["verify", "--json", "--withheld", w, "--anchors", a];
    out.push(run(root, v, &[&broken[..], &["broken.jsonl"]].concat()));
    out.push(run(root, v, &["verify", "--json", "missing.jsonl"]));
    out.push(run(
        root,
        p,
        &["prove", "--json", "--site", "docs", "--seq", "3"],
    ));
    let zeros = "0".repeat(64);
    let absent = ["prove", "--json", "--site", "docs", "--sha256", &zeros];
    out.push(run(root, p, &absent));
    let cp = root.join("docs/ledger/tree/checkpoint");
    let since = ["--since", cp.to_str().unwrap()];
    let held = ["prove", "--json", "--site", "docs", "--seq", "2"];
    out.push(run(root, p, &[&held[..], &since[..]].concat()));
    out.push(run(
        root,
        p,
        &["prove", "--json", "--site", "none", "--seq", "1"],
    ));
    // By excerpt: 12 words from the middle of the longest released text of a site built with
    // public texts (docs/tree.md#excerpts), a second folder of this repository (so a first
    // publication said to be one).
    let texts = [
        "build",
        "--json",
        "--public-texts",
        "--first-publication",
        "--out",
        "../texts",
    ];
    let built = run(&boxed, b, &texts);
    assert_eq!(built.code, Some(0), "{}", built.value);
    out.push(built);
    let longest = std::fs::read_dir(root.join("texts/ledger/public_texts"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "txt"))
        .filter_map(|p| std::fs::read_to_string(p).ok())
        .max_by_key(|t| exhibit_protocol::excerpt::words(t).len())
        .unwrap();
    let words = exhibit_protocol::excerpt::words(&longest);
    assert!(words.len() >= 14, "{longest}");
    std::fs::write(root.join("excerpt.txt"), words[2..14].join(" ")).unwrap();
    let excerpt = [
        "prove",
        "--json",
        "--site",
        "texts",
        "--excerpt",
        "excerpt.txt",
    ];
    let found = run(root, p, &excerpt);
    assert!(
        found.value["found"][0]["excerpt"]["word"].is_u64(),
        "{}",
        found.value
    );
    out.push(found);
    out
}

/// Every member's path in `v`: `a.b` for a member, `a[]` for an array's elements; a member
/// documented as "any JSON" is not descended into (its members are data, not the schema's).
fn paths(v: &J, at: &str, opaque: &BTreeSet<String>, out: &mut BTreeSet<String>) {
    if opaque.contains(at) {
        return;
    }
    match v {
        J::Object(m) => {
            for (k, child) in m {
                let path = if at.is_empty() {
                    k.clone()
                } else {
                    format!("{at}.{k}")
                };
                out.insert(path.clone());
                paths(child, &path, opaque, out);
            }
        }
        J::Array(items) => {
            for item in items {
                paths(item, &format!("{at}[]"), opaque, out);
            }
        }
        _ => {}
    }
}

/// The paths docs/json.md documents for `schema`: the first cell of each table row under its
/// `## <schema>` heading, and those typed "any JSON".
fn documented(schema: &str) -> (BTreeSet<String>, BTreeSet<String>) {
    let page = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/json.md"))
        .unwrap();
    let heading = format!("## `{schema}`");
    let start = page
        .find(&heading)
        .unwrap_or_else(|| panic!("docs/json.md has no section {heading}"));
    let section = &page[start + heading.len()..];
    let section = &section[..section.find("\n## ").unwrap_or(section.len())];
    let (mut all, mut opaque) = (BTreeSet::new(), BTreeSet::new());
    for row in section.lines().filter(|l| l.starts_with("| `")) {
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        let path = cells[1].trim_matches('`').to_string();
        if cells.get(2).is_some_and(|t| t.contains("any JSON")) {
            opaque.insert(path.clone());
        }
        all.insert(path);
    }
    (all, opaque)
}

#[test]
fn every_json_output_names_its_schema_and_each_member_is_documented() {
    let tmp = tempfile::tempdir().unwrap();
    let runs = runs(tmp.path());
    // Each command was seen to succeed and to fail, so both shapes are held to the page.
    let codes: Vec<(&str, Option<i32>, &J)> = runs
        .iter()
        .map(|r| (r.schema, r.code, &r.value["ok"]))
        .collect();
    for schema in ["exhibit-build/1", "exhibit-verify/1", "exhibit-prove/1"] {
        assert!(
            codes.contains(&(schema, Some(0), &J::Bool(true))),
            "{schema}: {codes:?}"
        );
        assert!(
            codes.contains(&(schema, Some(2), &J::Bool(false))),
            "{schema}: {codes:?}"
        );
        assert!(
            codes.contains(&(schema, Some(1), &J::Bool(false))),
            "{schema}: {codes:?}"
        );
    }
    let mut missing = Vec::new();
    for r in &runs {
        assert_eq!(r.value["schema"], r.schema, "{}: {}", r.what, r.value);
        let (docs, opaque) = documented(r.schema);
        let mut seen = BTreeSet::new();
        paths(&r.value, "", &opaque, &mut seen);
        for path in seen.difference(&docs) {
            missing.push(format!(
                "{}: `{path}` (from `exhibit {}`)",
                r.schema, r.what
            ));
        }
    }
    missing.dedup();
    assert!(
        missing.is_empty(),
        "members printed but not documented in docs/json.md:\n{}",
        missing.join("\n")
    );
}
