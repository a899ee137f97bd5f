// Tests of the tree view of the chain in assets/verify.js (ExhibitVerify.tree; docs/tree.md).
//   node --test tests/js/
// Every expectation is made here independently: hashes with node:crypto, RFC 6962's MTH, PATH
// and PROOF as the RFC's recursions, the file names and bytes from docs/tree.md's words. No
// expectation comes from the functions under test.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const path = require('node:path');

const V = require(path.join(__dirname, '..', '..', 'assets', 'verify.js'));
const T = V.tree;

// ---------------------------------------------------------------------------------------------
// Independent RFC 6962

const sha = (...parts) => { const h = crypto.createHash('sha256'); parts.forEach((p) => h.update(p)); return h.digest(); };
const leafH = (e) => sha(Buffer.from([0]), e);
const nodeH = (l, r) => sha(Buffer.from([1]), l, r);
const hex = (b) => Buffer.from(b).toString('hex');
const u8 = (b) => new Uint8Array(b);

// A log: its entries and an MTH over any range, memoised (ranges of one log share subtrees).
function makeLog(entries) {
  const leaves = entries.map((e) => leafH(e));
  const memo = new Map();
  function mth(lo, hi) {
    const n = hi - lo;
    if (n === 0) return sha(Buffer.alloc(0));
    if (n === 1) return leaves[lo];
    const key = lo + ',' + hi;
    let v = memo.get(key);
    if (!v) {
      let k = 1;
      while (k * 2 < n) k *= 2;
      v = nodeH(mth(lo, lo + k), mth(lo + k, hi));
      memo.set(key, v);
    }
    return v;
  }
  // RFC 6962 2.1.1 PATH(m, D[lo:hi])
  function pathOf(m, lo, hi) {
    const n = hi - lo;
    if (n === 1) return [];
    let k = 1;
    while (k * 2 < n) k *= 2;
    return m < k ? pathOf(m, lo, lo + k).concat([mth(lo + k, hi)]) : pathOf(m - k, lo + k, hi).concat([mth(lo, lo + k)]);
  }
  // RFC 6962 2.1.2 PROOF(m, D[n]) = SUBPROOF(m, D[n], true)
  function subproof(m, lo, hi, b) {
    const n = hi - lo;
    if (m === n) return b ? [] : [mth(lo, hi)];
    let k = 1;
    while (k * 2 < n) k *= 2;
    return m <= k ? subproof(m, lo, lo + k, b).concat([mth(lo + k, hi)]) : subproof(m - k, lo + k, hi, false).concat([mth(lo, lo + k)]);
  }
  return {
    entries, leaves, mth,
    root: (n) => mth(0, n),
    path: (i, n) => pathOf(i, 0, n),
    proof: (m, n) => (m === 0 || m === n ? [] : subproof(m, 0, n, true)),
  };
}

const entryOf = (i) => sha('entry ' + i);
// Cheap entries for large trees: the index in the first 4 bytes.
function cheapEntries(n) {
  const out = new Array(n);
  for (let i = 0; i < n; i++) { const b = new Uint8Array(32); b[0] = i >>> 24; b[1] = i >>> 16; b[2] = i >>> 8; b[3] = i; b[31] = 7; out[i] = b; }
  return out;
}
const HEAD = 'ab'.repeat(32);
const treeOf = (entries, extra = {}) => T.expectedTreeFiles(Object.assign({ entries: entries.map(u8), lineBytes: () => null, digestsOf: () => [], origin: 'test/log', headHex: HEAD }, extra));
const eqBytes = (a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)) === 0;
const hexList = (l) => l.map(hex);

// tlog-tiles' number, written here from its words: three-digit groups, x before all but the last.
function tlogNumber(n) {
  let s = String(n);
  while (s.length % 3) s = '0' + s;
  const groups = s.match(/.../g);
  return groups.map((g, i) => (i < groups.length - 1 ? 'x' + g : g)).join('/');
}
const widthPart = (w) => (w === 256 ? '' : '.p/' + w);

// The names docs/tree.md#layout says the tree at size n has.
function namesAt(n) {
  const names = ['checkpoint'];
  for (let L = 0; Math.floor(n / 256 ** L) > 0; L++) {
    const m = Math.floor(n / 256 ** L);
    for (let N = 0; N * 256 < m; N++) {
      const w = Math.min(256, m - 256 * N);
      names.push('tile/' + L + '/' + tlogNumber(N) + widthPart(w));
      if (L === 0) names.push('tile/entries/' + tlogNumber(N) + widthPart(w), 'lines/' + tlogNumber(N) + widthPart(w));
    }
  }
  const B = Math.floor(n / 1024);
  for (let k = 0; 16 ** k <= B; k++) {
    for (let r = 0; (r + 1) * 16 ** k <= B; r++) {
      for (let p = 0; p < 16 ** (k + 1); p++) names.push('index/' + k + '/' + r + '/' + p.toString(16).padStart(k + 1, '0'));
    }
  }
  if (n % 1024) names.push('index/tail/' + B + '.p/' + (n % 1024));
  return names.sort();
}

// ---------------------------------------------------------------------------------------------
// Hashes and roots

test('leaf and node hashes are RFC 6962\'s', () => {
  for (let i = 0; i < 50; i++) {
    const e = entryOf(i), f = entryOf(i + 1000);
    assert.equal(hex(T.leafHash(u8(e))), hex(leafH(e)));
    assert.equal(hex(T.nodeHash(u8(e), u8(f))), hex(nodeH(e, f)));
  }
  assert.throws(() => T.leafHash(new Uint8Array(31)), TypeError);
  assert.throws(() => T.nodeHash(new Uint8Array(32), new Uint8Array(33)), TypeError);
});

