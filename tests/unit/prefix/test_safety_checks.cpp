// conda's safety_checks: a package whose info/paths.json lies about a
// file's sha256 or size is installed with a warning (warn, the default),
// refused (enabled) or not checked (disabled); conda-meta records the file
// as it really is.
#include <gtest/gtest.h>

#include "gpuenv/package/hashing.hpp"
#include "gpuenv/package/package_error.hpp"
#include "gpuenv/prefix/prefix_record.hpp"
#include "prefix_fixture.hpp"

namespace gpuenv::prefix {
namespace {

using testing::PackageBuilder;

const std::string kContent = "the real content\n";

enum class Lie { sha256, size };

class SafetyChecksTest : public testing::PrefixTest,
                         public ::testing::WithParamInterface<Lie> {
 protected:
  specs::PackageRecord liar() {
    PackageBuilder builder("liar", "1.0");
    builder.file("share/liar.txt", kContent);
    if (GetParam() == Lie::sha256) {
      builder.declared_as(package::sha256_hex("something else"), std::nullopt);
    } else {
      builder.declared_as(std::nullopt, kContent.size() + 3);
    }
    builder.file("share/honest.txt", "honest\n");
    return channel().add(builder);
  }

  TransactionOptions with_checks(SafetyChecks checks) const {
    auto opts = options();
    opts.cache.safety_checks = checks;
    return opts;
  }

  PrefixPathEntry recorded(const std::string& path) const {
    const auto records = read_prefix_records(prefix());
    for (const auto& record : records.records) {
      for (const auto& entry : record.paths) {
        if (entry.path == path) return entry;
      }
    }
    ADD_FAILURE() << path << " is not recorded";
    return {};
  }
};

TEST_P(SafetyChecksTest, WarnInstallsRecordingTheRealFile) {
  const auto result = install_into(prefix(), {liar()}, {}, with_checks(SafetyChecks::warn));
  ASSERT_EQ(result.warnings.size(), 1u);
  const auto& warning = result.warnings.front();
  EXPECT_NE(warning.find("The package for liar"), std::string::npos) << warning;
  EXPECT_NE(warning.find("share/liar.txt"), std::string::npos) << warning;
  EXPECT_NE(warning.find(GetParam() == Lie::sha256 ? "sha256 mismatch" : "incorrect size"),
            std::string::npos)
      << warning;
  const auto entry = recorded("share/liar.txt");
  EXPECT_EQ(entry.sha256_in_prefix, package::sha256_hex(kContent));
  EXPECT_EQ(entry.size_in_bytes, kContent.size());
  EXPECT_EQ(recorded("share/honest.txt").sha256_in_prefix, package::sha256_hex("honest\n"));
}

TEST_P(SafetyChecksTest, EnabledRefusesAndInstallsNothing) {
  const auto record = liar();
  try {
    install_into(prefix(), {record}, {}, with_checks(SafetyChecks::enabled));
    ADD_FAILURE() << "installed";
  } catch (const PrefixError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("share/liar.txt"), std::string::npos) << message;
    EXPECT_NE(message.find("safety_checks is enabled"), std::string::npos) << message;
  }
  EXPECT_FALSE(std::filesystem::exists(prefix() / "share/liar.txt"));
  EXPECT_FALSE(std::filesystem::exists(prefix() / "share/honest.txt"));
}

TEST_P(SafetyChecksTest, DisabledChecksNothing) {
  const auto result = install_into(prefix(), {liar()}, {}, with_checks(SafetyChecks::disabled));
  EXPECT_TRUE(result.warnings.empty());
  EXPECT_TRUE(std::filesystem::exists(prefix() / "share/liar.txt"));
}

// An entry extracted before verification existed (or by conda) is checked
// on first use; one edited after extraction only with extra_safety_checks.
TEST_P(SafetyChecksTest, EntriesWithoutTheMarkerAreVerifiedOnFirstUse) {
  const auto record = liar();
  install_into(scratch() / "first", {record}, {}, with_checks(SafetyChecks::disabled));
  const auto entry = pkgs() / "liar-1.0-0";
  ASSERT_TRUE(std::filesystem::remove(entry / "info/.gpuenv-verified.json"));
  const auto result = install_into(prefix(), {record}, {}, with_checks(SafetyChecks::warn));
  EXPECT_EQ(result.warnings.size(), 1u);
  EXPECT_TRUE(std::filesystem::exists(entry / "info/.gpuenv-verified.json"));
}

INSTANTIATE_TEST_SUITE_P(Lies, SafetyChecksTest, ::testing::Values(Lie::sha256, Lie::size),
                         [](const auto& info) { return info.param == Lie::sha256 ? "sha256" : "size"; });

}  // namespace
}  // namespace gpuenv::prefix
