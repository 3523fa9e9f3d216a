// The package cache: conda's layout, verification before use, reuse, and
// several processes sharing one cache.
#include <gtest/gtest.h>

#include <fstream>

#include "channel_records.hpp"
#include "gpuenv/prefix/fetch_batch.hpp"
#include "gpuenv/prefix/package_cache.hpp"
#include "gpuenv/prefix/prefix_error.hpp"
#include "gpuenv/specs/package_filename.hpp"
#include "prefix_fixture.hpp"
#include "support/test_http_server.hpp"

namespace gpuenv::prefix {
namespace {

using testing::channel_record;
using testing::PackageBuilder;
using testing::TempDirectory;
using testing::testdata_dir;

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

PackageCacheOptions cache_options(const std::filesystem::path& pkgs) {
  PackageCacheOptions options;
  options.pkgs_dirs = {pkgs};
  options.workers = 2;
  options.download.retry.backoff = std::chrono::milliseconds(10);
  return options;
}

const std::filesystem::path kFormatRepo = testdata_dir() / "channels/conda-format-repo";

std::string file_url(const std::filesystem::path& path) { return "file://" + path.string(); }

TEST(PackageCache, FetchesRealPackagesInCondasLayout) {
  TempDirectory scratch;
  const PackageCache cache(cache_options(scratch / "pkgs"));
  const auto record = channel_record(kFormatRepo, "win-64", "zlib-1.2.11-h62dcd97_3.conda",
                                     file_url(kFormatRepo));
  const auto cached = cache.fetch(record);
  EXPECT_EQ(cached.tarball, scratch / "pkgs/zlib-1.2.11-h62dcd97_3.conda");
  EXPECT_EQ(cached.extracted_dir, scratch / "pkgs/zlib-1.2.11-h62dcd97_3");
  EXPECT_EQ(package::hash_file(cached.tarball, true, false).sha256, record.sha256);
  EXPECT_EQ(cached.metadata.index.name, "zlib");
  EXPECT_TRUE(std::filesystem::is_regular_file(cached.extracted_dir / "Library/bin/zlib.dll"));
  const auto stored = package::parse_record_json(
      read_text(cached.extracted_dir / "info/repodata_record.json"), "repodata_record.json");
  EXPECT_EQ(stored.sha256, record.sha256);
  EXPECT_EQ(stored.md5, record.md5);
  EXPECT_EQ(stored.url, record.url);
  EXPECT_EQ(stored.fn, record.fn);
  EXPECT_EQ(read_text(scratch / "pkgs/urls.txt"), record.url + "\n");
}

// What the plan table and the download tracker count as nothing to download.
TEST(PackageCache, HoldsAPackageExtractedOrAsItsFileOnly) {
  TempDirectory scratch;
  const PackageCache cache(cache_options(scratch / "pkgs"));
  const auto record = channel_record(kFormatRepo, "win-64", "zlib-1.2.11-h62dcd97_3.conda",
                                     file_url(kFormatRepo));
  EXPECT_FALSE(cache.holds(record));
  const auto cached = cache.fetch(record);
  EXPECT_TRUE(cache.holds(record));
  std::filesystem::remove_all(cached.extracted_dir);
  EXPECT_TRUE(cache.holds(record));  // the file is still there
  std::filesystem::remove(cached.tarball);
  EXPECT_FALSE(cache.holds(record));
  std::filesystem::create_directory(cached.tarball);  // a directory by that name is no package file
  EXPECT_FALSE(cache.holds(record));
}

TEST(PackageCache, RefusesSymlinksWithoutTargetsInTheLinuxZlibFixture) {
  // conda's fixture lost its symlinks' targets (lib/libz.so -> ""): no tool
  // can create such a link, and conda fails on it too.
  TempDirectory scratch;
  const PackageCache cache(cache_options(scratch / "pkgs"));
  const auto record = channel_record(kFormatRepo, "linux-64", "zlib-1.2.11-h7b6447c_3.conda",
                                     file_url(kFormatRepo));
  try {
    cache.fetch(record);
    FAIL() << "extracted";
  } catch (const PrefixError& error) {
    EXPECT_NE(std::string(error.what()).find("'lib/libz.so"), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find("without a target"), std::string::npos) << error.what();
  }
  EXPECT_FALSE(std::filesystem::exists(scratch / "pkgs/zlib-1.2.11-h7b6447c_3"));
}

TEST(PackageCache, ReusesACompleteEntryWithoutFetching) {
  TempDirectory scratch;
  std::filesystem::create_directories(scratch / "channel/win-64");
  for (const auto* name : {"repodata.json", "zlib-1.2.11-h62dcd97_3.tar.bz2"}) {
    std::filesystem::copy_file(kFormatRepo / "win-64" / name, scratch / "channel/win-64" / name);
  }
  const PackageCache cache(cache_options(scratch / "pkgs"));
  const auto record = channel_record(scratch / "channel", "win-64", "zlib-1.2.11-h62dcd97_3.tar.bz2",
                                     file_url(scratch / "channel"));
  cache.fetch(record);
  std::filesystem::remove(scratch / "channel/win-64/zlib-1.2.11-h62dcd97_3.tar.bz2");
  std::filesystem::remove(scratch / "pkgs/zlib-1.2.11-h62dcd97_3.tar.bz2");
  const auto again = cache.fetch(record);  // the source is gone: only the cache can answer
  EXPECT_EQ(again.metadata.index.name, "zlib");
  EXPECT_EQ(read_text(scratch / "pkgs/urls.txt"), record.url + "\n");
}

TEST(PackageCache, ReExtractsAVerifiedTarballWithoutDownloading) {
  TempDirectory scratch;
  const PackageCache cache(cache_options(scratch / "pkgs"));
  const auto record = channel_record(kFormatRepo, "win-64", "zlib-1.2.11-h62dcd97_3.conda",
                                     file_url(kFormatRepo));
  auto moved = record;
  cache.fetch(record);
  std::filesystem::remove_all(scratch / "pkgs/zlib-1.2.11-h62dcd97_3");
  moved.url = "file:///nonexistent/zlib-1.2.11-h62dcd97_3.conda";
  EXPECT_EQ(cache.fetch(moved).metadata.index.name, "zlib");
}

TEST(PackageCache, RefusesACorruptedDownloadNamingUrlAndBothHashes) {
  TempDirectory scratch;
  const PackageCache cache(cache_options(scratch / "pkgs"));
  auto record = channel_record(kFormatRepo, "win-64", "zlib-1.2.11-h62dcd97_3.conda",
                               file_url(kFormatRepo));
  const auto actual = record.sha256;
  record.sha256 = std::string(64, 'a');
  try {
    cache.fetch(record);
    FAIL() << "a corrupted download was accepted";
  } catch (const PrefixError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find(record.url), std::string::npos) << message;
    EXPECT_NE(message.find(record.sha256), std::string::npos) << message;
    EXPECT_NE(message.find(actual), std::string::npos) << message;
  }
  EXPECT_FALSE(std::filesystem::exists(scratch / "pkgs/zlib-1.2.11-h62dcd97_3.conda"));
  EXPECT_FALSE(std::filesystem::exists(scratch / "pkgs/zlib-1.2.11-h62dcd97_3.conda.partial"));
  EXPECT_FALSE(std::filesystem::exists(scratch / "pkgs/zlib-1.2.11-h62dcd97_3"));
}

TEST(PackageCache, VerifiesMd5WhenThatIsAllTheRecordKnows) {
  TempDirectory scratch;
  const PackageCache cache(cache_options(scratch / "pkgs"));
  auto record = channel_record(kFormatRepo, "win-64", "zlib-1.2.11-h62dcd97_3.tar.bz2",
                               file_url(kFormatRepo));
  record.sha256.clear();
  auto wrong = record;
  wrong.md5 = std::string(32, '0');
  try {
    cache.fetch(wrong);
    FAIL() << "a wrong md5 was accepted";
  } catch (const PrefixError& error) {
    EXPECT_NE(std::string(error.what()).find("md5 " + wrong.md5), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find(record.md5), std::string::npos) << error.what();
  }
  EXPECT_EQ(cache.fetch(record).metadata.index.name, "zlib");
}

TEST(PackageCache, RefusesASizeMismatch) {
  TempDirectory scratch;
  const PackageCache cache(cache_options(scratch / "pkgs"));
  auto record = channel_record(kFormatRepo, "win-64", "zlib-1.2.11-h62dcd97_3.conda",
                               file_url(kFormatRepo));
  record.size = *record.size + 1;
  EXPECT_THROW(cache.fetch(record), PrefixError);
  EXPECT_FALSE(std::filesystem::exists(scratch / "pkgs/zlib-1.2.11-h62dcd97_3"));
}

TEST(PackageCache, RefusesACorruptArchiveWhoseHashMatches) {
  // conda-build's corrupt fixture, with its true digests: the download is
  // what the channel announced, the package inside is broken.
  TempDirectory scratch;
  const auto corrupt = testdata_dir() / "channels/conda-build-index_data/corrupt/noarch/bad_package.tar.bz2";
  specs::PackageRecord record;
  record.name = "bad_package";
  record.set_version("1.0");
  record.build = "0";
  record.fn = "bad_package.tar.bz2";
  record.url = file_url(corrupt);
  record.sha256 = package::hash_file(corrupt, true, false).sha256;
  const PackageCache cache(cache_options(scratch / "pkgs"));
  try {
    cache.fetch(record);
    FAIL() << "a corrupt package was extracted";
  } catch (const PrefixError& error) {
    EXPECT_NE(std::string(error.what()).find("corrupt"), std::string::npos) << error.what();
  }
  EXPECT_FALSE(std::filesystem::exists(scratch / "pkgs/bad_package.tar.bz2"));
  EXPECT_FALSE(std::filesystem::exists(scratch / "pkgs/bad_package"));
  EXPECT_FALSE(std::filesystem::exists(scratch / "pkgs/bad_package.gpuenv-partial"));
}

TEST(PackageCache, ReplacesADamagedEntry) {
  TempDirectory scratch;
  const PackageCache cache(cache_options(scratch / "pkgs"));
  const auto record = channel_record(kFormatRepo, "win-64", "zlib-1.2.11-h62dcd97_3.conda",
                                     file_url(kFormatRepo));
  std::filesystem::create_directories(scratch / "pkgs/zlib-1.2.11-h62dcd97_3/info");
  std::ofstream(scratch / "pkgs/zlib-1.2.11-h62dcd97_3/info/repodata_record.json") << "{damaged";
  std::filesystem::create_directories(scratch / "pkgs/zlib-1.2.11-h62dcd97_3.gpuenv-partial/junk");
  const auto cached = cache.fetch(record);
  EXPECT_TRUE(std::filesystem::is_regular_file(cached.extracted_dir / "Library/bin/zlib.dll"));
  EXPECT_FALSE(std::filesystem::exists(scratch / "pkgs/zlib-1.2.11-h62dcd97_3.gpuenv-partial"));
}

TEST(PackageCache, FindsPackagesExtractedInALaterPackageDirectory) {
  TempDirectory scratch;
  const auto record = channel_record(kFormatRepo, "win-64", "zlib-1.2.11-h62dcd97_3.conda",
                                     file_url(kFormatRepo));
  PackageCache(cache_options(scratch / "shared")).fetch(record);
  auto options = cache_options(scratch / "mine");
  options.pkgs_dirs.push_back(scratch / "shared");
  const auto cached = PackageCache(options).fetch(record);
  EXPECT_EQ(cached.extracted_dir, scratch / "shared/zlib-1.2.11-h62dcd97_3");
  EXPECT_FALSE(std::filesystem::exists(scratch / "mine/zlib-1.2.11-h62dcd97_3.conda"));
}

// A record from an explicit file may carry a channel token in its URL: the
// refusal names the URL masked.
TEST(PackageCache, ARefusedFileNameIsReportedWithoutTheUrlsToken) {
  TempDirectory scratch;
  const PackageCache cache(cache_options(scratch / "pkgs"));
  specs::PackageRecord record;
  record.name = "target";
  record.version = "1.0";
  record.build = "0";
  record.fn = "../target-1.0-0.conda";
  record.url = "https://user:pa55word@repo.example.com/t/tk-secret-1/chan/linux-64/target-1.0-0.conda";
  try {
    cache.fetch(record);
    ADD_FAILURE() << "fetched";
  } catch (const PrefixError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("is not a bare package file name"), std::string::npos) << message;
    EXPECT_EQ(message.find("tk-secret-1"), std::string::npos) << message;
    EXPECT_EQ(message.find("pa55word"), std::string::npos) << message;
    EXPECT_NE(message.find("/t/<TOKEN>/chan"), std::string::npos) << message;
  }
}

