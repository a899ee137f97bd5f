// assets/verify.js's OpenTimestamps evaluator (docs/anchoring.md): its hashes against node:crypto,
// the real hello-world proof against Bitcoin block 358391's real header, and no input that makes
// it throw. vectors/ots.json (tests/js/ots-vectors.test.cjs) holds it to the Rust evaluator.
//   node --test tests/js/
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const V = require(path.join(__dirname, '..', '..', 'assets', 'verify.js'));
const O = V.ots;
const examples = path.join(__dirname, '..', 'data', 'ots-examples');
const hex = (b) => Buffer.from(b).toString('hex');

// Lengths around every block edge: sha1 and ripemd160 pad at 55/56 and 64, keccak at 135/136.
const LENGTHS = [];
for (let n = 0; n <= 300; n++) LENGTHS.push(n);
LENGTHS.push(1000, 4095, 4096);

function compare(ours, theirs) {
  let rnd = 1;
  for (const n of LENGTHS) {
    for (let k = 0; k < 3; k++) {
      const m = Buffer.alloc(n);
      for (let i = 0; i < n; i++) { rnd = (rnd * 1103515245 + 12345) >>> 0; m[i] = rnd >>> 24; }
      assert.equal(hex(ours(new Uint8Array(m))), crypto.createHash(theirs).update(m).digest('hex'), theirs + ' of ' + n + ' bytes');
    }
  }
}

test('sha1 is node:crypto\'s', () => compare(O.sha1, 'sha1'));

test('ripemd160 is node:crypto\'s', (t) => {
  if (!crypto.getHashes().includes('ripemd160')) {
    t.skip('this node has no ripemd160; the published vectors below still hold it');
  } else {
    compare(O.ripemd160, 'ripemd160');
  }
  // The algorithm's own test vectors (Dobbertin, Bosselaers, Preneel).
  assert.equal(hex(O.ripemd160(new Uint8Array(0))), '9c1185a5c5e9fc54612808977ee8f548b2258d31');
  assert.equal(hex(O.ripemd160(Buffer.from('abc'))), '8eb208f7e05d987a9b044a8e98c6b087f15a0bfc');
  assert.equal(hex(O.ripemd160(Buffer.from('message digest'))), '5d0689ef49d2fae572b881b123a85ffa21595f36');
});

test('keccak256: its permutation is sha3-256\'s (node:crypto), its padding Keccak\'s', () => {
  compare(O._sha3_256, 'sha3-256');
  // Keccak-256 (what Ethereum and OpenTimestamps' 67 compute), its published answers.
  assert.equal(hex(O.keccak256(new Uint8Array(0))), 'c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470');
  assert.equal(hex(O.keccak256(Buffer.from('abc'))), '4e03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45');
});

// Bitcoin block 358391's 80-byte header, as public explorers and other OpenTimestamps
// implementations give it (docs/anchoring.md says how it was checked).
const HEADER_358391 = Buffer.from('02000000b96394585a281b7e5f438fd1c9ed492645a1fd61cb3802040000000000000000007ee445d23ad061af4a36b809501fab1ac4f2d7e7a739817dd0cbb7ec661b8a1e376755f58616186272def6', 'hex');

test('hello-world.txt.ots evaluates to block 358391 and the merkle root its real header carries', () => {
  const proof = fs.readFileSync(path.join(examples, 'hello-world.txt.ots'));
  const file = fs.readFileSync(path.join(examples, 'hello-world.txt'));
  const got = O.evaluate(proof);
  assert.equal(got.digest, crypto.createHash('sha256').update(file).digest('hex'));
  assert.equal(got.attestations.length, 1);
  const a = got.attestations[0];
  assert.equal(a.kind, 'bitcoin');
  assert.equal(a.height, '358391');
  assert.equal(a.merkle_root, '8a1b66ecb7cbd07d8139a7e7d7f2c41aab1f5009b8364aaf61d03ad245e47e00');
  assert.deepEqual(a.explorers, ['https://mempool.space/block/358391', 'https://blockstream.info/block-height/358391']);
  // The header holds the root the other way round, and is the real block's: its double sha256
  // is the block's hash and lies below the target its nBits state.
  assert.equal(hex(Buffer.from(HEADER_358391.subarray(36, 68)).reverse()), a.merkle_root);
  const h1 = crypto.createHash('sha256').update(HEADER_358391).digest();
  const hash = Buffer.from(crypto.createHash('sha256').update(h1).digest()).reverse();
  assert.equal(hex(hash), '000000000000000003e892881a8cdcdc117c06d444057c98b6f04a9ee75a2319');
  const bits = HEADER_358391.readUInt32LE(72);
  const target = BigInt(bits & 0xffffff) << BigInt(8 * ((bits >>> 24) - 3));
  assert.ok(BigInt('0x' + hex(hash)) < target);
});

test('another file\'s proof of the same block gives another root; a pending proof names its calendars', () => {
  const bad = O.evaluate(fs.readFileSync(path.join(examples, 'bad-stamp.txt.ots')));
  assert.equal(bad.attestations[0].height, '358391');
  assert.notEqual(bad.attestations[0].merkle_root, '8a1b66ecb7cbd07d8139a7e7d7f2c41aab1f5009b8364aaf61d03ad245e47e00');
  const two = O.evaluate(fs.readFileSync(path.join(examples, 'two-calendars.txt.ots')));
  assert.deepEqual(two.attestations.map((x) => x.kind + ' ' + x.calendar_url), [
    'pending https://alice.btc.calendar.opentimestamps.org', 'pending https://bob.btc.calendar.opentimestamps.org']);
});

test('the header alone, and the explorers', () => {
  assert.deepEqual(O.committedDigest(new Uint8Array(0)).problem.code, 'too_short');
  const p = fs.readFileSync(path.join(examples, 'incomplete.txt.ots'));
  assert.equal(O.committedDigest(p).digest, O.evaluate(p).digest);
  assert.equal(O.committedDigest(fs.readFileSync(path.join(examples, 'invalid', 'bad-major-version.ots'))).problem.code, 'bad_version');
  assert.deepEqual(O.explorers(1), [
    { name: 'mempool.space', url: 'https://mempool.space/block/1' },
    { name: 'blockstream.info', url: 'https://blockstream.info/block-height/1' }]);
});

test('no bytes make it throw: every cut, and random changes of every real proof', () => {
  const proofs = fs.readdirSync(examples).filter((n) => n.endsWith('.ots')).map((n) => fs.readFileSync(path.join(examples, n)));
  let rnd = 7, answered = 0;
  const next = () => { rnd = (rnd * 1103515245 + 12345) >>> 0; return rnd; };
  for (const p of proofs) {
    for (let cut = 0; cut < p.length; cut++) {
      const r = O.evaluate(p.subarray(0, cut));
      assert.ok(r.problem && O.CODES.includes(r.problem.code), 'cut at ' + cut);
    }
    for (let i = 0; i < 2000; i++) {
      const b = new Uint8Array(p);
      for (let k = 0; k <= next() % 4; k++) b[next() % b.length] = next() >>> 24;
      const r = O.evaluate(b);
      assert.ok(r.problem ? O.CODES.includes(r.problem.code) : Array.isArray(r.attestations));
      answered++;
    }
  }
  assert.ok(answered > 10000);
});
