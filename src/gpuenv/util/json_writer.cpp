#include "gpuenv/util/json_writer.hpp"

#include <charconv>
#include <stdexcept>

namespace gpuenv::util {

namespace {

// The length of the UTF-8 sequence starting at text[at], or 0 when the
// bytes there are not a well-formed sequence (overlong forms, surrogates
// and code points above U+10FFFF included, as RFC 3629 says).
std::size_t utf8_sequence_length(std::string_view text, std::size_t at) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  const auto lead = byte(at);
  std::size_t length = 0;
  unsigned char low = 0x80, high = 0xBF;  // the allowed range of the second byte
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) low = 0xA0;
    if (lead == 0xED) high = 0x9F;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) low = 0x90;
    if (lead == 0xF4) high = 0x8F;
  } else {
    return 0;
  }
  if (at + length > text.size()) return 0;
  if (byte(at + 1) < low || byte(at + 1) > high) return 0;
  for (std::size_t i = 2; i < length; ++i) {
    if (byte(at + i) < 0x80 || byte(at + i) > 0xBF) return 0;
  }
  return length;
}

bool needs_escape(unsigned char c) { return c < 0x20 || c == '"' || c == '\\' || c >= 0x80; }

}  // namespace

void append_json_string(std::string& out, std::string_view text) {
  out.push_back('"');
  std::size_t plain_start = 0;
  std::size_t i = 0;
  while (i < text.size()) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (!needs_escape(c)) {
      ++i;
      continue;
    }
    if (c >= 0x80) {  // multi-byte UTF-8 is written as it is, once checked
      const auto length = utf8_sequence_length(text, i);
      if (length == 0) {
        throw std::invalid_argument("the text '" + std::string(text.substr(0, 200)) +
                                    "' is not valid UTF-8 and cannot be written as JSON");
      }
      i += length;
      continue;
    }
    out.append(text.substr(plain_start, i - plain_start));
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\t': out += "\\t"; break;
      case '\n': out += "\\n"; break;
      case '\f': out += "\\f"; break;
      case '\r': out += "\\r"; break;
      default: {
        static constexpr char kHex[] = "0123456789abcdef";
        out += "\\u00";
        out.push_back(kHex[c >> 4]);
        out.push_back(kHex[c & 0xF]);
      }
    }
    plain_start = ++i;
  }
  out.append(text.substr(plain_start));
  out.push_back('"');
}

void JsonWriter::newline_and_indent(std::size_t depth) {
  if (indent_step_ < 0) return;
  out_.push_back('\n');
  out_.append(depth * static_cast<std::size_t>(indent_step_), ' ');
}

void JsonWriter::before_value() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (levels_.empty()) return;
  auto& level = levels_.back();
  if (level.object) throw std::logic_error("JsonWriter: a value inside an object needs a key first");
  if (!level.empty) out_.push_back(',');
  level.empty = false;
  newline_and_indent(levels_.size());
}

void JsonWriter::key(std::string_view name) {
  if (levels_.empty() || !levels_.back().object || after_key_) {
    throw std::logic_error("JsonWriter: a key belongs directly inside an object");
  }
  auto& level = levels_.back();
  if (!level.empty) out_.push_back(',');
  level.empty = false;
  newline_and_indent(levels_.size());
  append_json_string(out_, name);
  out_ += indent_step_ < 0 ? ":" : ": ";
  after_key_ = true;
}

void JsonWriter::open(char bracket, bool object) {
  before_value();
  out_.push_back(bracket);
  levels_.push_back({object, true});
}

void JsonWriter::close(char bracket) {
  if (levels_.empty() || after_key_ || levels_.back().object != (bracket == '}')) {
    throw std::logic_error("JsonWriter: unbalanced close");
  }
  const bool empty = levels_.back().empty;
  levels_.pop_back();
  if (!empty) newline_and_indent(levels_.size());
  out_.push_back(bracket);
}

void JsonWriter::begin_object() { open('{', true); }
void JsonWriter::end_object() { close('}'); }
void JsonWriter::begin_array() { open('[', false); }
void JsonWriter::end_array() { close(']'); }

void JsonWriter::string(std::string_view text) {
  before_value();
  append_json_string(out_, text);
}

void JsonWriter::integer(std::int64_t number) {
  before_value();
  char buffer[24];
  const auto end = std::to_chars(buffer, buffer + sizeof buffer, number).ptr;
  out_.append(buffer, end);
}

void JsonWriter::unsigned_integer(std::uint64_t number) {
  before_value();
  char buffer[24];
  const auto end = std::to_chars(buffer, buffer + sizeof buffer, number).ptr;
  out_.append(buffer, end);
}

void JsonWriter::boolean(bool value) {
  before_value();
  out_ += value ? "true" : "false";
}

void JsonWriter::null() {
  before_value();
  out_ += "null";
}

void JsonWriter::raw(std::string_view json) {
  before_value();
  out_.append(json);
}

void JsonWriter::field(std::string_view name, const std::vector<std::string>& texts) {
  key(name);
  begin_array();
  for (const auto& text : texts) string(text);
  end_array();
}

}  // namespace gpuenv::util
