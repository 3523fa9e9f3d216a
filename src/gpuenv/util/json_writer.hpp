#pragma once
// A streaming JSON writer laid out exactly as nlohmann's dump(2) and
// Python's json.dumps(indent=2) lay it out, for the files gpuenv writes
// often and large (conda-meta records: one per package, each listing every
// file). Building an nlohmann::json tree for those and dumping it cost a
// fifth of a warm install's CPU; this writes straight into one string.
// Keys are written in the order the caller gives: a caller that must match
// a sorted dump writes them sorted.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gpuenv::util {

// Appends `text` as a quoted JSON string, escaped as nlohmann's dump does
// (\b \t \n \f \r \" \\, other control characters as \u00xx, UTF-8 kept).
// Throws std::invalid_argument when `text` is not valid UTF-8: JSON cannot
// carry it, and guessing an encoding would write a name nobody can find.
void append_json_string(std::string& out, std::string_view text);

class JsonWriter {
 public:
  // indent_step < 0: compact, as nlohmann's dump() (one line, no spaces).
  explicit JsonWriter(std::string& out, int indent_step = 2) : out_(out), indent_step_(indent_step) {}

  void begin_object();
  void end_object();
  void begin_array();
  void end_array();
  // The key of the next value inside an object.
  void key(std::string_view name);

  void string(std::string_view text);
  void integer(std::int64_t number);
  void unsigned_integer(std::uint64_t number);
  void boolean(bool value);
  void null();
  // A value already serialised on one line (a number nlohmann formatted).
  void raw(std::string_view json);

  // Shorthands for `key(name)` followed by the value.
  void field(std::string_view name, std::string_view text) { key(name), string(text); }
  void field(std::string_view name, const char* text) { key(name), string(text); }
  void field(std::string_view name, std::uint64_t number) { key(name), unsigned_integer(number); }
  void field(std::string_view name, bool value) { key(name), boolean(value); }
  void field(std::string_view name, const std::vector<std::string>& texts);

 private:
  struct Level {
    bool object = false;
    bool empty = true;
  };
  void before_value();
  void open(char bracket, bool object);
  void close(char bracket);
  void newline_and_indent(std::size_t depth);

  std::string& out_;
  int indent_step_;
  std::vector<Level> levels_;
  bool after_key_ = false;
};

}  // namespace gpuenv::util
