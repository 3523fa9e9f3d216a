#include "gpuenv/repodata/repodata_stream.hpp"

#include <fcntl.h>
#include <simdjson.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <optional>

#include "gpuenv/repodata/file_growth.hpp"
#include "gpuenv/repodata/json_reading.hpp"
#include "gpuenv/repodata/record_reader.hpp"
#include "gpuenv/repodata/repodata_revisions.hpp"
#include "gpuenv/specs/package_filename.hpp"

// How a chunk is cut and why the cut is safe.
//
// A chunk starts at a record of a section (`packages` or `packages.conda`)
// and ends at a `}` that looks like the end of a record: followed by `,` and
// a key naming a package file whose value is an object
// (`},"x-1.0-0.conda":{`). The chunk is parsed as `{` + chunk + `}`, the
// `{` and `}` written into the read buffer around it. If the guess was wrong
// -- the `}` sits inside a string, or ends an object nested in a record --
// that text is not valid JSON (an unclosed string, an object closed too
// early), simdjson reports an error, and the caller falls back to the whole
// document. A chunk that parses is exactly a run of the section's members,
// since JSON tokenizes the same way from the same starting point.
//
// The section's own closing `}` needs no guess: when it lies inside a chunk,
// the wrapper object ends there, and simdjson's position after it says where
// the rest of the document continues.
namespace gpuenv::repodata {
namespace {

namespace ondemand = simdjson::ondemand;

constexpr std::size_t max_chunk_bytes = std::size_t{256} << 20;  // a single record this big is not repodata
constexpr std::size_t max_top_level_value = std::size_t{64} << 20;
constexpr std::size_t boundary_lookahead = 4096;  // a package file name plus `":{` fits easily

bool is_space(char c) noexcept { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

using specs::is_package_file_name;

// The file through a window of memory that slides forward. Offsets are file
// offsets; the window keeps a few bytes before the current position so that
// the chunk parser can write its `{` there. A growing file (one a download is
// still writing) is read as far as its FileGrowth says it exists, waiting for
// more when the parse needs more; its size is known once it is complete.
class FileWindow {
 public:
  static constexpr std::size_t history = 16;

  ~FileWindow() {
    if (fd_ >= 0) ::close(fd_);
  }

  bool open(const std::filesystem::path& path, std::string& error) {
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) {
      error = "cannot open " + path.string() + ": " + std::strerror(errno);
      return false;
    }
    struct stat info {};
    if (::fstat(fd_, &info) != 0 || !S_ISREG(info.st_mode)) {
      error = "cannot read " + path.string() + ": not a regular file";
      return false;
    }
    file_size_ = static_cast<std::uint64_t>(info.st_size);
    readable_ = file_size_;
    ::posix_fadvise(fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
    return true;
  }

  void open_growing(int fd, std::shared_ptr<FileGrowth> growth) {
    fd_ = fd;
    growth_ = std::move(growth);
    size_known_ = false;
  }

  // The whole file's size: only once size_known().
  std::uint64_t file_size() const noexcept { return file_size_; }
  bool past_end(std::uint64_t offset) const noexcept { return size_known_ && offset >= file_size_; }
  std::uint64_t data_end() const noexcept { return start_ + length_; }
  bool at_eof() const noexcept { return size_known_ && data_end() == file_size_; }

  // Makes [from, until) readable (clipped to the file), keeping the
  // history bytes before `from`. False on a read error, or when a growing
  // file was abandoned.
  bool ensure(std::uint64_t from, std::uint64_t until) {
    if (!size_known_ && until > readable_) {
      const FileGrowth::Seen seen = growth_->wait_for(until);
      if (seen.abandoned) return false;
      readable_ = seen.size;
      if (seen.complete) {
        size_known_ = true;
        file_size_ = seen.size;
      }
    }
    if (size_known_) until = std::min(until, file_size_);
    if (from >= start_ && until <= data_end()) return true;
    const std::uint64_t keep_from = from > history ? from - history : 0;
    if (keep_from < start_) return false;  // never slides backwards
    const std::size_t needed = static_cast<std::size_t>(until - keep_from);
    if (needed + padding > capacity_) grow(std::max(needed + padding, capacity_ * 2));
    const std::size_t kept = keep_from < data_end() ? static_cast<std::size_t>(data_end() - keep_from) : 0;
    if (kept > 0 && keep_from > start_) std::memmove(buffer_.get(), buffer_.get() + (keep_from - start_), kept);
    start_ = keep_from;
    length_ = kept;
    // Read as much as fits (and exists): fewer, larger reads.
    while (data_end() < readable_ && length_ + padding < capacity_) {
      const std::size_t room =
          static_cast<std::size_t>(std::min<std::uint64_t>(capacity_ - padding - length_, readable_ - data_end()));
      const ssize_t got = ::pread(fd_, buffer_.get() + length_, room, static_cast<off_t>(data_end()));
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) return false;
      length_ += static_cast<std::size_t>(got);
    }
    return until <= data_end();
  }

  char* at(std::uint64_t offset) noexcept { return buffer_.get() + (offset - start_); }
  char byte(std::uint64_t offset) const noexcept { return buffer_[offset - start_]; }
  // Writable, readable bytes from `offset` to the end of the buffer.
  std::size_t capacity_from(std::uint64_t offset) const noexcept {
    return capacity_ - static_cast<std::size_t>(offset - start_);
  }

  void reserve(std::size_t bytes) {
    if (bytes + padding > capacity_) grow(bytes + padding);
  }

 private:
  // Room for simdjson's padding and the two bytes written after a chunk.
  static constexpr std::size_t padding = simdjson::SIMDJSON_PADDING + 64;

  void grow(std::size_t capacity) {
    auto bigger = std::make_unique_for_overwrite<char[]>(capacity);
    if (length_ > 0) std::memcpy(bigger.get(), buffer_.get(), length_);
    buffer_ = std::move(bigger);
    capacity_ = capacity;
  }

  int fd_ = -1;
  std::uint64_t file_size_ = 0;
  std::uint64_t readable_ = 0;  // bytes of the file that exist (all of them unless growing)
  bool size_known_ = true;
  std::shared_ptr<FileGrowth> growth_;  // set for a growing file
  std::unique_ptr<char[]> buffer_;
  std::size_t capacity_ = 0;
  std::uint64_t start_ = 0;  // file offset of buffer_[0]
  std::size_t length_ = 0;   // bytes of the file in the buffer
};

class StreamParser {
 public:
  StreamParser(RecordStreamSink& sink, const StreamOptions& options) : sink_(sink), options_(options) {}

