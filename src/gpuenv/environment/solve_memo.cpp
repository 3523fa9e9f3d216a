#include "gpuenv/environment/solve_memo.hpp"

#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <system_error>

#include "gpuenv/package/hashing.hpp"
#include "gpuenv/package/record_json.hpp"
#include "gpuenv/util/file_io.hpp"

namespace gpuenv::environment {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view memo_format = "gpuenv-solve-memo-1";  // of the entries; the key has its own parts

// The key's text: each part written as <length>:<bytes>, each list ended
// by '|', so that no two different inputs join into one text, whatever
// bytes the values hold.
class KeyText {
 public:
  void part(std::string_view value) {
    text_ += std::to_string(value.size());
    text_ += ':';
    text_.append(value);
  }
  void end_list() { text_ += '|'; }
  void specs(const std::vector<specs::MatchSpec>& list) {
    // As written (what the parser read) and as conda prints it (for specs
    // made in code, which have no text).
    for (const auto& spec : list) {
      part(spec.original());
      part(spec.str());
    }
    end_list();
  }
  const std::string& text() const { return text_; }

 private:
  std::string text_;
};

// Another build of gpuenv may read or solve differently; nullopt when this
// one cannot be told apart from another build of the same version.
std::optional<std::string> this_binary() {
  struct stat info {};
  if (::stat("/proc/self/exe", &info) != 0) return std::nullopt;
  return fmt::format("{} {} {} {} {}.{:09}", GPUENV_VERSION, info.st_dev, info.st_ino, info.st_size,
                     info.st_mtim.tv_sec, info.st_mtim.tv_nsec);
}

// A record's JSON, when it reads back equal to the record: then the JSON
// says everything the record does.
std::optional<nlohmann::json> faithful_json(const specs::PackageRecord& record) {
  try {
    auto json = package::record_to_json(record);
    if (package::record_from_json(json, "a solve memo record") != record) return std::nullopt;
    return json;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

std::optional<nlohmann::json> records_json(const std::vector<specs::PackageRecord>& records) {
  auto list = nlohmann::json::array();
  for (const auto& record : records) {
    auto json = faithful_json(record);
    if (!json) return std::nullopt;
    list.push_back(std::move(*json));
  }
  return list;
}

std::vector<specs::PackageRecord> records_from(const nlohmann::json& list) {
  std::vector<specs::PackageRecord> records;
  for (const auto& json : list) records.push_back(package::record_from_json(json, "a solve memo record"));
  return records;
}

bool is_key(std::string_view key) {
  return key.size() == 64 && std::all_of(key.begin(), key.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

// Oldest first beyond max_entries, so that the memo stays small.
void prune(const fs::path& directory, std::size_t keep) {
  std::error_code error;
  std::vector<std::pair<fs::file_time_type, fs::path>> entries;
  for (const auto& entry : fs::directory_iterator(directory, error)) {
    if (entry.path().extension() != ".json" || !entry.is_regular_file(error)) continue;
    entries.emplace_back(entry.last_write_time(error), entry.path());
  }
  if (entries.size() <= keep) return;
  std::sort(entries.begin(), entries.end());
  for (std::size_t i = 0; i + keep < entries.size(); ++i) fs::remove(entries[i].second, error);
}

}  // namespace

std::optional<std::string> solve_memo_key(const SolveMemoInputs& inputs) {
  KeyText key;
  key.part(memo_format);
  const auto binary = this_binary();
  if (!binary) return std::nullopt;
  key.part(*binary);
  key.part(inputs.loaded_records);
  key.end_list();

  // Structured bindings name every field: a field added to one of these
  // structs stops this compiling until it joins the key.
  const auto& [install, update, update_all, remove, pins, channel_priority, narrow_pool] = inputs.request;
  key.specs(install);
  key.specs(update);
  key.specs(remove);
  key.specs(pins);
  key.part(update_all ? "update-all" : "-");
  key.part(std::to_string(static_cast<int>(channel_priority)));
  key.part(narrow_pool ? "narrow" : "whole");
  key.end_list();

  for (const auto& record : inputs.installed) {
    auto json = faithful_json(record);
    if (!json) return std::nullopt;
    key.part(json->dump());
  }
  key.end_list();

  key.part(inputs.machine.platform);
  for (const auto& package : inputs.machine.virtual_packages) {
    const auto& [name, version, build] = package;
    key.part(name);
    key.part(version);
    key.part(build);
  }
  key.end_list();

  const auto& [channel_alias, default_channels, custom_channels, custom_multichannels, home_directory,
               current_directory] = inputs.channel_context;
  key.part(channel_alias);
  for (const auto& channel : default_channels) key.part(channel);
  key.end_list();
  for (const auto& [name, url] : custom_channels) {
    key.part(name);
    key.part(url);
  }
  key.end_list();
  for (const auto& [name, members] : custom_multichannels) {
    key.part(name);
    for (const auto& member : members) key.part(member);
    key.end_list();
  }
  key.end_list();
  key.part(home_directory);
  key.part(current_directory);
  return package::sha256_hex(key.text());
}

SolveMemo::SolveMemo(fs::path directory) : directory_(std::move(directory)) {}

std::optional<solver::Solution> SolveMemo::find(const std::string& key) const {
  if (!is_key(key)) return std::nullopt;
  const auto text = util::read_regular_file_at_most(directory_ / (key + ".json"), max_entry_bytes);
  if (!text) return std::nullopt;
  try {
    const auto json = nlohmann::json::parse(*text);
    if (json.at("format") != memo_format || json.at("key") != key) return std::nullopt;
    solver::Solution solution;
    solution.link = records_from(json.at("link"));
    solution.unlink = records_from(json.at("unlink"));
    return solution;
  } catch (const std::exception&) {
    return std::nullopt;  // damaged: solved again, and written anew
  }
}

void SolveMemo::store(const std::string& key, const solver::Solution& solution) const {
  if (!is_key(key)) return;
  auto link = records_json(solution.link);
  auto unlink = records_json(solution.unlink);
  if (!link || !unlink) return;
  const nlohmann::json entry = {
      {"format", memo_format}, {"key", key}, {"link", std::move(*link)}, {"unlink", std::move(*unlink)}};
  if (util::write_file_atomically(directory_ / (key + ".json"), entry.dump())) return;
  prune(directory_, max_entries);
}

}  // namespace gpuenv::environment
