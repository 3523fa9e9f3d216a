// `gpuenv doctor --json`: the report as one document, its success false
// when any library or runtime cannot run, or a file could not be read.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "gpuenv/environment/doctor.hpp"

namespace gpuenv::environment {
namespace {

DoctorReport report_for_sm86(cuda_binary::RunVerdict verdict) {
  DoctorReport report;
  report.machine.gpus = {{"--gpu sm_86", cuda_binary::GpuArchitecture{86}}};
  report.machine.driver_cuda = cuda_binary::CudaRelease{12, 4};
  LibraryCheck library;
  library.path = "lib/libadd.so";
  library.package = "add-1.0-0";
  library.code.sass = {cuda_binary::GpuArchitecture{80}};
  library.judgements = {{verdict, "sm_80", "", "sm_80 machine code runs on sm_86"}};
  report.device_code.libraries = {library};
  report.device_code.files_examined = 3;
  CudaRuntimeJudgement runtime;
  runtime.need = {"libcudart.so.12", {12, 0}, true, {"lib/libadd.so (add-1.0-0)"}};
  runtime.verdict = CudaRuntimeVerdict::runs;
  runtime.explanation = "the driver's CUDA 12.4 runs CUDA 12";
  report.runtime.driver_cuda = system::CudaVersion{12, 4};
  report.runtime.judgements = {runtime};
  return report;
}

TEST(DoctorReport, TheJsonNamesEachLibrarysVerdictPerGpuAndTheRuntime) {
  const auto document =
      nlohmann::json::parse(doctor_report_json("/envs/x", report_for_sm86(cuda_binary::RunVerdict::native)));
  EXPECT_EQ(document.at("success"), true);
  EXPECT_EQ(document.at("prefix"), "/envs/x");
  EXPECT_EQ(document.at("driver_cuda"), "12.4");
  EXPECT_EQ(document.at("gpus")[0].at("arch"), "sm_86");
  EXPECT_EQ(document.at("files_examined"), 3);
  const auto& library = document.at("libraries")[0];
  EXPECT_EQ(library.at("package"), "add-1.0-0");
  EXPECT_EQ(library.at("sass"), nlohmann::json::array({"sm_80"}));
  EXPECT_EQ(library.at("verdicts")[0].at("gpu"), "--gpu sm_86");
  EXPECT_EQ(library.at("verdicts")[0].at("target"), "sm_80");
  const auto& runtime = document.at("cuda_runtime")[0];
  EXPECT_EQ(runtime.at("cuda"), "12");  // a soname tells the major only
  EXPECT_EQ(runtime.at("min_driver"), nullptr);
  EXPECT_EQ(document.at("problems"), nlohmann::json::array());
}

TEST(DoctorReport, SuccessIsFalseForAFailingLibraryOrAnUnreadableFile) {
  const auto failing =
      nlohmann::json::parse(doctor_report_json("/envs/x", report_for_sm86(cuda_binary::RunVerdict::no_kernel_image)));
  EXPECT_EQ(failing.at("success"), false);
  auto unreadable = report_for_sm86(cuda_binary::RunVerdict::native);
  unreadable.device_code.problems = {"lib/broken.so: truncated"};
  ASSERT_TRUE(unreadable.everything_can_run());
  const auto document = nlohmann::json::parse(doctor_report_json("/envs/x", unreadable));
  EXPECT_EQ(document.at("success"), false);
  EXPECT_EQ(document.at("problems")[0], "lib/broken.so: truncated");
}

}  // namespace
}  // namespace gpuenv::environment
