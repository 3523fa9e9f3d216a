#include "gpuenv/ci/gpuenv_bundle.hpp"

#include <fmt/core.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <regex>
#include <set>
#include <sstream>
#include <system_error>

#include "gpuenv/builder/process_runner.hpp"
#include "gpuenv/ci/rootfs.hpp"
#include "gpuenv/package/hashing.hpp"

namespace gpuenv::ci {
namespace {

namespace fs = std::filesystem;

// ldd of gpuenv prints a few dozen lines; far more is not ldd's output.
constexpr std::size_t kMaxLddBytes = 1u << 20;

CiError bundle_failure(const fs::path& binary, std::string message) {
  return CiError{CiError::Kind::run, binary.string(), std::move(message)};
}

// The whole output (output_tail keeps only the last lines), or why it failed.
std::expected<std::string, CiError> run_captured(const BundleRequest& request, const std::vector<std::string>& argv) {
  std::string output;
  build::ProcessRequest process;
  process.argv = argv;
  process.environment = build::current_environment();
  process.working_directory = "/";
  process.on_output = [&output](std::string_view piece) {
    if (output.size() < kMaxLddBytes) output.append(piece.substr(0, kMaxLddBytes - output.size()));
  };
  const auto result = build::run_process(process);
  if (result.succeeded()) return output;
  return std::unexpected(bundle_failure(
      request.binary, fmt::format("bundling gpuenv: `{}` failed ({}): {}", fmt::join(argv, " "),
                                  result.started ? fmt::format("exit status {}", result.exit_code) : result.start_error,
                                  result.output_tail)));
}

std::expected<void, CiError> copy_into(const BundleRequest& request, const fs::path& source, const fs::path& target) {
  std::error_code error;
  // copy_file follows a symbolic link: the bundle holds the library itself.
  fs::copy_file(source, target, fs::copy_options::overwrite_existing, error);
  if (!error) {
    fs::permissions(target, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                                fs::perms::others_read | fs::perms::others_exec,
                    error);
  }
  if (error) {
    return std::unexpected(bundle_failure(request.binary, fmt::format("bundling gpuenv: cannot copy {} to {}: {}",
                                                                      source.string(), target.string(),
                                                                      error.message())));
  }
  return {};
}

std::string short_file_hash(const fs::path& file) {
  return package::hash_file(file, true, false).sha256.substr(0, 16);
}

}  // namespace

bool is_glibc_library(std::string_view soname) {
  static const std::regex glibc(R"(^(linux-vdso|linux-gate|ld-linux[-a-z0-9_]*|libc|libm|libpthread|libdl|librt|libresolv|libutil|libanl|libmvec|libnsl|libBrokenLocale|libcrypt)\.so.*)");
  return std::regex_match(std::string(soname), glibc);
}

std::vector<BundledLibrary> libraries_to_bundle(std::string_view ldd_output) {
  std::vector<BundledLibrary> libraries;
  std::set<std::string> seen;
  std::istringstream stream{std::string(ldd_output)};
  for (std::string line; std::getline(stream, line);) {
    // "\tlibfmt.so.9 => /lib/x86_64-linux-gnu/libfmt.so.9 (0x00007f...)"
    std::istringstream words(line);
    std::string name, arrow, path;
    if (!(words >> name >> arrow >> path) || arrow != "=>") continue;
    if (name.find('/') != std::string::npos || !path.starts_with('/') || is_glibc_library(name)) continue;
    if (seen.insert(name).second) libraries.push_back({name, path});
  }
  return libraries;
}

std::vector<fs::path> default_library_dirs() {
  return {"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib/aarch64-linux-gnu", "/usr/lib/aarch64-linux-gnu",
          "/usr/lib64", "/lib64", "/usr/lib", "/lib"};
}

std::expected<void, CiError> make_gpuenv_bundle(const BundleRequest& request, const fs::path& named_directory) {
  std::error_code error;
  // ldd and patchelf run in "/": a folder named relative to the caller's
  // working directory must reach them as the caller meant it.
  const auto directory = fs::absolute(named_directory, error);
  if (error) {
    return std::unexpected(bundle_failure(request.binary, fmt::format("bundling gpuenv: cannot resolve {}: {}",
                                                                      named_directory.string(), error.message())));
  }
  fs::create_directories(directory, error);
  if (error) {
    return std::unexpected(bundle_failure(request.binary, fmt::format("bundling gpuenv: cannot create {}: {}",
                                                                      directory.string(), error.message())));
  }
  if (auto copied = copy_into(request, request.binary, directory / "gpuenv"); !copied) return copied;
  std::vector<fs::path> elf_files{directory / "gpuenv"};
  for (const auto name : kDlopenedLibraries) {
    const auto found = std::find_if(request.library_dirs.begin(), request.library_dirs.end(),
                                    [&](const fs::path& dir) { return fs::exists(dir / name, error); });
    if (found == request.library_dirs.end()) {
      std::string searched;
      for (const auto& dir : request.library_dirs) searched += (searched.empty() ? "" : ", ") + dir.string();
      return std::unexpected(bundle_failure(
          request.binary, fmt::format("bundling gpuenv: {} (which gpuenv loads for downloads) is in none of {}; "
                                      "install it (Debian: libcurl4)",
                                      name, searched)));
    }
    if (auto copied = copy_into(request, *found / name, directory / name); !copied) return copied;
    elf_files.push_back(directory / name);
  }
  // Each file's libraries, and theirs: ldd lists the whole closure at once.
  const auto roots = elf_files;
  for (const auto& root : roots) {
    auto listed = run_captured(request, {"ldd", root.string()});
    if (!listed) return std::unexpected(listed.error());
    for (const auto& library : libraries_to_bundle(*listed)) {
      const auto target = directory / library.name;
      if (fs::exists(target, error)) continue;
      if (auto copied = copy_into(request, library.source, target); !copied) return copied;
      elf_files.push_back(target);
    }
  }
  if (request.on_step) request.on_step(fmt::format("bundle gpuenv and {} libraries into {}", elf_files.size() - 1,
                                                   directory.string()));
  for (const auto& file : elf_files) {
    auto patched = run_captured(request, {"patchelf", "--force-rpath", "--set-rpath", "$ORIGIN", file.string()});
    if (!patched) return std::unexpected(patched.error());
  }
  return {};
}

std::expected<fs::path, CiError> ensure_gpuenv_bundle(const BundleRequest& request) {
  std::string hash;
  try {
    hash = short_file_hash(request.binary);
  } catch (const std::exception& error) {
    return std::unexpected(bundle_failure(request.binary, fmt::format("bundling gpuenv: cannot read {}: {}",
                                                                      request.binary.string(), error.what())));
  }
  const auto root = request.gpuenv_cache_dir / "ci-bundle";
  const auto final_path = root / ("gpuenv-" + hash);
  std::error_code error;
  if (fs::exists(final_path / "gpuenv", error)) return final_path;
  remove_stale_staging(root);
  const auto staging = staging_path(final_path, static_cast<long>(::getpid()));
  fs::remove_all(staging, error);
  if (auto made = make_gpuenv_bundle(request, staging); !made) {
    fs::remove_all(staging, error);
    return std::unexpected(made.error());
  }
  fs::rename(staging, final_path, error);
  if (error && !fs::exists(final_path / "gpuenv")) {
    return std::unexpected(bundle_failure(request.binary, fmt::format("bundling gpuenv: cannot move {} to {}: {}",
                                                                      staging.string(), final_path.string(),
                                                                      error.message())));
  }
  fs::remove_all(staging, error);  // another run finished first: keep its bundle
  return final_path;
}

}  // namespace gpuenv::ci
