//! Raw flags parsed into one validated plan before any work starts (ripgrep/fd style). The
//! same definitions give `--help`, the shell completions and the man page, so the three cannot
//! disagree (docs/operator.md#the-command-line).

pub mod cosign;
pub mod init;
pub mod prove;
pub mod serve;
pub mod verify;

use exhibit_protocol::Digest;
use std::ffi::OsString;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand};

use crate::publication::{self, BuildPlan};
use init::InitPlan;
use verify::VerifyPlan;

/// The exit-code table, shown by every command's `--help` and in the man page.
const EXIT_STATUS: &str = "\
Exit status (every command):
  0  done: built, written, the ledger or exhibit re-derives, or the message is proved
  1  the inputs have problems: verify found problems, prove found no included line
     (or the older checkpoint is not extended), or the build refused
     (a refusal names the file, the seq or line, the rule and the flag that accepts it)
  2  usage or I/O error, or init found a file it would overwrite
A refused or failed build leaves the output folder exactly as it was.";

const TOP_EXAMPLES: &str = "\
Examples:
  exhibit init --pages                  write exhibit.toml and the GitHub Pages workflow
  exhibit build --out docs --dry-run    review what the next publication adds
  exhibit build --out docs              write it; then: git add docs && git commit
  exhibit verify docs                   check a built or cloned exhibit as a stranger would
  exhibit verify --json ledger.jsonl    re-derive a ledger; one JSON object on stdout
  exhibit prove --site docs --seq 2002  prove one line against the checkpoint, in log n
  exhibit completions bash > ~/.local/share/bash-completion/completions/exhibit

README.md and docs/ in the source repository explain the exhibit, GitHub Pages and every rule.";

const BUILD_EXAMPLES: &str = "\
Examples (in the exhibit branch's checkout, beside exhibit.toml):
  exhibit build --out docs --dry-run              what would change in docs/, nothing written
  exhibit build --out docs --dry-run --format markdown > review.md    for a pull request
  exhibit build --out docs                        write docs/; then git add docs && git commit
  exhibit build --out docs --json --quiet | jq .head                  for scripts
  exhibit build --out docs --allow-line 42        publish seq 42 as it is, after reading it
  exhibit build --out docs --allow-rewrite \"gate re-chained after disk loss\"

The previous publication is read from git HEAD, never from the files on disk.
SOURCE_DATE_EPOCH sets the build time: the same inputs and HEAD give the same bytes.";

const VERIFY_EXAMPLES: &str = "\
Examples:
  exhibit verify ledger.jsonl                              re-derive a ledger file
  exhibit verify --withheld withheld.json ledger.jsonl     bridge the chain across withheld seqs
  exhibit verify --anchors gate/anchors ledger.jsonl       also check the posted heads
  exhibit verify docs                                      a built or cloned exhibit
  exhibit verify --json docs | jq .ok                      for scripts";

const PROVE_EXAMPLES: &str = "\
Examples (in a clone of the exhibit's branch, or any copy of its folder):
  exhibit prove --site docs --seq 2002                 the line at seq 2002, proved in log n
  exhibit prove --site docs --text message.txt         a message you hold (its trailer's seq,
                                                       or its sha256 through the index)
  exhibit prove --site docs --sha256 <64 hex>          a message's digest
  exhibit prove --site docs --seq 1 --since old-checkpoint    also: does today's tree extend
                                                       the checkpoint you kept?
  exhibit prove --site docs --sha256 <64 hex> --json | jq .ok

Reads the checkpoint, the index buckets and tiles it needs and one lines file, never the whole
ledger; exit 0 when every line found is included (and the older checkpoint is extended).";

const KEY_EXAMPLES: &str = "\
Examples:
  exhibit key --name example.github.io/exhibit --out ~/.config/exhibit/key
      then in exhibit.toml:  [checkpoint]  key = \"~/.config/exhibit/key\" (a full path)

The key file is written with mode 0600, never over a file, and never inside a git work tree
(a key there is one `git add` away from being published). The verifier key printed on stdout
is public: post it beside each day's head, where strangers can compare it.";

const COSIGN_EXAMPLES: &str = "\
Examples (after the build, before the commit):
  exhibit build --out docs && exhibit cosign --out docs && git add docs && git commit

