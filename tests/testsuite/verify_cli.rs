//! `exhibit verify` from the outside: exit codes, JSON shape, and bad input that must get a clear
//! answer, never a panic (issue: "Bad input gets a clear answer").

use crate::common;

use std::process::{Command, Output};

fn exhibit(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_exhibit"))
        .args(args)
        .output()
        .expect("run exhibit")
}

fn base() -> String {
    format!("{}/vectors/base.jsonl", env!("CARGO_MANIFEST_DIR"))
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn no_panic(o: &Output) {
    assert!(!stderr(o).contains("panicked"), "panic: {}", stderr(o));
}

#[test]
fn a_valid_ledger_re_derives_in_words_and_json() {
    let words = exhibit(&["verify", &base()]);
    assert_eq!(words.status.code(), Some(0), "{}", stderr(&words));
    assert!(stdout(&words).contains("re-derives"));
    let json = exhibit(&["verify", "--json", &base()]);
    assert_eq!(json.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(v["ok"], true);
    assert_eq!(v["entries"], 18);
    assert_eq!(v["problems"], serde_json::json!([]));
    assert_eq!(v["bridged"], serde_json::json!([]));
    let head = v["head"].as_str().unwrap();
    assert!(stdout(&words).contains(head), "the words name the head");
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        ["bridged", "entries", "head", "ok", "problems", "schema"]
    );
    assert_eq!(v["schema"], "exhibit-verify/1");
}

#[test]
fn problems_exit_1_and_name_line_seq_and_code() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("l.jsonl");
    let mut bytes = std::fs::read(base()).unwrap();
    // Rewrite one digit of seq 4's timestamp.
    let text = String::from_utf8(bytes.clone()).unwrap();
    let at = text.find("2026-10-24T20:45:10Z").unwrap();
    bytes[at + 18] = b'9';
    std::fs::write(&path, &bytes).unwrap();
    let o = exhibit(&["verify", path.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    assert!(out.contains("line 5 (seq 4): entry_id_mismatch"), "{out}");
    let j = exhibit(&["verify", "--json", path.to_str().unwrap()]);
    let v: serde_json::Value = serde_json::from_slice(&j.stdout).unwrap();
    assert_eq!(v["ok"], false);
    assert_eq!(v["head"], serde_json::Value::Null);
    assert_eq!(v["problems"][0]["line"], 5);
    assert_eq!(v["problems"][0]["seq"], 4);
    assert_eq!(v["problems"][0]["code"], "entry_id_mismatch");
}

#[test]
fn missing_file_and_usage_errors_exit_2_naming_the_path() {
    let o = exhibit(&["verify", "/nonexistent/ledger.jsonl"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("/nonexistent/ledger.jsonl"),
        "{}",
        stderr(&o)
    );
    let o = exhibit(&["verify"]);
    assert_eq!(o.status.code(), Some(2));
    let o = exhibit(&["frobnicate"]);
    assert_eq!(o.status.code(), Some(2));
    let o = exhibit(&["verify", "--withheld", "/nonexistent/w.json", &base()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("/nonexistent/w.json"));
}

#[test]
fn a_directory_that_is_not_an_exhibit_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let o = exhibit(&["verify", dir.path().to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("ledger.jsonl"), "{}", stderr(&o));
    no_panic(&o);
}

fn verify_bytes_file(bytes: &[u8]) -> (Output, serde_json::Value) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("in.jsonl");
    std::fs::write(&path, bytes).unwrap();
    let o = exhibit(&["verify", "--json", path.to_str().unwrap()]);
    no_panic(&o);
    let v = serde_json::from_slice(&o.stdout).unwrap_or(serde_json::Value::Null);
    (o, v)
}

fn codes(v: &serde_json::Value) -> Vec<String> {
    v["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["code"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn bad_input_gets_a_problem_list() {
    let (o, v) = verify_bytes_file(b"");
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(codes(&v), ["missing_header"]);

    let (o, v) = verify_bytes_file(&[b'\n'; 1000]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(codes(&v), ["missing_header"]);
    assert_eq!(v["entries"], 0);

    let binary: Vec<u8> = (0..4096u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8)
        .collect();
    let (o, v) = verify_bytes_file(&binary);
    assert_eq!(o.status.code(), Some(1));
    assert!(codes(&v).contains(&"missing_header".to_string()));

    let deep = "[".repeat(100_000) + &"]".repeat(100_000) + "\n";
    let (o, v) = verify_bytes_file(deep.as_bytes());
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(codes(&v), ["unparsable", "missing_header"]);
}

#[test]
fn a_single_100_mb_line_is_answered() {
    let mut line = Vec::with_capacity(100 << 20);
    line.extend_from_slice(b"{\"schema\":\"darkflobi.gate/log/v0\",\"x\":\"");
    line.resize(100 << 20, b'a');
    line.extend_from_slice(b"\"}\n");
    let (o, v) = verify_bytes_file(&line);
    // A header with no anchor_tz: readable, canonical, but a bad header.
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(codes(&v), ["bad_header"]);
}

#[test]
fn withheld_list_bridges_from_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let base_text = std::fs::read_to_string(base()).unwrap();
    let mut lines: Vec<&str> = base_text.lines().collect();
    let removed: serde_json::Value = serde_json::from_str(lines.remove(7)).unwrap();
    let ledger = dir.path().join("l.jsonl");
    std::fs::write(&ledger, lines.join("\n") + "\n").unwrap();
    let withheld = dir.path().join("w.json");
    std::fs::write(
        &withheld,
        serde_json::json!([{"seq": 7, "entry_id": removed["entry_id"], "kind": "anchor",
            "dest_class": null, "day": removed["day"], "fields_flagged": [], "reason": "test"}])
        .to_string(),
    )
    .unwrap();
    let o = exhibit(&["verify", "--json", ledger.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let o = exhibit(&[
        "verify",
        "--json",
        "--withheld",
        withheld.to_str().unwrap(),
        ledger.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["bridged"], serde_json::json!([7]));

    std::fs::write(&withheld, b"{\"not\": \"a list\"}").unwrap();
    let o = exhibit(&[
        "verify",
        "--withheld",
        withheld.to_str().unwrap(),
        ledger.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("w.json"));
}

fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("Uid:"))
                .map(|l| l.split_whitespace().nth(1) == Some("0"))
        })
        .unwrap_or(false)
}

/// The tz database is compiled in: with `/usr/share/zoneinfo` hidden (an empty tmpfs mounted
/// over it in a private mount namespace) every vector whose answer depends on days — both DST
/// changes in New York, the leap day, Kolkata, a link zone — gets the same answer.
#[test]
fn day_derivation_ignores_the_hosts_zoneinfo() {
    let doc: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(format!(
            "{}/vectors/vectors.json",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap(),
    )
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut script = String::from(
        "mount -t tmpfs none /usr/share/zoneinfo && [ -z \"$(ls /usr/share/zoneinfo)\" ] || exit 99\n",
    );
    let mut expected = Vec::new();
    for case in doc["cases"].as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        if !(name.starts_with("dst-")
            || name.starts_with("leap")
            || name.contains("zone")
            || name == "day-in-utc"
            || name == "identity")
            || case.get("withheld").is_some()
        {
            continue;
        }
        let path = dir.path().join(format!("{name}.jsonl"));
        std::fs::write(&path, common::unb64(case["ledger_b64"].as_str().unwrap())).unwrap();
        script.push_str(&format!(
            "{} verify --json {} || true\n",
            env!("CARGO_BIN_EXE_exhibit"),
            path.display()
        ));
        expected.push((
            name.to_string(),
            case["expect"]["ok"].clone(),
            case["expect"]["head"].clone(),
        ));
    }
    assert!(expected.len() >= 8, "{} day cases", expected.len());
    let o = if is_root() {
        Command::new("unshare")
            .args(["-m", "sh", "-c", &script])
            .output()
            .expect("unshare (util-linux)")
    } else {
        // Without root no mount namespace: the host's zoneinfo is pointed away instead.
        eprintln!("not root: hiding zoneinfo with TZDIR/TZ only (run as root for the full check)");
        let plain = script.lines().skip(1).collect::<Vec<_>>().join("\n");
        Command::new("sh")
            .args(["-c", &plain])
            .env("TZDIR", dir.path())
            .env("TZ", "Pacific/Chatham")
            .output()
            .unwrap()
    };
    assert_ne!(
        o.status.code(),
        Some(99),
        "the tmpfs did not hide /usr/share/zoneinfo"
    );
    let answers: Vec<serde_json::Value> = String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(
        answers.len(),
        expected.len(),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    for ((name, ok, head), got) in expected.iter().zip(&answers) {
        assert_eq!(&got["ok"], ok, "{name}");
        assert_eq!(&got["head"], head, "{name}");
    }
}

/// A site whose only fault is an anchor proof the publisher withheld because its header failed
/// (anchors/index.json: `proof_file` null, `proof_header` digest_mismatch) does not pass `verify
/// SITE`: the page calls it failed (docs/page.md#a-withheld-proof), and so does the CLI. Before,
/// the missing proof read as "not stamped yet" and verify exited 0.
#[test]
fn verify_site_fails_a_proof_the_publisher_withheld() {
    use exhibit_testkit::gen_box::{self, BoxOptions};
    let tmp = tempfile::tempdir().unwrap();
    let box_dir = tmp.path().join("box");
    let opts = BoxOptions {
        lines: 200,
        seed: 7,
        witness: false,
        ..BoxOptions::default()
    };
    gen_box::generate(&opts, &box_dir).expect("generate a box");
    let anchors = box_dir.join("gate/anchors");
    let mut proofs: Vec<String> = std::fs::read_dir(&anchors)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".txt.ots"))
        .collect();
    proofs.sort();
    assert!(proofs.len() >= 2, "{proofs:?}");
    let site = box_dir.join("site");
    let built = Command::new(env!("CARGO_BIN_EXE_exhibit"))
        .current_dir(&box_dir)
        .args(["build", "--out", "site"])
        .output()
        .unwrap();
    assert!(built.status.success(), "{}", stderr(&built));
    let before = exhibit(&["verify", site.to_str().unwrap()]);
    assert_eq!(before.status.code(), Some(0), "{}", stdout(&before));
    // The first day's proof replaced by the second's: it commits to another post.
    std::fs::copy(anchors.join(&proofs[1]), anchors.join(&proofs[0])).unwrap();
    let date = proofs[0].trim_end_matches(".txt.ots");
    let built = Command::new(env!("CARGO_BIN_EXE_exhibit"))
        .current_dir(&box_dir)
        .args(["build", "--out", "site"])
        .output()
        .unwrap();
    assert!(built.status.success(), "{}", stderr(&built));
    assert!(!site.join(format!("ledger/anchors/{date}.txt.ots")).exists());
    let after = exhibit(&["verify", site.to_str().unwrap()]);
    no_panic(&after);
    assert_eq!(after.status.code(), Some(1), "{}", stdout(&after));
    assert!(
        stdout(&after).contains(&format!(
            "ledger/anchors/{date}.txt.ots: anchor_proof_withheld: the publisher withheld this day's proof"
        )),
        "{}",
        stdout(&after)
    );
}

/// The fixture's post not in the exact form (its text withheld, listed as failing) and its
/// withheld proofs are named by `verify SITE` as on the page.
#[test]
fn verify_site_names_what_the_anchor_faults_publisher_withheld() {
    let root = env!("CARGO_MANIFEST_DIR");
    let tmp = tempfile::tempdir().unwrap();
    let site = tmp.path().join("site");
    let cfg = format!("{root}/site-fixtures/anchors-faults/exhibit.toml");
    let built = exhibit(&["build", "--config", &cfg, "--out", site.to_str().unwrap()]);
    assert!(built.status.success(), "{}", stderr(&built));
    let out = exhibit(&["verify", "--json", site.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let files = common::file_problems(&v);
    for (file, code) in [
        ("ledger/anchors/2026-10-24.txt.ots", "anchor_proof_withheld"),
        ("ledger/anchors/2026-10-25.txt.ots", "anchor_proof_withheld"),
        ("ledger/anchors/2026-10-25.txt", "anchor_post_withheld"),
    ] {
        assert!(
            files.contains(&(file.to_string(), code.to_string())),
            "{file} {code}: {files:?}"
        );
    }
    assert!(
        !files.iter().any(|(f, _)| f.contains("2026-10-26")),
        "a proof merely missing is not a problem: {files:?}"
    );
}

/// A reader that closes the pipe before the report is written (`exhibit verify … | head -1`)
/// gets the verdict's exit status and no message: the report (about 300 KB of problems) is
/// larger than any pipe's buffer, so the write meets the closed pipe. Catches the closed pipe
/// reported as an I/O error (exit 2, "cannot write the report").
#[test]
fn a_closed_pipe_keeps_the_verdicts_exit_status() {
    let tmp = tempfile::tempdir().unwrap();
    let ledger = tmp.path().join("ledger.jsonl");
    let mut bytes = std::fs::read(base()).unwrap();
    bytes.extend(b"not json\n".repeat(3000));
    std::fs::write(&ledger, bytes).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_exhibit"))
        .args(["verify", ledger.to_str().unwrap()])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_eq!(stderr(&o), "");
    // Read to the end, the same report is written whole.
    let whole = exhibit(&["verify", ledger.to_str().unwrap()]);
    assert_eq!(whole.status.code(), Some(1));
    assert!(whole.stdout.len() > 200_000, "{}", whole.stdout.len());
}

/// `verify --json` prints valid JSON whatever a detail quotes (issue 48, class 19): a file name
/// holding a C1 control, DEL and a bidi override is quoted by a file problem; the terminal's own
/// escape (`\x7f`, `\u{85}`) inside a JSON string made the output invalid. Each character must
/// read back as itself, and none may reach the terminal raw.
#[test]
fn verify_json_stays_json_when_a_detail_quotes_controls() {
    let (_tmp, site) = built_box(60, 11, false, &["--public-texts"]);
    for weird in ["\u{85}", "\u{7f}", "\u{202e}", "\u{9b}2J", "\u{2066}"] {
        let name = format!("x{weird}y.txt");
        let file = site.join("ledger/public_texts").join(&name);
        std::fs::write(&file, "x").unwrap();
        let o = exhibit(&["verify", "--json", site.to_str().unwrap()]);
        no_panic(&o);
        assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
        let raw = stdout(&o);
        assert!(
            !raw.chars()
                .any(|c| c.is_control() && c != '\n' || c == '\u{202e}' || c == '\u{2066}'),
            "a steering character reached the terminal: {raw:?}"
        );
        let v: serde_json::Value = serde_json::from_str(&raw)
            .unwrap_or_else(|e| panic!("{weird:?}: not JSON ({e}): {raw}"));
        assert!(
            v["files"]
                .as_array()
                .unwrap()
                .iter()
                .any(|p| p["file"].as_str().is_some_and(|f| f.ends_with(&name))),
            "{weird:?}: the file problem quotes the name as it is: {raw}"
        );
        std::fs::remove_file(&file).unwrap();
    }
}

/// `verify SITE` holds every file under `ledger/` to the last snapshot's digests (issue 48,
/// class 10): a file the chain does not re-derive, edited after the build, "re-derived" still.
/// Each edit below passed before; each now fails, named by its file or its folder. An honest
/// site passes, and a site without its snapshots says so.
#[test]
fn verify_site_holds_every_file_to_the_last_snapshots_digests() {
    let (_tmp, site) = built_box(200, 5, true, &["--public-texts", "--witness", "wt/store"]);
    let verify = || {
        let o = exhibit(&["verify", "--json", site.to_str().unwrap()]);
        no_panic(&o);
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        let problems: Vec<(String, String)> = v["files"]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|p| {
                        (
                            p["file"].as_str().unwrap().to_string(),
                            p["code"].as_str().unwrap().to_string(),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default();
        (o.status.code(), problems)
    };
    let (code, problems) = verify();
    assert_eq!(code, Some(0), "the honest site: {problems:?}");
    for (file, named) in [
        ("ledger/witness/REPORT.md", "ledger/witness/"),
        ("ledger/witness/index.json", "ledger/witness/"),
        ("ledger/witness/runs.jsonl", "ledger/witness/"),
        ("ledger/readings.json", "ledger/readings.json"),
    ] {
        let path = site.join(file);
        let Ok(before) = std::fs::read(&path) else {
            // readings.json is written only when there are readings: make one.
            std::fs::write(&path, b"{}\n").unwrap();
            let (code, problems) = verify();
            assert_eq!(code, Some(1), "{file} added: {problems:?}");
            assert!(
                problems.contains(&(named.to_string(), "snapshot_digest_mismatch".to_string())),
                "{file} added: {problems:?}"
            );
            std::fs::remove_file(&path).unwrap();
            continue;
        };
        let mut edited = before.clone();
        edited.extend_from_slice(b"\n");
        std::fs::write(&path, &edited).unwrap();
        let (code, problems) = verify();
        assert_eq!(code, Some(1), "{file}: {problems:?}");
        assert!(
            problems.contains(&(named.to_string(), "snapshot_digest_mismatch".to_string())),
            "{file}: {problems:?}"
        );
        std::fs::write(&path, &before).unwrap();
    }
    assert_eq!(verify().0, Some(0), "every edit undone");
    std::fs::remove_file(site.join("ledger/SNAPSHOTS.jsonl")).unwrap();
    let (code, problems) = verify();
    assert_eq!(code, Some(1));
    assert!(
        problems
            .iter()
            .any(|(f, c)| f == "ledger/SNAPSHOTS.jsonl" && c == "snapshot_missing"),
        "{problems:?}"
    );
}

/// A post dropped from the site while the ledger's anchor line for its date remains (issue 48,
/// class 14): its post, its proof and its index entry removed, the verdict was "gaps". An
/// anchor line without its post is `anchor_post_missing` (the page fails it too: verify.js
/// `datesWithoutPost`, held to the same rule by the differential fuzzing).
#[test]
fn verify_site_names_an_anchor_line_whose_post_was_dropped() {
    let (_tmp, site) = built_box(200, 9, false, &[]);
    let index: serde_json::Value =
        serde_json::from_slice(&std::fs::read(site.join("ledger/anchors/index.json")).unwrap())
            .unwrap();
    let post = index["posts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| !p["anchor_line_seqs"].as_array().unwrap().is_empty())
        .expect("a post with its anchor line");
    let date = post["date"].as_str().unwrap().to_string();
    let o = exhibit(&["verify", site.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    for f in [format!("{date}.txt"), format!("{date}.txt.ots")] {
        let _ = std::fs::remove_file(site.join("ledger/anchors").join(f));
    }
    let o = exhibit(&["verify", site.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    assert!(
        stdout(&o).contains(&format!(
            "ledger/anchors/{date}.txt: anchor_post_missing: the ledger's anchor line says a head was posted for {date}"
        )),
        "{}",
        stdout(&o)
    );
}

/// The one reading rule of a site's JSON files (issue 48, class 15; docs/verifier.md "Reading a
/// site's JSON"): serde_json, which the CLI reads them with, answers the table that
/// tests/js/verify.test.cjs holds the page's reader to.
#[test]
fn a_sites_json_is_read_by_one_rule_in_both_verifiers() {
    let rows: Vec<serde_json::Value> = serde_json::from_slice(
        &std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/site-json-reading.json"
        ))
        .unwrap(),
    )
    .unwrap();
    for r in rows {
        let text = if let Some(n) = r["nest"].as_u64() {
            "[".repeat(n as usize) + &"]".repeat(n as usize)
        } else if let Some(n) = r["nest_objects"].as_u64() {
            let n = n as usize;
            "{\"a\":".repeat(n - 1) + "{}" + &"}".repeat(n - 1)
        } else {
            r["text"].as_str().unwrap().to_string()
        };
        let read = serde_json::from_str::<serde_json::Value>(&text).is_ok();
        assert_eq!(read, r["read"].as_bool().unwrap(), "{}", r["why"]);
    }
}

/// A generated box of `lines` lines built into `<tmp>/box/site` with `flags`: the temporary
/// folder (kept alive by the caller) and the site.
fn built_box(
    lines: u64,
    seed: u64,
    witness: bool,
    flags: &[&str],
) -> (tempfile::TempDir, std::path::PathBuf) {
    use exhibit_testkit::gen_box::{self, BoxOptions};
    let tmp = tempfile::tempdir().unwrap();
    let box_dir = tmp.path().join("box");
    let opts = BoxOptions {
        lines,
        seed,
        witness,
        ..BoxOptions::default()
    };
    gen_box::generate(&opts, &box_dir).expect("generate a box");
    let built = Command::new(env!("CARGO_BIN_EXE_exhibit"))
        .current_dir(&box_dir)
        .args(["build", "--out", "site"])
        .args(flags)
        .output()
        .unwrap();
    assert!(built.status.success(), "{}", stderr(&built));
    let site = box_dir.join("site");
    (tmp, site)
}

/// `exhibit verify --anchors`: each post's proof evaluated (docs/anchoring.md). A Bitcoin
/// attestation is given with its block, the merkle root the block must carry and the two
/// explorers' pages, in words and in `--json`; a pending one with its calendar. A proof whose
/// header commits to the post but whose operations do not evaluate fails the post, named.
#[test]
fn verify_shows_each_proofs_attestations_and_names_one_that_does_not_evaluate() {
    use exhibit_testkit::ots_vectors::{header, varuint};
    use sha2::{Digest as _, Sha256};
    let hex = |b: &[u8]| b.iter().map(|x| format!("{x:02x}")).collect::<String>();
    let ledger = std::fs::read_to_string(base()).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    // The posts the base's anchor lines name, in their exact form.
    let mut posts = Vec::new();
    for line in ledger.lines().skip(1) {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        if v["kind"] != "anchor" {
            continue;
        }
        let date = v["anchor_date"].as_str().unwrap().to_string();
        let text = format!(
            "gate anchor {date} head {} seq {}",
            v["anchor_head"].as_str().unwrap(),
            v["anchor_head_seq"]
        );
        assert_eq!(
            hex(&Sha256::digest(text.as_bytes())),
            v["anchor_text_sha256"].as_str().unwrap()
        );
        std::fs::write(dir.join(format!("{date}.txt")), &text).unwrap();
        posts.push((date, Sha256::digest(text.as_bytes())));
    }
    assert_eq!(posts.len(), 2);
    // Day one: sha256 of the post's digest attested by Bitcoin block 358391 (a made proof: its
    // root is no real block's). Day two: pending at a calendar.
    let mut day1 = header(posts[0].1.into());
    day1.push(0x08);
    day1.extend([0x00, 0x05, 0x88, 0x96, 0x0d, 0x73, 0xd7, 0x19, 0x01]);
    let height = varuint(358_391);
    day1.extend(varuint(height.len() as u64));
    day1.extend(height);
    let mut root = Sha256::digest(posts[0].1).to_vec();
    root.reverse();
    let root = hex(&root);
    let mut day2 = header(posts[1].1.into());
    let uri = b"https://a.example.org";
    day2.extend([0x00, 0x83, 0xdf, 0xe3, 0x0d, 0x2e, 0xf9, 0x0c, 0x8e]);
    day2.extend([uri.len() as u8 + 1, uri.len() as u8]);
    day2.extend(uri);
    std::fs::write(dir.join(format!("{}.txt.ots", posts[0].0)), &day1).unwrap();
    std::fs::write(dir.join(format!("{}.txt.ots", posts[1].0)), &day2).unwrap();
    let d = dir.to_str().unwrap();
    let words = exhibit(&["verify", "--anchors", d, &base()]);
    no_panic(&words);
    assert_eq!(words.status.code(), Some(0), "{}", stdout(&words));
    let out = stdout(&words);
    assert!(
        out.contains(&format!(
            "  anchor {}: ok (format ok, head ok, day closed ok, ledger line agrees, proof ok)\n    Bitcoin block 358391, merkle root {root} — compare at https://mempool.space/block/358391, https://blockstream.info/block-height/358391\n",
            posts[0].0
        )),
        "{out}"
    );
    assert!(
        out.contains(&format!(
            "  anchor {}: ok (format ok, head ok, day closed ok, ledger line agrees, proof ok)\n    pending at https://a.example.org\n",
            posts[1].0
        )),
        "{out}"
    );
    assert_eq!(
        out.matches("open either page and compare").count(),
        1,
        "{out}"
    );
    let json = exhibit(&["verify", "--json", "--anchors", d, &base()]);
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(
        v["anchors"][0]["attestations"],
        serde_json::json!([{
            "kind": "bitcoin",
            "height": 358391,
            "merkle_root": root,
            "explorers": [
                "https://mempool.space/block/358391",
                "https://blockstream.info/block-height/358391"
            ]
        }])
    );
    assert_eq!(
        v["anchors"][1]["attestations"][0]["calendar_url"],
        "https://a.example.org"
    );
    assert_eq!(
        v["anchors"][1]["attestations"][0]["commitment"],
        hex(&posts[1].1)
    );
    assert!(v["anchors"][0].get("proof_problem").is_none());

    // Day one's proof cut inside its attestation: the header still commits to the post.
    std::fs::write(
        dir.join(format!("{}.txt.ots", posts[0].0)),
        &day1[..day1.len() - 1],
    )
    .unwrap();
    let words = exhibit(&["verify", "--anchors", d, &base()]);
    assert_eq!(words.status.code(), Some(1), "{}", stdout(&words));
    let out = stdout(&words);
    assert!(
        out.contains(&format!(
            "  anchor {}: PROBLEM (format ok, head ok, day closed ok, ledger line agrees, proof truncated)\n    truncated: the proof's header commits to the post, but its operations do not evaluate: it ends inside its tree of operations\n",
            posts[0].0
        )),
        "{out}"
    );
    let json = exhibit(&["verify", "--json", "--anchors", d, &base()]);
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(v["ok"], false);
    assert_eq!(v["anchors"][0]["proof"], "ok");
    assert_eq!(v["anchors"][0]["proof_problem"]["code"], "truncated");
    assert!(v["anchors"][0].get("attestations").is_none());
}
