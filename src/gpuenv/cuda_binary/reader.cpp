#include "gpuenv/cuda_binary/reader.hpp"

#include <fcntl.h>
#include <fmt/core.h>
#include <unistd.h>

#include <charconv>
#include <cstring>
#include <string_view>

#include "gpuenv/cuda_binary/binary_bytes.hpp"
#include "gpuenv/cuda_binary/elf_file.hpp"
#include "gpuenv/cuda_binary/mapped_file.hpp"
#include "gpuenv/cuda_binary/static_archive.hpp"
#include "gpuenv/util/thread_pool.hpp"

namespace gpuenv::cuda_binary {
namespace {

using detail::ByteSpan;

ReadError error_for(const std::string& path, const detail::ParseProblem& problem) {
  return {problem.kind, path, fmt::format("{}: {}", path, problem.message)};
}

}  // namespace

ReadResult read_device_code(const std::string& path, const ReadOptions& options) {
  auto file = detail::MappedFile::open(path);
  if (!file) return std::unexpected(file.error());
  BinaryListing listing;
  listing.path = path;
  detail::ParseLimits limits;
  limits.max_entries = options.max_entries;
  limits.registered_only = options.registered_only;
  const auto problem = detail::list_device_code(file->bytes(), limits, listing);
  if (problem) return std::unexpected(error_for(path, *problem));
  return listing;
}

std::vector<ReadResult> read_device_code(const std::vector<std::string>& paths, const ReadOptions& options,
                                         std::size_t threads) {
  std::vector<ReadResult> results(paths.size(), std::unexpected(ReadError{}));
  if (paths.size() <= 1 || threads == 1) {
    for (std::size_t index = 0; index < paths.size(); ++index) results[index] = read_device_code(paths[index], options);
    return results;
  }
  {
    util::ThreadPool pool(threads);
    for (std::size_t index = 0; index < paths.size(); ++index)
      pool.submit([&, index] { results[index] = read_device_code(paths[index], options); });
  }
  return results;
}

bool may_hold_device_code(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return false;
  unsigned char head[8] = {};
  const auto got = ::pread(fd, head, sizeof head, 0);
  ::close(fd);
  if (got < 4) return false;
  const ByteSpan span{head, static_cast<std::uint64_t>(got), 0};
  return detail::starts_with_elf_magic(span) || detail::starts_with_fatbin_magic(span) ||
         (got == 8 && detail::starts_with_archive_magic(span));
}

}  // namespace gpuenv::cuda_binary
