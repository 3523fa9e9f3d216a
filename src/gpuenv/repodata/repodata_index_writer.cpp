// Building repodata_index files: records streamed from repodata.json (or
// parsed whole when the stream declines), encoded as they come, grouped by
// name at the end. Reading them is repodata_index.cpp.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <deque>
#include <functional>
#include <memory>
#include <unordered_map>
#include <utility>

#include "gpuenv/repodata/partial_file.hpp"
#include "gpuenv/repodata/repodata_index.hpp"
#include "gpuenv/repodata/repodata_index_format.hpp"
#include "gpuenv/repodata/repodata_parser.hpp"
#include "gpuenv/repodata/repodata_stream.hpp"
#include "gpuenv/specs/package_filename.hpp"

namespace gpuenv::repodata {
namespace {

using namespace index_format;

struct TransparentHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view text) const noexcept { return std::hash<std::string_view>{}(text); }
};

// Receives records (from the streaming parser or, as a fallback, the whole
// document parser) and writes the index file.
class IndexWriter final : public RecordSink, public RecordStreamSink {
 public:
  // `input_bytes`: the JSON's size, which bounds how many distinct texts
  // the recent-text cache can meet (a shard closure of a few MB needs a
  // fraction of the slots a whole channel does, and zeroing them costs).
  IndexWriter(PartialFile file, std::uintmax_t input_bytes)
      : file_(std::move(file)), recent_hashes_(recent_slots_for(input_bytes), 0),
        recent_texts_(recent_hashes_.size()) {
    buffer_.reserve(buffer_limit + 4096);
  }

  void on_header(const RepodataHeader&) override {}  // taken from the summary at the end

  void on_record(const RawRecord& record) override {
    RecordInfo info;
    info.offset = file_.bytes_written() + buffer_.size();
    info.name = name_index(record.name);
    info.conda = record.archive == ArchiveKind::conda;
    info.stem_hash = text_hash(specs::strip_package_extension(record.filename));
    records_.push_back(info);
    encode(record);
    if (buffer_.size() >= buffer_limit) flush();
  }

  void retarget(std::filesystem::path index_file) { file_.retarget(std::move(index_file)); }

  std::expected<std::size_t, std::string> finish(const ParseSummary& summary, const std::string& stamp) {
    flush();
    const std::uint64_t records_end = file_.bytes_written();
    if (!file_.error().empty()) return std::unexpected(file_.error());
    std::size_t superseded = 0;
    if (auto marked = mark_superseded(); !marked) {
      return std::unexpected(marked.error());
    } else {
      superseded = *marked;
    }

    // Names sorted for binary search; each name's offsets in document order.
    std::vector<std::uint32_t> order(names_.size());
    for (std::uint32_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](auto a, auto b) { return names_[a] < names_[b]; });
    std::vector<std::uint32_t> rank(names_.size());
    for (std::uint32_t i = 0; i < order.size(); ++i) rank[order[i]] = i;
    std::vector<std::uint32_t> counts(names_.size() + 1, 0);
    for (const auto& info : records_) {
      if (!info.superseded) ++counts[rank[info.name] + 1];
    }
    for (std::size_t i = 1; i < counts.size(); ++i) counts[i] += counts[i - 1];
    std::vector<std::uint64_t> offsets(counts.back());
    {
      std::vector<std::uint32_t> next(counts.begin(), counts.end() - 1);
      for (const auto& info : records_) {
        if (!info.superseded) offsets[next[rank[info.name]]++] = info.offset;
      }
    }
    records_ = {};  // done with them: free before writing the rest

