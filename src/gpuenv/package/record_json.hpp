// PackageRecord <-> JSON in the shape conda uses for index.json,
// info/repodata_record.json and the record part of conda-meta/*.json.
//
// Reading is lenient the way conda's is: files written by conda, mamba,
// rattler and a decade of conda-build versions carry nulls, numbers written
// as strings, `noarch: true`, features as a string or a list. Writing
// produces what conda writes: sorted keys (nlohmann's object order), the
// fields conda always writes even when empty, the optional ones only when set.
#pragma once

#include <nlohmann/json.hpp>
#include <string_view>

#include "gpuenv/specs/package_record.hpp"
#include "gpuenv/util/json_writer.hpp"

namespace gpuenv::package {

// Reads the record fields of a JSON object. Throws PackageError naming
// `source` when `json` is not an object or lacks name, version or build.
specs::PackageRecord record_from_json(const nlohmann::json& json, std::string_view source);

// Parses `text` (an index.json or repodata_record.json) and reads it.
specs::PackageRecord parse_record_json(std::string_view text, std::string_view source);

// The record as conda writes it into repodata_record.json, its url and
// channel without credentials (specs::mask_credentials).
nlohmann::json record_to_json(const specs::PackageRecord& record);

// Writes `value` through `writer` (objects in nlohmann's sorted key order):
// how the small parts of a streamed document join the large ones.
void write_json_value(util::JsonWriter& writer, const nlohmann::json& value);

// Reading helpers shared with the other JSON readers of this module and the
// prefix module: each returns the fallback for null, absent or mistyped values.
namespace json_field {
std::string string(const nlohmann::json& object, std::string_view key, std::string fallback = {});
std::uint64_t unsigned_integer(const nlohmann::json& object, std::string_view key,
                               std::uint64_t fallback = 0);
std::optional<std::uint64_t> optional_unsigned(const nlohmann::json& object, std::string_view key);
bool boolean(const nlohmann::json& object, std::string_view key, bool fallback = false);
std::vector<std::string> string_list(const nlohmann::json& object, std::string_view key);
// The same readings of one value (nullptr or null: absent), for readers
// that hold values without their object (paths.json's streaming reader).
std::string string_value(const nlohmann::json* value, std::string fallback = {});
std::optional<std::uint64_t> optional_unsigned_value(const nlohmann::json* value);
bool boolean_value(const nlohmann::json* value, bool fallback = false);
}  // namespace json_field

}  // namespace gpuenv::package
