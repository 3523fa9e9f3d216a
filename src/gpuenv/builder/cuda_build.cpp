#include "gpuenv/builder/cuda_build.hpp"

#include <algorithm>
#include <cstdlib>

#include "gpuenv/builder/cuda_device_code_check.hpp"

namespace gpuenv::build {

namespace {

std::string variant_value(const recipe::Variant& variant, const std::string& key) {
  const auto found = variant.find(key);
  if (found == variant.end() || found->second.is_undefined()) return {};
  const auto& value = found->second;
  if (value.kind() == recipe::Value::Kind::none) return {};
  // A YAML list of architectures reads as one CUDAARCHS string.
  if (value.kind() == recipe::Value::Kind::list) {
    std::string joined;
    for (const auto& item : value.as_list()) joined += (joined.empty() ? "" : ";") + item.display();
    return joined;
  }
  return value.display();
}

}  // namespace

std::expected<std::optional<CudaBuild>, BuildError> cuda_build_for(const BuildRequirementSplit& split,
                                                                   const recipe::RenderedVariant& variant) {
  const bool uses_cuda = std::any_of(split.compilers.begin(), split.compilers.end(), [](const auto& compiler) {
    return compiler.language == CompilerLanguage::cuda;
  });
  if (!uses_cuda) return std::nullopt;
  CudaBuild cuda;
  cuda.cuda_version = variant_value(variant.variant, "cuda_compiler_version");
  if (cuda.cuda_version == "None") cuda.cuda_version.clear();
  if (const auto archs = variant_value(variant.variant, "cuda_archs"); !archs.empty()) {
    auto parsed = parse_cuda_archs(archs);
    if (!parsed) {
      return std::unexpected(BuildError{BuildErrorKind::recipe, "the variant's cuda_archs '" + archs +
                                                                    "' cannot be read: " + parsed.error()});
    }
    cuda.architectures = std::move(*parsed);
  }
  return cuda;
}

CudaToolkitSearch process_cuda_toolkit_search() {
  CudaToolkitSearch search;
  if (const char* home = std::getenv("CUDA_HOME"); home != nullptr && *home != '\0') search.cuda_home = home;
  const char* path = std::getenv("PATH");
  search.path = path != nullptr ? path : "/usr/bin:/bin";
  return search;
}

std::expected<void, BuildError> use_machine_cuda_toolkit(CudaBuild& cuda, const CudaToolkitSearch& search,
                                                         std::vector<specs::VirtualPackage>& virtual_packages,
                                                         std::vector<std::string>& specs) {
  auto toolkit = find_machine_cuda_toolkit(cuda.cuda_version, search);
  if (!toolkit) return std::unexpected(toolkit.error());
  virtual_packages.push_back(cuda_compiler_virtual_package(*toolkit));
  specs.push_back(cuda_compiler_requirement(cuda.cuda_version));
  cuda.machine_toolkit = std::move(*toolkit);
  return {};
}

std::string machine_toolkit_description(const CudaBuild& cuda) {
  if (!cuda.machine_toolkit) return "nvcc";
  return cuda.machine_toolkit->nvcc.string() + " (CUDA " + cuda.machine_toolkit->version +
         ", __cuda_compiler to the solver)";
}

std::map<std::string, std::string> cuda_build_variables(CudaBuild& cuda) {
  if (cuda.architectures.numbers.empty()) {
    const std::string version =
        !cuda.cuda_version.empty() || !cuda.machine_toolkit ? cuda.cuda_version : cuda.machine_toolkit->version;
    cuda.architectures = default_cuda_archs(version);
  }
  return cuda_script_variables(cuda.architectures, cuda.cuda_version,
                               cuda.machine_toolkit ? &*cuda.machine_toolkit : nullptr);
}

std::expected<std::string, BuildError> check_cuda_package(const CudaBuild& cuda, const std::vector<NewPrefixFile>& files,
                                                   const recipe::Value& extra,
                                                   const std::function<void(const std::string&)>& log) {
  if (!cuda_check_wanted(extra)) {
    log("CUDA check: skipped (extra.gpuenv.cuda_check is false)");
    return "skipped (extra.gpuenv.cuda_check: false)";
  }
  const auto check = check_device_code(files, cuda.architectures.numbers);
  log("CUDA check: " + std::to_string(check.files_with_device_code) + " files with device code, asked for " +
      cuda.architectures.cudaarchs);
  if (check.passed()) {
    return "passed: " + std::to_string(check.files_with_device_code) +
           (check.files_with_device_code == 1 ? " file" : " files") + " with device code for " +
           cuda.architectures.cudaarchs;
  }
  return std::unexpected(BuildError{
      BuildErrorKind::cuda_check,
      "the CUDA check failed: the package's device code does not cover the architectures the variant asked for (" +
          cuda.architectures.cudaarchs + "; every one needs SASS or PTX, the highest needs PTX):" + check.report() +
          "\nbuild for them (the script gets them in $CUDAARCHS), change the variant's cuda_archs, or opt out with "
          "`extra: {gpuenv: {cuda_check: false}}` in the recipe"});
}

}  // namespace gpuenv::build
