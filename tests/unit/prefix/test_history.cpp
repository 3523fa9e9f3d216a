// conda-meta/history blocks in conda's format.
#include <gtest/gtest.h>

#include <regex>

#include "gpuenv/prefix/history.hpp"

namespace gpuenv::prefix {
namespace {

specs::PackageRecord package(std::string name, std::string version, std::string build,
                             std::string channel, std::string subdir) {
  specs::PackageRecord record;
  record.name = std::move(name);
  record.set_version(std::move(version));
  record.build = std::move(build);
  record.channel = std::move(channel);
  record.subdir = std::move(subdir);
  return record;
}

TEST(PrefixHistory, WritesCondasBlock) {
  HistoryEntry entry;
  entry.time = std::chrono::system_clock::now();
  entry.command_line = "gpuenv install -p /env numpy";
  entry.tool_version = "0.1.0";
  entry.unlinked = {package("numpy", "1.26.3", "py312h1_0", "https://conda.anaconda.org/conda-forge", "linux-64")};
  entry.linked = {
      package("python", "3.12.1", "h1_0", "https://repo.anaconda.com/pkgs/main", "linux-64"),
      package("numpy", "1.26.4", "py312h8753938_0", "https://conda.anaconda.org/conda-forge", "linux-64"),
      package("local", "1.0", "0", "file:///srv/channel", "noarch")};
  entry.update_specs = {"numpy", "python >=3.12"};
  const auto block = history_block(entry);
  const std::regex header(R"(^==> \d{4}-\d\d-\d\d \d\d:\d\d:\d\d <==\n)");
  EXPECT_TRUE(std::regex_search(block, header)) << block;
  const auto body = block.substr(block.find('\n') + 1);
  EXPECT_EQ(body,
            "# cmd: gpuenv install -p /env numpy\n"
            "# gpuenv version: 0.1.0\n"
            "-conda-forge/linux-64::numpy-1.26.3-py312h1_0\n"
            "+conda-forge/linux-64::numpy-1.26.4-py312h8753938_0\n"
            "+defaults/linux-64::python-3.12.1-h1_0\n"
            "+file:///srv/channel/noarch::local-1.0-0\n"
            "# update specs: ['numpy', 'python >=3.12']\n");
}

TEST(PrefixHistory, WritesRemoveSpecs) {
  HistoryEntry entry;
  entry.unlinked = {package("numpy", "1.26.3", "0", "", "")};
  entry.remove_specs = {"numpy"};
  const auto block = history_block(entry);
  EXPECT_NE(block.find("\n-numpy-1.26.3-0\n# remove specs: ['numpy']\n"), std::string::npos) << block;
}

// Issue 9: the `# cmd:` line carried a private channel's token as typed.
TEST(PrefixHistory, MasksChannelTokensAndPasswords) {
  HistoryEntry entry;
  entry.command_line = "gpuenv create -c https://conda.example/t/tk-42/private -c http://me:pw42@host/chan x";
  entry.linked = {package("x", "1.0", "0", "http://me:pw42@host/chan", "noarch")};
  entry.update_specs = {"https://me:pw42@host/chan::x"};
  const auto block = history_block(entry);
  EXPECT_EQ(block.find("tk-42"), std::string::npos) << block;
  EXPECT_EQ(block.find("pw42"), std::string::npos) << block;
  EXPECT_NE(block.find("# cmd: gpuenv create -c https://conda.example/t/<TOKEN>/private -c http://host/chan x\n"),
            std::string::npos)
      << block;
}

TEST(PrefixHistory, QuotesSpecsLikePython) {
  EXPECT_EQ(python_list_repr({}), "[]");
  EXPECT_EQ(python_list_repr({"a", "it's"}), "['a', \"it's\"]");
  EXPECT_EQ(python_list_repr({"both ' and \""}), "['both \\' and \"']");
}

}  // namespace
}  // namespace gpuenv::prefix
