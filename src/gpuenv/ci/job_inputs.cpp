#include "gpuenv/ci/job_inputs.hpp"

#include <fmt/core.h>

#include <system_error>

#include "gpuenv/builder/source_override.hpp"
#include "gpuenv/net/file_url.hpp"
#include "gpuenv/specs/channel.hpp"

namespace gpuenv::ci::detail {
namespace {

namespace fs = std::filesystem;

CiError invalid(const std::string& input, std::string message) {
  return CiError{CiError::Kind::invalid, input, std::move(message)};
}

// The last name of a path as the user wrote it ("ucx-1.13.1/" -> "ucx-1.13.1"):
// the mount keeps it, so an archive keeps the extension that says how to
// extract it even when the path is a symbolic link to another name.
std::string last_name(const fs::path& absolute) {
  const auto normal = absolute.lexically_normal();
  auto name = normal.filename();
  if (name.empty()) name = normal.parent_path().filename();
  return name.string();
}

std::expected<std::string, CiError> expand_home(const CiRunRequest& request, const std::string& path,
                                                const std::string& option) {
  if (path != "~" && !path.starts_with("~/")) return path;
  const auto home = request.environment.find("HOME");
  if (home == request.environment.end() || home->second.empty()) {
    return std::unexpected(invalid(path, fmt::format("{} {}: HOME is not set; give the path without ~", option, path)));
  }
  return home->second + path.substr(1);
}

std::expected<std::optional<ReadOnlyInput>, CiError> local_channel(const CiRunRequest& request,
                                                                   const std::string& channel, std::size_t index) {
  std::string path;
  if (net::is_file_url(channel)) {
    auto decoded = net::path_from_file_url(channel);
    if (!decoded) return std::unexpected(invalid(channel, fmt::format("-c {}: {}", channel, decoded.error())));
    path = decoded->string();
  } else if (specs::looks_like_path(channel)) {
    auto expanded = expand_home(request, channel, "-c");
    if (!expanded) return std::unexpected(expanded.error());
    path = *expanded;
  } else {
    return std::optional<ReadOnlyInput>{};  // a channel name or a remote URL
  }
  std::error_code error;
  const auto resolved = fs::canonical(fs::absolute(path), error);
  if (error || !fs::is_directory(resolved)) {
    return std::unexpected(invalid(
        channel, fmt::format("-c {}: {} is not an existing directory; a local channel is mounted read-only into the "
                             "image, so it must be a channel directory here (gpuenv index DIR makes one), or give "
                             "a URL",
                             channel, path)));
  }
  return ReadOnlyInput{resolved, fmt::format("{}/{}", kChannelsMount, index)};
}

}  // namespace

std::vector<std::string> JobInputs::channel_arguments(bool in_image) const {
  std::vector<std::string> arguments;
  for (const auto& channel : channels) {
    if (!channel.local) {
      arguments.push_back(channel.as_given);
    } else {
      arguments.push_back(in_image ? channel.local->in_image : channel.local->host.string());
    }
  }
  return arguments;
}

std::vector<std::string> JobInputs::source_archive_arguments(bool in_image) const {
  std::vector<std::string> arguments;
  for (const auto& directory : source_archives) {
    arguments.push_back(in_image ? directory.in_image : directory.host.string());
  }
  return arguments;
}

std::vector<BindMount> JobInputs::read_only_mounts() const {
  std::vector<BindMount> mounts;
  if (source) mounts.push_back(BindMount{source->host, source->in_image, true});
  for (const auto& directory : source_archives) mounts.push_back(BindMount{directory.host, directory.in_image, true});
  for (const auto& channel : channels) {
    if (channel.local) mounts.push_back(BindMount{channel.local->host, channel.local->in_image, true});
  }
  return mounts;
}

std::expected<JobInputs, CiError> resolve_job_inputs(const CiRunRequest& request) {
  JobInputs inputs;
  std::optional<std::string> source;
  if (request.source) {
    auto expanded = expand_home(request, *request.source, "--source");
    if (!expanded) return std::unexpected(expanded.error());
    source = *expanded;
  }
  // The same checks as `gpuenv build --source/--source-version`, here, so a
  // wrong value fails before an image is made.
  auto checked = build::make_source_override(source, request.source_version);
  if (!checked) return std::unexpected(invalid(source.value_or(""), checked.error().message));
  inputs.source_version = checked->version;
  if (checked->source) {
    const auto name = last_name(*checked->source);
    std::error_code error;
    const auto resolved = fs::canonical(*checked->source, error);
    if (error || name.empty() || name == "." || name == "..") {
      return std::unexpected(invalid(*source, fmt::format("--source {}: {}", *source,
                                                          error ? error.message()
                                                                : "give a directory or archive, not the root")));
    }
    inputs.source = ReadOnlyInput{resolved, fmt::format("{}/{}", kSourceMount, name)};
  }
  for (std::size_t index = 0; index < request.channels.size(); ++index) {
    auto local = local_channel(request, request.channels[index], index);
    if (!local) return std::unexpected(local.error());
    inputs.channels.push_back(ChannelArgument{request.channels[index], *local});
  }
  for (std::size_t index = 0; index < request.source_archives.size(); ++index) {
    const auto& given = request.source_archives[index];
    auto expanded = expand_home(request, given, "--source-archives");
    if (!expanded) return std::unexpected(expanded.error());
    std::error_code error;
    const auto resolved = fs::canonical(*expanded, error);
    if (error || !fs::is_directory(resolved, error)) {
      return std::unexpected(invalid(given, fmt::format("--source-archives {}: {}", given,
                                                        error ? error.message() : "not a directory")));
    }
    inputs.source_archives.push_back(ReadOnlyInput{resolved, fmt::format("{}/{}", kSourceArchivesMount, index)});
  }
  return inputs;
}

}  // namespace gpuenv::ci::detail
