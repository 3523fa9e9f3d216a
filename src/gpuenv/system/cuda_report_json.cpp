#include "gpuenv/system/cuda_report_json.hpp"

#include <cmath>

#include "gpuenv/system/cuda_diagnosis.hpp"
#include "gpuenv/util/subprocess.hpp"

namespace gpuenv::system {
namespace {

using json = nlohmann::ordered_json;

json string_or_null(const std::string& text) { return text.empty() ? json(nullptr) : json(text); }

std::string string_or_empty(const json& object, const char* key) {
  const auto found = object.find(key);
  if (found == object.end() || !found->is_string()) return {};
  return found->get<std::string>();
}

json device_to_json(const CudaDevice& device, const CudaCompatibilityTables* tables) {
  json entry = {
      {"index", device.index},
      {"name", device.name},
      {"compute_capability", device.compute_capability.str()},
      {"sm", device.compute_capability.sm()},
      {"memory_bytes", device.memory_bytes},
      {"memory_gib", std::round(static_cast<double>(device.memory_bytes) / (1024.0 * 1024 * 1024) * 10) / 10},
      {"uuid", string_or_null(device.uuid)},
      {"pci_bus_id", string_or_null(device.pci_bus_id)},
  };
  if (tables != nullptr) {
    const auto* info = tables->architecture(device.compute_capability);
    entry["architecture"] = info != nullptr ? json(info->architecture) : json(nullptr);
  }
  return entry;
}

std::optional<CudaDevice> device_from_json(const json& entry) {
  if (!entry.is_object()) return std::nullopt;
  CudaDevice device;
  device.index = entry.value("index", -1);
  device.name = string_or_empty(entry, "name");
  const auto capability = ComputeCapability::parse(string_or_empty(entry, "compute_capability"));
  if (device.index < 0 || !capability) return std::nullopt;
  device.compute_capability = *capability;
  device.memory_bytes = entry.value("memory_bytes", std::uint64_t{0});
  device.uuid = string_or_empty(entry, "uuid");
  device.pci_bus_id = string_or_empty(entry, "pci_bus_id");
  return device;
}

}  // namespace

json report_to_json(const CudaReport& report, const CudaCompatibilityTables* tables) {
  json driver = nullptr;
  if (report.driver_cuda_version || !report.driver_release.empty()) {
    driver = {
        {"release", string_or_null(report.driver_release)},
        {"release_source", string_or_null(report.driver_release_source)},
        {"cuda_version", report.driver_cuda_version ? json(format_cuda_version(*report.driver_cuda_version))
                                                    : json(nullptr)},
        {"cuda_version_number", report.driver_cuda_version ? json(*report.driver_cuda_version) : json(nullptr)},
    };
  }
  json devices = json::array();
  for (const auto& device : report.devices) devices.push_back(device_to_json(device, tables));
  json error = nullptr;
  if (report.error) {
    error = {{"function", report.error->function},
             {"code", report.error->code},
             {"name", driver_error_name(*report.error)}};
  }
  return {
      {"status", to_string(report.status)},
      {"usable", driver_usable(report)},
      {"source", report.source ? json(to_string(*report.source)) : json(nullptr)},
      {"library", string_or_null(report.library_path)},
      {"driver", driver},
      {"devices", devices},
      {"error", error},
      {"failed_call", string_or_null(report.failed_call)},
      {"signal", report.signal != 0 ? json(util::describe_signal(report.signal)) : json(nullptr)},
      {"signal_number", report.signal != 0 ? json(report.signal) : json(nullptr)},
      {"message", string_or_null(report.message)},
      {"remedy", string_or_null(report.remedy)},
      {"searched", report.searched},
      {"notes", report.notes},
      {"probe_ms", std::round(report.probe_ms * 100) / 100},
  };
}

std::optional<CudaReport> report_from_json(const json& json_report) {
  if (!json_report.is_object()) return std::nullopt;
  CudaReport report;
  const auto status = detection_status_from_string(string_or_empty(json_report, "status"));
  if (!status) return std::nullopt;
  report.status = *status;
  report.source = detection_source_from_string(string_or_empty(json_report, "source"));
  report.library_path = string_or_empty(json_report, "library");
  if (const auto driver = json_report.find("driver"); driver != json_report.end() && driver->is_object()) {
    report.driver_release = string_or_empty(*driver, "release");
    report.driver_release_source = string_or_empty(*driver, "release_source");
    if (const auto number = driver->find("cuda_version_number"); number != driver->end() && number->is_number_integer()) {
      report.driver_cuda_version = number->get<int>();
    }
  }
  if (const auto devices = json_report.find("devices"); devices != json_report.end() && devices->is_array()) {
    for (const auto& entry : *devices) {
      auto device = device_from_json(entry);
      if (!device) return std::nullopt;
      report.devices.push_back(std::move(*device));
    }
  }
  if (const auto error = json_report.find("error"); error != json_report.end() && error->is_object()) {
    report.error = DriverCallError{string_or_empty(*error, "function"), error->value("code", 0)};
  }
  report.failed_call = string_or_empty(json_report, "failed_call");
  if (const auto signal = json_report.find("signal_number"); signal != json_report.end() && signal->is_number_integer()) {
    report.signal = signal->get<int>();
  }
  report.message = string_or_empty(json_report, "message");
  report.remedy = string_or_empty(json_report, "remedy");
  for (const char* key : {"searched", "notes"}) {
    const auto list = json_report.find(key);
    if (list == json_report.end() || !list->is_array()) continue;
    auto& target = std::string_view(key) == "searched" ? report.searched : report.notes;
    for (const auto& item : *list) {
      if (item.is_string()) target.push_back(item.get<std::string>());
    }
  }
  if (const auto probe_ms = json_report.find("probe_ms"); probe_ms != json_report.end() && probe_ms->is_number()) {
    report.probe_ms = probe_ms->get<double>();
  }
  return report;
}

}  // namespace gpuenv::system
