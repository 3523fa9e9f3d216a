// `gpuenv generate-recipe pypi NAME[==VERSION]...`: for each package, PyPI's
// project JSON, its sdist (downloaded, verified and unpacked by the
// builder's source fetch: the same hostile-archive rules as `gpuenv build`),
// then the recipe (pypi_recipe.hpp). With `recursive`, every host and run
// requirement that no channel has and no recipe in the output directory
// makes is generated too. Nothing is written unless every recipe could be
// made: one failure names its package and leaves the output directory as
// it was.
#pragma once

#include <expected>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuenv/generator/pypi_recipe.hpp"
#include "gpuenv/net/client_settings.hpp"

namespace gpuenv::generate {

struct PackageRequest {
  std::string name;
  std::optional<std::string> version;
  std::string constraint;  // --recursive: the conda version constraint a recipe needs it to meet
  std::string needed_by;   // --recursive: the recipe that needs it; empty: asked for by the user
};

// "toolz", "toolz==1.0.0"; an error for anything else ("toolz>=1").
std::expected<PackageRequest, std::string> parse_package_request(std::string_view text);

struct GenerateRequest {
  std::vector<PackageRequest> packages;
  std::filesystem::path output_dir;  // recipes go to <output_dir>/<conda name>/recipe.yaml
  std::string index_url = "https://pypi.org/pypi";
  net::ClientSettings client;
  std::filesystem::path cache_dir;   // sdists are kept in <cache_dir>/build-sources like a build's
  const CondaNames* names = nullptr;
  bool recursive = false;
  bool overwrite = false;  // replace recipes that exist (else: an error naming them)
  // Whether the channels already have a package matching this conda spec
  // ("flit-core >=3.11,<4"; recursive only).
  std::function<bool(const std::string&)> in_channels;
  std::function<void(const std::string&)> log;
  int newest_python_minor = 14;
};

struct GeneratedFile {
  std::filesystem::path recipe_file;
  GeneratedRecipe recipe;
};

struct GenerateResult {
  std::vector<GeneratedFile> written;   // in the order they were made
  std::vector<std::string> not_needed;  // recursive: requirements the channels or the output dir already have
};

std::expected<GenerateResult, std::string> generate_pypi_recipes(const GenerateRequest& request);

}  // namespace gpuenv::generate
