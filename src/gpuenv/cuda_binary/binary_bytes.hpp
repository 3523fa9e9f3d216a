// What the bytes of one file hold, decided by their first bytes: the
// dispatch behind read_device_code, apart from opening the file so that the
// fuzz target can drive it with any bytes.
#pragma once

#include <optional>

#include "gpuenv/cuda_binary/byte_span.hpp"

namespace gpuenv::cuda_binary::detail {

bool starts_with_fatbin_magic(const ByteSpan& span);

// Fills `listing` (format, entries, container count) from `bytes`.
std::optional<ParseProblem> list_device_code(const ByteSpan& bytes, const ParseLimits& limits, BinaryListing& listing);

}  // namespace gpuenv::cuda_binary::detail
