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

# configure links -lcuda, -lcudart and -lnvidia-ml. A full toolkit has them
# (lib64/stubs, as conda-forge's cuda-driver-dev and cuda-nvml-dev); NVIDIA's
# wheels, the toolkit of the CUDA 13 CI image, carry libcudart.so.13 without
# its libcudart.so link and no stubs. What the toolkit lacks is made here, in
# the work directory and never installed: libcudart.so pointing at the real
# library, and link stubs -- every function cuda.h / nvml.h names, under the
# driver library's soname -- so the linker records libcuda.so.1 and
# libnvidia-ml.so.1 and the driver's own libraries load at run time.
add_missing_cuda_link_libraries() {  # CUDA_ROOT
  local root=$1 stubs=$PWD/.cuda-link-stubs
  mkdir -p "$stubs"
  local search=(-L"$root/lib64" -L"$root/lib64/stubs" -L"$root/lib" -L"$root/lib/stubs" -L"$stubs")
  echo 'int main(void) { return 0; }' > "$stubs/probe.c"
  links() {
    # shellcheck disable=SC2086 # LDFLAGS holds several words
    "${CC:-cc}" "$stubs/probe.c" -o "$stubs/probe" ${LDFLAGS:-} "${search[@]}" "-l$1" > /dev/null 2>&1
  }
  header() {  # the first NAME.h under the toolkit or a -I directory of CPPFLAGS
    local directory
    for directory in "$root/include" $(printf '%s\n' ${CPPFLAGS:-} | sed -n 's/^-I//p'); do
      [ -f "$directory/$1" ] && { echo "$directory/$1"; return 0; }
    done
    return 0  # none: configure then names what is missing
  }
  local made=no
  if ! links cudart; then
    local runtime
    runtime=$(ls "$root"/lib64/libcudart.so.* "$root"/lib/libcudart.so.* 2>/dev/null | head -n 1 || true)
    if [ -n "$runtime" ]; then
      ln -sf "$runtime" "$stubs/libcudart.so" && made=yes
      echo "link library: libcudart.so -> $runtime (the toolkit has no libcudart.so)"
    fi
  fi
  local library name soname pattern file
  for library in cuda:libcuda.so.1:cuda.h:'cu[A-Z][A-Za-z0-9_]*' nvidia-ml:libnvidia-ml.so.1:nvml.h:'nvml[A-Z][A-Za-z0-9_]*'; do
    IFS=: read -r name soname file pattern <<< "$library"
    links "$name" && continue
    file=$(header "$file")
    [ -n "$file" ] || continue
    grep -ohE "\b$pattern\b" "$file" | sort -u | awk '{ print "int " $1 "(void) { return 999; }" }' > "$stubs/$name.c"
    "${CC:-cc}" -shared -fPIC -Wl,-soname,"$soname" -o "$stubs/lib$name.so" "$stubs/$name.c"
    echo "link stub: lib$name.so ($soname, $(wc -l < "$stubs/$name.c") functions of $file)"
    made=yes
  done
  if [ "$made" = yes ]; then LDFLAGS="${LDFLAGS:-} -L$stubs"; fi
}

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
  add_missing_cuda_link_libraries "$cuda_root"
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
