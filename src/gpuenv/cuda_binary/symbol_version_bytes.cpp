#include "gpuenv/cuda_binary/symbol_version_bytes.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <charconv>

#include "gpuenv/cuda_binary/elf_file.hpp"

namespace gpuenv::cuda_binary {
namespace {

using detail::ByteSpan;

constexpr std::uint64_t elf64_header_size = 64;
constexpr std::uint64_t section_header_size = 64;
constexpr std::uint32_t section_type_verdef = 0x6ffffffd;   // SHT_GNU_verdef
constexpr std::uint32_t section_type_verneed = 0x6ffffffe;  // SHT_GNU_verneed
constexpr std::uint64_t verneed_size = 16;                  // Elf64_Verneed
constexpr std::uint64_t vernaux_size = 16;                  // Elf64_Vernaux
constexpr std::uint64_t verdef_size = 20;                   // Elf64_Verdef
constexpr std::uint64_t verdaux_size = 8;                   // Elf64_Verdaux
constexpr std::uint16_t verdef_flag_base = 1;               // VER_FLG_BASE: the file's own name
// libc.so.6 defines about 45 versions and a program needs a few dozen; a
// hostile file does not get to allocate more than this.
constexpr std::size_t max_versions = 65536;
constexpr std::size_t max_name = 4096;

struct Section {
  std::uint64_t offset = 0;
  std::uint64_t size = 0;
  std::uint32_t link = 0;  // the string table's section index
  std::uint32_t info = 0;  // the number of entries
};

// Returns false with `problem` set at the first thing wrong. No
// std::expected inside, so the libFuzzer target (clang 14) can drive it.
class VersionReader {
 public:
  VersionReader(ByteSpan span, detail::ParseProblem& problem) : span_(span), problem_(problem) {}

  bool read(SymbolVersions& versions) {
    if (!detail::starts_with_elf_magic(span_)) return fail(ReadErrorKind::not_a_binary, "not an ELF file");
    if (span_.size < elf64_header_size) return fail(ReadErrorKind::malformed, "the ELF header is cut off (truncated file?)");
    if (span_.data[4] != 2 || span_.data[5] != 1) {
      return fail(ReadErrorKind::unsupported, "not a 64-bit little-endian ELF file");
    }
    table_ = span_.read<std::uint64_t>(40);
    if (table_ == 0) return true;  // no section table: nothing to read
    if (span_.read<std::uint16_t>(58) != section_header_size) {
      return fail(ReadErrorKind::malformed, "section headers that are not 64 bytes each");
    }
    count_ = span_.read<std::uint16_t>(60);
    if (count_ == 0 && span_.contains(table_, section_header_size)) {
      count_ = span_.read<std::uint64_t>(table_ + 32);  // extended numbering
    }
    if (count_ > (1 << 20) || !span_.contains(table_, count_ * section_header_size)) {
      return fail(ReadErrorKind::malformed, fmt::format("the section headers ({} at offset {:#x}) run past the end of "
                                                        "the file (truncated file?)", count_, table_));
    }
    for (std::uint64_t index = 0; index < count_; ++index) {
      const auto type = span_.read<std::uint32_t>(table_ + index * section_header_size + 4);
      if (type != section_type_verneed && type != section_type_verdef) continue;
      Section section;
      if (!section_at(index, section)) return false;
      if (!(type == section_type_verneed ? read_needs(section, versions) : read_definitions(section, versions))) {
        return false;
      }
    }
    return true;
  }

 private:
  bool fail(ReadErrorKind kind, std::string message) {
    problem_ = detail::ParseProblem{kind, std::move(message)};
    return false;
  }

  bool section_at(std::uint64_t index, Section& section) {
    const auto header = table_ + index * section_header_size;
    section = Section{span_.read<std::uint64_t>(header + 24), span_.read<std::uint64_t>(header + 32),
                      span_.read<std::uint32_t>(header + 40), span_.read<std::uint32_t>(header + 44)};
    if (!span_.contains(section.offset, section.size) || section.link >= count_) {
      return fail(ReadErrorKind::malformed,
                  fmt::format("a symbol version section (offset {:#x}, {} bytes) runs past the end of the file or "
                              "names no string table (truncated file?)", section.offset, section.size));
    }
    const auto strings_header = table_ + std::uint64_t{section.link} * section_header_size;
    strings_offset_ = span_.read<std::uint64_t>(strings_header + 24);
    strings_size_ = span_.read<std::uint64_t>(strings_header + 32);
    if (!span_.contains(strings_offset_, strings_size_)) {
      return fail(ReadErrorKind::malformed,
                  fmt::format("the symbol versions' string table (offset {:#x}, {} bytes) runs past the end of the "
                              "file (truncated file?)", strings_offset_, strings_size_));
    }
    return true;
  }

  bool name_at(std::uint64_t at, std::string& name) {
    if (at >= strings_size_) {
      return fail(ReadErrorKind::malformed,
                  fmt::format("a symbol version names string {} of a {}-byte table", at, strings_size_));
    }
    const auto text = span_.text(strings_offset_ + at, std::min<std::uint64_t>(strings_size_ - at, max_name));
    name = std::string(text.substr(0, text.find('\0')));
    return true;
  }

