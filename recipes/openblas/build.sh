#!/bin/bash
# OpenBLAS as conda-forge's openblas-feedstock builds it on linux-64
# (recipe/build.sh there): DYNAMIC_ARCH with PRESCOTT as the baseline,
# LAPACK(E) included, BFLOAT16, NO_AFFINITY, pthreads (USE_OPENMP=0), 128
# threads at most. Two deliberate differences, for build time on a shared
# 2-core machine:
# - DYNAMIC_LIST limits the kernel sets to PRESCOTT (always built: the
#   generic SSE3 fallback), HASWELL (AVX2) and SKYLAKEX (AVX-512); every other
#   CPU gets the nearest set driver/others/dynamic.c names: ZEN -> HASWELL,
#   COOPERLAKE and SAPPHIRERAPIDS -> SKYLAKEX, NEHALEM and SANDYBRIDGE ->
#   PRESCOTT. The feedstock builds every x86-64 set (about 20). Add sets to
#   DYNAMIC_LIST where build time allows (ZEN, SAPPHIRERAPIDS, SANDYBRIDGE).
# - OpenBLAS's own tests (run as part of `make` there) are skipped: `make
#   shared`, not `make`.
set -ex

# conda-forge unsets CFLAGS (OpenBLAS issue 818) and passes them as CFLAGS=.
CF="${CFLAGS:-}"
unset CFLAGS
export FFLAGS="${FFLAGS:-} -frecursive"
# compiler('fortran') (gfortran_linux-64) is not in gpuenv's channels and the
# builder has no machine fallback for Fortran (only gcc/g++): the machine's.
export FC="${FC:-gfortran}"
command -v "$FC" > /dev/null || { echo "no Fortran compiler ($FC): LAPACK needs one" >&2; exit 1; }

options=(DYNAMIC_ARCH=1 TARGET=PRESCOTT "DYNAMIC_LIST=HASWELL SKYLAKEX"
         BUILD_BFLOAT16=1 BINARY=64 NO_LAPACK=0 NO_AFFINITY=1 USE_THREAD=1 NUM_THREADS=128 USE_OPENMP=0
         INTERFACE64=0 "CC=${CC}" "FC=${FC}" "CFLAGS=${CF}" "FFLAGS=${FFLAGS}")

# gpuenv builds each output of a recipe in a fresh work directory and has no
# staging (cache) output yet, so the compiled tree is kept beside the work
# directories (<output>/bld/) and the second output only installs from it.
key=$( (printf '%s\n' "${options[@]}"; cat "$RECIPE_DIR/build.sh";
        cd "$SRC_DIR" && cat Makefile Makefile.system Changelog.txt lapack-netlib/SRC/Makefile) | sha256sum | cut -c1-16)
tree=${OPENBLAS_BUILD_TREE:-$(cd "$SRC_DIR/../.." && pwd)/openblas-build-${PKG_VERSION}-${key}}
if [ ! -f "$tree/.gpuenv-built" ]; then
  rm -rf "$tree"
  cp -a "$SRC_DIR" "$tree"
  if ! grep -q "filter out optimized codes from OpenBLAS" "$tree/lapack-netlib/SRC/Makefile"; then
    # lapack-netlib/ is Reference-LAPACK's release, not OpenBLAS's copy of it:
    # Debian's OpenBLAS source (+ds) leaves lapack-netlib/ out, and
    # bench/python_stack/fetch_debian_sources_blas_llvm.sh puts Debian's lapack
    # source (upstream's v3.12.1 archive) there, as Debian builds OpenBLAS on
    # its lapack package. Two adjustments OpenBLAS's copy carries:
    # - the routines OpenBLAS implements itself (interface/lapack) and its
    #   xerbla/lsame stay out of the archive; `ar -ru` would otherwise replace
    #   OpenBLAS's optimized getrf, potrf, ... with the reference ones;
    # - ?combssq (removed in LAPACK 3.10.1) is no longer exported or linked
    #   (exports/gensymbol), as Debian's combssq-deprecate.patch does.
    echo "lapack-netlib is Reference-LAPACK's: leaving out what OpenBLAS implements itself"
    own=(xerbla.o ../INSTALL/lsame.o)
    for p in s d c z; do
      for r in getrf getrs potrf getf2 potf2 laswp gesv lauu2 lauum trti2 trtri trtrs symv syr spmv spr; do
        own+=("$p$r.o")
      done
    done
    sed -i "/^   \$(SCLAUX) \$(DZLAUX) \$(ALLAUX)\$/a ALLOBJ := \$(filter-out ${own[*]},\$(ALLOBJ))" \
      "$tree/lapack-netlib/SRC/Makefile"
    grep -q '^ALLOBJ := $(filter-out xerbla.o' "$tree/lapack-netlib/SRC/Makefile" ||
      { echo "lapack-netlib/SRC/Makefile: no ALLOBJ definition to filter (not Reference-LAPACK 3.12?)" >&2; exit 1; }
    sed -i '/^ *[sd]combssq$/d' "$tree/exports/gensymbol"
  fi
  make -C "$tree" -j"${CPU_COUNT}" QUIET_MAKE=1 "${options[@]}" shared
  touch "$tree/.gpuenv-built"
fi
make -C "$tree" install PREFIX="$PREFIX" "${options[@]}"

case "$PKG_NAME" in
  libopenblas)
    # The runtime only: libopenblasp-r<version>.so and libopenblas.so.0.
    rm -rf "$PREFIX/include" "$PREFIX/lib/pkgconfig" "$PREFIX/lib/cmake"
    rm -f "$PREFIX"/lib/libopenblas*.a "$PREFIX/lib/libopenblas.so"
    ;;
  openblas)
    # Headers, the static library, libopenblas.so, pkg-config and CMake
    # files; the runtime came with libopenblas in the host environment.
    ;;
esac
