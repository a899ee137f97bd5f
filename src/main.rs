//! `exhibit`: the command line. Flags become one validated plan before any work starts
//! (`cli`), then the plan runs. Exit status, every command (docs/protocol.md#commands): 0 done / re-derives,
//! 1 the inputs have problems, 2 usage or I/O error — and 2 when a report could not be written
//! to stdout or stderr (docs/build.md#safety: no input makes exhibit panic).

#![deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::process::ExitCode;

fn main() -> ExitCode {
    // First, before any thread or repository (docs/scale.md#packs-mapped).
    exhibit::previous::bound_mapped_packs();
    let code = match exhibit::cli::plan_from_args(std::env::args_os()) {
        Err(exit) => exit,
        Ok(plan) => match exhibit::cli::run(plan) {
            Ok(code) => code,
            Err(error) => {
                exhibit::say!(
                    "exhibit: error: {}",
                    exhibit::terminal::escape(&format!("{error:#}"))
                );
                ExitCode::from(2)
            }
        },
    };
    if exhibit::terminal::output_failed() {
        return ExitCode::from(2);
    }
    code
}
