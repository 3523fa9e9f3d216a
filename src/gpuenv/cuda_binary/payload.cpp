// Payloads and containers on request: the only place payload bytes are read.
#include <fmt/core.h>

#include "gpuenv/cuda_binary/mapped_file.hpp"
#include "gpuenv/cuda_binary/payload_decoding.hpp"
#include "gpuenv/cuda_binary/reader.hpp"
#include "gpuenv/util/file_io.hpp"

namespace gpuenv::cuda_binary {
namespace {

std::unexpected<ReadError> failure(ReadErrorKind kind, const std::string& path, std::string message) {
  return std::unexpected(ReadError{kind, path, fmt::format("{}: {}", path, message)});
}

}  // namespace

std::expected<std::string, ReadError> extract_payload(const std::string& path, const DeviceCode& code,
                                                      std::uint64_t max_bytes) {
  auto file = detail::MappedFile::open(path);
  if (!file) return std::unexpected(file.error());
  std::string out;
  if (auto problem = detail::decode_payload(file->bytes(), code, max_bytes, out))
    return failure(problem->kind, path, problem->message);
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
