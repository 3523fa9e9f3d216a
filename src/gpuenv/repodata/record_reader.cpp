#include "gpuenv/repodata/record_reader.hpp"

#include <cstring>

#include "gpuenv/repodata/json_reading.hpp"
#include "gpuenv/repodata/repodata_revisions.hpp"
#include "gpuenv/specs/package_filename.hpp"

namespace gpuenv::repodata {
namespace {

namespace ondemand = simdjson::ondemand;

enum class Field : std::uint8_t {
  other, name, version, build, build_number, subdir, md5, sha256, size, timestamp, license,
  license_family, noarch, depends, constrains, track_features, features,
  python_site_packages_path, flags,
};

// Dispatch on length first: a record has ~15 keys and this runs for each
// of them, hundreds of thousands of times per channel.
Field classify(std::string_view key) noexcept {
  const auto is = [&](const char* literal) { return std::memcmp(key.data(), literal, key.size()) == 0; };
  switch (key.size()) {
    case 3: return is("md5") ? Field::md5 : Field::other;
    case 4:
      if (is("name")) return Field::name;
      if (is("size")) return Field::size;
      return Field::other;
    case 5:
      if (is("build")) return Field::build;
      if (is("flags")) return Field::flags;
      return Field::other;
    case 6:
      if (is("subdir")) return Field::subdir;
      if (is("sha256")) return Field::sha256;
      if (is("noarch")) return Field::noarch;
      return Field::other;
    case 7:
      if (is("version")) return Field::version;
      if (is("depends")) return Field::depends;
      if (is("license")) return Field::license;
      return Field::other;
    case 8: return is("features") ? Field::features : Field::other;
    case 9: return is("timestamp") ? Field::timestamp : Field::other;
    case 10: return is("constrains") ? Field::constrains : Field::other;
    case 12: return is("build_number") ? Field::build_number : Field::other;
    case 14:
      if (is("track_features")) return Field::track_features;
      if (is("license_family")) return Field::license_family;
      return Field::other;
    case 25: return is("python_site_packages_path") ? Field::python_site_packages_path : Field::other;
    default: return Field::other;
  }
}

// repodata's `noarch`: "generic", "python", the legacy `true`, or null/false.
simdjson::error_code read_noarch(ondemand::value& value, specs::NoarchType& out) noexcept {
  ondemand::json_type type;
  if (auto error = value.type().get(type)) return error;
  switch (type) {
    case ondemand::json_type::string: {
      std::string_view text;
      if (auto error = json::read_string(value, text)) return error;
      out = specs::parse_noarch(text);
      return simdjson::SUCCESS;
    }
    case ondemand::json_type::boolean: {
      bool flag = false;
      if (auto error = value.get_bool().get(flag)) return error;
      out = flag ? specs::NoarchType::generic : specs::NoarchType::none;
      return simdjson::SUCCESS;
    }
    case ondemand::json_type::null: out = specs::NoarchType::none; return simdjson::SUCCESS;
    default: return simdjson::INCORRECT_TYPE;
  }
}

const char* field_problem(Field field) noexcept {
  switch (field) {
    case Field::name: return "'name' is not a string";
    case Field::version: return "'version' is not a string";
    case Field::build: return "'build' is not a string";
    case Field::build_number: return "'build_number' is not a non-negative integer";
    case Field::depends: return "'depends' is not a list of strings";
    case Field::constrains: return "'constrains' is not a list of strings";
    case Field::flags: return "'flags' is not a list of strings";
    case Field::size: return "'size' is not a non-negative integer";
    case Field::timestamp: return "'timestamp' is not a non-negative number";
    default: return "a field has the wrong type";
  }
}

// The key becomes a path in the package cache (<pkgs>/<key>, <pkgs>/<stem>/)
// and a URL: only a bare file name that is the record's own
// name-version-build gets through, whatever the channel wrote.
std::string_view filename_problem(std::string_view filename, const RawRecord& record) noexcept {
  if (!specs::filename_matches_record(filename, record.name, record.version, record.build)) {
    return "the file name is not the record's name-version-build followed by .conda or .tar.bz2";
  }
  return {};
}

bool has_nul(std::string_view text) noexcept { return text.find('\0') != std::string_view::npos; }

bool any_has_nul(const std::vector<std::string_view>& texts) noexcept {
  for (const auto text : texts) {
    if (has_nul(text)) return true;
  }
  return false;
}

// libsolv, file systems and URLs read a string up to its first NUL: a
// record holding one would be solved, fetched and recorded as something
// the channel did not write ("py36\u0000_evil" as "py36"). No conda field
// may hold one, so the record is refused, naming the field.
std::string_view nul_problem(const RawRecord& record, const std::vector<std::string_view>& depends,
                             const std::vector<std::string_view>& constrains,
                             const std::vector<std::string_view>& track_features,
                             const std::vector<std::string_view>& features,
                             const std::vector<std::string_view>& flags) noexcept {
  const std::pair<std::string_view, std::string_view> fields[] = {
      {record.name, "'name' holds a NUL character"},
      {record.version, "'version' holds a NUL character"},
      {record.build, "'build' holds a NUL character"},
      {record.subdir, "'subdir' holds a NUL character"},
      {record.md5, "'md5' holds a NUL character"},
      {record.sha256, "'sha256' holds a NUL character"},
      {record.license, "'license' holds a NUL character"},
      {record.license_family, "'license_family' holds a NUL character"},
      {record.python_site_packages_path, "'python_site_packages_path' holds a NUL character"},
  };
  for (const auto& [text, problem] : fields) {
    if (has_nul(text)) return problem;
  }
  if (any_has_nul(depends)) return "a 'depends' entry holds a NUL character";
  if (any_has_nul(constrains)) return "a 'constrains' entry holds a NUL character";
  if (any_has_nul(track_features)) return "'track_features' holds a NUL character";
  if (any_has_nul(features)) return "'features' holds a NUL character";
  if (any_has_nul(flags)) return "'flags' holds a NUL character";
  return {};
}

}  // namespace

// The key first (it becomes a path), then the strings, then whether the key
// is the record's own name.
std::string_view RecordReader::record_problem(std::string_view filename, const RawRecord& record) const noexcept {
  if (const auto problem = specs::package_filename_problem(filename); !problem.empty()) return problem;
  if (const auto problem = nul_problem(record, depends_, constrains_, track_features_, features_, flags_); !problem.empty()) {
    return problem;
  }
  return filename_problem(filename, record);
}

simdjson::error_code RecordReader::read(ondemand::object& object, std::string_view filename,
                                        RawRecord& record, std::string_view& problem) {
  record = RawRecord{};
  record.filename = filename;
  record.archive = archive_kind_of(filename);
  problem = {};
  depends_.clear();
  constrains_.clear();
  track_features_.clear();
  features_.clear();
  flags_.clear();
  bool has_build = false;

  for (auto field_result : object) {
    ondemand::field field;
    if (auto error = std::move(field_result).get(field)) return error;
    const Field which = classify(json::raw_key(field));
    if (which == Field::other) continue;  // the iterator skips the value
    ondemand::value value = field.value();
    simdjson::error_code error = simdjson::SUCCESS;
    std::uint64_t number = 0;
    switch (which) {
      case Field::name: error = json::read_string(value, record.name); break;
      case Field::version: error = json::read_string(value, record.version); break;
      case Field::build:
        error = json::read_string(value, record.build);
        has_build = !error;
        break;
      case Field::build_number: error = json::read_unsigned(value, record.build_number); break;
      case Field::subdir: error = json::read_optional_string(value, record.subdir); break;
      case Field::md5: error = json::read_optional_string(value, record.md5); break;
      case Field::sha256: error = json::read_optional_string(value, record.sha256); break;
      case Field::license: error = json::read_optional_string(value, record.license); break;
      case Field::license_family:
        error = json::read_optional_string(value, record.license_family);
        break;
      case Field::python_site_packages_path:
        error = json::read_optional_string(value, record.python_site_packages_path);
        break;
      case Field::size:
        if (!(error = json::read_unsigned(value, number))) record.size = number;
        break;
      case Field::timestamp:
        if (!(error = json::read_unsigned(value, number))) {
          record.timestamp_ms = specs::normalize_timestamp(number);
        }
        break;
      case Field::noarch: error = read_noarch(value, record.noarch); break;
      case Field::depends: error = json::read_string_array(value, depends_); break;
      case Field::constrains: error = json::read_string_array(value, constrains_); break;
      case Field::track_features: error = json::read_features(value, track_features_); break;
      case Field::features: error = json::read_features(value, features_); break;
      case Field::flags: error = json::read_string_array(value, flags_); break;
      case Field::other: break;
    }
    if (error) {
      if (!json::is_value_error(error)) return error;
      // Keep reading: the rest of the object must still be consumed.
      if (problem.empty()) problem = field_problem(which);
    }
  }
  if (problem.empty()) {
    if (record.name.empty()) problem = "no 'name'";
    else if (record.version.empty()) problem = "no 'version'";
    else if (!has_build) problem = "no 'build'";
    else problem = record_problem(filename, record);
  }
  record.depends = depends_;
  record.constrains = constrains_;
  record.track_features = track_features_;
  record.features = features_;
  record.flags = flags_;
  return simdjson::SUCCESS;
}

simdjson::error_code read_repodata_info(ondemand::value& value, RepodataHeader& header) {
  ondemand::object info;
  if (auto error = value.get_object().get(info)) return error;
  for (auto field_result : info) {
    ondemand::field field;
    if (auto error = std::move(field_result).get(field)) return error;
    const std::string_view key = json::raw_key(field);
    if (key == "repodata_revisions") {
      ondemand::value revisions = field.value();
      if (auto error = read_repodata_revisions(revisions, header.revisions); error && !json::is_value_error(error)) {
        return error;
      }
      continue;
    }
    if (key != "subdir" && key != "base_url") continue;
    ondemand::value item = field.value();
    std::string_view text;
    if (auto error = json::read_optional_string(item, text)) {
      if (!json::is_value_error(error)) return error;
      continue;
    }
    (key == "subdir" ? header.subdir : header.base_url) = std::string(text);
  }
  return simdjson::SUCCESS;
}

}  // namespace gpuenv::repodata
