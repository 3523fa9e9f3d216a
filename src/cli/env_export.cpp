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
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>

#include "channel_setup.hpp"
#include "command.hpp"
#include "history_requests.hpp"
#include "installed_environment.hpp"
#include "prefix_arguments.hpp"
#include "gpuenv/specs/platform.hpp"
#include "gpuenv/util/file_io.hpp"

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

int fail(const std::string& message, int exit_code = 1) {
  std::fflush(stdout);
  fmt::print(stderr, "gpuenv: error: {}\n", message);
  return exit_code;
}

// A YAML scalar: plain when YAML reads it back as that same string, else
// double-quoted (a JSON string is a valid YAML double-quoted scalar).
std::string yaml_scalar(const std::string& text) {
  static const std::regex plain_safe(R"(^[A-Za-z0-9_./][A-Za-z0-9_./:=<>!*,+~@ '"\[\]()|^$%&-]*$)");
  static const std::regex reinterpreted(
      R"(^([-+]?[0-9._]+([eE][-+]?[0-9]+)?|true|false|yes|no|on|off|y|n|null|~)$)", std::regex::icase);
  const bool plain = std::regex_match(text, plain_safe) && !std::regex_match(text, reinterpreted) &&
                     text.find(": ") == std::string::npos && text.find(" #") == std::string::npos && !text.ends_with(':') && !text.ends_with(' ');
  return plain ? text : nlohmann::json(text).dump();
}

struct ExportedEnvironment {
  std::string name;
  std::vector<std::string> channels;
  std::vector<std::string> dependencies;
  std::string prefix;
};

std::string yaml_text(const ExportedEnvironment& exported) {
  std::string text = "name: " + yaml_scalar(exported.name) + "\n";
  text += exported.channels.empty() ? "channels: []\n" : "channels:\n";
  for (const auto& channel : exported.channels) text += "  - " + yaml_scalar(channel) + "\n";
  text += exported.dependencies.empty() ? "dependencies: []\n" : "dependencies:\n";
  for (const auto& dependency : exported.dependencies) text += "  - " + yaml_scalar(dependency) + "\n";
  text += "prefix: " + yaml_scalar(exported.prefix) + "\n";
  return text;
}

std::string json_text(const ExportedEnvironment& exported) {
  return nlohmann::json{{"name", exported.name},
                        {"channels", exported.channels},
                        {"dependencies", exported.dependencies},
                        {"prefix", exported.prefix}}
             .dump(2) +
         "\n";
}

int write_output(const ExportArguments& arguments, const std::string& text) {
  if (arguments.file.empty()) {
    fmt::print("{}", text);
    return 0;
  }
  std::ofstream out(arguments.file, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) return fail(fmt::format("cannot write {}; check that its directory exists and is writable", arguments.file));
  return 0;
}

int run_export(const ExportArguments& arguments) {
  if (arguments.md5 && !arguments.explicit_urls) return fail("--md5 only changes --explicit output: add --explicit", 2);
  if (arguments.explicit_urls && (arguments.json || arguments.no_builds || arguments.from_history)) {
    return fail("--explicit writes a lockfile of exact package URLs: it cannot be combined with --json, "
                "--no-builds or --from-history",
                2);
  }
  const auto env = util::process_environment();
  const auto prefix = resolve_prefix(arguments.where, env, WhenNoPrefixGiven::use_active_prefix);
  if (!prefix) return fail(prefix.error(), 2);
  const auto environment = read_installed_environment(*prefix);
  if (!environment) return fail(environment.error());
  for (const auto& warning : environment->warnings) fmt::print(stderr, "gpuenv: warning: {}\n", warning);

  if (arguments.explicit_urls) {
    std::string text;
    const auto digest = arguments.md5 ? ExplicitDigest::md5 : ExplicitDigest::sha256;
    for (const auto& line : explicit_lockfile_lines(environment->records, std::string(specs::Platform::current().str()),
                                                    digest)) {
      text += line + "\n";
    }
    return write_output(arguments, text);
  }

  ExportedEnvironment exported;
  exported.name = arguments.where.name.empty() ? prefix->filename().string() : arguments.where.name;
  exported.prefix = prefix->string();
  // The channels the packages came from, in the order they first appear
  // (the environment's own channels: conda adds its configured ones too).
  const auto context = channel_context(env);
  for (const auto& record : environment->records) {
    const auto channel = record_channel(record.package, context).canonical_name;
    if (!channel.empty() && std::find(exported.channels.begin(), exported.channels.end(), channel) ==
                                exported.channels.end()) {
      exported.channels.push_back(channel);
    }
  }
  if (arguments.from_history) {
    const auto history = util::read_file(*prefix / "conda-meta/history", std::size_t{1} << 30);
    if (!history) {
      return fail(fmt::format("{} has no conda-meta/history, so what was asked for is not known: export without "
                              "--from-history",
                              prefix->string()));
    }
    std::vector<std::string> installed_names;
    for (const auto& record : environment->records) installed_names.push_back(record.package.name);
    exported.dependencies = requested_specs_from_history(*history, installed_names);
  } else {
    for (const auto& record : environment->records) {
      const auto& package = record.package;
      exported.dependencies.push_back(arguments.no_builds
                                          ? fmt::format("{}={}", package.name, package.version)
                                          : fmt::format("{}={}={}", package.name, package.version, package.build));
    }
  }
  return write_output(arguments, arguments.json ? json_text(exported) : yaml_text(exported));
}

}  // namespace

void add_env_command(CLI::App& app, Runner& run) {
  auto* env = app.add_subcommand("env", "Work with whole environments (export)");
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
}

}  // namespace gpuenv::cli
