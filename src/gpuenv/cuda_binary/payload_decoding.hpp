// Decompressing one entry's payload with a bound, from the file's bytes.
#pragma once

#include <optional>
#include <string>

#include "gpuenv/cuda_binary/byte_span.hpp"

namespace gpuenv::cuda_binary::detail {

// Fills `out` with the entry's decompressed payload (PTX without its
// padding). Refuses an entry stating more than `max_bytes` before
// allocating, and data that does not decompress to exactly its stated size.
std::optional<ParseProblem> decode_payload(const ByteSpan& file, const DeviceCode& code, std::uint64_t max_bytes,
                                           std::string& out);

}  // namespace gpuenv::cuda_binary::detail
