// build_repository(files, request, observer): several recipes (a whole
// recipes/ directory) into one output channel -- each rendered, put in
// build order by what they need of each other's outputs (recipe_order.hpp),
// then built one after the other with build_recipe, so a later recipe's
// build and host environments solve against the packages the earlier ones
// put into the channel. The first failure stops the run; what was built
// stays in the channel, so a re-run with skip_existing starts where it
// stopped.
#pragma once

#include <filesystem>
#include <optional>
#include <vector>

#include "gpuenv/builder/build_recipe.hpp"

namespace gpuenv::build {

struct RecipeOutcome {
  enum class Status { built, skipped, failed, not_built };
  std::filesystem::path recipe_file;
  Status status = Status::not_built;  // built: at least one variant built; skipped: every variant existed
  std::vector<BuiltVariant> built;
  std::vector<SkippedVariant> skipped;
  double seconds = 0;
};

struct RepositoryBuildResult {
  std::vector<RecipeOutcome> recipes;  // in build order (all of them once ordering succeeded)
  std::optional<BuildError> error;     // the first failure, or why no order could be found
};

// `request.timestamp` 0 lets each recipe take SOURCE_DATE_EPOCH or its own
// file's time. Progress goes to observer.step: "[k/n] recipe ...", and each
// recipe's time when it ends.
RepositoryBuildResult build_repository(const std::vector<std::filesystem::path>& recipe_files,
                                       const RecipeBuildRequest& request, BuildObserver& observer);

const char* outcome_status_name(RecipeOutcome::Status status);

}  // namespace gpuenv::build
