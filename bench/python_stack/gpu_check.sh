#!/usr/bin/env bash
# Issue 29 on a real GPU: Python, NumPy, Numba and numba-cuda built here by
# gpuenv from source (bench/python_stack/build_part1.sh) are installed there
# with `gpuenv create` from that channel, and the 3x3 smoothing stencil runs
# as pure Python, @numba.jit, @numba.stencil and @numba.cuda.jit
# (bench/python_stack/stencil_gpu.py), all results equal; the same GPU kernel
# then runs with the machine's own pip-installed numba-cuda, in the same
# call, and gpuenv's build must be within 10% of it; `gpuenv doctor` must be
# clean. For the lent GPU machine (no compilers, no network): the channel and
# a portable gpuenv travel in pieces of at most 64 MiB
# (bench/python_stack/pack_for_device.sh), each unpacked into $STACK by
#   mkdir -p /root/stack && cp -r build/device-pieces/pieceN/. /root/stack/
# in consecutive calls of one warm lease; the last call runs
#   STACK=/root/stack bash bench/python_stack/gpu_check.sh
# Prints PASS/FAIL lines and exits 0 when all passed.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
stack=${STACK:-/root/stack}
gpuenv=$stack/bin/gpuenv
channel=$stack/channel
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export GPUENV_CACHE_DIR=$work/cache GPUENV_ROOT_PREFIX=$work/root
unset CONDA_OVERRIDE_CUDA PYTHONPATH
failures=0
check() {  # description, then a command that must succeed
  local description=$1
  shift
  if "$@"; then echo "PASS  $description"; else echo "FAIL  $description"; failures=$((failures + 1)); fi
}

if [ ! -x "$gpuenv" ]; then
  mkdir -p "$stack/bin"
  python3 -c "import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])" "$stack/gpu-portable.tar.xz" "$stack/bin"
fi
# Packages larger than a piece came as parts (pack_for_device.sh).
for first in $(find "$channel" -name '*.conda.part00'); do
  cat "${first%.part00}".part* > "${first%.part00}" && rm -f "${first%.part00}".part*
done
echo "===== the pieces: $(find "$channel" -name '*.conda' | wc -l) packages, $(du -sh "$channel" | cut -f1)"
mkdir -p "$channel/linux-64" "$channel/noarch"
"$gpuenv" index "$channel" > /dev/null
echo "===== gpuenv cuda"
"$gpuenv" cuda | sed -n '1,12p'

echo "===== gpuenv create -p ENV python numpy numba numba-cuda cuda-version=13.0"
start=$(date +%s.%N)
"$gpuenv" create -y -p "$work/env" -c "$channel" --override-channels python numpy numba numba-cuda cuda-version=13.0 \
  > "$work/create.out" 2>&1
status=$?
echo "create: exit $status in $(python3 -c "import sys; print(round(float(sys.argv[2]) - float(sys.argv[1]), 2))" "$start" "$(date +%s.%N)") s"
tail -n 40 "$work/create.out"
check "gpuenv create from the built channel" test "$status" -eq 0
"$gpuenv" list -p "$work/env" | grep -E "^(python|numpy|numba|numba-cuda|llvmlite|libopenblas|cuda-nvvm|cuda-version) " || true
python=$work/env/bin/python
"$python" -c "import sys; print(sys.version); import numpy; numpy.show_config()" 2>&1 | grep -iE "^3\.|openblas|name:" | head -8

echo "===== the stencil with gpuenv's build"
"$python" "$root/bench/python_stack/stencil_gpu.py" --label gpuenv 2>&1 | tee "$work/gpuenv.txt"
check "gpuenv's Python: every result equal" test "${PIPESTATUS[0]}" -eq 0

echo "===== the same kernel with this machine's own pip-installed numba-cuda"
python3 -m pip list 2>/dev/null | grep -iE "^(numba|numba-cuda|numpy|cuda-bindings|cuda-python) " || true
python3 "$root/bench/python_stack/stencil_gpu.py" --label pip 2>&1 | tee "$work/pip.txt"
check "the machine's numba-cuda: every result equal" test "${PIPESTATUS[0]}" -eq 0

python3 - "$work/gpuenv.txt" "$work/pip.txt" <<'PYTHON' | tee "$work/compare.txt"
import json, sys
def result(path):
    for line in open(path):
        if line.startswith("RESULT "):
            return json.loads(line[7:])
    return None
ours, theirs = result(sys.argv[1]), result(sys.argv[2])
if not ours or not theirs:
    print("COMPARE missing a result"); sys.exit(1)
ratio = ours["gpu_kernel_s"] / theirs["gpu_kernel_s"]
print(f"COMPARE GPU kernel: gpuenv {ours['gpu_kernel_s']*1e3:.3f} ms, pip {theirs['gpu_kernel_s']*1e3:.3f} ms, "
      f"ratio {ratio:.3f} (at most 1.10); @jit gpuenv {ours['jit_s']*1e3:.1f} ms, pip {theirs['jit_s']*1e3:.1f} ms")
sys.exit(0 if ratio <= 1.10 else 1)
PYTHON
check "gpuenv's GPU kernel within 10% of the pip-installed numba-cuda's" test "${PIPESTATUS[0]}" -eq 0

echo "===== gpuenv doctor -p ENV"
"$gpuenv" doctor -p "$work/env" 2>&1 | tee "$work/doctor.out"
check "gpuenv doctor exits 0" test "${PIPESTATUS[0]}" -eq 0

echo "===== $failures failed"
exit $((failures > 0))
