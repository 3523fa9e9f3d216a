// The solve memo (solve_memo.hpp): a request asked again over the same
// records, installed packages and machine is answered from the memo, and
// every input that can change the answer changes the key.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <set>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "gpuenv/environment/plan.hpp"
#include "gpuenv/environment/settings.hpp"
#include "gpuenv/environment/solve_memo.hpp"
#include "gpuenv/specs/match_spec.hpp"
#include "support/package_builder.hpp"
#include "support/temp_directory.hpp"

namespace gpuenv::testing {
namespace {

namespace fs = std::filesystem;
using environment::SolveMemo;
using environment::SolveMemoInputs;
using environment::solve_memo_key;

class QuietReporter : public environment::Reporter {
 public:
  std::vector<std::string> warnings;
  void warning(std::string_view message) override { warnings.emplace_back(message); }
};

std::string read_all(const fs::path& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), {}};
}

class SolveMemoPlan : public ::testing::Test {
 protected:
  void SetUp() override {
    channel_.add(PackageBuilder("lib", "1.0").file("lib/liblib.so", "lib 1.0\n"));
    channel_.add(PackageBuilder("app", "1.0").depends({"lib >=1.0"}).file("bin/app", "app 1.0\n", 0755));
    channel_.add(PackageBuilder("docs", "1.0").noarch_generic().file("share/docs.txt", "docs\n"));
  }

  environment::Settings settings(bool memo = true) const {
    environment::SettingsOverrides overrides;
    overrides.channels = {"file://" + (scratch_ / "channel").string()};
    overrides.override_channels = true;
    std::map<std::string, std::string, std::less<>> variables = {
        {"HOME", (scratch_ / "home").string()},      {"GPUENV_ROOT_PREFIX", (scratch_ / "root").string()},
        {"GPUENV_CACHE_DIR", cache_dir().string()}, {"CONDA_OVERRIDE_CUDA", ""},
        {"CONDA_OVERRIDE_GLIBC", "2.36"}};
    util::CondaConfig configuration;
    configuration.gpuenv_solve_memo = memo;  // the key's reading: CondaConfigFiles.TheSolveMemoIsOnUnlessTurnedOff
    auto loaded =
        environment::settings_from(std::move(configuration), overrides, util::fixed_environment(std::move(variables)));
    EXPECT_TRUE(loaded) << loaded.error().message;
    return loaded ? std::move(*loaded) : environment::Settings{};
  }

  fs::path cache_dir() const { return scratch_ / "cache"; }
  fs::path memo_dir() const { return cache_dir() / "solves"; }

  std::vector<fs::path> memo_entries() const {
    std::vector<fs::path> entries;
    std::error_code error;
    for (const auto& entry : fs::directory_iterator(memo_dir(), error)) entries.push_back(entry.path());
    return entries;
  }

  // The dists a dry-run create of `specs` would link, sorted.
  std::vector<std::string> dry_create(const environment::Settings& with, std::vector<std::string> specs,
                                      QuietReporter& reporter) const {
    environment::ChangeRequest request;
    request.kind = environment::ChangeKind::create;
    request.prefix = scratch_ / "env";
    request.specs = std::move(specs);
    request.dry_run = true;
    auto plan = environment::plan(with, request, reporter);
    EXPECT_TRUE(plan) << plan.error().message;
    std::vector<std::string> dists;
    if (plan) {
      for (const auto& record : plan->solution.link) dists.push_back(record.dist_str());
    }
    std::sort(dists.begin(), dists.end());
    return dists;
  }

  TempDirectory scratch_;
  ChannelBuilder channel_{scratch_ / "channel", "file://" + (scratch_ / "channel").string()};
};

TEST_F(SolveMemoPlan, TheSameRequestIsAnsweredFromTheMemo) {
  const auto with = settings();
  QuietReporter reporter;
  EXPECT_EQ(dry_create(with, {"app"}, reporter), (std::vector<std::string>{"app-1.0-0", "lib-1.0-0"}));
  const auto entries = memo_entries();
  ASSERT_EQ(entries.size(), 1u);

  // Proof that the second answer is the kept one: change what is kept.
  auto kept = nlohmann::json::parse(read_all(entries.front()));
  for (auto& record : kept["link"]) record["build"] = "kept";
  std::ofstream(entries.front()) << kept.dump();
  EXPECT_EQ(dry_create(with, {"app"}, reporter), (std::vector<std::string>{"app-1.0-kept", "lib-1.0-kept"}));

  // Another request is another key.
  EXPECT_EQ(dry_create(with, {"lib"}, reporter), (std::vector<std::string>{"lib-1.0-0"}));
  EXPECT_EQ(memo_entries().size(), 2u);
  EXPECT_TRUE(reporter.warnings.empty());
}

