// The checks on each rendered variant of a recipe: what one build of one
// output would be (docs/recipes.md, "Lint").
#include <algorithm>
#include <string>
#include <utility>

#include "gpuenv/recipe/lint_findings.hpp"
#include "gpuenv/specs/match_spec.hpp"

namespace gpuenv::recipe::detail {
namespace {

using Severity = LintFinding::Severity;

// What one rendered package is, with where lint points for it.
struct RenderedOutput {
  const RenderedVariant& variant;
  const Build& build;
  About about;  // the output's own fields over the recipe's (CEP 14 inheritance)
  SourcePosition requirements_position;
  SourcePosition about_position;
};

About merged_about(const About& own, const About& inherited) {
  About about = own;
  for (auto field : {&About::homepage, &About::repository, &About::documentation, &About::license,
                     &About::license_family, &About::summary, &About::description}) {
    if (!(about.*field)) about.*field = inherited.*field;
  }
  if (about.license_file.empty()) about.license_file = inherited.license_file;
  return about;
}

SourcePosition first_known(std::initializer_list<std::optional<SourcePosition>> positions) {
  for (const auto& position : positions) {
    if (position && position->line > 0) return *position;
  }
  return {};
}

RenderedOutput describe(const RenderedVariant& variant, const RecipeOutline& outline) {
  const Recipe& recipe = variant.recipe;
  const auto package = first_known({outline.section_position("package"), outline.section_position("recipe")});
  if (variant.output_index < recipe.outputs.size()) {
    const Output& output = recipe.outputs[variant.output_index];
    return {variant, output.build, output.about ? merged_about(*output.about, recipe.about) : recipe.about,
            output.position, output.about ? output.position : first_known({outline.section_position("about"), output.position})};
  }
  return {variant, recipe.build, recipe.about,
          first_known({outline.section_position("requirements"), package}),
          first_known({outline.section_position("about"), package})};
}

// The compiler()/stdlib() calls a rendered dependency came from: the calls
// written in the YAML scalar at its position.
std::vector<const ToolchainCall*> calls_of(const Dependency& dependency, const RecipeOutline& outline) {
  std::vector<const ToolchainCall*> calls;
  if (dependency.pin) return calls;
  for (const auto& call : outline.toolchain_calls()) {
    if (call.position.line == dependency.position.line && call.position.column == dependency.position.column) {
      calls.push_back(&call);
    }
  }
  return calls;
}

bool builds_with_compiler(const RenderedOutput& output, const RecipeOutline& outline,
                          std::initializer_list<std::string_view> languages) {
  for (const auto& dependency : output.variant.requirements().build) {
    for (const auto* call : calls_of(dependency, outline)) {
      if (call->function == "compiler" &&
          std::find(languages.begin(), languages.end(), call->language) != languages.end()) {
        return true;
      }
    }
  }
  return false;
}

std::string dependency_name(const Dependency& dependency) {
  if (dependency.pin) return dependency.pin->name;
  return specs::MatchSpec::extract_name(dependency.spec).value_or("");
}

bool constrains_cuda(const Requirements& requirements) {
  for (const auto* section : {&requirements.run, &requirements.run_constraints}) {
    for (const auto& dependency : *section) {
      const std::string name = dependency_name(dependency);
      if (name == "cuda-version" || name == "__cuda") return true;
    }
  }
  return false;
}

// "12.9" for a CUDA variant; empty for a CPU one (no key, None, or empty).
std::string cuda_version_of(const Variant& variant) {
  const auto found = variant.find("cuda_compiler_version");
  if (found == variant.end() || found->second.kind() == Value::Kind::none) return {};
  std::string version = found->second.display();
  return version == "None" ? std::string() : version;
}

// ">=12.9,<13" from "12.9"; ">=12.9" when the major is no number.
std::string cuda_version_range(const std::string& version) {
  const std::string major = version.substr(0, version.find('.'));
  if (major.empty() || !std::all_of(major.begin(), major.end(), [](char c) { return c >= '0' && c <= '9'; }) ||
      major.size() > 4) {
    return ">=" + version;
  }
  return ">=" + version + ",<" + std::to_string(std::stoi(major) + 1);
}

class OutputLinter {
 public:
  OutputLinter(const RenderedOutput& output, const RecipeOutline& outline, const std::string& file,
               LintFindings& findings)
      : output_(output), outline_(outline), file_(file), findings_(findings) {}

  void run() {
    lint_noarch_compilers();
    lint_cuda_pinning();
    lint_run_exports();
    lint_about();
  }