test('rootOf is the MTH for sizes 0 to 20; the empty tree is SHA-256 of nothing', () => {
  assert.equal(hex(T.rootOf([])), 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  assert.equal(hex(T.EMPTY_ROOT), 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  const log = makeLog(Array.from({ length: 20 }, (_, i) => entryOf(i)));
  for (let n = 0; n <= 20; n++) {
    assert.equal(hex(T.rootOf(log.leaves.slice(0, n).map(u8))), hex(log.root(n)), 'size ' + n);
  }
});

test('the tiles re-assemble the root around 256 and 65536 leaves, and hold the level hashes', () => {
  const entries = cheapEntries(65537);
  const log = makeLog(entries);
  for (const n of [1, 255, 256, 257, 65535, 65536, 65537]) {
    const files = treeOf(entries.slice(0, n));
    const cp = T.parseCheckpoint(files.get('checkpoint'));
    assert.equal(hex(cp.root), hex(log.root(n)), 'checkpoint root at ' + n);
    assert.equal(hex(T.rootFromTiles(n, files)), hex(log.root(n)), 'root from tiles at ' + n);
    // The root from the tiles rootTiles names, and only those.
    const only = new Map(T.rootTiles(n).map((p) => [p, files.get(p)]));
    assert.equal(hex(T.rootFromTiles(n, only)), hex(log.root(n)));
    assert.deepEqual([...files.keys()].filter((k) => k.startsWith('tile/') && !k.startsWith('tile/entries/')).sort(),
      namesAt(n).filter((k) => k.startsWith('tile/') && !k.startsWith('tile/entries/')), 'hash tiles at ' + n);
    // Every hash of every tile: level-L hash k is the MTH of leaves k·256^L … (k+1)·256^L − 1.
    for (const [p, bytes] of files) {
      const t = T.parseTreePath(p);
      if (t.kind !== 'tile') continue;
      assert.equal(bytes.length, 32 * t.width, p);
      const span = 256 ** t.level;
      for (let j = 0; j < t.width; j += (t.level ? 1 : 97)) {
        const k = 256 * t.n + j;
        assert.equal(hex(bytes.subarray(32 * j, 32 * j + 32)), hex(log.mth(k * span, (k + 1) * span)), p + ' hash ' + j);
      }
    }
  }
  const f65537 = treeOf(entries);
  assert.ok(f65537.has('tile/2/000.p/1') && f65537.has('tile/1/000') && f65537.has('tile/0/256.p/1') && f65537.has('tile/0/255'));
  assert.ok(!f65537.has('tile/1/001.p/0') && !f65537.has('tile/3/000.p/1'));
});

// ---------------------------------------------------------------------------------------------
// Proofs

const flips = (proof) => {
  const out = [];
  proof.forEach((node, j) => {
    for (let b = 0; b < 32; b++) {
      const p = proof.map((x) => u8(x));
      p[j] = u8(node); p[j][b] ^= 1 << (b % 8);
      out.push(p);
    }
  });
  return out;
};
const drops = (proof) => proof.map((_, j) => proof.filter((__, i) => i !== j).map(u8));
const adds = (proof, extra) => [proof.concat([extra]).map(u8), [extra].concat(proof).map(u8), proof.length ? proof.slice(0, 1).concat([extra], proof.slice(1)).map(u8) : null].filter(Boolean);

test('inclusion proofs from tiles for every leaf of trees up to 40: RFC 6962 PATH, and they verify only as they are', () => {
  const all = Array.from({ length: 41 }, (_, i) => entryOf(i));
  const log = makeLog(all);
  const junk = u8(sha('junk'));
  for (let n = 1; n <= 40; n++) {
    const files = treeOf(all.slice(0, n)), root = u8(log.root(n));
    for (let i = 0; i < n; i++) {
      const need = T.neededTiles(n, i);
      const tiles = new Map(need.map((p) => [p, files.get(p)]));
      const proof = T.inclusionProof(n, i, tiles);
      assert.deepEqual(hexList(proof), hexList(log.path(i, n)), 'PATH(' + i + ', ' + n + ')');
      const leaf = u8(log.leaves[i]);
      assert.equal(T.checkInclusion(proof, n, root, i, leaf), true, i + ' in ' + n);
      for (const p of flips(proof)) assert.equal(T.checkInclusion(p, n, root, i, leaf), false);
      for (const p of drops(proof)) assert.equal(T.checkInclusion(p, n, root, i, leaf), false);
      for (const p of adds(proof, junk)) assert.equal(T.checkInclusion(p, n, root, i, leaf), false);
      // An added copy of a real node, too.
      if (proof.length) assert.equal(T.checkInclusion(proof.concat([proof[0]]), n, root, i, leaf), false);
      for (let b = 0; b < 32; b += 5) {
        const l2 = leaf.slice(); l2[b] ^= 0x80;
        const r2 = root.slice(); r2[b] ^= 0x80;
        assert.equal(T.checkInclusion(proof, n, root, i, l2), false);
        assert.equal(T.checkInclusion(proof, n, r2, i, leaf), false);
      }
      for (let i2 = 0; i2 <= n + 1; i2++) if (i2 !== i) assert.equal(T.checkInclusion(proof, n, root, i2, leaf), false, 'index ' + i2 + ' for ' + i + ' in ' + n);
      // Another size, with that size's root: only when the proof is that size's proof too.
      for (let n2 = 1; n2 <= 41; n2++) {
        if (n2 === n) continue;
        const same = i < n2 && hexList(log.path(i, n2)).join() === hexList(proof).join();
        assert.equal(T.checkInclusion(proof, n2, u8(log.root(n2)), i, leaf), same, 'size ' + n2 + ' for ' + i + ' in ' + n);
      }
      if (n > 1) assert.equal(T.checkInclusion(proof.map((x) => x.subarray(0, 31)), n, root, i, leaf), false);
    }
    assert.equal(T.checkInclusion([], n, root, n, u8(log.leaves[0])), false, 'index = size');
    assert.throws(() => T.neededTiles(n, n), RangeError);
  }
  assert.equal(T.checkInclusion([], 1, u8(log.leaves[0]), 0, u8(log.leaves[0])), true, 'one leaf: the root is its hash');
  assert.equal(T.checkInclusion([], 0, u8(T.EMPTY_ROOT), 0, u8(log.leaves[0])), false);
});

test('consistency proofs from tiles for every 1 ≤ m ≤ n ≤ 40: RFC 6962 PROOF, and they verify only as they are', () => {
  const all = Array.from({ length: 41 }, (_, i) => entryOf(i));
  const log = makeLog(all);
  const junk = u8(sha('junk'));
  const roots = Array.from({ length: 42 }, (_, n) => u8(log.root(n)));
  for (let n = 1; n <= 40; n++) {
    const files = treeOf(all.slice(0, n));
    for (let m = 1; m <= n; m++) {
      const tiles = new Map(T.consistencyTiles(m, n).map((p) => [p, files.get(p)]));
      const proof = T.consistencyProof(m, n, tiles);
      assert.deepEqual(hexList(proof), hexList(log.proof(m, n)), 'PROOF(' + m + ', ' + n + ')');
      assert.equal(T.checkConsistency(proof, m, roots[m], n, roots[n]), true, m + ' to ' + n);
      for (const p of flips(proof)) assert.equal(T.checkConsistency(p, m, roots[m], n, roots[n]), false);
      for (const p of drops(proof)) assert.equal(T.checkConsistency(p, m, roots[m], n, roots[n]), false);
      for (const p of adds(proof, junk)) assert.equal(T.checkConsistency(p, m, roots[m], n, roots[n]), false, 'added node ' + m + ' to ' + n);
      if (proof.length) assert.equal(T.checkConsistency(proof.concat([proof[proof.length - 1]]), m, roots[m], n, roots[n]), false);
      for (let b = 0; b < 32; b += 7) {
        const o2 = roots[m].slice(); o2[b] ^= 1;
        const n2 = roots[n].slice(); n2[b] ^= 1;
        assert.equal(T.checkConsistency(proof, m, o2, n, roots[n]), false);
        assert.equal(T.checkConsistency(proof, m, roots[m], n, n2), false);
      }
      // Other sizes with their own roots: only when this is their proof too.
      for (let m2 = 1; m2 <= n + 1; m2++) {
        if (m2 === m) continue;
        const same = m2 <= n && hexList(log.proof(m2, n)).join() === hexList(proof).join() && (m2 !== n || proof.length === 0);
        assert.equal(T.checkConsistency(proof, m2, roots[m2], n, roots[n]), same, 'old size ' + m2 + ' for ' + m + ' to ' + n);
      }
      for (let n2 = m; n2 <= 41; n2++) {
        if (n2 === n) continue;
        const same = hexList(log.proof(m, n2)).join() === hexList(proof).join();
        assert.equal(T.checkConsistency(proof, m, roots[m], n2, roots[n2]), same, 'new size ' + n2 + ' for ' + m + ' to ' + n);
      }
      if (m < n) {
        assert.equal(T.checkConsistency(proof, n, roots[n], m, roots[m]), false, 'sizes swapped');
        assert.equal(T.checkConsistency(proof, m, roots[n], n, roots[m]), false, 'roots swapped');
        assert.equal(T.checkConsistency([], m, roots[m], n, roots[n]), false, 'empty proof');
      }
    }
    // Equal sizes: the empty proof and equal roots only.
    assert.equal(T.checkConsistency([], n, roots[n], n, roots[n]), true);
    assert.equal(T.checkConsistency([roots[n]], n, roots[n], n, roots[n]), false);
    assert.equal(T.checkConsistency([], n, roots[n], n, roots[n - 1]), false);
    // From the empty tree: no proof, as crates/protocol/src/tree.rs (tlog) has it.
    assert.equal(T.checkConsistency([], 0, u8(T.EMPTY_ROOT), n, roots[n]), false);
    assert.equal(T.checkConsistency([roots[n]], 0, u8(T.EMPTY_ROOT), n, roots[n]), false);
    assert.throws(() => T.consistencyProof(0, n, new Map()), RangeError);
    assert.throws(() => T.consistencyTiles(0, n), RangeError);
    assert.deepEqual(T.consistencyProof(n, n, new Map()), []);
    assert.throws(() => T.consistencyTiles(n + 1, n), RangeError);
  }
});

test('proofs at 65537 and 70001 leaves read level-1 and level-2 tiles, exactly the ones named', () => {
  const entries = cheapEntries(70001);
  const log = makeLog(entries);
  for (const n of [65537, 70001]) {
    const files = treeOf(entries.slice(0, n)), root = u8(log.root(n));
    for (const i of [0, 1, 255, 256, 4095, 4096, 65535, 65536, n - 1]) {
      const need = T.neededTiles(n, i);
      need.forEach((p) => assert.ok(files.has(p), p + ' is a file of the tree at ' + n));
      const tiles = new Map(need.map((p) => [p, files.get(p)]));
      const proof = T.inclusionProof(n, i, tiles);
      assert.deepEqual(hexList(proof), hexList(log.path(i, n)), 'PATH(' + i + ', ' + n + ')');
      assert.equal(T.checkInclusion(proof, n, root, i, u8(log.leaves[i])), true);
      // Each tile named is read: without it there is no proof.
      for (const p of need) {
        const less = new Map(tiles); less.delete(p);
        assert.throws(() => T.inclusionProof(n, i, less), new RegExp(p.replace(/\./g, '\\.')));
      }
    }
    for (const m of [1, 255, 256, 257, 4096, 65535, 65536, 65537, n - 1]) {
      if (m > n) continue;
      const need = T.consistencyTiles(m, n);
      const tiles = new Map(need.map((p) => [p, files.get(p)]));
      const proof = T.consistencyProof(m, n, tiles);
      assert.deepEqual(hexList(proof), hexList(log.proof(m, n)), 'PROOF(' + m + ', ' + n + ')');
      assert.equal(T.checkConsistency(proof, m, u8(log.root(m)), n, root), true);
      for (const p of need) {
        const less = new Map(tiles); less.delete(p);
        assert.throws(() => T.consistencyProof(m, n, less), Error);
      }
    }
  }
  // A tile of the wrong length is refused, not read past.
  const files = treeOf(entries.slice(0, 300));
  const bad = new Map(files); bad.set('tile/0/001.p/44', files.get('tile/0/001.p/44').subarray(0, 32 * 43));
  assert.throws(() => T.inclusionProof(300, 299, bad), /holds 1376 bytes, not 1408/);
});

// ---------------------------------------------------------------------------------------------
// Names

test('tile numbers are written as tlog-tiles writes them', () => {
  assert.equal(T.tilePath(0, 1234067), 'tile/0/x001/x234/067');
  assert.equal(T.tilePath(0, 0), 'tile/0/000');
  assert.equal(T.tilePath(3, 5), 'tile/3/005');
  assert.equal(T.tilePath(0, 999), 'tile/0/999');
  assert.equal(T.tilePath(0, 1000), 'tile/0/x001/000');
  assert.equal(T.tilePath(1, 1000000), 'tile/1/x001/x000/000');
  assert.equal(T.tilePath(2, 5, 3), 'tile/2/005.p/3');
  assert.equal(T.tilePath(0, 5, 256), 'tile/0/005');
  assert.equal(T.entriesPath(1234067, 255), 'tile/entries/x001/x234/067.p/255');
  assert.equal(T.linesPath(7), 'lines/007');
  assert.equal(T.linesPath(7, 1), 'lines/007.p/1');
  assert.equal(T.indexRunPath(1, 12, 'ab'), 'index/1/12/ab');
  assert.equal(T.indexTailPath(976, 576), 'index/tail/976.p/576');
  for (const w of [0, 257, 1.5, -1]) assert.throws(() => T.tilePath(0, 1, w), RangeError);
  assert.throws(() => T.tilePath(0, -1), RangeError);
  assert.throws(() => T.indexRunPath(1, 0, 'a'), RangeError);
  assert.throws(() => T.indexRunPath(0, 0, 'A'), RangeError);
  assert.throws(() => T.indexTailPath(0, 1024), RangeError);
  for (const n of [0, 1, 9, 10, 999, 1000, 1001, 999999, 1000000, 123456789012345]) assert.equal(T.tilePath(0, n), 'tile/0/' + tlogNumber(n));
});

test('parseTreePath reads each name the layout writes, and only in its one spelling', () => {
  const ok = {
    'checkpoint': { kind: 'checkpoint' },
    'tile/0/000': { kind: 'tile', level: 0, n: 0, width: 256 },
    'tile/0/x001/x234/067.p/5': { kind: 'tile', level: 0, n: 1234067, width: 5 },
    'tile/7/x001/000': { kind: 'tile', level: 7, n: 1000, width: 256 },
    'index/14/3/0123456789abcde': { kind: 'index', level: 14, run: 3, prefix: '0123456789abcde' },
    'tile/entries/005.p/255': { kind: 'entries', n: 5, width: 255 },
    'lines/x999/999.p/1': { kind: 'lines', n: 999999, width: 1 },
    'index/0/0/a': { kind: 'index', level: 0, run: 0, prefix: 'a' },
    'index/2/13/0f9': { kind: 'index', level: 2, run: 13, prefix: '0f9' },
    'index/tail/976.p/576': { kind: 'tail', block: 976, width: 576 },
    'index/tail/0.p/1023': { kind: 'tail', block: 0, width: 1023 },
  };
  for (const [p, want] of Object.entries(ok)) assert.deepEqual(T.parseTreePath(p), want, p);
  const refused = [
    'tile/0/6', 'tile/0/0006', 'tile/0/06', 'tile/0/x000/005', 'tile/0/x01/005', 'tile/0/x1234/005', 'tile/0/001/005',
    'tile/0/005.p/0', 'tile/0/005.p/256', 'tile/0/005.p/300', 'tile/0/005.p/007', 'tile/0/005.p/', 'tile/0/005.p', 'tile/0/005/',
    'tile/00/005', 'tile/01/005', 'tile/8/005', 'tile/64/005', 'index/15/0/0123456789abcdef', 'tile//005', 'tile/x/005', '/tile/0/005', 'tile/0/005 ', 'Tile/0/005',
    'tile/entries/5', 'tile/entries/x000/001', 'tile/entries/001.p/256', 'tile/data/000',
    'lines/5', 'lines/000.p/00', 'lines/', 'lines/x001',
    'index/00/0/a', 'index/0/01/a', 'index/0/0/A', 'index/0/0/ab', 'index/1/0/a', 'index/1/0/abc', 'index/0/0/g', 'index/0/0/', 'index/0/a',
    'index/tail/01.p/5', 'index/tail/0.p/1024', 'index/tail/0.p/0', 'index/tail/0.p/05', 'index/tail/0', 'index/tail/x001.p/5',
    'checkpoint/', 'Checkpoint', 'checkpoint.1', '', 'ledger/tree/checkpoint', 'STATS.json',
  ];
  for (const p of refused) assert.equal(T.parseTreePath(p), null, p);
  // Every name the tree at a size has parses, and writes back to itself.
  for (const p of namesAt(70001)) {
    const t = T.parseTreePath(p);
    assert.ok(t, p);
    const back = t.kind === 'checkpoint' ? 'checkpoint' : t.kind === 'tile' ? T.tilePath(t.level, t.n, t.width)
      : t.kind === 'entries' ? T.entriesPath(t.n, t.width) : t.kind === 'lines' ? T.linesPath(t.n, t.width)
        : t.kind === 'index' ? T.indexRunPath(t.level, t.run, t.prefix) : T.indexTailPath(t.block, t.width);
    assert.equal(back, p);
  }
});

// ---------------------------------------------------------------------------------------------
// The checkpoint

const ROOT32 = u8(sha('a root'));
const b64 = (b) => Buffer.from(b).toString('base64');
const cpBytes = (s) => Buffer.from(s, 'utf8');

test('the checkpoint text, and its reading', () => {
  const text = T.checkpointText('example.github.io/exhibit', 300, ROOT32, 300, HEAD);
  assert.equal(text, 'example.github.io/exhibit\n300\n' + b64(ROOT32) + '\nexhibit-head 300 ' + HEAD + '\n');
  const p = T.parseCheckpoint(cpBytes(text));
  assert.equal(p.error, undefined);
  assert.equal(p.origin, 'example.github.io/exhibit');
  assert.equal(p.size, 300);
  assert.equal(hex(p.root), hex(ROOT32));
  assert.equal(p.headSeq, 300);
  assert.equal(p.headHex, HEAD);
  assert.deepEqual(p.extensions, ['exhibit-head 300 ' + HEAD]);
  assert.equal(p.signed, false);
  const zero = T.parseCheckpoint(cpBytes(T.checkpointText('o', 0, u8(T.EMPTY_ROOT), 0, HEAD)));
  assert.equal(zero.size, 0);
  assert.equal(hex(zero.root), 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  // A signed note: signature lines after an empty line are taken, not checked.
  const signed = T.parseCheckpoint(cpBytes(text + '\n\u2014 example.org/witness AAAAAQ==\n\u2014 other ZZZ+/9==\n'));
  assert.equal(signed.error, undefined);
  assert.equal(signed.signed, true);
  assert.equal(signed.signatures.length, 2);
  assert.equal(signed.size, 300);
  // More extension lines are kept, in order.
  const ext = T.parseCheckpoint(cpBytes(text + 'another-extension 1\n'));
  assert.deepEqual(ext.extensions, ['exhibit-head 300 ' + HEAD, 'another-extension 1']);
  // A non-ASCII origin is UTF-8.
  assert.equal(T.parseCheckpoint(cpBytes(T.checkpointText('exhibit/ünï', 1, ROOT32, 1, HEAD))).origin, 'exhibit/ünï');
  for (const bad of [['', 1], ['a\nb', 1], ['o', -1], ['o', 1.5]]) assert.throws(() => T.checkpointText(bad[0], bad[1], ROOT32, 1, HEAD));
  assert.throws(() => T.checkpointText('o', 1, ROOT32.subarray(0, 31), 1, HEAD), TypeError);
  assert.throws(() => T.checkpointText('o', 1, ROOT32, 1, HEAD.toUpperCase()), TypeError);
});

test('a checkpoint that is not one is refused, naming why', () => {
  const good = (over = {}) => {
    const f = Object.assign({ origin: 'o', size: '300', root: b64(ROOT32), head: 'exhibit-head 300 ' + HEAD, tail: '' }, over);
    return f.origin + '\n' + f.size + '\n' + f.root + '\n' + f.head + '\n' + f.tail;
  };
  assert.equal(T.parseCheckpoint(cpBytes(good())).error, undefined);
  const r31 = b64(ROOT32.subarray(0, 31)), r33 = b64(Buffer.concat([Buffer.from(ROOT32), Buffer.from([1])]));
  const last = b64(ROOT32);
  // The same 32 bytes with a non-zero unused bit: one text per root.
  const B = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  const loose = last.slice(0, 42) + B[B.indexOf(last[42]) | 1] + '=';
  assert.notEqual(loose, last);
  assert.equal(Buffer.from(loose, 'base64').toString('hex'), hex(ROOT32), 'node reads the loose text as the same root');
  const cases = {
    'a size with a leading zero': good({ size: '0300', head: 'exhibit-head 0300 ' + HEAD }),
    'a size with a sign': good({ size: '+300' }),
    'a size in hex': good({ size: '0x12c' }),
    'an empty size': good({ size: '' }),
    'a size past 2^53': good({ size: '9007199254740993', head: 'exhibit-head 9007199254740993 ' + HEAD }),
    'URL-safe base64': good({ root: last.replace(/\+/g, '-').replace(/\//g, '_').replace(/^./, '-') }),
    'base64 without padding': good({ root: last.slice(0, 43) }),
    'base64 with a space': good({ root: ' ' + last }),
    'a 31-byte root': good({ root: r31 }),
    'a 33-byte root': good({ root: r33 }),
    'a root in hex': good({ root: hex(ROOT32) }),
    'a non-canonical base64 root': good({ root: loose }),
    'no final LF': good().slice(0, -1),
    'CRLF lines': good().replace(/\n/g, '\r\n'),
    'an empty origin': good({ origin: '' }),
    'no exhibit-head line': 'o\n300\n' + last + '\n',
    'exhibit-head with an uppercase digest': good({ head: 'exhibit-head 300 ' + HEAD.toUpperCase() }),
    'exhibit-head with a short digest': good({ head: 'exhibit-head 300 ' + HEAD.slice(2) }),
    'exhibit-head with a third word': good({ head: 'exhibit-head 300 ' + HEAD + ' x' }),
    'exhibit-head with a seq past 2^53': good({ head: 'exhibit-head 9007199254740993 ' + HEAD }),
    'a CR in the origin': good({ origin: 'o\r' }),
    'over 64 KiB': good({ tail: 'x'.repeat(65536) + '\n' }),
    'two exhibit-head lines': good({ tail: 'exhibit-head 300 ' + HEAD + '\n' }),
    'an empty line and no signature': good({ tail: '\n' }),
    'two empty lines': good({ tail: '\n\n\u2014 a AAAA\n' }),
    'not UTF-8': null,
    'empty': '',
  };
  assert.match(T.parseCheckpoint(cpBytes(good({ size: '0300' }))).error, /line 2/);
  assert.match(T.parseCheckpoint(cpBytes(good({ root: r31 }))).error, /line 3/);
  assert.match(T.parseCheckpoint(cpBytes(good({ head: 'exhibit-head 0300 ' + HEAD }))).error, /exhibit-head line is not/);
  // Read as crates/protocol/src/tree.rs reads it: the exhibit-head line among the extension
  // lines, its seq held to the size by the check, not here; signature lines not read.
  const later = T.parseCheckpoint(cpBytes(good({ head: 'other 1\nexhibit-head 300 ' + HEAD })));
  assert.deepEqual([later.error, later.headSeq, later.extensions], [undefined, 300, ['other 1', 'exhibit-head 300 ' + HEAD]]);
  const off = T.parseCheckpoint(cpBytes(good({ head: 'exhibit-head 299 ' + HEAD })));
  assert.deepEqual([off.error, off.size, off.headSeq], [undefined, 300, 299]);
  const sig = T.parseCheckpoint(cpBytes(good({ tail: '\nany line\n' })));
  assert.deepEqual([sig.error, sig.signed, sig.signatures], [undefined, true, ['any line']]);
  assert.equal(T.parseCheckpoint(cpBytes(good({ tail: 'exhibit-head\n' }))).error, undefined, '`exhibit-head` alone is another extension');
  for (const [why, text] of Object.entries(cases)) {
    const bytes = text === null ? Buffer.concat([cpBytes(good()), Buffer.from([0xff, 0x0a])]) : cpBytes(text);
    const p = T.parseCheckpoint(bytes);
    assert.equal(typeof p.error, 'string', why + ' is refused');
    assert.equal(p.root, undefined, why);
  }
});

// ---------------------------------------------------------------------------------------------
// The files of the tree at a size

// A fake chain: entries, withheld seqs, lines, digests (repeated across lines and within one).
function fakeChain(n, withheld) {
  const entries = [], lines = new Map(), digests = new Map();
  for (let seq = 1; seq <= n; seq++) {
    entries.push(u8(sha('entry ' + seq)));
    if (withheld.has(seq)) continue;
    lines.set(seq, Buffer.from('{"entry":"' + seq + '","kind":"send"}\n'));
    const ds = [];
    if (seq % 5 !== 0) {
      const sent = sha('message ' + (seq % 97)).toString('hex');  // the same message sent again: one digest, many lines
      ds.push(sent);
      ds.push(seq % 2 ? sent : sha('checked ' + seq).toString('hex'));  // checked = sent on odd seqs: one row
      if (seq % 3 === 0) ds.push(sha('stripped ' + seq).toString('hex'), sha('draft ' + seq).toString('hex'));
    }
    digests.set(seq, ds);
  }
  return {
    entries, lines, digests, withheld,
    input: (origin = 'test/log') => ({
      entries, origin, headHex: hex(entries[n - 1] || sha('header')),
      lineBytes: (seq) => (lines.has(seq) ? u8(lines.get(seq)) : null),
      digestsOf: (seq) => digests.get(seq) || [],
    }),
  };
}

// The files docs/tree.md says the chain's tree has, made here from its words.
function filesByTheDoc(chain, origin = 'test/log') {
  const n = chain.entries.length, out = new Map();
  const log = makeLog(chain.entries.map((e) => Buffer.from(e)));
  for (let L = 0; Math.floor(n / 256 ** L) > 0; L++) {
    const m = Math.floor(n / 256 ** L), span = 256 ** L;
    for (let N = 0; N * 256 < m; N++) {
      const w = Math.min(256, m - 256 * N), hashes = [], bundle = [], lines = [];
      for (let k = 256 * N; k < 256 * N + w; k++) {
        hashes.push(log.mth(k * span, (k + 1) * span));
        if (L === 0) {
          bundle.push(Buffer.from([0, 32]), Buffer.from(chain.entries[k]));
          if (chain.lines.has(k + 1)) lines.push(chain.lines.get(k + 1));
        }
      }
      out.set('tile/' + L + '/' + tlogNumber(N) + widthPart(w), Buffer.concat(hashes));
      if (L === 0) {
        out.set('tile/entries/' + tlogNumber(N) + widthPart(w), Buffer.concat(bundle));
        out.set('lines/' + tlogNumber(N) + widthPart(w), Buffer.concat(lines));
      }
    }
  }
  const rows = [];
  for (const [seq, ds] of chain.digests) {
    for (const d of new Set(ds)) {
      const r = Buffer.alloc(16);
      Buffer.from(d.slice(0, 16), 'hex').copy(r, 0);
      r.writeBigUInt64BE(BigInt(seq), 8);
      rows.push({ seq, d, r });
    }
  }
  const file = (sel) => Buffer.concat(rows.filter(sel).map((x) => x.r).sort(Buffer.compare));
  const B = Math.floor(n / 1024);
  for (let k = 0; 16 ** k <= B; k++) {
    const per = 1024 * 16 ** k;
    for (let r = 0; (r + 1) * 16 ** k <= B; r++) {
      for (let p = 0; p < 16 ** (k + 1); p++) {
        const prefix = p.toString(16).padStart(k + 1, '0');
        out.set('index/' + k + '/' + r + '/' + prefix, file((x) => x.seq > r * per && x.seq <= (r + 1) * per && x.d.startsWith(prefix)));
      }
    }
  }
  if (n % 1024) out.set('index/tail/' + B + '.p/' + (n % 1024), file((x) => x.seq > 1024 * B));
  out.set('checkpoint', Buffer.from(origin + '\n' + n + '\n' + b64(log.root(n)) + '\nexhibit-head ' + n + ' ' + hex(chain.entries[n - 1] || sha('header')) + '\n'));
  return out;
}

function assertSameFiles(got, want) {
  assert.deepEqual([...got.keys()].sort(), [...want.keys()].sort(), 'the file names');
  for (const [p, bytes] of want) assert.ok(eqBytes(got.get(p), bytes), p + ': ' + got.get(p).length + ' bytes, expected ' + bytes.length);
}

test('expectedTreeFiles at 300 seqs: the files and bytes the doc gives', () => {
  const chain = fakeChain(300, new Set([3, 256, 257, 299]));
  const got = T.expectedTreeFiles(chain.input());
  assert.deepEqual([...got.keys()].sort(), [
    'checkpoint', 'index/tail/0.p/300', 'lines/000', 'lines/001.p/44', 'tile/0/000', 'tile/0/001.p/44', 'tile/1/000.p/1',
    'tile/entries/000', 'tile/entries/001.p/44',
  ]);
  assertSameFiles(got, filesByTheDoc(chain));
  // Bundles are 00 20 ‖ entry a leaf, withheld ones included.
  const bundle = Buffer.from(got.get('tile/entries/001.p/44'));
  assert.equal(bundle.length, 44 * 34);
  assert.equal(bundle.subarray(0, 34).toString('hex'), '0020' + hex(chain.entries[256]));
  // lines/ leaves out the withheld seqs 256, 257, 299.
  const l1 = Buffer.from(got.get('lines/001.p/44')).toString();
  assert.ok(!l1.includes('"entry":"257"') && !l1.includes('"entry":"299"') && l1.startsWith('{"entry":"258"'));
  assert.ok(!Buffer.from(got.get('lines/000')).toString().includes('"entry":"256"'));
  assert.equal(l1.split('\n').length - 1, 44 - 2);
});

test('expectedTreeFiles at 2100 seqs: level-0 index runs, a block of lines all withheld, the tail', () => {
  const withheld = new Set([1, 700, 1024, 1025, 2100]);
  for (let s = 513; s <= 768; s++) withheld.add(s);
  const chain = fakeChain(2100, withheld);
  const got = T.expectedTreeFiles(chain.input());
  assert.deepEqual([...got.keys()].sort(), namesAt(2100));
  assert.ok(got.has('tile/0/008.p/52') && got.has('tile/1/000.p/8') && got.has('index/0/1/f') && got.has('index/tail/2.p/52'));
  assert.ok(![...got.keys()].some((k) => k.startsWith('index/1/')), 'no level-1 run before 16 blocks');
  assert.equal(got.get('lines/002').length, 0, 'a lines file whose seqs are all withheld is empty, and there');
  assertSameFiles(got, filesByTheDoc(chain));
  // eachTreeFile hands over the same files, one at a time.
  const seen = [];
  T.eachTreeFile(chain.input(), (p, bytes) => { seen.push(p); assert.ok(eqBytes(bytes, got.get(p)), p); });
  assert.deepEqual(seen.slice().sort(), [...got.keys()].sort());
  assert.equal(new Set(seen).size, seen.length, 'each file once');
  // Rows: 16 bytes, in byte order (not seq order), one per distinct digest of a line.
  const tail = Buffer.from(got.get('index/tail/2.p/52'));
  assert.equal(tail.length % 16, 0);
  for (let o = 16; o < tail.length; o += 16) assert.ok(Buffer.compare(tail.subarray(o - 16, o), tail.subarray(o, o + 16)) < 0, 'sorted, no duplicate');
  const seqsInTail = [];
  for (let o = 0; o < tail.length; o += 16) seqsInTail.push(Number(tail.readBigUInt64BE(o + 8)));
  assert.notDeepEqual(seqsInTail, seqsInTail.slice().sort((a, b) => a - b), 'byte order is not seq order here');
  const rowsOf = (seq) => seqsInTail.filter((s) => s === seq).length;
  assert.equal(rowsOf(2051), 1, 'sent = checked: one row');
  assert.equal(rowsOf(2054), 2, 'sent and a checked of its own');
  assert.equal(rowsOf(2049), 3, 'sent = checked, stripped, draft');
  assert.equal(rowsOf(2052), 4, 'sent, checked, stripped, draft');
  assert.equal(rowsOf(2055), 0, 'no digest');
  assert.equal(rowsOf(2100), 0, 'withheld: no row');
});

test('expectedTreeFiles at 16500 seqs: a level-1 run repeats its 16 level-0 runs; lookups find every line', () => {
  const chain = fakeChain(16500, new Set([5, 6, 7, 16385, 16499]));
  const got = T.expectedTreeFiles(chain.input());
  assert.deepEqual([...got.keys()].sort(), namesAt(16500));
  assert.equal([...got.keys()].filter((k) => k.startsWith('index/1/0/')).length, 256);
  assert.equal([...got.keys()].filter((k) => k.startsWith('index/0/')).length, 16 * 16);
  assert.ok(got.has('index/tail/16.p/116') && got.has('tile/1/000.p/64') && got.has('tile/0/064.p/116'));
  assertSameFiles(got, filesByTheDoc(chain));
  // A level-1 bucket holds exactly the rows of the 16 level-0 buckets under it.
  for (const pre of ['00', '3c', 'ff']) {
    const one = Buffer.from(got.get('index/1/0/' + pre));
    const parts = [];
    for (let r = 0; r < 16; r++) {
      const f = Buffer.from(got.get('index/0/' + r + '/' + pre[0]));
      for (let o = 0; o < f.length; o += 16) if (f.subarray(o, o + 1).toString('hex') === pre) parts.push(f.subarray(o, o + 16));
    }
    assert.ok(eqBytes(one, Buffer.concat(parts.sort(Buffer.compare))), 'index/1/0/' + pre);
  }
  // Every digest, looked up at this size by the paths named, gives back every seq carrying it.
  const carriers = new Map();
  for (const [seq, ds] of chain.digests) for (const d of ds) { if (!carriers.has(d)) carriers.set(d, new Set()); carriers.get(d).add(seq); }
  const some = [...carriers.keys()].filter((_, i) => i % 211 === 0).concat([sha('message 1').toString('hex')]);
  for (const d of some) {
    const paths = T.indexLookupPaths(16500, d);
    assert.deepEqual(paths, ['index/1/0/' + d.slice(0, 2), 'index/tail/16.p/116']);
    const found = [];
    for (const p of paths) found.push(...T.indexSeqs(got.get(p), d));
    assert.deepEqual(found.sort((a, b) => a - b), [...carriers.get(d)].sort((a, b) => a - b), d);
  }
  assert.deepEqual(T.indexSeqs(got.get('index/tail/16.p/116'), sha('nowhere').toString('hex')), []);
});

test('index rows are ordered by all 16 bytes: digests alike in their first 4 or all 8 bytes', () => {
  // Seq order is the reverse of byte order in bytes 4-7; equal 8-byte prefixes go by seq.
  const base = '1234abcd';
  const ds = new Map([
    [1, [base + 'ffffffff' + '0'.repeat(48)]],
    [2, [base + '00000001' + '0'.repeat(48), base + 'ffffffff' + '1'.repeat(48)]],
    [3, [base + '00000000' + 'f'.repeat(48)]],
    [4, [base + '80000000' + 'e'.repeat(48)]],
    [5, ['ff'.repeat(32)]],
    [6, ['00'.repeat(32)]],
  ]);
  const entries = Array.from({ length: 1030 }, (_, i) => u8(sha('e' + i)));
  const got = T.expectedTreeFiles({ entries, origin: 'o', headHex: HEAD, lineBytes: () => null, digestsOf: (s) => ds.get(s) || [] });
  const rows = (p) => { const b = Buffer.from(got.get(p)), out = []; for (let o = 0; o < b.length; o += 16) out.push(b.subarray(o, o + 8).toString('hex') + ':' + Number(b.readBigUInt64BE(o + 8))); return out; };
  assert.deepEqual(rows('index/0/0/1'), [base + '00000000:3', base + '00000001:2', base + '80000000:4', base + 'ffffffff:1', base + 'ffffffff:2']);
  assert.deepEqual(rows('index/0/0/0'), ['0000000000000000:6']);
  assert.deepEqual(rows('index/0/0/f'), ['ffffffffffffffff:5']);
  assert.deepEqual(T.indexSeqs(got.get('index/0/0/1'), base + 'ffffffff' + '2'.repeat(48)), [1, 2]);
  assert.equal(got.get('index/tail/1.p/6').length, 0, 'a tail with no row is an empty file');
});

test('expectedTreeFiles at 0 and 1024 seqs, and refusals of its input', () => {
  const empty = T.expectedTreeFiles({ entries: [], lineBytes: () => null, digestsOf: () => [], origin: 'o', headHex: HEAD });
  assert.deepEqual([...empty.keys()], ['checkpoint']);
  assert.equal(Buffer.from(empty.get('checkpoint')).toString(), 'o\n0\n47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=\nexhibit-head 0 ' + HEAD + '\n');
  const chain = fakeChain(1024, new Set());
  const got = T.expectedTreeFiles(chain.input());
  assert.deepEqual([...got.keys()].sort(), namesAt(1024));
  assert.ok(![...got.keys()].some((k) => k.startsWith('index/tail/')), 'no tail at a multiple of 1024');
  assertSameFiles(got, filesByTheDoc(chain));
  const input = chain.input();
  assert.throws(() => T.expectedTreeFiles(Object.assign({}, input, { entries: input.entries.slice(0, 3).concat([new Uint8Array(31)]) })), /entries\[3\]/);
  assert.throws(() => T.expectedTreeFiles(Object.assign({}, input, { origin: '' })), TypeError);
  assert.throws(() => T.expectedTreeFiles(Object.assign({}, input, { headHex: 'x' })), TypeError);
  assert.throws(() => T.expectedTreeFiles(Object.assign({}, input, { lineBytes: null })), TypeError);
});

// ---------------------------------------------------------------------------------------------
// Holding a site to the re-derivation

test('checkTreeFiles: nothing to say of the tree as built, whatever its origin or signatures', () => {
  const chain = fakeChain(300, new Set([3]));
  const expected = T.expectedTreeFiles(chain.input('a/b'));
  const actual = new Map(filesByTheDoc(chain, 'some.other/origin'));
  assert.deepEqual(T.checkTreeFiles(expected, actual, [...actual.keys()]), []);
  actual.set('checkpoint', Buffer.concat([actual.get('checkpoint'), Buffer.from('\n\u2014 witness AAAA\n')]));
  assert.deepEqual(T.checkTreeFiles(expected, actual, [...actual.keys()].map((k) => 'ledger/tree/' + k)), []);
});

test('checkTreeFiles: each tampering gives its code, sorted by file', () => {
  const chain = fakeChain(300, new Set([3]));
  const expected = T.expectedTreeFiles(chain.input());
  const fresh = () => new Map(filesByTheDoc(chain));
  const run = (actual, names) => T.checkTreeFiles(expected, actual, names || [...actual.keys()]);
  const codes = (ps) => ps.map((p) => [p.file, p.code]);

  let a = fresh(); a.delete('tile/0/000');
  assert.deepEqual(codes(run(a)), [['ledger/tree/tile/0/000', 'tree_file_missing']]);
  a = fresh();
  assert.deepEqual(codes(run(a, [...a.keys()].filter((k) => k !== 'lines/000'))), [], 'a name given with its bytes is present');
  a = fresh(); a.set('lines/000', undefined);
  assert.deepEqual(codes(run(a, [...a.keys()])), [['ledger/tree/lines/000', 'tree_file_missing']], 'present, not read');

  a = fresh(); const b = Buffer.from(a.get('tile/entries/001.p/44')); b[40] ^= 1; a.set('tile/entries/001.p/44', b);
  const differs = run(a);
  assert.deepEqual(codes(differs), [['ledger/tree/tile/entries/001.p/44', 'tree_file_differs']]);
  assert.match(differs[0].detail, /byte 40/);
  a = fresh(); a.set('lines/001.p/44', Buffer.concat([a.get('lines/001.p/44'), Buffer.from('x\n')]));
  assert.deepEqual(codes(run(a)), [['ledger/tree/lines/001.p/44', 'tree_file_differs']]);
  a = fresh(); a.set('index/tail/0.p/300', Buffer.alloc(0));
  assert.deepEqual(codes(run(a)), [['ledger/tree/index/tail/0.p/300', 'tree_file_differs']]);

  a = fresh(); a.set('tile/0/001.p/40', a.get('tile/0/001.p/44').subarray(0, 1280));
  assert.deepEqual(codes(run(a)), [['ledger/tree/tile/0/001.p/40', 'tree_stray']], 'a narrower partial tile left behind');
  a = fresh();
  assert.deepEqual(codes(run(a, [...a.keys(), 'index/0/0/a', 'index/tail/0.p/299', 'notes.txt', 'tile/0/6'])), [
    ['ledger/tree/index/0/0/a', 'tree_stray'], ['ledger/tree/index/tail/0.p/299', 'tree_stray'],
    ['ledger/tree/notes.txt', 'tree_stray'], ['ledger/tree/tile/0/6', 'tree_stray']]);

  // The checkpoint.
  const cp = Buffer.from(expected.get('checkpoint')).toString();
  const withCp = (text) => { const m = fresh(); if (text === null) m.delete('checkpoint'); else m.set('checkpoint', Buffer.from(text)); return m; };
  const other = T.rootOf([u8(leafH(sha('x')))]);
  const lines = cp.split('\n');
  const cases = {
    missing: null,
    'not a checkpoint': 'hello\n',
    'another root': [lines[0], lines[1], b64(other), lines[3], ''].join('\n'),
    'another size': [lines[0], '299', lines[2], 'exhibit-head 299 ' + lines[3].split(' ')[2], ''].join('\n'),
    'another head': [lines[0], lines[1], lines[2], 'exhibit-head 300 ' + 'cd'.repeat(32), ''].join('\n'),
    'exhibit-head seq not the size': [lines[0], lines[1], lines[2], 'exhibit-head 299 ' + lines[3].split(' ')[2], ''].join('\n'),
    'a truncated file': cp.slice(0, -1),
  };
  for (const [why, text] of Object.entries(cases)) {
    const ps = run(withCp(text));
    assert.deepEqual(codes(ps), [['ledger/tree/checkpoint', 'tree_checkpoint']], why);
  }
  assert.match(run(withCp(cases['another size']))[0].detail, /size is 299/);
  // Another extension line, as signatures, is not compared (nor by exhibit verify SITE).
  assert.deepEqual(run(withCp(cp + 'extra 1\n')), []);
  assert.match(run(withCp(cases['another root']))[0].detail, /root/);

  // Several at once: one list, by file.
  a = fresh(); a.delete('tile/1/000.p/1'); a.set('checkpoint', Buffer.from('x'));
  const l = Buffer.from(a.get('lines/000')); l[0] ^= 1; a.set('lines/000', l);
  const ps = run(a, [...a.keys(), 'tile/2/000.p/1']);
  assert.deepEqual(codes(ps), [
    ['ledger/tree/checkpoint', 'tree_checkpoint'], ['ledger/tree/lines/000', 'tree_file_differs'],
    ['ledger/tree/tile/1/000.p/1', 'tree_file_missing'], ['ledger/tree/tile/2/000.p/1', 'tree_stray']]);
  ps.forEach((p) => assert.ok(T.CODES.includes(p.code) && typeof p.detail === 'string' && p.detail.length > 0));
});

// ---------------------------------------------------------------------------------------------
// Index lookups

test('indexLookupPaths covers the whole blocks greedily from the highest level, then the tail', () => {
  const d = '3f' + 'a0'.repeat(31);
  assert.deepEqual(T.indexLookupPaths(0, d), []);
  assert.deepEqual(T.indexLookupPaths(5, d), ['index/tail/0.p/5']);
  assert.deepEqual(T.indexLookupPaths(1023, d), ['index/tail/0.p/1023']);
  assert.deepEqual(T.indexLookupPaths(1024, d), ['index/0/0/3']);
  assert.deepEqual(T.indexLookupPaths(1025, d), ['index/0/0/3', 'index/tail/1.p/1']);
  assert.deepEqual(T.indexLookupPaths(15 * 1024, d), Array.from({ length: 15 }, (_, r) => 'index/0/' + r + '/3'));
  assert.deepEqual(T.indexLookupPaths(16 * 1024, d), ['index/1/0/3f']);
  assert.deepEqual(T.indexLookupPaths(17 * 1024 + 5, d), ['index/1/0/3f', 'index/0/16/3', 'index/tail/17.p/5']);
  assert.deepEqual(T.indexLookupPaths(256 * 1024, d), ['index/2/0/3fa']);
  // A million lines: B = 976 = 0x3d0 blocks: 3 level-2 runs, 13 level-1 runs, the tail.
  const million = T.indexLookupPaths(1000000, d);
  assert.deepEqual(million, ['index/2/0/3fa', 'index/2/1/3fa', 'index/2/2/3fa']
    .concat(Array.from({ length: 13 }, (_, i) => 'index/1/' + (48 + i) + '/3f'), ['index/tail/976.p/576']));
  // Every path a lookup names is a file of the tree at that size.
  for (const n of [1024, 17 * 1024 + 5, 70001, 300000]) {
    const names = new Set(namesAt(n));
    for (const p of T.indexLookupPaths(n, d)) assert.ok(names.has(p), p + ' at ' + n);
  }
  assert.throws(() => T.indexLookupPaths(10, d.toUpperCase()), TypeError);
});

test('indexSeqs reads 16-byte rows, matching on the first 8 bytes, and fails soft on a torn file', () => {
  const d = sha('m').toString('hex'), other = sha('n').toString('hex');
  const row = (dg, seq) => { const r = Buffer.alloc(16); Buffer.from(dg.slice(0, 16), 'hex').copy(r); r.writeBigUInt64BE(BigInt(seq), 8); return r; };
  const near = d.slice(0, 15) + (d[15] === '0' ? '1' : '0') + d.slice(16);
  const sameprefix = d.slice(0, 16) + 'f'.repeat(48);
  const f = Buffer.concat([row(other, 1), row(d, 7), row(near, 8), row(sameprefix, 9), row(d, 4294967296 + 3)]);
  assert.deepEqual(T.indexSeqs(f, d), [7, 9, 4294967296 + 3]);
  assert.deepEqual(T.indexSeqs(new Uint8Array(0), d), []);
  assert.equal(typeof T.indexSeqs(f.subarray(0, 17), d).error, 'string');
  assert.equal(typeof T.indexSeqs(f, 'zz').error, 'string');
});

// ---------------------------------------------------------------------------------------------
// The same answers in a worker with no TextEncoder/TextDecoder

test('the tree is the same in a bare worker (self, no TextEncoder/TextDecoder)', () => {
  const fs = require('node:fs');
  const vm = require('node:vm');
  const bare = {};
  bare.self = bare;
  vm.createContext(bare);
  vm.runInContext(fs.readFileSync(path.join(__dirname, '..', '..', 'assets', 'verify.js'), 'utf8'), bare);
  const script = `(function () {
    var T = self.ExhibitVerify.tree, entries = [];
    for (var i = 0; i < 600; i++) { var e = new Uint8Array(32); e[0] = i >> 8; e[1] = i & 255; entries.push(e); }
    var files = T.expectedTreeFiles({ entries: entries, origin: 'exhibit/ü', headHex: '${HEAD}',
      lineBytes: function (s) { return s % 3 ? new Uint8Array([97, 10]) : null; }, digestsOf: function () { return []; } });
    var cp = T.parseCheckpoint(files.get('checkpoint'));
    var proof = T.inclusionProof(600, 599, files);
    return { origin: cp.origin, size: cp.size, root: Array.from(cp.root), names: Array.from(files.keys()).sort(),
      ok: T.checkInclusion(proof, 600, cp.root, 599, T.leafHash(entries[599])) };
  })()`;
  const r = vm.runInContext(script, bare);
  const entries = Array.from({ length: 600 }, (_, i) => { const e = new Uint8Array(32); e[0] = i >> 8; e[1] = i & 255; return e; });
  assert.equal(r.origin, 'exhibit/ü');
  assert.equal(r.size, 600);
  assert.equal(hex(Uint8Array.from(r.root)), hex(makeLog(entries).root(600)));
  assert.deepEqual([...r.names], namesAt(600));
  assert.equal(r.ok, true);
});

test('treeFileNames gives the names the doc gives at each size, without the bytes', () => {
  for (const n of [0, 1, 255, 256, 257, 1023, 1024, 1025, 2100, 16383, 16384, 16500, 65536, 65537, 70001, 1048576]) {
    assert.deepEqual(T.treeFileNames(n).slice().sort(), namesAt(n), 'size ' + n);
  }
  assert.equal(new Set(T.treeFileNames(16500)).size, T.treeFileNames(16500).length, 'each name once');
  assert.throws(() => T.treeFileNames(-1));
  assert.throws(() => T.treeFileNames(1.5));
});

test('lineEntryId re-derives a line\'s entry_id alone, and refuses a line the chain would not take', () => {
  // A line written here: its core is the canonical dump without entry_id, hashed with sha256.
  const core = '{"day":"2026-10-24","kind":"exec_scan","prev":"' + 'ab'.repeat(32) + '","schema":"darkflobi.gate/entry/v0","seq":7,"timestamp":"2026-10-24T13:00:00Z"}';
  const id = crypto.createHash('sha256').update(core).digest('hex');
  const line = core.replace('"day"', '"day"').replace(',"kind"', ',"entry_id":"' + id + '","kind"');
  const got = V.lineEntryId(Buffer.from(line));
  assert.equal(got.error, undefined, JSON.stringify(got));
  assert.equal(got.entry_id, id);
  assert.equal(got.seq, 7);
  // Another entry_id stated; not canonical (a space); a key twice; not JSON; no entry_id.
  assert.match(V.lineEntryId(Buffer.from(line.replace(id, 'cd'.repeat(32)))).error, /not the sha256 of its core/);
  assert.match(V.lineEntryId(Buffer.from(line.replace('"seq":7', '"seq": 7'))).error, /canonical/);
  assert.match(V.lineEntryId(Buffer.from(line.replace('"seq":7', '"seq":7,"seq":7'))).error, /duplicate_key|canonical/);
  assert.match(V.lineEntryId(Buffer.from(line.slice(0, -1))).error, /not a JSON object/);
  assert.match(V.lineEntryId(Buffer.from(core)).error, /no entry_id/);
});
