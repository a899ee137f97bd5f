//! The page (issues 6 and 11) in a real browser: headless Chromium loads the built `index.html`
//! from file:// and runs it in real time; `tests/js/browser.cjs` drives it over the DevTools
//! protocol, waits until the page posts its final verdict (and a `#paste=` link's answer), and
//! prints the DOM and layout facts as JSON. The page has no behaviour keyed on the user agent:
//! these tests wait, they do not switch anything. Needs `chromium` and `node` on PATH, and
//! axe-core (scripts/test.sh installs it); without them these tests fail, they do not skip.
//!
//! The paste box is driven through the page's own shareable-link feature, `#paste=<text>`.

use std::path::{Path, PathBuf};
use std::process::Command;

use exhibit_protocol::Digest;
use exhibit_testkit::gen_box::{self, BoxOptions};
use serde_json::{Map, Value as J};

#[derive(Default, Clone)]
struct Look {
    fragment: String,
    width: Option<u32>,
    height: Option<u32>,
    dark: bool,
    axe: bool,
    inject_script: bool,
    tab_stops: bool,
    eval: Option<String>,
    screenshot: Option<PathBuf>,
}

/// The page after it settled, as `tests/js/browser.cjs` reports it.
fn probe(page: &Path, look: &Look) -> J {
    let driver = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/js/browser.cjs");
    let mut cmd = Command::new("node");
    cmd.arg(&driver).arg(page);
    if !look.fragment.is_empty() {
        cmd.args(["--fragment", &look.fragment]);
    }
    if let Some(w) = look.width {
        cmd.args(["--width", &w.to_string()]);
    }
    if let Some(h) = look.height {
        cmd.args(["--height", &h.to_string()]);
    }
    if look.dark {
        cmd.arg("--dark");
    }
    if look.axe {
        cmd.arg("--axe").arg(axe_core());
    }
    if look.inject_script {
        cmd.arg("--inject-script");
    }
    if look.tab_stops {
        cmd.arg("--tab-stops");
    }
    if let Some(e) = &look.eval {
        cmd.args(["--eval", e]);
    }
    if let Some(p) = &look.screenshot {
        cmd.arg("--screenshot").arg(p);
    }
    let stdout = crate::common::node_stdout(cmd, "tests/js/browser.cjs");
    serde_json::from_slice(&stdout).expect("the driver prints JSON")
}

fn dump_dom(page: &Path, fragment: &str) -> String {
    let facts = probe(
        page,
        &Look {
            fragment: fragment.to_string(),
            ..Look::default()
        },
    );
    facts["dom"].as_str().unwrap().to_string()
}

/// axe-core's browser bundle: `EXHIBIT_AXE` or where scripts/test.sh installs it.
pub(crate) fn axe_core() -> PathBuf {
    let p = std::env::var_os("EXHIBIT_AXE")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            let cache = std::env::var_os("XDG_CACHE_HOME")
                .map(PathBuf::from)
                .unwrap_or_else(|| {
                    PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".cache")
                });
            cache.join("exhibit-axe/node_modules/axe-core/axe.min.js")
        });
    assert!(
        p.exists(),
        "axe-core is not at {}: run scripts/test.sh (it installs it with npm) or set EXHIBIT_AXE",
        p.display()
    );
    p
}

/// The opening tag of the element with this id, and one attribute of it.
fn tag_of<'a>(dom: &'a str, id: &str) -> &'a str {
    let at = dom
        .find(&format!("id=\"{id}\""))
        .unwrap_or_else(|| panic!("no #{id} in the DOM"));
    let start = dom[..at].rfind('<').unwrap();
    let end = at + dom[at..].find('>').unwrap();
    &dom[start..=end]
}
fn attr(tag: &str, name: &str) -> Option<String> {
    let key = format!(" {name}=\"");
    let at = tag.find(&key)? + key.len();
    Some(tag[at..at + tag[at..].find('"')?].to_string())
}

fn exhibit(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_exhibit"))
        .current_dir(dir)
        .args(args)
        .output()
        .expect("run exhibit")
}

struct Site {
    _tmp: tempfile::TempDir,
    box_dir: PathBuf,
    site: PathBuf,
}

fn make_box(lines: u64) -> Site {
    let tmp = tempfile::tempdir().unwrap();
    let box_dir = tmp.path().join("box");
    let opts = BoxOptions {
        lines,
        seed: 7,
        witness: false,
        ..BoxOptions::default()
    };
    gen_box::generate(&opts, &box_dir).expect("generate a box");
    let site = box_dir.join("site");
    Site {
        _tmp: tmp,
        box_dir,
        site,
    }
}

fn build(s: &Site, extra: &[&str]) -> std::process::Output {
    let mut args = vec!["build", "--out", "site"];
    args.extend_from_slice(extra);
    exhibit(&s.box_dir, &args)
}

fn verify_head(site: &Path) -> String {
    let out = exhibit(site, &["verify", "--json", site.to_str().unwrap()]);
    let v: J = serde_json::from_slice(&out.stdout).expect("verify --json");
    assert_eq!(v["ok"], true, "exhibit verify: {v}");
    v["head"].as_str().unwrap().to_string()
}

fn b64_decode(s: &str) -> Vec<u8> {
    let val = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        b'/' => 63,
        _ => panic!("not base64: {c}"),
    };
    let bytes: Vec<u8> = s
        .bytes()
        .filter(|&c| c != b'=' && !c.is_ascii_whitespace())
        .collect();
    let mut out = Vec::new();
    for chunk in bytes.chunks(4) {
        let mut n = 0u32;
        for (i, &c) in chunk.iter().enumerate() {
            n |= u32::from(val(c)) << (18 - 6 * i);
        }
        for i in 0..chunk.len() - 1 {
            out.push((n >> (16 - 8 * i)) as u8);
        }
    }
    out
}

/// The (start, end) of a data block's base64 text in the page.
fn block_span(html: &str, id: &str) -> (usize, usize) {
    let at = html
        .find(&format!("id={id} "))
        .or_else(|| html.find(&format!("id={id}>")))
        .or_else(|| html.find(&format!("id=\"{id}\"")))
        .unwrap_or_else(|| panic!("no block {id}"));
    let start = at + html[at..].find('>').unwrap() + 1;
    let end = start + html[start..].find("</script>").unwrap();
    (start, end)
}

