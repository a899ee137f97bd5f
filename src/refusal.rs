//! A refusal: why a build will not publish, said so a person can act on it — the file, the
//! line or seq, the rule, and the flag (or edit) that would accept it.

use serde::Serialize;

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Refusal {
    pub file: String,
    /// "line 12 (seq 11)", "seq 11", or "" when the whole file is meant.
    pub place: String,
    pub rule: String,
    /// What would let a person accept it (a flag, or an edit); never empty.
    pub accept: String,
}

impl Refusal {
    pub fn new(
        file: impl Into<String>,
        place: impl Into<String>,
        rule: impl Into<String>,
        accept: impl Into<String>,
    ) -> Refusal {
        Refusal {
            file: file.into(),
            place: place.into(),
            rule: rule.into(),
            accept: accept.into(),
        }
    }
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.place.is_empty() {
            write!(
                f,
                "{}: {}\n    to accept: {}",
                self.file, self.rule, self.accept
            )
        } else {
            write!(
                f,
                "{} {}: {}\n    to accept: {}",
                self.file, self.place, self.rule, self.accept
            )
        }
    }
}
