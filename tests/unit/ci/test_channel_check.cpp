#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "gpuenv/ci/channel_check.hpp"
#include "support/temp_directory.hpp"

namespace {

namespace fs = std::filesystem;
using gpuenv::ci::ChannelPackage;

const char* kLinux64 = R"({
  "info": {"subdir": "linux-64"},
  "packages": {},
  "packages.conda": {
    "libstencil-1.0.0-cuda130_h1_0.conda": {"name": "libstencil", "version": "1.0.0", "build": "cuda130_h1_0",
                                           "depends": ["__cuda >=13", "__glibc >=2.17"]},
    "app-2.0-h2_0.conda": {"name": "app", "version": "2.0", "build": "h2_0",
                          "depends": ["libstencil >=1.0.0,<1.1.0a0", "libzlib >=1.3", "python_abi 3.12.* *_cp312",
                                      "libzlib"]}
  }
})";

const char* kNoarch = R"({"packages.conda": {"headers-1-0.conda": {"name": "headers", "version": "1", "build": "0"}}})";

TEST(ChannelCheck, ReadsEveryIndexedSubdirSorted) {
  gpuenv::testing::TempDirectory dir;
  gpuenv::testing::write_text_file(dir.path() / "linux-64" / "repodata.json", kLinux64);
  gpuenv::testing::write_text_file(dir.path() / "noarch" / "repodata.json", kNoarch);
  gpuenv::testing::write_text_file(dir.path() / "not-indexed" / "x.conda", "");
  auto packages = gpuenv::ci::read_channel_packages(dir.path());
  ASSERT_TRUE(packages) << packages.error().message;
  ASSERT_EQ(packages->size(), 3u);
  EXPECT_EQ((*packages)[0].file, "app-2.0-h2_0.conda");
  EXPECT_EQ((*packages)[1].name, "libstencil");
  EXPECT_EQ((*packages)[1].depends.size(), 2u);
  EXPECT_EQ((*packages)[2].subdir, "noarch");
  EXPECT_EQ(gpuenv::ci::exact_spec((*packages)[1]), "libstencil=1.0.0=cuda130_h1_0");
}

TEST(ChannelCheck, OnlyDependenciesNeitherInTheChannelNorVirtualAreMissing) {
  gpuenv::testing::TempDirectory dir;
  gpuenv::testing::write_text_file(dir.path() / "linux-64" / "repodata.json", kLinux64);
  auto packages = gpuenv::ci::read_channel_packages(dir.path());
  ASSERT_TRUE(packages);
  EXPECT_EQ(gpuenv::ci::missing_dependencies((*packages)[0], *packages),
            (std::vector<std::string>{"libzlib", "python_abi"}));
  EXPECT_TRUE(gpuenv::ci::missing_dependencies((*packages)[1], *packages).empty());
}

TEST(ChannelCheck, AChannelWithoutIndexOrWithBrokenRepodataIsNamed) {
  gpuenv::testing::TempDirectory dir;
  auto empty = gpuenv::ci::read_channel_packages(dir.path());
  ASSERT_FALSE(empty);
  EXPECT_NE(empty.error().message.find("gpuenv index"), std::string::npos) << empty.error().message;
  gpuenv::testing::write_text_file(dir.path() / "linux-64" / "repodata.json", "{not json");
  auto broken = gpuenv::ci::read_channel_packages(dir.path());
  ASSERT_FALSE(broken);
  EXPECT_NE(broken.error().message.find("not repodata JSON"), std::string::npos) << broken.error().message;
}

TEST(ChannelCheck, PackagesThatCannotComeFromTheChannelAloneAreSkippedSayingWhy) {
  // Nothing is installed: app needs packages from elsewhere, so it is
  // skipped before any gpuenv runs (the binary here would fail the check).
  gpuenv::testing::TempDirectory dir;
  gpuenv::testing::write_text_file(dir.path() / "channel" / "linux-64" / "repodata.json",
                                   R"({"packages.conda": {"app-2.0-h2_0.conda": {"name": "app", "version": "2.0",
                                       "build": "h2_0", "depends": ["libzlib >=1.3"]}}})");
  gpuenv::ci::ChannelCheckRequest request;
  request.channel = dir.path() / "channel";
  request.gpuenv_binary = "/bin/false";
  request.work_dir = dir.path() / "work";
  auto results = gpuenv::ci::check_channel(request);
  ASSERT_TRUE(results) << results.error().message;
  ASSERT_EQ(results->size(), 1u);
  EXPECT_EQ((*results)[0].verdict, gpuenv::ci::ChannelCheckVerdict::skipped);
  EXPECT_NE((*results)[0].reason.find("needs libzlib, not in the channel"), std::string::npos) << (*results)[0].reason;
}


gpuenv::ci::ChannelCheckResult check_result(const char* file, gpuenv::ci::ChannelCheckVerdict verdict,
                                            std::string reason = {}) {
  gpuenv::ci::ChannelCheckResult result;
  result.package = {"linux-64", file, "app", "2.0", "h2_0", {}};
  result.verdict = verdict;
  result.reason = std::move(reason);
  return result;
}

TEST(ChannelCheck, OnlyAFailedPackageFailsTheChannel) {
  using gpuenv::ci::ChannelCheckVerdict;
  EXPECT_TRUE(gpuenv::ci::channel_check_passed({}));
  EXPECT_TRUE(gpuenv::ci::channel_check_passed({check_result("a.conda", ChannelCheckVerdict::passed),
                                                check_result("b.conda", ChannelCheckVerdict::skipped)}));
  EXPECT_FALSE(gpuenv::ci::channel_check_passed({check_result("a.conda", ChannelCheckVerdict::passed),
                                                 check_result("b.conda", ChannelCheckVerdict::failed)}));
  EXPECT_EQ(gpuenv::ci::verdict_name(ChannelCheckVerdict::failed), "FAILED");
  EXPECT_EQ(gpuenv::ci::verdict_name(ChannelCheckVerdict::skipped), "skipped");
}

TEST(ChannelCheck, TheJsonReportNamesEachPackagesFileSpecVerdictAndReason) {
  using gpuenv::ci::ChannelCheckVerdict;
  const auto text = gpuenv::ci::channel_check_json(
      {check_result("app-2.0-h2_0.conda", ChannelCheckVerdict::failed, "doctor: sm_90 has no kernel image")});
  EXPECT_EQ(text, R"({
  "schema_version": 1,
  "success": false,
  "packages": [
    {
      "package": "linux-64/app-2.0-h2_0.conda",
      "spec": "app=2.0=h2_0",
      "verdict": "FAILED",
      "reason": "doctor: sm_90 has no kernel image"
    }
  ]
})");
}

}  // namespace