fn percent_encode(s: &str) -> String {
    s.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

/// A released text: from the layer when `--public-texts` builds, otherwise re-derived here from the
/// box's sources by the recipe of docs/protocol.md#public-texts and embedded as the `public-texts-json` block the layer writes.
fn released_text(s: &Site) -> (String, u64, String) {
    let pt = s.site.join("ledger/public_texts/index.json");
    let ledger = std::fs::read_to_string(s.site.join("ledger/ledger.jsonl")).unwrap();
    let lines: Vec<J> = ledger
        .lines()
        .skip(1)
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let good = |b: &[u8]| {
        std::str::from_utf8(b)
            .ok()
            .filter(|t| t.split_whitespace().count() >= 8)
            .map(str::to_string)
    };
    if pt.exists() {
        let ix: J = serde_json::from_slice(&std::fs::read(&pt).unwrap()).unwrap();
        for p in ix["published"].as_array().unwrap() {
            let sha = p["sent_sha256"].as_str().unwrap();
            let bytes =
                std::fs::read(s.site.join(format!("ledger/public_texts/{sha}.txt"))).unwrap();
            if let Some(t) = good(&bytes) {
                return (t, p["seq"].as_u64().unwrap(), sha.to_string());
            }
        }
        panic!("no released text of eight words in the demo box");
    }
    let sources = s.box_dir.join("gate/sources");
    let mut found = None;
    'lines: for o in &lines {
        if o["kind"] != "send" || o["dest_class"] != "public" || o["action"] != "send" {
            continue;
        }
        let Some(sent) = o["sent_sha256"].as_str() else {
            continue;
        };
        let seq = o["seq"].as_u64().unwrap();
        let n = &o["numerals"];
        let trailer = gen_box::trailer(
            n["bound"].as_u64().unwrap_or(0),
            n["total"].as_u64().unwrap_or(0),
            seq,
        );
        for d in ["checked_sha256", "draft_sha256"] {
            let Some(h) = o[d].as_str() else { continue };
            for name in [format!("{h}.md"), format!("{h}.draft.md")] {
                let Ok(bytes) = std::fs::read(sources.join(&name)) else {
                    continue;
                };
                for form in [bytes.clone(), gen_box::with_trailer(&bytes, &trailer)] {
                    if Digest::of(&form).to_string() == sent
                        && let Some(t) = good(&form)
                    {
                        found = Some((
                            t,
                            seq,
                            sent.to_string(),
                            o["day"].as_str().unwrap().to_string(),
                        ));
                        break 'lines;
                    }
                }
            }
        }
    }
    let (text, seq, sha, day) =
        found.expect("a public send whose text re-derives from the box's sources");
    let block = serde_json::json!({
        "index": {"published": [{"sent_sha256": sha, "seq": seq, "day": day, "form": "test", "source": "test"}]},
        "texts": {sha.clone(): exhibit::published::encode::base64(text.as_bytes())},
    });
    let page = s.site.join("index.html");
    let html = std::fs::read_to_string(&page).unwrap();
    let at = html
        .find("<script id=verify-src>")
        .or_else(|| html.find("<script id=\"verify-src\">"))
        .expect("verify-src");
    let tag = format!(
        "<script type=application/octet-stream id=public-texts-json>{}</script>",
        exhibit::published::encode::base64(&serde_json::to_vec(&block).unwrap())
    );
    std::fs::write(&page, format!("{}{}{}", &html[..at], tag, &html[at..])).unwrap();
    (text, seq, sha)
}

fn demo() -> Site {
    let s = make_box(400);
    let with_texts = build(&s, &["--public-texts"]);
    if !with_texts.status.success() {
        let plain = build(&s, &[]);
        assert!(
            plain.status.success(),
            "exhibit build: {}",
            String::from_utf8_lossy(&plain.stderr)
        );
    }
    s
}

#[test]
fn the_page_re_derives_the_same_head_as_exhibit_verify() {
    let s = demo();
    let head = verify_head(&s.site);
    let dom = dump_dom(&s.site.join("index.html"), "");
    let v = tag_of(&dom, "verdict");
    assert_eq!(attr(v, "data-state").as_deref(), Some("re-derives"), "{v}");
    assert_eq!(attr(v, "data-head"), Some(head.clone()));
    assert!(attr(v, "data-ms").is_some(), "{v}");
    // The demo withholds lines and its last lines await a head: gaps, vouched for as the
    // publisher (the Rust side) counts it.
    let stats = stats_of(&s.site);
    let pinned = stats["coverage"]["pinned"]["count"].as_u64().unwrap();
    let published = stats["lines"]["published"]["count"].as_u64().unwrap();
    assert!(pinned < published, "the demo has lines no head vouches for");
    assert_eq!(attr(v, "data-verdict").as_deref(), Some("gaps"), "{v}");
    assert_eq!(
        attr(v, "data-vouched"),
        Some(format!("{pinned}/{published}")),
        "{v}"
    );
    assert!(
        dom.contains("not vouched for by a posted head"),
        "the gaps are said in words"
    );
    // what a person reads: no raw JSON, no "undefined", no link to a folder (GitHub Pages
    // answers 404 for one)
    let mut shown = String::new();
    let mut rest = dom.as_str();
    while let Some(at) = rest.find("<script") {
        shown.push_str(&rest[..at]);
        rest = &rest[at + rest[at..].find("</script>").unwrap() + 9..];
    }
    shown.push_str(rest);
    for raw in ["undefined", "{&quot;", "{\"", "null", "[object", "NaN"] {
        assert!(!shown.contains(raw), "the page shows {raw}");
    }
    assert!(!shown.contains("/\">"), "a link to a folder");
    let certifies = tag_of(&dom, "certifies");
    assert_eq!(attr(certifies, "data-confirmed").as_deref(), Some("1"));
    assert!(
        dom.contains(&format!(">{}</blockquote>", gen_box::HEADER_CERTIFIES)),
        "the header's certifies sentence, verbatim"
    );
    assert!(dom.contains("id=\"lines-body\""));
    assert!(dom.contains("data-seq=\"1\""), "the lines table is filled");
    assert!(dom.contains("data-date="), "the anchors table is filled");
    // An embedded page reads no file beside it: its detail says so (docs/page.md "The
    // snapshot's digests").
    assert!(
        dom.contains(
            "id=\"snapshot-check\">The files beside this page (ledger/, its tree/ included): not checked here."
        ),
        "the files beside the page are said not checked"
    );
    // The checkpoint it carries is held to the chain it re-derived (docs/tree.md#checkpoint).
    let checkpoint = tag_of(&dom, "checkpoint");
    assert_eq!(
        attr(checkpoint, "data-state").as_deref(),
        Some("holds"),
        "{checkpoint}"
    );
}

#[test]
fn one_changed_ledger_byte_shows_problems_and_the_line() {
    let s = demo();
    let page = s.site.join("index.html");
    let html = std::fs::read_to_string(&page).unwrap();
    let (a, b) = block_span(&html, "ledger-bytes");
    let mut bytes = b64_decode(&html[a..b]);
    // line 50 of the file: its timestamp's last digit changes
    let mut starts = vec![0usize];
    starts.extend(
        bytes
            .iter()
            .enumerate()
            .filter(|&(_, &c)| c == b'\n')
            .map(|(i, _)| i + 1),
    );
    let (ls, le) = (starts[49], starts[50]);
    let key = b"\"timestamp\":\"";
    let at = ls
        + bytes[ls..le]
            .windows(key.len())
            .position(|w| w == key)
            .unwrap()
        + key.len()
        + 18;
    bytes[at] = if bytes[at] == b'0' { b'1' } else { b'0' };
    let tampered = s.site.join("tampered.html");
    std::fs::write(
        &tampered,
        format!(
            "{}{}{}",
            &html[..a],
            exhibit::published::encode::base64(&bytes),
            &html[b..]
        ),
    )
    .unwrap();
    let dom = dump_dom(&tampered, "");
    let v = tag_of(&dom, "verdict");
    assert_eq!(attr(v, "data-state").as_deref(), Some("problems"), "{v}");
    assert_eq!(attr(v, "data-verdict").as_deref(), Some("failed"), "{v}");
    assert_eq!(attr(v, "data-head").as_deref(), Some(""));
    assert!(
        dom.contains("data-line=\"50\""),
        "the failing line is named"
    );
    assert!(dom.contains("line 50 (seq "), "in words too");
}

