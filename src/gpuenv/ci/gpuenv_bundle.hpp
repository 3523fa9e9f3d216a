// A gpuenv bundle: the binary with every shared library it needs except
// glibc's beside it, each found through an $ORIGIN rpath (DT_RPATH, so it
// also serves the libraries' own dependencies), so that gpuenv built on
// Debian 12 runs in an image of another release (Debian 13 has none of
// libfmt9, libyaml-cpp0.7, ...). Needs only a glibc at least as new as the
// one it was built with. libcurl.so.4, which gpuenv dlopens, comes along
// too: the image's libcurl would need libraries newer than the bundled ones.
// bench/cuda_detection/build_portable.sh does the same for the GPU machine.
#pragma once

#include <expected>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuenv/ci/ci_error.hpp"

namespace gpuenv::ci {

struct BundledLibrary {
  std::string name;              // the soname ldd printed ("libfmt.so.9"): the file's name in the bundle
  std::filesystem::path source;  // where this machine has it
};

// glibc's libraries go with the loader of the system that runs the bundle:
// never bundled.
bool is_glibc_library(std::string_view soname);

// The libraries to copy, from `ldd` output: every "name => /path" line but
// glibc's, in order, each name once. A name with a '/' or a relative path
// is skipped (ldd of our own binary prints neither).
std::vector<BundledLibrary> libraries_to_bundle(std::string_view ldd_output);

// The libraries gpuenv dlopens by name, searched in `library_dirs`.
inline constexpr std::string_view kDlopenedLibraries[] = {"libcurl.so.4"};
std::vector<std::filesystem::path> default_library_dirs();

struct BundleRequest {
  std::filesystem::path binary;            // the gpuenv to bundle
  std::filesystem::path gpuenv_cache_dir;  // bundles go to <it>/ci-bundle/gpuenv-<hash of binary>
  std::vector<std::filesystem::path> library_dirs = default_library_dirs();
  std::function<void(const std::string&)> on_step;
  std::function<void(std::string_view)> on_output;
};

// The bundle of `binary` under the cache, made when missing (under a staging
// name, renamed into place when complete): its folder, holding `gpuenv`.
std::expected<std::filesystem::path, CiError> ensure_gpuenv_bundle(const BundleRequest& request);

// Makes a bundle of `binary` at `directory` (which must not exist yet).
std::expected<void, CiError> make_gpuenv_bundle(const BundleRequest& request, const std::filesystem::path& directory);

}  // namespace gpuenv::ci
