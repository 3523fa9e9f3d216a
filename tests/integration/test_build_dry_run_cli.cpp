// `gpuenv build --dry-run` end to end: a recipe with a CUDA matrix planned
// against a small conda-forge-shaped local channel (text and --json), each
// variant's host environment getting its CUDA's cuda-version; an unsolvable
// host environment exits 1 with the solver's explanation; nothing is written
// to the output directory.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "config_cli_fixture.hpp"
#include "solve_cli_fixture.hpp"
#include "support/run_command.hpp"
#include "support/temp_directory.hpp"

namespace {

namespace fs = std::filesystem;
using gpuenv::testing::CommandOutput;
using gpuenv::testing::record_json;
using gpuenv::testing::repodata_json;
using gpuenv::testing::run_gpuenv;
using gpuenv::testing::write_text_file;

const char* const cuda_recipe = R"(package:
  name: kernels
  version: "1.0"
build:
  skip: cuda_compiler_version == "None"
requirements:
  build:
    - ${{ compiler('c') }}
  host:
    - if: cuda_compiler_version != "None"
      then: cuda-version ${{ cuda_compiler_version }}.*
    - zlib
)";

const char* const cuda_variants = R"(c_compiler:
  - gcc
c_compiler_version:
  - "14"
cuda_compiler_version:
  - None
  - "12.9"
  - "13.0"
)";

class BuildDryRunCli : public ::testing::Test {
 protected:
  void SetUp() override {
    write_text_file(channel() / "noarch/repodata.json", repodata_json("noarch", ""));
    write_text_file(channel() / "linux-64/repodata.json",
                    repodata_json("linux-64", record_json("gcc_linux-64", "14.3.0", "linux-64") + ", " +
                                                  record_json("cuda-version", "12.9", "linux-64") + ", " +
                                                  record_json("cuda-version", "13.0", "linux-64") + ", " +
                                                  record_json("zlib", "1.3.1", "linux-64")));
    write_text_file(machine / "kernels/recipe.yaml", cuda_recipe);
    write_text_file(machine / "kernels/variants.yaml", cuda_variants);
  }

  fs::path channel() const { return machine / "conda-forge"; }

  CommandOutput dry_run(const fs::path& recipe_dir, std::vector<std::string> extra = {}) const {
    std::vector<std::string> args = {"build", "--dry-run", recipe_dir.string(), "--output-dir",
                                     (machine / "output").string(), "-c", "file://" + channel().string(),
                                     "--override-channels"};
    args.insert(args.end(), extra.begin(), extra.end());
    return run_gpuenv(args, machine.env());
  }

  gpuenv::testing::SolveCliMachine machine;
};

TEST_F(BuildDryRunCli, PrintsWhatEachVariantsEnvironmentsWouldGet) {
  const auto result = dry_run(machine / "kernels");
  ASSERT_EQ(result.exit_code, 0) << result.out << result.err;
  EXPECT_NE(result.out.find("cuda_compiler_version=12.9"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("cuda_compiler_version=13.0"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("build environment (linux-64): 1 package\n    gcc_linux-64 14.3.0 0"), std::string::npos)
      << result.out;
  EXPECT_NE(result.out.find("cuda-version 12.9 0"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("cuda-version 13.0 0"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("2 variants planned (1 skipped by the recipe), every environment solves"),
            std::string::npos)
      << result.out;
  // A plan builds nothing.
  EXPECT_FALSE(fs::exists(machine / "output"));
}

TEST_F(BuildDryRunCli, JsonGivesEachVariantsPackages) {
  const auto result = dry_run(machine / "kernels", {"--json"});
  ASSERT_EQ(result.exit_code, 0) << result.out << result.err;
  const auto document = nlohmann::json::parse(result.out);
  EXPECT_TRUE(document["success"].get<bool>());
  const auto& variants = document["recipes"][0]["variants"];
  ASSERT_EQ(variants.size(), 2u);
  EXPECT_EQ(document["recipes"][0]["skipped"], 1);
  for (const auto& variant : variants) {
    const std::string cuda = variant["variant"]["cuda_compiler_version"];
    EXPECT_TRUE(variant["solved"].get<bool>());
    EXPECT_EQ(variant["build"]["packages"][0]["name"], "gcc_linux-64");
    bool found = false;
    for (const auto& package : variant["host"]["packages"]) {
      if (package["name"] == "cuda-version") found = package["version"] == cuda;
    }
    EXPECT_TRUE(found) << variant.dump(2);
  }
}

TEST_F(BuildDryRunCli, AnUnsolvableHostEnvironmentExitsOneWithTheExplanation) {
  write_text_file(machine / "kernels/recipe.yaml",
                  std::string(cuda_recipe) + "    - libmissing >=2\n");
  const auto text = dry_run(machine / "kernels");
  EXPECT_EQ(text.exit_code, 1) << text.out << text.err;
  EXPECT_NE(text.out.find("cannot solve the host environment"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("libmissing"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("2 cannot be solved"), std::string::npos) << text.out;

  const auto json = dry_run(machine / "kernels", {"--json"});
  EXPECT_EQ(json.exit_code, 1) << json.out << json.err;
  const auto document = nlohmann::json::parse(json.out);
  EXPECT_FALSE(document["success"].get<bool>());
  const auto& variant = document["recipes"][0]["variants"][0];
  EXPECT_EQ(variant["failed_environment"], "host");
  EXPECT_FALSE(variant["explanation"].empty());
}

TEST_F(BuildDryRunCli, ARecipeThatCannotBeRenderedFailsNamingIt) {
  write_text_file(machine / "broken/recipe.yaml", "package:\n  name: broken\n  version: ${{ nowhere }}\n");
  const auto result = dry_run(machine / "broken");
  EXPECT_EQ(result.exit_code, 1) << result.out << result.err;
  EXPECT_NE(result.err.find("nowhere"), std::string::npos) << result.err;
}

}  // namespace
