#include "gpuenv/specs/package_record.hpp"

#include <algorithm>

namespace gpuenv::specs {

NoarchType parse_noarch(std::string_view text) noexcept {
  if (text == "generic" || text == "true") return NoarchType::generic;
  if (text == "python") return NoarchType::python;
  return NoarchType::none;
}

std::string_view to_string(NoarchType noarch) noexcept {
  switch (noarch) {
    case NoarchType::generic:
      return "generic";
    case NoarchType::python:
      return "python";
    case NoarchType::none:
      break;
  }
  return {};
}

std::vector<std::string> split_features(std::string_view text) {
  std::vector<std::string> features;
  std::size_t start = 0;
  while (start < text.size()) {
    const auto end = text.find_first_of(" ,", start);
    const auto piece = text.substr(start, end == std::string_view::npos ? end : end - start);
    if (!piece.empty()) features.emplace_back(piece);
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  std::sort(features.begin(), features.end());
  features.erase(std::unique(features.begin(), features.end()), features.end());
  return features;
}

std::uint64_t normalize_timestamp(std::uint64_t timestamp) noexcept {
  constexpr std::uint64_t last_second_of_year_9999 = 253402300799ULL;
  return timestamp < last_second_of_year_9999 ? timestamp * 1000 : timestamp;
}

void PackageRecord::set_version(std::string text) {
  parsed_version = Version::try_parse(text);
  version = std::move(text);
}

void PackageRecord::set_track_features(std::string_view text) {
  track_features = split_features(text);
}

void PackageRecord::set_features(std::string_view text) { features = split_features(text); }

std::string PackageRecord::dist_str() const { return name + "-" + version + "-" + build; }

}  // namespace gpuenv::specs
