//! `exhibit serve [DIR]`: the exhibit as GitHub Pages would serve it, on this machine
//! (docs/operator.md#serve). A light page fetches its ledger files, which a browser refuses from
//! `file://`; this server answers on 127.0.0.1 unless told otherwise, with the content types and
//! the cache lifetime Pages sends, byte ranges, no folder listing, and never a file outside DIR
//! (`..`, its percent-encoded forms and symbolic links leading out are all refused).
//!
//! Connections are kept alive as Pages keeps them (docs/operator.md#serve): HTTP/1.1 persistent
//! connections, several requests on one in order, closed on the client's `Connection: close`,
//! for an HTTP/1.0 client that did not ask for keep-alive, after a request announcing a body, and
//! after an idle time. A light page's full check reads thousands of small files
//! (docs/page.md#records-in-the-worker); one connection a request measured the connections'
//! setup instead of the page. At most `MAX_CONNECTIONS` are served at once, a thread each; the
//! next waits in the listen queue until one closes.
//!
//! The standard library only: a preview for one person needs GET, HEAD and one range, which is
//! less code than a dependency's configuration, and adds nothing to the binary's build.

use std::io::{BufRead, BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::path::{Component, Path, PathBuf};
use std::process::ExitCode;
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::Duration;

use anyhow::{Context, Result};

/// What `exhibit serve` was asked to do.
#[derive(Debug, Clone)]
pub struct ServePlan {
    pub dir: PathBuf,
    pub address: SocketAddr,
    pub open: bool,
}

/// GitHub Pages' cache lifetime for every file: `Cache-Control: max-age=600`.
pub const CACHE_CONTROL: &str = "max-age=600";
/// The longest request head read: a browser's is well under it.
const MAX_HEAD: usize = 16 << 10;
/// How long a kept-alive connection may wait for its next request, and a request's head may stall.
const IDLE_TIMEOUT: Duration = Duration::from_secs(10);
/// How long one write may block on a client that does not read.
const WRITE_TIMEOUT: Duration = Duration::from_secs(30);
/// Connections served at once: a browser opens six to one host; a client opening more waits.
const MAX_CONNECTIONS: usize = 64;
/// After a response that closes the connection, what a client still sends is read and dropped
/// (up to this much, for at most a second), so that closing does not reset the connection under
/// a response the client has not read yet (RFC 9112, section 9.6).
const LINGER_BYTES: u64 = 1 << 20;

/// The idle time and the bound on connections; a test shortens them with
/// `EXHIBIT_TEST_SERVE_IDLE_MS` and `EXHIBIT_TEST_SERVE_CONNECTIONS` (docs/operator.md#serve).
#[derive(Debug, Clone, Copy)]
struct Limits {
    idle: Duration,
    connections: usize,
}

impl Limits {
    fn from_env() -> Limits {
        let number = |name: &str| std::env::var(name).ok().and_then(|v| v.parse::<u64>().ok());
        Limits {
            idle: number("EXHIBIT_TEST_SERVE_IDLE_MS")
                .filter(|&ms| ms > 0)
                .map_or(IDLE_TIMEOUT, Duration::from_millis),
            connections: number("EXHIBIT_TEST_SERVE_CONNECTIONS")
                .filter(|&n| n > 0)
                .map_or(MAX_CONNECTIONS, |n| n as usize),
        }
    }
}

/// The connections still free to serve; a `Slot` is one taken, given back when dropped.
struct Slots {
    free: Mutex<usize>,
    freed: Condvar,
}

struct Slot(Arc<Slots>);

impl Slots {
    /// Waits until a connection closes when all are taken.
    fn take(self: &Arc<Self>) -> Slot {
        let mut free = self.free.lock().unwrap_or_else(PoisonError::into_inner);
        while *free == 0 {
            free = self
                .freed
                .wait(free)
                .unwrap_or_else(PoisonError::into_inner);
        }
        *free -= 1;
        Slot(Arc::clone(self))
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        *self.0.free.lock().unwrap_or_else(PoisonError::into_inner) += 1;
        self.0.freed.notify_one();
    }
}

/// The content type Pages sends for a file name (its extension; none is `application/octet-stream`,
/// as for the tiles and the checkpoint).
pub fn content_type(name: &str) -> &'static str {
    let ext = name.rsplit_once('.').map_or("", |(_, e)| e);
    match ext.to_ascii_lowercase().as_str() {
        "html" | "htm" => "text/html; charset=utf-8",
        "js" | "mjs" => "application/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "json" => "application/json; charset=utf-8",
        "txt" => "text/plain; charset=utf-8",
        "md" => "text/markdown; charset=utf-8",
        "xml" => "application/xml",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "ico" => "image/x-icon",
        "woff2" => "font/woff2",
        "wasm" => "application/wasm",
        _ => "application/octet-stream",
    }
}

