// Where package files are downloaded from: CEP 15's base_url.
#include <gtest/gtest.h>

#include "gpuenv/repodata/package_url.hpp"

namespace gpuenv::repodata {
namespace {

TEST(PackageUrl, WithoutBaseUrlPackagesLiveBesideTheRepodata) {
  EXPECT_EQ(package_directory_url("https://conda.anaconda.org/conda-forge/linux-64", ""),
            "https://conda.anaconda.org/conda-forge/linux-64/");
  EXPECT_EQ(package_directory_url("file:///srv/chan/noarch/", ""), "file:///srv/chan/noarch/");
}

TEST(PackageUrl, AnAbsoluteBaseUrlReplacesTheSubdirUrl) {
  EXPECT_EQ(package_directory_url("https://mirror.example/cf/linux-64/",
                                  "https://repo.anaconda.com/repo/main/linux-64/"),
            "https://repo.anaconda.com/repo/main/linux-64/");
  EXPECT_EQ(package_directory_url("https://mirror.example/cf/linux-64/", "https://cdn.example/pkgs"),
            "https://cdn.example/pkgs/");
}

TEST(PackageUrl, ARelativeBaseUrlIsResolvedAgainstTheSubdirUrl) {
  EXPECT_EQ(package_directory_url("https://host/chan/linux-64/", "../pkgs/"), "https://host/chan/pkgs/");
  EXPECT_EQ(package_directory_url("https://host/chan/linux-64", "files"), "https://host/chan/linux-64/files/");
  EXPECT_EQ(package_directory_url("https://host/chan/linux-64/", "/mirror/x/"), "https://host/mirror/x/");
  EXPECT_EQ(package_directory_url("file:///srv/chan/linux-64/", "./"), "file:///srv/chan/linux-64/");
}

TEST(PackageUrl, JoinsADirectoryAndAFileName) {
  EXPECT_EQ(package_url("https://host/chan/noarch/", "a-1-0.conda"), "https://host/chan/noarch/a-1-0.conda");
}

}  // namespace
}  // namespace gpuenv::repodata
