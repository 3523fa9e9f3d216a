// CEP 43 conditional dependencies end to end: one noarch package, the CUDA
// closure on a CUDA 12 machine (overridden or the fake libcuda), the CPU
// one without a driver, and `create` / `cuda --when` saying which
// conditions held and why (text and --json). CEP 48: v3 records and the
// channel's message, shown once.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>

#include "solve_cli_fixture.hpp"
#include "support/conditional_test_channel.hpp"
#include "test_install_support.hpp"

namespace {

using gpuenv::testing::ChannelBuilder;
using gpuenv::testing::file_url;
using gpuenv::testing::installed_dists;
using gpuenv::testing::linked;
using gpuenv::testing::PackageBuilder;
using gpuenv::testing::parse_json;
using gpuenv::testing::run_gpuenv;
using gpuenv::testing::SolveCliMachine;

std::vector<std::string> sorted(std::vector<std::string> items) {
  std::sort(items.begin(), items.end());
  return items;
}

std::size_t occurrences(const std::string& text, const std::string& part) {
  std::size_t count = 0;
  for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++count;
  return count;
}

class ConditionalCli : public ::testing::Test {
 protected:
  void SetUp() override { gpuenv::testing::write_conditional_test_channel(machine / "channel"); }
  gpuenv::testing::CommandOutput dry_run(std::vector<std::string> specs, std::vector<std::string> env,
                                         bool json = true) {
    std::vector<std::string> args = {"create", "-p", (machine / "env").string(), "-c",
                                     (machine / "channel").string(), "--override-channels", "--dry-run", "-y"};
    if (json) args.push_back("--json");
    args.insert(args.end(), specs.begin(), specs.end());
    return run_gpuenv(args, machine.env(std::move(env)));
  }
  SolveCliMachine machine;
};

TEST_F(ConditionalCli, ACuda12MachineGetsTheCudaClosure) {
  const auto result = dry_run({"stencil", "python=3.9"}, {"CONDA_OVERRIDE_CUDA=12.4"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto document = parse_json(result);
  EXPECT_EQ(sorted(linked(document)), (std::vector<std::string>{"cuda-cudart 12.4.127 0", "libstencil-cpu 1.0 0",
                                                                "libstencil-cuda 1.0 0", "python 3.9.0 0",
                                                                "stencil 1.0 0"}));
  const auto& conditions = document["conditions"];
  ASSERT_EQ(conditions.size(), 3u) << document.dump(2);
  EXPECT_EQ(conditions[0]["requirer"], "stencil 1.0 0");
  EXPECT_EQ(conditions[0]["dependency"], "cuda-cudart[when=\"__cuda>=12\"]");
  EXPECT_EQ(conditions[0]["when"], "__cuda>=12");
  EXPECT_EQ(conditions[0]["held"], true);
  EXPECT_EQ(conditions[0]["facts"][0], "__cuda 12.4 is on this machine (CONDA_OVERRIDE_CUDA=12.4)");
  EXPECT_EQ(conditions[2]["held"], false);  // numpy: python 3.9 was asked for
  EXPECT_EQ(conditions[2]["facts"][0], "python 3.9.0 is in the environment, not python>=3.10");
}

TEST_F(ConditionalCli, NoDriverGetsTheCpuClosureAndSaysWhy) {
  const auto result = dry_run({"stencil", "python=3.9"}, {});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto document = parse_json(result);
  EXPECT_EQ(sorted(linked(document)),
            (std::vector<std::string>{"libstencil-cpu 1.0 0", "python 3.9.0 0", "stencil 1.0 0"}));
  EXPECT_EQ(document["conditions"][0]["held"], false);
  const std::string fact = document["conditions"][0]["facts"][0];
  EXPECT_TRUE(fact.starts_with("this machine has no __cuda (no NVIDIA CUDA driver library was found")) << fact;
}

TEST_F(ConditionalCli, AnOldDriverFromTheFakeLibcudaGetsTheCpuClosure) {
  const auto old = dry_run({"stencil"}, {"GPUENV_LIBCUDA=" + std::string(FAKE_LIBCUDA_PATH),
                                         "FAKE_CUDA_DRIVER_VERSION=11080", "FAKE_CUDA_DEVICES=7.5:Tesla T4:16106127360"});
  ASSERT_EQ(old.exit_code, 0) << old.err;
  const auto document = parse_json(old);
  // Nothing asks for python, so numpy's condition does not hold either
  // (a condition never installs anything by itself; rattler agrees).
  EXPECT_EQ(sorted(linked(document)), (std::vector<std::string>{"libstencil-cpu 1.0 0", "stencil 1.0 0"}))
      << document.dump(2);
  EXPECT_EQ(document["conditions"][0]["facts"][0], "__cuda 11.8 is on this machine, not __cuda>=12 (the detected driver)");
  const auto fresh = dry_run({"stencil"}, {"GPUENV_LIBCUDA=" + std::string(FAKE_LIBCUDA_PATH),
                                           "FAKE_CUDA_DRIVER_VERSION=12040", "FAKE_CUDA_DEVICES=8.0:A100:1000"});
  ASSERT_EQ(fresh.exit_code, 0) << fresh.err;
  EXPECT_EQ(sorted(linked(parse_json(fresh))), (std::vector<std::string>{"cuda-cudart 12.4.127 0", "libstencil-cpu 1.0 0",
                                                                          "libstencil-cuda 1.0 0", "stencil 1.0 0"}))
      << fresh.out;
}

TEST_F(ConditionalCli, TextSaysWhichConditionsHeldOneLineEach) {
  const auto result = dry_run({"stencil", "python"}, {"CONDA_OVERRIDE_CUDA=12.4"}, false);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("Conditional dependencies:\n  stencil 1.0 0: cuda-cudart[when=\"__cuda>=12\"] applies "
                            "(when __cuda>=12 held: __cuda 12.4 is on this machine (CONDA_OVERRIDE_CUDA=12.4))"),
            std::string::npos)
      << result.out;
  EXPECT_NE(result.out.find("numpy[when=\"python>=3.10\"] applies (when python>=3.10 held: python 3.12.0 is in "
                            "the environment)"),
            std::string::npos)
      << result.out;
}

// CEP 48: the channel's message once per subdir and run, on stderr; in
// --json also as a field.
TEST_F(ConditionalCli, TheChannelsMessageIsShownOnce) {
  const std::string message = "This channel publishes conditional dependencies (CEP 43) as v3 records.";
  const auto text = dry_run({"stencil"}, {}, false);
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_EQ(occurrences(text.err, message), 1u) << text.err;
  EXPECT_EQ(occurrences(text.out, message), 0u);
  const auto json = dry_run({"stencil"}, {});  // warm: from the cached index
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_EQ(occurrences(json.err, message), 1u) << json.err;
  const auto document = parse_json(json);
  ASSERT_EQ(document["channel_messages"].size(), 1u);
  EXPECT_EQ(document["channel_messages"][0]["subdir"], "noarch");
  EXPECT_EQ(document["channel_messages"][0]["revision"], "v3");
  EXPECT_EQ(document["channel_messages"][0]["message"], message);
}

TEST_F(ConditionalCli, AConditionalRequestFromTheCommandLine) {
  const auto result = dry_run({"python=3.12", "numpy[when=\"__cuda>=12\"]"}, {});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto document = parse_json(result);
  EXPECT_EQ(linked(document), std::vector<std::string>{"python 3.12.0 0"});
  EXPECT_EQ(document["conditions"][0]["requirer"], "the request");
  EXPECT_EQ(document["conditions"][0]["held"], false);
}

// CEP 43's environment.yml example: the condition as written in `dependencies`.
TEST_F(ConditionalCli, AnEnvironmentFileCarriesConditions) {
  gpuenv::testing::write_text_file(machine / "environment.yml",
                                   "name: conditional\ndependencies:\n  - python=3.9\n"
                                   "  - numpy>=2[when=\"python>=3.10\"]\n  - libstencil-cuda[when='__cuda>=12']\n");
  const auto result = dry_run({"--file", (machine / "environment.yml").string()}, {"CONDA_OVERRIDE_CUDA=12.4"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto document = parse_json(result);
  EXPECT_EQ(sorted(linked(document)),
            (std::vector<std::string>{"cuda-cudart 12.4.127 0", "libstencil-cuda 1.0 0", "python 3.9.0 0"}));
  ASSERT_EQ(document["conditions"].size(), 2u) << document.dump(2);
  EXPECT_EQ(document["conditions"][0]["held"], false);
  EXPECT_EQ(document["conditions"][1]["held"], true);
}

TEST_F(ConditionalCli, CudaWhenDecidesAConditionOnThisMachine) {
  const auto result = run_gpuenv({"cuda", "--when", "__cuda>=12 and __linux", "--when", "__cuda>=13"},
                                 machine.env({"CONDA_OVERRIDE_CUDA=12.4"}));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("__cuda>=12 and __linux: holds (__cuda 12.4 is on this machine (CONDA_OVERRIDE_CUDA=12.4); "
                            "__linux "),
            std::string::npos)
      << result.out;
  EXPECT_NE(result.out.find("__cuda>=13: does not hold (__cuda 12.4 is on this machine, not __cuda>=13"),
            std::string::npos)
      << result.out;
  const auto json = run_gpuenv({"cuda", "--json", "--when", "__cuda>=12"}, machine.env());
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const auto document = parse_json(json);
  EXPECT_EQ(document["conditions"][0]["when"], "__cuda>=12");
  EXPECT_EQ(document["conditions"][0]["held"], false);
  const auto bad = run_gpuenv({"cuda", "--when", "__cuda>=12 and"}, machine.env());
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("a match spec is missing at the end of the condition"), std::string::npos) << bad.err;
}

// A real create (package files, conda-meta): the record keeps its
// conditional dependency as written.
TEST(ConditionalCreate, InstallsTheCudaClosureAndRecordsTheDependencyAsWritten) {
  SolveCliMachine machine;
  ChannelBuilder channel(machine / "channel", file_url(machine / "channel"));
  channel.add(PackageBuilder("app", "1.0", "0").depends({"gpu-part[when=\"__cuda>=12\"]", "cpu-part"}));
  channel.add(PackageBuilder("gpu-part", "1.0", "0"));
  channel.add(PackageBuilder("cpu-part", "1.0", "0"));
  gpuenv::testing::write_text_file(machine / "channel/noarch/repodata.json",
                                   R"({"info": {"subdir": "noarch"}, "packages": {}})");
  const auto prefix = machine / "env";
  const auto result = run_gpuenv({"create", "-p", prefix.string(), "-c", file_url(machine / "channel"),
                                  "--override-channels", "-y", "app"},
                                 machine.env({"CONDA_OVERRIDE_CUDA=12.4"}));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(installed_dists(prefix), (std::vector<std::string>{"app-1.0-0", "cpu-part-1.0-0", "gpu-part-1.0-0"}));
  EXPECT_NE(result.out.find("app 1.0 0: gpu-part[when=\"__cuda>=12\"] applies"), std::string::npos) << result.out;
  std::ifstream record(prefix / "conda-meta/app-1.0-0.json");
  const auto document = nlohmann::json::parse(record);
  EXPECT_NE(std::find(document["depends"].begin(), document["depends"].end(), "gpu-part[when=\"__cuda>=12\"]"),
            document["depends"].end())
      << document["depends"].dump();
}

}  // namespace
