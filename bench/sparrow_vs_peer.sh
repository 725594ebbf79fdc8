#!/usr/bin/env bash
# weft's four Sparrow variants next to Sparrow's own simulator (radlab/sparrow
# `simulation/`, ported to Python 3 in ../shared/peers/sparrow_sim), as whole
# commands in one run (issue 19). Same configuration on both sides: 1,000
# single-slot workers, 100-task jobs of exponential 100 ms tasks (per task),
# Poisson arrivals at load 0.9, probe ratio d = 2, 0.5 ms one-way delay.
#
# weft's command is what a user runs: read the workload JSON, simulate,
# check the schedule and write tasks.csv, jobs.csv and summary.json
#   weft sim -w W.json -p VARIANT --latency 0.0005 --out DIR
# The peer's is its runner (bench.py), which builds its jobs in memory and
# writes its response-time CDFs.
#
#   bash bench/sparrow_vs_peer.sh [BUILD_DIR] [--jobs N]    (RUNS=3 for more pairs)
# Needs BUILD_DIR/src/weft, BUILD_DIR/bench/weft_bench_e2e (default build/),
# ../shared/peers/sparrow_sim beside the checkout and a python3 with numpy
# (/usr/bin/python3 with Debian's python3-numpy). Prints one row per variant:
# median wall and cpu seconds of each side and the peer/weft cpu ratio.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
build=build
if [ $# -gt 0 ] && [ "${1#--}" = "$1" ]; then build=$1; shift; fi
jobs=20000
if [ "${1:-}" = "--jobs" ]; then jobs=$2; fi
runs=${RUNS:-1}
weft=$build/src/weft
e2e=$build/bench/weft_bench_e2e
peer=../shared/peers/sparrow_sim/bench.py
for f in "$weft" "$e2e" "$peer"; do
  [ -e "$f" ] || { echo "sparrow_vs_peer: $f is missing" >&2; exit 2; }
done
py=/usr/bin/python3
"$py" -c 'import numpy' 2>/dev/null || { echo "sparrow_vs_peer: $py lacks numpy (apt-get install python3-numpy)" >&2; exit 2; }

dir=$(mktemp -d /tmp/weft-sparrow-peer.XXXXXX)
trap 'rm -rf "$dir"' EXIT
"$e2e" gen "$dir/w.json" --jobs "$jobs" --tasks-per-job 100 --machines 1000
tasks=$((jobs * 100))
echo "# $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'); $jobs jobs x 100 tasks on 1,000 workers; median of $runs pair(s), weft then peer"

# time_it FILE CMD...: appends "wall cpu" of one whole-process run to FILE.
time_it() {
  local out=$1; shift
  /usr/bin/time -f '%e %U %S' -o "$dir/t" "$@" >/dev/null 2>"$dir/err" || { cat "$dir/err" >&2; exit 1; }
  awk '{ printf "%s %.3f\n", $1, $2 + $3 }' "$dir/t" >>"$out"
}
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

printf '%-18s %-20s %10s %10s %10s %10s %10s %12s\n' variant peer_variant weft_wall weft_cpu peer_wall peer_cpu cpu_ratio weft_tasks/cpu_s
for pair in sparrow:late_binding sparrow-batch:batch sparrow-per-task:per_task sparrow-random:random; do
  ours=${pair%%:*}; theirs=${pair#*:}
  : >"$dir/a"; : >"$dir/b"
  for _ in $(seq "$runs"); do
    time_it "$dir/a" "$weft" sim -w "$dir/w.json" -p "$ours" --latency 0.0005 --no-progress --out "$dir/out"
    time_it "$dir/b" "$py" "$peer" "$theirs" --workers 1000 --slots 1 --tasks 100 --jobs "$jobs" --load 0.9 \
      --probe-ratio 2 --mean 100 --delay 0.5 --dist exp_tasks --seed 1 --quiet --outdir "$dir/peer"
  done
  aw=$(cut -d' ' -f1 "$dir/a" | median); ac=$(cut -d' ' -f2 "$dir/a" | median)
  bw=$(cut -d' ' -f1 "$dir/b" | median); bc=$(cut -d' ' -f2 "$dir/b" | median)
  awk -v v="$ours" -v p="$theirs" -v aw="$aw" -v ac="$ac" -v bw="$bw" -v bc="$bc" -v n="$tasks" \
    'BEGIN { printf "%-18s %-20s %10.2f %10.2f %10.2f %10.2f %10.1f %12.0f\n", v, p, aw, ac, bw, bc, bc / ac, n / ac }'
done
