//! The rooms of `src/` import one another in one direction only (ARCHITECTURE.md "Rooms"):
//! `src/lib.rs` declares the top-level modules in order, and a room may use only the rooms
//! declared before it. So no import circle can form between rooms, and a newcomer reads the
//! order once, in one place. Inside a room, files may use one another freely.
//!
//! A reference is a path `crate::<room>` (or `$crate::<room>` in a macro, or each name of a
//! `crate::{...}` group) in a room's product code: comment lines and the file's test module
//! (from its `#[cfg(test)]` line on) are left out, as in `fn_length`.

use std::collections::BTreeSet;
use std::path::Path;

use crate::fn_length::rust_files;

/// The rooms in the order `lib.rs` declares them (`pub mod NAME;` lines).
fn declared_rooms(lib: &str) -> Vec<String> {
    lib.lines()
        .filter_map(|l| l.trim().strip_prefix("pub mod "))
        .filter_map(|l| l.strip_suffix(';'))
        .map(str::to_string)
        .collect()
}

fn ident(s: &str) -> &str {
    let end = s
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(s.len());
    &s[..end]
}

/// The product lines of a file, numbered from 1: up to its test module (its `#[cfg(test)]`
/// line), comment lines left out.
fn product_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines()
        .enumerate()
        .take_while(|(_, l)| !l.starts_with("#[cfg(test)]"))
        .map(|(i, l)| (i + 1, l.trim_start()))
        .filter(|(_, l)| !l.starts_with("//"))
}

/// Every `(line, module)` the product code of one file names through `crate::`.
fn references(text: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    for (line, code) in product_lines(text) {
        let mut rest = code;
        while let Some(at) = rest.find("crate::") {
            let before = rest[..at].chars().next_back();
            rest = &rest[at + "crate::".len()..];
            // `exhibit_crate::` or `my_crate::` are other names; `$crate::` is this crate.
            if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
                continue;
            }
            if let Some(group) = rest.strip_prefix('{') {
                let body = &group[..group.find('}').unwrap_or(group.len())];
                for item in body.split(',') {
                    let name = ident(item.trim());
                    if !name.is_empty() {
                        found.push((line, name.to_string()));
                    }
                }
            } else {
                found.push((line, ident(rest).to_string()));
            }
        }
    }
    found
}

/// Each reference from a room to a room declared after it (or to itself through `crate::` is
/// fine): `"<file>:<line>: <room> uses <later room>"`.
fn backward_uses(files: &[(String, String)], rooms: &[String]) -> Vec<String> {
    let mut wrong = Vec::new();
    for (rel, text) in files {
        let Some(room) = rel.split('/').next().map(|r| r.trim_end_matches(".rs")) else {
            continue;
        };
        let Some(own) = rooms.iter().position(|r| r == room) else {
            continue;
        };
        for (line, used) in references(text) {
            if let Some(at) = rooms.iter().position(|r| *r == used)
                && at > own
            {
                wrong.push(format!("src/{rel}:{line}: {room} uses {used}"));
            }
        }
    }
    wrong
}

#[test]
fn the_checker_sees_a_room_that_uses_a_later_one() {
    // Catches a checker that reads no group, misses `$crate::`, counts comments or test
    // modules, or takes a longer name for a room.
    let rooms: Vec<String> = ["low", "mid", "high"].map(String::from).to_vec();
    let files = vec![
        (
            "low/a.rs".to_string(),
            "// crate::high in a comment\nuse crate::{mid::x, low::y};\n".to_string(),
        ),
        (
            "mid.rs".to_string(),
            "fn f() { $crate::high::g(); my_crate::high::h(); crate::highway::k(); }\n\
             #[cfg(test)]\nmod tests { use crate::high; }\n"
                .to_string(),
        ),
        ("high/b.rs".to_string(), "use crate::low::a;\n".to_string()),
    ];
    assert_eq!(
        backward_uses(&files, &rooms),
        vec![
            "src/low/a.rs:2: low uses mid",
            "src/mid.rs:1: mid uses high"
        ]
    );
}

#[test]
fn rooms_use_only_the_rooms_declared_before_them() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let rooms = declared_rooms(&std::fs::read_to_string(root.join("lib.rs")).unwrap());
    let mut paths = Vec::new();
    rust_files(&root, &mut paths);
    paths.sort();
    let files: Vec<(String, String)> = paths
        .iter()
        .map(|p| {
            let rel = p
                .strip_prefix(&root)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            (rel, std::fs::read_to_string(p).unwrap())
        })
        .collect();
    // Every file of src/ but the crate's roots belongs to a declared room: a module added at
    // the top level without a place in the order would escape the rule.
    let declared: BTreeSet<&str> = rooms.iter().map(String::as_str).collect();
    let homeless: Vec<&str> = files
        .iter()
        .map(|(rel, _)| rel.as_str())
        .filter(|rel| !matches!(*rel, "lib.rs" | "main.rs"))
        .filter(|rel| {
            let room = rel.split('/').next().unwrap_or("").trim_end_matches(".rs");
            !declared.contains(room)
        })
        .collect();
    assert!(
        homeless.is_empty(),
        "files in no room of lib.rs: {homeless:?}"
    );
    assert!(rooms.len() >= 2, "lib.rs declares the rooms: {rooms:?}");
    let wrong = backward_uses(&files, &rooms);
    assert!(
        wrong.is_empty(),
        "a room uses one declared after it in src/lib.rs (an import circle in the making): \
         move the item to the lower room, or pass it in:\n{}",
        wrong.join("\n")
    );
}

/// The names that reach a file, the network, a clock or git from product code.
const IMPURE: [&str; 6] = [
    "std::fs",
    "std::net",
    "SystemTime",
    "Instant",
    "git2",
    "std::env",
];

/// `"<file>:<line>: <name>"` for each impure name in a file's product code (comment lines and
/// the test module left out).
fn impure_uses(rel: &str, text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for (line, code) in product_lines(text) {
        for name in IMPURE.iter().filter(|n| code.contains(*n)) {
            found.push(format!("{rel}:{line}: {name}"));
        }
    }
    found
}

#[test]
fn the_checker_sees_a_file_read_in_product_code_only() {
    // Catches a checker that skips lines after a comment, or counts the test module.
    let text = "// std::fs in a comment\nfn f() { let _ = std::fs::read(p); }\n\
                #[cfg(test)]\nmod tests { fn t() { std::fs::read(p); } }\n";
    assert_eq!(impure_uses("a.rs", text), vec!["a.rs:2: std::fs"]);
}

/// The verifier touches no file, clock or git (ARCHITECTURE.md "Invariants"): the protocol
/// crate takes bytes and returns typed problems, so the page's verifier can be held to the same
/// answers on the same bytes.
#[test]
fn the_protocol_crate_touches_no_file_clock_network_or_git() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/protocol/src");
    let mut paths = Vec::new();
    rust_files(&root, &mut paths);
    paths.sort();
    assert!(paths.len() > 5, "the protocol crate's files: {paths:?}");
    let found: Vec<String> = paths
        .iter()
        .flat_map(|p| {
            let rel = p
                .strip_prefix(&root)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            impure_uses(&rel, &std::fs::read_to_string(p).unwrap())
        })
        .collect();
    assert!(
        found.is_empty(),
        "crates/protocol reaches outside its bytes:\n{}",
        found.join("\n")
    );
}
