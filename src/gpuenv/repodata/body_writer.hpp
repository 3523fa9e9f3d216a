// Receives one repodata body (raw JSON or a zstd stream), writes the decoded
// JSON to a PartialFile and checks, as it goes and at the end, that it is a
// complete repodata document. Only a body that passed every check may be
// committed into the cache, so a bad response never replaces a good entry.
#pragma once

#include <cstdint>
#include <expected>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "gpuenv/repodata/file_growth.hpp"
#include "gpuenv/repodata/partial_file.hpp"
#include "gpuenv/repodata/zstd_stream.hpp"

namespace gpuenv::repodata {

// Tracks the first and last non-whitespace bytes of a stream: a repodata
// document starts with '{' and ends with '}'. A cut-off download almost never
// ends exactly at the final '}', and an HTML error page never starts with '{'.
// (Parsing the whole document is the loader's job; this check is cheap.)
class JsonObjectShape {
 public:
  void feed(std::string_view bytes);
  // Why the stream so far is not shaped like a JSON object; nullopt if it is.
  std::optional<std::string> problem() const;

 private:
  char first_ = '\0';
  char last_ = '\0';
  std::string head_;  // the first bytes, quoted in messages
};

// Why a body was rejected; `retryable` when a fresh attempt may succeed
// (the bytes were cut short in transit), not when the server sent them so.
struct BodyProblem {
  std::string message;
  bool retryable = false;
  bool local_io = false;  // the cache disk failed, not the server
};

class RepodataBodyWriter {
 public:
  // A decoded body larger than this is refused: conda-forge's biggest subdir
  // is ~0.3 GB of JSON; a server sending more (endless JSON, a zstd bomb)
  // would otherwise fill the cache disk.
  static constexpr std::uint64_t kMaxJsonBytes = std::uint64_t{4} << 30;

  RepodataBodyWriter(PartialFile file, bool zstd_compressed, std::uint64_t max_json_bytes = kMaxJsonBytes);
  // A writer dropped before finish() succeeded abandons the growth it reports to.
  ~RepodataBodyWriter();
  RepodataBodyWriter(const RepodataBodyWriter&) = delete;
  RepodataBodyWriter& operator=(const RepodataBodyWriter&) = delete;

  // Tells `growth` how much JSON the file holds as it grows, and at the end
  // whether it is complete (finish() succeeded) or abandoned, so that a
  // reader can parse the file while it downloads.
  void report_growth_to(std::shared_ptr<FileGrowth> growth) { growth_ = std::move(growth); }

  // Consumes the next piece of the body; false aborts the transfer, and
  // problem() then says why.
  bool write(std::string_view bytes);

  // Checks the whole body once the transfer ended: the byte count against
  // the announced Content-Length, a complete zstd frame, the JSON shape.
  std::expected<void, BodyProblem> finish(std::uint64_t bytes_on_wire,
                                          std::optional<std::uint64_t> content_length);

  const std::optional<BodyProblem>& problem() const { return problem_; }
  std::uint64_t body_bytes() const { return body_bytes_; }
  std::uint64_t json_bytes() const { return file_.bytes_written(); }
  // The checked file, ready to commit (only after finish() succeeded).
  PartialFile take_file() { return std::move(file_); }

 private:
  bool write_json(std::string_view json);

  PartialFile file_;
  std::unique_ptr<ZstdDecompressor> decompressor_;
  JsonObjectShape shape_;
  std::uint64_t body_bytes_ = 0;
  std::optional<BodyProblem> problem_;
  std::shared_ptr<FileGrowth> growth_;
  std::uint64_t max_json_bytes_;
};

}  // namespace gpuenv::repodata
