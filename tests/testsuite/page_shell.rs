//! The page's shell as it is written (issue 47 item 7, docs/page.md#the-shell-as-written): no
//! minifier rewrites it, so none is linked — minify-html brought 23 `oxc_*` crates and
//! lightningcss into the binary, which weighed 28.7 MB with them and 10.3 MB without.

use crate::common::{LedgerWriter, TestBox, exhibit, text};

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Crates a minifier brings that the binary has no use for: a name, or a name's start.
const UNWANTED: [&str; 4] = ["minify-html", "lightningcss", "oxc_", "oxc-"];

/// Every package exhibit depends on, from Cargo.lock (normal, build and dev dependencies alike:
/// none of them may bring a minifier back).
fn dependency_closure() -> BTreeSet<String> {
    let lock =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.lock")).unwrap();
    let lock: toml::Table = toml::from_str(&lock).unwrap();
    let mut deps: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for package in lock["package"].as_array().unwrap() {
        let name = package["name"].as_str().unwrap().to_string();
        let of = package
            .get("dependencies")
            .and_then(|d| d.as_array())
            .into_iter()
            .flatten()
            // "name" or "name version" when two versions are locked.
            .map(|d| d.as_str().unwrap().split(' ').next().unwrap().to_string());
        deps.entry(name).or_default().extend(of);
    }
    let mut seen = BTreeSet::new();
    let mut todo = vec!["exhibit".to_string()];
    while let Some(name) = todo.pop() {
        if seen.insert(name.clone()) {
            todo.extend(deps.get(&name).into_iter().flatten().cloned());
        }
    }
    seen
}

#[test]
fn no_minifier_is_linked() {
    let closure = dependency_closure();
    // The walk itself reaches the crates it must (a closure of one would pass vacuously).
    for wanted in ["askama", "git2", "ureq", "exhibit-protocol"] {
        assert!(
            closure.contains(wanted),
            "{wanted} not reached: {closure:?}"
        );
    }
    let unwanted: Vec<&String> = closure
        .iter()
        .filter(|name| UNWANTED.iter().any(|u| name.starts_with(u)))
        .collect();
    assert!(
        unwanted.is_empty(),
        "the page is not minified (docs/page.md#the-shell-as-written), yet Cargo.lock brings {unwanted:?}"
    );
}

#[test]
fn the_page_carries_the_stylesheet_as_written_and_its_hash() {
    let tmp = tempfile::tempdir().unwrap();
    let b = TestBox::new(tmp.path());
    let mut w = LedgerWriter::new();
    for n in 1..=3 {
        w.push_scan(n);
    }
    b.write_ledger(&w.bytes());
    let site = tmp.path().join("site");
    let o = exhibit(
        &[
            "build",
            "--config",
            &b.config(),
            "--out",
            site.to_str().unwrap(),
        ],
        1_790_000_000,
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let html = std::fs::read_to_string(site.join("index.html")).unwrap();
    let css =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/style.css"))
            .unwrap();
    // Byte for byte, its line breaks included: a minifier joins them and rewrites rules.
    let style = format!("<style>{css}</style>");
    assert_eq!(
        html.matches(&style).count(),
        1,
        "assets/style.css as written"
    );
    // The policy lists that very body's sha256 (docs/page.md "CSP").
    use sha2::Digest;
    let hash = exhibit::published::encode::base64(&sha2::Sha256::digest(css.as_bytes()));
    assert!(
        html.contains(&format!("style-src 'sha256-{hash}'")),
        "the policy names the stylesheet's hash"
    );
    // The template's attributes keep their quotes (a minifier drops them).
    assert!(html.contains(r#"<script type="application/octet-stream" id="ledger-bytes">"#));
}
