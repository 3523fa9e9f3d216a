// Whole-repository builds: which recipe files a directory holds, and the
// order recipes build in by what they need of each other's outputs.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "gpuenv/builder/recipe_order.hpp"

namespace {

namespace fs = std::filesystem;
using gpuenv::build::recipe_build_order;
using gpuenv::build::RecipeNeeds;

RecipeNeeds recipe(const std::string& name, std::set<std::string> outputs, std::set<std::string> needs) {
  return RecipeNeeds{fs::path("recipes") / name / "recipe.yaml", std::move(outputs), std::move(needs)};
}

std::vector<std::string> names_in_order(const std::vector<RecipeNeeds>& recipes) {
  auto order = recipe_build_order(recipes);
  EXPECT_TRUE(order) << (order ? "" : order.error().message);
  std::vector<std::string> names;
  if (order) {
    for (const auto index : *order) names.push_back(recipes[index].file.parent_path().filename().string());
  }
  return names;
}

TEST(RecipeOrder, ARecipeBuildsAfterTheRecipesWhoseOutputsItNeeds) {
  // Given in the order a directory listing gives: alphabetical, the reverse of what builds.
  const std::vector<RecipeNeeds> recipes{
      recipe("numpy", {"numpy"}, {"python", "libblas", "cython", "meson-python"}),
      recipe("openblas", {"libopenblas", "libblas", "libcblas", "liblapack"}, {"c_compiler_stub"}),
      recipe("python", {"python"}, {"libzlib", "openssl"}),
      recipe("toolchain", {"cython", "meson-python"}, {"python"}),
      recipe("zlib", {"libzlib", "zlib"}, {}),
      recipe("openssl", {"openssl"}, {"libzlib"}),
  };
  const auto names = names_in_order(recipes);
  auto position = [&names](const std::string& name) { return std::find(names.begin(), names.end(), name) - names.begin(); };
  ASSERT_EQ(names.size(), recipes.size());
  EXPECT_LT(position("zlib"), position("openssl"));
  EXPECT_LT(position("openssl"), position("python"));
  EXPECT_LT(position("python"), position("toolchain"));
  EXPECT_LT(position("toolchain"), position("numpy"));
  EXPECT_LT(position("openblas"), position("numpy"));
}

TEST(RecipeOrder, IndependentRecipesKeepTheGivenOrder) {
  const std::vector<RecipeNeeds> recipes{recipe("b", {"b"}, {"python"}), recipe("a", {"a"}, {"numpy"}),
                                         recipe("c", {"c"}, {})};
  EXPECT_EQ(names_in_order(recipes), (std::vector<std::string>{"b", "a", "c"}));
}

TEST(RecipeOrder, AnOutputNeededByAnotherOutputOfTheSameRecipeAddsNoOrder) {
  // cuda-nvcc's outputs pin each other; the recipe is not waiting on itself.
  const std::vector<RecipeNeeds> recipes{
      recipe("cuda-nvcc", {"cuda-nvcc-impl", "cuda-nvcc_linux-64"}, {"cuda-nvcc-impl", "cuda-nvvm-tools"}),
      recipe("cuda-nvvm", {"cuda-nvvm-tools"}, {"cuda-version"})};
  EXPECT_EQ(names_in_order(recipes), (std::vector<std::string>{"cuda-nvvm", "cuda-nvcc"}));
}

TEST(RecipeOrder, ACycleIsAnErrorNamingEveryRecipeInItAndWhatEachNeeds) {
  const std::vector<RecipeNeeds> recipes{recipe("zlib", {"libzlib"}, {}),
                                         recipe("pip", {"pip"}, {"python", "libzlib"}),
                                         recipe("python", {"python"}, {"pip", "libzlib"})};
  const auto order = recipe_build_order(recipes);
  ASSERT_FALSE(order);
  const auto& message = order.error().message;
  EXPECT_NE(message.find("cycle"), std::string::npos) << message;
  EXPECT_NE(message.find("recipes/pip/recipe.yaml needs python"), std::string::npos) << message;
  EXPECT_NE(message.find("recipes/python/recipe.yaml needs pip"), std::string::npos) << message;
  EXPECT_EQ(message.find("zlib"), std::string::npos) << "zlib is not in the cycle: " << message;
}

class RecipeFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("gpuenv-recipe-files-" + std::to_string(::getpid()));
    fs::remove_all(root_);
  }
  void TearDown() override { fs::remove_all(root_); }
  void write(const fs::path& relative) {
    fs::create_directories((root_ / relative).parent_path());
    std::ofstream(root_ / relative) << "package: {name: x, version: '1'}\n";
  }
  fs::path root_;
};

