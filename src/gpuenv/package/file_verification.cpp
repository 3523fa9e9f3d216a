#include "gpuenv/package/file_verification.hpp"

#include <sys/stat.h>

#include "gpuenv/package/hashing.hpp"

namespace gpuenv::package {

std::optional<FileMismatch> compare_with_declared(const PathEntry& entry, const FileFacts& actual) {
  if (entry.path_type != PathType::hardlink) return std::nullopt;
  const bool size_declared = entry.size_in_bytes && *entry.size_in_bytes != 0;
  const bool wrong_size = size_declared && *entry.size_in_bytes != actual.size;
  const bool wrong_sha256 = !entry.sha256.empty() && !same_digest(entry.sha256, actual.sha256);
  if (!wrong_size && !wrong_sha256) return std::nullopt;
  return FileMismatch{entry.path, entry.sha256,
                      size_declared ? entry.size_in_bytes : std::nullopt, actual};
}

std::vector<FileMismatch> verify_extracted_files(const std::filesystem::path& package_dir,
                                                 const PathsJson& paths) {
  std::vector<FileMismatch> mismatches;
  for (const auto& entry : paths.paths) {
    if (entry.path_type != PathType::hardlink) continue;
    if (entry.sha256.empty() && (!entry.size_in_bytes || *entry.size_in_bytes == 0)) continue;
    const auto path = package_dir / entry.path;
    struct stat info {};
    // Symbolic links (legacy packages do not mark them) have no content to check.
    if (::lstat(path.c_str(), &info) != 0 || !S_ISREG(info.st_mode)) continue;
    FileFacts actual;
    if (entry.sha256.empty()) {
      actual.size = static_cast<std::uint64_t>(info.st_size);
    } else {
      const auto digests = hash_file(path, true, false);
      actual = {digests.sha256, digests.size};
    }
    if (auto mismatch = compare_with_declared(entry, actual)) {
      mismatches.push_back(std::move(*mismatch));
    }
  }
  return mismatches;
}

std::string describe_mismatch(const FileMismatch& mismatch, const std::string& package_name,
                              const std::string& package_dir) {
  std::string text = "The package for " + package_name + " located at " + package_dir +
                     "\nappears to be corrupted. The path '" + mismatch.path + "'\n";
  if (mismatch.wrong_size()) {
    return text + "has an incorrect size.\n  reported size: " +
           std::to_string(*mismatch.declared_size) + " bytes\n  actual size: " +
           std::to_string(mismatch.actual.size) + " bytes";
  }
  return text + "has a sha256 mismatch.\n  reported sha256: " + mismatch.declared_sha256 +
         "\n  actual sha256: " + mismatch.actual.sha256;
}

}  // namespace gpuenv::package
