// Running a recipe's build script (bash, inline lines or a file) with the
// environment a recipe expects, as conda-build and rattler-build set it up:
// PREFIX, BUILD_PREFIX, SRC_DIR, RECIPE_DIR, CPU_COUNT, PKG_NAME,
// PKG_VERSION, PKG_BUILDNUM, PKG_BUILD_STRING, PKG_HASH, target_platform,
// build_platform, SUBDIR, SHLIB_EXT, CONDA_BUILD, PATH with BUILD_PREFIX/bin
// and PREFIX/bin first, the compilers chosen (CC, CXX), and the script's own
// `env`. The host and build environments' activate.d scripts are sourced
// first (a compiler package sets CC there). The output is streamed to a
// callback and kept in the log file; a failure quotes the log's last lines.
#pragma once

#include <expected>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <string_view>

#include "gpuenv/builder/build_error.hpp"
#include "gpuenv/recipe/recipe_types.hpp"

namespace gpuenv::build {

struct ScriptRun {
  std::filesystem::path work_dir;  // the script file is written here
  std::filesystem::path src_dir;
  std::filesystem::path recipe_dir;
  std::filesystem::path host_prefix;
  std::filesystem::path build_prefix;
  std::filesystem::path log_file;  // appended to
  // Set on top of this process's environment (PKG_*, CC, ...), before the
  // script's own env; PATH is prefixed with the two environments' bin/.
  std::map<std::string, std::string> variables;
  std::function<void(std::string_view)> on_output;
};

// Runs nothing (and succeeds) for an empty script when the recipe
// directory has no build.sh.
std::expected<void, BuildError> run_build_script(const recipe::Script& script, const ScriptRun& run);

}  // namespace gpuenv::build
