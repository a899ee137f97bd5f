//! The output tree's own grammar (docs/build.md#safety, "Names are data until checked"): every
//! path exhibit writes, and every name it takes from HEAD's trees, the store, the sources or the
//! anchors folder before that name becomes a path, must be one of these forms. A name that is not
//! is refused, naming it — never joined to a folder.

use exhibit_protocol::Digest;

/// `<64 hex>` followed by `suffix`.
fn digest_then<'a>(name: &'a str, suffix: &str) -> Option<&'a str> {
    name.strip_suffix(suffix).filter(|d| Digest::is_hex(d))
}

/// `<entry_id>.ots` or `prereg_<sha256>.ots`: a witness proof's name.
pub fn is_witness_proof(name: &str) -> bool {
    digest_then(name, ".ots").is_some()
        || name
            .strip_prefix("prereg_")
            .and_then(|n| digest_then(n, ".ots"))
            .is_some()
}

/// `YYYY-MM-DD.txt` or `YYYY-MM-DD.txt.ots`: an anchor post or its proof.
pub fn is_anchor_file(name: &str) -> bool {
    let date = name
        .strip_suffix(".txt.ots")
        .or_else(|| name.strip_suffix(".txt"));
    date.is_some_and(exhibit_protocol::days::is_day)
}

/// `<sent_sha256>.txt`: a released public text.
pub fn is_public_text(name: &str) -> bool {
    digest_then(name, ".txt").is_some()
}

/// The number of a part of a segmented exhibit's witness index from its name: `NNNNNN.json`,
/// the number zero-padded to six digits (more digits only for a number that needs them), not
/// zero (docs/witness.md#parts).
pub fn witness_part_number(name: &str) -> Option<u64> {
    let digits = name.strip_suffix(".json")?;
    if digits.len() < 6 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let n: u64 = digits.parse().ok().filter(|&n| n >= 1)?;
    // One name per number: `0000001.json` is not part 1's.
    (format!("{n:06}") == digits).then_some(n)
}

/// A path (with `/`, relative to DIR) of the output tree.
pub fn is_output_path(rel: &str) -> bool {
    match rel {
        ".nojekyll"
        | "index.html"
        | "ledger/.gitattributes"
        | "ledger/ledger.jsonl"
        | "ledger/withheld.json"
        | "ledger/readings.json"
        | "ledger/STATS.json"
        | "ledger/SNAPSHOTS.jsonl"
        | "ledger/anchors/index.json"
        | "ledger/witness/index.json"
        | "ledger/witness/REPORT.md"
        | "ledger/witness/runs.jsonl"
        | "ledger/witness/seal.jsonl"
        | "ledger/witness/WITNESS_PREREG.md"
        | "ledger/public_texts/index.json" => true,
        _ => {
            if let Some(name) = rel.strip_prefix("ledger/anchors/") {
                is_anchor_file(name)
            } else if let Some(name) = rel.strip_prefix("ledger/witness/proofs/") {
                is_witness_proof(name)
            } else if let Some(name) = rel.strip_prefix("ledger/public_texts/index/") {
                // A segmented exhibit's public-texts index parts (docs/public-texts.md#parts).
                witness_part_number(name).is_some()
            } else if let Some(name) = rel.strip_prefix("ledger/public_texts/") {
                is_public_text(name)
            } else if let Some(name) = rel.strip_prefix("ledger/segments/") {
                // The published ledger's later files (docs/scale.md#names).
                segment_number(name).is_some()
            } else if let Some(name) = rel.strip_prefix("ledger/witness/index/") {
                // A segmented exhibit's witness index parts (docs/witness.md#parts).
                witness_part_number(name).is_some()
            } else if let Some(name) = rel.strip_prefix("ledger/withheld/") {
                // The withheld list's later files (docs/scale.md#withheld-files).
                withheld_part_number(name).is_some()
            } else if let Some(name) = rel.strip_prefix("ledger/witness/runs/") {
                // The witness run log's later files, named as the ledger's segments.
                segment_number(name).is_some()
            } else {
                false
            }
        }
    }
}

/// The number of a segment's file name (`000001.jsonl` → 1): exactly six decimal digits, not
/// all zero, then `.jsonl`; anything else is not a segment's name (docs/scale.md#names).
pub fn segment_number(name: &str) -> Option<u32> {
    let digits = name.strip_suffix(".jsonl")?;
    if digits.len() != 6 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok().filter(|&n| n >= 1)
}

/// The number of a withheld list's later file (`000001.json` → 1): exactly six decimal digits,
/// not all zero, then `.json` (docs/scale.md#withheld-files).
pub fn withheld_part_number(name: &str) -> Option<u32> {
    let digits = name.strip_suffix(".json")?;
    if digits.len() != 6 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok().filter(|&n| n >= 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_grammar_admits_exhibits_names_only() {
        let d = "ab".repeat(32);
        for ok in [
            format!("ledger/witness/proofs/{d}.ots"),
            format!("ledger/witness/proofs/prereg_{d}.ots"),
            "ledger/anchors/2026-10-24.txt".into(),
            "ledger/anchors/2026-10-24.txt.ots".into(),
            format!("ledger/public_texts/{d}.txt"),
            "index.html".into(),
            "ledger/segments/000001.jsonl".into(),
            "ledger/segments/999999.jsonl".into(),
            "ledger/witness/index/000001.json".into(),
            "ledger/witness/index/1000000.json".into(),
            "ledger/witness/runs/000001.jsonl".into(),
            "ledger/public_texts/index/000001.json".into(),
            "ledger/withheld/000001.json".into(),
            "ledger/withheld/999999.json".into(),
        ] {
            assert!(is_output_path(&ok), "{ok}");
        }
        for bad in [
            "ledger/witness/proofs/../../x.ots".to_string(),
            "ledger/witness/proofs/evil.html".into(),
            format!("ledger/witness/proofs/{d}.ots.html"),
            format!("ledger/witness/proofs/{}.ots", d.to_uppercase()),
            "ledger/anchors/2026-13-40.txt".into(),
            "ledger/anchors/x/2026-10-24.txt".into(),
            "ledger/evil.json".into(),
            "ledger/segments/000000.jsonl".into(),
            "ledger/segments/1.jsonl".into(),
            "ledger/segments/000001.jsonl.html".into(),
            "ledger/segments/x/000001.jsonl".into(),
            "ledger/witness/index/000000.json".into(),
            "ledger/witness/index/0000001.json".into(),
            "ledger/witness/index/00001.json".into(),
            "ledger/witness/index/000001.jsonl".into(),
            "ledger/witness/index/000001.json.html".into(),
            "ledger/witness/runs/000001.json".into(),
            "ledger/witness/runs/runs.jsonl".into(),
            "ledger/witness/index.json/000001.json".into(),
            "ledger/public_texts/index/000000.json".into(),
            format!("ledger/public_texts/index/{d}.txt"),
            "ledger/public_texts/index/000001.json.txt".into(),
            "ledger/public_texts/x/000001.json".into(),
            "ledger/withheld/000000.json".into(),
            "ledger/withheld/1000000.json".into(),
            "ledger/withheld/000001.jsonl".into(),
            "ledger/withheld/x/000001.json".into(),
            "ledger/withheld.json/000001.json".into(),
            "../index.html".into(),
            "/etc/passwd".into(),
        ] {
            assert!(!is_output_path(&bad), "{bad}");
        }
    }
}
