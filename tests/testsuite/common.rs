//! Shared by the integration tests: a tiny ledger writer (canonical lines, chained), a box on
//! disk, and a way to run the binary.
#![allow(dead_code)]

use exhibit_protocol::Digest;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use exhibit_protocol::canonical::{self, Object, Value};
use exhibit_protocol::days::{self, DayDeriver};

pub struct LedgerWriter {
    pub lines: Vec<Vec<u8>>,
    pub ids: Vec<String>,
    pub header_digest: String,
    deriver: DayDeriver,
}

fn dump(o: &Object<'_>, except: Option<&str>) -> Vec<u8> {
    let mut out = Vec::new();
    canonical::dump_object_except(o, except, &mut out).unwrap();
    out
}

impl LedgerWriter {
    pub fn new() -> LedgerWriter {
        LedgerWriter::certifying("No line holds message text or a chat id.")
    }

    /// A ledger whose header certifies `sentence`.
    pub fn certifying(sentence: &str) -> LedgerWriter {
        let mut h = Object::default();
        h.insert("anchor_tz", Value::str("America/New_York"));
        h.insert("certifies", Value::str(sentence.to_owned()));
        h.insert("created", Value::str("2026-10-24T13:00:00Z"));
        h.insert("schema", Value::str("darkflobi.gate/log/v0"));
        let bytes = dump(&h, None);
        let mut domain = b"darkflobi.gate/log/v0\n".to_vec();
        domain.extend_from_slice(&bytes);
        LedgerWriter {
            header_digest: Digest::of(&domain).to_string(),
            lines: vec![bytes],
            ids: vec![],
            deriver: DayDeriver::new(days::zone("America/New_York").unwrap()),
        }
    }

    /// Appends an entry with the kind's own fields given as a JSON object text.
    pub fn push(&mut self, kind: &str, ts: &str, fields_json: &str) -> String {
        let seq = self.ids.len() as i64 + 1;
        let prev = self
            .ids
            .last()
            .cloned()
            .unwrap_or(self.header_digest.clone());
        let parsed = canonical::parse(fields_json.as_bytes()).unwrap();
        let Value::Object(extra) = parsed.value.into_owned() else {
            panic!("fields")
        };
        let mut o = Object::default();
        o.insert("schema", Value::str("darkflobi.gate/entry/v0"));
        o.insert("seq", Value::Int(seq));
        o.insert("prev", Value::str(prev));
        o.insert("kind", Value::str(kind.to_owned()));
        o.insert("timestamp", Value::str(ts.to_owned()));
        let day = self.deriver.day_of(days::parse_timestamp(ts).unwrap());
        o.insert("day", Value::str(day));
        for (k, v) in extra.members {
            o.insert(k, v);
        }
        let id = Digest::of(&dump(&o, Some("entry_id"))).to_string();
        o.insert("entry_id", Value::str(id.clone()));
        self.lines.push(dump(&o, None));
        self.ids.push(id.clone());
        id
    }

    /// A plain, publishable entry at minute `n` after the start.
    pub fn push_scan(&mut self, n: u32) -> String {
        let ts = exhibit::published::encode::timestamp_of(1_792_846_800 + i64::from(n) * 60); // 2026-10-24T13:00:00Z + n min
        self.push(
            "exec_scan",
            &ts,
            &format!(r#"{{"scanned":{n},"flagged":0}}"#),
        )
    }

    pub fn bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        for l in &self.lines {
            out.extend_from_slice(l);
            out.push(b'\n');
        }
        out
    }
}

/// A box folder with exhibit.toml, the ledger and (optionally) anchors.
pub struct TestBox {
    pub dir: PathBuf,
}

impl TestBox {
    pub fn new(root: &Path) -> TestBox {
        let dir = root.join("box");
        std::fs::create_dir_all(dir.join("gate/anchors")).unwrap();
        std::fs::write(
            dir.join("exhibit.toml"),
            "[gate]\nledger = \"gate/ledger.jsonl\"\nanchors = \"gate/anchors\"\n",
        )
        .unwrap();
        TestBox { dir }
    }

    pub fn write_ledger(&self, bytes: &[u8]) {
        std::fs::write(self.dir.join("gate/ledger.jsonl"), bytes).unwrap();
    }

    pub fn post_anchor(&self, date: &str, head: &str, seq: usize) {
        std::fs::write(
            self.dir.join(format!("gate/anchors/{date}.txt")),
            format!("gate anchor {date} head {head} seq {seq}"),
        )
        .unwrap();
    }

    pub fn config(&self) -> String {
        self.dir.join("exhibit.toml").display().to_string()
    }
}

