//! The states of a line's witness proof (docs/protocol.md#witness).

use serde::{Deserialize, Serialize};

/// A witness store entry's status (docs/protocol.md#witness). Also what the box generator writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Pending,
    Proof,
    ExplorersDisagree,
    StampFailed,
    Mismatch,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Pending => "pending",
            Status::Proof => "proof",
            Status::ExplorersDisagree => "explorers_disagree",
            Status::StampFailed => "stamp_failed",
            Status::Mismatch => "mismatch",
        }
    }
}
