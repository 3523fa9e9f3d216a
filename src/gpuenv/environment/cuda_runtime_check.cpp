#include "gpuenv/environment/cuda_runtime_check.hpp"

#include <fmt/core.h>

#include <map>
#include <system_error>

#include "gpuenv/cuda_binary/dynamic_linking.hpp"
#include "gpuenv/environment/prefix_files.hpp"

namespace gpuenv::environment {
namespace {

namespace fs = std::filesystem;

const char* insufficient_driver = "CUDA driver version is insufficient for CUDA runtime version";

// The driver that runs `need`: its toolkit's own minimum when the version
// is exact, else (a soname: any minor) the major's minor-version floor.
std::optional<system::DriverRelease> minimum_driver(const system::CudaCompatibilityTables& tables,
                                                    const CudaRuntimeNeed& need) {
  if (need.major_only) {
    if (const auto floor = tables.minor_version_floors.find(need.cuda.major); floor != tables.minor_version_floors.end())
      return floor->second;
  }
  // toolkits are newest first: the last match is the major's oldest minor.
  std::optional<system::DriverRelease> found;
  for (const auto& toolkit : tables.toolkits) {
    if (toolkit.version == need.cuda) return toolkit.linux_min_driver;
    if (need.major_only && toolkit.version.major == need.cuda.major) found = toolkit.linux_min_driver;
  }
  return found;
}

}  // namespace

std::string_view to_string(CudaRuntimeVerdict verdict) {
  switch (verdict) {
    case CudaRuntimeVerdict::runs: return "runs";
    case CudaRuntimeVerdict::minor_version_compatibility: return "minor_version_compatibility";
    case CudaRuntimeVerdict::needs_newer_driver: return "needs_newer_driver";
  }
  return "needs_newer_driver";
}

CudaRuntimeJudgement judge_cuda_runtime(const system::CudaCompatibilityTables& tables, system::CudaVersion driver_cuda,
                                        CudaRuntimeNeed need) {
  CudaRuntimeJudgement judgement;
  judgement.need = std::move(need);
  const auto& wanted = judgement.need;
  const auto wanted_text = wanted.major_only ? fmt::format("CUDA {}", wanted.cuda.major) : "CUDA " + wanted.cuda.str();
  const bool has_floor = tables.minor_version_floors.contains(wanted.cuda.major);
  if (wanted.cuda.major < driver_cuda.major || (wanted.cuda.major == driver_cuda.major && wanted.major_only) ||
      wanted.cuda <= driver_cuda) {
    judgement.verdict = CudaRuntimeVerdict::runs;
    judgement.explanation = fmt::format("{} runs on this driver (CUDA {})", wanted_text, driver_cuda.str());
    return judgement;
  }
  if (wanted.cuda.major == driver_cuda.major && has_floor) {
    judgement.verdict = CudaRuntimeVerdict::minor_version_compatibility;
    judgement.explanation =
        fmt::format("{} runs on this CUDA {} driver through minor version compatibility; PTX newer than the "
                    "driver cannot be JIT-compiled and features of newer drivers are missing",
                    wanted_text, driver_cuda.str());
    return judgement;
  }
  judgement.verdict = CudaRuntimeVerdict::needs_newer_driver;
  judgement.min_driver = minimum_driver(tables, wanted);
  const auto driver_words = judgement.min_driver ? fmt::format(" (Linux driver >= {})", judgement.min_driver->str())
                                                 : std::string();
  judgement.explanation =
      fmt::format("cannot run: {} needs a driver for {}{}; this driver provides CUDA {}; the CUDA runtime will fail "
                  "with \"{}\"",
                  wanted_text, wanted_text, driver_words, driver_cuda.str(), insufficient_driver);
  judgement.fix = fmt::format("upgrade the NVIDIA driver to {}, or install a CUDA {} build: `cuda-version {}.*`",
                              judgement.min_driver ? ">= " + judgement.min_driver->str() : "one for " + wanted_text,
                              driver_cuda.major, driver_cuda.major);
  return judgement;
}

std::optional<int> cuda_major_of_soname(std::string_view soname) {
  const auto at = soname.find(".so.");
  if (at == std::string_view::npos) return std::nullopt;
  const auto name = soname.substr(0, at);
  int major = 0;
  const auto digits = soname.substr(at + 4);
  std::size_t used = 0;
  while (used < digits.size() && used < 4 && digits[used] >= '0' && digits[used] <= '9')
    major = major * 10 + (digits[used++] - '0');
  if (used == 0 || (used < digits.size() && digits[used] != '.')) return std::nullopt;
  // Libraries whose soname major is the toolkit's major (CUDA 11, 12, 13).
  static constexpr std::string_view same_as_toolkit[] = {
      "libcudart", "libcublas", "libcublasLt", "libnvrtc", "libnvJitLink", "libcupti", "libnvblas", "libnvjpeg",
      "libnppc",   "libnppial", "libnppicc",   "libnppidei", "libnppif",   "libnppig", "libnppim",  "libnppist",
      "libnppisu", "libnppitc", "libnpps"};
  for (const auto known : same_as_toolkit)
    if (name == known) return major;
  // cuFFT is one ahead: libcufft.so.10 in CUDA 11, .so.11 in 12, .so.12 in 13.
  if (name == "libcufft" && major >= 10) return major + 1;
  return std::nullopt;
}

bool CudaRuntimeCheck::everything_can_run() const {
  for (const auto& judgement : judgements)
    if (judgement.verdict == CudaRuntimeVerdict::needs_newer_driver) return false;
  return true;
}

CudaRuntimeCheck check_cuda_runtime(const fs::path& prefix, const std::optional<system::CudaVersion>& driver_cuda,
                                    const system::CudaCompatibilityTables& tables) {
  CudaRuntimeCheck check;
  check.driver_cuda = driver_cuda;
  const auto installed = prefix::read_prefix_records(prefix);
  check.problems = installed.problems;
  std::vector<CudaRuntimeNeed> needs;
  for (const auto& record : installed.records) {
    if (record.package.name != "cuda-version") continue;
    if (const auto version = system::CudaVersion::parse(record.package.version))
      needs.push_back({"cuda-version " + version->str(), *version, false, {detail::package_label(record)}});
  }
  // soname -> the files needing (or providing) it
  std::map<std::string, std::vector<std::string>> by_soname;
  for (const auto& [relative, owner] : detail::files_of_prefix(prefix, installed)) {
    const auto path = prefix / relative;
    std::error_code error;
    if (!fs::is_regular_file(fs::symlink_status(path, error))) continue;
    const auto linking = cuda_binary::read_dynamic_linking(path.string());
    if (!linking) {
      if (linking.error().kind != cuda_binary::ReadErrorKind::not_a_binary &&
          linking.error().kind != cuda_binary::ReadErrorKind::unsupported)
        check.problems.push_back(linking.error().message);
      continue;
    }
    const auto who = owner.empty() ? relative : fmt::format("{} ({})", relative, owner);
    for (const auto& soname : linking->needed)
      if (cuda_major_of_soname(soname)) by_soname[soname].push_back(who);
    if (cuda_major_of_soname(linking->soname)) by_soname[linking->soname].push_back(who + ", which provides it");
  }
  for (auto& [soname, who] : by_soname)
    needs.push_back({soname, {*cuda_major_of_soname(soname), 0}, true, std::move(who)});
  if (!driver_cuda) return check;
  for (auto& need : needs) check.judgements.push_back(judge_cuda_runtime(tables, *driver_cuda, std::move(need)));
  return check;
}

}  // namespace gpuenv::environment
