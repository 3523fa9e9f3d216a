// Loading only the records a request can reach (the subdirs' per-name
// indexes, package_closure.hpp) must solve exactly like loading every
// record: same LINK list, field by field and in order, and the same
// explanation when nothing fits. Checked on the real channels of
// ../shared/testdata and on a generated conda-forge-like channel.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "gpuenv/repodata/shard_writer.hpp"
#include "gpuenv/repodata/zstd_stream.hpp"
#include "gpuenv/solver/channel_loader.hpp"
#include "gpuenv/solver/package_closure.hpp"
#include "gpuenv/solver/solver.hpp"
#include "solver_fixture.hpp"
#include "support/temp_directory.hpp"
#include "support/test_http_server.hpp"

namespace gpuenv::solver {
namespace {

using testing::TempDirectory;

TEST(DependencyPackageName, ReadsTheNameLikeLibsolv) {
  EXPECT_EQ(dependency_package_name("numpy >=1.21,<2"), "numpy");
  EXPECT_EQ(dependency_package_name("python_abi 3.12.* *_cp312"), "python_abi");
  EXPECT_EQ(dependency_package_name("libgcc-ng>=12"), "libgcc-ng");
  EXPECT_EQ(dependency_package_name("pkg!=1.0"), "pkg");
  EXPECT_EQ(dependency_package_name("pkg~=1.0"), "pkg");
  EXPECT_EQ(dependency_package_name("pkg==1.0"), "pkg");
  EXPECT_EQ(dependency_package_name("pkg<2"), "pkg");
  EXPECT_EQ(dependency_package_name("PyQt 5.*"), "pyqt");
  EXPECT_EQ(dependency_package_name("__cuda >=12"), "__cuda");
  EXPECT_EQ(dependency_package_name("conda-forge::numpy >=1"), "numpy");
  EXPECT_EQ(dependency_package_name("numpy[version='>=1.8']"), "numpy");
  EXPECT_EQ(dependency_package_name("conda-forge/linux-64::numpy"), "numpy");
  // Patterns may name any package.
  EXPECT_EQ(dependency_package_name("cuda-*"), std::nullopt);
  EXPECT_EQ(dependency_package_name("*"), std::nullopt);
  EXPECT_EQ(dependency_package_name("^py.*$"), std::nullopt);
  EXPECT_EQ(dependency_package_name(""), "");
}

// A channel directory made of testdata files: <root>/<subdir>/repodata.json.
void add_subdir(const std::filesystem::path& channel, const std::string& subdir, const std::filesystem::path& json) {
  std::filesystem::create_directories(channel / subdir);
  std::filesystem::copy_file(json, channel / subdir / "repodata.json",
                             std::filesystem::copy_options::overwrite_existing);
}

std::string describe(const specs::PackageRecord& record) {
  std::ostringstream out;
  out << record.name << " " << record.version << " " << record.build << " " << record.build_number << " "
      << record.channel << " " << record.subdir << " " << record.fn << " " << record.url << " " << record.md5
      << " " << record.sha256 << " " << (record.size ? std::to_string(*record.size) : "-") << " " << record.timestamp << " [";
  for (const auto& dependency : record.depends) out << dependency << ";";
  out << "] [";
  for (const auto& constraint : record.constrains) out << constraint << ";";
  out << "]";
  return out.str();
}

// What a solve says, in order: the LINK list, or the explanation.
std::vector<std::string> outcome(PackageDatabase& database, const std::vector<std::string>& request,
                                 const std::vector<specs::VirtualPackage>& virtual_packages) {
  database.set_installed({}, virtual_packages);
  MachineFacts machine;
  machine.platform = "linux-64";
  machine.virtual_packages = virtual_packages;
  const auto solution = solve(database, testing::install(request), machine);
  std::vector<std::string> lines;
  if (!solution) {
    lines.push_back("unsolvable");
    for (const auto& line : solution.error().lines()) lines.push_back(line);
    return lines;
  }
  for (const auto& record : solution->link) lines.push_back(describe(record));
  return lines;
}

class ClosureMatchesFullLoad : public ::testing::Test {
 protected:
  ChannelLoadResult load(PackageDatabase& database, const std::vector<std::string>& request, bool reachable) {
    ChannelLoadOptions options;
    options.channels = {served_url.empty() ? channel.string() : served_url};
    options.platform = "linux-64";
    // The full load parses the JSON each time: a .solv cache hands
    // dependencies back in libsolv's order, which can change the order of
    // independent packages in LINK (not the packages). A served channel
    // needs a cache to download into: a new one for each full load.
    if (!reachable && !served_url.empty()) options.cache_dir = dir / ("full-load-" + std::to_string(++full_loads));
    if (reachable) options.cache_dir = dir / "cache";
    if (reachable) options.reachable_from = testing::specs_of(request);
    auto loaded = load_channels(database, options);
    EXPECT_TRUE(loaded) << loaded.error();
    return loaded ? *loaded : ChannelLoadResult{};
  }

