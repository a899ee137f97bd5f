//! A proof's bytes after its header are published too, so they pass the same door as every
//! other published byte (docs/build.md#safety): the whole OpenTimestamps tree must parse
//! (`exhibit_protocol::ots::parse_body`: no byte after it, every length bounded), each pending
//! attestation must name a calendar as a plain `https://` host, and every readable run in an
//! operation's argument or an unknown attestation's payload must pass the identifier guard.
//! Nothing else in a proof is more than a tag, an opcode, a length or a block height.

use exhibit_protocol::guard::{self, Context, Finding};
use exhibit_protocol::ots;

/// The shortest run of printable ASCII in an argument or a payload that is read as text: a
/// phone number or a chat id is at least this long written out. A merkle sibling or a nonce is
/// random bytes, and random printable runs are short (one of eight or more starts at a given
/// byte about once in 3,000).
pub const MIN_TEXT_RUN: usize = 8;

/// The shortest run whose email or drive/home-path finding counts. Those two rules fire on a
/// few marks (`~x/`, `X:\`, `a@b.co`) that random bytes print by chance: in five million random
/// 32-byte siblings, 150 runs of 8 to 13 bytes tripped them and none of 14 or more. A digit
/// rule never fired on random bytes at any length.
pub const MIN_MARKED_RUN: usize = 16;

/// The rules [`MIN_MARKED_RUN`] applies to.
const MARKED_RULES: [&str; 2] = ["email", "drive_or_home_path"];

/// Why a proof's body may not be published: the rule's code and its words, never the bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BodyRefusal {
    pub code: &'static str,
    pub words: String,
}

/// `Ok` when every byte of the proof after its header may be published (the header itself is
/// checked by `ots::check`).
pub fn check(bytes: &[u8]) -> Result<(), BodyRefusal> {
    let body = ots::parse_body(bytes).map_err(|p| match p {
        ots::BodyProblem::BadCalendar => BodyRefusal {
            code: "proof_calendar",
            words: format!("a pending attestation {p} (bad_calendar)"),
        },
        _ => BodyRefusal {
            code: "proof_unparsed",
            words: format!(
                "the proof is not one whole OpenTimestamps timestamp: it {p} ({})",
                p.code()
            ),
        },
    })?;
    for uri in &body.calendars {
        if !is_plain_https(uri) {
            return Err(BodyRefusal {
                code: "proof_calendar",
                words: "a pending attestation's calendar is not an https:// address of a plain host (lowercase letters, digits, hyphens and dots, no port, path, user or query)".into(),
            });
        }
        let codes = codes(guard::scan(
            std::str::from_utf8(uri).unwrap_or_default(),
            Context::LedgerString,
        ));
        if !codes.is_empty() {
            return Err(BodyRefusal {
                code: "proof_calendar",
                words: format!(
                    "a pending attestation's calendar address trips the identifier guard ({})",
                    codes.join(", ")
                ),
            });
        }
    }
    let readable = body
        .arguments
        .iter()
        .chain(&body.unknown_payloads)
        .flat_map(|b| text_runs(b));
    let mut found = std::collections::BTreeSet::new();
    for run in readable {
        found.extend(run_findings(run));
    }
    if found.is_empty() {
        Ok(())
    } else {
        Err(BodyRefusal {
            code: "proof_text",
            words: format!(
                "text inside the proof (an operation's argument or an unknown attestation's payload) trips the identifier guard ({})",
                codes(found).join(", ")
            ),
        })
    }
}

/// The guard's findings in one text run, those of the marked rules only on a long run. A
/// profile link on a short run counts when it names a listed host or app: the fediverse shape
/// `.Vy/@lMn` was printed by one sibling's random bytes in a million generated proofs.
pub fn run_findings(run: &str) -> impl Iterator<Item = Finding> {
    let long = run.len() >= MIN_MARKED_RUN;
    let listed = long || guard::has_listed_profile_link(run);
    guard::scan(run, Context::PublicText)
        .into_iter()
        .filter(move |f| long || !MARKED_RULES.contains(&f.code()))
        .filter(move |f| listed || f.code() != "profile_link")
}

fn codes(findings: impl IntoIterator<Item = Finding>) -> Vec<&'static str> {
    findings.into_iter().map(Finding::code).collect()
}

/// The runs of at least [`MIN_TEXT_RUN`] printable ASCII bytes (space to `~`) in `b`.
pub fn text_runs(b: &[u8]) -> impl Iterator<Item = &str> {
    b.split(|c| !(0x20..=0x7e).contains(c))
        .filter(|run| run.len() >= MIN_TEXT_RUN)
        .filter_map(|run| std::str::from_utf8(run).ok())
}

/// `https://` then a host of two or more dot-separated labels, each 1 to 63 of `a-z0-9-` not
/// starting or ending with `-`, the last one letters only; nothing after the host.
pub fn is_plain_https(uri: &[u8]) -> bool {
    let Some(host) = uri.strip_prefix(b"https://") else {
        return false;
    };
    if host.len() > 253 {
        return false;
    }
    let labels: Vec<&[u8]> = host.split(|&c| c == b'.').collect();
    let label_ok = |l: &&[u8]| {
        (1..=63).contains(&l.len())
            && l.iter()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-')
            && l.first() != Some(&b'-')
            && l.last() != Some(&b'-')
    };
    labels.len() >= 2
        && labels.iter().all(label_ok)
        && labels
            .last()
            .is_some_and(|tld| tld.iter().all(u8::is_ascii_lowercase))
}

