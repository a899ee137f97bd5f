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
        minute_of(self.local(secs))
    }

    /// The moment shifted by the anchor zone's offset at it (its wall clock read as UTC).
    fn local(&mut self, secs: i64) -> i64 {
        let offset = match &mut self.deriver {
            Some(d) => d.offset_at(secs),
            None => 0,
        };
        secs + offset
    }
}

/// The minute of the day (0..1440) a moment falls in (UTC, or already shifted): the number
/// behind [`minute_of`]'s `HH:MM`.
fn minute_index(secs: i64) -> usize {
    (secs.rem_euclid(86_400) / 60) as usize
}

/// A set of small numbers (seconds or minutes of a day) as bits.
struct DayBits(Vec<u64>);

impl DayBits {
    fn new(n: usize) -> DayBits {
        DayBits(vec![0; n.div_ceil(64)])
    }
    fn insert(&mut self, i: usize) {
        self.0[i / 64] |= 1 << (i % 64);
    }
    fn contains(&self, i: usize) -> bool {
        self.0[i / 64] & (1 << (i % 64)) != 0
    }
}

/// What the published side prints of time, as far as the checks of a withheld seq's moments
/// read it: which private moments a published line or record prints too, the seconds of the
/// day (UTC) and the minutes (UTC or the anchor zone) published moments print. Made in one
/// pass over the published moments and the size of a day, not of the ledger: the sorted list of
/// every published moment it replaces was 29 MB at a million lines, and the set of its times of
/// day made from it 43 MB more for a moment (docs/scale.md#giving-memory-back).
pub struct PublicClocks {
    /// The private moments some published moment equals.
    shared: BTreeSet<i64>,
    /// Seconds of the day (UTC) some published moment falls on.
    seconds: DayBits,
    /// Minutes of the day, in UTC or in the anchor zone, some published moment prints.
    minutes: DayBits,
}

impl PublicClocks {
    pub fn of(
        is_private: impl Fn(i64) -> bool,
        public: impl IntoIterator<Item = i64>,
        cut: &mut DayCut,
    ) -> PublicClocks {
        let mut clocks = PublicClocks {
            shared: BTreeSet::new(),
            seconds: DayBits::new(86_400),
            minutes: DayBits::new(1_440),
        };
        for t in public {
            if is_private(t) {
                clocks.shared.insert(t);
            }
            clocks.seconds.insert(t.rem_euclid(86_400) as usize);
            clocks.minutes.insert(minute_index(t));
            clocks.minutes.insert(minute_index(cut.local(t)));
        }
        clocks
    }

    /// Whether a published moment equals `private` (asked only of the private moments it was
    /// made with).
    pub fn prints(&self, private: i64) -> bool {
        self.shared.contains(&private)
    }

    /// Whether a published moment falls on the same second of the day (UTC) as `t`.
    pub fn prints_time_of_day(&self, t: i64) -> bool {
        self.seconds.contains(t.rem_euclid(86_400) as usize)
    }
}

/// `HH:MM` of a moment (UTC, or already shifted).
pub fn minute_of(secs: i64) -> String {
    let s = secs.rem_euclid(86_400);
    format!("{:02}:{:02}", s / 3600, s % 3600 / 60)
}

/// The RFC 3339 timestamp starting at byte `i` of `b`, if one does: `YYYY-MM-DD`, `T`/`t` or a
/// space, `HH:MM:SS`, an optional fraction (`.` and digits), then `Z`/`z` or an offset
/// `+HH:MM`/`-HH:MM`. Gives the moment's second (a fraction falls within it, so is floored)
/// and the form's length in bytes.
fn timestamp_at(b: &[u8], i: usize) -> Option<(i64, usize)> {
    let t = b.get(i..i + 19)?;
    let digits = |r: std::ops::Range<usize>| r.into_iter().all(|k| t[k].is_ascii_digit());
    if t[4] != b'-' || t[7] != b'-' || !matches!(t[10], b'T' | b't' | b' ') {
        return None;
    }
    if t[13] != b':' || t[16] != b':' {
        return None;
    }
    if ![0..4, 5..7, 8..10, 11..13, 14..16, 17..19]
        .into_iter()
        .all(digits)
    {
        return None;
    }
    let mut end = i + 19;
    if b.get(end) == Some(&b'.') {
        let frac = b[end + 1..]
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .count();
        if frac == 0 {
            return None;
        }
        end += 1 + frac;
    }
    let offset = match b.get(end)? {
        b'Z' | b'z' => {
            end += 1;
            0
        }
        sign @ (b'+' | b'-') => {
            let o = b.get(end + 1..end + 6)?;
            if o[2] != b':' || ![0, 1, 3, 4].iter().all(|&k| o[k].is_ascii_digit()) {
                return None;
            }
            let hours = i64::from((o[0] - b'0') * 10 + (o[1] - b'0'));
            let minutes = i64::from((o[3] - b'0') * 10 + (o[4] - b'0'));
            if hours > 23 || minutes > 59 {
                return None;
            }
            end += 6;
            let secs = hours * 3600 + minutes * 60;
            if *sign == b'+' { secs } else { -secs }
        }
        _ => return None,
    };
    let mut plain = [0u8; 20];
    plain[..19].copy_from_slice(t);
    plain[10] = b'T';
    plain[19] = b'Z';
    let local = days::parse_timestamp(std::str::from_utf8(&plain).ok()?)?;
    Some((local - offset, end - i))
}

