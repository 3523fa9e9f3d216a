// Package file names as they may reach the disk: a bare name-version-build
// with a package extension, nothing a path could be built from.
#include <gtest/gtest.h>

#include <string>

#include "gpuenv/specs/package_filename.hpp"

namespace gpuenv::specs {
namespace {

TEST(PackageFilename, KnowsTheTwoExtensions) {
  EXPECT_TRUE(is_package_file_name("a-1-0.conda"));
  EXPECT_TRUE(is_package_file_name("a-1-0.tar.bz2"));
  EXPECT_FALSE(is_package_file_name("a-1-0.zip"));
  EXPECT_FALSE(is_package_file_name("a-1-0.bz2"));
  EXPECT_EQ(strip_package_extension("a-1-0.tar.bz2"), "a-1-0");
  EXPECT_EQ(strip_package_extension("a-1-0.conda"), "a-1-0");
  // One extension is stripped, the last one; other names come back as given.
  EXPECT_EQ(strip_package_extension("a-1-0.tar.bz2.conda"), "a-1-0.tar.bz2");
  EXPECT_EQ(strip_package_extension("a-1-0.zip"), "a-1-0.zip");
}

TEST(PackageFilename, AcceptsBarePackageFileNames) {
  for (const std::string name : {"numpy-1.26.4-py312h8753938_0.conda", "zlib-1.2.11-h7b6447c_3.tar.bz2",
                                 "_libgcc_mutex-0.1-conda_forge.tar.bz2", "a-1-0.conda", "x.conda"}) {
    EXPECT_EQ(package_filename_problem(name), "") << name;
  }
}

TEST(PackageFilename, RefusesWhatCouldNameAnotherPath) {
  const std::pair<std::string, std::string> refused[] = {
      {"../../victim/target-1.0-0.tar.bz2", "'/'"},
      {"/etc/passwd-1.0-0.conda", "'/'"},
      {"sub/pkg-1.0-0.conda", "'/'"},
      {"..\\..\\pkg-1.0-0.conda", "'\\'"},
      {std::string("pkg-1.0-0\0.conda", 16), "control character"},
      {"pkg-1.0-0\n.conda", "control character"},
      {"pkg\x1b[2J-1.0-0.conda", "control character"},
      {"pkg-1.0-0\x7f.tar.bz2", "control character"},
      {"pkg-1.0-0.zip", "does not end in"},
      {"..", "does not end in"},
      {"", "does not end in"},
      {".conda", "nothing before"},
      {"..conda", "nothing before"},
      {"...tar.bz2", "nothing before"},
  };
  for (const auto& [name, reason] : refused) {
    const auto problem = package_filename_problem(name);
    EXPECT_NE(problem.find(reason), std::string_view::npos) << printable(name) << ": " << problem;
  }
}

TEST(PackageFilename, MatchesOnlyTheRecordsOwnNameVersionBuild) {
  EXPECT_TRUE(filename_matches_record("numpy-1.26.4-py312_0.conda", "numpy", "1.26.4", "py312_0"));
  EXPECT_TRUE(filename_matches_record("cuda-version-12.4-h3060b56_3.tar.bz2", "cuda-version", "12.4", "h3060b56_3"));
  EXPECT_FALSE(filename_matches_record("numpy-1.26.4-py312_0.conda", "numpy", "1.26.5", "py312_0"));
  EXPECT_FALSE(filename_matches_record("numpy-1.26.4-py312_0.conda", "scipy", "1.26.4", "py312_0"));
  EXPECT_FALSE(filename_matches_record("numpy-1.26.4-py312_0.conda", "numpy", "1.26.4", "py312_1"));
  EXPECT_FALSE(filename_matches_record("numpy-1.26.4-py312_0.zip", "numpy", "1.26.4", "py312_0"));
  EXPECT_TRUE(filename_matches_record("a-b-1-0.conda", "a-b", "1", "0"));
  EXPECT_FALSE(filename_matches_record("../x-1-0.conda", "x", "1", "0"));
  EXPECT_FALSE(filename_matches_record("x-1-0", "x", "1", "0"));
}

TEST(PackageFilename, PrintableEscapesControlCharacters) {
  EXPECT_EQ(printable("pkg-1.0-0.conda"), "pkg-1.0-0.conda");
  EXPECT_EQ(printable(std::string("a\0b\n\x1b", 5)), "a\\x00b\\x0a\\x1b");
}

}  // namespace
}  // namespace gpuenv::specs
