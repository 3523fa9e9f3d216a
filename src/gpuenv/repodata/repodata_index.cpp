#include "gpuenv/repodata/repodata_index.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include "gpuenv/repodata/repodata_index_format.hpp"

namespace gpuenv::repodata {

using namespace index_format;

std::expected<RepodataIndex, std::string> RepodataIndex::open(const std::filesystem::path& index_file,
                                                              std::string_view expected_stamp) {
  const int fd = ::open(index_file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return std::unexpected(errno == ENOENT ? std::string("no index yet")
                                           : "cannot open " + index_file.string() + ": " + std::strerror(errno));
  }
  struct stat info {};
  if (::fstat(fd, &info) != 0 || static_cast<std::size_t>(info.st_size) < sizeof(Trailer)) {
    ::close(fd);
    return std::unexpected("damaged index " + index_file.string());
  }
  const auto size = static_cast<std::size_t>(info.st_size);
  void* mapped = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  ::close(fd);
  if (mapped == MAP_FAILED) return std::unexpected("cannot map " + index_file.string() + ": " + std::strerror(errno));
  RepodataIndex index;
  index.data_ = static_cast<const unsigned char*>(mapped);
  index.size_ = size;
  const auto damaged = [&](const char* why) {
    return std::unexpected("index " + index_file.string() + " is unusable (" + why + ")");
  };

  Trailer trailer;
  std::memcpy(&trailer, index.data_ + size - sizeof(Trailer), sizeof(Trailer));
  if (std::memcmp(trailer.magic, index_magic, sizeof(index_magic)) != 0 || trailer.byte_order != byte_order_mark) {
    return damaged("not an index");
  }
  if (trailer.format != format_version) return damaged("written by another gpuenv");
  const auto within = [&](std::uint64_t begin, std::uint64_t end) { return begin <= end && end <= size; };
  if (trailer.file_size != size || !within(trailer.records_begin, trailer.records_end) ||
      !within(trailer.offsets_begin, trailer.offsets_begin + trailer.offsets_count * 8) ||
      !within(trailer.names_begin, trailer.names_begin + trailer.name_count * sizeof(NameEntry)) ||
      !within(trailer.name_text_begin, trailer.name_text_end) || !within(trailer.meta_begin, trailer.meta_end) ||
      trailer.offsets_begin % 8 != 0 || trailer.names_begin % 8 != 0) {
    return damaged("truncated or damaged");
  }

  Cursor meta(index.data_ + trailer.meta_begin, index.data_ + trailer.meta_end);
  if (meta.text() != expected_stamp || !meta.ok()) return damaged("built from other data");
  index.header_.subdir = std::string(meta.text());
  index.header_.base_url = std::string(meta.text());
  index.header_.repodata_version = static_cast<int>(std::min<std::uint64_t>(meta.varint(), 1000));
  const std::uint64_t removed = meta.varint();
  for (std::uint64_t i = 0; i < removed && meta.ok(); ++i) index.header_.removed.emplace_back(meta.text());
  index.record_count_ = static_cast<std::size_t>(meta.varint());
  index.skipped_ = static_cast<std::size_t>(meta.varint());
  const std::uint64_t examples = meta.varint();
  for (std::uint64_t i = 0; i < examples && meta.ok(); ++i) {
    SkippedRecord skipped;
    skipped.filename = std::string(meta.text());
    skipped.reason = std::string(meta.text());
    index.first_skipped_.push_back(std::move(skipped));
  }
  const std::uint64_t revisions = meta.varint();
  for (std::uint64_t i = 0; i < revisions && meta.ok(); ++i) {
    RepodataRevision revision;
    revision.key = std::string(meta.text());
    revision.message = std::string(meta.text());
    for (auto* number : {&revision.n_packages, &revision.oldest_ms, &revision.newest_ms}) {
      if (const std::uint64_t stored = meta.varint(); stored != 0) *number = stored - 1;
    }
    index.header_.revisions.push_back(std::move(revision));
  }
  if (!meta.ok()) return damaged("damaged header");

  // Name entries are checked when used (records_of, name): opening reads
  // only the trailer and the meta section.
  index.trailer_ = {trailer.records_begin, trailer.records_end,  trailer.offsets_begin,   trailer.offsets_count,
                    trailer.names_begin,   trailer.name_count,   trailer.name_text_begin, trailer.name_text_end};
  return index;
}

RepodataIndex::RepodataIndex(RepodataIndex&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)),
      size_(std::exchange(other.size_, 0)),
      trailer_(other.trailer_),
      header_(std::move(other.header_)),
      record_count_(other.record_count_),
      skipped_(other.skipped_),
      first_skipped_(std::move(other.first_skipped_)) {}

RepodataIndex& RepodataIndex::operator=(RepodataIndex&& other) noexcept {
  if (this != &other) {
    if (data_ != nullptr) ::munmap(const_cast<unsigned char*>(data_), size_);
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
    trailer_ = other.trailer_;
    header_ = std::move(other.header_);
    record_count_ = other.record_count_;
    skipped_ = other.skipped_;
    first_skipped_ = std::move(other.first_skipped_);
  }
  return *this;
}

RepodataIndex::~RepodataIndex() {
  if (data_ != nullptr) ::munmap(const_cast<unsigned char*>(data_), size_);
}

