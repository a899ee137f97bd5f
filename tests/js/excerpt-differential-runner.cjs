// The JavaScript side of the excerpt index's differential fuzzing (tests/testsuite/differential.rs):
// reads cases, one JSON object a line ({text, excerpt}), and writes one answer a line with
// assets/verify.js's `excerpt`: {words, kept, lookup, place, rows, ctx} (keys as 16 hex digits;
// lookup and place null when none; rows `key:contexts` of the text filed at seq 7; ctx the
// lookup's [before, after]), or {threw: message}.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const E = require(path.join(__dirname, '..', '..', 'assets', 'verify.js')).excerpt;

const out = [];
for (const text of fs.readFileSync(process.argv[2], 'utf8').split('\n')) {
  if (!text) continue;
  const c = JSON.parse(text);
  try {
    const words = E.words(c.text);
    out.push(JSON.stringify({
      words: words,
      kept: E.winnow(E.shingleKeys(words)),
      lookup: E.lookupKey(c.excerpt),
      place: E.place(c.text, c.excerpt),
      rows: E.rows(7, c.text).map((r) => r.key + ':' + r.ctx),
      ctx: (function (l) { return l && [l.before, l.after]; })(E.lookup(c.excerpt))
    }));
  } catch (e) {
    out.push(JSON.stringify({ threw: String(e && e.stack || e) }));
  }
}
process.stdout.write(out.join('\n') + '\n');
