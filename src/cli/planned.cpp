// Subcommands whose issue has not landed yet. They exist so `gpuenv --help`
// shows the whole tool, and fail clearly (exit 2) instead of doing nothing.
#include <fmt/core.h>

#include <string>

#include "command.hpp"

namespace gpuenv::cli {
namespace {

struct PlannedCommand {
  const char* name;
  const char* description;
};

constexpr PlannedCommand planned_commands[] = {
    {"test", "Test built packages in fresh environments"},
};

}  // namespace

void add_planned_commands(CLI::App& app, Runner& run) {
  for (const auto& planned : planned_commands) {
    auto* sub = app.add_subcommand(planned.name, planned.description);
    // Accept anything so the message below, not a parse error, is what users see.
    sub->allow_extras();
    sub->callback([&run, name = std::string(planned.name)] {
      run = [name] {
        fmt::print(stderr,
                   "gpuenv: error: 'gpuenv {}' is not implemented yet in this version "
                   "of gpuenv; use conda or mamba for this step for now\n",
                   name);
        return 2;
      };
    });
  }
}

}  // namespace gpuenv::cli
