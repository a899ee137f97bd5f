#!/usr/bin/env bash
# Linear time in a line's size, for every line shape (issue 15, class 7): `exhibit verify` and the
# page's verify.js (under node) on ledgers of one hostile line, against the fixed yardstick
# `openssl dgst -sha256` over the same file, in the same run. Each shape is measured at size N and
# 2N: a linear reader's time doubles (the "x2" column stays near 2), a quadratic one's quadruples.
#
#   benches/line-shapes.sh            N = 100k keys / brackets, 10 MB strings
#
# Shapes: 100k keys ascending, descending and shuffled (the quadratic case was descending: one
# 1.3 MB line took 15-17 s), 100 arrays each nested 1000 deep (the limit) and one nested 100k deep
# (refused at 1001), a 10 MB string, a 10 MB string of escapes. Reports wall seconds (best of 5),
# the ratio to openssl on the same file, and peak memory. No timed assertion anywhere.
# Needs: openssl, node, GNU time (/usr/bin/time). Files go under ${BENCH_DIR:-/tmp/exhibit-shapes}.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${BENCH_DIR:-/tmp/exhibit-shapes}
mkdir -p "$dir"
cargo build -q --release
bin=$PWD/target/release/exhibit
T=/usr/bin/time
[ -x "$T" ] || { echo "benches/line-shapes.sh needs GNU time: apt-get install -y time" >&2; exit 2; }

# One header line and one entry line of the given shape and scale.
node - "$dir" <<'EOF'
const fs = require('node:fs');
const dir = process.argv[2];
const header = '{"anchor_tz":"UTC","schema":"darkflobi.gate/log/v0"}\n';
const keys = (n, order) => {
  const ks = Array.from({ length: n }, (_, i) => 'k' + String(i).padStart(7, '0'));
  if (order === 'desc') ks.reverse();
  if (order === 'shuffled') { let s = 7; for (let i = n - 1; i > 0; i--) { s = (s * 1103515245 + 12345) % 2147483648; const j = s % (i + 1); [ks[i], ks[j]] = [ks[j], ks[i]]; } }
  return '{' + ks.map((k, i) => `"${k}":${i}`).join(',') + '}';
};
const deep = (count, depth) => '{"a":[' + Array.from({ length: count }, () => '['.repeat(depth - 2) + ']'.repeat(depth - 2)).join(',') + ']}';
const shapes = {
  'keys-ascending': (s) => keys(100000 * s, 'asc'),
  'keys-descending': (s) => keys(100000 * s, 'desc'),
  'keys-shuffled': (s) => keys(100000 * s, 'shuffled'),
  'arrays-1000-deep': (s) => deep(100 * s, 1000),
  'arrays-100k-deep': (s) => '{"a":' + '['.repeat(100000 * s) + ']'.repeat(100000 * s) + '}',
  'string-10MB': (s) => '{"a":"' + 'x'.repeat(10e6 * s) + '"}',
  'string-10MB-escapes': (s) => '{"a":"' + '\\u0001'.repeat(10e6 * s / 6) + '"}',
};
for (const [name, make] of Object.entries(shapes)) {
  for (const s of [1, 2]) fs.writeFileSync(`${dir}/${name}-x${s}.jsonl`, header + make(s) + '\n');
}
EOF

cat >"$dir/verify-js.cjs" <<EOF
const V = require('$PWD/assets/verify.js');
const r = V.verifyLedger(require('node:fs').readFileSync(process.argv[2]), null, null,
  { tzdb: 'bench', zone: 'UTC', from: 0, until: 0, offsets: [[0, 0]] });
if (r.entries !== 1) throw new Error('not read');
EOF

measure() { # command... -> "wall_s peak_kb" (best wall of 5: the machine is shared)
  local bw=999999 bm=0 t0 t1 m w
  for _ in 1 2 3 4 5; do
    t0=$EPOCHREALTIME
    # exhibit verify exits 1 on these lines (they chain to nothing): only the time counts.
    m=$( { "$T" -f "%M" "$@" 2>&1 >/dev/null || true; } | tail -n 1)
    t1=$EPOCHREALTIME
    w=$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.3f", b-a}')
    if awk -v a="$w" -v b="$bw" 'BEGIN{exit !(a<b)}'; then bw=$w; bm=$m; fi
  done
  echo "$bw $bm"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN{ if (b<=0.001) b=0.001; printf "%.1f", a/b }'; }

printf '%-22s %8s %9s %9s %8s %8s %9s %9s %8s %8s\n' shape MB openssl verify x_ssl x2 verify.js x_ssl x2 MiB
for shape in keys-ascending keys-descending keys-shuffled arrays-1000-deep arrays-100k-deep string-10MB string-10MB-escapes; do
  declare -A w=()
  for s in 1 2; do
    f="$dir/$shape-x$s.jsonl"
    cat "$f" >/dev/null
    read -r ow _ < <(measure openssl dgst -sha256 "$f")
    read -r vw vm < <(measure "$bin" verify "$f")
    read -r jw _ < <(measure node "$dir/verify-js.cjs" "$f")
    w[o$s]=$ow; w[v$s]=$vw; w[j$s]=$jw; w[m$s]=$vm
    w[mb$s]=$(awk -v b="$(stat -c %s "$f")" 'BEGIN{printf "%.1f", b/1e6}')
  done
  printf '%-22s %8s %9s %9s %8s %8s %9s %9s %8s %8s\n' "$shape" "${w[mb1]}" "${w[o1]}" "${w[v1]}" "$(ratio "${w[v1]}" "${w[o1]}")" \
    "$(ratio "${w[v2]}" "${w[v1]}")" "${w[j1]}" "$(ratio "${w[j1]}" "${w[o1]}")" "$(ratio "${w[j2]}" "${w[j1]}")" \
    "$(awk -v k="${w[m1]}" 'BEGIN{printf "%.1f", k/1024}')"
done
echo "x_ssl: wall time / openssl dgst -sha256 on the same file; x2: wall time at 2N / at N (2 = linear)."
