// Internal to the specs module: the rarely used MatchSpec fields, kept in one
// shared block so that the common name/version/build specs stay small.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "gpuenv/specs/match_spec.hpp"

namespace gpuenv::specs {

// Text kept only to print a spec as conda does; two specs differing only in
// it mean the same (`build_number='=0'` is `build_number=0`).
struct PrintedOnly {
  std::string text;
  friend bool operator==(const PrintedOnly&, const PrintedOnly&) noexcept { return true; }
};

struct MatchSpec::Extra {
  std::optional<ChannelMatcher> channel;
  std::vector<std::string> subdirs;
  std::string name_space;
  std::string md5;
  std::string sha256;
  std::string fn;
  std::string url;
  std::optional<StringMatcher> license;
  std::optional<StringMatcher> license_family;
  std::optional<std::vector<std::string>> track_features;
  std::optional<std::vector<std::string>> features;
  std::vector<std::string> extras;
  std::vector<std::string> flags;
  std::string when;
  std::string target;
  bool optional = false;
  PrintedOnly build_number_written;  // empty when build_number.str() is the text
  // Name, version and build were read from the file name of a package URL
  // that names no channel subdir. conda keeps only `url` and `fn` for such a
  // spec, so str() prints `*[url=...]` as conda does; matching may use them
  // (they are implied by `fn`).
  bool identity_from_filename = false;

  friend bool operator==(const Extra&, const Extra&) = default;
};

}  // namespace gpuenv::specs
