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

/// Printed with every control character of its parts escaped (docs/build.md#safety): a file
/// name or a rule quoting an input cannot steer the terminal or forge a line.
impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use crate::terminal::escape;
        let (file, place, rule, accept) = (
            escape(&self.file),
            escape(&self.place),
            escape(&self.rule),
            escape(&self.accept),
        );
        if place.is_empty() {
            write!(f, "{file}: {rule}\n    to accept: {accept}")
        } else {
            write!(f, "{file} {place}: {rule}\n    to accept: {accept}")
        }
    }
}
