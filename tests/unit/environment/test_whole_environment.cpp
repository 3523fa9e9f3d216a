// Copying and deleting whole environments (whole_environment.hpp): what a
// clone takes from its source, and what may never be deleted.
#include <gtest/gtest.h>

#include <string>

#include "gpuenv/environment/whole_environment.hpp"
#include "support/temp_directory.hpp"

namespace gpuenv::environment {
namespace {

namespace fs = std::filesystem;
using testing::TempDirectory;
using testing::write_text_file;

std::string record_json(const std::string& name, const std::string& url) {
  return R"({"name": ")" + name + R"(", "version": "1.0", "build": "0", "build_number": 0, "subdir": "linux-64",)" +
         R"( "url": ")" + url + R"(", "files": [], "paths_data": {"paths": [], "paths_version": 1}})";
}

util::EnvLookup environment_of(const TempDirectory& scratch, const std::string& active = {}) {
  std::map<std::string, std::string, std::less<>> variables = {
      {"HOME", (scratch.path() / "home").string()}, {"GPUENV_ROOT_PREFIX", (scratch.path() / "root").string()}};
  if (!active.empty()) variables["CONDA_PREFIX"] = active;
  return util::fixed_environment(variables);
}

TEST(WholeEnvironment, ACloneTakesEveryRecordAsAnExplicitFileWould) {
  TempDirectory scratch;
  const auto source = scratch.path() / "source";
  write_text_file(source / "conda-meta/zlib-1.0-0.json", record_json("zlib", "https://example.org/zlib-1.0-0.conda"));
  write_text_file(source / "conda-meta/xz-1.0-0.json", record_json("xz", "https://example.org/xz-1.0-0.conda"));
  const auto files = clone_source(source.string(), environment_of(scratch));
  ASSERT_TRUE(files) << files.error().message;
  EXPECT_TRUE(files->is_explicit);
  ASSERT_EQ(files->explicit_packages.size(), 2u);
  EXPECT_EQ(files->explicit_packages[0].url, "https://example.org/xz-1.0-0.conda");
}

TEST(WholeEnvironment, ACloneThatWouldMissAPackageIsRefusedNamingIt) {
  TempDirectory scratch;
  const auto source = scratch.path() / "source";
  write_text_file(source / "conda-meta/local-1.0-0.json", record_json("local", ""));
  const auto no_url = clone_source(source.string(), environment_of(scratch));
  ASSERT_FALSE(no_url);
  EXPECT_NE(no_url.error().message.find("local-1.0-0 has no URL"), std::string::npos) << no_url.error().message;

  fs::remove(source / "conda-meta/local-1.0-0.json");
  write_text_file(source / "conda-meta/broken-1.0-0.json", "{");
  const auto damaged = clone_source(source.string(), environment_of(scratch));
  ASSERT_FALSE(damaged);
  EXPECT_NE(damaged.error().message.find("broken-1.0-0"), std::string::npos) << damaged.error().message;

  fs::remove(source / "conda-meta/broken-1.0-0.json");
  const auto empty = clone_source(source.string(), environment_of(scratch));
  ASSERT_FALSE(empty);
  EXPECT_NE(empty.error().message.find("has no packages to clone"), std::string::npos) << empty.error().message;
}

TEST(WholeEnvironment, NeverDeletesWhatIsNotAnEnvironmentOrMustStay) {
  TempDirectory scratch;
  const auto env_dir = scratch.path() / "env";
  fs::create_directories(env_dir / "conda-meta");
  EXPECT_FALSE(refuse_deleting(env_dir, environment_of(scratch), false));
  EXPECT_TRUE(refuse_deleting(scratch.path() / "plain", environment_of(scratch), false));
  EXPECT_TRUE(refuse_deleting(env_dir, environment_of(scratch, env_dir.string()), false));  // active

  fs::create_directories(scratch.path() / "home/conda-meta");
  EXPECT_TRUE(refuse_deleting(scratch.path() / "home", environment_of(scratch), false));
  fs::create_directories(scratch.path() / "root/conda-meta");
  EXPECT_TRUE(refuse_deleting(scratch.path() / "root", environment_of(scratch), false));

  write_text_file(env_dir / "conda-meta/frozen", "{}");
  const auto frozen = refuse_deleting(env_dir, environment_of(scratch), false);
  ASSERT_TRUE(frozen);
  EXPECT_NE(frozen->message.find("--override-frozen"), std::string::npos) << frozen->message;
  EXPECT_FALSE(refuse_deleting(env_dir, environment_of(scratch), true));
}

TEST(WholeEnvironment, TheRemovalNamesEveryRecordedPackageAndReportsDamagedRecords) {
  TempDirectory scratch;
  const auto env_dir = scratch.path() / "env";
  write_text_file(env_dir / "conda-meta/zlib-1.0-0.json", record_json("zlib", "https://example.org/z.conda"));
  write_text_file(env_dir / "conda-meta/broken-1.0-0.json", "{");
  std::vector<std::string> warnings;
  const auto request = removal_of_every_package(env_dir, true, warnings);
  EXPECT_EQ(request.kind, ChangeKind::remove);
  EXPECT_TRUE(request.dry_run);
  EXPECT_EQ(request.specs, (std::vector<std::string>{"zlib"}));
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("broken-1.0-0"), std::string::npos) << warnings[0];

  ASSERT_TRUE(delete_environment_directory(env_dir));
  EXPECT_FALSE(fs::exists(env_dir));
}

}  // namespace
}  // namespace gpuenv::environment
