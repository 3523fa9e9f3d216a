#include "gpuenv/recipe/variant_config.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <regex>

#include "gpuenv/recipe/expression.hpp"
#include "gpuenv/util/file_io.hpp"
#include "gpuenv/util/yaml_document.hpp"

namespace gpuenv::recipe {
namespace {

// Thrown while reading one file; the public functions return its error.
struct VariantFailure {
  RecipeError error;
};

struct FileState {
  std::string_view file;
  std::string_view text;
  VariantFileFormat format;
  const VariantReadOptions& options;

  [[noreturn]] void fail(RecipeError::Kind kind, std::size_t line, std::size_t column, std::string_view offending,
                         std::string_view reason) const {
    RecipeError error;
    error.kind = kind;
    error.file = std::string(file);
    error.line = line;
    error.column = column;
    error.offending = std::string(offending);
    error.message = format_recipe_message(file, text, line, column, offending, reason);
    throw VariantFailure{std::move(error)};
  }
  [[noreturn]] void fail_at(const YAML::Node& node, std::string_view offending, std::string_view reason) const {
    const auto mark = node.Mark();
    fail(RecipeError::Kind::invalid_value, static_cast<std::size_t>(mark.line + 1),
         static_cast<std::size_t>(mark.column + 1), offending, reason);
  }
};

EvaluationContext selector_context(const VariantReadOptions& options) {
  EvaluationContext context;
  context.target_platform = options.target_platform;
  context.host_platform = options.target_platform;
  context.build_platform = options.build_platform;
  context.environment = options.environment;
  context.string_prefix_methods = true;
  return context;
}

// Whether a selector holds. As in rattler-build, a selector that names
// something unknown (`py >= 38`, a method it lacks) is false, not an error;
// text that is no expression at all is the file's error.
bool selector_holds(const std::string& expression, const EvaluationContext& context, const FileState& state,
                    std::size_t line, std::size_t column) {
  try {
    const Value value = evaluate_expression(expression, context);
    return !value.is_undefined() && value.truthy();
  } catch (const ExpressionError& error) {
    if (error.kind() == ExpressionError::Kind::syntax || error.kind() == ExpressionError::Kind::limit) {
      state.fail(RecipeError::Kind::expression, line, column, expression,
                 "selector is not an expression (" + error.reason() + " " + error.offending() + "):");
    }
    return false;
  }
}

// conda-build evaluates selectors as Python, where `os.environ.get(...)` reads
// the environment; the expression evaluator's env.get() is that function
// (its fallback is the `default=` keyword).
std::string as_jinja_selector(const std::string& expression) {
  static const std::regex with_fallback(R"(\bos\.environ\.get\s*\(\s*("[^"]*"|'[^']*')\s*,)");
  static const std::regex os_environ(R"(\bos\.environ\.get\s*\()");
  return std::regex_replace(std::regex_replace(expression, with_fallback, "env.get($1, default="), os_environ, "env.get(");
}

// conda_build_config.yaml: blanks each line whose `# [selector]` is false,
// keeping line numbers for later messages.
std::string apply_line_selectors(const FileState& state) {
  static const std::regex selector_comment(R"(#\s*\[(.*)\]\s*$)");
  const EvaluationContext context = selector_context(state.options);
  std::string result;
  result.reserve(state.text.size());
  std::size_t line_number = 0;
  std::size_t start = 0;
  while (start <= state.text.size()) {
    auto end = state.text.find('\n', start);
    if (end == std::string_view::npos) end = state.text.size();
    const std::string line(state.text.substr(start, end - start));
    ++line_number;
    std::smatch match;
    bool keep = true;
    if (std::regex_search(line, match, selector_comment)) {
      const std::string expression = match[1].str();
      const auto column = static_cast<std::size_t>(match.position(1)) + 1;
      keep = selector_holds(as_jinja_selector(expression), context, state, line_number, column);
    }
    if (keep) result += line;
    if (end == state.text.size()) break;
    result += '\n';
    start = end + 1;
  }
  return result;
}

// rattler-build's normalized key: '-' and '_' are the same (`r-base` is r_base).
std::string normalized_key(std::string key) {
  std::replace(key.begin(), key.end(), '-', '_');
  return key;
}

Value scalar_value(const YAML::Node& node, const FileState& state) {
  const std::string& text = node.Scalar();
  const bool plain = node.Tag() == "?";
  if (!plain) return Value::string(text);
  if (text == "true" || text == "True") return Value::boolean(true);
  if (text == "false" || text == "False") return Value::boolean(false);
  if (text.empty() || text == "~" || text == "null") return Value::none();
  static const std::regex integer(R"([-+]?[0-9]+)");
  if (state.format == VariantFileFormat::variants_yaml && std::regex_match(text, integer)) {
    try {
      return Value::integer(std::stoll(text));
    } catch (const std::out_of_range&) {
      return Value::string(text);
    }
  }
  return Value::string(text);
}

void append_values(const YAML::Node& node, std::vector<Value>& values, const FileState& state, std::size_t depth);

// variants.yaml list items may be `if: expr, then: ..., else: ...` selectors.
void append_selected(const YAML::Node& node, std::vector<Value>& values, const FileState& state, std::size_t depth) {
  const YAML::Node condition = node["if"];
  const YAML::Node then_branch = node["then"];
  if (!condition || !condition.IsScalar() || !then_branch) {
    state.fail_at(node, "", "a variant value is a scalar or an 'if:'/'then:' selector, found a mapping");
  }
  const auto mark = condition.Mark();
  if (selector_holds(condition.Scalar(), selector_context(state.options), state,
                     static_cast<std::size_t>(mark.line + 1), static_cast<std::size_t>(mark.column + 1))) {
    append_values(then_branch, values, state, depth + 1);
  } else if (const YAML::Node otherwise = node["else"]) {
    append_values(otherwise, values, state, depth + 1);
  }
}

void append_values(const YAML::Node& node, std::vector<Value>& values, const FileState& state, std::size_t depth) {
  if (depth > 8) state.fail_at(node, "", "selectors nested too deeply in a variant value");
  if (node.IsNull()) {
    values.push_back(Value::none());
  } else if (node.IsScalar()) {
    values.push_back(scalar_value(node, state));
  } else if (node.IsMap() && state.format == VariantFileFormat::variants_yaml) {
    append_selected(node, values, state, depth);
  } else if (node.IsSequence() && depth > 0) {
    for (const auto& item : node) append_values(item, values, state, depth + 1);
  } else {
    state.fail_at(node, "", "a variant value is a scalar (a list holds the values of one key), found a nested structure");
  }
  if (values.size() > state.options.max_values_per_key) {
    state.fail_at(node, "", "too many values for one variant key (over " +
                                std::to_string(state.options.max_values_per_key) + "):");
  }
}

std::vector<std::vector<std::string>> read_zip_keys(const YAML::Node& node, const FileState& state) {
  std::vector<std::vector<std::string>> groups;
  if (node.IsNull()) return groups;
  if (!node.IsSequence()) state.fail_at(node, "zip_keys", "a list of lists of keys is expected for");
  for (const auto& group : node) {
    if (group.IsNull()) continue;  // every key of it was selected away
    if (!group.IsSequence()) {
      state.fail_at(group, group.IsScalar() ? group.Scalar() : "", "each zip_keys entry is a list of keys, found");
    }
    std::vector<std::string> keys;
    for (const auto& key : group) {
      if (key.IsNull()) continue;
      if (!key.IsScalar()) state.fail_at(key, "", "zip_keys names keys (text), found a nested structure");
      keys.push_back(normalized_key(key.Scalar()));
    }
    if (!keys.empty()) groups.push_back(std::move(keys));
  }
  return groups;
}

std::map<std::string, RunAsBuildPin, std::less<>> read_pin_run_as_build(const YAML::Node& node, const FileState& state) {
  std::map<std::string, RunAsBuildPin, std::less<>> pins;
  if (node.IsNull()) return pins;
  if (!node.IsMap()) state.fail_at(node, "pin_run_as_build", "a mapping of package names is expected for");
  for (const auto& entry : node) {
    RunAsBuildPin pin;
    if (entry.second.IsMap()) {
      for (const auto& field : entry.second) {
        const std::string name = field.first.Scalar();
        if (!field.second.IsScalar()) state.fail_at(field.second, name, "a pin is text like x.x, found a structure for");
        if (name == "min_pin") pin.min_pin = field.second.Scalar();
        else if (name == "max_pin") pin.max_pin = field.second.Scalar();
        else state.fail_at(field.first, name, "pin_run_as_build knows min_pin and max_pin, not");
      }
    } else if (!entry.second.IsNull()) {
      state.fail_at(entry.second, entry.first.Scalar(), "pin_run_as_build entries are mappings (max_pin: x.x), see");
    }
    pins[entry.first.Scalar()] = pin;
  }
  return pins;
}

VariantConfig read_document(const YAML::Node& root, const FileState& state) {
  VariantConfig config;
  if (root.IsNull()) return config;
  if (!root.IsMap()) state.fail_at(root, "", "a variant file is a mapping of keys to lists of values");
  for (const auto& entry : root) {
    if (!entry.first.IsScalar()) state.fail_at(entry.first, "", "variant keys are text");
    const std::string key = normalized_key(entry.first.Scalar());
    if (key == "zip_keys") {
      config.zip_keys = read_zip_keys(entry.second, state);
    } else if (key == "pin_run_as_build") {
      config.pin_run_as_build = read_pin_run_as_build(entry.second, state);
    } else if (entry.second.IsSequence()) {
      std::vector<Value> values;
      for (const auto& item : entry.second) {
        if (!item.IsNull() || state.format == VariantFileFormat::conda_build_config) {
          append_values(item, values, state, 0);
        }
      }
      // A key whose every value was selected away is absent, as in rattler-build.
      if (!values.empty()) config.values[key] = std::move(values);
    } else if (entry.second.IsNull()) {
      continue;  // `key:` with its values selected away
    } else {
      std::vector<Value> values;
      append_values(entry.second, values, state, 0);
      config.values[key] = std::move(values);
    }
  }
  return config;
}

}  // namespace

VariantFileFormat variant_file_format(const std::filesystem::path& path) {
  return path.filename().string().starts_with("conda_build_config") ? VariantFileFormat::conda_build_config
                                                                    : VariantFileFormat::variants_yaml;
}

std::expected<VariantConfig, RecipeError> parse_variant_config(std::string_view text, std::string_view file,
                                                               VariantFileFormat format,
                                                               const VariantReadOptions& options) {
  if (text.size() > options.max_file_bytes) {
    RecipeError error;
    error.kind = RecipeError::Kind::too_large;
    error.file = std::string(file);
    error.message = std::string(file) + ": variant file larger than " + std::to_string(options.max_file_bytes) +
                    " bytes; variant files are a few KiB (is this the right file?)";
    return std::unexpected(std::move(error));
  }
  const FileState state{file, text, format, options};
  try {
    std::string selected;
    std::string_view yaml_text = text;
    if (format == VariantFileFormat::conda_build_config) {
      selected = apply_line_selectors(state);
      yaml_text = selected;
    }
    util::YamlLimits limits;
    limits.max_file_bytes = options.max_file_bytes;
    auto root = util::load_yaml(yaml_text, file, limits);
    if (!root) return std::unexpected(from_yaml_error(root.error(), file));
    return read_document(*root, state);
  } catch (VariantFailure& failure) {
    return std::unexpected(std::move(failure.error));
  } catch (const YAML::Exception& error) {
    // A conversion the checks above did not foresee: still the file's fault.
    RecipeError refused;
    refused.kind = RecipeError::Kind::not_yaml;
    refused.file = std::string(file);
    refused.line = static_cast<std::size_t>(error.mark.line + 1);
    refused.column = static_cast<std::size_t>(error.mark.column + 1);
    refused.message = format_recipe_message(file, text, refused.line, refused.column, "",
                                            "this YAML is not a variant file's mapping of keys to values:");
    return std::unexpected(std::move(refused));
  }
}

std::expected<VariantConfig, RecipeError> read_variant_config(const std::filesystem::path& path,
                                                              const VariantReadOptions& options) {
  auto text = util::read_text_file_at_most(path, options.max_file_bytes);
  if (!text) {
    RecipeError error;
    error.kind = text.error().kind == util::FileReadError::Kind::too_large ? RecipeError::Kind::too_large
                                                                           : RecipeError::Kind::unreadable;
    error.file = path.string();
    error.message = text.error().message;
    return std::unexpected(std::move(error));
  }
  return parse_variant_config(*text, path.string(), variant_file_format(path), options);
}

void merge_variant_config(VariantConfig& into, const VariantConfig& later) {
  for (const auto& [key, values] : later.values) into.values[key] = values;
  if (!later.zip_keys.empty()) into.zip_keys = later.zip_keys;
  for (const auto& [name, pin] : later.pin_run_as_build) into.pin_run_as_build[name] = pin;
}

std::expected<void, RecipeError> apply_variant_overrides(VariantConfig& config,
                                                         const std::vector<std::string>& overrides) {
  for (const auto& text : overrides) {
    const auto equals = text.find('=');
    if (equals == std::string::npos || equals == 0) {
      RecipeError error;
      error.kind = RecipeError::Kind::invalid_value;
      error.file = "--variant";
      error.offending = text;
      error.message = "--variant '" + text + "': expected KEY=VALUE (several values: KEY=V1,V2)";
      return std::unexpected(std::move(error));
    }
    std::vector<Value> values;
    std::string_view rest = std::string_view(text).substr(equals + 1);
    while (true) {
      const auto comma = rest.find(',');
      values.push_back(Value::string(std::string(rest.substr(0, comma))));
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 1);
    }
    config.values[normalized_key(text.substr(0, equals))] = std::move(values);
  }
  return {};
}

}  // namespace gpuenv::recipe
