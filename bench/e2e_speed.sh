#!/usr/bin/env bash
# The simulator's speed end to end, as a user runs it (issue 19), next to a
# bare event loop doing the same placements, all in one run:
#   1. weft validate W.json
#   2. weft sim -w W.json -p fifo            (results not written, checked)
#   3. weft sim -w W.json -p fifo --out DIR  (written and checked: what users run)
#   4. weft sim -w W.json -p fifo --out DIR --no-check
#   5. weft_bench_e2e loop                   (bare binary-heap loop, same workload)
# W.json is the Sparrow-style workload: 20,000 jobs x 100 one-core tasks,
# per-task exponential durations (mean 0.1 s), load 0.9, 10,000 single-slot
# machines (bench/e2e_speed.cc gen). Each step is timed as a whole process
# with /usr/bin/time, RUNS times (default 3); the medians of wall and cpu
# seconds are printed with tasks per cpu second and the cpu ratio to the bare
# loop.
#
#   bash bench/e2e_speed.sh [BUILD_DIR] [--jobs N]   (RUNS=5 bash bench/e2e_speed.sh ...)
# Needs BUILD_DIR/src/weft and BUILD_DIR/bench/weft_bench_e2e (default build/).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
build=build
if [ $# -gt 0 ] && [ "${1#--}" = "$1" ]; then build=$1; shift; fi
weft=$build/src/weft
e2e=$build/bench/weft_bench_e2e
for bin in "$weft" "$e2e"; do
  if [ ! -x "$bin" ]; then
    echo "e2e_speed: $bin is missing (cmake --build $build --target weft weft_bench_e2e)" >&2
    exit 2
  fi
done
runs=${RUNS:-3}
jobs=20000
if [ "${1:-}" = "--jobs" ]; then jobs=$2; fi
tasks=$((jobs * 100))

dir=$(mktemp -d /tmp/weft-e2e.XXXXXX)
trap 'rm -rf "$dir"' EXIT
"$e2e" gen "$dir/w.json" --jobs "$jobs"
echo "workload: $jobs jobs x 100 tasks, $(du -h "$dir/w.json" | cut -f1), 10000 machines; median of $runs runs"

# measure CMD...: runs CMD $runs times; prints the median wall seconds and the
# median cpu seconds (user + sys, all threads), the steadier figure on a
# shared machine.
measure() {
  : >"$dir/times"
  for _ in $(seq "$runs"); do
    /usr/bin/time -f '%e %U %S' -o "$dir/time" "$@" >/dev/null 2>&1 || true
    cat "$dir/time" >>"$dir/times"
  done
  local median='{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'
  echo "$(awk '{ print $1 }' "$dir/times" | sort -g | awk "$median")" \
    "$(awk '{ print $2 + $3 }' "$dir/times" | sort -g | awk "$median")"
}

read -r bare bare_cpu < <(measure "$e2e" loop --jobs "$jobs")
printf '%-40s %8s %8s %12s %10s\n' step wall_s cpu_s tasks/cpu_s cpu_x_bare
row() {
  local name=$1
  shift
  local wall cpu
  read -r wall cpu < <(measure "$@")
  awk -v n="$name" -v w="$wall" -v c="$cpu" -v k="$tasks" -v b="$bare_cpu" \
    'BEGIN { printf "%-40s %8.2f %8.2f %12.0f %10.1f\n", n, w, c, (c > 0 ? k / c : 0), (b > 0 ? c / b : 0) }'
}
row "weft validate" "$weft" validate "$dir/w.json"
row "weft sim -p fifo (no --out)" "$weft" sim -w "$dir/w.json" -p fifo
row "weft sim -p fifo --out" "$weft" sim -w "$dir/w.json" -p fifo --out "$dir/out"
row "weft sim -p fifo --out --no-check" "$weft" sim -w "$dir/w.json" -p fifo --out "$dir/out" --no-check
row "bare loop (weft_bench_e2e loop)" "$e2e" loop --jobs "$jobs"