  std::expected<ParseSummary, NotStreamable> run(const std::filesystem::path& path) {
    std::string error;
    if (!window_.open(path, error)) return std::unexpected(NotStreamable{error});
    return parse();
  }

  std::expected<ParseSummary, NotStreamable> run_growing(int fd, std::shared_ptr<FileGrowth> growth) {
    window_.open_growing(fd, std::move(growth));
    return parse();
  }

 private:
  std::expected<ParseSummary, NotStreamable> parse() {
    chunk_bytes_ = std::max<std::size_t>(options_.chunk_bytes, 256);
    window_.reserve(chunk_bytes_ + boundary_lookahead + FileWindow::history);
    if (!parse_document()) return std::unexpected(NotStreamable{failure_});
    summary_.bytes = static_cast<std::size_t>(window_.file_size());  // known: the parse read to the end
    return std::move(summary_);
  }

  bool fail(std::string reason) {
    if (failure_.empty()) failure_ = std::move(reason);
    return false;
  }

  // The byte at `offset`, reading on as needed (keeping what lies after
  // keep_from_ readable); nullopt at the end.
  std::optional<char> peek(std::uint64_t offset) {
    if (window_.past_end(offset)) return std::nullopt;
    if (offset >= window_.data_end() &&
        !window_.ensure(std::min(keep_from_, offset), offset + chunk_bytes_)) {
      return std::nullopt;
    }
    if (window_.past_end(offset)) return std::nullopt;  // a growing file turned out shorter
    return window_.byte(offset);
  }

