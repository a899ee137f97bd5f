//! The operator's day, second pass (issue 47): a build that cannot be pointed at the wrong
//! folder, sticky settings in exhibit.toml, a review a person can approve, a local preview
//! (docs/operator.md).

use crate::common;

use std::path::Path;
use std::process::{Command, Output};

use common::*;

/// Runs exhibit in `dir`.
fn exhibit_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_exhibit"))
        .args(args)
        .current_dir(dir)
        .env("SOURCE_DATE_EPOCH", "1790000000")
        .env_remove("CI")
        .output()
        .expect("run exhibit")
}

fn ten_lines(b: &TestBox) -> LedgerWriter {
    let mut w = LedgerWriter::new();
    for n in 1..=10 {
        w.push_scan(n);
    }
    b.write_ledger(&w.bytes());
    w
}

fn json_of(o: &Output) -> serde_json::Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(o)))
}

// ---------------------------------------------------------------------------------------------
// 2. a build that cannot be pointed wrong

/// `[publish] out` is relative to exhibit.toml, wherever the build runs from. Catches an `out`
/// read relative to the current folder, or no `out` key at all (refused as unknown today).
#[test]
fn the_out_key_is_relative_to_the_file_not_the_current_folder() {
    let tmp = tempfile::tempdir().unwrap();
    let b = TestBox::new(tmp.path());
    ten_lines(&b);
    let config = b.dir.join("exhibit.toml");
    let mut toml = std::fs::read_to_string(&config).unwrap();
    toml.push_str("\n[publish]\nout = \"../exhibit/docs\"\n");
    std::fs::write(&config, toml).unwrap();
    std::fs::create_dir_all(tmp.path().join("exhibit")).unwrap();
    let elsewhere = tmp.path().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let o = exhibit_in(&elsewhere, &["build", "--config", &b.config()]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(tmp.path().join("exhibit/docs/index.html").is_file());
    assert!(!elsewhere.join("exhibit").exists() && !elsewhere.join("docs").exists());
    // Neither --out nor the key: a usage error naming both.
    std::fs::write(
        &config,
        "[gate]\nledger = \"gate/ledger.jsonl\"\nanchors = \"gate/anchors\"\n",
    )
    .unwrap();
    let o = exhibit_in(&elsewhere, &["build", "--config", &b.config()]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("--out") && err.contains("[publish] out"),
        "{err}"
    );
}

/// A mistyped `--out` whose parent is missing is refused and nothing is created. Catches a
/// `create_dir_all` of DIR's parents.
#[test]
fn a_missing_parent_folder_of_out_is_refused_and_nothing_created() {
    let tmp = tempfile::tempdir().unwrap();
    let b = TestBox::new(tmp.path());
    ten_lines(&b);
    let out = tmp.path().join("nonexistent/x/docs");
    let o = exhibit(
        &[
            "build",
            "--config",
            &b.config(),
            "--out",
            out.to_str().unwrap(),
        ],
        1_790_000_000,
    );
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("parent folder"),
        "{}",
        text(&o)
    );
    assert!(!tmp.path().join("nonexistent").exists());
}

/// Outside any git repository a build claims no history: a second build over the same folder
/// says it is a first publication, never "extends the last". Catches the claim made from the
/// snapshot's `extends` alone.
#[test]
fn outside_git_a_build_claims_no_history() {
    let tmp = tempfile::tempdir().unwrap();
    let b = TestBox::new(tmp.path());
    ten_lines(&b);
    let out = tmp.path().join("site").display().to_string();
    for round in 0..2 {
        let o = exhibit(
            &["build", "--config", &b.config(), "--out", &out],
            1_790_000_000 + round,
        );
        assert_eq!(o.status.code(), Some(0), "{}", text(&o));
        let said = String::from_utf8_lossy(&o.stdout);
        assert!(!said.contains("extends the last"), "{said}");
        assert!(
            said.contains("FIRST PUBLICATION, outside any git repository"),
            "{said}"
        );
    }
    let o = exhibit(
        &["build", "--json", "--config", &b.config(), "--out", &out],
        1_790_000_002,
    );
    let v = json_of(&o);
    assert_eq!(
        (&v["first_publication"], &v["in_git"]),
        (&true.into(), &false.into())
    );
}