Each [[checkpoint.witness]] of exhibit.toml is sent DIR's signed checkpoint with the consistency
proof from the size it last cosigned; every cosignature that holds under its key is written under
the checkpoint (the file and the page's copy); the checkpoint's body is never changed. Exit 1
when a witness refused or could not be reached (the others' cosignatures are written).";

const INIT_EXAMPLES: &str = "\
Examples:
  exhibit init                          exhibit.toml only
  exhibit init --pages                  also .github/workflows/exhibit-pages.yml (deploys docs/)
  exhibit init --pages --out site --branch main

Init writes nothing when a file it would write exists (exit 2); with --pages an existing
exhibit.toml is kept and only the workflow is added.";

#[derive(Parser, Debug)]
#[command(
    name = "exhibit",
    version,
    about = "Turns an agent's send ledger into a public exhibit a stranger can re-derive",
    long_about = "Turns an AI agent's append-only send ledger into a public exhibit: a folder of \
plain files for a git branch and GitHub Pages, and one page with which a stranger re-derives \
every digest of the chain, checks the posted heads and their proofs, and tests whether a message \
they hold was really sent. No private text, chat id or personal identifier leaves the box.",
    after_help = format!("{TOP_EXAMPLES}\n\n{EXIT_STATUS}"),
    subcommand_required = true,
    arg_required_else_help = true
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Write a commented exhibit.toml (and, with --pages, the GitHub Pages workflow) here.
    #[command(after_help = format!("{INIT_EXAMPLES}\n\n{EXIT_STATUS}"))]
    Init(InitArgs),
    /// Build the exhibit from the box that exhibit.toml describes.
    #[command(after_help = format!("{BUILD_EXAMPLES}\n\n{EXIT_STATUS}"))]
    Build(BuildArgs),
    /// Re-derive a ledger (a .jsonl file) or a built or cloned exhibit (a directory).
    #[command(after_help = format!("{VERIFY_EXAMPLES}\n\n{EXIT_STATUS}"))]
    Verify {
        /// One JSON object on stdout instead of words:
        /// {"schema": "exhibit-verify/1", "ok", "entries", "head", "problems": [{"line", "seq",
        /// "code", "detail"}], "bridged"}; every member in docs/json.md.
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
    /// Prove one message against an exhibit's checkpoint, reading a few files (docs/tree.md).
    #[command(after_help = format!("{PROVE_EXAMPLES}\n\n{EXIT_STATUS}"))]
    Prove(ProveArgs),
    /// Write a new operator's key (Ed25519, C2SP signed-note) and print its verifier key.
    #[command(after_help = format!("{KEY_EXAMPLES}\n\n{EXIT_STATUS}"))]
    Key(KeyArgs),
    /// Ask the witnesses exhibit.toml lists to cosign DIR's checkpoint (C2SP tlog-witness).
    #[command(after_help = format!("{COSIGN_EXAMPLES}\n\n{EXIT_STATUS}"))]
    Cosign(CosignArgs),
    /// Serve an exhibit's folder on this machine as GitHub Pages would, to preview it.
    #[command(after_help = format!("{SERVE_EXAMPLES}\n\n{EXIT_STATUS}"))]
    Serve(ServeArgs),
    /// Print a shell completion script on stdout.
    #[command(after_help = "\
Examples:
  exhibit completions bash > ~/.local/share/bash-completion/completions/exhibit
  exhibit completions zsh > ~/.zfunc/_exhibit       # with fpath+=(~/.zfunc) in ~/.zshrc
  exhibit completions fish > ~/.config/fish/completions/exhibit.fish
  exhibit completions powershell >> $PROFILE")]
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff) on stdout: of exhibit, or of one command.
    #[command(after_help = "\
Examples:
  exhibit man | man -l -
  exhibit man build > ~/.local/share/man/man1/exhibit-build.1")]
    Man {
        /// A command (init, build, verify, prove, cosign, key, completions); without it, the page of exhibit.
        command: Option<String>,
    },
}

#[derive(clap::Args, Debug)]
#[command(group(clap::ArgGroup::new("what").required(true).multiple(true).args(["seq", "sha256", "text", "excerpt", "since"])))]
struct ProveArgs {
    /// The exhibit's folder: what `exhibit build --out` wrote, or a clone of its branch.
    #[arg(long, value_name = "DIR")]
    site: PathBuf,
    /// The line with this seq.
    #[arg(long, value_name = "N")]
    seq: Option<u64>,
    /// The lines whose sent, checked, stripped or draft digest is this sha256 (64 hex).
    #[arg(long, value_name = "HEX")]
    sha256: Option<String>,
    /// A message's text as a file (`-` for stdin): its sha256, and the seq its trailer names.
    #[arg(long, value_name = "FILE")]
    text: Option<PathBuf>,
    /// An excerpt of a released text as a file (`-` for stdin), at least 12 words: the line whose
    /// released text holds it, word for word (docs/tree.md#excerpts).
    #[arg(long, value_name = "FILE")]
    excerpt: Option<PathBuf>,
    /// A checkpoint you kept from an earlier visit: today's tree must extend it.
    #[arg(long, value_name = "FILE")]
    since: Option<PathBuf>,
    /// One JSON object on stdout instead of words, with "schema": "exhibit-prove/1"; every
    /// member in docs/json.md.
    #[arg(long)]
    json: bool,
}

#[derive(clap::Args, Debug)]
struct ServeArgs {
    /// The exhibit's folder (what `exhibit build --out` wrote).
    #[arg(value_name = "DIR", default_value = ".", value_hint = clap::ValueHint::DirPath)]
    dir: PathBuf,
    /// Where to listen; another address than 127.0.0.1 shows the exhibit to the network.
    #[arg(long, value_name = "IP:PORT", default_value = "127.0.0.1:8000")]
    address: std::net::SocketAddr,
    /// Also open the page's address in the desktop's browser.
    #[arg(long)]
    open: bool,
}

const SERVE_EXAMPLES: &str = "\
Examples:
  exhibit serve docs                     http://127.0.0.1:8000/ until Ctrl-C
  exhibit serve docs --open              and open it in the browser
  exhibit serve docs --address 127.0.0.1:0    any free port (the address is printed)

Answers as GitHub Pages does: its content types, Cache-Control: max-age=600, byte ranges, a
folder's index.html and no listing; never a file outside DIR (.., encoded or not, and links).";

#[derive(clap::Args, Debug)]
struct KeyArgs {
    /// The log's name: its checkpoint origin, e.g. the exhibit's address.
    #[arg(long, value_name = "ORIGIN")]
    name: String,
    /// Where to write the private key: outside DIR and outside any repository.
    #[arg(long, value_name = "PATH")]
    out: PathBuf,
}

#[derive(clap::Args, Debug)]
struct CosignArgs {
    /// The box's configuration, which lists the witnesses.
    #[arg(long, value_name = "FILE", default_value = "exhibit.toml")]
    config: PathBuf,
    /// The output folder `exhibit build --out` wrote.
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
}

#[derive(clap::Args, Debug)]
struct InitArgs {
    /// Also write .github/workflows/exhibit-pages.yml, which deploys the committed exhibit
    /// folder to GitHub Pages (deploy only: the build stays on this box).
    #[arg(long)]
    pages: bool,
    /// The exhibit folder the workflow deploys (the --out of exhibit build).
    #[arg(long, value_name = "DIR", default_value = "docs")]
    out: String,
    /// The branch whose pushes deploy.
    #[arg(long, value_name = "NAME", default_value = "exhibit")]
    branch: String,
    /// Print nothing on success (a refusal is still said, on stderr).
    #[arg(long, short)]
    quiet: bool,
}

#[derive(clap::Args, Debug)]
struct BuildArgs {
    /// The box's configuration.
    #[arg(long, value_name = "FILE", default_value = "exhibit.toml")]
    config: PathBuf,
    /// The output folder (inside the exhibit branch's checkout); default: [publish] out of
    /// exhibit.toml, relative to that file.
    #[arg(long, value_name = "DIR", value_hint = clap::ValueHint::DirPath)]
    out: Option<PathBuf>,
    /// DIR holds no publication at HEAD although this repository's record names one: publish
    /// everything anew there, on purpose.
    #[arg(long)]
    first_publication: bool,
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
    /// Day 1 of the witness kill-gate window, once registered (overrides [publish]
    /// witness_window_since).
    #[arg(long = "witness-window-since", value_name = "YYYY-MM-DD")]
    witness_window_since: Option<String>,
    /// Write nothing; print what this publication adds, then what would change in DIR.
    #[arg(long)]
    dry_run: bool,
    /// The dry run's review as text (for a terminal) or Markdown (for a pull request).
    #[arg(
        long,
        value_name = "FORMAT",
        default_value = "text",
        requires = "dry_run"
    )]
    format: crate::publication::report::ReviewFormat,
    /// One JSON object on stdout: the summary of the build (with --dry-run, the review too),
    /// or the refusals, each with its code; notes stay on stderr. Exit codes are unchanged. Its
    /// "schema" is "exhibit-build/1"; every member in docs/json.md.
    #[arg(long, conflicts_with = "format")]
    json: bool,
    /// Print nothing on success: no notes, no summary line (refusals are still said).
    #[arg(long, short)]
    quiet: bool,
}

