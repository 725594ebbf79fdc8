#!/usr/bin/env bash
# The libFuzzer targets of fuzz/ (BENCHMARKS.md "Fuzzing"), built with clang
# in build-fuzz/ (its own build directory: every library there carries the
# fuzzer's coverage and ASan/UBSan).
#   scripts/fuzz.sh --short          build, then run each target for a few
#                                    seconds from its checked-in corpus (CTest
#                                    label "fuzz"); what scripts/test.sh runs
#   scripts/fuzz.sh TARGET|all SECS  a long run of one target (or each in turn)
#                                    for SECS seconds; its corpus grows in
#                                    build-fuzz/fuzz/long/TARGET, crashes land in
#                                    build-fuzz/fuzz/crashes/TARGET; prints the
#                                    executions and whether it crashed
# Without clang's libFuzzer (Debian: clang, libclang-rt-14-dev) it says so and
# exits 0 under --short (a visible skip), 2 otherwise.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

targets=(workload trace_google_2011 trace_google_2019 trace_alibaba_2017 trace_alibaba_2018 trace_decima_tpch
         trace_tpch_cloudlab trace_swim gz_input submit node_stream)

usage() { echo "usage: scripts/fuzz.sh --short | TARGET|all SECONDS (targets: ${targets[*]})" >&2; exit 2; }
[ $# -ge 1 ] || usage

have_libfuzzer() {
  command -v clang++ >/dev/null 2>&1 || return 1
  local probe
  probe=$(mktemp -d)
  echo 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }' > "$probe/p.cc"
  clang++ -fsanitize=fuzzer "$probe/p.cc" -o "$probe/p" >/dev/null 2>&1
  local ok=$?
  rm -rf "$probe"
  return $ok
}

if ! have_libfuzzer; then
  echo "fuzz: SKIPPED: clang++ with libFuzzer is missing (apt-get install clang libclang-rt-14-dev)" >&2
  [ "$1" = --short ] && exit 0
  exit 2
fi

launcher=()
if command -v ccache >/dev/null 2>&1; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
# -O1 with line tables only: the sanitized build compiles about twice as fast
# as -O2 -g, which matters for CI's cold build; the fuzzers run a little slower.
cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=None -DCMAKE_CXX_FLAGS="-O1 -gline-tables-only" \
  -DCMAKE_CXX_COMPILER=clang++ -DWEFT_FUZZ=ON \
  -DWEFT_BUILD_TESTS=OFF -DWEFT_BUILD_BENCH=OFF "${launcher[@]}" >/dev/null

if [ "$1" = --short ]; then
  cmake --build build-fuzz -j2 --target "${targets[@]}"
  exec ctest --test-dir build-fuzz -L fuzz --output-on-failure -j2
fi

[ $# -eq 2 ] || usage
seconds=$2
[[ "$seconds" =~ ^[0-9]+$ ]] || usage
run=("$1")
if [ "$1" = all ]; then run=("${targets[@]}"); fi
for t in "${run[@]}"; do
  [[ " ${targets[*]} " == *" $t "* ]] || usage
done
cmake --build build-fuzz -j2 --target "${run[@]}"

status=0
for t in "${run[@]}"; do
  long=build-fuzz/fuzz/long/$t
  crashes=build-fuzz/fuzz/crashes/$t
  mkdir -p "$long" "$crashes"
  log=build-fuzz/fuzz/long/$t.log
  set +e
  ASAN_OPTIONS=detect_leaks=0 "build-fuzz/fuzz/$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$crashes/" "$long" "fuzz/corpus/$t" >"$log" 2>&1
  code=$?
  set -e
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo "?")
  if [ $code -eq 0 ]; then
    echo "fuzz: $t: $execs executions in $seconds s, no crash"
  else
    echo "fuzz: $t: CRASH after $execs executions (exit $code): see $log and $crashes/" >&2
    status=1
  fi
done
exit $status
