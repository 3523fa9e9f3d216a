#include "gpuenv/environment/plan.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <set>

#include "gpuenv/environment/channel_loading.hpp"
#include "gpuenv/environment/conditional_dependencies.hpp"
#include "gpuenv/environment/environment_file.hpp"
#include "gpuenv/environment/history_requests.hpp"
#include "gpuenv/environment/installed_environment.hpp"
#include "gpuenv/environment/requested_spec.hpp"
#include "gpuenv/environment/solve_memo.hpp"
#include "gpuenv/environment/target_machine.hpp"
#include "gpuenv/prefix/prefix_error.hpp"
#include "gpuenv/prefix/transaction.hpp"
#include "gpuenv/specs/spec_error.hpp"
#include "gpuenv/system/system_survey.hpp"
#include "gpuenv/util/file_io.hpp"

namespace gpuenv::environment {
namespace {

namespace fs = std::filesystem;

bool is_gpuenv_internal(const std::string& name) { return name.starts_with(".gpuenv"); }

std::optional<std::string> exact_name(const specs::MatchSpec& spec) {
  const auto name = spec.name().exact_value();
  return name ? std::optional<std::string>(std::string(*name)) : std::nullopt;
}

std::expected<std::vector<specs::MatchSpec>, Error> parse_requested(const std::vector<std::string>& texts,
                                                                   const specs::ChannelContext& context) {
  std::vector<specs::MatchSpec> parsed;
  parsed.reserve(texts.size());
  for (const auto& text : texts) {
    auto spec = parse_requested_spec(text, context);
    if (!spec) return std::unexpected(make_error(ErrorKind::invalid_spec, spec.error()));
    parsed.push_back(std::move(*spec));
  }
  return parsed;
}

// An existing environment, held against other gpuenv changes, with an
// interrupted transaction settled and its records read.
struct OpenedEnvironment {
  prefix::FileLock change_lock;
  prefix::InstalledPackages installed;
  std::vector<specs::PackageRecord> packages() const {
    std::vector<specs::PackageRecord> packages;
    packages.reserve(installed.records.size());
    for (const auto& record : installed.records) packages.push_back(record.package);
    return packages;
  }
};

std::expected<OpenedEnvironment, Error> open_environment(const fs::path& prefix, Reporter& reporter) {
  std::error_code error;
  if (!fs::is_directory(prefix / "conda-meta", error)) {
    return std::unexpected(make_error(
        ErrorKind::not_an_environment,
        fmt::format("{} is not an environment (it has no conda-meta directory): create it with `gpuenv create -p {}`",
                    prefix.string(), prefix.string())));
  }
  try {
    // Not the prefix lock itself: apply_transaction takes that one, and
    // flock locks of one process exclude each other.
    auto lock = prefix::FileLock::acquire(prefix / "conda-meta" / ".gpuenv-change.lock", std::chrono::hours(1),
                                          [&](const std::string& message) { reporter.notice(message); });
    const auto outcome = prefix::recover_prefix(prefix);
    if (const auto note = recovery_note(outcome, prefix); !note.empty()) reporter.notice(note);
    OpenedEnvironment opened{std::move(lock), prefix::read_prefix_records(prefix)};
    for (const auto& problem : opened.installed.problems) reporter.warning(problem);
    return opened;
  } catch (const prefix::PrefixError& failure) {
    return std::unexpected(make_error(ErrorKind::transaction, failure.what()));
  }
}

// An explicit file into an existing environment: its packages replace the
// installed builds of the same names; what is already there stays.
solver::Solution explicit_change(const std::vector<specs::PackageRecord>& packages,
                                 const std::vector<specs::PackageRecord>& installed) {
  solver::Solution solution;
  std::map<std::string, const specs::PackageRecord*> installed_by_name;
  for (const auto& record : installed) installed_by_name[record.name] = &record;
  for (const auto& package : packages) {
    const auto found = installed_by_name.find(package.name);
    if (found != installed_by_name.end()) {
      if (found->second->dist_str() == package.dist_str()) continue;
      solution.unlink.push_back(*found->second);
    }
    solution.link.push_back(package);
  }
  return solution;
}

// An explicit file names the whole result: there are no dependencies to
// leave out or to install alone.
std::expected<void, Error> refuse_deps_modifier_for_explicit(const ChangeRequest& request) {
  if (request.deps_modifier == DepsModifier::none) return {};
  return std::unexpected(make_error(ErrorKind::usage,
                                    "--no-deps and --only-deps apply to solved requests: an explicit file "
                                    "installs exactly the packages it lists, so leave the option out"));
}

// conda records an explicit file's packages in conda-meta/history as
// exact specs, so later solves keep those builds.
std::vector<std::string> exact_specs_of(const std::vector<specs::PackageRecord>& packages) {
  std::vector<std::string> exact;
  exact.reserve(packages.size());
  for (const auto& package : packages) {
    exact.push_back(fmt::format("{}=={}={}", package.name, package.version, package.build));
  }
  return exact;
}

// conda removes the named packages and whatever needs them, and keeps the
// rest: the solver's removal also takes dependencies nothing needs any more
// (libsolv's cleandeps, as mamba does), which conda leaves installed.
void keep_only_removed_and_dependents(solver::Solution& solution, const std::vector<specs::MatchSpec>& to_remove,
                                      const std::vector<specs::PackageRecord>& installed) {
  std::set<std::string> removed;
  for (const auto& record : installed) {
    for (const auto& spec : to_remove) {
      if (spec.matches(record)) removed.insert(record.name);
    }
  }
  // A package one of whose dependencies names a removed package goes too,
  // until no more do (one build per name: nothing else can satisfy it).
  for (bool grew = true; grew;) {
    grew = false;
    for (const auto& record : installed) {
      if (removed.contains(record.name)) continue;
      for (const auto& dependency : record.depends) {
        const auto name = specs::MatchSpec::extract_name(dependency);
        if (name && removed.contains(*name)) {
          removed.insert(record.name);
          grew = true;
          break;
        }
      }
    }
  }
  std::erase_if(solution.unlink, [&](const specs::PackageRecord& record) { return !removed.contains(record.name); });
}

// The virtual packages of this machine (CUDA detection through its cache,
// CONDA_OVERRIDE_* honoured), or of the platform named.
system::MachineDescription survey_machine(const Settings& settings, Reporter& reporter) {
  system::SurveyOptions survey_options;
  survey_options.program_version = GPUENV_VERSION;
  const auto survey = system::survey_system(settings.env, survey_options);
  for (const auto& warning : survey.warnings) reporter.warning(warning);
  auto machine = machine_for(survey, settings.platform);
  auto& virtual_packages = machine.virtual_packages;
  virtual_packages.insert(virtual_packages.end(), settings.extra_virtual_packages.begin(),
                          settings.extra_virtual_packages.end());
  std::sort(virtual_packages.begin(), virtual_packages.end(),
            [](const auto& left, const auto& right) { return left.name < right.name; });
  return machine;
}

// The shard closures (sharded_fetch.hpp) among `fetched`'s files: the
// request's records gathered from shards into gpuenv's cache.
std::vector<std::filesystem::path> shard_closures_of(const repodata::FetchedChannels& fetched,
                                                     const std::filesystem::path& cache_dir) {
  std::vector<std::filesystem::path> closures;
  if (cache_dir.empty()) return closures;
  auto cache = cache_dir.lexically_normal();
  if (!cache.has_filename()) cache = cache.parent_path();  // "/cache/" -> "/cache"
  for (const auto& subdir : fetched.subdirs) {
    if (!subdir.sharded) continue;
    const auto file = subdir.json.lexically_normal();
    const auto [cache_end, file_at] = std::mismatch(cache.begin(), cache.end(), file.begin(), file.end());
    if (cache_end == cache.end() && file_at != file.end()) closures.push_back(file);  // never outside the cache
  }
  return closures;
}

// The solve memo's key for a solve over what `fetched` loads; nullopt when
// the memo is off or the records cannot be named (solve_memo.hpp).
std::optional<std::string> solve_memo_key_for(const Settings& settings, const FetchedForLoad& fetched,
                                              const solver::SolveRequest& request,
                                              const std::vector<specs::PackageRecord>& installed,
                                              const solver::MachineFacts& facts) {
  if (!settings.configuration.gpuenv_solve_memo || settings.directories.cache_dir.empty()) return std::nullopt;
  const auto records = solver::loaded_records_identity(fetched.fetched, fetched.options);
  if (!records) return std::nullopt;
  return solve_memo_key({*records, request, installed, facts, settings.channel_context});
}

// Loads the channels the request's specs can reach (unless nothing needs
// them) and solves for plan.machine; the same request over the same
// records, installed packages and machine is answered from the solve memo
// (solve_memo.hpp) without loading or solving.
std::expected<void, Error> load_and_solve(Plan& plan, const Settings& settings,
                                          const std::vector<std::string>& file_channels,
                                          const std::vector<specs::PackageRecord>& installed,
                                          const solver::SolveRequest& request, bool load_channels,
                                          Revalidation revalidation, Reporter& reporter) {
  solver::PackageDatabase database;
  const auto facts = solver_facts(plan.machine);
  const SolveMemo memo(settings.directories.cache_dir / "solves");
  std::optional<std::string> memo_key;
  if (load_channels) {
    std::vector<specs::MatchSpec> named = request.install;
    named.insert(named.end(), request.update.begin(), request.update.end());
    std::vector<std::string> installed_names;
    for (const auto& record : installed) installed_names.push_back(record.name);
    for (int attempt = 0;; ++attempt) {
      auto fetched = fetch_channels_for(settings, named, file_channels, Reach::dependency_closure, reporter,
                                        installed_names, attempt == 0 ? revalidation : Revalidation::before_loading);
      if (!fetched) return std::unexpected(fetched.error());
      memo_key = solve_memo_key_for(settings, *fetched, request, installed, facts);
      if (memo_key) {
        if (auto solution = memo.find(*memo_key)) {
          plan.loaded = solver::result_without_records(std::move(fetched->fetched));
          plan.solution = std::move(*solution);
          return {};
        }
      }
      const auto closures = shard_closures_of(fetched->fetched, settings.directories.cache_dir);
      auto loaded = load_fetched_channels(database, std::move(*fetched), reporter);
      if (!loaded && attempt == 0 && !closures.empty()) {
        // A shard closure is gpuenv's own file, made from shards that are
        // checked against their hashes: one that does not load was damaged
        // on disk. Made again from the shards, it is not the channel's fault.
        for (const auto& closure : closures) {
          std::error_code ignored;
          std::filesystem::remove(closure, ignored);
        }
        database = solver::PackageDatabase{};
        continue;
      }
      if (!loaded) return std::unexpected(loaded.error());
      plan.loaded = std::move(*loaded);
      break;
    }
  }
  database.set_installed(installed, plan.machine.virtual_packages);

  auto solution = solver::solve(database, request, facts);
  if (!solution) {
    auto error = make_error(ErrorKind::unsatisfiable, solution.error().summary());
    error.unsolvable = std::move(solution.error());
    return std::unexpected(std::move(error));
  }
  plan.solution = std::move(*solution);
  // A hit must have nothing to tell: a load that warned or carried a
  // channel's message is solved again next time, and tells it again.
  if (memo_key && plan.loaded.warnings.empty() && channel_messages(plan.loaded).empty()) {
    memo.store(*memo_key, plan.solution);
  }
  return {};
}

// A second load_and_solve repeats what the first told the user (skipped
// records, a channel's message, which CEP 48 says to show once): nothing is
// told twice.
class UnrepeatedReporter final : public Reporter {
 public:
  explicit UnrepeatedReporter(Reporter& inner) : inner_(inner) {}
  void warning(std::string_view message) override {
    if (told_.insert(std::string(message)).second) inner_.warning(message);
  }
  void notice(std::string_view message) override {
    if (told_.insert(std::string(message)).second) inner_.notice(message);
  }
  std::size_t subdir_started(std::string label) override { return inner_.subdir_started(std::move(label)); }
  void subdir_received(std::size_t id, std::uint64_t bytes) override { inner_.subdir_received(id, bytes); }
  void subdir_finished(std::size_t id, std::string_view outcome) override { inner_.subdir_finished(id, outcome); }
  void package_step(PackageStep step, const specs::PackageRecord& package) override {
    inner_.package_step(step, package);
  }
  void transaction_progress(const TransactionProgress& progress) override { inner_.transaction_progress(progress); }
  void transaction_finished() override { inner_.transaction_finished(); }
  bool follows_downloads() const override { return inner_.follows_downloads(); }

