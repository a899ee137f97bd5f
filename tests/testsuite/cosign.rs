//! Witness cosignatures end to end (docs/anchoring.md#cosignatures): a site built with the
//! operator's key and one `[[checkpoint.witness]]`, `exhibit cosign` against a small C2SP
//! tlog-witness run here on 127.0.0.1 (a thread, bounded, that stops by itself), and
//! `exhibit verify SITE` counting what it wrote. The witness does what the spec asks of one: it
//! verifies the log's signature and the consistency proof before it cosigns, answers 409 with
//! its size when `old` is not its size, 403, 404, 400 and 422 where the spec says.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as B64;
use exhibit::published::cosignature::{COSIGNATURE_V1, key_id, signed_message};
use exhibit_protocol::tree::{self, Checkpoint};
use exhibit_testkit::gen_box::{self, BoxOptions};

use crate::common::*;

const ORIGIN: &str = "example.test/cosigned";
const WITNESS: &str = "witness.example/w1";
/// The time the test witness puts in its cosignatures.
const TIME: u64 = 1_800_000_100;

/// How the test witness behaves.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Mode {
    /// As tlog-witness asks.
    Honest,
    /// Always this status, as a witness that does not know the log or refuses it.
    Refuse(u16),
    /// Cosigns with another key than the one it is listed with.
    WrongKey,
}

/// What the witness holds and saw.
struct State {
    size: u64,
    root: tree::Hash,
    /// The `old` of every request, in order.
    olds: Vec<u64>,
    /// The status of every answer, in order.
    statuses: Vec<u16>,
}

struct TestWitness {
    url: String,
    vkey: String,
    state: Arc<Mutex<State>>,
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Drop for TestWitness {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn witness_key(seed: u8) -> (ed25519_dalek::SigningKey, String) {
    let sk = ed25519_dalek::SigningKey::from_bytes(&[seed; 32]);
    let pk = sk.verifying_key().to_bytes();
    let mut k = vec![COSIGNATURE_V1];
    k.extend_from_slice(&pk);
    let id: String = key_id(WITNESS, COSIGNATURE_V1, &pk)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    (sk, format!("{WITNESS}+{id}+{}", B64.encode(k)))
}

impl TestWitness {
    /// A witness of the log whose verifier key is `log_vkey`, holding `size`/`root` already.
    fn start(log_vkey: &str, mode: Mode, size: u64, root: tree::Hash) -> TestWitness {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let url = format!("http://{}/w", listener.local_addr().unwrap());
        let (sk, vkey) = witness_key(1);
        let state = Arc::new(Mutex::new(State {
            size,
            root,
            olds: Vec::new(),
            statuses: Vec::new(),
        }));
        let stop = Arc::new(AtomicBool::new(false));
        let (st, sp, log) = (state.clone(), stop.clone(), log_vkey.to_string());
        let thread = std::thread::spawn(move || {
            // Bounded: it stops when dropped, or after two minutes whatever happens.
            let until = Instant::now() + Duration::from_secs(120);
            while !sp.load(Ordering::SeqCst) && Instant::now() < until {
                match listener.accept() {
                    Ok((stream, _)) => serve(stream, &log, mode, &sk, &st),
                    Err(_) => std::thread::sleep(Duration::from_millis(5)),
                }
            }
        });
        TestWitness {
            url,
            vkey,
            state,
            stop,
            thread: Some(thread),
        }
    }

    fn olds(&self) -> Vec<u64> {
        self.state.lock().unwrap().olds.clone()
    }
}

/// One HTTP/1.1 exchange (the client may keep the connection; one request is read per accept
/// and the connection is closed).
fn serve(
    mut stream: TcpStream,
    log: &str,
    mode: Mode,
    sk: &ed25519_dalek::SigningKey,
    state: &Mutex<State>,
) {
    stream.set_nonblocking(false).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut bytes = Vec::new();
    let mut buf = [0u8; 4096];
    let (head_end, length) = loop {
        let Ok(n) = stream.read(&mut buf) else { return };
        if n == 0 {
            return;
        }
        bytes.extend_from_slice(&buf[..n]);
        if let Some(at) = bytes.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&bytes[..at]).to_ascii_lowercase();
            let length: usize = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .map_or(0, |v| v.trim().parse().unwrap());
            break (at + 4, length);
        }
    };
    while bytes.len() < head_end + length {
        let Ok(n) = stream.read(&mut buf) else { return };
        if n == 0 {
            return;
        }
        bytes.extend_from_slice(&buf[..n]);
    }
    let request_line = String::from_utf8_lossy(&bytes[..head_end]).to_string();
    let body = &bytes[head_end..head_end + length];
    let (status, ctype, answer) = if !request_line.starts_with("POST /w/add-checkpoint ") {
        (404, "text/plain", b"no such endpoint\n".to_vec())
    } else {
        add_checkpoint(body, log, mode, sk, &mut state.lock().unwrap())
    };
    state.lock().unwrap().statuses.push(status);
    let head = format!(
        "HTTP/1.1 {status} X\r\nContent-Type: {ctype}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        answer.len()
    );
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(&answer);
}

