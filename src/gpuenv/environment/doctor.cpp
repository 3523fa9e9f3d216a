#include "gpuenv/environment/doctor.hpp"

#include <fmt/core.h>

#include <charconv>

#include "gpuenv/system/cuda_compatibility.hpp"
#include "gpuenv/system/metadata.hpp"
#include "gpuenv/system/system_survey.hpp"

namespace gpuenv::environment {

namespace cb = cuda_binary;

std::optional<cb::CudaRelease> cuda_release_of(std::string_view version) {
  int major = 0;
  int minor = 0;
  const auto* end = version.data() + version.size();
  auto [next, error] = std::from_chars(version.data(), end, major);
  if (error != std::errc() || major < 0) return std::nullopt;
  if (next != end && *next == '.') std::from_chars(next + 1, end, minor);
  return cb::CudaRelease{major, minor};
}

std::expected<cb::PtxIsaTable, std::string> load_ptx_isa_table() {
  std::string error;
  auto table = cb::PtxIsaTable::parse(system::metadata_file("ptx_isa_versions.tsv"), error);
  if (!table) return std::unexpected(error + " (a build problem of gpuenv)");
  return std::move(*table);
}

std::expected<GpusToJudge, Error> gpus_to_judge(const std::vector<std::string>& requested,
                                                const util::EnvLookup& env) {
  GpusToJudge machine;
  system::SurveyOptions options;
  options.program_version = GPUENV_VERSION;
  const auto survey = system::survey_system(env, options);
  for (const auto& package : survey.virtual_packages.packages) {
    if (package.name == "__cuda") machine.driver_cuda = cuda_release_of(package.version);
  }
  for (const auto& text : requested) {
    auto arch = cb::parse_gpu_architecture(text);
    if (!arch) {
      return std::unexpected(
          make_error(ErrorKind::usage, fmt::format("--gpu {}: not an architecture; write sm_86, 8.6 or 86", text)));
    }
    machine.gpus.push_back({"--gpu " + arch->sm_name(), {arch->number, cb::ArchVariant::portable}});
  }
  if (!machine.gpus.empty()) return machine;
  if (survey.cuda) machine.gpus = gpus_of(survey.cuda->report);
  if (machine.gpus.empty()) {
    for (const auto& package : survey.virtual_packages.packages) {
      if (package.name != "__cuda_arch") continue;
      if (auto arch = cb::parse_gpu_architecture(package.version)) {
        machine.gpus.push_back({"__cuda_arch " + package.version, *arch});
      }
    }
  }
  if (machine.gpus.empty()) {
    return std::unexpected(make_error(ErrorKind::usage, "no GPU found on this machine (see `gpuenv cuda`); pass "
                                                        "--gpu sm_XY to ask about another machine's GPU"));
  }
  return machine;
}

std::expected<DoctorReport, Error> check_environment_for_gpus(const std::filesystem::path& prefix,
                                                              const std::vector<std::string>& requested_gpus,
                                                              const util::EnvLookup& env) {
  auto table = load_ptx_isa_table();
  if (!table) return std::unexpected(make_error(ErrorKind::configuration, table.error()));
  auto machine = gpus_to_judge(requested_gpus, env);
  if (!machine) return std::unexpected(std::move(machine.error()));
  DoctorReport report;
  report.device_code = check_device_code(prefix, machine->gpus, machine->driver_cuda, *table);
  std::optional<system::CudaVersion> driver_cuda;
  if (machine->driver_cuda) driver_cuda = system::CudaVersion{machine->driver_cuda->major, machine->driver_cuda->minor};
  report.runtime = check_cuda_runtime(prefix, driver_cuda, system::CudaCompatibilityTables::load());
  report.machine = std::move(*machine);
  return report;
}

}  // namespace gpuenv::environment
