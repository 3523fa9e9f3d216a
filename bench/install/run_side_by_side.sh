#!/usr/bin/env bash
# Issue 32's install table: gpuenv and rattler (py-rattler's solve + install)
# side by side in one run, on the install channel of run_install_bench.sh
# (100 chained packages, 20,000 files, ~350 MB) over local HTTP.
#
#   bench/install/run_side_by_side.sh [path/to/gpuenv] [runs]
#
# Cold: empty package cache and, where this user may (root), an empty page
# cache (echo 3 > /proc/sys/vm/drop_caches); each tool's code is loaded
# before its timer starts (load_code). Warm: the cache of the cold run
# kept, a new prefix (the link-only path). Then one run of each under
# `strace -f -c` for the system calls per installed file: everything the
# process did, and its file-system calls alone (the extract-and-link path:
# opening, reading, writing, closing, linking, stat'ing files and
# directories; the download's writes included, its network calls not).
#
# BASELINE=path/to/an/older/gpuenv adds it to the same loop (before/after
# figures from one run: the machine's noise moves both alike).
#
# micromamba is not installable here (neither PyPI nor Debian 12 carry it);
# the issue's micromamba column was measured elsewhere.
source "$(dirname "${BASH_SOURCE[0]}")/bench_setup.sh" gpuenv-side-by-side "$@"
python=${PYTHON:-$root/build/deps/test-tools/bin/python}
"$python" -c 'import rattler' 2>/dev/null || {
  echo "no py-rattler in $python: run scripts/setup.sh (it installs the test tools) or set PYTHON" >&2
  exit 1
}

# The asyncio server of the channel benchmarks, with no delay and no
# bandwidth cap: Python's http.server (HTTP/1.0, a thread per connection)
# made rattler's cold install take 33 s instead of 2.
# It stops when its stdin closes: this script holds the other end (fd 7).
mkfifo "$work/port" "$work/server-stdin"
python3 "$root/bench/channel/link_server.py" "$channel" --delay-ms 0 --mbps 1000000 \
  < "$work/server-stdin" > "$work/port" &
server_pid=$!
exec 7> "$work/server-stdin"
read -r port < "$work/port"
url=http://127.0.0.1:$port

drop_page_cache() {
  sync
  echo 3 > /proc/sys/vm/drop_caches 2>/dev/null || true
}

# rattler's interpreter start and `import rattler` (its code read from disk
# after the page cache was dropped) lie outside its timed part; the same for
# gpuenv: its binary and shared libraries are read before the timer starts,
# so both cold runs start with their code loaded and their data cold.
# (Until session 18 gpuenv's runs included it: 70-80 ms of each cold run.)
# libcurl and its TLS stack count as gpuenv's code: it loads them with
# dlopen on its first request (util/curl_on_demand.cpp), so ldd misses them.
load_code() {  # binary
  local curl
  curl=$(ldconfig -p | awk '$1 == "libcurl.so.4" && /x86-64/ { print $NF; exit }')
  cat "$1" $(ldd "$1" ${curl:+"$curl"} | awk '$2 == "=>" && $3 ~ /^\// { print $3 }') ${curl:+"$curl"} > /dev/null
}

# rattler: the same request, solved and installed in one process; the
# interpreter's start is outside the timed part, the solve inside it as in
# gpuenv's create.
cat > "$work/rattler_install.py" <<'PY'
import asyncio, sys, time
import rattler
url, prefix, cache = sys.argv[1:4]
async def main():
    start = time.monotonic()
    gateway = rattler.Gateway(cache_dir=cache)
    records = await rattler.solve(sources=[url], specs=["perf-000"], gateway=gateway,
                                  platforms=["linux-64", "noarch"])
    await rattler.install(records, target_prefix=prefix, cache_dir=cache + "/pkgs", show_progress=False)
    print(f"{time.monotonic() - start:.3f}")
asyncio.run(main())
PY

timed_gpuenv() {  # prefix cache [binary] -> seconds
  local start end
  load_code "${3:-$gpuenv}"
  start=$(date +%s.%N)
  CONDA_OVERRIDE_CUDA= CONDA_PKGS_DIRS=$2/pkgs GPUENV_CACHE_DIR=$2/index \
    "${3:-$gpuenv}" create -y -p "$1" --override-channels -c "$url" perf-000 >/dev/null
  end=$(date +%s.%N)
  python3 -c "print(f'{$end - $start:.3f}')"
}
timed_baseline() { timed_gpuenv "$1" "$2" "$BASELINE"; }
timed_rattler() {  # prefix cache -> seconds
  # py-rattler 0.28 now and then segfaults in a tokio worker as the
  # interpreter exits (after its install finished): such a run is repeated.
  local attempt seconds status
  for attempt in 1 2 3; do
    if seconds=$("$python" "$work/rattler_install.py" "$url" "$1" "$2"); then
      echo "$seconds"
      return 0
    fi
    status=$?
    echo "py-rattler exited with $status (attempt $attempt); running it again" >&2
    rm -rf "$1"
  done
  return 1
}

