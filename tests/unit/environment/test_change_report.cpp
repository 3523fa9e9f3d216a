// The --json reports of create/install/update/remove: conda's action shape
// with masked credentials, conditions when any, and the transaction's facts.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "gpuenv/environment/change_report.hpp"

namespace gpuenv::environment {
namespace {

specs::PackageRecord linked_record() {
  specs::PackageRecord record;
  record.name = "zlib";
  record.set_version("1.3");
  record.build = "h0_0";
  record.build_number = 0;
  record.channel = "https://user:secret@repo.example/private";
  record.subdir = "linux-64";
  record.fn = "zlib-1.3-h0_0.conda";
  record.url = "https://user:secret@repo.example/private/linux-64/zlib-1.3-h0_0.conda";
  record.sha256 = std::string(64, 'a');
  return record;
}

void fill(Plan& plan) {
  plan.prefix = "/envs/x";
  plan.solution.link = {linked_record()};
  solver::LoadedSubdir subdir;
  subdir.source.channel_url = "https://user:secret@repo.example/private";
  subdir.source.channel_name = "private";
  subdir.source.subdir = "linux-64";
  plan.loaded.subdirs = {subdir};
}

TEST(ChangeReport, ADryRunListsTheActionsWithCredentialsMasked) {
  Plan plan;
  fill(plan);
  const auto text = dry_run_json(plan);
  EXPECT_EQ(text.find("secret"), std::string::npos) << text;
  const auto document = nlohmann::json::parse(text);
  EXPECT_EQ(document.at("success"), true);
  EXPECT_EQ(document.at("dry_run"), true);
  EXPECT_EQ(document.at("prefix"), "/envs/x");
  const auto& action = document.at("actions").at("LINK")[0];
  EXPECT_EQ(action.at("name"), "zlib");
  EXPECT_EQ(action.at("channel"), "private");
  EXPECT_EQ(action.at("dist_name"), "zlib-1.3-h0_0");
  EXPECT_EQ(document.at("actions").at("UNLINK"), nlohmann::json::array());
  EXPECT_EQ(document.at("actions").at("PREFIX"), "/envs/x");
  EXPECT_FALSE(document.contains("conditions"));
  EXPECT_FALSE(document.contains("clobbers"));
}

TEST(ChangeReport, AnAppliedChangeAddsConditionsAndWhatTheTransactionDid) {
  Plan plan;
  fill(plan);
  plan.conditions = {
      {"app 1.0 0", "cuda-cudart[when=\"__cuda>=12\"]", "__cuda>=12", true, {"__cuda 12.4 is on this machine"}}};
  ApplyResult applied;
  applied.transaction.clobbers = {{"bin/tool", "b-1-0", ""}};
  applied.transaction.warnings = {"a warning"};
  applied.downloaded_bytes = 1234;
  applied.seconds = 0.5;
  const auto document = nlohmann::json::parse(applied_change_json(plan, applied));
  EXPECT_FALSE(document.contains("dry_run"));
  EXPECT_EQ(document.at("conditions")[0].at("when"), "__cuda>=12");
  EXPECT_EQ(document.at("conditions")[0].at("held"), true);
  EXPECT_EQ(document.at("clobbers")[0].at("previous_owner"), nullptr);
  EXPECT_EQ(document.at("warnings")[0], "a warning");
  EXPECT_EQ(document.at("downloaded_bytes"), 1234);
  EXPECT_EQ(document.at("seconds"), 0.5);
}

TEST(ChangeReport, NothingToDoSaysSoForThePrefix) {
  Plan plan;
  plan.prefix = "/envs/x";
  EXPECT_EQ(nothing_to_do_json(plan),
            "{\n  \"success\": true,\n  \"message\": \"All requested packages already installed.\",\n"
            "  \"prefix\": \"/envs/x\"\n}");
}

}  // namespace
}  // namespace gpuenv::environment
