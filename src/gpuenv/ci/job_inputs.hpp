// What a `gpuenv ci run` job reads from this machine besides the recipe and
// the variant files: the `--source` override and local `-c` channels. Each
// is checked once before any job runs (it must exist; symbolic links are
// resolved, so what is mounted is what the user named) and is bind-mounted
// read-only into the image: a job can write only to the output channel and
// its image's cache.
#pragma once

#include <expected>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "gpuenv/ci/chroot_command.hpp"
#include "gpuenv/ci/ci_error.hpp"
#include "gpuenv/ci/ci_run.hpp"

namespace gpuenv::ci::detail {

inline constexpr const char* kSourceMount = "/gpuenv/source";      // /gpuenv/source/<file or directory name>
inline constexpr const char* kChannelsMount = "/gpuenv/channels";  // /gpuenv/channels/<index>
inline constexpr const char* kSourceArchivesMount = "/gpuenv/source-archives";  // /gpuenv/source-archives/<index>

struct ReadOnlyInput {
  std::filesystem::path host;  // canonical, on this machine
  std::string in_image;        // where the build in the image sees it
};

struct ChannelArgument {
  std::string as_given;                // a name or URL: passed on unchanged
  std::optional<ReadOnlyInput> local;  // a local directory (a path or file:// URL)
};

struct JobInputs {
  std::optional<ReadOnlyInput> source;
  std::optional<std::string> source_version;
  std::vector<ChannelArgument> channels;
  std::vector<ReadOnlyInput> source_archives;  // --source-archives directories

  // `gpuenv build -c` values for a build in the image, or on this machine.
  std::vector<std::string> channel_arguments(bool in_image) const;
  // `gpuenv build --source-archives` values, likewise.
  std::vector<std::string> source_archive_arguments(bool in_image) const;
  // Every local input, each mounted read-only.
  std::vector<BindMount> read_only_mounts() const;
};

// Resolves the request's source, channels and source-archive directories: a
// source-archive path that is not an existing directory is an error, and so
// is a source that does not exist
// or is neither a directory nor an archive, a version that is not a conda
// version, and a local channel that is not an existing directory are
// errors naming the option and what to give instead. Relative paths and `~`
// are resolved against this process's directory and HOME.
std::expected<JobInputs, CiError> resolve_job_inputs(const CiRunRequest& request);

}  // namespace gpuenv::ci::detail
