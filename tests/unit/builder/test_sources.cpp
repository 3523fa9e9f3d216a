// Sources into SRC_DIR: path directories and archives, file:// urls with
// their digest checked and cached, archives extracted safely with their one
// top-level directory stripped, target_directory, file_name, and patches.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "gpuenv/builder/sources.hpp"
#include "gpuenv/net/file_url.hpp"
#include "gpuenv/package/hashing.hpp"
#include "gpuenv/package/package_writer.hpp"
#include "support/run_command.hpp"
#include "support/temp_directory.hpp"
#include "support/test_http_server.hpp"

namespace {

namespace fs = std::filesystem;
using gpuenv::build::BuildErrorKind;
using gpuenv::build::fetch_sources;
using gpuenv::build::SourceSettings;
using gpuenv::recipe::Source;
using gpuenv::testing::read_file;
using gpuenv::testing::TempDirectory;
using gpuenv::testing::write_text_file;

class Sources : public ::testing::Test {
 protected:
  SourceSettings settings() const {
    SourceSettings result;
    result.recipe_dir = dir / "recipe";
    result.cache_dir = dir / "cache";
    return result;
  }
  fs::path src() const { return dir / "work/src"; }

  // proj-1.0/{README,lib/a.c} as a .tar.gz made by tar itself.
  fs::path project_tarball() const {
    write_text_file(dir / "tree/proj-1.0/README", "hello\n");
    write_text_file(dir / "tree/proj-1.0/lib/a.c", "int a(void) { return 1; }\n");
    const auto tarball = dir / "proj-1.0.tar.gz";
    const auto result = gpuenv::testing::run_program(
        "tar", {"-czf", tarball.string(), "-C", (dir / "tree").string(), "proj-1.0"});
    EXPECT_EQ(result.exit_code, 0) << result.err;
    return tarball;
  }

  Source url_source(const fs::path& file, std::string sha256) const {
    Source source;
    source.kind = Source::Kind::url;
    source.urls = {gpuenv::net::file_url_from_path(file)};
    source.sha256 = std::move(sha256);
    return source;
  }

