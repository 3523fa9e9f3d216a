#!/usr/bin/env bash
# Sharded repodata (CEP 16) over a modelled network link, side by side in
# one run: the GPU-stack `gpuenv create --dry-run` over the benchmark channel
# (620k records) with shards (cold, then warm: the shard index revalidated
# with a 304), without them (repodata.json.zst, same link), and py-rattler's
# Gateway + solve on the same channel, sharded (cold, warm) and not (cold).
# DELAY_MS=0 MBPS=100000 takes the link model away (local HTTP at full speed). Every run gets its own
# link_server.py (30 ms per request, 50 MB/s shared, by default), which
# counts the requests and bytes it sent.
#
#   bench/channel/run_shards_bench.sh [BUILD_DIR] [CHANNEL_DIR]
#
# CHANNEL_DIR (default build/bench/channel) is made by generate_channel.py;
# its shards are written once by the shard_repodata tool (built on demand)
# and its repodata.json.zst by zstd. RUNS=3, DELAY_MS=30, MBPS=50.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build/dev}
channel=${2:-$root/build/bench/channel}
runs=${RUNS:-3}
delay_ms=${DELAY_MS:-30}
mbps=${MBPS:-50}
gpuenv=$build/src/cli/gpuenv
python=$root/build/deps/test-tools/bin/python
[ -x "$gpuenv" ] || { echo "no gpuenv binary at $gpuenv (build it first)" >&2; exit 2; }
[ -f "$channel/linux-64/repodata.json" ] || {
  echo "no channel at $channel: python3 bench/channel/generate_channel.py" >&2; exit 2; }

for subdir in linux-64 noarch; do
  dir=$channel/$subdir
  if [ ! -f "$dir/repodata_shards.msgpack.zst" ] || [ "$dir/repodata.json" -nt "$dir/repodata_shards.msgpack.zst" ]; then
    cmake --build "$build" --target shard_repodata >/dev/null
    "$build/tools/shard_repodata" "$dir"
  fi
  if [ ! -f "$dir/repodata.json.zst" ] || [ "$dir/repodata.json" -nt "$dir/repodata.json.zst" ]; then
    zstd -q -16 -T0 -f "$dir/repodata.json" -o "$dir/repodata.json.zst"
  fi
done

work=$(mktemp -d /tmp/gpuenv-shards-bench.XXXXXX)
server_pid=
stop_server() {
  if [ -n "$server_pid" ]; then
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
    exec 7>&-
    server_pid=
  fi
}
cleanup() { stop_server; rm -rf "$work"; }
trap cleanup EXIT

start_server() {  # stats file, extra options
  local stats=$1; shift
  : > "$work/port"
  # The server also stops when its stdin closes, so stdin is a pipe this
  # script holds open (fd 7), never /dev/zero: the server's stdin thread read
  # /dev/zero without end, one core and gigabytes of memory for the whole run.
  rm -f "$work/server-stdin"; mkfifo "$work/server-stdin"
  python3 -u "$root/bench/channel/link_server.py" "$channel" --delay-ms "$delay_ms" --mbps "$mbps" \
    --stats "$stats" "$@" > "$work/port" < "$work/server-stdin" &
  server_pid=$!
  exec 7> "$work/server-stdin"
  for _ in $(seq 50); do [ -s "$work/port" ] && break; sleep 0.1; done
  url="http://127.0.0.1:$(head -1 "$work/port")"
}

mapfile -t request < "$channel/request.txt"
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
export CONDA_OVERRIDE_CUDA=${CONDA_OVERRIDE_CUDA:-12.4}

gpuenv_run() {  # cache dir, output json -> "<wall s> <cpu s>"
  # time's %e has 10 ms steps, too coarse for a warm run, and $(date) forks
  # (~3 ms here): bash's $EPOCHREALTIME costs nothing.
  local start end
  start=$EPOCHREALTIME
  GPUENV_CACHE_DIR=$1 /usr/bin/time -f "%U %S" -o "$work/time" \
    "$gpuenv" create -p "$work/env" --dry-run --json --override-channels -c "$url" "${request[@]}" > "$2"
  end=$EPOCHREALTIME
  awk -v start="$start" -v end="$end" '{print end - start, $1 + $2}' "$work/time"
}

