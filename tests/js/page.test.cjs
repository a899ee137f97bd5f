// node --test tests/js/page.test.cjs — the page's pure functions (assets/page.js): the paste
// variants, the §6b normalisation, Dice, the word diff, coverage.
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const path = require('node:path');
const P = require(path.join(__dirname, '..', '..', 'assets', 'page.js'));

const TRAILER = '[gate: 3 of 4 numerals bound \u00b7 ledger 0042]';

test('variants: as pasted, trimmed, trailing newline, collapsed, trailer-less', () => {
  const v = P.variants('Hello  world \r\nsecond line\r\n\r\n' + TRAILER + '\r\n');
  const names = v.map((x) => x.name);
  const texts = new Map(v.map((x) => [x.name, x.text]));
  assert.strictEqual(texts.get('as pasted'), 'Hello  world \nsecond line\n\n' + TRAILER + '\n', 'CRLF becomes LF');
  assert.strictEqual(texts.get('trailing whitespace and newlines trimmed'), 'Hello  world \nsecond line\n\n' + TRAILER);
  assert.ok(!texts.has('with one trailing newline'), 'the same bytes as pasted: listed once');
  assert.strictEqual(P.variants('x').find((y) => y.name === 'with one trailing newline').text, 'x\n');
  assert.ok(names.includes('whitespace runs collapsed within lines'));
  assert.strictEqual(texts.get('the gate trailer and the blank line before it removed'), 'Hello  world \nsecond line');
  assert.strictEqual(texts.get('the gate trailer removed, with one trailing newline'), 'Hello  world \nsecond line\n');
  assert.strictEqual(new Set(v.map((x) => x.text)).size, v.length, 'no duplicate forms');
});

test('stripTrailer only removes a final mark preceded by a blank line', () => {
  assert.strictEqual(P.stripTrailer('a\n\n' + TRAILER), 'a');
  assert.strictEqual(P.stripTrailer('a\n\n' + TRAILER + '\n\n'), 'a');
  assert.strictEqual(P.stripTrailer('a ' + TRAILER), null);
  assert.strictEqual(P.stripTrailer(TRAILER + '\n\nb'), null);
  assert.strictEqual(P.stripTrailer('no mark'), null);
});

test('tokens: NFC, markdown markers removed, _ only at a token edge, trailer removed', () => {
  assert.deepStrictEqual(P.tokens('**Bold** `code` # head > quote [link](url) _em_ sent_sha256\n\n' + TRAILER),
    ['Bold', 'code', 'head', 'quote', 'linkurl', 'em', 'sent_sha256']);
  assert.deepStrictEqual(P.tokens('cafe\u0301'), ['caf\u00e9'], 'NFC');
  assert.deepStrictEqual(P.tokens('  a \t\n b  '), ['a', 'b']);
});

test('dice over multisets', () => {
  assert.strictEqual(P.dice(['a', 'b'], ['a', 'b']), 1);
  assert.strictEqual(P.dice(['a', 'a', 'b'], ['a', 'b', 'b']), 2 * 2 / 6);
  assert.strictEqual(P.dice(['a'], ['b']), 0);
  const a = 'the quick brown fox jumps over the lazy dog'.split(' ');
  const b = 'the quick brown cat jumps over the lazy dog'.split(' ');
  assert.ok(P.dice(a, b) >= P.NEAR_THRESHOLD);
});

test('wordsKey: case, punctuation and markdown set aside', () => {
  assert.strictEqual(P.wordsKey('**Hello**, World!  It\u2019s   here.'), P.wordsKey('hello world it s here'));
  assert.notStrictEqual(P.wordsKey('hello world'), P.wordsKey('hello there world'));
});

test('wordDiff marks the removed and the added word', () => {
  const d = P.wordDiff('a b c d e'.split(' '), 'a b X d e'.split(' '));
  assert.deepStrictEqual(d.filter((x) => x.op === 'del').map((x) => x.word), ['c']);
  assert.deepStrictEqual(d.filter((x) => x.op === 'add').map((x) => x.word), ['X']);
  assert.deepStrictEqual(d.filter((x) => x.op === 'same').map((x) => x.word), ['a', 'b', 'd', 'e']);
  const e = P.wordDiff(['x'], ['y', 'x', 'z']);
  assert.deepStrictEqual(e.map((x) => x.op + ':' + x.word), ['add:y', 'same:x', 'add:z']);
  assert.deepStrictEqual(P.wordDiff([], []), []);
});

test('coverage: pinned, severed, awaiting, as the publisher counts them', () => {
  const all = [1, 2, 3, 4, 5, 6, 7, 8].map((seq) => ({ seq, published: seq !== 3 }));
  const c = P.coverage(all, new Set([5]));
  assert.deepStrictEqual(c.pinned, [4, 5]);
  assert.deepStrictEqual(c.severed, [1, 2]);
  assert.strictEqual(c.severedBy[1], 3);
  assert.deepStrictEqual(P.coverage(all, new Set([2, 5])).pinned, [1, 2, 4, 5]);
  assert.deepStrictEqual(c.awaiting, [6, 7, 8]);
  // a posted head on a withheld seq severs the lines before it
  const d = P.coverage([{ seq: 1, published: true }, { seq: 2, published: false }], new Set([2]));
  assert.deepStrictEqual(d.severed, [1]);
});

test('ranges and base64', () => {
  assert.strictEqual(P.ranges([1, 2, 3, 5, 7, 8]), '1–3, 5, 7–8');
  assert.deepStrictEqual(Array.from(P.b64ToBytes('Zm9v')), [102, 111, 111]);
});
