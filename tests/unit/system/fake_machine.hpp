// A throw-away machine for CUDA detection tests: a temporary directory with
// its own /proc, /sys and /dev layout, a private copy of the fake libcuda (so
// a test may replace or touch it), a cache directory, and a call log the fake
// driver appends to. Environment variables the fake reads are set for the
// test's lifetime and restored after.
#pragma once

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gpuenv/system/detection_config.hpp"

namespace gpuenv::testing {

namespace fs = std::filesystem;

class TemporaryDirectory {
 public:
  TemporaryDirectory() {
    std::string pattern = (fs::temp_directory_path() / "gpuenv-system-test-XXXXXX").string();
    path_ = ::mkdtemp(pattern.data());
  }
  ~TemporaryDirectory() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  TemporaryDirectory(const TemporaryDirectory&) = delete;
  TemporaryDirectory& operator=(const TemporaryDirectory&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// Sets environment variables and puts the previous values back.
class ScopedEnvironment {
 public:
  ScopedEnvironment() = default;
  ScopedEnvironment(const ScopedEnvironment&) = delete;
  ScopedEnvironment& operator=(const ScopedEnvironment&) = delete;
  ~ScopedEnvironment() {
    for (const auto& [name, value] : saved_) {
      if (value) ::setenv(name.c_str(), value->c_str(), 1);
      else ::unsetenv(name.c_str());
    }
  }
  void set(const std::string& name, const std::string& value) {
    remember(name);
    ::setenv(name.c_str(), value.c_str(), 1);
  }
  void unset(const std::string& name) {
    remember(name);
    ::unsetenv(name.c_str());
  }

 private:
  void remember(const std::string& name) {
    if (saved_.contains(name)) return;
    const char* value = std::getenv(name.c_str());
    saved_[name] = value ? std::optional<std::string>(value) : std::nullopt;
  }
  std::map<std::string, std::optional<std::string>> saved_;
};

inline void write_text(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

inline std::string read_text(const fs::path& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

class FakeMachine {
 public:
  FakeMachine() {
    fs::create_directories(proc());
    fs::create_directories(sys());
    fs::create_directories(dev());
    set_boot_id("6f1f3bde-0000-4000-8000-000000000001");
    fs::create_directories(library().parent_path());
    fs::copy_file(FAKE_LIBCUDA_PATH, library());
    // Every fake variable starts from a known state.
    for (const char* name : {"FAKE_CUDA_DRIVER_VERSION", "FAKE_CUDA_DEVICES", "FAKE_CUDA_INIT_ERROR",
                             "FAKE_CUDA_HANG", "FAKE_CUDA_CRASH", "FAKE_CUDA_STUB_PATH_CONTAINS",
                             "FAKE_NVML_INIT_ERROR", "FAKE_NVML_DRIVER_RELEASE", "CUDA_VISIBLE_DEVICES"}) {
      env.unset(name);
    }
    env.set("FAKE_CUDA_CALL_LOG", call_log().string());
  }

  fs::path root() const { return directory_.path(); }
  fs::path proc() const { return root() / "proc"; }
  fs::path sys() const { return root() / "sys"; }
  fs::path dev() const { return root() / "dev"; }
  fs::path cache() const { return root() / "cache"; }
  fs::path library() const { return root() / "driver/libcuda.so.1"; }
  fs::path call_log() const { return root() / "driver-calls.log"; }

  void set_boot_id(const std::string& id) { write_text(proc() / "sys/kernel/random/boot_id", id + "\n"); }
  void set_proc_driver_version(const std::string& release) {
    write_text(proc() / "driver/nvidia/version",
               "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  " + release +
                   "  Release Build  (dvs-builder@U22-I3-AE18-23-3)  Thu Jan  1 00:00:00 UTC 2026\n"
                   "GCC version:  gcc version 12.2.0 (Debian 12.2.0-14)\n");
  }
  void set_module_version(const std::string& version) { write_text(sys() / "module/nvidia/version", version + "\n"); }
  void add_gpu(const std::string& pci_bus_id) { fs::create_directories(proc() / "driver/nvidia/gpus" / pci_bus_id); }
  void add_device_node(const std::string& name) { write_text(dev() / name, ""); }

  // The driver calls the fake saw since the last clear.
  std::vector<std::string> driver_calls() const {
    std::vector<std::string> calls;
    std::ifstream in(call_log());
    for (std::string line; std::getline(in, line);) calls.push_back(line);
    return calls;
  }
  void clear_driver_calls() const { fs::remove(call_log()); }

  // A configuration that sees only this machine.
  system::DetectionConfig config() const {
    system::DetectionConfig config;
    config.proc_root = proc();
    config.sys_root = sys();
    config.dev_root = dev();
    config.libcuda_override = library().string();
    config.use_loader_search = false;
    config.driver_directories.clear();
    config.cache_dir = cache();
    config.time_limit = std::chrono::milliseconds(5000);
    config.program_version = "test";
    return config;
  }

  ScopedEnvironment env;

 private:
  TemporaryDirectory directory_;
};

}  // namespace gpuenv::testing
