// Reading info/ metadata straight from real package files made by
// conda-build and rattler-build, in both formats.
#include <gtest/gtest.h>

#include "gpuenv/package/package_error.hpp"
#include "gpuenv/package/package_metadata.hpp"
#include "support/testdata.hpp"

namespace gpuenv::package {
namespace {

using testing::testdata_dir;

std::filesystem::path real_package(const std::string& relative) {
  return testdata_dir() / "packages" / relative;
}

TEST(PackageMetadata, ReadsBothFormatsOfOnePackageAlike) {
  const auto v1 = read_package_metadata(real_package("conda-package-handling/mock-2.0.0-py37_1000.tar.bz2"));
  const auto v2 = read_package_metadata(real_package("conda-package-handling/mock-2.0.0-py37_1000.conda"));
  EXPECT_EQ(v1.index.name, "mock");
  EXPECT_EQ(v1.index.version, "2.0.0");
  EXPECT_EQ(v1.index.build, "py37_1000");
  EXPECT_EQ(v1.index.build_number, 1000u);
  EXPECT_EQ(v1.index.subdir, "osx-64");
  EXPECT_EQ(v1.index.depends, (std::vector<std::string>{"pbr >=1.3", "python >=3.7,<3.8.0a0", "six"}));
  EXPECT_EQ(v1.index.timestamp, 1538654520670u);
  EXPECT_EQ(v1.index, v2.index);
  ASSERT_EQ(v1.paths.paths.size(), v2.paths.paths.size());
  EXPECT_EQ(v1.paths.paths, v2.paths.paths);
  EXPECT_FALSE(v1.paths.from_legacy_files);
  for (const auto& entry : v1.paths.paths) {
    EXPECT_EQ(entry.sha256.size(), 64u) << entry.path;
    EXPECT_TRUE(entry.size_in_bytes.has_value()) << entry.path;
  }
}

TEST(PackageMetadata, ReadsPrefixPlaceholdersFromPathsJson) {
  const auto metadata =
      read_package_metadata(real_package("conda-build/archives/conda-index-pkg-a-1.0-py27h5e241af_0.tar.bz2"));
  std::vector<std::string> prefixed;
  for (const auto& entry : metadata.paths.paths) {
    if (entry.has_prefix()) {
      prefixed.push_back(entry.path);
      EXPECT_EQ(entry.prefix_placeholder, kLegacyPrefixPlaceholder);
      EXPECT_EQ(entry.file_mode, FileMode::text);
    }
  }
  EXPECT_EQ(prefixed, (std::vector<std::string>{"bin/conda-index-pkg-a", "bin/conda-index-pkg-a-helper"}));
}

TEST(PackageMetadata, ReadsNoarchPythonEntryPoints) {
  const auto metadata = read_package_metadata(
      real_package("conda-build/archives/conda-index-pkg-a-1.0-pyhed9eced_1.tar.bz2"));
  EXPECT_EQ(metadata.index.noarch, specs::NoarchType::python);
  EXPECT_EQ(metadata.link.noarch, specs::NoarchType::python);
  ASSERT_EQ(metadata.link.entry_points.size(), 2u);
  EXPECT_EQ(metadata.link.entry_points[0].command, "conda-index-pkg-a");
  EXPECT_EQ(metadata.link.entry_points[0].module, "conda_index_pkg_a");
  EXPECT_EQ(metadata.link.entry_points[0].function, "main");
  EXPECT_EQ(metadata.link.entry_points[1].command, "conda-index-pkg-a-helper");
}

TEST(PackageMetadata, ReadsSoftlinkEntries) {
  const auto metadata =
      read_package_metadata(real_package("conda-package-handling/cph_test_data-0.0.1-0.tar.bz2"));
  std::vector<std::string> softlinks;
  for (const auto& entry : metadata.paths.paths) {
    if (entry.path_type == PathType::softlink) softlinks.push_back(entry.path);
  }
  EXPECT_FALSE(softlinks.empty());
  EXPECT_NE(std::find(softlinks.begin(), softlinks.end(), "lib/terminfo"), softlinks.end());
  EXPECT_EQ(metadata.link.noarch, specs::NoarchType::generic);
}

TEST(PackageMetadata, BuildsPathsFromLegacyFilesList) {
  // nano 2.4.1 predates paths.json: only info/files lists what it installs.
  const auto metadata = read_package_metadata(real_package("conda-build/archives/nano-2.4.1-0.tar.bz2"));
  EXPECT_EQ(metadata.index.name, "nano");
  EXPECT_TRUE(metadata.paths.from_legacy_files);
  ASSERT_FALSE(metadata.paths.paths.empty());
  EXPECT_EQ(metadata.paths.paths.front().path, "bin/nano");
  EXPECT_EQ(metadata.paths.paths.front().path_type, PathType::hardlink);
}

TEST(PackageMetadata, ReadsACondaZippedWithDataDescriptorsAndADirectory) {
  // rattler's test package: zip members under a leading directory, their
  // sizes only after the data (streaming zip readers fail on it).
  const auto metadata =
      read_package_metadata(real_package("rattler/ca-certificates-2024.7.4-hbcca054_0.conda"));
  EXPECT_EQ(metadata.index.name, "ca-certificates");
  EXPECT_EQ(metadata.index.version, "2024.7.4");
  EXPECT_FALSE(metadata.paths.paths.empty());
}

TEST(PackageMetadata, ReadsAnEmptyPackage) {
  const auto metadata = read_package_metadata(real_package("rattler/packages/empty-0.1.0-h4616a5c_0.conda"));
  EXPECT_EQ(metadata.index.name, "empty");
  EXPECT_TRUE(metadata.paths.paths.empty());
}

TEST(PackageMetadata, InfoFilesReturnsOnlyWhatThePackageHas) {
  const auto files = read_info_files(real_package("conda-package-handling/mock-2.0.0-py37_1000.conda"),
                                     {"info/about.json", "info/run_exports.json"});
  ASSERT_TRUE(files.contains("info/about.json"));
  EXPECT_NE(files.at("info/about.json").find("\"home\""), std::string::npos);
  EXPECT_FALSE(files.contains("info/run_exports.json"));
}

TEST(PackageMetadata, InfoFilesOverTheCallersBoundAreRefused) {
  const auto package = real_package("conda-package-handling/mock-2.0.0-py37_1000.conda");
  const auto files = read_info_files(package, {"info/index.json"});
  ASSERT_TRUE(files.contains("info/index.json"));
  const auto size = files.at("info/index.json").size();
  EXPECT_NO_THROW(read_info_files(package, {"info/index.json"}, size));
  try {
    read_info_files(package, {"info/index.json"}, size - 1);
    ADD_FAILURE() << "an index.json over the bound was read";
  } catch (const PackageError& error) {
    EXPECT_NE(std::string(error.what()).find("mock-2.0.0-py37_1000.conda"), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find("info/index.json"), std::string::npos) << error.what();
  }
}

TEST(PackageMetadata, RefusesCorruptArchivesNamingThem) {
  const auto corrupt = testdata_dir() / "channels/conda-build-index_data/corrupt/noarch";
  for (const auto* name : {"bad_package.tar.bz2", "another_bad_package.conda"}) {
    try {
      read_package_metadata(corrupt / name);
      ADD_FAILURE() << name << " was read";
    } catch (const PackageError& error) {
      EXPECT_NE(std::string(error.what()).find(name), std::string::npos) << error.what();
      EXPECT_NE(std::string(error.what()).find("corrupt"), std::string::npos) << error.what();
    }
  }
}

TEST(PackageMetadata, RefusesArchivesWithoutIndexJson) {
  // conda-build's fixture: a tarball holding one plain file.
  EXPECT_THROW(read_package_metadata(real_package("conda-build/archives/a.tar.bz2")), PackageError);
}

TEST(PackageMetadata, RefusesFilesWithoutAPackageExtension) {
  EXPECT_THROW(read_package_metadata(testdata_dir() / "README.md"), PackageError);
}

}  // namespace
}  // namespace gpuenv::package
