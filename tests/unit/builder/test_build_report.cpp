// `gpuenv build --json`: the built packages or the planned recipes, with
// the error after what was done when the run failed.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "gpuenv/builder/build_report.hpp"

namespace gpuenv::build {
namespace {

BuiltVariant built(std::string name, std::string cuda_check) {
  BuiltVariant variant{std::move(name), "1.0", "h1_0", {}};
  variant.package.package = "/out/linux-64/" + variant.name + "-1.0-h1_0.conda";
  variant.package.files = 4;
  variant.package.cuda_check = std::move(cuda_check);
  return variant;
}

PlannedRecipe planned(bool solved) {
  VariantPlan variant;
  variant.name = "libfoo";
  variant.subdir = "linux-64";
  variant.build.platform = "linux-64";
  variant.build.packages = {specs::PackageRecord{}};
  variant.build.packages[0].name = "gcc";
  if (!solved) {
    variant.failed_environment = "host";
    variant.problem = "nothing provides libbar";
    variant.explanation = {"libbar: no such package"};
  }
  RecipePlan plan;
  plan.variants = {variant};
  plan.skipped = 2;
  return {"/recipes/libfoo/recipe.yaml", plan};
}

TEST(BuildReport, BuiltPackagesAreListedAndAFailureComesAfterThem) {
  const auto ok = nlohmann::json::parse(build_report_json({built("a", ""), built("b", "sm_90: ok")}, std::nullopt));
  EXPECT_EQ(ok.at("success"), true);
  EXPECT_FALSE(ok.contains("error"));
  ASSERT_EQ(ok.at("packages").size(), 2u);
  EXPECT_EQ(ok.at("packages")[0].at("package"), "/out/linux-64/a-1.0-h1_0.conda");
  EXPECT_EQ(ok.at("packages")[0].at("cuda_check"), nullptr);
  EXPECT_EQ(ok.at("packages")[1].at("cuda_check"), "sm_90: ok");
  const auto text = build_report_json({built("a", "")}, "b failed");
  EXPECT_LT(text.find("\"error\": \"b failed\""), text.find("\"packages\"")) << text;
  const auto failed = nlohmann::json::parse(text);
  EXPECT_EQ(failed.at("success"), false);
  EXPECT_EQ(failed.at("packages").size(), 1u);
}

TEST(BuildReport, APlanSucceedsOnlyWhenEveryEnvironmentSolves) {
  const auto solved = nlohmann::json::parse(plan_report_json({planned(true)}, std::nullopt));
  EXPECT_EQ(solved.at("success"), true);
  const auto& recipe = solved.at("recipes")[0];
  EXPECT_EQ(recipe.at("recipe"), "/recipes/libfoo/recipe.yaml");
  EXPECT_EQ(recipe.at("skipped"), 2);
  EXPECT_EQ(recipe.at("variants")[0].at("build").at("packages")[0].at("name"), "gcc");
  EXPECT_FALSE(recipe.at("variants")[0].contains("failed_environment"));

  const auto unsolved = nlohmann::json::parse(plan_report_json({planned(true), planned(false)}, std::nullopt));
  EXPECT_EQ(unsolved.at("success"), false);
  const auto& variant = unsolved.at("recipes")[1].at("variants")[0];
  EXPECT_EQ(variant.at("solved"), false);
  EXPECT_EQ(variant.at("failed_environment"), "host");
  EXPECT_EQ(variant.at("explanation")[0], "libbar: no such package");

  const auto errored = nlohmann::json::parse(plan_report_json({planned(true)}, "cannot render"));
  EXPECT_EQ(errored.at("success"), false);
  EXPECT_EQ(errored.at("error"), "cannot render");
  EXPECT_EQ(errored.at("recipes").size(), 1u);
}

}  // namespace
}  // namespace gpuenv::build
