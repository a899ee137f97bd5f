#!/usr/bin/env node
// Not a test: times verifyLedger on a synthetic valid ledger (default 100,000 entries).
//   node --expose-gc tests/js/bench.cjs [entries] [runs]
'use strict';
const crypto = require('node:crypto');
const path = require('node:path');
const V = require(path.join(__dirname, '..', '..', 'assets', 'verify.js'));

const N = Number(process.argv[2] || 100000);
const RUNS = Number(process.argv[3] || 5);

function sha(s) { return crypto.createHash('sha256').update(s, 'utf8').digest('hex'); }
function dump(v) {
  if (v === null || typeof v !== 'object') return JSON.stringify(v);
  if (Array.isArray(v)) return '[' + v.map(dump).join(',') + ']';
  return '{' + Object.keys(v).sort().map((k) => JSON.stringify(k) + ':' + dump(v[k])).join(',') + '}';
}
function nyDay(t) {
  // America/New_York, 2026 rules (the bench stays inside 2026).
  const dstStart = Date.UTC(2026, 2, 8, 7), dstEnd = Date.UTC(2026, 10, 1, 6);
  const off = t >= dstStart && t < dstEnd ? -4 : -5;
  return new Date(t + off * 3600e3).toISOString().slice(0, 10);
}

function build(n) {
  const header = { anchor_tz: 'America/New_York', certifies: 'Every outbound message attempt is recorded here by hash, never by text.', created: '2026-01-01T00:00:00Z', schema: 'darkflobi.gate/log/v0' };
  const hl = dump(header);
  let prev = sha('darkflobi.gate/log/v0\n' + hl);
  const out = [hl];
  let t = Date.UTC(2026, 0, 1, 0, 0, 0);
  for (let seq = 1; seq <= n; seq++) {
    t += 97e3 + (seq % 13) * 1000; // ~100 s apart: 100k lines span ~4 months, both sides of a DST change
    const ts = new Date(t).toISOString().replace('.000Z', 'Z');
    const core = seq % 3 === 0
      ? { schema: 'darkflobi.gate/entry/v0', seq, prev, kind: 'delivered', timestamp: ts, day: nyDay(t), ref_seq: seq - 1, status: 'ok', sent_sha256: sha('s' + seq), process: 'gate/v0.9 pid-' + (seq % 7) }
      : { schema: 'darkflobi.gate/entry/v0', seq, prev, kind: 'send', timestamp: ts, day: nyDay(t), action: 'send', decision: seq % 5 ? 'allow' : 'block', dest_class: 'public', dest_hash: sha('d' + (seq % 4)), checked_sha256: sha('c' + seq), sent_sha256: sha('s' + seq), numerals: { bound: seq % 4, total: 4 }, reasons: seq % 5 ? [] : ['unbound_numeral', 'caf\u00e9 \u2014 \u201cquoted\u201d'] };
    const eid = sha(dump(core));
    out.push(dump(Object.assign({}, core, { entry_id: eid })));
    prev = eid;
  }
  return { text: out.join('\n') + '\n', head: prev };
}

const t0 = Date.now();
const { text, head } = build(N);
const bytes = new TextEncoder().encode(text);
console.log(`built ${N} entries, ${(bytes.length / 1e6).toFixed(1)} MB (${Math.round(bytes.length / N)} bytes/line) in ${Date.now() - t0} ms`);

const times = [];
for (let r = 0; r < RUNS; r++) {
  if (global.gc) global.gc(); // with --expose-gc: start each run from a collected heap
  const s = process.hrtime.bigint();
  const res = V.verifyLedger(bytes, null);
  const ms = Number(process.hrtime.bigint() - s) / 1e6;
  times.push(ms);
  if (!res.ok || res.head !== head || res.entries !== N) {
    console.error('WRONG ANSWER', res.ok, res.entries, res.head, head, res.problems.slice(0, 5));
    process.exit(1);
  }
}
const first = times[0];
times.sort((a, b) => a - b);
console.log(`verifyLedger (${N} entries): ok, head matches; first run ${first.toFixed(0)} ms; ` +
  `runs sorted ${times.map((x) => x.toFixed(0)).join(' ')} ms; median ${times[Math.floor(RUNS / 2)].toFixed(0)} ms`);
