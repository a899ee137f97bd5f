/*
 * exhibit — verify.js: the page's verifier for the agent send ledger (docs/protocol.md#verifier-report, docs/protocol.md#anchors).
 *
 * An independent implementation of docs/verifier.md; the Rust verifier (`exhibit verify`) is the
 * other one, and vectors/vectors.json holds the cases both must answer alike.
 *
 * Runs unchanged in a page (<script>, global `ExhibitVerify`), in a Web Worker (`self.ExhibitVerify`)
 * and in Node (`module.exports`). No dependencies, no DOM, no network, no eval, no crypto.subtle:
 * SHA-256, the JSON reader and the canonical dump are written here, synchronously.
 * Platform pieces used when present: TextEncoder/TextDecoder (with a strict fallback written here).
 * Calendar days are derived from the anchor zone's rules as data (`tzRules`, written by the
 * exhibit binary from its own tz database and carried in the page), never from the browser's own
 * tz data, so that every browser and `exhibit verify` give one answer (docs/verifier.md "Days and
 * the tz database"). Only a caller that passes no rules gets Intl.DateTimeFormat's days.
 */
(function (root, factory) {
  if (typeof module === 'object' && module.exports) module.exports = factory();
  else root.ExhibitVerify = factory();
})(typeof self !== 'undefined' ? self : this, function () {
  'use strict';

  var HEADER_SCHEMA = 'darkflobi.gate/log/v0';
  var ENTRY_SCHEMA = 'darkflobi.gate/entry/v0';
  var HEADER_DOMAIN = 'darkflobi.gate/log/v0\n';
  var MAX_DEPTH = 1000;
  var MAX_INT = 9007199254740992; // 2^53, admitted; 2^53 + 1 is not
  var MAX_INT_DIGITS = '9007199254740992';
  var BEYOND = MAX_INT + 2; // an expected seq past 2^53: equal to no admitted integer
  var PROGRESS_EVERY = 2000;

  // The codes, in the order docs/verifier.md lists them (problems at one line follow this order).
  var CODES = [
    'truncated_tail',
    'cr_byte', 'unparsable', 'not_object', 'duplicate_key', 'not_canonicalisable', 'not_canonical',
    'missing_header', 'bad_header',
    'bad_schema', 'entry_id_mismatch', 'prev_mismatch', 'seq_mismatch', 'bad_timestamp',
    'day_mismatch', 'withheld_conflict',
    'withheld_unreachable'
  ];

  var hasOwn = Object.prototype.hasOwnProperty;

  // ------------------------------------------------------------------------------------------
  // SHA-256 (FIPS 180-4), synchronous, over Uint8Array ranges.

  var K256 = new Int32Array([
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2
  ]);
  var SHA_W = new Int32Array(64);
  var SHA_H = new Int32Array(8);
  var SHA_TAIL = new Uint8Array(128);
  var HEX2 = [];
  (function () {
    for (var i = 0; i < 256; i++) HEX2.push((i < 16 ? '0' : '') + i.toString(16));
  })();

  function shaCompress(hs, src, off) {
    var w = SHA_W, k = K256, i, x, y, t;
    for (i = 0; i < 16; i++, off += 4) {
      w[i] = (src[off] << 24) | (src[off + 1] << 16) | (src[off + 2] << 8) | src[off + 3];
    }
    for (i = 16; i < 64; i++) {
      x = w[i - 15]; y = w[i - 2];
      w[i] = (w[i - 16] + (((x >>> 7) | (x << 25)) ^ ((x >>> 18) | (x << 14)) ^ (x >>> 3)) + w[i - 7] +
        (((y >>> 17) | (y << 15)) ^ ((y >>> 19) | (y << 13)) ^ (y >>> 10))) | 0;
    }
    var a = hs[0], b = hs[1], c = hs[2], d = hs[3], e = hs[4], f = hs[5], g = hs[6], h = hs[7];
    // 64 rounds, eight at a time with the working variables renamed instead of shifted:
    // t = h + Σ1(e) + Ch(e,f,g) + K[i] + W[i]; d += t; h = t + Σ0(a) + Maj(a,b,c)
    for (i = 0; i < 64; i += 8) {
      t = (h + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + ((e & f) ^ (~e & g)) + k[i + 0] + w[i + 0]) | 0;
      d = (d + t) | 0;
      h = (t + (((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + ((a & b) ^ (a & c) ^ (b & c))) | 0;
      t = (g + (((d >>> 6) | (d << 26)) ^ ((d >>> 11) | (d << 21)) ^ ((d >>> 25) | (d << 7))) + ((d & e) ^ (~d & f)) + k[i + 1] + w[i + 1]) | 0;
      c = (c + t) | 0;
      g = (t + (((h >>> 2) | (h << 30)) ^ ((h >>> 13) | (h << 19)) ^ ((h >>> 22) | (h << 10))) + ((h & a) ^ (h & b) ^ (a & b))) | 0;
      t = (f + (((c >>> 6) | (c << 26)) ^ ((c >>> 11) | (c << 21)) ^ ((c >>> 25) | (c << 7))) + ((c & d) ^ (~c & e)) + k[i + 2] + w[i + 2]) | 0;
      b = (b + t) | 0;
      f = (t + (((g >>> 2) | (g << 30)) ^ ((g >>> 13) | (g << 19)) ^ ((g >>> 22) | (g << 10))) + ((g & h) ^ (g & a) ^ (h & a))) | 0;
      t = (e + (((b >>> 6) | (b << 26)) ^ ((b >>> 11) | (b << 21)) ^ ((b >>> 25) | (b << 7))) + ((b & c) ^ (~b & d)) + k[i + 3] + w[i + 3]) | 0;
      a = (a + t) | 0;
      e = (t + (((f >>> 2) | (f << 30)) ^ ((f >>> 13) | (f << 19)) ^ ((f >>> 22) | (f << 10))) + ((f & g) ^ (f & h) ^ (g & h))) | 0;
      t = (d + (((a >>> 6) | (a << 26)) ^ ((a >>> 11) | (a << 21)) ^ ((a >>> 25) | (a << 7))) + ((a & b) ^ (~a & c)) + k[i + 4] + w[i + 4]) | 0;
      h = (h + t) | 0;
      d = (t + (((e >>> 2) | (e << 30)) ^ ((e >>> 13) | (e << 19)) ^ ((e >>> 22) | (e << 10))) + ((e & f) ^ (e & g) ^ (f & g))) | 0;
      t = (c + (((h >>> 6) | (h << 26)) ^ ((h >>> 11) | (h << 21)) ^ ((h >>> 25) | (h << 7))) + ((h & a) ^ (~h & b)) + k[i + 5] + w[i + 5]) | 0;
      g = (g + t) | 0;
      c = (t + (((d >>> 2) | (d << 30)) ^ ((d >>> 13) | (d << 19)) ^ ((d >>> 22) | (d << 10))) + ((d & e) ^ (d & f) ^ (e & f))) | 0;
      t = (b + (((g >>> 6) | (g << 26)) ^ ((g >>> 11) | (g << 21)) ^ ((g >>> 25) | (g << 7))) + ((g & h) ^ (~g & a)) + k[i + 6] + w[i + 6]) | 0;
      f = (f + t) | 0;
      b = (t + (((c >>> 2) | (c << 30)) ^ ((c >>> 13) | (c << 19)) ^ ((c >>> 22) | (c << 10))) + ((c & d) ^ (c & e) ^ (d & e))) | 0;
      t = (a + (((f >>> 6) | (f << 26)) ^ ((f >>> 11) | (f << 21)) ^ ((f >>> 25) | (f << 7))) + ((f & g) ^ (~f & h)) + k[i + 7] + w[i + 7]) | 0;
      e = (e + t) | 0;
      a = (t + (((b >>> 2) | (b << 30)) ^ ((b >>> 13) | (b << 19)) ^ ((b >>> 22) | (b << 10))) + ((b & c) ^ (b & d) ^ (c & d))) | 0;
    }
    hs[0] = (hs[0] + a) | 0; hs[1] = (hs[1] + b) | 0; hs[2] = (hs[2] + c) | 0; hs[3] = (hs[3] + d) | 0;
    hs[4] = (hs[4] + e) | 0; hs[5] = (hs[5] + f) | 0; hs[6] = (hs[6] + g) | 0; hs[7] = (hs[7] + h) | 0;
  }

  // SHA_H := the initial hash value.
  function shaInit() {
    var h = SHA_H;
    h[0] = 0x6a09e667; h[1] = 0xbb67ae85 | 0; h[2] = 0x3c6ef372; h[3] = 0xa54ff53a | 0;
    h[4] = 0x510e527f; h[5] = 0x9b05688c | 0; h[6] = 0x1f83d9ab; h[7] = 0x5be0cd19;
  }

  // SHA_H's 32 bytes into dst at off.
  function shaOut(dst, off) {
    for (var i = 0; i < 8; i++) {
      var v = SHA_H[i];
      dst[off + 4 * i] = v >>> 24; dst[off + 4 * i + 1] = v >>> 16; dst[off + 4 * i + 2] = v >>> 8; dst[off + 4 * i + 3] = v;
    }
  }

  // Hashes bytes[start, end) into SHA_H.
  function shaRange(bytes, start, end) {
    var h = SHA_H;
    shaInit();
    var len = end - start;
    var off = start;
    var lastFull = start + (len - (len % 64));
    for (; off < lastFull; off += 64) shaCompress(h, bytes, off);
    shaPad(bytes, off, end, len);
  }

  // The message's last bytes[off, end) (fewer than 64), its padding and its length `len` into SHA_H.
  function shaPad(bytes, off, end, len) {
    var h = SHA_H;
    var rem = end - off;
    var t = SHA_TAIL;
    t.fill(0);
    for (var i = 0; i < rem; i++) t[i] = bytes[off + i];
    t[rem] = 0x80;
    var blocks = rem < 56 ? 1 : 2;
    var p = blocks * 64 - 8;
    var hi = Math.floor(len / 0x20000000); // (len * 8) >>> 32
    var lo = (len * 8) >>> 0;
    t[p] = hi >>> 24; t[p + 1] = hi >>> 16; t[p + 2] = hi >>> 8; t[p + 3] = hi;
    t[p + 4] = lo >>> 24; t[p + 5] = lo >>> 16; t[p + 6] = lo >>> 8; t[p + 7] = lo;
    shaCompress(h, t, 0);
    if (blocks === 2) shaCompress(h, t, 64);
  }

  function shaHexOut() {
    var h = SHA_H, s = '';
    for (var i = 0; i < 8; i++) {
      var v = h[i];
      s += HEX2[(v >>> 24) & 255] + HEX2[(v >>> 16) & 255] + HEX2[(v >>> 8) & 255] + HEX2[v & 255];
    }
    return s;
  }

  function toBytes(x) {
    if (x instanceof Uint8Array) return x;
    if (typeof x === 'string') return utf8Encode(x);
    if (x instanceof ArrayBuffer) return new Uint8Array(x);
    if (ArrayBuffer.isView(x)) return new Uint8Array(x.buffer, x.byteOffset, x.byteLength);
    throw new TypeError('expected a Uint8Array');
  }

  /** sha256Hex(Uint8Array | string) -> 64 lowercase hex (a string is hashed as its UTF-8 bytes). */
  function sha256Hex(bytes) {
    var b = toBytes(bytes);
    shaRange(b, 0, b.length);
    return shaHexOut();
  }

  /**
   * sha256HexPrefix(Uint8Array, n) -> {prefix, whole}: the sha256 hex of the first n bytes and
   * of them all, in one pass over the bytes (a returning visitor's last ledger file: the part
   * this browser re-derived before, and the whole file the list names; docs/page.md "The
   * monitor").
   */
  function sha256HexPrefix(bytes, n) {
    var b = toBytes(bytes), h = SHA_H, off = 0;
    n = Math.max(0, Math.min(n, b.length));
    shaInit();
    for (var cut = n - (n % 64); off < cut; off += 64) shaCompress(h, b, off);
    var saved = new Int32Array(h);
    shaPad(b, off, n, n);
    var prefix = shaHexOut();
    h.set(saved);
    for (var lastFull = b.length - (b.length % 64); off < lastFull; off += 64) shaCompress(h, b, off);
    shaPad(b, off, b.length, b.length);
    return { prefix: prefix, whole: shaHexOut() };
  }

  /** sha256(Uint8Array | string) -> Uint8Array(32) */
  function sha256(bytes) {
    var b = toBytes(bytes);
    shaRange(b, 0, b.length);
    var out = new Uint8Array(32);
    shaOut(out, 0);
    return out;
  }

  // ------------------------------------------------------------------------------------------
  // UTF-8: the platform codec when present (WHATWG: strict when fatal), else the one below.

  var nativeEncoder = typeof TextEncoder !== 'undefined' ? new TextEncoder() : null;
  var nativeDecoder = null;
  try {
    // ignoreBOM: a leading U+FEFF is a character of the line (and not JSON whitespace), never eaten.
    nativeDecoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  } catch (e) { nativeDecoder = null; }
  var useNative = true;

  function encodeManualInto(str, out) {
    var j = 0, n = str.length;
    for (var i = 0; i < n; i++) {
      var c = str.charCodeAt(i);
      if (c < 0x80) out[j++] = c;
      else if (c < 0x800) { out[j++] = 0xc0 | (c >> 6); out[j++] = 0x80 | (c & 63); }
      else if (c >= 0xd800 && c <= 0xdfff) {
        var d = i + 1 < n ? str.charCodeAt(i + 1) : 0;
        if (c <= 0xdbff && d >= 0xdc00 && d <= 0xdfff) {
          var cp = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
          i++;
          out[j++] = 0xf0 | (cp >> 18); out[j++] = 0x80 | ((cp >> 12) & 63);
          out[j++] = 0x80 | ((cp >> 6) & 63); out[j++] = 0x80 | (cp & 63);
        } else { out[j++] = 0xef; out[j++] = 0xbf; out[j++] = 0xbd; } // U+FFFD, as TextEncoder does
      } else { out[j++] = 0xe0 | (c >> 12); out[j++] = 0x80 | ((c >> 6) & 63); out[j++] = 0x80 | (c & 63); }
    }
    return j;
  }

  /** utf8Encode(string) -> Uint8Array (a lone surrogate becomes U+FFFD, as TextEncoder does). */
  function utf8Encode(str) {
    str = String(str);
    if (useNative && nativeEncoder) return nativeEncoder.encode(str);
    var buf = new Uint8Array(str.length * 3);
    return buf.slice(0, encodeManualInto(str, buf));
  }

  var encBuf = new Uint8Array(1 << 16);
  // UTF-8 of str into a reused buffer; returns the byte length.
  function encodeToScratch(str) {
    var need = str.length * 3;
    if (need > encBuf.length) encBuf = new Uint8Array(Math.max(need, encBuf.length * 2));
    if (useNative && nativeEncoder && nativeEncoder.encodeInto) return nativeEncoder.encodeInto(str, encBuf).written;
    return encodeManualInto(str, encBuf);
  }

  function sha256HexOfString(str) {
    var len = encodeToScratch(str);
    shaRange(encBuf, 0, len);
    return shaHexOut();
  }

  // Strict UTF-8 decode of b[start, end): null when not valid UTF-8 (overlong forms, encoded
  // surrogates, code points above U+10FFFF, stray or missing continuation bytes).
  function decodeManual(b, start, end) {
    var out = '', units = [], i = start;
    while (i < end) {
      var c = b[i], cp, c1, c2, c3;
      if (c < 0x80) { cp = c; i += 1; }
      else if (c >= 0xc2 && c <= 0xdf) {
        if (i + 1 >= end) return null;
        c1 = b[i + 1];
        if ((c1 & 0xc0) !== 0x80) return null;
        cp = ((c & 0x1f) << 6) | (c1 & 0x3f); i += 2;
      } else if (c >= 0xe0 && c <= 0xef) {
        if (i + 2 >= end) return null;
        c1 = b[i + 1]; c2 = b[i + 2];
        var lo1 = c === 0xe0 ? 0xa0 : 0x80, hi1 = c === 0xed ? 0x9f : 0xbf;
        if (c1 < lo1 || c1 > hi1 || (c2 & 0xc0) !== 0x80) return null;
        cp = ((c & 0x0f) << 12) | ((c1 & 0x3f) << 6) | (c2 & 0x3f); i += 3;
      } else if (c >= 0xf0 && c <= 0xf4) {
        if (i + 3 >= end) return null;
        c1 = b[i + 1]; c2 = b[i + 2]; c3 = b[i + 3];
        var lo2 = c === 0xf0 ? 0x90 : 0x80, hi2 = c === 0xf4 ? 0x8f : 0xbf;
        if (c1 < lo2 || c1 > hi2 || (c2 & 0xc0) !== 0x80 || (c3 & 0xc0) !== 0x80) return null;
        cp = ((c & 0x07) << 18) | ((c1 & 0x3f) << 12) | ((c2 & 0x3f) << 6) | (c3 & 0x3f); i += 4;
      } else return null;
      if (cp >= 0x10000) {
        cp -= 0x10000;
        units.push(0xd800 + (cp >> 10), 0xdc00 + (cp & 0x3ff));
      } else units.push(cp);
      if (units.length >= 4096) { out += String.fromCharCode.apply(null, units); units.length = 0; }
    }
    if (units.length) out += String.fromCharCode.apply(null, units);
    return out;
  }

  function decodeRange(b, start, end) {
    if (useNative && nativeDecoder) {
      try { return nativeDecoder.decode(b.subarray(start, end)); } catch (e) { return null; }
    }
    return decodeManual(b, start, end);
  }

  /** utf8Decode(Uint8Array) -> string, or null when the bytes are not valid UTF-8 (strict). */
  function utf8Decode(bytes) {
    var b = toBytes(bytes);
    return decodeRange(b, 0, b.length);
  }

  // ------------------------------------------------------------------------------------------
  // A site's JSON files (STATS.json, anchors/index.json, the texts' index, the page's blocks)
  // are read by one rule in both verifiers (docs/verifier.md "Reading a site's JSON"): the
  // Rust one reads them with serde_json, which refuses a string holding a lone surrogate, a
  // number past a double's range and nesting of 128 containers; JSON.parse takes all three (a
  // lone \ud800, 1e400 as Infinity). `readSiteJSON` refuses them too, so that no file is
  // read by one verifier and unreadable to the other.

  var MAX_JSON_DEPTH = 127;
  var LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(^|[^\uD800-\uDBFF])[\uDC00-\uDFFF]/;

  /** JSON.parse(text) held to the rule above; throws a SyntaxError naming what it refused. */
  function readSiteJSON(text) {
    // JSON.parse(null) reads "null": a text that is not one (bytes no UTF-8 decoder took) is none.
    if (typeof text !== 'string') throw new SyntaxError('not a text');
    var value = JSON.parse(text);
    var stack = [[value, 0]];
    while (stack.length) {
      var top = stack.pop(), v = top[0], depth = top[1];
      if (typeof v === 'number' && !isFinite(v)) throw new SyntaxError('a number past the range of a double');
      if (typeof v === 'string' && LONE_SURROGATE.test(v)) throw new SyntaxError('a string holding a lone surrogate');
      if (v && typeof v === 'object') {
        if (depth + 1 > MAX_JSON_DEPTH) throw new SyntaxError('nesting deeper than ' + MAX_JSON_DEPTH + ' levels');
        var keys = Object.keys(v);
        for (var i = 0; i < keys.length; i++) {
          if (!Array.isArray(v) && LONE_SURROGATE.test(keys[i])) throw new SyntaxError('a key holding a lone surrogate');
          stack.push([v[keys[i]], depth + 1]);
        }
      }
    }
    return value;
  }

  // ------------------------------------------------------------------------------------------
  // JSON reader (RFC 8259), iterative; keeps what JSON.parse hides.

  /** A number the protocol does not admit (a fraction, an exponent, -0, |n| > 2^53): kept as written. */
  function JsonNumber(text) { this.text = text; }
  JsonNumber.prototype.valueOf = function () { return Number(this.text); };
  JsonNumber.prototype.toString = function () { return this.text; };
  JsonNumber.prototype.toJSON = function () { return Number(this.text); };

  function hexVal(c) {
    if (c >= 48 && c <= 57) return c - 48;
    if (c >= 97 && c <= 102) return c - 87;
    if (c >= 65 && c <= 70) return c - 55;
    return -1;
  }

  function setMember(o, k, v) {
    if (k === '__proto__') Object.defineProperty(o, k, { value: v, writable: true, enumerable: true, configurable: true });
    else o[k] = v;
  }

  /*
   * parseText(s) -> {error: string|null, value, dup, canon, why, eidStart, eidEnd}
   *   error  why the text is not exactly one JSON value (or nests deeper than 1000)
   *   dup    some object has a key written twice (last value kept)
   *   canon  every value written, dropped duplicates included, is of an admitted type
   *   why    the first reason canon is false
   *   plain  the text is written exactly as the canonical dump writes it: no whitespace, keys in
   *          ascending order, only the canonical escapes (with canon && !dup, plain implies that
   *          the text equals the canonical dump; readText still dumps whenever plain is false)
   *   eidStart/eidEnd  the root object's "entry_id" member: index of its key's quote, index after its value
   */
  function parseText(s) {
    var n = s.length, i = 0, depth = 0;
    var conts = [], keys = [];
    var err = null, dup = false, canon = true, why = null, plain = true;
    var value, c, k, top, cont;
    var strWide = 0; // OR of the code units of the last string read
    var eidStart = -1, eidEnd = -1;

    function ws() {
      while (i < n) {
        var ch = s.charCodeAt(i);
        if (ch === 32 || ch === 9 || ch === 10 || ch === 13) { i++; plain = false; }
        else break;
      }
    }

    function refuse(reason) { if (canon) { canon = false; why = reason; } }

    // At an opening quote; returns the string (i after the closing quote) or null with err set.
    function str() {
      i++;
      var start = i, acc = 0, ch;
      while (i < n) {
        ch = s.charCodeAt(i);
        if (ch === 34) { strWide = acc; return s.slice(start, i++); }
        if (ch === 92) break;
        if (ch < 32) { err = 'a raw control character inside a string'; return null; }
        acc |= ch;
        i++;
      }
      var out = s.slice(start, i);
      for (;;) {
        if (i >= n) { err = 'an unterminated string'; return null; }
        ch = s.charCodeAt(i);
        if (ch === 34) { i++; strWide = acc; return out; }
        if (ch === 92) {
          var e = s.charCodeAt(i + 1);
          if (e === 34) out += '"';
          else if (e === 92) out += '\\';
          else if (e === 47) { out += '/'; plain = false; }
          else if (e === 98) out += '\b';
          else if (e === 102) out += '\f';
          else if (e === 110) out += '\n';
          else if (e === 114) out += '\r';
          else if (e === 116) out += '\t';
          else if (e === 117) {
            var u = hex4(i + 2);
            if (u < 0) { err = 'a malformed \\u escape'; return null; }
            if (plain && (u >= 32 || s.slice(i, i + 6) !== ESC[u])) plain = false;
            i += 6;
            acc |= u;
            if (u >= 0xd800 && u <= 0xdbff) {
              if (s.charCodeAt(i) === 92 && s.charCodeAt(i + 1) === 117) {
                var u2 = hex4(i + 2);
                if (u2 >= 0xdc00 && u2 <= 0xdfff) { out += String.fromCharCode(u, u2); i += 6; continue; }
              }
              refuse('a lone surrogate (\\u' + u.toString(16) + ') in a string');
            } else if (u >= 0xdc00 && u <= 0xdfff) {
              refuse('a lone surrogate (\\u' + u.toString(16) + ') in a string');
            }
            out += String.fromCharCode(u);
            continue;
          } else { err = 'an invalid escape'; return null; }
          i += 2;
          continue;
        }
        if (ch < 32) { err = 'a raw control character inside a string'; return null; }
        var seg = i;
        while (i < n) {
          ch = s.charCodeAt(i);
          if (ch === 34 || ch === 92 || ch < 32) break;
          acc |= ch;
          i++;
        }
        out += s.slice(seg, i);
      }
    }

    function hex4(p) {
      if (p + 4 > n) return -1;
      var a = hexVal(s.charCodeAt(p)), b = hexVal(s.charCodeAt(p + 1));
      var d = hexVal(s.charCodeAt(p + 2)), e = hexVal(s.charCodeAt(p + 3));
      if ((a | b | d | e) < 0) return -1;
      return (a << 12) | (b << 8) | (d << 4) | e;
    }

    function digit(p) { var ch = s.charCodeAt(p); return ch >= 48 && ch <= 57; }

    function num() {
      var st = i, neg = false, integral = true;
      if (s.charCodeAt(i) === 45) { neg = true; i++; }
      var ch = s.charCodeAt(i);
      if (ch === 48) i++;
      else if (ch >= 49 && ch <= 57) { i++; while (digit(i)) i++; }
      else { err = 'a malformed number'; return null; }
      var intEnd = i;
      if (s.charCodeAt(i) === 46) {
        i++;
        if (!digit(i)) { err = 'a malformed number'; return null; }
        while (digit(i)) i++;
        integral = false;
      }
      ch = s.charCodeAt(i);
      if (ch === 101 || ch === 69) {
        i++;
        ch = s.charCodeAt(i);
        if (ch === 43 || ch === 45) i++;
        if (!digit(i)) { err = 'a malformed number'; return null; }
        while (digit(i)) i++;
        integral = false;
      }
      var text = s.slice(st, i);
      if (!integral) { refuse('a number that is not an integer (' + text + ')'); return new JsonNumber(text); }
      if (text === '-0') { refuse('-0 (JCS would write 0)'); return new JsonNumber(text); }
      var nd = intEnd - st - (neg ? 1 : 0);
      if (nd > 16 || (nd === 16 && (neg ? text.slice(1) : text) > MAX_INT_DIGITS)) {
        refuse('an integer beyond \u00b12^53 (' + (text.length > 40 ? text.slice(0, 40) + '\u2026' : text) + ')');
        return new JsonNumber(text);
      }
      return +text;
    }

    // Reads `"key" :` at i (after ws); returns the key or null with err set.
    function memberKey() {
      if (s.charCodeAt(i) !== 34) { err = 'expected an object key'; return null; }
      var kk = str();
      if (kk === null) return null;
      if (strWide > 127) refuse('a non-ASCII object key');
      ws();
      if (s.charCodeAt(i) !== 58) { err = 'expected a colon after an object key'; return null; }
      i++;
      ws();
      return kk;
    }

    ws();
    outer: for (;;) {
      // ---- one value at i ----
      if (i >= n) { err = 'expected a value'; break; }
      c = s.charCodeAt(i);
      if (c === 123) {
        if (++depth > MAX_DEPTH) { err = 'nesting deeper than ' + MAX_DEPTH; break; }
        i++; ws();
        var o = {};
        if (s.charCodeAt(i) === 125) { i++; depth--; value = o; }
        else {
          var ks = i;
          k = memberKey();
          if (k === null) break;
          if (depth === 1 && k === 'entry_id') eidStart = ks;
          conts.push(o); keys.push(k);
          continue;
        }
      } else if (c === 91) {
        if (++depth > MAX_DEPTH) { err = 'nesting deeper than ' + MAX_DEPTH; break; }
        i++; ws();
        if (s.charCodeAt(i) === 93) { i++; depth--; value = []; }
        else { conts.push([]); keys.push(null); continue; }
      } else if (c === 34) {
        value = str();
        if (value === null) break;
      } else if (c === 116) {
        if (s.startsWith('true', i)) { value = true; i += 4; } else { err = 'an unexpected token'; break; }
      } else if (c === 102) {
        if (s.startsWith('false', i)) { value = false; i += 5; } else { err = 'an unexpected token'; break; }
      } else if (c === 110) {
        if (s.startsWith('null', i)) { value = null; i += 4; } else { err = 'an unexpected token'; break; }
      } else if (c === 45 || (c >= 48 && c <= 57)) {
        value = num();
        if (value === null) break;
      } else { err = 'an unexpected character'; break; }

      // ---- a value is complete: hand it to its container ----
      for (;;) {
        top = conts.length - 1;
        if (top < 0) {
          ws();
          if (i !== n) err = 'text after the value';
          break outer;
        }
        cont = conts[top];
        k = keys[top];
        if (k === null) {
          cont.push(value);
          ws();
          c = s.charCodeAt(i);
          if (c === 44) { i++; ws(); continue outer; }
          if (c === 93) { i++; depth--; conts.pop(); keys.pop(); value = cont; continue; }
          err = 'expected , or ] in an array';
          break outer;
        }
        if (hasOwn.call(cont, k)) dup = true;
        setMember(cont, k, value);
        if (top === 0 && k === 'entry_id' && eidEnd < 0) eidEnd = i;
        ws();
        c = s.charCodeAt(i);
        if (c === 44) {
          i++; ws();
          var ks2 = i;
          k = memberKey();
          if (k === null) break outer;
          if (top === 0 && k === 'entry_id' && eidStart < 0) eidStart = ks2;
          if (plain && !(keys[top] < k)) plain = false;
          keys[top] = k;
          continue outer;
        }
        if (c === 125) { i++; depth--; conts.pop(); keys.pop(); value = cont; continue; }
        err = 'expected , or } in an object';
        break outer;
      }
    }
    if (err) return { error: err, value: undefined, dup: false, canon: false, why: null, plain: false, eidStart: -1, eidEnd: -1 };
    return { error: null, value: value, dup: dup, canon: canon, why: why, plain: plain, eidStart: eidStart, eidEnd: eidEnd };
  }

  // ------------------------------------------------------------------------------------------
  // The canonical dump (docs/verifier.md "The canonical dump"; RFC 8785 for the admitted types).

  var ESC = [];
  (function () {
    for (var c = 0; c < 32; c++) ESC.push('\\u00' + (c < 16 ? '0' : '') + c.toString(16));
    ESC[8] = '\\b'; ESC[9] = '\\t'; ESC[10] = '\\n'; ESC[12] = '\\f'; ESC[13] = '\\r';
    ESC[34] = '\\"'; ESC[92] = '\\\\';
  })();
  var fastCanonical = true; // tests turn this off to check `plain` against the dump
  var NEEDS_ESC = /["\\\u0000-\u001f]/;
  var LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?:^|[^\ud800-\udbff])[\udc00-\udfff]/;
  var NON_ASCII = /[^\u0000-\u007f]/;

  function dumpString(s) {
    if (!NEEDS_ESC.test(s)) return '"' + s + '"';
    var out = '"', last = 0;
    for (var i = 0; i < s.length; i++) {
      var c = s.charCodeAt(i);
      if (c < 32 || c === 34 || c === 92) { out += s.slice(last, i) + ESC[c]; last = i + 1; }
    }
    return out + s.slice(last) + '"';
  }

  // Dump of a value already known to be canonicalisable; `skipKey` drops one key of the root object.
  function dumpTrusted(v, skipKey) {
    if (v === null) return 'null';
    switch (typeof v) {
      case 'string': return dumpString(v);
      case 'number': return String(v);
      case 'boolean': return v ? 'true' : 'false';
      case 'bigint': return v.toString();
    }
    var out, i;
    if (Array.isArray(v)) {
      out = '[';
      for (i = 0; i < v.length; i++) out += (i ? ',' : '') + dumpTrusted(v[i]);
      return out + ']';
    }
    var keys = Object.keys(v).sort(compareCodePoints);
    out = '{';
    var first = true;
    for (i = 0; i < keys.length; i++) {
      var k = keys[i];
      if (k === skipKey) continue;
      out += (first ? '' : ',') + dumpString(k) + ':' + dumpTrusted(v[k]);
      first = false;
    }
    return out + '}';
  }

  // Code-point order (equal to UTF-16 order for the ASCII keys the protocol admits).
  function compareCodePoints(a, b) {
    if (a === b) return 0;
    var n = Math.min(a.length, b.length);
    for (var i = 0; i < n; i++) {
      var x = a.codePointAt(i), y = b.codePointAt(i);
      if (x !== y) return x < y ? -1 : 1;
      if (x > 0xffff) i++;
    }
    return a.length < b.length ? -1 : 1;
  }

  // Why v is not canonicalisable, or null. Iterative; depth is not limited here.
  function notCanonicalisable(v) {
    var stack = [v];
    while (stack.length) {
      var x = stack.pop();
      if (x === null || typeof x === 'boolean') continue;
      switch (typeof x) {
        case 'string':
          if (LONE_SURROGATE.test(x)) return 'a lone surrogate in a string';
          continue;
        case 'number':
          if (!Number.isInteger(x)) return 'a number that is not an integer (' + x + ')';
          if (Object.is(x, -0)) return '-0 (JCS would write 0)';
          if (Math.abs(x) > MAX_INT) return 'an integer beyond \u00b12^53';
          continue;
        case 'bigint':
          if (x > BigInt(MAX_INT) || x < -BigInt(MAX_INT)) return 'an integer beyond \u00b12^53';
          continue;
        case 'object':
          if (x instanceof JsonNumber) {
            if (/^-?(0|[1-9][0-9]*)$/.test(x.text) && x.text !== '-0') return 'an integer beyond \u00b12^53 (' + x.text + ')';
            return x.text === '-0' ? '-0 (JCS would write 0)' : 'a number that is not an integer (' + x.text + ')';
          }
          if (Array.isArray(x)) { for (var i = 0; i < x.length; i++) stack.push(x[i]); continue; }
          var keys = Object.keys(x);
          for (var j = 0; j < keys.length; j++) {
            if (NON_ASCII.test(keys[j])) return 'a non-ASCII object key';
            stack.push(x[keys[j]]);
          }
          continue;
        default:
          return 'a value of type ' + typeof x;
      }
    }
    return null;
  }

  /**
   * canonicalDump(value) -> string: the compact, key-sorted dump (the line's bytes are its UTF-8).
   * Throws a TypeError (with .code = 'not_canonicalisable') for a float, -0, an integer beyond
   * ±2^53, a non-ASCII key, a lone surrogate, or a value JSON has no form for.
   */
  function canonicalDump(value) {
    var why = notCanonicalisable(value);
    if (why) {
      var e = new TypeError('not canonicalisable: ' + why);
      e.code = 'not_canonicalisable';
      throw e;
    }
    return dumpTrusted(value);
  }

  // ------------------------------------------------------------------------------------------
  // Reading one line (docs/verifier.md "Reading a line").

  /*
   * readText(s) for a line already known to be free of CR and valid UTF-8.
   * -> {code, detail, readable, value, canonicalisable, canonical, eidStart, eidEnd}
   */
  function readText(s) {
    var p = parseText(s);
    if (p.error) return unreadable('unparsable', 'not one JSON value: ' + p.error);
    var v = p.value;
    if (v === null || typeof v !== 'object' || Array.isArray(v) || v instanceof JsonNumber) {
      return unreadable('not_object', 'a JSON ' + (v === null ? 'null' : Array.isArray(v) ? 'array' : v instanceof JsonNumber ? 'number' : typeof v) + ', not an object');
    }
    var r = { code: null, detail: null, readable: true, value: v, canonicalisable: p.canon, canonical: null, eidStart: p.eidStart, eidEnd: p.eidEnd };
    if (p.dup) {
      r.code = 'duplicate_key';
      r.detail = 'a key written twice in one object (the last value is kept)';
      // The digest is taken of the object kept (last value wins); a dropped value does not count.
      var why = p.canon ? null : notCanonicalisable(v);
      r.canonicalisable = !why;
      if (!why) r.canonical = dumpTrusted(v);
      r.eidStart = r.eidEnd = -1;
      return r;
    }
    if (!p.canon) {
      r.code = 'not_canonicalisable';
      r.detail = 'the object holds ' + p.why;
      return r;
    }
    r.canonical = p.plain && fastCanonical ? s : dumpTrusted(v);
    if (r.canonical !== s) {
      r.code = 'not_canonical';
      r.detail = 'the bytes are not the canonical dump of the object' + firstDifference(s, r.canonical);
    }
    return r;
  }

  function firstDifference(a, b) {
    var n = Math.min(a.length, b.length), i = 0;
    while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
    var show = function (x) { return JSON.stringify(x.slice(Math.max(0, i - 12), i + 12)); };
    return ' (from character ' + (i + 1) + ': written ' + show(a) + ', canonical ' + show(b) + ')';
  }

  function unreadable(code, detail) {
    return { code: code, detail: detail, readable: false, value: undefined, canonicalisable: false, canonical: null, eidStart: -1, eidEnd: -1 };
  }

  function readRange(bytes, start, end) {
    var cr = bytes.subarray(start, end).indexOf(13);
    if (cr >= 0) return unreadable('cr_byte', 'a CR byte at byte ' + (cr + 1) + ' of the line');
    var s = decodeRange(bytes, start, end);
    if (s === null) return unreadable('unparsable', 'not valid UTF-8');
    var r = readText(s);
    r.text = s;
    return r;
  }

  /**
   * parseJsonLine(bytes | string) -> the reading of one line:
   *   {code: null | 'cr_byte' | 'unparsable' | 'not_object' | 'duplicate_key' | 'not_canonicalisable'
   *          | 'not_canonical', detail, readable, value, canonicalisable, canonical}
   * `value` is the object (last value wins) when readable; integers are numbers, a number the
   * protocol does not admit is a JsonNumber holding its text. `canonical` is the canonical dump
   * when one exists. A string is taken as the text of the line (a lone surrogate in it is not UTF-8).
   */
  function parseJsonLine(input) {
    var r;
    if (typeof input === 'string') {
      if (input.indexOf('\r') >= 0) r = unreadable('cr_byte', 'a CR in the line');
      else if (LONE_SURROGATE.test(input)) r = unreadable('unparsable', 'not valid UTF-8 (a lone surrogate)');
      else r = readText(input);
    } else {
      var b = toBytes(input);
      r = readRange(b, 0, b.length);
    }
    return {
      code: r.code, detail: r.detail, readable: r.readable, value: r.value,
      canonicalisable: r.canonicalisable, canonical: r.canonical
    };
  }

  /**
   * lineEntryId(bytes) -> {entry_id, seq, value} or {error}: one published line read alone (its
   * bytes without the LF), its entry_id re-derived as the chain's reader derives it, as
   * `line_entry_id` in crates/protocol/src/tree.rs takes it: the line must be readable, be the
   * canonical dump of its object with no key written twice, and state the entry_id its core
   * hashes to. `seq` is the line's seq (null when it states none); the error says which rule the
   * line breaks. A page proving one line from the tree's lines/ file uses it (docs/tree.md).
   */
  function lineEntryId(bytes) {
    var b = toBytes(bytes);
    var r = readRange(b, 0, b.length);
    if (!r.readable) return { error: 'the line is not a JSON object (' + r.code + ': ' + r.detail + ')' };
    if (r.code) return { error: 'the line is not in the canonical form (' + r.code + ': ' + r.detail + ')' };
    var o = r.value, derived = deriveEntryId(r, b, 0, b.length);
    if (o.entry_id === undefined) return { error: 'the line has no entry_id' };
    if (o.entry_id !== derived) return { error: 'the line\'s entry_id is not the sha256 of its core (' + derived + ')' };
    return { entry_id: derived, seq: isInt(o.seq) ? o.seq : null, value: o };
  }

  // ------------------------------------------------------------------------------------------
  // Time: timestamps, calendar days, zones.

  function daysFromCivil(y, m, d) {
    y -= m <= 2 ? 1 : 0;
    var era = Math.floor(y / 400);
    var yoe = y - era * 400;
    var doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
    var doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
    return era * 146097 + doe - 719468;
  }

  function civilString(z) {
    z += 719468;
    var era = Math.floor(z / 146097);
    var doe = z - era * 146097;
    var yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
    var doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
    var mp = Math.floor((5 * doy + 2) / 153);
    var d = doy - Math.floor((153 * mp + 2) / 5) + 1;
    var m = mp + (mp < 10 ? 3 : -9);
    var y = yoe + era * 400 + (m <= 2 ? 1 : 0);
    var ys = String(Math.abs(y));
    while (ys.length < 4) ys = '0' + ys;
    return (y < 0 ? '-' : '') + ys + '-' + (m < 10 ? '0' : '') + m + '-' + (d < 10 ? '0' : '') + d;
  }

  var MONTH_DAYS = [0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

  function d2(s, p) {
    var a = s.charCodeAt(p) - 48, b = s.charCodeAt(p + 1) - 48;
    if (a < 0 || a > 9 || b < 0 || b > 9) return -1;
    return a * 10 + b;
  }

  /** parseTimestamp('YYYY-MM-DDTHH:MM:SSZ') -> seconds since 1970-01-01T00:00:00Z, or null. */
  function parseTimestamp(ts) {
    if (typeof ts !== 'string' || ts.length !== 20) return null;
    if (ts.charCodeAt(4) !== 45 || ts.charCodeAt(7) !== 45 || ts.charCodeAt(10) !== 84 ||
        ts.charCodeAt(13) !== 58 || ts.charCodeAt(16) !== 58 || ts.charCodeAt(19) !== 90) return null;
    var y1 = d2(ts, 0), y2 = d2(ts, 2), mo = d2(ts, 5), d = d2(ts, 8);
    var h = d2(ts, 11), mi = d2(ts, 14), se = d2(ts, 17);
    if (y1 < 0 || y2 < 0 || mo < 0 || d < 0 || h < 0 || mi < 0 || se < 0) return null;
    var y = y1 * 100 + y2;
    if (y < 1 || mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || se > 59) return null;
    var dim = mo === 2 && (y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0)) ? 29 : MONTH_DAYS[mo];
    if (d > dim) return null;
    return daysFromCivil(y, mo, d) * 86400 + h * 3600 + mi * 60 + se;
  }

  // Zone names of the tz database (zones and links, 2025b), exact spelling. Intl accepts more
  // (any case; ICU's own IDs such as "PST" or "SystemV/EST5"): a name is known to this verifier
  // when it is spelled as the tz database spells it AND Intl can compute with it.
  var TZDB_NAMES = [
    "Africa/Abidjan Accra Addis_Ababa Algiers Asmara Asmera Bamako Bangui Banjul Bissau Blantyre " +
    "Brazzaville Bujumbura Cairo Casablanca Ceuta Conakry Dakar Dar_es_Salaam Djibouti Douala El_Aaiun " +
    "Freetown Gaborone Harare Johannesburg Juba Kampala Khartoum Kigali Kinshasa Lagos Libreville Lome " +
    "Luanda Lubumbashi Lusaka Malabo Maputo Maseru Mbabane Mogadishu Monrovia Nairobi Ndjamena Niamey " +
    "Nouakchott Ouagadougou Porto-Novo Sao_Tome Timbuktu Tripoli Tunis Windhoek",
    "America/Adak Anchorage Anguilla Antigua Araguaina Aruba Asuncion Atikokan Atka Bahia Bahia_Banderas " +
    "Barbados Belem Belize Blanc-Sablon Boa_Vista Bogota Boise Buenos_Aires Cambridge_Bay Campo_Grande " +
    "Cancun Caracas Catamarca Cayenne Cayman Chicago Chihuahua Ciudad_Juarez Coral_Harbour Cordoba " +
    "Costa_Rica Coyhaique Creston Cuiaba Curacao Danmarkshavn Dawson Dawson_Creek Denver Detroit Dominica " +
    "Edmonton Eirunepe El_Salvador Ensenada Fort_Nelson Fort_Wayne Fortaleza Glace_Bay Godthab Goose_Bay " +
    "Grand_Turk Grenada Guadeloupe Guatemala Guayaquil Guyana Halifax Havana Hermosillo Indianapolis " +
    "Inuvik Iqaluit Jamaica Jujuy Juneau Knox_IN Kralendijk La_Paz Lima Los_Angeles Louisville " +
    "Lower_Princes Maceio Managua Manaus Marigot Martinique Matamoros Mazatlan Mendoza Menominee Merida " +
    "Metlakatla Mexico_City Miquelon Moncton Monterrey Montevideo Montreal Montserrat Nassau New_York " +
    "Nipigon Nome Noronha Nuuk Ojinaga Panama Pangnirtung Paramaribo Phoenix Port-au-Prince Port_of_Spain " +
    "Porto_Acre Porto_Velho Puerto_Rico Punta_Arenas Rainy_River Rankin_Inlet Recife Regina Resolute " +
    "Rio_Branco Rosario Santa_Isabel Santarem Santiago Santo_Domingo Sao_Paulo Scoresbysund Shiprock " +
    "Sitka St_Barthelemy St_Johns St_Kitts St_Lucia St_Thomas St_Vincent Swift_Current Tegucigalpa Thule " +
    "Thunder_Bay Tijuana Toronto Tortola Vancouver Virgin Whitehorse Winnipeg Yakutat Yellowknife",
    "America/Argentina/Buenos_Aires Catamarca ComodRivadavia Cordoba Jujuy La_Rioja Mendoza Rio_Gallegos " +
    "Salta San_Juan San_Luis Tucuman Ushuaia",
    "America/Indiana/Indianapolis Knox Marengo Petersburg Tell_City Vevay Vincennes Winamac",
    "America/Kentucky/Louisville Monticello",
    "America/North_Dakota/Beulah Center New_Salem",
    "Antarctica/Casey Davis DumontDUrville Macquarie Mawson McMurdo Palmer Rothera South_Pole Syowa Troll " +
    "Vostok",
    "Arctic/Longyearbyen",
    "Asia/Aden Almaty Amman Anadyr Aqtau Aqtobe Ashgabat Ashkhabad Atyrau Baghdad Bahrain Baku Bangkok " +
    "Barnaul Beirut Bishkek Brunei Calcutta Chita Choibalsan Chongqing Chungking Colombo Dacca Damascus " +
    "Dhaka Dili Dubai Dushanbe Famagusta Gaza Harbin Hebron Ho_Chi_Minh Hong_Kong Hovd Irkutsk Istanbul " +
    "Jakarta Jayapura Jerusalem Kabul Kamchatka Karachi Kashgar Kathmandu Katmandu Khandyga Kolkata " +
    "Krasnoyarsk Kuala_Lumpur Kuching Kuwait Macao Macau Magadan Makassar Manila Muscat Nicosia " +
    "Novokuznetsk Novosibirsk Omsk Oral Phnom_Penh Pontianak Pyongyang Qatar Qostanay Qyzylorda Rangoon " +
    "Riyadh Saigon Sakhalin Samarkand Seoul Shanghai Singapore Srednekolymsk Taipei Tashkent Tbilisi " +
    "Tehran Tel_Aviv Thimbu Thimphu Tokyo Tomsk Ujung_Pandang Ulaanbaatar Ulan_Bator Urumqi Ust-Nera " +
    "Vientiane Vladivostok Yakutsk Yangon Yekaterinburg Yerevan",
    "Atlantic/Azores Bermuda Canary Cape_Verde Faeroe Faroe Jan_Mayen Madeira Reykjavik South_Georgia " +
    "St_Helena Stanley",
    "Australia/ACT Adelaide Brisbane Broken_Hill Canberra Currie Darwin Eucla Hobart LHI Lindeman " +
    "Lord_Howe Melbourne NSW North Perth Queensland South Sydney Tasmania Victoria West Yancowinna",
    "Brazil/Acre DeNoronha East West",
    "CET CST6CDT Cuba EET EST EST5EDT Egypt Eire Factory GB GB-Eire GMT GMT+0 GMT-0 GMT0 Greenwich HST " +
    "Hongkong Iceland Iran Israel Jamaica Japan Kwajalein Libya MET MST MST7MDT NZ NZ-CHAT Navajo PRC " +
    "PST8PDT Poland Portugal ROC ROK Singapore Turkey UCT UTC Universal W-SU WET Zulu",
    "Canada/Atlantic Central Eastern Mountain Newfoundland Pacific Saskatchewan Yukon",
    "Chile/Continental EasterIsland",
    "Etc/GMT GMT+0 GMT+1 GMT+10 GMT+11 GMT+12 GMT+2 GMT+3 GMT+4 GMT+5 GMT+6 GMT+7 GMT+8 GMT+9 GMT-0 GMT-1 " +
    "GMT-10 GMT-11 GMT-12 GMT-13 GMT-14 GMT-2 GMT-3 GMT-4 GMT-5 GMT-6 GMT-7 GMT-8 GMT-9 GMT0 Greenwich " +
    "UCT UTC Universal Zulu",
    "Europe/Amsterdam Andorra Astrakhan Athens Belfast Belgrade Berlin Bratislava Brussels Bucharest " +
    "Budapest Busingen Chisinau Copenhagen Dublin Gibraltar Guernsey Helsinki Isle_of_Man Istanbul Jersey " +
    "Kaliningrad Kiev Kirov Kyiv Lisbon Ljubljana London Luxembourg Madrid Malta Mariehamn Minsk Monaco " +
    "Moscow Nicosia Oslo Paris Podgorica Prague Riga Rome Samara San_Marino Sarajevo Saratov Simferopol " +
    "Skopje Sofia Stockholm Tallinn Tirane Tiraspol Ulyanovsk Uzhgorod Vaduz Vatican Vienna Vilnius " +
    "Volgograd Warsaw Zagreb Zaporozhye Zurich",
    "Indian/Antananarivo Chagos Christmas Cocos Comoro Kerguelen Mahe Maldives Mauritius Mayotte Reunion",
    "Mexico/BajaNorte BajaSur General",
    "Pacific/Apia Auckland Bougainville Chatham Chuuk Easter Efate Enderbury Fakaofo Fiji Funafuti " +
    "Galapagos Gambier Guadalcanal Guam Honolulu Johnston Kanton Kiritimati Kosrae Kwajalein Majuro " +
    "Marquesas Midway Nauru Niue Norfolk Noumea Pago_Pago Palau Pitcairn Pohnpei Ponape Port_Moresby " +
    "Rarotonga Saipan Samoa Tahiti Tarawa Tongatapu Truk Wake Wallis Yap",
    "US/Alaska Aleutian Arizona Central East-Indiana Eastern Hawaii Indiana-Starke Michigan Mountain " +
    "Pacific Samoa"
  ];
  var tzNames = null;
  function tzNameSet() {
    if (tzNames) return tzNames;
    tzNames = new Set();
    for (var g = 0; g < TZDB_NAMES.length; g++) {
      var words = TZDB_NAMES[g].split(' ');
      var slash = words[0].lastIndexOf('/');
      var prefix = slash < 0 ? '' : words[0].slice(0, slash + 1);
      tzNames.add(words[0]);
      for (var w = 1; w < words.length; w++) tzNames.add(prefix + words[w]);
    }
    try {
      if (typeof Intl !== 'undefined' && Intl.supportedValuesOf) {
        var sup = Intl.supportedValuesOf('timeZone');
        for (var i = 0; i < sup.length; i++) tzNames.add(sup[i]);
      }
    } catch (e) { /* older engines */ }
    return tzNames;
  }

  var zones = new Map();
  // zoneInfo(name) -> {name, fmt, days: Map, hours: Map} or null when the zone is unknown.
  function zoneInfo(name) {
    if (typeof name !== 'string') return null;
    var z = zones.get(name);
    if (z !== undefined) return z;
    z = null;
    if (tzNameSet().has(name) && typeof Intl !== 'undefined' && Intl.DateTimeFormat) {
      try {
        var fmt = new Intl.DateTimeFormat('en-US-u-ca-gregory-nu-latn', {
          timeZone: name, hourCycle: 'h23', era: 'short', year: 'numeric', month: 'numeric',
          day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric'
        });
        z = { name: name, fmt: fmt, days: new Map(), hours: new Map(), lastLocalDay: NaN, lastDay: '' };
        offsetAt(z, 0); // fail here, not later, if the engine cannot format in this zone
      } catch (e) { z = null; }
    }
    zones.set(name, z);
    return z;
  }

  /** isKnownZone(name) -> true when `name` is a tz database zone this verifier can compute days in. */
  function isKnownZone(name) { return zoneInfo(name) !== null; }

  // The zone's UTC offset, in seconds, at instant t (seconds since the epoch).
  function offsetAt(z, t) {
    var parts = z.fmt.formatToParts(new Date(t * 1000));
    var y = 0, mo = 0, d = 0, h = 0, mi = 0, se = 0, bc = false;
    for (var i = 0; i < parts.length; i++) {
      var p = parts[i];
      switch (p.type) {
        case 'era': bc = /^B/i.test(p.value); break;
        case 'year': y = parseInt(p.value, 10); break;
        case 'month': mo = parseInt(p.value, 10); break;
        case 'day': d = parseInt(p.value, 10); break;
        case 'hour': h = parseInt(p.value, 10) % 24; break;
        case 'minute': mi = parseInt(p.value, 10); break;
        case 'second': se = parseInt(p.value, 10); break;
      }
    }
    if (bc) y = 1 - y;
    var off = daysFromCivil(y, mo, d) * 86400 + h * 3600 + mi * 60 + se - t;
    if (!(off === off) || Math.abs(off) > 2 * 86400) throw new RangeError('cannot compute the offset of ' + z.name);
    return off;
  }

  // The offset is looked up per UTC day when it is the same at the day's first and last second,
  // else per UTC hour likewise, else at the second itself. (This assumes no zone changes its
  // offset and changes it back within one UTC day; the tz database has no such pair.)
  function localDay(z, t) {
    var dk = Math.floor(t / 86400);
    var off = z.days.get(dk);
    if (off === undefined) {
      var a = offsetAt(z, dk * 86400), b = offsetAt(z, dk * 86400 + 86399);
      off = a === b ? a : NaN;
      z.days.set(dk, off);
    }
    if (off !== off) {
      var hk = Math.floor(t / 3600);
      off = z.hours.get(hk);
      if (off === undefined) {
        var c = offsetAt(z, hk * 3600), e = offsetAt(z, hk * 3600 + 3599);
        off = c === e ? c : NaN;
        z.hours.set(hk, off);
      }
      if (off !== off) off = offsetAt(z, t);
    }
    var ld = Math.floor((t + off) / 86400);
    if (ld !== z.lastLocalDay) { z.lastLocalDay = ld; z.lastDay = civilString(ld); }
    return z.lastDay;
  }

  /**
   * dayInZone(timestamp, zone, tzRules?) -> 'YYYY-MM-DD' (the timestamp's calendar day in the zone),
   * or null (no such zone, a bad timestamp, an instant outside the rules' span, or a year past 9999).
   * With tzRules, the zone's rules are those (see rulesZone); without, the platform's Intl.
   */
  function dayInZone(timestamp, zone, tzRules) {
    var t = parseTimestamp(timestamp);
    var z = tzRules ? rulesZone(tzRules, zone) : zoneInfo(zone);
    if (t === null || z === null) return null;
    return zoneDay(z, t);
  }

  // ------------------------------------------------------------------------------------------
  // The anchor zone's rules as data (docs/verifier.md "Days and the tz database").
  //   {tzdb: '2026f', zone: 'America/New_York', from: F, until: U, offsets: [[t, offset], ...]}
  // From instant t on (until the next pair's t) the zone is `offset` seconds east of UTC; the
  // rules hold for instants in [from, until) and nowhere else. The exhibit binary writes them
  // from the tz database compiled into it, so the page derives the days `exhibit verify` derives.

  function isSafeInt(x) { return typeof x === 'number' && Number.isInteger(x) && Math.abs(x) <= MAX_INT; }

  // rulesZone(tzRules, name) -> a zone for localDay, or null when the rules are not this zone's.
  // Malformed rules throw (a page whose data block is damaged says so rather than guessing).
  function rulesZone(r, name) {
    if (typeof name !== 'string' || r === null || typeof r !== 'object' || r.zone !== name) return null;
    if (r.__checked !== r) {
      var ok = typeof r.tzdb === 'string' && isSafeInt(r.from) && isSafeInt(r.until) && Array.isArray(r.offsets) && r.offsets.length > 0;
      for (var i = 0; ok && i < r.offsets.length; i++) {
        var p = r.offsets[i];
        ok = Array.isArray(p) && p.length === 2 && isSafeInt(p[0]) && isSafeInt(p[1]) && Math.abs(p[1]) < 2 * 86400 &&
          (i === 0 ? p[0] === r.from : p[0] > r.offsets[i - 1][0]);
      }
      if (!ok) throw new TypeError('the tz rules for ' + name + ' are malformed');
      try { Object.defineProperty(r, '__checked', { value: r, enumerable: false }); } catch (e) { /* frozen: check again */ }
    }
    return { name: name, rules: r, at: 0, lastLocalDay: NaN, lastDay: '' };
  }

  // The offset at t from the rules, or null outside their span. Ledger lines come in time order:
  // the last index found is tried first.
  function rulesOffset(z, t) {
    var r = z.rules, o = r.offsets;
    if (t < r.from || t >= r.until) return null;
    var i = z.at;
    if (!(o[i][0] <= t && (i + 1 >= o.length || t < o[i + 1][0]))) {
      var lo = 0, hi = o.length; // the last pair with pair[0] <= t
      while (hi - lo > 1) { var mid = (lo + hi) >> 1; if (o[mid][0] <= t) lo = mid; else hi = mid; }
      i = z.at = lo;
    }
    return o[i][1];
  }

  // The day of t in zone z (rules or Intl), or null when it cannot be derived or falls past 9999.
  function zoneDay(z, t) {
    var d;
    if (z.rules) {
      var off = rulesOffset(z, t);
      if (off === null) return null;
      var ld = Math.floor((t + off) / 86400);
      if (ld !== z.lastLocalDay) { z.lastLocalDay = ld; z.lastDay = civilString(ld); }
      d = z.lastDay;
    } else d = localDay(z, t);
    return d.length === 10 ? d : null; // year 10000 has no YYYY-MM-DD
  }

  // ------------------------------------------------------------------------------------------
  // The withheld list.

  function usageError(msg) {
    var e = new Error('withheld list: ' + msg);
    e.code = 'usage';
    return e;
  }

  function isDay(s) { return typeof s === 'string' && s.length === 10 && parseTimestamp(s + 'T00:00:00Z') !== null; }

  /*
   * The withheld list (docs/verifier.md "The withheld list"), from its bytes (a Uint8Array,
   * ArrayBuffer or string: read with this file's own JSON reader, so `2.0`, an integer past 2^53
   * and a key written twice are seen as written, never rounded or merged by JSON.parse) or from an
   * array already built by the caller. -> [{seq, entry_id, kind, dest_class, day, fields_flagged,
   * reason}]; a list breaking a rule throws an Error with .code = 'usage'.
   */
  function parseWithheld(input) {
    var list = input;
    if (typeof input === 'string' || input instanceof Uint8Array || input instanceof ArrayBuffer || ArrayBuffer.isView(input)) {
      var text = typeof input === 'string' ? input : utf8Decode(input);
      if (text === null) throw usageError('not valid UTF-8');
      var p = parseText(text);
      if (p.error) throw usageError('not one JSON value: ' + p.error);
      if (p.dup) throw usageError('a key is written twice in one object');
      if (!p.canon) throw usageError('the list holds ' + p.why);
      list = p.value;
    }
    if (!Array.isArray(list)) throw usageError('not a JSON array of {seq, entry_id, ...} objects');
    var out = [];
    for (var i = 0; i < list.length; i++) {
      var w = list[i];
      if (w === null || typeof w !== 'object' || Array.isArray(w) || w instanceof JsonNumber) throw usageError('item ' + i + ' is not an object');
      var seq = own(w, 'seq');
      if (typeof seq !== 'number' || !Number.isInteger(seq) || seq < 1 || seq > MAX_INT) {
        throw usageError('item ' + i + ': seq is not an integer within 1..2^53 written without fraction or exponent');
      }
      var id = own(w, 'entry_id');
      if (typeof id !== 'string') throw usageError('item ' + i + ': entry_id is not a string');
      var item = { seq: seq, entry_id: id };
      ['kind', 'dest_class', 'day', 'reason'].forEach(function (k) {
        var v = own(w, k);
        if (v === undefined || v === null) item[k] = null;
        else if (typeof v === 'string') item[k] = v;
        else throw usageError('item ' + i + ': ' + k + ' is not a string or null');
      });
      if (item.day !== null && !isDay(item.day)) throw usageError('item ' + i + ': day ' + JSON.stringify(item.day) + ' is not a YYYY-MM-DD date that exists');
      var ff = own(w, 'fields_flagged');
      if (ff === undefined) item.fields_flagged = [];
      else if (!Array.isArray(ff)) throw usageError('item ' + i + ': fields_flagged is not an array');
      else {
        for (var f = 0; f < ff.length; f++) if (typeof ff[f] !== 'string') throw usageError('item ' + i + ': fields_flagged holds a non-string');
        item.fields_flagged = ff.slice();
      }
      out.push(item);
    }
    return out;
  }
  function own(o, k) { return hasOwn.call(o, k) ? o[k] : undefined; }

  /*
   * A withheld list in files (docs/scale.md#withheld-files): [{path, bytes}] in order ->
   * the list, each file's entries in turn. Every rule of one list holds for each file (read by
   * this file's own JSON reader; entry_id 64 lowercase hex; no seq twice), and each file's seqs
   * come after every seq of the files before it. A file that breaks a rule throws a usage
   * Error naming it. The Rust build and `exhibit verify SITE` apply the same rules
   * (`read_list` in src/withheld_files.rs).
   */
  function joinWithheld(files) {
    var out = [], top = null;
    for (var k = 0; k < files.length; k++) {
      var f = files[k], items;
      try {
        items = parseWithheld(f.bytes);
        withheldMap(items);
      } catch (e) {
        if (e && e.code === 'usage') throw usageError(f.path + ': ' + String(e.message).replace(/^withheld list: /, ''));
        throw e;
      }
      var lo = null, hi = null;
      for (var i = 0; i < items.length; i++) {
        if (lo === null || items[i].seq < lo) lo = items[i].seq;
        if (hi === null || items[i].seq > hi) hi = items[i].seq;
      }
      if (lo !== null && top !== null && lo <= top) {
        throw usageError(f.path + ': its seq ' + lo + ' is not after seq ' + top + ' of the file before: the list\'s files are in seq order');
      }
      if (hi !== null) top = hi;
      for (var j = 0; j < items.length; j++) out.push(items[j]);
    }
    return out;
  }

  // -> Map seq -> {seq, entry_id, day}
  function withheldMap(list) {
    var m = new Map();
    if (list === null || list === undefined) return m;
    var items = parseWithheld(list);
    for (var i = 0; i < items.length; i++) {
      var w = items[i];
      if (!/^[0-9a-f]{64}$/.test(w.entry_id)) throw usageError('seq ' + w.seq + ': entry_id is not 64 lowercase hex characters');
      if (m.has(w.seq)) throw usageError('seq ' + w.seq + ' is listed twice');
      m.set(w.seq, { seq: w.seq, entry_id: w.entry_id, day: w.day });
    }
    return m;
  }

  function isInt(v) { return typeof v === 'number'; } // the reader makes numbers of admitted integers only
  function nextSeq(s) { return s >= MAX_INT ? BEYOND : s + 1; }

  // ------------------------------------------------------------------------------------------
  // verifyLedger (docs/verifier.md "Input", "The header", "Chaining entries", "The answer").
  //
  // The ledger is read by a Verifier that takes its bytes in pieces (a light page streams the
  // published ledger file by file, docs/page.md "The light page"): push() each piece in chain
  // order, finish() for the answer. A line cut between two pieces is carried over, as `cat`
  // would join them. At a piece boundary with no line carried over, checkpoint() returns the
  // reader's whole state as plain JSON; Verifier.resume(checkpoint, …) continues from it, and
  // resuming then pushing the rest gives the same answer as one pass over all the bytes.

  var CHECKPOINT_VERSION = 1;

  function freshState() {
    return {
      v: CHECKPOINT_VERSION,
      bytes: 0,              // bytes of whole lines read so far
      lineNo: 0,
      entries: 0,
      linesTotal: 0,         // readable entry lines (the records a full pass would return)
      header: null,          // the header line's bytes as a latin1 string (null: no header)
      headerDigest: null,
      anchorTz: null,
      hasPrev: false,        // an entry line has been read
      prevNext: 1,           // expected seq after the previous entry
      prevId: null,          // expected prev after the previous entry
      prevEntryId: null,     // the previous entry's stated entry_id (the head when all is well)
      lastSeq: null,         // the last entry's stated seq
      problems: [],
      bridged: [],
      pubListed: [],         // published seqs that the withheld list also names
      // What the anchor checks need (docs/verifier.md "The anchor checks"), kept as the lines
      // pass: per day its last seq and that seq's stated entry_ids; the stated entry_ids at the
      // watched seqs (the posts' seqs); every anchor line's four fields.
      dayLast: [],           // [[day, seq, [entry_id...]]]
      ids: [],               // [[seq as a string, [entry_id...]]]
      anchorLines: []        // [{anchor_date, anchor_head, anchor_head_seq, anchor_text_sha256}]
    };
  }

  function Verifier(withheld, tzRules, opts) {
    opts = opts || {};
    this.W = withheldMap(withheld);
    this.tzRules = tzRules || null;
    this.keepLines = opts.keepLines !== false;
    this.onProgress = typeof opts.onProgress === 'function' ? opts.onProgress : null;
    this.watch = new Set((opts.watchSeqs || []).map(String));
    this.lines = [];
    this.pending = null;
    this.finished = false;
    this.gapSteps = 0; // withheld seqs looked at or marked by the bridging (tests/js/linear.test.cjs)
    this.runLast = runLasts(this.W);
    this._load(opts.checkpoint || freshState());
  }

  // Listed seq -> the last seq of its run of consecutive listed seqs: a gap is wholly listed
  // when its first seq's run reaches its last seq (docs/verifier.md "Linear in the input").
  function runLasts(W) {
    var seqs = Array.from(W.keys()).sort(function (a, b) { return a - b; });
    var m = new Map();
    for (var i = seqs.length - 1; i >= 0; i--) {
      m.set(seqs[i], i + 1 < seqs.length && seqs[i + 1] === seqs[i] + 1 ? m.get(seqs[i + 1]) : seqs[i]);
    }
    return m;
  }

  // Marks the listed seqs from..to-1 bridged. `skip` jumps over seqs already marked (with path
  // halving), so each seq is marked once however often its gap is crossed: a ledger crossing the
  // same gap on every other line does the gap's work once, not once per line.
  Verifier.prototype._bridge = function (from, to) {
    var skip = this.skip, set = this.bridgedSet, self = this;
    function free(q) {
      while (skip.has(q)) {
        self.gapSteps++;
        var n = skip.get(q);
        if (skip.has(n)) skip.set(q, skip.get(n));
        q = n;
      }
      return q;
    }
    for (var q = free(from); q < to; q = free(q + 1)) {
      this.gapSteps++;
      set.add(q);
      skip.set(q, q + 1);
    }
  };

  // The state in working form (Sets and Maps), from its JSON form.
  Verifier.prototype._load = function (cp) {
    if (!cp || cp.v !== CHECKPOINT_VERSION) throw usageError('not a checkpoint of this verifier (version ' + (cp && cp.v) + ')');
    var s = this.s = JSON.parse(JSON.stringify(cp));
    this.bridgedSet = new Set(s.bridged);
    this.skip = new Map();
    for (var b = 0; b < s.bridged.length; b++) this.skip.set(s.bridged[b], s.bridged[b] + 1);
    this.pubListed = new Set(s.pubListed);
    this.dayLast = new Map();
    for (var i = 0; i < s.dayLast.length; i++) this.dayLast.set(s.dayLast[i][0], { seq: s.dayLast[i][1], ids: s.dayLast[i][2] });
    this.ids = new Map();
    for (i = 0; i < s.ids.length; i++) this.ids.set(s.ids[i][0], s.ids[i][1]);
    this.headerObj = null;
    this.zone = null;
    if (s.header !== null) {
      var hb = new Uint8Array(s.header.length);
      for (i = 0; i < hb.length; i++) hb[i] = s.header.charCodeAt(i);
      var hr = readRange(hb, 0, hb.length);
      this.headerObj = hr.readable ? hr.value : null;
    }
    if (s.anchorTz !== null) this.zone = this.tzRules ? rulesZone(this.tzRules, s.anchorTz) : zoneInfo(s.anchorTz);
  };

  /** The reader's state at this boundary as plain JSON, or null when a line is cut here. */
  Verifier.prototype.checkpoint = function () {
    if (this.finished) throw new Error('checkpoint after finish');
    if (this.pending && this.pending.length) return null;
    var s = this.s;
    s.bridged = Array.from(this.bridgedSet);
    s.pubListed = Array.from(this.pubListed);
    s.dayLast = [];
    this.dayLast.forEach(function (d, day) { s.dayLast.push([day, d.seq, d.ids.slice()]); });
    s.ids = [];
    this.ids.forEach(function (v, k) { s.ids.push([k, v.slice()]); });
    return JSON.parse(JSON.stringify(s));
  };

  /** The lines read since the last call (their records), and forgets them. */
  Verifier.prototype.takeLines = function () { var l = this.lines; this.lines = []; return l; };

  Verifier.prototype.push = function (bytes) {
    if (this.finished) throw new Error('push after finish');
    bytes = toBytes(bytes);
    var s = this.s, W = this.W, self = this;
    var data = bytes, base = s.bytes;
    if (this.pending && this.pending.length) {
      data = new Uint8Array(this.pending.length + bytes.length);
      data.set(this.pending, 0);
      data.set(bytes, this.pending.length);
    }
    this.pending = null;
    var n = data.length, pos = 0;
    var problems = s.problems, lines = this.lines, keep = this.keepLines;
    var progress = this.onProgress;
    var zone = this.zone;
    var curCodes = null;
    function problem(line, seq, code, detail) {
      problems.push({ line: line, seq: seq, code: code, detail: detail });
      if (curCodes) curCodes.push(code);
    }
    function noteIds(seq, day, id) {
      if (typeof day === 'string') {
        var d = self.dayLast.get(day);
        if (d === undefined || seq > d.seq) self.dayLast.set(day, { seq: seq, ids: [id] });
        else if (seq === d.seq) d.ids.push(id);
      }
      var k = String(seq);
      if (self.watch.has(k)) {
        var a = self.ids.get(k);
        if (!a) self.ids.set(k, a = []);
        a.push(id);
      }
    }

    while (pos < n) {
      var lf = data.indexOf(10, pos);
      if (lf < 0) { this.pending = data.slice(pos); break; }
      s.lineNo++;
      var lineNo = s.lineNo;
      if (progress && lineNo % PROGRESS_EVERY === 0) progress(lineNo - 1, base + pos);
      var start = pos, end = lf;
      pos = lf + 1;
      if (start === end) {
        if (lineNo === 1) problem(1, null, 'missing_header', 'line 1 is blank');
        continue;
      }
      if (lineNo > 1) s.entries++;
      var r = readRange(data, start, end);
      var o = r.value;

      if (lineNo === 1) {
        curCodes = null;
        if (r.code) problem(1, null, r.code, r.detail);
        if (!r.readable || o.schema !== HEADER_SCHEMA) {
          problem(1, null, 'missing_header', !r.readable
            ? 'line 1 is not readable, so there is no header'
            : 'line 1 is not a header: its schema is not "' + HEADER_SCHEMA + '"');
          continue;
        }
        this.headerObj = o;
        s.header = latin1(data.subarray(start, end));
        if (r.canonicalisable) s.headerDigest = sha256HexOfString(HEADER_DOMAIN + r.canonical);
        var tz = o.anchor_tz;
        zone = this.zone = this.tzRules ? rulesZone(this.tzRules, tz) : zoneInfo(tz);
        if (zone === null) {
          problem(1, null, 'bad_header', tz === undefined ? 'the header has no anchor_tz'
            : typeof tz !== 'string' ? 'the header\'s anchor_tz is not a string'
            : this.tzRules ? 'the header\'s anchor_tz ' + JSON.stringify(tz) + ' is not the zone whose rules this page carries (' +
              JSON.stringify(this.tzRules.zone) + ', tz database ' + this.tzRules.tzdb + ')'
            : 'the header\'s anchor_tz ' + JSON.stringify(tz) + ' is not a tz database zone this verifier knows');
        } else s.anchorTz = tz;
        continue;
      }

      // An entry line.
      var sSeq = r.readable && isInt(o.seq) ? o.seq : null;
      curCodes = [];
      if (r.code) problem(lineNo, sSeq, r.code, r.detail);
      if (!r.readable) { curCodes = null; continue; }

      var expSeq = s.hasPrev ? s.prevNext : 1;
      var expPrev = s.hasPrev ? s.prevId : s.headerDigest;

      // Bridging over withheld seqs.
      // The gap is wholly listed when its first seq is and that seq's run of consecutive listed
      // seqs reaches its last: one look-up, not a walk over the gap; and each listed seq is marked
      // bridged once however often a gap is crossed (docs/verifier.md "Linear in the input").
      if (sSeq !== null && sSeq > expSeq && W.has(expSeq)) {
        this.gapSteps++;
        if (this.runLast.get(expSeq) >= sSeq - 1) {
          this._bridge(expSeq, sSeq);
          expSeq = sSeq;
          expPrev = W.get(sSeq - 1).entry_id;
        }
      }

      var derived = r.canonicalisable ? deriveEntryId(r, data, start, end) : null;

      if (o.schema !== ENTRY_SCHEMA) {
        problem(lineNo, sSeq, 'bad_schema', 'schema is ' + describe(o.schema) + ', not "' + ENTRY_SCHEMA + '"');
      }
      if (r.canonicalisable) {
        if (typeof o.entry_id !== 'string' || o.entry_id !== derived) {
          problem(lineNo, sSeq, 'entry_id_mismatch', 'entry_id is ' + describe(o.entry_id) + '; the core re-derives to ' + derived);
        }
      }
      if (expPrev !== null && !(typeof o.prev === 'string' && o.prev === expPrev)) {
        problem(lineNo, sSeq, 'prev_mismatch', 'prev is ' + describe(o.prev) + '; expected ' + expPrev);
      }
      if (sSeq === null || sSeq !== expSeq) {
        problem(lineNo, sSeq, 'seq_mismatch', 'seq is ' + describe(o.seq) + '; expected ' + (expSeq >= BEYOND ? 'a seq beyond 2^53' : expSeq));
      }
      var t = parseTimestamp(o.timestamp);
      var derivedDay = null;
      if (t === null) {
        problem(lineNo, sSeq, 'bad_timestamp', 'timestamp is ' + describe(o.timestamp) + ', not a real YYYY-MM-DDTHH:MM:SSZ');
      } else if (zone !== null) {
        derivedDay = zoneDay(zone, t);
        if (derivedDay === null || o.day !== derivedDay) {
          problem(lineNo, sSeq, 'day_mismatch', 'day is ' + describe(o.day) + '; ' + (derivedDay === null && zone.rules && rulesOffset(zone, t) === null
            ? o.timestamp + ' is outside the span of the tz rules this page carries, so no day can be derived for it'
            : o.timestamp + ' falls on ' + (derivedDay || 'a date past 9999-12-31') + ' in ' + zone.name) + ' by ' + tzSource(zone));
        }
      }
      if (sSeq !== null && W.has(sSeq)) {
        problem(lineNo, sSeq, 'withheld_conflict', 'seq ' + sSeq + ' is published here and also listed as withheld');
      }

      var statedId = typeof o.entry_id === 'string' ? o.entry_id : null;
      if (keep) {
        lines.push({
          line: lineNo,
          seq: sSeq,
          entry_id: statedId,
          derived_entry_id: derived,
          day: typeof o.day === 'string' ? o.day : null,
          derived_day: derivedDay,
          kind: typeof o.kind === 'string' ? o.kind : null,
          timestamp: typeof o.timestamp === 'string' ? o.timestamp : null,
          object: o,
          codes: curCodes
        });
      }
      curCodes = null;
      s.linesTotal++;
      if (sSeq !== null) {
        if (W.has(sSeq)) this.pubListed.add(sSeq);
        noteIds(sSeq, o.day, statedId);
      }
      if (o.kind === 'anchor' && typeof o.anchor_date === 'string') {
        var str = function (v) { return typeof v === 'string' ? v : null; };
        s.anchorLines.push({ anchor_date: o.anchor_date, anchor_head: str(o.anchor_head),
          anchor_head_seq: isInt(o.anchor_head_seq) ? o.anchor_head_seq : null, anchor_text_sha256: str(o.anchor_text_sha256) });
      }
      s.hasPrev = true;
      s.lastSeq = sSeq;
      s.prevNext = nextSeq(sSeq !== null ? sSeq : expSeq);
      s.prevId = statedId !== null ? statedId : derived;
      s.prevEntryId = statedId;
    }
    s.bytes = base + (this.pending ? n - this.pending.length : n);
    return this;
  };

  /** The answer over every byte pushed (the shape of verifyLedger's). */
  Verifier.prototype.finish = function () {
    if (this.finished) throw new Error('finish twice');
    this.finished = true;
    var s = this.s, W = this.W;
    var problems = s.problems.slice();
    if (this.pending && this.pending.length) {
      s.lineNo++;
      problems.push({ line: s.lineNo, seq: null, code: 'truncated_tail', detail: 'the last line (' + this.pending.length + ' bytes) has no LF; it is not read' });
      if (s.lineNo === 1) problems.push({ line: 1, seq: null, code: 'missing_header', detail: 'line 1 is an unterminated tail, not a header' });
    } else if (s.lineNo === 0) {
      problems.push({ line: 1, seq: null, code: 'missing_header', detail: 'the file is empty: there is no line 1' });
    }
    var total = s.bytes + (this.pending ? this.pending.length : 0);

    // Listed seqs after the last entry extend the head.
    var bridgedSet = new Set(this.bridgedSet);
    var tailHead = null;
    var q = s.hasPrev ? s.prevNext : 1;
    while (W.has(q)) {
      bridgedSet.add(q);
      tailHead = W.get(q).entry_id;
      q = nextSeq(q);
    }

    // Listed seqs neither published nor bridged: reported with line 0, after every line's problems,
    // by seq. (docs/verifier.md says "ordered by line"; vectors/vectors.json, written by the Rust
    // verifier, puts them last — the vectors are followed here; see the report to the lead.)
    var listed = Array.from(W.keys()).sort(function (a, b) { return a - b; });
    for (var i = 0; i < listed.length; i++) {
      var ls = listed[i];
      if (!this.pubListed.has(ls) && !bridgedSet.has(ls)) {
        problems.push({ line: 0, seq: ls, code: 'withheld_unreachable',
          detail: 'seq ' + ls + ' is listed as withheld but no gap or tail of the ledger reaches it' });
      }
    }

    var ok = problems.length === 0;
    var head = null;
    if (ok) head = tailHead !== null ? tailHead : s.hasPrev ? s.prevEntryId : s.headerDigest;
    if (this.onProgress) this.onProgress(s.lineNo, total);
    var state = this.checkpointState();
    return {
      ok: ok,
      entries: s.entries,
      head: head,
      problems: problems,
      bridged: Array.from(bridgedSet).sort(function (a, b) { return a - b; }),
      headerDigest: s.headerDigest,
      anchorTz: s.anchorTz,
      tzSource: this.zone ? tzSource(this.zone) : null,
      header: this.headerObj,
      lines: this.lines,
      lineCount: s.lineNo,
      linesTotal: s.linesTotal,
      lastSeq: s.lastSeq,
      bytes: total,
      anchorState: state
    };
  };

  // What checkAnchors reads, from the state as the lines passed (no line records needed).
  Verifier.prototype.checkpointState = function () {
    return { dayLast: this.dayLast, ids: this.ids, anchorLines: this.s.anchorLines };
  };

  /**
   * verifyLedger(bytes, withheld, onProgress) ->
   *   {ok, entries, head, problems: [{line, seq, code, detail}], bridged: [seq...], headerDigest,
   *    anchorTz, header, lines: [{line, seq, entry_id, derived_entry_id, day, kind, timestamp,
   *    object, codes}], lineCount}
   * `withheld`: null, or the withheld list's bytes (see parseWithheld; the page passes the bytes),
   * or an array already built; an invalid list throws an Error with .code = 'usage'.
   * `onProgress(linesDone, bytesDone)` is called now and then. `tzRules`: the anchor zone's rules
   * as data (see rulesZone), from which days are derived; without them, the platform's Intl.
   */
  function verifyLedger(bytes, withheld, onProgress, tzRules) {
    var r = new Verifier(withheld, tzRules, { onProgress: onProgress }).push(bytes).finish();
    delete r.anchorState; // the lines are all here: checkAnchors reads them
    return r;
  }

  function tzSource(z) {
    return z.rules ? 'tz database ' + z.rules.tzdb + ' (carried in this page)' : 'this browser\'s own time-zone data (Intl)';
  }

  // A canonical line is the canonical dump of its object, so the core's dump is the line without
  // its root `"entry_id":…` member and one comma. Returns [cut start, cut end) in characters.
  function entryIdCut(s, ks, ve) {
    if (s.charCodeAt(ks - 1) === 44) return [ks - 1, ve];   // …,"entry_id":…
    if (s.charCodeAt(ve) === 44) return [ks, ve + 1];       // {"entry_id":…,…
    return [ks, ve];                                         // {"entry_id":…}
  }
  function coreOfCanonical(s, ks, ve) {
    var cut = entryIdCut(s, ks, ve);
    return s.slice(0, cut[0]) + s.slice(cut[1]);
  }

  // The entry_id a readable, canonicalisable line re-derives to.
  function deriveEntryId(r, bytes, start, end) {
    if (fastCanonical && r.code === null && r.eidStart > 0 && r.eidEnd > r.eidStart) {
      if (r.text.length === end - start) {
        // An ASCII line: characters are bytes; hash the line's own bytes around the cut.
        var cut = entryIdCut(r.text, r.eidStart, r.eidEnd);
        var len = end - start - (cut[1] - cut[0]);
        if (len > encBuf.length) encBuf = new Uint8Array(Math.max(len, encBuf.length * 2));
        encBuf.set(bytes.subarray(start, start + cut[0]), 0);
        encBuf.set(bytes.subarray(start + cut[1], end), cut[0]);
        shaRange(encBuf, 0, len);
        return shaHexOut();
      }
      return sha256HexOfString(coreOfCanonical(r.text, r.eidStart, r.eidEnd));
    }
    return sha256HexOfString(dumpTrusted(r.value, 'entry_id'));
  }

  function describe(v) {
    if (v === undefined) return 'missing';
    if (v instanceof JsonNumber) return v.text;
    try {
      var s = JSON.stringify(v);
      return s.length > 80 ? s.slice(0, 77) + '...' : s;
    } catch (e) { return String(v); }
  }

  // ------------------------------------------------------------------------------------------
  // The anchor checks (docs/verifier.md "The anchor checks").

  /**
   * What the anchor checks read of a verification: the stated entry_ids at a seq, each day's
   * largest seq, each date's anchor lines. From the line records when the answer carries them
   * all, else from the state a streaming Verifier kept (`anchorState`), which holds the ids at
   * the seqs it was asked to watch and at each day's last seq; `idsAt` of any other seq is
   * undefined there, so a caller resuming a stream must watch every post's seq (docs/page.md).
   */
  function anchorView(result) {
    var maxSeqOfDay = new Map(), anchorsOf = new Map();
    function addAnchor(a) {
      if (!anchorsOf.has(a.anchor_date)) anchorsOf.set(a.anchor_date, []);
      anchorsOf.get(a.anchor_date).push(a);
    }
    var st = result && result.anchorState;
    if (st) {
      st.dayLast.forEach(function (d, day) { maxSeqOfDay.set(day, d.seq); });
      st.anchorLines.forEach(addAnchor);
      var bySeqOfDay = new Map();
      st.dayLast.forEach(function (d) { bySeqOfDay.set(String(d.seq), d.ids); });
      return {
        maxSeqOfDay: maxSeqOfDay, anchorsOf: anchorsOf,
        idsAt: function (N) { return st.ids.get(N) || bySeqOfDay.get(N); }
      };
    }
    var bySeq = new Map();      // String(seq) -> [stated entry_id]
    var lines = (result && result.lines) || [];
    for (var i = 0; i < lines.length; i++) {
      var L = lines[i], o = L.object;
      if (L.seq !== null) {
        var key = String(L.seq);
        if (!bySeq.has(key)) bySeq.set(key, []);
        bySeq.get(key).push(L.entry_id);
        if (typeof o.day === 'string') {
          var m = maxSeqOfDay.get(o.day);
          if (m === undefined || L.seq > m) maxSeqOfDay.set(o.day, L.seq);
        }
      }
      if (o.kind === 'anchor' && typeof o.anchor_date === 'string') addAnchor(o);
    }
    return { maxSeqOfDay: maxSeqOfDay, anchorsOf: anchorsOf, idsAt: function (N) { return bySeq.get(N); } };
  }

  /**
   * datesWithoutPost(verifyResult, posts: [{date}]) -> ['YYYY-MM-DD', ...]: the dates the
   * published `anchor` lines name (an `anchor_date` string of that shape) that no post is for,
   * sorted, each once. The ledger's own line says a head was posted that day; a site that
   * holds no post for it dropped a head no one can check (docs/verifier.md). The same rule as
   * `anchors::dates_without_post` in the Rust verifier.
   */
  function datesWithoutPost(result, posts) {
    var have = new Set(), out = [];
    (posts || []).forEach(function (p) { have.add(String(p.date)); });
    anchorView(result).anchorsOf.forEach(function (_, date) {
      if (/^[0-9]{4}-[0-9]{2}-[0-9]{2}$/.test(date) && !have.has(date)) out.push(date);
    });
    return out.sort();
  }

  /**
   * checkAnchors(verifyResult, withheld, posts: [{date, text}]) ->
   *   [{date, ok, format, head, day_closed, ledger_line, post_head, post_seq, text_sha256}]
   * `text` is the post's exact bytes: a Uint8Array, or a string taken as its UTF-8.
   */
  function checkAnchors(result, withheld, posts) {
    var W = withheldMap(withheld);
    var view = anchorView(result);
    var maxSeqOfDay = view.maxSeqOfDay, anchorsOf = view.anchorsOf;
    W.forEach(function (w) {
      if (typeof w.day !== 'string' || typeof w.seq !== 'number') return;
      var m = maxSeqOfDay.get(w.day);
      if (m === undefined || w.seq > m) maxSeqOfDay.set(w.day, w.seq);
    });

    var out = [];
    for (var p = 0; p < (posts || []).length; p++) {
      var post = posts[p];
      var D = String(post.date);
      var raw = post.text !== undefined ? post.text : post.bytes;
      var bytes = toBytes(raw === undefined ? '' : raw);
      var text = '';
      var ascii = true;
      for (var j = 0; j < bytes.length; j++) { if (bytes[j] > 127) { ascii = false; break; } }
      if (ascii) text = latin1(bytes);
      var res = { date: D, ok: false, format: 'fail', head: 'skipped', day_closed: 'skipped', ledger_line: 'skipped',
        post_head: null, post_seq: null, text_sha256: sha256Hex(bytes) };
      out.push(res);
      var prefix = 'gate anchor ' + D + ' head ';
      var m = ascii && text.startsWith(prefix) ? /^([0-9a-f]{64}) seq (0|[1-9][0-9]{0,15})$/.exec(text.slice(prefix.length)) : null;
      if (!m) continue;
      var H = m[1], N = m[2];
      res.format = 'ok';
      res.post_head = H;
      res.post_seq = N;

      // head
      if (N === '0') res.head = result && result.headerDigest === H ? 'ok' : 'fail';
      else {
        var pub = view.idsAt(N);
        var wn = N.length <= 16 ? W.get(Number(N)) : undefined;
        if (wn && String(wn.seq) !== N) wn = undefined;
        // Every published line stating seq N must carry H (two lines stating one seq fix no head
        // unless both carry it), and a published line decides whatever the withheld list says
        // of its seq (docs/verifier.md "The anchor checks").
        if (pub && pub.length) res.head = pub.every(function (id) { return id === H; }) ? 'ok' : 'fail';
        else if (wn) res.head = wn.entry_id === H ? 'lab_word' : 'fail';
        else res.head = 'absent';
      }

      // day_closed
      var mx = maxSeqOfDay.get(D);
      res.day_closed = mx !== undefined && greaterThan(mx, N) ? 'fail' : 'ok';

      // ledger_line
      var al = anchorsOf.get(D);
      if (!al) res.ledger_line = 'absent';
      else {
        var agrees = true;
        for (var a = 0; a < al.length; a++) {
          var e = al[a];
          if (e.anchor_head !== H || typeof e.anchor_head_seq !== 'number' || String(e.anchor_head_seq) !== N ||
              e.anchor_text_sha256 !== res.text_sha256) { agrees = false; break; }
        }
        res.ledger_line = agrees ? 'agrees' : 'disagrees';
      }
      res.ok = (res.head === 'ok' || res.head === 'lab_word') && res.day_closed === 'ok' &&
        (res.ledger_line === 'agrees' || res.ledger_line === 'absent');
    }
    return out;
  }

  function latin1(bytes) {
    var s = '';
    for (var i = 0; i < bytes.length; i += 4096) s += String.fromCharCode.apply(null, bytes.subarray(i, i + 4096));
    return s;
  }

  // seq (a number ≤ 2^53) > N (decimal digits without leading zeros)
  function greaterThan(seq, N) {
    if (seq < 0) return false;
    var a = String(seq);
    if (a.length !== N.length) return a.length > N.length;
    return a > N;
  }

  // ------------------------------------------------------------------------------------------
  // The tree (docs/tree.md): the chain as the Merkle tree of RFC 6962, published under
  // ledger/tree/ in the layout of C2SP tlog-tiles and tlog-checkpoint.
  //
  // - Leaf i is the line with seq i+1; its entry is the 32 raw bytes of that line's entry_id
  //   (the withheld list's digest for a withheld line). Leaf hash SHA-256(00 ‖ entry), node
  //   SHA-256(01 ‖ left ‖ right), empty tree SHA-256 of nothing (docs/tree.md#leaves).
  // - `expectedTreeFiles` makes every file the tree at size n has (docs/tree.md#layout, #index,
  //   #checkpoint) and `checkTreeFiles` holds a site's files to them with the four codes of
  //   docs/tree.md#verifiers.
  // - The proofs are RFC 9162's (§2.1.3 inclusion, §2.1.4 consistency). The page computes them
  //   from a few hash tiles: a proof node that is a perfect subtree of height h, 8L ≤ h < 8L+8,
  //   is the root of 2^(h−8L) consecutive hashes of one level-L tile; a node at the tree's right
  //   edge is folded from the perfect subtrees it splits into.
  //
  // Pure and synchronous over Uint8Array, hashed with the SHA-256 above; no DOM, no network.
  // Sizes and indices are numbers up to 2^53, so no bitwise operator touches them. The paths
  // below are relative to ledger/tree/.

  var TILE_WIDTH = 256;       // hashes a full tile holds (tlog-tiles: tile height 8)
  var TILE_BYTES = TILE_WIDTH * 32;
  var INDEX_BLOCK = 1024;     // seqs a block of the digest index covers
  var TREE_DIR = 'ledger/tree/';
  var EMPTY_BYTES = new Uint8Array(0);
  var EMPTY_ROOT = sha256(EMPTY_BYTES);
  var HEX64 = /^[0-9a-f]{64}$/;
  var DECIMAL = /^(0|[1-9][0-9]*)$/;

  // One padded SHA-256 block for a leaf (00 ‖ entry: 33 bytes = 264 bits), two for a node
  // (01 ‖ left ‖ right: 65 bytes = 520 bits); only the hashed bytes change between calls.
  var LEAF_BLOCK = new Uint8Array(64);
  LEAF_BLOCK[33] = 0x80; LEAF_BLOCK[62] = 0x01; LEAF_BLOCK[63] = 0x08;
  var NODE_BLOCK = new Uint8Array(128);
  NODE_BLOCK[0] = 0x01; NODE_BLOCK[65] = 0x80; NODE_BLOCK[126] = 0x02; NODE_BLOCK[127] = 0x08;

  // The leaf hash of src[so, so+32) into dst at dOff.
  function leafInto(src, so, dst, dOff) {
    var b = LEAF_BLOCK;
    for (var i = 0; i < 32; i++) b[1 + i] = src[so + i];
    shaInit();
    shaCompress(SHA_H, b, 0);
    shaOut(dst, dOff);
  }

  // The node hash of a[ao, ao+32) and c[co, co+32) into dst at dOff (dst may be either input).
  function nodeInto(a, ao, c, co, dst, dOff) {
    var b = NODE_BLOCK;
    for (var i = 0; i < 32; i++) { b[1 + i] = a[ao + i]; b[33 + i] = c[co + i]; }
    shaInit();
    shaCompress(SHA_H, b, 0);
    shaCompress(SHA_H, b, 64);
    shaOut(dst, dOff);
  }

  function copy32(src, so, dst, dOff) {
    for (var i = 0; i < 32; i++) dst[dOff + i] = src[so + i];
  }

  var RUN_SCRATCH = new Uint8Array(TILE_BYTES / 2);
  // The root of `count` consecutive hashes src[off …] (count a power of two, at most 256: a
  // perfect subtree) into dst at dOff.
  function perfectInto(src, off, count, dst, dOff) {
    var s = RUN_SCRATCH, w = count >> 1, i;
    if (count === 1) { copy32(src, off, dst, dOff); return; }
    for (i = 0; i < w; i++) nodeInto(src, off + 64 * i, src, off + 64 * i + 32, s, 32 * i);
    for (; w > 1; w >>= 1) {
      for (i = 0; i < w >> 1; i++) nodeInto(s, 64 * i, s, 64 * i + 32, s, 32 * i);
    }
    copy32(s, 0, dst, dOff);
  }

  function is32(x) { return x instanceof Uint8Array && x.length === 32; }
  function need32(x, what) {
    if (!is32(x)) throw new TypeError(what + ' must be a Uint8Array of 32 bytes');
    return x;
  }
  function isCount(x) { return typeof x === 'number' && Number.isSafeInteger(x) && x >= 0; }
  function needCount(x, what) {
    if (!isCount(x)) throw new RangeError(what + ' must be an integer from 0 to 2^53 - 1, not ' + x);
    return x;
  }
  function bytesEqual(a, b) {
    if (a.length !== b.length) return false;
    for (var i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
    return true;
  }
  function half(x) { return Math.floor(x / 2); }
  function pow256(L) { return Math.pow(256, L); }

  /** leafHash(entry: Uint8Array(32)) -> Uint8Array(32): SHA-256(00 ‖ entry). */
  function leafHash(entry) {
    var out = new Uint8Array(32);
    leafInto(need32(entry, 'an entry'), 0, out, 0);
    return out;
  }

  /** nodeHash(left, right: Uint8Array(32)) -> Uint8Array(32): SHA-256(01 ‖ left ‖ right). */
  function nodeHash(left, right) {
    var out = new Uint8Array(32);
    nodeInto(need32(left, 'left'), 0, need32(right, 'right'), 0, out, 0);
    return out;
  }

  /**
   * rootOf(leafHashes: [Uint8Array(32)]) -> Uint8Array(32): RFC 6962's MTH over the leaf hashes,
   * SHA-256 of nothing for none. Built level by level, a level's odd last node carried up as it
   * is, which gives the split at the largest power of two below n.
   */
  function rootOf(leafHashes) {
    var n = leafHashes.length, buf, i, w;
    if (n === 0) return EMPTY_ROOT.slice();
    buf = new Uint8Array(n * 32);
    for (i = 0; i < n; i++) buf.set(need32(leafHashes[i], 'a leaf hash'), 32 * i);
    for (w = n; w > 1; w = (w + 1) >> 1) {
      for (i = 0; i < w >> 1; i++) nodeInto(buf, 64 * i, buf, 64 * i + 32, buf, 32 * i);
      if (w & 1) copy32(buf, 32 * (w - 1), buf, 32 * (w >> 1));
    }
    return buf.slice(0, 32);
  }

  // ---- Names (docs/tree.md#layout)

  function pad3(x) { return x < 10 ? '00' + x : x < 100 ? '0' + x : String(x); }

  // A tile number as tlog-tiles writes it: 1234067 -> x001/x234/067, 5 -> 005.
  function tileNumber(n) {
    var s = pad3(n % 1000);
    for (n = Math.floor(n / 1000); n > 0; n = Math.floor(n / 1000)) s = 'x' + pad3(n % 1000) + '/' + s;
    return s;
  }

  function tileName(n, width) {
    needCount(n, 'a tile number');
    if (width === undefined) width = TILE_WIDTH;
    if (!(typeof width === 'number' && Number.isInteger(width) && width >= 1 && width <= TILE_WIDTH)) {
      throw new RangeError('a tile width must be an integer from 1 to 256, not ' + width);
    }
    return tileNumber(n) + (width === TILE_WIDTH ? '' : '.p/' + width);
  }

  /** tilePath(level, n, width = 256) -> 'tile/<L>/<N>[.p/<W>]' */
  function tilePath(level, n, width) {
    if (!(typeof level === 'number' && Number.isInteger(level) && level >= 0 && level <= 7)) {
      throw new RangeError('a tile level must be an integer from 0 to 7, not ' + level);
    }
    return 'tile/' + level + '/' + tileName(n, width);
  }

  /** entriesPath(n, width = 256) -> 'tile/entries/<N>[.p/<W>]' */
  function entriesPath(n, width) { return 'tile/entries/' + tileName(n, width); }

  /** linesPath(n, width = 256) -> 'lines/<N>[.p/<W>]' */
  function linesPath(n, width) { return 'lines/' + tileName(n, width); }

  /** indexRunPath(level, run, prefix) -> 'index/<k>/<r>/<prefix>' (prefix: k+1 lowercase hex) */
  function indexRunPath(level, run, prefix) {
    if (!(Number.isInteger(level) && level >= 0 && level <= 14)) throw new RangeError('an index level is 0 to 14, not ' + level);
    needCount(run, 'an index run');
    if (typeof prefix !== 'string' || prefix.length !== level + 1 || !/^[0-9a-f]+$/.test(prefix)) {
      throw new RangeError('a level-' + level + ' bucket prefix is ' + (level + 1) + ' lowercase hex digits, not ' + prefix);
    }
    return 'index/' + level + '/' + run + '/' + prefix;
  }

  /** indexTailPath(block, width) -> 'index/tail/<b>.p/<W>' (W from 1 to 1023) */
  function indexTailPath(block, width) {
    needCount(block, 'an index block');
    if (!(Number.isInteger(width) && width >= 1 && width < INDEX_BLOCK)) throw new RangeError('a tail width is 1 to 1023, not ' + width);
    return 'index/tail/' + block + '.p/' + width;
  }

  // "<N>[.p/<W>]" -> {n, width} or null; one spelling per number: no x000 first group, at most
  // 15 digits (a safe integer), W from 1 to 255 without leading zeros.
  var TILE_N = /^((?:x[0-9]{3}\/){0,4})([0-9]{3})(?:\.p\/([1-9][0-9]{0,2}))?$/;
  function parseTileName(rest) {
    var m = TILE_N.exec(rest);
    if (!m) return null;
    var groups = m[1] ? m[1].slice(0, -1).split('/') : [], n = 0;
    if (groups.length && groups[0] === 'x000') return null;
    for (var i = 0; i < groups.length; i++) n = n * 1000 + Number(groups[i].slice(1));
    n = n * 1000 + Number(m[2]);
    if (m[3] !== undefined && Number(m[3]) >= TILE_WIDTH) return null;
    return { n: n, width: m[3] === undefined ? TILE_WIDTH : Number(m[3]) };
  }

  function smallDecimal(s, max) {
    if (!DECIMAL.test(s) || s.length > 16) return null;
    var v = Number(s);
    return Number.isSafeInteger(v) && v <= max ? v : null;
  }

  /**
   * parseTreePath(rel) -> null, or by kind:
   *   {kind: 'checkpoint'}
   *   {kind: 'tile', level, n, width}      tile/<L>/<N>[.p/<W>]  (width 256 for a full tile)
   *   {kind: 'entries', n, width}          tile/entries/<N>[.p/<W>]
   *   {kind: 'lines', n, width}            lines/<N>[.p/<W>]
   *   {kind: 'index', level, run, prefix}  index/<k>/<r>/<prefix>
   *   {kind: 'tail', block, width}         index/tail/<b>.p/<W>
   * Strict: a name the grammar of docs/tree.md#layout does not write (`6` for `006`, `x000/`,
   * `.p/0`, `.p/256`, `.p/007`, `01` for a level, an uppercase prefix) is null, so that each file
   * has one name; so is a tile level past 7 or an index level past 14 (as `TreeFile::parse` in
   * crates/protocol/src/tree.rs), and a tile number past 15 digits (not a safe integer here).
   */
  function parseTreePath(rel) {
    if (typeof rel !== 'string') return null;
    if (rel === 'checkpoint') return { kind: 'checkpoint' };
    var m, t;
    if ((m = /^tile\/entries\/(.*)$/.exec(rel))) {
      t = parseTileName(m[1]);
      return t && { kind: 'entries', n: t.n, width: t.width };
    }
    if ((m = /^tile\/([0-9]+)\/(.*)$/.exec(rel))) {
      var level = smallDecimal(m[1], 7);
      t = level === null ? null : parseTileName(m[2]);
      return t && { kind: 'tile', level: level, n: t.n, width: t.width };
    }
    if ((m = /^lines\/(.*)$/.exec(rel))) {
      t = parseTileName(m[1]);
      return t && { kind: 'lines', n: t.n, width: t.width };
    }
    if ((m = /^index\/tail\/([0-9]+)\.p\/([0-9]+)$/.exec(rel))) {
      var block = smallDecimal(m[1], Number.MAX_SAFE_INTEGER), w = smallDecimal(m[2], INDEX_BLOCK - 1);
      return block === null || !w ? null : { kind: 'tail', block: block, width: w };
    }
    if ((m = /^index\/([0-9]+)\/([0-9]+)\/([0-9a-f]+)$/.exec(rel))) {
      var k = smallDecimal(m[1], 14), run = smallDecimal(m[2], Number.MAX_SAFE_INTEGER);
      if (k === null || run === null || m[3].length !== k + 1) return null;
      return { kind: 'index', level: k, run: run, prefix: m[3] };
    }
    return null;
  }

  // ---- The checkpoint (docs/tree.md#checkpoint)

  var B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

  function base64Encode(bytes) {
    var s = '', i, v, n = bytes.length;
    for (i = 0; i + 2 < n; i += 3) {
      v = (bytes[i] << 16) | (bytes[i + 1] << 8) | bytes[i + 2];
      s += B64[v >> 18] + B64[(v >> 12) & 63] + B64[(v >> 6) & 63] + B64[v & 63];
    }
    if (n - i === 1) {
      v = bytes[i] << 16;
      s += B64[v >> 18] + B64[(v >> 12) & 63] + '==';
    } else if (n - i === 2) {
      v = (bytes[i] << 16) | (bytes[i + 1] << 8);
      s += B64[v >> 18] + B64[(v >> 12) & 63] + B64[(v >> 6) & 63] + '=';
    }
    return s;
  }

  // Exactly the standard base64 of 32 bytes (43 letters and one '='), the unused bits zero: one
  // text per root. -> Uint8Array(32) or null.
  function base64Decode32(s) {
    if (!/^[A-Za-z0-9+\/]{43}=$/.test(s)) return null;
    var out = new Uint8Array(33), j = 0;
    for (var i = 0; i < 44; i += 4) {
      var v = (B64.indexOf(s[i]) << 18) | (B64.indexOf(s[i + 1]) << 12) |
        ((s[i + 2] === '=' ? 0 : B64.indexOf(s[i + 2])) << 6) | (s[i + 3] === '=' ? 0 : B64.indexOf(s[i + 3]));
      out[j++] = v >> 16; out[j++] = (v >> 8) & 255; out[j++] = v & 255;
    }
    var root = out.slice(0, 32);
    return base64Encode(root) === s ? root : null;
  }

  /**
   * checkpointText(origin, size, root: Uint8Array(32), headSeq, headHex) -> the checkpoint's text:
   *   <origin>\n<size>\n<base64 root>\nexhibit-head <headSeq> <headHex>\n
   * Throws on an empty origin or one holding a LF, a size or seq that is not a count, a root
   * that is not 32 bytes, a head that is not 64 lowercase hex.
   */
  function checkpointText(origin, size, root, headSeq, headHex) {
    if (typeof origin !== 'string' || origin === '' || origin.indexOf('\n') >= 0) {
      throw new TypeError('a checkpoint origin is one non-empty line');
    }
    needCount(size, 'a tree size');
    needCount(headSeq, 'a head seq');
    if (typeof headHex !== 'string' || !HEX64.test(headHex)) throw new TypeError('a head digest is 64 lowercase hex');
    return origin + '\n' + size + '\n' + base64Encode(need32(root, 'a root')) + '\nexhibit-head ' + headSeq + ' ' + headHex + '\n';
  }

  /**
   * parseCheckpoint(bytes) -> {origin, size, root: Uint8Array(32), headSeq, headHex, extensions,
   *   signed, signatures} or {error}.
   * Read as `Checkpoint::parse` in crates/protocol/src/tree.rs reads it, so that both verifiers
   * take and refuse the same files: at most 64 KiB of UTF-8, every line LF-terminated; the body
   * up to the first empty line: a non-empty origin without CR, the size in decimal without
   * leading zeros, the root as exactly the padded standard base64 of 32 bytes (no other
   * spelling of the same bytes), then extension lines, of which exactly one starts with
   * `exhibit-head ` and is `exhibit-head <seq> <64 lowercase hex>`. `extensions` holds every
   * extension line in order. The exhibit-head seq is not held to the size here: checkTreeFiles
   * holds both to the chain. After an empty line, a signed note's signature lines (at least
   * one, none empty) are taken and not checked: `signed` says whether there were any.
   */
  function parseCheckpoint(bytes) {
    var b = toBytes(bytes);
    if (b.length > 65536) return { error: 'over 64 KiB' };
    var text = decodeRange(b, 0, b.length);
    if (text === null) return { error: 'not UTF-8' };
    if (text.length === 0 || text.charCodeAt(text.length - 1) !== 10) return { error: 'the last line does not end with LF' };
    var lines = text.slice(0, -1).split('\n'), blank = lines.indexOf('');
    var body = blank < 0 ? lines : lines.slice(0, blank), sigs = blank < 0 ? [] : lines.slice(blank + 1);
    if (body.length < 4) return { error: 'fewer than four lines (origin, size, root, exhibit-head) before ' + (blank < 0 ? 'the end' : 'an empty line') };
    if (body[0].indexOf('\r') >= 0) return { error: 'line 1 (the origin) holds a CR' };
    var size = DECIMAL.test(body[1]) ? Number(body[1]) : -1;
    if (!Number.isSafeInteger(size) || size < 0) return { error: 'line 2 is not a tree size in decimal: ' + JSON.stringify(body[1].slice(0, 40)) };
    var root = base64Decode32(body[2]);
    if (!root) return { error: 'line 3 is not the standard padded base64 of a 32-byte root: ' + JSON.stringify(body[2].slice(0, 60)) };
    var extensions = body.slice(3), heads = extensions.filter(function (l) { return l.indexOf('exhibit-head ') === 0; });
    if (heads.length !== 1) return { error: heads.length + ' exhibit-head lines, not one' };
    var m = /^exhibit-head (0|[1-9][0-9]*) ([0-9a-f]{64})$/.exec(heads[0]);
    var headSeq = m ? Number(m[1]) : -1;
    if (!m || !Number.isSafeInteger(headSeq)) return { error: 'the exhibit-head line is not `exhibit-head <seq> <64 lowercase hex>`: ' + JSON.stringify(heads[0].slice(0, 100)) };
    if (blank >= 0 && (!sigs.length || sigs.indexOf('') >= 0)) return { error: 'a blank line where signatures follow the body' };
    return { origin: body[0], size: size, root: root, headSeq: headSeq, headHex: m[2], extensions: extensions,
      signed: sigs.length > 0, signatures: sigs };
  }

  // ---- The files of the tree at size n (docs/tree.md#layout)

  // Every level's complete hashes, each level one buffer: level L holds n >> 8L hashes, the
  // level-L hash k being the root of leaves k·256^L … (k+1)·256^L − 1. Levels go up while
  // there is one; no level for the empty tree.
  function treeLevels(entries) {
    var n = entries.length, cur = new Uint8Array(n * 32), levels = [], i;
    for (i = 0; i < n; i++) {
      var e = entries[i];
      if (!is32(e)) throw new TypeError('entries[' + i + '] (seq ' + (i + 1) + ') must be a Uint8Array of 32 bytes');
      leafInto(e, 0, cur, 32 * i);
    }
    for (var m = n; m > 0; m = Math.floor(m / TILE_WIDTH)) {
      levels.push(cur);
      var up = Math.floor(m / TILE_WIDTH), next = new Uint8Array(up * 32);
      for (i = 0; i < up; i++) perfectInto(cur, TILE_BYTES * i, TILE_WIDTH, next, 32 * i);
      cur = next;
    }
    return levels;
  }

  // fn(N, W, first) for each tile of a level holding m hashes: full ones, then a partial one.
  function eachTile(m, fn) {
    for (var N = 0; TILE_WIDTH * N < m; N++) fn(N, Math.min(TILE_WIDTH, m - TILE_WIDTH * N), TILE_WIDTH * N);
  }

  function hashTileFiles(levels, visit) {
    levels.forEach(function (hashes, L) {
      eachTile(hashes.length / 32, function (N, W, first) {
        visit(tilePath(L, N, W), hashes.subarray(32 * first, 32 * (first + W)));
      });
    });
  }

  function bundleFiles(entries, visit) {
    eachTile(entries.length, function (N, W, first) {
      var out = new Uint8Array(34 * W);
      for (var j = 0; j < W; j++) {
        out[34 * j + 1] = 32;
        out.set(entries[first + j], 34 * j + 2);
      }
      visit(entriesPath(N, W), out);
    });
  }

  function lineFiles(n, lineBytes, visit) {
    eachTile(n, function (N, W, first) {
      var parts = [], total = 0, j, b;
      for (j = 1; j <= W; j++) {
        b = lineBytes(first + j);
        if (b === null || b === undefined) continue;
        b = toBytes(b);
        parts.push(b);
        total += b.length;
      }
      var out = new Uint8Array(total), at = 0;
      for (j = 0; j < parts.length; j++) { out.set(parts[j], at); at += parts[j].length; }
      visit(linesPath(N, W), out);
    });
  }

  // The index's rows, in seq order: the first 8 bytes of each digest as two 32-bit words, and
  // the seq (seqs are below 2^32: `entries` is an array).
  function hexWord(s, p) {
    var v = 0;
    for (var i = 0; i < 8; i++) v = v * 16 + hexVal(s.charCodeAt(p + i));
    return v;
  }
  function indexRows(n, digestsOf) {
    var cap = 1024, count = 0, hi = new Uint32Array(cap), lo = new Uint32Array(cap), seqs = new Uint32Array(cap);
    function grow() {
      cap *= 2;
      var h = new Uint32Array(cap), l = new Uint32Array(cap), s = new Uint32Array(cap);
      h.set(hi); l.set(lo); s.set(seqs);
      hi = h; lo = l; seqs = s;
    }
    for (var seq = 1; seq <= n; seq++) {
      var ds = digestsOf(seq) || [];
      for (var i = 0; i < ds.length; i++) {
        var d = ds[i], dup = false;
        if (typeof d !== 'string' || !HEX64.test(d)) continue;
        for (var j = 0; j < i && !dup; j++) dup = ds[j] === d;
        if (dup) continue;
        if (count === cap) grow();
        hi[count] = hexWord(d, 0); lo[count] = hexWord(d, 8); seqs[count] = seq;
        count++;
      }
    }
    return { count: count, hi: hi, lo: lo, seq: seqs };
  }

  // The rows' order by bytes (prefix, then seq): a stable LSD radix sort, 16 bits a pass, of
  // rows already in seq order.
  function sortRows(rows) {
    var c = rows.count, a = new Uint32Array(c), b = new Uint32Array(c), cnt = new Uint32Array(65537), i;
    for (i = 0; i < c; i++) a[i] = i;
    var passes = [[rows.lo, 0], [rows.lo, 16], [rows.hi, 0], [rows.hi, 16]];
    for (var p = 0; p < passes.length; p++) {
      var key = passes[p][0], sh = passes[p][1], t;
      cnt.fill(0);
      for (i = 0; i < c; i++) cnt[((key[a[i]] >>> sh) & 65535) + 1]++;
      for (i = 1; i < 65537; i++) cnt[i] += cnt[i - 1];
      for (i = 0; i < c; i++) { t = a[i]; b[cnt[(key[t] >>> sh) & 65535]++] = t; }
      t = a; a = b; b = t;
    }
    return a;
  }

  // rows list[from, to) as a file: 8 prefix bytes, then the seq as 8 bytes big-endian.
  function rowBytes(rows, list, from, to) {
    if (to === from) return EMPTY_BYTES;
    var out = new Uint8Array(16 * (to - from));
    for (var i = from, o = 0; i < to; i++, o += 16) {
      var r = list[i], h = rows.hi[r], l = rows.lo[r], s = rows.seq[r];
      out[o] = h >>> 24; out[o + 1] = h >>> 16; out[o + 2] = h >>> 8; out[o + 3] = h;
      out[o + 4] = l >>> 24; out[o + 5] = l >>> 16; out[o + 6] = l >>> 8; out[o + 7] = l;
      out[o + 12] = s >>> 24; out[o + 13] = s >>> 16; out[o + 14] = s >>> 8; out[o + 15] = s;
      // The excerpt index's contexts (docs/tree.md#excerpts) stand between the prefix and the seq.
      if (rows.ctx) { var c = rows.ctx[r]; out[o + 8] = c >>> 24; out[o + 9] = c >>> 16; out[o + 10] = c >>> 8; out[o + 11] = c; }
    }
    return out;
  }

  function hexDigits(v, digits) {
    var s = v.toString(16);
    while (s.length < digits) s = '0' + s;
    return s;
  }

  // The 16^(k+1) bucket files of run r of level k, from its rows list[from, to) in byte order.
  function runFiles(k, r, rows, list, from, to, visit) {
    var digits = k + 1, shift = 32 - 4 * digits, buckets = Math.pow(16, digits), p = from;
    if (digits > 8) throw new RangeError('an index level past 7');
    for (var b = 0; b < buckets; b++) {
      var q = p;
      while (q < to && (rows.hi[list[q]] >>> shift) === b) q++;
      visit(indexRunPath(k, r, hexDigits(b, digits)), rowBytes(rows, list, p, q));
      p = q;
    }
  }

  // Every run of every level (docs/tree.md#index): level k's runs span 16^k blocks, and one
  // exists once its last block is whole. A pass over the sorted rows deals each level's rows
  // to its runs, in byte order.
  function indexRunFiles(n, rows, order, visit) {
    var blocks = Math.floor(n / INDEX_BLOCK), i, r, v;
    for (var k = 0, span = 1; span <= blocks; k++, span *= 16) {
      var runs = Math.floor(blocks / span), per = span * INDEX_BLOCK;
      var start = new Uint32Array(runs + 1);
      for (i = 0; i < rows.count; i++) {
        r = Math.floor((rows.seq[order[i]] - 1) / per);
        if (r < runs) start[r + 1]++;
      }
      for (r = 1; r <= runs; r++) start[r] += start[r - 1];
      var at = start.slice(0, runs), list = new Uint32Array(start[runs]);
      for (i = 0; i < rows.count; i++) {
        v = order[i];
        r = Math.floor((rows.seq[v] - 1) / per);
        if (r < runs) list[at[r]++] = v;
      }
      for (r = 0; r < runs; r++) runFiles(k, r, rows, list, start[r], start[r + 1], visit);
    }
  }

  function indexTailFile(n, rows, order, visit) {
    var blocks = Math.floor(n / INDEX_BLOCK), first = blocks * INDEX_BLOCK + 1, list = [], i;
    if (n % INDEX_BLOCK === 0) return;
    for (i = 0; i < rows.count; i++) if (rows.seq[order[i]] >= first) list.push(order[i]);
    visit(indexTailPath(blocks, n - blocks * INDEX_BLOCK), rowBytes(rows, list, 0, list.length));
  }

  // A source of level-L hashes from the whole levels: [bytes, offset of hash k].
  function levelSource(levels) {
    return function (L, k) { return [levels[L], 32 * k]; };
  }

  /**
   * eachTreeFile(input, visit(path, bytes)): calls visit once for every file of the tree at size
   * n = input.entries.length, as expectedTreeFiles lists them, and keeps none of them: a caller
   * comparing as it goes holds one file at a time (lines/ is about the ledger's own size).
   * Hash tiles are views into one buffer a level; index files with no row share one empty array.
   */
  function eachTreeFile(input, visit) {
    var entries = input.entries, n = entries.length;
    if (typeof input.lineBytes !== 'function') throw new TypeError('input.lineBytes must be a function of the seq');
    if (typeof input.digestsOf !== 'function') throw new TypeError('input.digestsOf must be a function of the seq');
    var levels = treeLevels(entries);
    var text = checkpointText(input.origin, n, hashRange(0, n, levelSource(levels)), n, input.headHex);
    hashTileFiles(levels, visit);
    bundleFiles(entries, visit);
    lineFiles(n, input.lineBytes, visit);
    var rows = indexRows(n, input.digestsOf), order = sortRows(rows);
    indexRunFiles(n, rows, order, visit);
    indexTailFile(n, rows, order, visit);
    visit('checkpoint', utf8Encode(text));
  }

  /**
   * expectedTreeFiles({entries, lineBytes, digestsOf, origin, headHex}) -> Map(path -> Uint8Array)
   * Every file the tree at size n = entries.length has, and nothing else (docs/tree.md#layout):
   * the checkpoint, every hash tile of every level, the entry bundles, lines/, every run of the
   * digest index (empty buckets as empty files) and its tail. Paths are relative to ledger/tree/.
   *   entries[i]: Uint8Array(32), the entry of seq i+1 (withheld seqs included);
   *   lineBytes(seq): the published line with its LF, or null for a withheld seq;
   *   digestsOf(seq): the line's sent/checked/stripped/draft_sha256 values (64 lowercase hex;
   *     others are skipped, a repeated one counts once); [] for a withheld seq;
   *   origin: the checkpoint's first line (checkTreeFiles does not compare it: no verifier can
   *     re-derive it); headHex: the chain's head, 64 lowercase hex.
   */
  function expectedTreeFiles(input) {
    var out = new Map();
    eachTreeFile(input, function (path, bytes) { out.set(path, bytes); });
    return out;
  }

  /**
   * treeFileNames(size) -> [path]: the names of every file the tree at this size has, as
   * expectedTreeFiles makes them, without their bytes (docs/tree.md#layout: the names depend on
   * the size alone): the hash tiles of every level, the entry bundles, lines/, every bucket of
   * every run of the digest index and its tail, and the checkpoint. A page that cannot list
   * ledger/tree/ fetches these.
   */
  function treeFileNames(size) {
    needCount(size, 'a tree size');
    var out = [], L, m, b, k, r, span;
    for (L = 0, m = size; m > 0; L++, m = Math.floor(m / TILE_WIDTH)) {
      eachTile(m, function (N, W) { out.push(tilePath(L, N, W)); });
    }
    eachTile(size, function (N, W) { out.push(entriesPath(N, W)); });
    eachTile(size, function (N, W) { out.push(linesPath(N, W)); });
    var blocks = Math.floor(size / INDEX_BLOCK);
    for (k = 0, span = 1; span <= blocks; k++, span *= 16) {
      var runs = Math.floor(blocks / span), buckets = Math.pow(16, k + 1);
      for (r = 0; r < runs; r++) for (b = 0; b < buckets; b++) out.push(indexRunPath(k, r, hexDigits(b, k + 1)));
    }
    if (size % INDEX_BLOCK) out.push(indexTailPath(blocks, size - blocks * INDEX_BLOCK));
    out.push('checkpoint');
    return out;
  }

  // ---- Subtrees and proofs (RFC 9162 §2.1)

  // The largest power of two below s (s ≥ 2).
  function splitOf(s) {
    var k = 1;
    while (k * 2 < s) k *= 2;
    return k;
  }

  // The perfect subtrees [height, index] that leaves [lo, hi) split into, left to right: the
  // ranges a proof names start at a multiple of the largest power of two they hold, so the
  // MTH of the range is these subtrees' roots folded from the right.
  function rangeParts(lo, hi) {
    var parts = [], p = 1, h = 0;
    while (p * 2 <= hi - lo) { p *= 2; h++; }
    for (; lo < hi; p /= 2, h--) {
      if (hi - lo >= p) { parts.push([h, lo / p]); lo += p; }
    }
    return parts;
  }

  // A perfect subtree of height h is 2^(h−8L) consecutive level-L hashes, L = ⌊h/8⌋: one tile's.
  function partGeometry(part) {
    var L = Math.floor(part[0] / 8), count = Math.pow(2, part[0] - 8 * L);
    return { level: L, first: part[1] * count, count: count };
  }

  // The MTH of leaves [lo, hi), from level hashes src(L, k) -> [bytes, offset of hash k].
  function hashRange(lo, hi, src) {
    if (hi === lo) return EMPTY_ROOT.slice();
    var parts = rangeParts(lo, hi), acc = new Uint8Array(32), part = new Uint8Array(32);
    for (var i = parts.length - 1; i >= 0; i--) {
      var g = partGeometry(parts[i]), at = src(g.level, g.first, g.count);
      perfectInto(at[0], at[1], g.count, i === parts.length - 1 ? acc : part, 0);
      if (i < parts.length - 1) nodeInto(part, 0, acc, 0, acc, 0);
    }
    return acc;
  }

  // RFC 9162 PATH(index, D[size]) as leaf ranges [lo, hi), in proof order.
  function inclusionRanges(size, index) {
    var out = [], lo = 0, hi = size, m = index;
    while (hi - lo > 1) {
      var k = splitOf(hi - lo);
      if (m < k) { out.push([lo + k, hi]); hi = lo + k; }
      else { out.push([lo, lo + k]); lo += k; m -= k; }
    }
    return out.reverse();
  }

  // RFC 9162 PROOF(m, D[n]) = SUBPROOF(m, D[n], true) as leaf ranges, in proof order.
  function consistencyRanges(m, n) {
    var out = [], lo = 0, hi = n, whole = true;
    if (m === 0 || m === n) return out;
    for (;;) {
      if (m === hi - lo) { if (!whole) out.push([lo, hi]); break; }
      var k = splitOf(hi - lo);
      if (m <= k) { out.push([lo + k, hi]); hi = lo + k; }
      else { out.push([lo, lo + k]); lo += k; m -= k; whole = false; }
    }
    return out.reverse();
  }

  // The tile at size `size` that holds level-L hash k: {level, n, width, path}.
  function tileAt(size, L, k) {
    var N = Math.floor(k / TILE_WIDTH), m = Math.floor(size / pow256(L));
    var W = Math.min(TILE_WIDTH, m - TILE_WIDTH * N);
    return { level: L, n: N, width: W, path: tilePath(L, N, W) };
  }

  function tilesOfRanges(size, ranges) {
    var seen = new Set(), out = [];
    ranges.forEach(function (r) {
      rangeParts(r[0], r[1]).forEach(function (part) {
        var g = partGeometry(part), p = tileAt(size, g.level, g.first).path;
        if (!seen.has(p)) { seen.add(p); out.push(p); }
      });
    });
    return out;
  }

  // Level hashes from the tiles of the tree at `size` (a Map, or an object, path -> bytes).
  function tileSource(size, tiles) {
    return function (L, k) {
      var t = tileAt(size, L, k), bytes = typeof tiles.get === 'function' ? tiles.get(t.path) : tiles[t.path];
      if (bytes === undefined || bytes === null) throw new Error('tile ' + t.path + ' is needed and was not given');
      bytes = toBytes(bytes);
      if (bytes.length !== 32 * t.width) throw new Error('tile ' + t.path + ' holds ' + bytes.length + ' bytes, not ' + 32 * t.width);
      return [bytes, 32 * (k - TILE_WIDTH * t.n)];
    };
  }

  function needIndex(size, index) {
    needCount(size, 'a tree size');
    needCount(index, 'a leaf index');
    if (index >= size) throw new RangeError('leaf ' + index + ' is not in a tree of ' + size);
  }
  function needSizes(oldSize, newSize) {
    needCount(oldSize, 'the old size');
    needCount(newSize, 'the new size');
    if (oldSize === 0 || oldSize > newSize) throw new RangeError('no consistency proof from ' + oldSize + ' leaves to ' + newSize);
  }

  /** neededTiles(size, index) -> [tile path]: the hash tiles at this size an inclusion proof reads. */
  function neededTiles(size, index) {
    needIndex(size, index);
    return tilesOfRanges(size, inclusionRanges(size, index));
  }

  /**
   * inclusionProof(size, index, tiles: Map path -> bytes) -> [Uint8Array(32)]: RFC 9162's
   * inclusion proof of leaf `index` in the tree of `size`, computed from the hash tiles of that
   * size (neededTiles). Throws when a tile it needs is absent or not 32·width bytes long.
   */
  function inclusionProof(size, index, tiles) {
    needIndex(size, index);
    var src = tileSource(size, tiles);
    return inclusionRanges(size, index).map(function (r) { return hashRange(r[0], r[1], src); });
  }

  /** consistencyTiles(oldSize, newSize) -> [tile path]: the tiles at newSize a consistency proof reads. */
  function consistencyTiles(oldSize, newSize) {
    needSizes(oldSize, newSize);
    return tilesOfRanges(newSize, consistencyRanges(oldSize, newSize));
  }

  /**
   * consistencyProof(oldSize, newSize, tiles) -> [Uint8Array(32)]: RFC 9162's PROOF, from the
   * tiles at newSize (consistencyTiles); empty for equal sizes. Throws for old size 0 or past the
   * new one, and as inclusionProof for a tile absent or of the wrong length.
   */
  function consistencyProof(oldSize, newSize, tiles) {
    needSizes(oldSize, newSize);
    var src = tileSource(newSize, tiles);
    return consistencyRanges(oldSize, newSize).map(function (r) { return hashRange(r[0], r[1], src); });
  }

  /** rootTiles(size) -> [tile path]: the tiles at this size its root is folded from. */
  function rootTiles(size) {
    needCount(size, 'a tree size');
    return size === 0 ? [] : tilesOfRanges(size, [[0, size]]);
  }

  /** rootFromTiles(size, tiles) -> Uint8Array(32): the tree's root, from the tiles at its size. */
  function rootFromTiles(size, tiles) {
    needCount(size, 'a tree size');
    return hashRange(0, size, tileSource(size, tiles));
  }

  function isPow2(x) {
    while (x > 1 && x % 2 === 0) x /= 2;
    return x === 1;
  }

  function isHashList(p) {
    if (!Array.isArray(p)) return false;
    for (var i = 0; i < p.length; i++) if (!is32(p[i])) return false;
    return true;
  }

  /**
   * checkInclusion(proof: [Uint8Array(32)], size, root, index, leafHash) -> boolean: RFC 9162
   * §2.1.3.2. False for index ≥ size, a proof of the wrong length, anything not 32 bytes.
   */
  function checkInclusion(proof, size, root, index, leaf) {
    if (!isCount(size) || !isCount(index) || index >= size || !is32(root) || !is32(leaf) || !isHashList(proof)) return false;
    var fn = index, sn = size - 1, r = leaf.slice();
    for (var i = 0; i < proof.length; i++) {
      if (sn === 0) return false;
      if (fn % 2 === 1 || fn === sn) {
        nodeInto(proof[i], 0, r, 0, r, 0);
        while (fn % 2 === 0 && fn !== 0) { fn = half(fn); sn = half(sn); }
      } else {
        nodeInto(r, 0, proof[i], 0, r, 0);
      }
      fn = half(fn); sn = half(sn);
    }
    return sn === 0 && bytesEqual(r, root);
  }

  /**
   * checkConsistency(proof, oldSize, oldRoot, newSize, newRoot) -> boolean: RFC 9162 §2.1.4.2,
   * which is for 0 < old < new; at equal sizes, an empty proof and equal roots (as Go's tlog and
   * `check_consistency` in crates/protocol/src/tree.rs). Old size 0 is false, as there: no tree
   * head of the empty tree is a thing to be consistent with.
   */
  function checkConsistency(proof, oldSize, oldRoot, newSize, newRoot) {
    if (!isCount(oldSize) || !isCount(newSize) || oldSize > newSize || !is32(oldRoot) || !is32(newRoot) || !isHashList(proof)) return false;
    if (oldSize === 0) return false;
    if (oldSize === newSize) return proof.length === 0 && bytesEqual(oldRoot, newRoot);
    if (proof.length === 0) return false;
    var path = proof, fn = oldSize - 1, sn = newSize - 1;
    if (isPow2(oldSize)) path = [oldRoot].concat(proof);
    while (fn % 2 === 1) { fn = half(fn); sn = half(sn); }
    var fr = path[0].slice(), sr = path[0].slice();
    for (var i = 1; i < path.length; i++) {
      if (sn === 0) return false;
      if (fn % 2 === 1 || fn === sn) {
        nodeInto(path[i], 0, fr, 0, fr, 0);
        nodeInto(path[i], 0, sr, 0, sr, 0);
        while (fn % 2 === 0 && fn !== 0) { fn = half(fn); sn = half(sn); }
      } else {
        nodeInto(sr, 0, path[i], 0, sr, 0);
      }
      fn = half(fn); sn = half(sn);
    }
    return sn === 0 && bytesEqual(fr, oldRoot) && bytesEqual(sr, newRoot);
  }

  // ---- The digest index, read (docs/tree.md#index)

  /**
   * indexLookupPaths(size, digestHex) -> [path]: the files a lookup of this digest at this size
   * fetches: blocks 0 … B−1 (B = ⌊size/1024⌋) covered greedily by the largest runs, from the
   * highest level down, the one bucket of each that the digest's first k+1 hex digits name;
   * then the tail, when size is not a multiple of 1024.
   */
  function indexLookupPaths(size, digestHex) {
    needCount(size, 'a tree size');
    if (typeof digestHex !== 'string' || !HEX64.test(digestHex)) throw new TypeError('a digest is 64 lowercase hex');
    var blocks = Math.floor(size / INDEX_BLOCK), out = [], span = 1, k = 0, pos = 0;
    while (span * 16 <= blocks) { span *= 16; k++; }
    for (; k >= 0; k--, span /= 16) {
      for (; pos + span <= blocks; pos += span) out.push(indexRunPath(k, pos / span, digestHex.slice(0, k + 1)));
    }
    if (size % INDEX_BLOCK) out.push(indexTailPath(blocks, size - blocks * INDEX_BLOCK));
    return out;
  }

  function word(b, o) { return ((b[o] << 24) | (b[o + 1] << 16) | (b[o + 2] << 8) | b[o + 3]) >>> 0; }

  /**
   * indexSeqs(fileBytes, digestHex) -> [seq] whose row's 8 bytes are the digest's first 8, in
   * the file's order; {error} when the file is not whole rows of 16 bytes. A hit is a hint: the
   * line itself must carry the whole digest (docs/tree.md#what-it-proves).
   */
  function indexSeqs(fileBytes, digestHex) {
    var b = toBytes(fileBytes), out = [];
    if (typeof digestHex !== 'string' || !HEX64.test(digestHex)) return { error: 'the digest is not 64 lowercase hex' };
    if (b.length % 16) return { error: 'an index file of ' + b.length + ' bytes is not whole rows of 16' };
    var hi = hexWord(digestHex, 0), lo = hexWord(digestHex, 8);
    for (var o = 0; o < b.length; o += 16) {
      if (word(b, o) === hi && word(b, o + 4) === lo) out.push(word(b, o + 8) * 4294967296 + word(b, o + 12));
    }
    return out;
  }

  // ---- The excerpt index (docs/tree.md#excerpts): which released text holds a run of words.
  // The twin of crates/protocol/src/excerpt.rs, written again here; vectors/tree.json's
  // `excerpts` holds the two to one answer. Keys are 16 lowercase hex digits (the first 8 bytes
  // of a shingle's sha256): as strings of one length, they sort as the numbers they are.

  var EXCERPT_SHINGLE = 8;    // words in a shingle
  var EXCERPT_WINDOW = 5;     // shingles in a winnowing window
  var EXCERPT_MIN_WORDS = EXCERPT_SHINGLE + EXCERPT_WINDOW - 1;
  // Every gate trailer anywhere in a text: no `]` or newline inside, `· ledger ` and digits
  // just before the `]` (page.js's ANY_TRAILER).
  var ANY_GATE_TRAILER = /\[gate: [^\]\n]*\u00b7 ledger [0-9]+\]/g;
  var HEX16 = /^[0-9a-f]{16}$/;

  /**
   * excerptWords(text) -> [word]: the tokens of docs/protocol.md#proving-one-message, the one
   * tokenizer of the page (page.js `tokens` is this): CRLF made LF, NFC, every gate trailer made
   * a space, `` * ` # > [ ] ( ) `` deleted, split on JavaScript's `\s`, `_` trimmed from each
   * word's ends, empty words dropped. Case and punctuation kept.
   */
  function excerptWords(text) {
    var t = String(text).replace(/\r\n/g, '\n');
    if (t.normalize) t = t.normalize('NFC');
    t = t.replace(ANY_GATE_TRAILER, ' ').replace(/[*`#>\[\]()]/g, '');
    var out = [], parts = t.split(/\s+/);
    for (var i = 0; i < parts.length; i++) {
      var w = parts[i].replace(/^_+|_+$/g, '');
      if (w) out.push(w);
    }
    return out;
  }

  /** shingleKeys(words) -> [16 hex]: the key of each run of 8 words joined by one space, in order. */
  function shingleKeys(words) {
    var out = [];
    for (var i = 0; i + EXCERPT_SHINGLE <= words.length; i++) {
      out.push(sha256HexOfString(words.slice(i, i + EXCERPT_SHINGLE).join(' ')).slice(0, 16));
    }
    return out;
  }

  function leastKey(keys, from, to) {
    var m = null;
    for (var i = from; i < to; i++) if (m === null || keys[i] < m) m = keys[i];
    return m;
  }

  /**
   * winnowKeys(keys) -> [16 hex]: the least key of every window of 5 consecutive keys (of all of
   * them when there are 5 or fewer), sorted, each once.
   */
  function winnowKeys(keys) {
    var kept = [];
    if (keys.length && keys.length <= EXCERPT_WINDOW) kept.push(leastKey(keys, 0, keys.length));
    else for (var i = 0; i + EXCERPT_WINDOW <= keys.length; i++) kept.push(leastKey(keys, i, i + EXCERPT_WINDOW));
    kept.sort();
    return kept.filter(function (k, j) { return j === 0 || k !== kept[j - 1]; });
  }

  /**
   * winnowPlaces(keys) -> [place]: every place of the least key of each window of 5 consecutive
   * keys (of all of them when there are 5 or fewer), ties included, sorted, each once.
   */
  function winnowPlaces(keys) {
    var width = Math.min(keys.length, EXCERPT_WINDOW), seen = {}, out = [];
    if (!width) return out;
    for (var i = 0; i + width <= keys.length; i++) {
      var m = leastKey(keys, i, i + width);
      for (var j = i; j < i + width; j++) if (keys[j] === m && !seen[j]) { seen[j] = true; out.push(j); }
    }
    return out.sort(function (a, b) { return a - b; });
  }

  // Two words' context: the first 2 bytes of the sha256 of `a b`, as 4 hex.
  function pairHash(a, b) { return sha256HexOfString(a + ' ' + b).slice(0, 4); }
  // The contexts of the shingle at word p: [the 2 words before it, the 2 after], each 4 hex or
  // null where there are fewer.
  function contextPair(w, p) {
    return [p >= 2 ? pairHash(w[p - 2], w[p - 1]) : null, p + EXCERPT_SHINGLE + 2 <= w.length ? pairHash(w[p + EXCERPT_SHINGLE], w[p + EXCERPT_SHINGLE + 1]) : null];
  }
  // contextPair as a row holds it, 8 hex (0000 for none).
  function contextsAt(w, p) {
    var c = contextPair(w, p);
    return (c[0] || '0000') + (c[1] || '0000');
  }

  /**
   * excerptRows(seq, text) -> [{key, ctx, seq}]: a released text's rows, filed at seq: one for
   * each distinct key and contexts (8 hex) of a kept place, by key then contexts; none for a
   * seq of 2^32 or more.
   */
  function excerptRows(seq, text) {
    if (seq > 4294967295) return [];
    var w = excerptWords(text), keys = shingleKeys(w), seen = {}, out = [];
    winnowPlaces(keys).forEach(function (p) {
      var r = { key: keys[p], ctx: contextsAt(w, p), seq: seq }, id = r.key + r.ctx;
      if (!seen[id]) { seen[id] = true; out.push(r); }
    });
    return out.sort(function (a, b) { return a.key < b.key ? -1 : a.key > b.key ? 1 : a.ctx < b.ctx ? -1 : a.ctx > b.ctx ? 1 : 0; });
  }

  /**
   * excerptLookup(excerpt) -> {key, before, after} | null: the least key of the excerpt's
   * shingles and the contexts of its first place that the excerpt holds (4 hex, or null where
   * it has not the 2 words); every released text holding the excerpt as a run has a row of the
   * key with these contexts. null under 12 words.
   */
  function excerptLookup(excerpt) {
    var w = excerptWords(excerpt);
    if (w.length < EXCERPT_MIN_WORDS) return null;
    var keys = shingleKeys(w), key = leastKey(keys, 0, keys.length), c = contextPair(w, keys.indexOf(key));
    return { key: key, before: c[0], after: c[1] };
  }

  /**
   * excerptLookupKey(excerpt) -> 16 hex | null: the least key of the excerpt's shingles, which
   * every released text holding it as a run has among its rows; null under 12 words.
   */
  function excerptLookupKey(excerpt) {
    var l = excerptLookup(excerpt);
    return l ? l.key : null;
  }

  /**
   * wordsPlace(textWords, excerptWords) -> the first place (from 0) where the excerpt's words
   * stand as a run of the text's, or null (also for an excerpt of no word).
   */
  function wordsPlace(t, e) {
    if (!e.length) return null;
    for (var i = 0; i + e.length <= t.length; i++) {
      var j = 0;
      while (j < e.length && t[i + j] === e[j]) j++;
      if (j === e.length) return i;
    }
    return null;
  }

  /** excerptPlace(text, excerpt) -> as wordsPlace, of the two texts' words (`place_in`). */
  function excerptPlace(text, excerpt) { return wordsPlace(excerptWords(text), excerptWords(excerpt)); }

  // A key as the digest index's lookup takes a digest: its 8 bytes first.
  function keyDigest(keyHex) {
    if (typeof keyHex !== 'string' || !HEX16.test(keyHex)) throw new TypeError('an excerpt key is 16 lowercase hex');
    return keyHex + '000000000000000000000000000000000000000000000000';
  }

  /** excerptLookupPaths(size, keyHex) -> [path]: indexLookupPaths of the key, under excerpts/. */
  function excerptLookupPaths(size, keyHex) {
    return indexLookupPaths(size, keyDigest(keyHex)).map(function (p) { return 'excerpts/' + p.slice('index/'.length); });
  }

  /**
   * excerptSeqs(fileBytes, keyHex[, before, after]) -> [seq] of the rows with this key and, when
   * given (4 hex), these contexts; or {error}.
   */
  function excerptSeqs(fileBytes, keyHex, before, after) {
    var b = toBytes(fileBytes), out = [];
    if (typeof keyHex !== 'string' || !HEX16.test(keyHex)) return { error: 'an excerpt key is 16 lowercase hex' };
    if (b.length % 16) return { error: 'an index file of ' + b.length + ' bytes is not whole rows of 16' };
    var hi = hexWord(keyHex, 0), lo = hexWord(keyHex, 8);
    var bw = before ? parseInt(before, 16) : null, aw = after ? parseInt(after, 16) : null;
    for (var o = 0; o < b.length; o += 16) {
      if (word(b, o) !== hi || word(b, o + 4) !== lo) continue;
      var c = word(b, o + 8);
      if (bw !== null && (c >>> 16) !== bw) continue;
      if (aw !== null && (c & 65535) !== aw) continue;
      out.push(word(b, o + 12));
    }
    return out;
  }

  /**
   * excerptFiles(size, rowsOf(seq) -> [{key, ctx}], textOf(seq) -> 64 hex | null) ->
   * Map(path -> Uint8Array): every file of the excerpt index at this size
   * (docs/tree.md#excerpts), from the rows each seq's released text gives (excerptRows; [] for
   * a seq with none; a bare key is contexts 00000000): the digest index's runs, buckets and tail
   * with these rows (key, contexts, seq as 4 bytes), under excerpts/; and the text map from
   * textOf. Paths are relative to ledger/tree/.
   */
  function excerptFiles(size, rowsOf, textOf) {
    needCount(size, 'a tree size');
    var list = [];
    for (var q = 1; q <= size; q++) {
      (rowsOf(q) || []).forEach(function (r) {
        var k = typeof r === 'string' ? r : r.key, c = typeof r === 'string' ? '00000000' : r.ctx;
        list.push([hexWord(k, 0), hexWord(k, 8), parseInt(c, 16) >>> 0, q]);
      });
    }
    var rows = { count: list.length, hi: new Uint32Array(list.length), lo: new Uint32Array(list.length), ctx: new Uint32Array(list.length), seq: new Uint32Array(list.length) };
    list.forEach(function (r, i) { rows.hi[i] = r[0]; rows.lo[i] = r[1]; rows.ctx[i] = r[2]; rows.seq[i] = r[3]; });
    // Byte order: key, contexts, seq (the list is in seq order; the sort is stable).
    var order = Array.from(list.keys()).sort(function (a, b) { var x = list[a], y = list[b]; return x[0] - y[0] || x[1] - y[1] || x[2] - y[2] || x[3] - y[3]; });
    var out = new Map();
    var put = function (path, bytes) { out.set('excerpts/' + path.slice('index/'.length), bytes); };
    indexRunFiles(size, rows, order, put);
    indexTailFile(size, rows, order, put);
    textMapFiles(size, textOf || function () { return null; }, function (path, bytes) { out.set(path, bytes); });
    return out;
  }

  // ---- The text map (docs/tree.md#text-map): which released text is filed at a seq, so that a
  // candidate the excerpt index names is held to its text before its line is read.

  var TEXT_ENTRY = 40; // the seq, 8 bytes big-endian, then the text's sha256

  /** textMapPath(size, seq) -> 'excerpts/texts/<b>[.p/<W>]', the file naming seq's text, or null. */
  function textMapPath(size, seq) {
    needCount(size, 'a tree size');
    if (!Number.isSafeInteger(seq) || seq < 1 || seq > size) return null;
    var b = Math.floor((seq - 1) / INDEX_BLOCK), w = Math.min(size - b * INDEX_BLOCK, INDEX_BLOCK);
    return 'excerpts/texts/' + b + (w === INDEX_BLOCK ? '' : '.p/' + w);
  }

  /** textMapNames(size) -> [path]: every text map file at size, one a block, the last partial. */
  function textMapNames(size) {
    var out = [];
    for (var b = 0; b * INDEX_BLOCK < size; b++) out.push(textMapPath(size, Math.min((b + 1) * INDEX_BLOCK, size)));
    return out;
  }

  // Every text map file at size, from textOf(seq) -> 64 hex or null, to put(path, bytes).
  function textMapFiles(size, textOf, put) {
    for (var b = 0; b * INDEX_BLOCK < size; b++) {
      var first = b * INDEX_BLOCK + 1, last = Math.min((b + 1) * INDEX_BLOCK, size), entries = [];
      for (var q = first; q <= last; q++) { var d = textOf(q); if (d) entries.push([q, d]); }
      var bytes = new Uint8Array(entries.length * TEXT_ENTRY);
      entries.forEach(function (e, i) {
        var o = i * TEXT_ENTRY, hi = Math.floor(e[0] / 4294967296), lo = e[0] >>> 0;
        for (var j = 0; j < 4; j++) { bytes[o + 3 - j] = (hi >>> (8 * j)) & 255; bytes[o + 7 - j] = (lo >>> (8 * j)) & 255; }
        for (j = 0; j < 32; j++) bytes[o + 8 + j] = parseInt(e[1].substr(2 * j, 2), 16);
      });
      put(textMapPath(size, last), bytes);
    }
  }

  /**
   * textMapDigest(fileBytes, seq) -> {digest: 64 hex or null}, or {error}: the text the file
   * names for seq; an error for bytes that are not whole 40-byte entries in rising seq order.
   */
  function textMapDigest(bytes, seq) {
    if (!bytes || bytes.length % TEXT_ENTRY !== 0) return { error: (bytes ? bytes.length : 0) + ' bytes: not whole ' + TEXT_ENTRY + '-byte entries' };
    var found = null, bh = 0, bl = 0;
    for (var o = 0; o < bytes.length; o += TEXT_ENTRY) {
      var hi = ((bytes[o] << 24) | (bytes[o + 1] << 16) | (bytes[o + 2] << 8) | bytes[o + 3]) >>> 0;
      var lo = ((bytes[o + 4] << 24) | (bytes[o + 5] << 16) | (bytes[o + 6] << 8) | bytes[o + 7]) >>> 0;
      if (hi < bh || (hi === bh && lo <= bl)) return { error: 'the entry at byte ' + o + ' is not after the one before it in seq order' };
      bh = hi; bl = lo;
      if (hi * 4294967296 + lo === seq && hi < 2097152) found = hexOfBytes(bytes.subarray(o + 8, o + TEXT_ENTRY));
    }
    return { digest: found };
  }

  var excerpt = {
    SHINGLE: EXCERPT_SHINGLE,
    WINDOW: EXCERPT_WINDOW,
    MIN_WORDS: EXCERPT_MIN_WORDS,
    words: excerptWords,
    shingleKeys: shingleKeys,
    winnow: winnowKeys,
    rows: excerptRows,
    places: winnowPlaces,
    lookup: excerptLookup,
    lookupKey: excerptLookupKey,
    place: excerptPlace,
    wordsPlace: wordsPlace,
    lookupPaths: excerptLookupPaths,
    seqs: excerptSeqs,
    files: excerptFiles,
    TEXT_ENTRY: TEXT_ENTRY,
    textMapPath: textMapPath,
    textMapNames: textMapNames,
    textMapDigest: textMapDigest
  };

  // ---- Holding a site's files to the re-derivation (docs/tree.md#verifiers)

  function checkpointProblem(want, have) {
    if (have === undefined) return 'ledger/tree/checkpoint is missing';
    var a = parseCheckpoint(have), e = parseCheckpoint(want), why = [];
    if (a.error) return 'not a checkpoint: ' + a.error;
    if (e.error) return 'the re-derived checkpoint does not parse: ' + e.error;
    if (a.size !== e.size) why.push('its size is ' + a.size + ', the chain\'s ' + e.size);
    if (!bytesEqual(a.root, e.root)) why.push('its root is ' + base64Encode(a.root) + ', the chain\'s ' + base64Encode(e.root));
    if (a.headSeq !== e.headSeq || a.headHex !== e.headHex) {
      why.push('its exhibit-head is ' + a.headSeq + ' ' + a.headHex + ', the chain\'s head ' + e.headSeq + ' ' + e.headHex);
    }
    return why.length ? why.join('; ') : null;
  }

  function firstDiff(a, b) {
    var n = Math.min(a.length, b.length), i = 0;
    while (i < n && a[i] === b[i]) i++;
    return i;
  }

  function relTreeName(name) {
    name = String(name);
    return name.indexOf(TREE_DIR) === 0 ? name.slice(TREE_DIR.length) : name;
  }

  /**
   * checkTreeFiles(expected: Map path -> bytes, actual: Map path -> bytes|undefined, actualNames:
   * [name]) -> [{file: 'ledger/tree/<path>', code, detail}], sorted by file.
   * `actual` holds the bytes read of the site's files, `actualNames` every name present under
   * ledger/tree/ (relative, or starting with ledger/tree/). Codes: tree_checkpoint (missing, not
   * a checkpoint, or its size, root or exhibit-head line differ; its origin, other extension
   * lines and signature lines are not compared, as `exhibit verify SITE` compares none of them),
   * tree_file_missing (an expected file absent, or present with no bytes read),
   * tree_file_differs, tree_stray (a name the tree at this size does not have).
   */
  function checkTreeFiles(expected, actual, actualNames) {
    var got = new Map(), present = new Set(), problems = [], size = treeSizeOf(expected);
    function note(path, code, detail) { problems.push({ file: TREE_DIR + path, code: code, detail: detail }); }
    if (actual) {
      var add = function (v, k) { if (v !== undefined && v !== null) { got.set(relTreeName(k), toBytes(v)); present.add(relTreeName(k)); } };
      if (typeof actual.forEach === 'function') actual.forEach(add);
      else Object.keys(actual).forEach(function (k) { add(actual[k], k); });
    }
    (actualNames || []).forEach(function (name) { present.add(relTreeName(name)); });
    expected.forEach(function (want, path) {
      var have = got.get(path);
      if (path === 'checkpoint') {
        var why = checkpointProblem(want, have);
        if (why) note(path, 'tree_checkpoint', why);
      } else if (have === undefined) {
        note(path, 'tree_file_missing', present.has(path) ? 'present, but its bytes were not read' : 'absent; the tree at size ' + size + ' has it');
      } else if (!bytesEqual(have, want)) {
        note(path, 'tree_file_differs', have.length + ' bytes, the re-derivation ' + want.length + '; they first differ at byte ' + firstDiff(have, want));
      }
    });
    present.forEach(function (path) {
      if (!expected.has(path)) note(path, 'tree_stray', 'the tree at size ' + size + ' has no such file');
    });
    return problems.sort(function (a, b) {
      return a.file < b.file ? -1 : a.file > b.file ? 1 : a.code < b.code ? -1 : a.code > b.code ? 1 : 0;
    });
  }

  function treeSizeOf(expected) {
    var c = expected.get('checkpoint'), p = c ? parseCheckpoint(c) : null;
    return p && !p.error ? p.size : '?';
  }

  var tree = {
    leafHash: leafHash,
    nodeHash: nodeHash,
    rootOf: rootOf,
    EMPTY_ROOT: EMPTY_ROOT.slice(),
    tilePath: tilePath,
    entriesPath: entriesPath,
    linesPath: linesPath,
    indexRunPath: indexRunPath,
    indexTailPath: indexTailPath,
    parseTreePath: parseTreePath,
    checkpointText: checkpointText,
    parseCheckpoint: parseCheckpoint,
    eachTreeFile: eachTreeFile,
    expectedTreeFiles: expectedTreeFiles,
    treeFileNames: treeFileNames,
    checkTreeFiles: checkTreeFiles,
    checkInclusion: checkInclusion,
    checkConsistency: checkConsistency,
    neededTiles: neededTiles,
    inclusionProof: inclusionProof,
    consistencyTiles: consistencyTiles,
    consistencyProof: consistencyProof,
    rootTiles: rootTiles,
    rootFromTiles: rootFromTiles,
    indexLookupPaths: indexLookupPaths,
    indexSeqs: indexSeqs,
    base64Encode: base64Encode,
    CODES: ['tree_checkpoint', 'tree_file_missing', 'tree_file_differs', 'tree_stray']
  };

  // ------------------------------------------------------------------------------------------
  // The operator's signatures (docs/anchoring.md; docs/page.md "Signatures on the page"): Ed25519
  // verification (RFC 8032 §5.1.7, with SHA-512 written here), the C2SP signed-note checkpoint,
  // verifier keys and signed snapshot lines, answering as `exhibit verify SITE` does
  // (src/signing.rs, src/signature_check.rs). Verification only: nothing here signs.
  //
  // The check is ed25519-dalek's `verify`, the one the Rust side runs: cofactorless,
  // [S]B − [k]A encoded and compared byte for byte with R (so an R that is no point's canonical
  // encoding never holds); S ≥ L refused; k = SHA-512(R ‖ A as written ‖ M) mod L. A key whose y
  // has no x refuses to decode. Like dalek (and unlike RFC 8032's strict decoding) a key written
  // with y ≥ p, or x = 0 with the sign bit set, decodes to the point it names: both verifiers must
  // take the same keys. Small-order keys are taken, as dalek's `verify` takes them: the key is the
  // operator's choice, and what a signature proves is only who holds it.
  // BigInt is built on use (never a literal), so that this file still parses where there is none;
  // there, every signature is said not to hold.

  var sign = (function () {
    // ---- SHA-512 (FIPS 180-4), on 32-bit halves
    var K512 = new Int32Array([0x428a2f98, 0xd728ae22, 0x71374491, 0x23ef65cd, 0xb5c0fbcf, 0xec4d3b2f, 0xe9b5dba5, 0x8189dbbc, 0x3956c25b, 0xf348b538, 0x59f111f1, 0xb605d019, 0x923f82a4, 0xaf194f9b, 0xab1c5ed5, 0xda6d8118, 0xd807aa98, 0xa3030242, 0x12835b01, 0x45706fbe, 0x243185be, 0x4ee4b28c, 0x550c7dc3, 0xd5ffb4e2, 0x72be5d74, 0xf27b896f, 0x80deb1fe, 0x3b1696b1, 0x9bdc06a7, 0x25c71235, 0xc19bf174, 0xcf692694, 0xe49b69c1, 0x9ef14ad2, 0xefbe4786, 0x384f25e3, 0x0fc19dc6, 0x8b8cd5b5, 0x240ca1cc, 0x77ac9c65, 0x2de92c6f, 0x592b0275, 0x4a7484aa, 0x6ea6e483, 0x5cb0a9dc, 0xbd41fbd4, 0x76f988da, 0x831153b5, 0x983e5152, 0xee66dfab, 0xa831c66d, 0x2db43210, 0xb00327c8, 0x98fb213f, 0xbf597fc7, 0xbeef0ee4, 0xc6e00bf3, 0x3da88fc2, 0xd5a79147, 0x930aa725, 0x06ca6351, 0xe003826f, 0x14292967, 0x0a0e6e70, 0x27b70a85, 0x46d22ffc, 0x2e1b2138, 0x5c26c926, 0x4d2c6dfc, 0x5ac42aed, 0x53380d13, 0x9d95b3df, 0x650a7354, 0x8baf63de, 0x766a0abb, 0x3c77b2a8, 0x81c2c92e, 0x47edaee6, 0x92722c85, 0x1482353b, 0xa2bfe8a1, 0x4cf10364, 0xa81a664b, 0xbc423001, 0xc24b8b70, 0xd0f89791, 0xc76c51a3, 0x0654be30, 0xd192e819, 0xd6ef5218, 0xd6990624, 0x5565a910, 0xf40e3585, 0x5771202a, 0x106aa070, 0x32bbd1b8, 0x19a4c116, 0xb8d2d0c8, 0x1e376c08, 0x5141ab53, 0x2748774c, 0xdf8eeb99, 0x34b0bcb5, 0xe19b48a8, 0x391c0cb3, 0xc5c95a63, 0x4ed8aa4a, 0xe3418acb, 0x5b9cca4f, 0x7763e373, 0x682e6ff3, 0xd6b2b8a3, 0x748f82ee, 0x5defb2fc, 0x78a5636f, 0x43172f60, 0x84c87814, 0xa1f0ab72, 0x8cc70208, 0x1a6439ec, 0x90befffa, 0x23631e28, 0xa4506ceb, 0xde82bde9, 0xbef9a3f7, 0xb2c67915, 0xc67178f2, 0xe372532b, 0xca273ece, 0xea26619c, 0xd186b8c7, 0x21c0c207, 0xeada7dd6, 0xcde0eb1e, 0xf57d4f7f, 0xee6ed178, 0x06f067aa, 0x72176fba, 0x0a637dc5, 0xa2c898a6, 0x113f9804, 0xbef90dae, 0x1b710b35, 0x131c471b, 0x28db77f5, 0x23047d84, 0x32caab7b, 0x40c72493, 0x3c9ebe0a, 0x15c9bebc, 0x431d67c4, 0x9c100d4c, 0x4cc5d4be, 0xcb3e42b6, 0x597f299c, 0xfc657e2a, 0x5fcb6fab, 0x3ad6faec, 0x6c44198c, 0x4a475817]);
    var H512 = [0x6a09e667, 0xf3bcc908, 0xbb67ae85, 0x84caa73b, 0x3c6ef372, 0xfe94f82b, 0xa54ff53a, 0x5f1d36f1, 0x510e527f, 0xade682d1, 0x9b05688c, 0x2b3e6c1f, 0x1f83d9ab, 0xfb41bd6b, 0x5be0cd19, 0x137e2179];
    var W512 = new Int32Array(160);

    function sha512Blocks(h, b, n) {
      var W = W512, K = K512;
      for (var off = 0; off + 128 <= n; off += 128) {
        var i;
        for (i = 0; i < 32; i++) {
          var j = off + 4 * i;
          W[i] = (b[j] << 24) | (b[j + 1] << 16) | (b[j + 2] << 8) | b[j + 3];
        }
        for (i = 16; i < 80; i++) {
          // σ1(W[i-2]) = ROTR19 ^ ROTR61 ^ SHR6; σ0(W[i-15]) = ROTR1 ^ ROTR8 ^ SHR7
          var xh = W[2 * i - 4], xl = W[2 * i - 3];
          var s1h = ((xh >>> 19) | (xl << 13)) ^ ((xl >>> 29) | (xh << 3)) ^ (xh >>> 6);
          var s1l = ((xl >>> 19) | (xh << 13)) ^ ((xh >>> 29) | (xl << 3)) ^ ((xl >>> 6) | (xh << 26));
          xh = W[2 * i - 30]; xl = W[2 * i - 29];
          var s0h = ((xh >>> 1) | (xl << 31)) ^ ((xh >>> 8) | (xl << 24)) ^ (xh >>> 7);
          var s0l = ((xl >>> 1) | (xh << 31)) ^ ((xl >>> 8) | (xh << 24)) ^ ((xl >>> 7) | (xh << 25));
          var l = (s1l >>> 0) + (W[2 * i - 13] >>> 0) + (s0l >>> 0) + (W[2 * i - 31] >>> 0);
          var hi = s1h + W[2 * i - 14] + s0h + W[2 * i - 32] + ((l / 4294967296) | 0);
          W[2 * i] = hi | 0; W[2 * i + 1] = l | 0;
        }
        var ah = h[0], al = h[1], bh = h[2], bl = h[3], ch = h[4], cl = h[5], dh = h[6], dl = h[7];
        var eh = h[8], el = h[9], fh = h[10], fl = h[11], gh = h[12], gl = h[13], hh = h[14], hl = h[15];
        for (i = 0; i < 80; i++) {
          // Σ1(e) = ROTR14 ^ ROTR18 ^ ROTR41; Σ0(a) = ROTR28 ^ ROTR34 ^ ROTR39
          var S1h = ((eh >>> 14) | (el << 18)) ^ ((eh >>> 18) | (el << 14)) ^ ((el >>> 9) | (eh << 23));
          var S1l = ((el >>> 14) | (eh << 18)) ^ ((el >>> 18) | (eh << 14)) ^ ((eh >>> 9) | (el << 23));
          var chh = (eh & fh) ^ (~eh & gh), chl = (el & fl) ^ (~el & gl);
          var t1l = (hl >>> 0) + (S1l >>> 0) + (chl >>> 0) + (K[2 * i + 1] >>> 0) + (W[2 * i + 1] >>> 0);
          var t1h = (hh + S1h + chh + K[2 * i] + W[2 * i] + ((t1l / 4294967296) | 0)) | 0;
          t1l = t1l | 0;
          var S0h = ((ah >>> 28) | (al << 4)) ^ ((al >>> 2) | (ah << 30)) ^ ((al >>> 7) | (ah << 25));
          var S0l = ((al >>> 28) | (ah << 4)) ^ ((ah >>> 2) | (al << 30)) ^ ((ah >>> 7) | (al << 25));
          var mjh = (ah & bh) ^ (ah & ch) ^ (bh & ch), mjl = (al & bl) ^ (al & cl) ^ (bl & cl);
          var t2l = (S0l >>> 0) + (mjl >>> 0);
          var t2h = (S0h + mjh + ((t2l / 4294967296) | 0)) | 0;
          t2l = t2l | 0;
          hh = gh; hl = gl; gh = fh; gl = fl; fh = eh; fl = el;
          var el2 = (dl >>> 0) + (t1l >>> 0);
          eh = (dh + t1h + ((el2 / 4294967296) | 0)) | 0; el = el2 | 0;
          dh = ch; dl = cl; ch = bh; cl = bl; bh = ah; bl = al;
          var al2 = (t1l >>> 0) + (t2l >>> 0);
          ah = (t1h + t2h + ((al2 / 4294967296) | 0)) | 0; al = al2 | 0;
        }
        var v = [ah, al, bh, bl, ch, cl, dh, dl, eh, el, fh, fl, gh, gl, hh, hl];
        for (i = 0; i < 16; i += 2) {
          var sl = (h[i + 1] >>> 0) + (v[i + 1] >>> 0);
          h[i] = (h[i] + v[i] + ((sl / 4294967296) | 0)) | 0; h[i + 1] = sl | 0;
        }
      }
    }

    /** sha512(Uint8Array | string) -> Uint8Array(64) */
    function sha512(input) {
      var b = toBytes(input), n = b.length, h = H512.map(function (x) { return x | 0; });
      var full = n - (n % 128);
      sha512Blocks(h, b, full);
      var rest = n - full, tailLen = rest < 112 ? 128 : 256, tail = new Uint8Array(tailLen);
      tail.set(b.subarray(full));
      tail[rest] = 0x80;
      // The length in bits, as 128 bits big-endian (n < 2^53 bytes: the top 64 bits are zero).
      var bitsHi = Math.floor(n / 536870912), bitsLo = (n * 8) >>> 0;
      tail[tailLen - 8] = bitsHi >>> 24; tail[tailLen - 7] = (bitsHi >>> 16) & 255;
      tail[tailLen - 6] = (bitsHi >>> 8) & 255; tail[tailLen - 5] = bitsHi & 255;
      tail[tailLen - 4] = bitsLo >>> 24; tail[tailLen - 3] = (bitsLo >>> 16) & 255;
      tail[tailLen - 2] = (bitsLo >>> 8) & 255; tail[tailLen - 1] = bitsLo & 255;
      sha512Blocks(h, tail, tailLen);
      var out = new Uint8Array(64);
      for (var i = 0; i < 16; i++) {
        out[4 * i] = h[i] >>> 24; out[4 * i + 1] = (h[i] >>> 16) & 255;
        out[4 * i + 2] = (h[i] >>> 8) & 255; out[4 * i + 3] = h[i] & 255;
      }
      return out;
    }

    // ---- Ed25519 (RFC 8032 §5.1), BigInt, extended coordinates (x, y, z, t), x·y = z·t
    var E = null; // the curve's constants, built on first use

    function curve() {
      if (E) return E;
      if (typeof BigInt !== 'function') throw new Error('this browser has no BigInt: Ed25519 cannot be checked here');
      var n0 = BigInt(0), n1 = BigInt(1), n2 = BigInt(2);
      var p = (n1 << BigInt(255)) - BigInt(19);
      E = { n0: n0, n1: n1, n2: n2, p: p,
        L: (n1 << BigInt(252)) + BigInt('27742317777372353535851937790883648493') };
      E.d = md(BigInt(-121665) * inv(BigInt(121666)));
      E.d2 = md(E.d * n2);
      E.sqrtM1 = pow(n2, (p - n1) / BigInt(4));
      var bEnc = new Uint8Array(32); bEnc[0] = 0x58; for (var i = 1; i < 32; i++) bEnc[i] = 0x66;
      E.B = decodePoint(bEnc);
      E.zero = [n0, n1, n1, n0];
      return E;
    }
    function md(a) { var r = a % E.p; return r < E.n0 ? r + E.p : r; }
    function pow(b, e) {
      var r = E.n1; b = md(b);
      while (e > E.n0) { if (e & E.n1) r = md(r * b); b = md(b * b); e >>= E.n1; }
      return r;
    }
    function inv(a) { return pow(a, E.p - E.n2); }
    function leInt(bytes, start, end) {
      var hex = '';
      for (var i = end - 1; i >= start; i--) hex += HEX2[bytes[i]];
      return BigInt('0x' + (hex || '0'));
    }

    // RFC 8032 §5.1.4's addition (a = −1), complete: it doubles too.
    function add(P, Q) {
      var a = md((P[1] - P[0]) * (Q[1] - Q[0])), b = md((P[1] + P[0]) * (Q[1] + Q[0]));
      var c = md(P[3] * E.d2 * Q[3]), d = md(P[2] * E.n2 * Q[2]);
      var e = b - a, f = d - c, g = d + c, h = b + a;
      return [md(e * f), md(g * h), md(f * g), md(e * h)];
    }
    function mul(s, P) {
      var R = E.zero, Q = P;
      while (s > E.n0) { if (s & E.n1) R = add(R, Q); Q = add(Q, Q); s >>= E.n1; }
      return R;
    }
    function encodePoint(P) {
      var zi = inv(P[2]), x = md(P[0] * zi), y = md(P[1] * zi);
      var hex = y.toString(16), out = new Uint8Array(32);
      while (hex.length < 64) hex = '0' + hex;
      for (var i = 0; i < 32; i++) out[i] = parseInt(hex.substr(62 - 2 * i, 2), 16);
      if (x & E.n1) out[31] |= 0x80;
      return out;
    }
    // A point from its 32 bytes, or null when y has no x. As ed25519-dalek (curve25519-dalek's
    // CompressedEdwardsY::decompress): y is the low 255 bits taken mod p, and the sign bit
    // negates x even when x is 0.
    function decodePoint(bytes) {
      var sign = bytes[31] >> 7, top = bytes[31] & 0x7f;
      var hex = HEX2[top];
      for (var i = 30; i >= 0; i--) hex += HEX2[bytes[i]];
      var y = md(BigInt('0x' + hex)), yy = md(y * y);
      var u = md(yy - E.n1), v = md(E.d * yy + E.n1);
      var x2 = md(u * inv(v));
      var x = pow(x2, (E.p + BigInt(3)) / BigInt(8));
      if (md(x * x) !== x2) {
        x = md(x * E.sqrtM1);
        if (md(x * x) !== x2) return null;
      }
      if (Number(x & E.n1) !== 0) x = md(-x); // the even root, as dalek's sqrt_ratio_i gives it
      if (sign) x = md(-x);
      return [x, y, E.n1, md(x * y)];
    }

    /**
     * ed25519Verify(publicKey: Uint8Array(32), message, signature: Uint8Array(64)) -> boolean.
     * ed25519-dalek's `VerifyingKey::verify` (see above); false, never a throw, on any length.
     */
    function ed25519Verify(publicKey, message, signature) {
      var A = toBytes(publicKey), sig = toBytes(signature), msg = toBytes(message);
      if (A.length !== 32 || sig.length !== 64) return false;
      try { curve(); } catch (e) { return false; }
      var s = leInt(sig, 32, 64);
      if (s >= E.L) return false; // not canonical: malleable
      var pA = decodePoint(A);
      if (!pA) return false;
      var hin = new Uint8Array(64 + msg.length);
      hin.set(sig.subarray(0, 32), 0); hin.set(A, 32); hin.set(msg, 64);
      var h = sha512(hin), k = leInt(h, 0, 64) % E.L;
      var negA = [md(-pA[0]), pA[1], pA[2], md(-pA[3])];
      var r = encodePoint(add(mul(s, E.B), mul(k, negA)));
      for (var i = 0; i < 32; i++) if (r[i] !== sig[i]) return false;
      return true;
    }

    // ---- Base64 as the Rust side reads it (the base64 crate's STANDARD: padded, canonical)
    function b64Decode(s) {
      if (typeof s !== 'string' || s.length % 4 !== 0 || !/^[A-Za-z0-9+\/]*={0,2}$/.test(s)) return null;
      var out = new Uint8Array(s.length / 4 * 3), j = 0;
      for (var i = 0; i < s.length; i += 4) {
        var c = [0, 1, 2, 3].map(function (k) { return s[i + k] === '=' ? 0 : B64.indexOf(s[i + k]); });
        var v = (c[0] << 18) | (c[1] << 12) | (c[2] << 6) | c[3];
        out[j++] = v >> 16; out[j++] = (v >> 8) & 255; out[j++] = v & 255;
      }
      var pad = s.length && s[s.length - 1] === '=' ? (s[s.length - 2] === '=' ? 2 : 1) : 0;
      var bytes = out.slice(0, out.length - pad);
      return base64Encode(bytes) === s ? bytes : null; // one text per bytes: padding and unused bits
    }
    function hex8(bytes) { var s = ''; for (var i = 0; i < 4; i++) s += HEX2[bytes[i]]; return s; }

    // ---- Verifier keys (C2SP signed-note): <name>+<8 hex key id>+<base64(0x01 ‖ 32-byte key)>

    // Rust's char::is_whitespace (Unicode White_Space), which `signed_note` refuses in a name.
    var WHITE_SPACE = /[\t\n\u000b\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]/;
    function nameValid(name) { return name.length > 0 && !WHITE_SPACE.test(name) && name.indexOf('+') < 0; }

    /** keyId(name, keyBytes (algorithm byte and key)) -> Uint8Array(4): SHA-256(name ‖ LF ‖ key)[0..4]. */
    function keyId(name, keyBytes) {
      var n = utf8Encode(name), b = new Uint8Array(n.length + 1 + keyBytes.length);
      b.set(n, 0); b[n.length] = 10; b.set(keyBytes, n.length + 1);
      return sha256(b).slice(0, 4);
    }

    /**
     * parseVkey(text) -> {name, id (8 lowercase hex), idBytes: Uint8Array(4), publicKey:
     * Uint8Array(32), vkey} or {error}: what signed_note's StandardVerifier::new takes (the id
     * in either case of hex, and it must be the key's; algorithm 1, Ed25519, a key that decodes).
     */
    function parseVkey(text) {
      if (typeof text !== 'string') return { error: 'not a text' };
      var a = text.indexOf('+'), b = a < 0 ? -1 : text.indexOf('+', a + 1);
      if (b < 0) return { error: 'not <name>+<key id>+<base64>' };
      var name = text.slice(0, a), id16 = text.slice(a + 1, b), key = b64Decode(text.slice(b + 1));
      if (!/^[0-9a-fA-F]{8}$/.test(id16)) return { error: 'the key id is not 8 hex digits' };
      if (!nameValid(name)) return { error: 'the name is empty or holds a space or a +' };
      if (!key || !key.length) return { error: 'the key is not standard padded base64' };
      var id = keyId(name, key);
      if (hex8(id) !== id16.toLowerCase()) return { error: 'the key id ' + id16 + ' is not the key\'s (' + hex8(id) + ')' };
      if (key[0] !== 1) return { error: 'algorithm ' + key[0] + ', not Ed25519 (1)' };
      if (key.length !== 33) return { error: 'an Ed25519 key is 32 bytes, not ' + (key.length - 1) };
      try { curve(); } catch (e) { return { error: String(e.message) }; }
      if (!decodePoint(key.subarray(1))) return { error: 'the key is no point of the curve' };
      return { name: name, id: hex8(id), idBytes: id, publicKey: key.slice(1), vkey: text };
    }

    // ---- The checkpoint, a signed note (C2SP signed-note), as signed_note 0.2's Note::from_bytes
    // and Note::verify read it, and src/signing.rs's checkpoint_signature answers

    var MAX_NOTE_SIZE = 1000000, MAX_NOTE_SIGNATURES = 100;

    /**
     * verifyNote(bytes, vkey) -> {state, detail, text, signatures}: state is
     *   'unsigned'  no blank line: a note body and no signature block;
     *   'broken'    the key does not parse, the note is malformed (not UTF-8, a control
     *               character, a signature line that is not `— <name> <base64>`, …), or a
     *               signature by this key (its name and id) does not hold;
     *   'other-key' well formed, and no signature by this key;
     *   'holds'     a signature by this key holds over the body (every byte up to and with its LF).
     * text: the body (a string) when the note parses; signatures: [{name, id (hex)}].
     */
    function verifyNote(bytes, vkey) {
      var b = toBytes(bytes), out = { state: 'broken', detail: '', text: null, signatures: [] };
      var blank = false;
      for (var i = 0; i + 1 < b.length; i++) if (b[i] === 10 && b[i + 1] === 10) { blank = true; break; }
      if (!blank) { out.state = 'unsigned'; out.detail = 'it is not signed'; return out; }
      var key = parseVkey(vkey);
      if (key.error) { out.detail = 'the key ' + vkey + ' is not a verifier key: ' + key.error; return out; }
      var malformed = function (why) { out.detail = 'it is not a well-formed signed note: ' + why; return out; };
      if (b.length > MAX_NOTE_SIZE) return malformed('over ' + MAX_NOTE_SIZE + ' bytes');
      var msg = utf8Decode(b);
      if (msg === null) return malformed('not UTF-8');
      if (/[\u0000-\u0009\u000b-\u001f]/.test(msg)) return malformed('a control character');
      var cut = msg.lastIndexOf('\n\n'), text = msg.slice(0, cut) + '\n', sigs = msg.slice(cut + 2);
      if (sigs.slice(-1) !== '\n') return malformed('the signature block does not end with LF');
      var lines = sigs.slice(0, -1).split('\n');
      if (lines.length > MAX_NOTE_SIGNATURES) return malformed('over ' + MAX_NOTE_SIGNATURES + ' signatures');
      var parsed = [];
      for (i = 0; i < lines.length; i++) {
        var line = lines[i];
        if (line.slice(0, 2) !== '\u2014 ') return malformed('signature line ' + (i + 1) + ' does not begin with an em dash and a space');
        var sp = line.indexOf(' ', 2);
        if (sp < 0) return malformed('signature line ' + (i + 1) + ' has no space after its name');
        var name = line.slice(2, sp), blob = b64Decode(line.slice(sp + 1));
        if (!blob || blob.length < 5) return malformed('signature line ' + (i + 1) + ' is not standard padded base64 of a key id and a signature');
        if (!nameValid(name)) return malformed('signature line ' + (i + 1) + ' names no valid key name');
        parsed.push({ name: name, id: hex8(blob), sig: blob.slice(4) });
      }
      out.text = text;
      out.signatures = parsed.map(function (s) { return { name: s.name, id: s.id }; });
      var body = utf8Encode(text), verified = false;
      for (i = 0; i < parsed.length; i++) {
        var s = parsed[i];
        if (s.name !== key.name || s.id !== key.id) continue;
        if (verified) continue; // signed_note checks one signature per key
        if (!ed25519Verify(key.publicKey, body, s.sig)) { out.detail = 'its signature by ' + key.name + '+' + key.id + ' does not hold: the bytes were altered after they were signed'; return out; }
        verified = true;
      }
      if (!verified) {
        out.state = 'other-key';
        out.detail = 'it is signed by ' + (parsed.map(function (s) { return s.name + '+' + s.id; }).join(', ')) + ', not by ' + key.name + '+' + key.id;
        return out;
      }
      out.state = 'holds'; out.detail = 'signed by ' + key.name + '+' + key.id;
      return out;
    }

    // ---- Signed snapshot lines (docs/anchoring.md#signed-snapshots)

    var SNAPSHOT_PREFIX = utf8Encode('{"signature":"');
    var SNAPSHOT_DOMAIN = utf8Encode('exhibit snapshot line v1\n');

    function startsWith(b, prefix) {
      if (b.length < prefix.length) return false;
      for (var i = 0; i < prefix.length; i++) if (b[i] !== prefix[i]) return false;
      return true;
    }

    /**
     * splitSnapshotLine(lineBytes) -> {name, blob, signed (the bytes signed: the domain line and
     * the line without its signature member)} or null when the line carries no signature member
     * it can read (src/signing.rs split_snapshot_signature).
     */
    function splitSnapshotLine(lineBytes) {
      var b = toBytes(lineBytes);
      if (!startsWith(b, SNAPSHOT_PREFIX)) return null;
      var start = SNAPSHOT_PREFIX.length, end = b.indexOf(34, start);
      if (end < 0) return null;
      var value = utf8Decode(b.subarray(start, end));
      if (value === null) return null;
      var sp = value.indexOf(' ');
      if (sp < 0) return null;
      var blob = b64Decode(value.slice(sp + 1));
      if (!blob) return null;
      var after = b.subarray(end + 1);
      if (after.length && after[0] === 44) after = after.subarray(1);
      var signed = new Uint8Array(SNAPSHOT_DOMAIN.length + 1 + after.length);
      signed.set(SNAPSHOT_DOMAIN, 0); signed[SNAPSHOT_DOMAIN.length] = 123; signed.set(after, SNAPSHOT_DOMAIN.length + 1);
      return { name: value.slice(0, sp), blob: blob, signed: signed };
    }

    /**
     * snapshotSignature(lineBytes, vkey) -> {state, detail, signer}: state 'unsigned' (no
     * signature member it can read), 'broken' (the key does not parse, or the signature does not
     * hold), 'other-key' (another name, id, or a blob not 4 + 64 bytes; signer: `name+id`), 'holds'.
     */
    function snapshotSignature(lineBytes, vkey) {
      var split = splitSnapshotLine(lineBytes);
      if (!split) return { state: 'unsigned', detail: 'it is not signed' };
      var key = parseVkey(vkey);
      if (key.error) return { state: 'broken', detail: 'the key ' + vkey + ' is not a verifier key: ' + key.error };
      var blob = split.blob;
      if (split.name !== key.name || blob.length !== 68 || hex8(blob) !== key.id) {
        var signer = split.name + '+' + (blob.length >= 4 ? hex8(blob) : '');
        return { state: 'other-key', signer: signer, detail: 'it is signed by ' + signer + ', another key' };
      }
      if (ed25519Verify(key.publicKey, split.signed, blob.subarray(4))) return { state: 'holds', detail: 'signed by ' + vkey };
      return { state: 'broken', detail: 'the signature does not hold: the bytes were altered after they were signed' };
    }

    // ---- A site's signatures, as `exhibit verify SITE` checks them (src/signature_check.rs)

    function words(r) {
      return r.state === 'unsigned' ? 'is not signed'
        : r.state === 'other-key' ? 'is signed by ' + (r.signer || 'another key') + ', another key'
        : 'does not hold: the bytes were altered after they were signed';
    }

    /**
     * checkSignatures({key, checkpoint, snapshots}) -> {key, checkpoint (bool: its signature by
     * key holds), signedLines, keys (in order of first use), runs ([{key, from, to}]: the key of
     * each run of signed lines, by line number), problems [{file, code, detail}]}.
     * key: STATS.json's tree.key (a string, or null: the exhibit names no key); checkpoint: the
     * bytes of ledger/tree/checkpoint (null: none read); snapshots: SNAPSHOTS.jsonl's bytes.
     *   checkpoint_signature (ledger/tree/checkpoint): a key, and the checkpoint unsigned,
     *     another key's or broken;
     *   snapshot_signature (ledger/SNAPSHOTS.jsonl): a line that begins with the signature member
     *     and names no key, or whose signature does not hold under the key it names;
     *   snapshot_signature (ledger/STATS.json): the last signed line's key is not tree.key.
     */
    function checkSignatures(input) {
      var key = typeof input.key === 'string' ? input.key : null;
      var out = { key: key, checkpoint: false, signedLines: 0, keys: [], runs: [], problems: [] };
      if (key !== null && input.checkpoint) {
        var n = verifyNote(input.checkpoint, key);
        if (n.state === 'holds') out.checkpoint = true;
        else out.problems.push({ file: 'ledger/tree/checkpoint', code: 'checkpoint_signature',
          detail: 'STATS.json names the key ' + key + ', and the checkpoint ' + words(n) + (n.state === 'broken' && n.detail ? ' (' + n.detail + ')' : '') + ' (docs/anchoring.md#signed-checkpoints)' });
      }
      var b = input.snapshots ? toBytes(input.snapshots) : new Uint8Array(0), start = 0, lineNo = 0, last = null;
      while (start <= b.length) {
        var end = b.indexOf(10, start);
        if (end < 0) end = b.length;
        var line = b.subarray(start, end);
        lineNo++;
        start = end + 1;
        if (!startsWith(line, SNAPSHOT_PREFIX)) continue;
        var named = null;
        try {
          var v = readSiteJSON(utf8Decode(line));
          if (v && typeof v === 'object' && !Array.isArray(v) && typeof v.key === 'string') named = v.key;
        } catch (e) { named = null; }
        var r = named === null ? { state: 'broken' } : snapshotSignature(line, named);
        if (r.state === 'holds') {
          out.signedLines++;
          if (out.keys.indexOf(named) < 0) out.keys.push(named);
          var run = out.runs[out.runs.length - 1];
          if (run && run.key === named) run.to = lineNo;
          else out.runs.push({ key: named, from: lineNo, to: lineNo });
          last = named;
        } else {
          out.problems.push({ file: 'ledger/SNAPSHOTS.jsonl', code: 'snapshot_signature',
            detail: 'line ' + lineNo + ': signed, and ' + (named === null ? 'names no key' : 'the signature ' + words(r)) + ' (docs/anchoring.md#signed-snapshots)' });
        }
      }
      // The last signed line's key (docs/anchoring.md#signed-snapshots), STATS.json's tree.key.
      if (key !== null && last !== null && last !== key) {
        out.problems.push({ file: 'ledger/STATS.json', code: 'snapshot_signature',
          detail: 'tree.key is ' + key + ', and the last signed snapshot line is signed by ' + last + ' (docs/anchoring.md#signed-snapshots)' });
      }
      return out;
    }

    // ---- Witness cosignatures (docs/anchoring.md#cosignatures): C2SP tlog-cosignature's
    // cosignature/v1, as src/cosignature.rs reads them. A witness key is a verifier key of
    // signature type 0x04; its line is `— <name> base64(key id ‖ time (8, big-endian) ‖ Ed25519
    // signature)` over `cosignature/v1` LF `time <t>` LF and the checkpoint's body.

    /** parseWitnessKey(text) -> {name, id, idBytes, publicKey, vkey} or {error}. */
    function parseWitnessKey(text) {
      if (typeof text !== 'string') return { error: 'not a text' };
      var a = text.indexOf('+'), b = a < 0 ? -1 : text.indexOf('+', a + 1);
      if (b < 0) return { error: 'not `<name>+<key id>+<base64>`' };
      var name = text.slice(0, a), id16 = text.slice(a + 1, b), key = b64Decode(text.slice(b + 1));
      if (!nameValid(name)) return { error: 'its name is empty or holds a space or a `+`' };
      if (!/^[0-9a-fA-F]{8}$/.test(id16)) return { error: 'its key id is not 8 hex digits' };
      if (!key) return { error: 'its key is not standard padded base64' };
      if (!key.length) return { error: 'its key is empty' };
      if (key[0] === 1) return { error: 'it is of signature type 0x01 (a log\'s Ed25519 key), not 0x04 (a cosignature/v1 witness key)' };
      if (key[0] !== 4) return { error: 'signature type 0x' + HEX2[key[0]] + ', not 0x04 (cosignature/v1)' };
      if (key.length !== 33) return { error: 'an Ed25519 key is 32 bytes, not ' + (key.length - 1) };
      try { curve(); } catch (e) { return { error: String(e.message) }; }
      if (!decodePoint(key.subarray(1))) return { error: 'its key is no point of the curve' };
      var id = keyId(name, key);
      if (hex8(id) !== id16.toLowerCase()) return { error: 'the key id ' + id16 + ' is not the key\'s (' + hex8(id) + ')' };
      return { name: name, id: hex8(id), idBytes: id, publicKey: key.slice(1), vkey: text };
    }

    /** cosignedMessage(bodyBytes, time (a Number)) -> the bytes a witness signs. */
    function cosignedMessage(body, time) {
      var head = utf8Encode('cosignature/v1\ntime ' + String(time) + '\n'), b = toBytes(body);
      var out = new Uint8Array(head.length + b.length);
      out.set(head, 0); out.set(b, head.length);
      return out;
    }

    /** splitNote(bytes) -> {body: Uint8Array (up to and with the LF before the blank line), lines: [Uint8Array]} or null. */
    function splitNote(bytes) {
      var b = toBytes(bytes);
      for (var i = 0; i + 1 < b.length; i++) {
        if (b[i] !== 10 || b[i + 1] !== 10) continue;
        var sigs = b.subarray(i + 2);
        if (sigs.length && sigs[sigs.length - 1] === 10) sigs = sigs.subarray(0, sigs.length - 1);
        var lines = [], start = 0;
        if (sigs.length) {
          for (var j = 0; j <= sigs.length; j++) {
            if (j === sigs.length || sigs[j] === 10) { lines.push(sigs.subarray(start, j)); start = j + 1; }
          }
        }
        return { body: b.subarray(0, i + 1), lines: lines };
      }
      return null;
    }

    /**
     * cosignatureLine(lineBytes, bodyBytes, key (parseWitnessKey's)) -> {state, time}: state
     * 'not-this' (another name, or no signature line), 'other-key' (this name, another key id or
     * a blob not 4 + 8 + 64 bytes), 'broken' (by this key, not holding over this body at its
     * time, or a time past 2^63 − 1), 'holds' (time: seconds, a Number).
     */
    function cosignatureLine(lineBytes, body, key) {
      var text = utf8Decode(toBytes(lineBytes));
      if (text === null || text.slice(0, 2) !== '\u2014 ') return { state: 'not-this' };
      var sp = text.indexOf(' ', 2);
      if (sp < 0) return { state: 'not-this' };
      var blob = b64Decode(text.slice(sp + 1));
      if (!blob || text.slice(2, sp) !== key.name) return { state: 'not-this' };
      if (blob.length !== 76 || hex8(blob) !== key.id) return { state: 'other-key' };
      var hi = ((blob[4] << 24) >>> 0) + (blob[5] << 16) + (blob[6] << 8) + blob[7];
      var lo = ((blob[8] << 24) >>> 0) + (blob[9] << 16) + (blob[10] << 8) + blob[11];
      if (hi >= 0x80000000) return { state: 'broken' };
      // Exact below 2^53 (every time until the year 285 million); past it, the decimal text the
      // witness signed is made with BigInt where there is one.
      var timeText = hi < 0x200000 ? String(hi * 4294967296 + lo)
        : (typeof BigInt === 'function' ? (BigInt(hi) * BigInt(4294967296) + BigInt(lo)).toString() : null);
      if (timeText === null) return { state: 'broken' };
      var ok = ed25519Verify(key.publicKey, cosignedMessage(body, timeText), blob.subarray(12));
      return ok ? { state: 'holds', time: Number(timeText) } : { state: 'broken' };
    }

    /** utc(seconds) -> `YYYY-MM-DDTHH:MM:SSZ`, as src/cosignature.rs's utc (civil days, no clock). */
    function utc(t) {
      var pad = function (n, w) { var s = String(n); while (s.length < w) s = '0' + s; return s; };
      var days = Math.floor(t / 86400), secs = t - days * 86400;
      var z = days + 719468, era = Math.floor(z / 146097), doe = z - era * 146097;
      var yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
      var doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
      var mp = Math.floor((5 * doy + 2) / 153), d = doy - Math.floor((153 * mp + 2) / 5) + 1;
      var m = mp < 10 ? mp + 3 : mp - 9, y = yoe + era * 400 + (m <= 2 ? 1 : 0);
      return pad(y, 4) + '-' + pad(m, 2) + '-' + pad(d, 2) + 'T' + pad(Math.floor(secs / 3600), 2) + ':' + pad(Math.floor(secs / 60) % 60, 2) + ':' + pad(secs % 60, 2) + 'Z';
    }

    /**
     * checkCosignatures(noteBytes, listed [{name, key}]) -> {k, n, latest (seconds or null),
     * latestUtc, by [names], problems [{code, detail}]}, as `exhibit verify SITE` counts them:
     *   witness_key            a listed key that is no cosignature/v1 key, or named otherwise;
     *   cosignature_other_key  a line in a listed witness's name by another key;
     *   cosignature_broken     a line by a listed witness's key that does not hold over this body.
     * Lines of other names (the operator's, a witness not listed) are not counted.
     */
    function checkCosignatures(note, listed) {
      var list = Array.isArray(listed) ? listed : [];
      var out = { k: 0, n: list.length, latest: null, latestUtc: null, by: [], problems: [] };
      var split = splitNote(note || new Uint8Array(0)) || { body: toBytes(note || new Uint8Array(0)), lines: [] };
      list.forEach(function (w) {
        var wname = w && typeof w.name === 'string' ? w.name : String(w && w.name);
        var key = parseWitnessKey(w && w.key);
        if (key.error) { out.problems.push({ code: 'witness_key', detail: 'witness ' + JSON.stringify(wname) + ': ' + String(w && w.key) + ' is not a cosignature key: ' + key.error }); return; }
        if (key.name !== wname) { out.problems.push({ code: 'witness_key', detail: 'witness ' + JSON.stringify(wname) + ': its key is named ' + JSON.stringify(key.name) + ', not ' + JSON.stringify(wname) }); return; }
        var best = null;
        split.lines.forEach(function (line, i) {
          var r = cosignatureLine(line, split.body, key);
          if (r.state === 'holds') best = best === null ? r.time : Math.max(best, r.time);
          else if (r.state === 'other-key') out.problems.push({ code: 'cosignature_other_key', detail: 'signature line ' + (i + 1) + ': in the name of witness ' + JSON.stringify(wname) + ', and not by its key ' + key.vkey + ' (docs/anchoring.md#cosignatures)' });
          else if (r.state === 'broken') out.problems.push({ code: 'cosignature_broken', detail: 'signature line ' + (i + 1) + ': witness ' + JSON.stringify(wname) + '\'s cosignature does not hold over this checkpoint: forged, or the checkpoint changed after it was cosigned (docs/anchoring.md#cosignatures)' });
        });
        if (best !== null) { out.k++; out.by.push(wname); out.latest = out.latest === null ? best : Math.max(out.latest, best); }
      });
      out.latestUtc = out.latest === null ? null : utc(out.latest);
      return out;
    }

    /**
     * listedWitnesses(statsTree) -> null (STATS.json's tree lists no witnesses), [{key, name}],
     * or {error}: `tree.witnesses` must be a list of objects whose key and name are strings.
     */
    function listedWitnesses(t) {
      if (!t || typeof t !== 'object' || !Object.prototype.hasOwnProperty.call(t, 'witnesses')) return null;
      var w = t.witnesses;
      var ok = Array.isArray(w) && w.every(function (x) { return x && typeof x === 'object' && !Array.isArray(x) && typeof x.key === 'string' && typeof x.name === 'string'; });
      if (!ok) return { error: 'tree.witnesses is not a list of {"key", "name"}' };
      return w.map(function (x) { return { key: x.key, name: x.name }; });
    }

    /** cosignWords(c) -> "cosigned by k of n witness(es)[, the latest at <time>]", as the CLI says it. */
    function cosignWords(c) {
      var of = 'cosigned by ' + c.k + ' of ' + c.n + ' witness' + (c.n === 1 ? '' : 'es');
      return c.latestUtc ? of + ', the latest at ' + c.latestUtc : of;
    }

    return {
      sha512: sha512,
      ed25519Verify: ed25519Verify,
      base64Decode: b64Decode,
      keyId: keyId,
      parseVkey: parseVkey,
      verifyNote: verifyNote,
      splitSnapshotLine: splitSnapshotLine,
      snapshotSignature: snapshotSignature,
      checkSignatures: checkSignatures,
      cosign: {
        parseWitnessKey: parseWitnessKey,
        cosignedMessage: cosignedMessage,
        splitNote: splitNote,
        line: cosignatureLine,
        check: checkCosignatures,
        listed: listedWitnesses,
        words: cosignWords,
        utc: utc,
        CODES: ['witness_key', 'cosignature_other_key', 'cosignature_broken']
      },
      SNAPSHOT_DOMAIN: 'exhibit snapshot line v1\n',
      CODES: ['checkpoint_signature', 'snapshot_signature']
    };
  })();

  // ------------------------------------------------------------------------------------------
  // OpenTimestamps proofs evaluated (docs/anchoring.md; the Rust twin is crates/protocol/src/ots.rs
  // and ots/eval.rs, and vectors/ots.json holds the cases both answer alike). From the digest a
  // proof's header commits to, every operation of its tree is applied along every path, and each
  // attestation is given with the message it attests: for a Bitcoin attestation, the merkle root
  // the block at its height must carry, byte-reversed as block explorers show it. Whether the
  // block carries it is the one fact this code cannot know; `explorers(height)` names two pages
  // where a person compares it.
  //
  // The format is the reference client's (python-opentimestamps: op.py, timestamp.py,
  // notary.py): after the 65-byte header, a timestamp is `ff`-marked branches then one last
  // branch, each an attestation (`00`, an 8-byte tag, a length-prefixed payload) or an operation
  // followed by the timestamp of its result. Its bounds are the reference client's (a message of
  // at most 4096 bytes, an argument of 1 to 4096, a payload of at most 8192, a URI of at most
  // 1000 bytes of A-Z a-z 0-9 - . _ / :, at most 255 operations on a path) and exhibit's own (at
  // most 10,000 operations and 1,000 attestations in all); a Bitcoin attestation must be on a
  // 32-byte message. The walk is iterative, holds one message a level of the path it is on, and
  // stops at the first problem, checked in the order the Rust walk checks them.

  // SHA-1 (FIPS 180-4) of a Uint8Array.
  function sha1(m) {
    var len = m.length, n = ((len + 8) >>> 6) + 1, p = new Uint8Array(n * 64), i, j;
    p.set(m);
    p[len] = 0x80;
    var hi = Math.floor(len / 0x20000000), lo = (len * 8) >>> 0, e8 = n * 64;
    p[e8 - 8] = hi >>> 24; p[e8 - 7] = hi >>> 16; p[e8 - 6] = hi >>> 8; p[e8 - 5] = hi;
    p[e8 - 4] = lo >>> 24; p[e8 - 3] = lo >>> 16; p[e8 - 2] = lo >>> 8; p[e8 - 1] = lo;
    var h = [0x67452301, 0xefcdab89 | 0, 0x98badcfe | 0, 0x10325476, 0xc3d2e1f0 | 0];
    var w = new Int32Array(80);
    for (var off = 0; off < p.length; off += 64) {
      for (i = 0; i < 16; i++) {
        j = off + 4 * i;
        w[i] = (p[j] << 24) | (p[j + 1] << 16) | (p[j + 2] << 8) | p[j + 3];
      }
      for (i = 16; i < 80; i++) {
        var x = w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16];
        w[i] = (x << 1) | (x >>> 31);
      }
      var a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f, k, t;
      for (i = 0; i < 80; i++) {
        if (i < 20) { f = (b & c) | (~b & d); k = 0x5a827999; }
        else if (i < 40) { f = b ^ c ^ d; k = 0x6ed9eba1; }
        else if (i < 60) { f = (b & c) | (b & d) | (c & d); k = 0x8f1bbcdc | 0; }
        else { f = b ^ c ^ d; k = 0xca62c1d6 | 0; }
        t = (((a << 5) | (a >>> 27)) + f + e + k + w[i]) | 0;
        e = d; d = c; c = (b << 30) | (b >>> 2); b = a; a = t;
      }
      h[0] = (h[0] + a) | 0; h[1] = (h[1] + b) | 0; h[2] = (h[2] + c) | 0; h[3] = (h[3] + d) | 0; h[4] = (h[4] + e) | 0;
    }
    var out = new Uint8Array(20);
    for (i = 0; i < 5; i++) {
      out[4 * i] = h[i] >>> 24; out[4 * i + 1] = h[i] >>> 16; out[4 * i + 2] = h[i] >>> 8; out[4 * i + 3] = h[i];
    }
    return out;
  }

  // RIPEMD-160 (Dobbertin, Bosselaers, Preneel 1996) of a Uint8Array: two lines of five rounds
  // over little-endian words; the tables are the word order and the rotations of each step.
  var RMD_R = [
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 7, 4, 13, 1, 10, 6, 15, 3, 12, 0, 9, 5, 2, 14, 11, 8,
    3, 10, 14, 4, 9, 15, 8, 1, 2, 7, 0, 6, 13, 11, 5, 12, 1, 9, 11, 10, 0, 8, 12, 4, 13, 3, 7, 15, 14, 5, 6, 2,
    4, 0, 5, 9, 7, 12, 2, 10, 14, 1, 3, 8, 11, 6, 15, 13];
  var RMD_RP = [
    5, 14, 7, 0, 9, 2, 11, 4, 13, 6, 15, 8, 1, 10, 3, 12, 6, 11, 3, 7, 0, 13, 5, 10, 14, 15, 8, 12, 4, 9, 1, 2,
    15, 5, 1, 3, 7, 14, 6, 9, 11, 8, 12, 2, 10, 0, 4, 13, 8, 6, 4, 1, 3, 11, 15, 0, 5, 12, 2, 13, 9, 7, 10, 14,
    12, 15, 10, 4, 1, 5, 8, 7, 6, 2, 13, 14, 0, 3, 9, 11];
  var RMD_S = [
    11, 14, 15, 12, 5, 8, 7, 9, 11, 13, 14, 15, 6, 7, 9, 8, 7, 6, 8, 13, 11, 9, 7, 15, 7, 12, 15, 9, 11, 7, 13, 12,
    11, 13, 6, 7, 14, 9, 13, 15, 14, 8, 13, 6, 5, 12, 7, 5, 11, 12, 14, 15, 14, 15, 9, 8, 9, 14, 5, 6, 8, 6, 5, 12,
    9, 15, 5, 11, 6, 8, 13, 12, 5, 12, 13, 14, 11, 8, 5, 6];
  var RMD_SP = [
    8, 9, 9, 11, 13, 15, 15, 5, 7, 7, 8, 11, 14, 14, 12, 6, 9, 13, 15, 7, 12, 8, 9, 11, 7, 7, 12, 7, 6, 15, 13, 11,
    9, 7, 15, 11, 8, 6, 6, 14, 12, 13, 5, 14, 13, 13, 7, 5, 15, 5, 8, 11, 14, 14, 6, 14, 6, 9, 12, 9, 12, 5, 15, 8,
    8, 5, 12, 9, 12, 5, 14, 6, 8, 13, 6, 5, 15, 13, 11, 11];
  var RMD_K = [0, 0x5a827999, 0x6ed9eba1, 0x8f1bbcdc | 0, 0xa953fd4e | 0];
  var RMD_KP = [0x50a28be6, 0x5c4dd124, 0x6d703ef3, 0x7a6d76e9, 0];

  function rmdF(j, x, y, z) {
    if (j < 16) return x ^ y ^ z;
    if (j < 32) return (x & y) | (~x & z);
    if (j < 48) return (x | ~y) ^ z;
    if (j < 64) return (x & z) | (y & ~z);
    return x ^ (y | ~z);
  }

  function ripemd160(m) {
    var len = m.length, n = ((len + 8) >>> 6) + 1, p = new Uint8Array(n * 64), i, j;
    p.set(m);
    p[len] = 0x80;
    var hi = Math.floor(len / 0x20000000), lo = (len * 8) >>> 0, e8 = n * 64;
    p[e8 - 8] = lo; p[e8 - 7] = lo >>> 8; p[e8 - 6] = lo >>> 16; p[e8 - 5] = lo >>> 24;
    p[e8 - 4] = hi; p[e8 - 3] = hi >>> 8; p[e8 - 2] = hi >>> 16; p[e8 - 1] = hi >>> 24;
    var h = [0x67452301, 0xefcdab89 | 0, 0x98badcfe | 0, 0x10325476, 0xc3d2e1f0 | 0];
    var x = new Int32Array(16);
    for (var off = 0; off < p.length; off += 64) {
      for (i = 0; i < 16; i++) {
        j = off + 4 * i;
        x[i] = p[j] | (p[j + 1] << 8) | (p[j + 2] << 16) | (p[j + 3] << 24);
      }
      var al = h[0], bl = h[1], cl = h[2], dl = h[3], el = h[4];
      var ar = h[0], br = h[1], cr = h[2], dr = h[3], er = h[4], t, s;
      for (j = 0; j < 80; j++) {
        t = (al + rmdF(j, bl, cl, dl) + x[RMD_R[j]] + RMD_K[j >>> 4]) | 0;
        s = RMD_S[j];
        t = (((t << s) | (t >>> (32 - s))) + el) | 0;
        al = el; el = dl; dl = (cl << 10) | (cl >>> 22); cl = bl; bl = t;
        t = (ar + rmdF(79 - j, br, cr, dr) + x[RMD_RP[j]] + RMD_KP[j >>> 4]) | 0;
        s = RMD_SP[j];
        t = (((t << s) | (t >>> (32 - s))) + er) | 0;
        ar = er; er = dr; dr = (cr << 10) | (cr >>> 22); cr = br; br = t;
      }
      t = (h[1] + cl + dr) | 0;
      h[1] = (h[2] + dl + er) | 0;
      h[2] = (h[3] + el + ar) | 0;
      h[3] = (h[4] + al + br) | 0;
      h[4] = (h[0] + bl + cr) | 0;
      h[0] = t;
    }
    var out = new Uint8Array(20);
    for (i = 0; i < 5; i++) {
      out[4 * i] = h[i]; out[4 * i + 1] = h[i] >>> 8; out[4 * i + 2] = h[i] >>> 16; out[4 * i + 3] = h[i] >>> 24;
    }
    return out;
  }

  // Keccak-f[1600] over 25 lanes held as 32-bit halves (lo, hi), and its sponge at rate 136
  // bytes with `pad` as the first padding byte: 0x01 is Keccak-256 (what OpenTimestamps' `67`
  // is), 0x06 is SHA3-256 (the same permutation; tests hold it to node:crypto's sha3-256).
  var KECCAK_RC = [ // lo, hi of each round constant
    0x00000001, 0x00000000, 0x00008082, 0x00000000, 0x0000808a, 0x80000000, 0x80008000, 0x80000000,
    0x0000808b, 0x00000000, 0x80000001, 0x00000000, 0x80008081, 0x80000000, 0x00008009, 0x80000000,
    0x0000008a, 0x00000000, 0x00000088, 0x00000000, 0x80008009, 0x00000000, 0x8000000a, 0x00000000,
    0x8000808b, 0x00000000, 0x0000008b, 0x80000000, 0x00008089, 0x80000000, 0x00008003, 0x80000000,
    0x00008002, 0x80000000, 0x00000080, 0x80000000, 0x0000800a, 0x00000000, 0x8000000a, 0x80000000,
    0x80008081, 0x80000000, 0x00008080, 0x80000000, 0x80000001, 0x00000000, 0x80008008, 0x80000000];
  // The rotation of lane x + 5y (rho); pi moves lane (x, y) to (y, 2x + 3y).
  var KECCAK_ROT = [0, 1, 62, 28, 27, 36, 44, 6, 55, 20, 3, 10, 43, 25, 39, 41, 45, 15, 21, 8, 18, 2, 61, 56, 14];

  function keccakF(lo, hi) {
    var cl = new Int32Array(5), ch = new Int32Array(5), bl = new Int32Array(25), bh = new Int32Array(25);
    for (var round = 0; round < 24; round++) {
      var x, y, i, dl, dh, n, l, h;
      for (x = 0; x < 5; x++) {
        cl[x] = lo[x] ^ lo[x + 5] ^ lo[x + 10] ^ lo[x + 15] ^ lo[x + 20];
        ch[x] = hi[x] ^ hi[x + 5] ^ hi[x + 10] ^ hi[x + 15] ^ hi[x + 20];
      }
      for (x = 0; x < 5; x++) {
        l = cl[(x + 1) % 5]; h = ch[(x + 1) % 5];
        dl = cl[(x + 4) % 5] ^ ((l << 1) | (h >>> 31));
        dh = ch[(x + 4) % 5] ^ ((h << 1) | (l >>> 31));
        for (y = 0; y < 25; y += 5) { lo[x + y] ^= dl; hi[x + y] ^= dh; }
      }
      for (x = 0; x < 5; x++) {
        for (y = 0; y < 5; y++) {
          i = x + 5 * y; n = KECCAK_ROT[i]; l = lo[i]; h = hi[i];
          var to = y + 5 * ((2 * x + 3 * y) % 5), rl, rh;
          if (n === 0) { rl = l; rh = h; }
          else if (n < 32) { rl = (l << n) | (h >>> (32 - n)); rh = (h << n) | (l >>> (32 - n)); }
          else if (n === 32) { rl = h; rh = l; }
          else { n -= 32; rl = (h << n) | (l >>> (32 - n)); rh = (l << n) | (h >>> (32 - n)); }
          bl[to] = rl; bh[to] = rh;
        }
      }
      for (y = 0; y < 25; y += 5) {
        for (x = 0; x < 5; x++) {
          lo[x + y] = bl[x + y] ^ (~bl[(x + 1) % 5 + y] & bl[(x + 2) % 5 + y]);
          hi[x + y] = bh[x + y] ^ (~bh[(x + 1) % 5 + y] & bh[(x + 2) % 5 + y]);
        }
      }
      lo[0] ^= KECCAK_RC[2 * round]; hi[0] ^= KECCAK_RC[2 * round + 1];
    }
  }

  function keccakSponge(m, pad) {
    var rate = 136, n = Math.floor(m.length / rate) + 1, p = new Uint8Array(n * rate), i, j;
    p.set(m);
    p[m.length] ^= pad;
    p[p.length - 1] ^= 0x80;
    var lo = new Int32Array(25), hi = new Int32Array(25);
    for (var off = 0; off < p.length; off += rate) {
      for (i = 0; i < rate / 8; i++) {
        j = off + 8 * i;
        lo[i] ^= p[j] | (p[j + 1] << 8) | (p[j + 2] << 16) | (p[j + 3] << 24);
        hi[i] ^= p[j + 4] | (p[j + 5] << 8) | (p[j + 6] << 16) | (p[j + 7] << 24);
      }
      keccakF(lo, hi);
    }
    var out = new Uint8Array(32);
    for (i = 0; i < 4; i++) {
      for (j = 0; j < 4; j++) { out[8 * i + j] = lo[i] >>> (8 * j); out[8 * i + 4 + j] = hi[i] >>> (8 * j); }
    }
    return out;
  }

  function keccak256(m) { return keccakSponge(m, 0x01); }

  function hexOfBytes(b) {
    var s = '';
    for (var i = 0; i < b.length; i++) s += HEX2[b[i]];
    return s;
  }

  var OTS_MAGIC = [0x00, 0x4f, 0x70, 0x65, 0x6e, 0x54, 0x69, 0x6d, 0x65, 0x73, 0x74, 0x61, 0x6d, 0x70, 0x73, 0x00,
    0x00, 0x50, 0x72, 0x6f, 0x6f, 0x66, 0x00, 0xbf, 0x89, 0xe2, 0xe8, 0x84, 0xe8, 0x92, 0x94]; // 00 'OpenTimestamps' 00 00 'Proof' 00 bf 89 e2 e8 84 e8 92 94
  var OTS_HEADER_LEN = 65;
  var OTS_LIMITS = {
    MAX_MSG_LEN: 4096, MAX_PAYLOAD_LEN: 8192, MAX_URI_LEN: 1000, MAX_DEPTH: 255, MAX_OPS: 10000, MAX_ATTESTATIONS: 1000
  };
  var OTS_TAGS = { '83dfe30d2ef90c8e': 'pending', '0588960d73d71901': 'bitcoin', '06869a0d73d71b45': 'litecoin' };
  var OTS_URI = /^[A-Za-z0-9._\/:-]*$/;
  var OTS_EXPLORERS = [
    { name: 'mempool.space', base: 'https://mempool.space/block/' },
    { name: 'blockstream.info', base: 'https://blockstream.info/block-height/' }
  ];
  // The codes, with the words a person reads (the Rust `OtsProblem` and `BodyProblem` give the
  // same codes; its words are its own).
  var OTS_WORDS = {
    too_short: 'is shorter than an OpenTimestamps header (65 bytes)',
    bad_magic: 'does not start with the OpenTimestamps magic',
    bad_version: 'has a major version other than 1',
    not_sha256: 'hashes its file with another operation than sha256 (08)',
    truncated: 'ends inside its tree of operations',
    unknown_tag: 'holds an unknown tag where an operation, an attestation or a fork must be',
    bad_varint: 'holds a number longer than nine bytes',
    message_too_long: 'holds an operation whose argument is empty or whose argument or result passes 4096 bytes',
    too_deep: 'nests more than 255 operations on one path',
    too_many_ops: 'holds more than 10000 operations',
    too_many_attestations: 'holds more than 1000 attestations',
    bad_payload: 'holds an attestation whose payload is too long or not wholly what its tag says (a calendar address, a block height)',
    bad_calendar: 'names a calendar whose address holds a character the reference client refuses (letters, digits and -._/: only)',
    bitcoin_not_digest: 'holds a Bitcoin attestation on a message that is not 32 bytes, which no block\'s merkle root can equal',
    trailing_bytes: 'has bytes after its timestamp ends'
  };

  function OtsFail(code, detail) { this.code = code; this.detail = detail || OTS_WORDS[code]; }
  function otsFail(code, detail) { throw new OtsFail(code, detail); }

  function OtsReader(b, at) { this.b = b; this.at = at; }
  OtsReader.prototype.byte = function () {
    if (this.at >= this.b.length) otsFail('truncated');
    return this.b[this.at++];
  };
  OtsReader.prototype.take = function (n) {
    if (n > this.b.length - this.at) otsFail('truncated');
    var out = this.b.subarray(this.at, this.at + n);
    this.at += n;
    return out;
  };
  // An unsigned LEB128 number of at most nine bytes, as its 7-bit groups, least first.
  OtsReader.prototype.groups = function () {
    var g = [];
    for (var i = 0; i < 9; i++) {
      var b = this.byte();
      g.push(b & 0x7f);
      if (!(b & 0x80)) return g;
    }
    otsFail('bad_varint');
  };
  // A length: exact below 2^53, and any longer one is far past every bound it is held to.
  OtsReader.prototype.length = function () {
    var g = this.groups(), n = 0;
    for (var i = g.length - 1; i >= 0; i--) n = n * 128 + g[i];
    return n;
  };
  OtsReader.prototype.varbytes = function (max, over) {
    var n = this.length();
    if (n > max) otsFail(over);
    return this.take(n);
  };

  // A height, exact, as decimal text (a 9-byte one can pass 2^53).
  function otsHeight(g) {
    var i;
    if (g.length <= 7) {
      var n = 0;
      for (i = g.length - 1; i >= 0; i--) n = n * 128 + g[i];
      return String(n);
    }
    var v = BigInt(0);
    for (i = g.length - 1; i >= 0; i--) v = v * BigInt(128) + BigInt(g[i]);
    return v.toString();
  }

  // One attestation after its 00: {kind, ...}; a known tag's payload must be wholly its content.
  function otsAttestation(r) {
    var tag = hexOfBytes(r.take(8));
    var payload = r.varbytes(OTS_LIMITS.MAX_PAYLOAD_LEN, 'bad_payload');
    var kind = OTS_TAGS[tag];
    if (!kind) return { kind: 'unknown', tag: tag };
    var inner = new OtsReader(payload, 0), read;
    try {
      read = kind === 'pending' ? inner.varbytes(OTS_LIMITS.MAX_URI_LEN, 'bad_payload') : inner.groups();
    } catch (e) {
      if (e instanceof OtsFail) otsFail('bad_payload');
      throw e;
    }
    var leaf;
    if (kind === 'pending') {
      var uri = latin1(read);
      if (!OTS_URI.test(uri)) otsFail('bad_calendar');
      leaf = { kind: 'pending', calendar_url: uri };
    } else {
      leaf = { kind: kind, height: otsHeight(read) };
    }
    if (inner.at !== payload.length) otsFail('bad_payload');
    return leaf;
  }

  // The operation of `tag` with its argument: {tag, arg}.
  function otsOperation(tag, r) {
    if (tag === 0xf0 || tag === 0xf1) {
      var arg = r.varbytes(OTS_LIMITS.MAX_MSG_LEN, 'message_too_long');
      if (arg.length === 0) otsFail('message_too_long');
      return { tag: tag, arg: arg };
    }
    if (tag === 0xf2 || tag === 0xf3 || tag === 0x02 || tag === 0x03 || tag === 0x08 || tag === 0x67) return { tag: tag, arg: null };
    otsFail('unknown_tag', OTS_WORDS.unknown_tag + ' (0x' + HEX2[tag] + ')');
  }

  function otsResultLength(op, len) {
    switch (op.tag) {
      case 0xf0: case 0xf1: return len + op.arg.length;
      case 0xf2: return len;
      case 0xf3: return 2 * len;
      case 0x02: case 0x03: return 20;
      default: return 32;
    }
  }

  function otsApply(op, m) {
    var out, i;
    switch (op.tag) {
      case 0xf0: out = new Uint8Array(m.length + op.arg.length); out.set(m); out.set(op.arg, m.length); return out;
      case 0xf1: out = new Uint8Array(m.length + op.arg.length); out.set(op.arg); out.set(m, op.arg.length); return out;
      case 0xf2: out = new Uint8Array(m.length); for (i = 0; i < m.length; i++) out[i] = m[m.length - 1 - i]; return out;
      case 0xf3: return latin1Bytes(hexOfBytes(m));
      case 0x02: return sha1(m);
      case 0x03: return ripemd160(m);
      case 0x08: return sha256(m);
      default: return keccak256(m);
    }
  }

  function latin1Bytes(s) {
    var out = new Uint8Array(s.length);
    for (var i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
    return out;
  }

  /** explorers(height) -> [{name, url}]: the two block explorers' pages of the Bitcoin block at
   * `height` (a number or its decimal text), each showing the block's merkle root. */
  function otsExplorers(height) {
    return OTS_EXPLORERS.map(function (x) { return { name: x.name, url: x.base + String(height) }; });
  }

  // The header: the digest it commits to (hex), or throws.
  function otsHeader(b) {
    var i, magic = b.length >= 31;
    for (i = 0; i < Math.min(b.length, 31); i++) if (b[i] !== OTS_MAGIC[i]) { magic = false; break; }
    if (!magic) otsFail(b.length < 31 && i === b.length ? 'too_short' : 'bad_magic');
    if (b.length < OTS_HEADER_LEN) otsFail('too_short');
    if (b[31] !== 0x01) otsFail('bad_version', 'version byte is 0x' + HEX2[b[31]] + ', expected 0x01');
    if (b[32] !== 0x08) otsFail('not_sha256', 'file hash op is 0x' + HEX2[b[32]] + ', expected 0x08 (sha256)');
    return b.subarray(33, OTS_HEADER_LEN);
  }

  function otsLeafOut(leaf, m) {
    if (leaf.kind === 'bitcoin') {
      var root = new Uint8Array(32);
      for (var i = 0; i < 32; i++) root[i] = m[31 - i];
      return { kind: 'bitcoin', height: leaf.height, merkle_root: hexOfBytes(root),
        explorers: otsExplorers(leaf.height).map(function (x) { return x.url; }) };
    }
    if (leaf.kind === 'pending') return { kind: 'pending', calendar_url: leaf.calendar_url, commitment: hexOfBytes(m) };
    return leaf;
  }

  // Every path of the tree from `start`, in the order of the file; each attestation into `out`.
  function otsWalk(b, start, out) {
    var L = OTS_LIMITS, r = new OtsReader(b, OTS_HEADER_LEN), ops = 0, leaves = 0;
    var open = [[start, 0]];
    while (open.length) {
      var top = open.pop(), m = top[0], depth = top[1];
      var tag = r.byte(), fork = tag === 0xff;
      if (fork) tag = r.byte();
      if (tag === 0x00) {
        var leaf = otsAttestation(r);
        if (leaf.kind === 'bitcoin' && m.length !== 32) {
          otsFail('bitcoin_not_digest', 'holds a Bitcoin attestation on a ' + m.length + '-byte message, which no block\'s 32-byte merkle root can equal');
        }
        if (++leaves > L.MAX_ATTESTATIONS) otsFail('too_many_attestations');
        out.push(otsLeafOut(leaf, m));
        if (fork) open.push(top);
        continue;
      }
      var op = otsOperation(tag, r);
      if (otsResultLength(op, m.length) > L.MAX_MSG_LEN) otsFail('message_too_long');
      if (depth >= L.MAX_DEPTH) otsFail('too_deep');
      if (++ops > L.MAX_OPS) otsFail('too_many_ops');
      var next = otsApply(op, m);
      if (fork) open.push(top);
      open.push([next, depth + 1]);
    }
    if (r.at !== b.length) otsFail('trailing_bytes');
  }

  /**
   * evaluate(Uint8Array) -> {digest, attestations: [...]} | {problem: {code, detail}}
   *
   * digest: the 64-hex digest the header commits to. attestations, in the order of the file:
   *   {kind: 'bitcoin', height: '<decimal>', merkle_root: '<64 hex, as explorers show it>',
   *    explorers: [url, url]}
   *   {kind: 'pending', calendar_url, commitment: '<hex: the message the calendar holds>'}
   *   {kind: 'litecoin', height: '<decimal>'}
   *   {kind: 'unknown', tag: '<16 hex>'}
   * A proof that is not one whole, bounded OpenTimestamps timestamp is a problem, never a throw.
   */
  function otsEvaluate(bytes) {
    var b = toBytes(bytes);
    try {
      var digest = otsHeader(b), attestations = [];
      otsWalk(b, digest, attestations);
      return { digest: hexOfBytes(digest), attestations: attestations };
    } catch (e) {
      if (e instanceof OtsFail) return { problem: { code: e.code, detail: e.detail } };
      throw e;
    }
  }

  /** committedDigest(Uint8Array) -> {digest} | {problem: {code, detail}}: the header alone. */
  function otsCommittedDigest(bytes) {
    try {
      return { digest: hexOfBytes(otsHeader(toBytes(bytes))) };
    } catch (e) {
      if (e instanceof OtsFail) return { problem: { code: e.code, detail: e.detail } };
      throw e;
    }
  }

  var ots = {
    evaluate: otsEvaluate,
    committedDigest: otsCommittedDigest,
    explorers: otsExplorers,
    EXPLORERS: OTS_EXPLORERS.map(function (x) { return { name: x.name, base: x.base }; }),
    LIMITS: OTS_LIMITS,
    CODES: Object.keys(OTS_WORDS),
    sha1: sha1,
    ripemd160: ripemd160,
    keccak256: keccak256,
    _sha3_256: function (m) { return keccakSponge(m, 0x06); }
  };

  return {
    verifyLedger: verifyLedger,
    Verifier: Verifier,
    checkAnchors: checkAnchors,
    datesWithoutPost: datesWithoutPost,
    readSiteJSON: readSiteJSON,
    canonicalDump: canonicalDump,
    parseJsonLine: parseJsonLine,
    lineEntryId: lineEntryId,
    sha256Hex: sha256Hex,
    sha256HexPrefix: sha256HexPrefix,
    sha256: sha256,
    utf8Encode: utf8Encode,
    utf8Decode: utf8Decode,
    parseTimestamp: parseTimestamp,
    parseWithheld: parseWithheld,
    joinWithheld: joinWithheld,
    dayInZone: dayInZone,
    isKnownZone: isKnownZone,
    JsonNumber: JsonNumber,
    CODES: CODES.slice(),
    HEADER_SCHEMA: HEADER_SCHEMA,
    // The operator's signatures (docs/anchoring.md): Ed25519, signed notes, snapshot lines.
    sign: sign,
    // Witness cosignatures on the checkpoint (docs/anchoring.md#cosignatures).
    cosign: sign.cosign,
    tree: tree,
    // The excerpt index (docs/tree.md#excerpts): words, shingle keys, winnowing, lookups.
    excerpt: excerpt,
    ots: ots,
    ENTRY_SCHEMA: ENTRY_SCHEMA,
    _internal: {
      // Tests: run with or without the platform's TextEncoder/TextDecoder.
      setNativeCodecs: function (on) { useNative = !!on; },
      // Tests: decide canonical form by dumping every line, never by the reader's `plain` flag.
      setFastCanonical: function (on) { fastCanonical = !!on; },
      parseText: parseText,
      hasNativeCodecs: function () { return !!(nativeEncoder && nativeDecoder); },
      coreOfCanonical: coreOfCanonical,
      dumpTrusted: dumpTrusted,
      offsetSeconds: function (zone, t) { var z = zoneInfo(zone); return z ? offsetAt(z, t) : null; }
    }
  };
});