    Trailer trailer{};
    trailer.records_begin = 0;
    trailer.records_end = records_end;
    align8();
    flush();
    trailer.offsets_begin = file_.bytes_written();
    trailer.offsets_count = offsets.size();
    write_raw(offsets.data(), offsets.size() * sizeof(std::uint64_t));
    std::vector<NameEntry> entries(names_.size());
    std::uint32_t text_offset = 0;
    for (std::uint32_t i = 0; i < order.size(); ++i) {
      const auto& name = names_[order[i]];
      entries[i] = {text_offset, static_cast<std::uint32_t>(name.size()), counts[i], counts[i + 1] - counts[i]};
      text_offset += static_cast<std::uint32_t>(name.size());
    }
    align8();
    flush();
    trailer.names_begin = file_.bytes_written();
    trailer.name_count = entries.size();
    write_raw(entries.data(), entries.size() * sizeof(NameEntry));
    trailer.name_text_begin = file_.bytes_written();
    for (const auto index : order) buffer_.append(names_[index]);
    flush();
    trailer.name_text_end = file_.bytes_written();

    Encoder meta;
    meta.text(stamp);
    meta.text(summary.header.subdir);
    meta.text(summary.header.base_url);
    meta.varint(static_cast<std::uint64_t>(std::max(summary.header.repodata_version, 0)));
    meta.varint(summary.header.removed.size());
    for (const auto& removed : summary.header.removed) meta.text(removed);
    meta.varint(summary.records - std::min(summary.records, superseded));
    meta.varint(summary.skipped);
    meta.varint(summary.first_skipped.size());
    for (const auto& skipped : summary.first_skipped) {
      meta.text(skipped.filename);
      meta.text(skipped.reason);
    }
    meta.varint(summary.header.revisions.size());
    for (const auto& revision : summary.header.revisions) {
      meta.text(revision.key);
      meta.text(revision.message);
      for (const auto& number : {revision.n_packages, revision.oldest_ms, revision.newest_ms}) {
        meta.varint(number ? *number + 1 : 0);  // 0: absent
      }
    }
    trailer.meta_begin = file_.bytes_written();
    buffer_.append(meta.bytes());
    flush();
    trailer.meta_end = file_.bytes_written();
    align8();
    flush();
    trailer.file_size = file_.bytes_written() + sizeof(Trailer);
    trailer.format = format_version;
    trailer.byte_order = byte_order_mark;
    std::memcpy(trailer.magic, index_magic, sizeof(index_magic));
    write_raw(&trailer, sizeof(trailer));
    if (!file_.error().empty()) return std::unexpected(file_.error());
    if (auto committed = file_.commit(); !committed) return std::unexpected(committed.error());
    return superseded;
  }

 private:
  static constexpr std::size_t buffer_limit = std::size_t{1} << 20;

  struct RecordInfo {
    std::uint64_t offset = 0;
    std::uint64_t stem_hash = 0;
    std::uint32_t name = 0;
    bool conda = false;
    bool superseded = false;
  };

  std::uint32_t name_index(std::string_view name) {
    // Records of one package mostly come together (keys are sorted).
    if (last_name_ < names_.size() && names_[last_name_] == name) return last_name_;
    auto it = name_ids_.find(name);
    if (it == name_ids_.end()) {
      names_.emplace_back(name);
      it = name_ids_.emplace(names_.back(), static_cast<std::uint32_t>(names_.size() - 1)).first;
    }
    last_name_ = it->second;
    return it->second;
  }

  void encode(const RawRecord& record) {
    Encoder& e = record_encoder_;
    e.clear();
    unsigned char md5[16];
    unsigned char sha256[32];
    std::uint8_t flags = 0;
    if (record.archive == ArchiveKind::conda) flags |= conda_archive;
    if (hex_to_binary(record.md5, md5, sizeof(md5))) flags |= has_md5;
    if (hex_to_binary(record.sha256, sha256, sizeof(sha256))) flags |= has_sha256;
    if (record.size) flags |= has_size;
    const bool standard = is_standard_filename(record);
    if (standard) flags |= standard_filename;
    e.byte(flags);
    e.byte(static_cast<std::uint8_t>(record.noarch));
    e.varint(record.build_number);
    if (record.size) e.varint(*record.size);
    e.varint(record.timestamp_ms);
    if (flags & has_md5) e.raw(md5, sizeof(md5));
    if (flags & has_sha256) e.raw(sha256, sizeof(sha256));
    for (const auto text : {standard ? std::string_view() : record.filename, record.name, record.version, record.build,
                            record.subdir, record.license, record.license_family,
                            record.python_site_packages_path}) {
      e.text(text);
    }
    const std::uint64_t body_offset = file_.bytes_written() + buffer_.size() + sizeof(std::uint32_t);
    dependency_list(record.depends, body_offset);
    dependency_list(record.constrains, body_offset);
    e.list(record.track_features);
    e.list(record.features);
    e.list(record.flags);
    // The length first (fixed size, so that offsets inside the body are
    // known while encoding it), so a reader can bound the record.
    const auto length = static_cast<std::uint32_t>(e.bytes().size());
    buffer_.append(reinterpret_cast<const char*>(&length), sizeof(length));
    buffer_.append(e.bytes());
  }

  // A channel repeats a few ten thousand dependency texts millions of times
  // (2.6M depends and constrains, 60k distinct on the bench's linux-64): a
  // text seen recently is written as the file offset of its first copy,
  // which halves the index. Each item: varint 0 + the text, or varint
  // offset + 1 of an earlier text. A direct-mapped cache, not a hash map:
  // a miss only costs a repeated text.
  void dependency_list(std::span<const std::string_view> values, std::uint64_t body_offset) {
    Encoder& e = record_encoder_;
    e.varint(values.size());
    for (const auto value : values) {
      const std::uint64_t hash = text_hash(value);
      const std::size_t index = hash & (recent_hashes_.size() - 1);
      // The hashes alone first: a compact array that stays in cache.
      if (recent_hashes_[index] == hash && recent_texts_[index].offset != 0 &&
          recent_texts_[index].name == last_name_ && recent_texts_[index].text == value) {
        e.varint(recent_texts_[index].offset + 1);
        continue;
      }
      e.varint(0);
      recent_hashes_[index] = hash;
      recent_texts_[index].name = last_name_;
      recent_texts_[index].offset = body_offset + e.bytes().size();
      recent_texts_[index].text.assign(value);
      e.text(value);
    }
  }

  static std::uint64_t text_hash(std::string_view text) noexcept {
    std::uint64_t hash = text.size() * 0x9e3779b97f4a7c15ull;
    std::size_t i = 0;
    for (; i + 8 <= text.size(); i += 8) {
      std::uint64_t word;
      std::memcpy(&word, text.data() + i, 8);
      hash = (hash ^ word) * 0xff51afd7ed558ccdull;
    }
    std::uint64_t tail = 0;
    std::memcpy(&tail, text.data() + i, text.size() - i);
    hash = (hash ^ tail) * 0xc4ceb9fe1a85ec53ull;
    return hash ^ (hash >> 29);
  }

  // A .tar.bz2 whose .conda twin (same file name stem) is in the same file
  // is not handed out, as in the full parser.
  std::expected<std::size_t, std::string> mark_superseded() {
    // The .conda records' stem hashes in an open-addressing table (slot:
    // record index + 1), probed for each .tar.bz2.
    std::size_t conda_count = 0;
    for (const auto& info : records_) conda_count += info.conda ? 1 : 0;
    if (conda_count == 0 || conda_count == records_.size()) return 0;
    std::size_t capacity = 16;
    while (capacity < conda_count * 2) capacity *= 2;
    std::vector<std::uint32_t> table(capacity, 0);
    for (std::uint32_t i = 0; i < records_.size(); ++i) {
      if (!records_[i].conda) continue;
      std::size_t slot = records_[i].stem_hash & (capacity - 1);
      while (table[slot] != 0) slot = (slot + 1) & (capacity - 1);
      table[slot] = i + 1;
    }
    // Hash matches are confirmed on the names themselves, read back.
    const int fd = ::open(file_.temp_path().c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return std::unexpected("cannot read back " + file_.temp_path().string() + ": " + std::strerror(errno));
    std::string scratch;
    const auto filename_at = [&](std::uint64_t offset) -> std::string {
      // length varint, flags, noarch, varints, checksums, then the file name:
      // read generously and decode.
      scratch.resize(4096);
      const ssize_t got = ::pread(fd, scratch.data(), scratch.size(), static_cast<off_t>(offset));
      if (got <= 0) return {};
      const auto* begin = reinterpret_cast<const unsigned char*>(scratch.data());
      Cursor cursor(begin, begin + got);
      cursor.raw(sizeof(std::uint32_t));
      const std::uint8_t flags = cursor.byte();
      cursor.byte();
      cursor.varint();
      if (flags & has_size) cursor.varint();
      cursor.varint();
      if (flags & has_md5) cursor.raw(16);
      if (flags & has_sha256) cursor.raw(32);
      const auto filename = cursor.text();
      const auto name = cursor.text();
      const auto version = cursor.text();
      const auto build = cursor.text();
      if (!cursor.ok()) return {};
      if (!(flags & standard_filename)) return std::string(filename);
      return std::string(name) + "-" + std::string(version) + "-" + std::string(build) +
             std::string(extension_of(flags & conda_archive));
    };
    std::size_t superseded = 0;
    for (auto& info : records_) {
      if (info.conda) continue;
      std::string own;
      for (std::size_t slot = info.stem_hash & (capacity - 1); table[slot] != 0; slot = (slot + 1) & (capacity - 1)) {
        const auto& twin = records_[table[slot] - 1];
        if (twin.stem_hash != info.stem_hash) continue;
        if (own.empty()) own = filename_at(info.offset);
        if (specs::strip_package_extension(filename_at(twin.offset)) ==
            specs::strip_package_extension(own)) {
          info.superseded = true;
          ++superseded;
          break;
        }
      }
    }
    ::close(fd);
    return superseded;
  }

  void write_raw(const void* data, std::size_t size) {
    buffer_.append(static_cast<const char*>(data), size);
    flush();
  }
  void align8() {
    while ((file_.bytes_written() + buffer_.size()) % 8 != 0) buffer_.push_back('\0');
  }
  void flush() {
    if (buffer_.empty()) return;
    file_.write(buffer_);
    buffer_.clear();
  }

  // Only texts of the same package are reused: its records lie together
  // (repodata sorts them), so decoding a name's records reads only their
  // pages; references across the file would fault in pages everywhere.
  struct RecentText {
    std::string text;
    std::uint64_t offset = 0;
    std::uint32_t name = 0;
  };

  PartialFile file_;
  std::string buffer_;
  Encoder record_encoder_;
  // Slot i is empty while its offset is 0 (no text starts there).
  static std::size_t recent_slots_for(std::uintmax_t input_bytes) {
    std::size_t slots = 1024;  // a power of two: indexed by a mask
    while (slots < (std::size_t{1} << 16) && slots * 256 < input_bytes) slots *= 2;
    return slots;
  }

  std::vector<std::uint64_t> recent_hashes_;
  std::vector<RecentText> recent_texts_;
  std::vector<RecordInfo> records_;
  std::deque<std::string> names_;  // stable: name_ids_ keys view them
  std::unordered_map<std::string_view, std::uint32_t, TransparentHash, std::equal_to<>> name_ids_;
  std::uint32_t last_name_ = UINT32_MAX;
};

