// git sources from repositories made in the test (git init, commits, tags,
// a branch): checked out by tag, by revision, by branch and at the default
// branch, with .git kept so `git describe` works; depth cuts the history;
// the cache mirror serves a second checkout and is fetched again when a
// branch moves; a missing revision and hostile URLs fail clearly.
#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "gpuenv/builder/process_runner.hpp"
#include "gpuenv/builder/sources.hpp"
#include "support/run_command.hpp"
#include "support/temp_directory.hpp"

namespace {

namespace fs = std::filesystem;
using gpuenv::build::fetch_sources;
using gpuenv::build::SourceSettings;
using gpuenv::recipe::Source;
using gpuenv::testing::read_file;
using gpuenv::testing::TempDirectory;
using gpuenv::testing::write_text_file;

class GitSources : public ::testing::Test {
 protected:
  void SetUp() override {
    git({"init", "--quiet", "-b", "main", repo().string()});
    commit("VERSION", "1.0\n", "first");
    git({"-C", repo().string(), "tag", "v1.0"});
    first = head();
    commit("VERSION", "2.0\n", "second");
    git({"-C", repo().string(), "tag", "-a", "-m", "release 2", "v2.0"});
    second = head();
    git({"-C", repo().string(), "checkout", "--quiet", "-b", "feature"});
    commit("FEATURE", "feature\n", "feature work");
    git({"-C", repo().string(), "checkout", "--quiet", "main"});
  }

  fs::path repo() const { return dir / "upstream"; }
  fs::path src() const { return dir / "work/src"; }

  std::string git(const std::vector<std::string>& args, const fs::path& in = {}) const {
    std::vector<std::string> full = {"-c", "user.name=Test", "-c", "user.email=test@example.org",
                                     "-c", "commit.gpgsign=false", "-c", "tag.gpgsign=false"};
    if (!in.empty()) full.insert(full.end(), {"-C", in.string()});
    full.insert(full.end(), args.begin(), args.end());
    const auto result = gpuenv::testing::run_program("git", full);
    EXPECT_EQ(result.exit_code, 0) << "git " << args.front() << ": " << result.err;
    auto out = result.out;
    while (!out.empty() && out.back() == '\n') out.pop_back();
    return out;
  }

  void commit(const std::string& file, const std::string& content, const std::string& message) const {
    write_text_file(repo() / file, content);
    git({"add", file}, repo());
    git({"commit", "--quiet", "-m", message}, repo());
  }

  std::string head() const { return git({"rev-parse", "HEAD"}, repo()); }

  Source git_source() const {
    Source source;
    source.kind = Source::Kind::git;
    source.git = repo().string();
    return source;
  }

  SourceSettings settings() {
    SourceSettings result;
    result.recipe_dir = dir / "recipe";
    result.cache_dir = dir / "cache";
    result.log = [this](std::string_view line) { log += std::string(line) + "\n"; };
    return result;
  }

