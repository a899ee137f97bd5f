//! The light page (issue 12 part 2, docs/page.md "The light page" and "The monitor") in headless
//! Chromium, served over http by a server this test runs on 127.0.0.1 (a port it opens), which
//! counts the requests per path. A box whose published ledger crosses `segment_bytes = 4096` is
//! built into a git repository; the same box built with a large `segment_bytes` gives the
//! embedded page that the light page must agree with. A Chromium profile kept between runs is
//! the returning visitor (the page's localStorage survives). Needs `node` and `chromium`, like
//! page_e2e.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};

use crate::common::*;
use crate::page_e2e::axe_core;
use serde_json::Value as J;

/// A static file server over `root` that counts the requests per path.
pub(crate) struct Server {
    port: u16,
    hits: Arc<Mutex<BTreeMap<String, usize>>>,
    /// Every request in order: its path and the bytes of the body served (0 for a 404).
    log: Arc<Mutex<Vec<(String, u64)>>>,
}

impl Server {
    /// A server that answers every request with the whole file, as python's http.server does.
    pub(crate) fn start(root: &Path) -> Server {
        Server::starting(root, Ranges::Ignored)
    }
    /// A server that answers a `Range: bytes=A-B` with that part (206), as GitHub Pages does.
    pub(crate) fn start_ranged(root: &Path) -> Server {
        Server::starting(root, Ranges::Given)
    }
    /// A server that answers a range with another one, one byte further on.
    fn start_ranged_wrongly(root: &Path) -> Server {
        Server::starting(root, Ranges::Shifted)
    }
    /// A server that answers `hold.path` only once `hold.after` has been asked for (and
    /// `hold.delay_ms` more), or after 60 s: a file the page reads last, whatever the order of
    /// its requests.
    fn start_holding(root: &Path, hold: Hold) -> Server {
        Server::starting_with(root, Ranges::Ignored, Some(hold))
    }
    fn starting(root: &Path, ranged: Ranges) -> Server {
        Server::starting_with(root, ranged, None)
    }
    fn starting_with(root: &Path, ranged: Ranges, hold: Option<Hold>) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let hits = Arc::new(Mutex::new(BTreeMap::new()));
        let log = Arc::new(Mutex::new(Vec::new()));
        let (root, counted, logged) = (root.to_path_buf(), Arc::clone(&hits), Arc::clone(&log));
        let hold = Arc::new(hold);
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let (root, counted, logged, hold) = (
                    root.clone(),
                    Arc::clone(&counted),
                    Arc::clone(&logged),
                    Arc::clone(&hold),
                );
                std::thread::spawn(move || {
                    serve(
                        stream,
                        &root,
                        &counted,
                        &logged,
                        ranged,
                        hold.as_ref().as_ref(),
                    )
                });
            }
        });
        Server { port, hits, log }
    }
    pub(crate) fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}/{path}", self.port)
    }
    /// The requests counted since the last call, and forgets them.
    pub(crate) fn take(&self) -> BTreeMap<String, usize> {
        std::mem::take(&mut *self.hits.lock().unwrap())
    }
    /// The requests since the last call, in order, with the bytes served each, and forgets
    /// them (independently of `take`).
    pub(crate) fn take_log(&self) -> Vec<(String, u64)> {
        std::mem::take(&mut *self.log.lock().unwrap())
    }
}

/// A request a test server answers late (`Server::start_holding`).
pub(crate) struct Hold {
    pub(crate) path: String,
    pub(crate) after: String,
    pub(crate) delay_ms: u64,
}

/// How a test server answers a byte range.
#[derive(Clone, Copy, PartialEq)]
enum Ranges {
    Ignored,
    Given,
    Shifted,
}

fn serve(
    mut stream: std::net::TcpStream,
    root: &Path,
    hits: &Mutex<BTreeMap<String, usize>>,
    log: &Mutex<Vec<(String, u64)>>,
    ranged: Ranges,
    hold: Option<&Hold>,
) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut request = String::new();
    if reader.read_line(&mut request).is_err() {
        return;
    }
    let mut range: Option<(u64, u64)> = None;
    loop {
        let mut header = String::new();
        match reader.read_line(&mut header) {
            Ok(0) | Err(_) => break,
            Ok(_) if header == "\r\n" || header == "\n" => break,
            Ok(_) => {
                let lower = header.trim().to_ascii_lowercase();
                if let Some((a, b)) = lower
                    .strip_prefix("range: bytes=")
                    .and_then(|r| r.split_once('-'))
                {
                    range = a.parse().ok().zip(b.parse().ok());
                }
            }
        }
    }
    let path = request
        .split_whitespace()
        .nth(1)
        .unwrap_or("/")
        .split(['?', '#'])
        .next()
        .unwrap_or("/")
        .trim_start_matches('/')
        .to_string();
    *hits.lock().unwrap().entry(path.clone()).or_default() += 1;
    if let Some(h) = hold.filter(|h| h.path == path) {
        let t0 = std::time::Instant::now();
        while !hits.lock().unwrap().contains_key(&h.after) && t0.elapsed().as_secs() < 60 {
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        std::thread::sleep(std::time::Duration::from_millis(h.delay_ms));
    }
    let file = (!path.contains("..")).then(|| root.join(&path));
    let body = file.and_then(|f| std::fs::read(f).ok());
    // A range, when this server gives them: its part (206), or 416 from the end on.
    if let (true, Some((a, b)), Some(whole)) = (ranged != Ranges::Ignored, range, body.as_ref()) {
        let len = whole.len() as u64;
        let (a, b) = if ranged == Ranges::Shifted {
            (a + 1, b + 1)
        } else {
            (a, b)
        };
        let response = if a >= len {
            log.lock().unwrap().push((path.clone(), 0));
            format!("HTTP/1.1 416 Range Not Satisfiable\r\nContent-Range: bytes */{len}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n").into_bytes()
        } else {
            let end = b.min(len - 1);
            let part = &whole[a as usize..=end as usize];
            log.lock().unwrap().push((path.clone(), part.len() as u64));
            let mut r = format!("HTTP/1.1 206 Partial Content\r\nContent-Type: application/octet-stream\r\nContent-Range: bytes {a}-{end}/{len}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n", part.len()).into_bytes();
            r.extend_from_slice(part);
            r
        };
        let _ = stream.write_all(&response);
        return;
    }
    let served = body.as_ref().map_or(0, |b| b.len() as u64);
    log.lock().unwrap().push((path.clone(), served));
    let response = match body {
        Some(body) => {
            let kind = if path.ends_with(".html") {
                "text/html; charset=utf-8"
            } else {
                "application/octet-stream"
            };
            let mut r = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            )
            .into_bytes();
            r.extend_from_slice(&body);
            r
        }
        None => {
            b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".to_vec()
        }
    };
    let _ = stream.write_all(&response);
}

/// The light page asked for its full check (docs/page.md "Check everything"): every ledger
/// file, every record and every tree file re-derived, as on a visit by the button. Without the
/// fragment a light page checks the checkpoint in log size.
pub(crate) const FULL: &str = "index.html#check-everything";

/// The page after it settled, as `tests/js/browser.cjs` reports it.
pub(crate) fn visit(page: &str, profile: Option<&Path>, extra: &[&str]) -> J {
    let driver = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/js/browser.cjs");
    let mut cmd = Command::new("node");
    cmd.arg(&driver).arg(page);
    if let Some(p) = profile {
        cmd.arg("--profile").arg(p);
    }
    cmd.args(extra);
    let stdout = node_stdout(cmd, "tests/js/browser.cjs");
    let facts: J = serde_json::from_slice(&stdout).expect("the driver prints JSON");
    let console = facts["console"].as_array().unwrap();
    assert!(console.is_empty(), "the page logged errors: {console:?}");
    facts
}

pub(crate) fn verdict(facts: &J) -> (String, String, String) {
    let v = &facts["verdict"];
    let s = |k: &str| v[k].as_str().unwrap_or_default().to_string();
    (s("data-verdict"), s("data-vouched"), s("data-head"))
}

/// The opening tag of the first element whose attributes hold `needle`, e.g. `id="monitor"`.
fn tag<'a>(dom: &'a str, needle: &str) -> &'a str {
    let at = dom
        .find(needle)
        .unwrap_or_else(|| panic!("no {needle} in the DOM"));
    let start = dom[..at].rfind('<').unwrap();
    &dom[start..at + dom[at..].find('>').unwrap() + 1]
}
fn attr(tag: &str, name: &str) -> String {
    let key = format!(" {name}=\"");
    let at = tag
        .find(&key)
        .unwrap_or_else(|| panic!("no {name} in {tag}"))
        + key.len();
    tag[at..at + tag[at..].find('"').unwrap()].to_string()
}
/// The text of the element with this id (its first text node).
pub(crate) fn text_of(dom: &str, id: &str) -> String {
    let t = tag(dom, &format!("id=\"{id}\""));
    let at = dom.find(t).unwrap() + t.len();
    dom[at..at + dom[at..].find('<').unwrap()].to_string()
}

/// A box whose days each end with a posted head: `days` days of `per_day` lines.
pub(crate) struct Box {
    _tmp: tempfile::TempDir,
    b: TestBox,
    repo: git2::Repository,
    pub(crate) site: PathBuf,
    w: LedgerWriter,
    n: u32,
    /// Every tenth line a send carrying `message(seq)`'s digests (none by default).
    pub(crate) sends: bool,
    /// A seq whose scan line counts one more than the box's others would: another history.
    pub(crate) tweak: Option<u32>,
    /// No line withheld (lines 12 and 28 are scans like the others).
    pub(crate) no_withheld: bool,
}

/// The message a send line of a box with `sends` carries: its body, and the text as sent (the
/// body, a blank line and the gate's trailer naming the seq). The line's `sent_sha256` is the
/// sha256 of the text, its `checked_sha256` the body's.
pub(crate) fn message(seq: u32) -> (String, String) {
    let body = format!(
        "Seq {seq} went out: the gate counted {} receipts, {} of them late.",
        seq * 7,
        seq % 13
    );
    let text = format!("{body}\n\n[gate: 2 of 2 numerals bound \u{b7} ledger {seq:04}]");
    (body, text)
}

impl Box {
    /// A box whose page may weigh 64 KiB, the least ceiling there is: its page reads its
    /// records from the site.
    pub(crate) fn light(segment_bytes: u64) -> Box {
        let b = Box::new(segment_bytes);
        let toml = b.b.dir.join("exhibit.toml");
        let text = std::fs::read_to_string(&toml).unwrap();
        std::fs::write(&toml, format!("{text}page_bytes = 65536\n")).unwrap();
        b
    }
    /// Every posted day's post stamped with a proof (more than the 64 a light page carries);
    /// returns the posted days, in order, and the generator that made the proofs (to make
    /// another the same way).
    fn stamp_every_post(&self) -> (Vec<String>, exhibit_testkit::gen_box::Rng) {
        let anchors = self.b.dir.join("gate/anchors");
        let mut rng = exhibit_testkit::gen_box::Rng::new(7, 1);
        let mut dates: Vec<String> = std::fs::read_dir(&anchors)
            .unwrap()
            .filter_map(|e| {
                let name = e.unwrap().file_name().into_string().unwrap();
                name.strip_suffix(".txt").map(str::to_string)
            })
            .collect();
        dates.sort();
        assert!(dates.len() > 64 + 5, "{} posted days", dates.len());
        for d in &dates {
            let post = std::fs::read(anchors.join(format!("{d}.txt"))).unwrap();
            let ots = exhibit_testkit::gen_box::anchor_ots(&post, &mut rng);
            std::fs::write(anchors.join(format!("{d}.txt.ots")), ots).unwrap();
        }
        (dates, rng)
    }

    pub(crate) fn new(segment_bytes: u64) -> Box {
        let tmp = tempfile::tempdir().unwrap();
        let b = TestBox::new(tmp.path());
        let toml = std::fs::read_to_string(b.dir.join("exhibit.toml")).unwrap();
        std::fs::write(
            b.dir.join("exhibit.toml"),
            format!("{toml}\n[publish]\nsegment_bytes = {segment_bytes}\n"),
        )
        .unwrap();
        let repo = git2::Repository::init(tmp.path().join("exhibit")).unwrap();
        let site = tmp.path().join("exhibit/site");
        Box {
            _tmp: tmp,
            b,
            repo,
            site,
            w: LedgerWriter::new(),
            n: 0,
            sends: false,
            tweak: None,
            no_withheld: false,
        }
    }

    /// `count` lines three hours apart; then a posted head for every day that is over. Lines 12
    /// and 28, each the last of its day, carry a path: the build withholds them, so those days'
    /// posts name a withheld seq.
    pub(crate) fn add(&mut self, count: u32) {
        for _ in 0..count {
            self.n += 1;
            if !self.no_withheld && (self.n == 12 || self.n == 28) {
                let ts = exhibit::published::encode::timestamp_of(
                    1_792_846_800 + i64::from(self.n) * 180 * 60,
                );
                self.w.push(
                    "gate_not_wired",
                    &ts,
                    r#"{"detail":"lock held by /home/agent"}"#,
                );
            } else if self.sends && self.n % 10 == 5 {
                let (body, text) = message(self.n);
                let ts = exhibit::published::encode::timestamp_of(
                    1_792_846_800 + i64::from(self.n) * 180 * 60,
                );
                self.w.push(
                    "send",
                    &ts,
                    &format!(
                        r#"{{"action":"send","checked_sha256":"{}","decision":"pass","dest_class":"public","sent_sha256":"{}"}}"#,
                        exhibit_protocol::Digest::of(body.as_bytes()),
                        exhibit_protocol::Digest::of(text.as_bytes())
                    ),
                );
            } else {
                self.w
                    .push_scan(self.n * 180 + u32::from(self.tweak == Some(self.n)));
            }
        }
        let day_of = |line: &[u8]| -> String {
            let v: J = serde_json::from_slice(line).unwrap();
            v["day"].as_str().unwrap().to_string()
        };
        let lines = &self.w.lines[1..];
        for i in 0..lines.len() - 1 {
            let (d, next) = (day_of(&lines[i]), day_of(&lines[i + 1]));
            if d != next {
                self.b.post_anchor(&d, &self.w.ids[i], i + 1);
            }
        }
        self.b.write_ledger(&self.w.bytes());
    }

