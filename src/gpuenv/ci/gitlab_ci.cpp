// GitLab CI: jobs run in their image; `needs` with artifacts carries each
// job's channel to the jobs that need it. The final job sits in a later
// stage without `needs`, so it gets every earlier job's artifacts without
// GitLab's limit of 50 needs per job.
#include <fmt/core.h>

#include "gpuenv/ci/ci_config.hpp"

namespace gpuenv::ci::detail {
namespace {

void append_job(std::string& text, const CiMatrix& matrix, const CiJob& job) {
  text += fmt::format("{}:\n  stage: build\n  image: {}\n", job.id, yaml_quoted(job.docker_image));
  if (job.needs.empty()) {
    text += "  needs: []\n";  // start at once, not after the whole stage
  } else {
    text += "  needs:\n";
    for (const auto& needed : job.needs) text += fmt::format("    - job: {}\n      artifacts: true\n", needed);
  }
  text += fmt::format("  cache:\n    key: {}\n    paths:\n      - .gpuenv-cache/\n",
                      yaml_quoted(fmt::format("gpuenv-{}-{}", job.image, job.recipe_hash)));
  text += fmt::format("  script:\n    - {}\n    - {}\n", yaml_quoted(cache_exports("$CI_PROJECT_DIR")),
                      yaml_quoted(build_command(matrix, job, "$CI_PROJECT_DIR/channels")));
  text += fmt::format("  artifacts:\n    name: channel-{}\n    paths:\n      - channels/{}/\n    expire_in: 1 week\n",
                      job.id, job.id);
}

}  // namespace

std::string render_gitlab_ci(const CiMatrix& matrix) {
  std::string text = generated_header("gitlab") + "stages:\n  - build\n  - channel\n";
  for (const auto& job : matrix.jobs) append_job(text, matrix, job);
  text += fmt::format("channel:\n  stage: channel\n  image: {}\n  script:\n", yaml_quoted(matrix.index_image));
  text += "    - mkdir -p channel\n";
  text += fmt::format("    - {}\n", yaml_quoted("for job in channels/*/; do cp -R \"$job.\" channel/; done"));
  text += "    - gpuenv index channel\n";
  text += fmt::format("    - {}\n", yaml_quoted(list_channel_command("$CI_PROJECT_DIR/channel")));
  text += "    # Check: install each package from the channel alone, then gpuenv doctor.\n";
  text += fmt::format("    - {}\n", yaml_quoted(check_channel_command(matrix, "$CI_PROJECT_DIR/channel")));
  text += "  artifacts:\n    name: channel\n    paths:\n      - channel/\n    expire_in: 1 week\n";
  return text;
}

}  // namespace gpuenv::ci::detail
