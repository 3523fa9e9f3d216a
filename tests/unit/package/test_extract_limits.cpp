// Decompression bombs: a small archive holding a huge, highly compressible
// member must stop extracting as soon as the member passes what the package
// declares (or, without declared sizes, a total limit), not fill the disk.
//
// The bomb member is 64 MiB of zeros (a sparse source file, so building it
// costs no disk); extraction runs in a child whose files cannot grow past
// 32 MiB, so even a broken limit cannot fill the disk.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include "gpuenv/package/archive_format.hpp"
#include "gpuenv/package/extract.hpp"
#include "gpuenv/package/hashing.hpp"
#include "gpuenv/package/package_error.hpp"
#include "gpuenv/package/package_writer.hpp"
#include "gpuenv/package/paths_json.hpp"
#include "support/bounded_child.hpp"
#include "support/package_builder.hpp"
#include "support/temp_directory.hpp"

namespace gpuenv::package {
namespace {

using testing::TempDirectory;
using testing::text_member;

constexpr std::uint64_t kBombSize = 64ull << 20;  // 16 times the limits, quick to bzip2
constexpr rlim_t kChildFileLimit = 32u << 20;

std::filesystem::path sparse_zeros(const std::filesystem::path& path, std::uint64_t size) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  EXPECT_GE(fd, 0);
  EXPECT_EQ(::ftruncate(fd, static_cast<off_t>(size)), 0);
  ::close(fd);
  return path;
}

enum class Declared { in_paths_json, late_paths_json, legacy_files };

// A package whose lib/big is 200 MB of zeros; paths.json (when there is one)
// says it is 1000 bytes.
std::filesystem::path bomb_package(const std::filesystem::path& dir, ArchiveFormat format,
                                   Declared declared) {
  const auto paths = testing::paths_json_declaring({{"lib/big", std::string(1000, '\0')}});
  PackageMember big;
  big.path = "lib/big";
  big.source = sparse_zeros(dir / "zeros", kBombSize);

  std::vector<PackageMember> members = {
      text_member("info/index.json", R"({"name": "bomb", "version": "1", "build": "0"})")};
  if (declared == Declared::in_paths_json) {
    members.push_back(text_member("info/paths.json", paths));
  }
  if (declared == Declared::legacy_files) members.push_back(text_member("info/files", "lib/big\n"));
  members.push_back(big);
  if (declared == Declared::late_paths_json) {
    members.push_back(text_member("info/paths.json", paths));
  }
  const auto file = dir / (std::string("bomb-1-0") + std::string(extension_of(format)));
  write_package_members(file, members, {.compression_level = 1});
  return file;
}

std::uint64_t bytes_under(const std::filesystem::path& dir) {
  std::uint64_t total = 0;
  std::error_code error;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir, error)) {
    if (entry.is_regular_file()) total += entry.file_size();
  }
  return total;
}

struct BombCase {
  ArchiveFormat format;
  Declared declared;
};

class ExtractBomb : public ::testing::TestWithParam<BombCase> {};

