#include "gpuenv/prefix/prefix_record.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "gpuenv/package/file_content.hpp"
#include "gpuenv/package/package_error.hpp"
#include "gpuenv/package/record_json.hpp"
#include "gpuenv/prefix/prefix_error.hpp"
#include "gpuenv/specs/url_credentials.hpp"
#include "gpuenv/util/file_io.hpp"

namespace gpuenv::prefix {

namespace {

constexpr std::pair<PrefixPathType, std::string_view> kPathTypeNames[] = {
    {PrefixPathType::hardlink, "hardlink"},
    {PrefixPathType::softlink, "softlink"},
    {PrefixPathType::directory, "directory"},
    {PrefixPathType::pyc_file, "pyc_file"},
    {PrefixPathType::unix_python_entry_point, "unix_python_entry_point"},
    {PrefixPathType::windows_python_entry_point_script, "windows_python_entry_point_script"},
    {PrefixPathType::windows_python_entry_point_exe, "windows_python_entry_point_exe"},
    {PrefixPathType::linked_package_record, "linked_package_record"},
};

PrefixPathEntry read_path_entry(const nlohmann::json& item) {
  namespace field = package::json_field;
  PrefixPathEntry entry;
  entry.path = field::string(item, "_path");
  entry.path_type = parse_prefix_path_type(field::string(item, "path_type"));
  entry.sha256 = field::string(item, "sha256");
  entry.sha256_in_prefix = field::string(item, "sha256_in_prefix");
  entry.size_in_bytes = field::optional_unsigned(item, "size_in_bytes");
  entry.prefix_placeholder = field::string(item, "prefix_placeholder");
  entry.file_mode = field::string(item, "file_mode") == "binary" ? package::FileMode::binary
                                                                 : package::FileMode::text;
  entry.no_link = field::boolean(item, "no_link");
  return entry;
}

nlohmann::json path_entry_json(const PrefixPathEntry& entry) {
  nlohmann::json item = {{"_path", entry.path}, {"path_type", to_string(entry.path_type)}};
  if (!entry.sha256.empty()) item["sha256"] = entry.sha256;
  if (!entry.sha256_in_prefix.empty()) item["sha256_in_prefix"] = entry.sha256_in_prefix;
  if (entry.size_in_bytes) item["size_in_bytes"] = *entry.size_in_bytes;
  if (!entry.prefix_placeholder.empty()) {
    item["prefix_placeholder"] = entry.prefix_placeholder;
    item["file_mode"] = package::to_string(entry.file_mode);
  }
  if (entry.no_link) item["no_link"] = true;
  return item;
}

bool has_scheme(std::string_view text) {
  const auto colon = text.find("://");
  return colon != std::string_view::npos && colon > 0;
}

}  // namespace

std::string_view to_string(PrefixPathType type) noexcept {
  for (const auto& [value, name] : kPathTypeNames) {
    if (value == type) return name;
  }
  return "hardlink";
}

PrefixPathType parse_prefix_path_type(std::string_view text) noexcept {
  for (const auto& [value, name] : kPathTypeNames) {
    if (name == text) return value;
  }
  return PrefixPathType::hardlink;
}

std::vector<std::string> PrefixRecord::owned_paths() const {
  if (!has_paths_data) return files;
  std::vector<std::string> owned;
  owned.reserve(paths.size());
  for (const auto& entry : paths) owned.push_back(entry.path);
  return owned;
}

std::string prefix_record_filename(const specs::PackageRecord& package) {
  return package.dist_str() + ".json";
}

std::string conda_meta_channel(const specs::PackageRecord& package) {
  std::string channel = package.channel;
  if (channel.empty() || !has_scheme(channel)) {
    // A name ("conda-forge") or nothing: the URL's directory is what conda writes.
    if (!package.url.empty() && has_scheme(package.url)) {
      const auto slash = package.url.find_last_of('/');
      return package.url.substr(0, slash);
    }
    return channel;
  }
  while (channel.ends_with('/')) channel.pop_back();
  if (!package.subdir.empty() && !channel.ends_with("/" + package.subdir)) {
    channel += "/" + package.subdir;
  }
  return channel;
}

PrefixRecord parse_prefix_record(std::string_view text, std::string_view source) {
  nlohmann::json json;
  try {
    json = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& error) {
    throw PrefixError(std::string(source) + " is not valid JSON (" + error.what() +
                      "); the prefix's package record is damaged");
  }
  namespace field = package::json_field;
  PrefixRecord record;
  try {
    record.package = package::record_from_json(json, source);
  } catch (const package::PackageError& error) {
    throw PrefixError(error.what());
  }
  record.files = field::string_list(json, "files");
  if (const auto it = json.find("paths_data"); it != json.end() && it->is_object()) {
    record.has_paths_data = true;
    record.paths_version = static_cast<int>(field::unsigned_integer(*it, "paths_version", 1));
    if (const auto paths = it->find("paths"); paths != it->end() && paths->is_array()) {
      record.paths.reserve(paths->size());
      for (const auto& item : *paths) record.paths.push_back(read_path_entry(item));
    }
  }
  record.extracted_package_dir = field::string(json, "extracted_package_dir");
  record.package_tarball_full_path = field::string(json, "package_tarball_full_path");
  if (const auto it = json.find("link"); it != json.end() && it->is_object()) {
    record.link_source = field::string(*it, "source");
    if (const auto type = field::optional_unsigned(*it, "type"); type && *type >= 1 && *type <= 4) {
      record.link_type = static_cast<LinkType>(*type);
    }
  }
  record.requested_spec = field::string(json, "requested_spec");
  record.requested_specs = field::string_list(json, "requested_specs");
  return record;
}

std::string prefix_record_json(const PrefixRecord& record) {
  nlohmann::json json = package::record_to_json(record.package);
  json["channel"] = specs::mask_credentials(conda_meta_channel(record.package));
  json["files"] = record.files;
  nlohmann::json paths = nlohmann::json::array();
  for (const auto& entry : record.paths) paths.push_back(path_entry_json(entry));
  json["paths_data"] = {{"paths", std::move(paths)}, {"paths_version", record.paths_version}};
  json["extracted_package_dir"] = record.extracted_package_dir;
  json["package_tarball_full_path"] = record.package_tarball_full_path;
  nlohmann::json link = nlohmann::json::object();
  if (!record.link_source.empty()) link["source"] = record.link_source;
  if (record.link_type) link["type"] = static_cast<int>(*record.link_type);
  json["link"] = std::move(link);
  // A spec may name a private channel by URL (`https://user:pw@host/chan::x`).
  json["requested_spec"] = specs::mask_credentials(record.requested_spec);
  if (!record.requested_specs.empty()) {
    nlohmann::json requested = nlohmann::json::array();
    for (const auto& spec : record.requested_specs) requested.push_back(specs::mask_credentials(spec));
    json["requested_specs"] = std::move(requested);
  }
  return json.dump(2) + "\n";
}

InstalledPackages read_prefix_records(const std::filesystem::path& prefix) {
  InstalledPackages installed;
  const auto conda_meta = prefix / "conda-meta";
  for (const auto& name : util::list_directory(conda_meta)) {
    if (!name.ends_with(".json") || name.starts_with(".")) continue;
    const auto path = conda_meta / name;
    try {
      const auto text = package::read_whole_file(path);
      if (!text) continue;  // removed meanwhile
      installed.records.push_back(parse_prefix_record(*text, path.string()));
    } catch (const std::exception& error) {
      installed.problems.push_back(error.what());
    }
  }
  std::sort(installed.records.begin(), installed.records.end(),
            [](const PrefixRecord& a, const PrefixRecord& b) {
              return a.package.name < b.package.name;
            });
  return installed;
}

}  // namespace gpuenv::prefix
