#!/usr/bin/env bash
# Issue 16 on a real GPU: the ucx package built here with CUDA 13.0 (from
# Debian's ucx 1.13.1 source through recipes/ucx, see
# tests/integration/ucx/ucx_debian_source_build.sh) is installed with
# `gpuenv create` beside the CUDA runtime it loads (libuct_cuda.so and
# libucx_perftest_cuda.so link libcudart.so.13, which UCX does not require:
# conda-forge makes cuda-cudart a run constraint, so the environment asks
# for it); `ucx_info -d` must list the cuda_copy and cuda_ipc transports;
# `ucx_perftest` moves 1 MiB messages between the GPU buffers of two
# processes on this host (tag_bw, cuda memory on both sides) and prints the
# bandwidth; `gpuenv doctor` must find the environment clean.
#
# The GPU machine has no compilers and no zstd: everything is built here.
#
#   bench/cuda_detection/build_portable.sh            # build/gpu-portable: gpuenv + its libraries
#   bash bench/ucx_gpu_check.sh --prepare build/ucx-h200
#     (without conda-forge: GPUENV_PREPARE_CHANNEL_ARGS="-c file:///an/empty/channel --override-channels")
#     (the ucx channel: ucx for CUDA 13.0 and cuda-cudart, from recipes/cuda-cudart when
#      it exists, else a LOCAL TEST PACKAGE of this machine's /usr/local/cuda libcudart;
#      plus build/gpu-portable copied to build/ucx-h200/bin)
#
# then carry build/ucx-h200 and bench/ to the GPU machine (the device tool
# carries 64 MiB: as a .tgz, tar czf build/h200-pack/ucx.tgz -C build ucx-h200)
# and run there
#
#   GPUENV_PREBUILT=build/ucx-h200/bin GPUENV_UCX_CHANNEL=build/ucx-h200/channel bash bench/ucx_gpu_check.sh
#
# Exit 0 when every check passes; each check prints PASS or FAIL.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

prepare() {  # OUT: the channel and the portable gpuenv, built here
  set -e
  local out=$1 gpuenv=$root/build/dev/src/cli/gpuenv
  mkdir -p "$out/channel"
  out=$(cd "$out" && pwd)
  bash "$root/tests/integration/ucx/ucx_debian_source_build.sh" --gpuenv "$gpuenv" \
    --output-dir "$out/channel" --variant cuda13.0
  if [ -f "$root/recipes/cuda-cudart/recipe.yaml" ]; then
    # cuda-cudart needs cuda-version beside it. Where conda-forge is not
    # reachable, GPUENV_PREPARE_CHANNEL_ARGS names the channels instead
    # (e.g. "-c file:///path/to/an/empty/channel --override-channels").
    local recipe
    for recipe in cuda-version cuda-cudart; do
      # shellcheck disable=SC2086 # the arguments are words on purpose
      "$gpuenv" build "$root/recipes/$recipe" --output-dir "$out/channel" --variant cuda_version=13.0 \
        ${GPUENV_PREPARE_CHANNEL_ARGS:-} || [ "$recipe" = cuda-cudart ]
    done
    # cuda-cudart-dev's test needs cuda-cccl, which is not built here: only
    # cuda-cudart itself must be in the channel.
    ls "$out"/channel/linux-64/cuda-cudart-13.*.conda >/dev/null
  else
    local_cudart_package "$gpuenv" "$out/channel"
  fi
  rm -rf "$out/channel/bld"
  if [ -x "$root/build/gpu-portable/gpuenv" ]; then
    rm -rf "${out:?}/bin" && cp -r "$root/build/gpu-portable" "$out/bin"
  else
    echo "no build/gpu-portable: run bench/cuda_detection/build_portable.sh, then copy build/gpu-portable to $out/bin" >&2
  fi
  du -sh "$out"/*
}

# recipes/cuda-cudart is not there: a cuda-cudart package holding this
# machine's libcudart.so.13 (/usr/local/cuda), for this check only. Its build
# string says so; it never goes to a real channel.
local_cudart_package() {
  local gpuenv=$1 channel=$2 cuda=${CUDA_HOME:-/usr/local/cuda}
  local library version recipe
  library=$cuda/lib64/libcudart.so.13
  [ -e "$library" ] || { echo "no $library" >&2; return 1; }
  # The toolkit's version (nvcc's "V13.0.88"): the library's name has only the major.
  version=$("$cuda/bin/nvcc" --version | sed -n 's/.*release [0-9.]*, V\([0-9.]*\).*/\1/p')
  [ -n "$version" ] || { echo "cannot read the toolkit version from $cuda/bin/nvcc --version" >&2; return 1; }
  recipe=$(mktemp -d)
  cat > "$recipe/recipe.yaml" <<RECIPE
# LOCAL TEST PACKAGE (bench/ucx_gpu_check.sh): this machine's CUDA runtime,
# not NVIDIA's redistributable package; for the GPU check only.
package:
  name: cuda-cudart
  version: "$version"
build:
  number: 0
  string: local_test_machine_toolkit_0
  script:
    - mkdir -p "\$PREFIX/lib"
    - cp -P "$cuda"/lib64/libcudart.so.13* "\$PREFIX/lib/"
requirements:
  run_constraints:
    - __cuda >=13
    - cuda-version >=13,<14.0a0
about:
  summary: "LOCAL TEST PACKAGE: libcudart $version copied from $cuda, for bench/ucx_gpu_check.sh only"
  license: LicenseRef-NVIDIA-CUDA
RECIPE
  "$gpuenv" build "$recipe" --output-dir "$channel" --override-channels
  rm -rf "$recipe"
}

