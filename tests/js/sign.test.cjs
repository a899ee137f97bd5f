// The page's check of the operator's signatures (assets/verify.js `ExhibitVerify.sign`;
// docs/anchoring.md, docs/page.md "Signatures on the page"): SHA-512 and Ed25519 written in
// verify.js, held to RFC 8032's vectors and to node:crypto's keys and signatures (made here,
// independently of both verifiers), and the signed note and snapshot lines held to what exhibit's
// Rust signer wrote (tests/data/signed/).
//   node --test tests/js/
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const crypto = require('node:crypto');

const ROOT = path.join(__dirname, '..', '..');
const V = require(process.env.VERIFY_JS || path.join(ROOT, 'assets', 'verify.js'));
const S = V.sign;
const DATA = path.join(ROOT, 'tests', 'data', 'signed');
const VKEY = fs.readFileSync(path.join(DATA, 'vkey'), 'utf8').trim();
const NOTE = fs.readFileSync(path.join(DATA, 'checkpoint'));
const SNAPSHOTS = fs.readFileSync(path.join(DATA, 'SNAPSHOTS.jsonl'));
const LINE = SNAPSHOTS.subarray(0, SNAPSHOTS.indexOf(10));

const hex = (h) => Buffer.from(h, 'hex');
const L = (1n << 252n) + 27742317777372353535851937790883648493n;
const P = (1n << 255n) - 19n;
function le(n) { const b = Buffer.alloc(32); for (let i = 0; i < 32; i++) { b[i] = Number(n & 255n); n >>= 8n; } return b; }
function leInt(b) { let n = 0n; for (let i = b.length - 1; i >= 0; i--) n = (n << 8n) | BigInt(b[i]); return n; }

// A key made by node:crypto, and its C2SP verifier key for `name`.
function nodeKey(name) {
  const { publicKey, privateKey } = crypto.generateKeyPairSync('ed25519');
  const raw = Buffer.from(publicKey.export({ format: 'jwk' }).x, 'base64url');
  return { raw, privateKey, name, ...vkeyOf(name, raw) };
}
function vkeyOf(name, raw) {
  const key = Buffer.concat([Buffer.from([1]), raw]);
  const id = crypto.createHash('sha256').update(Buffer.concat([Buffer.from(name + '\n'), key])).digest().subarray(0, 4);
  return { id, vkey: name + '+' + id.toString('hex') + '+' + key.toString('base64') };
}
const nodeSign = (k, msg) => crypto.sign(null, Buffer.from(msg), k.privateKey);
const nodeVerify = (raw, msg, sig) => crypto.verify(null, Buffer.from(msg),
  crypto.createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(raw).toString('base64url') }, format: 'jwk' }), Buffer.from(sig));

// A note `body` signed by node:crypto keys, as a C2SP signed note.
function noteBy(body, keys) {
  return Buffer.from(body + '\n' + keys.map((k) => '\u2014 ' + k.name + ' ' +
    Buffer.concat([k.id, nodeSign(k, body)]).toString('base64') + '\n').join(''));
}
// A snapshot line signed by a node:crypto key, as src/operator_box/signing.rs sign_snapshot_line writes it.
function lineBy(k, line) {
  const sig = nodeSign(k, Buffer.concat([Buffer.from('exhibit snapshot line v1\n'), Buffer.from(line)]));
  const rest = line.slice(1);
  return Buffer.from('{"signature":"' + k.name + ' ' + Buffer.concat([k.id, sig]).toString('base64') + '"' + (rest === '}' ? '' : ',') + rest);
}
const flip = (b, i, bit = 1) => { const c = Buffer.from(b); c[i] ^= bit; return c; };

test('SHA-512 is node:crypto\'s on every length around the block and padding edges', () => {
  // Catches: a wrong carry between the 32-bit halves, a wrong length field, a padding block too few.
  for (const n of [0, 1, 3, 55, 56, 63, 64, 111, 112, 113, 127, 128, 129, 239, 240, 255, 256, 1000, 70000]) {
    const m = crypto.randomBytes(n);
    assert.equal(Buffer.from(S.sha512(m)).toString('hex'), crypto.createHash('sha512').update(m).digest('hex'), 'length ' + n);
  }
  assert.equal(Buffer.from(S.sha512('abc')).toString('hex'), crypto.createHash('sha512').update('abc').digest('hex'));
});

