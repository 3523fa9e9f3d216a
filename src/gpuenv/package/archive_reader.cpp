#include "gpuenv/package/archive_reader.hpp"

#include <archive.h>
#include <archive_entry.h>

#include <memory>
#include <string>

#include "gpuenv/package/archive_format.hpp"
#include "gpuenv/package/package_error.hpp"

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

void walk_conda(const std::filesystem::path& path, MemberSelection selection,
                const MemberVisitor& visit) {
  ReaderPtr outer(archive_read_new());
  // The seekable reader uses the zip's central directory, so members written
  // with data descriptors (sizes after the data, as some zip tools do) read
  // correctly.
  archive_read_support_format_zip_seekable(outer.get());
  if (archive_read_open_filename(outer.get(), path.c_str(), kReadBlock) != ARCHIVE_OK) {
    fail(path, archive_error_text(outer.get()));
  }
  bool saw_info = false;
  bool saw_pkg = false;
  while (true) {
    archive_entry* entry = nullptr;
    const int status = archive_read_next_header(outer.get(), &entry);
    if (status == ARCHIVE_EOF) break;
    if (status < ARCHIVE_WARN) fail(path, archive_error_text(outer.get()));
    // Members are matched by their base name, as conda-package-handling and
    // rattler do: some tools zip the files with a leading directory.
    const std::string name = base_name(archive_entry_pathname(entry) ? archive_entry_pathname(entry) : "");
    if (!name.ends_with(".tar.zst")) continue;
    const bool is_info = name.starts_with("info-");
    const bool is_pkg = name.starts_with("pkg-");
    if (!is_info && !(is_pkg && selection == MemberSelection::everything)) continue;
    (is_info ? saw_info : saw_pkg) = true;

    ReaderPtr inner = new_tar_reader(ARCHIVE_FILTER_ZSTD);
    InnerSource source{outer.get()};
    if (archive_read_open(inner.get(), &source, nullptr, read_from_outer, nullptr) != ARCHIVE_OK) {
      fail(path, name + ": " + archive_error_text(inner.get()));
    }
    if (!walk(inner.get(), path, name + ": ", visit)) return;
    if (selection == MemberSelection::info_only && is_info) return;
  }
  if (!saw_info) fail(path, "it has no info-*.tar.zst member");
  if (selection == MemberSelection::everything && !saw_pkg) {
    fail(path, "it has no pkg-*.tar.zst member");
  }
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
