//! `exhibit build --public-texts` through the binary (docs/protocol.md#public-texts, issue 5):
//! a fixture box with every class of send line, built in a tempdir, with and without a git
//! checkout around the output folder.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use exhibit_protocol::Digest;
use serde_json::{Value as J, json};

// ---- the ledger ------------------------------------------------------------------------------

/// The shared ledger writer (crate::common), with this suite's clock: entry `seq` is written
/// ten minutes after the one before.
struct Ledger(common::LedgerWriter);

impl Ledger {
    fn new() -> Ledger {
        Ledger(common::LedgerWriter::new())
    }

    fn seq(&self) -> i64 {
        self.0.ids.len() as i64
    }

    fn push(&mut self, kind: &str, fields: J) -> i64 {
        let seq = self.seq() + 1;
        let ts = exhibit::published::encode::timestamp_of(1_792_846_800 + seq * 600);
        self.0
            .push(kind, &ts, &serde_json::to_string(&fields).unwrap());
        seq
    }

    fn bytes(&self) -> Vec<u8> {
        self.0.bytes()
    }
}

// ---- the fixture box -------------------------------------------------------------------------

fn h(name: &str) -> String {
    Digest::of(name.as_bytes()).to_string()
}

fn trailer(bound: i64, total: i64, seq: i64) -> String {
    format!("[gate: {bound} of {total} numerals bound \u{b7} ledger {seq:04}]")
}

fn with_trailer(text: &[u8], t: &str) -> Vec<u8> {
    let mut end = text.len();
    while end > 0 && text[end - 1] == b'\n' {
        end -= 1;
    }
    let mut out = text[..end].to_vec();
    out.extend_from_slice(b"\n\n");
    out.extend_from_slice(t.as_bytes());
    out
}

/// The seqs of each case in the fixture box.
#[derive(Debug, Default, Clone)]
struct Cases {
    as_written: (i64, String),
    trailer: (i64, String),
    draft_md: (i64, String),
    draft_draft_md: (i64, String),
    canary: i64,
    operator_dm: i64,
    not_in_config: i64,
    no_sent_bytes: i64,
    not_public: i64,
    two_marks: i64,
    not_utf8: (i64, String),
    phone: (i64, String),
    missing: i64,
    dup_off_list: i64,
    line_withheld: i64,
    /// The source file of the as-written text.
    as_written_source: PathBuf,
    /// The released bytes of the trailer case (holds LF).
    trailer_bytes: Vec<u8>,
}

struct Fixture {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    toml: PathBuf,
    site: PathBuf,
    cases: Cases,
}

fn send_fields(
    dest_class: &str,
    dest: &str,
    checked: &str,
    draft: &str,
    sent: Option<&str>,
    nb: (i64, i64),
) -> J {
    let mut f = json!({
        "action": if sent.is_some() { "send" } else { "draft_only" },
        "decision": if sent.is_some() { "pass" } else { "hold" },
        "dest_class": dest_class,
        "dest_hash": dest,
        "draft_sha256": draft,
        "checked_sha256": checked,
        "stripped_sha256": checked,
        "numerals": {"bound": nb.0, "total": nb.1},
        "reasons": [],
    });
    if let Some(s) = sent {
        f["sent_sha256"] = J::String(s.to_string());
    }
    f
}

fn fixture() -> Fixture {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().to_path_buf();
    let gate = root.join("box/gate");
    let sources = gate.join("sources");
    std::fs::create_dir_all(&sources).unwrap();
    let put = |name: &str, bytes: &[u8]| std::fs::write(sources.join(name), bytes).unwrap();
    let config = json!({
        "anchor_channel_hash": h("anchor"),
        "canary_hash": h("canary"),
        "group_hashes": [h("group-1"), h("group-2")],
        "operator_dm_hash": h("operator-dm"),
        "word_list": ["ignored", "by", "exhibit"],
    });
    std::fs::write(
        gate.join("config.json"),
        serde_json::to_vec_pretty(&config).unwrap(),
    )
    .unwrap();

    let mut l = Ledger::new();
    let mut c = Cases::default();
    l.push("started", json!({"version": "1.0.0"}));

    // As written: sources/<checked>.md == sent bytes.
    let a = b"Two of the 3 checks passed today. The rest of the morning went to reading every log again, line by line, before lunch.".to_vec();
    let sa = Digest::of(&a).to_string();
    put(&format!("{sa}.md"), &a);
    c.as_written_source = sources.join(format!("{sa}.md"));
    let seq = l.push(
        "send",
        send_fields("public", &h("anchor"), &sa, &sa, Some(&sa), (1, 1)),
    );
    c.as_written = (seq, sa.clone());

    // With the trailer.
    let b = b"The queue held 4 items at noon.\nNothing else moved.\n".to_vec();
    let cb = Digest::of(&b).to_string();
    put(&format!("{cb}.md"), &b);
    let seq = l.seq() + 1;
    let sent_b = with_trailer(&b, &trailer(1, 1, seq));
    let sb = Digest::of(&sent_b).to_string();
    l.push(
        "send",
        send_fields("public", &h("group-1"), &cb, &cb, Some(&sb), (1, 1)),
    );
    c.trailer = (seq, sb);
    c.trailer_bytes = sent_b;

    // From sources/<draft>.md (checked names bytes not on disk).
    let d = b"A draft with 2 numbers and 1 more.\n".to_vec();
    let dd = Digest::of(&d).to_string();
    put(&format!("{dd}.md"), &d);
    let seq = l.seq() + 1;
    let sd = Digest::of(&with_trailer(&d, &trailer(2, 2, seq))).to_string();
    l.push(
        "send",
        send_fields(
            "public",
            &h("group-2"),
            &h("not on disk"),
            &dd,
            Some(&sd),
            (2, 2),
        ),
    );
    c.draft_md = (seq, sd);

    // From sources/<draft>.draft.md, as written.
    let e = b"Only the draft file holds this one.".to_vec();
    let de = Digest::of(&e).to_string();
    put(&format!("{de}.draft.md"), &e);
    let seq = l.push(
        "send",
        send_fields(
            "public",
            &h("anchor"),
            &h("elsewhere"),
            &de,
            Some(&de),
            (0, 0),
        ),
    );
    c.draft_draft_md = (seq, de);

    // Off the list, each with a source that would re-derive.
    let off = |l: &mut Ledger, text: &str, class: &str, dest: &str| {
        let s = Digest::of(text.as_bytes()).to_string();
        put(&format!("{s}.md"), text.as_bytes());
        l.push("send", send_fields(class, dest, &s, &s, Some(&s), (0, 0)))
    };
    c.canary = off(&mut l, "canary words", "canary", &h("canary"));
    c.operator_dm = off(&mut l, "a word for the operator", "dm", &h("operator-dm"));
    c.not_in_config = off(&mut l, "to a private group", "public", &h("private-group"));
    c.not_public = off(
        &mut l,
        "group-class send to a listed group",
        "group",
        &h("group-1"),
    );
    let ns = Digest::of(b"held back").to_string();
    put(&format!("{ns}.md"), b"held back");
    c.no_sent_bytes = l.push(
        "send",
        send_fields("public", &h("group-1"), &ns, &ns, None, (0, 1)),
    );

    // Two marks: re-derives from nothing.
    let f = b"Sworn source text.\n".to_vec();
    let cf = Digest::of(&f).to_string();
    put(&format!("{cf}.md"), &f);
    let seq = l.seq() + 1;
    let mut two = with_trailer(&f, &trailer(0, 0, seq));
    two.extend_from_slice(
        format!("\n[gate: sworn source footer \u{b7} ledger {seq:04}]").as_bytes(),
    );
    l.push(
        "send",
        send_fields(
            "public",
            &h("anchor"),
            &cf,
            &cf,
            Some(&Digest::of(&two).to_string()),
            (0, 0),
        ),
    );
    c.two_marks = seq;

    // Not UTF-8: ED A0 80 (a lone surrogate) in the source, hashing to sent_sha256.
    let g = b"bad \xED\xA0\x80 bytes".to_vec();
    let sg = Digest::of(&g).to_string();
    put(&format!("{sg}.md"), &g);
    let seq = l.push(
        "send",
        send_fields("public", &h("group-2"), &sg, &sg, Some(&sg), (0, 0)),
    );
    c.not_utf8 = (seq, sg);

    // The text guard: a phone number.
    let p = b"Call +1 (555) 010-9999 before noon.".to_vec();
    let sp = Digest::of(&p).to_string();
    put(&format!("{sp}.md"), &p);
    let seq = l.push(
        "send",
        send_fields("public", &h("anchor"), &sp, &sp, Some(&sp), (0, 0)),
    );
    c.phone = (seq, sp.clone());

    // No source at all.
    c.missing = l.push(
        "send",
        send_fields(
            "public",
            &h("group-1"),
            &h("m1"),
            &h("m2"),
            Some(&h("m3")),
            (0, 0),
        ),
    );

    // An off-list twin of the as-written text (a dm to someone not in the config).
    c.dup_off_list = l.push(
        "send",
        send_fields("dm", &h("someone"), &sa, &sa, Some(&sa), (1, 1)),
    );

    // A send withheld by the line rules (a reason with a nine-digit run): never a candidate.
    let mut w = send_fields("public", &h("anchor"), &sp, &sp, Some(&sp), (0, 0));
    w["reasons"] = json!(["chat 123456789"]);
    c.line_withheld = l.push("send", w);

    l.push("exec_scan", json!({"scanned": 3, "flagged": 0}));
    let ledger = l.bytes();
    let report = exhibit_protocol::verify::verify_bytes(
        &ledger,
        &exhibit_protocol::verify::Withheld::default(),
    );
    assert!(
        report.ok,
        "the fixture ledger must re-derive: {:?}",
        report.problems
    );
    std::fs::write(gate.join("ledger.jsonl"), &ledger).unwrap();
    let toml = root.join("box/exhibit.toml");
    std::fs::write(
        &toml,
        "[gate]\nledger = \"gate/ledger.jsonl\"\nconfig = \"gate/config.json\"\nsources = \"gate/sources\"\n",
    )
    .unwrap();
    Fixture {
        site: root.join("site"),
        root,
        toml,
        cases: c,
        _tmp: tmp,
    }
}

