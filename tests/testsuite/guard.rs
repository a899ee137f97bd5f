//! The identifier guard measured both ways (issue 10; docs/guard.md): every evasion in
//! `EVASIONS` is withheld in every context it can appear in (a ledger value, a ledger key, a
//! public text, a store file's line, the header's `certifies` sentence), every integer in
//! `COUNT_EVASIONS` withholds its line, and every string in `ORDINARY` stays published. `rates`
//! prints both rates. The regression tables carried over from the two guards this one replaced
//! keep every row they had, each naming the wrong implementation it catches; the property test
//! inserts separators, look-alikes and invisible characters into random identifiers of each
//! class.

use std::collections::BTreeMap;

use exhibit_protocol::canonical::{self, Object, Value};
use exhibit_protocol::guard::{self, Context, Rule};
use exhibit_protocol::registry::{Registry, Verdict};
use proptest::prelude::*;

use Rule::*;

// ---------------------------------------------------------------------------------------
// The contexts a string is published in
// ---------------------------------------------------------------------------------------

const H: &str = "a3f1c2d4e5b60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90";

fn object(json: &str) -> Object<'static> {
    match canonical::parse(json.as_bytes())
        .unwrap_or_else(|e| panic!("{json}: {e:?}"))
        .value
        .into_owned()
    {
        Value::Object(o) => o,
        other => panic!("{other:?}"),
    }
}

/// A clean `send` line of seq 5 with `extra` members added and `numerals` given.
fn send_line(numerals: &str, extra: &str) -> String {
    format!(
        r#"{{"schema":"darkflobi.gate/entry/v0","seq":5,"prev":"{H}","kind":"send","timestamp":"2026-10-24T14:00:00Z","day":"2026-10-24","entry_id":"{H}","action":"send","decision":"pass","dest_class":"public","dest_hash":"{H}","numerals":{numerals},"reasons":[]{extra}}}"#
    )
}

fn judge(line: &str) -> Verdict {
    Registry::new(&BTreeMap::new())
        .unwrap()
        .judge(&object(line))
}

