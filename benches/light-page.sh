#!/bin/sh
# The light page's cost (issue 12 part 2): for a generated box whose published ledger is cut into
# segments, the page's size, and in headless Chromium over http (a python3 http.server on
# 127.0.0.1) the time from navigation to the final verdict of the full check
# (`index.html#check-everything`, docs/page.md "Check everything") on a first visit (every file
# fetched and re-derived) and on a second visit with the same profile (the monitor resumes:
# nothing fetched but the page), beside `exhibit verify SITE` of the same site as the yardstick;
# then the default log-size check of the checkpoint (docs/page.md "The log-size path").
#   sh benches/light-page.sh [lines] [segment_bytes]   (default: 100000 16777216; writes to /tmp)
set -eu
cd "$(dirname "$0")/.."
cargo build --release --quiet --bin exhibit --example gen-box
EXHIBIT=$PWD/target/release/exhibit
GEN=$PWD/target/release/examples/gen-box
WORK=${BENCH_DIR:-/tmp/exhibit-light-bench}
n=${1:-100000}
seg=${2:-16777216}
box=$WORK/box-$n-$seg
if [ ! -f "$box/exhibit.toml" ]; then
  rm -rf "$box"
  "$GEN" --lines "$n" --seed 7 --out "$box" --no-witness > /dev/null
  printf 'segment_bytes = %s\n' "$seg" >> "$box/exhibit.toml"
fi
# Built every run, so the page carries this checkout's assets.
rm -rf "$box/site"
(cd "$box" && "$EXHIBIT" build --out site > /dev/null)
site=$box/site
files=$(ls "$site/ledger/segments" | wc -l)
ledger=$(cat "$site/ledger/ledger.jsonl" "$site"/ledger/segments/*.jsonl | wc -c)
echo "lines=$n segment_bytes=$seg segments=$files ledger_bytes=$ledger page_bytes=$(wc -c < "$site/index.html")"
t0=$(date +%s%N); "$EXHIBIT" verify "$site" > /dev/null; t1=$(date +%s%N)
echo "exhibit verify SITE: $(( (t1 - t0) / 1000000 )) ms"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 -m http.server "$port" --bind 127.0.0.1 --directory "$site" > /dev/null 2>&1 &
server=$!
trap 'kill $server' EXIT
sleep 1
prof=$(mktemp -d)
for visit in first second; do
  node tests/js/browser.cjs "http://127.0.0.1:$port/index.html#check-everything" --profile "$prof" --timeout-ms 1200000 \
    --eval "document.getElementById('monitor').getAttribute('data-state')" |
    node -e "const f=JSON.parse(require('fs').readFileSync(0,'utf8'));const v=f.verdict;
      console.log('$visit visit: verdict=' + v['data-verdict'] + ' vouched=' + v['data-vouched'] + ' monitor=' + f.evalResult +
        ' navigation_to_verdict_ms=' + f.msToVerdict + ' page_verdict_at_ms=' + v['data-ms-details'])"
done
rm -rf "$prof"
node tests/js/browser.cjs "http://127.0.0.1:$port/index.html" --timeout-ms 1200000 |
  node -e "const f=JSON.parse(require('fs').readFileSync(0,'utf8'));const v=f.verdict;
    console.log('log-size visit: verdict=' + v['data-verdict'] + ' tree_size=' + v['data-tree-size'] + ' navigation_to_verdict_ms=' + f.msToVerdict)"
