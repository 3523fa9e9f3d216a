#include "gpuenv/cuda_binary/listing_json.hpp"

#include <nlohmann/json.hpp>

#include "gpuenv/cuda_binary/listing_summary.hpp"

namespace gpuenv::cuda_binary {
namespace {

using json = nlohmann::ordered_json;

json entry_json(const DeviceCode& code) {
  json entry{{"kind", to_string(code.kind)},
             {"arch", code.kind == CodeKind::ptx ? code.arch.compute_name() : code.arch.sm_name()}};
  if (code.ptx_isa) entry["ptx_isa"] = to_string(*code.ptx_isa);
  entry["compression"] = to_string(code.compression);
  entry["stored_size"] = code.stored_size;
  entry["uncompressed_size"] = code.uncompressed_size;
  entry["location"] = code.location;
  entry["payload_offset"] = code.payload_offset;
  entry["container_offset"] = code.container_offset;
  entry["registered"] = code.registered;
  entry["empty_module"] = code.empty_module;
  return entry;
}

json listing_json(const BinaryListing& listing, bool with_entries) {
  const auto summary = summarize(listing.entries);
  json ptx = json::array();
  for (const auto& target : summary.ptx) ptx.push_back({{"arch", target.arch.compute_name()}, {"ptx_isa", to_string(target.isa)}});
  json sass = json::array();
  for (const auto& arch : summary.sass) sass.push_back(arch.sm_name());
  json file{{"path", listing.path},
            {"format", to_string(listing.format)},
            {"containers", listing.container_count},
            {"entry_count", listing.entries.size()},
            {"unregistered_entries", summary.unregistered_entries},
            {"empty_modules", summary.empty_modules},
            {"sass", sass},
            {"ptx", ptx}};
  if (with_entries) {
    json entries = json::array();
    for (const auto& entry : listing.entries) entries.push_back(entry_json(entry));
    file["entries"] = entries;
  }
  return file;
}

}  // namespace

std::string inspect_report_json(const std::vector<ReadResult>& results, bool with_entries, bool success) {
  json files = json::array();
  json errors = json::array();
  for (const auto& result : results) {
    if (result) {
      files.push_back(listing_json(*result, with_entries));
    } else {
      errors.push_back({{"path", result.error().path}, {"kind", to_string(result.error().kind)},
                        {"message", result.error().message}});
    }
  }
  return json{{"success", success}, {"files", files}, {"errors", errors}}.dump(2);
}

}  // namespace gpuenv::cuda_binary
