// GitHub Actions: jobs run in their image as a job container; artifacts
// carry each job's channel to the jobs that need it and to the final job.
#include <fmt/core.h>

#include "gpuenv/ci/ci_config.hpp"

namespace gpuenv::ci::detail {
namespace {

// The majors that run on Node 24 (GitHub retires Node 20 actions).
constexpr std::string_view checkout = "actions/checkout@v6";
constexpr std::string_view cache = "actions/cache@v5";
constexpr std::string_view upload = "actions/upload-artifact@v6";
constexpr std::string_view download = "actions/download-artifact@v7";

void append_job(std::string& text, const CiMatrix& matrix, const CiJob& job) {
  text += fmt::format("  {}:\n    name: {}\n    runs-on: ubuntu-latest\n", job.id, yaml_quoted(job_title(job)));
  if (!job.needs.empty()) {
    text += "    needs:\n";
    for (const auto& needed : job.needs) text += fmt::format("      - {}\n", needed);
  }
  text += fmt::format("    container:\n      image: {}\n    steps:\n      - uses: {}\n",
                      yaml_quoted(job.docker_image), checkout);
  for (const auto& needed : job.needs) {
    text += fmt::format(
        "      - name: {}\n        uses: {}\n        with:\n          name: channel-{}\n          path: channels/{}\n",
        yaml_quoted("Packages of " + needed), download, needed, needed);
  }
  const auto key_prefix = fmt::format("gpuenv-{}-{}-", job.image, job.recipe_hash);
  text += fmt::format(
      "      - name: Package and source caches\n        uses: {}\n        with:\n          path: .gpuenv-cache\n"
      "          key: {}\n          restore-keys: |\n            {}\n            {}\n",
      cache, yaml_quoted(key_prefix + job.id), key_prefix, fmt::format("gpuenv-{}-", job.image));
  text += fmt::format("      - name: Build\n        run: |\n          {}\n          {}\n", cache_exports("$PWD"),
                      build_command(matrix, job, "$PWD/channels"));
  text += fmt::format(
      "      - name: Upload the channel\n        uses: {}\n        with:\n          name: channel-{}\n"
      "          path: channels/{}\n          if-no-files-found: error\n",
      upload, job.id, job.id);
}

}  // namespace

std::string render_github_workflow(const CiMatrix& matrix) {
  std::string text = generated_header("github") +
      "name: gpuenv packages\n"
      "on:\n  push:\n    branches:\n      - main\n  pull_request:\n  workflow_dispatch:\n"
      "permissions:\n  contents: read\n"
      "jobs:\n";
  for (const auto& job : matrix.jobs) append_job(text, matrix, job);
  text += "  channel:\n    name: \"Channel: index, install each package, doctor\"\n    runs-on: ubuntu-latest\n";
  if (!matrix.jobs.empty()) {
    text += "    needs:\n";
    for (const auto& job : matrix.jobs) text += fmt::format("      - {}\n", job.id);
  }
  text += fmt::format("    container:\n      image: {}\n    steps:\n", yaml_quoted(matrix.index_image));
  text += fmt::format(
      "      - name: Every job's packages\n        uses: {}\n        with:\n          pattern: channel-*\n"
      "          path: channel\n          merge-multiple: true\n",
      download);
  text += "      - name: Index\n        run: gpuenv index channel\n";
  text += fmt::format("      - name: List the packages\n        run: {}\n", yaml_quoted(list_channel_command("$PWD/channel")));
  text += fmt::format("      - name: \"Check: install each package from the channel alone, then gpuenv doctor\"\n"
                      "        run: {}\n",
                      yaml_quoted(check_channel_command(matrix, "$PWD/channel")));
  text += fmt::format(
      "      - name: Upload the channel\n        uses: {}\n        with:\n          name: channel\n"
      "          path: channel\n          if-no-files-found: error\n",
      upload);
  return text;
}

}  // namespace gpuenv::ci::detail
