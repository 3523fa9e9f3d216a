// Expanding a recipe over a variant configuration, as rattler-build does:
//   1. The keys a recipe may use are found in its text: names in every
//      `${{ }}` expression and `if:` selector (all branches, build.string and
//      scripts included), the keys compiler('x') / stdlib('x') / cdt() read
//      (x_compiler and x_compiler_version, x_stdlib and x_stdlib_version,
//      cdt_name), and bare package names in build and host requirements
//      (`python`, `r-base` as r_base), plus build.variant.use_keys
//      (ignore_keys still expand the matrix, as in rattler-build).
//   2. Only those keys expand the matrix; keys of one zip_keys group move
//      together (every group's present keys must have as many values, used
//      or not, as in rattler-build).
//   3. Each combination reads the recipe; its variant keeps the keys that
//      reading used (the taken selector branches), the bare build/host
//      package names and build.string/script names, less ignore_keys, and target_platform
//      ("noarch" for noarch packages; noarch: python drops python).
// A multi-output recipe gives, per combination, each package output in the
// order written, its variant keeping the keys written in it or outside
// `outputs` (and those of the staging output it inherits from); an exact
// pin_subpackage adds the pinned output's "version build_string". Staging
// outputs give none. An output's own build.variant block replaces the top
// level's; without one it inherits it.
// Variants come sorted by their combination (key by key, values compared as
// minijinja compares them), one per combination: like rattler-build's render,
// two combinations that give the same variant are both listed.
#pragma once

#include <expected>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "gpuenv/recipe/recipe_error.hpp"
#include "gpuenv/recipe/recipe_reader.hpp"
#include "gpuenv/recipe/recipe_types.hpp"
#include "gpuenv/recipe/variant_config.hpp"

namespace gpuenv::recipe {

using Variant = std::map<std::string, Value, std::less<>>;

// A package output as pin_subpackage sees it.
struct OutputIdentity {
  std::string name;
  std::string version;
  std::string build_string;
};

// One package to build: a recipe's (or one of its outputs') variant.
struct RenderedVariant {
  std::string output_name;     // the package's name
  std::string output_version;
  // Index into recipe.outputs; SIZE_MAX for a single-output recipe.
  std::size_t output_index = static_cast<std::size_t>(-1);
  Variant variant;         // the keys this build uses, target_platform included
  Recipe recipe;           // the whole recipe read for this combination
  std::string hash_input;  // what the build-string hash is computed from (variant_hash.hpp)
  std::string hash;        // 7 hex digits
  std::string build_string;
  // The package outputs of the same combination, this one included, in the
  // order written: what pin_subpackage resolves against.
  std::vector<OutputIdentity> outputs;

  // This output's requirements (the recipe's own for a single output).
  const Requirements& requirements() const;
};

// How a dependency reads in rendered output: its match spec, or the pin
// unresolved ("pin_subpackage(libfoo, upper_bound=x.x)").
std::string dependency_text(const Dependency& dependency);

// The keys `recipe_text` may look up (step 1 above), before any is read
// with a variant. Throws nothing; a text that is no YAML gives an error.
std::expected<std::vector<std::string>, RecipeError> recipe_variable_names(std::string_view recipe_text,
                                                                           std::string_view file);

// The combinations of values the recipe expands to for `config` (steps 1
// and 2), before any is read: each holds every used key, none filtered out.
// Errors: the recipe is no YAML, a zip_keys group of unequal lengths, a matrix too large.
std::expected<std::vector<Variant>, RecipeError> variant_combinations(std::string_view recipe_text,
                                                                      std::string_view file,
                                                                      const VariantConfig& config,
                                                                      const RecipeOptions& options = {});

// Every variant of the recipe for `config`, each read with `options` (its
// `variant` is replaced by the combination's values). Errors: the recipe's
// own (file, line, column) or a zip_keys group of unequal lengths.
std::expected<std::vector<RenderedVariant>, RecipeError> render_variants(std::string_view recipe_text,
                                                                         std::string_view file,
                                                                         const VariantConfig& config,
                                                                         const RecipeOptions& options = {});

}  // namespace gpuenv::recipe
