// vectors/tree.json (written by `cargo run --example gen-vectors`, from the Rust implementation
// in crates/protocol/src/tree.rs) run through assets/verify.js's independent tree: the same
// files, checkpoints, paths, proofs and lookups, or a disagreement to explain (docs/tree.md).
//   node --test tests/js/
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const V = require(path.join(__dirname, '..', '..', 'assets', 'verify.js'));
const T = V.tree;
const doc = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'vectors', 'tree.json'), 'utf8'));

const sha = (s) => crypto.createHash('sha256').update(s).digest();
const hex = (b) => Buffer.from(b).toString('hex');
const unhex = (h) => new Uint8Array(Buffer.from(h, 'hex'));

// The inputs, by `rules` (written out again here from the file's words).
const entry = (s) => new Uint8Array(sha('exhibit tree vector entry ' + s));
const line = (s) => (s % 7 === 3 ? null : '{"seq":' + s + ',"v":"line ' + s + '"}\n');
function digests(s) {
  if (line(s) === null) return [];
  switch (s % 4) {
    case 0: return [];
    case 1: return [hex(sha('message ' + s))];
    case 2: return [hex(sha('message ' + s)), hex(sha('message ' + s)), hex(sha('draft ' + s))];
    default: return [hex(sha('message ' + Math.floor(s / 2)))];
  }
}

test('the file is the one this runner reads', () => {
  assert.equal(doc.format, 'exhibit-tree-vectors/v1');
  for (const k of ['files', 'checkpoints', 'paths', 'inclusion', 'consistency', 'lookups']) {
    assert.ok(Array.isArray(doc[k]) && doc[k].length > 0, k);
  }
});

for (const c of doc.files) {
  test('files: ' + c.name, () => {
    const entries = [];
    for (let s = 1; s <= c.size; s++) entries.push(entry(s));
    const files = T.expectedTreeFiles({
      entries: entries,
      lineBytes: (s) => { const l = line(s); return l === null ? null : new Uint8Array(Buffer.from(l, 'utf8')); },
      digestsOf: digests,
      origin: c.origin,
      headHex: c.head
    });
    assert.deepEqual([...files.keys()].sort(), Object.keys(c.expect.files).sort(), 'the same file names');
    for (const [p, want] of Object.entries(c.expect.files)) {
      const got = files.get(p);
      assert.equal(got.length, want.len, p + ' length');
      assert.equal(hex(sha(got)), want.sha256, p + ' sha256');
    }
    assert.equal(Buffer.from(files.get('checkpoint')).toString('utf8'), c.expect.checkpoint);
    assert.equal(hex(T.rootOf(entries.map((e) => T.leafHash(e)))), c.expect.root);
  });
}

test('checkpoints: read or refused alike', () => {
  for (const c of doc.checkpoints) {
    const got = T.parseCheckpoint(new Uint8Array(Buffer.from(c.text, 'utf8')));
    if (!c.expect.ok) {
      assert.ok(got.error, c.name + ': refused');
      continue;
    }
    assert.ok(!got.error, c.name + ': ' + got.error);
    assert.equal(got.origin, c.expect.origin, c.name);
    assert.equal(got.size, c.expect.size, c.name);
    assert.equal(hex(got.root), c.expect.root, c.name);
    assert.equal(got.headSeq, c.expect.head_seq, c.name);
    assert.equal(got.headHex, c.expect.head, c.name);
    assert.equal(got.signatures.length, c.expect.signatures, c.name);
  }
});

test('paths: one name per file, read alike', () => {
  for (const c of doc.paths) {
    const got = T.parseTreePath(c.path);
    if (c.expect === null) {
      assert.equal(got, null, c.path);
      continue;
    }
    const norm = Object.assign({}, got);
    if (norm.kind === 'index') norm.prefix = parseInt(norm.prefix, 16);
    assert.deepEqual(norm, c.expect, c.path);
  }
});

test('inclusion proofs: held or not alike', () => {
  for (const c of doc.inclusion) {
    const got = T.checkInclusion(c.proof.map(unhex), c.size, unhex(c.root), c.index, unhex(c.leaf));
    assert.equal(got, c.expect, c.name);
  }
  assert.ok(doc.inclusion.some((c) => c.expect) && doc.inclusion.some((c) => !c.expect));
});

test('consistency proofs: held or not alike', () => {
  for (const c of doc.consistency) {
    const got = T.checkConsistency(c.proof.map(unhex), c.old_size, unhex(c.old_root), c.size, unhex(c.root));
    assert.equal(got, c.expect, c.name);
  }
  assert.ok(doc.consistency.some((c) => c.expect) && doc.consistency.some((c) => !c.expect));
});

test('index lookups: the same files', () => {
  for (const c of doc.lookups) {
    assert.deepEqual(T.indexLookupPaths(c.size, c.digest), c.expect, 'size ' + c.size);
  }
});
