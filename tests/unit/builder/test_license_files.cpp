// about.license_file: which files land in info/licenses/, and the entries a
// hostile recipe could use to pull files from outside its directories.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "gpuenv/builder/license_files.hpp"
#include "support/temp_directory.hpp"

namespace {

namespace fs = std::filesystem;
using gpuenv::build::collect_license_files;
using gpuenv::testing::TempDirectory;
using gpuenv::testing::write_text_file;

class LicenseFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    write_text_file(src / "LICENSE", "source license\n");
    write_text_file(src / "licenses/BSD.txt", "bsd\n");
    write_text_file(src / "licenses/MIT.txt", "mit\n");
    write_text_file(recipe / "LICENSE", "recipe license\n");
    write_text_file(recipe / "NOTICE", "notice\n");
  }

  std::vector<std::string> relatives(const std::vector<std::string>& entries) {
    auto files = collect_license_files(entries, src, recipe);
    EXPECT_TRUE(files) << files.error().message;
    std::vector<std::string> names;
    if (files) {
      for (const auto& file : *files) names.push_back(file.relative);
    }
    return names;
  }

  TempDirectory dir;
  fs::path src = dir / "work";
  fs::path recipe = dir / "recipe";
};

TEST_F(LicenseFiles, SourceDirectoryIsSearchedBeforeTheRecipeDirectory) {
  auto files = collect_license_files({"LICENSE", "NOTICE"}, src, recipe);
  ASSERT_TRUE(files) << files.error().message;
  ASSERT_EQ(files->size(), 2u);
  EXPECT_EQ((*files)[0].relative, "LICENSE");
  EXPECT_EQ((*files)[0].source, src / "LICENSE");
  EXPECT_EQ((*files)[1].relative, "NOTICE");
  EXPECT_EQ((*files)[1].source, recipe / "NOTICE");
}

TEST_F(LicenseFiles, DirectoriesAndGlobsBringEveryFileInSortedOrder) {
  EXPECT_EQ(relatives({"licenses"}), (std::vector<std::string>{"licenses/BSD.txt", "licenses/MIT.txt"}));
  EXPECT_EQ(relatives({"licenses/*.txt"}), (std::vector<std::string>{"licenses/BSD.txt", "licenses/MIT.txt"}));
  // A file named twice is carried once.
  EXPECT_EQ(relatives({"licenses/MIT.txt", "licenses/*"}),
            (std::vector<std::string>{"licenses/MIT.txt", "licenses/BSD.txt"}));
}

TEST_F(LicenseFiles, AnEntryMatchingNothingIsAnErrorNamingIt) {
  auto files = collect_license_files({"COPYING"}, src, recipe);
  ASSERT_FALSE(files);
  EXPECT_NE(files.error().message.find("'COPYING' matches no file"), std::string::npos) << files.error().message;
}

TEST_F(LicenseFiles, EntriesThatLeaveTheirDirectoriesAreRefused) {
  write_text_file(dir / "secret", "not a license\n");
  for (const std::string entry : {"../secret", "/etc/passwd", "licenses/../../secret", ""}) {
    auto files = collect_license_files({entry}, src, recipe);
    ASSERT_FALSE(files) << entry;
    EXPECT_NE(files.error().message.find("without '..'"), std::string::npos) << files.error().message;
  }
  // A link inside the source directory that points outside is not followed.
  fs::create_symlink(dir / "secret", src / "LINKED");
  auto linked = collect_license_files({"LINKED"}, src, recipe);
  ASSERT_FALSE(linked);
  EXPECT_NE(linked.error().message.find("matches no file"), std::string::npos) << linked.error().message;
  fs::create_directory_symlink(dir / "recipe", src / "up");
  auto through = collect_license_files({"up/*"}, src, recipe);
  ASSERT_FALSE(through);
}

}  // namespace
