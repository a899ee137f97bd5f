// Real-time page timing (issue 6 "Performance"): drives headless Chromium over the DevTools
// protocol on a pipe (--remote-debugging-pipe: no port, no npm package, no virtual time), loads a
// built page from file://, and measures
//   - load → verdict: wall time from Page.navigate until #verdict leaves data-state="working",
//     and the page's own performance.now() at the verdict (data-ms), both in real time;
//   - responsiveness: every 50 ms while the page works, a Runtime.evaluate round trip (it needs
//     the page's main thread); the worst and the median round trip are reported.
//
//   node benches/page-timing.cjs path/to/index.html [runs]
'use strict';
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const page = path.resolve(process.argv[2] || 'site/index.html');
const runs = Number(process.argv[3] || 3);

function launch() {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'exhibit-cdp-'));
  const chrome = spawn('chromium', [
    '--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', '--no-first-run',
    `--user-data-dir=${profile}`, '--remote-debugging-pipe', 'about:blank',
  ], { stdio: ['ignore', 'ignore', 'ignore', 'pipe', 'pipe'] });
  const out = chrome.stdio[3];
  const inp = chrome.stdio[4];
  let buf = Buffer.alloc(0);
  let nextId = 1;
  const waiting = new Map();
  inp.on('data', (chunk) => {
    buf = Buffer.concat([buf, chunk]);
    let at;
    while ((at = buf.indexOf(0)) >= 0) {
      const msg = JSON.parse(buf.subarray(0, at).toString('utf8'));
      buf = buf.subarray(at + 1);
      if (msg.id && waiting.has(msg.id)) {
        waiting.get(msg.id)(msg);
        waiting.delete(msg.id);
      }
    }
  });
  const send = (method, params = {}, sessionId) => new Promise((resolve, reject) => {
    const id = nextId++;
    waiting.set(id, (msg) => (msg.error ? reject(new Error(`${method}: ${msg.error.message}`)) : resolve(msg.result)));
    out.write(JSON.stringify({ id, method, params, sessionId }) + '\0');
  });
  const close = () => {
    chrome.kill();
    // Chromium may still be writing its profile as it exits: clean up after it has gone.
    chrome.on('exit', () => fs.rmSync(profile, { recursive: true, force: true, maxRetries: 5 }));
  };
  return { send, close };
}

async function once() {
  const { send, close } = launch();
  try {
    const { targetId } = await send('Target.createTarget', { url: 'about:blank' });
    const { sessionId } = await send('Target.attachToTarget', { targetId, flatten: true });
    const evaluate = async (expression) =>
      (await send('Runtime.evaluate', { expression, returnByValue: true }, sessionId)).result.value;
    await send('Page.enable', {}, sessionId);
    const t0 = process.hrtime.bigint();
    await send('Page.navigate', { url: 'file://' + page }, sessionId);
    const trips = [];
    let state = 'working';
    while (state === 'working' || state === undefined || state === null) {
      await new Promise((r) => setTimeout(r, 50));
      const s = process.hrtime.bigint();
      state = await evaluate("(document.getElementById('verdict')||{}).dataset?.state");
      trips.push(Number(process.hrtime.bigint() - s) / 1e6);
      if (Number(process.hrtime.bigint() - t0) / 1e6 > 120000) throw new Error('no verdict in 120 s');
    }
    const wall = Number(process.hrtime.bigint() - t0) / 1e6;
    // Then until every check is done and the headline verdict is posted (data-ms-details, set
    // with data-verdict), still timing round trips.
    const after = [];
    for (;;) {
      const s = process.hrtime.bigint();
      const details = await evaluate("document.getElementById('verdict').dataset.msDetails");
      after.push(Number(process.hrtime.bigint() - s) / 1e6);
      if (details) { var detailsMs = Number(details); break; }
      await new Promise((r) => setTimeout(r, 50));
    }
    after.sort((a, b) => a - b);
    const head = await evaluate("document.getElementById('verdict').dataset.head");
    const verdict = await evaluate("document.getElementById('verdict').dataset.verdict + ' ' + document.getElementById('verdict').dataset.vouched");
    const ms = await evaluate("document.getElementById('verdict').dataset.ms");
    const phases = await evaluate("JSON.stringify({decode: document.getElementById('verdict').dataset.msDecode, worker: document.getElementById('verdict').dataset.msWorker, domInteractive: performance.timing.domInteractive - performance.timing.navigationStart, domContentLoaded: performance.timing.domContentLoadedEventEnd - performance.timing.navigationStart})");
    console.log('  phases (ms):', phases);
    trips.sort((a, b) => a - b);
    return { state, verdict, head, wall, pageMs: Number(ms), worstTrip: trips[trips.length - 1], medianTrip: trips[trips.length >> 1], polls: trips.length,
      detailsMs, worstAfter: after[after.length - 1] };
  } finally {
    close();
  }
}

(async () => {
  const bytes = fs.statSync(page).size;
  for (let i = 1; i <= runs; i++) {
    const r = await once();
    console.log(`run ${i}: ${r.state}, verdict ${r.verdict}, head ${String(r.head).slice(0, 12)}… page ${(bytes / 1048576).toFixed(1)} MiB; ` +
      `navigate→verdict ${r.wall.toFixed(0)} ms (page's own clock ${r.pageMs} ms); ` +
      `main-thread round trip while working: median ${r.medianTrip.toFixed(1)} ms, worst ${r.worstTrip.toFixed(1)} ms over ${r.polls} polls; ` +
      `tables and checks drawn at ${r.detailsMs} ms (worst round trip meanwhile ${r.worstAfter.toFixed(0)} ms)`);
  }
})().catch((e) => { console.error(e); process.exit(1); });