TEST_F(SolveMemoPlan, AChangedChannelIsSolvedAgain) {
  const auto with = settings();
  QuietReporter reporter;
  EXPECT_EQ(dry_create(with, {"app"}, reporter), (std::vector<std::string>{"app-1.0-0", "lib-1.0-0"}));
  channel_.add(PackageBuilder("app", "2.0").depends({"lib >=1.0"}).file("bin/app", "app 2.0\n", 0755));
  EXPECT_EQ(dry_create(with, {"app"}, reporter), (std::vector<std::string>{"app-2.0-0", "lib-1.0-0"}));
  EXPECT_EQ(memo_entries().size(), 2u);
}

TEST_F(SolveMemoPlan, ADamagedEntryIsSolvedAgainAndWrittenAnew) {
  const auto with = settings();
  QuietReporter reporter;
  dry_create(with, {"app"}, reporter);
  const auto entries = memo_entries();
  ASSERT_EQ(entries.size(), 1u);
  std::ofstream(entries.front()) << "{\"format\": \"gpuenv-solve-memo-1\", \"link\": [";
  EXPECT_EQ(dry_create(with, {"app"}, reporter), (std::vector<std::string>{"app-1.0-0", "lib-1.0-0"}));
  EXPECT_TRUE(nlohmann::json::accept(read_all(entries.front())));
}

TEST_F(SolveMemoPlan, TurnedOffNothingIsKept) {
  QuietReporter reporter;
  EXPECT_EQ(dry_create(settings(false), {"app"}, reporter), (std::vector<std::string>{"app-1.0-0", "lib-1.0-0"}));
  EXPECT_TRUE(memo_entries().empty());
}

TEST_F(SolveMemoPlan, ALoadThatWarnedIsNotKeptSoTheWarningComesEveryTime) {
  // A record under a file name that is not its own is skipped, with a warning.
  const auto repodata = scratch_ / "channel" / "linux-64" / "repodata.json";
  auto document = nlohmann::json::parse(read_all(repodata));
  document["packages"]["odd-name.tar.bz2"] = {
      {"name", "lib"}, {"version", "0.5"}, {"build", "0"}, {"build_number", 0}, {"depends", nlohmann::json::array()}};
  std::ofstream(repodata) << document.dump();
  const auto with = settings();
  for (int run = 0; run < 2; ++run) {
    QuietReporter reporter;
    EXPECT_EQ(dry_create(with, {"app"}, reporter), (std::vector<std::string>{"app-1.0-0", "lib-1.0-0"}));
    ASSERT_EQ(reporter.warnings.size(), 1u) << run;
    EXPECT_NE(reporter.warnings.front().find("odd-name.tar.bz2"), std::string::npos) << reporter.warnings.front();
  }
  EXPECT_TRUE(memo_entries().empty());
}

// --- the key ----------------------------------------------------------------

specs::PackageRecord full_record(std::string name) {
  specs::PackageRecord record;
  record.name = std::move(name);
  record.set_version("1.2.3");
  record.build = "py312h1234567_4";
  record.build_number = 4;
  record.subdir = "linux-64";
  record.fn = record.name + "-1.2.3-py312h1234567_4.conda";
  record.url = "https://conda.anaconda.org/conda-forge/linux-64/" + record.fn;
  record.channel = "https://conda.anaconda.org/conda-forge";
  record.md5 = std::string(32, 'a');
  record.sha256 = std::string(64, 'b');
  record.size = 12345;
  record.legacy_bz2_md5 = std::string(32, 'c');
  record.legacy_bz2_size = 23456;
  record.depends = {"python >=3.12,<3.13.0a0", "libzlib >=1.3"};
  record.constrains = {"cuda-version >=12"};
  record.extra_depends = {{"test", {"pytest"}}};
  record.set_track_features("mkl");
  record.set_features("avx");
  record.flags = {"gpu"};
  record.license = "BSD-3-Clause";
  record.license_family = "BSD";
  record.noarch = specs::NoarchType::none;
  record.timestamp = 1700000000000;
  record.arch = "x86_64";
  record.platform = "linux";
  record.python_site_packages_path = "lib/python3.12/site-packages";
  record.purls = {"pkg:pypi/" + record.name};
  return record;
}

struct KeyParts {
  std::string loaded_records = "records-1 linux-64 /cache/closure.json 123";
  solver::SolveRequest request;
  std::vector<specs::PackageRecord> installed = {full_record("numpy")};
  solver::MachineFacts machine;
  specs::ChannelContext context;

