// `gpuenv ci run` end to end: the chroot runner builds and tests
// recipes/examples/stencil inside the CI images' root filesystems, made
// with debootstrap from Debian's mirror (and PyPI's CUDA wheels), cached
// under the gpuenv cache dir outside the clone so a second run on one
// machine is warm. It needs root and the network: skipped otherwise, saying
// why -- except on CI (CI=true), where a missing piece fails.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "support/run_command.hpp"
#include "support/temp_directory.hpp"

namespace {

namespace fs = std::filesystem;
using gpuenv::testing::CommandOutput;
using gpuenv::testing::run_program;
using gpuenv::testing::shell_quote;

const fs::path source_dir = GPUENV_SOURCE_DIR;

bool on_ci() {
  const char* ci = std::getenv("CI");
  return ci != nullptr && std::string(ci) == "true";
}

CommandOutput gpuenv_at_root(const std::string& arguments) {
  return run_program("/bin/sh", {"-c", "cd " + shell_quote(source_dir.string()) + " && " +
                                           shell_quote(GPUENV_BINARY) + " " + arguments});
}

// Why the chroot runner cannot run here, or empty.
std::string why_no_chroot_runner() {
  if (::geteuid() != 0) return "the chroot runner needs root (unshare, mount, chroot)";
  if (run_program("/bin/sh", {"-c", "command -v debootstrap || test -x /usr/sbin/debootstrap"}).exit_code != 0) {
    return "debootstrap is not installed (scripts/setup.sh installs it)";
  }
  if (run_program("getent", {"hosts", "deb.debian.org"}).exit_code != 0) return "deb.debian.org does not resolve";
  return {};
}

#define REQUIRE_CHROOT_RUNNER()                          \
  if (const auto why = why_no_chroot_runner(); !why.empty()) { \
    if (on_ci()) FAIL() << why;                          \
    GTEST_SKIP() << why;                                 \
  }

// The variant files that offer CUDA 11.8 (opt-in) besides the default ones.
const std::string kVariantFiles = "-m metadata/variants/variants.yaml -m metadata/variants/cuda118.yaml";

// One `gpuenv ci run` of the stencil example for one cuda_compiler_version;
// its --json document.
nlohmann::json run_stencil(const fs::path& output_dir, const std::string& cuda_version,
                           const std::string& variant_files = kVariantFiles, const std::string& more_arguments = "") {
  const auto start = std::chrono::steady_clock::now();
  const auto ran = gpuenv_at_root("ci run recipes/examples/stencil " + variant_files +
                                  " --runner chroot --override-channels --variant cuda_compiler_version=" +
                                  cuda_version + " --output-dir " + shell_quote(output_dir.string()) + " --json " +
                                  more_arguments);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(ran.exit_code, 0) << ran.out << "\n" << ran.err.substr(ran.err.size() > 6000 ? ran.err.size() - 6000 : 0);
  auto document = nlohmann::json::parse(ran.out, nullptr, false);
  EXPECT_FALSE(document.is_discarded()) << ran.out;
  std::printf("gpuenv ci run (cuda_compiler_version=%s): %.1f s\n", cuda_version.c_str(), seconds);
  return document;
}

// Two CUDA majors, two ways of getting the toolkit: NVIDIA's wheels from
// PyPI (cuda13.0) and Debian's non-free nvidia-cuda-toolkit (cuda11.8). One
// test, so parallel ctest jobs never make the same trees at once. Cold
// (nothing cached) it makes a 0.9 GB and a 5.6 GB tree (1.7 GB of .debs).
TEST(CiRunChroot, StencilBuildsAndPassesItsTestsWithCuda13And118AndNeverWithAnotherNvcc) {
  REQUIRE_CHROOT_RUNNER();
  gpuenv::testing::TempDirectory output;
  // The CUDA 13.0 job also reads its source (--source) and an empty local
  // channel (-c DIR) through read-only mounts.
  gpuenv::testing::TempDirectory local_channel;
  const auto indexed = gpuenv_at_root("index " + shell_quote(local_channel.path().string()));
  ASSERT_EQ(indexed.exit_code, 0) << indexed.err;
  const auto mounted_inputs = "--source " + shell_quote((source_dir / "recipes/examples/stencil/src").string()) +
                              " -c " + shell_quote(local_channel.path().string());
  for (const auto& [cuda_version, image] : {std::pair{"13.0", "cuda13.0"}, std::pair{"11.8", "cuda11.8"}}) {
    const auto document = run_stencil(output.path(), cuda_version, kVariantFiles,
                                      std::string(cuda_version) == "13.0" ? mounted_inputs : std::string());
    ASSERT_TRUE(document.is_object());
    EXPECT_EQ(document["schema_version"], 1);
    EXPECT_EQ(document["success"], true) << document.dump(2);
    ASSERT_EQ(document["jobs"].size(), 1u) << document.dump(2);
    const auto& job = document["jobs"][0];
    EXPECT_EQ(job["image"], image);
    EXPECT_EQ(job["runner"], "chroot");
    ASSERT_EQ(job["packages"].size(), 1u) << job.dump(2);
    const fs::path package = job["packages"][0].get<std::string>();
    EXPECT_TRUE(fs::exists(package)) << package;
    EXPECT_TRUE(package.string().starts_with(output.path().string())) << package;
    // The recipe's build string: cuda130_..., cuda118_...
    std::string build_tag = std::string("cuda") + cuda_version + "_";
    build_tag.erase(std::remove(build_tag.begin(), build_tag.end(), '.'), build_tag.end());
    EXPECT_NE(package.filename().string().find(build_tag), std::string::npos) << package;
    EXPECT_GE(job["tests"].get<int>(), 2) << job.dump(2);
    EXPECT_EQ(job["cuda_check"], "passed: 1 file with device code for 75-real;80-real;90") << job.dump(2);
  }
  // The CUDA 13.0 variant sent to the CUDA 11.8 image (warm now): refused
  // before anything is built.
  gpuenv::testing::TempDirectory refused_output;
  const auto ran = gpuenv_at_root("ci run recipes/examples/stencil " + kVariantFiles +
                                  " --runner chroot --override-channels --image cuda11.8 "
                                  "--variant cuda_compiler_version=13.0 --output-dir " +
                                  shell_quote(refused_output.path().string()));
  EXPECT_EQ(ran.exit_code, 1) << ran.out << ran.err;
  EXPECT_NE(ran.out.find("image cuda11.8: the variant needs CUDA 13.0, but nvcc on the build's PATH reports release "
                         "11.8"),
            std::string::npos)
      << ran.out;
  EXPECT_FALSE(fs::exists(refused_output.path() / "linux-64")) << "nothing was built";
}

// CUDA 12 from Debian 13's nvidia-cuda-toolkit 12.4 in a trixie tree, with
// gpuenv (built on Debian 12) run from its bundle. Its trees share nothing
// with the test above (base-trixie-..., cuda12.4-...), so the two may run at
// once. Cold: 1.9 GB of .debs, a 5 GB tree; warm: about 15 s.
TEST(CiRunChroot, StencilBuildsWithCuda124OnDebian13FromItsBundleAndNeverWithAnotherNvcc) {
  REQUIRE_CHROOT_RUNNER();
  const std::string variant_files = "-m metadata/variants/variants.yaml -m metadata/variants/cuda124.yaml";
  gpuenv::testing::TempDirectory output;
  const auto document = run_stencil(output.path(), "12.4", variant_files);
  ASSERT_TRUE(document.is_object());
  EXPECT_EQ(document["success"], true) << document.dump(2);
  ASSERT_EQ(document["jobs"].size(), 1u) << document.dump(2);
  const auto& job = document["jobs"][0];
  EXPECT_EQ(job["image"], "cuda12.4");
  ASSERT_EQ(job["packages"].size(), 1u) << job.dump(2);
  EXPECT_NE(job["packages"][0].get<std::string>().find("-cuda124_"), std::string::npos) << job.dump(2);
  EXPECT_GE(job["tests"].get<int>(), 2) << job.dump(2);
  EXPECT_EQ(job["cuda_check"], "passed: 1 file with device code for 75-real;80-real;90") << job.dump(2);

  // A CUDA 13.0 variant sent to this image is refused by its nvcc's release.
  gpuenv::testing::TempDirectory refused_output;
  const auto ran = gpuenv_at_root("ci run recipes/examples/stencil " + variant_files +
                                  " --runner chroot --override-channels --image cuda12.4 "
                                  "--variant cuda_compiler_version=13.0 --output-dir " +
                                  shell_quote(refused_output.path().string()));
  EXPECT_EQ(ran.exit_code, 1) << ran.out << ran.err;
  EXPECT_NE(ran.out.find("image cuda12.4: the variant needs CUDA 13.0, but nvcc on the build's PATH reports release "
                         "12.4"),
            std::string::npos)
      << ran.out;
  EXPECT_FALSE(fs::exists(refused_output.path() / "linux-64")) << "nothing was built";
}

TEST(CiRunCli, AnEngineWithoutItsDaemonNamesTheRunnerAndTheWayOut) {
  gpuenv::testing::TempDirectory output;
  // An empty PATH: docker is "not installed", wherever this runs.
  const auto ran = run_program("/bin/sh", {"-c", "cd " + shell_quote(source_dir.string()) + " && PATH=/nonexistent " +
                                                     shell_quote(GPUENV_BINARY) +
                                                     " ci run recipes/examples/stencil --runner docker --output-dir " +
                                                     shell_quote(output.path().string())});
  EXPECT_NE(ran.exit_code, 0);
  EXPECT_NE(ran.err.find("runner docker: docker is not installed here; use --runner chroot"), std::string::npos)
      << ran.err;
}

TEST(CiRunCli, UnknownRunnersAndVariantsAreRefused) {
  const auto runner = gpuenv_at_root("ci run recipes/examples/stencil --runner lxc");
  EXPECT_EQ(runner.exit_code, 2) << runner.err;
  EXPECT_NE(runner.err.find("unknown runner 'lxc': use chroot, docker, podman or host"), std::string::npos)
      << runner.err;
  const auto variant = gpuenv_at_root("ci run recipes/examples/stencil --runner host --variant cuda_compiler_version=7.5");
  EXPECT_NE(variant.exit_code, 0);
  EXPECT_NE(variant.err.find("no variant matches --variant cuda_compiler_version=7.5"), std::string::npos)
      << variant.err;
}

// A --source or local -c that does not exist is refused before anything is
// made or built (the chroot runner would otherwise mount a missing path).
TEST(CiRunCli, AMissingSourceOrLocalChannelIsRefusedBeforeAnyJob) {
  gpuenv::testing::TempDirectory output;
  const auto missing = (output.path() / "absent").string();
  const auto source = gpuenv_at_root("ci run recipes/examples/stencil --runner host --variant cuda_compiler_version=None"
                                     " --output-dir " + shell_quote(output.path().string()) +
                                     " --source " + shell_quote(missing));
  EXPECT_EQ(source.exit_code, 1) << source.out << source.err;
  EXPECT_NE(source.err.find("--source " + missing + ": no such file or directory"), std::string::npos) << source.err;
  const auto channel = gpuenv_at_root("ci run recipes/examples/stencil --runner host --variant cuda_compiler_version=None"
                                      " --output-dir " + shell_quote(output.path().string()) +
                                      " -c " + shell_quote(missing));
  EXPECT_EQ(channel.exit_code, 1) << channel.out << channel.err;
  EXPECT_NE(channel.err.find("-c " + missing + ": " + missing + " is not an existing directory"), std::string::npos)
      << channel.err;
  EXPECT_FALSE(fs::exists(output.path() / "linux-64")) << "nothing was built";
}

// Several recipes through the host runner, as bench/python_stack/build_part1.sh
// --image runs the Python stack in an image: in the order they need each
// other, one recipe's source from --source-for, another's url source found
// by its sha256 in --source-archives; a re-run skips both
// (--skip-existing=local is the default for several recipes).
TEST(CiRunCli, SeveralRecipesRunInOrderWithTheirSourcesAndARerunSkipsThem) {
  gpuenv::testing::TempDirectory work;
  const auto root = work.path();
  gpuenv::testing::write_text_file(root / "payload/base-1.0/data.txt", "base data\n");
  fs::create_directories(root / "archives");
  const auto packed = run_program("tar", {"-czf", (root / "archives/base-1.0.tar.gz").string(), "-C",
                                          (root / "payload").string(), "base-1.0"});
  ASSERT_EQ(packed.exit_code, 0) << packed.err;
  const auto digest = run_program("sha256sum", {(root / "archives/base-1.0.tar.gz").string()}).out.substr(0, 64);
  gpuenv::testing::write_text_file(root / "recipes/base/recipe.yaml", R"(package:
  name: base
  version: "1.0"
source:
  url: https://example.invalid/base-1.0.tar.gz
  sha256: )" + digest + R"(
build:
  noarch: generic
  script:
    - mkdir -p "$PREFIX/share/base" && cp data.txt "$PREFIX/share/base/"
)");
  gpuenv::testing::write_text_file(root / "recipes/top/recipe.yaml", R"(package:
  name: top
  version: "1.0"
source:
  path: not-there
build:
  noarch: generic
  script:
    - mkdir -p "$PREFIX/share/top" && cp top.txt "$PREFIX/share/top/" && cat "$PREFIX/share/base/data.txt"
requirements:
  host:
    - base
  run:
    - base
)");
  gpuenv::testing::write_text_file(root / "top-source/top.txt", "top\n");
  gpuenv::testing::write_text_file(root / "variants.yaml", "docker_image:\n  - gpuenv/ci-cpu\n");
  const auto run = [&] {
    return gpuenv_at_root("ci run " + shell_quote((root / "recipes/top").string()) + " " +
                          shell_quote((root / "recipes/base").string()) + " --runner host -m " +
                          shell_quote((root / "variants.yaml").string()) + " --override-channels --output-dir " +
                          shell_quote((root / "output").string()) + " --source-for " +
                          shell_quote("top=" + (root / "top-source").string()) + " --source-archives " +
                          shell_quote((root / "archives").string()) + " --json");
  };
  const auto first = run();
  ASSERT_EQ(first.exit_code, 0) << first.out << first.err;
  auto document = nlohmann::json::parse(first.out);
  ASSERT_EQ(document["jobs"].size(), 2u) << first.out;
  EXPECT_EQ(document["jobs"][0]["recipe"].get<std::string>().find("base") != std::string::npos, true) << first.out;
  for (const auto& job : document["jobs"]) {
    EXPECT_EQ(job["packages"].size(), 1u) << job.dump();
    EXPECT_TRUE(job["skipped"].empty()) << job.dump();
  }

  const auto second = run();
  ASSERT_EQ(second.exit_code, 0) << second.out << second.err;
  document = nlohmann::json::parse(second.out);
  ASSERT_EQ(document["jobs"].size(), 2u) << second.out;
  for (const auto& job : document["jobs"]) {
    EXPECT_TRUE(job["packages"].empty()) << job.dump();
    EXPECT_EQ(job["skipped"].size(), 1u) << job.dump();
    // Known before the job starts: no runner, no image, no build log.
    const auto file = fs::path(job["skipped"][0].get<std::string>()).filename().string();
    EXPECT_NE(second.err.find(job["id"].get<std::string>() + ": " + file + " is in the output channel already; not run"),
              std::string::npos)
        << second.err;
  }
  EXPECT_EQ(second.err.find("in image"), std::string::npos) << second.err;
  const auto table = gpuenv_at_root("ci run " + shell_quote((root / "recipes").string()) + " --runner host -m " +
                                    shell_quote((root / "variants.yaml").string()) +
                                    " --override-channels --output-dir " + shell_quote((root / "output").string()));
  EXPECT_EQ(table.exit_code, 0) << table.out << table.err;
  EXPECT_NE(table.out.find("(skipped: in the output channel)"), std::string::npos) << table.out;

  const auto wrong = gpuenv_at_root("ci run " + shell_quote((root / "recipes").string()) +
                                    " --runner host --source-for nothing=/tmp --output-dir " +
                                    shell_quote((root / "output").string()));
  EXPECT_EQ(wrong.exit_code, 2) << wrong.out << wrong.err;
  EXPECT_NE(wrong.err.find("--source-for nothing=/tmp does not name a recipe being built"), std::string::npos)
      << wrong.err;
}

}  // namespace