/// A box published into `exhibit/site` and committed, then built into another folder of the same
/// repository (run from the wrong folder) is refused, dry run included, until
/// `--first-publication`; and the same folder emptied (a lost branch) is refused too. Catches a
/// first publication planned without a word.
#[test]
fn a_first_publication_where_this_repository_has_one_is_refused_without_the_flag() {
    let tmp = tempfile::tempdir().unwrap();
    let b = TestBox::new(tmp.path());
    ten_lines(&b);
    let repo = git2::Repository::init(tmp.path().join("exhibit")).unwrap();
    let site = tmp.path().join("exhibit/site").display().to_string();
    let o = exhibit(
        &["build", "--config", &b.config(), "--out", &site],
        1_790_000_000,
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("FIRST PUBLICATION"));
    commit_all(&repo, "first publication");
    let wrong = tmp.path().join("exhibit/site/site").display().to_string();
    let wrong2 = tmp.path().join("exhibit/docs").display().to_string();
    let config = b.config();
    for out in [&wrong, &wrong2] {
        for extra in [&[][..], &["--dry-run"][..], &["--json"][..]] {
            let mut args = vec!["build", "--config", &config, "--out", out];
            args.extend(extra);
            let o = exhibit(&args, 1_790_100_000);
            assert_eq!(o.status.code(), Some(1), "{extra:?} {}", text(&o));
            let err = String::from_utf8_lossy(&o.stderr);
            assert!(
                err.contains("first_publication_over_record")
                    && err.contains("--first-publication"),
                "{err}"
            );
            if extra == ["--json"] {
                assert_eq!(
                    json_of(&o)["refusals"][0]["code"],
                    "first_publication_over_record"
                );
            }
        }
    }
    assert!(
        !Path::new(&wrong2).exists(),
        "a refused build writes nothing"
    );
    let o = exhibit(
        &[
            "build",
            "--config",
            &b.config(),
            "--out",
            &wrong2,
            "--first-publication",
        ],
        1_790_100_000,
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    // The published folder itself, emptied while HEAD no longer holds it.
    std::fs::remove_dir_all(&site).unwrap();
    commit_all(&repo, "the exhibit removed");
    let o = exhibit(
        &["build", "--config", &b.config(), "--out", &site],
        1_790_200_000,
    );
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(String::from_utf8_lossy(&o.stderr).contains("HEAD holds none in it now"));
    // Building the same folder again before committing stays allowed (DIR holds the exhibit).
    let fresh = tmp.path().join("exhibit2");
    let repo2 = git2::Repository::init(&fresh).unwrap();
    let site2 = fresh.join("site").display().to_string();
    for round in 0..2 {
        let o = exhibit(
            &["build", "--config", &b.config(), "--out", &site2],
            1_790_000_000 + round,
        );
        assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    }
    let _ = repo2;
}

// ---------------------------------------------------------------------------------------------
// 5. exhibit serve

/// The server, stopped when dropped (it is this test's own child process).
struct Served {
    child: std::process::Child,
    addr: String,
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn serve(dir: &Path, extra: &[&str]) -> Served {
    serve_with(dir, extra, &[])
}

/// `exhibit serve` with its test limits (`EXHIBIT_TEST_SERVE_IDLE_MS`,
/// `EXHIBIT_TEST_SERVE_CONNECTIONS`; docs/operator.md#serve) set in its environment.
fn serve_with(dir: &Path, extra: &[&str], env: &[(&str, &str)]) -> Served {
    use std::io::BufRead;
    let mut child = Command::new(env!("CARGO_BIN_EXE_exhibit"))
        .args(["serve", dir.to_str().unwrap(), "--address", "127.0.0.1:0"])
        .args(extra)
        .envs(env.iter().copied())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let addr = line
        .trim()
        .rsplit_once("http://")
        .map(|(_, a)| a.trim_end_matches('/').to_string())
        .unwrap_or_else(|| panic!("no address in {line:?}"));
    Served { child, addr }
}

/// One HTTP/1.1 request over TCP on a connection of its own (`Connection: close`, read to its
/// end); the status, the headers (lower-cased names) and the body.
fn get(
    addr: &str,
    method: &str,
    target: &str,
    headers: &[&str],
) -> (u16, Vec<(String, String)>, Vec<u8>) {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(std::time::Duration::from_secs(10)))
        .unwrap();
    let mut req = format!("{method} {target} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
    for h in headers {
        req.push_str(h);
        req.push_str("\r\n");
    }
    req.push_str("\r\n");
    s.write_all(req.as_bytes()).unwrap();
    let mut bytes = Vec::new();
    s.read_to_end(&mut bytes).unwrap();
    let split = bytes
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a head");
    let head = String::from_utf8(bytes[..split].to_vec()).unwrap();
    let body = bytes[split + 4..].to_vec();
    let mut lines = head.split("\r\n");
    let status: u16 = lines
        .next()
        .unwrap()
        .split(' ')
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    (status, headers, body)
}

fn header<'h>(h: &'h [(String, String)], name: &str) -> Option<&'h str> {
    h.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
}

