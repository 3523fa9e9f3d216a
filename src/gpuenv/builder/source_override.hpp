// `gpuenv build --source PATH --source-version VERSION`: build a recipe
// from a local checkout or archive (a release candidate, a patched tree)
// instead of the sources it names, and/or under another version.
//
// --source replaces every source of every output by one path source: a
// directory is copied, an archive (.tar.gz, .tar.bz2, .tar.xz, .tar.zst,
// .zip) extracted with its single top-level directory stripped, exactly as
// a recipe's `path:` source; the recipe's patches are not applied (they
// belong to the sources replaced). --source-version replaces the recipe's
// version in the package name, index.json and PKG_VERSION, and in every
// output that had the recipe's version; the build string does not change
// (the version is not part of the variant hash, as in rattler-build).
// Both are recorded in info/about.json under
// extra.gpuenv_source_override {source, version, recipe_version}, so a
// package built from an override says so.
#pragma once

#include <expected>
#include <filesystem>
#include <optional>
#include <string>

#include "gpuenv/builder/build_error.hpp"
#include "gpuenv/recipe/variants.hpp"

namespace gpuenv::build {

struct SourceOverride {
  std::optional<std::filesystem::path> source;  // absolute
  std::optional<std::string> version;
  bool empty() const { return !source && !version; }
};

// Checks the command line's values: the source exists (a directory or a
// regular file with an archive's name), the version is a conda version.
// `source` is made absolute. Errors have kind `option`.
std::expected<SourceOverride, BuildError> make_source_override(const std::optional<std::string>& source,
                                                               const std::optional<std::string>& version);

// The variant as the override builds it.
void apply_source_override(const SourceOverride& override, recipe::RenderedVariant& variant);

// about.json's extra.gpuenv_source_override, as JSON text; `recipe_version`
// is the version the recipe gave.
std::string source_override_json(const SourceOverride& override, const std::string& recipe_version);

}  // namespace gpuenv::build