    pub(crate) fn build(&self, epoch: u64) {
        let o = exhibit(
            &[
                "build",
                "--config",
                &self.b.config(),
                "--out",
                self.site.to_str().unwrap(),
            ],
            epoch,
        );
        assert_eq!(o.status.code(), Some(0), "{}", text(&o));
        commit_all(&self.repo, "publish");
    }

    /// The published ledger's files in chain order, as the page lists them.
    fn files(&self) -> Vec<String> {
        let html = std::fs::read_to_string(self.site.join("index.html")).unwrap();
        let layout: J = serde_json::from_slice(&unb64(block(&html, "layout-json"))).unwrap();
        assert_eq!(layout["mode"], "light", "a light page: {layout}");
        layout["files"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["path"].as_str().unwrap().to_string())
            .collect()
    }
}

/// The base64 text of a data block.
pub(crate) fn block<'a>(html: &'a str, id: &str) -> &'a str {
    let at = html
        .find(&format!("id={id} "))
        .or_else(|| html.find(&format!("id={id}>")))
        .or_else(|| html.find(&format!("id=\"{id}\"")))
        .unwrap_or_else(|| panic!("no block {id}"));
    let start = at + html[at..].find('>').unwrap() + 1;
    &html[start..start + html[start..].find("</script>").unwrap()]
}

#[test]
fn the_light_page_streams_resumes_and_notices_a_rewrite() {
    // ~340 bytes a line: 60 lines cross 4096 bytes several times.
    let mut light = Box::new(4096);
    light.add(60);
    light.build(1_800_000_000);
    let mut embedded = Box::new(33_554_432);
    embedded.add(60);
    embedded.build(1_800_000_000);
    let files = light.files();
    assert!(
        files.len() >= 4 && files[1].starts_with("ledger/segments/"),
        "{files:?}"
    );
    let html = std::fs::read_to_string(light.site.join("index.html")).unwrap();
    assert!(
        !crate::common::page_blocks(&html).contains_key("ledger-bytes"),
        "a light page does not embed the whole ledger"
    );
    assert!(
        html.contains("connect-src 'self';"),
        "a light page may fetch from its own origin, and only there"
    );
    let embedded_html = std::fs::read_to_string(embedded.site.join("index.html")).unwrap();
    assert!(
        embedded_html.contains("connect-src 'self';"),
        "an embedded page may fetch the files beside it, from its own origin only"
    );
    assert!(!embedded.site.join("ledger/segments").exists());

    // The embedded page of the same box: the answer the light page must give.
    let want = verdict(&visit(
        embedded.site.join("index.html").to_str().unwrap(),
        None,
        &[],
    ));
    assert!(
        want.0 == "intact" || want.0 == "gaps",
        "the box re-derives: {want:?}"
    );
    assert!(!want.2.is_empty());

    let server = Server::start(&light.site);
    let profile = tempfile::tempdir().unwrap();

    // 1. First visit over http: every file but the embedded last one fetched once; the same
    // verdict; every posted head marked checked; the monitor remembers; axe-core finds nothing.
    let axe = axe_core();
    let f = visit(
        &server.url(FULL),
        Some(profile.path()),
        &["--axe", axe.to_str().unwrap()],
    );
    assert_eq!(
        f["axe"],
        serde_json::json!([]),
        "axe-core on the light page"
    );
    assert_eq!(
        verdict(&f),
        want,
        "the light page agrees with the embedded page"
    );
    let dom = f["dom"].as_str().unwrap();
    let hits = server.take();
    for (i, path) in files.iter().enumerate() {
        let n = hits.get(path).copied().unwrap_or(0);
        if i + 1 < files.len() {
            assert_eq!(n, 1, "{path} fetched once: {hits:?}");
        } else {
            assert!(n <= 1, "{path}: {hits:?}");
        }
        let li = tag(dom, &format!("data-path=\"{path}\""));
        assert_eq!(attr(li, "data-state"), "done", "{li}");
    }
    assert!(
        !dom.contains("data-state=\"waiting\""),
        "every file and day was reached"
    );
    let posts = std::fs::read_dir(light.b.dir.join("gate/anchors"))
        .unwrap()
        .count();
    let withheld: J =
        serde_json::from_slice(&std::fs::read(light.site.join("ledger/withheld.json")).unwrap())
            .unwrap();
    assert_eq!(withheld.as_array().unwrap().len(), 2, "{withheld}");
    let post_seqs: Vec<String> = std::fs::read_dir(light.b.dir.join("gate/anchors"))
        .unwrap()
        .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
        .map(|t| t.rsplit(' ').next().unwrap().to_string())
        .collect();
    assert!(
        post_seqs.contains(&"12".to_string()) && post_seqs.contains(&"28".to_string()),
        "posts name the withheld seqs: {post_seqs:?}"
    );
    assert!(posts >= 5);
    assert_eq!(
        dom.matches("data-state=\"checked\"").count(),
        posts,
        "every posted head is marked checked as the chain reaches it"
    );
    assert_eq!(
        attr(tag(dom, "id=\"monitor\""), "data-state"),
        "stored",
        "{}",
        text_of(dom, "monitor-text")
    );

    // 2. From file:// the page cannot read its siblings: needs-data, never a verdict; picking
    // the cloned ledger/ folder re-derives it.
    let page = light.site.join("index.html");
    let f = visit(page.to_str().unwrap(), None, &[]);
    let v = &f["verdict"];
    assert_eq!(v["data-state"], "needs-data");
    assert_eq!(v["data-verdict"], "needs-data");
    assert_eq!(v["data-head"], "");
    let dom = f["dom"].as_str().unwrap();
    assert!(!tag(dom, "id=\"pick\"").contains(" hidden"));
    assert!(tag(dom, "id=\"pick-ledger\"").contains("webkitdirectory"));
    let ledger_dir = light.site.join("ledger");
    let f = visit(
        page.to_str().unwrap(),
        None,
        &["--pick", ledger_dir.to_str().unwrap()],
    );
    assert_eq!(verdict(&f), want, "re-derived from the picked folder");

    // 3. A day later: more lines (a new segment), a rebuild. The returning visitor reads only
    // the files after those it remembers as full.
    light.add(30);
    light.build(1_800_100_000);
    let files2 = light.files();
    assert!(files2.len() > files.len(), "{files2:?}");
    assert_eq!(&files2[..files.len() - 1], &files[..files.len() - 1]);
    let head2 = verify_head(&light.site);
    let f = visit(&server.url(FULL), Some(profile.path()), &[]);
    let (v, _, head) = verdict(&f);
    assert!(v == "intact" || v == "gaps", "{v}");
    assert_eq!(head, head2, "the head of the grown ledger");
    let dom = f["dom"].as_str().unwrap();
    assert_eq!(
        attr(tag(dom, "id=\"monitor\""), "data-state"),
        "resumed",
        "{}",
        text_of(dom, "monitor-text")
    );
    let hits = server.take();
    for path in &files[..files.len() - 1] {
        assert_eq!(
            hits.get(path),
            None,
            "{path} was full and is not fetched again: {hits:?}"
        );
        let li = tag(dom, &format!("data-path=\"{path}\""));
        assert_eq!(attr(li, "data-state"), "remembered");
    }
    let fetched: usize = files2[files.len() - 1..]
        .iter()
        .map(|p| hits.get(p).copied().unwrap_or(0))
        .sum();
    assert!(
        fetched >= 1 && fetched <= files2.len() - files.len() + 1,
        "only the last remembered file and the new ones: {hits:?}"
    );
    assert_eq!(hits.get("index.html"), Some(&1));

    // 4. A full segment rewritten (a forced push: its bytes and the page's list changed, nothing
    // else fixed): the returning visitor's monitor says so, naming the file, and the verdict
    // re-derived from the first line fails.
    let victim = files2[2].clone();
    let path = light.site.join(&victim);
    let original = std::fs::read(&path).unwrap();
    let mut bytes = original.clone();
    let at = bytes
        .windows(10)
        .position(|w| w == b"\"scanned\":")
        .unwrap()
        + 10;
    bytes[at] = if bytes[at] == b'9' { b'8' } else { b'9' };
    std::fs::write(&path, &bytes).unwrap();
    let html = std::fs::read_to_string(light.site.join("index.html")).unwrap();
    let b64 = block(&html, "layout-json");
    let mut layout: J = serde_json::from_slice(&unb64(b64)).unwrap();
    for f in layout["files"].as_array_mut().unwrap() {
        if f["path"] == victim.as_str() {
            f["sha256"] = J::String(exhibit_protocol::Digest::of(&bytes).to_string());
        }
    }
    let forged = html.replacen(
        b64,
        &exhibit::published::encode::base64(&serde_json::to_vec(&layout).unwrap()),
        1,
    );
    // As a forced push would: STATS.json and the page's copy of it list the new bytes too.
    let stats_b64 = block(&forged, "stats-json").to_string();
    let mut stats: J = serde_json::from_slice(&unb64(&stats_b64)).unwrap();
    for f in stats["ledger"]["files"].as_array_mut().unwrap() {
        if f["path"] == victim.as_str() {
            f["sha256"] = J::String(exhibit_protocol::Digest::of(&bytes).to_string());
        }
    }
    let stats_bytes = serde_json::to_vec_pretty(&stats).unwrap();
    let stats_path = light.site.join("ledger/STATS.json");
    let stats_original = std::fs::read(&stats_path).unwrap();
    std::fs::write(&stats_path, &stats_bytes).unwrap();
    let forged = forged.replacen(
        &stats_b64,
        &exhibit::published::encode::base64(&stats_bytes),
        1,
    );
    std::fs::write(light.site.join("index.html"), &forged).unwrap();
    // And a last snapshot that records them (docs/page.md "The snapshot's digests").
    let snapshots_path = light.site.join("ledger/SNAPSHOTS.jsonl");
    let snapshots_original = std::fs::read(&snapshots_path).unwrap();
    crate::site_agreement::snapshot_the_files(&light.site);
    let f = visit(&server.url(FULL), Some(profile.path()), &[]);
    let dom = f["dom"].as_str().unwrap();
    assert_eq!(attr(tag(dom, "id=\"monitor\""), "data-state"), "rewritten");
    let said = text_of(dom, "monitor-text");
    assert!(
        said.contains("REWRITTEN") && said.contains(&victim),
        "{said}"
    );
    assert_eq!(f["verdict"]["data-verdict"], "failed");
    let hits = server.take();
    assert_eq!(
        hits.get(&victim),
        Some(&1),
        "read again from the first line"
    );

    // The alarm stays until the visitor clears it, even if the old bytes come back.
    std::fs::write(light.site.join("index.html"), &html).unwrap();
    std::fs::write(&path, &original).unwrap();
    std::fs::write(&stats_path, &stats_original).unwrap();
    std::fs::write(&snapshots_path, &snapshots_original).unwrap();
    let f = visit(
        &server.url(FULL),
        Some(profile.path()),
        &[
            "--eval",
            "(function(){var s=document.getElementById('monitor').getAttribute('data-state');document.getElementById('monitor-forget').click();return [s, document.getElementById('monitor').getAttribute('data-state'), localStorage.length];})()",
        ],
    );
    assert_eq!(
        f["evalResult"],
        serde_json::json!(["rewritten", "none", 0]),
        "the alarm is kept; #monitor-forget clears it"
    );

    // 5. A first visitor to a segment whose bytes are not the listed ones (edited in place,
    // nothing else fixed): failed, naming the file.
    std::fs::write(&path, &bytes).unwrap();
    let f = visit(&server.url(FULL), None, &[]);
    assert_eq!(f["verdict"]["data-verdict"], "failed");
    let dom = f["dom"].as_str().unwrap();
    assert!(
        tag(dom, &format!("data-path=\"{victim}\"")).contains("data-state=\"bad\""),
        "the file is marked"
    );
    let failures = &dom[dom.find("id=\"failures\"").expect("a list of failures")..];
    assert!(
        failures[..failures.find("</ul>").unwrap()].contains(&victim),
        "the failure names the file"
    );

    // 6. A listed file the server answers 404 for: the site says it does not hold it, so the
    // page fails naming it, as `exhibit verify SITE` does (stats_file_absent); never green, and
    // not a file the visitor could supply (docs/page.md "The light page").
    std::fs::remove_file(light.site.join(&files2[1])).unwrap();
    let f = visit(&server.url(FULL), None, &[]);
    assert_eq!(f["verdict"]["data-verdict"], "failed");
    let dom = f["dom"].as_str().unwrap();
    let failures = &dom[dom.find("id=\"failures\"").expect("a list of failures")..];
    let failures = &failures[..failures.find("</ul>").unwrap()];
    assert!(
        failures.contains(&files2[1]) && failures.contains("does not hold it"),
        "{failures}"
    );
}

fn verify_head(site: &Path) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_exhibit"))
        .args(["verify", "--json", site.to_str().unwrap()])
        .output()
        .unwrap();
    let v: J = serde_json::from_slice(&out.stdout).expect("verify --json");
    assert_eq!(v["ok"], true, "exhibit verify: {v}");
    v["head"].as_str().unwrap().to_string()
}

