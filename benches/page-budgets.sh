#!/usr/bin/env bash
# What a stranger's browser fetches from a built exhibit (docs/tree.md "Answers in log n", issue
# 44's budgets): in headless Chromium over http, from a local static server that counts the bytes
# it sends, the page itself, a cold visit to the checkpoint's verdict, proving one message by its
# text (with and without the gate's trailer), by its digest and by an excerpt of its released
# text, and a returning visitor's consistency check from an older checkpoint. Each visit uses a
# fresh browser profile; bytes are what the server sent besides index.html. Beside them, the
# yardstick a stranger had before the tree: the ledger's bytes a full check fetches.
#
#   benches/page-budgets.sh SITE [OLD_CHECKPOINT]   e.g. the site benches/scale.sh built, and
#                                                   `git show HEAD~1:site/ledger/tree/checkpoint`
#
# Prints a Markdown table; WRITE_FIGURES=1 puts it into docs/scale-figures.md in place of the one
# for the same size. Budgets: page ≤ 2 MB; cold ≤ 256 KB; a proof ≤ 512 KB; consistency ≤ 64 KB.
# Needs python3, node, Chromium (tests/js/browser.cjs) and jq. No timed assertion: the seconds
# are reported, not judged.
set -euo pipefail
cd "$(dirname "$0")/.."
site=$(cd "${1:?usage: benches/page-budgets.sh SITE [OLD_CHECKPOINT]}" && pwd)
old=${2:-}
work=$(mktemp -d)
trap 'kill "$server" 2>/dev/null || true; rm -rf "$work"' EXIT
log=$work/requests.log
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
# A static server that appends "path bytes" for every answer it sends.
python3 - "$site" "$port" "$log" >/dev/null 2>&1 <<'PY' &
import http.server, sys, functools, os
site, port, log = sys.argv[1], int(sys.argv[2]), sys.argv[3]
class H(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *a): pass
    def copyfile(self, src, dst):
        n = 0
        while True:
            b = src.read(1 << 16)
            if not b: break
            dst.write(b); n += len(b)
        with open(log, 'a') as f: f.write(f"{self.path.split('?')[0].lstrip('/')} {n}\n")
    def send_head(self):
        r = super().send_head()
        if r is None:
            with open(log, 'a') as f: f.write(f"{self.path.split('?')[0].lstrip('/')} 0\n")
        return r
http.server.ThreadingHTTPServer(('127.0.0.1', port), functools.partial(H, directory=site)).serve_forever()
PY
server=$!
sleep 1
url="http://127.0.0.1:$port/index.html"
size=$(sed -n 2p "$site/ledger/tree/checkpoint")
page=$(wc -c <"$site/index.html")
ledger=$(find "$site/ledger" -path '*/tree' -prune -o -type f -name '*.jsonl' -printf '%s\n' | awk '{s += $1} END {print s}')

rows=()
# visit WHAT BUDGET [browser.cjs args...]: one visit with a fresh profile; the row says the bytes
# sent besides index.html, the files, the seconds to the settled page and what it answered.
visit() {
  local what=$1 budget=$2
  shift 2
  : >"$log"
  local prof
  prof=${PROFILE:-$(mktemp -d -p "$work")}
  local t0 t1
  t0=$(date +%s%N)
  node tests/js/browser.cjs "$url" --profile "$prof" --timeout-ms 600000 "$@" >"$work/facts.json"
  t1=$(date +%s%N)
  local bytes files answer
  # SHOW_FILES=1: each visit's largest files, on stderr.
  [ -z "${SHOW_FILES:-}" ] || { echo "== $what" && sort -k2 -n "$log" | tail -n 8; } >&2
  bytes=$(awk '$1 != "index.html" {s += $2} END {print s + 0}' "$log")
  files=$(awk '$1 != "index.html"' "$log" | wc -l)
  answer=$(jq -r '[.verdict["data-verdict"], (.pasteResult["data-kind"] // .pasteResult["data-match"] // empty), (.pasteResult["data-proof"] // empty)] | map(select(. != null)) | join(" / ")' "$work/facts.json")
  # The page's own milliseconds from the paste to its answer (proveLog's data-ms), once ready.
  local ms
  ms=$(jq -r '.pasteResult["data-ms"] // empty' "$work/facts.json")
  local verdict
  verdict=$(awk -v b="$bytes" -v l="$budget" 'BEGIN{print (b <= l ? "met" : "**not met**")}')
  rows+=("| $what | $bytes bytes in $files files | $(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.1f", (b - a) / 1e9}') s (browser start included)${ms:+; answered ${ms} ms after the paste} | $answer | ≤ $((budget / 1024)) KB | $verdict |")
}
enc() { python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.stdin.read(), safe=""))'; }