/// A ten-line exhibit built into `tmp/site`.
fn ten_line_site(tmp: &Path) -> std::path::PathBuf {
    let b = TestBox::new(tmp);
    ten_lines(&b);
    let site = tmp.join("site");
    let o = exhibit(
        &[
            "build",
            "--config",
            &b.config(),
            "--out",
            site.to_str().unwrap(),
        ],
        1_790_000_000,
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    site
}

/// A built exhibit served over TCP with Pages' headers, byte ranges, no listing and nothing
/// outside DIR. Catches: a server on every interface, a wrong content type or cache lifetime, a
/// Range ignored or an unsatisfiable one answered 200, a folder listed, `..` (plain or encoded)
/// or a link leading out served.
#[test]
fn serve_answers_as_pages_does_and_never_outside_dir() {
    let tmp = tempfile::tempdir().unwrap();
    let site = ten_line_site(tmp.path());
    std::fs::write(tmp.path().join("secret.txt"), "private").unwrap();
    std::os::unix::fs::symlink(tmp.path().join("secret.txt"), site.join("leak.txt")).unwrap();
    std::os::unix::fs::symlink(tmp.path(), site.join("up")).unwrap();
    let s = serve(&site, &[]);
    assert!(s.addr.starts_with("127.0.0.1:"), "{}", s.addr);

    let (status, h, body) = get(&s.addr, "GET", "/", &[]);
    assert_eq!(status, 200);
    assert_eq!(header(&h, "content-type"), Some("text/html; charset=utf-8"));
    assert_eq!(header(&h, "cache-control"), Some("max-age=600"));
    assert_eq!(body, std::fs::read(site.join("index.html")).unwrap());
    let ledger = std::fs::read(site.join("ledger/ledger.jsonl")).unwrap();
    let (status, h, body) = get(&s.addr, "GET", "/ledger/STATS.json", &[]);
    assert_eq!(
        (status, header(&h, "content-type")),
        (200, Some("application/json; charset=utf-8"))
    );
    assert!(!body.is_empty());
    // Byte ranges: 206 with Content-Range, a suffix, and 416 past the end.
    let (status, h, body) = get(
        &s.addr,
        "GET",
        "/ledger/ledger.jsonl",
        &["Range: bytes=0-9"],
    );
    assert_eq!(status, 206);
    assert_eq!(body, &ledger[..10]);
    assert_eq!(
        header(&h, "content-range").map(str::to_string),
        Some(format!("bytes 0-9/{}", ledger.len()))
    );
    let (status, _, body) = get(&s.addr, "GET", "/ledger/ledger.jsonl", &["Range: bytes=-5"]);
    assert_eq!(
        (status, body.as_slice()),
        (206, &ledger[ledger.len() - 5..])
    );
    let past = format!("Range: bytes={}-", ledger.len());
    let (status, h, _) = get(&s.addr, "GET", "/ledger/ledger.jsonl", &[&past]);
    assert_eq!(status, 416);
    assert_eq!(
        header(&h, "content-range").map(str::to_string),
        Some(format!("bytes */{}", ledger.len()))
    );
    // HEAD: the headers, no body.
    let (status, h, body) = get(&s.addr, "HEAD", "/ledger/ledger.jsonl", &[]);
    assert_eq!((status, body.len()), (200, 0));
    assert_eq!(
        header(&h, "content-length").map(str::to_string),
        Some(ledger.len().to_string())
    );
    // A folder: redirected to its `/`, then no listing.
    let (status, h, _) = get(&s.addr, "GET", "/ledger", &[]);
    assert_eq!((status, header(&h, "location")), (301, Some("/ledger/")));
    let (status, _, body) = get(&s.addr, "GET", "/ledger/", &[]);
    assert_eq!(status, 404);
    assert!(!String::from_utf8_lossy(&body).contains("STATS.json"));
    // Never outside DIR.
    for target in [
        "/../secret.txt",
        "/%2e%2e/secret.txt",
        "/ledger/%2E%2E/%2e%2e/secret.txt",
        "/%2e%2e%2fsecret.txt",
        "/leak.txt",
        "/up/secret.txt",
        "/up/",
    ] {
        let (status, _, body) = get(&s.addr, "GET", target, &[]);
        assert!(matches!(status, 403 | 404), "{target}: {status}");
        assert!(
            !String::from_utf8_lossy(&body).contains("private"),
            "{target}"
        );
    }
    let (status, _, _) = get(&s.addr, "POST", "/", &[]);
    assert_eq!(status, 405);
}

type Reader = std::io::BufReader<std::net::TcpStream>;

/// A connection of the tests' own, kept open: the writing half and the reading half, every read
/// bounded by 20 s so that a server that never answers or never closes fails the test (no timing
/// is asserted: the test limits below are far from it).
fn connect(addr: &str) -> (std::net::TcpStream, Reader) {
    let s = std::net::TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(std::time::Duration::from_secs(20)))
        .unwrap();
    (s.try_clone().unwrap(), std::io::BufReader::new(s))
}

