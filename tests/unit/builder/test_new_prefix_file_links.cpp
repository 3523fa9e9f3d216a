// Symbolic links in paths.json as conda-build and rattler-build record them
// (found by the rattler-build differential test): size_in_bytes is the
// link's own size (its target text), sha256 the digest of the file it
// points to inside the prefix; a dangling link, or one leaving the prefix,
// has no sha256.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include "gpuenv/builder/new_prefix_files.hpp"
#include "gpuenv/package/hashing.hpp"
#include "support/temp_directory.hpp"

namespace {

namespace fs = std::filesystem;
using gpuenv::testing::TempDirectory;
using gpuenv::testing::write_text_file;

TEST(NewPrefixFileLinks, SoftlinkRecordsItsSizeAndItsTargetsDigest) {
  TempDirectory dir;
  const auto prefix = dir / "prefix";
  write_text_file(prefix / "share/sub/data.txt", "data\n");
  fs::create_symlink("sub/data.txt", prefix / "share/data-link.txt");
  fs::create_symlink("missing.txt", prefix / "share/dangling.txt");
  write_text_file(dir / "outside.txt", "outside\n");
  fs::create_symlink(dir / "outside.txt", prefix / "share/outside-link.txt");
  const auto files = gpuenv::build::new_prefix_files(prefix, {}, {});
  ASSERT_TRUE(files) << files.error().message;
  std::map<std::string, gpuenv::package::PathEntry> entries;
  for (const auto& file : *files) entries[file.entry.path] = file.entry;

  const auto& link = entries.at("share/data-link.txt");
  EXPECT_EQ(link.path_type, gpuenv::package::PathType::softlink);
  EXPECT_EQ(link.size_in_bytes, std::string("sub/data.txt").size());
  EXPECT_EQ(link.sha256, gpuenv::package::sha256_hex("data\n"));

  EXPECT_EQ(entries.at("share/dangling.txt").sha256, "");
  EXPECT_EQ(entries.at("share/dangling.txt").size_in_bytes, std::string("missing.txt").size());
  EXPECT_EQ(entries.at("share/outside-link.txt").sha256, "");
}

}  // namespace

namespace {

// pip's own modules get bytecode while pip installs the package: that is
// not the package's (a clean environment, without PYTHONDONTWRITEBYTECODE,
// packaged 455 such files into cython and broke pip in its tests).
TEST(NewPrefixFiles, BytecodeOfModulesThatWereThereBeforeIsNotPackaged) {
  using gpuenv::build::bytecode_of_an_earlier_file;
  const std::set<std::string> before = {"lib/python3.13/site-packages/pip/__init__.py", "bin/tool.py", "setup.py"};
  EXPECT_TRUE(bytecode_of_an_earlier_file("lib/python3.13/site-packages/pip/__pycache__/__init__.cpython-313.pyc", before));
  EXPECT_TRUE(bytecode_of_an_earlier_file("bin/tool.pyc", before));
  EXPECT_TRUE(bytecode_of_an_earlier_file("__pycache__/setup.cpython-313.opt-1.pyc", before));  // an optimization level
  EXPECT_FALSE(bytecode_of_an_earlier_file("lib/python3.13/site-packages/Cython/__pycache__/Shadow.cpython-313.pyc", before));
  EXPECT_FALSE(bytecode_of_an_earlier_file("lib/python3.13/site-packages/pip/__init__.py", before));

  gpuenv::testing::TempDirectory prefix;
  gpuenv::testing::write_text_file(prefix / "lib/python3.13/site-packages/pip/__init__.py", "");
  const auto listed = gpuenv::build::prefix_listing(prefix.path());
  gpuenv::testing::write_text_file(prefix / "lib/python3.13/site-packages/pip/__pycache__/__init__.cpython-313.pyc", "pyc");
  gpuenv::testing::write_text_file(prefix / "lib/python3.13/site-packages/demo/__init__.py", "");
  gpuenv::testing::write_text_file(prefix / "lib/python3.13/site-packages/demo/__pycache__/__init__.cpython-313.pyc", "pyc");
  const auto files = gpuenv::build::new_prefix_files(prefix.path(), listed, {});
  ASSERT_TRUE(files) << files.error().message;
  std::vector<std::string> paths;
  for (const auto& file : *files) paths.push_back(file.entry.path);
  EXPECT_EQ(paths, (std::vector<std::string>{"lib/python3.13/site-packages/demo/__init__.py",
                                             "lib/python3.13/site-packages/demo/__pycache__/__init__.cpython-313.pyc"}));
}

}  // namespace
