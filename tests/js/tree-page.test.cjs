// node --test tests/js/tree-page.test.cjs — the page's own answers about the tree (assets/page.js;
// docs/page.md "The log-size path", docs/tree.md): the leaves of a chain, the checkpoint held
// to them, the seq a trailer or a paste names, the posted heads, the returning visitor's plan,
// and the estimate of the full check. Every expectation is made here: the root by RFC 6962's
// recursion over node:crypto, the checkpoint text from docs/tree.md#checkpoint's words.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const path = require('node:path');
const P = require(path.join(__dirname, '..', '..', 'assets', 'page.js'));
const V = require(path.join(__dirname, '..', '..', 'assets', 'verify.js'));

const sha = (...parts) => { const h = crypto.createHash('sha256'); parts.forEach((p) => h.update(p)); return h.digest(); };
const idOf = (i) => sha('line ' + i).toString('hex');
function mth(leaves) {
  if (leaves.length === 0) return sha(Buffer.alloc(0));
  if (leaves.length === 1) return leaves[0];
  let k = 1;
  while (k * 2 < leaves.length) k *= 2;
  return sha(Buffer.from([1]), mth(leaves.slice(0, k)), mth(leaves.slice(k)));
}
const rootOf = (hexes) => mth(hexes.map((h) => sha(Buffer.from([0]), Buffer.from(h, 'hex'))));
const cpText = (origin, size, root, headSeq, head) => Buffer.from(origin + '\n' + size + '\n' + Buffer.from(root).toString('base64') + '\nexhibit-head ' + headSeq + ' ' + head + '\n');

test('treeLeaves: seq i+1 is leaf i, a published line\'s derived id or the withheld digest', () => {
  const lines = [1, 2, 4, 6].map((q) => ({ seq: q, id: idOf(q + 100), did: idOf(q) }));
  const withheld = [{ seq: 3, entry_id: idOf(30) }, { seq: 5, entry_id: idOf(50) }, { seq: 7, entry_id: idOf(70) }];
  const got = P.treeLeaves(lines, withheld);
  assert.equal(got.size, 7, 'a withheld seq after the last line extends the tree');
  assert.deepEqual(got.entries, [idOf(1), idOf(2), idOf(30), idOf(4), idOf(50), idOf(6), idOf(70)]);
  // The derived id is the leaf, not the stated one: a record without it is no leaf.
  assert.match(P.treeLeaves([{ seq: 1, did: idOf(1) }, { seq: 3, did: idOf(3) }], []).error, /seq 2 is neither/);
  assert.deepEqual(P.treeLeaves([], []), { size: 0, entries: [] });
});

test('checkpointHolds: size, root and exhibit-head against the chain; the origin is read, not compared', () => {
  const ids = [1, 2, 3, 4, 5].map(idOf), head = ids[4], root = rootOf(ids);
  const good = P.checkpointHolds(V.tree, cpText('any/origin', 5, root, 5, head), ids, head);
  assert.equal(good.problem, null);
  assert.equal(good.cp.origin, 'any/origin');
  assert.equal(Buffer.from(good.root).toString('hex'), root.toString('hex'));
  // Each field wrong on its own is named.
  assert.match(P.checkpointHolds(V.tree, cpText('o', 4, root, 5, head), ids, head).problem, /size is 4 where the chain has 5/);
  assert.match(P.checkpointHolds(V.tree, cpText('o', 5, rootOf(ids.slice(0, 4)), 5, head), ids, head).problem, /its root is/);
  assert.match(P.checkpointHolds(V.tree, cpText('o', 5, root, 4, head), ids, head).problem, /exhibit-head is 4/);
  assert.match(P.checkpointHolds(V.tree, cpText('o', 5, root, 5, ids[3]), ids, head).problem, /exhibit-head/);
  // A leaf changed anywhere changes the root: the tree of another chain does not hold.
  const other = ids.slice(); other[1] = idOf(99);
  assert.match(P.checkpointHolds(V.tree, cpText('o', 5, root, 5, head), other, head).problem, /its root is/);
  assert.match(P.checkpointHolds(V.tree, Buffer.from('not a checkpoint\n'), ids, head).problem, /not a checkpoint/);
  assert.match(P.checkpointHolds(V.tree, null, ids, head).problem, /carries no checkpoint/);
  // The empty ledger: size 0, the root of nothing, its head the header digest.
  const empty = P.checkpointHolds(V.tree, cpText('o', 0, sha(Buffer.alloc(0)), 0, head), [], head);
  assert.equal(empty.problem, null);
});

