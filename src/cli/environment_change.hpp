// What `create`, `install`, `update` and `remove` share: their options, and
// the command around the environment layer --
//
//   settings (configuration + options) ─► --file files ─► the prefix (-p/-n)
//   ─► environment::plan ─► show the plan ─► ask ─► environment::apply
//   (progress through the TerminalReporter) ─► summary
#pragma once

#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

#include "channel_setup.hpp"
#include "gpuenv/environment/error.hpp"
#include "gpuenv/environment/plan.hpp"
#include "gpuenv/environment/settings.hpp"
#include "prefix_arguments.hpp"

namespace gpuenv::cli {

struct ChangeArguments {
  PrefixArguments where;
  ChannelArguments channels;
  std::vector<std::string> files;  // --file, repeatable
  std::vector<std::string> specs;
  bool dry_run = false;
  bool json = false;
  bool yes = false;
  bool override_frozen = false;
  bool update_all = false;  // update --all
  bool remove_all = false;  // remove --all: the whole environment (conda env remove)
  bool no_deps = false;     // create, install
  bool only_deps = false;   // create, install
  std::string clone;        // create --clone: the environment (name or path) to copy
};

// Registers the options `kind` takes: -p/-n, -y, --json, --dry-run,
// --override-frozen, and for the solving commands -c and its kin, for
// create and install --file, --no-deps and --only-deps, for update --all,
// for remove --all.
void add_change_options(CLI::App* command, ChangeArguments& arguments, environment::ChangeKind kind);

// Unless `yes`, `json` or always_yes: asks "Proceed ([y]/n)?" on the
// terminal. The exit status to stop with when the answer is no (or there is
// no terminal to ask on), else nothing.
std::optional<int> ask_to_go_ahead(bool yes, bool json, const environment::Settings& settings);

// The whole command; returns its exit status.
int run_change(environment::ChangeKind kind, const ChangeArguments& arguments);

}  // namespace gpuenv::cli
