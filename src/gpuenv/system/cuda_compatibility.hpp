// Which CUDA toolkits a driver can run, and which GPUs each toolkit can
// still build code for, from NVIDIA's tables in metadata/.
#pragma once

#include <compare>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuenv/system/cuda_report.hpp"

namespace gpuenv::system {

// An NVIDIA driver release ("580.159.04"), compared part by part with
// missing parts as 0 ("580" is the start of the 580 branch).
struct DriverRelease {
  std::vector<int> parts;

  static std::optional<DriverRelease> parse(std::string_view text);
  std::string str() const;
  friend std::strong_ordering operator<=>(const DriverRelease& a, const DriverRelease& b);
  friend bool operator==(const DriverRelease& a, const DriverRelease& b) { return (a <=> b) == 0; }
};

// A CUDA version as major.minor ("12.4"; from cuDriverGetVersion, 12040).
struct CudaVersion {
  int major = 0;
  int minor = 0;

  static std::optional<CudaVersion> parse(std::string_view text);
  static CudaVersion from_driver_api(int version) { return {version / 1000, (version % 1000) / 10}; }
  std::string str() const;
  friend auto operator<=>(const CudaVersion&, const CudaVersion&) = default;
};

struct ToolkitDriverRequirement {
  CudaVersion version;
  DriverRelease linux_min_driver;
};

struct ToolkitTargets {
  CudaVersion version;
  ComputeCapability min_cc;
  ComputeCapability max_cc;
};

struct ArchitectureInfo {
  ComputeCapability compute_capability;
  std::string architecture;
  std::string example_gpus;
};

// NVIDIA's compatibility facts, as shipped in metadata/.
struct CudaCompatibilityTables {
  std::vector<ToolkitDriverRequirement> toolkits;       // newest first, one per major.minor
  std::map<int, DriverRelease> minor_version_floors;    // CUDA major -> Linux driver floor
  std::vector<ToolkitTargets> targets;                  // newest first
  std::vector<ArchitectureInfo> architectures;

  // Reads the embedded tables; throws MetadataError if they are malformed.
  static CudaCompatibilityTables load();

  const ArchitectureInfo* architecture(ComputeCapability capability) const;
  const ToolkitTargets* targets_of(CudaVersion toolkit) const;
};

enum class ToolkitSupport {
  native,                       // the driver meets the toolkit's own minimum
  minor_version_compatibility,  // runs through minor-version compatibility (limited features)
  needs_newer_driver,
};

std::string_view to_string(ToolkitSupport support);

struct ToolkitVerdict {
  CudaVersion version;
  ToolkitSupport support = ToolkitSupport::needs_newer_driver;
  DriverRelease min_driver;  // the toolkit's own minimum (Linux)
};

// For every toolkit in the tables, newest first: can this driver run code
// built with it? Decided from the driver release when known, else from the
// driver's CUDA version alone.
std::vector<ToolkitVerdict> judge_toolkits(const CudaCompatibilityTables& tables,
                                           const std::optional<DriverRelease>& release,
                                           const std::optional<CudaVersion>& driver_cuda);

enum class DeviceTarget {
  sass,         // the toolkit compiles machine code for this GPU
  ptx_only,     // newer than the toolkit knows: runs only PTX the driver compiles
  unsupported,  // older than the toolkit supports: cannot run its code
  unknown,      // the tables do not say
};

std::string_view to_string(DeviceTarget target);

DeviceTarget device_target(const CudaCompatibilityTables& tables, CudaVersion toolkit,
                           ComputeCapability capability);

// Consecutive toolkits (newest first) that share one answer, so a report
// can say "12.0 - 12.9: yes" instead of ten lines.
struct ToolkitRange {
  ToolkitVerdict newest;
  ToolkitVerdict oldest;
  DeviceTarget target = DeviceTarget::unknown;  // device_target_ranges only
};

// `verdicts` (judge_toolkits' order) in ranges of one ToolkitSupport. The
// families with minor-version compatibility (11 and newer) stay apart per
// major version, since what a driver can run differs between them.
std::vector<ToolkitRange> toolkit_support_ranges(const std::vector<ToolkitVerdict>& verdicts);

// The toolkits of `verdicts` this driver can run, in ranges that build the
// same kind of code (DeviceTarget) for a GPU of `capability`.
std::vector<ToolkitRange> device_target_ranges(const CudaCompatibilityTables& tables,
                                               const std::vector<ToolkitVerdict>& verdicts,
                                               ComputeCapability capability);

}  // namespace gpuenv::system
