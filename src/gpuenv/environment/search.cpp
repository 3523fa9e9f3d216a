#include "gpuenv/environment/search.hpp"

#include <fmt/format.h>

#include "gpuenv/environment/channel_loading.hpp"
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

}  // namespace gpuenv::environment
