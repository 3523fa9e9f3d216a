#include "gpuenv/repodata/indexed_package.hpp"

#include <fmt/core.h>

#include <array>

#include "gpuenv/package/hashing.hpp"
#include "gpuenv/package/package_error.hpp"
#include "gpuenv/package/package_metadata.hpp"
#include "gpuenv/specs/package_filename.hpp"
#include "gpuenv/specs/version.hpp"

namespace gpuenv::repodata {

namespace {

using nlohmann::json;

constexpr std::string_view kIndexJson = "info/index.json";
constexpr std::string_view kRunExportsJson = "info/run_exports.json";

// index.json fields conda-index leaves out of repodata records: legacy
// build-machine details no client reads.
constexpr std::array<std::string_view, 10> kDroppedFields = {
    "arch", "binstar", "has_prefix", "machine", "mtime", "operatingsystem", "platform", "requires_features",
    "target-triplet", "ucs"};

// Fields whose type conda and rattler rely on: rattler refuses a whole
// repodata.json when one record has, say, a number for `license`, so one
// bad package would take the channel down for every rattler-based client.
constexpr std::array<std::string_view, 4> kStringFields = {"license", "license_family", "features",
                                                           "python_site_packages_path"};
constexpr std::array<std::string_view, 2> kStringListFields = {"depends", "constrains"};
constexpr std::array<std::string_view, 2> kUnsignedFields = {"build_number", "timestamp"};

struct TooDeep {};

std::string check_bounds(const json& value, int depth = 0) {
  if (depth > kMaxMetadataDepth) return fmt::format("nests deeper than {} levels", kMaxMetadataDepth);
  if (value.is_string()) {
    if (value.get_ref<const std::string&>().size() > kMaxMetadataString) {
      return fmt::format("has a text of more than {} bytes", kMaxMetadataString);
    }
  } else if (value.is_array() || value.is_object()) {
    if (value.size() > kMaxMetadataItems) return fmt::format("has a list of more than {} items", kMaxMetadataItems);
    for (auto it = value.begin(); it != value.end(); ++it) {
      if (value.is_object() && it.key().size() > kMaxMetadataString) {
        return fmt::format("has a key of more than {} bytes", kMaxMetadataString);
      }
      if (auto problem = check_bounds(*it, depth + 1); !problem.empty()) return problem;
    }
  }
  return {};
}

bool is_unsigned(const json& value) {
  return value.is_number_unsigned() || (value.is_number_integer() && value.get<std::int64_t>() >= 0);
}

bool is_hex(const json& value, std::size_t length) {
  if (!value.is_string()) return false;
  const auto& text = value.get_ref<const std::string&>();
  if (text.size() != length) return false;
  for (const char c : text) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

// What is wrong with the index.json fields of `record`, as a phrase
// completing "<file>'s info/index.json ..."; empty when nothing is.
std::string index_fields_problem(const json& record, std::string_view filename, std::string_view subdir) {
  if (!record.is_object()) return "is not a JSON object";
  if (auto problem = check_bounds(record); !problem.empty()) return problem;
  const auto text = [&](std::string_view key) -> const std::string* {
    const auto it = record.find(key);
    return it != record.end() && it->is_string() && !it->get_ref<const std::string&>().empty()
               ? &it->get_ref<const std::string&>()
               : nullptr;
  };
  const auto* name = text("name");
  const auto* version = text("version");
  const auto* build = text("build");
  if (name == nullptr || version == nullptr || build == nullptr) {
    return "lacks one of name, version and build (each a non-empty text)";
  }
  if (!specs::Version::try_parse(*version)) {
    return fmt::format("has version '{}', which is not a conda version", specs::printable(*version));
  }
  if (!specs::filename_matches_record(filename, *name, *version, *build)) {
    return fmt::format("describes {}-{}-{}, which the file name does not match; rename the file to "
                       "<name>-<version>-<build> as conda-build names it",
                       specs::printable(*name), specs::printable(*version), specs::printable(*build));
  }
  if (const auto it = record.find("subdir"); it != record.end() && !it->is_null()) {
    if (!it->is_string() || it->get_ref<const std::string&>() != subdir) {
      return fmt::format("says the package is for subdir '{}', not '{}'; move the file into that subdir",
                         it->is_string() ? specs::printable(it->get_ref<const std::string&>()) : it->dump(),
                         subdir);
    }
  }
  for (const auto key : kStringFields) {
    if (const auto it = record.find(key); it != record.end() && !it->is_null() && !it->is_string()) {
      return fmt::format("has a {} that is not a text", key);
    }
  }
  for (const auto key : kStringListFields) {
    if (const auto it = record.find(key); it != record.end() && !it->is_null()) {
      if (!it->is_array()) return fmt::format("has a {} that is not a list of texts", key);
      for (const auto& item : *it) {
        if (!item.is_string()) return fmt::format("has a {} that is not a list of texts", key);
      }
    }
  }
  for (const auto key : kUnsignedFields) {
    if (const auto it = record.find(key); it != record.end() && !it->is_null() && !is_unsigned(*it)) {
      return fmt::format("has a {} that is not a non-negative integer", key);
    }
  }
  if (const auto it = record.find("noarch"); it != record.end() && !it->is_null() && !it->is_string() &&
                                             !it->is_boolean()) {
    return "has a noarch that is neither a text nor true/false";
  }
  return {};
}

std::string problem_with(const std::filesystem::path& archive, std::string_view what) {
  return fmt::format("{}: {}", specs::printable(archive.string()), what);
}

}  // namespace

std::expected<json, std::string> parse_bounded_json(std::string_view text) {
  try {
    // The depth check runs while parsing, before a deeply nested document
    // is built; sizes are checked on the (bounded) result.
    json::parser_callback_t limit_depth = [](int depth, json::parse_event_t, json&) {
      if (depth > kMaxMetadataDepth) throw TooDeep{};
      return true;
    };
    return json::parse(text, limit_depth);
  } catch (const json::parse_error& error) {
    return std::unexpected(fmt::format("is not valid JSON (byte {})", error.byte));
  } catch (const TooDeep&) {
    return std::unexpected(fmt::format("nests deeper than {} levels", kMaxMetadataDepth));
  }
}

std::expected<IndexedPackage, std::string> read_indexed_package(const std::filesystem::path& archive,
                                                                std::string_view filename, std::string_view subdir) {
  std::map<std::string, std::string> files;
  try {
    files = package::read_info_files(archive, {std::string(kIndexJson), std::string(kRunExportsJson)},
                                     kMaxIndexJsonBytes);
  } catch (const package::PackageError& error) {
    // The package module's messages name the file, the cause and the remedy.
    return std::unexpected(std::string(error.what()));
  }
  const auto index_text = files.find(std::string(kIndexJson));
  if (index_text == files.end()) {
    return std::unexpected(problem_with(archive, "has no info/index.json: it is not a conda package or it is "
                                                 "damaged; rebuild or delete it"));
  }
  auto record = parse_bounded_json(index_text->second);
  if (!record) return std::unexpected(problem_with(archive, "info/index.json " + record.error() + "; rebuild it"));
  if (auto problem = index_fields_problem(*record, filename, subdir); !problem.empty()) {
    return std::unexpected(problem_with(archive, "info/index.json " + problem));
  }

  IndexedPackage indexed;
  indexed.run_exports = json::object();
  if (const auto exports = files.find(std::string(kRunExportsJson)); exports != files.end()) {
    auto parsed = parse_bounded_json(exports->second);
    if (!parsed) return std::unexpected(problem_with(archive, "info/run_exports.json " + parsed.error()));
    if (!parsed->is_object()) return std::unexpected(problem_with(archive, "info/run_exports.json is not an object"));
    if (auto problem = check_bounds(*parsed); !problem.empty()) {
      return std::unexpected(problem_with(archive, "info/run_exports.json " + problem));
    }
    indexed.run_exports = std::move(*parsed);
  }

  package::FileDigests digests;
  try {
    digests = package::hash_file(archive, true, true);
  } catch (const package::PackageError& error) {
    return std::unexpected(std::string(error.what()));
  }
  for (const auto key : kDroppedFields) record->erase(std::string(key));
  // Packages from before conda-build wrote `subdir` get their directory's:
  // every reader files records by it.
  if (const auto it = record->find("subdir"); it == record->end() || it->is_null()) (*record)["subdir"] = subdir;
  (*record)["md5"] = digests.md5;
  (*record)["sha256"] = digests.sha256;
  (*record)["size"] = digests.size;
  indexed.record = std::move(*record);
  return indexed;
}

std::string cached_record_problem(const json& record, std::string_view filename, std::string_view subdir) {
  if (auto problem = index_fields_problem(record, filename, subdir); !problem.empty()) return problem;
  if (!is_hex(record.value("md5", json()), 32) || !is_hex(record.value("sha256", json()), 64) ||
      !is_unsigned(record.value("size", json()))) {
    return "lacks a valid md5, sha256 or size";
  }
  return {};
}

}  // namespace gpuenv::repodata
