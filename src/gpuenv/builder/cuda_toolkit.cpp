#include "gpuenv/builder/cuda_toolkit.hpp"

#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "gpuenv/builder/process_runner.hpp"

namespace gpuenv::build {

namespace fs = std::filesystem;

namespace {

// "13.0.88" -> "13.0"; nullopt when it does not start with two numbers.
std::optional<std::string> major_minor_of(std::string_view text) {
  std::size_t i = 0;
  const auto digits = [&] {
    const auto begin = i;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') ++i;
    return i > begin;
  };
  if (!digits() || i >= text.size() || text[i] != '.') return std::nullopt;
  ++i;
  if (!digits()) return std::nullopt;
  return std::string(text.substr(0, i));
}

// version.json is a few hundred bytes; anything much larger is not one.
constexpr std::uintmax_t kMaxVersionJsonBytes = 1 << 20;

std::optional<std::string> toolkit_version(const fs::path& root, const fs::path& nvcc) {
  std::error_code error;
  const auto json_file = root / "version.json";
  if (fs::is_regular_file(json_file, error) && fs::file_size(json_file, error) < kMaxVersionJsonBytes) {
    std::ifstream in(json_file, std::ios::binary);
    if (auto version = version_json_release(std::string(std::istreambuf_iterator<char>(in), {}))) return version;
  }
  ProcessRequest request;
  request.argv = {nvcc.string(), "--version"};
  request.environment = current_environment();
  std::string output;
  request.on_output = [&output](std::string_view piece) {
    if (output.size() < 64 * 1024) output += piece;
  };
  const auto result = run_process(request);
  if (!result.succeeded()) return std::nullopt;
  return nvcc_release(output);
}

}  // namespace

std::optional<std::string> nvcc_release(std::string_view version_output) {
  constexpr std::string_view marker = "release ";
  const auto at = version_output.find(marker);
  if (at == std::string_view::npos) return std::nullopt;
  return major_minor_of(version_output.substr(at + marker.size()));
}

std::optional<std::string> version_json_release(std::string_view json_text) {
  const auto json = nlohmann::json::parse(json_text, nullptr, /*allow_exceptions=*/false);
  if (!json.is_object() || !json.contains("cuda") || !json["cuda"].is_object()) return std::nullopt;
  const auto& version = json["cuda"]["version"];
  if (!version.is_string()) return std::nullopt;
  return major_minor_of(version.get<std::string>());
}

bool cuda_version_matches(std::string_view wanted, std::string_view found) {
  if (wanted.empty() || wanted == "None") return true;
  if (!found.starts_with(wanted)) return false;
  return found.size() == wanted.size() || found[wanted.size()] == '.';
}

std::vector<CudaToolkit> machine_cuda_toolkits(std::string_view wanted, const CudaToolkitSearch& search) {
  std::vector<fs::path> roots;
  if (search.cuda_home && !search.cuda_home->empty()) roots.emplace_back(*search.cuda_home);
  if (const auto version = major_minor_of(wanted)) roots.push_back(search.install_root / ("cuda-" + *version));
  roots.push_back(search.install_root / "cuda");
  std::size_t start = 0;
  while (start <= search.path.size()) {
    const auto end = std::min(search.path.find(':', start), search.path.size());
    const auto directory = search.path.substr(start, end - start);
    start = end + 1;
    // A toolkit's nvcc lives in <root>/bin.
    if (!directory.empty()) roots.push_back(fs::path(directory).parent_path());
  }
  std::vector<CudaToolkit> toolkits;
  std::set<fs::path> seen;
  for (const auto& root : roots) {
    const auto nvcc = root / "bin" / "nvcc";
    std::error_code error;
    if (::access(nvcc.c_str(), X_OK) != 0 || !fs::is_regular_file(nvcc, error)) continue;
    const auto real = fs::canonical(root, error);
    if (error || !seen.insert(real).second) continue;
    if (auto version = toolkit_version(root, nvcc)) toolkits.push_back({root, nvcc, *version});
  }
  return toolkits;
}

std::expected<CudaToolkit, BuildError> find_machine_cuda_toolkit(std::string_view wanted,
                                                                 const CudaToolkitSearch& search) {
  const auto toolkits = machine_cuda_toolkits(wanted, search);
  for (const auto& toolkit : toolkits) {
    if (cuda_version_matches(wanted, toolkit.version)) return toolkit;
  }
  const bool any = wanted.empty() || wanted == "None";
  const std::string needed = any ? "an nvcc" : "CUDA " + std::string(wanted) + "'s nvcc";
  std::string found;
  for (const auto& toolkit : toolkits) {
    found += (found.empty() ? "" : ", ") + toolkit.version + " at " + toolkit.nvcc.string();
  }
  if (found.empty()) {
    found = "none in $CUDA_HOME, " + (search.install_root / "cuda-<version>").string() + ", " +
            (search.install_root / "cuda").string() + " or on PATH";
  }
  const auto where = search.install_root / (any ? std::string("cuda") : "cuda-" + std::string(wanted));
  return std::unexpected(BuildError{BuildErrorKind::environment,
                                    "the channels provide no CUDA compiler package and this variant needs " + needed +
                                        "; found " + found + ": install it (e.g. under " + where.string() +
                                        ") or set CUDA_HOME to its root, or add a channel with the cuda-nvcc packages"});
}

specs::VirtualPackage cuda_compiler_virtual_package(const CudaToolkit& toolkit) {
  return {"__cuda_compiler", toolkit.version, "0"};
}

std::string cuda_compiler_requirement(std::string_view wanted) {
  if (wanted.empty() || wanted == "None") return "__cuda_compiler";
  return "__cuda_compiler " + std::string(wanted) + ".*";
}

std::map<std::string, std::string> cuda_script_variables(const CudaArchitectureList& architectures,
                                                         std::string_view variant_cuda_version,
                                                         const CudaToolkit* machine_toolkit) {
  std::map<std::string, std::string> variables;
  variables["CUDAARCHS"] = architectures.cudaarchs;
  if (!variant_cuda_version.empty()) variables["cuda_compiler_version"] = std::string(variant_cuda_version);
  if (machine_toolkit != nullptr) {
    variables["NVCC"] = machine_toolkit->nvcc.string();
    variables["CUDACXX"] = machine_toolkit->nvcc.string();
    variables["CUDA_HOME"] = machine_toolkit->root.string();
    variables["CUDA_PATH"] = machine_toolkit->root.string();
  }
  return variables;
}

}  // namespace gpuenv::build
