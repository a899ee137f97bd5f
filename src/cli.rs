//! Raw flags parsed into one validated plan before any work starts (ripgrep/fd style).

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::build::{self, BuildPlan};
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
    /// Build the exhibit from the box that exhibit.toml describes.
    Build {
        /// The box's configuration.
        #[arg(long, value_name = "FILE", default_value = "exhibit.toml")]
        config: PathBuf,
        /// The output folder (inside the exhibit branch's checkout).
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
        /// Publish the per-line witness layer from this store (overrides [publish] witness).
        #[arg(long, value_name = "STORE")]
        witness: Option<PathBuf>,
        /// Publish the released bytes of allow-listed public sends (overrides [publish]).
        #[arg(long)]
        public_texts: bool,
        /// A person has read this withheld text (its sent_sha256) and releases it.
        #[arg(long = "allow-text", value_name = "SHA256")]
        allow_text: Vec<String>,
        /// A person has read this line (its seq; 0 is the header) and publishes it as it is.
        #[arg(long = "allow-line", value_name = "SEQ")]
        allow_line: Vec<i64>,
        /// Accept a publication that does not extend the last one, for this recorded reason.
        #[arg(long = "allow-rewrite", value_name = "REASON")]
        allow_rewrite: Option<String>,
        /// Day 1 of the witness kill-gate window, once the operator has registered it.
        #[arg(long = "witness-window-since", value_name = "YYYY-MM-DD")]
        witness_window_since: Option<String>,
        /// Write nothing; print what would change in DIR.
        #[arg(long)]
        dry_run: bool,
    },
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
    Build(Box<BuildPlan>),
}

/// Parses the command line. On `--help`, `--version` or a usage error, prints and returns the
/// exit code to use (0 for help, 2 for a usage error).
pub fn plan_from_args(args: impl IntoIterator<Item = OsString>) -> Result<Plan, ExitCode> {
    let cli = Cli::try_parse_from(args).map_err(|e| {
        if e.print().is_err() || e.use_stderr() {
            ExitCode::from(2)
        } else {
            ExitCode::SUCCESS
        }
    })?;
    Ok(match cli.command {
        Command::Build {
            config,
            out,
            witness,
            public_texts,
            allow_text,
            allow_line,
            allow_rewrite,
            witness_window_since,
            dry_run,
        } => {
            let usage = |msg: String| {
                crate::say!("exhibit: usage: {}", crate::terminal::escape(&msg));
                ExitCode::from(2)
            };
            for sha in &allow_text {
                if !exhibit_protocol::canonical::is_digest(sha) {
                    return Err(usage(format!(
                        "--allow-text {sha:?}: not a sent_sha256 (64 lowercase hex)"
                    )));
                }
            }
            if let Some(bad) = allow_line.iter().find(|s| **s < 0) {
                return Err(usage(format!("--allow-line {bad}: not a seq")));
            }
            if let Some(reason) = &allow_rewrite
                && reason.trim().is_empty()
            {
                return Err(usage(
                    "--allow-rewrite needs a reason a reader can read".into(),
                ));
            }
            if let Some(day) = &witness_window_since
                && !exhibit_protocol::days::is_day(day)
            {
                return Err(usage(format!(
                    "--witness-window-since {day:?}: not a YYYY-MM-DD day"
                )));
            }
            let box_config = crate::config::load(&config).map_err(|e| {
                crate::say!(
                    "exhibit: error: {}",
                    crate::terminal::escape(&format!("{e:#}"))
                );
                ExitCode::from(2)
            })?;
            let built_at = build::built_at_from_env().map_err(|e| usage(format!("{e:#}")))?;
            Plan::Build(Box::new(BuildPlan {
                witness: witness.or_else(|| box_config.witness.clone()),
                public_texts: public_texts || box_config.public_texts,
                config: box_config,
                out,
                allow_text: allow_text.into_iter().collect(),
                allow_line: allow_line.into_iter().collect(),
                allow_rewrite,
                witness_window_since,
                dry_run,
                built_at,
            }))
        }
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
        Plan::Build(plan) => build::run(&plan),
    }
}