 private:
  Reporter& inner_;
  std::set<std::string> told_;
};

// Surveys the machine, loads the channels and solves. A warm cache is used
// at once while the server is asked whether it is still current (one round
// trip saved); when it is not, everything is loaded and solved again.
std::expected<void, Error> solve_into(Plan& plan, const Settings& settings, const std::vector<std::string>& file_channels,
                                      const std::vector<specs::PackageRecord>& installed,
                                      solver::SolveRequest request, bool load_channels, Reporter& reporter) {
  auto pins = pins_for(settings, plan.prefix);
  if (!pins) return std::unexpected(pins.error());
  request.channel_priority = settings.channel_priority;
  request.pins.insert(request.pins.end(), pins->begin(), pins->end());
  // Before loading: CUDA detection may fork, which it must not do while the
  // revalidation's thread runs.
  plan.machine = survey_machine(settings, reporter);

  UnrepeatedReporter told_once(reporter);
  auto solved = load_and_solve(plan, settings, file_channels, installed, request, load_channels,
                               Revalidation::alongside_solving, told_once);
  if (plan.loaded.revalidation && !plan.loaded.revalidation->still_current()) {
    plan.loaded = {};
    plan.solution = {};
    solved = load_and_solve(plan, settings, file_channels, installed, request, load_channels,
                            Revalidation::before_loading, told_once);
  }
  if (!solved) return std::unexpected(solved.error());
  // The environment after the change, for what the conditions were decided on.
  std::vector<specs::PackageRecord> after;
  for (const auto& record : installed) {
    const bool unlinked = std::any_of(plan.solution.unlink.begin(), plan.solution.unlink.end(),
                                      [&](const specs::PackageRecord& gone) { return gone.name == record.name; });
    if (!unlinked) after.push_back(record);
  }
  after.insert(after.end(), plan.solution.link.begin(), plan.solution.link.end());
  plan.conditions = condition_outcomes(plan.solution.link, request.install, after, plan.machine);
  return {};
}

std::expected<Plan, Error> plan_create(const Settings& settings, const ChangeRequest& request, Reporter& reporter) {
  Plan plan;
  plan.kind = request.kind;
  plan.prefix = request.prefix;
  const auto& files = request.files;
  auto spec_texts = files.specs;
  spec_texts.insert(spec_texts.end(), request.specs.begin(), request.specs.end());
  if (spec_texts.empty() && !files.is_explicit) {
    return std::unexpected(make_error(ErrorKind::usage, "name at least one package to put in the environment"));
  }
  if (!request.dry_run) {
    if (auto usable = check_new_prefix(request.prefix, reporter); !usable) return std::unexpected(usable.error());
  }
  if (files.is_explicit) {
    if (auto refused = refuse_deps_modifier_for_explicit(request); !refused) return std::unexpected(refused.error());
    plan.solution.link = files.explicit_packages;
    plan.update_specs = exact_specs_of(plan.solution.link);
    return plan;
  }
  const auto requested = parse_requested(spec_texts, settings.channel_context);
  if (!requested) return std::unexpected(requested.error());
  solver::SolveRequest solve_request;
  solve_request.install = *requested;
  if (auto solved = solve_into(plan, settings, files.channels, {}, solve_request, true, reporter); !solved) {
    return std::unexpected(solved.error());
  }
  apply_deps_modifier(plan.solution, request.deps_modifier, *requested, {});
  plan.update_specs = spec_texts;
  for (std::size_t i = 0; i < requested->size(); ++i) {
    if (const auto name = exact_name((*requested)[i])) plan.requested_specs[*name] = spec_texts[i];
  }
  return plan;
}

std::expected<Plan, Error> plan_install(const Settings& settings, const ChangeRequest& request, Reporter& reporter) {
  const auto& files = request.files;
  auto spec_texts = files.specs;
  spec_texts.insert(spec_texts.end(), request.specs.begin(), request.specs.end());
  if (spec_texts.empty() && !files.is_explicit) {
    return std::unexpected(make_error(ErrorKind::usage, "name at least one package to install (or --file FILE)"));
  }
  const auto requested = parse_requested(spec_texts, settings.channel_context);
  if (!requested) return std::unexpected(requested.error());
  auto opened = open_environment(request.prefix, reporter);
  if (!opened) return std::unexpected(opened.error());
  Plan plan;
  plan.kind = request.kind;
  plan.prefix = request.prefix;
  const auto installed = opened->packages();
  if (files.is_explicit) {
    if (auto refused = refuse_deps_modifier_for_explicit(request); !refused) return std::unexpected(refused.error());
    plan.solution = explicit_change(files.explicit_packages, installed);
    plan.update_specs = exact_specs_of(plan.solution.link);
    plan.change_lock = std::move(opened->change_lock);
    return plan;
  }
  // The new specs, plus what was asked for before for every other package
  // (conda's history), so that installing one thing never breaks another.
  auto earlier = earlier_requests(request.prefix, opened->installed.records, settings.channel_context, reporter);
  solver::SolveRequest solve_request;
  solve_request.install = *requested;
  for (const auto& [name, spec] : earlier) plan.requested_specs[name] = spec.original();
  for (std::size_t i = 0; i < requested->size(); ++i) {
    if (const auto name = exact_name((*requested)[i])) {
      earlier.erase(*name);
      plan.requested_specs[*name] = spec_texts[i];
    }
  }
  for (const auto& [name, spec] : earlier) solve_request.install.push_back(spec);
  if (auto solved = solve_into(plan, settings, files.channels, installed, solve_request, true, reporter); !solved) {
    return std::unexpected(solved.error());
  }
  apply_deps_modifier(plan.solution, request.deps_modifier, *requested, installed);
  plan.update_specs = spec_texts;
  plan.change_lock = std::move(opened->change_lock);
  return plan;
}

std::expected<Plan, Error> plan_update(const Settings& settings, const ChangeRequest& request, Reporter& reporter) {
  if (request.update_all == !request.specs.empty()) {
    return std::unexpected(make_error(ErrorKind::usage,
                                      request.update_all
                                          ? "--all updates every package: name no packages with it"
                                          : "name the packages to update, or --all to update every package"));
  }
  const auto to_update = parse_requested(request.specs, settings.channel_context);
  if (!to_update) return std::unexpected(to_update.error());
  auto opened = open_environment(request.prefix, reporter);
  if (!opened) return std::unexpected(opened.error());
  const auto installed = opened->packages();
  for (const auto& spec : *to_update) {
    const auto name = exact_name(spec);
    const bool is_installed = name && std::any_of(installed.begin(), installed.end(),
                                                  [&](const auto& record) { return record.name == *name; });
    if (!is_installed) {
      return std::unexpected(make_error(
          ErrorKind::package_not_installed,
          fmt::format("{} is not installed in {}: install it with `gpuenv install -p {} {}`", spec.original(),
                      request.prefix.string(), request.prefix.string(), spec.original())));
    }
  }
  Plan plan;
  plan.kind = request.kind;
  plan.prefix = request.prefix;
  plan.nothing_to_do = "All requested packages already installed: nothing newer fits the request.";
  auto earlier = earlier_requests(request.prefix, opened->installed.records, settings.channel_context, reporter);
  solver::SolveRequest solve_request;
  if (request.update_all) {
    // conda's update --all lets every package float: the earlier requests
    // keep their packages installed, without their version constraints.
    solve_request.update_all = true;
    for (const auto& [name, spec] : earlier) {
      solve_request.install.push_back(specs::MatchSpec::parse(name, settings.channel_context));
      plan.requested_specs[name] = spec.original();
      plan.update_specs.push_back(name);
    }
  } else {
    solve_request.update = *to_update;
    for (const auto& [name, spec] : earlier) plan.requested_specs[name] = spec.original();
    for (const auto& spec : *to_update) {
      const auto name = *exact_name(spec);
      earlier.erase(name);
      plan.requested_specs[name] = spec.original();
      plan.update_specs.push_back(spec.original());
    }
    for (const auto& [name, spec] : earlier) solve_request.install.push_back(spec);
  }
  if (auto solved = solve_into(plan, settings, {}, installed, solve_request, true, reporter); !solved) {
    return std::unexpected(solved.error());
  }
  plan.change_lock = std::move(opened->change_lock);
  return plan;
}

std::expected<Plan, Error> plan_remove(const Settings& settings, const ChangeRequest& request, Reporter& reporter) {
  if (request.specs.empty()) return std::unexpected(make_error(ErrorKind::usage, "name the packages to remove"));
  const auto to_remove = parse_requested(request.specs, settings.channel_context);
  if (!to_remove) return std::unexpected(to_remove.error());
  auto opened = open_environment(request.prefix, reporter);
  if (!opened) return std::unexpected(opened.error());
  const auto installed = opened->packages();
  for (const auto& spec : *to_remove) {
    if (std::none_of(installed.begin(), installed.end(), [&](const auto& record) { return spec.matches(record); })) {
      return std::unexpected(make_error(
          ErrorKind::package_not_found,
          fmt::format("cannot remove {}: it is not installed in {}", spec.original(), request.prefix.string())));
    }
  }
  Plan plan;
  plan.kind = request.kind;
  plan.prefix = request.prefix;
  solver::SolveRequest solve_request;
  solve_request.remove = *to_remove;
  // Removing needs no channel: the installed records are the whole problem.
  if (auto solved = solve_into(plan, settings, {}, installed, solve_request, false, reporter); !solved) {
    return std::unexpected(solved.error());
  }
  keep_only_removed_and_dependents(plan.solution, *to_remove, installed);
  plan.remove_specs = request.specs;
  plan.change_lock = std::move(opened->change_lock);
  return plan;
}

}  // namespace

std::expected<RequestFiles, Error> read_request_files(const std::vector<fs::path>& files, bool has_specs,
                                                      const specs::ChannelContext& context, Reporter& reporter) {
  RequestFiles merged;
  std::set<std::string> seen_channels;  // a scan of the list was quadratic in its length
  for (const auto& path : files) {
    auto file = read_environment_file(path, context);
    if (!file) return std::unexpected(make_error(ErrorKind::configuration, file.error()));
    for (const auto& warning : file->warnings) reporter.warning(warning);
    if (file->kind == EnvironmentFile::Kind::explicit_urls) {
      if (files.size() > 1 || has_specs) {
        return std::unexpected(make_error(
            ErrorKind::configuration,
            fmt::format("{} is an explicit file: it names every package of the environment, so give it alone (no "
                        "other --file, no package specs)",
                        path.string())));
      }
      merged.is_explicit = true;
      merged.explicit_packages = std::move(file->packages);
      continue;
    }
    if (merged.name.empty()) merged.name = file->name;
    for (auto& channel : file->channels) {
      if (seen_channels.insert(channel).second) merged.channels.push_back(std::move(channel));
    }
    merged.specs.insert(merged.specs.end(), file->specs.begin(), file->specs.end());
  }
  return merged;
}

std::expected<void, Error> check_new_prefix(const fs::path& prefix, Reporter& reporter) {
  const auto refuse = [](std::string message) {
    return std::unexpected(make_error(ErrorKind::not_an_environment, std::move(message)));
  };
  try {
    std::error_code error;
    const auto status = fs::symlink_status(prefix, error);
    if (!fs::exists(status)) return {};
    if (!fs::is_directory(fs::status(prefix, error))) {
      return refuse(fmt::format("{} exists and is not a directory: choose another path", prefix.string()));
    }
    if (fs::is_directory(prefix / "conda-meta", error)) {
      const auto outcome = prefix::recover_prefix(prefix);
      if (const auto note = recovery_note(outcome, prefix); !note.empty()) reporter.notice(note);
      for (const auto& entry : fs::directory_iterator(prefix / "conda-meta")) {
        if (is_gpuenv_internal(entry.path().filename().string())) continue;
        return refuse(fmt::format(
            "{} is already an environment: add packages with `gpuenv install -p {} ...`, or delete it first to "
            "create it anew",
            prefix.string(), prefix.string()));
      }
    }
    for (const auto& entry : fs::directory_iterator(prefix)) {
      if (entry.path().filename() == "conda-meta") continue;
      return refuse(fmt::format(
          "{} is a directory that is not empty and not an environment (it holds {}): choose an empty or new path",
          prefix.string(), entry.path().filename().string()));
    }
    return {};
  } catch (const prefix::PrefixError& failure) {  // settling an interrupted transaction failed
    return std::unexpected(make_error(ErrorKind::transaction, failure.what()));
  } catch (const fs::filesystem_error& failure) {
    return refuse(fmt::format("{} cannot be read ({}): choose another path", prefix.string(),
                              failure.code().message()));
  }
}

std::map<std::string, specs::MatchSpec> earlier_requests(const fs::path& prefix,
                                                         const std::vector<prefix::PrefixRecord>& records,
                                                         const specs::ChannelContext& context, Reporter& reporter) {
  std::map<std::string, specs::MatchSpec> requested;
  const auto add = [&](const std::string& text, const std::string& package, const std::string& where) {
    try {
      auto spec = specs::MatchSpec::parse(text, context);
      const auto name = exact_name(spec);
      // A spec for another name constrains nothing here (conda records the
      // spec that pulled a package in only for the package it names).
      if (name && *name == package) requested.insert_or_assign(package, std::move(spec));
    } catch (const specs::SpecError& error) {
      reporter.warning(fmt::format("the requested spec '{}' in {} cannot be read and is ignored: {}", text, where,
                                   error.what()));
    }
  };
  // The records' requested_spec first, so that conda-meta/history -- what
  // conda itself reads -- has the last word where both speak.
  for (const auto& record : records) {
    std::vector<std::string> texts = record.requested_specs;
    if (texts.empty() && !record.requested_spec.empty()) texts.push_back(record.requested_spec);
    for (const auto& text : texts) add(text, record.package.name, record.package.dist_str());
  }
  // conda-meta/history only grows, and its latest requests are at its end:
  // read it whole (within a bound no real history reaches), never cut short.
  constexpr std::uintmax_t max_history_bytes = std::uintmax_t{256} << 20;
  const auto history_path = prefix / "conda-meta" / "history";
  const auto history = util::read_regular_file_at_most(history_path, max_history_bytes);
  if (!history && history.error().kind != util::FileReadError::Kind::missing) {
    reporter.warning(history.error().message + "; the earlier requests it records are not used in this solve");
  }
  if (history) {
    std::vector<std::string> installed_names;
    installed_names.reserve(records.size());
    for (const auto& record : records) installed_names.push_back(record.package.name);
    for (const auto& text : requested_specs_from_history(*history, installed_names)) {
      const auto name = specs::MatchSpec::extract_name(text);
      if (name) add(text, *name, history_path.string());
    }
  }
  return requested;
}

std::expected<Plan, Error> plan(const Settings& settings, const ChangeRequest& request, Reporter& reporter) {
  switch (request.kind) {
    case ChangeKind::create: return plan_create(settings, request, reporter);
    case ChangeKind::install: return plan_install(settings, request, reporter);
    case ChangeKind::update: return plan_update(settings, request, reporter);
    case ChangeKind::remove: return plan_remove(settings, request, reporter);
  }
  return std::unexpected(make_error(ErrorKind::usage, "unknown kind of change"));
}

}  // namespace gpuenv::environment
