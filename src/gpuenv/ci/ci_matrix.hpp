// The CI matrix of a repository: every recipe under a folder rendered over
// the variant files, one job per (package output, variant), each in the
// image the variant's docker_image names, ordered by the build/host
// dependencies between the repository's own recipes. What the GitHub
// Actions and GitLab CI writers (ci_config.hpp) print.
#pragma once

#include <expected>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "gpuenv/ci/ci_error.hpp"
#include "gpuenv/ci/image_definition.hpp"
#include "gpuenv/ci/variant_selection.hpp"
#include "gpuenv/recipe/variant_config.hpp"
#include "gpuenv/recipe/variants.hpp"

namespace gpuenv::ci {

struct MatrixRequest {
  std::filesystem::path recipes_dir;  // searched for recipe.yaml files; paths in jobs start with it
  std::vector<std::filesystem::path> variant_files;  // in order; later files win
  std::filesystem::path images_dir;
  std::string target_platform = "linux-64";
  std::map<std::string, std::string, std::less<>> environment;  // what env.get() sees while rendering
  // The GPUs the final job's `gpuenv doctor` judges the channel for ("sm_86",
  // "8.6", "90"); empty: kDefaultCheckGpus.
  std::vector<std::string> check_gpus;
};

// Ampere and Hopper, the data-centre GPUs of the CUDA 11.8 to 13.0 range.
inline constexpr std::string_view kDefaultCheckGpus[] = {"sm_80", "sm_90"};

struct CiJob {
  std::string id;           // <package>-<build hash>: stable while the recipe's variant stays
  std::string recipe;       // the recipe file, as found under recipes_dir
  std::string recipe_hash;  // sha256 of the recipe's text, 16 hex digits (cache keys)
  std::string package;
  std::string version;
  std::string build_string;
  std::string image;         // the image's folder name under images_dir
  std::string docker_image;  // the variant's docker_image ("gpuenv/ci-cuda12.9")
  std::vector<std::string> variant_arguments;  // KEY=VALUE for `gpuenv build --variant`, by key
  std::vector<std::string> needs;              // ids of the jobs whose packages it builds with
};

struct CiMatrix {
  std::vector<std::string> variant_files;  // as given, for `gpuenv build -m`
  std::string index_image;                 // where the final job indexes the channel: a CPU image
  std::vector<std::string> check_gpus;     // sm names, sorted, for the final job's `gpuenv doctor --gpu`
  std::vector<CiJob> jobs;                 // every job after the jobs it needs
};

// The recipe.yaml files under `directory`, sorted; symbolic links are not
// followed. At most 5,000.
std::expected<std::vector<std::filesystem::path>, CiError> find_recipes(const std::filesystem::path& directory);

std::expected<CiMatrix, CiError> build_matrix(const MatrixRequest& request);

// The variant files `ci render` and `ci run` use: those given (-m), in
// order, else the repository's metadata/variants/variants.yaml.
std::vector<std::filesystem::path> variant_files_or_default(const std::vector<std::string>& given);

// `gpuenv ci render --json` (docs/json-output.md): schema_version,
// variant_files, index_image and every job.
std::string matrix_json(const CiMatrix& matrix);

}  // namespace gpuenv::ci
