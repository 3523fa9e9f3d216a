#include "gpuenv/builder/git_source.hpp"

#include <unistd.h>

#include <optional>
#include <string>
#include <vector>

#include "gpuenv/builder/process_runner.hpp"
#include "gpuenv/package/hashing.hpp"

namespace gpuenv::build {

namespace fs = std::filesystem;

namespace {

std::unexpected<BuildError> git_error(std::string message) {
  return std::unexpected(BuildError{BuildErrorKind::source, std::move(message)});
}

// The environment of every git child: only the transports a recipe may use
// (ext:: and fd:: run commands), no password prompt on a terminal, no LFS
// download unless asked.
std::vector<std::string> git_environment(bool lfs) {
  std::vector<std::string> environment;
  for (auto& entry : current_environment()) {
    if (entry.starts_with("GIT_ALLOW_PROTOCOL=") || entry.starts_with("GIT_TERMINAL_PROMPT=") ||
        entry.starts_with("GIT_LFS_SKIP_SMUDGE=") || entry.starts_with("GIT_DIR=") ||
        entry.starts_with("GIT_WORK_TREE=")) {
      continue;
    }
    environment.push_back(std::move(entry));
  }
  environment.push_back("GIT_ALLOW_PROTOCOL=file:https:http:ssh:git");
  environment.push_back("GIT_TERMINAL_PROMPT=0");
  if (!lfs) environment.push_back("GIT_LFS_SKIP_SMUDGE=1");
  return environment;
}

// Bytes of the files under `directory` (what a clone or fetch has written
// so far); symlinks are not followed.
std::uintmax_t tree_bytes(const fs::path& directory) {
  std::uintmax_t total = 0;
  std::error_code error;
  for (fs::recursive_directory_iterator it(directory, fs::directory_options::skip_permission_denied, error), end;
       !error && it != end; it.increment(error)) {
    if (it->is_regular_file(error)) total += it->file_size(error);
  }
  return total;
}

// The most a repository may put on disk: a recipe's git URL is outside
// input, and git has no size limit of its own.
struct SizeLimit {
  fs::path directory;     // what the git command fills
  std::uintmax_t bytes;   // 0: unlimited
  std::string what;       // "the mirror of URL"

  std::string exceeded() const {
    if (bytes == 0 || directory.empty()) return {};
    const auto used = tree_bytes(directory);
    if (used <= bytes) return {};
    return what + " passed " + std::to_string(bytes >> 20) + " MiB (" + std::to_string(used >> 20) +
           " MiB so far), the most a git source may take: the repository is too big, or hostile";
  }
};

struct Git {
  std::vector<std::string> environment;

  ProcessResult run(std::vector<std::string> arguments, const fs::path& directory = {},
                    const SizeLimit* limit = nullptr) const {
    ProcessRequest request;
    request.argv = {"git"};
    request.argv.insert(request.argv.end(), arguments.begin(), arguments.end());
    request.environment = environment;
    request.working_directory = directory.empty() ? fs::current_path() : directory;
    if (limit != nullptr) request.stop_if = [limit] { return limit->exceeded(); };
    auto result = run_process(request);
    // A fast clone can finish between two checks.
    if (limit != nullptr && result.stopped.empty()) result.stopped = limit->exceeded();
    return result;
  }

