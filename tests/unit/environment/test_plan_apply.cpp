// The environment layer on its own, as the builder will use it: settings,
// plan and apply create, update and remove an environment from a local
// channel, report through a Reporter, and print nothing themselves.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <algorithm>
#include <string>
#include <vector>

#include "gpuenv/environment/apply.hpp"
#include "gpuenv/environment/plan.hpp"
#include "gpuenv/environment/search.hpp"
#include "gpuenv/environment/settings.hpp"
#include "gpuenv/prefix/prefix_record.hpp"
#include "support/package_builder.hpp"
#include "support/temp_directory.hpp"

namespace gpuenv::testing {
namespace {

using environment::ChangeKind;
using environment::PackageStep;

// Every event, in order, as text.
class RecordingReporter : public environment::Reporter {
 public:
  std::vector<std::string> events;
  std::vector<std::string> warnings;
  std::optional<environment::TransactionProgress> last_progress;
  bool finished = false;

  void warning(std::string_view message) override { warnings.emplace_back(message); }
  void notice(std::string_view message) override { events.push_back("notice " + std::string(message)); }
  std::size_t subdir_started(std::string label) override {
    events.push_back("fetch " + label);
    return 0;
  }
  void package_step(PackageStep step, const specs::PackageRecord& package) override {
    static const char* names[] = {"downloaded", "extracted", "linked", "unlinked"};
    events.push_back(std::string(names[static_cast<int>(step)]) + " " + package.dist_str());
  }
  void transaction_progress(const environment::TransactionProgress& progress) override { last_progress = progress; }
  void transaction_finished() override { finished = true; }

  bool saw(const std::string& event) const {
    return std::find(events.begin(), events.end(), event) != events.end();
  }
};

class PlanApply : public ::testing::Test {
 protected:
  void SetUp() override {
    channel_.add(PackageBuilder("lib", "1.0").file("lib/liblib.so", "lib 1.0\n"));
    channel_.add(PackageBuilder("app", "1.0").depends({"lib >=1.0"}).file("bin/app", "app 1.0\n", 0755));
    channel_.add(PackageBuilder("docs", "1.0").noarch_generic().file("share/docs.txt", "docs\n"));
    environment::SettingsOverrides overrides;
    overrides.channels = {channel_url()};
    overrides.override_channels = true;
    auto settings = environment::settings_from(
        {}, overrides,
        util::fixed_environment({{"HOME", (scratch_ / "home").string()},
                                 {"GPUENV_ROOT_PREFIX", (scratch_ / "root").string()},
                                 {"GPUENV_CACHE_DIR", (scratch_ / "cache").string()},
                                 {"CONDA_OVERRIDE_CUDA", ""},
                                 {"CONDA_OVERRIDE_GLIBC", "2.36"}}));
    ASSERT_TRUE(settings) << settings.error().message;
    settings_ = std::move(*settings);
  }

  std::string channel_url() const { return "file://" + (scratch_ / "channel").string(); }
  std::filesystem::path prefix() const { return scratch_ / "env"; }

  environment::Plan planned(ChangeKind kind, std::vector<std::string> specs, RecordingReporter& reporter,
                            bool update_all = false) {
    environment::ChangeRequest request;
    request.kind = kind;
    request.prefix = prefix();
    request.specs = std::move(specs);
    request.update_all = update_all;
    auto plan = environment::plan(settings_, request, reporter);
    EXPECT_TRUE(plan) << plan.error().message;
    return plan ? std::move(*plan) : environment::Plan{};
  }

  void apply(environment::Plan plan, RecordingReporter& reporter) {
    const auto applied = environment::apply(plan, settings_, {}, reporter);
    ASSERT_TRUE(applied) << applied.error().message;
  }

  std::vector<std::string> installed() const {
    std::vector<std::string> names;
    for (const auto& record : prefix::read_prefix_records(prefix()).records) names.push_back(record.package.dist_str());
    std::sort(names.begin(), names.end());
    return names;
  }

