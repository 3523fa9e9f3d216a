// One .condarc-style YAML file read into a small tree that keeps what
// conda's merge rules need and a YAML library does not: the line of every
// value, and the `#!final`, `#!top` and `#!bottom` comment markers conda
// reads from the end of a key's or a list entry's line.
#pragma once

#include <expected>
#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gpuenv/util/yaml_document.hpp"

namespace gpuenv::util {

enum class ConfigMarker {
  none,
  final,   // on a key: sources of higher precedence cannot change it
  top,     // on a list entry: put it first
  bottom,  // on a list entry: put it last
};

struct ConfigNode {
  enum class Kind { null, scalar, sequence, map };
  Kind kind = Kind::null;
  std::string scalar;
  std::vector<ConfigNode> items;                            // a sequence's entries
  std::vector<std::pair<std::string, ConfigNode>> entries;  // a map's, in file order
  int line = 0;  // 1-based; 0 for a value that does not come from a file
  // The marker at the end of this value's line: for a map value, the line of
  // its key; for a block-list entry, its own line.
  ConfigMarker marker = ConfigMarker::none;
};

struct ConfigDocument {
  std::string source;  // the file's path, for messages
  ConfigNode root;     // a map, or null for an empty file
};

// Fails with "<file>:<line>: ..." for text that is not YAML, a document
// that is not a map of settings, or a key given twice, and for a file over
// `limits` (an alias bomb, an oversized file: see yaml_document.hpp).
std::expected<ConfigDocument, std::string> parse_config_document(std::string_view text, std::string source,
                                                                 const YamlLimits& limits = {});
std::expected<ConfigDocument, std::string> read_config_document(const std::filesystem::path& path,
                                                                const YamlLimits& limits = {});

}  // namespace gpuenv::util