  std::uint64_t skip_space(std::uint64_t offset) {
    for (;;) {
      const auto c = peek(offset);
      if (!c || !is_space(*c)) return offset;
      ++offset;
    }
  }

  // The offset of the quote closing the string that opens at `offset`.
  std::optional<std::uint64_t> string_end(std::uint64_t offset) {
    for (std::uint64_t i = offset + 1;; ++i) {
      const auto c = peek(i);
      if (!c) return std::nullopt;
      if (*c == '\\') {
        ++i;
      } else if (*c == '"') {
        return i;
      }
    }
  }

  // One past the end of the (small) value at `offset`.
  std::optional<std::uint64_t> value_end(std::uint64_t offset) {
    const auto first = peek(offset);
    if (!first) return std::nullopt;
    if (*first == '"') {
      const auto end = string_end(offset);
      return end ? std::optional(*end + 1) : std::nullopt;
    }
    if (*first != '{' && *first != '[') {
      std::uint64_t i = offset;
      for (auto c = peek(i); c && !is_space(*c) && *c != ',' && *c != '}' && *c != ']'; c = peek(++i)) {
      }
      return i;
    }
    int depth = 0;
    for (std::uint64_t i = offset;; ++i) {
      if (i - offset > max_top_level_value) return std::nullopt;
      const auto c = peek(i);
      if (!c) return std::nullopt;
      if (*c == '"') {
        const auto end = string_end(i);
        if (!end) return std::nullopt;
        i = *end;
      } else if (*c == '{' || *c == '[') {
        ++depth;
      } else if ((*c == '}' || *c == ']') && --depth == 0) {
        return i + 1;
      }
    }
  }

  bool parse_document() {
    std::uint64_t at = skip_space(0);
    if (peek(at) != '{') return fail("not a JSON object");
    at = skip_space(at + 1);
    if (peek(at) == '}') return finish(at + 1);
    for (;;) {
      keep_from_ = at;  // the key and a small value are read from the window
      if (peek(at) != '"') return fail("expected a key");
      const auto key_close = string_end(at);
      if (!key_close || *key_close - at > 4096) return fail("unreadable key");
      window_.ensure(at, *key_close + 1);
      const std::string key(window_.at(at + 1), static_cast<std::size_t>(*key_close - at - 1));
      if (key.find('\\') != std::string::npos) return fail("escaped top-level key");
      at = skip_space(*key_close + 1);
      if (peek(at) != ':') return fail("expected ':'");
      at = skip_space(at + 1);
      if (key == "packages" || key == "packages.conda") {
        if (peek(at) != '{') return fail("a package section is not an object");
        if (!parse_section(at + 1, at)) return false;
      } else if (is_known_revision_key(key)) {
        // CEP 48's records are nested one level deeper; the chunk cutter
        // does not know that shape, and v3 sections are small today.
        return fail("CEP 48 '" + key + "' records");
      } else {
        if (is_package_file_name(key)) return fail("conda's flat index shape");
        const auto end = value_end(at);
        if (!end) return fail("unreadable top-level value");
        if (key == "info" || key == "removed" || key == "repodata_version") {
          if (!read_header_value(key, at, *end)) return false;
        }
        at = *end;
      }
      at = skip_space(at);
      const auto next = peek(at);
      if (next == '}') return finish(at + 1);
      if (next != ',') return fail("expected ',' or '}'");
      at = skip_space(at + 1);
    }
  }

  bool finish(std::uint64_t after_document) {
    if (!window_.past_end(skip_space(after_document))) return fail("text after the document");
    summary_.header.flat_index = false;
    return true;
  }

