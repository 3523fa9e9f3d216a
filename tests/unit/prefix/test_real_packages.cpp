// Installing the real packages of testdata (made by conda-build and
// rattler-build) from file:// channels and from a local HTTP server.
#include <gtest/gtest.h>

#include <fstream>

#include "channel_records.hpp"
#include "gpuenv/prefix/prefix_record.hpp"
#include "prefix_fixture.hpp"
#include "support/test_http_server.hpp"

namespace gpuenv::prefix {
namespace {

using testing::channel_record;
using testing::file_record;
using testing::testdata_dir;

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

const std::filesystem::path kTestRecipes = testdata_dir() / "channels/conda-test-recipes";
const std::filesystem::path kArchives = testdata_dir() / "packages/conda-build/archives";

std::string file_url(const std::filesystem::path& path) { return "file://" + path.string(); }

specs::PackageRecord recipe(const std::string& fn) {
  return channel_record(kTestRecipes, "noarch", fn, file_url(kTestRecipes));
}

class PrefixRealPackagesTest : public testing::PrefixTest {};

TEST_F(PrefixRealPackagesTest, NoarchPythonGoesWhereTheRealPythonRecordSays) {
  // python 3.99.99 declares lib/python3.99t/site-packages (CEP 17).
  install({recipe("python-3.99.99-0.conda"), recipe("sample_noarch_python-1.0-py_0.conda")});
  EXPECT_TRUE(std::filesystem::is_regular_file(prefix() / "lib/python3.99t/site-packages/sample.py"));
  const auto records = read_prefix_records(prefix());
  ASSERT_EQ(records.records.size(), 2u);
  EXPECT_EQ(records.records[0].package.python_site_packages_path, "lib/python3.99t/site-packages");
  EXPECT_EQ(records.records[1].files, std::vector<std::string>{"lib/python3.99t/site-packages/sample.py"});
}

TEST_F(PrefixRealPackagesTest, ReportsTheClobberOfCondasClobberPackages) {
  const auto result = install({recipe("clobber-a-1.0-0.conda"), recipe("clobber-b-1.0-0.conda")});
  ASSERT_EQ(result.clobbers.size(), 1u);
  EXPECT_EQ(result.clobbers[0].path, "bin/clobber-test-file");
  EXPECT_EQ(result.clobbers[0].winner, "clobber-b-1.0-0");
  EXPECT_EQ(result.clobbers[0].previous_owner, "clobber-a-1.0-0");
}

TEST_F(PrefixRealPackagesTest, RewritesTheLegacyPlaceholderOfACondaBuildPackage) {
  const auto package = file_record(kArchives / "conda-index-pkg-a-1.0-py27h5e241af_0.tar.bz2");
  install({package});
  const auto script = read_text(prefix() / "bin/conda-index-pkg-a");
  EXPECT_EQ(script.rfind("#!" + prefix().string() + "/bin/python", 0), 0u) << script;
  EXPECT_EQ(script.find("anaconda1anaconda2anaconda3"), std::string::npos) << script;
  EXPECT_TRUE(std::filesystem::exists(prefix() / "lib/python2.7/site-packages/conda_index_pkg_a/__init__.pyc"));
}

TEST_F(PrefixRealPackagesTest, WritesTheEntryPointsOfARealNoarchPackage) {
  install({recipe("python-3.99.99-0.conda"),
           file_record(kArchives / "conda-index-pkg-a-1.0-pyhed9eced_1.tar.bz2")});
  const auto site = prefix() / "lib/python3.99t/site-packages";
  EXPECT_TRUE(std::filesystem::exists(site / "conda_index_pkg_a/__init__.py"));
  EXPECT_TRUE(std::filesystem::exists(prefix() / "bin/.conda-index-pkg-a-post-link.sh"));
  const auto entry_point = read_text(prefix() / "bin/conda-index-pkg-a-helper");
  EXPECT_EQ(entry_point.rfind("#!" + prefix().string() + "/bin/python3.99\n", 0), 0u) << entry_point;
  EXPECT_NE(entry_point.find("from conda_index_pkg_a import helper"), std::string::npos) << entry_point;
}

TEST_F(PrefixRealPackagesTest, RecreatesTheSymlinksOfCondaPackageHandlingsTestPackage) {
  install({file_record(testdata_dir() / "packages/conda-package-handling/cph_test_data-0.0.1-0.tar.bz2")});
  EXPECT_EQ(std::filesystem::read_symlink(prefix() / "lib/terminfo"), "../share/terminfo");
  EXPECT_EQ(std::filesystem::read_symlink(prefix() / "libexec/greetings"), "../bin/hello");
  EXPECT_EQ(std::filesystem::read_symlink(prefix() / "lib/libdangle.lib"), "libdangle.lib.1");
  EXPECT_EQ(read_text(prefix() / "libexec/greetings"), read_text(prefix() / "bin/hello-1.0"));
}

TEST_F(PrefixRealPackagesTest, InstallsBothFormatsOfMockAlike) {
  const auto v1 = testdata_dir() / "packages/conda-package-handling/mock-2.0.0-py37_1000.tar.bz2";
  const auto v2 = testdata_dir() / "packages/conda-package-handling/mock-2.0.0-py37_1000.conda";
  install_into(scratch() / "one", {file_record(v1)}, {}, options());
  auto other_cache = options();
  other_cache.cache.pkgs_dirs = {scratch() / "pkgs2"};
  install_into(scratch() / "two", {file_record(v2)}, {}, other_cache);
  auto one = testing::snapshot_prefix(scratch() / "one");
  auto two = testing::snapshot_prefix(scratch() / "two");
  EXPECT_GT(one.size(), 30u);
  // The records differ in fn, url, hashes and cache paths; the files do not.
  for (auto* snapshot : {&one, &two}) {
    std::erase_if(*snapshot, [](const auto& entry) { return entry.first.starts_with("conda-meta/"); });
  }
  EXPECT_EQ(one, two) << testing::describe_difference(one, two);
}

TEST_F(PrefixRealPackagesTest, InstallsFromALocalHttpServer) {
  // The testdata channels, served as they are.
  testing::TestHttpServer server(testdata_dir() / "channels");
  const auto base = server.url("/conda-test-recipes");
  const auto zlib_base = server.url("/conda-format-repo");
  const auto result = install(
      {channel_record(kTestRecipes, "noarch", "python-3.99.99-0.conda", base),
       channel_record(kTestRecipes, "noarch", "sample_noarch_python-1.0-py_0.conda", base),
       channel_record(testdata_dir() / "channels/conda-format-repo", "win-64", "zlib-1.2.11-h62dcd97_3.tar.bz2",
                      zlib_base)});
  EXPECT_EQ(result.linked.size(), 3u);
  EXPECT_TRUE(std::filesystem::exists(prefix() / "Library/bin/zlib.dll"));
  EXPECT_TRUE(std::filesystem::exists(prefix() / "lib/python3.99t/site-packages/sample.py"));
  const auto record = read_text(prefix() / "conda-meta/zlib-1.2.11-h62dcd97_3.json");
  EXPECT_NE(record.find("\"url\": \"" + zlib_base + "/win-64/zlib-1.2.11-h62dcd97_3.tar.bz2\""), std::string::npos);
  EXPECT_NE(record.find("\"channel\": \"" + zlib_base + "/win-64\""), std::string::npos) << record;
  EXPECT_EQ(server.requests_for("/conda-format-repo/win-64/zlib-1.2.11-h62dcd97_3.tar.bz2").size(), 1u);
}

TEST_F(PrefixRealPackagesTest, RefusesTheCorruptPackagesOfCondaBuildsIndexFixtures) {
  const auto corrupt = testdata_dir() / "channels/conda-build-index_data/corrupt/noarch";
  for (const auto* name : {"bad_package.tar.bz2", "another_bad_package.conda"}) {
    specs::PackageRecord record;
    record.name = "bad";
    record.set_version("1.0");
    record.build = "0";
    record.fn = name;
    record.url = file_url(corrupt / name);
    record.sha256 = package::hash_file(corrupt / name, true, false).sha256;
    EXPECT_THROW(install({record}), PrefixError) << name;
    EXPECT_TRUE(read_prefix_records(prefix()).records.empty());
  }
}

}  // namespace
}  // namespace gpuenv::prefix
