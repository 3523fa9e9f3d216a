// build_variant(variant, request, observer): one rendered variant into one
// .conda, end to end --
//   work directory <build root>/<name>-<version>-<build>/ (fresh, the same
//   path whatever the output directory: work_directory.hpp) ─► sources
//   into work/ (sources.hpp) ─► build and host environments created through
//   environment::plan/apply, like `gpuenv create` (compilers.hpp: the
//   machine's gcc/g++ when the channels have no compiler packages) ─► the
//   script (build_script.hpp) ─► its ELF files relocated and their linking
//   checked (elf_post_process.hpp) ─► the files it added to the host prefix
//   (new_prefix_files.hpp) ─► <output>/<subdir>/<name>-<version>-<build>.conda
//   (package_output.hpp).
// The log is <output>/bld/<name>-<version>-<build>.log. On failure no
// package is left at the output path and the work directory stays for
// inspection; on success it is removed.
#pragma once

#include <cstdint>
#include <expected>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuenv/builder/build_error.hpp"
#include "gpuenv/builder/package_format.hpp"
#include "gpuenv/builder/resolved_requirements.hpp"
#include "gpuenv/environment/reporter.hpp"
#include "gpuenv/environment/settings.hpp"
#include "gpuenv/recipe/variants.hpp"

namespace gpuenv::build {

// What the builder tells its front end, besides the environment layer's
// events (the Reporter base): its own steps and the script's output.
class BuildObserver : public environment::Reporter {
 public:
  virtual void step(std::string_view message) { (void)message; }
  virtual void script_output(std::string_view piece) { (void)piece; }
};

struct BuildRequest {
  std::filesystem::path recipe_file;
  std::string recipe_text;
  std::filesystem::path output_dir;  // absolute
  const environment::Settings* settings = nullptr;  // channels, cache, platform of the build machine
  std::string build_platform;
  // Modification times and index.json's timestamp: SOURCE_DATE_EPOCH when
  // set, else the recipe file's modification time (same inputs, same bytes).
  std::int64_t timestamp = 0;
  int zstd_level = 19;
  // --package-format; absent: .conda at zstd_level.
  std::optional<PackageFormat> package_format;
  // about.json's extra.gpuenv_source_override (source_override.hpp); empty: none.
  std::string source_override_json;
  // --source-archives: directories whose files stand in for url sources of
  // the same digest (sources.hpp).
  std::vector<std::filesystem::path> source_archive_dirs;
  RunAsBuildPins pin_run_as_build;  // the variant configuration's (conda-build's pin_run_as_build)
  bool run_tests = true;  // false: --test skip (publish_package.hpp)
  // The one cuda_compiler_version the variant configuration gives, when it
  // gives one (`--variant cuda_compiler_version=13.0`): the CUDA a recipe
  // that does not use the key builds for, so its host environment can take
  // the CUDA packages of that build (test_machine.hpp).
  std::optional<std::string> configured_cuda_version;
};

struct BuiltPackage {
  std::filesystem::path package;
  std::filesystem::path log_file;
  std::size_t files = 0;            // paths in the package, info/ aside
  std::size_t prefix_files = 0;     // of which hold the host prefix
  bool used_machine_compilers = false;
  double seconds = 0;
  double script_seconds = 0;
  double elf_seconds = 0;  // relocation and the linking check
  std::size_t tests = 0;  // the package's tests, run and passed
  std::string cuda_check;  // check_cuda_package's verdict; empty for a build without CUDA
};

std::expected<BuiltPackage, BuildError> build_variant(const recipe::RenderedVariant& variant,
                                                      const BuildRequest& request, BuildObserver& observer);

// The build section of the variant's output (the recipe's own for a single
// output): the reader merges the top level's into each output's, so an
// output's skip, noarch and script are read here.
const recipe::Build& output_build(const recipe::RenderedVariant& variant);

// The channel subdirectory the variant's package goes to: noarch, or its
// target platform (the build platform when the variant names none).
std::string package_subdir(const recipe::RenderedVariant& variant, const std::string& build_platform);

// SOURCE_DATE_EPOCH from `env`, else the modification time of `recipe_file`.
std::int64_t reproducible_timestamp(const util::EnvLookup& env, const std::filesystem::path& recipe_file);

}  // namespace gpuenv::build
