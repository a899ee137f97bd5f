//! The tail's side channels (docs/build.md#safety, docs/witness.md): `runs.jsonl`, every line of
//! `seal.jsonl`, each entry's `calendars` and REPORT.md are published, so every byte of them is
//! either re-derived, passed by the identifier guard, or refused — and a withheld seq's clocks in
//! them are cut to its day in the header's `anchor_tz`, the same cut `index.json` and
//! `withheld.json` make, so no two published files together pin a withheld line finer than its
//! day.
//!
//! The identifier guard is reached through [`guard_codes`] only, one wrapper to switch when the
//! guard's API changes.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};

use exhibit_protocol::days::{self, DayDeriver};

/// The codes of every identifier's shape `text` carries (empty: it may be published).
pub fn guard_codes(text: &str) -> Vec<&'static str> {
    exhibit_protocol::text_guard::guard(text)
        .into_iter()
        .map(|r| r.code())
        .collect()
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

/// Each line of a JSON-lines file that trips the guard: (line number from 1, codes).
pub fn guard_lines(text: &str) -> Vec<(usize, Vec<&'static str>)> {
    text.split('\n')
        .enumerate()
        .filter_map(|(i, line)| {
            let codes = guard_codes(line);
            (!codes.is_empty()).then_some((i + 1, codes))
        })
        .collect()
}

/// The minutes (`HH:MM`, UTC and anchor zone) of the private moments that no public moment
/// shares: a text printing one names a withheld line's minute. Maps minute → private moments.
pub fn private_minutes(
    private: &BTreeSet<i64>,
    public: &BTreeSet<i64>,
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
    fn minutes_are_found_as_clocks_only() {
        assert!(prints_minute("at 03:04 a line", "03:04"));
        assert!(prints_minute("03:04:05", "03:04"));
        assert!(!prints_minute("13:04", "03:04"));
        assert!(!prints_minute("12:03:04", "03:04"));
        assert!(!prints_minute("03:045", "03:04"));
    }
}
