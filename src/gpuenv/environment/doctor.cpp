#include "gpuenv/environment/doctor.hpp"

#include <fmt/core.h>

#include <charconv>
#include <nlohmann/json.hpp>

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
  // No GPU here (a login node, a CI runner): the device code stays unjudged,
  // the rest of the checks still run.
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
  report.elf_load = check_elf_loading(prefix, elf_load_machine(env));
  report.machine = std::move(*machine);
  return report;
}

namespace {

using json = nlohmann::ordered_json;

json runtime_json(const CudaRuntimeCheck& runtime) {
  json needs = json::array();
  for (const auto& judgement : runtime.judgements)
    needs.push_back({{"requirement", judgement.need.requirement},
                     {"cuda", judgement.need.major_only ? std::to_string(judgement.need.cuda.major)
                                                        : judgement.need.cuda.str()},
                     {"needed_by", judgement.need.needed_by},
                     {"verdict", to_string(judgement.verdict)},
                     {"min_driver", judgement.min_driver ? json(judgement.min_driver->str()) : json(nullptr)},
                     {"explanation", judgement.explanation},
                     {"fix", judgement.fix}});
  return needs;
}

json elf_load_json(const ElfLoadCheck& check) {
  json problems = json::array();
  for (const auto& problem : check.problems) {
    problems.push_back({{"path", problem.file}, {"package", problem.package}, {"missing", problem.missing},
                        {"explanation", problem.explanation}, {"fix", problem.fix}});
  }
  return {{"success", check.everything_can_load()},
          {"elf_files", check.elf_files},
          {"glibc", check.glibc.empty() ? json(nullptr) : json(check.glibc)},
          {"problems", problems},
          {"unreadable", check.unreadable}};
}

}  // namespace

std::string doctor_report_json(const std::filesystem::path& prefix, const DoctorReport& report) {
  const auto& machine = report.machine;
  const auto& check = report.device_code;
  json gpus = json::array();
  for (const auto& gpu : machine.gpus) gpus.push_back({{"label", gpu.label}, {"arch", gpu.arch.sm_name()}});
  json libraries = json::array();
  for (const auto& library : check.libraries) {
    json sass = json::array();
    for (const auto& arch : library.code.sass) sass.push_back(arch.sm_name());
    json ptx = json::array();
    for (const auto& target : library.code.ptx)
      ptx.push_back({{"arch", target.arch.compute_name()}, {"ptx_isa", to_string(target.isa)}});
    json verdicts = json::array();
    for (std::size_t index = 0; index < library.judgements.size(); ++index) {
      const auto& judgement = library.judgements[index];
      verdicts.push_back({{"gpu", machine.gpus[index].label},
                          {"verdict", cuda_binary::to_string(judgement.verdict)},
                          {"target", judgement.used_target},
                          {"runtime_error", judgement.runtime_error},
                          {"explanation", judgement.explanation}});
    }
    libraries.push_back({{"path", library.path}, {"package", library.package}, {"sass", sass}, {"ptx", ptx},
                         {"verdicts", verdicts}});
  }
  const json document{{"success", report.everything_can_run() && check.problems.empty()},
                      {"prefix", prefix.string()},
                      {"driver_cuda", machine.driver_cuda ? json(machine.driver_cuda->str()) : json(nullptr)},
                      {"gpus", gpus},
                      {"files_examined", check.files_examined},
                      {"libraries", libraries},
                      {"cuda_runtime", runtime_json(report.runtime)},
                      {"elf_load", elf_load_json(report.elf_load)},
                      {"problems", check.problems}};
  return document.dump(2);
}

}  // namespace gpuenv::environment
