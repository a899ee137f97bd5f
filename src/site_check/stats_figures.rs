//! `exhibit verify SITE` holds the figures of `ledger/STATS.json` to what it re-derived, as the
//! page does beside each of its tiles (`figures` in assets/page.js; docs/scale.md#stats-figures):
//! the published and withheld lines, the lines vouched for by a posted head, severed by a
//! withheld line or awaiting the next head, the posted heads that check out, and the head. A
//! figure the publisher states otherwise fails the page; before this, it passed this command.

use std::collections::BTreeSet;

use serde_json::Value;

use crate::site_check::outcome::FileProblem;

/// What this command re-derived, counted as the page counts it.
pub struct Derived {
    /// Readable entry lines.
    pub published: u64,
    /// Items of the withheld list.
    pub withheld: u64,
    pub coverage: Coverage,
    /// Posts whose four checks pass and whose proof's header does not fail.
    pub heads_ok: u64,
    /// The head, when the chain re-derives.
    pub head: Option<String>,
    /// The released texts the site holds, when its page carries them (and so counts them).
    pub texts: Option<u64>,
}

#[derive(Debug, Default, PartialEq, Eq)]
pub struct Coverage {
    pub pinned: u64,
    pub severed: u64,
    pub awaiting: u64,
}

/// `coverage` in assets/page.js: a published line is vouched for when the first posted head at
/// or after it comes with no withheld line in between; a withheld line in between severs it; no
/// head after it, it awaits one. `published`: the seqs of the readable entry lines;
/// `withheld`: the withheld list's seqs; `heads`: the seqs of the posts that check out.
pub fn coverage(published: &[i64], withheld: &[i64], heads: &BTreeSet<i64>) -> Coverage {
    // The page's order: every line, then every withheld item, sorted stably by seq.
    let mut all: Vec<(i64, bool)> = published.iter().map(|&s| (s, true)).collect();
    all.extend(withheld.iter().map(|&s| (s, false)));
    all.sort_by_key(|&(seq, _)| seq);
    let mut cov = Coverage::default();
    let (mut head_ahead, mut withheld_before) = (false, false);
    for &(seq, published) in all.iter().rev() {
        if heads.contains(&seq) {
            head_ahead = true;
            withheld_before = false;
        }
        if !published {
            withheld_before = true;
            continue;
        }
        match (head_ahead, withheld_before) {
            (false, _) => cov.awaiting += 1,
            (true, false) => cov.pinned += 1,
            (true, true) => cov.severed += 1,
        }
    }
    cov
}

/// A JSON value as the page's `String(x)` writes it, for the scalars a count can be.
fn page_string(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Number(n) => match n.as_f64() {
            Some(f) if f.fract() == 0.0 && f.abs() < 1e21 => format!("{}", f as i128),
            _ => n.to_string(),
        },
        Value::Array(items) => items
            .iter()
            .map(|i| match i {
                Value::Null => String::new(),
                other => page_string(other),
            })
            .collect::<Vec<_>>()
            .join(","),
        Value::Object(_) => "[object Object]".into(),
        Value::Bool(b) => b.to_string(),
        Value::Null => "null".into(),
    }
}

