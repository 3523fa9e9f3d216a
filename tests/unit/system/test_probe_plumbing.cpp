// The pieces under the probe: the forked child with a time limit, the
// transcript it writes, and the report's JSON form.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>

#include "gpuenv/system/cuda_report_json.hpp"
#include "gpuenv/system/probe_transcript.hpp"
#include "gpuenv/util/subprocess.hpp"

namespace gpuenv::system {
namespace {

using namespace std::chrono_literals;
using Ending = util::ForkedChildResult::Ending;

TEST(ProbeForkedChild, CollectsOutputAndExitStatus) {
  const auto result = util::run_in_forked_child(
      [](int fd) {
        util::write_all(fd, "hello\n");
        return 3;
      },
      5s);
  EXPECT_EQ(result.ending, Ending::exited);
  EXPECT_EQ(result.exit_code, 3);
  EXPECT_EQ(result.output, "hello\n");
}

TEST(ProbeForkedChild, HangIsKilledAtTheLimitAndKeepsWhatWasWritten) {
  const auto started = std::chrono::steady_clock::now();
  const auto result = util::run_in_forked_child(
      [](int fd) {
        util::write_all(fd, "call\tcuInit\n");
        while (true) ::pause();
        return 0;
      },
      200ms);
  const auto took = std::chrono::steady_clock::now() - started;
  EXPECT_EQ(result.ending, Ending::timed_out);
  EXPECT_EQ(result.output, "call\tcuInit\n");
  EXPECT_GE(took, 190ms);
  EXPECT_LT(took, 1500ms);
}

TEST(ProbeForkedChild, ChildThatClosesThePipeButHangsIsStillBounded) {
  const auto started = std::chrono::steady_clock::now();
  const auto result = util::run_in_forked_child(
      [](int fd) {
        ::close(fd);
        while (true) ::pause();
        return 0;
      },
      200ms);
  EXPECT_EQ(result.ending, Ending::timed_out);
  EXPECT_LT(std::chrono::steady_clock::now() - started, 1500ms);
}

TEST(ProbeForkedChild, CrashIsReportedWithItsSignal) {
  const auto result = util::run_in_forked_child(
      [](int) {
        ::raise(SIGABRT);
        return 0;
      },
      5s);
  EXPECT_EQ(result.ending, Ending::signaled);
  EXPECT_EQ(result.signal, SIGABRT);
  EXPECT_EQ(util::describe_signal(SIGSEGV), "SIGSEGV (Segmentation fault)");
}

TEST(ProbeTranscript, ParsesFactsAndDropsACutOffLine) {
  const auto transcript = parse_probe_transcript(
      "searched\tlibcuda.so.1\n"
      "load_error\tlibcuda.so.1\tlibcuda.so.1: cannot open shared object file: No such file or directory\t?\n"
      "load_error\t/y/libcuda.so.1\t/y/libcuda.so.1: Datei oder Verzeichnis nicht gefunden\t0\n"
      "load_error\t/z/libcuda.so.1\t/z/libcuda.so.1: invalid ELF header\t1\n"
      "searched\t/x/libcuda.so.1\n"
      "loaded\t1\t/x/libcuda.so.580.1\n"
      "call\tcuInit\n"
      "driver_version\t13000\n"
      "device_count\t1\n"
      "device\t0\tname\tNVIDIA H200\n"
      "device\t0\tcc\t9.0\n"
      "device\t0\tmemory\t150754820096\n"
      "error\tcuDeviceGetUuid\t999\n"
      "call\tcuDeviceGetPCIBusId\n"
      "device\t0\tpci\t0000:0");  // cut off mid-line by a crash
  EXPECT_EQ(transcript.searched, (std::vector<std::string>{"libcuda.so.1", "/x/libcuda.so.1"}));
  ASSERT_EQ(transcript.load_errors.size(), 3u);
  EXPECT_TRUE(transcript.load_errors[0].file_missing);
  EXPECT_TRUE(transcript.load_errors[1].file_missing);  // whatever the language
  EXPECT_FALSE(transcript.load_errors[2].file_missing);
  EXPECT_EQ(transcript.loaded_index, 1u);
  EXPECT_EQ(transcript.loaded_path, "/x/libcuda.so.580.1");
  EXPECT_EQ(transcript.driver_version, 13000);
  EXPECT_EQ(transcript.device_count, 1);
  const auto& device = transcript.devices.at(0);
  EXPECT_EQ(device.device.name, "NVIDIA H200");
  EXPECT_TRUE(device.has_compute_capability);
  EXPECT_EQ(device.device.memory_bytes, 150754820096u);
  EXPECT_TRUE(device.device.pci_bus_id.empty());
  ASSERT_NE(transcript.error_of("cuDeviceGetUuid"), nullptr);
  EXPECT_EQ(transcript.error_of("cuDeviceGetUuid")->code, 999);
  EXPECT_EQ(transcript.last_call, "cuDeviceGetPCIBusId");
  EXPECT_FALSE(transcript.finished);
}

TEST(CudaReportJson, RoundTripsEveryField) {
  CudaReport report;
  report.status = DetectionStatus::query_failed;
  report.source = DetectionSource::libcuda;
  report.driver_cuda_version = 12040;
  report.driver_release = "550.54.14";
  report.driver_release_source = "/proc/driver/nvidia/version";
  report.library_path = "/usr/lib/libcuda.so.550.54.14";
  report.searched = {"libcuda.so.1"};
  report.devices.push_back({0, "NVIDIA A100", {8, 0}, 42949672960, "GPU-1", "0000:01:00.0"});
  report.error = DriverCallError{"cuDeviceGetUuid", 999};
  report.failed_call = "cuDeviceGetUuid";
  report.signal = 0;
  report.message = "m";
  report.remedy = "r";
  report.notes = {"n"};
  report.probe_ms = 12.5;
  const auto json = report_to_json(report);
  EXPECT_EQ(json["error"]["name"], "CUDA_ERROR_UNKNOWN");
  EXPECT_EQ(json["driver"]["cuda_version"], "12.4");
  EXPECT_EQ(json["devices"][0]["sm"], "sm_80");
  const auto back = report_from_json(json);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(report_to_json(*back), json);
}

TEST(CudaReportJson, RejectsWhatItDidNotWrite) {
  EXPECT_FALSE(report_from_json(nlohmann::ordered_json::array()));
  EXPECT_FALSE(report_from_json({{"status", "splendid"}}));
  EXPECT_FALSE(report_from_json({{"status", "ok"}, {"devices", {{{"index", 0}}}}}));
}

TEST(CudaReportJson, ComputeCapabilityTextForms) {
  EXPECT_EQ(ComputeCapability::parse("8.6"), (ComputeCapability{8, 6}));
  EXPECT_EQ(ComputeCapability::parse("12.0f"), (ComputeCapability{12, 0}));
  EXPECT_FALSE(ComputeCapability::parse("86"));
  EXPECT_FALSE(ComputeCapability::parse("sm_86"));
  EXPECT_EQ((ComputeCapability{12, 1}).sm(), "sm_121");
  EXPECT_EQ(format_cuda_version(12080), "12.8");
  EXPECT_EQ(format_cuda_version(13000), "13.0");
  const unsigned char bytes[16] = {0x0a, 0x1b, 0x2c, 0x3d, 0x4e, 0x5f, 0x60, 0x71,
                                   0x82, 0x93, 0xa4, 0xb5, 0xc6, 0xd7, 0xe8, 0xf9};
  EXPECT_EQ(format_gpu_uuid(bytes), "GPU-0a1b2c3d-4e5f-6071-8293-a4b5c6d7e8f9");
}

}  // namespace
}  // namespace gpuenv::system
