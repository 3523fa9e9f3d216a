#!/usr/bin/env bash
# Issue 29's stack -- CPython 3.13 and its C libraries, the Python build
# toolchain, OpenBLAS, NumPy, LLVM 15 (Debian's binaries), llvmlite, Numba,
# numba-cuda and the CUDA 13.0 pieces it runs on -- built from source by
# `gpuenv build` into one channel, through the whole-repository path
# (recipes in the order they need each other, --skip-existing=local), and
# the wall time and size of every package printed.
#
#   bench/python_stack/build_part1.sh [--output-dir DIR] [--gpuenv PATH] [--image NAME] [--cuda VERSION] [--slice] [RECIPE...]
#
# Sources: the recipes name upstream's URLs and sha256. Where upstream's host
# is out of reach (GitHub, python.org, zlib.net, ...), Debian's source
# packages carry the same release: fetch_debian_sources*.sh download them
# into <cache>/debian-sources; the files that are upstream's byte for byte
# (the same sha256) are found there by --source-archives, the ones Debian
# repacked (debian-sources.tsv: needs_source yes) are named by --source-for.
#
# --image NAME: inside that CI image (ci-images/NAME; cuda13.0 for the
# issue's figures) through `gpuenv ci run --runner chroot` -- one job per
# recipe variant, in the same order, with the same sources and skipping --
# instead of `gpuenv build` on this machine. Needs root and debootstrap.
#
# --cuda VERSION: the CUDA column (13.0 by default, the variant file's). 12.4
# merges variants-cuda12.4.yaml after variants.yaml (CUDA 12.4's compiler
# from the output channel, its architectures) and selects the recipes/cuda-*
# and library recipes' 12.4 variants; its table and log are
# build-table-cuda12.4.txt and ci-run-cuda12.4.log, so the 13.0 column's stay.
# The CUDA-independent packages are the same for both columns.
#
# --slice: what CI builds (tests/integration/python_stack_slice.sh): the GCC
# runtime and the C libraries CPython needs, through the same code path.
#
# Not for CI in full: about an hour on 2 cores (bench/python_stack/README.md).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
gpuenv=$root/build/dev/src/cli/gpuenv
output=$root/build/python-stack
slice=0
image=
cuda_column=13.0
while [ $# -gt 0 ]; do
  case "$1" in
    --gpuenv) gpuenv=$2; shift 2 ;;
    --output-dir) output=$2; shift 2 ;;
    --image) image=$2; shift 2 ;;
    --cuda) cuda_column=$2; shift 2 ;;
    --slice) slice=1; shift ;;
    -*) echo "usage: $0 [--output-dir DIR] [--gpuenv PATH] [--image NAME] [--cuda VERSION] [--slice] [RECIPE...]" >&2; exit 2 ;;
    *) break ;;
  esac
done
variant_files=(-m "$here/variants.yaml")
tag=
case "$cuda_column" in
  13.0) ;;
  12.4) variant_files+=(-m "$here/variants-cuda12.4.yaml"); tag=-cuda12.4 ;;
  *) echo "$0: --cuda $cuda_column: the stack has a 13.0 and a 12.4 column" >&2; exit 2 ;;
esac
mkdir -p "$output"
output=$(cd "$output" && pwd)
cache=${GPUENV_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/gpuenv}/debian-sources

runtime=(gcc-runtime)  # libgcc, libstdcxx, ...: what the machine compilers' packages export (issue 34)
c_libraries=(zlib bzip2 xz libffi openssl ncurses readline sqlite)
python=(python_abi python)
toolchain=(pip setuptools wheel flit-core packaging pyproject-metadata meson meson-python ninja cython
           tomli typing_extensions vcs-versioning setuptools_scm)
numeric=(openblas blas numpy llvmdev llvmlite numba)
cuda=(cuda-version cuda-nvvm cuda-nvrtc numba-cuda)
if [ $# -gt 0 ]; then
  recipes=("$@")  # a part of the stack, still through the repository build
elif [ "$slice" = 1 ]; then
  recipes=(gcc-runtime zlib bzip2 xz libffi)
else
  recipes=("${runtime[@]}" "${c_libraries[@]}" "${python[@]}" "${toolchain[@]}" "${numeric[@]}" "${cuda[@]}")
fi

started=$(date +%s)
# Exit 77 (skip) from a fetch script when Debian cannot be reached off CI.
"$here/fetch_debian_sources.sh" "${recipes[@]}" > "$output/fetch$tag.log"
if [[ " ${recipes[*]} " == *" openblas "* || " ${recipes[*]} " == *" llvmdev "* ]]; then
  "$here/fetch_debian_sources_blas_llvm.sh" "$cache" >> "$output/fetch$tag.log"
fi

# cuda_version: the recipes/cuda-* components and CUDA libraries only for the
# column's CUDA (their own variants.yaml lists 12.4 and 13.0, some 12.9).
cuda_variants=(--variant "cuda_compiler_version=$cuda_column" --variant "cuda_version=$cuda_column")
common=(--output-dir "$output" "${variant_files[@]}" -c "$output" --override-channels
        "${cuda_variants[@]}" --skip-existing=local)
# The repacked ones take Debian's archive as their source (--source-for), in
# the repository build's order like the rest.
overrides=()
while IFS=$'\t' read -r recipe _ file _ _ needs_source _; do
  [[ $recipe == \#* || $needs_source != yes ]] && continue
  [[ " ${recipes[*]} " == *" $recipe "* ]] && overrides+=(--source-for "$recipe=$cache/$file")
done < "$here/debian-sources.tsv"
# OpenBLAS: Debian's +ds tarball lacks lapack-netlib/, which
# fetch_debian_sources_blas_llvm.sh fills with Debian's lapack source (see there).
if [[ " ${recipes[*]} " == *" openblas "* ]]; then
  overrides+=(--source-for "openblas=$cache/OpenBLAS-0.3.29+ds+lapack-3.12.1")
fi

paths=()
for recipe in "${recipes[@]}"; do paths+=("$root/recipes/$recipe"); done
if [ -n "$image" ]; then
  # The image's builds see the output channel itself (mounted read-write);
  # --variant here selects the variant files' variants of the column's CUDA.
  echo "===== gpuenv ci run --image $image (${#recipes[@]} recipes, CUDA $cuda_column) --source-archives $cache" >&2
  (cd "$root" && nice "$gpuenv" ci run "${paths[@]}" --image "$image" --runner chroot --output-dir "$output" \
     "${variant_files[@]}" --override-channels "${cuda_variants[@]}" --skip-existing=local \
     --source-archives "$cache" "${overrides[@]}") 2> "$output/ci-run$tag.log" | tee "$output/build-table$tag.txt"
else
  echo "===== gpuenv build (${#recipes[@]} recipes, CUDA $cuda_column) --source-archives $cache" >&2
  nice "$gpuenv" build "${paths[@]}" "${common[@]}" --source-archives "$cache" "${overrides[@]}" |
    tee "$output/build-table$tag.txt"
fi

echo
echo "packages (bytes):"
find "$output/linux-64" "$output/noarch" -name '*.conda' -printf '%10s  %f\n' | sort -k2
echo "total: $(find "$output" -name '*.conda' | wc -l) packages, $(du -ch "$output"/*/*.conda | tail -n 1 | cut -f1), $(( $(date +%s) - started )) s wall"
