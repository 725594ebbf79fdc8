#!/bin/sh
# Ursa's section 5.3 synthetic experiments (docs/reproductions/ursa.md): generates the workloads with
# scripts/ursa_synthetic.py, runs them under ursa and the baselines in the contention model (where
# monotasks sharing a link really slow down), and leaves one result directory per run in OUT
# (default /tmp/ursa-repro). Then: /usr/bin/python3 scripts/plot_ursa.py OUT docs/reproductions
set -eu
WEFT=${WEFT:-build/src/weft}
OUT=${1:-/tmp/ursa-repro}
mkdir -p "$OUT"
python3 scripts/ursa_synthetic.py --setting 1 "$OUT/setting1.json"
python3 scripts/ursa_synthetic.py --setting 1 --type1-cpu-share 0.5 "$OUT/setting1-even.json"
python3 scripts/ursa_synthetic.py --setting 2 "$OUT/setting2.json"
run() {  # run NAME WORKLOAD POLICY [PARAM...]
  name=$1 workload=$2 policy=$3
  shift 3
  params=""
  for p in "$@"; do params="$params --param $p"; done
  # shellcheck disable=SC2086
  "$WEFT" sim -w "$OUT/$workload.json" -p "$policy" $params --model contention --no-progress \
    --out "$OUT/$name" | tail -n 1
}
run s1-ursa setting1 ursa
run s1-ursa-yarn setting1 ursa-yarn executors=150
# Y+S: Spark on YARN with dynamic allocation at the paper's settings (section 5.1.2: 4 cores / 8 GB
# executors, idle timeout 2 s), the COBRA reproduction's spark-dynamic.
YS="container_cpu=4 container_mem=8 idle_timeout=2"
# shellcheck disable=SC2086
run s1-spark-dynamic setting1 spark-dynamic $YS
run s1-fifo setting1 fifo
run s1even-ursa setting1-even ursa ept_factor=2
run s1even-ursa-default setting1-even ursa
run s2-ursa-ejf setting2 ursa
run s2-ursa-srjf setting2 ursa order=srjf
# shellcheck disable=SC2086
run s2-spark-dynamic setting2 spark-dynamic $YS