  // Cold (index built) and warm (index read) loads of the closure both
  // solve like a full load.
  void expect_same(const std::vector<std::string>& request,
                   const std::vector<specs::VirtualPackage>& virtual_packages = {}) {
    SCOPED_TRACE(::testing::PrintToString(request));
    PackageDatabase full;
    const auto full_load = load(full, request, false);
    std::size_t all_records = 0;
    for (const auto& subdir : full_load.subdirs) all_records += subdir.report.records;
    const auto expected = outcome(full, request, virtual_packages);
    ASSERT_FALSE(expected.empty());
    for (int pass = 0; pass < 2; ++pass) {
      PackageDatabase partial;
      const auto loaded = load(partial, request, true);
      std::size_t loaded_records = 0;
      for (const auto& subdir : loaded.subdirs) {
        EXPECT_TRUE(subdir.report.from_index);
        EXPECT_EQ(subdir.report.index_built, pass == 0 && !index_kept_from_before);
        // A downloaded repodata.json gets its index while it arrives.
        EXPECT_EQ(subdir.report.index_built_while_downloading,
                  pass == 0 && !index_kept_from_before && !served_url.empty());
        loaded_records += subdir.report.records;
      }
      EXPECT_LE(loaded_records, all_records);
      last_loaded_records = loaded_records;
      last_all_records = all_records;
      EXPECT_EQ(outcome(partial, request, virtual_packages), expected) << "pass " << pass;
    }
    index_kept_from_before = true;
  }

