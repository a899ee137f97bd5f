// node --test tests/js/attack.test.cjs — a hostile light page list (docs/page.md "The light
// page"): the page fetches only the ledger's own relative paths under ledger/, whatever the
// list (`layout-json`) says, so neither another host, a script URL nor a climb out of the
// exhibit's folder is ever fetched.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const P = require(path.join(__dirname, '..', '..', 'assets', 'page.js'));

const SHA = 'a'.repeat(64);
const file = (p) => ({ path: p, bytes: 10, lines: 1, first_seq: 1, last_seq: 1, head: SHA, sha256: SHA });
const list = (...paths) => P.ledgerFileList({ mode: 'light', files: paths.map(file) });

test('a list of files naming anything but ledger/ledger.jsonl and ledger/segments/NNNNNN.jsonl is refused', () => {
  for (const evil of [
    'https://evil.example/ledger/segments/000001.jsonl', '//evil.example/x', 'javascript:alert(1)',
    '../ledger/segments/000001.jsonl', 'ledger/segments/../../x', '/ledger/segments/000001.jsonl',
    'ledger/segments/000001.jsonl?x=1', 'ledger/segments/000001.jsonl#x', 'ledger/segments/000001.jsonl\n',
    'ledger\\segments\\000001.jsonl', 'ledger/segments/%2e%2e/x', 'data:text/plain,x', 'ledger/segments/0000001.jsonl',
    './ledger/ledger.jsonl', ''
  ]) {
    const got = list('ledger/ledger.jsonl', evil);
    assert.equal(typeof got, 'string', JSON.stringify(evil) + ' accepted');
    assert.match(got, /item 2 of the list of files is not a ledger file/);
  }
  assert.equal(typeof P.ledgerFileList({ mode: 'light', files: [{ path: 'ledger/ledger.jsonl', bytes: 1, sha256: SHA, toString: 1 }, { path: { toString: () => 'ledger/segments/000001.jsonl' } }] }), 'string');
});

test('a file listed twice, or out of chain order, is refused; a plain list is accepted', () => {
  assert.match(list('ledger/ledger.jsonl', 'ledger/segments/000001.jsonl', 'ledger/segments/000001.jsonl'), /not in chain order/);
  assert.match(list('ledger/segments/000001.jsonl', 'ledger/ledger.jsonl'), /not in chain order/);
  const ok = list('ledger/ledger.jsonl', 'ledger/segments/000001.jsonl', 'ledger/segments/000002.jsonl');
  assert.ok(Array.isArray(ok), ok);
  assert.deepEqual(ok.map((f) => f.path), ['ledger/ledger.jsonl', 'ledger/segments/000001.jsonl', 'ledger/segments/000002.jsonl']);
});

test('absurd sizes and digests are refused', () => {
  for (const bad of [{ bytes: -1 }, { bytes: '10' }, { bytes: NaN }, { sha256: 'A'.repeat(64) }, { sha256: SHA + '0' }]) {
    const f = Object.assign(file('ledger/ledger.jsonl'), bad);
    assert.equal(typeof P.ledgerFileList({ mode: 'light', files: [f] }), 'string', JSON.stringify(bad));
  }
});

test('a line cut across two files is refused naming the first file, even when sizes and digests agree', () => {
  const fs = require('node:fs');
  const V = require(path.join(__dirname, '..', '..', 'assets', 'verify.js'));
  const ledger = new Uint8Array(fs.readFileSync(path.join(__dirname, '..', '..', 'site-fixtures', 'demo.expected', 'ledger', 'ledger.jsonl')));
  const firstLf = ledger.indexOf(10);
  const cut = firstLf + 10; // inside line 2
  const parts = [ledger.subarray(0, cut), ledger.subarray(cut)];
  const out = [];
  const engine = P.lightEngine(V, (x) => x, (m) => out.push(m));
  engine({ type: 'init', withheld: null, tzRules: null, posts: [], watchSeqs: [], checkpoint: null });
  parts.forEach((b, i) => {
    const copy = b.slice();
    engine({ type: 'file', path: i ? 'ledger/segments/000001.jsonl' : 'ledger/ledger.jsonl', bytes: copy.buffer, size: copy.length, sha256: V.sha256Hex(copy), wantCheckpoint: false });
  });
  const bad = out.filter((m) => m.type === 'file-bad');
  assert.equal(bad.length, 1, JSON.stringify(out.map((m) => m.type)));
  assert.equal(bad[0].path, 'ledger/ledger.jsonl');
  assert.match(bad[0].why, /line feed/);
});

test('a hostile list of the withheld list\'s files is refused: only ledger/withheld.json then ledger/withheld/NNNNNN.json in order', () => {
  const wfile = (p) => ({ path: p, bytes: 10, entries: 1, first_seq: 1, last_seq: 1, sha256: SHA });
  const wlist = (...paths) => P.withheldFileList({ mode: 'light', files: [], withheld_files: paths.map(wfile) });
  assert.equal(P.withheldFileList({ mode: 'light', files: [] }), null, 'no list: the list is embedded');
  const ok = wlist('ledger/withheld.json', 'ledger/withheld/000001.json', 'ledger/withheld/000002.json');
  assert.ok(Array.isArray(ok), ok);
  for (const evil of [
    'https://evil.example/ledger/withheld/000001.json', '../ledger/withheld/000001.json', 'ledger/withheld/000002.json',
    'ledger/withheld/000001.json?x', 'ledger/withheld/0000001.json', 'ledger/segments/000001.jsonl', 'ledger/withheld.json', ''
  ]) {
    assert.equal(typeof wlist('ledger/withheld.json', evil), 'string', JSON.stringify(evil) + ' accepted');
  }
  assert.equal(typeof wlist('ledger/withheld/000001.json', 'ledger/withheld.json'), 'string', 'out of order');
  assert.equal(typeof wlist('ledger/withheld.json'), 'string', 'a list in files has two or more');
  assert.equal(typeof P.withheldFileList({ mode: 'light', files: [], withheld_files: 'ledger/withheld.json' }), 'string');
  for (const bad of [{ bytes: -1 }, { bytes: '10' }, { bytes: 1.5 }, { sha256: 'A'.repeat(64) }, { sha256: null }]) {
    const f = Object.assign(wfile('ledger/withheld/000001.json'), bad);
    assert.equal(typeof P.withheldFileList({ mode: 'light', files: [], withheld_files: [wfile('ledger/withheld.json'), f] }), 'string', JSON.stringify(bad));
  }
});

