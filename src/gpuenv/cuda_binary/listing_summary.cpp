#include "gpuenv/cuda_binary/listing_summary.hpp"

#include <algorithm>

namespace gpuenv::cuda_binary {
namespace {

template <typename T>
void sort_distinct(std::vector<T>& values) {
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
}

}  // namespace

ListingSummary summarize(const std::vector<DeviceCode>& entries) {
  ListingSummary summary;
  for (const auto& entry : entries) {
    switch (entry.kind) {
      case CodeKind::sass:
        // Never loaded, so no claim about the GPUs the file runs on.
        if (entry.empty_module) ++summary.empty_modules;
        else summary.sass.push_back(entry.arch);
        break;
      case CodeKind::ptx: summary.ptx.push_back({entry.arch, entry.ptx_isa.value_or(PtxIsaVersion{})}); break;
      case CodeKind::lto_ir: summary.lto_ir.push_back(entry.arch); break;
      case CodeKind::unknown: break;
    }
    ++summary.entries_by_compression[entry.compression];
    if (!entry.registered) ++summary.unregistered_entries;
    summary.stored_bytes += entry.stored_size;
    summary.uncompressed_bytes += entry.uncompressed_size;
  }
  sort_distinct(summary.sass);
  sort_distinct(summary.ptx);
  sort_distinct(summary.lto_ir);
  return summary;
}

}  // namespace gpuenv::cuda_binary
