// Digests of package files, checked against known vectors and against the
// sha256 sums testdata/PROVENANCE.tsv records for real packages.
#include <gtest/gtest.h>

#include <fstream>

#include "gpuenv/package/hashing.hpp"
#include "gpuenv/package/package_error.hpp"
#include "support/testdata.hpp"

namespace gpuenv::package {
namespace {

TEST(PackageHashing, MatchesKnownVectors) {
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  StreamingHash md5(HashAlgorithm::md5);
  md5.update("a");
  md5.update("bc");
  EXPECT_EQ(md5.finish_hex(), "900150983cd24fb0d6963f7d28e17f72");
}

TEST(PackageHashing, HashesRealPackagesAsTheirProvenanceSays) {
  std::ifstream provenance(testing::testdata_dir() / "PROVENANCE.tsv");
  ASSERT_TRUE(provenance) << "PROVENANCE.tsv missing";
  std::string line;
  int checked = 0;
  while (std::getline(provenance, line)) {
    const auto fields = testing::split_tabs(line);
    if (fields.size() < 7 || !(fields[0].ends_with(".conda") || fields[0].ends_with(".tar.bz2"))) {
      continue;
    }
    const auto digests = hash_file(testing::testdata_dir() / fields[0], true, false);
    EXPECT_EQ(digests.sha256, fields[6]) << fields[0];
    EXPECT_EQ(std::to_string(digests.size), fields[5]) << fields[0];
    ++checked;
  }
  EXPECT_GT(checked, 20);
}

TEST(PackageHashing, ComparesDigestsIgnoringCase) {
  EXPECT_TRUE(same_digest("ABCdef", "abcDEF"));
  EXPECT_FALSE(same_digest("abc", "abd"));
  EXPECT_FALSE(same_digest("abc", "abcd"));
}

TEST(PackageHashing, NamesAFileItCannotRead) {
  try {
    hash_file("/nonexistent/gpuenv.conda", true, false);
    FAIL() << "no error";
  } catch (const PackageError& error) {
    EXPECT_NE(std::string(error.what()).find("/nonexistent/gpuenv.conda"), std::string::npos);
  }
}

}  // namespace
}  // namespace gpuenv::package
