#!/usr/bin/env bash
# Compares the results of two weft binaries, run by run: every policy on the
# bundled examples and a few random workloads, in both execution models, with
# and without latency and failures. tasks.csv and jobs.csv must be identical
# byte for byte; summary.json is compared without wall_seconds (a clock
# reading) and the keys named by --ignore (fields a change adds on purpose).
#
#   scripts/compare_outputs.sh OLD_WEFT NEW_WEFT [--ignore key,key] [--workloads "W1 W2"]
#
# Prints one line per run that differs and a count; exit 1 if any differ.
set -euo pipefail
old=$1; new=$2; shift 2
ignore="wall_seconds"
workloads=""
while [ $# -gt 0 ]; do
  case $1 in
    --ignore) ignore="$ignore,$2"; shift 2 ;;
    --workloads) workloads=$2; shift 2 ;;
    *) echo "compare_outputs: unknown argument $1" >&2; exit 2 ;;
  esac
done
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
[ -n "$workloads" ] || workloads="$root/examples/tpch-small.json $root/examples/phases.json"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
policies=$("$old" policies | awk '{print $1}')
runs=0; differ=0
strip() { /usr/bin/python3 -c "
import json,sys
j=json.load(open(sys.argv[1]))
for k in sys.argv[2].split(','): j.pop(k,None)
print(json.dumps(j,indent=1,sort_keys=True))" "$1" "$ignore"; }
for w in $workloads; do
  for p in $policies; do
    for opts in "--model fixed" "--model contention" "--model fixed --latency 0.001" "--model contention --task-failures 0.05"; do
      runs=$((runs+1))
      rm -rf "$tmp/a" "$tmp/b"
      "$old" sim -w "$w" -p "$p" $opts --out "$tmp/a" >/dev/null 2>&1 || true
      "$new" sim -w "$w" -p "$p" $opts --out "$tmp/b" >/dev/null 2>&1 || true
      bad=""
      for f in tasks.csv jobs.csv; do
        [ ! -e "$tmp/a/$f" ] && [ ! -e "$tmp/b/$f" ] && continue  # both refused the input
        cmp -s "$tmp/a/$f" "$tmp/b/$f" || bad="$bad $f"
      done
      if [ -f "$tmp/a/summary.json" ] && [ -f "$tmp/b/summary.json" ]; then
        [ "$(strip "$tmp/a/summary.json")" = "$(strip "$tmp/b/summary.json")" ] || bad="$bad summary.json"
      elif [ -f "$tmp/a/summary.json" ] || [ -f "$tmp/b/summary.json" ]; then
        bad="$bad summary.json(missing)"
      fi
      if [ -n "$bad" ]; then differ=$((differ+1)); echo "DIFFER $(basename "$w") $p $opts:$bad"; fi
    done
  done
done
echo "compare_outputs: $runs runs, $differ differ"
[ "$differ" -eq 0 ]
