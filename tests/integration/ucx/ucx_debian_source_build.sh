#!/usr/bin/env bash
# Issue 16: recipes/ucx built for real, offline from conda-forge, from
# Debian's ucx source (apt-get source ucx, 1.13.1) through `--source`, as CI
# does when GitHub's release archive is out of reach.
#
# As root with debootstrap (CI machines): in the CUDA 13 CI image, by
#   gpuenv ci run recipes/ucx -m metadata/variants/variants.yaml -m tests/integration/ucx/image-toolkit.yaml \
#     --variant cuda_compiler_version=13.0 --source <cache>/ucx_1.13.1.orig.tar.xz --source-version 1.13.1 \
#     --runner chroot --override-channels
# (the image's toolkit: NVIDIA's wheels, nvml.h included), checking the
# package, its tests (ucx_info -v, -d, -b: check_cuda_transports.sh) and the
# CUDA check. Elsewhere (not root, or no debootstrap) the chroot cannot run:
# it builds on the host instead, saying so, with the machine's CUDA 13.0
# nvcc (else the CPU variant) and NVML's header from the nvidia-nvml-dev
# wheel. The Debian source and nvml.h are cached under the gpuenv cache
# directory, the image's tree under <cache>/ci-rootfs, so a warm run
# downloads nothing.
#
#   tests/integration/ucx/ucx_debian_source_build.sh --gpuenv build/dev/src/cli/gpuenv \
#     [--output-dir DIR] [--variant cpu|cuda13.0|both] [--runner chroot|host]
#
# Exit 77 (ctest: skipped) when Debian's source archive or PyPI cannot be
# reached and CI is not set; on CI that is a failure.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
gpuenv=$root/build/dev/src/cli/gpuenv
output=""
wanted=auto
runner=auto
while [ $# -gt 0 ]; do
  case "$1" in
    --gpuenv) gpuenv=$2; shift 2 ;;
    --output-dir) output=$2; shift 2 ;;
    --variant) wanted=$2; shift 2 ;;
    --runner) runner=$2; shift 2 ;;
    *) echo "usage: $0 [--gpuenv PATH] [--output-dir DIR] [--variant cpu|cuda13.0|both] [--runner chroot|host]" >&2
       exit 2 ;;
  esac
done
gpuenv=$(cd "$(dirname "$gpuenv")" && pwd)/$(basename "$gpuenv")

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

# Debian's source through a private apt configuration (scripts/lib/private_apt.sh).
orig=$cache/ucx_1.13.1.orig.tar.xz
if [ ! -f "$orig" ] || [ "$(sha256sum "$orig" | cut -d' ' -f1)" != "$ucx_orig_sha256" ]; then
  source "$root/scripts/lib/private_apt.sh"
  apt_dir=$work/apt
  private_apt_update "$apt_dir" "deb-src $debian_mirror bookworm main" ||
    unreachable "Debian's source index at $debian_mirror could not be read ($(tail -n 1 "$apt_dir/update.log"))"
  (cd "$apt_dir/download" && apt-get "${private_apt_options[@]}" -qq source --download-only "ucx=$ucx_debian_version") \
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

# The chroot runner needs root and debootstrap; where it cannot run, the
# host build stands in, and says so.
if [ "$runner" = auto ]; then
  if [ "$(id -u)" -ne 0 ]; then
    runner=host why="not root"
  elif ! command -v debootstrap > /dev/null && [ ! -x /usr/sbin/debootstrap ]; then
    runner=host why="no debootstrap"
  else
    runner=chroot
  fi
  [ "$runner" = chroot ] ||
    echo "NOTE: the chroot runner cannot run here ($why): building on the host, with this machine's toolchain, not in the CUDA 13 image"
fi

if [ "$runner" = chroot ]; then
  case "$wanted" in
    auto | cuda13.0) cuda_versions=(13.0) ;;
    cpu) cuda_versions=(None) ;;
    both) cuda_versions=(None 13.0) ;;
    *) echo "--variant: cpu, cuda13.0 or both, not $wanted" >&2; exit 2 ;;
  esac
  output=${output:-$work/output}
  mkdir -p "$output"
  failures=0
  for cuda_version in "${cuda_versions[@]}"; do
    # cuda_compiler nvcc (image-toolkit.yaml): the image's toolkit, as the
    # channels of an offline CI machine hold no CUDA packages.
    arguments=(ci run recipes/ucx -m metadata/variants/variants.yaml -m tests/integration/ucx/image-toolkit.yaml
               --variant "cuda_compiler_version=$cuda_version" --source "$orig" --source-version 1.13.1
               --runner chroot --override-channels --output-dir "$output" --json)
    echo "===== gpuenv ${arguments[*]}"
    started=$(date +%s)
    status=0
    (cd "$root" && "$gpuenv" "${arguments[@]}") > "$work/ci-run-$cuda_version.json" || status=$?
    seconds=$(( $(date +%s) - started ))
    # The job's package, tests and CUDA check; the package's CUDA modules and
    # what they link; the test's report on CUDA (check_cuda_transports.sh).
    if python3 - "$work/ci-run-$cuda_version.json" "$cuda_version" "$status" "$seconds" "$output" <<'CHECK'
