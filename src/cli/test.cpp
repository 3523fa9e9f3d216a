// `gpuenv test PKG_FILE...`: re-runs the tests a built package carries
// (info/tests/tests.yaml) in fresh environments, as `gpuenv build` runs
// them before a package enters its output channel; the build module does
// the work. Exit status: 0 all passed, 1 a test failed (or could not be set
// up), 2 a usage mistake (no such file, a bad option).
#include <fmt/core.h>

#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "build_observer.hpp"
#include "channel_setup.hpp"
#include "command.hpp"
#include "error_output.hpp"
#include "gpuenv/builder/package_tests.hpp"
#include "gpuenv/specs/platform.hpp"

namespace gpuenv::cli {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

struct TestArguments {
  std::vector<std::string> packages;
  ChannelArguments channels;
  bool json = false;
};

int run_test(const TestArguments& arguments) {
  for (const auto& package : arguments.packages) {
    std::error_code error;
    if (!fs::is_regular_file(package, error)) {
      return report_usage_error(package + " is not a package file: give the path of a .conda or .tar.bz2",
                                arguments.json);
    }
  }
  const auto settings = environment::load_settings(settings_overrides(arguments.channels), util::process_environment());
  if (!settings) return report_error(settings.error(), arguments.json);
  CliBuildObserver observer(arguments.json);
  json results = json::array();
  int status = 0;
  for (const auto& package : arguments.packages) {
    const auto tested = build::test_package_file(package, *settings, std::string(specs::Platform::current().str()),
                                                 observer);
    json entry = {{"package", fs::absolute(package).string()}, {"success", tested.report.has_value()}};
    if (tested.report) {
      entry["tests"] = tested.report->tests;
      if (!arguments.json) fmt::print("{}: {} test(s) passed\n", package, tested.report->tests);
    } else {
      entry["error"] = tested.report.error().message;
      entry["log"] = tested.log_file.string();
      status = 1;
      if (!arguments.json) fmt::print(stderr, "gpuenv: error: {}\n", tested.report.error().message);
    }
    results.push_back(std::move(entry));
  }
  if (arguments.json) fmt::print("{}\n", json{{"success", status == 0}, {"packages", results}}.dump(2));
  return status;
}

}  // namespace

void add_test_command(CLI::App& app, Runner& run) {
  auto arguments = std::make_shared<TestArguments>();
  auto* sub = app.add_subcommand("test", "Run the tests a built package carries, in fresh environments");
  sub->add_option("-p,--package-file,package", arguments->packages, "A .conda or .tar.bz2 package (repeatable)")
      ->required();
  sub->add_option("-c,--channel", arguments->channels.channels,
                  "A channel for the test environments (repeatable; before the configured ones)")
      ->allow_extra_args(false);
  sub->add_flag("--override-channels", arguments->channels.override_channels,
                "Use only the -c channels, not the configured ones");
  sub->add_flag("--json", arguments->json, "Print JSON (the tests' output only in the log)");
  sub->callback([&run, arguments] { run = [arguments] { return run_test(*arguments); }; });
}

}  // namespace gpuenv::cli
