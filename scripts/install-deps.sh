#!/usr/bin/env bash
# Installs what weft needs to build, test and benchmark on Debian 12, from Debian's
# packages only. Idempotent: packages already present are left alone, and apt-get
# update runs only when something is missing.
set -euo pipefail

packages=(
  g++ cmake ninja-build pkg-config git python3
  libabsl-dev libcli11-dev nlohmann-json3-dev libfmt-dev libspdlog-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libsqlite3-dev libcsv-dev zlib1g-dev libzstd-dev
  libisal-dev  # igzip, which inflates gzip trace parts (src/trace/gz_input.cc)
  libjs-chart.js  # Chart.js, compiled into `weft report` pages
  libprotobuf-dev protobuf-compiler libgrpc++-dev protobuf-compiler-grpc
  libcpp-httplib-dev prometheus-cpp-dev  # the scheduler's dashboard and /metrics
  libssl-dev  # TLS files checked at start, the dashboard's HTTPS (src/runtime/tls.h)
  python3-dev pybind11-dev python3-numpy python3-pandas python3-pytest  # `import weft` (src/python/) and its tests
)
# --test: what only the test suite needs besides: a one-machine Slurm cluster
# for `weft sweep --slurm` (scripts/slurm-local.sh), and clang with its
# libFuzzer runtime (libclang_rt.fuzzer) for the fuzz targets (scripts/fuzz.sh),
# the openssl CLI that makes the TLS tests' certificates, iproute2 (`ip netns`)
# for the multi-host test (tests/runtime/multihost_test.sh), and chromium, the
# headless browser the report's page is checked in (tests/cli/report_browser_test.py).
if [ "${1:-}" = --test ]; then
  packages+=(slurm-wlm munge clang libclang-rt-14-dev openssl iproute2 chromium)
fi
# --torch: PyTorch, on demand, for training learned schedulers on the Python
# module's environment (python/examples/train_pg.py, docs/python.md); its one test is
# skipped without it.
for arg in "$@"; do
  if [ "$arg" = --torch ]; then packages+=(python3-torch); fi
done

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: everything is already installed"
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
  echo "install-deps: missing packages: ${missing[*]}; run this script as root" >&2
  exit 1
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "install-deps: done"
