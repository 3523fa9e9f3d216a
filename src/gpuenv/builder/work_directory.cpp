#include "gpuenv/builder/work_directory.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "gpuenv/prefix/prefix_error.hpp"

namespace gpuenv::build {

namespace fs = std::filesystem;

namespace {

std::unexpected<BuildError> root_error(const fs::path& root, const std::string& why) {
  return std::unexpected(BuildError{BuildErrorKind::packaging,
                                    "cannot build under " + root.string() + ": " + why +
                                        ". Remove it, or set GPUENV_BUILD_ROOT to a directory of yours"});
}

}  // namespace

std::expected<fs::path, BuildError> build_root(const util::EnvLookup& env) {
  fs::path root;
  if (const auto named = env ? env("GPUENV_BUILD_ROOT") : std::nullopt; named && !named->empty()) {
    root = fs::absolute(*named).lexically_normal();
  } else {
    root = fs::path("/tmp") / ("gpuenv-build-" + std::to_string(::geteuid()));
  }
  std::error_code error;
  fs::create_directories(root.parent_path(), error);
  if (::mkdir(root.c_str(), 0700) != 0 && errno != EEXIST) return root_error(root, std::strerror(errno));
  struct stat info {};
  if (::lstat(root.c_str(), &info) != 0) return root_error(root, std::strerror(errno));
  if (!S_ISDIR(info.st_mode)) return root_error(root, "it is not a directory (a link or a file is there)");
  if (info.st_uid != ::geteuid()) return root_error(root, "another user owns it");
  if ((info.st_mode & (S_IWGRP | S_IWOTH)) != 0) return root_error(root, "others can write to it");
  return root;
}

std::expected<WorkDirectory, BuildError> claim_work_directory(const std::string& stem, const util::EnvLookup& env,
                                                              const prefix::FileLock::WaitNotice& waiting) {
  auto root = build_root(env);
  if (!root) return std::unexpected(root.error());
  try {
    auto lock = prefix::FileLock::acquire(*root / (stem + ".lock"), std::chrono::hours(24), waiting);
    return WorkDirectory{*root / stem, std::move(lock)};
  } catch (const prefix::PrefixError& error) {
    return std::unexpected(BuildError{BuildErrorKind::packaging, error.what()});
  }
}

}  // namespace gpuenv::build
