// Decompressing one entry on request: the only place payload bytes are read.
#include <fmt/core.h>
#include <lz4.h>
#include <zstd.h>

#include <limits>
#include <memory>

#include "gpuenv/cuda_binary/mapped_file.hpp"
#include "gpuenv/cuda_binary/reader.hpp"
#include "gpuenv/util/file_io.hpp"

namespace gpuenv::cuda_binary {
namespace {

std::unexpected<ReadError> failure(ReadErrorKind kind, const std::string& path, std::string message) {
  return std::unexpected(ReadError{kind, path, fmt::format("{}: {}", path, message)});
}

std::string without_trailing_padding(std::string text) {
  while (!text.empty() && text.back() == '\0') text.pop_back();
  return text;
}

struct ZstdContext {
  ZSTD_DCtx* context = ZSTD_createDCtx();
  ~ZstdContext() { ZSTD_freeDCtx(context); }
};

}  // namespace

std::expected<std::string, ReadError> extract_payload(const std::string& path, const DeviceCode& code,
                                                      std::uint64_t max_bytes) {
  auto file = detail::MappedFile::open(path);
  if (!file) return std::unexpected(file.error());
  const auto bytes = file->bytes();
  const auto where = fmt::format("{} entry at offset {:#x}", target_name(code), code.payload_offset);
  if (!bytes.contains(code.payload_offset, code.stored_size))
    return failure(ReadErrorKind::malformed, path, fmt::format("{} lies past the end of the file (did it change?)", where));
  if (code.uncompressed_size > max_bytes)
    return failure(ReadErrorKind::too_large, path,
                   fmt::format("{} would decompress to {}, more than the limit of {}", where,
                               util::describe_byte_count(code.uncompressed_size), util::describe_byte_count(max_bytes)));
  const auto* source = bytes.data + code.payload_offset;
  std::string out;
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
        return failure(ReadErrorKind::malformed, path,
                       fmt::format("{}: zstd data does not decompress to its stated {} bytes ({})", where,
                                   code.uncompressed_size, ZSTD_getErrorName(written)));
      if (written != out.size())
        return failure(ReadErrorKind::malformed, path,
                       fmt::format("{}: decompresses to {} bytes, its header says {}", where, written,
                                   code.uncompressed_size));
      break;
    }
    case Compression::lz4: {
      if (code.uncompressed_size > static_cast<std::uint64_t>(std::numeric_limits<int>::max()) ||
          code.stored_size > static_cast<std::uint64_t>(std::numeric_limits<int>::max()))
        return failure(ReadErrorKind::too_large, path, fmt::format("{} is too large for an LZ4 block", where));
      out.resize(code.uncompressed_size);
      const int written = LZ4_decompress_safe(reinterpret_cast<const char*>(source), out.data(),
                                              static_cast<int>(code.stored_size), static_cast<int>(out.size()));
      if (written < 0 || static_cast<std::uint64_t>(written) != out.size())
        return failure(ReadErrorKind::malformed, path,
                       fmt::format("{}: LZ4 data does not decompress to its stated {} bytes", where,
                                   code.uncompressed_size));
      break;
    }
    case Compression::unknown:
      return failure(ReadErrorKind::unsupported, path,
                     fmt::format("{} is stored in an encoding gpuenv cannot decode", where));
  }
  if (code.kind == CodeKind::ptx) return without_trailing_padding(std::move(out));
  return out;
}

std::expected<std::string, ReadError> extract_container(const std::string& path, const DeviceCode& code,
                                                        std::uint64_t max_bytes) {
  auto file = detail::MappedFile::open(path);
  if (!file) return std::unexpected(file.error());
  const auto bytes = file->bytes();
  if (code.container_size == 0 || !bytes.contains(code.container_offset, code.container_size))
    return failure(ReadErrorKind::malformed, path,
                   fmt::format("no fatbin container at offset {:#x} (did the file change?)", code.container_offset));
  if (code.container_size > max_bytes)
    return failure(ReadErrorKind::too_large, path,
                   fmt::format("the container at offset {:#x} holds {}, more than the limit of {}",
                               code.container_offset, util::describe_byte_count(code.container_size),
                               util::describe_byte_count(max_bytes)));
  return std::string(reinterpret_cast<const char*>(bytes.data + code.container_offset), code.container_size);
}

}  // namespace gpuenv::cuda_binary
