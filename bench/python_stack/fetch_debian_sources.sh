#!/usr/bin/env bash
# Downloads the Debian (trixie) source archives the Python stack's recipes
# (recipes/zlib ... recipes/python) are built from where upstream's hosts
# (python.org, zlib.net, GitHub...) cannot be reached, into
#   ${GPUENV_CACHE_DIR:-~/.cache/gpuenv}/debian-sources/
# and prints, for each: the recipe, the file, its sha256 and whether it is
# byte-identical to the upstream archive the recipe names (same sha256).
# The table is bench/python_stack/debian-sources.tsv (pinned Debian versions
# and sha256s; a repacked archive needs `gpuenv build --source FILE`).
#
#   bench/python_stack/fetch_debian_sources.sh [RECIPE...]
#
# Debian's source is read through a private apt configuration
# (scripts/lib/private_apt.sh). Exit 77
# when Debian's archive cannot be reached and CI is not set (on CI: 1).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
table=$here/debian-sources.tsv
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
cache=${GPUENV_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/gpuenv}/debian-sources
mkdir -p "$cache"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

unreachable() {
  if [ "${CI:-}" = "true" ]; then
    echo "FAIL: $1 (CI must reach it, or have $cache filled)" >&2
    exit 1
  fi
  echo "SKIP: $1 (on CI this fails)" >&2
  exit 77
}

source "$here/../../scripts/lib/private_apt.sh"
apt_ready=false
prepare_apt() {
  $apt_ready && return 0
  private_apt_update "$work/apt" "deb-src $mirror trixie main" ||
    unreachable "Debian's source index at $mirror could not be read ($(tail -n 1 "$work/apt/update.log"))"
  apt_ready=true
}

wanted=("$@")
status=0
printf '%-9s %-44s %-64s %s\n' recipe file sha256 "equals the recipe's upstream sha256"
while IFS=$'\t' read -r recipe package file orig_sha256 upstream_sha256 needs_source why; do
  case "$recipe" in '#'* | '') continue ;; esac
  if [ ${#wanted[@]} -gt 0 ] && [[ " ${wanted[*]} " != *" $recipe "* ]]; then continue; fi
  target=$cache/$file
  if [ ! -f "$target" ] || [ "$(sha256sum "$target" | cut -d' ' -f1)" != "$orig_sha256" ]; then
    prepare_apt
    # The orig archive is what is needed; a mirror that lacks the .dsc or the
    # .debian.tar.xz of a point release still serves it (apt checks it against
    # the signed index, and its sha256 is pinned here).
    (cd "$work/apt/download" && apt-get "${private_apt_options[@]}" -qq source --download-only "$package") \
      > "$work/apt-source-$recipe.log" 2>&1 || [ -f "$work/apt/download/$file" ] ||
      unreachable "apt-get source $package failed ($(tail -n 1 "$work/apt-source-$recipe.log"))"
    actual=$(sha256sum "$work/apt/download/$file" | cut -d' ' -f1)
    if [ "$actual" != "$orig_sha256" ]; then
      echo "FAIL: $file has sha256 $actual, expected $orig_sha256 (Debian's $package)" >&2
      status=1
      continue
    fi
    mv "$work/apt/download/$file" "$target"
    # upstream's signature, where Debian ships it: evidence the file is upstream's own
    [ -f "$work/apt/download/$file.asc" ] && mv "$work/apt/download/$file.asc" "$target.asc"
  fi
  if [ "$orig_sha256" = "$upstream_sha256" ]; then same="yes"; else same="no: build with --source $target"; fi
  [ -f "$target.asc" ] && same="$same (upstream's .asc beside it)"
  printf '%-9s %-44s %-64s %s\n' "$recipe" "$target" "$orig_sha256" "$same"
done < "$table"
exit $status
