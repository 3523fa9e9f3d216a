#!/usr/bin/env bash
# Sets everything up (scripts/setup.sh), builds, and runs the whole test suite.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$root/scripts/setup.sh"
"$root/scripts/build.sh"
cd "$root"
ctest --preset dev --parallel "$(nproc)" "$@"
