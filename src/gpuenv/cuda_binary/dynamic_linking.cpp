#include "gpuenv/cuda_binary/dynamic_linking.hpp"

#include <fmt/core.h>

#include "gpuenv/cuda_binary/elf_file.hpp"
#include "gpuenv/cuda_binary/mapped_file.hpp"

namespace gpuenv::cuda_binary {
namespace {

using detail::ByteSpan;

constexpr std::uint64_t elf64_header_size = 64;
constexpr std::uint64_t section_header_size = 64;
constexpr std::uint64_t dynamic_entry_size = 16;
constexpr std::uint32_t section_type_dynamic = 6;
constexpr std::int64_t tag_null = 0;
constexpr std::int64_t tag_needed = 1;
constexpr std::int64_t tag_soname = 14;
constexpr std::int64_t tag_rpath = 15;
constexpr std::int64_t tag_runpath = 29;
// A real library needs a few dozen; a hostile one does not get to allocate more.
constexpr std::size_t max_needed = 4096;
constexpr std::size_t max_name = 4096;

std::unexpected<ReadError> failure(ReadErrorKind kind, const std::string& path, const std::string& why) {
  return std::unexpected(ReadError{kind, path, fmt::format("{}: {}", path, why)});
}

}  // namespace

std::expected<DynamicLinking, ReadError> read_dynamic_linking(const std::string& path) {
  auto file = detail::MappedFile::open(path);
  if (!file) return std::unexpected(file.error());
  const ByteSpan span = file->bytes();
  if (!detail::starts_with_elf_magic(span)) return failure(ReadErrorKind::not_a_binary, path, "not an ELF file");
  if (span.size < elf64_header_size) return failure(ReadErrorKind::malformed, path, "the ELF header is cut off (truncated file?)");
  if (span.data[4] != 2 || span.data[5] != 1)
    return failure(ReadErrorKind::unsupported, path, "not a 64-bit little-endian ELF file");
  const auto section_table = span.read<std::uint64_t>(40);
  const auto entry_size = span.read<std::uint16_t>(58);
  std::uint64_t section_count = span.read<std::uint16_t>(60);
  DynamicLinking linking;
  if (section_table == 0) return linking;  // no section table: nothing gpuenv can find
  if (entry_size != section_header_size)
    return failure(ReadErrorKind::malformed, path, fmt::format("section headers of {} bytes (expected 64)", entry_size));
  if (section_count == 0 && span.contains(section_table, section_header_size))
    section_count = span.read<std::uint64_t>(section_table + 32);  // extended numbering
  if (section_count > (1 << 20) || !span.contains(section_table, section_count * section_header_size))
    return failure(ReadErrorKind::malformed, path,
                   fmt::format("the section headers ({} at offset {:#x}) run past the end of the file (truncated file?)",
                               section_count, section_table));
  for (std::uint64_t index = 0; index < section_count; ++index) {
    const auto header = section_table + index * section_header_size;
    if (span.read<std::uint32_t>(header + 4) != section_type_dynamic) continue;
    const auto offset = span.read<std::uint64_t>(header + 24);
    const auto size = span.read<std::uint64_t>(header + 32);
    const auto strings_index = span.read<std::uint32_t>(header + 40);
    if (!span.contains(offset, size) || strings_index >= section_count)
      return failure(ReadErrorKind::malformed, path,
                     fmt::format("the dynamic section (offset {:#x}, {} bytes) runs past the end of the file or names "
                                 "no string table (truncated file?)",
                                 offset, size));
    const auto strings_header = section_table + strings_index * section_header_size;
    const auto strings_offset = span.read<std::uint64_t>(strings_header + 24);
    const auto strings_size = span.read<std::uint64_t>(strings_header + 32);
    if (!span.contains(strings_offset, strings_size))
      return failure(ReadErrorKind::malformed, path,
                     fmt::format("the dynamic string table (offset {:#x}, {} bytes) runs past the end of the file "
                                 "(truncated file?)",
                                 strings_offset, strings_size));
    linking.dynamic = true;
    const auto strings = span.text(strings_offset, strings_size);
    auto name_at = [&](std::uint64_t at) -> std::expected<std::string, ReadError> {
      if (at >= strings.size())
        return failure(ReadErrorKind::malformed, path,
                       fmt::format("a dynamic entry names string {} of a {}-byte table", at, strings.size()));
      auto name = strings.substr(at, max_name);
      return std::string(name.substr(0, name.find('\0')));
    };
    for (std::uint64_t at = 0; at + dynamic_entry_size <= size; at += dynamic_entry_size) {
      const auto tag = span.read<std::int64_t>(offset + at);
      const auto value = span.read<std::uint64_t>(offset + at + 8);
      if (tag == tag_null) break;
      if (tag != tag_needed && tag != tag_soname && tag != tag_rpath && tag != tag_runpath) continue;
      auto name = name_at(value);
      if (!name) return std::unexpected(name.error());
      if (tag == tag_soname) {
        linking.soname = std::move(*name);
      } else if (tag == tag_rpath) {
        linking.rpath = std::move(*name);
      } else if (tag == tag_runpath) {
        linking.runpath = std::move(*name);
      } else if (linking.needed.size() >= max_needed) {
        return failure(ReadErrorKind::too_large, path, fmt::format("more than {} DT_NEEDED entries", max_needed));
      } else {
        linking.needed.push_back(std::move(*name));
      }
    }
    break;  // one dynamic section per file
  }
  return linking;
}

}  // namespace gpuenv::cuda_binary
