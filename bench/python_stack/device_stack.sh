# shellcheck shell=bash
# What both GPU checks (gpu_check.sh, gpu_check_part2.sh) do first on the
# lent GPU machine, sourced by them: $STACK's portable gpuenv unpacked, the
# packages that travelled as parts joined, the channel indexed, `check`
# defined, and what `gpuenv cuda` detects printed. Sets root, stack, gpuenv,
# channel, work (removed at exit) and failures.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
stack=${STACK:-/root/stack}
gpuenv=$stack/bin/gpuenv
channel=$stack/channel
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export GPUENV_CACHE_DIR=$work/cache GPUENV_ROOT_PREFIX=$work/root
unset CONDA_OVERRIDE_CUDA PYTHONPATH
failures=0
check() {  # description, then a command that must succeed
  local description=$1
  shift
  if "$@"; then echo "PASS  $description"; else echo "FAIL  $description"; failures=$((failures + 1)); fi
}

if [ ! -x "$gpuenv" ]; then
  mkdir -p "$stack/bin"
  python3 -c "import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])" "$stack/gpu-portable.tar.xz" "$stack/bin"
fi
# Packages larger than a piece came as parts (pack_for_device.sh).
for first in $(find "$channel" -name '*.conda.part00'); do
  cat "${first%.part00}".part* > "${first%.part00}" && rm -f "${first%.part00}".part*
done
echo "===== the pieces: $(find "$channel" -name '*.conda' | wc -l) packages, $(du -sh "$channel" | cut -f1)"
mkdir -p "$channel/linux-64" "$channel/noarch"
"$gpuenv" index "$channel" > /dev/null
echo "===== gpuenv cuda"
"$gpuenv" cuda | sed -n '1,12p'


# gpuenv create -p $work/env from the channel alone, timed and checked.
create_env() {
  echo "===== gpuenv create -p ENV $*"
  local start status
  start=$(date +%s.%N)
  "$gpuenv" create -y -p "$work/env" -c "$channel" --override-channels "$@" > "$work/create.out" 2>&1
  status=$?
  echo "create: exit $status in $(python3 -c "import sys; print(round(float(sys.argv[2]) - float(sys.argv[1]), 2))" "$start" "$(date +%s.%N)") s"
  tail -n 40 "$work/create.out"
  check "gpuenv create from the built channel" test "$status" -eq 0
}