links() {
  python3 -c 'import json,sys
d=json.load(open(sys.argv[1]))
assert d["success"], d
for a in sorted(d["actions"]["LINK"], key=lambda a: a["name"]): print(a["name"], a["version"], a["build"])' "$1"
}

report() {  # label, times file, stats file
  python3 - "$@" <<'PY'
import json, statistics, sys
label, times, stats = sys.argv[1:4]
rows = [[float(x) for x in line.split()] for line in open(times) if line.strip()]
walls = sorted(row[0] for row in rows)
cpu = statistics.median(row[1] for row in rows)  # user + system, the whole process
s = json.load(open(stats))
kinds = ", ".join(f"{k} {v['requests']} req {v['bytes']/1e6:.2f} MB" for k, v in sorted(s["by_kind"].items()))
print(f"{label:<34} min {walls[0]*1000:7.0f} ms  median {statistics.median(walls)*1000:7.0f} ms  "
      f"cpu {cpu*1000:5.0f} ms  ({len(walls)} runs)  per run: {s['requests']/len(walls):.0f} requests, "
      f"{s['bytes']/len(walls)/1e6:.2f} MB  [{kinds}]")
PY
}

# gpuenv, sharded, cold: an empty cache every run.
start_server "$work/stats-cold"
: > "$work/cold"
for i in $(seq "$runs"); do
  gpuenv_run "$work/cache-cold-$i" "$work/cold-$i.json" >> "$work/cold"
done
cold_url=$url
stop_server
# Warm: the cache of the first cold run; the index is revalidated (304).
# Same port: the cache is keyed by the channel's URL.
start_server "$work/stats-warm" --port "${cold_url##*:}"
: > "$work/warm"
for i in $(seq "$runs"); do gpuenv_run "$work/cache-cold-1" "$work/warm-$i.json" >> "$work/warm"; done
stop_server
# The same, loading and solving again (the solve memo off).
start_server "$work/stats-warm-solving" --port "${cold_url##*:}"
: > "$work/warm-solving"
for i in $(seq "$runs"); do
  CONDA_GPUENV_SOLVE_MEMO=false gpuenv_run "$work/cache-cold-1" "$work/warm-solving-$i.json" >> "$work/warm-solving"
done
stop_server
# Without shards (404 for the index): repodata.json.zst, cold.
start_server "$work/stats-plain" --no-shards
: > "$work/plain"
for i in $(seq "$runs"); do
  gpuenv_run "$work/cache-plain-$i" "$work/plain-$i.json" >> "$work/plain"
done
stop_server

