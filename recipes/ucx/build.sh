#!/bin/bash
# UCX with conda-forge's configure flags (ucx-split feedstock's install_ucx.sh);
# the differences: no InfiniBand (the channels carry no rdma-core), no
# OpenMP (libgomp would come from the machine's compiler, which no package
# provides), Java and Go bindings off.
set -euo pipefail

# Debian's ucx 1.13.1 source (apt-get source ucx, through --source) is the
# git tree without the generated configure script, and predates CUDA 13:
# patches/1.13.1/ adapts it (each patch says why). Release tarballs carry
# configure and need neither.
if [ "${PKG_VERSION}" = "1.13.1" ]; then
  for patch_file in "${RECIPE_DIR}"/patches/1.13.1/*.patch; do
    [ -e "$patch_file" ] || continue
    echo "applying $(basename "$patch_file")"
    patch -p1 --forward --no-backup-if-mismatch < "$patch_file"
  done
fi
if [ ! -x configure ]; then
  ./autogen.sh
fi

cuda_arguments=()
if [ "${cuda_compiler_version:-None}" != "None" ]; then
  # CUDA_HOME: the machine's toolkit, or conda-forge's cuda-nvcc activation;
  # without it the host prefix holds the CUDA packages.
  cuda_root=${CUDA_HOME:-$PREFIX}
  cuda_arguments+=("--with-cuda=${cuda_root}")
  # conda-forge's CUDA packages keep headers and link stubs under
  # targets/<arch>; configure looks in <root>/include and <root>/lib64.
  for directory in "$PREFIX/include" "$PREFIX"/targets/*/include; do
    [ -d "$directory" ] && CPPFLAGS="${CPPFLAGS:-} -I$directory"
  done
  for directory in "$PREFIX/lib/stubs" "$PREFIX"/targets/*/lib/stubs "$PREFIX/lib" "$PREFIX"/targets/*/lib; do
    [ -d "$directory" ] && LDFLAGS="${LDFLAGS:-} -L$directory"
  done
else
  cuda_arguments+=(--without-cuda)
fi
# conda-forge's compiler activation puts $PREFIX/lib in every link's rpath;
# the machine's compilers do not. Without it lib/ucx/libucx_perftest_cuda.so
# (no UCX library among its dependencies, so libtool adds no rpath) cannot
# find the environment's libcudart when UCX loads it. gpuenv build makes it
# $ORIGIN-relative.
LDFLAGS="${LDFLAGS:-} -Wl,-rpath,$PREFIX/lib"
# UCX builds with -Werror; 1.13's libperf.c has `#pragma omp` outside
# `#if _OPENMP`, an error without OpenMP (fixed upstream since).
export CFLAGS="${CFLAGS:-} -Wno-unknown-pragmas" CPPFLAGS="${CPPFLAGS:-}" LDFLAGS="${LDFLAGS:-}"

./contrib/configure-release \
  --prefix="$PREFIX" \
  --disable-static \
  --disable-openmp \
  --enable-cma \
  --enable-mt \
  --with-gnu-ld \
  --without-verbs \
  --without-rdmacm \
  --without-knem \
  --without-xpmem \
  --without-java \
  --without-go \
  "${cuda_arguments[@]}" || { tail -n 200 config.log; exit 1; }

make -j"${CPU_COUNT:-1}"
make install
