#!/usr/bin/env bash
# Linear in the input, memory bounded by the withheld list (issue 48, class 21;
# docs/verifier.md "Linear in the input"): `exhibit verify --withheld` and the page's verify.js
# (under node) on ledgers that state a seq past a withheld gap on every other line, at 3 MB and
# 6 MB of ledger, the gap growing with the ledger (so the input is twice as large in both). Two
# shapes:
#   hole  the gap is listed but for one seq near its end (G = 10,000 seqs per 3 MB): a verifier
#         that walks the gap per line walks it to the hole on every other line;
#   full  the gap is wholly listed (G = 1,000 per 3 MB): every other line bridges it again, and a
#         verifier that keeps a copy per crossing holds lines x gap seqs.
# Prints wall seconds and peak memory (GNU time), and the 6 MB / 3 MB ratios (2 = linear).
#
#   benches/gap-lines.sh                      the binary of this tree (cargo build --release)
#   EXHIBIT=/path/to/exhibit VERIFY_JS=/path/to/verify.js benches/gap-lines.sh    another build
#
# No timed assertion anywhere: the tests count steps (crates/protocol/src/verify.rs `mod linear`,
# tests/js/linear.test.cjs). Needs node and GNU time. Files go under ${BENCH_DIR:-/tmp/exhibit-gaps}.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${BENCH_DIR:-/tmp/exhibit-gaps}
mkdir -p "$dir"
if [ -z "${EXHIBIT:-}" ]; then cargo build -q --release; EXHIBIT=${CARGO_TARGET_DIR:-$PWD/target}/release/exhibit; fi
VERIFY_JS=${VERIFY_JS:-$PWD/assets/verify.js}
T=/usr/bin/time
[ -x "$T" ] || { echo "benches/gap-lines.sh needs GNU time: apt-get install -y time" >&2; exit 2; }

node - "$dir" <<'JS'
const fs = require('node:fs');
const dir = process.argv[2];
const id = 'ab'.repeat(32);
for (const [shape, per3] of [['hole', 10000], ['full', 1000]]) {
  for (const mb of [3, 6]) {
    const gap = per3 * mb / 3;
    const items = [];
    for (let s = 2; s < gap + 2; s++) if (!(shape === 'hole' && s === gap)) items.push({ seq: s, entry_id: id });
    if (shape === 'hole') items.push({ seq: 10 * gap + 7, entry_id: id });
    fs.writeFileSync(`${dir}/${shape}.${mb}mb.withheld.json`, JSON.stringify(items));
    const out = ['{"anchor_tz":"UTC","schema":"darkflobi.gate/log/v0"}'];
    let size = 0;
    for (let i = 0; size < mb * 1e6; i++) {
      const l = '{"schema":"darkflobi.gate/entry/v0","seq":' + (i % 2 === 0 ? 1 : gap + 2) + '}';
      out.push(l); size += l.length + 1;
    }
    fs.writeFileSync(`${dir}/${shape}.${mb}mb.jsonl`, out.join('\n') + '\n');
  }
}
JS
cat > "$dir/verify-js.cjs" <<'JS'
const fs = require('node:fs');
const V = require(process.env.VERIFY_JS);
const r = V.verifyLedger(fs.readFileSync(process.argv[2]), fs.readFileSync(process.argv[3]), null, null);
console.log(r.problems.length, r.bridged.length);
JS

# "seconds KB" of one run; the ledgers do not chain (exit 1): only time and memory count.
measure() { { "$T" -f '%e %M' "$@" 2>&1 >/dev/null || true; } | tail -n 1; }

printf '%-6s %-9s %10s %10s %10s %10s\n' shape verifier '3MB s' '3MB MB' '6MB s' '6MB MB'
for shape in hole full; do
  for who in exhibit verify.js; do
    row=()
    for mb in 3 6; do
      f=$dir/$shape.${mb}mb.jsonl w=$dir/$shape.${mb}mb.withheld.json
      if [ "$who" = exhibit ]; then read -r s kb < <(measure "$EXHIBIT" verify --withheld "$w" "$f")
      else read -r s kb < <(VERIFY_JS=$VERIFY_JS measure node "$dir/verify-js.cjs" "$f" "$w"); fi
      row+=("$s" "$((kb / 1024))")
    done
    printf '%-6s %-9s %10s %10s %10s %10s\n' "$shape" "$who" "${row[@]}"
  done
done
