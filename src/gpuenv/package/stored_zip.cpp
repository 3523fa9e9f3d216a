#include "gpuenv/package/stored_zip.hpp"

#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include "gpuenv/package/package_error.hpp"
#include "gpuenv/util/file_io.hpp"

namespace gpuenv::package {

namespace {

constexpr std::uint32_t kLocalHeader = 0x04034b50;
constexpr std::uint32_t kCentralHeader = 0x02014b50;
constexpr std::uint32_t kEndOfCentralDirectory = 0x06054b50;
constexpr std::uint32_t kZip64EndOfCentralDirectory = 0x06064b50;
constexpr std::uint32_t kZip64Locator = 0x07064b50;
constexpr std::uint32_t kMax32 = 0xffffffffu;
// 1980-01-01 00:00, the earliest DOS date: reproducible archives.
constexpr std::uint16_t kDosTime = 0;
constexpr std::uint16_t kDosDate = (0 << 9) | (1 << 5) | 1;

void put16(std::string& out, std::uint16_t value) {
  out += static_cast<char>(value & 0xff);
  out += static_cast<char>(value >> 8);
}
void put32(std::string& out, std::uint32_t value) {
  put16(out, static_cast<std::uint16_t>(value & 0xffff));
  put16(out, static_cast<std::uint16_t>(value >> 16));
}
void put64(std::string& out, std::uint64_t value) {
  put32(out, static_cast<std::uint32_t>(value & 0xffffffffu));
  put32(out, static_cast<std::uint32_t>(value >> 32));
}

bool needs_zip64(std::uint64_t value) { return value >= kMax32; }

}  // namespace

std::uint32_t crc32_of(std::string_view bytes, std::uint32_t crc) {
  while (!bytes.empty()) {
    const auto chunk = static_cast<uInt>(std::min<std::size_t>(bytes.size(), 1u << 30));
    crc = static_cast<std::uint32_t>(
        ::crc32(crc, reinterpret_cast<const Bytef*>(bytes.data()), chunk));
    bytes.remove_prefix(chunk);
  }
  return crc;
}

StoredZipWriter::StoredZipWriter(std::filesystem::path output) : output_(std::move(output)) {
  fd_ = ::open(output_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) {
    throw PackageError("cannot write package " + output_.string() + ": " + std::strerror(errno));
  }
}

StoredZipWriter::~StoredZipWriter() {
  if (fd_ >= 0) ::close(fd_);
}

void StoredZipWriter::write_bytes(std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t written = ::write(fd_, bytes.data(), bytes.size());
    if (written < 0) {
      if (errno == EINTR) continue;
      throw PackageError("cannot write package " + output_.string() + ": " + std::strerror(errno));
    }
    bytes.remove_prefix(static_cast<std::size_t>(written));
    position_ += static_cast<std::uint64_t>(written);
  }
}

void StoredZipWriter::write_local_header(const Member& member) {
  const bool zip64 = needs_zip64(member.size);
  std::string header;
  put32(header, kLocalHeader);
  put16(header, zip64 ? 45 : 10);  // version needed: 4.5 for zip64, 1.0 for stored
  put16(header, 0);                // flags: sizes and CRC are right here
  put16(header, 0);                // stored
  put16(header, kDosTime);
  put16(header, kDosDate);
  put32(header, member.crc);
  put32(header, zip64 ? kMax32 : static_cast<std::uint32_t>(member.size));
  put32(header, zip64 ? kMax32 : static_cast<std::uint32_t>(member.size));
  put16(header, static_cast<std::uint16_t>(member.name.size()));
  put16(header, zip64 ? 20 : 0);
  header += member.name;
  if (zip64) {
    put16(header, 0x0001);
    put16(header, 16);
    put64(header, member.size);
    put64(header, member.size);
  }
  write_bytes(header);
}

void StoredZipWriter::add(const std::string& name, std::string_view content) {
  Member member{name, crc32_of(content), content.size(), position_};
  write_local_header(member);
  write_bytes(content);
  members_.push_back(std::move(member));
}

void StoredZipWriter::add_file(const std::string& name, const std::filesystem::path& source,
                               std::uint32_t crc, std::uint64_t size) {
  Member member{name, crc, size, position_};
  write_local_header(member);
  const int in = ::open(source.c_str(), O_RDONLY | O_CLOEXEC);
  if (in < 0) {
    throw PackageError("cannot read " + source.string() + ": " + std::strerror(errno));
  }
  std::uint64_t left = size;
  while (left > 0) {
    const ssize_t copied = ::copy_file_range(in, nullptr, fd_, nullptr, left, 0);
    if (copied <= 0) {
      if (copied < 0 && errno == EINTR) continue;
      const int error = copied == 0 ? EIO : errno;
      ::close(in);
      throw PackageError("cannot write package " + output_.string() + ": " + std::strerror(error));
    }
    left -= static_cast<std::uint64_t>(copied);
    position_ += static_cast<std::uint64_t>(copied);
  }
  ::close(in);
  members_.push_back(std::move(member));
}