#[test]
fn a_light_page_stays_small() {
    // 600 lines at 4096 bytes a segment: about fifty files; the page carries the last one only.
    let mut b = Box::new(4096);
    b.add(600);
    b.build(1_800_000_000);
    let mut e = Box::new(33_554_432);
    e.add(600);
    e.build(1_800_000_000);
    let embedded = std::fs::metadata(e.site.join("index.html")).unwrap().len();
    let embedded_html = std::fs::read_to_string(e.site.join("index.html")).unwrap();
    assert_eq!(
        unb64(block(&embedded_html, "layout-json")),
        br#"{"mode":"embedded"}"#.to_vec()
    );
    assert_eq!(
        unb64(block(&embedded_html, "ledger-bytes")),
        std::fs::read(e.site.join("ledger/ledger.jsonl")).unwrap()
    );
    let files = b.files();
    assert!(files.len() > 40, "{}", files.len());
    let page = std::fs::metadata(b.site.join("index.html")).unwrap().len();
    let ledger: u64 = files
        .iter()
        .map(|p| std::fs::metadata(b.site.join(p)).unwrap().len())
        .sum();
    let html = std::fs::read_to_string(b.site.join("index.html")).unwrap();
    let latest = unb64(block(&html, "ledger-latest"));
    assert_eq!(
        latest,
        std::fs::read(b.site.join(files.last().unwrap())).unwrap(),
        "the last file is embedded whole"
    );
    let header = unb64(block(&html, "ledger-header"));
    assert_eq!(header, b.w.bytes()[..header.len()].to_vec());
    assert!(header.ends_with(b"\n") && header.iter().filter(|c| **c == b'\n').count() == 1);
    // The embedded page carries the ledger (base64: 4/3 of its bytes); the light page the last
    // file only.
    assert!(
        page + ledger < embedded,
        "light page {page} bytes, embedded {embedded}, ledger {ledger}"
    );
}

#[test]
fn a_one_file_ledger_whose_embedded_page_is_too_heavy_gets_the_light_page() {
    // The same box twice, its ledger in one file: once with the default ceiling (the embedded
    // page), once with `page_bytes` just under that page's weight. Past the ceiling the page
    // must not be written as it is (a 26,000-line box with the witness layer made a 42 MB
    // page): it lists the one file and fetches it, and reaches the embedded page's verdict.
    let mut e = Box::new(33_554_432);
    e.add(60);
    e.build(1_800_000_000);
    let embedded = std::fs::metadata(e.site.join("index.html")).unwrap().len();
    let mut b = Box::new(33_554_432);
    let toml = std::fs::read_to_string(b.b.dir.join("exhibit.toml")).unwrap();
    std::fs::write(
        b.b.dir.join("exhibit.toml"),
        format!("{toml}page_bytes = {}\n", embedded - 1),
    )
    .unwrap();
    b.add(60);
    b.build(1_800_000_000);
    assert!(!b.site.join("ledger/segments").exists());
    assert_eq!(b.files(), ["ledger/ledger.jsonl"], "the one file, listed");
    let page = std::fs::metadata(b.site.join("index.html")).unwrap().len();
    assert!(page < embedded, "light {page} bytes, embedded {embedded}");
    let html = std::fs::read_to_string(b.site.join("index.html")).unwrap();
    assert!(
        !crate::common::page_blocks(&html).contains_key("ledger-bytes"),
        "the ledger is not embedded"
    );
    let layout: J = serde_json::from_slice(&unb64(block(&html, "layout-json"))).unwrap();
    let listed = &layout["files"][0];
    let bytes = std::fs::read(b.site.join("ledger/ledger.jsonl")).unwrap();
    assert_eq!(listed["bytes"], bytes.len());
    assert_eq!(
        listed["sha256"],
        exhibit_protocol::Digest::of(&bytes).to_string()
    );
    // Every other file is the embedded build's, byte for byte: only the page differs.
    let (mut light_files, mut embedded_files) = (snapshot_dir(&b.site), snapshot_dir(&e.site));
    light_files.remove("index.html");
    embedded_files.remove("index.html");
    assert_eq!(light_files, embedded_files);

    let want = verdict(&visit(
        e.site.join("index.html").to_str().unwrap(),
        None,
        &[],
    ));
    let server = Server::start(&b.site);
    let f = visit(&server.url(FULL), None, &[]);
    assert_eq!(
        verdict(&f),
        want,
        "the light page agrees with the embedded page"
    );
    assert!(
        server
            .take()
            .get("ledger/ledger.jsonl")
            .copied()
            .unwrap_or(0)
            <= 1
    );
    let f = visit(b.site.join("index.html").to_str().unwrap(), None, &[]);
    assert_eq!(f["verdict"]["data-verdict"], "needs-data", "from file://");

    // A ceiling outside its range is refused naming the key and the range.
    std::fs::write(
        b.b.dir.join("exhibit.toml"),
        format!("{toml}page_bytes = 1000\n"),
    )
    .unwrap();
    let o = exhibit(
        &[
            "build",
            "--config",
            &b.b.config(),
            "--out",
            b.site.to_str().unwrap(),
        ],
        1_800_000_000,
    );
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        text(&o).contains("page_bytes = 1000 is outside the accepted range"),
        "{}",
        text(&o)
    );
}

/// A light page past its ceiling even without the last ledger file reads its records
/// (STATS.json, SNAPSHOTS.jsonl, the anchors' index, a one-file withheld list) from the site
/// instead of carrying them (docs/page.md#fetched-records): they grow with the exhibit, and a
/// 200,000-line page that carried them weighed 35.7 MB. It reaches the verdict the carrying page
/// reaches; a record changed on the site fails it and `exhibit verify SITE` alike; from file://
/// it gives no verdict. Catches a page that still embeds a record, one that takes a missing
/// record for an empty exhibit, and a CLI that holds the page to blocks it never reads.
#[test]
fn a_light_page_past_its_ceiling_reads_its_records_from_the_site() {
    let mut c = Box::new(4096);
    c.add(90);
    c.build(1_800_000_000);
    // The least ceiling there is: no page carrying its records fits under it.
    let mut b = Box::light(4096);
    b.add(90);
    b.build(1_800_000_000);
    let html = std::fs::read_to_string(b.site.join("index.html")).unwrap();
    let layout: J = serde_json::from_slice(&unb64(block(&html, "layout-json"))).unwrap();
    assert_eq!(layout["fetch"], true, "{layout}");
    // Not carried: no block, or an empty one (`ledger-latest` stays, empty, as a dropped last
    // file's does).
    let blocks = crate::common::page_blocks(&html);
    for id in [
        "stats-json",
        "snapshots-jsonl",
        "anchors-json",
        "withheld-json",
        "ledger-latest",
    ] {
        assert!(
            blocks.get(id).is_none_or(Vec::is_empty),
            "{id} is not carried"
        );
    }
    let carrying = std::fs::metadata(c.site.join("index.html")).unwrap().len();
    assert!(
        (html.len() as u64) < carrying,
        "{} < {carrying}",
        html.len()
    );
    assert_eq!(verify_head(&b.site), verify_head(&c.site));

    let want = {
        let server = Server::start(&c.site);
        verdict(&visit(&server.url(FULL), None, &[]))
    };
    assert!(
        !["failed", "needs-data", "working", ""].contains(&want.0.as_str()),
        "{want:?}"
    );
    let server = Server::start(&b.site);
    assert_eq!(verdict(&visit(&server.url(FULL), None, &[])), want);
    let hits = server.take();
    for path in [
        "ledger/STATS.json",
        "ledger/SNAPSHOTS.jsonl",
        "ledger/anchors/index.json",
    ] {
        assert!(
            hits.get(path).copied().unwrap_or(0) >= 1,
            "{path} read: {hits:?}"
        );
    }
    // Its log-size path reads none of those records (docs/page.md "The log-size path"): they
    // grow with the exhibit, and the checkpoint's verdict does not need them.
    let f = visit(&server.url("index.html"), None, &[]);
    assert_eq!(
        f["verdict"]["data-verdict"], "checkpoint",
        "{}",
        f["verdict"]
    );
    let hits = server.take();
    assert!(
        hits.keys()
            .all(|p| p == "index.html" || p.starts_with("ledger/tree/")),
        "{hits:?}"
    );
    let f = visit(b.site.join("index.html").to_str().unwrap(), None, &[]);
    assert_eq!(f["verdict"]["data-verdict"], "needs-data", "from file://");

    // A figure of STATS.json raised, its snapshot resealed: the page reads the changed file and
    // fails, as the CLI does.
    let stats_path = b.site.join("ledger/STATS.json");
    let mut stats: J = serde_json::from_slice(&std::fs::read(&stats_path).unwrap()).unwrap();
    let pinned = stats["coverage"]["pinned"]["count"].as_u64().unwrap();
    stats["coverage"]["pinned"]["count"] = J::from(pinned + 1);
    std::fs::write(&stats_path, serde_json::to_vec_pretty(&stats).unwrap()).unwrap();
    reseal_snapshot(&b.site);
    let (code, v) = verify_json(&b.site);
    assert_eq!(code, Some(1), "{v}");
    assert!(
        file_problems(&v)
            .iter()
            .any(|(f, c)| f == "ledger/STATS.json" && c == "stats_figure_mismatch"),
        "{v}"
    );
    let f = visit(&server.url(FULL), None, &[]);
    assert_eq!(f["verdict"]["data-verdict"], "failed", "{}", f["verdict"]);
}

/// The request log since the last call, index.html aside, as `path -> bytes` (each path once:
/// a path fetched twice is a failure of its own).
fn fetched(server: &Server) -> BTreeMap<String, u64> {
    let mut out = BTreeMap::new();
    for (path, bytes) in server.take_log() {
        if path == "index.html" {
            continue;
        }
        assert!(
            out.insert(path.clone(), bytes).is_none(),
            "{path} fetched twice on one visit"
        );
    }
    out
}

/// What a visit fetched beyond another visit's `base` (the same cold check before it).
fn beyond(all: &BTreeMap<String, u64>, base: &BTreeMap<String, u64>) -> BTreeMap<String, u64> {
    for (p, b) in base {
        assert_eq!(
            all.get(p),
            Some(b),
            "{p}: the same cold check before the flow"
        );
    }
    all.iter()
        .filter(|(p, _)| !base.contains_key(*p))
        .map(|(p, b)| (p.clone(), *b))
        .collect()
}

fn total(files: &BTreeMap<String, u64>) -> u64 {
    files.values().sum()
}

/// A budget of docs/tree.md at a million lines, scaled to a tree of `size` seqs by its tile
/// levels (three at a million): a log-size path reads about one tile a level.
fn scaled(budget: u64, size: u64) -> u64 {
    let levels = |mut n: u64| {
        let mut l = 0;
        while n > 0 {
            l += 1;
            n /= 256;
        }
        l
    };
    budget * levels(size) / levels(1_000_000)
}

fn is_tile(path: &str) -> bool {
    let rest = path.strip_prefix("ledger/tree/tile/").unwrap_or("");
    rest.len() > 2 && rest.as_bytes()[0].is_ascii_digit() && rest.as_bytes()[1] == b'/'
}

fn said(facts: &J, id: &str) -> String {
    let dom = facts["dom"].as_str().unwrap();
    let at = dom
        .find(&format!("id=\"{id}\""))
        .unwrap_or_else(|| panic!("no #{id}"));
    let end = at + dom[at..].find("</p>").unwrap();
    dom[at..end].to_string()
}

