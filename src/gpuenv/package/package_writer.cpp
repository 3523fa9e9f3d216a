#include "gpuenv/package/package_writer.hpp"

#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include <algorithm>
#include <functional>
#include <cerrno>
#include <cstring>
#include <memory>
#include <string>

#include "gpuenv/package/archive_format.hpp"
#include "gpuenv/package/archive_reader.hpp"
#include "gpuenv/package/package_error.hpp"
#include "gpuenv/package/stored_zip.hpp"
#include "gpuenv/specs/package_filename.hpp"

namespace gpuenv::package {

namespace {

struct WriterDeleter {
  void operator()(archive* writer) const { archive_write_free(writer); }
};
using WriterPtr = std::unique_ptr<archive, WriterDeleter>;

struct EntryDeleter {
  void operator()(archive_entry* entry) const { archive_entry_free(entry); }
};
using EntryPtr = std::unique_ptr<archive_entry, EntryDeleter>;

[[noreturn]] void fail(const std::filesystem::path& output, const std::string& what) {
  throw PackageError("cannot write package " + output.string() + ": " + what);
}

void check(int status, archive* writer, const std::filesystem::path& output) {
  if (status < ARCHIVE_WARN) fail(output, archive_error_text(writer));
}

void write_data(archive* writer, const char* data, std::size_t size,
                const std::filesystem::path& output) {
  while (size > 0) {
    const auto written = archive_write_data(writer, data, size);
    if (written < 0) fail(output, archive_error_text(writer));
    data += written;
    size -= static_cast<std::size_t>(written);
  }
}

void copy_file_into(archive* writer, const std::filesystem::path& source,
                    const std::filesystem::path& output) {
  const int fd = ::open(source.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail(output, "cannot read " + source.string() + ": " + std::strerror(errno));
  // Not zeroed: this runs once per packaged file, most of them small.
  constexpr std::size_t kBuffer = 1u << 20;
  const std::unique_ptr<char[]> buffer(new char[kBuffer]);
  while (true) {
    const ssize_t count = ::read(fd, buffer.get(), kBuffer);
    if (count < 0 && errno == EINTR) continue;
    if (count < 0) {
      const int error = errno;
      ::close(fd);
      fail(output, "cannot read " + source.string() + ": " + std::strerror(error));
    }
    if (count == 0) break;
    write_data(writer, buffer.get(), static_cast<std::size_t>(count), output);
  }
  ::close(fd);
}

std::uint64_t size_of(const PackageMember& member) {
  if (member.kind != PackageMember::Kind::file) return 0;
  if (member.source.empty()) return member.content.size();
  std::error_code error;
  const auto size = std::filesystem::file_size(member.source, error);
  return error ? 0 : size;
}

void add_member(archive* writer, const PackageMember& member, const std::filesystem::path& output) {
  EntryPtr entry(archive_entry_new());
  archive_entry_set_pathname_utf8(entry.get(), member.path.c_str());
  archive_entry_set_mtime(entry.get(), member.mtime, 0);
  archive_entry_set_uid(entry.get(), 0);
  archive_entry_set_gid(entry.get(), 0);
  switch (member.kind) {
    case PackageMember::Kind::file:
      archive_entry_set_filetype(entry.get(), AE_IFREG);
      archive_entry_set_size(entry.get(), static_cast<la_int64_t>(size_of(member)));
      break;
    case PackageMember::Kind::symlink:
      archive_entry_set_filetype(entry.get(), AE_IFLNK);
      archive_entry_set_symlink_utf8(entry.get(), member.link_target.c_str());
      break;
    case PackageMember::Kind::hardlink:
      archive_entry_set_filetype(entry.get(), AE_IFREG);
      archive_entry_set_hardlink_utf8(entry.get(), member.link_target.c_str());
      archive_entry_set_size(entry.get(), 0);
      break;
    case PackageMember::Kind::directory:
      archive_entry_set_filetype(entry.get(), AE_IFDIR);
      break;
  }
  archive_entry_set_perm(entry.get(), member.mode & 07777);
  check(archive_write_header(writer, entry.get()), writer, output);
  if (member.kind == PackageMember::Kind::file) {
    if (member.source.empty()) {
      write_data(writer, member.content.data(), member.content.size(), output);
    } else {
      copy_file_into(writer, member.source, output);
    }
  }
}

using archive_filter_setup = std::function<void(archive*)>;

// Where a tarball goes: a file, with the CRC-32 and size of what was
// written, which the .conda's zip needs before it can store the tarball.
struct TarballSink {
  int fd = -1;
  std::uint32_t crc = 0;
  std::uint64_t size = 0;
  int error = 0;
};

la_ssize_t write_to_sink(archive* /*writer*/, void* data, const void* buffer, std::size_t length) {
  auto* sink = static_cast<TarballSink*>(data);
  const char* bytes = static_cast<const char*>(buffer);
  std::size_t left = length;
  while (left > 0) {
    const ssize_t written = ::write(sink->fd, bytes, left);
    if (written < 0) {
      if (errno == EINTR) continue;
      sink->error = errno;
      return -1;
    }
    bytes += written;
    left -= static_cast<std::size_t>(written);
  }
  sink->crc = crc32_of({static_cast<const char*>(buffer), length}, sink->crc);
  sink->size += length;
  return static_cast<la_ssize_t>(length);
}

// An uncompressed tar of `members` into `sink`.
void write_tar(TarballSink& sink, archive_filter_setup add_filter, const std::vector<const PackageMember*>& members,
               const std::filesystem::path& output);

// Writes `data` to `sink.fd`, counting its CRC-32 and size.
void write_counted(TarballSink& sink, const char* data, std::size_t size) {
  write_to_sink(nullptr, &sink, data, size);
}

// Compresses the file `tar` into `sink` as one zstd frame whose header
// carries the tar's size. Knowing the size lets zstd size its window and
// tables to the input: at level 19, libarchive's streaming filter (size
// unknown) sets up an 8 MiB window and ~85 MB of tables for every tarball,
// which took ~0.1 s per tarball on the small packages of a typical build.
void compress_zstd_file(const std::filesystem::path& tar, TarballSink& sink, int level,
                        const std::filesystem::path& output) {
  const int fd = ::open(tar.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail(output, "cannot read " + tar.string() + ": " + std::strerror(errno));
  struct CloseInput {
    int fd;
    ~CloseInput() { ::close(fd); }
  } close_input{fd};
  struct stat info {};
  if (::fstat(fd, &info) != 0) fail(output, "cannot read " + tar.string() + ": " + std::strerror(errno));
  std::unique_ptr<ZSTD_CCtx, size_t (*)(ZSTD_CCtx*)> context(ZSTD_createCCtx(), ZSTD_freeCCtx);
  if (!context) fail(output, "out of memory for the zstd compressor");
  const auto check_zstd = [&](std::size_t status) {
    if (ZSTD_isError(status)) fail(output, std::string("zstd: ") + ZSTD_getErrorName(status));
    return status;
  };
  check_zstd(ZSTD_CCtx_setParameter(context.get(), ZSTD_c_compressionLevel, level > 0 ? level : ZSTD_CLEVEL_DEFAULT));
  check_zstd(ZSTD_CCtx_setParameter(context.get(), ZSTD_c_checksumFlag, 1));
  check_zstd(ZSTD_CCtx_setPledgedSrcSize(context.get(), static_cast<unsigned long long>(info.st_size)));
  std::vector<char> input(ZSTD_CStreamInSize());
  std::vector<char> compressed(ZSTD_CStreamOutSize());
  std::uint64_t left = static_cast<std::uint64_t>(info.st_size);
  bool finished = false;
  while (!finished) {
    std::size_t count = 0;
    while (count < input.size() && left > 0) {
      const ssize_t got = ::read(fd, input.data() + count, std::min<std::uint64_t>(input.size() - count, left));
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) fail(output, "cannot read " + tar.string() + ": " + (got < 0 ? std::strerror(errno) : "it shrank"));
      count += static_cast<std::size_t>(got);
      left -= static_cast<std::uint64_t>(got);
    }
    const ZSTD_EndDirective mode = left == 0 ? ZSTD_e_end : ZSTD_e_continue;
    ZSTD_inBuffer in{input.data(), count, 0};
    while (true) {
      ZSTD_outBuffer out{compressed.data(), compressed.size(), 0};
      const std::size_t remaining = check_zstd(ZSTD_compressStream2(context.get(), &out, &in, mode));
      write_counted(sink, compressed.data(), out.pos);
      if (sink.error != 0) fail(output, std::strerror(sink.error));
      if (mode == ZSTD_e_end ? remaining == 0 : in.pos == in.size) break;
    }
    finished = mode == ZSTD_e_end;
  }
}

// A tarball of `members` into `file`, compressed with `filter`.
TarballSink write_tarball(const std::filesystem::path& file,
                          const std::vector<const PackageMember*>& members, int filter, int level,
                          const std::filesystem::path& output) {
  TarballSink sink;
  sink.fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (sink.fd < 0) fail(output, "cannot create " + file.string() + ": " + std::strerror(errno));
  struct CloseSink {
    int fd;
    ~CloseSink() { ::close(fd); }
  } close_sink{sink.fd};
  if (filter == ARCHIVE_FILTER_ZSTD) {
    // The tar first, uncompressed, so that its size is known to zstd.
    const std::filesystem::path tar = file.string() + ".tar";
    struct RemoveTar {
      std::filesystem::path path;
      ~RemoveTar() { ::unlink(path.c_str()); }
    } remove_tar{tar};
    TarballSink tar_sink;
    tar_sink.fd = ::open(tar.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (tar_sink.fd < 0) fail(output, "cannot create " + tar.string() + ": " + std::strerror(errno));
    {
      struct CloseTar {
        int fd;
        ~CloseTar() { ::close(fd); }
      } close_tar{tar_sink.fd};
      write_tar(tar_sink, nullptr, members, output);
    }
    compress_zstd_file(tar, sink, level, output);
    return sink;
  }
  write_tar(sink, [level, &output](archive* writer) {
    check(archive_write_add_filter_bzip2(writer), writer, output);
    if (level > 0) {
      check(archive_write_set_filter_option(writer, "bzip2", "compression-level", std::to_string(level).c_str()),
            writer, output);
    }
  }, members, output);
  return sink;
}

void write_tar(TarballSink& sink, archive_filter_setup add_filter, const std::vector<const PackageMember*>& members,
               const std::filesystem::path& output) {
  WriterPtr writer(archive_write_new());
  // pax, like Python's tarfile (conda-build) and rattler-build: long names
  // and UTF-8 names survive.
  archive_write_set_format_pax_restricted(writer.get());
  if (add_filter) add_filter(writer.get());
  // No padding after the compressed stream: tar's block padding belongs
  // inside the compression, not after it.
  archive_write_set_bytes_in_last_block(writer.get(), 1);
  check(archive_write_open2(writer.get(), &sink, nullptr, write_to_sink, nullptr, nullptr),
        writer.get(), output);
  for (const auto* member : members) add_member(writer.get(), *member, output);
  check(archive_write_close(writer.get()), writer.get(), output);
  if (sink.error != 0) fail(output, std::strerror(sink.error));
}

void write_conda(const std::filesystem::path& temporary, const std::filesystem::path& output,
                 const std::vector<PackageMember>& members, int level) {
  const std::string stem(specs::strip_package_extension(output.filename().string()));
  std::vector<const PackageMember*> info;
  std::vector<const PackageMember*> pkg;
  for (const auto& member : members) {
    (member.path.starts_with("info/") ? info : pkg).push_back(&member);
  }
  const auto info_file = temporary.string() + ".info";
  const auto pkg_file = temporary.string() + ".pkg";
  struct Cleanup {
    std::vector<std::string> files;
    ~Cleanup() {
      for (const auto& file : files) ::unlink(file.c_str());
    }
  } cleanup{{info_file, pkg_file}};
  const auto info_tarball = write_tarball(info_file, info, ARCHIVE_FILTER_ZSTD, level, output);
  const auto pkg_tarball = write_tarball(pkg_file, pkg, ARCHIVE_FILTER_ZSTD, level, output);

  // CEP 35: metadata.json, then the two tarballs, stored.
  StoredZipWriter zip(temporary);
  zip.add("metadata.json", "{\"conda_pkg_format_version\": 2}");
  zip.add_file("info-" + stem + ".tar.zst", info_file, info_tarball.crc, info_tarball.size);
  zip.add_file("pkg-" + stem + ".tar.zst", pkg_file, pkg_tarball.crc, pkg_tarball.size);
  zip.finish();
}

void collect_tree(const std::filesystem::path& root, const std::filesystem::path& directory,
                  std::vector<PackageMember>& members) {
  std::vector<std::filesystem::path> children;
  for (const auto& child : std::filesystem::directory_iterator(directory)) {
    children.push_back(child.path());
  }
  std::sort(children.begin(), children.end());
  for (const auto& child : children) {
    struct stat info {};
    if (::lstat(child.c_str(), &info) != 0) {
      throw PackageError("cannot package " + child.string() + ": " + std::strerror(errno));
    }
    PackageMember member;
    member.path = child.lexically_relative(root).generic_string();
    member.mode = info.st_mode & 07777;
    member.mtime = info.st_mtim.tv_sec;
    if (S_ISDIR(info.st_mode)) {
      const auto before = members.size();
      collect_tree(root, child, members);
      if (members.size() == before) {  // only empty directories need an entry
        member.kind = PackageMember::Kind::directory;
        members.push_back(std::move(member));
      }
    } else if (S_ISLNK(info.st_mode)) {
      member.kind = PackageMember::Kind::symlink;
      member.link_target = std::filesystem::read_symlink(child).string();
      members.push_back(std::move(member));
    } else if (S_ISREG(info.st_mode)) {
      member.source = child;
      members.push_back(std::move(member));
    } else {
      throw PackageError("cannot package " + child.string() +
                         ": only files, symbolic links and directories go into packages");
    }
  }
}

}  // namespace

void write_package_members(const std::filesystem::path& output,
                           const std::vector<PackageMember>& members,
                           const WritePackageOptions& options) {
  const auto format = archive_format_of(output.filename().string());
  if (!format) fail(output, "a package file name ends with .conda or .tar.bz2");
  auto temporary = output;
  temporary += ".partial-" + std::to_string(::getpid());
  try {
    if (*format == ArchiveFormat::conda) {
      write_conda(temporary, output, members, options.compression_level);
    } else {
      std::vector<const PackageMember*> all;
      for (const auto& member : members) all.push_back(&member);
      write_tarball(temporary, all, ARCHIVE_FILTER_BZIP2, options.compression_level, output);
    }
  } catch (...) {
    ::unlink(temporary.c_str());
    throw;
  }
  if (::rename(temporary.c_str(), output.c_str()) != 0) {
    const int error = errno;
    ::unlink(temporary.c_str());
    fail(output, std::strerror(error));
  }
}

void write_package(const std::filesystem::path& source_dir, const std::filesystem::path& output,
                   const WritePackageOptions& options) {
  for (const char* required : {"info/index.json", "info/paths.json"}) {
    if (!std::filesystem::is_regular_file(source_dir / required)) {
      throw PackageError("cannot package " + source_dir.string() + ": it has no " + required);
    }
  }
  std::vector<PackageMember> members;
  collect_tree(source_dir, source_dir, members);
  // info/ first, as conda-build writes it: streaming readers meet the
  // metadata before the payload.
  std::stable_partition(members.begin(), members.end(),
                        [](const PackageMember& member) { return member.path.starts_with("info/"); });
  write_package_members(output, members, options);
}

}  // namespace gpuenv::package