void StoredZipWriter::finish() {
  const std::uint64_t directory_offset = position_;
  std::string directory;
  for (const auto& member : members_) {
    const bool zip64_size = needs_zip64(member.size);
    const bool zip64_offset = needs_zip64(member.offset);
    std::string extra;
    if (zip64_size || zip64_offset) {
      std::string fields;
      if (zip64_size) {
        put64(fields, member.size);
        put64(fields, member.size);
      }
      if (zip64_offset) put64(fields, member.offset);
      put16(extra, 0x0001);
      put16(extra, static_cast<std::uint16_t>(fields.size()));
      extra += fields;
    }
    put32(directory, kCentralHeader);
    put16(directory, (3 << 8) | 45);  // made by: Unix, zip 4.5
    put16(directory, zip64_size || zip64_offset ? 45 : 10);
    put16(directory, 0);
    put16(directory, 0);
    put16(directory, kDosTime);
    put16(directory, kDosDate);
    put32(directory, member.crc);
    put32(directory, zip64_size ? kMax32 : static_cast<std::uint32_t>(member.size));
    put32(directory, zip64_size ? kMax32 : static_cast<std::uint32_t>(member.size));
    put16(directory, static_cast<std::uint16_t>(member.name.size()));
    put16(directory, static_cast<std::uint16_t>(extra.size()));
    put16(directory, 0);  // comment
    put16(directory, 0);  // disk
    put16(directory, 0);  // internal attributes
    put32(directory, 0100644u << 16);  // a regular file, rw-r--r--
    put32(directory, zip64_offset ? kMax32 : static_cast<std::uint32_t>(member.offset));
    directory += member.name;
    directory += extra;
  }
  write_bytes(directory);
  const std::uint64_t directory_size = directory.size();
  std::string end;
  if (needs_zip64(directory_offset) || members_.size() >= 0xffff) {
    const std::uint64_t zip64_end_offset = position_;
    put32(end, kZip64EndOfCentralDirectory);
    put64(end, 44);
    put16(end, (3 << 8) | 45);
    put16(end, 45);
    put32(end, 0);
    put32(end, 0);
    put64(end, members_.size());
    put64(end, members_.size());
    put64(end, directory_size);
    put64(end, directory_offset);
    put32(end, kZip64Locator);
    put32(end, 0);
    put64(end, zip64_end_offset);
    put32(end, 1);
  }
  put32(end, kEndOfCentralDirectory);
  put16(end, 0);
  put16(end, 0);
  put16(end, static_cast<std::uint16_t>(std::min<std::size_t>(members_.size(), 0xffff)));
  put16(end, static_cast<std::uint16_t>(std::min<std::size_t>(members_.size(), 0xffff)));
  put32(end, needs_zip64(directory_size) ? kMax32 : static_cast<std::uint32_t>(directory_size));
  put32(end, needs_zip64(directory_offset) ? kMax32 : static_cast<std::uint32_t>(directory_offset));
  put16(end, 0);
  write_bytes(end);
  if (::close(fd_) != 0) {
    fd_ = -1;
    throw PackageError("cannot write package " + output_.string() + ": " + std::strerror(errno));
  }
  fd_ = -1;
}

namespace {

std::uint16_t get16(const unsigned char* at) {
  return static_cast<std::uint16_t>(at[0] | (at[1] << 8));
}
std::uint32_t get32(const unsigned char* at) {
  return static_cast<std::uint32_t>(get16(at)) | (static_cast<std::uint32_t>(get16(at + 2)) << 16);
}

// Reads exactly `size` bytes at `offset`; false on an error or a short file.
bool read_exactly(int fd, unsigned char* buffer, std::size_t size, std::uint64_t offset) {
  return util::read_at(fd, reinterpret_cast<char*>(buffer), size, offset) == static_cast<std::int64_t>(size);
}

constexpr std::size_t kEndRecord = 22;
constexpr std::size_t kCentralEntry = 46;
constexpr std::size_t kLocalEntry = 30;
constexpr std::size_t kMaxComment = 0xffff;
// A .conda's directory lists three members (metadata.json, info-*, pkg-*);
// a zip with more, or a directory past 1 MiB, is no package of any tool:
// libarchive reads it (and each local header is not read here, one by one).
constexpr std::uint64_t kMaxDirectoryBytes = 1u << 20;
constexpr std::uint16_t kMaxMembers = 16;

}  // namespace

