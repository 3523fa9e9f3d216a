// `gpuenv lint` end to end: a clean CUDA recipe exits 0 (warnings allowed),
// a recipe with an error finding exits 1 and prints file:line:column, the
// check and the fix (text and --json), a malformed --variant exits 2.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/run_command.hpp"
#include "support/temp_directory.hpp"

namespace {

namespace fs = std::filesystem;
using gpuenv::testing::run_gpuenv;
using gpuenv::testing::TempDirectory;
using gpuenv::testing::write_text_file;
using nlohmann::json;

const char* const cuda_variants = R"(c_compiler: [gcc]
c_compiler_version: ['13']
c_stdlib: [sysroot]
c_stdlib_version: ['2.17']
cuda_compiler: [cuda-nvcc]
cuda_compiler_version: [None, '12.9', '13.0']
)";

// Clean but for one warning: no license_file.
const char* const library_recipe = R"(package:
  name: libfoo
  version: "1.0"
source:
  url: https://example.invalid/foo-1.0.tar.gz
  sha256: 5f1a2bd1b4a4e04c19e2d5e50ce5e74d2d8a1e3b0c4f5a6b7c8d9e0f1a2b3c4d
requirements:
  build:
    - ${{ compiler('c') }}
    - ${{ stdlib('c') }}
    - if: cuda_compiler_version != "None"
      then: ${{ compiler('cuda') }}
  run_exports:
    - ${{ pin_subpackage('libfoo', upper_bound='x.x') }}
about:
  homepage: https://example.invalid/foo
  license: MIT
  summary: A library
)";

// A CUDA package built without compiler('cuda') and nothing pinning
// cuda-version; its source has no checksum.
const char* const unpinned_recipe = R"(package:
  name: foo
  version: "1.0"
source:
  url: https://example.invalid/foo-1.0.tar.gz
requirements:
  build:
    - ${{ compiler('c') }}
    - ${{ stdlib('c') }}
  host:
    - if: cuda_compiler_version != "None"
      then: cuda-cudart-dev
about:
  homepage: https://example.invalid/foo
  license: MIT
  license_file: LICENSE
  summary: A tool
)";