  // info, removed, repodata_version: small values, parsed from a copy.
  bool read_header_value(const std::string& key, std::uint64_t begin, std::uint64_t end) {
    if (!window_.ensure(begin, end)) return fail("read error");
    // Inside an array: On-Demand reads scalars at the root differently.
    std::string wrapped = "[";
    wrapped.append(window_.at(begin), static_cast<std::size_t>(end - begin));
    wrapped += ']';
    const simdjson::padded_string text(wrapped);
    ondemand::parser parser;
    ondemand::document document;
    ondemand::array array;
    ondemand::value value;
    if (parser.iterate(text).get(document) || document.get_array().get(array) ||
        array.at(0).get(value)) {
      return fail("invalid JSON in " + key);
    }
    simdjson::error_code error = simdjson::SUCCESS;
    if (key == "info") {
      error = read_repodata_info(value, summary_.header);
    } else if (key == "repodata_version") {
      std::uint64_t version = 1;
      error = json::read_unsigned(value, version);
      if (!error) summary_.header.repodata_version = static_cast<int>(std::min<std::uint64_t>(version, 1000));
    } else {
      std::vector<std::string_view> removed;
      error = json::read_string_array(value, removed);
      if (!error) {
        for (const auto name : removed) summary_.header.removed.emplace_back(name);
      }
    }
    if (error && !json::is_value_error(error)) return fail("invalid JSON in " + key);
    return true;
  }

  // Whether the `}` at `close` is followed by `,` and a member whose key
  // names a package file and whose value is an object.
  bool is_record_boundary(std::uint64_t close, std::uint64_t limit) {
    const auto skip = [&](std::uint64_t i) {
      while (i < limit && is_space(window_.byte(i))) ++i;
      return i;
    };
    std::uint64_t i = skip(close + 1);
    if (i >= limit || window_.byte(i) != ',') return false;
    i = skip(i + 1);
    if (i >= limit || window_.byte(i) != '"') return false;
    const std::uint64_t key_begin = i + 1;
    for (i = key_begin; i < limit && window_.byte(i) != '"'; ++i) {
      if (window_.byte(i) == '\\') return false;
    }
    if (i >= limit) return false;
    const std::string_view key(window_.at(key_begin), static_cast<std::size_t>(i - key_begin));
    if (!is_package_file_name(key)) return false;
    i = skip(i + 1);
    if (i >= limit || window_.byte(i) != ':') return false;
    i = skip(i + 1);
    return i < limit && window_.byte(i) == '{';
  }

  // The last record end in (begin, end] that starts a chunk boundary.
  std::optional<std::uint64_t> last_boundary(std::uint64_t begin, std::uint64_t end) {
    const std::uint64_t limit = std::min(window_.data_end(), end + boundary_lookahead);
    std::uint64_t search_end = end;
    while (search_end > begin) {
      const char* base = window_.at(begin);
      const void* found = ::memrchr(base, '}', static_cast<std::size_t>(search_end - begin));
      if (found == nullptr) return std::nullopt;
      const std::uint64_t close = begin + static_cast<std::uint64_t>(static_cast<const char*>(found) - base);
      if (is_record_boundary(close, limit)) return close;
      search_end = close;
    }
    return std::nullopt;
  }

  // A section's members from `first` (just after its `{`) to its closing
  // `}`; `after` is set to the offset just past that `}`.
  bool parse_section(std::uint64_t first, std::uint64_t& after) {
    std::uint64_t at = skip_space(first);
    if (peek(at) == '}') {
      after = at + 1;
      return true;
    }
    std::size_t chunk = chunk_bytes_;
    for (;;) {
      keep_from_ = at;
      if (peek(at) != '"') return fail("expected a record key");
      if (!window_.ensure(at, at + chunk + boundary_lookahead)) return fail("read error");
      const std::uint64_t end = std::min(window_.data_end(), at + chunk);
      std::uint64_t chunk_end = 0;  // one past the chunk's last byte
      if (window_.at_eof() && window_.data_end() - at <= chunk) {
        chunk_end = window_.data_end();  // the rest of the file: the section ends in there
      } else if (const auto close = last_boundary(at, end)) {
        chunk_end = *close + 1;
      } else if (window_.at_eof()) {
        chunk_end = window_.data_end();
      } else {
        if (chunk >= max_chunk_bytes) return fail("a record larger than the chunk limit");
        chunk *= 2;  // a record bigger than a chunk
        window_.reserve(chunk + boundary_lookahead + FileWindow::history);
        continue;
      }
      std::optional<std::uint64_t> section_end;
      if (!parse_chunk(at, chunk_end, section_end)) return false;
      if (section_end) {
        after = *section_end;
        return true;
      }
      at = skip_space(chunk_end);
      if (peek(at) != ',') return fail("expected ',' between records");
      at = skip_space(at + 1);
      chunk = chunk_bytes_;
    }
  }

