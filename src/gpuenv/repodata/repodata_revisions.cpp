#include "gpuenv/repodata/repodata_revisions.hpp"

#include "gpuenv/repodata/json_reading.hpp"

namespace gpuenv::repodata {
namespace {

namespace ondemand = simdjson::ondemand;

constexpr std::size_t max_message_bytes = 8192;  // CEP 48
constexpr std::size_t max_revisions = 16;        // a hostile file cannot make the header grow without bound

// A number or null; a value of another type leaves `out` unset.
simdjson::error_code read_optional_number(ondemand::value& value, std::optional<std::uint64_t>& out) {
  bool is_null = false;
  if (value.is_null().get(is_null) == simdjson::SUCCESS && is_null) return simdjson::SUCCESS;
  std::uint64_t number = 0;
  if (auto error = json::read_unsigned(value, number)) return json::is_value_error(error) ? simdjson::SUCCESS : error;
  out = number;
  return simdjson::SUCCESS;
}

// Shown on a terminal: control characters (escape sequences a hostile
// channel could use to rewrite the screen) become spaces, newlines stay.
// Cut at a UTF-8 character boundary so the message stays printable.
std::string bounded_message(std::string_view text) {
  if (text.size() > max_message_bytes) {
    std::size_t end = max_message_bytes;
    while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
    text = text.substr(0, end);
  }
  std::string out(text);
  for (char& c : out) {
    const auto byte = static_cast<unsigned char>(c);
    if ((byte < 0x20 && c != '\n') || byte == 0x7f) c = ' ';
  }
  return out;
}

}  // namespace

bool is_known_revision_key(std::string_view key) noexcept { return key == "v3"; }

simdjson::error_code read_repodata_revisions(ondemand::value& value, std::vector<RepodataRevision>& out) {
  ondemand::object revisions;
  if (auto error = value.get_object().get(revisions)) return error;
  for (auto revision_result : revisions) {
    ondemand::field revision_field;
    if (auto error = std::move(revision_result).get(revision_field)) return error;
    RepodataRevision revision;
    std::string_view key;
    if (auto error = revision_field.unescaped_key().get(key)) return error;
    revision.key = bounded_message(key.substr(0, 64));
    ondemand::object fields;
    if (auto error = revision_field.value().get_object().get(fields)) {
      if (!json::is_value_error(error)) return error;
      continue;
    }
    for (auto field_result : fields) {
      ondemand::field field;
      if (auto error = std::move(field_result).get(field)) return error;
      const std::string_view name = json::raw_key(field);
      ondemand::value item = field.value();
      simdjson::error_code error = simdjson::SUCCESS;
      if (name == "message") {
        std::string_view text;
        error = json::read_optional_string(item, text);
        if (!error) revision.message = bounded_message(text);
      } else if (name == "n_packages") {
        error = read_optional_number(item, revision.n_packages);
      } else if (name == "oldest") {
        error = read_optional_number(item, revision.oldest_ms);
      } else if (name == "newest") {
        error = read_optional_number(item, revision.newest_ms);
      }
      if (error && !json::is_value_error(error)) return error;
    }
    if (out.size() < max_revisions) out.push_back(std::move(revision));
  }
  return simdjson::SUCCESS;
}

}  // namespace gpuenv::repodata
