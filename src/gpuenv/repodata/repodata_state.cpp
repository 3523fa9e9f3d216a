#include "gpuenv/repodata/repodata_state.hpp"

#include <fmt/format.h>

#include <charconv>
#include <ctime>
#include <nlohmann/json.hpp>

namespace gpuenv::repodata {
namespace {

using nanoseconds_since_epoch = std::int64_t;

nanoseconds_since_epoch to_ns(std::chrono::system_clock::time_point time) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(time.time_since_epoch()).count();
}

std::chrono::system_clock::time_point from_ns(nanoseconds_since_epoch ns) {
  return std::chrono::system_clock::time_point(
      std::chrono::duration_cast<std::chrono::system_clock::duration>(std::chrono::nanoseconds(ns)));
}

std::string lowercase(std::string_view text) {
  std::string lower(text);
  for (char& c : lower) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return lower;
}

}  // namespace

std::string format_utc_timestamp(std::chrono::system_clock::time_point time) {
  const auto micros =
      std::chrono::duration_cast<std::chrono::microseconds>(time.time_since_epoch()).count();
  const std::time_t seconds = static_cast<std::time_t>(micros / 1'000'000);
  std::tm utc{};
  ::gmtime_r(&seconds, &utc);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:06}Z", utc.tm_year + 1900,
                     utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec,
                     micros % 1'000'000);
}

std::optional<std::chrono::system_clock::time_point> parse_utc_timestamp(std::string_view text) {
  std::tm utc{};
  int consumed = 0;
  const std::string copy(text);
  if (std::sscanf(copy.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%n", &utc.tm_year, &utc.tm_mon,
                  &utc.tm_mday, &utc.tm_hour, &utc.tm_min, &utc.tm_sec, &consumed) != 6) {
    return std::nullopt;
  }
  utc.tm_year -= 1900;
  utc.tm_mon -= 1;
  std::int64_t micros = 0;
  std::string_view rest = std::string_view(copy).substr(static_cast<std::size_t>(consumed));
  if (!rest.empty() && rest.front() == '.') {
    rest.remove_prefix(1);
    int digits = 0;
    while (!rest.empty() && rest.front() >= '0' && rest.front() <= '9') {
      if (digits < 6) {
        micros = micros * 10 + (rest.front() - '0');
        ++digits;
      }
      rest.remove_prefix(1);
    }
    for (; digits < 6; ++digits) micros *= 10;
  }
  // conda writes "Z"; "+00:00" is what Python's isoformat() gives for UTC.
  if (rest != "Z" && rest != "+00:00" && !rest.empty()) return std::nullopt;
  const std::time_t seconds = ::timegm(&utc);
  return std::chrono::system_clock::from_time_t(seconds) + std::chrono::microseconds(micros);
}

std::string serialize_state(const RepodataState& state) {
  nlohmann::ordered_json json;
  json["url"] = state.url;
  json["etag"] = state.etag;
  json["mod"] = state.mod;
  json["cache_control"] = state.cache_control;
  json["size"] = state.size;
  json["mtime_ns"] = state.mtime_ns;
  json["refresh_ns"] = to_ns(state.refreshed);
  if (state.has_zst) {
    json["has_zst"] = {{"value", state.has_zst->available},
                       {"last_checked", format_utc_timestamp(state.has_zst->last_checked)}};
  }
  return json.dump(2) + "\n";
}

std::expected<RepodataState, std::string> parse_state(std::string_view text) {
  const auto json = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!json.is_object()) return std::unexpected(std::string("the state file is not a JSON object"));
  RepodataState state;
  try {
    state.url = json.at("url").get<std::string>();
    state.etag = json.value("etag", "");
    state.mod = json.value("mod", "");
    state.cache_control = json.value("cache_control", "");
    state.size = json.at("size").get<std::uint64_t>();
    state.mtime_ns = json.at("mtime_ns").get<std::int64_t>();
    state.refreshed = from_ns(json.value("refresh_ns", std::int64_t{0}));
    if (const auto has_zst = json.find("has_zst"); has_zst != json.end() && has_zst->is_object()) {
      const auto checked = parse_utc_timestamp(has_zst->value("last_checked", ""));
      if (checked) state.has_zst = VariantAvailability{has_zst->value("value", false), *checked};
    }
  } catch (const nlohmann::json::exception& error) {
    return std::unexpected(std::string("the state file lacks a field or has a wrong type (") +
                           error.what() + ")");
  }
  return state;
}

std::optional<std::chrono::seconds> cache_control_max_age(std::string_view cache_control) {
  const std::string lower = lowercase(cache_control);
  if (lower.find("no-cache") != std::string::npos || lower.find("no-store") != std::string::npos) {
    return std::chrono::seconds(0);
  }
  const auto at = lower.find("max-age=");
  if (at == std::string::npos) return std::nullopt;
  const char* begin = lower.data() + at + 8;
  const char* end = lower.data() + lower.size();
  if (begin != end && *begin == '"') ++begin;  // max-age="60" is seen in the wild
  long long seconds = 0;
  const auto [stop, error] = std::from_chars(begin, end, seconds);
  if (error != std::errc() || stop == begin || seconds < 0) return std::nullopt;
  return std::chrono::seconds(seconds);
}

bool is_fresh(const RepodataState& state, std::optional<std::chrono::seconds> ttl,
              std::chrono::system_clock::time_point now) {
  const auto lifetime = ttl ? *ttl : cache_control_max_age(state.cache_control).value_or(
                                         std::chrono::seconds(0));
  const auto age = now - state.refreshed;
  return age >= std::chrono::seconds(0) && age < lifetime;
}

}  // namespace gpuenv::repodata