/// The light page's log-size paths, over http with the server counting every byte it serves
/// (docs/page.md "The log-size path", "The returning visitor", "Prove one message on a light
/// page"), on a light page of 3,000 lines: a cold visit to the checkpoint's verdict, a message
/// proved by its text with the trailer, without it, and by its digest, and a returning
/// visitor's consistency check each read only the tree's files they need — no ledger file,
/// never the whole tree — within the budgets of docs/tree.md scaled to this tree. Catches a
/// default path that streams the ledger, a proof that fetches every lines file or index run,
/// a trailer that is not used, a consistency check that re-reads the tree, and a returning
/// visitor whose old line is not found.
#[test]
fn the_log_size_paths_fetch_only_the_files_they_should() {
    let mut b = Box::new(65_536);
    b.sends = true;
    b.add(3000);
    b.build(1_800_000_000);
    assert!(b.files().len() > 10, "{:?}", b.files());
    let size = 3000;
    let server = Server::start(&b.site);
    let profile = tempfile::tempdir().unwrap();

    // 1. A cold visit: the checkpoint and the tiles its checks need, nothing else.
    let f = visit(&server.url("index.html"), Some(profile.path()), &[]);
    assert_eq!(
        f["verdict"]["data-verdict"], "checkpoint",
        "{}",
        f["verdict"]
    );
    assert_eq!(f["verdict"]["data-tree-size"], size.to_string());
    assert_eq!(
        f["verdict"]["data-head"], "",
        "no head: the chain was not re-derived"
    );
    assert!(said(&f, "verdict-text").contains("not re-derived"));
    let cold = fetched(&server);
    assert!(cold.contains_key("ledger/tree/checkpoint"), "{cold:?}");
    for p in cold.keys() {
        assert!(
            p == "ledger/tree/checkpoint" || is_tile(p),
            "the cold visit fetched {p}: {cold:?}"
        );
    }
    assert!(cold.len() <= 1 + 3 * 2, "a few tiles a level: {cold:?}");
    let cold_bytes = total(&cold);
    assert!(
        cold_bytes <= scaled(256 * 1024, size),
        "cold visit: {cold_bytes} bytes"
    );
    assert_eq!(
        attr(
            tag(f["dom"].as_str().unwrap(), "id=\"tree-memory\""),
            "data-state"
        ),
        "first"
    );

    // 2-4. A message of an old line (seq 105, in the first tile), by its text with the trailer,
    // without it, and by its digest: each from a fresh browser, so that the cold check before
    // it is the one above.
    let seq = 105;
    let (body, text) = message(seq);
    let digest = exhibit_protocol::Digest::of(text.as_bytes()).to_string();
    let mut costs = Vec::new();
    for (how, paste, via, index) in [
        ("the text with its trailer", text.as_str(), "trailer", false),
        ("the text without its trailer", body.as_str(), "index", true),
        ("its digest", digest.as_str(), "index", true),
    ] {
        let fragment = format!("#paste={}", url_encode(paste));
        let axe = axe_core();
        let f = visit(
            &server.url("index.html"),
            None,
            &["--fragment", &fragment, "--axe", axe.to_str().unwrap()],
        );
        assert_eq!(
            f["axe"],
            serde_json::json!([]),
            "{how}: axe-core on the proof"
        );
        let r = &f["pasteResult"];
        assert_eq!(r["data-seq"], seq.to_string(), "{how}: {r}");
        assert_eq!(r["data-proof"], "included", "{how}: {r}");
        assert_eq!(r["data-via"], via, "{how}: {r}");
        let all = fetched(&server);
        let more = beyond(&all, &cold);
        let lines: Vec<&String> = more
            .keys()
            .filter(|p| p.starts_with("ledger/tree/lines/"))
            .collect();
        assert_eq!(
            lines,
            ["ledger/tree/lines/000"],
            "{how}: one lines file: {more:?}"
        );
        let looked = more
            .keys()
            .filter(|p| p.starts_with("ledger/tree/index/"))
            .count();
        if index {
            // Blocks 0 and 1 (one level-0 run each: one bucket) and the tail.
            assert!((1..=3).contains(&looked), "{how}: {more:?}");
        } else {
            assert_eq!(looked, 0, "{how}: the trailer names the seq: {more:?}");
        }
        for p in more.keys() {
            assert!(
                p.starts_with("ledger/tree/lines/")
                    || p.starts_with("ledger/tree/index/")
                    || is_tile(p),
                "{how}: fetched {p}"
            );
        }
        let bytes = total(&more);
        assert!(bytes <= scaled(512 * 1024, size), "{how}: {bytes} bytes");
        costs.push((how, bytes, more.len()));
    }

    // 5. A day later the exhibit has grown; the returning visitor's page checks that today's
    // tree extends the one it remembers, reading a few tiles more than a cold visit would.
    b.add(300);
    b.build(1_800_100_000);
    let f = visit(&server.url("index.html"), Some(profile.path()), &[]);
    assert_eq!(
        f["verdict"]["data-verdict"], "checkpoint",
        "{}",
        f["verdict"]
    );
    let memory = tag(f["dom"].as_str().unwrap(), "id=\"tree-memory\"");
    assert_eq!(attr(memory, "data-state"), "consistent", "{memory}");
    let returning = fetched(&server);
    let f = visit(&server.url("index.html"), None, &[]);
    assert_eq!(f["verdict"]["data-verdict"], "checkpoint");
    let cold2 = fetched(&server);
    let consistency = beyond(&returning, &cold2);
    for p in consistency.keys() {
        assert!(is_tile(p), "the consistency check fetched {p}");
    }
    let consistency_bytes = total(&consistency);
    assert!(
        consistency_bytes <= scaled(64 * 1024, size),
        "consistency: {consistency_bytes} bytes"
    );
    // And a message of an old line is found by the returning visitor (the old light page
    // looked only after the point it remembered).
    let fragment = format!("#paste={}", url_encode(&text));
    let f = visit(
        &server.url("index.html"),
        Some(profile.path()),
        &["--fragment", &fragment],
    );
    assert_eq!(
        f["pasteResult"]["data-seq"],
        seq.to_string(),
        "{}",
        f["pasteResult"]
    );
    assert_eq!(f["pasteResult"]["data-proof"], "included");
    assert!(
        !fetched(&server)
            .keys()
            .any(|p| p.starts_with("ledger/segments/") || p == "ledger/ledger.jsonl"),
        "no ledger file"
    );
    println!(
        "log-size bytes at {size} seqs: cold visit {cold_bytes} in {} files; {}; consistency {consistency_bytes} in {} files",
        cold.len(),
        costs
            .iter()
            .map(|(how, b, n)| format!("prove by {how} {b} in {n} files"))
            .collect::<Vec<_>>()
            .join("; "),
        consistency.len()
    );
}

/// A returning visitor whose exhibit was rewritten between two visits (another history at the
/// same address, the same log): the consistency proof from the checkpoint this browser
/// remembers fails, and the headline verdict says the history was rewritten since the last
/// visit, on the log-size path and on the full check alike, until Forget. Catches a page that
/// compares nothing between visits, one that only compares sizes, and one that forgets the
/// alarm once shown. A checkpoint of another origin is another log: said, not compared.
#[test]
fn a_rewrite_between_two_visits_is_the_headline_failure() {
    let mut b = Box::new(65_536);
    b.add(300);
    b.build(1_800_000_000);
    let server = Server::start(&b.site);
    let profile = tempfile::tempdir().unwrap();
    let f = visit(&server.url("index.html"), Some(profile.path()), &[]);
    assert_eq!(
        f["verdict"]["data-verdict"], "checkpoint",
        "{}",
        f["verdict"]
    );

    // Another history: the same lines but seq 7, grown past the first, built elsewhere and put
    // where the first was. Its tree is larger and of the same origin; it does not extend the
    // one the visitor saw.
    let mut other = Box::new(65_536);
    other.tweak = Some(7);
    other.add(330);
    other.build(1_800_000_000);
    assert_eq!(
        std::fs::read_to_string(other.site.join("ledger/tree/checkpoint"))
            .unwrap()
            .lines()
            .next(),
        std::fs::read_to_string(b.site.join("ledger/tree/checkpoint"))
            .unwrap()
            .lines()
            .next(),
        "one origin"
    );
    std::fs::remove_dir_all(&b.site).unwrap();
    copy_tree(&other.site, &b.site);
    // A first visitor sees nothing wrong: the rewritten exhibit holds together.
    let f = visit(&server.url("index.html"), None, &[]);
    assert_eq!(
        f["verdict"]["data-verdict"], "checkpoint",
        "{}",
        f["verdict"]
    );
    // The returning visitor is told, in the headline.
    for url in [server.url("index.html"), server.url(FULL)] {
        let f = visit(&url, Some(profile.path()), &[]);
        assert_eq!(
            f["verdict"]["data-verdict"], "failed",
            "{url}: {}",
            f["verdict"]
        );
        assert_eq!(
            f["verdict"]["data-failed"], "history",
            "{url}: {}",
            f["verdict"]
        );
        let headline = said(&f, "verdict-text");
        assert!(
            headline.contains("history was rewritten since your last visit on"),
            "{url}: {headline}"
        );
        let memory = tag(f["dom"].as_str().unwrap(), "id=\"tree-memory\"");
        assert_eq!(attr(memory, "data-state"), "rewritten", "{url}: {memory}");
    }
    // Forget clears it; the next visit remembers afresh.
    let f = visit(
        &server.url("index.html"),
        Some(profile.path()),
        &[
            "--eval",
            "(function(){document.getElementById('monitor-forget').click();return document.getElementById('tree-memory').getAttribute('data-state');})()",
        ],
    );
    assert_eq!(f["evalResult"], "none");
    let f = visit(&server.url("index.html"), Some(profile.path()), &[]);
    assert_eq!(
        f["verdict"]["data-verdict"], "checkpoint",
        "{}",
        f["verdict"]
    );

    // Another log at the same address (another origin): said, compared with nothing, and no
    // failure of the history; the checkpoint remembered is kept.
    let mut third = Box::new(65_536);
    let toml = std::fs::read_to_string(third.b.dir.join("exhibit.toml")).unwrap();
    std::fs::write(
        third.b.dir.join("exhibit.toml"),
        format!("{toml}\n[checkpoint]\norigin = \"example.org/another-log\"\n"),
    )
    .unwrap();
    third.add(340);
    third.build(1_800_000_000);
    std::fs::remove_dir_all(&b.site).unwrap();
    copy_tree(&third.site, &b.site);
    for _ in 0..2 {
        let f = visit(&server.url("index.html"), Some(profile.path()), &[]);
        assert_eq!(
            f["verdict"]["data-verdict"], "checkpoint",
            "{}",
            f["verdict"]
        );
        assert_eq!(f["verdict"]["data-origin"], "example.org/another-log");
        let memory = tag(f["dom"].as_str().unwrap(), "id=\"tree-memory\"");
        assert_eq!(attr(memory, "data-state"), "other-log", "{memory}");
        assert!(
            text_of(f["dom"].as_str().unwrap(), "tree-memory").contains("another log"),
            "{memory}"
        );
    }
}

/// A paste as `#paste=` carries it: every byte but the unreserved ones percent-encoded.
fn url_encode(s: &str) -> String {
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

/// Clicks "Check everything" and waits for the full check's verdict: [verdict, vouched, head].
const CHECK_EVERYTHING: &str = "new Promise(function (resolve) {
  document.getElementById('check-everything').click();
  var t = setInterval(function () {
    var v = document.getElementById('verdict'), d = v.getAttribute('data-verdict');
    if (d && d !== 'working' && d !== 'checkpoint') { clearInterval(t); resolve([d, v.getAttribute('data-vouched'), v.getAttribute('data-head')]); }
  }, 100);
})";

/// A site tampered with: what, how, and words the page's failures must hold.
type Tampering = (&'static str, fn(&Path), &'static str);

/// The light page's failures, as listed under its verdict.
fn failures_of(facts: &J) -> String {
    let dom = facts["dom"].as_str().unwrap();
    let at = dom.find("id=\"failures\"").expect("a list of failures");
    dom[at..at + dom[at..].find("</ul>").unwrap()].to_string()
}

/// The log-size verdict holds the files it reads and says which it did not (docs/page.md "The
/// log-size path"): a tile of the root's right edge changed, the site's checkpoint not the
/// page's copy, or the newest posted head not the tree's leaf at its seq each fail it; a tile no
/// check of it reads leaves it standing — it says it did not re-derive the chain — but a message
/// proved through that tile is NOT proved. The button runs the full check to the verdict of
/// `#check-everything`, and the page passes axe-core in its log-size state. Catches a verdict
/// on the checkpoint's text alone, a posted head taken on trust, and a proof that does not
/// recompute the path to the root.
#[test]
fn the_log_size_verdict_holds_what_it_reads_and_says_what_it_did_not() {
    let mut b = Box::new(65_536);
    b.sends = true;
    b.add(600);
    b.build(1_800_000_000);
    let tree = b.site.join("ledger/tree");
    for f in ["tile/0/000", "tile/0/002.p/88", "tile/1/000.p/2"] {
        assert!(tree.join(f).is_file(), "{f}");
    }
    let full = {
        let server = Server::start(&b.site);
        verdict(&visit(&server.url(FULL), None, &[]))
    };
    assert!(full.0 == "gaps" || full.0 == "intact", "{full:?}");
    let server = Server::start(&b.site);
    let axe = axe_core();
    let f = visit(
        &server.url("index.html"),
        None,
        &["--axe", axe.to_str().unwrap()],
    );
    assert_eq!(
        f["verdict"]["data-verdict"], "checkpoint",
        "{}",
        f["verdict"]
    );
    assert_eq!(
        f["axe"],
        serde_json::json!([]),
        "axe-core on the log-size verdict"
    );
    server.take();
    let f = visit(
        &server.url("index.html"),
        None,
        &["--eval", CHECK_EVERYTHING],
    );
    assert_eq!(
        f["evalResult"],
        serde_json::json!([full.0, full.1, full.2]),
        "the button runs the full check"
    );
    let hits = server.take();
    assert!(
        hits.keys().any(|p| p.starts_with("ledger/segments/")),
        "the full check read the ledger: {hits:?}"
    );

    let seq15 = message(15).1;
    let cases: [Tampering; 3] = [
        (
            "a tile of the root's right edge",
            |s| {
                let p = s.join("ledger/tree/tile/0/002.p/88");
                let mut bytes = std::fs::read(&p).unwrap();
                bytes[100] ^= 1;
                std::fs::write(p, bytes).unwrap();
            },
            "fold to the root",
        ),
        (
            "the site's checkpoint not the page's copy",
            |s| {
                let p = s.join("ledger/tree/checkpoint");
                let text = std::fs::read_to_string(&p).unwrap();
                std::fs::write(p, text.replacen("\n600\n", "\n599\n", 1)).unwrap();
            },
            "is not the one this page carries",
        ),
        (
            "the newest post names another head",
            |s| {
                let mut posts = crate::site_agreement::page_json(s, "anchor-posts-json");
                let map = posts.as_object_mut().unwrap();
                let last = map.keys().next_back().unwrap().clone();
                let text = map[&last].as_str().unwrap().to_string();
                let at = text.find(" head ").unwrap() + 6;
                let forged = format!("{}{}{}", &text[..at], "ab".repeat(32), &text[at + 64..]);
                map.insert(last, J::String(forged));
                crate::site_agreement::set_block(
                    s,
                    "anchor-posts-json",
                    &serde_json::to_vec(&posts).unwrap(),
                );
            },
            "is not the tree's leaf at seq",
        ),
    ];
    for (name, mutate, says) in cases {
        let tmp = tempfile::tempdir().unwrap();
        let copy = tmp.path().join("site");
        copy_tree(&b.site, &copy);
        mutate(&copy);
        let server = Server::start(&copy);
        let f = visit(&server.url("index.html"), None, &[]);
        assert_eq!(
            f["verdict"]["data-verdict"], "failed",
            "{name}: {}",
            f["verdict"]
        );
        let failures = failures_of(&f);
        assert!(failures.contains(says), "{name}: {failures}");
        assert!(
            !server
                .take()
                .keys()
                .any(|p| p.starts_with("ledger/segments/")),
            "{name}: no ledger file read"
        );
    }

    // A tile of the first 256 seqs: no check of the cold visit reads it, and the verdict says
    // what it checked; a message whose proof goes through it is not proved.
    let tmp = tempfile::tempdir().unwrap();
    let copy = tmp.path().join("site");
    copy_tree(&b.site, &copy);
    let p = copy.join("ledger/tree/tile/0/000");
    let mut bytes = std::fs::read(&p).unwrap();
    bytes[32 * 20] ^= 1;
    std::fs::write(p, bytes).unwrap();
    let server = Server::start(&copy);
    let fragment = format!("#paste={}", url_encode(&seq15));
    let f = visit(&server.url("index.html"), None, &["--fragment", &fragment]);
    assert_eq!(
        f["verdict"]["data-verdict"], "checkpoint",
        "{}",
        f["verdict"]
    );
    assert!(said(&f, "verdict-text").contains("not re-derived"));
    let r = &f["pasteResult"];
    assert_eq!(r["data-seq"], "15", "{r}");
    assert_eq!(r["data-proof"], "not-included", "{r}");
}

