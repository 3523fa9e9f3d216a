// Reading the kernel's NVIDIA files, host facts, and where gpuenv keeps things.
#include <gtest/gtest.h>

#include <gnu/libc-version.h>

#include "fake_machine.hpp"
#include "gpuenv/system/detection_config.hpp"
#include "gpuenv/system/host_facts.hpp"
#include "gpuenv/system/nvidia_system_files.hpp"
#include "gpuenv/util/user_directories.hpp"

namespace gpuenv::system {
namespace {

TEST(SystemNvidiaFiles, ReleaseFromBothKernelModuleWordings) {
  EXPECT_EQ(driver_release_from_proc_version(
                "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05  Sat Aug 19 01:15:15 UTC 2023\n"
                "GCC version:  gcc version 12.2.0 (Debian 12.2.0-14)\n"),
            "535.104.05");
  EXPECT_EQ(driver_release_from_proc_version(
                "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.65.06  Release Build  "
                "(dvs-builder@U16-I3-B03-4-3)  Sun Jul 27 07:09:45 UTC 2025\n"),
            "580.65.06");
  EXPECT_EQ(driver_release_from_proc_version(
                "NVRM version: NVIDIA UNIX aarch64 Kernel Module  550.54.14  Thu Feb 22 01:25:25 UTC 2024"),
            "550.54.14");
  EXPECT_FALSE(driver_release_from_proc_version("GCC version: 12.2.0"));
  EXPECT_FALSE(driver_release_from_proc_version(""));
}

TEST(SystemNvidiaFiles, ReleaseFromLibraryFileName) {
  EXPECT_EQ(driver_release_from_library_name("/usr/lib/x86_64-linux-gnu/libcuda.so.580.159.04"), "580.159.04");
  EXPECT_EQ(driver_release_from_library_name("/usr/lib/wsl/lib/libnvidia-ml.so.535.104.05"), "535.104.05");
  EXPECT_FALSE(driver_release_from_library_name("/usr/lib/x86_64-linux-gnu/libcuda.so.1"));
  EXPECT_FALSE(driver_release_from_library_name("/usr/lib/x86_64-linux-gnu/libcuda.so"));
  EXPECT_FALSE(driver_release_from_library_name(""));
}

TEST(SystemNvidiaFiles, GpusAndDeviceNodes) {
  testing::FakeMachine machine;
  machine.add_gpu("0000:41:00.0");
  machine.add_gpu("0000:01:00.0");
  for (const char* node : {"nvidia1", "nvidia0", "nvidiactl", "nvidia-uvm", "nvidia-caps", "nvidia12", "null"}) {
    machine.add_device_node(node);
  }
  EXPECT_EQ(list_nvidia_gpus(machine.proc()), (std::vector<std::string>{"0000:01:00.0", "0000:41:00.0"}));
  EXPECT_EQ(list_nvidia_device_nodes(machine.dev()), (std::vector<std::string>{"nvidia0", "nvidia1", "nvidia12"}));
  EXPECT_TRUE(list_nvidia_gpus(machine.root() / "no-proc").empty());
  EXPECT_EQ(read_boot_id(machine.proc()), "6f1f3bde-0000-4000-8000-000000000001");
}

TEST(SystemNvidiaFiles, BootTimeStandsInForAMissingBootId) {
  testing::FakeMachine machine;
  std::filesystem::remove(machine.proc() / "sys/kernel/random/boot_id");
  EXPECT_FALSE(read_boot_id(machine.proc()));
  testing::write_text(machine.proc() / "stat", "cpu  1 2 3 4\nintr 5\nbtime 1718000000\nprocesses 77\n");
  EXPECT_EQ(read_boot_id(machine.proc()), "btime 1718000000");
}

TEST(SystemHostFacts, LinuxVersionIsTheKernelsNumericPrefix) {
  EXPECT_EQ(linux_version_from_release("6.1.0-18-amd64"), "6.1.0");
  EXPECT_EQ(linux_version_from_release("5.15.153.1-microsoft-standard-WSL2"), "5.15.153.1");
  EXPECT_EQ(linux_version_from_release("6.18.44-fc-v657"), "6.18.44");
  EXPECT_EQ(linux_version_from_release("4.4.0"), "4.4.0");
  EXPECT_EQ(linux_version_from_release("6.9"), "6.9");
  EXPECT_EQ(linux_version_from_release("6.10.0-rc3"), "6.10.0");
  EXPECT_EQ(linux_version_from_release("1.2.3.4.5"), "1.2.3.4");
  EXPECT_FALSE(linux_version_from_release("6"));
  EXPECT_FALSE(linux_version_from_release("v6.1"));
  EXPECT_FALSE(linux_version_from_release(""));
}

TEST(SystemHostFacts, GlibcMajorMinor) {
  EXPECT_EQ(major_minor("2.36"), "2.36");
  EXPECT_EQ(major_minor("2.39.9000"), "2.39");
  EXPECT_FALSE(major_minor("2"));
  EXPECT_FALSE(major_minor("glibc"));
}

TEST(SystemHostFacts, DetectedFactsAreThisMachines) {
  const auto facts = detect_host_facts();
  ASSERT_TRUE(facts.glibc_version.has_value());
  EXPECT_EQ(*facts.glibc_version, gnu_get_libc_version());
  EXPECT_FALSE(facts.kernel_release.empty());
  EXPECT_FALSE(facts.machine.empty());
}

TEST(SystemUserDirectories, XdgRulesAndGpuenvVariables) {
  auto dirs = util::resolve_user_directories(util::fixed_environment({{"HOME", "/home/ann"}}));
  EXPECT_EQ(dirs.cache_dir, "/home/ann/.cache/gpuenv");
  EXPECT_EQ(dirs.root_prefix, "/home/ann/.gpuenv");
  EXPECT_EQ(dirs.pkgs_dirs, std::vector<std::filesystem::path>{"/home/ann/.gpuenv/pkgs"});
  EXPECT_EQ(dirs.envs_dirs, std::vector<std::filesystem::path>{"/home/ann/.gpuenv/envs"});

  dirs = util::resolve_user_directories(util::fixed_environment(
      {{"HOME", "/home/ann"}, {"XDG_CACHE_HOME", "/var/cache/ann"}, {"XDG_DATA_HOME", "/data/ann"}}));
  EXPECT_EQ(dirs.cache_dir, "/var/cache/ann/gpuenv");
  EXPECT_EQ(dirs.root_prefix, "/home/ann/.gpuenv");

  dirs = util::resolve_user_directories(util::fixed_environment({{"HOME", "/home/ann"},
                                                                 {"GPUENV_CACHE_DIR", "/tmp/c"},
                                                                 {"GPUENV_ROOT_PREFIX", "/opt/gpuenv"},
                                                                 {"CONDA_PKGS_DIRS", "/a/pkgs, /b/pkgs"},
                                                                 {"CONDA_ENVS_PATH", "/x/envs:/y/envs"}}));
  EXPECT_EQ(dirs.cache_dir, "/tmp/c");
  EXPECT_EQ(dirs.root_prefix, "/opt/gpuenv");
  EXPECT_EQ(dirs.pkgs_dirs, (std::vector<std::filesystem::path>{"/a/pkgs", "/b/pkgs"}));
  EXPECT_EQ(dirs.envs_dirs, (std::vector<std::filesystem::path>{"/x/envs", "/y/envs"}));

  // Nowhere to put a cache: none, rather than a guess.
  EXPECT_TRUE(util::resolve_user_directories(util::fixed_environment({})).cache_dir.empty());
}

TEST(SystemUserDirectories, ConfigFilesFollowCondasSearchPath) {
  testing::FakeMachine machine;
  const auto home = machine.root() / "home";
  testing::write_text(home / ".condarc", "channels: [conda-forge]\n");
  testing::write_text(home / ".conda/condarc.d/extra.yml", "{}\n");
  testing::write_text(home / ".conda/condarc.d/notes.txt", "not config\n");
  const auto dirs = util::resolve_user_directories(
      util::fixed_environment({{"HOME", home.string()}, {"CONDARC", (machine.root() / "site.yaml").string()}}));
  ASSERT_FALSE(dirs.config_search_path.empty());
  EXPECT_EQ(dirs.config_search_path.front(), "/etc/conda/.condarc");
  const auto found = util::existing_config_files(dirs.config_search_path);
  EXPECT_EQ(found, (std::vector<std::filesystem::path>{home / ".conda/condarc.d/extra.yml", home / ".condarc"}));
}

TEST(DetectionConfig, SearchOrderFollowsTheDesign) {
  DetectionConfig config;
  const auto plan = config.probe_plan();
  const std::vector<std::string> expected = {"libcuda.so.1",
                                             "libcuda.so",
                                             "/usr/lib/wsl/lib/libcuda.so.1",
                                             "/usr/lib/wsl/lib/libcuda.so",
                                             "/usr/lib/aarch64-linux-gnu/tegra/libcuda.so.1",
                                             "/usr/lib/aarch64-linux-gnu/tegra/libcuda.so",
                                             "/usr/local/nvidia/lib64/libcuda.so.1",
                                             "/usr/local/nvidia/lib64/libcuda.so"};
  EXPECT_EQ(plan.libcuda_candidates, expected);
  EXPECT_EQ(plan.nvml_candidates.front(), "libnvidia-ml.so.1");
  EXPECT_EQ(plan.time_limit, std::chrono::milliseconds(10'000));
}

TEST(DetectionConfig, ReadFromTheEnvironment) {
  const auto result = detection_config_from_environment(
      util::fixed_environment({{"GPUENV_LIBCUDA", "/opt/libcuda.so.1"},
                               {"GPUENV_PROC_ROOT", "/fake/proc"},
                               {"GPUENV_DEV_ROOT", "/fake/dev"},
                               {"GPUENV_CUDA_TIMEOUT", "2.5"},
                               {"CUDA_VISIBLE_DEVICES", ""}}),
      "/cache");
  EXPECT_TRUE(result.warnings.empty());
  EXPECT_EQ(result.config.libcuda_override, "/opt/libcuda.so.1");
  EXPECT_EQ(result.config.proc_root, "/fake/proc");
  EXPECT_EQ(result.config.dev_root, "/fake/dev");
  EXPECT_EQ(result.config.sys_root, "/sys");
  EXPECT_EQ(result.config.time_limit, std::chrono::milliseconds(2500));
  EXPECT_EQ(result.config.cuda_visible_devices, "");
  EXPECT_EQ(result.config.cache_dir, "/cache");
  EXPECT_EQ(result.config.probe_plan().libcuda_candidates, std::vector<std::string>{"/opt/libcuda.so.1"});
}

TEST(DetectionConfig, BadTimeoutIsAWarningNotAFailure) {
  for (const char* bad : {"ten", "-1", "0", "1e9"}) {
    const auto result =
        detection_config_from_environment(util::fixed_environment({{"GPUENV_CUDA_TIMEOUT", bad}}), "");
    EXPECT_EQ(result.config.time_limit, std::chrono::milliseconds(10'000)) << bad;
    ASSERT_EQ(result.warnings.size(), 1u) << bad;
    EXPECT_NE(result.warnings[0].find("GPUENV_CUDA_TIMEOUT"), std::string::npos);
  }
}

}  // namespace
}  // namespace gpuenv::system
