// compiler('c') and compiler('cxx') render to conda-forge's compiler
// packages ("gcc_linux-64 =13", "gxx_linux-64"). When the configured channels
// provide them, the build environment gets them (their activation sets CC
// and CXX). When they do not -- a private channel, an offline CI image --
// the build uses the machine's gcc and g++ instead, says so in the log, and
// sets CC and CXX to them: a recipe that only needs "a C compiler" builds on
// any Linux machine, which is what a CI image provides.
// compiler('cuda') renders to conda-forge's cuda_compiler (cuda-nvcc for
// CUDA >= 12, nvcc for 11.8, "<name>_<platform> =<cuda_compiler_version>");
// without it in the channels, the machine's toolkit of the variant's CUDA
// version is used (cuda_toolkit.hpp).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gpuenv/recipe/variants.hpp"

namespace gpuenv::build {

// c_stdlib: what stdlib('c') renders to (conda-forge's sysroot_<platform>,
// the glibc a package is built against). Without it in the channels the
// machine's own glibc is what the machine's gcc links against.
enum class CompilerLanguage { c, cxx, cuda, c_stdlib };

struct CompilerRequirement {
  CompilerLanguage language = CompilerLanguage::c;
  std::string spec;  // as rendered
};

// Splits the rendered build requirements into compiler packages (by the
// variant's c_compiler/cxx_compiler names, or conda-forge's gcc/gxx/clang/
// clangxx; the variant's cuda_compiler, or cuda-nvcc/nvcc; the variant's
// c_stdlib, or sysroot), suffixed with the target platform, and everything
// else.
struct BuildRequirementSplit {
  std::vector<CompilerRequirement> compilers;
  std::vector<std::string> others;
};
BuildRequirementSplit split_build_requirements(const std::vector<std::string>& specs,
                                               const recipe::Variant& variant, const std::string& target_platform);

// CC and/or CXX for the C and C++ compilers asked for, as absolute paths of
// the machine's gcc and g++ found on `path` (with CC_FOR_BUILD/CXX_FOR_BUILD
// and BUILD/HOST, the triplet, as conda-forge's compiler activation sets
// them); nullopt (and `missing` set to
// the program's name) when one is not installed. CUDA is left to
// cuda_toolkit.hpp, which needs the variant's version; the C library is the
// machine's glibc (machine_glibc_run_export).
std::optional<std::map<std::string, std::string>> machine_compilers(const std::vector<CompilerRequirement>& compilers,
                                                                    const std::string& path, std::string& missing);

// What a package built against this machine's glibc (the machine's stdlib
// standing in for the channels' sysroot) needs where it runs, as
// conda-forge's sysroot exports its own: "__glibc >=2.36,<3.0.a0"; nullopt
// when the C library is not glibc.
std::optional<std::string> machine_glibc_run_export();

// `program -dumpfullversion` ("12.2.0" for Debian 12's gcc); nullopt when it
// does not answer with a version.
std::optional<std::string> compiler_version(const std::string& program);

// What a package built by the machine's GCC `version` needs at run time, as
// conda-forge's compiler packages export it (strong): C: libgcc >=V; C++:
// libstdcxx >=V and libgcc >=V. Empty for other languages.
std::vector<std::string> compiler_runtime_run_exports(CompilerLanguage language, const std::string& version);

}  // namespace gpuenv::build
