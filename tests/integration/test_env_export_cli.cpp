// `gpuenv env export`: environment.yml as conda writes it, --no-builds,
// --from-history (conda-meta/history's requests), --json and --explicit.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "installed_prefix_fixture.hpp"
#include "solve_cli_fixture.hpp"
#include "support/run_command.hpp"
#include "support/temp_directory.hpp"

namespace gpuenv::testing {
namespace {

// Three transactions as conda 24 writes them: create, install, remove.
constexpr const char* conda_history = R"(==> 2024-05-01 10:00:00 <==
# cmd: /opt/conda/bin/conda create -p /envs/demo zlib libgcc
# conda version: 24.5.0
+conda-forge/linux-64::libgcc-14.2.0-h77fa898_1
+conda-forge/linux-64::libzlib-1.3.1-hb9d3cd8_2
+conda-forge/linux-64::zlib-1.3.1-hb9d3cd8_2
# update specs: ['zlib', 'libgcc']
==> 2024-05-02 10:00:00 <==
# cmd: /opt/conda/bin/conda install -p /envs/demo "gpu-tool>=2" "it's-gone"
# conda version: 24.5.0
+local::gpu-tool-2.0-cuda12_0
# update specs: ['gpu-tool[version=\'>=2\']', "it's-gone", 'zlib 1.3.*']
==> 2024-05-03 10:00:00 <==
# cmd: /opt/conda/bin/conda remove -p /envs/demo libgcc
# conda version: 24.5.0
# remove specs: ['libgcc']
)";

class EnvExportCli : public ::testing::Test {
 protected:
  void SetUp() override {
    local_channel = "file://" + (machine / "local-channel").string();
    packages = three_channel_packages(local_channel);
    make_empty_environment(prefix);
    for (const auto& package : packages) install_by_hand(prefix, package);
  }

  CommandOutput export_env(std::vector<std::string> args) const {
    args.insert(args.begin(), {"env", "export"});
    return run_gpuenv(args, machine.env({"-CONDA_PREFIX"}));
  }

  SolveCliMachine machine;
  std::filesystem::path prefix = machine / "root/envs/demo";
  std::string local_channel;
  std::vector<CondaMetaPackage> packages;
};

TEST_F(EnvExportCli, WritesCondasEnvironmentYaml) {
  const auto result = export_env({"-n", "demo"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out, "name: demo\n"
                        "channels:\n"
                        "  - " + local_channel + "\n"
                        "  - defaults\n"
                        "  - conda-forge\n"
                        "dependencies:\n"
                        "  - gpu-tool=2.0=cuda12_0\n"
                        "  - libgcc=14.2.0=h77fa898_1\n"
                        "  - libzlib=1.3.1=hb9d3cd8_2\n"
                        "  - zlib=1.3.1=hb9d3cd8_2\n"
                        "prefix: " + prefix.string() + "\n");
}

TEST_F(EnvExportCli, NoBuildsAndJson) {
  auto result = export_env({"-p", prefix.string(), "--no-builds", "--json"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto document = nlohmann::json::parse(result.out);
  EXPECT_EQ(document["name"], "demo");
  EXPECT_EQ(document["prefix"], prefix.string());
  EXPECT_EQ(document["dependencies"],
            nlohmann::json({"gpu-tool=2.0", "libgcc=14.2.0", "libzlib=1.3.1", "zlib=1.3.1"}));
  EXPECT_EQ(document["channels"], nlohmann::json({local_channel, "defaults", "conda-forge"}));
}

TEST_F(EnvExportCli, FromHistoryListsWhatWasAskedFor) {
  write_text_file(prefix / "conda-meta/history", conda_history);
  const auto result = export_env({"-p", prefix.string(), "--from-history"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  // libgcc was removed by request (it is still installed here, as a
  // dependency); it's-gone was asked for but is not installed: conda drops
  // both. The later request for zlib replaces the first.
  const auto dependencies_start = result.out.find("dependencies:\n");
  ASSERT_NE(dependencies_start, std::string::npos) << result.out;
  EXPECT_EQ(result.out.substr(dependencies_start),
            "dependencies:\n"
            "  - zlib 1.3.*\n"
            "  - gpu-tool[version='>=2']\n"
            "prefix: " + prefix.string() + "\n");
}

TEST_F(EnvExportCli, FromHistoryWithoutHistoryIsAClearError) {
  std::filesystem::remove(prefix / "conda-meta/history");
  const auto result = export_env({"-p", prefix.string(), "--from-history"});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.err.find("has no conda-meta/history"), std::string::npos) << result.err;
}

TEST_F(EnvExportCli, ExplicitWritesTheLockfileToAFile) {
  const auto file = machine / "out/lock.txt";
  std::filesystem::create_directories(file.parent_path());
  const auto result = export_env({"-p", prefix.string(), "--explicit", "--file", file.string()});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out, "");
  const auto text = read_file(file);
  EXPECT_NE(text.find("\n@EXPLICIT\n"), std::string::npos) << text;
  for (const auto& package : packages) {
    EXPECT_NE(text.find(package.url() + "#" + package.digest() + "\n"), std::string::npos) << text;
  }
  const auto refused = export_env({"-p", prefix.string(), "--explicit", "--no-builds"});
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.err.find("cannot be combined"), std::string::npos) << refused.err;
}

TEST_F(EnvExportCli, PathsThatNeedQuotingAreQuoted) {
  const auto odd = machine / "envs/odd: name #1";
  make_empty_environment(odd);
  install_by_hand(odd, packages[0]);
  const auto result = export_env({"-p", odd.string()});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("name: \"odd: name #1\"\n"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("prefix: \"" + odd.string() + "\"\n"), std::string::npos) << result.out;
}

TEST_F(EnvExportCli, MissingEnvironment) {
  const auto result = export_env({"-p", (machine / "missing").string()});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.err.find("does not exist"), std::string::npos) << result.err;
}

}  // namespace
}  // namespace gpuenv::testing
