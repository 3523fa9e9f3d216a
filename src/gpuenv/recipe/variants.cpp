#include "gpuenv/recipe/variants.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <regex>
#include <set>

#include "gpuenv/recipe/expression_syntax.hpp"
#include "gpuenv/recipe/recipe.hpp"
#include "gpuenv/recipe/variant_hash.hpp"

namespace gpuenv::recipe {
namespace {

constexpr std::size_t npos_output = static_cast<std::size_t>(-1);

// A matrix beyond this is a mistake in the variant files (conda-forge's
// largest feedstocks build a few hundred variants).
constexpr std::size_t max_combinations = 100'000;

// The recipe's text walked once, without a variant: every name it may look up.
struct RecipeNames {
  std::set<std::string> names;
  // Names in build.string and scripts: rendered only at build time, so
  // reading a variant does not record them, but rattler-build counts them.
  std::set<std::string> build_time_names;
  // build.variant: the top level's, and each output's. An output that
  // writes a `variant` block of its own replaces the top level's whole block
  // (rattler-build merges `build` key by key); one that writes none inherits it.
  struct VariantKeys {
    bool written = false;
    std::vector<std::string> use_keys, ignore_keys;
  };
  VariantKeys top_variant;
  std::vector<VariantKeys> output_variant;
  // The context's own names: they shadow variant keys of the same name
  // (dask-core's `python_min: 3.10` is not conda-forge's python_min).
  std::set<std::string> context_names;
  // Multi-output recipes: the names written outside `outputs` and in each
  // output (an output's variant keeps only its own and the shared ones).
  std::set<std::string> shared_names;
  std::vector<std::set<std::string>> output_names;
  std::vector<std::set<std::string>> output_build_time_names;
  ExpressionLimits limits;

  static void collect_names(const detail::SyntaxNode& node, std::set<std::string>& into) {
    if (node.type == detail::SyntaxNode::Type::name) into.insert(node.text);
    if (node.type == detail::SyntaxNode::Type::call && node.children[0]->type == detail::SyntaxNode::Type::name &&
        node.children[0]->text == "cdt") {
      into.insert("cdt_name");
    }
    for (const auto& child : node.children) {
      if (child) collect_names(*child, into);
    }
  }

  static void collect(const detail::SyntaxNode& node, std::set<std::string>& into) {
    collect_names(node, into);
    for (const auto& call : detail::toolchain_calls(node)) {
      into.insert(call.language + "_" + call.function);
      into.insert(call.language + "_" + call.function + "_version");
    }
  }

  void expression(std::string_view text, std::set<std::string>& into) const {
    try {
      collect(*detail::parse_expression(text, limits), into);
    } catch (const ExpressionError&) {
      // Reading the recipe reports it, with its position.
    }
  }

  void templates(std::string_view text, std::set<std::string>& into) const {
    for (const auto expression_text : detail::template_expressions(text)) expression(expression_text, into);
  }

  // Below requirements.build/host, through lists and if/then/else only.
  static bool in_build_or_host(const std::vector<std::string>& path) {
    for (std::size_t i = path.size(); i-- > 0;) {
      if (path[i] == "[]" || path[i] == "then" || path[i] == "else") continue;
      return (path[i] == "build" || path[i] == "host") && i > 0 && path[i - 1] == "requirements";
    }
    return false;
  }

  static bool ends_with(const std::vector<std::string>& path, std::initializer_list<std::string_view> tail) {
    if (path.size() < tail.size()) return false;
    return std::equal(tail.begin(), tail.end(), path.end() - static_cast<std::ptrdiff_t>(tail.size()));
  }

  void scalar(const std::string& text, const std::vector<std::string>& path) {
    std::set<std::string> found;
    templates(text, found);
    if (!path.empty() && path.back() == "if") expression(text, found);
    static const std::regex bare_name(R"([A-Za-z0-9_.\-]+)");
    // A bare package name expands the matrix wherever it is written, but
    // stays in an output's variant only where the output's read
    // requirements hold it (keys_used_by), not in a branch not taken.
    if (in_build_or_host(path) && !has_expression(text) && std::regex_match(text, bare_name)) {
      std::string key = text;
      std::replace(key.begin(), key.end(), '-', '_');
      names.insert(key);
    }
    names.insert(found.begin(), found.end());
    const bool in_output = path.size() >= 2 && path[0] == "outputs" && !output_names.empty();
    (in_output ? output_names.back() : shared_names).insert(found.begin(), found.end());
    const bool build_time = std::find(path.begin(), path.end(), "script") != path.end() ||
                            ends_with(path, {"build", "string"});
    if (build_time) {
      std::set<std::string> later;
      templates(text, later);
      build_time_names.insert(later.begin(), later.end());
      if (in_output) output_build_time_names.back().insert(later.begin(), later.end());
    }
    VariantKeys& variant_keys = in_output ? output_variant.back() : top_variant;
    if (ends_with(path, {"build", "variant", "use_keys", "[]"})) variant_keys.use_keys.push_back(text);
    if (ends_with(path, {"build", "variant", "ignore_keys", "[]"})) variant_keys.ignore_keys.push_back(text);
  }