fn send(w: &mut std::net::TcpStream, text: &str) {
    use std::io::Write;
    w.write_all(text.as_bytes()).unwrap();
}

/// One response off a kept connection, its body as long as its Content-Length says (none for a
/// HEAD): the status, the headers (lower-cased names) and the body.
fn response(r: &mut Reader, head: bool) -> (u16, Vec<(String, String)>, Vec<u8>) {
    use std::io::{BufRead, Read};
    let mut lines = Vec::new();
    loop {
        let mut line = String::new();
        let n = r.read_line(&mut line).expect("a response, not a timeout");
        assert!(n > 0, "the connection closed before a response");
        if line.trim_end().is_empty() {
            break;
        }
        lines.push(line.trim_end().to_string());
    }
    let status = lines[0].split(' ').nth(1).unwrap().parse().unwrap();
    let headers: Vec<(String, String)> = lines[1..]
        .iter()
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let len: usize = header(&headers, "content-length")
        .expect("a Content-Length on a kept connection")
        .parse()
        .unwrap();
    let mut body = vec![0; if head { 0 } else { len }];
    r.read_exact(&mut body).unwrap();
    (status, headers, body)
}

/// The server closed the connection: the next read ends (or is reset) with nothing more sent.
fn closed(r: &mut Reader) -> bool {
    use std::io::Read;
    let mut byte = [0u8; 1];
    match r.read(&mut byte) {
        Ok(0) => true,
        Err(e) => e.kind() == std::io::ErrorKind::ConnectionReset,
        Ok(_) => false,
    }
}

fn request(target: &str, extra: &str) -> String {
    format!("GET {target} HTTP/1.1\r\nHost: exhibit\r\n{extra}\r\n")
}

