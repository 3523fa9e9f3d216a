// The ELF step of a build, between the script and the packaging: for each
// ELF file the script added to the host prefix, its rpath rewritten
// (rpath_rewrite.hpp) through patchelf, then what the files link checked
// against the package, its run requirements and the system
// (linking_check.hpp). Overlinking and overdepending are warnings in the log,
// errors when the recipe's dynamic_linking says so.
#pragma once

#include <expected>
#include <filesystem>
#include <functional>
#include <set>
#include <string>

#include "gpuenv/builder/build_error.hpp"
#include "gpuenv/builder/linking_check.hpp"
#include "gpuenv/recipe/recipe_types.hpp"

namespace gpuenv::build {

struct ElfPostProcessRequest {
  std::filesystem::path host_prefix;
  std::set<std::string> before;             // the prefix's listing before the script ran
  recipe::DynamicLinking settings;
  std::set<std::string> run_requirements;   // package names, after run_exports
  bool machine_compilers = false;
  std::string search_path;                  // PATH, where patchelf is looked up
  std::function<void(const std::string&)> log;
};

struct ElfPostProcessResult {
  std::size_t elf_files = 0;   // with a dynamic section
  std::size_t relocated = 0;   // whose rpath patchelf rewrote
  LinkingReport linking;
  double seconds = 0;
};

std::expected<ElfPostProcessResult, BuildError> post_process_elf(const ElfPostProcessRequest& request);

// The package names of `specs` ("zlib >=1.3" -> "zlib"): the run
// requirements once pins and run_exports are resolved.
std::set<std::string> requirement_names(const std::vector<std::string>& specs);

}  // namespace gpuenv::build
