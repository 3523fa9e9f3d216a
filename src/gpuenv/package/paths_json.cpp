#include "gpuenv/package/paths_json.hpp"

#include <array>
#include <map>
#include <nlohmann/json.hpp>

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

}  // namespace

namespace {

// paths.json read as a stream of SAX events: it lists every file of a
// package (tens of thousands in a big one), and building nlohmann's DOM tree
// of it was most of the cost of reading a cached package's metadata, a
// sixth of a warm install. Field values are read with the same lenient
// json_field rules as every other conda JSON file; the structure checks are
// the DOM reading's (tests/unit/package/test_paths_json_streaming.cpp
// compares the two).
class PathsJsonEvents {
 public:
  using json = nlohmann::json;
  using number_integer_t = json::number_integer_t;
  using number_unsigned_t = json::number_unsigned_t;
  using number_float_t = json::number_float_t;
  using string_t = json::string_t;
  using binary_t = json::binary_t;

  bool null() { return scalar(json()); }
  bool boolean(bool value) { return scalar(json(value)); }
  bool number_integer(number_integer_t value) { return scalar(json(value)); }
  bool number_unsigned(number_unsigned_t value) { return scalar(json(value)); }
  bool number_float(number_float_t value, const string_t&) { return scalar(json(value)); }
  bool string(string_t& value) { return scalar(json(std::move(value))); }
  bool binary(binary_t&) { return scalar(json::array()); }  // JSON text has none
  bool start_object(std::size_t) { return open(true); }
  bool start_array(std::size_t) { return open(false); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }

  bool key(string_t& name) {
    if (depth_ == 1) {
      top_key_ = std::move(name);
    } else if (depth_ == 3 && in_entry_) {
      field_ = field_index(name);
    }
    return true;
  }

  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& error) {
    error_ = error.what();
    return false;
  }

  // The fields of one entry as written (null: absent), in kFields order.
  struct RawEntry {
    std::array<json, 7> fields;
  };
  static constexpr std::array<std::string_view, 7> kFields = {
      "_path", "path_type", "file_mode", "prefix_placeholder", "no_link", "sha256", "size_in_bytes"};

  bool root_is_object = false;
  bool paths_is_array = false;  // the last "paths" key's value
  json paths_version;
  std::vector<RawEntry> entries;
  std::string error_;

 private:
  static int field_index(std::string_view name) {
    for (std::size_t i = 0; i < kFields.size(); ++i) {
      if (kFields[i] == name) return static_cast<int>(i);
    }
    return -1;
  }

  // A value where the current container holds it: depth 1 is the root
  // object, 2 the paths list, 3 one entry.
  bool scalar(json value) {
    if (depth_ == 1 && root_is_object) {
      if (top_key_ == "paths") {
        paths_is_array = false;
        entries.clear();
      } else if (top_key_ == "paths_version") {
        paths_version = std::move(value);
      }
    } else if (depth_ == 2 && in_paths_) {
      entries.emplace_back();  // not an object: every field absent
    } else if (depth_ == 3 && in_entry_ && field_ >= 0) {
      entries.back().fields[static_cast<std::size_t>(field_)] = std::move(value);
    }
    return true;
  }

  bool open(bool object) {
    if (depth_ == 0) {
      root_is_object = object;
    } else if (depth_ == 1 && root_is_object) {
      if (top_key_ == "paths") {
        paths_is_array = !object;
        in_paths_ = !object;
        entries.clear();
      } else if (top_key_ == "paths_version") {
        paths_version = json::array();  // a container: mistyped
      }
    } else if (depth_ == 2 && in_paths_) {
      entries.emplace_back();
      in_entry_ = object;
      field_ = -1;
    } else if (depth_ == 3 && in_entry_ && field_ >= 0) {
      entries.back().fields[static_cast<std::size_t>(field_)] = json::array();  // mistyped
    }
    ++depth_;
    return true;
  }

  bool close() {
    --depth_;
    if (depth_ == 2) in_entry_ = false;
    if (depth_ == 1) in_paths_ = false;
    return true;
  }

  std::size_t depth_ = 0;
  std::string top_key_;
  bool in_paths_ = false;
  bool in_entry_ = false;
  int field_ = -1;
};

const nlohmann::json* present(const nlohmann::json& value) { return value.is_null() ? nullptr : &value; }

}  // namespace

PathsJson parse_paths_json(std::string_view text, std::string_view source) {
  PathsJsonEvents events;
  if (!nlohmann::json::sax_parse(text.begin(), text.end(), &events)) {
    throw PackageError(std::string(source) + " is not valid JSON (" + events.error_ +
                       "); the package is damaged");
  }
  if (!events.root_is_object || !events.paths_is_array) {
    throw PackageError(std::string(source) + " has no 'paths' list; the package is damaged");
  }
  PathsJson paths;
  paths.paths_version =
      static_cast<int>(json_field::optional_unsigned_value(present(events.paths_version)).value_or(1));
  paths.paths.reserve(events.entries.size());
  for (auto& raw : events.entries) {
    const auto field = [&](std::size_t index) { return present(raw.fields[index]); };
    PathEntry entry;
    entry.path = normalise(json_field::string_value(field(0)));
    check_path(entry.path, source);
    entry.path_type = parse_path_type(json_field::string_value(field(1)), source);
    entry.file_mode = json_field::string_value(field(2)) == "binary" ? FileMode::binary : FileMode::text;
    entry.prefix_placeholder = json_field::string_value(field(3));
    entry.no_link = json_field::boolean_value(field(4));
    entry.sha256 = json_field::string_value(field(5));
    entry.size_in_bytes = json_field::optional_unsigned_value(field(6));
    paths.paths.push_back(std::move(entry));
  }
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
