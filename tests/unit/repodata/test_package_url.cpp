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

TEST(PackageUrl, ARemoteChannelsBaseUrlStaysRemote) {
  // Issue 9: a server's repodata saying base_url "file:///..." made gpuenv
  // copy packages from the user's own disk without asking the server.
  for (const std::string base_url : {"file:///home/user/pkgs/", "FILE:///etc/", "File://localhost/srv/",
                                     "ftp://mirror.example/pkgs/", "scp://host/x/", "gopher://host/"}) {
    EXPECT_NE(base_url_problem("http://host/chan/linux-64/", base_url), "") << base_url;
    EXPECT_NE(base_url_problem("HTTPS://host/chan/linux-64/", base_url), "") << base_url;
    // Should a caller not ask, the base_url is not followed.
    EXPECT_EQ(package_directory_url("https://host/chan/linux-64/", base_url), "https://host/chan/linux-64/")
        << base_url;
  }
  for (const std::string base_url : {"", "https://cdn.example/pkgs/", "http://mirror/x", "HTTPS://cdn/y/",
                                     "../pkgs/", "/mirror/", "file:relative/", "//other/"}) {
    EXPECT_EQ(base_url_problem("https://host/chan/linux-64/", base_url), "") << base_url;
  }
  // A local channel may point anywhere: the user chose its files already.
  EXPECT_EQ(base_url_problem("file:///srv/chan/linux-64/", "file:///srv/pkgs/"), "");
  EXPECT_EQ(base_url_problem("file:///srv/chan/linux-64/", "https://cdn.example/pkgs/"), "");
  EXPECT_EQ(package_directory_url("file:///srv/chan/linux-64/", "file:///srv/pkgs/"), "file:///srv/pkgs/");
}

TEST(PackageUrl, JoinsADirectoryAndAFileName) {
  EXPECT_EQ(package_url("https://host/chan/noarch/", "a-1-0.conda"), "https://host/chan/noarch/a-1-0.conda");
}

}  // namespace
}  // namespace gpuenv::repodata
