#include "gpuenv/generator/core_metadata.hpp"

#include <algorithm>
#include <cctype>

namespace gpuenv::generate {
namespace {

constexpr std::size_t max_header_bytes = 1 << 20;
constexpr std::size_t max_lines = 10000;

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  return text;
}

}  // namespace

std::expected<CoreMetadata, std::string> parse_core_metadata(std::string_view text) {
  CoreMetadata metadata;
  std::vector<std::pair<std::string, std::string>> fields;
  std::size_t lines = 0;
  std::size_t read = 0;
  while (!text.empty()) {
    const auto newline = text.find('\n');
    auto line = text.substr(0, newline);
    text = newline == std::string_view::npos ? std::string_view() : text.substr(newline + 1);
    read += line.size() + 1;
    if (++lines > max_lines || read > max_header_bytes) {
      return std::unexpected(std::string("its headers run past 1 MiB or 10,000 lines"));
    }
    if (line.ends_with('\r')) line.remove_suffix(1);
    if (line.empty()) break;  // the description follows
    if ((line.front() == ' ' || line.front() == '\t')) {
      if (!fields.empty()) fields.back().second += "\n" + std::string(trim(line));
      continue;
    }
    const auto colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    fields.emplace_back(lower(trim(line.substr(0, colon))), std::string(trim(line.substr(colon + 1))));
  }
  for (auto& [key, value] : fields) {
    if (key == "metadata-version") metadata.metadata_version = value;
    else if (key == "name") metadata.name = value;
    else if (key == "version") metadata.version = value;
    else if (key == "summary") metadata.summary = value;
    else if (key == "home-page") metadata.home_page = value;
    else if (key == "license") metadata.license = value;
    else if (key == "license-expression") metadata.license_expression = value;
    else if (key == "requires-python") metadata.requires_python = value;
    else if (key == "requires-dist") metadata.requires_dist.push_back(value);
    else if (key == "provides-extra") metadata.provides_extra.push_back(value);
    else if (key == "classifier") metadata.classifiers.push_back(value);
    else if (key == "project-url") metadata.project_urls.push_back(value);
    else if (key == "license-file") metadata.license_files.push_back(value);
    else if (key == "dynamic") metadata.dynamic.push_back(lower(value));
  }
  if (metadata.name.empty() || metadata.version.empty()) {
    return std::unexpected(std::string("it has no Name or no Version"));
  }
  // Metadata 2.2+ marks what the sdist cannot vouch for as Dynamic; before
  // 2.2 a missing Requires-Dist says nothing (setuptools left it out).
  const bool modern = metadata.metadata_version >= std::string("2.2") && metadata.metadata_version.size() >= 3;
  const bool dynamic_dependencies =
      std::find(metadata.dynamic.begin(), metadata.dynamic.end(), "requires-dist") != metadata.dynamic.end();
  metadata.declares_dependencies = !metadata.requires_dist.empty() || (modern && !dynamic_dependencies);
  return metadata;
}

std::string project_url(const CoreMetadata& metadata, const std::vector<std::string>& labels) {
  for (const auto& wanted : labels) {
    for (const auto& entry : metadata.project_urls) {
      const auto comma = entry.find(',');
      if (comma == std::string::npos) continue;
      if (lower(trim(std::string_view(entry).substr(0, comma))) == lower(wanted)) {
        return std::string(trim(std::string_view(entry).substr(comma + 1)));
      }
    }
  }
  return "";
}

}  // namespace gpuenv::generate
