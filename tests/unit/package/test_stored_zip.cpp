// Reading a .conda's zip without a zip reader: the stored members found from
// the file's tail, anything else left to libarchive, and extraction alike
// either way (info-* first, so paths.json bounds every member of pkg-*).
#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "gpuenv/package/extract.hpp"
#include "gpuenv/package/hashing.hpp"
#include "gpuenv/package/package_error.hpp"
#include "gpuenv/package/package_metadata.hpp"
#include "gpuenv/package/package_writer.hpp"
#include "gpuenv/package/paths_json.hpp"
#include "gpuenv/package/stored_zip.hpp"
#include "support/package_builder.hpp"
#include "support/run_command.hpp"
#include "support/temp_directory.hpp"
#include "support/testdata.hpp"

namespace gpuenv::package {
namespace {

using testing::TempDirectory;
using testing::text_member;
using testing::read_file;
using testing::testdata_dir;

void write_bytes(const std::filesystem::path& file, const std::string& bytes) {
  std::ofstream(file, std::ios::binary | std::ios::trunc) << bytes;
}

std::optional<std::vector<StoredMember>> members_of(const std::filesystem::path& file) {
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  EXPECT_GE(fd, 0) << file;
  const auto members = stored_zip_members(fd, std::filesystem::file_size(file));
  ::close(fd);
  return members;
}

// A small package with paths.json, written by gpuenv's own writer.
std::filesystem::path small_conda(const std::filesystem::path& dir) {
  const auto file = dir / "small-1-0.conda";
  write_package_members(file,
                        {text_member("info/index.json", R"({"name": "small", "version": "1", "build": "0"})"),
                         text_member("info/paths.json", testing::paths_json_declaring({{"lib/a.txt", "alpha\n"}, {"bin/tool", "#!/bin/sh\necho b\n"}})),
                         text_member("lib/a.txt", "alpha\n"), text_member("bin/tool", "#!/bin/sh\necho b\n")},
                        {.compression_level = 1});
  return file;
}

std::uint32_t le32(const std::string& bytes, std::size_t at) {
  return static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[at])) |
         static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[at + 1])) << 8 |
         static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[at + 2])) << 16 |
         static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[at + 3])) << 24;
}

void put32(std::string& bytes, std::size_t at, std::uint32_t value) {
  for (int i = 0; i < 4; ++i) bytes[at + static_cast<std::size_t>(i)] = static_cast<char>((value >> (8 * i)) & 0xff);
}

constexpr std::string_view kZstdMagic = "\x28\xb5\x2f\xfd";

TEST(StoredZipMembers, ListsTheMembersOfACondaWhereTheirBytesAre) {
  TempDirectory scratch;
  const auto file = small_conda(scratch.path());
  const auto members = members_of(file);
  ASSERT_TRUE(members);
  ASSERT_EQ(members->size(), 3u);
  const auto bytes = read_file(file);
  EXPECT_EQ((*members)[0].name, "metadata.json");
  EXPECT_EQ(bytes.substr((*members)[0].data_offset, (*members)[0].size), "{\"conda_pkg_format_version\": 2}");
  EXPECT_EQ((*members)[1].name, "info-small-1-0.tar.zst");
  EXPECT_EQ((*members)[2].name, "pkg-small-1-0.tar.zst");
  for (std::size_t i = 1; i < 3; ++i) {
    EXPECT_EQ(bytes.substr((*members)[i].data_offset, 4), kZstdMagic) << (*members)[i].name;
  }
}

