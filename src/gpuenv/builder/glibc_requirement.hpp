// The C library a package's ELF files need, as a run requirement (issue 34).
// The machine's gcc links against the machine's glibc, so a library built on
// Debian 12 may call a GLIBC_2.34 symbol; without `__glibc >=2.34` in its
// record, `gpuenv install` puts it on a RHEL 8 machine (glibc 2.28) and the
// first import fails. After the build, every ELF file's version needs
// (SHT_GNU_verneed) are read: the highest GLIBC_x.y becomes `__glibc >=x.y`
// unless a floor at least as high is already there, and a floor the recipe
// declares itself (stdlib('c')'s c_stdlib_version, or its own `__glibc`
// run requirement) that a file breaks fails the build, naming the file.
#pragma once

#include <expected>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "gpuenv/builder/build_error.hpp"

namespace gpuenv::build {

struct GlibcNeed {
  std::string file;          // relative to the prefix
  std::string library;       // the soname the version comes from ("libc.so.6")
  std::string tag;           // "GLIBC_2.34"
  std::vector<int> numbers;  // {2, 34}
};

// The highest GLIBC_ version the ELF files among `files` (relative to
// `prefix`; links and non-ELF files are passed over) need; nullopt when none
// needs one. A file whose version tables cannot be read is reported through
// `warn` and passed over (the overlinking check reads it too).
std::optional<GlibcNeed> highest_glibc_need(const std::filesystem::path& prefix, const std::vector<std::string>& files,
                                            const std::function<void(const std::string&)>& warn);

// The highest `__glibc >=X` lower bound among `specs`; nullopt when none has one.
std::optional<std::vector<int>> glibc_lower_bound(const std::vector<std::string>& specs);

struct GlibcFloor {
  std::vector<int> numbers;
  std::string declared_by;  // "c_stdlib_version 2.17", "its run requirement __glibc >=2.17"
};

// The run requirement to add for `need` (nullopt: none, `run` already has a
// floor at least as high), or the build error when `declared` is below it.
std::expected<std::optional<std::string>, BuildError> glibc_requirement(const std::optional<GlibcNeed>& need,
                                                                        const std::optional<GlibcFloor>& declared,
                                                                        const std::vector<std::string>& run);

}  // namespace gpuenv::build
