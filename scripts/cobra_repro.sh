#!/usr/bin/env bash
# COBRA section VII-B in weft (docs/reproductions/cobra.md): the Google 2011
# sample's first hour of jobs on the section VII-A cluster, under cobra and
# its baselines, then the rho x delta grid of Fig. 7, then the pictures; then
# the same jobs with input locations (scripts/add_locality.py: 3 HDFS-placed
# replicas per task), with the locality cost off and on, under the same
# policies and two ablations (cobra without Pdelay's waits, tau=0; and
# cobra-default without delay scheduling's waits).
#
#   scripts/cobra_repro.sh WEFT OUTDIR
#
# Writes OUTDIR/results.csv (policy, avg JCT, makespan), OUTDIR/fig7.csv,
# OUTDIR/results_locality.csv (workload, policy, avg JCT, makespan, locality
# shares, remote read seconds) and docs/reproductions/cobra_*.svg. Needs
# ../shared/data (the sample).
set -euo pipefail
weft=$1; out=$2
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
d="$root/../shared/data/google-2011-borg-sample/raw"
[ -d "$d" ] || { echo "cobra_repro: $d is missing (the Google 2011 sample)" >&2; exit 2; }
mkdir -p "$out"
parts=""
for t in task_events job_events; do
  for i in 1 2 3; do parts="$parts,$d/$t-part-0000$i-of-00500.csv.gz"; done
done
# The first hour of arrivals in the sample (it starts 5,638 s into the trace).
"$weft" trace convert "google-2011:${parts#,}" --window 5638:9238 -o "$out/g1h.json" >/dev/null
python3 "$root/scripts/cobra_workload.py" "$out/g1h.json" "$out/workload.json"
summary() { /usr/bin/python3 -c "import json,sys; s=json.load(open(sys.argv[1])); print(s['avg_jct'], s['makespan'])" "$1"; }
echo "policy,avg_jct_s,makespan_s" > "$out/results.csv"
for p in cobra cobra-default tetris spark-static spark-dynamic; do
  "$weft" sim -w "$out/workload.json" -p "$p" --out "$out/$p" >/dev/null
  read -r jct mk < <(summary "$out/$p/summary.json")
  echo "$p,$jct,$mk" >> "$out/results.csv"
done
echo "rho,delta,avg_jct_s,makespan_s" > "$out/fig7.csv"
for rho in 1.2 1.5 2 3; do
  for delta in 0.5 0.6 0.7 0.8 0.9; do
    "$weft" sim -w "$out/workload.json" -p cobra --param rho=$rho --param delta=$delta --out "$out/grid" >/dev/null
    read -r jct mk < <(summary "$out/grid/summary.json")
    echo "$rho,$delta,$jct,$mk" >> "$out/fig7.csv"
  done
done
/usr/bin/python3 "$root/scripts/plot_cobra.py" "$out" "$root/docs/reproductions"
cat "$out/results.csv"

# With input locations: "lists" has the locations but no cost (waiting can
# only lose), "cost" charges a rack-local task 1.25x and a remote one 2x its
# duration (the factors form with no input_mb: the whole task is its read).
/usr/bin/python3 "$root/scripts/add_locality.py" "$out/workload.json" "$out/cost.json" 1.25 2 1
/usr/bin/python3 -c "
import json, sys
w = json.load(open(sys.argv[1])); del w['cluster']['locality_cost']; json.dump(w, open(sys.argv[2], 'w'))" \
  "$out/cost.json" "$out/lists.json"
echo "workload,policy,avg_jct_s,makespan_s,node,rack,remote,remote_read_s" > "$out/results_locality.csv"
for wl in lists cost; do
  for run in cobra "cobra tau=0" cobra-default "cobra-default node_wait=0 rack_wait=0" tetris spark-static \
             spark-dynamic; do
    read -r p params <<< "$run"
    flags=(); for kv in $params; do flags+=(--param "$kv"); done
    "$weft" sim -w "$out/$wl.json" -p "$p" "${flags[@]}" --out "$out/loc" >/dev/null
    /usr/bin/python3 -c "
import json, sys
s = json.load(open(sys.argv[1])); l = s['locality']
print(','.join([sys.argv[2], sys.argv[3], str(s['avg_jct']), str(s['makespan']), str(l['node']), str(l['rack']),
                str(l['remote']), str(l.get('remote_read_s', 0))]))" "$out/loc/summary.json" "$wl" "$run" \
      >> "$out/results_locality.csv"
  done
done
cat "$out/results_locality.csv"