  TempDirectory scratch_;
  ChannelBuilder channel_{scratch_ / "channel", "file://" + (scratch_ / "channel").string()};
  environment::Settings settings_;
};

TEST_F(PlanApply, CreatesUpdatesAndRemovesThroughTheReporterAlone) {
  ::testing::internal::CaptureStdout();
  ::testing::internal::CaptureStderr();

  RecordingReporter creating;
  auto create = planned(ChangeKind::create, {"app", "docs"}, creating);
  ASSERT_EQ(create.solution.link.size(), 3u);
  EXPECT_EQ(create.machine.platform, "linux-64");
  apply(std::move(create), creating);
  EXPECT_EQ(installed(), (std::vector<std::string>{"app-1.0-0", "docs-1.0-0", "lib-1.0-0"}));
  for (const auto* dist : {"lib-1.0-0", "app-1.0-0", "docs-1.0-0"}) {
    EXPECT_TRUE(creating.saw(std::string("downloaded ") + dist) || creating.saw(std::string("extracted ") + dist))
        << dist;
    EXPECT_TRUE(creating.saw(std::string("linked ") + dist)) << dist;
  }
  ASSERT_TRUE(creating.last_progress);
  EXPECT_EQ(creating.last_progress->linked, 3u);
  EXPECT_EQ(creating.last_progress->to_link, 3u);
  EXPECT_EQ(creating.last_progress->downloads, 3u);  // a new cache: every package was fetched
  EXPECT_EQ(creating.last_progress->downloads_done, 3u);
  EXPECT_TRUE(creating.finished);
  EXPECT_TRUE(creating.warnings.empty());

  // A newer app appears; update takes it and keeps lib and docs.
  channel_.add(PackageBuilder("app", "2.0").depends({"lib >=1.0"}).file("bin/app", "app 2.0\n", 0755));
  RecordingReporter updating;
  auto update = planned(ChangeKind::update, {"app"}, updating);
  ASSERT_EQ(update.solution.link.size(), 1u);
  EXPECT_EQ(update.solution.link.front().dist_str(), "app-2.0-0");
  apply(std::move(update), updating);
  EXPECT_TRUE(updating.saw("unlinked app-1.0-0"));
  EXPECT_TRUE(updating.saw("linked app-2.0-0"));
  EXPECT_EQ(installed(), (std::vector<std::string>{"app-2.0-0", "docs-1.0-0", "lib-1.0-0"}));

  // Removing app leaves lib (conda keeps dependencies nothing needs).
  RecordingReporter removing;
  auto remove = planned(ChangeKind::remove, {"app"}, removing);
  EXPECT_TRUE(remove.solution.link.empty());
  ASSERT_EQ(remove.solution.unlink.size(), 1u);
  apply(std::move(remove), removing);
  EXPECT_TRUE(removing.saw("unlinked app-2.0-0"));
  EXPECT_EQ(installed(), (std::vector<std::string>{"docs-1.0-0", "lib-1.0-0"}));

  // The library printed nothing: the reporter got everything.
  EXPECT_EQ(::testing::internal::GetCapturedStdout(), "");
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
}

// A reporter that draws no download progress (stderr not a terminal) gets
// none: the downloads' files are not sampled, and the install is the same.
class NoDownloadProgressReporter final : public RecordingReporter {
 public:
  bool follows_downloads() const override { return false; }
};

TEST_F(PlanApply, NobodyFollowingDownloadsMeansNoSampling) {
  NoDownloadProgressReporter reporter;
  auto create = planned(ChangeKind::create, {"app", "docs"}, reporter);
  ASSERT_EQ(create.solution.link.size(), 3u);
  apply(std::move(create), reporter);
  EXPECT_EQ(installed(), (std::vector<std::string>{"app-1.0-0", "docs-1.0-0", "lib-1.0-0"}));
  for (const auto* dist : {"lib-1.0-0", "app-1.0-0", "docs-1.0-0"}) {
    EXPECT_FALSE(reporter.saw(std::string("downloaded ") + dist)) << dist;  // only the sampler says so
    EXPECT_TRUE(reporter.saw(std::string("extracted ") + dist)) << dist;
    EXPECT_TRUE(reporter.saw(std::string("linked ") + dist)) << dist;
  }
  ASSERT_TRUE(reporter.last_progress);
  EXPECT_EQ(reporter.last_progress->linked, 3u);
  EXPECT_EQ(reporter.last_progress->downloads_done, 0u);
}

TEST_F(PlanApply, EarlierRequestsComeFromCondaMetaHistory) {
  channel_.add(PackageBuilder("app", "2.0").depends({"lib >=1.0"}).file("bin/app", "app 2.0\n", 0755));
  RecordingReporter reporter;
  apply(planned(ChangeKind::create, {"app 1.*"}, reporter), reporter);
  EXPECT_EQ(installed(), (std::vector<std::string>{"app-1.0-0", "lib-1.0-0"}));

  // conda writes the request into conda-meta/history; the records' own
  // requested_spec is gpuenv's (and mamba's) extra. Without the records'
  // field, history alone keeps app at 1.*: installing docs leaves app alone.
  const auto history = prefix() / "conda-meta" / "history";
  std::ifstream in(history);
  const std::string text((std::istreambuf_iterator<char>(in)), {});
  EXPECT_NE(text.find("app 1.*"), std::string::npos) << text;
  const auto records = prefix::read_prefix_records(prefix()).records;
  auto without_requests = records;
  for (auto& record : without_requests) {
    record.requested_spec.clear();
    record.requested_specs.clear();
  }
  const auto earlier =
      environment::earlier_requests(prefix(), without_requests, settings_.channel_context, reporter);
  ASSERT_TRUE(earlier.contains("app"));
  EXPECT_EQ(earlier.at("app").original(), "app 1.*");
  EXPECT_FALSE(earlier.contains("lib"));  // pulled in, never asked for

  // History says what a removal took away.
  write_text_file(history, text + "# remove specs: ['app']\n");
  EXPECT_FALSE(environment::earlier_requests(prefix(), without_requests, settings_.channel_context, reporter)
                   .contains("app"));
}

TEST_F(PlanApply, ALongHistoryIsReadToItsEnd) {
  RecordingReporter reporter;
  apply(planned(ChangeKind::create, {"app"}, reporter), reporter);
  // Years of changes: the latest request stands after megabytes of older ones.
  const auto history = prefix() / "conda-meta" / "history";
  std::ifstream in(history);
  std::string text((std::istreambuf_iterator<char>(in)), {});
  in.close();
  while (text.size() < (3u << 20)) text += "==> 2020-01-01 00:00:00 <==\n# cmd: conda install x\n+defaults/linux-64::x-1-0\n";
  write_text_file(history, text + "# update specs: ['app 1.0']\n");
  auto records = prefix::read_prefix_records(prefix()).records;
  for (auto& record : records) {
    record.requested_spec.clear();
    record.requested_specs.clear();
  }
  const auto earlier = environment::earlier_requests(prefix(), records, settings_.channel_context, reporter);
  ASSERT_TRUE(earlier.contains("app"));
  EXPECT_EQ(earlier.at("app").original(), "app 1.0");

  // A FIFO planted as the history is refused with a warning, not waited on.
  std::filesystem::remove(history);
  ASSERT_EQ(::mkfifo(history.c_str(), 0644), 0);
  RecordingReporter warned;
  EXPECT_FALSE(environment::earlier_requests(prefix(), records, settings_.channel_context, warned).contains("app"));
  ASSERT_EQ(warned.warnings.size(), 1u);
  EXPECT_NE(warned.warnings.front().find("history"), std::string::npos) << warned.warnings.front();
}

TEST_F(PlanApply, ErrorsAreTypedValues) {
  RecordingReporter reporter;
  environment::ChangeRequest request;
  request.kind = ChangeKind::install;
  request.prefix = prefix();
  request.specs = {"app"};
  auto missing = environment::plan(settings_, request, reporter);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().kind, environment::ErrorKind::not_an_environment);
  EXPECT_NE(missing.error().message.find("gpuenv create -p"), std::string::npos) << missing.error().message;

