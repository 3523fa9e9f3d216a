#include "gpuenv/package/paths_json.hpp"

#include <array>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <simdjson.h>

#include "gpuenv/package/package_error.hpp"
#include "gpuenv/package/record_json.hpp"

namespace gpuenv::package {

std::string_view to_string(PathType type) noexcept {
  switch (type) {
    case PathType::softlink:
      return "softlink";
    case PathType::directory:
      return "directory";
    case PathType::hardlink:
      break;
  }
  return "hardlink";
}

std::string_view to_string(FileMode mode) noexcept {
  return mode == FileMode::binary ? "binary" : "text";
}

bool is_safe_relative_path(std::string_view path) noexcept {
  if (path.empty() || path.front() == '/' || path.find('\0') != std::string_view::npos) {
    return false;
  }
  std::size_t start = 0;
  while (start <= path.size()) {
    const auto end = std::min(path.find('/', start), path.size());
    if (path.substr(start, end - start) == "..") return false;
    start = end + 1;
  }
  return true;
}

namespace {

void check_path(const std::string& path, std::string_view source) {
  if (!is_safe_relative_path(path)) {
    throw PackageError(std::string(source) + " lists the path '" + path +
                       "', which is absolute or leaves the prefix with '..'; the package is "
                       "malformed or malicious, report it to the channel that serves it");
  }
}

PathType parse_path_type(const std::string& text, std::string_view source) {
  if (text.empty() || text == "hardlink") return PathType::hardlink;
  if (text == "softlink") return PathType::softlink;
  if (text == "directory") return PathType::directory;
  throw PackageError(std::string(source) + " has an unknown path_type '" + text +
                     "'; this gpuenv knows hardlink, softlink and directory");
}

// "a/b" or "./a/b" -> "a/b"; legacy files lists sometimes carry the "./".
std::string normalise(std::string_view path) {
  while (path.starts_with("./")) path.remove_prefix(2);
  return std::string(path);
}

std::vector<std::string_view> lines_of(std::string_view text) {
  std::vector<std::string_view> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    auto end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    auto line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (!line.empty()) lines.push_back(line);
    start = end + 1;
  }
  return lines;
}

// One has_prefix line: `path`, or `placeholder mode path`; the path may be
// quoted when it holds spaces (conda-build quotes it with '"').
struct HasPrefixLine {
  std::string placeholder;
  FileMode mode = FileMode::text;
  std::string path;
};

std::vector<std::string> split_shell_words(std::string_view line) {
  std::vector<std::string> words;
  std::string word;
  bool in_quotes = false;
  bool have_word = false;
  for (const char c : line) {
    if (c == '"' || c == '\'') {
      in_quotes = !in_quotes;
      have_word = true;
    } else if (c == ' ' && !in_quotes) {
      if (have_word) words.push_back(std::move(word));
      word.clear();
      have_word = false;
    } else {
      word += c;
      have_word = true;
    }
  }
  if (have_word) words.push_back(std::move(word));
  return words;
}

HasPrefixLine parse_has_prefix_line(std::string_view line, std::string_view source) {
  auto words = split_shell_words(line);
  HasPrefixLine parsed;
  if (words.size() == 1) {
    parsed.placeholder = std::string(kLegacyPrefixPlaceholder);
    parsed.path = words[0];
  } else if (words.size() == 3) {
    parsed.placeholder = words[0];
    if (words[1] == "binary") {
      parsed.mode = FileMode::binary;
    } else if (words[1] != "text") {
      throw PackageError(std::string(source) + ": info/has_prefix line '" + std::string(line) +
                         "' has the mode '" + words[1] + "' (expected text or binary)");
    }
    parsed.path = words[2];
  } else {
    throw PackageError(std::string(source) + ": info/has_prefix line '" + std::string(line) +
                       "' is neither 'path' nor 'placeholder mode path'");
  }
  parsed.path = normalise(parsed.path);
  return parsed;
}

// A field's value as json_field reads values (a container is mistyped).
nlohmann::json value_of(simdjson::dom::element value) {
  using Type = simdjson::dom::element_type;
  std::string_view text;
  std::int64_t integer = 0;
  std::uint64_t unsigned_integer = 0;
  double floating = 0;
  bool boolean = false;
  switch (value.type()) {
    case Type::STRING: return value.get(text) ? nlohmann::json() : nlohmann::json(std::string(text));
    case Type::INT64: return value.get(integer) ? nlohmann::json() : nlohmann::json(integer);
    case Type::UINT64: return value.get(unsigned_integer) ? nlohmann::json() : nlohmann::json(unsigned_integer);
    case Type::DOUBLE: return value.get(floating) ? nlohmann::json() : nlohmann::json(floating);
    case Type::BOOL: return value.get(boolean) ? nlohmann::json() : nlohmann::json(boolean);
    case Type::NULL_VALUE: return nullptr;
    case Type::ARRAY:
    case Type::OBJECT: break;
  }
  return nlohmann::json::array();
}

constexpr std::array<std::string_view, 7> kFields = {"_path",   "path_type", "file_mode",    "prefix_placeholder",
                                                      "no_link", "sha256",    "size_in_bytes"};

PathEntry read_entry(simdjson::dom::element item, std::string_view source) {
  // A later duplicate key wins, as in every JSON reader conda uses.
  std::array<nlohmann::json, kFields.size()> fields;
  simdjson::dom::object object;
  if (!item.get(object)) {
    for (const auto field : object) {
      for (std::size_t i = 0; i < kFields.size(); ++i) {
        if (field.key == kFields[i]) fields[i] = value_of(field.value);
      }
    }
  }
  const auto at = [&](std::size_t index) { return fields[index].is_null() ? nullptr : &fields[index]; };
  PathEntry entry;
  entry.path = normalise(json_field::string_value(at(0)));
  check_path(entry.path, source);
  entry.path_type = parse_path_type(json_field::string_value(at(1)), source);
  entry.file_mode = json_field::string_value(at(2)) == "binary" ? FileMode::binary : FileMode::text;
  entry.prefix_placeholder = json_field::string_value(at(3));
  entry.no_link = json_field::boolean_value(at(4));
  entry.sha256 = json_field::string_value(at(5));
  entry.size_in_bytes = json_field::optional_unsigned_value(at(6));
  return entry;
}

}  // namespace

