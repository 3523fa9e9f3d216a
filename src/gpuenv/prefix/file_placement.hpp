// Internal to the prefix module: putting one file of an extracted package
// into a prefix -- hard link, copy, copy with the prefix placeholder
// replaced, symbolic link -- with *at() calls on directory descriptors:
// the package's cache entry, and each target's parent opened beneath the
// prefix (beneath.hpp), so that no file lands outside it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "gpuenv/package/extract.hpp"
#include "gpuenv/package/paths_json.hpp"
#include "gpuenv/prefix/beneath.hpp"
#include "gpuenv/util/file_creation.hpp"

namespace gpuenv::prefix {

struct PlacedFile {
  std::string sha256_in_prefix;  // empty when unknown (a legacy package's plain file)
  std::uint64_t size = 0;
  bool copied = false;  // not a hard link
};

class FilePlacement {
 public:
  // `targets` reaches the prefix's directories and `source_fd` is the
  // cache entry's; the caller keeps both, and `modes` (the prefix's, read
  // once per transaction). `prefix` is the prefix's absolute path, written
  // into files.
  FilePlacement(PrefixDirectories& targets, int source_fd, std::string prefix,
                std::string source_dir, const util::CreationModes& modes)
      : targets_(targets), source_fd_(source_fd), prefix_(std::move(prefix)),
        source_dir_(std::move(source_dir)), creation_modes_(modes) {}

  // A hard link to the cached file, or a copy when `allow_hardlink` is
  // false or the cache is on another filesystem (then `cross_device` is
  // set, so the caller stops trying). Keeps the file's mode.
  PlacedFile link_or_copy(const std::string& source, const std::string& target,
                          const package::PathEntry& entry, bool allow_hardlink, bool& cross_device);

  // A copy with every placeholder replaced by the prefix (text or binary
  // rules). Throws PrefixError when a binary file's placeholder is shorter
  // than the prefix. `kept`: the cached file's content and mode as
  // extraction kept them, so the cached copy is not opened and read again.
  PlacedFile replace_prefix(const std::string& source, const std::string& target,
                            const package::PathEntry& entry, const package::KeptFile* kept = nullptr);

  // The same symbolic link as the cached one.
  void symlink(const std::string& source, const std::string& target);

  // A new file with `content` (entry points).
  PlacedFile write(const std::string& target, std::string_view content, unsigned mode);

  // Whether the cached path is a symbolic link (legacy packages do not say).
  bool source_is_symlink(const std::string& source) const;

 private:
  PlacedFile copy(const std::string& source, const std::string& target,
                  const package::PathEntry& entry);
  // The directory `target` goes into; throws when it lies outside the prefix.
  PrefixDirectories::Parent parent_of(const std::string& target);
  // Creates `target` (which must not exist) for writing with `mode`;
  // returns its descriptor. `mode_given` says whether the file has `mode`
  // already (util::CreationModes) or needs set_mode.
  int create_target(const std::string& target, unsigned mode, bool& mode_given);
  // The same, for a copy of the open `source`, which it closes when it throws.
  int create_target_closing(const std::string& target, unsigned mode, bool& mode_given, int source);
  // Removes a half-written `target` after a failure.
  void remove_target(const std::string& target);
  [[noreturn]] void fail(const std::string& what, const std::string& path, int error) const;
  [[noreturn]] void fail_placeholder_too_short(const std::string& target,
                                               const package::PathEntry& entry) const;

  PrefixDirectories& targets_;
  int source_fd_;
  std::string prefix_;
  std::string source_dir_;
  const util::CreationModes& creation_modes_;
  bool kernel_copy_ = true;  // copy_file_range works between the cache and the prefix
};

}  // namespace gpuenv::prefix