test('a list that skips a segment number, or lists segments without their facts, is refused (exhibit verify SITE names both)', () => {
  assert.match(list('ledger/ledger.jsonl', 'ledger/segments/000001.jsonl', 'ledger/segments/000003.jsonl'), /skips ledger\/segments\/000002\.jsonl/);
  assert.match(list('ledger/ledger.jsonl', 'ledger/segments/000002.jsonl'), /skips ledger\/segments\/000001\.jsonl/);
  const bare = { path: 'ledger/segments/000001.jsonl', bytes: 10, sha256: SHA };
  assert.match(P.ledgerFileList({ mode: 'light', files: [file('ledger/ledger.jsonl'), bare] }), /no line count/);
  for (const bad of [{ lines: '1' }, { first_seq: 1.5 }, { last_seq: '2' }, { head: null }]) {
    const f = Object.assign(file('ledger/segments/000001.jsonl'), bad);
    assert.equal(typeof P.ledgerFileList({ mode: 'light', files: [file('ledger/ledger.jsonl'), f] }), 'string', JSON.stringify(bad));
  }
  // A ledger in one file may be listed by path, size and sha256 alone.
  assert.ok(Array.isArray(P.ledgerFileList({ mode: 'light', files: [{ path: 'ledger/ledger.jsonl', bytes: 10, sha256: SHA }] })));
});

test('a file whose lines, seqs or head are not the listed ones is named, as exhibit verify SITE names it', () => {
  const fs = require('node:fs');
  const V = require(path.join(__dirname, '..', '..', 'assets', 'verify.js'));
  const ledger = new Uint8Array(fs.readFileSync(path.join(__dirname, '..', '..', 'site-fixtures', 'demo.expected', 'ledger', 'ledger.jsonl')));
  let ends = [];
  for (let i = 0; i < ledger.length; i++) if (ledger[i] === 10) ends.push(i + 1);
  const parts = [ledger.subarray(0, ends[0]), ledger.subarray(ends[0], ends[5]), ledger.subarray(ends[5], ends[9])];
  const run = (edit) => {
    const out = [];
    const engine = P.lightEngine(V, (x) => x, (m) => out.push(m));
    engine({ type: 'init', withheld: null, tzRules: null, posts: [], watchSeqs: [], checkpoint: null });
    parts.forEach((b, i) => {
      const lines = V.utf8Decode(b).split('\n').slice(0, -1).map((l) => { try { return JSON.parse(l); } catch (e) { return {}; } });
      const entries = i === 0 ? [] : lines;
      const facts = i === 0 ? { lines: 1, first_seq: null, last_seq: null, head: null }
        : { lines: lines.length, first_seq: entries[0].seq, last_seq: entries[entries.length - 1].seq, head: entries[entries.length - 1].entry_id };
      const copy = b.slice();
      engine({ type: 'file', path: 'f' + i, bytes: copy.buffer, size: copy.length, sha256: V.sha256Hex(copy), facts: i === 0 ? null : edit(facts, i), wantCheckpoint: false });
    });
    return out.filter((m) => m.type === 'file-bad');
  };
  assert.deepEqual(run((f) => f), [], 'the true facts pass');
  for (const [k, v] of [['lines', 3], ['first_seq', 99], ['last_seq', null], ['head', 'ab'.repeat(32)]]) {
    const bad = run((f, i) => (i === 2 ? Object.assign({}, f, { [k]: v }) : f));
    assert.equal(bad.length, 1, k);
    assert.equal(bad[0].path, 'f2');
    assert.match(bad[0].why, new RegExp('the list says ' + k));
  }
  // The header alone: its head is the header digest, its seqs null.
  const header = P.fileFacts(0, 1, [], 'h'.repeat(64));
  assert.deepEqual(header, { lines: 1, first_seq: null, last_seq: null, head: 'h'.repeat(64) });
});

test('a list item with a key STATS.json\'s lists do not have, or a withheld file without its entries and seqs, is refused (the CLI reads them so)', () => {
  assert.match(P.ledgerFileList({ mode: 'light', files: [Object.assign(file('ledger/ledger.jsonl'), { note: 1 })] }), /a key STATS\.json's files do not have \(note\)/);
  const wfile = (p) => ({ path: p, bytes: 10, entries: 1, first_seq: 1, last_seq: 1, sha256: SHA });
  const two = (b) => P.withheldFileList({ mode: 'light', files: [], withheld_files: [wfile('ledger/withheld.json'), Object.assign(wfile('ledger/withheld/000001.json'), b)] });
  assert.ok(Array.isArray(two({})));
  assert.ok(Array.isArray(two({ first_seq: null, last_seq: undefined })), 'a seq may be null or left out, as the CLI reads it');
  for (const bad of [{ entries: undefined }, { entries: -1 }, { entries: 1.5 }, { first_seq: '1' }, { note: 'x' }]) {
    assert.equal(typeof two(bad), 'string', JSON.stringify(bad));
  }
});
