# Shared by benches/scale.sh and benches/memory.sh (sourced, not run): the binaries, one command
# measured with GNU time, and the table's cells.

# name -> $gen, $bin (EXHIBIT_BIN or this tree's release build) and $T (GNU time), built or
# checked. With EXHIBIT_BIN (another build of exhibit, measured on the same boxes) nothing is
# compiled but a missing generator.
setup_bench() {
  gen=target/release/examples/gen-box
  if [ -z "${EXHIBIT_BIN:-}" ]; then
    cargo build -q --release --example gen-box --bin exhibit
  elif [ ! -x "$gen" ]; then
    cargo build -q --release --example gen-box
  fi
  bin=$(realpath "${EXHIBIT_BIN:-target/release/exhibit}")
  T=/usr/bin/time
  [ -x "$T" ] || { echo "benches/$1.sh needs GNU time: apt-get install -y time" >&2; exit 2; }
}

# log, command... -> "cpu_s wall_s peak_kb" (CPU = user + system; peak = maximum resident set
# size); the command's output goes to log.
measure() {
  local log=$1; shift
  "$T" -v -o "$log.time" "$@" >"$log" 2>&1 || { tail -20 "$log" >&2; exit 1; }
  awk -F': ' '
    /User time/ {u=$2} /System time/ {s=$2} /Maximum resident/ {m=$2}
    /Elapsed \(wall/ {n=split($2,p,":"); w=0; for(i=1;i<=n;i++) w=w*60+p[i]}
    END {printf "%.2f %.2f %d\n", u+s, w, m}' "$log.time"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN{ if (b<=0) b=0.01; printf "%.1f", a/b }'; }
mib() { awk -v k="$1" 'BEGIN{printf "%.0f", k/1024}'; }
# width, what, lines, cpu, wall, peak_kb, verify cpu, verify wall -> one row of the table
row_of() {
  printf "%-${1}s %8s %8s %8s %9s %9s %9s\n" "$2" "$3" "$4" "$5" "$(mib "$6")" "$(ratio "$4" "$7")" "$(ratio "$5" "$8")"
}
# width -> the table's heading
heading_of() {
  printf "%-${1}s %8s %8s %8s %9s %9s %9s\n" "what" "lines" "cpu s" "wall s" "peak MiB" "cpu x vfy" "wall x vfy"
}