  TempDirectory dir;
  std::filesystem::path channel = dir / "channel";
  bool index_kept_from_before = false;
  std::string served_url;  // set: the channel is loaded over HTTP from here
  int full_loads = 0;
  std::size_t last_loaded_records = 0;
  std::size_t last_all_records = 0;
};

TEST_F(ClosureMatchesFullLoad, CondaTestRecipes) {
  add_subdir(channel, "noarch", testing::testdata_dir() / "channels/conda-test-recipes/noarch/repodata.json");
  expect_same({"another_dependent"});
  expect_same({"dependent=1.0"});
  expect_same({"dependent=1.0", "dependency=2.0"});  // unsolvable: the same explanation
  expect_same({"no-such-package"});
}

TEST_F(ClosureMatchesFullLoad, CondaFormatRepo) {
  add_subdir(channel, "linux-64", testing::testdata_dir() / "channels/conda-format-repo/linux-64/repodata.json");
  add_subdir(channel, "noarch", testing::testdata_dir() / "channels/conda-format-repo/noarch/repodata.json");
  expect_same({"zlib"});
  expect_same({"*"});  // a name pattern: every name it matches is a root
}

TEST_F(ClosureMatchesFullLoad, DefaultsRChannel) {
  add_subdir(channel, "linux-64", testing::testdata_dir() / "repodata/conda-tests/r_linux-64.json");
  add_subdir(channel, "noarch", testing::testdata_dir() / "repodata/conda-tests/main_noarch.json");
  const std::vector<specs::VirtualPackage> machine = {{"__glibc", "2.28", "0"}, {"__unix", "0", "0"}};
  expect_same({"_r-mutex"}, machine);
  expect_same({"r-base=3.5.0"}, machine);
  expect_same({"r-essentials"}, machine);
  EXPECT_LT(last_loaded_records, last_all_records);
}

TEST_F(ClosureMatchesFullLoad, CondaFlatIndex) {
  // The streaming parser declines this shape; the index is built from the
  // whole-document parse.
  add_subdir(channel, "linux-64", testing::testdata_dir() / "repodata/conda-tests/legacy-index/index4.json");
  testing::write_text_file(channel / "noarch/repodata.json", "{\"packages\":{}}");
  expect_same({"python 3.6.*"});
  expect_same({"numpy", "scipy"});
  expect_same({"pandas", "python=2.7"});
}

TEST_F(ClosureMatchesFullLoad, GeneratedCondaForgeLikeChannel) {
  // A 20,000-record cut of the benchmark channel (the full one is 620,000):
  // the GPU stack with its CUDA variants, python ABIs and numpy pins.
  const std::string command = "python3 " + std::string(GPUENV_SOURCE_DIR) +
                              "/bench/channel/generate_channel.py --records 20000 --out " + channel.string() +
                              " > " + (dir / "generate.log").string() + " 2>&1";
  ASSERT_EQ(std::system(command.c_str()), 0) << "generate_channel.py failed, see " << (dir / "generate.log");
  std::vector<std::string> request;
  std::ifstream request_file(channel / "request.txt");
  for (std::string line; std::getline(request_file, line);) {
    if (!line.empty()) request.push_back(line);
  }
  ASSERT_FALSE(request.empty());
  const std::vector<specs::VirtualPackage> cuda_12 = {{"__archspec", "1", "x86_64_v3"}, {"__cuda", "12.4", "0"},
                                                       {"__glibc", "2.35", "0"}, {"__linux", "6.1", "0"},
                                                       {"__unix", "0", "0"}};
  expect_same(request, cuda_12);
  EXPECT_LT(last_loaded_records * 2, last_all_records);
  auto cuda_11 = cuda_12;
  cuda_11[1].version = "11.8";
  expect_same(request, cuda_11);
  // No driver: ucx-py cannot be installed, explained the same way.
  expect_same(request, {{"__glibc", "2.35", "0"}, {"__linux", "6.1", "0"}, {"__unix", "0", "0"}});
  expect_same({"numpy", "python=3.11"}, cuda_12);
}

std::string read_whole_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Files of `directory` whose name contains `part`.
std::size_t files_named(const std::filesystem::path& directory, std::string_view part) {
  std::size_t count = 0;
  std::error_code error;
  for (std::filesystem::directory_iterator it(directory, error), end; !error && it != end; ++it) {
    if (it->path().filename().string().find(part) != std::string::npos) ++count;
  }
  return count;
}

// Over HTTP, a whole repodata.json (linux-64 as .zst, noarch plain) gets its
// index built while it downloads (solver/index_alongside.hpp); the loader
// opens that index, and the closure solves like every record.
TEST_F(ClosureMatchesFullLoad, AnIndexBuiltWhileTheRepodataDownloadsSolvesLikeAFullLoad) {
  const std::string command = "python3 " + std::string(GPUENV_SOURCE_DIR) +
                              "/bench/channel/generate_channel.py --records 20000 --out " + channel.string() +
                              " > " + (dir / "generate.log").string() + " 2>&1";
  ASSERT_EQ(std::system(command.c_str()), 0) << "generate_channel.py failed, see " << (dir / "generate.log");
  testing::write_text_file(channel / "linux-64/repodata.json.zst",
                           repodata::zstd_compress(read_whole_file(channel / "linux-64/repodata.json"), 3));
  std::vector<std::string> request;
  std::ifstream request_file(channel / "request.txt");
  for (std::string line; std::getline(request_file, line);) {
    if (!line.empty()) request.push_back(line);
  }
  testing::TestHttpServer server(dir.path());
  served_url = server.url("/channel");
  // The first linux-64 download is cut off halfway: its early build is
  // abandoned and the retry's is the one kept.
  server.fault("/channel/linux-64/repodata.json.zst", {{"kind", "truncate"}, {"times", 1}});
  const std::vector<specs::VirtualPackage> cuda_12 = {{"__archspec", "1", "x86_64_v3"}, {"__cuda", "12.4", "0"},
                                                       {"__glibc", "2.35", "0"}, {"__linux", "6.1", "0"},
                                                       {"__unix", "0", "0"}};
  expect_same(request, cuda_12);
  EXPECT_LT(last_loaded_records * 2, last_all_records);
  EXPECT_EQ(files_named(dir / "cache/solv", ".index"), 2u);
  EXPECT_EQ(files_named(dir / "cache/solv", ".part"), 0u);
  EXPECT_EQ(files_named(dir / "cache/repodata", ".part"), 0u);
}

// A download that turns out bad fails the load as before; the index parsed
// on the way is thrown away with it.
TEST_F(ClosureMatchesFullLoad, ABadDownloadLeavesNoIndexBehind) {
  add_subdir(channel, "noarch", testing::testdata_dir() / "channels/conda-test-recipes/noarch/repodata.json");
  add_subdir(channel, "linux-64", testing::testdata_dir() / "channels/conda-test-recipes/noarch/repodata.json");
  testing::TestHttpServer server(dir.path());
  const std::string text = read_whole_file(channel / "noarch/repodata.json");
  // Complete records, then cut off before the document ends.
  server.fault("/channel/noarch/repodata.json",
               {{"kind", "body"}, {"body", text.substr(0, text.rfind("},") + 2)}, {"times", -1}});
  ChannelLoadOptions options;
  options.channels = {server.url("/channel")};
  options.platform = "linux-64";
  options.cache_dir = dir / "cache";
  options.reachable_from = testing::specs_of({"dependent"});
  PackageDatabase database;
  const auto loaded = load_channels(database, options);
  ASSERT_FALSE(loaded);
  EXPECT_NE(loaded.error().find("cut off"), std::string::npos) << loaded.error();
  EXPECT_EQ(files_named(dir / "cache/solv", ".index"), 0u);
  EXPECT_EQ(files_named(dir / "cache/solv", ".part"), 0u);
  EXPECT_EQ(files_named(dir / "cache/repodata", ".part"), 0u);
}

// Sharded repodata (CEP 16): the closure fetched shard by shard solves like
// every record of repodata.json.
std::size_t sharded_closures(const std::filesystem::path& cache) {
  std::size_t count = 0;
  std::error_code error;
  for (std::filesystem::directory_iterator it(cache / "repodata/shards", error), end; !error && it != end; ++it) {
    if (it->path().string().ends_with(".closure.json")) ++count;
  }
  return count;
}

TEST_F(ClosureMatchesFullLoad, CondasShardedFixture) {
  const auto fixture = testing::testdata_dir() / "channels/conda-format-repo";
  add_subdir(channel, "noarch", fixture / "noarch/repodata.json");
  std::filesystem::create_directories(channel / "linux-64");
  for (const auto& entry : std::filesystem::directory_iterator(fixture / "linux-64")) {
    if (entry.path().string().ends_with(".msgpack.zst") || entry.path().filename() == "repodata.json") {
      std::filesystem::copy_file(entry.path(), channel / "linux-64" / entry.path().filename());
    }
  }
  expect_same({"zlib"});
  EXPECT_EQ(sharded_closures(dir / "cache"), 1u);  // linux-64; conda's noarch has no shards
}

TEST_F(ClosureMatchesFullLoad, ShardsOfAGeneratedCondaForgeLikeChannel) {
  const std::string command = "python3 " + std::string(GPUENV_SOURCE_DIR) +
                              "/bench/channel/generate_channel.py --records 20000 --out " + channel.string() +
                              " > " + (dir / "generate.log").string() + " 2>&1";
  ASSERT_EQ(std::system(command.c_str()), 0) << "generate_channel.py failed, see " << (dir / "generate.log");
  for (const char* subdir : {"linux-64", "noarch"}) {
    const auto written = repodata::write_shards_for_repodata(channel / subdir / "repodata.json", channel / subdir, 3);
    ASSERT_TRUE(written) << written.error();
    EXPECT_GT(written->names, 100u);
  }
  std::vector<std::string> request;
  std::ifstream request_file(channel / "request.txt");
  for (std::string line; std::getline(request_file, line);) {
    if (!line.empty()) request.push_back(line);
  }
  const std::vector<specs::VirtualPackage> cuda_12 = {{"__archspec", "1", "x86_64_v3"}, {"__cuda", "12.4", "0"},
                                                       {"__glibc", "2.35", "0"}, {"__linux", "6.1", "0"},
                                                       {"__unix", "0", "0"}};
  expect_same(request, cuda_12);
  EXPECT_EQ(sharded_closures(dir / "cache"), 2u);
  EXPECT_LT(last_loaded_records * 2, last_all_records);
  expect_same(request, {{"__glibc", "2.35", "0"}, {"__linux", "6.1", "0"}, {"__unix", "0", "0"}});
  index_kept_from_before = false;  // another request: another closure, a new index of it
  expect_same({"numpy", "python=3.11"}, cuda_12);
}

TEST_F(ClosureMatchesFullLoad, AChangedRepodataGetsANewIndex) {
  add_subdir(channel, "noarch", testing::testdata_dir() / "channels/conda-test-recipes/noarch/repodata.json");
  expect_same({"dependent"});
  // Replace the channel's content: the old index no longer applies.
  add_subdir(channel, "noarch", testing::testdata_dir() / "channels/conda-format-repo/noarch/repodata.json");
  std::filesystem::last_write_time(channel / "noarch/repodata.json",
                                   std::filesystem::file_time_type::clock::now() + std::chrono::seconds(5));
  index_kept_from_before = false;
  expect_same({"dependent"});
  std::size_t indexes = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir / "cache/solv")) {
    if (entry.path().extension() == ".index") ++indexes;
  }
  EXPECT_EQ(indexes, 1u);  // the stale one was removed
}

