// Will this device code run on that GPU with that driver? The rules the CUDA
// runtime applies when it loads a fatbin, applied ahead of time:
// - SASS for sm_XY runs on a GPU of the same major with a minor >= Y;
//   arch-specific sm_XYa only on exactly X.Y; family sm_XYf like sm_XY.
// - Otherwise PTX for compute_XY is compiled by the driver (JIT) on a GPU of
//   compute capability >= X.Y (compute_XYa: exactly X.Y; compute_XYf: same
//   major, minor >= Y), if the driver knows the PTX ISA version.
// - Otherwise: "no kernel image is available for execution on the device".
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuenv/cuda_binary/listing_summary.hpp"

namespace gpuenv::cuda_binary {

struct CudaRelease {
  int major = 0;
  int minor = 0;
  static CudaRelease from_driver_api(int version) { return {version / 1000, (version % 1000) / 10}; }
  std::string str() const { return std::to_string(major) + "." + std::to_string(minor); }
  friend auto operator<=>(const CudaRelease&, const CudaRelease&) = default;
};

// PTX ISA version -> the first CUDA release whose driver compiles it
// (metadata/ptx_isa_versions.tsv).
class PtxIsaTable {
 public:
  struct Row {
    PtxIsaVersion isa;
    CudaRelease first_cuda;
  };
  // Parses the TSV text (comments '#', a header line, then rows); nullopt
  // with `error` set when a row is malformed.
  static std::optional<PtxIsaTable> parse(std::string_view tsv, std::string& error);
  // The first CUDA release that knows `isa`; for a version newer than the
  // table, nullopt (no driver gpuenv knows of does).
  std::optional<CudaRelease> first_cuda_for(PtxIsaVersion isa) const;

 private:
  std::vector<Row> rows_;  // newest first
};

enum class RunVerdict {
  native,         // SASS for this GPU
  ptx_jit,        // only PTX the driver compiles at first load (slow first start)
  ptx_too_new,    // only PTX, and the driver is too old for its PTX ISA version
  no_kernel_image,  // nothing for this GPU
};

std::string_view to_string(RunVerdict verdict);

struct Judgement {
  RunVerdict verdict = RunVerdict::no_kernel_image;
  // The entry that decides: the SASS or PTX target used, or for a failure
  // the closest candidate.
  std::string used_target;  // "sm_90", "compute_90 (PTX ISA 9.0)"
  // What the CUDA runtime will say, for the two failures.
  std::string runtime_error;
  std::string explanation;  // one sentence a user can act on
};

// `gpu` is the device's compute capability (portable variant);
// `driver_cuda` absent means "unknown driver": PTX is then judged on its
// architecture alone.
bool sass_runs_on(const GpuArchitecture& sass, const GpuArchitecture& gpu);
bool ptx_compiles_for(const GpuArchitecture& ptx, const GpuArchitecture& gpu);

Judgement judge(const ListingSummary& code, const GpuArchitecture& gpu, const std::optional<CudaRelease>& driver_cuda,
                const PtxIsaTable& ptx_isa_table);

}  // namespace gpuenv::cuda_binary
