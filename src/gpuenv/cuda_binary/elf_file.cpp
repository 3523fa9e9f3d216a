#include "gpuenv/cuda_binary/elf_file.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cstring>
#include <string_view>

namespace gpuenv::cuda_binary::detail {
namespace {

constexpr std::uint64_t elf64_header_size = 64;
constexpr std::uint64_t elf64_section_header_size = 64;
constexpr std::uint16_t machine_cuda = 190;
constexpr std::uint16_t type_relocatable = 1;
constexpr std::uint16_t type_executable = 2;
constexpr std::uint32_t section_type_progbits = 1;
constexpr std::uint32_t section_type_note = 7;
constexpr std::uint64_t section_flag_alloc = 0x2;
constexpr std::uint64_t section_flag_exec = 0x4;
constexpr std::uint64_t max_sections = 1 << 20;

struct SectionHeader {
  std::uint32_t name;
  std::uint32_t type;
  std::uint64_t flags;
  std::uint64_t offset;
  std::uint64_t size;
  std::uint32_t link;
};

SectionHeader read_section_header(const ByteSpan& span, std::uint64_t at) {
  return {span.read<std::uint32_t>(at),      span.read<std::uint32_t>(at + 4), span.read<std::uint64_t>(at + 8),
          span.read<std::uint64_t>(at + 24), span.read<std::uint64_t>(at + 32), span.read<std::uint32_t>(at + 40)};
}

std::string located(const std::string& member, std::string_view section) {
  if (member.empty()) return std::string(section);
  return fmt::format("{}({})", member, section);
}

ParseProblem malformed(std::string message) { return {ReadErrorKind::malformed, std::move(message)}; }

// Section names live in the string table; a hostile index yields "".
std::string_view section_name(const ByteSpan& span, const SectionHeader& names, std::uint32_t index) {
  if (index >= names.size || !span.contains(names.offset, names.size)) return {};
  auto table = span.text(names.offset, names.size);
  auto name = table.substr(index);
  return name.substr(0, std::min(name.find('\0'), std::size_t{256}));
}

// ptxas records its command line ("-arch sm_90a -m 64") in the
// .note.nv.tkinfo note: the only place a standalone cubin says it is
// arch-specific (e_flags are the same for sm_90 and sm_90a).
ArchVariant variant_from_tool_note(std::string_view note) {
  auto at = note.find("-arch sm_");
  if (at == std::string_view::npos) return ArchVariant::portable;
  at += 9;
  while (at < note.size() && note[at] >= '0' && note[at] <= '9') ++at;
  if (at < note.size() && note[at] == 'a') return ArchVariant::arch_specific;
  if (at < note.size() && note[at] == 'f') return ArchVariant::family;
  return ArchVariant::portable;
}

}  // namespace

bool starts_with_elf_magic(const ByteSpan& span) {
  return span.size >= 4 && std::memcmp(span.data, elf_magic, 4) == 0;
}

bool cubin_defines_nothing(const ByteSpan& span) {
  if (span.size < elf64_header_size || !starts_with_elf_magic(span) || span.data[4] != 2) return false;
  if (span.read<std::uint16_t>(18) != machine_cuda) return false;
  const auto section_table = span.read<std::uint64_t>(40);
  const std::uint64_t section_count = span.read<std::uint16_t>(60);
  const std::uint64_t names_index = span.read<std::uint16_t>(62);
  if (section_table == 0 || section_count == 0 || names_index >= section_count ||
      span.read<std::uint16_t>(58) != elf64_section_header_size ||
      !span.contains(section_table, section_count * elf64_section_header_size))
    return false;
  const auto names = read_section_header(span, section_table + names_index * elf64_section_header_size);
  if (!span.contains(names.offset, names.size)) return false;
  for (std::uint64_t index = 0; index < section_count; ++index) {
    const auto section = read_section_header(span, section_table + index * elf64_section_header_size);
    const auto name = section_name(span, names, section.name);
    if (name.starts_with(".text.") || name.starts_with(".nv.global") || name.starts_with(".nv.constant") ||
        name.starts_with(".nv.shared"))
      return false;
  }
  return true;
}

std::optional<ParseProblem> collect_elf_device_code(const ByteSpan& span, const std::string& member,
                                                    const ParseLimits& limits, ContainerSink& sink,
                                                    BinaryFormat& format) {
  const auto where = member.empty() ? std::string("the ELF header") : fmt::format("archive member {}", member);
  if (span.size < elf64_header_size) return malformed(fmt::format("{} is cut off (truncated file?)", where));
  if (span.data[4] == 1)
    return ParseProblem{ReadErrorKind::unsupported,
                        fmt::format("{}: a 32-bit ELF file; gpuenv reads 64-bit CUDA binaries only (CUDA has "
                                    "built no 32-bit device code since CUDA 12)",
                                    where)};
  if (span.data[4] != 2 || span.data[5] != 1)
    return ParseProblem{ReadErrorKind::unsupported,
                        fmt::format("{}: not a 64-bit little-endian ELF file (class {}, data encoding {})", where,
                                    span.data[4], span.data[5])};
  const auto type = span.read<std::uint16_t>(16);
  const auto machine = span.read<std::uint16_t>(18);
  const auto flags = span.read<std::uint32_t>(48);
  const auto section_table = span.read<std::uint64_t>(40);
  const auto section_entry_size = span.read<std::uint16_t>(58);
  std::uint64_t section_count = span.read<std::uint16_t>(60);
  std::uint64_t names_index = span.read<std::uint16_t>(62);
  format = type == type_relocatable  ? BinaryFormat::elf_object
           : type == type_executable ? BinaryFormat::elf_executable
                                     : BinaryFormat::elf_shared_library;
  const bool is_cubin = machine == machine_cuda;
  if (is_cubin) format = BinaryFormat::cubin;
  if (section_table == 0) {
    if (!is_cubin) return std::nullopt;  // no section table: nothing to find
    section_count = 0;                   // whatever e_shnum says, there is no table to read
  }
  if (section_table != 0 && section_entry_size != elf64_section_header_size)
    return malformed(fmt::format("{}: section headers of {} bytes (expected 64)", where, section_entry_size));
  // Extended numbering: more than 0xff00 sections put the real count and
  // string-table index in section 0.
  if (section_table != 0 && span.contains(section_table, elf64_section_header_size)) {
    const auto first = read_section_header(span, section_table);
    if (section_count == 0) section_count = first.size;
    if (names_index == 0xffff) names_index = first.link;
  }
  if (section_count > max_sections)
    return malformed(fmt::format("{}: claims {} sections", where, section_count));
  if (section_table != 0 && !span.contains(section_table, section_count * elf64_section_header_size))
    return malformed(fmt::format("{}: the section headers ({} at offset {:#x}) run past the end of the file "
                                 "({} bytes; truncated file?)",
                                 where, section_count, span.file_offset + section_table, span.size));
  SectionHeader names{};
  if (names_index < section_count)
    names = read_section_header(span, section_table + names_index * elf64_section_header_size);

  if (is_cubin) {
    DeviceCode code;
    code.kind = CodeKind::sass;
    // EI_ABIVERSION 8 (CUDA 12.8 on) moved the SM number up one byte.
    code.arch.number = span.data[8] >= 8 ? static_cast<int>((flags >> 8) & 0xff) : static_cast<int>(flags & 0xff);
    code.stored_size = code.uncompressed_size = span.size;
    code.payload_offset = span.file_offset;
    code.location = member.empty() ? "cubin" : member;
    code.empty_module = cubin_defines_nothing(span);
    for (std::uint64_t index = 0; index < section_count; ++index) {
      const auto section = read_section_header(span, section_table + index * elf64_section_header_size);
      if (section.type != section_type_note || section_name(span, names, section.name) != ".note.nv.tkinfo") continue;
      if (span.contains(section.offset, section.size))
        code.arch.variant = variant_from_tool_note(span.text(section.offset, std::min<std::uint64_t>(section.size, 4096)));
    }
    if (sink.entries->size() >= limits.max_entries)
      return ParseProblem{ReadErrorKind::too_large, fmt::format("more than {} device code entries", limits.max_entries)};
    sink.entries->push_back(std::move(code));
    return std::nullopt;
  }

  for (std::uint64_t index = 0; index < section_count; ++index) {
    const auto section = read_section_header(span, section_table + index * elf64_section_header_size);
    if (section.type != section_type_progbits || section.size == 0) continue;
    const auto name = section_name(span, names, section.name);
    const bool fatbin_section = name == ".nv_fatbin" || name == "__nv_relfatbin";
    // Fatbins the runtime does not register live in read-only or writable
    // data (cuFFT keeps thousands in .ldata); code and debug info hold none.
    const bool data_section = (section.flags & section_flag_alloc) && !(section.flags & section_flag_exec);
    const bool registered = name == ".nv_fatbin" || (fatbin_section && type == type_relocatable);
    if (!fatbin_section && !data_section) continue;
    if (limits.registered_only && !registered) continue;
    if (!span.contains(section.offset, section.size))
      return malformed(fmt::format("{}: section {} ({} bytes at offset {:#x}) runs past the end of the file "
                                   "({} bytes; truncated file?)",
                                   where, name.empty() ? fmt::format("#{}", index) : std::string(name), section.size,
                                   span.file_offset + section.offset, span.size));
    sink.registered_section = registered;
    auto problem = collect_fatbin_containers(span.sub(section.offset, section.size),
                                             fatbin_section ? ScanMode::fatbin_section : ScanMode::data_section,
                                             located(member, name), limits, sink);
    if (problem) return problem;
  }
  return std::nullopt;
}

}  // namespace gpuenv::cuda_binary::detail