#[cfg(test)]
mod tests {

    #[test]
    fn a_short_run_reads_a_listed_profile_link_and_not_random_fediverse_shapes() {
        // The run a million generated proofs printed by chance; and real links, short and long.
        assert_eq!(run_findings(".Vy/@lMn").count(), 0);
        assert!(run_findings("t.me/alice").any(|f| f.code() == "profile_link"));
        assert!(run_findings("tg://resolve?domain=al").any(|f| f.code() == "profile_link"));
        assert!(run_findings("mastodon.social/@alice").any(|f| f.code() == "profile_link"));
    }
    use super::*;

    fn header() -> Vec<u8> {
        let mut b = ots::MAGIC.to_vec();
        b.extend_from_slice(&[ots::VERSION, ots::OP_SHA256]);
        b.extend_from_slice(&[7; 32]);
        b
    }

    fn pending(uri: &[u8]) -> Vec<u8> {
        let mut b = vec![0x00];
        b.extend_from_slice(&ots::PENDING_TAG);
        b.push(u8::try_from(uri.len() + 1).unwrap());
        b.push(u8::try_from(uri.len()).unwrap());
        b.extend_from_slice(uri);
        b
    }

    fn with(ops: &[u8], uri: &[u8]) -> Vec<u8> {
        let mut b = header();
        b.extend_from_slice(ops);
        b.extend(pending(uri));
        b
    }

    const ALICE: &[u8] = b"https://alice.btc.calendar.opentimestamps.org";

    #[test]
    fn real_and_generated_shapes_pass() {
        let dir = std::path::Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/ots-examples"
        ));
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "ots") {
                let bytes = std::fs::read(&path).unwrap();
                assert_eq!(check(&bytes), Ok(()), "{}", path.display());
            }
        }
        let mut nonce = vec![0xf0, 0x10];
        nonce.extend_from_slice(b"\x01\x02\x03\x04abcdefg\x05\x06\x07\x08\x09");
        nonce.push(0x08);
        assert_eq!(check(&with(&nonce, ALICE)), Ok(()));
    }

    #[test]
    fn a_calendar_that_is_not_a_plain_https_host_is_refused() {
        for uri in [
            &b"http://alice.btc.calendar.opentimestamps.org"[..],
            b"https://alice.example.org/+15550109999",
            b"https://alice.example.org:8443",
            b"https://ops@alice.example.org",
            b"https://alice.example.org?chat=-1001234567890",
            b"https://15550109999.example.org",
            b"https://localhost",
            b"https://192.168.1.20",
            b"https://ALICE.example.org",
            b"https://-a.example.org",
            b"file:///home/agent/.ssh/id_ed25519",
            b"",
        ] {
            let refusal = check(&with(&[], uri)).unwrap_err();
            assert_eq!(refusal.code, "proof_calendar", "{uri:?}");
            assert!(
                !refusal.words.contains("0109999") && !refusal.words.contains("home"),
                "{refusal:?}"
            );
        }
        assert_eq!(check(&with(&[], ALICE)), Ok(()));
        assert_eq!(
            check(&with(&[], b"https://finney.calendar.eternitywall.com")),
            Ok(())
        );
    }

    #[test]
    fn an_identifier_in_an_argument_or_unknown_payload_is_refused() {
        let arg = |text: &[u8]| {
            let mut op = vec![0xf0, u8::try_from(text.len()).unwrap()];
            op.extend_from_slice(text);
            op.push(0x08);
            op
        };
        for text in [
            &b"call +1 555 010 9999"[..],
            b"\x01\x02ops.lead@example.com\xff",
            b"/home/agent/notes",
            b"chat -1001234567890",
            b"C:\\Users\\agent\\notes",
        ] {
            for prepend in [false, true] {
                let mut ops = arg(text);
                if prepend {
                    ops[0] = 0xf1;
                }
                let refusal = check(&with(&ops, ALICE)).unwrap_err();
                assert_eq!(refusal.code, "proof_text", "{text:?}");
            }
            // An unknown attestation carrying it, beside a pending one.
            let mut b = header();
            b.extend([0xff, 0x00]);
            b.extend_from_slice(&[1, 2, 3, 4, 5, 6, 7, 8]);
            b.push(u8::try_from(text.len()).unwrap());
            b.extend_from_slice(text);
            b.extend(pending(ALICE));
            assert_eq!(check(&b).unwrap_err().code, "proof_text", "{text:?}");
        }
    }

    #[test]
    fn trailing_bytes_and_a_broken_tree_are_refused() {
        let mut trailing = with(&[0x08], ALICE);
        trailing.extend_from_slice(b"+15550109999");
        assert_eq!(check(&trailing).unwrap_err().code, "proof_unparsed");
        let mut cut = with(&[0x08], ALICE);
        cut.truncate(cut.len() - 3);
        assert_eq!(check(&cut).unwrap_err().code, "proof_unparsed");
    }

    /// Random merkle siblings and nonces are not text: a million 32-byte arguments pass (with
    /// the marked rules on runs of eight, about thirty would not).
    #[test]
    fn random_siblings_pass() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut refused = 0;
        for _ in 0..1_000_000 {
            let mut sibling = [0u8; 32];
            for b in &mut sibling {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                *b = (state >> 24) as u8;
            }
            let mut found = false;
            for run in text_runs(&sibling) {
                found |= run_findings(run).next().is_some();
            }
            refused += usize::from(found);
        }
        assert_eq!(refused, 0);
    }
}
