// Extracting a package file into a directory, safely and streaming.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "gpuenv/package/file_verification.hpp"

namespace gpuenv::package {

// How many bytes of extracted files may be kept in memory at once, shared
// by the extractions of one transaction (KeptFiles gives them back).
class KeptBytesBudget {
 public:
  explicit KeptBytesBudget(std::uint64_t bytes) : left_(bytes) {}
  bool take(std::uint64_t bytes);
  void give_back(std::uint64_t bytes) { left_.fetch_add(bytes, std::memory_order_relaxed); }

 private:
  std::atomic<std::uint64_t> left_;
};

// A file as extraction wrote it into the cache entry, content and mode.
struct KeptFile {
  std::string content;
  mode_t mode = 0;
};

// The files with a prefix placeholder that extraction kept in memory, so
// that linking rewrites them without opening the cache entry's copies again.
struct KeptFiles {
  KeptFiles() = default;
  KeptFiles(const KeptFiles&) = delete;
  KeptFiles& operator=(const KeptFiles&) = delete;
  ~KeptFiles() {
    if (budget) budget->give_back(taken);
  }
  const KeptFile* find(const std::string& path) const {
    const auto found = files.find(path);
    return found == files.end() ? nullptr : &found->second;
  }

  std::unordered_map<std::string, KeptFile> files;
  std::shared_ptr<KeptBytesBudget> budget;
  std::uint64_t taken = 0;
};

// A file with a placeholder is kept only up to this size; larger ones
// (libraries with an RPATH placeholder) are read back from the cache.
inline constexpr std::uint64_t kMaxKeptFileBytes = 1u << 20;

struct ExtractSummary {
  std::uint64_t files = 0;  // regular files, links and directories written
  std::uint64_t bytes = 0;  // file content written
  // Regular files whose sha256 or size differ from info/paths.json's
  // declaration (every file is hashed as it is written). Empty for
  // packages without paths.json.
  std::vector<FileMismatch> mismatches;
  // The metadata files (info/index.json, paths.json, link.json and the
  // legacy files) as written, when all of them were small enough to keep:
  // the cache entry's metadata without reading it back.
  std::optional<std::map<std::string, std::string>> metadata_files;
  // With a budget given to extract_package: the files with a prefix
  // placeholder that fit it.
  std::shared_ptr<const KeptFiles> kept;
};

// Bounds on what one package may write, against decompression bombs (a
// few hundred KB that inflate to many GB).
struct ExtractLimits {
  // All file content together; unset: default_extract_limit(archive size).
  std::optional<std::uint64_t> max_total_bytes;
  // How far a member may run past the size_in_bytes paths.json declares for
  // it before extraction stops. A smaller lie is a safety-check matter
  // (reported or refused by safety_checks); a member far larger than
  // declared is a bomb and always refused.
  std::uint64_t member_slack_bytes = 1u << 20;
  // info/paths.json, read into memory while extracting.
  std::uint64_t max_metadata_bytes = 256u << 20;
};

// 1000 times the archive's size, at least 1 GiB, at most 64 GiB. Real
// packages expand a few times (conda-forge's largest: a few GB from a few
// hundred MB); bombs expand thousands of times.
std::uint64_t default_extract_limit(std::uint64_t archive_size);

// Extracts every member of `archive` (.conda: the info-*.tar.zst and
// pkg-*.tar.zst members; .tar.bz2: the tarball) into `target_dir`, creating
// it when missing. Members are streamed from the archive to disk; file modes
// are kept, and the modification times of .py files (shipped .pyc files
// check them; util::modification_time_matters).
//
// Refuses, with a PackageError naming the archive and the member, members
// with an absolute path or a `..` component, members written through a
// symbolic link of the archive, symbolic links whose target is absolute or
// resolves (through the archive's other links) outside `target_dir`, hard
// links to such places, and device files, FIFOs and sockets. Corrupt and
// truncated archives are refused likewise.
//
// Stops as soon as a member grows past its declared size_in_bytes plus
// `limits.member_slack_bytes`, or all members past `limits`' total (what
// bounds members that declare no size: legacy packages, a .tar.bz2 whose
// paths.json comes after them), refusing the package with a PackageError
// naming the member. A .conda's info/paths.json is read before anything is
// extracted; a .tar.bz2's is used from where it appears in the stream.
//
// With `keep`, the files paths.json gives a prefix placeholder are also
// kept in memory (ExtractSummary::kept), each up to kMaxKeptFileBytes,
// while `keep` has room.
//
// On failure `target_dir` holds a partial tree: extract into a fresh
// temporary directory and rename it into place (the package cache does).
ExtractSummary extract_package(const std::filesystem::path& archive,
                               const std::filesystem::path& target_dir,
                               const ExtractLimits& limits = {},
                               const std::shared_ptr<KeptBytesBudget>& keep = nullptr);

}  // namespace gpuenv::package
