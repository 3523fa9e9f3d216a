#include "environment_change.hpp"

#include <fmt/core.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <set>

#include "gpuenv/environment/requested_spec.hpp"
#include "gpuenv/prefix/package_cache.hpp"
#include "gpuenv/prefix/transaction.hpp"
#include "gpuenv/specs/platform.hpp"
#include "gpuenv/specs/spec_error.hpp"
#include "gpuenv/specs/url_credentials.hpp"
#include "gpuenv/system/system_survey.hpp"
#include "gpuenv/util/user_directories.hpp"
#include "solve_output.hpp"
#include "target_machine.hpp"
#include "transaction_output.hpp"

namespace gpuenv::cli {
namespace {

namespace fs = std::filesystem;

// conda-meta/history's "# cmd:" line: the command as it was typed.
std::string command_line() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), {});
  while (!text.empty() && text.back() == '\0') text.pop_back();
  std::replace(text.begin(), text.end(), '\0', ' ');
  return text;
}

bool is_true(std::optional<std::string> value) {
  if (!value) return false;
  std::string text = *value;
  for (auto& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text == "1" || text == "true" || text == "yes" || text == "on";
}

void print_notice(const std::string& message) { fmt::print(stderr, "gpuenv: {}\n", message); }

// conda's prompt: an empty answer is yes.
enum class Answer { yes, no, no_terminal };
Answer confirm() {
  if (::isatty(STDIN_FILENO) != 1) return Answer::no_terminal;
  fmt::print("Proceed ([y]/n)? ");
  std::fflush(stdout);
  std::string answer;
  if (!std::getline(std::cin, answer)) {
    fmt::print("\n");
    return Answer::no;
  }
  for (auto& c : answer) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  answer.erase(0, answer.find_first_not_of(" \t"));
  answer.erase(answer.find_last_not_of(" \t") + 1);
  return answer.empty() || answer == "y" || answer == "yes" ? Answer::yes : Answer::no;
}

bool is_gpuenv_internal(const std::string& name) { return name.starts_with(".gpuenv"); }

}  // namespace

void add_change_options(CLI::App* command, ChangeArguments& arguments, ChangeCommand kind) {
  add_prefix_options(command, arguments.where);
  if (kind != ChangeCommand::remove) add_channel_options(command, arguments.channels);
  if (kind == ChangeCommand::create || kind == ChangeCommand::install) {
    command->add_option("--file", arguments.files,
                        "Read the packages from a file: environment.yml, an explicit lockfile (@EXPLICIT) "
                        "or one spec a line (repeatable)")
        ->allow_extra_args(false);
  }
  if (kind == ChangeCommand::update) {
    command->add_flag("--all", arguments.update_all, "Update every package in the environment");
  }
  command->add_flag("--dry-run,-d", arguments.dry_run, "Only show what would change");
  command->add_flag("--json", arguments.json, "Report as JSON (conda's shape); implies --yes");
  command->add_flag("-y,--yes", arguments.yes, "Do not ask for confirmation");
  if (kind != ChangeCommand::create) {
    command->add_flag("--override-frozen", arguments.override_frozen,
                      "Change the environment even though it is frozen (CEP 22)");
  }
  command->add_option("specs", arguments.specs,
                      kind == ChangeCommand::remove ? "Packages to remove" : "Package specs (conda MatchSpec syntax)");
}

std::expected<specs::ChannelContext, std::string> read_channel_context(const util::EnvLookup& env) {
  try {
    return channel_context(env);
  } catch (const ConfigurationError& error) {
    return std::unexpected(std::string(error.what()));
  }
}

std::expected<ChangeInputs, std::string> read_change_inputs(const ChangeArguments& arguments,
                                                            const util::EnvLookup& env) {
  auto context = read_channel_context(env);
  if (!context) return std::unexpected(context.error());
  auto files = read_change_files(arguments, *context);
  if (!files) return std::unexpected(files.error());
  return ChangeInputs{std::move(*context), std::move(*files)};
}

