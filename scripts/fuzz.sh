#!/usr/bin/env bash
# Builds the libFuzzer targets (clang) and runs each for SECONDS (default 600),
# seeded from the conformance tables in $GPUENV_TESTDATA/vectors.
# Usage: scripts/fuzz.sh [SECONDS] [TARGET...]
#   (targets: version version_spec match_spec cuda_binary expression recipe)
# cuda_binary is seeded with tests/data/cuda_binary, expression and recipe with
# the recipes in tests/data/recipe and $GPUENV_TESTDATA/recipes; those three run
# only when named.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
seconds=${1:-600}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(version version_spec match_spec)
testdata=${GPUENV_TESTDATA:-$root/../shared/testdata}

"$root/scripts/setup.sh"
cd "$root"
[ -f build/fuzz/build.ninja ] || cmake --preset fuzz >/dev/null
fuzz_targets=()
for target in "${targets[@]}"; do fuzz_targets+=("fuzz_$target"); done
cmake --build --preset fuzz --target "${fuzz_targets[@]}" >/dev/null

seed_corpus() {  # target -> directory of one-input files from the first TSV column
  local target=$1 dir=build/fuzz/corpus/$1 files
  case $target in
    version) files="version_order.tsv version_parse.tsv version_invalid.tsv" ;;
    version_spec) files="version_spec_match.tsv version_spec_invalid.tsv version_spec_properties.tsv" ;;
    match_spec) files="matchspec_parse.tsv matchspec_canonical_str.tsv matchspec_invalid.tsv matchspec_match.tsv" ;;
    cuda_binary)
      mkdir -p "$dir"
      cp tests/data/cuda_binary/*.fatbin tests/data/cuda_binary/*.cubin tests/data/cuda_binary/*.ptx \
        tests/data/cuda_binary/*.a tests/data/cuda_binary/*.so "$dir/"
      echo "$dir"
      return ;;
    recipe)
      mkdir -p "$dir"
      cp tests/data/recipe/*.yaml "$dir/"
      find "$testdata/recipes" -name recipe.yaml | while IFS= read -r f; do
        cp "$f" "$dir/$(printf '%s' "$f" | sha1sum | cut -c1-16).yaml"
      done
      echo "$dir"
      return ;;
    expression)
      mkdir -p "$dir"
      { cat tests/data/recipe/*.yaml; find "$testdata/recipes" -name recipe.yaml -exec cat {} +; } |
        grep -o '\${{[^}]*}}' | sed 's/^\${{ *//; s/ *}}$//' | sort -u | while IFS= read -r line; do
          printf '%s' "$line" > "$dir/seed-$(printf '%s' "$line" | sha1sum | cut -c1-16)"
        done
      echo "$dir"
      return ;;
  esac
  mkdir -p "$dir"
  local f
  for f in $files; do
    grep -v '^#' "$testdata/vectors/$f" | tail -n +2 | cut -f1 | while IFS= read -r line; do
      printf '%s' "$line" > "$dir/seed-$(printf '%s' "$line" | sha1sum | cut -c1-16)"
    done
  done
  echo "$dir"
}

for target in "${targets[@]}"; do
  corpus=$(seed_corpus "$target")
  mkdir -p "build/fuzz/findings/$target"
  echo "== fuzz_$target for ${seconds}s"
  max_len=256
  [ "$target" = cuda_binary ] && max_len=32768
  [ "$target" = recipe ] && max_len=8192
  "build/fuzz/tests/fuzz/fuzz_$target" -max_total_time="$seconds" -max_len="$max_len" -timeout=5 \
    -artifact_prefix="build/fuzz/findings/$target/" -print_final_stats=1 "$corpus" 2>&1 |
    grep -E '^(stat::number_of_executed_units|stat::peak_rss_mb|#[0-9]+ +DONE)|ERROR|SUMMARY|==[0-9]+==' || true
  echo "   findings: $(ls "build/fuzz/findings/$target" | wc -l) file(s) in build/fuzz/findings/$target"
done
