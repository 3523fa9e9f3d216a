#include "gpuenv/package/record_json.hpp"

#include <charconv>

#include "gpuenv/package/package_error.hpp"
#include "gpuenv/specs/url_credentials.hpp"

namespace gpuenv::package {

namespace json_field {

namespace {
const nlohmann::json* find(const nlohmann::json& object, std::string_view key) {
  if (!object.is_object()) return nullptr;
  const auto it = object.find(key);
  return it == object.end() || it->is_null() ? nullptr : &*it;
}
}  // namespace

std::string string(const nlohmann::json& object, std::string_view key, std::string fallback) {
  return string_value(find(object, key), std::move(fallback));
}

std::string string_value(const nlohmann::json* value, std::string fallback) {
  if (value == nullptr || value->is_null()) return fallback;
  if (value->is_string()) return value->get<std::string>();
  if (value->is_number_integer()) return std::to_string(value->get<std::int64_t>());
  return fallback;
}

std::optional<std::uint64_t> optional_unsigned(const nlohmann::json& object, std::string_view key) {
  return optional_unsigned_value(find(object, key));
}

std::optional<std::uint64_t> optional_unsigned_value(const nlohmann::json* value) {
  if (value == nullptr || value->is_null()) return std::nullopt;
  if (value->is_number_unsigned()) return value->get<std::uint64_t>();
  if (value->is_number_integer()) {
    const auto number = value->get<std::int64_t>();
    return number < 0 ? std::nullopt : std::optional<std::uint64_t>(std::uint64_t(number));
  }
  if (value->is_number_float()) {
    const double number = value->get<double>();
    if (number >= 0 && number < 1.8e19) return static_cast<std::uint64_t>(number);
    return std::nullopt;
  }
  if (value->is_string()) {
    const auto& text = value->get_ref<const std::string&>();
    std::uint64_t number = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), number);
    if (error == std::errc() && end == text.data() + text.size() && !text.empty()) return number;
  }
  return std::nullopt;
}

std::uint64_t unsigned_integer(const nlohmann::json& object, std::string_view key,
                               std::uint64_t fallback) {
  return optional_unsigned(object, key).value_or(fallback);
}

bool boolean(const nlohmann::json& object, std::string_view key, bool fallback) {
  return boolean_value(find(object, key), fallback);
}

bool boolean_value(const nlohmann::json* value, bool fallback) {
  if (value == nullptr || value->is_null()) return fallback;
  if (value->is_boolean()) return value->get<bool>();
  if (value->is_string()) return *value == "true" || *value == "True";
  return fallback;
}

std::vector<std::string> string_list(const nlohmann::json& object, std::string_view key) {
  std::vector<std::string> list;
  const auto* value = find(object, key);
  if (value == nullptr) return list;
  if (value->is_string()) {
    list.push_back(value->get<std::string>());
  } else if (value->is_array()) {
    for (const auto& item : *value) {
      if (item.is_string()) list.push_back(item.get<std::string>());
    }
  }
  return list;
}

}  // namespace json_field

namespace {

// conda's features fields: "a b", "a,b", or a list of such strings.
std::vector<std::string> read_features(const nlohmann::json& object, std::string_view key) {
  std::string joined;
  for (const auto& piece : json_field::string_list(object, key)) joined += piece + " ";
  return specs::split_features(joined);
}

std::string join_features(const std::vector<std::string>& features) {
  std::string joined;
  for (const auto& feature : features) {
    if (!joined.empty()) joined += ' ';
    joined += feature;
  }
  return joined;
}

}  // namespace

