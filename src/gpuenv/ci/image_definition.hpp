// ci-images/<name>/image.yaml: what one CI image holds. Read as hostile
// input: bounded in size, every key known, and every value that ends up in
// the generated Dockerfile restricted to a character set that needs no
// shell quoting beyond single quotes (see docs/ci.md for the format).
#pragma once

#include <expected>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuenv/ci/ci_error.hpp"

namespace gpuenv::ci {

// How an image gets its one CUDA toolkit (docs/decisions/0003-ci-cuda-toolkits.md).
enum class ToolkitProvider {
  debian,  // Debian packages (nvidia-cuda-toolkit from non-free): installed with apt
  pypi,    // NVIDIA's wheels from PyPI, unpacked into `home`
  conda,   // conda packages installed by gpuenv itself into `home`
};

struct CudaToolkit {
  std::string version;  // major.minor, as the variants' cuda_compiler_version
  ToolkitProvider provider = ToolkitProvider::pypi;
  std::string home;                   // CUDA_HOME: absolute
  std::vector<std::string> packages;  // Debian names, pip requirements or conda specs
  // pypi: the sha256 of packages[i]'s wheel (its x86_64 manylinux file on
  // PyPI), which pip checks (--require-hashes): apt and gpuenv check what
  // the other providers download, and a wheel must not be the exception.
  std::vector<std::string> wheel_sha256;
  std::string wheel_root;             // pypi: the toolkit tree inside the wheels ("nvidia/cu13")
  std::string channel;                // conda: where the packages come from
};

// pip's requirements file for a pypi toolkit: `name==version
// --hash=sha256:HEX` per wheel, for `pip download --require-hashes -r`.
std::string pinned_wheel_requirements(const CudaToolkit& toolkit);

struct ImageDefinition {
  std::string name;  // the folder's name: ci-images/<name>
  std::string description;
  std::string base;   // the FROM image ("debian:12")
  std::string glibc;  // the base's glibc, major.minor
  std::vector<std::string> apt_components;  // beyond main ("non-free")
  std::vector<std::string> system_packages;  // Debian names
  std::string c_compiler;    // Debian package and /usr/bin program ("gcc", "gcc-11")
  std::string cxx_compiler;
  std::optional<CudaToolkit> cuda;  // none for a CPU image
  // How gpuenv gets in; exactly one is set. binary: a file of the build
  // context copied to /usr/local/bin/gpuenv (its libraries come from
  // system_packages). bundle: a directory of the build context (gpuenv and
  // every shared library it needs but glibc's, found through an $ORIGIN
  // rpath: `gpuenv ci bundle DIR`) copied to /opt/gpuenv, for a base whose
  // Debian release lacks the libraries gpuenv was linked against.
  std::string gpuenv_binary;
  std::string gpuenv_bundle;
};

// Where a bundle lives inside an image; /usr/local/bin/gpuenv links to its gpuenv.
inline constexpr const char* kGpuenvBundleDir = "/opt/gpuenv";

// image.yaml files are a few hundred bytes; 64 KiB is far beyond any real one.
inline constexpr std::size_t max_image_file_bytes = 64u << 10;
inline constexpr std::size_t max_list_entries = 500;

// Reads an image definition from `text`; `file` names it in errors, `name`
// is the image's (its folder's) name.
std::expected<ImageDefinition, CiError> parse_image_definition(std::string_view text, std::string_view file,
                                                               std::string_view name);

// Reads `directory`/image.yaml; the image is named after `directory`.
std::expected<ImageDefinition, CiError> read_image_definition(const std::filesystem::path& directory);

// Every image under `images_dir` (each sub-directory holding an image.yaml),
// sorted by name. At most 100 images; names are [a-z0-9._-].
std::expected<std::vector<ImageDefinition>, CiError> read_image_definitions(const std::filesystem::path& images_dir);

}  // namespace gpuenv::ci