/// tlog-witness's add-checkpoint, checked in the spec's order.
fn add_checkpoint(
    body: &[u8],
    log: &str,
    mode: Mode,
    sk: &ed25519_dalek::SigningKey,
    st: &mut State,
) -> (u16, &'static str, Vec<u8>) {
    let plain = |s: u16, m: &str| (s, "text/plain", format!("{m}\n").into_bytes());
    let text = String::from_utf8_lossy(body).to_string();
    let Some((head, note)) = text.split_once("\n\n") else {
        return plain(400, "no blank line");
    };
    let mut lines = head.lines();
    let Some(old) = lines
        .next()
        .and_then(|l| l.strip_prefix("old "))
        .and_then(|n| n.parse::<u64>().ok())
    else {
        return plain(400, "no old size line");
    };
    st.olds.push(old);
    if let Mode::Refuse(s) = mode {
        return plain(s, "refused");
    }
    let proof: Vec<tree::Hash> = lines
        .map(|l| B64.decode(l).unwrap().try_into().unwrap())
        .collect();
    let Ok(cp) = Checkpoint::parse(note.as_bytes()) else {
        return plain(400, "not a checkpoint");
    };
    if cp.origin != ORIGIN {
        return plain(404, "unknown origin");
    }
    if exhibit::operator_box::signing::checkpoint_signature(note.as_bytes(), log)
        != exhibit::operator_box::signing::SignatureState::Holds
    {
        return plain(403, "the log's signature does not hold");
    }
    if old > cp.size {
        return plain(400, "old is larger than the checkpoint");
    }
    if old != st.size {
        return (
            409,
            "text/x.tlog.size",
            format!("{}\n", st.size).into_bytes(),
        );
    }
    let consistent = if old == cp.size {
        cp.root == st.root
    } else if old == 0 {
        proof.is_empty()
    } else {
        tree::check_consistency(&proof, cp.size, &cp.root, old, &st.root)
    };
    if !consistent {
        return if old == cp.size {
            (
                409,
                "text/x.tlog.size",
                format!("{}\n", st.size).into_bytes(),
            )
        } else {
            plain(422, "the consistency proof does not verify")
        };
    }
    st.size = cp.size;
    st.root = cp.root;
    let note_body = &note.as_bytes()[..=note.find("\n\n").unwrap()];
    let signer = if mode == Mode::WrongKey {
        witness_key(2).0
    } else {
        sk.clone()
    };
    (
        200,
        "text/plain",
        cosignature_line(&signer, note_body, TIME),
    )
}

fn cosignature_line(sk: &ed25519_dalek::SigningKey, body: &[u8], time: u64) -> Vec<u8> {
    use ed25519_dalek::Signer as _;
    let mut blob = key_id(WITNESS, COSIGNATURE_V1, &sk.verifying_key().to_bytes()).to_vec();
    blob.extend_from_slice(&time.to_be_bytes());
    blob.extend_from_slice(&sk.sign(&signed_message(body, time)).to_bytes());
    format!("\u{2014} {WITNESS} {}\n", B64.encode(blob)).into_bytes()
}

/// A generated box, its key, its site in a git repository, built on the first 200 lines.
struct Scene {
    _tmp: tempfile::TempDir,
    dir: PathBuf,
    site: PathBuf,
    repo: git2::Repository,
    vkey: String,
    key: PathBuf,
    toml: String,
}

