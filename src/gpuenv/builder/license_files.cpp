#include "gpuenv/builder/license_files.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <set>

namespace gpuenv::build {

namespace fs = std::filesystem;

namespace {

std::unexpected<BuildError> license_error(std::string message) {
  return std::unexpected(BuildError{BuildErrorKind::packaging, std::move(message)});
}

bool has_glob(const std::string& entry) { return entry.find_first_of("*?[") != std::string::npos; }

// Whether `path` (resolved) lies inside `root` (resolved).
bool inside(const fs::path& root, const fs::path& path) {
  std::error_code error;
  const auto real_root = fs::weakly_canonical(root, error);
  if (error) return false;
  const auto real_path = fs::weakly_canonical(path, error);
  if (error) return false;
  const auto relative = real_path.lexically_relative(real_root);
  return !relative.empty() && *relative.begin() != "..";
}

// The regular files `entry` names under `root`, with their paths relative
// to `root`; sorted, so the package's member order never depends on the
// directory's.
std::vector<std::string> matches_under(const fs::path& root, const std::string& entry) {
  std::vector<std::string> found;
  std::error_code error;
  if (!fs::is_directory(root, error)) return found;
  auto add_file = [&](const fs::path& file) {
    if (fs::is_regular_file(file, error) && inside(root, file)) {
      found.push_back(file.lexically_relative(root).generic_string());
    }
  };
  if (!has_glob(entry)) {
    const auto path = root / entry;
    if (fs::is_directory(path, error) && inside(root, path)) {
      for (fs::recursive_directory_iterator it(path, error), end; !error && it != end; it.increment(error)) {
        add_file(it->path());
      }
    } else {
      add_file(path);
    }
  } else {
    for (fs::recursive_directory_iterator it(root, error), end; !error && it != end; it.increment(error)) {
      const auto relative = it->path().lexically_relative(root).generic_string();
      if (::fnmatch(entry.c_str(), relative.c_str(), FNM_PATHNAME) == 0) add_file(it->path());
    }
  }
  std::sort(found.begin(), found.end());
  return found;
}

}  // namespace

std::expected<std::vector<LicenseFile>, BuildError> collect_license_files(const std::vector<std::string>& entries,
                                                                          const fs::path& src_dir,
                                                                          const fs::path& recipe_dir) {
  std::vector<LicenseFile> files;
  std::set<std::string> taken;
  for (const auto& entry : entries) {
    const fs::path written(entry);
    if (entry.empty() || written.is_absolute() ||
        std::any_of(written.begin(), written.end(), [](const fs::path& part) { return part == ".."; })) {
      return license_error("about.license_file entry '" + entry +
                           "' must be a path relative to the source or recipe directory, without '..'");
    }
    bool matched = false;
    for (const auto& root : {src_dir, recipe_dir}) {
      for (const auto& relative : matches_under(root, written.lexically_normal().generic_string())) {
        matched = true;
        if (taken.insert(relative).second) files.push_back({relative, root / relative});
      }
      if (matched) break;  // the source directory's copy wins
    }
    if (!matched) {
      return license_error("about.license_file entry '" + entry + "' matches no file in the source directory (" +
                           src_dir.string() + ") or the recipe directory (" + recipe_dir.string() +
                           "): fix the name or add the file to the recipe");
    }
  }
  return files;
}

}  // namespace gpuenv::build
