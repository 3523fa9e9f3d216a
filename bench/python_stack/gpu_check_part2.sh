#!/usr/bin/env bash
# Issue 30 on a real GPU: CuPy built here by gpuenv from its sdist against
# CUDA 13.0's libraries (bench/python_stack/build_part2.sh) is installed there
# with `gpuenv create` from that channel, and an elementwise kernel, a
# reduction and a RawKernel of the 3x3 stencil run on an 8192x8192 array,
# each equal to NumPy's result (bench/python_stack/cupy_gpu.py); the same runs
# with the machine's own pip-installed cupy-cuda13x in the same call, and
# gpuenv's build must be within 10% of it; Dask Array with CuPy chunks
# against NumPy chunks and a two-worker distributed cluster
# (bench/python_stack/dask_cupy_gpu.py); `gpuenv doctor` must be clean.
# Carried and unpacked as bench/python_stack/gpu_check.sh says, then
#   STACK=/root/stack bash bench/python_stack/gpu_check_part2.sh [--cuda 12.4]
# Prints PASS/FAIL lines and exits 0 when all passed.
#
# --cuda 12.4: the channel's CUDA 12.4 column instead (build_part2.sh --cuda
# 12.4): `python numpy cupy cuda-version=12.4` -- CuPy built with our CUDA
# 12.4 compiler on CUDA 12.4's libraries, which the CUDA 13 driver runs --
# against the same pip cupy-cuda13x, each library checked to be 12.4's
# (bench/python_stack/cupy_libs_gpu.py), doctor clean; no Dask (its packages
# are the 13.0 run's and CUDA-independent).
cuda=13.0
while [ $# -gt 0 ]; do
  case "$1" in
    --cuda) cuda=$2; shift 2 ;;
    *) echo "usage: $0 [--cuda 12.4|13.0]" >&2; exit 2 ;;
  esac
done
source "$(dirname "${BASH_SOURCE[0]}")/device_stack.sh"

if [ "$cuda" = 13.0 ]; then
  # numba-cuda: distributed's serializer for CuPy arrays imports numba.cuda.
  create_env python numpy cupy dask-core distributed numba-cuda cuda-version=13.0
else
  create_env python numpy cupy "cuda-version=$cuda"
fi
python=$work/env/bin/python

echo "===== CuPy with gpuenv's build"
"$gpuenv" run -p "$work/env" python "$root/bench/python_stack/cupy_gpu.py" --label gpuenv 2>&1 | tee "$work/gpuenv.txt"
check "gpuenv's CuPy: every result equal to NumPy's" test "${PIPESTATUS[0]}" -eq 0

echo "===== CuPy's CUDA libraries in gpuenv's environment (CUDA $cuda)"
"$gpuenv" run -p "$work/env" python "$root/bench/python_stack/cupy_libs_gpu.py" --label gpuenv --cuda "$cuda" 2>&1 |
  tee "$work/libs.txt"
check "gpuenv's environment: cuBLAS, cuSOLVER, cuFFT, cuRAND, cuSPARSE and NVRTC of CUDA $cuda agree with NumPy" \
  test "${PIPESTATUS[0]}" -eq 0

echo "===== the same with this machine's own pip-installed cupy-cuda13x"
python3 -m pip list 2>/dev/null | grep -iE "^(cupy|cupy-cuda13x|numpy|nvidia-.*) " || true
python3 "$root/bench/python_stack/cupy_gpu.py" --label pip 2>&1 | tee "$work/pip.txt"
check "the machine's cupy-cuda13x: every result equal" test "${PIPESTATUS[0]}" -eq 0

python3 "$root/bench/python_stack/compare_results.py" "$work/gpuenv.txt" "$work/pip.txt" elementwise_s reduction_s stencil_s | tee "$work/compare.txt"
check "gpuenv's CuPy within 10% of the pip-installed cupy-cuda13x's" test "${PIPESTATUS[0]}" -eq 0

if [ "$cuda" = 13.0 ]; then
  echo "===== Dask Array with CuPy chunks against the same code on NumPy chunks; distributed"
  "$gpuenv" run -p "$work/env" python "$root/bench/python_stack/dask_cupy_gpu.py" 2>&1 | tee "$work/dask.txt"
  check "Dask with CuPy chunks: every result equal to NumPy chunks' (stencil, reductions, SVD, distributed)" \
    test "${PIPESTATUS[0]}" -eq 0
fi

echo "===== gpuenv doctor -p ENV"
"$gpuenv" doctor -p "$work/env" 2>&1 | tail -n 30 | tee "$work/doctor.out"
check "gpuenv doctor exits 0" test "${PIPESTATUS[0]}" -eq 0

echo "===== $failures failed"
exit $((failures > 0))
