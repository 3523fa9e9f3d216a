#include "gpuenv/prefix/prefix_record.hpp"

#include <algorithm>
#include <optional>
#include <nlohmann/json.hpp>

#include "gpuenv/package/file_content.hpp"
#include "gpuenv/package/package_error.hpp"
#include "gpuenv/package/record_json.hpp"
#include "gpuenv/prefix/prefix_error.hpp"
#include "gpuenv/specs/url_credentials.hpp"
#include "gpuenv/util/file_io.hpp"
#include "gpuenv/util/json_writer.hpp"

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

// One paths_data entry, its keys in sorted order ("_path" sorts first).
void write_path_entry(util::JsonWriter& writer, const PrefixPathEntry& entry) {
  writer.begin_object();
  writer.field("_path", entry.path);
  if (!entry.prefix_placeholder.empty()) writer.field("file_mode", package::to_string(entry.file_mode));
  if (entry.no_link) writer.field("no_link", true);
  writer.field("path_type", to_string(entry.path_type));
  if (!entry.prefix_placeholder.empty()) writer.field("prefix_placeholder", entry.prefix_placeholder);
  if (!entry.sha256.empty()) writer.field("sha256", entry.sha256);
  if (!entry.sha256_in_prefix.empty()) writer.field("sha256_in_prefix", entry.sha256_in_prefix);
  if (entry.size_in_bytes) writer.field("size_in_bytes", *entry.size_in_bytes);
  writer.end_object();
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
  // The small fields go through nlohmann (their sorted order for free); the
  // files and paths_data lists, nearly all of a record, are streamed into
  // their sorted places: building them as a tree and dumping it was a fifth
  // of a warm install's CPU.
  nlohmann::json fields = package::record_to_json(record.package);
  fields["channel"] = specs::mask_credentials(conda_meta_channel(record.package));
  fields["extracted_package_dir"] = record.extracted_package_dir;
  fields["package_tarball_full_path"] = record.package_tarball_full_path;
  nlohmann::json link = nlohmann::json::object();
  if (!record.link_source.empty()) link["source"] = record.link_source;
  if (record.link_type) link["type"] = static_cast<int>(*record.link_type);
  fields["link"] = std::move(link);
  // A spec may name a private channel by URL (`https://user:pw@host/chan::x`).
  fields["requested_spec"] = specs::mask_credentials(record.requested_spec);
  if (!record.requested_specs.empty()) {
    nlohmann::json requested = nlohmann::json::array();
    for (const auto& spec : record.requested_specs) requested.push_back(specs::mask_credentials(spec));
    fields["requested_specs"] = std::move(requested);
  }

  std::size_t estimate = 1024;
  for (const auto& entry : record.paths) estimate += 2 * entry.path.size() + 300;
  std::string out;
  out.reserve(estimate);
  util::JsonWriter writer(out);
  bool files_written = false;
  bool paths_written = false;
  // Writes the streamed lists whose keys sort before `next_key` (all that
  // are left when there is none).
  const auto write_lists_before = [&](std::optional<std::string_view> next_key) {
    if (!files_written && (!next_key || std::string_view("files") < *next_key)) {
      writer.field("files", record.files);
      files_written = true;
    }
    if (!paths_written && (!next_key || std::string_view("paths_data") < *next_key)) {
      writer.key("paths_data");
      writer.begin_object();
      writer.key("paths");
      writer.begin_array();
      for (const auto& entry : record.paths) write_path_entry(writer, entry);
      writer.end_array();
      writer.field("paths_version", static_cast<std::uint64_t>(record.paths_version));
      writer.end_object();
      paths_written = true;
    }
  };
  writer.begin_object();
  for (auto it = fields.begin(); it != fields.end(); ++it) {
    write_lists_before(it.key());
    writer.key(it.key());
    package::write_json_value(writer, it.value());
  }
  write_lists_before(std::nullopt);
  writer.end_object();
  out.push_back('\n');
  return out;
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
