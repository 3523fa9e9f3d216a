// What `create`, `install`, `update` and `remove` share: their options,
// the --file files, solving for this machine, the plan they show, the
// confirmation, the transaction and its report.
//
//   resolve the prefix ─► (install/update/remove) lock the environment against
//   other gpuenv changes, settle an interrupted transaction, read conda-meta
//   ─► solve (or take an explicit file's packages) ─► show the plan ─► ask
//   ─► prefix::apply_transaction with a progress line ─► summary
#pragma once

#include <CLI/CLI.hpp>

#include <expected>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "channel_setup.hpp"
#include "environment_file.hpp"
#include "gpuenv/prefix/file_lock.hpp"
#include "gpuenv/prefix/prefix_record.hpp"
#include "gpuenv/prefix/transaction_journal.hpp"
#include "gpuenv/solver/machine_facts.hpp"
#include "gpuenv/solver/solver.hpp"
#include "gpuenv/util/environment.hpp"
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
};

enum class ChangeCommand { create, install, update, remove };

// Registers the options `command` takes: -p/-n, -y, --json, --dry-run,
// --override-frozen, and for the solving commands -c and its kin, for
// create and install --file.
void add_change_options(CLI::App* command, ChangeArguments& arguments, ChangeCommand kind);

// How channel names resolve, from conda's configuration; a broken
// configuration is an error the command reports (as JSON with --json).
std::expected<specs::ChannelContext, std::string> read_channel_context(const util::EnvLookup& env);

// Prints `message` as an error (stderr, or conda's --json failure shape on
// stdout) and returns `exit_code`.
int report_error(const ChangeArguments& arguments, const std::string& message, int exit_code = 1,
                 const std::string& exception_name = "CondaValueError");

// What the --file files say, merged in the order given.
// The specs to install, update or remove, each checked with
// parse_requested_spec; on failure the error is reported and its exit
// status returned.
std::expected<std::vector<specs::MatchSpec>, int> parse_requested_specs(const ChangeArguments& arguments,
                                                                        const std::vector<std::string>& texts,
                                                                        const specs::ChannelContext& context);

struct ChangeFiles {
  std::string name;                   // the first environment.yml `name:`
  std::vector<std::string> channels;  // their channels, after any -c
  std::vector<std::string> specs;
  bool is_explicit = false;
  std::vector<specs::PackageRecord> explicit_packages;
};

// An explicit file cannot be mixed with specs or other files: it names the
// whole result.
std::expected<ChangeFiles, std::string> read_change_files(const ChangeArguments& arguments,
                                                          const specs::ChannelContext& context);

// What create and install start from: how channel names resolve (conda's
// configuration) and what their --file files say.
struct ChangeInputs {
  specs::ChannelContext context;
  ChangeFiles files;
};
std::expected<ChangeInputs, std::string> read_change_inputs(const ChangeArguments& arguments,
                                                            const util::EnvLookup& env);

// An existing environment, held against other gpuenv changes (a second
// `gpuenv install` waits, then solves against what the first installed),
// with an interrupted transaction settled and its records read.
struct OpenedEnvironment {
  std::optional<prefix::FileLock> change_lock;
  prefix::RecoveryOutcome recovery = prefix::RecoveryOutcome::nothing_to_recover;
  prefix::InstalledPackages installed;
  std::vector<specs::PackageRecord> packages() const;
};

// Fails when `prefix` is not an environment (no conda-meta/), naming what to do.
std::expected<OpenedEnvironment, std::string> open_environment(const std::filesystem::path& prefix);

// `create` goes only where nothing is: a missing or empty directory, or one
// whose only content is a rolled-back earlier attempt. An interrupted
// transaction there is settled first.
std::expected<void, std::string> check_new_prefix(const std::filesystem::path& prefix);

// The specs the user asked for in earlier transactions (the records'
// requested_spec / requested_specs, conda's history), by package name.
std::map<std::string, specs::MatchSpec> requested_specs_of(const std::vector<prefix::PrefixRecord>& records,
                                                            const specs::ChannelContext& context);

struct PlannedChange {
  std::filesystem::path prefix;
  solver::Solution solution;
  solver::ChannelLoadResult loaded;
  solver::MachineFacts machine;  // platform empty when nothing was solved (explicit files)
  // For conda-meta/history and the records' requested_spec.
  std::vector<std::string> update_specs;
  std::vector<std::string> remove_specs;
  std::map<std::string, std::string> requested_specs;
  // conda's safety_checks and extra_safety_checks, from the configuration.
  util::SafetyChecksSetting safety_checks = util::SafetyChecksSetting::warn;
  bool extra_safety_checks = false;
  net::ClientSettings client;  // for the package downloads
  // What to say when there is nothing to do.
  std::string nothing_to_do = "All requested packages already installed.";
};

// Loads the channels (unless `load_channels` is false: removals need only
// the installed records), surveys this machine and solves `request` with
// `installed` as the environment's packages. A failure is reported before
// returning its exit status.
std::expected<PlannedChange, int> solve_change(const ChangeArguments& arguments, const ChannelArguments& channels,
                                               const std::filesystem::path& prefix,
                                               const std::vector<specs::PackageRecord>& installed,
                                               const solver::SolveRequest& request, bool load_channels,
                                               const util::EnvLookup& env);

// Shows the plan and, unless a dry run, asks (on a terminal, without -y),
// applies the transaction with a progress line and reports what changed.
// Returns the exit status.
int carry_out_change(const PlannedChange& change, const ChangeArguments& arguments, const util::EnvLookup& env);

}  // namespace gpuenv::cli