// Writes the index's last sections and renames it into place; the summary
// then counts the .tar.bz2 records a .conda twin superseded.
std::expected<ParseSummary, std::string> finish_index(IndexWriter& writer, ParseSummary summary,
                                                      const std::string& stamp) {
  auto finished = writer.finish(summary, stamp);
  if (!finished) return std::unexpected(finished.error());
  summary.superseded_tar_bz2 = *finished;
  summary.records -= std::min(summary.records, *finished);
  return summary;
}

}  // namespace

struct PendingIndex::State {
  std::unique_ptr<IndexWriter> writer;
  ParseSummary summary;
};

PendingIndex::PendingIndex(std::unique_ptr<State> state) : state_(std::move(state)) {}
PendingIndex::PendingIndex(PendingIndex&&) noexcept = default;
PendingIndex& PendingIndex::operator=(PendingIndex&&) noexcept = default;
PendingIndex::~PendingIndex() = default;

std::uint64_t PendingIndex::json_bytes() const noexcept { return state_->summary.bytes; }

std::expected<ParseSummary, std::string> PendingIndex::commit(const std::filesystem::path& index_file,
                                                              const std::string& stamp) {
  state_->writer->retarget(index_file);
  return finish_index(*state_->writer, std::move(state_->summary), stamp);
}