visit "cold visit to the checkpoint's verdict" 262144
# A released text, as a stranger who holds the message has it (with its trailer when it was sent
# with one), the same text without its trailer, its digest, and twelve words from its middle.
msg=$(find "$site/ledger/public_texts" -maxdepth 1 -name '*.txt' 2>/dev/null | sort | tail -n 1)
if [ -n "$msg" ]; then
  visit "prove by text, with its trailer" 524288 --fragment "#paste=$(enc <"$msg")"
  visit "prove by text, without its trailer" 524288 --fragment "#paste=$(sed -E 's/ ?\[gate: [^]]*\]$//' "$msg" | enc)"
  visit "prove by digest (its sent_sha256)" 524288 --fragment "#paste=$(basename "$msg" .txt | enc)"
fi
# Twelve words from the middle of a released text of 24 words or more (the newest by name), as
# the page and the excerpt index read words (verify.js's excerpt.words): found by the excerpt
# index (docs/tree.md#excerpts), its line proved and its text fetched and re-hashed. EXCERPT=…
# measures another.
excerpt=${EXCERPT:-}
[ -n "$excerpt" ] || excerpt=$(node -e '
  const fs = require("fs"), path = require("path"), E = require(path.resolve("assets/verify.js")).excerpt;
  const dir = process.argv[1];
  const names = fs.existsSync(dir) ? fs.readdirSync(dir).filter((n) => n.endsWith(".txt")).sort().reverse() : [];
  for (const n of names) {
    const w = E.words(fs.readFileSync(path.join(dir, n), "utf8"));
    if (w.length >= 24) { const s = Math.floor((w.length - 12) / 2); process.stdout.write(w.slice(s, s + 12).join(" ")); break; }
  }' "$site/ledger/public_texts")
if [ -n "$excerpt" ]; then
  visit "prove by an excerpt (12 words from the middle of a released text)" 524288 --fragment "#paste=$(printf '%s' "$excerpt" | enc)"
fi
# EXCERPT_SAMPLES=K (default 12): K more excerpts, each of EXCERPT_WORDS (default "12 20") words from the
# middle of K released texts of 24 words or more spread over the sorted names (a fixed pick),
# each a visit; one row with the most and the median bytes, the answers (`excerpt/included`
# found and proved; `none/-` with data-excerpt `crowded`: more texts share the words' keys than
# the page reads, and it asks for more words), and the most lines/ files one answer read.
samples=${EXCERPT_SAMPLES:-12}
for nwords in ${EXCERPT_WORDS:-12 20}; do
if [ "$samples" -gt 0 ] && [ -z "${EXCERPT:-}" ]; then
  node -e '
    const fs = require("fs"), path = require("path"), E = require(path.resolve("assets/verify.js")).excerpt;
    const dir = process.argv[1], k = Number(process.argv[2]), m = Number(process.argv[3]);
    const names = fs.existsSync(dir) ? fs.readdirSync(dir).filter((n) => n.endsWith(".txt")).sort() : [];
    const long = names.filter((n) => E.words(fs.readFileSync(path.join(dir, n), "utf8")).length >= Math.max(24, m));
    for (let i = 0; i < k && long.length; i++) {
      const w = E.words(fs.readFileSync(path.join(dir, long[Math.floor((i + 0.5) * long.length / k)]), "utf8"));
      const s = Math.floor((w.length - m) / 2);
      console.log(w.slice(s, s + m).join(" "));
    }' "$site/ledger/public_texts" "$samples" "$nwords" >"$work/excerpts.txt"
  sample_bytes=() sample_answers=() most_lines=0
  while IFS= read -r ex; do
    : >"$log"
    node tests/js/browser.cjs "$url" --profile "$(mktemp -d -p "$work")" --timeout-ms 600000 --fragment "#paste=$(printf '%s' "$ex" | enc)" >"$work/facts.json" </dev/null
    sample_bytes+=("$(awk '$1 != "index.html" {s += $2} END {print s + 0}' "$log")")
    sample_answers+=("$(jq -r '[(.pasteResult["data-match"] // "?"), (.pasteResult["data-proof"] // .pasteResult["data-excerpt"] // "-")] | join("/")' "$work/facts.json")")
    l=$(grep -c '^ledger/tree/lines/' "$log" || true)
    [ "$l" -le "$most_lines" ] || most_lines=$l
  done <"$work/excerpts.txt"
  if [ "${#sample_bytes[@]}" -gt 0 ]; then
    sorted=$(printf '%s\n' "${sample_bytes[@]}" | sort -n)
    max=$(tail -n 1 <<<"$sorted") med=$(sed -n "$(( (${#sample_bytes[@]} + 1) / 2 ))p" <<<"$sorted")
    answers=$(printf '%s\n' "${sample_answers[@]}" | sort | uniq -c | awk '{printf "%s%s× %s", (NR > 1 ? ", " : ""), $1, $2}')
    rows+=("| prove by an excerpt, ${#sample_bytes[@]} more ($nwords words from the middle of texts spread over the names) | most $max bytes, median $med; at most $most_lines lines/ file(s) an answer | | $answers | ≤ 512 KB | $(awk -v b="$max" 'BEGIN{print (b <= 524288 ? "met" : "**not met**")}') |")
  fi
fi
done
if [ -n "$old" ]; then
  # A returning visitor who last saw OLD: the cold visit saves today's checkpoint; it is made
  # the old one, and the next visit with the same profile proves consistency from it.
  prof=$(mktemp -d -p "$work")
  o_origin=$(sed -n 1p "$old") o_size=$(sed -n 2p "$old") o_root=$(sed -n 3p "$old")
  o_head=$(sed -n 's/^exhibit-head [0-9]* //p' "$old")
  node tests/js/browser.cjs "$url" --profile "$prof" --timeout-ms 600000 --eval "(function(){var k='exhibit-tree:v1:$url';var m=JSON.parse(localStorage.getItem(k));m.origin='$o_origin';m.size=$o_size;m.root='$o_root';m.head='$o_head';localStorage.setItem(k,JSON.stringify(m));return 1;})()" >/dev/null
  PROFILE=$prof visit "a returning visitor's consistency check (from $o_size seqs)" 65536
fi

table=$(mktemp)
{
  echo "<!-- page-budgets $size -->"
  echo "### A stranger's browser at $size seqs"
  echo
  echo "\`benches/page-budgets.sh\` on a site of $size seqs, headless Chromium over http from 127.0.0.1; the page (\`index.html\`) weighs $page bytes (budget ≤ 2 MB: $(awk -v b="$page" 'BEGIN{print (b <= 2097152 ? "met" : "**not met**")}')); a full check fetches $ledger bytes of ledger files and more; exhibit $(git rev-parse --short HEAD 2>/dev/null || echo '?')."
  echo
  echo "| visit | fetched besides the page | time | answer | budget | |"
  echo "|---|---|---|---|---|---|"
  printf '%s\n' "${rows[@]}"
  echo "<!-- /page-budgets $size -->"
} >"$table"
cat "$table"
if [ -n "${WRITE_FIGURES:-}" ]; then
  python3 - "$table" docs/scale-figures.md "$size" <<'PY'
import re, sys, pathlib
table, doc, n = pathlib.Path(sys.argv[1]).read_text(), pathlib.Path(sys.argv[2]), sys.argv[3]
text = doc.read_text()
pat = re.compile(r"<!-- page-budgets %s -->.*?<!-- /page-budgets %s -->\n?" % (n, n), re.S)
text = pat.sub(lambda _: table, text) if pat.search(text) else text.rstrip("\n") + "\n\n" + table
doc.write_text(text)
PY
fi
rm -f "$table"
