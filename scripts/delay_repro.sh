#!/usr/bin/env bash
# Delay scheduling against fair sharing with the locality cost on
# (docs/reproductions/delay-scheduling.md): many small map-only jobs whose
# input blocks sit on 3 of 100 machines (weft gen mapreduce), at two loads,
# with and without the locality cost, three workload seeds; fair vs delay at
# a sweep of node_wait. Prints one row per run (locality shares, JCT, time
# lost to remote reads) from each run's summary.json.
#
#   scripts/delay_repro.sh WEFT OUT_DIR
set -euo pipefail
weft=$1; out=$2
mkdir -p "$out"
for gap in 0.07 0.14; do
  for seed in 1 2 3; do
    for cost in on off; do
      flags=""
      [ "$cost" = on ] && flags="--rack-mbps 100 --cross-rack-mbps 25"
      w="$out/w-gap$gap-seed$seed-$cost.json"
      # shellcheck disable=SC2086
      "$weft" gen mapreduce -o "$w" --seed "$seed" --jobs 2000 --machines 100 --rack-size 20 --cores 4 \
        --mem-gb 16 --min-input-mb 64 --max-input-mb 2560 --reduce-ratio 0 --mean-interarrival-s "$gap" \
        $flags > /dev/null
    done
  done
done
"$weft" sweep "$out"/w-*.json --policies fair,delay --param delay:node_wait=0.5,1,3,6 \
  --out "$out/sweep" --no-progress > /dev/null
/usr/bin/python3 - "$out/sweep/runs" <<'PY'
import glob, json, os, sys
root = sys.argv[1]
print("workload,policy,params,avg_jct,p95_jct,makespan,node,rack,remote,remote_read_s,cpu_util")
for f in sorted(glob.glob(root + "/**/summary.json", recursive=True)):
    parts = os.path.relpath(os.path.dirname(f), root).split("/")
    j = json.load(open(f)); l = j["locality"]
    params = parts[2] if len(parts) == 4 else ""
    print(f"{parts[0]},{parts[1]},{params},{j['avg_jct']:.2f},{j['p95_jct']:.2f},{j['makespan']:.1f},"
          f"{l['node']:.3f},{l['rack']:.3f},{l['remote']:.3f},{l.get('remote_read_s', 0):.0f},"
          f"{j['utilization']['cpu']:.3f}")
PY