  // The use_keys of the whole recipe: each expands the matrix.
  std::set<std::string> all_use_keys() const {
    std::set<std::string> all(top_variant.use_keys.begin(), top_variant.use_keys.end());
    for (const auto& each : output_variant) all.insert(each.use_keys.begin(), each.use_keys.end());
    return all;
  }

  const VariantKeys& variant_keys_of(std::size_t output) const {
    if (output < output_variant.size() && output_variant[output].written) return output_variant[output];
    return top_variant;
  }

  void walk(const YAML::Node& node, std::vector<std::string>& path) {
    if (node.IsScalar()) {
      scalar(node.Scalar(), path);
    } else if (node.IsSequence()) {
      const bool outputs = path.size() == 1 && path.front() == "outputs";
      path.emplace_back("[]");
      for (const auto& item : node) {
        if (outputs) {
          output_names.emplace_back();
          output_build_time_names.emplace_back();
          output_variant.emplace_back();
        }
        walk(item, path);
      }
      path.pop_back();
    } else if (node.IsMap()) {
      for (const auto& entry : node) {
        if (path.size() == 1 && path.front() == "context" && entry.first.IsScalar()) {
          context_names.insert(entry.first.Scalar());
        }
        path.push_back(entry.first.IsScalar() ? entry.first.Scalar() : std::string());
        if (ends_with(path, {"build", "variant"})) {
          const bool in_output = path.size() >= 2 && path[0] == "outputs" && !output_variant.empty();
          (in_output ? output_variant.back() : top_variant).written = true;
        }
        walk(entry.second, path);
        path.pop_back();
      }
    }
  }
};

RecipeError variant_error(std::string_view file, std::string message) {
  RecipeError error;
  error.kind = RecipeError::Kind::invalid_value;
  error.file = std::string(file);
  error.message = std::move(message);
  return error;
}

std::expected<RecipeNames, RecipeError> scan_recipe(std::string_view recipe_text, std::string_view file,
                                                    const RecipeOptions& options) {
  auto root = detail::load_recipe_yaml(recipe_text, file, options);
  if (!root) return std::unexpected(std::move(root.error()));
  RecipeNames names;
  names.limits = options.expression_limits;
  std::vector<std::string> path;
  names.walk(*root, path);
  return names;
}

// Every zip_keys group's keys must have as many values as each other. As in
// rattler-build, a group naming a key without values is not checked (its
// keys then go together as far as the shortest reaches).
std::expected<void, RecipeError> check_zip_lengths(const VariantConfig& config, std::string_view file) {
  for (const auto& group : config.zip_keys) {
    const bool complete = std::all_of(group.begin(), group.end(),
                                      [&](const std::string& key) { return config.values.contains(key); });
    if (!complete) continue;
    const std::string* first = nullptr;
    for (const auto& key : group) {
      const auto found = config.values.find(key);
      if (found == config.values.end()) continue;
      if (first == nullptr) {
        first = &key;
      } else if (found->second.size() != config.values.find(*first)->second.size()) {
        return std::unexpected(variant_error(
            file, "zip_keys: '" + key + "' has " + std::to_string(found->second.size()) + " values but '" + *first +
                      "', zipped with it, has " + std::to_string(config.values.find(*first)->second.size()) +
                      "; keys zipped together need as many values each"));
      }
    }
  }
  return {};
}

// The combinations of the used keys' values, a zip group's keys taken together.
std::expected<std::vector<Variant>, RecipeError> combinations(const VariantConfig& config,
                                                              const std::set<std::string>& used, std::string_view file) {
  std::vector<std::vector<std::string>> units;
  std::set<std::string> placed;
  for (const auto& key : used) {
    if (placed.contains(key)) continue;
    std::vector<std::string> unit{key};
    for (const auto& group : config.zip_keys) {
      if (std::find(group.begin(), group.end(), key) == group.end()) continue;
      for (const auto& partner : group) {
        if (partner != key && used.contains(partner) && !placed.contains(partner)) unit.push_back(partner);
      }
    }
    placed.insert(unit.begin(), unit.end());
    units.push_back(std::move(unit));
  }
  std::vector<Variant> result{Variant{}};
  for (const auto& unit : units) {
    std::size_t count = config.values.find(unit.front())->second.size();
    for (const auto& key : unit) count = std::min(count, config.values.find(key)->second.size());
    if (result.size() * count > max_combinations) {
      return std::unexpected(variant_error(file, "the variant matrix has more than " + std::to_string(max_combinations) +
                                                     " combinations; zip keys together or use fewer values"));
    }
    std::vector<Variant> next;
    next.reserve(result.size() * count);
    for (const auto& partial : result) {
      for (std::size_t index = 0; index < count; ++index) {
        Variant variant = partial;
        for (const auto& key : unit) variant[key] = config.values.find(key)->second[index];
        next.push_back(std::move(variant));
      }
    }
    result = std::move(next);
  }
  // All have the same keys: compared value by value in key order.
  std::stable_sort(result.begin(), result.end(), [](const Variant& a, const Variant& b) {
    for (auto left = a.begin(), right = b.begin(); left != a.end() && right != b.end(); ++left, ++right) {
      if (const int order = compare(left->second, right->second); order != 0) return order < 0;
    }
    return false;
  });
  return result;
}

void add_bare_names(const std::vector<Dependency>& dependencies, std::set<std::string>& into) {
  static const std::regex bare_name(R"([A-Za-z0-9_.\-]+)");
  for (const auto& dependency : dependencies) {
    if (dependency.pin || !std::regex_match(dependency.spec, bare_name)) continue;
    std::string key = dependency.spec;
    std::replace(key.begin(), key.end(), '-', '_');
    into.insert(key);
  }
}

// The keys reading `recipe` for one combination used (step 3 in
// variants.hpp); for output `output` of a multi-output recipe, those of them
// written in that output or outside `outputs`. (The reader records the names
// of the whole recipe, so a name used in one output's taken branch and
// written in another's branch not taken counts for both.)
std::set<std::string> keys_used_by(const Recipe& recipe, const RecipeNames& names, std::size_t output) {
  std::set<std::string> used(recipe.used_names.begin(), recipe.used_names.end());
  add_bare_names(recipe.requirements.build, used);
  add_bare_names(recipe.requirements.host, used);
  for (const auto& each : recipe.outputs) {
    add_bare_names(each.requirements.build, used);
    add_bare_names(each.requirements.host, used);
  }
  if (recipe.multi_output && output < names.output_names.size()) {
    std::set<std::string> own;
    add_bare_names(recipe.outputs[output].requirements.build, own);
    add_bare_names(recipe.outputs[output].requirements.host, own);
    own.insert(names.output_build_time_names[output].begin(), names.output_build_time_names[output].end());
    std::set<std::string> written = names.shared_names;
    written.insert(names.output_names[output].begin(), names.output_names[output].end());
    // An output built on a staging output uses the keys that one uses: its
    // build and host packages and the names its script reads (rattler-build).
    if (const auto& from = recipe.outputs[output].inherit_from) {
      for (std::size_t staging = 0; staging < recipe.outputs.size(); ++staging) {
        const Output& each = recipe.outputs[staging];
        if (each.kind != Output::Kind::staging || each.name != *from || staging >= names.output_names.size()) continue;
        add_bare_names(each.requirements.build, own);
        add_bare_names(each.requirements.host, own);
        own.insert(names.output_build_time_names[staging].begin(), names.output_build_time_names[staging].end());
        written.insert(names.output_names[staging].begin(), names.output_names[staging].end());
      }
    }
    std::erase_if(used, [&](const std::string& key) { return !written.contains(key); });
    used.insert(own.begin(), own.end());
  } else {
    used.insert(names.build_time_names.begin(), names.build_time_names.end());
  }
  used.insert({"channel_sources", "channel_targets"});
  const auto& variant_keys = names.variant_keys_of(recipe.multi_output ? output : npos_output);
  used.insert(variant_keys.use_keys.begin(), variant_keys.use_keys.end());
  for (const auto& key : variant_keys.ignore_keys) used.erase(key);
  for (const auto& name : names.context_names) used.erase(name);
  return used;
}

std::expected<std::string, RecipeError> build_string_of(const Recipe& recipe, const Build& build,
                                                        const RecipeOptions& options, const std::string& prefix,
                                                        const std::string& hash, std::string_view file) {
  if (!build.string_template) return default_build_string(prefix, hash, build.number);
  EvaluationContext context;
  for (const auto& [name, value] : recipe.context) context.variables[name] = value;
  context.variables["hash"] = Value::string(hash);
  context.variables["build_number"] = Value::integer(build.number);
  context.variant = options.variant;
  context.target_platform = options.target_platform;
  context.build_platform = options.build_platform;
  context.host_platform = options.host_platform;
  context.environment = options.environment;
  context.limits = options.expression_limits;
  try {
    return render_template(*build.string_template, context).display();
  } catch (const ExpressionError& error) {
    return std::unexpected(variant_error(file, std::string(file) + ": build.string '" + *build.string_template +
                                                   "' cannot be rendered: " + error.what()));
  }
}

// Steps 1 and 2 of variants.hpp: the keys `names` may use that `config` has, combined.
std::expected<std::vector<Variant>, RecipeError> combinations_of(const RecipeNames& names, const VariantConfig& config,
                                                                 std::string_view file) {
  if (auto zipped = check_zip_lengths(config, file); !zipped) return std::unexpected(std::move(zipped.error()));
  std::set<std::string> used;
  for (const auto& name : names.names) {
    if (config.values.contains(name) && !names.context_names.contains(name)) used.insert(name);
  }
  for (const auto& key : names.all_use_keys()) {
    if (config.values.contains(key)) used.insert(key);
  }
  // ignore_keys leave the variant and its hash but, as in rattler-build,
  // still expand the matrix.
  used.erase("target_platform");
  // rattler-build keeps these in every variant (conda-forge's pinning sets them).
  for (const char* always : {"channel_sources", "channel_targets"}) {
    if (config.values.contains(always)) used.insert(always);
  }
  return combinations(config, used, file);
}

}  // namespace

std::expected<std::vector<Variant>, RecipeError> variant_combinations(std::string_view recipe_text,
                                                                      std::string_view file,
                                                                      const VariantConfig& config,
                                                                      const RecipeOptions& options) {
  auto names = scan_recipe(recipe_text, file, options);
  if (!names) return std::unexpected(std::move(names.error()));
  return combinations_of(*names, config, file);
}

std::expected<std::vector<std::string>, RecipeError> recipe_variable_names(std::string_view recipe_text,
                                                                           std::string_view file) {
  auto names = scan_recipe(recipe_text, file, RecipeOptions{});
  if (!names) return std::unexpected(std::move(names.error()));
  std::set<std::string> all = names->names;
  const auto use_keys = names->all_use_keys();
  all.insert(use_keys.begin(), use_keys.end());
  for (const auto& key : names->top_variant.ignore_keys) all.erase(key);
  return std::vector<std::string>(all.begin(), all.end());
}

std::expected<std::vector<RenderedVariant>, RecipeError> render_variants(std::string_view recipe_text,
                                                                         std::string_view file,
                                                                         const VariantConfig& config,
                                                                         const RecipeOptions& options) {
  auto names = scan_recipe(recipe_text, file, options);
  if (!names) return std::unexpected(std::move(names.error()));
  auto combined = combinations_of(*names, config, file);
  if (!combined) return std::unexpected(std::move(combined.error()));
  std::vector<RenderedVariant> rendered;
  rendered.reserve(combined->size());
  for (const auto& combination : *combined) {
    RecipeOptions read_options = options;
    read_options.variant.clear();
    for (const auto& [key, value] : combination) read_options.variant[key] = value.display();
    auto recipe = parse_recipe(recipe_text, file, read_options);
    if (!recipe) return std::unexpected(std::move(recipe.error()));
    const std::size_t first = rendered.size();
    auto add = [&](std::size_t output, const std::string& name, const std::string& version, const Build& build,
                   const Requirements& requirements) -> std::expected<void, RecipeError> {
      // Rendered from the recipe (a context value, a variant): it names the
      // package file and the build's work folders, so it is a name, never a
      // path (CEP 26's characters; no leading '.' or '-').
      const bool plain_name =
          !name.empty() && name.front() != '.' && name.front() != '-' &&
          std::all_of(name.begin(), name.end(), [](unsigned char c) {
            return std::isalnum(c) != 0 || c == '_' || c == '.' || c == '-';
          });
      if (!plain_name) {
        RecipeError error;
        error.file = std::string(file);
        error.offending = name;
        error.message = std::string(file) + ": the package name '" + name +
                        "' is not a package name (letters, digits and . - _; CEP 26): correct the recipe's name";
        return std::unexpected(std::move(error));
      }
      RenderedVariant each;
      each.output_name = name;
      each.output_index = output;
      const std::set<std::string> keys = keys_used_by(*recipe, *names, output);
      for (const auto& [key, value] : combination) {
        if (keys.contains(key)) each.variant[key] = value;
      }
      // rattler-build's variant always holds build_platform (not
      // host_platform): a build that reads it has it in its variant and hash.
      if (keys.contains("build_platform") && !each.variant.contains("build_platform")) {
        each.variant["build_platform"] = Value::string(options.build_platform);
      }
      // An exact pin on an earlier output of this combination puts that
      // output's "version build_string" in the variant, as rattler-build does.
      for (const auto* section : {&requirements.build, &requirements.host, &requirements.run}) {
        for (const auto& dependency : *section) {
          if (!dependency.pin || dependency.pin->kind != Pin::Kind::subpackage || !dependency.pin->exact) continue;
          for (std::size_t earlier = first; earlier < rendered.size(); ++earlier) {
            if (rendered[earlier].output_name == dependency.pin->name) {
              each.variant[dependency.pin->name] =
                  Value::string(rendered[earlier].output_version + " " + rendered[earlier].build_string);
            }
          }
        }
      }
      if (build.noarch == "python") each.variant.erase("python");
      each.variant["target_platform"] = Value::string(build.noarch ? "noarch" : options.target_platform);
      each.hash_input = variant_hash_input(each.variant);
      each.hash = variant_hash(each.hash_input);
      auto build_string = build_string_of(*recipe, build, read_options, variant_hash_prefix(each.variant, build.noarch),
                                          each.hash, file);
      if (!build_string) return std::unexpected(std::move(build_string.error()));
      // A recipe's build.string names the package file too: CEP 26's
      // characters (^[a-zA-Z0-9_.+]+$) and length, never a path.
      const bool plain_build_string =
          !build_string->empty() && build_string->size() <= 64 &&
          std::all_of(build_string->begin(), build_string->end(), [](unsigned char c) {
            return std::isalnum(c) != 0 || c == '_' || c == '.' || c == '+';
          });
      if (!plain_build_string) {
        RecipeError error;
        error.file = std::string(file);
        error.offending = *build_string;
        error.message = std::string(file) + ": the build string '" + *build_string + "' of " + name +
                        " is not a build string (at most 64 letters, digits and . _ +; CEP 26): correct the "
                        "recipe's build.string";
        return std::unexpected(std::move(error));
      }
      each.build_string = std::move(*build_string);
      each.output_version = version;
      rendered.push_back(std::move(each));
      return {};
    };
    if (!recipe->multi_output) {
      if (auto added = add(npos_output, recipe->name, recipe->version, recipe->build, recipe->requirements); !added) {
        return std::unexpected(std::move(added.error()));
      }
    } else {
      for (std::size_t output = 0; output < recipe->outputs.size(); ++output) {
        const Output& each = recipe->outputs[output];
        if (each.kind != Output::Kind::package) continue;
        // each.build is already merged over the top level's (the reader).
        if (auto added = add(output, each.name, each.version.value_or(recipe->version), each.build, each.requirements);
            !added) {
          return std::unexpected(std::move(added.error()));
        }
      }
    }
    std::vector<OutputIdentity> outputs;
    for (std::size_t index = first; index < rendered.size(); ++index) {
      outputs.push_back({rendered[index].output_name, rendered[index].output_version, rendered[index].build_string});
    }
    for (std::size_t index = first; index < rendered.size(); ++index) {
      rendered[index].recipe = *recipe;
      rendered[index].outputs = outputs;
    }
  }
  return rendered;
}

const Requirements& RenderedVariant::requirements() const {
  if (output_index < recipe.outputs.size()) return recipe.outputs[output_index].requirements;
  return recipe.requirements;
}

std::string dependency_text(const Dependency& dependency) {
  if (!dependency.pin) return dependency.spec;
  const Pin& pin = *dependency.pin;
  std::string text = (pin.kind == Pin::Kind::subpackage ? "pin_subpackage(" : "pin_compatible(") + pin.name;
  if (pin.exact) return text + ", exact=true)";
  if (pin.lower_bound) text += ", lower_bound=" + *pin.lower_bound;
  if (pin.upper_bound) text += ", upper_bound=" + *pin.upper_bound;
  if (pin.build) text += ", build=" + *pin.build;
  return text + ")";
}

}  // namespace gpuenv::recipe
