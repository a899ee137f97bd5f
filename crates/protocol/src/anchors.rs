//! The anchor checks a stranger does with a posted head (docs/protocol.md#anchors; docs/verifier.md
//! "The anchor checks"). Pure: the caller hands in the entries and the posts' bytes.

use crate::Digest;
use serde::Serialize;

use crate::canonical;
use crate::verify::Withheld;

/// What the anchor checks need of one published entry: of every readable entry line, whatever
/// its problems (docs/verifier.md "The anchor checks": a line that states no entry_id still
/// holds its seq, and still sits in its day).
#[derive(Debug, Clone)]
pub struct EntryFacts {
    /// The stated seq; `None` when it is not an integer (the line then holds no seq and closes
    /// no day, but an `anchor` line's fields are still read).
    pub seq: Option<i64>,
    /// The stated entry_id; `None` when it is absent or not a digest (so no posted head names
    /// it, and a post naming its seq fails).
    pub entry_id: Option<Digest>,
    pub day: Option<String>,
    /// For `anchor` entries: (anchor_date, anchor_head, anchor_head_seq, anchor_text_sha256).
    pub anchor: Option<AnchorLine>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AnchorLine {
    pub date: Option<String>,
    /// `anchor_head`; `None` when absent or not a digest (it then agrees with no post).
    pub head: Option<Digest>,
    pub head_seq: Option<i64>,
    /// `anchor_text_sha256`; `None` when absent or not a digest.
    pub text_sha256: Option<Digest>,
    pub late: Option<bool>,
}

/// One posted text: the date from its file name and its exact bytes.
#[derive(Debug, Clone)]
pub struct Post {
    pub date: String,
    pub bytes: Vec<u8>,
}

/// A post's parsed fields, when its format is right.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PostedHead {
    pub head: Digest,
    pub seq: i64,
}

/// Declares a check's outcome as an enum whose `as_str`, `Display` and `Serialize` give the
/// exact word the index and the notes have always carried (docs/protocol.md#anchors).
macro_rules! check_state {
    ($(#[$doc:meta])* $name:ident { $($variant:ident => $word:literal),+ $(,)? }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum $name {
            $($variant),+
        }

        impl $name {
            /// The word written to `anchors/index.json` and to the notes.
            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $word),+
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }
    };
}

check_state! {
    /// Whether the post is the exact posted form `gate anchor <D> head <hex> seq <n>`.
    FormatState { Ok => "ok", Fail => "fail" }
}

check_state! {
    /// Whether the posted head is the digest of the posted seq: derived (`ok`), only the lab's
    /// word for a withheld line (`lab_word`), wrong, or of a seq the ledger does not hold.
    HeadState { Ok => "ok", LabWord => "lab_word", Fail => "fail", Absent => "absent", Skipped => "skipped" }
}

check_state! {
    /// Whether the posted seq was the last of its day.
    DayClosedState { Ok => "ok", Fail => "fail", Skipped => "skipped" }
}