  KeyParts() {
    request.install = {specs::MatchSpec::parse("cupy >=13")};
    machine.platform = "linux-64";
    machine.virtual_packages = {{"__cuda", "12.4", "0"}, {"__glibc", "2.36", "0"}};
  }
  std::string key() const {
    const auto made = solve_memo_key(SolveMemoInputs{loaded_records, request, installed, machine, context});
    EXPECT_TRUE(made);
    return made.value_or("");
  }
};

TEST(SolveMemoKey, EveryInputThatCanChangeTheAnswerChangesTheKey) {
  const KeyParts base;
  EXPECT_EQ(base.key(), KeyParts().key());
  EXPECT_EQ(base.key().size(), 64u);

  std::vector<std::pair<std::string, KeyParts>> variants;
  const auto variant = [&](std::string what, auto change) {
    KeyParts parts;
    change(parts);
    variants.emplace_back(std::move(what), std::move(parts));
  };
  variant("records", [](KeyParts& p) { p.loaded_records += "4"; });
  variant("install spec", [](KeyParts& p) { p.request.install = {specs::MatchSpec::parse("cupy >=13.1")}; });
  variant("spec moved to update",
          [](KeyParts& p) { std::swap(p.request.install, p.request.update); });
  variant("remove", [](KeyParts& p) { p.request.remove = {specs::MatchSpec::parse("numpy")}; });
  variant("pin", [](KeyParts& p) { p.request.pins = {specs::MatchSpec::parse("python 3.12.*")}; });
  variant("update all", [](KeyParts& p) { p.request.update_all = true; });
  variant("strict priority", [](KeyParts& p) { p.request.channel_priority = solver::ChannelPriority::strict; });
  variant("whole pool", [](KeyParts& p) { p.request.narrow_pool = false; });
  variant("installed depends", [](KeyParts& p) { p.installed[0].depends.push_back("libblas"); });
  variant("installed sha256", [](KeyParts& p) { p.installed[0].sha256 = std::string(64, 'c'); });
  variant("installed extra", [](KeyParts& p) { p.installed[0].extra_depends["docs"] = {"sphinx"}; });
  variant("another installed", [](KeyParts& p) { p.installed.push_back(full_record("scipy")); });
  variant("nothing installed", [](KeyParts& p) { p.installed.clear(); });
  variant("cuda version", [](KeyParts& p) { p.machine.virtual_packages[0].version = "12.8"; });
  variant("no driver", [](KeyParts& p) { p.machine.virtual_packages.erase(p.machine.virtual_packages.begin()); });
  variant("platform", [](KeyParts& p) { p.machine.platform = "linux-aarch64"; });
  variant("channel alias", [](KeyParts& p) { p.context.channel_alias = "https://mirror.example"; });
  variant("custom channel", [](KeyParts& p) { p.context.custom_channels["internal"] = "https://repo.corp"; });
  variant("multichannel", [](KeyParts& p) { p.context.custom_multichannels["ours"] = {"a", "b"}; });
  variant("home", [](KeyParts& p) { p.context.home_directory = "/home/other"; });

  std::set<std::string> keys = {base.key()};
  for (const auto& [what, parts] : variants) {
    EXPECT_TRUE(keys.insert(parts.key()).second) << what << " left the key as it was";
  }
}

TEST(SolveMemoKey, SpecsAreKeyedAsWrittenSoSeparatorsCannotJoinTwoIntoOne) {
  KeyParts one;
  one.request.install = {specs::MatchSpec::parse("a"), specs::MatchSpec::parse("b")};
  KeyParts joined;
  joined.request.install = {specs::MatchSpec::parse("a"), specs::MatchSpec::parse("b")};
  joined.request.update = {};
  KeyParts split;
  split.request.install = {specs::MatchSpec::parse("a")};
  split.request.update = {specs::MatchSpec::parse("b")};
  EXPECT_EQ(one.key(), joined.key());
  EXPECT_NE(one.key(), split.key());
}

TEST(SolveMemoKey, NoTwoDifferentInputsJoinIntoOneText) {
  // Joined as plain text, both would read "x1:y".
  KeyParts split;
  split.context.home_directory = "x";
  split.context.current_directory = "1:y";
  KeyParts whole;
  whole.context.home_directory = "x1:y";
  EXPECT_NE(split.key(), whole.key());
  KeyParts listed;
  listed.context.default_channels = {"a|", "b"};
  KeyParts other;
  other.context.default_channels = {"a", "|b"};
  EXPECT_NE(listed.key(), other.key());
}