impl Scene {
    fn new() -> Scene {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("box");
        let opts = BoxOptions {
            lines: 300,
            seed: 23,
            witness: false,
            ..BoxOptions::default()
        };
        gen_box::generate(&opts, &dir).unwrap();
        let key = tmp.path().join("key");
        let o = exhibit(
            &["key", "--name", ORIGIN, "--out", key.to_str().unwrap()],
            0,
        );
        assert_eq!(o.status.code(), Some(0), "{}", text(&o));
        let vkey = String::from_utf8(o.stdout).unwrap().trim().to_string();
        let toml: String = std::fs::read_to_string(dir.join("exhibit.toml"))
            .unwrap()
            .lines()
            .filter(|l| !l.starts_with("witness"))
            .map(|l| format!("{l}\n"))
            .collect();
        let toml = format!("{toml}\n[checkpoint]\nkey = \"{}\"\n", key.display());
        let repo = git2::Repository::init(tmp.path().join("exhibit")).unwrap();
        let site = tmp.path().join("exhibit/site");
        Scene {
            _tmp: tmp,
            dir,
            site,
            repo,
            vkey,
            key,
            toml,
        }
    }

    /// exhibit.toml listing one witness (`vkey`, `url`).
    fn list_witness(&self, vkey: &str, url: &str) {
        std::fs::write(
            self.dir.join("exhibit.toml"),
            format!(
                "{}\n[[checkpoint.witness]]\nname = \"{WITNESS}\"\nkey = \"{vkey}\"\nurl = \"{url}\"\n",
                self.toml
            ),
        )
        .unwrap();
    }

    /// Builds the first `lines` lines of the box's ledger and commits the site.
    fn build(&self, lines: usize) {
        let ledger = self.dir.join("gate/ledger.jsonl");
        let full = std::fs::read(self.dir.join("gate/ledger.full"))
            .or_else(|_| {
                let b = std::fs::read(&ledger)?;
                std::fs::write(self.dir.join("gate/ledger.full"), &b).map(|()| b)
            })
            .unwrap();
        let cut: usize = full
            .split_inclusive(|&b| b == b'\n')
            .take(lines + 1)
            .map(<[u8]>::len)
            .sum();
        std::fs::write(&ledger, &full[..cut]).unwrap();
        let o = exhibit(
            &[
                "build",
                "--config",
                &self.config(),
                "--out",
                self.site.to_str().unwrap(),
            ],
            1_800_000_000,
        );
        assert_eq!(o.status.code(), Some(0), "{}", text(&o));
        commit_site(&self.repo);
    }

    fn config(&self) -> String {
        self.dir.join("exhibit.toml").display().to_string()
    }

    fn cosign(&self) -> std::process::Output {
        exhibit(
            &[
                "cosign",
                "--config",
                &self.config(),
                "--out",
                self.site.to_str().unwrap(),
            ],
            0,
        )
    }

    fn checkpoint(&self) -> Vec<u8> {
        std::fs::read(self.site.join("ledger/tree/checkpoint")).unwrap()
    }

    fn record(&self) -> Option<PathBuf> {
        let dir = self.repo.path().join("exhibit");
        std::fs::read_dir(&dir)
            .ok()?
            .flatten()
            .map(|e| e.path())
            .find(|p| {
                p.file_name()
                    .unwrap()
                    .to_str()
                    .unwrap()
                    .starts_with("cosigned-")
            })
    }
}

fn body_of(note: &[u8]) -> Vec<u8> {
    let at = note.windows(2).position(|w| w == b"\n\n").unwrap();
    note[..=at].to_vec()
}

fn verify_words(site: &Path) -> (Option<i32>, String) {
    let o = exhibit(&["verify", site.to_str().unwrap()], 0);
    (o.status.code(), text(&o))
}

#[test]
fn cosign_writes_the_witness_line_and_both_builds_are_cosigned_from_the_size_it_last_cosigned() {
    let s = Scene::new();
    let w = TestWitness::start(&s.vkey, Mode::Honest, 0, tree::empty_root());
    s.list_witness(&w.vkey, &w.url);
    s.build(200);
    let before = s.checkpoint();
    let o = s.cosign();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let after = s.checkpoint();
    // The body is what the build wrote, byte for byte; one line more under it.
    assert_eq!(body_of(&after), body_of(&before));
    assert!(
        after.starts_with(&before),
        "the log's signature line is kept first"
    );
    let lf = |b: &[u8]| b.iter().filter(|&&c| c == b'\n').count();
    assert_eq!(lf(&after), lf(&before) + 1);
    commit_site(&s.repo);
    // The next publication: asked from the size this machine recorded, with a consistency
    // proof the witness verifies (a wrong proof is a 422, and this test fails).
    s.build(300);
    let (rc, words) = verify_words(&s.site);
    assert_eq!(rc, Some(0), "{words}");
    assert!(words.contains("cosigned by 0 of 1 witness:"), "{words}");
    let before = s.checkpoint();
    let o = s.cosign();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert_eq!(body_of(&s.checkpoint()), body_of(&before));
    let size1 = Checkpoint::parse(&after).unwrap().size;
    assert_eq!(w.olds(), vec![0, size1]);
    assert_eq!(w.state.lock().unwrap().statuses, vec![200, 200]);
    let (rc, words) = verify_words(&s.site);
    assert_eq!(rc, Some(0), "{words}");
    let latest = exhibit::published::cosignature::utc(TIME);
    assert!(
        words.contains(&format!(
            "cosigned by 1 of 1 witness, the latest at {latest}"
        )),
        "{words}"
    );
    let (_, v) = verify_json(&s.site);
    assert_eq!(v["tree"]["cosigned"]["k"], 1, "{v}");
    assert_eq!(v["tree"]["cosigned"]["n"], 1, "{v}");
    // The build after it trusts HEAD: the resealed snapshot line is signed and recorded.
    commit_site(&s.repo);
    s.build(300);
}

