// Inside the ci module only: how each runner starts one job's
// `gpuenv build` (ci_run.cpp decides what to build and reads the result).
#pragma once

#include <expected>
#include <filesystem>
#include <string>
#include <vector>

#include "gpuenv/ci/ci_matrix.hpp"
#include "gpuenv/ci/ci_run.hpp"
#include "gpuenv/ci/job_inputs.hpp"

namespace gpuenv::ci::detail {

// Where the build sees its inputs: host paths for the host runner, the
// mount points for the others.
struct BuildPaths {
  std::string gpuenv;
  std::string recipe_file;
  std::vector<std::string> variant_files;
  std::string output_dir;
  std::vector<std::string> channels;  // `-c`, local ones as the build sees them
  std::string source;                 // `--source`, as the build sees it; empty: none
  std::vector<std::string> source_archives;  // `--source-archives`, as the build sees them
};

struct JobContext {
  const CiJob* job = nullptr;
  const ImageDefinition* image = nullptr;
  const JobInputs* inputs = nullptr;                 // --source and -c, resolved
  std::filesystem::path recipe_file;                 // absolute, on the host
  std::vector<std::filesystem::path> variant_files;  // absolute, on the host
  std::string stdout_name;                           // relative to the output dir: the build's --json document
};

// The CA bundle this machine's gpuenv trusts by its environment
// (REQUESTS_CA_BUNDLE, CURL_CA_BUNDLE, SSL_CERT_FILE, in the order gpuenv
// reads them; a regular file), which a job's downloads in the image trust
// too: behind a TLS-intercepting proxy the image's own CA store does not
// know the proxy's CA. Empty: none set; the image's store decides.
std::filesystem::path host_ca_bundle(const CiRunRequest& request);

// The variables that point the build in the image (gpuenv, pip, OpenSSL) at
// the bundle mounted at kCaBundleMount.
std::vector<std::string> ca_bundle_environment();

// The environment a chroot job runs with: a fixed PATH and locale, the
// image's compilers and caches, and with `with_image_cuda` its CUDA toolkit
// (PATH, CUDA_HOME, CUDA_PATH, NVCC_CCBIN). Without it, when a channel gives
// the build environment the variant's nvcc, nothing points at the image's.
std::vector<std::string> chroot_environment(const ImageDefinition& image, bool with_image_cuda = true);

// `gpuenv build ... --json` with the job's variant, channels and paths.
std::vector<std::string> build_arguments(const CiRunRequest& request, const CiJob& job, const BuildPaths& paths);

// Each runs the job's build and returns once it exited (its document is in
// the output dir's `stdout_name`); an error is a job that could not start.
std::expected<void, CiError> run_host_job(const CiRunRequest& request, const JobContext& context);
std::expected<void, CiError> run_chroot_job(const CiRunRequest& request, const JobContext& context,
                                            CiJobResult& result);
std::expected<void, CiError> run_container_job(const CiRunRequest& request, RunnerKind engine,
                                               const JobContext& context);

// Whether `runner` can work here; the error names it and what to use instead.
std::expected<void, CiError> check_runner(const CiRunRequest& request, RunnerKind runner);

// Runs a command on the host, output to request.on_output; its last lines
// when it succeeded.
std::expected<std::string, CiError> run_logged(const CiRunRequest& request, const std::vector<std::string>& argv,
                                               const std::string& what, const std::string& input);

}  // namespace gpuenv::ci::detail
