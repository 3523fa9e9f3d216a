// Internal to the repodata module: reading simdjson On-Demand values
// (simdjson 3.0 API) without copying. Strings without escapes -- nearly all
// of repodata -- are returned as views into the input document, so the
// parser's string buffer is only touched by the rare escaped string.
#pragma once

#include <simdjson.h>

#include <cstdint>
#include <cstring>
#include <utility>
#include <string_view>
#include <vector>

namespace gpuenv::repodata::json {

namespace ondemand = simdjson::ondemand;

// Errors that concern one value only: the document is still well formed and
// parsing may continue with the next field.
inline bool is_value_error(simdjson::error_code error) noexcept {
  return error == simdjson::INCORRECT_TYPE || error == simdjson::NUMBER_ERROR ||
         error == simdjson::NUMBER_OUT_OF_RANGE;
}

// Whether [text, text + size) holds a backslash, eight bytes at a time. May
// read up to 7 bytes past the end: simdjson inputs are padded.
inline bool has_backslash(const char* text, std::size_t size) noexcept {
  constexpr std::uint64_t ones = 0x0101010101010101ull;
  constexpr std::uint64_t highs = 0x8080808080808080ull;
  std::size_t i = 0;
  for (; i + 8 <= size; i += 8) {
    std::uint64_t word;
    std::memcpy(&word, text + i, 8);
    word ^= 0x5c5c5c5c5c5c5c5cull;  // backslashes become zero bytes
    if (((word - ones) & ~word & highs) != 0) return true;
  }
  for (; i < size; ++i) {
    if (text[i] == '\\') return true;
  }
  return false;
}

// The string inside a raw string token (`"abc"` followed by any
// whitespace), or an error when the token is not a string.
inline simdjson::error_code string_in_token(std::string_view token, std::string_view& inner) noexcept {
  if (token.empty() || token.front() != '"') return simdjson::INCORRECT_TYPE;
  std::size_t close = token.size() - 1;
  while (close > 0 && token[close] != '"') --close;
  if (close == 0) return simdjson::STRING_ERROR;
  inner = token.substr(1, close - 1);
  return simdjson::SUCCESS;
}

// A string value as a view: into the input when it has no escapes, else
// unescaped into the parser's buffer (valid until the next document).
inline simdjson::error_code read_string(ondemand::value& value, std::string_view& out) noexcept {
  // The token runs to the next structural character: the closing quote
  // followed by any whitespace.
  std::string_view inner;
  if (auto error = string_in_token(value.raw_json_token(), inner)) return error;
  if (!has_backslash(inner.data(), inner.size())) {
    out = inner;
    return simdjson::SUCCESS;
  }
  return value.get_string().get(out);
}

// A string, or null (read as empty).
inline simdjson::error_code read_optional_string(ondemand::value& value,
                                                 std::string_view& out) noexcept {
  const std::string_view token = value.raw_json_token();
  if (!token.empty() && token.front() == 'n') {
    bool is_null = false;
    if (auto error = value.is_null().get(is_null)) return error;
    if (!is_null) return simdjson::INCORRECT_TYPE;
    out = {};
    return simdjson::SUCCESS;
  }
  std::string_view inner;
  if (auto error = string_in_token(token, inner)) return error;
  if (!has_backslash(inner.data(), inner.size())) {
    out = inner;
    return simdjson::SUCCESS;
  }
  return value.get_string().get(out);
}

// A non-negative integer. Old repodata wrote some numbers as floats
// (`"timestamp": 1.5e12`) or as strings; both are accepted.
inline simdjson::error_code read_unsigned(ondemand::value& value, std::uint64_t& out) noexcept {
  // Nearly always a plain integer: try that before asking for the type.
  if (value.get_uint64().get(out) == simdjson::SUCCESS) return simdjson::SUCCESS;
  ondemand::json_type type;
  if (auto error = value.type().get(type)) return error;
  if (type == ondemand::json_type::string) {
    std::string_view text;
    if (auto error = read_string(value, text)) return error;
    std::uint64_t number = 0;
    if (text.empty()) return simdjson::INCORRECT_TYPE;
    for (const char c : text) {
      if (c < '0' || c > '9') return simdjson::INCORRECT_TYPE;
      number = number * 10 + static_cast<std::uint64_t>(c - '0');
    }
    out = number;
    return simdjson::SUCCESS;
  }
  if (type != ondemand::json_type::number) return simdjson::INCORRECT_TYPE;
  auto as_integer = value.get_uint64();
  if (!as_integer.error()) {
    out = as_integer.value_unsafe();
    return simdjson::SUCCESS;
  }
  double number = 0;
  if (auto error = value.get_double().get(number)) return error;
  if (!(number >= 0) || number > 1.8e19) return simdjson::NUMBER_OUT_OF_RANGE;
  out = static_cast<std::uint64_t>(number);
  return simdjson::SUCCESS;
}

// An array of strings (null reads as empty) appended to `out`.
inline simdjson::error_code read_string_array(ondemand::value& value,
                                              std::vector<std::string_view>& out) {
  ondemand::json_type type;
  if (auto error = value.type().get(type)) return error;
  if (type == ondemand::json_type::null) return simdjson::SUCCESS;
  ondemand::array array;
  if (auto error = value.get_array().get(array)) return error;
  for (auto element_result : array) {
    ondemand::value element;
    if (auto error = std::move(element_result).get(element)) return error;
    std::string_view text;
    if (auto error = read_string(element, text)) return error;
    out.push_back(text);
  }
  return simdjson::SUCCESS;
}

// conda's feature lists: "a b", "a,b", or an array of such strings; split
// at spaces and commas, empties dropped.
inline void split_features_into(std::string_view text, std::vector<std::string_view>& out) {
  std::size_t start = 0;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    if (i == text.size() || text[i] == ' ' || text[i] == ',' || text[i] == '\t') {
      if (i > start) out.push_back(text.substr(start, i - start));
      start = i + 1;
    }
  }
}

inline simdjson::error_code read_features(ondemand::value& value,
                                          std::vector<std::string_view>& out) {
  ondemand::json_type type;
  if (auto error = value.type().get(type)) return error;
  if (type == ondemand::json_type::null) return simdjson::SUCCESS;
  if (type == ondemand::json_type::string) {
    std::string_view text;
    if (auto error = read_string(value, text)) return error;
    split_features_into(text, out);
    return simdjson::SUCCESS;
  }
  std::vector<std::string_view> items;
  if (auto error = read_string_array(value, items)) return error;
  for (const auto item : items) split_features_into(item, out);
  return simdjson::SUCCESS;
}

// An object key as a view into the input; empty when the key is escaped
// (no key gpuenv reads is).
inline std::string_view raw_key(ondemand::field& field) noexcept {
  const char* begin = field.key().raw();
  const char* end = begin;
  while (*end != '"') {
    if (*end == '\\') return {};
    ++end;
  }
  return {begin, static_cast<std::size_t>(end - begin)};
}

}  // namespace gpuenv::repodata::json
