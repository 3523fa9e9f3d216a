#include "gpuenv/recipe/render.hpp"

#include <nlohmann/json.hpp>
#include <system_error>
#include <utility>

#include "gpuenv/specs/platform.hpp"
#include "gpuenv/util/environment.hpp"
#include "gpuenv/util/file_io.hpp"

namespace gpuenv::recipe {

std::filesystem::path recipe_file_path(const std::filesystem::path& argument) {
  std::error_code ignored;
  return std::filesystem::is_directory(argument, ignored) ? argument / "recipe.yaml" : argument;
}

std::optional<std::filesystem::path> recipe_variant_file(const std::filesystem::path& recipe) {
  // rattler-build looks for these two names, in this order, and takes the first.
  for (const char* name : {"variants.yaml", "conda_build_config.yaml"}) {
    const auto candidate = recipe.parent_path() / name;
    std::error_code ignored;
    if (std::filesystem::is_regular_file(candidate, ignored)) return candidate;
  }
  return std::nullopt;
}

std::expected<VariantConfig, RecipeError> render_variant_config(const std::filesystem::path& recipe,
                                                                const RenderRequest& request,
                                                                std::vector<std::filesystem::path>* files_read) {
  std::vector<std::filesystem::path> files;
  // The recipe's own file first so that files given on the command line win,
  // as in rattler-build.
  if (request.use_recipe_variant_file) {
    if (auto local = recipe_variant_file(recipe)) files.push_back(*local);
  }
  files.insert(files.end(), request.variant_files.begin(), request.variant_files.end());
  if (files_read != nullptr) *files_read = files;

  VariantReadOptions variant_options;
  variant_options.target_platform = request.target_platform;
  variant_options.build_platform = request.build_platform;
  variant_options.environment = request.environment;
  VariantConfig config;
  for (const auto& file : files) {
    auto read = read_variant_config(file, variant_options);
    if (!read) return std::unexpected(std::move(read.error()));
    merge_variant_config(config, *read);
  }
  if (auto applied = apply_variant_overrides(config, request.overrides); !applied) {
    return std::unexpected(std::move(applied.error()));
  }
  return config;
}

std::expected<RenderedRecipe, RecipeError> render_recipe_file(const std::filesystem::path& recipe,
                                                              const RenderRequest& request) {
  RecipeOptions recipe_options;
  recipe_options.target_platform = request.target_platform;
  recipe_options.host_platform = request.target_platform;
  recipe_options.build_platform = request.build_platform;
  recipe_options.environment = request.environment;

  auto text = util::read_text_file_at_most(recipe, recipe_options.max_file_bytes);
  if (!text) {
    RecipeError error;
    error.kind = text.error().kind == util::FileReadError::Kind::too_large ? RecipeError::Kind::too_large
                                                                           : RecipeError::Kind::unreadable;
    error.file = recipe.string();
    error.message = text.error().message;
    return std::unexpected(std::move(error));
  }

  RenderedRecipe rendered;
  auto config = render_variant_config(recipe, request, &rendered.variant_files);
  if (!config) return std::unexpected(std::move(config.error()));
  auto variants = render_variants(*text, recipe.string(), *config, recipe_options);
  if (!variants) return std::unexpected(std::move(variants.error()));
  rendered.variants = std::move(*variants);
  rendered.pin_run_as_build = config->pin_run_as_build;
  return rendered;
}

RenderRequest render_request_on_this_machine(std::vector<std::string> overrides,
                                             const std::vector<std::string>& variant_files,
                                             const std::string& target_platform) {
  RenderRequest request;
  request.overrides = std::move(overrides);
  request.variant_files.assign(variant_files.begin(), variant_files.end());
  request.build_platform = specs::Platform::current().str();
  request.target_platform = target_platform.empty() ? request.build_platform : target_platform;
  request.environment = util::environment_variables();
  return request;
}

std::vector<RequirementSection> requirement_sections(const Requirements& requirements) {
  return {{"build", &requirements.build},
          {"host", &requirements.host},
          {"run", &requirements.run},
          {"run_constraints", &requirements.run_constraints}};
}

namespace {

nlohmann::ordered_json value_json(const Value& value) {
  switch (value.kind()) {
    case Value::Kind::none:
    case Value::Kind::undefined: return nullptr;
    case Value::Kind::boolean: return value.as_bool();
    case Value::Kind::integer: return value.as_integer();
    case Value::Kind::string: return value.as_string();
    default: return value.display();
  }
}

}  // namespace

std::string rendered_recipe_json(const std::string& recipe, const std::string& target_platform,
                                 const RenderedRecipe& rendered) {
  using json = nlohmann::ordered_json;
  json files = json::array();
  for (const auto& file : rendered.variant_files) files.push_back(file.string());
  json variants = json::array();
  for (const auto& each : rendered.variants) {
    json variant = json::object();
    for (const auto& [key, value] : each.variant) variant[key] = value_json(value);
    json requirements = json::object();
    for (const auto& [name, dependencies] : requirement_sections(each.requirements())) {
      json list = json::array();
      for (const auto& dependency : *dependencies) list.push_back(dependency_text(dependency));
      requirements[name] = std::move(list);
    }
    variants.push_back({{"name", each.output_name},
                        {"version", each.output_version},
                        {"build_string", each.build_string},
                        {"hash", each.hash},
                        {"variant", std::move(variant)},
                        {"requirements", std::move(requirements)}});
  }
  return json{{"schema_version", 1},
              {"recipe", recipe},
              {"target_platform", target_platform},
              {"variant_files", std::move(files)},
              {"variants", std::move(variants)}}
      .dump(2);
}

}  // namespace gpuenv::recipe
