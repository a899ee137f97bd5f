// Conformance vectors (docs/protocol.md#conformance, vectors/README.md) run through assets/verify.js.
//   node --test tests/js/
// Reads vectors/vectors.json beside the repo root, or the file named by EXHIBIT_VECTORS.
// A missing or malformed vectors file FAILS; it is never skipped.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const V = require(path.join(__dirname, '..', '..', 'assets', 'verify.js'));
const VECTORS = process.env.EXHIBIT_VECTORS
  ? path.resolve(process.env.EXHIBIT_VECTORS)
  : path.join(__dirname, '..', '..', 'vectors', 'vectors.json');

let doc = null;
let loadError = null;
try {
  doc = JSON.parse(fs.readFileSync(VECTORS, 'utf8'));
} catch (e) {
  loadError = e;
}

test(`vectors file ${VECTORS} is present and well-formed`, () => {
  if (loadError) {
    assert.fail(`cannot read the conformance vectors at ${VECTORS}: ${loadError.message}` +
      ' (generate them with `cargo run --example gen-vectors`, or point EXHIBIT_VECTORS at a file)');
  }
  assert.equal(doc.format, 'exhibit-vectors/v1', 'format');
  assert.equal(typeof doc.base, 'string', 'base');
  assert.match(doc.base_sha256, /^[0-9a-f]{64}$/, 'base_sha256');
  assert.ok(Array.isArray(doc.cases) && doc.cases.length > 0, 'cases: a non-empty array');
  const names = new Set();
  for (const c of doc.cases) {
    assert.equal(typeof c.name, 'string', 'every case has a name');
    assert.ok(!names.has(c.name), `case name ${c.name} is unique`);
    names.add(c.name);
  }
});

if (doc && !loadError) {
  test(`base_sha256 matches ${doc.base}`, () => {
    const basePath = path.resolve(path.dirname(VECTORS), doc.base);
    const bytes = fs.readFileSync(basePath);
    assert.equal(crypto.createHash('sha256').update(bytes).digest('hex'), doc.base_sha256);
    // and verify.js's own SHA-256 agrees
    assert.equal(V.sha256Hex(new Uint8Array(bytes)), doc.base_sha256);
  });

  for (const c of doc.cases || []) {
    test(String(c.name), () => {
      const e = c.expect;
      assert.ok(e && typeof e === 'object', 'the case has an expect object');
      assert.equal(typeof c.ledger_b64, 'string', 'ledger_b64');
      const bytes = new Uint8Array(Buffer.from(c.ledger_b64, 'base64'));
      // The list is handed over as bytes, as the page hands over withheld.json: verify.js reads
      // it with its own JSON reader (withheld_b64 when its exact form is the point of the case).
      const withheld = c.withheld_b64 !== undefined ? new Uint8Array(Buffer.from(c.withheld_b64, 'base64'))
        : c.withheld !== undefined ? new Uint8Array(Buffer.from(JSON.stringify(c.withheld, null, 2))) : null;
      // The anchor zone's rules as the page carries them; a case without them has no zone.
      const rules = c.tz_rules === undefined ? { tzdb: 'none', zone: null, from: 0, until: 0, offsets: [[0, 0]] } : c.tz_rules;
      const why = c.catches ? ` — this case catches ${c.catches}` : '';
      if (e.withheld_refused === true) {
        assert.throws(() => V.verifyLedger(bytes, withheld, null, rules), (err) => err.code === 'usage', 'the withheld list is refused' + why);
        return;
      }
      for (const k of ['ok', 'entries', 'head', 'problems']) assert.ok(k in e, `expect.${k} is present`);
      const res = V.verifyLedger(bytes, withheld, null, rules);

      assert.deepEqual(res.problems.map((p) => ({ line: p.line, code: p.code })),
        e.problems.map((p) => ({ line: p.line, code: p.code })), 'problems (line, code), in order' + why);
      assert.equal(res.ok, e.ok, 'ok' + why);
      assert.equal(res.entries, e.entries, 'entries' + why);
      assert.equal(res.head, e.head, 'head' + why);
      if ('bridged' in e) assert.deepEqual(res.bridged, e.bridged, 'bridged' + why);

      if (c.anchors !== undefined || e.anchors !== undefined) {
        assert.ok(Array.isArray(c.anchors) && Array.isArray(e.anchors), 'anchors and expect.anchors are both arrays');
        const got = V.checkAnchors(res, withheld, c.anchors.map((a) => ({ date: a.date, text: a.text })));
        const pick = (a) => ({ date: a.date, ok: a.ok, format: a.format, head: a.head, day_closed: a.day_closed, ledger_line: a.ledger_line });
        assert.deepEqual(got.map(pick), e.anchors.map(pick), 'anchors' + why);
      }
    });
  }
}