/// Several requests on one connection, answered in order with the right bodies, as Pages keeps
/// connections alive; pipelined requests too; `Connection: close` closes after its answer.
/// Catches: one response a connection (the old server), a HEAD or an error that sends more or
/// fewer bytes than its Content-Length (the next response misread), pipelined bytes lost between
/// requests, and a client's `Connection: close` ignored (the idle time here is a minute).
#[test]
fn serve_keeps_a_connection_alive_as_pages_does() {
    let tmp = tempfile::tempdir().unwrap();
    let site = ten_line_site(tmp.path());
    let index = std::fs::read(site.join("index.html")).unwrap();
    let ledger = std::fs::read(site.join("ledger/ledger.jsonl")).unwrap();
    let stats = std::fs::read(site.join("ledger/STATS.json")).unwrap();
    let s = serve_with(&site, &[], &[("EXHIBIT_TEST_SERVE_IDLE_MS", "60000")]);
    let (mut w, mut r) = connect(&s.addr);
    send(&mut w, &request("/index.html", ""));
    let (status, h, body) = response(&mut r, false);
    assert_eq!((status, body), (200, index));
    assert_eq!(header(&h, "connection"), Some("keep-alive"));
    send(
        &mut w,
        "HEAD /ledger/ledger.jsonl HTTP/1.1\r\nHost: exhibit\r\n\r\n",
    );
    let (status, h, _) = response(&mut r, true);
    let len = ledger.len().to_string();
    assert_eq!(
        (status, header(&h, "content-length")),
        (200, Some(len.as_str()))
    );
    send(
        &mut w,
        &request("/ledger/ledger.jsonl", "Range: bytes=0-9\r\n"),
    );
    let (status, _, body) = response(&mut r, false);
    assert_eq!((status, body.as_slice()), (206, &ledger[..10]));
    send(&mut w, &request("/no-such-file", ""));
    assert_eq!(response(&mut r, false).0, 404);
    send(&mut w, &request("/ledger", ""));
    assert_eq!(response(&mut r, false).0, 301);
    send(&mut w, "POST / HTTP/1.1\r\nHost: exhibit\r\n\r\n");
    assert_eq!(response(&mut r, false).0, 405);
    // Two requests in one write: answered in order, the second closing the connection.
    let both = request("/ledger/STATS.json", "")
        + &request("/ledger/ledger.jsonl", "Connection: close\r\n");
    send(&mut w, &both);
    assert_eq!(response(&mut r, false).2, stats);
    let (status, h, body) = response(&mut r, false);
    assert_eq!((status, body), (200, ledger));
    assert_eq!(header(&h, "connection"), Some("close"));
    assert!(closed(&mut r), "Connection: close left the connection open");
}

/// What closes a connection: an HTTP/1.0 request without keep-alive, a request announcing a body
/// (never read), and the idle time (shortened to 300 ms here). HTTP/1.0 asking for keep-alive
/// keeps it. Catches: a server that keeps every connection (HTTP/1.0 clients read to the close),
/// that reads a body as the next request, or that never times an idle connection out (the
/// test's read gives up after 20 s and fails).
#[test]
fn serve_closes_http_1_0_bodies_and_idle_connections() {
    let tmp = tempfile::tempdir().unwrap();
    let site = ten_line_site(tmp.path());
    let s = serve_with(&site, &[], &[("EXHIBIT_TEST_SERVE_IDLE_MS", "60000")]);
    let (mut w, mut r) = connect(&s.addr);
    send(&mut w, "GET /index.html HTTP/1.0\r\n\r\n");
    let (status, h, _) = response(&mut r, false);
    assert_eq!((status, header(&h, "connection")), (200, Some("close")));
    assert!(
        closed(&mut r),
        "an HTTP/1.0 request left the connection open"
    );
    let (mut w, mut r) = connect(&s.addr);
    for _ in 0..2 {
        send(
            &mut w,
            "GET /index.html HTTP/1.0\r\nConnection: keep-alive\r\n\r\n",
        );
        let (status, h, _) = response(&mut r, false);
        assert_eq!(
            (status, header(&h, "connection")),
            (200, Some("keep-alive"))
        );
    }
    let (mut w, mut r) = connect(&s.addr);
    send(
        &mut w,
        "POST / HTTP/1.1\r\nHost: exhibit\r\nContent-Length: 20\r\n\r\nGET /index.html HTTP",
    );
    let (status, h, _) = response(&mut r, false);
    assert_eq!((status, header(&h, "connection")), (405, Some("close")));
    assert!(closed(&mut r), "a body was read as a request");

    let s = serve_with(&site, &[], &[("EXHIBIT_TEST_SERVE_IDLE_MS", "300")]);
    let (mut w, mut r) = connect(&s.addr);
    for _ in 0..2 {
        send(&mut w, &request("/index.html", ""));
        assert_eq!(response(&mut r, false).0, 200);
    }
    assert!(closed(&mut r), "an idle connection was not closed");
}

