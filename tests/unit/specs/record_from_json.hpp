// A PackageRecord from the JSON objects of the match tables (and of the spec
// oracle's requests): fields not given are empty.
#pragma once

#include <cstdint>

#include <nlohmann/json.hpp>

#include "gpuenv/specs/package_record.hpp"

namespace gpuenv::specs::test {

inline PackageRecord record_from_json(const nlohmann::json& json) {
  PackageRecord record;
  record.name = json.value("name", "");
  record.set_version(json.value("version", ""));
  record.build = json.value("build", "");
  record.build_number = json.value("build_number", std::uint64_t{0});
  record.subdir = json.value("subdir", "");
  record.md5 = json.value("md5", "");
  record.sha256 = json.value("sha256", "");
  record.license = json.value("license", "");
  record.license_family = json.value("license_family", "");
  record.set_track_features(json.value("track_features", ""));
  record.set_features(json.value("features", ""));
  record.channel = json.value("channel", "");
  record.fn = json.value("fn", "");
  record.url = json.value("url", "");
  return record;
}

}  // namespace gpuenv::specs::test
