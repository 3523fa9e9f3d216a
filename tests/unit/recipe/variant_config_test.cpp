// Variant files (variants.yaml and conda_build_config.yaml), merging and
// --variant overrides. The values and zip_keys rattler-build reads from the
// same files are checked live in variants_differential_test.cpp.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "gpuenv/recipe/variant_config.hpp"

namespace gpuenv::recipe {
namespace {

std::vector<std::string> printed(const VariantConfig& config, const std::string& key) {
  std::vector<std::string> result;
  const auto found = config.values.find(key);
  if (found == config.values.end()) return {"<absent>"};
  for (const auto& value : found->second) result.push_back(value.nested_display());
  return result;
}

VariantConfig parse_ok(std::string_view text, VariantFileFormat format, const VariantReadOptions& options = {}) {
  auto config = parse_variant_config(text, "variants.yaml", format, options);
  EXPECT_TRUE(config.has_value()) << (config ? "" : config.error().message);
  return config ? *config : VariantConfig{};
}

TEST(VariantConfig, VariantsYamlTypesValuesAsRattlerBuild) {
  const auto config = parse_ok(
      "python: [3.10, '3.11', 3.9]\nnumpy: [2]\nflag: [true]\ncuda_compiler_version: [None, 12.9]\nsingle: abc\n",
      VariantFileFormat::variants_yaml);
  EXPECT_EQ(printed(config, "python"), (std::vector<std::string>{"\"3.10\"", "\"3.11\"", "\"3.9\""}));
  EXPECT_EQ(printed(config, "numpy"), (std::vector<std::string>{"2"}));
  EXPECT_EQ(printed(config, "flag"), (std::vector<std::string>{"true"}));
  EXPECT_EQ(printed(config, "cuda_compiler_version"), (std::vector<std::string>{"\"None\"", "\"12.9\""}));
  EXPECT_EQ(printed(config, "single"), (std::vector<std::string>{"\"abc\""}));
}

TEST(VariantConfig, KeysAreNormalizedAsRattlerBuildDoes) {
  // rattler-build reads `r-base:` as r_base (so `- r-base` in a recipe finds it).
  auto config = parse_ok("r-base: ['4.4']\nfoo-bar: [1]\nzip_keys:\n  - [r-base, foo-bar]\n", VariantFileFormat::variants_yaml);
  EXPECT_EQ(printed(config, "r_base"), (std::vector<std::string>{"\"4.4\""}));
  EXPECT_EQ(config.zip_keys, (std::vector<std::vector<std::string>>{{"r_base", "foo_bar"}}));
  ASSERT_TRUE(apply_variant_overrides(config, {"foo-bar=2"}));
  EXPECT_EQ(printed(config, "foo_bar"), (std::vector<std::string>{"\"2\""}));
  EXPECT_FALSE(config.values.contains("foo-bar"));
}

TEST(VariantConfig, VariantsYamlSelectorsInLists) {
  const std::string text = "c_compiler:\n  - if: linux\n    then: gcc\n    else: clang\n  - if: win\n    then: [vs2022]\n";
  EXPECT_EQ(printed(parse_ok(text, VariantFileFormat::variants_yaml), "c_compiler"), (std::vector<std::string>{"\"gcc\""}));
  VariantReadOptions windows;
  windows.target_platform = "win-64";
  EXPECT_EQ(printed(parse_ok(text, VariantFileFormat::variants_yaml, windows), "c_compiler"),
            (std::vector<std::string>{"\"clang\"", "\"vs2022\""}));
}

TEST(VariantConfig, ZipKeysAndPinRunAsBuild) {
  const auto config = parse_ok(
      "a: [1, 2]\nb: [x, y]\nzip_keys:\n  - [a, b, missing]\npin_run_as_build:\n  libfoo:\n    max_pin: x.x\n",
      VariantFileFormat::variants_yaml);
  ASSERT_EQ(config.zip_keys.size(), 1u);
  EXPECT_EQ(config.zip_keys[0], (std::vector<std::string>{"a", "b", "missing"}));
  EXPECT_EQ(config.pin_run_as_build.at("libfoo").max_pin, "x.x");
  EXPECT_FALSE(config.values.contains("zip_keys"));
  EXPECT_FALSE(config.values.contains("pin_run_as_build"));
}

TEST(VariantConfig, CondaBuildConfigLineSelectors) {
  const std::string text =
      "c_compiler:\n  - gcc      # [linux]\n  - vs2022   # [win]\n"
      "c_compiler_version:   # [unix]\n  - 15       # [linux]\n"
      "  - 14       # [linux and os.environ.get(\"CF_CUDA_ENABLED\", \"False\") == \"True\"]\n"
      "is_abi3:\n  - true\ngoexe:\n  -          # [unix]\n  - .exe     # [win]\n"
      "zip_keys:\n  -           # [unix]\n    - c_compiler_version  # [unix]\n    - c_compiler  # [unix]\n"
      "d:\n  - 4  # [py >= 38]\n  - 5  # [\"abc\".upper() == \"ABC\"]\n  - 6  # [nonexistent]\n"
      "  - 7  # [os.environ.get(\"X\", \"\").startswith(\"\")]\n";
  const auto linux_config = parse_ok(text, VariantFileFormat::conda_build_config);
  EXPECT_EQ(printed(linux_config, "c_compiler"), (std::vector<std::string>{"\"gcc\""}));
  EXPECT_EQ(printed(linux_config, "c_compiler_version"), (std::vector<std::string>{"\"15\""}));
  EXPECT_EQ(printed(linux_config, "is_abi3"), (std::vector<std::string>{"true"}));
  EXPECT_EQ(printed(linux_config, "goexe"), (std::vector<std::string>{"none"}));
  ASSERT_EQ(linux_config.zip_keys.size(), 1u);
  EXPECT_EQ(linux_config.zip_keys[0], (std::vector<std::string>{"c_compiler_version", "c_compiler"}));
  // What rattler-build keeps: unknown names and methods make a selector false; startswith exists.
  EXPECT_EQ(printed(linux_config, "d"), (std::vector<std::string>{"\"7\""}));

  VariantReadOptions cuda;
  cuda.environment["CF_CUDA_ENABLED"] = "True";
  EXPECT_EQ(printed(parse_ok(text, VariantFileFormat::conda_build_config, cuda), "c_compiler_version"),
            (std::vector<std::string>{"\"15\"", "\"14\""}));

  VariantReadOptions windows;
  windows.target_platform = "win-64";
  const auto windows_config = parse_ok(text, VariantFileFormat::conda_build_config, windows);
  EXPECT_EQ(printed(windows_config, "c_compiler"), (std::vector<std::string>{"\"vs2022\""}));
  EXPECT_EQ(printed(windows_config, "c_compiler_version"), (std::vector<std::string>{"<absent>"}));
  EXPECT_EQ(printed(windows_config, "goexe"), (std::vector<std::string>{"\".exe\""}));
  EXPECT_TRUE(windows_config.zip_keys.empty());
}

TEST(VariantConfig, MergeReplacesKeysAndZipKeysWhenGiven) {
  auto first = parse_ok("x: [1]\ny: [a, b]\nz: [c, d]\nzip_keys:\n  - [y, z]\n", VariantFileFormat::variants_yaml);
  merge_variant_config(first, parse_ok("y: [r]\n", VariantFileFormat::variants_yaml));
  EXPECT_EQ(printed(first, "y"), (std::vector<std::string>{"\"r\""}));
  EXPECT_EQ(printed(first, "z"), (std::vector<std::string>{"\"c\"", "\"d\""}));
  ASSERT_EQ(first.zip_keys.size(), 1u);
  merge_variant_config(first, parse_ok("w: [1, 2]\nzip_keys:\n  - [w, x]\n", VariantFileFormat::variants_yaml));
  EXPECT_EQ(first.zip_keys, (std::vector<std::vector<std::string>>{{"w", "x"}}));
}

TEST(VariantConfig, OverridesReplaceValues) {
  VariantConfig config = parse_ok("python: ['3.10']\n", VariantFileFormat::variants_yaml);
  ASSERT_TRUE(apply_variant_overrides(config, {"python=3.11,3.12", "cuda_compiler_version=13.0"}));
  EXPECT_EQ(printed(config, "python"), (std::vector<std::string>{"\"3.11\"", "\"3.12\""}));
  EXPECT_EQ(printed(config, "cuda_compiler_version"), (std::vector<std::string>{"\"13.0\""}));
  const auto refused = apply_variant_overrides(config, {"python"});
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("KEY=VALUE"), std::string::npos) << refused.error().message;
}

TEST(VariantConfig, ErrorsNameFileLineAndColumn) {
  auto nested = parse_variant_config("python:\n  - [3.10]\n", "my_variants.yaml", VariantFileFormat::variants_yaml);
  ASSERT_FALSE(nested);
  EXPECT_EQ(nested.error().file, "my_variants.yaml");
  EXPECT_EQ(nested.error().line, 2u);
  EXPECT_EQ(nested.error().column, 5u);
  EXPECT_NE(nested.error().message.find("my_variants.yaml:2:5"), std::string::npos) << nested.error().message;

  auto selector = parse_variant_config("a:\n  - 1  # [linux and (]\n", "conda_build_config.yaml",
                                       VariantFileFormat::conda_build_config);
  ASSERT_FALSE(selector);
  EXPECT_EQ(selector.error().line, 2u);
  EXPECT_EQ(selector.error().kind, RecipeError::Kind::expression);

  auto zip = parse_variant_config("zip_keys: [a, b]\n", "v.yaml", VariantFileFormat::variants_yaml);
  ASSERT_FALSE(zip);
  EXPECT_NE(zip.error().message.find("zip_keys"), std::string::npos) << zip.error().message;

  VariantReadOptions small;
  small.max_file_bytes = 8;
  auto large = parse_variant_config("python: ['3.10', '3.11']\n", "v.yaml", VariantFileFormat::variants_yaml, small);
  ASSERT_FALSE(large);
  EXPECT_EQ(large.error().kind, RecipeError::Kind::too_large);
}

TEST(VariantConfig, ReadsCondaForgePinningForEachPlatform) {
  const char* configured = std::getenv("GPUENV_TESTDATA");
  const std::filesystem::path pinning = std::filesystem::path(configured != nullptr ? configured : GPUENV_DEFAULT_TESTDATA) /
                                        "pinning" / "conda_build_config.yaml";
  if (!std::filesystem::exists(pinning)) GTEST_SKIP() << "no " << pinning;
  EXPECT_EQ(variant_file_format(pinning), VariantFileFormat::conda_build_config);
  auto linux_config = read_variant_config(pinning);
  ASSERT_TRUE(linux_config) << linux_config.error().message;
  EXPECT_EQ(printed(*linux_config, "c_compiler"), (std::vector<std::string>{"\"gcc\""}));
  EXPECT_EQ(printed(*linux_config, "cuda_compiler_version"), (std::vector<std::string>{"\"None\""}));
  VariantReadOptions windows;
  windows.target_platform = windows.build_platform = "win-64";
  auto windows_config = read_variant_config(pinning, windows);
  ASSERT_TRUE(windows_config) << windows_config.error().message;
  EXPECT_EQ(printed(*windows_config, "c_compiler"), (std::vector<std::string>{"\"vs2022\""}));
}

}  // namespace
}  // namespace gpuenv::recipe
