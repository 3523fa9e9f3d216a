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
# Sets up and builds first, like ./gpuenv. GPUENV_BIN (a built gpuenv; then
# nothing is built), GPUENV_DEMO_CHANNEL and GPUENV_DEMO_PREFIX override the
# defaults; the tests use them.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

if [ -z "${GPUENV_BIN:-}" ]; then
  "$root/scripts/setup.sh"
  "$root/scripts/build.sh" >/dev/null 2>"$root/build/last-build.log" || {
    cat "$root/build/last-build.log" >&2
    exit 1
  }
  GPUENV_BIN="$root/build/dev/src/cli/gpuenv"
fi
channel="${GPUENV_DEMO_CHANNEL:-$root/build/dev/demo-channel}"
prefix="${GPUENV_DEMO_PREFIX:-$root/build/demo-env}"

if [ ! -f "$channel/noarch/repodata.json" ]; then
  echo "demo: no demo channel at $channel; build it with: cmake --build --preset dev --target demo_channel" >&2
  exit 1
fi
channel=$(cd "$channel" && pwd)  # a relative path without ./ would read as a channel name
# A demo environment from an earlier run is replaced; nothing else is.
if compgen -G "$prefix/conda-meta/gpuenv-demo-*.json" >/dev/null; then
  rm -rf "$prefix"
fi

# Each step is shown as a user would type it.
step() {
  printf '\n$ gpuenv %s\n' "$*"
  "$GPUENV_BIN" "$@"
}
step create -y -p "$prefix" -c "$channel" --override-channels gpuenv-demo
step run -p "$prefix" -- gpuenv-demo
