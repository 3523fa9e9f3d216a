#!/usr/bin/env bash
# Builds match_spec_parse_bench.cpp against BUILD_DIR's gpuenv_specs library
# (default build/dev) and runs it over $GPUENV_TESTDATA/vectors.
#   bench/specs/run_bench.sh [BUILD_DIR] [ROUNDS]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${1:-$root/build/dev}
rounds=${2:-200}
testdata=${GPUENV_TESTDATA:-$root/../shared/testdata}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
g++ -std=c++23 -O2 -I"$root/src" "$root/bench/specs/match_spec_parse_bench.cpp" \
  "$build/src/gpuenv/specs/libgpuenv_specs.a" -o "$work/match_spec_parse_bench"
"$work/match_spec_parse_bench" "$testdata/vectors" "$rounds"
