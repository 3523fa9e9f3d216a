#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "gpuenv/ci/ci_run.hpp"
#include "gpuenv/ci/run_report.hpp"

namespace {

using gpuenv::ci::CiJobResult;
using gpuenv::ci::CiRunResult;

CiRunResult two_jobs() {
  CiJobResult built;
  built.id = "libstencil-180175d";
  built.recipe = "recipes/examples/stencil/recipe.yaml";
  built.package = "libstencil";
  built.variant = {"cuda_compiler_version=13.0"};
  built.image = "cuda13.0";
  built.runner = "chroot";
  built.success = true;
  built.seconds = 95.25;
  built.rootfs_seconds = 80;
  built.package_files = {"/out/linux-64/libstencil-1.0.0-cuda130_h1_0.conda"};
  built.tests = 3;
  built.cuda_check = "passed: 2 files with device code for 75-real;80-real;90";
  CiJobResult failed;
  failed.id = "libstencil-9422973";
  failed.variant = {"cuda_compiler_version=11.8"};
  failed.image = "cuda11.8";
  failed.runner = "chroot";
  failed.error = "image cuda11.8: the variant needs CUDA 11.8, but nvcc on the build's PATH reports release 13.0";
  return CiRunResult{{built, failed}};
}

TEST(RunReport, OneRowPerJobAndEachFailureSpelledOut) {
  const auto table = gpuenv::ci::run_summary_table(two_jobs());
  EXPECT_NE(table.find("job"), std::string::npos);
  EXPECT_NE(table.find("CUDA check"), std::string::npos);
  EXPECT_NE(table.find("libstencil-1.0.0-cuda130_h1_0.conda"), std::string::npos) << table;
  EXPECT_NE(table.find("95.2 s (image 80.0 s)"), std::string::npos) << table;
  EXPECT_NE(table.find("3 passed"), std::string::npos) << table;
  EXPECT_NE(table.find("FAILED"), std::string::npos) << table;
  EXPECT_NE(table.find("libstencil-9422973 failed: image cuda11.8: the variant needs CUDA 11.8"), std::string::npos)
      << table;
  EXPECT_NE(table.find("2 job(s), 1 failed"), std::string::npos) << table;
}

TEST(RunReport, JsonHasEveryJobAndTheOverallVerdict) {
  const auto document = nlohmann::json::parse(gpuenv::ci::run_summary_json(two_jobs()));
  EXPECT_EQ(document["schema_version"], 1);
  EXPECT_EQ(document["success"], false);
  ASSERT_EQ(document["jobs"].size(), 2u);
  const auto& built = document["jobs"][0];
  EXPECT_EQ(built["success"], true);
  EXPECT_TRUE(built["error"].is_null());
  EXPECT_EQ(built["packages"][0], "/out/linux-64/libstencil-1.0.0-cuda130_h1_0.conda");
  EXPECT_EQ(built["tests"], 3);
  EXPECT_EQ(built["image_seconds"], 80.0);
  EXPECT_EQ(built["cuda_check"], "passed: 2 files with device code for 75-real;80-real;90");
  EXPECT_TRUE(document["jobs"][1]["cuda_check"].is_null());
  EXPECT_EQ(document["jobs"][1]["error"], two_jobs().jobs[1].error);
}

TEST(RunReport, AJobWhosePackageWasAlreadyInTheOutputChannelSaysSkipped) {
  CiJobResult skipped;
  skipped.id = "zlib-0f1e2d3";
  skipped.image = "cuda13.0";
  skipped.runner = "chroot";
  skipped.success = true;
  skipped.skipped_files = {"/out/linux-64/zlib-1.3.1-h1_0.conda"};
  const CiRunResult result{{skipped}};
  const auto table = gpuenv::ci::run_summary_table(result);
  EXPECT_NE(table.find("zlib-1.3.1-h1_0.conda (skipped: in the output channel)"), std::string::npos) << table;
  EXPECT_EQ(table.find("0 passed"), std::string::npos) << table;
  const auto document = nlohmann::json::parse(gpuenv::ci::run_summary_json(result));
  EXPECT_EQ(document["jobs"][0]["skipped"][0], "/out/linux-64/zlib-1.3.1-h1_0.conda");
  EXPECT_TRUE(document["jobs"][0]["packages"].empty());
}

TEST(RunReport, NoJobsIsNotASuccess) { EXPECT_FALSE(CiRunResult{}.success()); }

}  // namespace

namespace {

// A job's error names its files as the image saw them; the report shows
// where they are on this machine, so the log can be opened as printed.
TEST(RunReport, AnImagesOutputPathsAreShownAsTheyAreOnThisMachine) {
  const std::string error =
      "gpuenv build failed (exit status 1); its last output:\n"
      "build script failed: see /gpuenv/output/bld/libstencil-1.0/work/conda_build.log\n"
      "output folder: '/gpuenv/output'; /gpuenv/output-old and /x/gpuenv/output stay";
  EXPECT_EQ(gpuenv::ci::with_output_paths_on_host(error, "/gpuenv/output", "/home/ci/out"),
            "gpuenv build failed (exit status 1); its last output:\n"
            "build script failed: see /home/ci/out/bld/libstencil-1.0/work/conda_build.log\n"
            "output folder: '/home/ci/out'; /gpuenv/output-old and /x/gpuenv/output stay");
  EXPECT_EQ(gpuenv::ci::with_output_paths_on_host("see /gpuenv/output/bld/x.log", "/gpuenv/output", "/home/ci/out/"),
            "see /home/ci/out/bld/x.log");
  // The host runner's paths are already this machine's.
  EXPECT_EQ(gpuenv::ci::with_output_paths_on_host(error, "", "/home/ci/out"), error);
}

}  // namespace
