#include "gpuenv/prefix/package_cache.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <future>

#include "gpuenv/net/file_url.hpp"
#include "gpuenv/package/extract.hpp"
#include "gpuenv/package/file_content.hpp"
#include "gpuenv/package/package_error.hpp"
#include "gpuenv/package/record_json.hpp"
#include "gpuenv/prefix/prefix_error.hpp"
#include "gpuenv/specs/package_filename.hpp"
#include "gpuenv/specs/url_credentials.hpp"

#include <nlohmann/json.hpp>

namespace gpuenv::prefix {

namespace {

std::string dist_of(const specs::PackageRecord& record) {
  return std::string(specs::strip_package_extension(package_filename(record)));
}

// The cached entry was fetched for the same file when a hash both sides
// know agrees; with no hash at all, the same URL will do.
bool same_package_file(const specs::PackageRecord& wanted, const specs::PackageRecord& cached) {
  if (!wanted.sha256.empty() && !cached.sha256.empty()) {
    return package::same_digest(wanted.sha256, cached.sha256);
  }
  if (!wanted.md5.empty() && !cached.md5.empty()) {
    return package::same_digest(wanted.md5, cached.md5) ||
           package::same_digest(wanted.legacy_bz2_md5, cached.md5);
  }
  if (!wanted.url.empty() && !cached.url.empty()) return wanted.url == cached.url;
  return wanted.name == cached.name && wanted.version == cached.version &&
         wanted.build == cached.build;
}

void append_line(const std::filesystem::path& file, const std::string& line) {
  // O_APPEND writes of one short line do not interleave between processes.
  const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return;  // urls.txt is a convenience for conda, not needed by gpuenv
  const std::string text = line + "\n";
  [[maybe_unused]] const auto written = ::write(fd, text.data(), text.size());
  ::close(fd);
}

void remove_tree(const std::filesystem::path& path) {
  std::error_code ignored;
  std::filesystem::remove_all(path, ignored);
}

specs::PackageRecord with_digests(specs::PackageRecord record, const package::FileDigests& digests) {
  if (record.sha256.empty()) record.sha256 = digests.sha256;
  if (record.md5.empty()) record.md5 = digests.md5;
  if (!record.size && digests.size > 0) record.size = digests.size;
  if (record.fn.empty()) record.fn = package_filename(record);
  return record;
}

// Written after extraction hashed every file. Bound to the package file's
// sha256, so a marker a package ships (or a stale one) is not believed.
constexpr const char* kVerificationFile = "info/.gpuenv-verified.json";
constexpr std::size_t kWarningsPerPackage = 5;

void write_verification(const std::filesystem::path& dir, const std::string& package_sha256,
                        const std::vector<package::FileMismatch>& mismatches) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& mismatch : mismatches) {
    nlohmann::json item = {{"_path", mismatch.path},
                           {"sha256", mismatch.actual.sha256},
                           {"size_in_bytes", mismatch.actual.size},
                           {"reported_sha256", mismatch.declared_sha256}};
    if (mismatch.declared_size) item["reported_size_in_bytes"] = *mismatch.declared_size;
    list.push_back(std::move(item));
  }
  package::write_whole_file_atomically(
      dir / kVerificationFile,
      nlohmann::json{{"package_sha256", package_sha256}, {"mismatches", std::move(list)}}.dump(1));
}

std::optional<std::vector<package::FileMismatch>> read_verification(
    const std::filesystem::path& dir, const std::string& package_sha256) {
  if (package_sha256.empty()) return std::nullopt;
  try {
    const auto text = package::read_whole_file(dir / kVerificationFile);
    if (!text) return std::nullopt;
    const auto json = nlohmann::json::parse(*text);
    if (!package::same_digest(json.at("package_sha256").get<std::string>(), package_sha256)) {
      return std::nullopt;
    }
    std::vector<package::FileMismatch> mismatches;
    for (const auto& item : json.at("mismatches")) {
      package::FileMismatch mismatch;
      mismatch.path = item.at("_path").get<std::string>();
      mismatch.actual = {item.at("sha256").get<std::string>(),
                         item.at("size_in_bytes").get<std::uint64_t>()};
      mismatch.declared_sha256 = item.value("reported_sha256", "");
      if (item.contains("reported_size_in_bytes")) {
        mismatch.declared_size = item["reported_size_in_bytes"].get<std::uint64_t>();
      }
      mismatches.push_back(std::move(mismatch));
    }
    return mismatches;
  } catch (const std::exception&) {
    return std::nullopt;  // unreadable: verify again
  }
}

}  // namespace

