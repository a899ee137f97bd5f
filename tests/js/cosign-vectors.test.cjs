// vectors/cosign.json (written by tests/testsuite/cosign_vectors.rs from the Rust checker in
// src/published/cosignature.rs) run through assets/verify.js's own `ExhibitVerify.cosign.check`: the same
// count, latest time, witnesses and problem codes, and the same words (docs/anchoring.md#cosignatures).
//   node --test tests/js/
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');

const V = require(process.env.VERIFY_JS || path.join(__dirname, '..', '..', 'assets', 'verify.js'));
const doc = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'vectors', 'cosign.json'), 'utf8'));

test('the file is the one this runner reads', () => {
  assert.equal(doc.format, 'exhibit-cosign-vectors/v1');
  assert.ok(doc.cases.length >= 20, doc.cases.length + ' cases');
  assert.equal(V.cosign, V.sign.cosign);
});

for (const c of doc.cases) {
  test(c.name, () => {
    const got = V.cosign.check(new Uint8Array(Buffer.from(c.note, 'base64')), c.witnesses);
    const codes = got.problems.map((p) => p.code).sort();
    assert.deepEqual({ k: got.k, n: got.n, latest: got.latest, latest_utc: got.latestUtc, by: got.by, codes },
      { k: c.expect.k, n: c.expect.n, latest: c.expect.latest, latest_utc: c.expect.latest_utc, by: c.expect.by, codes: c.expect.codes }, c.catches);
    assert.equal(V.cosign.words(got), c.expect.words);
    for (const p of got.problems) assert.ok(V.cosign.CODES.includes(p.code) && typeof p.detail === 'string');
  });
}

test('listed witnesses are read from STATS.json as the CLI reads them', () => {
  assert.equal(V.cosign.listed({ size: 1 }), null);
  assert.deepEqual(V.cosign.listed({ witnesses: [{ key: 'k', name: 'n', url: 'x' }] }), [{ key: 'k', name: 'n' }]);
  assert.ok(V.cosign.listed({ witnesses: [{ key: 1, name: 'n' }] }).error);
  assert.ok(V.cosign.listed({ witnesses: {} }).error);
});

test('utc is the civil calendar, as the CLI writes it', () => {
  assert.equal(V.cosign.utc(0), '1970-01-01T00:00:00Z');
  assert.equal(V.cosign.utc(951782400), '2000-02-29T00:00:00Z');
  for (const t of [1, 86399, 1800000000, 4102444800, 253402300799]) assert.equal(V.cosign.utc(t), new Date(t * 1000).toISOString().replace('.000', ''));
});