TEST(SolveMemoKey, AnInstalledRecordItsJsonCannotHoldWholeGivesNoKey) {
  KeyParts parts;
  // record_to_json writes URLs without their secrets: the record would not read back equal.
  parts.installed[0].url = "https://user:secret@repo.corp/linux-64/" + parts.installed[0].fn;
  EXPECT_FALSE(
      solve_memo_key(SolveMemoInputs{parts.loaded_records, parts.request, parts.installed, parts.machine, parts.context}));
}

// --- the store ----------------------------------------------------------------

TEST(SolveMemoStore, KeepsAndReadsBackEveryField) {
  TempDirectory scratch;
  const SolveMemo memo(scratch.path() / "solves");
  solver::Solution solution;
  solution.link = {full_record("python"), full_record("numpy")};
  solution.unlink = {full_record("scipy")};
  solution.unlink[0].noarch = specs::NoarchType::python;
  const std::string key = KeyParts().key();
  EXPECT_FALSE(memo.find(key));
  memo.store(key, solution);
  const auto found = memo.find(key);
  ASSERT_TRUE(found);
  EXPECT_EQ(found->link, solution.link);
  EXPECT_EQ(found->unlink, solution.unlink);
}

TEST(SolveMemoStore, ASolutionWithARecordItsJsonCannotHoldIsNotKept) {
  TempDirectory scratch;
  const SolveMemo memo(scratch.path() / "solves");
  solver::Solution solution;
  solution.link = {full_record("python")};
  solution.link[0].url = "https://user:secret@repo.corp/linux-64/" + solution.link[0].fn;
  memo.store(KeyParts().key(), solution);
  EXPECT_FALSE(memo.find(KeyParts().key()));
  EXPECT_FALSE(fs::exists(scratch.path() / "solves" / (KeyParts().key() + ".json")));
}

TEST(SolveMemoStore, DamagedForeignOrHugeEntriesAreMisses) {
  TempDirectory scratch;
  const auto dir = scratch.path() / "solves";
  const SolveMemo memo(dir);
  solver::Solution solution;
  solution.link = {full_record("python")};
  const std::string key = KeyParts().key();
  memo.store(key, solution);
  ASSERT_TRUE(memo.find(key));
  const auto file = dir / (key + ".json");
  const std::string good = read_all(file);

  std::ofstream(file) << good.substr(0, good.size() / 2);
  EXPECT_FALSE(memo.find(key)) << "truncated";

  auto other = nlohmann::json::parse(good);
  other["key"] = std::string(64, '0');
  std::ofstream(file) << other.dump();
  EXPECT_FALSE(memo.find(key)) << "an entry for another key";

  other = nlohmann::json::parse(good);
  other["format"] = "gpuenv-solve-memo-0";
  std::ofstream(file) << other.dump();
  EXPECT_FALSE(memo.find(key)) << "another format";

  std::ofstream(file) << good;
  fs::resize_file(file, SolveMemo::max_entry_bytes + 1);
  EXPECT_FALSE(memo.find(key)) << "over the size bound";

  fs::remove(file);
  ASSERT_EQ(::mkfifo(file.c_str(), 0600), 0);
  EXPECT_FALSE(memo.find(key)) << "not a regular file (must not block)";

  // Keys name files: only 64 hex digits do.
  EXPECT_FALSE(memo.find("../" + key.substr(3)));
  memo.store("../escape", solution);
  EXPECT_FALSE(fs::exists(scratch.path() / "escape.json"));
}

TEST(SolveMemoStore, KeepsTheNewestEntriesOnly) {
  TempDirectory scratch;
  const auto dir = scratch.path() / "solves";
  const SolveMemo memo(dir);
  solver::Solution solution;
  solution.link = {full_record("python")};
  std::vector<std::string> keys;
  for (std::size_t i = 0; i < SolveMemo::max_entries + 6; ++i) {
    KeyParts parts;
    parts.loaded_records += std::to_string(i);
    keys.push_back(parts.key());
    memo.store(keys.back(), solution);
    // Distinct write times, oldest first.
    fs::last_write_time(dir / (keys.back() + ".json"),
                        fs::file_time_type::clock::now() - std::chrono::hours(100) + std::chrono::minutes(i));
  }
  memo.store(keys.back(), solution);  // pruning happens on a store
  std::size_t kept = 0;
  for (const auto& entry : fs::directory_iterator(dir)) kept += entry.path().extension() == ".json";
  EXPECT_EQ(kept, SolveMemo::max_entries);
  EXPECT_FALSE(memo.find(keys.front()));
  EXPECT_TRUE(memo.find(keys.back()));
}

}  // namespace
}  // namespace gpuenv::testing
