// The JavaScript side of the OpenTimestamps differential fuzzing (tests/testsuite/differential.rs):
// reads proofs, one JSON object a line ({hex}), evaluates each with assets/verify.js, and writes
// one answer a line in the shape of exhibit_testkit::ots_vectors::answer: {digest, attestations}
// or {problem: code}; {threw: message} when the evaluator threw (which it must never do).
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const O = require(path.join(__dirname, '..', '..', 'assets', 'verify.js')).ots;

const out = [];
for (const text of fs.readFileSync(process.argv[2], 'utf8').split('\n')) {
  if (!text) continue;
  const c = JSON.parse(text);
  try {
    const r = O.evaluate(new Uint8Array(Buffer.from(c.hex, 'hex')));
    out.push(JSON.stringify(r.problem ? { problem: r.problem.code } : r));
  } catch (e) {
    out.push(JSON.stringify({ threw: String(e && e.stack || e) }));
  }
}
process.stdout.write(out.join('\n') + '\n');
