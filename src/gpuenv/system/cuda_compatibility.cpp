#include "gpuenv/system/cuda_compatibility.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

#include "gpuenv/system/metadata.hpp"

namespace gpuenv::system {
namespace {

std::optional<int> parse_int(std::string_view text) {
  int value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

template <typename Value>
Value require(std::optional<Value> value, const MetadataTable& table, std::string_view field) {
  if (!value) {
    throw MetadataError(fmt::format("metadata/{}: cannot read '{}'", table.name, field));
  }
  return *value;
}

}  // namespace

std::optional<DriverRelease> DriverRelease::parse(std::string_view text) {
  DriverRelease release;
  while (true) {
    const auto dot = text.find('.');
    const auto part = parse_int(text.substr(0, dot));
    if (!part || *part < 0) return std::nullopt;
    release.parts.push_back(*part);
    if (dot == std::string_view::npos) break;
    text.remove_prefix(dot + 1);
  }
  return release;
}

std::string DriverRelease::str() const {
  std::string text;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) text += '.';
    // Releases print their later parts with two digits ("580.65.06").
    text += i == 0 ? std::to_string(parts[i]) : fmt::format("{:02}", parts[i]);
  }
  return text;
}

std::strong_ordering operator<=>(const DriverRelease& a, const DriverRelease& b) {
  const auto length = std::max(a.parts.size(), b.parts.size());
  for (std::size_t i = 0; i < length; ++i) {
    const int left = i < a.parts.size() ? a.parts[i] : 0;
    const int right = i < b.parts.size() ? b.parts[i] : 0;
    if (left != right) return left <=> right;
  }
  return std::strong_ordering::equal;
}

std::optional<CudaVersion> CudaVersion::parse(std::string_view text) {
  const auto dot = text.find('.');
  if (dot == std::string_view::npos) return std::nullopt;
  const auto major = parse_int(text.substr(0, dot));
  auto rest = text.substr(dot + 1);
  rest = rest.substr(0, rest.find('.'));
  const auto minor = parse_int(rest);
  if (!major || !minor) return std::nullopt;
  return CudaVersion{*major, *minor};
}

std::string CudaVersion::str() const { return fmt::format("{}.{}", major, minor); }

CudaCompatibilityTables CudaCompatibilityTables::load() {
  CudaCompatibilityTables tables;

  const auto drivers = load_metadata_table("cuda_toolkit_drivers.tsv");
  const auto version_column = drivers.column("cuda_version");
  const auto linux_column = drivers.column("linux_min_driver");
  for (const auto& row : drivers.rows) {
    const auto version = require(CudaVersion::parse(row[version_column]), drivers, row[version_column]);
    const auto driver = require(DriverRelease::parse(row[linux_column]), drivers, row[linux_column]);
    auto existing = std::find_if(tables.toolkits.begin(), tables.toolkits.end(),
                                 [&](const auto& known) { return known.version == version; });
    // Several releases (GA, updates) per version: the first release's
    // driver, the lowest, is the version's minimum.
    if (existing == tables.toolkits.end()) tables.toolkits.push_back({version, driver});
    else existing->linux_min_driver = std::min(existing->linux_min_driver, driver);
  }
  std::sort(tables.toolkits.begin(), tables.toolkits.end(),
            [](const auto& a, const auto& b) { return a.version > b.version; });

  const auto floors = load_metadata_table("cuda_minor_version_compatibility.tsv");
  const auto major_column = floors.column("cuda_major");
  const auto floor_column = floors.column("linux_floor");
  for (const auto& row : floors.rows) {
    tables.minor_version_floors[require(parse_int(row[major_column]), floors, row[major_column])] =
        require(DriverRelease::parse(row[floor_column]), floors, row[floor_column]);
  }

  const auto targets = load_metadata_table("cuda_toolkit_targets.tsv");
  const auto target_version = targets.column("cuda_version");
  const auto min_column = targets.column("min_cc");
  const auto max_column = targets.column("max_cc");
  for (const auto& row : targets.rows) {
    tables.targets.push_back({require(CudaVersion::parse(row[target_version]), targets, row[target_version]),
                              require(ComputeCapability::parse(row[min_column]), targets, row[min_column]),
                              require(ComputeCapability::parse(row[max_column]), targets, row[max_column])});
  }
  std::sort(tables.targets.begin(), tables.targets.end(),
            [](const auto& a, const auto& b) { return a.version > b.version; });

  const auto architectures = load_metadata_table("compute_capabilities.tsv");
  const auto cc_column = architectures.column("compute_capability");
  const auto name_column = architectures.column("architecture");
  const auto examples_column = architectures.column("example_gpus");
  for (const auto& row : architectures.rows) {
    tables.architectures.push_back(
        {require(ComputeCapability::parse(row[cc_column]), architectures, row[cc_column]),
         std::string(row[name_column]), std::string(row[examples_column])});
  }
  return tables;
}

