#include "repository_options.hpp"

#include <algorithm>

namespace gpuenv::cli {

namespace fs = std::filesystem;

void add_repository_options(CLI::App* command, RepositoryArguments& arguments) {
  command->add_option("--source-for", arguments.sources_for,
                      "RECIPE=PATH: build that recipe (its directory's name) from this directory or archive, as "
                      "--source does for one recipe, within a build of several (repeatable)")
      ->allow_extra_args(false);
  command->add_option("--source-archives", arguments.source_archives,
                      "A directory of source archives fetched another way (Debian's .orig tarballs, a mirror): a url "
                      "source whose sha256 one of its files has is taken from that file, whatever its name "
                      "(repeatable)")
      ->allow_extra_args(false);
  command->add_flag("--skip-existing{local}", arguments.skip_existing,
                    "Do not build a variant whose package is already in the output channel: local, or none to "
                    "rebuild (default: local when several recipes or a directory of recipes are built, none for one)");
}

std::expected<std::map<fs::path, std::string>, std::string> sources_for_recipes(
    const std::vector<std::string>& arguments, const std::vector<fs::path>& recipe_files) {
  std::map<fs::path, std::string> sources;
  for (const auto& text : arguments) {
    const auto equals = text.find('=');
    const auto name = text.substr(0, equals);
    const auto recipe = std::find_if(recipe_files.begin(), recipe_files.end(),
                                     [&name](const fs::path& file) { return file.parent_path().filename() == name; });
    if (equals == std::string::npos || equals + 1 == text.size() || recipe == recipe_files.end()) {
      return std::unexpected("--source-for " + text + " does not name a recipe being built: write RECIPE=PATH, "
                             "RECIPE being the recipe's directory name (recipes/zlib: zlib)");
    }
    sources[*recipe] = text.substr(equals + 1);
  }
  return sources;
}

std::expected<bool, std::string> skip_existing_of(const std::string& value, std::size_t recipes) {
  if (value.empty()) return recipes > 1;
  if (value == "local") return true;
  if (value == "none") return false;
  if (value == "all") {
    return std::unexpected(std::string("--skip-existing all (also skipping what the -c channels have) is not "
                                       "supported yet: use local (the output channel) or none"));
  }
  return std::unexpected("--skip-existing " + value + " is not one of none, local");
}

}  // namespace gpuenv::cli
