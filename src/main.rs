//! `exhibit`: the command line. Flags become one validated plan before any work starts
//! (`cli`), then the plan runs. Exit status, every command (CONTRACT §1): 0 done / re-derives,
//! 1 the inputs have problems, 2 usage or I/O error.

use std::process::ExitCode;

fn main() -> ExitCode {
    let plan = match exhibit::cli::plan_from_args(std::env::args_os()) {
        Ok(plan) => plan,
        Err(exit) => return exit,
    };
    match exhibit::cli::run(plan) {
        Ok(code) => code,
        Err(error) => {
            eprintln!("exhibit: error: {error:#}");
            ExitCode::from(2)
        }
    }
}
