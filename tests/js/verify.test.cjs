// Unit tests for assets/verify.js (node --test tests/js/). No dependencies.
// Digests and canonical dumps here are made independently (node:crypto, JSON.stringify), so a
// verify.js that agrees with itself but not with the protocol fails.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');

const SRC = path.join(__dirname, '..', '..', 'assets', 'verify.js');
const V = require(SRC);

// ---------------------------------------------------------------------------------------------
// Independent helpers

const sha = (x) => crypto.createHash('sha256').update(typeof x === 'string' ? Buffer.from(x, 'utf8') : x).digest('hex');
// JSON.stringify escapes exactly ", \, U+0000-U+001F (short forms, else \u00xx lowercase) for
// well-formed strings: the protocol's string form. Keys sorted; compact.
function dump(v) {
  if (v === null || typeof v !== 'object') return JSON.stringify(v);
  if (Array.isArray(v)) return '[' + v.map(dump).join(',') + ']';
  return '{' + Object.keys(v).sort().map((k) => JSON.stringify(k) + ':' + dump(v[k])).join(',') + '}';
}
const HEADER = { anchor_tz: 'America/New_York', certifies: 'Every outbound attempt is recorded by hash, never by text.', created: '2026-10-24T00:00:00Z', schema: 'darkflobi.gate/log/v0' };
const headerDigestOf = (h) => sha('darkflobi.gate/log/v0\n' + dump(h));
const nyDay = (ts, tz = 'America/New_York') => new Intl.DateTimeFormat('en-CA', { timeZone: tz, year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date(ts));

// Builds a chained ledger. specs: [{timestamp?, kind?, day?, extra fields...}]
// Returns {header, lines: [string], entries: [object], ids: [entry_id], text(), head}
function buildLedger(specs, opts = {}) {
  // opts.header: a whole header when it has a schema, else fields laid over HEADER
  const header = opts.header && opts.header.schema ? opts.header : Object.assign({}, HEADER, opts.header || {});
  const lines = [dump(header)];
  let prev = headerDigestOf(header);
  const entries = [], ids = [];
  specs.forEach((spec, i) => {
    const seq = i + 1;
    const timestamp = spec.timestamp || new Date(Date.UTC(2026, 9, 25, 14, 0, 0) + seq * 60e3).toISOString().replace('.000Z', 'Z');
    const core = Object.assign({ schema: 'darkflobi.gate/entry/v0', seq, prev, kind: 'send', timestamp }, spec, { timestamp });
    if (!('day' in spec)) core.day = nyDay(timestamp, header.anchor_tz);
    const entry_id = sha(dump(core));
    const entry = Object.assign({}, core, { entry_id });
    entries.push(entry);
    ids.push(entry_id);
    lines.push(dump(entry));
    prev = entry_id;
  });
  return {
    header, lines, entries, ids,
    head: ids.length ? ids[ids.length - 1] : headerDigestOf(header),
    text(ls = this.lines) { return ls.join('\n') + '\n'; }
  };
}
const rechain = (entry) => { const core = Object.assign({}, entry); delete core.entry_id; return Object.assign(core, { entry_id: sha(dump(core)) }); };
const bytesOf = (s) => new Uint8Array(Buffer.from(s, 'utf8'));
const run = (text, withheld = null) => V.verifyLedger(typeof text === 'string' ? bytesOf(text) : text, withheld);
const pairs = (res) => res.problems.map((p) => [p.line, p.code]);
const W = (L, seq) => ({ seq, entry_id: L.ids[seq - 1], kind: 'send', dest_class: 'dm', day: L.entries[seq - 1].day, fields_flagged: [], reason: 'test' });
const specs = (n, f = () => ({})) => Array.from({ length: n }, (_, i) => f(i + 1));

// ---------------------------------------------------------------------------------------------
// SHA-256 and UTF-8

test('sha256Hex agrees with node:crypto at block boundaries, on 1 MB random, and on strings', () => {
  for (const n of [0, 1, 3, 31, 32, 54, 55, 56, 57, 63, 64, 65, 111, 119, 120, 121, 127, 128, 129, 191, 192, 1000, 4096]) {
    const b = crypto.randomBytes(n);
    assert.equal(V.sha256Hex(new Uint8Array(b)), sha(b), 'length ' + n);
  }
  assert.equal(V.sha256Hex(new Uint8Array(0)), 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  assert.equal(V.sha256Hex(bytesOf('abc')), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  const big = crypto.randomBytes(1 << 20);
  assert.equal(V.sha256Hex(new Uint8Array(big)), sha(big));
  // a view into a larger buffer hashes only its own bytes
  const view = new Uint8Array(big.buffer, big.byteOffset + 100, 1000);
  assert.equal(V.sha256Hex(view), sha(big.subarray(100, 1100)));
  assert.equal(V.sha256Hex('caf\u00e9 \u{1F600}'), sha('caf\u00e9 \u{1F600}'));
  assert.deepEqual(Buffer.from(V.sha256(bytesOf('abc'))).toString('hex'), sha('abc'));
});

test('sha256Hex is stable across interleaved calls (no state leaks between hashes)', () => {
  const a = crypto.randomBytes(200), b = crypto.randomBytes(57);
  const ha = V.sha256Hex(new Uint8Array(a));
  V.sha256Hex(new Uint8Array(b));
  assert.equal(V.sha256Hex(new Uint8Array(a)), ha);
});

for (const native of [true, false]) {
  test(`utf8 ${native ? 'platform' : 'fallback'} codec: strict decoding and encoding`, () => {
    V._internal.setNativeCodecs(native);
    try {
      const bad = [[0xc0, 0x80], [0xc1, 0xbf], [0xe0, 0x80, 0x80], [0xe0, 0x9f, 0xbf], [0xf0, 0x80, 0x80, 0x80], [0xf0, 0x8f, 0xbf, 0xbf],
        [0xed, 0xa0, 0x80], [0xed, 0xbf, 0xbf], [0xf4, 0x90, 0x80, 0x80], [0xf5, 0x80, 0x80, 0x80], [0xff], [0x80], [0xc3], [0xe2, 0x82],
        [0xf0, 0x9f, 0x98], [0x61, 0xc3, 0x28], [0xf8, 0x88, 0x80, 0x80, 0x80]];
      for (const b of bad) assert.equal(V.utf8Decode(new Uint8Array(b)), null, Buffer.from(b).toString('hex'));
      const good = ['', 'a', '\u0000', '\u007f', '\u0080', '\u07ff', '\u0800', '\ud7ff', '\ue000', '\uffff', '\u{10000}', '\u{10ffff}', '\ufeffBOM kept', 'caf\u00e9 \u2028 \u{1F600}'];
      for (const s of good) {
        const enc = V.utf8Encode(s);
        assert.deepEqual(Buffer.from(enc), Buffer.from(s, 'utf8'), JSON.stringify(s));
        assert.equal(V.utf8Decode(enc), s, JSON.stringify(s));
      }
      assert.deepEqual(Buffer.from(V.utf8Encode('a\ud800b')), Buffer.from([0x61, 0xef, 0xbf, 0xbd, 0x62]));
      const rnd = Array.from({ length: 2000 }, () => String.fromCodePoint(Math.random() < 0.5 ? Math.floor(Math.random() * 0xd800) : 0x10000 + Math.floor(Math.random() * 0xfffff))).join('');
      assert.equal(V.utf8Decode(V.utf8Encode(rnd)), rnd);
    } finally { V._internal.setNativeCodecs(true); }
  });
}

// ---------------------------------------------------------------------------------------------
// Reading a line: the canonical form and its traps

const code = (line) => V.parseJsonLine(line).code;

test('canonical: key order, whitespace, and plain values', () => {
  assert.equal(code('{"a":1,"b":[true,false,null,"x",-5,0],"c":{}}'), null);
  assert.equal(code('{"b":1,"a":2}'), 'not_canonical');
  assert.equal(code('{"B":1,"a":2}'), null); // bytewise: "B" < "a"
  assert.equal(code('{"a":2,"B":1}'), 'not_canonical');
  assert.equal(code('{"a":{"y":1,"x":2}}'), 'not_canonical'); // nested objects are sorted too
  assert.equal(code('{"a":[{"z":1,"y":2}]}'), 'not_canonical');
  assert.equal(code('{"a":["z","y"]}'), null); // arrays keep their order
  assert.equal(code('{"a":1,"ab":2}'), null);
  assert.equal(code('{"ab":1,"a":2}'), 'not_canonical');
  assert.equal(code('{"a": 1}'), 'not_canonical');
  assert.equal(code(' {"a":1}'), 'not_canonical');
  assert.equal(code('{"a":1} '), 'not_canonical');
  assert.equal(code('{"a":1}\t'), 'not_canonical');
  assert.equal(code('{}'), null);
  assert.equal(code('{ }'), 'not_canonical');
  assert.equal(code('{"a":[ ]}'), 'not_canonical');
});

test('canonical: string escapes (\\/, \\u001F vs \\u001f, needless \\u00e9, U+2028, DEL, short forms)', () => {
  assert.equal(code('{"a":"/"}'), null);
  assert.equal(code('{"a":"\\/"}'), 'not_canonical');
  assert.equal(code('{"a":"\\u001f"}'), null);
  assert.equal(code('{"a":"\\u001F"}'), 'not_canonical');
  assert.equal(code('{"a":"\\u0000\\u0001\\u000b\\u000e\\u001e"}'), null);
  assert.equal(code('{"a":"\\b\\f\\n\\r\\t\\"\\\\"}'), null);
  assert.equal(code('{"a":"\\u0008"}'), 'not_canonical');
  assert.equal(code('{"a":"\\u000a"}'), 'not_canonical');
  assert.equal(code('{"a":"\\u0022"}'), 'not_canonical');
  assert.equal(code('{"a":"\\u005c"}'), 'not_canonical');
  assert.equal(code('{"a":"\u00e9"}'), null);
  assert.equal(code('{"a":"\\u00e9"}'), 'not_canonical');
  assert.equal(code('{"a":"\\u0041"}'), 'not_canonical');
  assert.equal(code('{"\\u0061":1}'), 'not_canonical'); // an ASCII key written escaped
  assert.equal(code('{"a":"\u2028\u2029"}'), null);
  assert.equal(code('{"a":"\\u2028"}'), 'not_canonical');
  assert.equal(code('{"a":"\u007f"}'), null);
  assert.equal(code('{"a":"\\u007f"}'), 'not_canonical');
  assert.equal(code('{"a":"\u{1F600}"}'), null);
  const pair = V.parseJsonLine('{"a":"\\ud83d\\ude00"}');
  assert.equal(pair.code, 'not_canonical'); // a pair written as two escapes is one code point, written raw
  assert.equal(pair.value.a, '\u{1F600}');
  assert.equal(pair.canonical, '{"a":"\u{1F600}"}');
  assert.equal(code('{"a":"\\uD83D\\uDE00"}'), 'not_canonical');
});

test('canonicalisable: numbers (1.5, 2.0, 1e2, -0, 2^53 admitted, 2^53+1 refused)', () => {
  assert.equal(code('{"a":1.5}'), 'not_canonicalisable');
  assert.equal(code('{"a":2.0}'), 'not_canonicalisable');
  assert.equal(code('{"a":1e2}'), 'not_canonicalisable');
  assert.equal(code('{"a":1E2}'), 'not_canonicalisable');
  assert.equal(code('{"a":1e-2}'), 'not_canonicalisable');
  assert.equal(code('{"a":-0}'), 'not_canonicalisable');
  assert.equal(code('{"a":-0.0}'), 'not_canonicalisable');
  assert.equal(code('{"a":0}'), null);
  assert.equal(code('{"a":-1}'), null);
  assert.equal(code('{"a":9007199254740992}'), null);
  assert.equal(code('{"a":-9007199254740992}'), null);
  assert.equal(code('{"a":9007199254740993}'), 'not_canonicalisable');
  assert.equal(code('{"a":-9007199254740993}'), 'not_canonicalisable');
  assert.equal(code('{"a":9007199254740999}'), 'not_canonicalisable');
  assert.equal(code('{"a":10000000000000000}'), 'not_canonicalisable');
  assert.equal(code('{"a":' + '9'.repeat(400) + '}'), 'not_canonicalisable');
  assert.equal(code('{"a":1e400}'), 'not_canonicalisable');
  assert.equal(code('{"a":[1,[2,[3.25]]]}'), 'not_canonicalisable'); // at any depth
  assert.equal(V.parseJsonLine('{"a":9007199254740992}').value.a, 9007199254740992);
  const big = V.parseJsonLine('{"a":9007199254740993}').value.a;
  assert.ok(big instanceof V.JsonNumber);
  assert.equal(big.text, '9007199254740993'); // kept as written, not rounded to 2^53
});

test('canonicalisable: non-ASCII keys and lone surrogates', () => {
  assert.equal(code('{"\u00e9":1}'), 'not_canonicalisable');
  assert.equal(code('{"\\u00e9":1}'), 'not_canonicalisable');
  assert.equal(code('{"a":{"\u00ff":1}}'), 'not_canonicalisable');
  assert.equal(code('{"a":"\u00e9"}'), null); // non-ASCII values are fine
  assert.equal(code('{"a":"\\ud800"}'), 'not_canonicalisable');
  assert.equal(code('{"a":"\\udc00"}'), 'not_canonicalisable');
  assert.equal(code('{"a":"\\ude00\\ud83d"}'), 'not_canonicalisable'); // reversed: two lone halves
  assert.equal(code('{"a":"\\ud83dx"}'), 'not_canonicalisable');
  assert.equal(code('{"a":"\\ud83d\\u0041"}'), 'not_canonicalisable');
  assert.equal(code('{"a":["\\ud800"]}'), 'not_canonicalisable');
  assert.equal(code('{"\\ud800":1}'), 'not_canonicalisable');
});

test('canonicalDump: the form, and refusals', () => {
  assert.equal(V.canonicalDump({ b: 1, a: [true, null, 'x', { d: -2, c: '' }] }), '{"a":[true,null,"x",{"c":"","d":-2}],"b":1}');
  assert.equal(V.canonicalDump('\u001f\u0000\b\f\n\r\t"\\/'), '"\\u001f\\u0000\\b\\f\\n\\r\\t\\"\\\\/"');
  assert.equal(V.canonicalDump('\u2028\u007f\u00e9\u{1F600}'), '"\u2028\u007f\u00e9\u{1F600}"');
  assert.equal(V.canonicalDump(9007199254740992), '9007199254740992');
  assert.equal(V.canonicalDump(-9007199254740992), '-9007199254740992');
  assert.equal(V.canonicalDump({ __proto__: null, z: 1, A: 2, _: 3, '0': 4 }), '{"0":4,"A":2,"_":3,"z":1}');
  for (const bad of [1.5, -0, 2 ** 53 + 2, NaN, Infinity, { '\u00e9': 1 }, '\ud800', ['\udc00'], { a: undefined }, undefined, () => 1,
    V.parseJsonLine('{"a":2.0}').value, V.parseJsonLine('{"a":9007199254740993}').value]) {
    assert.throws(() => V.canonicalDump(bad), (e) => e.code === 'not_canonicalisable', String(bad));
  }
  // The dump of every canonical line read is the line itself.
  for (const s of ['{"a":"\\u001f\\n","b":[1,{"c":null}],"d":"\u2028"}', '{"__proto__":{"x":1},"a":1}']) {
    const r = V.parseJsonLine(s);
    assert.equal(r.code, null, s);
    assert.equal(V.canonicalDump(r.value), s);
  }
});

test('duplicate keys: flagged at any depth, compared after unescaping, last value wins', () => {
  let r = V.parseJsonLine('{"a":1,"a":2}');
  assert.equal(r.code, 'duplicate_key');
  assert.equal(r.readable, true);
  assert.equal(r.value.a, 2);
  assert.equal(code('{"a":{"b":1,"b":1}}'), 'duplicate_key');
  assert.equal(code('{"a":1,"\\u0061":2}'), 'duplicate_key');
  assert.equal(code('{"b":1,"a":2,"b":3}'), 'duplicate_key'); // reported before not_canonical
  assert.equal(code('{"a":1.5,"a":1.5}'), 'duplicate_key'); // reported before not_canonicalisable
  assert.equal(code('{"a":{"b":1},"c":{"b":1}}'), null); // same key in two objects is no duplicate
  r = V.parseJsonLine('{"__proto__":1,"__proto__":2}');
  assert.equal(r.code, 'duplicate_key');
  assert.equal(r.value.__proto__, 2);
  assert.equal(Object.getPrototypeOf(r.value), Object.prototype);
  // the digest is of the object kept: a dropped float does not make it uncanonicalisable
  r = V.parseJsonLine('{"a":1.5,"a":1}');
  assert.equal(r.canonicalisable, true);
  assert.equal(r.canonical, '{"a":1}');
  r = V.parseJsonLine('{"a":1,"a":1.5}');
  assert.equal(r.canonicalisable, false);
});

test('unparsable and not_object', () => {
  for (const s of ['', ' ', '{', '}', '{"a":1', '{"a":1}x', '{"a":1}{}', '{"a":01}', '{"a":+1}', '{"a":.5}', '{"a":1.}', '{"a":1e}',
    '{"a":-}', "{'a':1}", '{a:1}', '{"a":1,}', '{"a":[1,]}', '{"a":NaN}', '{"a":Infinity}', '{"a":tru}', '{"a":nul}', '{"a":True}',
    '{"a":"\u0001"}', '{"a":"\t"}', '{"a":"\\x"}', '{"a":"\\u12"}', '{"a":"\\u12g4"}', '{"a":"\\U0041"}', '{"a":"x}', '{"a" 1}',
    '{"a":1 "b":2}', '{,}', '[', '\ufeff{}', '{"a":1}\u00a0', '\u2028{}', '{"a":1}//']) {
    assert.equal(code(s), 'unparsable', JSON.stringify(s));
  }
  for (const s of ['[]', '[{"a":1}]', '1', '-1.5', '"x"', 'null', 'true', '[{"a":1,"a":2}]', '[1.5]', '"\\ud800"']) {
    assert.equal(code(s), 'not_object', s);
  }
  // bytes: invalid UTF-8 anywhere, a BOM (not JSON whitespace), and CR before everything
  assert.equal(code(new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc0, 0x80, 0x22, 0x7d])), 'unparsable');
  assert.equal(code(new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xed, 0xa0, 0x80, 0x22, 0x7d])), 'unparsable');
  assert.equal(code(new Uint8Array([0xef, 0xbb, 0xbf, 0x7b, 0x7d])), 'unparsable');
  assert.equal(code(new Uint8Array([0x7b, 0x7d, 0x0d])), 'cr_byte');
  assert.equal(code(new Uint8Array([0xff, 0x0d])), 'cr_byte');
  assert.equal(code('{"a":"x\r"}'), 'cr_byte');
  assert.equal(code('{"a":"\\r"}'), null); // the escape is two characters, no CR byte
});

