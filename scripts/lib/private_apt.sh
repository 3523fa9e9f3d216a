# shellcheck shell=bash
# A private apt configuration under a directory of its own, for fetching
# Debian's source (and binary) packages: the machine's /etc/apt is neither
# read for sources nor changed, and no root is needed. Sourced by the
# scripts that fetch Debian's sources (bench/python_stack/fetch_debian_sources*.sh,
# tests/integration/ucx/ucx_debian_source_build.sh); then
#
#   private_apt_update DIR "deb-src http://deb.debian.org/debian trixie main" [LINE...]
#
# writes the lines as DIR/sources.list, sets the array private_apt_options
# (for apt-get and apt-cache) and runs `apt-get update`, its output in
# DIR/update.log; the status is apt-get's. Downloads go to DIR/download.
private_apt_update() {
  local dir=$1
  shift
  mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial" "$dir/parts" "$dir/download" "$dir/prefs"
  printf '%s\n' "$@" > "$dir/sources.list"
  private_apt_options=(-o "Dir::Etc::SourceList=$dir/sources.list" -o "Dir::Etc::SourceParts=$dir/parts"
                       -o "Dir::Etc::Preferences=$dir/prefs/none" -o "Dir::Etc::PreferencesParts=$dir/prefs"
                       -o "Dir::State::Lists=$dir/lists" -o "Dir::Cache=$dir/cache"
                       -o "Dir::State::status=/dev/null" -o "APT::Architecture=amd64"
                       -o "APT::Sandbox::User=$(id -un)" -o "Debug::NoLocking=1")
  apt-get "${private_apt_options[@]}" -qq update > "$dir/update.log" 2>&1
}
