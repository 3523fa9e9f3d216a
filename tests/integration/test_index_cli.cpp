// `gpuenv index DIR` end to end: a directory of package files becomes a
// channel that `gpuenv create` installs from; re-indexing picks up new and
// removed packages; damaged packages are reported, left out, and make the
// exit status 1; --json output (docs/json-output.md); usage errors exit 2.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "support/test_http_server.hpp"
#include "test_install_support.hpp"

namespace {

namespace fs = std::filesystem;
using gpuenv::testing::CommandOutput;
using gpuenv::testing::contains;
using gpuenv::testing::installed_dists;
using gpuenv::testing::InstallCliMachine;
using gpuenv::testing::linked;
using gpuenv::testing::PackageBuilder;
using gpuenv::testing::parse_json;
using gpuenv::testing::read_json_file;
using gpuenv::testing::run_gpuenv;
using Dists = std::vector<std::string>;
using nlohmann::json;

// The test channel's packages, with the repodata the test wrote removed:
// only `gpuenv index` can make it a channel again.
class IndexedChannelMachine : public InstallCliMachine {
 public:
  IndexedChannelMachine() {
    expected_linux_ = read_json_file(channel_dir() / "linux-64/repodata.json");
    for (const char* subdir : {"linux-64", "noarch"}) fs::remove(channel_dir() / subdir / "repodata.json");
  }
  CommandOutput index(std::vector<std::string> extra = {}) const {
    std::vector<std::string> args = {"index", channel_dir().string()};
    args.insert(args.end(), extra.begin(), extra.end());
    return run_gpuenv(args, env());
  }
  const json& expected_linux() const { return expected_linux_; }

 private:
  json expected_linux_;
};

TEST(IndexCli, CreateInstallsFromTheFreshlyIndexedChannel) {
  IndexedChannelMachine machine;
  const auto prefix = machine / "env";
  ASSERT_NE(machine.gpuenv("create", prefix, {"--dry-run", "app"}).exit_code, 0) << "no repodata: no channel yet";

  const auto indexed = machine.index();
  ASSERT_EQ(indexed.exit_code, 0) << indexed.err << indexed.out;
  EXPECT_TRUE(contains(indexed.out, "linux-64: 9 packages (9 read, 0 unchanged, 0 removed)")) << indexed.out;
  EXPECT_TRUE(contains(indexed.out, "noarch: 0 packages")) << indexed.out;

  // The records hold what the test channel's own repodata said about each file.
  const auto written = read_json_file(machine.channel_dir() / "linux-64/repodata.json");
  ASSERT_EQ(written["packages.conda"].size(), machine.expected_linux()["packages.conda"].size());
  for (const auto& [filename, expected] : machine.expected_linux()["packages.conda"].items()) {
    const auto& record = written["packages.conda"][filename];
    for (const char* key : {"name", "version", "build", "build_number", "depends", "subdir", "md5", "sha256", "size"}) {
      EXPECT_EQ(record[key], expected[key]) << filename << ": " << key;
    }
  }

  const auto dry_run = machine.gpuenv("create", prefix, {"--dry-run", "--json", "app"});
  ASSERT_EQ(dry_run.exit_code, 0) << dry_run.err << dry_run.out;
  EXPECT_EQ(linked(parse_json(dry_run)), (std::vector<std::string>{"libdep 2.0 h0_0", "app 1.0 h1_0"}));

  const auto created = machine.gpuenv("create", prefix, {"app"});
  ASSERT_EQ(created.exit_code, 0) << created.err << created.out;
  EXPECT_EQ(installed_dists(prefix), (Dists{"app-1.0-h1_0", "libdep-2.0-h0_0"}));
}

// Sharded repodata (CEP 16) beside repodata.json: with repodata.json gone,
// gpuenv still solves from the shards it wrote, fetching only the closure.
TEST(IndexCli, CreateReadsTheShardsItWrote) {
  IndexedChannelMachine machine;
  ASSERT_EQ(machine.index().exit_code, 0);
  const auto linux64 = machine.channel_dir() / "linux-64";
  ASSERT_TRUE(fs::exists(linux64 / "repodata_shards.msgpack.zst"));
  std::size_t shards = 0;
  for (const auto& entry : fs::directory_iterator(linux64 / "shards")) shards += entry.path().string().ends_with(".msgpack.zst");
  EXPECT_GT(shards, 2u);
  for (const char* subdir : {"linux-64", "noarch"}) {
    for (const char* file : {"repodata.json", "repodata.json.zst"}) fs::remove(machine.channel_dir() / subdir / file);
  }
  const auto prefix = machine / "env";
  const auto dry_run = machine.gpuenv("create", prefix, {"--dry-run", "--json", "app"});
  ASSERT_EQ(dry_run.exit_code, 0) << dry_run.err << dry_run.out;
  EXPECT_EQ(linked(parse_json(dry_run)), (std::vector<std::string>{"libdep 2.0 h0_0", "app 1.0 h1_0"}));
  const auto created = machine.gpuenv("create", prefix, {"app"});
  ASSERT_EQ(created.exit_code, 0) << created.err << created.out;
  EXPECT_EQ(installed_dists(prefix), (Dists{"app-1.0-h1_0", "libdep-2.0-h0_0"}));
}

// The indexed channel served over HTTP, every index revalidated on every
// run (max-age=0), and a dry-run create of libdep against it.
struct ServedIndexedChannel {
  IndexedChannelMachine machine;
  gpuenv::testing::TestHttpServer server{machine.channel_dir().parent_path()};
  std::string url;

