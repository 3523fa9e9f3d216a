// compiler('c') and compiler('cxx') render to conda-forge's compiler
// packages ("gcc_linux-64 =13", "gxx_linux-64"). When the configured channels
// provide them, the build environment gets them (their activation sets CC
// and CXX). When they do not -- a private channel, an offline CI image --
// the build uses the machine's gcc and g++ instead, says so in the log, and
// sets CC and CXX to them: a recipe that only needs "a C compiler" builds on
// any Linux machine, which is what a CI image provides.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gpuenv/recipe/variants.hpp"

namespace gpuenv::build {

enum class CompilerLanguage { c, cxx };

struct CompilerRequirement {
  CompilerLanguage language = CompilerLanguage::c;
  std::string spec;  // as rendered
};

// Splits the rendered build requirements into compiler packages (by the
// variant's c_compiler/cxx_compiler names, or conda-forge's gcc/gxx/clang/
// clangxx, suffixed with the target platform) and everything else.
struct BuildRequirementSplit {
  std::vector<CompilerRequirement> compilers;
  std::vector<std::string> others;
};
BuildRequirementSplit split_build_requirements(const std::vector<std::string>& specs,
                                               const recipe::Variant& variant, const std::string& target_platform);

// CC and/or CXX for the languages asked for, as absolute paths of the
// machine's gcc and g++ found on `path`; nullopt (and `missing` set to the
// program's name) when one is not installed.
std::optional<std::map<std::string, std::string>> machine_compilers(const std::vector<CompilerRequirement>& compilers,
                                                                    const std::string& path, std::string& missing);

}  // namespace gpuenv::build
