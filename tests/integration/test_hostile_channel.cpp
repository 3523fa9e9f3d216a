// Issue 9: a hostile channel does no harm outside the prefix. Each test
// builds the attack as a channel would serve it (file:// and over the local
// HTTP server) and runs `gpuenv create` against it like a user.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <tuple>
#include <vector>

#include "support/test_http_server.hpp"
#include "test_install_support.hpp"

namespace {

using gpuenv::testing::ChannelBuilder;
using gpuenv::testing::contains;
using gpuenv::testing::file_url;
using gpuenv::testing::installed_dists;
using gpuenv::testing::PackageBuilder;
using gpuenv::testing::read_file;
using gpuenv::testing::run_gpuenv;
using gpuenv::testing::SolveCliMachine;
using gpuenv::testing::write_text_file;

// The repodata record a channel serves for `file`, as built by `builder`.
nlohmann::json record_for(const PackageBuilder& builder, const std::filesystem::path& file) {
  auto record = builder.index_json();
  const auto digests = gpuenv::package::hash_file(file, true, true);
  record["sha256"] = digests.sha256;
  record["md5"] = digests.md5;
  record["size"] = digests.size;
  return record;
}

// <root>/linux-64/repodata.json holding `packages`, and an empty noarch.
void write_channel(const std::filesystem::path& root, const nlohmann::json& packages, const nlohmann::json& info = {}) {
  nlohmann::json linux64 = {{"info", {{"subdir", "linux-64"}}}, {"packages", packages},
                            {"packages.conda", nlohmann::json::object()}};
  for (const auto& [key, value] : info.items()) linux64["info"][key] = value;
  write_text_file(root / "linux-64/repodata.json", linux64.dump(1));
  write_text_file(root / "noarch/repodata.json", R"({"info": {"subdir": "noarch"}, "packages": {}})");
}

gpuenv::testing::CommandOutput create(const SolveCliMachine& machine, const std::string& channel,
                                      const std::string& spec) {
  return run_gpuenv({"create", "-p", (machine / "env").string(), "-c", channel, "--override-channels", "-y", spec},
                    machine.env());
}

// The package cache is <machine>/root/pkgs: a key of
// "../../victim/target.tar.bz2" names <machine>/victim/target(.tar.bz2).
// The package itself lies where the key's URL leads, so that the attack
// worked end to end before the fix.
class PathInKey : public ::testing::Test {
 protected:
  PathInKey() {
    const PackageBuilder target("target", "1.0", "0");
    const auto built = PackageBuilder(target)
                           .file("share/evil", "evil\n")
                           .write(machine_ / "build", gpuenv::package::ArchiveFormat::tar_bz2);
    std::filesystem::create_directories(machine_ / "served/victim");
    std::filesystem::rename(built, machine_ / "served/victim/target.tar.bz2");
    write_channel(machine_ / "served/hostile",
                  {{"../../victim/target.tar.bz2", record_for(target, machine_ / "served/victim/target.tar.bz2")}});
    write_text_file(machine_ / "victim/target/keep.txt", "precious\n");
  }

  void expect_refused(const gpuenv::testing::CommandOutput& result) {
    EXPECT_NE(result.exit_code, 0) << result.err;
    // The warning names the channel, the subdir and the key.
    EXPECT_TRUE(contains(result.err, "hostile")) << result.err;
    EXPECT_TRUE(contains(result.err, "subdir linux-64")) << result.err;
    EXPECT_TRUE(contains(result.err, "'../../victim/target.tar.bz2'")) << result.err;
    EXPECT_TRUE(contains(result.err, "the file name has a '/'")) << result.err;
    EXPECT_EQ(read_file(machine_ / "victim/target/keep.txt"), "precious\n");
    EXPECT_EQ(std::distance(std::filesystem::directory_iterator(machine_ / "victim"), {}), 1);
    EXPECT_EQ(std::distance(std::filesystem::directory_iterator(machine_ / "victim/target"), {}), 1);
    EXPECT_FALSE(std::filesystem::exists(machine_ / "env/conda-meta"));
  }

