//! The exhibit's size against the host's published limits (docs/hosting.md#limits): recorded in
//! `STATS.json` and said after each build, with a warning from 80% of a limit, so an operator
//! learns years ahead that the folder must move to object storage, not on the day a push fails.

use serde::Serialize;

use crate::published::output_tree::Tree;

/// GitHub Pages' published limits: a published site of at most 1 GB, and (git's own limit on
/// github.com) no file over 100 MB. Decimal units, as GitHub states them.
pub const SITE_BYTES: u64 = 1_000_000_000;
pub const FILE_BYTES: u64 = 100_000_000;
/// A warning from this share of a limit, in percent.
pub const WARN_PERCENT: u64 = 80;

/// What the files of a tree weigh.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Size {
    pub bytes: u64,
    pub files: u64,
    pub largest_file: Largest,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Default)]
pub struct Largest {
    pub bytes: u64,
    pub path: String,
}

/// `STATS.json`'s `hosting`: the files of this publication but the three head files, which are
/// written after it and could not count themselves (STATS.json, SNAPSHOTS.jsonl, the page); the
/// build's summary gives the whole folder.
#[derive(Debug, Clone, Serialize)]
pub struct HostingStats {
    pub bytes: u64,
    pub file_bytes_limit: u64,
    pub files: u64,
    pub largest_file: Largest,
    pub not_counted: &'static str,
    pub site_bytes_limit: u64,
}

/// The head files `HostingStats` leaves out.
pub const NOT_COUNTED: &str = "ledger/STATS.json, ledger/SNAPSHOTS.jsonl, index.html: written after these figures (the build's summary counts them)";

/// Every file of `tree`: sizes are known without reading any file.
pub fn size(tree: &Tree) -> Size {
    let mut s = Size {
        bytes: 0,
        files: 0,
        largest_file: Largest::default(),
    };
    for (path, content) in tree.iter() {
        let len = content.len();
        s.bytes += len;
        s.files += 1;
        // Ties go to the first path in name order, so the record is deterministic.
        if len > s.largest_file.bytes {
            s.largest_file = Largest {
                bytes: len,
                path: path.into_owned(),
            };
        }
    }
    s
}

impl HostingStats {
    pub fn of(size: Size) -> HostingStats {
        HostingStats {
            bytes: size.bytes,
            file_bytes_limit: FILE_BYTES,
            files: size.files,
            largest_file: size.largest_file,
            not_counted: NOT_COUNTED,
            site_bytes_limit: SITE_BYTES,
        }
    }
}

/// `bytes` as a person reads it (decimal, as the limits are stated).
pub fn human(bytes: u64) -> String {
    match bytes {
        b if b >= 1_000_000_000 => format!("{:.2} GB", b as f64 / 1e9),
        b if b >= 1_000_000 => format!("{:.1} MB", b as f64 / 1e6),
        b if b >= 1_000 => format!("{:.1} kB", b as f64 / 1e3),
        b => format!("{b} bytes"),
    }
}

/// The summary's line about the whole folder.
pub fn said(size: &Size) -> String {
    format!(
        "site: {} in {} file(s), largest {} ({}); GitHub Pages allows {} a site and {} a file (docs/hosting.md)",
        human(size.bytes),
        size.files,
        size.largest_file.path,
        human(size.largest_file.bytes),
        human(SITE_BYTES),
        human(FILE_BYTES),
    )
}

/// A warning for each limit the folder has reached 80% of.
pub fn warnings(size: &Size) -> Vec<String> {
    let mut out = Vec::new();
    let share = |n: u64, of: u64| (u128::from(n) * 100 / u128::from(of)) as u64;
    let site = share(size.bytes, SITE_BYTES);
    if site >= WARN_PERCENT {
        out.push(format!(
            "the site is {} of GitHub Pages' {} a site ({site}%): plan its move to object storage behind a CDN before it passes the limit (docs/hosting.md#moving)",
            human(size.bytes),
            human(SITE_BYTES)
        ));
    }
    let file = share(size.largest_file.bytes, FILE_BYTES);
    if file >= WARN_PERCENT {
        out.push(format!(
            "{} is {} of GitHub's {} a file ({file}%): lower [publish] segment_bytes or withheld_bytes in exhibit.toml (docs/hosting.md#limits)",
            size.largest_file.path,
            human(size.largest_file.bytes),
            human(FILE_BYTES)
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sized(bytes: u64, largest: u64) -> Size {
        Size {
            bytes,
            files: 3,
            largest_file: Largest {
                bytes: largest,
                path: "ledger/segments/000001.jsonl".into(),
            },
        }
    }

    #[test]
    fn a_warning_from_80_percent_of_each_limit_and_not_below() {
        // Catches a warning at the wrong threshold, on the wrong limit, or a share that
        // overflows or rounds up.
        assert!(warnings(&sized(799_999_999, 79_999_999)).is_empty());
        let w = warnings(&sized(800_000_000, 1));
        assert_eq!(w.len(), 1);
        assert!(w[0].contains("(80%)") && w[0].contains("a site"), "{w:?}");
        let w = warnings(&sized(1, 80_000_000));
        assert_eq!(w.len(), 1);
        assert!(
            w[0].contains("ledger/segments/000001.jsonl") && w[0].contains("segment_bytes"),
            "{w:?}"
        );
        let w = warnings(&sized(u64::MAX, u64::MAX));
        assert_eq!(w.len(), 2);
    }

    #[test]
    fn the_tree_is_counted_file_by_file_and_the_first_largest_kept() {
        let mut t = Tree::default();
        t.put("a", vec![0; 5]);
        t.put("b", vec![0; 7]);
        t.put("c", vec![0; 7]);
        let s = size(&t);
        assert_eq!((s.bytes, s.files), (19, 3));
        assert_eq!(s.largest_file.path, "b");
        assert_eq!(human(1_234_567), "1.2 MB");
    }
}
