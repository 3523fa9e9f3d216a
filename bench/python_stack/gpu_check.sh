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
source "$(dirname "${BASH_SOURCE[0]}")/device_stack.sh"

create_env python numpy numba numba-cuda cuda-version=13.0
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

python3 "$root/bench/python_stack/compare_results.py" "$work/gpuenv.txt" "$work/pip.txt" gpu_kernel_s --also jit_s | tee "$work/compare.txt"
check "gpuenv's GPU kernel within 10% of the pip-installed numba-cuda's" test "${PIPESTATUS[0]}" -eq 0

echo "===== gpuenv doctor -p ENV"
"$gpuenv" doctor -p "$work/env" 2>&1 | tee "$work/doctor.out"
check "gpuenv doctor exits 0" test "${PIPESTATUS[0]}" -eq 0

echo "===== $failures failed"
exit $((failures > 0))
