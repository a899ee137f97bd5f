// The page's base64 (assets/page.js `b64ToBytes`) against the table `exhibit verify SITE`'s
// decoder answers too (vectors/base64.json; `base64` in src/site_check/page.rs reads the same file in
// its tests): the same bytes or the same refusal on every case (issue 48, class 18;
// docs/page.md "Base64").
//   node --test tests/js/
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.join(__dirname, '..', '..');
const P = require(process.env.PAGE_JS || path.join(ROOT, 'assets', 'page.js'));
const table = JSON.parse(fs.readFileSync(path.join(ROOT, 'vectors', 'base64.json'), 'utf8'));

function answer(text) {
  try { return Buffer.from(P.b64ToBytes(text)).toString('hex'); } catch (e) { return null; }
}

test('the page decodes base64 exactly as the CLI does', () => {
  assert.equal(table.format, 'exhibit-base64/v1');
  const wrong = table.cases
    .filter((c) => answer(c.text) !== c.bytes_hex)
    .map((c) => JSON.stringify(c.text) + ' (' + c.why + '): page ' + answer(c.text) + ', CLI ' + c.bytes_hex);
  assert.deepEqual(wrong, []);
});

// Each decoder the page may meet (Uint8Array.fromBase64 in Chromium 140+, atob, node's Buffer)
// gives the same answer: the rule is checked before any of them decodes.
test('the answer does not depend on the native decoder', () => {
  const saved = Uint8Array.fromBase64;
  for (const native of [saved, undefined]) {
    if (native === undefined) delete Uint8Array.fromBase64; else if (native) Uint8Array.fromBase64 = native;
    for (const c of table.cases) assert.equal(answer(c.text), c.bytes_hex, JSON.stringify(c.text));
  }
  if (saved) Uint8Array.fromBase64 = saved;
});
