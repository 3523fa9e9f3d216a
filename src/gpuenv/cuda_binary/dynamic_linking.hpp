// What an ELF shared library or executable asks the dynamic loader for: its
// DT_NEEDED sonames ("libcudart.so.13"), its own DT_SONAME and its library
// search paths (DT_RPATH, DT_RUNPATH). `gpuenv doctor` reads them to learn
// which CUDA runtime an environment needs; `gpuenv build` to relocate and
// check what a package links.
// Headers only: the section table, the dynamic section and its strings.
#pragma once

#include <expected>
#include <string>
#include <vector>

#include "gpuenv/cuda_binary/device_code.hpp"

namespace gpuenv::cuda_binary {

struct DynamicLinking {
  std::string soname;               // empty when the file names none
  std::vector<std::string> needed;  // in the order the file lists them
  std::string rpath;                // DT_RPATH as written (colon-separated); empty when absent
  std::string runpath;              // DT_RUNPATH likewise
  bool dynamic = false;             // the file has a dynamic section (not static, not an object file)
};

// A 64-bit little-endian ELF file's dynamic linking entries; empty for a
// static executable or an object file. Not ELF: ReadErrorKind::not_a_binary.
std::expected<DynamicLinking, ReadError> read_dynamic_linking(const std::string& path);

}  // namespace gpuenv::cuda_binary
