// `gpuenv search SPEC`: the channel records a MatchSpec selects, listed the
// way `conda search` lists them (oldest to newest), or as conda's --json
// ({"<name>": [records...]}).
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>

#include "channel_setup.hpp"
#include "gpuenv/environment/channel_names.hpp"
#include "command.hpp"
#include "gpuenv/environment/search.hpp"
#include "solve_output.hpp"
#include "terminal_reporter.hpp"

namespace gpuenv::cli {
namespace {

struct SearchArguments {
  std::string spec;
  ChannelArguments channels;
  bool json = false;
};

int fail(const SearchArguments& arguments, const environment::Error& error) {
  if (arguments.json) {
    print_json_failure(error.message, {}, environment::conda_exception_name(error.kind));
  } else {
    std::fflush(stdout);
    fmt::print(stderr, "gpuenv: error: {}\n", error.message);
  }
  return environment::exit_status(error.kind);
}

void print_table(const std::vector<specs::PackageRecord>& records, const solver::ChannelLoadResult& loaded) {
  std::size_t name_width = 25;
  std::size_t version_width = 15;
  std::size_t build_width = 15;
  for (const auto& record : records) {
    name_width = std::max(name_width, record.name.size());
    version_width = std::max(version_width, record.version.size());
    build_width = std::max(build_width, record.build.size());
  }
  fmt::print("{:<{}} {:>{}} {:>{}}  {}\n", "# Name", name_width, "Version", version_width, "Build", build_width,
             "Channel");
  for (const auto* record : environment::oldest_first(records)) {
    fmt::print("{:<{}} {:>{}} {:>{}}  {}\n", record->name, name_width, record->version, version_width,
               record->build, build_width, environment::channel_name_of(*record, loaded));
  }
}

int run_search(const SearchArguments& arguments) {
  // .condarc and CONDA_*: channels, channel_alias, offline, subdir.
  TerminalReporter reporter(!arguments.json);
  const auto settings =
      environment::load_settings(settings_overrides(arguments.channels), util::process_environment());
  if (!settings) return fail(arguments, settings.error());
  for (const auto& warning : settings->warnings) reporter.warning(warning);
  const auto found = environment::search(*settings, arguments.spec, reporter);
  if (!found) return fail(arguments, found.error());
  if (arguments.json) {
    fmt::print("{}\n", environment::conda_search_json(found->records));
  } else {
    print_table(found->records, found->loaded);
  }
  return 0;
}

}  // namespace

void add_search_command(CLI::App& app, Runner& run) {
  auto arguments = std::make_shared<SearchArguments>();
  auto* sub = app.add_subcommand("search", "Search channels for packages");
  sub->add_option("spec", arguments->spec, "What to look for (a MatchSpec: numpy, 'numpy>=1.26', 'cuda-*')")
      ->required();
  add_channel_options(sub, arguments->channels);
  sub->add_flag("--json", arguments->json, "Report as JSON (conda's shape)");
  sub->callback([&run, arguments] { run = [arguments] { return run_search(*arguments); }; });
}

}  // namespace gpuenv::cli
