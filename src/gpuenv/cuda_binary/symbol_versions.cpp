#include "gpuenv/cuda_binary/symbol_versions.hpp"

#include "gpuenv/cuda_binary/mapped_file.hpp"

namespace gpuenv::cuda_binary {

std::expected<SymbolVersions, ReadError> read_symbol_versions(std::string_view bytes, const std::string& path) {
  const detail::ByteSpan span{reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(), 0};
  SymbolVersions versions;
  detail::ParseProblem problem;
  if (!detail::read_symbol_versions(span, versions, problem)) {
    return std::unexpected(ReadError{problem.kind, path, path + ": " + problem.message});
  }
  return versions;
}

std::expected<SymbolVersions, ReadError> read_symbol_versions(const std::string& path) {
  auto file = detail::MappedFile::open(path);
  if (!file) return std::unexpected(file.error());
  const auto bytes = file->bytes();
  return read_symbol_versions(std::string_view(reinterpret_cast<const char*>(bytes.data), bytes.size), path);
}

}  // namespace gpuenv::cuda_binary
