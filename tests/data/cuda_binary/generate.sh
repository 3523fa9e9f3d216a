#!/usr/bin/env bash
# Regenerates the tiny CUDA binaries the cuda_binary tests read without a CUDA
# toolkit (checked in; run by hand with nvcc 13.0 on PATH, then update the
# expected listings in tests/unit/cuda_binary/test_committed_binaries.cpp).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat >"$work/kernel.cu" <<'CU'
extern "C" __global__ void add_one(int* values) { values[threadIdx.x] += 1; }
CU
cat >"$work/launch.cu" <<'CU'
extern "C" __global__ void add_one(int* values) { values[threadIdx.x] += 1; }
extern "C" int add_one_on_device(int* device_values, int count) {
  add_one<<<1, count>>>(device_values);
  return static_cast<int>(cudaGetLastError());
}
CU
k="$work/kernel.cu"
nvcc --fatbin -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90a,code=sm_90a \
  -gencode arch=compute_90,code=compute_90 --compress-mode=none "$k" -o sm80_sm90a_ptx90.fatbin
nvcc --fatbin -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=compute_90 \
  -Xfatbin -compress-all "$k" -o zstd_all.fatbin
nvcc --fatbin -gencode arch=compute_80,code=[sm_80,compute_80] --compress-mode=speed "$k" -o lz4_ptx.fatbin
nvcc --fatbin -gencode arch=compute_100f,code=sm_100f -gencode arch=compute_100a,code=sm_100a \
  -gencode arch=compute_120a,code=compute_120a --compress-mode=size "$k" -o family_specific.fatbin
nvcc --cubin -arch=sm_90a "$k" -o sm_90a.cubin
nvcc --ptx -arch=compute_86 "$k" -o compute_86.ptx
nvcc -rdc=true -lib -gencode arch=compute_75,code=sm_75 -gencode arch=compute_89,code=[sm_89,compute_89] \
  "$k" -o librdc.a
# Shared libraries as a package would ship them: one GPU architecture each,
# the CUDA runtime linked dynamically so they stay small.
nvcc -shared -Xcompiler -fPIC --cudart=shared -gencode arch=compute_80,code=sm_80 "$work/launch.cu" -o libadd_sm80.so
nvcc -shared -Xcompiler -fPIC --cudart=shared -gencode arch=compute_90,code=sm_90 "$work/launch.cu" -o libadd_sm90.so
# A library without device code of its own, as NVIDIA's libcufftw: nvcc
# still embeds a cubin for its architecture that defines nothing.
printf 'extern "C" int host_only(int x) { return x + 1; }\n' > "$work/host_only.cu"
nvcc -shared -Xcompiler -fPIC --cudart=shared -gencode arch=compute_75,code=sm_75 "$work/host_only.cu" \
  -o libhost_only_sm75.so
strip libadd_sm80.so libadd_sm90.so libhost_only_sm75.so
ls -l