#[test]
fn a_pasted_released_text_matches_and_a_changed_word_is_nearest() {
    let s = demo();
    let (text, seq, sha) = released_text(&s);
    let page = s.site.join("index.html");

    let dom = dump_dom(&page, &format!("#paste={}", percent_encode(&text)));
    let r = tag_of(&dom, "paste-result");
    assert_eq!(attr(r, "data-match").as_deref(), Some("hash"), "{r}");
    assert_eq!(attr(r, "data-seq"), Some(seq.to_string()));
    assert!(dom.contains(&sha), "the digest is printed");

    // the same by digest
    let dom = dump_dom(&page, &format!("#paste={sha}"));
    assert_eq!(
        attr(tag_of(&dom, "paste-result"), "data-seq"),
        Some(seq.to_string())
    );

    // one word changed
    let words: Vec<&str> = text.split(' ').collect();
    let i = words
        .iter()
        .position(|w| w.len() >= 4 && w.chars().all(char::is_alphabetic))
        .expect("a plain word");
    let changed = text.replacen(words[i], "zebraquartz", 1);
    let dom = dump_dom(&page, &format!("#paste={}", percent_encode(&changed)));
    let r = tag_of(&dom, "paste-result");
    assert_eq!(attr(r, "data-match").as_deref(), Some("nearest"), "{r}");
    assert_eq!(attr(r, "data-seq"), Some(seq.to_string()));
    assert!(
        dom.contains("<ins>zebraquartz</ins>"),
        "the new word is marked in the diff"
    );
    assert!(dom.contains("NOT a hash match"));
    assert_eq!(
        attr(r, "data-verdict"),
        None,
        "a changed word is not the same words"
    );

    // The same words in other case and spacing: its own verdict, not a hash.
    assert_ne!(
        text.to_lowercase(),
        text,
        "the released text has a capital to fold"
    );
    let same: String = text
        .to_lowercase()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join("   ");
    let dom = dump_dom(&page, &format!("#paste={}", percent_encode(&same)));
    let r = tag_of(&dom, "paste-result");
    assert_eq!(attr(r, "data-match").as_deref(), Some("nearest"), "{r}");
    assert_eq!(
        attr(r, "data-verdict").as_deref(),
        Some("same-words"),
        "{r}"
    );
    assert_eq!(attr(r, "data-seq"), Some(seq.to_string()));
    assert!(dom.contains("Same words, different bytes"));

    // unrelated words
    let dom = dump_dom(&page, "#paste=nothing%20like%20any%20message%20here");
    assert_eq!(
        attr(tag_of(&dom, "paste-result"), "data-match").as_deref(),
        Some("none")
    );
}

