#!/usr/bin/env bash
# Times a warm `gpuenv info` (CUDA detection answered from the cache) on this
# machine. Budget: under 5 ms wall.
#
#   bench/cuda_detection/warm_info.sh [path/to/gpuenv] [runs]
#
# Uses hyperfine (Debian package 'hyperfine') when installed, else perf stat,
# else a plain loop. The machine should be otherwise idle: on a loaded one the
# wall time measures the scheduler, not gpuenv (compare the task-clock).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
gpuenv=${1:-$root/build/dev/src/cli/gpuenv}
runs=${2:-500}
export GPUENV_CACHE_DIR
GPUENV_CACHE_DIR=$(mktemp -d)
trap 'rm -rf "$GPUENV_CACHE_DIR"' EXIT

"$gpuenv" info >/dev/null  # fills the cache
"$gpuenv" info --json | grep -q '"from_cache": true' || {
  echo "the second gpuenv info did not come from the cache" >&2
  exit 1
}
if command -v hyperfine >/dev/null; then
  hyperfine -N --warmup 50 --runs "$runs" --export-json "$GPUENV_CACHE_DIR/h.json" "$gpuenv info" >/dev/null
  python3 - "$GPUENV_CACHE_DIR/h.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"][0]
print(f"warm gpuenv info: median {r['median']*1000:.2f} ms, mean {r['mean']*1000:.2f} ms "
      f"± {r['stddev']*1000:.2f}, min {r['min']*1000:.2f} ms, user {r['user']*1000:.2f} ms, "
      f"system {r['system']*1000:.2f} ms ({len(r['times'])} runs, hyperfine -N)")
PY
elif command -v perf >/dev/null; then
  perf stat -r "$runs" "$gpuenv" info 2>&1 >/dev/null | grep -E 'task-clock|elapsed'
else
  start=$(date +%s%N)
  for _ in $(seq "$runs"); do "$gpuenv" info >/dev/null; done
  echo "warm gpuenv info: mean $(( ($(date +%s%N) - start) / runs / 1000 )) us over $runs runs (loop)"
fi
