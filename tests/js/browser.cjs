// The page in a real browser, in real time: drives Debian's headless Chromium over the DevTools
// protocol on a pipe (--remote-debugging-pipe: no port, no npm package, no virtual time, no user-
// agent switch in the page). tests/testsuite/page_e2e.rs runs it once per page load and reads its JSON.
//
//   node tests/js/browser.cjs PAGE [--fragment '#paste=…'] [--width 1280] [--height 900]
//        [--dark] [--axe path/to/axe.min.js] [--screenshot out.png] [--full-page]
//        [--inject-script] [--tab-stops] [--eval EXPR] [--timeout-ms 120000]
//        [--profile DIR] [--pick DIR] [--no-js] [--perf] [--heap-strings A,B]
//
// PAGE is a path (opened from file://) or an http:// URL. --profile keeps Chromium's profile in
// DIR between runs (a returning visitor: the page's localStorage survives); --pick, once the
// page says `needs-data`, gives DIR to the page's folder picker (#pick-ledger) over the
// DevTools protocol and waits for the verdict again. --no-js disables the page's scripts (what
// a reader with JavaScript off sees): it waits for the document to load, not for a verdict.
//
// It waits until `#verdict[data-verdict]` is final (intact / gaps / failed: the page posts it
// only after every check it does has run) and, with a `#paste=` fragment, until
// `#paste-result[data-match]` is set; then it prints one JSON object: the DOM, the verdict's
// attributes, layout facts (document width, the paste result's box and the viewport, the body's
// colours), the axe-core violations when --axe is given, and whether an injected inline script
// ran (--inject-script: the page's CSP must block it). `msToVerdict` counts from the navigation
// (not the browser's start) to when the final verdict was seen, polled every 100 ms (20 with
// --perf); the verdict's `data-ms-details` is the page's own clock, from its navigation.
//
// --perf watches the page from before its first script (docs/page.md#records-in-the-worker):
// every long task (PerformanceObserver 'longtask': its duration), and whether #progress was
// full while the verdict was still working; after the verdict it collects garbage and reports
// the page's main-thread JavaScript heap (Runtime.getHeapUsage), and the requests by kind, its
// workers' (which fetch the ledger's files) with the page's. --heap-strings then takes a heap
// snapshot of the main thread and says which of the given strings it holds.
'use strict';
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

function chromiumPath() {
  for (const name of ['chromium', 'chromium-browser', 'google-chrome']) {
    for (const dir of (process.env.PATH || '').split(path.delimiter)) {
      const p = path.join(dir, name);
      try { fs.accessSync(p, fs.constants.X_OK); return p; } catch (e) { /* next */ }
    }
  }
  throw new Error('the page tests need headless Chromium and none is on PATH: run `apt-get install -y chromium`');
}

/** Starts Chromium; returns {send(method, params, sessionId), on(event, fn), close()}. */
function launch(keepProfile) {
  const profile = keepProfile || fs.mkdtempSync(path.join(os.tmpdir(), 'exhibit-cdp-'));
  const chrome = spawn(chromiumPath(), [
    '--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', '--no-first-run', '--hide-scrollbars',
    '--font-render-hinting=none',
    `--user-data-dir=${profile}`, '--remote-debugging-pipe', 'about:blank',
  ], { stdio: ['ignore', 'ignore', 'ignore', 'pipe', 'pipe'] });
  const out = chrome.stdio[3];
  const inp = chrome.stdio[4];
  let buf = Buffer.alloc(0);
  let nextId = 1;
  const waiting = new Map();
  const listeners = [];
  inp.on('data', (chunk) => {
    buf = Buffer.concat([buf, chunk]);
    let at;
    while ((at = buf.indexOf(0)) >= 0) {
      const msg = JSON.parse(buf.subarray(0, at).toString('utf8'));
      buf = buf.subarray(at + 1);
      if (msg.id && waiting.has(msg.id)) {
        waiting.get(msg.id)(msg);
        waiting.delete(msg.id);
      } else if (msg.method) listeners.forEach((l) => l(msg));
    }
  });
  const send = (method, params = {}, sessionId) => new Promise((resolve, reject) => {
    const id = nextId++;
    waiting.set(id, (msg) => (msg.error ? reject(new Error(`${method}: ${msg.error.message}`)) : resolve(msg.result)));
    out.write(JSON.stringify({ id, method, params, sessionId }) + '\0');
  });
  const close = () => new Promise((resolve) => {
    // Chromium's helpers may still be writing the profile as the browser exits: retry, and
    // leave a temporary folder behind rather than fail a test over it.
    const rm = (left) => {
      if (keepProfile) { resolve(); return; }
      try { fs.rmSync(profile, { recursive: true, force: true, maxRetries: 5 }); resolve(); }
      catch (e) { if (left > 0) setTimeout(() => rm(left - 1), 300); else resolve(); }
    };
    chrome.on('exit', () => rm(5));
    if (keepProfile) {
      // A profile kept for the next run: let Chromium close itself, so it writes the page's
      // localStorage to disk.
      send('Browser.close').catch(() => {});
      setTimeout(() => chrome.kill(), 10000).unref();
    } else chrome.kill();
  });
  return { send, on: (fn) => listeners.push(fn), close };
}

