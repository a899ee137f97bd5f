//! What exhibit prints, and how (docs/build.md#safety): every character that could steer a
//! terminal — C0 and C1 controls, DEL, bidirectional overrides — is printed escaped, so a store
//! file or a file name cannot move the cursor over the lines being reviewed or write the
//! clipboard (OSC 52). A failed write to stdout or stderr never panics: it is remembered, and
//! the process ends with exit 2 (`main`).

pub mod json_schema;
pub mod memory;
pub mod progress;
pub mod refusal;

use std::borrow::Cow;
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};

static OUTPUT_FAILED: AtomicBool = AtomicBool::new(false);

/// A character a terminal may act on rather than print.
fn steers(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

fn escape_with(s: &str, keep_newlines: bool) -> Cow<'_, str> {
    if !s
        .chars()
        .any(|c| steers(c) && !(keep_newlines && c == '\n'))
    {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '\n' if keep_newlines => out.push('\n'),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if steers(c) && (c as u32) < 0x80 => out.push_str(&format!("\\x{:02x}", c as u32)),
            c if steers(c) => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// `s` with every terminal-steering character escaped, newlines included (for a value printed
/// inside a line: a file name, a field of a refusal).
pub fn escape(s: &str) -> Cow<'_, str> {
    escape_with(s, false)
}

/// A JSON text with every terminal-steering character written as a JSON escape (`\u0085`,
/// `\u007f`, `\u202e`), the line breaks between values kept. serde_json escapes only C0
/// controls, and the terminal's own escape (`\x7f`, `\u{85}`) inside a JSON string made the
/// output invalid JSON: a steering character can stand only inside a JSON string (every
/// structural character is plain ASCII), where the JSON escape reads back as the same string.
pub fn json_escaped(json: &str) -> Cow<'_, str> {
    if !json.chars().any(|c| steers(c) && c != '\n') {
        return Cow::Borrowed(json);
    }
    let mut out = String::with_capacity(json.len() + 16);
    for c in json.chars() {
        if steers(c) && c != '\n' {
            out.push_str(&format!("\\u{:04x}", c as u32));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// A JSON text written as it is made, each piece escaped as [`json_escaped`] escapes a whole
/// one: for an object too large to hold (a dry run's review of a million files,
/// docs/scale.md#review-as-data). A character split between two writes is held until it is
/// whole; bytes that can never be UTF-8 are an error, never written.
pub struct EscapedJson<W: Write> {
    out: W,
    pending: Vec<u8>,
}

impl EscapedJson<std::io::BufWriter<std::io::StdoutLock<'static>>> {
    pub fn to_stdout() -> Self {
        EscapedJson::new(std::io::BufWriter::with_capacity(
            1 << 16,
            std::io::stdout().lock(),
        ))
    }
}

impl<W: Write> EscapedJson<W> {
    pub fn new(out: W) -> Self {
        EscapedJson {
            out,
            pending: Vec::new(),
        }
    }

    /// Flushes, and says whether everything written was whole characters.
    pub fn finish(mut self) -> std::io::Result<W> {
        if !self.pending.is_empty() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                "the JSON text ends inside a character",
            ));
        }
        self.out.flush()?;
        Ok(self.out)
    }
}

impl<W: Write> Write for EscapedJson<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.pending.extend_from_slice(buf);
        let whole = match std::str::from_utf8(&self.pending) {
            Ok(s) => s.len(),
            // Only the end is cut: the rest of the character is in the next write.
            Err(e) if e.error_len().is_none() => e.valid_up_to(),
            Err(e) => return Err(std::io::Error::new(std::io::ErrorKind::InvalidData, e)),
        };
        let text = std::str::from_utf8(&self.pending[..whole])
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))?;
        self.out.write_all(json_escaped(text).as_bytes())?;
        self.pending.drain(..whole);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}

/// `s` with every terminal-steering character escaped except `\n` (for whole messages).
pub fn escape_lines(s: &str) -> Cow<'_, str> {
    escape_with(s, true)
}

/// Writes `text` (escaped, newlines kept) to stderr; a failure is remembered, never a panic.
pub fn to_stderr(text: &str) {
    crate::terminal::progress::clear_line();
    let mut err = std::io::stderr().lock();
    if err
        .write_all(escape_lines(text).as_bytes())
        .and_then(|()| err.flush())
        .is_err()
    {
        OUTPUT_FAILED.store(true, Ordering::Relaxed);
    }
}

/// Writes `text` (escaped, newlines kept) to stdout; the caller turns a failure into exit 2.
pub fn to_stdout(text: &str) -> std::io::Result<()> {
    crate::terminal::progress::clear_line();
    let mut out = std::io::stdout().lock();
    out.write_all(escape_lines(text).as_bytes())?;
    out.flush()
}

/// Some write to stdout or stderr failed during this run.
pub fn output_failed() -> bool {
    OUTPUT_FAILED.load(Ordering::Relaxed)
}

/// Remembers a failed write made elsewhere (the progress line).
pub fn note_failure() {
    OUTPUT_FAILED.store(true, Ordering::Relaxed);
}

/// `eprintln!` that escapes and never panics.
#[macro_export]
macro_rules! say {
    ($($arg:tt)*) => {{
        let mut line = format!($($arg)*);
        line.push('\n');
        $crate::terminal::to_stderr(&line);
    }};
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_stays_json_with_controls_escaped() {
        let value = serde_json::json!({"detail": "a\u{85}b\u{7f}c\u{202e}d\u{9b}e\n\u{1b}"});
        let text = serde_json::to_string(&value).unwrap() + "\n";
        let safe = json_escaped(&text);
        assert!(!safe.chars().any(|c| steers(c) && c != '\n'), "{safe}");
        assert_eq!(
            escape_lines(&safe),
            safe,
            "nothing left for the terminal's escape"
        );
        let back: serde_json::Value = serde_json::from_str(&safe).unwrap();
        assert_eq!(back, value);
    }

    #[test]
    fn controls_are_escaped_and_text_is_not() {
        assert_eq!(escape("plain · text"), "plain · text");
        assert_eq!(
            escape("a\x1b[2Kb\rc\u{9b}d\u{202e}e\nf"),
            "a\\x1b[2Kb\\rc\\u{9b}d\\u{202e}e\\nf"
        );
        assert_eq!(escape_lines("one\ntwo\x07\n"), "one\ntwo\\x07\n");
    }
}
