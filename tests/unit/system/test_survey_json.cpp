// `gpuenv cuda --json` and `gpuenv info --json` built from a survey: the
// toolkits and per-GPU targets from NVIDIA's tables, and info's summary.
#include <gtest/gtest.h>

#include "gpuenv/system/system_survey.hpp"

namespace gpuenv::system {
namespace {

SystemSurvey survey_with_h100_on_a_cuda_12_4_driver() {
  SystemSurvey survey;
  CudaReport report;
  report.status = DetectionStatus::ok;
  report.driver_cuda_version = 12040;
  report.driver_release = "550.54.14";
  report.devices = {{0, "NVIDIA H100", {9, 0}, 80ull << 30, "GPU-1", "0000:01:00.0"}};
  survey.cuda = CudaDetection{report, {}};
  survey.virtual_packages.packages = {{"__cuda", "12.4", "0"}};
  survey.warnings = {"a warning"};
  survey.directories.cache_dir = "/home/me/.cache/gpuenv";
  survey.directories.envs_dirs = {"/home/me/.gpuenv/envs"};
  return survey;
}

TEST(SurveyJson, CudaListsEveryToolkitWithWhatItBuildsForEachGpu) {
  const auto tables = CudaCompatibilityTables::load();
  const auto document = cuda_survey_to_json(survey_with_h100_on_a_cuda_12_4_driver(), tables);
  EXPECT_EQ(document.at("schema_version"), 1);
  EXPECT_EQ(document.at("virtual_packages")[0].at("version"), "12.4");
  EXPECT_EQ(document.at("warnings")[0], "a warning");
  ASSERT_TRUE(document.contains("detection"));
  const auto& toolkits = document.at("toolkits");
  ASSERT_FALSE(toolkits.empty());
  bool saw_12_4 = false, saw_11_7 = false;
  for (const auto& toolkit : toolkits) {
    ASSERT_EQ(toolkit.at("devices").size(), 1u);
    if (toolkit.at("cuda") == "12.4") {
      saw_12_4 = true;
      EXPECT_EQ(toolkit.at("support"), "native");
      EXPECT_EQ(toolkit.at("devices")[0].at("target"), "sass");
    }
    if (toolkit.at("cuda") == "11.7") {
      saw_11_7 = true;
      EXPECT_EQ(toolkit.at("devices")[0].at("target"), "ptx_only");  // before Hopper
    }
    if (toolkit.at("cuda") == "13.0") {
      EXPECT_EQ(toolkit.at("support"), "needs_newer_driver");
    }
  }
  EXPECT_TRUE(saw_12_4);
  EXPECT_TRUE(saw_11_7);
}

TEST(SurveyJson, InfoSummarisesTheDetectionAndNamesTheDirectories) {
  const auto document = info_to_json(survey_with_h100_on_a_cuda_12_4_driver(), {"/home/me/.condarc"}, "1.2.3",
                                     "linux-64");
  EXPECT_EQ(document.at("gpuenv_version"), "1.2.3");
  EXPECT_EQ(document.at("platform"), "linux-64");
  const auto& cuda = document.at("cuda");
  EXPECT_EQ(cuda.at("usable"), true);
  EXPECT_EQ(cuda.at("cuda_version"), "12.4");
  EXPECT_EQ(cuda.at("driver_release"), "550.54.14");
  EXPECT_EQ(cuda.at("device_count"), 1);
  EXPECT_EQ(cuda.at("message"), nullptr);
  EXPECT_EQ(document.at("config_files")[0], "/home/me/.condarc");
  EXPECT_EQ(document.at("cache_dir"), "/home/me/.cache/gpuenv");
  EXPECT_EQ(document.at("root_prefix"), nullptr);
  EXPECT_EQ(document.at("envs_dirs")[0], "/home/me/.gpuenv/envs");

  auto without_detection = survey_with_h100_on_a_cuda_12_4_driver();
  without_detection.cuda.reset();
  EXPECT_EQ(info_to_json(without_detection, {}, "1.2.3", "linux-64").at("cuda"), nullptr);
}

}  // namespace
}  // namespace gpuenv::system
