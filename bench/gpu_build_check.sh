#!/usr/bin/env bash
# Issue 14 on a real GPU: the example packages built here (`gpuenv build` of
# recipes/examples, as scripts/demo.sh builds them: libstencil for the CPU
# and for CUDA 13.0) are installed there with `gpuenv create`, which must
# pick the CUDA build for the driver; stencil-check runs the kernel on the
# GPU against the CPU reference; `gpuenv test` re-runs the package's own
# tests there; `gpuenv doctor` checks the environment's device code against
# the GPU. For the lent GPU machine, which has no compilers: build here,
#
#   scripts/demo.sh   (writes build/examples-channel)
#   mkdir -p build/h200 && cp -r build/examples-channel build/h200/channel
#   (and a portable gpuenv in build/h200/bin, see bench/cuda_detection/build_portable.sh)
#
# then carry build/h200 and run there
#
#   GPUENV_PREBUILT=build/h200/bin GPUENV_EXAMPLES_CHANNEL=build/h200/channel bash bench/gpu_build_check.sh
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
gpuenv=${GPUENV_PREBUILT:-$root/build/dev/src/cli}/gpuenv
channel=$(cd "${GPUENV_EXAMPLES_CHANNEL:-$root/build/examples-channel}" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export GPUENV_CACHE_DIR=$work/cache GPUENV_ROOT_PREFIX=$work/root
unset CONDA_OVERRIDE_CUDA
failures=0
check() {  # description, then a command that must succeed
  local description=$1
  shift
  if "$@"; then echo "PASS  $description"; else echo "FAIL  $description"; failures=$((failures + 1)); fi
}

echo "===== gpuenv cuda"
"$gpuenv" cuda | sed -n '1,14p'

echo "===== gpuenv create from the example channel"
"$gpuenv" create -y -p "$work/env" -c "$channel" --override-channels stencil-stats stencil-samples | tee "$work/create.out"
check "the CUDA 13.0 build of libstencil was chosen for this driver" grep -q "libstencil .*cuda130_" "$work/create.out"

echo "===== the kernel on the GPU against the CPU reference"
"$gpuenv" run -p "$work/env" -- stencil-check --size 4096 4096 | tee "$work/check.out"
check "stencil-check: GPU matches CPU" grep -q "GPU matches CPU" "$work/check.out"
"$gpuenv" run -p "$work/env" -- stencil-stats 2048 2048 | tee "$work/stats.out"
check "stencil-stats ran on the GPU through libstencil" grep -q "(GPU)" "$work/stats.out"

echo "===== gpuenv test: the package's own tests, here with a GPU"
package=$(ls "$channel"/linux-64/libstencil-*cuda130_*.conda)
"$gpuenv" test "$package" -c "$channel" --override-channels 2>&1 | tee "$work/test.out"
check "gpuenv test passed" test "${PIPESTATUS[0]}" -eq 0
check "the test script compared GPU and CPU" grep -q "GPU matches CPU" "$work/test.out"

echo "===== gpuenv doctor on the environment"
"$gpuenv" doctor -p "$work/env" | tee "$work/doctor.out"
check "gpuenv doctor exits 0" test "${PIPESTATUS[0]}" -eq 0
"$gpuenv" inspect "$work/env/lib/libstencil.so"

echo "===== $failures failed"
exit $((failures > 0))
