//! The tail's side channels (docs/build.md#safety, docs/witness.md): `runs.jsonl`, every line of
//! `seal.jsonl`, each entry's `calendars` and REPORT.md are published, so every byte of them is
//! either re-derived, passed by the identifier guard, or refused — and a withheld seq's clocks in
//! them are cut to its day in the header's `anchor_tz`, the same cut `index.json` and
//! `withheld.json` make, so no two published files together pin a withheld line finer than its
//! day.
//!
//! The tail's files are machine-written JSON lines, read as a ledger line is (docs/guard.md,
//! context `LedgerString`): every key and every string is scanned, except a string that *is* a
//! digest, a timestamp or a day (typed values, as the registry's digest and clock fields are
//! not scanned — a digest's digits are not an identifier), and every integer is held to the
//! identifier-sized rule.

use exhibit_protocol::Digest;
use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};

use exhibit_protocol::days::{self, DayDeriver};

use exhibit_protocol::guard::{self, Context, Finding, IntegerField};

/// A string that is a typed value: a digest, a timestamp or a day.
fn typed(s: &str) -> bool {
    Digest::is_hex(s) || days::parse_timestamp(s).is_some() || days::is_day(s)
}

/// The codes of every identifier's shape a store file's string carries (empty: it may be
/// published): a typed value passes, anything else is a ledger string.
pub fn guard_codes(text: &str) -> Vec<&'static str> {
    if typed(text) {
        return Vec::new();
    }
    guard::scan(text, Context::LedgerString)
        .into_iter()
        .map(Finding::code)
        .collect()
}

/// Every finding in one JSON value of a store file (keys, strings, integers, at any depth).
fn scan_value(value: &serde_json::Value, out: &mut BTreeSet<Finding>) {
    match value {
        serde_json::Value::String(s) if !typed(s) => {
            out.extend(guard::scan(s, Context::LedgerString));
        }
        serde_json::Value::Number(n) => {
            let integer = n
                .as_i64()
                .or_else(|| n.as_u64().map(|u| i64::try_from(u).unwrap_or(i64::MAX)));
            match integer {
                Some(i) => out.extend(guard::scan_integer(i, IntegerField::Other)),
                // A float: its digits are read as text.
                None => out.extend(guard::scan(&n.to_string(), Context::LedgerString)),
            }
        }
        serde_json::Value::Array(items) => items.iter().for_each(|v| scan_value(v, out)),
        serde_json::Value::Object(map) => {
            for (k, v) in map {
                out.extend(guard::scan(k, Context::LedgerString));
                scan_value(v, out);
            }
        }
        _ => {}
    }
}

/// The day cut of the anchor zone: the day a moment falls on in the header's `anchor_tz`
/// (UTC when the zone is unknown — the ledger would not have verified).
pub struct DayCut {
    deriver: Option<DayDeriver>,
}

impl DayCut {
    pub fn new(anchor_tz: &str) -> DayCut {
        DayCut {
            deriver: days::zone(anchor_tz).map(DayDeriver::new),
        }
    }

    pub fn day(&mut self, secs: i64) -> String {
        match &mut self.deriver {
            Some(d) => d.day_of(secs),
            None => days::civil_from_days(secs.div_euclid(86_400)),
        }
    }

    /// `HH:MM` of the moment in the anchor zone.
    pub fn local_minute(&mut self, secs: i64) -> String {
        let offset = match &mut self.deriver {
            Some(d) => d.offset_at(secs),
            None => 0,
        };
        minute_of(secs + offset)
    }
}

/// `HH:MM` of a moment (UTC, or already shifted).
pub fn minute_of(secs: i64) -> String {
    let s = secs.rem_euclid(86_400);
    format!("{:02}:{:02}", s / 3600, s % 3600 / 60)
}

/// Where `YYYY-MM-DDTHH:MM:SSZ` could start at byte `i` of `b`.
fn timestamp_at(b: &[u8], i: usize) -> Option<i64> {
    let t = b.get(i..i + 20)?;
    if t[4] != b'-' || t[7] != b'-' || t[10] != b'T' || t[13] != b':' || t[16] != b':' {
        return None;
    }
    if t[19] != b'Z' {
        return None;
    }
    days::parse_timestamp(std::str::from_utf8(t).ok()?)
}

/// `text` with every `YYYY-MM-DDTHH:MM:SSZ` that names one of `private` replaced by its day in
/// the anchor zone. Linear in the text; borrowed when nothing is cut.
pub fn cut_moments<'t>(text: &'t str, private: &BTreeSet<i64>, cut: &mut DayCut) -> Cow<'t, str> {
    if private.is_empty() {
        return Cow::Borrowed(text);
    }
    let b = text.as_bytes();
    let mut out: Option<String> = None;
    let mut copied = 0;
    let mut i = 0;
    while i + 20 <= b.len() {
        if b[i].is_ascii_digit()
            && let Some(t) = timestamp_at(b, i)
            && private.contains(&t)
        {
            let o = out.get_or_insert_with(|| String::with_capacity(text.len()));
            o.push_str(&text[copied..i]);
            o.push_str(&cut.day(t));
            i += 20;
            copied = i;
            continue;
        }
        i += 1;
    }
    match out {
        None => Cow::Borrowed(text),
        Some(mut o) => {
            o.push_str(&text[copied..]);
            Cow::Owned(o)
        }
    }
}

