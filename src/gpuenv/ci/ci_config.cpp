#include "gpuenv/ci/ci_config.hpp"

#include <fmt/core.h>

#include <nlohmann/json.hpp>

namespace gpuenv::ci {

std::optional<CiProvider> parse_provider(std::string_view name) {
  if (name == "github") return CiProvider::github;
  if (name == "gitlab") return CiProvider::gitlab;
  return std::nullopt;
}

std::string default_config_path(CiProvider provider) {
  return provider == CiProvider::github ? ".github/workflows/gpuenv-packages.yml" : ".gitlab-ci.yml";
}

std::string render_ci_config(const CiMatrix& matrix, CiProvider provider) {
  return provider == CiProvider::github ? detail::render_github_workflow(matrix) : detail::render_gitlab_ci(matrix);
}

namespace detail {

// Every word reaching these lines was restricted by ci_matrix.cpp (paths,
// variant values) or is generated here (job ids); the quotes keep `*` and
// spaces in variant values (python=3.10.* *_cpython) one word.
std::string build_command(const CiMatrix& matrix, const CiJob& job, std::string_view channels_root) {
  std::string command = fmt::format("gpuenv build '{}'", job.recipe);
  for (const auto& file : matrix.variant_files) command += fmt::format(" -m '{}'", file);
  for (const auto& argument : job.variant_arguments) command += fmt::format(" --variant '{}'", argument);
  for (const auto& needed : job.needs) command += fmt::format(" -c \"{}/{}\"", channels_root, needed);
  command += fmt::format(" --output-dir 'channels/{}'", job.id);
  return command;
}

std::string cache_exports(std::string_view workspace) {
  return fmt::format("export CONDA_PKGS_DIRS=\"{0}/.gpuenv-cache/pkgs\" GPUENV_CACHE_DIR=\"{0}/.gpuenv-cache/gpuenv\"",
                     workspace);
}

std::string list_channel_command(std::string_view channel) {
  return fmt::format("gpuenv search --override-channels -c \"{}\" '*'", channel);
}

std::string yaml_quoted(std::string_view text) { return nlohmann::json(std::string(text)).dump(); }

std::string job_title(const CiJob& job) {
  return fmt::format("{} {} {} ({})", job.package, job.version, job.build_string, job.image);
}

}  // namespace detail
}  // namespace gpuenv::ci
