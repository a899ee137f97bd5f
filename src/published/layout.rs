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

/// The seqs one bucket of a segmented exhibit's per-line proofs covers: bucket `B` holds the
/// proofs of the lines with seqs `B*4096+1 ..= (B+1)*4096`, at most one a seq, so at most
/// 4,096 files (docs/witness.md#proof-folders).
pub const PROOF_BUCKET_SEQS: u64 = 4096;

/// The most buckets a six-digit name counts (`000000` to `999999`): a line past seq
/// 4,096,000,000 has its proof in `other/` (docs/witness.md#proof-folders).
pub const PROOF_BUCKETS: u64 = 1_000_000;

/// Where, under `ledger/witness/proofs/`, one proof lies (docs/witness.md#proof-folders): the
/// protocol's flat path (a one-file exhibit's, the prereg's, and every proof published before
/// the exhibit was segmented), a seq bucket `NNNNNN/`, or `other/` (a store entry no chain line
/// names when it is first published).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum ProofPlace {
    Flat,
    Bucket(u32),
    Other,
}

impl ProofPlace {
    /// The folder of the proof of the chain line with seq `seq` (1 or more) in a segmented
    /// exhibit: its bucket, `(seq-1)/4096` zero-padded to six digits, so that name order is
    /// seq order; `other/` past the last six-digit bucket, or for a seq below 1.
    pub fn of_line(seq: i64) -> ProofPlace {
        u64::try_from(seq)
            .ok()
            .filter(|&s| s >= 1)
            .map(|s| (s - 1) / PROOF_BUCKET_SEQS)
            .filter(|&b| b < PROOF_BUCKETS)
            .map_or(ProofPlace::Other, |b| ProofPlace::Bucket(b as u32))
    }

    /// The path of the proof named `name` (`<entry_id>.ots`) relative to `proofs/`.
    pub fn rel(self, name: &str) -> String {
        match self {
            ProofPlace::Flat => name.to_string(),
            ProofPlace::Bucket(b) => format!("{b:06}/{name}"),
            ProofPlace::Other => format!("{OTHER_PROOFS}/{name}"),
        }
    }

    /// A path relative to `proofs/` split into its place and its file name (the name not
    /// checked); `None` for a folder that is no place's.
    pub fn split(rel: &str) -> Option<(ProofPlace, &str)> {
        match rel.split_once('/') {
            None => Some((ProofPlace::Flat, rel)),
            Some((folder, name)) => Some((ProofPlace::of_folder(folder)?, name)),
        }
    }

    /// The place a folder of `proofs/` is: `NNNNNN` (six digits) or `other`.
    pub fn of_folder(folder: &str) -> Option<ProofPlace> {
        if folder == OTHER_PROOFS {
            return Some(ProofPlace::Other);
        }
        (folder.len() == 6 && folder.bytes().all(|b| b.is_ascii_digit()))
            .then(|| folder.parse().ok().map(ProofPlace::Bucket))
            .flatten()
    }

    /// In four bytes (a list of a million places: docs/scale.md#memory).
    pub fn pack(self) -> u32 {
        match self {
            ProofPlace::Bucket(b) => b,
            ProofPlace::Flat => u32::MAX,
            ProofPlace::Other => u32::MAX - 1,
        }
    }

    pub fn unpack(v: u32) -> ProofPlace {
        match v {
            u32::MAX => ProofPlace::Flat,
            x if x == u32::MAX - 1 => ProofPlace::Other,
            b => ProofPlace::Bucket(b),
        }
    }
}

/// The folder of `proofs/` for the proofs of store entries no chain line names.
pub const OTHER_PROOFS: &str = "other";

