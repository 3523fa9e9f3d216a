#include "gpuenv/package/hashing.hpp"

#include <fcntl.h>
#include <openssl/evp.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <optional>
#include <stdexcept>

#include "gpuenv/package/package_error.hpp"
#include "gpuenv/util/hex.hpp"

namespace gpuenv::package {

struct StreamingHash::Context {
  EVP_MD_CTX* md = nullptr;
  ~Context() { EVP_MD_CTX_free(md); }
};

StreamingHash::StreamingHash(HashAlgorithm algorithm) : context_(std::make_unique<Context>()) {
  context_->md = EVP_MD_CTX_new();
  const EVP_MD* type = algorithm == HashAlgorithm::sha256 ? EVP_sha256() : EVP_md5();
  if (context_->md == nullptr || EVP_DigestInit_ex(context_->md, type, nullptr) != 1) {
    // Only an OpenSSL without these digests (a FIPS build without md5) gets here.
    throw std::runtime_error("OpenSSL cannot compute " +
                             std::string(algorithm == HashAlgorithm::sha256 ? "sha256" : "md5"));
  }
}

StreamingHash::~StreamingHash() = default;
StreamingHash::StreamingHash(StreamingHash&&) noexcept = default;
StreamingHash& StreamingHash::operator=(StreamingHash&&) noexcept = default;

void StreamingHash::update(std::string_view bytes) { update(bytes.data(), bytes.size()); }

void StreamingHash::update(const void* data, std::size_t size) {
  if (size > 0) EVP_DigestUpdate(context_->md, data, size);
}

std::string StreamingHash::finish_hex() {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_DigestFinal_ex(context_->md, digest, &length);
  return util::hex_string(digest, length);
}

FileDigests hash_file(const std::filesystem::path& path, bool want_sha256, bool want_md5) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    throw PackageError("cannot read " + path.string() + ": " + std::strerror(errno));
  }
  std::optional<StreamingHash> sha256;
  std::optional<StreamingHash> md5;
  if (want_sha256) sha256.emplace(HashAlgorithm::sha256);
  if (want_md5) md5.emplace(HashAlgorithm::md5);
  FileDigests digests;
  // Not zeroed: hashing a cache entry's 20,000 small files spent more in a
  // 1 MiB memset each than in reading and hashing them.
  constexpr std::size_t kBuffer = 1u << 20;
  const std::unique_ptr<char[]> buffer(new char[kBuffer]);
  while (true) {
    const ssize_t count = ::read(fd, buffer.get(), kBuffer);
    if (count < 0) {
      if (errno == EINTR) continue;
      const int error = errno;
      ::close(fd);
      throw PackageError("cannot read " + path.string() + ": " + std::strerror(error));
    }
    if (count == 0) break;
    if (sha256) sha256->update(buffer.get(), static_cast<std::size_t>(count));
    if (md5) md5->update(buffer.get(), static_cast<std::size_t>(count));
    digests.size += static_cast<std::uint64_t>(count);
  }
  ::close(fd);
  if (sha256) digests.sha256 = sha256->finish_hex();
  if (md5) digests.md5 = md5->finish_hex();
  return digests;
}

std::string sha256_hex(std::string_view bytes) {
  StreamingHash hash(HashAlgorithm::sha256);
  hash.update(bytes);
  return hash.finish_hex();
}

bool same_digest(std::string_view a, std::string_view b) noexcept {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const auto lower = [](char c) { return c >= 'A' && c <= 'F' ? char(c - 'A' + 'a') : c; };
    if (lower(a[i]) != lower(b[i])) return false;
  }
  return true;
}

}  // namespace gpuenv::package
