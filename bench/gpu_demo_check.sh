#!/usr/bin/env bash
# The README's main job on a real GPU machine: create the demo environment
# with the build that fits the driver, run from it, and check the choice
# against the driver's CUDA version. For the lent GPU machine, which cannot
# build: carry build/gpu-portable (bench/cuda_detection/build_portable.sh)
# and build/dev/demo-channel, then run
#
#   GPUENV_PREBUILT=build/gpu-portable bash bench/gpu_demo_check.sh
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
gpuenv=${GPUENV_PREBUILT:-$root/build/dev/src/cli}/gpuenv
channel=${GPUENV_DEMO_CHANNEL:-$root/build/dev/demo-channel}
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

echo "===== gpuenv --version / gpuenv cuda"
"$gpuenv" --version
"$gpuenv" cuda | sed -n '1,12p'
cuda=$("$gpuenv" cuda --json | python3 -c 'import json,sys; print((json.load(sys.stdin).get("driver") or {}).get("cuda_version") or "")')
echo "driver CUDA version: ${cuda:-none}"

echo "===== the README's main job (scripts/demo.sh)"
GPUENV_BIN=$gpuenv GPUENV_DEMO_CHANNEL=$channel GPUENV_DEMO_PREFIX=$work/demo-env \
  bash "$root/scripts/demo.sh" | tee "$work/demo.out"
case "$cuda" in
  13.*) expected=cuda130_0 ;;
  12.*) expected=cuda126_0 ;;
  11.8*) expected=cuda118_0 ;;
  *) expected=cpu_0 ;;
esac
check "demo picked gpuenv-demo-1.0-$expected for driver CUDA ${cuda:-none}" grep -q "gpuenv-demo-1.0-$expected" "$work/demo.out"
check "the run saw its activate.d script" grep -q "activate.d script ran" "$work/demo.out"

echo "===== gpuenv list / env export --explicit"
"$gpuenv" list -p "$work/demo-env"
"$gpuenv" env export -p "$work/demo-env" --explicit | tee "$work/lock.txt"

echo "===== the lockfile recreates the environment"
check "create --file from the explicit export" bash -c "'$gpuenv' create -y -p '$work/from-lock' --file '$work/lock.txt' >/dev/null"
check "and it runs the same build" bash -c "'$gpuenv' run -p '$work/from-lock' -- gpuenv-demo | grep -q 'gpuenv-demo-1.0-$expected'"

echo "===== CONDA_OVERRIDE_CUDA=12.4 solves as a CUDA 12.4 driver would"
CONDA_OVERRIDE_CUDA=12.4 "$gpuenv" create -p "$work/env-124" --dry-run --json --override-channels -c "$channel" gpuenv-demo \
  > "$work/124.json"
check "12.4 -> the CUDA 12.6 build (minor-version compatibility)" grep -q '"build": "cuda126_0"' "$work/124.json"

echo "===== $failures failed"
exit $((failures > 0))