/// `text` with every RFC 3339 timestamp (`YYYY-MM-DDTHH:MM:SSZ`, with a fraction of a second,
/// a lowercase `t`/`z`, a space for the `T`, or an offset) that names one of `private` — falls
/// within its second — replaced by its day in the anchor zone. Linear in the text; borrowed when
/// nothing is cut.
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
            && let Some((t, len)) = timestamp_at(b, i)
            && private.contains(&t)
        {
            let o = out.get_or_insert_with(|| String::with_capacity(text.len()));
            o.push_str(&text[copied..i]);
            o.push_str(&cut.day(t));
            i += len;
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

/// The minutes of the day (UTC and anchor zone; keyed by a moment in that minute, already
/// shifted) of the private moments that no public moment shares: a text printing one names a
/// withheld line's minute (src/publication/layers/report_clocks.rs reads which minutes a text prints). Maps
/// minute → private moments.
pub fn private_minutes(
    private: &BTreeSet<i64>,
    public: &PublicClocks,
    cut: &mut DayCut,
) -> BTreeMap<i64, BTreeSet<i64>> {
    let mut out: BTreeMap<i64, BTreeSet<i64>> = BTreeMap::new();
    for &t in private {
        for m in [t, cut.local(t)] {
            if !public.minutes.contains(minute_index(m)) {
                out.entry(minute_index(m) as i64 * 60)
                    .or_default()
                    .insert(t);
            }
        }
    }
    out
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

    /// Issue 48: every RFC 3339 form of a withheld moment is cut, not only the plain one.
    #[test]
    fn every_rfc3339_form_of_a_private_moment_is_cut() {
        let t = days::parse_timestamp("2026-11-08T07:13:22Z").unwrap();
        let private: BTreeSet<i64> = [t].into();
        let mut cut = DayCut::new("UTC");
        for form in [
            "2026-11-08T07:13:22Z",
            "2026-11-08T07:13:22.123Z",
            "2026-11-08T07:13:22.999999999Z",
            "2026-11-08T09:13:22+02:00",
            "2026-11-08T09:13:22.5+02:00",
            "2026-11-08T02:13:22-05:00",
            "2026-11-08t07:13:22z",
            "2026-11-08 07:13:22Z",
            "2026-11-08T07:13:22+00:00",
            "2026-11-08T12:43:22+05:30",
        ] {
            let text = format!(r#"{{"run_at":"{form}","n":1}}"#);
            assert_eq!(
                cut_moments(&text, &private, &mut cut),
                r#"{"run_at":"2026-11-08","n":1}"#,
                "{form}"
            );
        }
        // Another second, or not a timestamp, is left as it is.
        for other in [
            "2026-11-08T07:13:23.000Z",
            "2026-11-08T07:13:22+01:00",
            "2026-11-08T07:13:22.Z",
            "2026-11-08T07:13:22",
        ] {
            let text = format!(r#"{{"run_at":"{other}"}}"#);
            assert_eq!(cut_moments(&text, &private, &mut cut), text, "{other}");
        }
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

    /// The answers made from the list of every published moment, as the build made them before
    /// `PublicClocks`: the definition the one-pass summary must keep.
    fn minutes_by_list(
        private: &BTreeSet<i64>,
        public: &[i64],
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

    /// Catches a summary that drops the anchor zone's minutes, indexes a bit wrongly (a second
    /// of the day for a minute, a day boundary off by one, a negative moment), or answers
    /// `prints` for moments it only saw the time of day of.
    #[test]
    fn the_published_clocks_summary_answers_as_the_list_of_every_moment_does() {
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = move |below: u64| {
            state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            (z ^ (z >> 31)) % below
        };
        let base = days::parse_timestamp("2026-03-08T06:00:00Z").unwrap();
        let mut checked = 0;
        for zone in [
            "UTC",
            "America/New_York",
            "Asia/Kolkata",
            "America/St_Johns",
            "Nope/Zone",
        ] {
            for _ in 0..60 {
                // Moments in a few days around a change of offset, some before 1970, on a
                // coarse grid so that published and private moments, seconds and minutes meet.
                let spread = 1 + next(4) * 86_400;
                let grid = [1, 7, 60, 300][next(4) as usize] as i64;
                let moment = |next: &mut dyn FnMut(u64) -> u64| {
                    let t = base + (next(spread) as i64 / grid) * grid;
                    if next(10) == 0 { -t / 1000 } else { t }
                };
                let public: Vec<i64> = (0..next(40)).map(|_| moment(&mut next)).collect();
                let private: BTreeSet<i64> = (0..1 + next(20)).map(|_| moment(&mut next)).collect();
                let mut cut = DayCut::new(zone);
                let clocks =
                    PublicClocks::of(|t| private.contains(&t), public.iter().copied(), &mut cut);
                for &t in &private {
                    assert_eq!(clocks.prints(t), public.contains(&t), "{zone} {t}");
                    assert_eq!(
                        clocks.prints_time_of_day(t),
                        public
                            .iter()
                            .any(|p| p.rem_euclid(86_400) == t.rem_euclid(86_400)),
                        "{zone} {t}"
                    );
                    checked += 1;
                }
                assert_eq!(
                    private_minutes(&private, &clocks, &mut cut)
                        .into_iter()
                        .map(|(m, moments)| (minute_of(m), moments))
                        .collect::<BTreeMap<_, _>>(),
                    minutes_by_list(&private, &public, &mut cut),
                    "{zone} {public:?} {private:?}"
                );
            }
        }
        assert!(checked > 1000, "{checked}");
    }
}
