// The resumable verifier (assets/verify.js `Verifier`, docs/page.md "The light page"):
//   node --test tests/js/
// A light page streams the published ledger file by file and a returning visitor resumes from a
// checkpoint taken at a file boundary. Both must give exactly the answer of one pass over the
// whole ledger: on the demo exhibit's ledger (with its withheld list and posts) and on every
// conformance vector, cut at line boundaries and inside lines.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.join(__dirname, '..', '..');
const V = require(path.join(ROOT, 'assets', 'verify.js'));
const DEMO = path.join(ROOT, 'site-fixtures', 'demo.expected', 'ledger');

const bytesOf = (p) => new Uint8Array(fs.readFileSync(p));
const lineEnds = (b) => { const out = []; for (let i = 0; i < b.length; i++) if (b[i] === 10) out.push(i + 1); return out; };

// The parts of an answer that must not depend on how the bytes arrived.
function answer(r) {
  return {
    ok: r.ok, entries: r.entries, head: r.head, problems: r.problems, bridged: r.bridged,
    headerDigest: r.headerDigest, anchorTz: r.anchorTz, lineCount: r.lineCount, linesTotal: r.linesTotal
  };
}

// Pushes `bytes` cut at `cuts`; at each cut in `resumeAt` the verifier is checkpointed, thrown
// away, and a new one resumes from the checkpoint (through JSON, as localStorage stores it).
function streamed(bytes, withheld, cuts, resumeAt, watch) {
  let v = new V.Verifier(withheld, null, { watchSeqs: watch });
  const lines = [];
  let at = 0;
  for (const c of cuts.concat([bytes.length])) {
    v.push(bytes.subarray(at, c));
    at = c;
    if (resumeAt.has(c)) {
      const cp = v.checkpoint();
      assert.ok(cp, 'a checkpoint exists at a line boundary (' + c + ')');
      lines.push(...v.takeLines());
      v = new V.Verifier(withheld, null, { watchSeqs: watch, checkpoint: JSON.parse(JSON.stringify(cp)) });
    }
  }
  const r = v.finish();
  r.lines = lines.concat(r.lines);
  return r;
}

const demo = {
  ledger: bytesOf(path.join(DEMO, 'ledger.jsonl')),
  withheld: bytesOf(path.join(DEMO, 'withheld.json')),
  posts: fs.readdirSync(path.join(DEMO, 'anchors')).filter((n) => /^\d{4}-\d\d-\d\d\.txt$/.test(n)).sort()
    .map((n) => ({ date: n.slice(0, 10), text: bytesOf(path.join(DEMO, 'anchors', n)) }))
};
const postSeqs = demo.posts.map((p) => (/ seq (\d+)$/.exec(Buffer.from(p.text).toString('latin1')) || [])[1]).filter(Boolean);

test('the demo ledger streamed file by file and resumed at every boundary equals one pass', () => {
  const one = V.verifyLedger(demo.ledger, demo.withheld);
  assert.ok(one.ok, 'the demo ledger re-derives');
  assert.ok(demo.posts.length > 1 && postSeqs.length === demo.posts.length, 'the demo has posts to check');
  const ends = lineEnds(demo.ledger);
  // files of about 4 KiB, cut at line boundaries, as the build cuts segments
  const cuts = [];
  let size = 0, last = 0;
  for (const e of ends) { if (e - last + size > 4096 && size) { cuts.push(last); size = 0; } size += e - last; last = e; }
  assert.ok(cuts.length >= 3, 'several files');
  const s = streamed(demo.ledger, demo.withheld, cuts, new Set(cuts), postSeqs);
  assert.deepEqual(answer(s), answer(one));
  assert.equal(s.lines.length, one.lines.length);
  assert.deepEqual(s.lines.map((l) => [l.line, l.seq, l.entry_id, l.derived_entry_id, l.codes]),
    one.lines.map((l) => [l.line, l.seq, l.entry_id, l.derived_entry_id, l.codes]));
  // the anchor checks from the streamed state equal those from the line records
  assert.deepEqual(V.checkAnchors(s, demo.withheld, demo.posts), V.checkAnchors(one, demo.withheld, demo.posts));
  const a = V.checkAnchors(s, demo.withheld, demo.posts);
  assert.ok(a.some((x) => x.ok), 'some posted head checks out');
});