if [ "${1:-}" = "--prepare" ]; then
  [ $# -eq 2 ] || { echo "usage: $0 --prepare OUT_DIR" >&2; exit 2; }
  prepare "$2"
  exit
fi

gpuenv=${GPUENV_PREBUILT:-$root/build/dev/src/cli}/gpuenv
channel=$(cd "${GPUENV_UCX_CHANNEL:-$root/build/ucx-h200/channel}" && pwd)
work=$(mktemp -d)
server_pid=""
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
export GPUENV_CACHE_DIR=$work/cache GPUENV_ROOT_PREFIX=$work/root
unset CONDA_OVERRIDE_CUDA
failures=0
check() {  # description, then a command that must succeed
  local description=$1
  shift
  if "$@"; then echo "PASS  $description"; else echo "FAIL  $description"; failures=$((failures + 1)); fi
}
in_env() { "$gpuenv" run -p "$work/env" -- "$@"; }

echo "===== gpuenv cuda"
"$gpuenv" cuda | sed -n '1,14p'

echo "===== gpuenv create: ucx and the CUDA runtime from the channel"
"$gpuenv" create -y -p "$work/env" -c "$channel" --override-channels ucx cuda-cudart | tee "$work/create.out"
check "the CUDA 13.0 build of ucx was chosen for this driver" grep -q "ucx .*cuda130_" "$work/create.out"

echo "===== what UCX's CUDA modules link"
for module in "$work"/env/lib/ucx/libuct_cuda.so "$work"/env/lib/ucx/libucx_perftest_cuda.so; do
  echo "$module:"
  ldd "$module" | grep -E "cuda|nvidia-ml|not found"
done
check "libuct_cuda.so finds every library it links" bash -c "! ldd '$work/env/lib/ucx/libuct_cuda.so' | grep -q 'not found'"

echo "===== ucx_info"
in_env ucx_info -v
in_env ucx_info -d > "$work/devices.out" 2>&1
grep -E "Transport|Device" "$work/devices.out"
check "ucx_info -d lists cuda_copy" grep -q "Transport: cuda_copy" "$work/devices.out"
check "ucx_info -d lists cuda_ipc" grep -q "Transport: cuda_ipc" "$work/devices.out"

echo "===== ucx_perftest: tag_bw, 1 MiB messages, cuda memory, two processes on this host"
port=${UCX_PERFTEST_PORT:-13337}
perftest=(ucx_perftest -t tag_bw -m cuda -s 1048576 -n 1000 -p "$port")
in_env "${perftest[@]}" > "$work/server.out" 2>&1 &
server_pid=$!
sleep 3
timeout 120 "$gpuenv" run -p "$work/env" -- "${perftest[@]}" localhost 2>&1 | tee "$work/client.out"
check "ucx_perftest client finished" test "${PIPESTATUS[0]}" -eq 0
wait "$server_pid"
check "ucx_perftest server finished" test $? -eq 0
server_pid=""
# The final line (perftest_run.c): iterations, latency (percentile, average, overall, usec),
# bandwidth (average, overall, MB/s), message rate (average, overall, msg/s).
final=$(grep "Final:" "$work/client.out" | tail -n 1)
check "ucx_perftest printed its final line" test -n "$final"
echo "bandwidth (MB/s): average $(awk '{print $6}' <<< "$final"), overall $(awk '{print $7}' <<< "$final")"

echo "===== gpuenv doctor on the environment"
"$gpuenv" doctor -p "$work/env" | tee "$work/doctor.out"
check "gpuenv doctor exits 0" test "${PIPESTATUS[0]}" -eq 0

echo "===== $failures failed"
exit $((failures > 0))
