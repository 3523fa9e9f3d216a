#include "gpuenv/package/archive_reader.hpp"

#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <string>

#include "gpuenv/package/archive_format.hpp"
#include "gpuenv/package/package_error.hpp"
#include "gpuenv/package/stored_zip.hpp"

namespace gpuenv::package {

namespace {

constexpr std::size_t kReadBlock = 1 << 20;

struct ReaderDeleter {
  void operator()(archive* reader) const { archive_read_free(reader); }
};
using ReaderPtr = std::unique_ptr<archive, ReaderDeleter>;

[[noreturn]] void fail(const std::filesystem::path& path, const std::string& what) {
  throw PackageError("cannot read package " + path.string() + ": " + what +
                     "; the file is corrupt, truncated or not a conda package: delete it and "
                     "download it again");
}

ReaderPtr new_tar_reader(int filter) {
  ReaderPtr reader(archive_read_new());
  archive_read_support_format_tar(reader.get());
  if (filter == ARCHIVE_FILTER_BZIP2) archive_read_support_filter_bzip2(reader.get());
  if (filter == ARCHIVE_FILTER_ZSTD) archive_read_support_filter_zstd(reader.get());
  return reader;
}

// Returns false when the visitor stopped the walk.
bool walk(archive* reader, const std::filesystem::path& path, const std::string& member,
          const MemberVisitor& visit) {
  while (true) {
    archive_entry* entry = nullptr;
    const int status = archive_read_next_header(reader, &entry);
    if (status == ARCHIVE_EOF) return true;
    if (status < ARCHIVE_WARN) fail(path, member + archive_error_text(reader));
    if (!visit(reader, entry)) return false;
  }
}

// The inner tar.zst of a .conda, read straight out of the zip member.
struct InnerSource {
  archive* outer;
};

la_ssize_t read_from_outer(archive* /*inner*/, void* data, const void** buffer) {
  auto* source = static_cast<InnerSource*>(data);
  std::size_t size = 0;
  la_int64_t offset = 0;
  const int status = archive_read_data_block(source->outer, buffer, &size, &offset);
  if (status == ARCHIVE_EOF) return 0;
  if (status < ARCHIVE_WARN) return -1;
  return static_cast<la_ssize_t>(size);
}

std::string base_name(std::string_view member) {
  const auto slash = member.find_last_of('/');
  return std::string(slash == std::string_view::npos ? member : member.substr(slash + 1));
}

bool is_member(std::string_view name, std::string_view prefix) {
  return name.starts_with(prefix) && name.ends_with(".tar.zst");
}

// Reads a stored member's bytes for libarchive, by pread from the zip file.
struct StoredSource {
  int fd = -1;
  std::uint64_t offset = 0;
  std::uint64_t end = 0;
  std::unique_ptr<char[]> buffer;
  std::size_t capacity = 0;
};

la_ssize_t read_stored(archive* reader, void* data, const void** buffer) {
  auto* source = static_cast<StoredSource*>(data);
  if (source->offset >= source->end) return 0;
  const auto want = static_cast<std::size_t>(std::min<std::uint64_t>(source->capacity, source->end - source->offset));
  while (true) {
    const ssize_t count = ::pread(source->fd, source->buffer.get(), want, static_cast<off_t>(source->offset));
    if (count < 0 && errno == EINTR) continue;
    if (count < 0) {
      archive_set_error(reader, errno, "reading the package file: %s", std::strerror(errno));
      return -1;
    }
    source->offset += static_cast<std::uint64_t>(count);
    *buffer = source->buffer.get();
    return count;
  }
}

// A .conda whose zip members are stored (as every tool writes them): one
// open, the directory from the file's tail, each member read by pread --
// no zip reader, no CRC-32 pass, and the info member first whatever the
// zip's order, so paths.json is known before any file of pkg-*.
// Returns false when the zip is not such a zip (the caller reads it with
// libarchive).
bool walk_stored_conda(const std::filesystem::path& path, MemberSelection selection, const MemberVisitor& visit) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail(path, std::strerror(errno));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat info {};
  if (::fstat(fd, &info) != 0) fail(path, std::strerror(errno));
  const auto members = stored_zip_members(fd, static_cast<std::uint64_t>(info.st_size));
  if (!members) return false;
  const StoredMember* info_member = nullptr;
  const StoredMember* pkg_member = nullptr;
  for (const auto& member : *members) {
    // Matched by base name, as conda-package-handling and rattler do.
    const std::string name = base_name(member.name);
    if (!info_member && is_member(name, "info-")) info_member = &member;
    if (!pkg_member && is_member(name, "pkg-")) pkg_member = &member;
  }
  if (!info_member) fail(path, "it has no info-*.tar.zst member");
  if (selection == MemberSelection::everything && !pkg_member) fail(path, "it has no pkg-*.tar.zst member");
  StoredSource source;
  source.fd = fd;
  const auto walk_member = [&](const StoredMember& member) {
    source.offset = member.data_offset;
    source.end = member.data_offset + member.size;
    const auto wanted = static_cast<std::size_t>(std::clamp<std::uint64_t>(member.size, 1, kReadBlock));
    if (wanted > source.capacity) {
      source.buffer.reset(new char[wanted]);  // not zeroed: pread fills what is used
      source.capacity = wanted;
    }
    ReaderPtr inner = new_tar_reader(ARCHIVE_FILTER_ZSTD);
    const std::string name = base_name(member.name);
    if (archive_read_open(inner.get(), &source, nullptr, read_stored, nullptr) != ARCHIVE_OK) {
      fail(path, name + ": " + archive_error_text(inner.get()));
    }
    return walk(inner.get(), path, name + ": ", visit);
  };
  if (!walk_member(*info_member)) return true;
  if (selection == MemberSelection::everything) walk_member(*pkg_member);
  return true;
}

// Any other zip, through libarchive's zip reader. With `everything`, the
// info member is walked first here too (a pass of its own where the zip
// holds it after pkg-*).
void walk_conda_zip(const std::filesystem::path& path, MemberSelection selection, const MemberVisitor& visit) {
  bool info_walked = false;
  bool saw_pkg = false;
  for (const bool info_pass : {true, false}) {
    if (!info_pass && selection == MemberSelection::info_only) break;
    ReaderPtr outer(archive_read_new());
    // The seekable reader uses the zip's central directory, so members written
    // with data descriptors (sizes after the data, as some zip tools do) read
    // correctly.
    archive_read_support_format_zip_seekable(outer.get());
    if (archive_read_open_filename(outer.get(), path.c_str(), kReadBlock) != ARCHIVE_OK) {
      fail(path, archive_error_text(outer.get()));
    }
    while (true) {
      archive_entry* entry = nullptr;
      const int status = archive_read_next_header(outer.get(), &entry);
      if (status == ARCHIVE_EOF) break;
      if (status < ARCHIVE_WARN) fail(path, archive_error_text(outer.get()));
      const std::string name = base_name(archive_entry_pathname(entry) ? archive_entry_pathname(entry) : "");
      if (!is_member(name, info_pass ? "info-" : "pkg-")) continue;
      (info_pass ? info_walked : saw_pkg) = true;
      ReaderPtr inner = new_tar_reader(ARCHIVE_FILTER_ZSTD);
      InnerSource source{outer.get()};
      if (archive_read_open(inner.get(), &source, nullptr, read_from_outer, nullptr) != ARCHIVE_OK) {
        fail(path, name + ": " + archive_error_text(inner.get()));
      }
      if (!walk(inner.get(), path, name + ": ", visit)) return;
      break;  // the first member of the kind, as the stored path takes
    }
    if (info_pass && !info_walked) fail(path, "it has no info-*.tar.zst member");
  }
  if (selection == MemberSelection::everything && !saw_pkg) fail(path, "it has no pkg-*.tar.zst member");
}

void walk_conda(const std::filesystem::path& path, MemberSelection selection, const MemberVisitor& visit) {
  if (!walk_stored_conda(path, selection, visit)) walk_conda_zip(path, selection, visit);
}

}  // namespace

std::string archive_error_text(archive* reader) {
  const char* message = archive_error_string(reader);
  return message != nullptr && *message != '\0' ? message : "libarchive reported an error";
}

void for_each_member(const std::filesystem::path& archive_path, MemberSelection selection,
                     const MemberVisitor& visit) {
  const auto format = archive_format_of(archive_path.filename().string());
  if (!format) {
    throw PackageError("cannot read " + archive_path.string() +
                       ": a conda package file name ends with .conda or .tar.bz2");
  }
  if (*format == ArchiveFormat::conda) {
    walk_conda(archive_path, selection, visit);
    return;
  }
  ReaderPtr reader = new_tar_reader(ARCHIVE_FILTER_BZIP2);
  if (archive_read_open_filename(reader.get(), archive_path.c_str(), kReadBlock) != ARCHIVE_OK) {
    fail(archive_path, archive_error_text(reader.get()));
  }
  walk(reader.get(), archive_path, "", visit);
}

}  // namespace gpuenv::package