/** Opens `url` in a fresh tab with the given viewport and colour scheme. */
async function open(b, url, { width = 1280, height = 900, dark = false, noJs = false, perf = false } = {}) {
  const { targetId } = await b.send('Target.createTarget', { url: 'about:blank' });
  const { sessionId } = await b.send('Target.attachToTarget', { targetId, flatten: true });
  const evaluate = async (expression) => {
    const r = await b.send('Runtime.evaluate', { expression, returnByValue: true, awaitPromise: true }, sessionId);
    if (r.exceptionDetails) throw new Error('in the page: ' + JSON.stringify(r.exceptionDetails).slice(0, 600));
    return r.result.value;
  };
  await b.send('Page.enable', {}, sessionId);
  await b.send('Runtime.enable', {}, sessionId);
  await b.send('Emulation.setDeviceMetricsOverride', { width, height, deviceScaleFactor: 1, mobile: width < 600 }, sessionId);
  await b.send('Emulation.setEmulatedMedia', { features: [{ name: 'prefers-color-scheme', value: dark ? 'dark' : 'light' }] }, sessionId);
  if (noJs) await b.send('Emulation.setScriptExecutionDisabled', { value: true }, sessionId);
  if (perf) await b.send('Page.addScriptToEvaluateOnNewDocument', { source: PERF_WATCH }, sessionId);
  // --perf: the page's workers too, for the requests they make (a light page's reader fetches
  // the ledger's files itself).
  const workers = [];
  if (perf) {
    b.on((m) => {
      if (m.method === 'Target.attachedToTarget' && m.sessionId === sessionId && m.params.targetInfo.type === 'worker') workers.push(m.params.sessionId);
    });
    await b.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: false, flatten: true }, sessionId);
  }
  // Navigation to the verdict is timed from here, not from the browser's start.
  const navigatedAt = Date.now();
  await b.send('Page.navigate', { url }, sessionId);
  return { sessionId, evaluate, workers, navigatedAt };
}

// Runs before the page's own scripts (--perf): long tasks, and #progress full before a verdict.
const PERF_WATCH = `(function () {
  var P = window.__exhibitPerf = { longTasks: [], longTaskStarts: [], fullWhileWorking: false, maxProgress: 0, watchError: null };
  // Every request the page makes is timed (the default buffer keeps 250).
  try { performance.setResourceTimingBufferSize(1000000); } catch (e) { /* older browsers */ }
  try {
    new PerformanceObserver(function (list) {
      list.getEntries().forEach(function (e) { P.longTasks.push(Math.round(e.duration)); P.longTaskStarts.push(Math.round(e.startTime)); });
    }).observe({ type: 'longtask', buffered: true });
  } catch (e) { P.watchError = String(e); }
  new MutationObserver(function () {
    var p = document.getElementById('progress'), v = document.getElementById('verdict');
    if (!p || !v || !p.max) return;
    var ratio = p.value / p.max;
    if (ratio > P.maxProgress) P.maxProgress = ratio;
    if (ratio >= 1 && v.getAttribute('data-verdict') === 'working') P.fullWhileWorking = true;
  }).observe(document, { attributes: true, subtree: true, attributeFilter: ['value', 'max'] });
})();`;

