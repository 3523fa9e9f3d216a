// The .conda (or .tar.bz2, on request) of one built variant: the new
// prefix files under their paths, and info/ -- index.json, paths.json, files, about.json, run_exports.json
// (the recipe's own), licenses/ (about.license_file), hash_input.json, recipe/recipe.yaml (the recipe as
// given) and recipe/variant_config.yaml (the variant, as rattler-build
// names it) -- written to
// <output_dir>/<subdir>/<name>-<version>-<build>.conda (or .tar.bz2).
//
// Reproducible: every member has the same modification time (`timestamp`,
// which is also index.json's), members are sorted (in a .tar.bz2 info/
// first), owners are root and the compression level is fixed, so the same
// inputs give the same bytes.
#pragma once

#include <cstdint>
#include <expected>
#include <filesystem>
#include <string>
#include <vector>

#include "gpuenv/builder/build_error.hpp"
#include "gpuenv/builder/new_prefix_files.hpp"
#include "gpuenv/builder/package_format.hpp"
#include "gpuenv/builder/resolved_requirements.hpp"
#include "gpuenv/package/package_writer.hpp"
#include "gpuenv/recipe/variants.hpp"

namespace gpuenv::build {

struct PackageOutput {
  const recipe::RenderedVariant* variant = nullptr;
  std::string subdir;           // "noarch" or the target platform
  std::string recipe_text;      // recipe.yaml as given
  std::int64_t timestamp = 0;   // seconds since the epoch
  std::string source_override_json;  // about.json extra.gpuenv_source_override; empty: none
  PackageFormat format;         // .conda at zstd 19 (the release level) unless asked
  // Where about.license_file entries are looked up (license_files.hpp).
  std::filesystem::path src_dir, recipe_dir;
  ResolvedRequirements requirements;  // index.json's depends/constrains, info/run_exports.json
  std::vector<package::PackageMember> extra_members;  // info/tests/ (test_files.hpp), ...
};

// index.json's text (sorted keys, as conda-build writes it).
std::string index_json_text(const PackageOutput& output);

// The file name: <name>-<version>-<build>.conda (or .tar.bz2).
std::string package_file_name(const recipe::RenderedVariant& variant,
                              package::ArchiveFormat format = package::ArchiveFormat::conda);

// Writes the package and returns its path. The file appears only once
// complete; an existing one is replaced.
std::expected<std::filesystem::path, BuildError> write_package_output(const PackageOutput& output,
                                                                      const std::vector<NewPrefixFile>& files,
                                                                      const std::filesystem::path& output_dir);

}  // namespace gpuenv::build
