// `gpuenv install`, `gpuenv update` and `gpuenv remove`: changing an
// existing environment as conda does. What is installed stays unless the
// request needs it to change; the specs the user asked for earlier (the
// records' requested_spec) keep constraining the solve; removing a package
// removes what depends on it too.
#include <fmt/core.h>

#include <algorithm>

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "command.hpp"
#include "environment_change.hpp"
#include "gpuenv/specs/spec_error.hpp"
#include "transaction_output.hpp"

namespace gpuenv::cli {
namespace {

struct EnvironmentInPlace {
  std::filesystem::path prefix;
  OpenedEnvironment opened;
};

// Resolves -p/-n (else the active environment) and opens it; on failure the
// error is reported and its exit status returned.
std::expected<EnvironmentInPlace, int> open_target(const ChangeArguments& arguments, const util::EnvLookup& env) {
  const auto prefix = resolve_prefix(arguments.where, env, WhenNoPrefixGiven::use_active_prefix);
  if (!prefix) return std::unexpected(report_error(arguments, prefix.error(), 2));
  try {
    auto opened = open_environment(*prefix);
    if (!opened) return std::unexpected(report_error(arguments, opened.error()));
    if (const auto note = recovery_note(opened->recovery, *prefix); !note.empty()) {
      fmt::print(stderr, "gpuenv: {}\n", note);
    }
    for (const auto& problem : opened->installed.problems) fmt::print(stderr, "gpuenv: warning: {}\n", problem);
    return EnvironmentInPlace{*prefix, std::move(*opened)};
  } catch (const std::exception& error) {
    return std::unexpected(report_error(arguments, error.what()));
  }
}

std::optional<std::string> exact_name(const specs::MatchSpec& spec) {
  const auto name = spec.name().exact_value();
  return name ? std::optional<std::string>(std::string(*name)) : std::nullopt;
}

// An explicit file into an existing environment: its packages replace the
// installed builds of the same names; what is already there stays.
PlannedChange explicit_change(const std::filesystem::path& prefix, const std::vector<specs::PackageRecord>& packages,
                              const std::vector<specs::PackageRecord>& installed) {
  PlannedChange change;
  change.prefix = prefix;
  std::map<std::string, const specs::PackageRecord*> installed_by_name;
  for (const auto& record : installed) installed_by_name[record.name] = &record;
  for (const auto& package : packages) {
    const auto found = installed_by_name.find(package.name);
    if (found != installed_by_name.end()) {
      if (found->second->dist_str() == package.dist_str()) continue;
      change.solution.unlink.push_back(*found->second);
    }
    change.solution.link.push_back(package);
  }
  return change;
}

int run_install(const ChangeArguments& arguments) {
  const auto env = util::process_environment();
  const auto inputs = read_change_inputs(arguments, env);
  if (!inputs) return report_error(arguments, inputs.error());
  const auto& context = inputs->context;
  const auto& files = inputs->files;
  std::vector<std::string> spec_texts = files.specs;
  spec_texts.insert(spec_texts.end(), arguments.specs.begin(), arguments.specs.end());
  if (spec_texts.empty() && !files.is_explicit) {
    return report_error(arguments, "name at least one package to install (or --file FILE)", 2);
  }
  const auto requested = parse_requested_specs(arguments, spec_texts, context);
  if (!requested) return requested.error();

  auto target = open_target(arguments, env);
  if (!target) return target.error();
  const auto installed = target->opened.packages();
  if (files.is_explicit) {
    return carry_out_change(explicit_change(target->prefix, files.explicit_packages, installed), arguments, env);
  }

  // The new specs, plus what was asked for before for every other package
  // (conda's history), so that installing one thing never breaks another.
  auto history = requested_specs_of(target->opened.installed.records, context);
  solver::SolveRequest request;
  request.install = *requested;
  std::map<std::string, std::string> requested_texts;
  for (const auto& [name, spec] : history) requested_texts[name] = spec.original();
  for (std::size_t i = 0; i < requested->size(); ++i) {
    if (const auto name = exact_name((*requested)[i])) {
      history.erase(*name);
      requested_texts[*name] = spec_texts[i];
    }
  }
  for (const auto& [name, spec] : history) request.install.push_back(spec);
  auto channels = arguments.channels;
  channels.channels.insert(channels.channels.end(), files.channels.begin(), files.channels.end());

  auto change = solve_change(arguments, channels, target->prefix, installed, request, true, env);
  if (!change) return change.error();
  change->update_specs = spec_texts;
  change->requested_specs = std::move(requested_texts);
  return carry_out_change(*change, arguments, env);
}

int run_update(const ChangeArguments& arguments) {
  const auto env = util::process_environment();
  const auto context_read = read_channel_context(env);
  if (!context_read) return report_error(arguments, context_read.error());
  const auto& context = *context_read;
  if (arguments.update_all == !arguments.specs.empty()) {
    return report_error(arguments,
                        arguments.update_all ? "--all updates every package: name no packages with it"
                                             : "name the packages to update, or --all to update every package",
                        2);
  }
  const auto to_update = parse_requested_specs(arguments, arguments.specs, context);
  if (!to_update) return to_update.error();

  auto target = open_target(arguments, env);
  if (!target) return target.error();
  const auto installed = target->opened.packages();
  for (const auto& spec : *to_update) {
    const auto name = exact_name(spec);
    const bool is_installed = name && std::any_of(installed.begin(), installed.end(),
                                                  [&](const auto& record) { return record.name == *name; });
    if (!is_installed) {
      return report_error(arguments,
                          fmt::format("{} is not installed in {}: install it with `gpuenv install -p {} {}`",
                                      spec.original(), target->prefix.string(), target->prefix.string(),
                                      spec.original()),
                          1, "PackageNotInstalledError");
    }
  }

  auto history = requested_specs_of(target->opened.installed.records, context);
  solver::SolveRequest request;
  std::map<std::string, std::string> requested_texts;
  std::vector<std::string> update_specs;
  if (arguments.update_all) {
    // conda's update --all lets every package float: the earlier requests
    // keep their packages installed, without their version constraints.
    request.update_all = true;
    for (const auto& [name, spec] : history) {
      request.install.push_back(specs::MatchSpec::parse(name, context));
      requested_texts[name] = spec.original();
      update_specs.push_back(name);
    }
  } else {
    request.update = *to_update;
    for (const auto& [name, spec] : history) requested_texts[name] = spec.original();
    for (const auto& spec : *to_update) {
      const auto name = *exact_name(spec);
      history.erase(name);
      requested_texts[name] = spec.original();
      update_specs.push_back(spec.original());
    }
    for (const auto& [name, spec] : history) request.install.push_back(spec);
  }

  auto change = solve_change(arguments, arguments.channels, target->prefix, installed, request, true, env);
  if (!change) return change.error();
  change->update_specs = std::move(update_specs);
  change->requested_specs = std::move(requested_texts);
  change->nothing_to_do = "All requested packages already installed: nothing newer fits the request.";
  return carry_out_change(*change, arguments, env);
}

// conda removes the named packages and whatever needs them, and keeps the
// rest: the solver's removal also takes dependencies nothing needs any more
// (libsolv's cleandeps, as mamba does), which conda leaves installed.
void keep_only_removed_and_dependents(solver::Solution& solution, const std::vector<specs::MatchSpec>& to_remove,
                                      const std::vector<specs::PackageRecord>& installed,
                                      const specs::ChannelContext& context) {
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
        std::optional<std::string> name;
        try {
          name = exact_name(specs::MatchSpec::parse(dependency, context));
        } catch (const specs::SpecError&) {
          continue;  // a dependency nothing could match names no removed package either
        }
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

int run_remove(const ChangeArguments& arguments) {
  const auto env = util::process_environment();
  const auto context_read = read_channel_context(env);
  if (!context_read) return report_error(arguments, context_read.error());
  const auto& context = *context_read;
  if (arguments.specs.empty()) return report_error(arguments, "name the packages to remove", 2);
  const auto to_remove = parse_requested_specs(arguments, arguments.specs, context);
  if (!to_remove) return to_remove.error();

  auto target = open_target(arguments, env);
  if (!target) return target.error();
  const auto installed = target->opened.packages();
  for (const auto& spec : *to_remove) {
    if (std::none_of(installed.begin(), installed.end(), [&](const auto& record) { return spec.matches(record); })) {
      return report_error(
          arguments, fmt::format("cannot remove {}: it is not installed in {}", spec.original(), target->prefix.string()),
          1, "PackageNotFoundError");
    }
  }
  solver::SolveRequest request;
  request.remove = *to_remove;
  // Removing needs no channel: the installed records are the whole problem.
  auto change = solve_change(arguments, arguments.channels, target->prefix, installed, request, false, env);
  if (!change) return change.error();
  keep_only_removed_and_dependents(change->solution, *to_remove, installed, context);
  change->remove_specs = arguments.specs;
  return carry_out_change(*change, arguments, env);
}

}  // namespace

void add_install_command(CLI::App& app, Runner& run) {
  auto arguments = std::make_shared<ChangeArguments>();
  auto* sub = app.add_subcommand("install", "Install packages into an environment");
  add_change_options(sub, *arguments, ChangeCommand::install);
  sub->callback([&run, arguments] { run = [arguments] { return run_install(*arguments); }; });
}

void add_update_command(CLI::App& app, Runner& run) {
  auto arguments = std::make_shared<ChangeArguments>();
  auto* sub = app.add_subcommand("update", "Update packages in an environment");
  add_change_options(sub, *arguments, ChangeCommand::update);
  sub->callback([&run, arguments] { run = [arguments] { return run_update(*arguments); }; });
}

void add_remove_command(CLI::App& app, Runner& run) {
  auto arguments = std::make_shared<ChangeArguments>();
  auto* sub = app.add_subcommand("remove", "Remove packages (and what depends on them) from an environment");
  sub->alias("uninstall");
  add_change_options(sub, *arguments, ChangeCommand::remove);
  sub->callback([&run, arguments] { run = [arguments] { return run_remove(*arguments); }; });
}

}  // namespace gpuenv::cli
