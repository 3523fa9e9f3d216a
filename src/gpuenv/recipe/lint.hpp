// `gpuenv lint`: what conda-forge maintainers get wrong in a recipe, each
// finding with the fix to make (docs/recipes.md, "Lint", lists the checks).
// Three sources of findings:
//   - the recipe as written, every selector branch included (recipe_outline.hpp):
//     source checksums, and `if:` conditions that never hold or cannot be
//     evaluated on any known platform with any variant of the matrix;
//   - every variant rendered for the target platform (render.hpp): CUDA
//     pinning, run_exports of shared libraries, about fields, noarch with
//     compilers;
//   - whatever the reader or renderer refuses, as an error finding at its
//     position: lint reports, it does not fail.
#pragma once

#include <expected>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "gpuenv/recipe/recipe_error.hpp"
#include "gpuenv/recipe/recipe_types.hpp"
#include "gpuenv/recipe/render.hpp"

namespace gpuenv::recipe {

struct LintFinding {
  enum class Severity { error, warning };
  Severity severity = Severity::error;
  std::string check;         // stable id, e.g. "source-sha256-missing"
  std::string file;          // the recipe, or the variant file the finding is in
  SourcePosition position;   // 0: the file as a whole
  std::string output;        // the package concerned; empty: the recipe as a whole
  std::string message;       // what is wrong (a reader error's message quotes the line)
  std::string fix;           // what to change
};

struct LintRequest {
  // The variant files, overrides and target platform the rendered checks use, as `gpuenv render`.
  RenderRequest render;
  // The platforms `if:` conditions are evaluated on; empty: every platform
  // gpuenv knows but noarch (specs::known_subdirs()).
  std::vector<std::string> selector_platforms;
};

// The findings for `recipe`, sorted by file and position. The only failure is
// a malformed `--variant` override (error file "--variant"): a usage mistake.
std::expected<std::vector<LintFinding>, RecipeError> lint_recipe_file(const std::filesystem::path& recipe,
                                                                      const LintRequest& request);

std::string_view severity_name(LintFinding::Severity severity);

bool has_lint_errors(const std::vector<LintFinding>& findings);

struct LintCounts {
  std::size_t errors = 0;
  std::size_t warnings = 0;

  LintCounts& operator+=(const LintCounts& other) {
    errors += other.errors;
    warnings += other.warnings;
    return *this;
  }
};

// How many of `findings` are errors and how many warnings.
LintCounts count_lint_findings(const std::vector<LintFinding>& findings);

struct LintedRecipe {
  std::string recipe;  // as named on the command line
  std::vector<LintFinding> findings;
};

// The findings of several recipes, counted together.
LintCounts total_lint_counts(const std::vector<LintedRecipe>& linted);

// `gpuenv lint --json` (docs/json-output.md): the counts over all recipes,
// then each recipe's counts and findings (line and column null when the
// finding is about the file as a whole).
std::string lint_report_json(const std::string& target_platform, const std::vector<LintedRecipe>& linted);

}  // namespace gpuenv::recipe
