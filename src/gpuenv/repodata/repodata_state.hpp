// What gpuenv remembers about one cached repodata.json: the HTTP validators
// for conditional requests and the file it describes. Stored beside the JSON
// as <key>.state.json in the field layout conda (>= 23.1) and mamba use for
// their cache state, so the files are familiar to anyone debugging a cache.
#pragma once

#include <chrono>
#include <cstdint>
#include <expected>
#include <optional>
#include <string>
#include <string_view>

namespace gpuenv::repodata {

// Whether a variant of the file (repodata.json.zst) exists on the server,
// and when that was last asked: a 404 is remembered for a while so each run
// does not pay for a failing request first.
struct VariantAvailability {
  bool available = false;
  std::chrono::system_clock::time_point last_checked;

  friend bool operator==(const VariantAvailability&, const VariantAvailability&) = default;
};

struct RepodataState {
  std::string url;            // the URL the JSON came from (.../repodata.json[.zst])
  std::string etag;           // ETag response header, sent back as If-None-Match
  std::string mod;            // Last-Modified header, sent back as If-Modified-Since
  std::string cache_control;  // Cache-Control header, for max-age freshness
  std::uint64_t size = 0;     // size of the cached JSON file...
  std::int64_t mtime_ns = 0;  // ...and its mtime: a state that disagrees with the file is stale
  std::chrono::system_clock::time_point refreshed;  // last time the server confirmed the data
  std::optional<VariantAvailability> has_zst;

  friend bool operator==(const RepodataState&, const RepodataState&) = default;
};

std::string serialize_state(const RepodataState& state);
std::expected<RepodataState, std::string> parse_state(std::string_view json);

// max-age from a Cache-Control header; 0 for no-cache / no-store; nullopt
// when the header says nothing about freshness.
std::optional<std::chrono::seconds> cache_control_max_age(std::string_view cache_control);

// Whether the cached data may be used without asking the server: younger
// than `ttl` when one is configured, else than the server's max-age.
bool is_fresh(const RepodataState& state, std::optional<std::chrono::seconds> ttl,
              std::chrono::system_clock::time_point now);

// "2024-02-20T12:34:56.789012Z", the timestamp format conda writes.
std::string format_utc_timestamp(std::chrono::system_clock::time_point time);
std::optional<std::chrono::system_clock::time_point> parse_utc_timestamp(std::string_view text);

}  // namespace gpuenv::repodata
