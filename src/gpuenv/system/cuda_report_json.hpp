// CudaReport <-> JSON. The same shape is written to the detection cache and
// printed by `gpuenv cuda --json` (docs/json-output.md documents it).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>

#include "gpuenv/system/cuda_compatibility.hpp"
#include "gpuenv/system/cuda_report.hpp"

namespace gpuenv::system {

// `tables`, when given, adds each device's architecture name.
nlohmann::ordered_json report_to_json(const CudaReport& report, const CudaCompatibilityTables* tables = nullptr);

// nullopt when `json` is not a report this gpuenv wrote.
std::optional<CudaReport> report_from_json(const nlohmann::ordered_json& json);

}  // namespace gpuenv::system