std::optional<std::vector<StoredMember>> stored_zip_members(int fd, std::uint64_t file_size) {
  if (file_size < kEndRecord) return std::nullopt;
  // The tail: the end record, its comment, and with luck the directory.
  const std::uint64_t tail_size = std::min<std::uint64_t>(file_size, kEndRecord + kMaxComment + 4096);
  const std::uint64_t tail_start = file_size - tail_size;
  std::vector<unsigned char> tail(static_cast<std::size_t>(tail_size));
  if (!read_exactly(fd, tail.data(), tail.size(), tail_start)) return std::nullopt;
  std::optional<std::size_t> end_at;
  for (std::size_t at = tail.size() - kEndRecord + 1; at-- > 0;) {
    if (get32(&tail[at]) == kEndOfCentralDirectory &&
        at + kEndRecord + get16(&tail[at + 20]) == tail.size()) {
      end_at = at;
      break;
    }
  }
  if (!end_at) return std::nullopt;
  const unsigned char* end = &tail[*end_at];
  const std::uint16_t disk = get16(end + 4);
  const std::uint16_t directory_disk = get16(end + 6);
  const std::uint16_t entries_here = get16(end + 8);
  const std::uint16_t entries = get16(end + 10);
  const std::uint32_t directory_size = get32(end + 12);
  const std::uint32_t directory_offset = get32(end + 16);
  // Split archives and zip64 (0xffff.. placeholders) are libarchive's to read.
  if (disk != 0 || directory_disk != 0 || entries_here != entries || entries > kMaxMembers ||
      directory_size == kMax32 || directory_offset == kMax32) {
    return std::nullopt;
  }
  const std::uint64_t end_offset = tail_start + *end_at;
  if (std::uint64_t{directory_offset} + directory_size > end_offset ||
      directory_size > kMaxDirectoryBytes) {
    return std::nullopt;
  }
  std::vector<unsigned char> directory;
  const unsigned char* listing = nullptr;
  if (directory_offset >= tail_start) {
    listing = &tail[static_cast<std::size_t>(directory_offset - tail_start)];
  } else {
    directory.resize(directory_size);
    if (!read_exactly(fd, directory.data(), directory.size(), directory_offset)) return std::nullopt;
    listing = directory.data();
  }

  std::vector<StoredMember> members;
  std::size_t at = 0;
  for (std::uint16_t index = 0; index < entries; ++index) {
    if (at + kCentralEntry > directory_size || get32(listing + at) != kCentralHeader) return std::nullopt;
    const unsigned char* entry = listing + at;
    const std::uint16_t flags = get16(entry + 8);
    const std::uint16_t method = get16(entry + 10);
    const std::uint32_t compressed = get32(entry + 20);
    const std::uint32_t size = get32(entry + 24);
    const std::uint16_t name_length = get16(entry + 28);
    const std::uint16_t extra_length = get16(entry + 30);
    const std::uint16_t comment_length = get16(entry + 32);
    const std::uint32_t local_offset = get32(entry + 42);
    const std::size_t entry_size = kCentralEntry + name_length + extra_length + comment_length;
    if (at + entry_size > directory_size) return std::nullopt;
    // Encrypted (bit 0) or compressed members, or zip64 sizes: not ours.
    if ((flags & 1) != 0 || method != 0 || compressed != size || size == kMax32 ||
        local_offset == kMax32) {
      return std::nullopt;
    }
    StoredMember member;
    member.name.assign(reinterpret_cast<const char*>(entry + kCentralEntry), name_length);
    member.data_offset = local_offset;  // the local header's, until read below
    member.size = size;
    members.push_back(std::move(member));
    at += entry_size;
  }
  // Each member's data follows its local header, whose name and extra
  // field lengths may differ from the directory's.
  for (auto& member : members) {
    unsigned char local[kLocalEntry];
    const std::uint64_t header = member.data_offset;
    if (header + kLocalEntry > directory_offset) return std::nullopt;
    if (header >= tail_start && header + kLocalEntry <= tail_start + tail.size()) {
      std::memcpy(local, &tail[static_cast<std::size_t>(header - tail_start)], kLocalEntry);
    } else if (!read_exactly(fd, local, kLocalEntry, header)) {
      return std::nullopt;
    }
    if (get32(local) != kLocalHeader) return std::nullopt;
    member.data_offset = header + kLocalEntry + get16(local + 26) + get16(local + 28);
    if (member.data_offset + member.size > directory_offset) return std::nullopt;
  }
  return members;
}

}  // namespace gpuenv::package
