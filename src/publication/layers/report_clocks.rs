//! The clocks a text prints (docs/witness.md#privacy): every hour-and-minute in it, in any of
//! the usual spellings, so that the tail's `REPORT.md` can be held to printing no withheld seq's
//! minute or time of day however it writes one.
//!
//! A minute is the pair hour + minute:
//!
//! - `HH:MM` or `H:MM`, with seconds or not (`7:13:22`, `07:13:22.5`), inside a timestamp too;
//! - with a 12-hour marker, spaced or glued, in any case, with dots or not (`3:13 PM`,
//!   `3:13pm`, `3:13p.m.`, `3:13 p. m.`, `3:13p`): the hour read on the 24-hour clock;
//! - `07h13` / `7h13` (`7h13m22s`, `7h13min`);
//! - `07.13` / `7.13` (`7.13.22`) only beside a time word — a 12-hour marker, a zone after it
//!   (`UTC`, `GMT`, `Z`, `EST`, `local`, `h`, `hrs`, `o'clock`) or a time preposition before it
//!   (`at`, `around`, `about`, `by`, `until`, `since`, `before`, `after`, `@`) — since a bare
//!   `7.13` is far more often a number than a clock.
//!
//! An hour without a leading zero and without a marker (`7:13`, `10:30`) may be a 12-hour
//! clock that dropped its AM/PM: it names both readings (07:13 and 19:13). A clock glued to a
//! digit, or after a `:` or `.` (`12:03:04` does not print `03:04`), is not one; nor is one
//! followed by a digit (`03:045`).

use std::collections::BTreeSet;

/// The minutes (0..1440) and seconds (0..86 400) of the day a text prints.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct PrintedClocks {
    minutes: BTreeSet<u32>,
    seconds: BTreeSet<u32>,
}

impl PrintedClocks {
    /// Whether the text prints the minute of the day `secs` falls in (`secs` UTC, or already
    /// shifted to a zone).
    pub fn minute_of(&self, secs: i64) -> bool {
        self.minutes
            .contains(&((secs.rem_euclid(86_400) / 60) as u32))
    }

    /// Whether the text prints the second of the day `secs` falls on, to the second.
    pub fn second_of(&self, secs: i64) -> bool {
        self.seconds.contains(&(secs.rem_euclid(86_400) as u32))
    }

    /// Every clock `text` prints.
    pub fn of(text: &str) -> PrintedClocks {
        let chars: Vec<char> = text.chars().map(fold).collect();
        let mut out = PrintedClocks::default();
        for i in 0..chars.len() {
            if let Some(clock) = clock_at(&chars, i) {
                for hour in clock.hours() {
                    out.minutes.insert(hour * 60 + clock.minute);
                    if let Some(s) = clock.second {
                        out.seconds.insert(hour * 3600 + clock.minute * 60 + s);
                    }
                }
            }
        }
        out
    }
}

/// Full-width digits and colons, and the ratio sign, read as ASCII; every space as a space.
fn fold(c: char) -> char {
    match c {
        '０'..='９' => char::from(b'0' + (c as u32 - '０' as u32) as u8),
        '：' | '∶' | '꞉' => ':',
        '．' => '.',
        c if c.is_whitespace() => ' ',
        c => c,
    }
}

/// One clock as written.
struct Clock {
    hour: u32,
    minute: u32,
    second: Option<u32>,
    /// `Some(true)` PM, `Some(false)` AM.
    pm: Option<bool>,
    /// The hour was written with a leading zero (`07`): the 24-hour clock.
    padded: bool,
}

impl Clock {
    /// The hours of the 24-hour clock this clock may name.
    fn hours(&self) -> Vec<u32> {
        match self.pm {
            Some(pm) => vec![self.hour % 12 + if pm { 12 } else { 0 }],
            None if (1..=12).contains(&self.hour) && !self.padded => {
                vec![self.hour, (self.hour + 12) % 24]
            }
            None => vec![self.hour],
        }
    }
}

fn digits(chars: &[char], at: usize, n: usize) -> Option<u32> {
    let run = chars.get(at..at + n)?;
    run.iter()
        .all(char::is_ascii_digit)
        .then(|| run.iter().fold(0, |v, c| v * 10 + (*c as u32 - '0' as u32)))
}

