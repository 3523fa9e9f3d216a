// Fatbin containers (magic 0xBA55ED50): a 16-byte header, then entries that
// each carry one cubin, PTX module or LTO-IR module for one architecture.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "gpuenv/cuda_binary/byte_span.hpp"

namespace gpuenv::cuda_binary::detail {

inline constexpr std::uint32_t fatbin_magic = 0xBA55ED50;

enum class ScanMode {
  // .nv_fatbin, __nv_relfatbin, a .fatbin file: containers one after the
  // other (with alignment padding); a broken one is an error.
  fatbin_section,
  // Any other data section: the magic may occur by chance, so a candidate
  // whose header does not hold together is skipped, not reported.
  data_section,
};

struct ContainerSink {
  // Marks the entries of the sections being read (see DeviceCode::registered).
  bool registered_section = true;
  std::vector<DeviceCode>* entries;
  std::size_t containers = 0;
};

// Adds the entries of every container in `span` to `sink`, each tagged with
// `location`. Reads the entry headers only, never a payload.
std::optional<ParseProblem> collect_fatbin_containers(ByteSpan span, ScanMode mode, const std::string& location,
                                                      const ParseLimits& limits, ContainerSink& sink);

}  // namespace gpuenv::cuda_binary::detail
