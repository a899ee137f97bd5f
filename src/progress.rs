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
