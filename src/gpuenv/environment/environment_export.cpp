#include "gpuenv/environment/environment_export.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <regex>

#include "gpuenv/environment/history_requests.hpp"
#include "gpuenv/util/file_io.hpp"

namespace gpuenv::environment {
namespace {

// A YAML scalar: plain when YAML reads it back as that same string, else
// double-quoted (a JSON string is a valid YAML double-quoted scalar).
std::string yaml_scalar(const std::string& text) {
  static const std::regex plain_safe(R"(^[A-Za-z0-9_./][A-Za-z0-9_./:=<>!*,+~@ '"\[\]()|^$%&-]*$)");
  static const std::regex reinterpreted(
      R"(^([-+]?[0-9._]+([eE][-+]?[0-9]+)?|true|false|yes|no|on|off|y|n|null|~)$)", std::regex::icase);
  const bool plain = std::regex_match(text, plain_safe) && !std::regex_match(text, reinterpreted) &&
                     text.find(": ") == std::string::npos && text.find(" #") == std::string::npos &&
                     !text.ends_with(':') && !text.ends_with(' ');
  return plain ? text : nlohmann::json(text).dump();
}

}  // namespace

std::expected<ExportedEnvironment, Error> export_environment(const InstalledEnvironment& installed,
                                                                   const specs::ChannelContext& context,
                                                                   const ExportOptions& options) {
  ExportedEnvironment exported;
  exported.name = options.name.empty() ? installed.prefix.filename().string() : options.name;
  exported.prefix = installed.prefix.string();
  // The channels the packages came from, in the order they first appear
  // (the environment's own channels: conda adds its configured ones too).
  for (const auto& record : installed.records) {
    const auto channel = record_channel(record.package, context).canonical_name;
    if (!channel.empty() && std::find(exported.channels.begin(), exported.channels.end(), channel) ==
                                exported.channels.end()) {
      exported.channels.push_back(channel);
    }
  }
  if (options.from_history) {
    const auto history =
        util::read_regular_file_at_most(installed.prefix / "conda-meta/history", std::uintmax_t{256} << 20);
    if (!history && history.error().kind == util::FileReadError::Kind::missing) {
      return std::unexpected(make_error(
          ErrorKind::no_environment,
          fmt::format("{} has no conda-meta/history, so what was asked for is not known: export without "
                      "--from-history",
                      installed.prefix.string())));
    }
    if (!history) {
      return std::unexpected(
          make_error(ErrorKind::configuration, history.error().message + ": export without --from-history"));
    }
    std::vector<std::string> installed_names;
    for (const auto& record : installed.records) installed_names.push_back(record.package.name);
    exported.dependencies = requested_specs_from_history(*history, installed_names);
    return exported;
  }
  for (const auto& record : installed.records) {
    const auto& package = record.package;
    exported.dependencies.push_back(options.no_builds
                                        ? fmt::format("{}={}", package.name, package.version)
                                        : fmt::format("{}={}={}", package.name, package.version, package.build));
  }
  return exported;
}

std::string environment_yaml(const ExportedEnvironment& exported) {
  std::string text = "name: " + yaml_scalar(exported.name) + "\n";
  text += exported.channels.empty() ? "channels: []\n" : "channels:\n";
  for (const auto& channel : exported.channels) text += "  - " + yaml_scalar(channel) + "\n";
  text += exported.dependencies.empty() ? "dependencies: []\n" : "dependencies:\n";
  for (const auto& dependency : exported.dependencies) text += "  - " + yaml_scalar(dependency) + "\n";
  text += "prefix: " + yaml_scalar(exported.prefix) + "\n";
  return text;
}

std::string environment_json(const ExportedEnvironment& exported) {
  return nlohmann::json{{"name", exported.name},
                        {"channels", exported.channels},
                        {"dependencies", exported.dependencies},
                        {"prefix", exported.prefix}}
             .dump(2) +
         "\n";
}

}  // namespace gpuenv::environment