  ServedIndexedChannel() {
    server.set_cache_control("public, max-age=0");
    url = server.url("/" + machine.channel_dir().filename().string());
  }
  CommandOutput dry_run() const {
    return run_gpuenv({"create", "-p", (machine / "env").string(), "-c", url, "--override-channels", "--dry-run",
                       "--json", "libdep"},
                      machine.env());
  }
};

// Over HTTP a warm create answers from the cached shards while their
// indexes are revalidated alongside the solve; when the channel changed
// meanwhile, the answer comes from the new repodata.
TEST(IndexCli, AWarmCreateOverHttpSeesTheReindexedChannel) {
  ServedIndexedChannel served;
  auto& machine = served.machine;
  ASSERT_EQ(machine.index().exit_code, 0);
  const auto dry_run = [&] { return served.dry_run(); };
  const auto cold = dry_run();
  ASSERT_EQ(cold.exit_code, 0) << cold.err << cold.out;
  EXPECT_EQ(linked(parse_json(cold)), (std::vector<std::string>{"libdep 2.0 h0_0"}));
  const auto warm = dry_run();
  ASSERT_EQ(warm.exit_code, 0) << warm.err << warm.out;
  EXPECT_EQ(warm.out, cold.out);

  PackageBuilder("libdep", "3.0", "h0_0").file("share/libdep/VERSION", "3.0\n").write(machine.channel_dir() / "linux-64");
  ASSERT_EQ(machine.index().exit_code, 0);
  const auto changed = dry_run();
  ASSERT_EQ(changed.exit_code, 0) << changed.err << changed.out;
  EXPECT_EQ(linked(parse_json(changed)), (std::vector<std::string>{"libdep 3.0 h0_0"}));
}

// A request's shard closure is gpuenv's own file, made from shards that are
// checked against their hashes: a damaged or missing one is made again from
// the shards, not reported as the channel's fault.
TEST(IndexCli, ADamagedCachedClosureIsMadeAgainFromTheShards) {
  ServedIndexedChannel served;
  auto& machine = served.machine;
  ASSERT_EQ(machine.index().exit_code, 0);
  const auto dry_run = [&] { return served.dry_run(); };
  const auto cold = dry_run();
  ASSERT_EQ(cold.exit_code, 0) << cold.err << cold.out;
  const auto closures = [&] {
    std::vector<fs::path> found;
    for (const auto& entry : fs::recursive_directory_iterator(machine / "cache")) {
      if (entry.path().string().ends_with(".closure.json")) found.push_back(entry.path());
    }
    return found;
  };
  ASSERT_EQ(closures().size(), 2u);  // linux-64 and noarch

  for (const auto& closure : closures()) fs::resize_file(closure, fs::file_size(closure) / 2);
  const auto damaged = dry_run();
  ASSERT_EQ(damaged.exit_code, 0) << damaged.err << damaged.out;
  EXPECT_EQ(damaged.out, cold.out);
  for (const auto& closure : closures()) EXPECT_TRUE(json::accept(gpuenv::testing::read_file(closure))) << closure;

  for (const auto& closure : closures()) fs::remove(closure);
  const auto missing = dry_run();
  ASSERT_EQ(missing.exit_code, 0) << missing.err << missing.out;
  EXPECT_EQ(missing.out, cold.out);
}

TEST(IndexCli, ReindexingAddsNewAndDropsRemovedPackages) {
  IndexedChannelMachine machine;
  ASSERT_EQ(machine.index().exit_code, 0);
  PackageBuilder("libdep", "3.0", "h0_0").file("share/libdep/VERSION", "3.0\n").write(machine.channel_dir() / "linux-64");
  fs::remove(machine.channel_dir() / "linux-64/tool-1.0-0.conda");

  const auto again = machine.index({"--json"});
  ASSERT_EQ(again.exit_code, 0) << again.err << again.out;
  const auto document = parse_json(again);
  EXPECT_EQ(document["schema_version"], 1);
  EXPECT_EQ(document["success"], true);
  EXPECT_EQ(document["channel"], fs::canonical(machine.channel_dir()).string());
  EXPECT_EQ(document["packages"], 9);
  EXPECT_EQ(document["read"], 1);
  EXPECT_EQ(document["reused"], 8);
  EXPECT_EQ(document["removed"], 1);
  EXPECT_EQ(document["problems"], json::array());
  ASSERT_EQ(document["subdirs"].size(), 2u);
  EXPECT_EQ(document["subdirs"][0],
            json({{"subdir", "linux-64"}, {"packages", 9}, {"read", 1}, {"reused", 8}, {"removed", 1},
                  {"repodata_changed", true}}));

  const auto prefix = machine / "env";
  const auto dry_run = machine.gpuenv("create", prefix, {"--dry-run", "--json", "libdep"});
  ASSERT_EQ(dry_run.exit_code, 0) << dry_run.err << dry_run.out;
  EXPECT_EQ(linked(parse_json(dry_run)), (std::vector<std::string>{"libdep 3.0 h0_0"}));
  EXPECT_NE(machine.gpuenv("create", prefix, {"--dry-run", "tool"}).exit_code, 0) << "tool was removed";

  // Nothing changed: nothing is read and repodata.json keeps its bytes.
  const auto unchanged = machine.index();
  EXPECT_EQ(unchanged.exit_code, 0);
  EXPECT_TRUE(contains(unchanged.out, "linux-64: 9 packages (0 read, 9 unchanged, 0 removed); repodata.json unchanged"))
      << unchanged.out;
}

TEST(IndexCli, DamagedPackagesAreReportedAndTheRestIsIndexed) {
  IndexedChannelMachine machine;
  gpuenv::testing::write_text_file(machine.channel_dir() / "linux-64/broken-1.0-0.conda", "not a package");
  PackageBuilder("moved", "1.0", "0").subdir("osx-64").write(machine.channel_dir() / "linux-64");
  // A name that is not UTF-8 must not break the --json document.
  gpuenv::testing::write_text_file(machine.channel_dir() / "linux-64/\xff\xfe-1.0-0.conda", "x");

  const auto result = machine.index();
  EXPECT_EQ(result.exit_code, 1) << result.err;
  EXPECT_TRUE(contains(result.out, "linux-64: 9 packages")) << result.out;
  EXPECT_TRUE(contains(result.err, "warning: ")) << result.err;
  EXPECT_TRUE(contains(result.err, "broken-1.0-0.conda")) << result.err;
  EXPECT_TRUE(contains(result.err, "moved-1.0-0.conda")) << result.err;
  EXPECT_TRUE(contains(result.err, "osx-64")) << result.err;

  const auto as_json = machine.index({"--json"});
  EXPECT_EQ(as_json.exit_code, 1);
  const auto document = parse_json(as_json);
  EXPECT_EQ(document["success"], false);
  ASSERT_EQ(document["problems"].size(), 3u) << as_json.out;
  EXPECT_EQ(document["problems"][0]["subdir"], "linux-64");
  EXPECT_EQ(document["problems"][0]["file"], "broken-1.0-0.conda");

  // The channel still serves the good packages.
  const auto prefix = machine / "env";
  EXPECT_EQ(machine.gpuenv("create", prefix, {"--dry-run", "app"}).exit_code, 0);
}

TEST(IndexCli, UsageErrorsExitTwo) {
  IndexedChannelMachine machine;
  const auto missing_argument = run_gpuenv({"index"}, machine.env());
  EXPECT_EQ(missing_argument.exit_code, 2) << missing_argument.err;
  EXPECT_TRUE(contains(missing_argument.err, "gpuenv index DIR")) << missing_argument.err;

  const auto nowhere = run_gpuenv({"index", (machine / "nowhere").string()}, machine.env());
  EXPECT_EQ(nowhere.exit_code, 2) << nowhere.err;
  EXPECT_TRUE(contains(nowhere.err, "nowhere")) << nowhere.err;

  const auto as_json = run_gpuenv({"index", (machine / "nowhere").string(), "--json"}, machine.env());
  EXPECT_EQ(as_json.exit_code, 2);
  EXPECT_EQ(parse_json(as_json)["exception_name"], "CondaValueError") << as_json.out;
}

}  // namespace
