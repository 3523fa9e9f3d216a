#!/usr/bin/env bash
# Issue 17's CEP 43 demo on a real GPU: one noarch package (`gpustack`)
# whose CUDA part is conditional (`cuda-cudart[when="__cuda>=12"]`,
# `gpustack-cuda[when="__cuda>=12 and __linux"]`) plus a CPU fallback,
# published as CEP 48 v3 records. On a machine whose driver supports CUDA 12+
# `gpuenv create` must give the CUDA closure, and say why; with the driver
# hidden (CONDA_OVERRIDE_CUDA="") the CPU one. `gpuenv cuda --when` decides
# conditions on the machine without a solve. Only plans (--dry-run): the
# records have no package files.
#
#   GPUENV_PREBUILT=build/h200/bin bash bench/conditional/gpu_conditional_check.sh
#
# build/h200/bin: a portable gpuenv (bench/cuda_detection/build_portable.sh).
# The device tool carries at most 64 MiB: carry build/h200 as a .tgz
# (tar czf build/h200-pack/h200.tgz -C build h200) and unpack it there.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
gpuenv=${GPUENV_PREBUILT:-$root/build/dev/src/cli}/gpuenv
channel=$root/bench/conditional/channel
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

echo "===== gpuenv cuda --when (decided on this machine, no solve)"
"$gpuenv" cuda --when '__cuda>=12' --when '__cuda>=14' --when '__cuda_arch>=9.0' | tee "$work/cuda.out"

echo "===== gpuenv create --dry-run gpustack, this machine's driver"
"$gpuenv" create --dry-run -p "$work/env" -c "file://$channel" --override-channels gpustack 2>&1 | tee "$work/gpu.out"
check "the CUDA part was installed: gpustack-cuda" grep -q "gpustack-cuda" "$work/gpu.out"
check "the CUDA part was installed: cuda-cudart" grep -q "cuda-cudart" "$work/gpu.out"
check "the condition is reported as held, naming the driver" grep -q 'cuda-cudart\[when="__cuda>=12"\] applies' "$work/gpu.out"

echo "===== the same with the driver hidden (CONDA_OVERRIDE_CUDA=\"\")"
CONDA_OVERRIDE_CUDA="" "$gpuenv" create --dry-run -p "$work/env-cpu" -c "file://$channel" --override-channels gpustack \
  2>&1 | tee "$work/cpu.out"
check "no CUDA part without a driver" bash -c "! grep -q 'gpustack-cuda ' '$work/cpu.out'"
check "the CPU fallback is there" grep -q "gpustack-cpu" "$work/cpu.out"

echo "===== --json"
"$gpuenv" create --dry-run --json -p "$work/env" -c "file://$channel" --override-channels gpustack >"$work/plan.json" 2>/dev/null
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(json.dumps(d.get('conditions'), indent=1))" "$work/plan.json" \
  2>/dev/null || grep -o '"conditions".*' "$work/plan.json" | head -c 2000
echo
echo "===== $failures failure(s)"
exit $((failures > 0))
