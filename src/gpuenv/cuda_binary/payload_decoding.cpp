#include "gpuenv/cuda_binary/payload_decoding.hpp"

#include <fmt/core.h>
#include <lz4.h>
#include <zstd.h>

#include <limits>

namespace gpuenv::cuda_binary::detail {
namespace {

struct ZstdContext {
  ZSTD_DCtx* context = ZSTD_createDCtx();
  ~ZstdContext() { ZSTD_freeDCtx(context); }
};

ParseProblem problem(ReadErrorKind kind, std::string message) { return {kind, std::move(message)}; }

}  // namespace

std::optional<ParseProblem> decode_payload(const ByteSpan& file, const DeviceCode& code, std::uint64_t max_bytes,
                                           std::string& out) {
  const auto where = fmt::format("{} entry at offset {:#x}", target_name(code), code.payload_offset);
  if (!file.contains(code.payload_offset, code.stored_size))
    return problem(ReadErrorKind::malformed, fmt::format("{} lies past the end of the file (did it change?)", where));
  if (code.uncompressed_size > max_bytes)
    return problem(ReadErrorKind::too_large,
                   fmt::format("{} would decompress to {} bytes, more than the limit of {} bytes", where,
                               code.uncompressed_size, max_bytes));
  const auto* source = file.data + code.payload_offset;
  out.clear();
  switch (code.compression) {
    case Compression::none:
      out.assign(reinterpret_cast<const char*>(source), code.stored_size);
      break;
    case Compression::zstd: {
      out.resize(code.uncompressed_size);
      ZstdContext zstd;
      // The output buffer is the stated size: a frame that wants more fails
      // here instead of allocating (a compression bomb stays a small error).
      const auto written = ZSTD_decompressDCtx(zstd.context, out.data(), out.size(), source, code.stored_size);
      if (ZSTD_isError(written))
        return problem(ReadErrorKind::malformed,
                       fmt::format("{}: zstd data does not decompress to its stated {} bytes ({})", where,
                                   code.uncompressed_size, ZSTD_getErrorName(written)));
      if (written != out.size())
        return problem(ReadErrorKind::malformed, fmt::format("{}: decompresses to {} bytes, its header says {}", where,
                                                             written, code.uncompressed_size));
      break;
    }
    case Compression::lz4: {
      constexpr auto int_max = static_cast<std::uint64_t>(std::numeric_limits<int>::max());
      if (code.uncompressed_size > int_max || code.stored_size > int_max)
        return problem(ReadErrorKind::too_large, fmt::format("{} is too large for an LZ4 block", where));
      out.resize(code.uncompressed_size);
      const int written = LZ4_decompress_safe(reinterpret_cast<const char*>(source), out.data(),
                                              static_cast<int>(code.stored_size), static_cast<int>(out.size()));
      if (written < 0 || static_cast<std::uint64_t>(written) != out.size())
        return problem(ReadErrorKind::malformed,
                       fmt::format("{}: LZ4 data does not decompress to its stated {} bytes", where,
                                   code.uncompressed_size));
      break;
    }
    case Compression::unknown:
      return problem(ReadErrorKind::unsupported, fmt::format("{} is stored in an encoding gpuenv cannot decode", where));
  }
  if (code.kind == CodeKind::ptx)
    while (!out.empty() && out.back() == '\0') out.pop_back();
  return std::nullopt;
}

}  // namespace gpuenv::cuda_binary::detail
