// The JavaScript side of the withheld-files differential test (tests/testsuite/withheld_files.rs):
// reads cases, one JSON object a line ({"files": [{"path", "b64"}]}), joins each case's files with
// assets/verify.js's joinWithheld exactly as the light page does, and writes one answer a line:
//   {"refused": true}                 a file breaks a rule of the list (a usage error)
//   {"list": [[seq, entry_id], ...]}  the joined list, by seq
//   {"threw": "message"}              anything else thrown (always a failure)
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const V = require(path.join(__dirname, '..', '..', 'assets', 'verify.js'));

const out = [];
for (const line of fs.readFileSync(process.argv[2], 'utf8').split('\n')) {
  if (!line) continue;
  const c = JSON.parse(line);
  const files = c.files.map((f) => ({ path: f.path, bytes: new Uint8Array(Buffer.from(f.b64, 'base64')) }));
  let answer;
  try {
    const list = V.joinWithheld(files).map((w) => [w.seq, w.entry_id]).sort((a, b) => a[0] - b[0]);
    answer = { list };
  } catch (e) {
    answer = e && e.code === 'usage' ? { refused: true } : { threw: String(e && e.stack || e) };
  }
  out.push(JSON.stringify(answer));
}
fs.writeSync(1, out.join('\n') + '\n');