// The page's requests by kind (--perf): how many, the bytes of their bodies, and when the first
// started and the last ended on the page's clock (ms): where a full check's time goes.
const REQUESTS = `(function () {
  var out = {};
  performance.getEntriesByType('resource').forEach(function (e) {
    var p = new URL(e.name).pathname.replace(/^\\//, '');
    var k = /^ledger\\/tree\\//.test(p) ? 'tree' : /^ledger\\/anchors\\/[^/]*\\.txt$/.test(p) ? 'posts' : /\\.ots$/.test(p) ? 'proofs'
      : /^ledger\\/(segments\\/|ledger\\.jsonl)/.test(p) ? 'ledger' : 'other';
    var g = out[k] = out[k] || { count: 0, bytes: 0, start: Infinity, end: 0 };
    g.count++; g.bytes += e.encodedBodySize || 0;
    g.start = Math.min(g.start, Math.round(e.startTime)); g.end = Math.max(g.end, Math.round(e.responseEnd));
  });
  return out;
})()`;

/**
 * REQUESTS over the page and its workers, each worker's times moved to the page's clock (a
 * worker's performance.now() counts from its own start).
 */
async function requestsOf(b, evaluate, workers) {
  const out = await evaluate(REQUESTS);
  const origin = await evaluate('performance.timeOrigin');
  for (const w of workers) {
    let r;
    try {
      r = await b.send('Runtime.evaluate', { expression: '[' + REQUESTS + ', performance.timeOrigin]', returnByValue: true }, w);
    } catch (e) { continue; } // a worker that ended
    const [theirs, at] = r.result.value || [{}, origin];
    Object.keys(theirs).forEach((k) => {
      const g = out[k] = out[k] || { count: 0, bytes: 0, start: Infinity, end: 0 }, t = theirs[k], shift = at - origin;
      g.count += t.count; g.bytes += t.bytes;
      g.start = Math.min(g.start, Math.round(t.start + shift)); g.end = Math.max(g.end, Math.round(t.end + shift));
    });
  }
  return out;
}

