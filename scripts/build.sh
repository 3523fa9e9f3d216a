#!/usr/bin/env bash
# Configures (once) and builds the dev preset: everything, or only the
# targets named (the main job needs `gpuenv demo_channel`, not the tests).
# Build chatter goes to stderr so wrappers can pass gpuenv's own stdout
# through untouched.
#
#   scripts/build.sh [TARGET...]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
if [ ! -f build/dev/build.ninja ]; then
  cmake --preset dev >&2
fi
if [ $# -gt 0 ]; then
  cmake --build --preset dev --target "$@" >&2
else
  cmake --build --preset dev >&2
fi
