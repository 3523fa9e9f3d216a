// `gpuenv index DIR`: writes repodata.json, repodata.json.zst and
// run_exports.json for each subdir of a local channel, incrementally (the
// repodata module does the work; docs/channel-index.md). Text or --json
// (docs/json-output.md). Package files that could not be indexed are
// listed and make the exit status 1; the repodata is written without them.
#include <fmt/core.h>

#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "command.hpp"
#include "error_output.hpp"
#include "gpuenv/repodata/channel_index.hpp"

namespace gpuenv::cli {
namespace {

using json = nlohmann::ordered_json;

struct IndexArguments {
  std::string directory;
  bool json = false;
};

json result_json(const repodata::ChannelIndexResult& result) {
  json subdirs = json::array();
  for (const auto& subdir : result.subdirs) {
    subdirs.push_back({{"subdir", subdir.subdir},
                       {"packages", subdir.packages},
                       {"read", subdir.read},
                       {"reused", subdir.reused},
                       {"removed", subdir.removed},
                       {"repodata_changed", subdir.repodata_changed}});
  }
  json problems = json::array();
  for (const auto& problem : result.problems) {
    problems.push_back({{"subdir", problem.subdir},
                        {"file", problem.file.empty() ? json(nullptr) : json(problem.file)},
                        {"message", problem.message}});
  }
  return {{"schema_version", 1},
          {"success", result.problems.empty()},
          {"channel", result.channel.string()},
          {"packages", result.packages()},
          {"read", result.read()},
          {"reused", result.reused()},
          {"removed", result.removed()},
          {"subdirs", std::move(subdirs)},
          {"problems", std::move(problems)}};
}

void print_result(const repodata::ChannelIndexResult& result) {
  for (const auto& subdir : result.subdirs) {
    fmt::print("{}: {} package{} ({} read, {} unchanged, {} removed){}\n", subdir.subdir, subdir.packages,
               subdir.packages == 1 ? "" : "s", subdir.read, subdir.reused, subdir.removed,
               subdir.repodata_changed ? "" : "; repodata.json unchanged");
  }
}

// On stderr whatever the output format, as every command's warnings.
void print_problems(const repodata::ChannelIndexResult& result) {
  if (result.problems.empty()) return;
  std::fflush(stdout);
  for (const auto& problem : result.problems) fmt::print(stderr, "gpuenv: warning: {}\n", problem.message);
  fmt::print(stderr, "gpuenv: error: the index of {} leaves out what the {} above name{}\n", result.channel.string(),
             result.problems.size() == 1 ? "warning" : fmt::format("{} warnings", result.problems.size()),
             result.problems.size() == 1 ? "s" : "");
}

int run_index(const IndexArguments& arguments) {
  // Checked here rather than by CLI11 so that the mistake exits 2, as usage errors do.
  if (arguments.directory.empty()) {
    return report_usage_error("name the channel directory to index: gpuenv index DIR", arguments.json);
  }
  const auto indexed = repodata::index_channel(arguments.directory);
  if (!indexed) {
    const auto& error = indexed.error();
    // Naming something that is not a directory is the command line's mistake.
    if (error.kind == repodata::ChannelIndexError::Kind::not_a_channel) {
      return report_usage_error(error.message, arguments.json);
    }
    return report_error(environment::make_error(environment::ErrorKind::channel, error.message), arguments.json);
  }
  if (arguments.json) {
    // A problem's file name is whatever bytes the directory holds: invalid
    // UTF-8 is replaced rather than failing the whole document.
    fmt::print("{}\n", result_json(*indexed).dump(2, ' ', false, json::error_handler_t::replace));
  } else {
    print_result(*indexed);
  }
  print_problems(*indexed);
  return indexed->problems.empty() ? 0 : 1;
}

}  // namespace

void add_index_command(CLI::App& app, Runner& run) {
  auto arguments = std::make_shared<IndexArguments>();
  auto* sub = app.add_subcommand("index",
                                 "Write repodata.json (and .zst, run_exports.json) for a local channel, incrementally");
  sub->add_option("directory", arguments->directory,
                  "The channel directory: the one holding linux-64/, noarch/, ... with .conda and .tar.bz2 files");
  sub->add_flag("--json", arguments->json, "Print JSON");
  sub->callback([&run, arguments] { run = [arguments] { return run_index(*arguments); }; });
}

}  // namespace gpuenv::cli
