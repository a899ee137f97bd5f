#!/usr/bin/env bash
# Measures `exhibit verify` and `exhibit build` against a fixed yardstick, `openssl dgst -sha256`
# over the same file, in the same run (issue 2 and 3 "Performance"). Reports ratios of user CPU
# time (steadier than wall time on a shared machine) and wall time, and peak memory.
#
#   benches/verify.sh [LINES ...]        default: 100000 1000000
#
# Needs: openssl, GNU time (/usr/bin/time). Boxes are generated under ${BENCH_DIR:-/tmp/exhibit-bench}.
set -euo pipefail
cd "$(dirname "$0")/.."
sizes=("${@:-100000 1000000}")
[ $# -eq 0 ] && sizes=(100000 1000000)
dir=${BENCH_DIR:-/tmp/exhibit-bench}
mkdir -p "$dir"
cargo build -q --release --example gen-box
cargo build -q --release
bin=target/release/exhibit
T=/usr/bin/time
[ -x "$T" ] || { echo "benches/verify.sh needs GNU time: apt-get install -y time" >&2; exit 2; }

measure() { # label, command... -> "label user_s wall_s peak_kb"
  local out t0 t1
  t0=$EPOCHREALTIME
  out=$("$T" -f "%U %M" "${@:2}" 2>&1 >/dev/null | tail -n 1)
  t1=$EPOCHREALTIME
  read -r u m <<<"$out"
  echo "$1 $u $(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.3f", b-a}') $m"
}

printf '%-28s %10s %10s %10s %12s %12s\n' "what" "lines" "user s" "wall s" "peak MiB" "wall x openssl"
for n in "${sizes[@]}"; do
  box="$dir/box-$n"
  if [ ! -f "$box/gate/ledger.jsonl" ]; then
    rm -rf "$box"
    target/release/examples/gen-box --lines "$n" --seed 1 --out "$box" >/dev/null
  fi
  ledger="$box/gate/ledger.jsonl"
  cat "$ledger" >/dev/null # warm the page cache for both
  best() { # run 3 times, keep the lowest user time
    local label=$1; shift
    local bu= bw=999999 bm=
    for _ in 1 2 3; do
      read -r _ u w m < <(measure "$label" "$@")
      if awk -v a="$w" -v b="$bw" 'BEGIN{exit !(a<b)}'; then bu=$u; bw=$w; bm=$m; fi
    done
    echo "$bu $bw $bm"
  }
  read -r ou ow om < <(best openssl openssl dgst -sha256 "$ledger")
  read -r vu vw vm < <(best verify "$bin" verify "$ledger")
  site="$dir/site-$n"
  rm -rf "$site"
  # No layers: the generated exhibit.toml names a witness store; a copy without it.
  grep -v '^witness' "$box/exhibit.toml" >"$box/exhibit-nolayers.toml"
  read -r bu bw bm < <(best build "$bin" build --config "$box/exhibit-nolayers.toml" --out "$site")
  ratio() { awk -v a="$1" -v b="$2" 'BEGIN{ if (b<=0) b=0.01; printf "%.1f", a/b }'; }
  mib() { awk -v k="$1" 'BEGIN{printf "%.1f", k/1024}'; }
  size=$(stat -c %s "$ledger")
  printf '%-28s %10s %10s %10s %12s %12s\n' "openssl dgst -sha256" "$n" "$ou" "$ow" "$(mib "$om")" "1.0"
  printf '%-28s %10s %10s %10s %12s %12s\n' "exhibit verify" "$n" "$vu" "$vw" "$(mib "$vm")" "$(ratio "$vw" "$ow")"
  printf '%-28s %10s %10s %10s %12s %12s\n' "exhibit build (no layers)" "$n" "$bu" "$bw" "$(mib "$bm")" "$(ratio "$bw" "$ow")"
  echo "  ledger: $size bytes"
done
