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

std::expected<std::vector<std::filesystem::path>, std::string> write_containers(const BinaryListing& listing,
                                                                                const std::filesystem::path& directory,
                                                                                std::uint64_t max_bytes) {
  std::error_code ignored;  // a directory that cannot be made fails the first write, naming it
  std::filesystem::create_directories(directory, ignored);
  std::vector<std::filesystem::path> written;
  std::uint64_t last_offset = ~0ull;
  const auto stem = std::filesystem::path(listing.path).filename().string();
  for (const auto& entry : listing.entries) {
    // Entries of one container are consecutive: write it once.
    if (entry.container_size == 0 || entry.container_offset == last_offset) continue;
    last_offset = entry.container_offset;
    auto bytes = extract_container(listing.path, entry, max_bytes);
    if (!bytes) return std::unexpected(bytes.error().message);
    auto target = directory / fmt::format("{}.{:x}.fatbin", stem, entry.container_offset);
    if (auto problem = util::write_file_atomically(target, *bytes)) return std::unexpected(*problem);
    written.push_back(std::move(target));
  }
  return written;
}

}  // namespace gpuenv::cuda_binary
