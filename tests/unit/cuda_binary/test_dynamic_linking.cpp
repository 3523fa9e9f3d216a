// DT_NEEDED and DT_SONAME, read natively: which CUDA runtime a library
// needs (`gpuenv doctor`), with hostile files giving an error, not a crash.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <fstream>

#include "cuda_binary_test_support.hpp"
#include "gpuenv/cuda_binary/dynamic_linking.hpp"
#include "support/temp_directory.hpp"

namespace gpuenv::cuda_binary {
namespace {

using testing::committed_binary;
using testing::committed_bytes;

TEST(DynamicLinking, ListsTheSonamesALibraryNeedsInOrder) {
  const auto linking = read_dynamic_linking(committed_binary("libadd_sm80.so"));
  ASSERT_TRUE(linking) << linking.error().message;
  const std::vector<std::string> expected = {"libcudart.so.13", "libstdc++.so.6", "libgcc_s.so.1", "libc.so.6"};
  EXPECT_EQ(linking->needed, expected);
  EXPECT_EQ(linking->soname, "");
}

TEST(DynamicLinking, ReadsTheLibrarysOwnSoname) {
  // Only the name changes: DT_NEEDED's first entry becomes DT_SONAME.
  auto bytes = committed_bytes("libadd_sm80.so");
  const auto dynamic = 0x3dd8;  // readelf -S: .dynamic's file offset
  std::int64_t tag = 0;
  std::memcpy(&tag, bytes.data() + dynamic, sizeof tag);
  ASSERT_EQ(tag, 1) << "the committed library changed; update the offset";
  tag = 14;
  std::memcpy(bytes.data() + dynamic, &tag, sizeof tag);
  gpuenv::testing::TempDirectory directory;
  gpuenv::testing::write_text_file(directory.path() / "libcudart.so.13", bytes);
  const auto linking = read_dynamic_linking((directory.path() / "libcudart.so.13").string());
  ASSERT_TRUE(linking) << linking.error().message;
  EXPECT_EQ(linking->soname, "libcudart.so.13");
  EXPECT_EQ(linking->needed.size(), 3U);
}

TEST(DynamicLinking, ReadsRpathAndRunpathAndTellsADynamicFileFromAStaticOne) {
  // The build's relocation reads them: DT_NEEDED's first two entries become
  // DT_RUNPATH and DT_RPATH, their strings unchanged.
  auto bytes = committed_bytes("libadd_sm80.so");
  const auto dynamic = 0x3dd8;
  for (const auto& [index, tag] : {std::pair{0, std::int64_t{29}}, std::pair{1, std::int64_t{15}}}) {
    std::memcpy(bytes.data() + dynamic + index * 16, &tag, sizeof tag);
  }
  gpuenv::testing::TempDirectory directory;
  gpuenv::testing::write_text_file(directory.path() / "libpaths.so", bytes);
  const auto linking = read_dynamic_linking((directory.path() / "libpaths.so").string());
  ASSERT_TRUE(linking) << linking.error().message;
  EXPECT_TRUE(linking->dynamic);
  EXPECT_EQ(linking->runpath, "libcudart.so.13");
  EXPECT_EQ(linking->rpath, "libstdc++.so.6");
  EXPECT_EQ(linking->needed.size(), 2U);

  const auto plain = read_dynamic_linking(committed_binary("libadd_sm80.so"));
  ASSERT_TRUE(plain);
  EXPECT_TRUE(plain->dynamic);
  EXPECT_EQ(plain->rpath, "");
  EXPECT_EQ(plain->runpath, "");
}

TEST(DynamicLinking, NotElfIsNotABinary) {
  const auto linking = read_dynamic_linking(committed_binary("compute_86.ptx"));
  ASSERT_FALSE(linking);
  EXPECT_EQ(linking.error().kind, ReadErrorKind::not_a_binary);
}

TEST(DynamicLinking, EveryTruncationGivesAnErrorOrAListingNeverACrash) {
  const auto bytes = committed_bytes("libadd_sm80.so");
  gpuenv::testing::TempDirectory directory;
  const auto path = directory.path() / "cut.so";
  std::size_t errors = 0;
  for (std::size_t size = 0; size < bytes.size(); size += 61) {
    gpuenv::testing::write_text_file(path, bytes.substr(0, size));
    const auto linking = read_dynamic_linking(path.string());
    if (!linking) {
      ++errors;
      EXPECT_NE(linking.error().message.find("cut.so"), std::string::npos) << linking.error().message;
    }
  }
  // The section table is at the end: every cut file loses it.
  EXPECT_EQ(errors, (bytes.size() + 60) / 61);
}

TEST(DynamicLinking, AStringIndexPastTheTableIsAnError) {
  auto bytes = committed_bytes("libadd_sm80.so");
  const std::uint64_t past = 1ULL << 40;
  std::memcpy(bytes.data() + 0x3dd8 + 8, &past, sizeof past);
  gpuenv::testing::TempDirectory directory;
  gpuenv::testing::write_text_file(directory.path() / "bad.so", bytes);
  const auto linking = read_dynamic_linking((directory.path() / "bad.so").string());
  ASSERT_FALSE(linking);
  EXPECT_EQ(linking.error().kind, ReadErrorKind::malformed);
  EXPECT_NE(linking.error().message.find("names string"), std::string::npos) << linking.error().message;
}

}  // namespace
}  // namespace gpuenv::cuda_binary
