#!/usr/bin/env bash
# Configures build/ the one way both README commands use (scripts/demo.sh and
# scripts/test.sh): warnings as errors, optimized with debug info, and ccache
# when it is installed. One configuration means the second command reuses every
# object the first one built. Extra arguments go to cmake.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

launcher=()
if command -v ccache >/dev/null 2>&1; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DWEFT_WERROR=ON "${launcher[@]}" "$@"