#[test]
fn a_witness_that_answers_409_is_asked_again_from_the_size_it_names() {
    let s = Scene::new();
    // The witness cosigned this log's first 200 lines on another machine: this one has no
    // record, sends old 0, learns the size from the 409 and sends the proof from it.
    let probe = TestWitness::start(&s.vkey, Mode::Honest, 0, tree::empty_root());
    s.list_witness(&probe.vkey, &probe.url);
    s.build(200);
    let first = Checkpoint::parse(&s.checkpoint()).unwrap();
    drop(probe);
    let w = TestWitness::start(&s.vkey, Mode::Honest, first.size, first.root);
    s.list_witness(&w.vkey, &w.url);
    s.build(300);
    assert!(s.record().is_none(), "no record on this machine yet");
    let o = s.cosign();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert_eq!(w.olds(), vec![0, first.size]);
    assert_eq!(w.state.lock().unwrap().statuses, vec![409, 200]);
    let record = std::fs::read_to_string(s.record().expect("a record")).unwrap();
    let size = Checkpoint::parse(&s.checkpoint()).unwrap().size;
    assert!(record.contains(&format!(": {size}")), "{record}");
    let (rc, words) = verify_words(&s.site);
    assert_eq!(rc, Some(0), "{words}");
    assert!(words.contains("cosigned by 1 of 1 witness"), "{words}");
}

#[test]
fn a_witness_that_refuses_is_a_named_error_and_nothing_is_written() {
    for (status, says) in [
        (403, "Forbidden"),
        (404, "Not Found"),
        (422, "Unprocessable"),
    ] {
        let s = Scene::new();
        let w = TestWitness::start(&s.vkey, Mode::Refuse(status), 0, tree::empty_root());
        s.list_witness(&w.vkey, &w.url);
        s.build(200);
        let before = s.checkpoint();
        let page = std::fs::read(s.site.join("index.html")).unwrap();
        let o = s.cosign();
        assert_eq!(o.status.code(), Some(1), "{}", text(&o));
        let err = String::from_utf8_lossy(&o.stderr);
        for part in [
            format!("witness {WITNESS:?}"),
            format!("{}/add-checkpoint", w.url),
            format!("HTTP {status} {says}"),
        ] {
            assert!(err.contains(&part), "{part:?} in {err}");
        }
        assert_eq!(
            s.checkpoint(),
            before,
            "{status}: the checkpoint is unchanged"
        );
        assert_eq!(std::fs::read(s.site.join("index.html")).unwrap(), page);
    }
}