check_state! {
    /// Whether the ledger's `anchor` lines for the day agree with the post.
    LedgerLineState { Agrees => "agrees", Disagrees => "disagrees", Absent => "absent", Skipped => "skipped" }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AnchorCheck {
    pub date: String,
    pub ok: bool,
    pub format: FormatState,
    pub head: HeadState,
    pub day_closed: DayClosedState,
    pub ledger_line: LedgerLineState,
    #[serde(skip)]
    pub posted: Option<PostedHead>,
}

/// Parses `gate anchor <D> head <64 hex> seq <n>` exactly (docs/protocol.md#anchors), with `D` the file's date.
pub fn parse_post(date: &str, bytes: &[u8]) -> Option<PostedHead> {
    // The posted form is ASCII: a post holding any other byte fails whatever date it is checked
    // against (a file's date is a day; the page holds the same rule).
    if !bytes.is_ascii() {
        return None;
    }
    let text = std::str::from_utf8(bytes).ok()?;
    let rest = text.strip_prefix("gate anchor ")?;
    let rest = rest.strip_prefix(date)?;
    let rest = rest.strip_prefix(" head ")?;
    let (head, rest) = rest.split_at_checked(64)?;
    let head = head.parse::<Digest>().ok()?;
    let digits = rest.strip_prefix(" seq ")?;
    let canonical_number = digits == "0"
        || (!digits.is_empty()
            && !digits.starts_with('0')
            && digits.len() <= 16
            && digits.bytes().all(|b| b.is_ascii_digit()));
    if !canonical_number {
        return None;
    }
    Some(PostedHead {
        head,
        seq: digits.parse().ok()?,
    })
}

/// The entries' facts the checks of `posts` need, kept as a ledger streams past: every entry
/// whose seq a post names, every `anchor` entry, and each day's greatest seq — so a million-line
/// ledger is not held as a million facts (docs/scale.md#the-page-against-the-site).
/// [`check_posts`] over [`KeptFacts::finish`] answers exactly as over every entry: every entry
/// at a posted seq is kept, and a day's greatest seq that no post names follows them as a fact
/// of its own (no post reads its entry_id; when a post names that seq, the real entries there
/// are kept and carry the day).
#[derive(Debug, Default)]
pub struct KeptFacts {
    watch: std::collections::BTreeSet<i64>,
    kept: Vec<EntryFacts>,
    day_last: std::collections::BTreeMap<String, i64>,
}

impl KeptFacts {
    /// For the posts `posts` (a post whose format is wrong names no seq).
    pub fn for_posts(posts: &[Post]) -> KeptFacts {
        KeptFacts {
            watch: posts
                .iter()
                .filter_map(|p| parse_post(&p.date, &p.bytes))
                .map(|p| p.seq)
                .collect(),
            ..KeptFacts::default()
        }
    }

    pub fn push(&mut self, facts: EntryFacts) {
        if let (Some(day), Some(seq)) = (facts.day.as_deref(), facts.seq) {
            match self.day_last.get_mut(day) {
                Some(last) => *last = (*last).max(seq),
                None => {
                    self.day_last.insert(day.to_owned(), seq);
                }
            }
        }
        if facts.anchor.is_some() || facts.seq.is_some_and(|s| self.watch.contains(&s)) {
            self.kept.push(facts);
        }
    }

    pub fn finish(self) -> Vec<EntryFacts> {
        let mut out = self.kept;
        let watch = self.watch;
        out.extend(
            self.day_last
                .into_iter()
                .filter(|(_, seq)| !watch.contains(seq))
                .map(|(day, seq)| EntryFacts {
                    seq: Some(seq),
                    entry_id: None,
                    day: Some(day),
                    anchor: None,
                }),
        );
        out
    }
}

/// Runs the four checks for every post. `header_digest` is the head when `seq 0` is posted.
/// The dates the published `anchor` lines name (an `anchor_date` string shaped `YYYY-MM-DD`)
/// that no post is for, sorted, each once. The ledger's own line says a head was posted that
/// day; a site that holds no post for it dropped a head no one can check (docs/verifier.md
/// "Anchor lines without a post"). `datesWithoutPost` in assets/verify.js holds the same rule.
pub fn dates_without_post(entries: &[EntryFacts], posts: &[Post]) -> Vec<String> {
    let have: std::collections::BTreeSet<&str> = posts.iter().map(|p| p.date.as_str()).collect();
    let shaped = |d: &str| {
        let b = d.as_bytes();
        b.len() == 10
            && b.iter().enumerate().all(|(i, c)| {
                if i == 4 || i == 7 {
                    *c == b'-'
                } else {
                    c.is_ascii_digit()
                }
            })
    };
    let dates: std::collections::BTreeSet<&str> = entries
        .iter()
        .filter_map(|e| e.anchor.as_ref()?.date.as_deref())
        .filter(|d| shaped(d) && !have.contains(d))
        .collect();
    dates.into_iter().map(str::to_owned).collect()
}

pub fn check_posts(
    entries: &[EntryFacts],
    withheld: &Withheld,
    header_digest: Option<Digest>,
    posts: &[Post],
) -> Vec<AnchorCheck> {
    // Indexes, so that a ledger of a million lines and years of posts stays linear.
    let mut by_seq: std::collections::BTreeMap<i64, Vec<&EntryFacts>> = Default::default();
    let mut last_seq_of_day: std::collections::BTreeMap<&str, i64> = Default::default();
    let mut anchor_lines: std::collections::BTreeMap<&str, Vec<&AnchorLine>> = Default::default();
    for e in entries {
        if let Some(seq) = e.seq {
            by_seq.entry(seq).or_default().push(e);
            if let Some(day) = e.day.as_deref() {
                let last = last_seq_of_day.entry(day).or_insert(seq);
                *last = (*last).max(seq);
            }
        }
        if let Some(a) = &e.anchor
            && let Some(date) = a.date.as_deref()
        {
            anchor_lines.entry(date).or_default().push(a);
        }
    }
    for w in withheld.by_seq.values() {
        if let Some(day) = w.day.as_deref() {
            let last = last_seq_of_day.entry(day).or_insert(w.seq);
            *last = (*last).max(w.seq);
        }
    }
    let index = Index {
        by_seq,
        last_seq_of_day,
        anchor_lines,
    };
    posts
        .iter()
        .map(|post| check_post(&index, withheld, header_digest, post))
        .collect()
}

struct Index<'e> {
    /// Every published entry stating each seq, in ledger order.
    by_seq: std::collections::BTreeMap<i64, Vec<&'e EntryFacts>>,
    /// The greatest seq, published or withheld, whose `day` is the key.
    last_seq_of_day: std::collections::BTreeMap<&'e str, i64>,
    anchor_lines: std::collections::BTreeMap<&'e str, Vec<&'e AnchorLine>>,
}

