// `gpuenv cuda`: the whole story of this machine's NVIDIA driver and GPUs,
// the virtual packages they yield, the CUDA toolkits the driver can run and
// which of those can still build code for each GPU. Exits 0 whenever it could
// tell the story, also without a GPU.
#include <fmt/core.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "command.hpp"
#include "gpuenv/environment/conditional_dependencies.hpp"
#include "gpuenv/system/cuda_compatibility.hpp"
#include "gpuenv/system/cuda_diagnosis.hpp"
#include "gpuenv/system/cuda_report_json.hpp"
#include "gpuenv/system/detection_config.hpp"
#include "gpuenv/system/system_survey.hpp"

namespace gpuenv::cli {
namespace {

using json = nlohmann::ordered_json;
using system::CudaVersion;
using system::DeviceTarget;
using system::ToolkitSupport;
using system::ToolkitVerdict;

struct CudaOptions {
  bool json = false;
  bool refresh = false;
  double timeout_s = 0;
  bool timeout_given = false;
  std::vector<std::string> conditions;  // --when: CEP 43 conditions to decide on this machine
};

std::string range_text(const system::ToolkitRange& run) {
  const auto& newest = run.newest.version;
  const auto& oldest = run.oldest.version;
  return newest == oldest ? newest.str() : fmt::format("{} - {}", oldest.str(), newest.str());
}

// "580.65.06", or "555.42.02 (12.5) to 575.51.03 (12.9)" for a range.
std::string min_driver_text(const system::ToolkitRange& run) {
  if (run.newest.version == run.oldest.version) return run.newest.min_driver.str();
  return fmt::format("{} ({}) to {} ({})", run.oldest.min_driver.str(), run.oldest.version.str(),
                     run.newest.min_driver.str(), run.newest.version.str());
}

void print_driver(const system::CudaReport& report) {
  fmt::print("NVIDIA driver\n");
  fmt::print("  release      : {}\n", report.driver_release.empty()
                                          ? std::string("unknown")
                                          : fmt::format("{}  (from {})", report.driver_release,
                                                        report.driver_release_source));
  if (report.driver_cuda_version) {
    fmt::print("  CUDA version : {}  (driver API {})\n", system::format_cuda_version(*report.driver_cuda_version),
               *report.driver_cuda_version);
  }
  if (!report.library_path.empty()) {
    fmt::print("  library      : {}  (answered through {})\n", report.library_path,
               report.source ? system::to_string(*report.source) : "?");
  }
}

void print_devices(const system::CudaReport& report, const system::CudaCompatibilityTables& tables) {
  fmt::print("\nGPUs\n");
  if (report.devices.empty()) fmt::print("  none visible\n");
  for (const auto& device : report.devices) {
    const auto* info = tables.architecture(device.compute_capability);
    fmt::print("  {}  {}  compute capability {} ({}{})  {:.1f} GiB\n", device.index, device.name,
               device.compute_capability.str(), device.compute_capability.sm(),
               info != nullptr ? ", " + info->architecture : std::string(),
               static_cast<double>(device.memory_bytes) / (1024.0 * 1024 * 1024));
    fmt::print("     {}  PCI {}\n", device.uuid.empty() ? "(no UUID)" : device.uuid,
               device.pci_bus_id.empty() ? "?" : device.pci_bus_id);
  }
}

std::string device_target_text(DeviceTarget target, system::ComputeCapability capability) {
  switch (target) {
    case DeviceTarget::sass: return fmt::format("builds {} machine code", capability.sm());
    case DeviceTarget::ptx_only: return "too old for this GPU: runs only PTX the driver compiles at load time";
    case DeviceTarget::unsupported: return "dropped this GPU: cannot build code for it";
    case DeviceTarget::unknown: return "not in gpuenv's tables";
  }
  return {};
}

void print_toolkits(const std::vector<ToolkitVerdict>& verdicts, const system::CudaReport& report,
                    const system::CudaCompatibilityTables& tables) {
  if (verdicts.empty()) return;
  fmt::print("\nCUDA toolkits this driver can run\n");
  const auto runs = system::toolkit_support_ranges(verdicts);
  for (const auto& run : runs) {
    std::string text;
    switch (run.newest.support) {
      case ToolkitSupport::native: text = "yes"; break;
      case ToolkitSupport::minor_version_compatibility:
        text = fmt::format("yes, via minor-version compatibility (full support needs >= {})", min_driver_text(run));
        break;
      case ToolkitSupport::needs_newer_driver: text = fmt::format("no: needs driver >= {}", min_driver_text(run)); break;
    }
    fmt::print("  {:<14} {}\n", range_text(run), text);
  }

  if (report.devices.empty()) return;
  fmt::print("\nWhich of them can build code for each GPU\n");
  for (const auto& device : report.devices) {
    fmt::print("  GPU {} ({}):\n", device.index, device.compute_capability.sm());
    for (const auto& run : system::device_target_ranges(tables, verdicts, device.compute_capability)) {
      fmt::print("    {:<14} {}\n", range_text(run), device_target_text(run.target, device.compute_capability));
    }
  }
}

void print_human(const system::SystemSurvey& survey, const system::CudaCompatibilityTables& tables) {
  const auto& detection = *survey.cuda;
  const auto& report = detection.report;
  if (system::driver_usable(report)) {
    print_driver(report);
    print_devices(report, tables);
  } else {
    fmt::print("No usable NVIDIA driver ({})\n", system::to_string(report.status));
    if (!report.driver_release.empty()) {
      fmt::print("  kernel driver : {}  (from {})\n", report.driver_release, report.driver_release_source);
    }
  }
  if (!report.message.empty()) {
    fmt::print("\n  what happened : {}\n", report.message);
    fmt::print("  what to do    : {}\n", report.remedy);
  }
  for (const auto& note : report.notes) fmt::print("  note          : {}\n", note);

  fmt::print("\nVirtual packages\n");
  for (const auto& package : survey.virtual_packages.packages) fmt::print("  {}\n", package.str());
  if (!system::driver_usable(report)) fmt::print("  (no __cuda: {})\n", system::short_failure(report));

  print_toolkits(system::toolkits_for_driver(report, tables), report, tables);

  const auto& cache = detection.cache;
  fmt::print("\nDetection: ");
  if (cache.state == system::CacheOutcome::State::hit) {
    fmt::print("from the cache {} (the driver was not asked; --refresh asks it)\n", cache.file.string());
  } else {
    fmt::print("asked the driver ({:.0f} ms; cache {}: {})\n", report.probe_ms, system::to_string(cache.state),
               cache.reason);
  }
  if (!cache.write_error.empty()) fmt::print("  could not cache the result: {}\n", cache.write_error);
}

int run_cuda(const CudaOptions& options) {
  system::SurveyOptions survey_options;
  survey_options.program_version = GPUENV_VERSION;
  survey_options.refresh = options.refresh;
  survey_options.always_detect_cuda = true;
  if (options.timeout_given) {
    survey_options.time_limit = system::parse_time_limit(fmt::format("{}", options.timeout_s));
    if (!survey_options.time_limit) {
      fmt::print(stderr, "gpuenv: error: --timeout needs a positive number of seconds, got {}\n",
                 options.timeout_s);
      return 2;
    }
  }
  const auto survey = system::survey_system(util::process_environment(), survey_options);
  const auto tables = system::CudaCompatibilityTables::load();
  const auto conditions = environment::decide_conditions_on_machine(
      options.conditions, system::MachineDescription::of_survey(survey, ""));
  if (!conditions) {
    fmt::print(stderr, "gpuenv: error: --when: {}\n", conditions.error());
    return 2;
  }
  if (options.json) {
    auto document = system::cuda_survey_to_json(survey, tables);
    if (!conditions->empty()) {
      auto& list = document["conditions"] = json::array();
      for (const auto& condition : *conditions) {
        list.push_back({{"when", condition.condition}, {"held", condition.held}, {"facts", condition.facts},
                        {"line", condition.line()}});
      }
    }
    fmt::print("{}\n", document.dump(2));
  } else {
    print_human(survey, tables);
    if (!conditions->empty()) fmt::print("\nConditions (CEP 43, decided on this machine):\n");
    for (const auto& condition : *conditions) fmt::print("  {}\n", condition.line());
    for (const auto& warning : survey.warnings) fmt::print(stderr, "gpuenv: warning: {}\n", warning);
  }
  return 0;
}

}  // namespace

void add_cuda_command(CLI::App& app, Runner& run) {
  auto* sub = app.add_subcommand("cuda", "Report the NVIDIA driver, GPUs and the CUDA virtual packages");
  auto options = std::make_shared<CudaOptions>();
  sub->add_flag("--json", options->json, "Print one JSON document (see docs/json-output.md)");
  sub->add_flag("--refresh", options->refresh, "Ask the driver again instead of using the cached answer");
  sub->add_option("--when", options->conditions,
                  "A CEP 43 condition (`__cuda>=12 and __linux`) to decide on this machine: says whether it holds "
                  "and why (repeatable)");
  auto* timeout = sub->add_option("--timeout", options->timeout_s,
                                  "Seconds the driver may take to answer (default 10, or GPUENV_CUDA_TIMEOUT)");
  sub->callback([&run, options, timeout] {
    options->timeout_given = timeout->count() > 0;
    run = [options] { return run_cuda(*options); };
  });
}

}  // namespace gpuenv::cli
