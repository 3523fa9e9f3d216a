#!/usr/bin/env bash
# The build overhead benchmark of issue 14: for each example recipe in
# recipes/examples, `gpuenv build` is run `runs` times into a fresh output
# directory, and gpuenv's own time -- the whole build minus the recipe's
# script (`seconds - script_seconds` of `gpuenv build --json`) -- is
# reported per package. Target: < 2 s per example build.
#
#   bench/packaging/run_build_bench.sh [path/to/gpuenv] [runs]
#
# The examples build into one output directory in dependency order
# (stencil-samples, stencil, stencil-stats), so stencil-stats finds stencil
# in the output channel. Where rattler-build (py-rattler-build in
# build/deps/test-tools) can build a recipe here -- the noarch one, which
# needs no compiler package -- it is timed on the same recipe next to gpuenv
# (its whole build: it does not report its script time separately).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
gpuenv=${1:-$root/build/dev/src/cli/gpuenv}
runs=${2:-5}
python=$root/build/deps/test-tools/bin/python
work=$(mktemp -d "${TMPDIR:-/tmp}/gpuenv-build-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
export GPUENV_CACHE_DIR=$work/cache GPUENV_ROOT_PREFIX=$work/root HOME=$work/home
export SOURCE_DATE_EPOCH=1700000000
mkdir -p "$work/empty/noarch" "$work/empty/linux-64" "$HOME"
for subdir in noarch linux-64; do
  printf '{"info": {"subdir": "%s"}, "packages": {}, "packages.conda": {}}\n' $subdir \
    >"$work/empty/$subdir/repodata.json"
done
recipes=(stencil-samples stencil stencil-stats)

printf '%-16s %4s %10s %10s %10s\n' recipe run total_s script_s overhead_s
for run in $(seq 1 "$runs"); do
  out=$work/out-$run
  for recipe in "${recipes[@]}"; do
    "$gpuenv" build "$root/recipes/examples/$recipe" --output-dir "$out" \
      -c "file://$work/empty" --override-channels --json >"$work/result.json" 2>"$work/stderr" || {
      echo "gpuenv build $recipe failed:" >&2
      cat "$work/result.json" "$work/stderr" >&2
      exit 1
    }
    "$python" - "$work/result.json" "$recipe" "$run" <<'PY'
import json, sys
result = json.load(open(sys.argv[1]))
for package in result["packages"]:
    total, script = package["seconds"], package["script_seconds"]
    print(f"{sys.argv[2]:<16} {sys.argv[3]:>4} {total:10.3f} {script:10.3f} {total - script:10.3f}")
PY
  done
done

if [ -x "$python" ] && "$python" -c 'import rattler_build' 2>/dev/null; then
  echo
  echo "rattler-build on stencil-samples (whole build, tests skipped):"
  for run in $(seq 1 "$runs"); do
    "$python" - "$root/recipes/examples/stencil-samples/recipe.yaml" "$work/rattler-$run" "file://$work/empty" <<'PY'
import sys, time, warnings
warnings.simplefilter("ignore")
import rattler_build
start = time.perf_counter()
rattler_build.build_recipes([sys.argv[1]], output_dir=sys.argv[2], channel=[sys.argv[3]], test="skip")
print(f"rattler-build stencil-samples {time.perf_counter() - start:10.3f} s")
PY
  done 2>/dev/null
fi
