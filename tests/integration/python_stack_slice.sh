#!/usr/bin/env bash
# Issue 29's fast slice for CI: the GCC runtime (recipes/gcc-runtime, Debian's
# .debs by sha256) and the C libraries CPython needs (zlib and
# libffi, which Debian repacked, through --source-for; bzip2 and xz, which are
# upstream's archives byte for byte, through --source-archives) built by
# bench/python_stack/build_part1.sh --slice, the same whole-repository path
# the full stack takes, each package's own tests run; the C libraries depend
# on the GCC runtime they were built with (issue 34); then a re-run with
# nothing changed must skip every package and take under 10 s.
#
#   tests/integration/python_stack_slice.sh --gpuenv PATH
#
# Exit 77 (ctest: skipped) when Debian's archive cannot be reached and CI is
# not set; on CI that is a failure.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
gpuenv=$root/build/dev/src/cli/gpuenv
[ "${1:-}" = --gpuenv ] && gpuenv=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0
"$root/bench/python_stack/build_part1.sh" --slice --gpuenv "$gpuenv" --output-dir "$work/channel" \
  > "$work/first.out" 2> "$work/first.err" || status=$?
[ "$status" = 77 ] && { cat "$work/first.err" >&2; exit 77; }
if [ "$status" != 0 ]; then
  tail -n 60 "$work/first.err" >&2
  echo "FAIL: the slice did not build (exit $status)" >&2
  exit 1
fi
cat "$work/first.out"
grep -q "^5 recipes: 5 built, 0 skipped (all in the output channel), 0 failed, 0 not built" "$work/first.out" ||
  { echo "FAIL: the repository build's summary is not 5 recipes built" >&2; exit 1; }
for package in libgcc libstdcxx libzlib zlib bzip2 liblzma xz libffi; do
  ls "$work/channel/linux-64/$package"-[0-9]*.conda > /dev/null 2>&1 ||
    { echo "FAIL: $package is not in the channel" >&2; exit 1; }
done
start=$(date +%s%N)
"$root/bench/python_stack/build_part1.sh" --slice --gpuenv "$gpuenv" --output-dir "$work/channel" \
  > "$work/again.out" 2> "$work/again.err"
milliseconds=$(( ($(date +%s%N) - start) / 1000000 ))
# libzlib, built with the machine's gcc, needs the runtime the channel now has.
python3 -c 'import sys, zipfile
archive = zipfile.ZipFile(sys.argv[1])
sys.stdout.buffer.write(archive.read(next(n for n in archive.namelist() if n.startswith("info-"))))' \
  "$(ls "$work"/channel/linux-64/libzlib-[0-9]*.conda)" | zstd -dc | tar -xO info/index.json | grep -q '"libgcc >=' ||
  { echo "FAIL: libzlib does not depend on libgcc" >&2; exit 1; }
grep -q "5 recipes: 0 built, 5 skipped" "$work/again.out" ||
  { cat "$work/again.out" >&2; echo "FAIL: the re-run built something" >&2; exit 1; }
echo "re-run with nothing changed: ${milliseconds} ms"
[ "$milliseconds" -lt 10000 ] || { echo "FAIL: the re-run took ${milliseconds} ms (10 s at most)" >&2; exit 1; }
echo "PASS: the slice built, and a re-run skipped it all in ${milliseconds} ms"