/// The threads of a running process (Linux's /proc), to see connections waiting off-thread.
fn threads(pid: u32) -> Option<usize> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("Threads:"))?;
    line["Threads:".len()..].trim().parse().ok()
}

/// At most N connections are served at once (2 here): a third waits unanswered, on no thread,
/// until one closes, then is answered. Catches: a thread for every connection (a client opening
/// thousands exhausts the machine), and a bound that drops the connection over it instead of
/// answering it when a place frees.
#[test]
fn serve_bounds_its_connections_and_threads() {
    let tmp = tempfile::tempdir().unwrap();
    let site = ten_line_site(tmp.path());
    let s = serve_with(
        &site,
        &[],
        &[
            ("EXHIBIT_TEST_SERVE_IDLE_MS", "60000"),
            ("EXHIBIT_TEST_SERVE_CONNECTIONS", "2"),
        ],
    );
    let before = threads(s.child.id());
    let (mut wa, mut ra) = connect(&s.addr);
    let (mut wb, mut rb) = connect(&s.addr);
    for (w, r) in [(&mut wa, &mut ra), (&mut wb, &mut rb)] {
        send(w, &request("/index.html", ""));
        assert_eq!(response(r, false).0, 200);
    }
    let (mut wc, mut rc) = connect(&s.addr);
    send(&mut wc, &request("/index.html", ""));
    // B is still answered; by then a server with a thread for C would have answered it too.
    send(&mut wb, &request("/ledger/STATS.json", ""));
    assert_eq!(response(&mut rb, false).0, 200);
    rc.get_ref().set_nonblocking(true).unwrap();
    let mut byte = [0u8; 1];
    let waiting = rc.get_ref().peek(&mut byte);
    assert!(
        matches!(&waiting, Err(e) if e.kind() == std::io::ErrorKind::WouldBlock),
        "a third connection was answered past the bound: {waiting:?}"
    );
    if let (Some(before), Some(now)) = (before, threads(s.child.id())) {
        assert!(
            now <= before + 2,
            "{now} threads for 2 connections ({before} before)"
        );
    }
    rc.get_ref().set_nonblocking(false).unwrap();
    drop((wa, ra));
    let (status, _, _) = response(&mut rc, false);
    assert_eq!(
        status, 200,
        "the waiting connection was not answered once one closed"
    );
}

// ---------------------------------------------------------------------------------------------
// 6. progress a person can read

/// Runs `exhibit ARGS` in `dir` under a pseudo-terminal (util-linux `script`): what a person
/// at a terminal sees, stdout and stderr together. `None` where `script` is not installed.
fn exhibit_at_a_terminal(dir: &Path, args: &[&str]) -> Option<(Option<i32>, String)> {
    let quote = |s: &str| format!("'{}'", s.replace('\'', r"'\''"));
    let mut line = quote(env!("CARGO_BIN_EXE_exhibit"));
    for a in args {
        line.push(' ');
        line.push_str(&quote(a));
    }
    let o = Command::new("script")
        .args(["-qfec", &line, "/dev/null"])
        .current_dir(dir)
        .env("SOURCE_DATE_EPOCH", "1790000000")
        .env("TERM", "xterm")
        .env_remove("CI")
        .stdin(std::process::Stdio::null())
        .output()
        .ok()?;
    Some((
        o.status.code(),
        String::from_utf8_lossy(&o.stdout).into_owned(),
    ))
}

