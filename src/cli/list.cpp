// `gpuenv list`: the packages installed in an environment, as `conda list`
// prints them (its table, --json, --export, --canonical and --explicit
// forms), from the conda-meta records gpuenv, conda and mamba write.
#include <fmt/core.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "command.hpp"
#include "error_output.hpp"
#include "gpuenv/environment/installed_environment.hpp"
#include "gpuenv/environment/settings.hpp"
#include "prefix_arguments.hpp"
#include "gpuenv/specs/platform.hpp"

namespace gpuenv::cli {
namespace {

struct ListArguments {
  PrefixArguments where;
  std::string regex;
  bool full_name = false;
  bool json = false;
  bool explicit_urls = false;
  bool md5 = false;
  bool export_specs = false;
  bool canonical = false;
};

// conda's disp_features: "[mkl debug]", or nothing.
std::string features_text(const std::vector<std::string>& features) {
  if (features.empty()) return {};
  std::string joined;
  for (const auto& feature : features) joined += (joined.empty() ? "" : " ") + feature;
  return "[" + joined + "]";
}

std::string table_row(const prefix::PrefixRecord& record, const environment::RecordChannel& channel) {
  const auto& package = record.package;
  // conda's "%(name)-25s %(version)-15s %(build)15s  <features>  <channel>";
  // packages from `defaults` show no channel, as in conda.
  auto row = fmt::format("{:<25} {:<15} {:>15}  {}", package.name, package.version, package.build,
                         features_text(package.features));
  const auto& shown = channel.canonical_name.empty() ? std::string("<unknown>") : channel.canonical_name;
  if (shown != "defaults") row += "  " + shown;
  while (row.ends_with(' ')) row.pop_back();
  return row;
}

int run_list(const ListArguments& arguments) {
  if (arguments.md5 && !arguments.explicit_urls) {
    return report_usage_error("--md5 only changes the output of --explicit: add --explicit", arguments.json);
  }
  const auto env = util::process_environment();
  const auto prefix =
      environment::resolve_prefix(prefix_choice(arguments.where), env, environment::WhenNoPrefixGiven::use_active_prefix);
  if (!prefix) return report_error(prefix.error(), arguments.json);
  const auto installed = environment::read_installed_environment(*prefix);
  if (!installed) return report_error(installed.error(), arguments.json);
  print_notes(installed->notes, installed->warnings);

  const std::string platform(specs::Platform::current().str());
  if (arguments.explicit_urls) {
    // As conda: the whole environment, whatever the regex says.
    const auto digest = arguments.md5 ? environment::ExplicitDigest::md5 : environment::ExplicitDigest::sha256;
    for (const auto& line : environment::explicit_lockfile_lines(installed->records, platform, digest)) fmt::print("{}\n", line);
    return 0;
  }

  const auto shown = environment::records_named_like(installed->records, arguments.regex, arguments.full_name);
  if (!shown) return report_usage_error(shown.error(), arguments.json);

  const auto settings = environment::load_settings({}, env);
  if (!settings) return report_error(settings.error(), arguments.json);
  const auto& context = settings->channel_context;
  if (arguments.json) {
    // conda's --json wins over --canonical and --export, too.
    fmt::print("{}\n", environment::conda_list_json(*shown, context));
    return 0;
  }
  if (arguments.canonical) {
    for (const auto* record : *shown) fmt::print("{}\n", record->package.dist_str());
    return 0;
  }
  if (arguments.export_specs) {
    for (const auto& line : environment::export_header_lines(platform)) fmt::print("{}\n", line);
    for (const auto* record : *shown) {
      const auto& package = record->package;
      fmt::print("{}={}={}\n", package.name, package.version, package.build);
    }
    return 0;
  }
  fmt::print("# packages in environment at {}:\n#\n", prefix->string());
  fmt::print("# {:<23} {:<15} {:>15}  Channel\n", "Name", "Version", "Build");
  for (const auto* record : *shown) fmt::print("{}\n", table_row(*record, environment::record_channel(record->package, context)));
  return 0;
}

}  // namespace

void add_list_command(CLI::App& app, Runner& run) {
  auto arguments = std::make_shared<ListArguments>();
  auto* sub = app.add_subcommand("list", "List the packages installed in an environment");
  add_prefix_options(sub, arguments->where);
  sub->add_option("regex", arguments->regex,
                  "Only packages whose name matches this regular expression (case-insensitive)");
  sub->add_flag("-f,--full-name", arguments->full_name, "The regular expression must match the whole name");
  sub->add_flag("--json", arguments->json, "Report as JSON (conda's shape)");
  auto* explicit_flag = sub->add_flag("--explicit", arguments->explicit_urls,
                                      "Print an @EXPLICIT lockfile: each package's URL#sha256");
  sub->add_flag("--md5", arguments->md5, "With --explicit: URL#md5 instead of URL#sha256");
  auto* export_flag = sub->add_flag("-e,--export", arguments->export_specs,
                                    "Print name=version=build lines (for `create --file`)");
  sub->add_flag("-c,--canonical", arguments->canonical, "Print name-version-build only")
      ->excludes(explicit_flag)
      ->excludes(export_flag);
  explicit_flag->excludes(export_flag);
  sub->callback([&run, arguments] { run = [arguments] { return run_list(*arguments); }; });
}

}  // namespace gpuenv::cli
