#!/usr/bin/env bash
# Builds gpuenv and the detection benchmark here, for a GPU machine that
# cannot build them itself (no network for scripts/setup.sh, no -dev
# packages there). Every shared library gpuenv needs except glibc's own is
# copied beside the binary and found through an $ORIGIN rpath (DT_RPATH, so
# it also serves the libraries' own dependencies); the target then needs only
# glibc >= 2.36 (Debian 12, Ubuntu 24.04). libsolv is linked statically anyway.
# Output: build/gpu-portable/ (gpuenv, cuda_detection_bench, lib*.so.*).
#
#   bench/cuda_detection/build_portable.sh
#   then on the GPU machine: carry build/gpu-portable and run
#   GPUENV_PREBUILT=build/gpu-portable bash bench/gpu_check.sh
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
work=build/gpu-portable-build
out=build/gpu-portable
rpath='-Wl,--disable-new-dtags,-rpath,$ORIGIN'
# CMake escapes $ORIGIN for Ninja itself when it comes as the build rpath.
# GPUENV_BINARY=build/dev/src/cli/gpuenv: take a gpuenv built already (its
# rpath is replaced below) instead of a Release build of its own.
if [ -z "${GPUENV_BINARY:-}" ]; then
  cmake -S . -B "$work" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGPUENV_BUILD_TESTS=OFF \
    '-DCMAKE_BUILD_RPATH=$ORIGIN' -DCMAKE_EXE_LINKER_FLAGS=-Wl,--disable-new-dtags >/dev/null
  cmake --build "$work" --target gpuenv >&2
fi
rm -rf "$out"
mkdir -p "$out"
cp "${GPUENV_BINARY:-$work/src/cli/gpuenv}" "$out/gpuenv"
strip "$out/gpuenv"
[ -z "${GPUENV_BINARY:-}" ] || patchelf --force-rpath --set-rpath '$ORIGIN' "$out/gpuenv"
g++ -std=c++23 -O2 -I src "$rpath" bench/cuda_detection/cuda_detection_bench.cpp -ldl \
  -o "$out/cuda_detection_bench"
# glibc's libraries must come from the target (they go with its ld.so).
glibc='^(linux-vdso|ld-linux|libc|libm|libpthread|libdl|librt|libresolv|libutil)\.so'
# gpuenv dlopens libcurl.so.4 (downloads): it and its libraries come along
# too, or the target's libcurl would be loaded beside this machine's older
# nettle and fail (seen on Ubuntu 24.04: undefined nettle_siv_gcm_* symbols).
# dlopen from gpuenv searches its DT_RPATH, $ORIGIN.
libcurl=$(ldconfig -p | awk '$1 == "libcurl.so.4" {print $NF; exit}')
cp -L "$libcurl" "$out/libcurl.so.4"
for binary in "$out/gpuenv" "$out/cuda_detection_bench" "$out/libcurl.so.4"; do
  ldd "$binary" | awk '$3 ~ /^\// {print $1, $3}' | while read -r name path; do
    [[ $name =~ $glibc ]] || [ -e "$out/$name" ] || cp -L "$path" "$out/$name"
  done
done
# The copied libraries find each other through $ORIGIN as well.
for library in "$out"/lib*.so*; do patchelf --force-rpath --set-rpath '$ORIGIN' "$library"; done
du -sh "$out"
ls "$out"