test('a line cut between two pieces is carried over; no checkpoint is offered there', () => {
  const one = V.verifyLedger(demo.ledger, demo.withheld);
  const v = new V.Verifier(demo.withheld, null, {});
  const mid = lineEnds(demo.ledger)[3] + 17;
  v.push(demo.ledger.subarray(0, mid));
  assert.equal(v.checkpoint(), null, 'inside a line there is no checkpoint');
  v.push(demo.ledger.subarray(mid));
  assert.deepEqual(answer(v.finish()), answer(one));
});

test('a broken line before the checkpoint is still reported after resuming', () => {
  const b = demo.ledger.slice();
  const ends = lineEnds(b);
  b[ends[5] + 30] ^= 1; // flips a bit in line 7
  const one = V.verifyLedger(b, demo.withheld);
  assert.ok(!one.ok);
  const s = streamed(b, demo.withheld, [ends[10], ends[20]], new Set([ends[10], ends[20]]), postSeqs);
  assert.deepEqual(answer(s), answer(one));
});

test('a resumed verifier that is not handed the rest does not report the rest: the checkpoint is the prefix', () => {
  // catches a checkpoint that smuggles in anything beyond what was read
  const ends = lineEnds(demo.ledger);
  const v = new V.Verifier(demo.withheld, null, {});
  v.push(demo.ledger.subarray(0, ends[9]));
  const cp = v.checkpoint();
  const r = new V.Verifier(demo.withheld, null, { checkpoint: cp }).finish();
  const one = V.verifyLedger(demo.ledger.subarray(0, ends[9]), demo.withheld);
  assert.deepEqual(answer(r), answer(one));
  assert.equal(cp.lineNo, 10);
});

test('every conformance vector, cut at each line boundary and resumed, equals one pass', () => {
  const doc = JSON.parse(fs.readFileSync(path.join(ROOT, 'vectors', 'vectors.json'), 'utf8'));
  let n = 0;
  for (const c of doc.cases) {
    const bytes = new Uint8Array(Buffer.from(c.ledger_b64, 'base64'));
    const withheld = c.withheld_b64 !== undefined ? new Uint8Array(Buffer.from(c.withheld_b64, 'base64'))
      : c.withheld !== undefined ? new Uint8Array(Buffer.from(JSON.stringify(c.withheld))) : null;
    let one;
    try { one = V.verifyLedger(bytes, withheld); } catch (e) { continue; } // a usage error: not a stream case
    const ends = lineEnds(bytes).filter((e) => e < bytes.length);
    const s = streamed(bytes, withheld, ends, new Set(ends), []);
    assert.deepEqual(answer(s), answer(one), c.name);
    // and cut inside lines, no resume
    const odd = [];
    for (let i = 7; i < bytes.length; i += 13) odd.push(i);
    assert.deepEqual(answer(streamed(bytes, withheld, odd, new Set(), [])), answer(one), c.name + ' (cut inside lines)');
    n++;
  }
  assert.ok(n > 20, 'most vectors ran: ' + n);
});

// ---------------------------------------------------------------------------------------------
// The page's side of the stream (assets/page.js): the monitor's comparison and the reader that
// runs in the worker.
const P = require(path.join(ROOT, 'assets', 'page.js'));

const hex = (c) => c.repeat(64);
const list = (specs) => specs.map(([p, bytes, c]) => ({ path: p, bytes: bytes, sha256: hex(c), first_seq: null, last_seq: null }));
const mem = {
  bytes: 300, head: hex('e'), head_seq: 9,
  files: [{ path: 'ledger/ledger.jsonl', bytes: 100, sha256: hex('a'), full: true },
    { path: 'ledger/segments/000001.jsonl', bytes: 100, sha256: hex('b'), full: true },
    { path: 'ledger/segments/000002.jsonl', bytes: 100, sha256: hex('c'), full: false }],
  checkpoint: { v: 1, lastSeq: 6, ids: [['6', [hex('d')]]], dayLast: [['2026-10-24', 6, [hex('d')]]] },
  withheld_sha: 'W6'
};
const wsha = (seq) => 'W' + seq;

