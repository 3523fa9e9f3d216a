// --package-format values as rattler-build spells them.
#include <gtest/gtest.h>

#include "gpuenv/builder/package_format.hpp"

namespace {

using gpuenv::build::BuildErrorKind;
using gpuenv::build::parse_package_format;
using gpuenv::package::ArchiveFormat;

TEST(PackageFormat, NamesGiveTheFormatAndItsReleaseLevel) {
  const auto conda = parse_package_format("conda");
  ASSERT_TRUE(conda);
  EXPECT_EQ(conda->archive, ArchiveFormat::conda);
  EXPECT_EQ(conda->compression_level, 19);
  const auto bz2 = parse_package_format("tar-bz2");
  ASSERT_TRUE(bz2);
  EXPECT_EQ(bz2->archive, ArchiveFormat::tar_bz2);
  EXPECT_EQ(bz2->compression_level, 9);
}

TEST(PackageFormat, LevelAfterAColonWithinTheFormatsRange) {
  EXPECT_EQ(parse_package_format("conda:22")->compression_level, 22);
  EXPECT_EQ(parse_package_format("tar-bz2:1")->compression_level, 1);
  for (const char* bad : {"tar-bz2:10", "tar-bz2:0", "conda:23", "conda:-1", "conda:", "conda:x", "conda:3x"}) {
    const auto parsed = parse_package_format(bad);
    ASSERT_FALSE(parsed) << bad;
    EXPECT_EQ(parsed.error().kind, BuildErrorKind::option);
    EXPECT_NE(parsed.error().message.find(bad), std::string::npos) << parsed.error().message;
  }
}

TEST(PackageFormat, UnknownFormatIsRefusedNamingTheAcceptedOnes) {
  const auto parsed = parse_package_format("zip");
  ASSERT_FALSE(parsed);
  EXPECT_NE(parsed.error().message.find("tar-bz2"), std::string::npos);
}

}  // namespace
