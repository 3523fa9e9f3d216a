// The symbol versions an ELF file needs from each library it links
// (SHT_GNU_verneed: "libc.so.6" -> GLIBC_2.34, "libstdc++.so.6" ->
// GLIBCXX_3.4.30) and the ones a library defines (SHT_GNU_verdef: what
// libstdc++.so.6 provides). `gpuenv build` turns the highest GLIBC_ need into
// a __glibc run requirement; `gpuenv doctor` checks both against the C and
// C++ libraries the machine will load (docs/building-packages.md, docs/cuda-binaries.md).
// Headers only: the section table and the two version sections.
#pragma once

#include <expected>
#include <string>
#include <string_view>

#include "gpuenv/cuda_binary/device_code.hpp"
#include "gpuenv/cuda_binary/symbol_version_bytes.hpp"

namespace gpuenv::cuda_binary {

// A 64-bit little-endian ELF file's version needs and definitions; both
// empty for a file without them. Every offset, count and chain comes from
// the file and is bounds-checked: a truncated table, an entry pointing
// outside its section or a chain longer than the section allows is
// ReadErrorKind::malformed, never a crash. Not ELF: not_a_binary.
std::expected<SymbolVersions, ReadError> read_symbol_versions(const std::string& path);

// The same over bytes already in memory (the fuzz target; `path` only names
// them in errors).
std::expected<SymbolVersions, ReadError> read_symbol_versions(std::string_view bytes, const std::string& path);

}  // namespace gpuenv::cuda_binary