// Issue 32: a fresh extraction hands the linker its metadata and its small
// placeholder files from memory; what it hands over is what load() reads
// back from the entry, and the memory it keeps is bounded and given back.
TEST(PackageCache, AFreshEntryIsWhatLoadingItAgainGives) {
  TempDirectory scratch;
  const std::string ph = testing::long_placeholder();
  const auto file = PackageBuilder("kept", "1.0")
                        .file("share/plain.txt", "plain\n")
                        .text_with_prefix("bin/tool", "#!" + ph + "/bin/python\nprint(1)\n", ph, 0755)
                        .binary_with_prefix("lib/libk.so", std::string("\x7f" "ELF\0", 5) + ph + std::string("/lib\0tail", 9), ph)
                        .text_with_prefix("share/big.txt", std::string(package::kMaxKeptFileBytes, 'x') + ph, ph)
                        .write(scratch / "served", package::ArchiveFormat::conda);
  const PackageCache cache(cache_options(scratch / "pkgs"));
  const auto record = testing::file_record(file);
  const auto fresh = cache.fetch(record);
  const auto loaded = cache.load(record, fresh.extracted_dir);
  EXPECT_EQ(fresh.record.sha256, loaded.record.sha256);
  EXPECT_EQ(fresh.record.fn, loaded.record.fn);
  EXPECT_EQ(fresh.tarball, loaded.tarball);
  EXPECT_EQ(fresh.metadata.index.name, loaded.metadata.index.name);
  EXPECT_EQ(fresh.metadata.paths.paths, loaded.metadata.paths.paths);
  EXPECT_EQ(fresh.metadata.link.noarch, loaded.metadata.link.noarch);
  EXPECT_TRUE(fresh.mismatches.empty());
  EXPECT_EQ(loaded.kept, nullptr);  // only extraction keeps files
  ASSERT_NE(fresh.kept, nullptr);
  // The small files with a placeholder, byte for byte and mode as cached;
  // not the plain file, nor the one past kMaxKeptFileBytes.
  EXPECT_EQ(fresh.kept->files.size(), 2u);
  for (const auto* path : {"bin/tool", "lib/libk.so"}) {
    const auto* kept = fresh.kept->find(path);
    ASSERT_NE(kept, nullptr) << path;
    EXPECT_EQ(kept->content, read_text(fresh.extracted_dir / path)) << path;
    EXPECT_EQ(kept->mode, static_cast<mode_t>(std::filesystem::status(fresh.extracted_dir / path).permissions()))
        << path;
  }
  EXPECT_EQ(fresh.kept->find("share/big.txt"), nullptr);
  EXPECT_EQ(fresh.kept->find("share/plain.txt"), nullptr);
}