/** The main thread's heap after a collection, and which of `needles` a heap snapshot holds. */
async function heapFacts(b, sessionId, needles) {
  await b.send('HeapProfiler.enable', {}, sessionId);
  await b.send('HeapProfiler.collectGarbage', {}, sessionId);
  const usage = await b.send('Runtime.getHeapUsage', {}, sessionId);
  const out = { usedBytes: usage.usedSize, totalBytes: usage.totalSize };
  if (needles.length) {
    const chunks = [];
    b.on((m) => { if (m.method === 'HeapProfiler.addHeapSnapshotChunk' && m.sessionId === sessionId) chunks.push(m.params.chunk); });
    await b.send('HeapProfiler.takeHeapSnapshot', { reportProgress: false }, sessionId);
    const snap = chunks.join('');
    out.holds = {};
    needles.forEach((n) => { out.holds[n] = snap.includes(n); });
  }
  return out;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Polls `expression` until it is truthy; returns its value. */
async function waitFor(evaluate, expression, timeoutMs, what, pollMs = 100) {
  const t0 = Date.now();
  for (;;) {
    let v = null;
    try { v = await evaluate(expression); } catch (e) { v = null; }
    if (v) return v;
    if (Date.now() - t0 > timeoutMs) throw new Error(`waited ${timeoutMs} ms for ${what}`);
    await sleep(pollMs);
  }
}

function parseArgs(argv) {
  const o = { page: null, fragment: '', width: 1280, height: 900, dark: false, axe: null, screenshot: null,
    fullPage: false, injectScript: false, tabStops: false, evalExpr: null, timeoutMs: 120000, profile: null, pick: null, noJs: false,
    perf: false, heapStrings: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--fragment') o.fragment = argv[++i];
    else if (a === '--width') o.width = Number(argv[++i]);
    else if (a === '--height') o.height = Number(argv[++i]);
    else if (a === '--dark') o.dark = true;
    else if (a === '--axe') o.axe = argv[++i];
    else if (a === '--screenshot') o.screenshot = argv[++i];
    else if (a === '--full-page') o.fullPage = true;
    else if (a === '--inject-script') o.injectScript = true;
    else if (a === '--tab-stops') o.tabStops = true;
    else if (a === '--eval') o.evalExpr = argv[++i];
    else if (a === '--timeout-ms') o.timeoutMs = Number(argv[++i]);
    else if (a === '--profile') o.profile = path.resolve(argv[++i]);
    else if (a === '--pick') o.pick = path.resolve(argv[++i]);
    else if (a === '--no-js') o.noJs = true;
    else if (a === '--perf') o.perf = true;
    else if (a === '--heap-strings') { o.perf = true; o.heapStrings = argv[++i].split(',').filter(Boolean); }
    else if (!o.page) o.page = a;
    else throw new Error('unknown argument ' + a);
  }
  if (!o.page) throw new Error('usage: node tests/js/browser.cjs PAGE [options]');
  return o;
}

async function probe(o) {
  const b = launch(o.profile);
  const console_ = [];
  b.on((m) => {
    if (m.method === 'Runtime.exceptionThrown') console_.push('exception: ' + JSON.stringify(m.params.exceptionDetails).slice(0, 400));
    if (m.method === 'Runtime.consoleAPICalled' && (m.params.type === 'error' || m.params.type === 'warning')) {
      console_.push(m.params.type + ': ' + m.params.args.map((x) => x.value || x.description).join(' '));
    }
  });
  try {
    const url = (/^https?:\/\//.test(o.page) ? o.page : 'file://' + path.resolve(o.page)) + (o.fragment || '');
    const { sessionId, evaluate, workers, navigatedAt } = await open(b, url, o);
    const t0 = navigatedAt;
    if (o.noJs) await waitFor(evaluate, "document.readyState === 'complete'", o.timeoutMs, 'the document to load');
    else await waitFor(evaluate, "(function(){var v=document.getElementById('verdict');var d=v&&v.getAttribute('data-verdict');return d&&d!=='working'?d:null})()",
      o.timeoutMs, 'the final verdict (#verdict[data-verdict])', o.perf ? 20 : 100);
    if (o.pick) {
      const before = await evaluate("document.getElementById('verdict').getAttribute('data-verdict')");
      if (before !== 'needs-data') throw new Error('--pick: the page did not ask for the ledger (data-verdict=' + before + ')');
      const { root } = await b.send('DOM.getDocument', {}, sessionId);
      const { nodeId } = await b.send('DOM.querySelector', { nodeId: root.nodeId, selector: '#pick-ledger' }, sessionId);
      await b.send('DOM.setFileInputFiles', { nodeId, files: [o.pick] }, sessionId);
      await waitFor(evaluate, "(function(){var d=document.getElementById('verdict').getAttribute('data-verdict');return d&&d!=='working'&&d!=='needs-data'?d:null})()",
        o.timeoutMs, 'the verdict after the folder was picked');
    }
    if (/^#paste=/.test(o.fragment || '')) {
      await waitFor(evaluate, "(document.getElementById('paste-result')||{}).getAttribute&&document.getElementById('paste-result').getAttribute('data-match')",
        o.timeoutMs, 'the paste result (#paste-result[data-match])');
      // A light page fetches a found line's released text after the result is set: wait for it.
      await waitFor(evaluate, "!document.querySelector('.released-fetch[data-state=\"fetching\"]')",
        o.timeoutMs, 'the released texts the paste result fetches');
      // the scroll into view is smooth on some browsers: let it settle
      await sleep(300);
    }
    const msToVerdict = Date.now() - t0;
    const facts = await evaluate(`(function () {
      // The page's clock as this reading starts: the long tasks that start later are this
      // reading's own (it lays out every element), not the page's (benches/full-check.sh).
      var pageNow = performance.now();
      var v = document.getElementById('verdict'), r = document.getElementById('paste-result');
      var attrs = function (e) { var o = {}; if (!e) return o; for (var i = 0; i < e.attributes.length; i++) o[e.attributes[i].name] = e.attributes[i].value; return o; };
      var box = r ? r.getBoundingClientRect() : null;
      var cs = getComputedStyle(document.body);
      var wide = [];
      document.querySelectorAll('body *').forEach(function (e) {
        var b = e.getBoundingClientRect();
        if (b.right > document.documentElement.clientWidth + 1 && wide.length < 10 && !e.closest('.scroll')) wide.push(e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + (e.className ? '.' + String(e.className).split(' ').join('.') : '') + ' right=' + Math.round(b.right));
      });
      return {
        pageNow: pageNow, verdict: attrs(v), pasteResult: attrs(r),
        pasteBox: box ? { top: box.top, bottom: box.bottom, height: box.height } : null,
        viewport: { width: innerWidth, height: innerHeight },
        scrollWidth: document.documentElement.scrollWidth, clientWidth: document.documentElement.clientWidth,
        wide: wide,
        focusedId: document.activeElement ? document.activeElement.id : null,
        colors: { fg: cs.color, bg: cs.backgroundColor },
        status: (document.getElementById('status') || {}).textContent || null,
        dom: document.documentElement.outerHTML
      };
    })()`);
    facts.msToVerdict = msToVerdict;
    if (o.tabStops) {
      facts.tabStops = await evaluate(`(function () {
        var n = 0, kinds = {};
        document.querySelectorAll('a[href], button, input, select, textarea, summary, [tabindex]').forEach(function (e) {
          if (e.disabled || e.tabIndex < 0) return;
          // what a Tab key reaches: not inside a closed <details>, not hidden
          if (e.checkVisibility ? !e.checkVisibility({ contentVisibilityAuto: true, visibilityProperty: true }) : !e.getClientRects().length) return;
          n++; var k = e.getAttribute('role') === 'region' ? 'region' : e.tagName.toLowerCase(); kinds[k] = (kinds[k] || 0) + 1;
        });
        return { count: n, kinds: kinds };
      })()`);
    }
    if (o.evalExpr) facts.evalResult = await evaluate(o.evalExpr);
    if (o.perf) {
      facts.perf = await evaluate('window.__exhibitPerf || null');
      if (facts.perf) facts.perf.requests = await requestsOf(b, evaluate, workers);
      facts.heap = await heapFacts(b, sessionId, o.heapStrings);
    }
    if (o.injectScript) {
      facts.injected = await evaluate(`new Promise(function (resolve) {
        var violated = null;
        document.addEventListener('securitypolicyviolation', function (e) { violated = e.violatedDirective; });
        var s = document.createElement('script');
        s.textContent = 'window.__exhibitInjected = 1;';
        document.body.appendChild(s);
        setTimeout(function () { resolve({ ran: window.__exhibitInjected === 1, violated: violated }); }, 200);
      })`);
    }
    if (o.axe) {
      const src = fs.readFileSync(o.axe, 'utf8');
      // Runtime.evaluate is the debugger's, not the page's: the page's CSP does not apply to it.
      await evaluate(src + '\n;true');
      facts.axe = await evaluate(`axe.run(document, { resultTypes: ['violations'] }).then(function (r) {
        return r.violations.map(function (v) { return { id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 5).map(function (n) { return n.target.join(' ') + ' :: ' + n.failureSummary; }) }; });
      })`);
    }
    if (o.screenshot) {
      let clip;
      if (o.fullPage) {
        const h = await evaluate('document.documentElement.scrollHeight');
        clip = { x: 0, y: 0, width: o.width, height: Math.min(h, 12000), scale: 1 };
      }
      const shot = await b.send('Page.captureScreenshot', { format: 'png', captureBeyondViewport: !!o.fullPage, clip }, sessionId);
      fs.writeFileSync(o.screenshot, Buffer.from(shot.data, 'base64'));
    }
    facts.console = console_;
    return facts;
  } finally {
    await b.close();
  }
}

module.exports = { launch, open, waitFor, chromiumPath };

if (require.main === module) {
  probe(parseArgs(process.argv.slice(2)))
    .then((facts) => { process.stdout.write(JSON.stringify(facts)); })
    .catch((e) => { console.error(String(e && e.stack || e)); process.exit(1); });
}
