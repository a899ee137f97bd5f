/*
 * exhibit — page.js: the exhibit page (issue 6).
 *
 * The pure pieces (paste variants, the §6b normalisation, Dice, the word diff, coverage) are
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
  var api = factory();
  if (typeof module === 'object' && module.exports) module.exports = api;
  else {
    root.ExhibitPage = api;
    if (typeof document !== 'undefined' && root.ExhibitVerify) api.start();
  }
})(typeof self !== 'undefined' ? self : this, function () {
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
  var ANY_TRAILER = /\[gate: [^\]\n]*· ledger [0-9]+\]/g;
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
    var bare = stripTrailer(trimmed);
    if (bare !== null) {
      add('the gate trailer and the blank line before it removed', bare);
      add('the gate trailer removed, with one trailing newline', bare + '\n');
      add('the gate trailer removed, trimmed', bare.trim());
    }
    return out;
  }

  /** §6b tokens: NFC; the gate trailer removed; markdown markers * ` # > [ ] ( ) removed and `_` at a token's edge; whitespace collapsed. */
  function tokens(s) {
    var t = toLF(s);
    if (t.normalize) t = t.normalize('NFC');
    t = t.replace(ANY_TRAILER, ' ').replace(/[*`#>\[\]()]/g, '');
    var out = [];
    var parts = t.split(/\s+/);
    for (var i = 0; i < parts.length; i++) {
      var w = parts[i].replace(/^_+|_+$/g, '');
      if (w) out.push(w);
    }
    return out;
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

  /** The "same words" key: tokens case-folded, punctuation and markdown removed, whitespace collapsed. */
  function wordsKey(s) {
    var t = toLF(s);
    if (t.normalize) t = t.normalize('NFC');
    t = t.replace(LOOSE_TRAILER, ' ').toLowerCase();
    try { t = t.replace(/[\p{P}\p{S}]+/gu, ' '); } catch (e) { t = t.replace(/[!-\/:-@\[-`{-~\u2010-\u2027\u00a1-\u00bf]+/g, ' '); }
    return t.split(/\s+/).filter(Boolean).join(' ');
  }

  var DIFF_CAP = 2500;
  /**
   * Word diff from `from` (the released text's tokens) to `to` (the paste's): an array of
   * {op: 'same'|'del'|'add', word}. LCS over words, after the common head and tail are set aside.
   */
  function wordDiff(from, to) {
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
   * Coverage (protocol §6): a published line is pinned when every line between it and the first
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

  function b64ToBytes(s) {
    s = String(s);
    // The build writes no whitespace inside a block; strip it only if some crept in (a
    // regex over an 80 MB block costs more than the decode).
    if (/\s/.test(s.charAt(0) + s.charAt(s.length - 1)) || s.indexOf('\n') >= 0 || s.indexOf(' ') >= 0) s = s.replace(/\s+/g, '');
    // Native decoding where the browser has it (Chromium 140+, Firefox 133+).
    if (typeof Uint8Array.fromBase64 === 'function') return Uint8Array.fromBase64(s);
    if (typeof atob === 'function') {
      var bin = atob(s), out = new Uint8Array(bin.length);
      for (var i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
      return out;
    }
    return new Uint8Array(Buffer.from(s, 'base64'));
  }

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

  var pure = {
    toLF: toLF, stripTrailer: stripTrailer, variants: variants, tokens: tokens, dice: dice,
    wordsKey: wordsKey, wordDiff: wordDiff, coverage: coverage, ranges: ranges, b64ToBytes: b64ToBytes,
    compactResult: compactResult, NEAR_THRESHOLD: NEAR_THRESHOLD, DIGEST_FIELDS: DIGEST_FIELDS
  };

  // ------------------------------------------------------------------------------------------
  // The page.

  function start() {
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
      var s = $(id);
      if (!s) return null;
      return b64ToBytes(s.textContent);
    }
    function jsonBlock(id) {
      var b = block(id);
      if (!b || !b.length) return null;
      try { return JSON.parse(V.utf8Decode(b)); } catch (e) { return { __error: String(e) }; }
    }
    function obj(x) { return x && typeof x === 'object' && !x.__error ? x : null; }
    function withheldList(bytes) {
      if (!bytes) return null;
      try { return V.parseWithheld(bytes); } catch (e) { return { __error: String(e && e.message || e) }; }
    }

    // A digest shown short; click (or Enter) shows it whole and selects it; it is copied when the
    // browser allows.
    function digest(hex, label) {
      if (typeof hex !== 'string' || !hex) return el('span', { class: 'muted' }, '—');
      var c = el('code', { class: 'digest', tabindex: '0', title: (label ? label + ' ' : '') + hex, 'data-full': hex },
        hex.length > 16 ? hex.slice(0, 12) + '…' : hex);
      return c;
    }
    document.addEventListener('click', function (ev) { toggleDigest(ev.target); });
    document.addEventListener('keydown', function (ev) { if (ev.key === 'Enter') toggleDigest(ev.target); });
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
      return c.count + ' of ' + c.of;
    }
    function words(k) { return String(k).replace(/_/g, ' '); }
    function countsList(o, depth) {
      var dl = el('dl', { class: 'counts' });
      if (!o || typeof o !== 'object') return dl;
      Object.keys(o).forEach(function (k) {
        var v = o[k], shown;
        if (Array.isArray(v)) shown = v.length ? v.length + ' listed' : 'none listed';
        else if (v && typeof v === 'object') shown = countOf(v) || ((depth || 0) < 2 ? countsList(v, (depth || 0) + 1) : JSON.stringify(v));
        else shown = String(v);
        append(dl, [el('dt', null, words(k)), el('dd', null, shown)]);
      });
      return dl;
    }
    function link(href, text) { return el('a', { href: href }, text); }

    // ---- the data
    var ledgerBytes = block('ledger-bytes') || new Uint8Array(0);
    // The withheld list is read from its bytes by the verifier's own JSON reader (never
    // JSON.parse, which rounds a seq past 2^53 and merges a key written twice); the verifier is
    // handed the same bytes. The tz rules are the anchor zone's, from the binary's tz database.
    var withheldBytes = block('withheld-json');
    if (withheldBytes && !withheldBytes.length) withheldBytes = null;
    var withheldRaw = withheldList(withheldBytes);
    var withheld = Array.isArray(withheldRaw) ? withheldRaw : [];
    var tzRules = obj(jsonBlock('tz-rules-json'));
    var stats = obj(jsonBlock('stats-json')) || {};
    var anchorsIndex = obj(jsonBlock('anchors-json')) || {};
    var postsRaw = obj(jsonBlock('anchor-posts-json')) || {};
    var witness = obj(jsonBlock('witness-json'));
    var publicTexts = obj(jsonBlock('public-texts-json'));
    var snapshotsText = (function () { var b = block('snapshots-jsonl'); return b ? V.utf8Decode(b) : ''; })();
    var posts = Object.keys(postsRaw).sort().map(function (d) { return { date: d, text: String(postsRaw[d]) }; });
    var wIndex = witness && obj(witness.index) && obj(witness.index.entries) ? witness.index.entries : null;
    var state = { result: null, anchors: null, cov: null, bySeq: new Map(), byDigest: new Map(), ready: false, queued: null };

    // ---- the verdict
    var verdict = $('verdict');
    function setProgress(done, total) {
      var p = $('progress');
      if (p) { p.max = total || 1; p.value = done; }
      var s = $('verdict-text');
      if (s) s.textContent = 'Re-deriving the chain in your browser… ' + (total ? Math.floor(100 * done / total) + '% of ' + total.toLocaleString('en') + ' bytes' : '');
    }

    function run() {
      t0 = performance.now();
      setProgress(0, ledgerBytes.length);
      var source = $('verify-src') ? $('verify-src').textContent : '';
      var worker = null;
      if (source && typeof Worker === 'function' && typeof Blob === 'function') {
        var shim = '\n;var compactResult = ' + compactResult.toString() + ';\n' +
          'self.onmessage = function (e) { var d = e.data; try {' +
          ' var w0 = performance.now(); var r = self.ExhibitVerify.verifyLedger(new Uint8Array(d.bytes), d.withheld, function (n, b) { self.postMessage({ type: "progress", bytes: b }); }, d.tzRules);' +
          // The verdict first (a few fields), the tables' data after: a reader sees the answer
          // as soon as the chain is re-derived.
          ' self.postMessage({ type: "verdict", ok: r.ok, head: r.head, entries: r.entries, problems: r.problems.length, ms: performance.now() - w0 });' +
          ' var a = self.ExhibitVerify.checkAnchors(r, d.withheld, d.posts); var c = compactResult(r);' +
          ' self.postMessage({ type: "done", result: c, anchors: a, ms: performance.now() - w0 });' +
          ' } catch (err) { self.postMessage({ type: "error", message: String(err && err.message || err) }); } };\n';
        try {
          var url = URL.createObjectURL(new Blob([source, shim], { type: 'text/javascript' }));
          worker = new Worker(url);
        } catch (e) { worker = null; }
      }
      if (worker) {
        var settled = false;
        keepAwake(function () { return settled; });
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
    // Headless Chromium's --virtual-time-budget (the tests and the bench drive the page that way)
    // lets virtual time run out while the main thread sits idle waiting for the worker, and then
    // dumps the page before the verdict. Only there, the main thread keeps a task queued (a
    // MessageChannel ping) until the worker answers, so virtual time stands still meanwhile.
    function keepAwake(done) {
      // `?realtime` (benches/page-timing.cjs) measures headless as a person's browser runs.
      if (!/HeadlessChrome/.test(navigator.userAgent) || typeof MessageChannel !== 'function' ||
          /[?&]realtime\b/.test(location.search)) return;
      var ch = new MessageChannel();
      ch.port1.onmessage = function () { if (!done()) ch.port2.postMessage(0); else ch.port1.close(); };
      ch.port2.postMessage(0);
    }
    function onMainThread() {
      setTimeout(function () {
        try {
          var r = V.verifyLedger(ledgerBytes, withheldBytes, null, tzRules);
          finish(compactResult(r), V.checkAnchors(r, withheldBytes, posts), 'the page itself');
        } catch (err) { fail(String(err && err.message || err)); }
      }, 30);
    }
    function fail(msg) {
      verdict.setAttribute('data-state', 'problems');
      verdict.setAttribute('data-ms', String(Math.round(performance.now())));
      clear($('verdict-text')).textContent = 'The page could not re-derive the ledger: ' + msg;
    }

    // The chain's answer, shown as soon as the worker has it; `finish` fills in the rest.
    function earlyVerdict(m) {
      verdict.setAttribute('data-ms', String(Math.round(performance.now())));
      verdict.setAttribute('data-head', m.ok ? (m.head || '') : '');
      verdict.setAttribute('data-state', m.ok ? 're-derives' : 'problems');
      var vt = clear($('verdict-text'));
      if (m.ok) append(vt, ['The ledger re-derives in your browser: ', String(m.entries), ' entries read; head ', el('code', { class: 'head' }, m.head), '. Tables and checks follow…']);
      else append(vt, ['The ledger does NOT re-derive in your browser: ', String(m.problems), ' problem(s); the list follows…']);
    }

    function finish(r, anchorChecks, where) {
      state.result = r;
      state.anchors = anchorChecks;
      for (var i = 0; i < r.lines.length; i++) {
        var L = r.lines[i];
        if (L.seq !== null && !state.bySeq.has(L.seq)) state.bySeq.set(L.seq, L);
        if (L.id) addDigest(L.id, { field: 'entry_id', line: L });
        if (L.d) for (var f in L.d) addDigest(L.d[f], { field: f, line: L });
      }
      withheld.forEach(function (w) { if (w && typeof w.entry_id === 'string') addDigest(w.entry_id, { field: 'entry_id', withheld: w }); });

      // coverage, from the page's own answers
      var heads = new Set();
      anchorChecks.forEach(function (a) {
        if (a.format === 'ok' && (a.head === 'ok' || a.head === 'lab_word')) heads.add(Number(a.post_seq));
      });
      var all = [];
      r.lines.forEach(function (L) { if (L.seq !== null) all.push({ seq: L.seq, published: true }); });
      withheld.forEach(function (w) { if (typeof w.seq === 'number') all.push({ seq: w.seq, published: false }); });
      all.sort(function (a, b) { return a.seq - b.seq; });
      state.cov = coverage(all, heads);
      state.heads = Array.from(heads).sort(function (a, b) { return a - b; });

      renderLines();
      renderAnchors();
      renderCoverage();
      renderTiles();
      renderTextsCheck();

      var ms = Math.round(performance.now() - t0);
      if (!verdict.hasAttribute('data-ms')) verdict.setAttribute('data-ms', String(Math.round(performance.now())));
      verdict.setAttribute('data-ms-details', String(Math.round(performance.now())));
      verdict.setAttribute('data-ms-decode', String(Math.round(t0 - tStart)));
      var vt = clear($('verdict-text'));
      $('progress') && $('progress').remove();
      if (r.ok) {
        verdict.setAttribute('data-head', r.head || '');
        verdict.setAttribute('data-state', 're-derives');
        append(vt, ['The ledger re-derives in your browser: ', String(r.entries), ' entries read, ',
          String(r.bridged.length), ' withheld seqs bridged on the lab\'s digests; head ', el('code', { class: 'head' }, r.head),
          '. (', (ms / 1000).toFixed(2), ' s, in ', where, '.)']);
      } else {
        verdict.setAttribute('data-head', '');
        verdict.setAttribute('data-state', 'problems');
        append(vt, ['The ledger does NOT re-derive in your browser: ', String(r.problems.length), ' problem',
          r.problems.length === 1 ? '' : 's', ' found (', (ms / 1000).toFixed(2), ' s).']);
        var ul = el('ul', { id: 'problems' });
        r.problems.slice(0, 200).forEach(function (p) {
          ul.appendChild(el('li', { 'data-line': String(p.line) }, 'line ' + p.line + (p.seq !== null ? ' (seq ' + p.seq + ')' : '') + ': ',
            el('code', null, p.code), ' — ' + p.detail));
        });
        if (r.problems.length > 200) ul.appendChild(el('li', null, '… and ' + (r.problems.length - 200) + ' more.'));
        vt.appendChild(ul);
      }
      state.ready = true;
      $('paste-go').disabled = false;
      if (state.queued !== null) { var q = state.queued; state.queued = null; prove(q); }
    }
    function addDigest(hex, rec) {
      if (typeof hex !== 'string') return;
      var a = state.byDigest.get(hex);
      if (!a) state.byDigest.set(hex, a = []);
      a.push(rec);
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
      var published = r.lines.length, total = published + withheld.length;
      t.appendChild(tile('Lines', published + ' published of ' + total + ' seqs (' + r.entries + ' entry lines read)',
        countOf(L.published) ? countOf(L.published) + ' published' : null));
      t.appendChild(tile('Head', r.ok ? digest(r.head, 'head') : 'none: the ledger has problems',
        stats.ledger && stats.ledger.head ? [digest(stats.ledger.head, 'head'), ' at seq ' + stats.ledger.head_seq] : null));
      t.appendChild(tile('Verdict', r.ok ? 're-derives' : r.problems.length + ' problems', null, r.ok ? 'good' : 'bad'));
      t.appendChild(tile('Withheld', withheld.length + ' of ' + total + ' seqs, as digest and day only (' + r.bridged.length + ' bridged)',
        countOf(L.withheld)));
      t.appendChild(tile('Coverage', state.cov.pinned.length + ' pinned, ' + state.cov.severed.length + ' severed, ' +
        state.cov.awaiting.length + ' awaiting a head, of ' + published,
        C.pinned ? countOf(C.pinned) + ' pinned, ' + countOf(C.severed) + ' severed, ' + countOf(C.awaiting_head) + ' awaiting' : null));
      var aok = state.anchors.filter(function (a) { return a.ok; }).length;
      t.appendChild(tile('Anchors', aok + ' of ' + state.anchors.length + ' posted heads check out',
        countOf(A.ok) ? countOf(A.ok) + ' ok' : null));
      if (witness) {
        var ws = obj(witness.stats) || {}, known = 0;
        if (wIndex) {
          r.lines.forEach(function (x) { if (x.id && wIndex[x.id]) known++; });
          withheld.forEach(function (w) { if (w.entry_id && wIndex[w.entry_id]) known++; });
        }
        var first = Object.keys(ws).filter(function (k) { return countOf(ws[k]); }).slice(0, 3)
          .map(function (k) { return words(k) + ' ' + countOf(ws[k]); }).join('; ');
        t.appendChild(tile('Witness', known + ' of ' + total + ' lines have a record in the copied store (the page parses no proof)',
          first || null));
      }
      if (publicTexts) {
        var pts = stats.public_texts || {};
        t.appendChild(tile('Public texts', state.textsOk === undefined ? null : state.textsOk + ' of ' + state.textsAll + ' released texts re-hash to their digest',
          countOf(pts.published) ? countOf(pts.published) + ' published' : null));
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
    function otsCell(id) {
      if (!witness) return null;
      var rec = wIndex && id ? wIndex[id] : null;
      if (!rec) return el('td', { class: 'muted' }, 'no record');
      var st = String(rec.status || '?');
      return el('td', null, link('ledger/witness/proofs/' + id + '.ots', st),
        rec.block_height !== undefined ? ' block ' + String(rec.block_height) : '');
    }
    function renderLines() {
      var data = allRows().filter(function (x) {
        return (!filter.day || x.day === filter.day) && (!filter.kind || x.kind === filter.kind);
      });
      var pages = Math.max(1, Math.ceil(data.length / PAGE_SIZE));
      if (filter.page >= pages) filter.page = pages - 1;
      var slice = data.slice(filter.page * PAGE_SIZE, (filter.page + 1) * PAGE_SIZE);
      var tb = clear($('lines-body'));
      slice.forEach(function (x) {
        var tr;
        if (x.withheld) {
          tr = el('tr', { class: 'withheld', 'data-seq': String(x.seq) }, el('td', null, String(x.seq)), el('td', null, String(x.day || '')),
            el('td', null, '—'), el('td', null, 'withheld'), el('td', { colspan: '2', class: 'muted' }, 'digest and day only: the lab\'s word' + (typeof x.withheld.reason === 'string' ? ' (' + x.withheld.reason + ')' : '')),
            el('td', null, digest(x.withheld.entry_id, 'entry_id (the lab\'s word)')), otsCell(x.withheld.entry_id));
        } else {
          var dig = [digest(x.id, 'entry_id')];
          if (x.d && x.d.sent_sha256) dig.push(' sent ', digest(x.d.sent_sha256, 'sent_sha256'));
          tr = el('tr', { 'data-seq': String(x.seq), class: x.codes ? 'bad' : null },
            el('td', null, String(x.seq)), el('td', null, x.day || ''), el('td', null, x.ts ? x.ts.slice(11) : ''),
            el('td', null, x.kind || ''), el('td', null, x.dec), el('td', { class: 'note' }, x.num, x.num && x.note ? ' · ' : '', x.note),
            el('td', null, dig, x.codes ? el('div', { class: 'bad' }, 'problems: ' + x.codes.join(', ')) : null), otsCell(x.id));
        }
        tb.appendChild(tr);
      });
      $('lines-count').textContent = data.length ? 'Rows ' + (filter.page * PAGE_SIZE + 1) + '–' + (filter.page * PAGE_SIZE + slice.length) +
        ' of ' + data.length + (data.length !== rows.length ? ' (filtered from ' + rows.length + ')' : '') + '; page ' + (filter.page + 1) + ' of ' + pages + '.' : 'No rows.';
      $('p-prev').disabled = filter.page === 0;
      $('p-next').disabled = filter.page >= pages - 1;
    }
    $('f-day').addEventListener('change', function () { filter.day = this.value; filter.page = 0; renderLines(); });
    $('f-kind').addEventListener('change', function () { filter.kind = this.value; filter.page = 0; renderLines(); });
    $('p-prev').addEventListener('click', function () { filter.page--; renderLines(); });
    $('p-next').addEventListener('click', function () { filter.page++; renderLines(); });

    // ---- anchors
    function renderAnchors() {
      var tb = clear($('anchors-body'));
      var theirs = {};
      (Array.isArray(anchorsIndex.posts) ? anchorsIndex.posts : []).forEach(function (p) { if (p && p.date) theirs[p.date] = p; });
      state.anchors.forEach(function (a) {
        var p = theirs[a.date] || {};
        var checks = el('td', null, 'format ' + a.format + ', head ' + a.head + ', day closed ' + a.day_closed + ', ledger line ' + a.ledger_line);
        var pc = p.checks ? Object.keys(p.checks).map(function (k) { return words(k) + ' ' + p.checks[k]; }).join(', ') : 'not in the index';
        var agree = p.ok === undefined ? '' : (p.ok === a.ok ? 'agrees' : 'DISAGREES');
        tb.appendChild(el('tr', { 'data-date': a.date, class: a.ok ? null : 'bad' },
          el('td', null, a.date), el('td', null, a.post_seq !== null ? String(a.post_seq) : '—'),
          el('td', null, digest(a.post_head, 'posted head')),
          el('td', { class: a.ok ? 'ok' : 'bad' }, a.ok ? 'checks out' : 'FAILS'), checks,
          el('td', null, (p.ok === undefined ? '' : (p.ok ? 'ok' : 'not ok') + (p.late ? ', late' : '') + ' — ') + pc, agree ? el('div', null, 'page and publisher: ' + agree) : null),
          el('td', null, link('ledger/anchors/' + a.date + '.txt', 'post'), ' · ', link('ledger/anchors/' + a.date + '.txt.ots', 'proof (.ots)'))));
      });
      if (!state.anchors.length) tb.appendChild(el('tr', null, el('td', { colspan: '7' }, 'No posted head yet.')));
      var without = anchorsIndex.anchor_lines_without_post;
      if (Array.isArray(without) && without.length) $('anchors-extra').textContent = 'Anchor lines without a post (publisher\'s list): ' + without.map(String).join(', ') + '.';
    }

    // ---- coverage
    function renderCoverage() {
      var c = state.cov, box = clear($('coverage-body')), C = stats.coverage || {};
      var n = state.result.lines.length;
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
      var texts = obj(publicTexts.texts) || {}, ok = 0, all = 0, bad = [];
      Object.keys(texts).forEach(function (sha) {
        all++;
        var b = textBytes(sha);
        if (b && V.sha256Hex(b) === sha) ok++; else bad.push(sha);
      });
      state.textsOk = ok; state.textsAll = all;
      var box = $('texts-body');
      if (!box) return;
      clear(box);
      box.appendChild(el('p', null, ok + ' of ' + all + ' released texts re-hash in your browser to the sent_sha256 they are filed under.' +
        (bad.length ? ' These do not: ' + bad.join(', ') : '')));
      var ix = obj(publicTexts.index) || {};
      if (ix.counts) box.appendChild(el('div', null, el('h3', null, 'The publisher\'s counts'), countsList(ix.counts)));
      ['withheld', 'unreconstructable', 'allowed_by_operator'].forEach(function (k) {
        var list = ix[k];
        if (!Array.isArray(list)) return;
        box.appendChild(el('h3', null, words(k) + ': ' + list.length));
        if (list.length) box.appendChild(el('ul', null, list.slice(0, 200).map(function (x) {
          return el('li', null, typeof x === 'object' ? Object.keys(x).map(function (k2) {
            var v = x[k2]; return k2 + ' ' + (typeof v === 'object' ? JSON.stringify(v) : String(v));
          }).join(' · ') : String(x));
        })));
      });
      if (ix.off_allow_list) box.appendChild(el('div', null, el('h3', null, 'Off the allow-list (hash only)'), countsList(ix.off_allow_list)));
    }

    // ---- witness (the tail's store, copied at build)
    function renderWitness() {
      var box = $('witness-body');
      if (!box || !witness) return;
      var ws = obj(witness.stats) || {};
      var counts = {}, latency = null;
      Object.keys(ws).forEach(function (k) { if (k === 'outside_latency') latency = ws[k]; else counts[k] = ws[k]; });
      box.appendChild(el('h3', null, 'Counts (the publisher\'s, from the tail\'s store)'));
      box.appendChild(countsList(counts));
      if (latency) {
        box.appendChild(el('h3', null, 'Outside latency: block header time − the line\'s timestamp'));
        box.appendChild(countsList(latency));
      }
      var win = obj(witness.window);
      box.appendChild(el('p', null, win && win.registered ? 'The kill-gate window is registered: day 1 is ' + String(win.since) + '.'
        : 'The kill-gate window is not registered yet: the operator has not named its day 1.'));
      if (witness.tail_last_run) box.appendChild(el('p', null, 'The tail last ran at ' + String(typeof witness.tail_last_run === 'object' ? JSON.stringify(witness.tail_last_run) : witness.tail_last_run) +
        ' (the tail\'s clock); its report\'s denominators are the chain as it read it then, the page\'s are the lines it carries.'));
      if (typeof witness.how_to_pin === 'string') {
        $('how-to-pin').textContent = witness.how_to_pin;
      }
    }

    // ---- prove one message
    function proofLinesFor(L) {
      // the first posted head at or after the line, as the page re-checked it
      var out = [];
      var a = null;
      for (var i = 0; i < state.anchors.length; i++) {
        var x = state.anchors[i];
        if (x.post_seq !== null && Number(x.post_seq) >= L.seq && (!a || Number(x.post_seq) < Number(a.post_seq))) a = x;
      }
      var status = state.cov.pinned.indexOf(L.seq) >= 0 ? 'pinned' : state.cov.severed.indexOf(L.seq) >= 0 ? 'severed by a withheld line before the head' : 'awaiting a posted head';
      if (a) {
        out.push(el('li', null, 'Posted head: ', a.date, ' (seq ', String(a.post_seq), ', ', digest(a.post_head, 'posted head'), ') — ',
          a.ok ? 'its checks re-derive in this browser' : 'its checks FAIL in this browser', '; this line is ', status, '. ',
          link('ledger/anchors/' + a.date + '.txt', 'post'), ' · ', link('ledger/anchors/' + a.date + '.txt.ots', 'bitcoin proof of the post (.ots)')));
      } else out.push(el('li', null, 'Posted head: none yet at or after seq ' + L.seq + '; the line is awaiting a posted head.'));
      if (witness) {
        var rec = wIndex && L.id ? wIndex[L.id] : null;
        if (rec) {
          out.push(el('li', null, 'Per-line witness (the tail\'s store as copied at build; the page parses no proof): ', String(rec.status),
            rec.block_height !== undefined ? ', block ' + rec.block_height : '', rec.block_time ? ', block header time ' + rec.block_time : '',
            rec.status === 'pending' ? ' — a PENDING file pins nothing yet' : ''));
          out.push(el('li', null, 'Pin it without this page: ', link('ledger/witness/proofs/' + L.id + '.ots', L.id.slice(0, 12) + '….ots'),
            ', then ', el('code', null, 'ots verify -d ' + L.id + ' ' + L.id + '.ots')));
        } else out.push(el('li', null, 'Per-line witness: the copied store has no record for this line.'));
      }
      return out;
    }
    function lineFacts(L) {
      return el('ul', { class: 'facts' },
        el('li', null, 'seq ' + L.seq + ', ' + (L.kind || '') + ', timestamp ' + (L.ts || '?') + ' (the gate\'s clock), day ' + (L.day || '?')),
        L.dec ? el('li', null, 'decision: ' + L.dec) : null,
        L.num ? el('li', null, 'numerals: ' + L.num) : null,
        el('li', null, 'entry_id ', digest(L.id, 'entry_id')),
        proofLinesFor(L));
    }
    function releasedBlock(sha, heading) {
      var b = textBytes(sha);
      if (!b) return null;
      var again = V.sha256Hex(b);
      var pre = el('pre', { class: 'released' });
      pre.textContent = V.utf8Decode(b);
      return el('div', { class: 'released-box' }, el('h4', null, heading),
        el('p', null, 'sent_sha256 on the line: ', el('code', { class: 'full' }, sha)),
        el('p', null, 'these bytes, re-hashed in your browser: ', el('code', { class: 'full' }, again), again === sha ? ' — the same' : ' — DIFFERENT'),
        pre);
    }
    function isAllowListed(sha, seq) {
      var ix = publicTexts && obj(publicTexts.index);
      var pub = ix && Array.isArray(ix.published) ? ix.published : [];
      for (var i = 0; i < pub.length; i++) if (pub[i].sent_sha256 === sha && (seq === undefined || pub[i].seq === seq)) return true;
      return false;
    }

    function prove(text) {
      var out = $('paste-result');
      if (!state.ready) {
        state.queued = text;
        out.setAttribute('data-match', '');
        clear(out).textContent = 'Waiting for the page to finish re-deriving the ledger…';
        return;
      }
      clear(out);
      out.removeAttribute('data-seq');
      out.removeAttribute('data-verdict');
      var t = toLF(text);
      if (!t.trim()) { out.setAttribute('data-match', ''); out.textContent = 'Paste a message or a digest first.'; return; }
      var hex = t.trim().toLowerCase();
      var found = [];
      if (HEX64.test(hex) && state.byDigest.has(hex)) {
        found.push({ variant: 'a pasted digest', sha: hex, hits: state.byDigest.get(hex) });
      } else {
        var vs = variants(t);
        for (var i = 0; i < vs.length; i++) {
          var sha = V.sha256Hex(V.utf8Encode(vs[i].text));
          vs[i].sha = sha;
          var hits = (state.byDigest.get(sha) || []).filter(function (h) { return h.field !== 'entry_id'; });
          if (hits.length) found.push({ variant: vs[i].name, sha: sha, hits: hits });
        }
      }
      var ownSha = V.sha256Hex(V.utf8Encode(t));
      if (found.length) return showMatch(out, found[0], found);
      return showMiss(out, t, ownSha, vs || []);
    }

    function showMatch(out, f, all) {
      out.setAttribute('data-match', 'hash');
      var first = f.hits[0];
      if (first.line) out.setAttribute('data-seq', String(first.line.seq));
      else if (first.withheld) out.setAttribute('data-seq', String(first.withheld.seq));
      var okLedger = state.result.ok;
      out.appendChild(el('h3', { class: okLedger ? 'ok' : 'bad' }, f.variant === 'a pasted digest' ? 'FOUND: a line carries the pasted digest'
        : 'FOUND: your text (' + f.variant + ') hashes to a digest a line carries'));
      if (!okLedger) out.appendChild(el('p', { class: 'bad' }, 'But the ledger on this page does not re-derive: see the verdict above.'));
      out.appendChild(el('p', null, 'sha256 ', el('code', { class: 'full' }, f.sha)));
      f.hits.forEach(function (h) {
        if (h.withheld) {
          out.appendChild(el('div', { class: 'hit' }, el('h4', null, 'Withheld seq ' + h.withheld.seq + ' (day ' + h.withheld.day + ')'),
            el('p', null, 'This is the entry_id of a withheld line: the lab\'s word, shown as digest and day only. Its line is not published, so the page cannot re-derive it.')));
          return;
        }
        var L = h.line;
        var box = el('div', { class: 'hit' }, el('h4', null, 'Line seq ' + L.seq + ': its ' + h.field + (h.field === 'entry_id' ? ' (the line\'s own digest)' : '')), lineFacts(L));
        if (h.field === 'sent_sha256' && publicTexts) {
          if (isAllowListed(f.sha, L.seq)) box.appendChild(releasedBlock(f.sha, 'The released bytes of this send'));
          else if (textBytes(f.sha)) box.appendChild(el('p', null, 'The released text with this digest is shown under the allow-listed line; this line is off the allow-list.'));
        }
        out.appendChild(box);
      });
      out.appendChild(el('p', { class: 'caveat' }, 'What a match proves: these exact bytes left the gate at that second under that verdict. It does not prove who typed them, or that they are true.'));
      if (all.length > 1) out.appendChild(el('p', { class: 'muted' }, 'Other forms that also matched: ' + all.slice(1).map(function (x) { return x.variant; }).join('; ') + '.'));
    }

    function showMiss(out, t, ownSha, vs) {
      var tried = el('details', null, el('summary', null, 'The forms tried (' + vs.length + ') and their digests'),
        el('ul', null, vs.map(function (v) { return el('li', null, v.name + ': ', el('code', { class: 'full' }, v.sha || V.sha256Hex(V.utf8Encode(v.text)))); })));
      var texts = publicTexts && obj(publicTexts.texts) ? publicTexts.texts : null;
      var pub = publicTexts && obj(publicTexts.index) && Array.isArray(publicTexts.index.published) ? publicTexts.index.published : [];
      var key = wordsKey(t), pasteTokens = tokens(t);
      var same = null, best = null;
      if (texts) {
        state.tokCache = state.tokCache || {};
        pub.forEach(function (p) {
          var sha = p && p.sent_sha256;
          if (typeof sha !== 'string') return;
          var c = state.tokCache[sha];
          if (!c) {
            var b = textBytes(sha);
            if (!b) return;
            var s = V.utf8Decode(b);
            c = state.tokCache[sha] = { text: s, key: wordsKey(s), tokens: tokens(s) };
          }
          if (!same && c.key === key && key) same = { p: p, c: c };
          var score = dice(pasteTokens, c.tokens);
          if (!best || score > best.score) best = { p: p, c: c, score: score };
        });
      }
      var noLine = el('p', null, 'Your paste\'s own sha256 is ', el('code', { class: 'full' }, ownSha), ', and no send line on this page carries it (nor any of the forms tried).');
      var target = same || (best && best.score >= NEAR_THRESHOLD ? best : null);
      if (same) {
        // The stable hook keeps three values (hash, nearest, none); this verdict is a kind of
        // nearest and says so in its own attribute.
        out.setAttribute('data-match', 'nearest');
        out.setAttribute('data-verdict', 'same-words');
        out.appendChild(el('h3', { class: 'near' }, 'Same words, different bytes — NOT a hash match'));
        out.appendChild(el('p', null, 'The released text of seq ' + same.p.seq + ' has the same words as your paste once case, punctuation, markdown and whitespace are set aside; its bytes differ from your paste\'s.'));
      } else if (target) {
        out.setAttribute('data-match', 'nearest');
        out.appendChild(el('h3', { class: 'near' }, 'Nearest published released text — NOT a hash match'));
        out.appendChild(el('p', null, 'Token similarity (Dice over the word multisets, after the §6b normalisation) of your paste to the released text of seq ' +
          target.p.seq + ': ' + target.score.toFixed(2) + ', at or above the threshold ' + NEAR_THRESHOLD + '.'));
      } else {
        out.setAttribute('data-match', 'none');
        out.appendChild(el('h3', { class: 'none' }, 'No line on this page carries your text\'s digest'));
        out.appendChild(noLine);
        out.appendChild(el('p', null, texts ? (best ? 'The closest published released text scores ' + best.score.toFixed(2) + ', under the threshold ' + NEAR_THRESHOLD + '; none is shown.' : 'No published released text to compare with.')
          : 'This page carries no released texts, so there is nothing to compare your words with.'));
        out.appendChild(tried);
        out.appendChild(missCaveat());
        return;
      }
      out.setAttribute('data-seq', String(target.p.seq));
      out.appendChild(noLine);
      var diff = wordDiff(target.c.tokens, pasteTokens);
      var dv = el('p', { class: 'diff', id: 'paste-diff' });
      diff.forEach(function (d, i) {
        if (i) dv.appendChild(document.createTextNode(' '));
        dv.appendChild(d.op === 'same' ? document.createTextNode(d.word) : el(d.op === 'del' ? 'del' : 'ins', null, d.word));
      });
      out.appendChild(el('h4', null, 'Word diff: struck words are in the released text and not in your paste; underlined words are in your paste and not in the released text'));
      out.appendChild(dv);
      out.appendChild(releasedBlock(target.p.sent_sha256, 'The released text of seq ' + target.p.seq + ' re-hashes to its own digest (this is about the released text, not your paste)'));
      var L = state.bySeq.get(target.p.seq);
      if (L) {
        var facts = lineFacts(L);
        facts.classList.add('neutral');
        out.appendChild(el('div', { class: 'hit near' }, el('h4', null, 'The nearest line\'s record, head and bitcoin proof — the nearest line\'s, not your paste\'s'), facts));
      }
      out.appendChild(el('p', { class: 'caveat' }, 'A telegram-rendered copy need not hash to the gate\'s bytes; the released bytes are what the gate hashed. A near match proves nothing by itself: it is a search aid that hands you the bytes to re-hash, not a verdict. A paste holding only part of a text can reach the threshold.'));
      out.appendChild(tried);
      out.appendChild(missCaveat());
    }
    function missCaveat() {
      return el('p', { class: 'caveat' }, 'A miss, near or far, does not show that the agent did not send the text: its line may be withheld, its destination off the allow-list, its text not re-derivable, or it may be newer than this page.');
    }

    $('paste-form').addEventListener('submit', function (ev) { ev.preventDefault(); prove($('paste').value); });
    function fromHash() {
      var h = location.hash || '';
      if (h.indexOf('#paste=') !== 0) return;
      var v;
      try { v = decodeURIComponent(h.slice(7).replace(/\+/g, '%20')); } catch (e) { v = h.slice(7); }
      $('paste').value = v;
      prove(v);
    }
    window.addEventListener('hashchange', fromHash);
    $('paste-link').addEventListener('click', function () {
      var v = $('paste').value;
      if (!v) return;
      location.hash = 'paste=' + encodeURIComponent(v);
    });

    // snapshots
    (function () {
      var lines = snapshotsText.split('\n').filter(Boolean), last = null;
      try { last = lines.length ? JSON.parse(lines[lines.length - 1]) : null; } catch (e) { last = null; }
      var s = $('snapshots');
      if (s) s.textContent = lines.length + ' publication' + (lines.length === 1 ? '' : 's') + ' recorded in SNAPSHOTS.jsonl' +
        (last ? '; the last built at ' + String(last.built_at) + ' with ' + String(last.lines) + ' lines, ' + (last.extends === false ? 'NOT extending the one before (' + String(last.rewrite_reason) + ')' : 'extending the one before') : '') + '.';
    })();

    if (withheldRaw && withheldRaw.__error) withheld = [];
    renderWitness();
    $('paste-go').disabled = false;
    fromHash();
    run();
  }

  pure.start = start;
  return pure;
});
