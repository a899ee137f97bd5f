//! Raw flags parsed into one validated plan before any work starts (ripgrep/fd style).

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::verify_cmd::{self, VerifyPlan};

#[derive(Parser, Debug)]
#[command(
    name = "exhibit",
    version,
    about = "Turns an agent's send ledger into a public exhibit a stranger can re-derive"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Re-derive a ledger (a .jsonl file) or a built or cloned exhibit (a directory).
    Verify {
        /// One JSON object on stdout (CONTRACT §1) instead of words.
        #[arg(long)]
        json: bool,
        /// The withheld list (withheld.json) to bridge the chain across withheld seqs.
        #[arg(long, value_name = "withheld.json")]
        withheld: Option<PathBuf>,
        /// A folder of posted heads (<date>.txt and <date>.txt.ots) to check against the ledger.
        #[arg(long, value_name = "DIR")]
        anchors: Option<PathBuf>,
        /// The ledger file, or an exhibit's directory.
        path: PathBuf,
    },
}

/// Everything a command needs, checked.
#[derive(Debug)]
pub enum Plan {
    Verify(VerifyPlan),
}

/// Parses the command line. On `--help`, `--version` or a usage error, prints and returns the
/// exit code to use (0 for help, 2 for a usage error).
pub fn plan_from_args(args: impl IntoIterator<Item = OsString>) -> Result<Plan, ExitCode> {
    let cli = Cli::try_parse_from(args).map_err(|e| {
        let _ = e.print();
        if e.use_stderr() {
            ExitCode::from(2)
        } else {
            ExitCode::SUCCESS
        }
    })?;
    Ok(match cli.command {
        Command::Verify {
            json,
            withheld,
            anchors,
            path,
        } => Plan::Verify(VerifyPlan {
            json,
            withheld,
            anchors,
            path,
        }),
    })
}

pub fn run(plan: Plan) -> anyhow::Result<ExitCode> {
    match plan {
        Plan::Verify(plan) => verify_cmd::run(&plan),
    }
}
