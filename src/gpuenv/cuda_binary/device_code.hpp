// What a CUDA binary carries for which GPUs: value types shared by the
// reader, `gpuenv inspect` and `gpuenv doctor`. No I/O here.
#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gpuenv::cuda_binary {

// How a piece of device code may be used beyond the exact architecture it
// was built for (CUDA 12.9+ naming: sm_90a, sm_100f).
enum class ArchVariant {
  portable,       // sm_80: runs on its major with an equal or higher minor
  arch_specific,  // sm_90a: only on exactly this architecture
  family,         // sm_100f: on this architecture's family
};

// A GPU architecture as the compiler names it: 90 + arch_specific = sm_90a.
struct GpuArchitecture {
  int number = 0;  // major * 10 + minor (sm_86 -> 86, sm_100 -> 100)
  ArchVariant variant = ArchVariant::portable;

  int major() const { return number / 10; }
  int minor() const { return number % 10; }
  // "sm_90a" (machine code) or "compute_90a" (PTX).
  std::string sm_name() const;
  std::string compute_name() const;

  friend bool operator==(const GpuArchitecture&, const GpuArchitecture&) = default;
  friend auto operator<=>(const GpuArchitecture&, const GpuArchitecture&) = default;
};

// "sm_86", "86", "8.6", "sm_90a", "compute_100f" -> the architecture, or nullopt.
std::optional<GpuArchitecture> parse_gpu_architecture(std::string_view text);

enum class CodeKind {
  sass,    // a cubin: machine code for one architecture
  ptx,     // PTX text the driver compiles at load time (JIT)
  lto_ir,  // NVVM IR for link-time optimisation (not loadable by the driver)
  unknown,
};

enum class Compression { none, zstd, lz4, unknown };

struct PtxIsaVersion {
  int major = 0;
  int minor = 0;
  friend auto operator<=>(const PtxIsaVersion&, const PtxIsaVersion&) = default;
};

// One entry of a fatbin, or a standalone cubin / PTX file.
struct DeviceCode {
  CodeKind kind = CodeKind::unknown;
  GpuArchitecture arch;
  std::optional<PtxIsaVersion> ptx_isa;  // PTX entries only
  Compression compression = Compression::none;
  std::uint64_t stored_size = 0;        // bytes in the file (compressed when compressed)
  std::uint64_t uncompressed_size = 0;  // bytes after decompression
  std::uint64_t payload_offset = 0;     // in the file (archive members included)
  std::uint64_t container_offset = 0;   // the fatbin container holding it (0 for standalone files)
  std::uint64_t container_size = 0;
  // Where it was found: ".nv_fatbin", "__nv_relfatbin", "kernels.o(__nv_relfatbin)", ".ldata".
  std::string location;
  // In a section the CUDA runtime registers when the file loads: .nv_fatbin,
  // and __nv_relfatbin of object files and archives (in a linked library it
  // holds the relocatable code nvlink consumed). What cuobjdump lists. False
  // for fatbins found by scanning data sections, which a library loads
  // itself (cuFFT keeps thousands in .ldata).
  bool registered = true;
  // A cubin that defines no kernel, device function or device variable
  // (only notes and tables: what nvcc leaves in a library without device
  // code of its own, as NVIDIA's libcufftw): nothing of it is ever loaded,
  // so it says nothing about which GPUs the file runs on. Known for
  // uncompressed cubins (fatbin entries and standalone files); false otherwise.
  bool empty_module = false;
};

enum class BinaryFormat {
  elf_shared_library,
  elf_executable,
  elf_object,
  static_archive,
  fatbin,
  cubin,
  ptx,
};

struct BinaryListing {
  std::string path;
  BinaryFormat format = BinaryFormat::elf_shared_library;
  std::vector<DeviceCode> entries;
  std::size_t container_count = 0;
};

enum class ReadErrorKind {
  unreadable,    // cannot open or map: permissions, not a regular file
  not_a_binary,  // no format gpuenv reads (not ELF, ar, fatbin, cubin or PTX)
  unsupported,   // a format variant gpuenv refuses (32-bit ELF, thin archive)
  malformed,     // truncated or inconsistent structures
  too_large,     // a limit was hit (entries, decompressed size)
};

struct ReadError {
  ReadErrorKind kind = ReadErrorKind::malformed;
  std::string path;
  std::string message;  // names the file and the place, says what to do
};

std::string to_string(CodeKind kind);
std::string to_string(Compression compression);
std::string to_string(BinaryFormat format);
std::string to_string(const PtxIsaVersion& version);
std::string to_string(ReadErrorKind kind);

// The name cuobjdump and the compiler use for the entry's target:
// "sm_86" for machine code, "compute_86" for PTX.
std::string target_name(const DeviceCode& code);

}  // namespace gpuenv::cuda_binary