fn is_digit_at(chars: &[char], at: usize) -> bool {
    chars.get(at).is_some_and(char::is_ascii_digit)
}

fn is_letter_at(chars: &[char], at: usize) -> bool {
    chars.get(at).is_some_and(|c| c.is_alphabetic())
}

fn skip_spaces(chars: &[char], mut at: usize) -> usize {
    while chars.get(at) == Some(&' ') {
        at += 1;
    }
    at
}

/// The clock starting at `i`, when one does (see the module's list of spellings).
fn clock_at(chars: &[char], i: usize) -> Option<Clock> {
    if i > 0 && (chars[i - 1].is_ascii_digit() || matches!(chars[i - 1], ':' | '.')) {
        return None;
    }
    let hour_len = if is_digit_at(chars, i + 1) { 2 } else { 1 };
    let padded = hour_len == 2 && chars[i] == '0';
    let hour = digits(chars, i, hour_len)?;
    let sep = *chars.get(i + hour_len)?;
    if !matches!(sep, ':' | '.' | 'h' | 'H') || hour > 23 {
        return None;
    }
    let minute = digits(chars, i + hour_len + 1, 2)?;
    let mut end = i + hour_len + 3;
    if minute > 59 {
        return None;
    }
    let mut second = None;
    let second_sep = if matches!(sep, 'h' | 'H') { 'm' } else { sep };
    if chars.get(end) == Some(&second_sep)
        && let Some(s) = digits(chars, end + 1, 2).filter(|s| *s <= 59)
    {
        second = Some(s);
        end += 3;
        if second_sep == '.' || second_sep == ':' {
            // A fraction of a second.
            if chars.get(end) == Some(&'.') && is_digit_at(chars, end + 1) {
                end += 1;
                while is_digit_at(chars, end) {
                    end += 1;
                }
            }
        } else if matches!(chars.get(end), Some('s' | 'S')) {
            end += 1;
        }
    }
    if is_digit_at(chars, end)
        || (matches!(chars.get(end), Some(':' | '.')) && is_digit_at(chars, end + 1))
    {
        return None;
    }
    let pm = marker_at(chars, end);
    if pm.is_some() && !(1..=12).contains(&hour) {
        return None;
    }
    if sep == '.' && pm.is_none() && !time_word_after(chars, end) && !time_word_before(chars, i) {
        return None;
    }
    Some(Clock {
        hour,
        minute,
        second,
        pm,
        padded,
    })
}

/// A 12-hour marker at `at` (after spaces): `am`, `p.m.`, `P. M.`, `pm`, or a glued `a`/`p`.
fn marker_at(chars: &[char], at: usize) -> Option<bool> {
    let spaced = skip_spaces(chars, at);
    let pm = match chars.get(spaced)?.to_ascii_lowercase() {
        'a' => false,
        'p' => true,
        _ => return None,
    };
    let mut k = spaced + 1;
    if chars.get(k) == Some(&'.') {
        k += 1;
    }
    let before_m = k;
    k = skip_spaces(chars, k);
    if matches!(chars.get(k), Some('m' | 'M')) {
        k += 1;
        if chars.get(k) == Some(&'.') {
            k += 1;
        }
        return (!is_letter_at(chars, k)).then_some(pm);
    }
    // A lone `a` or `p`: only glued to the clock (`3:13p`), else `at 7:13 a line` would be AM.
    (spaced == at && !is_letter_at(chars, before_m)).then_some(pm)
}

/// A word naming a time or a zone right after a clock: `UTC`, `GMT`, `Z`, a zone's abbreviation
/// (two to five capitals ending in `T`: `ET`, `EST`, `CEST`), `local`, `h`, `hrs`, `hours`,
/// `o'clock`.
fn time_word_after(chars: &[char], at: usize) -> bool {
    let start = skip_spaces(chars, at);
    let word: String = chars[start.min(chars.len())..]
        .iter()
        .take_while(|c| c.is_alphabetic() || **c == '\'' || **c == '’')
        .collect();
    let lower = word.to_lowercase();
    matches!(
        lower.as_str(),
        "utc" | "gmt" | "z" | "local" | "h" | "hr" | "hrs" | "hours" | "o'clock" | "o’clock"
    ) || ((2..=5).contains(&word.len())
        && word.ends_with('T')
        && word.chars().all(|c| c.is_ascii_uppercase()))
}

