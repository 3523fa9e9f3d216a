// plan(settings, request): what `create`, `install`, `update` and `remove`
// -- and the builder's build, host and test environments -- would change,
// decided before anything is changed.
//
//   resolve the request's files (environment.yml, spec lists, @EXPLICIT)
//   ─► (install/update/remove) hold the environment against other gpuenv
//   changes, settle an interrupted transaction, read conda-meta and the
//   user's earlier requests (conda-meta/history) ─► load the channels the
//   specs can reach ─► survey this machine (virtual packages) ─► solve
//   (or take an explicit file's packages as they are)
//
// apply() (apply.hpp) carries a plan out.
#pragma once

#include <expected>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gpuenv/environment/conditional_dependencies.hpp"
#include "gpuenv/environment/deps_modifier.hpp"
#include "gpuenv/environment/error.hpp"
#include "gpuenv/environment/reporter.hpp"
#include "gpuenv/environment/settings.hpp"
#include "gpuenv/prefix/file_lock.hpp"
#include "gpuenv/prefix/prefix_record.hpp"
#include "gpuenv/solver/channel_loader.hpp"
#include "gpuenv/solver/solver.hpp"
#include "gpuenv/system/virtual_package_explanation.hpp"

namespace gpuenv::environment {

enum class ChangeKind { create, install, update, remove };

// What --file files (create and install) say, merged in the order given:
// the first environment.yml `name:`, their channels and specs, or one
// explicit lockfile's packages (then nothing else: it names the whole result).
struct RequestFiles {
  std::string name;
  std::vector<std::string> channels;
  std::vector<std::string> specs;
  bool is_explicit = false;
  std::vector<specs::PackageRecord> explicit_packages;
};

// Reads `files`; `has_specs` says whether specs were given besides (an
// explicit file refuses them). Warnings (keys gpuenv does not act on) go to
// `reporter`. Errors name the file and line.
std::expected<RequestFiles, Error> read_request_files(const std::vector<std::filesystem::path>& files,
                                                      bool has_specs, const specs::ChannelContext& context,
                                                      Reporter& reporter);

struct ChangeRequest {
  ChangeKind kind = ChangeKind::install;
  std::filesystem::path prefix;  // absolute (resolve_prefix)
  // Package specs as the user wrote them (conda's MatchSpec syntax), after
  // the files' specs; for remove, the packages to remove.
  std::vector<std::string> specs;
  // What the --file files said (their specs are not repeated in `specs`).
  RequestFiles files;
  bool update_all = false;  // update --all
  // create and install: --no-deps / --only-deps (deps_modifier.hpp).
  DepsModifier deps_modifier = DepsModifier::none;
  // Only plan: nothing will be applied, so `create` leaves what it finds at
  // the prefix alone.
  bool dry_run = false;
};

struct Plan {
  ChangeKind kind = ChangeKind::install;
  std::filesystem::path prefix;
  solver::Solution solution;  // link and unlink, in order
  // The channels loaded (empty when nothing was solved: remove, explicit files).
  solver::ChannelLoadResult loaded;
  // The machine solved for; platform empty when nothing was solved.
  system::MachineDescription machine;
  // For conda-meta/history and the records' requested_spec.
  std::vector<std::string> update_specs;
  std::vector<std::string> remove_specs;
  std::map<std::string, std::string> requested_specs;
  // CEP 43: whether each conditional dependency of the linked packages (and
  // of the request) held, and why.
  std::vector<ConditionOutcome> conditions;
  // What to say when there is nothing to do.
  std::string nothing_to_do = "All requested packages already installed.";
  // install/update/remove hold the environment from plan to apply, so a
  // second gpuenv waits and then solves against what the first installed.
  std::optional<prefix::FileLock> change_lock;

  bool changes_nothing() const { return solution.link.empty() && solution.unlink.empty(); }
};

// `create` goes only where nothing is: a missing or empty directory, or one
// whose only content is a rolled-back earlier attempt (settled first).
std::expected<void, Error> check_new_prefix(const std::filesystem::path& prefix, Reporter& reporter);

// The specs the user asked for in earlier transactions, by package name:
// conda-meta/history's requests (as conda's History reads them) for the
// packages still installed, else a record's requested_spec. Unreadable
// ones are reported and skipped.
std::map<std::string, specs::MatchSpec> earlier_requests(const std::filesystem::path& prefix,
                                                         const std::vector<prefix::PrefixRecord>& records,
                                                         const specs::ChannelContext& context,
                                                         Reporter& reporter);

std::expected<Plan, Error> plan(const Settings& settings, const ChangeRequest& request, Reporter& reporter);

}  // namespace gpuenv::environment
