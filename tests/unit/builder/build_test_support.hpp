// What the build module's tests share: an observer that records the
// builder's steps and the scripts' output, and settings that solve only from
// one local file:// channel, with the cache and root prefix under the test's
// directory and no GPU.
#pragma once

#include <expected>
#include <filesystem>
#include <string>
#include <string_view>

#include "gpuenv/builder/build_variant.hpp"
#include "gpuenv/environment/settings.hpp"
#include "gpuenv/util/environment.hpp"

namespace gpuenv::testing {

class RecordingBuildObserver : public build::BuildObserver {
 public:
  void step(std::string_view message) override { steps += std::string(message) + "\n"; }
  void script_output(std::string_view piece) override { output += piece; }
  void warning(std::string_view message) override { warnings += std::string(message) + "\n"; }
  std::string steps, output, warnings;
};

inline std::expected<environment::Settings, environment::Error> local_channel_settings(
    const std::filesystem::path& dir, const std::filesystem::path& channel) {
  environment::SettingsOverrides overrides;
  overrides.channels = {"file://" + channel.string()};
  overrides.override_channels = true;
  return environment::settings_from({}, overrides,
                                    util::fixed_environment({{"HOME", (dir / "home").string()},
                                                             {"GPUENV_ROOT_PREFIX", (dir / "root").string()},
                                                             {"GPUENV_CACHE_DIR", (dir / "cache").string()},
                                                             {"CONDA_OVERRIDE_CUDA", ""},
                                                             {"CONDA_OVERRIDE_GLIBC", "2.36"}}));
}

}  // namespace gpuenv::testing
