#!/bin/bash
# libstencil.so (nvcc, the CUDA runtime linked statically so the package
# needs only the driver) and stencil-check (the C++ compiler), for the
# architectures gpuenv build passes in CUDAARCHS (CMake's syntax: "75-real"
# is SASS only, "90" SASS and PTX, "90-virtual" PTX only).
set -euo pipefail

gencode=()
IFS=';' read -ra architectures <<< "${CUDAARCHS:?CUDAARCHS is not set: build with gpuenv build or set it}"
for architecture in "${architectures[@]}"; do
  case "$architecture" in
    *-real) number=${architecture%-real}; gencode+=(-gencode "arch=compute_${number},code=sm_${number}") ;;
    *-virtual) number=${architecture%-virtual}; gencode+=(-gencode "arch=compute_${number},code=compute_${number}") ;;
    *) gencode+=(-gencode "arch=compute_${architecture},code=[sm_${architecture},compute_${architecture}]") ;;
  esac
done

NVCC=${NVCC:-nvcc}
CXX=${CXX:-g++}
mkdir -p "$PREFIX/lib" "$PREFIX/bin" "$PREFIX/include"
"$NVCC" -O2 -std=c++17 -ccbin "$CXX" -shared -Xcompiler -fPIC "${gencode[@]}" \
  -Xlinker -soname=libstencil.so -o "$PREFIX/lib/libstencil.so" stencil.cu
"$CXX" -O2 -std=c++17 -I. stencil_check.cpp -L"$PREFIX/lib" -lstencil \
  -Wl,-rpath,'$ORIGIN/../lib' -o "$PREFIX/bin/stencil-check"
cp stencil.h "$PREFIX/include/stencil.h"
