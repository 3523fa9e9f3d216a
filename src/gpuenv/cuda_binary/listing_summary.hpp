// What a listing comes to for a reader: the distinct machine-code and PTX
// targets, as `gpuenv inspect` prints them and `gpuenv doctor` judges them.
#pragma once

#include <map>
#include <vector>

#include "gpuenv/cuda_binary/device_code.hpp"

namespace gpuenv::cuda_binary {

struct PtxTarget {
  GpuArchitecture arch;
  PtxIsaVersion isa;
  friend auto operator<=>(const PtxTarget&, const PtxTarget&) = default;
  friend bool operator==(const PtxTarget&, const PtxTarget&) = default;
};

struct ListingSummary {
  std::vector<GpuArchitecture> sass;  // sorted, distinct
  std::vector<PtxTarget> ptx;         // sorted, distinct
  std::vector<GpuArchitecture> lto_ir;
  std::map<Compression, std::size_t> entries_by_compression;
  std::size_t unregistered_entries = 0;  // see DeviceCode::registered
  std::size_t empty_modules = 0;         // cubins defining nothing (DeviceCode::empty_module): not in `sass`
  std::uint64_t stored_bytes = 0;
  std::uint64_t uncompressed_bytes = 0;

  bool has_device_code() const { return !sass.empty() || !ptx.empty(); }
};

ListingSummary summarize(const std::vector<DeviceCode>& entries);

}  // namespace gpuenv::cuda_binary
