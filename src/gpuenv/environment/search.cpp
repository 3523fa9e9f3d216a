#include "gpuenv/environment/search.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

#include "gpuenv/environment/channel_loading.hpp"
#include "gpuenv/package/record_json.hpp"
#include "gpuenv/specs/spec_error.hpp"

namespace gpuenv::environment {

std::expected<SearchResult, Error> search(const Settings& settings, std::string_view spec_text, Reporter& reporter) {
  std::vector<specs::MatchSpec> specs;
  try {
    specs.push_back(specs::MatchSpec::parse(spec_text, settings.channel_context));
  } catch (const specs::SpecError& error) {
    return std::unexpected(make_error(ErrorKind::invalid_spec, error.what()));
  }
  solver::PackageDatabase database;
  auto loaded = load_channels_for(database, settings, specs, {}, Reach::named_only, reporter);
  if (!loaded) return std::unexpected(loaded.error());

  SearchResult result{database.search(specs.front()), std::move(*loaded)};
  if (result.records.empty()) {
    std::vector<std::string> searched;
    for (const auto& subdir : result.loaded.subdirs) searched.push_back(subdir.source.subdir_url);
    return std::unexpected(make_error(ErrorKind::no_match,
                                      fmt::format("no package matches {} in the current channels ({})", spec_text,
                                                  fmt::join(searched, ", "))));
  }
  return result;
}

std::vector<const specs::PackageRecord*> oldest_first(const std::vector<specs::PackageRecord>& records) {
  std::vector<const specs::PackageRecord*> sorted;
  for (auto it = records.rbegin(); it != records.rend(); ++it) sorted.push_back(&*it);
  std::stable_sort(sorted.begin(), sorted.end(), [](auto* a, auto* b) { return a->name < b->name; });
  return sorted;
}

std::string conda_search_json(const std::vector<specs::PackageRecord>& records) {
  std::map<std::string, nlohmann::json> by_name;
  for (const auto* record : oldest_first(records)) {
    auto& list = by_name[record->name];
    if (list.is_null()) list = nlohmann::json::array();
    list.push_back(package::record_to_json(*record));
  }
  nlohmann::json output = nlohmann::json::object();
  for (auto& [name, list] : by_name) output[name] = std::move(list);
  return output.dump(2);
}

}  // namespace gpuenv::environment
