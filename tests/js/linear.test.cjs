// Issue 48, class 21: verify.js is linear in the input, its memory bounded by the withheld list
// (docs/verifier.md "Linear in the input"). Counted, never timed: `Verifier.gapSteps` counts the
// withheld seqs the bridging looks at or marks.
//   node --test tests/js/
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');

const V = require(path.join(__dirname, '..', '..', 'assets', 'verify.js'));

// A withheld list of `listed` seqs from 2 on (with `hole`, the gap's last seq but one left out and
// a far seq listed instead, so the list is as long as the gap), and a ledger whose lines
// alternate seq 1 and the seq just past the gap: a verifier that walks the gap per line walks it
// lines / 2 times. The same generator as `mod linear` in crates/protocol/src/verify.rs.
function hostile(listed, lines, hole) {
  const id = 'ab'.repeat(32);
  const items = [];
  for (let s = 2; s < listed + 2; s++) if (!(hole && s === listed)) items.push('{"seq":' + s + ',"entry_id":"' + id + '"}');
  if (hole) items.push('{"seq":' + (10 * listed + 7) + ',"entry_id":"' + id + '"}');
  const withheld = new TextEncoder().encode('[' + items.join(',') + ']');
  const out = ['{"schema":"darkflobi.gate/log/v0"}'];
  for (let i = 0; i < lines; i++) out.push('{"schema":"darkflobi.gate/entry/v0","seq":' + (i % 2 === 0 ? 1 : listed + 2) + '}');
  return { withheld, ledger: new TextEncoder().encode(out.join('\n') + '\n'), items: items.length, lines: out.length };
}

test('a gap stated past on every line is walked a bounded number of times', () => {
  for (const hole of [true, false]) {
    const counts = [];
    for (const scale of [1, 2]) {
      const listed = 50000 * scale, h = hostile(listed, 1000 * scale, hole);
      const v = new V.Verifier(h.withheld, null, { keepLines: false });
      const r = v.push(h.ledger).finish();
      const input = h.items + h.lines;
      assert.ok(v.gapSteps <= 4 * input, v.gapSteps + ' steps over the gap for an input of ' + input + ' (hole ' + hole + ')');
      assert.equal(r.bridged.length, hole ? 0 : listed);
      counts.push(v.gapSteps);
    }
    assert.ok(counts[1] <= counts[0] * 2.5, counts + ': the work grows faster than the input');
  }
});
