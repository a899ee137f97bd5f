//! A refusal: why a build will not publish, said so a person can act on it — the file, the
//! line or seq, the rule, and the flag (or edit) that would accept it — and, for scripts, a
//! stable `code` naming its kind (docs/operator.md#refusal-codes).

use serde::Serialize;

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Refusal {
    /// Stable and snake_case: what kind of refusal this is (`unknown_field`, `not_an_extension`,
    /// ...). Scripts match on it; the words may change, a code does not.
    pub code: &'static str,
    pub file: String,
    /// "line 12 (seq 11)", "seq 11", or "" when the whole file is meant.
    pub place: String,
    /// The 1-based line of `file` the refusal is about, when it names one.
    pub line: Option<u64>,
    /// The seq of the ledger line it is about, when it names one.
    pub seq: Option<i64>,
    pub rule: String,
    /// What would let a person accept it (a flag, or an edit); never empty.
    pub accept: String,
}

impl Refusal {
    pub fn new(
        code: &'static str,
        file: impl Into<String>,
        place: impl Into<String>,
        rule: impl Into<String>,
        accept: impl Into<String>,
    ) -> Refusal {
        let place = place.into();
        Refusal {
            code,
            line: number_after(&place, "line "),
            seq: number_after(&place, "seq "),
            file: file.into(),
            place,
            rule: rule.into(),
            accept: accept.into(),
        }
    }
}

/// The number right after `word` in a place such as "line 5 (seq 4)" (the forms every stage
/// writes); none when the place does not name one.
fn number_after<T: std::str::FromStr>(place: &str, word: &str) -> Option<T> {
    let at = place.find(word)? + word.len();
    let digits: String = place[at..]
        .chars()
        .take_while(|c| c.is_ascii_digit())
        .collect();
    digits.parse().ok()
}

/// Printed with every control character of its parts escaped (docs/build.md#safety): a file
/// name or a rule quoting an input cannot steer the terminal or forge a line. The code follows
/// the rule in brackets (docs/operator.md#refusal-codes).
impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use crate::terminal::escape;
        let (file, place, rule, accept) = (
            escape(&self.file),
            escape(&self.place),
            escape(&self.rule),
            escape(&self.accept),
        );
        let code = self.code;
        if place.is_empty() {
            write!(f, "{file}: {rule} [{code}]\n    to accept: {accept}")
        } else {
            write!(
                f,
                "{file} {place}: {rule} [{code}]\n    to accept: {accept}"
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_and_seq_are_read_from_the_place() {
        let r = Refusal::new("unknown_field", "l.jsonl", "line 5 (seq 4)", "r", "a");
        assert_eq!((r.line, r.seq), (Some(5), Some(4)));
        let r = Refusal::new("text_now_guarded", "i.json", "seq 12", "r", "a");
        assert_eq!((r.line, r.seq), (None, Some(12)));
        let r = Refusal::new("header_identifier", "l.jsonl", "line 1 (header)", "r", "a");
        assert_eq!((r.line, r.seq), (Some(1), None));
        let r = Refusal::new(
            "witness_prereg_mismatch",
            "index.json",
            "prereg.sha256",
            "r",
            "a",
        );
        assert_eq!((r.line, r.seq), (None, None));
        let r = Refusal::new("x", "REPORT.md", "withheld seq 3, 4", "r", "a");
        assert_eq!(r.seq, Some(3));
        assert!(r.to_string().contains("[x]"));
    }
}