/// A time preposition right before a clock: `at`, `around`, `about`, `by`, `until`, `till`,
/// `since`, `before`, `after`, `from`, or `@`.
fn time_word_before(chars: &[char], i: usize) -> bool {
    let mut end = i;
    while end > 0 && chars[end - 1] == ' ' {
        end -= 1;
    }
    if end > 0 && chars[end - 1] == '@' {
        return true;
    }
    let mut start = end;
    while start > 0 && chars[start - 1].is_alphabetic() {
        start -= 1;
    }
    let word: String = chars[start..end].iter().collect::<String>().to_lowercase();
    matches!(
        word.as_str(),
        "at" | "around" | "about" | "by" | "until" | "till" | "since" | "before" | "after" | "from"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The minutes a text prints, as `HH:MM`.
    fn minutes(text: &str) -> Vec<String> {
        let p = PrintedClocks::of(text);
        p.minutes
            .iter()
            .map(|m| format!("{:02}:{:02}", m / 60, m % 60))
            .collect()
    }

    #[test]
    fn a_minute_is_found_in_every_usual_spelling() {
        // Caught: only `HH:MM` read (the forms below pass the check), a 12-hour clock read as
        // written (3:13 PM is 15:13), seconds or a marker breaking the match.
        for (text, want) in [
            ("at 07:13 a line", &["07:13"][..]),
            ("at 7:13 UTC", &["07:13", "19:13"]),
            ("run at 3:13 AM", &["03:13"]),
            ("run at 3:13 pm", &["15:13"]),
            ("run at 3:13p.m.", &["15:13"]),
            ("run at 3:13 P. M. sharp", &["15:13"]),
            ("run at 3:13\u{202f}PM", &["15:13"]),
            ("run at 3:13p", &["15:13"]),
            ("12:05 am", &["00:05"]),
            ("12:05 PM", &["12:05"]),
            ("07h13", &["07:13"]),
            ("7h13", &["07:13", "19:13"]),
            ("19h13m22s", &["19:13"]),
            ("07.13 UTC", &["07:13"]),
            ("at 7.13", &["07:13", "19:13"]),
            ("7.13 pm", &["19:13"]),
            ("19.13 EST", &["19:13"]),
            ("7:13:22", &["07:13", "19:13"]),
            ("07:13:22.5Z", &["07:13"]),
            ("2026-11-01T16:17:18Z", &["16:17"]),
            ("１６：１７", &["16:17"]),
        ] {
            assert_eq!(minutes(text), want, "{text}");
        }
    }

    #[test]
    fn numbers_that_are_not_clocks_are_not_minutes() {
        // Caught: a decimal read as a clock (reports are full of them), a clock found inside a
        // longer one or a longer number, an hour or minute out of range, `a` read as AM.
        for text in [
            "7.13% of lines",
            "version 1.12 of the tail",
            "3.14159",
            "12:03:04",
            "03:045",
            "1.07.13",
            "24:00",
            "7:60",
            "13:05 pm",
            "123:45",
            "1:2",
            "7h5",
        ] {
            let found = minutes(text);
            assert!(
                !found
                    .iter()
                    .any(|m| m == "03:04" || m == "07:13" || m == "19:13"),
                "{text}: {found:?}"
            );
        }
        assert_eq!(minutes("at 7:13 a line"), ["07:13", "19:13"]);
        assert_eq!(minutes("12:03:04"), ["00:03", "12:03"]);
        assert!(minutes("24:00 7:60 13:05 pm 123:45 1:2 7h5 3.14159").is_empty());
    }

    #[test]
    fn seconds_are_found_with_their_minute() {
        let p = PrintedClocks::of("stamped 4:17:18 PM, seen 16h19m20s, then at 16.20.21 UTC");
        for (h, m, s) in [(16, 17, 18), (16, 19, 20), (16, 20, 21)] {
            assert!(p.second_of(h * 3600 + m * 60 + s), "{h}:{m}:{s}");
            assert!(p.minute_of(h * 3600 + m * 60), "{h}:{m}");
        }
        assert!(!p.second_of(16 * 3600 + 17 * 60 + 19));
    }
}
