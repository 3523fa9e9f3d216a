// util::JsonWriter lays JSON out byte for byte as nlohmann's dump(2) does,
// which is what conda-meta records have always been written with: the
// reference here is nlohmann itself.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <stdexcept>

#include "gpuenv/util/json_writer.hpp"

namespace gpuenv::util {
namespace {

// Writes `value` through the writer, walking it as a caller would.
void write(JsonWriter& writer, const nlohmann::json& value) {
  switch (value.type()) {
    case nlohmann::json::value_t::object:
      writer.begin_object();
      for (auto it = value.begin(); it != value.end(); ++it) {
        writer.key(it.key());
        write(writer, it.value());
      }
      writer.end_object();
      break;
    case nlohmann::json::value_t::array:
      writer.begin_array();
      for (const auto& item : value) write(writer, item);
      writer.end_array();
      break;
    case nlohmann::json::value_t::string: writer.string(value.get<std::string>()); break;
    case nlohmann::json::value_t::boolean: writer.boolean(value.get<bool>()); break;
    case nlohmann::json::value_t::number_integer: writer.integer(value.get<std::int64_t>()); break;
    case nlohmann::json::value_t::number_unsigned:
      writer.unsigned_integer(value.get<std::uint64_t>());
      break;
    case nlohmann::json::value_t::null: writer.null(); break;
    default: writer.raw(value.dump()); break;
  }
}

std::string written(const nlohmann::json& value, int indent_step = 2) {
  std::string out;
  JsonWriter writer(out, indent_step);
  write(writer, value);
  return out;
}

TEST(JsonWriter, LaysOutAsNlohmannsDumpWithIndentTwo) {
  const auto value = nlohmann::json::parse(R"({
    "name": "zlib", "build_number": 0, "size": 18446744073709551615, "delta": -12,
    "depends": ["libgcc >=13", "__glibc >=2.17"], "constrains": [], "link": {},
    "paths_data": {"paths": [{"_path": "lib/libz.so", "no_link": true, "x": null},
                              {"_path": "a b/\u00e9\u4e2d\ud83d\ude00"}], "paths_version": 1},
    "nested": [[], [[1, 2], {}], {"a": [true, false]}], "ratio": 0.5
  })");
  EXPECT_EQ(written(value), value.dump(2));
  EXPECT_EQ(written(value, -1), value.dump());
  EXPECT_EQ(written(nlohmann::json::array()), "[]");
  EXPECT_EQ(written(nlohmann::json::object()), "{}");
  EXPECT_EQ(written("plain"), "\"plain\"");
}

TEST(JsonWriter, EscapesAsNlohmannDoes) {
  std::string every_control_character;
  for (char c = 1; c < 0x20; ++c) every_control_character.push_back(c);
  for (const std::string& text :
       {std::string("quote \" backslash \\ slash /"), every_control_character,
        std::string("nul \0 inside", 12), std::string("delete \x7f stays"),
        std::string("utf-8 \xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 at the end \xc3\xa9")}) {
    std::string out;
    append_json_string(out, text);
    EXPECT_EQ(out, nlohmann::json(text).dump()) << text;
  }
}

TEST(JsonWriter, RefusesTextThatIsNotUtf8) {
  // Each is refused by nlohmann too (type_error 316); none may be written.
  for (const std::string text : {"\xff", "\xc0\xaf", "\xe0\x80\xaf", "\xed\xa0\x80",
                                 "\xf4\x90\x80\x80", "\xe2\x82", "ok \x80", "\xf0\x9f\x98"}) {
    std::string out;
    EXPECT_THROW(append_json_string(out, text), std::invalid_argument) << text;
    EXPECT_THROW((void)nlohmann::json(text).dump(), nlohmann::json::type_error) << text;
  }
}

TEST(JsonWriter, RefusesMisuse) {
  std::string out;
  JsonWriter writer(out);
  writer.begin_object();
  EXPECT_THROW(writer.string("no key"), std::logic_error);
  writer.key("k");
  EXPECT_THROW(writer.key("twice"), std::logic_error);
  writer.boolean(true);
  EXPECT_THROW(writer.end_array(), std::logic_error);
  writer.end_object();
  EXPECT_EQ(out, "{\n  \"k\": true\n}");
  EXPECT_THROW(writer.end_object(), std::logic_error);
}

}  // namespace
}  // namespace gpuenv::util
