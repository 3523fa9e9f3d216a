// An existing environment written back as a file: environment.yml (CEP 24:
// name, channels, dependencies `name=version=build`, prefix) as `conda env
// export` writes it -- every package, or with from_history only what the
// user asked for (conda-meta/history). The reader is environment_file.hpp.
#pragma once

#include <expected>
#include <string>
#include <vector>

#include "gpuenv/environment/installed_environment.hpp"
#include "gpuenv/specs/channel.hpp"

namespace gpuenv::environment {

struct ExportedEnvironment {
  std::string name;
  std::vector<std::string> channels;  // where the packages came from, in first-seen order
  std::vector<std::string> dependencies;
  std::string prefix;
};

struct ExportOptions {
  std::string name;           // empty: the prefix directory's name
  bool no_builds = false;     // name=version, without the build string
  bool from_history = false;  // only the specs asked for
};

// Fails only for from_history when the environment has no conda-meta/history.
std::expected<ExportedEnvironment, Error> export_environment(const InstalledEnvironment& installed,
                                                                   const specs::ChannelContext& context,
                                                                   const ExportOptions& options);

// The environment.yml text; every scalar reads back as the same string.
std::string environment_yaml(const ExportedEnvironment& exported);

// `gpuenv env export --json`: the same four keys as a JSON object (keys
// sorted, indented), ending in a newline.
std::string environment_json(const ExportedEnvironment& exported);

}  // namespace gpuenv::environment
