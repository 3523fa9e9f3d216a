// `gpuenv install`, `gpuenv update` and `gpuenv remove`: changing an
// existing environment as conda does (environment::plan says how). What is
// installed stays unless the request needs it to change; the specs the user
// asked for earlier (conda-meta/history) keep constraining the solve;
// removing a package removes what depends on it too.
#include <memory>

#include "command.hpp"
#include "environment_change.hpp"

namespace gpuenv::cli {
namespace {

void add_change_command(CLI::App& app, Runner& run, environment::ChangeKind kind, const char* name,
                        const char* description) {
  auto arguments = std::make_shared<ChangeArguments>();
  auto* sub = app.add_subcommand(name, description);
  if (kind == environment::ChangeKind::remove) sub->alias("uninstall");
  add_change_options(sub, *arguments, kind);
  sub->callback([&run, arguments, kind] { run = [arguments, kind] { return run_change(kind, *arguments); }; });
}

}  // namespace

void add_install_command(CLI::App& app, Runner& run) {
  add_change_command(app, run, environment::ChangeKind::install, "install", "Install packages into an environment");
}

void add_update_command(CLI::App& app, Runner& run) {
  add_change_command(app, run, environment::ChangeKind::update, "update", "Update packages in an environment");
}

void add_remove_command(CLI::App& app, Runner& run) {
  add_change_command(app, run, environment::ChangeKind::remove, "remove",
                     "Remove packages (and what depends on them) from an environment");
}

}  // namespace gpuenv::cli