/// What the page says of the first failure, where: the verdict's failures list, its top in the
/// viewport, and the status line with its role (issue 46 item 2).
const ALARM: &str = "(function(){var f=document.getElementById('failures'),s=document.getElementById('status');return {top:f?Math.round(f.getBoundingClientRect().top+scrollY):null,role:s.getAttribute('role'),said:s.textContent};})()";

/// A returning visitor whose remembered ledger files were rewritten into another history that
/// holds together, published under another origin so that the tree's consistency proof compares
/// nothing ("another log"): the monitor sees the rewrite, and that is the headline — failed,
/// `data-failed="history"`, the file in the failures list at the top of the page, the status
/// an alert saying "failed" — on the full check and on the next log-size visit alike. Catches
/// a page that shows the alarm only in "What this browser remembers" under an amber or green
/// verdict (issue 46 item 2).
#[test]
fn a_rewrite_of_what_this_browser_checked_is_the_headline_failure() {
    let mut b = Box::new(4096);
    b.add(60);
    b.build(1_800_000_000);
    let server = Server::start(&b.site);
    let profile = tempfile::tempdir().unwrap();
    let f = visit(&server.url(FULL), Some(profile.path()), &[]);
    let first = f["verdict"]["data-verdict"].as_str().unwrap().to_string();
    assert!(first == "gaps" || first == "intact", "{}", f["verdict"]);

    let mut other = Box::new(4096);
    let toml = std::fs::read_to_string(other.b.dir.join("exhibit.toml")).unwrap();
    std::fs::write(
        other.b.dir.join("exhibit.toml"),
        format!("{toml}\n[checkpoint]\norigin = \"example.org/a-fresh-start\"\n"),
    )
    .unwrap();
    other.tweak = Some(7);
    other.add(70);
    other.build(1_800_000_000);
    std::fs::remove_dir_all(&b.site).unwrap();
    copy_tree(&other.site, &b.site);
    // A first visitor sees a ledger that holds together.
    let fresh = verdict(&visit(&server.url(FULL), None, &[])).0;
    assert!(fresh == "gaps" || fresh == "intact", "{fresh}");

    let axe = axe_core();
    for url in [server.url(FULL), server.url("index.html")] {
        let f = visit(
            &url,
            Some(profile.path()),
            &[
                "--eval",
                ALARM,
                "--axe",
                axe.to_str().unwrap(),
                "--width",
                "390",
            ],
        );
        assert_eq!(f["axe"], serde_json::json!([]), "{url}: axe-core");
        assert_eq!(
            f["verdict"]["data-verdict"], "failed",
            "{url}: {}",
            f["verdict"]
        );
        assert_eq!(f["verdict"]["data-failed"], "history", "{url}");
        let dom = f["dom"].as_str().unwrap();
        assert_eq!(attr(tag(dom, "id=\"monitor\""), "data-state"), "rewritten");
        let failures = failures_of(&f);
        assert!(
            failures.contains("earlier visit was rewritten: ledger/"),
            "{url}: {failures}"
        );
        let alarm = &f["evalResult"];
        assert_eq!(alarm["role"], "alert", "{url}: {alarm}");
        assert!(
            alarm["said"]
                .as_str()
                .unwrap()
                .starts_with("Verdict: failed."),
            "{url}: {alarm}"
        );
        let top = alarm["top"].as_i64().expect("a failures list");
        assert!(
            top < 900,
            "{url}: the failures list is at y={top}, below the first screen"
        );
        assert!(said(&f, "verdict-text").contains("rewrote what this browser checked"));
    }
}

/// A returning browser that keeps its cached `index.html` while the site moved on (GitHub Pages
/// sends `Cache-Control: max-age=600`): the site's checkpoint and STATS.json are newer than the
/// page's copies. When the site's tree extends the page's, the page says a newer publication
/// exists and links to it, on the log-size path and on the full check — never FAILED; when it
/// does not (another history under the old page), it still fails. Catches a page that calls
/// every difference from its own copy a failure, and one that calls every difference newer
/// (issue 46 item 1).
#[test]
fn an_honest_newer_publication_behind_a_cached_page_is_recognised() {
    let mut b = Box::new(65_536);
    b.add(300);
    b.build(1_800_000_000);
    let old_page = std::fs::read(b.site.join("index.html")).unwrap();
    b.add(40);
    b.build(1_800_100_000);
    let new_page = std::fs::read(b.site.join("index.html")).unwrap();
    std::fs::write(b.site.join("index.html"), &old_page).unwrap();
    let server = Server::start(&b.site);
    let axe = axe_core();
    for url in [server.url("index.html"), server.url(FULL)] {
        let f = visit(&url, None, &["--axe", axe.to_str().unwrap()]);
        assert_eq!(f["axe"], serde_json::json!([]), "{url}: axe-core");
        assert_eq!(
            f["verdict"]["data-verdict"], "newer",
            "{url}: {}",
            f["verdict"]
        );
        let dom = f["dom"].as_str().unwrap();
        assert!(!dom.contains("id=\"failures\""), "{url}: no failure listed");
        let link = tag(dom, "id=\"load-newer\"");
        assert!(attr(link, "href").contains("?published=340"), "{link}");
        assert!(said(&f, "verdict-text").contains("A newer publication of this exhibit exists"));
    }
    // The link loads the page the site now holds, whose own checks hold.
    std::fs::write(b.site.join("index.html"), &new_page).unwrap();
    let f = visit(&server.url("index.html?published=340"), None, &[]);
    assert_eq!(
        f["verdict"]["data-verdict"], "checkpoint",
        "{}",
        f["verdict"]
    );

    // Another history of the same origin, larger, under the cached page: not newer, failed.
    let mut other = Box::new(65_536);
    other.tweak = Some(7);
    other.add(340);
    other.build(1_800_100_000);
    std::fs::remove_dir_all(&b.site).unwrap();
    copy_tree(&other.site, &b.site);
    std::fs::write(b.site.join("index.html"), &old_page).unwrap();
    for url in [server.url("index.html"), server.url(FULL)] {
        let f = visit(&url, None, &[]);
        assert_eq!(
            f["verdict"]["data-verdict"], "failed",
            "{url}: {}",
            f["verdict"]
        );
    }
}

/// A returning visitor whose remembered segment changed by one byte on the site, the page's
/// list of files untouched: the remembered files are not fetched again, and the memory says
/// exactly that — never "found every remembered file unchanged" (issue 46 item 3). Catches a
/// monitor that reports a comparison of the page's own list as a check of the site's bytes.
#[test]
fn the_memory_says_what_this_visit_did_not_re_check() {
    let mut b = Box::new(4096);
    b.add(60);
    b.build(1_800_000_000);
    let files = b.files();
    let server = Server::start(&b.site);
    let profile = tempfile::tempdir().unwrap();
    visit(&server.url(FULL), Some(profile.path()), &[]);
    server.take();
    let victim = b.site.join(&files[1]);
    let mut bytes = std::fs::read(&victim).unwrap();
    let at = bytes
        .windows(10)
        .position(|w| w == b"\"scanned\":")
        .unwrap()
        + 10;
    bytes[at] = if bytes[at] == b'9' { b'8' } else { b'9' };
    std::fs::write(&victim, &bytes).unwrap();
    let f = visit(&server.url(FULL), Some(profile.path()), &[]);
    let hits = server.take();
    assert_eq!(hits.get(&files[1]), None, "not fetched again: {hits:?}");
    let dom = f["dom"].as_str().unwrap();
    let memory = text_of(dom, "monitor-text");
    assert!(!memory.contains("unchanged"), "{memory}");
    assert!(
        memory.contains("NOT re-checked") && memory.contains("not fetched again"),
        "{memory}"
    );
    let li = tag(dom, &format!("data-path=\"{}\"", files[1]));
    let at = dom.find(li).unwrap() + li.len();
    assert!(
        dom[at..at + 400].contains("not re-checked on this visit"),
        "{}",
        &dom[at..at + 400]
    );
}

/// What the first screen holds (docs/page.md "The first screen"): the words of every text node
/// drawn inside the viewport (a node partly inside counts whole), the paste box's place, the
/// verdict box's colours and what it says of independence. Waits for `#independent` to settle.
pub(crate) const FIRST_SCREEN: &str = "new Promise(function (resolve) {
  function measure() {
    var H = innerHeight, n = 0, seen = [], w = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT), t;
    while ((t = w.nextNode())) {
      var e = t.parentElement;
      if (!e || e.closest('script,style,.sr-only')) continue;
      var shut = false;
      for (var a = e; a; a = a.parentElement) {
        if (a.tagName !== 'DETAILS' || a.open) continue;
        var sm = e.closest('summary');
        if (!sm || sm.parentElement !== a) shut = true;
      }
      if (shut) continue;
      var r = document.createRange(); r.selectNodeContents(t);
      var rs = r.getClientRects(), vis = false;
      for (var i = 0; i < rs.length; i++) if (rs[i].top < H && rs[i].bottom > 0 && rs[i].right > 0 && rs[i].width > 0) vis = true;
      if (!vis) continue;
      var words = t.textContent.trim().split(/\\s+/).filter(function (x) { return /[A-Za-z0-9]/.test(x); });
      n += words.length; if (words.length) seen.push(words.join(' '));
    }
    var p = document.getElementById('paste').getBoundingClientRect(), ind = document.getElementById('independent');
    var v = getComputedStyle(document.getElementById('verdict'));
    return { words: n, text: seen.join(' | '), pasteTop: p.top, pasteBottom: p.bottom, height: H,
      border: v.borderTopColor, background: v.backgroundColor,
      independent: ind ? { state: ind.getAttribute('data-state'), text: ind.textContent, top: ind.getBoundingClientRect().top,
        block: ind.getAttribute('data-block'), root: ind.getAttribute('data-root'), through: ind.getAttribute('data-through') } : null };
  }
  var k = setInterval(function () {
    var ind = document.getElementById('independent');
    if (!ind || ind.getAttribute('data-state') !== 'working') { clearInterval(k); resolve(measure()); }
  }, 100);
})";

/// An OpenTimestamps proof of `post` whose one path (append `nonce`, sha256) ends in a Bitcoin
/// attestation at `height` (docs/anchoring.md), and the merkle root that block must carry, as
/// explorers show it (byte-reversed hex).
fn bitcoin_proof(post: &[u8], nonce: &[u8; 16], height: u64) -> (Vec<u8>, String) {
    use exhibit_protocol::ots;
    let digest = exhibit_protocol::Digest::of(post);
    let mut out = ots::MAGIC.to_vec();
    out.extend_from_slice(&[ots::VERSION, ots::OP_SHA256]);
    out.extend_from_slice(&digest.0);
    out.extend_from_slice(&[0xf0, 0x10]);
    out.extend_from_slice(nonce);
    out.push(0x08);
    out.push(0x00);
    out.extend_from_slice(&exhibit_testkit::gen_box::BITCOIN_TAG);
    let mut h = Vec::new();
    let mut n = height;
    loop {
        let b = (n & 0x7f) as u8;
        n >>= 7;
        if n == 0 {
            h.push(b);
            break;
        }
        h.push(b | 0x80);
    }
    out.push(h.len() as u8);
    out.extend_from_slice(&h);
    let mut msg = digest.0.to_vec();
    msg.extend_from_slice(nonce);
    let mut root = exhibit_protocol::Digest::of(&msg).0.to_vec();
    root.reverse();
    let root = root.iter().map(|b| format!("{b:02x}")).collect();
    (out, root)
}

/// Every post of the box stamped in Bitcoin: block 900000 + its index. Returns the date, height
/// and merkle root of the newest.
fn stamp_posts(b: &Box) -> (String, u64, String) {
    let dir = b.b.dir.join("gate/anchors");
    let mut posts: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "txt"))
        .collect();
    posts.sort();
    let mut newest = None;
    for (i, p) in posts.iter().enumerate() {
        let date = p.file_stem().unwrap().to_str().unwrap().to_string();
        let nonce: [u8; 16] = exhibit_protocol::Digest::of(date.as_bytes()).0[..16]
            .try_into()
            .unwrap();
        let height = 900_000 + i as u64;
        let (proof, root) = bitcoin_proof(&std::fs::read(p).unwrap(), &nonce, height);
        std::fs::write(p.with_extension("txt.ots"), proof).unwrap();
        newest = Some((date, height, root));
    }
    newest.expect("posts")
}