TEST_F(ClosureMatchesFullLoad, InstalledPackagesOutsideTheRequestAreLoadedToo) {
  // An environment with another_dependent 1.0 and dependent 1.0: `update
  // --all` and an install of `dependency` must see their channel records
  // although the request alone does not reach them.
  add_subdir(channel, "noarch", testing::testdata_dir() / "channels/conda-test-recipes/noarch/repodata.json");
  PackageDatabase full;
  load(full, {"dependency"}, false);
  std::vector<specs::PackageRecord> installed;
  for (const char* text : {"another_dependent=1.0", "dependent=1.0", "dependency=1.0"}) {
    const auto found = full.search(specs::MatchSpec::parse(text));
    ASSERT_FALSE(found.empty()) << text;
    installed.push_back(found.front());
  }
  const auto outcome_with = [&](PackageDatabase& database, const SolveRequest& request) {
    database.set_installed(installed, {});
    const auto solution = solve(database, request);
    std::vector<std::string> lines;
    if (!solution) return std::vector<std::string>{"unsolvable", testing::joined_lines(solution.error())};
    for (const auto& record : solution->link) lines.push_back("+" + describe(record));
    for (const auto& record : solution->unlink) lines.push_back("-" + describe(record));
    return lines;
  };
  SolveRequest update_all;
  update_all.update_all = true;
  const auto install_dependency = testing::install({"dependency"});
  for (const SolveRequest* request : std::vector<const SolveRequest*>{&update_all, &install_dependency}) {
    PackageDatabase partial;
    const auto loaded = load(partial, {"dependency"}, true);
    ASSERT_EQ(loaded.subdirs.size(), 1u);
    ASSERT_TRUE(loaded.subdirs[0].report.from_index);
    const auto expected = outcome_with(full, *request);
    EXPECT_EQ(outcome_with(partial, *request), expected);
    // Twice: set_installed may be called again.
    EXPECT_EQ(outcome_with(partial, *request), expected);
  }
  EXPECT_NE(outcome_with(full, update_all), std::vector<std::string>{});  // something to update
}

TEST_F(ClosureMatchesFullLoad, WithoutACacheEverythingIsLoaded) {
  add_subdir(channel, "noarch", testing::testdata_dir() / "channels/conda-test-recipes/noarch/repodata.json");
  PackageDatabase database;
  ChannelLoadOptions options;
  options.channels = {channel.string()};
  options.platform = "linux-64";
  options.reachable_from = testing::specs_of({"dependent"});
  const auto loaded = load_channels(database, options);
  ASSERT_TRUE(loaded) << loaded.error();
  ASSERT_EQ(loaded->subdirs.size(), 1u);
  EXPECT_FALSE(loaded->subdirs[0].report.from_index);
  EXPECT_GT(loaded->subdirs[0].report.records, 3u);
}

}  // namespace
}  // namespace gpuenv::solver
