#include "gpuenv/recipe/lint.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <nlohmann/json.hpp>
#include <utility>

#include "gpuenv/recipe/lint_findings.hpp"
#include "gpuenv/recipe/recipe_outline.hpp"
#include "gpuenv/specs/platform.hpp"
#include "gpuenv/util/file_io.hpp"

namespace gpuenv::recipe {
namespace {

using Severity = LintFinding::Severity;
using detail::LintFindings;

// Evaluating selectors over a matrix beyond this many combinations on one
// platform would take seconds; past it the never-true check says nothing
// rather than guess from part of the matrix.
constexpr std::size_t max_selector_combinations = 5'000;

LintFinding finding(Severity severity, std::string check, std::string file, SourcePosition position,
                    std::string message, std::string fix) {
  LintFinding result;
  result.severity = severity;
  result.check = std::move(check);
  result.file = std::move(file);
  result.position = position;
  result.message = std::move(message);
  result.fix = std::move(fix);
  return result;
}

// A reader message starts "file:line:column: "; the finding carries those.
std::string message_without_location(const RecipeError& error) {
  std::string prefix = error.file;
  if (error.line > 0) {
    prefix += ":" + std::to_string(error.line);
    if (error.column > 0) prefix += ":" + std::to_string(error.column);
  }
  prefix += ": ";
  if (error.message.starts_with(prefix)) return error.message.substr(prefix.size());
  return error.message;
}

struct ReaderCheck {
  const char* check;
  const char* fix;
};

ReaderCheck reader_check(RecipeError::Kind kind) {
  switch (kind) {
    case RecipeError::Kind::unreadable: return {"recipe-unreadable", "check the path and that the file can be read"};
    case RecipeError::Kind::too_large:
      return {"recipe-too-large",
              "a recipe.yaml is a few KiB and nests a few levels: check that this is the right file, or shrink it"};
    case RecipeError::Kind::not_yaml: return {"recipe-yaml-syntax", "fix the YAML syntax at the position shown"};
    case RecipeError::Kind::expression:
      return {"recipe-expression",
              "fix the `${{ }}` expression or `if:` selector: define the name in `context:` or the variant config, "
              "or correct its syntax"};
    case RecipeError::Kind::invalid_value:
      return {"recipe-invalid-value", "give the field a value of the form the v1 recipe format expects (docs/recipes.md)"};
    case RecipeError::Kind::unknown_field:
      return {"recipe-unknown-field", "remove or rename the key: it is not a v1 recipe field (CEP 13/14)"};
    case RecipeError::Kind::missing_field: return {"recipe-missing-field", "add the field the message names"};
  }
  return {"recipe-invalid-value", "fix the recipe at the position shown"};
}

bool is_hex_digits(std::string_view text, std::size_t count) {
  return text.size() == count &&
         std::all_of(text.begin(), text.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; });
}

bool same_position(SourcePosition a, std::size_t line, std::size_t column) {
  return a.line == line && a.column == column;
}

struct ChecksumField {
  const std::optional<WrittenChecksum>* written;
  const char* name;
  std::size_t digits;
};

std::array<ChecksumField, 2> checksum_fields(const UrlSource& source) {
  return {ChecksumField{&source.sha256, "sha256", 64}, ChecksumField{&source.md5, "md5", 32}};
}

class RecipeLinter {
 public:
  RecipeLinter(const std::filesystem::path& recipe, const LintRequest& request)
      : recipe_(recipe), file_(recipe.string()), request_(request) {}

  std::vector<LintFinding> run() {
    auto text = util::read_text_file_at_most(recipe_, RecipeOptions{}.max_file_bytes);
    if (!text) {
      RecipeError error;
      error.kind = text.error().kind == util::FileReadError::Kind::too_large ? RecipeError::Kind::too_large
                                                                             : RecipeError::Kind::unreadable;
      error.file = file_;
      error.message = text.error().message;
      add_reader_error(error);
      return findings_.take();
    }
    text_ = std::move(*text);
    auto outline = RecipeOutline::read(text_, file_);
    // What the outline refuses (YAML syntax, bounds, duplicate keys) the
    // renderer refuses first too: one finding says it.
    if (!outline) {
      add_reader_error(outline.error());
      return findings_.take();
    }
    outline_ = &*outline;
    lint_sources();
    lint_selectors();
    auto rendered = render_recipe_file(recipe_, request_.render);
    if (rendered) {
      detail::lint_rendered_variants(rendered->variants, *outline_, file_, findings_);
    } else {
      add_reader_error(rendered.error());
    }
    return findings_.take();
  }

