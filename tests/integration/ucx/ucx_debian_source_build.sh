#!/usr/bin/env bash
# Issue 16: recipes/ucx built for real, offline from conda-forge, from
# Debian's ucx source (apt-get source ucx, 1.13.1) through `gpuenv build
# --source`, as CI does when GitHub's release archive is out of reach. With a
# CUDA 13.0 nvcc on the machine it builds the CUDA 13.0 variant (the toolkit
# from the machine: cuda_compiler nvcc), else the CPU variant; the build runs
# the package's tests (ucx_info -v, -d, -b). The Debian source and NVIDIA's
# nvml.h are cached under the gpuenv cache directory, so a warm run downloads
# nothing.
#
#   tests/integration/ucx/ucx_debian_source_build.sh --gpuenv build/dev/src/cli/gpuenv \
#     [--output-dir DIR] [--variant cpu|cuda13.0|both]
#
# Exit 77 (ctest: skipped) when Debian's source archive or PyPI cannot be
# reached and CI is not set; on CI that is a failure.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
gpuenv=$root/build/dev/src/cli/gpuenv
output=""
wanted=auto
while [ $# -gt 0 ]; do
  case "$1" in
    --gpuenv) gpuenv=$2; shift 2 ;;
    --output-dir) output=$2; shift 2 ;;
    --variant) wanted=$2; shift 2 ;;
    *) echo "usage: $0 [--gpuenv PATH] [--output-dir DIR] [--variant cpu|cuda13.0|both]" >&2; exit 2 ;;
  esac
done

ucx_debian_version=1.13.1-1
# From Debian's signed ucx_1.13.1-1.dsc (bookworm); apt checks it too, this
# pins the archive the patches in recipes/ucx/patches/1.13.1 were made for.
ucx_orig_sha256=1a88e09ca1b406c046a469c2ae271d2c330050b5664c0bcd9890e26c6ef09f3c
nvml_wheel_version=13.0.87
# PyPI's sha256 of nvidia_nvml_dev-13.0.87-py3-none-manylinux2014_x86_64.manylinux_2_17_x86_64.whl
nvml_wheel_sha256=082871368275cf6620fc900f55d8eaf2563b263a38a00a5168e9650bce963ba1
debian_mirror=${UCX_DEBIAN_MIRROR:-http://deb.debian.org/debian}
cache=${GPUENV_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/gpuenv}/ucx-debian-source
mkdir -p "$cache"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

unreachable() {  # what could not be fetched
  if [ "${CI:-}" = "true" ]; then
    echo "FAIL: $1 (CI must reach it, or have $cache filled)" >&2
    exit 1
  fi
  echo "SKIP: $1; nothing was built (on CI this fails)" >&2
  exit 77
}

# Debian's source through a private apt configuration: the machine's apt
# sources are neither read nor changed, and no root is needed.
orig=$cache/ucx_1.13.1.orig.tar.xz
if [ ! -f "$orig" ] || [ "$(sha256sum "$orig" | cut -d' ' -f1)" != "$ucx_orig_sha256" ]; then
  apt_dir=$work/apt
  mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" "$apt_dir/parts" "$apt_dir/download"
  echo "deb-src $debian_mirror bookworm main" > "$apt_dir/sources.list"
  apt_options=(-o "Dir::Etc::SourceList=$apt_dir/sources.list" -o "Dir::Etc::SourceParts=$apt_dir/parts"
               -o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache=$apt_dir/cache"
               -o "APT::Sandbox::User=$(id -un)" -o "Debug::NoLocking=1")
  apt-get "${apt_options[@]}" -qq update > "$work/apt-update.log" 2>&1 ||
    unreachable "Debian's source index at $debian_mirror could not be read ($(tail -n 1 "$work/apt-update.log"))"
  (cd "$apt_dir/download" && apt-get "${apt_options[@]}" -qq source --download-only "ucx=$ucx_debian_version") \
    > "$work/apt-source.log" 2>&1 ||
    unreachable "apt-get source ucx=$ucx_debian_version failed ($(tail -n 1 "$work/apt-source.log"))"
  downloaded=$apt_dir/download/ucx_1.13.1.orig.tar.xz
  actual=$(sha256sum "$downloaded" | cut -d' ' -f1)
  if [ "$actual" != "$ucx_orig_sha256" ]; then
    echo "FAIL: $downloaded has sha256 $actual, expected $ucx_orig_sha256 (Debian's ucx $ucx_debian_version)" >&2
    exit 1
  fi
  mv "$downloaded" "$orig"
fi
echo "Debian's ucx source: $orig"

# The CUDA variant needs a CUDA 13.0 nvcc (the machine's toolkit) and NVML's
# header and link library, which UCX's configure requires with CUDA and the
# toolkit's wheels and /usr/local/cuda do not carry.
cuda_home=""
for candidate in "${CUDA_HOME:-}" /usr/local/cuda-13.0 /usr/local/cuda /opt/cuda-13.0; do
  if [ -n "$candidate" ] && [ -x "$candidate/bin/nvcc" ] && "$candidate/bin/nvcc" --version 2>/dev/null | grep -q "release 13.0,"; then
    cuda_home=$candidate
    break
  fi
done
variants=()
case "$wanted" in
  auto) if [ -n "$cuda_home" ]; then variants=(cuda13.0); else variants=(cpu); fi ;;
  cpu) variants=(cpu) ;;
  cuda13.0) variants=(cuda13.0) ;;
  both) variants=(cpu cuda13.0) ;;
  *) echo "--variant: cpu, cuda13.0 or both, not $wanted" >&2; exit 2 ;;
