// The CI configuration that runs a CiMatrix: a GitHub Actions workflow
// (.github/workflows/gpuenv-packages.yml) or a GitLab CI file
// (.gitlab-ci.yml). Deterministic text: the same matrix gives the same bytes.
// Each job builds one (package, variant) in its image with `gpuenv build`,
// after the jobs it needs, with their packages as channels; keeps gpuenv's
// package and source caches between runs, keyed by image and recipe hash;
// and uploads its output channel. A final job indexes all of them into one
// channel, lists its packages, installs each into a fresh environment and
// runs `gpuenv doctor` on it (docs/ci.md).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "gpuenv/ci/ci_matrix.hpp"

namespace gpuenv::ci {

enum class CiProvider { github, gitlab };

std::optional<CiProvider> parse_provider(std::string_view name);

// Where the provider expects the file, relative to the repository root.
std::string default_config_path(CiProvider provider);

std::string render_ci_config(const CiMatrix& matrix, CiProvider provider);

namespace detail {

std::string render_github_workflow(const CiMatrix& matrix);
std::string render_gitlab_ci(const CiMatrix& matrix);

// What both providers run, one shell command each.
// `gpuenv build` of the job's variant into channels/<id>, the needed jobs'
// channels (under `channels_root`, a shell word) ahead of the configured ones.
std::string build_command(const CiMatrix& matrix, const CiJob& job, std::string_view channels_root);
// The cache variables, relative to `workspace` (a shell word).
std::string cache_exports(std::string_view workspace);
// The final job's listing: the channel's packages as gpuenv sees them.
std::string list_channel_command(std::string_view channel);
// The final job's check: each package installed from the channel alone into
// a fresh environment and judged by `gpuenv doctor` for the matrix's
// check_gpus (`gpuenv ci render --check-gpu`, sm_80 and sm_90 by default);
// the CI machine has no GPU, so CONDA_OVERRIDE_CUDA is the newest CUDA the
// jobs build with (their packages' __cuda requirements are then met).
std::string check_channel_command(const CiMatrix& matrix, std::string_view channel);
// The comment lines every generated file starts with.
std::string generated_header(std::string_view provider);
// A YAML double-quoted scalar.
std::string yaml_quoted(std::string_view text);
std::string job_title(const CiJob& job);

}  // namespace detail
}  // namespace gpuenv::ci
