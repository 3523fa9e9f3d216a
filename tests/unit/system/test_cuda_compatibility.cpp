// metadata/ against NVIDIA's tables in ../shared/testdata/cuda, and the
// driver/toolkit/GPU judgements made from them.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "gpuenv/system/cuda_compatibility.hpp"
#include "support/testdata.hpp"

namespace gpuenv::system {
namespace {

using testing::read_tsv;

DriverRelease release(const char* text) { return *DriverRelease::parse(text); }

std::map<std::string, ToolkitSupport> by_version(const std::vector<ToolkitVerdict>& verdicts) {
  std::map<std::string, ToolkitSupport> map;
  for (const auto& verdict : verdicts) map[verdict.version.str()] = verdict.support;
  return map;
}

TEST(CudaCompatibility, DriverReleasesCompareNumerically) {
  EXPECT_LT(release("580"), release("580.65.06"));
  EXPECT_LT(release("580.65.06"), release("580.159.04"));
  EXPECT_GT(release("525.60.13"), release("525.60.4"));
  EXPECT_EQ(release("580.0"), release("580"));
  EXPECT_EQ(release("580.65.06").str(), "580.65.06");
  EXPECT_FALSE(DriverRelease::parse("580.x"));
  EXPECT_FALSE(DriverRelease::parse(""));
}

TEST(CudaCompatibility, ToolkitMinimumDriversMatchNvidiasTable) {
  const auto tables = CudaCompatibilityTables::load();
  const auto source = read_tsv("cuda/cuda_toolkit_driver_versions.tsv");
  std::map<std::string, DriverRelease> lowest;
  for (const auto& row : source.rows) {
    if (row[0].find(" RC") != std::string::npos) continue;  // not a release
    const auto version = CudaVersion::parse(row[1]);
    ASSERT_TRUE(version) << testing::where(source, row);
    const auto driver = DriverRelease::parse(row[2].substr(2));  // ">=..."
    ASSERT_TRUE(driver) << testing::where(source, row);
    auto [entry, inserted] = lowest.emplace(version->str(), *driver);
    if (!inserted) entry->second = std::min(entry->second, *driver);
  }
  ASSERT_EQ(tables.toolkits.size(), lowest.size());
  for (const auto& toolkit : tables.toolkits) {
    ASSERT_TRUE(lowest.contains(toolkit.version.str())) << toolkit.version.str();
    EXPECT_EQ(toolkit.linux_min_driver, lowest.at(toolkit.version.str())) << toolkit.version.str();
  }
  EXPECT_EQ(tables.toolkits.front().version.str(), "13.1");
}

TEST(CudaCompatibility, MinorVersionFloorsAreNvidias) {
  const auto tables = CudaCompatibilityTables::load();
  EXPECT_EQ(tables.minor_version_floors.at(11), release("450.80.02"));
  EXPECT_EQ(tables.minor_version_floors.at(12), release("525.60.13"));
  EXPECT_EQ(tables.minor_version_floors.at(13), release("580"));
  EXPECT_FALSE(tables.minor_version_floors.contains(10));
}

TEST(CudaCompatibility, Cuda13DriverRunsEverythingUpTo13Point1) {
  const auto tables = CudaCompatibilityTables::load();
  const auto verdicts = by_version(judge_toolkits(tables, release("580.159.04"), CudaVersion{13, 0}));
  EXPECT_EQ(verdicts.at("13.0"), ToolkitSupport::native);
  EXPECT_EQ(verdicts.at("13.1"), ToolkitSupport::minor_version_compatibility);
  EXPECT_EQ(verdicts.at("12.9"), ToolkitSupport::native);
  EXPECT_EQ(verdicts.at("11.8"), ToolkitSupport::native);
  EXPECT_EQ(verdicts.at("7.0"), ToolkitSupport::native);
}

TEST(CudaCompatibility, Cuda12DriverNeeds580For13) {
  const auto tables = CudaCompatibilityTables::load();
  const auto verdicts = judge_toolkits(tables, release("550.54.14"), CudaVersion{12, 4});
  const auto map = by_version(verdicts);
  EXPECT_EQ(map.at("12.4"), ToolkitSupport::native);
  EXPECT_EQ(map.at("12.5"), ToolkitSupport::minor_version_compatibility);
  EXPECT_EQ(map.at("12.9"), ToolkitSupport::minor_version_compatibility);
  EXPECT_EQ(map.at("13.0"), ToolkitSupport::needs_newer_driver);
  const auto thirteen = std::find_if(verdicts.begin(), verdicts.end(),
                                     [](const auto& verdict) { return verdict.version == CudaVersion{13, 0}; });
  EXPECT_EQ(thirteen->min_driver.str(), "580.65.06");
}

TEST(CudaCompatibility, DriverBelowTheFloorGetsNoMinorVersionCompatibility) {
  const auto tables = CudaCompatibilityTables::load();
  // CUDA 11.8's driver is older than the 12.x floor (525.60.13).
  const auto map = by_version(judge_toolkits(tables, release("520.61.05"), CudaVersion{11, 8}));
  EXPECT_EQ(map.at("11.8"), ToolkitSupport::native);
  EXPECT_EQ(map.at("12.0"), ToolkitSupport::needs_newer_driver);
  // 11.x before the Tesla Recommended Driver: 11.1 needs 455.23, and 450.51
  // is below the 11.x floor 450.80.02.
  const auto old = by_version(judge_toolkits(tables, release("450.51.06"), CudaVersion{11, 0}));
  EXPECT_EQ(old.at("11.0"), ToolkitSupport::native);
  EXPECT_EQ(old.at("11.1"), ToolkitSupport::needs_newer_driver);
  // ...and above it minor-version compatibility applies.
  const auto tesla = by_version(judge_toolkits(tables, release("450.80.02"), CudaVersion{11, 0}));
  EXPECT_EQ(tesla.at("11.8"), ToolkitSupport::minor_version_compatibility);
}

TEST(CudaCompatibility, WithoutTheReleaseTheCudaVersionDecides) {
  const auto tables = CudaCompatibilityTables::load();
  const auto map = by_version(judge_toolkits(tables, std::nullopt, CudaVersion{12, 4}));
  EXPECT_EQ(map.at("12.4"), ToolkitSupport::native);
  EXPECT_EQ(map.at("12.6"), ToolkitSupport::minor_version_compatibility);
  EXPECT_EQ(map.at("13.0"), ToolkitSupport::needs_newer_driver);
  EXPECT_EQ(map.at("11.2"), ToolkitSupport::native);
}

TEST(CudaCompatibility, Cuda13DroppedMaxwellPascalAndVolta) {
  const auto tables = CudaCompatibilityTables::load();
  for (const auto capability : {ComputeCapability{5, 2}, ComputeCapability{6, 1}, ComputeCapability{7, 0}}) {
    EXPECT_EQ(device_target(tables, {13, 0}, capability), DeviceTarget::unsupported) << capability.str();
    EXPECT_EQ(device_target(tables, {12, 9}, capability), DeviceTarget::sass) << capability.str();
  }
  EXPECT_EQ(device_target(tables, {13, 0}, {7, 5}), DeviceTarget::sass);
  EXPECT_EQ(device_target(tables, {13, 1}, {12, 0}), DeviceTarget::sass);
}

TEST(CudaCompatibility, OldToolkitsReachNewGpusOnlyThroughPtx) {
  const auto tables = CudaCompatibilityTables::load();
  EXPECT_EQ(device_target(tables, {11, 7}, {9, 0}), DeviceTarget::ptx_only);
  EXPECT_EQ(device_target(tables, {11, 8}, {9, 0}), DeviceTarget::sass);
  EXPECT_EQ(device_target(tables, {12, 6}, {10, 0}), DeviceTarget::ptx_only);
  EXPECT_EQ(device_target(tables, {12, 8}, {10, 0}), DeviceTarget::sass);
  EXPECT_EQ(device_target(tables, {3, 0}, {9, 0}), DeviceTarget::unknown);
}

ToolkitVerdict verdict(CudaVersion version, ToolkitSupport support) { return {version, support, {}}; }

TEST(CudaCompatibility, SupportRangesJoinNeighboursWithOneAnswerWithinAFamily) {
  const std::vector<ToolkitVerdict> verdicts = {
      verdict({13, 0}, ToolkitSupport::needs_newer_driver), verdict({12, 9}, ToolkitSupport::minor_version_compatibility),
      verdict({12, 5}, ToolkitSupport::minor_version_compatibility), verdict({12, 4}, ToolkitSupport::native),
      verdict({12, 0}, ToolkitSupport::native),  verdict({11, 8}, ToolkitSupport::native),
      verdict({10, 2}, ToolkitSupport::native),  verdict({9, 0}, ToolkitSupport::native)};
  const auto ranges = toolkit_support_ranges(verdicts);
  ASSERT_EQ(ranges.size(), 5u);
  EXPECT_EQ(ranges[0].newest.version.str(), "13.0");
  EXPECT_EQ(ranges[1].newest.version.str(), "12.9");
  EXPECT_EQ(ranges[1].oldest.version.str(), "12.5");
  EXPECT_EQ(ranges[2].newest.version.str(), "12.4");
  EXPECT_EQ(ranges[2].oldest.version.str(), "12.0");
  // 11.x is its own family (minor-version compatibility per major)...
  EXPECT_EQ(ranges[3].newest.version.str(), "11.8");
  EXPECT_EQ(ranges[3].oldest.version.str(), "11.8");
  // ...while the versions before 11 share one.
  EXPECT_EQ(ranges[4].newest.version.str(), "10.2");
  EXPECT_EQ(ranges[4].oldest.version.str(), "9.0");
  EXPECT_TRUE(toolkit_support_ranges({}).empty());
}

TEST(CudaCompatibility, DeviceTargetRangesCoverOnlyRunnableToolkits) {
  const auto tables = CudaCompatibilityTables::load();
  const auto verdicts = judge_toolkits(tables, release("550.54.14"), CudaVersion{12, 4});
  const auto ranges = device_target_ranges(tables, verdicts, {9, 0});
  ASSERT_GE(ranges.size(), 2u);
  // CUDA 13 needs a newer driver, so the newest range starts at 12.9.
  EXPECT_EQ(ranges[0].newest.version.str(), "12.9");
  EXPECT_EQ(ranges[0].target, DeviceTarget::sass);
  EXPECT_EQ(ranges[0].oldest.version.str(), "11.8");
  EXPECT_EQ(ranges[1].newest.version.str(), "11.7");
  EXPECT_EQ(ranges[1].target, DeviceTarget::ptx_only);
  for (std::size_t i = 1; i < ranges.size(); ++i) EXPECT_NE(ranges[i].target, ranges[i - 1].target);
  for (const auto& range : ranges) EXPECT_NE(range.newest.support, ToolkitSupport::needs_newer_driver);
}

TEST(CudaCompatibility, TargetRangesAgreeWithTheSourceTable) {
  const auto tables = CudaCompatibilityTables::load();
  const auto source = read_tsv("cuda/cuda_sdk_supported_compute_capability.tsv");
  for (const auto& row : source.rows) {
    // "11.1-11.4" covers 11.1 .. 11.4; only exact max values are compared.
    const auto dash = row[0].find('-');
    const auto first = CudaVersion::parse(row[0].substr(0, dash));
    const auto last = CudaVersion::parse(dash == std::string::npos ? row[0] : row[0].substr(dash + 1));
    const auto min_cc = ComputeCapability::parse(row[1]);
    const auto max_cc = ComputeCapability::parse(row[2]);
    if (!first || !last || !min_cc || !max_cc) continue;  // "5.x" style bounds
    for (const auto& range : tables.targets) {
      if (range.version < *first || range.version > *last) continue;
      EXPECT_EQ(range.min_cc, *min_cc) << range.version.str() << " " << testing::where(source, row);
      EXPECT_EQ(range.max_cc, *max_cc) << range.version.str() << " " << testing::where(source, row);
    }
  }
  // Every toolkit the driver table knows has a target range.
  for (const auto& toolkit : tables.toolkits) {
    EXPECT_NE(tables.targets_of(toolkit.version), nullptr) << toolkit.version.str();
  }
}

TEST(CudaCompatibility, ArchitectureNamesMatchNvidias) {
  const auto tables = CudaCompatibilityTables::load();
  const auto source = read_tsv("cuda/compute_capability.tsv");
  for (const auto& row : source.rows) {
    const auto capability = ComputeCapability::parse(row[0]);
    if (!capability) continue;  // "1.x"
    const auto* info = tables.architecture(*capability);
    ASSERT_NE(info, nullptr) << row[0];
    std::string expected = row[1];
    expected = expected.substr(0, expected.find_first_of("*("));
    while (!expected.empty() && expected.back() == ' ') expected.pop_back();
    if (expected.empty()) continue;  // 11.0: the source names no architecture
    EXPECT_EQ(info->architecture, expected) << row[0];
  }
  EXPECT_EQ(tables.architecture({9, 0})->architecture, "Hopper");
  EXPECT_EQ(tables.architecture({8, 6})->architecture, "Ampere");
}

}  // namespace
}  // namespace gpuenv::system
