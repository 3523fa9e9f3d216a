// The final CI job's check of the combined channel (`gpuenv ci
// check-channel`): every package it holds is installed into a fresh
// environment from that channel alone and `gpuenv doctor` judges the
// environment's CUDA code. A package with a dependency that is neither in
// the channel nor virtual (`__cuda`, `__glibc`) cannot be installed from the
// channel alone: it is skipped, saying which dependencies are missing.
#pragma once

#include <expected>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuenv/ci/ci_error.hpp"

namespace gpuenv::ci {

struct ChannelPackage {
  std::string subdir;  // linux-64, noarch
  std::string file;
  std::string name;
  std::string version;
  std::string build;
  std::vector<std::string> depends;
};

// A channel's repodata.json is bounded like any other input.
inline constexpr std::size_t kMaxChannelRepodataBytes = 256u << 20;

// Every package in the indexed subdirs of `channel` (each <subdir>/repodata.json,
// `gpuenv index` writes them), sorted by subdir and file.
std::expected<std::vector<ChannelPackage>, CiError> read_channel_packages(const std::filesystem::path& channel);

// The dependencies of `package` that neither a package of `channel` nor a
// virtual package (`__name`) provides, by name.
std::vector<std::string> missing_dependencies(const ChannelPackage& package, const std::vector<ChannelPackage>& channel);

// The spec that installs exactly this package: name=version=build.
std::string exact_spec(const ChannelPackage& package);

enum class ChannelCheckVerdict { passed, failed, skipped };

struct ChannelCheckResult {
  ChannelPackage package;
  ChannelCheckVerdict verdict = ChannelCheckVerdict::skipped;
  std::string reason;  // why it failed or was skipped
};

struct ChannelCheckRequest {
  std::filesystem::path channel;        // absolute
  std::filesystem::path gpuenv_binary;  // runs `create` and `doctor`
  std::filesystem::path work_dir;       // the fresh environments go here, one per package, removed after
  std::vector<std::string> gpus;        // `gpuenv doctor --gpu` (a CI machine has no GPU)
  std::function<void(const std::string&)> on_step;
  std::function<void(std::string_view)> on_output;
};

std::expected<std::vector<ChannelCheckResult>, CiError> check_channel(const ChannelCheckRequest& request);

// "passed", "FAILED" (capitals, to stand out in a CI log) or "skipped".
std::string_view verdict_name(ChannelCheckVerdict verdict);

// The channel passes when no package failed; a skipped package does not fail it.
bool channel_check_passed(const std::vector<ChannelCheckResult>& results);

// `gpuenv ci check-channel --json` (docs/json-output.md): schema_version,
// success and each package's file, exact spec, verdict and reason.
std::string channel_check_json(const std::vector<ChannelCheckResult>& results);

}  // namespace gpuenv::ci
