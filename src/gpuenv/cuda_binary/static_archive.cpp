#include "gpuenv/cuda_binary/static_archive.hpp"

#include <fmt/core.h>

#include <charconv>
#include <cstring>
#include <string_view>

#include "gpuenv/cuda_binary/elf_file.hpp"

namespace gpuenv::cuda_binary::detail {
namespace {

constexpr std::string_view archive_magic = "!<arch>\n";
constexpr std::string_view thin_archive_magic = "!<thin>\n";
constexpr std::uint64_t member_header_size = 60;

std::string_view trim_right(std::string_view text) {
  while (!text.empty() && (text.back() == ' ' || text.back() == '\0')) text.remove_suffix(1);
  return text;
}

// Printable names only: member names end up in messages and JSON.
std::string printable(std::string_view name) {
  std::string out;
  for (char c : name.substr(0, 255)) out += (c >= 0x20 && c < 0x7f) ? c : '?';
  return out;
}

// "name/" (System V), "/123" (an offset into the GNU long-name table "//").
std::string member_name(std::string_view raw, std::string_view long_names) {
  raw = trim_right(raw);
  if (raw.size() > 1 && raw[0] == '/' && raw[1] >= '0' && raw[1] <= '9') {
    std::uint64_t offset = 0;
    auto [end, error] = std::from_chars(raw.data() + 1, raw.data() + raw.size(), offset);
    if (error == std::errc{} && offset < long_names.size()) {
      auto name = long_names.substr(offset);
      name = name.substr(0, name.find('\n'));
      if (name.ends_with('/')) name.remove_suffix(1);
      return printable(name);
    }
    return printable(raw);
  }
  if (raw.ends_with('/')) raw.remove_suffix(1);
  return printable(raw);
}

}  // namespace

bool starts_with_archive_magic(const ByteSpan& span) {
  return span.size >= archive_magic.size() && span.text(0, archive_magic.size()) == archive_magic;
}

bool starts_with_thin_archive_magic(const ByteSpan& span) {
  return span.size >= thin_archive_magic.size() && span.text(0, thin_archive_magic.size()) == thin_archive_magic;
}

std::optional<ParseProblem> collect_archive_device_code(const ByteSpan& span, const ParseLimits& limits,
                                                        ContainerSink& sink) {
  std::string_view long_names;
  std::uint64_t at = archive_magic.size();
  std::size_t members = 0;
  while (at < span.size) {
    if (span.size - at == 1 && span.data[at] == '\n') break;  // the last member's padding
    if (!span.contains(at, member_header_size) || span.text(at + 58, 2) != "`\n")
      return ParseProblem{ReadErrorKind::malformed,
                          fmt::format("archive member header at offset {:#x} is cut off or damaged (truncated "
                                      "file?)",
                                      span.file_offset + at)};
    if (++members > limits.max_archive_members)
      return ParseProblem{ReadErrorKind::too_large,
                          fmt::format("more than {} archive members", limits.max_archive_members)};
    const auto size_text = trim_right(span.text(at + 48, 10));
    std::uint64_t size = 0;
    auto [end, error] = std::from_chars(size_text.data(), size_text.data() + size_text.size(), size);
    if (error != std::errc{} || end != size_text.data() + size_text.size())
      return ParseProblem{ReadErrorKind::malformed, fmt::format("archive member at offset {:#x} has a size of '{}'",
                                                                span.file_offset + at, printable(size_text))};
    const auto data_at = at + member_header_size;
    if (!span.contains(data_at, size))
      return ParseProblem{ReadErrorKind::malformed,
                          fmt::format("archive member at offset {:#x} claims {} bytes, past the end of the file "
                                      "(truncated file?)",
                                      span.file_offset + at, size)};
    const auto raw_name = span.text(at, 16);
    const auto member = span.sub(data_at, size);
    if (trim_right(raw_name) == "//") {
      long_names = member.text(0, member.size);
    } else if (!raw_name.starts_with("/ ") && !raw_name.starts_with("/SYM64/") && starts_with_elf_magic(member)) {
      BinaryFormat ignored{};
      if (auto problem = collect_elf_device_code(member, member_name(raw_name, long_names), limits, sink, ignored))
        return problem;
    }
    at = data_at + size + (size % 2);
  }
  return std::nullopt;
}

}  // namespace gpuenv::cuda_binary::detail
