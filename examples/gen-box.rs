//! Writes a deterministic gate box (see `exhibit_testkit::gen_box`):
//!
//!     cargo run --release --example gen-box -- --lines N --seed S --out DIR [--no-witness]
//!         [--start YYYY-MM-DDTHH:MM:SSZ] [--anchor-tz ZONE] [--tail-start YYYY-MM-DDTHH:MM:SSZ]
//!         [--ident-per-mille N]   (N per mille of ordinary lines withheld; default: the usual mix)
//!
//! Refuses a DIR that exists and is not empty. Prints the box's summary as JSON on stdout.

use std::path::PathBuf;
use std::process::ExitCode;

use exhibit_testkit::gen_box::{self, BoxOptions};

const USAGE: &str = "usage: gen-box --lines N --seed S --out DIR [--no-witness] [--start TS] [--anchor-tz ZONE] [--tail-start TS] [--ident-per-mille N]";

fn parse() -> Result<(BoxOptions, PathBuf), String> {
    let mut opts = BoxOptions::default();
    let mut out = None;
    let mut lines = None;
    let mut seed = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = |name: &str| args.next().ok_or_else(|| format!("{name} needs a value"));
        match arg.as_str() {
            "--lines" => {
                let v = value("--lines")?;
                lines = Some(
                    v.parse::<u64>()
                        .map_err(|_| format!("--lines {v:?} is not a count"))?,
                );
            }
            "--seed" => {
                let v = value("--seed")?;
                seed = Some(
                    v.parse::<u64>()
                        .map_err(|_| format!("--seed {v:?} is not an integer"))?,
                );
            }
            "--out" => out = Some(PathBuf::from(value("--out")?)),
            "--start" => opts.start = value("--start")?,
            "--anchor-tz" => opts.anchor_tz = value("--anchor-tz")?,
            "--tail-start" => opts.tail_start = Some(value("--tail-start")?),
            "--no-witness" => opts.witness = false,
            "--ident-per-mille" => {
                let v = value("--ident-per-mille")?;
                opts.ident_per_mille = Some(
                    v.parse::<u64>()
                        .ok()
                        .filter(|n| *n <= 1000)
                        .ok_or_else(|| format!("--ident-per-mille {v:?} is not 0 to 1000"))?,
                );
            }
            "-h" | "--help" => return Err(USAGE.to_string()),
            other => return Err(format!("unknown argument {other:?}\n{USAGE}")),
        }
    }
    opts.lines = lines.ok_or_else(|| format!("--lines is required\n{USAGE}"))?;
    opts.seed = seed.ok_or_else(|| format!("--seed is required\n{USAGE}"))?;
    let out = out.ok_or_else(|| format!("--out is required\n{USAGE}"))?;
    Ok((opts, out))
}

fn main() -> ExitCode {
    let (opts, out) = match parse() {
        Ok(x) => x,
        Err(e) => {
            eprintln!("gen-box: {e}");
            return ExitCode::from(2);
        }
    };
    match gen_box::generate(&opts, &out) {
        Ok(summary) => {
            println!(
                "{}",
                serde_json::to_string_pretty(&summary).expect("summary serialises")
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("gen-box: {e:#}");
            ExitCode::from(2)
        }
    }
}
