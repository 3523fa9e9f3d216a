#include "gpuenv/environment/device_code_check.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <map>
#include <system_error>

#include "gpuenv/cuda_binary/reader.hpp"
#include "gpuenv/prefix/prefix_record.hpp"

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

// relative path -> owning package
std::map<std::string, std::string> files_of_prefix(const fs::path& prefix, std::vector<std::string>& problems) {
  std::map<std::string, std::string> files;
  auto installed = prefix::read_prefix_records(prefix);
  problems.insert(problems.end(), installed.problems.begin(), installed.problems.end());
  for (const auto& record : installed.records) {
    const auto owner =
        fmt::format("{}-{}-{}", record.package.name, record.package.version, record.package.build);
    for (const auto& file : record.files) files.emplace(file, owner);
  }
  if (!installed.records.empty()) return files;
  for (const auto* top : {"lib", "bin"}) {
    std::error_code error;
    for (fs::recursive_directory_iterator it(prefix / top, fs::directory_options::skip_permission_denied, error), end;
         !error && it != end; it.increment(error))
      if (it->is_regular_file(error)) files.emplace(fs::relative(it->path(), prefix, error).string(), "");
  }
  return files;
}

}  // namespace

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
  const auto files = files_of_prefix(prefix, check.problems);
  std::vector<std::string> relative_paths;
  std::vector<std::string> absolute_paths;
  for (const auto& [relative, owner] : files) {
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

}  // namespace gpuenv::environment
