#!/usr/bin/env bash
# The real-GPU check of CUDA detection, run by the lead on the GPU machine
# (Debian 12, one H200, CUDA 13 driver; about 3 minutes, 10 at most):
#
#   bash bench/gpu_check.sh            # from the repository root
#
# It builds only what it needs (gpuenv, release; the benchmark program),
# runs `gpuenv cuda --json`, `gpuenv cuda`, `gpuenv info` and nvidia-smi,
# checks what gpuenv reports against nvidia-smi and the expectations below,
# benchmarks cold detection against the bare driver calls, and prints one
# PASS/FAIL line per check. Exit status: 0 when every check passed.
#
# Expectations (override with environment variables):
#   EXPECT_DRIVER_BRANCH=580  EXPECT_CUDA=13.0  EXPECT_GPU_COUNT=1
#   EXPECT_GPU_NAME=H200      EXPECT_CUDA_ARCH=9.0  EXPECT_MEMORY_GIB=141 (within 6%)
#   BENCH_RUNS=10             BENCH_BUDGET=1.2
#
# Outputs (cuda.json, cuda.txt, info.txt, nvidia-smi.csv, bench.txt, check.txt)
# go to $OUT when set (the device tool brings that folder back), else to
# build/gpu-check/out.
#
# Offline machines: scripts/setup.sh needs Debian's mirrors for packages and
# for libsolv's source. If it cannot reach them this script goes on with what
# is installed; the build then needs build/deps/libsolv (carry it from a
# machine where scripts/setup.sh ran) and the Debian -dev packages that
# scripts/setup.sh lists. Or build here instead, with
# bench/cuda_detection/build_portable.sh, carry build/gpu-portable, and run
#   GPUENV_PREBUILT=build/gpu-portable bash bench/gpu_check.sh
# which skips setup and build and uses those binaries.
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
build="$root/build/gpu-check"
out="${OUT:-$build/out}"
mkdir -p "$build" "$out"

expect_branch=${EXPECT_DRIVER_BRANCH:-580}
expect_cuda=${EXPECT_CUDA:-13.0}
expect_count=${EXPECT_GPU_COUNT:-1}
expect_name=${EXPECT_GPU_NAME:-H200}
expect_arch=${EXPECT_CUDA_ARCH:-9.0}
expect_gib=${EXPECT_MEMORY_GIB:-141}
bench_runs=${BENCH_RUNS:-10}
bench_budget=${BENCH_BUDGET:-1.2}