/// `STATS.json`'s figures against `derived`, each where the file gives it (the page reads a
/// figure's `count` when it is there and not null; the head when it is a string).
pub fn check(stats: &Value, derived: &Derived, problems: &mut Vec<FileProblem>) {
    let count = |section: &str, key: &str| {
        stats
            .get(section)
            .and_then(|s| s.get(key))
            .filter(|c| c.is_object())
            .and_then(|c| c.get("count"))
            .filter(|c| !c.is_null())
    };
    let c = &derived.coverage;
    let figures = [
        ("lines", "published", "published lines", derived.published),
        ("lines", "withheld", "withheld lines", derived.withheld),
        (
            "coverage",
            "pinned",
            "lines vouched for by a posted head",
            c.pinned,
        ),
        (
            "coverage",
            "severed",
            "lines severed by a withheld line",
            c.severed,
        ),
        (
            "coverage",
            "awaiting_head",
            "lines awaiting the next posted head",
            c.awaiting,
        ),
        (
            "anchors",
            "ok",
            "posted heads that check out",
            derived.heads_ok,
        ),
    ];
    for (section, key, what, mine) in figures {
        let Some(theirs) = count(section, key) else {
            continue;
        };
        if page_string(theirs) != mine.to_string() {
            problems.push(mismatch(format!(
                "{section}.{key}.count is {theirs}; the site re-derives {mine} {what}, as the page counts them"
            )));
        }
    }
    // `P.texts.published` when it is a number, else `P.published.count`.
    let texts = stats.get("public_texts");
    let theirs = texts
        .and_then(|p| p.get("texts"))
        .and_then(|t| t.get("published"))
        .filter(|n| n.is_number())
        .or_else(|| count("public_texts", "published"));
    if let (Some(mine), Some(theirs)) = (derived.texts, theirs)
        && page_string(theirs) != mine.to_string()
    {
        problems.push(mismatch(format!(
            "the released texts' count is {theirs}; the site holds {mine}, as the page counts them"
        )));
    }
    let theirs = stats.get("ledger").and_then(|l| l.get("head"));
    if let (Some(mine), Some(Value::String(theirs))) = (&derived.head, theirs)
        && mine != theirs
    {
        problems.push(mismatch(format!(
            "ledger.head is {theirs}; the chain re-derives to {mine}"
        )));
    }
}

fn mismatch(detail: String) -> FileProblem {
    FileProblem {
        file: "ledger/STATS.json".into(),
        code: "stats_figure_mismatch".into(),
        detail,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coverage_is_counted_as_the_page_counts_it() {
        // seqs 1..=10; heads posted at 4 and 8; 6 withheld; 10 after the last head.
        let published: Vec<i64> = (1..=10).filter(|&s| s != 6).collect();
        let cov = coverage(&published, &[6], &BTreeSet::from([4, 8]));
        assert_eq!(
            cov,
            Coverage {
                pinned: 6,
                severed: 1,
                awaiting: 2
            }
        );
        // A head at a withheld seq pins nothing before it.
        let cov = coverage(&[1, 2], &[3], &BTreeSet::from([3]));
        assert_eq!((cov.pinned, cov.severed, cov.awaiting), (0, 2, 0));
    }

    #[test]
    fn a_count_is_compared_as_the_page_writes_it() {
        let derived = Derived {
            published: 3,
            withheld: 1,
            coverage: Coverage {
                pinned: 2,
                severed: 0,
                awaiting: 1,
            },
            heads_ok: 1,
            head: Some("ab".into()),
            texts: Some(2),
        };
        let problems = |stats: &str| {
            let mut p = Vec::new();
            check(&serde_json::from_str(stats).unwrap(), &derived, &mut p);
            p.into_iter().map(|p| p.detail).collect::<Vec<_>>()
        };
        // Right, in the forms the page's String() reads alike; absent and null compare nothing.
        let right = r#"{"lines":{"published":{"count":3},"withheld":{"count":"1"}},
            "coverage":{"pinned":{"count":2.0},"severed":{"count":null},"awaiting_head":{"count":[1]}},
            "anchors":{"ok":{"count":1}},"ledger":{"head":"ab"},"public_texts":{"published":{"count":2}}}"#;
        assert_eq!(problems(right), Vec::<String>::new());
        assert!(problems("{}").is_empty() && problems("[]").is_empty());
        let wrong = right
            .replace(r#""count":2.0"#, r#""count":3"#)
            .replace(r#""head":"ab""#, r#""head":"cd""#)
            .replace(r#""published":{"count":2}"#, r#""published":{"count":5}"#);
        let said = problems(&wrong);
        assert_eq!(said.len(), 3, "{said:?}");
        assert!(
            said[0].starts_with("coverage.pinned.count is 3"),
            "{said:?}"
        );
    }
}
