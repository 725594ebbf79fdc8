#!/usr/bin/env bash
# Builds weft with warnings as errors and runs the whole test suite (CTest),
# then the fuzz targets' short runs (clang, build-fuzz/; scripts/fuzz.sh
# --short, skipped visibly without libFuzzer). Works from any directory; uses
# build/ at the repository root. Exits non-zero on the first failing step or test.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/install-deps.sh --test
bash scripts/configure.sh
cmake --build build -j2
ctest --test-dir build --output-on-failure -j2
bash scripts/fuzz.sh --short
