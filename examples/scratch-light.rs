// SCRATCH (not committed): re-render a built site as a light page, its ledger cut into segments.
use exhibit::build::render::{PageInput, page};
use exhibit::output::Tree;
fn main() {
    let site = std::path::PathBuf::from(std::env::args().nth(1).unwrap());
    let seg: usize = std::env::args().nth(2).map(|s| s.parse().unwrap()).unwrap_or(4096);
    let mut tree = Tree::default();
    for e in walkdir::WalkDir::new(&site) {
        let e = e.unwrap();
        if e.file_type().is_file() {
            let rel = e.path().strip_prefix(&site).unwrap().to_string_lossy().into_owned();
            tree.put(rel, std::fs::read(e.path()).unwrap());
        }
    }
    let ledger = tree.get("ledger/ledger.jsonl").unwrap().to_vec();
    let mut files: Vec<Vec<u8>> = vec![Vec::new()];
    for line in ledger.split_inclusive(|b| *b == b'\n') {
        let last = files.last_mut().unwrap();
        if !last.is_empty() && last.len() + line.len() > seg { files.push(Vec::new()); }
        files.last_mut().unwrap().extend_from_slice(line);
    }
    tree.put("ledger/ledger.jsonl", files[0].clone());
    std::fs::write(site.join("ledger/ledger.jsonl"), &files[0]).unwrap();
    std::fs::create_dir_all(site.join("ledger/segments")).unwrap();
    for (i, f) in files.iter().enumerate().skip(1) {
        let p = format!("ledger/segments/{:06}.jsonl", i);
        std::fs::write(site.join(&p), f).unwrap();
        tree.put(p, f.clone());
    }
    let html = page(&PageInput { tree: &tree, built_at: "2026-12-01T00:00:00Z", witness: None, public_texts: None, witness_on: false, window_since: None }).unwrap();
    std::fs::write(site.join("index.html"), &html).unwrap();
    eprintln!("{} files, page {} bytes", files.len(), html.len());
}