 private:
  void add(Severity severity, std::string check, SourcePosition position, std::string message, std::string fix) {
    LintFinding finding;
    finding.severity = severity;
    finding.check = std::move(check);
    finding.file = file_;
    finding.position = position;
    finding.output = output_.variant.output_name;
    finding.message = std::move(message);
    finding.fix = std::move(fix);
    findings_.add(std::move(finding));
  }

  const std::string& name() const { return output_.variant.output_name; }

  // A noarch package is one package for every platform: compiled code in it
  // runs on one platform only.
  void lint_noarch_compilers() {
    if (!output_.build.noarch) return;
    for (const auto& dependency : output_.variant.requirements().build) {
      for (const auto* call : calls_of(dependency, outline_)) {
        add(Severity::error, "noarch-with-compiler", dependency.position,
            "'" + name() + "' is noarch: " + *output_.build.noarch + " but its build requirements have `" +
                call->function + "('" + call->language + "')`: a noarch package cannot hold compiled code",
            "remove the " + call->function + " from requirements.build, or drop `noarch:` so that the package is "
            "built for each platform");
      }
    }
  }

  // A CUDA build must not install where its CUDA cannot run. conda-forge's
  // cuda-nvcc (what compiler('cuda') installs) has run_exports that pin
  // cuda-version to the toolkit's major, so a build with compiler('cuda')
  // is pinned; anything else must say it in run or run_constraints. An
  // error: the package installs on machines whose driver cannot load it.
  void lint_cuda_pinning() {
    const std::string version = cuda_version_of(output_.variant.variant);
    if (version.empty()) return;
    if (builds_with_compiler(output_, outline_, {"cuda"})) return;
    if (constrains_cuda(output_.variant.requirements())) return;
    add(Severity::error, "cuda-version-unpinned", output_.requirements_position,
        "'" + name() + "' is built for CUDA " + version +
            " (cuda_compiler_version) but has no `cuda-version` or `__cuda` constraint in run or run_constraints, "
            "and no ${{ compiler('cuda') }} in build whose run_exports would add one: it installs with any CUDA",
        "add `cuda-version " + cuda_version_range(version) +
            "` to requirements.run_constraints (or build with ${{ compiler('cuda') }}, whose run_exports pin "
            "cuda-version)");
  }

  // Packages linking against a shared library must depend on a compatible
  // version of it at run time; run_exports is how conda-build adds that.
  void lint_run_exports() {
    if (!name().starts_with("lib") || output_.build.noarch) return;
    if (!output_.variant.requirements().run_exports.empty()) return;
    if (!builds_with_compiler(output_, outline_, {"c", "cxx", "cuda"})) return;
    add(Severity::warning, "run-exports-missing", output_.requirements_position,
        "'" + name() + "' looks like a compiled shared library (lib*, built with a C/C++/CUDA compiler) but has no "
        "run_exports: packages that link against it get no run dependency on a compatible version",
        "add `run_exports: [\"${{ pin_subpackage('" + name() + "', upper_bound='x.x') }}\"]` under requirements "
        "(the upper bound the library's ABI promises)");
  }

  void lint_about() {
    const About& about = output_.about;
    const SourcePosition at = output_.about_position;
    if (!about.license || about.license->empty()) {
      add(Severity::error, "about-license-missing", at, "'" + name() + "' has no about.license",
          "add `license: <SPDX expression>` (e.g. Apache-2.0, MIT) under about");
    }
    if (about.license_file.empty()) {
      add(Severity::warning, "about-license-file-missing", at,
          "'" + name() + "' ships no license text (about.license_file)",
          "add `license_file: LICENSE` (the license file's path in the source) under about");
    }
    if (!about.homepage && !about.repository) {
      add(Severity::warning, "about-homepage-missing", at, "'" + name() + "' has neither about.homepage nor about.repository",
          "add `homepage:` (or `repository:`) with the project's URL under about");
    }
    if (!about.summary || about.summary->empty()) {
      add(Severity::warning, "about-summary-missing", at, "'" + name() + "' has no about.summary",
          "add `summary:` with one line saying what the package is under about");
    }
  }

  const RenderedOutput& output_;
  const RecipeOutline& outline_;
  const std::string& file_;
  LintFindings& findings_;
};

}  // namespace

void lint_rendered_variants(const std::vector<RenderedVariant>& variants, const RecipeOutline& outline,
                            const std::string& file, LintFindings& findings) {
  for (const auto& variant : variants) {
    const RenderedOutput output = describe(variant, outline);
    // A skipped variant is not built: nothing to say about it. (An output's
    // build is the top level's with its own keys over it: the reader merges them.)
    if (output.build.skip) continue;
    OutputLinter(output, outline, file, findings).run();
  }
}

}  // namespace gpuenv::recipe::detail
