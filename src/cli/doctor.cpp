// `gpuenv doctor`: will the CUDA code installed in an environment run on
// this machine's GPUs (or, with --gpu, on another's), and can every ELF file
// load here? Exits 0 only when every library with device code can run on
// every GPU and every file can load, so CI can gate on it. Without a GPU (and
// no --gpu) the device code is left unjudged and said so.
#include <fmt/core.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "command.hpp"
#include "error_output.hpp"
#include "prefix_arguments.hpp"
#include "gpuenv/environment/doctor.hpp"
#include "gpuenv/environment/installed_environment.hpp"

namespace gpuenv::cli {
namespace {

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
  if (machine.gpus.empty()) {
    fmt::print("\nno GPU found on this machine (see `gpuenv cuda`): the GPU code of {} file{} is not judged; "
               "--gpu sm_XY judges it for another machine's GPU\n",
               check.libraries.size(), check.libraries.size() == 1 ? "" : "s");
  } else {
    fmt::print("\n{}\n", check.everything_can_run() ? "every library can run on every GPU"
                                                     : "some libraries cannot run on this machine's GPUs (FAIL above)");
  }
  if (!runtime.everything_can_run())
    fmt::print("the CUDA runtime this environment needs cannot run on this driver (FAIL above)\n");
}

void print_elf_load(const environment::ElfLoadCheck& check) {
  fmt::print("\nloading on this machine (glibc {}): {} ELF files\n", check.glibc.empty() ? "unknown" : check.glibc,
             check.elf_files);
  for (const auto& problem : check.problems) {
    fmt::print("  FAIL {}{}: {}\n       fix: {}\n", problem.file,
               problem.package.empty() ? "" : " (" + problem.package + ")", problem.explanation, problem.fix);
  }
  for (const auto& file : check.unreadable) fmt::print(stderr, "gpuenv: warning: {}\n", file);
  fmt::print("{}\n", check.everything_can_load() ? "every ELF file can load here"
                                                  : "some files cannot load on this machine (FAIL above)");
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
    fmt::print("{}\n", environment::doctor_report_json(prefix, *report));
  } else {
    print_check(prefix, report->machine, report->device_code, report->runtime);
    print_elf_load(report->elf_load);
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