// RFC 8032 §7.1: TEST 1, 2, 3 and TEST SHA(abc).
const RFC = [
  ['d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a', '',
    'e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b'],
  ['3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c', '72',
    '92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00'],
  ['fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025', 'af82',
    '6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a'],
  ['ec172b93ad5e563bf4932c70e1245034c35467ef2efd4d64ebf819683467e2bf',
    'ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f',
    'dc2a4459e7369633a52b1bf277839a00201009a3efbf3ecb69bea2186c26b58909351fc9ac90b3ecfdfbc7c66431e0303dca179c138ac17ad9bef1177331a704']
];

test('RFC 8032 test vectors 1, 2, 3 and SHA(abc) hold, and every byte-flip of them fails', () => {
  for (const [pub, msg, sig] of RFC) {
    assert.ok(nodeVerify(hex(pub), hex(msg), hex(sig)), 'node:crypto takes the vector as written here');
    assert.equal(S.ed25519Verify(hex(pub), hex(msg), hex(sig)), true, pub);
  }
  // Catches a verifier that skips bytes (of R, of S, of the key in the hash) or accepts anything.
  const [pub, msg, sig] = RFC[2].map(hex);
  for (let i = 0; i < 64; i++) assert.equal(S.ed25519Verify(pub, msg, flip(sig, i)), false, 'signature byte ' + i);
  for (let i = 0; i < 32; i++) assert.equal(S.ed25519Verify(flip(pub, i), msg, sig), false, 'key byte ' + i);
  for (let i = 0; i < msg.length; i++) assert.equal(S.ed25519Verify(pub, flip(msg, i), sig), false, 'message byte ' + i);
  assert.equal(S.ed25519Verify(pub, Buffer.concat([msg, Buffer.from([0])]), sig), false, 'a byte more');
  assert.equal(S.ed25519Verify(pub, msg, sig.subarray(0, 63)), false, '63 bytes');
  assert.equal(S.ed25519Verify(pub.subarray(0, 31), msg, sig), false, 'a 31-byte key');
});

test('keys and signatures made by node:crypto hold; every byte-flip of message, signature and key fails', () => {
  for (let round = 0; round < 6; round++) {
    const k = nodeKey('example.test/node');
    const msg = crypto.randomBytes(round * 37);
    const sig = nodeSign(k, msg);
    assert.equal(S.ed25519Verify(k.raw, msg, sig), true);
    if (round > 1) continue;
    for (let i = 0; i < 64; i++) assert.equal(S.ed25519Verify(k.raw, msg, flip(sig, i, 1 << (i % 8))), false, 'signature byte ' + i);
    for (let i = 0; i < 32; i++) assert.equal(S.ed25519Verify(flip(k.raw, i, 1 << (i % 8)), msg, sig), false, 'key byte ' + i);
    for (let i = 0; i < msg.length; i++) assert.equal(S.ed25519Verify(k.raw, flip(msg, i, 0x80), sig), false, 'message byte ' + i);
  }
});

test('S ≥ L is refused, though [S + L]B is [S]B (the malleable twin node:crypto refuses too)', () => {
  // Catches a verifier that reduces S mod L, or checks only its top bits (ed25519-dalek's legacy mode).
  const k = nodeKey('example.test/node');
  const msg = Buffer.from('exhibit');
  const sig = nodeSign(k, msg);
  const s = leInt(sig.subarray(32));
  const twin = Buffer.concat([sig.subarray(0, 32), le(s + L)]);
  assert.ok(s + L < (1n << 253n), 'S + L fits in the 253 bits a top-bits check would let through');
  assert.equal(nodeVerify(k.raw, msg, twin), false);
  assert.equal(S.ed25519Verify(k.raw, msg, twin), false);
  assert.equal(S.ed25519Verify(k.raw, msg, Buffer.concat([sig.subarray(0, 32), le(L)])), false, 'S = L');
});

