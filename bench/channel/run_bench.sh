#!/usr/bin/env bash
# The issue's benchmark: `gpuenv create --dry-run` of the GPU-stack request
# over the bench channel served on a local HTTP server, cold (empty cache)
# and warm (repodata and its index cached), with peak memory, plus the
# repodata parsing throughput. Prints the minimum and median of RUNS runs
# (the machine is shared: the minimum is the figure to compare).
#
#   bench/channel/run_bench.sh [BUILD_DIR] [CHANNEL_DIR]
#
# BUILD_DIR: a CMake build of gpuenv (default build/dev); CHANNEL_DIR: a
# channel made by generate_channel.py (default build/bench/channel).
# RUNS=5 by default. Needs python3 and /usr/bin/time.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build/dev}
channel=${2:-$root/build/bench/channel}
runs=${RUNS:-5}
gpuenv=$build/src/cli/gpuenv
[ -x "$gpuenv" ] || { echo "no gpuenv binary at $gpuenv (build it first)" >&2; exit 2; }
[ -f "$channel/linux-64/repodata.json" ] || {
  echo "no channel at $channel: python3 bench/channel/generate_channel.py" >&2; exit 2; }

work=$(mktemp -d /tmp/gpuenv-bench.XXXXXX)
server_pid=
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# A port the OS picks, announced on stdout once the server listens.
python3 -u - "$channel" > "$work/port" 2>/dev/null <<'PY' &
import functools, http.server, sys
handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=sys.argv[1])
handler.log_message = lambda *args: None
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
print(server.server_address[1], flush=True)
server.serve_forever()
PY
server_pid=$!
for _ in $(seq 50); do [ -s "$work/port" ] && break; sleep 0.1; done
url="http://127.0.0.1:$(head -1 "$work/port")"

mapfile -t request < "$channel/request.txt"
export CONDA_OVERRIDE_CUDA=${CONDA_OVERRIDE_CUDA:-12.4}
export GPUENV_CACHE_DIR=$work/cache

# One run: "<wall s> <peak KB> <user s> <system s>", the LINK list kept for
# comparison.
run_once() {
  local out=$1
  /usr/bin/time -f "%e %M %U %S" -o "$work/time" \
    "$gpuenv" create -p "$work/env" --dry-run --json --override-channels -c "$url" "${request[@]}" > "$out"
  cat "$work/time"
}

summary() {  # label, file of "<seconds> <kb>" lines
  python3 - "$1" "$2" <<'PY'
import statistics, sys
rows = [tuple(map(float, line.split())) for line in open(sys.argv[2]) if line.strip()]
walls = sorted(r[0] for r in rows); peaks = sorted(r[1] for r in rows)
cpus = sorted(r[2] + r[3] for r in rows)
print(f"{sys.argv[1]:<6} wall min {walls[0]*1000:6.0f} ms  median {statistics.median(walls)*1000:6.0f} ms   "
      f"CPU (user+sys) min {cpus[0]*1000:6.0f} ms   peak RSS max {peaks[-1]/1024:6.1f} MB  ({len(rows)} runs)")
PY
}

links() {  # the solution of a --json output, one line per package
  python3 -c 'import json,sys
d=json.load(open(sys.argv[1]))
assert d["success"], d
for a in d["actions"]["LINK"]: print(a["name"], a["version"], a["build"], a["channel"], a["subdir"], a["fn"], a["sha256"])' "$1"
}

: > "$work/cold"; : > "$work/warm"
for i in $(seq "$runs"); do
  rm -rf "$GPUENV_CACHE_DIR"
  run_once "$work/cold-$i.json" >> "$work/cold"
done
for i in $(seq "$runs"); do run_once "$work/warm-$i.json" >> "$work/warm"; done

echo "gpuenv create --dry-run $(echo "${request[@]}") over $url (CONDA_OVERRIDE_CUDA=$CONDA_OVERRIDE_CUDA)"
summary cold "$work/cold"
summary warm "$work/warm"
links "$work/cold-1.json" > "$work/links-reference"
same=yes
for f in "$work"/cold-*.json "$work"/warm-*.json; do
  links "$f" | cmp -s - "$work/links-reference" || same=no
done
echo "solution: $(wc -l < "$work/links-reference") packages, identical in every run: $same"
du -sh "$GPUENV_CACHE_DIR"/solv 2>/dev/null | awk '{print "index cache: " $1}'

# Parsing throughput, from the build's static libraries.
parse_bench=$work/parse_throughput
if g++ -std=c++23 -O2 -I"$root/src" "$root/bench/channel/parse_throughput.cpp" \
     "$build/src/gpuenv/repodata/libgpuenv_repodata.a" "$build/src/gpuenv/specs/libgpuenv_specs.a" \
     "$build/src/gpuenv/util/libgpuenv_util.a" -lsimdjson -lfmt -o "$parse_bench" 2> "$work/cc.log"; then
  RUNS=$runs "$parse_bench" "$channel/linux-64/repodata.json" "$channel/noarch/repodata.json"
else
  echo "parse throughput: cannot build parse_throughput.cpp (see below)"; cat "$work/cc.log"
fi