std::vector<std::string> safety_warnings(const CachedPackage& package) {
  std::vector<std::string> warnings;
  for (const auto& mismatch : package.mismatches) {
    if (warnings.size() == kWarningsPerPackage) {
      warnings.push_back(std::to_string(package.mismatches.size() - kWarningsPerPackage) +
                         " more files of " + package.record.dist_str() +
                         " are not what its info/paths.json declares");
      break;
    }
    warnings.push_back(package::describe_mismatch(mismatch, package.record.name,
                                                  package.extracted_dir.string()));
  }
  return warnings;
}

std::string package_filename(const specs::PackageRecord& record) {
  std::string filename = record.fn;
  if (filename.empty()) {
    const auto slash = record.url.find_last_of('/');
    filename = slash == std::string::npos ? record.url : record.url.substr(slash + 1);
  }
  // Every path of the cache is built from this name; repodata's loader
  // refuses such names already, but records also come from explicit files,
  // URLs on the command line and callers yet to be written.
  if (const auto problem = specs::package_filename_problem(filename); !problem.empty()) {
    const std::string source =
        record.url.empty() ? std::string("its channel") : specs::printable(specs::mask_credentials(record.url));
    throw PrefixError("refusing to fetch " + specs::printable(record.dist_str()) + " from " + source +
                      ": its file name '" + specs::printable(filename) + "' is not a bare package file name (" +
                      std::string(problem) +
                      "); the channel or the explicit file that lists it is broken or hostile: do not use it");
  }
  return filename;
}

std::string digest_mismatch(const specs::PackageRecord& record, const package::FileDigests& digests,
                            const std::string& url) {
  const std::string advice =
      "; the file was deleted. The channel's repodata may be stale (refresh it) or the transfer "
      "was corrupted (try again)";
  if (record.size && *record.size != digests.size) {
    return "the download of " + url + " does not match its repodata record: " +
           std::to_string(*record.size) + " bytes were expected, " +
           std::to_string(digests.size) + " arrived" + advice;
  }
  if (!record.sha256.empty() && !package::same_digest(record.sha256, digests.sha256)) {
    return "the download of " + url + " does not match its repodata record: sha256 " +
           record.sha256 + " was expected, " + digests.sha256 + " arrived" + advice;
  }
  if (record.sha256.empty() && !record.md5.empty() &&
      !package::same_digest(record.md5, digests.md5)) {
    return "the download of " + url + " does not match its repodata record: md5 " + record.md5 +
           " was expected, " + digests.md5 + " arrived" + advice;
  }
  return {};
}

PackageCache::PackageCache(PackageCacheOptions options)
    : options_(std::move(options)),
      kept_budget_(std::make_shared<package::KeptBytesBudget>(options_.kept_file_bytes)) {
  if (options_.pkgs_dirs.empty()) {
    throw PrefixError("no package cache directory is configured; set CONDA_PKGS_DIRS or "
                      "GPUENV_ROOT_PREFIX");
  }
}

std::filesystem::path PackageCache::tarball_path(const specs::PackageRecord& record) const {
  return writable_dir() / package_filename(record);
}

std::filesystem::path PackageCache::partial_download_path(const specs::PackageRecord& record) const {
  auto partial = tarball_path(record);
  partial += ".partial";
  return partial;
}

std::filesystem::path PackageCache::extracted_path(const specs::PackageRecord& record) const {
  return writable_dir() / dist_of(record);
}

std::optional<std::filesystem::path> PackageCache::find_extracted(
    const specs::PackageRecord& record) const {
  const auto dist = dist_of(record);
  for (const auto& dir : options_.pkgs_dirs) {
    const auto candidate = dir / dist;
    try {
      const auto text = package::read_whole_file(candidate / "info" / "repodata_record.json");
      if (!text) continue;
      const auto cached = package::parse_record_json(*text, candidate.string());
      if (same_package_file(record, cached)) return candidate;
    } catch (const package::PackageError&) {
      // A damaged entry is as good as none: it is extracted again.
    }
  }
  return std::nullopt;
}

