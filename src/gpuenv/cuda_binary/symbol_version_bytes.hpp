// The symbol versions of ELF bytes (symbol_versions.hpp reads a file): the
// reader apart from opening the file, so that the fuzz target can drive it
// with any bytes, and the version tags' comparison.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuenv/cuda_binary/byte_span.hpp"

namespace gpuenv::cuda_binary {

struct VersionNeed {
  std::string library;                // the DT_NEEDED soname the versions come from ("libc.so.6")
  std::vector<std::string> versions;  // in file order ("GLIBC_2.2.5", "GLIBC_2.34")
};

struct SymbolVersions {
  std::vector<VersionNeed> needs;        // SHT_GNU_verneed, in file order
  std::vector<std::string> definitions;  // SHT_GNU_verdef, the file's own base name left out
};

namespace detail {
// Fills `versions` from `bytes`; false with `problem` set (its message
// without the file's name) at the first thing wrong.
bool read_symbol_versions(const ByteSpan& bytes, SymbolVersions& versions, ParseProblem& problem);
}  // namespace detail

// "GLIBC_2.34" with prefix "GLIBC_" -> {2, 34}; nullopt for another prefix
// or a tag that is not dotted numbers ("GLIBC_PRIVATE").
std::optional<std::vector<int>> version_numbers(std::string_view tag, std::string_view prefix);

// Dotted numbers compared numerically ("2.9" < "2.34"); shorter is lower on a tie.
bool version_less(const std::vector<int>& left, const std::vector<int>& right);

// The highest tag with `prefix` among `tags`, and its numbers; nullopt when none has it.
struct HighestVersion {
  std::string tag;
  std::vector<int> numbers;
};
std::optional<HighestVersion> highest_version(const std::vector<std::string>& tags, std::string_view prefix);

// Every version `versions` needs, of whichever library, in file order.
std::vector<std::string> needed_versions(const SymbolVersions& versions);

// "2.34" for {2, 34}.
std::string dotted(const std::vector<int>& numbers);

}  // namespace gpuenv::cuda_binary
