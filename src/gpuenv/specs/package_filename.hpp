// A package file's name as gpuenv lets it reach the disk. The name comes
// from a channel (a key of repodata.json) or from a URL the user gave; the
// package cache builds paths from it (<pkgs>/<fn>, <pkgs>/<stem>/), so a name
// such as "../../x.tar.bz2" must never get that far.
#pragma once

#include <string>
#include <string_view>

namespace gpuenv::specs {

// The one place that knows the two package file extensions (CEP 35).
// Ends with ".conda" or ".tar.bz2".
bool is_package_file_name(std::string_view text) noexcept;
// "pkg-1.0-0.conda" -> "pkg-1.0-0": the name of its extracted directory in a
// package cache. A name without either extension is returned unchanged.
std::string_view strip_package_extension(std::string_view filename) noexcept;

// Why `filename` is not a bare package file name, or an empty view when it
// is one: a single path component (no '/', no '\\', no NUL or other control
// character) ending in ".conda" or ".tar.bz2", whose stem is neither empty
// nor "." nor "..". The reason is a static phrase naming the file name
// ("the file name has a '/'").
std::string_view package_filename_problem(std::string_view filename) noexcept;

// Whether `filename` is exactly <name>-<version>-<build>.conda or .tar.bz2:
// the name conda-build and every indexer give the file of that record.
bool filename_matches_record(std::string_view filename, std::string_view name, std::string_view version,
                             std::string_view build) noexcept;

// `text` (a file name, a URL) safe to print: control characters, which a
// refused name may hold, become \xNN.
std::string printable(std::string_view text);

}  // namespace gpuenv::specs