TEST(PackageCache, KeptFilesStayWithinTheBudgetAndGiveItBack) {
  TempDirectory scratch;
  const std::string ph = testing::long_placeholder();
  const std::string script = "#!" + ph + "/bin/sh\n" + std::string(1000, '#') + "\n";
  const auto package_with = [&](const std::string& name) {
    return testing::file_record(PackageBuilder(name, "1.0")
                                    .text_with_prefix("bin/a", script, ph, 0755)
                                    .text_with_prefix("bin/b", script, ph, 0755)
                                    .write(scratch / "served", package::ArchiveFormat::conda));
  };
  auto options = cache_options(scratch / "pkgs");
  options.kept_file_bytes = script.size() * 3;  // room for three of the four files
  const PackageCache cache(options);
  auto first = cache.fetch(package_with("one"));
  ASSERT_NE(first.kept, nullptr);
  EXPECT_EQ(first.kept->files.size(), 2u);
  const auto second = cache.fetch(package_with("two"));
  ASSERT_NE(second.kept, nullptr);
  EXPECT_EQ(second.kept->files.size(), 1u);  // the budget ran out after one
  // Dropping a package's kept files (once linked) makes room again.
  first.kept.reset();
  const auto third = cache.fetch(package_with("three"));
  ASSERT_NE(third.kept, nullptr);
  EXPECT_EQ(third.kept->files.size(), 2u);
  // A package refused halfway through a kept file gives its budget back.
  first.kept.reset();
  auto liar = PackageBuilder("liar", "1.0").text_with_prefix("bin/a", script, ph, 0755);
  liar.declared_as(std::nullopt, 10);  // 1 KB that says it is 10 bytes
  auto strict = options;
  strict.kept_file_bytes = script.size() * 2;
  strict.extract_limits.member_slack_bytes = 16;
  const PackageCache strict_cache(strict);
  const auto third_record = testing::file_record(liar.write(scratch / "served", package::ArchiveFormat::conda));
  EXPECT_THROW(strict_cache.fetch(third_record), PrefixError);
  const auto after = strict_cache.fetch(package_with("five"));
  ASSERT_NE(after.kept, nullptr);
  EXPECT_EQ(after.kept->files.size(), 2u);
  // No budget at all: nothing kept, and the package links from the entry.
  options.kept_file_bytes = 0;
  const PackageCache without(options);
  EXPECT_EQ(without.fetch(package_with("four")).kept, nullptr);
}

