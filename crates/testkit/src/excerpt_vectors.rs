//! `vectors/excerpt.json`: the excerpt index's cases both implementations must answer alike
//! (docs/tree.md#excerpts) — a text's words, its shingles' keys, the keys winnowing keeps, the
//! lookup key of an excerpt, where an excerpt's words stand in a text, the files a lookup reads,
//! and every file of an index made from given texts.
//!
//! The answers are `crates/protocol/src/excerpt.rs`'s; `tests/js/excerpt-vectors.test.cjs` holds
//! `assets/verify.js` (`ExhibitVerify.excerpt`) to them and `tests/testsuite/vectors.rs` holds the
//! Rust code to the file. Each case says which wrong implementation it catches.

use std::collections::BTreeMap;

use exhibit_protocol::Digest;
use exhibit_protocol::excerpt::{self, MIN_WORDS};
use exhibit_protocol::tree::{IndexRow, TreeFile};
use serde_json::{Value as J, json};

const TRAILER: &str = "[gate: 2 of 2 numerals bound \u{b7} ledger 0042]";

fn key(k: u64) -> String {
    format!("{k:016x}")
}

/// `n` words `w0 … w<n-1>`, one space between.
fn counted(n: usize) -> String {
    (0..n)
        .map(|i| format!("w{i}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Eight words put after a short case's text, so that its words are in shingles: a wrong word
/// shows in the keys and the lookup key too.
const TAIL: &str = " so the gate let this one out today";

/// A text's case (`text_case`) with [`TAIL`] after it.
fn tailed(name: &str, catches: &str, text: &str) -> J {
    text_case(name, catches, &format!("{text}{TAIL}"))
}

/// A text's case: its words, every shingle's key, the keys kept, and the lookup key.
fn text_case(name: &str, catches: &str, text: &str) -> J {
    let words = excerpt::words(text);
    let keys = excerpt::shingle_keys(&words);
    json!({
        "name": name,
        "catches": catches,
        "text": text,
        "expect": {
            "words": words,
            "keys": keys.iter().map(|&k| key(k)).collect::<Vec<_>>(),
            "kept": excerpt::winnowed(&keys).into_iter().map(key).collect::<Vec<_>>(),
            "places": excerpt::kept_places(&keys),
            "rows": excerpt::rows_of_text(9, text).iter().map(|r| json!({"key": key(r.prefix), "ctx": format!("{:08x}", r.ctx)})).collect::<Vec<_>>(),
            "lookup": excerpt::lookup_key(text).map(key),
            "lookup_ctx": excerpt::lookup(text).map(|l| json!({
                "before": l.before.map(|b| format!("{b:04x}")),
                "after": l.after.map(|a| format!("{a:04x}")),
            })),
        }
    })
}

fn text_cases() -> Vec<J> {
    let sixty: String = (0..60)
        .map(|i| format!("word{} ", (i * 7) % 23))
        .collect::<String>();
    let repeated = "one two three four five six seven eight ".repeat(4);
    let spaces = [
        ("tab", '\t'),
        ("vt", '\u{b}'),
        ("ff", '\u{c}'),
        ("cr", '\r'),
        ("nbsp", '\u{a0}'),
        ("ogham", '\u{1680}'),
        ("en-quad", '\u{2000}'),
        ("hair", '\u{200a}'),
        ("line-separator", '\u{2028}'),
        ("paragraph-separator", '\u{2029}'),
        ("narrow-nbsp", '\u{202f}'),
        ("math-space", '\u{205f}'),
        ("ideographic", '\u{3000}'),
        ("bom", '\u{feff}'),
    ];
    let not_spaces = [
        ("nel", '\u{85}'),
        ("mongolian-vowel-separator", '\u{180e}'),
        ("zero-width-space", '\u{200b}'),
        ("zero-width-joiner", '\u{200d}'),
        ("word-joiner", '\u{2060}'),
    ];
    let mut out = vec![
        text_case("empty", "a tokenizer that yields one empty word", ""),
        text_case(
            "whitespace-only",
            "a split that keeps the empty ends",
            " \t\n\u{a0}\u{3000} ",
        ),
        tailed(
            "nfc",
            "no NFC (a decomposed é stays two code points, its key differs)",
            "cafe\u{301} na\u{308}ive A\u{30a}ngstro\u{308}m \u{212b} e\u{301}\u{301} x",
        ),
        tailed(
            "nfc-already",
            "NFD or NFKC instead of NFC (ﬁ and ² kept)",
            "caf\u{e9} \u{fb01}ne x\u{b2} \u{212b}",
        ),
        tailed(
            "crlf",
            "CRLF not made LF before the trailer is found (a trailer never spans a newline)",
            "line one\r\nline two\r\n\r\n[gate: 1 of 1 numerals bound \u{b7} ledger 7]\r\n",
        ),
        tailed(
            "crlf-inside-trailer",
            "a trailer found before CRLF is made LF (its CR is no newline)",
            "x [gate: 1 of 1\r\n\u{b7} ledger 7] y",
        ),
        tailed(
            "lone-cr-inside-trailer",
            "a lone CR taken as a newline in a trailer",
            "x [gate: 1 of 1\r\u{b7} ledger 7] y",
        ),
        tailed(
            "lone-cr",
            "a lone CR dropped instead of split on",
            "a\rb\r\rc",
        ),
        text_case(
            "trailer-final",
            "the trailer kept as words",
            &format!("The body of it.\n\n{TRAILER}"),
        ),
        tailed(
            "trailer-middle",
            "only a final trailer removed",
            &format!("before {TRAILER} after and {TRAILER}{TRAILER}x"),
        ),
        tailed(
            "trailer-glued",
            "the trailer's space left out (words glued)",
            &format!("a{TRAILER}b"),
        ),
        tailed(
            "near-trailer-newline",
            "a trailer matched across a newline",
            "[gate: 2 of 2\n\u{b7} ledger 0042] tail",
        ),
        tailed(
            "near-trailer-no-digits",
            "a trailer without its digits removed",
            "[gate: 2 of 2 numerals bound \u{b7} ledger ] tail",
        ),
        tailed(
            "near-trailer-letter",
            "digits then a letter taken as a trailer",
            "[gate: 2 of 2 \u{b7} ledger 12a] tail",
        ),
        tailed(
            "near-trailer-no-dot",
            "`ledger N` without the middle dot taken as a trailer",
            "[gate: 2 of 2 numerals bound ledger 0042] tail",
        ),
        tailed(
            "near-trailer-case",
            "a case-blind trailer (the page's loose one)",
            "[Gate: 2 of 2 numerals bound \u{b7} ledger 0042] [gate:2 \u{b7} ledger 1] tail",
        ),
        tailed(
            "near-trailer-unclosed",
            "a trailer that runs to the end of the text",
            "[gate: 2 of 2 numerals bound \u{b7} ledger 0042 tail",
        ),
        tailed(
            "trailer-nested-open",
            "a greedy match from the first `[gate: `",
            "a[gate: [gate: q \u{b7} ledger 7]b [gate: x] y \u{b7} ledger 9] z",
        ),
        tailed(
            "trailer-inner-bracket",
            "a trailer matched past a `]`",
            "[gate: a ] b \u{b7} ledger 3] c",
        ),
        tailed(
            "markdown",
            "markdown marks kept, or other punctuation deleted",
            "**Bold** `code` # head > quote [link](url) ~strike~ {x} <y> !z! a*b c>d e#f",
        ),
        tailed(
            "underscore-edges",
            "`_` deleted everywhere, or not trimmed",
            "_em_ __strong__ sent_sha256 _ ___ a_ _b snake_case_ _x_y_",
        ),
        tailed(
            "underscore-around-marks",
            "`_` trimmed before the marks are deleted",
            "_*a*_ *_b_* `_c_` (_d_)",
        ),
        tailed(
            "case-and-punctuation",
            "words folded (lower case, punctuation dropped)",
            "Hello, World. HELLO world! it\u{2019}s \u{2014} \"quoted\"",
        ),
        tailed(
            "astral",
            "keys of the UTF-16 code units instead of UTF-8 bytes",
            "\u{1f600} \u{1d400}bc \u{10ffff} \u{1f1eb}\u{1f1f7} x y z w",
        ),
        text_case(
            "seven-words",
            "a shingle of fewer than 8 words",
            &counted(7),
        ),
        text_case("eight-words", "no shingle for exactly 8 words", &counted(8)),
        text_case("nine-words", "shingles off by one at the end", &counted(9)),
        text_case("eleven-words", "a lookup under 12 words", &counted(11)),
        text_case(
            "twelve-words",
            "5 shingles (one window) not kept as one window",
            &counted(12),
        ),
        text_case("thirteen-words", "6 shingles: two windows", &counted(13)),
        text_case(
            "sixty-words",
            "windows of another width, or rows not sorted",
            &sixty,
        ),
        text_case("repeated-phrase", "a key kept twice (no dedup)", &repeated),
        tailed(
            "spaces-between-shingle-words",
            "a shingle joined by the text's own spacing",
            "a  b\tc\nd\u{a0}e\u{3000}f  g   h i",
        ),
    ];
    for (name, c) in spaces {
        out.push(tailed(
            &format!("space-{name}"),
            "a space JavaScript's \\s has, not split on",
            &format!("a{c}b{c}{c}c"),
        ));
    }
    for (name, c) in not_spaces {
        out.push(tailed(
            &format!("not-space-{name}"),
            "a character JavaScript's \\s has not, split on",
            &format!("a{c}b {c} c"),
        ));
    }
    out
}

/// Winnowing over given keys (not from words), to pin ties, order and the short rule.
fn winnow_cases() -> Vec<J> {
    let lists: Vec<(&str, &str, Vec<u64>)> = vec![
        ("none", "a least key of nothing", vec![]),
        ("one", "no row for a text of one shingle", vec![7]),
        (
            "three",
            "the short rule (all of them when 5 or fewer)",
            vec![9, 4, 7],
        ),
        ("five", "five taken as two windows", vec![5, 3, 8, 1, 9]),
        ("six", "six taken as one window", vec![5, 3, 8, 1, 9, 2]),
        (
            "ten",
            "windows of another width",
            vec![5, 1, 6, 6, 2, 8, 9, 3, 7, 4],
        ),
        ("ties", "ties kept twice", vec![3, 3, 3, 3, 3, 3, 3]),
        (
            "descending",
            "a window's first or last key instead of its least",
            vec![9, 8, 7, 6, 5, 4, 3, 2, 1],
        ),
        (
            "high-bit",
            "keys compared as signed numbers, or as 53-bit floats",
            vec![
                u64::MAX,
                0x8000_0000_0000_0000,
                0x7fff_ffff_ffff_ffff,
                0x0020_0000_0000_0001,
                0x0020_0000_0000_0000,
                0xffff_ffff_ffff_fffe,
            ],
        ),
    ];
    lists
        .into_iter()
        .map(|(name, catches, keys)| {
            json!({
                "name": name, "catches": catches,
                "keys": keys.iter().map(|&k| key(k)).collect::<Vec<_>>(),
                "expect": excerpt::winnowed(&keys).into_iter().map(key).collect::<Vec<_>>(),
                "places": excerpt::kept_places(&keys),
            })
        })
        .collect()
}

fn place_cases() -> Vec<J> {
    let cases: Vec<(&str, &str, String, String)> = vec![
        (
            "repeated-words",
            "the last place, or a place found by restarting after a partial match",
            "a a a b a a b".into(),
            "a a b".into(),
        ),
        (
            "overlap",
            "a search that skips past a partial match",
            "x y x y x z".into(),
            "x y x z".into(),
        ),
        ("at-start", "a place from 1", counted(20), counted(3)),
        (
            "at-end",
            "the last window left out",
            counted(20),
            "w17 w18 w19".into(),
        ),
        (
            "whole",
            "a text not a run of itself",
            counted(12),
            counted(12),
        ),
        (
            "longer",
            "an excerpt longer than the text found",
            counted(5),
            counted(6),
        ),
        (
            "empty-excerpt",
            "an empty excerpt found at 0",
            counted(5),
            "  ".into(),
        ),
        (
            "normalised",
            "the excerpt compared as bytes, not as words",
            "The *quick* brown fox, jumps".into(),
            "The  quick\nbrown fox,".into(),
        ),
        (
            "not-folded",
            "words folded before comparing",
            "The quick brown fox".into(),
            "the quick brown fox".into(),
        ),
        (
            "shuffled",
            "words compared as a set",
            counted(14),
            "w1 w0 w2".into(),
        ),
        (
            "gap",
            "a run with a word between found",
            counted(14),
            "w1 w3 w4".into(),
        ),
        (
            "trailer-in-excerpt",
            "the excerpt's trailer kept as words",
            format!("{} end", counted(8)),
            format!("w6 w7 {TRAILER} end"),
        ),
    ];
    cases
        .into_iter()
        .map(|(name, catches, text, ex)| {
            json!({"name": name, "catches": catches, "text": text, "excerpt": ex, "expect": excerpt::place_in(&text, &ex)})
        })
        .collect()
}

fn lookup_cases() -> Vec<J> {
    let keys = [0u64, 0xab00_0000_0000_0000, 0x0123_4567_89ab_cdef, u64::MAX];
    [0u64, 5, 1024, 1025, 2050, 16 * 1024, 16 * 1024 + 1, 300_000, 1_000_000]
        .iter()
        .enumerate()
        .map(|(i, &size)| {
            let k = keys[i % keys.len()];
            json!({
                "size": size, "key": key(k),
                "expect": excerpt::excerpt_lookup(size, k).iter().map(TreeFile::path).collect::<Vec<_>>(),
            })
        })
        .collect()
}

/// The released text filed at seq `s` of the files cases (none for most seqs).
fn filed_text(s: u64) -> Option<String> {
    if s % 5 != 2 {
        return None;
    }
    let n = (s % 17) as usize + 4;
    let mut words: Vec<String> = (0..n)
        .map(|i| format!("t{}", (s * 31 + i as u64 * 7) % 50))
        .collect();
    // A shared passage, so that keys repeat between texts.
    if s.is_multiple_of(3) {
        words.extend(counted(MIN_WORDS).split(' ').map(str::to_string));
    }
    Some(words.join(" "))
}

fn file_cases() -> Vec<J> {
    [0u64, 7, 1023, 1024, 1030, 2100, 16 * 1024 + 3]
        .iter()
        .map(|&size| {
            let rows: Vec<IndexRow> = (1..=size)
                .filter_map(|s| filed_text(s).map(|t| excerpt::rows_of_text(s, &t)))
                .flatten()
                .collect();
            let pairs: Vec<(u64, Digest)> = (1..=size)
                .filter_map(|s| filed_text(s).map(|t| (s, Digest::of(t.as_bytes()))))
                .collect();
            let mut files = BTreeMap::new();
            excerpt::excerpt_files(size, &rows, &pairs, |f, b| {
                files.insert(f.path(), json!({"len": b.len(), "sha256": Digest::of(&b).to_string()}));
            });
            json!({"name": format!("files-{size}"), "size": size, "rows": rows.len(), "expect": files})
        })
        .collect()
}

/// The text map (docs/tree.md#text-map): which file names a seq's text at a size, and what a
/// file's bytes name for a seq (an error for bytes that are not whole entries in rising order).
fn text_map_cases() -> J {
    let files: Vec<J> = [
        (0u64, 1u64),
        (5, 5),
        (5, 6),
        (1024, 1024),
        (1025, 1024),
        (1025, 1025),
        (2050, 2049),
        (300_000, 299_999),
        (7, 0),
    ]
    .iter()
    .map(|&(size, seq)| {
        json!({"size": size, "seq": seq,
            "expect": excerpt::text_map_file(size, seq).map(|f| f.path())})
    })
    .collect();
    let entry = |seq: u64, b: u8| {
        let mut v = seq.to_be_bytes().to_vec();
        v.extend_from_slice(&[b; 32]);
        v
    };
    let two = [entry(3, 0xaa), entry(1000, 0xbb)].concat();
    let reads: Vec<J> = [
        (Vec::new(), 3u64),
        (two.clone(), 3),
        (two.clone(), 1000),
        (two.clone(), 4),
        (two[..79].to_vec(), 3),
        ([entry(1000, 0xbb), entry(3, 0xaa)].concat(), 3),
        ([entry(3, 0xaa), entry(3, 0xbb)].concat(), 3),
        (entry(0, 0xaa), 0),
        ([entry(1 << 40, 0xcc)].concat(), 1 << 40),
    ]
    .iter()
    .map(|(bytes, seq)| {
        let expect = match excerpt::text_map_digest(bytes, *seq) {
            Ok(d) => json!({"digest": d.map(|d| d.to_string())}),
            Err(_) => json!({"error": true}),
        };
        json!({"hex": hex(bytes), "seq": seq, "expect": expect})
    })
    .collect();
    json!({"files": files, "reads": reads})
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The whole file, pretty JSON with a final LF.
pub fn document() -> Vec<u8> {
    let doc = json!({
        "format": "exhibit-excerpt-vectors/v1",
        "about": "docs/tree.md#excerpts. Keys are 16 lowercase hex digits (a shingle's sha256, first 8 bytes). `texts`: a text's words, the key of each shingle in order, the keys winnowing keeps (sorted, each once), the places it keeps (every place of each window's least key, ties included), the rows of the text filed at seq 9 (key and contexts as 8 hex: the 2 words before the kept place, then the 2 after, each the first 2 bytes of sha256 of the two words joined by a space, 0000 where there are fewer), its lookup key (null under 12 words) and the lookup's contexts (null where the excerpt has not the 2 words). `winnow`: the keys kept of given keys, and the places kept. `places`: the first word's place of the excerpt's words as a run of the text's (null when none). `lookups`: the files a lookup of a key reads at a size. `files`: every file of the index at a size, with its length and sha256, from the texts `rules` files (the text map's pairs: each such seq with the sha256 of its text's UTF-8 bytes). `text_map`: `files`, the text map file that names a seq at a size (null outside 1..size); `reads`, what a text map file's bytes (hex) name for a seq: a digest, null, or an error for bytes that are not whole 40-byte entries in rising seq order.",
        "rules": {
            "filed_text": "for seq s with s % 5 == 2: the words `t<(s*31 + 7i) % 50>` for i in 0..(s % 17) + 4, then, when s % 3 == 0, the words w0 … w11; joined by one space. No text for any other seq.",
        },
        "texts": text_cases(),
        "winnow": winnow_cases(),
        "places": place_cases(),
        "lookups": lookup_cases(),
        "files": file_cases(),
        "text_map": text_map_cases(),
    });
    let mut bytes = serde_json::to_vec_pretty(&doc).unwrap_or_default();
    bytes.push(b'\n');
    bytes
}
