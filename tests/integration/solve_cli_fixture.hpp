// What the `create` and `search` integration tests share: a private
// machine (cache, envs directory, no CUDA driver unless a test brings the
// fake one) and the real channels of ../shared/testdata.
#pragma once

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/run_command.hpp"
#include "support/temp_directory.hpp"
#include "support/testdata.hpp"

namespace gpuenv::testing {

class SolveCliMachine {
 public:
  // No driver: detection fails fast on a library that does not exist, and
  // nothing from the real machine or the caller's shell leaks in.
  std::vector<std::string> env(std::vector<std::string> extra = {}) const {
    std::vector<std::string> assignments = {
        "GPUENV_CACHE_DIR=" + (root_ / "cache").string(),
        "GPUENV_ROOT_PREFIX=" + (root_ / "root").string(),
        "GPUENV_LIBCUDA=" + (root_ / "no-driver/libcuda.so.1").string(),
        "GPUENV_PROC_ROOT=" + (root_ / "proc").string(),
        "GPUENV_SYS_ROOT=" + (root_ / "sys").string(),
        "GPUENV_DEV_ROOT=" + (root_ / "dev").string(),
        "-CONDA_OVERRIDE_CUDA", "-CONDA_OVERRIDE_CUDA_ARCH", "-CONDA_CHANNELS", "-CONDA_ENVS_PATH",
        "-CONDA_ENVS_DIRS", "-CUDA_VISIBLE_DEVICES", "-FAKE_CUDA_DEVICES", "-FAKE_CUDA_DRIVER_VERSION",
        // The caller's conda configuration (~/.condarc, CONDA_* settings)
        // would change the answers.
        "HOME=" + (root_ / "home").string(), "XDG_CONFIG_HOME=" + (root_ / "xdg").string(), "-CONDARC",
        "-CONDA_PREFIX", "-CONDA_CHANNEL_PRIORITY", "-CONDA_PINNED_PACKAGES", "-CONDA_SUBDIR", "-CONDA_OFFLINE",
        "-CONDA_CHANNEL_ALIAS", "-CONDA_DEFAULT_CHANNELS", "-CONDA_PKGS_DIRS", "-CONDA_ALWAYS_YES",
        // ... and so would the caller's TLS and proxy variables.
        "-REQUESTS_CA_BUNDLE", "-CURL_CA_BUNDLE", "-SSL_CERT_FILE", "-SSL_CERT_DIR", "-CONDA_SSL_VERIFY",
        "-http_proxy", "-https_proxy", "-all_proxy", "-HTTPS_PROXY", "-ALL_PROXY"};
    assignments.insert(assignments.end(), extra.begin(), extra.end());
    return assignments;
  }
  const std::filesystem::path& root() const { return root_.path(); }
  std::filesystem::path operator/(std::string_view relative) const { return root_ / relative; }

 private:
  TempDirectory root_;
};

// Normalized, as gpuenv spells the channel's file:// URL.
inline std::string test_channel(const std::string& relative) {
  return std::filesystem::weakly_canonical(testdata_dir() / relative).string();
}

inline nlohmann::json parse_json(const CommandOutput& result) {
  auto document = nlohmann::json::parse(result.out, nullptr, false);
  EXPECT_FALSE(document.is_discarded()) << "stdout is not JSON:\n" << result.out << "\nstderr:\n" << result.err;
  return document;
}

// "name version build" of each LINK action, in order.
inline std::vector<std::string> linked(const nlohmann::json& document) {
  std::vector<std::string> result;
  for (const auto& action : document["actions"]["LINK"]) {
    result.push_back(action["name"].get<std::string>() + " " + action["version"].get<std::string>() + " " +
                     action["build"].get<std::string>());
  }
  return result;
}

}  // namespace gpuenv::testing
