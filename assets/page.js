/*
 * exhibit — page.js: the exhibit page (issue 6).
 *
 * The pure pieces (paste variants, the normalisation of docs/protocol.md#proving-one-message, Dice, the word diff, coverage) are
 * exported for node (`module.exports`, tested by tests/js/page.test.cjs); in a browser the same
 * file also runs the page: it decodes the embedded blocks, re-derives the ledger with verify.js in
 * a Web Worker (made from a Blob of verify.js's own source; on the main thread if a worker cannot
 * start) and fills the sections. Everything that comes from the ledger or the lab's files is put
 * in the page with textContent, never as markup.
 *
 * Shareable proof links: `index.html#paste=<url-encoded text or digest>` fills the paste box and
 * runs it once the page has re-derived the ledger.
 */
(function (root, factory) {
  // verify.js comes first: in a page its <script> runs before this one; in node it is beside this file.
  var node = typeof module === 'object' && module.exports;
  var api = factory(node ? require('./verify.js') : root.ExhibitVerify);
  if (node) module.exports = api;
  else {
    root.ExhibitPage = api;
    if (typeof document !== 'undefined') {
      // Any error the check throws, now or in a later callback, ends in a verdict.
      var errorWords = function (e) { return String(e && e.message || e); };
      root.addEventListener('error', function (e) { api.failedCheck(document, errorWords(e.error || e.message)); });
      root.addEventListener('unhandledrejection', function (e) { api.failedCheck(document, errorWords(e.reason)); });
      try {
        if (!root.ExhibitVerify) throw new Error('the verifier script (verify.js) did not load');
        api.start();
      } catch (e) { api.failedCheck(document, errorWords(e)); }
    }
  }
})(typeof self !== 'undefined' ? self : this, function (Verify) {
  'use strict';

  var DIGEST_FIELDS = ['sent_sha256', 'checked_sha256', 'stripped_sha256', 'draft_sha256'];
  var CHAIN_KEYS = { schema: 1, seq: 1, prev: 1, kind: 1, timestamp: 1, day: 1, entry_id: 1, process: 1 };
  var NEAR_THRESHOLD = 0.6;
  var PAGE_SIZE = 100;
  var HEX64 = /^[0-9a-f]{64}$/;

  // ------------------------------------------------------------------------------------------
  // Pure functions (node-testable).

  function toLF(s) { return String(s).replace(/\r\n/g, '\n'); }

  // The gate's trailer as the last thing in a text, with the blank line the gate puts before it.
  var FINAL_TRAILER = /(?:^|\n\n)\[gate: [^\]\n]*· ledger [0-9]+\]$/;
  // The trailer after a single newline (a messenger's rendering of the gate's blank line).
  var MESSENGER_TRAILER = /(?:^|[^\n])\n(\[gate: [^\]\n]*· ledger [0-9]+\])$/;
  // For "same words": a channel may re-space or re-case the trailer too.
  var LOOSE_TRAILER = /\[\s*gate:[^\]]*?ledger\s*[0-9]+\s*\]/gi;

  /** The text without a final gate trailer (and the blank line before it), or null if it has none. */
  function stripTrailer(s) {
    var t = s.replace(/\n+$/, '');
    var m = FINAL_TRAILER.exec(t);
    if (!m) return null;
    return t.slice(0, m.index);
  }

  /** The forms of a paste that are hashed, each named; duplicates dropped, first name kept. */
  function variants(paste) {
    var p = toLF(paste);
    var out = [], seen = Object.create(null);
    function add(name, text) {
      if (text === null || text === undefined || seen[text]) return;
      seen[text] = 1;
      out.push({ name: name, text: text });
    }
    var trimmed = p.replace(/\s+$/, '');
    add('as pasted', p);
    add('trailing whitespace and newlines trimmed', trimmed);
    add('with one trailing newline', trimmed + '\n');
    add('leading and trailing whitespace trimmed', p.trim());
    var collapsedLines = p.split('\n').map(function (l) { return l.replace(/[ \t\u00a0]+/g, ' ').trim(); })
      .join('\n').replace(/\n{3,}/g, '\n\n').trim();
    add('whitespace runs collapsed within lines', collapsedLines);
    add('all whitespace collapsed to single spaces', p.replace(/\s+/g, ' ').trim());
    // A messenger shows the gate's blank line before the trailer as one newline; a copy taken
    // from it has "body\n[gate: …]". The gate hashed "body\n\n[gate: …]".
    var single = MESSENGER_TRAILER.exec(trimmed);
    if (single) {
      var cut = single.index + single[0].length - single[1].length - 1;
      var rebuilt = trimmed.slice(0, cut) + '\n\n' + single[1];
      add('the trailer re-separated by a blank line, as the gate writes it', rebuilt);
      add('the trailer re-separated by a blank line, with one trailing newline', rebuilt + '\n');
    }
    var bare = stripTrailer(trimmed);
    if (bare === null && single) bare = trimmed.slice(0, cut);
    if (bare !== null) {
      add('the gate trailer and the blank line before it removed', bare);
      add('the gate trailer removed, with one trailing newline', bare + '\n');
      add('the gate trailer removed, trimmed', bare.trim());
    }
    return out;
  }

  /**
   * Tokens (docs/protocol.md#proving-one-message): NFC; every gate trailer removed; markdown
   * markers * ` # > [ ] ( ) removed and `_` at a token's edge; split on whitespace. One
   * tokenizer for the page: verify.js's `excerpt.words`, which the excerpt index's words are
   * (docs/tree.md#excerpts) and vectors/excerpt.json holds to the Rust one.
   */
  function tokens(s) {
    if (!Verify || !Verify.excerpt) throw new Error('the verifier script (verify.js) did not load');
    return Verify.excerpt.words(s);
  }

  /** Dice coefficient over token multisets: 2·|A∩B| / (|A|+|B|). */
  function dice(a, b) {
    if (!a.length && !b.length) return 1;
    var counts = new Map(), i, inter = 0;
    for (i = 0; i < a.length; i++) counts.set(a[i], (counts.get(a[i]) || 0) + 1);
    for (i = 0; i < b.length; i++) {
      var c = counts.get(b[i]);
      if (c) { inter++; counts.set(b[i], c - 1); }
    }
    return (2 * inter) / (a.length + b.length);
  }

  /** Case, diacritics, punctuation and symbols (markdown among them) set aside. */
  function fold(s) {
    var t = String(s);
    if (t.normalize) t = t.normalize('NFD');
    try { t = t.replace(/\p{M}+/gu, '').replace(/[\p{P}\p{S}]+/gu, ' '); }
    catch (e) { t = t.replace(/[\u0300-\u036f]+/g, '').replace(/[!-\/:-@\[-`{-~\u2010-\u2027\u00a1-\u00bf]+/g, ' '); }
    t = t.toLowerCase();
    if (t.normalize) t = t.normalize('NFC');
    return t;
  }

  /** The "same words" key: the gate trailer removed, each word folded, whitespace collapsed. */
  function wordsKey(s) {
    var t = toLF(s).replace(LOOSE_TRAILER, ' ');
    return fold(t).split(/\s+/).filter(Boolean).join(' ');
  }

  /**
   * The words of a text for the passage search: [{w: the word as written, k: its folded key}],
   * the gate trailer removed; a word that folds to nothing (a lone "—") is left out, and a word
   * that folds to two ("it’s" → "it s") counts as two.
   */
  function passageWords(s) {
    var t = toLF(s).replace(LOOSE_TRAILER, ' ');
    var out = [], parts = t.split(/\s+/);
    for (var i = 0; i < parts.length; i++) {
      if (!parts[i]) continue;
      var ks = fold(parts[i]).split(/\s+/).filter(Boolean);
      for (var j = 0; j < ks.length; j++) out.push({ w: ks.length === 1 ? parts[i] : ks[j], k: ks[j] });
    }
    return out;
  }

  var ALIGN_CAP = 8e6; // cells of the alignment table: a paste of 2,000 words against 4,000
  /**
   * Word-level semi-global alignment (docs/page.md "Passages"): the whole paste `p` aligns, the
   * released text `t` has free ends. Both are arrays of folded keys. Scores: a word in both +1,
   * a word changed −1, a word dropped or added −1. Returns null when the table would exceed
   * ALIGN_CAP, else {matched, start, end, ops: [{op: 'same'|'sub'|'del'|'add', t: i, p: j}]}:
   * `del` is a released word the paste lacks, `add` a paste word the released text lacks,
   * [start, end) the span of `t` the paste aligns to.
   */
  function align(p, t) {
    var m = p.length, n = t.length, w = n + 1;
    if (!m || (m + 1) * w > ALIGN_CAP) return null;
    var D = new Int32Array((m + 1) * w);
    var i, j;
    for (i = 1; i <= m; i++) {
      D[i * w] = -i;
      var pi = p[i - 1], row = i * w, up = (i - 1) * w;
      for (j = 1; j <= n; j++) {
        var diag = D[up + j - 1] + (pi === t[j - 1] ? 1 : -1);
        var a = D[up + j] - 1, b = D[row + j - 1] - 1;
        D[row + j] = diag >= a ? (diag >= b ? diag : b) : (a >= b ? a : b);
      }
    }
    var best = 0;
    for (j = 1; j <= n; j++) if (D[m * w + j] > D[m * w + best]) best = j;
    var ops = [], matched = 0;
    i = m; j = best;
    var end = best;
    while (i > 0) {
      var here = D[i * w + j];
      if (j > 0 && here === D[(i - 1) * w + j - 1] + (p[i - 1] === t[j - 1] ? 1 : -1)) {
        if (p[i - 1] === t[j - 1]) { ops.push({ op: 'same', t: j - 1, p: i - 1 }); matched++; }
        else ops.push({ op: 'sub', t: j - 1, p: i - 1 });
        i--; j--;
      } else if (here === D[(i - 1) * w + j] - 1) { ops.push({ op: 'add', t: j, p: i - 1 }); i--; }
      else { ops.push({ op: 'del', t: j - 1, p: i }); j--; }
    }
    ops.reverse();
    // Released words dropped at the span's edges are not part of the passage.
    while (ops.length && ops[0].op === 'del') ops.shift();
    while (ops.length && ops[ops.length - 1].op === 'del') ops.pop();
    var start = j;
    for (var k = 0; k < ops.length; k++) if (ops[k].op !== 'add') { start = ops[k].t; break; }
    for (k = ops.length - 1; k >= 0; k--) if (ops[k].op !== 'add') { end = ops[k].t + 1; break; }
    return { matched: matched, start: start, end: end, ops: ops };
  }

  var PASSAGE_MIN_WORDS = 3;
  /**
   * A paste against one released text, as a passage (docs/page.md "Passages"):
   * `passage-verbatim` — the paste, trimmed, is a run of the released bytes;
   * `passage-same-words` — every word of the paste aligns, in order, with nothing between;
   * `passage-nearest` — at least NEAR_THRESHOLD of the paste's words align;
   * null otherwise, or when the paste has fewer than PASSAGE_MIN_WORDS words.
   * `pw`, `tw`: passageWords of the paste and of the text (passed in so a caller can cache).
   */
  function passageMatch(paste, text, pw, tw) {
    pw = pw || passageWords(paste);
    tw = tw || passageWords(text);
    if (pw.length < PASSAGE_MIN_WORDS) return null;
    var trimmed = toLF(paste).trim();
    if (trimmed && toLF(text).indexOf(trimmed) >= 0) {
      return { verdict: 'passage-verbatim', score: 1, matched: pw.length, words: pw.length, ops: null };
    }
    var al = align(pw.map(function (x) { return x.k; }), tw.map(function (x) { return x.k; }));
    if (!al) return null;
    var score = al.matched / pw.length;
    var clean = al.matched === pw.length && al.ops.every(function (o) { return o.op === 'same'; });
    var verdict = clean ? 'passage-same-words' : score >= NEAR_THRESHOLD ? 'passage-nearest' : null;
    return { verdict: verdict, score: score, matched: al.matched, words: pw.length, ops: al.ops, start: al.start, end: al.end };
  }

  /**
   * A paste that is a digest: 64 hex digits alone (any case), or a `sha256sum` output line
   * ("<64 hex>  name" or "<64 hex> *name"). Returns the lower-case hex, or null.
   */
  function digestOf(paste) {
    var t = toLF(paste).trim();
    var m = /^\\?([0-9a-fA-F]{64})(?:(?: [ *]|\t)[^\n]*)?$/.exec(t);
    return m ? m[1].toLowerCase() : null;
  }

  // An OpenTimestamps proof's header (docs/protocol.md#ots-header): magic, version, file hash
  // op, then the 32-byte digest it commits to.
  var OTS_MAGIC = [0x00, 0x4f, 0x70, 0x65, 0x6e, 0x54, 0x69, 0x6d, 0x65, 0x73, 0x74, 0x61, 0x6d, 0x70, 0x73, 0x00,
    0x00, 0x50, 0x72, 0x6f, 0x6f, 0x66, 0x00, 0xbf, 0x89, 0xe2, 0xe8, 0x84, 0xe8, 0x92, 0x94];
  /** 'ok', or the first thing wrong: too_short, bad_magic, bad_version, not_sha256, digest_mismatch. */
  function checkProofHeader(bytes, expectedHex) {
    var i;
    for (i = 0; i < OTS_MAGIC.length; i++) {
      if (i >= bytes.length) return 'too_short';
      if (bytes[i] !== OTS_MAGIC[i]) return 'bad_magic';
    }
    if (bytes.length < 65) return 'too_short';
    if (bytes[31] !== 0x01) return 'bad_version';
    if (bytes[32] !== 0x08) return 'not_sha256';
    var hex = '';
    for (i = 33; i < 65; i++) hex += (bytes[i] < 16 ? '0' : '') + bytes[i].toString(16);
    return hex === expectedHex ? 'ok' : 'digest_mismatch';
  }
  var PROOF_PROBLEM_WORDS = {
    too_short: 'is shorter than an OpenTimestamps header', bad_magic: 'does not start with the OpenTimestamps magic',
    bad_version: 'is not version 1', not_sha256: 'does not use the sha256 op', digest_mismatch: 'commits to another digest than its name',
    bad_name: 'has a name that is neither <entry_id>.ots nor prereg_<sha256>.ots'
  };

  /**
   * The `proof-headers` block (written by src/build/render.rs): the first 65 bytes of every proof the
   * site carries, losslessly packed. Returns [{kind: 'anchor'|'witness'|'other', name, length,
   * header: Uint8Array}]. Layout (big-endian): u8 version 1; u16 n, then n prefixes (u8 len, bytes:
   * a file's first min(len, 33) bytes); u32 records, each: u8 kind (0 anchor, 1 witness, 2 other),
   * the name (kind 1: 32 bytes, the digest its name spells; else u8 len + ASCII), u32 file length,
   * u16 prefix index, u8 tail: 0 = the file's bytes 33..min(len, 65) follow, 1 = those 32 bytes
   * are the name's own digest.
   */
  function decodeProofHeaders(b) {
    var pos = 0, out = [];
    function u8() { if (pos >= b.length) throw new Error('proof-headers: truncated'); return b[pos++]; }
    function u16() { return (u8() << 8) | u8(); }
    function u32() { return ((u16() * 65536) + u16()); }
    function take(n) { if (pos + n > b.length) throw new Error('proof-headers: truncated'); var x = b.subarray(pos, pos + n); pos += n; return x; }
    function hex(x) { var s = ''; for (var i = 0; i < x.length; i++) s += (x[i] < 16 ? '0' : '') + x[i].toString(16); return s; }
    function ascii(x) { var s = ''; for (var i = 0; i < x.length; i++) s += String.fromCharCode(x[i]); return s; }
    if (!b || !b.length) return out;
    if (u8() !== 1) throw new Error('proof-headers: unknown version');
    var np = u16(), prefixes = [];
    for (var i = 0; i < np; i++) prefixes.push(take(u8()));
    var nr = u32();
    for (var r = 0; r < nr; r++) {
      var kind = u8(), nameBytes = kind === 1 ? take(32) : take(u8());
      var name = kind === 1 ? hex(nameBytes) : ascii(nameBytes);
      var length = u32(), prefix = prefixes[u16()];
      if (!prefix) throw new Error('proof-headers: bad prefix index');
      var tailFlag = u8();
      var tail = tailFlag === 1 ? nameBytes : take(Math.max(0, Math.min(length, 65) - prefix.length));
      var header = new Uint8Array(prefix.length + tail.length);
      header.set(prefix, 0); header.set(tail, prefix.length);
      out.push({ kind: kind === 0 ? 'anchor' : kind === 1 ? 'witness' : 'other', name: name, length: length, header: header });
    }
    return out;
  }

  /**
   * The headline verdict (docs/page.md "The verdict"), from what the page re-derived:
   * `failed` when anything it checks failed (each failure {what, href} in plain words), else
   * `gaps` when some published line is not vouched for by a posted head (or some posted head has
   * no proof yet), else `intact`. `f`: {chainOk, failures: [{what, href}], published, pinned,
   * severed, awaiting, unproven: [dates]}.
   */
  function computeVerdict(f) {
    var failures = (f.failures || []).slice();
    if (!f.chainOk) failures.unshift({ what: 'the chain does not re-derive: a line was changed, added, removed or reordered (the codes are in the detail)', href: '#verdict-detail' });
    var gaps = [];
    if (f.severed) gaps.push({ what: f.severed + ' severed by a withheld line before the next posted head', href: '#coverage-h' });
    if (f.awaiting) gaps.push({ what: f.awaiting + ' awaiting the next posted head', href: '#coverage-h' });
    var verdict = failures.length ? 'failed' : (gaps.length || (f.unproven && f.unproven.length) || f.pinned < f.published) ? 'gaps' : 'intact';
    return { verdict: verdict, failures: failures, gaps: gaps, vouched: f.pinned + '/' + f.published, unproven: f.unproven || [] };
  }

  var DIFF_CAP = 2500;
  /**
   * Word diff from `from` (the released text's tokens) to `to` (the paste's): an array of
   * {op: 'same'|'del'|'add', word}. LCS over words, after the common head and tail are set aside.
   */
  function wordDiff(from, to, key) {
    if (key) {
      // Compare folded keys (an all-caps paste is the same words); show the paste's spelling.
      var fk = from.map(key), tk = to.map(key);
      var d = wordDiff(fk, tk), fi = 0, ti = 0;
      return d.map(function (x) {
        if (x.op === 'same') { fi++; return { op: 'same', word: to[ti++] }; }
        if (x.op === 'del') return { op: 'del', word: from[fi++] };
        return { op: 'add', word: to[ti++] };
      });
    }
    var head = 0;
    while (head < from.length && head < to.length && from[head] === to[head]) head++;
    var tail = 0;
    while (tail < from.length - head && tail < to.length - head &&
           from[from.length - 1 - tail] === to[to.length - 1 - tail]) tail++;
    var a = from.slice(head, from.length - tail), b = to.slice(head, to.length - tail);
    var out = [], i, j;
    for (i = 0; i < head; i++) out.push({ op: 'same', word: from[i] });
    if (a.length > DIFF_CAP || b.length > DIFF_CAP) {
      for (i = 0; i < a.length; i++) out.push({ op: 'del', word: a[i] });
      for (j = 0; j < b.length; j++) out.push({ op: 'add', word: b[j] });
    } else {
      var n = a.length, m = b.length, w = m + 1;
      var L = new Uint16Array((n + 1) * w);
      for (i = n - 1; i >= 0; i--) {
        for (j = m - 1; j >= 0; j--) {
          L[i * w + j] = a[i] === b[j] ? L[(i + 1) * w + j + 1] + 1
            : Math.max(L[(i + 1) * w + j], L[i * w + j + 1]);
        }
      }
      i = 0; j = 0;
      while (i < n || j < m) {
        if (i < n && j < m && a[i] === b[j]) { out.push({ op: 'same', word: a[i] }); i++; j++; }
        else if (j < m && (i >= n || L[i * w + j + 1] >= L[(i + 1) * w + j])) { out.push({ op: 'add', word: b[j] }); j++; }
        else { out.push({ op: 'del', word: a[i] }); i++; }
      }
    }
    for (i = from.length - tail; i < from.length; i++) out.push({ op: 'same', word: from[i] });
    return out;
  }

  /**
   * Coverage (docs/protocol.md#coverage): a published line is pinned when every line between it and the first
   * posted head at or after it is published; a withheld line in between severs it; no head after
   * it: awaiting a head. `all`: [{seq, published}] in seq order; `heads`: Set of posted-head seqs.
   */
  function coverage(all, heads) {
    var cov = { pinned: [], severed: [], awaiting: [], severedBy: {} };
    var headAhead = null, withheldBefore = null;
    for (var i = all.length - 1; i >= 0; i--) {
      var r = all[i];
      if (heads.has(r.seq)) { headAhead = r.seq; withheldBefore = null; }
      if (!r.published) { withheldBefore = r.seq; continue; }
      if (headAhead === null) cov.awaiting.push(r.seq);
      else if (withheldBefore === null) cov.pinned.push(r.seq);
      else { cov.severed.push(r.seq); cov.severedBy[r.seq] = withheldBefore; }
    }
    cov.pinned.reverse(); cov.severed.reverse(); cov.awaiting.reverse();
    return cov;
  }

  /** "1–4, 7, 9–12" */
  function ranges(seqs) {
    var out = [], i = 0;
    while (i < seqs.length) {
      var j = i;
      while (j + 1 < seqs.length && seqs[j + 1] === seqs[j] + 1) j++;
      out.push(j > i ? seqs[i] + '–' + seqs[j] : String(seqs[i]));
      i = j + 1;
    }
    return out.join(', ');
  }

  // A data block's base64, read exactly as `exhibit verify SITE` reads it (`base64` in
  // src/page_check.rs; docs/scale.md#the-page-against-the-site, docs/page.md "Base64"): the
  // forgiving base64 of `atob` — ASCII whitespace (space, tab, LF, FF, CR) dropped; when what is
  // left is a multiple of four long, one or two final `=` dropped; what remains must be the 64
  // letters alone, and not one letter more than a multiple of four; leftover bits are ignored.
  // Nothing else: not Unicode whitespace (a no-break space, U+2028), not a third `=`, not `=`
  // mid-block. The native decoders differ (`Uint8Array.fromBase64` refuses a lone `=` after two
  // letters that `atob` accepts, node's Buffer skips any junk), so the rule is checked here and
  // they only decode what it admits. tests/js/base64.test.cjs and page_check.rs's tests read
  // the same table (vectors/base64.json).
  function b64ToBytes(s) {
    s = String(s);
    // One scan in the common case (a block the build wrote holds only letters and padding).
    var junk = /[^A-Za-z0-9+\/=]/.test(s);
    if (junk) s = s.replace(/[\t\n\f\r ]+/g, '');
    var end = s.length;
    if (end % 4 === 0) {
      if (end > 0 && s.charCodeAt(end - 1) === 61) end--;
      if (end > 0 && s.charCodeAt(end - 1) === 61) end--;
    }
    if (end % 4 === 1) throw new Error('not base64: ' + end + ' letter' + (end === 1 ? '' : 's') + ' (padding aside), one more than a multiple of four');
    var body = end === s.length ? s : s.slice(0, end);
    var bad = junk ? body.search(/[^A-Za-z0-9+\/]/) : body.indexOf('=');
    if (bad >= 0) {
      var c = body.charCodeAt(bad);
      throw new Error('not base64: ' + (c === 61 ? 'a "=" that is not final padding' : 'U+' + ('000' + c.toString(16).toUpperCase()).slice(-4) + ', not a base64 letter') + ' at letter ' + (bad + 1));
    }
    // Padded to a multiple of four, so every decoder reads it alike.
    body += ['', '', '==', '='][end % 4];
    // Native decoding where the browser has it (Chromium 140+, Firefox 133+).
    if (typeof Uint8Array.fromBase64 === 'function') return Uint8Array.fromBase64(body);
    if (typeof atob === 'function') {
      var bin = atob(body), out = new Uint8Array(bin.length);
      for (var i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
      return out;
    }
    return new Uint8Array(Buffer.from(body, 'base64'));
  }

  // The verdict when the page's check itself throws (docs/page.md "No input without a verdict"):
  // whatever threw — a data block that is not base64, a bug, a browser without something the
  // page needs — the page says FAILED and names it, never "Checking…" forever. Only a verdict
  // still `working` is replaced: an error after the verdict (in the paste box, say) leaves it.
  function failedCheck(doc, what) {
    var v = doc && doc.getElementById('verdict');
    if (!v || v.getAttribute('data-verdict') !== 'working') return false;
    v.setAttribute('data-state', 'problems');
    v.setAttribute('data-verdict', 'failed');
    v.setAttribute('data-failed', 'check');
    var badge = doc.getElementById('badge'), text = doc.getElementById('verdict-text');
    var progress = doc.getElementById('progress'), st = doc.getElementById('status');
    if (badge) badge.textContent = 'Failed';
    if (text) text.textContent = 'The page could not finish its check: ' + what + '. Nothing on this page is vouched for.';
    if (progress) progress.remove();
    var ind = doc.getElementById('independent');
    if (ind) { ind.setAttribute('data-state', 'failed'); ind.textContent = 'Nothing here counts as anchored while a check fails.'; }
    if (st) { st.setAttribute('role', 'alert'); st.textContent = 'Verdict: failed. The page could not finish its check: ' + what + '.'; }
    return true;
  }
  function errorWords(e) { return String(e && e.message || e); }

  /** A line's record as the page keeps it, from verify.js's line record (runs inside the worker too). */
  function compactResult(r) {
    var DIG = ['sent_sha256', 'checked_sha256', 'stripped_sha256', 'draft_sha256'];
    var SKIP = { schema: 1, seq: 1, prev: 1, kind: 1, timestamp: 1, day: 1, entry_id: 1, process: 1,
      decision: 1, numerals: 1, sent_sha256: 1, checked_sha256: 1, stripped_sha256: 1, draft_sha256: 1 };
    function short(v) {
      if (typeof v === 'string') return /^[0-9a-f]{64}$/.test(v) ? v.slice(0, 12) + '…' : v;
      if (v === null || typeof v !== 'object') return String(v);
      if (Array.isArray(v)) return '[' + v.map(short).join(', ') + ']';
      if (v.text !== undefined && Object.keys(v).length === 1) return String(v.text);
      return '{' + Object.keys(v).map(function (k) { return k + ': ' + short(v[k]); }).join(', ') + '}';
    }
    function numerals(n) {
      if (!n || typeof n !== 'object') return n === undefined ? '' : short(n);
      if (n.bound !== undefined && n.total !== undefined && Object.keys(n).length === 2) return String(n.bound) + ' of ' + String(n.total) + ' bound';
      return Object.keys(n).map(function (k) { return k + ' ' + short(n[k]); }).join(', ');
    }
    var lines = [];
    for (var i = 0; i < r.lines.length; i++) {
      var L = r.lines[i], o = L.object || {};
      var d = null;
      for (var k = 0; k < DIG.length; k++) {
        if (typeof o[DIG[k]] === 'string') { d = d || {}; d[DIG[k]] = o[DIG[k]]; }
      }
      var note = [];
      for (var key in o) {
        if (Object.prototype.hasOwnProperty.call(o, key) && !SKIP[key] && !(Array.isArray(o[key]) && !o[key].length)) note.push(key + ': ' + short(o[key]));
      }
      lines.push({
        line: L.line, seq: L.seq, id: L.entry_id, did: L.derived_entry_id, day: L.day, ts: L.timestamp,
        kind: L.kind, dec: typeof o.decision === 'string' ? o.decision : (typeof o.status === 'string' ? o.status : ''),
        num: o.numerals !== undefined ? numerals(o.numerals) : '', note: note.join('; '), d: d,
        codes: L.codes && L.codes.length ? L.codes : null
      });
    }
    return {
      ok: r.ok, entries: r.entries, head: r.head, problems: r.problems, bridged: r.bridged,
      headerDigest: r.headerDigest, anchorTz: r.anchorTz, lineCount: r.lineCount, lines: lines
    };
  }

  // ------------------------------------------------------------------------------------------
  // The light page (docs/page.md "The light page"): the ledger's files are read one by one.

  /**
   * The list of the withheld list's files a light page carries when the list is in more than one
   * (`layout-json`'s `withheld_files`, docs/scale.md#withheld-files), checked: withheld.json then
   * withheld/000001.json, … in order, each with its size and sha256; null when the page carries
   * no such list (the list is embedded), or a string saying what is wrong.
   */
  function withheldFileList(layout) {
    if (!layout || !Object.prototype.hasOwnProperty.call(layout, 'withheld_files')) return null;
    var list = layout.withheld_files;
    if (!Array.isArray(list) || list.length < 2) return 'the page\'s list of the withheld list\'s files is not a list of two or more files';
    for (var i = 0; i < list.length; i++) {
      var f = list[i];
      var want = i === 0 ? 'ledger/withheld.json' : 'ledger/withheld/' + String(1000000 + i).slice(1) + '.json';
      if (!f || typeof f !== 'object' || f.path !== want || typeof f.bytes !== 'number' || !Number.isInteger(f.bytes) || f.bytes < 0 ||
          typeof f.sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(f.sha256) ||
          typeof f.entries !== 'number' || !Number.isInteger(f.entries) || f.entries < 0 || !isSeq(f.first_seq) || !isSeq(f.last_seq) ||
          Object.keys(f).some(function (k) { return WITHHELD_KEYS.indexOf(k) < 0; })) {
        return 'the page\'s list of the withheld list\'s files is malformed at item ' + i + ' (each is {path, bytes, entries, first_seq, last_seq, sha256}, as STATS.json lists it, ' + want + ' in this place)';
      }
    }
    return list;
  }


  var LEDGER_KEYS = ['bytes', 'first_seq', 'head', 'last_seq', 'lines', 'path', 'sha256'];
  var WITHHELD_KEYS = ['bytes', 'entries', 'first_seq', 'last_seq', 'path', 'sha256'];
  var LEDGER_FILE = /^ledger\/(ledger\.jsonl|segments\/[0-9]{6}\.jsonl)$/;
  // A seq as STATS.json's lists give it: a whole number, or null (a missing key reads as null,
  // as the CLI's reader takes it).
  function isSeq(x) { return x === null || x === undefined || (typeof x === 'number' && Number.isInteger(x)); }
  function seqOf(x) { return x === undefined ? null : x; }
  /**
   * The list of the ledger's files a light page carries (`layout-json`), checked: an array of
   * {path, bytes, sha256, facts} in chain order, or a string saying what is wrong. The files are
   * ledger/ledger.jsonl (when present), then ledger/segments/000001.jsonl, 000002, … with no
   * number skipped (docs/scale.md#names: a skipped number is a gap in the published ledger,
   * which `exhibit verify SITE` names too). A list with segments gives each file's facts as
   * STATS.json lists them — lines, first_seq, last_seq (a whole number or null), head — and the
   * reader holds each file to them (`exhibit verify SITE` does: stats_file_mismatch); a ledger
   * in one file may be listed by path, size and sha256 alone (docs/page.md "The light page").
   */
  function ledgerFileList(layout) {
    if (!layout || layout.mode !== 'light' || !Array.isArray(layout.files) || !layout.files.length) return 'the page carries no list of the ledger\'s files';
    var out = [], segment = 0;
    var segmented = layout.files.length > 1 || layout.files.some(function (f) { return f && typeof f.path === 'string' && f.path !== 'ledger/ledger.jsonl'; });
    for (var i = 0; i < layout.files.length; i++) {
      var f = layout.files[i];
      if (!f || typeof f.path !== 'string' || !LEDGER_FILE.test(f.path)) return 'item ' + (i + 1) + ' of the list of files is not a ledger file';
      var stray = Object.keys(f).filter(function (k) { return LEDGER_KEYS.indexOf(k) < 0; });
      if (stray.length) return 'the list gives ' + f.path + ' a key STATS.json\'s files do not have (' + stray.slice(0, 3).join(', ') + ')';
      if (typeof f.bytes !== 'number' || !(f.bytes >= 0) || typeof f.sha256 !== 'string' || !HEX64.test(f.sha256)) return 'the list gives ' + f.path + ' no size or no sha256';
      if (i && !(f.path > out[i - 1].path)) return 'the list of files is not in chain order at ' + f.path;
      if (f.path !== 'ledger/ledger.jsonl') {
        var want = 'ledger/segments/' + String(1000000 + (++segment)).slice(1) + '.jsonl';
        if (f.path !== want) return 'the list of files skips ' + want + ' (it names ' + f.path + ' next): the segments are numbered from 000001 with none missing, so the published ledger has a gap there';
      }
      var facts = ['lines', 'first_seq', 'last_seq', 'head'].some(function (k) { return Object.prototype.hasOwnProperty.call(f, k); });
      if ((segmented || facts) && !(typeof f.lines === 'number' && Number.isInteger(f.lines) && f.lines >= 0 && isSeq(f.first_seq) && isSeq(f.last_seq) && typeof f.head === 'string')) {
        return 'the list gives ' + f.path + ' no line count, first and last seq and head (each file of a ledger in segments is listed with them, as STATS.json lists it)';
      }
      out.push({ path: f.path, bytes: f.bytes, sha256: f.sha256,
        first_seq: typeof f.first_seq === 'number' ? f.first_seq : null, last_seq: typeof f.last_seq === 'number' ? f.last_seq : null,
        facts: segmented || facts ? { lines: f.lines, first_seq: seqOf(f.first_seq), last_seq: seqOf(f.last_seq), head: f.head } : null });
    }
    return out;
  }

  /**
   * What a ledger file's bytes say of it, as STATS.json lists it (docs/scale.md#stats), from the
   * verifier's records of its lines: `before` lines of the ledger came before it, `lines` are
   * its own, `recs` the records of its readable entry lines. The first and last seq and the head
   * are the file's first entry line's and last line's (null, null and '' when that line is not a
   * readable entry); a file holding the header alone has the header digest as its head — as
   * `exhibit verify SITE` derives them (src/ledger_files.rs).
   */
  function fileFacts(before, lines, recs, headerDigest) {
    var first = before === 0 ? 2 : before + 1, last = before + lines;
    var at = function (n) { for (var k = recs.length - 1; k >= 0; k--) if (recs[k].line === n) return recs[k]; return null; };
    if (before === 0 && lines === 1) return { lines: 1, first_seq: null, last_seq: null, head: headerDigest || '' };
    var a = first <= last ? at(first) : null, z = at(last);
    return { lines: lines, first_seq: a ? a.seq : null, last_seq: z ? z.seq : null, head: z && typeof z.entry_id === 'string' ? z.entry_id : '' };
  }

  /**
   * A file's facts (fileFacts) from those of its first part, which this browser re-derived on an
   * earlier visit (`pre`: {lines, first_seq, last_seq, head}; `header`: whether that part begins
   * with the ledger's header line), and those of the lines after it (`rest`).
   */
  function joinFacts(pre, header, rest) {
    var entries = pre.lines - (header ? 1 : 0) > 0;
    return { lines: pre.lines + rest.lines, first_seq: entries ? pre.first_seq : rest.first_seq,
      last_seq: rest.lines ? rest.last_seq : pre.last_seq, head: rest.lines ? rest.head : pre.head };
  }

  /** The facts the list gives a file against those its bytes give: the differences, in words. */
  function factsDiffer(listed, read, keys) {
    var out = [];
    (keys || ['lines', 'first_seq', 'last_seq', 'head']).forEach(function (k) {
      if (listed[k] !== read[k]) out.push(k + ' ' + (listed[k] === null ? 'null' : String(listed[k])) + ' (read: ' + (read[k] === null ? 'null' : String(read[k])) + ')');
    });
    return out;
  }

  /**
   * The page's list of the ledger's files (`layout-json`) against STATS.json's `ledger.files`
   * as the page carries it (`stats-json`): the build writes one from the other, so a page whose
   * two copies differ says two things about one ledger. A ledger in segments must be listed in
   * STATS.json (`exhibit verify SITE`: stats_files_missing). Null when they agree, else what
   * differs, in words.
   */
  function listNotStats(layout, stats) {
    var listed = stats && stats.ledger && typeof stats.ledger === 'object' ? stats.ledger.files : undefined;
    var segmented = layout.files.some(function (f) { return f && f.path !== 'ledger/ledger.jsonl'; });
    var wLayout = Object.prototype.hasOwnProperty.call(layout, 'withheld_files') ? layout.withheld_files : undefined;
    var wStats = stats && typeof stats === 'object' ? stats.withheld_files : undefined;
    var wSplit = Array.isArray(wStats) && wStats.length > 1;
    var wSame = wLayout === undefined ? !wSplit : wSplit && Array.isArray(wLayout) && wLayout.length === wStats.length &&
      wLayout.every(function (a, i) { var b = wStats[i]; return a && b && typeof b === 'object' && WITHHELD_KEYS.every(function (k) { return a[k] === b[k]; }) && Object.keys(b).every(function (k) { return WITHHELD_KEYS.indexOf(k) >= 0; }); });
    if (!wSame) return 'the page\'s list of the withheld list\'s files and STATS.json\'s withheld_files (as this page carries it) differ';
    if (!Array.isArray(listed)) return segmented ? 'STATS.json (as this page carries it) lists no ledger.files, but the ledger continues in ledger/segments/' : null;
    var keys = ['path', 'bytes', 'sha256', 'lines', 'first_seq', 'last_seq', 'head'];
    if (listed.length !== layout.files.length) return 'the page lists ' + layout.files.length + ' ledger files and STATS.json (as this page carries it) ' + listed.length;
    for (var i = 0; i < listed.length; i++) {
      var a = layout.files[i], b = listed[i];
      var k = keys.filter(function (key) { return !b || typeof b !== 'object' || a[key] !== b[key]; });
      if (k.length) return 'the page\'s list of files and STATS.json (as this page carries it) differ at item ' + (i + 1) + ' (' + k.join(', ') + ')';
    }
    return null;
  }

  /**
   * The monitor (docs/page.md "The monitor"): what this browser remembered of the exhibit against
   * the list of files it has now. `mem`: {bytes, head, head_seq, files: [{path, bytes, sha256,
   * full}], checkpoint, withheld_sha, tail}; `files`: ledgerFileList's answer; `withheldShaUpTo(seq)`:
   * a digest of the withheld list's entries at or before seq; `postSeqs`: the posts' seqs (decimal
   * strings); `withheldSeqs`: a Set of the withheld list's seqs (a post may name one: the anchor
   * checks read its digest from the list, not from a line). Returns {rewritten: null or {file, why}, resumeFrom: the index of the first file to
   * read, checkpoint: the verifier's state to resume from (null: from the first line), prefix:
   * the part of file resumeFrom that state ends in ({bytes, sha256, lines, facts}, or null: it
   * ends with the file before), note}.
   */
  function compareMemory(mem, files, withheldShaUpTo, postSeqs, withheldSeqs) {
    var scratch = function (rewritten, note) { return { rewritten: rewritten, resumeFrom: 0, checkpoint: null, prefix: null, note: note || null }; };
    if (!mem || !Array.isArray(mem.files) || !mem.files.length) return scratch(null, 'nothing remembered');
    var total = 0;
    files.forEach(function (f) { total += f.bytes; });
    for (var i = 0; i < mem.files.length; i++) {
      var was = mem.files[i], now = files[i];
      if (!now) return scratch({ file: was.path, why: 'it is gone: the list of files now ends before it' });
      if (now.path !== was.path) return scratch({ file: was.path, why: 'it is no longer the ledger\'s file number ' + (i + 1) + ' (the list names ' + now.path + ' there)' });
      var same = now.sha256 === was.sha256 && now.bytes === was.bytes;
      if (was.full && !same) {
        return scratch({ file: was.path, why: 'it was full and its bytes changed: ' + was.bytes + ' bytes with sha256 ' + was.sha256 + ' when this browser checked it; ' + now.bytes + ' bytes with sha256 ' + now.sha256 + ' now' });
      }
      if (!was.full && (now.bytes < was.bytes || (now.bytes === was.bytes && !same))) {
        return scratch({ file: was.path, why: now.bytes < was.bytes ? 'it is shorter than when this browser checked it (' + now.bytes + ' bytes, then ' + was.bytes + ')'
          : 'its bytes changed at the same size (sha256 ' + was.sha256 + ' then, ' + now.sha256 + ' now)' });
      }
    }
    if (total < mem.bytes) return scratch({ file: files[files.length - 1].path, why: 'the ledger holds ' + total + ' bytes, fewer than the ' + mem.bytes + ' this browser checked' });
    var full = mem.files.filter(function (f) { return f.full; }).length;
    // The state at the end of the last line read, in the last file (`tail`): the visit resumes
    // inside that file, after the bytes it re-derived (held to their sha256 as the file is read);
    // a memory of before it keeps the state at the end of the last full file (`checkpoint`).
    var last = mem.files[mem.files.length - 1], tail = mem.tail && typeof mem.tail === 'object' && mem.tail.checkpoint ? mem.tail : null;
    var cp = tail ? tail.checkpoint : mem.checkpoint;
    if (!cp || (!full && !tail)) return scratch(null, 'no full file remembered');
    if (withheldShaUpTo(cp.lastSeq) !== (tail ? tail.withheld_sha : mem.withheld_sha)) {
      return scratch({ file: 'ledger/withheld.json', why: 'its entries up to seq ' + cp.lastSeq + ' are not the ones this browser checked' });
    }
    // A post naming a seq in the remembered files whose digest the checkpoint did not keep: the
    // files are read again (not a rewrite: the memory is only too short).
    var known = new Set();
    (cp.ids || []).forEach(function (x) { known.add(String(x[0])); });
    (cp.dayLast || []).forEach(function (x) { known.add(String(x[1])); });
    for (var k = 0; k < postSeqs.length; k++) {
      var N = Number(postSeqs[k]);
      if (N <= cp.lastSeq && N > 0 && !known.has(String(postSeqs[k])) && !(withheldSeqs && withheldSeqs.has(N))) return scratch(null, 'a post names seq ' + postSeqs[k] + ', inside the remembered files');
    }
    if (!tail) return { rewritten: null, resumeFrom: full, checkpoint: cp, prefix: null, note: null };
    return { rewritten: null, resumeFrom: mem.files.length - 1, checkpoint: cp, note: null,
      prefix: { bytes: last.bytes, sha256: last.sha256, lines: tail.lines, facts: tail.facts || null } };
  }

  /**
   * The worker's answers about the line records it keeps (docs/page.md#records-in-the-worker):
   * the page asks for what it shows or checks of them when it needs it, so that a 100,000-line
   * full check does not copy every record to the page's own thread. `store`: the records
   * (compactResult's), in the order read; `index`: what earlier answers built. It runs in the
   * worker (stringified, with treeLeaves and hexBytes), so it uses nothing but its arguments.
   *   leaves {withheld: [{seq, entry_id}]} -> {size, error}: the tree's leaves (treeLeaves);
   *   tree {origin, head, actual: Map(path -> bytes), seen} -> {problems, root}: every tree file
   *     but lines/ re-derived from the leaves and the lines' digests and held to those read;
   *   rows {withheld: [[seq, day]], day, kind, page, size, seq} -> the lines table's page (by
   *     `seq`: the page holding that seq's row, unfiltered; `at` -1 when no row has it);
   *   find {hexes} -> {recs, hits: {hex: [[field, k]]}, first: {seq: k}}: the records carrying
   *     each digest, and the first record of each seq they name (recs[k]).
   */
  function storeAnswer(V, store, index, d, leavesOf, hexToBytes) {
    if (d.op === 'leaves') {
      var leaves = leavesOf(store, d.withheld);
      index.leaves = leaves.error ? null : leaves.entries;
      return { size: leaves.size, error: leaves.error || null };
    }
    if (d.op === 'tree') {
      // As a page that held every record re-derives them (treeStep): lines/ is held by groups.
      var T = V.tree, digests = new Map(), expected = new Map(), FIELDS = ['sent_sha256', 'checked_sha256', 'stripped_sha256', 'draft_sha256'];
      store.forEach(function (L) { if (typeof L.seq === 'number' && L.d) digests.set(L.seq, FIELDS.map(function (f) { return L.d[f]; }).filter(Boolean)); });
      T.eachTreeFile({ entries: index.leaves.map(hexToBytes), lineBytes: function () { return null; }, digestsOf: function (q) { return digests.get(q) || []; },
        origin: d.origin, headHex: d.head }, function (path, bytes) { if (path.indexOf('lines/') !== 0) expected.set(path, bytes); });
      return { problems: T.checkTreeFiles(expected, d.actual, d.seen), root: T.parseCheckpoint(expected.get('checkpoint')).root };
    }
    if (d.op === 'rows') return storeRows(store, index, d);
    if (d.op === 'find') {
      var want = new Set(d.hexes), hits = {}, recs = [], at = new Map(), seqs = new Map();
      var add = function (k, hex, field) {
        if (typeof hex !== 'string' || !want.has(hex)) return;
        if (!at.has(k)) { at.set(k, recs.length); recs.push(store[k]); if (store[k].seq !== null) seqs.set(store[k].seq, -1); }
        (hits[hex] = hits[hex] || []).push([field, at.get(k)]);
      };
      store.forEach(function (L, k) {
        if (L.id) add(k, L.id, 'entry_id');
        if (L.d) for (var f in L.d) add(k, L.d[f], f);
      });
      var first = {};
      store.forEach(function (L, k) {
        if (seqs.get(L.seq) !== -1) return;
        if (!at.has(k)) { at.set(k, recs.length); recs.push(L); }
        seqs.set(L.seq, at.get(k));
        first[L.seq] = at.get(k);
      });
      return { recs: recs, hits: hits, first: first };
    }
    return null;
  }
  /** The lines table's rows (storeAnswer's `rows`): the records and the withheld lines by seq. */
  function storeRows(store, index, d) {
    if (!index.rows) {
      // As the page sorted its rows when it held them: the records in order, then the withheld
      // lines, sorted by seq (a stable sort: a record before a withheld line of its seq).
      var rows = [], days = {}, kinds = {};
      for (var i = 0; i < store.length; i++) rows.push(i);
      d.withheld.forEach(function (w, j) { rows.push(-1 - j); });
      var seqOf = function (r) { var q = r >= 0 ? store[r].seq : d.withheld[-1 - r][0]; return q === null ? Infinity : q; };
      rows.sort(function (a, b) { return seqOf(a) - seqOf(b); });
      rows.forEach(function (r) {
        var day = r >= 0 ? store[r].day : d.withheld[-1 - r][1], kind = r >= 0 ? store[r].kind : 'withheld';
        if (day) days[day] = 1;
        if (kind) kinds[kind] = 1;
      });
      index.rows = { rows: rows, wrows: d.withheld, days: Object.keys(days).sort(), kinds: Object.keys(kinds).sort() };
    }
    var R = index.rows, size = d.size, page = d.page, data = R.rows, at = -1;
    var rowOf = function (r) { return r >= 0 ? store[r] : { w: -1 - r, seq: R.wrows[-1 - r][0], day: R.wrows[-1 - r][1], kind: 'withheld' }; };
    if (typeof d.seq === 'number') {
      for (var k = 0; k < data.length; k++) if (rowOf(data[k]).seq === d.seq) { at = k; break; }
      if (at < 0) return { at: -1 };
      page = Math.floor(at / size);
    } else if (d.day || d.kind) {
      data = data.filter(function (r) { var x = rowOf(r); return (!d.day || x.day === d.day) && (!d.kind || x.kind === d.kind); });
    }
    var pages = Math.max(1, Math.ceil(data.length / size));
    if (page >= pages) page = pages - 1;
    return { at: at, page: page, pages: pages, total: data.length, all: R.rows.length, days: d.lists ? R.days : null, kinds: d.lists ? R.kinds : null,
      rows: data.slice(page * size, (page + 1) * size).map(rowOf) };
  }

  // A file's sha256, and its first n bytes' in the same pass when n > 0: {whole, prefix, n}.
  function fileSums(V, bytes, n) {
    var out = n > 0 ? V.sha256HexPrefix(bytes, n) : { whole: V.sha256Hex(bytes) };
    out.n = n > 0 ? n : 0;
    return out;
  }
  /*
   * The ledger files the reader fetches itself (docs/page.md "Reading the files"): `ask(url,
   * prefix)` fetches one before it is read and hashes it as it arrives (its first `prefix` bytes
   * in the same pass), while the reader waits for the page; `take(url)` resolves to what was
   * read, {bytes, sums} or {status, message}, fetching it now when it was not asked for.
   * Stringified into the worker with lightEngine.
   */
  function fileFetcher(V) {
    var asked = {};
    function read(url) {
      return fetch(url, { cache: 'no-store', credentials: 'same-origin' }).then(function (res) {
        if (!res.ok) return { status: res.status, message: 'the server answered ' + res.status + ' ' + res.statusText };
        return res.arrayBuffer().then(function (b) { return { bytes: b }; });
      }).then(null, function (e) { return { status: null, message: String(e && e.message || e) }; });
    }
    return {
      ask: function (url, prefix) {
        if (!asked[url]) asked[url] = read(url).then(function (r) { if (r.bytes) r.sums = fileSums(V, new Uint8Array(r.bytes), prefix || 0); return r; });
      },
      take: function (url) { var got = asked[url] || read(url); delete asked[url]; return got; }
    };
  }

  /**
   * The light page's reader: takes the ledger's files one message at a time and answers with
   * messages (runs in the Web Worker, or on the main thread when no worker starts). It is
   * stringified into the worker, so it uses nothing but its arguments. Messages in:
   * {type: 'init', withheld, tzRules, posts, watchSeqs, checkpoint}, {type: 'file', path, bytes
   * (ArrayBuffer) or url (fetched here, and first by {type: 'prefetch', url} when sent), size,
   * sha256, facts, prefix, wantCheckpoint}, {type: 'posts', posts, watchSeqs} (the posts
   * read while the ledger streams: they replace init's; a seq to keep that the reader has passed
   * is taken from the records it keeps, which hold every line read on this visit), {type:
   * 'finish', headSeq}. Out: 'progress', 'file-bad' (size, sha256 or a missing final LF: named by
   * file), 'file-unread' (a url that could not be read: its status), 'file-rewritten' (the part
   * `prefix` names is not the bytes re-derived before), 'file-done' (the file's line records, the
   * posts the chain reached, a checkpoint when asked), 'reached' (after 'posts': the posts the
   * chain has reached so far), 'done', 'error'.
   * The line records stay here (docs/page.md#records-in-the-worker): 'file-done' counts them,
   * and {type: 'ask', id, op, ...} is answered {type: 'answer', id, value} (lineStore).
   */
  function lightEngine(V, compact, post) {
    var v = null, init = null, told = {}, fileBase = 0, groups = null, store = [], index = {};
    // The published lines by groups of 256 seqs, as the tree's lines/ files hold them
    // (docs/tree.md#layout): each group's bytes hashed when the next begins, none kept.
    function closeGroup() {
      if (!groups || groups.cur < 0 || !groups.parts.length) return;
      var n = 0, at = 0;
      groups.parts.forEach(function (x) { n += x.length; });
      var all = new Uint8Array(n);
      groups.parts.forEach(function (x) { all.set(x, at); at += x.length; });
      groups.out.push([groups.cur, V.sha256Hex(all), n]);
      groups.parts = [];
    }
    function groupLines(bytes, before, recs) {
      var starts = [0];
      for (var k = 0; k < bytes.length; k++) if (bytes[k] === 10) starts.push(k + 1);
      recs.forEach(function (rec) {
        var j = rec.line - before;
        if (typeof rec.seq !== 'number' || rec.seq < 1 || j < 1 || j >= starts.length) { groups.bad = true; return; }
        var N = Math.floor((rec.seq - 1) / 256);
        if (N < groups.cur) { groups.bad = true; return; }
        if (N > groups.cur) { closeGroup(); groups.cur = N; }
        groups.parts.push(bytes.slice(starts[j - 1], starts[j]));
      });
    }
    // The posts the chain has reached (its last line read past their seq), each date told once.
    // Each is a pass over every post: when the posts arrive and after the last file, the pass
    // is left to the next file or to 'finish', whose own anchor checks give it (`later`).
    var later = false;
    function reachedIn(a, upTo, clean) {
      var reached = [];
      a.forEach(function (x) {
        if (x.post_seq === null || told[x.date] || Number(x.post_seq) > upTo) return;
        told[x.date] = 1;
        reached.push({ date: x.date, seq: x.post_seq, head: x.head, clean: clean });
      });
      return reached;
    }
    function reachedNow() {
      later = false;
      return reachedIn(V.checkAnchors({ headerDigest: v.s.headerDigest, anchorState: v.checkpointState() }, init.list, init.posts),
        v.s.hasPrev ? v.s.prevNext - 1 : 0, v.s.problems.length === 0);
    }
    // Seqs to keep from now on; those already passed get the stated entry_ids of the lines read
    // at them, in order, as the reader would have kept them had it watched them from the start.
    function watchMore(seqs) {
      var add = new Set();
      (seqs || []).forEach(function (k) { k = String(k); if (!v.watch.has(k)) { v.watch.add(k); add.add(k); } });
      if (!add.size) return;
      for (var q = 0; q < store.length; q++) {
        var L = store[q], key = L.seq === null ? null : String(L.seq);
        if (key === null || !add.has(key)) continue;
        var ids = v.ids.get(key);
        if (!ids) v.ids.set(key, ids = []);
        ids.push(L.id);
      }
    }
    var remote = fileFetcher(V);
    function handle(d) {
      try {
        if (d.type === 'prefetch') { remote.ask(d.url, d.prefix); return; }
        if (d.type === 'file' && d.url) {
          remote.take(d.url).then(function (r) {
            if (r.bytes) handle({ type: 'file', path: d.path, bytes: r.bytes, size: d.size, sha256: d.sha256, facts: d.facts, prefix: d.prefix, wantCheckpoint: d.wantCheckpoint, last: d.last, sums: r.sums });
            else post({ type: 'file-unread', path: d.path, status: r.status, message: r.message });
          });
          return;
        }
        if (d.type === 'posts') {
          init.posts = d.posts;
          watchMore(d.watchSeqs);
          told = {};
          if (d.later) later = true;
          else post({ type: 'reached', reached: reachedNow() });
          return;
        }
        if (d.type === 'init') {
          init = d;
          // Read once: the reader and every anchor check take the list read (a few hundred
          // thousand entries' JSON is read in tens of milliseconds, and the checks run per file).
          init.list = d.withheld === null || d.withheld === undefined ? d.withheld : V.parseWithheld(d.withheld);
          groups = d.lineGroups ? { cur: -1, parts: [], out: [], bad: false } : null;
          v = new V.Verifier(init.list, d.tzRules, { watchSeqs: d.watchSeqs, checkpoint: d.checkpoint || undefined,
            onProgress: function (n, b) { post({ type: 'progress', bytes: b - fileBase }); } });
          return;
        }
        if (d.type === 'file') {
          var bytes = new Uint8Array(d.bytes), pre = d.prefix || null;
          if (bytes.length !== d.size) { post({ type: 'file-bad', path: d.path, why: 'it holds ' + bytes.length + ' bytes; the list says ' + d.size }); return; }
          // The part this browser re-derived on an earlier visit is hashed in the same pass as
          // the whole file (docs/page.md "The monitor").
          var hashed = d.sums && d.sums.n === (pre ? pre.bytes : 0) ? d.sums : fileSums(V, bytes, pre ? pre.bytes : 0), sha = hashed.whole;
          if (sha !== d.sha256) { post({ type: 'file-bad', path: d.path, why: 'its sha256 is ' + sha + '; the list says ' + d.sha256 }); return; }
          if (!bytes.length || bytes[bytes.length - 1] !== 10) { post({ type: 'file-bad', path: d.path, why: 'it does not end with a line feed: a ledger file is cut at a line boundary' }); return; }
          if (pre && hashed.prefix !== pre.sha256) {
            post({ type: 'file-rewritten', path: d.path, why: 'its first ' + pre.bytes + ' bytes, which this browser re-derived on an earlier visit, changed: sha256 ' + pre.sha256 + ' then, ' + hashed.prefix + ' now' });
            return;
          }
          fileBase = v.s.bytes;
          var before = v.s.lineNo, from = pre ? before - pre.lines : before;
          // Resumed inside the file: only the lines after that part are read (the state is the
          // one the verifier had at its end).
          v.push(pre ? bytes.subarray(pre.bytes) : bytes);
          var recs = v.takeLines();
          if (groups) groupLines(bytes, before, recs);
          if (d.facts) {
            var read = fileFacts(before, v.s.lineNo - before, recs, v.s.headerDigest);
            if (pre && pre.facts) read = joinFacts(pre.facts, from === 0, read);
            var differ = factsDiffer(d.facts, read);
            if (differ.length) { post({ type: 'file-bad', path: d.path, why: 'the list says ' + differ.join(', ') }); return; }
          }
          var kept = compact({ lines: recs }).lines;
          for (var k = 0; k < kept.length; k++) store.push(kept[k]);
          var reached = d.last ? [] : reachedNow();
          if (d.last) later = true;
          post({ type: 'file-done', path: d.path, count: kept.length, linesTotal: v.s.linesTotal, derived: v.s.lineNo - before,
            fileLines: v.s.lineNo - from, resumedLines: pre ? pre.lines : 0,
            firstSeq: recs.length ? recs[0].seq : null, lastSeq: v.s.lastSeq, problems: v.s.problems.length, reached: reached,
            checkpoint: d.wantCheckpoint ? v.checkpoint() : null });
          return;
        }
        if (d.type === 'finish') {
          var upTo = v.s.hasPrev ? v.s.prevNext - 1 : 0, clean = v.s.problems.length === 0, owed = later;
          var r = v.finish();
          var anchors = V.checkAnchors(r, init.list, init.posts);
          var late = owed ? reachedIn(anchors, upTo, clean) : [];
          if (late.length) post({ type: 'reached', reached: late });
          var c = compact(r);
          c.unposted = V.datesWithoutPost(r, init.posts);
          c.certifies = r.header && typeof r.header.certifies === 'string' ? r.header.certifies : null;
          c.linesTotal = r.linesTotal;
          c.lastSeq = r.lastSeq;
          c.bytes = r.bytes;
          c.headSeqIds = d.headSeq !== null && d.headSeq !== undefined ? (r.anchorState.ids.get(String(d.headSeq)) || []) : null;
          c.headerLine = v.s.header; // line 1 as read (latin1), when it is a header
          closeGroup();
          c.lineGroups = groups && !groups.bad ? groups.out : null;
          // What the page's own checks need of every line, small: the published seqs.
          c.lines = null;
          c.records = store.length;
          c.seqs = [];
          for (var q = 0; q < store.length; q++) if (store[q].seq !== null) c.seqs.push(store[q].seq);
          post({ type: 'done', result: c, anchors: anchors });
          return;
        }
        if (d.type === 'ask') post({ type: 'answer', id: d.id, value: storeAnswer(V, store, index, d, treeLeaves, hexBytes) });
      } catch (err) { post({ type: 'error', message: String(err && err.message || err), id: d && d.type === 'ask' ? d.id : undefined }); }
    }
    return handle;
  }

  // ------------------------------------------------------------------------------------------
  // The snapshot's digests (docs/verifier.md#the-snapshots-digests, docs/page.md "The snapshot's
  // digests"): the files under ledger/ held to the last SNAPSHOTS.jsonl line, as `exhibit verify
  // SITE` holds them (src/snapshot_check.rs, head_check::SnapshotDigests).

  /**
   * The folders whose files a snapshot records by one listing digest each (src/head_check.rs,
   * DIGESTED_FOLDERS). `tree/` (docs/tree.md) is held only where the page reads every file in it:
   * a page cannot list a folder over http, so its listing digest is computed from every tree
   * file's sha256 when the full check fetches them all, and is otherwise said not checked.
   */
  var SNAPSHOT_FOLDERS = ['anchors/', 'witness/', 'public_texts/', 'segments/', 'withheld/', 'tree/'];
  /** The files an exhibit may hold directly under ledger/ (src/layout.rs), SNAPSHOTS.jsonl aside. */
  var DIRECT_FILES = ['.gitattributes', 'STATS.json', 'ledger.jsonl', 'readings.json', 'withheld.json'];

  /**
   * The `digests` object of the last non-empty line of SNAPSHOTS.jsonl (`text`), or null when
   * that line is no JSON object with a `digests` object (snapshot_missing).
   */
  function lastSnapshotDigests(text) {
    var lines = String(text || '').split('\n');
    var last = null;
    for (var i = lines.length - 1; i >= 0 && last === null; i--) if (lines[i] !== '') last = lines[i];
    if (last === null) return null;
    var v;
    try { v = JSON.parse(last); } catch (e) { return null; }
    var d = v && typeof v === 'object' && !Array.isArray(v) ? v.digests : null;
    return d && typeof d === 'object' && !Array.isArray(d) ? d : null;
  }

  // Code point order, which is UTF-8 byte order (the order of the build's walk).
  function byBytes(a, b) {
    for (var i = 0, j = 0; i < a.length && j < b.length;) {
      var x = a.codePointAt(i), y = b.codePointAt(j);
      if (x !== y) return x < y ? -1 : 1;
      i += x > 0xffff ? 2 : 1;
      j += y > 0xffff ? 2 : 1;
    }
    return i < a.length ? 1 : j < b.length ? -1 : 0;
  }

  /**
   * A folder's `sha256sum` listing, the text a snapshot's folder digest is the sha256 of:
   * `entries` [{path inside the folder, sha256 hex}] sorted by path, one line
   * `<sha256>  ./<path>\n` each.
   */
  function folderListing(entries) {
    return entries.slice().sort(function (a, b) { return byBytes(a.path, b.path); })
      .map(function (e) { return e.sha256 + '  ./' + e.path + '\n'; }).join('');
  }

  /**
   * The keys where `derived` (key -> sha256 hex, as `digests` names them: `STATS.json`,
   * `segments/`) differs from `recorded` (the snapshot's `digests`), among the keys
   * `checkable(key)` says the page holds: [{file: 'ledger/<key>', code, detail}], in key order,
   * worded as `exhibit verify SITE` words them.
   */
  function snapshotDiffer(recorded, derived, checkable) {
    var seen = {}, keys = [];
    Object.keys(recorded).concat(Object.keys(derived)).forEach(function (k) { if (!seen[k]) { seen[k] = 1; keys.push(k); } });
    keys.sort(byBytes);
    var shown = function (v) { return v === undefined ? 'nothing' : typeof v === 'string' ? v : JSON.stringify(v); };
    var has = function (o, k) { return Object.prototype.hasOwnProperty.call(o, k); };
    return keys.filter(function (k) { return checkable(k) && (has(recorded, k) ? recorded[k] : undefined) !== (has(derived, k) ? derived[k] : undefined); })
      .map(function (k) {
        return { file: 'ledger/' + k, code: 'snapshot_digest_mismatch',
          detail: (/\/$/.test(k) ? 'its files\' listing digest' : 'its sha256') + ' is ' + shown(has(derived, k) ? derived[k] : undefined) +
            '; the last snapshot names ' + shown(has(recorded, k) ? recorded[k] : undefined) + ': changed after the build that recorded it (or the record was)' };
      });
  }

  // ------------------------------------------------------------------------------------------
  // The tree (docs/tree.md): the page's own answers about the checkpoint it carries.

  function hexBytes(hex) {
    var out = new Uint8Array(hex.length / 2);
    for (var i = 0; i < out.length; i++) out[i] = parseInt(hex.substr(2 * i, 2), 16);
    return out;
  }
  function bytesHex(b) {
    var s = '';
    for (var i = 0; i < b.length; i++) s += (b[i] < 16 ? '0' : '') + b[i].toString(16);
    return s;
  }

  /**
   * The tree's leaves from a chain that re-derives (docs/tree.md#leaves): leaf i is seq i+1's
   * entry, a published line's derived entry_id or, for a withheld seq, the withheld list's
   * digest. `lines`: the page's line records ({seq, did}); `withheld`: [{seq, entry_id}]. The
   * size is the last seq either names, as `leaves` in src/tree_check.rs takes it. Returns
   * {size, entries: [hex]}, or {error} when a seq up to the size is neither.
   */
  function treeLeaves(lines, withheld) {
    var at = new Map(), size = 0;
    lines.forEach(function (L) {
      if (typeof L.seq === 'number' && typeof L.did === 'string' && !at.has(L.seq)) { at.set(L.seq, L.did); if (L.seq > size) size = L.seq; }
    });
    (withheld || []).forEach(function (w) {
      if (w && typeof w.seq === 'number' && typeof w.entry_id === 'string' && !at.has(w.seq)) { at.set(w.seq, w.entry_id); if (w.seq > size) size = w.seq; }
    });
    var entries = new Array(size);
    for (var q = 1; q <= size; q++) {
      var e = at.get(q);
      if (!e || !HEX64.test(e)) return { error: 'seq ' + q + ' is neither a published line nor a withheld one' };
      entries[q - 1] = e;
    }
    return { size: size, entries: entries };
  }

  /**
   * The checkpoint a page carries (`carried`: its bytes) held to the tree of `entries` (hex, in
   * seq order) and the chain's head (docs/tree.md#checkpoint), as `check_checkpoint` in
   * src/tree_check.rs holds the site's: its size, root and `exhibit-head` line are re-derived,
   * its origin is read. `T`: ExhibitVerify.tree. Returns {cp (parsed, or null), size, root
   * (Uint8Array), problem: null or the difference in words}.
   */
  function checkpointHolds(T, carried, entries, headHex) {
    var size = entries.length;
    var root = T.rootOf(entries.map(function (h) { return T.leafHash(hexBytes(h)); }));
    var out = { cp: null, size: size, root: root, problem: null };
    if (!carried || !carried.length) { out.problem = 'the page carries no checkpoint'; return out; }
    var cp = T.parseCheckpoint(carried);
    if (cp.error) { out.problem = 'it is not a checkpoint: ' + cp.error; return out; }
    out.cp = cp;
    var why = [];
    if (cp.size !== size) why.push('its size is ' + cp.size + ' where the chain has ' + size + ' seqs');
    if (bytesHex(cp.root) !== bytesHex(root)) why.push('its root is ' + T.base64Encode(cp.root) + ' where the chain\'s is ' + T.base64Encode(root));
    if (cp.headSeq !== size || cp.headHex !== headHex) why.push('its exhibit-head is ' + cp.headSeq + ' ' + cp.headHex + ' where the chain\'s head is ' + size + ' ' + headHex);
    out.problem = why.length ? why.join('; ') : null;
    return out;
  }

  /**
   * The seq the gate's trailer names (`[gate: … · ledger NNNN]`, the last one in the text), as
   * `trailer_seq` in src/prove_cmd.rs reads it; null when there is none.
   */
  function trailerSeq(text) {
    var t = toLF(text), at = t.lastIndexOf('[gate: ');
    if (at < 0) return null;
    var end = t.indexOf(']', at);
    if (end < 0) return null;
    var inner = t.slice(at, end), mark = '\u00b7 ledger ', k = inner.lastIndexOf(mark);
    if (inner.indexOf('\n') >= 0 || k < 0) return null;
    var digits = inner.slice(k + mark.length);
    var n = /^[0-9]{1,16}$/.test(digits) ? Number(digits) : NaN;
    return Number.isSafeInteger(n) ? n : null;
  }

  /** A paste that is a seq: `1234` or `seq 1234` alone. Returns the number, or null. */
  function pasteSeq(text) {
    var m = /^\s*(?:seq\s*)?([1-9][0-9]{0,15})\s*$/i.exec(toLF(text));
    var n = m ? Number(m[1]) : NaN;
    return Number.isSafeInteger(n) ? n : null;
  }

  /**
   * The posted heads in the exact form (`gate anchor <date> head <digest> seq <n>`, as
   * checkAnchors reads a post) from the posts the page carries ([{date, text}]): [{date, head,
   * seq}], by seq, then date. The last is the newest.
   */
  function postedHeads(posts) {
    var out = [];
    (posts || []).forEach(function (p) {
      var prefix = 'gate anchor ' + p.date + ' head ', t = String(p.text);
      var m = t.indexOf(prefix) === 0 ? /^([0-9a-f]{64}) seq (0|[1-9][0-9]{0,15})$/.exec(t.slice(prefix.length)) : null;
      var n = m ? Number(m[2]) : NaN;
      if (m && Number.isSafeInteger(n)) out.push({ date: String(p.date), head: m[1], seq: n });
    });
    return out.sort(function (a, b) { return a.seq - b.seq || (a.date < b.date ? -1 : a.date > b.date ? 1 : 0); });
  }

  /**
   * What a returning visitor's browser checks (docs/page.md "The returning visitor"): the
   * checkpoint it remembers (`mem`: {origin, size, root (base64), checked_at}, or null) against
   * today's (`cp`, parsed). {kind: 'first'} (nothing remembered), 'other-log' (another origin:
   * another log, not compared), 'cut' (fewer seqs than seen: a rewrite), or 'consistency' (a
   * proof from mem.size to cp.size is due; at equal sizes, equal roots).
   */
  function historyPlan(mem, cp) {
    if (!mem || typeof mem.size !== 'number' || typeof mem.root !== 'string') return { kind: 'first' };
    if (mem.origin !== cp.origin) return { kind: 'other-log' };
    if (mem.size > cp.size) return { kind: 'cut' };
    return { kind: 'consistency', from: mem.size };
  }

  /**
   * What the full check fetches, about (docs/page.md "Check everything"): the ledger's files the
   * page lists (`files`: [{bytes}], its last one left out when the page carries it) and the
   * tree's files at `size` — lines/ repeats the published lines, the hash tiles and entry bundles
   * weigh 66 bytes a seq and a little more for the upper levels, the digest index 16 bytes a
   * digest a level (counted as two digests a line). {ledger, tree, total} in bytes.
   */
  function fullCheckEstimate(files, latest, size) {
    var ledger = 0;
    (files || []).forEach(function (f, i) { if (!(latest && i === files.length - 1)) ledger += Number(f.bytes) || 0; });
    var all = 0;
    (files || []).forEach(function (f) { all += Number(f.bytes) || 0; });
    var levels = 1, blocks = Math.floor(size / 1024);
    for (var span = 16; span <= blocks; span *= 16) levels++;
    var tree = all + 66 * size + Math.ceil(32 * size / 255) + 32 * size * levels;
    return { ledger: ledger, tree: tree, total: ledger + tree };
  }

  /*
   * The posts a full check read that a returning visit need not read again (docs/page.md "The
   * monitor"): each in the exact form its entry in the anchors' index spells (`gate anchor <date>
   * head <head> seq <seq>`), whose proof's header was read and commits to it — then the 65 bytes
   * read are the OpenTimestamps header of the post's sha256, and only the proof's length is
   * kept. `index`: anchors/index.json as read; `posts`: date -> text; `headers`: the proofs'
   * (decodeProofHeaders' shape); `except`: dates not to keep. {dates, lengths, sha} (sha: of what
   * was read, to hold a later index to),
   * or null when none is kept.
   */
  function exactPostText(p) {
    if (!p || typeof p.date !== 'string' || !/^[0-9]{4}-[0-9]{2}-[0-9]{2}$/.test(p.date) || typeof p.head !== 'string' || !HEX64.test(p.head) ||
        !Number.isSafeInteger(p.seq) || p.seq < 0) return null;
    return 'gate anchor ' + p.date + ' head ' + p.head + ' seq ' + p.seq;
  }
  function indexByDate(index) {
    var by = {};
    (index && Array.isArray(index.posts) ? index.posts : []).forEach(function (p) { if (p && typeof p.date === 'string' && !by[p.date]) by[p.date] = p; });
    return by;
  }
  function postsDigest(V, list) { return V.sha256Hex(V.utf8Encode(JSON.stringify(list))); }
  // A post's sha256, each text hashed once a visit: a returning visit rebuilt, checked and
  // remembered the same 1,800 posts' digests, each of them three times.
  var postShas = new Map();
  function postSha(V, text) {
    var h = postShas.get(text);
    if (h === undefined) { h = V.sha256Hex(V.utf8Encode(text)); postShas.set(text, h); }
    return h;
  }
  // A post's sha256 as the reader computed it (checkAnchors' text_sha256, of the same text).
  function knownPostSha(text, hex) { if (typeof hex === 'string' && !postShas.has(text)) postShas.set(text, hex); }
  function rememberedPosts(V, index, posts, headers, except) {
    var by = indexByDate(index), hdr = {}, list = [];
    (Array.isArray(headers) ? headers : []).forEach(function (h) { if (h.kind === 'anchor') hdr[h.name] = h; });
    Object.keys(posts || {}).sort().forEach(function (d) {
      var text = exactPostText(by[d]), h = hdr[d + '.txt.ots'];
      if (Object.prototype.hasOwnProperty.call(except || {}, d) || text === null || text !== posts[d] || !h) return;
      if (checkProofHeader(h.header, postSha(V, text)) === 'ok') list.push([d, text, h.length]);
    });
    return list.length ? { dates: list.map(function (x) { return x[0]; }), lengths: list.map(function (x) { return x[2]; }), sha: postsDigest(V, list) } : null;
  }
  /*
   * rememberedPosts' record (`mem`) held to the anchors' index read on this visit: when the index
   * spells every remembered post exactly as it was read, {posts: date -> text, headers, count,
   * last (the newest date)} — the posts and the proofs' headers as read then, not fetched again;
   * else null (every post is read).
   */
  function postsFromMemory(V, index, mem) {
    if (!mem || !Array.isArray(mem.dates) || !Array.isArray(mem.lengths) || mem.dates.length !== mem.lengths.length || !mem.dates.length || typeof mem.sha !== 'string') return null;
    var by = indexByDate(index), list = [];
    for (var k = 0; k < mem.dates.length; k++) {
      var text = exactPostText(by[mem.dates[k]]);
      if (text === null || !Number.isSafeInteger(mem.lengths[k])) return null;
      list.push([mem.dates[k], text, mem.lengths[k]]);
    }
    if (postsDigest(V, list) !== mem.sha) return null;
    var out = { posts: {}, headers: [], count: list.length, last: list[list.length - 1][0] };
    list.forEach(function (x) {
      // Made when first read: its digest is the post's sha256 (postSha), which the reader also
      // computes for every post (knownPostSha); 1,800 of them made here took 100 ms of the start.
      var h = { kind: 'anchor', name: x[0] + '.txt.ots', length: x[2] }, made = null;
      Object.defineProperty(h, 'header', { enumerable: true, get: function () {
        if (!made) {
          made = new Uint8Array(65);
          made.set(OTS_MAGIC, 0);
          made[31] = 0x01;
          made[32] = 0x08;
          made.set(hexBytes(postSha(V, x[1])), 33);
        }
        return made;
      } });
      out.posts[x[0]] = x[1];
      out.headers.push(h);
    });
    return out;
  }
  /** The key under which the monitor keeps what this browser remembers of the exhibit. */
  function monitorKey() { return 'exhibit-monitor:v1:' + String(location.href).replace(/[?#].*$/, ''); }

  var pure = {
    rememberedPosts: rememberedPosts, postsFromMemory: postsFromMemory,
    toLF: toLF, stripTrailer: stripTrailer, variants: variants, tokens: tokens, dice: dice,
    wordsKey: wordsKey, wordDiff: wordDiff, coverage: coverage, ranges: ranges, b64ToBytes: b64ToBytes, failedCheck: failedCheck,
    compactResult: compactResult, NEAR_THRESHOLD: NEAR_THRESHOLD, DIGEST_FIELDS: DIGEST_FIELDS,
    fold: fold, passageWords: passageWords, align: align, passageMatch: passageMatch, digestOf: digestOf,
    checkProofHeader: checkProofHeader, decodeProofHeaders: decodeProofHeaders, computeVerdict: computeVerdict,
    PASSAGE_MIN_WORDS: PASSAGE_MIN_WORDS, ledgerFileList: ledgerFileList, withheldFileList: withheldFileList, compareMemory: compareMemory, lightEngine: lightEngine, fileFacts: fileFacts, listNotStats: listNotStats,
    lastSnapshotDigests: lastSnapshotDigests, folderListing: folderListing, snapshotDiffer: snapshotDiffer, SNAPSHOT_FOLDERS: SNAPSHOT_FOLDERS,
    hexBytes: hexBytes, bytesHex: bytesHex, treeLeaves: treeLeaves, checkpointHolds: checkpointHolds,
    trailerSeq: trailerSeq, pasteSeq: pasteSeq, postedHeads: postedHeads, historyPlan: historyPlan, fullCheckEstimate: fullCheckEstimate
  };

  // ------------------------------------------------------------------------------------------
  // The page.

  /*
   * A light page too large to carry its records (`layout-json`'s `fetch`, docs/page.md
   * "Records read from the site") reads them from the site before anything else, and then
   * starts as a page that carries them. A file the server answers 404 or 410 for reads as
   * empty, as `exhibit verify SITE` reads an absent file; any other failure is said, with no
   * verdict. The same four blocks, and only those, are never read from the page.
   */
  var FETCHED_RECORDS = [['stats-json', 'ledger/STATS.json'], ['snapshots-jsonl', 'ledger/SNAPSHOTS.jsonl'],
    ['anchors-json', 'ledger/anchors/index.json'], ['withheld-json', 'ledger/withheld.json']];
  function start() {
    var V = self.ExhibitVerify, s = document.getElementById('layout-json'), lay = null;
    try { lay = s ? V.readSiteJSON(V.utf8Decode(b64ToBytes(s.textContent))) : null; } catch (e) { lay = null; }
    if (!lay || typeof lay !== 'object' || lay.mode !== 'light' || lay.fetch !== true) { startWith(null, null); return; }
    // The log-size path reads none of these records (docs/page.md "The log-size path"): they are
    // read when the visitor asks for the full check, which starts the page again with them.
    var cp = document.getElementById('tree-checkpoint');
    if (cp && /[A-Za-z0-9]/.test(cp.textContent) && location.protocol !== 'file:' && location.hash !== '#check-everything') { startWith({}, null, true); return; }
    var wanted = FETCHED_RECORDS.filter(function (r) {
      return r[0] !== 'withheld-json' || !Object.prototype.hasOwnProperty.call(lay, 'withheld_files');
    });
    var got = { __absent: {} };
    wanted.forEach(function (r) { got[r[0]] = new Uint8Array(0); });
    if (location.protocol === 'file:') {
      startWith(got, 'This page reads its records (ledger/STATS.json and the others) from the site beside it, and it was opened from a file (file://), where a browser lets it read no file. Serve the folder over http (for example python3 -m http.server in it) and open it there.');
      return;
    }
    var mem = null;
    try { mem = JSON.parse(window.localStorage.getItem(monitorKey()) || 'null'); } catch (e) { mem = null; }
    got.__mem = mem;
    // The full check's reader, and the first ledger file it will read, started with the records:
    // only the order of the work depends on it (requestEarly).
    spareReader = readerWorker();
    var first = firstFileEarly(lay, mem);
    if (spareReader && first) spareReader.postMessage({ type: 'prefetch', url: new URL(first, location.href).href, prefix: firstPrefix(lay, mem, first) });
    // Read by the newer-publication check and by the copies' (siteCopies), one after the other.
    if (first) { askEarly('ledger/tree/checkpoint'); askEarly('ledger/tree/checkpoint'); }
    Promise.all(wanted.map(function (r) {
      return fetch(r[1], { cache: 'no-store', credentials: 'same-origin' }).then(function (res) {
        if (res.status === 404 || res.status === 410) { got.__absent[r[1]] = true; return; }
        if (!res.ok) throw new Error(r[1] + ': the server answered ' + res.status);
        return res.arrayBuffer().then(function (buf) { got[r[0]] = new Uint8Array(buf); });
      });
    })).then(function () {
      got.__initSent = initEarly(V, got, lay, mem);
      // A task each: a message to a worker is handed to it between the page's tasks, and the
      // page's start is no one task over 200 ms (docs/page.md#records-in-the-worker).
      setTimeout(function () {
        // The posts and their proofs are read while the ledger streams: the full check waits for
        // them before its verdict, and says so if they cannot be read (streamFiles).
        got.__postsIn = fetchPosts(V, got, mem && typeof mem === 'object' && !mem.rewritten ? mem.posts : null);
        got.__postsIn.catch(function () { /* said by the full check, which waits for them */ });
        setTimeout(function () {
          // The withheld list read here, in a task of its own (startWith's withheldList takes it).
          var w = got['withheld-json'];
          if (w && w.length) { try { got.__withheldRead = [w, V.parseWithheld(w)]; } catch (e) { got.__withheldRead = [w, { __error: String(e && e.message || e) }]; } }
          setTimeout(function () { startWith(got, null); }, 0);
        }, 0);
      }, 0);
    }, function (e) {
      startWith(got, 'This page reads its records from the site beside it, and could not (' + String(e && e.message || e) + ').');
    });
  }

  // The anchors' index the site holds, read once: the page takes it as read here (jsonBlock).
  function anchorsRead(V, got) {
    if (got.__read && got.__read['anchors-json']) return got.__read['anchors-json'];
    var ix = V.readSiteJSON(V.utf8Decode(got['anchors-json'] || new Uint8Array(0)));
    if (got['anchors-json'] && got['anchors-json'].length) got.__read = { 'anchors-json': ix };
    return ix;
  }
  /*
   * The reader's first message as a returning visit that resumes from the state this browser
   * remembers (`mem.tail`) will send it (readerInit), sent to the reader started with the page
   * (spareReader) as soon as the records are read, so that it reads the withheld list and that
   * state while the page starts. readerEarly holds it to the one the visit's plan makes and
   * sends that one instead when any of it differs. The message sent, or null.
   */
  function initEarly(V, got, lay, mem) {
    if (!spareReader || !mem || typeof mem !== 'object' || mem.rewritten || !mem.tail || !mem.tail.checkpoint ||
        Object.prototype.hasOwnProperty.call(lay, 'withheld_files') || !got['withheld-json'] || !got['withheld-json'].length) return null;
    try {
      var read = function (id) { var s = document.getElementById(id); return s ? V.readSiteJSON(V.utf8Decode(b64ToBytes(s.textContent))) : null; };
      var tz = read('tz-rules-json'), carried = carriedCopies(V).posts, ix = anchorsRead(V, got);
      var posts = Object.keys(carried).sort().map(function (d) { return { date: d, text: String(carried[d]) }; });
      var seqs = new Set();
      posts.forEach(function (p) { var m = / seq (0|[1-9][0-9]{0,15})$/.exec(p.text); if (m) seqs.add(m[1]); });
      (ix && Array.isArray(ix.posts) ? ix.posts : []).forEach(function (p) { if (p && Number.isSafeInteger(p.seq) && p.seq >= 0) seqs.add(String(p.seq)); });
      var watch = Array.from(seqs);
      if (typeof mem.head_seq === 'number') watch.push(String(mem.head_seq));
      var init = { type: 'init', withheld: got['withheld-json'], tzRules: tz && typeof tz === 'object' ? tz : null, posts: posts, watchSeqs: watch,
        checkpoint: mem.tail.checkpoint, lineGroups: false };
      spareReader.postMessage(init);
      return init;
    } catch (e) { return null; }
  }
  /*
   * Whether the first message sent (`a`) stands for the one the visit's plan makes (`b`): the same
   * list, state, tz rules and reading, every seq `b` keeps kept by `a` too, and the same posts —
   * or any, when the posts read from the site follow (`postsFollow`: they replace the init's,
   * streamFiles' postsStep) (readerEarly).
   */
  function sameInit(a, b, postsFollow) {
    if (!a || !b || a.withheld !== b.withheld || a.checkpoint !== b.checkpoint || a.lineGroups !== b.lineGroups) return false;
    var kept = new Set(a.watchSeqs);
    return JSON.stringify(a.tzRules) === JSON.stringify(b.tzRules) && b.watchSeqs.every(function (q) { return kept.has(q); }) &&
      (postsFollow || JSON.stringify(a.posts) === JSON.stringify(b.posts));
  }
  /*
   * Requests made before the check that reads them asks (requestEarly, start), each taken once by
   * the read of its path (fetchNow): only the order of the requests depends on them.
   */
  var early = new Map();
  function askEarly(path) {
    var p = fetch(path, { cache: 'no-store', credentials: 'same-origin' });
    p.catch(function () { /* said by the check that takes it */ });
    if (!early.has(path)) early.set(path, []);
    early.get(path).push(p);
  }
  function fetchNow(path) {
    var q = early.get(path);
    if (q && q.length) { var got = q.shift(); if (!q.length) early.delete(path); return got; }
    return fetch(path, { cache: 'no-store', credentials: 'same-origin' });
  }
  /*
   * The ledger file a full check that starts at once (#check-everything) reads first, asked for
   * as the page starts: the last remembered one when this browser remembers the state inside it,
   * else the first one it does not remember as full ("The monitor"). Its path, or null.
   */
  function firstFileEarly(lay, mem) {
    if (location.hash !== '#check-everything' || !Array.isArray(lay.files)) return null;
    var m = mem && typeof mem === 'object' && !mem.rewritten && Array.isArray(mem.files) ? mem.files : [];
    var k = m.length && mem.tail && mem.tail.checkpoint ? m.length - 1 : m.filter(function (f) { return f && f.full; }).length;
    var f = lay.files[k], latest = document.getElementById('ledger-latest');
    if (!f || typeof f.path !== 'string' || !LEDGER_FILE.test(f.path) || (m[k] && m[k].path !== f.path) || (k === lay.files.length - 1 && latest && latest.firstChild)) return null;
    return typeof URL === 'function' ? f.path : null;
  }
  // The bytes of `path` this browser re-derived on an earlier visit (its memory's tail), or 0.
  function firstPrefix(lay, mem, path) {
    var m = mem && Array.isArray(mem.files) ? mem.files[mem.files.length - 1] : null;
    return m && mem.tail && mem.tail.checkpoint && m.path === path && Number.isSafeInteger(m.bytes) ? m.bytes : 0;
  }
  /*
   * The worker a light page's reader runs in (lightReader): verify.js's own inline copy and the
   * reader's functions. Null when no worker can start.
   */
  var spareReader = null;
  function readerWorker() {
    var src = document.getElementById('verify-src'), source = src ? src.textContent : '';
    if (!source || typeof Worker !== 'function' || typeof Blob !== 'function') return null;
    var shim = '\n;var compactResult = ' + compactResult.toString() + ';\nvar fileFacts = ' + fileFacts.toString() + ';\nvar joinFacts = ' + joinFacts.toString() + ';\nvar factsDiffer = ' + factsDiffer.toString() + ';\nvar lightEngine = ' + lightEngine.toString() + ';\n' +
      'var fileSums = ' + fileSums.toString() + ';\nvar fileFetcher = ' + fileFetcher.toString() + ';\n' +
      'var storeAnswer = ' + storeAnswer.toString() + ';\nvar storeRows = ' + storeRows.toString() + ';\nvar treeLeaves = ' + treeLeaves.toString() + ';\nvar hexBytes = ' + hexBytes.toString() + ';\nvar HEX64 = ' + HEX64.toString() + ';\n' +
      'var handle = lightEngine(self.ExhibitVerify, compactResult, function (m) { self.postMessage(m); });\n' +
      'self.onmessage = function (e) { handle(e.data); };\n';
    try {
      var w = new Worker(URL.createObjectURL(new Blob([source, shim], { type: 'text/javascript' })));
      w.onerror = function (e) { if (e && e.preventDefault) e.preventDefault(); w.failed = true; };
      return w;
    } catch (e) { return null; }
  }

  /*
   * Such a page carries the newest POSTS_CARRIED posts only (src/build/render.rs
   * `carried_post_dates`); its full check reads every post the anchors' index names, and that
   * post's proof, from the site (docs/page.md#fetched-records), while the ledger streams (the
   * seqs to keep are the index's until the posts are read): `got.__posts` (date -> text, as
   * the build's block holds it: UTF-8 read with replacement) and `got.__anchorHeaders` (each
   * proof's first 65 bytes and length, as `decodeProofHeaders` gives them). The posts this
   * browser read on an earlier visit (`remembered`: rememberedPosts' record) are not fetched
   * again while the index spells them as read then (`got.__postsRemembered`: {count, last}).
   * Only names of the
   * posts' own form are fetched, a few at a time; a 404 or 410 is a post the site does not hold.
   */
  var POSTS_CARRIED = 64, POST_DATE = /^[0-9]{4}-[0-9]{2}-[0-9]{2}$/;
  // The posts this page carries and its proofs' headers, as read from its blocks (or empty).
  function carriedCopies(V) {
    var read = function (id) { var s = document.getElementById(id); return s ? b64ToBytes(s.textContent) : new Uint8Array(0); };
    var out = { posts: {}, headers: {} };
    try { var p = V.readSiteJSON(V.utf8Decode(read('anchor-posts-json'))); if (p && typeof p === 'object' && !Array.isArray(p)) out.posts = p; } catch (e) { /* none */ }
    try { decodeProofHeaders(read('proof-headers')).forEach(function (h) { if (h.kind === 'anchor') out.headers[h.name] = h; }); } catch (e) { /* none */ }
    return out;
  }
  /*
   * The remembered posts (postsFromMemory's `known`) less those the page carries in another form
   * than this browser read them (`carried`: carriedCopies'): a post the page carries is taken
   * from memory only when its copy is the text read then and its proof's header and length are
   * those read then (a proof upgraded since is read again), so that the copy is held to what was
   * read from the site (carriedPostsDiffer). Null when none is left.
   */
  function carriedAsRead(known, carried) {
    var drop = {};
    var mine = {};
    known.headers.forEach(function (x) { mine[x.name] = x; });
    Object.keys(known.posts).forEach(function (d) {
      if (!Object.prototype.hasOwnProperty.call(carried.posts, d)) return;
      var h = carried.headers[d + '.txt.ots'], k = mine[d + '.txt.ots'];
      if (String(carried.posts[d]) !== known.posts[d] || !h || !k || h.length !== k.length || bytesHex(h.header) !== bytesHex(k.header)) drop[d] = true;
    });
    var dates = Object.keys(known.posts).filter(function (d) { return !drop[d]; }).sort();
    if (!dates.length) return null;
    var out = { posts: {}, headers: known.headers.filter(function (x) { return !drop[x.name.replace(/\.txt\.ots$/, '')]; }), count: dates.length, last: dates[dates.length - 1],
      carried: dates.filter(function (d) { return Object.prototype.hasOwnProperty.call(carried.posts, d); }).length };
    dates.forEach(function (d) { out.posts[d] = known.posts[d]; });
    return out;
  }
  function fetchPosts(V, got, remembered) {
    var dates = [], seen = {}, known = null;
    try {
      var ix = anchorsRead(V, got);
      known = postsFromMemory(V, ix, remembered);
      (ix && Array.isArray(ix.posts) ? ix.posts : []).forEach(function (p) {
        var d = p && p.date;
        if (typeof d === 'string' && POST_DATE.test(d) && !seen[d]) { seen[d] = true; dates.push(d); }
      });
    } catch (e) { dates = []; known = null; } // an index that cannot be read fails the check on its own
    var posts = {}, headers = [], k = 0, lossy = new TextDecoder('utf-8');
    if (known) known = carriedAsRead(known, carriedCopies(V));
    if (known) {
      dates = dates.filter(function (d) { return !Object.prototype.hasOwnProperty.call(known.posts, d); });
      Object.keys(known.posts).forEach(function (d) { posts[d] = known.posts[d]; });
      headers = known.headers.slice();
      got.__postsRemembered = { count: known.count, last: known.last, carried: known.carried };
    }
    dates.sort();
    // None read on this visit: every post from memory, which the next visit remembers as it is.
    got.__postsRead = dates.length;
    function file(path) {
      return fetch(path, { cache: 'no-store', credentials: 'same-origin' }).then(function (res) {
        if (res.status === 404 || res.status === 410) return null;
        if (!res.ok) throw new Error(path + ': the server answered ' + res.status);
        return res.arrayBuffer().then(function (buf) { return new Uint8Array(buf); });
      });
    }
    // A proof is read for its first 65 bytes and its length only (what the page carries of the
    // newest, decodeProofHeaders): a byte range where the host gives one (GitHub Pages does,
    // `exhibit serve` does); a host without ranges answers 200 with the whole file, which is
    // used as it is. Any other answer (a range this page did not ask for, an encoded body, a
    // failed read) and the whole file is read again: a host's quirk costs bytes, never a verdict.
    function proofHeader(path) {
      function of(b) { return b && { length: b.length, header: b.slice(0, 65) }; }
      function whole() { return file(path).then(of); }
      return fetch(path, { cache: 'no-store', credentials: 'same-origin', headers: { Range: 'bytes=0-64' } }).then(function (res) {
        if (res.status === 404 || res.status === 410) return null;
        var range = res.headers.get('Content-Range') || '', coded = res.headers.get('Content-Encoding');
        if (res.status === 416 && /^bytes \*\/0$/.test(range) && !coded) return { length: 0, header: new Uint8Array(0) };
        if (res.status === 200) return res.arrayBuffer().then(function (buf) { return of(new Uint8Array(buf)); });
        if (res.status !== 206 || (coded && coded !== 'identity')) return whole();
        var m = /^bytes 0-([0-9]+)\/([0-9]+)$/.exec(range);
        return res.arrayBuffer().then(function (buf) {
          var b = new Uint8Array(buf), total = m ? Number(m[2]) : NaN, last = m ? Number(m[1]) : NaN;
          if (!m || !(total > 0) || last !== Math.min(total, 65) - 1 || b.length !== last + 1) return whole();
          return { length: total, header: b };
        });
      }, whole);
    }
    function next() {
      if (k >= dates.length) return null;
      var d = dates[k++], base = 'ledger/anchors/' + d + '.txt';
      return Promise.all([file(base), proofHeader(base + '.ots')]).then(function (r) {
        if (r[0]) posts[d] = lossy.decode(r[0]);
        if (r[1]) headers.push({ kind: 'anchor', name: d + '.txt.ots', length: r[1].length, header: r[1].header });
        return next();
      });
    }
    var workers = [];
    for (var i = 0; i < 8; i++) workers.push(next());
    return Promise.all(workers).then(function () {
      headers.sort(function (a, b) { return a.name < b.name ? -1 : a.name > b.name ? 1 : 0; });
      got.__posts = posts;
      got.__anchorHeaders = headers;
    });
  }

  // `fetched`: the records read from the site by id, for a page that does not carry them;
  // `fetchFailed`: why they could not be read, in words (then no verdict).
  function startWith(fetched, fetchFailed, recordsDeferred) {
    var V = self.ExhibitVerify;
    var t0 = 0, tStart = performance.now();
    var $ = function (id) { return document.getElementById(id); };

    // Element helper: el('p', {class: 'x'}, 'text', child, ...). Strings become text nodes.
    function el(tag, attrs) {
      var e = document.createElement(tag);
      if (attrs) for (var k in attrs) {
        if (attrs[k] === null || attrs[k] === undefined) continue;
        if (k === 'class') e.className = attrs[k];
        else if (k === 'text') e.textContent = attrs[k];
        else e.setAttribute(k, attrs[k]);
      }
      for (var i = 2; i < arguments.length; i++) append(e, arguments[i]);
      return e;
    }
    function append(e, c) {
      if (c === null || c === undefined || c === false) return;
      if (Array.isArray(c)) { c.forEach(function (x) { append(e, x); }); return; }
      e.appendChild(typeof c === 'object' ? c : document.createTextNode(String(c)));
    }
    function clear(e) { while (e.firstChild) e.removeChild(e.firstChild); return e; }

    function block(id) {
      if (fetched && Object.prototype.hasOwnProperty.call(fetched, id)) return fetched[id];
      var s = $(id);
      if (!s) return null;
      // A block that is not base64 stops the check (docs/page.md "No input without a verdict"),
      // as `exhibit verify SITE` counts page_block_unreadable.
      try { return b64ToBytes(s.textContent); } catch (e) { throw new Error('its data block ' + id + ' is ' + errorWords(e)); }
    }
    function jsonBlock(id) {
      if (fetched && fetched.__read && Object.prototype.hasOwnProperty.call(fetched.__read, id)) return fetched.__read[id];
      var b = block(id);
      if (!b || !b.length) return null;
      var text = V.utf8Decode(b);
      if (typeof text !== 'string') return { __error: 'its bytes are not UTF-8' };
      try { return V.readSiteJSON(text); } catch (e) { return { __error: String(e) }; }
    }
    function obj(x) { return x && typeof x === 'object' && !x.__error ? x : null; }
    function withheldList(bytes) {
      if (!bytes) return null;
      if (fetched && fetched.__withheldRead && fetched.__withheldRead[0] === bytes) return fetched.__withheldRead[1];
      try { return V.parseWithheld(bytes); } catch (e) { return { __error: String(e && e.message || e) }; }
    }

    // A digest shown short; a click shows it whole and selects it. It is not a tab stop: the
    // places a reader copies a digest from (a match, a released text) carry a Copy button.
    function digest(hex, label) {
      if (typeof hex !== 'string' || !hex) return el('span', { class: 'muted' }, '—');
      return el('code', digestAttrs(hex, label), shortHex(hex));
    }
    // What a short digest's element carries (digest, and digestHtml's markup of the same).
    function digestAttrs(hex, label) { return { class: 'digest', title: (label ? label + ' ' : '') + hex, 'data-full': hex }; }
    function shortHex(hex) { return hex.length > 16 ? hex.slice(0, 12) + '…' : hex; }
    // A digest in full with a button that copies it.
    function fullDigest(hex, label) {
      return el('span', { class: 'fulldigest' }, el('code', { class: 'full' }, hex), ' ', copyButton(hex, 'Copy' + (label ? ' ' + label : '')));
    }
    function copyButton(text, label) {
      var b = el('button', { type: 'button', class: 'copy', 'aria-label': label || 'Copy' }, 'Copy');
      b.addEventListener('click', function () { copyNow(b, text); });
      return b;
    }
    function copyNow(b, text) {
      var done = function () { b.textContent = 'Copied'; setTimeout(function () { b.textContent = 'Copy'; }, 1500); };
      try {
        if (navigator.clipboard && navigator.clipboard.writeText) { navigator.clipboard.writeText(text).then(done, function () { selectText(b.previousSibling); }); return; }
      } catch (e) { /* fall through */ }
      selectText(b.previousSibling);
    }
    function selectText(node) {
      try {
        var range = document.createRange(); range.selectNodeContents(node);
        var sel = window.getSelection(); sel.removeAllRanges(); sel.addRange(range);
      } catch (e) { /* selection is a convenience */ }
    }
    document.addEventListener('click', function (ev) { toggleDigest(ev.target); });
    function toggleDigest(t) {
      if (!t || !t.classList || !t.classList.contains('digest')) return;
      var full = t.getAttribute('data-full');
      if (t.classList.toggle('open')) {
        t.textContent = full;
        try {
          var range = document.createRange(); range.selectNodeContents(t);
          var sel = window.getSelection(); sel.removeAllRanges(); sel.addRange(range);
        } catch (e) { /* selection is a convenience */ }
        try { if (navigator.clipboard) navigator.clipboard.writeText(full).catch(function () {}); } catch (e) { /* ok */ }
      } else t.textContent = full.length > 16 ? full.slice(0, 12) + '…' : full;
    }
    function countOf(c) {
      if (!c || typeof c !== 'object' || c.count === undefined) return null;
      return c.of === undefined ? String(c.count) : c.count + ' of ' + c.of;
    }
    // A value from the lab's JSON as plain words: never raw JSON, never "undefined".
    function plain(v) {
      if (v === null || v === undefined) return '—';
      if (Array.isArray(v)) return v.length ? v.map(plain).join(', ') : 'none';
      if (typeof v === 'object') {
        var c = countOf(v);
        if (c) return c;
        return Object.keys(v).map(function (k) { return words(k) + ' ' + plain(v[k]); }).join('; ');
      }
      return String(v);
    }
    function words(k) { return String(k).replace(/_/g, ' '); }
    function countsList(o, depth) {
      var dl = el('dl', { class: 'counts' });
      if (!o || typeof o !== 'object') return dl;
      Object.keys(o).forEach(function (k) {
        var v = o[k], shown;
        if (Array.isArray(v)) shown = v.length ? v.length + ' listed' : 'none listed';
        else if (v && typeof v === 'object') shown = countOf(v) || ((depth || 0) < 2 ? countsList(v, (depth || 0) + 1) : plain(v));
        else shown = v === null ? '—' : typeof v === 'boolean' ? (v ? 'yes' : 'no') : String(v);
        append(dl, [el('dt', null, words(k)), el('dd', null, shown)]);
      });
      return dl;
    }
    function link(href, text) { return el('a', { href: href }, text); }

    // ---- the data
    // A light page (docs/page.md "The light page") carries the list of the ledger's files, the
    // header line and the last file; an embedded one carries the whole ledger.
    var layout = obj(jsonBlock('layout-json')) || { mode: 'embedded' };
    var light = layout.mode === 'light';
    var ledgerBytes = (light ? block('ledger-header') : block('ledger-bytes')) || new Uint8Array(0);
    // The withheld list is read from its bytes by the verifier's own JSON reader (never
    // JSON.parse, which rounds a seq past 2^53 and merges a key written twice); the verifier is
    // handed the same bytes. The tz rules are the anchor zone's, from the binary's tz database.
    var withheldBytes = block('withheld-json');
    if (withheldBytes && !withheldBytes.length) withheldBytes = null;
    var withheldRaw = withheldList(withheldBytes);
    var withheld = Array.isArray(withheldRaw) ? withheldRaw : [];
    // A withheld list in several files is not embedded: a light page reads its files, listed
    // in `layout-json`, before the ledger's (docs/scale.md#withheld-files).
    var withheldFiles = light ? withheldFileList(layout) : null;
    var withheldReady = false;
    var tzRules = obj(jsonBlock('tz-rules-json'));
    // Every page exhibit builds carries its days' rules (zone null for a zone its tz database
    // does not know); without the block the browser's own data would decide the days
    // (`exhibit verify SITE`: page_copy_mismatch).
    var tzRulesMissing = jsonBlock('tz-rules-json') === null;
    // Carried but not rules it can read (not JSON, not UTF-8, not an object): the same failure
    // in words, as `exhibit verify SITE` gives it.
    var tzRulesUnread = !tzRulesMissing && !tzRules;
    var statsRead = jsonBlock('stats-json');
    var stats = obj(statsRead) || {};
    // A STATS.json the page carries but cannot read as one object compares no figure: a
    // failure, as in `exhibit verify SITE` (stats_unreadable).
    var statsUnreadable = statsRead !== null && !(obj(statsRead) && !Array.isArray(statsRead));
    var anchorsIndex = obj(jsonBlock('anchors-json')) || {};
    var postsCarried = obj(jsonBlock('anchor-posts-json')) || {};
    // A page that reads its records from the site reads every post there too (fetchPosts),
    // while its full check streams the ledger: until they are read (`postsIn`, takePosts), the
    // posts are those it carries.
    var postsIn = fetched && fetched.__postsIn ? fetched.__postsIn : null;
    var postsRaw = fetched && fetched.__posts ? fetched.__posts : postsCarried;
    var witness = obj(jsonBlock('witness-json'));
    var publicTexts = obj(jsonBlock('public-texts-json'));
    // A light page carries the texts' summary only (docs/page.md "Released texts on a light
    // page"): each text is fetched by its digest, and re-hashed, when a paste finds its line.
    var textsCarried = !!(publicTexts && obj(publicTexts.texts));
    var snapshotsText = (function () { var b = block('snapshots-jsonl'); return b ? V.utf8Decode(b) : ''; })();
    var posts = Object.keys(postsRaw).sort().map(function (d) { return { date: d, text: String(postsRaw[d]) }; });
    var wIndex = witness && obj(witness.index) && obj(witness.index.entries) ? witness.index.entries : null;
    var proofHeadersCarried = (function () {
      var b = block('proof-headers') || new Uint8Array(0);
      try { return decodeProofHeaders(b); } catch (e) { return { __error: String(e) }; }
    })();
    var proofHeaders = !(fetched && fetched.__anchorHeaders) || !Array.isArray(proofHeadersCarried) ? proofHeadersCarried
      : proofHeadersCarried.filter(function (h) { return h.kind !== 'anchor'; }).concat(fetched.__anchorHeaders);
    // The tree's checkpoint the page carries (docs/tree.md#checkpoint; none on a page of an
    // exhibit built before the tree), and STATS.json's statement of the tree.
    var treeBlock = block('tree-checkpoint');
    if (treeBlock && !treeBlock.length) treeBlock = null;
    var statsTree = stats.tree !== undefined ? stats.tree : null;
    var snapshotsBytes = block('snapshots-jsonl') || new Uint8Array(0);
    var state = { result: null, anchors: null, cov: null, bySeq: new Map(), byDigest: new Map(), store: null, treeEarly: null, asked: new Set(), progress: null, ready: false, queued: null, tree: null,
      textsBad: [], textsStray: [], proofs: { anchor: {}, witnessBad: [], witnessOk: 0, witnessAll: 0 } };

    // ---- who: the header's own sentence, verbatim (read now for the first screen; the
    // re-derivation confirms it is line 1's)
    function showCertifies(text, confirmed) {
      var q = $('certifies');
      if (!q) return;
      if (typeof text !== 'string' || !text) { q.textContent = 'The ledger\'s header carries no certifies sentence.'; q.classList.add('muted'); return; }
      q.textContent = text;
      if (confirmed) q.setAttribute('data-confirmed', '1');
    }
    (function () {
      var nl = ledgerBytes.indexOf(10);
      try { var h = JSON.parse(V.utf8Decode(ledgerBytes.subarray(0, nl < 0 ? ledgerBytes.length : nl))); showCertifies(h && h.certifies, false); }
      catch (e) { showCertifies(null, false); }
    })();

    // ---- the proofs' headers, checked here against their names
    function checkProofs() {
      var P = state.proofs;
      if (proofHeaders && proofHeaders.__error) {
        P.error = proofHeaders.__error;
        return;
      }
      var textSha = {};
      state.anchors.forEach(function (a) { textSha[a.date] = a.text_sha256; });
      proofHeaders.forEach(function (h) {
        if (h.kind === 'anchor') {
          var date = h.name.replace(/\.txt\.ots$/, '');
          var exp = textSha[date];
          P.anchor[date] = { problem: exp ? checkProofHeader(h.header, exp) : 'no_post', length: h.length };
        } else {
          // <entry_id>.ots commits to the entry_id; prereg_<sha256>.ots to the sealed
          // preregistration's sha256 (docs/protocol.md#witness)
          var m = h.kind === 'witness' ? [null, h.name] : /^prereg_([0-9a-f]{64})\.ots$/.exec(h.name);
          P.witnessAll++;
          var pr = m ? checkProofHeader(h.header, m[1]) : 'bad_name';
          if (pr === 'ok') P.witnessOk++; else P.witnessBad.push({ name: h.name, problem: pr });
          if (m && h.kind !== 'witness') P.prereg = m[1];
        }
      });
    }
    function checkPrereg() {
      var P = state.proofs;
      if (!P.prereg || !witness || typeof witness.prereg_md !== 'string' || !witness.prereg_md) return;
      P.preregBad = V.sha256Hex(V.utf8Encode(witness.prereg_md)) !== P.prereg;
    }
    /** 'ok', 'missing' (no proof carried for this post) or 'bad' (its header fails here). */
    // A proof that fails its header check, in this browser or by the publisher's word (withheld).
    function proofFails(a) { var p = anchorProof(a); return p === 'bad' || p === 'withheld'; }
    function anchorProof(a) {
      var p = state.proofs.anchor[a.date];
      if (!p) return withheldProof(a.date) ? 'withheld' : 'missing';
      return p.problem === 'ok' ? 'ok' : p.problem === 'no_post' ? 'missing' : 'bad';
    }

    /**
     * The publisher's statement that it withheld a date's proof because its header check failed
     * (anchors/index.json: `proof_file` null, `checks.proof_header` a problem code; the build
     * publishes no failing proof, docs/build.md#safety). Returns the code, or null. Such a day is
     * a failure, never "not yet stamped" (docs/page.md "A withheld proof").
     */
    var withheldProofs = null; // date -> code, read once from the index (asked for every post)
    function withheldProof(date) {
      if (!withheldProofs) {
        withheldProofs = new Map();
        (Array.isArray(anchorsIndex.posts) ? anchorsIndex.posts : []).forEach(function (p) {
          if (!p || p.proof_file || withheldProofs.has(p.date)) return;
          var h = p.checks && p.checks.proof_header;
          if (typeof h === 'string' && h !== 'ok' && h !== 'missing') withheldProofs.set(p.date, h);
        });
      }
      return withheldProofs.has(date) ? withheldProofs.get(date) : null;
    }
    function withheldProofWords(date, code) {
      return 'the publisher withheld the Bitcoin proof of the post for ' + date + ': its header did not commit to the post (' +
        (PROOF_PROBLEM_WORDS[code] ? 'the proof ' + PROOF_PROBLEM_WORDS[code] : code) + '), so no one can check that day\'s time';
    }

    // ---- the verdict
    var verdict = $('verdict');
    function status(text) { var s = $('status'); if (s) s.textContent = text; }
    // A failed verdict is announced at once (role=alert), not when the reader pauses.
    function statusFailed(words) {
      var s = $('status');
      if (!s) return;
      s.setAttribute('role', 'alert');
      s.setAttribute('aria-live', 'assertive');
      s.textContent = 'Verdict: failed. ' + words;
    }
    // A light page's full check: the ledger's bytes checked and the tree's read and hashed.
    function showProgress() { var p = state.progress; setProgress(p.ledger + p.tree, p.total); }
    function setProgress(done, total) {
      var p = $('progress');
      // Never full before the verdict, which removes the bar: an estimate may fall short.
      if (p) { p.max = total || 1; p.value = Math.min(done, Math.floor(0.99 * (total || 1))); }
      var s = $('verdict-text');
      if (s && verdict.getAttribute('data-state') === 'working') {
        s.textContent = 'Re-deriving the ledger in your browser… ' + (total ? Math.min(99, Math.floor(100 * done / total)) + '% of ' + total.toLocaleString('en') + ' bytes' : '');
      }
    }

    function run() {
      // A layout block that is neither page's (docs/page.md "The light page"): the page would
      // take itself for an embedded one and check the wrong thing; `exhibit verify SITE` fails it
      // too (page_layout_mismatch). No block at all is an embedded page, as before.
      var layoutMode = obj(jsonBlock('layout-json'));
      if (block('layout-json') !== null && !(layoutMode && (layoutMode.mode === 'embedded' || layoutMode.mode === 'light'))) {
        fail('its data block layout-json is not {"mode":"embedded"} nor a light page\'s list of files');
        return;
      }
      if (light) {
        // A light page's default check is the checkpoint's, in log size (docs/page.md "The
        // log-size path"); the full re-derivation when asked (`#check-everything`, or the
        // button), from a file (file://: the folder picked), or on a site with no tree.
        if (treeBlock && !fetchFailed && location.protocol !== 'file:' && location.hash !== '#check-everything') runLog();
        // In a task of its own: the page's start is no one task over 200 ms (docs/page.md#records-in-the-worker).
        else { state.full = true; state.mode = 'full'; setTimeout(function () { runLight(); }, 0); }
        return;
      }
      t0 = performance.now();
      // The files this page links beside it, read while the chain re-derives (docs/page.md
      // "The files beside the page"); the headline waits for both.
      state.besidePromise = besideCheck();
      setProgress(0, ledgerBytes.length);
      var source = $('verify-src') ? $('verify-src').textContent : '';
      var worker = null;
      if (source && typeof Worker === 'function' && typeof Blob === 'function') {
        var shim = '\n;var compactResult = ' + compactResult.toString() + ';\n' +
          'self.onmessage = function (e) { var d = e.data; try {' +
          ' var w0 = performance.now(); var r = self.ExhibitVerify.verifyLedger(new Uint8Array(d.bytes), d.withheld, function (n, b) { self.postMessage({ type: "progress", bytes: b }); }, d.tzRules);' +
          // The chain's answer first (a few fields), the tables' data after.
          ' self.postMessage({ type: "verdict", ok: r.ok, head: r.head, entries: r.entries, problems: r.problems.length, ms: performance.now() - w0 });' +
          ' var a = self.ExhibitVerify.checkAnchors(r, d.withheld, d.posts); var c = compactResult(r); c.unposted = self.ExhibitVerify.datesWithoutPost(r, d.posts); c.certifies = r.header && typeof r.header.certifies === "string" ? r.header.certifies : null;' +
          ' self.postMessage({ type: "done", result: c, anchors: a, ms: performance.now() - w0 });' +
          ' } catch (err) { self.postMessage({ type: "error", message: String(err && err.message || err) }); } };\n';
        try {
          var url = URL.createObjectURL(new Blob([source, shim], { type: 'text/javascript' }));
          worker = new Worker(url);
        } catch (e) { worker = null; }
      }
      if (worker) {
        var settled = false;
        worker.onmessage = function (e) {
          var m = e.data;
          if (m.type === 'progress') setProgress(m.bytes, ledgerBytes.length);
          else if (m.type === 'verdict') earlyVerdict(m);
          else if (m.type === 'done') { settled = true; worker.terminate(); verdict.setAttribute('data-ms-worker', String(Math.round(m.ms))); finish(m.result, m.anchors, 'a Web Worker'); }
          else if (m.type === 'error') { settled = true; worker.terminate(); fail(m.message); }
        };
        worker.onerror = function (e) {
          if (settled) return;
          settled = true;
          if (e && e.preventDefault) e.preventDefault();
          onMainThread();
        };
        var copy = ledgerBytes.slice();
        worker.postMessage({ bytes: copy.buffer, withheld: withheldBytes, posts: posts, tzRules: tzRules }, [copy.buffer]);
      } else onMainThread();
    }

    // ---- the light page (docs/page.md "The light page"): the ledger's files, read one by one
    // What a visit that took posts from this browser's memory (fetchPosts) did not re-check.
    function postsRememberedWords() {
      var R = state.postsRemembered;
      return 'NOT fetched again: the posts of ' + R.count.toLocaleString('en') + ' day' + (R.count === 1 ? '' : 's') + ' up to ' + R.last +
        ' and their proofs\' headers, which this browser read on an earlier visit' + (R.carried ? ' (the ' + R.carried + ' of them this page carries among them: its copies are the posts and headers read then)' : '') +
        '. Today\'s ledger/anchors/index.json names each of them exactly as it was read then (date, head and seq), so each was checked again against the chain as read then; their files on the site were not re-read on this visit (Forget, below the verdict, and Check everything reads them all).';
    }
    function resumedWords() {
      var R = state.resumedIn, kept = state.resumeFrom || 0;
      return 'The lines up to seq ' + state.result.resumedToSeq + ' were re-derived by this browser on an earlier visit, not on this one: ' +
        (kept ? 'those in the remembered full files, which the list this page carries names with the same sha256, were not fetched again, so their bytes on the site were not re-checked on this visit' + (R ? '; ' : '') : '') +
        (R ? 'those in the first ' + R.bytes.toLocaleString('en') + ' bytes of ' + R.path + ' were fetched and are the bytes re-derived then (the same sha256)' : '') +
        '. They are not listed here, and a pasted message is looked for only among the lines read on this visit. Forget what this browser remembers (below the verdict) and reload to read everything.';
    }
    // The seq a post's text names (decimal digits), or null.
    function postSeq(p) { var m = / seq (0|[1-9][0-9]{0,15})$/.exec(String(p.text)); return m ? m[1] : null; }
    // The seqs whose lines' entry_ids the reader keeps for the posts' checks: the posts'; while
    // they are being read, also every seq the anchors' index names (the publisher's word, only
    // which seqs to keep: a post naming another is caught up when it arrives, streamFiles).
    var postSeqs = posts.map(postSeq).filter(Boolean);
    if (postsIn) {
      var named = new Set(postSeqs);
      (Array.isArray(anchorsIndex.posts) ? anchorsIndex.posts : []).forEach(function (p) {
        if (p && Number.isSafeInteger(p.seq) && p.seq >= 0) named.add(String(p.seq));
      });
      postSeqs = Array.from(named);
    }
    /*
     * The posts read from the site replace those the page carries, once (postsIn resolved): the
     * posts, their seqs and the proofs' headers. Returns the first difference between the
     * newest of them and the page's copies in words, or null (carriedPostsDiffer).
     */
    function takePosts() {
      if (!state.postsTaken) {
        state.postsTaken = true;
        postsRaw = fetched.__posts;
        posts = Object.keys(postsRaw).sort().map(function (d) { return { date: d, text: String(postsRaw[d]) }; });
        postSeqs = posts.map(postSeq).filter(Boolean);
        if (Array.isArray(proofHeadersCarried)) proofHeaders = proofHeadersCarried.filter(function (h) { return h.kind !== 'anchor'; }).concat(fetched.__anchorHeaders);
        state.postsRemembered = fetched.__postsRemembered || null;
        // Drawn again only when these posts are not the ones drawn (read before the page started).
        if (state.daysOf !== postsRaw) renderDays();
        var days = $('stream-days');
        if (state.postsRemembered && days && days.parentNode && !$('posts-remembered')) {
          days.parentNode.insertBefore(el('p', { id: 'posts-remembered', 'data-count': String(state.postsRemembered.count) }, postsRememberedWords()), days);
        }
      }
      return carriedPostsDiffer();
    }
    var lightRun = null; // {files, plan, mem, acc, ...}: the run in progress
    function fileItem(i) { return document.querySelector('#stream-files li[data-index="' + i + '"]'); }
    // Each post's item in #stream-days by date (renderDays): a day is marked without a search
    // through the list (1,833 days at 100,000 lines, all marked at once when the posts arrive).
    var dayItems = new Map();
    function dayItem(date) { return dayItems.get(String(date)) || null; }
    function fileState(i, st, words) {
      var li = fileItem(i);
      if (!li) return;
      li.setAttribute('data-state', st);
      li.lastChild.textContent = words;
    }
    function renderStreamLists(files, from) {
      var ol = clear($('stream-files'));
      files.forEach(function (f, i) {
        ol.appendChild(el('li', { 'data-path': f.path, 'data-index': String(i), 'data-state': i < from ? 'remembered' : 'waiting' },
          el('code', null, f.path), ' (' + f.bytes.toLocaleString('en') + ' bytes' + (f.first_seq !== null && f.last_seq !== null ? ', seqs ' + f.first_seq + '–' + f.last_seq : '') + '): ',
          el('span', null, i < from ? 'listed with the sha256 this browser re-derived on an earlier visit: not fetched again, so not re-checked on this visit' : 'waiting')));
      });
      renderDays();
    }
    function renderDays() {
      state.daysOf = postsRaw;
      var days = clear($('stream-days')), all = document.createDocumentFragment();
      dayItems = new Map();
      posts.forEach(function (p) {
        var q = postSeq(p), li = el('li', { 'data-date': p.date, 'data-state': 'waiting' }, p.date + (q ? ' (seq ' + q + ')' : '') + ': ', el('span', null, 'waiting for the chain'));
        dayItems.set(String(p.date), li);
        all.appendChild(li);
      });
      days.appendChild(all);
    }
    function markDay(x) {
      var li = dayItem(x.date);
      if (!li) return;
      var ok = (x.head === 'ok' || x.head === 'lab_word') && x.clean;
      li.setAttribute('data-state', ok ? 'checked' : 'fails');
      li.lastChild.textContent = ok ? (x.head === 'ok' ? 'checked: the chain reaches seq ' + x.seq + ' and its line carries the posted head' : 'the chain reaches seq ' + x.seq + ', a withheld line: the posted head is the lab\'s digest for it')
        : !x.clean ? 'the chain has problems before seq ' + x.seq : 'FAILS: the line at seq ' + x.seq + ' does not carry the posted head';
    }

    // The reader's first message for `plan` (streamFiles): what it resumes from, the seqs to
    // keep (the posts' and the remembered head's), the withheld list; and that head's seq.
    function readerInit(plan, mem) {
      var headSeq = mem && !mem.rewritten && !plan.rewritten && typeof mem.head_seq === 'number' ? mem.head_seq : null;
      var watch = postSeqs.slice();
      if (headSeq !== null) watch.push(String(headSeq));
      return { type: 'init', withheld: withheldBytes, tzRules: tzRules, posts: posts, watchSeqs: watch, checkpoint: plan.checkpoint, lineGroups: !plan.checkpoint, headSeq: headSeq };
    }
    /*
     * A reader started before the checks that precede the ledger's files (requestEarly): the
     * worker starts and reads the withheld list and the remembered state while they run.
     * `take(onmsg)` hands its messages to streamFiles, those it said so far first.
     */
    function readerEarly(plan, mem) {
      var to = null, said = [], out = { plan: plan, broken: false };
      var init = readerInit(plan, mem);
      var rd = lightReader(function (m) { if (to) to(m); else said.push(m); });
      rd.onerror = function () { out.broken = true; };
      // The one sent to the page's first worker as the page started (initEarly) stands when it
      // says the same; another replaces it (the reader starts again from the init it is sent last).
      if (!(rd.spare && fetched && sameInit(fetched.__initSent, init, !!postsIn))) rd.post(init);
      out.rd = rd;
      out.take = function (onmsg) { to = onmsg; rd.onerror = null; said.forEach(onmsg); said = []; };
      return out;
    }
    // A worker running lightEngine over verify.js's own inline copy; on the main thread when no
    // worker starts. `onmsg(m)` gets its answers.
    function lightReader(onmsg, forceMain) {
      // The worker started with the page (readerWorker), once, unless it failed to start.
      var w = forceMain ? null : spareReader && !spareReader.failed ? spareReader : readerWorker(), spare = !!w && w === spareReader;
      if (spare) spareReader = null;
      if (w && !w.failed) {
        var rd = { where: 'a Web Worker', spare: spare, post: function (m, t) { w.postMessage(m, t || []); }, stop: function () { w.terminate(); } };
        w.onmessage = function (e) { onmsg(e.data); };
        w.onerror = function (e) { if (e && e.preventDefault) e.preventDefault(); if (rd.onerror) rd.onerror(); };
        return rd;
      }
      var h = lightEngine(V, compactResult, function (m) { setTimeout(function () { onmsg(m); }, 0); });
      return { where: 'the page itself', post: function (m) { setTimeout(function () { h(m); }, 0); }, stop: function () {} };
    }

    /*
     * The line records a light page's full check keeps in its reader (docs/page.md#records-in-the-worker):
     * `ask(op, args)` resolves to storeAnswer's answer; `settle(m)` takes the reader's 'answer'
     * (or an 'error' naming an ask: it rejects that ask; one naming none rejects every ask).
     */
    function lineStore(rd) {
      var next = 1, waiting = {};
      return {
        rd: rd,
        ask: function (op, args) {
          return new Promise(function (resolve, reject) {
            var id = next++, m = args || {};
            waiting[id] = [resolve, reject];
            m.type = 'ask'; m.id = id; m.op = op;
            rd.post(m);
          });
        },
        settle: function (m) {
          var ids = m.id === undefined ? Object.keys(waiting) : [m.id];
          ids.forEach(function (id) {
            var w = waiting[id];
            if (!w) return;
            delete waiting[id];
            if (m.type === 'answer') w[0](m.value); else w[1](new Error(m.message));
          });
        }
      };
    }
    // The bytes of the tree's files a full check reads after the ledger's (fullCheckEstimate).
    function treeBytesEstimate(files) {
      if (!treeBlock) return 0;
      var cp = T.parseCheckpoint(treeBlock);
      return cp.error ? 0 : fullCheckEstimate(files, null, cp.size).tree;
    }

    function needsData(why) {
      treeEarlyStop();
      noVerdict('Needs the ledger', why + ' No verdict: this page says only what it re-derived, and it has not read the ledger.',
        'No verdict: the page needs the ledger\'s files.');
      $('pick').hidden = false;
    }
    // No verdict without the records a page that does not carry them reads from the site.
    function needsRecords(why) {
      noVerdict('Needs the site', why + ' No verdict: this page says only what it re-derived, and it has read nothing.',
        'No verdict: the page needs the site\'s records.');
    }
    function noVerdict(badge, words, said) {
      verdict.setAttribute('data-state', 'needs-data');
      verdict.setAttribute('data-verdict', 'needs-data');
      verdict.setAttribute('data-head', '');
      $('badge').textContent = badge;
      clear($('verdict-text')).textContent = words;
      status(said);
    }

    // Computed once a seq for the list read (the monitor asks it for the same seq again).
    var withheldShas = { of: null, by: new Map() };
    function withheldShaUpTo(seq) {
      if (withheldShas.of !== withheld) withheldShas = { of: withheld, by: new Map() };
      if (withheldShas.by.has(seq)) return withheldShas.by.get(seq);
      var rows = withheld.filter(function (w) { return typeof w.seq === 'number' && w.seq <= seq; })
        .map(function (w) { return [w.seq, w.entry_id, w.day]; }).sort(function (a, b) { return a[0] - b[0]; });
      var sha = V.sha256Hex(V.utf8Encode(JSON.stringify(rows)));
      withheldShas.by.set(seq, sha);
      return sha;
    }

    // `picked`: the files of the folder a visitor picked, when the withheld list had to be read
    // from it before anything else (a page opened from file://).
    function runLight(picked) {
      t0 = performance.now();
      if (fetchFailed) { needsRecords(fetchFailed); return; }
      var files = ledgerFileList(layout);
      if (typeof files === 'string') { fail(files); return; }
      if (typeof withheldFiles === 'string') { fail(withheldFiles); return; }
      if (withheldFiles && !withheldReady) {
        // The withheld list first: the chain is bridged on it, and the monitor compares it.
        if (location.protocol === 'file:' && !picked) {
          renderStreamLists(files, 0);
          needsData('This page was opened from a file (file://), where a browser lets it read no file beside it.');
          $('pick-ledger').addEventListener('change', function () { runLight(this.files); }, { once: true });
          return;
        }
        var byPath = picked ? pickedByPath(picked) : null;
        loadWithheld(picked ? function (f) {
          if (!byPath[f.path]) return Promise.reject(new Error('the folder you picked lacks ' + f.path));
          return byPath[f.path].arrayBuffer();
        } : fetchFile).then(function () {
          withheldReady = true;
          runLight(picked);
        }, function (e) {
          if (e && e.bad) failLight([{ what: 'the withheld list\'s file ' + e.path + ' is not the one the page lists: ' + e.why, href: '#stream' }]);
          else if (e && (e.status === 404 || e.status === 410)) failLight([{ what: 'the withheld list\'s file ' + (e.path || 'listed') + ' is listed but the site does not hold it (' + String(e.message) + ')', href: '#stream' }]);
          else if (e && e.code === 'usage') fail(String(e.message));
          else {
            needsData('The page could not read the withheld list (' + String(e && e.message || e) + '), so it cannot re-derive the ledger. Pick the cloned ledger/ folder to re-derive it from there.');
            $('pick-ledger').addEventListener('change', function () { runLight(this.files); }, { once: true });
          }
        });
        return;
      }
      // After the newer-publication check below, the memory and plan of the call before it (the
      // reader started for that plan reads on: requestEarly).
      var again = state.lightPlan;
      state.lightPlan = null;
      var mem = again ? again.mem : monitorLoad();
      var plan = again ? again.plan : mem && !mem.rewritten ? compareMemory(mem, files, withheldShaUpTo, postSeqs, new Set(withheld.map(function (w) { return w.seq; })))
        : { rewritten: null, resumeFrom: 0, checkpoint: null, prefix: null };
      if (again) { /* said by the call before */ }
      else if (mem && mem.rewritten) { monitorShow('rewritten', mem.rewritten); state.monitorRewritten = mem.rewritten; }
      else if (plan.rewritten) {
        // Kept, with the memory, until the visitor forgets it: a split view must not be able to
        // silence the alarm by showing the old bytes once more.
        mem.rewritten = { file: plan.rewritten.file, why: plan.rewritten.why, seen: new Date().toISOString() };
        monitorSave(mem);
        monitorShow('rewritten', mem.rewritten);
        state.monitorRewritten = mem.rewritten;
      } else if (mem) monitorShow(plan.checkpoint ? 'resuming' : 'remembered', mem);
      if (!again) renderStreamLists(files, plan.resumeFrom);
      state.resumeFrom = plan.resumeFrom;
      if (!picked && location.protocol !== 'file:') requestEarly(files, plan, mem);
      // Over http, a site that moved on since this copy of the page was published (a cached
      // index.html beside a newer STATS.json and checkpoint) is a newer publication, never a
      // failure, when its tree extends the one this page carries (docs/page.md "A newer
      // publication").
      if (!picked && location.protocol !== 'file:' && treeBlock && !state.newerAsked) {
        state.newerAsked = true;
        state.lightPlan = { mem: mem, plan: plan };
        treeGet('checkpoint').then(newerPublication).then(function (n) {
          if (n) renderNewer(n); else setTimeout(function () { runLight(picked); }, 0);
        }, function () { runLight(picked); });
        return;
      }
      // After the monitor: a list that moved under a visitor's memory is said as a rewrite first.
      var statsDiffer = listNotStats(layout, stats);
      if (statsDiffer) { failLight([{ what: statsDiffer, href: '#stream' }]); return; }
      if (picked) { fromFolder(picked, files, plan, mem); return; }
      if (location.protocol === 'file:') {
        needsData('This page was opened from a file (file://), where a browser lets it read no file beside it.');
        $('pick-ledger').addEventListener('change', function () { fromFolder(this.files, files, plan, mem); });
        return;
      }
      var seen = recordsSeen(), getPath = function (path) { return fetchFile({ path: path }); };
      siteCopies(remembering(seen, getPath), files).then(function (bad) {
        if (bad) { failLight([{ what: bad, href: '#stream' }]); return; }
        return lookBeyond(files).then(function (beyond) {
          if (beyond) { failLight([{ what: beyond, href: '#stream' }]); return; }
          return snapshotCheck(seen, getPath, files, null).then(function (failures) {
            if (failures.length) { failLight(failures); return; }
            streamFiles(files, plan, mem, fetchFile, 'fetched from this site');
          });
        });
      }).then(null, function (err) {
        needsData('The page could not read the files it carries copies of, or those the last snapshot names (' + String(err && err.message || err) + '), so it cannot hold the site\'s files to them. Pick the cloned ledger/ folder to re-derive it from there.');
        $('pick-ledger').addEventListener('change', function () { fromFolder(this.files, files, plan, mem); });
      });
    }

    // The page's `ledger-header` against line 1 of ledger/ledger.jsonl as re-derived (`line`:
    // its bytes as latin1, or null when line 1 is no header, which fails the ledger anyway):
    // null when they are the same or there is nothing to compare, else the failure in words.
    function headerNotLine1(carried, files, line) {
      carried = carried || new Uint8Array(0); // a block removed reads as empty, as the CLI reads it
      if (typeof line !== 'string' || !files.length || files[0].path !== 'ledger/ledger.jsonl') return null;
      var same = carried.length === line.length + 1 && carried[line.length] === 10;
      for (var k = 0; same && k < line.length; k++) same = carried[k] === line.charCodeAt(k);
      return same ? null : 'the header line this page carries (ledger-header) is not line 1 of ledger/ledger.jsonl';
    }

    /*
     * The site's files this page carries copies of, each against its copy: ledger/STATS.json
     * (`stats-json`; `exhibit verify SITE` holds the site's files to its `ledger.files`, so a page
     * that took its own copy on trust would be green where the CLI says the site's list is not
     * its files), SNAPSHOTS.jsonl, anchors/index.json and, when it is one file, withheld.json.
     * The build embeds each as it writes it, so they are the same bytes; a file the site does not
     * hold reads as empty, as the CLI reads it (page_copy_mismatch). `get(path)` -> a Promise of
     * the file's bytes, rejected with `.status` 404/410 or `.absent` when there is none. Resolves
     * to null (every copy the same) or the first difference in words; rejects when a file could
     * not be read (docs/page.md "The light page").
     */
    function siteCopyList() {
      var copies = [['ledger/STATS.json', 'stats-json'], ['ledger/SNAPSHOTS.jsonl', 'snapshots-jsonl'], ['ledger/anchors/index.json', 'anchors-json']];
      if (!Object.prototype.hasOwnProperty.call(layout, 'withheld_files')) copies.push(['ledger/withheld.json', 'withheld-json']);
      // The tree's checkpoint (docs/tree.md#checkpoint), which every page carries since the tree
      // (`exhibit verify SITE`: page_copy_mismatch); a page and a site without one are the same.
      copies.push(['ledger/tree/checkpoint', 'tree-checkpoint']);
      // A record read from the site is the site's file: nothing to hold it to.
      return copies.filter(function (c) { return !(fetched && Object.prototype.hasOwnProperty.call(fetched, c[1])); });
    }
    function siteCopyPaths() { return siteCopyList().map(function (c) { return c[0]; }); }
    function siteCopies(get, files) {
      var segmented = files.some(function (f) { return f.path !== 'ledger/ledger.jsonl'; });
      var copies = siteCopyList();
      var k = 0;
      function nextCopy() {
        if (k >= copies.length) return carriedPostsDiffer() || textsIndexCheck(get);
        var path = copies[k][0], carried = block(copies[k][1]) || new Uint8Array(0);
        k++;
        // Each read settles as the bytes to compare, a file to skip, or a failure said.
        return Promise.resolve(path).then(get).then(function (buf) { return { bytes: new Uint8Array(buf) }; }, function (err) {
          if (err && (err.status === 404 || err.status === 410)) return { bytes: new Uint8Array(0) };
          // A picked folder without the file: nothing to compare it with, but a ledger in
          // segments is not read without the list of its files.
          if (err && err.absent) {
            return path === 'ledger/STATS.json' && segmented
              ? { fail: 'the site holds no ledger/STATS.json, which lists the files of a ledger in segments' } : { skip: true };
          }
          throw err;
        }).then(function (read) {
          if (read.fail) return read.fail;
          if (read.skip) return nextCopy();
          var got = read.bytes, gotSha = V.sha256Hex(got), carriedSha = V.sha256Hex(carried);
          if (got.length === carried.length && gotSha === carriedSha) return nextCopy();
          return 'the site\'s ' + path + ' is not the one this page carries (' + got.length + ' bytes with sha256 ' + gotSha +
            '; the page\'s: ' + carried.length + ' bytes with sha256 ' + carriedSha + ')';
        });
      }
      return Promise.resolve().then(nextCopy);
    }

    /*
     * A page that reads its posts from the site (fetchPosts) carries the newest of them, which
     * its log-size path reads: held here to the files read, as `exhibit verify SITE` holds them
     * (page_copy_mismatch). Null when they agree, else the first difference in words.
     */
    function carriedPostsDiffer() {
      if (!(fetched && fetched.__posts)) return null;
      var dates = Object.keys(fetched.__posts).sort(), want = dates.slice(Math.max(0, dates.length - POSTS_CARRIED));
      var have = Object.keys(postsCarried).sort();
      if (have.join(',') !== want.join(',')) return 'the posts this page carries (' + have.length + ') are not the newest ' + want.length + ' the site holds';
      for (var i = 0; i < want.length; i++) {
        if (String(postsCarried[want[i]]) !== fetched.__posts[want[i]]) return 'the site\'s ledger/anchors/' + want[i] + '.txt is not the post this page carries';
      }
      if (!Array.isArray(proofHeadersCarried)) return null; // said by the proofs' check
      var read = {};
      fetched.__anchorHeaders.forEach(function (h) { read[h.name] = h; });
      var carriedAnchors = proofHeadersCarried.filter(function (h) { return h.kind === 'anchor'; });
      for (var j = 0; j < carriedAnchors.length; j++) {
        var c = carriedAnchors[j], r = read[c.name];
        if (!r || r.length !== c.length || bytesHex(r.header) !== bytesHex(c.header)) return 'the site\'s ledger/anchors/' + c.name + ' is not the proof whose header this page carries';
      }
      var wantProofs = want.filter(function (d) { return read[d + '.txt.ots']; });
      if (wantProofs.length !== carriedAnchors.length) return 'the proofs\' headers this page carries are not those of the newest posts the site holds';
      return null;
    }

    /*
     * A light page's summary of ledger/public_texts/index.json (`public-texts-json`'s `index`:
     * the file's value without its per-line lists) held to the site's file, as `exhibit verify
     * SITE` holds it (`light_index` in src/build/render.rs; docs/page.md "The light page"). An
     * edited summary showed its counts under a green verdict. Resolves to null when they agree
     * (or there is no summary to hold), else the failure in words.
     */
    function textsIndexCheck(get) {
      var carried = jsonBlock('public-texts-json');
      if (carried === null) return Promise.resolve(null); // no layer: held by the snapshot's record
      if (carried.__error) return Promise.resolve('the page\'s data block public-texts-json cannot be read (' + carried.__error + ')');
      if (publicTexts && publicTexts.texts !== undefined) return Promise.resolve(null); // an embedded page's texts
      var summary = publicTexts ? publicTexts.index : undefined;
      var path = 'ledger/public_texts/index.json';
      return Promise.resolve(path).then(get).then(function (buf) {
        var v;
        try { v = V.readSiteJSON(V.utf8Decode(new Uint8Array(buf))); } catch (e) { return 'the site\'s ' + path + ' cannot be read (' + String(e && e.message || e) + ')'; }
        return canonicalJSON(lightIndexOf(v)) === canonicalJSON(summary) ? null
          : 'the site\'s ' + path + ' is not the one whose summary this page carries';
      }, function (err) {
        if (err && (err.status === 404 || err.status === 410 || err.absent)) return 'the site holds no ' + path + ', whose summary this page carries';
        throw err;
      });
    }
    // The file's value without its per-line lists, as `light_index` makes it.
    function lightIndexOf(v) {
      var plain = function (x) { return x && typeof x === 'object' && !Array.isArray(x); };
      if (!plain(v)) return v;
      var out = {};
      Object.keys(v).forEach(function (key) { if (key !== 'published' && key !== 'withheld' && key !== 'unreconstructable') out[key] = v[key]; });
      if (plain(out.off_allow_list)) {
        var off = {};
        Object.keys(out.off_allow_list).forEach(function (c) {
          var x = out.off_allow_list[c], y = x;
          if (plain(x)) { y = {}; Object.keys(x).forEach(function (key) { if (key !== 'seqs') y[key] = x[key]; }); }
          off[c] = y;
        });
        out.off_allow_list = off;
      }
      return out;
    }
    // A JSON value written with its keys sorted: two values are equal when these are.
    function canonicalJSON(v) {
      if (Array.isArray(v)) return '[' + v.map(canonicalJSON).join(',') + ']';
      if (v && typeof v === 'object') return '{' + Object.keys(v).sort().map(function (key) { return JSON.stringify(key) + ':' + canonicalJSON(v[key]); }).join(',') + '}';
      return JSON.stringify(v);
    }

    /*
     * The names that would extend the page's lists (docs/page.md "What the page cannot list"):
     * the next segment after the last listed file (ledger/segments/000001.jsonl after a ledger in
     * one file) and the next withheld part (ledger/withheld/000001.json when the list is one
     * file). `exhibit verify SITE` lists ledger/segments/ and ledger/withheld/ and fails any file
     * STATS.json does not list; over http a page cannot list a folder, but it can ask for these.
     */
    function namesBeyondList(files) {
      var next = function (path, dir, ext) {
        var m = new RegExp('^ledger/' + dir + '/([0-9]{6})\\.' + ext + '$').exec(path || '');
        return 'ledger/' + dir + '/' + String(1000000 + (m ? Number(m[1]) + 1 : 1)).slice(1) + '.' + ext;
      };
      var wf = Array.isArray(withheldFiles) ? withheldFiles : [];
      return [next(files.length ? files[files.length - 1].path : '', 'segments', 'jsonl'),
        next(wf.length ? wf[wf.length - 1].path : '', 'withheld', 'json')];
    }
    /*
     * Over http: each name beyond the lists asked for; resolves to null (404 or 410, as expected)
     * or the failure in words naming the file the site holds. Any other answer is said in the
     * verdict's detail as a name the page could not look for (state.beyond).
     */
    function lookBeyond(files) {
      var names = namesBeyondList(files), unseen = [];
      state.beyond = { looked: names, unseen: unseen, picked: false };
      return names.reduce(function (p, path) {
        return p.then(function (found) {
          if (found) return found;
          return fetchNow(path).then(function (res) {
            if (res.ok) return beyondWords(path, 'the site holds');
            if (res.status !== 404 && res.status !== 410) unseen.push(path + ' (the server answered ' + res.status + ')');
            return null;
          }, function (err) { unseen.push(path + ' (' + String(err && err.message || err) + ')'); return null; });
        });
      }, Promise.resolve(null));
    }
    function beyondWords(path, who) {
      return who + ' ' + path + ', which this page\'s list of files does not name: ' + (/\/segments\//.test(path)
        ? 'a stranger\'s cat ledger/ledger.jsonl ledger/segments/*.jsonl would take its lines into the published ledger'
        : 'the withheld list is read from the files the list names, and this one is not among them') + ' (exhibit verify SITE fails it too)';
    }
    /*
     * From a picked folder: every file under its segments/ and withheld/ that the lists do not
     * name, as `exhibit verify SITE` fails it (segment_stray, stats_file_unlisted,
     * withheld_file_stray). A file given without its relative path is not placed (Chromium and
     * Firefox give one). Returns the failure in words naming the first such file, or null.
     */
    function strayInFolder(list) {
      var named = {};
      (layout.files || []).concat(Array.isArray(withheldFiles) ? withheldFiles : []).forEach(function (f) { if (f && typeof f.path === 'string') named[f.path] = true; });
      state.beyond = { looked: [], unseen: [], picked: true };
      var stray = [];
      Array.prototype.forEach.call(list || [], function (f) {
        var rel = String(f.webkitRelativePath || '').split('/').slice(1);
        if (rel.length > 2 && rel[0] === 'ledger') rel = rel.slice(1);
        if (rel.length < 2 || (rel[0] !== 'segments' && rel[0] !== 'withheld')) return;
        var path = 'ledger/' + rel.join('/');
        if (rel.length > 2) path = 'ledger/' + rel[0] + '/' + rel[1] + '/';
        if (!named[path] && stray.indexOf(path) < 0) stray.push(path);
      });
      stray.sort();
      return stray.length ? beyondWords(stray[0], 'the folder you picked holds') + (stray.length > 1 ? '; and ' + (stray.length - 1) + ' more such name' + (stray.length > 2 ? 's' : '') + ' (' + stray.slice(1, 4).join(', ') + ')' : '') : null;
    }
    // What the verdict's detail says of the names beyond the lists (docs/page.md).
    function beyondCheckWords() {
      var b = state.beyond;
      if (!b) return null;
      if (b.picked) return 'Files beyond the list: every file in the picked folder\'s segments/ and withheld/ is one the page\'s list names.';
      return 'Files beyond the list: the site holds neither ' + b.looked.join(' nor ') + ' (the names that would come next)' +
        (b.unseen.length ? ', except that the page could not look for ' + b.unseen.join(', ') : '') +
        '. Over http this page cannot list a folder, so any other name in ledger/segments/ or ledger/withheld/ is not checked here: exhibit verify SITE lists them.';
    }

    /*
     * The files under ledger/ held to the digests of the last line of SNAPSHOTS.jsonl, as
     * `exhibit verify SITE` holds them (src/snapshot_check.rs; docs/page.md "The snapshot's
     * digests"). The SNAPSHOTS.jsonl read is the page's copy, which siteCopies has held to the
     * site's file. `seen`: 'ledger/<path>' -> the sha256 of the bytes siteCopies read, or null
     * when the site holds no such file. `get(path)` -> a Promise of a file's bytes, rejected with
     * `.status` 404/410 or `.absent` when there is none. `files`: the ledger's list (each file is
     * held to its sha256 as it streams: a listed digest is the digest of the bytes read).
     * `local`: the picked folder's files by 'ledger/<path inside it>', or null over http.
     * Resolves to the failures [{what, href}] (none when it holds); records in state.snapshot
     * what was held and what was not, for the verdict's detail.
     */
    function snapshotCheck(seen, get, files, local) {
      var recorded = seen['ledger/SNAPSHOTS.jsonl'] === null ? null : lastSnapshotDigests(snapshotsText);
      var fail = function (x) { return { what: (local ? 'the picked folder\'s ' : 'the site\'s ') + x.file + ' (' + x.code + '): ' + x.detail, href: '#stream' }; };
      if (!recorded) {
        state.snapshot = { missing: true };
        return Promise.resolve([fail({ file: 'ledger/SNAPSHOTS.jsonl', code: 'snapshot_missing',
          detail: seen['ledger/SNAPSHOTS.jsonl'] === null ? 'is missing: what the site\'s files should hold is unknown' : 'its last line is not a snapshot with a digests object' })]);
      }
      var known = {}, folders = { 'segments/': [], 'withheld/': [] }, hashes = [];
      Object.keys(seen).forEach(function (p) { if (seen[p] !== null) known[p] = seen[p]; });
      files.concat(withheldFiles || []).forEach(function (f) { known[f.path] = f.sha256; });
      // From a picked folder the page knows every file: those no list names are hashed here.
      var relative = !!local && Object.keys(local).length > 0;
      // The per-line proofs, in their folders (docs/witness.md#proof-folders), and the witness
      // index: held from a picked folder, which the page can list; over http it cannot.
      if (relative) folders['witness/'] = [];
      if (relative) Object.keys(local).forEach(function (p) {
        if (p === 'ledger/SNAPSHOTS.jsonl' || known[p] !== undefined) return;
        var rel = p.slice(7), slash = rel.indexOf('/');
        if (slash < 0 || folders[rel.slice(0, slash + 1)]) hashes.push(local[p].arrayBuffer().then(function (b) { known[p] = V.sha256Hex(new Uint8Array(b)); }));
      });
      // Every direct file the snapshot names is read, and every one an exhibit may hold (those
      // no list or copy covers: fetched; a 404 is a file the site does not hold).
      var asked = {};
      Object.keys(recorded).concat(DIRECT_FILES).forEach(function (k) {
        var p = 'ledger/' + k;
        if (asked[k] || k.indexOf('/') >= 0 || k === 'SNAPSHOTS.jsonl' || known[p] !== undefined || seen[p] === null) return;
        asked[k] = 1;
        hashes.push(Promise.resolve(p).then(get).then(function (b) { known[p] = V.sha256Hex(new Uint8Array(b)); }, function (e) {
          if (!(e && (e.status === 404 || e.status === 410 || e.absent))) throw e;
        }));
      });
      return Promise.all(hashes).then(function () {
        var derived = {};
        Object.keys(known).forEach(function (p) {
          var rel = p.slice(7), slash = rel.indexOf('/');
          if (p.slice(0, 7) !== 'ledger/' || rel === 'SNAPSHOTS.jsonl') return;
          if (slash < 0) derived[rel] = known[p];
          else if (folders[rel.slice(0, slash + 1)]) folders[rel.slice(0, slash + 1)].push({ path: rel.slice(slash + 1), sha256: known[p] });
        });
        Object.keys(folders).forEach(function (k) {
          if (folders[k].length) derived[k] = V.sha256Hex(V.utf8Encode(folderListing(folders[k])));
        });
        var notHeld = SNAPSHOT_FOLDERS.filter(function (k) { return !folders[k]; });
        var problems = snapshotDiffer(recorded, derived, function (k) { return notHeld.indexOf(k) < 0; });
        // A layer's block where the snapshot records the layer's folder, and only there: a page
        // without the block shows no layer (exhibit verify SITE: page_copy_mismatch).
        [['witness/', 'witness-json', witness], ['public_texts/', 'public-texts-json', publicTexts], ['tree/', 'tree-checkpoint', treeBlock]].forEach(function (l) {
          var inSite = Object.prototype.hasOwnProperty.call(recorded, l[0]);
          if (inSite !== !!l[2]) problems.push({ file: 'index.html', code: 'page_copy_mismatch', detail: inSite
            ? 'it carries no ' + l[1] + ' data block, but the last snapshot records ledger/' + l[0]
            : 'it carries the data block ' + l[1] + ', but the last snapshot records no ledger/' + l[0] });
        });
        state.snapshot = { held: Object.keys(recorded).filter(function (k) { return notHeld.indexOf(k) < 0; }).sort(),
          notHeld: notHeld.filter(function (k) { return Object.prototype.hasOwnProperty.call(recorded, k); }), local: relative };
        return problems.map(fail);
      });
    }

    // `get` that remembers in `seen` the sha256 of each file it read (null: the site has none).
    function remembering(seen, get) {
      return function (path) {
        return Promise.resolve(path).then(get).then(function (buf) { seen[path] = V.sha256Hex(new Uint8Array(buf)); return buf; }, function (e) {
          if (e && (e.status === 404 || e.status === 410 || e.absent)) seen[path] = null;
          throw e;
        });
      };
    }

    // What the verdict's detail says of the files beside the page (docs/page.md "The snapshot's digests").
    function snapshotWords() {
      var S = state.snapshot;
      if (!light || !S) {
        return 'The files beside this page (ledger/, its tree/ included): not checked here. This page reads none of them; it checks the copies it carries. ' +
          'exhibit verify SITE, run on a clone, holds every file under ledger/ to the digests of the last line of SNAPSHOTS.jsonl.';
      }
      var held = S.held.slice(), notHeld = S.notHeld.filter(function (k) { return k !== 'tree/'; });
      var tree = S.notHeld.indexOf('tree/') >= 0 || held.indexOf('tree/') >= 0;
      if (tree && S.treeHeld) { if (held.indexOf('tree/') < 0) held.push('tree/'); held.sort(); }
      else held = held.filter(function (k) { return k !== 'tree/'; });
      return 'Files under ledger/ against the digests of the last line of SNAPSHOTS.jsonl: ' + held.join(', ') + ' held here, and they match' +
        (S.treeHeld ? ' (tree/ from the sha256 of every tree file, read for the tree\'s check)' : '') + '. ' +
        (tree && !S.treeHeld ? 'Not checked here: the listing digest of ledger/tree/, which only the sha256 of every file in it gives: this page reads them all only when it checks every tree file (Check everything, on a chain that re-derives). ' : '') +
        (notHeld.length ? 'Not checked here: ' + notHeld.map(function (k) { return 'ledger/' + k; }).join(', ') + ' (this page does not read every file in them; exhibit verify SITE, run on a clone, does)' : '') +
        (S.local ? (notHeld.length ? '.' : '') : (notHeld.length ? '; nor' : 'Not checked here:') + ' whether the site holds a file directly under ledger/ that the snapshot does not name, other than ' + DIRECT_FILES.join(', ') + ' (which it asks for): a page cannot list a folder over http.');
    }

    /*
     * The records a page that does not carry them read from the site (start), as `seen` holds
     * what siteCopies reads: 'ledger/<path>' -> the sha256 of the bytes read, null when the site
     * holds no such file. The snapshot's digests are held to the bytes this visit used.
     */
    var recordsSha = null;
    function recordsSeen() {
      if (!recordsSha) {
        recordsSha = {};
        if (fetched) FETCHED_RECORDS.forEach(function (r) {
          if (!Object.prototype.hasOwnProperty.call(fetched, r[0])) return;
          recordsSha[r[1]] = fetched.__absent && fetched.__absent[r[1]] ? null : V.sha256Hex(fetched[r[0]]);
        });
      }
      return Object.assign({}, recordsSha);
    }
    /*
     * Over http the requests a full check makes one after another — the copies (siteCopies), the
     * names beyond the lists (lookBeyond), the files the snapshot names (snapshotCheck) and, for
     * a visit that resumes, the tiles of its log-size checks (treeStep) — are all made at once
     * when it starts, and each is taken by the check that asks for it (fetchNow): the checks and
     * their order are the same, only the waiting is not (docs/page.md#records-in-the-worker).
     * The reader is started, and asked for the first ledger file it will read (fileFetcher).
     */
    function requestEarly(files, plan, mem) {
      if (state.early) return;
      state.early = true;
      state.readerEarly = readerEarly(plan, mem);
      var latest = $('ledger-latest'), f = files[plan.resumeFrom];
      if (f && !(plan.resumeFrom === files.length - 1 && latest && latest.firstChild) && typeof URL === 'function') {
        state.readerEarly.rd.post({ type: 'prefetch', url: new URL(f.path, location.href).href, prefix: plan.prefix ? plan.prefix.bytes : 0 });
      }
      siteCopyPaths(files).forEach(function (p) { if (!early.has(p)) askEarly(p); });
      namesBeyondList(files).forEach(askEarly);
      var known = recordsSeen();
      files.concat(withheldFiles || []).forEach(function (f) { known[f.path] = true; });
      siteCopyPaths(files).forEach(function (p) { known[p] = true; });
      Object.keys(lastSnapshotDigests(snapshotsText) || {}).concat(DIRECT_FILES).forEach(function (k) {
        if (k.indexOf('/') < 0 && k !== 'SNAPSHOTS.jsonl' && known['ledger/' + k] === undefined) { known['ledger/' + k] = true; askEarly('ledger/' + k); }
      });
      if (plan.checkpoint && treeBlock) {
        var cp = T.parseCheckpoint(treeBlock), tm = treeMemLoad();
        if (!cp.error && cp.size) {
          var heads = postedHeads(posts).filter(function (h) { return h.seq >= 1 && h.seq <= cp.size; });
          var tiles = T.rootTiles(cp.size).concat(T.neededTiles(cp.size, cp.size - 1), heads.length ? T.neededTiles(cp.size, heads[heads.length - 1].seq - 1) : [],
            tm && !tm.rewritten && tm.size > 0 && tm.size <= cp.size ? T.consistencyTiles(tm.size, cp.size) : []);
          tiles.forEach(function (rel) { treeGet(rel).catch(function () { /* said by the check that reads it */ }); });
        }
      }
    }
    function fetchFile(f) {
      return fetchNow(f.path).then(function (res) {
        if (!res.ok) { var e = new Error('the server answered ' + res.status + ' ' + res.statusText); e.status = res.status; throw e; }
        return res.arrayBuffer();
      });
    }

    /*
     * The withheld list's files read in order (`get(f)` -> a Promise of an ArrayBuffer), each
     * held to the size and sha256 the page lists, read by the verifier's own JSON reader, and
     * its seqs after every seq of the files before it (docs/scale.md#withheld-files); then the
     * list is their entries in order. Rejects with {bad, path, why}, a usage error, or the
     * reading's own error.
     */
    function loadWithheld(get) {
      var read = [], entries;
      return withheldFiles.reduce(function (p, f, k) {
        return p.then(function () {
          status('Reading the withheld list: file ' + (k + 1) + ' of ' + withheldFiles.length + ' (' + f.path + ')…');
          return Promise.resolve().then(function () { return get(f); }).catch(function (e) { if (e && typeof e === 'object' && !e.path) e.path = f.path; throw e; });
        }).then(function (buf) {
          var bytes = new Uint8Array(buf);
          if (bytes.length !== f.bytes) throw { bad: true, path: f.path, why: 'it holds ' + bytes.length + ' bytes, the page lists ' + f.bytes };
          if (V.sha256Hex(bytes) !== f.sha256) throw { bad: true, path: f.path, why: 'its sha256 is not the one the page lists' };
          // Its entries and seqs as listed (`exhibit verify SITE`: stats_file_mismatch). A list
          // the verifier's reader refuses is said by the join below, naming the file.
          var items = null;
          try { items = V.parseWithheld(bytes); } catch (e) { items = null; }
          if (items) {
            // A loop, not Math.min.apply: a file may hold more entries than a call takes arguments.
            var lo = null, hi = null;
            items.forEach(function (w) { if (lo === null || w.seq < lo) lo = w.seq; if (hi === null || w.seq > hi) hi = w.seq; });
            var got = { entries: items.length, first_seq: lo, last_seq: hi };
            var differ = factsDiffer({ entries: f.entries, first_seq: seqOf(f.first_seq), last_seq: seqOf(f.last_seq) }, got, ['entries', 'first_seq', 'last_seq']);
            if (differ.length) throw { bad: true, path: f.path, why: 'the page lists ' + differ.join(', ') };
          }
          read.push({ path: f.path, bytes: bytes });
        });
      }, Promise.resolve()).then(function () {
        entries = V.joinWithheld(read);
        withheld = entries;
        withheldRaw = entries;
        withheldBytes = entries;
        // Said where the ledger's files are listed: what was read, and how it was checked.
        var list = $('stream-files');
        if (list && list.parentNode && !$('withheld-files')) {
          list.parentNode.insertBefore(el('p', { id: 'withheld-files', 'data-files': String(withheldFiles.length), 'data-entries': String(entries.length) },
            'The withheld list is in ' + withheldFiles.length + ' files beside this page (ledger/withheld.json, then ledger/withheld/ in name order), each read and checked against the sha256 and size this page lists: ' +
            entries.length.toLocaleString('en') + ' withheld line' + (entries.length === 1 ? '' : 's') + ', as digest and day only (the lab\'s word).'), list);
        }
      });
    }

    // Every picked file by the path it would have in the exhibit (ledger/…).
    function pickedByPath(list) {
      var byPath = {};
      Array.prototype.forEach.call(list || [], function (f) {
        var parts = String(f.webkitRelativePath || f.name).split('/');
        var name = parts.pop(), parent = parts.pop();
        // A browser that gives no relative path: a file's name says where it belongs.
        if (parent === undefined && /^[0-9]{6}\.jsonl$/.test(name)) parent = 'segments';
        if (parent === undefined && /^[0-9]{6}\.json$/.test(name)) parent = 'withheld';
        var key = parent === 'segments' || parent === 'withheld' || parent === 'anchors' ? 'ledger/' + parent + '/' + name : 'ledger/' + name;
        if (!byPath[key]) byPath[key] = f;
      });
      return byPath;
    }

    function fromFolder(list, files, plan, mem) {
      // Every picked file by its path under the picked folder, as ledger/<path>: a released text
      // is looked up there when a paste finds its line.
      state.picked = {};
      Array.prototype.forEach.call(list || [], function (f) {
        var rel = String(f.webkitRelativePath || f.name).split('/').slice(1).join('/');
        if (rel) state.picked['ledger/' + rel] = f;
      });
      var byPath = pickedByPath(list);
      var stray = strayInFolder(list);
      if (stray) { failLight([{ what: stray, href: '#stream' }]); return; }
      var missing = files.slice(plan.resumeFrom).filter(function (f) { return !byPath[f.path]; });
      if (missing.length) {
        needsData('The folder you picked lacks ' + missing.slice(0, 3).map(function (f) { return f.path; }).join(', ') + (missing.length > 3 ? ' and ' + (missing.length - 3) + ' more' : '') + ': pick the cloned ledger/ folder itself.');
        return;
      }
      $('pick').hidden = true;
      verdict.setAttribute('data-state', 'working');
      verdict.setAttribute('data-verdict', 'working');
      $('badge').textContent = 'Checking…';
      var seen = {}, getPath = function (path) {
        var f = state.picked[path] || byPath[path];
        if (!f) { var e = new Error('the folder you picked has no ' + path); e.absent = true; throw e; }
        return f.arrayBuffer();
      };
      siteCopies(remembering(seen, getPath), files).then(function (bad) {
        if (bad) { failLight([{ what: bad.replace('the site\'s', 'the picked folder\'s').replace('the site holds', 'the folder you picked holds'), href: '#stream' }]); return; }
        return snapshotCheck(seen, getPath, files, state.picked).then(function (failures) {
          if (failures.length) { failLight(failures); return; }
          streamFiles(files, plan, mem, function (f) { return byPath[f.path].arrayBuffer(); }, 'read from the folder you picked');
        });
      }).then(null, function (err) { fail('the page could not read the files it carries copies of from the folder you picked: ' + String(err && err.message || err)); });
    }

    function streamFiles(files, plan, mem, get, how, forceMain) {
      // Decoded when the last file is read, in a task of its own: 16 MB of base64 decoded with
      // the page's start made a task over 200 ms (docs/page.md#records-in-the-worker).
      var latest;
      var i = plan.resumeFrom, acc = { checkpoint: null, done: 0 };
      var toRead = 0;
      files.forEach(function (f, k) { if (k >= i) toRead += f.bytes; });
      // The bar counts bytes checked, the tree's files' after the ledger's (treeStep): it is full
      // only when the verdict is (docs/page.md#records-in-the-worker).
      var grand = toRead + (plan.checkpoint ? 0 : treeBytesEstimate(files));
      state.progress = { ledger: 0, tree: 0, total: grand };
      setProgress(0, grand);
      // The reader started for this plan when the check began (requestEarly), or one now.
      var ready = state.readerEarly && state.readerEarly.plan === plan && !forceMain && !state.readerEarly.broken ? state.readerEarly : null;
      if (ready) state.readerEarly = null;
      treeEarlyStop();
      if (!plan.checkpoint) state.treeEarly = treeEarly();
      var init = readerInit(plan, mem), headSeq = init.headSeq;
      var settled = false;
      var onmsg = function (m) {
        if (m.type === 'answer' || (m.type === 'error' && m.id !== undefined)) { if (state.store) state.store.settle(m); return; }
        if (settled) return;
        if (m.type === 'progress') { state.progress.ledger = acc.done + m.bytes; showProgress(); }
        else if (m.type === 'reached') m.reached.forEach(markDay);
        else if (m.type === 'file-bad') {
          settled = true; rd.stop();
          fileState(i, 'bad', 'FAILS: ' + m.why);
          failLight([{ what: 'the ledger file ' + m.path + ' is not the one the page lists: ' + m.why, href: '#stream' }]);
        } else if (m.type === 'file-unread') {
          var e = new Error(m.message);
          e.status = m.status;
          unread(e);
        } else if (m.type === 'file-rewritten') {
          settled = true; rd.stop();
          fileState(i, 'bad', 'REWRITTEN: ' + m.why);
          prefixRewritten(files, mem, { file: m.path, why: m.why }, get, how);
        } else if (m.type === 'file-done') {
          acc.done += files[i].bytes;
          if (acc.latest && i === files.length - 1) state.latestHeld = true;
          var gone = m.problems ? '; the chain has ' + m.problems + ' problem' + (m.problems === 1 ? '' : 's') + ' so far' : '';
          // What this visit re-derived of the file, said and counted (docs/page.md "The monitor").
          fileState(i, 'done', m.resumedLines ? resumedFileWords(how, files[i], m) + gone
            : 're-derived (' + how + ', sha256 and size as listed): ' + m.count + ' line' + (m.count === 1 ? '' : 's') + gone);
          var li = fileItem(i);
          if (li) { li.setAttribute('data-derived-lines', String(m.derived)); li.setAttribute('data-resumed-lines', String(m.resumedLines)); }
          if (m.resumedLines) state.resumedIn = { path: files[i].path, bytes: plan.prefix.bytes, lines: m.resumedLines, derived: m.derived, last: i === files.length - 1 };
          m.reached.forEach(markDay);
          if (m.checkpoint) { acc.checkpoint = m.checkpoint; acc.fileLines = m.fileLines; }
          state.progress.ledger = acc.done;
          showProgress();
          i++;
          next();
        } else if (m.type === 'done') {
          // The worker stays: it keeps the line records, and the page asks it for them.
          settled = true;
          state.store = lineStore(rd);
          // The lines table's first page, asked for now: finish waits for it, so that the verdict,
          // which waits for it too, is drawn in the same task (renderLines).
          state.firstRows = linesPage();
          var r = m.result;
          // The header line this page carries (its first screen's certifies sentence) must be
          // the ledger's line 1, as `exhibit verify SITE` holds it (page_copy_mismatch).
          var carried = headerNotLine1(block('ledger-header'), files, r.headerLine);
          if (carried) { failLight([{ what: carried, href: '#stream' }]); return; }
          r.resumedToSeq = plan.checkpoint ? plan.checkpoint.lastSeq : null;
          // Posts the stream did not reach on its way (a head at a withheld seq after the last
          // line, a post not in the exact form): their state from the final checks.
          m.anchors.forEach(function (a) {
            var li = dayItem(a.date);
            if (!li || li.getAttribute('data-state') !== 'waiting') return;
            if (a.post_seq === null) { li.setAttribute('data-state', 'fails'); li.lastChild.textContent = 'FAILS: the post is not in the exact form'; }
            else markDay({ date: a.date, seq: a.post_seq, head: a.head, clean: r.ok });
          });
          earlyVerdict({ ok: r.ok, head: r.head, entries: r.entries, problems: r.problems.length });
          var texts = {};
          posts.forEach(function (p) { texts[p.date] = p.text; });
          m.anchors.forEach(function (a) { if (Object.prototype.hasOwnProperty.call(texts, a.date)) knownPostSha(texts[a.date], a.text_sha256); });
          // The remembered head on today's chain, before the headline verdict: a rewrite of what
          // this browser checked is a headline failure (docs/page.md "The monitor").
          monitorHeadCheck(r, files, mem, headSeq, plan);
          // Every tree file held to the chain just re-derived, then the headline verdict (once
          // the lines table's first page is in).
          var rowsIn = state.firstRows ? state.firstRows.then(null, function () { return null; }) : null;
          Promise.all([treeStep(r), rowsIn]).then(function () {
            finish(r, m.anchors, rd.where);
            monitorAfter(r, files, plan, mem, acc);
          }, function (err) {
            needsData('The page could not read the tree\'s files (' + String(err && err.message || err) + '), so it cannot hold them to the chain it re-derived. Pick the cloned ledger/ folder to check it from there.');
            $('pick-ledger').addEventListener('change', function () { fromFolder(this.files, files, plan, mem); });
          });
        } else if (m.type === 'error') { settled = true; rd.stop(); fail(m.message); }
      };
      var rd = ready ? ready.rd : lightReader(onmsg, forceMain);
      if (ready) ready.take(onmsg);
      rd.onerror = function () {
        // The worker could not start (or died): read everything again on the main thread.
        if (state.store && state.store.rd === rd) state.store.settle({ type: 'error', message: 'the worker that keeps the line records stopped' });
        if (settled) return;
        settled = true;
        streamFiles(files, plan, mem, get, how, true);
      };
      if (!ready) rd.post(init);
      var postsHeld = postsStep(rd, files, plan, mem, get, how, function () { return settled; }, function () { settled = true; rd.stop(); });
      function next() {
        // The verdict's anchor checks wait for every post (postsStep).
        if (i >= files.length) { postsHeld.then(function (go) { if (go && !settled) rd.post({ type: 'finish', headSeq: headSeq }); }); return; }
        var f = files[i];
        fileState(i, 'reading', 'reading…');
        var clean = clear($('verdict-text'));
        clean.textContent = 'Re-deriving the ledger in your browser: file ' + (i + 1) + ' of ' + files.length + ' (' + f.path + ')…';
        var got;
        // The page's copy of the last file is handed to the reader, not copied: the reader holds
        // it to the list (size, sha256), so blockFailures need not decode and hash it again.
        if (i === files.length - 1 && latest === undefined) latest = block('ledger-latest');
        var mine = i === files.length - 1 && latest && latest.length === f.bytes;
        var msg = { type: 'file', path: f.path, size: f.bytes, sha256: f.sha256, facts: f.facts, prefix: i === plan.resumeFrom ? plan.prefix || null : null,
          wantCheckpoint: i === files.length - 1, last: i === files.length - 1 };
        // Over http the reader fetches the file itself: its bytes never pass through the page's
        // thread, whose tasks would hold the download back (docs/page.md "Reading the files").
        if (get === fetchFile && !mine && typeof URL === 'function') { msg.url = new URL(f.path, location.href).href; rd.post(msg); return; }
        try { got = mine ? Promise.resolve(latest.byteOffset === 0 && latest.byteLength === latest.buffer.byteLength ? latest.buffer : latest.slice().buffer) : get(f); }
        catch (e) { got = Promise.reject(e); } // a browser without fetch: the same as a failed fetch
        got.then(function (buf) {
          if (settled) return;
          if (mine) { latest = null; acc.latest = true; }
          msg.bytes = buf;
          rd.post(msg, [buf]);
        }, unread);
      }
      // A file that could not be read (`err`: its .status when the server answered).
      function unread(err) {
        if (settled) return;
        settled = true; rd.stop();
        var f = files[i];
        if (err && (err.status === 404 || err.status === 410)) {
          // The site itself says the listed file is not there: a gap in the published
          // ledger, which `exhibit verify SITE` names too (stats_file_absent). Not a file the
          // page could not reach: no folder picked in its place would be this site's.
          fileState(i, 'bad', 'FAILS: the site does not hold it (' + String(err.message) + ')');
          failLight([{ what: 'the ledger file ' + f.path + ' is listed but the site does not hold it (' + String(err.message) + ')', href: '#stream' }]);
          return;
        }
        fileState(i, 'unread', 'could not be read: ' + String(err && err.message || err));
        needsData('The page could not read ' + f.path + ' (' + String(err && err.message || err) + '), so it cannot re-derive the ledger. Pick the cloned ledger/ folder to re-derive it from there.');
        $('pick-ledger').addEventListener('change', function () { fromFolder(this.files, files, plan, mem); });
      }
      setTimeout(next, 0);
    }
    // A file the visit resumed inside (docs/page.md "The monitor"): what was read, held and re-derived.
    function resumedFileWords(how, f, m) {
      var n = function (k) { return k.toLocaleString('en') + ' line' + (k === 1 ? '' : 's'); };
      return 'held to the list (' + how + ', sha256 and size as listed); its first ' + n(m.resumedLines) + ' are the bytes this browser re-derived on an earlier visit ' +
        '(the same sha256), so they were not re-derived again; re-derived: the ' + n(m.derived) + ' after them';
    }
    /*
     * The part of the last file this browser re-derived on an earlier visit is not the bytes the
     * site holds now (the reader held it to its sha256): what this browser checked was rewritten,
     * the headline failure, kept with the memory until Forget as compareMemory's (docs/page.md
     * "The monitor"). The ledger is then re-derived as it is now, from the first line.
     */
    function prefixRewritten(files, mem, x, get, how) {
      mem.rewritten = { file: x.file, why: x.why, seen: new Date().toISOString() };
      monitorSave(mem);
      monitorShow('rewritten', mem.rewritten);
      state.monitorRewritten = mem.rewritten;
      treeEarlyStop();
      state.resumeFrom = 0;
      state.resumedIn = null;
      renderStreamLists(files, 0);
      streamFiles(files, { rewritten: mem.rewritten, resumeFrom: 0, checkpoint: null, prefix: null, note: 'a remembered part rewritten' }, mem, get, how);
    }
    /*
     * The posts a page that reads its records from the site reads while its ledger streams
     * (fetchPosts): once read, handed to the reader (`rd`) with their seqs — the verdict's anchor
     * checks wait for them, so a post read last is checked as any other. Resolves to true when
     * the stream may finish; false when this settled it (`isSettled()`, `settle()`): the posts
     * could not be read (no verdict), the newest of them are not the page's copies (a failure),
     * or a post names a seq inside the files this visit resumed past whose entry_id the
     * remembered state does not hold — then the ledger is read again from its first line.
     */
    function postsStep(rd, files, plan, mem, get, how, isSettled, settle) {
      if (!postsIn) return Promise.resolve(true);
      return postsIn.then(function () {
        if (isSettled()) return false;
        var differ = takePosts();
        if (differ) { settle(); failLight([{ what: differ, href: '#stream' }]); return false; }
        if (plan.checkpoint && !compareMemory(mem, files, withheldShaUpTo, postSeqs, new Set(withheld.map(function (w) { return w.seq; }))).checkpoint) {
          settle();
          treeEarlyStop();
          monitorShow('remembered', mem);
          state.resumeFrom = 0;
          state.resumedIn = null;
          renderStreamLists(files, 0);
          streamFiles(files, { rewritten: null, resumeFrom: 0, checkpoint: null, prefix: null, note: 'a post names a seq inside the remembered files' }, mem, get, how);
          return false;
        }
        rd.post({ type: 'posts', posts: posts, watchSeqs: postSeqs, later: true });
        return true;
      }, function (e) {
        if (isSettled()) return false;
        settle();
        treeEarlyStop();
        needsRecords('This page reads its records from the site beside it, and could not (' + String(e && e.message || e) + ').');
        return false;
      });
    }

    // A ledger file that is not what the list says: a failure, named by file (no verdict can be
    // green over bytes the list does not vouch for).
    function failLight(failures) {
      treeEarlyStop();
      if (state.history && state.history.rewritten) failures = [{ what: historyWords(state.history.rewritten), href: '#tree-memory' }].concat(failures);
      if (monitorFailure()) failures = [monitorFailure()].concat(failures);
      if (rewrittenLead()) verdict.setAttribute('data-failed', 'history');
      verdict.setAttribute('data-state', 'problems');
      verdict.setAttribute('data-verdict', 'failed');
      verdict.setAttribute('data-head', '');
      verdict.setAttribute('data-ms', String(Math.round(performance.now())));
      $('badge').textContent = 'Failed';
      clear($('verdict-text')).textContent = rewrittenLead() + 'The ledger\'s files are not the ones this page lists:';
      var why = clear($('verdict-why'));
      why.appendChild(el('ul', { id: 'failures' }, failures.map(function (x) { return el('li', null, el('a', { href: x.href }, x.what.charAt(0).toUpperCase() + x.what.slice(1)), '.'); })));
      $('progress') && $('progress').remove();
      renderIndependent();
      statusFailed(failures[0].what);
    }

    // ---- the monitor (docs/page.md "The monitor"): what this browser remembers of this exhibit
    var MONITOR_KEY = monitorKey();
    function storage() { try { return window.localStorage || null; } catch (e) { return null; } }
    function monitorLoad() {
      var st = storage();
      if (!st) { monitorShow('unavailable'); return null; }
      // Read once as the page started (start), read again after that.
      var read = fetched && fetched.__mem !== undefined ? fetched.__mem : undefined;
      if (fetched) delete fetched.__mem;
      try { var m = read !== undefined ? read : JSON.parse(st.getItem(MONITOR_KEY) || 'null'); return m && typeof m === 'object' && Array.isArray(m.files) ? m : null; }
      catch (e) { return null; }
    }
    function monitorSave(m) {
      var st = storage();
      if (!st) return false;
      try { st.setItem(MONITOR_KEY, JSON.stringify(m)); return true; } catch (e) { return false; }
    }
    function monitorShow(kind, x) {
      var box = $('monitor'), t = $('monitor-text');
      if (!box) return;
      box.setAttribute('data-state', kind);
      box.className = kind === 'rewritten' ? 'bad' : '';
      if (kind === 'unavailable') t.textContent = 'This browser keeps no storage for this page, so it remembers nothing between visits: each visit reads the whole ledger.';
      else if (kind === 'rewritten') {
        t.textContent = 'REWRITTEN: this exhibit changed what this browser had already checked. ' + x.file + ': ' + x.why + '. A published ledger only grows; this is a forced push or a split view (another copy shown to you than to others). ' +
          'The page re-derives the ledger as it is now, from the first line, and keeps saying this on every visit until you click Forget.';
      } else if (kind === 'none') t.textContent = 'Nothing: this browser remembers nothing about this exhibit.';
      else {
        var full = x.files.filter(function (f) { return f.full; }).length, last = x.files[x.files.length - 1];
        t.textContent = (kind === 'stored' ? 'This browser now remembers' : kind === 'resumed' ? resumedMemoryWords() + ' This browser now remembers'
          : 'This browser remembers, from ' + (x.checked_at ? 'its visit of ' + x.checked_at : 'an earlier visit')) +
          ': the ledger\'s size (' + Number(x.bytes).toLocaleString('en') + ' bytes), its head ' + String(x.head).slice(0, 12) + '… at seq ' + x.head_seq +
          ', the sha256 and size of its ' + x.files.length + ' file' + (x.files.length === 1 ? '' : 's') + ' (' + full + ' full, never to change), and the verifier\'s state ' +
          (x.tail && x.tail.checkpoint ? 'at the end of the last line it read (' + last.path + ', ' + Number(last.bytes).toLocaleString('en') + ' bytes, whose sha256 it also remembers). ' : 'at the end of the last full one. ') +
          (x.posts ? 'And the ' + x.posts.dates.length.toLocaleString('en') + ' posts it read up to ' + x.posts.dates[x.posts.dates.length - 1] + ' with their proofs\' headers, by date and length and one digest of them all. ' : '') +
          (kind === 'resuming' ? 'This visit compares the list this page carries with them and reads only ' + (x.tail && x.tail.checkpoint ? last.path + ' and the files after it, re-deriving only the lines after the ' + Number(last.bytes).toLocaleString('en') + ' bytes of it re-derived before (held to their sha256)' : 'the files after them') + '; it does not fetch the remembered full files again.' : kind === 'stored' ? 'The next visit reads only what is new, and says loudly if any of it changed.' : '') +
          ((kind === 'resumed' || kind === 'stored') && state.postsRemembered ? ' ' + postsRememberedWords() : '');
      }
    }
    /*
     * What a resumed visit re-checked and what it did not (docs/page.md "The monitor"): the
     * remembered full files were not fetched; the file it resumed inside (state.resumedIn:
     * {path, bytes, lines, derived}) was fetched and held to the list, and its first part to the
     * sha256 this browser re-derived it with, so only the lines after that part were re-derived.
     */
    function resumedMemoryWords() {
      var kept = state.resumeFrom || 0, R = state.resumedIn;
      var lines = function (n) { return n.toLocaleString('en') + ' line' + (n === 1 ? '' : 's'); };
      var part = R ? R.path + ', fetched and held to the size and sha256 the list names, and its first ' + R.bytes.toLocaleString('en') + ' bytes (' + lines(R.lines) +
        ') to the sha256 this browser re-derived them with on an earlier visit: the same bytes, so only the ' + lines(R.derived) + ' after them ' + (R.derived === 1 ? 'was' : 'were') + ' re-derived' : '';
      return 'Re-checked on this visit: ' + (R ? part + '; ' : '') + (R && R.last ? '' : 'the files after ' + (R ? 'it' : 'those this browser re-derived before') + ', fetched and re-derived; ') +
        'and the list this page carries, which names every remembered file with the sha256 this browser checked. NOT re-checked: ' +
        (kept > 0 ? 'the bytes of the ' + kept + ' remembered full file' + (kept === 1 ? '' : 's') + ' on the site, which were not fetched again' + (R ? '; ' : '') : '') +
        (R ? 'the ' + lines(R.lines) + ' of ' + R.path + '\'s first part were not re-derived again (their bytes are the ones re-derived before)' : '') +
        ' (Forget, below, and Check everything reads ' + (R ? 'and re-derives ' : '') + 'them all).';
    }
    // The remembered head must lie on the chain at its seq; else the memory records the rewrite
    // (kept until Forget) and the verdict about to be drawn fails on it. A visit resumed inside
    // the last file keeps no entry_id at a seq it did not read: the remembered head at the last
    // seq read then is the state's own, in bytes held to their sha256 (`plan.prefix`).
    function monitorHeadCheck(r, files, mem, headSeq, plan) {
      if (headSeq === null || !mem || mem.rewritten) return;
      var cp = plan.prefix ? plan.checkpoint : null;
      var onChain = (cp && headSeq === cp.lastSeq && mem.head === cp.prevEntryId) || (r.headSeqIds || []).indexOf(mem.head) >= 0 ||
        withheld.some(function (w) { return w.seq === headSeq && w.entry_id === mem.head; }) ||
        (headSeq === 0 && r.headerDigest === mem.head);
      if (onChain) return;
      var holder = files.filter(function (f) { return f.first_seq !== null && f.first_seq <= headSeq && f.last_seq !== null && f.last_seq >= headSeq; })[0];
      mem.rewritten = { file: holder ? holder.path : 'the ledger', why: 'the line at seq ' + headSeq + ' no longer carries the head ' + mem.head + ' that this browser checked there', seen: new Date().toISOString() };
      monitorSave(mem);
      monitorShow('rewritten', mem.rewritten);
      state.monitorRewritten = mem.rewritten;
    }
    // A rewrite of what this browser checked on an earlier visit, as a headline failure.
    function monitorFailure() {
      var x = state.monitorRewritten;
      return x ? { what: 'what this browser checked on an earlier visit was rewritten: ' + x.file + ': ' + x.why + ' (a published ledger only grows: a forced push or a split view)', href: '#monitor' } : null;
    }
    // The headline's first words when a remembered history was rewritten, or ''.
    function rewrittenLead() {
      var h = state.history && state.history.rewritten;
      if (h) return 'This exhibit\'s history was rewritten since your last visit on ' + h.date + '. ';
      return state.monitorRewritten ? 'This exhibit rewrote what this browser checked on an earlier visit (' + state.monitorRewritten.file + '). ' : '';
    }
    // After a complete re-derivation whose chain re-derives: what the next visit resumes from
    // (docs/page.md "The monitor"), `acc.checkpoint` the reader's state at the end of the last
    // file, which holds `acc.fileLines` lines. `checkpoint` stays null: a page of before this
    // field resumed from it at the end of the last full file, and so reads everything instead.
    function monitorAfter(r, files, plan, mem, acc) {
      if ((mem && mem.rewritten) || plan.rewritten || !r.ok || !r.head) return;
      var headSeqNow = Math.max(r.lastSeq || 0, r.bridged.length ? r.bridged[r.bridged.length - 1] : 0);
      var cp = acc.checkpoint;
      var m = {
        bytes: files.reduce(function (a, f) { return a + f.bytes; }, 0), head: r.head, head_seq: headSeqNow,
        files: files.map(function (f, i) { return { path: f.path, bytes: f.bytes, sha256: f.sha256, full: i < files.length - 1 }; }),
        checkpoint: null, withheld_sha: null,
        tail: cp ? { checkpoint: cp, withheld_sha: withheldShaUpTo(cp.lastSeq), lines: acc.fileLines, facts: files[files.length - 1].facts || null } : null,
        // The posts read from the site, every one but those the page carries (fetchPosts).
        posts: !postsIn ? null : fetched.__postsRead === 0 && mem && mem.posts ? mem.posts : rememberedPosts(V, anchorsIndex, postsRaw, proofHeaders, null),
        checked_at: new Date().toISOString()
      };
      if (monitorSave(m)) monitorShow(plan.checkpoint ? 'resumed' : 'stored', m);
      else monitorShow('unavailable');
      if (plan.checkpoint) $('monitor').setAttribute('data-state', 'resumed');
    }
    if ($('monitor-forget')) $('monitor-forget').addEventListener('click', function () {
      var st = storage();
      try { if (st) { st.removeItem(MONITOR_KEY); st.removeItem(TREE_KEY); } } catch (e) { /* nothing to forget */ }
      monitorShow('none');
      treeMemShow({ kind: 'none' });
    });

    // ---- the tree on a light page (docs/page.md "The log-size path", "The returning visitor",
    // "Check everything"; docs/tree.md). A light page's default check reads a few small files of
    // ledger/tree/, not the ledger: the checkpoint, held to the copy the page carries, its root
    // folded from the hash tiles, the exhibit-head and the newest posted head proved leaves of
    // it, and, for a returning visitor, a consistency proof from the checkpoint this browser
    // remembers. Its verdict says so, and says that the chain was not re-derived.
    var T = V.tree;
    // Tree files read on this visit by their path under ledger/tree/ (fetched once each), and
    // what the log-size checks and proofs read.
    var treeCache = new Map(), treeRead = { files: 0, bytes: 0 };
    function treeRaw(rel) {
      var path = 'ledger/tree/' + rel;
      if (state.picked) {
        var f = state.picked[path];
        if (!f) { var e = new Error('the folder you picked has no ' + path); e.absent = true; e.path = path; return Promise.reject(e); }
        return f.arrayBuffer().then(function (b) { return new Uint8Array(b); });
      }
      if (location.protocol === 'file:') return Promise.reject(new Error('this page was opened from a file (file://), where a browser lets it read no file beside it'));
      return fetchNow(path).then(function (res) {
        if (!res.ok) {
          var e = new Error('the server answered ' + res.status + ' for ' + path);
          e.status = res.status; e.path = path; e.absent = res.status === 404 || res.status === 410;
          throw e;
        }
        return res.arrayBuffer().then(function (b) { return new Uint8Array(b); });
      });
    }
    // One request a file: a read asked for again while it is under way waits for it.
    var treePending = new Map();
    function treeGet(rel) {
      if (treeCache.has(rel)) return Promise.resolve(treeCache.get(rel));
      if (treePending.has(rel)) return treePending.get(rel);
      var p = treeRaw(rel).then(function (b) {
        treePending.delete(rel);
        treeCache.set(rel, b); treeRead.files++; treeRead.bytes += b.length;
        return b;
      }, function (e) { treePending.delete(rel); throw e; });
      treePending.set(rel, p);
      return p;
    }
    function treeAll(rels) { return Promise.all(rels.map(treeGet)); }
    // fn over items, k at a time; resolves when every one has.
    function pool(items, k, fn) {
      var i = 0;
      function one() {
        if (i >= items.length) return Promise.resolve();
        var x = items[i++];
        return Promise.resolve(x).then(fn).then(one);
      }
      var all = [];
      for (var j = 0; j < k; j++) all.push(one());
      return Promise.all(all);
    }
    function sameBytes(a, b) {
      if (!a || !b || a.length !== b.length) return false;
      for (var i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
      return true;
    }
    function kb(n) { return n < 10240 ? n.toLocaleString('en') + ' bytes' : (n / 1024).toFixed(n < 102400 ? 1 : 0) + ' KB'; }
    function mb(n) { return (n / 1048576).toFixed(n < 10485760 ? 1 : 0) + ' MB'; }
    function when(iso) { return String(iso || 'an earlier visit').replace('T', ' ').replace(/:[0-9]{2}(\.[0-9]+)?Z$/, ' UTC'); }

    // A file of the tree that a check needed and could not have: a failure naming it, with the
    // code `exhibit verify SITE` gives it; null for a file that could not be read at all.
    function treeFileWords(e, size) {
      if (e && e.absent) return 'the site does not hold ' + e.path + ', which the tree at ' + size + ' seqs has (' + (/^ledger\/tree\/excerpts\//.test(e.path) ? 'excerpt_file_missing' : 'tree_file_missing') + ')';
      if (e && /^tile [^ ]+ holds [0-9]+ bytes/.test(String(e.message))) return 'the hash tile ledger/tree/' + String(e.message).slice(5) + ' (tree_file_differs)';
      return null;
    }

    // ---- what this browser remembers of the tree (docs/page.md "The returning visitor")
    var TREE_KEY = 'exhibit-tree:v1:' + String(location.href).replace(/[?#].*$/, '');
    function treeMemLoad() {
      var st = storage();
      if (!st) return undefined;
      try { var m = JSON.parse(st.getItem(TREE_KEY) || 'null'); return m && typeof m === 'object' && !Array.isArray(m) ? m : null; }
      catch (e) { return null; }
    }
    function treeMemSave(m) {
      var st = storage();
      try { if (st) st.setItem(TREE_KEY, JSON.stringify(m)); } catch (e) { /* storage full: nothing remembered */ }
    }
    function memWords(m) { return m.size.toLocaleString('en') + ' seq' + (m.size === 1 ? '' : 's') + ', root ' + m.root + ', origin ' + m.origin; }
    function historyMeaning() {
      return 'The tree you checked then is not the beginning of today\'s: a line you could have proved then is gone, moved or changed. A published ledger only grows; this is a rewrite (a forced push) or a split view (another copy shown to you than to others). Do not rely on this exhibit until the publisher explains.';
    }
    function historyWords(x) {
      return 'this exhibit\'s history was rewritten since your last visit on ' + x.date + ': ' + x.why;
    }
    function treeMemShow(h) {
      var p = $('tree-memory');
      if (!p) return;
      p.setAttribute('data-state', h.kind);
      p.className = h.kind === 'rewritten' ? 'bad' : h.kind === 'consistent' ? 'ok' : '';
      var saved = h.saved ? ' This browser now remembers today\'s checkpoint (' + memWords(h.saved) + ').' : '';
      p.textContent = h.kind === 'unavailable' ? 'This browser keeps no storage for this page: it remembers no checkpoint, so a later visit cannot tell you whether the history was rewritten.'
        : h.kind === 'first' ? 'This browser remembered no checkpoint of this exhibit.' + saved + ' On your next visit the page checks, with a consistency proof from the tree\'s tiles, that the exhibit\'s tree still extends it.'
        : h.kind === 'consistent' ? 'Your last visit, on ' + when(h.mem.checked_at) + ', saw ' + memWords(h.mem) + '. Today\'s tree extends it: a consistency proof of ' + h.hashes + ' hash' + (h.hashes === 1 ? '' : 'es') + ' from the tiles holds, so every line you could have proved then is still there, at the same seq, with the same digest.' + saved
        : h.kind === 'other-log' ? 'This checkpoint is of another log (origin ' + h.cp.origin + ') than the one this browser remembers from its visit on ' + when(h.mem.checked_at) + ' (origin ' + h.mem.origin + '): the two cannot be compared, so nothing is said of the history. This browser keeps the one it remembers until you click Forget.'
        : h.kind === 'rewritten' ? 'REWRITTEN: ' + historyWords(h.rewritten) + '. ' + historyMeaning() + ' This browser says so on every visit until you click Forget.'
        : h.kind === 'none' ? 'Nothing: this browser remembers no checkpoint of this exhibit.'
        : 'Your last visit, on ' + when(h.mem && h.mem.checked_at) + ', could not be compared with today\'s tree: ' + h.why + '.';
    }
    /*
     * The returning visitor's check (docs/page.md "The returning visitor"): the checkpoint this
     * browser remembers against today's `cp` (verified on this visit), by a consistency proof
     * from the tiles. A failed one is kept with the memory and said on every visit until Forget:
     * a split view must not silence it by showing the old tree once more. Resolves to
     * state.history.
     */
    function historyCheck(cp) {
      if (state.history) return Promise.resolve(state.history);
      var now = new Date().toISOString(), mem = treeMemLoad();
      var remember = { origin: cp.origin, size: cp.size, root: T.base64Encode(cp.root), head_seq: cp.headSeq, head: cp.headHex, checked_at: now };
      var done = function (h) { h.cp = cp; state.history = h; treeMemShow(h); return h; };
      if (mem === undefined) return Promise.resolve(done({ kind: 'unavailable' }));
      if (mem && mem.rewritten) return Promise.resolve(done({ kind: 'rewritten', rewritten: mem.rewritten, mem: mem }));
      var plan = historyPlan(mem, cp);
      if (plan.kind === 'first') { treeMemSave(remember); return Promise.resolve(done({ kind: 'first', saved: remember })); }
      if (plan.kind === 'other-log') return Promise.resolve(done({ kind: 'other-log', mem: mem }));
      var rewrite = function (why) {
        mem.rewritten = { date: when(mem.checked_at), why: why, seen: now };
        treeMemSave(mem);
        return done({ kind: 'rewritten', rewritten: mem.rewritten, mem: mem });
      };
      if (plan.kind === 'cut') return Promise.resolve(rewrite('the tree you saw then had ' + memWords(mem) + '; today\'s has only ' + cp.size + ' seqs: the history was cut'));
      var oldRoot = null;
      try { oldRoot = b64ToBytes(mem.root); } catch (e) { oldRoot = null; }
      if (!oldRoot || oldRoot.length !== 32) return Promise.resolve(done({ kind: 'unchecked', mem: mem, why: 'the root this browser remembers cannot be read' }));
      if (mem.size === 0) { treeMemSave(remember); return Promise.resolve(done({ kind: 'consistent', mem: mem, hashes: 0, saved: remember })); }
      return treeAll(T.consistencyTiles(mem.size, cp.size)).then(function () {
        var proof = T.consistencyProof(mem.size, cp.size, treeCache);
        if (!T.checkConsistency(proof, mem.size, oldRoot, cp.size, cp.root)) {
          return rewrite('the tree you saw then (' + memWords(mem) + ') is not where today\'s tree of ' + cp.size + ' seqs (root ' + T.base64Encode(cp.root) + ') begins: the consistency proof from the tiles does not hold');
        }
        treeMemSave(remember);
        return done({ kind: 'consistent', mem: mem, hashes: proof.length, saved: remember });
      }, function (e) {
        var words = treeFileWords(e, cp.size);
        if (!words) throw e;
        return done({ kind: 'unchecked', mem: mem, why: words, failure: words });
      });
    }

    /*
     * The log-size checks of a checkpoint `cp` (docs/page.md "The log-size path"): the root folded
     * from the hash tiles (rootTiles, rootFromTiles), the exhibit-head digest the tree's leaf at
     * its seq, and the newest posted head the tree's leaf at its seq (inclusion proofs from the
     * tiles), with the header of that post's Bitcoin proof this page carries. Resolves to
     * {checked: [words], failures: [{what, href}], notes: [words]}.
     */
    function logChecks(cp) {
      var out = { checked: [], failures: [], notes: [] }, size = cp.size;
      var fail = function (what) { out.failures.push({ what: what, href: '#checkpoint' }); };
      var leaf = function (index, hex) {
        var paths = T.neededTiles(size, index);
        return treeAll(paths).then(function () {
          var proof = T.inclusionProof(size, index, treeCache);
          return { holds: T.checkInclusion(proof, size, cp.root, index, T.leafHash(hexBytes(hex))), hashes: proof.length };
        });
      };
      var rootPaths = T.rootTiles(size);
      return treeAll(rootPaths).then(function () {
        var root = T.rootFromTiles(size, treeCache);
        if (sameBytes(root, cp.root)) out.checked.push('The tree\'s root: folded here from ' + rootPaths.length + ' hash tile' + (rootPaths.length === 1 ? '' : 's') + ' (' + rootPaths.map(function (p) { return 'ledger/tree/' + p; }).join(', ') + '), it is the checkpoint\'s root.');
        else fail('the tree\'s hash tiles (' + rootPaths.map(function (p) { return 'ledger/tree/' + p; }).join(', ') + ') fold to the root ' + T.base64Encode(root) + ', not the checkpoint\'s ' + T.base64Encode(cp.root) + ': they are not the tree the checkpoint states');
        if (!size) { out.notes.push('The tree is empty (the ledger has no entry yet): there is no leaf to prove.'); return null; }
        return leaf(size - 1, cp.headHex);
      }).then(function (inc) {
        if (inc) {
          if (inc.holds) out.checked.push('The exhibit-head line: ' + cp.headHex + ' is the tree\'s leaf at seq ' + size + ' (an inclusion proof of ' + inc.hashes + ' hash' + (inc.hashes === 1 ? '' : 'es') + ' from the tiles).');
          else fail('the checkpoint\'s exhibit-head ' + cp.headHex + ' is not the tree\'s leaf at seq ' + size + ': its inclusion proof from the tiles does not lead to the root');
        }
        var heads = postedHeads(posts).filter(function (h) { return h.seq >= 1; });
        var newest = heads.length ? heads[heads.length - 1] : null;
        if (!newest) { out.notes.push('No head has been posted outside the box yet: none was checked against the tree.'); return null; }
        if (newest.seq > size) {
          fail('the head posted for ' + newest.date + ' names seq ' + newest.seq + ', past the checkpoint\'s ' + size + ' seqs: this checkpoint is older than a head posted outside the box');
          return null;
        }
        return leaf(newest.seq - 1, newest.head).then(function (x) { x.post = newest; return x; });
      }).then(function (inc) {
        if (!inc) return out;
        var p = inc.post;
        if (inc.holds) out.checked.push('The newest posted head, posted outside the box for ' + p.date + ': ' + p.head + ' is the tree\'s leaf at seq ' + p.seq + ' (an inclusion proof of ' + inc.hashes + ' hash' + (inc.hashes === 1 ? '' : 'es') + '), so the head posted then is in this tree, at its place.');
        else fail('the head posted for ' + p.date + ' (' + p.head + ', seq ' + p.seq + ') is not the tree\'s leaf at seq ' + p.seq + ': the tree this checkpoint states does not hold the chain the head posted outside the box names');
        if (!Array.isArray(proofHeaders)) { fail('the page could not read the proofs\' headers it carries (' + (proofHeaders && proofHeaders.__error) + ')'); return out; }
        var h = proofHeaders.filter(function (x) { return x.kind === 'anchor' && x.name === p.date + '.txt.ots'; })[0];
        var post = postsRaw[p.date], pr = h ? checkProofHeader(h.header, postSha(V, String(post))) : null;
        if (pr === 'ok') out.checked.push('The header of that post\'s Bitcoin proof (carried by this page) commits to the post; its attestation is checked with an OpenTimestamps client.');
        else if (pr) fail('the Bitcoin proof of the post for ' + p.date + ' ' + PROOF_PROBLEM_WORDS[pr]);
        else if (withheldProof(p.date)) fail(withheldProofWords(p.date, withheldProof(p.date)));
        else out.notes.push('The post for ' + p.date + ' has no Bitcoin proof yet.');
        return out;
      });
    }

    // The checkpoint as the site holds it against the copy the page carries, and STATS.json's
    // statement of the tree: the failures, in words (none when they agree).
    function checkpointFailures(site, cp) {
      var out = [];
      if (!sameBytes(site, treeBlock)) out.push({ what: 'the site\'s ledger/tree/checkpoint is not the one this page carries (' + site.length + ' bytes with sha256 ' + V.sha256Hex(site) + '; the page\'s: ' + treeBlock.length + ' bytes with sha256 ' + V.sha256Hex(treeBlock) + ')', href: '#checkpoint' });
      if (cp.error) out.push({ what: 'the tree\'s file ledger/tree/checkpoint (tree_checkpoint): the checkpoint this page carries is not one: ' + cp.error, href: '#checkpoint' });
      else if (cp.headSeq !== cp.size) out.push({ what: 'the tree\'s file ledger/tree/checkpoint (tree_checkpoint): its exhibit-head names seq ' + cp.headSeq + ' where the tree has ' + cp.size + ' seqs', href: '#checkpoint' });
      else if (statsTree !== null) {
        var st = statsTree && typeof statsTree === 'object' ? statsTree : {};
        if (st.size !== cp.size || st.root !== bytesHex(cp.root)) out.push({ what: 'STATS.json states the tree as size ' + String(st.size) + ', root ' + String(st.root) + '; the checkpoint: size ' + cp.size + ', root ' + bytesHex(cp.root), href: '#checkpoint' });
      }
      return out;
    }

    // ---- The operator's signatures (docs/anchoring.md; docs/page.md "Signatures on the page"):
    // the checkpoint's, by the key STATS.json's tree.key names, and every signed snapshot line's,
    // by the key it names, as `exhibit verify SITE` checks them (src/signature_check.rs), with its
    // codes. A signature says who published; never that anything is anchored.
    function keyOf(t) { return t && typeof t === 'object' && typeof t.key === 'string' ? t.key : null; }
    // The cosignatures the last signature check counted, for the independence line.
    var lastCosign = null;
    function signatureCheck(key, checkpoint, snapshots) {
      var sig = V.sign.checkSignatures({ key: key, checkpoint: checkpoint, snapshots: snapshots });
      // The witnesses' cosignatures under the checkpoint (docs/anchoring.md#cosignatures),
      // against the witness keys STATS.json lists, as `exhibit verify SITE` counts them; their
      // problems fail the check as a signature's do.
      var listed = V.cosign.listed(statsTree);
      if (listed && listed.error) {
        sig.cosign = null;
        sig.problems.push({ file: 'ledger/STATS.json', code: 'witness_key', detail: listed.error + ' (docs/anchoring.md#cosignatures)' });
      } else if (listed) {
        sig.cosign = V.cosign.check(checkpoint || new Uint8Array(0), listed);
        lastCosign = sig.cosign;
        sig.cosign.problems.forEach(function (p) { sig.problems.push({ file: p.code === 'witness_key' ? 'ledger/STATS.json' : 'ledger/tree/checkpoint', code: p.code, detail: p.detail }); });
      }
      return sig;
    }
    // "cosigned by k of n witnesses, the latest at <time>", with the witnesses' names.
    function cosignWords(sig) {
      var c = sig && sig.cosign;
      if (!c) return '';
      return ' Witnesses: ' + V.cosign.words(c) + (c.by.length ? ' (' + c.by.join(', ') + ')' : '') +
        ', each cosignature checked here against the witness keys STATS.json lists; a cosignature says a witness saw this tree extend the one it cosigned before, not that its lines are true.';
    }
    function signatureFailures(sig) {
      return sig.problems.map(function (p) { return { what: 'the file ' + p.file + ' (' + p.code + '): ' + p.detail, href: '#signatures' }; });
    }
    // The paragraph under the checkpoint: who signed, what of it was checked here, key changes.
    // `linesChecked`: whether this visit read SNAPSHOTS.jsonl (the log-size path does not).
    var SIGS_DEFERRED = 'Signatures: not checked on this visit. The operator\'s key is named by STATS.json, which this page reads from the site only for Check everything; that check holds the checkpoint\'s signature and every snapshot line\'s to it.';
    function renderSignatures(sig, linesChecked) {
      var c = $('checkpoint');
      if (!c) return;
      var p = $('signatures');
      if (!p) { p = el('p', { id: 'signatures' }); c.parentNode.insertBefore(p, c.nextSibling); }
      clear(p);
      if (!sig) {
        p.setAttribute('data-state', 'unchecked');
        p.className = 'muted';
        p.textContent = SIGS_DEFERRED;
        return;
      }
      var bad = sig.problems.length > 0;
      p.setAttribute('data-state', bad ? 'fails' : sig.key ? 'signed' : 'unsigned');
      p.className = bad ? 'bad' : sig.key ? '' : 'muted';
      if (!sig.key) {
        append(p, [el('strong', null, 'Signatures: '), 'not signed. STATS.json names no operator\'s key (its tree.key), so nothing on this page says who published this exhibit (docs/anchoring.md#the-key).',
          sig.signedLines ? ' ' + sig.signedLines + ' snapshot line' + (sig.signedLines === 1 ? '' : 's') + ' of ledger/SNAPSHOTS.jsonl carr' + (sig.signedLines === 1 ? 'ies' : 'y') + ' a signature that holds under the key it names (' + sig.keys.join(', ') + ').' : '',
          bad ? ' It does NOT hold: ' + sig.problems.map(function (x) { return x.code + ' ' + x.file; }).join('; ') + '.' : '']);
        p.setAttribute('data-key', '');
        return;
      }
      p.setAttribute('data-key', sig.key);
      var lines = linesChecked ? (sig.signedLines + ' snapshot line' + (sig.signedLines === 1 ? '' : 's') + ' of ledger/SNAPSHOTS.jsonl signed, each holding under the key it names')
        : 'the snapshot lines\' signatures: not checked on this visit (Check everything checks them)';
      append(p, [el('strong', null, 'Signed by '), el('code', { class: 'vkey' }, sig.key),
        ' — compare this key with the one the operator posts beside each day\'s head; a signature proves only who published, not that the key is the operator\'s. ',
        'Checked here: the checkpoint\'s signature ' + (sig.checkpoint ? 'holds' : 'does NOT hold') + '; ' + lines + '.',
        sig.runs.length > 1 ? ' The key changed: snapshot lines ' + sig.runs.map(function (r) { return (r.from === r.to ? r.from : r.from + '–' + r.to) + ' are signed by ' + r.key; }).join(', then lines ') + '.' : '',
        sig.cosign ? el('span', { id: 'cosignatures', 'data-k': String(sig.cosign.k), 'data-n': String(sig.cosign.n) }, cosignWords(sig)) : '',
        bad ? ' It does NOT hold: ' + sig.problems.map(function (x) { return x.code + ' ' + x.file; }).join('; ') + ' (see the verdict).' : '']);
    }
    function signatureWords(sig) {
      if (!sig.key) return 'Signatures: not signed (STATS.json names no operator\'s key).' + (sig.problems.length ? ' ' + sig.problems.length + ' signed snapshot line(s) do NOT hold.' : '');
      return 'Signatures by ' + sig.key + ': the checkpoint\'s ' + (sig.checkpoint ? 'holds' : 'does NOT hold') + ', ' + sig.signedLines + ' snapshot line(s) hold' +
        (sig.problems.length ? '; ' + sig.problems.length + ' problem(s): ' + sig.problems.map(function (x) { return x.code + ' ' + x.file; }).join('; ') : '') +
        '. A signature says who published, not that anything is anchored outside the operator\'s reach.' + cosignWords(sig);
    }
    /*
     * A newer publication (docs/page.md "A newer publication"): `site`, the site's
     * ledger/tree/checkpoint, is not the copy this page carries, but a checkpoint of the same
     * origin, larger, signed by the key this page names (when it names one), whose tree extends
     * the page's by a consistency proof from the site's tiles. Resolves to {cp, hashes} or null
     * (not newer: the comparisons that follow fail it as before).
     */
    function newerPublication(site) {
      if (!treeBlock || !site || sameBytes(site, treeBlock)) return Promise.resolve(null);
      var mine = T.parseCheckpoint(treeBlock), theirs = T.parseCheckpoint(site);
      if (mine.error || theirs.error || mine.origin !== theirs.origin || theirs.size <= mine.size || theirs.headSeq !== theirs.size) return Promise.resolve(null);
      var key = keyOf(statsTree);
      if (key && signatureCheck(key, site, null).problems.length) return Promise.resolve(null);
      if (mine.size === 0) return Promise.resolve({ cp: theirs, mine: mine, hashes: 0 });
      return treeAll(T.consistencyTiles(mine.size, theirs.size)).then(function () {
        var proof = T.consistencyProof(mine.size, theirs.size, treeCache);
        return T.checkConsistency(proof, mine.size, mine.root, theirs.size, theirs.root) ? { cp: theirs, mine: mine, hashes: proof.length } : null;
      }, function () { return null; });
    }
    // The verdict on a page older than its site: no failure, a link to the newer publication.
    function renderNewer(n) {
      treeEarlyStop();
      verdict.setAttribute('data-state', 'newer');
      verdict.setAttribute('data-head', '');
      verdict.setAttribute('data-vouched', '');
      verdict.setAttribute('data-tree-size', String(n.cp.size));
      verdict.setAttribute('data-ms', String(Math.round(performance.now())));
      $('badge').textContent = 'Newer publication';
      if ($('progress')) $('progress').hidden = true;
      var href = location.pathname.replace(/^.*\//, '') + '?published=' + n.cp.size + location.hash;
      var vt = clear($('verdict-text'));
      append(vt, ['A newer publication of this exhibit exists: the site now holds ' + n.cp.size.toLocaleString('en') + ' seqs, this copy of the page (likely kept by your browser\'s cache) was published with ' +
        n.mine.size.toLocaleString('en') + '. The newer tree extends this one (a consistency proof of ' + n.hashes + ' hash' + (n.hashes === 1 ? '' : 'es') + ' from the site\'s tiles), so nothing this page carries was rewritten. ',
        el('a', { id: 'load-newer', href: href }, 'Load the newer publication'), ' to check it.']);
      clear($('verdict-why'));
      if ($('checkpoint')) { $('checkpoint').setAttribute('data-state', 'unchecked'); $('checkpoint').textContent = 'Checkpoint: this page carries ' + cpWords(n.mine) + '; the site holds ' + cpWords(n.cp) + '.'; }
      verdict.setAttribute('data-verdict', 'newer');
      status('A newer publication of this exhibit exists: load it to check it.');
    }
    // The light page's default path: the checkpoint, in log size.
    function runLog() {
      t0 = performance.now();
      state.mode = 'log';
      var cp = T.parseCheckpoint(treeBlock);
      $('badge').textContent = 'Checking…';
      clear($('verdict-text')).textContent = 'Checking this exhibit\'s checkpoint in log size: a few small files of ledger/tree/, not the ledger…';
      if ($('progress')) $('progress').hidden = true;
      status('Checking the checkpoint.');
      var mem = monitorLoad();
      if (mem) monitorShow(mem.rewritten ? 'rewritten' : 'remembered', mem.rewritten || mem);
      if (mem && mem.rewritten) state.monitorRewritten = mem.rewritten;
      treeGet('checkpoint').then(function (site) {
        return newerPublication(site).then(function (n) { return n ? { newer: n } : site; });
      }).then(function (site) {
        if (site && site.newer) return site;
        // The checkpoint's signature by the key the carried STATS.json names: the copy the page
        // carries, and the site's when it is another. A page that reads its records from the
        // site (recordsDeferred) reads no STATS.json on this path, so knows no key: not checked.
        // SNAPSHOTS.jsonl is not read on this path: its lines' signatures are not checked.
        var key = keyOf(statsTree), sig = recordsDeferred ? null : signatureCheck(key, treeBlock, null);
        if (sig && key && !sameBytes(site, treeBlock)) signatureCheck(key, site, null).problems.forEach(function (p) { p.detail = 'the site\'s copy: ' + p.detail; sig.problems.push(p); });
        state.sigs = sig;
        var failures = checkpointFailures(site, cp).concat(sig ? signatureFailures(sig) : []);
        if (failures.length) return { cp: cp, checked: [], failures: failures, notes: [] };
        return logChecks(cp).then(function (res) {
          res.cp = cp;
          if (res.failures.length) {
            res.notes.push('The checkpoint was not compared with the one this browser remembers: it does not hold.');
            return res;
          }
          state.treeCp = cp;
          return historyCheck(cp).then(function () { return res; });
        });
      }).then(renderLog, function (e) {
        var words = treeFileWords(e, cp && !cp.error ? cp.size : '?');
        if (e && e.absent && /checkpoint$/.test(String(e.path))) words = 'the site holds no ledger/tree/checkpoint, which this page carries a copy of';
        if (words) { renderLog({ cp: cp, checked: [], failures: [{ what: words, href: '#checkpoint' }], notes: [] }); return; }
        noVerdict('Needs the site', 'The page could not read the tree\'s files (' + String(e && e.message || e) + '), so it checked nothing. No verdict. Check everything re-derives the ledger from its files instead.', 'No verdict: the page could not read the tree.');
        showFullCheck();
      });
    }

    // The verdict on the checkpoint (never the full re-derivation's words nor its badge).
    function renderLog(res) {
      if (res.newer) { renderNewer(res.newer); return; }
      var h = state.history, failures = res.failures.slice();
      if (h && h.rewritten) failures.unshift({ what: historyWords(h.rewritten), href: '#tree-memory' });
      if (monitorFailure()) failures.unshift(monitorFailure());
      if (h && h.failure) failures.push({ what: h.failure, href: '#tree-memory' });
      var ok = !failures.length, cp = res.cp;
      verdict.setAttribute('data-state', 'checkpoint');
      verdict.setAttribute('data-checked', 'log');
      verdict.setAttribute('data-head', '');
      verdict.setAttribute('data-vouched', '');
      verdict.setAttribute('data-ms', String(Math.round(performance.now())));
      if (rewrittenLead()) verdict.setAttribute('data-failed', 'history');
      if (cp && !cp.error) {
        verdict.setAttribute('data-tree-size', String(cp.size));
        verdict.setAttribute('data-tree-root', bytesHex(cp.root));
        verdict.setAttribute('data-origin', cp.origin);
      }
      var read = 'reading ' + treeRead.files + ' file' + (treeRead.files === 1 ? '' : 's') + ' of ledger/tree/ (' + kb(treeRead.bytes) + ')';
      $('badge').textContent = ok ? 'Checkpoint holds' : 'Failed';
      var vt = clear($('verdict-text')), why = clear($('verdict-why'));
      if (rewrittenLead()) vt.textContent = rewrittenLead() + (h && h.rewritten ? historyMeaning() : 'A published ledger only grows: this is a forced push or a split view (another copy shown to you than to others). Do not rely on this exhibit until the publisher explains.');
      else if (ok) vt.textContent = 'The checkpoint holds, checked in log size (' + treeRead.files + ' files of ledger/tree/, ' + kb(treeRead.bytes) + '); the ledger was not re-derived.';
      else vt.textContent = 'The checkpoint does NOT hold: ' + failures.length + ' check' + (failures.length === 1 ? '' : 's') + ' failed (' + read + '). Do not rely on this exhibit until the publisher explains:';
      if (!ok) why.appendChild(el('ul', { id: 'failures' }, failures.map(function (x) { return el('li', null, el('a', { href: x.href }, x.what.charAt(0).toUpperCase() + x.what.slice(1)), '.'); })));
      var checked = res.checked.slice();
      if (h && h.kind === 'consistent') checked.push('Your last visit, on ' + when(h.mem.checked_at) + ': today\'s tree extends the one you saw then (' + h.mem.size + ' seqs), by a consistency proof of ' + h.hashes + ' hash' + (h.hashes === 1 ? '' : 'es') + '.');
      // What was and was not checked, one click away: the first screen stays short (docs/page.md
      // "The first screen").
      var more = el('details', { id: 'log-detail', open: ok ? null : 'open' }, el('summary', null, 'What this visit checked, and what it did not'));
      if (ok) state.logDetail = more; else why.appendChild(more);
      if (checked.length) more.appendChild(el('div', null, el('h3', null, 'Checked on this visit'), el('ul', { id: 'log-checked' }, [cp && !cp.error ? el('li', null, 'The checkpoint this page carries is the site\'s ledger/tree/checkpoint, byte for byte: ' + cpWords(cp) + ', head ' + cp.headHex + ' at seq ' + cp.headSeq + '.') : null]
        .concat(checked.map(function (w) { return el('li', null, w); })))));
      var not = [
        'The chain: NOT re-derived. No line of the ledger was read here, so this verdict does not say that the lines re-derive, that the posted heads check out against them, what is vouched for, or that the checkpoint is the chain\'s own tree (only that its tiles, its head and the posted head agree with it).',
        'The tree\'s other files (the lines, the entry bundles, the digest index, the tiles no proof here needed), and the files beside the page (STATS.json, the anchors\' index, the withheld list, the released texts, the witness proofs).',
        'That the operator shows everyone this checkpoint: a checkpoint is only as good as where you got it (docs/tree.md#what-it-proves).'
      ];
      if (h && h.kind === 'first') not.push('Your earlier visits: this browser remembered no checkpoint of this exhibit; it remembers this one now, for your next visit.');
      if (h && h.kind === 'other-log') not.push('Your last visit: the checkpoint this browser remembers is of another log (origin ' + h.mem.origin + '), so it was not compared.');
      res.notes.forEach(function (w) { not.push(w); });
      more.appendChild(el('div', null, el('h3', null, 'Not checked on this visit'), el('ul', { id: 'log-unchecked' }, not.map(function (w) { return el('li', null, w); }))));
      renderLogCheckpoint(cp, ok);
      renderSignatures(state.sigs, false);
      renderNotDerived();
      showFullCheck();
      var codes = clear($('verdict-codes'));
      if (state.logDetail) { codes.appendChild(state.logDetail); state.logDetail = null; }
      codes.appendChild(el('p', null, 'Checked in log size in ' + ((performance.now() - t0) / 1000).toFixed(2) + ' s, ' + read + ': ' + Array.from(treeCache.keys()).map(function (p) { return 'ledger/tree/' + p; }).join(', ') + '.'));
      codes.appendChild(el('ul', { class: 'checks' }, el('li', { id: 'tree-check' }, 'The tree: checked in log size on this visit (see above); its files are held to the chain only by Check everything.'),
        el('li', { id: 'snapshot-check' }, 'Files under ledger/ against the digests of the last line of SNAPSHOTS.jsonl: not checked on this visit (Check everything holds them).'),
        el('li', { id: 'signature-check' }, state.sigs ? signatureWords(state.sigs) : SIGS_DEFERRED)));
      verdict.setAttribute('data-verdict', ok ? 'checkpoint' : 'failed');
      renderIndependent();
      if (ok) status('Verdict on the checkpoint: it holds, checked in log size; the chain was not re-derived.');
      else statusFailed(failures[0].what);
      state.ready = true;
      $('paste-go').disabled = false;
      if (state.queued !== null) { var q = state.queued; state.queued = null; prove(q, state.queuedFromLink); }
    }
    function renderLogCheckpoint(cp, ok) {
      var p = $('checkpoint');
      if (!p) return;
      clear(p);
      p.setAttribute('data-state', ok ? 'holds-log' : 'fails');
      p.className = ok ? 'ok' : 'bad';
      append(p, [el('strong', null, 'Checkpoint: '), cp && !cp.error ? cpWords(cp) + '. ' : 'the page carries none it can read. ',
        ok ? 'Checked in log size on this visit (the site\'s copy, its tiles, its head and the newest posted head); not re-derived from the chain.' : 'It does NOT hold: see the verdict.']);
    }
    // The sections the full check fills, said empty on purpose.
    function renderNotDerived() {
      var words = 'Not re-derived on this visit: this page checked the checkpoint only, in log size. Check everything (above) re-derives the chain and fills this section.';
      if ($('stream-note')) $('stream-note').textContent = 'This visit read none of the ledger\'s files: it checked the checkpoint in log size. Check everything (above) fetches them, each checked against its sha256 and size in the list this page carries, and re-derives them line by line.';
      if ($('stream')) $('stream').open = false;
      clear($('tiles')).appendChild(el('p', { class: 'muted' }, words));
      clear($('coverage-body')).appendChild(el('p', { class: 'muted' }, words));
      clear($('anchors-body')).appendChild(el('tr', null, el('td', { colspan: '8', class: 'muted' }, words)));
      $('lines-count').textContent = words + ' A pasted message is looked up in the tree\'s digest index and proved against the checkpoint.';
      if ($('texts-check')) clear($('texts-check')).appendChild(el('p', { class: 'muted' }, publicTexts && !textsCarried
        ? 'This light page does not carry the released texts, so it has re-hashed none of them on this visit: a text is fetched and re-hashed when a pasted message finds its line (ledger/public_texts/<sent_sha256>.txt).' : words));
    }
    // The button that runs the full check, with what it will fetch.
    function showFullCheck() {
      var box = $('full-check');
      if (!box || state.full) return;
      var files = ledgerFileList(layout), latest = block('ledger-latest');
      var size = statsTree && typeof statsTree.size === 'number' ? statsTree.size : (treeBlock && !T.parseCheckpoint(treeBlock).error ? T.parseCheckpoint(treeBlock).size : 0);
      var est = fullCheckEstimate(Array.isArray(files) ? files : [], latest && latest.length ? latest : null, size);
      box.hidden = false;
      $('full-check-words').textContent = 'Re-derives every line here: about ' + (est.total < 1048576 ? kb(est.total) : mb(est.total)) + ' to fetch.';
      $('full-check-words').title = 'The ledger\'s files (' + mb(est.ledger) + ', as STATS.json lists them) and the tree\'s (about ' + mb(est.tree) + ': its lines/ repeat the ledger\'s lines); every posted head, the records beside the page and every file of the tree are checked against the chain.';
    }
    function startFull() {
      if (state.full || !light) return;
      if (recordsDeferred) {
        // A page that reads its records from the site read none for the log-size path: it
        // starts again, asked for the full check, and reads them first.
        location.hash = '#check-everything';
        location.reload();
        return;
      }
      state.full = true;
      state.mode = 'full';
      state.ready = false;
      if ($('full-check')) $('full-check').hidden = true;
      ['data-checked', 'data-failed', 'data-tree-size', 'data-tree-root', 'data-origin'].forEach(function (a) { verdict.removeAttribute(a); });
      verdict.setAttribute('data-state', 'working');
      verdict.setAttribute('data-verdict', 'working');
      $('badge').textContent = 'Checking…';
      clear($('verdict-why'));
      clear($('verdict-codes')).appendChild(el('p', { class: 'muted' }, 'Working…'));
      if ($('progress')) $('progress').hidden = false;
      status('Checking everything: re-deriving the ledger.');
      runLight();
    }
    if ($('check-everything')) $('check-everything').addEventListener('click', startFull);

    /*
     * The full check's tree (docs/tree.md#verifiers): every file the tree at the chain's size has,
     * fetched (or read from the picked folder) and held to the tree re-derived from the chain
     * with checkTreeFiles — the lines/ files by the sha256 of each group of 256 seqs, hashed as
     * the ledger streamed — and the snapshot's tree/ digest from their sha256. A visit that
     * resumed from remembered files has not every line: it checks the checkpoint in log size
     * instead, and says so. Then the returning visitor's check. -> state.tree.
     */
    function treeStep(r) {
      var unchecked = function (why) { return { status: 'unchecked', problems: [], why: why }; };
      if (!r.ok || r.resumedToSeq || !r.lineGroups) treeEarlyStop();
      if (!treeBlock && statsTree === null) { state.tree = { status: 'none', problems: [] }; return Promise.resolve(); }
      if (!treeBlock) { state.tree = treeOfChain(r); return Promise.resolve(); }
      var cp = T.parseCheckpoint(treeBlock);
      if (!r.ok) { state.tree = unchecked('the chain does not re-derive, so there are no leaves to hold the tree to'); return Promise.resolve(); }
      if (cp.error) {
        state.tree = { status: 'failed', problems: [{ file: 'ledger/tree/checkpoint', code: 'tree_checkpoint', detail: 'not a checkpoint: ' + cp.error }] };
        return Promise.resolve();
      }
      if (r.resumedToSeq || !r.lineGroups) {
        state.tree = unchecked('this visit resumed from ledger files this browser re-derived on an earlier visit, so it does not hold every line to re-derive the tree from; the checkpoint was checked in log size instead (its tiles, its head, the newest posted head). Forget what this browser remembers and reload to re-derive every tree file');
        return logChecks(cp).then(function (res) {
          state.tree.problems = res.failures.map(function (f) { return { file: 'ledger/tree/', code: 'tree_checkpoint', detail: f.what }; });
          if (res.failures.length) { state.tree.status = 'failed'; return null; }
          state.treeCp = cp;
          return historyCheck(cp);
        });
      }
      // The leaves are made where the records are (storeAnswer): only their number comes back.
      var held = withheld.filter(function (w) { return w && typeof w.seq === 'number' && typeof w.entry_id === 'string'; })
        .map(function (w) { return { seq: w.seq, entry_id: w.entry_id }; });
      return state.store.ask('leaves', { withheld: held }).then(function (leaves) {
        if (leaves.error) { treeEarlyStop(); state.tree = unchecked(leaves.error); return null; }
        return treeFilesCheck(r, cp, leaves.size);
      });
    }
    /*
     * The tree's files read (fetched, or from the picked folder) and hashed: {actual: the bytes
     * of every file but lines/', linesRead: lines/' sha256 and size, listing, t: counts}. `names`
     * k at a time; `acc.stop` ends it early (the check it was for has ended).
     */
    function treeReadAll(names, acc) {
      acc = acc || { actual: new Map(), linesRead: new Map(), excerptsRead: new Set(), listing: [], t: { files: 0, bytes: 0 }, stop: false };
      acc.done = pool(names, 4, function (rel) {
        if (acc.stop) return null;
        return (treeCache.has(rel) ? Promise.resolve(treeCache.get(rel)) : treeRaw(rel)).then(function (b) {
          var sha = V.sha256Hex(b);
          acc.t.files++; acc.t.bytes += b.length;
          if (state.progress) { state.progress.tree = acc.t.bytes; showProgress(); }
          acc.listing.push({ path: rel, sha256: sha });
          if (rel.indexOf('lines/') === 0) acc.linesRead.set(rel, [sha, b.length]);
          else if (rel.indexOf('excerpts/') === 0) acc.excerptsRead.add(rel);
          else {
            acc.actual.set(rel, b);
            if (/^tile\/[0-7]\//.test(rel) && !treeCache.has(rel)) treeCache.set(rel, b);
          }
        }, function (e) { if (!(e && e.absent)) throw e; });
      });
      return acc;
    }
    /*
     * Over http, a full read of the ledger starts reading the tree's files at the size of the
     * checkpoint the page carries while the ledger streams (docs/page.md#records-in-the-worker):
     * treeFilesCheck holds them to the chain once it is re-derived, or reads its own when the
     * chain's size is another. Stopped when the check ends before it.
     */
    function treeEarly() {
      if (!treeBlock || state.picked || location.protocol === 'file:') return null;
      var cp = T.parseCheckpoint(treeBlock);
      if (cp.error) return null;
      var names = T.treeFileNames(cp.size), excerpts = excerptNamesOf(names, cp.size);
      var acc = treeReadAll(names.concat(excerpts));
      acc.size = cp.size;
      acc.excerpts = excerpts.length;
      acc.done = acc.done.then(function () { return null; }, function (e) { return e; });
      return acc;
    }
    /*
     * The excerpt index's files and its text map at the tree's size (docs/tree.md#excerpts), when
     * STATS.json says it is published: made from the released texts, not the chain, so they are read for the
     * snapshot's tree/ digest and named (a missing one is missing), not held to the texts here
     * (exhibit verify SITE does that).
     */
    function excerptNamesOf(names, size) {
      if (!(statsTree && statsTree.excerpts === true)) return [];
      var out = names.filter(function (n) { return n.indexOf('index/') === 0; }).map(function (n) { return 'excerpts/' + n.slice(6); });
      return out.concat(V.excerpt.textMapNames(size));
    }
    // What was started early for a check that ended: the tree's reads, the reader (requestEarly).
    function treeEarlyStop() {
      if (state.treeEarly) { state.treeEarly.stop = true; state.treeEarly = null; }
      if (state.readerEarly) { state.readerEarly.rd.stop(); state.readerEarly = null; }
    }
    // Every tree file at `size` read and held to the chain re-derived (treeStep).
    function treeFilesCheck(r, cp, size) {
      var names = T.treeFileNames(size), local = !!state.picked;
      var isLines = function (rel) { return rel.indexOf('lines/') === 0; };
      var excerptNames = excerptNamesOf(names, size);
      var excerptSet = new Set(excerptNames);
      var present = local ? Object.keys(state.picked).filter(function (p) { return p.indexOf('ledger/tree/') === 0; }).map(function (p) { return p.slice(12); }) : null;
      var wanted = local ? present : names.concat(excerptNames);
      clear($('verdict-text')).textContent = 'Holding the tree\'s ' + names.length.toLocaleString('en') + ' files to the chain…';
      var early = state.treeEarly && state.treeEarly.size === size && state.treeEarly.excerpts === excerptNames.length ? state.treeEarly : null;
      if (!early) treeEarlyStop();
      state.treeEarly = null;
      if (state.progress && !early) state.progress.tree = 0;
      var read = early || treeReadAll(wanted);
      var actual = read.actual, linesRead = read.linesRead, listing = read.listing, t = read.t, excerptsRead = read.excerptsRead;
      return read.done.then(function (err) {
        if (early && err) throw err;
      }).then(function () {
        var listed = new Set(names.filter(isLines));
        var seen = (present || Array.from(actual.keys()).concat(Array.from(linesRead.keys()))).filter(function (rel) { return !listed.has(rel) && !excerptSet.has(rel); });
        return state.store.ask('tree', { origin: cp.origin, head: r.head, actual: actual, seen: seen });
      }).then(function (made) {
        // lines/: each file against its group's sha256 (a group with no published line: empty).
        var groups = new Map(), problems = [], lineNames = new Set();
        r.lineGroups.forEach(function (g) { groups.set(g[0], g); });
        var empty = V.sha256Hex(new Uint8Array(0));
        names.filter(isLines).forEach(function (rel) {
          lineNames.add(rel);
          var n = T.parseTreePath(rel).n, want = groups.get(n) || [n, empty, 0], got = linesRead.get(rel);
          if (!got) problems.push({ file: 'ledger/tree/' + rel, code: 'tree_file_missing', detail: 'absent; the tree at size ' + size + ' has it' });
          else if (got[0] !== want[1]) problems.push({ file: 'ledger/tree/' + rel, code: 'tree_file_differs', detail: got[1] + ' bytes with sha256 ' + got[0] + '; the re-derivation\'s ' + want[2] + ' bytes with sha256 ' + want[1] });
        });
        excerptNames.forEach(function (rel) {
          if (!excerptsRead.has(rel)) problems.push({ file: 'ledger/tree/' + rel, code: 'excerpt_file_missing', detail: 'absent; the excerpt index at size ' + size + ' has it' });
        });
        problems = problems.concat(made.problems);
        // The snapshot's tree/ digest, from every tree file read (docs/verifier.md#the-snapshots-digests).
        var recorded = lastSnapshotDigests(snapshotsText);
        if (recorded && state.snapshot && !state.snapshot.missing) {
          var derived = listing.length ? { 'tree/': V.sha256Hex(V.utf8Encode(folderListing(listing))) } : {};
          snapshotDiffer(recorded, derived, function (k) { return k === 'tree/'; }).forEach(function (x) { problems.push(x); });
          state.snapshot.treeHeld = true;
        }
        problems.sort(function (a, b) { return a.file < b.file ? -1 : a.file > b.file ? 1 : a.code < b.code ? -1 : a.code > b.code ? 1 : 0; });
        state.tree = { status: problems.length ? 'failed' : 'checked', mode: 'files', local: local, cp: cp, size: size, root: made.root, rootHex: bytesHex(made.root),
          files: t.files, bytes: t.bytes, problems: problems, excerpts: excerptNames.length };
        if (problems.some(function (p) { return p.code === 'tree_checkpoint' || /^tile\/[0-7]\//.test(p.file.slice(12)); })) return null;
        state.treeCp = cp;
        return historyCheck(cp);
      });
    }

    // ---- prove one message on a light page, in log n (docs/page.md "Prove one message on a
    // light page"; docs/tree.md#what-it-proves): the digest index names the seqs, one lines/
    // file gives the line, its entry_id is re-derived here and proved a leaf of the verified
    // checkpoint's tree.
    function proveLog(text, fromLink) {
      var out = $('paste-result'), cp = state.treeCp, size = cp.size, token = {}, t0 = performance.now();
      state.proving = token;
      state.answer = {};
      clear(out);
      ['data-seq', 'data-verdict', 'data-standing', 'data-field', 'data-proof', 'data-via', 'data-excerpt', 'data-ms'].forEach(function (a) { out.removeAttribute(a); });
      out.setAttribute('data-match', '');
      var t = toLF(text);
      if (!t.trim()) { out.textContent = 'Paste a message, a digest or a seq first.'; return; }
      out.appendChild(el('p', { class: 'muted' }, 'Looking your message up in the tree\'s digest index…'));
      var from = { files: treeRead.files, bytes: treeRead.bytes, paths: new Set(treeCache.keys()) };
      var hex = digestOf(t), seq = hex === null ? pasteSeq(t) : null;
      var forms = hex !== null ? [{ name: 'a pasted digest', sha: hex }] : variants(t).map(function (v) { return { name: v.name, sha: V.sha256Hex(V.utf8Encode(v.text)) }; });
      var trailer = hex === null ? trailerSeq(t) : null;
      var falseHits = [], looked = [];
      var linesFile = function (q) { var n = Math.floor((q - 1) / 256); return T.linesPath(n, Math.min(256, size - 256 * n)); };
      // The published line at seq q, proved: null when the lines file has none (withheld).
      function tryLine(q) {
        var rel = linesFile(q);
        return treeGet(rel).then(function (b) {
          var at = 0, line = null;
          while (at < b.length && !line) {
            var lf = b.indexOf(10, at);
            if (lf < 0) lf = b.length;
            var one = b.subarray(at, lf), v = V.parseJsonLine(one);
            if (v.readable && v.value.seq === q) line = one;
            at = lf + 1;
          }
          if (!line) return null;
          var id = V.lineEntryId(line), o = V.parseJsonLine(line).value;
          var found = { seq: q, line: line, file: rel, object: o, id: id };
          if (id.error) { found.holds = false; found.why = id.error; return found; }
          var paths = T.neededTiles(size, q - 1);
          return treeAll(paths).then(function () {
            var proof = T.inclusionProof(size, q - 1, treeCache);
            found.hashes = proof.length;
            found.holds = T.checkInclusion(proof, size, cp.root, q - 1, T.leafHash(hexBytes(id.entry_id)));
            if (!found.holds) found.why = 'its inclusion proof from the tiles does not lead to the checkpoint\'s root: this line is not the tree\'s line at seq ' + q;
            return found;
          });
        });
      }
      var fieldsOf = function (o, shas) {
        var m = [];
        DIGEST_FIELDS.forEach(function (f) { shas.forEach(function (x) { if (o && o[f] === x.sha && m.every(function (y) { return y.field !== f; })) m.push({ field: f, form: x }); }); });
        return m;
      };
      function byIndex(k) {
        if (k >= forms.length) return Promise.resolve(null);
        var form = forms[k], seqs = [];
        var paths = T.indexLookupPaths(size, form.sha);
        looked.push(form);
        return treeAll(paths).then(function (files) {
          files.forEach(function (b, i) {
            var s = T.indexSeqs(b, form.sha);
            if (s.error) throw new Error('ledger/tree/' + paths[i] + ': ' + s.error);
            s.forEach(function (q) { if (seqs.indexOf(q) < 0 && q >= 1 && q <= size) seqs.push(q); });
          });
          seqs.sort(function (a, b) { return a - b; });
          // Every line the index names for this form is read and proved (at most MAX_HITS);
          // the first form with a line that carries it is the answer.
          var i = 0, hits = [];
          function next() {
            if (i >= seqs.length || hits.length >= MAX_HITS) return hits.length ? hits : byIndex(k + 1);
            var q = seqs[i++];
            return tryLine(q).then(function (f) {
              var m = f ? fieldsOf(f.object, [form]) : [];
              if (f && m.length) { f.fields = m; f.via = 'index'; hits.push(f); }
              else if (f) falseHits.push(q);
              return next();
            });
          }
          return next();
        });
      }
      var work;
      if (seq !== null) work = seq <= size ? tryLine(seq).then(function (f) { if (f) { f.via = 'seq'; f.fields = []; } return f ? [f] : null; }) : Promise.resolve(null);
      else if (trailer !== null && trailer >= 1 && trailer <= size) {
        // The seq the trailer names first: the line there, when it carries one of the forms, is
        // the answer without the index.
        work = tryLine(trailer).then(function (f) {
          var m = f ? fieldsOf(f.object, forms) : [];
          if (f && m.length) { f.fields = m; f.via = 'trailer'; return [f]; }
          return byIndex(0);
        });
      } else work = byIndex(0);
      // A text no digest finds: a passage of a released text, by the excerpt index.
      var ex = null;
      if (hex === null && seq === null) {
        work = work.then(function (found) {
          if (found) return found;
          ex = { words: V.excerpt.words(t) };
          return excerptLookup(t, ex, size, tryLine);
        });
      }
      work.then(function (found) {
        if (state.proving !== token) return;
        var cost = { files: treeRead.files - from.files, bytes: treeRead.bytes - from.bytes, paths: Array.from(treeCache.keys()).filter(function (p) { return !from.paths.has(p); }) };
        clear(out);
        if (found && found[0].via === 'excerpt') showExcerptMatch(out, found, cost, ex);
        else if (found) showTreeMatch(out, found, cost, hex);
        else showTreeMiss(out, { hex: hex, seq: seq, forms: forms, looked: looked, falseHits: falseHits, cost: cost, ex: ex });
        treeAnswered(out, fromLink, t0);
      }, function (e) {
        if (state.proving !== token) return;
        clear(out);
        out.setAttribute('data-match', 'none');
        out.setAttribute('data-verdict', 'unavailable');
        out.appendChild(el('h3', { class: 'bad' }, 'The tree could not answer'));
        out.appendChild(el('p', null, (treeFileWords(e, size) || String(e && e.message || e)) + '. Nothing about your message was checked.'));
        treeAnswered(out, fromLink, t0);
      });
    }
    // `t0`: when the proof started; the answer's milliseconds go in data-ms (benches/page-budgets.sh).
    function treeAnswered(out, fromLink, t0) {
      out.setAttribute('data-ms', String(Math.round(performance.now() - t0)));
      answerLead(out);
      var seq = out.getAttribute('data-seq'), m = out.getAttribute('data-match');
      pasteStatus('Result: ' + (m === 'hash' || m === 'seq' || m === 'excerpt' ? (m === 'excerpt' ? 'a passage of a released text, ' : '') + (out.getAttribute('data-proof') === 'included' ? 'found and proved in the tree' : 'found, NOT proved in the tree')
        : out.getAttribute('data-excerpt') === 'text-differs' ? 'NOT proved: a released text on this site was changed' : 'not found') + (seq ? ', seq ' + seq : '') + '.');
      if (fromLink) {
        out.scrollIntoView({ block: 'start' });
        try { out.focus({ preventScroll: true }); } catch (e) { out.focus(); }
      }
    }
    var MAX_HITS = 8;
    // Candidates of an excerpt whose released text is held to the paste by the text map.
    var MAX_TEXTS = 16;
    // Lookups of an excerpt's keys, the least key's and those that narrow its seqs.
    var MAX_KEYS = 3;
    // `found`: the lines found, each proved (or not) against the verified checkpoint.
    function showTreeMatch(out, found, cost, hex) {
      var cp = state.treeCp, f = found[0], all = found.every(function (x) { return x.holds; });
      out.setAttribute('data-match', f.via === 'seq' ? 'seq' : 'hash');
      out.setAttribute('data-via', f.via);
      out.setAttribute('data-seq', String(f.seq));
      out.setAttribute('data-proof', all ? 'included' : 'not-included');
      if (f.fields.length) out.setAttribute('data-field', f.fields.map(function (m) { return m.field; }).join(' '));
      var fo = f.object || {};
      state.answer = { line: { seq: f.seq, kind: fo.kind, dec: typeof fo.decision === 'string' ? fo.decision : '', ts: fo.timestamp, day: fo.day }, proved: all };
      var which = found.length > 1 ? found.length + ' lines (seqs ' + found.map(function (x) { return x.seq; }).join(', ') + ')' : 'the line at seq ' + f.seq;
      out.appendChild(el('h3', { class: all ? 'ok' : 'bad' }, all ? 'In the exhibit\'s tree: ' + which + (f.fields.length ? ' carr' + (found.length > 1 ? 'y ' : 'ies ') + (hex !== null ? 'the pasted digest' : 'your text\'s digest') : '') + ', proved against the checkpoint'
        : (found.length > 1 ? 'Not every one of ' + which : 'The line at seq ' + f.seq) + ' is proved in the exhibit\'s tree'));
      var form = f.fields.length ? f.fields[0].form : null;
      var how = f.via === 'seq' ? 'You asked for seq ' + f.seq + '.'
        : (form.name === 'a pasted digest' ? 'The pasted digest is one' : 'Your text (' + form.name + ') hashes to a digest') + ' that ' + (found.length > 1 ? 'these lines carry' : 'the line carries') +
          (f.via === 'trailer' ? '; the line was found at the seq the text\'s trailer names.' : '; ' + (found.length > 1 ? 'they were' : 'the line was') + ' found through the tree\'s digest index (a hint, checked on each line itself).');
      out.appendChild(el('p', null, el('strong', null, 'Found. '), how, form ? [' sha256 ', fullDigest(form.sha, 'sha256')] : null));
      found.forEach(function (x) {
        var o = x.object || {}, pre = el('pre', { class: 'released tree-line' });
        pre.textContent = V.utf8Decode(x.line) || '';
        var box = el('div', { class: 'hit', 'data-seq': String(x.seq), 'data-proof': x.holds ? 'included' : 'not-included' },
          el('h4', null, 'Seq ' + x.seq + ', as published (' + (o.kind || 'a line') + (o.timestamp ? ', ' + o.timestamp + ' by the gate\'s clock' : '') + ')' +
            (x.fields.length ? ': it carries the digest as ' + x.fields.map(function (m) { return m.field; }).join(' and ') : '')), pre,
          el('ul', { class: 'facts' },
            el('li', null, x.id.error ? 'entry_id: NOT re-derived: ' + x.id.error : ['entry_id ', fullDigest(x.id.entry_id, 'entry_id'), ', re-derived here from the line\'s bytes.']),
            el('li', null, x.holds ? 'Inclusion proof: ' + x.hashes + ' hash' + (x.hashes === 1 ? '' : 'es') + ' from the tree\'s tiles lead from this line to the root of the checkpoint this page checked (' + cpWords(cp) + '): it holds.'
              : 'Inclusion proof: it does NOT hold: ' + x.why + '.'),
            el('li', null, link('ledger/tree/' + x.file, 'Its lines file'), ' (ledger/tree/' + x.file + ').')));
        // The released text of a send line found and proved, whichever of its digests matched:
        // fetched and re-hashed, shown when the index part lists this line (allow-listed).
        if (x.holds && typeof o.sent_sha256 === 'string' && HEX64.test(o.sent_sha256) && publicTexts && !textsCarried) box.appendChild(fetchedRelease(o.sent_sha256, x.seq));
        out.appendChild(box);
      });
      out.appendChild(el('p', { class: 'muted' }, 'Read for this answer: ' + cost.files + ' file' + (cost.files === 1 ? '' : 's') + ' of ledger/tree/ (' + kb(cost.bytes) + ')' + (cost.paths.length ? ': ' + cost.paths.map(function (p) { return 'ledger/tree/' + p; }).join(', ') : '') + '.'));
      out.appendChild(standingUnshown());
      out.appendChild(el('p', { class: 'caveat' }, all
        ? 'What this proves: ' + (found.length > 1 ? 'these lines\' bytes are the chain\'s lines at their seqs' : 'these bytes are the chain\'s line at seq ' + f.seq) + ' in the exhibit whose checkpoint this page checked on this visit. It does not show that the chain before it re-derives (Check everything does), nor that the operator shows everyone this checkpoint: a checkpoint is only as good as where you got it. It never proves who typed the text, or that it is true (docs/tree.md#what-it-proves).'
        : 'A line that is not the tree\'s line at its seq proves nothing: do not rely on it until the publisher explains.'));
    }
    // Lines found by the excerpt index: each proved in the tree, its released text re-hashed to
    // its sent_sha256 and holding the paste's words as a run, shown with the passage marked.
    function showExcerptMatch(out, found, cost, ex) {
      var cp = state.treeCp, f = found[0], all = found.every(function (x) { return x.holds; }), fo = f.object || {};
      var whole = f.excerpt.at === 0 && f.excerpt.n === f.excerpt.words.length;
      out.setAttribute('data-match', 'excerpt');
      out.setAttribute('data-via', 'excerpt');
      out.setAttribute('data-excerpt', 'found');
      out.setAttribute('data-seq', String(f.seq));
      out.setAttribute('data-field', 'sent_sha256');
      out.setAttribute('data-proof', all ? 'included' : 'not-included');
      state.answer = { line: { seq: f.seq, kind: fo.kind, dec: typeof fo.decision === 'string' ? fo.decision : '', ts: fo.timestamp, day: fo.day }, proved: all, excerpt: { whole: whole, n: f.excerpt.n } };
      var which = found.length > 1 ? 'the messages of seqs ' + found.map(function (x) { return x.seq; }).join(', ') : 'the message of seq ' + f.seq;
      out.appendChild(el('h3', { class: all ? 'ok' : 'bad' }, all ? 'A passage of ' + which + ', proved against the checkpoint'
        : 'A passage of ' + which + ', but ' + (found.length > 1 ? 'not every line is' : 'its line is NOT') + ' proved in the exhibit\'s tree'));
      out.appendChild(el('p', null, el('strong', null, 'Found. '), 'Your ' + f.excerpt.n + ' words stand word for word, as one run, in the released text' + (found.length > 1 ? 's' : '') + ' of ' + seqList(found.map(function (x) { return x.seq; })) +
        ' (words as the excerpt index reads them: case and punctuation count; spacing, markdown marks and the gate trailer do not). The line' + (found.length > 1 ? 's were' : ' was') + ' found through the tree\'s excerpt index (a hint, checked on each text itself).'));
      found.forEach(function (x) { out.appendChild(excerptHit(x, cp)); });
      if (ex.elsewhere.length) out.appendChild(el('p', { class: 'muted' }, 'The excerpt index also named ' + seqList(ex.elsewhere) + ', whose released text' + (ex.elsewhere.length === 1 ? ' does' : 's do') + ' not hold your words as a run (a shingle of 8 of your words shared by chance).'));
      var unread = ex.named.filter(function (q) { return ex.read.indexOf(q) < 0 && ex.elsewhere.indexOf(q) < 0; });
      if (unread.length) out.appendChild(el('p', { class: 'muted', 'data-unread': String(unread.length) }, 'The excerpt index also names ' + seqList(unread.slice(0, 20)) + (unread.length > 20 ? ' and ' + (unread.length - 20) + ' more' : '') +
        ': not read for this answer (each costs its lines/ file of up to 256 lines); other released texts may hold the same words.'));
      if (ex.bad.length) out.appendChild(el('p', { class: 'bad' }, 'The released text of ' + seqList(ex.bad.map(function (b) { return b.seq; })) + ', also named, does NOT re-hash to its line\'s sent_sha256 on this site: it was changed after the build, and proves nothing.'));
      var files = cost.files + ex.texts.files, bytes = cost.bytes + ex.texts.bytes;
      out.appendChild(el('p', { class: 'muted', 'data-files': String(files), 'data-bytes': String(bytes) }, 'Read for this answer: ' + files + ' file' + (files === 1 ? '' : 's') + ' (' + kb(bytes) + '): ' +
        cost.paths.map(function (p) { return 'ledger/tree/' + p; }).concat(ex.texts.paths).join(', ') + '.'));
      out.appendChild(standingUnshown());
      out.appendChild(el('p', { class: 'caveat' }, all
        ? 'What this proves: your words are a verbatim passage of the released text whose sha256 is the sent_sha256 of the line at seq ' + f.seq + ', and that line is the chain\'s line at its seq in the exhibit whose checkpoint this page checked on this visit. ' +
          (whole ? 'Your words are all of that text\'s words (its bytes may still differ from your paste\'s: spacing and marks are not compared). ' : 'It does not show that your excerpt is the whole message: the rest of the text is shown above. ') +
          'It does not show that the chain before it re-derives (Check everything does), nor that the operator shows everyone this checkpoint, nor who typed the text, or that it is true (docs/tree.md#excerpts).'
        : 'A line that is not the tree\'s line at its seq proves nothing: do not rely on it until the publisher explains.'));
    }
    // What an answer through the tree says of the line's standing: after the full check the
    // chain was re-derived, but this answer did not ask the records for the line's standing.
    function standingUnshown() {
      if (state.store && !(state.result && state.result.resumedToSeq)) return el('p', { class: 'standing' }, el('strong', null, 'Standing: not shown in this answer. '), 'This visit re-derived the chain (the verdict above), but this answer came through the tree; paste the whole message to see whether a posted head vouches for its line, or a withheld line severs it.');
      return el('p', { class: 'standing' }, el('strong', null, 'Standing: not computed on this visit. '), 'Whether a posted head vouches for a line, or a withheld line severs it, needs the chain, which this visit did not re-derive; Check everything (above) does.');
    }
    // One line found by an excerpt: the line, its proof, its released text with the passage marked.
    function excerptHit(x, cp) {
      var o = x.object || {}, e = x.excerpt, pre = el('pre', { class: 'released tree-line' });
      pre.textContent = V.utf8Decode(x.line) || '';
      var text = el('pre', { class: 'released' });
      text.textContent = e.text;
      return el('div', { class: 'hit', 'data-seq': String(x.seq), 'data-proof': x.holds ? 'included' : 'not-included', 'data-word': String(e.at + 1) },
        el('h4', null, 'Seq ' + x.seq + ', as published (' + (o.kind || 'a line') + (o.timestamp ? ', ' + o.timestamp + ' by the gate\'s clock' : '') + '): its released text holds your words'), pre,
        el('ul', { class: 'facts' },
          el('li', null, x.id.error ? 'entry_id: NOT re-derived: ' + x.id.error : ['entry_id ', fullDigest(x.id.entry_id, 'entry_id'), ', re-derived here from the line\'s bytes.']),
          el('li', null, x.holds ? 'Inclusion proof: ' + x.hashes + ' hash' + (x.hashes === 1 ? '' : 'es') + ' from the tree\'s tiles lead from this line to the root of the checkpoint this page checked (' + cpWords(cp) + '): it holds.'
            : 'Inclusion proof: it does NOT hold: ' + x.why + '.'),
          el('li', null, link(e.path, 'Its released text'), ' (' + e.path + ', ' + kb(e.bytes) + '), re-hashed in your browser: the same as the line\'s sent_sha256 ', fullDigest(e.sha, 'sent_sha256'), '.'),
          el('li', null, 'Your words are words ' + (e.at + 1) + ' to ' + (e.at + e.n) + ' of its ' + e.words.length + '.'),
          el('li', null, link('ledger/tree/' + x.file, 'Its lines file'), ' (ledger/tree/' + x.file + ').')),
        passageView(e.words, e.at, e.n),
        el('details', { class: 'released-box' }, el('summary', null, 'The released bytes of this send (fetched)'), text));
    }
    // The text's words around the passage, the passage marked.
    function passageView(words, at, n) {
      var from = Math.max(0, at - 24), to = Math.min(words.length, at + n + 24);
      return el('p', { class: 'passage' }, 'In its words: ', from > 0 ? '… ' : '', words.slice(from, at).join(' ') + (at > from ? ' ' : ''),
        el('mark', null, words.slice(at, at + n).join(' ')), (to > at + n ? ' ' : '') + words.slice(at + n, to).join(' ') + (to < words.length ? ' …' : ''));
    }
    function showTreeMiss(out, x) {
      out.setAttribute('data-match', 'none');
      out.setAttribute('data-via', 'tree');
      if (x.hex !== null) out.setAttribute('data-verdict', 'unknown-digest');
      var w = x.hex !== null ? withheld.filter(function (e) { return e.entry_id === x.hex; })[0] : null;
      if (w) {
        out.setAttribute('data-match', 'hash');
        out.setAttribute('data-seq', String(w.seq));
        out.setAttribute('data-standing', 'withheld');
        out.removeAttribute('data-verdict');
        state.answer = { withheld: w };
        out.appendChild(el('h3', { class: 'near' }, 'The digest of a withheld line: the lab\'s word'));
        out.appendChild(el('p', null, 'Withheld seq ' + w.seq + ' (day ' + w.day + '): its line is not published, so it cannot be re-derived; only its digest and day are shown.'));
        return;
      }
      if (x.ex && x.ex.bad && x.ex.bad.length) { showExcerptTampered(out, x.ex); return; }
      state.answer = { searched: x.seq !== null ? 'the tree\'s lines at seq ' + x.seq : 'the digest index of the tree at ' + state.treeCp.size.toLocaleString('en') + ' seqs' + (x.hex === null ? ', for ' + x.forms.length + ' forms of your text' : '') +
        (x.ex && x.ex.state === 'looked' ? ', and the excerpt index for a passage of a released text' : '') };
      out.appendChild(el('h3', { class: 'none' }, x.seq !== null ? 'No published line at seq ' + x.seq : x.hex !== null ? 'No line in the tree\'s digest index carries this digest' : 'No line in the tree\'s digest index carries your text\'s digest'));
      out.appendChild(el('p', null, x.seq !== null ? (x.seq > state.treeCp.size ? 'The checkpoint\'s tree holds seqs 1 to ' + state.treeCp.size + '.' : 'Seq ' + x.seq + ' has no line in the tree\'s lines file: it is withheld.')
        : 'Looked up in the index of the tree at ' + state.treeCp.size + ' seqs (its sent_sha256, checked_sha256, stripped_sha256 and draft_sha256): ' + x.looked.length + ' digest' + (x.looked.length === 1 ? '' : 's') + ', reading ' + x.cost.files + ' file' + (x.cost.files === 1 ? '' : 's') + ' (' + kb(x.cost.bytes) + ').' +
          (x.falseHits.length ? ' The index named seq ' + x.falseHits.join(', ') + ', whose line does not carry the digest (a prefix shared by chance).' : '') +
          (x.hex !== null ? ' An entry_id is not in the index: paste the line\'s seq to prove it by its place.' : '')));
      if (x.hex === null && x.seq === null) {
        out.appendChild(el('details', null, el('summary', null, 'The forms hashed (' + x.forms.length + ') and their digests'),
          el('ul', null, x.forms.map(function (v) { return el('li', null, v.name + ': ', el('code', { class: 'full' }, v.sha)); }))));
        if (x.ex) excerptMissWords(out, x.ex);
      }
      out.appendChild(el('p', { class: 'caveat' }, x.ex && x.ex.state !== 'unpublished'
        ? 'A miss proves nothing by itself: the line may be withheld, its text unreleased or withheld by the guard, re-rendered on the way to you, or written after this checkpoint; a passage is found only from 12 words on, verbatim (docs/tree.md#excerpts).'
        : 'A miss proves nothing by itself: the line may be withheld, its text re-rendered on the way to you, or written after this checkpoint (docs/tree.md#what-it-proves).'));
    }

    // ---- prove a passage of a released text on a light page, by the excerpt index
    // (docs/tree.md#excerpts; docs/page.md "Prove one message on a light page"): the key of the
    // paste's 12-word shingles names candidate seqs; each is proved as tryLine proves a line,
    // its released text fetched, re-hashed to the line's sent_sha256, and searched for the
    // paste's words as a run. A candidate is a hint; only a text that holds the run is a hit.

    // Whether the site has the excerpt index: STATS.json says so; a page that reads its records
    // from the site has not read STATS.json on this path, and looks when it has released texts
    // (an absent bucket then means no index).
    function excerptsPublished() {
      if (statsTree && typeof statsTree === 'object') return statsTree.excerpts === true ? 'yes' : 'no';
      return statsTree === null && publicTexts ? 'maybe' : 'no';
    }
    // The lines whose released text holds the paste's words as a run, or null; what was read and
    // why each candidate failed go into `ex`. The text map (docs/tree.md#text-map) names each
    // candidate's text, so that texts are held to the paste's words before any line is read
    // (at most MAX_TEXTS by the map); only the lines whose text holds the words (or does not
    // re-hash, or the map does not name) are read and proved, at most MAX_HITS of them.
    function excerptLookup(t, ex, size, tryLine) {
      var E = V.excerpt;
      ex.published = excerptsPublished();
      ex.state = ex.published === 'no' ? 'unpublished' : ex.words.length < E.MIN_WORDS ? 'short' : 'looked';
      ex.named = []; ex.read = []; ex.checked = []; ex.noText = []; ex.absent = []; ex.bad = []; ex.elsewhere = [];
      ex.texts = { files: 0, bytes: 0, paths: [] };
      if (ex.state !== 'looked') return Promise.resolve(null);
      var first = E.lookup(t);
      ex.key = first.key;
      // Every key winnowing keeps of the paste's own shingles is a row of any text holding the
      // paste (each is the least of a window of 5 of the text's shingles): the seqs the least
      // key names are narrowed by the others' while more than MAX_TEXTS are named, at most
      // MAX_KEYS lookups (docs/tree.md#excerpts).
      var keys = [ex.key].concat(E.winnow(E.shingleKeys(ex.words)).filter(function (k) { return k !== ex.key; }));
      ex.keys = [];
      // The least key's rows are held to the paste's contexts: the 2 words before its first
      // place and the 2 after, where the paste has them (docs/tree.md#excerpts).
      function seqsOf(key) {
        var paths = E.lookupPaths(size, key), ctx = key === first.key ? first : {};
        return treeAll(paths).then(function (files) {
          var out = new Set();
          files.forEach(function (b, i) {
            var q = E.seqs(b, key, ctx.before, ctx.after);
            if (q.error) throw new Error('ledger/tree/' + paths[i] + ': ' + q.error);
            q.forEach(function (x) { if (x >= 1 && x <= size) out.add(x); });
          });
          ex.keys.push(key);
          return out;
        });
      }
      function narrow(named, i) {
        if (named.size <= MAX_TEXTS || i >= keys.length || i >= MAX_KEYS) return named;
        return seqsOf(keys[i]).then(function (more) {
          return narrow(new Set(Array.from(named).filter(function (q) { return more.has(q); })), i + 1);
        });
      }
      return seqsOf(keys[0]).then(function (named) { return narrow(named, 1); }).then(function (named) {
        ex.named = Array.from(named).sort(function (a, b) { return a - b; });
        return excerptByMap(ex, size);
      }, function (e) {
        if (e && e.absent && ex.published === 'maybe') { ex.state = 'unpublished'; return null; }
        throw e;
      }).then(function (order) {
        if (!order) return null;
        // Lines in that order until a text holds the run; after that only the seqs whose lines/
        // file is already read (a lines/ file is most of a proof's bytes: docs/tree.md#excerpts).
        var hits = [], i = 0, linesOf = function (q) { return Math.floor((q - 1) / 256); }, readFiles = new Set();
        function next() {
          if (i >= order.length || ex.read.length >= MAX_HITS) return hits.length ? hits : null;
          var q = order[i++];
          if (hits.length && !readFiles.has(linesOf(q))) return next();
          readFiles.add(linesOf(q));
          ex.read.push(q);
          return tryLine(q).then(function (f) {
            if (!f) { ex.noText.push(q); return null; }
            return excerptText(f, ex);
          }).then(function (f) { if (f) hits.push(f); return next(); });
        }
        return next();
      });
    }
    // The candidates' lines to read, in order: those whose text (as the text map names it)
    // holds the paste's words, then those whose text does not re-hash to the map's digest (its
    // line tells whether the site changed it), then those the map could not speak for. A
    // candidate whose text re-hashes and does not hold the words is `elsewhere`, its line
    // unread. The map is a hint: every hit is still proved through its own line.
    function excerptByMap(ex, size) {
      var E = V.excerpt, cands = ex.named.slice(0, MAX_TEXTS), rest = ex.named.slice(MAX_TEXTS), spoke = 0;
      var mapPaths = [];
      cands.forEach(function (q) { var m = E.textMapPath(size, q); if (mapPaths.indexOf(m) < 0) mapPaths.push(m); });
      var maps = new Map();
      return Promise.all(mapPaths.map(function (m) {
        return treeGet(m).then(function (b) { maps.set(m, b); }, function () { maps.set(m, null); });
      })).then(function () {
        var holds = [], changed = [], unknown = [];
        return Promise.all(cands.map(function (q) {
          var b = maps.get(E.textMapPath(size, q)), named = b ? E.textMapDigest(b, q) : null;
          if (b && named && !named.error) spoke++;
          if (!named || named.error || !named.digest) { unknown.push(q); return null; }
          var sha = named.digest;
          return releasedText(sha, ex).then(function (bytes) {
            if (!bytes) { unknown.push(q); return; }
            if (V.sha256Hex(bytes) !== sha) { changed.push(q); return; }
            ex.checked.push(q);
            if (V.excerpt.wordsPlace(V.excerpt.words(V.utf8Decode(bytes) || ''), ex.words) === null) ex.elsewhere.push(q);
            else holds.push(q);
          }, function () { unknown.push(q); });
        })).then(function () {
          var up = function (a, b) { return a - b; };
          ex.elsewhere.sort(up);
          // Past MAX_TEXTS, a seq is read by its line only on a site whose map never spoke (an
          // exhibit built before the map): each costs a lines/ file. With the map, they are
          // named as not checked (`crowded`), and a longer paste narrows them.
          if (rest.length && spoke) { ex.crowded = rest.length; rest = []; }
          return holds.sort(up).concat(changed.sort(up), unknown.sort(up), rest);
        });
      });
    }
    // A candidate line's released text, fetched once, re-hashed to the line's sent_sha256, and
    // the paste's words found as a run of its words: the line with `excerpt`, or null (noted).
    // A released text's bytes (null when absent), fetched once a visit and counted in
    // ex.texts when this answer fetched it.
    function releasedText(sha, ex) {
      var rel = 'public_texts/' + sha + '.txt', first = !partFetches[rel];
      if (first) partFetches[rel] = ledgerFile(rel);
      return partFetches[rel].then(function (b) {
        if (first) { ex.texts.files++; ex.texts.bytes += b ? b.length : 0; ex.texts.paths.push('ledger/' + rel); }
        return b;
      });
    }
    function excerptText(f, ex) {
      var o = f.object || {}, sha = o.sent_sha256;
      if (o.kind !== 'send' || typeof sha !== 'string' || !HEX64.test(sha)) { ex.noText.push(f.seq); return null; }
      return releasedText(sha, ex).then(function (b) {
        if (!b) { ex.absent.push(f.seq); return null; }
        var again = V.sha256Hex(b);
        if (again !== sha) { ex.bad.push({ seq: f.seq, sha: sha, again: again }); return null; }
        var text = V.utf8Decode(b), words = V.excerpt.words(text || ''), at = V.excerpt.wordsPlace(words, ex.words);
        if (at === null) { ex.elsewhere.push(f.seq); return null; }
        f.via = 'excerpt';
        f.fields = [];
        f.excerpt = { sha: sha, path: 'ledger/public_texts/' + sha + '.txt', bytes: b.length, text: text || '', words: words, at: at, n: ex.words.length };
        return f;
      });
    }
    function seqList(q) { return (q.length === 1 ? 'seq ' : 'seqs ') + q.join(', '); }
    // What the excerpt index was asked and answered, for a paste it did not find.
    function excerptMissWords(out, ex) {
      out.setAttribute('data-excerpt', ex.state === 'looked' ? (ex.crowded ? 'crowded' : 'missed') : ex.state);
      if (ex.state === 'unpublished') {
        if (ex.words.length >= V.excerpt.MIN_WORDS) out.appendChild(el('p', null, 'This exhibit publishes no excerpt index' + (ex.published === 'maybe' ? ' (its ledger/tree/excerpts/ files are not on the site)' : ' (STATS.json says so)') + ', so your words were not looked up as a passage of a released text.'));
        return;
      }
      if (ex.state === 'short') {
        out.appendChild(el('p', null, 'Your paste has ' + ex.words.length + ' word' + (ex.words.length === 1 ? '' : 's') + ': the excerpt index finds a passage of a released text only from ' + V.excerpt.MIN_WORDS + ' words on (docs/tree.md#excerpts), so it was not looked up as a passage. Paste 12 words or more, exactly as sent.'));
        return;
      }
      var why = [];
      if (ex.elsewhere.length) why.push('the released text of ' + seqList(ex.elsewhere) + ' does not hold your words as a run (a key shared by chance, or your words out of order)');
      if (ex.absent.length) why.push('the released text of ' + seqList(ex.absent) + ' is not on this site');
      if (ex.noText.length) why.push(seqList(ex.noText) + ' has no published send line with a sent_sha256');
      var unread = ex.named.filter(function (q) { return ex.read.indexOf(q) < 0 && ex.elsewhere.indexOf(q) < 0; }).length;
      if (unread) why.push(unread + ' more seq' + (unread === 1 ? '' : 's') + ' named ' + (unread === 1 ? 'was' : 'were') + ' not read (at most ' + MAX_TEXTS + ' texts and ' + MAX_HITS + ' lines)' +
        (ex.crowded ? ': ' + ex.named.length + ' released texts share ' + (ex.keys.length > 1 ? 'these ' + ex.keys.length + ' keys' : 'this key') + ' of your words, so paste more of the message, exactly as sent (more words add keys that narrow them)' : ''));
      out.appendChild(el('p', null, 'Looked up as a passage in the tree\'s excerpt index (your ' + ex.words.length + ' words; key ' + ex.key + '): ' +
        (ex.named.length ? 'it named ' + seqList(ex.named) + '; ' + why.join('; ') + '.' : 'no released text has that key among its rows: none holds these words as a run.') +
        (ex.texts.files ? ' Read ' + ex.texts.files + ' released text' + (ex.texts.files === 1 ? '' : 's') + ' (' + kb(ex.texts.bytes) + ').' : '')));
    }
    // A candidate's released text on the site does not re-hash to its line's digest: nothing is
    // proved by it, and the site's texts were changed after the build.
    function showExcerptTampered(out, ex) {
      var b = ex.bad[0];
      out.setAttribute('data-excerpt', 'text-differs');
      out.setAttribute('data-verdict', 'text-differs');
      out.setAttribute('data-seq', String(b.seq));
      state.answer = { textBad: b };
      out.appendChild(el('h3', { class: 'bad' }, 'The released text the excerpt index names does NOT re-hash to its line\'s digest'));
      out.appendChild(el('p', null, 'The excerpt index named seq ' + b.seq + ' for your words. Its line carries sent_sha256 ', fullDigest(b.sha, 'sent_sha256'),
        ', but ledger/public_texts/' + b.sha + '.txt re-hashes here to ', el('code', { class: 'full' }, b.again),
        ': DIFFERENT. These are not the bytes the gate hashed, so whatever words they hold prove nothing about your paste. The site\'s released texts were changed after the build (exhibit verify SITE names the file).'));
      out.appendChild(el('p', null, 'No line\'s digest matched your text either.'));
      out.appendChild(el('p', { class: 'caveat' }, 'Do not rely on this site\'s released texts until the publisher explains.'));
    }

    function onMainThread() {
      setTimeout(function () {
        try {
          var r = V.verifyLedger(ledgerBytes, withheldBytes, null, tzRules);
          var c = compactResult(r);
          c.certifies = r.header && typeof r.header.certifies === 'string' ? r.header.certifies : null;
          c.unposted = V.datesWithoutPost(r, posts);
          finish(c, V.checkAnchors(r, withheldBytes, posts), 'the page itself');
        } catch (err) { fail(String(err && err.message || err)); }
      }, 30);
    }
    function fail(msg) {
      treeEarlyStop();
      verdict.setAttribute('data-state', 'problems');
      verdict.setAttribute('data-verdict', 'failed');
      verdict.setAttribute('data-ms', String(Math.round(performance.now())));
      $('badge').textContent = 'Failed';
      clear($('verdict-text')).textContent = 'The page could not re-derive the ledger: ' + msg;
      $('progress') && $('progress').remove();
      renderIndependent();
      status('Verdict: failed. The page could not re-derive the ledger.');
    }

    // The chain's answer, shown as soon as the worker has it; the headline verdict waits for
    // every other check (`finish`).
    function earlyVerdict(m) {
      verdict.setAttribute('data-ms', String(Math.round(performance.now())));
      verdict.setAttribute('data-head', m.ok ? (m.head || '') : '');
      verdict.setAttribute('data-state', m.ok ? 're-derives' : 'problems');
      var vt = clear($('verdict-text'));
      if (m.ok) vt.textContent = 'The chain re-derives: ' + m.entries.toLocaleString('en') + ' entries. Checking the posted heads, proofs and texts…';
      else vt.textContent = 'The chain does NOT re-derive: ' + m.problems + ' problem' + (m.problems === 1 ? '' : 's') + '. Listing them…';
      status(m.ok ? 'The chain re-derives; checking the rest.' : 'The chain does not re-derive.');
    }

    function finish(r, anchorChecks, where) {
      state.result = r;
      state.anchors = anchorChecks;
      // A light page's full check keeps its records in the worker: a paste asks it (storeFind).
      for (var i = 0; r.lines && i < r.lines.length; i++) {
        var L = r.lines[i];
        if (L.seq !== null && !state.bySeq.has(L.seq)) state.bySeq.set(L.seq, L);
        if (L.id) addDigest(L.id, { field: 'entry_id', line: L });
        if (L.d) for (var f in L.d) addDigest(L.d[f], { field: f, line: L });
      }
      if (r.lines) withheld.forEach(function (w) { if (w && typeof w.entry_id === 'string') addDigest(w.entry_id, { field: 'entry_id', withheld: w }); });
      if (r.certifies !== undefined) showCertifies(r.certifies, true);
      // An embedded page holds the checkpoint it carries to the chain it re-derived; a light
      // page's full check has held every tree file to it before this (treeFilesCheck).
      if (!light) state.tree = treeOfChain(r);

      // The page's own check of every proof header it carries.
      checkProofs();
      checkPrereg();

      // coverage, from the page's own answers: a posted head vouches only if its checks pass
      // here, its proof's header included.
      var heads = new Set();
      anchorChecks.forEach(function (a) {
        if (a.ok && !proofFails(a)) heads.add(Number(a.post_seq));
      });
      var all = [];
      // Lines of remembered files (not read again on this visit): every seq up to the
      // checkpoint's is published or withheld, since the chain re-derived through them.
      if (r.resumedToSeq) {
        var wset = new Set(withheld.map(function (w) { return w.seq; }));
        for (var q = 1; q <= r.resumedToSeq; q++) if (!wset.has(q)) all.push({ seq: q, published: true });
      }
      if (r.seqs) r.seqs.forEach(function (q) { all.push({ seq: q, published: true }); });
      else r.lines.forEach(function (L) { if (L.seq !== null) all.push({ seq: L.seq, published: true }); });
      var held = [];
      withheld.forEach(function (w) { if (typeof w.seq === 'number') held.push({ seq: w.seq, published: false }); });
      state.cov = coverage(mergeBySeq(all, held), heads);
      state.pinnedSet = new Set(state.cov.pinned);
      state.severedSet = new Set(state.cov.severed);
      state.heads = Array.from(heads).sort(function (a, b) { return a - b; });
      state.posted = anchorChecks.filter(function (a) { return a.post_seq !== null; })
        .map(function (a) { return { seq: Number(a.post_seq), a: a }; }).sort(function (x, y) { return x.seq - y.seq; });

      renderTextsCheck();
      var drawn = renderLines();
      renderAnchors();
      renderCoverage();
      renderTiles();
      renderCheckpoint();
      state.sigs = signatureCheck(keyOf(statsTree), treeBlock, snapshotsBytes);
      renderSignatures(state.sigs, true);
      renderTextsList();
      renderWitnessHeaders();

      var ms = Math.round(performance.now() - t0);
      // Records kept in the worker: the verdict waits for the table's first page, asked there.
      if (drawn && typeof drawn.then === 'function') drawn.then(function () { finishBeside(r, ms, where); });
      else finishBeside(r, ms, where);
    }
    /*
     * a then b in seq order, as a stable sort of their concatenation orders them (a tie: a's
     * first). Each in order already (a chain that re-derives), it is a merge: sorting 100,000
     * objects made most of a task over 200 ms at the verdict (docs/page.md#records-in-the-worker).
     */
    function mergeBySeq(a, b) {
      var ordered = function (x) { for (var i = 1; i < x.length; i++) if (!(x[i - 1].seq <= x[i].seq)) return false; return true; };
      if (!ordered(a) || !ordered(b)) return a.concat(b).sort(function (x, y) { return x.seq - y.seq; });
      var out = new Array(a.length + b.length), i = 0, j = 0, k = 0;
      while (i < a.length && j < b.length) out[k++] = b[j].seq < a[i].seq ? b[j++] : a[i++];
      while (i < a.length) out[k++] = a[i++];
      while (j < b.length) out[k++] = b[j++];
      return out;
    }
    function finishBeside(r, ms, where) {
      if (state.besidePromise) {
        state.besidePromise.then(function (b) {
          state.beside = b;
          if (b.newer) { $('progress') && $('progress').remove(); renderNewer(b.newer); return; }
          finishVerdict(r, ms, where);
        }, function (e) {
          state.beside = { unread: ['the files beside this page (' + errorWords(e) + ')'], failures: [], checked: 0 };
          finishVerdict(r, ms, where);
        });
        return;
      }
      finishVerdict(r, ms, where);
    }
    function finishVerdict(r, ms, where) {
      if (!verdict.hasAttribute('data-ms') || !verdict.getAttribute('data-ms')) verdict.setAttribute('data-ms', String(Math.round(performance.now())));
      verdict.setAttribute('data-ms-decode', String(Math.round(t0 - tStart)));
      verdict.setAttribute('data-head', r.ok ? (r.head || '') : '');
      verdict.setAttribute('data-state', r.ok ? 're-derives' : 'problems');
      $('progress') && $('progress').remove();
      renderVerdict(r, ms, where);
      verdict.setAttribute('data-ms-details', String(Math.round(performance.now())));
      state.ready = true;
      $('paste-go').disabled = false;
      if (state.queued !== null) { var q = state.queued; state.queued = null; prove(q, state.queuedFromLink); }
      if (/^#(line|text)-/.test(location.hash)) fromHash();
    }
    // Published lines re-derived: every one read, those of remembered files included.
    function published(r) { return typeof r.linesTotal === 'number' ? r.linesTotal : r.lines.length; }
    var publishedOf = published;
    function addDigest(hex, rec) {
      if (typeof hex !== 'string') return;
      var a = state.byDigest.get(hex);
      if (!a) state.byDigest.set(hex, a = []);
      a.push(rec);
    }

    /*
     * The page's data blocks held to what the site implies (docs/page.md "Blocks the site
     * implies"): a block removed, cut short or carried where the site says there is none is a
     * failure, never a quiet "nothing here" — each as `exhibit verify SITE` fails it
     * (page_copy_mismatch). anchors/index.json (held to the site's file on a light page) names
     * each post's text_file and proof_file; the list of files names the last file, whose copy the
     * page may carry (`ledger-latest`); a withheld list in files is never embedded.
     */
    function blockFailures() {
      var out = [], headers = {}, posts = Array.isArray(anchorsIndex.posts) ? anchorsIndex.posts : [];
      if (!state.proofs.error) proofHeaders.forEach(function (h) { if (h.kind === 'anchor') headers[h.name] = true; });
      posts.forEach(function (p) {
        if (!p || typeof p.date !== 'string') return;
        if (typeof p.proof_file === 'string' && p.proof_file && !state.proofs.error && !headers[p.proof_file]) {
          out.push({ what: 'the page does not carry the proof header the index names (ledger/anchors/' + p.proof_file + '): it cannot check a proof the site holds, so it cannot say the post for ' + p.date + ' has none', href: '#anchor-' + p.date });
        }
        if (typeof p.text_file === 'string' && p.text_file && !Object.prototype.hasOwnProperty.call(postsRaw, p.date)) {
          out.push({ what: 'the page does not carry the post the index names (ledger/anchors/' + p.text_file + '): it would not check the head posted for ' + p.date, href: '#anchors-h' });
        }
      });
      if (light && Array.isArray(withheldFiles)) {
        var w = block('withheld-json');
        if (w && w.length) out.push({ what: 'the page carries a withheld list (its data block withheld-json) although its list of files says the withheld list is in files (ledger/withheld/), which it read instead', href: '#stream' });
      }
      var files = light ? ledgerFileList(layout) : null, latest = light && !state.latestHeld ? block('ledger-latest') : null;
      if (Array.isArray(files) && files.length && latest && latest.length) {
        var last = files[files.length - 1];
        if (latest.length !== last.bytes || V.sha256Hex(latest) !== last.sha256) {
          out.push({ what: 'the page\'s copy of the last file (its data block ledger-latest) is not ' + last.path + ' as its list gives it: ' + latest.length + ' bytes, the list says ' + last.bytes, href: '#stream' });
        }
      }
      return out;
    }
    // ---- the tree (docs/tree.md): the checkpoint held to the chain the page re-derived
    /*
     * An embedded page's answer about the tree: the checkpoint it carries (`tree-checkpoint`)
     * against the tree of the chain's entry_ids, as `exhibit verify SITE` holds
     * ledger/tree/checkpoint (tree_checkpoint). Only when the chain re-derives: a chain that does
     * not gives no leaves (docs/tree.md#verifiers). A page with no checkpoint where STATS.json
     * states a tree fails: the block is one the site implies. -> state.tree.
     */
    function treeOfChain(r) {
      if (!treeBlock && statsTree === null) return { status: 'none', problems: [] };
      if (!treeBlock) {
        return { status: 'failed', problems: [{ file: 'ledger/tree/checkpoint', code: 'tree_checkpoint',
          detail: 'the page carries no checkpoint (its data block tree-checkpoint), but STATS.json states a tree' }] };
      }
      if (!r.ok) return { status: 'unchecked', problems: [], why: 'the chain does not re-derive, so there are no leaves to hold the tree to' };
      var leaves = treeLeaves(r.lines, withheld);
      if (leaves.error) return { status: 'unchecked', problems: [], why: leaves.error };
      var held = checkpointHolds(V.tree, treeBlock, leaves.entries, r.head);
      return { status: held.problem ? 'failed' : 'checked', mode: 'carried', cp: held.cp, size: held.size, root: held.root, rootHex: bytesHex(held.root),
        problems: held.problem ? [{ file: 'ledger/tree/checkpoint', code: 'tree_checkpoint', detail: 'the copy this page carries: ' + held.problem }] : [] };
    }
    function treeFailures() {
      var out = [], t = state.tree;
      (t ? t.problems : []).forEach(function (p) {
        out.push({ what: (/\/$/.test(p.file) ? 'the folder ' : 'the tree\'s file ') + p.file + ' (' + p.code + '): ' + p.detail, href: '#checkpoint' });
      });
      var h = state.history;
      if (h && h.rewritten) out.unshift({ what: historyWords(h.rewritten), href: '#tree-memory' });
      if (monitorFailure()) out.unshift(monitorFailure());
      return out;
    }
    function cpWords(cp) {
      return 'origin ' + cp.origin + ', ' + cp.size.toLocaleString('en') + ' seq' + (cp.size === 1 ? '' : 's') + ', root ' + V.tree.base64Encode(cp.root);
    }
    // What the verdict's detail says of the tree.
    function treeWords() {
      var t = state.tree;
      if (!t || t.status === 'none') return 'The tree (ledger/tree/, docs/tree.md): none. This exhibit publishes no checkpoint (built before the tree view), so there is no tree to check: not checked.';
      if (t.status === 'unchecked') return 'The tree (ledger/tree/): not checked: ' + t.why + '.';
      var bad = t.problems.length ? ' It does NOT hold: ' + t.problems.length + ' problem' + (t.problems.length === 1 ? '' : 's') + ' (' + t.problems.slice(0, 3).map(function (p) { return p.code + ' ' + p.file; }).join('; ') + ').' : '';
      if (!t.mode) return 'The tree: ' + (bad || 'not checked.');
      if (t.mode === 'carried') {
        return 'The tree: the checkpoint this page carries' + (t.cp ? ' (' + cpWords(t.cp) + ')' : '') + ' held to the tree re-derived here from the chain\'s entry_ids (each published line\'s own, each withheld line\'s from the withheld list): size, root and exhibit-head line.' +
          (t.problems.length ? bad : ' They are the same.') +
          ' The tree\'s files beside this page (tiles, entry bundles, lines/, the digest index) are not checked here: this page reads no file beside it; exhibit verify SITE re-derives every one.';
      }
      return 'The tree: every file the tree at size ' + t.size.toLocaleString('en') + ' has (' + t.files.toLocaleString('en') + ' files, ' + t.bytes.toLocaleString('en') + ' bytes, ' + (t.local ? 'read from the folder you picked' : 'fetched from this site') +
        ') held to the tree re-derived here from the chain: hash tiles, entry bundles, lines/, the digest index and the checkpoint.' + (t.problems.length ? bad : ' Every one is the same.') +
        (t.excerpts ? ' The excerpt index (ledger/tree/excerpts/, ' + t.excerpts.toLocaleString('en') + ' files) is made from the released texts, not the chain: this page read its files for the snapshot\'s tree/ digest and named any missing, but did NOT remake its rows from the texts (exhibit verify SITE does: docs/tree.md#excerpts).' : '') +
        (t.local ? ' Every other name in the picked folder\'s tree/ is a stray, and would be named.' : ' A name under ledger/tree/ that the tree does not have is not seen over http (a page cannot list a folder; exhibit verify SITE lists it, tree_stray).');
    }
    // The checkpoint under the verdict: what it states, and what this page made of it.
    function renderCheckpoint() {
      var p = $('checkpoint'), t = state.tree;
      if (!p) return;
      clear(p);
      if (!t || t.status === 'none') {
        p.setAttribute('data-state', 'none');
        p.className = 'muted';
        p.textContent = 'No tree: this exhibit publishes no checkpoint (ledger/tree/checkpoint), so there is none to check: not checked.';
        return;
      }
      var cp = t.cp || (treeBlock ? V.tree.parseCheckpoint(treeBlock) : null);
      var stated = cp && !cp.error ? cpWords(cp) : null;
      p.setAttribute('data-state', t.status === 'checked' ? 'holds' : t.status === 'failed' ? 'fails' : 'unchecked');
      p.className = t.status === 'failed' ? 'bad' : t.status === 'checked' ? 'ok' : 'muted';
      append(p, [el('strong', null, 'Checkpoint: '), stated ? stated + '. ' : 'the page carries none it can read. ',
        t.status === 'checked' ? (t.mode === 'carried' ? 'Re-derived here from the chain: the same size, root and head.' : 'Re-derived here from the chain, with every file of the tree.')
          : t.status === 'failed' ? 'It does NOT hold: ' + t.problems.map(function (x) { return x.detail; }).join('; ') + '.'
            : 'Not checked: ' + t.why + '.']);
    }

    // Everything the page checked that failed, in plain words, each linked to its row.
    function collectFailures(r) {
      var out = [];
      state.anchors.forEach(function (a) {
        if (!a.ok) out.push({ what: 'the head posted for ' + a.date + (a.post_seq !== null ? ' (seq ' + a.post_seq + ')' : '') + ' does not check out against the ledger: ' + anchorWhy(a), href: '#anchor-' + a.date });
        var pr = anchorProof(a);
        if (pr === 'bad') out.push({ what: 'the Bitcoin proof of the post for ' + a.date + ' ' + PROOF_PROBLEM_WORDS[state.proofs.anchor[a.date].problem], href: '#anchor-' + a.date });
      });
      (Array.isArray(anchorsIndex.posts) ? anchorsIndex.posts : []).forEach(function (p) {
        var code = p && typeof p.date === 'string' ? withheldProof(p.date) : null;
        if (code) out.push({ what: withheldProofWords(p.date, code), href: '#anchor-' + p.date });
      });
      if (tzRulesUnread) out.push({ what: 'the page\'s tz rules (its tz-rules-json block) cannot be read: the days it checks would come from this browser\'s own time-zone data', href: '#tiles-h' });
      if (tzRulesMissing) out.push({ what: 'the page carries no tz rules (its tz-rules-json block): the days it checks would come from this browser\'s own time-zone data', href: '#tiles-h' });
      if (statsUnreadable) out.push({ what: 'the publisher\'s STATS.json is not one JSON object this page can read: none of its figures can be compared', href: '#tiles-h' });
      // An anchor line of the ledger whose date has no post: a head dropped from the site
      // (`exhibit verify SITE`: anchor_post_missing).
      (r.unposted || []).forEach(function (date) {
        out.push({ what: 'the ledger\'s anchor line says a head was posted for ' + date + ', but the site holds no post for that date: a dropped head cannot be checked', href: '#anchors-h' });
      });
      var checkedDates = {};
      state.anchors.forEach(function (a) { checkedDates[a.date] = 1; });
      (Array.isArray(anchorsIndex.posts) ? anchorsIndex.posts : []).forEach(function (p) {
        if (p && p.date && !checkedDates[p.date] && p.ok === false) {
          out.push({ what: 'the head posted for ' + p.date + ' is not in the exact posted form; the publisher withheld its text and lists it as failing', href: '#anchors-h' });
        }
      });
      // A damaged block of proof headers checks no proof: never a green verdict over it
      // (`exhibit verify SITE` fails it too, page_copy_mismatch).
      if (state.proofs.error) out.push({ what: 'the page could not read the proofs\' headers it carries (' + state.proofs.error + ')', href: '#witness-h' });
      if (state.proofs.preregBad) out.push({ what: 'the sealed preregistration (WITNESS_PREREG.md) does not hash to the digest its proof is named for', href: '#witness-h' });
      state.proofs.witnessBad.forEach(function (w) {
        out.push({ what: 'the per-line Bitcoin proof ' + w.name.slice(0, 12) + '… ' + PROOF_PROBLEM_WORDS[w.problem], href: '#witness-h' });
      });
      state.textsBad.forEach(function (t) {
        out.push({ what: 'the released text filed under ' + t.sha.slice(0, 12) + '…' + (t.seq !== undefined ? ' (seq ' + t.seq + ')' : '') + ' does not hash to its name: its words were changed after the gate hashed them', href: '#text-' + t.sha });
      });
      state.textsStray.forEach(function (t) {
        out.push({ what: 'the released text filed under ' + t.sha.slice(0, 12) + '… is carried by no published send line: a released text is filed under the sent_sha256 of the line that sent it', href: '#text-' + t.sha });
      });
      blockFailures().forEach(function (x) { out.push(x); });
      if (state.beside && state.beside.failures) state.beside.failures.forEach(function (x) { out.push(x); });
      treeFailures().forEach(function (x) { out.push(x); });
      if (state.sigs) signatureFailures(state.sigs).forEach(function (x) { out.push(x); });
      figures(r).forEach(function (x) {
        if (x.theirs !== null && x.theirs !== undefined && String(x.mine) !== String(x.theirs)) {
          out.push({ what: x.what + ': this page counts ' + x.mine + ', the publisher\'s STATS.json says ' + x.theirs, href: '#tiles-h' });
        }
      });
      return out;
    }
    function anchorWhy(a) {
      var w = [];
      if (a.format !== 'ok') w.push('the post is not in the exact form');
      if (a.head === 'fail') w.push('the line at seq ' + a.post_seq + ' carries another digest than the one posted (the post, or a line up to seq ' + a.post_seq + ', was changed after the head was posted)');
      if (a.head === 'absent') w.push('no line at seq ' + a.post_seq);
      if (a.day_closed === 'fail') w.push('a line of that day sits after the posted seq');
      if (a.ledger_line === 'disagrees') w.push('the ledger\'s own anchor line disagrees with the post');
      return w.join('; ') || 'its checks fail';
    }
    // The page's figure beside the publisher's, for every count both have.
    function figures(r) {
      var L = stats.lines || {}, C = stats.coverage || {}, A = stats.anchors || {}, P = stats.public_texts || {};
      var n = function (c) { return c && typeof c === 'object' && c.count !== undefined ? c.count : null; };
      var list = [
        { what: 'published lines', mine: published(r), theirs: n(L.published) },
        { what: 'withheld lines', mine: withheld.length, theirs: n(L.withheld) },
        { what: 'lines vouched for by a posted head', mine: state.cov.pinned.length, theirs: n(C.pinned) },
        { what: 'lines severed by a withheld line', mine: state.cov.severed.length, theirs: n(C.severed) },
        { what: 'lines awaiting the next posted head', mine: state.cov.awaiting.length, theirs: n(C.awaiting_head) },
        { what: 'posted heads that check out', mine: state.anchors.filter(function (a) { return a.ok && !proofFails(a); }).length, theirs: n(A.ok) }
      ];
      if (r.ok && stats.ledger && typeof stats.ledger.head === 'string') list.push({ what: 'the head', mine: r.head, theirs: stats.ledger.head });
      if (publicTexts && textsCarried) list.push({ what: 'released texts', mine: state.textsAll, theirs: P.texts && typeof P.texts.published === 'number' ? P.texts.published : n(P.published) });
      // The tree re-derived here against STATS.json's `tree` (src/site_check.rs, check_stats_tree).
      if (state.tree && state.tree.rootHex && statsTree !== null) {
        var st = statsTree && typeof statsTree === 'object' ? statsTree : {};
        list.push({ what: 'the tree (its size and root)', mine: 'size ' + state.tree.size + ', root ' + state.tree.rootHex, theirs: 'size ' + String(st.size) + ', root ' + String(st.root) });
      }
      return list;
    }

    function renderVerdict(r, ms, where) {
      var v = computeVerdict({
        chainOk: r.ok, failures: collectFailures(r),
        published: published(r), pinned: state.cov.pinned.length, severed: state.cov.severed.length,
        awaiting: state.cov.awaiting.length, unproven: state.anchors.filter(function (a) { return a.ok && anchorProof(a) === 'missing'; }).map(function (a) { return a.date; })
      });
      state.verdict = v;
      var badge = $('badge'), vt = clear($('verdict-text')), why = clear($('verdict-why'));
      var pub = published(r), pinned = state.cov.pinned.length;
      var s = function (k, one, many) { return k === 1 ? one : many; };
      if (v.verdict === 'failed') {
        badge.textContent = 'Failed';
        if (rewrittenLead()) verdict.setAttribute('data-failed', 'history');
        vt.textContent = rewrittenLead() +
          v.failures.length + s(v.failures.length, ' check', ' checks') + ' failed. Do not rely on this ledger until the publisher explains:';
        why.appendChild(el('ul', { id: 'failures' }, v.failures.slice(0, 50).map(function (x) {
          return el('li', null, el('a', { href: x.href }, x.what.charAt(0).toUpperCase() + x.what.slice(1)), '.');
        })));
        if (v.failures.length > 50) why.appendChild(el('p', null, '… and ' + (v.failures.length - 50) + ' more.'));
      } else if (v.verdict === 'gaps') {
        // A live exhibit always has lines after its last posted head: waiting for tonight's head
        // is its normal state, not a gap to alarm anyone with (docs/page.md "The verdict").
        var live = !state.cov.severed.length && !v.unproven.length && state.posted && state.posted.length;
        var lastHead = live ? state.posted[state.posted.length - 1] : null;
        var details = el('details', { id: 'gaps-detail' }, el('summary', null, live ? 'Which lines await' : 'Which lines are not vouched for, and why'),
          el('ul', null, v.gaps.map(function (g) { return el('li', null, el('a', { href: g.href }, g.what), '.'); }),
            v.unproven.length ? el('li', null, el('a', { href: '#anchors-h' }, 'posted heads without a Bitcoin proof yet: ' + v.unproven.join(', ')), '.') : null),
          state.cov.severed.length ? el('p', { class: 'muted' }, 'A line before a withheld line cannot be pinned by a later head: the chain runs through the withheld line, whose digest is the lab\'s word.') : null,
          el('p', { class: 'muted' }, 'A line after the last posted head waits for the next one.'));
        if (live) {
          verdict.setAttribute('data-tone', 'live');
          badge.textContent = 'Up to date';
          var waiting = state.cov.awaiting.length;
          vt.textContent = 'Everything checked holds, up to date through ' + lastHead.a.date + ' (seq ' + lastHead.seq + '); ' +
            waiting.toLocaleString('en') + ' newer line' + s(waiting, '', 's') + ' await' + s(waiting, 's', '') + ' tonight\'s head.';
        } else {
          badge.textContent = 'Gaps';
          vt.textContent = 'Everything this page checks holds, but ' + (pub - pinned).toLocaleString('en') + ' of ' + pub.toLocaleString('en') +
            ' published lines are not vouched for by a posted head (yet): ' + pinned.toLocaleString('en') + ' are.';
        }
        // A live exhibit's waiting lines are one click away, in the detail (below).
        if (live) state.liveDetail = details; else why.appendChild(details);
      } else {
        badge.textContent = 'Intact';
        vt.textContent = 'Everything this page checks holds, and every one of the ' + pub.toLocaleString('en') + ' published lines is vouched for by a posted head.';
      }
      verdict.setAttribute('data-vouched', v.vouched);
      // The codes and the figures, one click away.
      var codes = clear($('verdict-codes'));
      if (state.liveDetail) { codes.appendChild(state.liveDetail); state.liveDetail = null; }
      codes.appendChild(el('p', null, r.ok ? ['The chain re-derives: ', String(r.entries), ' entries read, ', String(r.bridged.length),
        ' withheld seqs bridged on the lab\'s digests; head ', el('code', { class: 'head' }, r.head), '.']
        : 'The chain does not re-derive: ' + r.problems.length + ' problem' + s(r.problems.length, '', 's') + '.'));
      codes.appendChild(el('p', { class: 'muted' }, 'Re-derived in ' + (ms / 1000).toFixed(2) + ' s, in ' + where + '. Lines vouched for: ' + v.vouched + '.'));
      // Every check behind the verdict, with its codes.
      var P = state.proofs, figs = figures(r), anchorProofs = state.anchors.filter(function (a) { return anchorProof(a) !== 'missing'; });
      var eq = figs.filter(function (x) { return x.theirs === null || x.theirs === undefined || String(x.mine) === String(x.theirs); }).length;
      codes.appendChild(el('ul', { class: 'checks' },
        el('li', null, 'Posted heads: ' + state.anchors.filter(function (a) { return a.ok; }).length + ' of ' + state.anchors.length + ' check out (',
          el('code', null, 'format head day_closed ledger_line'), ': ' + state.anchors.map(function (a) { return a.date + ' ' + [a.format, a.head, a.day_closed, a.ledger_line].join('/'); }).join('; ') + ').'),
        el('li', null, 'Proof headers of the posts: ' + anchorProofs.filter(function (a) { return anchorProof(a) === 'ok'; }).length + ' of ' + anchorProofs.length + ' check out' +
          (state.anchors.length > anchorProofs.length ? '; ' + (state.anchors.length - anchorProofs.length) + ' post(s) without a proof yet' : '') + '.'),
        witness ? el('li', null, light ? 'Per-line proof headers: not checked by this light page (it does not carry them).' : 'Per-line proof headers: ' + P.witnessOk + ' of ' + P.witnessAll + ' check out.') : null,
        publicTexts ? el('li', null, textsCarried ? 'Released texts: ' + state.textsOk + ' of ' + state.textsAll + ' hash to their names.'
          : 'Released texts: not re-hashed by this light page (it does not carry them); a text is fetched and re-hashed when a pasted message\'s digest finds its line.') : null,
        el('li', null, 'The page\'s figures: ' + eq + ' of ' + figs.length + ' equal the publisher\'s STATS.json.'),
        beyondCheckWords() ? el('li', null, beyondCheckWords()) : null,
        el('li', { id: 'tree-check' }, treeWords()),
        el('li', { id: 'snapshot-check' }, snapshotWords()),
        state.sigs ? el('li', { id: 'signature-check' }, signatureWords(state.sigs)) : null));
      if (!r.ok) {
        var ul = el('ul', { id: 'problems' });
        r.problems.slice(0, 200).forEach(function (p) {
          ul.appendChild(el('li', { 'data-line': String(p.line) }, 'line ' + p.line + (p.seq !== null ? ' (seq ' + p.seq + ')' : '') + ': ',
            el('code', null, p.code), ' — ' + p.detail));
        });
        if (r.problems.length > 200) ul.appendChild(el('li', null, '… and ' + (r.problems.length - 200) + ' more.'));
        codes.appendChild(ul);
        $('verdict-detail').open = true;
      }
      if (besideWords()) {
        codes.appendChild(el('p', { id: 'beside-words' }, besideWords()));
        if ($('beside-check')) $('beside-check').textContent = besideWords();
        if (state.beside.local) verdict.setAttribute('data-beside', 'own-copy');
        else verdict.setAttribute('data-beside', state.beside.failures.length ? 'differ' : 'same');
      }
      verdict.setAttribute('data-verdict', v.verdict);
      renderIndependent();
      if (v.verdict === 'failed') statusFailed(v.failures.length + ' failed: ' + v.failures[0].what);
      else status('Verdict: ' + v.verdict + '. ' + v.vouched.replace('/', ' of ') + ' lines vouched for.');
    }

    // ---- tiles
    function tile(title, mine, theirs, cls) {
      return el('div', { class: 'tile' + (cls ? ' ' + cls : '') }, el('h3', null, title),
        mine !== null ? el('p', { class: 'mine' }, el('span', { class: 'who' }, 're-derived here: '), mine) : null,
        theirs !== null ? el('p', { class: 'theirs' }, el('span', { class: 'who' }, 'the publisher\'s count: '), theirs) : null);
    }
    function renderTiles() {
      var r = state.result, t = clear($('tiles'));
      var L = stats.lines || {}, A = stats.anchors || {}, C = stats.coverage || {};
      var published = publishedOf(r), total = published + withheld.length;
      t.appendChild(tile('Lines', published + ' published of ' + total + ' seqs (' + r.entries + ' entry lines read' +
        (r.resumedToSeq ? ', those up to seq ' + r.resumedToSeq + ' on an earlier visit' : '') + ')',
        countOf(L.published) ? countOf(L.published) + ' published' : null));
      t.appendChild(tile('Head', r.ok ? digest(r.head, 'head') : 'none: the ledger has problems',
        stats.ledger && stats.ledger.head ? [digest(stats.ledger.head, 'head'), ' at seq ' + stats.ledger.head_seq] : null));
      t.appendChild(tile('Chain', r.ok ? 're-derives' : r.problems.length + ' problems', null, r.ok ? 'good' : 'bad'));
      t.appendChild(tile('Withheld', withheld.length + ' of ' + total + ' seqs, as digest and day only (' + r.bridged.length + ' bridged)',
        countOf(L.withheld)));
      t.appendChild(tile('Vouched for', state.cov.pinned.length + ' pinned by a posted head, ' + state.cov.severed.length + ' severed, ' +
        state.cov.awaiting.length + ' awaiting a head, of ' + published,
        C.pinned ? countOf(C.pinned) + ' pinned, ' + countOf(C.severed) + ' severed, ' + countOf(C.awaiting_head) + ' awaiting' : null));
      var aok = state.anchors.filter(function (a) { return a.ok && !proofFails(a); }).length;
      var nPosts = Array.isArray(anchorsIndex.posts) ? Math.max(anchorsIndex.posts.length, state.anchors.length) : state.anchors.length;
      t.appendChild(tile('Posted heads', aok + ' of ' + nPosts + ' check out here, proof headers included',
        countOf(A.ok) ? countOf(A.ok) + ' ok' : null, aok === nPosts ? null : 'bad'));
      if (witness) {
        var ws = obj(witness.stats) || {}, known = 0;
        if (wIndex) {
          (r.lines || []).forEach(function (x) { if (x.id && wIndex[x.id]) known++; });
          withheld.forEach(function (w) { if (w.entry_id && wIndex[w.entry_id]) known++; });
        }
        var first = Object.keys(ws).filter(function (k) { return countOf(ws[k]); }).slice(0, 3)
          .map(function (k) { return words(k) + ' ' + countOf(ws[k]); }).join('; ');
        t.appendChild(tile('Witness', light && !wIndex ? 'not checked here: this light page carries neither the per-line witness index nor the per-line proofs\' headers (they are in ledger/witness/ beside it)'
          : known + ' of ' + total + ' lines have a record in the copied store; ' + state.proofs.witnessOk + ' of ' +
          state.proofs.witnessAll + ' proof headers check out here', first || null, state.proofs.witnessBad.length ? 'bad' : null));
      }
      var tr = state.tree;
      if (tr && tr.status !== 'none') {
        t.appendChild(tile('Tree', tr.status === 'checked' ? ['size ' + tr.size + ', root ', digest(tr.rootHex, 'root'), tr.mode === 'carried' ? ': the checkpoint this page carries holds' : ': every tree file holds']
          : tr.status === 'failed' ? 'does NOT hold: see the verdict' : 'not checked: ' + tr.why,
          statsTree && typeof statsTree === 'object' ? ['size ' + String(statsTree.size) + ', root ', digest(String(statsTree.root), 'root')] : null, tr.status === 'failed' ? 'bad' : null));
      }
      if (publicTexts) {
        var pts = stats.public_texts || {};
        t.appendChild(tile('Released texts', !textsCarried ? 'not checked here: this light page does not carry them (each is ledger/public_texts/<sent_sha256>.txt beside it, fetched and re-hashed when a paste finds its line)'
          : state.textsOk + ' of ' + state.textsAll + ' re-hash here to their digest',
          countOf(pts.published) ? countOf(pts.published) + ' published' : null, state.textsBad.length ? 'bad' : null));
      }
    }

    // ---- lines table
    var filter = { day: '', kind: '', page: 0 };
    var rows = null;
    function allRows() {
      if (rows) return rows;
      var r = state.result;
      rows = r.lines.slice();
      withheld.forEach(function (w) { rows.push({ withheld: w, seq: w.seq, day: w.day, kind: 'withheld' }); });
      rows.sort(function (a, b) { return (a.seq === null ? Infinity : a.seq) - (b.seq === null ? Infinity : b.seq); });
      var days = {}, kinds = {};
      rows.forEach(function (x) { if (x.day) days[x.day] = 1; if (x.kind) kinds[x.kind] = 1; });
      fillSelect($('f-day'), Object.keys(days).sort(), 'every day');
      fillSelect($('f-kind'), Object.keys(kinds).sort(), 'every kind');
      return rows;
    }
    function fillSelect(s, values, allLabel) {
      clear(s);
      s.appendChild(el('option', { value: '' }, allLabel));
      values.forEach(function (v) { s.appendChild(el('option', { value: v }, v)); });
    }
    /*
     * Where a line's proof is (docs/witness.md#proof-folders): the path its record names
     * (`proof`: every record of a segmented exhibit's parts; a one-file index's only where it is
     * not the protocol's), else, in an index that is one file, the protocol's
     * ledger/witness/proofs/<entry_id>.ots. A light page of a segmented exhibit carries no
     * record: it points at the part of the witness index that names the path (`part`), found
     * by the line's seq in the parts index.json lists. Only a path of the output's grammar named
     * for the line's own entry_id is linked.
     */
    function proofPlace(id, rec, seq) {
      var own = String(id) + '.ots';
      if (rec && typeof rec.proof === 'string') {
        var m = /^ledger\/witness\/proofs\/(?:(?:[0-9]{6}|other)\/)?([0-9a-f]{64}\.ots)$/.exec(rec.proof);
        return m && m[1] === own ? { path: rec.proof } : { bad: true };
      }
      var parts = witness && obj(witness.index) && Array.isArray(witness.index.parts) ? witness.index.parts : null;
      if (!parts) return { path: 'ledger/witness/proofs/' + own };
      if (typeof seq !== 'number') return { part: null };
      for (var i = 0; i < parts.length; i++) {
        var p = obj(parts[i]);
        if (p && typeof p.path === 'string' && /^ledger\/witness\/index\/[0-9]{6,}\.json$/.test(p.path) && p.first_seq <= seq && seq <= p.last_seq) return { part: p.path };
      }
      return { part: null };
    }
    function proofLink(where, text) {
      if (where.path) return link(where.path, text);
      if (where.part) return [text + ': its path is named in ', link(where.part, where.part)];
      return where.bad ? text + ': its record names no path of this exhibit' : text + ': its path is named in the witness index (ledger/witness/index/)';
    }
    function otsCell(id, seq) {
      if (!witness) return null;
      var rec = wIndex && id ? wIndex[id] : null;
      if (!rec && light && !wIndex) return el('td', { class: 'muted' }, proofLink(proofPlace(id, null, seq), 'not carried'));
      if (!rec) return el('td', { class: 'muted' }, 'no record');
      var st = String(rec.status || '?');
      return el('td', null, proofLink(proofPlace(id, rec, seq), st),
        rec.block_height !== undefined ? ' block ' + String(rec.block_height) : '');
    }
    /*
     * The page of rows to draw: {slice, total, all, pages} (filter.page set), or null when `seq`
     * (the page holding that seq, unfiltered) has no row. From the records the page holds, at
     * once; from its reader's when it keeps them (docs/page.md#records-in-the-worker), as a
     * promise — the last asked wins.
     */
    var rowsAsked = 0, rowsListed = false;
    function linesPage(seq) {
      var data, at = -1;
      if (!state.store) {
        if (seq !== undefined) {
          data = allRows();
          for (var i = 0; i < data.length; i++) if (data[i].seq === seq) { at = i; break; }
          if (at < 0) return null;
          filter.page = Math.floor(at / PAGE_SIZE);
        } else data = allRows().filter(function (x) { return (!filter.day || x.day === filter.day) && (!filter.kind || x.kind === filter.kind); });
        var pages = Math.max(1, Math.ceil(data.length / PAGE_SIZE));
        if (filter.page >= pages) filter.page = pages - 1;
        return { slice: data.slice(filter.page * PAGE_SIZE, (filter.page + 1) * PAGE_SIZE), total: data.length, all: rows.length, pages: pages };
      }
      var token = ++rowsAsked, first = !rowsListed;
      rowsListed = true;
      return state.store.ask('rows', { withheld: first ? withheld.map(function (w) { return [w.seq, w.day]; }) : null, lists: first, day: filter.day, kind: filter.kind, page: filter.page, size: PAGE_SIZE, seq: seq }).then(function (a) {
        if (first) { fillSelect($('f-day'), a.days, 'every day'); fillSelect($('f-kind'), a.kinds, 'every kind'); }
        if (token !== rowsAsked || a.at < 0 && seq !== undefined) return null;
        filter.page = a.page;
        return { slice: a.rows.map(function (x) { return x.w !== undefined ? { withheld: withheld[x.w], seq: x.seq, day: x.day, kind: 'withheld' } : x; }), total: a.total, all: a.all, pages: a.pages };
      });
    }
    // Draws the lines table's page; a promise when the rows are asked for (null: nothing drawn).
    function renderLines(seq) {
      if (!state.result) return null;
      var got = seq === undefined && state.firstRows ? state.firstRows : linesPage(seq);
      state.firstRows = null;
      return got && typeof got.then === 'function' ? got.then(drawLines) : drawLines(got);
    }
    function drawLines(got) {
      if (!got) return null;
      var slice = got.slice, total = got.total, pages = got.pages;
      var tb = clear($('lines-body'));
      slice.forEach(function (x) {
        var tr;
        if (x.withheld) {
          tr = el('tr', { class: 'withheld', 'data-seq': String(x.seq), id: 'line-' + x.seq }, el('td', null, String(x.seq)), el('td', null, String(x.day || '')),
            el('td', null, '—'), el('td', null, 'withheld'), el('td', { colspan: '2', class: 'muted' }, 'digest and day only: the lab\'s word' + (typeof x.withheld.reason === 'string' ? ' (' + x.withheld.reason + ')' : '')),
            el('td', null, digest(x.withheld.entry_id, 'entry_id (the lab\'s word)')), otsCell(x.withheld.entry_id, x.seq));
        } else {
          var dig = [digest(x.id, 'entry_id')];
          if (x.d && x.d.sent_sha256) {
            dig.push(' sent ', digest(x.d.sent_sha256, 'sent_sha256'));
            if (isAllowListed(x.d.sent_sha256, x.seq) && textBytes(x.d.sent_sha256)) dig.push(' ', link('#text-' + x.d.sent_sha256, 'its text'));
          }
          tr = el('tr', { 'data-seq': String(x.seq), id: x.seq !== null ? 'line-' + x.seq : null, class: x.codes ? 'bad' : null },
            el('td', null, String(x.seq)), el('td', null, x.day || ''), el('td', null, x.ts ? x.ts.slice(11) : ''),
            el('td', null, x.kind || ''), el('td', null, x.dec), el('td', { class: 'note' }, x.num, x.num && x.note ? ' · ' : '', x.note),
            el('td', null, dig, x.codes ? el('div', { class: 'bad' }, 'problems: ' + x.codes.join(', ')) : null), otsCell(x.id, x.seq));
        }
        tb.appendChild(tr);
      });
      $('lines-count').textContent = total ? 'Rows ' + (filter.page * PAGE_SIZE + 1) + '–' + (filter.page * PAGE_SIZE + slice.length) +
        ' of ' + total + (total !== got.all ? ' (filtered from ' + got.all + ')' : '') + '; page ' + (filter.page + 1) + ' of ' + pages + '.' : 'No rows.';
      if (state.result.resumedToSeq) $('lines-count').textContent += ' ' + resumedWords();
      $('p-prev').disabled = filter.page === 0;
      $('p-next').disabled = filter.page >= pages - 1;
      return true;
    }
    function showLine(seq) {
      if (!state.ready || !state.result) return;
      filter.day = ''; filter.kind = ''; $('f-day').value = ''; $('f-kind').value = '';
      var shown = function (drawn) {
        var row = drawn && $('line-' + seq);
        if (row) { row.classList.add('target'); row.scrollIntoView({ block: 'center' }); }
      };
      var drawn = renderLines(seq);
      if (drawn && typeof drawn.then === 'function') drawn.then(shown); else shown(drawn);
    }
    $('f-day').addEventListener('change', function () { filter.day = this.value; filter.page = 0; renderLines(); });
    $('f-kind').addEventListener('change', function () { filter.kind = this.value; filter.page = 0; renderLines(); });
    $('p-prev').addEventListener('click', function () { filter.page--; renderLines(); });
    $('p-next').addEventListener('click', function () { filter.page++; renderLines(); });

    // ---- anchors
    // A posted head's Bitcoin proof evaluated on the visitor's click (docs/anchoring.md#on-the-page):
    // the page carries only the proofs' headers, so the .ots is read from this site (never
    // another host), evaluated by ExhibitVerify.ots, and each attestation shown — a Bitcoin block
    // with the merkle root it must carry and two explorers' pages to compare it on (links, not
    // requests), a pending one named pending.
    function attestationItem(x) {
      if (x.kind === 'bitcoin') {
        var ex = V.ots.explorers(x.height);
        return el('li', { 'data-kind': 'bitcoin', 'data-height': String(x.height), 'data-root': x.merkle_root }, 'Bitcoin block ' + x.height + ', merkle root ', el('code', { class: 'digest' }, x.merkle_root),
          ' — compare it with the block\'s at ', ex.map(function (e, i) { return [i ? ', ' : '', el('a', { href: e.url, rel: 'noopener noreferrer' }, e.name)]; }),
          ' (whether the block carries it is the one fact this page cannot know).');
      }
      if (x.kind === 'pending') return el('li', { 'data-kind': 'pending' }, 'pending at ' + x.calendar_url + ': attests nothing yet (an OpenTimestamps client upgrades it once the calendar\'s commitment is in a block).');
      if (x.kind === 'litecoin') return el('li', { 'data-kind': 'litecoin' }, 'Litecoin block ' + x.height + ' (not linked).');
      return el('li', { 'data-kind': 'unknown' }, 'an attestation of an unknown kind (tag ' + x.tag + ').');
    }
    function evaluateProof(date, out) {
      var path = 'ledger/anchors/' + date + '.txt.ots';
      clear(out).textContent = 'Reading ' + path + '…';
      fetchFile({ path: path }).then(function (buf) {
        var r = V.ots.evaluate(new Uint8Array(buf));
        clear(out);
        if (r.problem) {
          out.setAttribute('data-state', 'bad');
          append(out, [el('strong', null, 'The proof does not evaluate'), ': ' + r.problem.code + ' — ' + r.problem.detail]);
          return;
        }
        out.setAttribute('data-state', 'evaluated');
        append(out, ['From the post\'s sha256 every operation of ' + path + ' leads to:', el('ul', null, r.attestations.map(attestationItem))]);
      }, function (e) {
        clear(out).textContent = 'Could not read ' + path + ' from this site (' + String(e && e.message || e) + '); exhibit verify SITE evaluates it.';
        out.setAttribute('data-state', 'unread');
      });
    }
    /*
     * The posted heads table, one row a day (1,833 at 100,000 lines): each row's markup as text
     * (the same elements as el() makes), parsed at once, with one listener on the table for its
     * buttons. Made element by element it took most of 200 ms of the verdict's task on a
     * returning visit (docs/page.md#records-in-the-worker).
     */
    function esc(v) { return String(v).replace(/[&<>"']/g, function (c) { return '&#' + c.charCodeAt(0) + ';'; }); }
    function markup(name, attrs, inner) {
      var a = '';
      for (var k in attrs || {}) if (attrs[k] !== null && attrs[k] !== undefined) a += ' ' + k + '="' + esc(attrs[k]) + '"';
      return '<' + name + a + '>' + (inner || '') + '</' + name + '>';
    }
    function digestHtml(hex, label) {
      if (typeof hex !== 'string' || !hex) return markup('span', { class: 'muted' }, '—');
      return markup('code', digestAttrs(hex, label), esc(shortHex(hex)));
    }
    function anchorRowHtml(a, p) {
      var pc = p.checks ? Object.keys(p.checks).map(function (k) { return words(k) + ' ' + p.checks[k]; }).join(', ') : 'not in the index';
      var agree = p.ok === undefined ? '' : (p.ok === (a.ok && !proofFails(a)) ? 'agrees' : 'DISAGREES');
      var pr = state.proofs.anchor[a.date], prState = anchorProof(a);
      var good = a.ok && prState !== 'bad';
      var proof = prState === 'ok' ? 'ok: OpenTimestamps v1, sha256, commits to the post' : prState === 'bad' ? 'FAILS: the proof ' + PROOF_PROBLEM_WORDS[pr.problem]
        : prState === 'withheld' ? 'WITHHELD: ' + withheldProofWords(a.date, withheldProof(a.date)) : 'no proof carried';
      // The posted head in full, selectable, with a Copy button a keyboard reaches: the one
      // string a reader compares with the post outside the box (issue 45 item 5).
      var head = typeof a.post_head === 'string' && HEX64.test(a.post_head)
        ? markup('span', { class: 'fulldigest' }, markup('code', { class: 'full' }, esc(a.post_head)) + ' ' + markup('button', { type: 'button', class: 'copy', 'aria-label': 'Copy the head posted for ' + a.date }, 'Copy'))
        : digestHtml(a.post_head, 'posted head');
      var post = 'ledger/anchors/' + a.date + '.txt';
      return markup('tr', { 'data-date': a.date, id: 'anchor-' + a.date, class: good ? null : 'bad' },
        markup('td', null, esc(a.date)) + markup('td', null, esc(a.post_seq !== null ? String(a.post_seq) : '—')) + markup('td', { class: 'posted-head' }, head) +
        markup('td', { class: good ? 'ok' : 'bad' }, good ? 'checks out' : 'FAILS') +
        markup('td', null, esc('format ' + a.format + ', head ' + a.head + ', day closed ' + a.day_closed + ', ledger line ' + a.ledger_line)) +
        markup('td', { class: prState === 'ok' ? 'ok' : prState === 'bad' || prState === 'withheld' ? 'bad' : 'muted', 'data-proof': prState }, esc(proof)) +
        markup('td', null, esc((p.ok === undefined ? '' : (p.ok ? 'ok' : 'not ok') + (p.late ? ', late' : '') + ' — ') + pc) + (agree ? markup('div', null, esc('page and publisher: ' + agree)) : '')) +
        markup('td', null, markup('a', { href: post }, 'post') + (prState === 'ok' || prState === 'bad' ? ' · ' + markup('a', { href: post + '.ots' }, 'proof (.ots)') : '') +
          (prState === 'ok' ? markup('div', { class: 'ots-eval', id: 'ots-' + a.date }, markup('button', { type: 'button' }, 'What does its proof attest?')) : '')));
    }
    // The table's buttons: a posted head's Copy (copyNow), and what its proof attests (evaluateProof).
    if ($('anchors-body')) $('anchors-body').addEventListener('click', function (ev) {
      var b = ev.target && ev.target.closest ? ev.target.closest('button') : null;
      if (!b) return;
      if (b.classList.contains('copy')) copyNow(b, b.parentNode.querySelector('code.full').textContent);
      else if (b.parentNode.classList.contains('ots-eval')) evaluateProof(b.parentNode.id.slice(4), b.parentNode);
    });
    /*
     * The table's rows, the first ANCHOR_ROWS_FIRST with the verdict and the rest after it, a
     * chunk a task (`#anchors-body[data-rows]`: "first N of M", then "all"): 1,833 rows at
     * 100,000 lines are 55,000 elements, 150 ms of the verdict's task and a layout after it.
     */
    var ANCHOR_ROWS_FIRST = 200, ANCHOR_ROWS_CHUNK = 300, anchorsDrawn = 0;
    function renderAnchors() {
      var tb = clear($('anchors-body')), run = ++anchorsDrawn;
      var theirs = {};
      (Array.isArray(anchorsIndex.posts) ? anchorsIndex.posts : []).forEach(function (p) { if (p && p.date) theirs[p.date] = p; });
      var rows = state.anchors, k = Math.min(rows.length, ANCHOR_ROWS_FIRST);
      var html = function (from, to) { return rows.slice(from, to).map(function (a) { return anchorRowHtml(a, theirs[a.date] || {}); }).join(''); };
      tb.innerHTML = html(0, k);
      var rest = function () {
        var checked = {};
        state.anchors.forEach(function (a) { checked[a.date] = 1; });
        (Array.isArray(anchorsIndex.posts) ? anchorsIndex.posts : []).forEach(function (p) {
          if (!p || !p.date || checked[p.date]) return;
          tb.appendChild(el('tr', { 'data-date': p.date, id: 'anchor-' + p.date, class: p.ok === false ? 'bad' : null },
            el('td', null, String(p.date)), el('td', null, p.seq === null || p.seq === undefined ? '—' : String(p.seq)), el('td', null, '—'),
            el('td', { class: 'bad' }, 'not checked here'), el('td', { colspan: '2' }, 'The post is not in the exact form, so its text is withheld; the page has nothing to check.'),
            el('td', null, p.checks ? plain(p.checks) : '—'), el('td', null, '—')));
        });
        if (!tb.firstChild) tb.appendChild(el('tr', null, el('td', { colspan: '8' }, 'No posted head yet.')));
        tb.setAttribute('data-rows', 'all');
      };
      var more = function () {
        if (run !== anchorsDrawn) return;
        tb.insertAdjacentHTML('beforeend', html(k, k + ANCHOR_ROWS_CHUNK));
        k = Math.min(rows.length, k + ANCHOR_ROWS_CHUNK);
        if (k < rows.length) { tb.setAttribute('data-rows', 'first ' + k + ' of ' + rows.length); setTimeout(more, 0); } else rest();
      };
      if (k < rows.length) { tb.setAttribute('data-rows', 'first ' + k + ' of ' + rows.length); setTimeout(more, 0); } else rest();
      var without = anchorsIndex.anchor_lines_without_post;
      if (Array.isArray(without) && without.length) $('anchors-extra').textContent = 'Anchor lines without a post (the publisher\'s list): ' + without.map(function (x) {
        return x && typeof x === 'object' ? String(x.anchor_date) + ' (seq ' + plain(x.anchor_line_seqs) + ')' : String(x);
      }).join('; ') + '.';
    }

    // ---- coverage
    function renderCoverage() {
      var c = state.cov, box = clear($('coverage-body')), C = stats.coverage || {};
      var n = state.result.lines ? state.result.lines.length : state.result.records;
      function item(label, list, theirs, extra) {
        return el('div', { class: 'cov' }, el('h3', null, label + ': ' + list.length + ' of ' + n),
          theirs ? el('p', { class: 'theirs' }, 'The publisher\'s count: ' + theirs) : null,
          extra || null,
          list.length ? el('details', null, el('summary', null, 'seqs'), el('p', { class: 'seqs' }, ranges(list))) : el('p', { class: 'muted' }, 'none'));
      }
      var by = {};
      c.severed.forEach(function (s) { var w = c.severedBy[s]; (by[w] = by[w] || []).push(s); });
      var sevDetail = Object.keys(by).length ? el('ul', null, Object.keys(by).map(function (w) {
        return el('li', null, 'withheld seq ' + w + ' severs ' + by[w].length + ' line' + (by[w].length === 1 ? '' : 's'));
      })) : null;
      append(box, [item('Pinned', c.pinned, countOf(C.pinned)), item('Severed by a withheld line', c.severed, countOf(C.severed), sevDetail),
        item('Awaiting a posted head', c.awaiting, countOf(C.awaiting_head))]);
    }

    // ---- public texts: re-hashed here
    function textBytes(sha) {
      var t = publicTexts && obj(publicTexts.texts) ? publicTexts.texts[sha] : undefined;
      if (typeof t !== 'string') return null;
      try { return b64ToBytes(t); } catch (e) { return null; }
    }
    function renderTextsCheck() {
      if (!publicTexts) return;
      if (!textsCarried) {
        var lchk = $('texts-check'), lix = obj(publicTexts.index) || {}, lbox = $('texts-body');
        if (lchk) clear(lchk).appendChild(el('p', { class: 'muted' }, 'This light page does not carry the released texts, so it has re-hashed none of them. Each is ledger/public_texts/<sent_sha256>.txt beside this page, named by its own sha256 (check one with sha256sum); the page fetches one and re-hashes it when a pasted message\'s digest finds its line.'));
        if (lbox) {
          clear(lbox);
          if (lix.counts) lbox.appendChild(el('div', null, el('h3', null, 'The publisher\'s counts'), countsList(lix.counts)));
          if (lix.off_allow_list) lbox.appendChild(el('div', null, el('h3', null, 'Off the allow-list (hash only)'), countsList(lix.off_allow_list)));
          lbox.appendChild(el('p', { class: 'muted' }, 'The lists of withheld and not re-derivable texts, and of the published ones, are in ', link('ledger/public_texts/index.json', 'index.json'),
            Array.isArray(lix.parts) && lix.parts.length ? ' and its ' + lix.parts.length + ' part' + (lix.parts.length === 1 ? '' : 's') + ' under ledger/public_texts/index/' : '', '.'));
        }
        return;
      }
      var texts = obj(publicTexts.texts) || {}, ok = 0, all = 0, bad = [];
      var seqOf = {};
      var ix = obj(publicTexts.index) || {};
      (Array.isArray(ix.published) ? ix.published : []).forEach(function (p) { if (p && typeof p.sent_sha256 === 'string') seqOf[p.sent_sha256] = p.seq; });
      // A text is filed under the sent_sha256 of the published send line that sent it: one no
      // such line carries is listed as a failure, whatever its bytes hash to
      // (docs/scale.md#texts-without-a-line; `src/text_lines.rs` in the CLI).
      var stray = [];
      Object.keys(texts).forEach(function (sha) {
        all++;
        var b = textBytes(sha);
        if (b && V.sha256Hex(b) === sha) ok++; else bad.push({ sha: sha, seq: seqOf[sha] });
        var sent = (state.byDigest.get(sha) || []).some(function (h) { return h.field === 'sent_sha256' && h.line && h.line.kind === 'send'; });
        if (!sent && /^[0-9a-f]{64}$/.test(sha)) stray.push({ sha: sha });
      });
      state.textsOk = ok; state.textsAll = all; state.textsBad = bad; state.textsStray = stray;
      var chk = $('texts-check');
      if (chk) {
        clear(chk).appendChild(el('p', { class: bad.length || stray.length ? 'bad' : 'ok' }, ok + ' of ' + all + ' released texts re-hash in your browser to the sent_sha256 they are filed under.' +
          (bad.length ? ' ' + bad.length + ' do not: they are marked below.' : '') +
          (stray.length ? ' ' + stray.length + ' ' + (stray.length === 1 ? 'is' : 'are') + ' filed under a digest no published send line carries.' : '')));
      }
      var box = $('texts-body');
      if (!box) return;
      clear(box);
      if (ix.counts) box.appendChild(el('div', null, el('h3', null, 'The publisher\'s counts'), countsList(ix.counts)));
      [['withheld', 'Withheld by the text guard'], ['unreconstructable', 'Not re-derivable from the box\'s sources'], ['allowed_by_operator', 'Released on the operator\'s word']].forEach(function (kv) {
        var list = ix[kv[0]];
        if (!Array.isArray(list)) return;
        box.appendChild(el('h3', null, kv[1] + ': ' + list.length));
        if (list.length) box.appendChild(el('ul', null, list.slice(0, 200).map(function (x) {
          if (!x || typeof x !== 'object') return el('li', null, String(x));
          return el('li', null, 'seq ' + plain(x.seq) + (x.day ? ', ' + x.day : '') + ': ' + words(plain(x.reason || x.reasons || x.role || '')),
            x.detail ? ' — ' + plain(x.detail) : '', x.sent_sha256 ? [' (sent_sha256 ', digest(x.sent_sha256, 'sent_sha256'), ')'] : null);
        })));
      });
      if (ix.off_allow_list) box.appendChild(el('div', null, el('h3', null, 'Off the allow-list (hash only)'), countsList(ix.off_allow_list)));
    }

    // The released texts, one item each: seq, day, first line; open for the whole text and its
    // digests. Bodies are filled when an item opens (a long list stays light).
    function renderTextsList() {
      var list = $('texts-list');
      if (!list || !publicTexts) return;
      if (!textsCarried) {
        var P = stats.public_texts || {}, np = P.texts && typeof P.texts.published === 'number' ? P.texts.published : null;
        list.appendChild(el('li', { class: 'muted' }, 'This light page does not list the released texts' + (np !== null ? ' (' + np + ' published)' : '') + ': they are listed in ',
          link('ledger/public_texts/index.json', 'index.json'), ' and its parts, each file named by its own sha256.'));
        var lsum = $('texts-browse-summary');
        if (lsum) lsum.textContent = 'The released texts are not carried by this light page';
        return;
      }
      var ix = obj(publicTexts.index) || {};
      var pub = (Array.isArray(ix.published) ? ix.published : []).filter(function (p) { return p && typeof p.sent_sha256 === 'string'; })
        .slice().sort(function (a, b) { return Number(a.seq) - Number(b.seq); });
      var bad = {}, stray = {};
      state.textsBad.forEach(function (t) { bad[t.sha] = 1; });
      state.textsStray.forEach(function (t) { stray[t.sha] = 1; });
      var SHOW = 300;
      pub.slice(0, SHOW).forEach(function (p) {
        var sha = p.sent_sha256, b = textBytes(sha);
        // Bytes that are not UTF-8 (a changed text) decode to null: the list still renders, and
        // the text is marked as not hashing to its name (a page stuck on "Checking…" said nothing).
        var text = b ? V.utf8Decode(b) || '' : '';
        var first = text.split('\n').filter(function (x) { return x.trim(); })[0] || '(empty)';
        if (first.length > 120) first = first.slice(0, 117) + '…';
        var d = el('details', { class: 'text-item' + (bad[sha] || stray[sha] ? ' bad' : '') },
          el('summary', null, el('span', { class: 'tseq' }, 'seq ' + plain(p.seq)), ' ', el('span', { class: 'muted' }, String(p.day || '')), ' ',
            bad[sha] ? el('strong', { class: 'bad' }, 'DOES NOT HASH TO ITS NAME — ') : null,
            stray[sha] ? el('strong', { class: 'bad' }, 'NO PUBLISHED SEND LINE CARRIES ITS DIGEST — ') : null, first));
        d.addEventListener('toggle', function () {
          if (!d.open || d.getAttribute('data-filled')) return;
          d.setAttribute('data-filled', '1');
          var again = b ? V.sha256Hex(b) : '';
          var pre = el('pre', { class: 'released' });
          pre.textContent = text;
          var L = state.bySeq.get(Number(p.seq));
          append(d, [pre, el('p', null, 'sent_sha256 on the line: ', fullDigest(sha, 'sent_sha256')),
            el('p', { class: again === sha ? 'ok' : 'bad' }, 'these bytes, re-hashed in your browser: ', el('code', { class: 'full' }, again),
              again === sha ? ' — the same' : ' — DIFFERENT: these are not the bytes the gate hashed'),
            el('p', null, link('ledger/public_texts/' + sha + '.txt', 'the file'), L ? [' · ', link('#line-' + L.seq, 'its line (seq ' + L.seq + ')')] : null)]);
        });
        list.appendChild(el('li', { id: 'text-' + sha, 'data-sent-sha256': sha, 'data-seq': String(p.seq) }, d));
      });
      // A failing text the publisher's index does not list still gets an item, so that the
      // verdict's link to it lands somewhere.
      var listed = {};
      pub.forEach(function (p) { listed[p.sent_sha256] = 1; });
      state.textsBad.concat(state.textsStray).forEach(function (t) {
        if (listed[t.sha]) return;
        listed[t.sha] = 1;
        list.appendChild(el('li', { id: 'text-' + t.sha, 'data-sent-sha256': t.sha, class: 'bad' },
          el('p', { class: 'bad' }, 'A text this page carries under ', fullDigest(t.sha, 'sent_sha256'), ', which the publisher\'s index does not list',
            stray[t.sha] ? '; no published send line carries this digest' : '', bad[t.sha] ? '; it does not hash to its name' : '', '. ',
            link('ledger/public_texts/' + t.sha + '.txt', 'The file'), '.')));
      });
      var sum = $('texts-browse-summary');
      if (sum) sum.textContent = 'Browse the ' + pub.length + ' released text' + (pub.length === 1 ? '' : 's') + ' (seq, day, first line; open one for the whole text and its digests)';
      if (state.textsBad.length || state.textsStray.length) $('texts-browse').open = true;
      if (pub.length > SHOW) list.appendChild(el('li', { class: 'muted' }, (pub.length - SHOW) + ' more are in ', link('ledger/public_texts/index.json', 'index.json'), '.'));
      if (!pub.length) list.appendChild(el('li', { class: 'muted' }, 'No released text yet.'));
    }

    // ---- witness (the tail's store, copied at build; the proofs' headers checked here)
    function renderWitnessHeaders() {
      var p = $('witness-headers'), P = state.proofs;
      if (!p) return;
      if (P.error) { p.textContent = 'The page could not read the proofs\' headers it carries: ' + P.error; p.className = 'bad'; return; }
      p.className = P.witnessBad.length || P.preregBad ? 'bad' : 'muted';
      if (light) {
        p.textContent = 'This light page does not check the per-line proofs: it carries neither their headers nor the per-line index (the ledger is too large to carry them in one page). Each is beside it under ledger/witness/proofs/, at the path its record in the witness index names (ledger/witness/index.json, or the part of ledger/witness/index/ it lists for the line\'s seq); check one with an OpenTimestamps client as below.' +
          (P.prereg ? (P.preregBad ? ' WITNESS_PREREG.md as carried here does NOT hash to ' + P.prereg.slice(0, 12) + '…, the digest its proof is named for.'
            : ' WITNESS_PREREG.md as carried here hashes to ' + P.prereg.slice(0, 12) + '…, the digest its proof is named for.') : '');
        return;
      }
      p.textContent = 'Proof headers checked in your browser (magic, version 1, the sha256 op, the digest each commits to against its name): ' +
        P.witnessOk + ' of ' + P.witnessAll + ' check out' + (P.witnessBad.length ? '; these do not: ' + P.witnessBad.slice(0, 20).map(function (w) {
          return w.name.slice(0, 12) + '… (' + PROOF_PROBLEM_WORDS[w.problem] + ')'; }).join(', ') : '') + '.' +
        (P.prereg ? (P.preregBad ? ' WITNESS_PREREG.md as carried here does NOT hash to ' + P.prereg.slice(0, 12) + '…, the digest its proof is named for.'
          : ' WITNESS_PREREG.md as carried here hashes to ' + P.prereg.slice(0, 12) + '…, the digest its proof is named for.') : '');
    }
    function renderWitness() {
      var box = $('witness-body');
      if (!box || !witness) return;
      var ws = obj(witness.stats) || {};
      var counts = {}, latency = null;
      // the window is said in a sentence below
      Object.keys(ws).forEach(function (k) { if (k === 'outside_latency') latency = ws[k]; else if (k !== 'window') counts[k] = ws[k]; });
      box.appendChild(el('h3', null, 'Counts (the publisher\'s, from the tail\'s store)'));
      box.appendChild(countsList(counts));
      if (latency) {
        box.appendChild(el('h3', null, 'Outside latency: block header time − the line\'s timestamp'));
        box.appendChild(countsList(latency));
      }
      var win = obj(witness.window);
      box.appendChild(el('p', null, win && win.registered ? 'The kill-gate window is registered: day 1 is ' + String(win.since) + '.'
        : 'The kill-gate window is not registered yet: the operator has not named its day 1.'));
      var run = witness.tail_last_run;
      if (run) box.appendChild(el('p', null, 'The tail last ran at ' + (typeof run === 'object' ? plain(run.run_at) + (run.lines_seen !== undefined ? ', having seen ' + plain(run.lines_seen) + ' lines' : '') : String(run)) +
        ' (the tail\'s clock); its report\'s denominators are the chain as it read it then, the page\'s are the lines it carries.'));
      if (typeof witness.how_to_pin === 'string') {
        $('how-to-pin').textContent = witness.how_to_pin;
      }
    }

    /*
     * The files an embedded page links beside it (docs/page.md "The files beside the page"):
     * over http, each is fetched and held to the bytes this page carries and checked — the
     * ledger, the withheld list, STATS.json, SNAPSHOTS.jsonl, the anchors' index and each posted
     * head's file, the released texts and the tree's checkpoint — as a light page holds its
     * files; a file the site does not hold reads as empty, as `exhibit verify SITE` reads it. A
     * site whose checkpoint extends this page's is a newer publication, not a failure. From
     * file:// a browser lets the page read no file: it says it checked its own copy.
     * Resolves to {local} | {newer} | {checked, failures: [{what, href}], unread: [path]}.
     */
    function besideCheck() {
      if (location.protocol === 'file:' || typeof fetch !== 'function') return Promise.resolve({ local: true });
      var pairs = [['ledger/ledger.jsonl', 'ledger-bytes'], ['ledger/withheld.json', 'withheld-json'], ['ledger/STATS.json', 'stats-json'],
        ['ledger/SNAPSHOTS.jsonl', 'snapshots-jsonl'], ['ledger/anchors/index.json', 'anchors-json'], ['ledger/tree/checkpoint', 'tree-checkpoint']]
        .map(function (x) { return [x[0], block(x[1]) || new Uint8Array(0)]; });
      var named = {};
      (Array.isArray(anchorsIndex.posts) ? anchorsIndex.posts : []).forEach(function (p) { if (p && typeof p.text_file === 'string') named[p.date] = p.text_file; });
      posts.forEach(function (p) { pairs.push(['ledger/anchors/' + (named[p.date] || p.date + '.txt'), V.utf8Encode(p.text)]); });
      if (publicTexts && obj(publicTexts.texts)) Object.keys(publicTexts.texts).forEach(function (sha) { if (HEX64.test(sha)) pairs.push(['ledger/public_texts/' + sha + '.txt', textBytes(sha) || new Uint8Array(0)]); });
      var out = { checked: 0, failures: [], unread: [] };
      return treeGet('checkpoint').then(newerPublication, function () { return null; }).then(function (n) {
        if (n) return { newer: n };
        return pool(pairs, 4, function (x) {
          return fetch(x[0], { cache: 'no-store', credentials: 'same-origin' }).then(function (res) {
            if (res.status === 404 || res.status === 410) return new Uint8Array(0);
            if (!res.ok) throw new Error('the server answered ' + res.status);
            return res.arrayBuffer().then(function (b) { return new Uint8Array(b); });
          }).then(function (got) {
            out.checked++;
            if (sameBytes(got, x[1]) || (!got.length && !x[1].length)) return;
            out.failures.push({ what: 'the site\'s ' + x[0] + ', beside this page, is not the copy this page carries and checked (' + (got.length ? got.length + ' bytes with sha256 ' + V.sha256Hex(got) : 'the site does not hold it') +
              '; the page\'s: ' + x[1].length + ' bytes with sha256 ' + V.sha256Hex(x[1]) + '): whoever downloads it gets other bytes than this verdict is about', href: '#beside-check' });
          }, function (e) { out.unread.push(x[0] + ' (' + errorWords(e) + ')'); });
        }).then(function () {
          out.failures.sort(function (a, b) { return a.what < b.what ? -1 : 1; });
          return out;
        });
      });
    }
    function besideWords() {
      var b = state.beside;
      if (!b || light) return null;
      if (b.local) return 'Opened from a file: this page checked its own copy of the ledger and records; a browser lets it read no file beside it, so those files (the ones linked here) were not compared with it. Run exhibit verify on the folder to check them.';
      return 'The files beside this page: ' + b.checked + ' fetched from this site and compared with the copies this page carries' + (b.failures.length ? '; ' + b.failures.length + ' differ (see the verdict)' : ', each the same') +
        (b.unread.length ? '; not read: ' + b.unread.join(', ') : '') + '.';
    }

    // ---- the first screen (docs/page.md "The first screen"): without JavaScript the badge says
    // there is no verdict; the page says it is checking only once it is.
    function firstScreen() {
      $('badge').textContent = 'Checking…';
      $('verdict-text').textContent = 'Re-deriving the ledger in your browser…';
      status('Checking the ledger…');
      if ($('progress')) $('progress').hidden = false;
      $('independent').textContent = '';
      if ($('publisher')) $('publisher').textContent = publisherWords();
      // The withheld lines' caveats, only where lines are withheld.
      if (!withheldFiles && !recordsDeferred && (withheldBytes === null || (Array.isArray(withheldRaw) && !withheldRaw.length))) {
        Array.prototype.slice.call(document.querySelectorAll('.if-withheld')).forEach(function (e) { e.parentNode.removeChild(e); });
      }
    }
    // The publisher as the exhibit names itself: the checkpoint's origin and the operator's key
    // name (STATS.json's tree.key, `<name>+<key id>+<base64>`).
    function publisherWords() {
      var cp = treeBlock ? T.parseCheckpoint(treeBlock) : null, key = keyOf(statsTree);
      var name = key && key.split('+').length >= 3 ? key.split('+').slice(0, -2).join('+') : null;
      if (!cp || cp.error) return name ? ', published under the key ' + name : '';
      return ', published as ' + cp.origin + (name ? ' under the key ' + name : ' (unsigned)');
    }

    // ---- what is anchored outside the operator's reach (docs/page.md "What is independent")
    // Witness cosignatures, as the signature check counted them with ExhibitVerify.cosign
    // against the witness keys STATS.json lists (docs/anchoring.md#cosignatures).
    function witnessCosignatures() {
      var c = lastCosign;
      if (!c || !c.n) return { checked: 0, words: 'No witness cosignatures checked (this exhibit lists no witness).' };
      return {
        checked: c.k,
        words: c.k ? 'Witnesses: ' + V.cosign.words(c) + (c.by && c.by.length ? ' (' + c.by.join(', ') + ')' : '') + '.'
          : 'Witnesses: none of the ' + c.n + ' listed cosigned this checkpoint.'
      };
    }
    // The posted heads this visit checked, newest first: {date, head, seq, text, newest}.
    function anchorCandidates() {
      // Only the posts whose proof this page carries a header of, and whose header commits to
      // the post: no request for a proof the site does not hold.
      var stamped = {};
      if (Array.isArray(proofHeaders)) proofHeaders.forEach(function (h) { if (h.kind === 'anchor') stamped[h.name.replace(/\.txt\.ots$/, '')] = h.header; });
      var has = function (date) { var h = stamped[date]; return !!h && postsRaw[date] !== undefined && checkProofHeader(h, postSha(V, String(postsRaw[date]))) === 'ok'; };
      var out = [];
      if (state.mode === 'log') {
        postedHeads(posts).forEach(function (h) { out.push({ date: h.date, head: h.head, seq: h.seq, text: String(postsRaw[h.date]) }); });
      } else {
        (state.anchors || []).forEach(function (a) {
          if (a.ok && anchorProof(a) === 'ok' && a.post_seq !== null) out.push({ date: a.date, head: a.post_head, seq: Number(a.post_seq), text: String(postsRaw[a.date]) });
        });
      }
      out.sort(function (x, y) { return x.date < y.date ? 1 : x.date > y.date ? -1 : 0; });
      if (out.length) out[0].newest = true;
      out = out.filter(function (c) { return has(c.date); });
      return out;
    }
    var ANCHOR_TRIES = 10;
    /*
     * The newest posted head whose Bitcoin proof, read from the site (or the picked folder) and
     * evaluated here (ExhibitVerify.ots.evaluate), commits to the post and reaches a Bitcoin
     * attestation; on the log-size path that head is also proved a leaf of the checkpoint's tree.
     * Resolves to {date, head, height, root, explorers} or {why} (nothing anchored, in words).
     */
    function bitcoinAnchor() {
      var cands = anchorCandidates().slice(0, ANCHOR_TRIES), pending = 0, unread = 0, absent = 0;
      if (!posts.length) return Promise.resolve({ why: 'no head has been posted outside the box yet' });
      if (!cands.length) return Promise.resolve({ why: 'no posted head has a Bitcoin proof yet' });
      if (location.protocol === 'file:' && !state.picked) return Promise.resolve({ why: 'opened from a file, the page checked its own copy and cannot read the files and Bitcoin proofs beside it' });
      var i = 0;
      function next() {
        if (i >= cands.length) {
          return { why: pending ? 'the Bitcoin proofs of the ' + (cands.length === 1 ? 'posted head are' : cands.length + ' newest posted heads are') + ' not confirmed yet (pending at a calendar)'
            : unread ? 'the Bitcoin proofs of the posted heads could not be read here' : absent ? 'no posted head has a Bitcoin proof yet' : 'no posted head\'s proof reaches a Bitcoin block' };
        }
        var c = cands[i++];
        return ledgerFile('anchors/' + c.date + '.txt.ots').then(function (b) {
          if (!b) { absent++; return next(); }
          var e = V.ots.evaluate(b);
          if (e.problem || e.digest !== V.sha256Hex(V.utf8Encode(c.text))) { unread++; return next(); }
          var btc = e.attestations.filter(function (a) { return a.kind === 'bitcoin'; })[0];
          if (!btc) { if (e.attestations.some(function (a) { return a.kind === 'pending'; })) pending++; return next(); }
          var found = { date: c.date, head: c.head, height: btc.height, root: btc.merkle_root, explorers: btc.explorers || [] };
          if (state.mode !== 'log' || c.newest) return found;
          return inTree(c).then(function (holds) { return holds ? found : next(); });
        }, function () { unread++; return next(); });
      }
      return Promise.resolve().then(next);
    }
    // A posted head, on the log-size path, proved a leaf of the verified checkpoint's tree.
    function inTree(c) {
      var cp = state.treeCp;
      if (!cp || c.seq < 1 || c.seq > cp.size) return Promise.resolve(false);
      return treeAll(T.neededTiles(cp.size, c.seq - 1)).then(function () {
        return T.checkInclusion(T.inclusionProof(cp.size, c.seq - 1, treeCache), cp.size, cp.root, c.seq - 1, T.leafHash(hexBytes(c.head)));
      }, function () { return false; });
    }
    function renderIndependent() {
      var p = $('independent');
      if (!p) return;
      if (verdict.getAttribute('data-verdict') === 'failed') {
        p.setAttribute('data-state', 'failed');
        p.className = 'bad';
        p.textContent = 'Nothing here counts as anchored while a check fails.';
        return;
      }
      p.setAttribute('data-state', 'working');
      p.className = 'muted';
      p.textContent = 'Checking what is anchored outside the operator\'s reach…';
      bitcoinAnchor().then(function (x) {
        clear(p);
        var w = witnessCosignatures();
        p.setAttribute('data-witnesses', String(w.checked));
        if (x.height) {
          p.setAttribute('data-through', x.date);
          p.setAttribute('data-block', String(x.height));
          p.setAttribute('data-root', x.root);
          p.className = '';
          var links = x.explorers.map(function (u) { return el('a', { href: u }, u.replace(/^https:\/\/([^/]+).*$/, '$1')); });
          append(p, [el('strong', null, 'Anchored outside the operator\'s reach'), ' through ' + x.date + ': Bitcoin block ' + x.height + ', if its merkle root is ',
            el('code', { class: 'full' }, x.root), links.length ? [' (compare: ', links.map(function (a, k) { return k ? [', ', a] : a; }), ')'] : '', '. ' + w.words]);
          p.setAttribute('data-state', 'anchored');
        } else {
          p.setAttribute('data-reason', x.why);
          append(p, [el('strong', null, 'Nothing independent checked'), ' (' + x.why + '): a rebuilt forgery would pass the same checks. ' + w.words]);
          p.setAttribute('data-state', 'consistent');
        }
      }, function (e) {
        p.setAttribute('data-state', 'consistent');
        p.textContent = 'Nothing independent checked: ' + errorWords(e) + '.';
      });
    }

    // ---- prove one message
    // The first posted head at or after seq `seq` (any, as the page re-checked it), or null.
    function headAfter(seq) {
      var P = state.posted || [];
      for (var i = 0; i < P.length; i++) if (P[i].seq >= seq) return P[i].a;
      return null;
    }
    /**
     * A published line's standing (docs/page.md "The verdict"): {key, title, cls, detail}, key
     * one of failed-chain, failing-head, severed, awaiting, vouched.
     */
    function standingOf(L) {
      var a = headAfter(L.seq);
      if (!state.result.ok) return { key: 'failed-chain', cls: 'bad', title: 'The ledger on this page does NOT re-derive',
        detail: 'so no line of it can be relied on until the publisher explains: see the verdict above.' };
      if (a && !(a.ok && !proofFails(a))) return { key: 'failing-head', cls: 'bad', title: 'On a day whose posted head FAILS',
        detail: 'the head posted for ' + a.date + ' (seq ' + a.post_seq + ') does not check out against this ledger: a line up to it may have been changed after the head was posted.' };
      if (state.severedSet.has(L.seq)) {
        var w = state.cov.severedBy[L.seq];
        return { key: 'severed', cls: 'near', title: 'Severed by a withheld line: not vouched for by a posted head',
          detail: 'withheld seq ' + w + ' lies between this line and the next posted head' + (a ? ' (' + a.date + ')' : '') + '; the chain through it rests on the lab\'s digest.' };
      }
      if (!a || !state.pinnedSet.has(L.seq)) return { key: 'awaiting', cls: 'near', title: 'Awaiting the next posted head: not vouched for yet',
        detail: 'no head has been posted at or after seq ' + L.seq + ' yet; the next one will pin it if no line before it is withheld.' };
      if (state.verdict && state.verdict.verdict === 'failed') return { key: 'vouched', cls: 'near', title: 'Vouched for by the head posted for ' + a.date + ', on a page whose verdict is FAILED',
        detail: 'the head posted outside the box for ' + a.date + ' is the digest this page computes at seq ' + a.post_seq + ', but other checks of this page fail (see the verdict above): do not rely on this line until the publisher explains.' };
      return { key: 'vouched', cls: 'ok', title: 'Vouched for by the head posted for ' + a.date,
        detail: 'every line from this one to seq ' + a.post_seq + ' is published and re-derives here, and the head posted outside the box for ' + a.date + ' is the digest this page computes at seq ' + a.post_seq + '.' };
    }
    function proofLinesFor(L) {
      var out = [];
      var a = headAfter(L.seq);
      if (a) {
        out.push(el('li', null, 'Posted head: ', a.date, ' (seq ', String(a.post_seq), ', ', digest(a.post_head, 'posted head'), ') — ',
          a.ok && !proofFails(a) ? 'its checks pass in this browser. ' : 'its checks FAIL in this browser. ',
          link('ledger/anchors/' + a.date + '.txt', 'the post'), anchorProof(a) === 'ok' || anchorProof(a) === 'bad' ? [' · ', link('ledger/anchors/' + a.date + '.txt.ots', 'its Bitcoin proof (.ots)')] : anchorProof(a) === 'withheld' ? ' (the publisher withheld its proof: its header did not commit to the post)' : ' (no proof of the post yet)'));
      } else out.push(el('li', null, 'Posted head: none yet at or after seq ' + L.seq + '.'));
      if (witness) {
        var rec = wIndex && L.id ? wIndex[L.id] : null;
        if (rec) {
          out.push(el('li', null, 'Per-line witness (the tail\'s store as copied at build): ', String(rec.status),
            rec.block_height !== undefined ? ', block ' + rec.block_height : '', rec.block_time ? ', block header time ' + rec.block_time : '',
            rec.status === 'pending' ? ' — a PENDING file pins nothing yet' : ''));
          out.push(el('li', null, 'Pin it without this page: ', proofLink(proofPlace(L.id, rec, L.seq), L.id.slice(0, 12) + '….ots'),
            ', then ', el('code', null, 'ots verify -d ' + L.id + ' ' + L.id + '.ots')));
        } else out.push(el('li', null, 'Per-line witness: the copied store has no record for this line.'));
      }
      return out;
    }
    function lineFacts(L) {
      return el('ul', { class: 'facts' },
        el('li', null, 'seq ' + L.seq + ', ' + (L.kind || '') + ', timestamp ' + (L.ts || '?') + ' (the gate\'s clock), day ' + (L.day || '?'),
          ' · ', link('#line-' + L.seq, 'its row')),
        L.dec ? el('li', null, 'decision: ' + L.dec) : null,
        L.num ? el('li', null, 'numerals: ' + L.num) : null,
        el('li', null, 'entry_id ', fullDigest(L.id, 'entry_id')),
        proofLinesFor(L));
    }
    function releasedBlock(sha, heading) {
      var b = textBytes(sha);
      if (!b) return null;
      var again = V.sha256Hex(b);
      var pre = el('pre', { class: 'released' });
      pre.textContent = V.utf8Decode(b);
      return el('details', { class: 'released-box' }, el('summary', null, heading),
        el('p', null, 'sent_sha256 on the line: ', fullDigest(sha, 'sent_sha256')),
        el('p', null, 'these bytes, re-hashed in your browser: ', el('code', { class: 'full' }, again), again === sha ? ' — the same' : ' — DIFFERENT'),
        pre);
    }
    // A light page's released text, fetched when a paste finds its line: the index part that
    // lists the line's seq says whether the line is the allow-listed one, and the bytes are
    // re-hashed here before they are shown (docs/page.md "Released texts on a light page").
    function ledgerFile(rel) {
      if (state.picked) {
        var f = state.picked['ledger/' + rel];
        return f ? f.arrayBuffer().then(function (b) { return new Uint8Array(b); }) : Promise.resolve(null);
      }
      if (location.protocol === 'file:') return Promise.reject(new Error('this page was opened from a file (file://), where a browser lets it read no file beside it; pick the cloned ledger/ folder above'));
      return fetch('ledger/' + rel, { cache: 'no-store', credentials: 'same-origin' }).then(function (res) {
        if (res.status === 404) return null;
        if (!res.ok) throw new Error('the server answered ' + res.status + ' ' + res.statusText + ' for ledger/' + rel);
        return res.arrayBuffer().then(function (b) { return new Uint8Array(b); });
      });
    }
    // The index part that lists a seq, and how many entries it holds (null: no part does).
    function textPartFor(seq) {
      var ix = obj(publicTexts.index) || {};
      if (!Array.isArray(ix.parts)) return { path: 'public_texts/index.json', entries: null };
      for (var i = 0; i < ix.parts.length; i++) {
        var p = ix.parts[i];
        if (p && typeof p.path === 'string' && /^ledger\/public_texts\/index\/[0-9]{6,}\.json$/.test(p.path) && p.first_seq <= seq && seq <= p.last_seq) {
          return { path: p.path.slice('ledger/'.length), entries: typeof p.entries === 'number' ? p.entries : null };
        }
      }
      return null;
    }
    /*
     * The bytes of a found line's released text are fetched and re-hashed at once: a few KB, and
     * they hash to the line's own sent_sha256, so they are what this line sent, whichever line
     * the text was released for. Whether this line is the allow-listed send (not an off-list
     * twin with the same bytes) is read from the index part that lists its seq: at once when the
     * part lists at most PART_AUTO_ENTRIES entries, else on the visitor's click, its size said
     * first (a part of 10,000 seqs weighs about 770 KB, past what proving one message may fetch:
     * docs/page.md "Released texts on a light page"). Each file is fetched once a visit.
     */
    var PART_AUTO_ENTRIES = 1000, partFetches = {};
    function partListing(partPath) {
      if (!partFetches[partPath]) partFetches[partPath] = ledgerFile(partPath).then(function (b) {
        if (!b) return [];
        var part = V.readSiteJSON(V.utf8Decode(b));
        return part && Array.isArray(part.published) ? part.published : [];
      });
      return partFetches[partPath];
    }
    function fetchedRelease(sha, seq) {
      var box = el('div', { class: 'released-fetch', 'data-state': 'fetching' }, el('p', { class: 'muted' }, 'Fetching the released text ledger/public_texts/' + sha + '.txt…'));
      var part = textPartFor(seq);
      var auto = part && (part.entries === null || part.entries <= PART_AUTO_ENTRIES); // one file: as before
      function standing(pub) { return pub.some(function (p) { return p && p.sent_sha256 === sha && p.seq === seq; }); }
      var listed = !part ? Promise.resolve(false) : auto ? partListing(part.path).then(standing) : Promise.resolve(null);
      var textPath = 'public_texts/' + sha + '.txt';
      if (!partFetches[textPath]) partFetches[textPath] = ledgerFile(textPath);
      Promise.all([listed, partFetches[textPath]]).then(function (got) {
        var allow = got[0], b = got[1];
        clear(box);
        if (!b) {
          box.setAttribute('data-state', 'absent');
          box.appendChild(el('p', null, 'No released text with this digest is published beside this page (ledger/public_texts/' + sha + '.txt is not there): the line stands as a digest only.'));
          return;
        }
        var again = V.sha256Hex(b);
        if (again !== sha) {
          box.setAttribute('data-state', 'bad');
          box.appendChild(el('p', { class: 'bad' }, 'The file ledger/public_texts/' + sha + '.txt re-hashes here to ', el('code', { class: 'full' }, again), ': DIFFERENT. These are not the bytes the gate hashed.'));
          return;
        }
        var showStanding = function (allowed) {
          box.setAttribute('data-state', allowed ? 'released' : 'off-list');
          if (!allowed) {
            clear(box).appendChild(el('p', null, 'The released text with this digest (fetched and re-hashed here: the same) is published for the allow-listed line; this line is off the allow-list.'));
            return;
          }
          var pre = el('pre', { class: 'released' });
          pre.textContent = V.utf8Decode(b);
          clear(box).appendChild(el('details', { class: 'released-box', open: 'open' }, el('summary', null, 'The released bytes of this send (fetched)'),
            el('p', null, 'sent_sha256 on the line: ', fullDigest(sha, 'sent_sha256')),
            el('p', null, 'these bytes, re-hashed in your browser: ', el('code', { class: 'full' }, again), ' — the same'),
            pre));
        };
        if (allow !== null) { showStanding(allow); return; }
        // A large part: the bytes now, the line's standing on request.
        box.setAttribute('data-state', 'rehashed');
        var pre = el('pre', { class: 'released' });
        pre.textContent = V.utf8Decode(b);
        var ask = el('button', { type: 'button', class: 'part-standing' }, 'Check that this line is the allow-listed send');
        ask.addEventListener('click', function () {
          ask.disabled = true;
          ask.textContent = 'Reading ledger/' + part.path + '…';
          partListing(part.path).then(function (pub) { showStanding(standing(pub)); }, function (e) {
            box.setAttribute('data-state', 'unavailable');
            ask.textContent = 'The index part could not be read: ' + (e && e.message ? e.message : String(e)) + '. This line\'s standing was not checked.';
          });
        });
        box.appendChild(el('details', { class: 'released-box', open: 'open' }, el('summary', null, 'The bytes released with this digest (fetched)'),
          el('p', null, 'sent_sha256 on the line: ', fullDigest(sha, 'sent_sha256')),
          el('p', null, 'these bytes, re-hashed in your browser: ', el('code', { class: 'full' }, again), ' — the same: they are what this line sent.'),
          el('p', null, 'Not checked yet: whether this line is the allow-listed send they were released for, or an off-list send of the same bytes. ledger/' + part.path + ' says (' + part.entries.toLocaleString('en') + ' entries, about ' + Math.round(part.entries * 138 / 1024) + ' KB). ', ask),
          pre));
      }).catch(function (e) {
        box.setAttribute('data-state', 'unavailable');
        clear(box).appendChild(el('p', { class: 'bad' }, 'The released text could not be fetched: ' + (e && e.message ? e.message : String(e)) + '. Nothing about it was checked here.'));
      });
      return box;
    }
    function isAllowListed(sha, seq) {
      var ix = publicTexts && obj(publicTexts.index);
      var pub = ix && Array.isArray(ix.published) ? ix.published : [];
      for (var i = 0; i < pub.length; i++) if (pub[i].sent_sha256 === sha && (seq === undefined || pub[i].seq === seq)) return true;
      return false;
    }
    function pasteStatus(text) { var s = $('paste-status'); if (s) s.textContent = text; }

    /*
     * The answer's first lines (docs/page.md "Prove one message"): one plain line — SENT on
     * <day> at <time> (line N), NOT SENT AS WRITTEN (what differs), NOT FOUND (what was
     * searched) — then, after the standing the renderers drew, the page's own verdict, so that
     * a shared #paste= link on a failed page says so inside the answer.
     */
    function whenSent(x) {
      var m = /T([0-9]{2}:[0-9]{2}(:[0-9]{2})?)(.*)$/.exec(String(x.ts || ''));
      var day = x.day || (x.ts ? String(x.ts).slice(0, 10) : null);
      return (day ? ' on ' + day : '') + (m ? ' at ' + m[1] + (m[3] === 'Z' || m[3] === '' ? ' UTC' : ' ' + m[3]) : '') + ' (line ' + x.seq + ')';
    }
    function isSend(x) { return x.kind === 'send' && !/block|den|refus|reject|hold|fail/i.test(String(x.dec || '')); }
    function answerLead(out) {
      var a = state.answer || {}, kind, words, cls;
      if (out.getAttribute('data-verdict') === 'unavailable') { kind = 'unavailable'; cls = 'bad'; words = 'NOT CHECKED: the page could not answer (see below).'; }
      else if (a.textBad) { kind = 'not-proved'; cls = 'bad'; words = 'NOT PROVED: the released text of seq ' + a.textBad.seq + ' on this site does not re-hash to the digest its line carries; it was changed, and proves nothing about your words.'; }
      else if (a.excerpt && a.line) {
        var notHeld = a.proved === false ? ' — but its proof in the tree does NOT hold' : '';
        kind = 'passage-of-sent'; cls = a.proved === false ? 'bad' : isSend(a.line) ? 'ok' : 'near';
        words = (a.excerpt.whole ? 'THE WORDS OF THE ' : 'A PASSAGE OF THE ') + (isSend(a.line) ? 'MESSAGE SENT' : 'TEXT LOGGED') + whenSent(a.line) +
          (isSend(a.line) ? '' : ', a ' + (a.line.kind || 'line') + ' line' + (a.line.dec ? ' (decision ' + a.line.dec + ')' : '') + ': not a message the gate let out') +
          ': your ' + a.excerpt.n + ' words, word for word' + (a.excerpt.whole ? '' : ', not the whole message') + notHeld + '.';
      }
      else if (a.withheld) { kind = 'withheld'; cls = 'near'; words = 'IN THE LEDGER, WITHHELD: seq ' + a.withheld.seq + ' (day ' + a.withheld.day + ') carries this digest; its line is not published, so what it records cannot be shown.'; }
      else if (a.line) {
        var proved = a.proved === false ? ' — but its proof in the tree does NOT hold' : '';
        if (isSend(a.line)) { kind = 'sent'; cls = a.proved === false ? 'bad' : 'ok'; words = 'SENT' + whenSent(a.line) + proved + '.'; }
        else { kind = 'in-ledger'; cls = 'near'; words = 'IN THE LEDGER' + whenSent(a.line) + ', a ' + (a.line.kind || 'line') + ' line' + (a.line.dec ? ' (decision ' + a.line.dec + ')' : '') + ': not a message the gate let out' + proved + '.'; }
      } else if (a.near) {
        var sent = a.near.ts ? whenSent(a.near) : ' (line ' + a.near.seq + ')';
        if (a.passage) { kind = 'part-of-sent'; cls = 'near'; words = 'PART OF A MESSAGE SENT' + sent + ': ' + a.differ + '. Its bytes are not your paste\'s: NOT a hash match.'; }
        else { kind = 'not-sent-as-written'; cls = 'bad'; words = 'NOT SENT AS WRITTEN: the nearest message sent' + sent + ' differs — ' + (a.differ || 'its bytes are not your paste\'s') + '.'; }
      } else { kind = 'not-found'; cls = 'none'; words = 'NOT FOUND: no line carries your ' + (out.getAttribute('data-verdict') === 'unknown-digest' ? 'digest' : 'text') + ' (searched: ' + (a.searched || 'every line this page holds') + ').'; }
      var lead = el('p', { id: 'paste-answer', class: 'answer ' + cls, 'data-answer': kind }, el('strong', null, words));
      var v = verdict.getAttribute('data-verdict'), n = state.verdict && state.verdict.failures ? state.verdict.failures.length : 0;
      var page = el('p', { id: 'paste-page-verdict', class: 'page-verdict ' + (v === 'failed' ? 'bad' : 'muted'), 'data-page-verdict': v },
        v === 'failed' ? 'This page\'s own verdict: FAILED' + (n ? ' (' + n + ' check' + (n === 1 ? '' : 's') + ' failed)' : '') + ', see the top of the page. Do not rely on this answer until the publisher explains.'
          : v === 'checkpoint' ? 'This page\'s own verdict: the checkpoint holds, checked in log size; the chain was not re-derived on this visit.'
            : v === 'gaps' ? 'This page\'s own verdict: everything it checks holds; some lines are not vouched for by a posted head yet.'
              : v === 'intact' ? 'This page\'s own verdict: everything it checks holds.' : 'This page\'s own verdict: ' + v + '.');
      out.insertBefore(page, out.firstChild);
      out.insertBefore(lead, page);
    }
    function prove(text, fromLink) {
      var out = $('paste-result');
      // A proof in the tree still reading for an earlier paste must not overwrite this paste's
      // answer, nor its wait.
      state.proving = null;
      if (!state.ready) {
        state.queued = text;
        state.queuedFromLink = !!fromLink;
        out.setAttribute('data-match', '');
        clear(out).textContent = state.mode === 'log' ? 'Waiting for the page to finish checking the checkpoint…' : 'Waiting for the page to finish re-deriving the ledger…';
        return;
      }
      // A light page that has not every line read on this visit proves a message in the tree
      // (docs/page.md "Prove one message on a light page"): a returning visitor's old lines too.
      if (light && (state.mode === 'log' || (state.result && state.result.resumedToSeq))) {
        if (state.treeCp) { proveLog(text, fromLink); return; }
        if (state.mode === 'log') {
          clear(out);
          ['data-seq', 'data-verdict', 'data-standing', 'data-field', 'data-proof', 'data-via', 'data-excerpt', 'data-ms'].forEach(function (a) { out.removeAttribute(a); });
          out.setAttribute('data-match', 'none');
          out.setAttribute('data-verdict', 'unavailable');
          out.appendChild(el('p', null, 'The checkpoint did not hold on this visit, so no message can be proved against it here. Check everything (above) re-derives the ledger itself.'));
          state.answer = {};
          answerLead(out);
          pasteStatus('Result: not checked: the checkpoint did not hold.');
          return;
        }
      }
      // A light page's full check keeps its records in the worker: the digests this paste may
      // name are asked for there first (docs/page.md#records-in-the-worker).
      if (state.store && storeFind(text, fromLink)) return;
      clear(out);
      ['data-seq', 'data-verdict', 'data-standing', 'data-field', 'data-proof', 'data-via', 'data-excerpt', 'data-ms'].forEach(function (a) { out.removeAttribute(a); });
      state.answer = {};
      var t = toLF(text);
      if (!t.trim()) { out.setAttribute('data-match', ''); out.textContent = 'Paste a message or a digest first.'; return; }
      var hex = digestOf(t), found = [], vs = [];
      if (hex !== null) {
        if (state.byDigest.has(hex)) found.push({ variant: 'a pasted digest', sha: hex, hits: state.byDigest.get(hex) });
        else showUnknownDigest(out, hex);
      } else {
        vs = variants(t);
        for (var i = 0; i < vs.length; i++) {
          var sha = V.sha256Hex(V.utf8Encode(vs[i].text));
          vs[i].sha = sha;
          var hits = (state.byDigest.get(sha) || []).filter(function (h) { return h.field !== 'entry_id'; });
          if (hits.length) found.push({ variant: vs[i].name, sha: sha, hits: hits });
        }
      }
      if (found.length) showMatch(out, found[0], found);
      else if (hex === null && excerptInTree(t)) { proveLog(text, fromLink); return; }
      else if (hex === null) showMiss(out, t, V.sha256Hex(V.utf8Encode(t)), vs);
      else state.answer.searched = 'every line\'s sent_sha256, checked_sha256, stripped_sha256, draft_sha256 and entry_id, and every withheld line\'s digest';
      answerLead(out);
      var seq = out.getAttribute('data-seq');
      pasteStatus('Result: ' + (out.getAttribute('data-match') === 'hash' ? 'found' : out.getAttribute('data-match') === 'nearest' ? 'not a hash match; nearest words shown' : 'not found') +
        (seq ? ', seq ' + seq : '') + (out.getAttribute('data-standing') ? ', ' + out.getAttribute('data-standing').replace('-', ' ') : '') + '.');
      if (fromLink) {
        // A shared link lands on its answer, not on the page's top.
        out.scrollIntoView({ block: 'start' });
        try { out.focus({ preventScroll: true }); } catch (e) { out.focus(); }
      }
    }

    // After a light page's full check, a text of 12 words or more that the records find by no
    // digest is looked up as a passage of a released text in the tree's excerpt index, as on the
    // log-size path (proveLog): the page carries no texts to compare its words with.
    function excerptInTree(t) {
      return light && !!state.treeCp && !textsCarried && excerptsPublished() !== 'no' && V.excerpt.words(t).length >= V.excerpt.MIN_WORDS;
    }

    /*
     * Asks the reader that keeps the records (lineStore) for the lines carrying any digest the
     * paste may name, puts them in state.byDigest and state.bySeq as finish() put every line
     * there when the page held them (a line's hits first, then a withheld line's), and proves the
     * paste again. False when there is nothing new to ask.
     */
    function storeFind(text, fromLink) {
      var t = toLF(text);
      if (!t.trim()) return false;
      var hex = digestOf(t);
      var hexes = (hex !== null ? [hex] : variants(t).map(function (v) { return V.sha256Hex(V.utf8Encode(v.text)); }))
        .filter(function (h) { return !state.asked.has(h); });
      if (!hexes.length) return false;
      var out = $('paste-result'), token = {};
      state.finding = token;
      out.setAttribute('data-match', '');
      clear(out).textContent = 'Looking your message up among the lines re-derived…';
      state.store.ask('find', { hexes: hexes }).then(function (a) {
        Object.keys(a.first).forEach(function (q) { if (!state.bySeq.has(Number(q))) state.bySeq.set(Number(q), a.recs[a.first[q]]); });
        hexes.forEach(function (h) {
          state.asked.add(h);
          var hits = (a.hits[h] || []).map(function (x) { return { field: x[0], line: a.recs[x[1]] }; });
          withheld.forEach(function (w) { if (w && w.entry_id === h) hits.push({ field: 'entry_id', withheld: w }); });
          if (hits.length) state.byDigest.set(h, hits);
        });
        if (state.finding === token) prove(text, fromLink);
      });
      return true;
    }

    function showUnknownDigest(out, hex) {
      out.setAttribute('data-match', 'none');
      out.setAttribute('data-verdict', 'unknown-digest');
      out.appendChild(el('h3', { class: 'none' }, 'No line on this page carries this digest'));
      out.appendChild(el('p', null, 'Your paste was read as a digest (64 hex digits), ', fullDigest(hex, 'digest'),
        ', and looked up against every line\'s sent_sha256, checked_sha256, stripped_sha256, draft_sha256 and entry_id, and every withheld line\'s digest. None carries it.'));
      out.appendChild(missCaveat());
    }

    function showMatch(out, f, all) {
      out.setAttribute('data-match', 'hash');
      var first = f.hits[0];
      if (first.line) out.setAttribute('data-seq', String(first.line.seq));
      else if (first.withheld) out.setAttribute('data-seq', String(first.withheld.seq));
      var lead = first.line ? standingOf(first.line) : { key: 'withheld', cls: 'near', title: 'The digest of a withheld line: the lab\'s word',
        detail: 'its line is not published, so the page cannot re-derive it; only its digest and day are shown.' };
      out.setAttribute('data-standing', lead.key);
      state.answer = { line: first.line ? { seq: first.line.seq, kind: first.line.kind, dec: first.line.dec, ts: first.line.ts, day: first.line.day } : null, withheld: first.withheld || null };
      out.appendChild(el('h3', { class: lead.cls }, lead.title));
      out.appendChild(el('p', null, lead.detail.charAt(0).toUpperCase() + lead.detail.slice(1)));
      out.appendChild(el('p', null, el('strong', null, f.variant === 'a pasted digest' ? 'Found: a line carries the pasted digest.'
        : 'Found: your text (' + f.variant + ') hashes to a digest a line carries.'), ' sha256 ', fullDigest(f.sha, 'sha256')));
      f.hits.forEach(function (h) {
        if (h.withheld) {
          out.appendChild(el('div', { class: 'hit' }, el('h4', null, 'Withheld seq ' + h.withheld.seq + ' (day ' + h.withheld.day + ')'),
            el('p', null, 'This is the entry_id of a withheld line: the lab\'s word, shown as digest and day only.')));
          return;
        }
        var L = h.line;
        var box = el('div', { class: 'hit' }, el('h4', null, 'Line seq ' + L.seq + ': its ' + h.field + (h.field === 'entry_id' ? ' (the line\'s own digest)' : '')), lineFacts(L));
        if (h.field === 'sent_sha256' && publicTexts && !textsCarried) box.appendChild(fetchedRelease(f.sha, L.seq));
        else if (h.field === 'sent_sha256' && publicTexts) {
          if (isAllowListed(f.sha, L.seq)) box.appendChild(releasedBlock(f.sha, 'The released bytes of this send'));
          else if (textBytes(f.sha)) box.appendChild(el('p', null, 'The released text with this digest is shown under the allow-listed line; this line is off the allow-list.'));
        }
        out.appendChild(box);
      });
      out.appendChild(el('p', { class: 'caveat' }, lead.key === 'vouched'
        ? 'What a match proves: these exact bytes left the gate at that second under that verdict, and a head posted outside the box pins the line. It does not prove who typed them, or that they are true.'
        : 'What a match proves here: the ledger on this page carries this digest. Until a posted head pins the line, the line rests on the publisher\'s word. It never proves who typed the text, or that it is true.'));
      if (all.length > 1) out.appendChild(el('p', { class: 'muted' }, 'Other forms that also matched: ' + all.slice(1).map(function (x) { return x.variant; }).join('; ') + '.'));
    }

    // The released texts, read once: [{p, text, key, tokens, words, keys: Set}].
    function corpus() {
      if (state.corpus) return state.corpus;
      var c = [];
      var pub = publicTexts && obj(publicTexts.index) && Array.isArray(publicTexts.index.published) ? publicTexts.index.published : [];
      pub.forEach(function (p) {
        var sha = p && p.sent_sha256;
        if (typeof sha !== 'string') return;
        var b = textBytes(sha);
        if (!b) return;
        var s = V.utf8Decode(b) || '', w = passageWords(s);
        c.push({ p: p, text: s, key: wordsKey(s), tokens: tokens(s), words: w, keys: new Set(w.map(function (x) { return x.k; })) });
      });
      return (state.corpus = c);
    }
    var RANK = { 'passage-verbatim': 3, 'passage-same-words': 2, 'passage-nearest': 1 };
    // The best passage of any released text for this paste, or null.
    function bestPassage(t) {
      var pw = passageWords(t);
      if (pw.length < PASSAGE_MIN_WORDS) return null;
      var cands = corpus().map(function (c) {
        var hit = 0;
        for (var i = 0; i < pw.length; i++) if (c.keys.has(pw[i].k)) hit++;
        return { c: c, overlap: hit / pw.length };
      }).filter(function (x) { return x.overlap >= NEAR_THRESHOLD; })
        .sort(function (a, b) { return b.overlap - a.overlap; }).slice(0, 8);
      var best = null;
      cands.forEach(function (x) {
        var m = passageMatch(t, x.c.text, pw, x.c.words);
        if (!m || !m.verdict) return;
        if (!best || RANK[m.verdict] > RANK[best.m.verdict] || (RANK[m.verdict] === RANK[best.m.verdict] && m.score > best.m.score)) best = { c: x.c, m: m, pw: pw };
      });
      return best;
    }

    function showMiss(out, t, ownSha, vs) {
      var tried = el('details', null, el('summary', null, 'The forms hashed (' + vs.length + ') and their digests'),
        el('ul', null, vs.map(function (v) { return el('li', null, v.name + ': ', el('code', { class: 'full' }, v.sha || V.sha256Hex(V.utf8Encode(v.text)))); })));
      var texts = publicTexts && obj(publicTexts.texts) ? publicTexts.texts : null;
      var key = wordsKey(t), pasteTokens = tokens(t);
      var same = null, best = null;
      if (texts) corpus().forEach(function (c) {
        if (!same && c.key === key && key) same = c;
        var score = dice(pasteTokens, c.tokens);
        if (!best || score > best.score) best = { c: c, score: score };
      });
      var passage = texts && !same ? bestPassage(t) : null;
      var noLine = el('p', null, 'Your paste\'s own sha256 is ', el('code', { class: 'full' }, ownSha), '; no send line on this page carries it, nor any of the forms tried.');
      var whole = !same && best && best.score >= NEAR_THRESHOLD ? best : null;
      if (passage && passage.m.verdict === 'passage-nearest' && whole) passage = null; // the whole message is nearer
      var target = same || (passage ? passage.c : null) || (whole ? whole.c : null);
      if (!target) {
        out.setAttribute('data-match', 'none');
        state.answer = { searched: 'every line\'s digests for ' + vs.length + ' forms of your text' + (texts ? ', and the words of ' + corpus().length + ' released text' + (corpus().length === 1 ? '' : 's') : '') };
        out.appendChild(el('h3', { class: 'none' }, 'No line on this page carries your text\'s digest'));
        out.appendChild(noLine);
        out.appendChild(el('p', null, texts ? (best ? 'No released text holds your words: none shares enough of them as a whole, and no passage of one aligns with ' + Math.round(NEAR_THRESHOLD * 100) + '% of your words.' : 'No published released text to compare with.')
          : publicTexts && !textsCarried ? 'This light page does not carry the released texts (it fetches one only by an exact digest), so it cannot compare your words with them.' +
            (state.treeCp && excerptsPublished() !== 'no' ? ' A passage of ' + V.excerpt.MIN_WORDS + ' words or more, exactly as sent, is looked up in the tree\'s excerpt index (docs/tree.md#excerpts).' : '')
          : 'This page carries no released texts, so there is nothing to compare your words with.'));
        out.appendChild(tried);
        out.appendChild(missCaveat());
        return;
      }
      out.setAttribute('data-match', 'nearest');
      out.setAttribute('data-seq', String(target.p.seq));
      var L = state.bySeq.get(Number(target.p.seq));
      var lead = L ? standingOf(L) : null;
      state.answer = { near: L ? { seq: L.seq, kind: L.kind, dec: L.dec, ts: L.ts, day: L.day } : { seq: target.p.seq }, differ: null };
      if (lead) out.setAttribute('data-standing', lead.key);
      if (same) {
        // The stable hook keeps three values (hash, nearest, none); this verdict is a kind of
        // nearest and says so in its own attribute.
        out.setAttribute('data-verdict', 'same-words');
        out.appendChild(el('h3', { class: 'near' }, 'Same words, different bytes — NOT a hash match'));
        out.appendChild(el('p', null, 'The released text of seq ' + target.p.seq + ' has the same words as your paste once case, punctuation, markdown, diacritics and spacing are set aside; its bytes differ from your paste\'s.'));
        state.answer.differ = 'the same words, but case, punctuation, markdown or spacing differ';
      } else if (passage) {
        var m = passage.m;
        out.setAttribute('data-verdict', m.verdict);
        out.appendChild(el('h3', { class: m.verdict === 'passage-nearest' ? 'near' : 'ok' },
          m.verdict === 'passage-verbatim' ? 'A passage of the released text of seq ' + target.p.seq + ', word for word — NOT a hash match'
            : m.verdict === 'passage-same-words' ? 'The same words as a passage of seq ' + target.p.seq + '\'s released text — NOT a hash match'
              : 'Nearest passage: ' + m.matched + ' of your ' + m.words + ' words align with seq ' + target.p.seq + '\'s released text — NOT a hash match'));
        out.appendChild(el('p', null, m.verdict === 'passage-verbatim' ? 'Your paste is a run of the released bytes, exactly as released.'
          : m.verdict === 'passage-same-words' ? 'Every word of your paste is there, in order, with nothing between; case, punctuation, markdown, diacritics or spacing differ.'
            : 'At least ' + Math.round(NEAR_THRESHOLD * 100) + '% of your words align, in order, with a stretch of the released text; the changes are listed below.'));
        if (m.ops) out.appendChild(passageDiff(m.ops, passage.pw, target.words));
        var changed = m.ops ? m.ops.filter(function (o) { return o.op !== 'same'; }).length : 0;
        state.answer.passage = m.verdict !== 'passage-nearest';
        state.answer.differ = m.verdict === 'passage-verbatim' ? 'your text is part of it, word for word' : m.verdict === 'passage-same-words' ? 'your text is part of it, with the same words; case, punctuation or spacing differ'
          : changed + ' word' + (changed === 1 ? '' : 's') + ' changed, dropped or added against a passage of it';
      } else {
        out.appendChild(el('h3', { class: 'near' }, 'Nearest released text — NOT a hash match'));
        var diff = wordDiff(target.tokens, pasteTokens, function (w) { return fold(w).replace(/\s+/g, ''); });
        var differs = diff.filter(function (d) { return d.op !== 'same'; }).length;
        state.answer.differ = differs + ' word' + (differs === 1 ? '' : 's') + ' differ from the released text of seq ' + target.p.seq;
        out.appendChild(el('p', null, 'Your paste and the released text of seq ' + target.p.seq + ' share most of their words (enough to be shown here as the nearest), but ' + differs + ' word' + (differs === 1 ? '' : 's') +
          ' differ: a near text is not a match, and proves nothing by itself.'));
        var dv = el('p', { class: 'diff', id: 'paste-diff' });
        diff.forEach(function (d, i) {
          if (i) dv.appendChild(document.createTextNode(' '));
          dv.appendChild(d.op === 'same' ? document.createTextNode(d.word) : el(d.op === 'del' ? 'del' : 'ins', null, d.word));
        });
        out.appendChild(el('h4', null, 'Word diff: struck words are in the released text and not in your paste; underlined words are in your paste and not in the released text'));
        out.appendChild(dv);
      }
      if (lead) out.appendChild(el('p', { class: 'standing ' + lead.cls }, el('strong', null, 'Its line: ' + lead.title + '. '), lead.detail));
      out.appendChild(noLine);
      out.appendChild(releasedBlock(target.p.sent_sha256, 'The released text of seq ' + target.p.seq + ', which re-hashes to its own digest (about the released text, not your paste)'));
      if (L) {
        var facts = lineFacts(L);
        facts.classList.add('neutral');
        out.appendChild(el('div', { class: 'hit near' }, el('h4', null, 'That line\'s record, head and Bitcoin proof — that line\'s, not your paste\'s'), facts));
      }
      out.appendChild(el('p', { class: 'caveat' }, 'A copy from a messenger need not hash to the gate\'s bytes; the released bytes are what the gate hashed. Words that match prove nothing by themselves: this is a search aid that hands you the bytes to re-hash, not a verdict.'));
      out.appendChild(tried);
      out.appendChild(missCaveat());
    }
    // The passage's changes: the aligned stretch with struck and underlined words, then each
    // change in words.
    function passageDiff(ops, pw, tw) {
      var dv = el('p', { class: 'diff', id: 'paste-diff' }), changes = [];
      ops.forEach(function (o, i) {
        if (i) dv.appendChild(document.createTextNode(' '));
        if (o.op === 'same') dv.appendChild(document.createTextNode(pw[o.p].w));
        else if (o.op === 'sub') {
          append(dv, [el('del', null, tw[o.t].w), ' ', el('ins', null, pw[o.p].w)]);
          changes.push(['changed', '“' + tw[o.t].w + '” → “' + pw[o.p].w + '”']);
        } else if (o.op === 'del') { dv.appendChild(el('del', null, tw[o.t].w)); changes.push(['dropped', '“' + tw[o.t].w + '”']); }
        else { dv.appendChild(el('ins', null, pw[o.p].w)); changes.push(['added', '“' + pw[o.p].w + '”']); }
      });
      var box = el('div', { class: 'passage' }, el('h4', null, 'The passage: struck words are the released text\'s, underlined words are yours'), dv);
      if (changes.length) {
        box.appendChild(el('ul', { class: 'changes' }, changes.slice(0, 60).map(function (c) { return el('li', { 'data-change': c[0] }, c[0] + ': ' + c[1]); })));
        if (changes.length > 60) box.appendChild(el('p', null, '… and ' + (changes.length - 60) + ' more changes.'));
      }
      return box;
    }
    function missCaveat() {
      return el('p', { class: 'caveat' }, 'A miss, near or far, does not show that the agent did not send the text: its line may be withheld, its destination off the allow-list, its text not re-derivable, or it may be newer than this page.' +
        (state.result && state.result.resumedToSeq ? ' ' + resumedWords() : ''));
    }

    $('paste-form').addEventListener('submit', function (ev) { ev.preventDefault(); prove($('paste').value); });
    function fromHash() {
      var h = location.hash || '';
      if (h === '#check-everything') { if (state.mode === 'log' && state.ready) startFull(); return; }
      if (h.indexOf('#line-') === 0) { showLine(Number(h.slice(6))); return; }
      if (h.indexOf('#text-') === 0) {
        var item = $(h.slice(1)), d = item && item.querySelector('details');
        if (d) { $('texts-browse').open = true; d.open = true; item.scrollIntoView({ block: 'start' }); }
        return;
      }
      if (h.indexOf('#paste=') !== 0) return;
      var v;
      try { v = decodeURIComponent(h.slice(7).replace(/\+/g, '%20')); } catch (e) { v = h.slice(7); }
      $('paste').value = v;
      prove(v, true);
    }
    window.addEventListener('hashchange', fromHash);
    $('paste-link').addEventListener('click', function () {
      var v = $('paste').value;
      if (!v) return;
      var url = location.href.replace(/#.*$/, '') + '#paste=' + encodeURIComponent(v);
      // The address bar shows the link too, without re-running the box.
      try { history.replaceState(null, '', url); } catch (e) { /* file:// in some browsers */ }
      $('share').hidden = false;
      var input = $('share-url');
      input.value = url;
      input.focus();
      input.select();
    });
    $('share-copy').addEventListener('click', function () {
      var input = $('share-url'), b = this;
      var done = function () { b.textContent = 'Copied'; setTimeout(function () { b.textContent = 'Copy'; }, 1500); };
      input.select();
      try {
        if (navigator.clipboard && navigator.clipboard.writeText) { navigator.clipboard.writeText(input.value).then(done, function () { document.execCommand && document.execCommand('copy'); done(); }); return; }
      } catch (e) { /* fall through */ }
      try { document.execCommand('copy'); done(); } catch (e) { /* the text is selected: the reader copies it */ }
    });

    // snapshots
    (function () {
      var lines = snapshotsText.split('\n').filter(Boolean), last = null;
      try { last = lines.length ? V.readSiteJSON(lines[lines.length - 1]) : null; } catch (e) { last = null; }
      var s = $('snapshots');
      if (s) s.textContent = lines.length + ' publication' + (lines.length === 1 ? '' : 's') + ' recorded in SNAPSHOTS.jsonl' +
        (last ? '; the last built at ' + String(last.built_at) + ' with ' + String(last.lines) + ' lines, ' + (last.extends === false ? 'NOT extending the one before (' + String(last.rewrite_reason) + ')' : 'extending the one before') : '') + '.';
    })();

    if (withheldRaw && withheldRaw.__error) withheld = [];
    renderWitness();
    firstScreen();
    $('paste-go').disabled = false;
    fromHash();
    run();
  }

  pure.start = start;
  return pure;
});
