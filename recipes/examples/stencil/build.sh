#!/bin/bash
# libstencil.so (nvcc, the CUDA runtime linked statically so the package
# needs only the driver) and stencil-check (the C++ compiler), for the
# architectures gpuenv build passes in CUDAARCHS (CMake's syntax: "75-real"
# is SASS only, "90" SASS and PTX, "90-virtual" PTX only); the CPU variant
# (cuda_compiler_version None) compiles the same source as plain C++.
set -euo pipefail

NVCC=${NVCC:-nvcc}
CXX=${CXX:-g++}
mkdir -p "$PREFIX/lib" "$PREFIX/bin" "$PREFIX/include"
if [ "${cuda_compiler_version:-None}" = "None" ]; then
  # The CPU build: the same source as C++, stencil_smooth reports no device.
  "$CXX" -O2 -std=c++17 -x c++ -shared -fPIC -Wl,-soname=libstencil.so -o "$PREFIX/lib/libstencil.so" stencil.cu
else
  gencode=()
  IFS=';' read -ra architectures <<< "${CUDAARCHS:?CUDAARCHS is not set: build with gpuenv build or set it}"
  for architecture in "${architectures[@]}"; do
    case "$architecture" in
      *-real) number=${architecture%-real}; gencode+=(-gencode "arch=compute_${number},code=sm_${number}") ;;
      *-virtual) number=${architecture%-virtual}; gencode+=(-gencode "arch=compute_${number},code=compute_${number}") ;;
      *) gencode+=(-gencode "arch=compute_${architecture},code=[sm_${architecture},compute_${architecture}]") ;;
    esac
  done
  "$NVCC" -O2 -std=c++17 -ccbin "$CXX" -shared -Xcompiler -fPIC "${gencode[@]}" \
    -Xlinker -soname=libstencil.so -o "$PREFIX/lib/libstencil.so" stencil.cu
  # nvcc names its temporary file (tmpxft_<pid>_...) as the object's source
  # in the symbol table; without that table two builds give the same bytes.
  strip --strip-unneeded "$PREFIX/lib/libstencil.so"
fi
"$CXX" -O2 -std=c++17 -I. stencil_check.cpp -L"$PREFIX/lib" -lstencil \
  -Wl,-rpath,'$ORIGIN/../lib' -o "$PREFIX/bin/stencil-check"
cp stencil.h "$PREFIX/include/stencil.h"