TEST(StoredZipMembers, ReadsCondaFilesOtherToolsWrote) {
  const auto file = testdata_dir() / "packages/conda-package-handling/mock-2.0.0-py37_1000.conda";
  const auto members = members_of(file);
  ASSERT_TRUE(members);
  const auto bytes = read_file(file);
  int tarballs = 0;
  for (const auto& member : *members) {
    if (!member.name.ends_with(".tar.zst")) continue;
    ++tarballs;
    EXPECT_EQ(bytes.substr(member.data_offset, 4), kZstdMagic) << member.name;
    EXPECT_LE(member.data_offset + member.size, bytes.size());
  }
  EXPECT_EQ(tarballs, 2);
  // Zipped by hand, deflated, in a directory: libarchive's to read
  // (ExtractPackage.ExtractsRattlerBuiltCondaWithDataDescriptors extracts it).
  EXPECT_FALSE(members_of(testdata_dir() / "packages/rattler/ca-certificates-2024.7.4-hbcca054_0.conda"));
}

// Whatever is not a plain stored zip is libarchive's to read (and to report).
TEST(StoredZipMembers, LeavesAnythingElseToLibarchive) {
  TempDirectory scratch;
  const auto good = read_file(small_conda(scratch.path()));
  const auto end = good.rfind(std::string("PK\x05\x06", 4));
  ASSERT_NE(end, std::string::npos);
  const auto directory = le32(good, end + 16);
  ASSERT_EQ(le32(good, directory), 0x02014b50u);
  const auto check = [&](const std::string& name, std::string bytes) {
    const auto file = scratch / name;
    write_bytes(file, bytes);
    EXPECT_FALSE(members_of(file)) << name;
  };
  check("empty", "");
  check("tiny", "PK\x05\x06");
  check("truncated", good.substr(0, good.size() - 5));
  check("no-end-record", good.substr(0, end));
  auto compressed = good;
  compressed[directory + 10] = 8;  // deflate
  check("deflated", compressed);
  auto encrypted = good;
  encrypted[directory + 8] = 1;
  check("encrypted", encrypted);
  auto beyond = good;
  put32(beyond, end + 16, static_cast<std::uint32_t>(good.size()));  // the directory past the end
  check("directory-beyond", beyond);
  auto zip64 = good;
  put32(zip64, end + 16, 0xffffffffu);
  check("zip64", zip64);
  auto bad_local = good;
  bad_local[0] = 'X';  // metadata.json's local header signature
  check("bad-local-header", bad_local);
  // Thousands of members (a local header read each): not a package.
  {
    const auto crowded = scratch / "crowded.conda";
    StoredZipWriter zip(crowded);
    for (int i = 0; i < 17; ++i) zip.add("member-" + std::to_string(i), "x");
    zip.finish();
    EXPECT_FALSE(members_of(crowded)) << "crowded";
    const auto three = scratch / "three.conda";
    StoredZipWriter small(three);
    for (int i = 0; i < 3; ++i) small.add("member-" + std::to_string(i), "x");
    small.finish();
    EXPECT_TRUE(members_of(three));
  }
  auto overlong = good;
  put32(overlong, directory + 20, 1u << 30);  // a member running into the directory
  put32(overlong, directory + 24, 1u << 30);
  check("member-overlaps-directory", overlong);
}

// Zips the tarballs of the .conda `source` again into `out`, in the order
// of `names`, stored or deflated, with libarchive's zip writer.
void rezip(const std::filesystem::path& source, const std::filesystem::path& out,
           const std::vector<std::string>& names, bool deflated) {
  const auto members = members_of(source);
  ASSERT_TRUE(members);
  const auto bytes = read_file(source);
  std::filesystem::create_directories(out.parent_path());
  archive* writer = archive_write_new();
  archive_write_set_format_zip(writer);
  archive_write_set_options(writer, deflated ? "zip:compression=deflate" : "zip:compression=store");
  ASSERT_EQ(archive_write_open_filename(writer, out.c_str()), ARCHIVE_OK);
  for (const auto& name : names) {
    const auto member = std::find_if(members->begin(), members->end(), [&](const auto& m) { return m.name == name; });
    ASSERT_NE(member, members->end()) << name;
    const auto content = bytes.substr(member->data_offset, member->size);
    archive_entry* entry = archive_entry_new();
    archive_entry_set_pathname(entry, name.c_str());
    archive_entry_set_filetype(entry, AE_IFREG);
    archive_entry_set_perm(entry, 0644);
    archive_entry_set_size(entry, static_cast<la_int64_t>(content.size()));
    EXPECT_EQ(archive_write_header(writer, entry), ARCHIVE_OK);
    EXPECT_EQ(archive_write_data(writer, content.data(), content.size()), static_cast<la_ssize_t>(content.size()));
    archive_entry_free(entry);
  }
  archive_write_close(writer);
  archive_write_free(writer);
}

