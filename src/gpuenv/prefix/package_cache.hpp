// The package cache shared by all prefixes, in conda's layout so conda and
// mamba share it with gpuenv:
//
//   <pkgs>/<fn>                          the downloaded package file
//   <pkgs>/<name>-<version>-<build>/     its extracted content, plus
//       info/.gpuenv-verified.json       which files differ from paths.json
//                                        (sha256, size), checked while extracting
//       info/repodata_record.json        the record it was fetched for,
//                                        written last: it marks the entry complete
//   <pkgs>/urls.txt                      every URL downloaded, one a line
//   <pkgs>/.gpuenv-locks/<dist>.lock     one lock per package (gpuenv's own)
//
// Several processes may fetch into one cache at once: each package is
// fetched under its lock, so one downloads and extracts while the others
// wait and then find it ready. Downloads are verified (size, then sha256,
// or md5 when the record only has md5) before anything is extracted.
#pragma once

#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gpuenv/package/downloader.hpp"
#include "gpuenv/package/extract.hpp"
#include "gpuenv/package/file_verification.hpp"
#include "gpuenv/package/hashing.hpp"
#include "gpuenv/package/package_metadata.hpp"
#include "gpuenv/prefix/file_lock.hpp"
#include "gpuenv/util/conda_config.hpp"
#include "gpuenv/specs/package_record.hpp"

namespace gpuenv::prefix {

// conda's safety_checks (read with the configuration): what happens to a
// package whose files are not what its info/paths.json says (sha256,
// size_in_bytes). warn: installed, with a warning per file, conda-meta
// recording the files as they are; enabled: refused; disabled: not checked.
using SafetyChecks = util::SafetyChecksSetting;

struct PackageCacheOptions {
  // Package directories, highest priority first (util::UserDirectories'
  // pkgs_dirs). New packages go into the first; later ones are searched
  // for packages already extracted.
  std::vector<std::filesystem::path> pkgs_dirs;
  package::DownloaderOptions download;
  // Threads verifying and extracting packages; 0: one per hardware thread.
  std::size_t workers = 0;
  std::chrono::milliseconds lock_timeout = std::chrono::hours(1);
  FileLock::WaitNotice on_lock_wait;  // told when another process holds a package
  SafetyChecks safety_checks = SafetyChecks::warn;
  // conda's extra_safety_checks: hash every file again on every use, not
  // only when the entry is extracted (catches a cache edited afterwards).
  bool extra_safety_checks = false;
  package::ExtractLimits extract_limits;
  // Files with a prefix placeholder that a fetch may keep in memory from
  // extraction until linking (all packages together): linking rewrites
  // them without reading the cache entry's copies back.
  std::uint64_t kept_file_bytes = 64u << 20;
};

// A package ready to be linked.
struct CachedPackage {
  specs::PackageRecord record;  // the record asked for, hashes filled in from the download
  std::filesystem::path tarball;        // <pkgs>/<fn>
  std::filesystem::path extracted_dir;  // <pkgs>/<dist>
  package::PackageMetadata metadata;    // read from extracted_dir/info
  // Files that are not what paths.json declares (safety_checks warn).
  std::vector<package::FileMismatch> mismatches;
  // Just extracted: files with a prefix placeholder as written into
  // extracted_dir (package::KeptFiles); null otherwise. Drop it once linked.
  std::shared_ptr<const package::KeptFiles> kept;
};

// The warnings to show for `package`'s mismatches (conda's SafetyError
// texts, at most a few per package).
std::vector<std::string> safety_warnings(const CachedPackage& package);

class PackageCache {
 public:
  // Throws PrefixError when `options.pkgs_dirs` is empty.
  explicit PackageCache(PackageCacheOptions options);

  const PackageCacheOptions& options() const noexcept { return options_; }
  const std::filesystem::path& writable_dir() const noexcept { return options_.pkgs_dirs.front(); }

  // The extracted package for `record` when some package directory holds a
  // complete one for the same file (same sha256, or md5, or URL). Takes no
  // lock: a hint, not a promise.
  std::optional<std::filesystem::path> find_extracted(const specs::PackageRecord& record) const;

  // Whether installing `record` needs no download: an extracted entry
  // (find_extracted) or the package file in the cache. A hint, as above.
  bool holds(const specs::PackageRecord& record) const;

  // The lock every fetch of `record` holds.
  FileLock lock_package(const specs::PackageRecord& record) const;

  // Each step below is one stage of a fetch; call them holding the
  // package's lock. FetchBatch runs them in parallel for many packages.

  // Verifies an existing <pkgs>/<fn>: its digests when it matches the
  // record, nullopt when it is missing, does not match, or the record has
  // no hash to check it against.
  std::optional<package::FileDigests> verify_tarball(const specs::PackageRecord& record) const;
  // What a download of `record` must be checked against.
  package::DownloadRequest download_request(const specs::PackageRecord& record) const;
  // Checks a finished download (written to request.destination) against
  // the record. On success moves it to <pkgs>/<fn> and notes the URL in
  // urls.txt; on a failure or a mismatch deletes it and throws PrefixError
  // (for a mismatch naming the URL and both hashes).
  void accept_download(const specs::PackageRecord& record, const package::DownloadRequest& request,
                       const package::DownloadResult& result) const;
  // Extracts <pkgs>/<fn> into <pkgs>/<dist> (through a temporary directory
  // renamed into place) and writes info/repodata_record.json last: the
  // record with the file's digests filled in where the record lacked them.
  // Returns the entry as load() would, from what extraction saw (nothing
  // is read back), with the safety checks applied.
  CachedPackage extract_tarball(const specs::PackageRecord& record, const package::FileDigests& digests) const;
  // Reads a complete entry's metadata and applies the safety checks.
  // Throws PrefixError when they are enabled and a file is not what
  // paths.json declares.
  CachedPackage load(const specs::PackageRecord& record,
                     const std::filesystem::path& extracted_dir) const;

  // The whole fetch of one package, in the calling thread.
  CachedPackage fetch(const specs::PackageRecord& record) const;

  std::filesystem::path tarball_path(const specs::PackageRecord& record) const;
  // Where a download is written until it is verified and renamed to
  // tarball_path; its size is the bytes received so far (progress displays
  // read it).
  std::filesystem::path partial_download_path(const specs::PackageRecord& record) const;
  std::filesystem::path extracted_path(const specs::PackageRecord& record) const;

 private:
  void check_safety(CachedPackage& cached) const;
  void refuse_mismatches_if_enabled(const CachedPackage& cached) const;

  PackageCacheOptions options_;
  std::shared_ptr<package::KeptBytesBudget> kept_budget_;
};

// The record's file name: `fn`, else the last segment of its URL. Throws
// PrefixError when it is not a bare package file name (a '/', a control
// character, "..", no .conda/.tar.bz2): no cache path is built from it.
std::string package_filename(const specs::PackageRecord& record);

// Empty when `digests` match what `record` announces; otherwise why not,
// naming `url` and the expected and actual values.
std::string digest_mismatch(const specs::PackageRecord& record, const package::FileDigests& digests,
                            const std::string& url);

}  // namespace gpuenv::prefix
