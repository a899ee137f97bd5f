// node --test tests/js/page.test.cjs — the page's pure functions (assets/page.js): the paste
// variants, the normalisation of docs/protocol.md#proving-one-message, Dice, the word diff, coverage.
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

test('variants: a messenger copy (one newline before the trailer) is re-separated as the gate wrote it', () => {
  const v = P.variants('Hello world\n' + TRAILER);
  const texts = v.map((x) => x.text);
  assert.ok(texts.includes('Hello world\n\n' + TRAILER), texts.join(' | '));
  assert.ok(texts.includes('Hello world'), 'and the trailer-less form');
  // a trailer not at the end is not re-separated
  assert.ok(!P.variants(TRAILER + '\nmore').some((x) => x.text.startsWith(TRAILER + '\n\n')));
});

test('digestOf: a bare digest in any case, a sha256sum line; text is not a digest', () => {
  const h = 'ab'.repeat(32);
  assert.strictEqual(P.digestOf(h), h);
  assert.strictEqual(P.digestOf('  ' + h.toUpperCase() + '\n'), h);
  assert.strictEqual(P.digestOf(h + '  message.txt'), h);
  assert.strictEqual(P.digestOf(h + ' *message.txt\n'), h);
  assert.strictEqual(P.digestOf(h + 'a'), null, '65 hex');
  assert.strictEqual(P.digestOf(h + ' is the digest of my text'), null, 'a sentence, not a sha256sum line');
  assert.strictEqual(P.digestOf('hello'), null);
});

test('fold and wordsKey: case, diacritics, punctuation and markdown set aside', () => {
  assert.strictEqual(P.fold('Café'), 'cafe');
  assert.strictEqual(P.wordsKey('**HELLO**, Wörld!'), P.wordsKey('hello world'));
  assert.strictEqual(P.wordsKey('x\n\n' + TRAILER), 'x');
});

const TEXT = 'The quick brown fox jumps over the lazy dog. Then it ran away into the forest, never to be seen again.';
test('passageMatch: verbatim, same words, nearest, none', () => {
  assert.strictEqual(P.passageMatch('jumps over the lazy dog.', TEXT).verdict, 'passage-verbatim');
  assert.strictEqual(P.passageMatch('JUMPS over the LAZY dog', TEXT).verdict, 'passage-same-words');
  assert.strictEqual(P.passageMatch('jumps  over the lazy\ndog', TEXT).verdict, 'passage-same-words', 'spacing');
  const near = P.passageMatch('jumps over a lazy cat then it ran', TEXT);
  assert.strictEqual(near.verdict, 'passage-nearest');
  assert.strictEqual(near.matched, 6);
  assert.deepStrictEqual(near.ops.filter((o) => o.op === 'sub').length, 2);
  const gap = P.passageMatch('fox jumps over lazy dog', TEXT);
  assert.strictEqual(gap.verdict, 'passage-nearest', 'a dropped word is not the same words');
  assert.deepStrictEqual(gap.ops.filter((o) => o.op === 'del').map((o) => o.t), [6]);
  assert.strictEqual(P.passageMatch('purple elephants dance tonight quietly', TEXT).verdict, null);
  assert.strictEqual(P.passageMatch('the dog', TEXT), null, 'too short to be a passage');
});

test('align: the whole paste aligns; the released text has free ends', () => {
  const a = P.align(['c', 'd', 'e'], ['a', 'b', 'c', 'd', 'e', 'f', 'g']);
  assert.strictEqual(a.matched, 3);
  assert.strictEqual(a.start, 2);
  assert.strictEqual(a.end, 5);
  assert.ok(a.ops.every((o) => o.op === 'same'), 'no penalty for the text around the passage');
  const b = P.align(['x', 'c', 'd'], ['a', 'c', 'd', 'f']);
  assert.deepStrictEqual(b.ops.map((o) => o.op), ['sub', 'same', 'same']);
  const c = P.align(['c', 'y', 'd'], ['c', 'd']);
  assert.deepStrictEqual(c.ops.map((o) => o.op), ['same', 'add', 'same']);
});

test('wordDiff with a key compares folded words (a shouted paste strikes nothing)', () => {
  const d = P.wordDiff(['Hello', 'world'], ['HELLO', 'WORLD!'], (w) => P.fold(w).replace(/\s+/g, ''));
  assert.deepStrictEqual(d.map((x) => x.op), ['same', 'same']);
  assert.deepStrictEqual(d.map((x) => x.word), ['HELLO', 'WORLD!'], 'shown as pasted');
});

const MAGIC = Buffer.from('004f70656e54696d657374616d7073000050726f6f6600bf89e2e884e89294', 'hex');
function header(version, op, digest) { return new Uint8Array(Buffer.concat([MAGIC, Buffer.from([version, op]), Buffer.from(digest, 'hex')])); }
test('checkProofHeader: magic, version 1, the sha256 op, the committed digest', () => {
  const d = 'cd'.repeat(32);
  assert.strictEqual(P.checkProofHeader(header(1, 8, d), d), 'ok');
  assert.strictEqual(P.checkProofHeader(header(1, 8, d), 'ab'.repeat(32)), 'digest_mismatch');
  assert.strictEqual(P.checkProofHeader(header(2, 8, d), d), 'bad_version');
  assert.strictEqual(P.checkProofHeader(header(1, 2, d), d), 'not_sha256');
  const bad = header(1, 8, d); bad[3] ^= 1;
  assert.strictEqual(P.checkProofHeader(bad, d), 'bad_magic');
  assert.strictEqual(P.checkProofHeader(header(1, 8, d).subarray(0, 40), d), 'too_short');
  assert.strictEqual(P.checkProofHeader(MAGIC.subarray(0, 10), d), 'too_short');
});

