// Virtual packages per CEP 30 and CEP 46, every CONDA_OVERRIDE_* rule.
#include <gtest/gtest.h>

#include <map>

#include "gpuenv/system/virtual_packages.hpp"

namespace gpuenv::system {
namespace {

using specs::Platform;

// name -> "version=build"; absent packages are missing from the map.
std::map<std::string, std::string> as_map(const VirtualPackageSet& set) {
  std::map<std::string, std::string> packages;
  for (const auto& package : set.packages) packages[package.name] = package.version + "=" + package.build;
  return packages;
}

VirtualPackageInputs linux_machine_with_gpus() {
  VirtualPackageInputs inputs;
  inputs.target = Platform(Platform::Kind::linux_64);
  inputs.host.glibc_version = "2.36";
  inputs.host.kernel_release = "6.1.0-18-amd64";
  inputs.host.machine = "x86_64";
  inputs.host.microarchitecture = "zen4";
  inputs.cuda.driver_cuda_version = "13.0";
  inputs.cuda.lowest_compute_capability = ComputeCapability{8, 6};
  return inputs;
}

VirtualPackageInputs linux_machine_without_driver() {
  auto inputs = linux_machine_with_gpus();
  inputs.cuda = {};
  return inputs;
}

TEST(VirtualPackages, DetectedValuesOnLinux) {
  const auto set = compute_virtual_packages(linux_machine_with_gpus(), {});
  const std::map<std::string, std::string> expected = {
      {"__archspec", "1=zen4"}, {"__cuda", "13.0=0"},   {"__cuda_arch", "8.6=0"},
      {"__glibc", "2.36=0"},    {"__linux", "6.1.0=0"}, {"__unix", "0=0"}};
  EXPECT_EQ(as_map(set), expected);
  EXPECT_TRUE(set.warnings.empty());
  // Sorted by name, as conda lists them.
  EXPECT_EQ(set.packages.front().name, "__archspec");
  EXPECT_EQ(set.packages.back().name, "__unix");
  EXPECT_EQ(set.packages[1].str(), "__cuda=13.0=0");
}

TEST(VirtualPackages, NoDriverNoCuda) {
  const auto packages = as_map(compute_virtual_packages(linux_machine_without_driver(), {}));
  EXPECT_FALSE(packages.contains("__cuda"));
  EXPECT_FALSE(packages.contains("__cuda_arch"));
}

TEST(VirtualPackages, CudaOverrideSetsTheVersion) {
  VirtualPackageOverrides overrides;
  overrides.cuda = "12.8";
  const auto packages = as_map(compute_virtual_packages(linux_machine_without_driver(), overrides));
  EXPECT_EQ(packages.at("__cuda"), "12.8=0");
  // No device detected, no arch override: CEP 46 says absent.
  EXPECT_FALSE(packages.contains("__cuda_arch"));
}

TEST(VirtualPackages, EmptyCudaOverrideRemovesCudaAndCudaArch) {
  VirtualPackageOverrides overrides;
  overrides.cuda = "";
  overrides.cuda_arch = "9.0";
  const auto set = compute_virtual_packages(linux_machine_with_gpus(), overrides);
  const auto packages = as_map(set);
  EXPECT_FALSE(packages.contains("__cuda"));
  EXPECT_FALSE(packages.contains("__cuda_arch"));
  ASSERT_EQ(set.warnings.size(), 1u);
  EXPECT_NE(set.warnings[0].find("CONDA_OVERRIDE_CUDA_ARCH"), std::string::npos);
}

TEST(VirtualPackages, MalformedCudaOverrideIsIgnoredWithAWarning) {
  VirtualPackageOverrides overrides;
  overrides.cuda = "twelve point four";
  const auto set = compute_virtual_packages(linux_machine_with_gpus(), overrides);
  EXPECT_EQ(as_map(set).at("__cuda"), "13.0=0");
  ASSERT_EQ(set.warnings.size(), 1u);
  EXPECT_NE(set.warnings[0].find("CONDA_OVERRIDE_CUDA"), std::string::npos);
}

TEST(VirtualPackages, CudaArchOverrideSetsTheVersion) {
  VirtualPackageOverrides overrides;
  overrides.cuda_arch = "12.0";
  EXPECT_EQ(as_map(compute_virtual_packages(linux_machine_with_gpus(), overrides)).at("__cuda_arch"), "12.0=0");
  // Architecture-specific letters are not part of the version (CEP 46).
  overrides.cuda_arch = "9.0a";
  EXPECT_EQ(as_map(compute_virtual_packages(linux_machine_with_gpus(), overrides)).at("__cuda_arch"), "9.0=0");
}

TEST(VirtualPackages, CudaArchOverrideWorksWithoutDevicesWhenCudaIsPresent) {
  VirtualPackageOverrides overrides;
  overrides.cuda = "12.4";
  overrides.cuda_arch = "8.0";
  const auto packages = as_map(compute_virtual_packages(linux_machine_without_driver(), overrides));
  EXPECT_EQ(packages.at("__cuda"), "12.4=0");
  EXPECT_EQ(packages.at("__cuda_arch"), "8.0=0");
}

TEST(VirtualPackages, CudaArchAbsentWhenCudaIsAbsentWhateverItsOverride) {
  VirtualPackageOverrides overrides;
  overrides.cuda_arch = "8.0";
  const auto set = compute_virtual_packages(linux_machine_without_driver(), overrides);
  EXPECT_FALSE(as_map(set).contains("__cuda_arch"));
  EXPECT_EQ(set.warnings.size(), 1u);
}

TEST(VirtualPackages, EmptyCudaArchOverrideRemovesIt) {
  VirtualPackageOverrides overrides;
  overrides.cuda_arch = "";
  const auto packages = as_map(compute_virtual_packages(linux_machine_with_gpus(), overrides));
  EXPECT_EQ(packages.at("__cuda"), "13.0=0");
  EXPECT_FALSE(packages.contains("__cuda_arch"));
}

TEST(VirtualPackages, MalformedCudaArchOverrideIsIgnored) {
  VirtualPackageOverrides overrides;
  overrides.cuda_arch = "sm_90";
  const auto set = compute_virtual_packages(linux_machine_with_gpus(), overrides);
  EXPECT_EQ(as_map(set).at("__cuda_arch"), "8.6=0");
  EXPECT_EQ(set.warnings.size(), 1u);
}

TEST(VirtualPackages, GlibcOverrideRules) {
  VirtualPackageOverrides overrides;
  overrides.glibc = "2.17";
  EXPECT_EQ(as_map(compute_virtual_packages(linux_machine_with_gpus(), overrides)).at("__glibc"), "2.17=0");
  overrides.glibc = "";
  EXPECT_FALSE(as_map(compute_virtual_packages(linux_machine_with_gpus(), overrides)).contains("__glibc"));
  overrides.glibc = "2.17 please";
  const auto set = compute_virtual_packages(linux_machine_with_gpus(), overrides);
  EXPECT_EQ(as_map(set).at("__glibc"), "2.36=0");
  EXPECT_EQ(set.warnings.size(), 1u);
}

TEST(VirtualPackages, GlibcIsMajorMinorOfTheDetectedVersion) {
  auto inputs = linux_machine_with_gpus();
  inputs.host.glibc_version = "2.39.9000";
  EXPECT_EQ(as_map(compute_virtual_packages(inputs, {})).at("__glibc"), "2.39=0");
  inputs.host.glibc_version.reset();  // not glibc (musl): absent
  EXPECT_FALSE(as_map(compute_virtual_packages(inputs, {})).contains("__glibc"));
}

TEST(VirtualPackages, LinuxOverrideKeepsTheKernelVersionPrefix) {
  VirtualPackageOverrides overrides;
  overrides.linux_version = "5.15.0";
  EXPECT_EQ(as_map(compute_virtual_packages(linux_machine_with_gpus(), overrides)).at("__linux"), "5.15.0=0");
  overrides.linux_version = "4.18.0-553.el8_10.x86_64";
  EXPECT_EQ(as_map(compute_virtual_packages(linux_machine_with_gpus(), overrides)).at("__linux"), "4.18.0=0");
}

TEST(VirtualPackages, LinuxStaysPresentWithAnEmptyOrMalformedOverride) {
  VirtualPackageOverrides overrides;
  for (const char* value : {"", "latest"}) {
    overrides.linux_version = value;
    const auto set = compute_virtual_packages(linux_machine_with_gpus(), overrides);
    EXPECT_EQ(as_map(set).at("__linux"), "6.1.0=0") << value;
    EXPECT_EQ(set.warnings.size(), 1u) << value;
  }
}

TEST(VirtualPackages, ArchspecOverrideSetsTheBuildString) {
  VirtualPackageOverrides overrides;
  overrides.archspec = "x86_64_v3";
  EXPECT_EQ(as_map(compute_virtual_packages(linux_machine_with_gpus(), overrides)).at("__archspec"), "1=x86_64_v3");
  // __archspec MUST always be present: an empty or invalid value is ignored.
  for (const char* value : {"", "not-a-build"}) {
    overrides.archspec = value;
    const auto set = compute_virtual_packages(linux_machine_with_gpus(), overrides);
    EXPECT_EQ(as_map(set).at("__archspec"), "1=zen4") << value;
    EXPECT_EQ(set.warnings.size(), 1u) << value;
  }
}

TEST(VirtualPackages, ArchspecFallsBackToThePlatformWithVersionZero) {
  auto inputs = linux_machine_with_gpus();
  inputs.host.microarchitecture.clear();
  EXPECT_EQ(as_map(compute_virtual_packages(inputs, {})).at("__archspec"), "0=x86_64");
  inputs.target = Platform(Platform::Kind::linux_aarch64);
  inputs.target_is_native = false;
  EXPECT_EQ(as_map(compute_virtual_packages(inputs, {})).at("__archspec"), "0=aarch64");
  inputs.target = Platform(Platform::Kind::osx_arm64);
  EXPECT_EQ(as_map(compute_virtual_packages(inputs, {})).at("__archspec"), "0=aarch64");
  inputs.target = Platform(Platform::Kind::linux_ppc64le);
  EXPECT_EQ(as_map(compute_virtual_packages(inputs, {})).at("__archspec"), "0=ppc64le");
  inputs.target = Platform(Platform::Kind::zos_z);
  EXPECT_EQ(as_map(compute_virtual_packages(inputs, {})).at("__archspec"), "0=z");
}

TEST(VirtualPackages, UnixHasNoOverride) {
  // There is no CONDA_OVERRIDE_UNIX: from_environment does not even read it.
  const auto env = util::fixed_environment({{"CONDA_OVERRIDE_UNIX", "5"}});
  const auto overrides = VirtualPackageOverrides::from_environment(env);
  EXPECT_EQ(as_map(compute_virtual_packages(linux_machine_with_gpus(), overrides)).at("__unix"), "0=0");
}

TEST(VirtualPackages, OtherTargetPlatforms) {
  auto inputs = linux_machine_with_gpus();
  inputs.target_is_native = false;

  inputs.target = Platform(Platform::Kind::osx_arm64);
  VirtualPackageOverrides overrides;
  overrides.linux_version = "5.15";  // ignored for non-linux targets
  overrides.glibc = "2.28";
  auto packages = as_map(compute_virtual_packages(inputs, overrides));
  EXPECT_EQ(packages.at("__osx"), "0=0");
  EXPECT_TRUE(packages.contains("__unix"));
  EXPECT_FALSE(packages.contains("__linux"));
  EXPECT_FALSE(packages.contains("__glibc"));
  overrides.osx = "14.5";
  EXPECT_EQ(as_map(compute_virtual_packages(inputs, overrides)).at("__osx"), "14.5=0");
  overrides.osx = "";
  EXPECT_FALSE(as_map(compute_virtual_packages(inputs, overrides)).contains("__osx"));

  inputs.target = Platform(Platform::Kind::win_64);
  packages = as_map(compute_virtual_packages(inputs, {}));
  EXPECT_EQ(packages.at("__win"), "0=0");
  EXPECT_FALSE(packages.contains("__unix"));
  overrides = {};
  overrides.win = "10.0.22631";
  EXPECT_EQ(as_map(compute_virtual_packages(inputs, overrides)).at("__win"), "10.0.22631=0");

  // A linux target that is not this machine: glibc gets the default.
  inputs.target = Platform(Platform::Kind::linux_aarch64);
  packages = as_map(compute_virtual_packages(inputs, {}));
  EXPECT_EQ(packages.at("__glibc"), "2.17=0");
  EXPECT_EQ(packages.at("__linux"), "0=0");
}

TEST(VirtualPackages, OverridesTellUnsetFromEmpty) {
  const auto env = util::fixed_environment({{"CONDA_OVERRIDE_CUDA", ""}, {"CONDA_OVERRIDE_GLIBC", "2.28"}});
  const auto overrides = VirtualPackageOverrides::from_environment(env);
  ASSERT_TRUE(overrides.cuda.has_value());
  EXPECT_EQ(*overrides.cuda, "");
  EXPECT_EQ(overrides.glibc, "2.28");
  EXPECT_FALSE(overrides.cuda_arch.has_value());
  EXPECT_FALSE(overrides.linux_version.has_value());
}

TEST(VirtualPackages, DetectionIsSkippedOnlyWhenOverridesDecideEverything) {
  VirtualPackageOverrides overrides;
  EXPECT_TRUE(cuda_detection_needed(overrides));
  overrides.cuda = "";
  EXPECT_FALSE(cuda_detection_needed(overrides));
  overrides.cuda = "12.4";
  EXPECT_TRUE(cuda_detection_needed(overrides));  // __cuda_arch still comes from the devices
  overrides.cuda_arch = "8.6";
  EXPECT_FALSE(cuda_detection_needed(overrides));
  overrides.cuda_arch = "";
  EXPECT_FALSE(cuda_detection_needed(overrides));
  overrides.cuda_arch = "garbage";
  EXPECT_TRUE(cuda_detection_needed(overrides));
}

TEST(VirtualPackages, VersionStringsAreCheckedLoosely) {
  for (const char* good : {"12.4", "2.17", "1!2.0", "1.0+local", "10.0.22631", "2024a"}) {
    EXPECT_TRUE(is_valid_version_string(good)) << good;
  }
  for (const char* bad : {"", " 12.4", "12..4", ".12", "12.", "12 4", "12.4*", ">=12"}) {
    EXPECT_FALSE(is_valid_version_string(bad)) << bad;
  }
}

}  // namespace
}  // namespace gpuenv::system
