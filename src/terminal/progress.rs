//! What a build is doing, for a person at a terminal (docs/operator.md#progress): each stage
//! named as it starts and as it ends, and a bar where a stage knows its total. Only when the
//! build turned it on — stderr a terminal, not `--json`, not `--quiet`, not in CI, `TERM` not
//! `dumb` — so that a pipe, a log or a test reading stderr sees exactly what it saw before.

use std::io::{IsTerminal, Write};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

static ON: AtomicBool = AtomicBool::new(false);

/// The stage running and when it started, when the last stage (or part of one) ended, and
/// whether a line without its LF is shown.
struct Stages {
    running: Option<String>,
    started: Instant,
    since: Instant,
    transient: bool,
}

static STAGES: Mutex<Option<Stages>> = Mutex::new(None);

/// Whether a person reads stderr at a terminal: what `exhibit build` passes to [`show`].
pub fn for_a_person(json: bool, quiet: bool) -> bool {
    !json
        && !quiet
        && std::io::stderr().is_terminal()
        && std::env::var_os("CI").is_none()
        && std::env::var_os("TERM").is_none_or(|t| t != "dumb")
}

/// Turns the stages' names and bars on (or off) for the rest of the process.
pub fn show(on: bool) {
    ON.store(on, Ordering::Relaxed);
    let mut stages = STAGES.lock().unwrap_or_else(|e| e.into_inner());
    *stages = on.then(|| Stages {
        running: None,
        started: Instant::now(),
        since: Instant::now(),
        transient: false,
    });
}

fn on() -> bool {
    ON.load(Ordering::Relaxed)
}

fn write_err(text: &str) {
    let mut err = std::io::stderr().lock();
    if err
        .write_all(text.as_bytes())
        .and_then(|()| err.flush())
        .is_err()
    {
        crate::terminal::note_failure();
    }
}

/// `stage` starts: named on a line the next stage's name or bar replaces.
pub fn stage_start(stage: &str) {
    if !on() {
        return;
    }
    let mut guard = STAGES.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(s) = guard.as_mut() {
        s.running = Some(stage.to_string());
        s.started = Instant::now();
        s.transient = true;
        write_err(&format!("\r\x1b[Kexhibit: {stage} ..."));
    }
}

/// Before any other line on stderr: the line without its LF is cleared, so that a note does
/// not run on after a stage's name or a bar.
pub fn clear_line() {
    if !on() {
        return;
    }
    let mut guard = STAGES.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(s) = guard.as_mut()
        && s.transient
    {
        s.transient = false;
        write_err("\r\x1b[K");
    }
}

/// Says that `stage` ended, with the seconds since the previous stage ended; the stage still
/// running around it (a part of the layers', say) is named again below.
fn said_done(stage: &str) {
    let mut guard = STAGES.lock().unwrap_or_else(|e| e.into_inner());
    let Some(s) = guard.as_mut() else {
        return;
    };
    // A stage named as it started is timed from its start; a part of one from the end of the
    // previous part.
    let from = if s.running.as_deref() == Some(stage) {
        s.started
    } else {
        s.since
    };
    let secs = from.elapsed().as_secs_f64();
    s.since = Instant::now();
    let mut text = format!("\r\x1b[Kexhibit: {stage}: done in {secs:.1} s\n");
    s.transient = false;
    if let Some(running) = s.running.take_if(|r| r != stage) {
        text.push_str(&format!("exhibit: {running} ..."));
        s.transient = true;
        s.running = Some(running);
    }
    write_err(&text);
}

/// The build's last stage, if named, is done: said, and nothing more is shown, so that the
/// build's summary is the last thing a person reads.
pub fn end(stage: Option<&str>) {
    if !on() {
        return;
    }
    match stage {
        Some(stage) => said_done(stage),
        None => clear_line(),
    }
    show(false);
}

/// A bar for a stage that knows its total: drawn at most every 100 ms, and only once the
/// stage has run for 100 ms.
pub struct Progress {
    last: Instant,
}

impl Progress {
    pub fn new() -> Progress {
        Progress {
            last: Instant::now(),
        }
    }

    /// `done` of `total` of `stage` done; `said` names what is counted (`12,000 lines`).
    pub fn tick(&mut self, stage: &str, done: u64, total: u64, said: impl FnOnce() -> String) {
        if !on() || self.last.elapsed() < Duration::from_millis(100) {
            return;
        }
        self.last = Instant::now();
        let mut guard = STAGES.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(s) = guard.as_mut() {
            s.transient = true;
        }
        write_err(&format!(
            "\r\x1b[K{}",
            bar_line(stage, done, total, &said())
        ));
    }
}

/// `exhibit: STAGE [####----------------]  20% (SAID)`: a bar of 20 steps of 5%.
fn bar_line(stage: &str, done: u64, total: u64, said: &str) -> String {
    let done = done.min(total);
    let pct = (done.saturating_mul(100)).checked_div(total).unwrap_or(100);
    let filled = usize::try_from(pct / 5).unwrap_or(20).min(20);
    let bar = format!("{}{}", "#".repeat(filled), "-".repeat(20 - filled));
    format!("exhibit: {stage} [{bar}] {pct:>3}% ({said})")
}