bool PackageCache::holds(const specs::PackageRecord& record) const {
  if (find_extracted(record)) return true;
  struct stat info {};
  return ::stat(tarball_path(record).c_str(), &info) == 0 && S_ISREG(info.st_mode);
}

FileLock PackageCache::lock_package(const specs::PackageRecord& record) const {
  return FileLock::acquire(writable_dir() / ".gpuenv-locks" / (dist_of(record) + ".lock"),
                           options_.lock_timeout, options_.on_lock_wait);
}

std::optional<package::FileDigests> PackageCache::verify_tarball(
    const specs::PackageRecord& record) const {
  if (record.sha256.empty() && record.md5.empty()) return std::nullopt;
  const auto path = tarball_path(record);
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error)) return std::nullopt;
  try {
    const auto digests = package::hash_file(path, !record.sha256.empty(), record.sha256.empty());
    if (!digest_mismatch(record, digests, path.string()).empty()) return std::nullopt;
    return digests;
  } catch (const package::PackageError&) {
    return std::nullopt;
  }
}

package::DownloadRequest PackageCache::download_request(const specs::PackageRecord& record) const {
  if (record.url.empty()) {
    throw PrefixError("cannot download " + record.dist_str() +
                      ": its record has no URL (was it read from a channel's repodata?)");
  }
  package::DownloadRequest request;
  request.url = record.url;
  request.destination = partial_download_path(record);
  // Hash what will be checked; with no hash known, compute both so the
  // prefix record can still carry them.
  request.want_sha256 = !record.sha256.empty() || record.md5.empty();
  request.want_md5 = record.sha256.empty();
  request.expected_size = record.size;
  return request;
}

void PackageCache::accept_download(const specs::PackageRecord& record,
                                   const package::DownloadRequest& request,
                                   const package::DownloadResult& result) const {
  if (!result.ok()) {
    ::unlink(request.destination.c_str());
    throw PrefixError(result.error);
  }
  if (auto mismatch = digest_mismatch(record, result.digests, specs::mask_credentials(request.url));
      !mismatch.empty()) {
    ::unlink(request.destination.c_str());
    throw PrefixError(mismatch);
  }
  const auto final_path = tarball_path(record);
  if (::rename(request.destination.c_str(), final_path.c_str()) != 0) {
    const int error = errno;
    ::unlink(request.destination.c_str());
    throw PrefixError("cannot store " + final_path.string() + " in the package cache: " +
                      std::strerror(error));
  }
  append_line(writable_dir() / "urls.txt", specs::mask_credentials(request.url));
}

CachedPackage PackageCache::extract_tarball(const specs::PackageRecord& record,
                                   const package::FileDigests& digests) const {
  const auto final_dir = extracted_path(record);
  auto partial = final_dir;
  partial += ".gpuenv-partial";
  remove_tree(partial);  // left by a process killed while extracting
  const bool checked = options_.safety_checks != SafetyChecks::disabled;
  package::ExtractSummary summary;
  try {
    summary = package::extract_package(tarball_path(record), partial, options_.extract_limits, kept_budget_);
    write_verification(partial, with_digests(record, digests).sha256, summary.mismatches);
    package::write_whole_file_atomically(
        partial / "info" / "repodata_record.json",
        package::record_to_json(with_digests(record, digests)).dump(2) + "\n");
  } catch (const package::PackageError& error) {
    remove_tree(partial);
    // A package that cannot be extracted will not extract next time either.
    ::unlink(tarball_path(record).c_str());
    throw PrefixError(error.what());
  }
  std::error_code exists_error;
  if (std::filesystem::exists(final_dir, exists_error)) {
    auto stale = final_dir;
    stale += ".gpuenv-stale";
    remove_tree(stale);
    if (::rename(final_dir.c_str(), stale.c_str()) != 0) {
      throw PrefixError("cannot replace the stale cache entry " + final_dir.string() + ": " +
                        std::strerror(errno));
    }
    remove_tree(stale);
  }
  if (::rename(partial.c_str(), final_dir.c_str()) != 0) {
    const int error = errno;
    remove_tree(partial);
    throw PrefixError("cannot store " + final_dir.string() + " in the package cache: " +
                      std::strerror(error));
  }
  CachedPackage cached;
  cached.record = with_digests(record, digests);
  cached.extracted_dir = final_dir;
  cached.tarball = tarball_path(record);
  if (!summary.metadata_files) return load(record, final_dir);  // too large to have kept
  try {
    cached.metadata = package::metadata_from_info_files(*summary.metadata_files, final_dir.string());
  } catch (const package::PackageError& error) {
    throw PrefixError(error.what());
  }
  if (checked) {  // as load() reads them from the marker written above
    cached.mismatches = std::move(summary.mismatches);
    refuse_mismatches_if_enabled(cached);
  }
  cached.kept = std::move(summary.kept);
  return cached;
}