test('nesting: 1000 deep is read, 1001 is unparsable, 100,000 deep neither throws nor overflows', () => {
  assert.equal(code('['.repeat(1000) + ']'.repeat(1000)), 'not_object');
  assert.equal(code('['.repeat(1001) + ']'.repeat(1001)), 'unparsable');
  const obj = (d) => '{"a":'.repeat(d - 1) + '{}' + '}'.repeat(d - 1);
  assert.equal(code(obj(1000)), null);
  assert.equal(code(obj(1001)), 'unparsable');
  assert.equal(code('{"a":' + '['.repeat(999) + ']'.repeat(999) + '}'), null);
  assert.equal(code('{"a":' + '['.repeat(1000) + ']'.repeat(1000) + '}'), 'unparsable');
  assert.equal(code('['.repeat(100000)), 'unparsable');
  assert.equal(code('['.repeat(100000) + ']'.repeat(100000)), 'unparsable');
  assert.equal(code('{"a":'.repeat(100000) + '1' + '}'.repeat(100000)), 'unparsable');
});

test('the reader\'s canonical shortcut agrees with dumping, over mutated lines', () => {
  // verify.js decides "canonical" from how the line was written, dumping only when in doubt;
  // here every verdict is checked against dump-and-compare.
  const seeds = ['{"a":1,"b":[true,false,null,"x",-5,0],"c":{"d":"\\u001f\\n\u00e9\u2028"}}', '{"B":"\\\\\\"","a":[{"x":[]}],"entry_id":"' + 'ab'.repeat(32) + '"}'];
  const muts = [
    (s, i) => s.slice(0, i) + ' ' + s.slice(i),
    (s, i) => s.slice(0, i) + s.slice(i + 1),
    (s, i) => s.slice(0, i) + '\\/' + s.slice(i),
    (s, i) => s.slice(0, i) + '\\u0041' + s.slice(i),
    (s, i) => s.slice(0, i) + '\\u001F' + s.slice(i),
    (s, i) => s.slice(0, i) + '\\u000a' + s.slice(i),
    (s, i) => s.slice(0, i) + '"b":1,' + s.slice(i),
    (s, i) => s.slice(0, i) + ',"A":2' + s.slice(i),
    (s, i) => s.slice(0, i) + '\u00e9' + s.slice(i),
    (s, i) => s.slice(0, i) + '\\n' + s.slice(i),
    (s, i) => s.slice(0, i) + '1.5' + s.slice(i),
  ];
  let n = 0;
  for (const seed of seeds) {
    for (let i = 0; i <= seed.length; i++) {
      for (const m of muts) {
        const s = m(seed, i);
        const fast = V.parseJsonLine(s);
        V._internal.setFastCanonical(false);
        let slow;
        try { slow = V.parseJsonLine(s); } finally { V._internal.setFastCanonical(true); }
        assert.equal(fast.code, slow.code, s);
        if (slow.canonicalisable && slow.readable) assert.equal(slow.canonical, dump(JSON.parse(s)), s);
        n++;
      }
    }
  }
  assert.ok(n > 1000);
});