pub fn run(plan: &ServePlan) -> Result<ExitCode> {
    let root = std::fs::canonicalize(&plan.dir)
        .with_context(|| format!("{}: cannot serve (no such folder?)", plan.dir.display()))?;
    if !root.is_dir() {
        anyhow::bail!("{}: not a folder", plan.dir.display());
    }
    let listener = TcpListener::bind(plan.address)
        .with_context(|| format!("{}: cannot listen", plan.address))?;
    let at = listener.local_addr().context("the listening address")?;
    let url = format!("http://{at}/");
    crate::terminal::to_stdout(&format!("serving {} at {url}\n", root.display()))
        .context("stdout")?;
    crate::say!(
        "exhibit: serve: {} only; Ctrl-C stops",
        if at.ip().is_loopback() {
            "this machine"
        } else {
            "the network (--address)"
        }
    );
    if plan.open {
        open_in_browser(&url);
    }
    accept_forever(&listener, &root, Limits::from_env());
    Ok(ExitCode::SUCCESS)
}

/// Asks the desktop to open `url`; when it cannot, the address printed above stands.
fn open_in_browser(url: &str) {
    let opener = if cfg!(target_os = "macos") {
        "open"
    } else {
        "xdg-open"
    };
    if std::process::Command::new(opener)
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .is_err()
    {
        crate::say!("exhibit: serve: cannot run {opener}; open {url} in a browser");
    }
}

/// Each connection on a thread of its own, at most `limits.connections` at once: the slot is
/// taken before `accept`, so one more waits in the listen queue, not on a thread.
fn accept_forever(listener: &TcpListener, root: &Path, limits: Limits) {
    let slots = Arc::new(Slots {
        free: Mutex::new(limits.connections),
        freed: Condvar::new(),
    });
    loop {
        let slot = slots.take();
        let stream = match listener.accept() {
            Ok((stream, _)) => stream,
            Err(_) => {
                // Out of descriptors, or a connection reset while queued: not a hot loop.
                std::thread::sleep(Duration::from_millis(10));
                continue;
            }
        };
        let root = root.to_path_buf();
        // A thread that cannot be started drops the stream (closed) and gives the slot back.
        let _ = std::thread::Builder::new()
            .name("serve".into())
            .spawn(move || {
                let _slot = slot;
                let _ = connection(stream, &root, limits.idle);
            });
    }
}

/// One request read: what the answer needs, and whether the connection stays open after it.
#[derive(Debug, Default)]
struct Request {
    method: String,
    target: String,
    range: Option<String>,
    keep_alive: bool,
}

/// Why no request was read: the client closed or went idle (closed without a word), or sent
/// what is not an HTTP request head (answered, then closed).
#[derive(Debug)]
enum NoRequest {
    Gone,
    Malformed,
    TooLarge,
}

/// Requests answered in the order they come until one closes the connection, the client goes
/// away or stays idle for `idle`. Pipelined requests wait in `reader`'s buffer.
fn connection(stream: TcpStream, root: &Path, idle: Duration) -> std::io::Result<()> {
    stream.set_read_timeout(Some(idle))?;
    stream.set_write_timeout(Some(WRITE_TIMEOUT))?;
    // A response's last segment must not wait for the client's delayed ACK (Nagle).
    stream.set_nodelay(true)?;
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut out = BufWriter::with_capacity(64 << 10, stream);
    loop {
        let request = match read_request(&mut reader) {
            Ok(request) => request,
            Err(NoRequest::Gone) => return Ok(()),
            // A head that cannot be read is answered, and the connection closes.
            Err(bad) => {
                let (code, reason, body) = match bad {
                    NoRequest::TooLarge => (
                        431,
                        "Request Header Fields Too Large",
                        "the request head passes 16 KiB\n",
                    ),
                    _ => (400, "Bad Request", "not an HTTP request\n"),
                };
                simple(&mut out, code, reason, body, false, false)?;
                return linger(out, reader);
            }
        };
        answer(&mut out, root, &request)?;
        out.flush()?;
        if !request.keep_alive {
            return linger(out, reader);
        }
    }
}

