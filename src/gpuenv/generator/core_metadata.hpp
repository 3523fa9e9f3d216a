// Python core metadata (PKG-INFO in an sdist, METADATA in a wheel): the
// email-header format of the Core Metadata specification, versions 1.0 to
// 2.4. Only the header part is read (the description after the blank line
// is not needed).
#pragma once

#include <expected>
#include <string>
#include <string_view>
#include <vector>

namespace gpuenv::generate {

struct CoreMetadata {
  std::string metadata_version;
  std::string name;
  std::string version;
  std::string summary;
  std::string home_page;
  std::string license;             // free text (License:)
  std::string license_expression;  // SPDX (License-Expression:, metadata 2.4)
  std::string requires_python;
  std::vector<std::string> requires_dist;
  std::vector<std::string> provides_extra;
  std::vector<std::string> classifiers;
  std::vector<std::string> project_urls;   // "Homepage, https://..."
  std::vector<std::string> license_files;  // License-File:
  std::vector<std::string> dynamic;        // Dynamic: fields the sdist cannot vouch for (2.2+)
  bool declares_dependencies = false;      // any Requires-Dist, or metadata 2.2+ without Requires-Dist dynamic
};

// Errors: no Name or Version, headers beyond 1 MiB or 10,000 lines.
std::expected<CoreMetadata, std::string> parse_core_metadata(std::string_view text);

// A Project-URL whose label is one of `labels` (case-insensitive), else "".
std::string project_url(const CoreMetadata& metadata, const std::vector<std::string>& labels);

}  // namespace gpuenv::generate
