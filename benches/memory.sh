#!/usr/bin/env bash
# The first build's memory and time (issue 12, item 4; docs/scale.md#memory): a generated box of
# N lines with the witness layer (a proof per line) built into an empty folder, beside two
# yardsticks in the same run: `openssl dgst -sha256` of the gate's ledger and `exhibit verify` of
# it (best of three by CPU time). No git repository and no commit: what is measured is the build
# alone, so it runs at a million lines where benches/scale.sh (which commits every day) would take
# an hour. Peak is GNU time's maximum resident set size; the largest published file is printed
# too (no file may pass 32 MiB).
#
#   benches/memory.sh [LINES ...]       default: 100000
#
# EXHIBIT_BIN=path measures another build of exhibit against the same boxes (e.g. one made from
# an older commit). Boxes are generated under ${BENCH_DIR:-/tmp/exhibit-bench} (a 1M-line box
# takes 6.6 GB; the built site another 6 GB). Needs GNU time (/usr/bin/time) and openssl.
set -euo pipefail
cd "$(dirname "$0")/.."
sizes=("$@")
[ $# -eq 0 ] && sizes=(100000)
dir=${BENCH_DIR:-/tmp/exhibit-bench}
mkdir -p "$dir"
# shellcheck source=benches/measure.sh
. benches/measure.sh # the scripts run from the repository root (cd above)
setup_bench memory
command -v openssl >/dev/null || { echo "benches/memory.sh needs openssl" >&2; exit 2; }

row() { row_of 28 "$@"; }
best_of_three() { # log, command... -> the run with the lowest CPU time
  local log=$1 best="" cpu wall peak
  shift
  for _ in 1 2 3; do
    read -r cpu wall peak < <(measure "$log" "$@")
    if [ -z "$best" ] || awk -v a="$cpu" -v b="${best%% *}" 'BEGIN{exit !(a<b)}'; then
      best="$cpu $wall $peak"
    fi
  done
  echo "$best"
}

export SOURCE_DATE_EPOCH=1800000000
heading_of 28
for n in "${sizes[@]}"; do
  box="$dir/memory-box-$n"
  if [ ! -f "$box/gate/ledger.jsonl" ]; then
    rm -rf "$box"
    "$gen" --lines "$n" --seed 1 --out "$box" >/dev/null
  fi
  ledger="$box/gate/ledger.jsonl"
  cat "$ledger" >/dev/null # warm the page cache
  read -r oc ow om < <(best_of_three "$dir/openssl.log" openssl dgst -sha256 "$ledger")
  read -r vc vw vm < <(best_of_three "$dir/verify.log" "$bin" verify "$ledger")
  row "openssl dgst -sha256" "$n" "$oc" "$ow" "$om" "$vc" "$vw"
  row "exhibit verify (yardstick)" "$n" "$vc" "$vw" "$vm" "$vc" "$vw"
  site="$dir/memory-site-$n"
  rm -rf "$site"
  read -r c w m < <(measure "$dir/build-$n.log" env -C "$box" "$bin" build --out "$site")
  row "first build, witness layer" "$n" "$c" "$w" "$m" "$vc" "$vw"
  echo "  $(tail -n 1 "$dir/build-$n.log")"
  largest=$(find "$site" -type f -printf '%s %P\n' | sort -n | tail -n 1)
  echo "  site: $(du -sh "$site" | cut -f1), $(find "$site" -type f | wc -l) files; largest: ${largest#* } (${largest%% *} bytes)"
  rm -rf "$site"
done