fn check_post(
    index: &Index<'_>,
    withheld: &Withheld,
    header_digest: Option<Digest>,
    post: &Post,
) -> AnchorCheck {
    let Some(posted) = parse_post(&post.date, &post.bytes) else {
        return AnchorCheck {
            date: post.date.clone(),
            ok: false,
            format: FormatState::Fail,
            head: HeadState::Skipped,
            day_closed: DayClosedState::Skipped,
            ledger_line: LedgerLineState::Skipped,
            posted: None,
        };
    };
    let published = index.by_seq.get(&posted.seq);
    let head = if posted.seq == 0 {
        if header_digest == Some(posted.head) {
            HeadState::Ok
        } else {
            HeadState::Fail
        }
    } else if let Some(entries) = published {
        // Two lines stating one seq (itself a problem) fix no head unless both carry it; a
        // published line decides, whatever the withheld list says of its seq.
        if entries.iter().all(|e| e.entry_id == Some(posted.head)) {
            HeadState::Ok
        } else {
            HeadState::Fail
        }
    } else if let Some(digest) = withheld.digest(posted.seq) {
        // The digest of a withheld line is the lab's word, not the reader's derivation (docs/protocol.md#withholding).
        if digest == posted.head {
            HeadState::LabWord
        } else {
            HeadState::Fail
        }
    } else {
        HeadState::Absent
    };

    let later_same_day = index
        .last_seq_of_day
        .get(post.date.as_str())
        .is_some_and(|&last| last > posted.seq);
    let day_closed = if later_same_day {
        DayClosedState::Fail
    } else {
        DayClosedState::Ok
    };

    let text_sha256 = Digest::of(&post.bytes);
    let lines: &[&AnchorLine] = index
        .anchor_lines
        .get(post.date.as_str())
        .map_or(&[], Vec::as_slice);
    let ledger_line = if lines.is_empty() {
        LedgerLineState::Absent
    } else if lines.iter().all(|a| {
        a.head == Some(posted.head)
            && a.head_seq == Some(posted.seq)
            && a.text_sha256 == Some(text_sha256)
    }) {
        LedgerLineState::Agrees
    } else {
        LedgerLineState::Disagrees
    };

    AnchorCheck {
        date: post.date.clone(),
        ok: matches!(head, HeadState::Ok | HeadState::LabWord)
            && day_closed == DayClosedState::Ok
            && matches!(
                ledger_line,
                LedgerLineState::Agrees | LedgerLineState::Absent
            ),
        format: FormatState::Ok,
        head,
        day_closed,
        ledger_line,
        posted: Some(posted),
    }
}

/// A ledger held in memory, verified, with the facts the anchor checks need of each entry.
pub struct Checked {
    pub report: crate::verify::Report,
    pub facts: Vec<EntryFacts>,
    pub header_digest: Option<Digest>,
}

pub fn verify_and_collect(bytes: &[u8], withheld: &Withheld) -> Checked {
    let mut facts = Vec::new();
    let verified = crate::verify::verify_reader(
        bytes,
        withheld,
        crate::verify::Pass::Entries(&mut |entry, _| facts.push(EntryFacts::of_entry(entry))),
    );
    match verified {
        Ok(verified) => Checked {
            report: verified.report,
            facts,
            header_digest: verified.header.and_then(|h| h.digest),
        },
        // Reading from memory does not fail; no panic on that path either.
        Err(e) => Checked {
            report: crate::verify::Report::unreadable(&e),
            facts,
            header_digest: None,
        },
    }
}

impl EntryFacts {
    /// Facts of a readable entry line.
    pub fn of_entry(entry: &crate::verify::Entry<'_>) -> EntryFacts {
        let stated = entry.stated_id().and_then(|id| id.parse().ok());
        EntryFacts::from_object(&entry.object, stated)
    }

