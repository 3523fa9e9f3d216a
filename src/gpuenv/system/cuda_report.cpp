#include "gpuenv/system/cuda_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <utility>

namespace gpuenv::system {
namespace {

constexpr std::array<std::pair<DetectionStatus, std::string_view>, 10> status_names = {{
    {DetectionStatus::ok, "ok"},
    {DetectionStatus::no_device, "no_device"},
    {DetectionStatus::no_library, "no_library"},
    {DetectionStatus::library_unusable, "library_unusable"},
    {DetectionStatus::stub_library, "stub_library"},
    {DetectionStatus::init_failed, "init_failed"},
    {DetectionStatus::query_failed, "query_failed"},
    {DetectionStatus::timed_out, "timed_out"},
    {DetectionStatus::crashed, "crashed"},
    {DetectionStatus::probe_failed, "probe_failed"},
}};

std::optional<int> parse_int(std::string_view text) {
  int value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return value;
}

}  // namespace

std::string ComputeCapability::str() const { return fmt::format("{}.{}", major, minor); }

std::string ComputeCapability::sm() const { return fmt::format("sm_{}{}", major, minor); }

std::optional<ComputeCapability> ComputeCapability::parse(std::string_view text) {
  if (!text.empty() && (text.back() == 'a' || text.back() == 'f')) text.remove_suffix(1);
  const auto dot = text.find('.');
  if (dot == std::string_view::npos) return std::nullopt;
  const auto major = parse_int(text.substr(0, dot));
  const auto minor = parse_int(text.substr(dot + 1));
  if (!major || !minor || *major < 0 || *minor < 0) return std::nullopt;
  return ComputeCapability{*major, *minor};
}

std::string_view to_string(DetectionStatus status) {
  for (const auto& [value, name] : status_names) {
    if (value == status) return name;
  }
  return "probe_failed";
}

std::optional<DetectionStatus> detection_status_from_string(std::string_view text) {
  for (const auto& [value, name] : status_names) {
    if (name == text) return value;
  }
  return std::nullopt;
}

std::string_view to_string(DetectionSource source) {
  return source == DetectionSource::nvml ? "nvml" : "libcuda";
}

std::optional<DetectionSource> detection_source_from_string(std::string_view text) {
  if (text == "libcuda") return DetectionSource::libcuda;
  if (text == "nvml") return DetectionSource::nvml;
  return std::nullopt;
}

bool driver_usable(const CudaReport& report) {
  return (report.status == DetectionStatus::ok || report.status == DetectionStatus::no_device ||
          report.status == DetectionStatus::query_failed) &&
         report.driver_cuda_version.has_value() && *report.driver_cuda_version > 0;
}

std::optional<ComputeCapability> lowest_compute_capability(const CudaReport& report) {
  if (report.status != DetectionStatus::ok || report.devices.empty()) return std::nullopt;
  const auto lowest = std::min_element(
      report.devices.begin(), report.devices.end(),
      [](const CudaDevice& a, const CudaDevice& b) { return a.compute_capability < b.compute_capability; });
  if (lowest->compute_capability.major <= 0) return std::nullopt;
  return lowest->compute_capability;
}

std::string format_cuda_version(int version) {
  return fmt::format("{}.{}", version / 1000, (version % 1000) / 10);
}

std::string format_gpu_uuid(const unsigned char (&bytes)[16]) {
  std::string hex;
  for (std::size_t i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) hex += '-';
    hex += fmt::format("{:02x}", bytes[i]);
  }
  return "GPU-" + hex;
}

}  // namespace gpuenv::system