TEST(LintCli, CleanRecipeWithAWarningExitsZero) {
  TempDirectory dir;
  write_text_file(dir / "libfoo/recipe.yaml", library_recipe);
  write_text_file(dir / "libfoo/variants.yaml", cuda_variants);
  const auto result = run_gpuenv({"lint", (dir / "libfoo/recipe.yaml").string()});
  EXPECT_EQ(result.exit_code, 0) << result.out << result.err;
  EXPECT_NE(result.out.find("warning[about-license-file-missing]"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("fix: add `license_file:"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("0 errors, 1 warning"), std::string::npos) << result.out;
}

TEST(LintCli, ErrorsExitOneWithPositionCheckAndFix) {
  TempDirectory dir;
  const auto recipe = dir / "foo/recipe.yaml";
  write_text_file(recipe, unpinned_recipe);
  write_text_file(dir / "foo/variants.yaml", cuda_variants);
  const auto result = run_gpuenv({"lint", recipe.string()});
  EXPECT_EQ(result.exit_code, 1) << result.out << result.err;
  EXPECT_NE(result.out.find(recipe.string() + ":5:3: error[source-sha256-missing]"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("error[cuda-version-unpinned]"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("cuda-version >=12.9,<13"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("2 errors, 0 warnings"), std::string::npos) << result.out;

  // Pinned to one CPU variant, the CUDA finding goes; the checksum stays.
  const auto cpu = run_gpuenv({"lint", recipe.string(), "--variant", "cuda_compiler_version=None", "--json"});
  EXPECT_EQ(cpu.exit_code, 1) << cpu.out << cpu.err;
  const auto document = json::parse(cpu.out);
  EXPECT_EQ(document["schema_version"], 1);
  EXPECT_EQ(document["errors"], 1);
  ASSERT_EQ(document["recipes"].size(), 1u);
  const auto& findings = document["recipes"][0]["findings"];
  ASSERT_GE(findings.size(), 1u) << cpu.out;
  EXPECT_EQ(findings[0]["check"], "source-sha256-missing");
  EXPECT_EQ(findings[0]["severity"], "error");
  EXPECT_EQ(findings[0]["file"], recipe.string());
  EXPECT_EQ(findings[0]["line"], 5);
  EXPECT_EQ(findings[0]["column"], 3);
  EXPECT_TRUE(findings[0]["output"].is_null());
  EXPECT_FALSE(findings[0]["fix"].get<std::string>().empty());
}

TEST(LintCli, SeveralRecipesOneUnreadableAndUsageErrors) {
  TempDirectory dir;
  write_text_file(dir / "libfoo/recipe.yaml", library_recipe);
  write_text_file(dir / "libfoo/variants.yaml", cuda_variants);
  const auto missing = (dir / "missing/recipe.yaml").string();
  const auto result = run_gpuenv({"lint", (dir / "libfoo/recipe.yaml").string(), missing, "--json"});
  EXPECT_EQ(result.exit_code, 1) << result.out << result.err;
  const auto document = json::parse(result.out);
  ASSERT_EQ(document["recipes"].size(), 2u);
  EXPECT_EQ(document["recipes"][1]["findings"][0]["check"], "recipe-unreadable");
  EXPECT_EQ(document["warnings"], 1);

  const auto usage = run_gpuenv({"lint", (dir / "libfoo/recipe.yaml").string(), "--variant", "no-equals-sign"});
  EXPECT_EQ(usage.exit_code, 2) << usage.out << usage.err;
  const auto nothing = run_gpuenv({"lint"});
  EXPECT_EQ(nothing.exit_code, 2) << nothing.out << nothing.err;
}


// Issue 16: every reference recipe under recipes/ lints clean (no error, no
// warning) with the project's own variant matrix, as maintainers run it.
TEST(LintCli, EveryReferenceRecipeLintsCleanWithTheProjectsVariants) {
  const fs::path source_dir = GPUENV_SOURCE_DIR;
  std::vector<std::string> arguments{"lint", "--json", "-m", (source_dir / "metadata/variants/variants.yaml").string()};
  std::size_t recipes = 0;
  for (const auto& entry : fs::directory_iterator(source_dir / "recipes")) {
    if (!fs::exists(entry.path() / "recipe.yaml")) continue;  // examples/, external-packages.yaml
    arguments.push_back(entry.path().string());
    ++recipes;
  }
  ASSERT_GE(recipes, 13u);
  const auto result = run_gpuenv(arguments);
  EXPECT_EQ(result.exit_code, 0) << result.out << result.err;
  const auto report = json::parse(result.out, nullptr, false);
  ASSERT_TRUE(report.is_object()) << result.out;
  EXPECT_EQ(report["recipes"].size(), recipes);
  EXPECT_EQ(report["errors"], 0) << result.out;
  EXPECT_EQ(report["warnings"], 0) << result.out;
}


// `gpuenv lint recipes/` lints every recipe below the directory, as
// `gpuenv build recipes/` finds them, each named by its directory.
TEST(LintCli, ADirectoryOfRecipesLintsEveryRecipeInIt) {
  TempDirectory dir;
  write_text_file(dir / "recipes/libfoo/recipe.yaml", library_recipe);
  write_text_file(dir / "recipes/nested/foo/recipe.yaml", unpinned_recipe);
  write_text_file(dir / "recipes/variants.yaml", cuda_variants);
  const auto result =
      run_gpuenv({"lint", "--json", "-m", (dir / "recipes/variants.yaml").string(), (dir / "recipes").string()});
  EXPECT_EQ(result.exit_code, 1) << result.out << result.err;
  const auto document = json::parse(result.out);
  ASSERT_EQ(document["recipes"].size(), 2u) << result.out;
  EXPECT_EQ(document["recipes"][0]["recipe"], (dir / "recipes/libfoo").string()) << result.out;
  EXPECT_EQ(document["recipes"][1]["recipe"], (dir / "recipes/nested/foo").string()) << result.out;
  EXPECT_GE(document["errors"].get<int>(), 1) << result.out;
  fs::create_directories(dir / "empty");
  const auto empty = run_gpuenv({"lint", (dir / "empty").string()});
  EXPECT_EQ(empty.exit_code, 1) << empty.out << empty.err;
  EXPECT_NE(empty.out.find("error[recipe-unreadable]"), std::string::npos) << empty.out;
}

// `--variant K=V`, `-m FILE` and `-c CHANNEL` take one value each, as in
// rattler-build and conda-build: what follows is the recipe, not a second
// value (`gpuenv render --variant python=3.12 recipe/` used to say "recipe is
// required", `gpuenv lint -m v.yaml a/ b/` read a/ as a variant file).
TEST(LintCli, RepeatableOptionsTakeOneValueEachSoRecipesMayFollow) {
  TempDirectory dir;
  write_text_file(dir / "libfoo/recipe.yaml", library_recipe);
  write_text_file(dir / "libbar/recipe.yaml", library_recipe);
  write_text_file(dir / "variants.yaml", cuda_variants);
  const auto linted = run_gpuenv({"lint", "-m", (dir / "variants.yaml").string(), "--variant", "c_compiler_version=13",
                                  (dir / "libfoo").string(), (dir / "libbar").string()});
  EXPECT_EQ(linted.exit_code, 0) << linted.out << linted.err;
  EXPECT_NE(linted.out.find("0 errors, 2 warnings"), std::string::npos) << linted.out;
  const auto rendered = run_gpuenv({"render", "--variant", "cuda_compiler_version=13.0", "-m",
                                    (dir / "variants.yaml").string(), (dir / "libfoo").string()});
  EXPECT_EQ(rendered.exit_code, 0) << rendered.out << rendered.err;
  EXPECT_NE(rendered.out.find("libfoo 1.0"), std::string::npos) << rendered.out;
}

}  // namespace
