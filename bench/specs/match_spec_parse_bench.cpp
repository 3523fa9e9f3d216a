// MatchSpec parsing throughput: every distinct input of the conformance
// vectors (valid and invalid, so failure paths count too) plus a few
// repodata-shaped dependency strings, parsed ROUNDS times.
//
//   bench/specs/run_bench.sh [BUILD_DIR]
//
// Prints the best of 5 runs, in nanoseconds per parse, for valid and
// invalid inputs separately.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "gpuenv/specs/match_spec.hpp"
#include "gpuenv/specs/spec_error.hpp"

namespace {

std::vector<std::string> read_inputs(const std::string& directory) {
  std::set<std::string> inputs;
  for (const char* file : {"matchspec_parse.tsv", "matchspec_canonical_str.tsv",
                           "matchspec_invalid.tsv", "matchspec_match.tsv"}) {
    std::ifstream in(directory + "/" + file);
    std::string line;
    bool header = true;
    while (std::getline(in, line)) {
      if (line.starts_with('#')) continue;
      if (header) {
        header = false;
        continue;
      }
      inputs.insert(line.substr(0, line.find('\t')));
    }
  }
  for (const char* spec : {"python >=3.9,<3.13", "numpy >=1.21.6,<2.0a0", "libgcc-ng >=12",
                           "cuda-version >=12.0,<13", "openssl >=3.0.12,<4.0a0",
                           "conda-forge::pytorch 2.3.* cuda120*", "__cuda >=12.0",
                           "libblas * *mkl", "tzdata", "python_abi 3.11.* *_cp311"}) {
    inputs.insert(spec);
  }
  return {inputs.begin(), inputs.end()};
}

double best_ns_per_parse(const std::vector<std::string>& inputs, int rounds) {
  double best = 1e300;
  for (int run = 0; run < 5; ++run) {
    std::size_t sink = 0;
    const auto start = std::chrono::steady_clock::now();
    for (int round = 0; round < rounds; ++round) {
      for (const auto& input : inputs) {
        try {
          sink += gpuenv::specs::MatchSpec::parse(input).original().size();
        } catch (const gpuenv::specs::SpecError& error) {
          sink += error.column();
        }
      }
    }
    const std::chrono::duration<double, std::nano> elapsed = std::chrono::steady_clock::now() - start;
    best = std::min(best, elapsed.count() / static_cast<double>(rounds * inputs.size()));
    if (sink == 42) std::puts("");  // keeps the work observable
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string directory = argc > 1 ? argv[1] : "../shared/testdata/vectors";
  const int rounds = argc > 2 ? std::stoi(argv[2]) : 200;
  std::vector<std::string> valid;
  std::vector<std::string> invalid;
  for (auto& input : read_inputs(directory)) {
    try {
      (void)gpuenv::specs::MatchSpec::parse(input);
      valid.push_back(std::move(input));
    } catch (const gpuenv::specs::SpecError&) {
      invalid.push_back(std::move(input));
    }
  }
  if (valid.empty()) {
    std::fprintf(stderr, "no inputs under %s\n", directory.c_str());
    return 1;
  }
  std::printf("valid:   %zu specs, %.0f ns per parse\n", valid.size(),
              best_ns_per_parse(valid, rounds));
  std::printf("invalid: %zu specs, %.0f ns per parse\n", invalid.size(),
              best_ns_per_parse(invalid, rounds));
}