std::expected<PendingIndex, std::string> parse_growing_repodata_index(int fd, std::shared_ptr<FileGrowth> growth,
                                                                     const std::filesystem::path& index_dir,
                                                                     const IndexBuildOptions& options) {
  std::error_code ignored;
  std::filesystem::create_directories(index_dir, ignored);
  auto file = PartialFile::create_beside(index_dir / "growing.index");
  if (!file) {
    ::close(fd);
    return std::unexpected(file.error());
  }
  auto state = std::make_unique<PendingIndex::State>();
  // The JSON's size is not known yet: every recent-text slot.
  state->writer = std::make_unique<IndexWriter>(std::move(*file), UINTMAX_MAX);
  StreamOptions stream_options;
  stream_options.source_label = options.source_label;
  stream_options.chunk_bytes = options.chunk_bytes;
  auto streamed = stream_growing_repodata_file(fd, std::move(growth), *state->writer, stream_options);
  if (!streamed) return std::unexpected(streamed.error().reason);
  state->summary = std::move(*streamed);
  return PendingIndex(std::move(state));
}

std::expected<ParseSummary, IndexBuildError> build_repodata_index(const std::filesystem::path& repodata_json,
                                                                  const std::filesystem::path& index_file,
                                                                  const IndexBuildOptions& options) {
  const auto write_error = [&](const std::string& message) {
    return std::unexpected(IndexBuildError{false, RepodataError{options.source_label, std::nullopt, message}});
  };
  std::error_code ignored;
  std::filesystem::create_directories(index_file.parent_path(), ignored);
  const auto input_bytes = std::filesystem::file_size(repodata_json, ignored);  // all slots when unknown

  // Streamed when the file has the usual shape; otherwise (or when it is
  // broken) parsed whole, which also words the error.
  if (!options.only_tar_bz2) {
    auto file = PartialFile::create_beside(index_file);
    if (!file) return write_error(file.error());
    auto writer = std::make_unique<IndexWriter>(std::move(*file), input_bytes);
    StreamOptions stream_options;
    stream_options.source_label = options.source_label;
    stream_options.chunk_bytes = options.chunk_bytes;
    auto streamed = stream_repodata_file(repodata_json, *writer, stream_options);
    if (streamed) {
      auto finished = finish_index(*writer, std::move(*streamed), options.stamp);
      if (!finished) return write_error(finished.error());
      return std::move(*finished);
    }
  }
  auto file = PartialFile::create_beside(index_file);
  if (!file) return write_error(file.error());
  auto writer = std::make_unique<IndexWriter>(std::move(*file), input_bytes);
  ParseOptions parse_options;
  parse_options.source_label = options.source_label;
  parse_options.only_tar_bz2 = options.only_tar_bz2;
  auto parsed = parse_repodata_file(repodata_json, *writer, parse_options);
  if (!parsed) return std::unexpected(IndexBuildError{true, std::move(parsed.error())});
  auto finished = writer->finish(*parsed, options.stamp);
  if (!finished) return write_error(finished.error());
  return std::move(*parsed);
}

}  // namespace gpuenv::repodata