test('a key is decoded as ed25519-dalek decodes it: no x, no key; y ≥ p the point it names', () => {
  // The identity, as y = 1 and (non-canonically) y = p + 1: for it [k]A is the identity, so
  // R = enc([s]B), S = s holds for any message under ed25519-dalek's `verify` (cofactorless, weak
  // keys taken). Both verifiers must take the same keys; a verifier on RFC 8032's strict decoding
  // would refuse the second, and `exhibit verify` would not.
  const ident = Buffer.alloc(32); ident[0] = 1;
  const nonCanonical = le(P + 1n);
  const k = nodeKey('x');
  // R = enc([1]B) = B's encoding (0x58 0x66…0x66), S = 1.
  const B = Buffer.alloc(32, 0x66); B[0] = 0x58;
  const one = le(1n);
  const sig = Buffer.concat([B, one]);
  assert.equal(S.ed25519Verify(ident, Buffer.from('anything'), sig), true, 'the identity key, canonical');
  assert.equal(S.ed25519Verify(nonCanonical, Buffer.from('anything'), sig), true, 'the identity key written with y = p + 1');
  assert.equal(nodeVerify(k.raw, Buffer.from('anything'), sig), false);
  // A y with no x on the curve: no key.
  let noPoint = null;
  for (let y = 2n; y < 200n && !noPoint; y++) {
    const v = vkeyOf('example.test/x', le(y)).vkey;
    if (S.parseVkey(v).error && /no point/.test(S.parseVkey(v).error)) noPoint = le(y);
  }
  assert.ok(noPoint, 'some small y has no x');
  assert.equal(S.ed25519Verify(noPoint, Buffer.from('anything'), sig), false);
});

test('parseVkey takes what signed_note takes and nothing else', () => {
  const k = S.parseVkey(VKEY);
  assert.equal(k.name, 'example.test/demo');
  assert.equal(k.id, '2b35d332');
  const [name, id, b64] = [VKEY.slice(0, VKEY.indexOf('+')), '2b35d332', VKEY.slice(VKEY.indexOf('+') + 10)];
  assert.ok(!S.parseVkey(name + '+' + id.toUpperCase() + '+' + b64).error, 'the id in upper case (from_str_radix takes it)');
  assert.ok(S.parseVkey(name + '+2b35d333+' + b64).error, 'another id');
  assert.ok(S.parseVkey('example.test/demx+' + id + '+' + b64).error, 'another name: the id is not its key\'s');
  assert.ok(S.parseVkey(name + '+' + id + '+' + b64.slice(0, -1)).error, 'base64 cut');
  assert.ok(S.parseVkey(name + '+' + id + '+' + b64 + '=').error, 'base64 padded where it needs none');
  assert.ok(S.parseVkey(name + '+' + id).error);
  assert.ok(S.parseVkey('a b+' + id + '+' + b64).error, 'a space in the name');
  const raw = Buffer.from(b64, 'base64').subarray(1);
  assert.ok(!S.parseVkey(vkeyOf('n', raw).vkey).error, 'the same key under another name, its own id');
  const wrongAlg = Buffer.concat([Buffer.from([2]), raw]);
  const idAlg = crypto.createHash('sha256').update(Buffer.concat([Buffer.from('n\n'), wrongAlg])).digest().subarray(0, 4).toString('hex');
  assert.match(S.parseVkey('n+' + idAlg + '+' + wrongAlg.toString('base64')).error, /algorithm 2/);
});

test('the checkpoint signed by exhibit\'s Rust signer holds; tampered copies fail with the right state', () => {
  assert.equal(S.verifyNote(NOTE, VKEY).state, 'holds');
  const text = NOTE.toString('utf8');
  const cut = text.indexOf('\n\n');
  const body = text.slice(0, cut + 1);
  // Catches: a note verified over the body without its last LF, or with the blank line.
  assert.equal(S.verifyNote(NOTE, VKEY).text, body);
  // Every byte of the body altered: broken (the signature does not hold), never holds.
  for (let i = 0; i < body.length; i++) {
    if (body[i] === '\n') continue;
    const r = S.verifyNote(flip(NOTE, i, 1), VKEY).state;
    assert.ok(r === 'broken', 'body byte ' + i + ': ' + r);
  }
  // Every byte of the signature blob (key id ‖ signature) altered, by decoding, flipping, encoding.
  const sigLine = text.slice(cut + 2, -1), sp = sigLine.lastIndexOf(' ');
  const blob = Buffer.from(sigLine.slice(sp + 1), 'base64');
  for (let i = 0; i < blob.length; i++) {
    const t = body + '\n' + sigLine.slice(0, sp + 1) + flip(blob, i, 0x10).toString('base64') + '\n';
    const r = S.verifyNote(Buffer.from(t), VKEY).state;
    assert.equal(r, i < 4 ? 'other-key' : 'broken', 'blob byte ' + i);
  }
  assert.equal(S.verifyNote(Buffer.from(body), VKEY).state, 'unsigned', 'the body alone');
  assert.equal(S.verifyNote(Buffer.from(body + '\n'), VKEY).state, 'broken', 'a blank line and no signature');
  assert.equal(S.verifyNote(Buffer.from(text.replace('\u2014', '-')), VKEY).state, 'broken', 'a hyphen for the em dash');
  assert.equal(S.verifyNote(Buffer.from(text.slice(0, -1)), VKEY).state, 'broken', 'no final LF');
  assert.equal(S.verifyNote(NOTE, nodeKey('example.test/demo').vkey).state, 'other-key', 'another key of the same name');
  assert.equal(S.verifyNote(NOTE, 'not a key').state, 'broken');
});

