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
# with /usr/bin/time, RUNS times (default 3); the median wall time is printed
# with tasks/s and the ratio to the bare loop.
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

# median_wall CMD...: runs CMD $runs times, prints the median wall seconds.
median_wall() {
  local times=()
  for _ in $(seq "$runs"); do
    /usr/bin/time -f %e -o "$dir/time" "$@" >/dev/null 2>&1 || true
    times+=("$(cat "$dir/time")")
  done
  printf '%s\n' "${times[@]}" | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'
}

bare=$(median_wall "$e2e" loop --jobs "$jobs")
printf '%-44s %8s %12s %9s\n' step wall_s tasks/s x_bare
row() {
  local name=$1 t=$2
  awk -v n="$name" -v t="$t" -v k="$tasks" -v b="$bare" \
    'BEGIN { printf "%-44s %8.2f %12.0f %9.1f\n", n, t, (t > 0 ? k / t : 0), (b > 0 ? t / b : 0) }'
}
row "weft validate" "$(median_wall "$weft" validate "$dir/w.json")"
row "weft sim -p fifo (no --out)" "$(median_wall "$weft" sim -w "$dir/w.json" -p fifo)"
row "weft sim -p fifo --out" "$(median_wall "$weft" sim -w "$dir/w.json" -p fifo --out "$dir/out")"
row "weft sim -p fifo --out --no-check" "$(median_wall "$weft" sim -w "$dir/w.json" -p fifo --out "$dir/out" --no-check)"
row "bare loop (weft_bench_e2e loop)" "$bare"