  TempDirectory dir;
};

std::string sha256_of(const fs::path& file) { return gpuenv::package::hash_file(file, true, false).sha256; }

TEST_F(Sources, PathDirectoryIsCopied) {
  write_text_file(dir / "recipe/project/main.c", "int main(void) { return 0; }\n");
  write_text_file(dir / "recipe/project/sub/x.txt", "x\n");
  Source source;
  source.kind = Source::Kind::path;
  source.path = "project";
  ASSERT_TRUE(fetch_sources({source}, src(), settings()));
  EXPECT_EQ(read_file(src() / "main.c"), "int main(void) { return 0; }\n");
  EXPECT_EQ(read_file(src() / "sub/x.txt"), "x\n");
}

TEST_F(Sources, PathDirectoryLeavesOutTheOutputDirectoryInsideIt) {
  write_text_file(dir / "recipe/project/main.c", "int main(void) { return 0; }\n");
  write_text_file(dir / "recipe/project/output/noarch/old-1.0-0.conda", "an earlier build\n");
  Source source;
  source.kind = Source::Kind::path;
  source.path = "project";
  auto with_output = settings();
  with_output.excluded_dir = dir / "recipe/project/./output";  // as a user may write it
  ASSERT_TRUE(fetch_sources({source}, src(), with_output));
  EXPECT_TRUE(fs::exists(src() / "main.c"));
  EXPECT_FALSE(fs::exists(src() / "output"));
}

TEST_F(Sources, UrlArchiveIsVerifiedExtractedStrippedAndCached) {
  const auto tarball = project_tarball();
  auto source = url_source(tarball, sha256_of(tarball));
  std::vector<std::string> log;
  auto with_log = settings();
  with_log.log = [&log](std::string_view line) { log.emplace_back(line); };
  const auto fetched = fetch_sources({source}, src(), with_log);
  ASSERT_TRUE(fetched) << fetched.error().message;
  EXPECT_EQ(read_file(src() / "README"), "hello\n");
  EXPECT_EQ(read_file(src() / "lib/a.c"), "int a(void) { return 1; }\n");

  // The second build finds it in the cache, even with the original gone.
  fs::remove(tarball);
  fs::remove_all(src());
  log.clear();
  ASSERT_TRUE(fetch_sources({source}, src(), with_log));
  EXPECT_EQ(read_file(src() / "README"), "hello\n");
  ASSERT_FALSE(log.empty());
  EXPECT_NE(log.front().find("from the cache"), std::string::npos) << log.front();
}

TEST_F(Sources, HttpUrlIsDownloadedThroughTheNetModule) {
  const auto tarball = project_tarball();
  fs::create_directories(dir / "served");
  fs::copy_file(tarball, dir / "served/proj-1.0.tar.gz");
  gpuenv::testing::TestHttpServer server(dir / "served");
  Source source = url_source(tarball, sha256_of(tarball));
  source.urls = {server.url("/missing.tar.gz"), server.url("/proj-1.0.tar.gz")};  // a dead mirror first
  const auto fetched = fetch_sources({source}, src(), settings());
  ASSERT_TRUE(fetched) << fetched.error().message;
  EXPECT_EQ(read_file(src() / "lib/a.c"), "int a(void) { return 1; }\n");
}

TEST_F(Sources, WrongSha256NamesBothDigests) {
  const auto tarball = project_tarball();
  const std::string wrong(64, 'a');
  const auto fetched = fetch_sources({url_source(tarball, wrong)}, src(), settings());
  ASSERT_FALSE(fetched);
  EXPECT_EQ(fetched.error().kind, BuildErrorKind::source);
  EXPECT_NE(fetched.error().message.find(wrong), std::string::npos) << fetched.error().message;
  EXPECT_NE(fetched.error().message.find(sha256_of(tarball)), std::string::npos) << fetched.error().message;
  // Nothing unverified is kept in the cache.
  std::size_t cached = 0;
  for (const auto& entry : fs::recursive_directory_iterator(dir / "cache")) cached += entry.is_regular_file();
  EXPECT_EQ(cached, 0u);
}

TEST_F(Sources, Md5IsAcceptedWhenNoSha256IsGiven) {
  const auto tarball = project_tarball();
  auto source = url_source(tarball, "");
  source.sha256.reset();
  source.md5 = gpuenv::package::hash_file(tarball, false, true).md5;
  ASSERT_TRUE(fetch_sources({source}, src(), settings()));
  EXPECT_TRUE(fs::exists(src() / "README"));
}

TEST_F(Sources, HostileArchivesAreRefused) {
  using gpuenv::package::PackageMember;
  const auto member = [](std::string path, PackageMember::Kind kind, std::string content_or_target) {
    PackageMember result;
    result.path = std::move(path);
    result.kind = kind;
    (kind == PackageMember::Kind::symlink ? result.link_target : result.content) = std::move(content_or_target);
    return std::vector<PackageMember>{result};
  };
  const std::vector<std::vector<PackageMember>> hostile = {
      member("proj/../../escaped.txt", PackageMember::Kind::file, "x"),
      member("proj/link", PackageMember::Kind::symlink, "/etc"),
      member("proj/link", PackageMember::Kind::symlink, "../../.."),
  };
  for (const auto& members : hostile) {
    const auto archive = dir / "evil-1.0.tar.bz2";
    gpuenv::package::write_package_members(archive, members);
    const auto fetched = fetch_sources({url_source(archive, sha256_of(archive))}, src(), settings());
    ASSERT_FALSE(fetched) << members.front().path;
    EXPECT_NE(fetched.error().message.find("refusing to extract"), std::string::npos) << fetched.error().message;
    EXPECT_NE(fetched.error().message.find("proj/"), std::string::npos) << fetched.error().message;
    EXPECT_FALSE(fs::exists(dir / "escaped.txt"));
    fs::remove_all(dir / "cache");
  }
}

TEST_F(Sources, UnpackedSizeIsBounded) {
  const auto tarball = project_tarball();
  auto bounded = settings();
  bounded.max_unpacked_bytes = 8;
  const auto fetched = fetch_sources({url_source(tarball, sha256_of(tarball))}, src(), bounded);
  ASSERT_FALSE(fetched);
  EXPECT_NE(fetched.error().message.find("more than 8 bytes"), std::string::npos) << fetched.error().message;
}

TEST_F(Sources, TargetDirectoryAndFileName) {
  const auto tarball = project_tarball();
  auto extracted = url_source(tarball, sha256_of(tarball));
  extracted.target_directory = "vendor/proj";
  auto kept = url_source(tarball, sha256_of(tarball));
  kept.file_name = "original.tar.gz";
  ASSERT_TRUE(fetch_sources({extracted, kept}, src(), settings()));
  EXPECT_EQ(read_file(src() / "vendor/proj/README"), "hello\n");
  EXPECT_EQ(read_file(src() / "original.tar.gz"), read_file(tarball));

  auto escaping = extracted;
  escaping.target_directory = "../outside";
  const auto refused = fetch_sources({escaping}, src(), settings());
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("../outside"), std::string::npos);
}

TEST_F(Sources, LocalArchiveAndZip) {
  write_text_file(dir / "tree/only/file.txt", "zipped\n");
  const auto zip = dir / "recipe/only.zip";
  fs::create_directories(zip.parent_path());
  const auto made = gpuenv::testing::run_program(
      "/bin/sh", {"-c", "cd '" + (dir / "tree").string() + "' && python3 -m zipfile -c '" + zip.string() + "' only"});
  ASSERT_EQ(made.exit_code, 0) << made.err;
  Source source;
  source.kind = Source::Kind::path;
  source.path = "only.zip";
  const auto fetched = fetch_sources({source}, src(), settings());
  ASSERT_TRUE(fetched) << fetched.error().message;
  EXPECT_EQ(read_file(src() / "file.txt"), "zipped\n");
}

