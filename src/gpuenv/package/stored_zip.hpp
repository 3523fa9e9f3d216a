// Internal to the package module: the outer zip of a .conda file.
//
// CEP 35 wants the members stored (not compressed). libarchive's zip writer
// cannot seek back, so it writes each member's CRC and sizes in a data
// descriptor after the data; streaming readers (rattler's, for one) cannot
// extract such files without buffering them. Python's zipfile, which
// conda-build uses, puts them in the local headers, and so does this writer:
// the caller knows every member's CRC and size before adding it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuenv::package {

std::uint32_t crc32_of(std::string_view bytes, std::uint32_t crc = 0);

class StoredZipWriter {
 public:
  // Creates (truncates) `output`. Throws PackageError.
  explicit StoredZipWriter(std::filesystem::path output);
  ~StoredZipWriter();
  StoredZipWriter(const StoredZipWriter&) = delete;
  StoredZipWriter& operator=(const StoredZipWriter&) = delete;

  void add(const std::string& name, std::string_view content);
  // Copies `source`, whose CRC-32 and size the caller computed.
  void add_file(const std::string& name, const std::filesystem::path& source, std::uint32_t crc,
                std::uint64_t size);
  // Writes the central directory; the zip is complete once this returns.
  void finish();

 private:
  struct Member {
    std::string name;
    std::uint32_t crc = 0;
    std::uint64_t size = 0;
    std::uint64_t offset = 0;
  };
  void write_local_header(const Member& member);
  void write_bytes(std::string_view bytes);

  std::filesystem::path output_;
  int fd_ = -1;
  std::uint64_t position_ = 0;
  std::vector<Member> members_;
};

// A member of a zip whose bytes are stored as they are (CEP 35's .conda).
struct StoredMember {
  std::string name;
  std::uint64_t data_offset = 0;  // where its bytes start in the zip file
  std::uint64_t size = 0;
};

// The members of the zip open on `fd` (`file_size` bytes) when every member
// is stored uncompressed and unencrypted, as conda-package-handling, rattler
// and StoredZipWriter write a .conda: one read of the file's tail (the end
// of central directory record and, usually, the directory itself) and one
// of each member's local header. nullopt when the zip is anything else
// (compressed members, zip64, split archives, more than 16 members, a
// malformed directory): the
// caller reads it with libarchive, which knows every variant and reports
// what is wrong. Every offset is checked to lie inside the file. The
// members' CRC-32s are not checked: callers hash what they extract (the
// archive against its repodata record, every file against paths.json).
std::optional<std::vector<StoredMember>> stored_zip_members(int fd, std::uint64_t file_size);

}  // namespace gpuenv::package
