#!/bin/bash
# conda-forge's blas-feedstock recipe/build_pkg.sh and install_blas_devel.sh
# for blas_impl openblas on linux: each lib<name>.so.3 (and lib<name>.so) is
# a link to the implementation, libopenblas.so.0 (relative links here).
set -ex
impl_lib=libopenblas.so.0
mkdir -p "$PREFIX/lib"
case "$PKG_NAME" in
  libblas | libcblas | liblapack | liblapacke)
    ln -s "$impl_lib" "$PREFIX/lib/$PKG_NAME.so.${PKG_VERSION:0:1}"
    ln -s "$impl_lib" "$PREFIX/lib/$PKG_NAME.so"
    ;;
  blas-devel)
    mkdir -p "$PREFIX/lib/pkgconfig"
    for name in blas cblas lapack; do ln -s openblas.pc "$PREFIX/lib/pkgconfig/$name.pc"; done
    ;;
  blas)
    ;;
esac