#[test]
fn a_cosignature_by_another_key_is_not_written_and_a_forged_one_fails_verify() {
    let s = Scene::new();
    let w = TestWitness::start(&s.vkey, Mode::WrongKey, 0, tree::empty_root());
    s.list_witness(&w.vkey, &w.url);
    s.build(300);
    let before = s.checkpoint();
    let o = s.cosign();
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("no line of its answer is a cosignature by"),
        "{}",
        text(&o)
    );
    assert_eq!(s.checkpoint(), before);
    // Lines put in by hand, as an operator forging a witness would: the page's copy kept equal
    // to the file and the snapshot line sealed again with the operator's key, so that only the
    // cosignature can fail.
    let key = exhibit::operator_box::signing::OperatorKey::read(&s.key).unwrap();
    let (sk, _) = witness_key(1);
    let body = body_of(&before);
    let put = |line: Vec<u8>| {
        let mut note = before.clone();
        note.extend_from_slice(&line);
        std::fs::write(s.site.join("ledger/tree/checkpoint"), &note).unwrap();
        crate::site_agreement::set_block(&s.site, "tree-checkpoint", &note);
        exhibit::cli::cosign::reseal(&s.site, &key).unwrap();
    };
    // A good one first: the page's copy and the file agree, and it counts.
    put(cosignature_line(&sk, &body, TIME));
    let (rc, words) = verify_words(&s.site);
    assert_eq!(rc, Some(0), "{words}");
    assert!(words.contains("cosigned by 1 of 1 witness"), "{words}");
    // Its time changed: the signature no longer holds.
    let mut forged = cosignature_line(&sk, &body, TIME);
    let at = "\u{2014} ".len() + WITNESS.len() + 1;
    let mut blob = B64.decode(&forged[at..forged.len() - 1]).unwrap();
    blob[11] ^= 1;
    forged.truncate(at);
    forged.extend_from_slice(format!("{}\n", B64.encode(blob)).as_bytes());
    put(forged);
    let (rc, v) = verify_json(&s.site);
    assert_eq!(rc, Some(1));
    assert_file_problem(&v, "ledger/tree/checkpoint", "cosignature_broken");
    assert_eq!(v["tree"]["cosigned"]["k"], 0);
    // Signed over another body.
    put(cosignature_line(&sk, b"example.test/cosigned\n1\n", TIME));
    let (rc, v) = verify_json(&s.site);
    assert_eq!(rc, Some(1));
    assert_file_problem(&v, "ledger/tree/checkpoint", "cosignature_broken");
    // By another key in the witness's name.
    put(cosignature_line(&witness_key(2).0, &body, TIME));
    let (rc, v) = verify_json(&s.site);
    assert_eq!(rc, Some(1));
    assert_file_problem(&v, "ledger/tree/checkpoint", "cosignature_other_key");
}

#[test]
fn a_witness_listed_with_a_logs_key_is_refused_naming_the_file_and_the_entry() {
    let s = Scene::new();
    s.list_witness(
        &s.vkey.replace(ORIGIN, WITNESS),
        "https://witness.example/w1",
    );
    let o = s.cosign();
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("exhibit.toml: [[checkpoint.witness]] number 1"),
        "{err}"
    );
    assert!(err.contains("not a witness's cosignature key"), "{err}");
    let (_, good) = witness_key(1);
    s.list_witness(&good, "ftp://witness.example");
    let o = s.cosign();
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("not a witness's submission prefix"),
        "{}",
        text(&o)
    );
}

/// The page (headless Chromium, its full check over http) says what `exhibit verify SITE` says:
/// "cosigned by 1 of 1 witness" beside the checkpoint's signature, and fails a forged one.
#[test]
fn the_page_says_cosigned_by_1_of_1_and_fails_a_forged_cosignature() {
    use crate::light_page::{FULL, Server, verdict, visit};
    let s = Scene::new();
    let w = TestWitness::start(&s.vkey, Mode::Honest, 0, tree::empty_root());
    s.list_witness(&w.vkey, &w.url);
    s.build(300);
    let o = s.cosign();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let server = Server::start(&s.site);
    let facts = visit(&server.url(FULL), None, &[]);
    assert_ne!(verdict(&facts).0, "failed", "{:?}", verdict(&facts));
    let dom = facts["dom"].as_str().unwrap();
    let latest = exhibit::published::cosignature::utc(TIME);
    assert!(
        dom.contains("id=\"cosignatures\""),
        "the statement is shown"
    );
    assert!(
        dom.contains(&format!(
            "cosigned by 1 of 1 witness, the latest at {latest} ({WITNESS})"
        )),
        "{}",
        &dom[dom.find("id=\"signatures\"").unwrap()..][..2000]
    );
    // The first screen's line on what is independent counts the witness too (issue 45 item 5):
    // a page that left its hook at "none checked" fails here.
    let f = visit(
        &server.url(FULL),
        None,
        &["--eval", crate::light_page::FIRST_SCREEN],
    );
    let ind = &f["evalResult"]["independent"];
    assert!(
        ind["text"]
            .as_str()
            .unwrap_or("")
            .contains("cosigned by 1 of 1 witness"),
        "{ind}"
    );
    // The same line with its time changed, sealed again by the operator: the page fails it.
    let key = exhibit::operator_box::signing::OperatorKey::read(&s.key).unwrap();
    let note = s.checkpoint();
    let last = note[..note.len() - 1]
        .iter()
        .rposition(|&b| b == b'\n')
        .unwrap()
        + 1;
    let line = std::str::from_utf8(&note[last..note.len() - 1]).unwrap();
    let (head, b64) = line.rsplit_once(' ').unwrap();
    let mut blob = B64.decode(b64).unwrap();
    blob[11] ^= 1;
    let forged = [
        &note[..last],
        format!("{head} {}\n", B64.encode(blob)).as_bytes(),
    ]
    .concat();
    std::fs::write(s.site.join("ledger/tree/checkpoint"), &forged).unwrap();
    crate::site_agreement::set_block(&s.site, "tree-checkpoint", &forged);
    exhibit::cli::cosign::reseal(&s.site, &key).unwrap();
    let (rc, v) = verify_json(&s.site);
    assert_eq!(rc, Some(1));
    assert_eq!(
        file_problems(&v),
        vec![(
            "ledger/tree/checkpoint".to_string(),
            "cosignature_broken".to_string()
        )]
    );
    let facts = visit(&server.url(FULL), None, &[]);
    assert_eq!(verdict(&facts).0, "failed");
    assert!(
        facts["dom"]
            .as_str()
            .unwrap()
            .contains("cosignature_broken ledger/tree/checkpoint"),
        "the page names the problem"
    );
}