    /// Facts of a readable entry object.
    pub fn from_object(object: &canonical::Object<'_>, entry_id: Option<Digest>) -> EntryFacts {
        let seq = object.get_int("seq");
        let anchor = (object.get_str("kind") == Some("anchor")).then(|| AnchorLine {
            date: object.get_str("anchor_date").map(str::to_owned),
            head: object.get_str("anchor_head").and_then(|h| h.parse().ok()),
            head_seq: object.get_int("anchor_head_seq"),
            text_sha256: object
                .get_str("anchor_text_sha256")
                .and_then(|h| h.parse().ok()),
            late: match object.get("late") {
                Some(canonical::Value::Bool(b)) => Some(*b),
                _ => None,
            },
        });
        EntryFacts {
            seq,
            entry_id,
            day: object.get_str("day").map(str::to_owned),
            anchor,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The checks over the kept facts answer as over every entry, on random ledgers with
    /// repeated seqs, days out of order, anchor lines, withheld seqs and posts right, wrong and
    /// malformed (a fixed xorshift, 3,000 cases).
    #[test]
    fn kept_facts_answer_as_every_entry() {
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = |n: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % n
        };
        let digest = |n: u64| Digest::of(&n.to_be_bytes());
        let day = |n: u64| format!("2026-11-{:02}", 1 + n);
        for _ in 0..3000 {
            let mut entries = Vec::new();
            for i in 0..next(40) {
                let seq = if next(6) == 0 {
                    next(30) as i64
                } else {
                    i as i64 + 1
                };
                let anchor = (next(8) == 0).then(|| AnchorLine {
                    date: (next(5) > 0).then(|| day(next(4))),
                    head: Some(digest(next(30))),
                    head_seq: Some(next(30) as i64),
                    text_sha256: None,
                    late: None,
                });
                entries.push(EntryFacts {
                    seq: (next(12) > 0).then_some(seq),
                    entry_id: (next(10) > 0).then(|| digest(seq as u64)),
                    day: (next(10) > 0).then(|| day(next(4))),
                    anchor,
                });
            }
            let mut withheld = Withheld::default();
            for _ in 0..next(4) {
                let seq = next(30) as i64;
                withheld.by_seq.insert(
                    seq,
                    crate::verify::WithheldEntry {
                        seq,
                        entry_id: digest(seq as u64),
                        kind: None,
                        dest_class: None,
                        day: (next(2) == 0).then(|| day(next(4))),
                        fields_flagged: Vec::new(),
                        reason: None,
                    },
                );
            }
            let posts: Vec<Post> = (0..next(5))
                .map(|_| {
                    let (date, seq) = (day(next(4)), next(32));
                    let head = if next(3) == 0 {
                        digest(next(30))
                    } else {
                        digest(seq)
                    };
                    let text = match next(6) {
                        0 => format!("gate anchor {date} head {head} seq 0{seq}"),
                        _ => format!("gate anchor {date} head {head} seq {seq}"),
                    };
                    Post {
                        date,
                        bytes: text.into_bytes(),
                    }
                })
                .collect();
            let header = Some(digest(0));
            let mut kept = KeptFacts::for_posts(&posts);
            for e in &entries {
                kept.push(e.clone());
            }
            let small = kept.finish();
            assert!(small.len() <= entries.len() + 4);
            assert_eq!(
                check_posts(&small, &withheld, header, &posts),
                check_posts(&entries, &withheld, header, &posts),
                "{entries:?} {posts:?}"
            );
        }
    }

    const H: &str = "a3f1c2d4e5b60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90";

    #[test]
    fn post_format_is_exact() {
        let good = format!("gate anchor 2026-11-08 head {H} seq 42");
        assert_eq!(
            parse_post("2026-11-08", good.as_bytes()),
            Some(PostedHead {
                head: H.parse().unwrap(),
                seq: 42
            })
        );
        for bad in [
            format!("{good}\n"),
            format!("gate anchor 2026-11-09 head {H} seq 42"),
            format!("gate anchor 2026-11-08 head {} seq 42", H.to_uppercase()),
            format!("gate anchor 2026-11-08 head {H} seq 042"),
            format!("gate anchor 2026-11-08 head {H} seq -1"),
            format!("gate anchor 2026-11-08  head {H} seq 42"),
            format!("Gate anchor 2026-11-08 head {H} seq 42"),
        ] {
            assert_eq!(parse_post("2026-11-08", bad.as_bytes()), None, "{bad:?}");
        }
    }
}
