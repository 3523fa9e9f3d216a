# shellcheck shell=bash
# What both install benchmarks (run_install_bench.sh, run_side_by_side.sh)
# do first, sourced with the work directory's name as $1 and the script's own
# arguments after it: sets root, gpuenv (argument 1, default the dev build),
# runs (argument 2, default 3), channel (the 100-package install channel,
# generated once) and work (a fresh directory under $TMPDIR, removed at exit
# with the server whose pid is in server_pid).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
bench_name=$1
shift
gpuenv=${1:-$root/build/dev/src/cli/gpuenv}
runs=${2:-3}
channel=$root/build/bench/install-channel
work=$(mktemp -d "${TMPDIR:-/tmp}/$bench_name.XXXXXX")
server_pid=
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
[ -f "$channel/linux-64/repodata.json" ] || python3 "$root/bench/install/generate_install_channel.py" --out "$channel"