# py-rattler: Gateway (sharded) + solve, cold cache each run.
rattler_ok=no
if [ -x "$python" ] && "$python" -c 'import rattler' 2>/dev/null; then
  rattler_run() {  # cache dir, output file[, "plain"] -> "<wall s> <cpu s>"
    "$python" - "$url" "$1" "$2" "${3:-sharded}" "${request[@]}" <<'PY'
import asyncio, resource, sys, time
import rattler
url, cache, out, mode, *specs = sys.argv[1:]
async def main():
    start = time.monotonic()
    gateway = rattler.Gateway(cache_dir=cache,
                              default_config=rattler.SourceConfig(sharded_enabled=mode == "sharded"))
    virtual = [rattler.GenericVirtualPackage(rattler.PackageName(n), rattler.Version(v), rattler.BuildString(b))
               for n, v, b in (("__cuda", "12.4", "0"), ("__glibc", "2.35", "0"), ("__linux", "6.1", "0"),
                               ("__unix", "0", "0"), ("__archspec", "1", "x86_64_v3"))]
    solved = await rattler.solve(sources=[url], specs=specs, gateway=gateway, virtual_packages=virtual,
                                 platforms=[rattler.Platform("linux-64"), rattler.Platform("noarch")])
    elapsed = time.monotonic() - start
    with open(out, "w") as f:
        for r in sorted(solved, key=lambda r: r.name.normalized):
            f.write(f"{r.name.normalized} {r.version} {r.build}\n")
    usage = resource.getrusage(resource.RUSAGE_SELF)  # all threads, the interpreter included
    print(elapsed, usage.ru_utime + usage.ru_stime)
asyncio.run(main())
PY
  }
  start_server "$work/stats-rattler"
  : > "$work/rattler"
  for i in $(seq "$runs"); do
    rattler_run "$work/rattler-cache-$i" "$work/rattler-$i.txt" >> "$work/rattler"
  done || echo "py-rattler failed (above)" >&2
  rattler_cold_url=$url
  stop_server
  # Warm: the cache of the first cold run (same port: rattler keys it by URL).
  start_server "$work/stats-rattler-warm" --port "${rattler_cold_url##*:}"
  : > "$work/rattler-warm"
  for i in $(seq "$runs"); do
    rattler_run "$work/rattler-cache-1" "$work/rattler-warm-$i.txt" >> "$work/rattler-warm"
  done || echo "py-rattler failed (above)" >&2
  stop_server
  # Without shards: repodata.json.zst (rattler asks for it with a HEAD), cold.
  start_server "$work/stats-rattler-plain" --no-shards
  : > "$work/rattler-plain"
  for i in $(seq "$runs"); do
    rattler_run "$work/rattler-plain-cache-$i" "$work/rattler-plain-$i.txt" plain >> "$work/rattler-plain"
  done || echo "py-rattler failed (above)" >&2
  stop_server
  rattler_ok=yes
fi

full_zst=$(( $(stat -c %s "$channel/linux-64/repodata.json.zst") + $(stat -c %s "$channel/noarch/repodata.json.zst") ))
full_json=$(( $(stat -c %s "$channel/linux-64/repodata.json") + $(stat -c %s "$channel/noarch/repodata.json") ))
echo "GPU stack: $(echo "${request[@]}") over a link of ${delay_ms} ms per request, ${mbps} MB/s" \
     "(CONDA_OVERRIDE_CUDA=$CONDA_OVERRIDE_CUDA)"
# Wall times on a shared machine stretch with its load; the CPU column does not.
echo "load average before / after: $load_before / $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"
echo "full repodata: $(python3 -c "print(f'{$full_json/1e6:.1f} MB JSON, {$full_zst/1e6:.1f} MB .zst')")"
report "gpuenv cold, sharded" "$work/cold" "$work/stats-cold"
report "gpuenv warm, sharded (index 304)" "$work/warm" "$work/stats-warm"
report "gpuenv warm, solving again (no memo)" "$work/warm-solving" "$work/stats-warm-solving"
report "gpuenv cold, repodata.json.zst" "$work/plain" "$work/stats-plain"
if [ "$rattler_ok" = yes ]; then
  report "py-rattler Gateway+solve, sharded" "$work/rattler" "$work/stats-rattler"
  report "py-rattler warm (same cache)" "$work/rattler-warm" "$work/stats-rattler-warm"
  report "py-rattler cold, repodata.json.zst" "$work/rattler-plain" "$work/stats-rattler-plain"
fi

links "$work/cold-1.json" > "$work/links-gpuenv"
same=yes
for f in "$work"/cold-*.json "$work"/warm-*.json "$work"/warm-solving-*.json "$work"/plain-*.json; do
  links "$f" | cmp -s - "$work/links-gpuenv" || same=no
done
echo "gpuenv solution: $(wc -l < "$work/links-gpuenv") packages, identical sharded/warm/non-sharded: $same"
if [ "$rattler_ok" = yes ]; then
  if cmp -s "$work/links-gpuenv" "$work/rattler-1.txt" && cmp -s "$work/links-gpuenv" "$work/rattler-plain-1.txt"; then
    echo "py-rattler (sharded and not): the same packages"
  else echo "py-rattler: $(wc -l < "$work/rattler-1.txt") packages; differences:"; diff "$work/links-gpuenv" "$work/rattler-1.txt" | head -20 || true
  fi
fi
