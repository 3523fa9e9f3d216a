#!/usr/bin/env bash
# The real-GPU check of `gpuenv doctor` (issue 12): on a machine with a GPU,
# doctor's verdict for each test library must match what really happens when
# a kernel of that library is launched.
#
#   bench/cuda_binary/device_check.sh prepare DIR   # here: needs nvcc, g++ and a built gpuenv
#   bash DIR/device_check.sh run DIR                # on the GPU machine: needs only the driver
#
# `prepare` compiles four shared libraries holding the same kernel, each for
# one target only (sm_80, sm_90, PTX compute_90, sm_100; the CUDA runtime
# linked statically, since the GPU machine has no toolkit), a launcher that
# dlopens one and launches its kernel, and copies gpuenv (build/dev, or
# GPUENV=path) with the non-glibc libraries it needs. `run` prints doctor's
# verdicts, then each real launch, then MATCH/MISMATCH per library.
set -euo pipefail
mode=${1:?prepare or run}
dir=${2:?directory}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

prepare() {
  local root nvcc gpuenv
  root=$(cd "$here/../.." && pwd)
  nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}
  gpuenv=${GPUENV:-$root/build/dev/src/cli/gpuenv}
  rm -rf "$dir"
  mkdir -p "$dir/prefix/lib" "$dir/bin"
  cat >"$dir/kernel.cu" <<'CU'
#include <cuda_runtime.h>
extern "C" __global__ void add_one(int* values) { values[threadIdx.x] += 1; }
// Launches the kernel once and says how it went, as the CUDA runtime words it.
extern "C" const char* launch_add_one() {
  int* values = nullptr;
  cudaError_t error = cudaMalloc(&values, 32 * sizeof(int));
  if (error != cudaSuccess) return cudaGetErrorString(error);
  cudaMemset(values, 0, 32 * sizeof(int));
  add_one<<<1, 32>>>(values);
  error = cudaGetLastError();
  if (error == cudaSuccess) error = cudaDeviceSynchronize();
  int host[32] = {};
  if (error == cudaSuccess) error = cudaMemcpy(host, values, sizeof host, cudaMemcpyDeviceToHost);
  cudaFree(values);
  if (error != cudaSuccess) return cudaGetErrorString(error);
  return host[31] == 1 ? "success" : "wrong result";
}
CU
  local name gencode
  for pair in "sm80:arch=compute_80,code=sm_80" "sm90:arch=compute_90,code=sm_90" \
              "ptx90:arch=compute_90,code=compute_90" "sm100:arch=compute_100,code=sm_100"; do
    name=${pair%%:*}
    gencode=${pair#*:}
    "$nvcc" -shared -Xcompiler -fPIC --cudart=static -gencode "$gencode" "$dir/kernel.cu" \
      -o "$dir/prefix/lib/libadd_$name.so"
  done
  strip "$dir"/prefix/lib/*.so
  cat >"$dir/launcher.cpp" <<'CPP'
#include <dlfcn.h>
#include <cstdio>
int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    void* library = dlopen(argv[i], RTLD_NOW | RTLD_LOCAL);
    if (!library) { std::printf("%s: dlopen failed: %s\n", argv[i], dlerror()); continue; }
    auto launch = reinterpret_cast<const char* (*)()>(dlsym(library, "launch_add_one"));
    std::printf("%s: %s\n", argv[i], launch ? launch() : "no launch_add_one");
  }
}
CPP
  g++ -O2 "$dir/launcher.cpp" -ldl -o "$dir/bin/launcher"
  cp "$gpuenv" "$dir/bin/gpuenv"
  strip "$dir/bin/gpuenv"
  local glibc='^(linux-vdso|ld-linux|libc|libm|libpthread|libdl|librt|libresolv|libutil)\.so'
  ldd "$dir/bin/gpuenv" | awk '$3 ~ /^\// {print $1, $3}' | while read -r lib path; do
    [[ $lib =~ $glibc ]] || cp -L "$path" "$dir/bin/$lib"
  done
  cp "$here/device_check.sh" "$dir/device_check.sh"
  du -sh "$dir"
}

run() {
  local gpuenv="$dir/bin/gpuenv"
  export LD_LIBRARY_PATH="$dir/bin${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  export GPUENV_CACHE_DIR=$(mktemp -d)
  echo "== nvidia-smi"
  nvidia-smi --query-gpu=name,compute_cap,driver_version --format=csv,noheader || true
  echo "== gpuenv inspect"
  "$gpuenv" inspect "$dir"/prefix/lib/*.so
  echo "== gpuenv doctor (exit status expected 1: two libraries cannot run)"
  "$gpuenv" doctor -p "$dir/prefix" && echo "doctor exit 0" || echo "doctor exit $?"
  "$gpuenv" doctor -p "$dir/prefix" --json >"$dir/doctor.json" || true
  echo "== real launches"
  "$dir/bin/launcher" "$dir"/prefix/lib/*.so | tee "$dir/launches.txt"
  echo "== verdicts against outcomes"
  python3 - "$dir" <<'PY'
import json, sys, os
directory = sys.argv[1]
doctor = json.load(open(os.path.join(directory, "doctor.json")))
launches = {}
for line in open(os.path.join(directory, "launches.txt")):
    path, _, outcome = line.rstrip("\n").partition(": ")
    launches[os.path.basename(path)] = outcome
failures = 0
for library in doctor["libraries"]:
    name = os.path.basename(library["path"])
    verdict = library["verdicts"][0]
    outcome = launches.get(name, "not launched")
    runs = verdict["verdict"] in ("native", "ptx_jit")
    matches = (outcome == "success") if runs else (outcome == verdict["runtime_error"])
    failures += not matches
    print(f"{'MATCH' if matches else 'MISMATCH'} {name}: doctor {verdict['verdict']} "
          f"({verdict['runtime_error'] or verdict['target']}); launch: {outcome}")
print("all verdicts match the real outcomes" if failures == 0 else f"{failures} mismatches")
sys.exit(1 if failures else 0)
PY
}

case "$mode" in
  prepare) prepare ;;
  run) run ;;
  *) echo "usage: $0 prepare|run DIR" >&2; exit 2 ;;
esac