fn json_string(s: &str) -> String {
    serde_json::to_string(s).unwrap()
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Where {
    LedgerValue,
    LedgerKey,
    PublicText,
    StoreFile,
    /// The header's `certifies` sentence: prose, but published on the first screen.
    HeaderCertifies,
}

const STRING_CONTEXTS: [Where; 5] = [
    Where::LedgerValue,
    Where::LedgerKey,
    Where::PublicText,
    Where::StoreFile,
    Where::HeaderCertifies,
];

/// The rule codes that fire for `s` published `at`; empty = published.
fn codes_at(s: &str, at: Where) -> Vec<String> {
    match at {
        Where::LedgerValue => verdict_codes(judge(&send_line(
            r#"{"bound":2,"total":3}"#,
            &format!(r#","process":{}"#, json_string(s)),
        ))),
        Where::LedgerKey => verdict_codes(judge(&send_line(
            &format!(r#"{{"bound":2,"total":3,{}:1}}"#, json_string(s)),
            "",
        ))),
        Where::PublicText => guard::scan(s, Context::PublicText)
            .iter()
            .map(|f| f.code().to_string())
            .collect(),
        Where::HeaderCertifies => verdict_codes(
            Registry::new(&BTreeMap::new())
                .unwrap()
                .judge_header(&object(&format!(
                    r#"{{"anchor_tz":"America/New_York","certifies":{},"created":"2026-10-24T13:00:00Z","schema":"darkflobi.gate/log/v0"}}"#,
                    json_string(s)
                ))),
        ),
        Where::StoreFile => {
            let line: serde_json::Value =
                serde_json::from_str(&format!(r#"{{"run":3,"note":{}}}"#, json_string(s))).unwrap();
            guard::scan_json(&line, Context::LedgerString)
                .iter()
                .map(|f| f.code().to_string())
                .collect()
        }
    }
}

/// The bracketed codes of a withheld line's reason (the reason is words, then `[code]`).
fn verdict_codes(v: Verdict) -> Vec<String> {
    match v {
        Verdict::Publish => vec![],
        Verdict::Withhold { reason, .. } => reason
            .split('[')
            .skip(1)
            .filter_map(|s| s.split(']').next())
            .map(str::to_owned)
            .collect(),
        Verdict::Unknown { .. } => panic!("the test line is all known fields"),
    }
}

// ---------------------------------------------------------------------------------------
// Evasions: (string, the rule that must name it, the mistake the row catches)
// ---------------------------------------------------------------------------------------

#[rustfmt::skip]
const EVASIONS: &[(&str, Rule, &str)] = &[
    // --- emails (the issue's list first) ---
    ("owner%40example.com", Email, "percent-encoded @ not decoded"),
    ("owner%2540example.com", Email, "percent-encoding undone only once"),
    ("owner(at)example(dot)com", Email, "(at) and (dot) not decoded"),
    ("owner [at] example [dot] com", Email, "spaces around [at] [dot] not absorbed"),
    ("owner{at}example[.]com", Email, "{at} or the defanged [.] not decoded"),
    ("OWNER AT EXAMPLE DOT COM", Email, "shouted AT and DOT not decoded"),
    ("owner\u{FE6B}example.com", Email, "U+FE6B small commercial at: no compatibility folding"),
    ("owner\u{FF20}example\u{FF0E}com", Email, "full-width @ and full stop"),
    ("owner@example\u{3002}com", Email, "ideographic full stop not folded (UTS #39 leaves it)"),
    ("owner@example\u{FF61}com", Email, "half-width ideographic full stop"),
    ("owner&#64;example.com", Email, "decimal character reference not decoded"),
    ("owner&#x40;example&#46;com", Email, "hex character reference not decoded"),
    ("owner&commat;example&period;com", Email, "named references not decoded"),
    ("https://example.com/contact?to=owner%40example.com", Email, "an address inside a URL query"),
    ("own\u{200B}er@exa\u{200B}mple.com", Email, "zero-width spaces inside an address"),
    ("owner@ex\u{0430}mple.com", Email, "a Cyrillic letter in the domain"),
    ("owner @ example . com", Email, "spaces around @ and the dot: catches an email rule that needs them glued"),
    ("owner@example . com", Email, "spaces around the dot only"),
    ("owner @ example.com", Email, "spaces around @ only"),
    ("owner@ example.com", Email, "a space after @ only"),
    ("owner @ example .com", Email, "a dot spaced on its left only"),
    ("owner @ example. com", Email, "a sentence-like dot before a common top-level domain"),
    ("owner\n@\nexample\n.\nco\n.\nuk", Email, "line breaks around @ and each dot"),
    ("owner\u{00A0}@\u{00A0}example\u{00A0}.\u{00A0}org", Email, "no-break spaces fold to spaces"),
    ("write to owner @ mail . example . org. Thanks", Email, "a spaced address inside a sentence"),
    ("owner at example dot com", Email, "at and dot written as lower-case words: catches decoding only capitals and brackets"),
    ("jane dot doe at mail dot example dot org", Email, "dots spelled in the local part and the domain"),
    ("owner at mail.example dot com", Email, "a written dot and a spelled one in one domain"),
    ("owner At Example Dot Com", Email, "the words in title case"),
    ("owner at\nexample\ndot\nco\ndot\nuk", Email, "line breaks between the words"),
    ("owner@example dot com", Email, "a glued @ with dot as a word: catches worded dots read only after a worded at"),
    ("owner @ example dot com", Email, "a spaced @ with dot as a word"),
    ("owner at example . com", Email, "at as a word with a spaced dot"),
    ("owner@@example.com", Email, "a doubled @: catches a local part looked for only right before the last @"),
    ("o w n e r @ e x a m p l e . c o m", Email, "an address spelled out letter by letter"),
    ("/ h o m e / a l i c e / n o t e s", DriveOrHomePath, "a home path spelled out"),
    ("t . m e / + A b C d E f", TelegramInvite, "an invite spelled out"),
    ("o w n e r (at) e x a m p l e (dot) c o m", Email, "spelled out around spellings: catches joining only after decoding"),
    ("owner at example [dot] com", Email, "at as a word with a bracketed dot: catches a decoded dot read as written"),
    ("owner@example,com", Email, "a comma for the dot before a common top-level domain"),
    ("write to alice at example.com", Email, "a name and at before a written domain: catches reading every worded at with a written dot as a site"),
    ("Jane.Doe at example.org", Email, "a dotted local part before at: no word of prose has a dot"),
    ("jdoe42 at mail.example.co.uk", Email, "a local part with digits before at and a written domain"),
    ("j_doe at example.io", Email, "an underscore in the local part"),
    ("Ask Bob at example.com about it", Email, "a name in title case before at (decision: a name is an address's local part)"),
    ("bob @example.com", Email, "whitespace before @ and none after, a name before it: catches every such @ read as a handle"),
    ("mail me: alice @mail.example.net", Email, "the handle shape after a colon, a name before the @"),
    ("owner_at_example_dot_com", Email, "at and dot glued by underscores: catches reading the words only between spaces"),
    ("OWNER_AT_EXAMPLE_DOT_COM", Email, "the same, shouted"),
    ("reach jane_doe_at_example.org", Email, "an underscored at before a written domain, a local part with an underscore"),
    // --- phones ---
    ("+1-555-010-9999", Phone, "dashed international phone"),
    ("+1 (555) 010-9999", Phone, "the protocol's example"),
    ("+44 20 7946 0958", Phone, "grouped UK number"),
    ("+4420/7946/0958", Phone, "slashes in a phone"),
    ("\u{FF0B}1\u{FF15}\u{FF15}\u{FF15}0109999", Phone, "full-width plus and digits"),
    ("(555) 010-9999", Phone, "a phone without + grouped like one"),
    ("555.010.9999", Phone, "dotted phone without +"),
    ("555\u{3164}010\u{3164}9999", Phone, "Hangul filler U+3164 used as a space"),
    ("555\n010\n9999", GroupedDigits, "groups across line breaks"),
    ("555'010'9999", GroupedDigits, "apostrophes between groups"),
    ("555-O1O-9999", Phone, "letters O and l written for 0 and 1 inside a number"),
    ("chat_l00l234567", DigitRun, "l written for 1 inside a run of digits"),
    ("call five five five, one two three, four five six seven", GroupedDigits, "a phone number in digit words: catches digits read only as digits"),
    ("Five-Five-Five-Oh-One-Nine-Nine-Four-Two-One", GroupedDigits, "digit words joined by dashes, capitalised, oh for zero"),
    ("555 one two three 4567", GroupedDigits, "digit words between digit groups"),
    ("chat id: one two three four five six seven eight nine", GroupedDigits, "a chat id read out digit by digit"),
    ("four one one one one one one one one one one one one one one one", CardNumber, "a card number in digit words (Luhn passes)"),
    ("+44 seven nine one one, one two three four five six", Phone, "a plus phone with its number in words"),
    ("555.O1o.999l", Phone, "lower-case o and l written for 0 and 1, a group in each case"),
    ("5\u{FE0F}5\u{FE0F}5\u{FE0F}0\u{FE0F}1\u{FE0F}0\u{FE0F}9\u{FE0F}9\u{FE0F}9\u{FE0F}9", DigitRun, "digits split by variation selector U+FE0F"),
    ("5\u{FE0F}\u{20E3}5\u{FE0F}\u{20E3}5\u{FE0F}\u{20E3}0\u{FE0F}\u{20E3}1\u{FE0F}\u{20E3}0\u{FE0F}\u{20E3}9\u{FE0F}\u{20E3}9\u{FE0F}\u{20E3}9\u{FE0F}\u{20E3}9\u{FE0F}\u{20E3}", DigitRun, "keycap digits (combining enclosing keycap)"),
    ("\u{2075}\u{2075}\u{2075}\u{2070}\u{00B9}\u{2070}\u{2079}\u{2079}\u{2079}\u{2079}", DigitRun, "superscript digits"),
    ("\u{2464}\u{2464}\u{2464}\u{24EA}\u{2460}\u{24EA}\u{2468}\u{2468}\u{2468}\u{2468}", DigitRun, "circled digits"),
    ("\u{277A}\u{277A}\u{277A}\u{24FF}\u{2776}\u{24FF}\u{277E}\u{277E}\u{277E}\u{277E}", DigitRun, "dingbat negative circled digits (no NFKC mapping)"),
    ("\u{0665}\u{0665}\u{0665}\u{0660}\u{0661}\u{0660}\u{0669}\u{0669}\u{0669}\u{0669}", DigitRun, "Arabic-Indic digits"),
    ("\u{1D7D3}\u{1D7D3}\u{1D7D3}\u{1D7CE}\u{1D7CF}\u{1D7CE}\u{1D7D7}\u{1D7D7}\u{1D7D7}\u{1D7D7}", DigitRun, "mathematical bold digits"),
    ("\u{1369}\u{136A}\u{136B}\u{136C}\u{136D}\u{136E}\u{136F}\u{1370}\u{1371}", DigitRun, "Ethiopic digits (No, not Nd)"),
    ("5\u{0332}5\u{0332}5\u{0332}0\u{0332}1\u{0332}0\u{0332}9\u{0332}9\u{0332}9\u{0332}9\u{0332}", DigitRun, "a combining underline on every digit"),
    ("555\u{2800}010\u{2800}9999", GroupedDigits, "braille blank as a space"),
    ("555\u{034F}010\u{034F}9999", DigitRun, "combining grapheme joiner"),
    ("555\u{E0020}010\u{E0020}9999", DigitRun, "a tag character"),
    ("555\u{00A0}010\u{00A0}9999", Phone, "no-break spaces"),
    // --- cards ---
    ("4111-1111-1111-1111", CardNumber, "dashed card"),
    ("4111 1111 1111 1111", CardNumber, "spaced card"),
    ("5500/0000/0000/0004", CardNumber, "slashed card"),
    ("4111_1111_1111_1111", CardNumber, "underscored card"),
    ("4111,1111,1111,1111", CardNumber, "comma-grouped card"),
    ("4111.1111.1111.1111", CardNumber, "dotted card"),
    ("4111 1111\n1111 1111", CardNumber, "a card across a line break"),
    ("4111 - 1111.1111/1111", CardNumber, "mixed separators"),
    ("3782 822463 10005", CardNumber, "15-digit Amex grouped 4-6-5"),
    ("\u{FF14}\u{FF11}\u{FF11}\u{FF11}\u{FF11}\u{FF11}\u{FF11}\u{FF11}\u{FF11}\u{FF11}\u{FF11}\u{FF11}\u{FF11}\u{FF11}\u{FF11}\u{FF11}", CardNumber, "full-width card"),
    // --- IBANs ---
    ("DE89-3704-0044-0532-0130-00", Iban, "IBAN in dashed groups"),
    ("DE89 3704 0044 0532 0130 00", Iban, "IBAN in spaced groups"),
    ("GB82 WEST 1234 5698 7654 32", Iban, "IBAN with a bank code in letters"),
    ("gb82west12345698765432", Iban, "lower-case IBAN without spaces"),
    // --- chat ids and runs ---
    ("chat_-100_1234_5678_90", GroupedDigits, "a chat id in underscored groups"),
    ("chat:-100:1234:567:890", GroupedDigits, "a chat id in colon-joined groups (clock times are set aside first, so a colon is no cover)"),
    ("-1001234567890", DigitRun, "a supergroup chat id"),
    ("chat123456789", DigitRun, "nine digits glued to a word"),
    ("12\u{00AD}3456\u{2060}789", DigitRun, "soft hyphen and word joiner inside a run"),
    ("2026-11-08-4567", GroupedDigits, "an id written to look like a date with a tail"),
    // --- paths ---
    ("/h\u{03BF}me/agent/gate", DriveOrHomePath, "Greek omicron in /home/"),
    ("/h\u{043E}m\u{0435}/agent", DriveOrHomePath, "Cyrillic o and e in /home/"),
    ("\u{0421}:\\Windows\\System32", DriveOrHomePath, "Cyrillic capital es as a drive letter"),
    ("C\u{FF1A}\u{FF3C}x", DriveOrHomePath, "full-width colon and backslash"),
    ("C\u{2236}\\x", DriveOrHomePath, "ratio sign U+2236 as a colon"),
    ("C:\u{29F5}x", DriveOrHomePath, "reverse solidus operator as a backslash"),
    ("\u{2215}home\u{2215}agent", DriveOrHomePath, "division slash U+2215"),
    ("\\Users\\jane", DriveOrHomePath, "backslashed /users/"),
    ("xC\u{200B}:\\aa", DriveOrHomePath, "a drive glued to a letter, an invisible inside (found by the property test)"),
    ("%USERPROFILE%\\notes", DriveOrHomePath, "env var path"),
    ("\\\\server\\share", DriveOrHomePath, "UNC path"),
    ("~/notes.txt", DriveOrHomePath, "tilde home"),
    ("~alice/notes.txt", DriveOrHomePath, "a user's home named by the login, ~user/"),
    ("https://example.org/~alice/", DriveOrHomePath, "a personal page under ~user/"),
    ("%2Fhome%2Fagent", DriveOrHomePath, "percent-encoded slashes"),
    // --- telegram ---
    ("t.me/+AbCdEf", TelegramInvite, "private invite"),
    ("https://t.me/joinchat/AbCdEf", TelegramInvite, "joinchat invite"),
    ("t.m\u{0435}/+AbCdEf", TelegramInvite, "Cyrillic e in the host"),
    ("t\u{200B}.me/+AbCdEf", TelegramInvite, "zero-width space in the host"),
    // --- separators of every kind (issue 48, class 1): a list of separators invited the next --
    ("chat|100|1234|5678", GroupedDigits, "pipes join a chat id's groups"),
    ("555;010;9999", GroupedDigits, "semicolons"),
    ("555*010*9999", GroupedDigits, "asterisks"),
    ("555+010+9999", GroupedDigits, "plus signs between groups (not a leading +)"),
    ("555~010~9999", GroupedDigits, "tildes"),
    ("555=010=9999", GroupedDigits, "equals signs"),
    ("555#010#9999", GroupedDigits, "hashes"),
    ("555!010!9999", GroupedDigits, "exclamation marks"),
    ("555&010&9999", GroupedDigits, "ampersands"),
    ("555\u{00B7}010\u{00B7}9999", GroupedDigits, "middle dots"),
    ("555\u{2022}010\u{2022}9999", GroupedDigits, "bullets"),
    ("-100^1234^5678", GroupedDigits, "a mark no list would name: carets"),
    ("555\u{2192}010\u{2192}9999", GroupedDigits, "a symbol outside ASCII: arrows"),
    ("555|;010|;9999", GroupedDigits, "two marks mixed"),
    ("555 -- 010 -- 9999", GroupedDigits, "a run of dashes with spaces, four characters"),
    ("555 - - 010 - - 9999", GroupedDigits, "dashes spaced apart, five characters"),
    ("555 ---- 010 ---- 9999", GroupedDigits, "a long run of dashes"),
    ("555 ~~~~ 010 ~~~~ 9999", GroupedDigits, "a long run of one other mark"),
    ("chat_-100___1234___5678", GroupedDigits, "runs of underscores"),
    // --- an address's dot drawn another way, its @ written as a source escape (class 2) ----
    ("owner@example\u{00B7}com", Email, "a middle dot for the dot"),
    ("owner@example\u{2022}com", Email, "a bullet for the dot"),
    ("owner@example\u{30FB}com", Email, "the katakana middle dot"),
    ("owner@example\u{FF65}com", Email, "the half-width katakana middle dot"),
    ("owner@example\u{2027}com", Email, "the hyphenation point"),
    ("owner@example\u{22C5}com", Email, "the dot operator"),
    ("owner@example\u{2219}com", Email, "the bullet operator"),
    ("jane\u{00B7}doe@mail\u{00B7}example\u{00B7}org", Email, "middle dots in the local part and the domain"),
    ("owner\\u0040example.com", Email, "\\u0040 for the @"),
    ("owner\\x40example.com", Email, "\\x40 for the @"),
    ("owner%u0040example.com", Email, "%u0040 for the @"),
    ("owner\\u{40}example.com", Email, "\\u{40} for the @"),
    ("owner\\U00000040example.com", Email, "\\U00000040 for the @"),
    ("owner\\100example.com", Email, "octal \\100 for the @"),
    ("owner\\x40example\\x2ecom", Email, "both the @ and the dot escaped"),
    ("owner\\u0040example\\u00b7com", Email, "an escape that decodes to a middle dot"),
    // --- other identifier shapes (class 4) -------------------------------------------
    ("t.me/alice_private", ProfileLink, "a Telegram profile link, as the bare @name is withheld"),
    ("https://telegram.me/alice", ProfileLink, "the long Telegram host"),
    ("tg://resolve?domain=alice", ProfileLink, "the Telegram app link to a profile"),
    ("tg://user?id=5551234", ProfileLink, "the Telegram app link to a user id"),
    ("https://x.com/alice", ProfileLink, "an X profile"),
    ("twitter.com/alice", ProfileLink, "a Twitter profile without a scheme"),
    ("https://www.instagram.com/alice.b/", ProfileLink, "an Instagram profile under www."),
    ("facebook.com/alice.smith", ProfileLink, "a Facebook profile"),
    ("linkedin.com/in/alice-smith", ProfileLink, "a LinkedIn profile"),
    ("https://mastodon.social/@alice", ProfileLink, "a fediverse profile, /@name on any server"),
    ("tiktok.com/@alice", ProfileLink, "a TikTok profile"),
    ("wa.me/alice", ProfileLink, "a WhatsApp chat link"),
    ("T.ME/Alice", ProfileLink, "upper case: catches a case-sensitive host"),
    ("t.m\u{0435}/alice", ProfileLink, "a Cyrillic e in the host"),
    ("10.0.0.1", NetworkAddress, "an IPv4 address of few digits"),
    ("192.168.1.7:8080", NetworkAddress, "an IPv4 address with a port"),
    ("1.2.3.4", NetworkAddress, "four one-digit parts"),
    ("10\u{3002}0\u{3002}0\u{3002}1", NetworkAddress, "ideographic full stops"),
    ("2001:db8::1", NetworkAddress, "IPv6 with ::"),
    ("fe80::1ff:fe23:4567:890a", NetworkAddress, "a link-local IPv6"),
    ("2001:0db8:85a3:0000:0000:8a2e:0370:7334", NetworkAddress, "a full IPv6"),
    ("00:1a:2b:3c:4d:5e", NetworkAddress, "a MAC address"),
    ("00-1A-2B-3C-4D-5E", NetworkAddress, "a MAC address with dashes"),
    ("1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa", CryptoAddress, "a Bitcoin legacy address"),
    ("3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy", CryptoAddress, "a Bitcoin P2SH address"),
    ("bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq", CryptoAddress, "a Bitcoin SegWit address"),
    ("BC1QAR0SRRR7XFKVY5L643LYDNW9RE59GTZZWF5MDQ", CryptoAddress, "a SegWit address in capitals"),
    ("0x52908400098527886E0F7030069857D2E4169EE7", CryptoAddress, "an Ethereum address (EIP-55 case)"),
    ("0xde709f2102306220921060314715629080e2fb77", CryptoAddress, "an Ethereum address in lower case, which a text set aside as a digest"),
];

/// Integers that withhold their line: (members to put in a `send` line as numerals, extra
/// members, the mistake the row catches). The `delivered` and `exec_scan` rows build their
/// own lines.
fn count_evasions() -> Vec<(String, &'static str)> {
    let delivered = |ref_seq: &str| {
        format!(
            r#"{{"schema":"darkflobi.gate/entry/v0","seq":9,"prev":"{H}","kind":"delivered","timestamp":"2026-10-24T14:00:00Z","day":"2026-10-24","entry_id":"{H}","ref_seq":{ref_seq},"status":"ok","sent_sha256":"{H}"}}"#
        )
    };
    let exec_scan = |scanned: &str| {
        format!(
            r#"{{"schema":"darkflobi.gate/entry/v0","seq":9,"prev":"{H}","kind":"exec_scan","timestamp":"2026-10-24T14:00:00Z","day":"2026-10-24","entry_id":"{H}","scanned":{scanned},"flagged":0}}"#
        )
    };
    vec![
        (
            delivered("5551234567"),
            "a phone number as ref_seq: catches counts exempt from size",
        ),
        (
            delivered("9"),
            "ref_seq naming its own line: catches no 'earlier' check",
        ),
        (delivered("10"), "ref_seq naming a later line"),
        (delivered("0"), "ref_seq naming no line at all"),
        (exec_scan("1001234567890"), "an id-sized scanned count"),
        (
            exec_scan("1000000000"),
            "exactly ten digits: catches an off-by-one",
        ),
        (
            send_line(r#"{"bound":2,"total":4111111111111111}"#, ""),
            "a card number as a numerals count",
        ),
        (
            send_line(r#"{"bound":2,"total":3,"4111-1111-1111-1111":1}"#, ""),
            "a card as a counts key",
        ),
        (
            send_line(r#"{"bound":2,"total":3,"owner%40example.com":1}"#, ""),
            "an encoded email as a counts key",
        ),
    ]
}

// ---------------------------------------------------------------------------------------
// Ordinary strings that must stay published: (string, also a ledger value?, what it is)
// ---------------------------------------------------------------------------------------

#[rustfmt::skip]
const ORDINARY: &[(&str, bool, &str)] = &[
    // dates and clock times
    ("2026-11-08", true, "ISO date"),
    ("2026/11/08", true, "slashed ISO date"),
    ("08.11.2026", true, "day-first date"),
    ("11/08/2026", true, "month-first date"),
    ("2026-11-08T21:41:26Z", true, "ISO timestamp"),
    ("2026-11-08T21:41:26.123456+01:00", true, "timestamp with fraction and offset"),
    ("2026-11-08 21:41:26", false, "date and time"),
    ("from 2026-11-08 to 2026-11-09", false, "a date range in words"),
    ("2026-11-08/2026-11-09", true, "an ISO interval"),
    ("09:00-17:30", true, "a time range"),
    ("Nov 8, 2026 at 9:41 PM", false, "a written date"),
    ("On 2026-11-08 12 people came", false, "a date beside a small count"),
    // letters that look like digits, as words (only a token that holds a digit and no other
    // letter reads them as digits)
    ("LOL lol IOI lOl 1234", false, "words of O, I and l beside a short number"),
    ("one, two, three, go!", false, "counting in digit words, under nine"),
    ("one of the two or three ideas", false, "digit words apart"),
    ("Room two-oh-one, floor nine", false, "a room number in words"),
    ("someone phoned; nineteen ones", false, "digit words inside other words"),
    ("ticket 1234 5678 one time", false, "a lone digit word beside digit groups stays a word"),
    ("GPT-4o, 2O26-11-08 at 9:41", false, "a model name and a date written with a letter O"),
    ("~5/10 of the runs", false, "an approximate fraction after a tilde"),
    // versions
    ("0.9.4", true, "version"),
    ("gate/0.9.5", true, "the demo's process value"),
    ("v1.82.0", true, "Rust version"),
    ("version 7.49.0", false, "version in prose"),
    ("pkg@7.49.0", false, "a package pinned with @ (text)"),
    ("10.15.7", true, "macOS version"),
    ("2024.10.1", true, "calendar version"),
    // prices, percentages, decimals, counts
    ("$19.99", true, "price"),
    ("\u{20AC}1.299,00", true, "price with a thousands dot and decimal comma"),
    ("USD 1,250,000", false, "seven-figure amount"),
    ("12.5%", true, "percentage"),
    ("99.9% uptime over 30 days", false, "percentage in prose"),
    ("3.14159", true, "decimal"),
    ("0.000123", true, "small decimal"),
    ("-74.0060", true, "negative decimal"),
    ("42", true, "short count"),
    ("1,234 messages", false, "count with a thousands separator"),
    ("12345678", true, "eight digits"),
    ("3 of 3 numerals bound", false, "the gate's own words"),
    ("[gate: 3 of 3 numerals bound \u{00B7} ledger 0042]", false, "the gate's trailer"),
    ("1, 2, 3, 4", false, "a short list"),
    ("ratio 3:4", false, "a ratio"),
    ("v1.2.3.4", true, "a four-part version glued to v is no IPv4 address"),
    ("1.2.3.4.5", true, "five dotted parts are no IPv4 address"),
    ("10.15.700.1", true, "a part over 255"),
    ("std::vector", true, "a path in code is no IPv6 address"),
    ("12:30:45", true, "a clock time is no IPv6 address"),
    ("at 09:00::done", false, "a time then colons"),
    ("| 2026-11-08 | 412 | 37 |\n| 2026-11-09 | 500 | 40 |", false, "a markdown table of small counts: rows stay apart"),
    ("1 | 2 | 3 | 4", false, "a short list joined by pipes"),
    ("items 1-4, 5-8 and 9-12", false, "ranges in prose"),
    ("sha256 1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d", false, "a lower-case hex digest starting with 1 is no Bitcoin address"),
    ("0x1F", true, "a short hex literal is no Ethereum address"),
    ("bc1 and bc2", false, "bc1 alone is no address"),
    ("meet at 7:30 \u{2022} lunch 12:00 \u{2022} call 3:15", false, "bullets between clock times"),
    // hex digests
    ("sha256:ab123456789c2cc7e7e9e251522b627ad31967ed5823d3a235fbd8f7020c65de", false, "a digest with a nine-digit run inside (text)"),
    ("a3f1c2d4e5b60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90", true, "a digest without a long run"),
    ("commit 4b825dc642cb6eb9a060e54bf8d69288fbee4904", false, "a git object id (text; after 0x it is an Ethereum address's shape and withheld)"),
    ("deadbeef", true, "short hex"),
    // URLs and handles
    ("https://example.org/docs/page", true, "public URL with a path"),
    ("https://github.com/owner/repo/blob/main/src/lib.rs#L120", true, "URL with a line anchor"),
    ("https://example.org/2026/11/08/post-title", true, "URL with a date path"),
    ("https://docs.rs/serde/1.0.229/serde/", true, "URL with a version path"),
    ("https://example.org/search?q=rust&page=2", true, "URL with a query"),
    ("https://github.com/owner/repo", true, "a repository is no profile (decision: GitHub is not on the list)"),
    ("inbox.com/alice", true, "a host that ends in x.com is not x.com"),
    ("https://example.org/docs/@types", false, "/@ deeper than the first segment of the path"),
    ("@darkflobi", false, "a public handle (text)"),
    ("hi @handle, see you", false, "a handle in prose"),
    ("me@localhost", false, "no dot in the domain (text)"),
    ("C: drive", false, "a drive named in words"),
    ("/homeless/x", true, "a longer word than home"),
    ("https://example.com", true, "URL scheme is no drive"),
    ("50% of 100%", false, "percent signs in prose"),
    ("meet at noon, dot the i", false, "the words at and dot in prose"),
    ("look at the dot com bubble", false, "prose that decodes to nothing"),
    ("see you @ noon. Thanks", false, "a sentence's full stop after @ joins no address"),
    ("follow @alice.bsky.social for news", false, "a domain-like handle named in prose (text)"),
    ("meet @ 5.30 pm", false, "a time after @: the last label is no top-level domain"),
    ("coffee @ home. me too", false, "a sentence's full stop before a word that is a country's domain"),
    ("look at this dot com page", false, "at followed by a determiner is prose, not an address"),
    ("at example dot com", false, "no local part before at"),
    ("look at example.com", false, "at with a written dot only: a site named in prose (decision)"),
    ("Sign up at example.com today", false, "a verb's particle before at: a site named in prose"),
    ("Tickets at example.org, doors at 7", false, "a noun of where a thing is found before at"),
    ("We are live at example.io!", false, "live at a site"),
    ("it's at example.com now", false, "a contraction before at is prose"),
    ("the results are at results.example.com", false, "a verb before at, a three-label site"),
    ("thanks to @example.com for hosting", false, "a handle named after to"),
    ("posted by @news.example.com", false, "a handle named after by"),
    ("print(row.created_at_utc.isoformat())", false, "an underscored at in code: the words are held to an address's shape"),
    ("keys are encrypted_at_rest and logged_at_dot_level", false, "underscored words with no top-level domain after them"),
    ("x = a + b - c", false, "an equation of lone letters joins to nothing"),
    ("grades A B C D E F", false, "lone capitals spelled out join to a word"),
    ("I / O bound", false, "three lone characters stay apart"),
    ("ping me@home,then lunch", false, "a comma glued before a word that is no top-level domain"),
    // the demo box's legitimate ledger values
    ("America/New_York", true, "the demo's anchor_tz"),
    ("darkflobi.gate/entry/v0", true, "the demo's schema"),
    ("receipt_missing", true, "a demo reason"),
    ("numeral_unbound", true, "a demo reason"),
    ("dest_not_allowed", true, "a demo reason"),
    ("word_list", true, "a demo reason"),
    ("operator_request", true, "a demo deletion reason"),
    ("typo_in_figure", true, "a demo deletion reason"),
    ("bridge_rewired", true, "a demo detail"),
    ("stale_lock_removed", true, "a demo detail"),
    ("torn_tail_truncated", true, "a demo detail"),
    ("draft_only", true, "a demo action"),
    ("failed", true, "a demo status"),
    // ordinary non-Latin prose
    ("\u{041F}\u{0440}\u{0438}\u{0432}\u{0435}\u{0442}, \u{043C}\u{0438}\u{0440}", false, "Russian prose"),
    ("\u{4ECA}\u{5929}\u{3002}\u{660E}\u{5929}\u{3002}", false, "Chinese sentences ending in ideographic full stops"),
    ("caf\u{00E9} na\u{00EF}ve r\u{00E9}sum\u{00E9}", false, "accented Latin"),
];

// ---------------------------------------------------------------------------------------
// Regression rows carried over from text_guard.rs and shapes.rs (expected sets updated where
// the one guard is deliberately stricter; each such row says so)
// ---------------------------------------------------------------------------------------

macro_rules! h64 {
    () => {
        "ab123456789c2cc7e7e9e251522b627ad31967ed5823d3a235fbd8f7020c65de"
    };
}
macro_rules! h40 {
    () => {
        "ab123456789c2cc7e7e9e251522b627ad31967ed"
    };
}
macro_rules! h32 {
    () => {
        "ab123456789c2cc7e7e9e251522b627a"
    };
}

#[rustfmt::skip]
const TEXT_ROWS: &[(&str, &[Rule], &str)] = &[
    // --- digit_run --------------------------------------------------------------------
    ("12345678", &[], "8 digits: catches a >= 8 off-by-one"),
    ("123456789", &[DigitRun], "9 digits: catches a > 9 off-by-one"),
    ("call 5550109999 now", &[DigitRun], "a run inside prose"),
    ("abc123456789def", &[DigitRun], "15-hex run is no digest: catches 'any hex with a letter'"),
    (h64!(), &[], "64-hex digest with a 9-digit run inside: catches no digest exemption"),
    (concat!("sha256:", h64!()), &[], "digest after a colon label"),
    (h40!(), &[], "40-hex digest: catches a 64-only digest test"),
    (h32!(), &[], "32-hex digest: catches a 64/40-only digest test"),
    (concat!("0x", h40!()), &[CryptoAddress], "0x and 40 hex digits is an Ethereum address's shape (issue 48; it was set aside as a digest)"),
    (concat!("g", h64!(), "g"), &[], "non-hex letters bound a digest (decision)"),
    ("12345678901234567890123456789012", &[DigitRun], "all-digit 32 run is no digest"),
    ("1234567890123456789012345678901234567890", &[DigitRun], "all-digit 40 run is no digest"),
    (concat!(h64!(), "123456789"), &[DigitRun], "digits glued after a digest: 73-hex run"),
    (concat!("123456789", h40!()), &[DigitRun], "digits glued before a digest: 49-hex run"),
    (concat!(h64!(), "a"), &[DigitRun], "65 hex: catches 'length >= 32 is a digest'"),
    (concat!(h32!(), "d"), &[DigitRun], "33 hex: catches a length range instead of exact"),
    (concat!(h64!(), h64!()), &[DigitRun], "two glued digests are one 128-hex run"),
    (concat!(h64!(), " 123456789"), &[DigitRun], "a separate run beside a digest is seen"),
    ("1234\u{200D}56789", &[DigitRun, GroupedDigits], "ZWJ inside: catches no zero-width removal (read as a space, the groups trip too)"),
    ("1234\u{200B}5678\u{FEFF}9", &[DigitRun, GroupedDigits], "ZWSP and BOM inside"),
    ("12\u{00AD}3456\u{2060}789", &[DigitRun, GroupedDigits, Phone], "soft hyphen and word joiner inside (read as spaces: 2-4-3 groups, phone-shaped)"),
    ("\u{FF11}\u{FF12}\u{FF13}\u{FF14}\u{FF15}\u{FF16}\u{FF17}\u{FF18}\u{FF19}", &[DigitRun], "full-width: catches no folding"),
    ("\u{0661}\u{0662}\u{0663}\u{0664}\u{0665}\u{0666}\u{0667}\u{0668}\u{0669}", &[DigitRun], "Arabic-Indic digits"),
    ("\u{0967}\u{0968}\u{0969}\u{096A}\u{096B}\u{096C}\u{096D}\u{096E}\u{096F}", &[DigitRun], "Devanagari digits"),
    ("\u{1D7CF}\u{1D7D0}\u{1D7D1}\u{1D7D2}\u{1D7D3}\u{1D7D4}\u{1D7D5}\u{1D7D6}\u{1D7D7}", &[DigitRun], "mathematical bold digits"),
    ("12345\u{FF16}\u{FF17}\u{FF18}\u{FF19}", &[DigitRun], "mixed ASCII and full-width"),
    (concat!(h64!(), "\u{FF11}\u{FF12}\u{FF13}\u{FF14}\u{FF15}\u{FF16}\u{FF17}\u{FF18}\u{FF19}"), &[DigitRun], "full-width digits glued to a digest are seen"),
    (concat!("ab123456789c2cc7e7e9e251522b627ad31967ed5823d3a235fbd8f7020c65d", "\u{FF11}"), &[DigitRun], "63 hex + a full-width digit: catches folding that makes a digest"),
    ("\u{0E51}\u{0E52}\u{0E53}\u{0E54}\u{0E55}\u{0E56}\u{0E57}\u{0E58}\u{0E59}", &[DigitRun], "Thai digits: catches a table limited to the six named blocks"),
    ("\u{00B9}\u{00B2}\u{00B3}\u{2074}\u{2075}\u{2076}\u{2077}\u{2078}\u{2079}", &[DigitRun], "superscripts are digits since issue 10 (NFKC): catches no compatibility folding"),
    ("\u{2160}\u{2161}\u{2162}\u{2163}\u{2164}\u{2165}\u{2166}\u{2167}\u{2168}", &[], "Roman numerals are Nl, not digits"),
    // --- grouped_digits ---------------------------------------------------------------
    ("123 456 789", &[GroupedDigits, Phone], "space-grouped, phone-shaped"),
    ("12-34-56-78-9", &[GroupedDigits], "dash-grouped, last group one digit"),
    ("555.010.9999", &[GroupedDigits, Phone], "dot-grouped, ten digits, a phone without +"),
    ("123 456 78", &[], "eight grouped digits: catches an off-by-one"),
    ("1 2 3 4 5 6 7 8 9", &[DigitRun, GroupedDigits], "nine one-digit groups (spelled out, also a run)"),
    ("1 2 3 4 5 6 7 8", &[], "eight one-digit groups"),
    ("123 - 456 - 789", &[GroupedDigits, Phone], "three-character separators join"),
    ("123    456    789", &[GroupedDigits, Phone], "four spaces join: a longer separator on one line of one mark (issue 48; it was a break)"),
    ("123\n\n\n\n456\n\n\n\n789", &[], "four line breaks break a chain (a longer separator stays on one line)"),
    ("123 -.-.-. 456 -.-.-. 789", &[GroupedDigits, Phone], "eight characters of two marks on one line join"),
    ("123 -.-.-.- 456 -.-.-.- 789", &[], "nine characters are past the longest separator"),
    ("123 -.* 456 -.* 789", &[], "five characters of three marks: a long separator is of at most two"),
    ("123\n456\n789", &[GroupedDigits], "line breaks join since issue 10 (not phone-shaped)"),
    ("123\u{2013}456\u{2013}789", &[GroupedDigits, Phone], "en dash: catches an ASCII-only dash"),
    ("123\u{00A0}456\u{00A0}789", &[GroupedDigits, Phone], "NBSP is a space"),
    ("(555) 010-9999", &[GroupedDigits, Phone], "parentheses join; a phone without +"),
    ("1234\u{200B} 5678 9", &[GroupedDigits], "zero-width removed before grouping"),
    ("192.168.100.200", &[GroupedDigits, Phone, NetworkAddress], "an IPv4 address with twelve digits (phone-shaped: four groups of three)"),
    ("version 7.49.0", &[], "a version is short"),
    ("2026-11-08", &[], "a date alone"),
    ("21:41:26", &[], "a time alone"),
    ("2026-11-08 21:41:26", &[], "date + time: 2026,11,08,21 would be 10 digits unless set aside"),
    ("2026-11-08T21:41:26Z", &[], "ISO timestamp"),
    ("2026-11-08 21:41:26 EST; seq 12345678", &[], "a ledger-like sentence"),
    ("08.11.2026 21:41", &[], "day-first date with a time"),
    ("11/08/2026 21:41", &[], "month-first slash date with a time"),
    ("2026-11-08-123-456-789", &[GroupedDigits], "date glued to groups: the rest reach 9"),
    ("2026-11-08 123 456", &[], "date glued to groups: the rest reach only 6"),
    ("2026-13-08 12", &[GroupedDigits, Phone], "month 13 is no date: catches a matcher without ranges"),
    ("12026-11-08", &[GroupedDigits], "a digit before the year: catches no start boundary"),
    ("at 10:30 123 456 789", &[GroupedDigits, Phone], "a time set aside, the rest still reach 9"),
    ("1234 5678 21:41", &[], "the time is set aside: 1234,5678 is 8"),
    ("21:41:26.123 456 789", &[], "fraction of seconds set aside with the time"),
    ("25:41 1234 5678", &[GroupedDigits], "hour 25 is no time, so the colon joins it: 25,41,1234,5678 is 12 grouped digits (before colons joined groups, the 10 after it read as a phone)"),
    (concat!("ccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc12345", " ", "6789dddddddddddddddddddddddddddddddddddddddddddddddddddddddddddd"), &[], "digest digits are not groups: catches grouping across digests"),
    ("[gate: 3 of 3 numerals bound \u{00B7} ledger 0042]", &[], "the gate's own trailer"),
    // --- drive_or_home_path -----------------------------------------------------------
    ("C:\\Users", &[DriveOrHomePath], "backslash drive"),
    ("c:/temp", &[DriveOrHomePath], "lower-case, forward slash drive"),
    ("see D:\\", &[DriveOrHomePath], "drive after a space"),
    ("https://example.com", &[], "URL scheme is no drive: catches no letter boundary"),
    ("ratio 3:/4", &[], "a digit is no drive letter"),
    ("C: drive", &[], "no slash after the colon"),
    ("x\u{200B}C:\\x", &[DriveOrHomePath], "an invisible char is a boundary: catches reading only the removed view"),
    ("~/notes.txt", &[DriveOrHomePath], "tilde home"),
    ("~ /x and ~x", &[], "tilde not directly before a slash"),
    ("%APPDATA%\\x", &[DriveOrHomePath], "env var path"),
    ("%ProgramFiles(x86)%\\x", &[DriveOrHomePath], "env var with parentheses"),
    ("50% of 100%", &[], "percent signs in prose"),
    ("%%\\x", &[], "empty variable name"),
    ("\\\\server\\share", &[DriveOrHomePath], "UNC path"),
    ("\\\\\\x", &[], "UNC with an empty server name"),
    ("/Users/x", &[DriveOrHomePath], "mixed case: catches a case-sensitive match"),
    ("/USERS/x", &[DriveOrHomePath], "upper case"),
    ("/home/x", &[DriveOrHomePath], "home"),
    ("\\home\\x", &[DriveOrHomePath], "backslash home (step past docs/protocol.md#public-texts)"),
    ("/homeless/x", &[], "a longer word: catches a missing trailing slash"),
    ("/users", &[], "no trailing slash"),
    ("https://site.example/home/about", &[DriveOrHomePath], "URL path /home/ trips, as worded"),
    ("\u{FF23}\u{FF1A}\u{FF3C}x", &[DriveOrHomePath], "full-width C:\\ folds"),
    // --- email ------------------------------------------------------------------------
    ("name@7.49.0", &[], "a version, not an address: catches 'any domain'"),
    ("a@b.co", &[Email], "shortest address"),
    ("@handle", &[], "a bare handle: catches '@ is a reason'"),
    ("hi @handle, see you", &[], "a handle in prose"),
    ("me@localhost", &[], "no dot in the domain"),
    ("Write to Jane.Doe+tag@Example.ORG.", &[Email], "trailing dot trimmed, plus in local part"),
    ("a@b.", &[], "a trailing dot is no dot between labels"),
    ("pkg@1.2.3-beta", &[Email], "any letter in the domain trips (decision)"),
    ("a@\u{200B}b.co", &[Email], "zero-width after @ removed"),
    ("\u{FF41}\u{FF20}\u{FF42}\u{FF0E}\u{FF43}\u{FF4F}", &[Email], "full-width address folds"),
    ("user@\u{4F8B}\u{3048}.jp", &[Email], "a Unicode domain"),
    ("owner @example.com", &[Email], "whitespace before @ and none after, a word no sentence puts before a handle: an address (docs/guard.md#named-in-prose)"),
    ("follow @example.com", &[], "the same shape after a word that names a handle"),
    ("owner @alice.bsky.social", &[], "the handle shape needs a listed top-level domain: a Bluesky handle is none"),
    ("owner at example.com", &[Email], "at and a written domain after a word that is no prose word's (decision: privacy over prose)"),
    ("Docs at example.com", &[], "a listed word before at: a site named in prose"),
    ("Slides at example.com and more", &[], "a listed noun, in title case"),
    ("Recipes at example.com", &[Email], "a noun not listed reads as a local part (decision: privacy over prose; --allow-text publishes it)"),
    ("we\u{2019}re at example.com", &[], "a typographic apostrophe's contraction is prose"),
    ("o'brien at example.com", &[Email], "an apostrophe that ends no contraction is a local part's"),
    ("lunch @ noon . then home", &[Email], "a dot spaced on both sides joins labels (decision: privacy over prose)"),
    ("owner        @ example.com", &[Email], "eight spaces still join"),
    ("owner         @ example.com", &[], "nine spaces do not: catches an unbounded gap"),
    ("ab @ cd . e", &[], "a one-letter last label is no top-level domain"),
    ("a @ b . c", &[Email], "spelled out, joined to a@b.c, which the strict rule reads as an address"),
    ("x @ 1 . 23", &[], "a last label of digits is no top-level domain"),
    ("owner at example dot xyz", &[], "a worded address needs a listed top-level domain (decision)"),
    ("owner at example dot", &[], "no label after the last dot"),
    ("aimed at amazon dot com stock", &[Email], "a domain spelled in words after a word and at trips (decision: privacy over prose)"),
    ("one two three four five six seven eight nine", &[GroupedDigits], "counting to nine in digit words trips (decision: privacy over prose)"),
    ("five five five double one two three four", &[], "double and triple are not read (docs/guard.md#digits-in-words): eight digits"),
    ("five five five twelve thirty four fifty six", &[], "tens and teens are not digit words"),
    ("cinco cinco cinco uno dos tres cuatro cinco seis", &[], "digit words of other languages are not read"),
    ("owner at the dot com", &[], "the domain's first label is a determiner"),
    // --- phone ------------------------------------------------------------------------
    ("+1 (555) 010-9999", &[GroupedDigits, Phone], "the protocol's example"),
    ("+12345678", &[Phone], "exactly seven after the first digit"),
    ("+1234567", &[], "six after the first digit: catches counting the first digit"),
    ("+1234567.", &[], "trailing dot not counted (decision)"),
    ("+1 2 3 4 5", &[Phone], "eight chars after the first digit: catches counting digits only"),
    ("+1 2 3 4", &[], "six chars after the first digit"),
    ("+1234567 8", &[Phone], "phone without a grouped or run hit"),
    ("+ 15550109999", &[DigitRun], "a space after + is no phone: catches a loose '+' match"),
    ("score +1 today", &[], "a +1 in prose"),
    ("+1-555-010-9999", &[GroupedDigits, Phone], "dashed phone"),
    ("\u{FF0B}\u{FF11} \u{FF15}\u{FF15}\u{FF15} \u{FF10}\u{FF11}\u{FF10} \u{FF19}\u{FF19}\u{FF19}\u{FF19}", &[GroupedDigits, Phone], "full-width phone"),
    // --- telegram_invite --------------------------------------------------------------
    ("t.me/+abc", &[TelegramInvite], "private invite"),
    ("https://t.me/joinchat/AbCdEf", &[TelegramInvite], "joinchat invite"),
    ("T.ME/+abc", &[TelegramInvite], "upper-case host: catches a case-sensitive host"),
    ("telegram.me/joinchat/x", &[TelegramInvite], "the long host"),
    ("t\u{200B}.me/+abc", &[TelegramInvite], "an invisible char inside the host: catches reading only the spaced view"),
    ("t.me/durov", &[ProfileLink], "a channel or a person: a profile link, withheld as an @name in a ledger value is (issue 48; it was published)"),
    ("t.me/+", &[], "nothing after the mark (decision)"),
    ("at.me/+abc", &[], "another host ending in t.me (decision)"),
    ("t.me/%2Babc", &[TelegramInvite], "URL-encoded plus (step past docs/protocol.md#public-texts)"),
    ("tg://join?invite=abc", &[TelegramInvite], "the app link (step past docs/protocol.md#public-texts)"),
    ("t.me/+15550109999", &[DigitRun, Phone, TelegramInvite], "a phone-number invite trips three"),
    // --- not reasons ------------------------------------------------------------------
    ("", &[], "empty"),
    ("hello world", &[], "whitespace is no reason here"),
    ("@", &[], "a lone @"),
    ("a\tb\nc\u{3000}d", &[], "any whitespace"),
    ("mail a@b.co or call +1 555 010 9999 from C:\\x", &[GroupedDigits, DriveOrHomePath, Email, Phone], "several, sorted"),
];

#[rustfmt::skip]
const LEDGER_ROWS: &[(&str, &[Rule], &str)] = &[
    ("", &[], "empty input must not panic or hit"),
    ("send", &[], "an ordinary kind value is clean"),
    ("a b", &[Whitespace], "plain space"),
    ("a\tb", &[Whitespace], "a tab, not only ' '"),
    ("a\u{00A0}b", &[Whitespace], "NBSP: catches an ASCII-only whitespace test"),
    ("a\u{3000}b", &[Whitespace], "ideographic space"),
    ("a\u{200B}b", &[Whitespace], "zero-width space counted as whitespace (decision)"),
    ("wired_at_boot", &[], "an underscored at read as a word: its spaces were never written, so no whitespace (docs/guard.md#underscored-words)"),
    ("owner_at_example_dot_com", &[Email], "an address in underscored words, in a ledger value"),
    ("a%20at%20b", &[Whitespace], "a decoded space still counts: catches a whitespace rule that skips every decoded view"),
    ("@", &[AtSign], "a bare @ is a shape here (unlike the text guard)"),
    ("x\u{FF20}y", &[AtSign], "full-width @ folds: catches no folding"),
    ("C:\\x", &[DriveOrHomePath], "backslash drive"),
    ("z:/x", &[DriveOrHomePath], "forward slash, lower case drive"),
    ("https://x.example", &[], "URL scheme is not a drive: catches no letter boundary"),
    ("1:/x", &[], "a digit is not a drive letter"),
    ("C:", &[], "no slash after the colon: catches a `X:` only test"),
    ("~/x", &[DriveOrHomePath], "tilde home"),
    ("~5/", &[], "tilde before a digit: no login, no path"),
    ("~x/", &[DriveOrHomePath], "tilde, a login, a slash: a user's home"),
    ("/home/x", &[DriveOrHomePath], "/home/"),
    ("/Users/x", &[DriveOrHomePath], "mixed case: catches a case-sensitive match"),
    ("/USERS/x", &[DriveOrHomePath], "upper case"),
    ("/homeless/x", &[], "prefix of a longer word: catches a missing trailing slash"),
    ("/users", &[], "no trailing slash at the end"),
    ("%USERPROFILE%\\x", &[DriveOrHomePath], "env var path"),
    ("%%\\x", &[], "empty variable name"),
    ("\\\\srv\\share", &[DriveOrHomePath], "UNC server path"),
    ("\\\\\\x", &[], "UNC with empty server name"),
    ("C:\\Users\\x", &[DriveOrHomePath], "both; also the \\Users\\ variant"),
    ("123456789", &[DigitRun], "nine digits"),
    ("12345678", &[], "eight digits: catches an off-by-one"),
    ("-123456789", &[DigitRun], "sign ignored"),
    ("1234\u{200D}56789", &[Whitespace, DigitRun, GroupedDigits], "ZWJ removed before digits (and read as a space: groups)"),
    ("\u{FF11}\u{FF12}\u{FF13}\u{FF14}\u{FF15}\u{FF16}\u{FF17}\u{FF18}\u{FF19}", &[DigitRun], "full-width digits fold"),
    ("\u{0661}\u{0662}\u{0663}\u{0664}\u{0665}\u{0666}\u{0667}\u{0668}\u{0669}", &[DigitRun], "Arabic-Indic digits fold"),
    ("\u{1D7D7}\u{1D7D7}\u{1D7D7}\u{1D7D7}\u{1D7D7}\u{1D7D7}\u{1D7D7}\u{1D7D7}\u{1D7D7}", &[DigitRun], "mathematical digits fold"),
    ("\u{00B9}\u{00B2}\u{00B3}\u{2074}\u{2075}\u{2076}\u{2077}\u{2078}\u{2079}", &[DigitRun], "superscripts are digits since issue 10 (NFKC)"),
    ("ab123456789c2cc7e7e9e251522b627a", &[DigitRun], "no digest exemption here (typed fields skipped by caller)"),
    ("123-456-789", &[GroupedDigits, Phone], "grouped digits are a ledger shape since issue 10: catches the old run-only rule"),
    ("a@b c:\\ ~/ 1234567890", &[Whitespace, AtSign, DriveOrHomePath, DigitRun], "all five, sorted"),
    ("1234567890 1234567890 @ @", &[Whitespace, AtSign, DigitRun, GroupedDigits], "each shape once"),
];

// ---------------------------------------------------------------------------------------
// The tables
// ---------------------------------------------------------------------------------------

/// Every evasion in every context: withheld, and named by its rule (in a ledger line the
/// whitespace and @ rules may fire beside it).
#[test]
fn every_evasion_is_withheld_in_every_context() {
    let mut failures = Vec::new();
    for &(s, rule, catches) in EVASIONS {
        for at in STRING_CONTEXTS {
            let codes = codes_at(s, at);
            if !codes.iter().any(|c| c == rule.code()) {
                failures.push(format!(
                    "{at:?} {s:?}: got {codes:?}, want {} ({catches})",
                    rule.code()
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn every_count_evasion_withholds_its_line() {
    for (line, catches) in count_evasions() {
        assert!(
            matches!(judge(&line), Verdict::Withhold { .. }),
            "{catches}: {line}"
        );
    }
    // And the counts that are ordinary stay published.
    let delivered = format!(
        r#"{{"schema":"darkflobi.gate/entry/v0","seq":9,"prev":"{H}","kind":"delivered","timestamp":"2026-10-24T14:00:00Z","day":"2026-10-24","entry_id":"{H}","ref_seq":8,"status":"ok","sent_sha256":"{H}"}}"#
    );
    assert_eq!(
        judge(&delivered),
        Verdict::Publish,
        "ref_seq naming the line before"
    );
    let big = send_line(r#"{"bound":2,"total":999999999}"#, "");
    assert_eq!(
        judge(&big),
        Verdict::Publish,
        "a nine-digit count is a count"
    );
}

#[test]
fn every_ordinary_string_is_published() {
    let mut failures = Vec::new();
    for &(s, ledger_too, what) in ORDINARY {
        let mut contexts = vec![Where::PublicText, Where::HeaderCertifies];
        if ledger_too {
            contexts.extend([Where::LedgerValue, Where::StoreFile]);
            // Keys of counts objects must be ASCII (a type rule of the registry, not the guard).
            if s.is_ascii() {
                contexts.push(Where::LedgerKey);
            }
        }
        for at in contexts {
            let codes = codes_at(s, at);
            if !codes.is_empty() {
                failures.push(format!("{at:?} {s:?} ({what}): withheld for {codes:?}"));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Both rates, printed (`cargo test --test testsuite guard::rates -- --nocapture`), and both 100%.
#[test]
fn rates() {
    let mut evasion_cases = 0;
    let mut withheld = 0;
    for &(s, _, _) in EVASIONS {
        for at in STRING_CONTEXTS {
            evasion_cases += 1;
            withheld += usize::from(!codes_at(s, at).is_empty());
        }
    }
    for (line, _) in count_evasions() {
        evasion_cases += 1;
        withheld += usize::from(matches!(judge(&line), Verdict::Withhold { .. }));
    }
    let mut ordinary_cases = 0;
    let mut published = 0;
    for &(s, ledger_too, _) in ORDINARY {
        let contexts: &[Where] = match (ledger_too, s.is_ascii()) {
            (false, _) => &[Where::PublicText],
            (true, true) => &STRING_CONTEXTS,
            (true, false) => &[Where::PublicText, Where::LedgerValue, Where::StoreFile],
        };
        for &at in contexts {
            ordinary_cases += 1;
            published += usize::from(codes_at(s, at).is_empty());
        }
    }
    println!(
        "evasions withheld: {withheld}/{evasion_cases} ({:.1}%); ordinary published: {published}/{ordinary_cases} ({:.1}%)",
        100.0 * withheld as f64 / evasion_cases as f64,
        100.0 * published as f64 / ordinary_cases as f64
    );
    assert_eq!(withheld, evasion_cases);
    assert_eq!(published, ordinary_cases);
}

fn sorted_codes(rules: &[Rule]) -> Vec<String> {
    let mut r = rules.to_vec();
    r.sort();
    r.iter().map(|r| r.code().to_string()).collect()
}

fn check_rows(rows: &[(&str, &[Rule], &str)], context: Context) {
    let failures: Vec<String> = rows
        .iter()
        .filter_map(|(s, want, why)| {
            let got: Vec<String> = guard::scan(s, context)
                .iter()
                .map(|f| f.code().to_string())
                .collect();
            (got != sorted_codes(want))
                .then(|| format!("{s:?}: got {got:?}, want {:?} ({why})", sorted_codes(want)))
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} rows failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn text_rows() {
    check_rows(TEXT_ROWS, Context::PublicText);
}

#[test]
fn ledger_rows() {
    check_rows(LEDGER_ROWS, Context::LedgerString);
}

// ---------------------------------------------------------------------------------------
// The property: random identifiers of each class, disguised, are withheld
// ---------------------------------------------------------------------------------------

/// A digit drawn in one of many scripts and styles.
fn styled_digit(d: u32, style: u8) -> String {
    let c = match style % 9 {
        0 => char::from_digit(d, 10),
        1 => char::from_u32(0xFF10 + d),  // full-width
        2 => char::from_u32(0x0660 + d),  // Arabic-Indic
        3 => char::from_u32(0x0966 + d),  // Devanagari
        4 => char::from_u32(0x1D7CE + d), // mathematical bold
        5 => char::from_u32(
            [
                0x2070, 0xB9, 0xB2, 0xB3, 0x2074, 0x2075, 0x2076, 0x2077, 0x2078, 0x2079,
            ][d as usize],
        ), // superscript
        6 => char::from_u32(if d == 0 { 0x24EA } else { 0x245F + d }), // circled
        7 => char::from_u32(if d == 0 { 0x24FF } else { 0x2775 + d }), // dingbat negative circled
        _ => char::from_u32(0x0E50 + d),  // Thai
    };
    c.unwrap().to_string()
}

const INVISIBLES: &[&str] = &[
    "\u{200B}",
    "\u{200C}",
    "\u{200D}",
    "\u{2060}",
    "\u{FEFF}",
    "\u{FE0F}",
    "\u{FE00}",
    "\u{034F}",
    "\u{00AD}",
    "\u{3164}",
    "\u{2800}",
    "\u{115F}",
    "\u{E0041}",
    "\u{180E}",
    "\u{202E}",
];

const DIGIT_SEPARATORS: &[&str] = &[
    " ", "-", ".", "/", "_", ",", "\n", "\r\n", " - ", "\u{2013}", "\u{00A0}", "\u{3000}", "'",
    "(", ") ", "|", ";", "*", "~", "=", "#", "!", "&", "\u{00B7}", "\u{2022}", " -- ", " - - ",
];

#[derive(Debug, Clone)]
enum Class {
    ChatId(Vec<u32>),
    Phone(Vec<u32>, bool),
    Card(Vec<u32>),
    Iban(String),
    Email(String, String, String),
    HomePath(String),
    DrivePath(String),
}

fn luhn_complete(mut digits: Vec<u32>) -> Vec<u32> {
    for check in 0..10 {
        digits.push(check);
        let sum: u32 = digits
            .iter()
            .rev()
            .enumerate()
            .map(|(k, &d)| {
                if k % 2 == 1 {
                    let x = d * 2;
                    if x > 9 { x - 9 } else { x }
                } else {
                    d
                }
            })
            .sum();
        if sum.is_multiple_of(10) {
            return digits;
        }
        digits.pop();
    }
    unreachable!()
}

fn iban_for(bban: &str) -> String {
    // DE + check digits + 18 digits: check = 98 - (BBAN + "DE00" as digits) mod 97.
    let rearranged = format!("{bban}131400");
    let rem = rearranged
        .chars()
        .fold(0u32, |acc, c| (acc * 10 + c.to_digit(10).unwrap()) % 97);
    format!("DE{:02}{bban}", 98 - rem)
}

fn class() -> impl Strategy<Value = Class> {
    let digits = |n: std::ops::RangeInclusive<usize>| prop::collection::vec(0u32..10, n);
    let word = "[a-z]{2,8}";
    prop_oneof![
        digits(9..=13).prop_map(Class::ChatId),
        (digits(10..=12), any::<bool>()).prop_map(|(d, plus)| Class::Phone(d, plus)),
        (prop::sample::select(vec![4u32, 5, 3, 6]), digits(11..=17)).prop_map(|(first, mut d)| {
            d.insert(0, first);
            Class::Card(luhn_complete(d))
        }),
        digits(18..=18).prop_map(|d| Class::Iban(iban_for(
            &d.iter().map(|x| x.to_string()).collect::<String>()
        ))),
        (word, word, "(com|org|net|io|de)").prop_map(|(a, b, c)| Class::Email(a, b, c)),
        word.prop_map(Class::HomePath),
        word.prop_map(Class::DrivePath),
    ]
}

/// The identifier written with random separators, look-alikes and invisible characters.
fn disguise(class: &Class, rolls: &[u8]) -> String {
    let mut roll = rolls.iter().copied().cycle();
    let mut next = move || roll.next().unwrap_or(0);
    let mut out = String::new();
    let invisible = |out: &mut String, next: &mut dyn FnMut() -> u8| {
        if next().is_multiple_of(4) {
            out.push_str(INVISIBLES[next() as usize % INVISIBLES.len()]);
        }
    };
    let look_alike = |c: char, r: u8| -> String {
        let options: &[&str] = match c {
            '@' => &[
                "@", "\u{FF20}", "\u{FE6B}", "%40", "%2540", "&#64;", "&#x40;", "&commat;", "(at)",
                " [at] ", "{at}", "[@]",
            ],
            '.' => &[
                ".", "\u{3002}", "\u{FF0E}", "\u{FF61}", "\u{FE52}", "(dot)", " [dot] ", "[.]",
                "&period;", "&#46;", "%2E",
            ],
            '/' => &["/", "\u{2215}", "\u{FF0F}", "\u{2044}", "%2F"],
            '\\' => &["\\", "\u{FF3C}", "\u{29F5}", "\u{FE68}", "\u{2216}"],
            ':' => &[":", "\u{FF1A}", "\u{2236}", "\u{FE55}", "\u{A789}"],
            'o' => &["o", "\u{03BF}", "\u{043E}", "\u{FF4F}"],
            'e' => &["e", "\u{0435}", "\u{FF45}"],
            'h' => &["h", "\u{04BB}", "\u{FF48}"],
            'm' => &["m", "\u{FF4D}"],
            'u' => &["u", "\u{FF55}"],
            's' => &["s", "\u{0455}", "\u{FF53}"],
            'r' => &["r", "\u{FF52}"],
            'C' => &["C", "\u{0421}", "\u{FF23}", "\u{216D}"],
            'U' => &["U", "\u{FF35}"],
            _ => return c.to_string(),
        };
        options[r as usize % options.len()].to_string()
    };
    let digits_out = |digits: &[u32], out: &mut String, next: &mut dyn FnMut() -> u8| {
        let style = next();
        let mut since_sep = 0;
        for (k, &d) in digits.iter().enumerate() {
            out.push_str(&styled_digit(d, style));
            invisible(out, next);
            since_sep += 1;
            if k + 1 < digits.len() && since_sep >= 2 && next().is_multiple_of(3) {
                out.push_str(DIGIT_SEPARATORS[next() as usize % DIGIT_SEPARATORS.len()]);
                since_sep = 0;
            }
        }
    };
    match class {
        Class::ChatId(d) => digits_out(d, &mut out, &mut next),
        Class::Phone(d, plus) => {
            if *plus {
                out.push(if next() % 2 == 0 { '+' } else { '\u{FF0B}' });
            }
            digits_out(d, &mut out, &mut next)
        }
        Class::Card(d) => digits_out(d, &mut out, &mut next),
        Class::Iban(s) => {
            for (k, c) in s.chars().enumerate() {
                out.push(c);
                invisible(&mut out, &mut next);
                if k % 4 == 3 && next() % 2 == 0 {
                    out.push_str([" ", "-", ".", "_"][next() as usize % 4]);
                }
            }
        }
        Class::Email(local, domain, tld) => {
            for c in format!("{local}@{domain}.{tld}").chars() {
                let r = next();
                out.push_str(&look_alike(c, r));
                invisible(&mut out, &mut next);
            }
        }
        Class::HomePath(name) => {
            let root = ["/home/", "/Users/", "~/", "\\home\\"][next() as usize % 4];
            for c in format!("{root}{name}").chars() {
                let r = next();
                out.push_str(&look_alike(c, r));
                invisible(&mut out, &mut next);
            }
        }
        Class::DrivePath(name) => {
            for c in format!("C:\\{name}").chars() {
                let r = next();
                out.push_str(&look_alike(c, r));
                invisible(&mut out, &mut next);
            }
        }
    }
    out
}

/// Pieces that start spellings, folds and rules, to build hostile strings from.
const PIECES: &[&str] = &[
    "&#",
    "&#x",
    "&",
    ";",
    "%",
    "%4",
    "%40",
    "%E2",
    "(",
    ")",
    "[",
    "]",
    "{at}",
    " AT ",
    " DOT ",
    "at",
    "@",
    ".",
    "/",
    "\\",
    ":",
    "~",
    "+",
    "-",
    "_",
    ",",
    "\n",
    " ",
    "0",
    "9",
    "12345",
    "2026-11-08",
    "21:41",
    "DE89",
    "C:",
    "home",
    "t.me/",
    "\u{200B}",
    "\u{FE0F}",
    "\u{3164}",
    "\u{0301}",
    "\u{2776}",
    "\u{0665}",
    "\u{FF20}",
    "\u{3002}",
    "\u{0421}",
    "\u{FDFA}",
    "\u{1F600}",
    "\u{E0041}",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1024))]

    /// No input makes the guard panic, and it answers the same twice.
    #[test]
    fn any_string_is_scanned_without_panic(
        random in any::<String>(),
        pieces in prop::collection::vec(prop::sample::select(PIECES), 0..24),
    ) {
        for s in [random, pieces.concat()] {
            for context in [Context::LedgerString, Context::PublicText] {
                let first = guard::scan(&s, context);
                prop_assert_eq!(&first, &guard::scan(&s, context));
                prop_assert!(first.windows(2).all(|w| w[0] < w[1]), "{:?}: not sorted", s);
            }
        }
    }

    #[test]
    fn disguised_identifiers_are_withheld(
        class in class(),
        rolls in prop::collection::vec(any::<u8>(), 1..64),
        prefix in prop::sample::select(vec!["", "call ", "my id: ", "x", "see: ", "\n"]),
        suffix in prop::sample::select(vec!["", " now", ".", " thanks", "\n"]),
    ) {
        let s = format!("{prefix}{}{suffix}", disguise(&class, &rolls));
        let text = guard::scan(&s, Context::PublicText);
        prop_assert!(!text.is_empty(), "published as a text: {:?} ({:?})", s, class);
        let ledger = guard::scan(&s, Context::LedgerString);
        prop_assert!(!ledger.is_empty(), "published as a ledger string: {:?} ({:?})", s, class);
    }
}