TEST_F(Sources, EveryTarCompressionIsExtracted) {
  write_text_file(dir / "tree/proj-2.0/file.txt", "compressed\n");
  for (const auto& [suffix, flag] : std::vector<std::pair<std::string, std::string>>{
           {".tar.gz", "-z"}, {".tar.bz2", "-j"}, {".tar.xz", "-J"}, {".tar.zst", "--zstd"}, {".tar", ""}}) {
    const auto archive = dir / "recipe" / ("proj-2.0" + suffix);
    fs::create_directories(archive.parent_path());
    std::vector<std::string> args = {"-cf", archive.string(), "-C", (dir / "tree").string(), "proj-2.0"};
    if (!flag.empty()) args.insert(args.begin(), flag);
    const auto made = gpuenv::testing::run_program("tar", args);
    ASSERT_EQ(made.exit_code, 0) << suffix << made.err;
    Source source;
    source.kind = Source::Kind::path;
    source.path = archive.filename().string();
    fs::remove_all(src());
    const auto fetched = fetch_sources({source}, src(), settings());
    ASSERT_TRUE(fetched) << suffix << ": " << fetched.error().message;
    EXPECT_EQ(read_file(src() / "file.txt"), "compressed\n") << suffix;
  }
}

TEST_F(Sources, PatchesApplyOrNameTheOneThatDoesNot) {
  write_text_file(dir / "recipe/project/greeting.txt", "hello\n");
  write_text_file(dir / "recipe/fix.patch",
                  "--- a/greeting.txt\n+++ b/greeting.txt\n@@ -1 +1 @@\n-hello\n+hello, patched\n");
  write_text_file(dir / "recipe/stale.patch",
                  "--- a/greeting.txt\n+++ b/greeting.txt\n@@ -1 +1 @@\n-goodbye\n+farewell\n");
  Source source;
  source.kind = Source::Kind::path;
  source.path = "project";
  source.patches = {"fix.patch"};
  const auto applied = fetch_sources({source}, src(), settings());
  ASSERT_TRUE(applied) << applied.error().message;
  EXPECT_EQ(read_file(src() / "greeting.txt"), "hello, patched\n");

  fs::remove_all(src());
  source.patches = {"stale.patch"};
  const auto failed = fetch_sources({source}, src(), settings());
  ASSERT_FALSE(failed);
  EXPECT_NE(failed.error().message.find("patch stale.patch does not apply"), std::string::npos)
      << failed.error().message;
}

}  // namespace

// --source-archives: Debian's .orig tarball of an upstream release is the
// same file under another name; the recipe's upstream url cannot be reached.
class SourceArchives : public Sources {
 protected:
  Source unreachable_source(const fs::path& same_bytes_as) const {
    Source source;
    source.kind = Source::Kind::url;
    source.urls = {"file://" + (dir / "nowhere/proj-1.0.tar.gz").string()};
    source.sha256 = sha256_of(same_bytes_as);
    return source;
  }
};

TEST_F(SourceArchives, AFileOfTheRecipesDigestStandsInForTheUrlWhateverItsName) {
  const auto tarball = project_tarball();
  fs::create_directories(dir / "debian");
  fs::copy_file(tarball, dir / "debian/proj_1.0.orig.tar.gz");
  write_text_file(dir / "debian/other_2.0.orig.tar.gz", "another source\n");
  auto with_archives = settings();
  with_archives.archive_dirs = {dir / "debian"};
  std::vector<std::string> log;
  with_archives.log = [&log](std::string_view line) { log.emplace_back(line); };
  const auto fetched = fetch_sources({unreachable_source(tarball)}, src(), with_archives);
  ASSERT_TRUE(fetched) << fetched.error().message;
  EXPECT_EQ(read_file(src() / "README"), "hello\n");
  bool said = false;
  for (const auto& line : log) said = said || line.find("from " + (dir / "debian/proj_1.0.orig.tar.gz").string()) != std::string::npos;
  EXPECT_TRUE(said) << "the log names the file taken";
  // Now in the cache: the directory is not needed again.
  fs::remove_all(src());
  ASSERT_TRUE(fetch_sources({unreachable_source(tarball)}, src(), settings()));
}

TEST_F(SourceArchives, AFileOfAnotherDigestIsNotTakenAndTheUrlIsTried) {
  const auto tarball = project_tarball();
  fs::create_directories(dir / "debian");
  write_text_file(dir / "debian/proj-1.0.tar.gz", "same name, other bytes\n");
  auto with_archives = settings();
  with_archives.archive_dirs = {dir / "debian"};
  const auto fetched = fetch_sources({unreachable_source(tarball)}, src(), with_archives);
  ASSERT_FALSE(fetched);
  EXPECT_NE(fetched.error().message.find("cannot download the source"), std::string::npos) << fetched.error().message;
  EXPECT_FALSE(fs::exists(src() / "README"));
}
