// A small channel written by the tests that mirrors how conda-forge ships
// CUDA software: one package (`gpukit 1.0`) built for CUDA 11.8, 12.6 and
// 13.0 with the same version and build number and hash-like build strings,
// each build requiring `__cuda >=<major or major.minor>` and pinning
// `cuda-version` to its CUDA major; the `cuda-version` metapackages
// constrain `__cuda >=<major>` as conda-forge's do. `kernels` is gated on
// the GPU instead: 2.0 needs `__cuda_arch >=8.0`, 1.0 `__cuda_arch >=7.0`.
//
// The timestamps are chosen so that the CUDA 11.8 build is the newest and
// the build strings so that comparing them would not pick the right build
// either: only the builds' dependencies can decide.
#pragma once

#include <filesystem>
#include <string>

#include "support/temp_directory.hpp"

namespace gpuenv::testing {

inline void write_cuda_test_channel(const std::filesystem::path& channel) {
  write_text_file(channel / "linux-64/repodata.json", R"({
  "info": {"subdir": "linux-64"},
  "packages": {},
  "packages.conda": {
    "gpukit-1.0-h7f3a9c1_0.conda": {
      "name": "gpukit", "version": "1.0", "build": "h7f3a9c1_0", "build_number": 0,
      "depends": ["__cuda >=13", "cuda-version >=13.0,<14"], "license": "MIT",
      "sha256": "1300000000000000000000000000000000000000000000000000000000000013",
      "size": 1300, "subdir": "linux-64", "timestamp": 1750000000000},
    "gpukit-1.0-hb2c41e0_0.conda": {
      "name": "gpukit", "version": "1.0", "build": "hb2c41e0_0", "build_number": 0,
      "depends": ["__cuda >=12", "cuda-version >=12.6,<13"], "license": "MIT",
      "sha256": "1260000000000000000000000000000000000000000000000000000000000126",
      "size": 1260, "subdir": "linux-64", "timestamp": 1740000000000},
    "gpukit-1.0-hf0010aa_0.conda": {
      "name": "gpukit", "version": "1.0", "build": "hf0010aa_0", "build_number": 0,
      "depends": ["__cuda >=11.8", "cuda-version >=11.8,<12"], "license": "MIT",
      "sha256": "1180000000000000000000000000000000000000000000000000000000000118",
      "size": 1180, "subdir": "linux-64", "timestamp": 1760000000000},
    "kernels-2.0-sm80_0.conda": {
      "name": "kernels", "version": "2.0", "build": "sm80_0", "build_number": 0,
      "depends": ["__cuda >=12", "__cuda_arch >=8.0"], "subdir": "linux-64", "timestamp": 1750000000000},
    "kernels-1.0-sm70_0.conda": {
      "name": "kernels", "version": "1.0", "build": "sm70_0", "build_number": 0,
      "depends": ["__cuda >=12", "__cuda_arch >=7.0"], "subdir": "linux-64", "timestamp": 1740000000000}
  },
  "removed": [],
  "repodata_version": 1
})");
  write_text_file(channel / "noarch/repodata.json", R"({
  "info": {"subdir": "noarch"},
  "packages": {},
  "packages.conda": {
    "cuda-version-11.8-h70ddcb2_3.conda": {
      "name": "cuda-version", "version": "11.8", "build": "h70ddcb2_3", "build_number": 3, "noarch": "generic",
      "depends": [], "constrains": ["__cuda >=11", "cudatoolkit 11.8|11.8.*"], "subdir": "noarch"},
    "cuda-version-12.6-h7480c83_3.conda": {
      "name": "cuda-version", "version": "12.6", "build": "h7480c83_3", "build_number": 3, "noarch": "generic",
      "depends": [], "constrains": ["__cuda >=12", "cudatoolkit 12.6|12.6.*"], "subdir": "noarch"},
    "cuda-version-13.0-hbd52c62_3.conda": {
      "name": "cuda-version", "version": "13.0", "build": "hbd52c62_3", "build_number": 3, "noarch": "generic",
      "depends": [], "constrains": ["__cuda >=13", "cudatoolkit 13.0|13.0.*"], "subdir": "noarch"}
  },
  "removed": [],
  "repodata_version": 1
})");
}

}  // namespace gpuenv::testing
