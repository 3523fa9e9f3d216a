#!/usr/bin/env bash
# Configures (once) and builds the dev preset. Build chatter goes to stderr so
# wrappers can pass gpuenv's own stdout through untouched.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
if [ ! -f build/dev/build.ninja ]; then
  cmake --preset dev >&2
fi
cmake --build --preset dev >&2
