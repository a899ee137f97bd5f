//! `exhibit serve [DIR]`: the exhibit as GitHub Pages would serve it, on this machine
//! (docs/operator.md#serve). A light page fetches its ledger files, which a browser refuses from
//! `file://`; this server answers on 127.0.0.1 unless told otherwise, with the content types and
//! the cache lifetime Pages sends, byte ranges, no folder listing, and never a file outside DIR
//! (`..`, its percent-encoded forms and symbolic links leading out are all refused).
//!
//! The standard library only: a preview for one person needs GET, HEAD and one range, which is
//! less code than a dependency's configuration, and adds nothing to the binary's build.

use std::io::{BufRead, BufReader, Read, Seek, SeekFrom, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Component, Path, PathBuf};
use std::process::ExitCode;
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
/// How long a connection may take to send its request.
const READ_TIMEOUT: Duration = Duration::from_secs(10);

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
    for stream in listener.incoming() {
        let Ok(stream) = stream else { continue };
        let root = root.clone();
        std::thread::spawn(move || {
            let _ = answer(stream, &root);
        });
    }
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

/// One request, one response, then the connection closes.
fn answer(stream: TcpStream, root: &Path) -> std::io::Result<()> {
    stream.set_read_timeout(Some(READ_TIMEOUT))?;
    let mut reader = BufReader::new(stream.try_clone()?.take(MAX_HEAD as u64));
    let mut request_line = String::new();
    reader.read_line(&mut request_line)?;
    let mut range = None;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 || line.trim_end().is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':')
            && name.trim().eq_ignore_ascii_case("range")
        {
            range = Some(value.trim().to_string());
        }
    }
    let mut out = stream;
    let mut parts = request_line.split_whitespace();
    let (Some(method), Some(target)) = (parts.next(), parts.next()) else {
        return simple(&mut out, 400, "Bad Request", "not an HTTP request\n", true);
    };
    let head_only = method == "HEAD";
    if method != "GET" && !head_only {
        return simple(
            &mut out,
            405,
            "Method Not Allowed",
            "GET or HEAD\n",
            head_only,
        );
    }
    match resolve(root, target) {
        Resolved::File(path) => send_file(&mut out, &path, range.as_deref(), head_only),
        Resolved::Redirect(to) => {
            let head = format!(
                "HTTP/1.1 301 Moved Permanently\r\nLocation: {to}\r\nContent-Length: 0\r\nCache-Control: {CACHE_CONTROL}\r\nConnection: close\r\n\r\n"
            );
            out.write_all(head.as_bytes())
        }
        Resolved::Forbidden => simple(
            &mut out,
            403,
            "Forbidden",
            "outside the folder served\n",
            head_only,
        ),
        Resolved::NotFound => simple(&mut out, 404, "Not Found", "404: no such file\n", head_only),
    }
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

fn send_file(
    out: &mut TcpStream,
    path: &Path,
    range: Option<&str>,
    head_only: bool,
) -> std::io::Result<()> {
    let mut file = std::fs::File::open(path)?;
    let len = file.metadata()?.len();
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let common = format!(
        "Content-Type: {}\r\nCache-Control: {CACHE_CONTROL}\r\nAccept-Ranges: bytes\r\nAccess-Control-Allow-Origin: *\r\nConnection: close\r\n",
        content_type(name)
    );
    let (status, first, count, extra) = match byte_range(range, len) {
        Ok(None) => ("200 OK", 0, len, String::new()),
        Ok(Some((a, b))) => (
            "206 Partial Content",
            a,
            b - a + 1,
            format!("Content-Range: bytes {a}-{b}/{len}\r\n"),
        ),
        Err(Unsatisfiable) => {
            let head = format!(
                "HTTP/1.1 416 Range Not Satisfiable\r\nContent-Range: bytes */{len}\r\nContent-Length: 0\r\n{common}\r\n"
            );
            return out.write_all(head.as_bytes());
        }
    };
    let head = format!("HTTP/1.1 {status}\r\n{common}{extra}Content-Length: {count}\r\n\r\n");
    out.write_all(head.as_bytes())?;
    if head_only {
        return Ok(());
    }
    file.seek(SeekFrom::Start(first))?;
    std::io::copy(&mut file.take(count), out)?;
    out.flush()
}

fn simple(
    out: &mut TcpStream,
    code: u16,
    reason: &str,
    body: &str,
    head_only: bool,
) -> std::io::Result<()> {
    let head = format!(
        "HTTP/1.1 {code} {reason}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: {}\r\nCache-Control: {CACHE_CONTROL}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    out.write_all(head.as_bytes())?;
    if !head_only {
        out.write_all(body.as_bytes())?;
    }
    out.flush()
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