  SolveCliMachine machine_;
};

TEST_F(PathInKey, AFileChannelCannotReachOutsideThePackageCache) {
  expect_refused(create(machine_, file_url(machine_ / "served/hostile"), "target"));
}

TEST_F(PathInKey, AnHttpChannelCannotReachOutsideThePackageCache) {
  gpuenv::testing::TestHttpServer server(machine_ / "served");
  expect_refused(create(machine_, server.url("/hostile"), "target"));
  for (const auto& request : server.requests()) EXPECT_FALSE(contains(request.path, "victim")) << request.path;
}

// A channel served over HTTP whose base_url sends gpuenv to this
// machine's disk for a package the server does not have.
TEST(RemoteBaseUrl, AnHttpChannelCannotSendGpuenvToLocalFiles) {
  SolveCliMachine machine;
  const PackageBuilder local("local", "1.0", "0");
  const auto file = PackageBuilder(local).file("share/local", "from disk\n").write(machine / "disk");
  const nlohmann::json packages = {{file.filename().string(), record_for(local, file)}};
  // One channel each: the server's Cache-Control keeps a fetched repodata.
  const auto serve = [&](const std::string& name, const std::string& base_url) {
    write_channel(machine / "served" / name, nlohmann::json::object(), {{"base_url", base_url}});
    auto document = nlohmann::json::parse(read_file(machine / "served" / name / "linux-64/repodata.json"));
    document["packages.conda"] = packages;
    write_text_file(machine / "served" / name / "linux-64/repodata.json", document.dump(1));
  };
  gpuenv::testing::TestHttpServer server(machine / "served");
  const std::vector<std::pair<std::string, std::string>> hostile = {
      {"lower", file_url(machine / "disk") + "/"}, {"upper", "FILE://" + (machine / "disk").string() + "/"}};
  for (const auto& [name, base_url] : hostile) {
    SCOPED_TRACE(base_url);
    serve(name, base_url);
    const auto result = create(machine, server.url("/" + name), "local");
    EXPECT_NE(result.exit_code, 0);
    EXPECT_TRUE(contains(result.err, server.url("/" + name))) << result.err;
    EXPECT_TRUE(contains(result.err, "subdir linux-64")) << result.err;
    EXPECT_TRUE(contains(result.err, "base_url '" + base_url + "'")) << result.err;
    EXPECT_TRUE(contains(result.err, "http:// or https://")) << result.err;
    EXPECT_FALSE(std::filesystem::exists(machine / "env/conda-meta"));
    EXPECT_FALSE(std::filesystem::exists(machine / "root/pkgs/local-1.0-0"));
  }
  // CEP 15 as meant: a base_url on the server itself still works.
  std::filesystem::create_directories(machine / "served/pool");
  std::filesystem::copy_file(file, machine / "served/pool" / file.filename());
  serve("relative", "../../pool/");
  const auto result = create(machine, server.url("/relative"), "local");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(installed_dists(machine / "env"), std::vector<std::string>{"local-1.0-0"});
  EXPECT_EQ(server.requests_for("/pool/" + file.filename().string()).size(), 1u);
}

// A record whose dependency cannot be read is not installable: the healthy
// build is chosen, and asking for the broken one says why it cannot be.
TEST(UnreadableDependency, TheRecordIsNotInstalledWithoutItsDependency) {
  SolveCliMachine machine;
  ChannelBuilder channel(machine / "channel", file_url(machine / "channel"));
  // The broken build has the higher build number: dropping its bad entry
  // would make it the one installed.
  channel.add(PackageBuilder("foo", "1.0", "1").depends({"baz[[[["}).index_field("build_number", 1));
  channel.add(PackageBuilder("foo", "1.0", "0").file("share/foo", "healthy\n"));
  channel.add(PackageBuilder("bar", "1.0", "0").depends({"::::"}));
  channel.add(PackageBuilder("qux", "1.0", "0").index_field("constrains", nlohmann::json::array({"baz[[[["})));
  write_text_file(machine / "channel/noarch/repodata.json", R"({"info": {"subdir": "noarch"}, "packages": {}})");

  const auto healthy = create(machine, file_url(machine / "channel"), "foo");
  ASSERT_EQ(healthy.exit_code, 0) << healthy.err;
  EXPECT_EQ(installed_dists(machine / "env"), std::vector<std::string>{"foo-1.0-0"});

  const auto prefix = machine / "env2";
  for (const auto& [spec, record, entry] : std::vector<std::tuple<std::string, std::string, std::string>>{
           {"foo=1.0=1", "foo 1.0 1", "depends entry 'baz[[[['"},
           {"bar", "bar 1.0 0", "depends entry '::::'"},
           {"qux", "qux 1.0 0", "constrains entry 'baz[[[['"}}) {
    SCOPED_TRACE(spec);
    const auto broken = run_gpuenv({"create", "-p", prefix.string(), "-c", file_url(machine / "channel"),
                                    "--override-channels", "-y", spec},
                                   machine.env());
    EXPECT_NE(broken.exit_code, 0);
    EXPECT_TRUE(contains(broken.err, record + " cannot be installed")) << broken.err;
    EXPECT_TRUE(contains(broken.err, entry)) << broken.err;
    EXPECT_FALSE(std::filesystem::exists(prefix / "conda-meta"));
  }
}

// CEP 43 conditional dependencies (`x[when="__linux"]`) are solved: on
// Linux the record installs with its Linux dependency only, never with
// every platform's. A condition on a constraint is not solved yet: cutting
// it back to the plain constraint would apply it whatever the condition
// says, so such a record is not installed, and asking for it says why.
TEST(ConditionalDependency, OnlyTheDependenciesWhoseConditionHoldsAreInstalled) {
  SolveCliMachine machine;
  ChannelBuilder channel(machine / "channel", file_url(machine / "channel"));
  channel.add(PackageBuilder("app", "1.0", "1")
                  .depends({"linux-dependency[when=\"__linux\"]", "osx-dependency[when=\"__osx\"]"})
                  .index_field("build_number", 1));
  channel.add(PackageBuilder("app", "1.0", "0").file("share/app", "plain\n"));
  channel.add(PackageBuilder("tool", "1.0", "0")
                  .index_field("constrains", nlohmann::json::array({"osx-dependency<0[when=\"__osx\"]"})));
  channel.add(PackageBuilder("linux-dependency", "1.0", "0"));
  channel.add(PackageBuilder("osx-dependency", "1.0", "0"));
  write_text_file(machine / "channel/noarch/repodata.json", R"({"info": {"subdir": "noarch"}, "packages": {}})");

  const auto plain = create(machine, file_url(machine / "channel"), "app");
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_EQ(installed_dists(machine / "env"), (std::vector<std::string>{"app-1.0-1", "linux-dependency-1.0-0"}));

  const auto prefix = machine / "env2";
  const auto conditional = run_gpuenv({"create", "-p", prefix.string(), "-c", file_url(machine / "channel"),
                                       "--override-channels", "-y", "tool"},
                                      machine.env());
  EXPECT_NE(conditional.exit_code, 0);
  EXPECT_TRUE(contains(conditional.err, "cannot be satisfied: tool 1.0 0 cannot be installed")) << conditional.err;
  EXPECT_TRUE(contains(conditional.err, "a condition (CEP 43, when __osx) on a constraint")) << conditional.err;
  EXPECT_FALSE(std::filesystem::exists(prefix / "conda-meta"));
}

}  // namespace