test('decodeProofHeaders reads what src/publication/render.rs packs', () => {
  const name = 'cd'.repeat(32), other = 'ef'.repeat(32);
  const prefix = Buffer.concat([MAGIC, Buffer.from([1, 8])]);
  const u32 = (n) => { const b = Buffer.alloc(4); b.writeUInt32BE(n); return b; };
  const date = Buffer.from('2026-10-24.txt.ots');
  const block = Buffer.concat([
    Buffer.from([1, 0, 1, prefix.length]), prefix, u32(3),
    // a witness proof whose digest is its name: the flag
    Buffer.from([1]), Buffer.from(name, 'hex'), u32(200), Buffer.from([0, 0, 1]),
    // a witness proof committing to another digest: the bytes
    Buffer.from([1]), Buffer.from(name, 'hex'), u32(200), Buffer.from([0, 0, 0]), Buffer.from(other, 'hex'),
    // an anchor proof
    Buffer.from([0, date.length]), date, u32(65), Buffer.from([0, 0, 0]), Buffer.from(other, 'hex'),
  ]);
  const h = P.decodeProofHeaders(new Uint8Array(block));
  assert.strictEqual(h.length, 3);
  assert.deepStrictEqual(h.map((x) => x.kind), ['witness', 'witness', 'anchor']);
  assert.strictEqual(P.checkProofHeader(h[0].header, h[0].name), 'ok');
  assert.strictEqual(P.checkProofHeader(h[1].header, h[1].name), 'digest_mismatch');
  assert.strictEqual(h[2].name, '2026-10-24.txt.ots');
  assert.strictEqual(P.checkProofHeader(h[2].header, other), 'ok');
  assert.throws(() => P.decodeProofHeaders(new Uint8Array(block.subarray(0, block.length - 3))), /truncated/);
});

test('computeVerdict: failed beats gaps beats intact; vouched is pinned/published', () => {
  const base = { chainOk: true, failures: [], published: 10, pinned: 10, severed: 0, awaiting: 0, unproven: [] };
  assert.strictEqual(P.computeVerdict(base).verdict, 'intact');
  assert.strictEqual(P.computeVerdict(base).vouched, '10/10');
  const g = P.computeVerdict({ ...base, pinned: 7, severed: 2, awaiting: 1 });
  assert.strictEqual(g.verdict, 'gaps');
  assert.strictEqual(g.vouched, '7/10');
  assert.strictEqual(g.gaps.length, 2);
  assert.strictEqual(P.computeVerdict({ ...base, unproven: ['2026-10-24'] }).verdict, 'gaps', 'a head without its proof yet');
  const f = P.computeVerdict({ ...base, pinned: 7, severed: 3, failures: [{ what: 'x', href: '#a' }] });
  assert.strictEqual(f.verdict, 'failed', 'a failure is never outweighed');
  assert.strictEqual(P.computeVerdict({ ...base, chainOk: false }).verdict, 'failed');
  assert.strictEqual(P.computeVerdict({ ...base, chainOk: false }).failures.length, 1);
});

test('the snapshot\'s digests: the last line, a folder\'s sha256sum listing, the keys that differ', () => {
  const crypto = require('node:crypto');
  const sha = (s) => crypto.createHash('sha256').update(s).digest('hex');
  assert.deepStrictEqual(P.lastSnapshotDigests('{"digests":{"a":"1"}}\n{"digests":{"b":"2"}}\n\n'), { b: '2' });
  assert.strictEqual(P.lastSnapshotDigests(''), null);
  assert.strictEqual(P.lastSnapshotDigests('{"digests":{"a":"1"}}\n{}\n'), null, 'the last line has no digests');
  assert.strictEqual(P.lastSnapshotDigests('{"digests":[]}\n'), null);
  assert.strictEqual(P.lastSnapshotDigests('not json\n'), null);
  // `(cd X && find . -type f | sort | xargs sha256sum)` in the C locale: byte order, "a.b" before "a/b".
  const listing = P.folderListing([{ path: 'b', sha256: sha('b') }, { path: 'a/b', sha256: sha('ab') }, { path: 'a.b', sha256: sha('a.b') }]);
  assert.strictEqual(listing, sha('a.b') + '  ./a.b\n' + sha('ab') + '  ./a/b\n' + sha('b') + '  ./b\n');
  assert.strictEqual(P.folderListing([{ path: '\u{1F600}', sha256: 'x' }, { path: '\uFFFF', sha256: 'y' }]), 'y  ./\uFFFF\nx  ./\u{1F600}\n', 'code point order is UTF-8 byte order');
  const recorded = { 'STATS.json': 'aa', '.gitattributes': 'bb', 'anchors/': 'cc', 'segments/': 'dd' };
  const derived = { 'STATS.json': 'aa', 'segments/': 'de', 'readings.json': 'ee' };
  const out = P.snapshotDiffer(recorded, derived, (k) => k !== 'anchors/');
  assert.deepStrictEqual(out.map((x) => [x.file, x.code]), [
    ['ledger/.gitattributes', 'snapshot_digest_mismatch'],
    ['ledger/readings.json', 'snapshot_digest_mismatch'],
    ['ledger/segments/', 'snapshot_digest_mismatch']]);
  assert.match(out[0].detail, /^its sha256 is nothing; the last snapshot names bb/);
  assert.match(out[2].detail, /^its files' listing digest is de; the last snapshot names dd/);
  assert.deepStrictEqual(P.snapshotDiffer(recorded, recorded, () => true), []);
});
