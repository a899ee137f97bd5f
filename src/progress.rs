//! A progress line on stderr for long builds, only when stderr is a terminal and not in CI.

use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

pub struct Progress {
    enabled: bool,
    last: Instant,
    shown: bool,
}

impl Progress {
    pub fn new() -> Progress {
        Progress {
            enabled: std::io::stderr().is_terminal() && std::env::var_os("CI").is_none(),
            last: Instant::now(),
            shown: false,
        }
    }

    /// Reports `stage` at most every 100 ms.
    pub fn tick(&mut self, stage: &str, lines: u64, done: u64, total: u64) {
        if !self.enabled || self.last.elapsed() < Duration::from_millis(100) {
            return;
        }
        self.last = Instant::now();
        self.shown = true;
        let pct = (done * 100).checked_div(total).unwrap_or(100);
        let mut err = std::io::stderr().lock();
        if write!(err, "\r{stage}: {lines} lines ({pct}%)   ")
            .and_then(|()| err.flush())
            .is_err()
        {
            crate::terminal::note_failure();
        }
    }

    pub fn done(&mut self) {
        if self.shown {
            crate::say!("");
            self.shown = false;
        }
    }
}

impl Default for Progress {
    fn default() -> Self {
        Progress::new()
    }
}

/// A stage is done: the memory it let go is given back to the system
/// (docs/scale.md#giving-memory-back), then the stage is marked for `EXHIBIT_STAGE_TIMES`.
pub fn stage_done(stage: &str) {
    crate::memory::give_back();
    stage_times::mark(stage);
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
            "exhibit: stage {stage}: {wall:.2} s wall, {used} s CPU, resident {} MiB, peak {} MiB",
            mib("VmRSS:"),
            mib("VmHWM:")
        );
    }
}