passed=0
failed=0
report() {  # report PASS|FAIL text
  printf '%s  %s\n' "$1" "$2" | tee -a "$out/check.txt"
  if [ "$1" = PASS ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
}
section() { printf '\n===== %s =====\n' "$*"; }
: >"$out/check.txt"

if [ -n "${GPUENV_PREBUILT:-}" ]; then
  section "prebuilt binaries from $GPUENV_PREBUILT"
  gpuenv="$(cd "$GPUENV_PREBUILT" && pwd)/gpuenv"
  bench="$(cd "$GPUENV_PREBUILT" && pwd)/cuda_detection_bench"
  if "$gpuenv" --version; then
    report PASS "prebuilt gpuenv runs here"
  else
    ldd "$gpuenv" || true
    report FAIL "prebuilt gpuenv does not run here"
    printf '\n%d passed, %d failed\n' "$passed" "$failed"
    exit 1
  fi
else
  section "setup"
  if timeout 300 ./scripts/setup.sh; then
    report PASS "scripts/setup.sh"
  else
    echo "scripts/setup.sh failed or timed out (offline machine?); building with what is installed" >&2
  fi

  section "build (release: gpuenv and the benchmark only)"
  started=$(date +%s)
  if cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGPUENV_BUILD_TESTS=OFF >"$out/build.log" 2>&1 &&
     cmake --build "$build" --target gpuenv >>"$out/build.log" 2>&1 &&
     g++ -std=c++23 -O2 -I src bench/cuda_detection/cuda_detection_bench.cpp -ldl \
         -o "$build/cuda_detection_bench" >>"$out/build.log" 2>&1; then
    report PASS "build in $(( $(date +%s) - started )) s"
  else
    tail -30 "$out/build.log"
    report FAIL "build (log: $out/build.log)"
    [ -d build/deps/libsolv ] || echo "build/deps/libsolv is missing: run scripts/setup.sh with network access, or carry it" >&2
    echo "or build here with bench/cuda_detection/build_portable.sh and rerun with GPUENV_PREBUILT=build/gpu-portable" >&2
    printf '\n%d passed, %d failed\n' "$passed" "$failed"
    exit 1
  fi
  gpuenv="$build/src/cli/gpuenv"
  bench="$build/cuda_detection_bench"
fi
# A private cache, so the first run below is a cold detection.
export GPUENV_CACHE_DIR="$build/cache"
rm -rf "$GPUENV_CACHE_DIR"

section "gpuenv cuda --json (cold)"
"$gpuenv" cuda --json >"$out/cuda.json" 2>"$out/cuda.json.err"
echo "exit status $?"
cat "$out/cuda.json"
section "gpuenv cuda (warm)"
"$gpuenv" cuda | tee "$out/cuda.txt"
section "gpuenv info"
"$gpuenv" info | tee "$out/info.txt"
"$gpuenv" cuda --json >"$out/cuda-warm.json" 2>/dev/null
section "nvidia-smi"
nvidia-smi --query-gpu=name,driver_version,compute_cap,memory.total --format=csv | tee "$out/nvidia-smi.csv"
nvidia-smi --query-gpu=uuid,pci.bus_id --format=csv,noheader >"$out/nvidia-smi-ids.csv" 2>/dev/null

section "checks"
python3 - "$out" "$expect_branch" "$expect_cuda" "$expect_count" "$expect_name" "$expect_arch" "$expect_gib" \
  >>"$out/check-py.txt" <<'PY'
import csv, json, sys
out, branch, cuda, count, name, arch, gib = sys.argv[1:8]
count, gib = int(count), float(gib)

def check(ok, text):
    print(("PASS" if ok else "FAIL") + "  " + text)

try:
    report = json.load(open(f"{out}/cuda.json"))
except Exception as error:
    check(False, f"gpuenv cuda --json printed valid JSON ({error})")
    sys.exit(0)
warm = json.load(open(f"{out}/cuda-warm.json"))
rows = list(csv.reader(open(f"{out}/nvidia-smi.csv")))[1:]
smi = [[cell.strip() for cell in row] for row in rows if row]
ids = [[c.strip() for c in row] for row in csv.reader(open(f"{out}/nvidia-smi-ids.csv")) if row]
vp = {p["name"]: p["version"] for p in report.get("virtual_packages", [])}
devices = report.get("devices", [])
driver = report.get("driver") or {}

check(report.get("status") == "ok", f"detection status is ok (got {report.get('status')}: {report.get('message')})")
release = driver.get("release") or ""
check(release.startswith(branch + "."), f"driver release is {branch}.x (got {release!r}, from {driver.get('release_source')})")
if smi:
    check(release == smi[0][1], f"driver release matches nvidia-smi ({release} vs {smi[0][1]})")
check(vp.get("__cuda") == cuda, f"__cuda={cuda} (got {vp.get('__cuda')})")
check(len(devices) == count, f"{count} GPU(s) (got {len(devices)})")
check(len(devices) == len(smi), f"GPU count matches nvidia-smi ({len(devices)} vs {len(smi)})")
check(vp.get("__cuda_arch") == arch, f"__cuda_arch={arch} (got {vp.get('__cuda_arch')})")
for device, row in zip(devices, smi):
    label = f"GPU {device['index']}"
    check(name in device["name"], f"{label} is an {name} (got {device['name']!r})")
    check(device["name"] == row[0], f"{label} name matches nvidia-smi ({device['name']!r} vs {row[0]!r})")
    check(device["compute_capability"] == row[2], f"{label} compute capability matches nvidia-smi ({device['compute_capability']} vs {row[2]})")
    check(device["sm"] == "sm_" + arch.replace(".", ""), f"{label} is {device['sm']}")
    got_gib = device["memory_bytes"] / 2**30
    check(abs(got_gib - gib) / gib <= 0.06, f"{label} memory ~{gib:g} GiB (got {got_gib:.1f} GiB)")
    smi_mib = float(row[3].split()[0])
    check(abs(device["memory_bytes"] / 2**20 - smi_mib) / smi_mib <= 0.02,
          f"{label} memory within 2% of nvidia-smi ({device['memory_bytes'] / 2**20:.0f} vs {smi_mib:.0f} MiB)")
for device, row in zip(devices, ids):
    check(device["uuid"] == row[0], f"GPU {device['index']} UUID matches nvidia-smi ({device['uuid']})")
    check(row[1].lower().endswith(device["pci_bus_id"].lower()),
          f"GPU {device['index']} PCI bus id matches nvidia-smi ({device['pci_bus_id']} vs {row[1]})")
names = [t["cuda"] for t in report.get("toolkits", []) if t["support"] != "needs_newer_driver"]
check(cuda in names, f"the driver can run CUDA {cuda} toolkits (runnable: {', '.join(names[:4])} ...)")
check(warm["detection"]["from_cache"] and warm["devices"] == devices,
      "a second call answers from the cache with the same devices")
info = open(f"{out}/info.txt").read()
check(f"__cuda={cuda}=0" in info and f"__cuda_arch={arch}=0" in info, "gpuenv info lists __cuda and __cuda_arch")
PY
while IFS= read -r line; do report "${line%%  *}" "${line#*  }"; done <"$out/check-py.txt"
rm -f "$out/check-py.txt"

section "cold detection vs bare driver calls ($bench_runs runs each)"
if "$bench" --gpuenv "$gpuenv" --runs "$bench_runs" --budget "$bench_budget" | tee "$out/bench.txt"; then
  report PASS "$(grep '^ratio   gpuenv / bare' "$out/bench.txt")"
else
  report FAIL "$(grep '^ratio   gpuenv / bare' "$out/bench.txt" || echo 'benchmark did not finish')"
fi

section "warm gpuenv info (informational)"
"$gpuenv" info >/dev/null
python3 - "$gpuenv" <<'PY' | tee -a "$out/bench.txt"
import statistics, subprocess, sys, time
runs = []
for _ in range(200):
    start = time.perf_counter()
    subprocess.run([sys.argv[1], "info"], stdout=subprocess.DEVNULL, check=True)
    runs.append((time.perf_counter() - start) * 1000)
print(f"warm gpuenv info: median {statistics.median(runs):.2f} ms, min {min(runs):.2f} ms over {len(runs)} runs "
      "(includes Python's process start overhead)")
PY

printf '\n%d passed, %d failed\n' "$passed" "$failed"
[ "$failed" -eq 0 ]
