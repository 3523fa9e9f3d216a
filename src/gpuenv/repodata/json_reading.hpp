// Internal to the repodata module: reading simdjson On-Demand values
// (simdjson 3.0 API) without copying. Strings without escapes -- nearly all
// of repodata -- are returned as views into the input document, so the
// parser's string buffer is only touched by the rare escaped string.
#pragma once

#include <simdjson.h>

#include <cstdint>
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

// A string value as a view: into the input when it has no escapes, else
// unescaped into the parser's buffer (valid until the next document).
inline simdjson::error_code read_string(ondemand::value& value, std::string_view& out) noexcept {
  const std::string_view token = value.raw_json_token();
  if (token.empty() || token.front() != '"') return simdjson::INCORRECT_TYPE;
  // The token runs to the next structural character: the closing quote
  // followed by any whitespace.
  const auto close = token.find_last_of('"');
  if (close == 0) return simdjson::STRING_ERROR;
  const std::string_view inner = token.substr(1, close - 1);
  if (inner.find('\\') == std::string_view::npos) {
    out = inner;
    return simdjson::SUCCESS;
  }
  return value.get_string().get(out);
}

// A string, or null (read as empty).
inline simdjson::error_code read_optional_string(ondemand::value& value,
                                                 std::string_view& out) noexcept {
  ondemand::json_type type;
  if (auto error = value.type().get(type)) return error;
  if (type == ondemand::json_type::null) {
    out = {};
    return simdjson::SUCCESS;
  }
  return read_string(value, out);
}

// A non-negative integer. Old repodata wrote some numbers as floats
// (`"timestamp": 1.5e12`) or as strings; both are accepted.
inline simdjson::error_code read_unsigned(ondemand::value& value, std::uint64_t& out) noexcept {
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
