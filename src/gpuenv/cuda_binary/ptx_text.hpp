// Standalone PTX files: text whose `.version` and `.target` directives say
// the PTX ISA version and the architecture.
#pragma once

#include <optional>

#include "gpuenv/cuda_binary/byte_span.hpp"

namespace gpuenv::cuda_binary::detail {

// The PTX module in `span`, or nullopt when it is not PTX text. Looks at the
// first 64 KiB only: the directives come before any code.
std::optional<DeviceCode> read_ptx_text(const ByteSpan& span);

// ".version 9.0" and ".target sm_90a" of PTX text.
std::optional<PtxIsaVersion> ptx_version_directive(std::string_view text);
std::optional<GpuArchitecture> ptx_target_directive(std::string_view text);

}  // namespace gpuenv::cuda_binary::detail