/// Closes after a last response: the write side first, then what the client still sends is
/// read (bounded) until it closes, so that its unread bytes do not reset the response away.
fn linger(out: BufWriter<TcpStream>, reader: BufReader<TcpStream>) -> std::io::Result<()> {
    let stream = out.into_inner().map_err(|e| e.into_error())?;
    stream.shutdown(Shutdown::Write)?;
    stream.set_read_timeout(Some(Duration::from_secs(1)))?;
    let _ = std::io::copy(&mut reader.take(LINGER_BYTES), &mut std::io::sink());
    Ok(())
}

/// One request head, at most `MAX_HEAD` bytes, from the request line to the empty line.
fn read_request(reader: &mut BufReader<TcpStream>) -> Result<Request, NoRequest> {
    let mut budget = MAX_HEAD as u64;
    let mut request_line = String::new();
    // RFC 9112, section 2.2: empty lines before a request line are ignored.
    while request_line.is_empty() {
        request_line = head_line(reader, &mut budget)?;
    }
    let mut parts = request_line.split_whitespace();
    let (Some(method), Some(target), version) = (parts.next(), parts.next(), parts.next()) else {
        return Err(NoRequest::Malformed);
    };
    let mut request = Request {
        method: method.to_string(),
        target: target.to_string(),
        ..Request::default()
    };
    let (mut close, mut keep, mut body) = (false, false, false);
    loop {
        let line = head_line(reader, &mut budget)?;
        if line.is_empty() {
            break;
        }
        let Some((name, value)) = line.split_once(':') else {
            return Err(NoRequest::Malformed);
        };
        let (name, value) = (name.trim().to_ascii_lowercase(), value.trim());
        match name.as_str() {
            "range" => request.range = Some(value.to_string()),
            "connection" => {
                for token in value.split(',').map(str::trim) {
                    close |= token.eq_ignore_ascii_case("close");
                    keep |= token.eq_ignore_ascii_case("keep-alive");
                }
            }
            "content-length" => body |= value != "0",
            "transfer-encoding" => body = true,
            _ => {}
        }
    }
    // HTTP/1.1 stays open unless told to close; HTTP/1.0 only when it asked; a request with a
    // body, which this server does not read, closes (RFC 9112, sections 6.3 and 9.3).
    request.keep_alive = !body
        && match version {
            Some("HTTP/1.1") => !close,
            Some("HTTP/1.0") => keep && !close,
            _ => false,
        };
    Ok(request)
}

/// One line of the head without its line end; `Gone` when the connection ends or times out
/// (between requests, that is an idle connection closing).
fn head_line(reader: &mut BufReader<TcpStream>, budget: &mut u64) -> Result<String, NoRequest> {
    let mut line = Vec::new();
    let n = match reader.by_ref().take(*budget).read_until(b'\n', &mut line) {
        Ok(n) => n,
        Err(_) => return Err(NoRequest::Gone),
    };
    *budget -= n as u64;
    if !line.ends_with(b"\n") {
        // Cut at the budget: too large; otherwise the connection ended inside a head.
        return Err(if *budget == 0 {
            NoRequest::TooLarge
        } else {
            NoRequest::Gone
        });
    }
    Ok(String::from_utf8_lossy(&line).trim_end().to_string())
}

