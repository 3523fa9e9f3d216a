// `gpuenv env export`: an environment as an environment.yml (CEP 24: name,
// channels, dependencies `name=version=build`, prefix), as `conda env export`
// writes it; --from-history lists only what the user asked for
// (conda-meta/history); --explicit writes the @EXPLICIT lockfile
// (`micromamba env export --explicit`).
#include <fmt/core.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "command.hpp"
#include "environment_change.hpp"
#include "error_output.hpp"
#include "gpuenv/environment/environment_export.hpp"
#include "gpuenv/environment/installed_environment.hpp"
#include "gpuenv/environment/prefix_location.hpp"
#include "gpuenv/environment/settings.hpp"
#include "prefix_arguments.hpp"
#include "gpuenv/specs/platform.hpp"

namespace gpuenv::cli {
namespace {

struct ExportArguments {
  PrefixArguments where;
  std::string file;
  bool explicit_urls = false;
  bool md5 = false;
  bool no_builds = false;
  bool from_history = false;
  bool json = false;
};

int write_output(const ExportArguments& arguments, const std::string& text) {
  if (arguments.file.empty()) {
    fmt::print("{}", text);
    return 0;
  }
  std::ofstream out(arguments.file, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) {
    return report_error(environment::make_error(
        environment::ErrorKind::configuration,
        fmt::format("cannot write {}; check that its directory exists and is writable", arguments.file)));
  }
  return 0;
}

int run_export(const ExportArguments& arguments) {
  if (arguments.md5 && !arguments.explicit_urls) {
    return report_usage_error("--md5 only changes --explicit output: add --explicit");
  }
  if (arguments.explicit_urls && (arguments.json || arguments.no_builds || arguments.from_history)) {
    return report_usage_error("--explicit writes a lockfile of exact package URLs: it cannot be combined with "
                              "--json, --no-builds or --from-history");
  }
  const auto env = util::process_environment();
  const auto prefix =
      environment::resolve_prefix(prefix_choice(arguments.where), env, environment::WhenNoPrefixGiven::use_active_prefix);
  if (!prefix) return report_error(prefix.error());
  const auto installed = environment::read_installed_environment(*prefix);
  if (!installed) return report_error(installed.error());
  print_notes(installed->notes, installed->warnings);

  if (arguments.explicit_urls) {
    std::string text;
    const auto digest = arguments.md5 ? environment::ExplicitDigest::md5 : environment::ExplicitDigest::sha256;
    for (const auto& line : environment::explicit_lockfile_lines(installed->records, std::string(specs::Platform::current().str()),
                                                    digest)) {
      text += line + "\n";
    }
    return write_output(arguments, text);
  }

  const auto settings = environment::load_settings({}, env);
  if (!settings) return report_error(settings.error());
  const auto exported = environment::export_environment(
      *installed, settings->channel_context,
      {arguments.where.name, arguments.no_builds, arguments.from_history});
  if (!exported) return report_error(exported.error());
  return write_output(arguments, arguments.json ? environment::environment_json(*exported)
                                                : environment::environment_yaml(*exported));
}

}  // namespace

// conda env list: the known environments, the active one marked with '*'.
int print_environments(bool json) {
  const auto env = util::process_environment();
  const auto environments = environment::known_environments(env);
  const auto active = env("CONDA_PREFIX");
  const auto is_active = [&active](const std::filesystem::path& prefix) {
    std::error_code error;
    return active && !active->empty() && std::filesystem::equivalent(prefix, *active, error);
  };
  if (json) {
    fmt::print("{}\n", environment::environments_json(environments));
    return 0;
  }
  std::size_t width = 0;
  for (const auto& known : environments) width = std::max(width, known.name.size());
  fmt::print("# conda environments:\n#\n");
  for (const auto& known : environments) {
    fmt::print("{:<{}}  {}  {}\n", known.name, width, is_active(known.prefix) ? '*' : ' ', known.prefix.string());
  }
  return 0;
}

void add_env_command(CLI::App& app, Runner& run) {
  auto* env = app.add_subcommand("env", "Work with whole environments (list, export, remove)");
  env->require_subcommand(1);
  auto arguments = std::make_shared<ExportArguments>();
  auto* sub = env->add_subcommand("export", "Write an environment as environment.yml, or as an @EXPLICIT lockfile");
  add_prefix_options(sub, arguments->where);
  sub->add_option("-f,--file", arguments->file, "Write to this file instead of standard output");
  sub->add_flag("--explicit", arguments->explicit_urls, "Write an @EXPLICIT lockfile: each package's URL#sha256");
  sub->add_flag("--md5", arguments->md5, "With --explicit: URL#md5 instead of URL#sha256");
  sub->add_flag("--no-builds", arguments->no_builds, "Dependencies as name=version, without the build string");
  sub->add_flag("--from-history", arguments->from_history,
                "Only the specs that were asked for (conda-meta/history), not every installed package");
  sub->add_flag("--json", arguments->json, "Write the environment as JSON");
  sub->callback([&run, arguments] { run = [arguments] { return run_export(*arguments); }; });

  auto list_json = std::make_shared<bool>(false);
  auto* list = env->add_subcommand("list", "List the environments: base and those in the envs directories");
  list->add_flag("--json", *list_json, "Write {\"envs\": [paths]}, as conda does");
  list->callback([&run, list_json] { run = [list_json] { return print_environments(*list_json); }; });

  // conda env remove: the same as `gpuenv remove --all`.
  auto removal = std::make_shared<ChangeArguments>();
  removal->remove_all = true;
  auto* remove = env->add_subcommand("remove", "Remove an environment: every package, then its directory");
  add_prefix_options(remove, removal->where);
  remove->add_flag("--dry-run,-d", removal->dry_run, "Only show what would change");
  remove->add_flag("--json", removal->json, "Report as JSON (conda's shape); implies --yes");
  remove->add_flag("-y,--yes", removal->yes, "Do not ask for confirmation");
  remove->add_flag("--override-frozen", removal->override_frozen,
                   "Remove the environment even though it is frozen (CEP 22)");
  remove->callback([&run, removal] {
    run = [removal] { return run_change(environment::ChangeKind::remove, *removal); };
  });
}

}  // namespace gpuenv::cli
