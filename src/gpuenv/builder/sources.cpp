#include "gpuenv/builder/sources.hpp"

#include <unistd.h>

#include <future>
#include <optional>
#include <string>
#include <system_error>

#include "gpuenv/builder/git_source.hpp"
#include "gpuenv/builder/process_runner.hpp"
#include "gpuenv/net/file_url.hpp"
#include "gpuenv/package/downloader.hpp"
#include "gpuenv/package/hashing.hpp"
#include "gpuenv/package/package_error.hpp"
#include "gpuenv/package/paths_json.hpp"
#include "gpuenv/package/source_archive.hpp"

namespace gpuenv::build {

namespace fs = std::filesystem;

namespace {

std::unexpected<BuildError> source_error(std::string message) {
  return std::unexpected(BuildError{BuildErrorKind::source, std::move(message)});
}

void log_line(const SourceSettings& settings, const std::string& line) {
  if (settings.log) settings.log(line);
}

// The last segment of a URL's path, without query or fragment.
std::string url_file_name(std::string_view url) {
  const auto end = url.find_first_of("?#");
  url = url.substr(0, end);
  const auto slash = url.find_last_of('/');
  return std::string(slash == std::string_view::npos ? url : url.substr(slash + 1));
}

struct ExpectedDigest {
  package::HashAlgorithm algorithm = package::HashAlgorithm::sha256;
  std::string hex;
  const char* name() const { return algorithm == package::HashAlgorithm::sha256 ? "sha256" : "md5"; }
};

std::expected<ExpectedDigest, BuildError> expected_digest(const recipe::Source& source) {
  if (source.sha256) return ExpectedDigest{package::HashAlgorithm::sha256, *source.sha256};
  if (source.md5) return ExpectedDigest{package::HashAlgorithm::md5, *source.md5};
  return source_error("url source " + (source.urls.empty() ? std::string("(none)") : source.urls.front()) +
                      " has neither sha256 nor md5: add `sha256: <digest>` to the recipe (the digest "
                      "`sha256sum FILE` prints)");
}

std::string actual_digest(const package::FileDigests& digests, const ExpectedDigest& expected) {
  return expected.algorithm == package::HashAlgorithm::sha256 ? digests.sha256 : digests.md5;
}

package::DownloadResult download(const std::string& url, const fs::path& destination,
                                 const SourceSettings& settings) {
  package::DownloadRequest request;
  request.url = url;
  request.destination = destination;
  request.want_sha256 = true;
  request.want_md5 = true;
  request.expected_size = settings.max_download_bytes;
  if (net::is_file_url(url)) return package::copy_local_package(request);
  package::DownloaderOptions options;
  options.client = settings.client;
  options.max_parallel = 1;
  package::Downloader downloader(options);
  std::promise<package::DownloadResult> done;
  auto result = done.get_future();
  downloader.submit(request, [&done](package::DownloadResult each) { done.set_value(std::move(each)); });
  return result.get();
}

// A regular file of `settings.archive_dirs` (not below them) whose digest is
// the expected one. Files of another size than a source could have are not
// hashed: only those at most max_download_bytes.
std::optional<fs::path> archive_with_digest(const ExpectedDigest& expected, const SourceSettings& settings) {
  for (const auto& directory : settings.archive_dirs) {
    std::error_code error;
    for (fs::directory_iterator it(directory, error), end; !error && it != end; it.increment(error)) {
      std::error_code kind_error;
      if (!it->is_regular_file(kind_error) || it->file_size(kind_error) > settings.max_download_bytes) continue;
      try {
        const auto digests = package::hash_file(it->path(), true, true);
        if (package::same_digest(actual_digest(digests, expected), expected.hex)) return it->path();
      } catch (const package::PackageError&) {
        // unreadable: not this one
      }
    }
  }
  return std::nullopt;
}

// The verified file of a url source, from the cache or downloaded into it.
std::expected<fs::path, BuildError> cached_url_source(const recipe::Source& source, const SourceSettings& settings) {
  auto expected = expected_digest(source);
  if (!expected) return std::unexpected(expected.error());
  if (source.urls.empty()) return source_error("url source without a url");
  const auto directory = settings.cache_dir / "build-sources" / (std::string(expected->name()) + "-" + expected->hex);
  const auto cached = directory / url_file_name(source.urls.front());
  std::error_code ignored;
  if (fs::is_regular_file(cached, ignored)) {
    try {
      const auto digests = package::hash_file(cached, true, true);
      if (package::same_digest(actual_digest(digests, *expected), expected->hex)) {
        log_line(settings, "source: " + source.urls.front() + " from the cache (" + cached.string() + ")");
        return cached;
      }
    } catch (const package::PackageError&) {
    }
    fs::remove(cached, ignored);  // damaged: fetched again below
  }
  fs::create_directories(directory, ignored);
  const auto partial = directory / (".partial-" + std::to_string(::getpid()));
  if (const auto archive = archive_with_digest(*expected, settings)) {
    // The copy is what is verified: the file may change after it was hashed.
    std::error_code error;
    fs::copy_file(*archive, partial, fs::copy_options::overwrite_existing, error);
    bool verified = false;
    try {
      verified = !error && package::same_digest(actual_digest(package::hash_file(partial, true, true), *expected),
                                                expected->hex);
    } catch (const package::PackageError&) {
    }
    if (verified) fs::rename(partial, cached, error);
    if (verified && !error) {
      log_line(settings, "source: " + source.urls.front() + " from " + archive->string() + " (the recipe's " +
                             expected->name() + ")");
      return cached;
    }
    fs::remove(partial, ignored);  // changed under us: downloaded below
  }
  std::string failures;
  for (const auto& url : source.urls) {
    log_line(settings, "source: downloading " + url);
    const auto result = download(url, partial, settings);
    if (!result.ok()) {
      failures += "\n  " + result.error;
      continue;
    }
    const auto got = actual_digest(result.digests, *expected);
    if (!package::same_digest(got, expected->hex)) {
      fs::remove(partial, ignored);
      return source_error("source " + url + " does not match the recipe's " + expected->name() + ": expected " +
                          expected->hex + ", got " + got +
                          "; the file changed upstream or the recipe's digest is wrong: check the file and "
                          "update the recipe's " + expected->name());
    }
    std::error_code error;
    fs::rename(partial, cached, error);
    if (error) return source_error("cannot store " + url + " in the cache at " + cached.string() + ": " + error.message());
    return cached;
  }
  fs::remove(partial, ignored);
  return source_error("cannot download the source (tried every url):" + failures);
}

// Moves the children of `from` into `to`, merging directories; a later
// source's file replaces an earlier one's, as when extracted over it.
std::expected<void, BuildError> merge_into(const fs::path& from, const fs::path& to) {
  std::error_code error;
  fs::create_directories(to, error);
  for (const auto& entry : fs::directory_iterator(from, error)) {
    const auto target = to / entry.path().filename();
    const auto target_status = fs::symlink_status(target, error);
    if (fs::exists(target_status) && fs::is_directory(target_status) && entry.is_directory() &&
        !entry.is_symlink()) {
      if (auto merged = merge_into(entry.path(), target); !merged) return merged;
      continue;
    }
    if (fs::exists(target_status)) fs::remove_all(target, error);
    fs::rename(entry.path(), target, error);
    if (error) return source_error("cannot move " + entry.path().string() + " to " + target.string() + ": " + error.message());
  }
  if (error) return source_error("cannot read " + from.string() + ": " + error.message());
  return {};
}

std::expected<void, BuildError> extract_archive(const fs::path& archive, const fs::path& destination,
                                                const fs::path& scratch, const SourceSettings& settings) {
  log_line(settings, "source: extracting " + archive.string());
  std::error_code ignored;
  fs::remove_all(scratch, ignored);
  try {
    package::extract_source_archive(archive, scratch, settings.max_unpacked_bytes);
  } catch (const package::PackageError& error) {
    fs::remove_all(scratch, ignored);
    return source_error(error.what());
  }
  // One top-level directory (name-1.0/) is stripped, as conda-build and
  // rattler-build do, so SRC_DIR is the project's root.
  fs::path root = scratch;
  std::vector<fs::path> children;
  for (const auto& entry : fs::directory_iterator(scratch, ignored)) children.push_back(entry.path());
  if (children.size() == 1 && fs::is_directory(fs::symlink_status(children.front(), ignored))) {
    root = children.front();
  }
  auto merged = merge_into(root, destination);
  fs::remove_all(scratch, ignored);
  return merged;
}

// A directory copied file by file (links kept as links), leaving out
// `excluded` (the work directory, when the recipe's source is its parent).
std::expected<void, BuildError> copy_directory(const fs::path& from, const fs::path& to, const fs::path& excluded) {
  std::error_code error;
  fs::create_directories(to, error);
  fs::recursive_directory_iterator walk(from, fs::directory_options::none, error);
  for (; !error && walk != fs::recursive_directory_iterator(); walk.increment(error)) {
    const auto& entry = *walk;
    if (entry.path().lexically_normal() == excluded.lexically_normal()) {
      walk.disable_recursion_pending();
      continue;
    }
    const auto target = to / fs::relative(entry.path(), from);
    if (entry.is_symlink()) {
      fs::remove(target, error);
      fs::copy_symlink(entry.path(), target, error);
    } else if (entry.is_directory()) {
      fs::create_directories(target, error);
    } else if (entry.is_regular_file()) {
      fs::copy_file(entry.path(), target, fs::copy_options::overwrite_existing, error);
    }
    if (error) break;
  }
  if (error) return source_error("cannot copy the source directory " + from.string() + " to " + to.string() + ": " + error.message());
  return {};
}

std::expected<void, BuildError> copy_file_to(const fs::path& file, const fs::path& target) {
  std::error_code error;
  fs::create_directories(target.parent_path(), error);
  fs::copy_file(file, target, fs::copy_options::overwrite_existing, error);
  if (error) return source_error("cannot copy " + file.string() + " to " + target.string() + ": " + error.message());
  return {};
}

std::expected<void, BuildError> apply_patches(const recipe::Source& source, const fs::path& destination,
                                              const SourceSettings& settings) {
  for (const auto& patch : source.patches) {
    const auto file = fs::absolute(settings.recipe_dir / patch);
    std::error_code ignored;
    if (!fs::is_regular_file(file, ignored)) {
      return source_error("patch " + patch + " not found (looked for " + file.string() + ")");
    }
    log_line(settings, "source: applying patch " + patch);
    ProcessRequest request;
    // --forward: an already applied patch is an error, not a reversal.
    request.argv = {"patch", "-p1", "--batch", "--forward", "--no-backup-if-mismatch", "-i", file.string()};
    request.environment = current_environment();
    request.working_directory = destination;
    const auto result = run_process(request);
    if (!result.started) return source_error("cannot apply patch " + patch + ": " + result.start_error +
                                             " (install Debian's `patch` package)");
    if (result.exit_code != 0) {
      return source_error("patch " + patch + " does not apply to the source in " + destination.string() +
                          " (patch -p1 exited with " + std::to_string(result.exit_code) + "):\n" + result.output_tail +
                          "update the patch for this version of the source");
    }
  }
  return {};
}

std::expected<void, BuildError> place_file(const fs::path& file, const std::string& original_name,
                                           const recipe::Source& source, const fs::path& destination,
                                           const fs::path& scratch, const SourceSettings& settings) {
  if (source.file_name) return copy_file_to(file, destination / *source.file_name);
  if (is_source_archive_name(original_name)) return extract_archive(file, destination, scratch, settings);
  return copy_file_to(file, destination / original_name);
}

std::expected<void, BuildError> fetch_one(const recipe::Source& source, const fs::path& src_dir,
                                          const fs::path& scratch, const SourceSettings& settings) {
  fs::path destination = src_dir;
  if (source.target_directory) {
    if (!package::is_safe_relative_path(*source.target_directory)) {
      return source_error("source target_directory '" + *source.target_directory +
                          "' leaves the source directory: give a relative path without '..'");
    }
    destination /= *source.target_directory;
  }
  if (source.file_name && !package::is_safe_relative_path(*source.file_name)) {
    return source_error("source file_name '" + *source.file_name + "' is not a plain relative file name");
  }
  std::error_code ignored;
  fs::create_directories(destination, ignored);
  switch (source.kind) {
    case recipe::Source::Kind::git: {
      // Checked out beside SRC_DIR, then moved in: git wants an empty
      // directory and SRC_DIR may already hold an earlier source.
      fs::remove_all(scratch, ignored);
      auto checked_out = checkout_git_source(source, scratch, settings);
      if (checked_out) checked_out = merge_into(scratch, destination);
      fs::remove_all(scratch, ignored);
      if (!checked_out) return checked_out;
      break;
    }
    case recipe::Source::Kind::url: {
      auto file = cached_url_source(source, settings);
      if (!file) return std::unexpected(file.error());
      if (auto placed = place_file(*file, url_file_name(source.urls.front()), source, destination, scratch, settings);
          !placed) {
        return placed;
      }
      break;
    }
    case recipe::Source::Kind::path: {
      const auto path = fs::absolute(settings.recipe_dir / source.path).lexically_normal();
      const auto status = fs::status(path, ignored);
      if (fs::is_directory(status)) {
        log_line(settings, "source: copying " + path.string());
        const auto excluded = settings.excluded_dir.empty() ? src_dir.parent_path() : settings.excluded_dir;
        if (auto copied = copy_directory(path, destination, excluded); !copied) return copied;
      } else if (fs::is_regular_file(status)) {
        if (auto placed = place_file(path, path.filename().string(), source, destination, scratch, settings);
            !placed) {
          return placed;
        }
      } else {
        return source_error("path source " + source.path + " does not exist (looked for " + path.string() + ")");
      }
      break;
    }
  }
  return apply_patches(source, destination, settings);
}

}  // namespace

bool is_source_archive_name(std::string_view name) {
  for (const std::string_view suffix : {".tar.gz", ".tgz", ".tar.bz2", ".tbz2", ".tbz", ".tar.xz", ".txz",
                                        ".tar.zst", ".tzst", ".tar", ".zip"}) {
    if (name.size() > suffix.size() && name.ends_with(suffix)) return true;
  }
  return false;
}

std::expected<void, BuildError> fetch_sources(const std::vector<recipe::Source>& sources, const fs::path& src_dir,
                                              const SourceSettings& settings) {
  std::error_code ignored;
  fs::create_directories(src_dir, ignored);
  const auto scratch = src_dir.parent_path() / ".source-extract";
  for (const auto& source : sources) {
    if (auto fetched = fetch_one(source, src_dir, scratch, settings); !fetched) return fetched;
  }
  return {};
}

}  // namespace gpuenv::build
