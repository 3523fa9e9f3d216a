#include "gpuenv/environment/cuda_without_driver.hpp"

#include <string_view>
#include <vector>

namespace gpuenv::environment {

namespace {

// The package name a depends/constrains entry names, without parsing the
// whole spec (a malformed one names nothing here; the solver reported it).
std::string_view dependency_name(std::string_view dependency) {
  const auto end = dependency.find_first_of(" =<>!~[");
  return dependency.substr(0, end);
}

}  // namespace

bool is_cuda_package(const specs::PackageRecord& record) {
  if (record.name == "cuda-version" || record.name == "cudatoolkit") return true;
  for (const auto& dependency : record.depends) {
    const auto name = dependency_name(dependency);
    if (name == "__cuda" || name == "cuda-version" || name == "cudatoolkit") return true;
  }
  // Constraining cuda-version only limits which may come; constraining
  // __cuda says the package's code runs on the GPU.
  for (const auto& constraint : record.constrains) {
    if (dependency_name(constraint) == "__cuda") return true;
  }
  return false;
}

std::optional<std::string> cuda_without_driver_note(const Plan& plan) {
  const auto& machine = plan.machine;
  if (!machine.cuda || machine.cuda_override || system::driver_usable(*machine.cuda)) return std::nullopt;
  std::vector<std::string> cuda;
  for (const auto& record : plan.solution.link) {
    if (is_cuda_package(record)) cuda.push_back(record.name + " " + record.version);
  }
  if (cuda.empty()) return std::nullopt;
  std::string named;
  constexpr std::size_t kNamed = 3;
  for (std::size_t i = 0; i < cuda.size() && i < kNamed; ++i) named += (i == 0 ? "" : ", ") + cuda[i];
  if (cuda.size() > kNamed) named += " and " + std::to_string(cuda.size() - kNamed) + " more";
  const std::string why = machine.cuda->message.empty() ? "no NVIDIA driver found" : machine.cuda->message;
  return "this environment gets CUDA packages (" + named + "), but their GPU code cannot run on this machine (" +
         why + "); they install anyway. Install the NVIDIA driver here, or, to plan an environment for another "
         "machine, set CONDA_OVERRIDE_CUDA to its CUDA version (empty for a machine without a GPU)";
}

}  // namespace gpuenv::environment