  TempDirectory dir;
  std::string first, second;
  std::string log;
};

TEST_F(GitSources, TagIsCheckedOutWithItsGitDirectorySoDescribeWorks) {
  auto source = git_source();
  source.tag = "v1.0";
  const auto fetched = fetch_sources({source}, src(), settings());
  ASSERT_TRUE(fetched) << fetched.error().message;
  EXPECT_EQ(read_file(src() / "VERSION"), "1.0\n");
  EXPECT_FALSE(fs::exists(src() / "FEATURE"));
  EXPECT_EQ(git({"rev-parse", "HEAD"}, src()), first);
  EXPECT_EQ(git({"describe", "--tags"}, src()), "v1.0");
}

TEST_F(GitSources, RevisionIsCheckedOut) {
  auto source = git_source();
  source.rev = second;
  ASSERT_TRUE(fetch_sources({source}, src(), settings()));
  EXPECT_EQ(read_file(src() / "VERSION"), "2.0\n");
  EXPECT_EQ(git({"describe"}, src()), "v2.0");
}

TEST_F(GitSources, ShortRevisionIsCheckedOut) {
  auto source = git_source();
  source.rev = first.substr(0, 10);
  ASSERT_TRUE(fetch_sources({source}, src(), settings()));
  EXPECT_EQ(git({"rev-parse", "HEAD"}, src()), first);
}

TEST_F(GitSources, BranchAndDefaultBranchAreCheckedOut) {
  auto source = git_source();
  source.branch = "feature";
  ASSERT_TRUE(fetch_sources({source}, src(), settings()));
  EXPECT_EQ(read_file(src() / "FEATURE"), "feature\n");
  const auto other = dir / "work/default";
  ASSERT_TRUE(fetch_sources({git_source()}, other, settings()));
  EXPECT_EQ(git({"rev-parse", "HEAD"}, other), second);
  EXPECT_FALSE(fs::exists(other / "FEATURE"));
}

TEST_F(GitSources, DepthCutsTheHistory) {
  auto source = git_source();
  source.tag = "v2.0";
  source.depth = 1;
  ASSERT_TRUE(fetch_sources({source}, src(), settings()));
  EXPECT_EQ(git({"rev-list", "--count", "HEAD"}, src()), "1");
  EXPECT_EQ(read_file(src() / "VERSION"), "2.0\n");
  const auto whole = dir / "work/whole";
  source.depth.reset();
  ASSERT_TRUE(fetch_sources({source}, whole, settings()));
  EXPECT_EQ(git({"rev-list", "--count", "HEAD"}, whole), "2");
}

TEST_F(GitSources, MirrorServesTheSecondCheckoutAndIsFetchedWhenABranchMoves) {
  auto source = git_source();
  source.tag = "v1.0";
  ASSERT_TRUE(fetch_sources({source}, src(), settings()));
  EXPECT_NE(log.find("cloning"), std::string::npos) << log;
  log.clear();
  ASSERT_TRUE(fetch_sources({source}, dir / "work/again", settings()));
  EXPECT_NE(log.find("from the cache"), std::string::npos) << log;
  EXPECT_EQ(log.find("fetching"), std::string::npos) << log;

  commit("VERSION", "3.0\n", "third");
  source.tag.reset();
  source.branch = "main";
  log.clear();
  ASSERT_TRUE(fetch_sources({source}, dir / "work/moved", settings()));
  EXPECT_NE(log.find("fetching"), std::string::npos) << log;
  EXPECT_EQ(read_file(dir / "work/moved/VERSION"), "3.0\n");
}

TEST_F(GitSources, MissingRevisionFailsNamingIt) {
  for (const bool as_tag : {false, true}) {
    auto source = git_source();
    if (as_tag) {
      source.tag = "v9.9";
    } else {
      source.rev = "0123456789abcdef0123456789abcdef01234567";
    }
    const auto fetched = fetch_sources({source}, src(), settings());
    ASSERT_FALSE(fetched);
    EXPECT_EQ(fetched.error().kind, gpuenv::build::BuildErrorKind::source);
    EXPECT_NE(fetched.error().message.find(as_tag ? "tag v9.9" : "revision 0123456789abcdef"), std::string::npos)
        << fetched.error().message;
    EXPECT_NE(fetched.error().message.find(repo().string()), std::string::npos) << fetched.error().message;
  }
}

// git has no size limit: a repository that would fill the disk is stopped
// at the source limits, and no oversized mirror is left in the cache.
TEST_F(GitSources, ARepositoryPastTheSizeLimitIsRefusedAndNotCached) {
  std::string big(2u << 20, '\0');  // incompressible: git's zlib cannot shrink it under the limit
  std::mt19937 random(42);
  for (auto& byte : big) byte = static_cast<char>(random());
  commit("blob.bin", big, "a big file");
  auto limited = settings();
  limited.max_download_bytes = 256u << 10;
  const auto fetched = fetch_sources({git_source()}, src(), limited);
  ASSERT_FALSE(fetched);
  EXPECT_EQ(fetched.error().kind, gpuenv::build::BuildErrorKind::source);
  EXPECT_NE(fetched.error().message.find("the most a git source may take"), std::string::npos)
      << fetched.error().message;
  std::error_code ignored;
  EXPECT_TRUE(fs::is_empty(dir / "cache/build-sources/git", ignored)) << "a partial mirror was left behind";
  // Within the limits, the same repository is fine.
  ASSERT_TRUE(fetch_sources({git_source()}, src(), settings()));
  EXPECT_EQ(read_file(src() / "blob.bin").size(), big.size());
}

// The check runs while git runs, not only after: a child that would go on
// for a minute is stopped within about a second of the answer changing.
TEST(ProcessRunner, StopIfKillsTheChildAndSaysWhy) {
  gpuenv::build::ProcessRequest request;
  request.argv = {"sh", "-c", "while :; do echo tick; sleep 0.1; done"};
  request.environment = gpuenv::build::current_environment();
  int checks = 0;
  request.stop_if = [&checks] { return ++checks >= 2 ? std::string("enough") : std::string(); };
  const auto start = std::chrono::steady_clock::now();
  const auto result = gpuenv::build::run_process(request);
  const auto seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(result.stopped, "enough");
  EXPECT_EQ(result.exit_code, 128 + SIGKILL);
  EXPECT_LT(seconds, 10.0);
  EXPECT_NE(result.output_tail.find("tick"), std::string::npos);
}

TEST_F(GitSources, HostileUrlsAndRefsAreRefusedBeforeGitRuns) {
  const auto marker = dir / "pwned";
  const std::vector<std::string> urls = {"--upload-pack=touch " + marker.string(),
                                         "ext::sh -c touch% " + marker.string(), "fd::17",
                                         "gopher://example.org/repo"};
  for (const auto& url : urls) {
    auto source = git_source();
    source.git = url;
    const auto fetched = fetch_sources({source}, src(), settings());
    ASSERT_FALSE(fetched) << url;
    EXPECT_NE(fetched.error().message.find(url), std::string::npos) << fetched.error().message;
  }
  auto source = git_source();
  source.rev = "--output=" + marker.string();
  EXPECT_FALSE(fetch_sources({source}, src(), settings()));
  EXPECT_FALSE(fs::exists(marker));
  EXPECT_FALSE(fs::exists(dir / "cache/build-sources/git")) << "nothing cloned for a refused source";
}

TEST_F(GitSources, LfsWithoutGitLfsSaysWhatToInstall) {
  if (gpuenv::testing::run_program("git", {"lfs", "version"}).exit_code == 0) {
    GTEST_SKIP() << "git-lfs is installed here";
  }
  auto source = git_source();
  source.tag = "v1.0";
  source.lfs = true;
  const auto fetched = fetch_sources({source}, src(), settings());
  ASSERT_FALSE(fetched);
  EXPECT_NE(fetched.error().message.find("git-lfs"), std::string::npos) << fetched.error().message;
}

TEST_F(GitSources, RelativePathIsResolvedAgainstTheRecipeAndJoinsOtherSources) {
  write_text_file(dir / "recipe/extra/notes.txt", "notes\n");
  auto source = git_source();
  source.git = "../upstream";
  source.tag = "v1.0";
  source.target_directory = "vendored";
  Source path;
  path.kind = Source::Kind::path;
  path.path = "extra";
  const auto fetched = fetch_sources({path, source}, src(), settings());
  ASSERT_TRUE(fetched) << fetched.error().message;
  EXPECT_EQ(read_file(src() / "notes.txt"), "notes\n");
  EXPECT_EQ(read_file(src() / "vendored/VERSION"), "1.0\n");
  EXPECT_TRUE(fs::exists(src() / "vendored/.git"));
}

}  // namespace
