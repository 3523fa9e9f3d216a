#include "gpuenv/prefix/prefix_replacement.hpp"

#include <algorithm>

namespace gpuenv::prefix {

std::string replace_prefix_in_text(std::string_view content, std::string_view placeholder,
                                   std::string_view new_prefix) {
  std::string result;
  result.reserve(content.size() + 64);
  std::size_t start = 0;
  while (true) {
    const auto found = content.find(placeholder, start);
    if (found == std::string_view::npos || placeholder.empty()) break;
    result.append(content.substr(start, found - start));
    result.append(new_prefix);
    start = found + placeholder.size();
  }
  result.append(content.substr(start));
  return shorten_long_shebang(std::move(result));
}

std::optional<std::string> replace_prefix_in_binary(std::string_view content,
                                                    std::string_view placeholder,
                                                    std::string_view new_prefix) {
  std::string result;
  result.reserve(content.size());
  std::size_t start = 0;
  while (!placeholder.empty()) {
    const auto found = content.find(placeholder, start);
    if (found == std::string_view::npos) break;
    // conda's pattern needs the string's terminating NUL; an occurrence
    // running into the end of the file is left alone, as conda leaves it.
    const auto end = content.find('\0', found);
    if (end == std::string_view::npos) break;
    if (new_prefix.size() > placeholder.size()) return std::nullopt;
    result.append(content.substr(start, found - start));
    const auto cstring = content.substr(found, end - found);
    std::size_t occurrences = 0;
    std::size_t piece = 0;
    while (true) {
      const auto next = cstring.find(placeholder, piece);
      if (next == std::string_view::npos) break;
      result.append(cstring.substr(piece, next - piece));
      result.append(new_prefix);
      piece = next + placeholder.size();
      ++occurrences;
    }
    result.append(cstring.substr(piece));
    result.append(occurrences * (placeholder.size() - new_prefix.size()), '\0');
    start = end;  // the terminating NUL is copied with the rest
  }
  result.append(content.substr(start));
  return result;
}

std::string shorten_long_shebang(std::string content) {
  if (!content.starts_with("#!")) return content;
  const auto line_end = std::min(content.find_first_of("\r\n"), content.size());
  const std::string_view line = std::string_view(content).substr(0, line_end);
  // The interpreter runs to the first unescaped space (conda's SHEBANG_REGEX).
  std::size_t executable_end = 2;
  bool escaped_space = false;
  while (executable_end < line.size()) {
    if (line[executable_end] == '\\' && executable_end + 1 < line.size() &&
        line[executable_end + 1] == ' ') {
      escaped_space = true;
      executable_end += 2;
      continue;
    }
    if (line[executable_end] == ' ') break;
    ++executable_end;
  }
  if (line.size() <= kMaxShebangLength && !escaped_space) return content;
  const std::string_view executable = line.substr(2, executable_end - 2);
  const auto slash = executable.find_last_of('/');
  if (slash == std::string_view::npos) return content;  // not a path: nothing to shorten
  std::string shebang = "#!/usr/bin/env ";
  shebang.append(executable.substr(slash + 1));
  shebang.append(line.substr(executable_end));
  return shebang + content.substr(line_end);
}

}  // namespace gpuenv::prefix

namespace gpuenv::prefix {

namespace {

// How the streamed rewrite works (it must give exactly what the whole-file
// functions above give):
//
// The source is read through a window of about one chunk. Looking for the
// placeholder, the window slides forward keeping its last
// placeholder.size() - 1 bytes, so an occurrence straddling two chunks is
// still found whole. Output is a cursor over the source: bytes before an
// occurrence are copied unchanged, the occurrence is replaced by the new
// prefix and skipped.
//
// Binary mode needs the NUL that ends the C string holding the occurrence
// before it may rewrite anything (no NUL up to the end of the file: the
// rest stays as it is, as conda's regex does not match). The source can be
// read at any offset, so the C string, however long and however many chunks
// it spans, is found by scanning ahead for the NUL without keeping what was
// scanned; then the string is streamed again from its start with its
// occurrences replaced and the NUL padding (placeholder.size() -
// new_prefix.size() per occurrence) written before its NUL. Bytes that left
// the window before being written are read again at their offset.
class SourceWindow {
 public:
  SourceWindow(const ReadAt& read, const WriteOut& write, std::size_t chunk)
      : read_(read), write_(write), chunk_(std::max<std::size_t>(chunk, 1)) {}

  static constexpr std::uint64_t kNoLimit = ~std::uint64_t{0};

  // The first occurrence of `needle` at or after `from` that ends by
  // `limit`. With `flush`, bytes the window leaves behind are written out
  // first: the caller knows everything before the occurrence is unchanged.
  std::optional<std::uint64_t> find(std::uint64_t from, std::string_view needle, bool flush,
                                    std::uint64_t limit = kNoLimit) {
    if (from < start_) {  // gone from the window: read it again
      buffer_.clear();
      start_ = from;
      at_end_ = false;
    }
    while (true) {
      const auto found = buffer_.find(needle, static_cast<std::size_t>(from - start_));
      if (found != std::string::npos) {
        const auto offset = start_ + found;
        if (offset + needle.size() > limit) return std::nullopt;
        return offset;
      }
      if (at_end_ || end() >= limit) return std::nullopt;
      const auto overlap = std::min<std::uint64_t>(needle.size() - 1, buffer_.size());
      const auto keep_from = std::max(from, end() - overlap);
      if (flush) copy_to(keep_from);
      buffer_.erase(0, static_cast<std::size_t>(keep_from - start_));
      start_ = keep_from;
      from = keep_from;
      fill();
    }
  }