TEST(PackageCache, RefusesFileNamesThatAreNotBareBeforeBuildingAnyPath) {
  // Issue 9, defence in depth: repodata's loader refuses such names, but a
  // record can also come from an explicit file or a URL. Each of these made
  // the cache delete and refill a directory outside it (or the cache
  // itself, or its parent).
  TempDirectory scratch;
  const auto package = PackageBuilder("target", "1.0")
                           .file("share/evil", "evil\n")
                           .write(scratch / "served", package::ArchiveFormat::tar_bz2);
  std::filesystem::create_directories(scratch / "victim/target");
  testing::write_text_file(scratch / "victim/target/keep.txt", "precious\n");
  std::filesystem::create_directories(scratch / "pkgs");
  testing::write_text_file(scratch / "pkgs/keep.txt", "cache\n");
  const PackageCache cache(cache_options(scratch / "pkgs"));
  const auto good = testing::file_record(package);
  struct Hostile {
    std::string fn;
    std::string url;
  };
  const std::vector<Hostile> cases = {
      {"../victim/target.tar.bz2", good.url},
      {(scratch / "victim/target.tar.bz2").string(), good.url},
      {".tar.bz2", good.url},                                 // <pkgs>/ itself
      {"...tar.bz2", good.url},                               // <pkgs>/..
      {"", file_url(scratch / "served") + "/.."},             // the URL's last segment
      {std::string("target\0.tar.bz2", 15), good.url},       // cut short by the C library
      {"target\n-1.0-0.tar.bz2", good.url},
  };
  for (const auto& hostile : cases) {
    auto record = good;
    record.fn = hostile.fn;
    record.url = hostile.url;
    SCOPED_TRACE(specs::printable(hostile.fn) + " " + hostile.url);
    try {
      cache.fetch(record);
      ADD_FAILURE() << "fetched";
    } catch (const PrefixError& error) {
      EXPECT_NE(std::string(error.what()).find("is not a bare package file name"), std::string::npos) << error.what();
    }
    FetchBatch batch(cache, {record});
    EXPECT_THROW(batch.wait(0), PrefixError);
    EXPECT_THROW(cache.tarball_path(record), PrefixError);
    EXPECT_THROW(cache.extracted_path(record), PrefixError);
  }
  EXPECT_EQ(read_text(scratch / "victim/target/keep.txt"), "precious\n");
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(scratch / "victim/target"), {}), 1);
  EXPECT_FALSE(std::filesystem::exists(scratch / "victim/target.tar.bz2"));
  EXPECT_EQ(read_text(scratch / "pkgs/keep.txt"), "cache\n");
  EXPECT_TRUE(std::filesystem::exists(package));
  // The same package under its own name is fetched as usual.
  EXPECT_EQ(cache.fetch(good).extracted_dir, scratch / "pkgs/target-1.0-0");
}

