// The detection cache: a warm call never touches the driver, and every
// change the key covers sends detection back to the driver.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/stat.h>

#include <chrono>

#include "fake_machine.hpp"
#include "gpuenv/system/cuda_cache.hpp"
#include "gpuenv/system/cuda_detection.hpp"

namespace gpuenv::system {
namespace {

using testing::FakeMachine;
using State = CacheOutcome::State;

// Detects once so the cache holds an entry, and forgets the driver calls.
CudaDetection warm_up(const FakeMachine& machine, const DetectionConfig& config) {
  auto first = detect_cuda(config);
  EXPECT_EQ(first.cache.state, State::miss);
  EXPECT_TRUE(first.cache.write_error.empty()) << first.cache.write_error;
  machine.clear_driver_calls();
  return first;
}

TEST(CudaCache, WarmCallAnswersWithoutTouchingTheDriver) {
  FakeMachine machine;
  machine.set_proc_driver_version("580.159.04");
  const auto config = machine.config();
  const auto first = detect_cuda(config);
  EXPECT_EQ(first.cache.state, State::miss);
  EXPECT_EQ(first.cache.reason, "nothing cached yet");
  EXPECT_FALSE(machine.driver_calls().empty());
  machine.clear_driver_calls();

  const auto second = detect_cuda(config);
  EXPECT_EQ(second.cache.state, State::hit);
  EXPECT_TRUE(machine.driver_calls().empty());
  EXPECT_EQ(second.report.status, first.report.status);
  EXPECT_EQ(second.report.driver_release, "580.159.04");
  EXPECT_EQ(second.report.driver_cuda_version, first.report.driver_cuda_version);
  ASSERT_EQ(second.report.devices.size(), first.report.devices.size());
  EXPECT_EQ(second.report.devices[0].uuid, first.report.devices[0].uuid);
  EXPECT_EQ(second.report.devices[0].compute_capability, first.report.devices[0].compute_capability);
}

TEST(CudaCache, NegativeAnswerIsCachedToo) {
  FakeMachine machine;
  auto config = machine.config();
  config.libcuda_override = (machine.root() / "missing/libcuda.so.1").string();
  EXPECT_EQ(detect_cuda(config).cache.state, State::miss);
  const auto second = detect_cuda(config);
  EXPECT_EQ(second.cache.state, State::hit);
  EXPECT_EQ(second.report.status, DetectionStatus::no_library);
}

TEST(CudaCache, RefreshAsksTheDriverAgain) {
  FakeMachine machine;
  auto config = machine.config();
  warm_up(machine, config);
  config.refresh = true;
  const auto refreshed = detect_cuda(config);
  EXPECT_EQ(refreshed.cache.state, State::refreshed);
  EXPECT_FALSE(machine.driver_calls().empty());
  // The fresh answer is stored: the next plain call is a hit.
  config.refresh = false;
  EXPECT_EQ(detect_cuda(config).cache.state, State::hit);
}

TEST(CudaCache, ChangedLibraryFileInvalidates) {
  FakeMachine machine;
  const auto config = machine.config();
  warm_up(machine, config);
  const timespec times[2] = {{0, UTIME_NOW}, {1'000'000'000, 0}};  // new mtime
  ASSERT_EQ(::utimensat(AT_FDCWD, machine.library().c_str(), times, 0), 0);
  const auto again = detect_cuda(config);
  EXPECT_EQ(again.cache.state, State::miss);
  EXPECT_NE(again.cache.reason.find("driver library"), std::string::npos) << again.cache.reason;
  EXPECT_FALSE(machine.driver_calls().empty());
}

TEST(CudaCache, ReplacedLibraryInvalidates) {
  FakeMachine machine;
  const auto config = machine.config();
  warm_up(machine, config);
  // A driver upgrade puts a different file (here: a larger one) in place.
  std::filesystem::remove(machine.library());
  std::filesystem::copy_file(FAKE_LIBNVML_PATH, machine.library());
  const auto again = detect_cuda(config);
  EXPECT_EQ(again.cache.state, State::miss);
}

TEST(CudaCache, RebootInvalidates) {
  FakeMachine machine;
  const auto config = machine.config();
  warm_up(machine, config);
  machine.set_boot_id("6f1f3bde-0000-4000-8000-000000000002");
  const auto again = detect_cuda(config);
  EXPECT_EQ(again.cache.state, State::miss);
  EXPECT_NE(again.cache.reason.find("rebooted"), std::string::npos) << again.cache.reason;
}

TEST(CudaCache, NewGpuUnderProcInvalidates) {
  FakeMachine machine;
  machine.add_gpu("0000:01:00.0");
  const auto config = machine.config();
  warm_up(machine, config);
  machine.add_gpu("0000:02:00.0");
  const auto again = detect_cuda(config);
  EXPECT_EQ(again.cache.state, State::miss);
  EXPECT_NE(again.cache.reason.find("/proc/driver/nvidia/gpus"), std::string::npos) << again.cache.reason;
}

TEST(CudaCache, NewDeviceNodeInvalidates) {
  FakeMachine machine;
  machine.add_device_node("nvidia0");
  machine.add_device_node("nvidiactl");
  const auto config = machine.config();
  warm_up(machine, config);
  machine.add_device_node("nvidia-uvm");  // not a GPU: still a hit
  EXPECT_EQ(detect_cuda(config).cache.state, State::hit);
  machine.add_device_node("nvidia1");
  const auto again = detect_cuda(config);
  EXPECT_EQ(again.cache.state, State::miss);
  EXPECT_NE(again.cache.reason.find("/dev/nvidia"), std::string::npos) << again.cache.reason;
}

TEST(CudaCache, CudaVisibleDevicesChangeInvalidates) {
  FakeMachine machine;
  machine.env.set("FAKE_CUDA_DEVICES", "9.0:NVIDIA H100:1;8.6:NVIDIA A10:1");
  auto config = machine.config();
  machine.env.set("CUDA_VISIBLE_DEVICES", "0,1");
  config.cuda_visible_devices = "0,1";
  EXPECT_EQ(warm_up(machine, config).report.devices.size(), 2u);

  machine.env.set("CUDA_VISIBLE_DEVICES", "1");
  config.cuda_visible_devices = "1";
  const auto again = detect_cuda(config);
  EXPECT_EQ(again.cache.state, State::miss);
  EXPECT_NE(again.cache.reason.find("CUDA_VISIBLE_DEVICES"), std::string::npos) << again.cache.reason;
  ASSERT_EQ(again.report.devices.size(), 1u);
  EXPECT_EQ(again.report.devices[0].name, "NVIDIA A10");

  // Unset and empty are different selections too.
  machine.env.set("CUDA_VISIBLE_DEVICES", "");
  config.cuda_visible_devices = "";
  const auto none = detect_cuda(config);
  EXPECT_EQ(none.cache.state, State::miss);
  EXPECT_EQ(none.report.status, DetectionStatus::no_device);
}

TEST(CudaCache, KernelModuleChangeInvalidates) {
  FakeMachine machine;
  machine.set_module_version("575.51.03");
  const auto config = machine.config();
  warm_up(machine, config);
  machine.set_module_version("580.65.06");
  const auto again = detect_cuda(config);
  EXPECT_EQ(again.cache.state, State::miss);
  EXPECT_NE(again.cache.reason.find("kernel module"), std::string::npos) << again.cache.reason;
}

TEST(CudaCache, ProcDriverVersionChangeInvalidates) {
  FakeMachine machine;
  machine.set_proc_driver_version("575.51.03");
  const auto config = machine.config();
  warm_up(machine, config);
  machine.set_proc_driver_version("580.65.06");
  EXPECT_EQ(detect_cuda(config).cache.state, State::miss);
}

TEST(CudaCache, OverrideVariableChangeInvalidates) {
  FakeMachine machine;
  auto config = machine.config();
  warm_up(machine, config);
  const auto other = machine.root() / "other/libcuda.so.1";
  std::filesystem::create_directories(other.parent_path());
  std::filesystem::copy_file(machine.library(), other);
  config.libcuda_override = other.string();
  const auto again = detect_cuda(config);
  EXPECT_EQ(again.cache.state, State::miss);
  EXPECT_NE(again.cache.reason.find("GPUENV_LIBCUDA"), std::string::npos) << again.cache.reason;
}

TEST(CudaCache, NewGpuenvVersionInvalidates) {
  FakeMachine machine;
  auto config = machine.config();
  warm_up(machine, config);
  config.program_version = "test-next";
  EXPECT_EQ(detect_cuda(config).cache.state, State::miss);
}

TEST(CudaCache, CorruptFileMeansFreshDetectionNeverAnError) {
  FakeMachine machine;
  const auto config = machine.config();
  warm_up(machine, config);
  for (const char* garbage : {"{not json", "", "[]", R"({"schema": "gpuenv.cuda-detection-cache/1"})",
                              R"({"schema": "something-else/9", "report": {}})"}) {
    testing::write_text(cache_file_path(config.cache_dir), garbage);
    const auto again = detect_cuda(config);
    EXPECT_EQ(again.cache.state, State::miss) << garbage;
    EXPECT_EQ(again.report.status, DetectionStatus::ok) << garbage;
    EXPECT_NE(again.cache.reason.find("unusable"), std::string::npos) << again.cache.reason;
    // ...and the broken file was replaced by a good one.
    EXPECT_EQ(detect_cuda(config).cache.state, State::hit) << garbage;
  }
}

TEST(CudaCache, UnwritableCacheStillDetects) {
  FakeMachine machine;
  auto config = machine.config();
  testing::write_text(machine.root() / "a-file", "");
  config.cache_dir = machine.root() / "a-file/cache";  // cannot be created
  const auto detection = detect_cuda(config);
  EXPECT_EQ(detection.report.status, DetectionStatus::ok);
  EXPECT_FALSE(detection.cache.write_error.empty());
}

TEST(CudaCache, UnreadableCacheFileMeansFreshDetection) {
  FakeMachine machine;
  const auto config = machine.config();
  // A directory where the file should be: unreadable (and unwritable) as a
  // file for every user, root included.
  std::filesystem::create_directories(cache_file_path(config.cache_dir));
  const auto detection = detect_cuda(config);
  EXPECT_EQ(detection.report.status, DetectionStatus::ok);
  EXPECT_EQ(detection.cache.state, State::miss);
  EXPECT_NE(detection.cache.reason.find("cannot read"), std::string::npos) << detection.cache.reason;
  EXPECT_FALSE(detection.cache.write_error.empty());
}

TEST(CudaCache, NoBootIdMeansNoCache) {
  FakeMachine machine;
  std::filesystem::remove(machine.proc() / "sys/kernel/random/boot_id");
  const auto config = machine.config();
  const auto detection = detect_cuda(config);
  EXPECT_EQ(detection.cache.state, State::disabled);
  EXPECT_NE(detection.cache.reason.find("boot id"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(cache_file_path(config.cache_dir)));
}

TEST(CudaCache, NoCacheDirectoryMeansNoCache) {
  FakeMachine machine;
  auto config = machine.config();
  config.cache_dir.clear();
  EXPECT_EQ(detect_cuda(config).cache.state, State::disabled);
}

TEST(CudaCache, EntriesExpire) {
  FakeMachine machine;
  const auto config = machine.config();
  CacheEntry entry;
  entry.written_at = 1'000'000;
  entry.report.status = DetectionStatus::ok;
  EXPECT_FALSE(expiry_reason(entry, 1'000'000 + config.cache_ttl.count(), config));
  EXPECT_TRUE(expiry_reason(entry, 1'000'001 + config.cache_ttl.count(), config));
  // Outcomes that may be transient are retried sooner.
  entry.report.status = DetectionStatus::timed_out;
  EXPECT_TRUE(expiry_reason(entry, 1'000'001 + config.failure_cache_ttl.count(), config));
  // A clock that went back cannot be trusted with the TTL.
  entry.report.status = DetectionStatus::ok;
  EXPECT_TRUE(expiry_reason(entry, 1'000'000 - 3600, config));
}

TEST(CudaCache, ExpiredEntryOnDiskIsNotUsed) {
  FakeMachine machine;
  const auto config = machine.config();
  warm_up(machine, config);
  auto entry = parse_cache_entry(testing::read_text(cache_file_path(config.cache_dir)));
  ASSERT_TRUE(entry.has_value()) << entry.error();
  entry->written_at -= config.cache_ttl.count() + 60;
  testing::write_text(cache_file_path(config.cache_dir), serialize_cache_entry(*entry));
  const auto again = detect_cuda(config);
  EXPECT_EQ(again.cache.state, State::miss);
  EXPECT_NE(again.cache.reason.find("expired"), std::string::npos) << again.cache.reason;
}

TEST(CudaCache, EntryRoundTrips) {
  FakeMachine machine;
  machine.set_proc_driver_version("580.159.04");
  machine.add_gpu("0000:01:00.0");
  const auto config = machine.config();
  CacheEntry entry;
  entry.report = detect_cuda_uncached(config);
  entry.fingerprint = current_fingerprint(config, entry.report.library_path);
  entry.written_at = 1234;
  const auto parsed = parse_cache_entry(serialize_cache_entry(entry));
  ASSERT_TRUE(parsed.has_value()) << parsed.error();
  EXPECT_EQ(parsed->fingerprint, entry.fingerprint);
  EXPECT_EQ(parsed->written_at, 1234);
  EXPECT_FALSE(fingerprint_difference(parsed->fingerprint, current_fingerprint(config, entry.report.library_path)));
}

}  // namespace
}  // namespace gpuenv::system