/// A path under `ledger/witness/proofs/` (relative to it) of the output's grammar: a witness
/// proof's name at the top, or `<entry_id>.ots` in a bucket `NNNNNN/` or in `other/`
/// (docs/witness.md#proof-folders).
pub fn is_witness_proof_path(rel: &str) -> bool {
    match ProofPlace::split(rel) {
        Some((ProofPlace::Flat, name)) => is_witness_proof(name),
        Some((_, name)) => digest_then(name, ".ots").is_some(),
        None => false,
    }
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
                is_witness_proof_path(name)
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
            } else if let Some(name) = rel.strip_prefix("ledger/tree/") {
                // The tree view of the chain (docs/tree.md#layout).
                exhibit_protocol::tree::TreeFile::parse(name).is_some()
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

/// `rel` split into its folder (`""` at the root) and its name.
pub fn folder_and_name(rel: &str) -> (&str, &str) {
    rel.rsplit_once('/').unwrap_or(("", rel))
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
            format!("ledger/witness/proofs/000000/{d}.ots"),
            format!("ledger/witness/proofs/999999/{d}.ots"),
            format!("ledger/witness/proofs/other/{d}.ots"),
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
            format!("ledger/witness/proofs/00000/{d}.ots"),
            format!("ledger/witness/proofs/0000000/{d}.ots"),
            format!("ledger/witness/proofs/00000a/{d}.ots"),
            format!("ledger/witness/proofs/+00001/{d}.ots"),
            format!("ledger/witness/proofs/others/{d}.ots"),
            format!("ledger/witness/proofs/000000/prereg_{d}.ots"),
            format!("ledger/witness/proofs/other/prereg_{d}.ots"),
            format!("ledger/witness/proofs/000000/000000/{d}.ots"),
            format!("ledger/witness/proofs/000000/{d}.ots.html"),
            "ledger/witness/proofs/000000/notes.txt".into(),
            "ledger/witness/proofs/000000/".into(),
            format!("ledger/witness/proofs/other/other/{d}.ots"),
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

    #[test]
    fn a_lines_proof_bucket_is_its_seq_s_block_of_4096_named_in_seq_order() {
        // Catches a bucket off by one at a block's edge (seq 4096 with 4097, or seq 1 not in
        // 000000), a name whose order is not the seqs' (no zero padding), a seq past the
        // six-digit names given a seventh digit, and a place that does not survive packing.
        let name = |seq: i64| ProofPlace::of_line(seq).rel("x.ots");
        assert_eq!(name(1), "000000/x.ots");
        assert_eq!(name(4096), "000000/x.ots");
        assert_eq!(name(4097), "000001/x.ots");
        assert_eq!(name(8192), "000001/x.ots");
        assert_eq!(name(8193), "000002/x.ots");
        assert_eq!(name(1_000_000), "000244/x.ots");
        assert_eq!(name(4_096_000_000), "999999/x.ots");
        assert_eq!(name(4_096_000_001), "other/x.ots");
        assert_eq!(name(0), "other/x.ots");
        assert_eq!(name(-5), "other/x.ots");
        // Each bucket holds exactly 4,096 seqs, and name order is seq order across buckets.
        let mut last = String::new();
        let mut in_bucket = 0;
        for seq in 1..=3 * 4096 + 7 {
            let n = name(seq);
            assert!(n >= last, "{n} after {last}");
            if n == last {
                in_bucket += 1;
            } else {
                assert!(last.is_empty() || in_bucket == 4096, "{last}: {in_bucket}");
                in_bucket = 1;
            }
            last = n;
        }
        assert!(name(99_999 * 4096 + 1) < name(100_000 * 4096 + 1));
        for p in [
            ProofPlace::Flat,
            ProofPlace::Other,
            ProofPlace::Bucket(0),
            ProofPlace::Bucket(999_999),
        ] {
            assert_eq!(ProofPlace::unpack(p.pack()), p);
            let rel = p.rel("y.ots");
            assert_eq!(ProofPlace::split(&rel), Some((p, "y.ots")));
        }
        assert_eq!(ProofPlace::split("12345/y.ots"), None);
    }
}