/// On a terminal each stage is named as it ends (and the summary comes last); catches stage
/// names shown only with EXHIBIT_STAGE_TIMES (the code before issue 47 item 6), and names that
/// come after the summary.
#[test]
fn a_terminal_is_told_each_stage() {
    let tmp = tempfile::tempdir().unwrap();
    let b = TestBox::new(tmp.path());
    ten_lines(&b);
    let out = tmp.path().join("docs");
    let args = [
        "build",
        "--config",
        &b.config(),
        "--out",
        out.to_str().unwrap(),
    ];
    let Some((code, seen)) = exhibit_at_a_terminal(tmp.path(), &args) else {
        eprintln!("skipped: no `script` (util-linux) to make a terminal");
        return;
    };
    assert_eq!(code, Some(0), "{seen}");
    let mut at = 0;
    for stage in [
        "load",
        "verify",
        "HEAD check",
        "history",
        "decide",
        "layers",
        "assemble",
        "render",
        "write",
    ] {
        let said = format!("exhibit: {stage}: done in ");
        let found = seen[at..]
            .find(&said)
            .unwrap_or_else(|| panic!("{said:?} not after byte {at} in {seen:?}"));
        at += found + said.len();
    }
    // Each stage is named as it starts, on a line the next one replaces.
    assert!(seen.contains("\r\x1b[Kexhibit: verify ..."), "{seen:?}");
    let summary = seen.rfind("\nbuilt ").expect("the summary");
    assert!(summary > at, "the summary is the last thing said: {seen:?}");
}

/// Where no person reads a terminal nothing of it is said: not with --json or --quiet at a
/// terminal, not on a pipe. Catches stage names printed whenever stderr is a terminal, or
/// whenever it is not.
#[test]
fn no_stages_for_json_quiet_or_a_pipe() {
    let tmp = tempfile::tempdir().unwrap();
    let b = TestBox::new(tmp.path());
    ten_lines(&b);
    let out = tmp.path().join("docs");
    let out = out.to_str().unwrap();
    let config = b.config();
    for extra in [&["--json"][..], &["--quiet"][..]] {
        let mut args = vec!["build", "--config", &config, "--out", out, "--dry-run"];
        args.extend_from_slice(extra);
        let Some((code, seen)) = exhibit_at_a_terminal(tmp.path(), &args) else {
            return;
        };
        assert_eq!(code, Some(0), "{seen}");
        assert!(
            !seen.contains("done in") && !seen.contains("..."),
            "{extra:?}: {seen:?}"
        );
    }
    let o = exhibit_in(tmp.path(), &["build", "--config", &config, "--out", out]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!err.contains("done in") && !err.contains('\r'), "{err:?}");
}

// ---------------------------------------------------------------------------------------------
// 7. packaging and polish

