// How `gpuenv build --dry-run` prints a plan (build/build_plan.hpp): per
// variant, the packages its build and host environments would get, or why
// one cannot be solved (the solver's explanation); as text or as JSON
// (docs/json-output.md).
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>

#include "gpuenv/builder/build_plan.hpp"

namespace gpuenv::cli {

void print_recipe_plan(const std::filesystem::path& recipe_file, const build::RecipePlan& plan);

// {"recipe", "skipped", "variants": [{name, version, build_string, subdir,
// variant, solved, build, host, failed_environment, error, explanation}]}
nlohmann::ordered_json recipe_plan_json(const std::filesystem::path& recipe_file, const build::RecipePlan& plan);

}  // namespace gpuenv::cli
