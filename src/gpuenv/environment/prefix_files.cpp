#include "gpuenv/environment/prefix_files.hpp"

#include <fmt/core.h>

#include <system_error>

namespace gpuenv::environment::detail {

namespace fs = std::filesystem;

std::string package_label(const prefix::PrefixRecord& record) {
  return fmt::format("{}-{}-{}", record.package.name, record.package.version, record.package.build);
}

std::map<std::string, std::string> files_of_records(const std::vector<prefix::PrefixRecord>& records) {
  std::map<std::string, std::string> files;
  for (const auto& record : records) {
    const auto owner = package_label(record);
    for (const auto& file : record.files) files.emplace(file, owner);
  }
  return files;
}

std::map<std::string, std::string> files_of_prefix(const fs::path& prefix, const prefix::InstalledPackages& installed) {
  auto files = files_of_records(installed.records);
  if (!installed.records.empty()) return files;
  for (const auto* top : {"lib", "bin"}) {
    std::error_code error;
    for (fs::recursive_directory_iterator it(prefix / top, fs::directory_options::skip_permission_denied, error), end;
         !error && it != end; it.increment(error))
      if (it->is_regular_file(error)) files.emplace(fs::relative(it->path(), prefix, error).string(), "");
  }
  return files;
}

}  // namespace gpuenv::environment::detail
