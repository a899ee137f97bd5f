//! A passage of a released text proved on a light page after "Check everything" (issue 44;
//! docs/page.md "Prove one message on a light page", docs/tree.md#excerpts): once the full check
//! holds the records in its worker, a paste those records find by no digest must still be looked
//! up in the tree's excerpt index, as on the log-size path, and answered with the page's own
//! verdict; a paste they do find by digest keeps the records' answer. The box and the server are
//! excerpt_page's. Needs `node` and `chromium`, like light_page.

use exhibit_protocol::excerpt;

use crate::excerpt_page::{build, cli_seq, released};
use crate::light_page::{Server, visit};

/// 12 words from the middle of a released text of 30 words or more that the CLI finds, skipping
/// the text `not`: (the text's sha and bytes, where the run starts, the run, the CLI's seq).
fn middle_run(
    site: &std::path::Path,
    texts: &[(String, String)],
    not: Option<&str>,
) -> (String, String, usize, String, u64) {
    for (sha, text) in texts {
        let words = excerpt::words(text);
        if words.len() < 30 || Some(sha.as_str()) == not {
            continue;
        }
        let at = words.len() / 2 - 6;
        let run = words[at..at + 12].join(" ");
        if let Some(seq) = cli_seq(site, &run) {
            return (sha.clone(), text.clone(), at, run, seq);
        }
    }
    panic!("no released text of 30 words or more whose middle the CLI finds");
}

/// Presses "Check everything", waits for the full verdict, then pastes: the excerpt, the whole
/// text (found by digest), and — while a second excerpt's proof is still reading the tree — the
/// whole text again. Each answer's attributes, its lead and the page's verdict under it.
const SCRIPT: &str = r#"new Promise(function (resolve) {
  var out = {}, t0 = Date.now(), r = document.getElementById('paste-result');
  function attrs() {
    var o = {}, lead = document.getElementById('paste-answer'), pv = document.getElementById('paste-page-verdict'), hit = r.querySelector('.hit');
    for (var i = 0; i < r.attributes.length; i++) o[r.attributes[i].name] = r.attributes[i].value;
    o.lead = lead ? lead.textContent : null;
    var st = r.querySelector('.standing');
    o.standing = st ? st.textContent : null;
    o.answer = lead ? lead.getAttribute('data-answer') : null;
    o.pageVerdict = pv ? pv.getAttribute('data-page-verdict') : null;
    o.hitWord = hit ? hit.getAttribute('data-word') : null;
    o.marked = Array.prototype.map.call(r.querySelectorAll('mark'), function (m) { return m.textContent; });
    o.text = r.textContent;
    return o;
  }
  function until(cond, then) {
    (function poll() {
      if (cond()) then();
      else if (Date.now() - t0 > 150000) { out.timedOut = attrs(); resolve(out); }
      else setTimeout(poll, 50);
    })();
  }
  function paste(text, then) {
    document.getElementById('paste').value = text;
    document.getElementById('paste-go').click();
    until(function () { return r.getAttribute('data-match') && !document.querySelector('.released-fetch[data-state="fetching"]'); }, then);
  }
  out.before = document.getElementById('verdict').getAttribute('data-verdict');
  document.getElementById('check-everything').click();
  until(function () { var d = document.getElementById('verdict').getAttribute('data-verdict'); return d && d !== 'working' && d !== 'checkpoint'; }, function () {
    out.verdict = document.getElementById('verdict').getAttribute('data-verdict');
    paste(SHORT, function () {
    out.short = attrs();
    paste(EXCERPT, function () {
      out.excerpt = attrs();
      paste(SENT, function () {
        out.sent = attrs();
        // The resource buffer is full of the full check's files: only the race's are wanted.
        performance.clearResourceTimings();
        // The moment the tree lookup starts (a DOM mutation, seen before any of its fetches
        // can answer), the whole text is pasted: the lookup is then surely still running.
        var proving = function () { return /in the tree's digest index/.test(r.textContent); };
        var started = false, mo = new MutationObserver(function () {
          if (started || !proving()) return;
          started = true; mo.disconnect(); out.raceStarted = true;
          paste(SENT, function () {
            out.raceFirst = attrs();
            // The second excerpt's proof reads its text last: once it is fetched (or 8 s on, had
            // an earlier lookup fetched it already), that proof has had its chance to overwrite
            // the answer.
            var t1 = Date.now();
            until(function () { return Date.now() - t1 > 8000 || performance.getEntriesByType('resource').some(function (e) { return e.name.slice(-TEXT2.length) === TEXT2; }); }, function () {
              setTimeout(function () { out.race = attrs(); resolve(out); }, 1500);
            });
          });
        });
        mo.observe(r, { childList: true, subtree: true, characterData: true });
        document.getElementById('paste').value = EXCERPT2;
        document.getElementById('paste-go').click();
        until(function () { return started || r.getAttribute('data-match'); }, function () {
          if (started) return;
          mo.disconnect(); out.raceStarted = false; out.race = attrs(); resolve(out);
        });
      });
    });
    });
  });
})"#;

