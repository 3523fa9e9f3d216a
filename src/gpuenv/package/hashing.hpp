// sha256 and md5 of package files, computed while the bytes stream past
// (downloads, copies) so that no file is read twice just to be verified.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

namespace gpuenv::package {

enum class HashAlgorithm { sha256, md5 };

// One running digest (OpenSSL EVP). Movable, not copyable.
class StreamingHash {
 public:
  explicit StreamingHash(HashAlgorithm algorithm);
  ~StreamingHash();
  StreamingHash(StreamingHash&&) noexcept;
  StreamingHash& operator=(StreamingHash&&) noexcept;

  void update(std::string_view bytes);
  void update(const void* data, std::size_t size);
  // Lowercase hex of the digest. Ends the computation: call once.
  std::string finish_hex();

 private:
  struct Context;
  std::unique_ptr<Context> context_;
};

// The digests a verification needs, computed in one pass.
struct FileDigests {
  std::string sha256;  // empty when not asked for
  std::string md5;     // empty when not asked for
  std::uint64_t size = 0;
};

// Hashes a whole file. Throws PackageError when it cannot be read.
FileDigests hash_file(const std::filesystem::path& path, bool want_sha256, bool want_md5);

// Hex digest of a string in memory.
std::string sha256_hex(std::string_view bytes);

// Whether two hex digests are equal, ignoring case (repodata has both).
bool same_digest(std::string_view a, std::string_view b) noexcept;

}  // namespace gpuenv::package
