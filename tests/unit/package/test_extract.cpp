// Extracting real packages, and refusing archives that would write outside
// their directory.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>

#include "gpuenv/package/archive_format.hpp"
#include "gpuenv/package/extract.hpp"
#include "gpuenv/package/hashing.hpp"
#include "gpuenv/package/package_error.hpp"
#include "gpuenv/package/package_metadata.hpp"
#include "gpuenv/package/package_writer.hpp"
#include "support/temp_directory.hpp"
#include "support/testdata.hpp"

namespace gpuenv::package {
namespace {

using testing::TempDirectory;
using testing::testdata_dir;

std::filesystem::path real_package(const std::string& relative) {
  return testdata_dir() / "packages" / relative;
}

// Every path the package lists is there, with the content paths.json says.
void expect_matches_paths_json(const std::filesystem::path& dir) {
  const auto metadata = read_extracted_metadata(dir);
  for (const auto& entry : metadata.paths.paths) {
    const auto path = dir / entry.path;
    if (entry.path_type == PathType::softlink) {
      EXPECT_TRUE(std::filesystem::is_symlink(path)) << entry.path;
      continue;
    }
    ASSERT_TRUE(std::filesystem::is_regular_file(path)) << entry.path;
    const auto digests = hash_file(path, true, false);
    EXPECT_EQ(digests.sha256, entry.sha256) << entry.path;
    if (entry.size_in_bytes) {
      EXPECT_EQ(digests.size, *entry.size_in_bytes) << entry.path;
    }
  }
}

TEST(ExtractPackage, ExtractsBothFormatsToTheSameTree) {
  TempDirectory scratch;
  const auto v1 = scratch / "v1";
  const auto v2 = scratch / "v2";
  const auto summary = extract_package(real_package("conda-package-handling/mock-2.0.0-py37_1000.tar.bz2"), v1);
  extract_package(real_package("conda-package-handling/mock-2.0.0-py37_1000.conda"), v2);
  EXPECT_GT(summary.files, 30u);
  EXPECT_GT(summary.bytes, 10000u);
  expect_matches_paths_json(v1);
  expect_matches_paths_json(v2);
  for (const auto& entry : std::filesystem::recursive_directory_iterator(v1)) {
    const auto relative = entry.path().lexically_relative(v1);
    EXPECT_TRUE(std::filesystem::exists(v2 / relative)) << relative;
  }
}

TEST(ExtractPackage, KeepsSymlinksModesAndThePythonSourcesModificationTimes) {
  TempDirectory scratch;
  const auto dir = scratch / "cph";
  const auto started = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  extract_package(real_package("conda-package-handling/cph_test_data-0.0.1-0.tar.bz2"), dir);
  expect_matches_paths_json(dir);
  EXPECT_EQ(std::filesystem::read_symlink(dir / "lib/terminfo"), "../share/terminfo");
  EXPECT_EQ(std::filesystem::read_symlink(dir / "bin/hello"), "hello-1.0");
  EXPECT_TRUE(std::filesystem::is_regular_file(dir / "bin/hello"));  // resolves inside
  struct stat info {};
  ASSERT_EQ(::stat((dir / "bin/hello-1.0").c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0775u);
  // Only a .py file's time is read (by the check of its shipped .pyc), so
  // only it is set, to 2022-03-31 14:50 UTC as the tarball says; the others
  // keep the time they were written at (docs/spec-deviations.md).
  ASSERT_EQ(::stat((dir / "lib/python3.10/amodule.py").c_str(), &info), 0);
  EXPECT_EQ(info.st_mtim.tv_sec / 100, 1648738200 / 100);
  ASSERT_EQ(::stat((dir / "share/terminfo/xterm.dat").c_str(), &info), 0);
  EXPECT_GE(info.st_mtim.tv_sec, started);
}

// Modes are given at creation when the umask leaves them whole, and set
// afterwards when it would cut them: the same files either way.
TEST(ExtractPackage, GivesEveryFileItsModeWhateverTheUmask) {
  TempDirectory scratch;
  for (const mode_t mask : {mode_t{022}, mode_t{077}, mode_t{0}}) {
    const mode_t previous = ::umask(mask);
    const auto dir = scratch / ("umask-" + std::to_string(mask));
    extract_package(real_package("conda-package-handling/cph_test_data-0.0.1-0.tar.bz2"), dir);
    ::umask(previous);
    struct stat info {};
    ASSERT_EQ(::stat((dir / "bin/hello-1.0").c_str(), &info), 0);
    EXPECT_EQ(info.st_mode & 07777, 0775u) << "umask " << mask;
    ASSERT_EQ(::stat((dir / "info/recipe/build.sh").c_str(), &info), 0);
    EXPECT_EQ(info.st_mode & 07777, 0644u) << "umask " << mask;
    ASSERT_EQ(::stat((dir / "info/index.json").c_str(), &info), 0);
    EXPECT_EQ(info.st_mode & 07777, 0640u) << "umask " << mask;
  }
}

TEST(ExtractPackage, ExtractsRattlerBuiltCondaWithDataDescriptors) {
  TempDirectory scratch;
  const auto dir = scratch / "ca";
  extract_package(real_package("rattler/ca-certificates-2024.7.4-hbcca054_0.conda"), dir);
  expect_matches_paths_json(dir);
  EXPECT_TRUE(std::filesystem::exists(dir / "ssl/cacert.pem"));
}

TEST(ExtractPackage, RefusesCorruptArchives) {
  TempDirectory scratch;
  const auto corrupt = testdata_dir() / "channels/conda-build-index_data/corrupt/noarch";
  EXPECT_THROW(extract_package(corrupt / "bad_package.tar.bz2", scratch / "a"), PackageError);
  EXPECT_THROW(extract_package(corrupt / "another_bad_package.conda", scratch / "b"), PackageError);
}

TEST(ExtractPackage, RefusesATruncatedArchive) {
  TempDirectory scratch;
  const auto original = real_package("conda-package-handling/mock-2.0.0-py37_1000.tar.bz2");
  const auto truncated = scratch / "mock-2.0.0-py37_1000.tar.bz2";
  std::filesystem::copy_file(original, truncated);
  std::filesystem::resize_file(truncated, std::filesystem::file_size(original) / 2);
  EXPECT_THROW(extract_package(truncated, scratch / "out"), PackageError);
}

// An archive holding `members` after a valid info/index.json.
std::filesystem::path evil_package(const std::filesystem::path& dir, ArchiveFormat format,
                                   std::vector<PackageMember> members) {
  PackageMember index;
  index.path = "info/index.json";
  index.content = R"({"name": "evil", "version": "1.0", "build": "0", "build_number": 0})";
  members.insert(members.begin(), index);
  const auto file = dir / (std::string("evil-1.0-0") + std::string(extension_of(format)));
  write_package_members(file, members);
  return file;
}

PackageMember regular(std::string path) {
  PackageMember member;
  member.path = std::move(path);
  member.content = "pwned\n";
  return member;
}

PackageMember symlink(std::string path, std::string target) {
  PackageMember member;
  member.path = std::move(path);
  member.kind = PackageMember::Kind::symlink;
  member.link_target = std::move(target);
  return member;
}

struct EvilCase {
  const char* name;
  std::vector<PackageMember> members;
  const char* expected;  // part of the message
};

class ExtractPackageRefuses : public ::testing::TestWithParam<ArchiveFormat> {};

TEST_P(ExtractPackageRefuses, MembersThatLeaveTheTarget) {
  const std::vector<EvilCase> cases = {
      {"dot-dot member", {regular("../escaped")}, "'..'"},
      {"dot-dot inside", {regular("lib/../../escaped")}, "'..'"},
      {"absolute member", {regular("/tmp/gpuenv-absolute-escape")}, "absolute"},
      {"absolute symlink", {symlink("lib/passwd", "/etc/passwd")}, "outside"},
      {"escaping symlink", {symlink("lib/up", "../../..")}, "outside"},
      {"symlink escaping through another",
       {symlink("a/b", ".."), symlink("a/c", "b/../..")}, "outside"},
      {"symlink made escaping later",
       {symlink("x", "y/.."), symlink("y", "d/..")}, "outside"},
      {"write through a symlink", {symlink("lib", "."), regular("lib/inside")}, "through the symbolic link"},
  };
  for (const auto& evil : cases) {
    TempDirectory scratch;
    const auto archive = evil_package(scratch.path(), GetParam(), evil.members);
    const auto target = scratch / "out" / "pkg";
    try {
      extract_package(archive, target);
      ADD_FAILURE() << evil.name << " was extracted";
    } catch (const PackageError& error) {
      const std::string message = error.what();
      EXPECT_NE(message.find("refusing"), std::string::npos) << evil.name << ": " << message;
      EXPECT_NE(message.find(evil.expected), std::string::npos) << evil.name << ": " << message;
      EXPECT_NE(message.find(archive.string()), std::string::npos) << evil.name << ": " << message;
    }
    EXPECT_FALSE(std::filesystem::exists(scratch / "out" / "escaped")) << evil.name;
    EXPECT_FALSE(std::filesystem::exists(scratch / "escaped")) << evil.name;
  }
  EXPECT_FALSE(std::filesystem::exists("/tmp/gpuenv-absolute-escape"));
}

TEST_P(ExtractPackageRefuses, HardLinksLeavingTheTarget) {
  TempDirectory scratch;
  // A hard link to a path outside is refused like a member path.
  PackageMember link;
  link.path = "lib/hard";
  link.kind = PackageMember::Kind::hardlink;
  link.link_target = "../../outside";
  const auto archive = evil_package(scratch.path(), GetParam(), {link});
  EXPECT_THROW(extract_package(archive, scratch / "out"), PackageError);
}

TEST_P(ExtractPackageRefuses, NothingWhenLinksStayInside) {
  TempDirectory scratch;
  const auto archive = evil_package(
      scratch.path(), GetParam(),
      {regular("share/data/file"), symlink("lib/data", "../share/data"), symlink("top", "share/./data/file")});
  const auto target = scratch / "out";
  extract_package(archive, target);
  EXPECT_EQ(std::filesystem::read_symlink(target / "lib/data"), "../share/data");
  EXPECT_TRUE(std::filesystem::is_regular_file(target / "top"));
}

INSTANTIATE_TEST_SUITE_P(BothFormats, ExtractPackageRefuses,
                         ::testing::Values(ArchiveFormat::tar_bz2, ArchiveFormat::conda),
                         [](const auto& info) {
                           return info.param == ArchiveFormat::conda ? "conda" : "tar_bz2";
                         });

}  // namespace
}  // namespace gpuenv::package
