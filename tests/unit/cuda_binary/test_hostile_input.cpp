// Truncated, inconsistent and hostile files: a clear error naming the file
// and the place, never a crash or a runaway allocation.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <random>

#include "cuda_binary_test_support.hpp"
#include "support/temp_directory.hpp"

namespace gpuenv::cuda_binary {
namespace {

using testing::committed_binary;
using testing::committed_bytes;

template <typename T>
void put(std::string& bytes, std::size_t at, T value) {
  std::memcpy(bytes.data() + at, &value, sizeof value);
}

class HostileInput : public ::testing::Test {
 protected:
  ReadResult read_bytes(const std::string& bytes, const ReadOptions& options = {}) {
    const auto path = directory_ / "input.bin";
    gpuenv::testing::write_text_file(path, bytes);
    return read_device_code(path.string(), options);
  }
  void expect_error(const std::string& bytes, ReadErrorKind kind, const std::string& fragment) {
    auto result = read_bytes(bytes);
    ASSERT_FALSE(result) << "read without error";
    EXPECT_EQ(result.error().kind, kind) << result.error().message;
    EXPECT_NE(result.error().message.find("input.bin"), std::string::npos) << result.error().message;
    EXPECT_NE(result.error().message.find(fragment), std::string::npos) << result.error().message;
  }
  gpuenv::testing::TempDirectory directory_;
};

TEST_F(HostileInput, EveryTruncationOfAFatbinIsAnErrorOrAShorterListing) {
  const auto bytes = committed_bytes("sm80_sm90a_ptx90.fatbin");
  for (std::size_t length = 0; length < bytes.size(); ++length) {
    auto result = read_bytes(bytes.substr(0, length));
    ASSERT_FALSE(result) << "length " << length;
    EXPECT_FALSE(result.error().message.empty());
  }
}

TEST_F(HostileInput, TruncatedLibrariesAndArchivesSayTruncated) {
  for (const auto* name : {"libadd_sm80.so", "librdc.a"}) {
    const auto bytes = committed_bytes(name);
    // From 9 bytes: "!<arch>\n" alone is a valid empty archive.
    for (std::size_t length = 9; length < bytes.size(); length += 61) {
      auto result = read_bytes(bytes.substr(0, length));
      ASSERT_FALSE(result) << name << " cut at " << length << ": " << result->entries.size() << " entries";
      EXPECT_NE(result.error().message.find("truncated file?"), std::string::npos) << result.error().message;
    }
  }
}

TEST_F(HostileInput, AContainerClaimingMoreBytesThanTheFileHolds) {
  auto bytes = committed_bytes("sm80_sm90a_ptx90.fatbin");
  put<std::uint64_t>(bytes, 8, std::uint64_t{1} << 62);
  expect_error(bytes, ReadErrorKind::malformed, "fatbin container at offset 0x0");
}

TEST_F(HostileInput, AnEntryWithAnAbsurdHeaderOrPayloadSize) {
  auto bytes = committed_bytes("sm80_sm90a_ptx90.fatbin");
  put<std::uint32_t>(bytes, 16 + 4, 0xffffffffu);
  expect_error(bytes, ReadErrorKind::malformed, "entry at offset 0x10");
  bytes = committed_bytes("sm80_sm90a_ptx90.fatbin");
  put<std::uint64_t>(bytes, 16 + 8, ~std::uint64_t{0});
  expect_error(bytes, ReadErrorKind::malformed, "payload");
}

TEST_F(HostileInput, ACompressedEntryWhoseCompressedSizeExceedsItsPayload) {
  auto bytes = committed_bytes("zstd_all.fatbin");
  put<std::uint32_t>(bytes, 16 + 16, 0x7fffffffu);
  expect_error(bytes, ReadErrorKind::malformed, "compressed bytes");
}

TEST_F(HostileInput, AbsurdEntryCountsStopAtTheLimit) {
  // 100000 empty sm_80 entries: each is well-formed, the count is the attack.
  constexpr std::size_t count = 100000;
  std::string bytes(16 + count * 64, '\0');
  put<std::uint32_t>(bytes, 0, 0xBA55ED50u);
  put<std::uint16_t>(bytes, 4, 1);
  put<std::uint16_t>(bytes, 6, 16);
  put<std::uint64_t>(bytes, 8, count * 64);
  for (std::size_t index = 0; index < count; ++index) {
    const auto at = 16 + index * 64;
    put<std::uint16_t>(bytes, at, 2);
    put<std::uint32_t>(bytes, at + 4, 64);
    put<std::uint32_t>(bytes, at + 28, 80);
  }
  ReadOptions options;
  options.max_entries = 1000;
  auto result = read_bytes(bytes, options);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().kind, ReadErrorKind::too_large);
  EXPECT_NE(result.error().message.find("more than 1000"), std::string::npos);
  auto all = read_bytes(bytes);
  ASSERT_TRUE(all) << all.error().message;
  EXPECT_EQ(all->entries.size(), count);
}

TEST_F(HostileInput, ElfSectionsPastTheEndOfTheFile) {
  auto bytes = committed_bytes("libadd_sm80.so");
  std::uint64_t section_table;
  std::memcpy(&section_table, bytes.data() + 40, 8);
  std::uint16_t count;
  std::memcpy(&count, bytes.data() + 60, 2);
  // Every section moved past the end: the first one read must be refused.
  for (std::uint16_t index = 1; index < count; ++index)
    put<std::uint64_t>(bytes, section_table + index * 64 + 24, bytes.size() + 4096);
  expect_error(bytes, ReadErrorKind::malformed, "runs past the end of the file");
  bytes = committed_bytes("libadd_sm80.so");
  put<std::uint16_t>(bytes, 60, 0xfeff);
  expect_error(bytes, ReadErrorKind::malformed, "section headers");
}

TEST_F(HostileInput, ACubinWithoutASectionTableButASectionCount) {
  // Found by fuzzing: the section count was trusted without a table.
  auto bytes = committed_bytes("sm_90a.cubin");
  put<std::uint64_t>(bytes, 40, 0);
  put<std::uint16_t>(bytes, 60, 0xfeff);
  auto result = read_bytes(bytes);
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_EQ(testing::entry_lines(*result), (std::vector<std::string>{"sass sm_90 none"}));
}

TEST_F(HostileInput, FormatsGpuenvRefusesSayWhy) {
  auto elf32 = committed_bytes("libadd_sm80.so");
  elf32[4] = 1;
  expect_error(elf32, ReadErrorKind::unsupported, "32-bit");
  expect_error("!<thin>\n", ReadErrorKind::unsupported, "thin archive");
  expect_error("", ReadErrorKind::not_a_binary, "not a CUDA binary");
  expect_error("just some text\n", ReadErrorKind::not_a_binary, "not a CUDA binary");
  auto archive = committed_bytes("librdc.a");
  // The first member's size field (a decimal at offset 8 + 48) made huge.
  std::memcpy(archive.data() + 8 + 48, "9999999999", 10);
  expect_error(archive, ReadErrorKind::malformed, "past the end of the file");
}

TEST_F(HostileInput, ADirectoryIsNotRead) {
  auto result = read_device_code(directory_.path().string());
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().kind, ReadErrorKind::unreadable);
  EXPECT_NE(result.error().message.find("not a regular file"), std::string::npos);
}

TEST_F(HostileInput, RandomDamageNeverCrashes) {
  std::mt19937 random(12);
  for (const auto* name : {"sm80_sm90a_ptx90.fatbin", "zstd_all.fatbin", "libadd_sm90.so", "librdc.a",
                           "sm_90a.cubin", "family_specific.fatbin"}) {
    const auto original = committed_bytes(name);
    for (int round = 0; round < 200; ++round) {
      auto bytes = original;
      for (int flip = 0; flip < 1 + round % 8; ++flip) bytes[random() % bytes.size()] = static_cast<char>(random());
      auto result = read_bytes(bytes);
      if (!result) {
        EXPECT_FALSE(result.error().message.empty());
        continue;
      }
      for (const auto& entry : result->entries) {
        auto payload = extract_payload((directory_ / "input.bin").string(), entry, 1 << 20);
        if (!payload) {
          EXPECT_FALSE(payload.error().message.empty());
        }
      }
    }
  }
}

}  // namespace
}  // namespace gpuenv::cuda_binary
