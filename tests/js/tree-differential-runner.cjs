// The JavaScript side of the tree's differential fuzzing (tests/testsuite/differential.rs):
// reads cases, one JSON object a line ({size, origin, head, entries: [hex], lines: {seq: text},
// digests: {seq: [hex]}}), makes every file of the tree with assets/verify.js, and writes one
// answer a line: {"files": {path: sha256}} or {"threw": message}.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const crypto = require('node:crypto');

const T = require(path.join(__dirname, '..', '..', 'assets', 'verify.js')).tree;

const out = [];
for (const text of fs.readFileSync(process.argv[2], 'utf8').split('\n')) {
  if (!text) continue;
  const c = JSON.parse(text);
  try {
    const files = T.expectedTreeFiles({
      entries: c.entries.map((h) => new Uint8Array(Buffer.from(h, 'hex'))),
      lineBytes: (s) => (c.lines[s] === undefined ? null : new Uint8Array(Buffer.from(c.lines[s], 'utf8'))),
      digestsOf: (s) => c.digests[s] || [],
      origin: c.origin,
      headHex: c.head
    });
    const hashes = {};
    for (const [p, b] of files) hashes[p] = crypto.createHash('sha256').update(b).digest('hex');
    out.push(JSON.stringify({ files: hashes }));
  } catch (e) {
    out.push(JSON.stringify({ threw: String(e && e.stack || e) }));
  }
}
process.stdout.write(out.join('\n') + '\n');
