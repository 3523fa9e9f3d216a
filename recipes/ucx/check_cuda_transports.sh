#!/bin/bash
# The CUDA variant's test: UCX was built with CUDA, its CUDA transport module
# is in the package, and -- where a GPU and the CUDA runtime are present --
# `ucx_info -d` lists the cuda_copy and cuda_ipc transports. Without a driver
# UCX reports no CUDA device and lists neither (checked here on a machine
# without a GPU: the module loads, queries the driver, finds none), so that
# listing is only required where /dev/nvidiactl exists.
set -euo pipefail
ucx_info -b > build_configuration.txt
grep -Eq "^#define HAVE_CUDA +1$" build_configuration.txt || { echo "ucx_info -b: UCX was built without CUDA"; exit 1; }
test -f "$PREFIX/lib/ucx/libuct_cuda.so" || { echo "lib/ucx/libuct_cuda.so is missing"; exit 1; }
ucx_info -d > cuda_transports.txt 2>&1 || { cat cuda_transports.txt; exit 1; }
if grep -q "Transport: cuda_copy" cuda_transports.txt; then
  grep -q "Transport: cuda_ipc" cuda_transports.txt || { echo "ucx_info -d lists cuda_copy but not cuda_ipc"; exit 1; }
  echo "ucx_info -d lists cuda_copy and cuda_ipc"
elif [ -e /dev/nvidiactl ]; then
  echo "a GPU is present but ucx_info -d lists no cuda_copy transport (is the CUDA runtime, cuda-cudart, installed?):"
  grep -i cuda cuda_transports.txt || true
  exit 1
else
  echo "no GPU here: ucx_info -d lists no CUDA transport; the CUDA module and build configuration were checked"
fi
