#!/usr/bin/env bash
# The identifier guard's cost on a build (issue 10): times `exhibit build` of one box with two
# binaries (before and after a guard change), interleaved, three runs each, keeping each one's
# lowest user time; without layers and with --public-texts. Also prints how many lines and texts
# each withholds, so a cost is never bought with a silent change of what is published.
#
#   benches/guard.sh BEFORE_BIN AFTER_BIN [BOX]     BOX default: /tmp/box100k
#   (a box: cargo run --release --example gen-box -- --lines 100000 --seed 1 --out /tmp/box100k)
#
# Needs GNU time (/usr/bin/time).
set -euo pipefail
before=$1 after=$2 box=${3:-/tmp/box100k}
T=/usr/bin/time
[ -x "$T" ] || { echo "benches/guard.sh needs GNU time: apt-get install -y time" >&2; exit 2; }
grep -v '^witness' "$box/exhibit.toml" >"$box/exhibit-nolayers.toml"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

run() { # label bin flags... -> "user wall peak_kb"
  local bin=$2 site t0 t1 res
  site="$out/site-$1"
  rm -rf "$site"
  t0=$EPOCHREALTIME
  res=$("$T" -f "%U %M" "$bin" build --config "$box/exhibit-nolayers.toml" --out "$site" "${@:3}" 2>&1 >/dev/null | tail -n 1)
  t1=$EPOCHREALTIME
  read -r u m <<<"$res"
  echo "$u $(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.3f", b-a}') $m"
}

printf '%-34s %8s %8s %10s %9s %9s\n' "build" "user s" "wall s" "peak MiB" "withheld" "texts w/h"
for flags in "" "--public-texts"; do
  declare -A best=()
  for _ in 1 2 3; do
    for which in before after; do
      bin=$before; [ "$which" = after ] && bin=$after
      read -r u w m < <(run "$which" "$bin" $flags)
      key="$which"
      if [ -z "${best[$key]:-}" ] || awk -v a="$u" -v b="${best[$key]%% *}" 'BEGIN{exit !(a<b)}'; then
        best[$key]="$u $w $m"
      fi
    done
  done
  for which in before after; do
    read -r u w m <<<"${best[$which]}"
    site="$out/site-$which"
    bin=$before; [ "$which" = after ] && bin=$after
    run "$which" "$bin" $flags >/dev/null
    lines=$(grep -c '"seq":' "$site/ledger/withheld.json" || true)
    texts=$( [ -f "$site/ledger/public_texts/index.json" ] && python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['withheld']))" "$site/ledger/public_texts/index.json" || echo -)
    printf '%-34s %8s %8s %10s %9s %9s\n' "$which ${flags:-(no layers)}" "$u" "$w" "$(awk -v k="$m" 'BEGIN{printf "%.1f", k/1024}')" "$lines" "$texts"
  done
  unset best
done