 private:
  // A refusal of the reader or renderer: under the check of the field it is
  // about where lint has one (a malformed checksum), and not twice on a line
  // an error finding already explains.
  void add_reader_error(const RecipeError& error) {
    const bool in_recipe = error.file == file_;
    if (in_recipe && error.line > 0 && findings_.has_error_on_line(file_, error.line)) return;
    if (in_recipe && outline_ != nullptr) {
      for (const auto& source : outline_->url_sources()) {
        for (const auto& field : checksum_fields(source)) {
          if (*field.written && same_position((*field.written)->position, error.line, error.column)) {
            add_malformed_checksum(**field.written, field, message_without_location(error));
            return;
          }
        }
      }
    }
    if (!in_recipe) {
      findings_.add(finding(Severity::error, "variant-config-invalid", error.file, {error.line, error.column},
                            message_without_location(error),
                            "fix the variant file at the position shown (docs/recipes.md, Variants)"));
      return;
    }
    const ReaderCheck check = reader_check(error.kind);
    findings_.add(finding(Severity::error, check.check, file_, {error.line, error.column},
                          message_without_location(error), check.fix));
  }

  void add_malformed_checksum(const WrittenChecksum& checksum, const ChecksumField& field, std::string message) {
    const std::string name = field.name;
    findings_.add(finding(Severity::error, "source-" + name + "-malformed", file_, checksum.position, std::move(message),
                          "write the file's " + name + " as " + std::to_string(field.digits) + " hex digits (`" +
                              name + "sum FILE` prints it)"));
  }

  // Every url source as written, in every selector branch: a checksum is
  // what makes the download reproducible and safe to cache.
  void lint_sources() {
    for (const auto& source : outline_->url_sources()) {
      for (const auto& field : checksum_fields(source)) {
        // A templated checksum is checked once rendered (add_reader_error).
        const auto& written = *field.written;
        if (written && !has_expression(written->text) && !is_hex_digits(written->text, field.digits)) {
          add_malformed_checksum(*written, field,
                                 "malformed " + std::string(field.name) + " '" + written->text.substr(0, 100) +
                                     "': " + std::to_string(field.digits) + " hex digits expected");
        }
      }
      if (source.sha256) continue;
      if (source.md5) {
        findings_.add(finding(Severity::warning, "source-md5-only", file_, source.position,
                              "url source checked by md5 alone: md5 no longer protects against a tampered download",
                              "add `sha256: ...` (`sha256sum FILE` prints it); the md5 may stay"));
      } else {
        findings_.add(finding(Severity::error, "source-sha256-missing", file_, source.position,
                              "url source without sha256: the download is not verified, and a changed file goes unnoticed",
                              "add `sha256: ...` under the url (`sha256sum FILE` prints it)"));
      }
    }
  }

  std::vector<std::string> selector_platforms() const {
    if (!request_.selector_platforms.empty()) return request_.selector_platforms;
    std::vector<std::string> platforms;
    for (const auto subdir : specs::known_subdirs()) {
      if (subdir != "noarch") platforms.emplace_back(subdir);
    }
    return platforms;
  }

  struct ConditionTally {
    std::size_t reached = 0, held = 0, failed = 0, errors = 0;
    RecipeError first_error;
  };

  // Each `if:` over every platform and every combination of the variant
  // matrix read for that platform. A platform whose variant files or matrix
  // cannot be read is left out (the target platform's refusal is a finding).
  void lint_selectors() {
    const auto& conditions = outline_->conditions();
    if (conditions.empty()) return;
    std::vector<ConditionTally> tallies(conditions.size());
    bool complete = true;
    std::size_t platforms_evaluated = 0;
    for (const auto& platform : selector_platforms()) {
      RenderRequest request = request_.render;
      request.target_platform = platform;
      auto config = render_variant_config(recipe_, request);
      if (!config) continue;
      RecipeOptions options;
      options.target_platform = platform;
      options.host_platform = platform;
      options.build_platform = request.build_platform;
      options.environment = request.environment;
      auto combinations = variant_combinations(text_, file_, *config, options);
      if (!combinations) continue;
      ++platforms_evaluated;
      if (combinations->size() > max_selector_combinations) {
        complete = false;
        combinations->resize(max_selector_combinations);
      }
      for (const auto& combination : *combinations) {
        options.variant.clear();
        for (const auto& [key, value] : combination) options.variant[key] = value.display();
        auto values = outline_->evaluate_conditions(options);
        if (!values) continue;
        for (std::size_t index = 0; index < values->size(); ++index) tally((*values)[index], tallies[index]);
      }
    }
    for (std::size_t index = 0; index < conditions.size(); ++index) {
      report_condition(conditions[index], tallies[index], platforms_evaluated, complete);
    }
  }