pub fn exhibit(args: &[&str], epoch: u64) -> Output {
    Command::new(env!("CARGO_BIN_EXE_exhibit"))
        .args(args)
        .env("SOURCE_DATE_EPOCH", epoch.to_string())
        .env_remove("CI")
        .output()
        .expect("run exhibit")
}

pub fn text(o: &Output) -> String {
    format!(
        "stdout:\n{}\nstderr:\n{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// Every file under `dir` (relative path → bytes).
pub fn snapshot_dir(dir: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    exhibit::site_write::out_dir::read_tree(dir, None)
        .unwrap()
        .into_bytes()
        .unwrap()
}

/// Stages everything under the repository and commits it.
pub fn commit_all(repo: &git2::Repository, message: &str) -> git2::Oid {
    let mut index = repo.index().unwrap();
    index
        .add_all(["*"].iter(), git2::IndexAddOption::DEFAULT, None)
        .unwrap();
    index.update_all(["*"].iter(), None).unwrap();
    index.write().unwrap();
    let tree_id = index.write_tree().unwrap();
    let tree = repo.find_tree(tree_id).unwrap();
    let sig =
        git2::Signature::new("t", "t@example.invalid", &git2::Time::new(1_790_000_000, 0)).unwrap();
    let parents: Vec<git2::Commit> = repo
        .head()
        .ok()
        .and_then(|h| h.peel_to_commit().ok())
        .into_iter()
        .collect();
    let parent_refs: Vec<&git2::Commit> = parents.iter().collect();
    repo.commit(Some("HEAD"), &sig, &sig, message, &tree, &parent_refs)
        .unwrap()
}

/// Standard base64 decoding (the vectors' `ledger_b64`, the page's data blocks).
pub fn unb64(s: &str) -> Vec<u8> {
    let val = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        b'/' => 63,
        _ => panic!("bad base64 byte {c}"),
    };
    let mut out = Vec::new();
    for chunk in s.as_bytes().chunks(4) {
        let pad = chunk.iter().filter(|&&c| c == b'=').count();
        let n = chunk
            .iter()
            .filter(|&&c| c != b'=')
            .fold(0u32, |a, &c| (a << 6) | u32::from(val(c)))
            << (6 * pad);
        out.extend_from_slice(&[(n >> 16) as u8, (n >> 8) as u8, n as u8][..3 - pad]);
    }
    out
}

/// Stages `site/` (forced past any ignore) and commits it on HEAD.
pub fn commit_site(repo: &git2::Repository) {
    let mut idx = repo.index().unwrap();
    idx.add_all(["site"], git2::IndexAddOption::FORCE, None)
        .unwrap();
    idx.update_all(["site"], None).unwrap();
    idx.write().unwrap();
    let tree = repo.find_tree(idx.write_tree().unwrap()).unwrap();
    let sig = git2::Signature::new(
        "test",
        "test@example.invalid",
        &git2::Time::new(1_800_000_000, 0),
    )
    .unwrap();
    let parent = repo.head().ok().and_then(|h| h.peel_to_commit().ok());
    let parents: Vec<&git2::Commit> = parent.iter().collect();
    repo.commit(Some("HEAD"), &sig, &sig, "publish", &tree, &parents)
        .unwrap();
}

/// Rewrites the last line of `site/ledger/SNAPSHOTS.jsonl` so that its `digests` are those of
/// the files now in `site/ledger/`: a test's stand-in for "an earlier exhibit built this tree"
/// after it edits a published file (HEAD is checked against its last snapshot, issue 9).
pub fn reseal_snapshot(site: &Path) {
    reseal_snapshot_with(site, true, |_| {});
}

/// [`reseal_snapshot`], the last line edited by `edit` after its digests are recomputed; with
/// `record`, this machine's record names the new line (as if it had built it), without, it does
/// not (as a forger with push access alone would leave it).
pub fn reseal_snapshot_with(site: &Path, record: bool, edit: impl FnOnce(&mut serde_json::Value)) {
    let files = exhibit::site_write::out_dir::read_tree(site, None)
        .unwrap()
        .into_bytes()
        .unwrap();
    let digests = exhibit::previous::head_check::snapshot_digests(
        files
            .iter()
            .map(|(p, b)| (p.as_str(), Digest::of(b).to_string())),
    );
    let path = site.join("ledger/SNAPSHOTS.jsonl");
    let text = std::fs::read_to_string(&path).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let mut last: serde_json::Value = serde_json::from_str(lines.last().unwrap()).unwrap();
    last["digests"] = serde_json::Value::Object(digests);
    edit(&mut last);
    *lines.last_mut().unwrap() = serde_json::to_string(&last).unwrap();
    let bytes = lines.join("\n") + "\n";
    std::fs::write(&path, &bytes).unwrap();
    // As if this machine had built it: its record of publications names the new line
    // (docs/anchoring.md#trusting-head).
    if record
        && let Some(record) = exhibit::previous::trust::record_path(site).unwrap()
        && record.exists()
    {
        let last = bytes.lines().last().unwrap();
        let mut text = std::fs::read_to_string(&record).unwrap();
        text.push_str(&format!("{}\n", Digest::of(last.as_bytes())));
        std::fs::write(&record, text).unwrap();
    }
}

/// `exhibit verify --json SITE`: its exit code and its JSON report.
pub fn verify_json(site: &Path) -> (Option<i32>, serde_json::Value) {
    let o = exhibit(&["verify", "--json", &site.display().to_string()], 0);
    let v = serde_json::from_slice(&o.stdout).unwrap_or_else(|_| panic!("{}", text(&o)));
    (o.status.code(), v)
}

/// The `(file, code)` pairs of a `verify --json` report's file problems.
pub fn file_problems(v: &serde_json::Value) -> Vec<(String, String)> {
    v["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["file"].as_str().unwrap().to_string(),
                f["code"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// The page's embedded data blocks, decoded, by element id (attributes in any order, quoted or
/// not; base64 bodies may be wrapped).
pub fn page_blocks(html: &str) -> std::collections::BTreeMap<String, Vec<u8>> {
    let mut out = std::collections::BTreeMap::new();
    for piece in html.split("<script").skip(1) {
        let open_end = piece.find('>').unwrap();
        let open = &piece[..open_end];
        if !open.contains("application/octet-stream") {
            continue;
        }
        let id = open
            .split_whitespace()
            .find_map(|a| a.strip_prefix("id="))
            .unwrap()
            .trim_matches('"')
            .to_string();
        let body: String = piece[open_end + 1..piece.find("</script").unwrap()]
            .chars()
            .filter(|c| !c.is_ascii_whitespace())
            .collect();
        out.insert(id, unb64(&body));
    }
    out
}

/// A `verify --json` report names `file` with problem `code`.
pub fn assert_file_problem(v: &serde_json::Value, file: &str, code: &str) {
    assert!(
        file_problems(v).contains(&(file.to_string(), code.to_string())),
        "{file}: {code} not reported in {v}"
    );
}

/// `cp -r SITE COPY`: a fresh copy of a built site to damage.
pub fn copy_site(site: &Path, copy: &Path) {
    let o = Command::new("cp")
        .args([
            "-r",
            &site.display().to_string(),
            &copy.display().to_string(),
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "cp -r {}: {}", site.display(), text(&o));
}

/// `git status --porcelain` of a work tree, untracked files listed one by one, with no user or
/// system git config.
pub fn git_status(work: &Path) -> String {
    let o = Command::new("git")
        .args(["status", "--porcelain", "--untracked-files=all"])
        .current_dir(work)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    String::from_utf8(o.stdout).unwrap()
}

/// Runs a node command and returns what it printed; it must succeed (`what` names it in the
/// failure): the differential runners and the browser driver alike.
pub fn node_stdout(mut cmd: Command, what: &str) -> Vec<u8> {
    let out = cmd.output().unwrap_or_else(|e| {
        panic!("run {what} (node 20 or later, and chromium for the page): {e}")
    });
    assert!(
        out.status.success(),
        "{what} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// Runs `node tests/js/<script> <input>` and reads one JSON value per line of its output: how
/// the differential tests ask the page's JavaScript for its answers.
pub fn node_json_lines(script: &str, input: &Path) -> Vec<serde_json::Value> {
    let mut cmd = Command::new("node");
    cmd.arg(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/js")
            .join(script),
    )
    .arg(input);
    String::from_utf8(node_stdout(cmd, script))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// A number from the environment (`FUZZ_CASES`, `FUZZ_SEED`), else `default`.
pub fn env_number<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

/// A folder copied file by file (the tests' trees hold no symlinks).
pub fn copy_tree(from: &Path, to: &Path) {
    for entry in walkdir::WalkDir::new(from) {
        let entry = entry.unwrap();
        let rel = entry.path().strip_prefix(from).unwrap();
        let dest = to.join(rel);
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&dest).unwrap();
        } else {
            std::fs::copy(entry.path(), &dest).unwrap();
        }
    }
}

/// `n` scan lines after the writer's last, and the box's ledger written with them.
pub fn append_scans(b: &TestBox, w: &mut LedgerWriter, n: u32) {
    let from = w.ids.len() as u32 + 1;
    for k in from..from + n {
        w.push_scan(k);
    }
    b.write_ledger(&w.bytes());
}
