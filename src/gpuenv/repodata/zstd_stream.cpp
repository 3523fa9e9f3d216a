#include "gpuenv/repodata/zstd_stream.hpp"

#include <zstd.h>

#include <limits>
#include <stdexcept>

namespace gpuenv::repodata {

struct ZstdDecompressor::Context {
  ZSTD_DCtx* dctx = ZSTD_createDCtx();
  ~Context() { ZSTD_freeDCtx(dctx); }
};

ZstdDecompressor::ZstdDecompressor()
    : context_(std::make_unique<Context>()), output_(ZSTD_DStreamOutSize()) {
  if (context_->dctx == nullptr) throw std::bad_alloc();
  // The default window limit (128 MiB) is kept on purpose: it bounds the
  // memory a hostile server can make us allocate, and conda-index and
  // rattler-index write frames well inside it.
}

ZstdDecompressor::~ZstdDecompressor() = default;

std::expected<void, std::string> ZstdDecompressor::feed(std::string_view compressed,
                                                        const Sink& sink) {
  if (!compressed.empty()) fed_any_ = true;
  ZSTD_inBuffer in{compressed.data(), compressed.size(), 0};
  for (;;) {
    ZSTD_outBuffer out{output_.data(), output_.size(), 0};
    const std::size_t hint = ZSTD_decompressStream(context_->dctx, &out, &in);
    if (ZSTD_isError(hint)) {
      return std::unexpected(std::string("corrupt zstd data (") + ZSTD_getErrorName(hint) + ")");
    }
    if (out.pos > 0 && !sink(std::string_view(output_.data(), out.pos))) {
      return std::unexpected(std::string());
    }
    last_hint_ = hint;
    if (in.pos < in.size) continue;
    // A full output buffer in the middle of a frame means the decoder may
    // still hold decoded bytes; once a frame ended (hint 0) nothing is held.
    if (out.pos == out.size && hint != 0) continue;
    break;
  }
  return {};
}

std::optional<std::size_t> zstd_declared_size(std::string_view compressed) {
  const unsigned long long size = ZSTD_getFrameContentSize(compressed.data(), compressed.size());
  if (size == ZSTD_CONTENTSIZE_UNKNOWN || size == ZSTD_CONTENTSIZE_ERROR) return std::nullopt;
  if (size > std::numeric_limits<std::size_t>::max()) return std::nullopt;
  return static_cast<std::size_t>(size);
}

std::string zstd_compress(std::string_view data, int level) {
  std::string compressed(ZSTD_compressBound(data.size()), '\0');
  const std::size_t size =
      ZSTD_compress(compressed.data(), compressed.size(), data.data(), data.size(), level);
  if (ZSTD_isError(size)) {
    throw std::runtime_error(std::string("zstd compression failed: ") + ZSTD_getErrorName(size));
  }
  compressed.resize(size);
  return compressed;
}

}  // namespace gpuenv::repodata
