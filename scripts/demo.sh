#!/usr/bin/env bash
# gpuenv's main job, end to end: create an environment whose packages match
# this machine's NVIDIA driver, from the demo channel the build writes
# (build/dev/demo-channel: one package built for CUDA 11.8, 12.6 and 13.0,
# and for the CPU), then run a program from it.
#
#   ./scripts/demo.sh                          this machine's driver decides
#   CONDA_OVERRIDE_CUDA=12.4 ./scripts/demo.sh as if the driver offered CUDA 12.4
#   CONDA_OVERRIDE_CUDA= ./scripts/demo.sh     as if there were no driver (the CPU build)
#
# Then the builder's side: the example recipes (recipes/examples) built
# into a local channel -- libstencil for the CPU and, with this machine's
# nvcc, for its CUDA version; stencil-stats, which links it; stencil-samples,
# noarch -- an environment with the builds that fit the driver, and its
# programs run.
#
# Sets up and builds first, like ./gpuenv: only gpuenv and the demo channel
# (the test command builds the tests). GPUENV_BIN (a built gpuenv; then
# nothing is built), GPUENV_DEMO_CHANNEL, GPUENV_DEMO_PREFIX,
# GPUENV_EXAMPLES_CHANNEL and GPUENV_EXAMPLES_PREFIX override the defaults;
# the tests use them.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

if [ -z "${GPUENV_BIN:-}" ]; then
  "$root/scripts/setup.sh" --no-test-tools
  "$root/scripts/build.sh" gpuenv demo_channel >/dev/null 2>"$root/build/last-build.log" || {
    cat "$root/build/last-build.log" >&2
    exit 1
  }
  GPUENV_BIN="$root/build/dev/src/cli/gpuenv"
fi
channel="${GPUENV_DEMO_CHANNEL:-$root/build/dev/demo-channel}"
prefix="${GPUENV_DEMO_PREFIX:-$root/build/demo-env}"
examples_channel="${GPUENV_EXAMPLES_CHANNEL:-$root/build/examples-channel}"
examples_prefix="${GPUENV_EXAMPLES_PREFIX:-$root/build/examples-env}"

if [ ! -f "$channel/noarch/repodata.json" ]; then
  echo "demo: no demo channel at $channel; build it with: cmake --build --preset dev --target demo_channel" >&2
  exit 1
fi
channel=$(cd "$channel" && pwd)  # a relative path without ./ would read as a channel name
# A demo environment from an earlier run is replaced; nothing else is.
if compgen -G "$prefix/conda-meta/gpuenv-demo-*.json" >/dev/null; then
  rm -rf "$prefix"
fi
if compgen -G "$examples_prefix/conda-meta/stencil-stats-*.json" >/dev/null; then
  rm -rf "$examples_prefix"
fi

# Each step is shown as a user would type it.
step() {
  printf '\n$ gpuenv %s\n' "$*"
  "$GPUENV_BIN" "$@"
}
step create -y -p "$prefix" -c "$channel" --override-channels gpuenv-demo
step run -p "$prefix" -- gpuenv-demo

# The examples: libstencil for the CPU, and for the CUDA version of the nvcc
# this machine has (none: the CPU build only). CONDA_OVERRIDE_CUDA describes
# the machine to install for, not the one building: the build and its tests
# see this machine as it is.
nvcc_version=""
for nvcc in "${CUDA_HOME:-/nonexistent}/bin/nvcc" /usr/local/cuda/bin/nvcc "$(command -v nvcc || true)"; do
  if [ -x "$nvcc" ]; then
    nvcc_version=$("$nvcc" --version | sed -n 's/.*release \([0-9.]*\),.*/\1/p')
    break
  fi
done
cuda_versions="None${nvcc_version:+,$nvcc_version}"
printf '\n$ gpuenv build recipes/examples/{stencil,stencil-stats,stencil-samples} --output-dir %s --variant cuda_compiler_version=%s\n' \
  "$examples_channel" "$cuda_versions"
(cd "$root" && env -u CONDA_OVERRIDE_CUDA "$GPUENV_BIN" build recipes/examples/stencil recipes/examples/stencil-stats \
  recipes/examples/stencil-samples --output-dir "$examples_channel" --override-channels \
  --variant "cuda_compiler_version=$cuda_versions" --skip-existing=none 2>&1 | grep -E '^(built|gpuenv: error)')
step create -y -p "$examples_prefix" -c "$examples_channel" --override-channels stencil-stats stencil-samples
step run -p "$examples_prefix" -- stencil-stats 512 512
step run -p "$examples_prefix" -- stencil-samples
# Exit 2: no GPU this build can run on, which is an answer, not a failure.
step run -p "$examples_prefix" -- stencil-check || [ $? -eq 2 ]
