// Decompressing entries on request: zstd, LZ4 and stored payloads, and the
// bound that keeps a compression bomb a small error.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "cuda_binary_test_support.hpp"
#include "support/temp_directory.hpp"

namespace gpuenv::cuda_binary {
namespace {

using testing::committed_binary;

constexpr std::uint64_t one_mib = 1 << 20;

BinaryListing read_committed(const std::string& name) {
  auto listing = read_device_code(committed_binary(name).string());
  EXPECT_TRUE(listing) << listing.error().message;
  return *listing;
}

std::string extract(const std::string& name, std::size_t index) {
  auto listing = read_committed(name);
  auto payload = extract_payload(committed_binary(name).string(), listing.entries.at(index), one_mib);
  EXPECT_TRUE(payload) << payload.error().message;
  return payload.value_or("");
}

TEST(Payload, ZstdCubinDecompressesToTheSameCubinAsTheUncompressedFatbin) {
  const auto compressed = extract("zstd_all.fatbin", 0);
  const auto stored = extract("sm80_sm90a_ptx90.fatbin", 0);
  ASSERT_EQ(compressed.size(), 3112u);
  EXPECT_EQ(compressed.substr(0, 4), "\x7f" "ELF");
  EXPECT_EQ(compressed, stored);
}

TEST(Payload, Lz4AndZstdPtxAreTheKernelsText) {
  const auto lz4 = extract("lz4_ptx.fatbin", 1);
  EXPECT_NE(lz4.find(".target sm_80"), std::string::npos) << lz4;
  EXPECT_NE(lz4.find("add_one"), std::string::npos);
  const auto zstd = extract("zstd_all.fatbin", 1);
  EXPECT_NE(zstd.find(".target sm_90"), std::string::npos) << zstd;
  EXPECT_NE(zstd.find(".version 9.0"), std::string::npos);
  EXPECT_EQ(zstd.back(), '\n');  // the padding is gone
}

TEST(Payload, AnEntryStatingMoreThanTheLimitIsRefusedBeforeAllocating) {
  auto listing = read_committed("zstd_all.fatbin");
  auto entry = listing.entries.at(0);
  auto refused = extract_payload(committed_binary("zstd_all.fatbin").string(), entry, 1000);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().kind, ReadErrorKind::too_large);
  EXPECT_NE(refused.error().message.find("more than the limit"), std::string::npos) << refused.error().message;
}

TEST(Payload, AFrameThatWantsMoreThanItsHeaderSaysIsAnError) {
  // A compression bomb states a small size and decompresses to far more.
  auto listing = read_committed("zstd_all.fatbin");
  for (auto index : {0, 1}) {
    auto entry = listing.entries.at(index);
    entry.uncompressed_size = 64;
    auto result = extract_payload(committed_binary("zstd_all.fatbin").string(), entry, one_mib);
    ASSERT_FALSE(result);
    EXPECT_EQ(result.error().kind, ReadErrorKind::malformed);
  }
  auto lz4 = read_committed("lz4_ptx.fatbin").entries.at(1);
  lz4.uncompressed_size = 64;
  EXPECT_FALSE(extract_payload(committed_binary("lz4_ptx.fatbin").string(), lz4, one_mib));
}

TEST(Payload, CorruptCompressedBytesAreAnErrorNotACrash) {
  gpuenv::testing::TempDirectory directory;
  std::ifstream in(committed_binary("zstd_all.fatbin"), std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), {});
  auto listing = read_committed("zstd_all.fatbin");
  for (const auto& entry : listing.entries)
    for (std::uint64_t at = entry.payload_offset + 4; at < entry.payload_offset + entry.stored_size; at += 7)
      bytes[at] = static_cast<char>(bytes[at] ^ 0x5a);
  const auto path = directory / "corrupt.fatbin";
  gpuenv::testing::write_text_file(path, bytes);
  for (const auto& entry : listing.entries) {
    auto result = extract_payload(path.string(), entry, one_mib);
    EXPECT_FALSE(result);
  }
}

TEST(Payload, ContainerBytesAreAFatbinOfTheirOwn) {
  auto listing = read_committed("libadd_sm90.so");
  gpuenv::testing::TempDirectory directory;
  auto container = extract_container(committed_binary("libadd_sm90.so").string(), listing.entries.at(1), one_mib);
  ASSERT_TRUE(container) << container.error().message;
  gpuenv::testing::write_text_file(directory / "one.fatbin", *container);
  auto alone = read_device_code((directory / "one.fatbin").string());
  ASSERT_TRUE(alone) << alone.error().message;
  EXPECT_EQ(testing::entry_lines(*alone), (std::vector<std::string>{"sass sm_90 none"}));
}

TEST(Payload, WriteContainersWritesEachDistinctContainerOnceNamedByItsOffset) {
  auto listing = read_committed("libadd_sm90.so");
  gpuenv::testing::TempDirectory directory;
  const auto target = directory.path() / "made" / "here";
  auto written = write_containers(listing, target, one_mib);
  ASSERT_TRUE(written) << written.error();
  std::vector<std::uint64_t> offsets;
  for (const auto& entry : listing.entries) {
    if (entry.container_size != 0 && (offsets.empty() || offsets.back() != entry.container_offset))
      offsets.push_back(entry.container_offset);
  }
  ASSERT_EQ(written->size(), offsets.size());
  for (std::size_t i = 0; i < offsets.size(); ++i) {
    std::ostringstream name;
    name << "libadd_sm90.so." << std::hex << offsets[i] << ".fatbin";
    EXPECT_EQ((*written)[i], target / name.str());
    auto alone = read_device_code((*written)[i].string());
    ASSERT_TRUE(alone) << alone.error().message;
    EXPECT_FALSE(alone->entries.empty());
  }
}

TEST(Payload, WriteContainersRefusesAContainerOverTheLimitNamingIt) {
  auto listing = read_committed("libadd_sm90.so");
  gpuenv::testing::TempDirectory directory;
  auto written = write_containers(listing, directory.path(), 16);
  ASSERT_FALSE(written);
  EXPECT_NE(written.error().find("more than the limit"), std::string::npos) << written.error();
}

}  // namespace
}  // namespace gpuenv::cuda_binary