/// One response, with the connection's fate in its `Connection` header.
fn answer(out: &mut BufWriter<TcpStream>, root: &Path, request: &Request) -> std::io::Result<()> {
    let keep = request.keep_alive;
    let head_only = request.method == "HEAD";
    if request.method != "GET" && !head_only {
        return simple(out, 405, "Method Not Allowed", "GET or HEAD\n", false, keep);
    }
    match resolve(root, &request.target) {
        Resolved::File(path) => send_file(out, &path, request.range.as_deref(), head_only, keep),
        Resolved::Redirect(to) => {
            let fields = format!("Location: {to}\r\n");
            out.write_all(head("301 Moved Permanently", &fields, 0, keep).as_bytes())
        }
        Resolved::Forbidden => simple(
            out,
            403,
            "Forbidden",
            "outside the folder served\n",
            head_only,
            keep,
        ),
        Resolved::NotFound => not_found(out, head_only, keep),
    }
}

/// The answer for a path that names no file DIR serves.
fn not_found(out: &mut BufWriter<TcpStream>, head_only: bool, keep: bool) -> std::io::Result<()> {
    simple(
        out,
        404,
        "Not Found",
        "404: no such file\n",
        head_only,
        keep,
    )
}

/// A response's head: its status line, `fields` (each ending in CRLF), then what every answer
/// carries: its length, Pages' cache lifetime and the connection's fate.
fn head(status: &str, fields: &str, len: u64, keep_alive: bool) -> String {
    let connection = if keep_alive { "keep-alive" } else { "close" };
    format!(
        "HTTP/1.1 {status}\r\n{fields}Content-Length: {len}\r\nCache-Control: {CACHE_CONTROL}\r\nConnection: {connection}\r\n\r\n"
    )
}

enum Resolved {
    File(PathBuf),
    /// A folder asked for without its `/`: Pages redirects to it.
    Redirect(String),
    Forbidden,
    NotFound,
}

/// The file a request's target names under `root`: percent-decoded, every part a plain name
/// (no `..`, no `.`, no `\`, no NUL), then resolved through any link and held inside `root`.
fn resolve(root: &Path, target: &str) -> Resolved {
    let path = target.split(['?', '#']).next().unwrap_or("");
    let Some(decoded) = percent_decode(path) else {
        return Resolved::Forbidden;
    };
    if !decoded.starts_with('/') {
        return Resolved::Forbidden;
    }
    let mut joined = root.to_path_buf();
    for part in decoded.split('/').filter(|p| !p.is_empty()) {
        if part == "." || part == ".." || part.contains(['\\', '\0']) {
            return Resolved::Forbidden;
        }
        if !Path::new(part)
            .components()
            .all(|c| matches!(c, Component::Normal(_)))
        {
            return Resolved::Forbidden;
        }
        joined.push(part);
    }
    // Links are followed, and where they lead must still lie inside the folder.
    let Ok(real) = std::fs::canonicalize(&joined) else {
        return Resolved::NotFound;
    };
    if !real.starts_with(root) {
        return Resolved::Forbidden;
    }
    if real.is_dir() {
        if !decoded.ends_with('/') {
            return Resolved::Redirect(format!("{path}/"));
        }
        let index = real.join("index.html");
        return match std::fs::canonicalize(&index) {
            Ok(i) if i.starts_with(root) && i.is_file() => Resolved::File(i),
            Ok(_) => Resolved::Forbidden,
            // No listing of a folder, as on Pages.
            Err(_) => Resolved::NotFound,
        };
    }
    if real.is_file() {
        Resolved::File(real)
    } else {
        Resolved::NotFound
    }
}

/// `%XX` decoded; none when an escape is malformed or the bytes are not UTF-8.
fn percent_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = s.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// A range that starts at or past the file's end: answered 416.
#[derive(Debug, PartialEq, Eq)]
pub struct Unsatisfiable;

