#!/usr/bin/env bash
# Fetches, through a PRIVATE apt configuration (the machine's /etc/apt is
# neither read for sources nor changed; no root needed), what the
# recipes/openblas and recipes/llvmdev builds take from Debian when GitHub
# is out of reach:
#   - trixie's openblas source package (the upstream tarball, repacked +ds),
#     given to `gpuenv build recipes/openblas --source <orig> --source-version V`;
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
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

apt_dir=$work/apt
mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" "$apt_dir/parts" "$apt_dir/download" "$apt_dir/prefs"
cat > "$apt_dir/sources.list" <<LIST
deb-src $debian_mirror trixie main
deb $debian_mirror bookworm main
LIST
apt_options=(-o "Dir::Etc::SourceList=$apt_dir/sources.list" -o "Dir::Etc::SourceParts=$apt_dir/parts"
             -o "Dir::Etc::Preferences=$apt_dir/prefs/none" -o "Dir::Etc::PreferencesParts=$apt_dir/prefs"
             -o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache=$apt_dir/cache"
             -o "Dir::State::status=/dev/null" -o "APT::Architecture=amd64"
             -o "APT::Sandbox::User=$(id -un)" -o "Debug::NoLocking=1")
apt-get "${apt_options[@]}" -qq update

# OpenBLAS: trixie's source package (debian/ changes are not used; the
# recipe's build is conda-forge's).
(cd "$apt_dir/download" && apt-get "${apt_options[@]}" -qq source --download-only openblas/trixie)
orig=$(ls "$apt_dir"/download/openblas_*.orig.tar.* | head -n 1)
cp "$orig" "$dest/"
echo "openblas source: $dest/$(basename "$orig") sha256 $(sha256sum "$orig" | cut -d' ' -f1)"
grep -h '^Version:' "$apt_dir"/download/openblas_*.dsc | head -n 1

# LLVM 15: the bookworm binary packages, with the Packages index's SHA256.
for package in libllvm15 llvm-15 llvm-15-dev llvm-15-tools llvm-15-runtime llvm-15-linker-tools libclang-cpp15; do
  apt-cache "${apt_options[@]}" show "$package" 2>/dev/null |
    awk -v p="$package" '/^Version:/{v=$2} /^Filename:/{f=$2} /^SHA256:/{s=$2} /^Depends:/{d=$0} /^$/{if (f) print p, v, f, s; f=""}' | head -n 1
done | tee "$dest/llvm-15-bookworm.txt"
(cd "$apt_dir/download" && apt-get "${apt_options[@]}" -qq download libllvm15 llvm-15 llvm-15-dev llvm-15-tools)
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
# Debian links its own LAPACK instead), but conda-forge's libopenblas
# carries OpenBLAS's own LAPACK(E). GitHub is out of reach, so those two
# directories come from OpenBLAS's upstream git as the stored mirror has
# it (OPENBLAS_GIT, default the `fetch` tool's copy; its newest commit
# 72461f1c8 of 2024-10-23, between 0.3.28 and 0.3.29 -- 0.3.29's LAPACK
# changes after that date, Reference-LAPACK PRs 1062/1064/1080, are missing).
openblas_git=${OPENBLAS_GIT:-/work/.mirror/OpenMathLib+OpenBLAS/repo}
openblas_lapack_rev=${OPENBLAS_LAPACK_REV:-72461f1c8c11bb6fca450388e5c4bc966f9e4048}
composed=$dest/OpenBLAS-0.3.29-debian+lapack-netlib
if [ -d "$openblas_git" ]; then
  rm -rf "$composed" && mkdir -p "$composed"
  tar -xJf "$dest/$(basename "$orig")" -C "$composed" --strip-components=1
  git -C "$openblas_git" archive "$openblas_lapack_rev" lapack-netlib relapack | tar -x -C "$composed"
  echo "openblas composed source: $composed (lapack-netlib, relapack from $openblas_lapack_rev)"
else
  echo "no OpenBLAS git at $openblas_git: $composed not made (LAPACK would be missing)" >&2
fi
