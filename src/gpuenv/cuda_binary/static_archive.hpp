// Static archives (ar, as `nvcc -lib` and `ar` write them): each ELF object
// member is read like a file of its own.
#pragma once

#include <optional>

#include "gpuenv/cuda_binary/byte_span.hpp"
#include "gpuenv/cuda_binary/fatbin_container.hpp"

namespace gpuenv::cuda_binary::detail {

bool starts_with_archive_magic(const ByteSpan& span);
bool starts_with_thin_archive_magic(const ByteSpan& span);

std::optional<ParseProblem> collect_archive_device_code(const ByteSpan& span, const ParseLimits& limits,
                                                        ContainerSink& sink);

}  // namespace gpuenv::cuda_binary::detail
