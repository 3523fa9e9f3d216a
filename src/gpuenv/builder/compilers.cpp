#include "gpuenv/builder/compilers.hpp"

#include <algorithm>
#include <string_view>

#include "gpuenv/builder/process_runner.hpp"
#include "gpuenv/system/host_facts.hpp"

namespace gpuenv::build {

namespace {

std::string package_name(const std::string& spec) {
  const auto end = spec.find_first_of(" =<>!~[");
  return spec.substr(0, end);
}

std::string variant_text(const recipe::Variant& variant, const std::string& key) {
  const auto found = variant.find(key);
  return found == variant.end() ? std::string() : found->second.display();
}

}  // namespace

BuildRequirementSplit split_build_requirements(const std::vector<std::string>& specs,
                                               const recipe::Variant& variant, const std::string& target_platform) {
  std::vector<std::string> c_names = {"gcc", "clang"};
  std::vector<std::string> cxx_names = {"gxx", "clangxx"};
  if (const auto c = variant_text(variant, "c_compiler"); !c.empty()) c_names.push_back(c);
  if (const auto cxx = variant_text(variant, "cxx_compiler"); !cxx.empty()) cxx_names.push_back(cxx);
  // "cuda" is what compiler('cuda') renders to when the variant names no cuda_compiler.
  std::vector<std::string> cuda_names = {"cuda-nvcc", "nvcc", "cuda"};
  if (const auto cuda = variant_text(variant, "cuda_compiler"); !cuda.empty()) cuda_names.push_back(cuda);
  const auto is_one_of = [&](const std::string& name, const std::vector<std::string>& bases) {
    return std::any_of(bases.begin(), bases.end(),
                       [&](const std::string& base) { return name == base + "_" + target_platform; });
  };
  std::vector<std::string> stdlib_names = {"sysroot"};
  if (const auto stdlib = variant_text(variant, "c_stdlib"); !stdlib.empty()) stdlib_names.push_back(stdlib);
  BuildRequirementSplit split;
  for (const auto& spec : specs) {
    const auto name = package_name(spec);
    if (is_one_of(name, stdlib_names)) {
      split.compilers.push_back({CompilerLanguage::c_stdlib, spec});
    } else if (is_one_of(name, c_names)) {
      split.compilers.push_back({CompilerLanguage::c, spec});
    } else if (is_one_of(name, cxx_names)) {
      split.compilers.push_back({CompilerLanguage::cxx, spec});
    } else if (is_one_of(name, cuda_names)) {
      split.compilers.push_back({CompilerLanguage::cuda, spec});
    } else {
      split.others.push_back(spec);
    }
  }
  return split;
}

namespace {

// What `program option` prints on its one line, when it is made of
// `allowed` characters only (a version, a triplet); nullopt otherwise.
std::optional<std::string> compiler_answer(const std::string& program, const std::string& option,
                                           std::string_view allowed) {
  ProcessRequest request;
  request.argv = {program, option};
  request.environment = current_environment();
  std::string output;
  request.on_output = [&output](std::string_view piece) {
    if (output.size() < 256) output.append(piece);
  };
  const auto ran = run_process(request);
  if (!ran.succeeded()) return std::nullopt;
  while (!output.empty() && (output.back() == '\n' || output.back() == '\r')) output.pop_back();
  if (output.empty() || output.find_first_not_of(allowed) != std::string::npos) return std::nullopt;
  return output;
}

}  // namespace

std::optional<std::map<std::string, std::string>> machine_compilers(const std::vector<CompilerRequirement>& compilers,
                                                                    const std::string& path, std::string& missing) {
  std::map<std::string, std::string> variables;
  for (const auto& compiler : compilers) {
    if (compiler.language == CompilerLanguage::cuda || compiler.language == CompilerLanguage::c_stdlib) continue;
    const bool is_c = compiler.language == CompilerLanguage::c;
    const std::string program = is_c ? "gcc" : "g++";
    const auto found = find_on_path(program, path);
    if (found.empty()) {
      missing = program;
      return std::nullopt;
    }
    // As conda-forge's compiler activation exports them: the compiler, the
    // one for the build machine (the same here: no cross-compiling) and the
    // triplet, whose binutils are $BUILD-ar, $BUILD-ld, ... (CuPy's build
    // reads all of them when CONDA_OVERRIDE_CUDA is set).
    variables[is_c ? "CC" : "CXX"] = found;
    variables[is_c ? "CC_FOR_BUILD" : "CXX_FOR_BUILD"] = found;
    if (!variables.contains("BUILD")) {
      if (const auto triplet = compiler_answer(found, "-dumpmachine", "abcdefghijklmnopqrstuvwxyz0123456789_.-")) {
        variables["BUILD"] = *triplet;
        variables["HOST"] = *triplet;
      }
    }
  }
  return variables;
}

std::optional<std::string> compiler_version(const std::string& program) {
  return compiler_answer(program, "-dumpfullversion", "0123456789.");
}

std::vector<std::string> compiler_runtime_run_exports(CompilerLanguage language, const std::string& version) {
  if (language == CompilerLanguage::c) return {"libgcc >=" + version};
  if (language == CompilerLanguage::cxx) return {"libstdcxx >=" + version, "libgcc >=" + version};
  return {};
}

std::optional<std::string> machine_glibc_run_export() {
  const auto facts = system::detect_host_facts();
  if (!facts.glibc_version) return std::nullopt;
  const auto version = system::major_minor(*facts.glibc_version);
  if (!version) return std::nullopt;
  return "__glibc >=" + *version + ",<3.0.a0";
}

}  // namespace gpuenv::build
