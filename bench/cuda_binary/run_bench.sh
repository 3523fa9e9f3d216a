#!/usr/bin/env bash
# Times `gpuenv inspect` over every regular file of a CUDA toolkit's lib64
# (warm page cache) against `cuobjdump --list-elf --list-ptx` over the same
# files, and prints the ratio. Then, unless --no-compare, checks that the
# architectures and PTX ISA versions agree file by file
# (compare_with_cuobjdump.py).
#
#   bench/cuda_binary/run_bench.sh [--gpuenv PATH] [--cuobjdump PATH] [--lib DIR] [--runs N] [--no-compare]
# cuobjdump: pip install nvidia-cuda-cuobjdump (scripts/setup.sh puts it in build/deps/test-tools).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
gpuenv="$root/build/dev/src/cli/gpuenv"
cuobjdump="${GPUENV_CUOBJDUMP:-$root/build/deps/test-tools/bin/cuobjdump}"
lib=/usr/local/cuda/lib64
runs=5
compare=1
while [ $# -gt 0 ]; do
  case "$1" in
    --gpuenv) gpuenv=$2; shift 2 ;;
    --cuobjdump) cuobjdump=$2; shift 2 ;;
    --lib) lib=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --no-compare) compare=0; shift ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done
mapfile -t files < <(find -L "$lib" -maxdepth 1 -type f ! -xtype l | sort)
# Regular files only: the .so / .so.N links name the same files again.
mapfile -t files < <(for f in "${files[@]}"; do [ -L "$f" ] || echo "$f"; done)
bytes=$(cat "${files[@]}" | wc -c)  # also warms the page cache
echo "corpus: ${#files[@]} files, $((bytes / 1024 / 1024)) MiB in $lib; $(nproc) cores"

seconds() { python3 -c 'import sys,time; print(f"{time.time():.6f}")'; }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

gpuenv_times=()
for _ in $(seq "$runs"); do
  start=$(seconds)
  "$gpuenv" inspect "${files[@]}" >/dev/null
  end=$(seconds)
  gpuenv_times+=("$(python3 -c "print($end - $start)")")
done
gpuenv_median=$(printf '%s\n' "${gpuenv_times[@]}" | median)
echo "gpuenv inspect (data sections scanned too): median of $runs runs ${gpuenv_median}s (runs: ${gpuenv_times[*]})"

registered_times=()
for _ in $(seq "$runs"); do
  start=$(seconds)
  "$gpuenv" inspect --registered-only "${files[@]}" >/dev/null
  end=$(seconds)
  registered_times+=("$(python3 -c "print($end - $start)")")
done
registered_median=$(printf '%s\n' "${registered_times[@]}" | median)
echo "gpuenv inspect --registered-only (what cuobjdump lists): median ${registered_median}s"

if [ ! -x "$cuobjdump" ]; then
  echo "cuobjdump not found at $cuobjdump (pip install nvidia-cuda-cuobjdump): no comparison"
  exit 0
fi
start=$(seconds)
for f in "${files[@]}"; do "$cuobjdump" --list-elf --list-ptx "$f" >/dev/null 2>&1 || true; done
end=$(seconds)
cuobjdump_time=$(python3 -c "print($end - $start)")
echo "cuobjdump --list-elf --list-ptx, one file after the other: ${cuobjdump_time}s"
python3 -c "print(f'ratio: cuobjdump takes {$cuobjdump_time / $gpuenv_median:.0f}x the time of gpuenv inspect '
                  f'({$cuobjdump_time / $registered_median:.0f}x with --registered-only)')"
if [ "$compare" = 1 ]; then
  python3 "$root/bench/cuda_binary/compare_with_cuobjdump.py" --gpuenv "$gpuenv" --cuobjdump "$cuobjdump" "${files[@]}"
fi
