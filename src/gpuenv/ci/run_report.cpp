#include "gpuenv/ci/run_report.hpp"

#include <fmt/core.h>
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <vector>

namespace gpuenv::ci {
namespace {

std::string time_text(const CiJobResult& job) {
  std::string text = fmt::format("{:.1f} s", job.seconds);
  if (job.rootfs_seconds > 0) text += fmt::format(" (image {:.1f} s)", job.rootfs_seconds);
  return text;
}

std::string packages_text(const CiJobResult& job) {
  std::vector<std::string> names;
  for (const auto& file : job.package_files) names.push_back(std::filesystem::path(file).filename().string());
  for (const auto& file : job.skipped_files) {
    names.push_back(std::filesystem::path(file).filename().string() + " (skipped: in the output channel)");
  }
  return names.empty() ? "-" : fmt::format("{}", fmt::join(names, ", "));
}

std::string tests_text(const CiJobResult& job) {
  if (!job.success) return job.package_files.empty() ? "-" : "failed";
  if (job.package_files.empty() && !job.skipped_files.empty()) return "-";
  return fmt::format("{} passed", job.tests);
}

std::string cuda_text(const CiJobResult& job) {
  if (!job.cuda_check.empty()) return job.cuda_check;
  return job.success ? "no CUDA" : "-";
}

}  // namespace

std::string run_summary_table(const CiRunResult& result) {
  // The variant is the job id's hash (the whole --variant list is in
  // --json): one line per job stays readable.
  const std::vector<std::string> header{"job", "image", "runner", "time", "package", "tests", "CUDA check", "result"};
  std::vector<std::vector<std::string>> rows{header};
  for (const auto& job : result.jobs) {
    rows.push_back({job.id, job.image, job.runner, time_text(job),
                    packages_text(job), tests_text(job), cuda_text(job), job.success ? "ok" : "FAILED"});
  }
  std::vector<std::size_t> widths(header.size(), 0);
  for (const auto& row : rows) {
    for (std::size_t column = 0; column < row.size(); ++column) {
      widths[column] = std::max(widths[column], row[column].size());
    }
  }
  std::string text;
  for (const auto& row : rows) {
    std::string line;
    for (std::size_t column = 0; column < row.size(); ++column) {
      line += column + 1 == row.size() ? row[column] : fmt::format("{:<{}}  ", row[column], widths[column]);
    }
    text += line + "\n";
  }
  for (const auto& job : result.jobs) {
    if (!job.success) text += fmt::format("\n{} failed: {}\n", job.id, job.error);
  }
  const auto failed = std::count_if(result.jobs.begin(), result.jobs.end(), [](const auto& job) { return !job.success; });
  text += fmt::format("\n{} job(s), {} failed\n", result.jobs.size(), failed);
  return text;
}

std::string run_summary_json(const CiRunResult& result) {
  using json = nlohmann::ordered_json;
  json jobs = json::array();
  for (const auto& job : result.jobs) {
    jobs.push_back({{"id", job.id},
                    {"recipe", job.recipe},
                    {"package", job.package},
                    {"variant", job.variant},
                    {"image", job.image},
                    {"runner", job.runner},
                    {"success", job.success},
                    {"error", job.success ? json(nullptr) : json(job.error)},
                    {"seconds", job.seconds},
                    {"image_seconds", job.rootfs_seconds},
                    {"image_cached", job.rootfs_cached},
                    {"packages", job.package_files},
                    {"skipped", job.skipped_files},
                    {"tests", job.tests},
                    {"cuda_check", job.cuda_check.empty() ? json(nullptr) : json(job.cuda_check)},
                    {"log", job.log.empty() ? json(nullptr) : json(job.log)}});
  }
  return json{{"schema_version", 1}, {"success", result.success()}, {"jobs", std::move(jobs)}}.dump(2);
}

}  // namespace gpuenv::ci
