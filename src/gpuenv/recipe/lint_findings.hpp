// How lint's checks (lint.cpp, lint_rendered.cpp) collect findings: one
// list, a finding repeated by several variants kept once. Internal to the
// recipe module.
#pragma once

#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "gpuenv/recipe/lint.hpp"
#include "gpuenv/recipe/recipe_outline.hpp"
#include "gpuenv/recipe/variants.hpp"

namespace gpuenv::recipe::detail {

class LintFindings {
 public:
  // Adds the finding unless one with the same check, file, position and
  // output is there already (each variant of a build repeats it).
  void add(LintFinding finding) {
    auto key = std::make_tuple(finding.check, finding.file, finding.position.line, finding.position.column,
                               finding.output);
    if (seen_.insert(std::move(key)).second) findings_.push_back(std::move(finding));
  }

  // Whether an error finding is on `line` of `file` already.
  bool has_error_on_line(const std::string& file, std::size_t line) const {
    for (const auto& finding : findings_) {
      if (finding.severity == LintFinding::Severity::error && finding.file == file && finding.position.line == line) {
        return true;
      }
    }
    return false;
  }

  std::vector<LintFinding> take() { return std::move(findings_); }

 private:
  std::vector<LintFinding> findings_;
  std::set<std::tuple<std::string, std::string, std::size_t, std::size_t, std::string>> seen_;
};

// The checks on each rendered variant (lint_rendered.cpp): CUDA pinning,
// run_exports of shared libraries, about fields, noarch with compilers.
void lint_rendered_variants(const std::vector<RenderedVariant>& variants, const RecipeOutline& outline,
                            const std::string& file, LintFindings& findings);

}  // namespace gpuenv::recipe::detail