  // Parses [begin, end) as the members of one object. `section_end` is set
  // when the section's own `}` came first (to the offset after it).
  bool parse_chunk(std::uint64_t begin, std::uint64_t end, std::optional<std::uint64_t>& section_end) {
    char* open = window_.at(begin - 1);
    char* close = window_.at(end);
    const char saved_open = *open;
    const char saved_close[2] = {close[0], close[1]};
    *open = '{';
    close[0] = '}';
    // Any byte but `}` here: simdjson then trusts the document's shape
    // without an extra scan for balance.
    close[1] = ' ';
    const bool parsed = parse_members(open, static_cast<std::size_t>(end - begin + 2),
                                      window_.capacity_from(begin - 1), section_end);
    *open = saved_open;
    close[0] = saved_close[0];
    close[1] = saved_close[1];
    if (parsed && section_end) {
      // Offsets relative to the wrapper: 0 is the `{` written at begin - 1.
      *section_end += begin - 1;
    }
    return parsed;
  }

  bool parse_members(const char* text, std::size_t length, std::size_t capacity,
                     std::optional<std::uint64_t>& section_end) {
    ondemand::document document;
    if (parser_.iterate(simdjson::padded_string_view(text, length, capacity)).get(document)) {
      return fail("invalid JSON in a chunk");
    }
    ondemand::object members;
    if (document.get_object().get(members)) return fail("invalid JSON in a chunk");
    for (auto field_result : members) {
      ondemand::field field;
      if (std::move(field_result).get(field)) return fail("invalid JSON in a chunk");
      std::string_view filename = json::raw_key(field);
      if (filename.empty() && field.unescaped_key().get(filename)) return fail("invalid JSON in a chunk");
      ondemand::value value = field.value();
      if (!read_record(filename, value)) return false;
    }
    const char* next = nullptr;
    if (document.current_location().get(next)) return true;  // our `}` closed it: more records follow
    // The section closed inside the chunk; `next` is the first token after it.
    section_end = static_cast<std::uint64_t>(next - text);
    return true;
  }

  bool read_record(std::string_view filename, ondemand::value& value) {
    ondemand::object object;
    if (auto error = value.get_object().get(object)) {
      if (!json::is_value_error(error)) return fail("invalid JSON in a record");
      skip(filename, "the record is not a JSON object");
      return true;
    }
    std::string_view problem;
    if (reader_.read(object, filename, record_, problem)) return fail("invalid JSON in a record");
    if (!problem.empty()) {
      skip(filename, problem);
      return true;
    }
    sink_.on_record(record_);
    ++summary_.records;
    if (record_.archive == ArchiveKind::conda) ++summary_.conda_records;
    return true;
  }

  void skip(std::string_view filename, std::string_view reason) {
    ++summary_.skipped;
    if (summary_.first_skipped.size() < options_.skipped_examples) {
      summary_.first_skipped.push_back({std::string(filename), std::string(reason)});
    }
  }

  RecordStreamSink& sink_;
  const StreamOptions& options_;
  FileWindow window_;
  std::size_t chunk_bytes_ = 0;
  ondemand::parser parser_;
  RecordReader reader_;
  RawRecord record_;
  ParseSummary summary_;
  std::uint64_t keep_from_ = 0;
  std::string failure_;
};

}  // namespace

std::expected<ParseSummary, NotStreamable> stream_repodata_file(const std::filesystem::path& path,
                                                               RecordStreamSink& sink,
                                                               const StreamOptions& options) {
  return StreamParser(sink, options).run(path);
}

std::expected<ParseSummary, NotStreamable> stream_growing_repodata_file(int fd, std::shared_ptr<FileGrowth> growth,
                                                                       RecordStreamSink& sink,
                                                                       const StreamOptions& options) {
  return StreamParser(sink, options).run_growing(fd, std::move(growth));
}

}  // namespace gpuenv::repodata
