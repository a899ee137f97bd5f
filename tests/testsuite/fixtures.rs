//! Fixture boxes in, expected output trees out (mdBook style): every `site-fixtures/X/` holding an
//! `exhibit.toml` is built (outside any git repository, SOURCE_DATE_EPOCH fixed, with the flags
//! in `X/BUILD_FLAGS` if present) and the result is compared file by file with
//! `site-fixtures/X.expected/` — files missing, files extra, files differing.
//!
//! `index.html` is compared by what it embeds (the ledger bytes must equal `ledger.jsonl`), not
//! byte for byte, so that a change to the page's look does not re-bless every fixture; the page
//! itself is tested in `tests/page_e2e.rs`.
//!
//! To accept a deliberate change: `EXHIBIT_BLESS=1 cargo test --test testsuite fixtures::`, then review the
//! diff of `site-fixtures/*.expected/` before committing it.

use crate::common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

fn fixtures_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("site-fixtures")
}

fn read_tree(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    exhibit::site_write::out_dir::read_tree(dir, None)
        .unwrap()
        .into_bytes()
        .unwrap()
}

fn embedded_ledger(html: &[u8]) -> Vec<u8> {
    let html = String::from_utf8_lossy(html);
    let start = html
        .find("id=ledger-bytes")
        .or_else(|| html.find("id=\"ledger-bytes\""))
        .expect("ledger-bytes block");
    let body = &html[start..];
    let body = &body[body.find('>').unwrap() + 1..];
    let b64 = &body[..body.find('<').unwrap()];
    common::unb64(b64.trim())
}

#[test]
fn every_fixture_box_builds_to_its_expected_tree() {
    let bless = std::env::var_os("EXHIBIT_BLESS").is_some();
    let mut boxes: Vec<PathBuf> = std::fs::read_dir(fixtures_root())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("exhibit.toml").is_file())
        .collect();
    boxes.sort();
    assert!(!boxes.is_empty(), "no fixture boxes under site-fixtures/");
    let mut failures = Vec::new();
    for dir in &boxes {
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        let expected_dir = fixtures_root().join(format!("{name}.expected"));
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path().join("site");
        let flags = std::fs::read_to_string(dir.join("BUILD_FLAGS")).unwrap_or_default();
        let o = Command::new(env!("CARGO_BIN_EXE_exhibit"))
            .current_dir(dir)
            .args(["build", "--out", out.to_str().unwrap()])
            .args(flags.split_whitespace())
            .env("SOURCE_DATE_EPOCH", "1795000000")
            .env_remove("CI")
            .output()
            .unwrap();
        assert_eq!(
            o.status.code(),
            Some(0),
            "{name}: build failed:\n{}",
            String::from_utf8_lossy(&o.stderr)
        );
        let got = read_tree(&out);
        let html = got.get("index.html").expect("index.html built").clone();
        assert_eq!(
            embedded_ledger(&html),
            got["ledger/ledger.jsonl"],
            "{name}: the page embeds ledger.jsonl byte for byte"
        );
        let got: BTreeMap<String, Vec<u8>> =
            got.into_iter().filter(|(k, _)| k != "index.html").collect();
        if bless {
            let _ = std::fs::remove_dir_all(&expected_dir);
            let mut tree = exhibit::published::output_tree::Tree::default();
            for (path, bytes) in got {
                tree.put(path, bytes);
            }
            let journal = tempfile::tempdir().unwrap();
            exhibit::site_write::out_dir::write_tree(
                &expected_dir,
                &tree,
                None,
                &journal.path().join("j"),
            )
            .unwrap();
            continue;
        }
        let want = read_tree(&expected_dir);
        for (path, bytes) in &want {
            match got.get(path) {
                None => failures.push(format!("{name}: {path} expected, not built")),
                Some(b) if b != bytes => {
                    failures.push(format!("{name}: {path} differs from the expected tree"))
                }
                _ => {}
            }
        }
        for path in got.keys().filter(|p| !want.contains_key(*p)) {
            failures.push(format!("{name}: {path} built, not expected"));
        }
        // And the stranger's check of the built tree agrees.
        let v = Command::new(env!("CARGO_BIN_EXE_exhibit"))
            .args(["verify", "--json", out.to_str().unwrap()])
            .output()
            .unwrap();
        let report: serde_json::Value = serde_json::from_slice(&v.stdout).unwrap();
        let expect_ok = !dir.join("EXPECT_VERIFY_PROBLEMS").exists();
        if report["ok"] != expect_ok {
            failures.push(format!(
                "{name}: exhibit verify SITE said ok={}: {report}",
                report["ok"]
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{}\n(if the change is deliberate: EXHIBIT_BLESS=1 cargo test --test testsuite fixtures::, then review the diff)",
        failures.join("\n")
    );
}
