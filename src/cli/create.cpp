// `gpuenv create`: a new environment from package specs (solved against the
// channels and this machine's virtual packages) or from a file: an
// environment.yml, a spec list, or an explicit lockfile installed as it is.
#include <fmt/core.h>

#include <memory>
#include <string>
#include <vector>

#include "command.hpp"
#include "gpuenv/environment/environment_name.hpp"
#include "environment_change.hpp"

namespace gpuenv::cli {
namespace {

int run_create(const ChangeArguments& arguments) {
  const auto env = util::process_environment();
  const auto inputs = read_change_inputs(arguments, env);
  if (!inputs) return report_error(arguments, inputs.error());
  const auto& context = inputs->context;
  const auto& files = inputs->files;

  // conda env create: the file's name, unless -p or -n says otherwise.
  auto where = arguments.where;
  if (where.prefix.empty() && where.name.empty()) where.name = files.name;
  if (environment::is_reserved_environment_name(where.name)) {
    return report_error(arguments,
                        fmt::format("'{}' is a reserved environment name (it names the root prefix, as in conda): "
                                    "choose another name",
                                    where.name),
                        2);
  }
  const auto prefix = resolve_prefix(where, env, WhenNoPrefixGiven::refuse);
  if (!prefix) return report_error(arguments, prefix.error(), 2);
  if (auto usable = environment::check_prefix_for_path(*prefix); !usable) {
    return report_error(arguments, usable.error(), 2);
  }
  std::vector<std::string> spec_texts = files.specs;
  spec_texts.insert(spec_texts.end(), arguments.specs.begin(), arguments.specs.end());
  if (spec_texts.empty() && !files.is_explicit) {
    return report_error(arguments, "name at least one package to put in the environment", 2);
  }
  if (!arguments.dry_run) {
    try {
      if (auto usable = check_new_prefix(*prefix); !usable) return report_error(arguments, usable.error());
    } catch (const std::exception& error) {  // settling an interrupted transaction failed
      return report_error(arguments, error.what());
    }
  }

  if (files.is_explicit) {
    PlannedChange change;
    change.prefix = *prefix;
    change.solution.link = files.explicit_packages;
    return carry_out_change(change, arguments, env);
  }

  const auto parsed = parse_requested_specs(arguments, spec_texts, context);
  if (!parsed) return parsed.error();
  const auto& requested = *parsed;
  auto channels = arguments.channels;
  channels.channels.insert(channels.channels.end(), files.channels.begin(), files.channels.end());
  solver::SolveRequest request;
  request.install = requested;
  auto change = solve_change(arguments, channels, *prefix, {}, request, true, env);
  if (!change) return change.error();
  change->update_specs = spec_texts;
  for (std::size_t i = 0; i < requested.size(); ++i) {
    if (const auto name = requested[i].name().exact_value()) change->requested_specs[std::string(*name)] = spec_texts[i];
  }
  return carry_out_change(*change, arguments, env);
}

}  // namespace

void add_create_command(CLI::App& app, Runner& run) {
  auto arguments = std::make_shared<ChangeArguments>();
  auto* sub = app.add_subcommand("create", "Create an environment from package specs or a file");
  add_change_options(sub, *arguments, ChangeCommand::create);
  sub->callback([&run, arguments] { run = [arguments] { return run_create(*arguments); }; });
}

}  // namespace gpuenv::cli
