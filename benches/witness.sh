#!/usr/bin/env bash
# Times `exhibit build` on a generated 1M-line box, without and with --witness (release build).
# Peak RSS from /usr/bin/time -v. Usage: benches/witness.sh [LINES] [WORKDIR]
set -euo pipefail
LINES=${1:-1000000}
WORK=${2:-/tmp/box1m}
cd "$(dirname "$0")/.."
cargo build --release --bin exhibit --example gen-box
if [ ! -f "$WORK/exhibit.toml" ]; then
  rm -rf "$WORK"
  /usr/bin/time -v target/release/examples/gen-box --lines "$LINES" --seed 1 --out "$WORK" >"$WORK.summary.json" 2>"$WORK.gen.time" \
    || { cat "$WORK.gen.time"; exit 1; }
  grep -E 'Elapsed|Maximum resident' "$WORK.gen.time"
fi
export SOURCE_DATE_EPOCH=1800000000
run() {
  local name=$1; shift
  rm -rf "$WORK-site-$name"
  /usr/bin/time -v target/release/exhibit build --config "$WORK/exhibit.toml" --out "$WORK-site-$name" "$@" \
    >"$WORK.$name.out" 2>"$WORK.$name.time" || { tail -20 "$WORK.$name.time"; exit 1; }
  echo "== $name: $(tail -1 "$WORK.$name.out")"
  grep -E 'Elapsed \(wall|Maximum resident' "$WORK.$name.time"
}
# [publish] witness in the generated exhibit.toml is overridden off by pointing at no store:
# the plain build uses a copy of the config without that line.
grep -v '^witness' "$WORK/exhibit.toml" >"$WORK/exhibit-nowitness.toml"
rm -rf "$WORK-site-plain"
/usr/bin/time -v target/release/exhibit build --config "$WORK/exhibit-nowitness.toml" --out "$WORK-site-plain" \
  >"$WORK.plain.out" 2>"$WORK.plain.time" || { tail -20 "$WORK.plain.time"; exit 1; }
echo "== plain: $(tail -1 "$WORK.plain.out")"
grep -E 'Elapsed \(wall|Maximum resident' "$WORK.plain.time"
run witness --witness "$WORK/wt/store"
du -sh "$WORK-site-plain" "$WORK-site-witness" "$WORK/wt/store"