import io, json, os, subprocess, sys, tarfile, tempfile, zipfile
document_file, cuda_version, status, seconds, output = sys.argv[1:]
problems = []
try:
    document = json.load(open(document_file))
except ValueError:
    print(open(document_file).read())
    sys.exit(f"FAIL: gpuenv ci run printed no JSON document (exit {status})")
jobs = document.get("jobs", [])
if status != "0" or not document.get("success") or len(jobs) != 1:
    print(json.dumps(document, indent=2))
    for job in jobs:
        if job.get("log") and os.path.exists(job["log"]):
            print("".join(open(job["log"], errors="replace").readlines()[-60:]))
    sys.exit(f"FAIL: gpuenv ci run (exit {status}, {seconds} s)")
job = jobs[0]
image = "cpu" if cuda_version == "None" else "cuda" + cuda_version
tag = "cpu_" if cuda_version == "None" else "cuda" + cuda_version.replace(".", "") + "_"
if job["image"] != image or job["runner"] != "chroot":
    problems.append(f"built in image {job['image']} by {job['runner']}, expected {image} by chroot")
packages = job.get("packages", [])
if len(packages) != 1 or not packages[0].startswith(output):
    problems.append(f"expected one package under {output}: {packages}")
    package = None
else:
    package = packages[0]
    name = package.rsplit("/", 1)[-1]
    if not (name.startswith("ucx-1.13.1-") and tag in name and name.endswith(".conda")):
        problems.append(f"{name} is not ucx 1.13.1's {tag}... build")
if job.get("tests", 0) < (3 if cuda_version != "None" else 2):
    problems.append(f"only {job.get('tests')} tests ran")
if cuda_version != "None" and not job.get("cuda_check", "").startswith("passed"):
    problems.append(f"CUDA check: {job.get('cuda_check')!r}")
log = open(job["log"], errors="replace").read() if job.get("log") else ""
if cuda_version != "None":
    # check_cuda_transports.sh's verdict: with a GPU, cuda_copy and cuda_ipc
    # are listed; without one UCX's CUDA memory domain reports no device,
    # and HAVE_CUDA and the CUDA module are what it checked.
    verdicts = ("ucx_info -d lists cuda_copy and cuda_ipc",
                "no GPU here: ucx_info -d lists no CUDA transport; the CUDA module and build configuration were checked")
    found = [line for line in verdicts if line in log]
    if not found:
        problems.append(f"the build log {job.get('log')} has no verdict of check_cuda_transports.sh")
    else:
        print("CUDA test: " + found[0])
    if package:
        # The CUDA module links the driver, NVML and the runtime by soname;
        # the link stubs of the build stay behind.
        with zipfile.ZipFile(package) as conda, tempfile.TemporaryDirectory() as scratch:
            member = next(n for n in conda.namelist() if n.startswith("pkg-") and n.endswith(".tar.zst"))
            tar_bytes = subprocess.run(["zstd", "-dc"], input=conda.read(member), capture_output=True, check=True).stdout
            with tarfile.open(fileobj=io.BytesIO(tar_bytes)) as tar:
                module = os.path.join(scratch, "libuct_cuda.so")
                with open(module, "wb") as out:
                    out.write(tar.extractfile("lib/ucx/libuct_cuda.so").read())
                if any(".cuda-link-stubs" in name for name in tar.getnames()):
                    problems.append("the package holds the build's link stubs")
            dynamic = subprocess.run(["readelf", "-d", module],
                                     capture_output=True, text=True, check=True).stdout
            for soname in ("libcuda.so.1", "libnvidia-ml.so.1", "libcudart.so.13"):
                if f"[{soname}]" not in dynamic:
                    problems.append(f"lib/ucx/libuct_cuda.so does not link {soname}")
            if ".cuda-link-stubs" in dynamic:
                problems.append("lib/ucx/libuct_cuda.so's run path names the build's link stubs")
            print("lib/ucx/libuct_cuda.so " + ", ".join(line.split()[-1] for line in dynamic.splitlines()
                                                        if "(NEEDED)" in line or "(RUNPATH)" in line))
if problems:
    print(json.dumps(document, indent=2))
    sys.exit("FAIL: " + "; ".join(problems))
print(f"PASS  {image}: {package.rsplit('/', 1)[-1]}, {os.path.getsize(package)} bytes, "
      f"{job['tests']} tests, CUDA check {job.get('cuda_check') or '-'}; image made in {job.get('image_seconds', 0):.0f} s, "
      f"{seconds} s in all")
CHECK
    then :; else failures=$((failures + 1)); fi
  done
  echo "===== $failures failed"
  exit $((failures > 0))
fi

# The host build. The CUDA variant needs a CUDA 13.0 nvcc (the machine's
# toolkit) and NVML's header, which /usr/local/cuda does not carry; the link
# libraries the toolkit lacks, recipes/ucx/build.sh makes.
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
if [ -n "$cuda_home" ] && [ ! -f "$nvml_dir/include/nvml.h" ]; then
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
  rm -rf "$nvml_dir.partial" && mkdir -p "$nvml_dir.partial/include"
  cp "$work/wheel/unpacked/nvidia/cu13/include/nvml.h" "$nvml_dir.partial/include/"
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
    build_environment=(CUDA_HOME="$cuda_home" CPPFLAGS="-I$nvml_dir/include")
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
