//! The page (issue 6) in a real browser: headless Chromium loads the built `index.html` from
//! file://, and the test reads the DOM it dumps. Needs `chromium` on PATH (`apt-get install -y
//! chromium`); without it these tests fail, they do not skip.
//!
//! The paste box is driven through the page's own shareable-link feature, `#paste=<text>`.

use std::path::{Path, PathBuf};
use std::process::Command;

use exhibit_protocol::canonical::sha256_hex;
use exhibit_testkit::gen_box::{self, BoxOptions};
use serde_json::{Map, Value as J};

fn chromium() -> PathBuf {
    for name in ["chromium", "chromium-browser", "google-chrome"] {
        if let Ok(out) = Command::new("sh")
            .arg("-c")
            .arg(format!("command -v {name}"))
            .output()
            && out.status.success()
        {
            let p = String::from_utf8_lossy(&out.stdout).trim().to_string();
            if !p.is_empty() {
                return PathBuf::from(p);
            }
        }
    }
    panic!(
        "the page tests need headless Chromium and none is on PATH: run `apt-get install -y chromium`"
    );
}

/// The DOM after the page settled (virtual time; the page keeps the clock still while its worker runs).
fn dump_dom(page: &Path, fragment: &str) -> String {
    let profile = tempfile::tempdir().unwrap();
    let url = format!("file://{}{}", page.display(), fragment);
    let out = Command::new(chromium())
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .args(["--virtual-time-budget=30000", "--dump-dom"])
        .arg(&url)
        .output()
        .expect("run chromium");
    assert!(
        out.status.success(),
        "chromium failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8 DOM")
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
/// box's sources by the §6 recipe and embedded as the `public-texts-json` block the layer writes.
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
                    if sha256_hex(&form) == sent
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
        "texts": {sha.clone(): exhibit::encode::base64(text.as_bytes())},
    });
    let page = s.site.join("index.html");
    let html = std::fs::read_to_string(&page).unwrap();
    let at = html
        .find("<script id=verify-src>")
        .or_else(|| html.find("<script id=\"verify-src\">"))
        .expect("verify-src");
    let tag = format!(
        "<script type=application/octet-stream id=public-texts-json>{}</script>",
        exhibit::encode::base64(&serde_json::to_vec(&block).unwrap())
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
    assert!(dom.contains("id=\"lines-body\""));
    assert!(dom.contains("data-seq=\"1\""), "the lines table is filled");
    assert!(dom.contains("data-date="), "the anchors table is filled");
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
            exhibit::encode::base64(&bytes),
            &html[b..]
        ),
    )
    .unwrap();
    let dom = dump_dom(&tampered, "");
    let v = tag_of(&dom, "verdict");
    assert_eq!(attr(v, "data-state").as_deref(), Some("problems"), "{v}");
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
        let id = sha256_hex(serde_json::to_string(&core).unwrap().as_bytes());
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
