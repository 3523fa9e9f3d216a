// Shared by the cuda_binary tests: where the committed binaries are, and a
// compact form of a listing to compare with an expected one.
#pragma once

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "gpuenv/cuda_binary/reader.hpp"

namespace gpuenv::cuda_binary::testing {

inline std::filesystem::path committed_binary(const std::string& name) {
  return std::filesystem::path(GPUENV_SOURCE_DIR) / "tests" / "data" / "cuda_binary" / name;
}

// The committed binary's bytes, to damage or patch.
inline std::string committed_bytes(const std::string& name) {
  std::ifstream in(committed_binary(name), std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

// "sass sm_90a none", "ptx compute_90 9.0 zstd": one line per entry, in file order.
inline std::vector<std::string> entry_lines(const BinaryListing& listing) {
  std::vector<std::string> lines;
  for (const auto& entry : listing.entries) {
    auto line = to_string(entry.kind) + " " + target_name(entry);
    if (entry.ptx_isa) line += " " + to_string(*entry.ptx_isa);
    line += " " + to_string(entry.compression);
    lines.push_back(line);
  }
  return lines;
}

inline std::vector<std::string> sorted(std::vector<std::string> lines) {
  std::sort(lines.begin(), lines.end());
  return lines;
}

}  // namespace gpuenv::cuda_binary::testing
