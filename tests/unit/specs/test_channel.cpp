#include <gtest/gtest.h>

#include "gpuenv/specs/channel.hpp"
#include "gpuenv/specs/spec_error.hpp"

namespace gpuenv::specs {
namespace {

ChannelContext context_with_directories() {
  ChannelContext context;
  context.home_directory = "/home/tester";
  context.current_directory = "/work/project";
  return context;
}

TEST(Channel, NameUnderTheAlias) {
  const auto channel = Channel::parse("conda-forge");
  EXPECT_EQ(channel.name(), "conda-forge");
  EXPECT_EQ(channel.canonical_name(), "conda-forge");
  EXPECT_EQ(channel.base_url(), "https://conda.anaconda.org/conda-forge");
  EXPECT_FALSE(channel.platform());
  EXPECT_FALSE(channel.is_multichannel());
  EXPECT_FALSE(channel.is_local());
  EXPECT_EQ(channel.url_for("noarch"), "https://conda.anaconda.org/conda-forge/noarch");
  EXPECT_EQ(channel.url_for(Platform(Platform::Kind::linux_64)),
            "https://conda.anaconda.org/conda-forge/linux-64");
}

TEST(Channel, LabelsAndSubdirsInNames) {
  const auto label = Channel::parse("conda-forge/label/rc");
  EXPECT_EQ(label.name(), "conda-forge/label/rc");
  EXPECT_EQ(label.base_url(), "https://conda.anaconda.org/conda-forge/label/rc");
  const auto with_subdir = Channel::parse("conda-forge/linux-aarch64");
  EXPECT_EQ(with_subdir.name(), "conda-forge");
  EXPECT_EQ(with_subdir.platform(), "linux-aarch64");
  EXPECT_EQ(with_subdir.base_url(), "https://conda.anaconda.org/conda-forge");
}

TEST(Channel, ConfiguredAlias) {
  ChannelContext context;
  context.channel_alias = "https://mirror.example.com/conda/";
  const auto channel = Channel::parse("conda-forge", context);
  EXPECT_EQ(channel.base_url(), "https://mirror.example.com/conda/conda-forge");
  // A URL under the configured alias is named like a name.
  const auto from_url =
      Channel::parse("https://mirror.example.com/conda/bioconda/osx-arm64", context);
  EXPECT_EQ(from_url.name(), "bioconda");
  EXPECT_EQ(from_url.platform(), "osx-arm64");
}

TEST(Channel, DefaultsMultichannel) {
  const auto defaults = Channel::parse("defaults");
  EXPECT_TRUE(defaults.is_multichannel());
  EXPECT_EQ(defaults.name(), "defaults");
  EXPECT_EQ(defaults.canonical_name(), "defaults");
  EXPECT_EQ(defaults.base_urls(), (std::vector<std::string>{"https://repo.anaconda.com/pkgs/main",
                                                            "https://repo.anaconda.com/pkgs/r"}));
  EXPECT_EQ(defaults.urls_for("linux-64"),
            (std::vector<std::string>{"https://repo.anaconda.com/pkgs/main/linux-64",
                                      "https://repo.anaconda.com/pkgs/r/linux-64"}));
  const auto main = Channel::parse("pkgs/main");
  EXPECT_EQ(main.base_url(), "https://repo.anaconda.com/pkgs/main");
  EXPECT_EQ(main.canonical_name(), "defaults");
  const auto main_url = Channel::parse("https://repo.anaconda.com/pkgs/main/");
  EXPECT_EQ(main_url.name(), "pkgs/main");
  EXPECT_EQ(main_url.canonical_name(), "defaults");
  EXPECT_EQ(main_url, main);
}

TEST(Channel, ConfiguredDefaultsAndCustomChannels) {
  ChannelContext context;
  context.default_channels = {"https://internal.example.com/conda/main"};
  context.custom_channels = {{"team", "https://artifacts.example.com/api/conda"}};
  context.custom_multichannels = {{"ours", {"team", "conda-forge"}}};
  EXPECT_EQ(Channel::parse("defaults", context).base_urls(),
            std::vector<std::string>{"https://internal.example.com/conda/main"});
  EXPECT_EQ(Channel::parse("conda/main", context).canonical_name(), "defaults");
  const auto team = Channel::parse("team/label/dev", context);
  EXPECT_EQ(team.base_url(), "https://artifacts.example.com/api/conda/team/label/dev");
  EXPECT_EQ(team.name(), "team/label/dev");
  EXPECT_EQ(Channel::parse("https://artifacts.example.com/api/conda/team", context).name(), "team");
  const auto ours = Channel::parse("ours", context);
  EXPECT_TRUE(ours.is_multichannel());
  EXPECT_EQ(ours.base_urls(),
            (std::vector<std::string>{"https://artifacts.example.com/api/conda/team",
                                      "https://conda.anaconda.org/conda-forge"}));
}

TEST(Channel, UrlsElsewhere) {
  const auto intel = Channel::parse("https://software.repos.intel.com/python/conda");
  EXPECT_EQ(intel.name(), "python/conda");
  EXPECT_EQ(intel.canonical_name(), "https://software.repos.intel.com/python/conda");
  EXPECT_EQ(intel.base_url(), "https://software.repos.intel.com/python/conda");
  const auto with_subdir = Channel::parse("https://c.com/p/conda/linux-64/");
  EXPECT_EQ(with_subdir.name(), "p/conda");
  EXPECT_EQ(with_subdir.platform(), "linux-64");
  EXPECT_EQ(with_subdir.base_url(), "https://c.com/p/conda");
  EXPECT_EQ(Channel::parse("s3://bucket/channel").base_url(), "s3://bucket/channel");
  EXPECT_EQ(Channel::parse("HTTP://example.com/chan").base_url(), "http://example.com/chan");
}

TEST(Channel, TokensAndCredentialsStayOutOfTheBaseUrl) {
  const auto channel =
      Channel::parse("https://user:secret@conda.anaconda.org/t/tk-123-456/conda-forge/noarch");
  EXPECT_EQ(channel.base_url(), "https://conda.anaconda.org/conda-forge");
  EXPECT_EQ(channel.name(), "conda-forge");
  EXPECT_EQ(channel.token(), "tk-123-456");
  EXPECT_EQ(channel.credentials(), "user:secret");
  EXPECT_EQ(channel.platform(), "noarch");
  EXPECT_EQ(channel.authenticated_url_for("linux-64"),
            "https://user:secret@conda.anaconda.org/t/tk-123-456/conda-forge/linux-64");
}

TEST(Channel, PackageFileUrls) {
  const auto channel = Channel::parse(
      "https://conda.anaconda.org/conda-forge/linux-64/ncurses-6.4-h59595ed_2.conda");
  EXPECT_EQ(channel.package_filename(), "ncurses-6.4-h59595ed_2.conda");
  EXPECT_EQ(channel.platform(), "linux-64");
  EXPECT_EQ(channel.base_url(), "https://conda.anaconda.org/conda-forge");
  EXPECT_EQ(Channel::parse("file:///tmp/my%20dir/pkg-1-0.tar.bz2").package_filename(),
            "pkg-1-0.tar.bz2");
}

TEST(Channel, LocalPathsAndFileUrls) {
  const auto context = context_with_directories();
  const auto file_url = Channel::parse("file:///srv/channel/", context);
  EXPECT_TRUE(file_url.is_local());
  EXPECT_EQ(file_url.base_url(), "file:///srv/channel");
  EXPECT_EQ(file_url.canonical_name(), "file:///srv/channel");

  const auto absolute = Channel::parse("/srv/channel/noarch", context);
  EXPECT_EQ(absolute.base_url(), "file:///srv/channel");
  EXPECT_EQ(absolute.platform(), "noarch");
  EXPECT_EQ(absolute.name(), "/srv/channel");

  const auto relative = Channel::parse("./build/../out/channel", context);
  EXPECT_EQ(relative.base_url(), "file:///work/project/out/channel");
  EXPECT_EQ(relative.name(), "./build/../out/channel");
  EXPECT_EQ(Channel::parse("../shared", context).base_url(), "file:///work/shared");

  const auto home = Channel::parse("~/channels/local", context);
  EXPECT_EQ(home.base_url(), "file:///home/tester/channels/local");
  EXPECT_EQ(home.name(), "~/channels/local");

  const auto windows = Channel::parse(R"(C:\Users\me\conda-bld\win-64)", context);
  EXPECT_EQ(windows.base_url(), "file:///C:/Users/me/conda-bld");
  EXPECT_EQ(windows.platform(), "win-64");
  EXPECT_EQ(windows.name(), R"(C:\Users\me\conda-bld)");
}

TEST(Channel, PathsStayUnexpandedWithoutDirectories) {
  // The specs module does no I/O: without a home or current directory in the
  // context, `~` and relative paths are kept as written.
  EXPECT_EQ(Channel::parse("~/chan").base_url(), "file://~/chan");
  EXPECT_EQ(Channel::parse("./chan").base_url(), "file://./chan");
}

TEST(Channel, RecordChannels) {
  const auto forge = Channel::parse("conda-forge");
  EXPECT_TRUE(forge.contains_record_channel("conda-forge"));
  EXPECT_TRUE(forge.contains_record_channel("https://conda.anaconda.org/conda-forge"));
  EXPECT_TRUE(forge.contains_record_channel("https://conda.anaconda.org/conda-forge/linux-64"));
  EXPECT_TRUE(forge.contains_record_channel("https://conda.anaconda.org/conda-forge/noarch/"));
  EXPECT_TRUE(forge.contains_record_channel("conda-forge/linux-64"));
  EXPECT_FALSE(forge.contains_record_channel("https://conda.anaconda.org/conda-forge-extra"));
  EXPECT_FALSE(forge.contains_record_channel("bioconda"));
  EXPECT_FALSE(forge.contains_record_channel(""));

  // defaults contains pkgs/main's packages; pkgs/main does not contain "defaults".
  const auto defaults = Channel::parse("defaults");
  EXPECT_TRUE(defaults.contains_record_channel("pkgs/main"));
  EXPECT_TRUE(defaults.contains_record_channel("https://repo.anaconda.com/pkgs/r/noarch"));
  EXPECT_TRUE(defaults.contains_record_channel("defaults"));
  EXPECT_FALSE(Channel::parse("pkgs/main").contains_record_channel("pkgs/r"));
}

TEST(Channel, InvalidText) {
  for (const char* text : {"", "   ", R"(~\windows_channel)", "two words", "chan::nel", "a//b"}) {
    EXPECT_THROW((void)Channel::parse(text), SpecError) << text;
  }
  try {
    (void)Channel::parse("bad channel");
    FAIL();
  } catch (const SpecError& error) {
    EXPECT_EQ(error.kind(), "channel");
    EXPECT_EQ(error.input(), "bad channel");
  }
}

TEST(Channel, UrlAndPathHelpers) {
  EXPECT_TRUE(has_url_scheme("https://x"));
  EXPECT_TRUE(has_url_scheme("git+ssh://x"));
  EXPECT_FALSE(has_url_scheme("conda-forge"));
  EXPECT_FALSE(has_url_scheme("://x"));
  EXPECT_TRUE(looks_like_path("/x"));
  EXPECT_TRUE(looks_like_path("./x"));
  EXPECT_TRUE(looks_like_path("~/x"));
  EXPECT_TRUE(looks_like_path("D:/x"));
  EXPECT_FALSE(looks_like_path("pkgs/main"));
  EXPECT_EQ(percent_decode("a%20b%2"), "a b%2");
}

}  // namespace
}  // namespace gpuenv::specs
