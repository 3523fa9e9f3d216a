// `gpuenv create`: a new environment from package specs (solved against the
// channels and this machine's virtual packages) or from a file: an
// environment.yml, a spec list, or an explicit lockfile installed as it is.
#include <memory>

#include "command.hpp"
#include "environment_change.hpp"

namespace gpuenv::cli {

void add_create_command(CLI::App& app, Runner& run) {
  auto arguments = std::make_shared<ChangeArguments>();
  auto* sub = app.add_subcommand("create", "Create an environment from package specs or a file");
  add_change_options(sub, *arguments, environment::ChangeKind::create);
  sub->callback([&run, arguments] {
    run = [arguments] { return run_change(environment::ChangeKind::create, *arguments); };
  });
}

}  // namespace gpuenv::cli
