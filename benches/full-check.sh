#!/bin/sh
# The light page's full check at scale (issue 46 item 7; docs/page.md#records-in-the-worker): a
# generated box of N lines (no witness layer, 16 MiB segments), built with this checkout, served
# over http on 127.0.0.1 by `exhibit serve` (connections kept alive, as GitHub Pages keeps them;
# SERVER=python: python3's http.server, HTTP/1.0, one connection a request, to compare), opened
# in headless Chromium at index.html#check-everything
# with tests/js/browser.cjs --perf: time from navigation to the final verdict, the longest task
# on the page's main thread before the harness reads the page (PerformanceObserver 'longtask'; after_verdict_ms is
# the harness's own reading of the whole page after it, a layout of every element), whether the progress bar was full
# before the verdict, and the main thread's JavaScript heap after a collection — a cold visit,
# then a returning one (same profile: the monitor resumes). Under each, the page's requests by kind
# (posts, proofs, ledger, tree, other): count/bytes@first start-last end, on the page's clock.
# Last, the floors: the same files fetched by the browser alone, six at a time, nothing else done
# (benches/full-check-fetch.html, copied into the site with their names), then fetched and hashed
# by node and the ledger re-derived on one thread (benches/full-check-floor.cjs), which no page
# can beat on this machine.
#   [SERVER=exhibit|python] sh benches/full-check.sh [lines]
#   (default 100000; writes to ${BENCH_DIR:-/tmp/exhibit-full-bench})
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
case ${SERVER:-exhibit} in
  exhibit) "$T/exhibit" serve "$site" --address "127.0.0.1:$port" > /dev/null 2>&1 & ;;
  python) python3 -m http.server "$port" --bind 127.0.0.1 --directory "$site" > /dev/null 2>&1 & ;;
  *) echo "SERVER=exhibit or SERVER=python" >&2; exit 2 ;;
esac
server=$!
echo "server=${SERVER:-exhibit}"
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
# The floors under both: every file a cold check reads fetched by the browser with nothing else
# done (a profile of its own: cold), then fetched and hashed by node, and the ledger re-derived.
(cd "$site" && { echo ledger/ledger.jsonl; ls ledger/segments | sort | sed 's|^|ledger/segments/|'; find ledger/tree -type f | sort
  ls ledger/anchors | grep -E '^[0-9]{4}-[0-9]{2}-[0-9]{2}[.]txt([.]ots)?$' | sed 's|^|ledger/anchors/|'; }) > "$site/bench-names.txt"
cp benches/full-check-fetch.html "$site/bench-fetch.html"
node tests/js/browser.cjs "http://127.0.0.1:$port/bench-fetch.html" --timeout-ms 1200000 |
  node -e "const v=JSON.parse(require('fs').readFileSync(0,'utf8')).verdict;
    console.log('the browser alone, every file a cold full check reads fetched (6 at a time, not hashed): ' + v['data-files'] + ' files, ' + (v['data-bytes']/1e6).toFixed(1) + ' MB, ' + v['data-fetch-ms'] + ' ms')"
node benches/full-check-floor.cjs "$site" "http://127.0.0.1:$port/"
