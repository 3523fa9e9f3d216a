// The CUDA check after a build: every new ELF file of the package (shared
// library, executable, object, static archive) that holds device code must
// hold, for each architecture the variant asked for (cuda_architectures.hpp),
// SASS (a cubin for exactly that architecture) or PTX (for exactly that
// one), and PTX for the highest, so GPUs newer than the list can still JIT
// it. Only the code the CUDA runtime registers counts (what cuobjdump
// lists); LTO IR does not. A file the fatbin reader cannot read fails the
// check too: unverified device code would ship silently. A recipe opts out
// with `extra: {gpuenv: {cuda_check: false}}`.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "gpuenv/builder/new_prefix_files.hpp"
#include "gpuenv/cuda_binary/device_code.hpp"
#include "gpuenv/recipe/value.hpp"

namespace gpuenv::build {

struct DeviceCodeGap {
  std::string file;               // as in the package: lib/libstencil.so
  std::vector<int> without_code;  // asked for, with neither SASS nor PTX
  std::optional<int> without_ptx;  // the highest asked for, when it has no PTX
  // "lib/libx.so lacks sm_90 (neither SASS nor PTX) and PTX for compute_90 (has sm_75, sm_80)"
  std::string describe() const;
  std::vector<std::string> present;  // what the file holds, as target names
};

// What `entries` (one file's device code) lack of `architectures`
// (sorted); nullopt when nothing is missing or the file holds no device code.
std::optional<DeviceCodeGap> device_code_gap(const std::string& file,
                                             const std::vector<cuda_binary::DeviceCode>& entries,
                                             const std::vector<int>& architectures);

struct DeviceCodeCheck {
  std::size_t files_with_device_code = 0;
  std::vector<DeviceCodeGap> gaps;
  std::vector<std::string> unreadable;  // "lib/x.so: why"
  bool passed() const { return gaps.empty() && unreadable.empty(); }
  // One line per file that fails, for the build error.
  std::string report() const;
};

// Reads every regular file of `files` with the fatbin reader.
DeviceCodeCheck check_device_code(const std::vector<NewPrefixFile>& files, const std::vector<int>& architectures);

// False when the recipe's `extra` says gpuenv.cuda_check: false.
bool cuda_check_wanted(const recipe::Value& extra);

}  // namespace gpuenv::build
