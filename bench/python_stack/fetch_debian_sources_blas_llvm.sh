#!/usr/bin/env bash
# Fetches, through a private apt configuration (scripts/lib/private_apt.sh:
# the machine's /etc/apt is neither read for sources nor changed), what the
# recipes/openblas and recipes/llvmdev builds take from Debian when GitHub
# is out of reach:
#   - trixie's openblas source package (the upstream tarball, repacked +ds)
#     and its lapack source package (Reference-LAPACK 3.12.1), put together
#     into the directory build_part1.sh gives `--source-for openblas=`;
#   - bookworm's llvm-toolchain-15 binary packages (llvm-15, llvm-15-dev,
#     llvm-15-tools, libllvm15), which recipes/llvmdev downloads itself by
#     URL + sha256; here they are only listed with the SHA256 Debian's
#     Packages index gives (to check the recipe's digests), and cached.
# As tests/integration/ucx/ucx_debian_source_build.sh does.
#
#   bench/python_stack/fetch_debian_sources_blas_llvm.sh [DEST]   (default <cache>/debian-sources)
set -euo pipefail
dest=${1:-${GPUENV_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/gpuenv}/debian-sources}
debian_mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
mkdir -p "$dest"
# Done once: a re-run (build_part1.sh runs this every time) finds the
# composed OpenBLAS source and the stamp the last step writes.
stamp=$dest/blas-llvm.fetched
if [ -f "$stamp" ] && [ -d "$dest/OpenBLAS-0.3.29+ds+lapack-3.12.1/lapack-netlib" ]; then
  echo "openblas composed source and LLVM 15 digests: up to date ($stamp; remove it to fetch again)"
  exit 0
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib/private_apt.sh"
apt_dir=$work/apt
private_apt_update "$apt_dir" "deb-src $debian_mirror trixie main" "deb $debian_mirror bookworm main" || {
  cat "$apt_dir/update.log" >&2
  exit 1
}

# OpenBLAS: trixie's source package (debian/ changes are not used; the
# recipe's build is conda-forge's).
(cd "$apt_dir/download" && apt-get "${private_apt_options[@]}" -qq source --download-only openblas/trixie)
orig=$(ls "$apt_dir"/download/openblas_*.orig.tar.* | head -n 1)
cp "$orig" "$dest/"
echo "openblas source: $dest/$(basename "$orig") sha256 $(sha256sum "$orig" | cut -d' ' -f1)"
grep -h '^Version:' "$apt_dir"/download/openblas_*.dsc | head -n 1

# LLVM 15: the bookworm binary packages, with the Packages index's SHA256.
for package in libllvm15 llvm-15 llvm-15-dev llvm-15-tools llvm-15-runtime llvm-15-linker-tools libclang-cpp15; do
  apt-cache "${private_apt_options[@]}" show "$package" 2>/dev/null |
    awk -v p="$package" '/^Version:/{v=$2} /^Filename:/{f=$2} /^SHA256:/{s=$2} /^Depends:/{d=$0} /^$/{if (f) print p, v, f, s; f=""}' | head -n 1
done | tee "$dest/llvm-15-bookworm.txt"
(cd "$apt_dir/download" && apt-get "${private_apt_options[@]}" -qq download libllvm15 llvm-15 llvm-15-dev llvm-15-tools)
while read -r package version filename sha256; do
  file="$apt_dir/download/$(basename "$filename" | sed 's/%3a/%3a/')"
  for candidate in "$apt_dir"/download/"${package}"_*.deb; do
    [ -f "$candidate" ] || continue
    actual=$(sha256sum "$candidate" | cut -d' ' -f1)
    if [ "$actual" = "$sha256" ]; then cp "$candidate" "$dest/"; echo "ok $package $actual"; fi
  done
done < "$dest/llvm-15-bookworm.txt"
ls -la "$dest"

# OpenBLAS's source as recipes/openblas builds it. Debian's +ds tarball
# leaves out lapack-netlib/ and relapack/ (debian/copyright Files-Excluded:
# Debian builds OpenBLAS on its own lapack package). Debian's lapack source
# is Reference-LAPACK's v3.12.1 release archive byte for byte (the sha256
# below is that of github.com/Reference-LAPACK/lapack/archive/refs/tags/v3.12.1.tar.gz):
# it goes into lapack-netlib/, and recipes/openblas/build.sh leaves out of it
# what OpenBLAS implements itself (see there). relapack/ is only built with
# BUILD_RELAPACK=1, which neither conda-forge nor the recipe sets.
lapack_sha256=2ca6407a001a474d4d4d35f3a61550156050c48016d949f0da0529c0aa052422
# Only the .orig is used, and it is checked against the pinned sha256 below:
# a mirror whose index names a .dsc revision it no longer holds (seen here:
# lapack_3.12.1-6.dsc 404) still serves it, so apt-get's exit status is not
# the verdict.
(cd "$apt_dir/download" && apt-get "${private_apt_options[@]}" -qq source --download-only lapack/trixie) ||
  echo "apt-get source lapack/trixie did not fetch every file; checking its .orig" >&2
lapack_orig="$apt_dir/download/lapack_3.12.1.orig.tar.gz"
[ -f "$lapack_orig" ] || { echo "no $lapack_orig from Debian's mirror" >&2; exit 1; }
actual=$(sha256sum "$lapack_orig" | cut -d' ' -f1)
if [ "$actual" != "$lapack_sha256" ]; then
  echo "$lapack_orig: sha256 $actual, not Reference-LAPACK v3.12.1's $lapack_sha256" >&2
  exit 1
fi
cp "$lapack_orig" "$dest/"
composed=$dest/OpenBLAS-0.3.29+ds+lapack-3.12.1
rm -rf "$composed" && mkdir -p "$composed/lapack-netlib"
tar -xJf "$dest/$(basename "$orig")" -C "$composed" --strip-components=1
tar -xzf "$lapack_orig" -C "$composed/lapack-netlib" --strip-components=1
echo "openblas composed source: $composed (lapack-netlib: Reference-LAPACK 3.12.1, sha256 $lapack_sha256)"
echo "fetched $(date -u +%Y-%m-%dT%H:%M:%SZ)" > "$stamp"
