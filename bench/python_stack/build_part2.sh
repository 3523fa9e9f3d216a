#!/usr/bin/env bash
# Issue 30's stack, on top of part 1's channel (build_part1.sh's output):
# the CUDA 13.0 libraries CuPy builds against (NVIDIA's wheels, split as
# conda-forge splits them), CuPy from its sdist, and Dask, distributed and
# every run requirement they have, from sdists (recipes written by
# `gpuenv generate-recipe pypi dask==2026.8.0 distributed --recursive`) --
# through the same whole-repository path as part 1 (recipe order,
# --skip-existing=local, one output channel), so a re-run resumes.
#
#   bench/python_stack/build_part2.sh [--output-dir DIR] [--gpuenv PATH] [--image NAME] [--cuda VERSION] [RECIPE...]
#
# DIR must hold part 1's channel (the default is part 1's default). Not for CI:
# the CUDA libraries alone are 1.1 GB of wheels and CuPy compiles for every
# architecture of the CI matrix (bench/python_stack/README.md).
#
# --cuda 12.4: the CUDA 12.4 column into the same channel (build_part1.sh
# --cuda): the 12.4 compiler packages of recipes/cuda-* that CuPy's build
# takes from the channel, the CUDA 12.4 libraries (NVIDIA's cu12 wheels) and
# CuPy built with that compiler; the CUDA-independent rest (Dask's tail) is
# already there from the 13.0 run.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
options=()
cuda_column=13.0
while [ $# -gt 0 ]; do
  case "$1" in
    --gpuenv | --output-dir | --image) options+=("$1" "$2"); shift 2 ;;
    --cuda) options+=("$1" "$2"); cuda_column=$2; shift 2 ;;
    -*) echo "usage: $0 [--output-dir DIR] [--gpuenv PATH] [--image NAME] [--cuda VERSION] [RECIPE...]" >&2; exit 2 ;;
    *) break ;;
  esac
done

cuda_recipes=(cuda-version cuda-cccl cuda-crt cuda-cudart cuda-nvvm cuda-nvcc cuda-nvrtc cuda-driver-dev cuda-profiler-api
              cuda-nvtx libnvjitlink libcublas libcufft libcurand libcusparse libcusolver)
array=(cuda-pathfinder cupy)
# Dask's tail; the build backends the channel lacks come first in the order
# the repository build finds, whatever the order here.
dask=(yaml calver coherent-licensed hatchling hatch-vcs pathspec pluggy poetry-core setuptools-git-versioning
      tomlkit trove-classifiers versioneer lazy-importer zipp importlib-metadata
      click cloudpickle fsspec locket partd toolz pyyaml msgpack-python psutil sortedcontainers tblib
      tornado markupsafe jinja2 zict cytoolz dask-core distributed)
if [ $# -gt 0 ]; then
  recipes=("$@")
elif [ "$cuda_column" = 13.0 ]; then
  recipes=("${cuda_recipes[@]}" "${array[@]}" "${dask[@]}")
else
  recipes=("${cuda_recipes[@]}" "${array[@]}")
fi
exec "$here/build_part1.sh" "${options[@]}" "${recipes[@]}"