specs::PackageRecord record_from_json(const nlohmann::json& json, std::string_view source) {
  if (!json.is_object()) {
    throw PackageError(std::string(source) + " is not a JSON object; the file is damaged");
  }
  using namespace json_field;
  specs::PackageRecord record;
  record.name = string(json, "name");
  record.set_version(string(json, "version"));
  record.build = string(json, "build");
  if (record.name.empty() || record.version.empty() || record.build.empty()) {
    throw PackageError(std::string(source) +
                       " lacks one of name, version, build; the file is damaged or not "
                       "conda package metadata");
  }
  record.build_number = unsigned_integer(json, "build_number");
  record.subdir = string(json, "subdir");
  record.fn = string(json, "fn");
  record.url = string(json, "url");
  record.channel = string(json, "channel");
  record.md5 = string(json, "md5");
  record.sha256 = string(json, "sha256");
  record.size = optional_unsigned(json, "size");
  record.legacy_bz2_md5 = string(json, "legacy_bz2_md5");
  record.legacy_bz2_size = optional_unsigned(json, "legacy_bz2_size");
  record.depends = string_list(json, "depends");
  record.constrains = string_list(json, "constrains");
  if (const auto it = json.find("extra_depends"); it != json.end() && it->is_object()) {
    for (const auto& [group, specs] : it->items()) {
      auto& list = record.extra_depends[group];
      if (specs.is_array()) {
        for (const auto& spec : specs) {
          if (spec.is_string()) list.push_back(spec.get<std::string>());
        }
      }
    }
  }
  record.track_features = read_features(json, "track_features");
  record.features = read_features(json, "features");
  record.flags = string_list(json, "flags");
  record.license = string(json, "license");
  record.license_family = string(json, "license_family");
  if (const auto it = json.find("noarch"); it != json.end()) {
    if (it->is_string()) record.noarch = specs::parse_noarch(it->get<std::string>());
    if (it->is_boolean() && it->get<bool>()) record.noarch = specs::NoarchType::generic;
  }
  record.timestamp = specs::normalize_timestamp(unsigned_integer(json, "timestamp"));
  record.arch = string(json, "arch");
  record.platform = string(json, "platform");
  record.python_site_packages_path = string(json, "python_site_packages_path");
  record.purls = string_list(json, "purls");
  return record;
}

specs::PackageRecord parse_record_json(std::string_view text, std::string_view source) {
  nlohmann::json json;
  try {
    json = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& error) {
    // nlohmann's message names the byte offset, which is what a reader needs.
    throw PackageError(std::string(source) + " is not valid JSON (" + error.what() +
                       "); the package or cache entry is damaged");
  }
  return record_from_json(json, source);
}

void write_json_value(util::JsonWriter& writer, const nlohmann::json& value) {
  using Type = nlohmann::json::value_t;
  switch (value.type()) {
    case Type::object:
      writer.begin_object();
      for (auto it = value.begin(); it != value.end(); ++it) {
        writer.key(it.key());
        write_json_value(writer, it.value());
      }
      writer.end_object();
      return;
    case Type::array:
      writer.begin_array();
      for (const auto& item : value) write_json_value(writer, item);
      writer.end_array();
      return;
    case Type::string: writer.string(value.get_ref<const std::string&>()); return;
    case Type::boolean: writer.boolean(value.get<bool>()); return;
    case Type::number_integer: writer.integer(value.get<std::int64_t>()); return;
    case Type::number_unsigned: writer.unsigned_integer(value.get<std::uint64_t>()); return;
    case Type::null: writer.null(); return;
    default: writer.raw(value.dump()); return;  // floats and binary: nlohmann's own form
  }
}

nlohmann::json record_to_json(const specs::PackageRecord& record) {
  nlohmann::json json = nlohmann::json::object();
  json["name"] = record.name;
  json["version"] = record.version;
  json["build"] = record.build;
  json["build_number"] = record.build_number;
  json["depends"] = record.depends;
  json["constrains"] = record.constrains;
  json["subdir"] = record.subdir;
  json["fn"] = record.fn;
  // Written to disk and printed: never a channel's token or password (conda
  // masks them in conda-meta the same way).
  json["url"] = specs::mask_credentials(record.url);
  json["channel"] = specs::mask_credentials(record.channel);
  json["md5"] = record.md5;
  json["license"] = record.license;
  json["license_family"] = record.license_family;  // conda writes it even when empty
  if (!record.sha256.empty()) json["sha256"] = record.sha256;
  if (record.size) json["size"] = *record.size;
  if (record.timestamp != 0) json["timestamp"] = record.timestamp;
  if (record.noarch != specs::NoarchType::none) json["noarch"] = specs::to_string(record.noarch);
  if (!record.track_features.empty()) json["track_features"] = join_features(record.track_features);
  if (!record.features.empty()) json["features"] = join_features(record.features);
  if (!record.flags.empty()) json["flags"] = record.flags;
  if (!record.arch.empty()) json["arch"] = record.arch;
  if (!record.platform.empty()) json["platform"] = record.platform;
  if (!record.python_site_packages_path.empty()) {
    json["python_site_packages_path"] = record.python_site_packages_path;
  }
  if (!record.legacy_bz2_md5.empty()) json["legacy_bz2_md5"] = record.legacy_bz2_md5;
  if (record.legacy_bz2_size) json["legacy_bz2_size"] = *record.legacy_bz2_size;
  if (!record.extra_depends.empty()) json["extra_depends"] = record.extra_depends;
  if (!record.purls.empty()) json["purls"] = record.purls;
  return json;
}

}  // namespace gpuenv::package
