#include "gpuenv/ci/ci_matrix.hpp"

#include <fmt/core.h>
#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>
#include <system_error>

#include "gpuenv/ci/recipe_graph.hpp"
#include "gpuenv/cuda_binary/device_code.hpp"
#include "gpuenv/package/hashing.hpp"
#include "gpuenv/recipe/render.hpp"
#include "gpuenv/specs/package_filename.hpp"
#include "gpuenv/util/file_io.hpp"

namespace gpuenv::ci {
namespace {

namespace fs = std::filesystem;

constexpr std::size_t max_recipes = 5000;
constexpr std::string_view image_prefix = "gpuenv/ci-";  // docker_image of ci-images/<name>

CiError error(CiError::Kind kind, std::string input, std::string message) {
  return CiError{kind, std::move(input), std::move(message)};
}

// Paths go onto CI shell lines and into GitHub expressions' reach: keep
// them to characters that mean nothing to either.
bool is_shell_safe_path(std::string_view path) {
  return !path.empty() && path.size() <= 1000 && path.front() != '-' &&
         std::all_of(path.begin(), path.end(), [](char c) {
           return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '/' || c == '+' ||
                  c == '-';
         });
}

CiError unsafe_path(const std::string& path) {
  return error(CiError::Kind::invalid, path,
               fmt::format("the path '{}' cannot go onto a CI shell line: rename it to letters, digits and ._/+-",
                           path));
}

// GitHub job ids: letters, digits, '-' and '_', starting with a letter or '_'.
std::string job_id(const std::string& package, const std::string& hash) {
  std::string id;
  for (char c : package) id += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_') ? c : '_';
  if (id.empty() || !std::isalpha(static_cast<unsigned char>(id.front()))) id = "pkg-" + id;
  return id + "-" + hash;
}

std::string recipe_hash(const fs::path& recipe_file) {
  auto text = util::read_text_file_at_most(recipe_file, 1u << 20);
  return text ? package::sha256_hex(*text).substr(0, 16) : std::string("unreadable");
}

// The job's `gpuenv build --variant ...` must build exactly the variant it
// is named after: rendered with its overrides, the recipe gives that
// package once, with the same build string.
std::expected<void, CiError> overrides_select_only(const fs::path& recipe_file, const recipe::RenderRequest& render,
                                                   const std::vector<std::string>& overrides,
                                                   const recipe::RenderedVariant& variant) {
  auto request = render;
  request.overrides = overrides;
  auto rendered = recipe::render_recipe_file(recipe_file, request);
  std::vector<std::string> builds;
  if (rendered) {
    for (const auto& each : rendered->variants) {
      if (each.output_name == variant.output_name) builds.push_back(each.build_string);
    }
  }
  if (builds.size() == 1 && builds.front() == variant.build_string) return {};
  return std::unexpected(error(
      CiError::Kind::render, recipe_file.generic_string(),
      fmt::format("{}: the overrides {} do not select {} {} alone ({}); the job could not build just that variant",
                  recipe_file.generic_string(), fmt::join(overrides, " "), variant.output_name, variant.build_string,
                  rendered ? fmt::format("they give {}", fmt::join(builds, ", ")) : rendered.error().message)));
}

// The final job's GPUs as the compiler names them (sm_86), sorted and
// once each: they go onto a shell line, so only what parses as an
// architecture is taken.
std::expected<std::vector<std::string>, CiError> checked_gpus(const std::vector<std::string>& given) {
  if (given.empty()) return std::vector<std::string>(std::begin(kDefaultCheckGpus), std::end(kDefaultCheckGpus));
  std::set<cuda_binary::GpuArchitecture> architectures;
  if (given.size() > 64) {
    return std::unexpected(error(CiError::Kind::too_large, "--check-gpu",
                                 fmt::format("{} GPUs to check the channel for, more than 64", given.size())));
  }
  for (const auto& text : given) {
    const auto architecture = cuda_binary::parse_gpu_architecture(text);
    if (!architecture) {
      return std::unexpected(error(CiError::Kind::invalid, "--check-gpu",
                                   fmt::format("'{}' is not a GPU architecture: give it as sm_86, 86 or 8.6",
                                               specs::printable(text.substr(0, 80)))));
    }
    architectures.insert(*architecture);
  }
  std::vector<std::string> names;
  for (const auto& architecture : architectures) names.push_back(architecture.sm_name());
  return names;
}

}  // namespace

std::expected<std::vector<fs::path>, CiError> find_recipes(const fs::path& directory) {
  std::error_code code;
  if (!fs::is_directory(directory, code)) {
    return std::unexpected(error(CiError::Kind::unreadable, directory.string(),
                                 fmt::format("the recipes folder {} does not exist or is not a folder; pass "
                                             "--recipes DIR",
                                             directory.string())));
  }
  std::vector<fs::path> recipes;
  fs::recursive_directory_iterator it(directory, fs::directory_options::skip_permission_denied, code), end;
  for (; !code && it != end; it.increment(code)) {
    if (it.depth() > 16) it.disable_recursion_pending();
    if (it->path().filename() == "recipe.yaml" && it->is_regular_file(code) && !it->is_symlink(code)) {
      recipes.push_back(it->path());
      if (recipes.size() > max_recipes) {
        return std::unexpected(error(CiError::Kind::too_large, directory.string(),
                                     fmt::format("{} holds more than {} recipes", directory.string(), max_recipes)));
      }
    }
  }
  if (code) {
    return std::unexpected(error(CiError::Kind::unreadable, directory.string(),
                                 fmt::format("cannot read the recipes folder {}: {}", directory.string(),
                                             code.message())));
  }
  std::sort(recipes.begin(), recipes.end());
  return recipes;
}

std::expected<CiMatrix, CiError> build_matrix(const MatrixRequest& request) {
  auto images = read_image_definitions(request.images_dir);
  if (!images) return std::unexpected(images.error());
  auto recipes = find_recipes(request.recipes_dir);
  if (!recipes) return std::unexpected(recipes.error());

  recipe::RenderRequest render;
  render.variant_files = request.variant_files;
  render.target_platform = request.target_platform;
  render.build_platform = request.target_platform;
  render.environment = request.environment;

  CiMatrix matrix;
  auto check_gpus = checked_gpus(request.check_gpus);
  if (!check_gpus) return std::unexpected(check_gpus.error());
  matrix.check_gpus = std::move(*check_gpus);
  for (const auto& file : request.variant_files) {
    if (!is_shell_safe_path(file.generic_string())) return std::unexpected(unsafe_path(file.generic_string()));
    matrix.variant_files.push_back(file.generic_string());
  }
  if (!images->empty()) {
    const auto cpu = std::find_if(images->begin(), images->end(), [](const auto& image) { return !image.cuda; });
    matrix.index_image = std::string(image_prefix) + (cpu != images->end() ? *cpu : images->front()).name;
  }
  std::vector<RecipeNode> nodes;
  std::vector<std::vector<CiJob>> jobs_by_recipe;
  std::set<std::string> ids;
  for (const auto& recipe_file : *recipes) {
    const auto file = recipe_file.generic_string();
    if (!is_shell_safe_path(file)) return std::unexpected(unsafe_path(file));
    auto config = recipe::render_variant_config(recipe_file, render);
    if (!config) return std::unexpected(error(CiError::Kind::render, file, config.error().message));
    auto rendered = recipe::render_recipe_file(recipe_file, render);
    if (!rendered) return std::unexpected(error(CiError::Kind::render, file, rendered.error().message));
    RecipeNode node{file, {}, {}};
    std::vector<CiJob> jobs;
    const auto hash = recipe_hash(recipe_file);
    for (const auto& variant : rendered->variants) {
      auto image = image_for_variant(*config, variant.variant, *images, file);
      if (!image) return std::unexpected(image.error());
      auto arguments = variant_overrides(*config, variant.variant, file);
      if (!arguments) return std::unexpected(arguments.error());
      // Two zip columns can give the same used values (a CPU recipe using
      // only c_compiler_version): one package, so one job.
      if (std::any_of(jobs.begin(), jobs.end(), [&](const CiJob& other) {
            return other.package == variant.output_name && other.build_string == variant.build_string &&
                   other.variant_arguments == *arguments;
          })) {
        continue;
      }
      if (auto selected = overrides_select_only(recipe_file, render, *arguments, variant); !selected) {
        return std::unexpected(selected.error());
      }
      CiJob job;
      job.id = job_id(variant.output_name, variant.hash);
      for (int suffix = 2; ids.contains(job.id); ++suffix) {
        job.id = fmt::format("{}-{}", job_id(variant.output_name, variant.hash), suffix);
      }
      ids.insert(job.id);
      job.recipe = file;
      job.recipe_hash = hash;
      job.package = variant.output_name;
      job.version = variant.output_version;
      job.build_string = variant.build_string;
      job.image = (*image)->name;
      job.docker_image = std::string(image_prefix) + (*image)->name;
      job.variant_arguments = std::move(*arguments);
      node.outputs.insert(variant.output_name);
      const auto& requirements = variant.requirements();
      for (const auto* section : {&requirements.build, &requirements.host}) {
        for (const auto& dependency : *section) node.requires_names.insert(dependency_name(dependency));
      }
      jobs.push_back(std::move(job));
    }
    nodes.push_back(std::move(node));
    jobs_by_recipe.push_back(std::move(jobs));
  }
  auto order = order_recipes(nodes);
  if (!order) return std::unexpected(order.error());
  for (const auto index : order->order) {
    for (auto& job : jobs_by_recipe[index]) {
      for (const auto needed : order->needs[index]) {
        for (const auto& other : jobs_by_recipe[needed]) job.needs.push_back(other.id);
      }
      matrix.jobs.push_back(job);
    }
  }
  return matrix;
}

std::vector<std::filesystem::path> variant_files_or_default(const std::vector<std::string>& given) {
  if (given.empty()) return {"metadata/variants/variants.yaml"};
  return {given.begin(), given.end()};
}

std::string matrix_json(const CiMatrix& matrix) {
  using json = nlohmann::ordered_json;
  json jobs = json::array();
  for (const auto& job : matrix.jobs) {
    jobs.push_back({{"id", job.id},
                    {"recipe", job.recipe},
                    {"recipe_hash", job.recipe_hash},
                    {"package", job.package},
                    {"version", job.version},
                    {"build_string", job.build_string},
                    {"image", job.image},
                    {"docker_image", job.docker_image},
                    {"variant", job.variant_arguments},
                    {"needs", job.needs}});
  }
  return json{{"schema_version", 1},
              {"variant_files", matrix.variant_files},
              {"index_image", matrix.index_image},
              {"check_gpus", matrix.check_gpus},
              {"jobs", std::move(jobs)}}
      .dump(2);
}

}  // namespace gpuenv::ci