test('notes signed by node:crypto keys: several signatures, as signed_note reads them', () => {
  const body = 'example.test/log\n3\n' + Buffer.alloc(32, 7).toString('base64') + '\nexhibit-head 3 ' + 'ab'.repeat(32) + '\n';
  const a = nodeKey('example.test/log'), b = nodeKey('witness.test/w');
  assert.equal(S.verifyNote(noteBy(body, [a]), a.vkey).state, 'holds');
  assert.equal(S.verifyNote(noteBy(body, [b, a]), a.vkey).state, 'holds', 'another signature first');
  assert.equal(S.verifyNote(noteBy(body, [b]), a.vkey).state, 'other-key');
  // A signature by a's name and id that does not hold is broken, wherever it stands.
  const bad = Buffer.from(noteBy(body, [b, a]).toString().replace(/ (\S+)\n$/, (m, s) => ' ' + flip(Buffer.from(s, 'base64'), 40).toString('base64') + '\n'));
  assert.equal(S.verifyNote(bad, a.vkey).state, 'broken');
  // signed_note checks one signature per key: a second one by a, after one that holds, is not read.
  const twice = Buffer.concat([noteBy(body, [a]), Buffer.from(bad.toString().split('\n').slice(-2).join('\n'))]);
  assert.equal(S.verifyNote(twice, a.vkey).state, 'holds');
  // The signature is over the body's bytes with its last LF, nothing else.
  const k = nodeKey('example.test/log');
  const sigNoLf = Buffer.concat([k.id, nodeSign(k, body.slice(0, -1))]).toString('base64');
  assert.equal(S.verifyNote(Buffer.from(body + '\n\u2014 example.test/log ' + sigNoLf + '\n'), k.vkey).state, 'broken');
  const sigBlank = Buffer.concat([k.id, nodeSign(k, body + '\n')]).toString('base64');
  assert.equal(S.verifyNote(Buffer.from(body + '\n\u2014 example.test/log ' + sigBlank + '\n'), k.vkey).state, 'broken');
});

test('the snapshot line signed by exhibit\'s Rust signer holds; tampered copies fail with the right state', () => {
  assert.equal(S.snapshotSignature(LINE, VKEY).state, 'holds');
  const text = LINE.toString('utf8');
  const end = text.indexOf('",') + 2;
  // The line altered after signing: any member's byte.
  for (const i of [end, end + 1, text.indexOf('"head"') + 10, text.length - 2]) {
    assert.equal(S.snapshotSignature(flip(LINE, i, 1), VKEY).state, 'broken', 'byte ' + i);
  }
  assert.equal(S.snapshotSignature(Buffer.from(text.replace('"lines":392', '"lines":393')), VKEY).state, 'broken');
  // The signature member stripped: the line as it was before signing, unsigned.
  assert.equal(S.snapshotSignature(Buffer.from('{' + text.slice(end)), VKEY).state, 'unsigned');
  const value = text.slice(14, end - 2), blob = Buffer.from(value.slice(value.indexOf(' ') + 1), 'base64');
  for (let i = 0; i < blob.length; i++) {
    const t = '{"signature":"example.test/demo ' + flip(blob, i, 4).toString('base64') + text.slice(end - 2);
    assert.equal(S.snapshotSignature(Buffer.from(t), VKEY).state, i < 4 ? 'other-key' : 'broken', 'blob byte ' + i);
  }
  assert.equal(S.snapshotSignature(LINE, nodeKey('example.test/demo').vkey).state, 'other-key');
  // Catches a verifier that signs the line without the domain line, or with the member left in.
  const k = nodeKey('example.test/demo');
  const plain = '{' + text.slice(end);
  assert.equal(S.snapshotSignature(lineBy(k, plain), k.vkey).state, 'holds');
  const noDomain = '{"signature":"example.test/demo ' + Buffer.concat([k.id, nodeSign(k, plain)]).toString('base64') + '",' + text.slice(end);
  assert.equal(S.snapshotSignature(Buffer.from(noDomain), k.vkey).state, 'broken');
  assert.equal(S.snapshotSignature(lineBy(k, '{}'), k.vkey).state, 'holds', 'a line with no other member');
  assert.equal(S.snapshotSignature(lineBy(k, '{}'), 'junk').state, 'broken');
});

