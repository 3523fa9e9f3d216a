#include <fmt/core.h>

#include "command.hpp"
#include "gpuenv/specs/platform.hpp"

namespace gpuenv::cli {

void add_info_command(CLI::App& app, Runner& run) {
  auto* sub = app.add_subcommand("info", "Show gpuenv's version, platform and configuration");
  sub->callback([&run] {
    run = [] {
      fmt::print("     gpuenv version : {}\n", GPUENV_VERSION);
      fmt::print("           platform : {}\n", specs::Platform::current().str());
      return 0;
    };
  });
}

}  // namespace gpuenv::cli