/// `verify --json` and `prove --json` on a path that is not there print the error object on
/// stdout, as `build --json` does, with exit 2 (docs/operator.md#build-json). Catches the
/// error said on stderr only, leaving a script's stdout empty.
#[test]
fn json_errors_are_objects_on_stdout() {
    let tmp = tempfile::tempdir().unwrap();
    let missing = tmp.path().join("no such");
    let missing = missing.to_str().unwrap();
    for args in [
        &["verify", "--json", missing][..],
        &["prove", "--json", "--site", missing, "--seq", "1"][..],
    ] {
        let o = exhibit_in(tmp.path(), args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", text(&o));
        let v = json_of(&o);
        assert_eq!(v["ok"], false, "{v}");
        assert_eq!(v["refused"], false, "{v}");
        let error = v["error"].as_str().unwrap_or_default();
        assert!(
            error.contains(missing),
            "{args:?}: the error names the path: {v}"
        );
    }
}

/// `exhibit verify <TAB>` in bash offers the folder's paths, and `exhibit verify --j<TAB>` the
/// option (docs/operator.md#completions): the generated script is run by bash itself. Catches
/// clap_complete's script as it is, which offers only the options for a bare word.
#[test]
fn bash_completes_a_path_for_verify_and_serve() {
    let tmp = tempfile::tempdir().unwrap();
    let o = exhibit_in(tmp.path(), &["completions", "bash"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    std::fs::write(tmp.path().join("exhibit.bash"), &o.stdout).unwrap();
    std::fs::write(tmp.path().join("ledger.jsonl"), "").unwrap();
    std::fs::create_dir(tmp.path().join("site")).unwrap();
    let complete = |words: &str, cword: u32| {
        let script = format!(
            "source ./exhibit.bash; COMP_WORDS=({words}); COMP_CWORD={cword}; \
             _exhibit exhibit \"${{COMP_WORDS[COMP_CWORD]}}\" \"${{COMP_WORDS[COMP_CWORD-1]}}\"; \
             printf '%s\\n' \"${{COMPREPLY[@]}}\""
        );
        let o = Command::new("bash")
            .args(["--norc", "-c", &script])
            .current_dir(tmp.path())
            .output()
            .expect("bash");
        let mut got: Vec<String> = String::from_utf8_lossy(&o.stdout)
            .lines()
            .filter(|l| !l.is_empty())
            .map(str::to_string)
            .collect();
        got.sort();
        got
    };
    let paths = ["exhibit.bash", "ledger.jsonl", "site"];
    assert_eq!(complete("exhibit verify ''", 2), paths);
    assert_eq!(complete("exhibit verify le", 2), ["ledger.jsonl"]);
    assert_eq!(complete("exhibit verify --j", 2), ["--json"]);
    assert_eq!(complete("exhibit serve ''", 2), paths);
    assert_eq!(complete("exhibit verify --withheld l", 3), ["ledger.jsonl"]);
}

/// The man pages' roff: examples under EXAMPLES and the exit codes under EXIT STATUS, each
/// unfilled (`.nf` … `.fi`, so man keeps one example a line), and no pointer at an
/// `exhibit-build(1)` page no installation has (docs/operator.md#man-pages). Catches
/// clap_mangen's page as it renders it: `.SH EXTRA`, filled, `exhibit\-build(1)`.
#[test]
fn man_pages_keep_their_examples_apart_and_point_at_no_missing_page() {
    for args in [&["man"][..], &["man", "build"][..], &["man", "verify"][..]] {
        let o = exhibit_in(Path::new("."), args);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o));
        let page = String::from_utf8(o.stdout).unwrap();
        assert!(!page.contains(".SH EXTRA"), "{args:?}: {page}");
        assert!(!page.contains("(1)"), "{args:?}: a page reference: {page}");
        let sections: Vec<&str> = page.lines().filter(|l| l.starts_with(".SH ")).collect();
        for (wanted, after) in [(".SH EXAMPLES", ".nf"), (".SH \"EXIT STATUS\"", ".nf")] {
            let at = page
                .find(&format!("{wanted}\n{after}\n"))
                .unwrap_or_else(|| panic!("{args:?}: no {wanted} then {after}: {sections:?}"));
            let body = &page[at..];
            let fi = body.find("\n.fi\n").expect("the unfilled block ends");
            assert!(
                body[..fi].lines().count() > 2,
                "{args:?}: {wanted} is empty"
            );
            assert!(
                !body[..fi].contains("\n.SH"),
                "{args:?}: {wanted} not closed"
            );
        }
    }
    let o = exhibit_in(Path::new("."), &["man"]);
    let page = String::from_utf8(o.stdout).unwrap();
    assert!(page.contains("\\fBexhibit build\\fR\n"), "{page}");
    assert!(
        page.contains("\\fBexhibit man\\fR \\fICOMMAND\\fR"),
        "{page}"
    );
}
