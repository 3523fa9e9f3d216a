#include "gpuenv/builder/source_override.hpp"

#include <nlohmann/json.hpp>

#include "gpuenv/builder/sources.hpp"
#include "gpuenv/specs/version.hpp"

namespace gpuenv::build {

namespace fs = std::filesystem;

namespace {

std::unexpected<BuildError> option_error(std::string message) {
  return std::unexpected(BuildError{BuildErrorKind::option, std::move(message)});
}

}  // namespace

std::expected<SourceOverride, BuildError> make_source_override(const std::optional<std::string>& source,
                                                               const std::optional<std::string>& version) {
  SourceOverride result;
  if (source) {
    const auto path = fs::absolute(*source).lexically_normal();
    std::error_code ignored;
    const auto status = fs::status(path, ignored);
    if (!fs::exists(status)) return option_error("--source " + *source + ": no such file or directory");
    if (!fs::is_directory(status) &&
        !(fs::is_regular_file(status) && is_source_archive_name(path.filename().string()))) {
      return option_error("--source " + *source +
                          ": give a directory or an archive (.tar.gz, .tar.bz2, .tar.xz, .tar.zst, .zip)");
    }
    result.source = path;
  }
  if (version) {
    // A conda version, and one that fits a package file name.
    if (version->empty() || version->find_first_of("- \t/\\") != std::string::npos ||
        !specs::Version::try_parse(*version)) {
      return option_error("--source-version '" + *version +
                          "' is not a conda version (digits, letters, '.', '_', '+', '!' and no '-')");
    }
    result.version = *version;
  }
  return result;
}

void apply_source_override(const SourceOverride& override, recipe::RenderedVariant& variant) {
  auto& recipe = variant.recipe;
  if (override.source) {
    recipe::Source path;
    path.kind = recipe::Source::Kind::path;
    path.path = override.source->string();  // absolute: the recipe directory does not apply
    recipe.sources = {path};
    for (auto& output : recipe.outputs) output.sources.clear();
  }
  if (override.version) {
    const auto recipe_version = recipe.version;
    if (variant.output_version == recipe_version) variant.output_version = *override.version;
    for (auto& output : recipe.outputs) {
      if (!output.version || *output.version == recipe_version) output.version = *override.version;
    }
    recipe.version = *override.version;
  }
}

std::string source_override_json(const SourceOverride& override, const std::string& recipe_version) {
  nlohmann::json document = nlohmann::json::object();
  if (override.source) document["source"] = override.source->string();
  if (override.version) {
    document["version"] = *override.version;
    document["recipe_version"] = recipe_version;
  }
  return document.dump();
}

}  // namespace gpuenv::build