  // The file offset of an entry `size` bytes long at `relative` within the section.
  bool entry(const Section& section, std::uint64_t relative, std::uint64_t size, const char* what,
             std::uint64_t& at) {
    if (relative > section.size || size > section.size - relative) {
      return fail(ReadErrorKind::malformed, fmt::format("a {} entry at offset {:#x} of its {}-byte section runs "
                                                        "past it", what, relative, section.size));
    }
    at = section.offset + relative;
    return true;
  }

  bool count_one() {
    if (++seen_ <= max_versions) return true;
    return fail(ReadErrorKind::too_large, fmt::format("more than {} symbol versions", max_versions));
  }

  bool read_needs(const Section& section, SymbolVersions& versions) {
    std::uint64_t relative = 0;
    // sh_info entries, each linked by vn_next; a longer chain (or a loop)
    // stops at the count.
    for (std::uint32_t index = 0; index < section.info; ++index) {
      std::uint64_t at = 0;
      VersionNeed need;
      if (!entry(section, relative, verneed_size, "version need", at) ||
          !name_at(span_.read<std::uint32_t>(at + 4), need.library)) {
        return false;
      }
      const auto aux_count = span_.read<std::uint16_t>(at + 2);
      std::uint64_t aux = relative + span_.read<std::uint32_t>(at + 8);
      for (std::uint16_t each = 0; each < aux_count; ++each) {
        std::uint64_t aux_at = 0;
        std::string version;
        if (!entry(section, aux, vernaux_size, "version need auxiliary", aux_at) || !count_one() ||
            !name_at(span_.read<std::uint32_t>(aux_at + 8), version)) {
          return false;
        }
        need.versions.push_back(std::move(version));
        const auto next = span_.read<std::uint32_t>(aux_at + 12);
        if (next == 0) break;
        aux += next;
      }
      versions.needs.push_back(std::move(need));
      const auto next = span_.read<std::uint32_t>(at + 12);
      if (next == 0) break;
      relative += next;
    }
    return true;
  }

  bool read_definitions(const Section& section, SymbolVersions& versions) {
    std::uint64_t relative = 0;
    for (std::uint32_t index = 0; index < section.info; ++index) {
      std::uint64_t at = 0;
      if (!entry(section, relative, verdef_size, "version definition", at)) return false;
      const auto flags = span_.read<std::uint16_t>(at + 2);
      const auto aux_count = span_.read<std::uint16_t>(at + 6);
      if (aux_count > 0 && (flags & verdef_flag_base) == 0) {
        // The first auxiliary entry names the version; the rest name its parents.
        std::uint64_t aux_at = 0;
        std::string name;
        if (!entry(section, relative + span_.read<std::uint32_t>(at + 12), verdaux_size,
                   "version definition auxiliary", aux_at) ||
            !count_one() || !name_at(span_.read<std::uint32_t>(aux_at), name)) {
          return false;
        }
        versions.definitions.push_back(std::move(name));
      }
      const auto next = span_.read<std::uint32_t>(at + 16);
      if (next == 0) break;
      relative += next;
    }
    return true;
  }

  ByteSpan span_;
  detail::ParseProblem& problem_;
  std::uint64_t table_ = 0;
  std::uint64_t count_ = 0;
  std::uint64_t strings_offset_ = 0;
  std::uint64_t strings_size_ = 0;
  std::size_t seen_ = 0;
};

}  // namespace

namespace detail {

bool read_symbol_versions(const ByteSpan& bytes, SymbolVersions& versions, ParseProblem& problem) {
  return VersionReader(bytes, problem).read(versions);
}

}  // namespace detail

std::optional<std::vector<int>> version_numbers(std::string_view tag, std::string_view prefix) {
  if (!tag.starts_with(prefix)) return std::nullopt;
  std::string_view rest = tag.substr(prefix.size());
  std::vector<int> numbers;
  while (!rest.empty() && numbers.size() < 8) {
    int number = 0;
    const auto [end, error] = std::from_chars(rest.data(), rest.data() + rest.size(), number);
    if (error != std::errc() || number < 0) return std::nullopt;
    numbers.push_back(number);
    rest.remove_prefix(static_cast<std::size_t>(end - rest.data()));
    if (rest.empty()) break;
    if (rest.front() != '.' || rest.size() == 1) return std::nullopt;
    rest.remove_prefix(1);
  }
  if (numbers.empty() || !rest.empty()) return std::nullopt;
  return numbers;
}

bool version_less(const std::vector<int>& left, const std::vector<int>& right) {
  return std::lexicographical_compare(left.begin(), left.end(), right.begin(), right.end());
}

std::optional<HighestVersion> highest_version(const std::vector<std::string>& tags, std::string_view prefix) {
  std::optional<HighestVersion> highest;
  for (const auto& tag : tags) {
    auto numbers = version_numbers(tag, prefix);
    if (!numbers) continue;
    if (!highest || version_less(highest->numbers, *numbers)) highest = HighestVersion{tag, std::move(*numbers)};
  }
  return highest;
}

std::vector<std::string> needed_versions(const SymbolVersions& versions) {
  std::vector<std::string> tags;
  for (const auto& need : versions.needs) tags.insert(tags.end(), need.versions.begin(), need.versions.end());
  return tags;
}

std::string dotted(const std::vector<int>& numbers) {
  std::string text;
  for (const auto number : numbers) text += (text.empty() ? "" : ".") + std::to_string(number);
  return text;
}

}  // namespace gpuenv::cuda_binary