  // Writes the source's bytes from the cursor up to `offset` unchanged.
  void copy_to(std::uint64_t offset) {
    while (written_ < offset) {
      if (written_ >= start_ && written_ < end()) {
        const auto count = std::min(offset, end()) - written_;
        write_(std::string_view(buffer_).substr(static_cast<std::size_t>(written_ - start_),
                                                static_cast<std::size_t>(count)));
        written_ += count;
        continue;
      }
      scratch_.resize(static_cast<std::size_t>(std::min<std::uint64_t>(chunk_, offset - written_)));
      const auto count = read_(written_, scratch_.data(), scratch_.size());
      if (count == 0) return;  // the source ended early
      write_(std::string_view(scratch_.data(), count));
      written_ += count;
    }
  }

  // Writes everything from the cursor to the end of the source unchanged.
  void copy_rest() {
    while (true) {
      copy_to(end());
      if (at_end_) return;
      buffer_.clear();
      start_ = written_;
      fill();
    }
  }

  // Moves the cursor past replaced bytes.
  void skip_to(std::uint64_t offset) { written_ = offset; }

 private:
  std::uint64_t end() const { return start_ + buffer_.size(); }

  void fill() {
    const auto old_size = buffer_.size();
    buffer_.resize(old_size + chunk_);
    const auto count = read_(end() - chunk_, buffer_.data() + old_size, chunk_);
    buffer_.resize(old_size + count);
    if (count == 0) at_end_ = true;
  }

  const ReadAt& read_;
  const WriteOut& write_;
  std::size_t chunk_;
  std::string buffer_;       // the source's bytes [start_, end())
  std::uint64_t start_ = 0;
  bool at_end_ = false;
  std::uint64_t written_ = 0;  // the output cursor, as an offset in the source
  std::string scratch_;
};

// Holds back the start of a text file's output until its first line is
// complete, so shorten_long_shebang sees the whole line. A first line
// longer than kMaxHeldLine (no real interpreter path is) is let through as
// it is, to keep memory bounded.
class ShebangFilter {
 public:
  static constexpr std::size_t kMaxHeldLine = 1u << 20;

  explicit ShebangFilter(const WriteOut& write) : write_(write) {}

  void operator()(std::string_view bytes) {
    if (passing_) {
      write_(bytes);
      return;
    }
    held_.append(bytes);
    if (held_.size() >= 2 && !held_.starts_with("#!")) {
      release(false);
    } else if (held_.find_first_of("\r\n") != std::string::npos) {
      release(true);
    } else if (held_.size() > kMaxHeldLine) {
      release(false);
    }
  }

  void finish() {
    if (!passing_) release(true);
  }

 private:
  void release(bool rewrite) {
    passing_ = true;
    write_(rewrite ? shorten_long_shebang(std::move(held_)) : held_);
    held_.clear();
    held_.shrink_to_fit();
  }

  const WriteOut& write_;
  std::string held_;
  bool passing_ = false;
};

void stream_text(SourceWindow& source, const WriteOut& write, std::string_view placeholder,
                 std::string_view new_prefix) {
  std::uint64_t position = 0;
  while (const auto found = source.find(position, placeholder, true)) {
    source.copy_to(*found);
    write(new_prefix);
    position = *found + placeholder.size();
    source.skip_to(position);
  }
  source.copy_rest();
}

bool stream_binary(SourceWindow& source, const WriteOut& write, std::string_view placeholder,
                   std::string_view new_prefix) {
  std::uint64_t position = 0;
  while (const auto found = source.find(position, placeholder, true)) {
    const auto end = source.find(*found, std::string_view("\0", 1), false);
    if (!end) break;
    if (new_prefix.size() > placeholder.size()) return false;
    source.copy_to(*found);
    std::uint64_t occurrences = 0;
    std::uint64_t piece = *found;
    while (const auto next = source.find(piece, placeholder, false, *end)) {
      source.copy_to(*next);
      write(new_prefix);
      piece = *next + placeholder.size();
      source.skip_to(piece);
      ++occurrences;
    }
    source.copy_to(*end);
    const std::string padding(placeholder.size() - new_prefix.size(), '\0');
    for (std::uint64_t i = 0; i < occurrences; ++i) write(padding);
    position = *end;
  }
  source.copy_rest();
  return true;
}

}  // namespace

bool stream_prefix_replacement(const ReadAt& read, const WriteOut& write,
                               std::string_view placeholder, std::string_view new_prefix,
                               bool binary, std::size_t chunk) {
  if (binary) {
    SourceWindow source(read, write, chunk);
    if (placeholder.empty()) {
      source.copy_rest();
      return true;
    }
    return stream_binary(source, write, placeholder, new_prefix);
  }
  ShebangFilter filter(write);
  const WriteOut filtered = [&](std::string_view bytes) { filter(bytes); };
  SourceWindow source(read, filtered, chunk);
  if (placeholder.empty()) {
    source.copy_rest();
  } else {
    stream_text(source, filtered, placeholder, new_prefix);
  }
  filter.finish();
  return true;
}

}  // namespace gpuenv::prefix
