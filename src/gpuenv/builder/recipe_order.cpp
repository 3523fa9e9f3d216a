#include "gpuenv/builder/recipe_order.hpp"

#include <algorithm>
#include <map>
#include <optional>

#include "gpuenv/recipe/render.hpp"

namespace gpuenv::build {

namespace fs = std::filesystem;

namespace {

BuildError option_error(std::string message) { return BuildError{BuildErrorKind::option, std::move(message)}; }

bool hidden(const fs::path& path) {
  const auto name = path.filename().string();
  return !name.empty() && name.front() == '.';
}

// recipe.yaml files below `directory`, not descending into a recipe's own
// directory (its tests/ or src/ are not recipes of the repository).
void collect_recipes(const fs::path& directory, std::vector<fs::path>& found, int depth) {
  // A repository of feedstocks is a few levels deep; a link loop must not recurse forever.
  constexpr int max_depth = 8;
  if (depth > max_depth) return;
  std::error_code error;
  const auto own = directory / "recipe.yaml";
  if (fs::is_regular_file(own, error)) {
    found.push_back(own);
    return;
  }
  std::vector<fs::path> children;
  for (fs::directory_iterator it(directory, error), end; !error && it != end; it.increment(error)) {
    std::error_code kind_error;
    if (it->is_directory(kind_error) && !hidden(it->path())) children.push_back(it->path());
  }
  std::sort(children.begin(), children.end());
  for (const auto& child : children) collect_recipes(child, found, depth + 1);
}

}  // namespace

std::expected<std::vector<fs::path>, BuildError> find_recipe_files(const fs::path& argument) {
  std::error_code error;
  if (!fs::exists(argument, error)) {
    return std::unexpected(option_error("no recipe at " + argument.string() + ": give a recipe.yaml, a directory "
                                        "holding one, or a directory of recipes"));
  }
  if (!fs::is_directory(argument, error)) return std::vector<fs::path>{argument};
  std::vector<fs::path> found;
  collect_recipes(argument, found, 0);
  if (found.empty()) {
    return std::unexpected(option_error(argument.string() + " holds no recipe.yaml, neither itself nor in a "
                                        "directory below it"));
  }
  return found;
}

std::vector<NamedRecipe> recipes_named_by(const std::string& argument) {
  const auto given = recipe::recipe_file_path(argument);
  const auto found = find_recipe_files(argument);
  if (!found || (found->size() == 1 && found->front() == given)) return {{argument, given}};
  std::vector<NamedRecipe> named;
  for (const auto& file : *found) named.push_back({file.parent_path().string(), file});
  return named;
}

std::string requirement_name(const recipe::Dependency& dependency) {
  if (dependency.pin) return dependency.pin->name;
  const auto& spec = dependency.spec;
  auto name = spec.substr(0, spec.find_first_of(" \t=<>!~[;"));
  // channel::name and channel/subdir::name
  if (const auto colons = name.rfind("::"); colons != std::string::npos) name = name.substr(colons + 2);
  return name;
}

RecipeNeeds recipe_needs(const fs::path& file, const std::vector<recipe::RenderedVariant>& variants) {
  RecipeNeeds needs;
  needs.file = file;
  for (const auto& variant : variants) {
    needs.outputs.insert(variant.output_name);
    const auto& requirements = variant.requirements();
    for (const auto* group : {&requirements.build, &requirements.host, &requirements.run}) {
      for (const auto& dependency : *group) {
        auto name = requirement_name(dependency);
        // compiler('c')/('cxx') (gcc_<platform>, gxx_<platform>) export the
        // GCC runtime: a repository's recipe making libgcc/libstdcxx
        // (recipes/gcc-runtime) goes first, so the run export can be met.
        if (name.starts_with("gcc_") || name.starts_with("gxx_")) needs.needs.insert("libgcc");
        if (name.starts_with("gxx_")) needs.needs.insert("libstdcxx");
        if (!name.empty()) needs.needs.insert(std::move(name));
      }
    }
  }
  return needs;
}

std::vector<std::map<std::size_t, std::string>> recipe_dependencies(const std::vector<RecipeNeeds>& recipes) {
  std::map<std::string, std::size_t> maker;
  for (std::size_t i = 0; i < recipes.size(); ++i) {
    for (const auto& output : recipes[i].outputs) maker.emplace(output, i);  // the first recipe that makes it
  }
  std::vector<std::map<std::size_t, std::string>> dependencies(recipes.size());
  for (std::size_t i = 0; i < recipes.size(); ++i) {
    for (const auto& name : recipes[i].needs) {
      if (recipes[i].outputs.contains(name)) continue;  // its own output: built in the same run of the recipe
      const auto found = maker.find(name);
      if (found != maker.end()) dependencies[i].emplace(found->second, name);
    }
  }
  return dependencies;
}

namespace {

// One cycle among `left` (recipes that could not be ordered), as indexes.
std::vector<std::size_t> find_cycle(const std::vector<std::map<std::size_t, std::string>>& dependencies,
                                    const std::vector<bool>& left) {
  std::size_t start = 0;
  while (start < left.size() && !left[start]) ++start;
  // Walk dependencies among the left ones until a recipe repeats: every left
  // recipe has one, or it would have been ordered.
  std::vector<std::size_t> path;
  std::map<std::size_t, std::size_t> seen_at;
  std::size_t current = start;
  while (!seen_at.contains(current)) {
    seen_at.emplace(current, path.size());
    path.push_back(current);
    std::optional<std::size_t> next;
    for (const auto& [dependency, name] : dependencies[current]) {
      if (left[dependency]) {
        next = dependency;
        break;
      }
    }
    if (!next) return path;  // cannot happen; the path is still informative
    current = *next;
  }
  return std::vector<std::size_t>(path.begin() + static_cast<std::ptrdiff_t>(seen_at[current]), path.end());
}

}  // namespace

std::expected<std::vector<std::size_t>, BuildError> recipe_build_order(const std::vector<RecipeNeeds>& recipes) {
  const auto dependencies = recipe_dependencies(recipes);
  std::vector<std::size_t> order;
  std::vector<bool> left(recipes.size(), true);
  // Repeatedly take the first recipe (in the given order) whose needs are
  // all built: stable, so independent recipes keep the command line's order.
  while (order.size() < recipes.size()) {
    bool progressed = false;
    for (std::size_t i = 0; i < recipes.size(); ++i) {
      if (!left[i]) continue;
      const bool ready = std::none_of(dependencies[i].begin(), dependencies[i].end(),
                                      [&left](const auto& dependency) { return left[dependency.first]; });
      if (!ready) continue;
      order.push_back(i);
      left[i] = false;
      progressed = true;
      break;
    }
    if (!progressed) {
      const auto cycle = find_cycle(dependencies, left);
      std::string message = "the recipes need each other's packages in a cycle, so none of them can be built first: ";
      for (std::size_t k = 0; k < cycle.size(); ++k) {
        const auto from = cycle[k];
        const auto to = cycle[(k + 1) % cycle.size()];
        message += recipes[from].file.string() + " needs " + dependencies[from].at(to) + " (made by " +
                   recipes[to].file.string() + ")";
        message += k + 1 < cycle.size() ? "; " : "";
      }
      message += ". Break the cycle: build one of them against the channels' package (-c) first, or drop the "
                 "requirement that closes it";
      return std::unexpected(BuildError{BuildErrorKind::recipe, message});
    }
  }
  return order;
}

std::expected<std::vector<fs::path>, BuildError> ordered_recipe_files(const std::vector<fs::path>& files,
                                                                     const recipe::RenderRequest& render) {
  if (files.size() <= 1) return files;
  std::vector<RecipeNeeds> needs;
  for (const auto& file : files) {
    auto rendered = recipe::render_recipe_file(file, render);
    if (!rendered) {
      const bool override = rendered.error().file == "--variant";
      return std::unexpected(BuildError{override ? BuildErrorKind::variant_override : BuildErrorKind::recipe,
                                        rendered.error().message});
    }
    needs.push_back(recipe_needs(file, rendered->variants));
  }
  auto order = recipe_build_order(needs);
  if (!order) return std::unexpected(std::move(order.error()));
  std::vector<fs::path> ordered;
  for (const auto index : *order) ordered.push_back(files[index]);
  return ordered;
}

}  // namespace gpuenv::build
