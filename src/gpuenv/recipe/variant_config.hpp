// Variant configuration files: the values each variant key may take, the
// keys that move together (zip_keys) and conda-build's pin_run_as_build.
// Two formats, as rattler-build reads them:
//   - variants.yaml (rattler-build's): `key: [values]`, list items may be
//     `if/then/else` selectors; unquoted integers and true/false are typed,
//     everything else is text (`3.10` stays "3.10", `None` is "None").
//   - conda_build_config.yaml (conda-build's): a line ending in
//     `# [expression]` is kept only when the expression is true for the target
//     platform (os.environ.get(...) reads `environment`); true/false are
//     typed, an empty item is none, everything else is text (`15` is "15").
// Keys are normalized as rattler-build does: '-' reads as '_' (`r-base:` is
// r_base), in zip_keys and --variant overrides too.
// Files merge in order: a later file's key replaces the earlier one's values,
// and its zip_keys (when it has any) replace the earlier ones.
#pragma once

#include <cstdint>
#include <expected>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gpuenv/recipe/recipe_error.hpp"
#include "gpuenv/recipe/value.hpp"

namespace gpuenv::recipe {

// conda-build's pin_run_as_build entry for one package.
struct RunAsBuildPin {
  std::optional<std::string> min_pin, max_pin;
  friend bool operator==(const RunAsBuildPin&, const RunAsBuildPin&) = default;
};

struct VariantConfig {
  // Each key's values in the order written (strings, integers, booleans or none).
  std::map<std::string, std::vector<Value>, std::less<>> values;
  // Groups of keys whose values are taken together, index by index. A group
  // may name keys that have no values (rattler-build ignores them).
  std::vector<std::vector<std::string>> zip_keys;
  std::map<std::string, RunAsBuildPin, std::less<>> pin_run_as_build;
};

enum class VariantFileFormat { variants_yaml, conda_build_config };

struct VariantReadOptions {
  // The platform conda_build_config.yaml selectors and variants.yaml `if:` are evaluated for.
  std::string target_platform = "linux-64";
  std::string build_platform = "linux-64";
  std::map<std::string, std::string, std::less<>> environment;  // what os.environ.get()/env.get() see
  // conda-forge's whole pinning file is ~40 KiB; 4 MiB is far beyond any real one.
  std::uintmax_t max_file_bytes = 4u << 20;
  std::size_t max_values_per_key = 10'000;
};

// The format a file is read in: conda_build_config.yaml (any name that starts
// with "conda_build_config") is conda-build's, everything else rattler-build's.
VariantFileFormat variant_file_format(const std::filesystem::path& path);

// Reads variant text; `file` names it in errors (file, line, column).
std::expected<VariantConfig, RecipeError> parse_variant_config(std::string_view text, std::string_view file,
                                                               VariantFileFormat format,
                                                               const VariantReadOptions& options = {});

// Reads a variant file (refused beyond options.max_file_bytes before reading).
std::expected<VariantConfig, RecipeError> read_variant_config(const std::filesystem::path& path,
                                                              const VariantReadOptions& options = {});

// Merges `later` over `into`: its keys replace, its zip_keys replace when it has any.
void merge_variant_config(VariantConfig& into, const VariantConfig& later);

// Applies `--variant KEY=VALUE` overrides in order: each replaces the key's
// values with VALUE split at commas ("python=3.11,3.12" gives two values).
// A text without '=' or with an empty key is refused, naming it.
std::expected<void, RecipeError> apply_variant_overrides(VariantConfig& config,
                                                         const std::vector<std::string>& overrides);

}  // namespace gpuenv::recipe