// ---------------------------------------------------------------------------------------------
// The ledger

test('a hand-built ledger re-derives, with the right head, entries and header digest', () => {
  const L = buildLedger(specs(6, (s) => (s % 2 ? { dest_hash: sha('d' + s), numerals: { bound: 1, total: 2 }, reasons: ['caf\u00e9 \u2028 "q"'] } : { kind: 'delivered', ref_seq: s - 1, status: 'ok' })));
  const res = run(L.text());
  assert.deepEqual(pairs(res), []);
  assert.equal(res.ok, true);
  assert.equal(res.entries, 6);
  assert.equal(res.head, L.ids[5]);
  assert.deepEqual(res.bridged, []);
  assert.equal(res.headerDigest, headerDigestOf(L.header));
  assert.equal(res.anchorTz, 'America/New_York');
  assert.equal(res.lines.length, 6);
  assert.deepEqual(res.lines.map((l) => [l.line, l.seq, l.entry_id, l.derived_entry_id]), L.ids.map((id, i) => [i + 2, i + 1, id, id]));
  assert.equal(res.lines[0].kind, 'send');
  assert.equal(res.lines[1].kind, 'delivered');
  // the head is the last entry's id: hash it ourselves
  const last = Object.assign({}, L.entries[5]); delete last.entry_id;
  assert.equal(res.head, sha(dump(last)));
});

test('header only: the head is the header digest; empty file and blank line 1 are missing_header', () => {
  const L = buildLedger([]);
  let res = run(L.text());
  assert.equal(res.ok, true);
  assert.equal(res.entries, 0);
  assert.equal(res.head, headerDigestOf(L.header));
  res = run('');
  assert.deepEqual(pairs(res), [[1, 'missing_header']]);
  assert.equal(res.head, null);
  const L2 = buildLedger(specs(2, () => ({ day: '1999-01-01' })));
  res = run('\n' + L2.lines.slice(1).join('\n') + '\n');
  assert.deepEqual(pairs(res), [[1, 'missing_header']]); // no prev check, no day check
  assert.equal(res.entries, 2);
  // an entry on line 1 is not a header and not an entry: the next line expects seq 1
  res = run(L2.lines.slice(1).join('\n') + '\n');
  assert.deepEqual(pairs(res), [[1, 'missing_header'], [2, 'seq_mismatch']]);
  assert.equal(res.entries, 1);
});

test('blank lines are skipped and still counted as line numbers', () => {
  const L = buildLedger(specs(3));
  const ls = L.lines.slice();
  ls.splice(2, 0, '', '');
  const res = run(ls.join('\n') + '\n\n');
  assert.equal(res.ok, true);
  assert.equal(res.entries, 3);
  assert.deepEqual(res.lines.map((l) => l.line), [2, 5, 6]);
  // a line of spaces is not blank
  ls[2] = '  ';
  assert.deepEqual(pairs(run(ls.join('\n') + '\n')), [[3, 'unparsable']]);
});

test('cr_byte, unparsable, not_object: unreadable, flagged once, and the chain breaks at the next line', () => {
  const L = buildLedger(specs(4));
  for (const [bad, c] of [[L.lines[2] + '\r', 'cr_byte'], [L.lines[2].slice(0, 50) + '\r', 'cr_byte'], [L.lines[2].slice(0, -1), 'unparsable'], ['[' + L.lines[2] + ']', 'not_object']]) {
    const ls = L.lines.slice(); ls[2] = bad;
    const res = run(L.text(ls));
    assert.deepEqual(pairs(res), [[3, c], [4, 'prev_mismatch'], [4, 'seq_mismatch']], c);
    assert.equal(res.entries, 4);
    assert.equal(res.ok, false);
    assert.equal(res.head, null);
    assert.equal(res.problems[0].seq, null);
  }
  // every CR line is flagged, the header's too
  const ls = L.lines.map((l) => l + '\r');
  assert.deepEqual(pairs(run(L.text(ls))), [[1, 'cr_byte'], [1, 'missing_header'], [2, 'cr_byte'], [3, 'cr_byte'], [4, 'cr_byte'], [5, 'cr_byte']]);
});

test('invalid UTF-8 in a line is unparsable (platform and fallback decoders)', () => {
  const L = buildLedger(specs(3));
  const pre = Buffer.from(L.lines.slice(0, 2).join('\n') + '\n');
  const post = Buffer.from('\n' + L.lines.slice(3).join('\n') + '\n');
  for (const junk of [[0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xe2, 0x82]]) {
    const line = Buffer.concat([Buffer.from(L.lines[2].slice(0, 30)), Buffer.from(junk), Buffer.from(L.lines[2].slice(30))]);
    const all = new Uint8Array(Buffer.concat([pre, line, post]));
    for (const native of [true, false]) {
      V._internal.setNativeCodecs(native);
      try { assert.deepEqual(pairs(run(all)), [[3, 'unparsable'], [4, 'prev_mismatch'], [4, 'seq_mismatch']]); } finally { V._internal.setNativeCodecs(true); }
    }
  }
});

