#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include "gpuenv/ci/ci_matrix.hpp"
#include "gpuenv/ci/recipe_graph.hpp"
#include "gpuenv/recipe/render.hpp"
#include "support/temp_directory.hpp"

namespace {

namespace fs = std::filesystem;
using gpuenv::ci::CiError;
using gpuenv::ci::CiJob;
using gpuenv::ci::MatrixRequest;

const fs::path source_dir = GPUENV_SOURCE_DIR;

MatrixRequest repository_request(fs::path recipes = source_dir / "tests/data/ci-recipes") {
  MatrixRequest request;
  request.recipes_dir = std::move(recipes);
  request.images_dir = source_dir / "ci-images";
  request.variant_files = {source_dir / "metadata/variants/variants.yaml"};
  return request;
}

std::string variant_value(const CiJob& job, const std::string& key) {
  for (const auto& argument : job.variant_arguments) {
    if (argument.starts_with(key + "=")) return argument.substr(key.size() + 1);
  }
  return "";
}

void write_recipe(const fs::path& dir, const std::string& name, const std::string& host) {
  gpuenv::testing::write_text_file(dir / name / "recipe.yaml",
                                   "package:\n  name: " + name + "\n  version: \"1\"\nrequirements:\n  host:\n    - " +
                                       host + "\n");
}

TEST(CiMatrix, OneJobPerVariantInItsCudaImageAfterTheRecipesItNeeds) {
  auto matrix = gpuenv::ci::build_matrix(repository_request());
  ASSERT_TRUE(matrix) << matrix.error().message;
  ASSERT_EQ(matrix->jobs.size(), 4u);
  EXPECT_EQ(matrix->index_image, "gpuenv/ci-cpu");
  const auto& headers = matrix->jobs[0];
  EXPECT_EQ(headers.package, "stencil-headers");
  EXPECT_EQ(headers.image, "cpu");
  EXPECT_TRUE(headers.needs.empty());
  EXPECT_EQ(headers.id, "stencil-headers-" + headers.build_string.substr(1, 7)) << headers.build_string;

  std::vector<std::string> images;
  for (std::size_t index = 1; index < matrix->jobs.size(); ++index) {
    const auto& job = matrix->jobs[index];
    EXPECT_EQ(job.package, "stencil");
    EXPECT_EQ(job.needs, std::vector<std::string>{headers.id});
    EXPECT_EQ(job.docker_image, "gpuenv/ci-" + job.image);
    EXPECT_EQ(job.recipe.find(source_dir.generic_string()), 0u);
    EXPECT_EQ(job.recipe_hash.size(), 16u);
    // The image's toolkit is the variant's CUDA version, never another.
    const auto cuda = variant_value(job, "cuda_compiler_version");
    EXPECT_EQ(job.image, cuda == "None" ? std::string("cpu") : "cuda" + cuda) << job.id;
    images.push_back(job.image);
  }
  std::sort(images.begin(), images.end());
  EXPECT_EQ(images, (std::vector<std::string>{"cpu", "cuda12.9", "cuda13.0"}));
  std::vector<std::string> ids;
  for (const auto& job : matrix->jobs) ids.push_back(job.id);
  std::sort(ids.begin(), ids.end());
  EXPECT_EQ(std::unique(ids.begin(), ids.end()), ids.end());

  // Stable: the same inputs give the same ids.
  auto again = gpuenv::ci::build_matrix(repository_request());
  ASSERT_TRUE(again);
  for (std::size_t index = 0; index < matrix->jobs.size(); ++index) {
    EXPECT_EQ(again->jobs[index].id, matrix->jobs[index].id);
  }
}

TEST(CiMatrix, TheChannelIsCheckedForSm80AndSm90UnlessToldOtherwise) {
  auto matrix = gpuenv::ci::build_matrix(repository_request());
  ASSERT_TRUE(matrix) << matrix.error().message;
  EXPECT_EQ(matrix->check_gpus, (std::vector<std::string>{"sm_80", "sm_90"}));

  auto request = repository_request();
  request.check_gpus = {"9.0", "sm_86", "86", "sm_100a"};  // any spelling doctor --gpu takes, once each
  matrix = gpuenv::ci::build_matrix(request);
  ASSERT_TRUE(matrix) << matrix.error().message;
  EXPECT_EQ(matrix->check_gpus, (std::vector<std::string>{"sm_86", "sm_90", "sm_100a"}));
}

TEST(CiMatrix, ACheckGpuThatIsNotAnArchitectureIsRefused) {
  // It would go onto the final job's shell line.
  for (const char* gpu : {"sm_90; rm -rf /", "$(id)", "", "ampere", "sm_"}) {
    auto request = repository_request();
    request.check_gpus = {"sm_80", gpu};
    const auto matrix = gpuenv::ci::build_matrix(request);
    ASSERT_FALSE(matrix) << gpu;
    EXPECT_EQ(matrix.error().kind, CiError::Kind::invalid) << gpu;
    EXPECT_NE(matrix.error().message.find("is not a GPU architecture: give it as sm_86"), std::string::npos)
        << matrix.error().message;
  }
}

TEST(CiMatrix, EachJobsOverridesBuildExactlyItsVariant) {
  // A zipped key overridden alone would leave its group uneven: every key
  // of the group comes along, at the variant's column.
  auto request = repository_request();
  request.variant_files.push_back(source_dir / "metadata/variants/cuda118.yaml");
  auto matrix = gpuenv::ci::build_matrix(request);
  ASSERT_TRUE(matrix) << matrix.error().message;
  for (const auto& job : matrix->jobs) {
    gpuenv::recipe::RenderRequest render;
    render.variant_files = request.variant_files;
    render.overrides = job.variant_arguments;
    auto rendered = gpuenv::recipe::render_recipe_file(job.recipe, render);
    ASSERT_TRUE(rendered) << job.id << ": " << rendered.error().message;
    ASSERT_EQ(rendered->variants.size(), 1u) << job.id;
    EXPECT_EQ(rendered->variants[0].build_string, job.build_string) << job.id;
    if (job.package == "stencil") {
      EXPECT_EQ(variant_value(job, "docker_image"), job.docker_image) << job.id;
      EXPECT_FALSE(variant_value(job, "c_stdlib_version").empty()) << job.id;
    }
  }
}

TEST(CiMatrix, OptInCuda118ColumnBuildsInTheCuda118Image) {
  auto request = repository_request();
  request.variant_files.push_back(source_dir / "metadata/variants/cuda118.yaml");
  auto matrix = gpuenv::ci::build_matrix(request);
  ASSERT_TRUE(matrix) << matrix.error().message;
  ASSERT_EQ(matrix->jobs.size(), 5u);
  EXPECT_TRUE(std::any_of(matrix->jobs.begin(), matrix->jobs.end(), [](const CiJob& job) {
    return job.image == "cuda11.8" && variant_value(job, "cuda_compiler_version") == "11.8" &&
           variant_value(job, "cxx_compiler_version") == "11";
  }));
}

TEST(CiMatrix, OptInCuda124ColumnBuildsInTheDebian13Cuda124Image) {
  auto request = repository_request();
  request.variant_files.push_back(source_dir / "metadata/variants/cuda124.yaml");
  auto matrix = gpuenv::ci::build_matrix(request);
  ASSERT_TRUE(matrix) << matrix.error().message;
  ASSERT_EQ(matrix->jobs.size(), 5u);
  const auto cuda124 = std::find_if(matrix->jobs.begin(), matrix->jobs.end(),
                                    [](const CiJob& job) { return variant_value(job, "cuda_compiler_version") == "12.4"; });
  ASSERT_NE(cuda124, matrix->jobs.end());
  EXPECT_EQ(cuda124->image, "cuda12.4");
  EXPECT_EQ(cuda124->docker_image, "gpuenv/ci-cuda12.4");
  EXPECT_EQ(variant_value(*cuda124, "cxx_compiler_version"), "13");
  // No other variant goes there.
  EXPECT_EQ(std::count_if(matrix->jobs.begin(), matrix->jobs.end(), [](const CiJob& job) { return job.image == "cuda12.4"; }),
            1);
}

TEST(CiMatrix, ACuda124VariantNeverBuildsInAnotherImage) {
  gpuenv::testing::TempDirectory dir;
  for (const char* image : {"gpuenv/ci-cuda12.9", "gpuenv/ci-cuda13.0", "gpuenv/ci-cuda11.8", "gpuenv/ci-cpu"}) {
    gpuenv::testing::write_text_file(dir.path() / "variants.yaml", std::string(R"(cuda_compiler: [cuda-nvcc]
cuda_compiler_version: ["None", "12.4"]
docker_image: [gpuenv/ci-cpu, )") + image + R"(]
zip_keys: [[cuda_compiler_version, docker_image]]
)");
    auto request = repository_request();
    request.variant_files = {dir.path() / "variants.yaml"};
    auto matrix = gpuenv::ci::build_matrix(request);
    ASSERT_FALSE(matrix) << image;
    EXPECT_EQ(matrix.error().kind, CiError::Kind::inconsistent);
    EXPECT_NE(matrix.error().message.find(std::string("cuda_compiler_version 12.4 would build in ") + image),
              std::string::npos)
        << matrix.error().message;
  }
}

TEST(CiMatrix, RepositoryVariantFilesAndImagesAgree) {
  // Every docker_image column names an image whose toolkit is that column's
  // cuda_compiler_version, and whose glibc can run what the column targets.
  for (const char* file : {"variants.yaml", "cuda118.yaml", "cuda124.yaml"}) {
    gpuenv::recipe::VariantConfig config;
    auto base = gpuenv::recipe::read_variant_config(source_dir / "metadata/variants/variants.yaml");
    ASSERT_TRUE(base);
    config = *base;
    auto extra = gpuenv::recipe::read_variant_config(source_dir / "metadata/variants" / file);
    ASSERT_TRUE(extra);
    gpuenv::recipe::merge_variant_config(config, *extra);
    auto images = gpuenv::ci::read_image_definitions(source_dir / "ci-images");
    ASSERT_TRUE(images);
    const auto& cuda = config.values.at("cuda_compiler_version");
    const auto& stdlib = config.values.at("c_stdlib_version");
    for (std::size_t column = 0; column < cuda.size(); ++column) {
      gpuenv::recipe::Variant variant{{"cuda_compiler_version", cuda[column]}, {"c_stdlib_version", stdlib[column]}};
      auto image = gpuenv::ci::image_for_variant(config, variant, *images, file);
      ASSERT_TRUE(image) << image.error().message;
      const auto glibc = std::stod((*image)->glibc);
      EXPECT_GE(glibc, std::stod(stdlib[column].display())) << (*image)->name;
    }
  }
}

TEST(CiMatrix, AVariantNeverBuildsWithAnotherCudaVersionsToolkit) {
  gpuenv::testing::TempDirectory dir;
  // CUDA 12.9 zipped with the CUDA 13.0 image by mistake.
  gpuenv::testing::write_text_file(dir.path() / "variants.yaml", R"(cuda_compiler: [cuda-nvcc]
cuda_compiler_version: ["None", "12.9"]
docker_image: [gpuenv/ci-cpu, gpuenv/ci-cuda13.0]
zip_keys: [[cuda_compiler_version, docker_image]]
)");
  auto request = repository_request();
  request.variant_files = {dir.path() / "variants.yaml"};
  auto matrix = gpuenv::ci::build_matrix(request);
  ASSERT_FALSE(matrix);
  EXPECT_EQ(matrix.error().kind, CiError::Kind::inconsistent);
  EXPECT_NE(matrix.error().message.find("cuda_compiler_version 12.9 would build in gpuenv/ci-cuda13.0"),
            std::string::npos)
      << matrix.error().message;
}

TEST(CiMatrix, UnknownOrForeignDockerImageIsAnError) {
  gpuenv::testing::TempDirectory dir;
  for (const char* image : {"gpuenv/ci-cuda99.0", "quay.io/condaforge/linux-anvil-cos7-x86_64"}) {
    gpuenv::testing::write_text_file(dir.path() / "variants.yaml", std::string("docker_image: [") + image + "]\n");
    write_recipe(dir.path() / "recipes", "plain", "zlib");
    auto request = repository_request(dir.path() / "recipes");
    request.variant_files = {dir.path() / "variants.yaml"};
    auto matrix = gpuenv::ci::build_matrix(request);
    ASSERT_FALSE(matrix) << image;
    EXPECT_NE(matrix.error().message.find(image), std::string::npos) << matrix.error().message;
  }
}

TEST(CiMatrix, IdenticalVariantsAreOneJob) {
  // Columns 0 (None) and 2 (13.0) of variants.yaml both give c_compiler_version 15.
  gpuenv::testing::TempDirectory dir;
  gpuenv::testing::write_text_file(dir.path() / "cpu-tool" / "recipe.yaml", R"(package:
  name: cpu-tool
  version: "1"
requirements:
  build:
    - ${{ compiler('c') }}
)");
  auto matrix = gpuenv::ci::build_matrix(repository_request(dir.path()));
  ASSERT_TRUE(matrix) << matrix.error().message;
  std::vector<std::string> versions;
  for (const auto& job : matrix->jobs) versions.push_back(variant_value(job, "c_compiler_version"));
  std::sort(versions.begin(), versions.end());
  EXPECT_EQ(versions, (std::vector<std::string>{"14", "15"}));
  for (const auto& job : matrix->jobs) {
    EXPECT_EQ(job.image, variant_value(job, "c_compiler_version") == "15" ? "cpu" : "cuda12.9") << job.id;
  }
}

TEST(CiMatrix, RecipesNeedingEachOtherAreACycleNamingThem) {
  gpuenv::testing::TempDirectory dir;
  write_recipe(dir.path(), "alpha", "gamma >=1");
  write_recipe(dir.path(), "beta", "alpha");
  write_recipe(dir.path(), "gamma", "beta 1.*");
  write_recipe(dir.path(), "delta", "zlib");
  auto matrix = gpuenv::ci::build_matrix(repository_request(dir.path()));
  ASSERT_FALSE(matrix);
  EXPECT_EQ(matrix.error().kind, CiError::Kind::cycle);
  for (const char* name : {"alpha/recipe.yaml", "beta/recipe.yaml", "gamma/recipe.yaml"}) {
    EXPECT_NE(matrix.error().message.find(name), std::string::npos) << matrix.error().message;
  }
  EXPECT_EQ(matrix.error().message.find("delta"), std::string::npos) << matrix.error().message;
}

TEST(CiMatrix, OrderFollowsDependenciesNotNames) {
  gpuenv::testing::TempDirectory dir;
  write_recipe(dir.path(), "alpha", "beta");
  write_recipe(dir.path(), "beta", "conda-forge::gamma");
  write_recipe(dir.path(), "gamma", "zlib");
  auto matrix = gpuenv::ci::build_matrix(repository_request(dir.path()));
  ASSERT_TRUE(matrix) << matrix.error().message;
  std::vector<std::string> order;
  for (const auto& job : matrix->jobs) order.push_back(job.package);
  EXPECT_EQ(order, (std::vector<std::string>{"gamma", "beta", "alpha"}));
}

TEST(CiMatrix, RecipeErrorsAndUnsafePathsAreNamed) {
  gpuenv::testing::TempDirectory dir;
  gpuenv::testing::write_text_file(dir.path() / "broken" / "recipe.yaml", "package: [\n");
  auto broken = gpuenv::ci::build_matrix(repository_request(dir.path()));
  ASSERT_FALSE(broken);
  EXPECT_EQ(broken.error().kind, CiError::Kind::render);
  EXPECT_NE(broken.error().message.find("broken/recipe.yaml"), std::string::npos) << broken.error().message;

  gpuenv::testing::TempDirectory other;
  write_recipe(other.path(), "has space", "zlib");
  auto unsafe = gpuenv::ci::build_matrix(repository_request(other.path()));
  ASSERT_FALSE(unsafe);
  EXPECT_NE(unsafe.error().message.find("has space"), std::string::npos) << unsafe.error().message;

  auto missing = gpuenv::ci::build_matrix(repository_request(other.path() / "nowhere"));
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("nowhere"), std::string::npos);
}

TEST(RecipeGraph, DependencyNames) {
  using gpuenv::recipe::Dependency;
  EXPECT_EQ(gpuenv::ci::dependency_name(Dependency{"numpy >=1.26", {}, {}}), "numpy");
  EXPECT_EQ(gpuenv::ci::dependency_name(Dependency{"conda-forge::zlib", {}, {}}), "zlib");
  EXPECT_EQ(gpuenv::ci::dependency_name(Dependency{"python=3.12", {}, {}}), "python");
  gpuenv::recipe::Pin pin;
  pin.name = "libfoo";
  EXPECT_EQ(gpuenv::ci::dependency_name(Dependency{"", pin, {}}), "libfoo");
}

TEST(CiMatrix, WithoutVariantFilesTheRepositorysVariantsAreUsed) {
  EXPECT_EQ(gpuenv::ci::variant_files_or_default({}),
            (std::vector<fs::path>{"metadata/variants/variants.yaml"}));
  EXPECT_EQ(gpuenv::ci::variant_files_or_default({"b.yaml", "a.yaml"}), (std::vector<fs::path>{"b.yaml", "a.yaml"}));
}

TEST(CiMatrix, TheJsonMatrixListsEveryJobWithItsVariantAndNeeds) {
  gpuenv::ci::CiMatrix matrix;
  matrix.variant_files = {"v.yaml"};
  matrix.index_image = "cpu";
  matrix.check_gpus = {"sm_90"};
  CiJob job;
  job.id = "libfoo-h1";
  job.recipe = "recipes/libfoo/recipe.yaml";
  job.recipe_hash = "0123456789abcdef";
  job.package = "libfoo";
  job.version = "1";
  job.build_string = "h1_0";
  job.image = "cuda13.0";
  job.docker_image = "gpuenv/ci-cuda13.0";
  job.variant_arguments = {"cuda_compiler_version=13.0"};
  job.needs = {"libbar-h2"};
  matrix.jobs.push_back(job);
  EXPECT_EQ(gpuenv::ci::matrix_json(matrix), R"({
  "schema_version": 1,
  "variant_files": [
    "v.yaml"
  ],
  "index_image": "cpu",
  "check_gpus": [
    "sm_90"
  ],
  "jobs": [
    {
      "id": "libfoo-h1",
      "recipe": "recipes/libfoo/recipe.yaml",
      "recipe_hash": "0123456789abcdef",
      "package": "libfoo",
      "version": "1",
      "build_string": "h1_0",
      "image": "cuda13.0",
      "docker_image": "gpuenv/ci-cuda13.0",
      "variant": [
        "cuda_compiler_version=13.0"
      ],
      "needs": [
        "libbar-h2"
      ]
    }
  ]
})");
}

}  // namespace