test('the monitor resumes after the remembered full files when they are unchanged and extended', () => {
  const now = list([['ledger/ledger.jsonl', 100, 'a'], ['ledger/segments/000001.jsonl', 100, 'b'], ['ledger/segments/000002.jsonl', 180, '1'], ['ledger/segments/000003.jsonl', 50, '2']]);
  const r = P.compareMemory(mem, now, wsha, ['6', '12']);
  assert.equal(r.rewritten, null);
  assert.equal(r.resumeFrom, 2, 'the two full files are not read again');
  assert.equal(r.checkpoint, mem.checkpoint);
});

test('the monitor names a changed, moved or vanished file, a shorter ledger, a changed withheld list', () => {
  const ok = [['ledger/ledger.jsonl', 100, 'a'], ['ledger/segments/000001.jsonl', 100, 'b'], ['ledger/segments/000002.jsonl', 100, 'c']];
  const cases = [
    [[ok[0], ['ledger/segments/000001.jsonl', 100, 'f'], ok[2]], 'ledger/segments/000001.jsonl', 'bytes changed'],
    [[ok[0], ['ledger/segments/000001.jsonl', 101, 'b'], ok[2]], 'ledger/segments/000001.jsonl', 'bytes changed'],
    [[ok[0], ['ledger/segments/000009.jsonl', 100, 'b'], ok[2]], 'ledger/segments/000001.jsonl', 'no longer'],
    [[ok[0], ok[1]], 'ledger/segments/000002.jsonl', 'gone'],
    [[ok[0], ok[1], ['ledger/segments/000002.jsonl', 90, 'c']], 'ledger/segments/000002.jsonl', 'shorter'],
    [[ok[0], ok[1], ['ledger/segments/000002.jsonl', 100, '9']], 'ledger/segments/000002.jsonl', 'same size']
  ];
  for (const [specs, file, why] of cases) {
    const r = P.compareMemory(mem, list(specs), wsha, []);
    assert.ok(r.rewritten, JSON.stringify(specs));
    assert.equal(r.rewritten.file, file);
    assert.match(r.rewritten.why, new RegExp(why));
    assert.equal(r.resumeFrom, 0, 'then read from the first line');
  }
  const r = P.compareMemory(mem, list(ok), () => 'other', []);
  assert.equal(r.rewritten.file, 'ledger/withheld.json');
});

test('a post naming a remembered seq whose digest was not kept: read again, not a rewrite', () => {
  const now = list([['ledger/ledger.jsonl', 100, 'a'], ['ledger/segments/000001.jsonl', 100, 'b'], ['ledger/segments/000002.jsonl', 100, 'c']]);
  const r = P.compareMemory(mem, now, wsha, ['4']);
  assert.equal(r.rewritten, null);
  assert.equal(r.resumeFrom, 0);
  assert.equal(P.compareMemory(mem, now, wsha, ['6', '7']).resumeFrom, 2, 'seq 6 is kept; seq 7 lies after the checkpoint');
  assert.equal(P.compareMemory(mem, now, wsha, ['4'], new Set([4])).resumeFrom, 2, 'a post at a withheld seq: its digest is in the list');
});

