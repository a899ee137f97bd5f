//! No product function longer than 150 lines (issue 13): a long function is split into named
//! steps, not into comment banners. Counts each `fn` from its signature to the closing brace at
//! the signature's indentation, in `src/` and `crates/protocol/src/`, test modules left out.

use std::path::{Path, PathBuf};

const LIMIT: usize = 150;

/// Every `.rs` file under `dir` (also the rooms' check, `module_graph`).
pub(crate) fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// `(name, first line, length)` of every function with a body, before the file's test module.
fn functions(text: &str) -> Vec<(String, usize, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let product = lines
        .iter()
        .position(|l| l.starts_with("#[cfg(test)]"))
        .unwrap_or(lines.len());
    let mut found = Vec::new();
    for (i, line) in lines[..product].iter().enumerate() {
        let body = line.trim_start();
        let indent = &line[..line.len() - body.len()];
        let after_vis = body
            .trim_start_matches("pub(crate) ")
            .trim_start_matches("pub(super) ")
            .trim_start_matches("pub ")
            .trim_start_matches("const ")
            .trim_start_matches("unsafe ");
        let Some(rest) = after_vis.strip_prefix("fn ") else {
            continue;
        };
        let name: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        let close = format!("{indent}}}");
        // A declaration without a body (a trait's) ends with `;` before any `{`.
        let Some(open) = (i..product).find(|&k| lines[k].contains('{') || lines[k].ends_with(';'))
        else {
            continue;
        };
        if !lines[open].contains('{') || lines[open].trim_end().ends_with('}') {
            continue;
        }
        if let Some(end) = (open + 1..product).find(|&k| lines[k] == close) {
            found.push((name, i + 1, end - i + 1));
        }
    }
    found
}

#[test]
fn the_counter_sees_a_long_function() {
    let long = format!(
        "fn long() {{\n{}}}\nfn short() {{\n}}\n",
        "    x();\n".repeat(200)
    );
    let found = functions(&long);
    assert_eq!(
        found,
        vec![("long".into(), 1, 202), ("short".into(), 203, 2)]
    );
}

#[test]
fn no_product_function_is_over_150_lines() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    rust_files(&root.join("crates/protocol/src"), &mut files);
    files.sort();
    let mut over = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        for (name, line, len) in functions(&text) {
            if len > LIMIT {
                let shown = file.strip_prefix(root).unwrap().display();
                over.push(format!("{shown}:{line}: fn {name} is {len} lines"));
            }
        }
    }
    assert!(
        over.is_empty(),
        "functions over {LIMIT} lines (split them into named steps):\n{}",
        over.join("\n")
    );
}