/// Everything a command needs, checked.
#[derive(Debug)]
pub enum Plan {
    Init(InitPlan),
    Verify(VerifyPlan),
    Build(Box<BuildPlan>),
    Prove(crate::cli::prove::ProvePlan),
    Cosign(crate::cli::cosign::CosignPlan),
    Key {
        name: String,
        out: PathBuf,
    },
    /// Text generated from the command-line definitions (completions, man page), for stdout.
    Print(Vec<u8>),
    Serve(crate::cli::serve::ServePlan),
}

/// The longest `--allow-rewrite` reason, in bytes (docs/build.md#bounded-records).
pub const MAX_REWRITE_REASON: usize = 280;

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
        Command::Init(args) => init_plan(args)?,
        Command::Completions { shell } => {
            let mut bytes = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "exhibit", &mut bytes);
            if shell == clap_complete::Shell::Bash {
                bytes = bash_paths_first(&String::from_utf8_lossy(&bytes)).into_bytes();
            }
            Plan::Print(bytes)
        }
        Command::Man { command } => Plan::Print(man_page(command.as_deref()).map_err(|msg| {
            crate::say!("exhibit: usage: {msg}");
            ExitCode::from(2)
        })?),
        Command::Build(args) => build_plan(args)?,
        Command::Prove(args) => prove_plan(args)?,
        Command::Key(KeyArgs { name, out }) => Plan::Key { name, out },
        Command::Cosign(CosignArgs { config, out }) => {
            Plan::Cosign(crate::cli::cosign::CosignPlan { config, out })
        }
        Command::Serve(ServeArgs { dir, address, open }) => {
            Plan::Serve(crate::cli::serve::ServePlan { dir, address, open })
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

fn prove_plan(args: ProveArgs) -> Result<Plan, ExitCode> {
    use crate::cli::prove::{ProvePlan, Wanted};
    let usage = |msg: String| {
        crate::say!("exhibit: usage: {msg}");
        ExitCode::from(2)
    };
    let given = [
        args.seq.is_some(),
        args.sha256.is_some(),
        args.text.is_some(),
        args.excerpt.is_some(),
    ];
    if given.iter().filter(|&&g| g).count() > 1 {
        return Err(usage(
            "prove: give one of --seq, --sha256, --text, --excerpt (and --since, or --since alone)"
                .into(),
        ));
    }
    if let Some(e) = args.excerpt {
        return Ok(Plan::Prove(ProvePlan {
            site: args.site,
            wanted: Some(Wanted::Excerpt(e)),
            since: args.since,
            json: args.json,
        }));
    }
    let wanted = match (args.seq, args.sha256, args.text) {
        (Some(s), _, _) => Some(Wanted::Seq(s)),
        (_, Some(hex), _) => Some(Wanted::Digest(hex.parse().map_err(|_| {
            usage(format!(
                "--sha256 {hex:?}: not 64 lowercase hex characters (a message's sha256, as `sha256sum` prints it)"
            ))
        })?)),
        (_, _, Some(t)) => Some(Wanted::Text(t)),
        _ => None,
    };
    Ok(Plan::Prove(ProvePlan {
        site: args.site,
        wanted,
        since: args.since,
        json: args.json,
    }))
}

fn init_plan(args: InitArgs) -> Result<Plan, ExitCode> {
    let InitArgs {
        pages,
        out,
        branch,
        quiet,
    } = args;
    let usage = |msg: String| {
        crate::say!("exhibit: usage: {msg}");
        ExitCode::from(2)
    };
    // `docs/` and `./docs` name the folder `docs`: the workflow's paths filter is `docs/**`.
    let out = if out.starts_with('/') {
        out
    } else {
        out.split('/')
            .filter(|p| !p.is_empty() && *p != ".")
            .collect::<Vec<_>>()
            .join("/")
    };
    let out_path = std::path::Path::new(&out);
    if out.is_empty()
        || out_path.is_absolute()
        || out_path
            .components()
            .any(|c| !matches!(c, std::path::Component::Normal(_)))
        || out.contains(['"', '\\', '\n'])
    {
        return Err(usage(format!(
            "--out {out:?}: the folder the workflow deploys must be a plain relative path inside the repository (e.g. site or docs)"
        )));
    }
    if branch.is_empty() || branch.contains(['"', '\\', '\n', ' ']) {
        return Err(usage(format!("--branch {branch:?}: not a branch name")));
    }
    let dir = std::env::current_dir().map_err(|e| {
        crate::say!("exhibit: error: the current folder: {e}");
        ExitCode::from(2)
    })?;
    Ok(Plan::Init(InitPlan {
        dir,
        pages,
        out,
        branch,
        quiet,
    }))
}

fn build_plan(args: BuildArgs) -> Result<Plan, ExitCode> {
    let BuildArgs {
        config,
        out,
        first_publication,
        witness,
        public_texts,
        allow_text,
        allow_line,
        allow_rewrite,
        witness_window_since,
        dry_run,
        format,
        json,
        quiet,
    } = args;
    let usage = |msg: String| {
        crate::say!("exhibit: usage: {}", crate::terminal::escape(&msg));
        ExitCode::from(2)
    };
    let mut allow_texts = std::collections::BTreeSet::new();
    for sha in &allow_text {
        let Ok(digest) = sha.parse::<Digest>() else {
            return Err(usage(format!(
                "--allow-text {sha:?}: not a sent_sha256 (64 lowercase hex)"
            )));
        };
        allow_texts.insert(digest);
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
    // The reason is written into the publication's snapshot line, which stays under 4 KiB at
    // any size (docs/build.md#bounded-records): one line of at most 280 bytes.
    if let Some(reason) = &allow_rewrite
        && (reason.len() > MAX_REWRITE_REASON || reason.chars().any(char::is_control))
    {
        return Err(usage(format!(
            "--allow-rewrite: the reason is {} bytes{}; it is published in the snapshot line, so it must be one line of at most {MAX_REWRITE_REASON} bytes (say the rest in the commit message)",
            reason.len(),
            if reason.chars().any(char::is_control) {
                " and holds a line break or another control character"
            } else {
                ""
            }
        )));
    }
    // The reason is published (SNAPSHOTS.jsonl, the page): it passes the guard as a text does.
    if let Some(reason) = &allow_rewrite {
        let codes: Vec<&str> =
            exhibit_protocol::guard::scan(reason, exhibit_protocol::guard::Context::PublicText)
                .into_iter()
                .map(exhibit_protocol::guard::Finding::code)
                .collect();
        if !codes.is_empty() {
            return Err(usage(format!(
                "--allow-rewrite: the reason is published and trips the identifier guard ({}); write it without the identifier (docs/guard.md)",
                codes.join(", ")
            )));
        }
    }
    if let Some(day) = &witness_window_since
        && !exhibit_protocol::days::is_day(day)
    {
        return Err(usage(format!(
            "--witness-window-since {day:?}: not a YYYY-MM-DD day"
        )));
    }
    // A box the build cannot use stops it here (exit 2), said in words and, with --json, as
    // the one JSON object.
    let unusable = |e: anyhow::Error| {
        crate::say!(
            "exhibit: error: {}",
            crate::terminal::escape(&format!("{e:#}"))
        );
        if json {
            crate::publication::report::error_json(crate::terminal::json_schema::BUILD, &e);
        }
        ExitCode::from(2)
    };
    let box_config = crate::publication::config::load(&config).map_err(unusable)?;
    // `--out` is relative to the current folder, `[publish] out` to exhibit.toml
    // (docs/operator.md#the-out-key).
    let Some(out) = out.or_else(|| box_config.out.clone()) else {
        return Err(usage(format!(
            "build: no output folder: give --out DIR, or set [publish] out = \"docs\" in {} (relative to that file)",
            config.display()
        )));
    };
    let built_at = publication::built_at_from_env().map_err(|e| usage(format!("{e:#}")))?;
    let key = operator_key(&box_config, &out).map_err(unusable)?;
    let witness_window_since =
        witness_window_since.or_else(|| box_config.witness_window_since.clone());
    Ok(Plan::Build(Box::new(BuildPlan {
        first_publication,
        key,
        witness: witness.or_else(|| box_config.witness.clone()),
        public_texts: public_texts || box_config.public_texts,
        config: box_config,
        out,
        allow_text: allow_texts,
        allow_line: allow_line.into_iter().collect(),
        allow_rewrite,
        witness_window_since,
        dry_run,
        voice: crate::publication::report::Voice {
            json,
            quiet,
            format,
        },
        built_at,
    })))
}

/// The operator's key when `[checkpoint] key` names one: read now, so that a build with a key it
/// cannot use does no work. Its name is the log's origin: a different `[checkpoint] origin` is
/// refused (docs/anchoring.md#the-key).
fn operator_key(
    config: &crate::publication::config::BoxConfig,
    out: &std::path::Path,
) -> anyhow::Result<Option<std::sync::Arc<crate::operator_box::signing::OperatorKey>>> {
    let Some(path) = &config.key else {
        return Ok(None);
    };
    if let (Ok(k), Ok(o)) = (std::path::absolute(path), std::path::absolute(out))
        && k.starts_with(&o)
    {
        anyhow::bail!(
            "{}: [checkpoint] key lies inside the output folder {}, which is published; keep the key outside it and outside the repository",
            path.display(),
            out.display()
        );
    }
    let key = crate::operator_box::signing::OperatorKey::read(path)?;
    if let Some(origin) = &config.origin
        && origin != &key.name
    {
        anyhow::bail!(
            "{}: [checkpoint] origin = {origin:?}, and the key at {} is named {:?}: a log's key is named by its origin; set the origin to the key's name, or remove it",
            config.file.display(),
            path.display(),
            key.name
        );
    }
    Ok(Some(std::sync::Arc::new(key)))
}

/// The man page of `exhibit` or of one of its commands, from the same definitions as `--help`.
fn man_page(command: Option<&str>) -> Result<Vec<u8>, String> {
    let top = Cli::command();
    let cmd = match command {
        None => top,
        Some(name) => {
            let names: Vec<String> = top
                .get_subcommands()
                .map(|c| c.get_name().to_string())
                .collect();
            let sub = top
                .find_subcommand(name)
                .ok_or_else(|| format!("man {name:?}: not a command ({})", names.join(", ")))?;
            // The page's name, `exhibit-build`; clap takes names as &'static str, and this
            // runs once per process.
            let page: &'static str = Box::leak(format!("exhibit-{name}").into_boxed_str());
            sub.clone().name(page).version(env!("CARGO_PKG_VERSION"))
        }
    };
    let mut bytes = Vec::new();
    clap_mangen::Man::new(cmd)
        .render(&mut bytes)
        .map_err(|e| e.to_string())?;
    Ok(man_sections(&String::from_utf8_lossy(&bytes)).into_bytes())
}

/// clap_mangen files `after_help` under `EXTRA`, filled (man joins the example lines into one
/// paragraph), and points each command at an `exhibit-build(1)` page no installation has: the
/// examples go under `EXAMPLES` and the exit codes under `EXIT STATUS`, both unfilled (`.nf`),
/// and a command is named as typed, with `exhibit man COMMAND` for its page
/// (docs/operator.md#man-pages).
fn man_sections(page: &str) -> String {
    let mut out = String::with_capacity(page.len());
    let mut section = "";
    let mut lines = page.lines().peekable();
    while let Some(line) = lines.next() {
        if let Some(name) = line.strip_prefix(".SH ") {
            if section == "EXTRA" {
                out.push_str(".fi\n");
            }
            section = name;
            if name == "EXTRA" {
                if lines.peek() == Some(&"Examples:") {
                    lines.next();
                }
                out.push_str(".SH EXAMPLES\n.nf\n");
                continue;
            }
            out.push_str(line);
            out.push('\n');
            if name == "SUBCOMMANDS" {
                out.push_str("Each command's page: \\fBexhibit man\\fR \\fICOMMAND\\fR.\n");
            }
            continue;
        }
        if section == "EXTRA" && line.starts_with("Exit status") {
            out.push_str(".fi\n.SH \"EXIT STATUS\"\n.nf\n");
            continue;
        }
        if section == "SUBCOMMANDS"
            && let Some(name) = line
                .strip_prefix("exhibit\\-")
                .and_then(|l| l.strip_suffix("(1)"))
        {
            out.push_str(&format!("\\fBexhibit {name}\\fR\n"));
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    if section == "EXTRA" {
        out.push_str(".fi\n");
    }
    out
}

/// clap_complete's bash script offers a command's options for a bare word, so `exhibit verify
/// <TAB>` lists `--json --withheld ...` and no path (a path comes only once a letter is typed,
/// through `-o default`). For the commands whose word is a path (verify, serve) an option is
/// offered after `-` and a path otherwise (docs/operator.md#completions).
fn bash_paths_first(script: &str) -> String {
    let mut script = script.to_string();
    for cmd in ["verify", "serve"] {
        let start = format!("        exhibit__subcmd__{cmd})\n");
        let Some(at) = script.find(&start) else {
            continue;
        };
        let end = script[at..]
            .find("\n            ;;")
            .map_or(script.len(), |e| at + e);
        let block = script[at..end]
            .replacen(
                "if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then",
                "if [[ ${cur} == -* ]] ; then",
                1,
            )
            .replace(
                "            COMPREPLY=( $(compgen -W \"${opts}\" -- \"${cur}\") )\n            return 0",
                "            compopt -o filenames 2>/dev/null\n            COMPREPLY=( $(compgen -f -- \"${cur}\") )\n            return 0",
            );
        script.replace_range(at..end, &block);
    }
    script
}

pub fn run(plan: Plan) -> anyhow::Result<ExitCode> {
    match plan {
        Plan::Init(plan) => init::run(&plan),
        // With --json an error is an object on stdout too, as the build's is
        // (docs/operator.md#build-json): a script reading stdout is not left with nothing.
        Plan::Verify(plan) => verify::run(&plan).inspect_err(|e| {
            if plan.json {
                crate::publication::report::error_json(crate::terminal::json_schema::VERIFY, e);
            }
        }),
        Plan::Serve(plan) => crate::cli::serve::run(&plan),
        Plan::Prove(plan) => crate::cli::prove::run(&plan).inspect_err(|e| {
            if plan.json {
                crate::publication::report::error_json(crate::terminal::json_schema::PROVE, e);
            }
        }),
        Plan::Cosign(plan) => crate::cli::cosign::run(&plan).or_else(|e| {
            crate::say!(
                "exhibit: error: {}",
                crate::terminal::escape(&format!("{e:#}"))
            );
            Ok(ExitCode::from(2))
        }),
        Plan::Key { name, out } => match crate::operator_box::signing::new_key(&out, &name) {
            Ok(vkey) => {
                println!("{vkey}");
                crate::say!(
                    "exhibit: wrote the private key to {} (mode 0600); the line above is its verifier key: publish it beside each day's head",
                    out.display()
                );
                Ok(ExitCode::SUCCESS)
            }
            Err(e) => {
                crate::say!("exhibit: error: {e:#}");
                Ok(ExitCode::from(2))
            }
        },
        Plan::Build(plan) => publication::run(&plan).inspect_err(|e| {
            if plan.voice.json {
                crate::publication::report::error_json(crate::terminal::json_schema::BUILD, e);
            }
        }),
        Plan::Print(bytes) => {
            let mut out = std::io::stdout().lock();
            // A closed pipe (`exhibit man | head`) is not an error worth a message.
            match out.write_all(&bytes).and_then(|()| out.flush()) {
                Ok(()) => Ok(ExitCode::SUCCESS),
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(ExitCode::SUCCESS),
                Err(e) => Err(anyhow::Error::new(e).context("stdout")),
            }
        }
    }
}