/// Issue 45 item 5 and issue 46 item 6: the first screen says what is independent. The honest
/// exhibit, each posted head stamped in Bitcoin, says "anchored outside the operator's reach"
/// through its newest post's day, by that block and the merkle root the block must carry
/// (evaluated here from the proof the site holds); the journalist's forgery — the operator
/// changed a line, re-chained, re-posted every head and rewrote the digest in each proof's
/// header — holds together exactly as well (the same verdict), but what it claims as
/// independent differs: the proofs now lead to another merkle root, which no block at that
/// height carries; a forgery with proofs not yet in Bitcoin says that nothing independent was
/// checked. Catches a first screen that says "anchored" from the header alone, or from the
/// operator's own files, and one that is the same for both.
#[test]
fn the_first_screen_says_what_is_anchored_outside_the_operators_reach() {
    let mut honest = Box::new(65_536);
    honest.add(300);
    let (date, height, root) = stamp_posts(&honest);
    honest.build(1_800_000_000);
    let server = Server::start(&honest.site);
    let mut said_honest = Vec::new();
    for url in [server.url("index.html"), server.url(FULL)] {
        let f = visit(&url, None, &["--eval", FIRST_SCREEN]);
        let x = &f["evalResult"];
        let ind = &x["independent"];
        assert_eq!(ind["state"], "anchored", "{url}: {x}");
        assert_eq!(ind["through"], date.as_str(), "{url}: {ind}");
        assert_eq!(ind["block"], height.to_string().as_str(), "{url}: {ind}");
        assert_eq!(ind["root"], root.as_str(), "{url}: {ind}");
        assert!(
            ind["top"].as_f64().unwrap() < x["height"].as_f64().unwrap(),
            "on the first screen: {x}"
        );
        assert!(
            ind["text"]
                .as_str()
                .unwrap()
                .contains("No witness cosignatures checked")
        );
        said_honest.push((
            f["verdict"]["data-verdict"].as_str().unwrap().to_string(),
            ind["text"].as_str().unwrap().to_string(),
        ));
    }

    // The forgery: another history (seq 7 changed, every later line re-chained), its heads
    // posted again, and each proof's header rewritten to commit to the new post, the rest of
    // the proof kept.
    let mut forged = Box::new(65_536);
    forged.tweak = Some(7);
    forged.add(300);
    let dir = forged.b.dir.join("gate/anchors");
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "txt") {
            let honest_proof = std::fs::read(
                honest
                    .b
                    .dir
                    .join("gate/anchors")
                    .join(p.file_name().unwrap())
                    .with_extension("txt.ots"),
            )
            .unwrap();
            let mut proof = honest_proof.clone();
            let digest = exhibit_protocol::Digest::of(&std::fs::read(&p).unwrap());
            let at = exhibit_protocol::ots::MAGIC.len() + 2;
            proof[at..at + 32].copy_from_slice(&digest.0);
            std::fs::write(p.with_extension("txt.ots"), proof).unwrap();
        }
    }
    forged.build(1_800_000_000);
    let server = Server::start(&forged.site);
    for (k, url) in [server.url("index.html"), server.url(FULL)]
        .iter()
        .enumerate()
    {
        let f = visit(url, None, &["--eval", FIRST_SCREEN]);
        let x = &f["evalResult"];
        let ind = &x["independent"];
        assert_eq!(
            f["verdict"]["data-verdict"].as_str().unwrap(),
            said_honest[k].0,
            "{url}: the forgery holds together as well as the record"
        );
        assert_eq!(ind["block"], height.to_string().as_str(), "{url}: {ind}");
        assert_ne!(ind["root"], root.as_str(), "{url}: another merkle root");
        assert_ne!(
            ind["text"].as_str().unwrap(),
            said_honest[k].1,
            "{url}: the first screen claims another anchor"
        );
    }
    // Proofs still pending (the forger cannot have them in a past block): nothing independent.
    let mut pending = Box::new(65_536);
    pending.tweak = Some(7);
    pending.add(300);
    pending.build(1_800_000_000);
    let server = Server::start(&pending.site);
    let f = visit(&server.url("index.html"), None, &["--eval", FIRST_SCREEN]);
    let ind = &f["evalResult"]["independent"];
    assert_eq!(ind["state"], "consistent", "{ind}");
    assert!(
        ind["text"]
            .as_str()
            .unwrap()
            .starts_with("Nothing independent checked"),
        "{ind}"
    );
}

/// Issue 46 item 6: the first screen answers "can I trust this, and how do I check a message"
/// in at most 120 words, with the paste box on it at 1280×800 and at 390×844, on an embedded
/// page (over http and from a file) and on a light page's log-size verdict; a healthy live
/// exhibit (no line withheld, lines after the last posted head awaiting tonight's) is not
/// amber and says "up to date through"; no caveat about withheld lines where none is
/// withheld; the publisher is named; the light page's list of files is closed; with
/// JavaScript off the badge never says it is checking. axe-core finds nothing in each state,
/// light and dark, wide and narrow. Catches the old first screen (347 words, the paste box
/// below the fold, amber for every live exhibit, "Checking…" without JavaScript).
#[test]
fn the_first_screen_answers_in_120_words_with_the_paste_box_on_it() {
    let mut healthy = Box::new(33_554_432);
    healthy.no_withheld = true;
    healthy.add(60);
    stamp_posts(&healthy);
    healthy.build(1_800_000_000);
    let mut light = Box::new(4096);
    light.add(60);
    light.build(1_800_000_000);
    let hs = Server::start(&healthy.site);
    let ls = Server::start(&light.site);
    let axe = axe_core();
    let amber = ["rgb(255, 246, 220)", "rgb(47, 38, 16)"];
    let file_page = healthy.site.join("index.html");
    let pages = [
        ("embedded over http", hs.url("index.html")),
        ("embedded from a file", file_page.display().to_string()),
        ("light, log size", ls.url("index.html")),
    ];
    for (what, url) in &pages {
        for (w, h) in [(1280, 800), (390, 844)] {
            for dark in [false, true] {
                let mut args = vec![
                    "--eval".to_string(),
                    FIRST_SCREEN.to_string(),
                    "--width".to_string(),
                    w.to_string(),
                    "--height".to_string(),
                    h.to_string(),
                    "--axe".to_string(),
                    axe.display().to_string(),
                ];
                if dark {
                    args.push("--dark".to_string());
                }
                let args: Vec<&str> = args.iter().map(String::as_str).collect();
                let f = visit(url, None, &args);
                let x = &f["evalResult"];
                let at = format!("{what} at {w}×{h}{}", if dark { " dark" } else { "" });
                assert_eq!(f["axe"], serde_json::json!([]), "axe-core, {at}");
                let words = x["words"].as_u64().unwrap();
                assert!(
                    words <= 120,
                    "{at}: {words} words on the first screen: {}",
                    x["text"]
                );
                assert!(
                    x["pasteTop"].as_f64().unwrap() + 40.0 < h as f64,
                    "{at}: the paste box is below the fold: {x}"
                );
                let first = x["text"].as_str().unwrap();
                assert!(
                    first.contains("published as"),
                    "{at}: the publisher is named: {first}"
                );
                if what.starts_with("embedded") {
                    let v = &f["verdict"];
                    assert_eq!(v["data-verdict"], "gaps", "{at}: {v}");
                    assert_eq!(v["data-tone"], "live", "{at}: {v}");
                    assert!(
                        !amber.contains(&x["background"].as_str().unwrap()),
                        "{at}: amber for a healthy live exhibit: {x}"
                    );
                    assert!(first.contains("up to date through"), "{at}: {first}");
                    let dom = f["dom"].as_str().unwrap();
                    assert!(
                        !dom.contains("class=\"if-withheld\""),
                        "{at}: withheld caveats with none withheld"
                    );
                } else {
                    let dom = f["dom"].as_str().unwrap();
                    assert!(
                        !tag(dom, "id=\"stream\"").contains("open"),
                        "{at}: the file list is closed"
                    );
                }
            }
        }
    }
    // JavaScript off: no "Checking…", a verdict that says nothing was checked.
    let f = visit(file_page.to_str().unwrap(), None, &["--no-js"]);
    let dom = f["dom"].as_str().unwrap();
    let badge = text_of(dom, "badge");
    assert!(!badge.contains("Checking"), "{badge}");
    assert!(dom.contains("JavaScript is off, so this page has checked nothing"));
}

/// A page that reads its records from the site carries the newest 64 posts and their proofs'
/// headers, not every post (docs/page.md#fetched-records): at a million lines every post
/// carried weighed 4.4 MB of page. Its full check reads every post the anchors' index names,
/// and its proof, from the site. Catches a page that still carries every post, a full check
/// that checks only the posts it carries (an old post rewritten on the site passed it), a CLI
/// that holds such a page to every post, and one that lets it carry an old post instead of a
/// new one.
#[test]
fn a_page_that_reads_its_records_carries_the_newest_posts_only() {
    let mut b = Box::light(4096);
    b.add(640);
    // Every post stamped: its proof's header is carried for the newest only.
    let (dates, mut rng) = b.stamp_every_post();
    b.build(1_800_000_000);
    let html = std::fs::read_to_string(b.site.join("index.html")).unwrap();
    let layout: J = serde_json::from_slice(&unb64(block(&html, "layout-json"))).unwrap();
    assert_eq!(layout["fetch"], true, "{layout}");
    let posts: J = serde_json::from_slice(&unb64(block(&html, "anchor-posts-json"))).unwrap();
    let carried: Vec<&String> = posts.as_object().unwrap().keys().collect();
    let newest: Vec<&String> = dates[dates.len() - 64..].iter().collect();
    assert_eq!(carried, newest);
    let (code, v) = verify_json(&b.site);
    assert_eq!(code, Some(0), "{v}");

    let server = Server::start(&b.site);
    let want = verdict(&visit(&server.url(FULL), None, &[]));
    assert!(
        !["failed", "needs-data", "working", ""].contains(&want.0.as_str()),
        "{want:?}"
    );
    let hits = server.take();
    for d in [&dates[0], &dates[dates.len() - 1]] {
        for f in [
            format!("ledger/anchors/{d}.txt"),
            format!("ledger/anchors/{d}.txt.ots"),
        ] {
            assert!(hits.contains_key(&f), "{f} read: {hits:?}");
        }
    }
    // From a host that gives byte ranges, a proof is read for its first 65 bytes and its
    // length only, and the verdict is the same. Catches a page that reads every proof whole, or
    // takes a range answer's part for the whole file (its length would differ from the
    // carried headers' and fail the newest posts).
    let ranged = Server::start_ranged(&b.site);
    assert_eq!(verdict(&visit(&ranged.url(FULL), None, &[])), want);
    let proofs: Vec<(String, u64)> = ranged
        .take_log()
        .into_iter()
        .filter(|(p, _)| p.starts_with("ledger/anchors/") && p.ends_with(".txt.ots"))
        .collect();
    let whole = std::fs::metadata(b.site.join(format!("ledger/anchors/{}.txt.ots", dates[0])))
        .unwrap()
        .len();
    assert!(whole > 65, "a proof of {whole} bytes");
    // Each day's proof once for its header; whole only where the page evaluates a proof for
    // its Bitcoin attestation, the newest ten at most ("Anchored outside", docs/page.md).
    let (headers, evaluated): (Vec<_>, Vec<_>) = proofs.iter().partition(|(_, n)| *n <= 65);
    let mut read: Vec<&String> = headers.iter().map(|(p, _)| p).collect();
    read.sort();
    read.dedup();
    assert_eq!(
        (read.len(), headers.len()),
        (dates.len(), dates.len()),
        "{proofs:?}"
    );
    let newest_ten: Vec<String> = dates[dates.len() - 10..]
        .iter()
        .map(|d| format!("ledger/anchors/{d}.txt.ots"))
        .collect();
    assert!(
        evaluated.iter().all(|(p, _)| newest_ten.contains(p)),
        "{evaluated:?}"
    );
    // A host that answers with a range the page did not ask for: the page reads the whole
    // proof instead, and says the same. Catches a page that takes any 206 for the header.
    let shifted = Server::start_ranged_wrongly(&b.site);
    assert_eq!(verdict(&visit(&shifted.url(FULL), None, &[])), want);
    let whole_reads = shifted
        .take_log()
        .into_iter()
        .filter(|(p, n)| p.ends_with(".txt.ots") && *n > 65)
        .count();
    assert!(whole_reads >= dates.len(), "{whole_reads} whole reads");

    // A page that carries an old post in place of the newest: both verifiers fail it.
    let mut swapped = posts.clone();
    let m = swapped.as_object_mut().unwrap();
    let newest_date = dates.last().unwrap().clone();
    m.remove(&newest_date);
    let old =
        std::fs::read_to_string(b.site.join(format!("ledger/anchors/{}.txt", dates[0]))).unwrap();
    m.insert(dates[0].clone(), J::String(old));
    let page = std::fs::read(b.site.join("index.html")).unwrap();
    crate::site_agreement::set_block(
        &b.site,
        "anchor-posts-json",
        &serde_json::to_vec(&swapped).unwrap(),
    );
    let (code, v) = verify_json(&b.site);
    assert_eq!(code, Some(1), "{v}");
    assert!(
        file_problems(&v)
            .iter()
            .any(|(_, c)| c == "page_copy_mismatch"),
        "{v}"
    );
    let f = visit(&server.url(FULL), None, &[]);
    assert_eq!(f["verdict"]["data-verdict"], "failed", "{}", f["verdict"]);
    std::fs::write(b.site.join("index.html"), page).unwrap();

    // An old post, which the page does not carry, rewritten on the site with its proof made
    // for the new text: the head it posts is not the chain's, and both verifiers say so.
    let path = b.site.join(format!("ledger/anchors/{}.txt", dates[1]));
    let text = std::fs::read_to_string(&path).unwrap();
    let at = text.find(" head ").unwrap() + 6;
    let flipped = if &text[at..at + 1] == "0" { "1" } else { "0" };
    let forged = format!("{}{flipped}{}", &text[..at], &text[at + 1..]);
    std::fs::write(&path, &forged).unwrap();
    std::fs::write(
        b.site.join(format!("ledger/anchors/{}.txt.ots", dates[1])),
        exhibit_testkit::gen_box::anchor_ots(forged.as_bytes(), &mut rng),
    )
    .unwrap();
    reseal_snapshot(&b.site);
    let (code, v) = verify_json(&b.site);
    assert_eq!(code, Some(1), "{v}");
    let f = visit(&server.url(FULL), None, &[]);
    assert_eq!(f["verdict"]["data-verdict"], "failed", "{}", f["verdict"]);
}

