#!/usr/bin/env bash
# weft's main job on the bundled default workload: installs what is missing,
# builds weft, and compares every registered policy on examples/default.json
# (150 TPC-H DAG jobs, ~149k tasks, 200 machines), then writes the HTML report of
# the comparison (build/demo/report.html; its last line says where). Extra
# arguments go to `weft compare` (e.g. --model contention, --latency 0.001).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/install-deps.sh
# The same configuration as scripts/test.sh (one line in scripts/configure.sh):
# the objects built here are the ones the test run needs, so running it next
# builds only the tests instead of recompiling everything with other flags.
bash scripts/configure.sh >/dev/null
cmake --build build -j2 --target weft
./build/src/weft validate examples/default.json
./build/src/weft compare examples/default.json --policies all --baseline fifo --out build/demo "$@"
./build/src/weft report build/demo/*/ -w examples/default.json -o build/demo/report.html --title "weft: every policy on examples/default.json"
