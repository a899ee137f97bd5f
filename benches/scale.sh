#!/usr/bin/env bash
# The daily rebuild's cost (issue 12, item 4): a first build of N lines with both layers (the
# witness layer and public texts), committed in a temporary git repository; then two days of
# N/100 more lines each (a busy agent's day at scale), each rebuilt and committed — the first of
# them fills the cache of HEAD's blob digests (docs/scale.md#the-daily-rebuilds-cost), the second
# is the steady daily rebuild; then a rebuild with nothing new. The yardstick is `exhibit verify`
# of the longest ledger, in the same run. `git add` + `git commit` after each build are shown too
# (the operator's daily step: git's cost, not exhibit's), and the dry run that reviews the
# second day before it is built.
#
# Each day's build reads the witness store as it stood that day: the box's store cut in time
# (gen-box --store-lines; docs/scale.md#the-benchs-stores) — the tail's runs, records and proofs
# up to the moment the ledger held that day's lines, read with the last two lines not seen yet
# (tail lag), as the box's own store is read beside the whole ledger. So no day sees a record of
# a line it does not hold, its run log is the next day's prefix, and proofs stamped the last
# three hours are pending until a later day upgrades them. Day 2's store, and the nothing-new
# rebuild's, is the box's own, byte for byte (the store the bench always measured the daily
# rebuild with). The three days read one store folder beside the box, moved on between the days
# (outside the measured commands) by the files the tail wrote in between, so a proof a build
# has checked keeps its file as in an operator's store; what each day's store differs by is
# made once and kept beside the box, like the box.
#
#   benches/scale.sh [LINES ...]        default: 20000 100000
#
# Reports CPU seconds (user + system: steadier than wall time on a shared machine), wall
# seconds, peak RSS (GNU time's "Maximum resident set size"), and each as a ratio to verify.
# EXHIBIT_BIN=path measures another build of exhibit (e.g. one made from an older commit)
# against the same boxes. COLD=1 empties the page cache before each verify and build (needs
# root: writes /proc/sys/vm/drop_caches): the daily build on a small machine, a day after the
# last, finds little of the exhibit or the box in memory. Boxes are generated under ${BENCH_DIR:-/tmp/exhibit-bench}.
# Each build runs with EXHIBIT_STAGE_TIMES=1: its log (under the box's work folder) says where
# its time and memory went, stage by stage (docs/scale.md#stage-times); the nothing-new
# rebuild's stages are printed after its row.
# Then the issue's targets for that size, as a Markdown table (ratios to verify, the first
# build against its floor: verify + a plain `cp -r` of its own output to a fresh folder on the
# same disk; peak memory; the largest published file; the longest SNAPSHOTS.jsonl line; whether
# the nothing-new rebuild left `git status` clean). WRITE_FIGURES=1 writes that table into
# docs/scale-figures.md in place of the one for the same size (the figures in the docs are the
# bench's, regenerated, not typed).
# Needs GNU time (/usr/bin/time) and git.
set -euo pipefail
cd "$(dirname "$0")/.."
sizes=("$@")
[ $# -eq 0 ] && sizes=(20000 100000)
dir=${BENCH_DIR:-/tmp/exhibit-bench}
mkdir -p "$dir"
# shellcheck source=benches/measure.sh
. benches/measure.sh # the scripts run from the repository root (cd above)
setup_bench scale
row() { row_of 34 "$@"; }
cold_cache() {
  [ -n "${COLD:-}" ] || return 0
  sync
  echo 3 >/proc/sys/vm/drop_caches || { echo "COLD=1 needs root (/proc/sys/vm/drop_caches)" >&2; exit 2; }
}

export SOURCE_DATE_EPOCH=1800000000
export EXHIBIT_STAGE_TIMES=1
heading_of 34
for n in "${sizes[@]}"; do
  day=$((n / 100))
  total=$((n + 2 * day))
  box="$dir/scale-box-$total"
  if [ ! -f "$box/gate/ledger.jsonl" ]; then
    rm -rf "$box"
    "$gen" --lines "$total" --seed 1 --out "$box" >/dev/null
  fi
  # Each day's witness store as the tail had left it when the ledger held that day's lines
  # (gen-box --store-lines: the box's store cut in time; docs/scale.md#the-benchs-stores), kept
  # beside the box as the files by which it differs from the store it is laid over — day 0's
  # over the box's own store (which day 2's is, byte for byte), each later day's over the day
  # before's — and the files to take away first (day 0's: the proofs of lines not stamped
  # yet). Made once, like the box; the .remove file, moved in last, marks a delta complete.
  days_lines=("$n" $((n + day)) "$total")
  over_lines=("$total" "$n" $((n + day)))
  deltas=()
  for d in 0 1 2; do
    delta="$box/wt/days/${days_lines[$d]}.over.${over_lines[$d]}"
    deltas+=("$delta")
    [ -f "$delta.remove" ] && continue
    rm -rf "$delta" "$delta.tmp"
    mkdir -p "$box/wt/days"
    "$gen" --lines "$total" --seed 1 --out "$box" --store-lines "${days_lines[$d]}" \
      --store-out "$delta.tmp" --store-over "${over_lines[$d]}" >"$delta.tmp.remove" 2>"$delta.log" ||
      { cat "$delta.log" >&2; exit 1; }
    mv "$delta.tmp" "$delta"
    mv "$delta.tmp.remove" "$delta.remove"
  done
  # Day 0 sees the first n lines, day 1 n + day, day 2 all of them, each with the anchor posts
  # of the days its lines close; all read the same sources and gate config, and one store
  # folder the bench moves from day to day as the tail would (below).
  work="$dir/scale-$n"
  rm -rf "$work"
  mkdir -p "$work/repo"
  store="$box/wt/bench-store"
  for d in 0 1 2; do
    mkdir -p "$work/day$d/anchors"
    head -n $((n + d * day + 1)) "$box/gate/ledger.jsonl" >"$work/day$d/ledger.jsonl"
    last_day=$(tail -n 1 "$work/day$d/ledger.jsonl" | grep -o '"day":"[0-9-]*"' | head -n 1 | cut -d'"' -f4)
    for post in "$box"/gate/anchors/*.txt; do
      date=$(basename "$post" .txt)
      if [[ "$date" < "$last_day" ]]; then
        cp "$post" "$work/day$d/anchors/"
        if [ -f "$post.ots" ]; then cp "$post.ots" "$work/day$d/anchors/"; fi
      fi
    done
    cat >"$work/day$d.toml" <<EOF
[gate]
ledger = "$work/day$d/ledger.jsonl"
config = "$box/gate/config.json"
sources = "$box/gate/sources"
anchors = "$work/day$d/anchors"

[publish]
witness = "$store"
public_texts = true
EOF
  done
  git -C "$work/repo" init -q
  git -C "$work/repo" config user.email bench@example.invalid
  git -C "$work/repo" config user.name bench
  # No background gc after a commit: it would be measured in the next build, and race `rm -rf`.
  git -C "$work/repo" config gc.auto 0
  git -C "$work/repo" config maintenance.auto false
  # The store is one folder that each day finds as the tail left it: a proof unchanged since
  # the last build keeps its file (the build's record of the store's proofs spares reading it,
  # as an operator's does), a new or upgraded one is written. A copy, not hard links: a build
  # refuses a store file with a second name ([hard_link], docs/witness.md). Kept beside the box
  # and wound back to day 0 at the next run (day 0's delta holds, over any later day's store,
  # every file that differs), so the box's proofs are copied once, not every run; $store.day
  # names the day it holds, and is missing while a day is being laid.
  lay_store() { # day: brings $store from the day before's (or a later day's) to that day's
    rm -f "$store.day"
    (cd "$store" && xargs -r rm -f -- <"${deltas[$1]}.remove")
    cp -r "${deltas[$1]}/." "$store/"
    sync # the copy's writes are not the build's
    echo "$1" >"$store.day"
  }
  if [ ! -f "$store.day" ]; then
    rm -rf "$store"
    cp -r "$box/wt/store" "$store"
  fi
  lay_store 0
  full_ledger="$box/gate/ledger.jsonl"
  cat "$full_ledger" >/dev/null # warm the page cache
  best_verify() { # three runs, the lowest CPU time
    local best="" cpu wall peak
    for _ in 1 2 3; do
      cold_cache
      read -r cpu wall peak < <(measure "$work/verify.log" "$bin" verify "$full_ledger")
      if [ -z "$best" ] || awk -v a="$cpu" -v b="${best%% *}" 'BEGIN{exit !(a<b)}'; then
        best="$cpu $wall $peak"
      fi
    done
    echo "$best"
  }
  read -r vc vw vm < <(best_verify)
  row "exhibit verify (yardstick)" "$total" "$vc" "$vw" "$vm" "$vc" "$vw"
  for d in 0 1 2; do
    export SOURCE_DATE_EPOCH=$((1800000000 + d * 86400))
    case $d in
      0) what="first build" ;;
      1) what="day 1 (+$day lines; fills the cache)" ;;
      2) what="daily rebuild (+$day lines)" ;;
    esac
    if [ "$d" != 0 ]; then
      lay_store "$d"
    else
      # The first publication's review, as data: every file and diff listed (a 537 MB object at
      # a million lines: docs/scale.md#review-as-data), its peak among the builds'.
      cold_cache
      read -r fdc fdw fdm < <(measure "$work/dry0.log" bash -c 'cd "$1" && exec "$2" build --config "$3" --out site --dry-run --json > /dev/null' dry "$work/repo" "$bin" "$work/day0.toml")
    fi
    if [ "$d" = 2 ]; then
      # Day 2's store is the box's own, as the bench has always measured the daily rebuild with.
      for f in index.json runs.jsonl REPORT.md seal.jsonl WITNESS_PREREG.md; do
        cmp -s "$store/$f" "$box/wt/store/$f" || { echo "day 2's store is not the box's: $f differs" >&2; exit 1; }
      done
      [ "$(ls "$store/proofs" | wc -l)" = "$(ls "$box/wt/store/proofs" | wc -l)" ] || { echo "day 2's store is not the box's: proofs/ differs" >&2; exit 1; }
      # The operator's daily review before the build (README: typical use): the dry run.
      cold_cache
      read -r dc dw dm < <(measure "$work/dry$d.log" env -C "$work/repo" "$bin" build --config "$work/day$d.toml" --out site --dry-run)
    fi
    cold_cache
    read -r c w m < <(measure "$work/day$d.log" env -C "$work/repo" "$bin" build --config "$work/day$d.toml" --out site)
    row "$what" "$((n + d * day))" "$c" "$w" "$m" "$vc" "$vw"
    eval "c$d=$c w$d=$w m$d=$m"
    if [ "$d" = 0 ]; then
      # The floor of making that many files: a plain copy of the build's own output.
      rm -rf "$work/copy"
      read -r fc fw fm < <(measure "$work/copy.log" cp -r "$work/repo/site" "$work/copy")
      rm -rf "$work/copy"
      row "  cp -r of its output (the floor)" "" "$fc" "$fw" "$fm" "$vc" "$vw"
      row "  its dry run as data (--json), run before it" "" "$fdc" "$fdw" "$fdm" "$vc" "$vw"
    fi
    if [ "$d" = 2 ]; then
      row "  its dry run, run before it" "" "$dc" "$dw" "$dm" "$vc" "$vw"
    fi
    read -r c w m < <(measure "$work/day$d-commit.log" bash -c 'git -C "$1" add -A site && git -C "$1" commit -q -m "$2"' commit "$work/repo" "day $d")
    row "  git add + commit" "" "$c" "$w" "$m" "$vc" "$vw"
  done
  export SOURCE_DATE_EPOCH=$((1800000000 + 3 * 86400))
  cold_cache
  read -r c w m < <(measure "$work/same.log" env -C "$work/repo" "$bin" build --config "$work/day2.toml" --out site)
  row "rebuild, nothing new" "$total" "$c" "$w" "$m" "$vc" "$vw"
  cs=$c ws=$w ms=$m
  grep '^exhibit: stage ' "$work/same.log" | sed 's/^exhibit: stage /    /' || true
  echo "  $(grep -v '^exhibit: stage ' "$work/day2.log" | tail -n 1)"
  echo "  site: $(du -sh "$work/repo/site" | cut -f1), $(find "$work/repo/site" -type f | wc -l) files"
  clean=$([ -z "$(git -C "$work/repo" status --porcelain site)" ] && echo yes || echo no)
  largest=$(find "$work/repo/site" -type f -printf '%s %P\n' | sort -n | tail -n 1)
  snapline=$(awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }' "$work/repo/site/ledger/SNAPSHOTS.jsonl")
  page=$(stat -c %s "$work/repo/site/index.html")
  # The proofs' folders of a segmented exhibit (docs/witness.md); the flat folder holds what a
  # one-file exhibit published before it was segmented, and never moves.
  bucket=$(find "$work/repo/site/ledger/witness/proofs" -mindepth 1 -type d -exec sh -c 'find "$1" -maxdepth 1 -type f | wc -l' _ {} \; 2>/dev/null | sort -n | tail -n 1)
  flat=$(find "$work/repo/site/ledger/witness/proofs" -maxdepth 1 -type f 2>/dev/null | wc -l)
  peak=$(printf '%s\n' "$m0" "$m1" "$m2" "$dm" "$fdm" "$ms" | sort -n | tail -n 1)
  floor=$(awk -v a="$vc" -v b="$fc" 'BEGIN{printf "%.2f", a + b}')
  verdict() { awk -v a="$1" -v b="$2" 'BEGIN{ print (a <= b ? "met" : "**not met**") }'; }
  table="$dir/scale-figures-$n.md"
  {
    echo "<!-- scale $n -->"
    echo "### $total lines (first build at $n, two days of +$day, then nothing new)"
    echo
    echo "\`benches/scale.sh $n\`, both layers, warm page cache; CPU seconds (user + system); $(nproc) cores; exhibit $(git rev-parse --short HEAD 2>/dev/null || echo '?')."
    echo
    echo "| what | figure | target | |"
    echo "|---|---|---|---|"
    echo "| \`exhibit verify\` of the gate's ledger (the yardstick) | $vc s, $(mib "$vm") MiB | | |"
    echo "| daily rebuild (+$day lines) | $c2 s = $(ratio "$c2" "$vc")× verify | ≤ 3× | $(verdict "$c2" "$(awk -v v="$vc" 'BEGIN{print 3*v}')") |"
    echo "| nothing new, right after a commit | $cs s = $(ratio "$cs" "$vc")× verify; \`git status\` clean: $clean | ≤ 2×, clean | $(verdict "$cs" "$(awk -v v="$vc" 'BEGIN{print 2*v}')") |"
    echo "| first build | $c0 s = $(ratio "$c0" "$floor")× (verify + \`cp -r\` of its output: $floor s) | ≤ 1.5× | $(verdict "$c0" "$(awk -v v="$floor" 'BEGIN{print 1.5*v}')") |"
    echo "| peak memory, every build and the dry run | $(mib "$peak") MiB | ≤ 256 MiB | $(verdict "$(mib "$peak")" 256) |"
    echo "| largest published file | ${largest#* } $(awk -v b="${largest%% *}" 'BEGIN{printf "%.1f", b/1048576}') MiB | ≤ 32 MiB | $(verdict "${largest%% *}" 33554432) |"
    echo "| the page (index.html) | $(awk -v b="$page" 'BEGIN{printf "%.1f", b/1048576}') MiB | ≤ 32 MiB | $(verdict "$page" 33554432) |"
    echo "| longest SNAPSHOTS.jsonl line | $snapline bytes | < 4 KiB | $(verdict "$snapline" 4095) |"
    echo "| most proofs in one bucket folder (and in the flat folder) | ${bucket:-none} ($flat) | ≤ 4,096 | $(verdict "${bucket:-0}" 4096) |"
    echo "<!-- /scale $n -->"
  } >"$table"
  echo
  cat "$table"
  if [ -n "${WRITE_FIGURES:-}" ]; then
    python3 - "$table" docs/scale-figures.md "$n" <<'PY'
import re, sys, pathlib
table, doc, n = pathlib.Path(sys.argv[1]).read_text(), pathlib.Path(sys.argv[2]), sys.argv[3]
text = doc.read_text() if doc.exists() else "# Scale figures\n\nWritten by `WRITE_FIGURES=1 benches/scale.sh N` (docs/scale.md#the-daily-rebuilds-cost): one table per size, replaced whole by the next run at that size.\n\n"
pat = re.compile(r"<!-- scale %s -->.*?<!-- /scale %s -->\n" % (n, n), re.S)
text = pat.sub(lambda _: table, text) if pat.search(text) else text + table + "\n"
doc.write_text(text)
PY
  fi
  export SOURCE_DATE_EPOCH=1800000000
done
