// Shared setup of the prefix tests: a scratch directory holding a channel
// the tests build packages into (served as file:// or over HTTP), a package
// cache, and prefixes; and running a transaction in a forked child, which
// is how the tests kill one half way.
#pragma once

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "gpuenv/prefix/prefix_error.hpp"
#include "gpuenv/prefix/transaction.hpp"
#include "support/package_builder.hpp"
#include "support/prefix_snapshot.hpp"
#include "support/temp_directory.hpp"
#include "support/testdata.hpp"

namespace gpuenv::testing {

struct ChildOutcome {
  int exit_code = -1;  // when it exited
  int signal = 0;      // when a signal ended it
};

// Forks; the child runs `body` and exits 0, or 1 when it throws (printing
// the message). Call it with no other threads running in this process.
inline ChildOutcome run_in_child(const std::function<void()>& body) {
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    int code = 0;
    try {
      body();
    } catch (const std::exception& error) {
      std::fprintf(stderr, "child failed: %s\n", error.what());
      code = 1;
    }
    std::fflush(nullptr);
    ::_exit(code);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  ChildOutcome outcome;
  if (WIFEXITED(status)) outcome.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) outcome.signal = WTERMSIG(status);
  return outcome;
}

class PrefixTest : public ::testing::Test {
 protected:
  PrefixTest()
      : scratch_(),
        channel_(scratch_ / "channel", "file://" + (scratch_ / "channel").string()) {}

  std::filesystem::path prefix() const { return scratch_ / "env"; }
  std::filesystem::path pkgs() const { return scratch_ / "pkgs"; }
  ChannelBuilder& channel() { return channel_; }
  const TempDirectory& scratch() const { return scratch_; }

  prefix::TransactionOptions options() const {
    prefix::TransactionOptions options;
    options.cache.pkgs_dirs = {pkgs()};
    options.cache.workers = 2;
    options.command_line = "gpuenv test";
    options.tool_version = "0.1.0";
    return options;
  }

  prefix::TransactionResult install(const std::vector<specs::PackageRecord>& link,
                                    const std::vector<specs::PackageRecord>& unlink = {}) {
    return install_into(prefix(), link, unlink, options());
  }

  static prefix::TransactionResult install_into(const std::filesystem::path& target,
                                                const std::vector<specs::PackageRecord>& link,
                                                const std::vector<specs::PackageRecord>& unlink,
                                                const prefix::TransactionOptions& options) {
    prefix::Transaction transaction;
    transaction.link = link;
    transaction.unlink = unlink;
    return prefix::apply_transaction(target, transaction, options);
  }

 private:
  TempDirectory scratch_;
  ChannelBuilder channel_;
};

}  // namespace gpuenv::testing
