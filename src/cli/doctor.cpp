// `gpuenv doctor`: will the CUDA code installed in an environment run on
// this machine's GPUs (or, with --gpu, on another's)? Exits 0 only when every
// library with device code can run on every GPU, so CI can gate on it.
#include <fmt/core.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "command.hpp"
#include "error_output.hpp"
#include "prefix_arguments.hpp"
#include "gpuenv/environment/doctor.hpp"
#include "gpuenv/environment/installed_environment.hpp"

namespace gpuenv::cli {
namespace {

using json = nlohmann::ordered_json;
namespace cb = cuda_binary;

struct DoctorArguments {
  PrefixArguments where;
  std::vector<std::string> gpus;
  bool json = false;
};

using Machine = environment::GpusToJudge;

const char* verdict_mark(cb::RunVerdict verdict) {
  switch (verdict) {
    case cb::RunVerdict::native: return "ok  ";
    case cb::RunVerdict::ptx_jit: return "JIT ";
    case cb::RunVerdict::ptx_too_new:
    case cb::RunVerdict::no_kernel_image: break;
  }
  return "FAIL";
}

std::string needed_by(const std::vector<std::string>& who) {
  constexpr std::size_t named_at_most = 3;
  std::vector<std::string> named(who.begin(), who.begin() + std::min(who.size(), named_at_most));
  if (who.size() > named_at_most) named.push_back(fmt::format("and {} more", who.size() - named_at_most));
  return fmt::format("{}", fmt::join(named, ", "));
}

json runtime_json(const environment::CudaRuntimeCheck& runtime) {
  json needs = json::array();
  for (const auto& judgement : runtime.judgements)
    needs.push_back({{"requirement", judgement.need.requirement},
                     {"cuda", judgement.need.major_only ? std::to_string(judgement.need.cuda.major)
                                                        : judgement.need.cuda.str()},
                     {"needed_by", judgement.need.needed_by},
                     {"verdict", environment::to_string(judgement.verdict)},
                     {"min_driver", judgement.min_driver ? json(judgement.min_driver->str()) : json(nullptr)},
                     {"explanation", judgement.explanation},
                     {"fix", judgement.fix}});
  return needs;
}

void print_runtime(const environment::CudaRuntimeCheck& runtime) {
  if (!runtime.driver_cuda) {
    fmt::print("\nCUDA runtime: not checked (the driver's CUDA version is unknown; CONDA_OVERRIDE_CUDA=12.4 asks "
               "about another driver)\n");
    return;
  }
  if (runtime.judgements.empty()) return;
  fmt::print("\nCUDA runtime needed, driver CUDA {}\n", runtime.driver_cuda->str());
  for (const auto& judgement : runtime.judgements) {
    const bool fails = judgement.verdict == environment::CudaRuntimeVerdict::needs_newer_driver;
    fmt::print("  {} {} (needed by {}): {}\n", fails ? "FAIL" : "ok  ", judgement.need.requirement,
               needed_by(judgement.need.needed_by), judgement.explanation);
    if (!judgement.fix.empty()) fmt::print("       fix: {}\n", judgement.fix);
  }
  for (const auto& problem : runtime.problems) fmt::print(stderr, "gpuenv: warning: {}\n", problem);
}

json check_json(const std::filesystem::path& prefix, const Machine& machine, const environment::DeviceCodeCheck& check,
                const environment::CudaRuntimeCheck& runtime) {
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
                          {"verdict", cb::to_string(judgement.verdict)},
                          {"target", judgement.used_target},
                          {"runtime_error", judgement.runtime_error},
                          {"explanation", judgement.explanation}});
    }
    libraries.push_back({{"path", library.path}, {"package", library.package}, {"sass", sass}, {"ptx", ptx},
                         {"verdicts", verdicts}});
  }
  return {{"success", check.everything_can_run() && runtime.everything_can_run() && check.problems.empty()},
          {"prefix", prefix.string()},
          {"driver_cuda", machine.driver_cuda ? json(machine.driver_cuda->str()) : json(nullptr)},
          {"gpus", gpus},
          {"files_examined", check.files_examined},
          {"libraries", libraries},
          {"cuda_runtime", runtime_json(runtime)},
          {"problems", check.problems}};
}

void print_check(const std::filesystem::path& prefix, const Machine& machine, const environment::DeviceCodeCheck& check,
                 const environment::CudaRuntimeCheck& runtime) {
  fmt::print("environment {}: {} files with GPU code\n", prefix.string(), check.libraries.size());
  const auto driver = machine.driver_cuda ? "CUDA " + machine.driver_cuda->str() : std::string("unknown");
  for (std::size_t index = 0; index < machine.gpus.size(); ++index) {
    const auto& gpu = machine.gpus[index];
    fmt::print("\n{} ({}), driver {}\n", gpu.label, gpu.arch.sm_name(), driver);
    for (const auto& library : check.libraries) {
      const auto& judgement = library.judgements[index];
      fmt::print("  {} {}{}: {}\n", verdict_mark(judgement.verdict), library.path,
                 library.package.empty() ? "" : " (" + library.package + ")", judgement.explanation);
      if (!judgement.runtime_error.empty())
        fmt::print("       the CUDA runtime will fail with \"{}\"\n", judgement.runtime_error);
    }
  }
  for (const auto& problem : check.problems) fmt::print(stderr, "gpuenv: warning: {}\n", problem);
  print_runtime(runtime);
  fmt::print("\n{}\n", check.everything_can_run() ? "every library can run on every GPU"
                                                   : "some libraries cannot run on this machine's GPUs (FAIL above)");
  if (!runtime.everything_can_run())
    fmt::print("the CUDA runtime this environment needs cannot run on this driver (FAIL above)\n");
}

int run_doctor(const DoctorArguments& arguments) {
  const auto env = util::process_environment();
  const auto opened = environment::open_environment(prefix_choice(arguments.where), env,
                                                    environment::WhenNoPrefixGiven::use_active_prefix,
                                                    environment::PrefixUse::read);
  if (!opened) return report_error(opened.error(), arguments.json);
  print_notes(opened->notes, opened->warnings);
  const auto& prefix = opened->prefix;
  const auto report = environment::check_environment_for_gpus(prefix, arguments.gpus, env);
  if (!report) return report_error(report.error(), arguments.json);
  if (arguments.json) {
    fmt::print("{}\n", check_json(prefix, report->machine, report->device_code, report->runtime).dump(2));
  } else {
    print_check(prefix, report->machine, report->device_code, report->runtime);
  }
  return report->everything_can_run() ? 0 : 1;
}

}  // namespace

void add_doctor_command(CLI::App& app, Runner& run) {
  auto arguments = std::make_shared<DoctorArguments>();
  auto* sub = app.add_subcommand("doctor", "Check that the CUDA code in an environment can run on this machine's GPUs");
  add_prefix_options(sub, arguments->where);
  sub->add_option("--gpu", arguments->gpus, "Judge for this GPU architecture instead (sm_86, 8.6); repeatable");
  sub->add_flag("--json", arguments->json, "Print JSON");
  sub->callback([&run, arguments] { run = [arguments] { return run_doctor(*arguments); }; });
}

}  // namespace gpuenv::cli