  // `git ARGS` that must succeed; the error names what was being done.
  std::expected<ProcessResult, BuildError> must(std::vector<std::string> arguments, const std::string& doing,
                                                const fs::path& directory = {}, const SizeLimit* limit = nullptr) const {
    auto result = run(std::move(arguments), directory, limit);
    if (!result.stopped.empty()) return git_error("git stopped while it was to " + doing + ": " + result.stopped);
    if (!result.started) {
      return git_error("cannot run git to " + doing + ": " + result.start_error +
                       " (install Debian's `git` package)");
    }
    if (result.exit_code != 0) {
      return git_error("git failed to " + doing + " (exit status " + std::to_string(result.exit_code) + "):\n" +
                       result.output_tail);
    }
    return result;
  }
};

bool has_scheme(const std::string& url) { return url.find("://") != std::string::npos; }

// user@host:path, the scp-like ssh form (no slash before the colon).
bool is_scp_like(const std::string& url) {
  const auto colon = url.find(':');
  return colon != std::string::npos && colon > 0 && url.find('/') > colon && !has_scheme(url);
}

// What git is given: a URL as written, or a local path made absolute
// against the recipe directory.
std::expected<std::string, BuildError> repository_location(const recipe::Source& source,
                                                           const SourceSettings& settings) {
  const auto& url = source.git;
  if (url.empty()) return git_error("git source without a url: give `git: <url or path>`");
  if (url.starts_with('-')) {
    return git_error("git source '" + url + "' starts with '-', which git would read as an option: give a URL or path");
  }
  if (url.find("::") != std::string::npos) {
    return git_error("git source '" + url +
                     "' uses a remote helper transport (transport::address), which can run commands: give an "
                     "https://, ssh://, git:// or file:// URL or a local path");
  }
  if (has_scheme(url)) {
    const auto scheme = url.substr(0, url.find("://"));
    for (const char* allowed : {"https", "http", "ssh", "git", "file", "git+ssh", "ssh+git"}) {
      if (scheme == allowed) return url;
    }
    return git_error("git source '" + url + "': the transport " + scheme +
                     ":// is not allowed; use https, http, ssh, git or file");
  }
  if (is_scp_like(url)) return url;
  return fs::absolute(settings.recipe_dir / url).lexically_normal().string();
}

// The ref the recipe asks for, as git-rev-parse reads it.
std::string asked_revision(const recipe::Source& source) {
  if (source.rev) return *source.rev + "^{commit}";
  if (source.tag) return "refs/tags/" + *source.tag + "^{commit}";
  if (source.branch) return "refs/heads/" + *source.branch + "^{commit}";
  return "HEAD^{commit}";
}

std::string describe_asked(const recipe::Source& source) {
  if (source.rev) return "revision " + *source.rev;
  if (source.tag) return "tag " + *source.tag;
  if (source.branch) return "branch " + *source.branch;
  return "default branch (HEAD)";
}

// The commit the recipe asks for, if the mirror has it.
std::optional<std::string> resolve_commit(const Git& git, const fs::path& mirror, const recipe::Source& source) {
  auto result = git.run({"rev-parse", "--verify", "--quiet", "--end-of-options", asked_revision(source)}, mirror);
  if (!result.succeeded()) return std::nullopt;
  auto commit = result.output_tail;
  while (!commit.empty() && (commit.back() == '\n' || commit.back() == '\r')) commit.pop_back();
  return commit;
}

// The bare mirror of `location`, cloned when missing and fetched when the
// asked revision may have moved or is not there yet.
std::expected<fs::path, BuildError> update_mirror(const Git& git, const std::string& location,
                                                  const recipe::Source& source, const SourceSettings& settings) {
  const auto directory = settings.cache_dir / "build-sources" / "git";
  const auto mirror = directory / (package::sha256_hex(location) + ".git");
  std::error_code ignored;
  if (!fs::is_directory(mirror, ignored)) {
    fs::create_directories(directory, ignored);
    const auto partial = directory / (".partial-" + std::to_string(::getpid()));
    fs::remove_all(partial, ignored);
    if (settings.log) settings.log("source: cloning " + location);
    const SizeLimit limit{partial, settings.max_download_bytes, "the mirror of " + location};
    auto cloned = git.must({"clone", "--quiet", "--mirror", "--", location, partial.string()}, "clone " + location, {},
                           &limit);
    if (!cloned) {
      fs::remove_all(partial, ignored);
      return std::unexpected(cloned.error());
    }
    std::error_code error;
    fs::rename(partial, mirror, error);
    if (error && !fs::is_directory(mirror, ignored)) {
      return git_error("cannot store the mirror of " + location + " at " + mirror.string() + ": " + error.message());
    }
    fs::remove_all(partial, ignored);
    return mirror;
  }
  const bool moves = source.branch && !source.rev && !source.tag;
  if (moves || !resolve_commit(git, mirror, source)) {
    if (settings.log) settings.log("source: fetching " + location + " into " + mirror.string());
    const SizeLimit limit{mirror, settings.max_download_bytes, "the mirror of " + location};
    auto fetched = git.must({"fetch", "--quiet", "--prune", "--tags", "--force", "origin"}, "fetch " + location, mirror,
                            &limit);
    if (!fetched) {
      // A mirror grown past the limit is not kept: the next build clones afresh.
      if (auto over = limit.exceeded(); !over.empty()) fs::remove_all(mirror, ignored);
      return std::unexpected(fetched.error());
    }
  } else if (settings.log) {
    settings.log("source: " + location + " from the cache (" + mirror.string() + ")");
  }
  return mirror;
}

}  // namespace

std::expected<void, BuildError> checkout_git_source(const recipe::Source& source, const fs::path& checkout_dir,
                                                    const SourceSettings& settings) {
  for (const auto* ref : {&source.rev, &source.tag, &source.branch}) {
    if (*ref && (ref->value().empty() || ref->value().starts_with('-'))) {
      return git_error("git source " + source.git + ": '" + ref->value() +
                       "' is not a revision, tag or branch name");
    }
  }
  if (source.depth && *source.depth < 1 && *source.depth != -1) {
    return git_error("git source " + source.git + ": depth " + std::to_string(*source.depth) +
                     " is not a positive number of commits (or -1 for the whole history)");
  }
  auto location = repository_location(source, settings);
  if (!location) return std::unexpected(location.error());
  const Git git{git_environment(source.lfs)};
  auto mirror = update_mirror(git, *location, source, settings);
  if (!mirror) return std::unexpected(mirror.error());
  auto commit = resolve_commit(git, *mirror, source);
  if (!commit) {
    return git_error("git source " + source.git + " has no " + describe_asked(source) +
                     " (looked in the repository after fetching it): check the recipe's rev/tag/branch against "
                     "`git ls-remote " + source.git + "`");
  }
  // The checkout: the commit fetched from the mirror with the tags that
  // point into its history, so `git describe --tags` finds them.
  const std::string mirror_url = "file://" + mirror->string();
  std::vector<std::string> fetch = {"fetch", "--quiet", "--tags"};
  const bool shallow = source.depth && *source.depth > 0;
  if (shallow) fetch.push_back("--depth=" + std::to_string(*source.depth));
  fetch.insert(fetch.end(), {"--", mirror_url, *commit});
  std::error_code ignored;
  fs::create_directories(checkout_dir, ignored);
  if (auto made = git.must({"init", "--quiet"}, "create the checkout in " + checkout_dir.string(), checkout_dir); !made) {
    return std::unexpected(made.error());
  }
  const SizeLimit checkout_limit{checkout_dir, settings.max_unpacked_bytes, "the checkout of " + source.git};
  if (auto got = git.must(fetch, "fetch " + describe_asked(source) + " of " + source.git, checkout_dir,
                          &checkout_limit);
      !got) {
    return std::unexpected(got.error());
  }
  if (auto checked = git.must({"checkout", "--quiet", "--detach", *commit}, "check out " + *commit, checkout_dir,
                              &checkout_limit);
      !checked) {
    return std::unexpected(checked.error());
  }
  // The checkout's origin is the repository itself, not the cache.
  if (auto origin = git.must({"remote", "add", "origin", *location}, "name origin", checkout_dir); !origin) {
    return std::unexpected(origin.error());
  }
  if (settings.log) settings.log("source: checked out " + describe_asked(source) + " (" + *commit + ") of " + source.git);
  if (source.lfs) {
    auto pulled = git.run({"lfs", "pull", mirror_url}, checkout_dir);
    if (!pulled.succeeded()) {
      return git_error("git source " + source.git + " asks for LFS files (lfs: true) and `git lfs pull` failed" +
                       (pulled.started ? ":\n" + pulled.output_tail : ": " + pulled.start_error) +
                       "\ninstall Debian's `git-lfs` package, or drop `lfs: true` if the build needs no LFS files");
    }
  }
  return {};
}

}  // namespace gpuenv::build