// docs/page.md "The monitor": a memory that keeps the reader's state at the end of the last line
// read, inside the last file (`tail`), resumes inside that file, after the bytes it re-derived,
// whatever became of the file since (grown, or full with files after it); held to the withheld
// list up to that state's last seq, and read from the first line when a post names a seq it did
// not keep. Catches a plan that resumes after the last file (skipping its new lines), or at its
// start with the state of its end.
test('a memory of the state inside the last file resumes inside that file', () => {
  const tailMem = Object.assign({}, mem, { checkpoint: null, withheld_sha: null,
    tail: { checkpoint: { v: 1, lastSeq: 9, ids: [['9', [hex('e')]]], dayLast: [['2026-10-25', 9, [hex('e')]]] }, withheld_sha: 'W9', lines: 3,
      facts: { lines: 3, first_seq: 7, last_seq: 9, head: hex('e') } } });
  for (const specs of [
    [['ledger/ledger.jsonl', 100, 'a'], ['ledger/segments/000001.jsonl', 100, 'b'], ['ledger/segments/000002.jsonl', 100, 'c']],
    [['ledger/ledger.jsonl', 100, 'a'], ['ledger/segments/000001.jsonl', 100, 'b'], ['ledger/segments/000002.jsonl', 180, '1']],
    [['ledger/ledger.jsonl', 100, 'a'], ['ledger/segments/000001.jsonl', 100, 'b'], ['ledger/segments/000002.jsonl', 180, '1'], ['ledger/segments/000003.jsonl', 50, '2']]
  ]) {
    const r = P.compareMemory(tailMem, list(specs), wsha, ['9', '12']);
    assert.equal(r.rewritten, null, JSON.stringify(specs));
    assert.equal(r.resumeFrom, 2, 'the last remembered file is read, after its remembered part');
    assert.equal(r.checkpoint, tailMem.tail.checkpoint);
    assert.deepEqual(r.prefix, { bytes: 100, sha256: hex('c'), lines: 3, facts: tailMem.tail.facts });
  }
  const ok = list([['ledger/ledger.jsonl', 100, 'a'], ['ledger/segments/000001.jsonl', 100, 'b'], ['ledger/segments/000002.jsonl', 150, '1']]);
  assert.equal(P.compareMemory(tailMem, ok, (q) => (q === 9 ? 'other' : 'W' + q), []).rewritten.file, 'ledger/withheld.json',
    'the withheld list up to the state\'s last seq is held to the one checked');
  const short = P.compareMemory(tailMem, list([['ledger/ledger.jsonl', 100, 'a'], ['ledger/segments/000001.jsonl', 100, 'b'], ['ledger/segments/000002.jsonl', 90, '1']]), wsha, []);
  assert.match(short.rewritten.why, /shorter/);
  const again = P.compareMemory(tailMem, ok, wsha, ['8']);
  assert.equal(again.rewritten, null);
  assert.equal(again.checkpoint, null, 'a post at a seq the state did not keep: read from the first line');
  // A memory of before the tail resumes after the last full file, as it did.
  const old = P.compareMemory(mem, ok, wsha, ['6']);
  assert.equal(old.resumeFrom, 2);
  assert.equal(old.prefix, null);
});

// docs/page.md "The monitor": the reader resumed inside a file holds the file to the list and its
// first part to the sha256 remembered for it, and re-derives only the lines after that part:
// the same answer, facts and posted heads as one pass. A changed byte in that part is said as a
// rewrite, even when the list names the changed file. Catches a reader that re-derives the part
// again, one that skips the lines after it, and one that trusts the part without hashing it.
test('the reader resumed inside a file re-derives only the lines after the part it read before', () => {
  const ends = lineEnds(demo.ledger);
  const cut = ends[150], last = ends[200];
  const part = demo.ledger.subarray(0, cut), grown = demo.ledger.subarray(0, last);
  const run = (msgs) => {
    const out = [];
    const h = P.lightEngine(V, P.compactResult, (m) => out.push(m));
    msgs.forEach((m) => h(m));
    return out;
  };
  const init = (checkpoint) => ({ type: 'init', withheld: demo.withheld, tzRules: null, posts: demo.posts, watchSeqs: postSeqs, checkpoint });
  const facts = (bytes) => {
    const r = V.verifyLedger(bytes, demo.withheld);
    const lines = r.lines.filter((L) => L.seq !== null);
    return { lines: r.lineCount, first_seq: lines[0].seq, last_seq: lines[lines.length - 1].seq, head: lines[lines.length - 1].entry_id };
  };
  const file = (bytes, extra) => Object.assign({ type: 'file', path: 'ledger/ledger.jsonl', bytes: bytes.slice().buffer, size: bytes.length, sha256: V.sha256Hex(bytes), facts: facts(bytes), wantCheckpoint: true }, extra);
  const first = run([init(null), file(part)]);
  const cp = first.find((m) => m.type === 'file-done').checkpoint;
  assert.ok(cp, 'the state at the end of the last line read');
  const prefix = { bytes: part.length, sha256: V.sha256Hex(part), lines: facts(part).lines, facts: facts(part) };
  const resumed = run([init(JSON.parse(JSON.stringify(cp))), file(grown, { prefix }), { type: 'finish', headSeq: null }]);
  const done = resumed.find((m) => m.type === 'file-done');
  assert.equal(done.resumedLines, prefix.lines);
  assert.equal(done.derived, 50, 'only the 50 lines after the remembered part');
  assert.equal(done.fileLines, facts(grown).lines);
  const whole = run([init(null), file(grown), { type: 'finish', headSeq: null }]).find((m) => m.type === 'done');
  const back = resumed.find((m) => m.type === 'done');
  for (const k of ['ok', 'head', 'entries', 'linesTotal', 'lastSeq', 'bytes']) assert.deepEqual(back.result[k], whole.result[k], k);
  assert.deepEqual(back.anchors, whole.anchors);
  // Nothing new: nothing re-derived, the same answer.
  const same = run([init(JSON.parse(JSON.stringify(cp))), file(part, { prefix }), { type: 'finish', headSeq: null }]);
  assert.equal(same.find((m) => m.type === 'file-done').derived, 0);
  assert.equal(same.find((m) => m.type === 'done').result.head, run([init(null), file(part), { type: 'finish', headSeq: null }]).find((m) => m.type === 'done').result.head);
  // One byte of the remembered part changed, the list naming the changed file: a rewrite.
  const forged = grown.slice();
  forged[ends[10] + 5] ^= 1;
  const said = run([init(JSON.parse(JSON.stringify(cp))), file(forged, { prefix })]);
  const rw = said.find((m) => m.type === 'file-rewritten');
  assert.ok(rw && /first \d+ bytes, which this browser re-derived on an earlier visit, changed/.test(rw.why), JSON.stringify(said.map((m) => m.type)));
  assert.equal(said.find((m) => m.type === 'file-done'), undefined, 'nothing of it is re-derived');
});

