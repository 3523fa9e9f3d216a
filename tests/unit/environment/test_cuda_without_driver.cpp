// The one-line note when a plan brings CUDA packages to a machine without a
// usable driver (issue 17: conda, mamba and pixi install such a stack
// without a word).
#include <gtest/gtest.h>

#include "gpuenv/environment/cuda_without_driver.hpp"

namespace gpuenv::environment {
namespace {

specs::PackageRecord record(std::string name, std::vector<std::string> depends,
                            std::vector<std::string> constrains = {}) {
  specs::PackageRecord package;
  package.name = std::move(name);
  package.version = "1.0";
  package.build = "0";
  package.depends = std::move(depends);
  package.constrains = std::move(constrains);
  return package;
}

Plan plan_linking(std::vector<specs::PackageRecord> link) {
  Plan plan;
  plan.solution.link = std::move(link);
  plan.machine.platform = "linux-64";
  system::CudaReport no_driver;
  no_driver.status = system::DetectionStatus::no_library;
  no_driver.message = "no NVIDIA driver library (libcuda) found";
  plan.machine.cuda = no_driver;
  return plan;
}

TEST(CudaWithoutDriver, CudaPackagesAreThoseThatNeedTheDriverOrCudasVersionMarkers) {
  EXPECT_TRUE(is_cuda_package(record("cupy", {"python", "cuda-version >=12,<13"})));
  EXPECT_TRUE(is_cuda_package(record("kernels", {"__cuda >=12"})));
  EXPECT_TRUE(is_cuda_package(record("cuda-version", {}, {"__cuda >=12"})));
  EXPECT_TRUE(is_cuda_package(record("numba-cuda", {"python"}, {"__cuda >=12"})));
  EXPECT_TRUE(is_cuda_package(record("cudatoolkit", {})));
  EXPECT_FALSE(is_cuda_package(record("numpy", {"python", "libblas"})));
  // Constraining cuda-version only limits which may come.
  EXPECT_FALSE(is_cuda_package(record("pytorch-cpu", {"python"}, {"cuda-version >=12"})));
  EXPECT_FALSE(is_cuda_package(record("cuda-nothing", {"__cudax"})));
}

TEST(CudaWithoutDriver, NamesThePackagesWhyAndWhatToDo) {
  const auto note = cuda_without_driver_note(plan_linking(
      {record("python", {}), record("cuda-version", {}, {"__cuda >=13"}), record("libcublas", {"cuda-version >=13,<14"}),
       record("cupy", {"cuda-version >=13,<14"}), record("cuda-cudart", {"cuda-version >=13,<14"})}));
  ASSERT_TRUE(note);
  EXPECT_NE(note->find("CUDA packages (cuda-version 1.0, libcublas 1.0, cupy 1.0 and 1 more)"), std::string::npos)
      << *note;
  EXPECT_NE(note->find("(no NVIDIA driver library (libcuda) found)"), std::string::npos) << *note;
  EXPECT_NE(note->find("set CONDA_OVERRIDE_CUDA"), std::string::npos) << *note;
}

TEST(CudaWithoutDriver, SaysNothingWhenThereIsNothingToSay) {
  // No CUDA package.
  EXPECT_FALSE(cuda_without_driver_note(plan_linking({record("numpy", {"python"})})));
  // A usable driver.
  auto with_driver = plan_linking({record("cupy", {"cuda-version >=13,<14"})});
  with_driver.machine.cuda->status = system::DetectionStatus::ok;
  with_driver.machine.cuda->driver_cuda_version = 13000;
  EXPECT_FALSE(cuda_without_driver_note(with_driver));
  // CONDA_OVERRIDE_CUDA decided (empty: the user said "no GPU" on purpose).
  auto overridden = plan_linking({record("cupy", {"cuda-version >=13,<14"})});
  overridden.machine.cuda_override = "";
  EXPECT_FALSE(cuda_without_driver_note(overridden));
  // Detection did not run (another platform's solve).
  auto elsewhere = plan_linking({record("cupy", {"cuda-version >=13,<14"})});
  elsewhere.machine.cuda.reset();
  EXPECT_FALSE(cuda_without_driver_note(elsewhere));
}

}  // namespace
}  // namespace gpuenv::environment
