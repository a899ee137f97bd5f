// The JavaScript side of the differential fuzz harness (tests/testsuite/differential.rs): reads a batch of
// cases, one JSON object a line, from the file named on the command line, runs each through
// assets/verify.js exactly as the page does (the ledger's bytes, the withheld list's bytes, the
// anchor zone's rules as data), and writes one answer a line to stdout, in order:
//   {"refused": true}                      the withheld list is a usage error
//   {"ok", "entries", "head", "bridged", "problems": [[line, code], ...],
//    "anchors", "anchors_stream": [[date, ok, format, head, day_closed, ledger_line], ...]}
//                                          the posts' checks (when the case has posts), over every
//                                          line's record and as the light page streams
//   {"threw": "message"}                   the verifier threw anything else (always a failure)
// One node process answers a whole batch: starting node per case would cost more than the cases.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const V = require(path.join(__dirname, '..', '..', 'assets', 'verify.js'));

const input = fs.readFileSync(process.argv[2], 'utf8');
const out = [];
for (const line of input.split('\n')) {
  if (!line) continue;
  const c = JSON.parse(line);
  const ledger = new Uint8Array(Buffer.from(c.ledger_b64, 'base64'));
  const withheld = c.withheld_b64 === null ? null : new Uint8Array(Buffer.from(c.withheld_b64, 'base64'));
  let answer;
  try {
    const r = V.verifyLedger(ledger, withheld, null, c.tz_rules);
    answer = {
      ok: r.ok,
      entries: r.entries,
      head: r.head,
      bridged: r.bridged,
      problems: r.problems.map((p) => [p.line, p.code]),
    };
    if (c.posts && c.posts.length) {
      const posts = c.posts.map((p) => ({ date: p.date, bytes: new Uint8Array(Buffer.from(p.text_b64, 'base64')) }));
      const words = (a) => [a.date, a.ok, a.format, a.head, a.day_closed, a.ledger_line];
      const unposted = (res) => V.datesWithoutPost(res, posts).map((d) => ['unposted', d]);
      answer.anchors = V.checkAnchors(r, withheld, posts).map(words).concat(unposted(r));
      // The light page's way (assets/page.js, streamFiles and its reader): a Verifier that keeps
      // no line records and watches the seqs the posts' texts end in, handed the ledger in two
      // pieces cut anywhere; its kept state is what the posts are checked over.
      const watch = posts.map((p) => / seq (0|[1-9][0-9]*)$/.exec(Buffer.from(p.bytes).toString('utf8')))
        .filter(Boolean).map((m) => m[1]);
      const v = new V.Verifier(withheld, c.tz_rules, { watchSeqs: watch, keepLines: false });
      v.push(ledger.subarray(0, c.cut));
      v.push(ledger.subarray(c.cut));
      const streamed = v.finish();
      answer.anchors_stream = V.checkAnchors(streamed, withheld, posts).map(words).concat(unposted(streamed));
    }
  } catch (e) {
    answer = e && e.code === 'usage' ? { refused: true } : { threw: String(e && e.stack || e) };
  }
  out.push(JSON.stringify(answer));
}
fs.writeSync(1, out.join('\n') + '\n');
