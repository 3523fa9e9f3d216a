// The one way gpuenv loads YAML (.condarc, environment.yml, recipes):
// yaml-cpp under limits, so that a small hostile file cannot make gpuenv
// eat the machine's memory.
//
// Why limits are needed, and where they sit (measured with Debian's
// yaml-cpp 0.7):
// - yaml-cpp parses aliases (`*name`) without copying: each refers to the
//   one anchored node, so a 444-byte "billion laughs" file (nine levels of
//   nine aliases) parses in a fraction of a millisecond. The blow-up happens
//   when a reader walks the tree and copies what it reaches: every alias is
//   then expanded (9^9 values). An alias inside its own anchor
//   (`&a [*a]`) even makes a cycle, which a walk follows until the stack
//   overflows. So after parsing, the tree is walked once the way readers
//   walk it, an alias counted each time it is reached, against a budget of
//   values, of scalar text and of depth; readers then walk an accepted tree
//   freely.
// - Parsing itself costs about 500 bytes of memory per value and is slower
//   than linear (100,000 one-line entries: ~1.2 s and 57 MB; 1,000,000:
//   ~15 s and 530 MB; a 4 MiB flow list of 2 million one-letter values:
//   26 s and 1 GB). Nothing but the file's size bounds that, hence
//   max_file_bytes.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <cstdint>
#include <expected>
#include <filesystem>
#include <string>
#include <string_view>

namespace gpuenv::util {

struct YamlLimits {
  // Real .condarc, environment.yml and recipe files are a few KiB (a
  // 1,000-package environment.yml is ~50 KiB); 2 MiB still holds a .condarc
  // of 100,000 channels and caps the parser at ~500 MB in the worst case.
  std::uintmax_t max_file_bytes = 2u << 20;
  // Values reached walking the tree, an alias counted each time: a file
  // within max_file_bytes and without aliases has at most about a million.
  std::size_t max_values = 1'000'000;
  // Scalar text reached the same way: a reader copies it (`*s` a thousand
  // times over a 1 MiB anchored string is a gigabyte).
  std::size_t max_scalar_bytes = 16u << 20;
  // Nesting, aliases followed. Settings and recipes nest a few levels; the
  // bound also ends a walk around an alias cycle.
  std::size_t max_depth = 100;
};

// Why a YAML file was refused. `message` is complete: it names the file
// (and the line where one applies) and says what to do.
struct YamlError {
  enum class Kind { unreadable, too_large, not_yaml, too_many_values, too_much_text, too_deep };
  Kind kind = Kind::not_yaml;
  std::string message;
  // not_yaml: where the parser stopped, 1-based; 0 when yaml-cpp did not say.
  std::size_t line = 0;
  std::size_t column = 0;
};

// Parses `text` (its first document) and checks it against `limits`;
// `source` names it in messages.
std::expected<YAML::Node, YamlError> load_yaml(std::string_view text, std::string_view source,
                                               const YamlLimits& limits = {});

// Reads `path` (refusing it when it is larger than max_file_bytes, before
// reading it) and loads it as load_yaml does. `text` receives the file's
// content for readers that also look at the raw lines.
std::expected<YAML::Node, YamlError> read_yaml_file(const std::filesystem::path& path, std::string* text = nullptr,
                                                    const YamlLimits& limits = {});

}  // namespace gpuenv::util