// ---- running and reading ---------------------------------------------------------------------

fn build(fx: &Fixture, extra: &[&str]) -> Output {
    let mut args = vec![
        "build",
        "--config",
        fx.toml.to_str().unwrap(),
        "--out",
        fx.site.to_str().unwrap(),
        "--public-texts",
    ];
    args.extend_from_slice(extra);
    let o = Command::new(env!("CARGO_BIN_EXE_exhibit"))
        .args(&args)
        .env("SOURCE_DATE_EPOCH", "1800000000")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .expect("run exhibit");
    assert!(!stderr(&o).contains("panicked"), "{}", stderr(&o));
    o
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn ok(o: &Output) {
    assert_eq!(
        o.status.code(),
        Some(0),
        "stderr: {}\nstdout: {}",
        stderr(o),
        String::from_utf8_lossy(&o.stdout)
    );
}

fn texts_dir(fx: &Fixture) -> PathBuf {
    fx.site.join("ledger/public_texts")
}

fn index(fx: &Fixture) -> J {
    serde_json::from_slice(&std::fs::read(texts_dir(fx).join("index.json")).unwrap()).unwrap()
}

fn published(ix: &J) -> Vec<(i64, String, String)> {
    ix["published"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["seq"].as_i64().unwrap(),
                p["sent_sha256"].as_str().unwrap().to_string(),
                p["form"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn withheld_shas(ix: &J) -> Vec<String> {
    ix["withheld"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["sent_sha256"].as_str().unwrap().to_string())
        .collect()
}

fn read_dir_tree(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for e in walkdir::WalkDir::new(dir).sort_by_file_name() {
        let e = e.unwrap();
        if e.file_type().is_file() {
            out.push((
                e.path().display().to_string(),
                std::fs::read(e.path()).unwrap(),
            ));
        }
    }
    out
}

/// Every file under public_texts/ except the index is named by the sha256 of its bytes.
fn names_are_digests(fx: &Fixture) {
    for e in std::fs::read_dir(texts_dir(fx)).unwrap() {
        let e = e.unwrap();
        let name = e.file_name().into_string().unwrap();
        if name == "index.json" || name == "index" {
            continue;
        }
        let bytes = std::fs::read(e.path()).unwrap();
        assert_eq!(format!("{}.txt", Digest::of(&bytes)), name);
    }
}

// ---- git ---------------------------------------------------------------------------------------

fn git_init(fx: &Fixture) -> git2::Repository {
    git2::Repository::init(&fx.root).unwrap()
}

// ---- the tests ---------------------------------------------------------------------------------

#[test]
fn every_class_is_published_listed_or_counted() {
    let fx = fixture();
    let c = &fx.cases;
    let o = build(&fx, &[]);
    ok(&o);
    let ix = index(&fx);
    assert_eq!(
        published(&ix),
        vec![
            (c.as_written.0, c.as_written.1.clone(), "checked".into()),
            (c.trailer.0, c.trailer.1.clone(), "checked+trailer".into()),
            (c.draft_md.0, c.draft_md.1.clone(), "draft+trailer".into()),
            (
                c.draft_draft_md.0,
                c.draft_draft_md.1.clone(),
                "draft_file".into()
            ),
        ]
    );
    // The off-list twin of the as-written text is named beside it, the text rendered once.
    assert_eq!(ix["published"][0]["off_list_seqs"], json!([c.dup_off_list]));
    assert_eq!(
        ix["published"][0]["source"],
        format!("sources/{}.md", c.as_written.1)
    );
    // Withheld by the guard: listed with seq, digest, role, day, reasons; not written.
    assert_eq!(ix["withheld"].as_array().unwrap().len(), 1);
    let w = &ix["withheld"][0];
    assert_eq!(w["seq"], c.phone.0);
    assert_eq!(w["sent_sha256"], c.phone.1.as_str());
    assert_eq!(w["role"], "checked");
    assert!(w["day"].as_str().unwrap().starts_with("2026-"));
    assert!(
        w["reasons"].as_array().unwrap().contains(&json!("phone")),
        "{w}"
    );
    assert!(!texts_dir(&fx).join(format!("{}.txt", c.phone.1)).exists());
    // Unreconstructable, each with its reason; the non-UTF-8 bytes never written.
    let unrec: Vec<(i64, String)> = ix["unreconstructable"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| {
            (
                u["seq"].as_i64().unwrap(),
                u["reason"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        unrec,
        vec![
            (c.two_marks, "no_form_matches".into()),
            (c.not_utf8.0, "not_utf8".into()),
            (c.missing, "no_source_file".into()),
        ]
    );
    assert!(
        !texts_dir(&fx)
            .join(format!("{}.txt", c.not_utf8.1))
            .exists()
    );
    // Off the list, by class.
    let off = &ix["off_allow_list"];
    assert_eq!(off["canary"], json!({"count": 1, "seqs": [c.canary]}));
    assert_eq!(
        off["operator_dm"],
        json!({"count": 1, "seqs": [c.operator_dm]})
    );
    assert_eq!(
        off["not_in_config"],
        json!({"count": 2, "seqs": [c.not_in_config, c.dup_off_list]})
    );
    assert_eq!(
        off["dest_class_not_public"],
        json!({"count": 1, "seqs": [c.not_public]})
    );
    assert_eq!(
        off["no_sent_bytes"],
        json!({"count": 1, "seqs": [c.no_sent_bytes]})
    );
    // Counts with denominators; they add up.
    let k = &ix["counts"];
    assert_eq!(k["send_lines"]["count"], 15);
    assert_eq!(
        k["send_lines_withheld_by_line_rules"],
        json!({"count": 1, "of": 15})
    );
    assert_eq!(k["public_send_lines"], json!({"count": 10, "of": 14}));
    assert_eq!(k["allow_listed"], json!({"count": 8, "of": 10}));
    assert_eq!(k["published"], json!({"count": 4, "of": 8}));
    assert_eq!(k["withheld"], json!({"count": 1, "of": 8}));
    assert_eq!(k["unreconstructable"], json!({"count": 3, "of": 8}));
    assert_eq!(k["off_allow_list"]["canary"], json!({"count": 1, "of": 14}));
    // No off-list text is written; every file's name is its digest; nothing added or removed.
    let files: Vec<String> = std::fs::read_dir(texts_dir(&fx))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(files.len(), 5, "{files:?}");
    names_are_digests(&fx);
    assert_eq!(
        std::fs::read(texts_dir(&fx).join(format!("{}.txt", c.trailer.1))).unwrap(),
        c.trailer_bytes
    );
    assert!(
        ix["note"]
            .as_str()
            .unwrap()
            .contains("not statements of the lab")
    );
    // The counts land in STATS.json and SNAPSHOTS.jsonl under public_texts.
    let stats: J =
        serde_json::from_slice(&std::fs::read(fx.site.join("ledger/STATS.json")).unwrap()).unwrap();
    assert_eq!(stats["public_texts"], ix["counts"]);
    let snaps = std::fs::read_to_string(fx.site.join("ledger/SNAPSHOTS.jsonl")).unwrap();
    let last: J = serde_json::from_str(snaps.lines().last().unwrap()).unwrap();
    assert_eq!(last["public_texts"], ix["counts"]);
    // The page embeds the index and the bytes.
    let page = std::fs::read_to_string(fx.site.join("index.html")).unwrap();
    assert!(page.contains("public-texts-json"));
    // Deterministic: a second build changes nothing.
    let before = read_dir_tree(&fx.site);
    ok(&build(&fx, &[]));
    assert_eq!(before, read_dir_tree(&fx.site));
}

#[test]
fn a_missing_or_invalid_gate_config_is_a_usage_error_naming_the_path() {
    let fx = fixture();
    let path = fx.root.join("box/gate/config.json");
    std::fs::write(&path, b"{\"anchor_channel_hash\": 1}").unwrap();
    let o = build(&fx, &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("config.json"), "{}", stderr(&o));
    std::fs::remove_file(&path).unwrap();
    let o = build(&fx, &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("config.json"), "{}", stderr(&o));
    assert!(!fx.site.exists());
}

#[test]
fn outside_a_checkout_a_reading_lasts_for_its_build() {
    let fx = fixture();
    let sha = fx.cases.phone.1.clone();
    ok(&build(&fx, &["--allow-text", &sha]));
    let ix = index(&fx);
    assert!(published(&ix).iter().any(|p| p.1 == sha));
    assert_eq!(ix["allowed_by_operator"][0]["read_in"], "this build");
    assert_eq!(ix["allowed_by_operator"][0]["seq"], fx.cases.phone.0);
    assert!(
        ix["allowed_by_operator"][0]["reasons"]
            .as_array()
            .unwrap()
            .contains(&json!("phone"))
    );
    names_are_digests(&fx);
    // No HEAD: the reading is gone. The file on disk is now listed by no index, so the next
    // build refuses until a person removes it or accepts the rewrite; then it is withheld again.
    let o = build(&fx, &[]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains(&format!("{sha}.txt")), "{}", stderr(&o));
    ok(&build(
        &fx,
        &["--allow-rewrite", "the reading was for one build"],
    ));
    let ix = index(&fx);
    assert_eq!(withheld_shas(&ix), vec![sha.clone()]);
    assert!(ix["allowed_by_operator"].as_array().unwrap().is_empty());
    assert!(!texts_dir(&fx).join(format!("{sha}.txt")).exists());
}

#[test]
fn a_reading_committed_at_head_persists_and_a_hand_written_index_counts_for_nothing() {
    let fx = fixture();
    let repo = git_init(&fx);
    let sha = fx.cases.phone.1.clone();
    ok(&build(&fx, &[]));
    common::commit_site(&repo);
    // A hand-written index on disk claiming a reading.
    let forged = json!({"published": [], "allowed_by_operator": [
        {"sent_sha256": sha, "seq": fx.cases.phone.0, "reasons": ["phone"], "read_in": "this build"}]});
    std::fs::write(
        texts_dir(&fx).join("index.json"),
        serde_json::to_vec(&forged).unwrap(),
    )
    .unwrap();
    ok(&build(&fx, &[]));
    assert_eq!(
        withheld_shas(&index(&fx)),
        vec![sha.clone()],
        "the disk index must not count"
    );
    // The operator reads it; the reading is committed.
    ok(&build(&fx, &["--allow-text", &sha]));
    assert_eq!(
        index(&fx)["allowed_by_operator"][0]["read_in"],
        "this build"
    );
    common::commit_site(&repo);
    let o = build(&fx, &[]);
    ok(&o);
    let ix = index(&fx);
    assert!(
        published(&ix).iter().any(|p| p.1 == sha),
        "HEAD records the reading"
    );
    assert_eq!(ix["allowed_by_operator"][0]["read_in"], "HEAD");
    assert!(withheld_shas(&ix).is_empty());
    names_are_digests(&fx);
}

#[test]
fn a_crlf_checkout_copy_is_restored_and_logged() {
    let fx = fixture();
    let repo = git_init(&fx);
    ok(&build(&fx, &[]));
    common::commit_site(&repo);
    // A second publication settles what depends on HEAD (build.rs's `withheld_sticky` count).
    ok(&build(&fx, &[]));
    common::commit_site(&repo);
    let path = texts_dir(&fx).join(format!("{}.txt", fx.cases.trailer.1));
    let lf = std::fs::read(&path).unwrap();
    assert!(lf.contains(&b'\n'));
    let crlf = String::from_utf8(lf.clone()).unwrap().replace('\n', "\r\n");
    std::fs::write(&path, crlf).unwrap();
    let o = build(&fx, &[]);
    ok(&o);
    assert!(
        stderr(&o).contains("CRLF") && stderr(&o).contains("restored"),
        "{}",
        stderr(&o)
    );
    assert_eq!(std::fs::read(&path).unwrap(), lf);
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(out.contains("no snapshot appended"), "not a rewrite: {out}");
    assert_eq!(
        std::fs::read(fx.site.join("ledger/.gitattributes")).unwrap(),
        b"* -text\n"
    );
}

#[test]
fn a_stray_file_under_public_texts_refuses_and_leaves_dir_untouched() {
    let fx = fixture();
    ok(&build(&fx, &[]));
    std::fs::write(texts_dir(&fx).join("notes.txt"), b"a person's notes").unwrap();
    let before = read_dir_tree(&fx.site);
    let o = build(&fx, &[]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("notes.txt")
            && err.contains("--allow-rewrite")
            && err.contains("remove the file"),
        "{err}"
    );
    assert_eq!(before, read_dir_tree(&fx.site), "DIR untouched");
    // Accepted: the file is removed by the build.
    let o = build(&fx, &["--allow-rewrite", "remove a stray notes file"]);
    ok(&o);
    assert!(!texts_dir(&fx).join("notes.txt").exists());
    assert!(stderr(&o).contains("notes.txt"));
}

/// Issue 48, 5d: a gate source that another name shares (a hard link, perhaps to a private
/// file) is refused, as a symlinked one is: the build names the file, the rule and the fix,
/// and writes nothing.
#[test]
fn a_source_with_a_second_link_is_refused() {
    let fx = fixture();
    let source = &fx.cases.as_written_source;
    let private = fx.root.join("private.md");
    std::fs::rename(source, &private).unwrap();
    std::fs::hard_link(&private, source).unwrap();
    let o = build(&fx, &[]);
    assert!(matches!(o.status.code(), Some(1 | 2)), "{}", stderr(&o));
    let err = stderr(&o);
    let name = source.file_name().unwrap().to_str().unwrap();
    for needle in [name, "[hard_link]", "copy the file so it has one link"] {
        assert!(err.contains(needle), "names {needle:?}: {err}");
    }
    assert!(!fx.site.exists(), "nothing written");
    // The file copied back to one link builds.
    std::fs::remove_file(source).unwrap();
    std::fs::copy(&private, source).unwrap();
    ok(&build(&fx, &[]));
}

#[test]
fn a_published_text_is_carried_forward_when_its_source_is_gone() {
    let fx = fixture();
    let repo = git_init(&fx);
    ok(&build(&fx, &[]));
    common::commit_site(&repo);
    let (seq, sha) = fx.cases.as_written.clone();
    let bytes = std::fs::read(texts_dir(&fx).join(format!("{sha}.txt"))).unwrap();
    std::fs::remove_file(&fx.cases.as_written_source).unwrap();
    ok(&build(&fx, &[]));
    let ix = index(&fx);
    let entry = ix["published"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["sent_sha256"] == sha.as_str())
        .unwrap()
        .clone();
    assert_eq!(entry["form"], "carried_from_previous_build");
    assert_eq!(entry["seq"], seq);
    assert_eq!(
        std::fs::read(texts_dir(&fx).join(format!("{sha}.txt"))).unwrap(),
        bytes
    );
    assert_eq!(
        ix["counts"]["texts"]["carried_from_previous_build"],
        json!({"count": 1, "of": 4})
    );
    names_are_digests(&fx);
}

#[test]
fn without_head_a_text_whose_source_is_gone_is_unreconstructable() {
    let fx = fixture();
    ok(&build(&fx, &[]));
    std::fs::remove_file(&fx.cases.as_written_source).unwrap();
    // Outside a checkout there is no HEAD to carry it from: the old file on disk is listed by
    // no index, and the build refuses until the rewrite is accepted.
    let o = build(&fx, &[]);
    assert_eq!(o.status.code(), Some(1));
    ok(&build(
        &fx,
        &["--allow-rewrite", "source lost outside a checkout"],
    ));
    let ix = index(&fx);
    assert!(!published(&ix).iter().any(|p| p.1 == fx.cases.as_written.1));
    assert!(
        ix["unreconstructable"]
            .as_array()
            .unwrap()
            .iter()
            .any(|u| u["seq"] == fx.cases.as_written.0 && u["reason"] == "no_source_file")
    );
}

#[test]
fn a_published_text_that_newly_trips_the_guard_refuses_until_read_or_dropped() {
    let fx = fixture();
    let repo = git_init(&fx);
    let (seq, sha) = fx.cases.phone.clone();
    ok(&build(&fx, &["--allow-text", &sha]));
    // As if an older build, with narrower rules, had published it without a reading.
    let mut ix = index(&fx);
    ix["allowed_by_operator"] = json!([]);
    std::fs::write(
        texts_dir(&fx).join("index.json"),
        serde_json::to_vec_pretty(&ix).unwrap(),
    )
    .unwrap();
    common::reseal_snapshot(&fx.site);
    common::commit_site(&repo);
    let before = read_dir_tree(&fx.site);
    let o = build(&fx, &[]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(
        err.contains(&format!("{sha}.txt")) && err.contains(&format!("seq {seq}")),
        "{err}"
    );
    assert!(
        err.contains(&format!("--allow-text {sha}")) && err.contains("--allow-rewrite"),
        "{err}"
    );
    assert!(err.contains("phone"), "{err}");
    assert_eq!(before, read_dir_tree(&fx.site));
    // Read by a person.
    ok(&build(&fx, &["--allow-text", &sha]));
    assert!(published(&index(&fx)).iter().any(|p| p.1 == sha));
    // Or dropped, with the reason recorded.
    let o = build(&fx, &["--allow-rewrite", "the text names a phone number"]);
    ok(&o);
    let ix = index(&fx);
    assert!(!published(&ix).iter().any(|p| p.1 == sha));
    assert_eq!(ix["dropped"][0]["sent_sha256"], sha.as_str());
    assert_eq!(
        ix["dropped"][0]["rewrite_reason"],
        "the text names a phone number"
    );
    assert_eq!(
        ix["counts"]["rewrite_reason"],
        "the text names a phone number"
    );
    assert_eq!(withheld_shas(&ix), vec![sha.clone()]);
    assert!(!texts_dir(&fx).join(format!("{sha}.txt")).exists());
}

#[test]
fn a_published_text_that_leaves_the_allow_list_refuses() {
    let fx = fixture();
    let repo = git_init(&fx);
    ok(&build(&fx, &[]));
    common::commit_site(&repo);
    let before = published(&index(&fx)).len();
    // The operator removes group-1 from the config: seq of the trailer case is now off the list.
    let path = fx.root.join("box/gate/config.json");
    let mut cfg: J = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    cfg["group_hashes"] = json!([h("group-2")]);
    std::fs::write(&path, serde_json::to_vec(&cfg).unwrap()).unwrap();
    let o = build(&fx, &[]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("no longer allow-listed") && stderr(&o).contains(&fx.cases.trailer.1),
        "{}",
        stderr(&o)
    );
    // The refusal says why: the class of the line that now carries the text (kept for HEAD's
    // texts only: docs/scale.md#memory), not "no line carries it".
    assert!(
        stderr(&o).contains("is off the allow-list (")
            && !stderr(&o).contains("no line of the ledger carries it now"),
        "{}",
        stderr(&o)
    );
    let o = build(&fx, &["--allow-rewrite", "group-1 went private"]);
    ok(&o);
    let ix = index(&fx);
    assert!(!published(&ix).iter().any(|p| p.1 == fx.cases.trailer.1));
    assert_eq!(ix["dropped"][0]["reason"], "no_longer_allow_listed");
    // That text alone: catches HEAD's texts matched to the wrong "still allow-listed" flags.
    assert_eq!(ix["dropped"].as_array().map(Vec::len), Some(1), "{ix}");
    assert_eq!(ix["dropped"][0]["sent_sha256"], fx.cases.trailer.1.as_str());
    assert_eq!(published(&ix).len(), before - 1);
}

/// A published, committed exhibit built once more, so that DIR's files are recorded
/// (docs/scale.md#comparing-without-reading); returns the path of one published text.
fn recorded_texts(fx: &Fixture) -> PathBuf {
    let repo = git_init(fx);
    ok(&build(fx, &[]));
    common::commit_site(&repo);
    ok(&build(fx, &[]));
    common::commit_site(&repo);
    let rel = format!("ledger/public_texts/{}.txt", fx.cases.trailer.1);
    let mut records =
        exhibit::site_write::dir_record::DirRecords::open(Some(repo.path()), &fx.site);
    assert!(records.get(&rel).is_some(), "{rel} is recorded");
    fx.site.join(rel)
}

/// Changes the first byte of the file at `path`, keeping its size and putting its mtime back
/// (as someone hiding the edit would); returns the bytes it held.
fn edit_keeping_mtime(path: &Path) -> Vec<u8> {
    let good = std::fs::read(path).unwrap();
    let mtime = std::fs::metadata(path).unwrap().modified().unwrap();
    let mut edited = good.clone();
    edited[0] ^= 0x20;
    std::fs::write(path, &edited).unwrap();
    std::fs::File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(mtime)
        .unwrap();
    good
}

#[test]
fn a_recorded_text_is_neither_read_nor_rewritten_by_the_next_build() {
    // The daily case: nothing changed since the last build recorded DIR. DIR's texts are
    // compared by their records, so none is opened (a build that still read every text on
    // disk, or wrote it anew, opens it). The sources are `<sha>.md`, never `<sha>.txt`.
    let fx = fixture();
    let path = recorded_texts(&fx);
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    let (o, calls) = traced_build(&fx, &fx.root.join("trace.txt"), "trace=open,openat,openat2");
    ok(&o);
    assert!(calls.contains("openat"), "the trace holds the opens");
    let opened: Vec<&str> = calls.lines().filter(|l| l.contains(&name)).collect();
    assert!(opened.is_empty(), "{name} opened: {opened:#?}");
}

#[test]
fn a_recorded_text_edited_in_place_keeping_its_mtime_is_compared_and_rewritten() {
    // Same size, one byte changed, mtime put back (as someone hiding the edit would): a record
    // believed on name, size or mtime would leave the edit in DIR without a word.
    let fx = fixture();
    let path = recorded_texts(&fx);
    let good = edit_keeping_mtime(&path);
    let o = build(&fx, &[]);
    ok(&o);
    assert!(
        stderr(&o).contains("on disk differed from the released bytes; rewritten"),
        "{}",
        stderr(&o)
    );
    assert_eq!(std::fs::read(&path).unwrap(), good, "rewritten");
}

// ---- a segmented exhibit: the index in parts (docs/public-texts.md#parts) ------------------------

/// The fixture's ledger crosses 4 KiB: a segmented exhibit, whose index parts hold 4 seqs each.
fn segmented(fx: &Fixture) {
    let toml = std::fs::read_to_string(&fx.toml).unwrap();
    std::fs::write(
        &fx.toml,
        format!("{toml}[publish]\nsegment_bytes = 4096\nwitness_part_seqs = 4\n"),
    )
    .unwrap();
}

/// The index with its parts read back into the lists of an unsplit index, each part checked
/// against its listing on the way (sha256, block, count).
fn reassembled(fx: &Fixture) -> J {
    let mut top = index(fx);
    let mut lists: std::collections::BTreeMap<&str, Vec<J>> = Default::default();
    let mut off: std::collections::BTreeMap<String, Vec<J>> = Default::default();
    for p in top["parts"].as_array().expect("a split index lists parts") {
        let path = p["path"].as_str().unwrap();
        let bytes = std::fs::read(fx.site.join(path)).unwrap();
        assert_eq!(p["sha256"], Digest::of(&bytes).to_string(), "{path}");
        let n: u64 = path
            .strip_prefix("ledger/public_texts/index/")
            .and_then(|n| n.strip_suffix(".json"))
            .unwrap()
            .parse()
            .unwrap();
        let (first, last) = ((n - 1) * 4 + 1, n * 4);
        assert_eq!(
            (p["first_seq"].as_u64(), p["last_seq"].as_u64()),
            (Some(first), Some(last))
        );
        let part: J = serde_json::from_slice(&bytes).unwrap();
        let mut count = 0;
        let within = |seq: &J| {
            let seq = seq.as_u64().unwrap();
            assert!((first..=last).contains(&seq), "seq {seq} in {path}");
        };
        for key in ["published", "withheld", "unreconstructable"] {
            for e in part[key].as_array().unwrap() {
                within(&e["seq"]);
                count += 1;
                lists.entry(key).or_default().push(e.clone());
            }
        }
        for (class, seqs) in part["off_allow_list"].as_object().unwrap() {
            for seq in seqs.as_array().unwrap() {
                within(seq);
                count += 1;
                off.entry(class.clone()).or_default().push(seq.clone());
            }
        }
        assert_eq!(p["entries"], count, "{path}");
    }
    let ix = top.as_object_mut().unwrap();
    ix.remove("parts");
    for key in ["published", "withheld", "unreconstructable"] {
        ix.insert(key.into(), J::Array(lists.remove(key).unwrap_or_default()));
    }
    for (class, c) in ix["off_allow_list"].as_object_mut().unwrap() {
        c["seqs"] = J::Array(off.remove(class).unwrap_or_default());
    }
    top
}

#[test]
fn a_segmented_exhibits_index_is_cut_into_parts_that_reassemble_to_the_whole() {
    // The same box twice: its ledger in one file (the index whole, as always), and segmented.
    let whole = fixture();
    ok(&build(&whole, &[]));
    let fx = fixture();
    segmented(&fx);
    ok(&build(&fx, &[]));
    assert!(
        fx.site.join("ledger/segments").is_dir(),
        "the ledger is segmented"
    );
    let top = index(&fx);
    for key in ["published", "withheld", "unreconstructable"] {
        assert!(
            top.get(key).is_none(),
            "{key}: the lists are in the parts only"
        );
    }
    assert!(top["off_allow_list"]["canary"].get("seqs").is_none());
    assert!(top["parts"].as_array().unwrap().len() >= 3, "{top}");
    // Read back, the parts are the whole index's lists, entry for entry and in order.
    assert_eq!(reassembled(&fx), index(&whole));
    // The texts themselves are the same files.
    let texts = |fx: &Fixture| {
        read_dir_tree(&texts_dir(fx))
            .into_iter()
            .filter(|(p, _)| p.ends_with(".txt"))
            .map(|(p, b)| (Path::new(&p).file_name().unwrap().to_owned(), b))
            .collect::<Vec<_>>()
    };
    assert_eq!(texts(&fx), texts(&whole));
    let (code, v) = common::verify_json(&fx.site);
    assert_eq!(code, Some(0), "{v}");
    // The light page carries the index's summary, not the texts nor the per-line lists.
    let html = std::fs::read_to_string(fx.site.join("index.html")).unwrap();
    let data: J = serde_json::from_slice(&common::unb64(crate::light_page::block(
        &html,
        "public-texts-json",
    )))
    .unwrap();
    assert!(data.get("texts").is_none(), "{data}");
    assert!(data["index"].get("published").is_none());
    assert_eq!(data["index"]["counts"], top["counts"]);
    assert_eq!(data["index"]["parts"], top["parts"]);
}

#[test]
fn a_text_listed_in_heads_parts_is_carried_forward_and_full_parts_stay_as_they_were() {
    let fx = fixture();
    segmented(&fx);
    let repo = git_init(&fx);
    ok(&build(&fx, &[]));
    common::commit_site(&repo);
    let parts_before = read_dir_tree(&texts_dir(&fx).join("index"));
    // The as-written text's source is gone: only HEAD's index, in its parts, says it was published.
    let (seq, sha) = fx.cases.as_written.clone();
    std::fs::remove_file(&fx.cases.as_written_source).unwrap();
    ok(&build(&fx, &[]));
    let ix = reassembled(&fx);
    let entry = ix["published"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["sent_sha256"] == sha.as_str())
        .unwrap_or_else(|| panic!("{sha} is still published: {ix}"))
        .clone();
    assert_eq!(entry["form"], "carried_from_previous_build");
    assert_eq!(entry["seq"], seq);
    // Only the part holding that entry changed; the others are byte for byte HEAD's.
    let parts_after = read_dir_tree(&texts_dir(&fx).join("index"));
    let changed: Vec<&String> = parts_before
        .iter()
        .zip(&parts_after)
        .filter(|(a, b)| a != b)
        .map(|(a, _)| &a.0)
        .collect();
    assert_eq!(parts_before.len(), parts_after.len());
    assert_eq!(changed.len(), 1, "{changed:?}");
    assert!(changed[0].ends_with(&format!("{:06}.json", (seq as u64 - 1) / 4 + 1)));
}

#[test]
fn a_segmented_exhibits_recorded_texts_are_linked_as_listed_and_an_edited_one_rewritten() {
    // A segmented exhibit names the texts DIR holds as DIR's files, in one list by digest
    // (docs/scale.md#texts-listed). Catches a list that loses a text (DIR would lose the file,
    // or the snapshot change), one whose entries read from the wrong folder or under the wrong
    // suffix, and one that trusts DIR's copy after an edit hidden behind its old mtime.
    use std::os::unix::fs::MetadataExt;
    let fx = fixture();
    segmented(&fx);
    let path = recorded_texts(&fx);
    let texts_before = read_dir_tree(&texts_dir(&fx));
    let inodes = |fx: &Fixture| -> Vec<(String, u64)> {
        read_dir_tree(&texts_dir(fx))
            .into_iter()
            .filter(|(p, _)| p.ends_with(".txt"))
            .map(|(p, _)| {
                let ino = std::fs::metadata(texts_dir(fx).join(&p)).unwrap().ino();
                (p, ino)
            })
            .collect()
    };
    let linked = inodes(&fx);
    assert!(linked.len() >= 3, "{linked:?}");
    let o = build(&fx, &[]);
    ok(&o);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("no snapshot appended"), "{out}");
    assert_eq!(read_dir_tree(&texts_dir(&fx)), texts_before);
    assert_eq!(
        inodes(&fx),
        linked,
        "each text DIR held is linked, not written anew"
    );
    let (code, v) = common::verify_json(&fx.site);
    assert_eq!(code, Some(0), "{v}");

    let good = edit_keeping_mtime(&path);
    let o = build(&fx, &[]);
    ok(&o);
    assert_eq!(std::fs::read(&path).unwrap(), good, "rewritten");
    assert_eq!(read_dir_tree(&texts_dir(&fx)), texts_before);
}

#[test]
fn without_dirs_record_a_segmented_exhibits_texts_are_read_and_found_unchanged() {
    // A checkout or a clone on another machine: DIR's record describes none of DIR's files, so
    // each text DIR holds is read and compared. A new text's bytes are let go once written
    // into the build's folder of made files; compared with those empty bytes, every copy read
    // as changed and the build said "differed … rewritten" of each (170,000 at a million
    // lines: docs/scale.md#the-review-walks-dir). Caught: that note for an unchanged copy, and
    // none for a copy that really changed.
    let fx = fixture();
    segmented(&fx);
    let path = recorded_texts(&fx);
    let forget = || {
        let git = git2::Repository::open(&fx.root).unwrap();
        let record = git.path().join("exhibit/dir-stat");
        std::fs::remove_file(&record).unwrap();
    };
    forget();
    let texts_before = read_dir_tree(&texts_dir(&fx));
    let o = build(&fx, &[]);
    ok(&o);
    for note in ["differed from the released bytes", "had CRLF"] {
        assert!(!stderr(&o).contains(note), "{}", stderr(&o));
    }
    assert_eq!(read_dir_tree(&texts_dir(&fx)), texts_before);

    let mut bytes = std::fs::read(&path).unwrap();
    bytes[0] ^= 0x20;
    std::fs::write(&path, &bytes).unwrap();
    forget();
    // A dry run reads each copy to be sure as its text is released (it has no folder of made
    // files to let the text go into: docs/scale.md#without-dirs-record-dry-run): the changed
    // one is the one change, and said once; nothing is written.
    let site_before = read_dir_tree(&fx.site);
    let o = build(&fx, &["--dry-run"]);
    ok(&o);
    let said = format!("{}{}", String::from_utf8_lossy(&o.stdout), stderr(&o));
    assert!(said.contains("0 added, 1 changed, 0 removed"), "{said}");
    assert_eq!(
        said.matches("on disk differed from the released bytes")
            .count(),
        1,
        "{said}"
    );
    assert_eq!(
        read_dir_tree(&fx.site),
        site_before,
        "a dry run writes nothing"
    );
    let o = build(&fx, &[]);
    ok(&o);
    assert_eq!(
        stderr(&o)
            .matches("on disk differed from the released bytes; rewritten")
            .count(),
        1,
        "{}",
        stderr(&o)
    );
    assert_eq!(read_dir_tree(&texts_dir(&fx)), texts_before, "rewritten");
}

#[test]
fn a_part_shaped_stray_under_public_texts_refuses_like_any_stray() {
    let fx = fixture();
    segmented(&fx);
    ok(&build(&fx, &[]));
    // A name of the grammar, but no part this build writes.
    std::fs::write(
        texts_dir(&fx).join("index/000099.json"),
        b"{\"published\": []}",
    )
    .unwrap();
    let before = read_dir_tree(&fx.site);
    let o = build(&fx, &[]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("index/000099.json"), "{}", stderr(&o));
    assert_eq!(before, read_dir_tree(&fx.site), "DIR untouched");
}

#[test]
fn verify_site_names_a_changed_missing_or_unlisted_part() {
    let fx = fixture();
    segmented(&fx);
    ok(&build(&fx, &[]));
    let parts = texts_dir(&fx).join("index");
    let first = parts.join("000001.json");
    let copy = fx.root.join("copy");
    // Changed: one seq moved within the part still changes its sha256.
    common::copy_site(&fx.site, &copy);
    let p = copy.join("ledger/public_texts/index/000001.json");
    let bytes = std::fs::read_to_string(&first).unwrap();
    std::fs::write(&p, bytes.replacen("[", "[ ", 1)).unwrap();
    let (code, v) = common::verify_json(&copy);
    assert_eq!(code, Some(1), "{v}");
    common::assert_file_problem(
        &v,
        "ledger/public_texts/index/000001.json",
        "text_part_mismatch",
    );
    // Missing.
    std::fs::remove_file(&p).unwrap();
    let (_, v) = common::verify_json(&copy);
    common::assert_file_problem(
        &v,
        "ledger/public_texts/index/000001.json",
        "text_part_missing",
    );
    // Unlisted.
    std::fs::copy(&first, &p).unwrap();
    std::fs::write(copy.join("ledger/public_texts/index/000099.json"), b"{}").unwrap();
    let (code, v) = common::verify_json(&copy);
    assert_eq!(code, Some(1), "{v}");
    common::assert_file_problem(
        &v,
        "ledger/public_texts/index/000099.json",
        "text_part_stray",
    );
    // An entry moved to another part's block, the listing resealed to match: still caught.
    std::fs::remove_file(copy.join("ledger/public_texts/index/000099.json")).unwrap();
    let mut part: J = serde_json::from_str(&bytes).unwrap();
    part["published"][0]["seq"] = json!(9);
    let forged = exhibit::published::encode::pretty(&part);
    std::fs::write(&p, &forged).unwrap();
    let mut top: J = serde_json::from_slice(
        &std::fs::read(copy.join("ledger/public_texts/index.json")).unwrap(),
    )
    .unwrap();
    top["parts"][0]["sha256"] = json!(Digest::of(&forged).to_string());
    std::fs::write(
        copy.join("ledger/public_texts/index.json"),
        exhibit::published::encode::pretty(&top),
    )
    .unwrap();
    let (_, v) = common::verify_json(&copy);
    common::assert_file_problem(
        &v,
        "ledger/public_texts/index/000001.json",
        "text_part_invalid",
    );
}

/// A light page carries a summary of the texts' index, not the texts: `verify SITE` holds the
/// summary to `public_texts/index.json`, on a segmented exhibit (the index in parts) and on a
/// one-file exhibit whose page is light by its ceiling (the index whole, the per-line lists
/// left out of the page). Catches the summary taken on trust, and a light page held to the
/// whole index (which would fail every one-file light page).
#[test]
fn verify_site_holds_a_light_pages_texts_summary_to_the_index() {
    for (kind, extra) in [
        (
            "segmented",
            "[publish]\nsegment_bytes = 4096\nwitness_part_seqs = 4\n",
        ),
        (
            "one file, light by its ceiling",
            "[publish]\npage_bytes = 65536\n",
        ),
    ] {
        let fx = fixture();
        let toml = std::fs::read_to_string(&fx.toml).unwrap();
        std::fs::write(&fx.toml, format!("{toml}{extra}")).unwrap();
        ok(&build(&fx, &[]));
        let (code, v) = common::verify_json(&fx.site);
        assert_eq!(code, Some(0), "{kind}: {v}");
        let carried = crate::site_agreement::page_json(&fx.site, "public-texts-json");
        assert!(carried.get("texts").is_none(), "{kind}: {carried}");
        let copy = fx.root.join("copy");
        common::copy_site(&fx.site, &copy);
        let mut edited = carried.clone();
        edited["index"]["counts"] = json!({});
        crate::site_agreement::set_block(
            &copy,
            "public-texts-json",
            &serde_json::to_vec(&edited).unwrap(),
        );
        let (code, v) = common::verify_json(&copy);
        assert_eq!(code, Some(1), "{kind}: {v}");
        common::assert_file_problem(&v, "index.html", "page_copy_mismatch");
        // The block taken out: the page would say nothing of the texts the site holds.
        std::fs::remove_dir_all(&copy).unwrap();
        common::copy_site(&fx.site, &copy);
        let page = copy.join("index.html");
        let html = std::fs::read_to_string(&page).unwrap();
        // The page's attributes are quoted (docs/page.md#the-shell-as-written).
        let renamed = html.replace("id=\"public-texts-json\"", "id=\"public-texts-jsox\"");
        assert_ne!(renamed, html, "{kind}: the block was renamed");
        std::fs::write(&page, renamed).unwrap();
        let (code, v) = common::verify_json(&copy);
        assert_eq!(code, Some(1), "{kind}: {v}");
        assert!(
            v.to_string().contains("the page has no such block"),
            "{kind}: {v}"
        );
    }
}

#[test]
fn the_light_page_fetches_and_rehashes_a_found_lines_released_text() {
    let fx = fixture();
    segmented(&fx);
    ok(&build(&fx, &[]));
    let (seq, sha) = fx.cases.as_written.clone();
    let server = crate::light_page::Server::start(&fx.site);
    let fragment = format!("#paste={sha}");
    // The light page's default check is the checkpoint's, in log size; the paste is proved in
    // the tree (docs/page.md "Prove one message on a light page").
    let f = crate::light_page::visit(&server.url("index.html"), None, &["--fragment", &fragment]);
    assert_eq!(f["verdict"]["data-state"], "checkpoint", "{}", f["verdict"]);
    assert_eq!(
        f["verdict"]["data-verdict"], "checkpoint",
        "{}",
        f["verdict"]
    );
    assert_eq!(
        f["pasteResult"]["data-proof"], "included",
        "{}",
        f["pasteResult"]
    );
    let dom = f["dom"].as_str().unwrap();
    // Two lines carry the digest, both found through the index and proved: the allow-listed
    // one gets the fetched bytes, re-hashed; its off-list twin is named as such.
    assert!(dom.contains("data-state=\"released\""), "{dom}");
    assert!(dom.contains("data-state=\"off-list\""), "{dom}");
    assert!(dom.contains("Two of the 3 checks passed today."));
    let hits = server.take();
    assert!(
        !hits.keys().any(|p| p.starts_with("ledger/segments/")),
        "no ledger file read: {hits:?}"
    );
    assert_eq!(
        // Once for both lines that carry it: each file is fetched once a visit.
        hits.get(&format!("ledger/public_texts/{sha}.txt")),
        Some(&1),
        "{hits:?}"
    );
    let part = format!(
        "ledger/public_texts/index/{:06}.json",
        (seq as u64 - 1) / 4 + 1
    );
    assert!(hits.contains_key(&part), "{hits:?}");
    // The page says it re-hashed no text on its own, rather than "0 of 0", and so does its
    // full check, which re-derives the chain: no head is posted in this box, so `gaps`.
    assert!(dom.contains("does not carry the released texts"), "{dom}");
    let f = crate::light_page::visit(&server.url(crate::light_page::FULL), None, &[]);
    assert_eq!(f["verdict"]["data-state"], "re-derives", "{}", f["verdict"]);
    assert_eq!(f["verdict"]["data-verdict"], "gaps", "{}", f["verdict"]);
    let dom = f["dom"].as_str().unwrap();
    assert!(dom.contains("does not carry the released texts"), "{dom}");
    assert!(!dom.contains("0 of 0 released texts"));

    // A text whose file was changed on the server is shown as DIFFERENT, not as released.
    std::fs::write(
        texts_dir(&fx).join(format!("{sha}.txt")),
        b"Two of the 3 checks failed today.",
    )
    .unwrap();
    let f = crate::light_page::visit(&server.url("index.html"), None, &["--fragment", &fragment]);
    let dom = f["dom"].as_str().unwrap();
    assert!(dom.contains("data-state=\"bad\""), "{dom}");
    assert!(!dom.contains("data-state=\"released\""), "{dom}");
}

#[test]
fn a_light_page_over_its_ceiling_is_said_not_hidden() {
    let fx = fixture();
    segmented(&fx);
    let o = build(&fx, &[]);
    ok(&o);
    assert!(
        !stderr(&o).contains("bytes a light page aims at"),
        "{}",
        stderr(&o)
    );
    // The smallest ceiling: the page's own script alone weighs more, so even the light page
    // without the last ledger file passes it, and the build says so.
    let toml = std::fs::read_to_string(&fx.toml).unwrap();
    std::fs::write(&fx.toml, format!("{toml}page_bytes = 65536\n")).unwrap();
    let o = build(&fx, &[]);
    ok(&o);
    let page = std::fs::metadata(fx.site.join("index.html")).unwrap().len();
    assert!(page > 65_536, "{page}");
    assert!(
        stderr(&o).contains(&format!(
            "index.html weighs {page} bytes as the light page that reads its records from the site, over the 65536 bytes a light page aims at"
        )),
        "{}",
        stderr(&o)
    );
}

/// HEAD's index is read part by part, each entry taken as its part is read
/// (docs/scale.md#giving-memory-back): a published entry without a sent_sha256 is still named,
/// and only once every part has been read, so that a part HEAD does not hold is named first, as
/// when every list was read before any entry. Catches an entry without a digest skipped
/// silently, and one named as soon as it is met.
#[test]
fn heads_index_names_a_missing_part_before_an_entry_without_a_digest() {
    let fx = fixture();
    segmented(&fx);
    let repo = git_init(&fx);
    ok(&build(&fx, &[]));
    common::commit_site(&repo);
    let first_part = texts_dir(&fx).join("index/000001.json");
    let mut part: J = serde_json::from_slice(&std::fs::read(&first_part).unwrap()).unwrap();
    let entries = part["published"]
        .as_array_mut()
        .expect("part 1 publishes a text");
    entries[0].as_object_mut().unwrap().remove("sent_sha256");
    std::fs::write(&first_part, exhibit::published::encode::pretty(&part)).unwrap();
    common::commit_site(&repo);
    let rewrite = ["--allow-rewrite", "a test edits HEAD's index"];
    let o = build(&fx, &rewrite);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("a published entry without a sent_sha256"),
        "{}",
        stderr(&o)
    );
    // The same, and the last part listed is one HEAD does not hold: that is named.
    let mut top = index(&fx);
    let parts = top["parts"].as_array_mut().unwrap();
    let mut gone = parts[parts.len() - 1].clone();
    gone["path"] = json!("ledger/public_texts/index/000099.json");
    parts.push(gone);
    std::fs::write(
        texts_dir(&fx).join("index.json"),
        exhibit::published::encode::pretty(&top),
    )
    .unwrap();
    common::commit_site(&repo);
    let o = build(&fx, &rewrite);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o)
            .contains("it lists ledger/public_texts/index/000099.json, which HEAD does not hold"),
        "{}",
        stderr(&o)
    );
    assert!(
        !stderr(&o).contains("without a sent_sha256"),
        "{}",
        stderr(&o)
    );
}

/// `build` under strace, the calls `calls` names (strace's `-e trace=...`) written to `trace`;
/// returns the build's output and the calls.
fn traced_build(fx: &Fixture, trace: &Path, calls: &str) -> (Output, String) {
    traced_build_with(fx, trace, calls, &[])
}

fn traced_build_with(fx: &Fixture, trace: &Path, calls: &str, extra: &[&str]) -> (Output, String) {
    let o = Command::new("strace")
        .args(["-f", "-e", calls, "-o"])
        .arg(trace)
        .arg(env!("CARGO_BIN_EXE_exhibit"))
        .args(["build", "--config"])
        .arg(&fx.toml)
        .arg("--out")
        .arg(&fx.site)
        .arg("--public-texts")
        .args(extra)
        .env("SOURCE_DATE_EPOCH", "1800000000")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .unwrap();
    (o, std::fs::read_to_string(trace).unwrap())
}

/// The calls that make folders and links.
const MADE_CALLS: &str = "trace=mkdir,mkdirat,link,linkat";

/// The names beside DIR that are exhibit's temporary folders.
fn beside_dir(fx: &Fixture) -> Vec<String> {
    std::fs::read_dir(fx.site.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".exhibit-"))
        .collect()
}

#[test]
fn a_segmented_build_writes_what_it_makes_beside_dir_and_links_it_in() {
    // A segmented exhibit's released texts and text index parts are written as they are made,
    // into the build's folder of made files beside DIR, and linked into the new tree
    // (docs/scale.md#made-as-written). Catches a build that holds them to the write stage
    // again (no made folder), one that copies them (no link from it), a made file that is not
    // the text its name says, and a made folder left behind.
    use std::os::unix::fs::MetadataExt;
    let fx = fixture();
    segmented(&fx);
    let repo = git_init(&fx);
    let (o, calls) = traced_build(&fx, &fx.root.join("trace.txt"), MADE_CALLS);
    ok(&o);
    common::commit_site(&repo);
    assert!(
        calls
            .lines()
            .any(|l| l.contains("mkdir") && l.contains(".site.exhibit-made-")),
        "{calls}"
    );
    let mut linked = 0;
    let prefix = format!("{}/", texts_dir(&fx).display());
    for (path, bytes) in read_dir_tree(&texts_dir(&fx)) {
        let rel = path.strip_prefix(&prefix).unwrap().to_string();
        let made = rel.ends_with(".txt") || rel.starts_with("index/");
        if !made {
            continue;
        }
        // linkat(AT_FDCWD, ".../.site.exhibit-made-<pid>/ledger/public_texts/<rel>", <fd>, ...) = 0
        let from = format!("/ledger/public_texts/{rel}\"");
        assert!(
            calls.lines().any(|l| l.contains("link")
                && l.contains(".site.exhibit-made-")
                && l.contains(&from)
                && l.trim_end().ends_with("= 0")),
            "{rel} is linked from the made folder: {calls}"
        );
        if let Some(sha) = rel.strip_suffix(".txt") {
            assert_eq!(Digest::of(&bytes).to_string(), sha, "{rel}");
        }
        let meta = std::fs::metadata(texts_dir(&fx).join(&rel)).unwrap();
        assert_eq!(meta.nlink(), 1, "{rel}: the made folder's name is gone");
        linked += 1;
    }
    assert!(linked >= 4, "texts and parts: {linked}");
    assert_eq!(beside_dir(&fx), Vec::<String>::new());
    let (code, v) = common::verify_json(&fx.site);
    assert_eq!(code, Some(0), "{v}");
    // The same build again, over the commit: DIR's record names every text and part, so
    // nothing is made and nothing changes.
    let before = read_dir_tree(&fx.site);
    let (o, calls) = traced_build(&fx, &fx.root.join("trace2.txt"), MADE_CALLS);
    ok(&o);
    assert!(!calls.contains(".site.exhibit-made-"), "{calls}");
    assert_eq!(read_dir_tree(&fx.site), before);
}

#[test]
fn a_dry_run_makes_its_files_beside_dir_links_none_and_reviews_what_the_build_writes() {
    // A segmented exhibit's dry run makes its texts and index parts as the build does, into
    // its own folder beside DIR, and removes it (docs/scale.md#dry-run-made): held instead, a
    // first publication's dry run at a million lines held 380 MB more than the build. Catches
    // a dry run that holds them again (no made folder), one that links a made file into DIR
    // or leaves its folder, and a review as data that lists other files than the build then
    // writes, or diffs a text other than the one written.
    let fx = fixture();
    segmented(&fx);
    let _repo = git_init(&fx);
    let (o, calls) = traced_build_with(
        &fx,
        &fx.root.join("trace.txt"),
        MADE_CALLS,
        &["--dry-run", "--json"],
    );
    ok(&o);
    assert!(
        calls
            .lines()
            .any(|l| l.contains("mkdir") && l.contains(".site.exhibit-made-")),
        "{calls}"
    );
    assert!(!calls.contains("link"), "{calls}");
    assert!(!fx.site.exists(), "a dry run writes nothing in DIR");
    assert_eq!(beside_dir(&fx), Vec::<String>::new());
    let v: J = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["review"]["files"], v["files"]);
    ok(&build(&fx, &[]));
    let prefix = format!("{}/", fx.site.display());
    let written: Vec<(String, Vec<u8>)> = read_dir_tree(&fx.site)
        .into_iter()
        .map(|(p, b)| (p.strip_prefix(&prefix).unwrap().to_string(), b))
        .collect();
    // In path order, as the lists are (the walk puts `index/` before `index.json`).
    let mut names: Vec<&str> = written.iter().map(|(p, _)| p.as_str()).collect();
    names.sort_unstable();
    let added: Vec<&str> = v["files"]["added"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().unwrap())
        .collect();
    assert_eq!(added, names);
    let mut texts = 0;
    for diff in v["review"]["diffs"].as_array().unwrap() {
        let path = diff["path"].as_str().unwrap();
        if !(path.starts_with("ledger/public_texts/") && path.ends_with(".txt")) {
            continue;
        }
        let bytes = &written.iter().find(|(p, _)| p == path).unwrap().1;
        let first = String::from_utf8_lossy(bytes)
            .lines()
            .next()
            .unwrap()
            .to_string();
        let shown = diff["hunks"][0]["lines"][0].as_str().unwrap();
        assert_eq!(shown, format!("+{first}"), "{path}");
        texts += 1;
    }
    assert!(texts >= 2, "{texts} texts diffed");
}

#[test]
fn a_build_refused_after_it_made_files_leaves_dir_and_its_parent_as_they_were() {
    // Texts new to DIR are made (written beside it), then a stray part-shaped file under
    // public_texts/ refuses the build: DIR is byte-identical and the made folder is gone
    // (docs/build.md#safety). Catches a made folder that outlives a refusal, and made files
    // that reach DIR on one.
    let fx = fixture();
    segmented(&fx);
    ok(&build(&fx, &[]));
    for (rel, _) in read_dir_tree(&texts_dir(&fx)) {
        if rel.ends_with(".txt") {
            std::fs::remove_file(texts_dir(&fx).join(rel)).unwrap();
        }
    }
    std::fs::write(
        texts_dir(&fx).join("index/000099.json"),
        b"{\"published\": []}",
    )
    .unwrap();
    let before = read_dir_tree(&fx.site);
    let (o, calls) = traced_build(&fx, &fx.root.join("trace.txt"), MADE_CALLS);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("index/000099.json"), "{}", stderr(&o));
    assert!(
        calls
            .lines()
            .any(|l| l.contains("mkdir") && l.contains(".site.exhibit-made-")),
        "the texts were made before the refusal: {calls}"
    );
    assert_eq!(read_dir_tree(&fx.site), before, "DIR untouched");
    assert_eq!(beside_dir(&fx), Vec::<String>::new());
}

/// The dry run names a withheld text first, with its sent_sha256, reason and the flag that
/// releases it, in words, Markdown and JSON (issue 47). Catches a withheld text shown only as a
/// count, or cut from the JSON review.
#[test]
fn the_dry_run_names_each_withheld_text_with_its_flag_in_every_form() {
    let fx = fixture();
    let (seq, sha) = fx.cases.phone.clone();
    let flag = format!("--allow-text {sha}");
    let text = build(&fx, &["--dry-run"]);
    let words = String::from_utf8_lossy(&text.stdout).into_owned();
    assert!(
        words.contains(&format!("text withheld: {sha} (seq {seq})")) && words.contains(&flag),
        "{words}"
    );
    assert!(
        words.find(&flag).unwrap() < words.find("what this publication adds").unwrap(),
        "named first: {words}"
    );
    let md = String::from_utf8_lossy(&build(&fx, &["--dry-run", "--format", "markdown"]).stdout)
        .into_owned();
    assert!(md.contains(&flag), "{md}");
    let o = build(&fx, &["--dry-run", "--json"]);
    let v: J = serde_json::from_slice(&o.stdout).unwrap();
    let withheld = v["review"]["summary"]["texts_withheld"].as_array().unwrap();
    let entry = withheld
        .iter()
        .find(|e| e["sent_sha256"] == sha.as_str())
        .unwrap_or_else(|| panic!("{withheld:?}"));
    assert_eq!(
        (&entry["seq"], &entry["accept"]),
        (&json!(seq), &json!(flag))
    );
    assert!(!entry["reasons"].as_array().unwrap().is_empty());
}

/// A found line's released text on a light page whose index part is large (docs/page.md
/// "Released texts on a light page"): the bytes are fetched and re-hashed at once, and the part
/// that says whether the line is the allow-listed send is read only on the visitor's click. At
/// a million lines a part weighed 773 KB and every paste fetched it, past what proving one
/// message may fetch. Catches a page that still reads a large part unasked, one that calls the
/// line released before reading it, and a button that settles nothing.
#[test]
fn a_large_index_part_is_read_on_request() {
    let built = crate::excerpt_page::light_box_with_texts(5);
    let site = built.site.clone();
    let index: J = serde_json::from_slice(
        &std::fs::read(site.join("ledger/public_texts/index.json")).unwrap(),
    )
    .unwrap();
    let part = &index["parts"][0];
    assert!(part["entries"].as_u64().unwrap() > 1000, "{part}");
    let part_path = part["path"].as_str().unwrap().to_string();
    let part_json: J =
        serde_json::from_slice(&std::fs::read(site.join(&part_path)).unwrap()).unwrap();
    let published = &part_json["published"][0];
    let sha = published["sent_sha256"].as_str().unwrap().to_string();

    let server = crate::light_page::Server::start(&site);
    let fragment = format!("#paste={sha}");
    let f = crate::light_page::visit(&server.url("index.html"), None, &["--fragment", &fragment]);
    assert_eq!(
        f["pasteResult"]["data-proof"], "included",
        "{}",
        f["pasteResult"]
    );
    let dom = f["dom"].as_str().unwrap();
    assert!(dom.contains("data-state=\"rehashed\""), "{dom}");
    assert!(!dom.contains("data-state=\"released\""), "{dom}");
    let hits = server.take();
    assert!(
        !hits.contains_key(&part_path),
        "{part_path} read unasked: {hits:?}"
    );
    assert_eq!(
        hits.get(&format!("ledger/public_texts/{sha}.txt")),
        Some(&1),
        "{hits:?}"
    );

    // The click reads the part once and settles the line's standing.
    let settle = "new Promise(function (done) { var b = document.querySelector('.released-fetch[data-state=rehashed] button.part-standing'); if (!b) { done('no button'); return; } b.click(); var t = setInterval(function () { var s = document.querySelector('.released-fetch').getAttribute('data-state'); if (s !== 'rehashed') { clearInterval(t); done(s); } }, 50); })";
    let f = crate::light_page::visit(
        &server.url("index.html"),
        None,
        &["--fragment", &fragment, "--eval", settle],
    );
    assert_eq!(f["evalResult"], "released", "{}", f["evalResult"]);
    let hits = server.take();
    assert_eq!(hits.get(&part_path), Some(&1), "{hits:?}");
}

// ---- the excerpt index (docs/tree.md#excerpts) ----------------------------------------------

/// `exhibit prove --site --excerpt FILE --json`: exit code and answer.
fn prove_excerpt(site: &Path, excerpt: &str) -> (Option<i32>, J) {
    let file = site.parent().unwrap().join("excerpt.txt");
    std::fs::write(&file, excerpt).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_exhibit"))
        .args(["prove", "--json", "--site"])
        .arg(site)
        .arg("--excerpt")
        .arg(&file)
        .output()
        .unwrap();
    assert!(!stderr(&o).contains("panicked"), "{}", stderr(&o));
    (
        o.status.code(),
        serde_json::from_slice(&o.stdout).unwrap_or(J::Null),
    )
}

#[test]
fn an_excerpt_of_a_released_text_proves_its_line_and_the_index_is_held_to_the_texts() {
    // Catches: an index not built from the released texts (no hit), a hit taken from the index
    // without the text (the shuffled excerpt shares keys' files but not the run of words), a
    // line not proved (included), and a verifier that does not remake the index from the
    // texts (a flipped byte, a removed tail, a stray each fail by their own code).
    let fx = fixture();
    ok(&build(&fx, &[]));
    let ix = index(&fx);
    let (seq, sha, text) = ix["published"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|p| {
            let sha = p["sent_sha256"].as_str()?.to_string();
            let text = std::fs::read_to_string(texts_dir(&fx).join(format!("{sha}.txt"))).ok()?;
            (exhibit_protocol::excerpt::words(&text).len() >= 16)
                .then(|| (p["seq"].as_u64().unwrap(), sha, text))
        })
        .next()
        .expect("a released text of 16 words or more");
    let words = exhibit_protocol::excerpt::words(&text);
    let excerpt = words[2..14].join("  ");
    let (code, v) = prove_excerpt(&fx.site, &excerpt);
    assert_eq!(code, Some(0), "{v}");
    let found = &v["found"][0];
    assert_eq!(found["included"], true, "{v}");
    assert_eq!(found["excerpt"]["word"], 3, "{v}");
    assert_eq!(found["excerpt"]["whole"], false, "{v}");
    assert_eq!(
        found["excerpt"]["text"],
        format!("ledger/public_texts/{sha}.txt"),
        "{v}"
    );
    assert!(found["line"].as_str().unwrap().contains(&sha), "{v}");
    // The first send line carrying the text: the public index's own seq or an earlier one.
    assert!(found["seq"].as_u64().unwrap() <= seq, "{v}");
    // The same words out of order were never sent as a run.
    let mut shuffled = words[2..14].to_vec();
    shuffled.swap(0, 11);
    let (code, v) = prove_excerpt(&fx.site, &shuffled.join(" "));
    assert_eq!(code, Some(1), "{v}");
    assert!(v["found"].as_array().unwrap().is_empty(), "{v}");
    // Too short to look up.
    let (code, v) = prove_excerpt(&fx.site, &words[2..10].join(" "));
    assert_eq!(code, Some(1), "{v}");
    assert!(v["notes"][0].as_str().unwrap().contains("12 words"), "{v}");

    let (code, v) = common::verify_json(&fx.site);
    assert_eq!(code, Some(0), "{v}");
    let excerpts = fx.site.join("ledger/tree/excerpts");
    let mut nonempty: Vec<PathBuf> = walk_files(&excerpts)
        .into_iter()
        .filter(|p| std::fs::metadata(p).unwrap().len() > 0)
        .collect();
    nonempty.sort();
    let target = nonempty.first().expect("a file with rows").clone();
    assert!(target.starts_with(&fx.site));
    let rel = target
        .strip_prefix(&fx.site)
        .unwrap()
        .to_string_lossy()
        .into_owned();
    let copy = fx.root.join("copy");
    let in_copy = copy.join(&rel);
    common::copy_site(&fx.site, &copy);
    let good = std::fs::read(&in_copy).unwrap();
    let mut bytes = good.clone();
    bytes[3] ^= 1;
    std::fs::write(&in_copy, &bytes).unwrap();
    let (code, v) = common::verify_json(&copy);
    assert_eq!(code, Some(1), "{v}");
    common::assert_file_problem(&v, &rel, "excerpt_file_differs");
    std::fs::remove_file(&in_copy).unwrap();
    let (_, v) = common::verify_json(&copy);
    common::assert_file_problem(&v, &rel, "excerpt_file_missing");
    std::fs::write(&in_copy, &good).unwrap();
    std::fs::create_dir_all(copy.join("ledger/tree/excerpts/tail/9.p")).unwrap();
    std::fs::write(copy.join("ledger/tree/excerpts/tail/9.p/1"), b"").unwrap();
    let (_, v) = common::verify_json(&copy);
    common::assert_file_problem(&v, "ledger/tree/excerpts/tail/9.p/1", "excerpt_stray");
    std::fs::remove_file(copy.join("ledger/tree/excerpts/tail/9.p/1")).unwrap();
    // The text map (docs/tree.md#text-map) is held to the texts too: an entry that names
    // another released text for its seq (the map lying to send a reader elsewhere), a map cut
    // short, one gone, and one of a block the tree does not have.
    let map_rel = walk_files(&copy.join("ledger/tree/excerpts/texts"))
        .into_iter()
        .map(|p| {
            p.strip_prefix(&copy)
                .unwrap()
                .to_string_lossy()
                .into_owned()
        })
        .find(|rel| std::fs::metadata(copy.join(rel)).unwrap().len() >= 80)
        .expect("a text map file with two entries");
    let good = std::fs::read(copy.join(&map_rel)).unwrap();
    let mut lie = good.clone();
    let other: Vec<u8> = good[48..80].to_vec();
    lie[8..40].copy_from_slice(&other);
    for (bytes, code) in [
        (lie, "excerpt_file_differs"),
        (good[..good.len() - 40].to_vec(), "excerpt_file_differs"),
    ] {
        std::fs::write(copy.join(&map_rel), &bytes).unwrap();
        let (code_, v) = common::verify_json(&copy);
        assert_eq!(code_, Some(1), "{v}");
        common::assert_file_problem(&v, &map_rel, code);
    }
    std::fs::remove_file(copy.join(&map_rel)).unwrap();
    let (_, v) = common::verify_json(&copy);
    common::assert_file_problem(&v, &map_rel, "excerpt_file_missing");
    std::fs::write(copy.join(&map_rel), &good).unwrap();
    std::fs::write(copy.join("ledger/tree/excerpts/texts/99"), b"").unwrap();
    let (_, v) = common::verify_json(&copy);
    common::assert_file_problem(&v, "ledger/tree/excerpts/texts/99", "excerpt_stray");
    std::fs::remove_file(copy.join("ledger/tree/excerpts/texts/99")).unwrap();
    let (code, v) = common::verify_json(&copy);
    assert_eq!(code, Some(0), "restored: {v}");
    // Removing the whole index is caught too: STATS.json states it.
    std::fs::remove_dir_all(copy.join("ledger/tree/excerpts")).unwrap();
    let (code, v) = common::verify_json(&copy);
    assert_eq!(code, Some(1), "{v}");
    assert!(v.to_string().contains("excerpt_file_missing"), "{v}");
}

fn walk_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk_files(&p));
        } else {
            out.push(p);
        }
    }
    out
}
