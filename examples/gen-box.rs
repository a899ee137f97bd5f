//! Writes a deterministic gate box (see `exhibit_testkit::gen_box`):
//!
//!     cargo run --release --example gen-box -- --lines N --seed S --out DIR [--no-witness]
//!         [--start YYYY-MM-DDTHH:MM:SSZ] [--anchor-tz ZONE] [--tail-start YYYY-MM-DDTHH:MM:SSZ]
//!         [--ident-per-mille N]   (N per mille of ordinary lines withheld; default: the usual mix)
//!
//! Refuses a DIR that exists and is not empty. Prints the box's summary as JSON on stdout.
//!
//!     gen-box --lines N --seed S --out BOX [--start TS] [--tail-start TS]
//!         --store-lines K --store-out DIR [--store-over J]
//!
//! Writes nothing into BOX, the box those options made: writes into DIR (absent or empty) its
//! witness store as it stood when the ledger held its first K lines (K = N: the box's own store,
//! byte for byte; see `gen_box::write_store_as_of`). With `--store-over J`, only the files by
//! which that store differs from the one as of J lines, to lay over a copy of that one; the
//! files to take from the copy first (none when J < K: a store only grows) are printed on
//! stdout, one path relative to the store a line. A summary goes to stderr.

use std::path::PathBuf;
use std::process::ExitCode;

use exhibit_testkit::gen_box::{self, BoxOptions};

const USAGE: &str = "usage: gen-box --lines N --seed S --out DIR [--no-witness] [--start TS] [--anchor-tz ZONE] [--tail-start TS] [--ident-per-mille N] [--store-lines K --store-out STORE [--store-over J]]";

/// `--store-lines K --store-out DIR [--store-over J]`: a store as of K lines of the box at --out.
struct StoreAsked {
    lines: u64,
    out: PathBuf,
    over: Option<u64>,
}

fn count(name: &str, v: String) -> Result<u64, String> {
    v.parse::<u64>()
        .map_err(|_| format!("{name} {v:?} is not a count"))
}

fn parse() -> Result<(BoxOptions, PathBuf, Option<StoreAsked>), String> {
    let mut opts = BoxOptions::default();
    let mut out = None;
    let mut lines = None;
    let mut seed = None;
    let (mut store_lines, mut store_out, mut store_over) = (None, None, None);
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
            "--store-lines" => store_lines = Some(count("--store-lines", value("--store-lines")?)?),
            "--store-out" => store_out = Some(PathBuf::from(value("--store-out")?)),
            "--store-over" => store_over = Some(count("--store-over", value("--store-over")?)?),
            "-h" | "--help" => return Err(USAGE.to_string()),
            other => return Err(format!("unknown argument {other:?}\n{USAGE}")),
        }
    }
    opts.lines = lines.ok_or_else(|| format!("--lines is required\n{USAGE}"))?;
    opts.seed = seed.ok_or_else(|| format!("--seed is required\n{USAGE}"))?;
    let out = out.ok_or_else(|| format!("--out is required\n{USAGE}"))?;
    let store = match (store_lines, store_out, store_over) {
        (Some(lines), Some(out), over) => Some(StoreAsked { lines, out, over }),
        (None, None, None) => None,
        _ => {
            return Err(format!(
                "--store-lines and --store-out go together (--store-over with them)\n{USAGE}"
            ));
        }
    };
    Ok((opts, out, store))
}

/// The store as of fewer lines: the files to remove on stdout, a summary on stderr.
fn store(opts: &BoxOptions, boxdir: &std::path::Path, asked: &StoreAsked) -> ExitCode {
    match gen_box::write_store_as_of(opts, boxdir, asked.lines, asked.over, &asked.out) {
        Ok(done) => {
            for path in &done.removed {
                println!("{path}");
            }
            let w = &done.witness;
            eprintln!(
                "gen-box: {}: the store as of {} lines, read at {}: {} entries, {} runs; {} file(s) written, {} to remove",
                asked.out.display(),
                done.lines,
                done.read_at,
                w.store_entries,
                w.runs,
                done.written,
                done.removed.len()
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("gen-box: {e:#}");
            ExitCode::from(2)
        }
    }
}

fn main() -> ExitCode {
    let (opts, out, asked) = match parse() {
        Ok(x) => x,
        Err(e) => {
            eprintln!("gen-box: {e}");
            return ExitCode::from(2);
        }
    };
    if let Some(asked) = asked {
        return store(&opts, &out, &asked);
    }
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