/// A `Range: bytes=…` of one range against a file of `len` bytes: `Ok(None)` for the whole file
/// (no range, or one this server does not take, such as several ranges: RFC 9110 lets a server
/// ignore it), `Err(Unsatisfiable)` when it starts past the end (416).
pub fn byte_range(range: Option<&str>, len: u64) -> Result<Option<(u64, u64)>, Unsatisfiable> {
    let Some(spec) = range.and_then(|r| r.strip_prefix("bytes=")) else {
        return Ok(None);
    };
    if spec.contains(',') {
        return Ok(None);
    }
    let Some((a, b)) = spec.trim().split_once('-') else {
        return Ok(None);
    };
    let (first, last) = match (a.parse::<u64>(), b.parse::<u64>()) {
        (Ok(first), Ok(last)) if first <= last => (first, last.min(len.saturating_sub(1))),
        (Ok(first), Err(_)) if b.is_empty() => (first, len.saturating_sub(1)),
        (Err(_), Ok(suffix)) if a.is_empty() && suffix > 0 => {
            (len.saturating_sub(suffix), len.saturating_sub(1))
        }
        _ => return Ok(None),
    };
    if first >= len {
        return Err(Unsatisfiable);
    }
    Ok(Some((first, last)))
}

/// A file whole or one range of it. A file that cannot be opened is not found; a file that
/// shrinks while it is sent leaves its response short, so the connection closes (an error).
fn send_file(
    out: &mut BufWriter<TcpStream>,
    path: &Path,
    range: Option<&str>,
    head_only: bool,
    keep: bool,
) -> std::io::Result<()> {
    let opened = std::fs::File::open(path).and_then(|f| Ok((f.metadata()?.len(), f)));
    let Ok((len, mut file)) = opened else {
        return not_found(out, head_only, keep);
    };
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let common = format!(
        "Content-Type: {}\r\nAccept-Ranges: bytes\r\nAccess-Control-Allow-Origin: *\r\n",
        content_type(name)
    );
    let (status, first, count, range) = match byte_range(range, len) {
        Ok(None) => ("200 OK", 0, len, String::new()),
        Ok(Some((a, b))) => (
            "206 Partial Content",
            a,
            b - a + 1,
            format!("Content-Range: bytes {a}-{b}/{len}\r\n"),
        ),
        Err(Unsatisfiable) => {
            let fields = format!("Content-Range: bytes */{len}\r\n{common}");
            return out.write_all(head("416 Range Not Satisfiable", &fields, 0, keep).as_bytes());
        }
    };
    out.write_all(head(status, &format!("{common}{range}"), count, keep).as_bytes())?;
    if head_only {
        return Ok(());
    }
    file.seek(SeekFrom::Start(first))?;
    if std::io::copy(&mut file.take(count), out)? != count {
        return Err(std::io::ErrorKind::UnexpectedEof.into());
    }
    Ok(())
}

/// A short plain-text answer; `head_only` sends its headers alone (HEAD), as for a file.
fn simple(
    out: &mut BufWriter<TcpStream>,
    code: u16,
    reason: &str,
    body: &str,
    head_only: bool,
    keep: bool,
) -> std::io::Result<()> {
    let status = format!("{code} {reason}");
    let fields = "Content-Type: text/plain; charset=utf-8\r\n";
    out.write_all(head(&status, fields, body.len() as u64, keep).as_bytes())?;
    if head_only {
        return Ok(());
    }
    out.write_all(body.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_are_read_as_rfc_9110_says() {
        assert_eq!(byte_range(None, 10), Ok(None));
        assert_eq!(byte_range(Some("bytes=0-3"), 10), Ok(Some((0, 3))));
        assert_eq!(byte_range(Some("bytes=4-"), 10), Ok(Some((4, 9))));
        assert_eq!(byte_range(Some("bytes=-3"), 10), Ok(Some((7, 9))));
        assert_eq!(byte_range(Some("bytes=5-100"), 10), Ok(Some((5, 9))));
        assert_eq!(byte_range(Some("bytes=10-"), 10), Err(Unsatisfiable));
        assert_eq!(byte_range(Some("bytes=0-1,4-5"), 10), Ok(None));
        assert_eq!(byte_range(Some("bytes=3-1"), 10), Ok(None));
    }

    #[test]
    fn encoded_dots_are_decoded_before_the_check() {
        let tmp = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(tmp.path()).unwrap();
        for t in [
            "/../x",
            "/%2e%2e/x",
            "/a/%2E%2E/%2e%2e/x",
            "/%2e%2e%2fx",
            "/a%5c..%5cx",
            "/%00",
        ] {
            assert!(matches!(resolve(&root, t), Resolved::Forbidden), "{t}");
        }
    }
}
