// Internal to the channel index writer: one package file turned into its
// repodata record and run_exports entry, with everything a hostile archive
// could do to the channel's readers checked first.
#pragma once

#include <expected>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace gpuenv::repodata {

struct IndexedPackage {
  nlohmann::json record;       // info/index.json less conda-index's dropped fields, plus md5, sha256, size
  nlohmann::json run_exports;  // info/run_exports.json; {} when the package has none
};

// Bounds on what a package's metadata may hold. Real index.json files are a
// few KiB: these only stop an archive made to exhaust memory or to make the
// channel's repodata.json unreadable.
inline constexpr std::uint64_t kMaxIndexJsonBytes = 1u << 20;
inline constexpr std::size_t kMaxMetadataString = 64u << 10;
inline constexpr std::size_t kMaxMetadataItems = 10000;  // per array or object
inline constexpr int kMaxMetadataDepth = 16;

// Reads `archive` (in the subdir `subdir`, named `filename`) and checks it:
// index.json present, valid, bounded, typed as conda and rattler read it,
// naming this subdir and matching the file name. The error names the file
// and says what to do.
std::expected<IndexedPackage, std::string> read_indexed_package(const std::filesystem::path& archive,
                                                                std::string_view filename, std::string_view subdir);

// Why `record` (from the index cache, which lives in the channel and so is
// input too) cannot be served for `filename` in `subdir`; empty when it can.
std::string cached_record_problem(const nlohmann::json& record, std::string_view filename, std::string_view subdir);

// Parses metadata text with the bounds above. The error says what is wrong.
std::expected<nlohmann::json, std::string> parse_bounded_json(std::string_view text);

}  // namespace gpuenv::repodata
