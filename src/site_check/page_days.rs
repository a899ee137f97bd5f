//! `exhibit verify SITE` derives each line's day as the page would: from the tz rules the page
//! carries (its `tz-rules-json` block), not from this binary's tz database
//! (docs/scale.md#the-pages-tz-rules). The page derives days only from that block, so a block
//! changed by hand makes the page fail lines this command passes; each such line is a problem of
//! `index.html` here, so that both give one answer.
//!
//! The rules are read exactly as `rulesZone`, `rulesOffset` and `zoneDay` in assets/verify.js
//! read them: a block that is not a JSON object or array (absent, empty, not JSON) leaves the page
//! on the browser's own tz data, which no command can answer for, and is not checked; rules for
//! another zone than the header's `anchor_tz` make the page call the header bad; rules for that
//! zone that are malformed stop the page.

use exhibit_protocol::days;
use exhibit_protocol::verify::{Entry, HEADER_SCHEMA, Header};
use serde_json::Value;

use crate::site_check::outcome::FileProblem;

/// The largest integer a page's number holds exactly (2^53 - 1), as `isSafeInt` reads it.
const MAX_SAFE: f64 = 9_007_199_254_740_991.0;

/// The page's rules, when they are rules for some zone.
pub struct PageDays {
    zone: Option<String>,
    tzdb: String,
    /// `None`: the rules are malformed (the page stops on them when they are the header's zone's).
    span: Option<Span>,
    /// Lines whose day the page's rules give otherwise than the line states.
    differ: u64,
    first: Option<String>,
}

struct Span {
    from: i64,
    until: i64,
    offsets: Vec<(i64, i64)>,
}

fn safe_int(v: &Value) -> Option<i64> {
    if let Some(i) = v.as_i64() {
        return (i.unsigned_abs() as f64 <= MAX_SAFE).then_some(i);
    }
    let f = v.as_f64()?;
    (f.fract() == 0.0 && f.abs() <= MAX_SAFE).then_some(f as i64)
}

/// `rulesZone`'s checks: a tz database name, a span of safe integers, and offsets that start at
/// the span's start, rise strictly, and are each within two days.
fn span_of(rules: &serde_json::Map<String, Value>) -> Option<Span> {
    rules.get("tzdb")?.as_str()?;
    let (from, until) = (
        safe_int(rules.get("from")?)?,
        safe_int(rules.get("until")?)?,
    );
    let mut offsets: Vec<(i64, i64)> = Vec::new();
    for pair in rules.get("offsets")?.as_array()? {
        let [at, offset] = pair.as_array()?.as_slice() else {
            return None;
        };
        let (at, offset) = (safe_int(at)?, safe_int(offset)?);
        let rises = match offsets.last() {
            None => at == from,
            Some(&(last, _)) => at > last,
        };
        if offset.abs() >= 2 * 86_400 || !rises {
            return None;
        }
        offsets.push((at, offset));
    }
    (!offsets.is_empty()).then_some(Span {
        from,
        until,
        offsets,
    })
}

impl PageDays {
    /// The rules of the page's `tz-rules-json` block (its decoded bytes), when the page reads
    /// them as rules: a JSON object or array.
    pub fn of_block(block: &[u8]) -> Option<PageDays> {
        let value: Value = serde_json::from_slice(block).ok()?;
        let empty = serde_json::Map::new();
        let rules = match &value {
            Value::Object(o) => o,
            Value::Array(_) => &empty,
            _ => return None,
        };
        Some(PageDays {
            zone: rules.get("zone").and_then(Value::as_str).map(str::to_owned),
            tzdb: rules
                .get("tzdb")
                .and_then(Value::as_str)
                .unwrap_or("?")
                .to_owned(),
            span: span_of(rules),
            differ: 0,
            first: None,
        })
    }

    /// The day the page derives for `t`, or `None` when it derives none (outside the span, or a
    /// year past 9999), as `zoneDay` does.
    fn day_at(span: &Span, t: i64) -> Option<String> {
        if t < span.from || t >= span.until {
            return None;
        }
        let i = span.offsets.partition_point(|&(at, _)| at <= t);
        let offset = span.offsets[i.checked_sub(1)?].1;
        let day = days::civil_from_days((t + offset).div_euclid(86_400));
        (day.len() == 10).then_some(day)
    }