test('duplicate_key: the line is kept (last value wins) and the chain continues', () => {
  const L = buildLedger(specs(3));
  const ls = L.lines.slice();
  ls[2] = ls[2].replace('"kind":"send"', '"kind":"delivered","kind":"send"');
  const res = run(L.text(ls));
  assert.deepEqual(pairs(res), [[3, 'duplicate_key']]);
  assert.equal(res.problems[0].seq, 2);
  assert.equal(res.lines[1].derived_entry_id, L.ids[1]);
  // last value wins: the first value kept would break the entry_id
  ls[2] = L.lines[2].replace('"kind":"send"', '"kind":"send","kind":"delivered"');
  assert.deepEqual(pairs(run(L.text(ls))), [[3, 'duplicate_key'], [3, 'entry_id_mismatch']]);
});

test('not_canonicalisable: no entry_id check at that line; the next line chains on the stated entry_id', () => {
  const L = buildLedger(specs(3, (s) => (s === 2 ? { ratio: 0.5 } : {})));
  // the test's dump writes 0.5 and hashes it; verify.js must not derive a digest from it
  const res = run(L.text());
  assert.deepEqual(pairs(res), [[3, 'not_canonicalisable']]);
  assert.equal(res.lines[1].derived_entry_id, null);
  // the stated entry_id, even a wrong one, is what the next line's prev must name
  const ls = L.lines.slice();
  ls[2] = ls[2].replace(L.ids[1], 'f'.repeat(64));
  assert.deepEqual(pairs(run(L.text(ls))), [[3, 'not_canonicalisable'], [4, 'prev_mismatch']]);
  // a float entry_id: nothing stated, nothing derived: the next prev is not checked
  ls[2] = L.lines[2].replace('"' + L.ids[1] + '"', '1.5');
  assert.deepEqual(pairs(run(L.text(ls))), [[3, 'not_canonicalisable']]);
});