/// Catches: today's page, which after the full check answers a 12-word passage as a miss
/// ("does not carry the released texts": data-match none); a lookup that finds another line or
/// place than the CLI (seq, data-word, the marked run); an excerpt shown unproved (data-proof);
/// an answer without the page's own verdict under it, or one that still says the log-size
/// verdict (paste-page-verdict); every paste sent to the tree after the full check, so a text
/// the records find by digest loses their answer (data-standing, no data-via); and a proof of an
/// earlier paste, still reading the tree, that overwrites a later paste's answer (the race).
#[test]
fn a_passage_is_found_in_the_excerpt_index_after_check_everything() {
    let s = build();
    let texts = released(&s.site);
    let (sha, whole, at, run, seq) = middle_run(&s.site, &texts, None);
    assert!(at > 0, "from the middle, not the start");
    let (sha2, _, _, run2, _) = middle_run(&s.site, &texts, Some(&sha));
    let server = Server::start(&s.site);
    let js = |v: &str| serde_json::to_string(v).unwrap();
    let script = format!(
        "(function () {{ var EXCERPT = {}, SENT = {}, EXCERPT2 = {}, TEXT2 = {}, SHORT = {}; return {SCRIPT}; }})()",
        js(&run),
        js(&whole),
        js(&run2),
        js(&format!("ledger/public_texts/{sha2}.txt")),
        js(&run.split(' ').take(11).collect::<Vec<_>>().join(" "))
    );
    let f = visit(&server.url("index.html"), None, &["--eval", &script]);
    let e = &f["evalResult"];
    assert_eq!(e["before"], "checkpoint", "the log-size verdict first: {e}");
    let v = e["verdict"].as_str().unwrap();
    assert!(
        v == "intact" || v == "gaps",
        "the full check's verdict: {e}"
    );

    // The passage: found in the excerpt index, at the CLI's seq and place, proved, and
    // answered with the full check's verdict.
    let x = &e["excerpt"];
    assert_eq!(x["data-match"], "excerpt", "{x}");
    assert_eq!(x["data-excerpt"], "found", "{x}");
    assert_eq!(x["data-via"], "excerpt", "{x}");
    assert_eq!(x["data-field"], "sent_sha256", "{x}");
    assert_eq!(x["data-seq"], seq.to_string(), "the CLI's seq: {x}");
    assert_eq!(x["data-proof"], "included", "{x}");
    assert_eq!(x["hitWord"], (at + 1).to_string(), "{x}");
    assert_eq!(x["marked"], serde_json::json!([run]), "{x}");
    assert_eq!(x["answer"], "passage-of-sent", "{x}");
    let lead = x["lead"].as_str().unwrap();
    assert!(lead.starts_with("A PASSAGE OF THE MESSAGE SENT"), "{lead}");
    assert!(lead.contains(&format!("(line {seq})")), "{lead}");
    assert_eq!(x["pageVerdict"], v, "the page's own verdict under it: {x}");
    // Its standing is not shown, and the words do not say the chain went unchecked.
    let standing = x["standing"].as_str().unwrap_or_default();
    assert!(
        standing.starts_with("Standing: not shown in this answer")
            && !standing.contains("did not re-derive"),
        "{standing}"
    );

    // 11 words: not looked up, and the answer says that 12 would be.
    let short = &e["short"];
    assert_eq!(short["data-match"], "none", "{short}");
    assert!(
        short["text"]
            .as_str()
            .unwrap_or_default()
            .contains("A passage of 12 words or more"),
        "{short}"
    );

    // The whole text: the records find it by its digest, and answer as they did.
    let w = &e["sent"];
    assert_eq!(w["data-match"], "hash", "{w}");
    assert_eq!(w["data-seq"], seq.to_string(), "{w}");
    assert!(w["data-standing"].is_string(), "the records' standing: {w}");
    assert!(w["data-via"].is_null(), "not the tree's answer: {w}");
    assert!(w["data-excerpt"].is_null(), "{w}");
    assert_eq!(w["answer"], "sent", "{w}");
    assert_eq!(w["pageVerdict"], v, "{w}");

    // The whole text pasted while the second excerpt's proof reads the tree: the answer stays
    // the records'.
    assert!(e["timedOut"].is_null(), "{e}");
    assert_eq!(
        e["raceStarted"], true,
        "the second excerpt was looked up in the tree: {e}"
    );
    for k in ["raceFirst", "race"] {
        let r = &e[k];
        assert_eq!(r["data-match"], "hash", "{k}: {r}");
        assert_eq!(r["data-seq"], seq.to_string(), "{k}: {r}");
        assert!(r["data-standing"].is_string(), "{k}: {r}");
    }
}