test('checkSignatures answers as src/site_check/signatures.rs: codes, files, keys and their changes', () => {
  const ok = S.checkSignatures({ key: VKEY, checkpoint: NOTE, snapshots: SNAPSHOTS });
  assert.deepEqual(ok.problems, []);
  assert.equal(ok.checkpoint, true);
  assert.equal(ok.signedLines, 1);
  assert.deepEqual(ok.keys, [VKEY]);
  const codes = (r) => r.problems.map((p) => p.file + ' ' + p.code).sort();
  // STATS names another key: the checkpoint is another key's, and the last line's key is not tree.key.
  const other = nodeKey('example.test/demo').vkey;
  assert.deepEqual(codes(S.checkSignatures({ key: other, checkpoint: NOTE, snapshots: SNAPSHOTS })),
    ['ledger/STATS.json snapshot_signature', 'ledger/tree/checkpoint checkpoint_signature']);
  const body = NOTE.subarray(0, NOTE.indexOf('\n\n') + 1);
  assert.deepEqual(codes(S.checkSignatures({ key: VKEY, checkpoint: body, snapshots: SNAPSHOTS })), ['ledger/tree/checkpoint checkpoint_signature']);
  // No key named: the checkpoint is not checked; lines are still held to the keys they name.
  const none = S.checkSignatures({ key: null, checkpoint: body, snapshots: SNAPSHOTS });
  assert.deepEqual(none.problems, []);
  assert.equal(none.signedLines, 1);
  const tampered = Buffer.from(SNAPSHOTS.toString().replace('"lines":392', '"lines":393'));
  assert.deepEqual(codes(S.checkSignatures({ key: VKEY, checkpoint: NOTE, snapshots: tampered })), ['ledger/SNAPSHOTS.jsonl snapshot_signature']);
  // A signed line that names no key (`key` removed after signing).
  const noKey = Buffer.from(SNAPSHOTS.toString().replace(/,"key":"[^"]*"/, ''));
  const r = S.checkSignatures({ key: VKEY, checkpoint: NOTE, snapshots: noKey });
  assert.deepEqual(codes(r), ['ledger/SNAPSHOTS.jsonl snapshot_signature']);
  assert.match(r.problems[0].detail, /^line 1: signed, and names no key/);
  // Unsigned lines (before the key) are no problem; a key change is runs A, then B.
  const a = nodeKey('example.test/demo'), b = nodeKey('example.test/demo');
  const mk = (k, n) => lineBy(k, '{"built_at":"2026-12-0' + n + 'T00:00:00Z","key":"' + k.vkey + '","lines":' + n + '}');
  const lines = [Buffer.from('{"built_at":"2026-12-01T00:00:00Z","lines":1}'), mk(a, 2), mk(a, 3), mk(b, 4), Buffer.alloc(0)];
  const changed = S.checkSignatures({ key: b.vkey, checkpoint: null, snapshots: Buffer.concat(lines.flatMap((l, i) => i ? [Buffer.from('\n'), l] : [l])) });
  assert.deepEqual(changed.problems, []);
  assert.deepEqual(changed.keys, [a.vkey, b.vkey]);
  assert.deepEqual(changed.runs, [{ key: a.vkey, from: 2, to: 3 }, { key: b.vkey, from: 4, to: 4 }]);
  // The last signed line's key is what STATS.json's tree.key must be (docs/anchoring.md), also
  // when a key comes back: A, B, A with tree.key A holds; with tree.key B it does not.
  const back = Buffer.concat([mk(a, 1), Buffer.from('\n'), mk(b, 2), Buffer.from('\n'), mk(a, 3), Buffer.from('\n')]);
  assert.deepEqual(S.checkSignatures({ key: a.vkey, checkpoint: null, snapshots: back }).problems, []);
  assert.deepEqual(codes(S.checkSignatures({ key: b.vkey, checkpoint: null, snapshots: back })), ['ledger/STATS.json snapshot_signature']);
});
