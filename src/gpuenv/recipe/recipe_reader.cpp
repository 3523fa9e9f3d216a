#include "gpuenv/recipe/recipe_reader.hpp"

#include <set>

#include "gpuenv/recipe/recipe_fields.hpp"
#include "gpuenv/recipe/recipe_node.hpp"
#include "gpuenv/recipe/recipe_sections.hpp"
#include "gpuenv/specs/spec_error.hpp"
#include "gpuenv/specs/version.hpp"

namespace gpuenv::recipe::detail {
namespace {

// A context value: scalars as rattler-build types them (null is the text
// "null"), lists of scalars as lists.
Value context_value(const RecipeNode& node, const ReadState& state) {
  switch (node.kind) {
    case RecipeNode::Kind::null: return Value::string("null");
    case RecipeNode::Kind::scalar: return node.value;
    case RecipeNode::Kind::sequence: {
      ValueList items;
      for (const auto& item : node.items) {
        if (item.kind != RecipeNode::Kind::scalar) {
          state.fail(RecipeError::Kind::invalid_value, item.position, "", "a context list holds only scalars");
        }
        items.push_back(item.value);
      }
      return Value::list(std::move(items));
    }
    case RecipeNode::Kind::map: break;
  }
  state.fail(RecipeError::Kind::invalid_value, node.position, "", "a context value is a scalar or a list of scalars");
}

// extra: free-form, kept as values.
Value free_form_value(const RecipeNode& node) {
  switch (node.kind) {
    case RecipeNode::Kind::null: return Value::none();
    case RecipeNode::Kind::scalar: return node.value;
    case RecipeNode::Kind::sequence: {
      ValueList items;
      for (const auto& item : node.items) items.push_back(free_form_value(item));
      return Value::list(std::move(items));
    }
    case RecipeNode::Kind::map: {
      ValueMap entries;
      for (const auto& [key, value] : node.entries) entries.emplace_back(key, free_form_value(value));
      return Value::map(std::move(entries));
    }
  }
  return Value::none();
}


void check_version(const RecipeNode& node, const std::string& version, const ReadState& state) {
  try {
    (void)specs::Version::parse(version);
  } catch (const specs::SpecError& error) {
    state.fail(RecipeError::Kind::invalid_value, node.position, version, "invalid version (" + error.reason() + "):");
  }
}

// package: {name, version} (or recipe: for multi-output recipes, where both may be absent).
void read_name_and_version(const RecipeNode& node, std::string_view section, bool required, std::string& name,
                           std::optional<std::string>& version, const ReadState& state) {
  expect_map(node, section, state);
  check_keys(node, {"name", "version"}, section, state);
  const RecipeNode* name_node = node.find("name");
  const RecipeNode* version_node = node.find("version");
  if (required && name_node == nullptr) state.fail(RecipeError::Kind::missing_field, node.position, "name", std::string(section) + " needs");
  if (name_node != nullptr) {
    name = text_of(*name_node, std::string(section) + ".name", state);
    if (name.empty()) state.fail(RecipeError::Kind::invalid_value, name_node->position, "", "a package name cannot be empty");
  }
  if (version_node != nullptr && version_node->kind != RecipeNode::Kind::null) {
    version = text_of(*version_node, std::string(section) + ".version", state);
    check_version(*version_node, *version, state);
  }
}

Output read_output(const RecipeNode& node, const ReadState& state, const Build& top_level_build) {
  expect_map(node, "an output", state);
  Output output;
  output.position = node.position;
  const RecipeNode* package = node.find("package");
  const RecipeNode* staging = node.find("staging");
  if ((package == nullptr) == (staging == nullptr)) {
    state.fail(RecipeError::Kind::missing_field, node.position, "", "an output has either 'package' or 'staging'");
  }
  if (staging != nullptr) {
    output.kind = Output::Kind::staging;
    check_keys(node, {"staging", "inherit", "source", "requirements", "build"}, "a staging output", state);
    expect_map(*staging, "staging", state);
    check_keys(*staging, {"name"}, "staging", state);
    std::optional<std::string> no_version;
    read_name_and_version(*staging, "staging", true, output.name, no_version, state);
  } else {
    check_keys(node, {"package", "inherit", "source", "build", "requirements", "tests", "about"}, "an output", state);
    read_name_and_version(*package, "package", true, output.name, output.version, state);
  }
  if (const RecipeNode* inherit = node.find("inherit"); inherit != nullptr && inherit->kind != RecipeNode::Kind::null) {
    if (inherit->kind == RecipeNode::Kind::map) {
      check_keys(*inherit, {"from", "run_exports"}, "inherit", state);
      const RecipeNode* from = inherit->find("from");
      if (from == nullptr) state.fail(RecipeError::Kind::missing_field, inherit->position, "from", "inherit needs");
      output.inherit_from = text_of(*from, "inherit.from", state);
      if (const RecipeNode* run_exports = inherit->find("run_exports")) {
        output.inherit_run_exports = bool_of(*run_exports, "inherit.run_exports", state);
      }
    } else {
      output.inherit_from = text_of(*inherit, "inherit", state);
    }
  }
  const bool is_staging = output.kind == Output::Kind::staging;
  output.sources = read_sources(node.find("source"), state);
  output.build = read_build(node.find("build"), is_staging, state, is_staging ? nullptr : &top_level_build);
  output.requirements = read_requirements(node.find("requirements"), is_staging, state);
  output.tests = read_tests(node.find("tests"), state);
  if (const RecipeNode* about = node.find("about")) output.about = read_about(about, state);
  return output;
}

void check_output_names(const Recipe& recipe, const ReadState& state) {
  std::set<std::string> names;
  for (const auto& output : recipe.outputs) {
    if (!names.insert(output.name).second) {
      state.fail(RecipeError::Kind::invalid_value, output.position, output.name, "two outputs have the name");
    }
  }
  for (const auto& output : recipe.outputs) {
    if (output.inherit_from && !names.contains(*output.inherit_from)) {
      state.fail(RecipeError::Kind::invalid_value, output.position, *output.inherit_from, "inherit names no output:");
    }
  }
}

}  // namespace

void read_context(const RecipeNode* node, Recipe& recipe, ReadState& state) {
  if (node == nullptr || node->kind == RecipeNode::Kind::null) return;
  expect_map(*node, "context", state);
  for (const auto& [key, value] : node->entries) {
    // Each value sees the ones before it, as in rattler-build.
    const Value evaluated = context_value(resolve(value, state, key), state);
    state.context.variables.insert_or_assign(key, evaluated);
    recipe.context.emplace_back(key, evaluated);
  }
}

ReadState read_state(std::string_view file, std::string_view text, const RecipeOptions& options) {
  ReadState state;
  state.file = std::string(file);
  state.text = text;
  state.max_depth = options.max_depth;
  state.context.variant = options.variant;
  state.context.target_platform = options.target_platform;
  state.context.build_platform = options.build_platform;
  state.context.host_platform = options.host_platform;
  state.context.environment = options.environment;
  state.context.limits = options.expression_limits;
  return state;
}

Recipe read_recipe_document(const YAML::Node& root, std::string_view file, std::string_view text,
                            const RecipeOptions& options) {
  ReadState state = read_state(file, text, options);
  std::set<std::string> used_names;
  state.context.used_names = &used_names;

  const RecipeNode document = copy_yaml(root, state);
  if (document.kind != RecipeNode::Kind::map) {
    state.fail(RecipeError::Kind::invalid_value, document.position, "", "a recipe is a mapping of sections");
  }
  check_keys(document, {"$schema", "schema_version", "context", "package", "recipe", "source", "build", "requirements",
                        "tests", "about", "extra", "outputs"},
             "the recipe", state);
  Recipe recipe;
  read_context(document.find("context"), recipe, state);
  RecipeNode sections;
  sections.kind = RecipeNode::Kind::map;
  for (const auto& [key, value] : document.entries) {
    if (key != "context") sections.entries.push_back(RecipeEntry{key, resolve(value, state, key)});
  }
  if (const RecipeNode* version = sections.find("schema_version")) {
    recipe.schema_version = integer_of(*version, "schema_version", state);
    if (recipe.schema_version != 1) {
      state.fail(RecipeError::Kind::invalid_value, version->position, version->text, "only schema_version 1 is known, found");
    }
  }
  const RecipeNode* package = sections.find("package");
  const RecipeNode* outputs = sections.find("outputs");
  std::optional<std::string> version;
  // Before the outputs: each output's build is merged over it.
  recipe.build = read_build(sections.find("build"), false, state);
  if (outputs != nullptr) {
    recipe.multi_output = true;
    if (package != nullptr) {
      state.fail(RecipeError::Kind::invalid_value, package->position, "package",
                 "a recipe with outputs names itself with 'recipe:', not");
    }
    if (const RecipeNode* top = sections.find("recipe")) read_name_and_version(*top, "recipe", false, recipe.name, version, state);
    if (outputs->kind != RecipeNode::Kind::sequence) {
      state.fail(RecipeError::Kind::invalid_value, outputs->position, outputs->text, "outputs must be a list, found");
    }
    for (const auto& output : outputs->items) {
      if (output.kind != RecipeNode::Kind::null) recipe.outputs.push_back(read_output(output, state, recipe.build));
    }
    check_output_names(recipe, state);
    for (const auto& output : recipe.outputs) {
      if (output.kind == Output::Kind::package && !output.version && !version) {
        state.fail(RecipeError::Kind::missing_field, output.position, "version",
                   "a package output needs a version (its own or the recipe's):");
      }
    }
  } else {
    if (const RecipeNode* top = sections.find("recipe")) {
      state.fail(RecipeError::Kind::invalid_value, top->position, "recipe", "a recipe without outputs uses 'package:', not");
    }
    if (package == nullptr) state.fail(RecipeError::Kind::missing_field, document.position, "package", "the recipe needs");
    read_name_and_version(*package, "package", true, recipe.name, version, state);
    if (!version) state.fail(RecipeError::Kind::missing_field, package->position, "version", "package needs");
  }
  recipe.version = version.value_or("");
  recipe.sources = read_sources(sections.find("source"), state);
  recipe.requirements = read_requirements(sections.find("requirements"), false, state);
  recipe.tests = read_tests(sections.find("tests"), state);
  recipe.about = read_about(sections.find("about"), state);
  if (const RecipeNode* extra = sections.find("extra")) recipe.extra = free_form_value(*extra);
  recipe.used_names.assign(used_names.begin(), used_names.end());
  return recipe;
}

}  // namespace gpuenv::recipe::detail
