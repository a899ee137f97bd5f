#!/usr/bin/env node
// The floor under benches/full-check.sh (docs/page.md#records-in-the-worker): what the light
// page's full check cannot go below on this machine whatever the page does. Not a test.
//   node benches/full-check-floor.cjs SITE URL [lanes]
// (1) every file a cold full check reads — the ledger's files, every tree file, every post and
// its proof — fetched from URL (SITE served, e.g. by exhibit serve) by node's http client,
// `lanes` at a time over at most `lanes` connections kept alive (default 6: what a browser opens
// to one host, and reuses while the server keeps them, as GitHub Pages and exhibit serve do; an
// HTTP/1.0 server such as python3 -m http.server closes each), each hashed with sha256;
// (2) the same for the posts and proofs alone (a returning visit that reads them all); (3) the
// ledger re-derived by assets/verify.js's Verifier on one thread, files already in memory.
'use strict';
const crypto = require('node:crypto');
const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');
const V = require(path.join(__dirname, '..', 'assets', 'verify.js'));

const [site, base, lanesArg] = process.argv.slice(2);
const lanes = Number(lanesArg || 6);
const ledger = path.join(site, 'ledger');
function walk(dir, rel, out) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    if (e.isDirectory()) walk(path.join(dir, e.name), rel + e.name + '/', out);
    else out.push(rel + e.name);
  }
  return out;
}
const segments = fs.existsSync(path.join(ledger, 'segments')) ? fs.readdirSync(path.join(ledger, 'segments')).sort().map((n) => 'ledger/segments/' + n) : [];
const ledgerFiles = ['ledger/ledger.jsonl'].concat(segments);
const posts = fs.readdirSync(path.join(ledger, 'anchors')).filter((n) => /^\d{4}-\d\d-\d\d\.txt(\.ots)?$/.test(n)).sort().map((n) => 'ledger/anchors/' + n);
const tree = fs.existsSync(path.join(ledger, 'tree')) ? walk(path.join(ledger, 'tree'), 'ledger/tree/', []) : [];

// One agent for every fetch: connections are reused across files and across the two runs.
const agent = new http.Agent({ keepAlive: true, maxSockets: lanes });
const sockets = new Set();

function get(url) {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => (res.statusCode === 200 ? resolve(Buffer.concat(chunks)) : reject(new Error(url + ': ' + res.statusCode))));
      res.on('error', reject);
    });
    req.on('socket', (s) => sockets.add(s));
    req.on('error', reject);
  });
}

async function fetchAll(names) {
  const t0 = Date.now();
  const opened = sockets.size;
  let k = 0, bytes = 0;
  async function lane() {
    while (k < names.length) {
      const b = await get(base.replace(/\/?$/, '/') + names[k++]);
      bytes += b.length;
      crypto.createHash('sha256').update(b).digest();
    }
  }
  await Promise.all(Array.from({ length: lanes }, lane));
  return { files: names.length, mb: (bytes / 1e6).toFixed(1), ms: Date.now() - t0, connections: sockets.size - opened };
}

(async () => {
  const all = await fetchAll(ledgerFiles.concat(tree, posts));
  console.log(`fetch+sha256, every file a cold full check reads: ${all.files} files, ${all.mb} MB, ${all.ms} ms (${lanes} at a time, ${all.connections} connections opened)`);
  const p = await fetchAll(posts);
  console.log(`fetch+sha256, the posts and their proofs: ${p.files} files, ${p.mb} MB, ${p.ms} ms (${p.connections} connections opened)`);
  agent.destroy();
  const bufs = ledgerFiles.map((f) => new Uint8Array(fs.readFileSync(path.join(site, f))));
  const t0 = Date.now();
  const v = new V.Verifier(V.parseWithheld(fs.readFileSync(path.join(ledger, 'withheld.json'))), null, {});
  bufs.forEach((b) => { V.sha256Hex(b); v.push(b); v.takeLines(); });
  const r = v.finish();
  console.log(`the ledger re-derived on one thread (assets/verify.js, sha256 included): ${r.entries} lines, ${Date.now() - t0} ms, ok=${r.ok}`);
})().catch((e) => { console.error(e); process.exit(1); });