class HttpCacheTest : public ::testing::Test {
 protected:
  HttpCacheTest() : server_(scratch_ / "served") {
    testing::ChannelBuilder channel(scratch_ / "served", server_.url(""));
    for (int i = 0; i < 6; ++i) {
      PackageBuilder builder("pkg" + std::to_string(i), "1.0");
      for (int f = 0; f < 5; ++f) {
        builder.file("share/pkg" + std::to_string(i) + "/file" + std::to_string(f),
                     std::string(20000 + 100 * f, static_cast<char>('a' + i)));
      }
      records_.push_back(channel.add(builder));
    }
  }

  std::size_t requests_for_packages() {
    std::size_t count = 0;
    for (const auto& request : server_.requests()) {
      if (request.path.ends_with(".conda")) ++count;
    }
    return count;
  }

  TempDirectory scratch_;
  testing::TestHttpServer server_;
  std::vector<specs::PackageRecord> records_;
};

TEST_F(HttpCacheTest, FetchesInParallelOverHttpAndReusesTheCache) {
  const PackageCache cache(cache_options(scratch_ / "pkgs"));
  {
    FetchBatch batch(cache, records_);
    for (std::size_t i = 0; i < records_.size(); ++i) {
      const auto& cached = batch.wait(i);
      EXPECT_EQ(cached.metadata.index.name, records_[i].name);
      EXPECT_TRUE(std::filesystem::is_regular_file(cached.extracted_dir / "share" / records_[i].name / "file4"));
    }
  }
  EXPECT_EQ(requests_for_packages(), records_.size());
  {
    FetchBatch batch(cache, records_);
    batch.wait_all();
  }
  EXPECT_EQ(requests_for_packages(), records_.size()) << "a warm cache downloads nothing";
}