const ArchitectureInfo* CudaCompatibilityTables::architecture(ComputeCapability capability) const {
  for (const auto& info : architectures) {
    if (info.compute_capability == capability) return &info;
  }
  return nullptr;
}

const ToolkitTargets* CudaCompatibilityTables::targets_of(CudaVersion toolkit) const {
  for (const auto& range : targets) {
    if (range.version == toolkit) return &range;
  }
  return nullptr;
}

std::string_view to_string(ToolkitSupport support) {
  switch (support) {
    case ToolkitSupport::native: return "native";
    case ToolkitSupport::minor_version_compatibility: return "minor_version_compatibility";
    case ToolkitSupport::needs_newer_driver: return "needs_newer_driver";
  }
  return "needs_newer_driver";
}

std::vector<ToolkitVerdict> judge_toolkits(const CudaCompatibilityTables& tables,
                                           const std::optional<DriverRelease>& release,
                                           const std::optional<CudaVersion>& driver_cuda) {
  std::vector<ToolkitVerdict> verdicts;
  for (const auto& toolkit : tables.toolkits) {
    ToolkitVerdict verdict{toolkit.version, ToolkitSupport::needs_newer_driver, toolkit.linux_min_driver};
    const auto floor = tables.minor_version_floors.find(toolkit.version.major);
    const bool has_floor = floor != tables.minor_version_floors.end();
    if (release) {
      if (*release >= toolkit.linux_min_driver) {
        verdict.support = ToolkitSupport::native;
      } else if (has_floor && *release >= floor->second) {
        verdict.support = ToolkitSupport::minor_version_compatibility;
      }
    } else if (driver_cuda) {
      // Without the release, the driver's CUDA version is all we know: it
      // runs its own version and older natively, and newer minors of its
      // own major through minor-version compatibility.
      if (toolkit.version <= *driver_cuda) {
        verdict.support = ToolkitSupport::native;
      } else if (has_floor && toolkit.version.major == driver_cuda->major) {
        verdict.support = ToolkitSupport::minor_version_compatibility;
      }
    }
    verdicts.push_back(verdict);
  }
  return verdicts;
}

std::string_view to_string(DeviceTarget target) {
  switch (target) {
    case DeviceTarget::sass: return "sass";
    case DeviceTarget::ptx_only: return "ptx_only";
    case DeviceTarget::unsupported: return "unsupported";
    case DeviceTarget::unknown: return "unknown";
  }
  return "unknown";
}

DeviceTarget device_target(const CudaCompatibilityTables& tables, CudaVersion toolkit,
                           ComputeCapability capability) {
  const ToolkitTargets* range = tables.targets_of(toolkit);
  if (range == nullptr) return DeviceTarget::unknown;
  if (capability < range->min_cc) return DeviceTarget::unsupported;
  if (capability > range->max_cc) return DeviceTarget::ptx_only;
  return DeviceTarget::sass;
}

namespace {

// Appends `verdict` to the last range when `same_answer` says it belongs there.
template <typename SameAnswer>
void extend_ranges(std::vector<ToolkitRange>& ranges, const ToolkitVerdict& verdict, DeviceTarget target,
                   SameAnswer same_answer) {
  if (!ranges.empty() && same_answer(ranges.back())) {
    ranges.back().oldest = verdict;
  } else {
    ranges.push_back({verdict, verdict, target});
  }
}

}  // namespace

std::vector<ToolkitRange> toolkit_support_ranges(const std::vector<ToolkitVerdict>& verdicts) {
  std::vector<ToolkitRange> ranges;
  for (const auto& verdict : verdicts) {
    extend_ranges(ranges, verdict, DeviceTarget::unknown, [&](const ToolkitRange& last) {
      const auto previous_major = last.oldest.version.major;
      const auto major = verdict.version.major;
      const bool same_family = previous_major == major || (previous_major < 11 && major < 11);
      return last.newest.support == verdict.support && same_family;
    });
  }
  return ranges;
}

std::vector<ToolkitRange> device_target_ranges(const CudaCompatibilityTables& tables,
                                               const std::vector<ToolkitVerdict>& verdicts,
                                               ComputeCapability capability) {
  std::vector<ToolkitRange> ranges;
  for (const auto& verdict : verdicts) {
    if (verdict.support == ToolkitSupport::needs_newer_driver) continue;
    const auto target = device_target(tables, verdict.version, capability);
    extend_ranges(ranges, verdict, target, [&](const ToolkitRange& last) { return last.target == target; });
  }
  return ranges;
}

}  // namespace gpuenv::system