#[test]
fn ledger_strings_render_as_text_never_markup() {
    let s = make_box(60);
    let ledger_path = s.box_dir.join("gate/ledger.jsonl");
    let mut ledger = std::fs::read_to_string(&ledger_path).unwrap();
    let last: Map<String, J> = serde_json::from_str(ledger.lines().last().unwrap()).unwrap();
    let mut prev = last["entry_id"].as_str().unwrap().to_string();
    let mut seq = last["seq"].as_u64().unwrap();
    for detail in [
        "</script><script>alert(1)</script>",
        "<img/src=x/onerror=alert(1)>",
    ] {
        seq += 1;
        let mut core = Map::new();
        core.insert("day".into(), last["day"].clone());
        core.insert("detail".into(), J::from(detail));
        core.insert("kind".into(), J::from("gate_wired"));
        core.insert("prev".into(), J::from(prev.clone()));
        core.insert("schema".into(), J::from("darkflobi.gate/entry/v0"));
        core.insert("seq".into(), J::from(seq));
        core.insert("timestamp".into(), last["timestamp"].clone());
        let id = Digest::of(serde_json::to_string(&core).unwrap().as_bytes()).to_string();
        core.insert("entry_id".into(), J::from(id.clone()));
        ledger.push_str(&serde_json::to_string(&core).unwrap());
        ledger.push('\n');
        prev = id;
    }
    std::fs::write(&ledger_path, ledger).unwrap();
    let out = build(&s, &[]);
    assert!(
        out.status.success(),
        "exhibit build: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let head = verify_head(&s.site);
    assert_eq!(head, prev, "both hostile lines are published");
    let html = std::fs::read_to_string(s.site.join("index.html")).unwrap();
    let dom = dump_dom(&s.site.join("index.html"), "");
    assert_eq!(attr(tag_of(&dom, "verdict"), "data-head"), Some(head));
    assert!(
        dom.contains("&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;"),
        "shown as text"
    );
    assert!(
        dom.contains("&lt;img/src=x/onerror=alert(1)&gt;"),
        "shown as text"
    );
    assert!(!dom.contains("<img"), "no element injected");
    assert_eq!(
        dom.matches("<script").count(),
        html.matches("<script").count(),
        "no script injected"
    );
}

fn stats_of(site: &Path) -> J {
    serde_json::from_slice(&std::fs::read(site.join("ledger/STATS.json")).unwrap()).unwrap()
}

/// The page with one data block's bytes replaced.
fn with_block(html: &str, id: &str, bytes: &[u8]) -> String {
    let (a, b) = block_span(html, id);
    format!(
        "{}{}{}",
        &html[..a],
        exhibit::published::encode::base64(bytes),
        &html[b..]
    )
}

/// Each `<li>` of the verdict's failure list, as its link's target and text.
fn failures(dom: &str) -> Vec<String> {
    let Some(at) = dom.find("id=\"failures\"") else {
        return Vec::new();
    };
    let end = at + dom[at..].find("</ul>").unwrap();
    dom[at..end]
        .split("<li>")
        .skip(1)
        .map(str::to_string)
        .collect()
}

/// The rewrite: a published line changed and the chain re-written up to the next
/// withheld seq. The line after a withheld seq links to the withheld digest, so the head stays
/// byte for byte the same — only a posted head between the two catches it. Returns the
/// tampered ledger, the rewritten seq, its new entry_id and the date of the head that catches it.
fn rewrite_before_withheld(site: &Path) -> (Vec<u8>, u64, String, String) {
    let ledger = std::fs::read_to_string(site.join("ledger/ledger.jsonl")).unwrap();
    let withheld: Vec<J> =
        serde_json::from_slice(&std::fs::read(site.join("ledger/withheld.json")).unwrap()).unwrap();
    let wseqs: Vec<u64> = withheld
        .iter()
        .map(|w| w["seq"].as_u64().unwrap())
        .collect();
    let anchors: J =
        serde_json::from_slice(&std::fs::read(site.join("ledger/anchors/index.json")).unwrap())
            .unwrap();
    let mut lines: Vec<Map<String, J>> = ledger
        .lines()
        .skip(1)
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let at_seq = |seq: u64, lines: &[Map<String, J>]| {
        lines.iter().position(|o| o["seq"].as_u64() == Some(seq))
    };
    // a posted head h with a withheld seq after it, and a send line s ≤ h with every line from
    // s to the withheld seq published
    for post in anchors["posts"].as_array().unwrap() {
        if post["ok"] != true {
            continue;
        }
        let h = post["seq"].as_u64().unwrap();
        let Some(&w) = wseqs.iter().filter(|&&w| w > h).min() else {
            continue;
        };
        let lo = wseqs.iter().filter(|&&x| x < h).max().copied().unwrap_or(0);
        let Some(s) = (lo + 1..=h).rev().find(|&q| {
            at_seq(q, &lines)
                .is_some_and(|i| lines[i]["kind"] == "send" && lines[i].contains_key("decision"))
        }) else {
            continue;
        };
        let first = at_seq(s, &lines).unwrap();
        let last = at_seq(w - 1, &lines).unwrap();
        let old = lines[first]["decision"].as_str().unwrap().to_string();
        lines[first].insert(
            "decision".into(),
            J::from(if old == "pass" { "block" } else { "pass" }),
        );
        let mut prev = lines[first]["prev"].as_str().unwrap().to_string();
        let mut new_id = String::new();
        for o in &mut lines[first..=last] {
            o.insert("prev".into(), J::from(prev.clone()));
            o.remove("entry_id");
            let id = Digest::of(serde_json::to_string(&*o).unwrap().as_bytes()).to_string();
            o.insert("entry_id".into(), J::from(id.clone()));
            if new_id.is_empty() {
                new_id = id.clone();
            }
            prev = id;
        }
        let mut out = ledger.lines().next().unwrap().to_string();
        out.push('\n');
        for o in &lines {
            out.push_str(&serde_json::to_string(o).unwrap());
            out.push('\n');
        }
        return (
            out.into_bytes(),
            s,
            new_id,
            post["date"].as_str().unwrap().to_string(),
        );
    }
    panic!("the demo has no posted head followed by a withheld seq");
}

#[test]
fn a_rewrite_before_a_withheld_seq_is_caught_by_the_posted_head_and_the_verdict_fails() {
    let s = demo();
    let head = verify_head(&s.site);
    let (ledger, seq, new_id, date) = rewrite_before_withheld(&s.site);
    // The chain alone cannot see it: `exhibit verify` over the rewritten ledger re-derives the
    // same head.
    let tampered_ledger = s.site.join("rewritten.jsonl");
    std::fs::write(&tampered_ledger, &ledger).unwrap();
    let out = exhibit(
        &s.site,
        &[
            "verify",
            "--json",
            tampered_ledger.to_str().unwrap(),
            "--withheld",
            s.site.join("ledger/withheld.json").to_str().unwrap(),
        ],
    );
    let v: J = serde_json::from_slice(&out.stdout).expect("verify --json");
    assert_eq!(v["ok"], true, "the rewrite re-chains: {v}");
    assert_eq!(v["head"].as_str(), Some(head.as_str()), "the same head");

    let html = std::fs::read_to_string(s.site.join("index.html")).unwrap();
    let page = s.site.join("rewritten.html");
    std::fs::write(&page, with_block(&html, "ledger-bytes", &ledger)).unwrap();
    let dom = dump_dom(&page, "");
    let vt = tag_of(&dom, "verdict");
    assert_eq!(
        attr(vt, "data-state").as_deref(),
        Some("re-derives"),
        "{vt}"
    );
    assert_eq!(attr(vt, "data-verdict").as_deref(), Some("failed"), "{vt}");
    let f = failures(&dom);
    assert!(
        f.iter()
            .any(|x| x.contains(&format!("href=\"#anchor-{date}\""))
                && x.contains("does not check out")),
        "the failing posted head is named and linked: {f:?}"
    );
    assert!(
        dom.contains(&format!("id=\"anchor-{date}\"")),
        "the row it links to"
    );

    // Prove-one-message leads with the line's standing, not with "found".
    let dom = dump_dom(&page, &format!("#paste={new_id}"));
    let r = tag_of(&dom, "paste-result");
    assert_eq!(attr(r, "data-match").as_deref(), Some("hash"), "{r}");
    assert_eq!(attr(r, "data-seq"), Some(seq.to_string()));
    assert_eq!(
        attr(r, "data-standing").as_deref(),
        Some("failing-head"),
        "{r}"
    );
    assert!(dom.contains("On a day whose posted head FAILS"));
}

#[test]
fn a_tampered_released_text_fails_the_verdict_and_is_marked() {
    let s = demo();
    let (text, seq, sha) = released_text(&s);
    let html = std::fs::read_to_string(s.site.join("index.html")).unwrap();
    let (a, b) = block_span(&html, "public-texts-json");
    let block: J = serde_json::from_slice(&b64_decode(&html[a..b])).unwrap();
    let word = text
        .split(' ')
        .find(|w| w.len() >= 4 && w.chars().all(char::is_alphabetic))
        .unwrap();
    let changed = text.replacen(word, "zebraquartz", 1);
    let page = s.site.join("tampered-text.html");
    // The page with the released text `sha` replaced by `bytes`.
    let with_text = |bytes: &[u8]| {
        let mut block = block.clone();
        block["texts"][&sha] = J::from(exhibit::published::encode::base64(bytes));
        let carried = serde_json::to_vec(&block).unwrap();
        std::fs::write(&page, with_block(&html, "public-texts-json", &carried)).unwrap();
    };
    with_text(changed.as_bytes());
    let dom = dump_dom(&page, "");
    let v = tag_of(&dom, "verdict");
    assert_eq!(
        attr(v, "data-state").as_deref(),
        Some("re-derives"),
        "the chain is untouched"
    );
    assert_eq!(attr(v, "data-verdict").as_deref(), Some("failed"), "{v}");
    let f = failures(&dom);
    assert!(
        f.iter()
            .any(|x| x.contains(&format!("href=\"#text-{sha}\""))
                && x.contains(&format!("seq {seq}"))),
        "{f:?}"
    );
    let item = tag_of(&dom, &format!("text-{sha}"));
    assert_eq!(attr(item, "data-sent-sha256"), Some(sha.clone()), "{item}");

    // Changed into bytes that are not UTF-8 (found by random tampering): the page stayed on
    // "Checking…" for ever; it must fail the same way.
    with_text(b"na\x88\x03ve");
    let dom = dump_dom(&page, "");
    let v = tag_of(&dom, "verdict");
    assert_eq!(attr(v, "data-verdict").as_deref(), Some("failed"), "{v}");
    assert!(
        failures(&dom)
            .iter()
            .any(|x| x.contains(&format!("href=\"#text-{sha}\""))),
        "{dom}"
    );
}

#[test]
fn excerpts_give_each_of_the_three_passage_verdicts() {
    let s = demo();
    let (text, seq, _) = passage_text(&s);
    let page = s.site.join("index.html");
    let words: Vec<&str> = text.split_whitespace().collect();
    // a run from the middle of the text: a sentence, not the whole message
    let n = words.len();
    let (from, to) = (n / 4, n / 4 + 8);
    let excerpt = words[from..to].join(" ");
    assert!(
        text.contains(&excerpt),
        "the excerpt is a run of the released bytes"
    );
    let look = |paste: &str| {
        let dom = dump_dom(&page, &format!("#paste={}", percent_encode(paste)));
        let r = tag_of(&dom, "paste-result").to_string();
        (r, dom)
    };

    let (r, _) = look(&excerpt);
    assert_eq!(
        attr(&r, "data-match").as_deref(),
        Some("nearest"),
        "never a hash: {r}"
    );
    assert_eq!(
        attr(&r, "data-verdict").as_deref(),
        Some("passage-verbatim"),
        "{r}"
    );
    assert_eq!(attr(&r, "data-seq"), Some(seq.to_string()));

    // shouted, punctuation gone, spaced out
    let shouted: String = words[from..to]
        .iter()
        .map(|w| {
            w.trim_matches(|c: char| !c.is_alphanumeric())
                .to_uppercase()
        })
        .collect::<Vec<_>>()
        .join("  ");
    let (r, _) = look(&shouted);
    assert_eq!(
        attr(&r, "data-verdict").as_deref(),
        Some("passage-same-words"),
        "{r}"
    );
    assert_eq!(attr(&r, "data-seq"), Some(seq.to_string()));

    // one word changed, one dropped, one added: 7 of 9 words align
    let mut near: Vec<String> = words[from..to].iter().map(|w| w.to_string()).collect();
    near[2] = "zebraquartz".into();
    near.remove(5);
    near.push("platypus".into());
    let (r, dom) = look(&near.join(" "));
    assert_eq!(attr(&r, "data-match").as_deref(), Some("nearest"), "{r}");
    assert_eq!(
        attr(&r, "data-verdict").as_deref(),
        Some("passage-nearest"),
        "{r}"
    );
    assert_eq!(attr(&r, "data-seq"), Some(seq.to_string()));
    assert!(
        dom.contains("data-change=\"changed\""),
        "the changed word is listed"
    );
    assert!(
        dom.contains("data-change=\"dropped\""),
        "the dropped word is listed"
    );
    assert!(
        dom.contains("data-change=\"added\""),
        "the added word is listed"
    );
    assert!(dom.contains("<ins>zebraquartz</ins>"));
    // the answer with its diff, in both schemes, passes axe-core
    for dark in [false, true] {
        let facts = probe(
            &page,
            &Look {
                fragment: format!("#paste={}", percent_encode(&near.join(" "))),
                dark,
                axe: true,
                ..Look::default()
            },
        );
        assert_eq!(
            facts["axe"],
            J::Array(vec![]),
            "dark {dark}: {:#}",
            facts["axe"]
        );
    }

    // fewer than 60% of the words align: no passage
    let mut far: Vec<String> = words[from..to].iter().map(|w| w.to_string()).collect();
    for w in far.iter_mut().take(5) {
        *w = "qqq".into();
    }
    let (r, _) = look(&far.join(" "));
    assert_eq!(attr(&r, "data-match").as_deref(), Some("none"), "{r}");
}

/// A released text of at least 24 words (the excerpts need room).
fn passage_text(s: &Site) -> (String, u64, String) {
    let ix: J = serde_json::from_slice(
        &std::fs::read(s.site.join("ledger/public_texts/index.json"))
            .expect("the demo builds with --public-texts"),
    )
    .unwrap();
    for p in ix["published"].as_array().unwrap() {
        let sha = p["sent_sha256"].as_str().unwrap();
        let bytes = std::fs::read(s.site.join(format!("ledger/public_texts/{sha}.txt"))).unwrap();
        if let Ok(t) = String::from_utf8(bytes)
            && t.split_whitespace().count() >= 24
        {
            return (t, p["seq"].as_u64().unwrap(), sha.to_string());
        }
    }
    panic!("no released text of 24 words in the demo box");
}

#[test]
fn digests_messenger_copies_and_shouted_texts_are_recognised() {
    let s = demo();
    let (text, seq, sha) = released_text(&s);
    let page = s.site.join("index.html");
    // a sha256sum line
    let dom = dump_dom(
        &page,
        &format!(
            "#paste={}",
            percent_encode(&format!("{sha}  message.txt\n"))
        ),
    );
    let r = tag_of(&dom, "paste-result");
    assert_eq!(attr(r, "data-match").as_deref(), Some("hash"), "{r}");
    assert_eq!(attr(r, "data-seq"), Some(seq.to_string()));
    // an unknown digest is a digest, not text
    let unknown = "ab".repeat(32);
    let dom = dump_dom(&page, &format!("#paste={}", unknown.to_uppercase()));
    let r = tag_of(&dom, "paste-result");
    assert_eq!(attr(r, "data-match").as_deref(), Some("none"), "{r}");
    assert_eq!(
        attr(r, "data-verdict").as_deref(),
        Some("unknown-digest"),
        "{r}"
    );
    // a messenger's copy: the blank line before the trailer shown as one newline
    if let Some(at) = text.rfind("\n\n[gate: ") {
        let messenger = format!("{}\n{}", &text[..at], text[at + 2..].trim_end());
        let dom = dump_dom(&page, &format!("#paste={}", percent_encode(&messenger)));
        let r = tag_of(&dom, "paste-result");
        assert_eq!(attr(r, "data-match").as_deref(), Some("hash"), "{r}");
        assert_eq!(attr(r, "data-seq"), Some(seq.to_string()));
    }
    // the whole text shouted: same words, and no word struck in a diff
    let dom = dump_dom(
        &page,
        &format!("#paste={}", percent_encode(&text.to_uppercase())),
    );
    let r = tag_of(&dom, "paste-result");
    assert_eq!(
        attr(r, "data-verdict").as_deref(),
        Some("same-words"),
        "{r}"
    );
}

#[test]
fn a_shared_link_lands_on_its_answer_on_a_phone() {
    let s = demo();
    let (_, seq, sha) = released_text(&s);
    let facts = probe(
        &s.site.join("index.html"),
        &Look {
            fragment: format!("#paste={sha}"),
            width: Some(390),
            height: Some(844),
            ..Look::default()
        },
    );
    assert_eq!(facts["pasteResult"]["data-seq"], J::from(seq.to_string()));
    let top = facts["pasteBox"]["top"].as_f64().unwrap();
    assert!(
        (0.0..844.0 - 40.0).contains(&top),
        "the answer's top is in the 390×844 viewport: {}",
        facts["pasteBox"]
    );
    assert_eq!(facts["focusedId"], "paste-result", "and focused");

    // The share control shows the link it makes, with a Copy button.
    let facts = probe(
        &s.site.join("index.html"),
        &Look {
            eval: Some(
                "(function(){document.getElementById('paste').value='hello world';document.getElementById('paste-link').click();\
                 var s=document.getElementById('share');return {hidden:s.hidden,url:document.getElementById('share-url').value,\
                 copy:!!document.getElementById('share-copy'),hash:location.hash,focused:document.activeElement.id}})()"
                    .into(),
            ),
            ..Look::default()
        },
    );
    let r = &facts["evalResult"];
    assert_eq!(r["hidden"], false, "{r}");
    assert!(
        r["url"]
            .as_str()
            .unwrap()
            .ends_with("index.html#paste=hello%20world"),
        "{r}"
    );
    assert_eq!(
        r["hash"], "#paste=hello%20world",
        "the address bar too: {r}"
    );
    assert_eq!(r["focused"], "share-url", "{r}");
    assert_eq!(r["copy"], true);
}

#[test]
fn the_page_fits_a_phone_has_a_dark_scheme_and_passes_axe() {
    let s = demo();
    let page = s.site.join("index.html");
    let phone = probe(
        &page,
        &Look {
            width: Some(390),
            height: Some(844),
            ..Look::default()
        },
    );
    assert!(
        phone["scrollWidth"].as_u64().unwrap() <= phone["clientWidth"].as_u64().unwrap(),
        "no horizontal overflow at 390 px: {} > {}; wide: {}",
        phone["scrollWidth"],
        phone["clientWidth"],
        phone["wide"]
    );
    assert_eq!(
        phone["wide"],
        J::Array(vec![]),
        "nothing sticks out of the viewport"
    );

    let light = probe(
        &page,
        &Look {
            axe: true,
            tab_stops: true,
            ..Look::default()
        },
    );
    let dark = probe(
        &page,
        &Look {
            dark: true,
            axe: true,
            ..Look::default()
        },
    );
    assert_ne!(
        light["colors"]["bg"], dark["colors"]["bg"],
        "the dark scheme differs"
    );
    assert_ne!(light["colors"]["fg"], dark["colors"]["fg"]);
    for (name, facts) in [("light", &light), ("dark", &dark)] {
        assert_eq!(
            facts["axe"],
            J::Array(vec![]),
            "axe-core finds no violation ({name}): {:#}",
            facts["axe"]
        );
    }
    // The issue counted 173 tab stops on load, every digest among them.
    let stops = light["tabStops"]["count"].as_u64().unwrap();
    assert!(stops < 173, "{stops} tab stops: {}", light["tabStops"]);
    let kinds = light["tabStops"]["kinds"].as_object().unwrap();
    // A table that scrolls sideways is a labelled region a keyboard can reach (axe-core:
    // scrollable-region-focusable, issue 46 item 7): one stop per table, never a digest.
    assert!(
        kinds.get("region").and_then(J::as_u64).unwrap_or(0) <= 2,
        "{kinds:?}"
    );
    for k in kinds.keys() {
        assert!(
            [
                "a", "button", "select", "textarea", "input", "summary", "region"
            ]
            .contains(&k.as_str()),
            "tab stops are controls only, not {k}: {kinds:?}"
        );
    }
    assert!(
        !light["status"].as_str().unwrap_or("").is_empty()
            && light["status"].as_str().unwrap().len() < 200,
        "the live status line is short: {}",
        light["status"]
    );
}

#[test]
fn the_csp_lets_the_page_work_and_blocks_an_injected_script() {
    let s = demo();
    let page = s.site.join("index.html");
    let html = std::fs::read_to_string(&page).unwrap();
    let at = html.find("Content-Security-Policy").expect("a CSP meta");
    let start = html[..at].rfind("<meta").unwrap();
    let tag = &html[start..at + html[at..].find('>').unwrap()];
    let csp = attr(tag, "content").expect("the policy");
    assert!(csp.contains("default-src 'none'"), "{csp}");
    assert!(csp.contains("script-src 'sha256-"), "{csp}");
    assert!(
        !csp.contains("unsafe-inline") && !csp.contains("http") && !csp.contains('*'),
        "{csp}"
    );
    let facts = probe(
        &page,
        &Look {
            inject_script: true,
            ..Look::default()
        },
    );
    // the verdict came: the page's own script and its worker ran under the policy
    assert_eq!(facts["verdict"]["data-verdict"], "gaps");
    assert_eq!(
        facts["injected"]["ran"], false,
        "an injected inline script is blocked"
    );
    assert!(
        facts["injected"]["violated"]
            .as_str()
            .is_some_and(|d| d.starts_with("script-src")),
        "{}",
        facts["injected"]
    );
    assert_eq!(
        facts["console"],
        J::Array(vec![]),
        "no error in the console"
    );
}

#[test]
fn the_anchor_faults_fixture_fails_and_names_each_fault() {
    let tmp = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let site = tmp.path().join("site");
    let out = exhibit(
        root,
        &[
            "build",
            "--config",
            root.join("site-fixtures/anchors-faults/exhibit.toml")
                .to_str()
                .unwrap(),
            "--out",
            site.to_str().unwrap(),
        ],
    );
    assert!(
        out.status.success(),
        "exhibit build: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let dom = dump_dom(&site.join("index.html"), "");
    let v = tag_of(&dom, "verdict");
    assert_eq!(
        attr(v, "data-state").as_deref(),
        Some("re-derives"),
        "the chain alone is fine"
    );
    assert_eq!(attr(v, "data-verdict").as_deref(), Some("failed"), "{v}");
    let f = failures(&dom);
    assert!(
        f.iter().any(|x| x.contains("href=\"#anchor-2026-10-24\"")
            && x.contains("carries another digest than the one posted")),
        "the wrong head: {f:?}"
    );
    // Its proof fails the header check, so the build does not publish it (issue 9,
    // docs/build.md#safety): the page has no proof of 2026-10-24 to check, and
    // anchors/index.json says why (`proof_header`).
    assert!(
        !site.join("ledger/anchors/2026-10-24.txt.ots").exists(),
        "a proof that fails its header check is not published"
    );
    // The publisher's word that it withheld that proof for failing is a failure of its own,
    // named in the verdict and in the anchors table — never "no proof yet"
    // (docs/page.md#a-withheld-proof).
    assert!(
        f.iter().any(|x| x.contains("href=\"#anchor-2026-10-24\"")
            && x.contains("publisher withheld the Bitcoin proof of the post for 2026-10-24")
            && x.contains("its header did not commit to the post")),
        "the withheld proof is named in the verdict: {f:?}"
    );
    let row24 = &dom[dom.find("id=\"anchor-2026-10-24\"").unwrap()..];
    let row24 = &row24[..row24.find("</tr>").unwrap()];
    assert!(
        row24.contains("data-proof=\"withheld\"")
            && row24.contains("WITHHELD: the publisher withheld the Bitcoin proof")
            && !row24.contains("2026-10-24.txt.ots"),
        "the anchors row says the proof was withheld and links no missing file: {row24}"
    );
    assert!(
        f.iter()
            .any(|x| x.contains("withheld the Bitcoin proof of the post for 2026-10-25")),
        "the withheld proof of the post not in the exact form: {f:?}"
    );
    assert!(
        f.iter()
            .any(|x| x.contains("2026-10-25") && x.contains("not in the exact posted form")),
        "the post not in the exact form: {f:?}"
    );
    assert!(
        !f.iter().any(|x| x.contains("2026-10-26")),
        "a missing proof is not a failure: {f:?}"
    );
    let row = &dom[dom.find("id=\"anchor-2026-10-26\"").unwrap()..];
    assert!(
        row[..row.find("</tr>").unwrap()].contains("data-proof=\"missing\""),
        "shown as missing"
    );
}

/// Gives the posted head of the first dated post the proof of the second one: its header then
/// commits to another post, so the build withholds it. Returns that date.
fn swap_in_a_failing_anchor_proof(box_dir: &Path) -> String {
    let anchors = box_dir.join("gate/anchors");
    let mut proofs: Vec<String> = std::fs::read_dir(&anchors)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".txt.ots"))
        .collect();
    proofs.sort();
    assert!(
        proofs.len() >= 2,
        "the box has two anchor proofs: {proofs:?}"
    );
    let other = std::fs::read(anchors.join(&proofs[1])).unwrap();
    std::fs::write(anchors.join(&proofs[0]), other).unwrap();
    proofs[0].trim_end_matches(".txt.ots").to_string()
}