/// Issue 45 item 4, the page's part (docs/anchoring.md#on-the-page): a posted head's proof,
/// evaluated on the visitor's click — a Bitcoin attestation shows its block, the merkle root the
/// block must carry and two explorers' pages; a pending one is named pending.
#[test]
fn the_page_evaluates_a_posted_heads_proof_on_click() {
    use crate::light_page::{FULL, Server, visit};
    let s = Scene::new();
    s.build(300);
    let anchors = s.site.join("ledger/anchors");
    let mut posts: Vec<String> = std::fs::read_dir(&anchors)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".txt"))
        .collect();
    posts.sort();
    // The first post's proof made a Bitcoin one: its header (the post's sha256), then a Bitcoin
    // attestation at height 358391 on that digest, so the root the block must carry is the
    // digest byte-reversed.
    let post = std::fs::read(anchors.join(&posts[0])).unwrap();
    let digest = exhibit_protocol::Digest::of(&post).0;
    let mut proof = exhibit_testkit::ots_vectors::header(digest);
    proof.push(0x00);
    proof.extend_from_slice(&[0x05, 0x88, 0x96, 0x0d, 0x73, 0xd7, 0x19, 0x01]);
    let height = exhibit_testkit::ots_vectors::varuint(358_391);
    proof.extend_from_slice(&exhibit_testkit::ots_vectors::varuint(height.len() as u64));
    proof.extend_from_slice(&height);
    std::fs::write(anchors.join(format!("{}.ots", posts[0])), &proof).unwrap();
    let mut root = digest;
    root.reverse();
    let root: String = root.iter().map(|b| format!("{b:02x}")).collect();
    let click = |date: &str| {
        format!(
            "new Promise(function (resolve) {{ var d = document.getElementById('ots-{date}'); if (!d) return resolve(null); d.querySelector('button').click(); var t = setInterval(function () {{ if (d.getAttribute('data-state')) {{ clearInterval(t); resolve(d.outerHTML); }} }}, 20); }})"
        )
    };
    let server = Server::start(&s.site);
    let date = posts[0].trim_end_matches(".txt");
    let facts = visit(&server.url(FULL), None, &["--eval", &click(date)]);
    let shown = facts["evalResult"]
        .as_str()
        .expect("the row has its button");
    assert!(shown.contains("data-state=\"evaluated\""), "{shown}");
    assert!(
        shown.contains("Bitcoin block 358391, merkle root"),
        "{shown}"
    );
    assert!(shown.contains(&root), "{shown}");
    assert!(
        shown.contains("href=\"https://mempool.space/block/358391\""),
        "{shown}"
    );
    assert!(
        shown.contains("href=\"https://blockstream.info/block-height/358391\""),
        "{shown}"
    );
    let date = posts[1].trim_end_matches(".txt");
    let facts = visit(&server.url(FULL), None, &["--eval", &click(date)]);
    let shown = facts["evalResult"]
        .as_str()
        .expect("the row has its button");
    assert!(shown.contains("data-kind=\"pending\""), "{shown}");
    assert!(shown.contains("pending at https://"), "{shown}");
}
