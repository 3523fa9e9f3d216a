// The CLI's own part: options parsed into what the environment layer reads,
// and the lines it prints from the layer's results.
#include <gtest/gtest.h>

#include <CLI/CLI.hpp>

#include "channel_setup.hpp"
#include "environment_change.hpp"
#include "terminal_reporter.hpp"
#include "transaction_output.hpp"

namespace gpuenv::testing {
namespace {

cli::ChangeArguments parse(environment::ChangeKind kind, std::vector<std::string> words) {
  CLI::App app;
  cli::ChangeArguments arguments;
  cli::add_change_options(&app, arguments, kind);
  std::reverse(words.begin(), words.end());  // CLI11 takes them last-first
  app.parse(words);
  return arguments;
}

TEST(ChangeOptions, ChannelOptionsBecomeSettingsOverrides) {
  const auto arguments = parse(environment::ChangeKind::install,
                               {"-c", "nvidia", "-c", "conda-forge", "--strict-channel-priority", "--offline",
                                "--platform", "linux-aarch64", "cupy", "numpy>=2"});
  EXPECT_EQ(arguments.specs, (std::vector<std::string>{"cupy", "numpy>=2"}));
  const auto overrides = cli::settings_overrides(arguments.channels);
  EXPECT_EQ(overrides.channels, (std::vector<std::string>{"nvidia", "conda-forge"}));
  EXPECT_EQ(overrides.channel_priority, solver::ChannelPriority::strict);
  EXPECT_TRUE(overrides.offline);
  EXPECT_EQ(overrides.platform, "linux-aarch64");
  EXPECT_FALSE(overrides.override_channels);

  const auto flexible = cli::settings_overrides(parse(environment::ChangeKind::install, {"x"}).channels);
  EXPECT_FALSE(flexible.channel_priority);  // the configuration decides
  EXPECT_EQ(cli::settings_overrides(parse(environment::ChangeKind::install, {"--no-channel-priority", "x"}).channels)
                .channel_priority,
            solver::ChannelPriority::disabled);
}

TEST(ChangeOptions, EachCommandTakesOnlyItsOptions) {
  EXPECT_THROW(parse(environment::ChangeKind::remove, {"-c", "conda-forge", "x"}), CLI::ParseError);
  EXPECT_THROW(parse(environment::ChangeKind::create, {"--override-frozen", "x"}), CLI::ParseError);
  EXPECT_THROW(parse(environment::ChangeKind::install, {"--all"}), CLI::ParseError);
  EXPECT_TRUE(parse(environment::ChangeKind::update, {"--all"}).update_all);
  EXPECT_THROW(parse(environment::ChangeKind::install, {"-p", "/a", "-n", "b", "x"}), CLI::ParseError);
  EXPECT_THROW(parse(environment::ChangeKind::install, {"--strict-channel-priority", "--no-channel-priority", "x"}),
               CLI::ParseError);
  const auto files = parse(environment::ChangeKind::create, {"--file", "a.yml", "--file", "b.txt", "-n", "e"});
  EXPECT_EQ(files.files, (std::vector<std::string>{"a.yml", "b.txt"}));
  EXPECT_TRUE(files.specs.empty());
}

TEST(TransactionLines, ProgressLineShowsDownloadsUnlinksAndLinks) {
  environment::TransactionProgress progress;
  progress.downloads = 5;
  progress.downloads_done = 2;
  progress.downloaded_bytes = 12'300'000;
  progress.download_bytes_total = 40'000'000;
  progress.to_link = 12;
  progress.linked = 3;
  EXPECT_EQ(cli::transaction_progress_line(progress, 200), "Downloading 2/5  12.3 MB / 40.0 MB   Linking 3/12");
  progress.download_bytes_total.reset();
  progress.to_unlink = 2;
  progress.unlinked = 1;
  EXPECT_EQ(cli::transaction_progress_line(progress, 200), "Downloading 2/5  12.3 MB   Unlinking 1/2   Linking 3/12");
  EXPECT_EQ(cli::transaction_progress_line(progress, 20).size(), 19u);
  progress = {};
  progress.to_link = 1;
  EXPECT_EQ(cli::transaction_progress_line(progress, 80), "Linking 0/1");
}

TEST(TransactionLines, SummaryCountsWhatTheTransactionDid) {
  environment::ApplyResult result;
  result.transaction.linked.resize(12);
  result.transaction.unlinked.resize(3);
  result.downloaded_bytes = 1'200'000;
  result.seconds = 2.34;
  EXPECT_EQ(cli::summary_line(result), "Linked 12 packages, unlinked 3 (1.2 MB downloaded) in 2.3 s");
  result.transaction.linked.clear();
  result.transaction.unlinked.resize(1);
  result.downloaded_bytes = 0;
  result.seconds = 0.125;
  EXPECT_EQ(cli::summary_line(result), "Unlinked 1 package in 0.12 s");
}

}  // namespace
}  // namespace gpuenv::testing
