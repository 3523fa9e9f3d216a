// How `gpuenv build --dry-run` prints a plan (builder/build_plan.hpp): per
// variant, the packages its build and host environments would get, or why
// one cannot be solved (the solver's explanation). The JSON form is
// builder/build_report.hpp's.
#pragma once

#include <filesystem>

#include "gpuenv/builder/build_plan.hpp"

namespace gpuenv::cli {

void print_recipe_plan(const std::filesystem::path& recipe_file, const build::RecipePlan& plan);

}  // namespace gpuenv::cli