// paths.json lists every file of a package (tens of thousands in a big
// one): read with simdjson's DOM parser, which validates the whole document
// as nlohmann's does at a tenth of the cost (reading cached packages'
// paths.json was a sixth of a warm install). Field values keep json_field's
// lenient rules; tests/unit/package/test_paths_json_reading.cpp compares
// this reading with the nlohmann one it replaced.
PathsJson parse_paths_json(std::string_view text, std::string_view source) {
  thread_local simdjson::dom::parser parser;
  simdjson::dom::element root;
  if (const auto error = parser.parse(text.data(), text.size()).get(root); error) {
    throw PackageError(std::string(source) + " is not valid JSON (" + simdjson::error_message(error) +
                       "); the package is damaged");
  }
  simdjson::dom::object object;
  if (root.get(object)) {
    throw PackageError(std::string(source) + " has no 'paths' list; the package is damaged");
  }
  std::optional<simdjson::dom::element> list;
  nlohmann::json version;
  for (const auto field : object) {
    if (field.key == "paths") list = field.value;  // the last one, as nlohmann kept it
    if (field.key == "paths_version") version = value_of(field.value);
  }
  simdjson::dom::array items;
  if (!list || list->get(items)) {
    throw PackageError(std::string(source) + " has no 'paths' list; the package is damaged");
  }
  PathsJson paths;
  paths.paths_version =
      static_cast<int>(json_field::optional_unsigned_value(version.is_null() ? nullptr : &version).value_or(1));
  paths.paths.reserve(items.size());
  for (const auto item : items) paths.paths.push_back(read_entry(item, source));
  return paths;
}

PathsJson paths_json_from_legacy_files(std::string_view files, std::string_view has_prefix,
                                       std::string_view no_link, std::string_view source) {
  std::map<std::string, HasPrefixLine, std::less<>> prefixed;
  for (const auto line : lines_of(has_prefix)) {
    auto parsed = parse_has_prefix_line(line, source);
    auto path = parsed.path;
    prefixed.emplace(std::move(path), std::move(parsed));
  }
  std::map<std::string, bool, std::less<>> copy_only;
  for (const auto line : lines_of(no_link)) copy_only.emplace(normalise(line), true);

  PathsJson paths;
  paths.from_legacy_files = true;
  for (const auto line : lines_of(files)) {
    PathEntry entry;
    entry.path = normalise(line);
    check_path(entry.path, source);
    if (const auto it = prefixed.find(entry.path); it != prefixed.end()) {
      entry.prefix_placeholder = it->second.placeholder;
      entry.file_mode = it->second.mode;
    }
    entry.no_link = copy_only.contains(entry.path);
    paths.paths.push_back(std::move(entry));
  }
  return paths;
}

// Keys in rattler-build's order (conda-build's are sorted; no reader cares),
// so that a package gpuenv builds compares byte for byte with rattler-build's.
std::string paths_json_text(const PathsJson& paths) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const auto& entry : paths.paths) {
    nlohmann::ordered_json item = {{"_path", entry.path}, {"path_type", to_string(entry.path_type)}};
    if (entry.has_prefix()) {
      item["file_mode"] = to_string(entry.file_mode);
      item["prefix_placeholder"] = entry.prefix_placeholder;
    }
    if (entry.no_link) item["no_link"] = true;
    if (!entry.sha256.empty()) item["sha256"] = entry.sha256;
    if (entry.size_in_bytes) item["size_in_bytes"] = *entry.size_in_bytes;
    list.push_back(std::move(item));
  }
  return nlohmann::ordered_json{{"paths", std::move(list)}, {"paths_version", paths.paths_version}}.dump(2);
}

}  // namespace gpuenv::package
