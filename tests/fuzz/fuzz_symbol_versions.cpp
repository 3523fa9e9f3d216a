// libFuzzer target for the ELF symbol version reader (verneed/verdef: what
// `gpuenv build` and `gpuenv doctor` read from every ELF file of a package).
// Any bytes: must never crash, hang or allocate without bound.
#include <cstddef>
#include <cstdint>

#include "gpuenv/cuda_binary/byte_span.hpp"
#include "gpuenv/cuda_binary/symbol_version_bytes.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace cb = gpuenv::cuda_binary;
  const cb::detail::ByteSpan bytes{data, size, 0};
  cb::SymbolVersions versions;
  cb::detail::ParseProblem problem;
  (void)cb::detail::read_symbol_versions(bytes, versions, problem);
  return 0;
}