TEST_P(ExtractBomb, StopsWithinAFewMegabytes) {
  TempDirectory scratch;
  const auto archive = bomb_package(scratch.path(), GetParam().format, GetParam().declared);
  ASSERT_LT(std::filesystem::file_size(archive), 1u << 20);  // a bomb: small outside
  const auto target = scratch / "out";
  ExtractLimits limits;
  limits.max_total_bytes = 4u << 20;  // only what has no declared size needs it
  limits.member_slack_bytes = 64u << 10;
  const auto outcome = testing::run_bounded({.file_size = kChildFileLimit}, [&] {
    extract_package(archive, target, limits);
    return std::string("extracted");
  });
  EXPECT_EQ(outcome.exit_code, 1) << outcome.message;
  EXPECT_NE(outcome.message.find("refusing to extract " + archive.string()), std::string::npos)
      << outcome.message;
  EXPECT_NE(outcome.message.find("lib/big"), std::string::npos) << outcome.message;
  // Stopped near the limit that applied, not at the child's 32 MiB.
  EXPECT_LE(bytes_under(target), 5u << 20);
  if (GetParam().declared == Declared::in_paths_json) {
    EXPECT_NE(outcome.message.find("1000 bytes"), std::string::npos) << outcome.message;
    EXPECT_LE(bytes_under(target), 1u << 20);
  } else {
    EXPECT_NE(outcome.message.find("4194304 bytes"), std::string::npos) << outcome.message;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Formats, ExtractBomb,
    ::testing::Values(BombCase{ArchiveFormat::conda, Declared::in_paths_json},
                      BombCase{ArchiveFormat::tar_bz2, Declared::in_paths_json},
                      BombCase{ArchiveFormat::tar_bz2, Declared::late_paths_json},
                      BombCase{ArchiveFormat::tar_bz2, Declared::legacy_files},
                      BombCase{ArchiveFormat::conda, Declared::legacy_files}),
    [](const auto& info) {
      const std::string format = info.param.format == ArchiveFormat::conda ? "conda" : "tar_bz2";
      switch (info.param.declared) {
        case Declared::in_paths_json:
          return format + "_declared";
        case Declared::late_paths_json:
          return format + "_late_paths_json";
        case Declared::legacy_files:
          break;
      }
      return format + "_legacy";
    });

TEST(ExtractLimits, DefaultTotalGrowsWithTheArchiveWithinBounds) {
  // Real packages expand a few times (conda-forge's largest: a few GB from
  // a few hundred MB); bombs expand thousands of times.
  EXPECT_EQ(default_extract_limit(1000), 1ull << 30);
  EXPECT_EQ(default_extract_limit(10ull << 20), 10ull * 1000 << 20);
  EXPECT_EQ(default_extract_limit(1ull << 40), 64ull << 30);
}

TEST(ExtractLimits, RealSizedMembersPass) {
  TempDirectory scratch;
  const auto paths = testing::paths_json_declaring({{"lib/data", std::string(3u << 20, 'x')}});
  const auto archive = scratch / "ok-1-0.conda";
  write_package_members(archive,
                        {text_member("info/index.json", R"({"name": "ok", "version": "1"})"),
                         text_member("info/paths.json", paths),
                         text_member("lib/data", std::string(3u << 20, 'x'))},
                        {.compression_level = 1});
  ExtractLimits limits;
  limits.max_total_bytes = 4u << 20;
  limits.member_slack_bytes = 0;
  const auto summary = extract_package(archive, scratch / "out", limits);
  EXPECT_EQ(std::filesystem::file_size(scratch / "out/lib/data"), 3u << 20);
  EXPECT_TRUE(summary.mismatches.empty());
}

TEST(ExtractLimits, OversizedMetadataIsRefused) {
  TempDirectory scratch;
  PackageMember huge;
  huge.path = "info/paths.json";
  huge.source = sparse_zeros(scratch / "zeros", kBombSize);
  const auto archive = scratch / "meta-1-0.tar.bz2";
  write_package_members(archive,
                        {text_member("info/index.json", R"({"name": "meta", "version": "1"})"), huge},
                        {.compression_level = 1});
  ExtractLimits limits;
  limits.max_total_bytes = 1u << 30;
  limits.max_metadata_bytes = 1u << 20;
  const auto outcome = testing::run_bounded({.file_size = kChildFileLimit}, [&] {
    extract_package(archive, scratch / "out", limits);
    return std::string("extracted");
  });
  EXPECT_EQ(outcome.exit_code, 1) << outcome.message;
  EXPECT_NE(outcome.message.find("info/paths.json"), std::string::npos) << outcome.message;
  EXPECT_LE(bytes_under(scratch / "out"), 2u << 20);
}

}  // namespace
}  // namespace gpuenv::package
