// The JavaScript side of the cosignatures' differential fuzzing (tests/testsuite/cosign_vectors.rs):
// reads cases, one JSON object a line ({note: base64, witnesses}), checks each with assets/verify.js's
// ExhibitVerify.cosign.check, and writes one answer a line: {k, n, latest, by, codes (sorted)};
// {threw: message} when the checker threw (which it must never do).
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const C = require(path.join(__dirname, '..', '..', 'assets', 'verify.js')).cosign;

const out = [];
for (const text of fs.readFileSync(process.argv[2], 'utf8').split('\n')) {
  if (!text) continue;
  const c = JSON.parse(text);
  try {
    const r = C.check(new Uint8Array(Buffer.from(c.note, 'base64')), c.witnesses);
    out.push(JSON.stringify({ k: r.k, n: r.n, latest: r.latest, by: r.by, codes: r.problems.map((p) => p.code).sort() }));
  } catch (e) {
    out.push(JSON.stringify({ threw: String(e && e.stack || e) }));
  }
}
process.stdout.write(out.join('\n') + '\n');