impl Default for Progress {
    fn default() -> Self {
        Progress::new()
    }
}

/// A stage is done: the memory it let go is given back to the system
/// (docs/scale.md#giving-memory-back), then the stage is marked for `EXHIBIT_STAGE_TIMES`.
pub fn stage_done(stage: &str) {
    crate::terminal::memory::give_back();
    stage_times::mark(stage);
    if on() {
        said_done(stage);
    }
}

/// Where the build's time goes, stage by stage: with `EXHIBIT_STAGE_TIMES` set, each mark prints
/// on stderr the wall and CPU seconds since the previous mark, and the process's resident
/// memory and its high-water mark (docs/scale.md#stage-times). A measuring aid for `benches/`: it changes
/// nothing a build writes, and prints nothing when the variable is unset.
pub mod stage_times {
    use std::sync::Mutex;
    use std::time::Instant;

    struct Last {
        wall: Instant,
        cpu: Option<f64>,
    }

    static LAST: Mutex<Option<Last>> = Mutex::new(None);

    fn enabled() -> bool {
        static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
        *ON.get_or_init(|| std::env::var_os("EXHIBIT_STAGE_TIMES").is_some())
    }

    /// User + system CPU seconds of this process (Linux `/proc/self/stat`, fields 14 and 15,
    /// in clock ticks of 1/100 s); `None` elsewhere.
    fn cpu_seconds() -> Option<f64> {
        let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
        // The command name (field 2) may hold spaces; the fields after it follow its `)`.
        let rest = &stat[stat.rfind(')')? + 2..];
        let fields: Vec<&str> = rest.split(' ').collect();
        let utime: f64 = fields.get(11)?.parse().ok()?;
        let stime: f64 = fields.get(12)?.parse().ok()?;
        Some((utime + stime) / 100.0)
    }

    /// A field of `/proc/self/status` in MiB: `VmRSS` (resident now) or `VmHWM` (its
    /// high-water mark).
    fn status_mib(field: &str) -> Option<u64> {
        let status = std::fs::read_to_string("/proc/self/status").ok()?;
        let line = status.lines().find(|l| l.starts_with(field))?;
        let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
        Some(kib / 1024)
    }

    /// Starts the clock: the first stage is timed from here.
    pub fn start() {
        if !enabled() {
            return;
        }
        let mut last = LAST.lock().unwrap_or_else(|e| e.into_inner());
        *last = Some(Last {
            wall: Instant::now(),
            cpu: cpu_seconds(),
        });
    }

    /// Says what a stage took from the previous build instead of doing again
    /// (docs/scale.md#carried-verdicts): a measuring aid, printed only with the stage times.
    pub fn carried(what: &str) {
        if enabled() {
            crate::say!("exhibit: carried: {what}");
        }
    }

    /// Marks the end of `stage`.
    pub fn mark(stage: &str) {
        if !enabled() {
            return;
        }
        let now = Instant::now();
        let cpu = cpu_seconds();
        let mut last = LAST.lock().unwrap_or_else(|e| e.into_inner());
        let (wall, used) = match last.as_ref() {
            Some(l) => (
                now.duration_since(l.wall).as_secs_f64(),
                cpu.zip(l.cpu).map(|(c, p)| c - p),
            ),
            None => (0.0, cpu),
        };
        *last = Some(Last { wall: now, cpu });
        drop(last);
        let used = used.map_or("?".to_string(), |c| format!("{c:.2}"));
        let mib = |field| status_mib(field).map_or("?".to_string(), |m| m.to_string());
        crate::say!(
            "exhibit: stage {stage}: {wall:.2} s wall, {used} s CPU, resident {} MiB, peak {} MiB{}",
            mib("VmRSS:"),
            mib("VmHWM:"),
            in_use().map_or(String::new(), |m| format!(", in use {m} MiB"))
        );
    }

    /// The bytes the allocator holds for live values, in MiB (glibc's `mallinfo2`: the heap's
    /// blocks in use and its mapped ones): beside the resident figure, what is held and what is
    /// only not yet given back.
    fn in_use() -> Option<u64> {
        #[cfg(all(target_os = "linux", target_env = "gnu"))]
        {
            // SAFETY: glibc's `mallinfo2` reads its own arenas' counters and returns them by
            // value; no Rust value is touched.
            let info = unsafe { libc::mallinfo2() };
            Some(((info.uordblks + info.hblkhd) >> 20) as u64)
        }
        #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
        None
    }
}

#[cfg(test)]
mod tests {
    use super::bar_line;

    /// Catches a bar whose length or percentage does not follow the count, and a total of
    /// nothing (or a count past it) that divides by zero or overflows the bar.
    #[test]
    fn a_bar_follows_its_count() {
        assert_eq!(
            bar_line("write", 45, 100, "45 of 100 files"),
            "exhibit: write [#########-----------]  45% (45 of 100 files)"
        );
        assert_eq!(
            bar_line("verify", 0, 0, "line 1"),
            "exhibit: verify [####################] 100% (line 1)"
        );
        assert!(bar_line("x", 7, 3, "").contains("[####################] 100%"));
        assert!(bar_line("x", 1, 3, "").contains("[######--------------]  33%"));
    }
}
