// A channel written by the tests that shows CEP 43 on the GPU: one noarch
// package (`stencil 1.0`) serving CPU and GPU machines. It always depends
// on the CPU implementation (the fallback) and, only when the machine has
// CUDA 12 or newer, on the CUDA runtime and the CUDA kernels; a third
// condition is decided by the solution (`numpy` only with python >=3.10).
// The records are CEP 48 `v3` records, with a channel message.
#pragma once

#include <filesystem>

#include "support/temp_directory.hpp"

namespace gpuenv::testing {

inline void write_conditional_test_channel(const std::filesystem::path& channel) {
  write_text_file(channel / "linux-64/repodata.json", R"({"info": {"subdir": "linux-64"}, "packages": {}})");
  write_text_file(channel / "noarch/repodata.json", R"({
  "repodata_version": 1,
  "info": {"subdir": "noarch", "repodata_revisions": {"v3": {
    "message": "This channel publishes conditional dependencies (CEP 43) as v3 records.",
    "n_packages": 7, "oldest": 1773851561010, "newest": 1773851561010}}},
  "packages": {},
  "packages.conda": {},
  "v3": {"conda": {
    "stencil-1.0-0": {"name": "stencil", "version": "1.0", "build": "0", "build_number": 0, "noarch": "generic",
      "subdir": "noarch", "indexed_timestamp": 1773851561010,
      "sha256": "5100000000000000000000000000000000000000000000000000000000000051", "size": 100,
      "depends": ["libstencil-cpu", "cuda-cudart[when=\"__cuda>=12\"]",
                  "libstencil-cuda[when=\"__cuda>=12 and __linux\"]", "numpy[when=\"python>=3.10\"]"]},
    "libstencil-cpu-1.0-0": {"name": "libstencil-cpu", "version": "1.0", "build": "0", "build_number": 0,
      "noarch": "generic", "subdir": "noarch", "depends": [],
      "sha256": "5200000000000000000000000000000000000000000000000000000000000052", "size": 100},
    "libstencil-cuda-1.0-0": {"name": "libstencil-cuda", "version": "1.0", "build": "0", "build_number": 0,
      "noarch": "generic", "subdir": "noarch", "depends": ["__cuda >=12", "cuda-cudart >=12"],
      "sha256": "5300000000000000000000000000000000000000000000000000000000000053", "size": 100},
    "cuda-cudart-12.4.127-0": {"name": "cuda-cudart", "version": "12.4.127", "build": "0", "build_number": 0,
      "noarch": "generic", "subdir": "noarch", "depends": ["__cuda >=12"],
      "sha256": "5400000000000000000000000000000000000000000000000000000000000054", "size": 100},
    "python-3.9.0-0": {"name": "python", "version": "3.9.0", "build": "0", "build_number": 0,
      "subdir": "noarch", "depends": [],
      "sha256": "5500000000000000000000000000000000000000000000000000000000000055", "size": 100},
    "python-3.12.0-0": {"name": "python", "version": "3.12.0", "build": "0", "build_number": 0,
      "subdir": "noarch", "depends": [],
      "sha256": "5600000000000000000000000000000000000000000000000000000000000056", "size": 100},
    "numpy-2.0-0": {"name": "numpy", "version": "2.0", "build": "0", "build_number": 0,
      "subdir": "noarch", "depends": [],
      "sha256": "5700000000000000000000000000000000000000000000000000000000000057", "size": 100}
  }}
})");
}

}  // namespace gpuenv::testing