// docs/page.md "The monitor": a returning visit takes from memory the posts it read before, only
// while today's anchors index spells each exactly as read then; a post not in the exact form, one
// whose proof's header was not read or fails, and one the page carries are always read again.
test('remembered posts come back only as the index spells them as read', () => {
  const head = (c) => c.repeat(64);
  const index = { posts: [
    { date: '2026-01-01', head: head('a'), seq: 5 }, { date: '2026-01-02', head: head('b'), seq: 9 },
    { date: '2026-01-03', head: head('c'), seq: 14 }, { date: '2026-01-04', head: head('d'), seq: 20 },
    { date: '2026-01-05', head: head('e'), seq: 26 }] };
  const text = (p) => 'gate anchor ' + p.date + ' head ' + p.head + ' seq ' + p.seq;
  const posts = {};
  index.posts.forEach((p) => { posts[p.date] = text(p); });
  posts['2026-01-02'] += ' '; // not the exact form
  const header = (t) => { const h = new Uint8Array(65); h.set(Buffer.from('004f70656e54696d657374616d7073000050726f6f6600bf89e2e884e89294', 'hex')); h[31] = 1; h[32] = 8; h.set(Buffer.from(V.sha256Hex(V.utf8Encode(t)), 'hex'), 33); return h; };
  const headers = index.posts.filter((p) => p.date !== '2026-01-03').map((p, k) => ({ kind: 'anchor', name: p.date + '.txt.ots', length: 700 + k, header: header(posts[p.date]) }));
  headers[2].header = header('another text'); // 2026-01-04: its proof commits to something else
  const mem = P.rememberedPosts(V, index, posts, headers, { '2026-01-05': 'carried' });
  assert.deepEqual(mem.dates, ['2026-01-01']);
  const back = P.postsFromMemory(V, index, JSON.parse(JSON.stringify(mem)));
  assert.deepEqual(back.posts, { '2026-01-01': posts['2026-01-01'] });
  assert.deepEqual(Array.from(back.headers[0].header), Array.from(headers[0].header), 'the header read, rebuilt');
  assert.equal(back.headers[0].length, 700);
  assert.equal(back.count, 1);
  // An index that names another head, or another seq, or no longer names the day: read again.
  for (const edit of [(p) => { p.head = head('f'); }, (p) => { p.seq = 6; }, (p) => { p.date = '2026-01-06'; }]) {
    const changed = JSON.parse(JSON.stringify(index));
    edit(changed.posts[0]);
    assert.equal(P.postsFromMemory(V, changed, mem), null);
  }
  assert.equal(P.postsFromMemory(V, index, Object.assign({}, mem, { lengths: [701] })), null, 'the digest holds the lengths too');
});