#[test]
fn a_withheld_failing_proof_alone_fails_the_verdict_on_the_page_and_in_verify_site() {
    let s = make_box(400);
    let date = swap_in_a_failing_anchor_proof(&s.box_dir);
    let out = build(&s, &[]);
    assert!(
        out.status.success(),
        "exhibit build: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        !s.site
            .join(format!("ledger/anchors/{date}.txt.ots"))
            .exists()
    );
    let dom = dump_dom(&s.site.join("index.html"), "");
    let v = tag_of(&dom, "verdict");
    assert_eq!(attr(v, "data-state").as_deref(), Some("re-derives"));
    // The head of that day checks out; only the proof is gone, by the publisher's word that it
    // failed: `failed`, not `gaps` (docs/page.md#a-withheld-proof).
    assert_eq!(attr(v, "data-verdict").as_deref(), Some("failed"), "{v}");
    let f = failures(&dom);
    assert_eq!(f.len(), 1, "the withheld proof is the one failure: {f:?}");
    assert!(
        f[0].contains(&format!("href=\"#anchor-{date}\""))
            && f[0].contains(&format!(
                "publisher withheld the Bitcoin proof of the post for {date}: its header did not commit to the post"
            )),
        "{f:?}"
    );
    let row = &dom[dom.find(&format!("id=\"anchor-{date}\"")).unwrap()..];
    let row = &row[..row.find("</tr>").unwrap()];
    assert!(
        row.contains("data-proof=\"withheld\"") && row.contains("checks out"),
        "{row}"
    );
    // `exhibit verify SITE` gives the same answer: exit 1, naming the withheld proof.
    let out = exhibit(&s.site, &["verify", "--json", s.site.to_str().unwrap()]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let j: J = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(j["ok"], false, "{j}");
    assert!(
        j["files"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["code"] == "anchor_proof_withheld"
                && p["file"] == format!("ledger/anchors/{date}.txt.ots")),
        "{j}"
    );
}

#[test]
fn prove_one_message_leads_with_the_lines_standing() {
    let s = demo();
    let stats = stats_of(&s.site);
    let ledger = std::fs::read_to_string(s.site.join("ledger/ledger.jsonl")).unwrap();
    let id_of = |seq: u64| {
        ledger
            .lines()
            .skip(1)
            .map(|l| serde_json::from_str::<J>(l).unwrap())
            .find(|o| o["seq"].as_u64() == Some(seq))
            .map(|o| o["entry_id"].as_str().unwrap().to_string())
            .unwrap()
    };
    let first = |key: &str| stats["coverage"][key][0].as_u64().expect(key);
    let severed = first("severed_seqs");
    let awaiting = first("awaiting_head_seqs");
    let pinned = (1..)
        .find(|q| {
            ![severed, awaiting].contains(q)
                && !stats["coverage"]["severed_seqs"]
                    .as_array()
                    .unwrap()
                    .contains(&J::from(*q))
                && ledger.contains(&format!("\"seq\":{q},"))
        })
        .unwrap();
    for (seq, standing, words) in [
        (severed, "severed", "Severed by a withheld line"),
        (awaiting, "awaiting", "Awaiting the next posted head"),
        (pinned, "vouched", "Vouched for by the head posted for"),
    ] {
        let dom = dump_dom(
            &s.site.join("index.html"),
            &format!("#paste={}", id_of(seq)),
        );
        let r = tag_of(&dom, "paste-result");
        assert_eq!(attr(r, "data-seq"), Some(seq.to_string()), "{r}");
        assert_eq!(
            attr(r, "data-standing").as_deref(),
            Some(standing),
            "seq {seq}: {r}"
        );
        let body = &dom[dom.find("id=\"paste-result\"").unwrap()..];
        let h3 = &body[body.find("<h3").unwrap()..];
        assert!(
            h3[..h3.find("</h3>").unwrap()].contains(words),
            "the standing comes first: {}",
            &h3[..h3.find("</h3>").unwrap()]
        );
    }
}

/// Issue 15, class 10: the page derives days from the anchor zone's rules it carries (the
/// binary's tz database), not from Chromium's own ICU data. With tzdb 2026f, Vancouver keeps
/// UTC-7 after 2026-11-01; ICU 2025c returns to UTC-8 and put lines of the evening on the day
/// before, so the page said problems where `exhibit verify` re-derived.
#[test]
fn days_come_from_the_tz_rules_the_page_carries() {
    let tmp = tempfile::tempdir().unwrap();
    let box_dir = tmp.path().join("box");
    let opts = BoxOptions {
        lines: 300,
        seed: 7,
        witness: false,
        start: "2026-10-30T13:00:00Z".to_string(),
        anchor_tz: "America/Vancouver".to_string(),
        ..BoxOptions::default()
    };
    gen_box::generate(&opts, &box_dir).expect("generate a box");
    let s = Site {
        _tmp: tmp,
        box_dir,
        site: PathBuf::new(),
    };
    let s = Site {
        site: s.box_dir.join("site"),
        ..s
    };
    let out = build(&s, &[]);
    assert!(
        out.status.success(),
        "exhibit build: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let head = verify_head(&s.site);
    // The ledger has lines whose day only the 2026f rules give: local 00:00-00:59 at UTC-7 after
    // 2026-11-01, which UTC-8 would put on the day before.
    let ledger = std::fs::read_to_string(s.site.join("ledger/ledger.jsonl")).unwrap();
    let late = ledger
        .lines()
        .skip(1)
        .filter_map(|l| serde_json::from_str::<J>(l).ok())
        .filter(|o| {
            let ts = o["timestamp"].as_str().unwrap_or_default();
            ts > "2026-11-02" && &ts[11..13] == "07"
        })
        .count();
    assert!(
        late > 0,
        "the box has lines between 07:00Z and 08:00Z after 2026-11-02"
    );
    let html = std::fs::read_to_string(s.site.join("index.html")).unwrap();
    let (a, b) = block_span(&html, "tz-rules-json");
    let rules: J = serde_json::from_slice(&b64_decode(&html[a..b])).unwrap();
    assert_eq!(rules["zone"], "America/Vancouver");
    assert_eq!(rules["tzdb"], exhibit_protocol::days::tzdb_version());
    let stats: J =
        serde_json::from_slice(&std::fs::read(s.site.join("ledger/STATS.json")).unwrap()).unwrap();
    assert_eq!(
        stats["ledger"]["tzdb"],
        exhibit_protocol::days::tzdb_version()
    );
    let dom = dump_dom(&s.site.join("index.html"), "");
    let v = tag_of(&dom, "verdict");
    assert_eq!(attr(v, "data-state").as_deref(), Some("re-derives"), "{v}");
    assert_eq!(attr(v, "data-head"), Some(head));
    assert!(
        dom.contains(&format!(
            "tz database {}",
            exhibit_protocol::days::tzdb_version()
        )),
        "the page names the tz database version"
    );
}

/// Issue 48, class 18: a data block that is not base64 as `exhibit verify SITE` reads it — one
/// extra `=`, or a no-break space the page's old decoder stripped — ends in a FAILED verdict
/// that names the block (docs/page.md "No input without a verdict"). Before, the extra `=`
/// threw an uncaught error and the page said "Checking…" for ever, and the no-break space was
/// read where the CLI refused it.
#[test]
fn a_block_that_is_not_base64_ends_in_a_failed_verdict_naming_it() {
    type Tamper = fn(&str) -> String;
    let s = make_box(30);
    let out = build(&s, &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let html = std::fs::read_to_string(s.site.join("index.html")).unwrap();
    let tampers: [(&str, &str, Tamper); 2] = [
        ("stats-json", "extra =", |b| format!("{b}=")),
        ("ledger-bytes", "no-break space", |b| {
            format!("{}\u{a0}{} \n", &b[..8], &b[8..])
        }),
    ];
    for (id, what, tamper) in tampers {
        let (a, b) = block_span(&html, id);
        let page = s.site.join("index.html");
        std::fs::write(
            &page,
            format!("{}{}{}", &html[..a], tamper(&html[a..b]), &html[b..]),
        )
        .unwrap();
        // The CLI refuses the block...
        let cli = exhibit(&s.site, &["verify", "--json", s.site.to_str().unwrap()]);
        let v: J = serde_json::from_slice(&cli.stdout).expect("verify --json");
        assert!(
            v.to_string().contains("page_block_unreadable"),
            "{what}: exhibit verify SITE reads the block: {v}"
        );
        // ...and the page says so, with a verdict.
        let dom = dump_dom(&page, "");
        let v = tag_of(&dom, "verdict");
        assert_eq!(
            attr(v, "data-verdict").as_deref(),
            Some("failed"),
            "{what}: {v}"
        );
        let text = dom.split("id=\"verdict-text\"").nth(1).unwrap();
        let text = &text[..text.find("</span>").unwrap()];
        assert!(
            text.contains(&format!("its data block {id} is not base64")),
            "{what}: {text}"
        );
    }
}

/// The answer's first element, its `data-answer` and its text (tags removed).
fn answer_of(dom: &str) -> (String, String, String) {
    let body = &dom[dom.find("id=\"paste-result\"").unwrap()..];
    let inner = &body[body.find('>').unwrap() + 1..];
    assert!(
        inner.starts_with("<p id=\"paste-answer\""),
        "the plain line comes first: {}",
        &inner[..inner.len().min(300)]
    );
    let p = &inner[..inner.find("</p>").unwrap()];
    let kind = attr(p, "data-answer").unwrap_or_default();
    let text: String = p
        .split('<')
        .map(|x| x.split_once('>').map_or(x, |y| y.1))
        .collect();
    let page = tag_of(dom, "paste-page-verdict");
    (
        kind,
        text,
        attr(page, "data-page-verdict").unwrap_or_default(),
    )
}

/// Issue 46 item 5: a paste's answer leads with one plain line — SENT on <day> at <time>
/// (line N), NOT SENT AS WRITTEN (what differs), NOT FOUND (what was searched) — then the
/// page's own verdict, inside every answer; a near text shows no similarity score that reads
/// as a percentage; a shared link on a FAILED page says FAILED in its answer and gives no green
/// "Vouched for". Catches a standing-first answer, a Dice score shown as the headline figure,
/// and an answer that ignores the page's verdict.
#[test]
fn a_paste_answer_leads_with_one_plain_line_and_the_pages_verdict() {
    let s = demo();
    let (text, seq, _sha) = released_text(&s);
    let page = s.site.join("index.html");
    let ledger = std::fs::read_to_string(s.site.join("ledger/ledger.jsonl")).unwrap();
    let line: J = ledger
        .lines()
        .skip(1)
        .map(|l| serde_json::from_str::<J>(l).unwrap())
        .find(|o| o["seq"].as_u64() == Some(seq))
        .unwrap();
    let day = line["day"].as_str().unwrap().to_string();
    let ts = line["timestamp"].as_str().unwrap().to_string();
    let hms = &ts[ts.find('T').unwrap() + 1..ts.find('T').unwrap() + 9];

    let dom = dump_dom(&page, &format!("#paste={}", percent_encode(&text)));
    let v = attr(tag_of(&dom, "verdict"), "data-verdict").unwrap();
    let (kind, said, verdict) = answer_of(&dom);
    assert_eq!(kind, "sent", "{said}");
    assert!(
        said.starts_with(&format!("SENT on {day} at {hms}"))
            && said.contains(&format!("(line {seq})")),
        "{said}"
    );
    assert_eq!(verdict, v, "the page's verdict inside the answer");

    let word = text
        .split(' ')
        .find(|w| w.len() >= 4 && w.chars().all(char::is_alphabetic))
        .unwrap();
    let changed = text.replacen(word, "zebraquartz", 1);
    let dom = dump_dom(&page, &format!("#paste={}", percent_encode(&changed)));
    let (kind, said, _) = answer_of(&dom);
    assert_eq!(kind, "not-sent-as-written", "{said}");
    assert!(
        said.starts_with("NOT SENT AS WRITTEN") && said.contains("differ"),
        "{said}"
    );
    let result = &dom[dom.find("id=\"paste-result\"").unwrap()..];
    let result = &result[..result.find("</section>").unwrap()];
    assert!(
        !result.contains("Dice"),
        "no similarity score in the answer"
    );

    let dom = dump_dom(&page, "#paste=nothing%20like%20any%20message%20here");
    let (kind, said, _) = answer_of(&dom);
    assert_eq!(kind, "not-found", "{said}");
    assert!(
        said.starts_with("NOT FOUND") && said.contains("searched"),
        "{said}"
    );

    // A page whose figures are not the publisher's: FAILED, and the shared link says so.
    let html = std::fs::read_to_string(&page).unwrap();
    let (a, b) = block_span(&html, "stats-json");
    let mut stats: J = serde_json::from_slice(&b64_decode(&html[a..b])).unwrap();
    let n = stats["lines"]["published"]["count"].as_u64().unwrap();
    stats["lines"]["published"]["count"] = J::from(n + 1);
    let failed = s.site.join("failed.html");
    std::fs::write(
        &failed,
        with_block(&html, "stats-json", &serde_json::to_vec(&stats).unwrap()),
    )
    .unwrap();
    let facts = probe(
        &failed,
        &Look {
            fragment: format!("#paste={}", percent_encode(&text)),
            axe: true,
            dark: true,
            width: Some(390),
            ..Look::default()
        },
    );
    assert_eq!(
        facts["axe"],
        J::Array(vec![]),
        "axe-core on a failed page's answer"
    );
    let dom = facts["dom"].as_str().unwrap().to_string();
    assert_eq!(
        attr(tag_of(&dom, "verdict"), "data-verdict").as_deref(),
        Some("failed")
    );
    let (kind, said, verdict) = answer_of(&dom);
    assert_eq!(
        (kind.as_str(), verdict.as_str()),
        ("sent", "failed"),
        "{said}"
    );
    let page_said = &dom[dom.find("id=\"paste-page-verdict\"").unwrap()..];
    assert!(page_said[..page_said.find("</p>").unwrap()].contains("FAILED"));
    assert!(
        !result_has_green_vouched(&dom),
        "no green 'Vouched for' on a failed page"
    );
}

fn result_has_green_vouched(dom: &str) -> bool {
    let body = &dom[dom.find("id=\"paste-result\"").unwrap()..];
    body.contains("<h3 class=\"ok\">Vouched for")
}

/// An edit of one file beside a page, in a copy of the site.
type BesideEdit = Box<dyn Fn(&Path)>;

/// Issue 46 item 4: a one-file page served over http fetches the files it links beside it and
/// holds them to the copies it carries and checked, as the light page does; editing only those
/// files (what a journalist downloads) fails the verdict, naming the file. From file:// the
/// page says plainly that it checked its own copy. Catches a page that links files it never
/// compares (green in 5 of 5 cases before), and one that claims to have compared them from a
/// file.
#[test]
fn a_one_file_page_over_http_holds_the_files_beside_it() {
    use crate::light_page::{Server, visit};
    let s = demo();
    let server = Server::start(&s.site);
    let f = visit(&server.url("index.html"), None, &[]);
    let clean = f["verdict"]["data-verdict"].as_str().unwrap().to_string();
    assert!(clean == "gaps" || clean == "intact", "{}", f["verdict"]);
    assert_eq!(f["verdict"]["data-beside"], "same", "{}", f["verdict"]);
    let f = visit(s.site.join("index.html").to_str().unwrap(), None, &[]);
    assert_eq!(f["verdict"]["data-beside"], "own-copy", "{}", f["verdict"]);
    let dom = f["dom"].as_str().unwrap();
    let note = &dom[dom.find("id=\"beside-check\"").unwrap()..];
    assert!(
        note[..note.find("</span>").unwrap()].contains("checked its own copy"),
        "{note}"
    );

    let post = std::fs::read_dir(s.site.join("ledger/anchors"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "txt"))
        .expect("a posted head");
    let post = post.strip_prefix(&s.site).unwrap().display().to_string();
    let text = std::fs::read_dir(s.site.join("ledger/public_texts"))
        .ok()
        .and_then(|d| {
            d.map(|e| e.unwrap().path())
                .find(|p| p.extension().is_some_and(|x| x == "txt"))
        })
        .map(|p| p.strip_prefix(&s.site).unwrap().display().to_string());
    let mut cases: Vec<(String, BesideEdit)> = vec![
        (
            "ledger/ledger.jsonl".into(),
            Box::new(|site: &Path| {
                let p = site.join("ledger/ledger.jsonl");
                let t = std::fs::read_to_string(&p).unwrap();
                std::fs::write(&p, t.replacen("\"seq\":3,", "\"seq\":3 ,", 1)).unwrap();
            }),
        ),
        (
            "ledger/ledger.jsonl".into(),
            Box::new(|site: &Path| {
                let p = site.join("ledger/ledger.jsonl");
                let t = std::fs::read_to_string(&p).unwrap();
                let mut lines: Vec<&str> = t.lines().collect();
                lines.pop();
                std::fs::write(&p, lines.join("\n") + "\n").unwrap();
            }),
        ),
        (
            "ledger/STATS.json".into(),
            Box::new(|site: &Path| {
                let p = site.join("ledger/STATS.json");
                let t = std::fs::read_to_string(&p).unwrap();
                std::fs::write(&p, t.replacen("\"count\": ", "\"count\": 1", 1)).unwrap();
            }),
        ),
        (
            post.clone(),
            Box::new(move |site: &Path| {
                let p = site.join(&post);
                let mut b = std::fs::read(&p).unwrap();
                let last = b.len() - 1;
                b[last] = if b[last] == b'1' { b'2' } else { b'1' };
                std::fs::write(&p, b).unwrap();
            }),
        ),
    ];
    if let Some(text) = text {
        cases.push((
            text.clone(),
            Box::new(move |site: &Path| {
                let p = site.join(&text);
                let mut b = std::fs::read(&p).unwrap();
                b.extend_from_slice(b" (edited)");
                std::fs::write(&p, b).unwrap();
            }),
        ));
    }
    for (file, edit) in &cases {
        let tmp = tempfile::tempdir().unwrap();
        let copy = tmp.path().join("site");
        crate::common::copy_tree(&s.site, &copy);
        edit(&copy);
        let server = Server::start(&copy);
        let f = visit(&server.url("index.html"), None, &[]);
        assert_eq!(
            f["verdict"]["data-verdict"], "failed",
            "{file}: {}",
            f["verdict"]
        );
        let fs = failures(f["dom"].as_str().unwrap());
        assert!(
            fs.iter()
                .any(|x| x.contains(&format!("The site's {file}, beside this page"))),
            "{file}: {fs:?}"
        );
    }
    assert!(cases.len() >= 4);
}