  request.kind = ChangeKind::create;
  request.specs = {"app >=9"};
  auto unsolvable = environment::plan(settings_, request, reporter);
  ASSERT_FALSE(unsolvable);
  EXPECT_EQ(unsolvable.error().kind, environment::ErrorKind::unsatisfiable);
  ASSERT_TRUE(unsolvable.error().unsolvable);
  EXPECT_NE(unsolvable.error().message.find("app"), std::string::npos) << unsolvable.error().message;

  request.specs = {"app >=>1"};
  auto bad_spec = environment::plan(settings_, request, reporter);
  ASSERT_FALSE(bad_spec);
  EXPECT_EQ(bad_spec.error().kind, environment::ErrorKind::invalid_spec);
  EXPECT_EQ(environment::exit_status(bad_spec.error().kind), 1);

  request.specs = {};
  auto nothing = environment::plan(settings_, request, reporter);
  ASSERT_FALSE(nothing);
  EXPECT_EQ(environment::exit_status(nothing.error().kind), 2);
  EXPECT_FALSE(std::filesystem::exists(prefix()));  // a failed plan changed nothing
}

TEST_F(PlanApply, SearchFindsTheSpecsRecordsNewestFirst) {
  channel_.add(PackageBuilder("app", "2.0").depends({"lib >=1.0"}).file("bin/app", "app 2.0\n", 0755));
  RecordingReporter reporter;
  const auto found = environment::search(settings_, "app", reporter);
  ASSERT_TRUE(found) << found.error().message;
  ASSERT_EQ(found->records.size(), 2u);
  EXPECT_EQ(found->records.front().version, "2.0");
  const auto none = environment::search(settings_, "nothing-like-it", reporter);
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().kind, environment::ErrorKind::no_match);
  EXPECT_STREQ(environment::conda_exception_name(none.error().kind), "PackagesNotFoundError");
}

