#include "gpuenv/builder/output_channel.hpp"

#include "gpuenv/repodata/channel_index.hpp"

namespace gpuenv::build {

namespace fs = std::filesystem;

std::expected<std::vector<std::string>, BuildError> prepare_local_channel(const fs::path& channel_dir,
                                                                          const std::vector<std::string>& subdirs) {
  std::error_code error;
  for (const auto& subdir : subdirs) {
    fs::create_directories(channel_dir / subdir, error);
    if (error) {
      return std::unexpected(BuildError{BuildErrorKind::packaging, "cannot create the channel directory " +
                                                                       (channel_dir / subdir).string() + ": " +
                                                                       error.message()});
    }
  }
  auto indexed = repodata::index_channel(channel_dir);
  if (!indexed) return std::unexpected(BuildError{BuildErrorKind::packaging, indexed.error().message});
  std::vector<std::string> warnings;
  for (const auto& problem : indexed->problems) warnings.push_back("indexing " + channel_dir.string() + ": " + problem.message);
  return warnings;
}

environment::Settings with_local_channels(environment::Settings settings, const std::vector<fs::path>& channel_dirs) {
  std::vector<std::string> channels;
  for (const auto& dir : channel_dirs) channels.push_back("file://" + dir.lexically_normal().string());
  for (auto& channel : settings.command_line_channels) channels.push_back(std::move(channel));
  settings.command_line_channels = std::move(channels);
  return settings;
}

}  // namespace gpuenv::build