// A .conda holding pkg-* before info-* (CEP 35 fixes no order) and a
// member 8 MiB long that paths.json declares as 1000 bytes.
std::filesystem::path pkg_first_bomb(const std::filesystem::path& dir, bool deflated) {
  const auto source = dir / "bomb-1-0.conda";
  write_package_members(source,
                        {text_member("info/index.json", R"({"name": "bomb", "version": "1", "build": "0"})"),
                         text_member("info/paths.json", testing::paths_json_declaring({{"lib/big", std::string(1000, '\0')}})),
                         text_member("lib/big", std::string(8u << 20, '\0'))},
                        {.compression_level = 1});
  const auto out = dir / (deflated ? "deflated" : "stored") / "bomb-1-0.conda";
  rezip(source, out, {"pkg-bomb-1-0.tar.zst", "info-bomb-1-0.tar.zst"}, deflated);
  return out;
}

TEST(StoredZipMembers, PathsJsonBoundsPkgMembersThatComeFirstInTheZip) {
  TempDirectory scratch;
  for (const bool deflated : {false, true}) {
    const auto archive = pkg_first_bomb(scratch.path(), deflated);
    // libarchive's stored members carry data descriptors: the directory still
    // gives every size, so the stored path reads them; deflated ones are libarchive's.
    EXPECT_EQ(members_of(archive).has_value(), !deflated);
    ExtractLimits limits;
    limits.member_slack_bytes = 64u << 10;
    const auto target = scratch / (deflated ? "out-deflated" : "out-stored");
    try {
      extract_package(archive, target, limits);
      ADD_FAILURE() << "the 8 MiB member declared as 1000 bytes was extracted";
    } catch (const PackageError& error) {
      EXPECT_NE(std::string(error.what()).find("1000 bytes its info/paths.json declares"), std::string::npos)
          << error.what();
    }
    std::error_code missing;
    EXPECT_LE(std::filesystem::exists(target / "lib/big", missing) ? std::filesystem::file_size(target / "lib/big") : 0,
              1u << 20);
  }
}

// The same package read both ways (stored: by pread; deflated: libarchive's
// zip reader) gives the same files and metadata.
TEST(StoredZipMembers, ExtractionAgreesWithLibarchivesZipReader) {
  TempDirectory scratch;
  const auto file = small_conda(scratch.path());
  const auto deflated = scratch / "deflated" / "small-1-0.conda";
  rezip(file, deflated, {"info-small-1-0.tar.zst", "pkg-small-1-0.tar.zst"}, true);
  ASSERT_FALSE(members_of(deflated));
  for (const auto& [archive, dir] : {std::pair{file, scratch / "stored-out"}, {deflated, scratch / "deflated-out"}}) {
    const auto summary = extract_package(archive, dir);
    EXPECT_TRUE(summary.mismatches.empty()) << archive;
    EXPECT_EQ(read_file(dir / "lib/a.txt"), "alpha\n");
    EXPECT_EQ(read_file(dir / "bin/tool"), "#!/bin/sh\necho b\n");
    const auto metadata = read_extracted_metadata(dir);
    EXPECT_EQ(metadata.index.name, "small");
    EXPECT_EQ(metadata.paths.paths.size(), 2u);
    EXPECT_EQ(read_package_metadata(archive).paths.paths.size(), 2u) << archive;
  }
}

}  // namespace
}  // namespace gpuenv::package
