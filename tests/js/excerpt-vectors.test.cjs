// vectors/excerpt.json (written by `cargo run --example gen-vectors`, from the Rust excerpt index
// in crates/protocol/src/excerpt.rs) run through assets/verify.js's own (`ExhibitVerify.excerpt`,
// which is also the page's tokenizer): the same words, keys, kept keys, lookup keys, places,
// lookup paths and index files, or a disagreement to explain (docs/tree.md#excerpts).
//   node --test tests/js/
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const V = require(path.join(__dirname, '..', '..', 'assets', 'verify.js'));
const P = require(path.join(__dirname, '..', '..', 'assets', 'page.js'));
const E = V.excerpt;
const doc = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'vectors', 'excerpt.json'), 'utf8'));

const sha = (b) => crypto.createHash('sha256').update(b).digest('hex');

test('the file is the one this runner reads', () => {
  assert.equal(doc.format, 'exhibit-excerpt-vectors/v1');
  for (const k of ['texts', 'winnow', 'places', 'lookups', 'files']) {
    assert.ok(Array.isArray(doc[k]) && doc[k].length > 0, k);
  }
  assert.equal(E.MIN_WORDS, 12);
});

for (const c of doc.texts) {
  test('text: ' + c.name + ' (catches ' + c.catches + ')', () => {
    const words = E.words(c.text);
    assert.deepEqual(words, c.expect.words, 'words');
    // The page's tokens are these words: one tokenizer.
    assert.deepEqual(P.tokens(c.text), c.expect.words, 'page.js tokens');
    const keys = E.shingleKeys(words);
    assert.deepEqual(keys, c.expect.keys, 'shingle keys');
    assert.deepEqual(E.winnow(keys), c.expect.kept, 'kept keys');
    assert.deepEqual(E.places(keys), c.expect.places, 'kept places');
    assert.deepEqual(E.rows(9, c.text), c.expect.rows.map((r) => ({ key: r.key, ctx: r.ctx, seq: 9 })), 'rows');
    assert.deepEqual([...new Set(E.rows(9, c.text).map((r) => r.key))].sort(), c.expect.kept, 'the rows\' keys are the kept keys');
    assert.equal(E.lookupKey(c.text), c.expect.lookup, 'lookup key');
    const l = E.lookup(c.text);
    assert.deepEqual(l && { before: l.before, after: l.after }, c.expect.lookup_ctx, 'lookup contexts');
  });
}

test('winnowing given keys', () => {
  for (const c of doc.winnow) {
    assert.deepEqual(E.winnow(c.keys), c.expect, c.name + ' (catches ' + c.catches + ')');
    assert.deepEqual(E.places(c.keys), c.places, c.name + ': places');
  }
});

test('places of an excerpt in a text', () => {
  for (const c of doc.places) assert.equal(E.place(c.text, c.excerpt), c.expect, c.name + ' (catches ' + c.catches + ')');
});

test('lookup paths: the digest index\'s under excerpts/', () => {
  for (const c of doc.lookups) assert.deepEqual(E.lookupPaths(c.size, c.key), c.expect, 'size ' + c.size);
});

// The texts `rules.filed_text` files, written again here from the file's words.
function filedText(s) {
  if (s % 5 !== 2) return null;
  const words = [];
  for (let i = 0; i < (s % 17) + 4; i++) words.push('t' + ((s * 31 + i * 7) % 50));
  if (s % 3 === 0) for (let i = 0; i < 12; i++) words.push('w' + i);
  return words.join(' ');
}

for (const c of doc.files) {
  test('files: ' + c.name, () => {
    const files = E.files(c.size, (s) => { const t = filedText(s); return t === null ? [] : E.rows(s, t); },
      (s) => { const t = filedText(s); return t === null ? null : sha(Buffer.from(t, 'utf8')); });
    assert.deepEqual([...files.keys()].sort(), Object.keys(c.expect).sort(), 'the same file names');
    for (const [p, want] of Object.entries(c.expect)) {
      const got = files.get(p);
      assert.equal(got.length, want.len, p + ' length');
      assert.equal(sha(got), want.sha256, p + ' sha256');
    }
    // A lookup reads files the index has, and finds every text holding a 12-word excerpt.
    for (let s = 1; s <= c.size; s++) {
      const t = filedText(s);
      if (t === null || E.words(t).length < 12) continue;
      const ex = E.words(t).slice(-12).join(' '), l = E.lookup(ex), k = l.key;
      const seqs = [].concat(...E.lookupPaths(c.size, k).map((p) => E.seqs(files.get(p), k, l.before, l.after)));
      assert.ok(seqs.includes(s), 'seq ' + s + ' found by its last 12 words');
      break;
    }
  });
}

// The text map (docs/tree.md#text-map): the file naming a seq's text, and what a file names.
test('text map: which file names a seq', () => {
  assert.ok(doc.text_map.files.length > 0);
  for (const c of doc.text_map.files) assert.equal(E.textMapPath(c.size, c.seq), c.expect, 'size ' + c.size + ', seq ' + c.seq);
});

test('text map: what a file\'s bytes name for a seq', () => {
  assert.ok(doc.text_map.reads.length > 0);
  for (const c of doc.text_map.reads) {
    const got = E.textMapDigest(Buffer.from(c.hex, 'hex'), c.seq);
    if (c.expect.error) assert.ok(got.error, c.hex.slice(0, 40) + '… seq ' + c.seq + ': an error');
    else assert.deepEqual(got, { digest: c.expect.digest }, c.hex.slice(0, 40) + '… seq ' + c.seq);
  }
});

test('text map: a lookup\'s candidate is named in the file of its seq', () => {
  const c = doc.files.find((f) => f.size > 2048);
  const files = E.files(c.size, () => [], (s) => { const t = filedText(s); return t === null ? null : sha(Buffer.from(t, 'utf8')); });
  for (let s = 1; s <= c.size; s++) {
    const t = filedText(s), got = E.textMapDigest(files.get(E.textMapPath(c.size, s)), s);
    assert.deepEqual(got, { digest: t === null ? null : sha(Buffer.from(t, 'utf8')) }, 'seq ' + s);
  }
});