test('the reader checks each file against the list and resumes from its own checkpoint', () => {
  const ends = lineEnds(demo.ledger);
  const files = [demo.ledger.subarray(0, ends[40]), demo.ledger.subarray(ends[40], ends[200]), demo.ledger.subarray(ends[200])];
  const run = (from, checkpoint, bad) => {
    const out = [];
    const h = P.lightEngine(V, P.compactResult, (m) => out.push(m));
    h({ type: 'init', withheld: demo.withheld, tzRules: null, posts: demo.posts, watchSeqs: postSeqs, checkpoint });
    for (let i = from; i < files.length; i++) {
      const b = files[i].slice();
      if (bad === i) b[5] ^= 1;
      h({ type: 'file', path: 'f' + i, bytes: b.buffer, size: b.length, sha256: V.sha256Hex(files[i]), wantCheckpoint: i === 1 });
    }
    h({ type: 'finish', headSeq: null });
    return out;
  };
  const whole = run(0, null);
  const done = whole.find((m) => m.type === 'done');
  const one = V.verifyLedger(demo.ledger, demo.withheld);
  assert.equal(done.result.ok, true);
  assert.equal(done.result.head, one.head);
  assert.deepEqual(done.anchors, V.checkAnchors(one, demo.withheld, demo.posts));
  const reached = whole.filter((m) => m.type === 'file-done').flatMap((m) => m.reached);
  assert.equal(reached.length, demo.posts.length, 'every posted head is reached once');
  const cp = whole.filter((m) => m.type === 'file-done')[1].checkpoint;
  assert.ok(cp, 'a checkpoint at the end of the second file');
  const resumed = run(2, JSON.parse(JSON.stringify(cp))).find((m) => m.type === 'done');
  assert.equal(resumed.result.head, one.head);
  assert.deepEqual(resumed.anchors, done.anchors);
  assert.equal(resumed.result.linesTotal, done.result.linesTotal);
  const bad = run(0, null, 1).find((m) => m.type === 'file-bad');
  assert.ok(bad && bad.path === 'f1' && /sha256/.test(bad.why), 'a file whose sha256 is not the listed one is named');
});

// docs/page.md#fetched-records: a page that reads its posts from the site streams the ledger
// while they arrive, keeping the entry_ids at the seqs the anchors' index names; the posts are
// handed to the reader when read, and a seq they name that the reader has passed (and was not
// told to keep) is taken from the records it holds. Posts naming mid-day seqs (no day's last,
// which the reader keeps anyway): an engine that checked them with what it happened to keep
// said "head absent" where one pass says "ok".
test('posts handed to the reader after it passed their seqs are checked as in one pass', () => {
  const ends = lineEnds(demo.ledger);
  const one = V.verifyLedger(demo.ledger, demo.withheld);
  const lines = one.lines.filter((L) => L.seq !== null);
  const picked = [3, 17, 60, 150, 260, lines.length - 5].map((k) => lines[k]);
  const posts = picked.map((L, k) => ({ date: '1999-01-0' + (k + 1), text: 'gate anchor 1999-01-0' + (k + 1) + ' head ' + L.entry_id + ' seq ' + L.seq }));
  const want = V.checkAnchors(one, demo.withheld, posts);
  assert.ok(want.every((a) => a.head === 'ok' && a.ok), JSON.stringify(want));
  const files = [demo.ledger.subarray(0, ends[40]), demo.ledger.subarray(ends[40], ends[200]), demo.ledger.subarray(ends[200])];
  const run = (from, checkpoint, postsAfter) => {
    const out = [];
    const h = P.lightEngine(V, P.compactResult, (m) => out.push(m));
    h({ type: 'init', withheld: demo.withheld, tzRules: null, posts: [], watchSeqs: [], checkpoint });
    for (let i = from; i < files.length; i++) {
      if (i === postsAfter) h({ type: 'posts', posts, watchSeqs: posts.map((p) => p.text.split(' seq ')[1]) });
      const b = files[i].slice();
      h({ type: 'file', path: 'f' + i, bytes: b.buffer, size: b.length, sha256: V.sha256Hex(files[i]), wantCheckpoint: i === 1 });
    }
    h({ type: 'finish', headSeq: null });
    return out;
  };
  for (const after of [0, 1, 2]) {
    const out = run(0, null, after);
    assert.deepEqual(out.find((m) => m.type === 'done').anchors, want, 'posts handed over before file ' + after);
    const told = out.filter((m) => m.type === 'reached' || m.type === 'file-done').flatMap((m) => m.reached).map((x) => x.date).sort();
    assert.deepEqual(told, posts.map((p) => p.date), 'each post reached once');
  }
  // Resumed past file 1 from a state that kept none of these seqs: those after it are checked
  // from the records read on this visit (the page reads the rest again, postsStep).
  const cp = run(0, null, 0).filter((m) => m.type === 'file-done')[1].checkpoint;
  const late = posts.filter((p, k) => picked[k].line > 200 + 1);
  assert.ok(late.length >= 2, 'posts after the checkpoint');
  const out = [];
  const h = P.lightEngine(V, P.compactResult, (m) => out.push(m));
  h({ type: 'init', withheld: demo.withheld, tzRules: null, posts: [], watchSeqs: [], checkpoint: JSON.parse(JSON.stringify(cp)) });
  const b = files[2].slice();
  h({ type: 'file', path: 'f2', bytes: b.buffer, size: b.length, sha256: V.sha256Hex(files[2]), wantCheckpoint: false });
  h({ type: 'posts', posts: late, watchSeqs: late.map((p) => p.text.split(' seq ')[1]) });
  h({ type: 'finish', headSeq: null });
  assert.deepEqual(out.find((m) => m.type === 'done').anchors, V.checkAnchors(one, demo.withheld, late));
});

