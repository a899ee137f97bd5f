//! The `schema` member every JSON object a command prints carries (docs/json.md): the command's
//! name and a version. A field removed, renamed or given another type bumps the version; a field
//! added does not, so a script that reads only the fields it knows keeps working across versions
//! of the same schema (docs/json.md#versions). The published exhibit's files (STATS.json,
//! SNAPSHOTS.jsonl, the ledger's) are protocol files with their own rules and carry none.

use serde::Serialize;

/// `exhibit build --json`: the summary, the dry run's review, the refusals, an error.
pub const BUILD: &str = "exhibit-build/1";
/// `exhibit verify --json`, of a ledger file or of an exhibit's folder, and its error.
pub const VERIFY: &str = "exhibit-verify/1";
/// `exhibit prove --json`, and its error.
pub const PROVE: &str = "exhibit-prove/1";

/// A command's object with `schema` as its first member.
#[derive(Serialize)]
pub struct Tagged<'a, T: Serialize> {
    pub schema: &'static str,
    #[serde(flatten)]
    pub body: &'a T,
}

/// `value` (an object) with `schema` set.
pub fn tag(schema: &'static str, mut value: serde_json::Value) -> serde_json::Value {
    if let Some(object) = value.as_object_mut() {
        object.insert("schema".into(), schema.into());
    }
    value
}
