#include "gpuenv/environment/device_code_check.hpp"

#include <fmt/core.h>
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <system_error>

#include "gpuenv/cuda_binary/reader.hpp"
#include "gpuenv/environment/prefix_files.hpp"

namespace gpuenv::environment {
namespace {

namespace fs = std::filesystem;

// Regular files only: the .so and .so.N links of a library name one file,
// which is judged once under its real name.
bool is_candidate(const fs::path& path) {
  std::error_code error;
  const auto status = fs::symlink_status(path, error);
  if (error || !fs::is_regular_file(status)) return false;
  return path.extension() == ".ptx" || cuda_binary::may_hold_device_code(path.string());
}

// Names a CUDA binary can have: shared libraries ("libfoo.so", "libfoo.so.12",
// Python extension modules), archives, objects, cubins, fatbins, PTX, and
// programs in bin/. The check after an install opens only these, so a
// package of Python sources or headers costs no file opens.
bool may_be_cuda_binary_name(const std::string& relative) {
  const fs::path path(relative);
  const auto name = path.filename().string();
  const auto extension = path.extension().string();
  if (name.find(".so") != std::string::npos) return true;
  for (const auto* known : {".a", ".o", ".cubin", ".fatbin", ".ptx"})
    if (extension == known) return true;
  return path.parent_path() == "bin";
}

DeviceCodeCheck judge_files(const fs::path& prefix, const std::map<std::string, std::string>& files,
                            const std::vector<GpuToCheck>& gpus, const std::optional<cuda_binary::CudaRelease>& driver_cuda,
                            const cuda_binary::PtxIsaTable& ptx_isa_table, const DeviceCodeCheckOptions& options,
                            DeviceCodeCheck check) {
  std::vector<std::string> relative_paths;
  std::vector<std::string> absolute_paths;
  for (const auto& [relative, owner] : files) {
    if (options.names_of_binaries_only && !may_be_cuda_binary_name(relative)) continue;
    const auto absolute = prefix / relative;
    if (!is_candidate(absolute)) continue;
    relative_paths.push_back(relative);
    absolute_paths.push_back(absolute.string());
  }
  check.files_examined = absolute_paths.size();
  const auto listings = cuda_binary::read_device_code(absolute_paths, {}, options.threads);
  for (std::size_t index = 0; index < listings.size(); ++index) {
    const auto& listing = listings[index];
    if (!listing) {
      // A host file gpuenv does not read (a 32-bit helper, say) is no problem of the GPU's.
      if (listing.error().kind != cuda_binary::ReadErrorKind::not_a_binary &&
          listing.error().kind != cuda_binary::ReadErrorKind::unsupported)
        check.problems.push_back(listing.error().message);
      continue;
    }
    auto summary = cuda_binary::summarize(listing->entries);
    if (!summary.has_device_code()) continue;
    LibraryCheck library{relative_paths[index], files.at(relative_paths[index]), std::move(summary), {}};
    for (const auto& gpu : gpus)
      library.judgements.push_back(cuda_binary::judge(library.code, gpu.arch, driver_cuda, ptx_isa_table));
    check.libraries.push_back(std::move(library));
  }
  return check;
}

}  // namespace

std::vector<GpuToCheck> gpus_of(const system::CudaReport& report) {
  std::vector<GpuToCheck> gpus;
  for (const auto& device : report.devices) {
    const auto& capability = device.compute_capability;
    gpus.push_back({fmt::format("GPU {}: {}", device.index, device.name),
                    {capability.major * 10 + capability.minor, cuda_binary::ArchVariant::portable}});
  }
  return gpus;
}

bool DeviceCodeCheck::everything_can_run() const {
  for (const auto& library : libraries)
    for (const auto& judgement : library.judgements)
      if (judgement.verdict != cuda_binary::RunVerdict::native && judgement.verdict != cuda_binary::RunVerdict::ptx_jit)
        return false;
  return true;
}

DeviceCodeCheck check_device_code(const fs::path& prefix, const std::vector<GpuToCheck>& gpus,
                                  const std::optional<cuda_binary::CudaRelease>& driver_cuda,
                                  const cuda_binary::PtxIsaTable& ptx_isa_table, const DeviceCodeCheckOptions& options) {
  DeviceCodeCheck check;
  const auto installed = prefix::read_prefix_records(prefix);
  check.problems = installed.problems;
  const auto files = detail::files_of_prefix(prefix, installed);
  return judge_files(prefix, files, gpus, driver_cuda, ptx_isa_table, options, std::move(check));
}

DeviceCodeCheck check_device_code_of(const fs::path& prefix, const std::vector<prefix::PrefixRecord>& records,
                                     const std::vector<GpuToCheck>& gpus,
                                     const std::optional<cuda_binary::CudaRelease>& driver_cuda,
                                     const cuda_binary::PtxIsaTable& ptx_isa_table, const DeviceCodeCheckOptions& options) {
  return judge_files(prefix, detail::files_of_records(records), gpus, driver_cuda, ptx_isa_table, options, {});
}

namespace {

// "sm_80 only", "sm_70, sm_80, compute_80 only"
std::string carried_code(const cuda_binary::ListingSummary& code) {
  std::vector<std::string> targets;
  for (const auto& arch : code.sass) targets.push_back(arch.sm_name());
  for (const auto& ptx : code.ptx) targets.push_back(ptx.arch.compute_name());
  return fmt::format("{} only", fmt::join(targets, ", "));
}

std::string warning_line(const fs::path& prefix, const DeviceCodeCheck& check, const std::vector<GpuToCheck>& gpus,
                         cuda_binary::RunVerdict verdict) {
  constexpr std::size_t named_at_most = 3;
  std::vector<std::string> failing_gpus;
  std::vector<std::string> named;
  std::size_t count = 0;
  for (const auto& library : check.libraries) {
    bool fails = false;
    for (std::size_t index = 0; index < library.judgements.size() && index < gpus.size(); ++index) {
      if (library.judgements[index].verdict != verdict) continue;
      fails = true;
      const auto arch = gpus[index].arch.sm_name();
      if (std::find(failing_gpus.begin(), failing_gpus.end(), arch) == failing_gpus.end()) failing_gpus.push_back(arch);
    }
    if (!fails) continue;
    if (++count <= named_at_most) named.push_back(fmt::format("{} ({})", library.path, carried_code(library.code)));
  }
  if (count == 0) return {};
  if (count > named_at_most) named.push_back(fmt::format("and {} more", count - named_at_most));
  const auto plural = count == 1 ? "library" : "libraries";
  const auto gpu_words = fmt::format("{} ({})", failing_gpus.size() == 1 ? "GPU" : "GPUs", fmt::join(failing_gpus, ", "));
  const auto what = verdict == cuda_binary::RunVerdict::ptx_too_new
                        ? fmt::format("{} installed {} carry for this machine's {} only PTX newer than the driver can "
                                      "compile",
                                      count, plural, gpu_words)
                        : fmt::format("{} installed {} cannot run on this machine's {}", count, plural, gpu_words);
  return fmt::format("{}: {}; run gpuenv doctor -p {} for details", what, fmt::join(named, ", "), prefix.string());
}

}  // namespace

std::vector<std::string> device_code_warnings(const fs::path& prefix, const DeviceCodeCheck& check,
                                              const std::vector<GpuToCheck>& gpus) {
  std::vector<std::string> lines;
  for (const auto verdict : {cuda_binary::RunVerdict::no_kernel_image, cuda_binary::RunVerdict::ptx_too_new})
    if (auto line = warning_line(prefix, check, gpus, verdict); !line.empty()) lines.push_back(std::move(line));
  return lines;
}

}  // namespace gpuenv::environment
