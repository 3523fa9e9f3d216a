// `gpuenv ci run --source/--source-version/-c`: what a job may read from
// this machine, each mounted read-only, and the values the build in the
// image gets for them.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "gpuenv/ci/job_inputs.hpp"
#include "gpuenv/ci/job_runners.hpp"
#include "support/temp_directory.hpp"

namespace {

namespace fs = std::filesystem;
using gpuenv::ci::CiRunRequest;
using gpuenv::ci::detail::resolve_job_inputs;
using gpuenv::testing::TempDirectory;
using gpuenv::testing::write_text_file;

CiRunRequest request_with(const TempDirectory& home) {
  CiRunRequest request;
  request.environment = {{"HOME", home.path().string()}};
  return request;
}

TEST(JobInputs, NothingAskedMountsNothing) {
  TempDirectory home;
  const auto inputs = resolve_job_inputs(request_with(home));
  ASSERT_TRUE(inputs) << inputs.error().message;
  EXPECT_FALSE(inputs->source);
  EXPECT_TRUE(inputs->read_only_mounts().empty());
  EXPECT_TRUE(inputs->channel_arguments(true).empty());
}

TEST(JobInputs, ASourceArchiveIsMountedReadOnlyUnderTheNameTheUserGaveIt) {
  TempDirectory scratch;
  write_text_file(scratch / "blobs/ucx-download", "not really xz");
  fs::create_symlink(scratch / "blobs/ucx-download", scratch / "ucx_1.13.1.orig.tar.xz");
  auto request = request_with(scratch);
  request.source = (scratch / "ucx_1.13.1.orig.tar.xz").string();
  request.source_version = "1.13.1";
  const auto inputs = resolve_job_inputs(request);
  ASSERT_TRUE(inputs) << inputs.error().message;
  ASSERT_TRUE(inputs->source);
  // The link's target is what is mounted; the name keeps the archive's
  // extension, which tells the build how to extract it.
  EXPECT_EQ(inputs->source->host, fs::canonical(scratch / "blobs/ucx-download"));
  EXPECT_EQ(inputs->source->in_image, "/gpuenv/source/ucx_1.13.1.orig.tar.xz");
  EXPECT_EQ(inputs->source_version, "1.13.1");
  const auto mounts = inputs->read_only_mounts();
  ASSERT_EQ(mounts.size(), 1u);
  EXPECT_TRUE(mounts[0].read_only);
  EXPECT_EQ(mounts[0].target, "/gpuenv/source/ucx_1.13.1.orig.tar.xz");
}

TEST(JobInputs, ASourceDirectoryWithATrailingSlashKeepsItsName) {
  TempDirectory scratch;
  fs::create_directories(scratch / "ucx-1.13.1");
  auto request = request_with(scratch);
  request.source = (scratch / "ucx-1.13.1").string() + "/";
  const auto inputs = resolve_job_inputs(request);
  ASSERT_TRUE(inputs) << inputs.error().message;
  EXPECT_EQ(inputs->source->in_image, "/gpuenv/source/ucx-1.13.1");
}

TEST(JobInputs, AMissingSourceANonArchiveFileAndABadVersionAreRefusedBeforeAnyJob) {
  TempDirectory scratch;
  write_text_file(scratch / "notes.txt", "text");
  auto request = request_with(scratch);
  request.source = (scratch / "absent").string();
  auto inputs = resolve_job_inputs(request);
  ASSERT_FALSE(inputs);
  EXPECT_NE(inputs.error().message.find("--source " + (scratch / "absent").string() + ": no such file or directory"),
            std::string::npos)
      << inputs.error().message;

  request.source = (scratch / "notes.txt").string();
  inputs = resolve_job_inputs(request);
  ASSERT_FALSE(inputs);
  EXPECT_NE(inputs.error().message.find("give a directory or an archive"), std::string::npos) << inputs.error().message;

  request.source.reset();
  request.source_version = "1.13.1-1";  // a Debian version, not a conda one
  inputs = resolve_job_inputs(request);
  ASSERT_FALSE(inputs);
  EXPECT_NE(inputs.error().message.find("--source-version '1.13.1-1' is not a conda version"), std::string::npos)
      << inputs.error().message;
}

TEST(JobInputs, LocalChannelsAreMountedReadOnlyAndNamesAndUrlsPassUnchanged) {
  TempDirectory scratch;
  fs::create_directories(scratch / "channels/cuda/linux-64");
  fs::create_directories(scratch / "channels/more");
  auto request = request_with(scratch);
  request.channels = {"conda-forge", (scratch / "channels/cuda").string(), "https://example.org/channel",
                      "file://" + (scratch / "channels/more").string(), "~/channels/cuda/linux-64/.."};
  const auto inputs = resolve_job_inputs(request);
  ASSERT_TRUE(inputs) << inputs.error().message;
  const auto cuda = fs::canonical(scratch / "channels/cuda").string();
  EXPECT_EQ(inputs->channel_arguments(true),
            (std::vector<std::string>{"conda-forge", "/gpuenv/channels/1", "https://example.org/channel",
                                      "/gpuenv/channels/3", "/gpuenv/channels/4"}));
  EXPECT_EQ(inputs->channel_arguments(false),
            (std::vector<std::string>{"conda-forge", cuda, "https://example.org/channel",
                                      fs::canonical(scratch / "channels/more").string(), cuda}));
  const auto mounts = inputs->read_only_mounts();
  ASSERT_EQ(mounts.size(), 3u);
  for (const auto& mount : mounts) EXPECT_TRUE(mount.read_only) << mount.target;
  EXPECT_EQ(mounts[0].source, fs::path(cuda));
  EXPECT_EQ(mounts[0].target, "/gpuenv/channels/1");
}

TEST(JobInputs, ALocalChannelThatIsNotADirectoryIsRefusedSayingWhatToGive) {
  TempDirectory scratch;
  write_text_file(scratch / "repodata.json", "{}");
  auto request = request_with(scratch);
  for (const auto& channel : {(scratch / "absent").string(), (scratch / "repodata.json").string(),
                              std::string("./surely-not-here-") + std::to_string(::getpid())}) {
    request.channels = {channel};
    const auto inputs = resolve_job_inputs(request);
    ASSERT_FALSE(inputs) << channel;
    EXPECT_NE(inputs.error().message.find("-c " + channel + ": "), std::string::npos) << inputs.error().message;
    EXPECT_NE(inputs.error().message.find("is not an existing directory"), std::string::npos)
        << inputs.error().message;
  }
}

TEST(JobInputs, TheBuildInTheImageGetsTheMountedPathsAndTheVersion) {
  TempDirectory scratch;
  fs::create_directories(scratch / "ucx-1.13.1");
  fs::create_directories(scratch / "channel");
  auto request = request_with(scratch);
  request.source = (scratch / "ucx-1.13.1").string();
  request.source_version = "1.13.1";
  request.channels = {(scratch / "channel").string()};
  request.override_channels = true;
  const auto inputs = resolve_job_inputs(request);
  ASSERT_TRUE(inputs) << inputs.error().message;
  gpuenv::ci::CiJob job;
  job.variant_arguments = {"cuda_compiler_version=13.0"};
  gpuenv::ci::detail::BuildPaths paths{"gpuenv", "/gpuenv/recipe/recipe.yaml", {}, "/gpuenv/output", {}, {}, {}};
  paths.channels = inputs->channel_arguments(true);
  paths.source = inputs->source->in_image;
  EXPECT_EQ(gpuenv::ci::detail::build_arguments(request, job, paths),
            (std::vector<std::string>{"gpuenv", "build", "/gpuenv/recipe/recipe.yaml", "--variant",
                                      "cuda_compiler_version=13.0", "-c", "/gpuenv/channels/0", "--override-channels",
                                      "--source", "/gpuenv/source/ucx-1.13.1", "--source-version", "1.13.1",
                                      "--output-dir", "/gpuenv/output", "--json"}));
}

// bench/python_stack/build_part1.sh --image: Debian's .orig tarballs, found
// by sha256 (gpuenv build --source-archives), and a repository run that
// skips what the output channel already holds.
TEST(JobInputs, SourceArchiveDirectoriesAreMountedReadOnlyAndPassedToTheBuildWithSkipExisting) {
  TempDirectory scratch;
  fs::create_directories(scratch / "debian-sources");
  fs::create_directories(scratch / "more");
  auto request = request_with(scratch);
  request.source_archives = {(scratch / "debian-sources").string(), "~/more/"};
  request.skip_existing = true;
  const auto inputs = resolve_job_inputs(request);
  ASSERT_TRUE(inputs) << inputs.error().message;
  EXPECT_EQ(inputs->source_archive_arguments(true),
            (std::vector<std::string>{"/gpuenv/source-archives/0", "/gpuenv/source-archives/1"}));
  EXPECT_EQ(inputs->source_archive_arguments(false),
            (std::vector<std::string>{fs::canonical(scratch / "debian-sources").string(),
                                      fs::canonical(scratch / "more").string()}));
  const auto mounts = inputs->read_only_mounts();
  ASSERT_EQ(mounts.size(), 2u);
  for (const auto& mount : mounts) EXPECT_TRUE(mount.read_only) << mount.target;
  EXPECT_EQ(mounts[1].target, "/gpuenv/source-archives/1");

  gpuenv::ci::CiJob job;
  gpuenv::ci::detail::BuildPaths paths{"gpuenv", "/gpuenv/recipe/recipe.yaml", {}, "/gpuenv/output", {}, {}, {}};
  paths.source_archives = inputs->source_archive_arguments(true);
  EXPECT_EQ(gpuenv::ci::detail::build_arguments(request, job, paths),
            (std::vector<std::string>{"gpuenv", "build", "/gpuenv/recipe/recipe.yaml", "--source-archives",
                                      "/gpuenv/source-archives/0", "--source-archives", "/gpuenv/source-archives/1",
                                      "--skip-existing=local", "--output-dir", "/gpuenv/output", "--json"}));
}

TEST(JobInputs, ASourceArchivesPathThatIsNotAnExistingDirectoryIsRefusedNamingIt) {
  TempDirectory scratch;
  write_text_file(scratch / "zlib.tar.gz", "not a directory");
  auto request = request_with(scratch);
  for (const auto& given : {(scratch / "absent").string(), (scratch / "zlib.tar.gz").string()}) {
    request.source_archives = {given};
    const auto inputs = resolve_job_inputs(request);
    ASSERT_FALSE(inputs) << given;
    EXPECT_NE(inputs.error().message.find("--source-archives " + given + ": "), std::string::npos)
        << inputs.error().message;
  }
}

// Behind a TLS-intercepting proxy the image's CA store does not know the
// proxy's CA: the bundle this machine's gpuenv trusts goes with the job.
TEST(JobInputs, TheHostsConfiguredCaBundleIsWhatTheJobsDownloadsTrust) {
  TempDirectory scratch;
  write_text_file(scratch / "proxy-ca.pem", "-----BEGIN CERTIFICATE-----\n");
  fs::create_directories(scratch / "certs");
  auto request = request_with(scratch);
  EXPECT_TRUE(gpuenv::ci::detail::host_ca_bundle(request).empty());  // none configured: the image's store
  request.environment["SSL_CERT_FILE"] = (scratch / "certs").string();  // a directory: not mountable as the bundle
  EXPECT_TRUE(gpuenv::ci::detail::host_ca_bundle(request).empty());
  request.environment["CURL_CA_BUNDLE"] = (scratch / "proxy-ca.pem").string();
  request.environment["REQUESTS_CA_BUNDLE"] = (scratch / "absent.pem").string();
  EXPECT_EQ(gpuenv::ci::detail::host_ca_bundle(request), fs::canonical(scratch / "proxy-ca.pem"));
  EXPECT_EQ(gpuenv::ci::detail::ca_bundle_environment(),
            (std::vector<std::string>{"REQUESTS_CA_BUNDLE=/gpuenv/ca-bundle.pem", "SSL_CERT_FILE=/gpuenv/ca-bundle.pem",
                                      "PIP_CERT=/gpuenv/ca-bundle.pem"}));
}

}  // namespace
