#!/bin/sh
# Ursa's Tables 2, 4 and 5 in the style of the paper (docs/reproductions/ursa.md), simulated in the
# contention model. Leaves one result directory per run in OUT (default /tmp/ursa-tables) and prints the
# tables (scripts/ursa_tables.py). About a minute on 2 cores.
#   Table 2: the bundled TPC-H workloads (examples/tpch-small.json, examples/default.json), as given (no
#            phases: tasks run whole) and with the monotasks of common/monotasks.h written in
#            (scripts/ursa_derive_phases.py); ursa EJF and SRJF against Y+S.
#   Table 4: the section 5.3 setting 2 workload; ursa, its placement ablation (tetris, capacity), Y+U
#            (ursa-yarn) and Y+S.
#   Table 5: the same workload on 128 GB machines, Y+U and Y+S with 4-core / 4 GB containers and cpu
#            over-subscription 1, 2, 4 (`cpu_oversubscription`, common/container_protocol.h).
# Y+S is spark-dynamic at the paper's settings: 4-core / 8 GB executors, idle timeout 2 s.
set -eu
WEFT=${WEFT:-build/src/weft}
OUT=${1:-/tmp/ursa-tables}
mkdir -p "$OUT"
YS="container_cpu=4 container_mem=8 idle_timeout=2"
python3 scripts/ursa_derive_phases.py examples/tpch-small.json "$OUT/tpch-small-phased.json"
python3 scripts/ursa_derive_phases.py examples/default.json "$OUT/default-phased.json"
python3 scripts/ursa_synthetic.py --setting 2 "$OUT/setting2.json"
python3 scripts/ursa_synthetic.py --setting 2 --machine-mem 128 "$OUT/setting2-128g.json"
run() {  # run NAME WORKLOAD_FILE POLICY [PARAM...]
  name=$1 workload=$2 policy=$3
  shift 3
  params=""
  for p in "$@"; do params="$params --param $p"; done
  # shellcheck disable=SC2086
  "$WEFT" sim -w "$workload" -p "$policy" $params --model contention --no-progress --out "$OUT/$name" | tail -n 1
}
for w in tpch-small default; do
  for v in "$w:examples/$w.json" "$w-phased:$OUT/$w-phased.json"; do
    variant=${v%%:*} file=${v#*:}  # not `name`: run() sets that
    run "t2-$variant-ursa-ejf" "$file" ursa
    run "t2-$variant-ursa-srjf" "$file" ursa order=srjf
    # shellcheck disable=SC2086
    run "t2-$variant-ys" "$file" spark-dynamic $YS
  done
done
run t4-ursa "$OUT/setting2.json" ursa
run t4-ursa-srjf "$OUT/setting2.json" ursa order=srjf
run t4-tetris "$OUT/setting2.json" ursa placement=tetris
run t4-capacity "$OUT/setting2.json" ursa placement=capacity
run t4-yu "$OUT/setting2.json" ursa-yarn executors=150
# shellcheck disable=SC2086
run t4-ys "$OUT/setting2.json" spark-dynamic $YS
for k in 1 2 4; do
  run "t5-yu-$k" "$OUT/setting2-128g.json" ursa-yarn executors=150 executor_mem=4 cpu_oversubscription=$k
  run "t5-ys-$k" "$OUT/setting2-128g.json" spark-dynamic container_cpu=4 container_mem=4 idle_timeout=2 \
    cpu_oversubscription=$k
done
python3 scripts/ursa_tables.py "$OUT"
