// Shared setup of the repodata fetch tests: a scratch directory holding the
// files a real test HTTP server serves ("served/<channel>/<subdir>/...") and
// the repodata cache ("cache/").
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "gpuenv/repodata/fetch.hpp"
#include "gpuenv/repodata/repodata_cache.hpp"
#include "gpuenv/repodata/zstd_stream.hpp"
#include "support/test_http_server.hpp"

namespace gpuenv::testing {

inline std::string slurp(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

inline void spit(const std::filesystem::path& path, const std::string& content) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << content;
}

// A scratch directory removed with its contents at the end of the scope.
class ScratchDir {
 public:
  ScratchDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "gpuenv-repodata-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~ScratchDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// Repodata with `packages` records; `revision` changes every record, so two
// revisions differ in content and ETag.
inline std::string sample_repodata(const std::string& subdir, int packages, int revision = 0) {
  nlohmann::ordered_json doc;
  doc["info"] = {{"subdir", subdir}};
  doc["packages"] = nlohmann::json::object();
  nlohmann::ordered_json conda_packages = nlohmann::ordered_json::object();
  for (int i = 0; i < packages; ++i) {
    const std::string version = std::to_string(revision) + "." + std::to_string(i);
    conda_packages["pkg" + std::to_string(i) + "-" + version + "-h0_0.conda"] = {
        {"name", "pkg" + std::to_string(i)}, {"version", version}, {"build", "h0_0"},
        {"build_number", 0}, {"depends", {"python >=3.9", "libzlib >=1.2.13,<2"}},
        {"subdir", subdir}, {"size", 1000 + i}};
  }
  doc["packages.conda"] = conda_packages;
  doc["removed"] = nlohmann::json::array();
  doc["repodata_version"] = 1;
  return doc.dump(1) + "\n";
}

// nlohmann::json only carries valid UTF-8; the server turns the string back
// into bytes with latin-1, so each byte travels as one code point.
inline std::string bytes_as_latin1_utf8(std::string_view bytes) {
  std::string text;
  for (const unsigned char c : bytes) {
    if (c < 0x80) {
      text += static_cast<char>(c);
    } else {
      text += static_cast<char>(0xC0 | (c >> 6));
      text += static_cast<char>(0x80 | (c & 0x3F));
    }
  }
  return text;
}

class FetchTest : public ::testing::Test {
 protected:
  void SetUp() override { server_ = std::make_unique<TestHttpServer>(served_dir()); }
  void TearDown() override { server_.reset(); }

  std::filesystem::path served_dir() const { return scratch_.path() / "served"; }
  std::filesystem::path cache_dir() const { return scratch_.path() / "cache"; }
  TestHttpServer& server() { return *server_; }

  enum class Publish { zst_and_json, zst_only, json_only };

  // Puts repodata for <channel>/<subdir> on the server.
  void publish(const std::string& channel, const std::string& subdir, const std::string& json,
               Publish what = Publish::zst_and_json) {
    const auto dir = served_dir() / channel / subdir;
    std::filesystem::remove(dir / "repodata.json");
    std::filesystem::remove(dir / "repodata.json.zst");
    if (what != Publish::zst_only) spit(dir / "repodata.json", json);
    if (what != Publish::json_only) spit(dir / "repodata.json.zst", repodata::zstd_compress(json, 3));
  }

  std::string subdir_url(const std::string& channel, const std::string& subdir) {
    return server_->url("/" + channel + "/" + subdir + "/");
  }
  static std::string path_of(const std::string& channel, const std::string& subdir,
                             const std::string& file) {
    return "/" + channel + "/" + subdir + "/" + file;
  }

  // Fast retries and a short stall timeout keep failure tests quick; ttl 0
  // makes every fetch ask the server, as the tests mostly want.
  repodata::FetchOptions options() const {
    repodata::FetchOptions options;
    options.cache_dir = cache_dir();
    options.retry.max_retries = 2;
    options.retry.backoff = std::chrono::milliseconds(20);
    options.client.stall_timeout = std::chrono::seconds(10);
    options.max_parallel = 8;
    options.ttl = std::chrono::seconds(0);
    return options;
  }

  repodata::FetchResult fetch(const std::string& url, const repodata::FetchOptions& options,
                              const std::string& channel = "test-channel") {
    auto results = repodata::fetch_repodata({{url, channel}}, options);
    EXPECT_EQ(results.size(), 1u);
    return std::move(results.front());
  }
  repodata::FetchResult fetch(const std::string& url) { return fetch(url, options()); }

  nlohmann::json state_file(const std::string& url) {
    return nlohmann::json::parse(slurp(repodata::RepodataCache(cache_dir()).state_path(url)));
  }

  // Files a failed download might leave behind.
  std::vector<std::string> partial_files_in_cache() const {
    std::vector<std::string> partial;
    if (!std::filesystem::exists(cache_dir())) return partial;
    for (const auto& entry : std::filesystem::directory_iterator(cache_dir())) {
      const auto name = entry.path().filename().string();
      if (name.find(".part") != std::string::npos) partial.push_back(name);
    }
    return partial;
  }

 private:
  ScratchDir scratch_;
  std::unique_ptr<TestHttpServer> server_;
};

// For EXPECT messages: the error's message, or "ok".
inline std::string describe(const repodata::FetchResult& result) {
  return result ? std::string("ok: ") + result->json_path.string() : result.error().message;
}

}  // namespace gpuenv::testing
