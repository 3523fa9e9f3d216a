#!/usr/bin/env bash
# The render benchmark of issue 13: `gpuenv render` of a conda-forge-style
# CUDA recipe over 4 CUDA versions x 3 Python versions (12 variants), the
# whole process timed (start-up, reading, expansion, hashing, printing).
#
#   bench/render/run_render_bench.sh [path/to/gpuenv] [runs]
#
# Target: < 50 ms per render. Prints every run and the minimum; the minimum
# is what to report on a machine that other work shares. When py-rattler-build
# is installed (scripts/setup.sh puts it in build/deps/test-tools), rattler's
# in-process render of the same recipe and variants is timed next to it.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
gpuenv=${1:-$root/build/dev/src/cli/gpuenv}
runs=${2:-10}
work=$(mktemp -d "${TMPDIR:-/tmp}/gpuenv-render-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

cat > "$work/recipe.yaml" <<'RECIPE'
context:
  version: "2.4.1"
package:
  name: cuda-demo
  version: ${{ version }}
source:
  url: https://example.invalid/cuda-demo-${{ version }}.tar.gz
  sha256: 5f1a2bd1b4a4e04c19e2d5e50ce5e74d2d8a1e3b0c4f5a6b7c8d9e0f1a2b3c4d
build:
  number: 0
  script:
    - cmake -S . -B build -DCUDA=${{ cuda_compiler_version }}
requirements:
  build:
    - ${{ compiler('c') }}
    - ${{ compiler('cxx') }}
    - ${{ stdlib('c') }}
    - if: cuda_compiler_version != "None"
      then: ${{ compiler('cuda') }}
  host:
    - python
    - numpy
    - if: cuda_compiler_version != "None"
      then:
        - cuda-version ${{ cuda_compiler_version }}.*
        - cuda-cudart-dev
  run:
    - python
    - if: cuda_compiler_version != "None"
      then: ${{ pin_compatible('cuda-version', upper_bound='x') }}
tests:
  - python:
      imports: [cuda_demo]
about:
  license: MIT
  summary: render benchmark
RECIPE
cat > "$work/variants.yaml" <<'VARIANTS'
c_compiler: [gcc]
c_compiler_version: ['13']
cxx_compiler: [gxx]
cxx_compiler_version: ['13']
c_stdlib: [sysroot]
c_stdlib_version: ['2.17']
cuda_compiler: [cuda-nvcc]
cuda_compiler_version: ['11.8', '12.4', '12.9', '13.0']
python: ['3.11', '3.12', '3.13']
numpy: ['2']
VARIANTS

count=$("$gpuenv" render "$work/recipe.yaml" --variant-config "$work/variants.yaml" --json |
  python3 -c 'import json, sys; print(len(json.load(sys.stdin)["variants"]))')
echo "variants rendered: $count (expected 12)"
python3 - "$runs" "$gpuenv" "$work" <<'PY'
import subprocess, sys, time
runs, gpuenv, work = int(sys.argv[1]), sys.argv[2], sys.argv[3]
times = []
for run in range(runs):
    start = time.monotonic()
    subprocess.run([gpuenv, "render", f"{work}/recipe.yaml", "--variant-config", f"{work}/variants.yaml", "--json"],
                   check=True, stdout=subprocess.DEVNULL)
    times.append((time.monotonic() - start) * 1000)
print("gpuenv render runs (ms):", " ".join(f"{t:.1f}" for t in times))
print(f"gpuenv render: best {min(times):.1f} ms (target < 50)")
PY

python=$root/build/deps/test-tools/bin/python
if [ -x "$python" ] && "$python" -c 'import rattler_build' 2>/dev/null; then
  "$python" - "$runs" "$work" <<'PY'
import sys, time
from rattler_build import PlatformConfig, RenderConfig, Stage0Recipe, VariantConfig
from rattler_build.jinja_config import JinjaConfig
runs, work = int(sys.argv[1]), sys.argv[2]
platform = PlatformConfig(target_platform="linux-64", build_platform="linux-64", host_platform="linux-64")
times = []
for run in range(runs):
    start = time.monotonic()
    config = VariantConfig.from_file_with_context(f"{work}/variants.yaml", JinjaConfig(platform=platform))
    rendered = Stage0Recipe.from_file(f"{work}/recipe.yaml").render(config, RenderConfig(platform=platform))
    times.append((time.monotonic() - start) * 1000)
print(f"rattler-build (py-rattler-build, in-process, no start-up): {len(rendered)} variants, best {min(times):.1f} ms")
PY
else
  echo "rattler-build: not installed (scripts/setup.sh installs py-rattler-build), not compared"
fi
