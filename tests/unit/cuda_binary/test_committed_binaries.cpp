// The listings of the tiny binaries in tests/data/cuda_binary (made by its
// generate.sh with nvcc 13.0), as nvcc was asked to build them and as
// cuobjdump lists them: checked without any CUDA tool installed.
#include <gtest/gtest.h>

#include <algorithm>

#include "cuda_binary_test_support.hpp"
#include "gpuenv/cuda_binary/listing_summary.hpp"

namespace gpuenv::cuda_binary {
namespace {

using testing::committed_binary;
using testing::entry_lines;
using Lines = std::vector<std::string>;

BinaryListing read_committed(const std::string& name) {
  auto listing = read_device_code(committed_binary(name).string());
  if (!listing) ADD_FAILURE() << listing.error().message;
  return listing.value_or(BinaryListing{});
}

TEST(CommittedBinaries, UncompressedFatbinWithArchSpecificSassAndPtx) {
  auto listing = read_committed("sm80_sm90a_ptx90.fatbin");
  EXPECT_EQ(listing.format, BinaryFormat::fatbin);
  EXPECT_EQ(listing.container_count, 1u);
  EXPECT_EQ(entry_lines(listing), (Lines{"sass sm_80 none", "sass sm_90a none", "ptx compute_90 9.0 none"}));
  EXPECT_EQ(listing.entries[0].stored_size, 3112u);
  EXPECT_EQ(listing.entries[0].uncompressed_size, 3112u);
}

TEST(CommittedBinaries, CompressAllUsesZstdForEveryEntry) {
  auto listing = read_committed("zstd_all.fatbin");
  EXPECT_EQ(entry_lines(listing), (Lines{"sass sm_80 zstd", "ptx compute_90 9.0 zstd"}));
  // The cubin is the same 3112 bytes as in the uncompressed fatbin.
  EXPECT_EQ(listing.entries[0].uncompressed_size, 3112u);
  EXPECT_EQ(listing.entries[0].stored_size, 863u);
}

TEST(CommittedBinaries, SpeedModeCompressesPtxWithLz4) {
  auto listing = read_committed("lz4_ptx.fatbin");
  EXPECT_EQ(entry_lines(listing), (Lines{"sass sm_80 none", "ptx compute_80 9.0 lz4"}));
}

TEST(CommittedBinaries, FamilyAndArchSpecificTargets) {
  auto listing = read_committed("family_specific.fatbin");
  EXPECT_EQ(entry_lines(listing), (Lines{"sass sm_100f zstd", "sass sm_100a zstd", "ptx compute_120a 9.0 zstd"}));
}

TEST(CommittedBinaries, StandaloneCubinSaysArchSpecificFromItsToolNote) {
  auto listing = read_committed("sm_90a.cubin");
  EXPECT_EQ(listing.format, BinaryFormat::cubin);
  EXPECT_EQ(entry_lines(listing), (Lines{"sass sm_90a none"}));
}

TEST(CommittedBinaries, StandalonePtx) {
  auto listing = read_committed("compute_86.ptx");
  EXPECT_EQ(listing.format, BinaryFormat::ptx);
  EXPECT_EQ(entry_lines(listing), (Lines{"ptx compute_86 9.0 none"}));
}

TEST(CommittedBinaries, RelocatableDeviceCodeInAStaticArchive) {
  auto listing = read_committed("librdc.a");
  EXPECT_EQ(listing.format, BinaryFormat::static_archive);
  EXPECT_EQ(entry_lines(listing), (Lines{"sass sm_75 zstd", "sass sm_89 zstd", "ptx compute_89 9.0 zstd"}));
  for (const auto& entry : listing.entries) {
    EXPECT_TRUE(entry.location.ends_with("_kernel.o(__nv_relfatbin)")) << entry.location;
    EXPECT_TRUE(entry.registered);
  }
}

TEST(CommittedBinaries, SharedLibrariesBuiltForOneArchitecture) {
  // nvcc puts two sm_80 cubins in .nv_fatbin (the kernel's and the runtime's
  // registration stub); cuobjdump lists both.
  for (auto [name, arch] : {std::pair{"libadd_sm80.so", "sass sm_80 none"}, {"libadd_sm90.so", "sass sm_90 none"}}) {
    auto listing = read_committed(name);
    EXPECT_EQ(listing.format, BinaryFormat::elf_shared_library) << name;
    EXPECT_EQ(entry_lines(listing), (Lines{arch, arch})) << name;
    for (const auto& entry : listing.entries) EXPECT_EQ(entry.location, ".nv_fatbin");
    auto summary = summarize(listing.entries);
    EXPECT_EQ(summary.sass.size(), 1u);
    EXPECT_TRUE(summary.ptx.empty());
    // The registration stub defines nothing; the kernel's cubin does.
    EXPECT_EQ(summary.empty_modules, 1u) << name;
    EXPECT_EQ(std::count_if(listing.entries.begin(), listing.entries.end(),
                            [](const DeviceCode& entry) { return entry.empty_module; }),
              1)
        << name;
  }
}

// A library compiled by nvcc without device code of its own (NVIDIA's
// libcufftw.so.12 is one) still carries a cubin for the architecture it was
// built for, defining nothing: it is never loaded, so it says nothing about
// the GPUs the library runs on, and gpuenv doctor must not fail it on others.
TEST(CommittedBinaries, AHostOnlyLibraryCarriesOnlyEmptyModules) {
  auto listing = read_committed("libhost_only_sm75.so");
  EXPECT_EQ(entry_lines(listing), (Lines{"sass sm_75 none", "sass sm_75 none"}));
  for (const auto& entry : listing.entries) EXPECT_TRUE(entry.empty_module);
  const auto summary = summarize(listing.entries);
  EXPECT_TRUE(summary.sass.empty());
  EXPECT_EQ(summary.empty_modules, 2u);
  EXPECT_FALSE(summary.has_device_code());
  // A cubin with a kernel is not empty, standalone or in a fatbin.
  EXPECT_FALSE(read_committed("sm_90a.cubin").entries.at(0).empty_module);
  EXPECT_FALSE(read_committed("sm80_sm90a_ptx90.fatbin").entries.at(0).empty_module);
}

TEST(CommittedBinaries, ManyFilesAtOnceKeepTheirOrder) {
  std::vector<std::string> paths;
  for (const auto* name : {"librdc.a", "sm_90a.cubin", "missing-file", "compute_86.ptx"})
    paths.push_back(committed_binary(name).string());
  auto results = read_device_code(paths, {}, 2);
  ASSERT_EQ(results.size(), 4u);
  EXPECT_EQ(results[0]->format, BinaryFormat::static_archive);
  EXPECT_EQ(results[1]->format, BinaryFormat::cubin);
  ASSERT_FALSE(results[2]);
  EXPECT_EQ(results[2].error().kind, ReadErrorKind::unreadable);
  EXPECT_NE(results[2].error().message.find("missing-file"), std::string::npos);
  EXPECT_EQ(results[3]->format, BinaryFormat::ptx);
}

TEST(CommittedBinaries, MayHoldDeviceCodeLooksAtTheFirstBytes) {
  EXPECT_TRUE(may_hold_device_code(committed_binary("libadd_sm80.so").string()));
  EXPECT_TRUE(may_hold_device_code(committed_binary("librdc.a").string()));
  EXPECT_TRUE(may_hold_device_code(committed_binary("zstd_all.fatbin").string()));
  EXPECT_FALSE(may_hold_device_code(committed_binary("generate.sh").string()));
}

TEST(GpuArchitecture, ParsesTheSpellingsUsersWrite) {
  EXPECT_EQ(parse_gpu_architecture("sm_86"), (GpuArchitecture{86, ArchVariant::portable}));
  EXPECT_EQ(parse_gpu_architecture("8.6"), (GpuArchitecture{86, ArchVariant::portable}));
  EXPECT_EQ(parse_gpu_architecture("90a"), (GpuArchitecture{90, ArchVariant::arch_specific}));
  EXPECT_EQ(parse_gpu_architecture("compute_100f"), (GpuArchitecture{100, ArchVariant::family}));
  EXPECT_EQ(parse_gpu_architecture("12.0"), (GpuArchitecture{120, ArchVariant::portable}));
  EXPECT_FALSE(parse_gpu_architecture("sm_"));
  EXPECT_FALSE(parse_gpu_architecture("gpu"));
  EXPECT_FALSE(parse_gpu_architecture("8.66"));
  EXPECT_EQ(GpuArchitecture(100, ArchVariant::family).sm_name(), "sm_100f");
  EXPECT_EQ(GpuArchitecture(90, ArchVariant::arch_specific).compute_name(), "compute_90a");
}

}  // namespace
}  // namespace gpuenv::cuda_binary
