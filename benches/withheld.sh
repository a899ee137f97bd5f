#!/usr/bin/env bash
# The withheld list at scale (docs/scale.md#withheld-files): a generated box whose ordinary lines
# mostly carry an identifier's shape, so the build withholds them — a short published ledger and
# a long withheld list, the case the ledger's own threshold never cuts. Built into an empty
# folder; reported: the build's CPU and wall seconds and peak memory beside `exhibit verify` of
# the same ledger (the yardstick), the withheld list's files, the largest published file and the
# page's size, and `exhibit verify SITE` of what was built.
#
#   benches/withheld.sh [LINES [PER_MILLE]]       default: 200000 500
#
# EXHIBIT_BIN=path measures another build of exhibit (e.g. one made from an older commit) on the
# same box. Boxes are generated under ${BENCH_DIR:-/tmp/exhibit-bench}. Needs GNU time.
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-200000}
per_mille=${2:-500}
dir=${BENCH_DIR:-/tmp/exhibit-bench}
mkdir -p "$dir"
# shellcheck source=benches/measure.sh
. benches/measure.sh # the scripts run from the repository root (cd above)
setup_bench withheld
export SOURCE_DATE_EPOCH=1800000000

box="$dir/withheld-box-$n-$per_mille"
if [ ! -f "$box/gate/ledger.jsonl" ]; then
  rm -rf "$box"
  "$gen" --lines "$n" --seed 5 --no-witness --ident-per-mille "$per_mille" --out "$box" >/dev/null
fi
site="$dir/withheld-site-$n-$per_mille"
rm -rf "$site"

read -r vc vw vm < <(measure "$dir/withheld-verify.log" "$bin" verify "$box/gate/ledger.jsonl")
read -r bc bw bm < <(measure "$dir/withheld-build.log" "$bin" build --config "$box/exhibit.toml" --out "$site")
read -r sc sw sm < <(measure "$dir/withheld-verify-site.log" "$bin" verify "$site") || true

heading_of 34
row_of 34 "exhibit verify (the gate's ledger)" "$n" "$vc" "$vw" "$vm" "$vc" "$vw"
row_of 34 "first build" "$n" "$bc" "$bw" "$bm" "$vc" "$vw"
row_of 34 "exhibit verify SITE" "$n" "$sc" "$sw" "$sm" "$vc" "$vw"
echo
grep -o '[0-9]* of [0-9]* lines published, [0-9]* withheld' "$dir/withheld-build.log" || true
echo "the withheld list's files (bytes):"
find "$site/ledger" -maxdepth 2 \( -name withheld.json -o -path '*/withheld/*.json' \) -printf '  %s %P\n' | sort -k2
echo "the largest published files (bytes):"
# (sort is cut short by head: not a failure)
find "$site" -type f -printf '  %s %P\n' | sort -rn | head -n 3 || true
over=$(find "$site" -type f -size +32M | wc -l)
echo "files over 32 MiB: $over"
