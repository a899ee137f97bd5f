#!/bin/sh
# The page's cost (issue 6): for 10k- and 100k-line boxes, the page size and the time from load
# to verdict in headless Chromium (the page's own `data-ms` on #verdict: performance.now() at the
# verdict, from navigation start; data-ms-worker: the worker's own verify time), plus the wall time of the whole chromium run.
#   sh benches/page.sh [lines...]        (default: 10000 100000; needs chromium; writes to /tmp)
set -eu
cd "$(dirname "$0")/.."
cargo build --release --quiet --bin exhibit --example gen-box
EXHIBIT=$PWD/target/release/exhibit
GEN=$PWD/target/release/examples/gen-box
WORK=${BENCH_DIR:-/tmp/exhibit-page-bench}
SIZES=${*:-10000 100000}
for n in $SIZES; do
  box=$WORK/box-$n
  if [ ! -f "$box/site/index.html" ]; then
    rm -rf "$box"
    "$GEN" --lines "$n" --seed 7 --out "$box" --no-witness > /dev/null
    (cd "$box" && "$EXHIBIT" build --out site > /dev/null)
  fi
  page=$box/site/index.html
  bytes=$(wc -c < "$page")
  ledger=$(wc -c < "$box/site/ledger/ledger.jsonl")
  for run in 1 2 3; do
    prof=$(mktemp -d)
    t0=$(date +%s%N)
    dom=$(chromium --headless --no-sandbox --disable-gpu --disable-background-networking \
      --disable-component-update --disable-sync --no-first-run --user-data-dir="$prof" \
      --virtual-time-budget=60000 --dump-dom "file://$page" 2>/dev/null)
    t1=$(date +%s%N)
    rm -rf "$prof"
    tag=$(printf '%s' "$dom" | grep -o '<div[^>]*id="verdict"[^>]*>' | head -1)
    state=$(printf '%s' "$tag" | sed -n 's/.*data-state="\([^"]*\)".*/\1/p')
    ms=$(printf '%s' "$tag" | sed -n 's/.*data-ms="\([^"]*\)".*/\1/p')
    wk=$(printf '%s' "$tag" | sed -n 's/.*data-ms-worker="\([^"]*\)".*/\1/p')
    dec=$(printf '%s' "$tag" | sed -n 's/.*data-ms-decode="\([^"]*\)".*/\1/p')
    echo "lines=$n run=$run page_bytes=$bytes ledger_bytes=$ledger state=$state verdict_at_ms=$ms (decode+render to worker start $dec, worker verify+anchors $wk) chromium_wall_ms=$(( (t1 - t0) / 1000000 ))"
  done
done
