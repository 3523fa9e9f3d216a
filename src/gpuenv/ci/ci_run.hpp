// `gpuenv ci run`: one recipe's variants built and tested inside the CI
// image each variant's docker_image names (or one image for all), by one of
// four runners: chroot (an image's root filesystem made with debootstrap,
// unshare + chroot; needs root, no engine), podman and docker (the image
// built from its generated Dockerfile), or host (no isolation). Each job
// runs `gpuenv build --json` -- the running gpuenv binary, bind-mounted --
// and its document becomes the job's result: package files, tests, the CUDA
// check. docs/ci.md.
#pragma once

#include <expected>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuenv/ci/ci_error.hpp"
#include "gpuenv/ci/rootfs.hpp"

namespace gpuenv::ci {

enum class RunnerKind { chroot, docker, podman, host };

std::optional<RunnerKind> parse_runner(std::string_view name);
std::string_view runner_name(RunnerKind runner);

struct CiRunRequest {
  std::filesystem::path recipe;  // a recipe.yaml, or the directory holding one
  std::vector<std::filesystem::path> variant_files;  // `gpuenv build -m`, in order
  std::vector<std::string> variant_filters;  // KEY=VALUE: only variants with that value (or without the key)
  std::string image;                         // empty: each variant's own image
  std::optional<RunnerKind> runner;          // empty: docker or podman when they answer, else chroot
  std::filesystem::path output_dir;          // the output channel, shared by the jobs
  std::filesystem::path images_dir = "ci-images";
  std::filesystem::path gpuenv_binary;     // absolute: what runs the build in the image
  std::filesystem::path gpuenv_cache_dir;  // absolute: rootfs trees, each image's package and source cache
  std::vector<std::string> channels;       // `gpuenv build -c`: names, URLs, local directories (mounted read-only)
  std::optional<std::string> source;       // `gpuenv build --source`: a directory or archive, mounted read-only
  std::optional<std::string> source_version;  // `gpuenv build --source-version`
  std::vector<std::string> source_archives;   // `gpuenv build --source-archives`: directories, mounted read-only
  bool skip_existing = false;                 // `gpuenv build --skip-existing=local` (a repository run)
  bool override_channels = false;
  std::string target_platform = "linux-64";
  std::map<std::string, std::string, std::less<>> environment;  // this process's, for rendering and the host runner
  DebianMirror mirror;                                           // for the chroot runner's trees
  std::function<void(const std::string&)> on_step;              // one line per step
  std::function<void(std::string_view)> on_output;              // commands' output, as it comes
};

struct CiJobResult {
  std::string id;  // <package>-<variant hash>, as `gpuenv ci render` names it
  std::string recipe;
  std::string package;
  std::vector<std::string> variant;  // the --variant arguments
  std::string image;
  std::string runner;
  bool success = false;
  std::string error;  // why it failed
  double seconds = 0;
  double rootfs_seconds = 0;  // making the image (0: it was ready)
  bool rootfs_cached = false;
  std::vector<std::string> package_files;  // on this machine
  std::vector<std::string> skipped_files;  // already in the output channel (--skip-existing): not rebuilt
  std::size_t tests = 0;                   // the package's tests, run and passed
  std::string cuda_check;                  // the build's CUDA check; empty without CUDA
  std::string log;                         // the build log, on this machine
};

struct CiRunResult {
  std::vector<CiJobResult> jobs;
  bool success() const;
};

// A job in an image names its output files as the image sees them
// (`/gpuenv/output/bld/...`); its error is read on this machine, so every
// `seen_as` path in `text` becomes the same path under `output_dir`.
std::string with_output_paths_on_host(std::string text, std::string_view seen_as,
                                      const std::filesystem::path& output_dir);

// Errors before any job runs: the recipe does not render, no variant
// matches the filters, the image or runner is unknown or unavailable here.
// A job that fails is a result, and the next job still runs.
std::expected<CiRunResult, CiError> run_ci(const CiRunRequest& request);

}  // namespace gpuenv::ci
