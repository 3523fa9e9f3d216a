#include "gpuenv/builder/build_repository.hpp"

#include <fmt/core.h>

#include <chrono>

#include "gpuenv/builder/recipe_order.hpp"

namespace gpuenv::build {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

}  // namespace

const char* outcome_status_name(RecipeOutcome::Status status) {
  switch (status) {
    case RecipeOutcome::Status::built: return "built";
    case RecipeOutcome::Status::skipped: return "skipped";
    case RecipeOutcome::Status::failed: return "failed";
    case RecipeOutcome::Status::not_built: return "not built";
  }
  return "not built";
}

RepositoryBuildResult build_repository(const std::vector<std::filesystem::path>& recipe_files,
                                       const RecipeBuildRequest& request, BuildObserver& observer) {
  RepositoryBuildResult result;
  auto ordered = ordered_recipe_files(recipe_files, request.render);
  if (!ordered) {
    result.error = std::move(ordered.error());
    return result;
  }
  for (auto& file : *ordered) {
    auto& outcome = result.recipes.emplace_back();
    outcome.recipe_file = std::move(file);
  }

  const auto total = result.recipes.size();
  for (std::size_t k = 0; k < total; ++k) {
    auto& outcome = result.recipes[k];
    if (total > 1) observer.step(fmt::format("[{}/{}] recipe {}", k + 1, total, outcome.recipe_file.string()));
    const auto start = Clock::now();
    auto built = [&] {
      const auto override = request.recipe_source_overrides.find(outcome.recipe_file);
      if (override == request.recipe_source_overrides.end()) return build_recipe(outcome.recipe_file, request, observer);
      auto with_source = request;
      with_source.source_override = override->second;
      return build_recipe(outcome.recipe_file, with_source, observer);
    }();
    outcome.seconds = seconds_since(start);
    outcome.built = std::move(built.built);
    outcome.skipped = std::move(built.skipped);
    if (built.error) {
      outcome.status = RecipeOutcome::Status::failed;
      result.error = std::move(built.error);
      return result;  // the rest stay not_built
    }
    outcome.status = outcome.built.empty() && !outcome.skipped.empty() ? RecipeOutcome::Status::skipped
                                                                       : RecipeOutcome::Status::built;
    if (total > 1) {
      observer.step(fmt::format("[{}/{}] {}: {} built, {} skipped in {:.1f} s", k + 1, total,
                                outcome.recipe_file.string(), outcome.built.size(), outcome.skipped.size(),
                                outcome.seconds));
    }
  }
  return result;
}

}  // namespace gpuenv::build