TEST_F(RecipeFiles, ADirectoryOfRecipesGivesEachRecipeSortedWithoutSearchingInsideARecipe) {
  write("zlib/recipe.yaml");
  write("examples/stencil/recipe.yaml");
  write("examples/stencil/tests/recipe.yaml");  // inside a recipe: not a recipe of the repository
  write("cuda-nvcc/recipe.yaml");
  write(".hidden/recipe.yaml");
  auto found = gpuenv::build::find_recipe_files(root_);
  ASSERT_TRUE(found) << found.error().message;
  EXPECT_EQ(*found, (std::vector<fs::path>{root_ / "cuda-nvcc/recipe.yaml", root_ / "examples/stencil/recipe.yaml",
                                           root_ / "zlib/recipe.yaml"}));
}

TEST_F(RecipeFiles, ARecipeDirectoryIsThatRecipeOnly) {
  write("zlib/recipe.yaml");
  write("zlib/sub/recipe.yaml");
  auto found = gpuenv::build::find_recipe_files(root_ / "zlib");
  ASSERT_TRUE(found);
  EXPECT_EQ(*found, (std::vector<fs::path>{root_ / "zlib/recipe.yaml"}));
}

TEST_F(RecipeFiles, ADirectoryWithoutRecipesOrAMissingPathIsAnErrorSayingWhatToGive) {
  fs::create_directories(root_ / "empty/sub");
  auto empty = gpuenv::build::find_recipe_files(root_ / "empty");
  ASSERT_FALSE(empty);
  EXPECT_NE(empty.error().message.find("holds no recipe.yaml"), std::string::npos) << empty.error().message;
  auto missing = gpuenv::build::find_recipe_files(root_ / "missing");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("no recipe at"), std::string::npos) << missing.error().message;
}

// What `gpuenv lint ARG` reports on: a recipe as given, a directory of
// recipes as each recipe's directory, a missing path as given.
TEST_F(RecipeFiles, AnArgumentNamesItsRecipesWithTheNamesAReportShows) {
  write("recipes/zlib/recipe.yaml");
  write("recipes/cuda/nvcc/recipe.yaml");
  const auto one = gpuenv::build::recipes_named_by((root_ / "recipes/zlib").string());
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].name, (root_ / "recipes/zlib").string());
  EXPECT_EQ(one[0].file, root_ / "recipes/zlib/recipe.yaml");
  const auto all = gpuenv::build::recipes_named_by((root_ / "recipes").string());
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].name, (root_ / "recipes/cuda/nvcc").string());
  EXPECT_EQ(all[1].file, root_ / "recipes/zlib/recipe.yaml");
  const auto missing = gpuenv::build::recipes_named_by((root_ / "missing").string());
  ASSERT_EQ(missing.size(), 1u);
  EXPECT_EQ(missing[0].file, root_ / "missing");
}

TEST(RequirementName, IsTheMatchSpecsNameOrThePinsName) {
  gpuenv::recipe::Dependency spec;
  spec.spec = "python 3.13.* *_cp313";
  EXPECT_EQ(gpuenv::build::requirement_name(spec), "python");
  spec.spec = "numpy>=1.22,<2.6";
  EXPECT_EQ(gpuenv::build::requirement_name(spec), "numpy");
  gpuenv::recipe::Dependency pin;
  pin.pin = gpuenv::recipe::Pin{};
  pin.pin->name = "llvmlite";
  EXPECT_EQ(gpuenv::build::requirement_name(pin), "llvmlite");
}

}  // namespace
