//! The identifier guard: the one test every published string passes (docs/guard.md;
//! docs/protocol.md#withholding, #public-texts).
//!
//! Ledger strings (values and object keys at any depth), public texts, the witness tail's texts
//! and, later, every store file that is published go through [`scan`]. It normalises the string
//! once (`normalize`: invisible characters, compatibility forms, digits of every script and
//! style, look-alike letters and punctuation, the spellings `%40`, `&#64;`, `(at)`, `[dot]`, …)
//! and then runs one set of rules (`rules`). The two contexts differ only in the data of
//! [`Policy`]: in a ledger string, whitespace and a bare `@` are reasons and hex digests are
//! not set aside (a digest belongs in a digest field); in a text, a space is prose, `@name` is
//! a public handle, and a digest is set aside.
//!
//! A [`Finding`] names the rule that fired and never the text it matched: findings are written
//! into `withheld.json` and `public_texts/index.json`, which are published.
//!
//! Pure: no file, clock or git; its only data beyond the code is Unicode's
//! (`unicode-normalization` for compatibility decompositions, `unicode-security` for the UTS #39
//! confusables).

mod digit_table;
pub(crate) mod normalize;
pub(crate) mod rules;
pub use rules::has_listed_profile_link;

use std::collections::BTreeSet;

/// Where a string is published, which decides the two or three rules that differ.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Context {
    /// A string of a ledger line (a value or an object key, at any depth) or of a store file's
    /// JSON line: never prose, so a space or a bare `@` has no business there.
    LedgerString,
    /// A text published for people to read (a released message, the witness tail's report):
    /// prose, handles and digests are ordinary there.
    PublicText,
}

/// The differences between the contexts, as data (docs/guard.md#contexts).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Policy {
    /// Whitespace, and any invisible character, is a reason.
    pub whitespace_is_reason: bool,
    /// Any `@` (after decoding), not only an email's, is a reason.
    pub any_at_sign_is_reason: bool,
    /// A hex digest (exactly 32, 40 or 64 hex characters with a letter, written in plain ASCII)
    /// is set aside before the digit rules.
    pub digests_set_aside: bool,
}

impl Context {
    pub const fn policy(self) -> Policy {
        match self {
            Context::LedgerString => Policy {
                whitespace_is_reason: true,
                any_at_sign_is_reason: true,
                digests_set_aside: false,
            },
            Context::PublicText => Policy {
                whitespace_is_reason: false,
                any_at_sign_is_reason: false,
                digests_set_aside: true,
            },
        }
    }
}

/// One rule of the guard. The order is the order findings are listed in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Rule {
    /// Whitespace or an invisible character (ledger strings only).
    Whitespace,
    /// An `@` anywhere (ledger strings only).
    AtSign,
    /// Nine or more digits in a row, outside a digest where digests are set aside.
    DigitRun,
    /// Nine or more digits in two or more groups joined by separators.
    GroupedDigits,
    /// 13 to 19 digits, in any grouping, passing the Luhn check.
    CardNumber,
    /// An IBAN of its country's length, in any grouping, passing the mod-97 check.
    Iban,
    /// A phone number: `+` and a digit then seven more, or groups shaped like one.
    Phone,
    /// An email address after decoding and folding.
    Email,
    /// A drive or home path after folding.
    DriveOrHomePath,
    /// A Telegram invite link.
    TelegramInvite,
    /// An integer of ten or more digits in a count field.
    CountTooLarge,
    /// A link to one account's profile or chat (`t.me/name`, `x.com/name`, `host/@name`).
    ProfileLink,
    /// An IPv4, IPv6 or MAC address.
    NetworkAddress,
    /// A Bitcoin or Ethereum address.
    CryptoAddress,
}

impl Rule {
    pub const ALL: [Rule; 14] = [
        Rule::Whitespace,
        Rule::AtSign,
        Rule::DigitRun,
        Rule::GroupedDigits,
        Rule::CardNumber,
        Rule::Iban,
        Rule::Phone,
        Rule::Email,
        Rule::DriveOrHomePath,
        Rule::TelegramInvite,
        Rule::CountTooLarge,
        Rule::ProfileLink,
        Rule::NetworkAddress,
        Rule::CryptoAddress,
    ];

