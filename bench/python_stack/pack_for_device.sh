#!/usr/bin/env bash
# Splits what bench/python_stack/gpu_check.sh needs on the GPU machine into
# pieces the device tool can carry (at most 64 MiB a call with the working
# tree): build/device-pieces/piece1 holds a portable gpuenv
# (bench/cuda_detection/build_portable.sh) as gpu-portable.tar.xz, then the channel's
# packages go, largest first, into the piece with the most room (each piece
# at most PIECE_MIB, default 52). Every piece unpacks into the same tree:
#   bin/gpuenv ... channel/<subdir>/<package>.conda
# Prints the pieces and their sizes.
#
#   bench/python_stack/pack_for_device.sh CHANNEL [PACKAGE-NAME...]
# With names, only those packages' files (every version and build) go; a
# whole file name (name-version-build.conda) names that one file.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
channel=$(cd "${1:?usage: $0 CHANNEL [PACKAGE-NAME...]}" && pwd)
shift
limit=$(( ${PIECE_MIB:-52} * 1024 * 1024 ))
out=$root/build/device-pieces
rm -rf "$out"
mkdir -p "$out/piece1"
if [ ! -x "$root/build/gpu-portable/gpuenv" ]; then "$root/bench/cuda_detection/build_portable.sh" >&2; fi
# The bundle is 63 MB (libarchive brings libxml2 and ICU's data); xz makes it
# 18 MB, and Python's tarfile unpacks it there (no xz program needed).
tar -cJf "$out/piece1/gpu-portable.tar.xz" -C "$root/build/gpu-portable" .

files=()
while IFS= read -r file; do files+=("$file"); done < <(
  cd "$channel" && find linux-64 noarch -maxdepth 1 -name '*.conda' -printf '%s %p\n' 2>/dev/null | sort -rn | cut -d' ' -f2-)
declare -A used
used[1]=$(du -sb "$out/piece1" | cut -f1)
pieces=1
for file in "${files[@]}"; do
  name=$(basename "$file")
  if [ $# -gt 0 ]; then
    wanted=0
    for each in "$@"; do [[ $name == "$each" || $name == "$each"-[0-9]* ]] && wanted=1; done
    [ "$wanted" = 1 ] || continue
  fi
  # A package larger than a piece (cuda-nvrtc: 68 MB) travels as parts that
  # gpu_check.sh joins again (the package's sha256 is checked on install).
  parts=("$channel/$file")
  if [ "$(stat -c %s "$channel/$file")" -gt "$limit" ]; then
    mkdir -p "$out/split"
    split -b $((limit / 2)) -d "$channel/$file" "$out/split/$name.part"
    parts=("$out/split/$name".part*)
  fi
  for part in "${parts[@]}"; do
    size=$(stat -c %s "$part")
    best=0
    for ((k = 1; k <= pieces; k++)); do
      if [ $((used[$k] + size)) -le "$limit" ] && { [ "$best" = 0 ] || [ "${used[$k]}" -lt "${used[$best]}" ]; }; then best=$k; fi
    done
    if [ "$best" = 0 ]; then pieces=$((pieces + 1)); best=$pieces; used[$best]=0; fi
    mkdir -p "$out/piece$best/channel/$(dirname "$file")"
    cp "$part" "$out/piece$best/channel/$(dirname "$file")/$(basename "$part")"
    used[$best]=$((used[$best] + size))
  done
done
rm -rf "$out/split"
for ((k = 1; k <= pieces; k++)); do
  echo "piece$k: $((used[$k] / 1048576)) MiB, $(find "$out/piece$k" -name '*.conda*' | wc -l) files"
done