declare -A best
record() {  # key seconds
  local key=$1 value=$2
  if [ -z "${best[$key]:-}" ] || python3 -c "import sys; sys.exit(0 if $value < ${best[$key]} else 1)"; then
    best[$key]=$value
  fi
}
for run in $(seq "$runs"); do
  for tool in gpuenv rattler ${BASELINE:+baseline}; do
    cache=$work/cache-$tool-$run
    drop_page_cache
    seconds=$("timed_$tool" "$work/env-$tool-cold-$run" "$cache")
    echo "$tool run $run cold: $seconds s"
    record "$tool-cold" "$seconds"
    seconds=$("timed_$tool" "$work/env-$tool-warm-$run" "$cache")
    echo "$tool run $run warm: $seconds s"
    record "$tool-warm" "$seconds"
  done
done
files=$(find "$work/env-gpuenv-warm-1" -type f -not -path '*/conda-meta/*' | wc -l)

# System calls, one cold and one warm run of each under strace.
path_calls='openat|openat2|open|pwrite64|write|close|linkat|mkdirat|mkdir|fchmod|chmod|utimensat|symlinkat|copy_file_range|pread64|read|newfstatat|fstat|statx|lseek|readlink|readlinkat|rename|renameat|renameat2|unlink|unlinkat|ftruncate|fgetxattr|access|faccessat2'
count_calls() {  # strace -c file -> "<all> <path>"
  awk -v pattern="^($path_calls)\$" '
    $1 ~ /^[0-9.]+$/ && NF >= 5 && $NF != "total" { all += $4; if ($NF ~ pattern) path += $4 }
    END { print all, path }' "$1"
}
strace_run() {  # tool label
  local tool=$1 label=$2 cache=$work/strace-cache-$1
  [ "$label" = cold ] && rm -rf "$cache"
  if [ "$tool" = gpuenv ]; then
    CONDA_OVERRIDE_CUDA= CONDA_PKGS_DIRS=$cache/pkgs GPUENV_CACHE_DIR=$cache/index \
      strace -f -c -o "$work/strace-$tool-$label.txt" \
      "$gpuenv" create -y -p "$work/strace-env-$tool-$label" --override-channels -c "$url" perf-000 >/dev/null
  else
    strace -f -c -o "$work/strace-$tool-$label.txt" \
      "$python" "$work/rattler_install.py" "$url" "$work/strace-env-$tool-$label" "$cache" >/dev/null
  fi
  read -r all path < <(count_calls "$work/strace-$tool-$label.txt")
  python3 -c "print(f'$tool $label: {$all} system calls ({$all / $files:.2f} per file), file-system calls {$path} ({$path / $files:.2f} per file)')"
}
if command -v strace >/dev/null; then
  for tool in gpuenv rattler; do
    strace_run "$tool" cold
    strace_run "$tool" warm
  done
  echo "gpuenv cold, by call:"
  sed -n '3,16p' "$work/strace-gpuenv-cold.txt"
  echo "rattler cold, by call:"
  sed -n '3,16p' "$work/strace-rattler-cold.txt"
fi

ratio() { python3 -c "print(f'{$1 / $2:.2f}')"; }
echo
echo "| | gpuenv | rattler (py-rattler $("$python" -c 'import importlib.metadata as m; print(m.version("py-rattler"))')) | gpuenv ahead |"
echo "|---|---|---|---|"
echo "| cold install (best of $runs) | ${best[gpuenv-cold]} s | ${best[rattler-cold]} s | $(ratio "${best[rattler-cold]}" "${best[gpuenv-cold]}")x |"
echo "| warm install (best of $runs) | ${best[gpuenv-warm]} s | ${best[rattler-warm]} s | $(ratio "${best[rattler-warm]}" "${best[gpuenv-warm]}")x |"
if [ -n "${BASELINE:-}" ]; then
  echo "| baseline $BASELINE: cold | ${best[baseline-cold]} s | | $(ratio "${best[rattler-cold]}" "${best[baseline-cold]}")x |"
  echo "| baseline $BASELINE: warm | ${best[baseline-warm]} s | | $(ratio "${best[rattler-warm]}" "${best[baseline-warm]}")x |"
fi
echo "($files files in each environment)"
