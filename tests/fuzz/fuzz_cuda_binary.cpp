// libFuzzer target for the CUDA binary reader: any bytes, listed the way
// `gpuenv inspect` lists a file, then every entry found decompressed with a
// small bound. Must never crash, hang or allocate without bound. (It drives
// the internal byte-level API: clang 14 cannot compile libstdc++ 12's
// std::expected, which the file-level API returns.)
#include <cstddef>
#include <cstdint>
#include <string>

#include "gpuenv/cuda_binary/binary_bytes.hpp"
#include "gpuenv/cuda_binary/payload_decoding.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace cb = gpuenv::cuda_binary;
  const cb::detail::ByteSpan bytes{data, size, 0};
  cb::detail::ParseLimits limits;
  limits.max_entries = 4096;
  cb::BinaryListing listing;
  if (cb::detail::list_device_code(bytes, limits, listing)) return 0;
  std::string payload;
  for (const auto& entry : listing.entries) (void)cb::detail::decode_payload(bytes, entry, 1 << 20, payload);
  return 0;
}