CachedPackage PackageCache::load(const specs::PackageRecord& record,
                                 const std::filesystem::path& extracted_dir) const {
  CachedPackage cached;
  try {
    cached.metadata = package::read_extracted_metadata(extracted_dir);
    const auto text = package::read_whole_file(extracted_dir / "info" / "repodata_record.json");
    cached.record = record;
    if (text) {
      // The cache entry knows the digests of the file it came from, which a
      // record built without repodata (an explicit URL) may lack.
      const auto stored = package::parse_record_json(*text, extracted_dir.string());
      cached.record = with_digests(record, {stored.sha256, stored.md5, stored.size.value_or(0)});
    }
    cached.extracted_dir = extracted_dir;
    cached.tarball = extracted_dir.parent_path() / package_filename(record);
    if (options_.safety_checks != SafetyChecks::disabled) check_safety(cached);
  } catch (const package::PackageError& error) {
    throw PrefixError(error.what());
  }
  return cached;
}

void PackageCache::check_safety(CachedPackage& cached) const {
  const auto& dir = cached.extracted_dir;
  std::optional<std::vector<package::FileMismatch>> mismatches;
  if (!options_.extra_safety_checks) mismatches = read_verification(dir, cached.record.sha256);
  if (!mismatches) {
    // Extracted by another tool or an older gpuenv, or extra_safety_checks:
    // hash the files now (once, where the marker can be written).
    mismatches = package::verify_extracted_files(dir, cached.metadata.paths);
    if (!cached.record.sha256.empty()) {
      try {
        write_verification(dir, cached.record.sha256, *mismatches);
      } catch (const package::PackageError&) {
        // A read-only cache: verified again next time.
      }
    }
  }
  cached.mismatches = std::move(*mismatches);
  refuse_mismatches_if_enabled(cached);
}

void PackageCache::refuse_mismatches_if_enabled(const CachedPackage& cached) const {
  if (cached.mismatches.empty() || options_.safety_checks != SafetyChecks::enabled) return;
  std::string message;
  for (const auto& warning : safety_warnings(cached)) message += warning + "\n";
  throw PrefixError(message + "safety_checks is enabled, so " + cached.record.dist_str() +
                    " is not installed: the package's files are not what its info/paths.json "
                    "declares. Report it to the channel that serves it; set safety_checks: warn "
                    "to install it anyway");
}

CachedPackage PackageCache::fetch(const specs::PackageRecord& record) const {
  const auto lock = lock_package(record);
  if (const auto extracted = find_extracted(record)) return load(record, *extracted);
  auto digests = verify_tarball(record);
  if (!digests) {
    const auto request = download_request(record);
    package::DownloadResult result;
    if (net::is_file_url(record.url)) {
      result = package::copy_local_package(request);
    } else {
      std::promise<package::DownloadResult> finished;
      {
        package::Downloader downloader(options_.download);
        downloader.submit(request, [&](package::DownloadResult done) { finished.set_value(std::move(done)); });
        result = finished.get_future().get();
      }
    }
    accept_download(record, request, result);
    digests = result.digests;
  }
  return extract_tarball(record, *digests);
}

}  // namespace gpuenv::prefix