TEST(Settings, CommandLineChannelsComeFirstThenFileThenConfiguredThenSpecs) {
  util::CondaConfig configuration;
  configuration.channels = {"conda-forge", "bioconda"};
  environment::SettingsOverrides overrides;
  overrides.channels = {"nvidia", "conda-forge"};
  const auto settings = environment::settings_from(configuration, overrides, util::fixed_environment({}));
  ASSERT_TRUE(settings);
  const std::vector<specs::MatchSpec> specs{specs::MatchSpec::parse("pytorch::torch"), specs::MatchSpec::parse("x")};
  EXPECT_EQ(environment::channels_for(*settings, specs, {"file-channel", "nvidia"}).value(),
            (std::vector<std::string>{"nvidia", "conda-forge", "file-channel", "bioconda", "pytorch"}));

  overrides.override_channels = true;
  const auto only = environment::settings_from(configuration, overrides, util::fixed_environment({}));
  ASSERT_TRUE(only);
  EXPECT_EQ(environment::channels_for(*only, {}).value(), (std::vector<std::string>{"nvidia", "conda-forge"}));

  // --override-channels without -c leaves only what a file or a spec names.
  overrides.channels.clear();
  const auto none = environment::settings_from(configuration, overrides, util::fixed_environment({}));
  ASSERT_TRUE(none);
  EXPECT_EQ(environment::channels_for(*none, {}, {"from-file"}).value(), (std::vector<std::string>{"from-file"}));
  const auto refused = environment::channels_for(*none, {specs::MatchSpec::parse("x")});
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("--override-channels needs at least one -c"), std::string::npos);
}

TEST(Settings, PlatformComesFromTheOptionThenTheConfiguration) {
  util::CondaConfig configuration;
  configuration.subdir = "linux-aarch64";
  auto settings = environment::settings_from(configuration, {}, util::fixed_environment({}));
  ASSERT_TRUE(settings);
  EXPECT_EQ(settings->platform.str(), "linux-aarch64");
  environment::SettingsOverrides overrides;
  overrides.platform = "osx-arm64";
  settings = environment::settings_from(configuration, overrides, util::fixed_environment({}));
  ASSERT_TRUE(settings);
  EXPECT_EQ(settings->platform.str(), "osx-arm64");
  overrides.platform = "noarch";
  settings = environment::settings_from(configuration, overrides, util::fixed_environment({}));
  ASSERT_FALSE(settings);
  EXPECT_NE(settings.error().message.find("linux-64"), std::string::npos) << settings.error().message;
}

}  // namespace
}  // namespace gpuenv::testing