/// A light page's full check keeps the line records in its worker and asks it for what it
/// shows (docs/page.md#records-in-the-worker, issue 46 item 7): after the verdict the page's
/// own heap holds no record of a line it does not show (the old page copied every record to
/// it: at 100,000 lines 95 MB), its progress bar is never full while the verdict is working
/// (the old bar was full from the last ledger byte while the tree's files, as many bytes again,
/// were still being read), no task freezes the page (over 1 s; the 200 ms target is measured by
/// benches/full-check.sh on a quiet machine, docs/page.md#records-in-the-worker), the table and a paste are
/// answered from the worker, and axe-core finds nothing at 390 px, dark.
/// A task this long is a frozen page, whatever the machine is doing.
const FROZEN_MS: u64 = 1000;

#[test]
fn a_full_check_keeps_the_lines_in_its_worker() {
    let mut b = Box::new(65_536);
    b.sends = true;
    b.add(3000);
    b.build(1_800_000_000);
    assert!(b.files().len() > 10, "{:?}", b.files());
    let html = std::fs::read_to_string(b.site.join("index.html")).unwrap();
    // Seq 1501: past the table's first page (100 rows), no send, and not a posted head's.
    let id = b.w.ids[1500].clone();
    assert!(
        !html.contains(&id),
        "the page itself does not carry seq 1501's entry_id"
    );
    let (_, sent) = message(2505);
    let server = Server::start(&b.site);
    let probe = format!(
        r#"new Promise(function (resolve) {{
          var out = {{}}, t0 = Date.now();
          out.firstRows = document.querySelectorAll('#lines-body tr').length;
          out.firstSeq = document.querySelector('#lines-body tr').getAttribute('data-seq');
          document.getElementById('paste').value = {sent};
          document.getElementById('paste-go').click();
          (function paste() {{
            var r = document.getElementById('paste-result');
            if (!r.getAttribute('data-match') && Date.now() - t0 < 30000) {{ setTimeout(paste, 50); return; }}
            out.match = r.getAttribute('data-match'); out.seq = r.getAttribute('data-seq'); out.standing = r.getAttribute('data-standing');
            location.hash = '#line-2001';
            (function row() {{
              var tr = document.getElementById('line-2001');
              if (!tr && Date.now() - t0 < 30000) {{ setTimeout(row, 50); return; }}
              out.row = tr ? tr.textContent : null;
              out.count = document.getElementById('lines-count').textContent;
              (function anchors() {{
                var tb = document.getElementById('anchors-body');
                if (tb.getAttribute('data-rows') !== 'all' && Date.now() - t0 < 30000) {{ setTimeout(anchors, 50); return; }}
                out.anchorRows = tb.getAttribute('data-rows');
                out.anchorDates = Array.prototype.map.call(tb.querySelectorAll('tr'), function (r) {{ return r.getAttribute('data-date'); }});
                out.anchorsChecked = tb.querySelectorAll('tr > td.ok:nth-child(4)').length;
                out.anchorProofs = tb.querySelectorAll('td[data-proof]').length;
                resolve(out);
              }})();
            }})();
          }})();
        }})"#,
        sent = serde_json::to_string(&sent).unwrap()
    );
    let longest_task = |f: &serde_json::Value| {
        f["perf"]["longTasks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_u64().unwrap())
            .max()
            .unwrap_or(0)
    };
    let run = || {
        visit(
            &server.url(FULL),
            None,
            &["--heap-strings", &id, "--eval", &probe],
        )
    };
    // A task over the bound is measured again once. The bound is a frozen page, not the
    // 200 ms target: in this suite, on two shared cores, the neighbouring tests' browsers
    // stretched one task of a correct page to 600 ms; the target is benches/full-check.sh's.
    let mut f = run();
    if longest_task(&f) > FROZEN_MS {
        f = run();
    }
    let (v, vouched, head) = verdict(&f);
    assert!(v == "gaps" || v == "intact", "{v}");
    assert!(!vouched.is_empty() && !head.is_empty());
    let perf = &f["perf"];
    assert!(perf["watchError"].is_null(), "{perf}");
    assert_eq!(
        perf["fullWhileWorking"], false,
        "the progress bar was full before the verdict: {perf}"
    );
    assert!(perf["maxProgress"].as_f64().unwrap() > 0.5, "{perf}");
    let longest = longest_task(&f);
    assert!(
        longest <= FROZEN_MS,
        "a task blocked the page {longest} ms: {perf}"
    );
    assert_eq!(
        f["heap"]["holds"][&id], false,
        "the page's own heap holds seq 1501's record after the verdict: {}",
        f["heap"]
    );
    let e = &f["evalResult"];
    assert_eq!(e["firstRows"], 100, "{e}");
    assert_eq!(e["firstSeq"], "1", "{e}");
    assert_eq!(e["match"], "hash", "{e}");
    assert_eq!(e["seq"], "2505", "{e}");
    let row = e["row"].as_str().unwrap_or_default();
    assert!(row.starts_with("2001"), "{e}");
    assert!(
        e["count"]
            .as_str()
            .unwrap()
            .starts_with("Rows 2001–2100 of 3000; page 21 of 30."),
        "{e}"
    );
    // The posted heads' table is drawn 200 rows with the verdict and the rest after it, a chunk
    // a task (docs/page.md, the posted heads table): every posted day once, in date order, each
    // row made by the same function as the first 200 (a chunk skipped, drawn twice, or cut at
    // its boundary, or a table left at "first 200", fails here; 375 days, past the first 200).
    let posted: Vec<String> = {
        let mut d: Vec<String> = std::fs::read_dir(b.b.dir.join("gate/anchors"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter_map(|n| n.strip_suffix(".txt").map(str::to_string))
            .collect();
        d.sort();
        d
    };
    assert!(posted.len() > 300, "{} posted days", posted.len());
    assert_eq!(e["anchorRows"], "all", "{e}");
    let drawn: Vec<String> = e["anchorDates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_str().unwrap_or_default().to_string())
        .collect();
    assert_eq!(
        drawn, posted,
        "the table's rows are not the posted days, once each, in order"
    );
    assert_eq!(e["anchorProofs"], posted.len(), "{e}");
    // Every day's post checks out, those naming a withheld line (12, 28) by its listed digest.
    assert_eq!(e["anchorsChecked"], posted.len(), "{e}");

    let axe = axe_core();
    let narrow = visit(
        &server.url(FULL),
        None,
        &[
            "--axe",
            axe.to_str().unwrap(),
            "--width",
            "390",
            "--height",
            "844",
            "--dark",
        ],
    );
    assert_eq!(
        narrow["axe"],
        serde_json::json!([]),
        "axe-core at 390 px, dark"
    );
}

/// The row of the anchors table for a date, as text with its tags.
fn anchor_row(facts: &J, date: &str) -> String {
    let dom = facts["dom"].as_str().unwrap();
    let at = dom
        .find(&format!("id=\"anchor-{date}\""))
        .unwrap_or_else(|| panic!("no row for {date}"));
    dom[at..at + dom[at..].find("</tr>").unwrap()].to_string()
}

/// A page that reads its records from the site reads the posts while its ledger streams
/// (docs/page.md#fetched-records): the reader keeps the entry_ids at the seqs the anchors' index
/// names, and a post naming another seq is checked when it arrives — from the lines read so far
/// on this visit, or, on a returning visit that resumed past that seq from a state that did not
/// keep it, by reading the ledger again from its first line. A post the site rewrote, read after
/// every ledger file, still fails the verdict. Catches a page that checks a late post with the
/// entry_ids it happened to keep ("head absent": a failure `exhibit verify SITE` does not share),
/// one that resumes anyway, and one that gives its verdict before the last post is read.
#[test]
fn posts_read_while_the_ledger_streams_are_each_checked() {
    let mut b = Box::light(4096);
    b.add(640);
    b.build(1_800_000_000);
    let html = std::fs::read_to_string(b.site.join("index.html")).unwrap();
    let layout: J = serde_json::from_slice(&unb64(block(&html, "layout-json"))).unwrap();
    assert_eq!(layout["fetch"], true, "{layout}");
    let files = layout["files"].as_array().unwrap().clone();
    let anchors = b.site.join("ledger/anchors");
    let mut dates: Vec<String> = std::fs::read_dir(&anchors)
        .unwrap()
        .filter_map(|e| {
            let name = e.unwrap().file_name().into_string().unwrap();
            name.strip_suffix(".txt").map(str::to_string)
        })
        .collect();
    dates.sort();
    assert!(dates.len() > 64 + 3, "{} posted days", dates.len());
    let server = Server::start(&b.site);
    let profile = tempfile::tempdir().unwrap();
    let first = verdict(&visit(&server.url(FULL), Some(profile.path()), &[]));
    assert!(first.0 == "gaps" || first.0 == "intact", "{first:?}");

    // An old post (not carried) rewritten to name the next day's first line, with its entry_id:
    // a post that checks out, at a seq the index does not name (it still says the day's last).
    let d = &dates[1];
    let path = anchors.join(format!("{d}.txt"));
    let text = std::fs::read_to_string(&path).unwrap();
    let n: usize = text.rsplit(" seq ").next().unwrap().parse().unwrap();
    let n = n + 1;
    std::fs::write(
        &path,
        format!("gate anchor {d} head {} seq {n}", b.w.ids[n - 1]),
    )
    .unwrap();
    reseal_snapshot(&b.site);
    let (code, v) = verify_json(&b.site);
    assert_eq!(code, Some(0), "{v}");
    // Read once the reader has passed seq n: the ledger file after the one holding it is asked
    // for only when the reader is done with that one.
    let holding = files
        .iter()
        .position(|f| {
            f["first_seq"].as_u64() <= Some(n as u64) && Some(n as u64) <= f["last_seq"].as_u64()
        })
        .unwrap();
    let after = files[holding + 1]["path"].as_str().unwrap().to_string();
    let held = Server::start_holding(
        &b.site,
        Hold {
            path: format!("ledger/anchors/{d}.txt"),
            after,
            delay_ms: 0,
        },
    );
    let cold = visit(&held.url(FULL), None, &[]);
    let want = verdict(&cold);
    assert!(want.0 == "gaps" || want.0 == "intact", "{want:?}");
    let row = anchor_row(&cold, d);
    assert!(
        row.contains("head ok,") && row.contains(&format!(">{n}<")),
        "{row}"
    );
    // The returning visitor's remembered state kept no entry_id at seq n: the ledger is read
    // again (the monitor stores, not resumes), and the verdict is the cold visit's.
    let back = visit(&server.url(FULL), Some(profile.path()), &[]);
    assert_eq!(verdict(&back), want);
    let dom = back["dom"].as_str().unwrap();
    assert_eq!(attr(tag(dom, "id=\"monitor\""), "data-state"), "stored");
    assert!(anchor_row(&back, d).contains("head ok,"));

    // Another old post rewritten (its head one digit off), read a second and a half after the
    // reader was handed its last ledger file but one: failed, as `exhibit verify SITE` says.
    let t = &dates[3];
    let path = anchors.join(format!("{t}.txt"));
    let text = std::fs::read_to_string(&path).unwrap();
    let at = text.find(" head ").unwrap() + 6;
    let flipped = if &text[at..at + 1] == "0" { "1" } else { "0" };
    std::fs::write(
        &path,
        format!("{}{flipped}{}", &text[..at], &text[at + 1..]),
    )
    .unwrap();
    reseal_snapshot(&b.site);
    let (code, v) = verify_json(&b.site);
    assert_eq!(code, Some(1), "{v}");
    let late = Server::start_holding(
        &b.site,
        Hold {
            path: format!("ledger/anchors/{t}.txt"),
            after: files[files.len() - 2]["path"].as_str().unwrap().to_string(),
            delay_ms: 1500,
        },
    );
    let f = visit(&late.url(FULL), None, &[]);
    assert_eq!(f["verdict"]["data-verdict"], "failed", "{}", f["verdict"]);
    assert!(anchor_row(&f, t).contains("FAILS"), "{}", anchor_row(&f, t));
}

/// A returning visitor's full check reads only the posts it has not read before
/// (docs/page.md "The monitor"): the posts it read, in the exact form the anchors' index spells
/// and with a proof whose header commits to them, are taken from what this browser remembers
/// while today's index spells each as it was read — those the page carries too, while its copy
/// is the one read — and the page says they were not fetched again; every other post is read.
/// Catches a returning visit that reads every post again (its verdict waited on 1,833 days'
/// files at 100,000 lines, then on the 64 carried ones' 128), one that takes a remembered post
/// whose index entry changed (a forged post and index passed it), one that takes a carried post
/// from memory when the page carries another copy, and one that says nothing of what it did not
/// read.
#[test]
fn a_returning_visit_reads_only_the_posts_it_has_not_read() {
    let mut b = Box::light(4096);
    b.add(640);
    let (dates, mut rng) = b.stamp_every_post();
    b.build(1_800_000_000);
    let server = Server::start(&b.site);
    let profile = tempfile::tempdir().unwrap();
    let posts_read = |server: &Server| -> Vec<String> {
        server
            .take()
            .into_keys()
            .filter(|p| p.starts_with("ledger/anchors/20"))
            .collect()
    };
    let cold = visit(&server.url(FULL), Some(profile.path()), &[]);
    let want = verdict(&cold);
    assert!(want.0 == "gaps" || want.0 == "intact", "{want:?}");
    assert_eq!(posts_read(&server).len(), 2 * dates.len());
    let back = visit(&server.url(FULL), Some(profile.path()), &[]);
    assert_eq!(verdict(&back), want);
    // Every post was read before, the newest 64 (which the page carries) too, and the page's
    // copies are the ones read then: none is read again. (The verdict's line on what is anchored
    // outside the box reads the newest proofs in full after the verdict: ANCHOR_TRIES, 10.)
    let newest_ten = |read: &[String]| {
        read.iter().all(|p| {
            dates[dates.len() - 10..]
                .iter()
                .any(|d| *p == format!("ledger/anchors/{d}.txt.ots"))
        })
    };
    let read = posts_read(&server);
    assert!(newest_ten(&read), "no post read: {read:?}");
    let dom = back["dom"].as_str().unwrap();
    let said = text_of(dom, "posts-remembered");
    assert!(
        said.starts_with(&format!(
            "NOT fetched again: the posts of {} days up to {} and their proofs' headers, which this browser read on an earlier visit (the 64 of them this page carries among them",
            dates.len(),
            dates[dates.len() - 1]
        )),
        "{said}"
    );

    // The newest post's proof upgraded since (another length; the page carries the new one): the
    // page's copy is not the one read, so that post is read again and its copy held to it.
    // Catches a page that takes a carried post from memory whatever the page now carries.
    let newest = &dates[dates.len() - 1];
    let post = std::fs::read(b.b.dir.join(format!("gate/anchors/{newest}.txt"))).unwrap();
    let (upgraded, _) = bitcoin_proof(&post, &[7; 16], 840_000);
    std::fs::write(
        b.b.dir.join(format!("gate/anchors/{newest}.txt.ots")),
        &upgraded,
    )
    .unwrap();
    b.build(1_800_050_000);
    let again = visit(&server.url(FULL), Some(profile.path()), &[]);
    let read = posts_read(&server);
    let (texts, proofs): (Vec<String>, Vec<String>) =
        read.into_iter().partition(|p| p.ends_with(".txt"));
    assert_eq!(texts, vec![format!("ledger/anchors/{newest}.txt")]);
    assert!(
        proofs.contains(&format!("ledger/anchors/{newest}.txt.ots")) && newest_ten(&proofs),
        "{proofs:?}"
    );
    assert_eq!(
        verdict(&again),
        verdict(&visit(&server.url(FULL), None, &[]))
    );
    assert_eq!(verdict(&again).0, want.0);
    server.take();

    // An old post and its index entry rewritten (the head one digit off, a proof made for the
    // new text): the index no longer spells the remembered post, every post is read, and the
    // verdict fails, as `exhibit verify SITE` says.
    let d = &dates[2];
    let path = b.site.join(format!("ledger/anchors/{d}.txt"));
    let text = std::fs::read_to_string(&path).unwrap();
    let at = text.find(" head ").unwrap() + 6;
    let flipped = if &text[at..at + 1] == "0" { "1" } else { "0" };
    let forged = format!("{}{flipped}{}", &text[..at], &text[at + 1..]);
    std::fs::write(&path, &forged).unwrap();
    std::fs::write(
        b.site.join(format!("ledger/anchors/{d}.txt.ots")),
        exhibit_testkit::gen_box::anchor_ots(forged.as_bytes(), &mut rng),
    )
    .unwrap();
    let index_path = b.site.join("ledger/anchors/index.json");
    let mut index: J = serde_json::from_slice(&std::fs::read(&index_path).unwrap()).unwrap();
    let entry = index["posts"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|p| p["date"] == d.as_str())
        .unwrap();
    entry["head"] = J::String(forged[at..at + 64].to_string());
    std::fs::write(&index_path, serde_json::to_vec_pretty(&index).unwrap()).unwrap();
    reseal_snapshot(&b.site);
    let (code, v) = verify_json(&b.site);
    assert_eq!(code, Some(1), "{v}");
    let forged_visit = visit(&server.url(FULL), Some(profile.path()), &[]);
    assert_eq!(
        forged_visit["verdict"]["data-verdict"], "failed",
        "{}",
        forged_visit["verdict"]
    );
    assert!(posts_read(&server).contains(&format!("ledger/anchors/{}.txt", dates[0])));
}

/// The ledger's files as the page lists them (`layout-json`): path, bytes and lines.
fn listed(site: &Path) -> Vec<(String, usize, usize)> {
    let html = std::fs::read_to_string(site.join("index.html")).unwrap();
    let layout: J = serde_json::from_slice(&unb64(block(&html, "layout-json"))).unwrap();
    layout["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let n = |k: &str| usize::try_from(f[k].as_u64().unwrap()).unwrap();
            (
                f["path"].as_str().unwrap().to_string(),
                n("bytes"),
                n("lines"),
            )
        })
        .collect()
}

/// `path`'s bytes replaced on the site and in every list of it, as a forced push would leave
/// them: the page's `layout-json` (and its copy of STATS.json when it carries one), STATS.json
/// and the last snapshot.
fn relist(site: &Path, path: &str, bytes: &[u8]) {
    std::fs::write(site.join(path), bytes).unwrap();
    let sha = J::String(exhibit_protocol::Digest::of(bytes).to_string());
    let size = J::from(bytes.len());
    let relisted = |files: &mut J| {
        for f in files.as_array_mut().unwrap() {
            if f["path"] == path {
                f["sha256"] = sha.clone();
                f["bytes"] = size.clone();
            }
        }
    };
    let index = site.join("index.html");
    let mut html = std::fs::read_to_string(&index).unwrap();
    let b64 = block(&html, "layout-json").to_string();
    let mut layout: J = serde_json::from_slice(&unb64(&b64)).unwrap();
    relisted(&mut layout["files"]);
    let enc = |v: &J| exhibit::published::encode::base64(&serde_json::to_vec(v).unwrap());
    html = html.replacen(&b64, &enc(&layout), 1);
    let stats_path = site.join("ledger/STATS.json");
    let mut stats: J = serde_json::from_slice(&std::fs::read(&stats_path).unwrap()).unwrap();
    relisted(&mut stats["ledger"]["files"]);
    let stats_bytes = serde_json::to_vec_pretty(&stats).unwrap();
    std::fs::write(&stats_path, &stats_bytes).unwrap();
    if crate::common::page_blocks(&html).contains_key("stats-json") {
        let old = block(&html, "stats-json").to_string();
        html = html.replacen(&old, &exhibit::published::encode::base64(&stats_bytes), 1);
    }
    std::fs::write(&index, html).unwrap();
    reseal_snapshot(site);
}

/// A returning visitor whose last ledger file grew since (docs/page.md "The monitor"): the page
/// resumes inside it, from the reader's state at the end of the last line it read, holds the
/// bytes it read then to the sha256 it remembers, and re-derives only the lines after them (and
/// the files after it), to the verdict a first visitor gets; unchanged, it re-derives none. The
/// file's `data-derived-lines` counts them. Catches a page that re-derives the whole last file
/// (the count is its every line), one that skips the new lines or reads the old ones again as
/// new (another head, or a broken chain), and one that resumes after the last remembered file.
#[test]
fn a_returning_visit_re_derives_only_the_lines_it_has_not_read() {
    let mut b = Box::light(4096);
    b.add(60);
    b.build(1_800_000_000);
    let server = Server::start(&b.site);
    let profile = tempfile::tempdir().unwrap();
    let want = verdict(&visit(&server.url(FULL), Some(profile.path()), &[]));
    assert!(want.0 == "gaps" || want.0 == "intact", "{want:?}");
    let before = listed(&b.site);
    let (tail, tail_bytes, tail_lines) = before.last().cloned().unwrap();
    server.take();
    let derived = |facts: &J, path: &str| -> (usize, usize) {
        let li = tag(
            facts["dom"].as_str().unwrap(),
            &format!("data-path=\"{path}\""),
        );
        let n = |k: &str| attr(li, k).parse::<usize>().unwrap();
        (n("data-derived-lines"), n("data-resumed-lines"))
    };

    // Nothing new: the last file is fetched and held to the list; none of its lines re-derived.
    let same = visit(&server.url(FULL), Some(profile.path()), &[]);
    assert_eq!(verdict(&same), want);
    let dom = same["dom"].as_str().unwrap();
    assert_eq!(attr(tag(dom, "id=\"monitor\""), "data-state"), "resumed");
    assert_eq!(derived(&same, &tail), (0, tail_lines));
    let hits = server.take();
    assert_eq!(hits.get(&tail), Some(&1), "{hits:?}");
    for (p, _, _) in &before[..before.len() - 1] {
        assert_eq!(hits.get(p), None, "{p} is full and remembered: {hits:?}");
    }
    let memory = text_of(dom, "monitor-text");
    assert!(
        memory.contains(&format!(
            "{tail}, fetched and held to the size and sha256 the list names"
        )) && memory.contains("so only the 0 lines after them were re-derived"),
        "{memory}"
    );

    // Twenty lines later: the last file grew.
    b.add(20);
    b.build(1_800_100_000);
    let after = listed(&b.site);
    let at = after.iter().position(|f| f.0 == tail).unwrap();
    assert!(after[at].1 > tail_bytes, "{tail} grew: {after:?}");
    let back = visit(&server.url(FULL), Some(profile.path()), &[]);
    let fresh = visit(&server.url(FULL), None, &[]);
    assert_eq!(
        verdict(&back),
        verdict(&fresh),
        "the verdict a first visitor gets"
    );
    assert_eq!(verdict(&back).2, verify_head(&b.site));
    assert_eq!(derived(&back, &tail).1, tail_lines);
    let lines: usize = after[at..].iter().map(|f| derived(&back, &f.0).0).sum();
    assert_eq!(lines, 20, "each new line re-derived once, and no other");
}

/// One byte changed in the part of the last ledger file this browser re-derived on an earlier
/// visit, the file grown since and every list naming its new bytes (a forced push): the page
/// holds that part to the sha256 it remembers and says REWRITTEN, naming the file and its first
/// bytes — the headline failure, `data-failed="history"`, the status an alert (docs/page.md "The
/// monitor"). A first visitor is failed on the broken chain, not on a rewrite. Catches a page that
/// trusts the remembered part without hashing it, and one that re-derives the file and says only
/// that the chain is broken, never that what this browser checked changed.
#[test]
fn a_changed_byte_in_the_remembered_part_of_the_last_file_is_the_headline_failure() {
    let mut b = Box::light(4096);
    b.add(60);
    b.build(1_800_000_000);
    let server = Server::start(&b.site);
    let profile = tempfile::tempdir().unwrap();
    let first = verdict(&visit(&server.url(FULL), Some(profile.path()), &[])).0;
    assert!(first == "gaps" || first == "intact", "{first}");
    let (tail, tail_bytes, _) = listed(&b.site).last().cloned().unwrap();
    b.add(20);
    b.build(1_800_100_000);
    let mut bytes = std::fs::read(b.site.join(&tail)).unwrap();
    assert!(bytes.len() > tail_bytes, "{tail} grew");
    let at = bytes
        .windows(10)
        .position(|w| w == b"\"scanned\":")
        .unwrap()
        + 10;
    assert!(at < tail_bytes, "the byte is in the remembered part");
    bytes[at] = if bytes[at] == b'9' { b'8' } else { b'9' };
    relist(&b.site, &tail, &bytes);

    let f = visit(&server.url(FULL), Some(profile.path()), &["--eval", ALARM]);
    assert_eq!(f["verdict"]["data-verdict"], "failed", "{}", f["verdict"]);
    assert_eq!(f["verdict"]["data-failed"], "history", "{}", f["verdict"]);
    let dom = f["dom"].as_str().unwrap();
    assert_eq!(attr(tag(dom, "id=\"monitor\""), "data-state"), "rewritten");
    let said_memory = text_of(dom, "monitor-text");
    assert!(
        said_memory.contains("REWRITTEN")
            && said_memory.contains(&format!(
                "{tail}: its first {tail_bytes} bytes, which this browser re-derived on an earlier visit, changed"
            )),
        "{said_memory}"
    );
    assert!(
        failures_of(&f).contains(&format!("earlier visit was rewritten: {tail}")),
        "{}",
        failures_of(&f)
    );
    assert!(said(&f, "verdict-text").contains("rewrote what this browser checked"));
    assert_eq!(f["evalResult"]["role"], "alert", "{}", f["evalResult"]);

    let fresh = visit(&server.url(FULL), None, &[]);
    assert_eq!(fresh["verdict"]["data-verdict"], "failed");
    assert_ne!(fresh["verdict"]["data-failed"], "history");
}