test('not_canonical: flagged, the entry_id re-derives from the object, not the bytes', () => {
  const L = buildLedger(specs(3, (s) => (s === 2 ? { note: '\u00e9/x' } : {})));
  for (const bad of [L.lines[2].replace('"kind":', '"kind": '), L.lines[2].replace('\u00e9', '\\u00e9'), L.lines[2].replace('/', '\\/'),
    L.lines[2].replace(/^\{"day":("[^"]*"),("entry_id":"[0-9a-f]{64}"),/, '{$2,"day":$1,')]) {
    assert.notEqual(bad, L.lines[2]);
    const ls = L.lines.slice(); ls[2] = bad;
    const res = run(L.text(ls));
    assert.deepEqual(pairs(res), [[3, 'not_canonical']], bad);
    assert.equal(res.lines[1].derived_entry_id, L.ids[1]);
  }
});

test('missing_header: line 1 unreadable, or not a header', () => {
  const L = buildLedger(specs(2));
  let ls = L.lines.slice(); ls[0] = '{"anchor_tz":"America/New_York","schema":"darkflobi.gate/log/v1"}';
  assert.deepEqual(pairs(run(L.text(ls))), [[1, 'missing_header']]);
  ls[0] = '{"anchor_tz":"America/New_York"}';
  assert.deepEqual(pairs(run(L.text(ls))), [[1, 'missing_header']]);
  ls[0] = L.lines[0].slice(0, -1);
  assert.deepEqual(pairs(run(L.text(ls))), [[1, 'unparsable'], [1, 'missing_header']]);
  ls[0] = '["darkflobi.gate/log/v0"]';
  assert.deepEqual(pairs(run(L.text(ls))), [[1, 'not_object'], [1, 'missing_header']]);
  // a header with a float is a header, but has no digest: the first prev is not checked
  ls = L.lines.slice(); ls[0] = L.lines[0].replace('"anchor_tz"', '"a":1.5,"anchor_tz"');
  let res = run(L.text(ls));
  assert.deepEqual(pairs(res), [[1, 'not_canonicalisable']]);
  assert.equal(res.headerDigest, null);
  // a non-canonical header still has its digest (of the canonical dump): the chain holds
  ls[0] = L.lines[0].replace('"anchor_tz":', '"anchor_tz": ');
  res = run(L.text(ls));
  assert.deepEqual(pairs(res), [[1, 'not_canonical']]);
  assert.equal(res.headerDigest, headerDigestOf(L.header));
  // a header whose canonical form differs hashes differently: prev_mismatch at line 2
  ls[0] = L.lines[0].replace('"certifies":"', '"certifies":"X');
  assert.deepEqual(pairs(run(L.text(ls))), [[2, 'prev_mismatch']]);
});

test('bad_header: unknown, missing or non-string anchor_tz; no day is checked', () => {
  const L = buildLedger(specs(2, () => ({ day: '1999-01-01' })));
  assert.deepEqual(pairs(run(L.text())), [[2, 'day_mismatch'], [3, 'day_mismatch']]);
  for (const tz of ['Mars/Olympus_Mons', '', 'America/New York', '+05:00', 'PST', 'Factory', 'localtime']) {
    const h = Object.assign({}, HEADER, { anchor_tz: tz });
    const L2 = buildLedger(specs(2, () => ({ day: '1999-01-01' })), { header: h });
    const res = run(L2.text());
    assert.deepEqual(pairs(res), [[1, 'bad_header']], tz);
    assert.equal(res.anchorTz, null);
    assert.equal(res.headerDigest, headerDigestOf(h)); // the chain is still checked
  }
  for (const tz of [undefined, 5, null, ['America/New_York']]) {
    const h = Object.assign({}, HEADER, { anchor_tz: tz });
    if (tz === undefined) delete h.anchor_tz;
    const L2 = buildLedger(specs(1, () => ({ day: '1999-01-01' })), { header: h });
    assert.deepEqual(pairs(run(L2.text())), [[1, 'bad_header']], String(tz));
  }
});

test('zone names: tz database spelling (zones and links) is known; other spellings are not', () => {
  for (const z of ['America/New_York', 'UTC', 'Etc/UTC', 'Etc/GMT+5', 'US/Eastern', 'Asia/Calcutta', 'Asia/Kolkata', 'Asia/Kathmandu', 'Europe/Kyiv', 'EST5EDT', 'GMT', 'America/Argentina/Buenos_Aires']) {
    assert.equal(V.isKnownZone(z), true, z);
  }
  for (const z of ['america/new_york', 'AMERICA/NEW_YORK', 'utc', 'PST', 'IST', 'SystemV/EST5', 'Factory', 'Mars/Base', '', ' UTC', 'UTC ', '+00:00', 'Z']) {
    assert.equal(V.isKnownZone(z), false, z);
  }
});

test('truncated_tail: the unterminated line is reported, not read, not counted', () => {
  const L = buildLedger(specs(3));
  const text = L.text().slice(0, -1);
  let res = run(text);
  assert.deepEqual(pairs(res), [[4, 'truncated_tail']]);
  assert.equal(res.entries, 2);
  assert.equal(res.lines.length, 2);
  assert.equal(res.head, null);
  res = run(text.slice(0, -40)); // cut mid-line: still just the tail
  assert.deepEqual(pairs(res), [[4, 'truncated_tail']]);
  res = run(L.lines[0]); // the header itself unterminated
  assert.deepEqual(pairs(res), [[1, 'truncated_tail'], [1, 'missing_header']]);
  res = run(L.text() + '\r'); // a CR in the tail is not read either
  assert.deepEqual(pairs(res), [[5, 'truncated_tail']]);
});

test('bad_schema, entry_id_mismatch, prev_mismatch, seq_mismatch at the right line', () => {
  const L = buildLedger(specs(4));
  const at = (i, e) => { const ls = L.lines.slice(); ls[i] = dump(e); return run(L.text(ls)); };
  // schema rewritten and re-chained: only bad_schema
  assert.deepEqual(pairs(at(2, rechain(Object.assign({}, L.entries[1], { schema: 'darkflobi.gate/entry/v1' })))), [[3, 'bad_schema'], [4, 'prev_mismatch']]);
  // a field rewritten, the entry_id left alone: flagged once, the next line still chains
  assert.deepEqual(pairs(at(2, Object.assign({}, L.entries[1], { kind: 'delivered' }))), [[3, 'entry_id_mismatch']]);
  // entry_id missing, or not a string
  const noId = Object.assign({}, L.entries[1]); delete noId.entry_id;
  assert.deepEqual(pairs(at(2, noId)), [[3, 'entry_id_mismatch']]); // the next prev is the derived id: it matches
  assert.deepEqual(pairs(at(2, Object.assign({}, L.entries[1], { entry_id: 7 }))), [[3, 'entry_id_mismatch']]);
  // prev rewritten and re-chained
  assert.deepEqual(pairs(at(2, rechain(Object.assign({}, L.entries[1], { prev: 'a'.repeat(64) })))), [[3, 'prev_mismatch'], [4, 'prev_mismatch']]);
  assert.deepEqual(pairs(at(1, rechain(Object.assign({}, L.entries[0], { prev: L.entries[0].prev.toUpperCase() })))), [[2, 'prev_mismatch'], [3, 'prev_mismatch']]);
  // seq rewritten and re-chained: the next seq follows the stated one
  assert.deepEqual(pairs(at(2, rechain(Object.assign({}, L.entries[1], { seq: 7 })))), [[3, 'seq_mismatch'], [4, 'prev_mismatch'], [4, 'seq_mismatch']]);
  // a seq that is not an integer: its expected seq stands in for it
  assert.deepEqual(pairs(at(2, rechain(Object.assign({}, L.entries[1], { seq: '2' })))), [[3, 'seq_mismatch'], [4, 'prev_mismatch']]);
  // all of them at one line, in the documented order
  const e = Object.assign({}, L.entries[1], { schema: 'x', prev: 'p', seq: 9, timestamp: 'nope', entry_id: 'q' });
  assert.deepEqual(pairs(at(2, e)), [[3, 'bad_schema'], [3, 'entry_id_mismatch'], [3, 'prev_mismatch'], [3, 'seq_mismatch'], [3, 'bad_timestamp'], [4, 'prev_mismatch'], [4, 'seq_mismatch']]);
});

test('a dropped line is flagged at the line after the gap', () => {
  const L = buildLedger(specs(5));
  const ls = L.lines.slice(); ls.splice(3, 1);
  const res = run(L.text(ls));
  assert.deepEqual(pairs(res), [[4, 'prev_mismatch'], [4, 'seq_mismatch']]);
  assert.equal(res.entries, 4);
  assert.equal(res.problems[0].seq, 4);
});

test('bad_timestamp: the form and a real instant', () => {
  const bad = ['2026-02-29T12:00:00Z', '2100-02-29T12:00:00Z', '2026-04-31T12:00:00Z', '2026-13-01T12:00:00Z', '2026-00-10T12:00:00Z', '2026-10-00T12:00:00Z',
    '2026-10-25T24:00:00Z', '2026-10-25T12:60:00Z', '2026-10-25T12:00:60Z', '0000-01-01T00:00:00Z', '2026-10-25 12:00:00Z', '2026-10-25T12:00:00',
    '2026-10-25T12:00:00z', '2026-10-25T12:00:00+00:00', '2026-10-25T12:00:00.000Z', '26-10-25T12:00:00Z', '+2026-10-25T12:00:00Z', '2026-1-25T12:00:00Z',
    '２026-10-25T12:00:00Z', ' 2026-10-25T12:00:00Z', '2026-10-25T12:00:00Z\n'];
  for (const ts of bad) assert.equal(V.parseTimestamp(ts), null, ts);
  for (const ts of ['2028-02-29T00:00:00Z', '2000-02-29T23:59:59Z', '0001-01-01T00:00:00Z', '9999-12-31T23:59:59Z', '1970-01-01T00:00:00Z']) {
    assert.equal(V.parseTimestamp(ts), Date.parse(ts) / 1000 || (ts.startsWith('1970') ? 0 : NaN), ts);
  }
  const L = buildLedger(specs(2));
  for (const ts of ['2026-02-29T12:00:00Z', 1761400000, null]) {
    const ls = L.lines.slice();
    ls[1] = dump(rechain(Object.assign({}, L.entries[0], { timestamp: ts, day: 'whatever' })));
    ls[2] = dump(rechain(Object.assign({}, L.entries[1], { prev: JSON.parse(ls[1]).entry_id })));
    assert.deepEqual(pairs(run(L.text(ls))), [[2, 'bad_timestamp']], String(ts));
  }
  const noTs = Object.assign({}, L.entries[0]); delete noTs.timestamp;
  const ls = L.lines.slice(); ls[1] = dump(rechain(noTs)); ls[2] = dump(rechain(Object.assign({}, L.entries[1], { prev: JSON.parse(ls[1]).entry_id })));
  assert.deepEqual(pairs(run(L.text(ls))), [[2, 'bad_timestamp']]);
});

// ---------------------------------------------------------------------------------------------
// Days

const DAY_CASES = [
  // America/New_York, spring forward 2026-03-08 07:00Z, fall back 2026-11-01 06:00Z
  ['America/New_York', '2026-03-08T04:59:59Z', '2026-03-07'],
  ['America/New_York', '2026-03-08T05:00:00Z', '2026-03-08'],
  ['America/New_York', '2026-03-08T06:59:59Z', '2026-03-08'],
  ['America/New_York', '2026-03-08T07:00:00Z', '2026-03-08'],
  ['America/New_York', '2026-03-09T03:59:59Z', '2026-03-08'],
  ['America/New_York', '2026-03-09T04:00:00Z', '2026-03-09'],
  ['America/New_York', '2026-10-31T03:59:59Z', '2026-10-30'],
  ['America/New_York', '2026-11-01T03:59:59Z', '2026-10-31'],
  ['America/New_York', '2026-11-01T04:00:00Z', '2026-11-01'],
  ['America/New_York', '2026-11-01T05:59:59Z', '2026-11-01'],
  ['America/New_York', '2026-11-01T06:00:00Z', '2026-11-01'],
  ['America/New_York', '2026-11-02T04:59:59Z', '2026-11-01'],
  ['America/New_York', '2026-11-02T05:00:00Z', '2026-11-02'],
  // leap day
  ['America/New_York', '2028-02-29T04:59:59Z', '2028-02-28'],
  ['America/New_York', '2028-02-29T05:00:00Z', '2028-02-29'],
  ['America/New_York', '2028-03-01T04:59:59Z', '2028-02-29'],
  ['America/New_York', '2028-03-01T05:00:00Z', '2028-03-01'],
  ['UTC', '2028-02-29T23:59:59Z', '2028-02-29'],
  ['UTC', '2028-03-01T00:00:00Z', '2028-03-01'],
  ['Asia/Tokyo', '2028-02-28T15:00:00Z', '2028-02-29'],
  // half- and three-quarter-hour offsets
  ['Asia/Kolkata', '2026-10-24T18:29:59Z', '2026-10-24'],
  ['Asia/Kolkata', '2026-10-24T18:30:00Z', '2026-10-25'],
  ['Asia/Calcutta', '2026-10-24T18:30:00Z', '2026-10-25'],
  ['Asia/Kathmandu', '2026-10-24T18:14:59Z', '2026-10-24'],
  ['Asia/Kathmandu', '2026-10-24T18:15:00Z', '2026-10-25'],
  ['America/St_Johns', '2026-07-01T02:29:59Z', '2026-06-30'],
  ['America/St_Johns', '2026-07-01T02:30:00Z', '2026-07-01'],
  ['Australia/Lord_Howe', '2026-01-15T12:59:59Z', '2026-01-15'], // +11 in summer
  ['Australia/Lord_Howe', '2026-01-15T13:00:00Z', '2026-01-16'],
  ['Australia/Lord_Howe', '2026-07-15T13:29:59Z', '2026-07-15'], // +10:30 in winter
  ['Australia/Lord_Howe', '2026-07-15T13:30:00Z', '2026-07-16'],
  // a zone changing its clocks at local midnight (Santiago: 2026-09-06 00:00 -04 -> 01:00 -03)
  ['America/Santiago', '2026-09-06T03:59:59Z', '2026-09-05'],
  ['America/Santiago', '2026-09-06T04:00:00Z', '2026-09-06'],
  ['Pacific/Kiritimati', '2026-10-24T09:59:59Z', '2026-10-24'], // +14
  ['Pacific/Kiritimati', '2026-10-24T10:00:00Z', '2026-10-25'],
  ['Etc/GMT+12', '2026-10-25T11:59:59Z', '2026-10-24'],
  // the extremes of the timestamp range
  ['UTC', '0001-01-01T00:00:00Z', '0001-01-01'],
  ['America/New_York', '0001-01-01T00:00:00Z', '0000-12-31'], // LMT -4:56:02, proleptic Gregorian
  ['America/New_York', '1883-11-18T16:59:59Z', '1883-11-18'],
  ['Asia/Tokyo', '9999-12-31T14:59:59Z', '9999-12-31'],
];

test('days: DST changes, leap day, sub-hour offsets, midnight transitions', () => {
  for (const [tz, ts, day] of DAY_CASES) assert.equal(V.dayInZone(ts, tz), day, `${ts} in ${tz}`);
  // again in reverse order, so no answer rides on a cache warmed by its neighbour
  for (const [tz, ts, day] of DAY_CASES.slice().reverse()) assert.equal(V.dayInZone(ts, tz), day, `${ts} in ${tz} (reverse)`);
});

test('days through the ledger: day_mismatch exactly where the day is wrong', () => {
  for (const tz of ['America/New_York', 'Asia/Kolkata', 'Asia/Kathmandu', 'America/Santiago']) {
    const cases = DAY_CASES.filter((c) => c[0] === tz);
    const L = buildLedger(cases.map(([, ts, day]) => ({ timestamp: ts, day })), { header: { anchor_tz: tz } });
    assert.deepEqual(pairs(run(L.text())), [], tz);
    // each day moved one off the right one
    const wrong = buildLedger(cases.map(([, ts, day], i) => ({ timestamp: ts, day: i % 2 ? day : nyDay(Date.parse(day + 'T12:00:00Z') + 86400e3, 'UTC') })), { header: { anchor_tz: tz } });
    const expected = cases.map((c, i) => (i % 2 ? null : [i + 2, 'day_mismatch'])).filter(Boolean);
    assert.deepEqual(pairs(run(wrong.text())), expected, tz);
  }
  // the day of the header's zone, not of UTC and not of the host
  const L = buildLedger([{ timestamp: '2026-10-25T02:00:00Z', day: '2026-10-25' }]);
  assert.deepEqual(pairs(run(L.text())), [[2, 'day_mismatch']]);
  // day must be a string equal to the derived day
  const L2 = buildLedger([{ timestamp: '2026-10-25T12:00:00Z', day: 20261025 }]);
  assert.deepEqual(pairs(run(L2.text())), [[2, 'day_mismatch']]);
});

test('days agree with a direct Intl reading in every zone, at random instants and around transitions', () => {
  const zones = Intl.supportedValuesOf('timeZone').filter((z) => V.isKnownZone(z));
  assert.ok(zones.length > 300);
  const fmt = new Map();
  const oracle = (t, tz) => {
    if (!fmt.has(tz)) fmt.set(tz, new Intl.DateTimeFormat('en-CA', { timeZone: tz, year: 'numeric', month: '2-digit', day: '2-digit' }));
    return fmt.get(tz).format(new Date(t * 1000));
  };
  const iso = (t) => new Date(t * 1000).toISOString().replace('.000Z', 'Z');
  let seed = 12345;
  const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  let checked = 0;
  for (const tz of zones) {
    const ts = [];
    for (let k = 0; k < 12; k++) ts.push(Math.floor(Date.UTC(1900, 0, 1) / 1000 + rnd() * (Date.UTC(2100, 0, 1) - Date.UTC(1900, 0, 1)) / 1000));
    // scan 2026 by 6-hour steps to find this zone's transitions; test the seconds around each
    let prev = null;
    for (let t = Date.UTC(2026, 0, 1) / 1000; t < Date.UTC(2027, 0, 1) / 1000; t += 6 * 3600) {
      const o = V._internal.offsetSeconds(tz, t);
      if (prev !== null && o !== prev) {
        let lo = t - 6 * 3600, hi = t; // binary search the transition second
        while (hi - lo > 1) { const mid = Math.floor((lo + hi) / 2); if (V._internal.offsetSeconds(tz, mid) === prev) lo = mid; else hi = mid; }
        for (const d of [-3601, -1, 0, 1, 3599, 3600, -86400, 86399]) ts.push(hi + d);
      }
      prev = o;
    }
    for (const t of ts) {
      assert.equal(V.dayInZone(iso(t), tz), oracle(t, tz), `${iso(t)} in ${tz}`);
      checked++;
    }
  }
  assert.ok(checked > 5000);
});

// ---------------------------------------------------------------------------------------------
// Withheld lines

test('withheld: bridging at the start, in the middle and at the tail', () => {
  const L = buildLedger(specs(8));
  const keep = (drop) => L.text([L.lines[0], ...L.lines.slice(1).filter((_, i) => !drop.includes(i + 1))]);
  // middle: seqs 4 and 5 withheld
  let res = run(keep([4, 5]), [W(L, 4), W(L, 5)]);
  assert.deepEqual(pairs(res), []);
  assert.deepEqual(res.bridged, [4, 5]);
  assert.equal(res.head, L.ids[7]);
  assert.equal(res.entries, 6);
  // without the list the same file breaks at the line after the gap
  assert.deepEqual(pairs(run(keep([4, 5]))), [[5, 'prev_mismatch'], [5, 'seq_mismatch']]);
  // start: seqs 1 and 2 withheld
  res = run(keep([1, 2]), [W(L, 1), W(L, 2)]);
  assert.deepEqual(pairs(res), []);
  assert.deepEqual(res.bridged, [1, 2]);
  assert.equal(res.head, L.ids[7]);
  // tail: seqs 7 and 8 withheld extend the head
  res = run(keep([7, 8]), [W(L, 7), W(L, 8)]);
  assert.deepEqual(pairs(res), []);
  assert.deepEqual(res.bridged, [7, 8]);
  assert.equal(res.head, L.ids[7]);
  // all three at once, and the list in any order
  res = run(keep([1, 4, 5, 8]), [W(L, 8), W(L, 5), W(L, 1), W(L, 4)]);
  assert.deepEqual(pairs(res), []);
  assert.deepEqual(res.bridged, [1, 4, 5, 8]);
  assert.equal(res.head, L.ids[7]);
  // everything withheld
  res = run(L.text([L.lines[0]]), specs(8).map((_, i) => W(L, i + 1)));
  assert.deepEqual(pairs(res), []);
  assert.equal(res.head, L.ids[7]);
  assert.equal(res.entries, 0);
});

test('withheld: a gap not wholly listed is not bridged; a wrong digest breaks prev; unreachable and conflict', () => {
  const L = buildLedger(specs(8));
  const keep = (drop) => L.text([L.lines[0], ...L.lines.slice(1).filter((_, i) => !drop.includes(i + 1))]);
  // 4 and 5 dropped, only 4 listed: no bridge, and 4 is unreachable (line 0, after the lines' problems)
  let res = run(keep([4, 5]), [W(L, 4)]);
  assert.deepEqual(pairs(res), [[5, 'prev_mismatch'], [5, 'seq_mismatch'], [0, 'withheld_unreachable']]);
  assert.equal(res.problems[2].seq, 4);
  assert.deepEqual(res.bridged, []);
  // a listed digest that is not the line's: the next line's prev does not name it
  res = run(keep([4]), [Object.assign(W(L, 4), { entry_id: 'e'.repeat(64) })]);
  assert.deepEqual(pairs(res), [[5, 'prev_mismatch']]);
  assert.deepEqual(res.bridged, [4]);
  // a published seq also listed
  res = run(L.text(), [W(L, 3)]);
  assert.deepEqual(pairs(res), [[4, 'withheld_conflict']]);
  assert.equal(res.problems[0].seq, 3);
  // listed seqs beyond a gap at the tail are unreachable; listed seqs far away too
  res = run(keep([8]), [W(L, 8), Object.assign(W(L, 1), { seq: 10 }), Object.assign(W(L, 1), { seq: 99 })]);
  assert.deepEqual(pairs(res), [[0, 'withheld_unreachable'], [0, 'withheld_unreachable']]);
  assert.deepEqual(res.problems.map((p) => p.seq), [10, 99]);
  assert.deepEqual(res.bridged, [8]);
  assert.equal(res.head, null);
});

test('withheld: an invalid list is a usage error, not a ledger problem', () => {
  const L = buildLedger(specs(2));
  const bad = [{}, 'x', [null], [{ seq: 0, entry_id: L.ids[0] }], [{ seq: 1.5, entry_id: L.ids[0] }], [{ seq: '1', entry_id: L.ids[0] }],
    [{ seq: 1, entry_id: L.ids[0].toUpperCase() }], [{ seq: 1 }], [W(L, 1), W(L, 1)]];
  for (const w of bad) assert.throws(() => run(L.text(), w), (e) => e.code === 'usage', JSON.stringify(w));
  assert.equal(run(L.text(), []).ok, true);
  assert.equal(run(L.text(), null).ok, true);
});

test('a 100,000-deep line in a ledger is unparsable, without throwing', () => {
  const L = buildLedger(specs(3));
  const ls = L.lines.slice(); ls[2] = '{"a":' + '['.repeat(100000) + ']'.repeat(100000) + '}';
  assert.deepEqual(pairs(run(L.text(ls))), [[3, 'unparsable'], [4, 'prev_mismatch'], [4, 'seq_mismatch']]);
  ls[2] = '['.repeat(100000);
  assert.deepEqual(pairs(run(L.text(ls))), [[3, 'unparsable'], [4, 'prev_mismatch'], [4, 'seq_mismatch']]);
});

test('every documented code is produced by some line above, and CODES lists them', () => {
  const want = ['cr_byte', 'unparsable', 'not_object', 'not_canonical', 'not_canonicalisable', 'duplicate_key', 'missing_header', 'bad_header',
    'truncated_tail', 'bad_schema', 'entry_id_mismatch', 'prev_mismatch', 'seq_mismatch', 'bad_timestamp', 'day_mismatch', 'withheld_conflict', 'withheld_unreachable'];
  assert.deepEqual(V.CODES.slice().sort(), want.slice().sort());
});

test('progress is reported, ending at every line and every byte', () => {
  const L = buildLedger(specs(5000));
  const text = L.text();
  const calls = [];
  const res = V.verifyLedger(bytesOf(text), null, (l, b) => calls.push([l, b]));
  assert.equal(res.ok, true);
  assert.ok(calls.length >= 2);
  assert.deepEqual(calls[calls.length - 1], [5001, Buffer.byteLength(text)]);
  for (let i = 1; i < calls.length; i++) assert.ok(calls[i][0] >= calls[i - 1][0] && calls[i][1] >= calls[i - 1][1]);
});

test('the platform and fallback codecs, and the canonical shortcut on or off, give the same answers', () => {
  const L = buildLedger(specs(6, (s) => ({ note: s % 2 ? 'caf\u00e9 \u{1F600}' : 'plain' })));
  const variants = [L.text(), L.text().replace('"kind":', '"kind": '), L.text().replace(L.ids[2], L.ids[3]), L.text().replace('\u00e9', '\\u00e9')];
  for (const t of variants) {
    const base = JSON.stringify(run(t));
    for (const [native, fast] of [[false, true], [true, false], [false, false]]) {
      V._internal.setNativeCodecs(native); V._internal.setFastCanonical(fast);
      try { assert.equal(JSON.stringify(run(t)), base); } finally { V._internal.setNativeCodecs(true); V._internal.setFastCanonical(true); }
    }
  }
});

// ---------------------------------------------------------------------------------------------
// Anchors

function anchorLedger() {
  // Days in New York: seqs 1-3 on 2026-10-25, 4-5 on 2026-10-26; seq 6 is the anchor line for 10-25.
  const ts = ['2026-10-25T14:00:00Z', '2026-10-25T20:00:00Z', '2026-10-26T03:59:59Z', '2026-10-26T04:00:01Z', '2026-10-26T05:00:00Z'];
  const L0 = buildLedger(ts.map((t) => ({ timestamp: t })));
  const post = `gate anchor 2026-10-25 head ${L0.ids[2]} seq 3`;
  const L = buildLedger(ts.map((t) => ({ timestamp: t })).concat([{ timestamp: '2026-10-26T05:00:02Z', kind: 'anchor', anchor_date: '2026-10-25', anchor_head: L0.ids[2], anchor_head_seq: 3, anchor_text_sha256: sha(post), late: false }]));
  assert.deepEqual(L.ids.slice(0, 5), L0.ids);
  return { L, post };
}

test('anchors: a post that agrees, and each way one does not', () => {
  const { L, post } = anchorLedger();
  const res = run(L.text());
  assert.equal(res.ok, true);
  const one = (p, w = null, r = res) => { const a = V.checkAnchors(r, w, [p])[0]; return [a.ok, a.format, a.head, a.day_closed, a.ledger_line]; };
  assert.deepEqual(one({ date: '2026-10-25', text: post }), [true, 'ok', 'ok', 'ok', 'agrees']);
  assert.deepEqual(one({ date: '2026-10-25', text: bytesOf(post) }), [true, 'ok', 'ok', 'ok', 'agrees']);
  const full = V.checkAnchors(res, null, [{ date: '2026-10-25', text: post }])[0];
  assert.equal(full.date, '2026-10-25');
  // format
  for (const t of [post + '\n', post + ' ', ' ' + post, post.replace('seq 3', 'seq 03'), post.replace(L.ids[2], L.ids[2].toUpperCase()), post.replace(L.ids[2], L.ids[2].slice(1)),
    post.replace('2026-10-25', '2026-10-26'), post.replace('gate anchor', 'Gate anchor'), post.replace(' head ', '  head '), post.replace('seq 3', 'seq -3'), post.replace('seq 3', 'seq 3.0'), post.replace('seq 3', 'seq')]) {
    assert.deepEqual(one({ date: '2026-10-25', text: t }), [false, 'fail', 'skipped', 'skipped', 'skipped'], JSON.stringify(t));
  }
  // head: wrong digest at a published seq; absent seq
  assert.deepEqual(one({ date: '2026-10-25', text: post.replace(L.ids[2], L.ids[1]) }), [false, 'ok', 'fail', 'ok', 'disagrees']);
  assert.deepEqual(one({ date: '2026-10-27', text: `gate anchor 2026-10-27 head ${L.ids[5]} seq 6` }), [true, 'ok', 'ok', 'ok', 'absent']);
  assert.deepEqual(one({ date: '2026-10-27', text: `gate anchor 2026-10-27 head ${L.ids[5]} seq 60` }), [false, 'ok', 'absent', 'ok', 'absent']);
  // 16 digits is the longest seq a post may name (the CLI's rule too; no ledger seq is longer)
  assert.deepEqual(one({ date: '2026-10-27', text: `gate anchor 2026-10-27 head ${L.ids[5]} seq 9007199254740993` }), [false, 'ok', 'absent', 'ok', 'absent']);
  assert.deepEqual(one({ date: '2026-10-27', text: `gate anchor 2026-10-27 head ${L.ids[5]} seq 90071992547409930` }), [false, 'fail', 'skipped', 'skipped', 'skipped']);
  // seq 0 names the header digest
  assert.deepEqual(one({ date: '2026-10-24', text: `gate anchor 2026-10-24 head ${res.headerDigest} seq 0` }), [true, 'ok', 'ok', 'ok', 'absent']);
  assert.deepEqual(one({ date: '2026-10-24', text: `gate anchor 2026-10-24 head ${L.ids[0]} seq 0` }), [false, 'ok', 'fail', 'ok', 'absent']);
  // day_closed: a line of that day after N
  assert.deepEqual(one({ date: '2026-10-25', text: `gate anchor 2026-10-25 head ${L.ids[1]} seq 2` }), [false, 'ok', 'ok', 'fail', 'disagrees']);
  assert.deepEqual(one({ date: '2026-10-26', text: `gate anchor 2026-10-26 head ${L.ids[4]} seq 5` }), [false, 'ok', 'ok', 'fail', 'absent']); // seq 6 is on 10-26
  // ledger_line: the anchor line disagrees with a post whose bytes differ only in what it hashes to
  const L2 = buildLedger(L.entries.slice(0, 5).map((e) => ({ timestamp: e.timestamp })).concat([Object.assign({}, L.entries[5], { anchor_text_sha256: sha(post + '\n') })]).map((e) => { const c = Object.assign({}, e); delete c.seq; delete c.prev; delete c.entry_id; return c; }));
  assert.deepEqual(one({ date: '2026-10-25', text: post }, null, run(L2.text())), [false, 'ok', 'ok', 'ok', 'disagrees']);
});

test('anchors: a withheld head is the lab\'s word; withheld days close a date too', () => {
  const { L, post } = anchorLedger();
  const withheld = [W(L, 3)];
  const text = L.text([L.lines[0], ...L.lines.slice(1).filter((_, i) => i !== 2)]);
  const res = run(text, withheld);
  assert.equal(res.ok, true);
  assert.deepEqual(res.bridged, [3]);
  let a = V.checkAnchors(res, withheld, [{ date: '2026-10-25', text: post }])[0];
  assert.deepEqual([a.ok, a.format, a.head, a.day_closed, a.ledger_line], [true, 'ok', 'lab_word', 'ok', 'agrees']);
  a = V.checkAnchors(res, [Object.assign(W(L, 3), { entry_id: 'c'.repeat(64) })], [{ date: '2026-10-25', text: post }])[0];
  assert.equal(a.head, 'fail');
  // a withheld line of that day after N fails day_closed
  a = V.checkAnchors(res, withheld, [{ date: '2026-10-25', text: `gate anchor 2026-10-25 head ${L.ids[1]} seq 2` }])[0];
  assert.equal(a.day_closed, 'fail');
  // several posts at once, in order
  const many = V.checkAnchors(res, withheld, [{ date: '2026-10-25', text: post }, { date: '2026-10-26', text: 'nope' }]);
  assert.deepEqual(many.map((x) => [x.date, x.ok, x.format]), [['2026-10-25', true, 'ok'], ['2026-10-26', false, 'fail']]);
});

// ---------------------------------------------------------------------------------------------
// The file itself: one script for a page, a worker and node

test('verify.js loads as a page script (window global) and in a worker (self), with no require, eval or crypto.subtle', () => {
  const src = fs.readFileSync(SRC, 'utf8');
  const code = src.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '').replace(/ \/\/ .*$/gm, '');
  assert.doesNotMatch(code, /\brequire\s*\(/);
  assert.doesNotMatch(code, /\beval\s*\(|new Function\s*\(|crypto\.subtle|\bfetch\s*\(|XMLHttpRequest|document\./);
  // a page: `this` is the window, no module, no self
  const page = { TextEncoder, TextDecoder, Intl };
  page.window = page;
  vm.createContext(page);
  vm.runInContext(src, page);
  assert.equal(typeof page.ExhibitVerify.verifyLedger, 'function');
  // a worker: self
  const worker = { TextEncoder, TextDecoder, Intl };
  worker.self = worker;
  vm.createContext(worker);
  vm.runInContext(src, worker);
  assert.equal(typeof worker.self.ExhibitVerify.verifyLedger, 'function');
  const L = buildLedger(specs(3));
  const res = worker.self.ExhibitVerify.verifyLedger(bytesOf(L.text()), null);
  assert.equal(res.ok, true);
  assert.equal(res.head, L.head);
  // an engine without TextEncoder/TextDecoder still verifies
  const bare = { Intl };
  bare.self = bare;
  vm.createContext(bare);
  vm.runInContext(src, bare);
  const r2 = bare.self.ExhibitVerify.verifyLedger(bytesOf(L.text()), null);
  assert.equal(r2.ok, true);
  assert.equal(r2.head, L.head);
});

// ---------------------------------------------------------------------------------------------
// Issue 15: the withheld list read from its bytes; days from the rules the page carries

test('withheld list bytes: read as written by the verifier\'s own reader, one rule with exhibit verify', () => {
  const L = buildLedger(specs(4));
  const text = L.text([L.lines[0], L.lines[1], L.lines[3], L.lines[4]]);
  const item = (over) => Object.assign({ seq: 2, entry_id: L.ids[1], kind: 'send', dest_class: null, day: L.entries[1].day, fields_flagged: [], reason: 'r' }, over);
  const pretty = JSON.stringify([item({})], null, 2);
  let res = run(text, bytesOf(pretty));
  assert.deepEqual(pairs(res), []);
  assert.deepEqual(res.bridged, [2]);
  // the same list as a string, as an ArrayBuffer, and as an array all read alike
  assert.deepEqual(run(text, pretty).bridged, [2]);
  assert.deepEqual(run(text, bytesOf(pretty).buffer.slice(0)).bridged, [2]);
  assert.deepEqual(run(text, [item({})]).bridged, [2]);
  const refused = [
    pretty.replace('"seq": 2', '"seq": 2.0'),
    pretty.replace('"seq": 2', '"seq": 2e0'),
    pretty.replace('"seq": 2', '"seq": 9007199254740993'),
    pretty.replace('"seq": 2', '"seq": 9007199254740994'),
    pretty.replace('"seq": 2', '"seq": "2"'),
    pretty.replace('"seq": 2', '"seq": 2, "seq": 2'),
    pretty.replace('"reason": "r"', '"reason": "r", "x": {"a": 1, "a": 2}'),
    pretty.replace('"reason": "r"', '"reason": "\\ud800"'),
    pretty.replace('"reason": "r"', '"reason": "r", "x": 1.5'),
    pretty.replace('"fields_flagged": []', '"fields_flagged": null'),
    pretty.replace('"fields_flagged": []', '"fields_flagged": [1]'),
    pretty.replace(`"day": "${L.entries[1].day}"`, '"day": 20261025'),
    pretty.replace(`"day": "${L.entries[1].day}"`, '"day": "2026-02-30"'),
    pretty.replace('"kind": "send"', '"kind": 1'),
    pretty + ' x', '{}', '[1]', '',
  ];
  for (const r of refused) assert.throws(() => run(text, bytesOf(r)), (e) => e.code === 'usage', r);
  // 2^53 itself is admitted (listed and unreachable here)
  res = run(L.text(), bytesOf(pretty.replace('"seq": 2', '"seq": 9007199254740992')));
  assert.deepEqual(pairs(res), [[0, 'withheld_unreachable']]);
  // invalid UTF-8
  assert.throws(() => run(text, new Uint8Array([0x5b, 0xff, 0x5d])), (e) => e.code === 'usage');
  // parseWithheld hands back the items with their optional fields
  const items = V.parseWithheld(bytesOf(pretty));
  assert.deepEqual(items, [{ seq: 2, entry_id: L.ids[1], kind: 'send', dest_class: null, day: L.entries[1].day, fields_flagged: [], reason: 'r' }]);
});

test('tz rules: days come from the table the page carries, not from Intl', () => {
  const t0 = Date.UTC(2026, 9, 25) / 1000;
  // A made-up table for New York: UTC+0 until t0 + 12h, then UTC+14. Intl would say otherwise.
  const rules = { tzdb: 'test1', zone: 'America/New_York', from: t0 - 86400, until: t0 + 3 * 86400, offsets: [[t0 - 86400, 0], [t0 + 43200, 50400]] };
  assert.equal(V.dayInZone('2026-10-25T02:00:00Z', 'America/New_York', rules), '2026-10-25'); // Intl: the 24th
  assert.equal(V.dayInZone('2026-10-25T02:00:00Z', 'America/New_York'), '2026-10-24');
  assert.equal(V.dayInZone('2026-10-25T12:00:00Z', 'America/New_York', rules), '2026-10-26');
  assert.equal(V.dayInZone('2026-10-25T11:59:59Z', 'America/New_York', rules), '2026-10-25');
  // outside the span, and another zone: no day
  assert.equal(V.dayInZone('2026-10-29T00:00:00Z', 'America/New_York', rules), null);
  assert.equal(V.dayInZone('2026-10-23T23:59:59Z', 'America/New_York', rules), null);
  assert.equal(V.dayInZone('2026-10-25T02:00:00Z', 'Europe/Paris', rules), null);
  // through the ledger
  const L = buildLedger([{ timestamp: '2026-10-25T02:00:00Z', day: '2026-10-25' }, { timestamp: '2026-10-25T13:00:00Z', day: '2026-10-26' }]);
  assert.deepEqual(pairs(V.verifyLedger(bytesOf(L.text()), null, null, rules)), []);
  const res = V.verifyLedger(bytesOf(L.text()), null, null, rules);
  assert.match(res.tzSource, /test1/);
  assert.deepEqual(pairs(run(L.text())), [[2, 'day_mismatch'], [3, 'day_mismatch']]);
  // an instant outside the span is a day_mismatch that says so
  const far = buildLedger([{ timestamp: '2026-11-25T02:00:00Z', day: '2026-11-24' }]);
  const r2 = V.verifyLedger(bytesOf(far.text()), null, null, rules);
  assert.deepEqual(pairs(r2), [[2, 'day_mismatch']]);
  assert.match(r2.problems[0].detail, /outside the span/);
  // rules for another zone, or for no zone: bad_header, no day checked
  const paris = Object.assign({}, rules, { zone: 'Europe/Paris' });
  assert.deepEqual(pairs(V.verifyLedger(bytesOf(L.text()), null, null, paris)), [[1, 'bad_header']]);
  assert.deepEqual(pairs(V.verifyLedger(bytesOf(L.text()), null, null, Object.assign({}, rules, { zone: null }))), [[1, 'bad_header']]);
  // malformed rules are refused loudly, never guessed around
  for (const bad of [{ offsets: [] }, { offsets: [[t0, 0]] }, { offsets: [[t0 - 86400, 0], [t0 - 86400, 3600]] }, { offsets: [[t0 - 86400, 1.5]] }, { from: 'x' }, { offsets: [[t0 - 86400, 2 * 86400]] }]) {
    assert.throws(() => V.verifyLedger(bytesOf(L.text()), null, null, Object.assign({}, rules, bad)), /malformed/, JSON.stringify(bad));
  }
});

test('a local date past 9999-12-31 is never a day, with or without rules', () => {
  const rules = { tzdb: 't', zone: 'Asia/Tokyo', from: V.parseTimestamp('9999-12-31T00:00:00Z'), until: V.parseTimestamp('9999-12-31T23:59:59Z') + 1, offsets: [[V.parseTimestamp('9999-12-31T00:00:00Z'), 32400]] };
  assert.equal(V.dayInZone('9999-12-31T15:00:00Z', 'Asia/Tokyo', rules), null);
  assert.equal(V.dayInZone('9999-12-31T15:00:00Z', 'Asia/Tokyo'), null);
  assert.equal(V.dayInZone('9999-12-31T14:59:59Z', 'Asia/Tokyo', rules), '9999-12-31');
  const L = buildLedger([{ timestamp: '9999-12-31T15:00:00Z', day: '10000-01-01' }], { header: { anchor_tz: 'Asia/Tokyo' } });
  assert.deepEqual(pairs(V.verifyLedger(bytesOf(L.text()), null, null, rules)), [[2, 'day_mismatch']]);
  assert.deepEqual(pairs(run(L.text())), [[2, 'day_mismatch']]);
});

test('anchors: an anchor line whose date has no post is named, streamed or not (issue 48)', () => {
  const { L, post } = anchorLedger();
  const res = run(L.text());
  assert.deepEqual(V.datesWithoutPost(res, [{ date: '2026-10-25', text: post }]), []);
  assert.deepEqual(V.datesWithoutPost(res, []), ['2026-10-25'], 'the post dropped');
  assert.deepEqual(V.datesWithoutPost(res, [{ date: '2026-10-24', text: post }]), ['2026-10-25'], 'a post of another day');
  // A post that fails still is a post: its own checks fail it.
  assert.deepEqual(V.datesWithoutPost(res, [{ date: '2026-10-25', text: 'not the form' }]), []);
  // The light page's reader keeps no line records: the same answer from its kept state.
  const v = new V.Verifier(null, null, { watchSeqs: [], keepLines: false });
  v.push(bytesOf(L.text()));
  assert.deepEqual(V.datesWithoutPost(v.finish(), []), ['2026-10-25']);
});

// The one reading rule of a site's JSON files (docs/verifier.md "Reading a site's JSON"):
// the same table is answered by serde_json in tests/testsuite/verify_cli.rs.
test('a site\'s JSON is read by the rule serde_json reads it by (issue 48)', () => {
  const rows = JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'data', 'site-json-reading.json'), 'utf8'));
  for (const r of rows) {
    const text = r.nest !== undefined ? '['.repeat(r.nest) + ']'.repeat(r.nest)
      : r.nest_objects !== undefined ? '{"a":'.repeat(r.nest_objects - 1) + '{}' + '}'.repeat(r.nest_objects - 1) : r.text;
    let read = true;
    try { V.readSiteJSON(text); } catch (e) { read = false; }
    assert.equal(read, r.read, r.why);
  }
});
