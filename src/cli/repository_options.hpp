// The options `gpuenv build` and `gpuenv ci run` share for building several
// recipes into one output channel: --source-for, --source-archives and
// --skip-existing (docs/building-packages.md, "Repository builds").
#pragma once

#include <CLI/CLI.hpp>

#include <cstddef>
#include <expected>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace gpuenv::cli {

struct RepositoryArguments {
  std::vector<std::string> sources_for;      // --source-for RECIPE=PATH
  std::vector<std::string> source_archives;  // --source-archives DIR
  std::string skip_existing;                 // none | local; empty: the default for the number of recipes
};

void add_repository_options(CLI::App* command, RepositoryArguments& arguments);

// --source-for: each recipe file of `recipe_files` that an argument names
// (by its directory's name: recipes/zlib is zlib), with the PATH given.
// Error: an argument without '=' or a PATH, or naming no recipe given.
std::expected<std::map<std::filesystem::path, std::string>, std::string> sources_for_recipes(
    const std::vector<std::string>& arguments, const std::vector<std::filesystem::path>& recipe_files);

// --skip-existing: none, or local (the output channel); the default is
// local for a whole repository (several recipes), none for one recipe.
std::expected<bool, std::string> skip_existing_of(const std::string& value, std::size_t recipes);

}  // namespace gpuenv::cli