test('trailerSeq reads the last trailer as the CLI does; pasteSeq a bare seq', () => {
  const t = (n) => 'Body.\n\n[gate: 3 of 4 numerals bound \u00b7 ledger ' + n + ']';
  assert.equal(P.trailerSeq(t('0042')), 42);
  assert.equal(P.trailerSeq(t('7') + '\r\n'), 7);
  assert.equal(P.trailerSeq('[gate: x \u00b7 ledger 1] then ' + t('9')), 9, 'the last one');
  assert.equal(P.trailerSeq('no trailer'), null);
  assert.equal(P.trailerSeq('[gate: a\nb \u00b7 ledger 5]'), null, 'not across a line');
  assert.equal(P.trailerSeq(t('12345678901234567')), null, 'more than 16 digits');
  assert.equal(P.trailerSeq('[gate: x \u00b7 ledger ]'), null);
  assert.equal(P.pasteSeq('1234'), 1234);
  assert.equal(P.pasteSeq(' seq 77 \n'), 77);
  assert.equal(P.pasteSeq('SEQ12'), 12);
  assert.equal(P.pasteSeq('0'), null);
  assert.equal(P.pasteSeq('12 apples'), null);
  assert.equal(P.pasteSeq('ab'.repeat(32)), null);
});

test('postedHeads: the exact form only, by seq; the last is the newest', () => {
  const H = (c) => c.repeat(64);
  const got = P.postedHeads([
    { date: '2026-10-25', text: 'gate anchor 2026-10-25 head ' + H('b') + ' seq 20' },
    { date: '2026-10-24', text: 'gate anchor 2026-10-24 head ' + H('a') + ' seq 10' },
    { date: '2026-10-26', text: 'gate anchor 2026-10-26 head ' + H('c') + ' seq 30\n' },
    { date: '2026-10-27', text: 'gate anchor 2026-10-28 head ' + H('d') + ' seq 40' },
    { date: '2026-10-29', text: 'gate anchor 2026-10-29 head ' + H('E') + ' seq 50' },
  ]);
  assert.deepEqual(got, [{ date: '2026-10-24', head: H('a'), seq: 10 }, { date: '2026-10-25', head: H('b'), seq: 20 }]);
});

test('historyPlan: nothing remembered, another log, a cut history, a proof due', () => {
  const cp = { origin: 'o', size: 10 };
  assert.deepEqual(P.historyPlan(null, cp), { kind: 'first' });
  assert.deepEqual(P.historyPlan({ origin: 'o', size: 'x', root: 'r' }, cp), { kind: 'first' });
  assert.deepEqual(P.historyPlan({ origin: 'p', size: 3, root: 'r' }, cp), { kind: 'other-log' });
  assert.deepEqual(P.historyPlan({ origin: 'o', size: 11, root: 'r' }, cp), { kind: 'cut' });
  assert.deepEqual(P.historyPlan({ origin: 'o', size: 10, root: 'r' }, cp), { kind: 'consistency', from: 10 });
  assert.deepEqual(P.historyPlan({ origin: 'o', size: 4, root: 'r' }, cp), { kind: 'consistency', from: 4 });
});

test('fullCheckEstimate: the ledger\'s files, the last one left out when carried, and the tree', () => {
  const files = [{ bytes: 1000 }, { bytes: 2000 }, { bytes: 500 }];
  const carried = P.fullCheckEstimate(files, new Uint8Array(500), 100);
  const fetched = P.fullCheckEstimate(files, null, 100);
  assert.equal(carried.ledger, 3000);
  assert.equal(fetched.ledger, 3500);
  assert.ok(carried.tree >= 3500 + 66 * 100, 'lines/ repeats the ledger; tiles and bundles 66 bytes a seq');
  assert.equal(carried.total, carried.ledger + carried.tree);
  assert.ok(P.fullCheckEstimate(files, null, 1 << 20).tree > P.fullCheckEstimate(files, null, 1 << 19).tree * 1.9);
});
