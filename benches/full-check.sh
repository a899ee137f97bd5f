#!/bin/sh
# The light page's full check at scale (issue 46 item 7; docs/page.md#records-in-the-worker): a
# generated box of N lines (no witness layer, 16 MiB segments), built with this checkout, served
# over http by python3 on 127.0.0.1, opened in headless Chromium at index.html#check-everything
# with tests/js/browser.cjs --perf: time from navigation to the final verdict, the longest task
# on the page's main thread before the harness reads the page (PerformanceObserver 'longtask'; after_verdict_ms is
# the harness's own reading of the whole page after it, a layout of every element), whether the progress bar was full
# before the verdict, and the main thread's JavaScript heap after a collection — a cold visit,
# then a returning one (same profile: the monitor resumes). Under each, the page's requests by kind
# (posts, proofs, ledger, tree, other): count/bytes@first start-last end, on the page's clock.
# Last, the floor (benches/full-check-floor.cjs): the same files fetched and hashed by node, and the
# ledger re-derived on one thread, which no page can beat on this machine.
#   sh benches/full-check.sh [lines]   (default 100000; writes to ${BENCH_DIR:-/tmp/exhibit-full-bench})
set -eu
cd "$(dirname "$0")/.."
cargo build --release --quiet --bin exhibit --example gen-box
T=${CARGO_TARGET_DIR:-$PWD/target}/release
WORK=${BENCH_DIR:-/tmp/exhibit-full-bench}
n=${1:-100000}
box=$WORK/box-$n
if [ ! -f "$box/exhibit.toml" ]; then
  rm -rf "$box"
  "$T/examples/gen-box" --lines "$n" --seed 1 --out "$box" --no-witness > /dev/null
  printf 'segment_bytes = 16777216\n' >> "$box/exhibit.toml"
fi
rm -rf "$box/site"
(cd "$box" && "$T/exhibit" build --out site > /dev/null)
site=$box/site
echo "lines=$n files=$(($(ls "$site/ledger/segments" | wc -l) + 1)) page_bytes=$(wc -c < "$site/index.html") tree_files=$(find "$site/ledger/tree" -type f | wc -l)"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 -m http.server "$port" --bind 127.0.0.1 --directory "$site" > /dev/null 2>&1 &
server=$!
prof=$(mktemp -d)
trap 'kill $server; rm -rf "$prof"' EXIT
sleep 1
for visit in cold returning; do
  node tests/js/browser.cjs "http://127.0.0.1:$port/index.html#check-everything" --profile "$prof" --timeout-ms 1200000 --perf |
    node -e "const f=JSON.parse(require('fs').readFileSync(0,'utf8'));const v=f.verdict,p=f.perf||{};
      console.log('$visit: verdict=' + v['data-verdict'] + ' vouched=' + v['data-vouched'] + ' navigation_to_verdict_ms=' + f.msToVerdict +
        ' page_verdict_at_ms=' + v['data-ms-details'] + ' longest_task_ms=' + Math.max(0, ...(p.longTasks||[]).filter((d,i)=>(p.longTaskStarts||[])[i] + d <= f.pageNow)) + ' long_tasks=' + (p.longTasks||[]).filter((d,i)=>(p.longTaskStarts||[])[i] + d <= f.pageNow).length + ' after_verdict_ms=' + Math.max(0, ...(p.longTasks||[]).filter((d,i)=>(p.longTaskStarts||[])[i] + d > f.pageNow)) +
        ' progress_full_while_working=' + p.fullWhileWorking + ' main_heap_mb=' + (f.heap.usedBytes / 1048576).toFixed(1));
      const q=p.requests||{};console.log('  requests: ' + Object.keys(q).sort().map(k=>k + '=' + q[k].count + '/' + (q[k].bytes/1e6).toFixed(1) + 'MB@' + q[k].start + '-' + q[k].end + 'ms').join(' '))"
done
# The floor under both: every file fetched and hashed by node, and the ledger re-derived alone.
node benches/full-check-floor.cjs "$site" "http://127.0.0.1:$port/"