// docs/page.md#records-in-the-worker: a light page's full check keeps the line records in its
// reader and asks it for what it shows; each answer must be what the page computed when it held
// every record (the old page: `allRows`, `finish`'s digest index, `treeLeaves`, the tree files).
test('the reader answers for the records it keeps as the page did when it held them', () => {
  const ends = lineEnds(demo.ledger);
  const out = [];
  const h = P.lightEngine(V, P.compactResult, (m) => out.push(m));
  h({ type: 'init', withheld: demo.withheld, tzRules: null, posts: demo.posts, watchSeqs: postSeqs, checkpoint: null, lineGroups: true });
  [demo.ledger.subarray(0, ends[40]), demo.ledger.subarray(ends[40], ends[300]), demo.ledger.subarray(ends[300])].forEach((f, i) => {
    const b = f.slice();
    h({ type: 'file', path: 'f' + i, bytes: b.buffer, size: b.length, sha256: V.sha256Hex(f), wantCheckpoint: false });
  });
  h({ type: 'finish', headSeq: null });
  const held = P.compactResult(V.verifyLedger(demo.ledger, demo.withheld)).lines;
  const fileDone = out.filter((m) => m.type === 'file-done');
  assert.ok(fileDone.every((m) => m.lines === undefined), 'no record leaves the reader with a file');
  assert.equal(fileDone.reduce((a, m) => a + m.count, 0), held.length);
  const done = out.find((m) => m.type === 'done');
  assert.equal(done.result.lines, null);
  assert.equal(done.result.records, held.length);
  assert.deepEqual(done.result.seqs, held.filter((L) => L.seq !== null).map((L) => L.seq));
  let id = 0;
  const ask = (op, args) => {
    h(Object.assign({ type: 'ask', id: ++id, op }, args));
    const a = out[out.length - 1];
    assert.equal(a.type, 'answer', JSON.stringify(a));
    assert.equal(a.id, id);
    return a.value;
  };
  const withheld = V.parseWithheld(demo.withheld);
  assert.ok(withheld.length > 0, 'the demo withholds lines');

  // The lines table: every page, filtered and not, as the page sorted and sliced its rows.
  const rows = held.slice();
  withheld.forEach((w) => rows.push({ withheld: w, seq: w.seq, day: w.day, kind: 'withheld' }));
  rows.sort((a, b) => (a.seq === null ? Infinity : a.seq) - (b.seq === null ? Infinity : b.seq));
  const wrows = withheld.map((w) => [w.seq, w.day]);
  const shown = (x) => (x.w !== undefined ? ['withheld', withheld[x.w]] : ['line', x]);
  const was = (x) => (x.withheld ? ['withheld', x.withheld] : ['line', x]);
  const kinds = [...new Set(rows.map((x) => x.kind))].sort();
  const days = [...new Set(rows.map((x) => x.day).filter(Boolean))].sort();
  let first = true;
  for (const [day, kind] of [['', ''], ['', 'withheld'], [days[1], ''], [days[0], kinds[0]]]) {
    const want = rows.filter((x) => (!day || x.day === day) && (!kind || x.kind === kind));
    for (let page = 0; page * 25 < Math.max(1, want.length); page++) {
      const a = ask('rows', { withheld: first ? wrows : null, lists: first, day, kind, page, size: 25 });
      if (first) { assert.deepEqual(a.kinds, kinds); assert.deepEqual(a.days, days); first = false; }
      assert.equal(a.total, want.length);
      assert.equal(a.all, rows.length);
      assert.deepEqual(a.rows.map(shown), want.slice(page * 25, page * 25 + 25).map(was), day + ' ' + kind + ' page ' + page);
    }
  }
  const seq = withheld[0].seq;
  const at = rows.findIndex((x) => x.seq === seq);
  const a = ask('rows', { day: '', kind: '', page: 0, size: 25, seq });
  assert.equal(a.page, Math.floor(at / 25), 'the page holding a withheld seq');
  assert.equal(ask('rows', { day: '', kind: '', page: 0, size: 25, seq: 99999 }).at, -1);

  // A paste's digests: the lines carrying each, in the order the page's index listed them.
  const index = new Map();
  const add = (hex, field, L) => { if (typeof hex === 'string') { if (!index.has(hex)) index.set(hex, []); index.get(hex).push([field, L]); } };
  held.forEach((L) => { if (L.id) add(L.id, 'entry_id', L); if (L.d) for (const f in L.d) add(L.d[f], f, L); });
  const sent = held.find((L) => L.d && L.d.sent_sha256);
  assert.ok(sent, 'the demo has a send line');
  const hexes = [sent.d.sent_sha256, sent.id, held[5].id, withheld[0].entry_id, 'ab'.repeat(32)];
  const found = ask('find', { hexes });
  for (const hex of hexes) {
    assert.deepEqual((found.hits[hex] || []).map((x) => [x[0], found.recs[x[1]]]), index.get(hex) || [], hex);
  }
  for (const q of Object.keys(found.first)) assert.deepEqual(found.recs[found.first[q]], held.find((L) => L.seq === Number(q)));

  // The tree: its leaves, and every file but lines/ and excerpts/ held to the demo site's own
  // (the page holds lines/ to the groups' digests, and reads excerpts/ for the snapshot only).
  const leaves = P.treeLeaves(held, withheld);
  const lv = ask('leaves', { withheld: withheld.map((w) => ({ seq: w.seq, entry_id: w.entry_id })) });
  assert.deepEqual(lv, { size: leaves.size, error: null });
  const TREE = path.join(DEMO, 'tree');
  const actual = new Map();
  const walk = (dir, rel) => fs.readdirSync(dir, { withFileTypes: true }).forEach((e) => {
    const r = rel ? rel + '/' + e.name : e.name;
    if (e.isDirectory()) walk(path.join(dir, e.name), r);
    else if (!r.startsWith('lines/') && !r.startsWith('excerpts/')) actual.set(r, bytesOf(path.join(dir, e.name)));
  });
  walk(TREE, '');
  const cp = V.tree.parseCheckpoint(actual.get('checkpoint'));
  const made = ask('tree', { origin: cp.origin, head: done.result.head, actual, seen: [] });
  assert.deepEqual(made.problems, []);
  assert.equal(P.bytesHex(made.root), P.bytesHex(cp.root));
  const tile = [...actual.keys()].find((k) => k.startsWith('tile/0/'));
  const bad = new Map(actual);
  const b = bad.get(tile).slice();
  b[3] ^= 1;
  bad.set(tile, b);
  assert.deepEqual(ask('tree', { origin: cp.origin, head: done.result.head, actual: bad, seen: [] }).problems.map((p) => [p.file, p.code]),
    [['ledger/tree/' + tile, 'tree_file_differs']]);
});