    /// The stable code written into `withheld.json` reasons and `public_texts/index.json`
    /// (`reasons`); readings recorded by operators compare these codes.
    pub fn code(self) -> &'static str {
        match self {
            Rule::Whitespace => "whitespace",
            Rule::AtSign => "at_sign",
            Rule::DigitRun => "digit_run",
            Rule::GroupedDigits => "grouped_digits",
            Rule::CardNumber => "card_number",
            Rule::Iban => "iban",
            Rule::Phone => "phone",
            Rule::Email => "email",
            Rule::DriveOrHomePath => "drive_or_home_path",
            Rule::TelegramInvite => "telegram_invite",
            Rule::CountTooLarge => "count_too_large",
            Rule::ProfileLink => "profile_link",
            Rule::NetworkAddress => "network_address",
            Rule::CryptoAddress => "crypto_address",
        }
    }

    /// The rule in words a stranger understands; never echoes what it matched.
    pub fn words(self) -> &'static str {
        match self {
            Rule::Whitespace => "a space or an invisible character, which no ledger value needs",
            Rule::AtSign => "an @ sign, the mark of an address or a handle",
            Rule::DigitRun => {
                "nine or more digits in a row, as long as a chat id or a phone number"
            }
            Rule::GroupedDigits => {
                "nine or more digits written in groups, the way phone, card and account numbers are"
            }
            Rule::CardNumber => "a payment card number (13 to 19 digits passing the card check)",
            Rule::Iban => "a bank account number (an IBAN whose check digits hold)",
            Rule::Phone => "a phone number",
            Rule::Email => "an email address, however its @ and dots are written",
            Rule::DriveOrHomePath => {
                "a file path into a computer's drive or a person's home folder, which can name its owner"
            }
            Rule::TelegramInvite => "a private Telegram invite link",
            Rule::CountTooLarge => {
                "a count of ten or more digits: no count here reaches a billion, an id does"
            }
            Rule::ProfileLink => {
                "a link to one person's account or chat, which names them as an @handle does"
            }
            Rule::NetworkAddress => {
                "an IP or hardware (MAC) address, which can locate or name a person's machine"
            }
            Rule::CryptoAddress => "a Bitcoin or Ethereum address, which follows a person's money",
        }
    }
}

/// What the guard found: the rule, never the matched text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Finding {
    pub rule: Rule,
}

impl Finding {
    pub fn code(self) -> &'static str {
        self.rule.code()
    }

    pub fn words(self) -> &'static str {
        self.rule.words()
    }
}

/// Every rule `s` trips in `context`, sorted, each once. Empty: `s` may be published.
pub fn scan(s: &str, context: Context) -> Vec<Finding> {
    let policy = context.policy();
    let views = normalize::views(s);
    let mut hits = BTreeSet::new();
    if policy.whitespace_is_reason
        && (views.had_invisible
            || views.views[..views.written]
                .iter()
                .any(|v| v.chars.iter().any(|c| c.is_whitespace())))
    {
        hits.insert(Rule::Whitespace);
    }
    if policy.any_at_sign_is_reason && views.views.iter().any(|v| v.chars.contains(&'@')) {
        hits.insert(Rule::AtSign);
    }
    for view in &views.views {
        rules::scan_view(view, policy, &mut hits);
    }
    hits.into_iter().map(|rule| Finding { rule }).collect()
}

/// Whether `s` may be published in `context` (no finding).
pub fn is_clean(s: &str, context: Context) -> bool {
    scan(s, context).is_empty()
}