  static void tally(ConditionValue& value, ConditionTally& tally) {
    if (value.kind == ConditionValue::Kind::not_reached) return;
    ++tally.reached;
    if (value.kind == ConditionValue::Kind::holds) ++tally.held;
    if (value.kind == ConditionValue::Kind::fails) ++tally.failed;
    if (value.kind == ConditionValue::Kind::error && tally.errors++ == 0) tally.first_error = std::move(value.error);
  }

  void report_condition(const SelectorCondition& condition, const ConditionTally& tally, std::size_t platforms,
                        bool complete) {
    // Never reached: an enclosing selector never takes its branch, and is reported itself.
    if (tally.reached == 0 || tally.held > 0) return;
    if (tally.errors == tally.reached) {
      findings_.add(finding(Severity::error, "selector-invalid", file_, condition.position,
                            "`if: " + condition.expression.substr(0, 200) +
                                "` cannot be evaluated on any platform: " + message_without_location(tally.first_error),
                            "use names that are defined everywhere: `context:` variables, variant keys (variants.yaml "
                            "or conda_build_config.yaml), platform names (linux, osx, win, unix, x86_64, aarch64, ...)"));
      return;
    }
    if (!complete) return;
    findings_.add(finding(Severity::warning, "selector-never-true", file_, condition.position,
                          "`if: " + condition.expression.substr(0, 200) + "` is false on every platform (" + std::to_string(platforms) +
                              " evaluated) with every variant of the matrix: its `then` is never used",
                          "correct the condition (a misspelled value, or a variant value the matrix no longer has), "
                          "or remove the selector and keep only what its `else` holds"));
  }

  const std::filesystem::path& recipe_;
  std::string file_;
  const LintRequest& request_;
  std::string text_;
  const RecipeOutline* outline_ = nullptr;
  LintFindings findings_;
};

}  // namespace

std::expected<std::vector<LintFinding>, RecipeError> lint_recipe_file(const std::filesystem::path& recipe,
                                                                      const LintRequest& request) {
  // A malformed --variant is the command line's mistake: refused before the recipe is looked at.
  VariantConfig scratch;
  if (auto applied = apply_variant_overrides(scratch, request.render.overrides); !applied) {
    return std::unexpected(std::move(applied.error()));
  }
  auto findings = RecipeLinter(recipe, request).run();
  std::stable_sort(findings.begin(), findings.end(), [](const LintFinding& a, const LintFinding& b) {
    return std::tie(a.file, a.position.line, a.position.column) < std::tie(b.file, b.position.line, b.position.column);
  });
  return findings;
}

std::string_view severity_name(LintFinding::Severity severity) {
  return severity == LintFinding::Severity::error ? "error" : "warning";
}

bool has_lint_errors(const std::vector<LintFinding>& findings) {
  return std::any_of(findings.begin(), findings.end(),
                     [](const LintFinding& finding) { return finding.severity == LintFinding::Severity::error; });
}

LintCounts count_lint_findings(const std::vector<LintFinding>& findings) {
  LintCounts counts;
  for (const auto& finding : findings) ++(finding.severity == LintFinding::Severity::error ? counts.errors : counts.warnings);
  return counts;
}

LintCounts total_lint_counts(const std::vector<LintedRecipe>& linted) {
  LintCounts total;
  for (const auto& each : linted) total += count_lint_findings(each.findings);
  return total;
}

namespace {

nlohmann::ordered_json position_json(std::size_t value) {
  return value > 0 ? nlohmann::ordered_json(value) : nlohmann::ordered_json(nullptr);
}

nlohmann::ordered_json finding_json(const LintFinding& finding) {
  return {{"severity", severity_name(finding.severity)},
          {"check", finding.check},
          {"file", finding.file},
          {"line", position_json(finding.position.line)},
          {"column", position_json(finding.position.column)},
          {"output", finding.output.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(finding.output)},
          {"message", finding.message},
          {"fix", finding.fix}};
}

}  // namespace

std::string lint_report_json(const std::string& target_platform, const std::vector<LintedRecipe>& linted) {
  using json = nlohmann::ordered_json;
  const auto total = total_lint_counts(linted);
  json recipes = json::array();
  for (const auto& each : linted) {
    const auto counts = count_lint_findings(each.findings);
    json findings = json::array();
    for (const auto& finding : each.findings) findings.push_back(finding_json(finding));
    recipes.push_back({{"recipe", each.recipe},
                       {"errors", counts.errors},
                       {"warnings", counts.warnings},
                       {"findings", std::move(findings)}});
  }
  return json{{"schema_version", 1},          {"target_platform", target_platform}, {"errors", total.errors},
              {"warnings", total.warnings}, {"recipes", std::move(recipes)}}
      .dump(2);
}

}  // namespace gpuenv::recipe
