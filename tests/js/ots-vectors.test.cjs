// vectors/ots.json (written by `cargo run --example gen-vectors`, from the Rust evaluator in
// crates/protocol/src/ots.rs and ots/eval.rs) run through assets/verify.js's independent
// evaluator: the same digest and attestations, or the same problem code (docs/anchoring.md).
//   node --test tests/js/
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');

const V = require(path.join(__dirname, '..', '..', 'assets', 'verify.js'));
const doc = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'vectors', 'ots.json'), 'utf8'));

function proofOf(c) {
  const parts = [];
  for (const [b64, times] of c.pieces) {
    const b = Buffer.from(b64, 'base64');
    for (let i = 0; i < times; i++) parts.push(b);
  }
  return new Uint8Array(Buffer.concat(parts));
}

test('the file is the one this runner reads', () => {
  assert.equal(doc.format, 'exhibit-ots-vectors/v1');
  assert.ok(doc.cases.length >= 100, doc.cases.length + ' cases');
  const L = V.ots.LIMITS;
  assert.deepEqual(doc.limits, {
    max_msg_len: L.MAX_MSG_LEN, max_payload_len: L.MAX_PAYLOAD_LEN, max_uri_len: L.MAX_URI_LEN,
    max_depth: L.MAX_DEPTH, max_ops: L.MAX_OPS, max_attestations: L.MAX_ATTESTATIONS
  });
});

for (const c of doc.cases) {
  test(c.name, () => {
    const got = V.ots.evaluate(proofOf(c));
    if (c.expect.problem !== undefined) {
      assert.equal(got.problem && got.problem.code, c.expect.problem, JSON.stringify(got).slice(0, 300));
      assert.equal(typeof got.problem.detail, 'string');
      assert.ok(V.ots.CODES.includes(got.problem.code));
    } else {
      assert.equal(got.problem, undefined, got.problem && got.problem.code);
      assert.deepEqual(got, c.expect);
    }
  });
}
