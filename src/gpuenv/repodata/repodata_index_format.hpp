// Internal to the repodata module: the byte layout of repodata_index files,
// shared by their writer (repodata_index_writer.cpp) and their reader
// (repodata_index.cpp). The layout itself is described in repodata_index.hpp.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gpuenv/repodata/repodata_records.hpp"
#include "gpuenv/util/hex.hpp"

namespace gpuenv::repodata::index_format {


// Bumped whenever the encoding changes; older files are then rebuilt.
inline constexpr char index_magic[8] = {'G', 'P', 'U', 'E', 'N', 'V', 'I', 'X'};
inline constexpr std::uint32_t format_version = 4;  // 4: flags, repodata_revisions
inline constexpr std::uint32_t byte_order_mark = 0x01020304;

// At the end of the file, so that the sections can be written in one pass.
struct Trailer {
  std::uint64_t records_begin;
  std::uint64_t records_end;
  std::uint64_t offsets_begin;
  std::uint64_t offsets_count;
  std::uint64_t names_begin;
  std::uint64_t name_count;
  std::uint64_t name_text_begin;
  std::uint64_t name_text_end;
  std::uint64_t meta_begin;
  std::uint64_t meta_end;
  std::uint64_t file_size;
  std::uint32_t format;
  std::uint32_t byte_order;
  char magic[8];
};

struct NameEntry {
  std::uint32_t text_offset;
  std::uint32_t text_length;
  std::uint32_t first;  // into the offsets array
  std::uint32_t count;
};

enum RecordFlags : std::uint8_t {
  conda_archive = 1,
  has_md5 = 2,
  has_sha256 = 4,
  has_size = 8,
  // The file name is name-version-build plus the archive's extension (nearly
  // always): not stored, rebuilt by the decoder.
  standard_filename = 16,
};

inline std::string_view extension_of(bool conda) noexcept { return conda ? ".conda" : ".tar.bz2"; }

inline bool is_standard_filename(const RawRecord& record) noexcept {
  const std::string_view filename = record.filename;
  const std::string_view extension = extension_of(record.archive == ArchiveKind::conda);
  const std::size_t size = record.name.size() + record.version.size() + record.build.size() + 2 + extension.size();
  if (filename.size() != size || !filename.ends_with(extension)) return false;
  std::size_t at = 0;
  for (const auto part : {record.name, std::string_view("-"), record.version, std::string_view("-"), record.build}) {
    if (filename.compare(at, part.size(), part) != 0) return false;
    at += part.size();
  }
  return true;
}

using util::binary_to_hex;
using util::hex_to_binary;

class Encoder {
 public:
  void clear() { bytes_.clear(); }
  std::string& bytes() { return bytes_; }
  void byte(std::uint8_t value) { bytes_.push_back(static_cast<char>(value)); }
  void varint(std::uint64_t value) {
    while (value >= 0x80) {
      bytes_.push_back(static_cast<char>((value & 0x7f) | 0x80));
      value >>= 7;
    }
    bytes_.push_back(static_cast<char>(value));
  }
  void raw(const void* data, std::size_t size) { bytes_.append(static_cast<const char*>(data), size); }
  void text(std::string_view value) {
    varint(value.size());
    bytes_.append(value);
  }
  void list(std::span<const std::string_view> values) {
    varint(values.size());
    for (const auto value : values) text(value);
  }

 private:
  std::string bytes_;
};

// Reads what Encoder wrote, never past `end`.
class Cursor {
 public:
  Cursor(const unsigned char* at, const unsigned char* end) : at_(at), end_(end) {}
  bool ok() const noexcept { return ok_; }
  const unsigned char* position() const noexcept { return at_; }

  std::uint8_t byte() {
    if (at_ >= end_) return fail();
    return *at_++;
  }
  std::uint64_t varint() {
    std::uint64_t value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (at_ >= end_) return fail();
      const std::uint8_t b = *at_++;
      value |= static_cast<std::uint64_t>(b & 0x7f) << shift;
      if ((b & 0x80) == 0) return value;
    }
    return fail();
  }
  const unsigned char* raw(std::size_t size) {
    if (static_cast<std::size_t>(end_ - at_) < size) {
      fail();
      return nullptr;
    }
    const unsigned char* result = at_;
    at_ += size;
    return result;
  }
  std::string_view text() {
    const std::uint64_t size = varint();
    const unsigned char* bytes = raw(static_cast<std::size_t>(size));
    if (bytes == nullptr) return {};
    return {reinterpret_cast<const char*>(bytes), static_cast<std::size_t>(size)};
  }
  void list(std::vector<std::string_view>& out) {
    out.clear();
    const std::uint64_t count = varint();
    if (count > static_cast<std::uint64_t>(end_ - at_)) {  // each item takes a byte at least
      fail();
      return;
    }
    for (std::uint64_t i = 0; i < count && ok_; ++i) out.push_back(text());
  }

 private:
  std::uint8_t fail() {
    ok_ = false;
    at_ = end_;
    return 0;
  }
  const unsigned char* at_;
  const unsigned char* end_;
  bool ok_ = true;
};

}  // namespace gpuenv::repodata::index_format