const void* RepodataIndex::entries() const noexcept { return data_ + trailer_.names_begin; }

std::size_t RepodataIndex::name_count() const noexcept { return static_cast<std::size_t>(trailer_.name_count); }

// A damaged entry reads as an empty name without records.
std::string_view RepodataIndex::name(std::size_t index) const noexcept {
  if (index >= name_count()) return {};
  const auto& entry = static_cast<const NameEntry*>(entries())[index];
  if (trailer_.name_text_begin + entry.text_offset + entry.text_length > trailer_.name_text_end) return {};
  return {reinterpret_cast<const char*>(data_ + trailer_.name_text_begin + entry.text_offset), entry.text_length};
}

std::span<const std::uint64_t> RepodataIndex::records_of(std::size_t name_index) const noexcept {
  if (name_index >= name_count()) return {};
  const auto& entry = static_cast<const NameEntry*>(entries())[name_index];
  if (std::uint64_t{entry.first} + entry.count > trailer_.offsets_count) return {};
  const auto* offsets = reinterpret_cast<const std::uint64_t*>(data_ + trailer_.offsets_begin);
  return {offsets + entry.first, entry.count};
}

std::span<const std::uint64_t> RepodataIndex::records_named(std::string_view wanted) const noexcept {
  std::size_t low = 0;
  std::size_t high = name_count();
  while (low < high) {
    const std::size_t middle = low + (high - low) / 2;
    if (name(middle) < wanted) low = middle + 1;
    else high = middle;
  }
  if (low < name_count() && name(low) == wanted) return records_of(low);
  return {};
}

bool RepodataIndex::Decoder::decode(const RepodataIndex& index, std::uint64_t offset, RawRecord& record) {
  const auto& trailer = index.trailer_;
  if (offset < trailer.records_begin || offset >= trailer.records_end) return false;
  Cursor outer(index.data_ + offset, index.data_ + trailer.records_end);
  std::uint32_t length = 0;
  if (const auto* bytes = outer.raw(sizeof(length))) std::memcpy(&length, bytes, sizeof(length));
  const unsigned char* body = outer.raw(length);
  if (!outer.ok()) return false;
  Cursor cursor(body, body + length);
  record = RawRecord{};
  const std::uint8_t flags = cursor.byte();
  record.archive = (flags & conda_archive) ? ArchiveKind::conda : ArchiveKind::tar_bz2;
  const std::uint8_t noarch = cursor.byte();
  if (noarch > static_cast<std::uint8_t>(specs::NoarchType::python)) return false;
  record.noarch = static_cast<specs::NoarchType>(noarch);
  record.build_number = cursor.varint();
  if (flags & has_size) record.size = cursor.varint();
  record.timestamp_ms = cursor.varint();
  if (flags & has_md5) {
    if (const auto* md5 = cursor.raw(16)) {
      binary_to_hex(md5, 16, md5_hex_);
      record.md5 = {md5_hex_, sizeof(md5_hex_)};
    }
  }
  if (flags & has_sha256) {
    if (const auto* sha256 = cursor.raw(32)) {
      binary_to_hex(sha256, 32, sha256_hex_);
      record.sha256 = {sha256_hex_, sizeof(sha256_hex_)};
    }
  }
  record.filename = cursor.text();
  record.name = cursor.text();
  record.version = cursor.text();
  record.build = cursor.text();
  if ((flags & standard_filename) && cursor.ok()) {
    filename_.assign(record.name);
    filename_ += '-';
    filename_ += record.version;
    filename_ += '-';
    filename_ += record.build;
    filename_ += extension_of(flags & conda_archive);
    record.filename = filename_;
  }
  record.subdir = cursor.text();
  record.license = cursor.text();
  record.license_family = cursor.text();
  record.python_site_packages_path = cursor.text();
  // Texts before the one being read only (an earlier record, or earlier in
  // this one): a damaged offset cannot loop or leave the records.
  const auto earlier_text = [&](std::uint64_t at) -> std::string_view {
    const auto limit = static_cast<std::uint64_t>(cursor.position() - index.data_);
    if (at < trailer.records_begin || at >= limit) return {};
    Cursor text(index.data_ + at, index.data_ + limit);
    const auto value = text.text();
    return text.ok() ? value : std::string_view();
  };
  const auto dependency_list = [&](std::vector<std::string_view>& out) {
    out.clear();
    const std::uint64_t count = cursor.varint();
    if (count > length) return false;  // each item takes a byte at least
    for (std::uint64_t i = 0; i < count && cursor.ok(); ++i) {
      const std::uint64_t tag = cursor.varint();
      if (tag == 0) {
        out.push_back(cursor.text());
        continue;
      }
      const auto text = earlier_text(tag - 1);
      if (text.data() == nullptr) return false;
      out.push_back(text);
    }
    return cursor.ok();
  };
  if (!dependency_list(depends_) || !dependency_list(constrains_)) return false;
  cursor.list(track_features_);
  cursor.list(features_);
  cursor.list(flags_);
  record.flags = flags_;
  record.depends = depends_;
  record.constrains = constrains_;
  record.track_features = track_features_;
  record.features = features_;
  return cursor.ok();
}

}  // namespace gpuenv::repodata