TEST_F(HttpCacheTest, ReportsTheFailedPackageAndKeepsTheOthers) {
  const PackageCache cache(cache_options(scratch_ / "pkgs"));
  auto records = records_;
  records[2].url = server_.url("/linux-64/missing-1.0-0.conda");
  FetchBatch batch(cache, records);
  EXPECT_NO_THROW(batch.wait(0));
  try {
    batch.wait(2);
    FAIL() << "the missing package was fetched";
  } catch (const PrefixError& error) {
    EXPECT_NE(std::string(error.what()).find("404"), std::string::npos) << error.what();
  }
  EXPECT_NO_THROW(batch.wait(5));
}

TEST_F(HttpCacheTest, AnAbandonedBatchCancelsWhatIsLeftAndTheCacheStaysUsable) {
  server_.set_latency(0.3);
  const PackageCache cache(cache_options(scratch_ / "pkgs"));
  {
    FetchBatch batch(cache, records_);
  }  // destroyed while every download is still waiting for its answer
  server_.set_latency(0);
  FetchBatch batch(cache, records_);
  batch.wait_all();
  for (const auto& record : records_) EXPECT_TRUE(cache.find_extracted(record)) << record.name;
}

TEST_F(HttpCacheTest, TwoProcessesShareOneCache) {
  // Slow answers keep both processes busy at once; the package locks make
  // one of them wait and then find each package ready.
  server_.set_latency(0.05);
  const auto pkgs = scratch_ / "pkgs";
  const auto fetch_all = [&] {
    const PackageCache cache(cache_options(pkgs));
    FetchBatch batch(cache, records_);
    batch.wait_all();
  };
  const pid_t first = ::fork();
  if (first == 0) {
    try {
      fetch_all();
    } catch (...) {
      ::_exit(1);
    }
    ::_exit(0);
  }
  const auto second = testing::run_in_child(fetch_all);
  int status = 0;
  ::waitpid(first, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  EXPECT_EQ(second.exit_code, 0);
  EXPECT_EQ(requests_for_packages(), records_.size()) << "each package downloaded once";
  const PackageCache cache(cache_options(pkgs));
  for (const auto& record : records_) EXPECT_TRUE(cache.find_extracted(record)) << record.name;
}

}  // namespace
}  // namespace gpuenv::prefix
