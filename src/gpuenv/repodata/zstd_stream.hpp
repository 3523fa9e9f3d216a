// Streaming zstd decompression: repodata.json.zst is decoded while it
// arrives, so hundreds of MB of JSON never sit in memory at once.
#pragma once

#include <expected>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuenv::repodata {

class ZstdDecompressor {
 public:
  // Receives decoded bytes; returning false stops decoding (the sink failed).
  using Sink = std::function<bool(std::string_view)>;

  ZstdDecompressor();
  ~ZstdDecompressor();
  ZstdDecompressor(const ZstdDecompressor&) = delete;
  ZstdDecompressor& operator=(const ZstdDecompressor&) = delete;

  // Decodes the next piece of compressed input. Fails on corrupt data, or
  // when the sink refused output ("" then: the sink knows why).
  std::expected<void, std::string> feed(std::string_view compressed, const Sink& sink);

  // True when the input so far ends exactly where a frame ends. A stream cut
  // short inside a frame is false even though every byte so far decoded.
  bool at_frame_end() const { return fed_any_ && last_hint_ == 0; }

 private:
  struct Context;
  std::unique_ptr<Context> context_;
  std::vector<char> output_;
  bool fed_any_ = false;
  std::size_t last_hint_ = 1;
};

// The decompressed size the first frame's header declares, when it does
// (zstd writes it for one-shot compression): a hint for reserving memory,
// never a promise -- the data may still decode to something else.
std::optional<std::size_t> zstd_declared_size(std::string_view compressed);

// Compresses `data` as one zstd frame (channel index writers publish
// repodata.json.zst with it).
std::string zstd_compress(std::string_view data, int level = 19);

}  // namespace gpuenv::repodata
