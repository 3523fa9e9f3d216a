// `gpuenv info` end to end.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/run_command.hpp"

namespace {

namespace fs = std::filesystem;
using gpuenv::testing::run_gpuenv;
using nlohmann::json;

class InfoCliHome {
 public:
  InfoCliHome() {
    std::string pattern = (fs::temp_directory_path() / "gpuenv-info-cli-XXXXXX").string();
    root_ = ::mkdtemp(pattern.data());
    fs::create_directories(root_ / "proc/sys/kernel/random");
    std::ofstream(root_ / "proc/sys/kernel/random/boot_id") << "0c8b1a4e-1111-4222-8333-444455556666\n";
    fs::create_directories(root_ / "home");
  }
  ~InfoCliHome() {
    std::error_code ignored;
    fs::remove_all(root_, ignored);
  }
  fs::path root() const { return root_; }
  fs::path home() const { return root_ / "home"; }
  fs::path call_log() const { return root_ / "driver-calls.log"; }
  std::size_t driver_call_count() const {
    std::ifstream in(call_log());
    std::size_t count = 0;
    for (std::string line; std::getline(in, line);) ++count;
    return count;
  }

  std::vector<std::string> env(std::vector<std::string> extra = {}) const {
    std::vector<std::string> assignments = {
        "HOME=" + home().string(),
        "GPUENV_LIBCUDA=" + std::string(FAKE_LIBCUDA_PATH),
        "GPUENV_PROC_ROOT=" + (root_ / "proc").string(),
        "GPUENV_DEV_ROOT=" + (root_ / "dev").string(),
        "FAKE_CUDA_CALL_LOG=" + call_log().string(),
        "FAKE_CUDA_DEVICES=8.9:NVIDIA L4:24146608128",
        "FAKE_CUDA_DRIVER_VERSION=12080",
        "-XDG_CACHE_HOME", "-XDG_DATA_HOME", "-XDG_CONFIG_HOME", "-GPUENV_CACHE_DIR", "-GPUENV_ROOT_PREFIX",
        "-CONDA_PKGS_DIRS", "-CONDA_ENVS_PATH", "-CONDA_ENVS_DIRS", "-CONDARC", "-CONDA_PREFIX",
        "-CONDA_OVERRIDE_CUDA", "-CONDA_OVERRIDE_CUDA_ARCH", "-CONDA_OVERRIDE_GLIBC", "-CUDA_VISIBLE_DEVICES"};
    assignments.insert(assignments.end(), extra.begin(), extra.end());
    return assignments;
  }