/// Each line of a JSON-lines file that trips the guard: (line number from 1, codes). A line
/// that is not JSON is scanned whole as one ledger string.
pub fn guard_lines(text: &str) -> Vec<(usize, Vec<&'static str>)> {
    text.split('\n')
        .enumerate()
        .filter(|(_, line)| !line.is_empty())
        .filter_map(|(i, line)| {
            let mut found = BTreeSet::new();
            match serde_json::from_str::<serde_json::Value>(line) {
                Ok(v) => scan_value(&v, &mut found),
                Err(_) => found.extend(guard::scan(line, Context::LedgerString)),
            }
            let codes: Vec<&'static str> = found.into_iter().map(Finding::code).collect();
            (!codes.is_empty()).then_some((i + 1, codes))
        })
        .collect()
}

/// The minutes (`HH:MM`, UTC and anchor zone) of the private moments that no public moment
/// shares: a text printing one names a withheld line's minute. Maps minute → private moments.
pub fn private_minutes<'a>(
    private: &BTreeSet<i64>,
    public: impl IntoIterator<Item = &'a i64>,
    cut: &mut DayCut,
) -> BTreeMap<String, BTreeSet<i64>> {
    let mut shared: BTreeSet<String> = BTreeSet::new();
    for &t in public {
        shared.insert(minute_of(t));
        shared.insert(cut.local_minute(t));
    }
    let mut out: BTreeMap<String, BTreeSet<i64>> = BTreeMap::new();
    for &t in private {
        for m in [minute_of(t), cut.local_minute(t)] {
            if !shared.contains(&m) {
                out.entry(m).or_default().insert(t);
            }
        }
    }
    out
}

/// Whether `text` prints `minute` (`HH:MM`) as a clock: not glued to another digit or to a
/// `:`-prefixed number before it (so `13:03:04` does not print `03:04`, but `03:04:05` does).
pub fn prints_minute(text: &str, minute: &str) -> bool {
    let b = text.as_bytes();
    let mut from = 0;
    while let Some(at) = text[from..].find(minute) {
        let i = from + at;
        let before_ok = i == 0 || !(b[i - 1].is_ascii_digit() || b[i - 1] == b':');
        let end = i + minute.len();
        let after_ok = end >= b.len() || !b[end].is_ascii_digit();
        if before_ok && after_ok {
            return true;
        }
        from = i + 1;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn private_moments_are_cut_to_the_anchor_zones_day() {
        let t = days::parse_timestamp("2026-10-25T03:04:05Z").unwrap();
        let mut cut = DayCut::new("America/New_York");
        let private: BTreeSet<i64> = [t].into();
        let text = r#"{"run_at":"2026-10-25T03:04:05Z","other":"2026-10-25T03:04:06Z"}"#;
        assert_eq!(
            cut_moments(text, &private, &mut cut),
            r#"{"run_at":"2026-10-24","other":"2026-10-25T03:04:06Z"}"#
        );
        assert!(matches!(
            cut_moments("nothing here", &private, &mut cut),
            Cow::Borrowed(_)
        ));
        assert_eq!(cut.local_minute(t), "23:04");
    }

    #[test]
    fn store_lines_are_guarded_and_typed_values_pass() {
        let digest = "1234567890".repeat(6) + "abcd";
        let ok = format!(
            r#"{{"file":"WITNESS_PREREG.md","sha256":"{digest}","sealed_at":"2026-10-30T13:21:32Z","day":"2026-10-30","n":321}}"#
        );
        assert!(guard_lines(&ok).is_empty(), "{:?}", guard_lines(&ok));
        for bad in [
            r#"{"note":"ops@example.com"}"#,
            r#"{"chat":-1001234567890}"#,
            r#"{"to":"+1 415 555 0100"}"#,
            r#"{"ops@example.com":1}"#,
        ] {
            assert_eq!(guard_lines(bad).len(), 1, "{bad}");
        }
        assert!(guard_codes("https://alice.btc.calendar.opentimestamps.org").is_empty());
        assert!(!guard_codes("https://alice.example/ops@example.com").is_empty());
    }

    #[test]
    fn minutes_are_found_as_clocks_only() {
        assert!(prints_minute("at 03:04 a line", "03:04"));
        assert!(prints_minute("03:04:05", "03:04"));
        assert!(!prints_minute("13:04", "03:04"));
        assert!(!prints_minute("12:03:04", "03:04"));
        assert!(!prints_minute("03:045", "03:04"));
    }
}
