// The files `gpuenv create --file` and `gpuenv install --file` read, in the
// three forms conda reads:
//
//   environment.yml (CEP 24)   name, channels, dependencies (a `pip:` list is
//                              refused: gpuenv installs conda packages only)
//   explicit lockfile          `@EXPLICIT`, then one package URL (or path) a
//                              line, optionally `#<sha256>` or `#<md5>`: no
//                              solving, these exact files are installed
//   spec list                  one MatchSpec a line
//
// A file holding an `@EXPLICIT` line is explicit; else a .yml/.yaml file is
// an environment.yml; else it is a spec list. Every error names the file and
// the line.
#pragma once

#include <expected>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "gpuenv/specs/channel.hpp"
#include "gpuenv/specs/package_record.hpp"

namespace gpuenv::environment {

struct EnvironmentFile {
  enum class Kind { environment_yaml, explicit_urls, spec_list };
  Kind kind = Kind::spec_list;
  std::string name;                    // environment.yml `name:`; empty when absent
  std::vector<std::string> channels;   // environment.yml `channels:`, most preferred first
  std::vector<std::string> specs;      // dependencies / spec lines, each a valid MatchSpec
  // Explicit files: the packages, in file order, each with name, version,
  // build, fn, url, channel, subdir (when the URL shows one) and the hash
  // the line gave. build_number and dependencies come from the package's
  // index.json when it is linked.
  std::vector<specs::PackageRecord> packages;
  // Things the file says that gpuenv does not act on (unknown keys,
  // `variables:`), for the user to see.
  std::vector<std::string> warnings;
};

// Reads and parses `path`. The error says which file, which line and what
// to write instead.
std::expected<EnvironmentFile, std::string> read_environment_file(const std::filesystem::path& path,
                                                                  const specs::ChannelContext& context);

// The same, from text; `source` names it in messages.
std::expected<EnvironmentFile, std::string> parse_environment_yaml(std::string_view text, std::string_view source,
                                                                   const specs::ChannelContext& context);
std::expected<EnvironmentFile, std::string> parse_explicit_file(std::string_view text, std::string_view source,
                                                                const specs::ChannelContext& context);
std::expected<EnvironmentFile, std::string> parse_spec_list(std::string_view text, std::string_view source,
                                                            const specs::ChannelContext& context);

// The record an explicit file's URL stands for: "<channel>/<subdir>/<name>-<version>-<build>.conda".
// The error says why the URL names no package file.
std::expected<specs::PackageRecord, std::string> record_from_package_url(std::string_view url);

}  // namespace gpuenv::environment
