// What `gpuenv build --json` prints (docs/json-output.md): the packages
// built, or with --dry-run each recipe's planned variants and their build
// and host environments; on a failure also the error, after what was done.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "gpuenv/builder/build_plan.hpp"
#include "gpuenv/builder/build_recipe.hpp"

namespace gpuenv::build {

struct PlannedRecipe {
  std::filesystem::path recipe_file;
  RecipePlan plan;
};

// {"success", ["error"], "recipes": [{"recipe", "skipped", "variants": [{name,
// version, build_string, subdir, variant, solved, build, host, and for an
// unsolved one failed_environment, error, explanation}]}]}. Success: no
// error and every environment of every variant solves.
std::string plan_report_json(const std::vector<PlannedRecipe>& planned, const std::optional<std::string>& error);

// {"success", ["error"], "packages": [{name, version, build_string, package,
// log, files, tests, cuda_check, machine_compilers, seconds, script_seconds,
// elf_seconds}]}: `built` in order, also those built before the error.
std::string build_report_json(const std::vector<BuiltVariant>& built, const std::optional<std::string>& error);
// The same with "skipped": [{name, version, build_string, package}]: the
// variants not built because their package was in the output channel.
std::string build_report_json(const std::vector<BuiltVariant>& built, const std::vector<SkippedVariant>& skipped,
                              const std::optional<std::string>& error);

}  // namespace gpuenv::build