    /// One readable entry line of the ledger, as it streams past. A line whose timestamp is not
    /// one gets no day from the page either: that is the line's own problem, the same in both
    /// verifiers.
    pub fn entry(&mut self, entry: &Entry<'_>) {
        let Some(span) = &self.span else { return };
        let object = &entry.object;
        let Some(stamp) = object.get_str("timestamp") else {
            return;
        };
        let Some(t) = days::parse_timestamp(stamp) else {
            return;
        };
        let stated = object.get_str("day");
        let derived = PageDays::day_at(span, t);
        if derived.is_some() && derived.as_deref() == stated {
            return;
        }
        self.differ += 1;
        if self.first.is_none() {
            self.first = Some(differs(entry.line, stamp, stated, derived.as_deref()));
        }
    }

    /// The problems of the page's rules against the ledger's header and lines.
    pub fn finish(self, header: Option<&Header>, problems: &mut Vec<FileProblem>) {
        // The page sets no zone for a missing or foreign header: it derives no day at all.
        let Some(header) = header.filter(|h| h.object.get_str("schema") == Some(HEADER_SCHEMA))
        else {
            return;
        };
        let Some(anchor_tz) = header.object.get_str("anchor_tz") else {
            return;
        };
        let problem = |detail: String| FileProblem {
            file: "index.html".into(),
            code: "page_tz_rules_mismatch".into(),
            detail,
        };
        if self.zone.as_deref() != Some(anchor_tz) {
            problems.push(problem(format!(
                "its tz rules (data block tz-rules-json) are for {}, not the header's anchor_tz {anchor_tz:?}: the page calls the header bad",
                self.zone.map_or("no zone".into(), |z| format!("{z:?}"))
            )));
        } else if self.span.is_none() {
            problems.push(problem(format!(
                "its tz rules for {anchor_tz} (data block tz-rules-json) are malformed: the page stops on them"
            )));
        } else if let Some(first) = self.first {
            problems.push(problem(format!(
                "its tz rules (data block tz-rules-json, tz database {}) give {} line(s) another day than they state, so the page fails them: first {first}",
                self.tzdb, self.differ
            )));
        }
    }
}

/// What is wrong with one line's day under the page's rules, as the page words it.
fn differs(line: u64, stamp: &str, stated: Option<&str>, derived: Option<&str>) -> String {
    let stated = stated.map_or("no day".into(), |d| format!("{d:?}"));
    match derived {
        Some(day) => format!(
            "line {line}: {stamp} falls on {day} by the page's rules; the line states {stated}"
        ),
        None => format!(
            "line {line}: {stamp} is outside the span of the page's rules, so the page derives no day for it"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(text: &str) -> PageDays {
        PageDays::of_block(text.as_bytes()).expect("rules")
    }

    #[test]
    fn the_block_is_read_as_the_page_reads_it() {
        // Not an object or array: the page falls back to the browser's data; nothing to check.
        for text in ["", "null", "5", "\"x\"", "{", "true"] {
            assert!(PageDays::of_block(text.as_bytes()).is_none(), "{text:?}");
        }
        // An array is rules for no zone.
        assert!(rules("[]").zone.is_none());
        let good =
            r#"{"tzdb":"2026f","zone":"UTC","from":0,"until":100,"offsets":[[0,0],[50,3600]]}"#;
        assert!(rules(good).span.is_some());
        // Each of rulesZone's refusals: a number written 1.0 is the page's integer 1.
        assert!(
            rules(&good.replace("[50,3600]", "[50.0,3600]"))
                .span
                .is_some()
        );
        for (from, to) in [
            ("[0,0]", "[1,0]"),
            ("[50,3600]", "[0,3600]"),
            ("[50,3600]", "[50,172800]"),
            ("[50,3600]", "[50,3600,1]"),
            ("[50,3600]", "[50,0.5]"),
            ("\"tzdb\":\"2026f\"", "\"tzdb\":5"),
            ("\"until\":100", "\"until\":9007199254740992"),
            ("[[0,0],[50,3600]]", "[]"),
        ] {
            assert!(rules(&good.replace(from, to)).span.is_none(), "{to}");
        }
    }

    #[test]
    fn days_are_derived_as_the_page_derives_them() {
        let r = rules(
            r#"{"tzdb":"2026f","zone":"X","from":0,"until":172800,"offsets":[[0,-3600],[86400,3600]]}"#,
        );
        let span = r.span.as_ref().unwrap();
        assert_eq!(PageDays::day_at(span, 0).as_deref(), Some("1969-12-31"));
        assert_eq!(PageDays::day_at(span, 3600).as_deref(), Some("1970-01-01"));
        assert_eq!(
            PageDays::day_at(span, 86_399).as_deref(),
            Some("1970-01-01")
        );
        assert_eq!(
            PageDays::day_at(span, 86_400).as_deref(),
            Some("1970-01-02")
        );
        assert_eq!(PageDays::day_at(span, 172_800), None);
        assert_eq!(PageDays::day_at(span, -1), None);
    }
}
