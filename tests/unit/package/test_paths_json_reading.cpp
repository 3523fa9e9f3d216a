// paths.json is read with simdjson rather than nlohmann. The reference here
// is the nlohmann reading it replaced,
// field for field with the same lenient json_field rules: both must give
// the same entries, or both refuse, for every document below and for a few
// thousand generated ones.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <random>

#include "gpuenv/package/package_error.hpp"
#include "gpuenv/package/paths_json.hpp"
#include "gpuenv/package/record_json.hpp"

namespace gpuenv::package {
namespace {

// The nlohmann reading (what parse_paths_json did before), less its messages.
std::optional<PathsJson> reference(std::string_view text) {
  nlohmann::json json;
  try {
    json = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error&) {
    return std::nullopt;
  }
  if (!json.is_object() || !json.contains("paths") || !json["paths"].is_array()) return std::nullopt;
  PathsJson paths;
  paths.paths_version = static_cast<int>(json_field::unsigned_integer(json, "paths_version", 1));
  for (const auto& item : json["paths"]) {
    PathEntry entry;
    std::string_view path = json_field::string(item, "_path");
    while (path.starts_with("./")) path.remove_prefix(2);
    entry.path = std::string(path);
    if (!is_safe_relative_path(entry.path)) return std::nullopt;
    const auto type = json_field::string(item, "path_type");
    if (type.empty() || type == "hardlink") {
      entry.path_type = PathType::hardlink;
    } else if (type == "softlink") {
      entry.path_type = PathType::softlink;
    } else if (type == "directory") {
      entry.path_type = PathType::directory;
    } else {
      return std::nullopt;
    }
    entry.file_mode = json_field::string(item, "file_mode") == "binary" ? FileMode::binary : FileMode::text;
    entry.prefix_placeholder = json_field::string(item, "prefix_placeholder");
    entry.no_link = json_field::boolean(item, "no_link");
    entry.sha256 = json_field::string(item, "sha256");
    entry.size_in_bytes = json_field::optional_unsigned(item, "size_in_bytes");
    paths.paths.push_back(std::move(entry));
  }
  return paths;
}

void expect_same(std::string_view text) {
  SCOPED_TRACE(std::string(text));
  const auto expected = reference(text);
  try {
    const auto read = parse_paths_json(text, "paths.json");
    ASSERT_TRUE(expected.has_value()) << "accepted what the nlohmann reading refuses";
    EXPECT_EQ(read.paths_version, expected->paths_version);
    EXPECT_EQ(read.paths, expected->paths);
  } catch (const PackageError&) {
    EXPECT_FALSE(expected.has_value()) << "refused what the nlohmann reading accepts";
  }
}

TEST(PathsJsonReading, ReadsAsTheNlohmannReadingDid) {
  for (const char* text : {
           R"({"paths": [], "paths_version": 1})",
           R"({"paths_version": "2", "paths": [{"_path": "a", "size_in_bytes": "12", "no_link": "True"}]})",
           R"({"paths": [{"_path": "a", "size_in_bytes": 1.5e3, "sha256": 7, "file_mode": "binary",
               "prefix_placeholder": "/opt/x", "path_type": "softlink"}]})",
           R"({"paths": [{"_path": "a", "size_in_bytes": -1, "no_link": false, "extra": {"deep": [1, [2, {}]]}}]})",
           R"({"paths": [{"_path": "a", "sha256": null, "size_in_bytes": null, "no_link": null}]})",
           R"({"paths": [{"_path": "a", "_path": "b"}], "paths": [{"_path": "c"}]})",
           R"({"paths": [{"_path": "a"}], "paths": 3})",
           R"({"paths": {"_path": "a"}})",
           R"({"other": {"paths": [{"_path": "a"}]}, "paths": []})",
           R"({"paths": [3]})",
           R"({"paths": [[{"_path": "a"}]]})",
           R"({"paths": [{"_path": ["a"]}]})",
           R"({"paths": [{"_path": "./a/b"}, {"_path": "x", "path_type": "fifo"}]})",
           R"({"paths": [{"_path": "../a"}]})",
           R"({"paths": [{"_path": "a", "path_type": ""}], "paths_version": [1]})",
           R"({"paths": [{"_path": 12}]})",
           R"([{"paths": []}])",
           R"("paths")",
           R"({"paths": [{"_path": "a"}]} trailing)",
           R"({"paths": [{"_path": "a"})",
           "",
           R"({"paths": [{"_path": "a", "size_in_bytes": 18446744073709551615, "sha256": -9223372036854775808}]})",
           R"({"paths": [{"_path": "a\u00e9\ud83d\ude00", "sha256": "\"\\\/\b\f\n\r\t"}]})",
           R"({"paths": [{"_path": "a", "size_in_bytes": 0.0, "no_link": "true"}]})",
           "{\"paths\": [{\"_path\": \"\xff\"}]}",
           R"({"paths": [{"_path": "a"}], "x": tru})",
       }) {
    expect_same(text);
  }
}

TEST(PathsJsonReading, GeneratedDocumentsReadAsTheNlohmannReadingDid) {
  std::mt19937 random(20261202);
  const std::vector<std::string> keys = {"_path", "path_type", "file_mode", "prefix_placeholder", "no_link",
                                         "sha256", "size_in_bytes", "other"};
  const std::vector<std::string> values = {
      "\"a/b\"", "\"./c\"", "\"../d\"", "\"\"", "\"hardlink\"", "\"softlink\"", "\"directory\"", "\"fifo\"",
      "\"binary\"", "\"text\"", "\"True\"", "\"12\"", "12", "-3", "1.5", "1e30", "true", "false", "null",
      "[]", "[1, \"x\"]", "{}", "{\"k\": [\"v\"]}"};
  for (int document = 0; document < 3000; ++document) {
    std::string text = "{";
    const int top = 1 + static_cast<int>(random() % 3);
    for (int t = 0; t < top; ++t) {
      if (t > 0) text += ", ";
      const auto which = random() % 4;
      if (which == 0) {
        text += "\"paths_version\": " + values[random() % values.size()];
        continue;
      }
      if (which == 1) {
        text += "\"paths\": " + values[random() % values.size()];
        continue;
      }
      text += "\"paths\": [";
      const int entries = static_cast<int>(random() % 4);
      for (int e = 0; e < entries; ++e) {
        if (e > 0) text += ", ";
        if (random() % 10 == 0) {
          text += values[random() % values.size()];
          continue;
        }
        text += "{";
        const int fields = static_cast<int>(random() % 6);
        for (int f = 0; f < fields; ++f) {
          if (f > 0) text += ", ";
          text += "\"" + keys[random() % keys.size()] + "\": " + values[random() % values.size()];
        }
        text += "}";
      }
      text += "]";
    }
    text += "}";
    expect_same(text);
    if (::testing::Test::HasFailure()) break;
  }
}

}  // namespace
}  // namespace gpuenv::package
