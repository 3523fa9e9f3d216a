// Writing packages: what gpuenv writes reads back through gpuenv, and
// through the standard tools CEP 35 names (unzip/zipfile, zstd, tar).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>

#include "gpuenv/package/extract.hpp"
#include "gpuenv/package/hashing.hpp"
#include "gpuenv/package/package_error.hpp"
#include "gpuenv/package/package_metadata.hpp"
#include "gpuenv/package/package_writer.hpp"
#include "support/package_builder.hpp"
#include "support/run_command.hpp"
#include "support/temp_directory.hpp"

namespace gpuenv::package {
namespace {

using testing::PackageBuilder;
using testing::TempDirectory;

PackageBuilder sample_package() {
  PackageBuilder builder("sample", "1.2.3", "h0_1");
  builder.depends({"libzlib >=1.2.13"})
      .file("bin/tool", "#!/bin/sh\necho tool\n", 0755)
      .text_with_prefix("etc/sample.conf", "prefix=" + testing::long_placeholder() + "\n")
      .binary_with_prefix("lib/libsample.so", std::string("\x7f" "ELF") + testing::long_placeholder() +
                                                  std::string("/lib\0tail", 9))
      .symlink("lib/libsample.so.1", "libsample.so")
      .directory("var/empty");
  return builder;
}

class PackageWriter : public ::testing::TestWithParam<ArchiveFormat> {};

TEST_P(PackageWriter, RoundTripsThroughReaderAndExtractor) {
  TempDirectory scratch;
  const auto builder = sample_package();
  const auto file = builder.write(scratch.path(), GetParam());
  EXPECT_EQ(file.filename(), builder.filename(GetParam()));

  const auto metadata = read_package_metadata(file);
  EXPECT_EQ(metadata.index.name, "sample");
  EXPECT_EQ(metadata.index.version, "1.2.3");
  EXPECT_EQ(metadata.index.depends, std::vector<std::string>{"libzlib >=1.2.13"});
  EXPECT_EQ(metadata.paths.paths, builder.paths_json().paths);

  const auto dir = scratch / "extracted";
  extract_package(file, dir);
  for (const auto& entry : metadata.paths.paths) {
    if (entry.path_type == PathType::hardlink) {
      EXPECT_EQ(hash_file(dir / entry.path, true, false).sha256, entry.sha256) << entry.path;
    }
  }
  EXPECT_EQ(std::filesystem::read_symlink(dir / "lib/libsample.so.1"), "libsample.so");
  EXPECT_TRUE(std::filesystem::is_directory(dir / "var/empty"));
  struct stat info {};
  ASSERT_EQ(::stat((dir / "bin/tool").c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0755u);
}

INSTANTIATE_TEST_SUITE_P(BothFormats, PackageWriter,
                         ::testing::Values(ArchiveFormat::tar_bz2, ArchiveFormat::conda),
                         [](const auto& info) {
                           return info.param == ArchiveFormat::conda ? "conda" : "tar_bz2";
                         });

TEST(PackageWriter, CondaIsAStoredZipOfTwoZstdTarballsAndMetadata) {
  TempDirectory scratch;
  const auto file = sample_package().write(scratch.path(), ArchiveFormat::conda);
  // Python's zipfile is what conda-package-handling reads .conda files with.
  const auto listing = testing::run_program(
      "python3",
      {"-c",
       "import sys, zipfile\n"
       "with zipfile.ZipFile(sys.argv[1]) as z:\n"
       "    for i in z.infolist():\n"
       "        print(i.filename, i.compress_type, bool(i.flag_bits & 8))\n"
       "    z.extractall(sys.argv[2])\n",
       file.string(), (scratch / "unzipped").string()});
  ASSERT_EQ(listing.exit_code, 0) << listing.err;
  // Stored (0), sizes in the local headers (no data descriptor: flag bit 3
  // clear), so streaming readers read it too.
  EXPECT_EQ(listing.out,
            "metadata.json 0 False\n"
            "info-sample-1.2.3-h0_1.tar.zst 0 False\n"
            "pkg-sample-1.2.3-h0_1.tar.zst 0 False\n");
  std::ifstream metadata(scratch / "unzipped/metadata.json");
  std::string text((std::istreambuf_iterator<char>(metadata)), {});
  EXPECT_EQ(nlohmann::json::parse(text)["conda_pkg_format_version"], 2);
  const auto info = testing::run_program(
      "sh", {"-c", "zstd -dc \"$0\" | tar tf -", (scratch / "unzipped/info-sample-1.2.3-h0_1.tar.zst").string()});
  ASSERT_EQ(info.exit_code, 0) << info.err;
  EXPECT_NE(info.out.find("info/index.json"), std::string::npos);
  EXPECT_NE(info.out.find("info/paths.json"), std::string::npos);
  EXPECT_EQ(info.out.find("bin/tool"), std::string::npos);
  const auto pkg = testing::run_program(
      "sh", {"-c", "zstd -dc \"$0\" | tar tf -", (scratch / "unzipped/pkg-sample-1.2.3-h0_1.tar.zst").string()});
  ASSERT_EQ(pkg.exit_code, 0) << pkg.err;
  EXPECT_NE(pkg.out.find("bin/tool"), std::string::npos);
  EXPECT_EQ(pkg.out.find("info/"), std::string::npos);
}

// Each tarball is one zstd frame that states its decompressed size: zstd
// then fits its window to the input instead of the 8 MiB (and ~85 MB of
// tables at level 19) a stream of unknown size gets, which cost ~0.1 s per
// tarball on small packages. The checksum lets readers verify the frame.
TEST(PackageWriter, CondaTarballsAreSizedZstdFramesWithAChecksum) {
  TempDirectory scratch;
  const auto file = sample_package().write(scratch.path(), ArchiveFormat::conda);
  const auto unzipped = testing::run_program(
      "python3", {"-c", "import sys, zipfile\nzipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])\n",
                  file.string(), (scratch / "unzipped").string()});
  ASSERT_EQ(unzipped.exit_code, 0) << unzipped.err;
  for (const std::string tarball : {"info-sample-1.2.3-h0_1.tar.zst", "pkg-sample-1.2.3-h0_1.tar.zst"}) {
    const auto listing = testing::run_program("zstd", {"-lv", (scratch / "unzipped" / tarball).string()});
    ASSERT_EQ(listing.exit_code, 0) << listing.err;
    EXPECT_NE(listing.out.find("Decompressed Size:"), std::string::npos) << tarball << "\n" << listing.out;
    EXPECT_EQ(listing.out.find("Window Size: 8.00 MiB"), std::string::npos) << tarball << "\n" << listing.out;
    EXPECT_NE(listing.out.find("Check: XXH64"), std::string::npos) << tarball << "\n" << listing.out;
  }
}

TEST(PackageWriter, TarBz2ReadsWithTar) {
  TempDirectory scratch;
  const auto file = sample_package().write(scratch.path(), ArchiveFormat::tar_bz2);
  const auto listing = testing::run_program("tar", {"tjf", file.string()});
  ASSERT_EQ(listing.exit_code, 0) << listing.err;
  EXPECT_EQ(listing.out.rfind("info/index.json\n", 0), 0u) << "info/ comes first:\n" << listing.out;
  EXPECT_NE(listing.out.find("lib/libsample.so.1"), std::string::npos);
}

TEST(PackageWriter, PackagesADirectoryTree) {
  TempDirectory scratch;
  const auto tree = scratch / "tree";
  std::filesystem::create_directories(tree / "info");
  std::filesystem::create_directories(tree / "share/doc");
  std::ofstream(tree / "info/index.json") << R"({"name": "tree", "version": "1", "build": "0"})";
  std::ofstream(tree / "info/paths.json") << R"({"paths": [{"_path": "share/doc/README", "sha256": "x"}], "paths_version": 1})";
  std::ofstream(tree / "share/doc/README") << "read me\n";
  const auto output = scratch / "tree-1-0.conda";
  write_package(tree, output);
  const auto metadata = read_package_metadata(output);
  EXPECT_EQ(metadata.index.name, "tree");
  extract_package(output, scratch / "out");
  EXPECT_TRUE(std::filesystem::is_regular_file(scratch / "out/share/doc/README"));
}

TEST(PackageWriter, RefusesATreeWithoutMetadata) {
  TempDirectory scratch;
  std::filesystem::create_directories(scratch / "tree/bin");
  EXPECT_THROW(write_package(scratch / "tree", scratch / "x-1-0.conda"), PackageError);
  EXPECT_FALSE(std::filesystem::exists(scratch / "x-1-0.conda"));
}

TEST(PackageWriter, RefusesAnUnknownExtension) {
  TempDirectory scratch;
  EXPECT_THROW(write_package_members(scratch / "x-1-0.zip", {}), PackageError);
}

}  // namespace
}  // namespace gpuenv::package