esac
if [ "${variants[*]}" != "cpu" ] && [ -z "$cuda_home" ]; then
  echo "FAIL: the CUDA 13.0 variant was asked for and no CUDA 13.0 nvcc was found (CUDA_HOME, /usr/local/cuda*)" >&2
  exit 1
fi
[ -n "$cuda_home" ] || echo "no CUDA 13.0 nvcc on this machine: building the CPU variant only"

nvml_dir=$cache/nvml-$nvml_wheel_version
if [ -n "$cuda_home" ] && [ ! -f "$nvml_dir/lib/stubs/libnvidia-ml.so" ]; then
  python3 -m pip download -q --no-deps --only-binary=:all: --platform manylinux2014_x86_64 \
    --dest "$work/wheel" "nvidia-nvml-dev==$nvml_wheel_version" > "$work/pip.log" 2>&1 ||
    unreachable "pip could not download nvidia-nvml-dev==$nvml_wheel_version ($(tail -n 1 "$work/pip.log"))"
  wheel=$(ls "$work"/wheel/nvidia_nvml_dev-*.whl)
  actual=$(sha256sum "$wheel" | cut -d' ' -f1)
  if [ "$actual" != "$nvml_wheel_sha256" ]; then
    echo "FAIL: $wheel has sha256 $actual, expected $nvml_wheel_sha256 (PyPI's)" >&2
    exit 1
  fi
  python3 -m zipfile -e "$wheel" "$work/wheel/unpacked"
  rm -rf "$nvml_dir.partial" && mkdir -p "$nvml_dir.partial/include" "$nvml_dir.partial/lib/stubs"
  cp "$work/wheel/unpacked/nvidia/cu13/include/nvml.h" "$nvml_dir.partial/include/"
  # A link stub, as the toolkit's lib64/stubs/libnvidia-ml.so is: every
  # function nvml.h declares, under the driver library's soname, so the
  # linker records libnvidia-ml.so.1 and the driver's library is loaded at
  # run time. Never installed: the package's rpaths leave the build.
  sed -n 's/.*DECLDIR[[:space:]]\{1,\}\(nvml[A-Za-z0-9_]*\)[[:space:]]*(.*/\1/p' "$nvml_dir.partial/include/nvml.h" |
    sort -u | awk '{ print "int " $1 "(void) { return 999; }" }' > "$work/nvml_stub.c"
  test -s "$work/nvml_stub.c" || { echo "FAIL: no NVML function found in nvml.h of nvidia-nvml-dev $nvml_wheel_version" >&2; exit 1; }
  "${CC:-gcc}" -shared -fPIC -Wl,-soname,libnvidia-ml.so.1 -o "$nvml_dir.partial/lib/stubs/libnvidia-ml.so" "$work/nvml_stub.c"
  rm -rf "$nvml_dir" && mv "$nvml_dir.partial" "$nvml_dir"
fi

output=${output:-$work/output}
mkdir -p "$output"
failures=0
for variant in "${variants[@]}"; do
  arguments=(build "$root/recipes/ucx" --source "$orig" --source-version 1.13.1 --output-dir "$output"
             --override-channels --json)
  if [ "$variant" = cpu ]; then
    arguments+=(--variant cuda_compiler_version=None)
    build_environment=()
  else
    # cuda_compiler nvcc: the toolkit (and NVML) from the machine, as
    # conda-forge's images provided CUDA 11.8; no CUDA packages in host.
    arguments+=(--variant cuda_compiler_version=13.0 --variant cuda_compiler=nvcc)
    build_environment=(CUDA_HOME="$cuda_home" CPPFLAGS="-I$nvml_dir/include" LDFLAGS="-L$nvml_dir/lib/stubs")
  fi
  echo "===== gpuenv ${arguments[*]}"
  started=$(date +%s)
  status=0
  env "${build_environment[@]}" "$gpuenv" "${arguments[@]}" > "$work/build-$variant.json" || status=$?
  seconds=$(( $(date +%s) - started ))
  if [ "$status" -ne 0 ]; then
    echo "FAIL: building the $variant variant (exit $status, ${seconds} s):"
    cat "$work/build-$variant.json"
    log=$(ls -t "$output"/bld/*.log 2>/dev/null | head -n 1 || true)
    [ -n "$log" ] && tail -n 60 "$log"
    failures=$((failures + 1))
    continue
  fi
  package=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["packages"][0]["package"])' "$work/build-$variant.json")
  echo "PASS  $variant: $(basename "$package"), $(stat -c %s "$package") bytes, built and tested in ${seconds} s"
done
echo "===== $failures failed"
exit $((failures > 0))
