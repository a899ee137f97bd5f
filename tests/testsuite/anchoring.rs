//! HEAD trusted only when it is the operator's (docs/anchoring.md#trusting-head): a person with
//! push access alone forges HEAD's history with its snapshot resealed, and the next build
//! refuses it — by this machine's record of what it built, and by the operator's signature on a
//! machine without one. The signatures a site carries, checked by `verify SITE`.

use std::path::{Path, PathBuf};

use crate::common::*;
use exhibit_testkit::gen_box::{self, BoxOptions};
use serde_json::{Value, json};

struct Scene {
    tmp: tempfile::TempDir,
    dir: PathBuf,
    repo: git2::Repository,
    site: PathBuf,
}

fn make_key(tmp: &Path, name: &str, file: &str) -> PathBuf {
    let path = tmp.join(file);
    let o = exhibit(
        &["key", "--name", name, "--out", &path.display().to_string()],
        0,
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    path
}

/// A generated box with public texts, built (signed by `key` when given) and committed.
fn scene(key: bool) -> Scene {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("box");
    gen_box::generate(
        &BoxOptions {
            lines: 600,
            seed: 5,
            witness: false,
            ..BoxOptions::default()
        },
        &dir,
    )
    .unwrap();
    let toml = std::fs::read_to_string(dir.join("exhibit.toml")).unwrap();
    let mut toml: String = toml
        .lines()
        .filter(|l| !l.starts_with("witness"))
        .map(|l| format!("{l}\n"))
        .collect();
    if key {
        let k = make_key(tmp.path(), "example.test/exhibit", "key");
        toml.push_str(&format!("\n[checkpoint]\nkey = \"{}\"\n", k.display()));
    }
    std::fs::write(dir.join("exhibit.toml"), toml).unwrap();
    let repo = git2::Repository::init(tmp.path().join("exhibit")).unwrap();
    let site = tmp.path().join("exhibit/site");
    let s = Scene {
        tmp,
        dir,
        repo,
        site,
    };
    // Two publications: the first of 500 lines, then all 600 (two snapshot lines, both signed
    // when there is a key).
    let ledger = std::fs::read(s.dir.join("gate/ledger.jsonl")).unwrap();
    let cut: usize = ledger
        .split_inclusive(|&b| b == b'\n')
        .take(501)
        .map(<[u8]>::len)
        .sum();
    std::fs::write(s.dir.join("gate/ledger.jsonl"), &ledger[..cut]).unwrap();
    let o = s.build(&["--public-texts"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    commit_site(&s.repo);
    std::fs::write(s.dir.join("gate/ledger.jsonl"), &ledger).unwrap();
    let o = s.build(&["--public-texts"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    commit_site(&s.repo);
    s
}

impl Scene {
    fn build(&self, extra: &[&str]) -> std::process::Output {
        let config = self.dir.join("exhibit.toml").display().to_string();
        let site = self.site.display().to_string();
        let mut args = vec!["build", "--config", &config, "--out", &site];
        args.extend_from_slice(extra);
        exhibit(&args, 1_800_000_000)
    }

    fn ledger(&self, rel: &str) -> PathBuf {
        self.site.join("ledger").join(rel)
    }

    /// The last snapshot's digests recomputed over the edited files, as a forger with push
    /// access would — and nothing else: this machine's record is not touched.
    fn reseal_as_a_forger(&self) {
        // A forger without the key can only drop the signature, or keep one that no longer holds.
        reseal_snapshot_with(&self.site, false, |last| {
            if let Some(o) = last.as_object_mut() {
                o.remove("signature");
            }
        });
        commit_site(&self.repo);
    }

    fn forget_this_machine(&self) {
        let record = exhibit::previous::trust::record_path(&self.site)
            .unwrap()
            .unwrap();
        std::fs::remove_file(record).unwrap();
    }
}

/// Forgery 1: a withheld released text marked as allowed by the operator in HEAD's index.
fn forge_allowed_text(s: &Scene) -> String {
    let path = s.ledger("public_texts/index.json");
    let mut index: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    let sha = index["withheld"][0]["sent_sha256"]
        .as_str()
        .expect("the box withholds a public text")
        .to_string();
    index["allowed_by_operator"]
        .as_array_mut()
        .unwrap()
        .push(json!({"sent_sha256": sha, "why": "forged"}));
    std::fs::write(&path, serde_json::to_vec_pretty(&index).unwrap()).unwrap();
    s.reseal_as_a_forger();
    sha
}

/// Forgery 2: HEAD's ledger cut back before a withheld seq, the seq dropped from the withheld
/// list, and a reading forged for it, so that the next build would publish the line.
fn forge_cut_ledger(s: &Scene) -> i64 {
    let withheld: Value =
        serde_json::from_slice(&std::fs::read(s.ledger("withheld.json")).unwrap()).unwrap();
    let w = withheld.as_array().unwrap()[0].clone();
    let seq = w["seq"].as_i64().unwrap();
    let ledger = std::fs::read_to_string(s.ledger("ledger.jsonl")).unwrap();
    let kept: String = ledger
        .lines()
        .filter(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            v["seq"].as_i64().is_none_or(|q| q < seq)
        })
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(s.ledger("ledger.jsonl"), kept).unwrap();
    let rest: Vec<Value> = withheld
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["seq"].as_i64().unwrap() < seq)
        .cloned()
        .collect();
    std::fs::write(
        s.ledger("withheld.json"),
        serde_json::to_vec_pretty(&rest).unwrap(),
    )
    .unwrap();
    std::fs::write(
        s.ledger("readings.json"),
        serde_json::to_vec_pretty(&json!({"lines": [
            {"seq": seq, "entry_id": w["entry_id"], "fields_flagged": []}
        ]}))
        .unwrap(),
    )
    .unwrap();
    s.reseal_as_a_forger();
    seq
}

fn refused_with(o: &std::process::Output, code: &str) {
    assert_eq!(o.status.code(), Some(1), "{}", text(o));
    let all = text(o);
    assert!(all.contains(code), "expected {code}: {all}");
}

#[test]
fn a_forged_allowed_text_in_head_is_refused_by_this_machines_record() {
    let s = scene(false);
    let before = snapshot_dir(&s.site);
    let sha = forge_allowed_text(&s);
    let forged = snapshot_dir(&s.site);
    assert_ne!(before, forged);
    let o = s.build(&["--public-texts"]);
    refused_with(&o, "head_not_recorded");
    assert_eq!(
        snapshot_dir(&s.site),
        forged,
        "a refused build writes nothing"
    );
    assert!(!s.ledger(&format!("public_texts/{sha}.txt")).exists());
}

#[test]
fn a_forged_cut_ledger_in_head_is_refused_by_this_machines_record() {
    let s = scene(false);
    forge_cut_ledger(&s);
    let o = s.build(&["--public-texts"]);
    refused_with(&o, "head_not_recorded");
}

#[test]
fn on_a_machine_without_a_record_the_operators_signature_refuses_both_forgeries() {
    for forgery in [forge_allowed_text as fn(&Scene) -> String, |s| {
        forge_cut_ledger(s).to_string()
    }] {
        let s = scene(true);
        forgery(&s);
        s.forget_this_machine();
        let o = s.build(&["--public-texts"]);
        // The first line was signed, and the forged last one is not.
        assert_eq!(o.status.code(), Some(1), "{}", text(&o));
        assert!(
            text(&o).contains("head_unsigned") || text(&o).contains("head_not_recorded"),
            "{}",
            text(&o)
        );
    }
}

#[test]
fn without_a_key_or_a_record_the_forgery_goes_through_which_is_why_the_key_exists() {
    // The threat the key answers, shown: a new machine, no key — HEAD is trusted because it is
    // internally consistent, and the forged reading is honoured.
    let s = scene(false);
    let sha = forge_allowed_text(&s);
    s.forget_this_machine();
    let o = s.build(&["--public-texts"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(
        text(&o).contains("no record of HEAD's last publication"),
        "{}",
        text(&o)
    );
    let _ = sha;
}

#[test]
fn a_key_swap_is_refused_then_recorded_under_allow_rewrite() {
    let s = scene(true);
    // A new key for the same log (the same name: a log keeps its origin).
    let other = make_key(s.tmp.path(), "example.test/exhibit", "key2");
    let toml_path = s.dir.join("exhibit.toml");
    let toml = std::fs::read_to_string(&toml_path).unwrap();
    let old_key = toml
        .lines()
        .find(|l| l.starts_with("key = "))
        .unwrap()
        .to_string();
    std::fs::write(
        &toml_path,
        toml.replace(&old_key, &format!("key = \"{}\"", other.display())),
    )
    .unwrap();
    // This machine built HEAD: its record vouches for it, the new key signs what comes next.
    let o = s.build(&["--public-texts"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    // On a machine without the record, HEAD signed by the old key is another key's.
    let s2 = scene(true);
    std::fs::write(
        s2.dir.join("exhibit.toml"),
        std::fs::read_to_string(s2.dir.join("exhibit.toml"))
            .unwrap()
            .lines()
            .map(|l| {
                if l.starts_with("key = ") {
                    format!("key = \"{}\"", other.display())
                } else {
                    l.to_string()
                }
            })
            .collect::<Vec<_>>()
            .join("\n")
            + "\n",
    )
    .unwrap();
    s2.forget_this_machine();
    let o = s2.build(&["--public-texts"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).contains("head_other_key"), "{}", text(&o));
    let o = s2.build(&[
        "--public-texts",
        "--allow-rewrite",
        "the operator changed its key",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let snaps = std::fs::read_to_string(s2.ledger("SNAPSHOTS.jsonl")).unwrap();
    let last: Value = serde_json::from_str(snaps.lines().last().unwrap()).unwrap();
    let new_vkey = last["key"].as_str().unwrap().to_string();
    let first: Value = serde_json::from_str(snaps.lines().next().unwrap()).unwrap();
    assert_ne!(first["key"], last["key"], "{new_vkey}");
    let (code, v) = verify_json(&s2.site);
    assert_eq!(code, Some(0), "{v}");
    assert_eq!(
        v["tree"]["signatures"]["keys"].as_array().unwrap().len(),
        2,
        "{v}"
    );
}

#[test]
fn verify_site_checks_the_checkpoints_and_every_snapshot_lines_signature() {
    let s = scene(true);
    let (code, v) = verify_json(&s.site);
    assert_eq!(code, Some(0), "{v}");
    assert_eq!(v["tree"]["signatures"]["checkpoint"], true);
    assert_eq!(v["tree"]["signatures"]["signed_lines"], 2);
    // The checkpoint's signature altered (the snapshot resealed over it: only the signature
    // check can see it).
    let cp = s.ledger("tree/checkpoint");
    let text_cp = std::fs::read_to_string(&cp).unwrap();
    let sig_at = text_cp.rfind(' ').unwrap() + 3;
    let mut bytes = text_cp.into_bytes();
    bytes[sig_at] = if bytes[sig_at] == b'A' { b'B' } else { b'A' };
    std::fs::write(&cp, &bytes).unwrap();
    let (code, v) = verify_json(&s.site);
    assert_eq!(code, Some(1), "{v}");
    assert!(
        file_problems(&v).contains(&(
            "ledger/tree/checkpoint".into(),
            "checkpoint_signature".into()
        )),
        "{v}"
    );
    // A snapshot line altered after it was signed.
    let snap = s.ledger("SNAPSHOTS.jsonl");
    let t = std::fs::read_to_string(&snap).unwrap();
    std::fs::write(
        &snap,
        t.replacen("\"extends\":true", "\"extends\":false", 1),
    )
    .unwrap();
    let (_, v) = verify_json(&s.site);
    assert!(
        file_problems(&v).contains(&("ledger/SNAPSHOTS.jsonl".into(), "snapshot_signature".into())),
        "{v}"
    );
}