/// Every rule a JSON value trips, for a store file's line (`runs.jsonl`, `seal.jsonl`, …): every
/// string and every object key at any depth is scanned in `context`, and every integer of nine
/// or more digits is a [`Rule::DigitRun`] (a store file has no count fields of its own; a caller
/// that knows one is a count tests it with [`scan_integer`]). Sorted, each once.
pub fn scan_json(value: &serde_json::Value, context: Context) -> Vec<Finding> {
    fn walk(value: &serde_json::Value, context: Context, out: &mut BTreeSet<Finding>) {
        match value {
            serde_json::Value::String(s) => out.extend(scan(s, context)),
            serde_json::Value::Number(n) => {
                let digits = n.to_string().bytes().filter(u8::is_ascii_digit).count();
                if digits >= 9 {
                    out.insert(Finding {
                        rule: Rule::DigitRun,
                    });
                }
            }
            serde_json::Value::Array(items) => {
                for item in items {
                    walk(item, context, out);
                }
            }
            serde_json::Value::Object(map) => {
                for (k, v) in map {
                    out.extend(scan(k, context));
                    walk(v, context, out);
                }
            }
            serde_json::Value::Null | serde_json::Value::Bool(_) => {}
        }
    }
    let mut out = BTreeSet::new();
    walk(value, context, &mut out);
    out.into_iter().collect()
}

/// What an integer of a ledger line is, for [`scan_integer`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IntegerField {
    /// A field the registry types as a count or counts.
    Count,
    /// Any other field (an integer where a text, digest or day belongs, …).
    Other,
}

/// An identifier-sized integer: nine or more digits outside count fields, ten or more in them
/// (docs/guard.md#counts: no count in this ledger reaches a billion; a chat id does).
pub fn scan_integer(n: i64, field: IntegerField) -> Option<Finding> {
    let magnitude = n.unsigned_abs();
    let rule = match field {
        IntegerField::Other if magnitude >= 100_000_000 => Rule::DigitRun,
        IntegerField::Count if magnitude >= 1_000_000_000 => Rule::CountTooLarge,
        _ => return None,
    };
    Some(Finding { rule })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_and_words_never_empty() {
        let codes: BTreeSet<_> = Rule::ALL.iter().map(|r| r.code()).collect();
        assert_eq!(codes.len(), Rule::ALL.len());
        for r in Rule::ALL {
            assert!(r.words().len() > 10, "{r:?}");
        }
    }

    #[test]
    fn integers() {
        use IntegerField::{Count, Other};
        let rows: &[(i64, IntegerField, Option<Rule>, &str)] = &[
            (99_999_999, Other, None, "eight digits"),
            (
                100_000_000,
                Other,
                Some(Rule::DigitRun),
                "nine digits: catches an off-by-one",
            ),
            (-100_000_000, Other, Some(Rule::DigitRun), "sign ignored"),
            (
                999_999_999,
                Count,
                None,
                "a nine-digit count is still a count",
            ),
            (
                1_000_000_000,
                Count,
                Some(Rule::CountTooLarge),
                "ten digits in a count",
            ),
            (
                5_551_234_567,
                Count,
                Some(Rule::CountTooLarge),
                "a phone number as ref_seq",
            ),
            (i64::MIN, Count, Some(Rule::CountTooLarge), "no overflow"),
        ];
        for &(n, field, want, why) in rows {
            assert_eq!(scan_integer(n, field).map(|f| f.rule), want, "{n}: {why}");
        }
    }

    #[test]
    fn the_contexts_differ_only_where_the_policy_says() {
        assert_eq!(scan("a b", Context::PublicText), []);
        assert_eq!(scan("a b", Context::LedgerString)[0].rule, Rule::Whitespace);
        assert_eq!(scan("@handle", Context::PublicText), []);
        assert_eq!(scan("@handle", Context::LedgerString)[0].rule, Rule::AtSign);
        let digest = "ab123456789c2cc7e7e9e251522b627ad31967ed5823d3a235fbd8f7020c65de";
        assert_eq!(scan(digest, Context::PublicText), []);
        assert_eq!(scan(digest, Context::LedgerString)[0].rule, Rule::DigitRun);
    }
}