int report_error(const ChangeArguments& arguments, const std::string& message, int exit_code,
                 const std::string& exception_name) {
  // Whatever part failed, a channel's token or password is not printed.
  const auto masked = specs::mask_credentials(message);
  if (arguments.json) {
    print_json_failure(masked, {}, exception_name);
  } else {
    std::fflush(stdout);
    fmt::print(stderr, "gpuenv: error: {}\n", masked);
  }
  return exit_code;
}

std::expected<std::vector<specs::MatchSpec>, int> parse_requested_specs(const ChangeArguments& arguments,
                                                                        const std::vector<std::string>& texts,
                                                                        const specs::ChannelContext& context) {
  std::vector<specs::MatchSpec> specs;
  specs.reserve(texts.size());
  for (const auto& text : texts) {
    auto spec = environment::parse_requested_spec(text, context);
    if (!spec) return std::unexpected(report_error(arguments, spec.error()));
    specs.push_back(std::move(*spec));
  }
  return specs;
}

std::expected<ChangeFiles, std::string> read_change_files(const ChangeArguments& arguments,
                                                          const specs::ChannelContext& context) {
  ChangeFiles merged;
  std::set<std::string> seen_channels;  // a scan of the list was quadratic in its length
  for (const auto& path : arguments.files) {
    auto file = read_environment_file(path, context);
    if (!file) return std::unexpected(file.error());
    for (const auto& warning : file->warnings) fmt::print(stderr, "gpuenv: warning: {}\n", warning);
    if (file->kind == EnvironmentFile::Kind::explicit_urls) {
      if (arguments.files.size() > 1 || !arguments.specs.empty()) {
        return std::unexpected(fmt::format(
            "{} is an explicit file: it names every package of the environment, so give it alone (no other "
            "--file, no package specs)",
            path));
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

std::vector<specs::PackageRecord> OpenedEnvironment::packages() const {
  std::vector<specs::PackageRecord> packages;
  packages.reserve(installed.records.size());
  for (const auto& record : installed.records) packages.push_back(record.package);
  return packages;
}

std::expected<OpenedEnvironment, std::string> open_environment(const fs::path& prefix) {
  std::error_code error;
  if (!fs::is_directory(prefix / "conda-meta", error)) {
    return std::unexpected(fmt::format(
        "{} is not an environment (it has no conda-meta directory): create it with `gpuenv create -p {}`",
        prefix.string(), prefix.string()));
  }
  OpenedEnvironment opened;
  // Not the prefix lock itself: apply_transaction takes that one, and flock
  // locks of one process exclude each other.
  opened.change_lock.emplace(prefix::FileLock::acquire(prefix / "conda-meta" / ".gpuenv-change.lock",
                                                       std::chrono::hours(1), print_notice));
  opened.recovery = prefix::recover_prefix(prefix);
  opened.installed = prefix::read_prefix_records(prefix);
  return opened;
}

std::expected<void, std::string> check_new_prefix(const fs::path& prefix) {
  std::error_code error;
  const auto status = fs::symlink_status(prefix, error);
  if (!fs::exists(status)) return {};
  if (!fs::is_directory(fs::status(prefix, error))) {
    return std::unexpected(fmt::format("{} exists and is not a directory: choose another path", prefix.string()));
  }
  if (fs::is_directory(prefix / "conda-meta", error)) {
    const auto outcome = prefix::recover_prefix(prefix);
    if (const auto note = recovery_note(outcome, prefix); !note.empty()) print_notice(note);
    for (const auto& entry : fs::directory_iterator(prefix / "conda-meta")) {
      if (is_gpuenv_internal(entry.path().filename().string())) continue;
      return std::unexpected(fmt::format(
          "{} is already an environment: add packages with `gpuenv install -p {} ...`, or delete it first to "
          "create it anew",
          prefix.string(), prefix.string()));
    }
  }
  for (const auto& entry : fs::directory_iterator(prefix)) {
    if (entry.path().filename() == "conda-meta") continue;
    return std::unexpected(fmt::format(
        "{} is a directory that is not empty and not an environment (it holds {}): choose an empty or new path",
        prefix.string(), entry.path().filename().string()));
  }
  return {};
}

std::map<std::string, specs::MatchSpec> requested_specs_of(const std::vector<prefix::PrefixRecord>& records,
                                                            const specs::ChannelContext& context) {
  std::map<std::string, specs::MatchSpec> requested;
  for (const auto& record : records) {
    std::vector<std::string> texts = record.requested_specs;
    if (texts.empty() && !record.requested_spec.empty()) texts.push_back(record.requested_spec);
    for (const auto& text : texts) {
      try {
        auto spec = specs::MatchSpec::parse(text, context);
        const auto name = spec.name().exact_value();
        // A spec for another name (conda records the spec that pulled the
        // package in only for the package it names) constrains nothing here.
        if (name && *name == record.package.name) requested.insert_or_assign(record.package.name, std::move(spec));
      } catch (const specs::SpecError& error) {
        fmt::print(stderr, "gpuenv: warning: the requested spec '{}' of {} cannot be read and is ignored: {}\n",
                   text, record.package.dist_str(), error.what());
      }
    }
  }
  return requested;
}

std::expected<PlannedChange, int> solve_change(const ChangeArguments& arguments, const ChannelArguments& channels,
                                               const fs::path& prefix,
                                               const std::vector<specs::PackageRecord>& installed,
                                               const solver::SolveRequest& request, bool load_channels,
                                               const util::EnvLookup& env) {
  PlannedChange change;
  change.prefix = prefix;
  // conda's configuration under the options: the platform, channel
  // priority, pins (conda-meta/pinned and pinned_packages).
  const auto configured = with_configuration(channels, env);
  if (!configured) return std::unexpected(report_error(arguments, configured.error()));
  if (configured->configuration) {
    change.safety_checks = configured->configuration->safety_checks;
    change.extra_safety_checks = configured->configuration->extra_safety_checks;
  }
  change.client = configured->client;
  const auto target = target_platform(*configured);
  const std::string platform(target.str());
  auto pins = configured_pins(*configured, channel_context(env, *configured->configuration), prefix);
  if (!pins) return std::unexpected(report_error(arguments, pins.error()));
  auto configured_request = request;
  configured_request.channel_priority = channel_priority(*configured);
  configured_request.pins.insert(configured_request.pins.end(), pins->begin(), pins->end());

  solver::PackageDatabase database;
  if (load_channels) {
    std::vector<specs::MatchSpec> named = request.install;
    named.insert(named.end(), request.update.begin(), request.update.end());
    auto loaded = load_channels_for(database, *configured, named, platform, env, !arguments.json);
    if (!loaded) return std::unexpected(report_error(arguments, loaded.error()));
    change.loaded = std::move(*loaded);
  }
  // The virtual packages of this machine (CUDA detection through its cache,
  // CONDA_OVERRIDE_* honoured), or of the platform named: what the
  // environment is solved for.
  system::SurveyOptions survey_options;
  survey_options.program_version = GPUENV_VERSION;
  const auto survey = system::survey_system(env, survey_options);
  for (const auto& warning : survey.warnings) fmt::print(stderr, "gpuenv: warning: {}\n", warning);
  change.machine = machine_facts_for(survey, target);
  database.set_installed(installed, change.machine.virtual_packages);

  auto solution = solver::solve(database, configured_request, change.machine);
  if (!solution) {
    if (arguments.json) {
      print_json_failure(solution.error().summary(), solution.error().lines(), "UnsatisfiableError");
    } else {
      print_unsolvable(solution.error());
    }
    return std::unexpected(1);
  }
  change.solution = std::move(*solution);
  return change;
}

int carry_out_change(const PlannedChange& change, const ChangeArguments& arguments, const util::EnvLookup& env) {
  const auto& solution = change.solution;
  if (solution.link.empty() && solution.unlink.empty()) {
    if (arguments.json) {
      const nlohmann::ordered_json output{
          {"success", true}, {"message", change.nothing_to_do}, {"prefix", change.prefix.string()}};
      fmt::print("{}\n", output.dump(2));
    } else {
      fmt::print("{}\n", change.nothing_to_do);
    }
    return 0;
  }
  if (arguments.dry_run) {
    if (arguments.json) {
      print_json_plan(solution, change.loaded, change.prefix);
    } else {
      print_plan(solution, change.loaded, change.prefix, change.machine);
      fmt::print("Dry run: nothing was changed.\n");
    }
    return 0;
  }
  if (!arguments.json) print_plan(solution, change.loaded, change.prefix, change.machine);
  if (!arguments.yes && !arguments.json && !is_true(env("CONDA_ALWAYS_YES"))) {
    switch (confirm()) {
      case Answer::yes:
        break;
      case Answer::no:
        fmt::print(stderr, "gpuenv: nothing was changed\n");
        return 1;
      case Answer::no_terminal:
        return report_error(arguments,
                            "there is no terminal to ask for confirmation on: add -y (--yes) to go ahead; "
                            "nothing was changed");
    }
  }

  const auto directories = util::resolve_user_directories(env);
  if (directories.pkgs_dirs.empty()) {
    return report_error(arguments, "no package cache directory is known (HOME is not set): set CONDA_PKGS_DIRS "
                                   "or GPUENV_ROOT_PREFIX");
  }
  prefix::TransactionOptions options;
  options.cache.pkgs_dirs = directories.pkgs_dirs;
  options.cache.on_lock_wait = print_notice;
  options.cache.safety_checks = change.safety_checks;
  options.cache.extra_safety_checks = change.extra_safety_checks;
  options.cache.download.channel_credentials = change.loaded.credentials;
  options.cache.download.client = change.client;
  options.on_lock_wait = print_notice;
  options.command_line = command_line();
  options.tool_version = GPUENV_VERSION;
  options.update_specs = change.update_specs;
  options.remove_specs = change.remove_specs;
  options.requested_specs = change.requested_specs;
  options.override_frozen = arguments.override_frozen;
  options.root_prefix = directories.root_prefix;

  prefix::TransactionResult result;
  ChangeSummary summary;
  const auto started = std::chrono::steady_clock::now();
  try {
    options.test_crash = prefix::test_crash_hook_from_environment(env);
    const prefix::PackageCache cache(options.cache);
    const auto watch = watch_for(change.prefix, solution.link, cache);
    {
      TransactionProgress progress(watch, !arguments.json);
      result = prefix::apply_transaction(change.prefix, prefix::Transaction{solution.link, solution.unlink},
                                         options);
    }
    summary.downloaded_bytes = downloaded_bytes(watch);
  } catch (const std::exception& error) {
    return report_error(arguments, error.what(), 1, "CondaError");
  }
  summary.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  summary.linked = result.linked.size();
  summary.unlinked = result.unlinked.size();

  if (const auto note = recovery_note(result.recovery, change.prefix); !note.empty()) print_notice(note);
  if (arguments.json) {
    auto output = plan_json(solution, change.loaded, change.prefix, false);
    add_transaction_json(output, result, summary);
    fmt::print("{}\n", output.dump(2));
    std::fflush(stdout);
    for (const auto& warning : result.warnings) fmt::print(stderr, "gpuenv: warning: {}\n", warning);
    return 0;
  }
  fmt::print("{}\n", summary_line(summary));
  print_transaction_notes(result);
  return 0;
}

}  // namespace gpuenv::cli
