// Symbol version needs and definitions (SHT_GNU_verneed, SHT_GNU_verdef),
// read natively: which glibc and libstdc++ a built file needs (`gpuenv
// build`'s __glibc requirement, `gpuenv doctor`'s load check), with hostile
// files giving an error, never a crash.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <random>

#include "cuda_binary_test_support.hpp"
#include "gpuenv/cuda_binary/symbol_versions.hpp"

namespace gpuenv::cuda_binary {
namespace {

using testing::committed_binary;
using testing::committed_bytes;

// libadd_sm80.so's .gnu.version_r (readelf -V): file offset 0x728, 0x80 bytes, 4 entries.
constexpr std::size_t verneed_offset = 0x728;
constexpr std::size_t verneed_size = 0x80;

TEST(SymbolVersions, ListsEachLibrarysNeededVersionsInFileOrder) {
  const auto versions = read_symbol_versions(committed_binary("libadd_sm80.so"));
  ASSERT_TRUE(versions) << versions.error().message;
  ASSERT_EQ(versions->needs.size(), 4U);
  EXPECT_EQ(versions->needs[0].library, "libgcc_s.so.1");
  EXPECT_EQ(versions->needs[0].versions, std::vector<std::string>{"GCC_3.0"});
  EXPECT_EQ(versions->needs[1].library, "libstdc++.so.6");
  EXPECT_EQ(versions->needs[1].versions, std::vector<std::string>{"CXXABI_1.3"});
  EXPECT_EQ(versions->needs[2].library, "libc.so.6");
  EXPECT_EQ(versions->needs[2].versions, std::vector<std::string>{"GLIBC_2.2.5"});
  EXPECT_EQ(versions->needs[3].library, "libcudart.so.13");
  EXPECT_TRUE(versions->definitions.empty());
}

TEST(SymbolVersions, ReadsTheVersionsALibraryDefinesWithoutItsOwnName) {
  // The libstdc++ this test runs with (every gpuenv test links it).
  std::ifstream maps("/proc/self/maps");
  std::string line;
  std::string library;
  while (std::getline(maps, line)) {
    const auto at = line.find('/');
    if (at != std::string::npos && line.find("libstdc++.so.6") != std::string::npos) library = line.substr(at);
  }
  ASSERT_FALSE(library.empty()) << "no libstdc++.so.6 in /proc/self/maps";
  const auto versions = read_symbol_versions(library);
  ASSERT_TRUE(versions) << versions.error().message;
  const auto& defined = versions->definitions;
  EXPECT_NE(std::find(defined.begin(), defined.end(), "GLIBCXX_3.4"), defined.end());
  EXPECT_NE(std::find(defined.begin(), defined.end(), "CXXABI_1.3"), defined.end());
  EXPECT_EQ(std::find(defined.begin(), defined.end(), "libstdc++.so.6"), defined.end());
  const auto newest = highest_version(defined, "GLIBCXX_");
  ASSERT_TRUE(newest);
  EXPECT_TRUE(version_less({3, 4, 20}, newest->numbers)) << newest->tag;  // GCC 4.9 or newer
}

TEST(SymbolVersions, VersionTagsCompareAsNumbersNotText) {
  EXPECT_EQ(version_numbers("GLIBC_2.34", "GLIBC_"), (std::vector<int>{2, 34}));
  EXPECT_EQ(version_numbers("GLIBCXX_3.4.30", "GLIBCXX_"), (std::vector<int>{3, 4, 30}));
  EXPECT_FALSE(version_numbers("GLIBC_PRIVATE", "GLIBC_"));
  EXPECT_FALSE(version_numbers("GLIBCXX_3.4", "GLIBC_"));
  EXPECT_FALSE(version_numbers("GLIBC_2.", "GLIBC_"));
  EXPECT_FALSE(version_numbers("GLIBC_2..3", "GLIBC_"));
  EXPECT_TRUE(version_less({2, 9}, {2, 34}));
  EXPECT_TRUE(version_less({3, 4}, {3, 4, 1}));
  const auto highest = highest_version({"GLIBC_2.2.5", "GLIBC_2.34", "GLIBC_2.9", "GLIBC_PRIVATE"}, "GLIBC_");
  ASSERT_TRUE(highest);
  EXPECT_EQ(highest->tag, "GLIBC_2.34");
  EXPECT_EQ(dotted(highest->numbers), "2.34");
  EXPECT_FALSE(highest_version({"GCC_3.0"}, "GLIBC_"));
}

TEST(SymbolVersions, NotElfIsNotABinary) {
  const auto versions = read_symbol_versions(committed_binary("compute_86.ptx"));
  ASSERT_FALSE(versions);
  EXPECT_EQ(versions.error().kind, ReadErrorKind::not_a_binary);
}

TEST(SymbolVersions, EveryTruncationGivesAnErrorNeverACrash) {
  const auto bytes = committed_bytes("libadd_sm80.so");
  for (std::size_t size = 0; size < bytes.size(); size += 7) {
    const auto versions = read_symbol_versions(std::string_view(bytes).substr(0, size), "cut.so");
    // The section table is at the end: every cut file loses it.
    ASSERT_FALSE(versions) << size;
    EXPECT_NE(versions.error().message.find("cut.so: "), std::string::npos) << versions.error().message;
  }
}

TEST(SymbolVersions, ChainsPointingOutsideTheirSectionAreErrors) {
  const auto original = committed_bytes("libadd_sm80.so");
  const auto patched = [&](std::size_t at, std::uint32_t value) {
    auto bytes = original;
    std::memcpy(bytes.data() + at, &value, sizeof value);
    return read_symbol_versions(bytes, "bad.so");
  };
  // vn_aux of the first need, far past the section.
  auto versions = patched(verneed_offset + 8, 0x7fff0000);
  ASSERT_FALSE(versions);
  EXPECT_NE(versions.error().message.find("version need auxiliary entry"), std::string::npos) << versions.error().message;
  // vn_next of the first need, to the section's last byte.
  versions = patched(verneed_offset + 12, verneed_size - 1);
  ASSERT_FALSE(versions);
  EXPECT_NE(versions.error().message.find("runs past it"), std::string::npos) << versions.error().message;
  // A version name past the string table.
  versions = patched(verneed_offset + 0x10 + 8, 0xffffff00);
  ASSERT_FALSE(versions);
  EXPECT_NE(versions.error().message.find("names string"), std::string::npos) << versions.error().message;
  // vn_next of 1 over and over: overlapping entries, bounded by the section's size.
  versions = patched(verneed_offset + 12, 1);
  ASSERT_FALSE(versions);
  EXPECT_EQ(versions.error().kind, ReadErrorKind::malformed);
}

TEST(SymbolVersions, RandomDamageToTheVersionTablesNeverCrashes) {
  // A deterministic mutation fuzz of the tables the reader follows (the
  // libFuzzer target tests/fuzz/fuzz_symbol_versions.cpp does it at length).
  const auto original = committed_bytes("libadd_sm80.so");
  std::mt19937 random(29);
  std::uniform_int_distribution<std::size_t> where(verneed_offset, verneed_offset + verneed_size - 1);
  std::uniform_int_distribution<int> byte(0, 255);
  std::size_t read = 0;
  for (int round = 0; round < 20000; ++round) {
    auto bytes = original;
    for (int flips = 0; flips < 1 + round % 4; ++flips) bytes[where(random)] = static_cast<char>(byte(random));
    const auto versions = read_symbol_versions(bytes, "mutated.so");
    if (versions) {
      ++read;
      std::size_t names = 0;
      for (const auto& need : versions->needs) names += need.versions.size();
      EXPECT_LE(names, 65536U);
    }
  }
  EXPECT_GT(read, 0U);
}

}  // namespace
}  // namespace gpuenv::cuda_binary