 private:
  fs::path root_;
};

json parse(const gpuenv::testing::CommandOutput& result) {
  auto document = json::parse(result.out, nullptr, false);
  EXPECT_FALSE(document.is_discarded()) << result.out << result.err;
  return document;
}

std::vector<std::string> names_and_versions(const json& document) {
  std::vector<std::string> packages;
  for (const auto& package : document["virtual_packages"]) {
    packages.push_back(package["name"].get<std::string>() + "=" + package["version"].get<std::string>());
  }
  return packages;
}

bool contains(const std::vector<std::string>& items, const std::string& item) {
  return std::find(items.begin(), items.end(), item) != items.end();
}

TEST(InfoCli, JsonHasVersionPlatformVirtualPackagesAndDirectories) {
  InfoCliHome home;
  const auto result = run_gpuenv({"info", "--json"}, home.env());
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto document = parse(result);
  EXPECT_EQ(document["schema_version"], 1);
  EXPECT_EQ(document["gpuenv_version"].get<std::string>().rfind("0.", 0), 0u);
  EXPECT_EQ(document["platform"], "linux-64");
  const auto packages = names_and_versions(document);
  EXPECT_TRUE(contains(packages, "__cuda=12.8")) << document["virtual_packages"].dump();
  EXPECT_TRUE(contains(packages, "__cuda_arch=8.9")) << document["virtual_packages"].dump();
  EXPECT_TRUE(contains(packages, "__unix=0"));
  EXPECT_EQ(document["cuda"]["status"], "ok");
  EXPECT_EQ(document["cuda"]["device_count"], 1);
  EXPECT_EQ(document["cache_dir"], (home.home() / ".cache/gpuenv").string());
  EXPECT_EQ(document["root_prefix"], (home.home() / ".gpuenv").string());
  EXPECT_EQ(document["pkgs_dirs"][0], (home.home() / ".gpuenv/pkgs").string());
  EXPECT_EQ(document["envs_dirs"][0], (home.home() / ".gpuenv/envs").string());
  EXPECT_TRUE(document["config_files"].empty());
  EXPECT_FALSE(document["config_search_path"].empty());
}

TEST(InfoCli, TextListsTheSameFacts) {
  InfoCliHome home;
  const auto result = run_gpuenv({"info"}, home.env());
  ASSERT_EQ(result.exit_code, 0) << result.err;
  for (const char* expected : {"gpuenv version", "linux-64", "virtual packages", "__cuda=12.8=0",
                               "__cuda_arch=8.9=0", "__glibc=", "__linux=", "__archspec=1=", "NVIDIA L4 (sm_89)",
                               "cache directory", "root prefix"}) {
    EXPECT_NE(result.out.find(expected), std::string::npos) << expected << " missing from\n" << result.out;
  }
}

TEST(InfoCli, WarmCallDoesNotTouchTheDriver) {
  InfoCliHome home;
  ASSERT_EQ(run_gpuenv({"info"}, home.env()).exit_code, 0);
  const auto calls = home.driver_call_count();
  EXPECT_GT(calls, 0u);
  const auto second = run_gpuenv({"info", "--json"}, home.env());
  EXPECT_EQ(parse(second)["cuda"]["detection"]["from_cache"], true);
  EXPECT_EQ(home.driver_call_count(), calls);
}

TEST(InfoCli, OverridesThatDecideEverythingSkipTheDriver) {
  InfoCliHome home;
  const auto result = run_gpuenv({"info", "--json"}, home.env({"CONDA_OVERRIDE_CUDA=11.8", "CONDA_OVERRIDE_CUDA_ARCH=7.0"}));
  const auto document = parse(result);
  EXPECT_EQ(home.driver_call_count(), 0u);
  EXPECT_TRUE(document["cuda"].is_null());
  const auto packages = names_and_versions(document);
  EXPECT_TRUE(contains(packages, "__cuda=11.8"));
  EXPECT_TRUE(contains(packages, "__cuda_arch=7.0"));
}

TEST(InfoCli, EmptyOverridesRemovePackages) {
  InfoCliHome home;
  const auto document =
      parse(run_gpuenv({"info", "--json"}, home.env({"CONDA_OVERRIDE_CUDA=", "CONDA_OVERRIDE_GLIBC="})));
  const auto packages = names_and_versions(document);
  for (const auto& package : packages) {
    EXPECT_NE(package.rfind("__cuda", 0), 0u) << package;
    EXPECT_NE(package.rfind("__glibc", 0), 0u) << package;
  }
  EXPECT_EQ(home.driver_call_count(), 0u);
}

TEST(InfoCli, GpuenvAndCondaVariablesMoveDirectories) {
  InfoCliHome home;
  const auto root = home.root() / "gpuenv-root";
  const auto document = parse(run_gpuenv(
      {"info", "--json"},
      home.env({"GPUENV_ROOT_PREFIX=" + root.string(), "GPUENV_CACHE_DIR=" + (home.root() / "c").string(),
                "CONDA_PKGS_DIRS=" + (home.root() / "p1").string() + "," + (home.root() / "p2").string()})));
  EXPECT_EQ(document["root_prefix"], root.string());
  EXPECT_EQ(document["cache_dir"], (home.root() / "c").string());
  EXPECT_EQ(document["pkgs_dirs"].size(), 2u);
  EXPECT_EQ(document["envs_dirs"][0], (root / "envs").string());
}

TEST(InfoCli, ConfigFilesThatExistAreListed) {
  InfoCliHome home;
  std::ofstream(home.home() / ".condarc") << "channels: [conda-forge]\n";
  const auto document = parse(run_gpuenv({"info", "--json"}, home.env()));
  ASSERT_EQ(document["config_files"].size(), 1u);
  EXPECT_EQ(document["config_files"][0], (home.home() / ".condarc").string());
}

TEST(InfoCli, NoDriverIsSummarisedNotFatal) {
  InfoCliHome home;
  const auto result = run_gpuenv({"info"}, home.env({"GPUENV_LIBCUDA=/nonexistent/libcuda.so.1"}));
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("no usable driver"), std::string::npos) << result.out;
  EXPECT_EQ(result.out.find("__cuda="), std::string::npos) << result.out;
}

}  // namespace
