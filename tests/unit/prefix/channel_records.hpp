// Records of the real channels in testdata (as a repodata loader would
// make them), and records for loose real package files.
#pragma once

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "gpuenv/package/hashing.hpp"
#include "gpuenv/package/package_metadata.hpp"
#include "gpuenv/package/record_json.hpp"
#include "gpuenv/specs/package_record.hpp"

namespace gpuenv::testing {

// The record for `fn` in <channel_dir>/<subdir>/repodata.json, its URL under
// `base_url` (file:// of the directory, or where a server serves it).
inline specs::PackageRecord channel_record(const std::filesystem::path& channel_dir,
                                           const std::string& subdir, const std::string& fn,
                                           const std::string& base_url) {
  std::ifstream in(channel_dir / subdir / "repodata.json");
  const auto repodata = nlohmann::json::parse(in);
  for (const char* key : {"packages.conda", "packages"}) {
    if (repodata.contains(key) && repodata[key].contains(fn)) {
      auto record = package::record_from_json(repodata[key][fn], fn);
      record.fn = fn;
      record.url = base_url + "/" + subdir + "/" + fn;
      record.channel = base_url;
      if (record.subdir.empty()) record.subdir = subdir;
      return record;
    }
  }
  throw std::runtime_error(fn + " is not in " + (channel_dir / subdir).string());
}

// A record for a package file without repodata: its index.json plus the
// file's digests, as `conda install <url>` makes one.
inline specs::PackageRecord file_record(const std::filesystem::path& file) {
  auto record = package::read_package_metadata(file).index;
  const auto digests = package::hash_file(file, true, true);
  record.sha256 = digests.sha256;
  record.md5 = digests.md5;
  record.size = digests.size;
  record.fn = file.filename().string();
  record.url = "file://" + file.string();
  record.channel = "file://" + file.parent_path().string();
  return record;
}

}  // namespace gpuenv::testing
