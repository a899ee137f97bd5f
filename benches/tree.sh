#!/usr/bin/env bash
# A stranger's answers in log n (docs/tree.md): on a built exhibit, what `exhibit prove` reads
# to prove one line by seq, by a message's digest, and by a message's text with its trailer, and
# to check a consistency proof from an older checkpoint — bytes and files read (the files a light
# page fetches for the same answer), and CPU seconds against `exhibit verify SITE` of the same
# folder in the same run (the yardstick: what a stranger paid before the tree). The issue's
# budgets (issue 44): prove ≤ 512 KB, consistency ≤ 64 KB, whatever the size.
#
#   benches/tree.sh SITE [OLD_CHECKPOINT]     e.g. the site benches/scale.sh built
#
# Prints a Markdown table; WRITE_FIGURES=1 puts it into docs/scale-figures.md in place of the one
# for the same size. Needs GNU time, jq.
set -euo pipefail
cd "$(dirname "$0")/.."
site=${1:?usage: benches/tree.sh SITE [OLD_CHECKPOINT]}
old=${2:-}
bin=${EXHIBIT_BIN:-target/release/exhibit}
[ -x "$bin" ] || cargo build --release -q
size=$(sed -n 2p "$site/ledger/tree/checkpoint")
t() { /usr/bin/time -f "%U %S %M" -o /tmp/exhibit-tree-bench.time "$@"; }
# GNU time puts "Command exited with non-zero status" first when the command fails: the figures
# are its last line.
cpu() { tail -n 1 /tmp/exhibit-tree-bench.time | awk '{printf "%.2f", $1 + $2}'; }
mem() { tail -n 1 /tmp/exhibit-tree-bench.time | awk '{printf "%.0f", $3 / 1024}'; }

t "$bin" verify --json "$site" >/tmp/exhibit-tree-bench.verify || true
vc=$(cpu) vm=$(mem)
verify_bytes=$(find "$site/ledger" -path '*/tree' -prune -o -type f -name '*.jsonl' -printf '%s\n' | awk '{s += $1} END {print s}')

# Lines to prove: a seq near the start, the middle and the head; a send line's sent_sha256 from
# the last lines file (read as a stranger would find one: from the published lines).
last_lines=$(find "$site/ledger/tree/lines" -type f | sort | tail -n 1)
send=$(grep '"sent_sha256"' "$last_lines" | tail -n 1)
digest=$(jq -r .sent_sha256 <<<"$send")
send_seq=$(jq -r .seq <<<"$send")
# A released text, as a stranger who holds the message has it (with its trailer when it was sent
# with one); none when the exhibit releases no text.
msg=$(find "$site/ledger/public_texts" -maxdepth 1 -name '*.txt' 2>/dev/null | sort | tail -n 1)

rows=()
answer() {
  local what=$1 budget=$2
  shift 2
  t "$bin" prove --site "$site" --json "$@" >/tmp/exhibit-tree-bench.json || true
  local b f ok
  b=$(jq .bytes_read /tmp/exhibit-tree-bench.json)
  f=$(jq .files_read /tmp/exhibit-tree-bench.json)
  ok=$(jq -r 'if .consistency then (.consistency.holds|tostring) else ([.found[].included]|any|tostring) end' /tmp/exhibit-tree-bench.json)
  local verdict
  verdict=$(awk -v b="$b" -v l="$budget" 'BEGIN{print (b <= l ? "met" : "**not met**")}')
  rows+=("| $what | $b bytes in $f files; proved: $ok | $(cpu) s CPU = $(awk -v a="$(cpu)" -v v="$vc" 'BEGIN{printf "%.3f", (v > 0 ? a / v : 0)}')× verify, $(mem) MiB | ≤ $((budget / 1024)) KB | $verdict |")
}
answer "prove by seq (seq 2)" 524288 --seq 2
answer "prove by seq (the middle)" 524288 --seq $((size / 2))
answer "prove by seq (the head)" 524288 --seq "$size"
answer "prove by digest (a sent_sha256, through the index)" 524288 --sha256 "$digest"
if [ -n "$msg" ]; then
  answer "prove by text (a released text$(grep -q 'ledger [0-9]*]' "$msg" && echo ', with its trailer'))" 524288 --text "$msg"
fi
if [ -n "$old" ]; then
  answer "consistency from an older checkpoint ($(sed -n 2p "$old") seqs)" 65536 --since "$old"
fi
table=$(mktemp)
{
  echo "<!-- tree $size -->"
  echo "### A stranger's answers at $size seqs"
  echo
  echo "\`benches/tree.sh\` on a site of $size seqs ($(du -sh --apparent-size "$site/ledger/tree" | cut -f1) of tree in $(find "$site/ledger/tree" -type f | wc -l) files); the yardstick, \`exhibit verify SITE\`, reads $verify_bytes bytes of ledger files and more: $vc s CPU, $vm MiB; exhibit $(git rev-parse --short HEAD 2>/dev/null || echo '?')."
  echo
  echo "| answer | read | cost | budget | |"
  echo "|---|---|---|---|---|"
  printf '%s\n' "${rows[@]}"
  echo "<!-- /tree $size -->"
} >"$table"
cat "$table"
if [ -n "${WRITE_FIGURES:-}" ]; then
  python3 - "$table" docs/scale-figures.md "$size" <<'PY'
import re, sys, pathlib
table, doc, n = pathlib.Path(sys.argv[1]).read_text(), pathlib.Path(sys.argv[2]), sys.argv[3]
text = doc.read_text()
pat = re.compile(r"<!-- tree %s -->.*?<!-- /tree %s -->\n" % (n, n), re.S)
text = pat.sub(lambda _: table, text) if pat.search(text) else text + table + "\n"
doc.write_text(text)
PY
fi
rm -f "$table"
