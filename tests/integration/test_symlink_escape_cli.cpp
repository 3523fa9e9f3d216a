// Issue 9, item 2, as a user meets it: a hostile channel whose packages'
// symbolic links combine into a way out of the prefix. `gpuenv create`
// fails, the prefix is as it was, and nothing outside it changes.
#include <gtest/gtest.h>

#include "test_install_support.hpp"

namespace {

namespace fs = std::filesystem;
using gpuenv::testing::contains;
using gpuenv::testing::file_url;
using gpuenv::testing::installed_dists;
using gpuenv::testing::PackageBuilder;
using gpuenv::testing::read_file;
using gpuenv::testing::run_gpuenv;
using gpuenv::testing::SolveCliMachine;

TEST(SymlinkEscapeCli, CreateRefusesToWriteThroughLinksThatCombineIntoAnEscape) {
  SolveCliMachine machine;
  const auto channel_dir = machine / "hostile";
  gpuenv::testing::ChannelBuilder channel(channel_dir, file_url(channel_dir));
  channel.add(PackageBuilder("a", "1.0").symlink("L/a/b/up", "../.."));
  channel.add(PackageBuilder("b", "1.0").depends({"a"}).symlink("L/esc", "a/b/up/../../victim"));
  channel.add(PackageBuilder("c", "1.0")
                  .depends({"b"})
                  .file("L/esc/existing.txt", "overwritten by c\n")
                  .file("L/esc/new.txt", "written by c\n"));
  fs::create_directories(channel_dir / "noarch");
  std::ofstream(channel_dir / "noarch/repodata.json")
      << R"({"info": {"subdir": "noarch"}, "packages": {}, "packages.conda": {}})";
  const auto prefix = machine / "deep" / "env";
  const auto victim = machine / "deep" / "victim";
  fs::create_directories(victim);
  std::ofstream(victim / "existing.txt") << "precious\n";

  const auto args = [&](const std::string& command, const std::string& spec) {
    return std::vector<std::string>{command, "-p", prefix.string(), "-c", file_url(channel_dir),
                                    "--override-channels", "-y", spec};
  };
  const auto created = run_gpuenv(args("create", "c"), machine.env());
  EXPECT_NE(created.exit_code, 0) << created.out;
  EXPECT_TRUE(contains(created.err, "outside the prefix")) << created.err;
  EXPECT_TRUE(installed_dists(prefix).empty());

  // The links alone install; the package writing through them still fails.
  const auto links = run_gpuenv(args("create", "b"), machine.env());
  ASSERT_EQ(links.exit_code, 0) << links.err;
  const auto installed = run_gpuenv(args("install", "c"), machine.env());
  EXPECT_NE(installed.exit_code, 0) << installed.out;
  EXPECT_TRUE(contains(installed.err, "L/esc")) << installed.err;
  EXPECT_EQ(installed_dists(prefix), (std::vector<std::string>{"a-1.0-0", "b-1.0-0"}));

  EXPECT_EQ(read_file(victim / "existing.txt"), "precious\n");
  EXPECT_FALSE(fs::exists(victim / "new.txt"));
}

}  // namespace
